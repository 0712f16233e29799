/* SPDX-License-Identifier: MIT */
/*
 * AGX ISA library tests: golden encodings, the all-instructions listing
 * round trips, minifloats and error reporting.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmdstream/isa/agx_isa.h"

static char *
read_file(const char *name, size_t *len)
{
   char path[1024];
   const char *top = getenv("TOP");
   snprintf(path, sizeof(path), "%s/%s", top ? top : ".", name);
   FILE *f = fopen(path, "rb");
   assert_non_null(f);
   fseek(f, 0, SEEK_END);
   long n = ftell(f);
   fseek(f, 0, SEEK_SET);
   char *buf = malloc((size_t)n + 1);
   assert_non_null(buf);
   assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
   buf[n] = 0;
   fclose(f);
   *len = (size_t)n;
   return buf;
}

static void
hex_of(const uint8_t *b, unsigned n, char *out)
{
   for (unsigned i = 0; i < n; i++)
      sprintf(out + 2 * i, "%02x", b[i]);
   out[2 * n] = 0;
}

/* Encodings checked against applegpu's assembler (assemble.py) and, for the
 * short ones, by hand from the field layout in agx_isa.xml. */
static const struct { const char *text, *hex; } golden[] = {
   { "stop", "8800" },
   { "trap", "0800" },
   { "threadgroup_barrier", "6800" },
   /* wait: 0x38, scoreboard slot in bit 8 */
   { "wait 1", "3801" },
   /* ret: 0x14 in bits 0-6, r1 in bits 9-15 -> 0x14 | 1 << 9 */
   { "ret r1", "1402" },
   { "fadd32 r9, r1.abs, r2.neg", "2aa54246a400" },
   { "iadd r3, r1, 7, lsl 2", "0e0d427200001000" },
   { "imadd r4, r1.sx, r2, u3", "1e11424624860100" },
   { "device_load 0, i32, xy, r14_r15, u0_u1, r2, unsigned", "0571400e00c03200" },
   { "icmpsel ult, r11, r1, r2, r3, 1", "122d424224461030" },
   /* one LOD-mode / interpolation name, two encodings: the operand's form
    * picks lod mode 2 (uniform) or 6 (register), 1 (bias in u9h) or 5,
    * interpolation 1 (immediate sample) or 3 (register); disassembled
    * identically by applegpu's disassemble.py */
   { "texture_sample 0, 0b0000, 0b0, none, x, 0b00, r6l, None, ts0, ss0, tex_2d, r4_r5, lod_min, u7l",
     "3118080e00022100" },
   { "texture_sample 0, 0b0000, 0b0, none, x, 0b00, r6l, None, ts0, ss0, tex_2d, r4_r5, lod_min, r7l",
     "3118080e00026100" },
   { "texture_sample 0, 0b0000, 0b0, none, xy, 0b00, r8_r9, None, ts2, ss1, tex_2d, r4_r5, auto_lod_bias, u9h",
     "3121081302021301" },
   { "texture_sample 0, 0b0000, 0b0, none, xy, 0b00, r8_r9, None, ts2, ss1, tex_2d, r4_r5, auto_lod_bias, r10h",
     "3121081502025301" },
   { "iter r0_r1, cf1, 3, sample, 0b0, 0, 0, 0, 0, 0", "2181018003000100" },
   { "iter r0_r1, cf1, r5l, sample, 0b0, 0, 0, 0, 0, 0", "218101800a000300" },
   { "mov_imm r1, 305419896, 0b0", "620578563412" },
   { "if_icmp r0l, seq, r1, 0, 1", "528842020000" },
   { "jmp_exec_none pc+12", "20c00c000000" },
   /* cmpsel X/Y: bit 8 of a uniform's half index is bit 0 of the type
    * field (applegpu's encoder and pseudocode, Mesa's agx_pack_cmpsel_src);
    * bytes from applegpu's assemble.py, whose disassembler alone drops
    * that bit (tests/unit/test_isa_corpus.c) */
   { "icmpsel seq, r10l, r13l, r15.cache, u0h, u8h", "12285ae029811199" },
   { "icmpsel seq, r10l, r13l, r15.cache, u128h, u8h", "12285ae029c11199" },
   { "icmpsel seq, r10l, r13l, r15.cache, r3l, u255h", "12a85ae02946f09f3000" },
   { "fcmpsel gtn, r10, r13, r15, u64, u8", "02a95ae2258001f98000" },
   /* branch targets as applegpu prints them (instruction at address 0) */
   { "call 0x52B958CC", "10c0cc58b952" },
   { "call 0x-4EB0E777", "10c089184fb1" },
   { "fmadd16 r9l, r1l, r2h, 0.25", "362442500410" },
};

