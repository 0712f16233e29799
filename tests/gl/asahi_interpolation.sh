#!/bin/bash
# SPDX-License-Identifier: MIT
# interpolateAtOffset / interpolateAtSample on Mesa's asahi driver (issue
# 12; docs/rendering.md "Coefficient registers"): piglit programs run live
# under `tessera capture` (-fbo: surfaceless has no window) and must pass;
# `tessera replay --validate` of each capture must then reproduce every
# page the GPU wrote. Before the model fixes:
#   at-offset*          wrong from x = 32 on: ldcf returned planes with C at
#                       the window origin, Mesa evaluates them from the
#                       corner of the pixel's 32x32 bin
#   at-sample-*         every sample interpolated at sample 0: iter's sample
#                       index in a register was taken as the register's
#                       number, and sr14 (samples_log2) read 0
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/asahi_piglit_capture.sh"

# name|program and arguments
cases=(
    "at-offset|arb_gpu_shader5-interpolateAtOffset"
    "at-offset-nonconst|arb_gpu_shader5-interpolateAtOffset-nonconst"
    "at-sample-different|arb_gpu_shader5-interpolateAtSample-different"
    "at-sample-different-uniform|arb_gpu_shader5-interpolateAtSample-different uniform"
    "at-sample-position|arb_sample_shading-interpolate-at-sample-position 4"
)
asahi_piglit_capture interpolation "${cases[@]}"
finish
