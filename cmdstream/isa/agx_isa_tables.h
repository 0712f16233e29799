/* SPDX-License-Identifier: MIT */
/*
 * Internal: the shapes of the tables agx_isa_gen.py generates from
 * agx_isa.xml.  Only the ISA library includes this.
 *
 * The tables hold no pointers: names are inline char arrays (sizes from the
 * generator) and each instruction's fields, operands and aliases are a run
 * of a flat array named by its first index.  Pointers would each need a
 * relocation at load time in a PIE or shared object, dirtying the pages of
 * the tables in every process that loads the library (~2000 relocations,
 * ~14 pages: 160 us per process start on the reference VM).
 */
#ifndef AGX_ISA_TABLES_H
#define AGX_ISA_TABLES_H

#include <stdint.h>

#include "cmdstream/isa/agx_isa.h"

struct agx_isa_enum_value {
   uint32_t value;
   char name[AGX_ISA_VALUE_NAME_SIZE];
   uint8_t form;                  /* enum agx_isa_form: operand form it selects */
};

struct agx_isa_enum {
   char name[AGX_ISA_ENUM_NAME_SIZE];
   uint16_t values_at;            /* index in agx_isa_enum_values */
   uint16_t num_values;
};

/* A field: up to 4 bit ranges, the first holding the least significant bits. */
struct agx_isa_field_desc {
   char name[AGX_ISA_FIELD_NAME_SIZE];
   uint8_t num_parts;
   uint8_t start[4];
   uint8_t size[4];
};

enum agx_isa_role { AGX_ROLE_VALUE, AGX_ROLE_TYPE, AGX_ROLE_MOD, AGX_ROLE_SX, AGX_ROLE_DEP, AGX_ROLE_DEP2, AGX_ROLE_COUNT };

struct agx_isa_operand_desc {
   uint8_t kind;                  /* enum agx_isa_kind */
   char name[AGX_ISA_OPERAND_NAME_SIZE];
   int8_t role[AGX_ROLE_COUNT];       /* field index per role, -1 if unused */
   uint8_t max_size;              /* widest register the hardware reads/writes */
   uint8_t asm_max_size;          /* widest register the assembler picks this form for */
   uint8_t is_float;
   uint8_t param;                 /* kind-specific (see agx_isa_operand.c) */
   int8_t enum_id;
};

struct agx_isa_alias_desc {
   char name[AGX_ISA_ALIAS_NAME_SIZE];
   uint8_t num_conds;
   uint8_t cond_field[8];
   uint32_t cond_value[8];
   uint32_t hide;                 /* bitmask of operands not printed */
};

struct agx_isa_op_desc {
   char name[AGX_ISA_OP_NAME_SIZE];
   uint8_t short_size, long_size, lbit;
   uint8_t mask[AGX_ISA_MAX_BYTES];
   uint8_t bits[AGX_ISA_MAX_BYTES];
   uint8_t field_bits[AGX_ISA_MAX_BYTES];
   uint16_t fields_at, num_fields;        /* run in agx_isa_fields */
   uint16_t operands_at, num_operands;    /* run in agx_isa_operands */
   uint16_t aliases_at, num_aliases;      /* run in agx_isa_aliases */
   int suffix_field;
   char suffix[AGX_ISA_SUFFIX_SIZE];      /* "" when suffix_field < 0 */
};

extern const struct agx_isa_op_desc agx_isa_ops[AGX_NUM_OPCODES];
extern const struct agx_isa_enum agx_isa_enums[];
extern const struct agx_isa_enum_value agx_isa_enum_values[];
extern const struct agx_isa_field_desc agx_isa_fields[];
extern const struct agx_isa_operand_desc agx_isa_operands[];
extern const struct agx_isa_alias_desc agx_isa_aliases[];

static inline const struct agx_isa_field_desc *agx_isa_op_fields(const struct agx_isa_op_desc *d)
{
   return &agx_isa_fields[d->fields_at];
}

static inline const struct agx_isa_operand_desc *agx_isa_op_operands(const struct agx_isa_op_desc *d)
{
   return &agx_isa_operands[d->operands_at];
}

static inline const struct agx_isa_alias_desc *agx_isa_op_aliases(const struct agx_isa_op_desc *d)
{
   return &agx_isa_aliases[d->aliases_at];
}

static inline const struct agx_isa_enum_value *agx_isa_enum_vals(const struct agx_isa_enum *e)
{
   return &agx_isa_enum_values[e->values_at];
}

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
