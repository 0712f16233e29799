#!/bin/bash
# SPDX-License-Identifier: MIT
# Milestone 4 of Mesa's asahi driver on the embedded GPU: piglit.sh's gate
# (the GLES subsets of piglit's opengl and shader profiles, headless) on
# Mesa 25.0.7's asahi driver through the shim's node and the GPU model,
# against its own expectations file, tests/gl/piglit-expected-asahi.txt
# (every test not listed there must pass; each listed group says why it
# does not). Counts beside softpipe's on the same lists are in that file.
export GL_TEST_DRIVER=asahi
# oes_texture_view@rendering-formats renders every view format on the model
# and takes 110-130 s alone on 2 cores: 120 s made it
# a timeout whenever the machine was busy.
export PIGLIT_TEST_TIMEOUT=${PIGLIT_TEST_TIMEOUT:-360}
export PIGLIT_EXPECTED=${PIGLIT_EXPECTED:-$(cd "$(dirname "$0")" && pwd)/piglit-expected-asahi.txt}
exec bash "$(dirname "$0")/piglit.sh"
