# SPDX-License-Identifier: MIT
# capture: the LD_PRELOAD capture layer (tessera-capture.so) and its
# library capture: the public launcher (capture.h: run a program under the
# layer) and the layer's process-independent helpers (cap_options.h,
# cap_cmdbuf.h), unit tested. docs/capture.md.

LIBS += capture
capture_SRCS := capture/cap_options.c capture/cap_cmdbuf.c capture/cap_launch.c capture/cap_uffd.c

SHLIBS += tessera-capture
tessera-capture_SRCS := capture/cap_layer.c capture/cap_state.c capture/cap_reaper.c \
                        capture/cap_wp.c capture/cap_crash.c
# Shader indexing walks the streams (cmdstream) and decodes code (agxisa).
tessera-capture_LIBS := capture uapishaders trace uapi cmdstream agxisa
tessera-capture_LDLIBS := -ldl -lzstd -lxxhash

TESTS += test_capture
test_capture_SRCS := tests/unit/test_capture.c
test_capture_LIBS := capture uapi
test_capture_LDLIBS := -lcmocka

# Test programs run under capture (tests/integration/capture_*.sh, bench).
CAPTURE_PROG_LIBS := testuapi agxisa cmdstream
PROGS += capture_scene capture_mt capture_fork capture_wprace capture_badptr
capture_scene_SRCS := tests/capture/capture_scene.c
capture_scene_LIBS := $(CAPTURE_PROG_LIBS)
capture_scene_LDLIBS := -ldrm
capture_mt_SRCS := tests/capture/capture_mt.c
capture_mt_LIBS := $(CAPTURE_PROG_LIBS)
capture_mt_LDLIBS := -ldrm
capture_fork_SRCS := tests/capture/capture_fork.c
capture_fork_LIBS := $(CAPTURE_PROG_LIBS)
capture_fork_LDLIBS := -ldrm
capture_wprace_SRCS := tests/capture/capture_wprace.c
capture_wprace_LIBS := $(CAPTURE_PROG_LIBS)
capture_wprace_LDLIBS := -ldrm -lpthread
capture_badptr_SRCS := tests/capture/capture_badptr.c
capture_badptr_LIBS := $(CAPTURE_PROG_LIBS)
capture_badptr_LDLIBS := -ldrm

PROGS += capture_overhead
capture_overhead_SRCS := bench/capture_overhead.c

# `tessera capture` starts programs with the capture library (capture.h).
tessera_LIBS += capture

TESTS += test_capture_launch
test_capture_launch_SRCS := tests/unit/test_capture_launch.c
test_capture_launch_LIBS := capture
test_capture_launch_LDLIBS := -lcmocka -ldl
