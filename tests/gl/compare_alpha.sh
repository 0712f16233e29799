#!/bin/bash
# SPDX-License-Identifier: MIT
# `tessera compare images --ignore-alpha` on a real GL program: eglretrace
# replaying es2gears under capture writes its snapshots without
# --snapshot-alpha, so they are opaque while the replay's back buffers keep
# the alpha the gears' fragment shader and the clear wrote.
#   alpha-differs: paired frame by frame (gl_pair_frames), the default
#                  comparison fails on alpha alone;
#   ignore-alpha:  with --ignore-alpha all 120 frames pass, bit for bit on
#                  R, G, B;
#   rgb-still:     with --ignore-alpha, frames that differ in colour
#                  (frame 0 against frame 119) still fail.
#   swap-calls:    `compare images --swap-calls` pairs the call-numbered
#                  snapshots with the replay's frames itself: the same 120
#                  pairs pass as gl_pair_frames' links; a malformed calls
#                  file and a directory without snapshots exit 2.
. "$(dirname "$0")/lib/common.sh"

checks="alpha-differs ignore-alpha rgb-still swap-calls"

gl_es2gears_setup
gl_swap_calls "$trace" > "$work/swaps"
n=$(wc -l < "$work/swaps")
# as gl_capture_es2gears, with snapshots (-s) and without --snapshot-alpha
timeout -k 10 "${GL_TRACE_TIMEOUT:-600}" "$tessera" capture -q -o "$work/t.tsr" -- \
    "${GL_PREFIX[@]}" eglretrace --headless -s "$work/live/" "$trace" > "$work/live.log" 2>&1 ||
    abort "the captured eglretrace failed: $(tail -n 2 "$work/live.log")"
"$tessera" replay "$work/t.tsr" --dump-images "$work/replay" --quiet > "$work/replay.log" 2>&1 ||
    abort "the replay failed: $(tail -n 2 "$work/replay.log")"
gl_pair_frames "$work/swaps" "$work/live" "$work/replay" "$work/pairs" > "$work/pairs.txt" ||
    abort "frames without a pair: $(head -n 2 "$work/pairs.txt")"

if "$tessera" compare images "$work/pairs/live" "$work/pairs/replay" > "$work/c1.txt" 2>&1; then
    check FAILED alpha-differs "the snapshots without alpha equal the replay's back buffers: nothing to ignore"
else
    tail -n 1 "$work/c1.txt"
    check ok alpha-differs
fi
if "$tessera" compare images --ignore-alpha "$work/pairs/live" "$work/pairs/replay" > "$work/c2.txt" 2>&1 &&
   grep -q "^$n images: $n passed" "$work/c2.txt"; then
    tail -n 1 "$work/c2.txt"
    check ok ignore-alpha
else
    grep -v '^PASS' "$work/c2.txt" | head -n 4
    check FAILED ignore-alpha "--ignore-alpha: the frames still differ"
fi
last=$(printf 'frame%04d.png' $((n - 1)))
if "$tessera" compare images --ignore-alpha "$work/pairs/live/frame0000.png" "$work/pairs/replay/$last" > "$work/c3.txt" 2>&1; then
    check FAILED rgb-still "--ignore-alpha let frame 0 equal frame $((n - 1))"
else
    check ok rgb-still
fi

printf '12\nnot-a-call\n' > "$work/bad-swaps"
rc1=0 rc2=0
"$tessera" compare images --swap-calls "$work/bad-swaps" "$work/live" "$work/replay" > "$work/c5.txt" 2>&1 || rc1=$?
"$tessera" compare images --swap-calls "$work/swaps" "$work/replay" "$work/replay" > "$work/c6.txt" 2>&1 || rc2=$?
if "$tessera" compare images --ignore-alpha --swap-calls "$work/swaps" "$work/live" "$work/replay" \
       > "$work/c4.txt" 2>&1 && grep -q "^$n images: $n passed" "$work/c4.txt" &&
   grep -q '^PASS  frame0000.png' "$work/c4.txt" && [ $rc1 = 2 ] && [ $rc2 = 2 ] &&
   grep -q 'not a call number' "$work/c5.txt" && grep -q 'no snapshot' "$work/c6.txt"; then
    tail -n 1 "$work/c4.txt"
    check ok swap-calls
else
    head -n 3 "$work/c4.txt" "$work/c5.txt" "$work/c6.txt"
    check FAILED swap-calls "--swap-calls: pairing (exit ${rc1}/${rc2})"
fi
finish
