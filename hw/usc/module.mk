# SPDX-License-Identifier: MIT
# USC (shader core) interpreter of the GPU model.
LIBS += hwusc
hwusc_SRCS := hw/usc/hw_usc_compile.c hw/usc/hw_usc_exec.c hw/usc/hw_usc_mem.c \
              hw/usc/hw_usc_float.c hw/usc/hw_usc_run.c \
              hw/usc/hw_usc_sr.c
# The native path (docs/usc.md "Native path"): hw_usc_native.c links LLVM,
# whose loading costs every process ~22 ms of CPU, so it is a plugin,
# lib/tessera-usc-native.so, that the loader (hw_usc_native_load.c, in
# libhwusc) dlopens when a shader first asks for native code.  The loader's
# object is reached through weak references, so the programs of this tree
# pull it in explicitly (Mesa's compiler test, which links libhwusc.a
# without it, does not), and get the plugin built with them
# (hwusc_RUNTIME: the san variant's tests find their own).  The plugin has
# its own copies of the two host functions it calls (hw_usc_float.c,
# hw_usc_sr.c) and exports only its ops table (native.map).
ifeq ($(HAVE_LLVM),1)
hwusc_SRCS += hw/usc/hw_usc_native_load.c
hwusc_LINKPRE := -Wl,-u,usc_native_get
hwusc_RUNTIME := $(B)/lib/tessera-usc-native.so
SHLIBS += tessera-usc-native
tessera-usc-native_SRCS := hw/usc/hw_usc_native.c hw/usc/hw_usc_native_ops.c \
                           hw/usc/hw_usc_float.c hw/usc/hw_usc_sr.c
tessera-usc-native_LDLIBS := -Wl,--version-script=hw/usc/native.map $(LLVM_LDLIBS)
# -z defs: whatever it calls of ours must be linked into it (an undefined
# symbol would bind to the host's copy, or fail the dlopen); not under
# clang's sanitizers (fuzz), whose shared objects leave the runtime to the
# program.
ifneq ($(VARIANT),fuzz)
tessera-usc-native_LDLIBS += -Wl,-z,defs
endif
$(B)/lib/tessera-usc-native.so: hw/usc/native.map
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
