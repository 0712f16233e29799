# SPDX-License-Identifier: MIT
# tessera top-level build. Plain GNU make.
#
#   make            build libraries, the tessera command and the tests (release)
#   make check      build release + ASan/UBSan + libFuzzer variants, run every test
#   make demo       the README's main job
#
# Components register themselves in their module.mk (see docs/build.md):
#   LIBS    += name        name_SRCS := ...             -> $(B)/lib/libname.a
#   PROGS   += name        name_SRCS, name_LIBS          -> $(B)/bin/name
#   TESTS   += name        name_SRCS, name_LIBS          -> $(B)/tests/name (cmocka)
#   FUZZERS += name        name_SRCS, name_LIBS          -> build/fuzz/fuzz/name
#   SHLIBS  += name        name_SRCS, name_LIBS          -> $(B)/lib/name.so (LD_PRELOAD objects)
#   GENERATED += files     (with their own rules; every object waits for them)
#   path/file.c_CFLAGS := flags   extra compiler flags for that one source
# name_LIBS lists our libraries (linked as a group, so their order does not
# matter);
# name_LDLIBS adds system libraries.
# A library may set lib_LINKPRE / lib_LINKPOST: link flags every program
# linking it gets before its objects / after the archives; and lib_RUNTIME:
# files such a program loads at run time (plugins), built along with it.

.DEFAULT_GOAL := all
.SUFFIXES:
.DELETE_ON_ERROR:

VARIANT ?= release
B       := build/$(VARIANT)
GEN     := build/gen
PYTHON  ?= python3

ifeq ($(VARIANT),fuzz)
CC      := clang
endif
ifeq ($(origin CC),default)
CC      := gcc
endif

WARN     := -Wall -Wextra -Werror
CPPFLAGS := -Iinclude $(shell pkg-config --cflags libdrm) -I. -I$(GEN) -D_GNU_SOURCE -DTESSERA_VERSION=\"0.1.0\" -MMD -MP
# -fPIC everywhere: the same objects go into static libraries and into
# LD_PRELOAD shared objects (the render-node shim, the capture layer).
CFLAGS   := -std=c11 $(WARN) -g -pthread -fno-strict-aliasing -fPIC
LDFLAGS  := -pthread
LDLIBS   := -lm

ifeq ($(VARIANT),release)
CFLAGS   += -O2
else ifeq ($(VARIANT),san)
SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
CFLAGS   += -O1 $(SAN)
LDFLAGS  += $(SAN)
else ifeq ($(VARIANT),fuzz)
SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
CFLAGS   += -O1 $(SAN) -fsanitize=fuzzer-no-link -DTESSERA_FUZZING=1
LDFLAGS  += $(SAN)
else
$(error unknown VARIANT '$(VARIANT)': use release, san or fuzz)
endif

# LLVM 15 (optional): the USC native path (hw/usc/hw_usc_native.c, through
# the LLVM-C ORC API). HAVE_LLVM=0 builds without it (interpreter only).
LLVM_CONFIG ?= llvm-config-15
ifeq ($(origin HAVE_LLVM),undefined)
HAVE_LLVM := $(shell d=$$($(LLVM_CONFIG) --includedir 2>/dev/null) && test -f "$$d/llvm-c/LLJIT.h" && echo 1 || echo 0)
endif
ifeq ($(HAVE_LLVM),1)
CPPFLAGS    += -isystem $(shell $(LLVM_CONFIG) --includedir) -DTESSERA_HAVE_LLVM=1
LLVM_LDLIBS := $(shell $(LLVM_CONFIG) --ldflags --libs)
endif

LIBS      :=
PROGS     :=
TESTS     :=
FUZZERS   :=
SHLIBS    :=
comma     := ,
GENERATED :=

