#!/bin/bash
# SPDX-License-Identifier: MIT
# Frames of an off-screen program (docs/capture.md "Frames"): gl_offscreen
# draws N frames into an FBO on a surfaceless context, never swaps, ends
# each frame with glFinish and saves its glReadPixels image. Captured under
#   tessera capture [--frame-on finish|flush|submit] -o T.tsr -- tessera run -- gl_offscreen LIVE N
# and replayed with `tessera replay T.tsr --dump-images DIR`:
#   frame-on-default: the default (swap) gives 0 frames, and the replay still
#     writes the last image (before the fix, every render warned "end-of-tile
#     USC word list ... is unmapped": the frame ended after the teardown) —
#     no warning, bit-identical to the program's last frame;
#   frame-on-finish, frame-on-flush: one trace frame per glFinish, one image
#     per frame, each bit-identical to the program's own image, no warning;
#   frame-on-submit: one frame per submission (one draw per frame here);
#   frame-on-bad: --frame-on bogus is refused with exit 2.
. "$(dirname "$0")/lib/common.sh"

bin=$top/build/release/bin
n=5
gl_prefix tessera

# run_mode NAME [capture options...]: capture, check frames, replay, compare
run_mode() {
    local name=$1 want_frames=$2
    shift 2
    local d=$work/$name
    mkdir -p "$d/live" "$d/replay"
    if ! "$tessera" capture -q "$@" -o "$d/t.tsr" -- "${GL_PREFIX[@]}" "$bin/gl_offscreen" \
            "$d/live" $n > "$d/live.log" 2>&1; then
        cat "$d/live.log"; result FAILED "$name" "the captured gl_offscreen failed"; return
    fi
    local frames
    frames=$("$tessera" info "$d/t.tsr" | awk '$1 == "frames:" { print $2; exit }')
    if [ "$frames" != "$want_frames" ]; then
        result FAILED "$name" "$frames trace frames, want $want_frames"; return
    fi
    "$tessera" replay "$d/t.tsr" --dump-images "$d/replay" > "$d/replay.log" 2>&1 ||
        { cat "$d/replay.log"; result FAILED "$name" "replay failed"; return; }
    if grep -q warning "$d/replay.log"; then
        grep warning "$d/replay.log" | head -n 3; result FAILED "$name" "replay warned"; return
    fi
    # the program's frame i against the replay's image of trace frame i
    # (frame-on-default: the single trace frame against the last one)
    local i ok=1 img live_img
    local nimg
    nimg=$(ls "$d/replay" | grep -c '\.png$')
    local want_img=$want_frames
    [ "$want_frames" = 0 ] && want_img=1
    [ "$nimg" = "$want_img" ] || { result FAILED "$name" "$nimg images, want $want_img"; return; }
    for ((i = 0; i < want_img; i++)); do
        img=$(ls "$d/replay"/f$(printf %04d $i)_*_color0.png 2>/dev/null | tail -n 1)
        live_img=$d/live/frame$(printf %02d $i).png
        [ "$want_frames" = 0 ] && live_img=$d/live/frame$(printf %02d $((n - 1))).png
        [ -n "$img" ] || { ok=0; echo "$name: no image of frame $i"; continue; }
        "$tessera" compare images "$live_img" "$img" > "$d/cmp.log" 2>&1 ||
            { ok=0; head -n 2 "$d/cmp.log"; }
    done
    if [ $ok = 1 ]; then result ok "$name"; else result FAILED "$name" "images differ"; fi
}

run_mode frame-on-default 0
run_mode frame-on-finish $n --frame-on finish
run_mode frame-on-flush $n --frame-on flush
run_mode frame-on-submit $n --frame-on submit

"$tessera" capture --frame-on bogus -o "$work/bad.tsr" -- true > "$work/bad.log" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "bad --frame-on" "$work/bad.log"; then result ok frame-on-bad
else cat "$work/bad.log"; result FAILED frame-on-bad "exit $rc"; fi
finish
