/* SPDX-License-Identifier: MIT */
/*
 * The USC native path against the interpreter (its reference): every op
 * the native path translates runs in a small shader on random lanes rich
 * in ±0, denormals, infinities, NaNs (quiet and signalling payloads),
 * values around 1 and half-precision specials in both 16-bit halves, with
 * a random number of present lanes, once interpreted (native off) and once
 * native; every register of every lane and the statistics must be equal,
 * and the op must really have been translated.  Memory is the flat test
 * double of test_hw_usc_mmu.c.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "hw/usc/hw_usc.h"
#include "hw/usc/hw_usc_internal.h"
#include "hw/hw_mmu.h"
#include "cmdstream/isa/agx_isa.h"

#define TEST_GPU_BASE 0x100000000ull
extern uint8_t usc_test_mem[];

#define BUF(i) (0x100000u + (i) * 0x1000u)
#define GPU(off) (TEST_GPU_BASE + (off))

static uint32_t cap[HW_USC_NUM_GPRS][HW_USC_SIMD_WIDTH];

static void
capture(void *user, const struct hw_usc_simd *s)
{
   (void)user;
   for (unsigned r = 0; r < HW_USC_NUM_GPRS; r++)
      for (unsigned l = 0; l < HW_USC_SIMD_WIDTH; l++)
         cap[r][l] = hw_usc_simd_read32(s, r, l);
}

/* Loads r2..r5 (lane-indexed) from four buffers, runs the op under test
 * (record 7, or 8 inside a divergent if: the exec mask then has holes
 * anywhere) and followers that read its result in the same run. */
static const char preamble[] =
   "get_sr r1, sr52\n"
   "device_load 0, i32, x, r2, u0_u1, r1, unsigned\n"
   "device_load 0, i32, x, r3, u2_u3, r1, unsigned\n"
   "device_load 0, i32, x, r4, u4_u5, r1, unsigned\n"
   "device_load 0, i32, x, r5, u6_u7, r1, unsigned\n"
   "wait 0\n"
   "mov_imm r9, 2779096485, 0b0\n";
static unsigned op_record;

static const char *const ops[] = {
   "mov_imm r10, 305419896, 0b0", "mov_imm r10h, 4660", "mov_imm r10l, 65535",
   "iadd r10, r2, r3", "isub r10, r2, r3", "iadd r10, r2, r3, lsl 2",
   "iadd r10, r2, r3, lsl 4", "iadd r10, r2l.sx, r3h", "iadd r10, r2l, r3h.sx",
   "iadd r10l, r2l, r3h", "iadd r10h, r2h.sx, 77", "iadd r10, r2, u8",
   "iadd r10, r2, u8l.sx", "imadd r10, r2, r3, r4", "imadd r10, r2.sx, r3, r4, lsl 1",
   "imadd r10l, r2l, r3h, r4l", "imsub r10, r2, r3, r4",
   "and r10, r2, r3", "or r10, r2, r3", "xor r10, r2, r3", "not r10, r2",
   "bitop 0010, r10, r2, r3", "bitop 0001, r10, r2l, r3l", "bitop 1001, r10h, r2l, r3",
   "bitop 0011, r10, r2h, r3", "and r10, r2, u9", "or r10, r2, 77",
   "fadd32 r10, r2, r3", "fmul32 r10, r2, r3", "fmadd32 r10, r2, r3, r4",
   "fadd32.sat r10, r2, r3", "fmul32.sat r10, r2, r3", "fmadd32.sat r10, r2, r3, r4",
   "fadd32 r10, r2.abs, r3.neg", "fmul32 r10, r2.neg, r3.abs", "fmadd32 r10, r2, r3.neg, r4.abs",
   "fmul32 r10, r2, -2.0", "fadd32 r10, r2, 0.5", "fadd32 r10, r2l, r3h",
   "fmul32 r10, r2h, r3", "fmadd32 r10, r2l, r3h, r4l", "fadd32 r10, r2, u8",
   "fmul32 r10, u9, r3", "fmadd32 r10, r2, u8h, u9",
   "fadd16 r10l, r2l, r3h", "fmul16 r10h, r2h, r3l", "fmadd16 r10l, r2l, r3h, r4l",
   "fadd16.sat r10l, r2l, r3h", "fmul16.sat r10h, r2l.neg, r3h", "fmadd16.sat r10l, r2l.neg, r3h.abs, r4l",
   "fmadd16 r10h, r2h, r3h, r4h.neg", "fmul16 r10l, u8l, r3h", "fadd16 r10l, r2l, 0.5",
   "fmadd16 r10l, r2l, u9h, 1.0", "fadd32 r10l, r2, r3", "fadd32.sat r10h, r2, r3",
   "fmadd32 r10l, r2, r3, r4", "fmul32 r10h, r2l, r3h",
   "fcmpsel eq, r10, r2, r3, r4, r5", "fcmpsel lt, r10, r2, r3, r4, r5",
   "fcmpsel gt, r10, r2, r3, r4, r5", "fcmpsel ltn, r10, r2, r3, r2, r3",
   "fcmpsel gte, r10, r2, r3, r4, r5", "fcmpsel lte, r10, r2, r3, r4, r5",
   "fcmpsel gtn, r10, r2, r3, r2, r3",
   "fcmpsel lte, r10, r2.abs, r3.neg, r4, r5","fcmpsel lt, r10, r2l, r3h, r4, r5",
   "fcmpsel gt, r10l, r2, u8, r4l, r5h", "fcmpsel lt, r10, r2, 0.5, 1, 0",
   "icmpsel ueq, r10, r2, r3, r4, r5", "icmpsel ult, r10, r2, r3, r4, r5",
   "icmpsel ugt, r10, r2, r3, r4, r5", "icmpsel seq, r10, r2, r3, r4, r5",
   "icmpsel slt, r10, r2, r3, r4, r5", "icmpsel sgt, r10, r2, r3, r4, r5",
   "icmpsel slt, r10, r2l, r3h, r4, r5", "icmpsel ult, r10h, r2l, r3h, r4l, r5h",
   "icmpsel slt, r10, r2, u8, r4, r5", "icmpsel ugt, r10, r2l, 100, 1, 0",
   "get_sr r10, sr52", "get_sr r10, sr48", "get_sr r10, sr49", "get_sr r10, sr50",
   "get_sr r10, sr51", "get_sr r10, sr53", "get_sr r10, sr56", "get_sr r10, sr58",
   "get_sr r10, sr63", "get_sr r10l, sr58", "get_sr r10h, sr63", "get_sr r10, sr80",
   "get_sr r10, sr0", "get_sr r10, sr4", "get_sr r10, sr8", "get_sr r10, sr20",
   "convert f_to_s32, r10, r2, rtz", "convert f_to_s32, r10, r2, rte",
   "convert f_to_u32, r10, r2, rtz", "convert f_to_u32, r10, r2, rte",
   "convert f_to_u16, r10l, r2, rtz", "convert f_to_s16, r10h, r2, rte",
   "convert f_to_s32, r10, r2l, rte", "convert f_to_u16, r10, r2h, rtz",
   "convert f_to_s16, r10, u8, rte", "convert u32_to_f, r10, r2, rte",
   "convert u32_to_f, r10, r2, rtz", "convert s32_to_f, r10, r2, rtz",
   "convert s32_to_f, r10, r2, rte", "convert s16_to_f, r10l, r2l, rte",
   "convert u16_to_f, r10, r2h, rtz", "convert s16_to_f, r10, r2l, rtz",
   "convert u8_to_f, r10h, r2l, rte", "convert s8_to_f, r10, r2h, rtz",
   "convert s32_to_f, r10h, r2, rte", "convert u32_to_f, r10, u9, rtz",
};

