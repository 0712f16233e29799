# SPDX-License-Identifier: MIT
# The Mesa side: Debian's Mesa 22.3.6 with the tessera Gallium driver
# (gallium/driver, gallium/compiler), built by gallium/mesa/build-mesa into a
# cache outside the checkout and copied to build/mesa/lib (the compiler test
# to build/mesa/tests). Only the release variant builds it; the driver is
# exercised through the release binaries.
# TESSERA_NO_MESA=1 skips it (tessera's own components only).

ifeq ($(VARIANT),release)
ifneq ($(TESSERA_NO_MESA),1)
MESA_OUT := build/mesa

.PHONY: mesa
# build-mesa is cheap when nothing changed (ninja no-op), so it always runs;
# the generated headers and ISA tables must exist first, and the model
# libraries gallium/tests/tessera_compiler_test links (ninja relinks it when
# they change).
# (Spelled out: module.mk files are read before the Makefile defines libfiles.)
MESA_MODEL_LIBS := $(B)/lib/libhwusc.a
mesa: $(GENERATED) $(MESA_MODEL_LIBS)
	@gallium/mesa/build-mesa . $(MESA_OUT)

all: mesa
endif
endif
