#!/bin/bash
# SPDX-License-Identifier: MIT
# Desktop GL 2.1 piglit gate: piglit.sh's machinery on a fixed, committed
# sample of Debian piglit's opengl and shader profiles restricted to desktop
# GL <= 2.1 / GLSL <= 1.20 (tests/gl/piglit-desktop/piglit_desktop_*.txt,
# made by tests/gl/piglit_desktop_list.py: deterministic, regenerate only
# when piglit changes), headless on surfaceless EGL with piglit's -fbo mode
# (which needs GL_ARB_framebuffer_object). Every test not listed in
# tests/gl/piglit-desktop-expected.txt must pass; each listed group says why
# it does not. The renderer is checked with a desktop GL context.
here=$(cd "$(dirname "$0")" && pwd)
export PIGLIT_LISTS=${PIGLIT_LISTS:-$here/piglit-desktop}
export PIGLIT_LIST_PREFIX=piglit_desktop_
export PIGLIT_WFL_API=gl
export PIGLIT_GATE=piglit-desktop
export PIGLIT_EXPECTED=${PIGLIT_EXPECTED:-$here/piglit-desktop-expected.txt}
exec bash "$here/piglit.sh"
