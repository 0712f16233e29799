# SPDX-License-Identifier: MIT
# kernel: the asahi DRM driver for the GPU model (library asahi) and its
# OS layer. The render-node shim is kernel/shim/ (tessera-shim.so).

LIBS += asahi
asahi_SRCS := kernel/os/os.c \
              kernel/asahi_idr.c \
              kernel/asahi_drv.c \
              kernel/asahi_params.c \
              kernel/asahi_fw.c \
              kernel/asahi_gem.c \
              kernel/asahi_vm.c \
              kernel/asahi_sync.c \
              kernel/asahi_queue.c \
              kernel/asahi_submit.c \
              kernel/asahi_fault.c \
              kernel/asahi_model.c

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
test_kernel_uapi_LIBS := agxisa cmdstream
test_kernel_uapi_LDLIBS := -lcmocka -ldrm -ldl -lm

# The whole model behind the driver (asahi_model): order, threads, teardown.
TESTS += test_kernel_model
test_kernel_model_SRCS := tests/unit/test_kernel_model.c
test_kernel_model_LIBS := asahi hwrender hwtex hwcdm hwusc agxisa hw cmdstream
test_kernel_model_LDLIBS := -lcmocka -lm
