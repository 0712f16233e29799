/* SPDX-License-Identifier: MIT */
/*
 * Internal: the shapes of the tables agx_isa_gen.py generates from
 * agx_isa.xml.  Only the ISA library includes this.
 */
#ifndef AGX_ISA_TABLES_H
#define AGX_ISA_TABLES_H

#include <stdint.h>

#include "cmdstream/isa/agx_isa.h"

struct agx_isa_enum_value {
   uint32_t value;
   const char *name;
   uint8_t form;                  /* enum agx_isa_form: operand form it selects */
};

struct agx_isa_enum {
   const char *name;
   const struct agx_isa_enum_value *values;
   unsigned num_values;
};

/* A field: up to 4 bit ranges, the first holding the least significant bits. */
struct agx_isa_field_desc {
   const char *name;
   uint8_t num_parts;
   uint8_t start[4];
   uint8_t size[4];
};

enum agx_isa_role { AGX_ROLE_VALUE, AGX_ROLE_TYPE, AGX_ROLE_MOD, AGX_ROLE_SX, AGX_ROLE_DEP, AGX_ROLE_DEP2, AGX_ROLE_COUNT };

struct agx_isa_operand_desc {
   uint8_t kind;                  /* enum agx_isa_kind */
   const char *name;
   int8_t role[AGX_ROLE_COUNT];       /* field index per role, -1 if unused */
   uint8_t max_size;              /* widest register the hardware reads/writes */
   uint8_t asm_max_size;          /* widest register the assembler picks this form for */
   uint8_t is_float;
   uint8_t param;                 /* kind-specific (see agx_isa_operand.c) */
   int8_t enum_id;
};

struct agx_isa_alias_desc {
   const char *name;
   uint8_t num_conds;
   uint8_t cond_field[8];
   uint32_t cond_value[8];
   uint32_t hide;                 /* bitmask of operands not printed */
};

struct agx_isa_op_desc {
   const char *name;
   uint8_t short_size, long_size, lbit;
   uint8_t mask[AGX_ISA_MAX_BYTES];
   uint8_t bits[AGX_ISA_MAX_BYTES];
   uint8_t field_bits[AGX_ISA_MAX_BYTES];
   const struct agx_isa_field_desc *fields;
   unsigned num_fields;
   const struct agx_isa_operand_desc *operands;
   unsigned num_operands;
   const struct agx_isa_alias_desc *aliases;
   unsigned num_aliases;
   int suffix_field;
   const char *suffix;
};

extern const struct agx_isa_op_desc agx_isa_ops[AGX_NUM_OPCODES];
extern const struct agx_isa_enum agx_isa_enums[];

/* agx_isa_operand.c */
void agx_isa_operand_decode(const struct agx_isa_op_desc *desc,
                            const struct agx_isa_operand_desc *od,
                            const uint32_t *fields, struct agx_operand *out);
/* Parses text for operand od into fields; returns false with a message.
 * Checks against fields of later operands only when `final`.  `pc` is the
 * instruction's address, for absolute branch targets. */
bool agx_isa_operand_parse(const struct agx_isa_op_desc *desc,
                           const struct agx_isa_operand_desc *od,
                           const char *text, uint32_t *fields, bool final,
                           uint64_t pc, char *err, size_t err_size);

/* agx_isa_decode.c */
uint32_t agx_isa_field_width(const struct agx_isa_field_desc *f);
/* Index of the alias that applies to these fields, or -1. */
int agx_isa_alias_for(const struct agx_isa_op_desc *desc, const uint32_t *fields);

#endif