static uint32_t rng_state;

static uint32_t
rnd(void)
{
   /* xorshift32: reproducible from the seed printed on failure */
   uint32_t x = rng_state;
   x ^= x << 13;
   x ^= x >> 17;
   x ^= x << 5;
   return rng_state = x;
}

static uint16_t
rnd_half(void)
{
   static const uint16_t sp[] = { 0x0000, 0x8000, 0x0001, 0x83ff, 0x0400, 0x7bff, 0x7c00,
                                  0xfc00, 0x7e00, 0x7c01, 0xfe55, 0x3c00, 0xbc00, 0x3bff };
   return (rnd() & 1) ? sp[rnd() % (sizeof(sp) / sizeof(sp[0]))] : (uint16_t)rnd();
}

static uint32_t
rnd_value(void)
{
   switch (rnd() % 12) {
   case 0: return rnd() & 0x80000000u;                        /* ±0 */
   case 1: return (rnd() & 0x807fffffu) | 1;                  /* denormal */
   case 2: return (rnd() & 0x80000000u) | 0x7f800000u;        /* ±inf */
   case 3: return (rnd() & 0x80000000u) | 0x7f800000u | (rnd() & 0x7fffff) | 1; /* NaN */
   case 4: return 0x3f800000u + (rnd() % 5) - 2;              /* around 1 */
   case 5: return (rnd() & 0x80ffffffu) | 0x3f000000u;        /* [0.5, 2) */
   case 6: return (rnd() & 0x80000000u) | 0x00800000u | (rnd() & 0xff); /* tiny normal */
   case 7: return (rnd() & 0x80000000u) | 0x7f000000u | (rnd() & 0x7fffff); /* huge */
   case 8: return (uint32_t)rnd_half() | (uint32_t)rnd_half() << 16;
   case 9: return rnd() % 8 - 4;                              /* small ints */
   case 10: return rnd() & 0x8000ffffu;
   default: return rnd();
   }
}

struct outcome {
   uint32_t r[HW_USC_NUM_GPRS][HW_USC_SIMD_WIDTH];
   struct hw_usc_stats st;
   unsigned native_records;
   bool op_native;
};

static struct hw_usc_shader *
compile_mode(const uint8_t *code, size_t len, int mode)
{
   memcpy(usc_test_mem, code, len);
   char err[160];
   struct hw_usc_shader *sh = hw_usc_compile(code, len, GPU(0), err, sizeof(err));
   if (!sh)
      fail_msg("compile failed: %s", err);
   /* the mode applies to shaders not compiled yet: this one */
   usc_native_set_mode(mode);
   return sh;
}

/* op's program src as two shaders: *interp never translated (the
 * reference; its native entry asked once, so it stays off), *native
 * translated at its first launch. */
static void
compile_pair(const char *op, const char *src, struct hw_usc_shader **interp,
             struct hw_usc_shader **native)
{
   static uint8_t code[4096];
   size_t len = 0;
   char err[160];
   if (!agx_isa_assemble(src, strlen(src), code, sizeof(code), &len, err, sizeof(err)))
      fail_msg("%s: assembly failed: %s", op, err);
   *interp = compile_mode(code, len, 0);
   (void)usc_native_get(*interp);
   *native = compile_mode(code, len, 2);
}

/* Helper lanes of the next run (hw_usc_simd_set_helpers): is_active_thread
 * (sr63) reads 0 in them, inline in native code as in the interpreter. */
static uint32_t run_helpers;

static void
set_helpers(void *user, struct hw_usc_simd *s)
{
   (void)user;
   hw_usc_simd_set_helpers(s, run_helpers);
}

static void
run_shader(struct hw_usc_shader *sh, unsigned threads, const uint32_t *uni,
           struct outcome *out)
{
   struct hw_usc_launch L = {
      .shader = sh, .uniforms = uni, .gpr_count = 128,
      .threads_per_threadgroup = { threads, 1, 1 }, .finish_hook = capture,
      .start_hook = set_helpers,
   };
   struct hw_usc_workgroup wg = { 0 };
   struct hw_mmu mmu;
   hw_mmu_init(&mmu, NULL, 1, HW_UNIT_USC);
   memset(cap, 0xcd, sizeof(cap));
   memset(&out->st, 0, sizeof(out->st));
   struct hw_usc_result res;
   enum hw_usc_status st = hw_usc_run_workgroup(&L, &wg, &mmu, &out->st, &res);
   if (st != HW_USC_OK)
      fail_msg("run failed: %s", res.message);
   memcpy(out->r, cap, sizeof(cap));
   const struct usc_native *nat = usc_native_get(sh);
   out->native_records = 0;
   out->op_native = false;
   if (nat) {
      out->native_records = nat->nrecords;
      for (unsigned i = 0; i <= op_record && i < sh->count; i++)
         if (nat->at[i] && nat->at[i]->end > op_record)
            out->op_native = true;
   }
}

