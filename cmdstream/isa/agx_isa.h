/* SPDX-License-Identifier: MIT */
/*
 * AGX (G13) instruction set: encoder, decoder, disassembler, assembler.
 *
 * The instruction set is declared once in agx_isa.xml and generated into
 * tables (build/gen/cmdstream/isa/agx_isa_gen.{h,c}); everything here is
 * table driven.  The text syntax is applegpu's disassembler syntax.
 *
 * Layers:
 *   bytes  --agx_isa_decode-->  struct agx_instr  --agx_isa_print-->  text
 *   text   --agx_isa_parse--->  struct agx_instr  --agx_isa_encode--> bytes
 *
 * struct agx_instr is the "fast internal form": decoded once per instruction,
 * it holds the opcode, every raw field value (by the XML field name) and the
 * printed operands in a uniform shape (kind, register file, element size,
 * count, hints).  The GPU model interprets it without looking at bits.
 *
 * Nothing here allocates, aborts or reads outside the buffers it is given.
 */
#ifndef AGX_ISA_H
#define AGX_ISA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cmdstream/isa/agx_isa_gen.h"

#define AGX_ISA_MAX_BYTES    12
#define AGX_ISA_MAX_FIELDS   48
#define AGX_ISA_MAX_OPERANDS 16

enum agx_operand_type {
   AGX_OPERAND_EMPTY,     /* printed as nothing (e.g. shift 0, no sample id) */
   AGX_OPERAND_NONE,      /* absent register; applegpu prints "None" */
   AGX_OPERAND_REG,       /* register or register tuple, see file/size/count */
   AGX_OPERAND_IMM,       /* integer immediate in .imm */
   AGX_OPERAND_FIMM,      /* 8-bit minifloat immediate: raw in .value, value in .fimm */
   AGX_OPERAND_OFFSET,    /* branch offset in bytes from the instruction, .imm;
                             printed as the target address when the
                             instruction's address is known (agx_isa_print_at) */
   AGX_OPERAND_TEXT,      /* enum name, truth table, "lsl N", "mask 0x..." in .text */
};

enum agx_reg_file {
   AGX_FILE_GPR,          /* r0..r127 (halves r0l/r0h) */
   AGX_FILE_UNIFORM,      /* u0..u255 (halves u0l/u0h) */
   AGX_FILE_SPECIAL,      /* sr0..sr255 */
   AGX_FILE_TEXTURE,      /* texture state ts0.. */
   AGX_FILE_SAMPLER,      /* sampler state ss0.. */
   AGX_FILE_CF,           /* coefficient registers cf0.. */
};

/* Operand hint / modifier flags. */
#define AGX_OPF_CACHE   (1u << 0)   /* keep in the register cache */
#define AGX_OPF_DISCARD (1u << 1)   /* last use: drop from cache without write back */
#define AGX_OPF_ABS     (1u << 2)   /* float |x| */
#define AGX_OPF_NEG     (1u << 3)   /* float -x */
#define AGX_OPF_SX      (1u << 4)   /* sign-extend integer source */

struct agx_operand {
   uint8_t type;          /* enum agx_operand_type */
   uint8_t file;          /* enum agx_reg_file (AGX_OPERAND_REG) */
   uint8_t size;          /* element size in bits: 16, 32 or 64 */
   uint8_t count;         /* registers in the tuple (1 for a scalar) */
   uint8_t flags;         /* AGX_OPF_* */
   uint16_t value;        /* first register, in units of `size` (r3h = 7 for
                             size 16, r3 = 3 for 32, r2_r3 = 2 for 64);
                             raw byte for AGX_OPERAND_FIMM */
   int64_t imm;           /* AGX_OPERAND_IMM / AGX_OPERAND_OFFSET */
   float fimm;            /* AGX_OPERAND_FIMM */
   char text[24];         /* AGX_OPERAND_TEXT */
};

struct agx_instr {
   enum agx_isa_opcode op;
   uint8_t length;        /* encoded size in bytes (2..12) */
   bool long_form;        /* the L bit was set (kept so re-encoding is exact) */
   uint8_t num_fields;
   uint8_t num_operands;
   uint32_t fields[AGX_ISA_MAX_FIELDS];            /* by the op's XML field order */
   struct agx_operand operands[AGX_ISA_MAX_OPERANDS];  /* in printed order */
   uint8_t remainder[AGX_ISA_MAX_BYTES];           /* bits no field/constant covers */
};

enum agx_isa_status {
   AGX_ISA_OK = 0,
   AGX_ISA_UNKNOWN,       /* no instruction matches these bits */
   AGX_ISA_TRUNCATED,     /* the instruction is longer than the buffer */
   AGX_ISA_RANGE,         /* a field value does not fit its bits */
};

/* Static description of an opcode (name, sizes, field names). */
const char *agx_isa_op_name(enum agx_isa_opcode op);
unsigned agx_isa_op_num_fields(enum agx_isa_opcode op);
const char *agx_isa_op_field_name(enum agx_isa_opcode op, unsigned i);
/* XML name of operand i ("D", "A", "mask"...), NULL past the end. */
const char *agx_isa_op_operand_name(enum agx_isa_opcode op, unsigned i);

