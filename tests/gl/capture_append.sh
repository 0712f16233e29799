#!/bin/bash
# SPDX-License-Identifier: MIT
# wp's appends on a real GL program (issue 17): eglretrace replaying
# es2gears on the tessera driver, captured with the defaults and with
# TESSERA_CAPTURE_TEST_WP_APPEND=0 (each next page of a buffer written
# front to back faults, the rule before). The driver's command pool moves
# on to its next page every ~8.5 submissions; a page that becomes hot
# right after a hot page, and one made hot this way once written, make
# the next page hot ahead (capture/cap_wp.c, "Appends"). Checks:
#   - append: the default capture takes at least 10 write faults fewer
#     (es2gears: 54 against 68) and reports pages made hot ahead;
#   - append-replay: both captures replay to the same images, bit for
#     bit, and the default one passes `tessera replay --validate`.
# With TESSERA_CAPTURE_WP_TRACK=uffd there are no faults to count (no hot
# pages either): append is skipped.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/wp_pair.sh"

checks="append append-replay"
gl_es2gears_setup
wp_pair_capture TESSERA_CAPTURE_TEST_WP_APPEND=0
fn=$(wp_faults "$work/new.log") fo=$(wp_faults "$work/old.log")
na=$(sed -n 's/.* \([0-9]*\) made hot ahead of appends.*/\1/p' "$work/new.log")
echo "write faults: $fn (appends), $fo (page by page); ${na:-?} pages made hot ahead"
if wp_uffd_only "$work/new.log"; then
    check skip append "every mapping tracked by userfaultfd"
elif [ -z "$fn" ] || [ -z "$fo" ] || [ -z "$na" ]; then
    check FAILED append "no wp statistics: $(grep 'tessera capture' "$work/new.log" | head -n 3)"
elif [ $((fn + 10)) -gt "$fo" ] || [ "$na" -lt 10 ]; then
    check FAILED append "$fn write faults against $fo, $na pages made hot ahead"
else
    check ok append
fi

wp_pair_replay_check append-replay
finish
