# SPDX-License-Identifier: MIT
# cmdstream: hardware formats (XML -> generated pack/unpack/print) and the
# VDM/CDM stream decoder. The ISA lives in cmdstream/isa/ (library agxisa).

CMDSTREAM_GENPY := cmdstream/agx_gen_pack.py
CMDSTREAM_GEN   := $(GEN)/cmdstream

LIBS += cmdstream
cmdstream_SRCS := cmdstream/agx_pack_support.c \
                  cmdstream/agx_decode.c \
                  cmdstream/agx_decode_mem.c \
                  cmdstream/agx_image_layout.c \
                  $(CMDSTREAM_GEN)/agx_pack.c \
                  $(CMDSTREAM_GEN)/agx_fw_pack.c

# One generator run writes the header, the source and the test vectors.
$(CMDSTREAM_GEN)/agx_pack.h $(CMDSTREAM_GEN)/agx_pack.c $(CMDSTREAM_GEN)/agx_pack_vectors.h &: \
		cmdstream/agx_cmdbuf.xml $(CMDSTREAM_GENPY)
	@mkdir -p $(@D)
	$(PYTHON) $(CMDSTREAM_GENPY) cmdstream/agx_cmdbuf.xml \
		--header $(CMDSTREAM_GEN)/agx_pack.h --source $(CMDSTREAM_GEN)/agx_pack.c \
		--vectors $(CMDSTREAM_GEN)/agx_pack_vectors.h --table agx_pack

$(CMDSTREAM_GEN)/agx_fw_pack.h $(CMDSTREAM_GEN)/agx_fw_pack.c $(CMDSTREAM_GEN)/agx_fw_pack_vectors.h &: \
		cmdstream/agx_fw.xml $(CMDSTREAM_GENPY)
	@mkdir -p $(@D)
	$(PYTHON) $(CMDSTREAM_GENPY) cmdstream/agx_fw.xml \
		--header $(CMDSTREAM_GEN)/agx_fw_pack.h --source $(CMDSTREAM_GEN)/agx_fw_pack.c \
		--vectors $(CMDSTREAM_GEN)/agx_fw_pack_vectors.h --table agx_fw_pack

# Generator self-test structures (not hardware; only the vector test uses them).
$(CMDSTREAM_GEN)/agx_selftest_pack.h $(CMDSTREAM_GEN)/agx_selftest_pack.c $(CMDSTREAM_GEN)/agx_selftest_pack_vectors.h &: \
		cmdstream/agx_selftest.xml $(CMDSTREAM_GENPY)
	@mkdir -p $(@D)
	$(PYTHON) $(CMDSTREAM_GENPY) cmdstream/agx_selftest.xml \
		--header $(CMDSTREAM_GEN)/agx_selftest_pack.h --source $(CMDSTREAM_GEN)/agx_selftest_pack.c \
		--vectors $(CMDSTREAM_GEN)/agx_selftest_pack_vectors.h --table agx_selftest_pack

GENERATED += $(CMDSTREAM_GEN)/agx_selftest_pack.h $(CMDSTREAM_GEN)/agx_selftest_pack.c \
             $(CMDSTREAM_GEN)/agx_selftest_pack_vectors.h
GENERATED += $(CMDSTREAM_GEN)/agx_pack.h $(CMDSTREAM_GEN)/agx_pack.c \
             $(CMDSTREAM_GEN)/agx_pack_vectors.h \
             $(CMDSTREAM_GEN)/agx_fw_pack.h $(CMDSTREAM_GEN)/agx_fw_pack.c \
             $(CMDSTREAM_GEN)/agx_fw_pack_vectors.h

# Every generated structure: golden bytes, round trip, overflow, unknown bits.
TESTS += test_pack_vectors
test_pack_vectors_SRCS := tests/unit/test_pack_vectors.c $(CMDSTREAM_GEN)/agx_selftest_pack.c
test_pack_vectors_LIBS := cmdstream
test_pack_vectors_LDLIBS := -lcmocka

# Hand-written pack/unpack/print cases with golden text.
TESTS += test_pack
test_pack_SRCS := tests/unit/test_pack.c
test_pack_LIBS := cmdstream
test_pack_LDLIBS := -lcmocka

# Twiddled image layouts against values worked out from docs/texture.md.
TESTS += test_agx_image_layout
test_agx_image_layout_SRCS := tests/unit/test_agx_image_layout.c
test_agx_image_layout_LIBS := cmdstream
test_agx_image_layout_LDLIBS := -lcmocka

# The stream decoder against golden text (tests/data/decode/).
TESTS += test_decode
test_decode_SRCS := tests/unit/test_decode.c
test_decode_LIBS := cmdstream agxisa
test_decode_LDLIBS := -lcmocka

FUZZERS += fuzz_stream_decode
fuzz_stream_decode_SRCS := tests/fuzz/fuzz_stream_decode.c
fuzz_stream_decode_LIBS := cmdstream agxisa
