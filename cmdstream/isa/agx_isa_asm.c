/* SPDX-License-Identifier: MIT */
/*
 * Assembler: applegpu's text syntax -> struct agx_instr -> bytes.
 *
 * A mnemonic may name several table entries (mov_imm 16/32, call reg/pc),
 * an alias (isub, and, ld_tile) or carry the .sat suffix; every candidate is
 * tried in table order and the first whose operands all parse wins.
 * Operands that print as nothing (shift 0, empty mask...) may be left out.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cmdstream/isa/agx_isa_tables.h"

#define MAX_STRS 24

struct opstr {
   char text[96];
   int col;
};

static bool
kind_may_be_empty(const struct agx_isa_operand_desc *od)
{
   switch (od->kind) {
   case AGX_KIND_LSL:
   case AGX_KIND_BITMASK:
   case AGX_KIND_ITER_SAMPLE:
   case AGX_KIND_CMP_OFF:
   case AGX_KIND_MEM_REG:
   case AGX_KIND_ZS:
   case AGX_KIND_COORDS:
      return true;
   case AGX_KIND_ENUM: {
      const struct agx_isa_enum *e = &agx_isa_enums[od->enum_id];
      for (unsigned i = 0; i < e->num_values; i++) {
         if (!agx_isa_enum_vals(e)[i].name[0])
            return true;
      }
      return false;
   }
   default:
      return false;
   }
}

/* Tries one table entry; on failure leaves a message and column. */
static bool
try_op(unsigned opi, int alias, bool suffix, const struct opstr *strs, unsigned n,
       uint64_t pc, struct agx_instr *out, char *err, size_t err_size, int *err_col, unsigned *progress)
{
   const struct agx_isa_op_desc *d = &agx_isa_ops[opi];
   const struct agx_isa_alias_desc *al = alias >= 0 ? &agx_isa_op_aliases(d)[alias] : NULL;
   uint32_t hide = al ? al->hide : 0;
   uint32_t fields[AGX_ISA_MAX_FIELDS] = { 0 };

   if (al) {
      for (unsigned c = 0; c < al->num_conds; c++)
         fields[al->cond_field[c]] = al->cond_value[c];
   }
   if (suffix)
      fields[d->suffix_field] = 1;

   /* Two passes: some operands depend on fields printed after them
    * (coordinates on the texture type), so the second pass sees them. */
   for (unsigned pass = 0; pass < 2; pass++) {
      unsigned s = 0;
      *progress = 0;
      for (unsigned i = 0; i < d->num_operands; i++) {
         const struct agx_isa_operand_desc *od = &agx_isa_op_operands(d)[i];
         char msg[160];
         if (hide & (1u << i))
            continue;
         if (s < n && agx_isa_operand_parse(d, od, strs[s].text, fields, pass == 1, pc,
                                             msg, sizeof(msg))) {
            s++;
            *progress = s;
            continue;
         }
         if (kind_may_be_empty(od))
            continue;
         if (pass == 0)
            break;   /* the first pass only gathers fields for the second */
         if (s >= n) {
            /* the precisions bound the inline names for -Wformat-truncation */
            snprintf(err, err_size, "%.*s: missing operand %.*s", (int)sizeof(d->name), d->name,
                     (int)sizeof(od->name), od->name);
            *err_col = n ? strs[n - 1].col + (int)strlen(strs[n - 1].text) : 0;
         } else {
            snprintf(err, err_size, "%s", msg);
            *err_col = strs[s].col;
         }
         return false;
      }
      if (s < n && pass == 1) {
         snprintf(err, err_size, "unexpected operand '%s'", strs[s].text);
         *err_col = strs[s].col;
         *progress = s;
         return false;
      }
   }

   memset(out, 0, sizeof(*out));
   out->op = (enum agx_isa_opcode)opi;
   memcpy(out->fields, fields, sizeof(fields));
   uint8_t bytes[AGX_ISA_MAX_BYTES];
   unsigned len;
   if (agx_isa_encode(out, bytes, &len) != AGX_ISA_OK) {
      snprintf(err, err_size, "operands cannot be encoded by %.*s", (int)sizeof(d->name), d->name);
      *err_col = n ? strs[0].col : 0;
      return false;
   }
   out->length = (uint8_t)len;
   agx_isa_decode_operands(out);
   return true;
}

bool
agx_isa_parse(const char *line, struct agx_instr *out, char *err, size_t err_size,
              int *err_col)
{
   return agx_isa_parse_at(line, 0, out, err, err_size, err_col);
}

