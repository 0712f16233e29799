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
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/asahi_piglit_capture.sh"

# name|program and arguments
cases=(
    "rgba16f-clear|arb_color_buffer_float-clear GL_RGBA16F"
    "rg11b10f-blend|fbo-blending-formats GL_EXT_packed_float"
    "mixed-format-mrt|clearbuffer-mixed-format"
    "clamp-offset|texwrap GL_EXT_texture_integer offset"
)
asahi_piglit_capture float-targets "${cases[@]}"
finish