static void
run_mode(const uint8_t *code, size_t len, int mode, unsigned threads, const uint32_t *uni,
         struct outcome *out)
{
   struct hw_usc_shader *sh = compile_mode(code, len, mode);
   run_shader(sh, threads, uni, out);
   hw_usc_shader_free(sh);
}

static void
test_ops_match_interpreter(void **state)
{
   (void)state;
   static struct outcome a, b;
   char src[1024];
   for (unsigned k = 0; k < 2 * sizeof(ops) / sizeof(ops[0]); k++) {
      const char *op = ops[k / 2];
      bool divergent = k & 1;
      snprintf(src, sizeof(src), "%s%s%s\nxor r12, r10, r3\nfadd32 r13, r10, r2\n%sstop\n",
               preamble, divergent ? "if_icmp r0l, ugt, r2, r3, 1\n" : "", op,
               divergent ? "pop_exec r0l, 1\n" : "");
      op_record = divergent ? 8 : 7;
      /* one compile per mode, many inputs */
      struct hw_usc_shader *interp, *native;
      compile_pair(op, src, &interp, &native);
      for (unsigned seed = 1; seed <= 64; seed++) {
         rng_state = seed * 2654435761u + k / 2;
         uint32_t uni[HW_USC_NUM_UNIFORMS] = { 0 };
         for (unsigned i = 0; i < 4; i++) {
            uint64_t va = GPU(BUF(i));
            uni[2 * i] = (uint32_t)va;
            uni[2 * i + 1] = (uint32_t)(va >> 32);
            for (unsigned l = 0; l < 32; l++) {
               uint32_t v = rnd_value();
               memcpy(usc_test_mem + BUF(i) + 4 * l, &v, 4);
            }
         }
         uni[8] = rnd_value();
         uni[9] = rnd_value();
         unsigned threads = seed % 4 == 0 ? 1 + rnd() % 32 : 32;
         run_helpers = seed % 2 ? rnd() : 0;
         run_shader(interp, threads, uni, &a);
         run_shader(native, threads, uni, &b);
         if (!b.op_native)
            fail_msg("%s: not translated by the native path", op);
         for (unsigned r = 0; r < HW_USC_NUM_GPRS; r++)
            for (unsigned l = 0; l < 32; l++)
               if (a.r[r][l] != b.r[r][l])
                  fail_msg("%s (%s, seed %u, %u threads): r%u lane %u: interpreter 0x%08x, "
                           "native 0x%08x (inputs 0x%08x 0x%08x 0x%08x 0x%08x u8 0x%08x "
                           "u9 0x%08x)", op, divergent ? "in an if" : "straight", seed, threads, r, l, a.r[r][l], b.r[r][l],
                           a.r[2][l], a.r[3][l], a.r[4][l], a.r[5][l], uni[8], uni[9]);
         assert_memory_equal(&a.st, &b.st, sizeof(a.st));
      }
      hw_usc_shader_free(interp);
      hw_usc_shader_free(native);
   }
   usc_native_set_mode(2);
}

/*
 * Rounding to half where it is hardest: the native path rounds through
 * the host's float -> half conversion (round to odd to float first,
 * hw_usc_native.c f64_to_f16_hw), which must give the interpreter's single
 * rounding to nearest even for every value.  Inputs sit on and beside the
 * half midpoints, where a double rounding would go wrong: every half as
 * the first operand of fadd16/fmul16/fmadd16, second operands a random
 * number of binades below it (sums that need more than float's 24 bits),
 * fma addends a product's half ulp away (a*b + c within a float ulp of a
 * midpoint: a plain float fma then to half rounds those wrong), floats
 * and integers a few float ulps around midpoints, the overflow threshold
 * 65520 and the denormal range.
 */
static uint16_t
half_near(unsigned e)   /* a random half of biased exponent e (1..30), random sign */
{
   return (uint16_t)((rnd() & 0x8000u) | (e << 10) | (rnd() & 0x3ffu));
}

static unsigned
clamp_e(int e)
{
   return e < 1 ? 1 : e > 30 ? 30 : (unsigned)e;
}

/* a float within a few ulps of the midpoint above a random half */
static uint32_t
f32_near_midpoint(void)
{
   uint16_t h = (uint16_t)(rnd() % 0x7c00u);
   float lo = hw_usc_f16_to_f32(h), hi = hw_usc_f16_to_f32((uint16_t)(h + 1));
   float m = lo + (hi - lo) / 2;   /* exact: one more bit than a half */
   uint32_t u;
   memcpy(&u, &m, 4);
   u += rnd() % 7 - 3;
   return u | (rnd() & 0x80000000u);
}

