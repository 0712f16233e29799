/* SPDX-License-Identifier: MIT */
/*
 * Table-driven decoder and encoder: bytes <-> op + field values.
 *
 * Instructions are little endian bit strings of 2..12 bytes.  An op matches
 * when the bytes of its length, masked by its constant mask, equal its
 * constant bits.  Variable-length ops have a short and a long size chosen by
 * the L bit; the short form reads the missing high bytes as zero.
 */
#include <math.h>
#include <string.h>

#include "cmdstream/isa/agx_isa_tables.h"

static unsigned
get_bit(const uint8_t *b, unsigned bit)
{
   return (b[bit / 8] >> (bit % 8)) & 1;
}

static uint32_t
get_bits(const uint8_t *b, unsigned start, unsigned size)
{
   uint32_t v = 0;
   for (unsigned i = 0; i < size; i++)
      v |= (uint32_t)get_bit(b, start + i) << i;
   return v;
}

static void
put_bits(uint8_t *b, unsigned start, unsigned size, uint32_t v)
{
   for (unsigned i = 0; i < size; i++) {
      unsigned bit = start + i;
      b[bit / 8] = (uint8_t)((b[bit / 8] & ~(1u << (bit % 8))) |
                             (((v >> i) & 1) << (bit % 8)));
   }
}

uint32_t
agx_isa_field_width(const struct agx_isa_field_desc *f)
{
   uint32_t w = 0;
   for (unsigned p = 0; p < f->num_parts; p++)
      w += f->size[p];
   return w;
}

static uint32_t
read_field(const uint8_t *b, const struct agx_isa_field_desc *f)
{
   uint32_t v = 0, shift = 0;
   for (unsigned p = 0; p < f->num_parts; p++) {
      v |= get_bits(b, f->start[p], f->size[p]) << shift;
      shift += f->size[p];
   }
   return v;
}

static void
write_field(uint8_t *b, const struct agx_isa_field_desc *f, uint32_t v)
{
   uint32_t shift = 0;
   for (unsigned p = 0; p < f->num_parts; p++) {
      put_bits(b, f->start[p], f->size[p], f->size[p] >= 32 ? v : v >> shift);
      shift += f->size[p];
   }
}

static unsigned
op_size(const struct agx_isa_op_desc *d, const uint8_t *b)
{
   if (d->short_size == d->long_size)
      return d->short_size;
   return get_bit(b, d->lbit) ? d->long_size : d->short_size;
}

const char *
agx_isa_op_name(enum agx_isa_opcode op)
{
   return (unsigned)op < AGX_NUM_OPCODES ? agx_isa_ops[op].name : "?";
}

unsigned
agx_isa_op_num_fields(enum agx_isa_opcode op)
{
   return (unsigned)op < AGX_NUM_OPCODES ? agx_isa_ops[op].num_fields : 0;
}

const char *
agx_isa_op_field_name(enum agx_isa_opcode op, unsigned i)
{
   if ((unsigned)op >= AGX_NUM_OPCODES || i >= agx_isa_ops[op].num_fields)
      return NULL;
   return agx_isa_op_fields(&agx_isa_ops[op])[i].name;
}

const char *
agx_isa_op_operand_name(enum agx_isa_opcode op, unsigned i)
{
   if ((unsigned)op >= AGX_NUM_OPCODES || i >= agx_isa_ops[op].num_operands)
      return NULL;
   return agx_isa_op_operands(&agx_isa_ops[op])[i].name;
}

int
agx_isa_alias_for(const struct agx_isa_op_desc *desc, const uint32_t *fields)
{
   for (unsigned a = 0; a < desc->num_aliases; a++) {
      const struct agx_isa_alias_desc *al = &agx_isa_op_aliases(desc)[a];
      bool ok = true;
      for (unsigned c = 0; c < al->num_conds && ok; c++)
         ok = fields[al->cond_field[c]] == al->cond_value[c];
      if (ok)
         return (int)a;
   }
   return -1;
}

void
agx_isa_decode_operands(struct agx_instr *in)
{
   const struct agx_isa_op_desc *d = &agx_isa_ops[in->op];
   in->num_fields = (uint8_t)d->num_fields;
   in->num_operands = (uint8_t)d->num_operands;
   for (unsigned i = 0; i < d->num_operands; i++)
      agx_isa_operand_decode(d, &agx_isa_op_operands(d)[i], in->fields, &in->operands[i]);
}

