# SPDX-License-Identifier: MIT
# hwtex: texture unit and image writes of the GPU model (docs/texture.md).
LIBS += hwtex
hwtex_SRCS := hw/tex/hw_tex_layout.c hw/tex/hw_tex_format.c hw/tex/hw_tex_desc.c \
              hw/tex/hw_tex_sample.c hw/tex/hw_tex_write.c hw/tex/hw_tex_exec.c \
              hw/tex/hw_tex_tilefmt.c hw/tex/hw_tex_etc.c hw/tex/hw_tex_s3tc.c hw/tex/hw_tex_astc.c

# Unit tests run on a flat test double of hw_mmu (tests/unit/test_hw_tex_mem.c).
HWTEX_TEST_LIBS := hwtex hwusc agxisa cmdstream

TESTS += test_hw_tex_layout
test_hw_tex_layout_SRCS := tests/unit/test_hw_tex_layout.c
test_hw_tex_layout_LIBS := hwtex cmdstream
test_hw_tex_layout_LDLIBS := -lcmocka

TESTS += test_hw_tex_format
test_hw_tex_format_SRCS := tests/unit/test_hw_tex_format.c
test_hw_tex_format_LIBS := hwtex hwusc agxisa cmdstream
test_hw_tex_format_LDLIBS := -lcmocka

TESTS += test_hw_tex_sample
test_hw_tex_sample_SRCS := tests/unit/test_hw_tex_sample.c tests/unit/test_hw_tex_mem.c
test_hw_tex_sample_LIBS := $(HWTEX_TEST_LIBS)
test_hw_tex_sample_LDLIBS := -lcmocka

TESTS += test_hw_tex_exec
test_hw_tex_exec_SRCS := tests/unit/test_hw_tex_exec.c tests/unit/test_hw_tex_mem.c
test_hw_tex_exec_LIBS := $(HWTEX_TEST_LIBS)
test_hw_tex_exec_LDLIBS := -lcmocka

# Descriptors, coordinates and tiles from fuzz input (flat test memory).
FUZZERS += fuzz_hw_tex
fuzz_hw_tex_SRCS := tests/fuzz/fuzz_hw_tex.c tests/unit/test_hw_tex_mem.c
fuzz_hw_tex_LIBS := hwtex hwusc agxisa cmdstream   # hwtex converts to fp16 with hwusc's hw_usc_f32_to_f16

# ASTC LDR decoder against the reference decodes shipped with piglit.
TESTS += test_hw_tex_astc
test_hw_tex_astc_SRCS := tests/unit/test_hw_tex_astc.c
test_hw_tex_astc_LIBS := hwtex cmdstream
test_hw_tex_astc_LDLIBS := -lcmocka
