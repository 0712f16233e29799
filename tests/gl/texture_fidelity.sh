#!/bin/bash
# SPDX-License-Identifier: MIT
# Rendering fidelity against two correct rasterizers: replays a shared
# trace (default glmark2-es2-texture: a textured cube, GL_NEAREST, 512x512
# RGB8) on the driver under test, on softpipe and on llvmpipe, every frame,
# and compares each frame with llvmpipe's (`tessera compare images
# --tolerance 12 --json`). A frame passes when the driver's count of pixels
# differing from llvmpipe by more than 12/255 is at most 3x softpipe's, and
# its largest difference at most 3x softpipe's (differences within the
# 12/255 tolerance always pass): a correct rasterizer may disagree with
# llvmpipe where a texture coordinate sits on a texel boundary, but not
# much more often than softpipe does.
#
# llvmpipe is this machine's (the system Mesa); it must reproduce the
# shared llvmpipe reference snapshots bit for bit, else only the reference
# frames are compared, against those snapshots.
#
# The model's texture coordinates used to come from varying planes set up
# on vertex positions snapped to 1/256 pixel, ~0.003 texel off, which
# flipped nearest texels: 661/17/41/35/11 pixels over 12/255 on the five
# reference frames where softpipe has 111/2/1/1/1 (67 of 68 frames over
# the bound). GL_FIDELITY_TRACES picks other traces.
. "$(dirname "$0")/lib/common.sh"

traces=${GL_FIDELITY_TRACES:-glmark2-es2-texture}
# "count max" of the pixels over 12/255 between two PNGs, or nothing.
over12() {
    "$tessera" compare images --json --tolerance 12 "$1" "$2" 2> /dev/null |
        python3 -c 'import json, sys
im = json.load(sys.stdin)["images"][0]
print(im["diff_pixels"], im["max_diff"])' 2> /dev/null
}
# replay TRACE DRIVER: every frame's snapshot into $work/TRACE-DRIVER;
# fails only when a reference frame is missing (the trace check's own
# PSNR / 1 LSB bound is not this test's).
replay() {
    local log=$work/$1-$2.log
    "$top/scripts/gl-trace-check" "$1" --driver "$2" --out "$work/$1-$2" --all-frames \
        --quiet --timeout "${GL_TRACE_TIMEOUT:-600}" > "$log" 2>&1 && return 0
    if grep -q 'missing snapshot\|no .* context\|timed out\|exited with' "$log"; then
        sed 's/^/   | /' "$log" | tail -n 5
        return 1
    fi
}
for t in $traces; do
    echo "== $t on $driver vs softpipe (reference: llvmpipe)"
    ok=1
    for d in "$driver" softpipe llvmpipe; do
        replay "$t" "$d" || ok=0
    done
    refs=$(gl_ref_frames "$workloads" "$t")
    # The frames to compare: "PNG-NAME LLVMPIPE-PNG", every frame when the
    # local llvmpipe is the reference's.
    frames=""
    same=1
    while read -r _ _ ref; do
        "$tessera" compare images "$ref" "$work/$t-llvmpipe/$(basename "$ref")" \
            > /dev/null 2>&1 || same=0
    done <<< "$refs"
    if [ "$same" = 1 ]; then
        for f in "$work/$t-llvmpipe"/[0-9]*.png; do frames="$frames$(basename "$f") $f"$'\n'; done
    else
        echo "   the local llvmpipe differs from the reference snapshots: reference frames only"
        while read -r _ _ ref; do frames="$frames$(basename "$ref") $ref"$'\n'; done <<< "$refs"
    fi
    n=0
    bad=0
    [ "$ok" = 1 ] && printf '   %-16s %10s %8s %10s %8s  %s\n' frame "$driver>12" max "softpipe>12" max verdict
    while [ "$ok" = 1 ] && read -r f ref; do
        [ -n "$f" ] || continue
        a=$(over12 "$ref" "$work/$t-$driver/$f")
        s=$(over12 "$ref" "$work/$t-softpipe/$f")
        if [ -z "$a" ] || [ -z "$s" ]; then
            echo "   $f: compare failed (driver '$a', softpipe '$s')"
            bad=$((bad + 1))
            continue
        fi
        read -r an am <<< "$a"
        read -r sn sm <<< "$s"
        n=$((n + 1))
        v=ok
        if [ "$an" -gt $((3 * sn)) ] || { [ "$am" -gt 12 ] && [ "$am" -gt $((3 * sm)) ]; }; then
            v="FAILED (> 3x softpipe)"
            bad=$((bad + 1))
        fi
        # Every failure, and the reference frames, are listed.
        if [ "$v" != ok ] || grep -q "/$f\$" <<< "$refs"; then
            printf '   call %-11s %10s %8s %10s %8s  %s\n' "$((10#${f%.png}))" "$an" "$am" "$sn" "$sm" "$v"
        fi
    done <<< "$frames"
    [ "$ok" = 1 ] && echo "   $n frames compared, $bad over the bound"
    if [ "$ok" = 1 ] && [ "$bad" = 0 ] && [ "$n" -gt 0 ]; then
        result ok "fidelity-$t"
    else
        result FAILED "fidelity-$t"
    fi
done
finish