enum agx_isa_status
agx_isa_decode(const uint8_t *code, size_t size, struct agx_instr *out)
{
   uint8_t buf[AGX_ISA_MAX_BYTES] = { 0 };
   memcpy(buf, code, size < sizeof(buf) ? size : sizeof(buf));
   memset(out, 0, sizeof(*out));
   out->length = 2;

   for (unsigned op = 0; op < AGX_NUM_OPCODES; op++) {
      const struct agx_isa_op_desc *d = &agx_isa_ops[op];
      unsigned len = op_size(d, buf);
      bool match = true;
      for (unsigned i = 0; i < AGX_ISA_MAX_BYTES && match; i++) {
         uint8_t v = i < len ? buf[i] : 0;
         match = (v & d->mask[i]) == d->bits[i];
      }
      if (!match)
         continue;
      if (len > size)
         return AGX_ISA_TRUNCATED;

      /* the bytes after a short instruction belong to the next one */
      memset(buf + len, 0, sizeof(buf) - len);
      out->op = (enum agx_isa_opcode)op;
      out->length = (uint8_t)len;
      out->long_form = d->short_size != d->long_size && len == d->long_size;
      for (unsigned f = 0; f < d->num_fields; f++)
         out->fields[f] = read_field(buf, &agx_isa_op_fields(d)[f]);
      for (unsigned i = 0; i < len; i++)
         out->remainder[i] = (uint8_t)(buf[i] & ~(d->mask[i] | d->field_bits[i]));
      if (d->short_size != d->long_size)
         put_bits(out->remainder, d->lbit, 1, 0);
      agx_isa_decode_operands(out);
      return AGX_ISA_OK;
   }
   return AGX_ISA_UNKNOWN;
}

enum agx_isa_status
agx_isa_encode(const struct agx_instr *in, uint8_t out[AGX_ISA_MAX_BYTES],
               unsigned *length)
{
   memset(out, 0, AGX_ISA_MAX_BYTES);
   *length = 0;
   if ((unsigned)in->op >= AGX_NUM_OPCODES)
      return AGX_ISA_UNKNOWN;
   const struct agx_isa_op_desc *d = &agx_isa_ops[in->op];

   for (unsigned f = 0; f < d->num_fields; f++) {
      uint32_t w = agx_isa_field_width(&agx_isa_op_fields(d)[f]);
      if (w < 32 && (in->fields[f] >> w))
         return AGX_ISA_RANGE;
      write_field(out, &agx_isa_op_fields(d)[f], in->fields[f]);
   }
   for (unsigned i = 0; i < AGX_ISA_MAX_BYTES; i++) {
      uint8_t rem = (uint8_t)(in->remainder[i] & ~(d->mask[i] | d->field_bits[i]));
      out[i] = (uint8_t)((out[i] & ~d->mask[i]) | d->bits[i] | rem);
   }

   unsigned len = d->short_size;
   if (d->short_size != d->long_size) {
      /* The long form only when its extra bytes carry something (or the
       * decoded instruction was long), as the hardware tools emit it. */
      bool need_long = in->long_form;
      for (unsigned i = d->short_size; i < d->long_size; i++)
         need_long |= out[i] != 0;
      if (need_long)
         len = d->long_size;
      put_bits(out, d->lbit, 1, need_long);
   }
   for (unsigned i = len; i < AGX_ISA_MAX_BYTES; i++)
      out[i] = 0;

   /* A constant may overlap a field (mov_imm's size bit): the value must
    * agree with it or the instruction would decode differently. */
   for (unsigned f = 0; f < d->num_fields; f++) {
      if (read_field(out, &agx_isa_op_fields(d)[f]) != in->fields[f])
         return AGX_ISA_RANGE;
   }
   *length = len;
   return AGX_ISA_OK;
}

static int
field_index(const struct agx_isa_op_desc *d, const char *name)
{
   for (unsigned f = 0; f < d->num_fields; f++) {
      if (strcmp(agx_isa_op_fields(d)[f].name, name) == 0)
         return (int)f;
   }
   return -1;
}

bool
agx_instr_field(const struct agx_instr *in, const char *name, uint32_t *value)
{
   if ((unsigned)in->op >= AGX_NUM_OPCODES)
      return false;
   int f = field_index(&agx_isa_ops[in->op], name);
   if (f < 0)
      return false;
   *value = in->fields[f];
   return true;
}

bool
agx_instr_set_field(struct agx_instr *in, const char *name, uint32_t value)
{
   if ((unsigned)in->op >= AGX_NUM_OPCODES)
      return false;
   int f = field_index(&agx_isa_ops[in->op], name);
   if (f < 0)
      return false;
   in->fields[f] = value;
   return true;
}

float
agx_minifloat_decode(uint8_t raw)
{
   /* Exponent 0 is a plain fixed-point fraction in 1/64ths (so 0 exists);
    * otherwise an implicit leading one and a bias of 7. */
   unsigned e = (raw >> 4) & 7, f = raw & 15;
   float v = e == 0 ? (float)f / 64.0f
                    : (float)(16 + f) * ((float)(1u << e) / 128.0f);
   return (raw & 0x80) ? -v : v;
}

bool
agx_minifloat_encode(float value, uint8_t *raw)
{
   for (unsigned i = 0; i < 256; i++) {
      float d = agx_minifloat_decode((uint8_t)i);
      /* compare the sign too, so -0.0 encodes as 0x80 */
      if (d == value && !signbit(d) == !signbit(value)) {
         *raw = (uint8_t)i;
         return true;
      }
   }
   return false;
}
