#!/bin/bash
# SPDX-License-Identifier: MIT
# Capture round trip of a real GL workload: eglretrace replays the es2gears
# apitrace trace on the tessera driver (render-node path) under
#   tessera capture -o T.tsr -- tessera run -- eglretrace --headless -s LIVE/ --snapshot-alpha ...
# (LD_PRELOAD: the capture layer first, `tessera run` appends the shim after
# it, so the layer sees the driver's ioctls before the kernel driver does),
# then `tessera replay T.tsr --dump-images REPLAY/` on the model.
#
# What is compared, at tolerance 0 (bit-identical, alpha included):
#   - eglretrace's snapshot of frame F (LIVE/<call>.png, taken with
#     glReadPixels just before the F-th eglSwapBuffers, top-down RGBA) against
#     the back buffer that the replay dumps for frame F: the colour target of
#     the window's size written last in frame F (fFFFF_sSSSSS_colorN.png with
#     the highest S). The trace's frame F ends at the F-th eglSwapBuffers, so
#     both are the pixels of the same render target after the same submissions.
#   - a second replay of the last frames alone (--frames A-B: earlier work is
#     not re-run but from the last keyframe before A, docs/replay.md, its
#     memory restored) against the first replay's images of the same frames
#     (the replay is deterministic).
# The live snapshots must also meet the llvmpipe reference criterion
# (scripts/gl-trace-check --snapshots), and the frames must really change.
# Results: capture-live-reference, capture-frames-change, capture-frames (one
# trace frame per eglSwapBuffers), capture-roundtrip, capture-replay-deterministic.
. "$(dirname "$0")/lib/common.sh"

# The same five results on every run: a step that stops the test reports
# the checks it did not reach as failed, with its reason.
checks="capture-live-reference capture-frames-change capture-frames capture-roundtrip capture-replay-deterministic"

name=${GL_CAPTURE_TRACE:-es2gears}
trace=$workloads/traces/$name.trace
t=$work/$name.tsr
live=$work/live
replay=$work/replay
cap_driver=tessera
[ "$driver" = tessera ] || cap_driver=$driver   # GL_TEST_DRIVER: the capture then records nothing

r=$(gl_require_renderer "$cap_driver" "$trace" 2>&1) || abort "$r"
echo "renderer: $r"
swaps=$(gl_swap_calls "$trace")
n_swaps=$(echo "$swaps" | wc -l)

# live run under capture
gl_prefix "$cap_driver"
# (timeout outside: between the prefix and eglretrace it would fork, and the
# trace would be eglretrace's child trace NAME.<pid>.tsr)
timeout -k 10 "${GL_TRACE_TIMEOUT:-600}" "$tessera" capture -q -o "$t" -- "${GL_PREFIX[@]}" \
    eglretrace --headless --snapshot-alpha -s "$live/" "$trace" > "$work/live.log" 2>&1
rc=$?
grep -v '^Wrote ' "$work/live.log" | tail -n 5
[ $rc = 0 ] || abort "the captured eglretrace exited $rc"
n_live=$(ls "$live" 2>/dev/null | grep -c '\.png$')
[ "$n_live" = "$n_swaps" ] || abort "$n_live live snapshots, want $n_swaps"
# live snapshots against the llvmpipe reference
if "$top/scripts/gl-trace-check" "$name" --snapshots "$live"; then check ok capture-live-reference
else check FAILED capture-live-reference; fi
# The frames change (the gears turn): the first and last live frames differ.
first=$live/$(printf '%010d' "$(echo "$swaps" | head -n1)").png
last=$live/$(printf '%010d' "$(echo "$swaps" | tail -n1)").png
if [ "$first" != "$last" ] && ! "$tessera" compare images "$first" "$last" > /dev/null 2>&1; then
    check ok capture-frames-change
else
    check FAILED capture-frames-change "the first and last frames are equal"
fi
[ -s "$t" ] || abort "no trace written (did the program use the render node?)"
"$tessera" info "$t" > "$work/info.txt" || abort "tessera info $t failed"
grep -E '^(device|frames|submissions|size):' "$work/info.txt"
frames=$(awk '$1 == "frames:" { print $2; exit }' "$work/info.txt")
if [ "$frames" != "$n_swaps" ]; then
    check FAILED capture-frames "the trace has ${frames:-no} frames, the program swapped $n_swaps times (the capture layer must see eglretrace's eglSwapBuffers, which waffle looks up with dlsym on libEGL)"
else
    check ok capture-frames
fi

# replay, every frame's back buffer against the live snapshot
if ! "$tessera" replay "$t" --dump-images "$replay" > "$work/replay.log" 2>&1; then
    tail -n 5 "$work/replay.log"
    abort "tessera replay failed"
fi
echo "$swaps" > "$work/swaps"
missing=0
gl_pair_frames "$work/swaps" "$live" "$replay" "$work/pairs" > "$work/pairs.txt" || missing=$?
head -n 3 "$work/pairs.txt"
if [ $missing -gt 0 ]; then
    check FAILED capture-roundtrip "$missing of $n_swaps frames have no back buffer in the replay's dump"
elif "$tessera" compare images "$work/pairs/live" "$work/pairs/replay" > "$work/cmp.txt" 2>&1; then
    tail -n 1 "$work/cmp.txt"
    check ok capture-roundtrip
else
    grep -v '^PASS' "$work/cmp.txt" | head -n 8
    check FAILED capture-roundtrip "replayed back buffers differ from the live snapshots"
fi
# determinism: the last frames again, alone
a=$((n_swaps > 5 ? n_swaps - 5 : 0)) b=$((n_swaps - 1))
"$tessera" replay "$t" --frames $a-$b --dump-images "$work/again" --quiet > /dev/null 2>&1
mkdir -p "$work/first"
for img in "$work/again"/*.png; do [ -e "$img" ] && ln -s "$replay/$(basename "$img")" "$work/first/"; done
if [ -n "$(ls "$work/again" 2>/dev/null)" ] &&
   "$tessera" compare images "$work/first" "$work/again" > "$work/cmp2.txt" 2>&1; then
    tail -n 1 "$work/cmp2.txt"
    check ok capture-replay-deterministic
else
    tail -n 3 "$work/cmp2.txt" 2>/dev/null
    check FAILED capture-replay-deterministic "a replay of frames $a-$b differs from the first replay (or dumped nothing)"
fi
finish
