#!/bin/bash
# SPDX-License-Identifier: MIT
# wp's idle limits on a real GL program (issue 17): eglretrace replaying
# es2gears on the tessera driver, captured with the defaults and with
# TESSERA_CAPTURE_TEST_WP_HOT_IDLE_GROW=0 (every hot page protected again
# after HOT_IDLE unchanged collects, the rule before). The driver rewrites
# page 0 of each of its upload buffers with the same bytes every few
# frames: unchanged to the hash, so it went idle after 32 collects and
# faulted a few collects later, again and again (capture/cap_wp.c,
# idle_grow: such a page gets the longest idle limit at once). Checks:
#   - hot-idle: the default capture takes at least 20 write faults fewer
#     (es2gears: 54 against 80; with limits doubling at each idling, 32,
#     64, 128, the rule before, 68: the upload buffers' page 0 faulted
#     again at ~106 collects);
#   - hot-idle-replay: both captures replay to the same images, bit for
#     bit, and the default one passes `tessera replay --validate`.
# With TESSERA_CAPTURE_WP_TRACK=uffd there are no faults to count (no hot
# pages either): hot-idle is skipped.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/wp_pair.sh"

checks="hot-idle hot-idle-replay"
gl_es2gears_setup
wp_pair_capture TESSERA_CAPTURE_TEST_WP_HOT_IDLE_GROW=0
fn=$(wp_faults "$work/new.log") fo=$(wp_faults "$work/old.log")
echo "write faults: $fn (idle limits grow), $fo (fixed)"
if wp_uffd_only "$work/new.log"; then
    check skip hot-idle "every mapping tracked by userfaultfd"
elif [ -z "$fn" ] || [ -z "$fo" ]; then
    check FAILED hot-idle "no wp statistics: $(grep 'tessera capture' "$work/new.log" | head -n 3)"
elif [ $((fn + 20)) -gt "$fo" ]; then
    check FAILED hot-idle "$fn write faults against $fo"
else
    check ok hot-idle
fi

wp_pair_replay_check hot-idle-replay
finish
