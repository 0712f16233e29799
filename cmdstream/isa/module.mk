# SPDX-License-Identifier: MIT
# AGX G13 instruction set library: tables generated from agx_isa.xml.
ISA_GEN := $(GEN)/cmdstream/isa
GENERATED += $(ISA_GEN)/agx_isa_gen.h $(ISA_GEN)/agx_isa_gen.c

$(ISA_GEN)/agx_isa_gen.h $(ISA_GEN)/agx_isa_gen.c &: cmdstream/isa/agx_isa.xml cmdstream/isa/agx_isa_gen.py
	@mkdir -p $(@D)
	$(PYTHON) cmdstream/isa/agx_isa_gen.py cmdstream/isa/agx_isa.xml $(ISA_GEN)/agx_isa_gen.h $(ISA_GEN)/agx_isa_gen.c

LIBS += agxisa
agxisa_SRCS := cmdstream/isa/agx_isa_decode.c cmdstream/isa/agx_isa_operand.c \
               cmdstream/isa/agx_isa_print.c cmdstream/isa/agx_isa_asm.c \
               $(ISA_GEN)/agx_isa_gen.c

TESTS += test_isa
test_isa_SRCS := tests/unit/test_isa.c
test_isa_LIBS := agxisa
test_isa_LDLIBS := -lcmocka

FUZZERS += fuzz_isa_decode fuzz_isa_asm
fuzz_isa_decode_SRCS := tests/fuzz/fuzz_isa_decode.c
fuzz_isa_decode_LIBS := agxisa
fuzz_isa_asm_SRCS := tests/fuzz/fuzz_isa_asm.c
fuzz_isa_asm_LIBS := agxisa

# Every opcode against applegpu's disassembler on a committed corpus of
# random encodings (tests/data/isa/gen_applegpu_corpus.py).
TESTS += test_isa_corpus
test_isa_corpus_SRCS := tests/unit/test_isa_corpus.c
test_isa_corpus_LIBS := agxisa
test_isa_corpus_LDLIBS := -lcmocka
