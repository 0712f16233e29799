# SPDX-License-Identifier: MIT
# kernel: the asahi DRM driver for the GPU model (library asahi) and its
# OS layer. It needs the device core (hw) alone: the whole model behind
# it (device + executors + driver) is kernel/model/ (library asahimodel),
# the render-node shim kernel/shim/ (tessera-shim.so).

LIBS += asahi
asahi_SRCS := kernel/os/os.c \
              kernel/asahi_idr.c \
              kernel/asahi_drv.c \
              kernel/asahi_params.c \
              kernel/asahi_fw.c \
              kernel/asahi_gem.c \
              kernel/asahi_vm.c \
              kernel/asahi_sync.c \
              kernel/asahi_syncfile.c \
              kernel/asahi_queue.c \
              kernel/asahi_submit.c \
              kernel/asahi_fault.c

TESTS += test_kernel
test_kernel_SRCS := tests/unit/test_kernel.c
test_kernel_LIBS := asahi hw cmdstream
test_kernel_LDLIBS := -lcmocka

FUZZERS += fuzz_ioctl
fuzz_ioctl_SRCS := tests/fuzz/fuzz_ioctl.c
fuzz_ioctl_LIBS := asahi hw cmdstream

# uAPI tests through libdrm: against the shim (it re-executes itself with
# build/release/lib/tessera-shim.so preloaded) or a real Asahi node.
TESTS += test_kernel_uapi
test_kernel_uapi_SRCS := tests/uapi/asahi_uapi_test.c
test_kernel_uapi_LIBS := testuapi agxisa cmdstream
test_kernel_uapi_LDLIBS := -lcmocka -ldrm -ldl -lm