static void
test_golden_bytes(void **state)
{
   (void)state;
   for (unsigned i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
      struct agx_instr in;
      char err[200], hex[32];
      int col;
      uint8_t b[AGX_ISA_MAX_BYTES];
      unsigned len;
      if (!agx_isa_parse(golden[i].text, &in, err, sizeof(err), &col))
         fail_msg("%s: %s", golden[i].text, err);
      assert_int_equal(agx_isa_encode(&in, b, &len), AGX_ISA_OK);
      hex_of(b, len, hex);
      assert_string_equal(hex, golden[i].hex);
   }
}

static void
test_decoded_form(void **state)
{
   (void)state;
   /* fadd32 r9, r1.abs, r2.neg */
   static const uint8_t code[] = { 0x2a, 0xa5, 0x42, 0x46, 0xa4, 0x00 };
   struct agx_instr in;
   uint32_t v;
   assert_int_equal(agx_isa_decode(code, sizeof(code), &in), AGX_ISA_OK);
   assert_int_equal(in.op, AGX_OP_FADD32);
   assert_int_equal(in.length, 6);
   assert_int_equal(in.num_operands, 3);
   assert_int_equal(in.operands[0].type, AGX_OPERAND_REG);
   assert_int_equal(in.operands[0].size, 32);
   assert_int_equal(in.operands[0].value, 9);
   assert_int_equal(in.operands[1].value, 1);
   assert_int_equal(in.operands[1].flags, AGX_OPF_ABS);
   assert_int_equal(in.operands[2].value, 2);
   assert_int_equal(in.operands[2].flags, AGX_OPF_NEG);
   assert_true(agx_instr_field(&in, "S", &v));
   assert_int_equal(v, 0);
   assert_false(agx_instr_field(&in, "nope", &v));
}

static void
test_listing_roundtrip(void **state)
{
   (void)state;
   size_t src_len, dis_len;
   char *src = read_file("tests/data/isa/all.s", &src_len);
   char *dis = read_file("tests/data/isa/all.dis", &dis_len);
   uint8_t *bin = malloc(16384), *bin2 = malloc(16384);
   size_t n, n2;
   char err[300];
   assert_true(agx_isa_assemble(src, src_len, bin, 16384, &n, err, sizeof(err)));
   assert_true(n > 500);

   /* disassembly equals the golden listing (identical to applegpu's) */
   char *text = NULL;
   size_t text_len = 0;
   FILE *mem = open_memstream(&text, &text_len);
   assert_non_null(mem);
   assert_int_equal(agx_disasm_print(mem, bin, n, NULL), n);
   fclose(mem);
   assert_string_equal(text, dis);

   /* and re-assembles to the same bytes */
   assert_true(agx_isa_assemble(text, text_len, bin2, 16384, &n2, err, sizeof(err)));
   assert_int_equal(n2, n);
   assert_memory_equal(bin, bin2, n);

   /* per instruction: decode -> print -> parse -> encode, decode -> encode */
   unsigned count = 0;
   bool seen[AGX_NUM_OPCODES] = { 0 };
   for (size_t p = 0; p < n; count++) {
      struct agx_instr in, re;
      char line[256];
      int col;
      uint8_t b[AGX_ISA_MAX_BYTES], b2[AGX_ISA_MAX_BYTES];
      unsigned len, len2;
      assert_int_equal(agx_isa_decode(bin + p, n - p, &in), AGX_ISA_OK);
      seen[in.op] = true;
      assert_int_equal(agx_isa_encode(&in, b, &len), AGX_ISA_OK);
      assert_int_equal(len, in.length);
      assert_memory_equal(b, bin + p, len);
      agx_isa_print(&in, line, sizeof(line));
      if (!agx_isa_parse(line, &re, err, sizeof(err), &col))
         fail_msg("'%s': %s", line, err);
      assert_int_equal(agx_isa_encode(&re, b2, &len2), AGX_ISA_OK);
      assert_int_equal(len2, len);
      assert_memory_equal(b2, b, len);
      p += len;
   }
   assert_true(count > 130);
   for (unsigned op = 0; op < AGX_NUM_OPCODES; op++) {
      if (!seen[op] && op != AGX_OP_BITOP)
         fail_msg("opcode %s missing from all.s", agx_isa_op_name((enum agx_isa_opcode)op));
   }
   free(text);
   free(bin);
   free(bin2);
   free(src);
   free(dis);
}

