#!/bin/bash
# SPDX-License-Identifier: MIT
# wp's writes ahead on a real GL program (issue 17): eglretrace replaying
# glmark2-es2 build on the tessera driver, captured with the defaults and
# with TESSERA_CAPTURE_TEST_WP_AHEAD=0 (a write fault per page, the rule
# before). The driver fills two 256 KiB buffers page after page before
# their first submission; a fault right after a run of dirty pages now
# unprotects as many pages ahead (capture/cap_wp.c, "Writes ahead"), so a
# 64-page fill takes 7 faults. Checks:
#   - ahead: the default capture takes at least 60 write faults fewer
#     (glmark2-es2 build: 65 against 179) and reports pages unprotected
#     ahead;
#   - ahead-replay: both captures replay to the same images, bit for bit,
#     and the default one passes `tessera replay --validate` (the pages
#     marked ahead are read before the GPU may write their object).
# With TESSERA_CAPTURE_WP_TRACK=uffd there are no faults to count: ahead
# is skipped; with =mixed (half the mappings by userfaultfd) it asks for
# fewer faults and pages ahead only.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/wp_pair.sh"

checks="ahead ahead-replay"
[ "$driver" = tessera ] || abort "the capture layer records the tessera driver only (GL_TEST_DRIVER=$driver)"
trace=$workloads/traces/glmark2-es2-build.trace
r=$(gl_require_renderer tessera "$trace" 2>&1) || abort "$r"
echo "renderer: $r"
gl_prefix tessera
wp_pair_capture TESSERA_CAPTURE_TEST_WP_AHEAD=0
ahead() { sed -n 's/.* wp: \([0-9]*\) pages unprotected ahead.*/\1/p' "$1"; }
fn=$(wp_faults "$work/new.log") fo=$(wp_faults "$work/old.log") an=$(ahead "$work/new.log")
echo "write faults: $fn (writes ahead, $an pages), $fo (page by page)"
if wp_uffd_only "$work/new.log"; then
    check skip ahead "every mapping tracked by userfaultfd"
elif [ -z "$fn" ] || [ -z "$fo" ] || [ -z "$an" ]; then
    check FAILED ahead "no wp statistics: $(grep 'tessera capture' "$work/new.log" | head -n 3)"
elif grep -q ' wp uffd: [1-9][0-9]* mappings' "$work/new.log"; then
    # TESSERA_CAPTURE_WP_TRACK=mixed: half the mappings fault, half are
    # userfaultfd's (glmark2-es2 build: 26 against 83)
    if [ "$fn" -ge "$fo" ] || [ "$an" -eq 0 ]; then
        check FAILED ahead "$fn write faults against $fo, $an pages ahead (mixed)"
    else
        check ok ahead
    fi
elif [ $((fn + 60)) -gt "$fo" ] || [ "$an" -eq 0 ]; then
    check FAILED ahead "$fn write faults against $fo, $an pages ahead"
else
    check ok ahead
fi

wp_pair_replay_check ahead-replay
finish
