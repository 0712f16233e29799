#!/bin/bash
# SPDX-License-Identifier: MIT
# wp's hot pages on a real GL program (issue 17): eglretrace replaying
# es2gears on the tessera driver, captured with the defaults and with
# TESSERA_CAPTURE_TEST_WP_HOT_FIRST=0 (a page becomes hot only when it is
# collected dirty a second time, the rule before). The driver's command and
# upload pools rewrite a page or two of the same buffers every frame; made
# hot at their first collect (capture/cap_wp.c, short_dirty_run) they take
# no second fault. Checks:
#   - hot-first: the default capture takes at least 10 write faults fewer
#     (es2gears: 97 against 126) and at most 110;
#   - hot-first-replay: both captures replay to the same images, bit for
#     bit, and the default one passes `tessera replay --validate`.
# With TESSERA_CAPTURE_WP_TRACK=uffd there are no faults to count (no hot
# pages either): hot-first is skipped.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/wp_pair.sh"

checks="hot-first hot-first-replay"
gl_es2gears_setup
wp_pair_capture TESSERA_CAPTURE_TEST_WP_HOT_FIRST=0
fn=$(wp_faults "$work/new.log") fo=$(wp_faults "$work/old.log")
echo "write faults: $fn (hot at the first collect), $fo (at the second)"
if wp_uffd_only "$work/new.log"; then
    check skip hot-first "every mapping tracked by userfaultfd"
elif [ -z "$fn" ] || [ -z "$fo" ]; then
    check FAILED hot-first "no wp statistics: $(grep 'tessera capture' "$work/new.log" | head -n 3)"
elif [ $((fn + 10)) -gt "$fo" ] || [ "$fn" -gt 110 ]; then
    check FAILED hot-first "$fn write faults against $fo"
else
    check ok hot-first
fi

wp_pair_replay_check hot-first-replay
finish
