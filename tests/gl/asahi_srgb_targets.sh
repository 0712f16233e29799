#!/bin/bash
# SPDX-License-Identifier: MIT
# sRGB render targets with GL_FRAMEBUFFER_SRGB on Mesa's asahi driver
# (issue 12; docs/texture.md, tilebuffer memory formats): piglit programs run live under
# `tessera capture` (-fbo: surfaceless has no window) and must pass;
# `tessera replay --validate` of each capture must then reproduce every
# page the GPU wrote. Before the model fix every one read back darkened
# values (0.5 as 0.2157): the end-of-tile program's image_write_block of an
# srgba8 tilebuffer through Mesa's linear PBE decoded the sRGB bytes
# instead of carrying them.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/asahi_piglit_capture.sh"

# name|program and arguments
cases=(
    "draw|framebuffer-srgb"
    "conformance|arb_framebuffer_srgb-srgb_conformance"
    "fast-clear-blend|arb_framebuffer_srgb-fast-clear-blend"
    "msaa-blit|arb_framebuffer_srgb-blit renderbuffer srgb msaa enabled clear"
    "downsample-blit|arb_framebuffer_srgb-blit renderbuffer srgb downsample enabled clear"
)
asahi_piglit_capture srgb-targets "${cases[@]}"
finish