static void
test_f16_rounding(void **state)
{
   (void)state;
   static struct outcome a, b;
   static const char *const fops[] = {
      "fadd16 r10l, r2l, r3l", "fmul16 r10l, r2l, r3l", "fmadd16 r10l, r2l, r3l, r4l",
      "fadd16.sat r10h, r2l, r3l.neg", "fmadd16.sat r10h, r2l, r3l, r4l",
      "fmadd16 r10l, r2l, r3l, r4l.neg", "fadd32 r10l, r2, r3", "fmadd32 r10h, r2, r3, r4",
      "convert s32_to_f, r10l, r5, rte", "convert u32_to_f, r10h, r5, rte",
   };
   char src[1024];
   for (unsigned k = 0; k < sizeof(fops) / sizeof(fops[0]); k++) {
      const char *op = fops[k];
      bool f32 = !strncmp(op, "fadd32", 6) || !strncmp(op, "fmadd32", 7);
      snprintf(src, sizeof(src), "%s%s\nstop\n", preamble, op);
      op_record = 7;
      struct hw_usc_shader *interp, *native;
      compile_pair(op, src, &interp, &native);
      for (unsigned g = 0; g < 2048; g++) {
         rng_state = g * 2654435761u + 977 * k + 1;
         uint32_t uni[HW_USC_NUM_UNIFORMS] = { 0 }, in[4][32];
         for (unsigned l = 0; l < 32; l++) {
            uint16_t x = (uint16_t)(g * 32 + l);   /* every half once */
            unsigned ex = (x >> 10) & 31;
            int ea = ex ? (int)ex : 1;
            /* second operand 0..26 binades below the first */
            uint16_t y = half_near(clamp_e(ea - (int)(rnd() % 27)));
            if (strstr(op, "fmul16"))
               y = half_near(clamp_e(15 + (int)(rnd() % 31) - 15));
            /* fma addend: the product's exponent plus 10..12 (the
             * product then sits around the addend's half ulp) */
            uint16_t ym = half_near(clamp_e(15 + (int)(rnd() % 9) - 4));
            int ep = ea + (int)((ym >> 10) & 31) - 15;
            uint16_t z = half_near(clamp_e(ep + 10 + (int)(rnd() % 3)));
            in[0][l] = x | (uint32_t)rnd() << 16;
            in[1][l] = (strstr(op, "fmadd16") ? ym : y) | (uint32_t)rnd() << 16;
            in[2][l] = z | (uint32_t)rnd() << 16;
            if (f32) {
               in[0][l] = f32_near_midpoint();
               switch (rnd() % 4) {
               case 0: in[1][l] = 0; break;                               /* the value itself */
               case 1: in[1][l] = (rnd() & 0x80000000u) | 0x33000000u | (rnd() & 0xffff); break;
               case 2: in[1][l] = 0x477fe000u + rnd() % 64 - 32; break;   /* ~65520 */
               default: in[1][l] = rnd_value(); break;
               }
               in[2][l] = (rnd() & 1) ? 0x3f800000u : rnd_value();
               if (strncmp(op, "fadd32", 6) && (rnd() & 1))
                  in[1][l] = 0x3f800000u;   /* fma x * 1 + c */
            }
            /* integers around half midpoints (>= 2048 they exist), the
             * overflow threshold and beyond */
            uint32_t sh = rnd() % 22;
            uint32_t iv = ((2048u + (rnd() & 2047u)) << sh) + ((1u << sh) >> 1) + rnd() % 5 - 2;
            in[3][l] = (rnd() % 8 == 0) ? 65520u + rnd() % 33 - 16 : iv;
            if (strstr(op, "s32") && (rnd() & 1))
               in[3][l] = 0u - in[3][l];
         }
         for (unsigned i = 0; i < 4; i++) {
            uint64_t va = GPU(BUF(i));
            uni[2 * i] = (uint32_t)va;
            uni[2 * i + 1] = (uint32_t)(va >> 32);
            memcpy(usc_test_mem + BUF(i), in[i], sizeof(in[i]));
         }
         run_shader(interp, 32, uni, &a);
         run_shader(native, 32, uni, &b);
         if (!b.op_native)
            fail_msg("%s: not translated by the native path", op);
         for (unsigned l = 0; l < 32; l++)
            if (a.r[10][l] != b.r[10][l])
               fail_msg("%s (group %u) lane %u: interpreter 0x%08x, native 0x%08x "
                        "(inputs 0x%08x 0x%08x 0x%08x 0x%08x)", op, g, l, a.r[10][l],
                        b.r[10][l], in[0][l], in[1][l], in[2][l], in[3][l]);
      }
      hw_usc_shader_free(interp);
      hw_usc_shader_free(native);
   }
   usc_native_set_mode(2);
}

/* TESSERA_USC_NATIVE's modes: 0 compiles nothing, 2 at the first launch,
 * 1 once the shader has run enough. */
static void
test_switch_off(void **state)
{
   (void)state;
   static struct outcome a;
   const char *src = "mov_imm r2, 7, 0b0\niadd r3, r2, r2\niadd r4, r3, r2\nstop\n";
   uint8_t code[256];
   size_t len = 0;
   char err[160];
   assert_true(agx_isa_assemble(src, strlen(src), code, sizeof(code), &len, err, sizeof(err)));
   uint32_t uni[HW_USC_NUM_UNIFORMS] = { 0 };
   run_mode(code, len, 0, 32, uni, &a);
   assert_int_equal(a.native_records, 0);
   assert_int_equal(a.r[4][0], 21);
   run_mode(code, len, 2, 32, uni, &a);
   assert_int_equal(a.native_records, 3);
   assert_int_equal(a.r[4][31], 21);
   /* 1 (the default): interpreted until the shader is hot, then native */
   run_mode(code, len, 1, 32, uni, &a);
   assert_int_equal(a.native_records, 0);
   struct hw_usc_shader *sh = compile_mode(code, len, 1);
   unsigned launches = 0;
   do {
      run_shader(sh, 32, uni, &a);
      launches++;
   } while (!a.native_records && launches < 1000000);
   assert_int_equal(a.native_records, 3);
   assert_true(launches > 1000);
   assert_int_equal(a.r[4][31], 21);
   hw_usc_shader_free(sh);
   usc_native_set_mode(2);
}

/* Cached shaders with the same code bytes at different addresses share
 * one compile: with 2 the same code at once; with 1 their work adds up, and
 * once one is compiled the other has it without running more. */
static void
test_shared_code(void **state)
{
   (void)state;
   static struct outcome a, b;
   const char *src = "mov_imm r2, 7, 0b0\niadd r3, r2, r2\niadd r4, r3, r2\nstop\n";
   const char *other = "mov_imm r2, 8, 0b0\niadd r3, r2, r2\niadd r4, r3, r2\nstop\n";
   uint8_t code[256], code2[256];
   size_t len = 0, len2 = 0;
   char err[160];
   assert_true(agx_isa_assemble(src, strlen(src), code, sizeof(code), &len, err, sizeof(err)));
   assert_true(agx_isa_assemble(other, strlen(other), code2, sizeof(code2), &len2, err,
                                sizeof(err)));
   uint32_t uni[HW_USC_NUM_UNIFORMS] = { 0 };
   for (int mode = 2; mode >= 1; mode--) {
      usc_native_set_mode(mode);
      struct hw_usc_cache *c = hw_usc_cache_create();
      assert_non_null(c);
      struct hw_usc_shader *x = (struct hw_usc_shader *)hw_usc_cache_get_bytes(c, GPU(0x1000), code, len, NULL);
      struct hw_usc_shader *y = (struct hw_usc_shader *)hw_usc_cache_get_bytes(c, GPU(0x8000), code, len, NULL);
      struct hw_usc_shader *z = (struct hw_usc_shader *)hw_usc_cache_get_bytes(c, GPU(0x9000), code2, len2, NULL);
      assert_non_null(x);
      assert_non_null(y);
      assert_non_null(z);
      assert_ptr_not_equal(x, y);
      unsigned launches = 0;
      do {   /* alternately: the work of both counts */
         run_shader(launches & 1 ? y : x, 32, uni, &a);
         launches++;
      } while (!a.native_records && launches < 1000000);
      assert_int_equal(a.native_records, 3);
      assert_int_equal(a.r[4][31], 21);
      run_shader(launches & 1 ? y : x, 32, uni, &b);   /* the other one */
      assert_int_equal(b.native_records, 3);
      assert_ptr_equal(usc_native_get(x), usc_native_get(y));
      /* different bytes: code of its own (not compiled yet with 1) */
      run_shader(z, 32, uni, &b);
      assert_ptr_not_equal(usc_native_get(z), usc_native_get(x));
      if (mode == 1) {
         assert_true(launches > 1000);
         assert_null(usc_native_get(z));
      } else {
         assert_int_equal(launches, 1);
         assert_int_equal(b.r[4][0], 24);
      }
      hw_usc_cache_destroy(c);
   }
   usc_native_set_mode(2);
}

