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
#   GENERATED += files     (with their own rules; every object waits for them)
# name_LIBS lists our libraries in link order (dependents first);
# name_LDLIBS adds system libraries.

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
CFLAGS   := -std=c11 $(WARN) -g -pthread -fno-strict-aliasing
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

LIBS      :=
PROGS     :=
TESTS     :=
FUZZERS   :=
GENERATED :=

include $(sort $(wildcard */module.mk */*/module.mk))

objs = $(patsubst %.c,$(B)/obj/%.o,$(1))
libfiles = $(foreach l,$(1),$(B)/lib/lib$(l).a)

define lib_template
$(B)/lib/lib$(1).a: $$(call objs,$$($(1)_SRCS))
	@mkdir -p $$(@D)
	@rm -f $$@
	$$(AR) rcs $$@ $$^
ALL_OBJS += $$(call objs,$$($(1)_SRCS))
endef

# $(1) = name, $(2) = output dir, $(3) = extra link flags
define bin_template
$(2)/$(1): $$(call objs,$$($(1)_SRCS)) $$(call libfiles,$$($(1)_LIBS))
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS) $(3) -o $$@ $$(call objs,$$($(1)_SRCS)) $$(call libfiles,$$($(1)_LIBS)) $$($(1)_LDLIBS) $$(LDLIBS)
ALL_OBJS += $$(call objs,$$($(1)_SRCS))
endef

$(foreach l,$(LIBS),$(eval $(call lib_template,$(l))))
$(foreach p,$(PROGS),$(eval $(call bin_template,$(p),$(B)/bin,)))
$(foreach t,$(TESTS),$(eval $(call bin_template,$(t),$(B)/tests,)))
ifeq ($(VARIANT),fuzz)
$(foreach f,$(FUZZERS),$(eval $(call bin_template,$(f),$(B)/fuzz,-fsanitize=fuzzer)))
endif

$(B)/obj/%.o: %.c | $(GENERATED)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

-include $(ALL_OBJS:.o=.d)

LIB_FILES  := $(call libfiles,$(LIBS))
PROG_FILES := $(addprefix $(B)/bin/,$(PROGS))
TEST_FILES := $(addprefix $(B)/tests/,$(TESTS))
FUZZ_FILES := $(addprefix $(B)/fuzz/,$(FUZZERS))

.PHONY: all libs progs tests fuzzers check check-build demo clean deps generated
all: libs progs tests
libs: $(LIB_FILES)
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
