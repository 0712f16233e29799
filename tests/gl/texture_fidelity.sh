#!/bin/bash
# SPDX-License-Identifier: MIT
# Rendering fidelity against two correct rasterizers: replays a shared
# trace (default glmark2-es2-texture: a textured cube, GL_NEAREST, 512x512
# RGB8) on the driver under test and on softpipe, and compares every
# llvmpipe reference frame with both (`tessera compare images --tolerance
# 12 --json`). A frame passes when the driver's count of pixels differing
# from llvmpipe by more than 12/255 is at most 3x softpipe's, and its
# largest difference at most 3x softpipe's: a correct rasterizer may
# disagree with llvmpipe where a texture coordinate sits on a texel
# boundary, but not much more often than softpipe does.
#
# The model's texture coordinates used to come from varying planes set up
# on vertex positions snapped to 1/256 pixel, ~0.003 texel off, and
# flipped nearest texels everywhere: 661/17/41/35/11 pixels over 12/255 on
# the five reference frames where softpipe has 111/2/1/1/1.
# GL_FIDELITY_TRACES picks other traces (each needs softpipe to replay it).
. "$(dirname "$0")/lib/common.sh"

traces=${GL_FIDELITY_TRACES:-glmark2-es2-texture}
# count max of the pixels over 12/255 between two PNGs, or nothing.
over12() {
    "$tessera" compare images --json --tolerance 12 "$1" "$2" 2> /dev/null |
        python3 -c 'import json, sys
im = json.load(sys.stdin)["images"][0]
print(im["diff_pixels"], im["max_diff"])' 2> /dev/null
}
for t in $traces; do
    echo "== $t on $driver vs softpipe (reference: llvmpipe)"
    ok=1
    for d in "$driver" softpipe; do
        if ! "$top/scripts/gl-trace-check" "$t" --driver "$d" --out "$work/$t-$d" --quiet \
                --timeout "${GL_TRACE_TIMEOUT:-600}" > "$work/$t-$d.log" 2>&1; then
            # The trace check's own bound (PSNR / 1 LSB) is not this test's:
            # only a missing frame matters here.
            grep -q 'missing snapshot\|no .* context' "$work/$t-$d.log" &&
                { sed 's/^/   | /' "$work/$t-$d.log" | tail -n 5; ok=0; }
        fi
    done
    if [ "$ok" = 1 ]; then
        printf '   %-16s %10s %8s %10s %8s  %s\n' frame "$driver>12" max "softpipe>12" max verdict
        while read -r _ call ref; do
            f=$(basename "$ref")
            a=$(over12 "$ref" "$work/$t-$driver/$f")
            s=$(over12 "$ref" "$work/$t-softpipe/$f")
            if [ -z "$a" ] || [ -z "$s" ]; then
                echo "   call $call: compare failed (driver '$a', softpipe '$s')"
                ok=0
                continue
            fi
            read -r an am <<< "$a"
            read -r sn sm <<< "$s"
            v=ok
            if [ "$an" -gt $((3 * sn)) ] || [ "$am" -gt $((3 * sm)) ]; then
                v="FAILED (> 3x softpipe)"
                ok=0
            fi
            printf '   call %-11s %10s %8s %10s %8s  %s\n' "$call" "$an" "$am" "$sn" "$sm" "$v"
        done <<< "$(gl_ref_frames "$workloads" "$t")"
    fi
    if [ "$ok" = 1 ]; then result ok "fidelity-$t"; else result FAILED "fidelity-$t"; fi
done
finish
