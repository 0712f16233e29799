/* SPDX-License-Identifier: MIT */
/*
 * Disassembler: struct agx_instr -> applegpu's text syntax.
 */
#include <inttypes.h>
#include <string.h>

#include "cmdstream/isa/agx_isa_tables.h"

/* Special register names applegpu knows. */
static const struct { uint16_t n; const char *name; } sr_names[] = {
   { 0, "threadgroup_position_in_grid.x" }, { 1, "threadgroup_position_in_grid.y" },
   { 2, "threadgroup_position_in_grid.z" }, { 4, "threads_per_threadgroup.x" },
   { 5, "threads_per_threadgroup.y" }, { 6, "threads_per_threadgroup.z" },
   { 8, "dispatch_threads_per_threadgroup.x" }, { 9, "dispatch_threads_per_threadgroup.y" },
   { 10, "dispatch_threads_per_threadgroup.z" }, { 20, "core_index" }, { 21, "vm_slot" },
   { 48, "thread_position_in_threadgroup.x" }, { 49, "thread_position_in_threadgroup.y" },
   { 50, "thread_position_in_threadgroup.z" }, { 51, "thread_index_in_threadgroup" },
   { 52, "thread_index_in_simdgroup" }, { 53, "simdgroup_index_in_threadgroup" },
   { 56, "active_thread_index_in_quadgroup" }, { 58, "active_thread_index_in_simdgroup" },
   { 60, "internal_coverage_mask" }, { 62, "backfacing" }, { 63, "is_active_thread" },
   { 80, "thread_position_in_grid.x" }, { 81, "thread_position_in_grid.y" },
   { 82, "thread_position_in_grid.z" }, { 124, "input_sample_mask" }, { 144, "opfifo_cmd" },
   { 146, "opfifo_data_l" }, { 147, "opfifo_data_h" },
};

/* Python's repr() of a minifloat: every value is k/64 * 2^e, so the exact
 * decimal expansion is short and is also the shortest round-trip form. */
static void
format_float(float f, char *buf, size_t size)
{
   if (f == (float)(int)f) {
      snprintf(buf, size, "%.1f", (double)f); /* keeps the sign of -0.0 */
      return;
   }
   snprintf(buf, size, "%.8f", (double)f);
   size_t l = strlen(buf);
   while (l > 0 && buf[l - 1] == '0')
      buf[--l] = 0;
}

struct out {
   char *buf;
   size_t size, len;
};

static void
emit(struct out *o, const char *s)
{
   size_t l = strlen(s);
   if (o->len < o->size) {
      size_t room = o->size - o->len - 1;
      memcpy(o->buf + o->len, s, l < room ? l : room);
      o->buf[o->len + (l < room ? l : room)] = 0;
   }
   o->len += l;
}

static void
reg_name(char *b, size_t n, unsigned file, unsigned size, unsigned idx)
{
   char c = file == AGX_FILE_UNIFORM ? 'u' : 'r';
   switch (file) {
   case AGX_FILE_SPECIAL:
      snprintf(b, n, "sr%u", idx);
      for (unsigned i = 0; i < sizeof(sr_names) / sizeof(sr_names[0]); i++) {
         if (sr_names[i].n == idx) {
            size_t l = strlen(b);
            snprintf(b + l, n - l, " (%s)", sr_names[i].name);
         }
      }
      return;
   case AGX_FILE_TEXTURE: snprintf(b, n, "ts%u", idx); return;
   case AGX_FILE_SAMPLER: snprintf(b, n, "ss%u", idx); return;
   case AGX_FILE_CF: snprintf(b, n, "cf%u", idx); return;
   default: break;
   }
   if (size == 16)
      snprintf(b, n, "%c%u%c", c, idx >> 1, (idx & 1) ? 'h' : 'l');
   else if (size == 64)
      snprintf(b, n, "%c%u_%c%u", c, idx, c, idx + 1);
   else
      snprintf(b, n, "%c%u", c, idx);
}

void
agx_isa_operand_text(const struct agx_operand *op, char *buf, size_t size)
{
   struct out o = { buf, size, 0 };
   char t[48];
   if (size)
      buf[0] = 0;
   switch (op->type) {
   case AGX_OPERAND_EMPTY: return;
   case AGX_OPERAND_NONE: emit(&o, "None"); return;
   case AGX_OPERAND_TEXT: emit(&o, op->text); return;
   case AGX_OPERAND_OFFSET:
      snprintf(t, sizeof(t), "pc%c%" PRIu64, op->imm < 0 ? '-' : '+',
               op->imm < 0 ? (uint64_t)0 - (uint64_t)op->imm : (uint64_t)op->imm);
      emit(&o, t);
      return;
   case AGX_OPERAND_IMM:
      snprintf(t, sizeof(t), "%" PRId64, op->imm);
      emit(&o, t);
      break;
   case AGX_OPERAND_FIMM:
      format_float(op->fimm, t, sizeof(t));
      emit(&o, t);
      break;
   case AGX_OPERAND_REG:
      for (unsigned i = 0; i < op->count; i++) {
         if (i)
            emit(&o, "_");
         reg_name(t, sizeof(t), op->file, op->size, op->value + i);
         emit(&o, t);
      }
      break;
   }
   /* flags in the order applegpu appends them */
   if (op->flags & AGX_OPF_CACHE) emit(&o, ".cache");
   if (op->flags & AGX_OPF_DISCARD) emit(&o, ".discard");
   if (op->flags & AGX_OPF_SX) emit(&o, ".sx");
   if (op->flags & AGX_OPF_ABS) emit(&o, ".abs");
   if (op->flags & AGX_OPF_NEG) emit(&o, ".neg");
}