static void
test_minifloat(void **state)
{
   (void)state;
   for (unsigned i = 0; i < 256; i++) {
      /* documented: sign, 3-bit exponent, 4-bit fraction; exponent 0 is
       * fraction/64, otherwise (16 + fraction) * 2^(exponent - 7) */
      unsigned e = (i >> 4) & 7, f = i & 15;
      double want = e ? ldexp(16.0 + f, (int)e - 7) : f / 64.0;
      if (i & 0x80)
         want = -want;
      float got = agx_minifloat_decode((uint8_t)i);
      assert_true((double)got == want);
      uint8_t raw;
      assert_true(agx_minifloat_encode(got, &raw));
      assert_int_equal(raw, i);
   }
   uint8_t raw;
   assert_false(agx_minifloat_encode(0.3f, &raw));
   assert_false(agx_minifloat_encode(32.0f, &raw));
   assert_true(agx_minifloat_encode(31.0f, &raw));
   assert_int_equal(raw, 0x7f);
   assert_true(agx_minifloat_encode(-0.5f, &raw));
   assert_int_equal(raw, 0xa0);
}

static void
test_errors(void **state)
{
   (void)state;
   struct agx_instr in;
   char err[200];
   int col;
   assert_false(agx_isa_parse("bogus r0, r1", &in, err, sizeof(err), &col));
   assert_int_equal(col, 0);
   assert_non_null(strstr(err, "unknown mnemonic"));
   assert_false(agx_isa_parse("  fadd32 r0, r1, banana", &in, err, sizeof(err), &col));
   assert_int_equal(col, 17);
   assert_false(agx_isa_parse("fadd32 r0, r1", &in, err, sizeof(err), &col));
   assert_non_null(strstr(err, "missing"));
   assert_false(agx_isa_parse("wait 2", &in, err, sizeof(err), &col));
   assert_false(agx_isa_parse("stop r0", &in, err, sizeof(err), &col));
   assert_false(agx_isa_parse("   ; only a comment", &in, err, sizeof(err), &col));
   assert_int_equal(col, -1);

   uint8_t out[64];
   size_t n;
   char msg[300];
   const char *bad = "stop\nfadd32 r0, r1, 300\n";
   assert_false(agx_isa_assemble(bad, strlen(bad), out, sizeof(out), &n, msg, sizeof(msg)));
   assert_non_null(strstr(msg, "2:16:"));
   const char *nolabel = "jmp_exec_any pc+nowhere\n";
   assert_false(agx_isa_assemble(nolabel, strlen(nolabel), out, sizeof(out), &n, msg, sizeof(msg)));
   assert_non_null(strstr(msg, "unknown label"));
}

/* Operand forms an enum value selects: the chosen value and its decoded
 * operand agree, and a form the name has no encoding for is an error. */
