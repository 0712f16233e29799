# SPDX-License-Identifier: MIT
# GL test programs: GLES2 on a surfaceless EGL context (gl_present_x11: an
# X11 window), checked pixel by pixel. They link the system's libEGL and
# libGLESv2 (libglvnd) and run on our Mesa through `tessera run`, which puts
# build/mesa/lib first on the library path; tests/gl/programs.sh runs them.
# Release only, like the Mesa build they exercise (the sanitizer variant
# would check the test programs, not the driver).
ifeq ($(VARIANT),release)
GL_TEST_LDLIBS := -lEGL -lGLESv2
# gl_util.c: EGL setup, shader helpers, PASS/FAIL verdicts (tests/gl/gl_util.h).
GL_UTIL := tests/gl/gl_util.c

PROGS += gl_basic gl_resources gl_glsl_e2e gl_present_x11 gl_desktop gl_fork gl_offscreen gl_crash
gl_basic_SRCS := tests/gl/gl_basic.c $(GL_UTIL)
gl_basic_LDLIBS := $(GL_TEST_LDLIBS) -ldl
gl_resources_SRCS := tests/gl/gl_resources.c $(GL_UTIL)
gl_resources_LDLIBS := $(GL_TEST_LDLIBS)
gl_glsl_e2e_SRCS := tests/gl/gl_glsl_e2e.c $(GL_UTIL)
gl_glsl_e2e_LDLIBS := $(GL_TEST_LDLIBS)
# gl_fork: GL and the render node across fork() and fork+exec.
gl_fork_SRCS := tests/gl/gl_fork.c $(GL_UTIL)
gl_fork_LDLIBS := $(GL_TEST_LDLIBS) -ldrm -ldl
# gl_offscreen: FBO frames ended by glFinish, no swap (tests/gl/frame_on.sh).
gl_offscreen_SRCS := tests/gl/gl_offscreen.c tests/gl/test_png.c $(GL_UTIL)
gl_offscreen_LDLIBS := $(GL_TEST_LDLIBS) -lpng
# gl_desktop: desktop GL (compatibility) through EGL_OPENGL_API; libGL
# resolves to our Mesa's under `tessera run`.
gl_desktop_SRCS := tests/gl/gl_desktop.c $(GL_UTIL)
gl_desktop_LDLIBS := -lEGL -lGL
# gl_crash: a few frames, then SIGSEGV / abort() / SIGKILL (capture_crash.sh).
gl_crash_SRCS := tests/gl/gl_crash.c $(GL_UTIL)
gl_crash_LDLIBS := $(GL_TEST_LDLIBS)
gl_present_x11_SRCS := tests/gl/gl_present_x11.c $(GL_UTIL)
gl_present_x11_LDLIBS := $(GL_TEST_LDLIBS) -lX11
# vk_clear: headless Vulkan (render pass clear, vkCmdClearAttachments,
# copy, fill) on Mesa's asahi Vulkan driver (tests/gl/asahi_vulkan.sh); it
# links the system's Vulkan loader, which `tessera run --driver asahi`
# points at our driver.
PROGS += vk_clear
vk_clear_SRCS := tests/gl/vk_clear.c tests/gl/test_png.c
vk_clear_LDLIBS := -lvulkan -lpng
endif