/* ---- the on-disk cache --------------------------------------------------
 * The test runs with a cache directory of its own (main), so it is
 * hermetic and starts cold. */
static char cache_root[64];

static void
rm_tree(const char *dir)
{
   DIR *d = opendir(dir);
   if (!d)
      return;
   struct dirent *de;
   char p[512];
   while ((de = readdir(d))) {
      if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
         continue;
      snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
      if (unlink(p))
         rm_tree(p);
   }
   closedir(d);
   rmdir(dir);
}

/* The single file in `dir` (fails the test otherwise). */
static void
only_file(const char *dir, char *out, size_t size)
{
   DIR *d = opendir(dir);
   assert_non_null(d);
   unsigned n = 0;
   struct dirent *de;
   while ((de = readdir(d))) {
      if (de->d_name[0] == '.')
         continue;
      snprintf(out, size, "%s/%s", dir, de->d_name);
      n++;
   }
   closedir(d);
   assert_int_equal(n, 1);
}

static void
run_inputs(const uint8_t *code, size_t len, int mode, struct outcome *out)
{
   uint32_t uni[HW_USC_NUM_UNIFORMS] = { 0 };
   rng_state = 12345;
   for (unsigned i = 0; i < 4; i++) {
      uint64_t va = GPU(BUF(i));
      uni[2 * i] = (uint32_t)va;
      uni[2 * i + 1] = (uint32_t)(va >> 32);
      for (unsigned l = 0; l < 32; l++) {
         uint32_t v = rnd_value();
         memcpy(usc_test_mem + BUF(i) + 4 * l, &v, 4);
      }
   }
   uni[8] = rnd_value();
   run_mode(code, len, mode, 32, uni, out);
}

static void
assert_same(const struct outcome *a, const struct outcome *b)
{
   assert_memory_equal(a->r, b->r, sizeof(a->r));
   assert_memory_equal(&a->st, &b->st, sizeof(a->st));
}

/* A cached object gives what a fresh compile and the interpreter give; a
 * corrupt, truncated or foreign file is rejected and compiled again; an
 * unwritable directory only costs the store. */
static void
test_disk_cache(void **state)
{
   (void)state;
   static struct outcome interp, fresh, cached;
   char dir[128], file[512];
   snprintf(dir, sizeof(dir), "%s/a/b", cache_root);   /* made on the first store */
   usc_native_set_cache_dir(dir);
   char src[1024];
   snprintf(src, sizeof(src), "%sfmadd32 r10, r2, r3, r4\nfadd32.sat r11, r10, r5\n"
            "imadd r12, r2, r3, r4\nfmul16 r13l, r2l, r3h\nxor r14, r12, r11\nstop\n",
            preamble);
   uint8_t code[4096];
   size_t len = 0;
   char err[160];
   assert_true(agx_isa_assemble(src, strlen(src), code, sizeof(code), &len, err, sizeof(err)));
   struct usc_native_cache_counts c0 = usc_native_cache_get_counts(), c;

   run_inputs(code, len, 0, &interp);
   assert_int_equal(interp.native_records, 0);
   run_inputs(code, len, 2, &fresh);   /* cold: compiled and stored */
   c = usc_native_cache_get_counts();
   assert_int_equal(c.stored, c0.stored + 1);
   assert_int_equal(c.hits, c0.hits);
   assert_int_equal(fresh.native_records, 6);
   assert_same(&interp, &fresh);
   run_inputs(code, len, 2, &cached);   /* warm: loaded (the shader above is freed) */
   c = usc_native_cache_get_counts();
   assert_int_equal(c.hits, c0.hits + 1);
   assert_int_equal(c.stored, c0.stored + 1);
   assert_int_equal(cached.native_records, 6);
   assert_same(&interp, &cached);

   char first[512];
   only_file(dir, first, sizeof(first));
   /* The key is the module's bitcode: a shader whose IR differs from the
    * one above in a single operand (r6 for r5), the same shape and size,
    * gets a key, and an object, of its own -- not the one above, whose
    * code would compute something else -- and that object loads again. */
   {
      static struct outcome vi, vf, vc;
      char vsrc[1024];
      snprintf(vsrc, sizeof(vsrc), "%sfmadd32 r10, r2, r3, r4\nfadd32.sat r11, r10, r6\n"
               "imadd r12, r2, r3, r4\nfmul16 r13l, r2l, r3h\nxor r14, r12, r11\nstop\n",
               preamble);
      uint8_t vcode[4096];
      size_t vlen = 0;
      assert_true(agx_isa_assemble(vsrc, strlen(vsrc), vcode, sizeof(vcode), &vlen, err,
                                   sizeof(err)));
      assert_int_equal(vlen, len);
      struct usc_native_cache_counts b = usc_native_cache_get_counts();
      run_inputs(vcode, vlen, 0, &vi);
      run_inputs(vcode, vlen, 2, &vf);
      c = usc_native_cache_get_counts();
      assert_int_equal(c.stored, b.stored + 1);
      assert_int_equal(c.hits, b.hits);
      assert_int_equal(vf.native_records, 6);
      assert_same(&vi, &vf);
      run_inputs(vcode, vlen, 2, &vc);
      c = usc_native_cache_get_counts();
      assert_int_equal(c.hits, b.hits + 1);
      assert_same(&vi, &vc);
      /* two files now; the variant's goes, for the damage tests below */
      unsigned nfiles = 0;
      DIR *d = opendir(dir);
      assert_non_null(d);
      for (struct dirent *e; (e = readdir(d));) {
         if (e->d_name[0] == '.')
            continue;
         nfiles++;
         char path[600];
         snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
         if (strcmp(path, first))
            assert_int_equal(unlink(path), 0);
      }
      closedir(d);
      assert_int_equal(nfiles, 2);
   }

   /* damaged files: a flipped byte of the object, a truncated file, a
    * foreign file under the name, a header of another key */
   only_file(dir, file, sizeof(file));
   FILE *f = fopen(file, "rb");
   assert_non_null(f);
   static uint8_t good[1 << 20];
   size_t size = fread(good, 1, sizeof(good), f);
   fclose(f);
   assert_true(size > 200 && size < sizeof(good));
   for (unsigned damage = 0; damage < 4; damage++) {
      static uint8_t bad[1 << 20];
      memcpy(bad, good, size);
      size_t bad_size = size;
      if (damage == 0)
         bad[size - 7] ^= 0x20;
      else if (damage == 1)
         bad_size = size / 2;
      else if (damage == 2)
         bad_size = (size_t)snprintf((char *)bad, sizeof(bad), "not an object\n");
      else
         bad[20] ^= 1;   /* inside the key */
      f = fopen(file, "wb");
      assert_non_null(f);
      assert_int_equal(fwrite(bad, 1, bad_size, f), bad_size);
      fclose(f);
      struct usc_native_cache_counts b = usc_native_cache_get_counts();
      run_inputs(code, len, 2, &cached);
      c = usc_native_cache_get_counts();
      assert_int_equal(c.rejected, b.rejected + 1);
      assert_int_equal(c.stored, b.stored + 1);   /* replaced */
      assert_int_equal(c.hits, b.hits);
      assert_int_equal(cached.native_records, 6);
      assert_same(&interp, &cached);
      run_inputs(code, len, 2, &cached);   /* and the replacement loads */
      c = usc_native_cache_get_counts();
      assert_int_equal(c.hits, b.hits + 1);
      assert_same(&interp, &cached);
   }

   /* unwritable: a directory below a regular file (fails even as root) */
   char blocked[600];
   snprintf(blocked, sizeof(blocked), "%s/sub", file);
   usc_native_set_cache_dir(blocked);
   struct usc_native_cache_counts b = usc_native_cache_get_counts();
   run_inputs(code, len, 2, &cached);
   c = usc_native_cache_get_counts();
   assert_int_equal(c.unwritable, b.unwritable + 1);
   assert_int_equal(c.stored, b.stored);
   assert_int_equal(cached.native_records, 6);
   assert_same(&interp, &cached);
   usc_native_set_cache_dir(NULL);   /* off: compiled, nothing stored */
   b = usc_native_cache_get_counts();
   run_inputs(code, len, 2, &cached);
   c = usc_native_cache_get_counts();
   assert_memory_equal(&b, &c, sizeof(b));
   assert_int_equal(cached.native_records, 6);
   assert_same(&interp, &cached);
   char live[128];
   snprintf(live, sizeof(live), "%s/live", cache_root);
   usc_native_set_cache_dir(live);
   usc_native_set_mode(2);
}