void
agx_isa_mnemonic(const struct agx_instr *in, char *buf, size_t size)
{
   const struct agx_isa_op_desc *d = &agx_isa_ops[in->op];
   int a = agx_isa_alias_for(d, in->fields);
   bool suffix = d->suffix_field >= 0 && in->fields[d->suffix_field] == 1;
   snprintf(buf, size, "%s%s", a >= 0 ? agx_isa_op_aliases(d)[a].name : d->name, suffix ? d->suffix : "");
}

void
agx_isa_target_text(uint64_t pc, int64_t off, char *buf, size_t size)
{
   /* applegpu prints '0x%X' % (pc + offset) on Python integers, which
    * neither wrap nor lose the sign: a target below 0 prints as 0x-N and
    * one past 2^64 keeps its 65th bit. */
   uint64_t mag = off < 0 ? (uint64_t)0 - (uint64_t)off : (uint64_t)off;
   if (off >= 0) {
      uint64_t t = pc + mag;
      if (t < pc)
         snprintf(buf, size, "0x1%016" PRIX64, t);
      else
         snprintf(buf, size, "0x%" PRIX64, t);
   } else if (pc >= mag) {
      snprintf(buf, size, "0x%" PRIX64, pc - mag);
   } else {
      snprintf(buf, size, "0x-%" PRIX64, mag - pc);
   }
}

static int
print_instr(const struct agx_instr *in, bool have_pc, uint64_t pc, char *buf, size_t size)
{
   const struct agx_isa_op_desc *d = &agx_isa_ops[in->op];
   struct out o = { buf, size, 0 };
   char mnem[48], t[96];
   int a = agx_isa_alias_for(d, in->fields);
   uint32_t hide = a >= 0 ? agx_isa_op_aliases(d)[a].hide : 0;
   bool first = true;

   if (size)
      buf[0] = 0;
   agx_isa_mnemonic(in, mnem, sizeof(mnem));
   snprintf(t, sizeof(t), "%-16s ", mnem);
   emit(&o, t);
   for (unsigned i = 0; i < in->num_operands; i++) {
      if (hide & (1u << i))
         continue;
      if (have_pc && in->operands[i].type == AGX_OPERAND_OFFSET)
         agx_isa_target_text(pc, in->operands[i].imm, t, sizeof(t));
      else
         agx_isa_operand_text(&in->operands[i], t, sizeof(t));
      if (!t[0])
         continue;
      if (!first)
         emit(&o, ", ");
      emit(&o, t);
      first = false;
   }
   /* applegpu pads the mnemonic even with no operands; drop the trailing blanks */
   if (o.len < o.size) {
      while (o.len > 0 && buf[o.len - 1] == ' ')
         buf[--o.len] = 0;
   }
   return (int)o.len;
}

int
agx_isa_print(const struct agx_instr *in, char *buf, size_t size)
{
   return print_instr(in, false, 0, buf, size);
}

int
agx_isa_print_at(const struct agx_instr *in, uint64_t pc, char *buf, size_t size)
{
   return print_instr(in, true, pc, buf, size);
}

size_t
agx_disasm_print(FILE *fp, const uint8_t *code, size_t size,
                 const struct agx_disasm_options *opts)
{
   static const struct agx_disasm_options defaults = { 0 };
   if (!opts)
      opts = &defaults;
   size_t p = 0;
   while (p < size) {
      struct agx_instr in;
      enum agx_isa_status st = agx_isa_decode(code + p, size - p, &in);
      size_t len = st == AGX_ISA_OK ? in.length : (size - p >= 2 ? 2 : 1);
      char text[256];

      bool unknown_bits = false;
      for (unsigned i = 0; st == AGX_ISA_OK && i < AGX_ISA_MAX_BYTES; i++)
         unknown_bits |= in.remainder[i] != 0;

      if (st == AGX_ISA_OK && !unknown_bits) {
         agx_isa_print_at(&in, opts->pc + p, text, sizeof(text));
      } else if (st == AGX_ISA_OK) {
         /* Bits no field describes are set: the text could not reproduce
          * them, so emit the halfwords and show the decoding as a comment. */
         char dec[200];
         size_t l = 0;
         agx_isa_print_at(&in, opts->pc + p, dec, sizeof(dec));
         l += (size_t)snprintf(text, sizeof(text), ".word ");
         for (size_t i = 0; i < len; i += 2)
            l += (size_t)snprintf(text + l, sizeof(text) - l, "%s0x%04x", i ? ", " : "",
                                  code[p + i] | (code[p + i + 1] << 8));
         snprintf(text + l, sizeof(text) - l, "  ; %s (unknown bits set)", dec);
      }
      else if (len == 2)
         snprintf(text, sizeof(text), ".word 0x%04x%s", code[p] | (code[p + 1] << 8),
                  st == AGX_ISA_TRUNCATED ? "  ; truncated instruction" : "");
      else
         snprintf(text, sizeof(text), ".byte 0x%02x", code[p]);

      fputs(opts->indent ? opts->indent : "", fp);
      if (opts->show_bytes) {
         char hex[40] = "";
         for (size_t i = 0; i < len; i++)
            snprintf(hex + 2 * i, sizeof(hex) - 2 * i, "%02x", code[p + i]);
         fprintf(fp, "%4" PRIx64 ": %-20s ", opts->pc + p, hex);
      }
      fprintf(fp, "%s\n", text);
      p += len;
      if (st == AGX_ISA_OK && opts->stop_at_end && in.op == AGX_OP_STOP)
         break;
   }
   return p;
}