static void
test_operand_forms(void **state)
{
   (void)state;
   static const char *pre =
      "texture_sample 0, 0b0000, 0b0, none, x, 0b00, r6l, None, ts0, ss0, tex_2d, r4_r5, ";
   static const struct { const char *tail; int lod; unsigned file; } cases[] = {
      { "lod_min, r7l", 6, AGX_FILE_GPR },
      { "lod_min, u7l", 2, AGX_FILE_UNIFORM },
      { "auto_lod_bias, r0h", 5, AGX_FILE_GPR },
      { "auto_lod_bias, u127h", 1, AGX_FILE_UNIFORM },
      { "auto_lod_bias, u128l", -1, 0 },   /* past the 8-bit field */
      { "lod_grad, r8_r9_r10_r11", 4, AGX_FILE_GPR },
      { "lod_grad_min, r8_r9_r10_r11_r12", 12, AGX_FILE_GPR },
      /* no encoding of these names takes that form */
      { "auto_lod, r7l", -1, 0 },
      { "lod_min, r7", -1, 0 },
      { "lod_grad, u7l", -1, 0 },
      { "lod_min, 0", -1, 0 },
   };
   for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      char line[256], err[200];
      struct agx_instr in;
      int col;
      uint32_t lod;
      snprintf(line, sizeof(line), "%s%s", pre, cases[i].tail);
      bool ok = agx_isa_parse(line, &in, err, sizeof(err), &col);
      if (cases[i].lod < 0) {
         if (ok)
            fail_msg("'%s' was accepted", cases[i].tail);
         continue;
      }
      if (!ok)
         fail_msg("'%s': %s", cases[i].tail, err);
      assert_true(agx_instr_field(&in, "lod", &lod));
      assert_int_equal(lod, cases[i].lod);
      const struct agx_operand *d = &in.operands[in.num_operands - 2];
      assert_int_equal(d->type, AGX_OPERAND_REG);
      assert_int_equal(d->file, cases[i].file);
   }

   /* iter's sample index: immediate -> interpolation 1, register -> 3, and
    * the enum operand (printed after it) keeps that choice */
   struct agx_instr in;
   char err[200];
   int col;
   uint32_t v;
   assert_true(agx_isa_parse("iter r0_r1, cf1, r5l, sample, 0b0, 0, 0, 0, 0, 0", &in, err,
                             sizeof(err), &col));
   assert_true(agx_instr_field(&in, "interpolation", &v));
   assert_int_equal(v, 3);
   assert_true(agx_isa_parse("iter r0_r1, cf1, 5, sample, 0b0, 0, 0, 0, 0, 0", &in, err,
                             sizeof(err), &col));
   assert_true(agx_instr_field(&in, "interpolation", &v));
   assert_int_equal(v, 1);
   assert_false(agx_isa_parse("iter r0_r1, cf1, u5l, sample, 0b0, 0, 0, 0, 0, 0", &in, err,
                              sizeof(err), &col));
}

/* Disassembles code at pc through agx_disasm_print (one line, no newline). */
static void
disasm_at(const uint8_t *code, size_t n, uint64_t pc, char *out, size_t cap)
{
   char *text = NULL;
   size_t len = 0;
   FILE *mem = open_memstream(&text, &len);
   struct agx_disasm_options o = { .pc = pc };
   agx_disasm_print(mem, code, n, &o);
   fclose(mem);
   snprintf(out, cap, "%.*s", (int)strcspn(text, "\n"), text);
   free(text);
}

/* Branch targets: applegpu's disassembler prints the absolute target
 * '0x%X' % (pc + offset), negative ones as 0x-N; the assembler takes that
 * form at the same address as well as pc+N / pc-N. */