/* TESSERA_USC_NATIVE=1 compiles off the critical path: the launch that
 * makes a shader hot hands the compile to the compile thread and goes on
 * interpreting; a later launch runs the code, with the same results.  A
 * shader freed while its compile is queued leaves the job safe (ASan in
 * the sanitizer build), and the synchronous path (async off) still works. */
static void
test_background_compile(void **state)
{
   (void)state;
   static struct outcome a;
   const char *src = "mov_imm r2, 9, 0b0\niadd r3, r2, r2\niadd r4, r3, r2\nstop\n";
   uint8_t code[256];
   size_t len = 0;
   char err[160];
   assert_true(agx_isa_assemble(src, strlen(src), code, sizeof(code), &len, err, sizeof(err)));
   uint32_t uni[HW_USC_NUM_UNIFORMS] = { 0 };
   for (int async = 1; async >= 0; async--) {
      usc_native_set_async(async);
      struct hw_usc_shader *sh = compile_mode(code, len, 1);
      run_shader(sh, 32, uni, &a);
      assert_int_equal(a.native_records, 0);
      assert_int_equal(a.r[4][31], 27);
      usc_native_note(sh, USC_NATIVE_HOT);   /* hot now */
      const struct usc_native *nat = usc_native_get(sh);
      if (async)
         usc_native_wait_idle();
      else
         assert_non_null(nat);   /* compiled on this thread */
      run_shader(sh, 32, uni, &a);
      assert_int_equal(a.native_records, 3);
      assert_int_equal(a.r[4][31], 27);
      hw_usc_shader_free(sh);

      /* freed while queued */
      sh = compile_mode(code, len, 1);
      run_shader(sh, 32, uni, &a);
      usc_native_note(sh, USC_NATIVE_HOT);
      (void)usc_native_get(sh);
      hw_usc_shader_free(sh);
      usc_native_wait_idle();
   }
   usc_native_set_async(true);
   usc_native_set_mode(2);
}

/* ---- the compile thread against exit() and fork() ----------------------
 * These run in a fresh process of this binary (self_run), as the order in
 * which exit handlers were registered is the point: the child's own exit
 * handler is registered before the plugin is loaded, as piglit's teardown
 * (which destroys the GL context) is, so it runs after libLLVM's static
 * destructors.  TESSERA_USC_NATIVE_ASYNC_DELAY_MS holds each queued
 * compile back until the process is in exit() (or has forked). */

static const char async_src[] = "mov_imm r2, 9, 0b0\niadd r3, r2, r2\niadd r4, r3, r2\nstop\n";
static struct hw_usc_shader *child_sh, *child_native_sh;

/* A child's shader of src, its code at GPU(0); NULL, with the reason on
 * stderr, if it does not assemble or compile. */
static struct hw_usc_shader *
child_compile(const char *src)
{
   uint8_t code[256];
   size_t len = 0;
   char err[160];
   if (!agx_isa_assemble(src, strlen(src), code, sizeof(code), &len, err,
                         sizeof(err))) {
      fprintf(stderr, "assembly failed: %s\n", err);
      return NULL;
   }
   memcpy(usc_test_mem, code, len);
   struct hw_usc_shader *sh = hw_usc_compile(code, len, GPU(0), err, sizeof(err));
   if (!sh)
      fprintf(stderr, "compile failed: %s\n", err);
   return sh;
}

