#!/bin/bash
# SPDX-License-Identifier: MIT
# The acceptance traces: six apitrace traces of real GLES 2 programs and two
# desktop GL ones (glxgears: legacy GL; glmark2-gl-build: GL 2.x
# compatibility, both GLX traces replayed on an EGL context) replayed by
# eglretrace on the tessera driver (render-node path), each frame with a
# llvmpipe reference checked by scripts/gl-trace-check (>= 99.9 % of pixels
# within 1 LSB, or PSNR >= 40 dB). One result per trace. (minetest-seed7
# asks for a GL 3.0 context, which the driver does not offer.)
# GL_TEST_DRIVER / GL_TEST_TRACES run other drivers / traces
# (tests/gl/asahi_traces.sh: Mesa's asahi driver).
. "$(dirname "$0")/lib/common.sh"

traces=${GL_TEST_TRACES:-es2tri es2gears glmark2-es2-build glmark2-es2-texture glmark2-es2-shading glmark2-es2-effect2d glxgears glmark2-gl-build}
for t in $traces; do
    echo "== $t on $driver"
    if "$top/scripts/gl-trace-check" "$t" --driver "$driver" --out "$work/$t" \
           --timeout "${GL_TRACE_TIMEOUT:-600}"; then
        result ok "$t"
    else
        sed 's/^/   | /' "$work/$t/replay.log" 2>/dev/null | grep -v '| Wrote ' | tail -n 15
        result FAILED "$t"
    fi
done
finish
