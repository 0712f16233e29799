# SPDX-License-Identifier: MIT
# USC (shader core) interpreter of the GPU model.
LIBS += hwusc
hwusc_SRCS := hw/usc/hw_usc_compile.c hw/usc/hw_usc_exec.c hw/usc/hw_usc_mem.c \
              hw/usc/hw_usc_float.c hw/usc/hw_usc_run.c

TESTS += test_hw_usc
test_hw_usc_SRCS := tests/unit/test_hw_usc.c tests/unit/test_hw_usc_mmu.c
test_hw_usc_LIBS := hwusc agxisa
test_hw_usc_LDLIBS := -lcmocka
