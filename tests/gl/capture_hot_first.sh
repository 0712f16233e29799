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

checks="hot-first hot-first-replay"
gl_es2gears_setup
cap() { # OUT LOG [ENV...]
    local out=$1 log=$2
    shift 2
    env TESSERA_CAPTURE_STATS=1 "$@" timeout -k 10 "${GL_TRACE_TIMEOUT:-600}" "$tessera" capture \
        -o "$out" -- "${GL_PREFIX[@]}" eglretrace --headless "$trace" > "$log" 2>&1
}
cap "$work/new.tsr" "$work/new.log" || abort "the captured eglretrace failed: $(tail -n 3 "$work/new.log")"
cap "$work/old.tsr" "$work/old.log" TESSERA_CAPTURE_TEST_WP_HOT_FIRST=0 ||
    abort "the captured eglretrace failed: $(tail -n 3 "$work/old.log")"
faults() { sed -n 's/.* wp: \([0-9]*\) write faults,.*/\1/p' "$1"; }
fn=$(faults "$work/new.log") fo=$(faults "$work/old.log")
echo "write faults: $fn (hot at the first collect), $fo (at the second)"
if grep -q ' wp uffd: [0-9]* mappings, 0 refused' "$work/new.log"; then
    check skip hot-first "every mapping tracked by userfaultfd"
elif [ -z "$fn" ] || [ -z "$fo" ]; then
    check FAILED hot-first "no wp statistics: $(grep 'tessera capture' "$work/new.log" | head -n 3)"
elif [ $((fn + 10)) -gt "$fo" ] || [ "$fn" -gt 110 ]; then
    check FAILED hot-first "$fn write faults against $fo"
else
    check ok hot-first
fi

"$tessera" replay "$work/new.tsr" --dump-images "$work/rn" --quiet > "$work/rn.log" 2>&1 ||
    abort "replay failed: $(tail -n 3 "$work/rn.log")"
"$tessera" replay "$work/old.tsr" --dump-images "$work/ro" --quiet > "$work/ro.log" 2>&1 ||
    abort "replay failed: $(tail -n 3 "$work/ro.log")"
n=$(ls "$work/rn" | grep -c '\.png$')
if [ "$n" = 0 ] || ! diff -r -q "$work/rn" "$work/ro" > "$work/diff.log" 2>&1; then
    check FAILED hot-first-replay "$n images; $(head -n 3 "$work/diff.log")"
elif ! "$tessera" replay "$work/new.tsr" --validate --quiet > "$work/val.log" 2>&1; then
    check FAILED hot-first-replay "--validate: $(tail -n 3 "$work/val.log")"
else
    echo "$n replayed images identical"
    check ok hot-first-replay
fi
finish
