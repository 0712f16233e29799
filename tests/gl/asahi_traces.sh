#!/bin/bash
# SPDX-License-Identifier: MIT
# Milestones 2 and 3 of Mesa's asahi driver on the embedded GPU: the shared
# workloads' apitrace traces (GLES 2, legacy desktop GL, glmark2's GL 2.x
# scene, Chromium's GL 4.5 core WebGL compositing, Minetest's GL
# compatibility client with alpha-tested plants and a wide-line selection
# box) replayed by eglretrace on Mesa 25.0.7's asahi driver (tessera run
# --driver asahi: the shim's node, our kernel driver, the GPU model), every
# reference frame checked against llvmpipe by scripts/gl-trace-check
# (>= 99.9 % of pixels within 1 LSB, or PSNR >= 40 dB). One result per trace.
# Mesa's defaults, lossless compression included (the model stores
# compressed images' tiles uncompressed: HW_TEX_COMPRESSION in hw/tex/hw_tex.h).
unset ASAHI_MESA_DEBUG
export GL_TEST_DRIVER=asahi
export GL_TEST_TRACES=${GL_TEST_TRACES:-es2tri es2gears glmark2-es2-build glmark2-es2-texture glmark2-es2-shading glmark2-es2-effect2d glmark2-es2-bump glmark2-es2-pulsar glxgears glmark2-gl-build chromium-compose-glx minetest-seed7}
top=$(cd "$(dirname "$0")/../.." && pwd)
[ -e "$top/build/mesa-asahi/lib/libEGL.so.1" ] ||
    { echo "missing build/mesa-asahi: build the release variant first (make)"; exit 1; }
exec bash "$(dirname "$0")/traces.sh"
