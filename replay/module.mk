# SPDX-License-Identifier: MIT
# replay: runs a trace again on the model or a render node (replay/replay.h,
# docs/replay.md). Render targets are written as PNG through libpng.

REPLAY_LDLIBS := $(shell pkg-config --libs libpng 2>/dev/null || echo -lpng)

LIBS += replay
replay_SRCS := replay/replay_engine.c replay/replay_state.c replay/replay_submit.c \
               replay/replay_validate.c replay/replay_override.c \
               replay/replay_backend.c replay/replay_image.c \
               replay/replay_png.c replay/replay_timing.c replay/replay_prof.c \
               replay/replay_profile.c replay/replay_profile_report.c \
               replay/replay_profile_html.c replay/replay_profile_measured.c \
               replay/replay_decompile.c

# `tessera decompile` writes the uAPI header beside the programs it makes:
# the header's text, as a C string.
$(GEN)/replay/replay_uapi_text.h: include/drm-uapi/asahi_drm.h
	@mkdir -p $(@D)
	$(PYTHON) -c 'import json, sys; t = open(sys.argv[1]).read(); open(sys.argv[2], "w").write("/* generated from %s */\nstatic const char replay_uapi_header_text[] =\n%s;\n" % (sys.argv[1], "\n".join(json.dumps(l) for l in t.splitlines(True))))' $< $@
GENERATED += $(GEN)/replay/replay_uapi_text.h
# Everything a replay links (the model: driver, executors).
REPLAY_LIBS := replay uapishaders trace uapi $(ASAHI_MODEL_LIBS)
# TRACE_LDLIBS comes from trace/module.mk (included later): recursive '='.
REPLAY_ALL_LDLIBS = $(REPLAY_LDLIBS) $(TRACE_LDLIBS)

# The tessera command gains `replay`.
tessera_LIBS += $(REPLAY_LIBS)
tessera_LDLIBS += $(REPLAY_LDLIBS)

TESTS += test_replay
test_replay_SRCS := tests/unit/test_replay.c
test_replay_LIBS := testuapi $(REPLAY_LIBS)
test_replay_LDLIBS = -lcmocka $(REPLAY_ALL_LDLIBS)

# Writes a trace of the test library's live program (tests/lib/rs_scene.c;
# for the integration test and the benchmark); also the "live program" the benchmark compares against.
PROGS += replay_mktrace
replay_mktrace_SRCS := bench/replay_mktrace.c
replay_mktrace_LIBS := testuapi $(REPLAY_LIBS)
replay_mktrace_LDLIBS = $(REPLAY_ALL_LDLIBS)

PROGS += replay_throughput
replay_throughput_SRCS := bench/replay_throughput.c
replay_throughput_LIBS := testuapi $(REPLAY_LIBS)
replay_throughput_LDLIBS = $(REPLAY_ALL_LDLIBS)
