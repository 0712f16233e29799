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

checks="ahead ahead-replay"
[ "$driver" = tessera ] || abort "the capture layer records the tessera driver only (GL_TEST_DRIVER=$driver)"
trace=$workloads/traces/glmark2-es2-build.trace
r=$(gl_require_renderer tessera "$trace" 2>&1) || abort "$r"
echo "renderer: $r"
gl_prefix tessera
cap() { # OUT LOG [ENV...]
    local out=$1 log=$2
    shift 2
    env TESSERA_CAPTURE_STATS=1 "$@" timeout -k 10 "${GL_TRACE_TIMEOUT:-600}" "$tessera" capture \
        -o "$out" -- "${GL_PREFIX[@]}" eglretrace --headless "$trace" > "$log" 2>&1
}
cap "$work/new.tsr" "$work/new.log" || abort "the captured eglretrace failed: $(tail -n 3 "$work/new.log")"
cap "$work/old.tsr" "$work/old.log" TESSERA_CAPTURE_TEST_WP_AHEAD=0 ||
    abort "the captured eglretrace failed: $(tail -n 3 "$work/old.log")"
faults() { sed -n 's/.* wp: \([0-9]*\) write faults,.*/\1/p' "$1"; }
ahead() { sed -n 's/.* wp: \([0-9]*\) pages unprotected ahead.*/\1/p' "$1"; }
fn=$(faults "$work/new.log") fo=$(faults "$work/old.log") an=$(ahead "$work/new.log")
echo "write faults: $fn (writes ahead, $an pages), $fo (page by page)"
if grep -q ' wp uffd: [0-9]* mappings, 0 refused' "$work/new.log"; then
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

"$tessera" replay "$work/new.tsr" --dump-images "$work/rn" --quiet > "$work/rn.log" 2>&1 ||
    abort "replay failed: $(tail -n 3 "$work/rn.log")"
"$tessera" replay "$work/old.tsr" --dump-images "$work/ro" --quiet > "$work/ro.log" 2>&1 ||
    abort "replay failed: $(tail -n 3 "$work/ro.log")"
n=$(ls "$work/rn" | grep -c '\.png$')
if [ "$n" = 0 ] || ! diff -r -q "$work/rn" "$work/ro" > "$work/diff.log" 2>&1; then
    check FAILED ahead-replay "$n images; $(head -n 3 "$work/diff.log")"
elif ! "$tessera" replay "$work/new.tsr" --validate --quiet > "$work/val.log" 2>&1; then
    check FAILED ahead-replay "--validate: $(tail -n 3 "$work/val.log")"
else
    echo "$n replayed images identical"
    check ok ahead-replay
fi
finish
