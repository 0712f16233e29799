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
