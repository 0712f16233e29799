# SPDX-License-Identifier: MIT
# The Mesa side, built by gallium/mesa/build-mesa into a cache outside the
# checkout and copied into the checkout:
#   build/mesa        Debian's Mesa 22.3.6 with the tessera Gallium driver
#                     (gallium/driver, gallium/compiler); the compiler test
#                     goes to build/mesa/tests
#   build/mesa-asahi  Debian's Mesa 25.0.7 with Mesa's own asahi driver,
#                     ported to the upstream uAPI (gallium/mesa/*.patch),
#                     softpipe and llvmpipe
# Only the release variant builds them; the drivers are exercised through
# the release binaries. TESSERA_NO_MESA=1 skips both (tessera's own
# components only).

ifeq ($(VARIANT),release)
ifneq ($(TESSERA_NO_MESA),1)
MESA_OUT := build/mesa
MESA_ASAHI_OUT := build/mesa-asahi

.PHONY: mesa mesa-asahi
# build-mesa is cheap when nothing changed (ninja no-op), so it always runs;
# the generated headers and ISA tables must exist first, and the model
# libraries gallium/tests/tessera_compiler_test links (ninja relinks it when
# they change).
# (Spelled out: module.mk files are read before the Makefile defines libfiles.)
MESA_MODEL_LIBS := $(B)/lib/libhwusc.a
mesa: $(GENERATED) $(MESA_MODEL_LIBS)
	@gallium/mesa/build-mesa . $(MESA_OUT) 22.3.6

# Serialized after the 22.3.6 tree: each build uses every core already.
mesa-asahi: | mesa
	@gallium/mesa/build-mesa . $(MESA_ASAHI_OUT) 25.0.7

all: mesa mesa-asahi
endif
endif