include $(sort $(wildcard */module.mk */*/module.mk))

objs = $(patsubst %.c,$(B)/obj/%.o,$(1))
libfiles = $(foreach l,$(1),$(B)/lib/lib$(l).a)

# An archive also depends on its member list (a stamp rewritten only when
# the list changes): a source that moves to another library must leave the
# archive, or a stale copy of it would still be linked.
define lib_template
$$(shell mkdir -p $(B)/lib && (echo '$$($(1)_SRCS)' | cmp -s - $(B)/lib/lib$(1).srcs || echo '$$($(1)_SRCS)' > $(B)/lib/lib$(1).srcs))
$(B)/lib/lib$(1).a: $$(call objs,$$($(1)_SRCS)) $(B)/lib/lib$(1).srcs
	@mkdir -p $$(@D)
	@rm -f $$@
	$$(AR) rcs $$@ $$(filter %.o,$$^)
ALL_OBJS += $$(call objs,$$($(1)_SRCS))
endef

# $(1) = name, $(2) = output file, $(3) = extra link flags
define bin_template
$(2): $$(call objs,$$($(1)_SRCS)) $$(call libfiles,$$($(1)_LIBS)) | $$(foreach l,$$(sort $$($(1)_LIBS)),$$($$(l)_RUNTIME))
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS) $(3) -o $$@ $$(foreach l,$$(sort $$($(1)_LIBS)),$$($$(l)_LINKPRE)) $$(call objs,$$($(1)_SRCS)) -Wl,--start-group $$(call libfiles,$$($(1)_LIBS)) -Wl,--end-group $$($(1)_LDLIBS) $$(foreach l,$$(sort $$($(1)_LIBS)),$$($$(l)_LINKPOST)) $$(LDLIBS)
ALL_OBJS += $$(call objs,$$($(1)_SRCS))
endef

$(foreach l,$(LIBS),$(eval $(call lib_template,$(l))))
$(foreach p,$(PROGS),$(eval $(call bin_template,$(p),$(B)/bin/$(p),)))
$(foreach t,$(TESTS),$(eval $(call bin_template,$(t),$(B)/tests/$(t),)))
# The preloaded layers (shim, capture) each link their own copy of the static
# libraries: --exclude-libs keeps those copies' symbols out of the dynamic
# symbol table, or the first layer loaded would interpose its globals on the
# other's (and ASan reports the duplicate globals as an ODR violation).
$(foreach s,$(SHLIBS),$(eval $(call bin_template,$(s),$(B)/lib/$(s).so,-shared -Wl$(comma)--exclude-libs$(comma)ALL)))
ifeq ($(VARIANT),fuzz)
$(foreach f,$(FUZZERS),$(eval $(call bin_template,$(f),$(B)/fuzz/$(f),-fsanitize=fuzzer)))
endif

# Objects depend on the compiler command line, so changing flags rebuilds
# (the per-source flags too: they are part of the stamp).
FLAGS_STAMP := $(B)/.compile-flags
COMPILE_LINE := $(CC) $(CPPFLAGS) $(CFLAGS) $(foreach v,$(sort $(filter %.c_CFLAGS,$(.VARIABLES))),$(v)=$($(v)))
$(shell mkdir -p $(B) && (echo '$(COMPILE_LINE)' | cmp -s - $(FLAGS_STAMP) || echo '$(COMPILE_LINE)' > $(FLAGS_STAMP)))

$(B)/obj/%.o: %.c $(FLAGS_STAMP) | $(GENERATED)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $($<_CFLAGS) -c $< -o $@

-include $(ALL_OBJS:.o=.d)

LIB_FILES  := $(call libfiles,$(LIBS))
PROG_FILES := $(addprefix $(B)/bin/,$(PROGS))
TEST_FILES := $(addprefix $(B)/tests/,$(TESTS))
SHLIB_FILES := $(foreach s,$(SHLIBS),$(B)/lib/$(s).so)
FUZZ_FILES := $(addprefix $(B)/fuzz/,$(FUZZERS))

.PHONY: all libs progs tests fuzzers check check-build demo clean deps generated
all: libs progs tests
libs: $(LIB_FILES) $(SHLIB_FILES)
progs: $(PROG_FILES)
tests: $(TEST_FILES)
fuzzers: $(FUZZ_FILES)
generated: $(GENERATED)

deps:
	@scripts/install-deps

# The test run needs three builds: the release binaries the integration tests
# drive, the same unit tests under ASan+UBSan, and the libFuzzer targets.
check-build:
	$(MAKE) VARIANT=release all
	$(MAKE) VARIANT=san tests progs
	$(MAKE) VARIANT=fuzz fuzzers

check:
	@scripts/install-deps
	@$(MAKE) --no-print-directory check-build
	@scripts/run-tests

demo:
	@scripts/install-deps
	@$(MAKE) --no-print-directory VARIANT=release all
	@scripts/demo

clean:
	rm -rf build
