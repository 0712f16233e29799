#!/bin/bash
# SPDX-License-Identifier: MIT
# Float, packed-float and mixed-format render targets and GL clamp with
# texel offsets on Mesa's asahi driver (issue 12, milestone 4;
# docs/rendering.md "Tilebuffer formats", docs/texture.md "Wrap modes"):
# piglit programs run live under `tessera capture` (-fbo: surfaceless has
# no window) and must pass; `tessera replay --validate` of each capture
# must then reproduce every page the GPU wrote. Before the model fixes:
#   rgba16f-clear     read back 0 (Mesa's end-of-tile program stores f16
#                     render targets with i16 image_write_block, which
#                     moves raw bits; the model converted the integers)
#   rg11b10f-blend    stopped with "tilebuffer format 12 is not modelled"
#   mixed-format-mrt  faulted writing through a PBE descriptor at 0 (the
#                     model read only the first of the end-of-tile
#                     program's per-target USC Texture words)
#   clamp-offset      read texels 'offset' away from the edge (GL clamp
#                     with nearest filtering clamped the coordinate before
#                     the texel offset)
unset ASAHI_MESA_DEBUG
. "$(dirname "$0")/lib/common.sh"
bin=/usr/lib/x86_64-linux-gnu/piglit/bin
[ -d "$bin" ] || { echo "missing piglit (scripts/install-deps)"; exit 1; }
unset DISPLAY WAYLAND_DISPLAY
export PIGLIT_PLATFORM=surfaceless_egl
gl_prefix asahi

# name|program and arguments
cases=(
    "rgba16f-clear|arb_color_buffer_float-clear GL_RGBA16F"
    "rg11b10f-blend|fbo-blending-formats GL_EXT_packed_float"
    "mixed-format-mrt|clearbuffer-mixed-format"
    "clamp-offset|texwrap GL_EXT_texture_integer offset"
)
for c in "${cases[@]}"; do
    name=${c%%|*} cmd=${c#*|}
    # shellcheck disable=SC2086 # cmd is a program and its arguments
    timeout -k 10 600 "$tessera" capture -q -o "$work/$name.tsr" -- \
        "${GL_PREFIX[@]}" $bin/$cmd -auto -fbo > "$work/$name.log" 2>&1
    if grep -q '"result": "pass"' "$work/$name.log" &&
       ! grep -qE 'GPU job error|GPU fault' "$work/$name.log"; then
        result ok "float-targets-$name"
    else
        grep -E 'GPU job error|GPU fault|result' "$work/$name.log" | head -n 3
        result FAILED "float-targets-$name" "piglit $cmd did not pass live on asahi"
        continue
    fi
    if "$tessera" replay "$work/$name.tsr" --validate > "$work/$name-validate.log" 2>&1 &&
       grep -q 'validation passed' "$work/$name-validate.log"; then
        result ok "float-targets-$name-replay"
    else
        tail -n 3 "$work/$name-validate.log"
        result FAILED "float-targets-$name-replay" "replay --validate of the capture failed"
    fi
done
finish