static void
test_branch_targets(void **state)
{
   (void)state;
   static const uint8_t jmp12[] = { 0x20, 0xc0, 0x0c, 0x00, 0x00, 0x00 };   /* pc+12 */
   static const uint8_t callm[] = { 0x10, 0xc0, 0x89, 0x18, 0x4f, 0xb1 };   /* pc-0x4EB0E777 */
   struct agx_instr in;
   char line[128], err[200];
   int col;
   uint8_t b[AGX_ISA_MAX_BYTES];
   unsigned len;

   disasm_at(jmp12, sizeof(jmp12), 0x100, line, sizeof(line));
   assert_string_equal(line, "jmp_exec_none    0x10C");
   disasm_at(callm, sizeof(callm), 0, line, sizeof(line));
   assert_string_equal(line, "call             0x-4EB0E777");
   disasm_at(callm, sizeof(callm), 0x150000000, line, sizeof(line));
   assert_string_equal(line, "call             0x1014F1889");
   /* without an address: applegpu's relative form */
   assert_int_equal(agx_isa_decode(callm, sizeof(callm), &in), AGX_ISA_OK);
   agx_isa_print(&in, line, sizeof(line));
   assert_string_equal(line, "call             pc-1320216439");
   /* Python integers neither wrap nor lose the sign */
   agx_isa_target_text(UINT64_MAX - 0xff, 0x200, line, sizeof(line));
   assert_string_equal(line, "0x10000000000000100");
   agx_isa_target_text(0, INT64_MIN, line, sizeof(line));
   assert_string_equal(line, "0x-8000000000000000");

   /* the assembler: absolute targets at the instruction's address */
   static const struct { const char *text; uint64_t pc; const char *hex; } ok[] = {
      { "jmp_exec_none 0x10C", 0x100, "20c00c000000" },
      { "jmp_exec_none 0x10c", 0x100, "20c00c000000" },
      { "jmp_exec_none pc+12", 0x100, "20c00c000000" },
      { "jmp_exec_none 0xF4", 0x100, "20c0f4ffffff" },
      { "call 0x-4EB0E777", 0, "10c089184fb1" },
      { "call 0x-10", 0x10, "10c0e0ffffff" },
      { "jmp_exec_any 0x1500000000", 0x1500000000, "00c000000000" },
   };
   for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
      char hex[32];
      if (!agx_isa_parse_at(ok[i].text, ok[i].pc, &in, err, sizeof(err), &col))
         fail_msg("%s: %s", ok[i].text, err);
      assert_int_equal(agx_isa_encode(&in, b, &len), AGX_ISA_OK);
      hex_of(b, len, hex);
      assert_string_equal(hex, ok[i].hex);
   }
   static const struct { const char *text; uint64_t pc; } bad[] = {
      { "jmp_exec_none 0x80000000", 0 },           /* offset past 2^31 - 1 */
      { "jmp_exec_none 0x-80000001", 0 },
      { "jmp_exec_none 0x0", 0x80000001 },
      { "jmp_exec_none 0x-", 0 },
      { "jmp_exec_none 0x12g", 0 },
      { "jmp_exec_none 0x11111111111111111", 0 },  /* 17 digits */
      { "jmp_exec_none 0x-FFFFFFFFFFFFFFFF", 2 },
      { "jmp_exec_none 12", 0 },
   };
   for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      if (agx_isa_parse_at(bad[i].text, bad[i].pc, &in, err, sizeof(err), &col))
         fail_msg("accepted '%s'", bad[i].text);
      assert_int_equal(col, 14);
   }

   /* a listing disassembled at a base re-assembles at that base */
   static const char src[] = "top:\nmov_imm r0l, 1\njmp_exec_any pc+top\n"
                             "jmp_exec_none pc+end\ncall pc-64\nend:\nstop\n";
   uint8_t bin[64], bin2[64];
   size_t n, n2;
   assert_true(agx_isa_assemble(src, strlen(src), bin, sizeof(bin), &n, err, sizeof(err)));
   char *text = NULL;
   size_t tlen = 0;
   FILE *mem = open_memstream(&text, &tlen);
   struct agx_disasm_options o = { .pc = 0x1234560 };
   agx_disasm_print(mem, bin, n, &o);
   fclose(mem);
   assert_non_null(strstr(text, "jmp_exec_any     0x1234560\n"));
   assert_non_null(strstr(text, "call             0x1234530\n"));
   assert_true(agx_isa_assemble_at(text, tlen, 0x1234560, bin2, sizeof(bin2), &n2, err,
                                   sizeof(err)));
   assert_int_equal(n2, n);
   assert_memory_equal(bin, bin2, n);
   /* at another base the absolute targets move, so the bytes differ */
   assert_true(agx_isa_assemble_at(text, tlen, 0x1234000, bin2, sizeof(bin2), &n2, err,
                                   sizeof(err)));
   assert_memory_not_equal(bin, bin2, n);
   free(text);
}

static void
test_decode_bad(void **state)
{
   (void)state;
   struct agx_instr in;
   static const uint8_t fadd_short[] = { 0x2a, 0xa5 };   /* needs 6 bytes */
   assert_int_equal(agx_isa_decode(fadd_short, 2, &in), AGX_ISA_TRUNCATED);
   static const uint8_t zero[] = { 0, 0 };
   assert_int_equal(agx_isa_decode(zero, 2, &in), AGX_ISA_UNKNOWN);

   char *text = NULL;
   size_t len = 0;
   FILE *mem = open_memstream(&text, &len);
   static const uint8_t code[] = { 0x00, 0x00, 0x88, 0x00, 0x08, 0x00, 0x2a };
   struct agx_disasm_options o = { .pc = 0x1000, .stop_at_end = true, .indent = "  ", .show_bytes = true };
   assert_int_equal(agx_disasm_print(mem, code, sizeof(code), &o), 4);
   fclose(mem);
   assert_string_equal(text, "  1000: 0000                 .word 0x0000\n"
                             "  1002: 8800                 stop\n");
   free(text);

   text = NULL;
   mem = open_memstream(&text, &len);
   assert_int_equal(agx_disasm_print(mem, code + 4, 3, NULL), 3);
   fclose(mem);
   assert_string_equal(text, "trap\n.byte 0x2a\n");
   free(text);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_golden_bytes),
      cmocka_unit_test(test_decoded_form),
      cmocka_unit_test(test_listing_roundtrip),
      cmocka_unit_test(test_minifloat),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_operand_forms),
      cmocka_unit_test(test_branch_targets),
      cmocka_unit_test(test_decode_bad),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
