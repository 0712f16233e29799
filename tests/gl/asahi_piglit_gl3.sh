#!/bin/bash
# SPDX-License-Identifier: MIT
# Milestone 4 of Mesa's asahi driver, desktop GL: piglit.sh's gate on the
# desktop GL 3.0-3.3 sample of piglit's opengl and shader profiles
# (tests/gl/piglit_gl3_{opengl,shader}.txt, made by tests/gl/piglit_gl3_list.py,
# which states the selection rule), headless (surfaceless EGL; piglit passes
# -fbo to every test of the lists, all concurrent or shader_runner tests),
# on Mesa 25.0.7's asahi driver through the shim's node and the GPU model.
# The renderer check asks wflinfo for a desktop GL context. Expectations:
# tests/gl/piglit-expected-asahi-gl3.txt (every test not listed there must
# pass; each listed group says why not; softpipe's and llvmpipe's counts on
# the same lists are in its header). Results: piglit-gl3-opengl, piglit-gl3-shader.
export GL_TEST_DRIVER=${GL_TEST_DRIVER:-asahi}
export PIGLIT_LISTS=$(cd "$(dirname "$0")" && pwd)
export PIGLIT_LIST_PREFIX=piglit_gl3_
export PIGLIT_WFL_API=gl
export PIGLIT_GATE=piglit-gl3
export PIGLIT_PROFILES=${PIGLIT_PROFILES:-opengl shader}
export PIGLIT_TEST_TIMEOUT=${PIGLIT_TEST_TIMEOUT:-300}
export PIGLIT_EXPECTED=${PIGLIT_EXPECTED:-$PIGLIT_LISTS/piglit-expected-asahi-gl3.txt}
exec bash "$(dirname "$0")/piglit.sh"
