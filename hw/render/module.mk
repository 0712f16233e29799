# SPDX-License-Identifier: MIT
# hwrender: the rendering pipeline (vertex and fragment pipes) of the GPU
# model, registered as the firmware's Vertex/Fragment executors.
LIBS += hwrender
hwrender_SRCS := hw/render/hw_render.c hw/render/hw_render_vtx.c \
                 hw/render/hw_render_frag.c hw/render/hw_render_tex.c \
                 hw/render/hw_render_prof.c

TESTS += test_hw_render
test_hw_render_SRCS := tests/unit/test_hw_render.c tests/unit/test_hw_render_scene.c \
                       tests/unit/test_hw_util.c
test_hw_render_LIBS := hwrender hwtex hwcdm hw hwusc agxisa cmdstream
test_hw_render_LDLIBS := -lcmocka

PROGS += render_throughput
render_throughput_SRCS := bench/render_throughput.c tests/unit/test_hw_render_scene.c \
                          tests/unit/test_hw_util.c
render_throughput_LIBS := hwrender hwtex hwcdm hw hwusc agxisa cmdstream
render_throughput_LDLIBS := -lcmocka

# Random VDM/PPP/USC memory through the vertex and fragment executors.
FUZZERS += fuzz_hw_render
fuzz_hw_render_SRCS := tests/fuzz/fuzz_hw_render.c
fuzz_hw_render_LIBS := hwrender hwtex hw hwusc agxisa cmdstream

# Hidden-surface removal and the ISP/rasteriser features, each against a
# CPU oracle or an equivalent rendering.
TESTS += test_hw_render_features
test_hw_render_features_SRCS := tests/unit/test_hw_render_features.c \
                                tests/unit/test_hw_render_scene.c tests/unit/test_hw_util.c
test_hw_render_features_LIBS := hwrender hwtex hwcdm hw hwusc agxisa cmdstream
test_hw_render_features_LDLIBS := -lcmocka

# The rasteriser's whole-row triangle coverage against the per-point test.
TESTS += test_hw_render_cover
test_hw_render_cover_SRCS := tests/unit/test_hw_render_cover.c
test_hw_render_cover_LDLIBS := -lcmocka -lm
