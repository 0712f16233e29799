# SPDX-License-Identifier: MIT
# hw: the GPU model's device, memory system (UAT, MMU) and firmware.
# The USC interpreter is hw/usc/ (library hwusc); compute executors are
# hw/cdm*.c (registered through hw_device_set_executor()).

LIBS += hw
hw_SRCS := hw/hw_device.c \
           hw/hw_phys.c \
           hw/hw_uat.c \
           hw/hw_mmu.c \
           hw/hw_fw.c \
           hw/hw_fw_job.c

TESTS += test_hw_device
test_hw_device_SRCS := tests/unit/test_hw_device.c
test_hw_device_LIBS := hw cmdstream
test_hw_device_LDLIBS := -lcmocka

TESTS += test_hw_uat
test_hw_uat_SRCS := tests/unit/test_hw_uat.c tests/unit/test_hw_util.c
test_hw_uat_LIBS := hw cmdstream
test_hw_uat_LDLIBS := -lcmocka

TESTS += test_hw_fw
test_hw_fw_SRCS := tests/unit/test_hw_fw.c tests/unit/test_hw_util.c
test_hw_fw_LIBS := hw cmdstream
test_hw_fw_LDLIBS := -lcmocka

# Compute: the CDM executor and the host worker pool (docs/compute.md).
# A library of its own so that libhw does not depend on the interpreter.
LIBS += hwcdm
hwcdm_SRCS := hw/cdm.c hw/cdm_stream.c hw/cdm_launch.c hw/cdm_imageblock.c hw/hw_dispatch.c
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

FUZZERS += fuzz_hw_usc
fuzz_hw_usc_SRCS := tests/fuzz/fuzz_hw_usc.c
fuzz_hw_usc_LIBS := hwusc agxisa hw cmdstream

FUZZERS += fuzz_hw_fw
fuzz_hw_fw_SRCS := tests/fuzz/fuzz_hw_fw.c
fuzz_hw_fw_LIBS := hw cmdstream