bool
agx_isa_parse_at(const char *line, uint64_t pc, struct agx_instr *out, char *err,
                 size_t err_size, int *err_col)
{
   char mnem[48];
   struct opstr strs[MAX_STRS];
   unsigned n = 0;
   size_t i = 0, end = strlen(line);

   err[0] = 0;
   *err_col = -1;
   for (size_t k = 0; line[k]; k++) {
      if (line[k] == ';' || (line[k] == '/' && line[k + 1] == '/')) {
         end = k;
         break;
      }
   }
   while (i < end && isspace((unsigned char)line[i]))
      i++;
   if (i == end)
      return false;
   size_t m0 = i;
   while (i < end && !isspace((unsigned char)line[i]))
      i++;
   if (i - m0 >= sizeof(mnem)) {
      snprintf(err, err_size, "mnemonic too long");
      *err_col = (int)m0;
      return false;
   }
   memcpy(mnem, line + m0, i - m0);
   mnem[i - m0] = 0;

   /* operands: comma separated, blanks around them ignored */
   while (i < end && isspace((unsigned char)line[i]))
      i++;
   while (i < end) {
      size_t s0 = i;
      while (i < end && line[i] != ',')
         i++;
      size_t s1 = i;
      while (s1 > s0 && isspace((unsigned char)line[s1 - 1]))
         s1--;
      if (n == MAX_STRS || s1 - s0 >= sizeof(strs[0].text)) {
         snprintf(err, err_size, "too many or too long operands");
         *err_col = (int)s0;
         return false;
      }
      if (s1 == s0) {
         snprintf(err, err_size, "empty operand");
         *err_col = (int)s0;
         return false;
      }
      memcpy(strs[n].text, line + s0, s1 - s0);
      strs[n].text[s1 - s0] = 0;
      strs[n].col = (int)s0;
      n++;
      if (i < end)
         i++;
      while (i < end && isspace((unsigned char)line[i]))
         i++;
   }

   bool any = false;
   unsigned best = 0;
   char best_err[200] = "";
   int best_col = (int)m0;
   for (unsigned op = 0; op < AGX_NUM_OPCODES; op++) {
      const struct agx_isa_op_desc *d = &agx_isa_ops[op];
      for (unsigned sfx = 0; sfx < 2; sfx++) {
         char base[48];
         snprintf(base, sizeof(base), "%s", mnem);
         if (sfx) {
            size_t bl = strlen(base), sl = strlen(d->suffix);
            if (!sl || bl <= sl || strcmp(base + bl - sl, d->suffix))
               continue;
            base[bl - sl] = 0;
         }
         /* aliases first ("ld_tile" is both the table name and an alias),
          * in table order, then the plain name */
         for (int k = 0; k <= (int)d->num_aliases; k++) {
            int alias = k < (int)d->num_aliases ? k : -1;
            if (alias >= 0 ? strcmp(agx_isa_op_aliases(d)[alias].name, base) != 0
                           : strcmp(d->name, base) != 0)
               continue;
            char e[200];
            int col;
            unsigned progress = 0;
            any = true;
            if (try_op(op, alias, sfx, strs, n, pc, out, e, sizeof(e), &col, &progress))
               return true;
            if (!best_err[0] || progress > best) {
               best = progress;
               snprintf(best_err, sizeof(best_err), "%s", e);
               best_col = col;
            }
         }
      }
   }
   if (!any)
      snprintf(err, err_size, "unknown mnemonic '%s'", mnem);
   else
      snprintf(err, err_size, "%s", best_err);
   *err_col = any ? best_col : (int)m0;
   return false;
}

/* ---- whole listings with labels ------------------------------------- */

struct label {
   char name[48];
   size_t addr;
};

static bool
is_ident(const char *s, size_t n)
{
   if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
      return false;
   for (size_t i = 1; i < n; i++) {
      if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.')
         return false;
   }
   return true;
}

bool
agx_isa_assemble(const char *text, size_t text_len, uint8_t *out, size_t out_cap,
                 size_t *out_len, char *err, size_t err_size)
{
   return agx_isa_assemble_at(text, text_len, 0, out, out_cap, out_len, err, err_size);
}