/* A hot shader of mode 1 whose compile the thread has queued (and, with
 * the delay, not started). */
static struct hw_usc_shader *
queue_hot_shader_src(const char *src)
{
   struct hw_usc_shader *sh = child_compile(src);
   if (!sh)
      _exit(10);
   usc_native_set_mode(1);
   usc_native_set_async(true);
   (void)usc_native_get(sh);   /* its entry, which counts the work (or the
                                  loader does, test_deferred_load) */
   usc_native_note(sh, USC_NATIVE_HOT);
   if (usc_native_get(sh)) {   /* the delay holds the compile back */
      fprintf(stderr, "compiled at once, not queued\n");
      _exit(12);
   }
   return sh;
}

static struct hw_usc_shader *
queue_hot_shader(void)
{
   return queue_hot_shader_src(async_src);
}

static void
child_exit_handler(void)
{
   /* the queued compile ran (or was dropped) after exit() began */
   usc_native_wait_idle();
   if (usc_native_get(child_sh)) {
      fprintf(stderr, "a compile ran after exit() began\n");
      _exit(3);
   }
   hw_usc_shader_free(child_sh);
}

/* exit() while a compile is queued: the compile must not run on a
 * torn-down libLLVM (it crashed in free() under LLVMInitializeX86Target
 * when it was the process's first compile) */
static int
child_exit_while_queued(void)
{
   atexit(child_exit_handler);   /* before the plugin loads */
   usc_native_set_cache_dir(NULL);   /* no disk cache: a real compile */
   child_sh = queue_hot_shader();
   exit(0);
}

static void
child_free_handler(void)
{
   /* its code is not handed back to the JIT (libLLVM is torn down) */
   hw_usc_shader_free(child_native_sh);
}

/* A shader with code freed by an exit handler registered before the
 * plugin loaded (piglit's teardown destroys the context and its
 * shaders). */
static int
child_free_at_exit(void)
{
   atexit(child_free_handler);
   usc_native_set_cache_dir(NULL);
   child_native_sh = child_compile(async_src);
   if (!child_native_sh)
      return 13;
   usc_native_set_mode(2);
   if (!usc_native_get(child_native_sh))
      return 14;
   exit(0);
}

/* fork() while a compile is queued: the child has no compile thread; its
 * queue must not wait forever, and its own compiles must work */
