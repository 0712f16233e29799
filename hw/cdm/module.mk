# SPDX-License-Identifier: MIT
# hwcdm: compute -- the CDM executor and the host worker pool of the GPU
# model (docs/compute.md). A library of its own so that libhw, the device
# core, does not depend on the interpreter.
LIBS += hwcdm
hwcdm_SRCS := hw/cdm/cdm.c hw/cdm/cdm_stream.c hw/cdm/cdm_launch.c hw/cdm/cdm_imageblock.c hw/cdm/cdm_prof.c \
              hw/cdm/hw_dispatch.c
HWCDM_LIBS := hwcdm hwtex hwusc agxisa hw cmdstream

TESTS += test_hw_compute
test_hw_compute_SRCS := tests/unit/test_hw_compute.c tests/unit/test_hw_compute_util.c \
                        tests/unit/test_hw_util.c
test_hw_compute_LIBS := $(HWCDM_LIBS)
test_hw_compute_LDLIBS := -lcmocka

TESTS += test_hw_compute_tex
test_hw_compute_tex_SRCS := tests/unit/test_hw_compute_tex.c tests/unit/test_hw_compute_util.c \
                            tests/unit/test_hw_util.c
test_hw_compute_tex_LIBS := $(HWCDM_LIBS)
test_hw_compute_tex_LDLIBS := -lcmocka

TESTS += test_hw_cdm
test_hw_cdm_SRCS := tests/unit/test_hw_cdm.c tests/unit/test_hw_compute_util.c \
                    tests/unit/test_hw_util.c
test_hw_cdm_LIBS := $(HWCDM_LIBS)
test_hw_cdm_LDLIBS := -lcmocka
