#!/bin/bash
# SPDX-License-Identifier: MIT
# wp's idle limits on a real GL program (issue 17): eglretrace replaying
# es2gears on the tessera driver, captured with the defaults and with
# TESSERA_CAPTURE_TEST_WP_HOT_IDLE_GROW=0 (every hot page protected again
# after HOT_IDLE unchanged collects, the rule before). The driver rewrites
# page 0 of each of its upload buffers with the same bytes every few
# frames: unchanged to the hash, so it went idle after 32 collects and
# faulted a few collects later, again and again (capture/cap_wp.c,
# idle_grow). Checks:
#   - hot-idle: the default capture takes at least 6 write faults fewer
#     (es2gears: 88 against 98);
#   - hot-idle-replay: both captures replay to the same images, bit for
#     bit, and the default one passes `tessera replay --validate`.
# With TESSERA_CAPTURE_WP_TRACK=uffd there are no faults to count (no hot
# pages either): hot-idle is skipped.
. "$(dirname "$0")/lib/common.sh"

checks="hot-idle hot-idle-replay"
gl_es2gears_setup
cap() { # OUT LOG [ENV...]
    local out=$1 log=$2
    shift 2
    env TESSERA_CAPTURE_STATS=1 "$@" timeout -k 10 "${GL_TRACE_TIMEOUT:-600}" "$tessera" capture \
        -o "$out" -- "${GL_PREFIX[@]}" eglretrace --headless "$trace" > "$log" 2>&1
}
cap "$work/new.tsr" "$work/new.log" || abort "the captured eglretrace failed: $(tail -n 3 "$work/new.log")"
cap "$work/old.tsr" "$work/old.log" TESSERA_CAPTURE_TEST_WP_HOT_IDLE_GROW=0 ||
    abort "the captured eglretrace failed: $(tail -n 3 "$work/old.log")"
faults() { sed -n 's/.* wp: \([0-9]*\) write faults,.*/\1/p' "$1"; }
fn=$(faults "$work/new.log") fo=$(faults "$work/old.log")
echo "write faults: $fn (idle limits grow), $fo (fixed)"
if grep -q ' wp uffd: [0-9]* mappings, 0 refused' "$work/new.log"; then
    check skip hot-idle "every mapping tracked by userfaultfd"
elif [ -z "$fn" ] || [ -z "$fo" ]; then
    check FAILED hot-idle "no wp statistics: $(grep 'tessera capture' "$work/new.log" | head -n 3)"
elif [ $((fn + 6)) -gt "$fo" ]; then
    check FAILED hot-idle "$fn write faults against $fo"
else
    check ok hot-idle
fi

"$tessera" replay "$work/new.tsr" --dump-images "$work/rn" --quiet > "$work/rn.log" 2>&1 ||
    abort "replay failed: $(tail -n 3 "$work/rn.log")"
"$tessera" replay "$work/old.tsr" --dump-images "$work/ro" --quiet > "$work/ro.log" 2>&1 ||
    abort "replay failed: $(tail -n 3 "$work/ro.log")"
n=$(ls "$work/rn" | grep -c '\.png$')
if [ "$n" = 0 ] || ! diff -r -q "$work/rn" "$work/ro" > "$work/diff.log" 2>&1; then
    check FAILED hot-idle-replay "$n images; $(head -n 3 "$work/diff.log")"
elif ! "$tessera" replay "$work/new.tsr" --validate --quiet > "$work/val.log" 2>&1; then
    check FAILED hot-idle-replay "--validate: $(tail -n 3 "$work/val.log")"
else
    echo "$n replayed images identical"
    check ok hot-idle-replay
fi
finish
