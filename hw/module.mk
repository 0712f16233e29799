# SPDX-License-Identifier: MIT
# hw: the GPU model's device core -- device, memory system (UAT, MMU) and
# firmware. The units are libraries of their own in subdirectories: the
# USC interpreter hw/usc/ (hwusc), compute hw/cdm/ (hwcdm), rendering
# hw/render/ (hwrender), textures hw/tex/ (hwtex); the executors register
# with the device through hw_device_set_executor().

LIBS += hw
hw_SRCS := hw/hw_device.c \
           hw/hw_phys.c \
           hw/hw_uat.c \
           hw/hw_mmu.c \
           hw/hw_fw.c \
           hw/hw_fw_job.c \
           hw/hw_profile.c

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

FUZZERS += fuzz_hw_usc
fuzz_hw_usc_SRCS := tests/fuzz/fuzz_hw_usc.c
fuzz_hw_usc_LIBS := hwusc agxisa hw cmdstream

FUZZERS += fuzz_hw_fw
fuzz_hw_fw_SRCS := tests/fuzz/fuzz_hw_fw.c
fuzz_hw_fw_LIBS := hw cmdstream
