/* SPDX-License-Identifier: MIT */
/*
 * The disassembler against an independent one: every line of
 * tests/data/isa/applegpu_corpus.txt is a random encoding that applegpu's
 * disassembler (github.com/dougallj/applegpu, commit in the file's header)
 * decoded; tests/data/isa/gen_applegpu_corpus.py made it.  For each line:
 *
 *  - if applegpu's mnemonic is one tessera declares (name or alias, with
 *    its suffix), tessera must decode the bytes to the same length with no
 *    unknown bits, and its disassembly at the same pc must equal
 *    applegpu's text after the normalisation below;
 *  - otherwise (applegpu's TODO.* / unk* / catch-all / undeclared entries)
 *    tessera must not decode the bytes as anything: it has to print them
 *    as .word lines rather than claim another instruction.
 *
 * Every opcode tessera knows must occur in the corpus (so a new opcode
 * needs the corpus widened, or a reason here).  The per-opcode counts and
 * every normalisation applied are printed.
 *
 * Normalisation (where tessera and applegpu legitimately differ):
 *  1. Trailing blanks: applegpu pads the mnemonic to 16 columns even when
 *     no operand follows; tessera trims them.  Both sides are trimmed.
 *  2. `TODO.ldcf` is applegpu's placeholder name for the instruction Mesa
 *     calls `ldcf` (agx_opcodes.py); the operands print identically.
 *  3. icmpsel/fcmpsel X and Y uniforms: bit 0 of the operand's type field
 *     (Xt/Yt = 0b111) is bit 8 of the uniform's half index.  applegpu's own
 *     encoder (CmpselSrcDesc.encode) and pseudocode set and read it, and
 *     Mesa's agx_pack_cmpsel_src (which runs on real M1s) packs uniforms
 *     up to 0x1ff that way; only applegpu's CmpselSrcDesc.decode drops it.
 *     tessera (decoder, assembler, GPU model) follows the hardware, so for
 *     comparison the test drops the bit from tessera's decoded operand, as
 *     applegpu's decoder does, and prints that.  Nothing else is touched.
 * There is no other normalisation: spacing, operand order, register,
 * immediate, float and branch-target syntax must be identical.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmdstream/isa/agx_isa.h"
#include "cmdstream/isa/agx_isa_tables.h"

#define CORPUS "tests/data/isa/applegpu_corpus.txt"

/* Does tessera declare this printed mnemonic (entry name or alias, with
 * the entry's suffix allowed)? */
static bool
tessera_declares(const char *mnem)
{
   for (unsigned op = 0; op < AGX_NUM_OPCODES; op++) {
      const struct agx_isa_op_desc *d = &agx_isa_ops[op];
      char base[64];
      snprintf(base, sizeof(base), "%s", mnem);
      size_t bl = strlen(base), sl = strlen(d->suffix);
      if (sl && bl > sl && !strcmp(base + bl - sl, d->suffix))
         base[bl - sl] = 0;
      if (!strcmp(d->name, mnem) || !strcmp(d->name, base))
         return true;
      for (unsigned k = 0; k < d->num_aliases; k++) {
         if (!strcmp(agx_isa_op_aliases(d)[k].name, mnem) || !strcmp(agx_isa_op_aliases(d)[k].name, base))
            return true;
      }
   }
   return false;
}

/* Splits "mnemonic    operands  " into its mnemonic and trimmed operands
 * (normalisation 1). */
static void
split_text(const char *text, char *mnem, size_t mcap, char *ops, size_t ocap)
{
   size_t m = strcspn(text, " ");
   snprintf(mnem, mcap, "%.*s", (int)m, text);
   const char *o = text + m;
   while (*o == ' ')
      o++;
   snprintf(ops, ocap, "%s", o);
   size_t l = strlen(ops);
   while (l && (ops[l - 1] == ' ' || ops[l - 1] == '\n'))
      ops[--l] = 0;
}

/* Normalisation 3: applegpu's decoder ignores bit 8 of a cmpsel uniform. */
static bool
drop_cmpsel_uniform_bit8(struct agx_instr *in)
{
   bool changed = false;
   if (in->op != AGX_OP_ICMPSEL && in->op != AGX_OP_FCMPSEL)
      return false;
   for (unsigned i = 0; i < in->num_operands; i++) {
      const char *name = agx_isa_op_operand_name(in->op, i);
      char tname[8];
      uint32_t t;
      if (!name || (strcmp(name, "X") && strcmp(name, "Y")))
         continue;
      snprintf(tname, sizeof(tname), "%st", name);
      struct agx_operand *o = &in->operands[i];
      if (!agx_instr_field(in, tname, &t) || (t & 6) != 6 || !(t & 1) ||
          o->type != AGX_OPERAND_REG || o->file != AGX_FILE_UNIFORM)
         continue;
      /* the half index loses bit 8: 256 halves = 128 32-bit registers */
      o->value -= o->size == 16 ? 256 : 128;
      changed = true;
   }
   return changed;
}

