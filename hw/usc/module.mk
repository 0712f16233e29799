# SPDX-License-Identifier: MIT
# USC (shader core) interpreter of the GPU model.
LIBS += hwusc
hwusc_SRCS := hw/usc/hw_usc_compile.c hw/usc/hw_usc_exec.c hw/usc/hw_usc_mem.c \
              hw/usc/hw_usc_float.c hw/usc/hw_usc_run.c \
              hw/usc/hw_usc_sr.c
# The native path: its object is reached through weak references, so the
# programs of this tree pull it in explicitly (Mesa's compiler test, which
# links libhwusc.a without LLVM, does not).
ifeq ($(HAVE_LLVM),1)
hwusc_SRCS += hw/usc/hw_usc_native.c
hwusc_LINKPRE := -Wl,-u,usc_native_get
hwusc_LINKPOST := $(LLVM_LDLIBS)
endif

TESTS += test_hw_usc
test_hw_usc_SRCS := tests/unit/test_hw_usc.c tests/unit/test_hw_usc_mmu.c
test_hw_usc_LIBS := hwusc agxisa
test_hw_usc_LDLIBS := -lcmocka

# The native path against the interpreter, op by op (only with LLVM).
ifeq ($(HAVE_LLVM),1)
TESTS += test_hw_usc_native
test_hw_usc_native_SRCS := tests/unit/test_hw_usc_native.c tests/unit/test_hw_usc_mmu.c
test_hw_usc_native_LIBS := hwusc agxisa
test_hw_usc_native_LDLIBS := -lcmocka
endif