static int
child_fork_while_queued(void)
{
   usc_native_set_cache_dir(NULL);
   /* The compile thread is started and done with one compile first: a
    * fork while a new thread is still in its start-up can catch that
    * thread inside ASan's allocator (pthread_getattr_np frees), whose
    * locks GCC's libasan does not take across fork, and the child's own
    * new thread then deadlocks there (san builds only; glibc's malloc is
    * fork-safe).  That is not what this test is about: a job queued at
    * the fork. */
   struct hw_usc_shader *warm =
      queue_hot_shader_src("mov_imm r2, 7, 0b0\niadd r3, r2, r2\nstop\n");
   usc_native_wait_idle();
   if (!usc_native_get(warm))
      return 24;
   struct hw_usc_shader *sh = queue_hot_shader();
   pid_t pid = fork();
   if (pid < 0)
      return 20;
   if (pid == 0) {
      alarm(30);   /* a hang fails the test (SIGALRM) */
      usc_native_wait_idle();
      (void)usc_native_get(sh);   /* queued again, to a thread of its own */
      usc_native_wait_idle();
      _exit(usc_native_get(sh) ? 0 : 21);
   }
   int st;
   if (waitpid(pid, &st, 0) != pid)
      return 22;
   usc_native_wait_idle();
   if (!usc_native_get(sh))
      return 23;
   hw_usc_shader_free(sh);
   hw_usc_shader_free(warm);
   return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* Whether this process has mapped the plugin (it, not the loader, links
 * LLVM). */
static bool
plugin_mapped(void)
{
   FILE *f = fopen("/proc/self/maps", "r");
   if (!f)
      return true;
   char line[4096];
   bool found = false;
   while (!found && fgets(line, sizeof(line), f))
      found = strstr(line, "tessera-usc-native.so") != NULL;
   fclose(f);
   return found;
}

/* Settings made before the plugin is loaded: they do not load it (a
 * program that only sets things maps no LLVM) and apply when a shader
 * loads it: here the cache directory (the compile stores its object
 * there) and the async switch (off: the hot shader's code is there at
 * once).  Set after the load, they are forwarded (test_disk_cache,
 * test_background_compile). */
static int
child_settings_before_load(void)
{
   char dir[160];
   snprintf(dir, sizeof(dir), "%s", getenv("TEST_CACHE_DIR"));
   usc_native_set_cache_dir(dir);
   usc_native_set_async(false);
   usc_native_set_mode(1);
   if (plugin_mapped()) {
      fprintf(stderr, "a setting loaded the plugin\n");
      return 30;
   }
   struct usc_native_cache_counts c = usc_native_cache_get_counts();
   if (c.stored || c.hits || plugin_mapped())
      return 31;
   struct hw_usc_shader *sh = child_compile(async_src);
   if (!sh)
      return 32;
   (void)usc_native_get(sh);   /* loads the plugin: mode 1, not hot yet */
   if (!plugin_mapped())
      return 34;
   usc_native_note(sh, USC_NATIVE_HOT);
   if (!usc_native_get(sh)) {
      fprintf(stderr, "async off before the load did not apply\n");
      return 35;
   }
   c = usc_native_cache_get_counts();
   if (c.stored != 1) {
      fprintf(stderr, "the cache directory set before the load did not apply "
              "(%llu stored)\n", (unsigned long long)c.stored);
      return 36;
   }
   DIR *d = opendir(dir);
   if (!d)
      return 37;
   closedir(d);
   hw_usc_shader_free(sh);
   return 0;
}

/* The first request for native code of mode 1 with the background
 * compile on (the defaults) does not load the plugin: until the shaders
 * have run USC_NATIVE_HOT instructions in all, none can be hot, and the
 * load (~20 ms) only stalled the launch that asked.  Once they have, the
 * next request loads it and the shader, hot with the work it did before
 * the load, is compiled.  Mode 2
 * (mode2) loads it at the first request and has the code at once. */
static int
child_deferred_load(bool mode2)
{
   usc_native_set_cache_dir(NULL);
   if (mode2)
      usc_native_set_mode(2);
   struct hw_usc_shader *sh = child_compile(async_src);
   if (!sh)
      return 40;
   if (mode2) {
      if (!usc_native_get(sh) || !plugin_mapped()) {
         fprintf(stderr, "mode 2: no code at the first request\n");
         return 42;
      }
      hw_usc_shader_free(sh);
      return 0;
   }
   if (usc_native_get(sh) || plugin_mapped()) {
      fprintf(stderr, "the first request loaded the plugin\n");
      return 43;
   }
   usc_native_note(sh, USC_NATIVE_HOT - 1);
   if (usc_native_get(sh) || plugin_mapped()) {
      fprintf(stderr, "loaded before USC_NATIVE_HOT instructions\n");
      return 44;
   }
   usc_native_note(sh, 1);
   /* loads it; the shader's work so far counts: hot, its compile queued
    * (held back by the delay) */
   if (usc_native_get(sh) || !plugin_mapped()) {
      fprintf(stderr, "not loaded after USC_NATIVE_HOT instructions\n");
      return 45;
   }
   usc_native_wait_idle();
   if (!usc_native_get(sh)) {
      fprintf(stderr, "no code once hot\n");
      return 46;
   }
   hw_usc_shader_free(sh);
   return 0;
}

/* TESSERA_USC_NATIVE_ASYNC is read once, by the loader, and the plugin
 * follows that value: here 0 at the first request (so the plugin loads
 * at once, load_deferred) and gone from the environment before the
 * shader is hot; the compile must still be synchronous, the code there
 * at once.  A plugin reading the variable itself found it unset then,
 * queued the compile (held back by the delay) and had no code. */
static int
child_async_env_once(void)
{
   usc_native_set_cache_dir(NULL);
   setenv("TESSERA_USC_NATIVE_ASYNC", "0", 1);
   struct hw_usc_shader *sh = child_compile(async_src);
   if (!sh)
      return 50;
   if (usc_native_get(sh) || !plugin_mapped()) {
      fprintf(stderr, "async off: the first request did not load the plugin\n");
      return 51;
   }
   unsetenv("TESSERA_USC_NATIVE_ASYNC");
   usc_native_note(sh, USC_NATIVE_HOT);
   if (!usc_native_get(sh)) {
      fprintf(stderr, "the plugin did not follow the loader's async off\n");
      return 52;
   }
   hw_usc_shader_free(sh);
   return 0;
}

static int
child_deferred_load_mode1(void)
{
   return child_deferred_load(false);
}

static int
child_deferred_load_mode2(void)
{
   return child_deferred_load(true);
}

/* The tests run in a fresh process of this binary (self_run): the
 * argument names the child. */
static const struct {
   const char *arg;
   int (*run)(void);
} children[] = {
   { "--exit-while-queued", child_exit_while_queued },
   { "--settings-before-load", child_settings_before_load },
   { "--free-at-exit", child_free_at_exit },
   { "--fork-while-queued", child_fork_while_queued },
   { "--deferred-load", child_deferred_load_mode1 },
   { "--mode2-load", child_deferred_load_mode2 },
   { "--async-env-once", child_async_env_once },
};

static void
self_run(const char *mode)
{
   char exe[4096];
   ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
   assert_true(n > 0);
   exe[n] = '\0';
   fflush(NULL);
   pid_t pid = fork();
   assert_true(pid >= 0);
   if (pid == 0) {
      setenv("TESSERA_USC_NATIVE_ASYNC_DELAY_MS", "300", 1);
      char dir[160];
      snprintf(dir, sizeof(dir), "%s/settings", cache_root);
      setenv("TEST_CACHE_DIR", dir, 1);
      unsetenv("TESSERA_USC_NATIVE");
      unsetenv("TESSERA_USC_NATIVE_ASYNC");
      alarm(60);
      execl(exe, exe, mode, (char *)NULL);
      _exit(127);
   }
   int st;
   assert_int_equal(waitpid(pid, &st, 0), pid);
   if (!WIFEXITED(st) || WEXITSTATUS(st))
      fail_msg("%s: %s %d", mode, WIFSIGNALED(st) ? "killed by signal" : "exit status",
               WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

static void
test_exit_while_compile_queued(void **state)
{
   (void)state;
   self_run("--exit-while-queued");
}

static void
test_free_at_exit(void **state)
{
   (void)state;
   self_run("--free-at-exit");
}

static void
test_settings_before_load(void **state)
{
   (void)state;
   self_run("--settings-before-load");
}

static void
test_deferred_load(void **state)
{
   (void)state;
   self_run("--deferred-load");
   self_run("--mode2-load");
}

static void
test_fork_while_compile_queued(void **state)
{
   (void)state;
   self_run("--fork-while-queued");
}

static void
test_async_env_read_once(void **state)
{
   (void)state;
   self_run("--async-env-once");
}

int
main(int argc, char **argv)
{
   for (size_t i = 0; argc > 1 && i < sizeof(children) / sizeof(children[0]); i++)
      if (!strcmp(argv[1], children[i].arg))
         return children[i].run();
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_switch_off),
      cmocka_unit_test(test_shared_code),
      cmocka_unit_test(test_ops_match_interpreter),
      cmocka_unit_test(test_f16_rounding),
      cmocka_unit_test(test_disk_cache),
      cmocka_unit_test(test_background_compile),
      cmocka_unit_test(test_exit_while_compile_queued),
      cmocka_unit_test(test_free_at_exit),
      cmocka_unit_test(test_fork_while_compile_queued),
      cmocka_unit_test(test_settings_before_load),
      cmocka_unit_test(test_deferred_load),
      cmocka_unit_test(test_async_env_read_once),
   };
   /* hermetic: a cache directory of the test's own, removed at the end */
   snprintf(cache_root, sizeof(cache_root), "/tmp/test_hw_usc_native.XXXXXX");
   if (!mkdtemp(cache_root)) {
      perror("mkdtemp");
      return 1;
   }
   char live[128];
   snprintf(live, sizeof(live), "%s/live", cache_root);
   usc_native_set_cache_dir(live);
   int rc = cmocka_run_group_tests(tests, NULL, NULL);
   usc_native_shutdown();
   rm_tree(cache_root);
   return rc;
}