/*
 * Decodes one instruction at code[0..size).  Fills *out and returns
 * AGX_ISA_OK, or an error (out->length is then the bytes to skip: 2).
 */
enum agx_isa_status agx_isa_decode(const uint8_t *code, size_t size,
                                   struct agx_instr *out);

/*
 * Encodes from op + fields (+ long_form, remainder) into out[12]; sets
 * *length.  The operands array is not read: it is derived from the fields.
 */
enum agx_isa_status agx_isa_encode(const struct agx_instr *in,
                                   uint8_t out[AGX_ISA_MAX_BYTES],
                                   unsigned *length);

/* Re-derives in->operands from in->fields (after changing fields by hand). */
void agx_isa_decode_operands(struct agx_instr *in);

/* Field access by XML name; returns false if the op has no such field. */
bool agx_instr_field(const struct agx_instr *in, const char *name, uint32_t *value);
bool agx_instr_set_field(struct agx_instr *in, const char *name, uint32_t value);

/* Printed mnemonic (alias or name + suffix); NUL-terminated into buf. */
void agx_isa_mnemonic(const struct agx_instr *in, char *buf, size_t size);

/* One instruction in applegpu syntax, no newline.  Returns chars written
 * (snprintf semantics).  The address is unknown, so branch targets print
 * relative to the instruction ("pc+N" / "pc-N"), as applegpu does without
 * a pc. */
int agx_isa_print(const struct agx_instr *in, char *buf, size_t size);

/* As agx_isa_print for the instruction at address `pc`: branch targets
 * print as applegpu's disassembler prints them, the absolute target
 * "0x%X" of pc + offset ("0x-%X" of its magnitude when that is negative,
 * as Python formats a negative number). */
int agx_isa_print_at(const struct agx_instr *in, uint64_t pc, char *buf, size_t size);

/* Branch target text for an instruction at `pc` with byte offset `off`
 * ("0x1F00", "0x-10"); NUL-terminated into buf (24 bytes suffice). */
void agx_isa_target_text(uint64_t pc, int64_t off, char *buf, size_t size);

/* Text of one operand ("" for AGX_OPERAND_EMPTY; branch offsets relative). */
void agx_isa_operand_text(const struct agx_operand *o, char *buf, size_t size);

/*
 * Parses one line of assembly (no labels; comments after ';' or "//" are
 * ignored) for an instruction at address `pc`.  A branch operand is either
 * relative ("pc+N", "pc-N") or an absolute target in applegpu's form
 * ("0x1F00", "0x-10"), turned into the offset target - pc.  Returns true
 * and fills *out, or false with a message and the 0-based column of the
 * offending text.  An empty line returns false with *err_col = -1 and
 * err[0] = 0.
 */
bool agx_isa_parse_at(const char *line, uint64_t pc, struct agx_instr *out,
                      char *err, size_t err_size, int *err_col);

/* agx_isa_parse_at with pc 0. */
bool agx_isa_parse(const char *line, struct agx_instr *out,
                   char *err, size_t err_size, int *err_col);

/*
 * Assembles a whole listing whose first byte is at address `base`.  Lines
 * may carry a "label:" prefix and branch operands may be "pc+label",
 * "pc-N" / "pc+N" or an absolute target ("0x1F00", as agx_disasm_print
 * prints them with the same base).  Writes up to out_cap bytes to out and
 * the total to *out_len.  On error returns false with a message
 * "line:col: text" in err.
 */
bool agx_isa_assemble_at(const char *text, size_t text_len, uint64_t base,
                         uint8_t *out, size_t out_cap, size_t *out_len,
                         char *err, size_t err_size);

/* agx_isa_assemble_at with base 0. */
bool agx_isa_assemble(const char *text, size_t text_len, uint8_t *out,
                      size_t out_cap, size_t *out_len, char *err,
                      size_t err_size);

/* 8-bit float immediates: sign, 3-bit exponent, 4-bit fraction. */
float agx_minifloat_decode(uint8_t raw);
/* Returns true and the encoding if f is exactly representable. */
bool agx_minifloat_encode(float f, uint8_t *raw);

struct agx_disasm_options {
   /* GPU address of code[0]; branch targets print as absolute addresses
    * from it (agx_isa_print_at), so re-assembling the text needs the same
    * base (agx_isa_assemble_at). */
   uint64_t pc;
   /* Stop after the first `stop` instruction (shaders end with one). */
   bool stop_at_end;
   /* Printed at the start of every line (may be NULL). */
   const char *indent;
   /* Print the instruction's address and raw bytes before its text. */
   bool show_bytes;
};

/*
 * Disassembles up to `size` bytes at `code`, one instruction per line, in
 * applegpu's syntax. Bytes that do not decode are printed as a `.word`/hex
 * line and skipped (2 bytes at a time); truncated instructions at the end of
 * the buffer are printed as hex. Never reads past code + size, never aborts.
 * Returns the number of bytes consumed (through the `stop` when
 * stop_at_end is set).
 */
size_t agx_disasm_print(FILE *fp, const uint8_t *code, size_t size,
                        const struct agx_disasm_options *opts);

#endif