bool
agx_isa_assemble_at(const char *text, size_t text_len, uint64_t base, uint8_t *out,
                    size_t out_cap, size_t *out_len, char *err, size_t err_size)
{
   enum { MAX_LABELS = 256 };
   struct label labels[MAX_LABELS];
   unsigned num_labels = 0;
   *out_len = 0;

   /* pass 0 collects label addresses (branch sizes do not depend on them) */
   for (unsigned pass = 0; pass < 2; pass++) {
      size_t pos = 0, addr = 0;
      unsigned lineno = 0;
      while (pos < text_len) {
         char line[512], fixed[640];
         size_t l = 0;
         lineno++;
         while (pos < text_len && text[pos] != '\n') {
            if (l < sizeof(line) - 1)
               line[l++] = text[pos] ? text[pos] : ' ';
            pos++;
         }
         pos++;
         line[l] = 0;
         if (l == sizeof(line) - 1) {
            snprintf(err, err_size, "%u:1: line too long", lineno);
            return false;
         }

         /* "label:" prefix */
         char *body = line;
         size_t ws = strspn(line, " \t");
         size_t id = strcspn(line + ws, ": \t;,");
         if (line[ws + id] == ':' && is_ident(line + ws, id)) {
            if (pass == 0) {
               if (num_labels == MAX_LABELS || id >= sizeof(labels[0].name)) {
                  snprintf(err, err_size, "%u:%zu: too many labels", lineno, ws + 1);
                  return false;
               }
               for (unsigned k = 0; k < num_labels; k++) {
                  if (strlen(labels[k].name) == id && !strncmp(labels[k].name, line + ws, id)) {
                     snprintf(err, err_size, "%u:%zu: duplicate label", lineno, ws + 1);
                     return false;
                  }
               }
               memcpy(labels[num_labels].name, line + ws, id);
               labels[num_labels].name[id] = 0;
               labels[num_labels++].addr = addr;
            }
            memset(line, ' ', ws + id + 1);
         }

         /* "pc+label" -> "pc+N"/"pc-N" relative to this instruction */
         char *pc = strstr(body, "pc+");
         snprintf(fixed, sizeof(fixed), "%s", body);
         if (pc && (isalpha((unsigned char)pc[3]) || pc[3] == '_')) {
            size_t n = strcspn(pc + 3, " \t,;");
            long long off = 0;
            bool found = false;
            for (unsigned k = 0; k < num_labels; k++) {
               if (strlen(labels[k].name) == n && !strncmp(labels[k].name, pc + 3, n)) {
                  off = (long long)labels[k].addr - (long long)addr;
                  found = true;
               }
            }
            if (!found && pass == 1) {
               snprintf(err, err_size, "%u:%zu: unknown label '%.*s'", lineno,
                        (size_t)(pc - body) + 4, (int)n, pc + 3);
               return false;
            }
            snprintf(fixed, sizeof(fixed), "%.*spc%c%lld%s", (int)(pc - body), body,
                     off < 0 ? '-' : '+', off < 0 ? -off : off, pc + 3 + n);
         }

         /* raw data the disassembler emits for undecodable bytes */
         const char *p = fixed + strspn(fixed, " \t");
         if (!strncmp(p, ".word", 5) || !strncmp(p, ".byte", 5)) {
            /* ".word 0x1234, 0x5678" (halfwords, little endian) or ".byte 0x12" */
            bool word = p[1] == 'w';
            const char *q = p + 5;
            for (;;) {
               char *endp;
               q += strspn(q, " \t");
               unsigned long v = strtoul(q, &endp, 0);
               if (endp == q || v > (word ? 0xffffu : 0xffu)) {
                  snprintf(err, err_size, "%u:%zu: bad %s value", lineno, (size_t)(q - fixed) + 1,
                           word ? ".word" : ".byte");
                  return false;
               }
               unsigned nb = word ? 2 : 1;
               if (addr + nb > out_cap) {
                  snprintf(err, err_size, "%u:1: output too large", lineno);
                  return false;
               }
               out[addr] = (uint8_t)v;
               if (word)
                  out[addr + 1] = (uint8_t)(v >> 8);
               addr += nb;
               q = endp + strspn(endp, " \t");
               if (*q == ',') {
                  q++;
                  continue;
               }
               if (*q && *q != ';' && strncmp(q, "//", 2)) {
                  snprintf(err, err_size, "%u:%zu: unexpected text after value", lineno,
                           (size_t)(q - fixed) + 1);
                  return false;
               }
               break;
            }
            continue;
         }

         struct agx_instr in;
         char msg[200];
         int col;
         if (!agx_isa_parse_at(fixed, base + addr, &in, msg, sizeof(msg), &col)) {
            if (col < 0)
               continue;   /* blank or comment-only line */
            snprintf(err, err_size, "%u:%d: %s", lineno, col + 1, msg);
            return false;
         }
         uint8_t bytes[AGX_ISA_MAX_BYTES];
         unsigned len;
         if (agx_isa_encode(&in, bytes, &len) != AGX_ISA_OK) {
            snprintf(err, err_size, "%u:1: cannot encode", lineno);
            return false;
         }
         if (addr + len > out_cap) {
            snprintf(err, err_size, "%u:1: output too large", lineno);
            return false;
         }
         memcpy(out + addr, bytes, len);
         addr += len;
      }
      *out_len = addr;
   }
   return true;
}