static char *
read_corpus(size_t *len)
{
   FILE *f = fopen(CORPUS, "rb");
   if (!f)
      fail_msg("cannot open %s (run from the top of the tree)", CORPUS);
   assert_int_equal(fseek(f, 0, SEEK_END), 0);
   long n = ftell(f);
   assert_true(n > 0);
   rewind(f);
   char *buf = malloc((size_t)n + 1);
   assert_non_null(buf);
   assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
   buf[n] = 0;
   fclose(f);
   *len = (size_t)n;
   return buf;
}

static void
test_against_applegpu(void **state)
{
   (void)state;
   size_t len;
   char *buf = read_corpus(&len);
   unsigned per_op[AGX_NUM_OPCODES] = { 0 };
   unsigned lines = 0, compared = 0, undeclared = 0, normalised_cmpsel = 0,
            normalised_name = 0, mismatches = 0;
   bool have_commit = false;

   for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
      if (line[0] == '#') {
         have_commit |= strstr(line, "applegpu commit: ") != NULL;
         continue;
      }
      char *f[4];
      f[0] = line;
      for (unsigned i = 1; i < 4; i++) {
         f[i] = f[i - 1] ? strchr(f[i - 1], '\t') : NULL;
         if (f[i])
            *f[i]++ = 0;
      }
      if (!f[3])
         fail_msg("malformed corpus line %u", lines + 1);
      lines++;
      uint64_t pc = strtoull(f[0], NULL, 16);
      uint8_t code[AGX_ISA_MAX_BYTES];
      size_t n = strlen(f[1]) / 2;
      assert_true(n >= 2 && n <= AGX_ISA_MAX_BYTES && strlen(f[1]) % 2 == 0);
      for (size_t i = 0; i < n; i++) {
         unsigned b;
         assert_int_equal(sscanf(f[1] + 2 * i, "%2x", &b), 1);
         code[i] = (uint8_t)b;
      }

      char ag_mnem[64], ag_ops[160];
      split_text(f[3], ag_mnem, sizeof(ag_mnem), ag_ops, sizeof(ag_ops));
      if (!strcmp(ag_mnem, "TODO.ldcf")) {            /* normalisation 2 */
         snprintf(ag_mnem, sizeof(ag_mnem), "ldcf");
         normalised_name++;
      }
      bool declared = tessera_declares(ag_mnem);

      struct agx_instr in;
      bool clean = agx_isa_decode(code, n, &in) == AGX_ISA_OK && in.length == n;
      for (unsigned i = 0; clean && i < AGX_ISA_MAX_BYTES; i++)
         clean = !in.remainder[i];
      if (!declared) {
         undeclared++;
         if (agx_isa_decode(code, n, &in) == AGX_ISA_OK) {
            printf("# MISMATCH %s at 0x%s: applegpu '%s' (undeclared), tessera decodes %s\n",
                   f[1], f[0], f[3], agx_isa_op_name(in.op));
            mismatches++;
         }
         continue;
      }
      if (!clean) {
         printf("# MISMATCH %s at 0x%s: applegpu '%s', tessera does not decode it cleanly\n",
                f[1], f[0], f[3]);
         mismatches++;
         continue;
      }
      per_op[in.op]++;
      compared++;

      /* tessera's text as its disassembler prints it at that pc */
      char *text = NULL;
      size_t tlen = 0;
      FILE *mem = open_memstream(&text, &tlen);
      assert_non_null(mem);
      struct agx_disasm_options o = { .pc = pc };
      assert_int_equal(agx_disasm_print(mem, code, n, &o), n);
      fclose(mem);
      char ours[256];
      snprintf(ours, sizeof(ours), "%.*s", (int)strcspn(text, "\n"), text);
      free(text);
      if (drop_cmpsel_uniform_bit8(&in)) {             /* normalisation 3 */
         agx_isa_print_at(&in, pc, ours, sizeof(ours));
         normalised_cmpsel++;
      }
      char t_mnem[64], t_ops[160];
      split_text(ours, t_mnem, sizeof(t_mnem), t_ops, sizeof(t_ops));
      if (strcmp(t_mnem, ag_mnem) || strcmp(t_ops, ag_ops)) {
         printf("# MISMATCH %s at 0x%s:\n#   applegpu: %s %s\n#   tessera:  %s %s\n", f[1], f[0],
                ag_mnem, ag_ops, t_mnem, t_ops);
         mismatches++;
      }
   }
   free(buf);

   printf("# corpus: %u encodings, %u compared, %u undeclared in tessera; "
          "normalised: %u cmpsel uniform bit 8, %u TODO.ldcf; %u mismatches\n",
          lines, compared, undeclared, normalised_cmpsel, normalised_name, mismatches);
   unsigned missing = 0;
   for (unsigned op = 0; op < AGX_NUM_OPCODES; op++) {
      printf("#   %-24s %u\n", agx_isa_op_name((enum agx_isa_opcode)op), per_op[op]);
      /* stack_adjust: applegpu has no entry for it (declared from Mesa's
       * packing), so no corpus line can name it. */
      if (!per_op[op] && op != AGX_OP_STACK_ADJUST) {
         printf("# MISSING from the corpus: %s\n", agx_isa_op_name((enum agx_isa_opcode)op));
         missing++;
      }
   }
   assert_true(have_commit);
   assert_true(lines >= 1000);
   assert_int_equal(mismatches, 0);
   assert_int_equal(missing, 0);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_against_applegpu),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
