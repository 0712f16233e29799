/* SPDX-License-Identifier: MIT */
/*
 * USC interpreter unit tests.  Shaders are written in AGX assembly and
 * assembled with agx_isa_assemble(); expected values are computed here on
 * the CPU from applegpu's documented semantics (docs.html pseudocode and
 * the exec methods in applegpu.py), cited per test.  GPU memory is the
 * flat test double in test_hw_usc_mmu.c.
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

#include "hw/usc/hw_usc.h"
#include "tessera/bits.h"
#include "tessera/float_bits.h"

#define TEST_GPU_BASE 0x100000000ull
#define TEST_GPU_SIZE (4u << 20)
extern uint8_t usc_test_mem[TEST_GPU_SIZE];
extern unsigned usc_test_maps;   /* hw_mmu_map calls (test_hw_usc_mmu.c) */
extern uint64_t usc_test_ro_page;

/* Memory map of the tests (offsets into the double's buffer). */
#define CODE_OFF 0x000000u
#define BUF_A    0x100000u
#define BUF_B    0x110000u
#define BUF_C    0x120000u
#define BUF_D    0x130000u
#define GPU(off) (TEST_GPU_BASE + (off))

static void *host(uint32_t off) { return usc_test_mem + off; }

static uint32_t
u32_at(uint32_t off)
{
   uint32_t v;
   memcpy(&v, host(off), 4);
   return v;
}


/* Registers of every SIMD group as they were at `stop`. */
static uint32_t cap_r[HW_USC_MAX_SIMDS][HW_USC_NUM_GPRS][HW_USC_SIMD_WIDTH];
static uint32_t cap_u[HW_USC_NUM_UNIFORMS];

static void
capture(void *user, const struct hw_usc_simd *s)
{
   (void)user;
   unsigned i = hw_usc_simd_index(s);
   for (unsigned r = 0; r < HW_USC_NUM_GPRS; r++)
      for (unsigned l = 0; l < HW_USC_SIMD_WIDTH; l++)
         cap_r[i][r][l] = hw_usc_simd_read32(s, r, l);
   for (unsigned u = 0; u < HW_USC_NUM_UNIFORMS; u++)
      cap_u[u] = hw_usc_simd_uniform32(s, u);
}

static uint16_t reg16(unsigned simd, unsigned half, unsigned lane)
{
   return (uint16_t)(cap_r[simd][half >> 1][lane] >> (16 * (half & 1)));
}

struct opts {
   unsigned threads[3];
   unsigned gprs;
   uint32_t uni[HW_USC_NUM_UNIFORMS];
   uint64_t budget;
   uint32_t flags;
   size_t tg_size;
   unsigned stack_per_thread;
   bool soft_faults;
   const volatile int *stop;
   hw_usc_stage_hook hook;
};

static uint8_t tg_mem[65536];
static uint8_t stack_mem[1024 * 64];

static void
opts_default(struct opts *o)
{
   memset(o, 0, sizeof(*o));
   o->threads[0] = 32;
   o->threads[1] = o->threads[2] = 1;
   o->gprs = 128;
   o->uni[0] = (uint32_t)GPU(BUF_A);
   o->uni[1] = (uint32_t)(GPU(BUF_A) >> 32);
   o->uni[2] = (uint32_t)GPU(BUF_B);
   o->uni[3] = (uint32_t)(GPU(BUF_B) >> 32);
   o->uni[4] = (uint32_t)GPU(BUF_C);
   o->uni[5] = (uint32_t)(GPU(BUF_C) >> 32);
   o->uni[6] = (uint32_t)GPU(BUF_D);
   o->uni[7] = (uint32_t)(GPU(BUF_D) >> 32);
}

static size_t
assemble(const char *src, uint8_t *out, size_t cap)
{
   size_t len = 0;
   char err[160];
   bool ok = agx_isa_assemble(src, strlen(src), out, cap, &len, err, sizeof(err));
   if (!ok)
      fail_msg("assembly failed: %s", err);
   return len;
}

static struct hw_usc_stats last_stats;

static enum hw_usc_status
run(const char *src, const struct opts *o, struct hw_usc_result *res)
{
   static uint8_t code[65536];
   size_t len = assemble(src, code, sizeof(code));
   memcpy(host(CODE_OFF), code, len);
   char err[160];
   struct hw_usc_shader *sh = hw_usc_compile(code, len, GPU(CODE_OFF), err, sizeof(err));
   if (!sh)
      fail_msg("compile failed: %s", err);
   struct hw_usc_launch L = {
      .shader = sh, .uniforms = o->uni, .gpr_count = o->gprs,
      .threads_per_threadgroup = { o->threads[0], o->threads[1], o->threads[2] },
      .instruction_budget = o->budget, .flags = o->flags, .stop_flag = o->stop,
      .stage_hook = o->hook, .finish_hook = capture,
   };
   struct hw_usc_workgroup wg = {
      .threadgroup_mem = tg_mem, .threadgroup_mem_size = o->tg_size,
      .stack = stack_mem, .stack_bytes_per_thread = o->stack_per_thread,
   };
   struct hw_mmu mmu;
   hw_mmu_init(&mmu, NULL, 1, HW_UNIT_USC);
   mmu.soft_faults = o->soft_faults;
   memset(cap_r, 0xcd, sizeof(cap_r));
   memset(&last_stats, 0, sizeof(last_stats));
   enum hw_usc_status st = hw_usc_run_workgroup(&L, &wg, &mmu, &last_stats, res);
   hw_usc_shader_free(sh);
   return st;
}

static void
run_ok(const char *src, const struct opts *o)
{
   struct hw_usc_result res;
   enum hw_usc_status st = run(src, o, &res);
   if (st != HW_USC_OK)
      fail_msg("run failed: %s: %s (pc 0x%llx)", hw_usc_status_name(st), res.message,
               (unsigned long long)res.pc);
}

/* What hw_usc.h promises of a successful run's result, whatever the
 * struct held before (run_workgroup/run_preshader no longer zero it all). */
static void
assert_result_ok(const struct hw_usc_result *res)
{
   assert_int_equal(res->status, HW_USC_OK);
   assert_false(res->fault.valid);
   assert_int_equal(res->fault.addr, 0);
   assert_int_equal(res->pc, 0);
   assert_int_equal(res->simd, 0);
   assert_string_equal(res->message, "");
}

/* ---- reference helpers (written from applegpu's pseudocode) ---------- */

static int64_t sx(uint64_t v, unsigned bits)
{
   uint64_t m = 1ull << (bits - 1);
   v &= bits == 64 ? ~0ull : (m << 1) - 1;
   return (int64_t)((v ^ m) - m);
}

/* Nearest half by search over all finite halves (ties to even): an
 * independent check of the interpreter's bit-level rounding. */
static double half_val(uint16_t h)
{
   int e = (h >> 10) & 0x1f, m = h & 0x3ff;
   double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
   return (h & 0x8000) ? -v : v;
}

static uint16_t ref_to_half(double x)
{
   if (isnan(x))
      return 0x7e00;
   uint16_t sign = signbit(x) ? 0x8000 : 0;
   double a = fabs(x);
   if (a >= 65520.0)                 /* halfway to the next binade: inf */
      return sign | 0x7c00;
   uint16_t best = 0;
   double bd = INFINITY;
   unsigned lo = 0, hi = 0x7bff;
   while (lo < hi) {                 /* largest h with value <= a */
      unsigned mid = (lo + hi + 1) / 2;
      if (half_val((uint16_t)mid) <= a) lo = mid; else hi = mid - 1;
   }
   for (unsigned h = lo; h <= lo + 1 && h <= 0x7bff; h++) {
      double d = fabs(half_val((uint16_t)h) - a);
      if (d < bd || (d == bd && !(h & 1))) {
         bd = d;
         best = (uint16_t)h;
      }
   }
   return sign | best;
}

static float ftz(float f)
{
   return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f;
}

/* fp32 result as the hardware stores it: FTZ, canonical NaN. */
static uint32_t ref_f32(float f)
{
   if (isnan(f))
      return 0x7fc00000u;
   return tessera_fui(ftz(f));
}

static uint32_t ref_sat(float f)
{
   if (isnan(f) || signbit(f))
      return 0;
   return tessera_fui(f > 1.0f ? 1.0f : ftz(f));
}

/* ---- half conversions ------------------------------------------------ */

static void
test_half_conversions(void **state)
{
   (void)state;
   /* every half survives half -> float -> half */
   for (unsigned h = 0; h < 0x10000; h++) {
      if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
         continue;
      float f = hw_usc_f16_to_f32((uint16_t)h);
      assert_true((double)f == half_val((uint16_t)h) || ((h & 0x7c00) == 0x7c00));
      assert_int_equal(hw_usc_f32_to_f16(f), h);
   }
   /* rounding: values between halves, ties, denormals, overflow */
   uint32_t seed = 12345;
   for (unsigned i = 0; i < 20000; i++) {
      seed = seed * 1103515245u + 12345u;
      uint32_t b = (seed & 0x8fffffffu) | ((0x60u + (seed >> 27 & 0x1f)) << 23);
      float f = tessera_uif(b);
      assert_int_equal(hw_usc_f32_to_f16(f), ref_to_half(f));
   }
   assert_int_equal(hw_usc_f64_to_f16(1.0 + ldexp(1, -11), false), 0x3c00);  /* tie -> even */
   assert_int_equal(hw_usc_f64_to_f16(1.0 + 3 * ldexp(1, -11), false), 0x3c02);
   assert_int_equal(hw_usc_f64_to_f16(65519.0, false), 0x7bff);
   assert_int_equal(hw_usc_f64_to_f16(65520.0, false), 0x7c00);
   assert_int_equal(hw_usc_f64_to_f16(65520.0, true), 0x7bff);
   assert_int_equal(hw_usc_f64_to_f16(ldexp(1, -25), false), 0x0000);  /* tie to even 0 */
   assert_int_equal(hw_usc_f64_to_f16(ldexp(3, -26), false), 0x0001);
   assert_int_equal(hw_usc_f64_to_f16(-ldexp(1, -24), false), 0x8001);
}

/* ---- integer ALU ------------------------------------------------------ */

static const uint32_t int_a[32] = {
   0, 1, 2, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 0x8000, 0x7fff, 0xffff,
   0x12345678, 0x9abcdef0, 100, 0xffffff9c, 0x40000000, 0xc0000000, 3, 0x55555555,
   0xaaaaaaaa, 0x0000ffff, 0xffff0000, 7, 0x80000001, 0x7ffffffe, 1000000, 0xdeadbeef,
   0x00010000, 0x0fffffff, 42, 0xf0f0f0f0, 0x00ff00ff, 5,
};
static const uint32_t int_b[32] = {
   0, 0xffffffff, 0x7fffffff, 1, 0x80000000, 0xffffffff, 2, 0x8000, 0x7fff, 1,
   0x87654321, 0x11111111, 0xffffff9c, 100, 0x40000000, 0xc0000000, 0x80000000, 0xaaaaaaaa,
   0x55555555, 0xffff0000, 0x0000ffff, 0xfffffff9, 0x80000001, 2, 1000000, 0x12345678,
   0xffff, 0xf0000000, 0xffffffd6, 0x0f0f0f0f, 0xff00ff00, 0xfffffffb,
};

static const char int_shader[] =
   "get_sr r1, sr52\n"
   "device_load 0, i32, x, r2, u0_u1, r1, unsigned\n"
   "device_load 0, i32, x, r3, u2_u3, r1, unsigned\n"
   "wait 0\n"
   "iadd r10, r2, r3\n"
   "isub r11, r2, r3\n"
   "iadd.sat r12, r2, r3\n"
   "iadd.sat r13, r2.sx, r3.sx\n"
   "isub.sat r14, r2, r3\n"
   "iadd r15, r2, r3, lsl 2\n"
   "imadd r16, r2, r3, r1\n"
   "imadd.sat r17, r2.sx, r3.sx, 0\n"
   "iadd r18_r19, r2, r3.sx\n"
   "iadd r20l, r2l, r3l\n"
   "iadd.sat r20h, r2l.sx, r3l.sx\n"
   "and r21, r2, r3\n"
   "or r22, r2, r3\n"
   "xor r23, r2, r3\n"
   "not r24, r2\n"
   "bitop 0010, r25, r2, r3\n"
   "bfi r26, r2, r3, 4, mask 0xFF\n"
   "bfeil r27, r2, r3, 8, mask 0xFFFF\n"
   "extr r28, r2, r3, r1, mask 0xFFFFF\n"
   "shlhi r29, r2, r3, r1, mask 0x7\n"
   "shrhi r30, r2, r3, r1, mask 0x3\n"
   "asr r31, r2, r1\n"
   "asrh r32, r2, r1\n"
   "bitrev r33, r2\n"
   "popcount r34, r2\n"
   "ffs r35, r2\n"
   "intl r36, r2l, r3l\n"
   "mov_imm r37, 305419896, 0b0\n"
   "icmpsel ult, r38, r2, r3, 1, 0\n"
   "icmpsel ugt, r39, r2, r3, 1, 0\n"
   "icmpsel ueq, r40, r2, r3, 1, 0\n"
   "icmpsel slt, r41, r2, r3, 1, 0\n"
   "icmpsel sgt, r42, r2, r3, 1, 0\n"
   "icmpsel seq, r43, r2, r3, r2, r3\n"
   "imadd r44_r45, r2, r3, 0\n"
   "imadd r46_r47, r2.sx, r3.sx, 0\n"
   "mov_imm r48l, 4660\n"
   "stop\n";

static void
test_int_alu(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   memcpy(host(BUF_A), int_a, sizeof(int_a));
   memcpy(host(BUF_B), int_b, sizeof(int_b));
   run_ok(int_shader, &o);
   for (unsigned l = 0; l < 32; l++) {
      uint32_t a = int_a[l], b = int_b[l];
      int64_t as = (int32_t)a, bs = (int32_t)b;
      /* iadd: result = a + (N ? -b : b) << shift, saturating to D's size */
      assert_int_equal(cap_r[0][10][l], (uint32_t)(a + b));
      assert_int_equal(cap_r[0][11][l], (uint32_t)(a - b));
      uint64_t us = (uint64_t)a + b;
      assert_int_equal(cap_r[0][12][l], us > 0xffffffffu ? 0xffffffffu : (uint32_t)us);
      int64_t ss = as + bs;
      assert_int_equal(cap_r[0][13][l], (uint32_t)(ss > INT32_MAX ? INT32_MAX : ss < INT32_MIN ? INT32_MIN : ss));
      assert_int_equal(cap_r[0][14][l], a < b ? 0 : a - b);
      assert_int_equal(cap_r[0][15][l], (uint32_t)(a + (b << 2)));
      assert_int_equal(cap_r[0][16][l], (uint32_t)(a * b + l));
      int64_t p = as * bs;
      assert_int_equal(cap_r[0][17][l], (uint32_t)(p > INT32_MAX ? INT32_MAX : p < INT32_MIN ? INT32_MIN : p));
      uint64_t w = (uint64_t)a + (uint64_t)bs;
      assert_int_equal(cap_r[0][18][l], (uint32_t)w);
      assert_int_equal(cap_r[0][19][l], (uint32_t)(w >> 32));
      assert_int_equal(reg16(0, 40, l), (uint16_t)(a + b));
      int32_t s16 = (int16_t)a + (int16_t)b;
      assert_int_equal(reg16(0, 41, l), (uint16_t)(s16 > 32767 ? 32767 : s16 < -32768 ? -32768 : s16));
      /* bitop truth table: bit0 ~a&~b, bit1 a&~b, bit2 ~a&b, bit3 a&b */
      assert_int_equal(cap_r[0][21][l], a & b);
      assert_int_equal(cap_r[0][22][l], a | b);
      assert_int_equal(cap_r[0][23][l], a ^ b);
      assert_int_equal(cap_r[0][24][l], ~a);
      assert_int_equal(cap_r[0][25][l], ~a & b);
      /* bitfield family, shift amount = C & 0x7f, mask = (1 << m) - 1 */
      assert_int_equal(cap_r[0][26][l], (a & ~(0xffu << 4)) | ((b & 0xff) << 4));
      assert_int_equal(cap_r[0][27][l], (a & ~0xffffu) | ((b >> 8) & 0xffff));
      uint64_t pair = ((uint64_t)b << 32) | a;
      assert_int_equal(cap_r[0][28][l], (uint32_t)((pair >> l) & 0xfffff));
      /* shlhi: (((b << s) >> 32) & mask') | (a & ~mask'), mask' = mask << max(s-32,0) */
      uint64_t shl = ((uint64_t)b << l) >> 32;
      assert_int_equal(cap_r[0][29][l], (uint32_t)((shl & 7) | (a & ~7u)));
      /* shrhi: mask' = (mask << 32) >> min(s, 32) */
      uint64_t m2 = (3ull << 32) >> l;
      uint64_t shr = ((uint64_t)b << 32) >> l;
      assert_int_equal(cap_r[0][30][l], (uint32_t)((shr & m2) | (a & ~m2)));
      assert_int_equal(cap_r[0][31][l], (uint32_t)(as >> l));
      assert_int_equal(cap_r[0][32][l], (uint32_t)((as * (1ll << 32)) >> l));
      uint32_t rev = 0;
      for (unsigned i = 0; i < 32; i++)
         if (a >> i & 1)
            rev |= 1u << (31 - i);
      assert_int_equal(cap_r[0][33][l], rev);
      assert_int_equal(cap_r[0][34][l], (uint32_t)__builtin_popcount(a));
      assert_int_equal(cap_r[0][35][l], a ? 31u - (uint32_t)__builtin_clz(a) : 0xffffffffu);
      uint32_t il = 0;
      for (unsigned i = 0; i < 16; i++)
         il |= ((a >> i) & 1) << (2 * i) | ((b >> i) & 1) << (2 * i + 1);
      assert_int_equal(cap_r[0][36][l], il);
      assert_int_equal(cap_r[0][37][l], 305419896u);
      assert_int_equal(cap_r[0][38][l], a < b);
      assert_int_equal(cap_r[0][39][l], a > b);
      assert_int_equal(cap_r[0][40][l], a == b);
      assert_int_equal(cap_r[0][41][l], as < bs);
      assert_int_equal(cap_r[0][42][l], as > bs);
      assert_int_equal(cap_r[0][43][l], a == b ? a : b);
      uint64_t um = (uint64_t)a * b;
      assert_int_equal(cap_r[0][44][l], (uint32_t)um);
      assert_int_equal(cap_r[0][45][l], (uint32_t)(um >> 32));
      int64_t sm = as * bs;
      assert_int_equal(cap_r[0][46][l], (uint32_t)sm);
      assert_int_equal(cap_r[0][47][l], (uint32_t)((uint64_t)sm >> 32));
      assert_int_equal(reg16(0, 96, l), 4660);
      (void)sx;
   }
}

/* ---- float ALU -------------------------------------------------------- */

static const uint32_t flt_a[32] = {
   0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3f000000, 0x00000001, 0x80400000,
   0x7f800000, 0xff800000, 0x7fc00000, 0x7f7fffff, 0x00800000, 0x3fc00000, 0x40200000,
   0xc0200000, 0x3dcccccd, 0x42c80000, 0x477fe000, 0x501502f9, 0x3f7fffff, 0x00800001,
   0x40490fdb, 0xc2c80000, 0x3eaaaaab, 0x4b000001, 0xcb000001, 0x3f400000, 0x41200000,
   0x7f000000, 0x00ffffff, 0x40000000, 0x3f8ccccd,
};
static const uint32_t flt_b[32] = {
   0x80000000, 0x80000000, 0x3f800000, 0x3f800000, 0x3f000000, 0x3f800000, 0x00400000,
   0xff800000, 0x7f800000, 0x3f800000, 0x7f7fffff, 0x80800000, 0xbfc00000, 0x3f000000,
   0x3f000000, 0x3f800000, 0x3c23d70a, 0x3f800000, 0x501502f9, 0x33800000, 0x80800000,
   0x40000000, 0x42c80000, 0x40400000, 0x3f000000, 0x3f000000, 0x7fc00000, 0x00000000,
   0x40000000, 0x3f800000, 0x40000000, 0xbf8ccccd,
};

static const char float_shader[] =
   "get_sr r1, sr52\n"
   "device_load 0, i32, x, r2, u0_u1, r1, unsigned\n"
   "device_load 0, i32, x, r3, u2_u3, r1, unsigned\n"
   "wait 0\n"
   "fadd32 r10, r2, r3\n"
   "fmul32 r11, r2, r3\n"
   "fmadd32 r12, r2, r3, r2\n"
   "fadd32.sat r13, r2, r3\n"
   "fadd32 r14, r2.abs, r3.neg\n"
   "fmul32 r15, r2, -2.0\n"
   "floor r16, r2\n"
   "ceil r17, r2\n"
   "trunc r18, r2\n"
   "rint r19, r2\n"
   "rcp r20, r2\n"
   "rsqrt r21, r2\n"
   "log2 r22, r2\n"
   "exp2 r23, r3\n"
   "fcmpsel eq, r24, r2, r3, 1, 0\n"
   "fcmpsel lt, r25, r2, r3, 1, 0\n"
   "fcmpsel gt, r26, r2, r3, 1, 0\n"
   "fcmpsel ltn, r27, r2, r3, r2, r3\n"
   "fcmpsel gte, r28, r2, r3, 1, 0\n"
   "fcmpsel lte, r29, r2, r3, 1, 0\n"
   "fcmpsel gtn, r30, r2, r3, r2, r3\n"
   "convert f_to_s32, r31, r2, rtz\n"
   "convert f_to_s32, r32, r2, rte\n"
   "convert f_to_u32, r33, r2, rtz\n"
   "convert f_to_u16, r34l, r2, rtz\n"
   "convert f_to_s16, r34h, r2, rte\n"
   "convert u32_to_f, r35, r2, rte\n"
   "convert s32_to_f, r36, r2, rtz\n"
   "convert s16_to_f, r37l, r2l, rte\n"
   "convert u8_to_f, r37h, r2l, rte\n"
   "fadd32 r38l, r2, r3\n"
   "stop\n";

static uint32_t
ref_fcmp(unsigned cc, float a, float b, uint32_t x, uint32_t y)
{
   bool r;
   switch (cc) {
   case 0: r = a == b; break;
   case 1: r = a < b; break;
   case 2: r = a > b; break;
   case 3: r = !isnan(a) && (isnan(b) || a < b); break;
   case 5: r = a >= b; break;
   case 6: r = a <= b; break;
   case 7: r = !isnan(a) && (isnan(b) || a > b); break;
   default: r = a != b; break;   /* 8: neq = not eq */
   }
   return r ? x : y;
}

static uint32_t
ref_f2i(float f, bool rtz, double lo, double hi)
{
   if (isnan(f))
      return 0;
   double d = rtz ? trunc(ftz(f)) : nearbyint(ftz(f));
   d = d < lo ? lo : d > hi ? hi : d;
   return (uint32_t)(int64_t)d;
}

static void
test_float_alu(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   memcpy(host(BUF_A), flt_a, sizeof(flt_a));
   memcpy(host(BUF_B), flt_b, sizeof(flt_b));
   run_ok(float_shader, &o);
   for (unsigned l = 0; l < 32; l++) {
      /* fp32 sources flush denormals (applegpu Float32ToRealWrapper ftz) */
      float a = ftz(tessera_uif(flt_a[l])), b = ftz(tessera_uif(flt_b[l]));
      assert_int_equal(cap_r[0][10][l], ref_f32(a + b));
      assert_int_equal(cap_r[0][11][l], ref_f32(a * b));
      assert_int_equal(cap_r[0][12][l], ref_f32(fmaf(a, b, a)));
      assert_int_equal(cap_r[0][13][l], ref_sat(ftz(a + b)));
      assert_int_equal(cap_r[0][14][l], ref_f32(fabsf(a) + -b));
      assert_int_equal(cap_r[0][15][l], ref_f32(a * -2.0f));
      assert_int_equal(cap_r[0][16][l], ref_f32(floorf(a)));
      assert_int_equal(cap_r[0][17][l], ref_f32(ceilf(a)));
      assert_int_equal(cap_r[0][18][l], ref_f32(truncf(a)));
      assert_int_equal(cap_r[0][19][l], ref_f32(nearbyintf(a)));
      assert_int_equal(cap_r[0][20][l], ref_f32((float)(1.0 / a)));
      assert_int_equal(cap_r[0][21][l], ref_f32((float)(1.0 / sqrt(a))));
      assert_int_equal(cap_r[0][22][l], ref_f32((float)log2((double)a)));
      assert_int_equal(cap_r[0][23][l], ref_f32((float)exp2((double)b)));
      assert_int_equal(cap_r[0][24][l], ref_fcmp(0, a, b, 1, 0));
      assert_int_equal(cap_r[0][25][l], ref_fcmp(1, a, b, 1, 0));
      assert_int_equal(cap_r[0][26][l], ref_fcmp(2, a, b, 1, 0));
      /* fcmpsel selects raw register bits, so X/Y keep denormals */
      assert_int_equal(cap_r[0][27][l], ref_fcmp(3, a, b, flt_a[l], flt_b[l]));
      assert_int_equal(cap_r[0][28][l], ref_fcmp(5, a, b, 1, 0));
      assert_int_equal(cap_r[0][29][l], ref_fcmp(6, a, b, 1, 0));
      assert_int_equal(cap_r[0][30][l], ref_fcmp(7, a, b, flt_a[l], flt_b[l]));
      assert_int_equal(cap_r[0][31][l], ref_f2i(a, true, -2147483648.0, 2147483647.0));
      assert_int_equal(cap_r[0][32][l], ref_f2i(a, false, -2147483648.0, 2147483647.0));
      assert_int_equal(cap_r[0][33][l], ref_f2i(a, true, 0, 4294967295.0));
      assert_int_equal(reg16(0, 68, l), (uint16_t)ref_f2i(a, true, 0, 65535));
      assert_int_equal(reg16(0, 69, l), (uint16_t)ref_f2i(a, false, -32768, 32767));
      assert_int_equal(cap_r[0][35][l], tessera_fui((float)flt_a[l]));
      float rz = (float)(int32_t)flt_a[l];
      if (fabs((double)rz) > fabs((double)(int32_t)flt_a[l]))
         rz = nextafterf(rz, 0);
      assert_int_equal(cap_r[0][36][l], tessera_fui(rz));
      assert_int_equal(reg16(0, 74, l), ref_to_half((double)(int16_t)flt_a[l]));
      assert_int_equal(reg16(0, 75, l), ref_to_half((double)(flt_a[l] & 0xff)));
      /* fp32 op into a 16-bit register: rounded to f32 (FTZ), then half */
      float r38 = tessera_uif(ref_f32(a + b));
      assert_int_equal(reg16(0, 76, l), ref_to_half(r38));
   }
   /* spot checks written out: denormal input flushed, -0 kept */
   assert_int_equal(cap_r[0][10][5], 0x3f800000);   /* denormal + 1.0 */
   assert_int_equal(cap_r[0][10][1], 0x80000000);   /* -0 + -0 */
   assert_int_equal(cap_r[0][10][7], 0x7fc00000);   /* inf + -inf */
   assert_int_equal(cap_r[0][13][3], 0);            /* sat(-1 + 1 = 0) */
   assert_int_equal(cap_r[0][13][2], 0x3f800000);   /* sat(2) */
   assert_int_equal(cap_r[0][11][20], 0x80000000);  /* tiny * -tiny flushes */
}

static const uint16_t h_a[32] = {
   0x0000, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x03ff, 0x7bff, 0x7c00, 0xfc00, 0x7e00,
   0x3555, 0x4248, 0x5640, 0x0400, 0x3c01, 0xc000, 0x1400, 0x7800, 0x3800, 0x2e66,
   0x4900, 0x0200, 0xb800, 0x3bff, 0x6400, 0x0010, 0x4000, 0x3e00, 0x5a00, 0x7000,
   0x8400, 0x3c00,
};
static const uint16_t h_b[32] = {
   0x8000, 0x8000, 0x3c00, 0x3c00, 0x0001, 0x0001, 0x7bff, 0xfc00, 0xfc00, 0x3c00,
   0x3555, 0xc248, 0x1000, 0x8400, 0x3c01, 0x4000, 0x1400, 0x7800, 0xb800, 0x2e66,
   0x0001, 0x0200, 0x3800, 0x0400, 0x6400, 0x9000, 0x3c00, 0x4000, 0x5a01, 0x7000,
   0x8400, 0x0001,
};

static void
test_half_alu(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   memcpy(host(BUF_A), h_a, sizeof(h_a));
   memcpy(host(BUF_B), h_b, sizeof(h_b));
   run_ok("get_sr r1, sr52\n"
          "device_load 0, i16, x, r2l, u0_u1, r1, unsigned\n"
          "device_load 0, i16, x, r2h, u2_u3, r1, unsigned\n"
          "wait 0\n"
          "fadd16 r10l, r2l, r2h\n"
          "fmul16 r10h, r2l, r2h\n"
          "fmadd16 r11l, r2l, r2h, r2l\n"
          "fmul16.sat r11h, r2l.neg, r2h\n"
          "fadd32 r12, r2l, r2h\n"
          "floor r13l, r2l\n"
          "stop\n", &o);
   for (unsigned l = 0; l < 32; l++) {
      /* fp16 sources are not flushed; one rounding to half per op */
      double a = half_val(h_a[l]), b = half_val(h_b[l]);
      bool nan_in = (h_a[l] & 0x7fff) > 0x7c00 || (h_b[l] & 0x7fff) > 0x7c00;
      if ((h_a[l] & 0x7c00) == 0x7c00)
         a = (h_a[l] & 0x3ff) ? NAN : (h_a[l] & 0x8000) ? -INFINITY : INFINITY;
      if ((h_b[l] & 0x7c00) == 0x7c00)
         b = (h_b[l] & 0x3ff) ? NAN : (h_b[l] & 0x8000) ? -INFINITY : INFINITY;
      assert_int_equal(reg16(0, 20, l), ref_to_half(nan_in ? NAN : a + b));
      assert_int_equal(reg16(0, 21, l), ref_to_half(nan_in ? NAN : a * b));
      /* fused: a*b+a is exact in long double (64-bit mantissa) for these
       * inputs, so rounding it once to half is the reference */
      long double e = (long double)a * (long double)b + (long double)a;
      assert_int_equal(reg16(0, 22, l), nan_in ? 0x7e00 : ref_to_half((double)e));
      double m = -a * b;
      uint16_t sat = (isnan(m) || signbit(m)) ? 0 : ref_to_half(m > 1 ? 1 : m);
      assert_int_equal(reg16(0, 23, l), nan_in ? 0 : sat);
      float s32 = (float)(a + b);
      assert_int_equal(cap_r[0][12][l], nan_in ? 0x7fc00000u : ref_f32(s32));
      assert_int_equal(reg16(0, 26, l), nan_in ? 0x7e00 : ref_to_half(floor(a)));
   }
   /* half denormals survive: 2^-24 + 2^-24 = 2^-23 */
   assert_int_equal(reg16(0, 20, 4), 0x0002);
}

/* ---- SFU and derivative spot checks ---------------------------------- */

static void
test_sfu_and_derivatives(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   o.uni[8] = tessera_fui(0.5f);
   o.uni[9] = tessera_fui(4.0f);
   o.uni[10] = tessera_fui(0.0f);
   run_ok("get_sr r1, sr52\n"
          "convert u32_to_f, r2, r1, rte\n"
          "fmul32 r3, r2, r2\n"
          "dfdx r4, r3\n"
          "dfdy r5, r3\n"
          "sin_pt_1 r6, u8\n"
          "sin_pt_2 r7, r6\n"
          "fmul32 r8, r7, r6\n"
          "rsqrt_special r9, u9\n"
          "fmul32 r9, r9, u9\n"
          "rsqrt_special r10, u9\n"
          "rcp r11, u9\n"
          "stop\n", &o);
   for (unsigned l = 0; l < 32; l++) {
      float x = (float)(l | 1), x0 = (float)(l & ~1u);
      float y = (float)(l | 2), y0 = (float)(l & ~2u);
      assert_int_equal(cap_r[0][4][l], tessera_fui(x * x - x0 * x0));
      assert_int_equal(cap_r[0][5][l], tessera_fui(y * y - y0 * y0));
   }
   /* sin(0.5 quarter turn = pi/4) from sin_pt_1 * sin_pt_2 */
   assert_true(fabsf(tessera_uif(cap_r[0][8][0]) - (float)sin(M_PI / 4)) < 1e-6f);
   /* sqrt(4) = rsqrt_special(4) * 4 */
   assert_int_equal(cap_r[0][9][0], tessera_fui(2.0f));
   assert_int_equal(cap_r[0][11][0], tessera_fui(0.25f));
}

/* ---- control flow ------------------------------------------------------ */

static void
test_control_flow_loops(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   /* for (i = 0; i < lane; i++) { if (i & 1) acc += 100; else acc += 1;
    *   if (i == 9) break; }   plus an if nobody takes, skipped by
    * jmp_exec_none over a trap */
   run_ok("get_sr r1, sr52\n"
          "mov_imm r2, 0, 0b0\n"
          "mov_imm r3, 0, 0b0\n"
          "if_icmp r0l, ult, r2, r1, 1\n"
          "jmp_exec_none pc+done\n"
          "top:\n"
          "and r5, r2, 1\n"
          "if_icmp r0l, ueq, r5, 1, 1\n"
          "iadd r3, r3, 100\n"
          "else_icmp r0l, ueq, r5, r5, 1\n"
          "iadd r3, r3, 1\n"
          "pop_exec r0l, 1\n"
          "icmpsel ueq, r0l, r2, 9, 1, 0\n"
          "pop_exec r0l, 0\n"
          "iadd r2, r2, 1\n"
          "while_icmp r0l, ult, r2, r1, 1\n"
          "jmp_exec_any pc+top\n"
          "done:\n"
          "pop_exec r0l, 1\n"
          "if_icmp r0l, ugt, r1, 100, 1\n"
          "jmp_exec_none pc+skip\n"
          "trap\n"
          "skip:\n"
          "pop_exec r0l, 1\n"
          "get_sr r6, sr63\n"
          "stop\n", &o);
   for (unsigned l = 0; l < 32; l++) {
      uint32_t acc = 0, i;
      for (i = 0; i < l; i++) {
         acc += (i & 1) ? 100 : 1;
         if (i == 9) {
            break;
         }
      }
      assert_int_equal(cap_r[0][3][l], acc);
      /* the counter stops where each lane left the loop */
      assert_int_equal(cap_r[0][2][l], l >= 10 ? 9 : l);
      assert_int_equal(cap_r[0][0][l] & 0xffff, 0);   /* r0l back to 0 */
      assert_int_equal(cap_r[0][6][l], 1);            /* every lane active again */
   }
}

static void
test_call_ret_and_partial_group(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   o.threads[0] = 20;   /* lanes 20..31 do not exist */
   run_ok("get_sr r2, sr52\n"
          "mov_imm r7, 1, 0b0\n"
          "call pc+func\n"
          "call pc+func\n"
          "get_sr r8, sr63\n"
          "stop\n"
          "func:\n"
          "iadd r7, r7, r2\n"
          "ret r1\n", &o);
   for (unsigned l = 0; l < 20; l++) {
      assert_int_equal(cap_r[0][7][l], 1 + 2 * l);
      assert_int_equal(cap_r[0][8][l], 1);
   }
   for (unsigned l = 20; l < 32; l++)
      assert_int_equal(cap_r[0][7][l], 0);   /* never ran */
}

/* ---- shuffles and reductions --------------------------------------- */

static void
test_simd_ops(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   run_ok("get_sr r1, sr52\n"
          "iadd r2, r1, 10\n"
          "simd_shuffle_xor r3, r2, 5\n"
          "simd_shuffle_down r4, r2, 3\n"
          "simd_shuffle r5, r2, 7\n"
          "quad_shuffle r6, r2, 2\n"
          "simd_iadd r7, r2\n"
          "simd_prefix_iadd r8, r2\n"
          "quad_iadd r9, r2\n"
          "simd_max.s r10, r2\n"
          "and r11, r1, 1\n"
          "if_icmp r0l, ueq, r11, 0, 1\n"
          "simd_iadd r12, r2\n"
          "simd_prefix_iadd r13, r2\n"
          "pop_exec r0l, 1\n"
          "stop\n", &o);
   uint32_t total = 0, even = 0, pre = 0;
   for (unsigned l = 0; l < 32; l++) {
      total += l + 10;
      if (!(l & 1))
         even += l + 10;
   }
   for (unsigned l = 0; l < 32; l++) {
      assert_int_equal(cap_r[0][3][l], (l ^ 5) + 10);
      assert_int_equal(cap_r[0][4][l], l + 3 < 32 ? l + 13 : l + 10);
      assert_int_equal(cap_r[0][5][l], 17);
      assert_int_equal(cap_r[0][6][l], (l & ~3u) + 2 + 10);
      assert_int_equal(cap_r[0][7][l], total);
      uint32_t ex = 0;
      for (unsigned k = 0; k < l; k++)
         ex += k + 10;
      assert_int_equal(cap_r[0][8][l], ex);   /* exclusive scan */
      uint32_t q = 0;
      for (unsigned k = l & ~3u; k < (l & ~3u) + 4; k++)
         q += k + 10;
      assert_int_equal(cap_r[0][9][l], q);
      assert_int_equal(cap_r[0][10][l], 41);
      if (!(l & 1)) {
         assert_int_equal(cap_r[0][12][l], even);
         assert_int_equal(cap_r[0][13][l], pre);
         pre += l + 10;
      } else {
         assert_int_equal(cap_r[0][12][l], 0);   /* inactive: untouched */
      }
   }
}

/* Compare-and-ballot (Mesa's icmp/fcmp[_quad]_ballot): its restart-unroll
 * kernel (primitive restart with transform feedback or a geometry shader)
 * votes with one; the model could not decode it. */
static void
test_ballot(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   run_ok("get_sr r1, sr52\n"
          "and r2, r1, 3\n"
          "icmp_ballot r3, ueq, r2, 1\n"
          "icmp_ballot r4, nueq, r2, 1\n"
          "icmp_quad_ballot r5, ueq, r2, 1\n"
          "fcmp_ballot r6, eq, r2, r2\n"
          "and r11, r1, 1\n"
          "if_icmp r0l, ueq, r11, 0, 1\n"
          "icmp_ballot r7, ugte, r2, 0\n"
          "icmp_quad_ballot r8, ueq, r2, 2\n"
          "pop_exec r0l, 1\n"
          "stop\n", &o);
   for (unsigned l = 0; l < 32; l++) {
      assert_int_equal(cap_r[0][3][l], 0x22222222);
      assert_int_equal(cap_r[0][4][l], 0xdddddddd);
      assert_int_equal(cap_r[0][5][l], 0x2);
      assert_int_equal(cap_r[0][6][l], 0xffffffff);
      /* only the active (even) lanes vote and get the result */
      assert_int_equal(cap_r[0][7][l], l & 1 ? 0 : 0x55555555);
      assert_int_equal(cap_r[0][8][l], l & 1 ? 0 : 0x4);
   }
}

/* ---- memory formats -------------------------------------------------- */

static void
test_device_formats(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   uint8_t *a = host(BUF_A);
   for (unsigned i = 0; i < 256; i++)
      a[i] = (uint8_t)(i * 37 + 11);
   uint32_t word1010 = 1023u | (512u << 10) | (0u << 20) | (2u << 30);
   memcpy(a + 0x100, &word1010, 4);
   /* rg11b10f: r = 1.0 (e=15, m=0), g = 0.5 (e=14), b = 2.0 (e=16, 10-bit) */
   uint32_t w11 = (15u << 6) | ((14u << 6) << 11) | ((16u << 5) << 22);
   memcpy(a + 0x104, &w11, 4);
   /* rgb9e5: e=16 (2^1), mantissas 256, 128, 511 -> 1.0, 0.5, 1.99609375 */
   uint32_t w9 = 256u | (128u << 9) | (511u << 18) | (16u << 27);
   memcpy(a + 0x108, &w9, 4);
   memset(host(BUF_C), 0, 0x400);
   run_ok("mov_imm r4, 4, 0b0\n"
          "device_load 0, i8, x, r10, u0_u1, 5, unsigned\n"
          "device_load 0, i16, xy, r11l_r11h, u0_u1, 3, unsigned\n"
          "device_load 0, i32, xz, r12_r13, u0_u1, r4, unsigned\n"
          "device_load 0, u8norm, xyzw, r14_r15_r16_r17, u0_u1, 0, unsigned\n"
          "device_load 0, s8norm, x, r18, u0_u1, 1, unsigned\n"
          "device_load 0, u16norm, x, r19, u0_u1, 2, unsigned\n"
          "device_load 0, s16norm, x, r20l, u0_u1, 2, unsigned\n"
          "device_load 0, rgb10a2, xyzw, r21_r22_r23_r24, u0_u1, 64, unsigned\n"
          "device_load 0, rg11b10f, xyz, r25_r26_r27, u0_u1, 65, unsigned\n"
          "device_load 0, rgb9e5, xyz, r28_r29_r30, u0_u1, 66, unsigned\n"
          "device_load 0, srgba8, xyzw, r31_r32_r33_r34, u0_u1, 0, unsigned\n"
          "device_load 0, i32, x, r35, u0_u1, 1, unsigned, lsl 1\n"
          "wait 0\n"
          "mov_imm r40, 1056964608, 0b0\n"      /* 0.5f */
          "mov_imm r41, 3212836864, 0b0\n"      /* -1.0f */
          "mov_imm r42, 1065353216, 0b0\n"      /* 1.0f */
          "mov_imm r43, 0, 0b0\n"
          "device_store 0, u8norm, xyzw, r40_r41_r42_r43, u4_u5, 0, unsigned, 0\n"
          "device_store 0, s8norm, xy, r40_r41, u4_u5, 4, unsigned, 0\n"
          "device_store 0, i16, yw, r11l_r11h, u4_u5, 4, unsigned, 0\n"
          "device_store 0, rgb10a2, xyzw, r40_r41_r42_r43, u4_u5, 4, unsigned, 0\n"
          "device_store 0, i32, x, r35, u4_u5, -1, signed, 0\n"
          "device_store 0, rgb9e5, xyz, r28_r29_r30, u4_u5, 8, unsigned, 0\n"
          "device_store 0, rg11b10f, xyz, r25_r26_r27, u4_u5, 9, unsigned, 0\n"
          "stop\n",
          &o);
   /* every lane loads the same, look at lane 7 */
   unsigned L = 7;
   assert_int_equal(cap_r[0][10][L], a[5]);
   assert_int_equal(cap_r[0][11][L], (uint32_t)(a[6] | a[7] << 8) | (uint32_t)(a[8] | a[9] << 8) << 16);
   uint32_t w16, w24;
   memcpy(&w16, a + 16, 4);
   memcpy(&w24, a + 24, 4);
   assert_int_equal(cap_r[0][12][L], w16);   /* element 4 */
   assert_int_equal(cap_r[0][13][L], w24);   /* mask xz skips element 5 */
   for (unsigned i = 0; i < 4; i++)
      assert_int_equal(cap_r[0][14 + i][L], tessera_fui((float)(a[i] / 255.0)));
   int s8 = (int8_t)a[1];
   assert_int_equal(cap_r[0][18][L], tessera_fui((float)((s8 < -127 ? -127 : s8) / 127.0)));
   assert_int_equal(cap_r[0][19][L], tessera_fui((float)((a[4] | a[5] << 8) / 65535.0)));
   int s16 = (int16_t)(a[4] | a[5] << 8);
   assert_int_equal(reg16(0, 40, L), ref_to_half((s16 < -32767 ? -32767 : s16) / 32767.0));
   assert_int_equal(cap_r[0][21][L], tessera_fui(1.0f));
   assert_int_equal(cap_r[0][22][L], tessera_fui((float)(512 / 1023.0)));
   assert_int_equal(cap_r[0][23][L], tessera_fui(0.0f));
   assert_int_equal(cap_r[0][24][L], tessera_fui((float)(2 / 3.0)));
   assert_int_equal(cap_r[0][25][L], tessera_fui(1.0f));
   assert_int_equal(cap_r[0][26][L], tessera_fui(0.5f));
   assert_int_equal(cap_r[0][27][L], tessera_fui(2.0f));
   assert_int_equal(cap_r[0][28][L], tessera_fui(1.0f));
   assert_int_equal(cap_r[0][29][L], tessera_fui(0.5f));
   assert_int_equal(cap_r[0][30][L], tessera_fui(1.99609375f));
   /* sRGB: the standard transfer function (docs/usc.md), alpha linear */
   for (unsigned i = 0; i < 3; i++) {
      double c = a[i] / 255.0;
      double lin = c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
      assert_int_equal(cap_r[0][31 + i][L], tessera_fui((float)lin));
   }
   assert_int_equal(cap_r[0][34][L], tessera_fui((float)(a[3] / 255.0)));
   uint32_t w8;
   memcpy(&w8, a + 8, 4);
   assert_int_equal(cap_r[0][35][L], w8);   /* index 1 << 1 elements */

   const uint8_t *c = host(BUF_C);
   /* unorm8 of 0.5, -1 (clamped 0), 1, 0: 127.5 rounds to even 128 */
   assert_int_equal(c[0], 128);
   assert_int_equal(c[1], 0);
   assert_int_equal(c[2], 255);
   assert_int_equal(c[3], 0);
   assert_int_equal(c[4], 64);                /* snorm8 0.5 * 127 = 63.5 -> 64 */
   assert_int_equal(c[5], (uint8_t)-127);
   uint32_t w;
   memcpy(&w, c + 16, 4);                     /* rgb10a2 of (0.5, -1, 1, 0) */
   assert_int_equal(w, 512u | (0u << 10) | (1023u << 20));
   uint16_t h[4];
   memcpy(h, c + 8, 8);                       /* i16 yw: elements 5 and 7 */
   assert_int_equal(h[1], cap_r[0][11][L] & 0xffff);
   assert_int_equal(h[3], cap_r[0][11][L] >> 16);
   assert_int_equal(u32_at(BUF_C - 4), w8);    /* offset -1, signed */
   memcpy(&w, c + 32, 4);
   assert_int_equal(w, w9);                   /* rgb9e5 round trip */
   memcpy(&w, c + 36, 4);
   assert_int_equal(w, w11);                  /* rg11b10f round trip */
}

/*
 * The device-load fast path (hw_usc_fast_paths: one mapping for the
 * components of a lane's load when they share a page) against the
 * general per-component loop: component masks with and without gaps,
 * 8/16/32-bit and normalised formats, shifted indices, lanes whose
 * components cross a page boundary or run off mapped memory (hard and
 * soft faults) must give the same registers, status, fault and
 * statistics, with fewer mappings.
 */
static void
test_device_load_fast_path(void **state)
{
   (void)state;
   static const char src[] =
      "get_sr r1, sr52\n"
      "device_load 0, i32, xyzw, r10_r11_r12_r13, u0_u1, r1, unsigned\n"
      "device_load 0, i32, xz, r14_r15, u0_u1, r1, unsigned, lsl 1\n"
      "device_load 0, i16, yw, r16l_r16h, u0_u1, r1, unsigned\n"
      "device_load 0, i8, xyzw, r17_r18_r19_r20, u0_u1, r1, unsigned\n"
      "device_load 0, u8norm, xyz, r21_r22_r23, u0_u1, r1, unsigned\n"
      "device_load 0, s16norm, xyzw, r24_r25_r26_r27, u0_u1, r1, unsigned\n"
      "wait 0\n"
      "stop\n";
   /* every byte of the test memory distinct enough */
   for (size_t i = 0; i < TEST_GPU_SIZE; i += 4096)
      for (size_t k = 0; k < 4096; k++)
         usc_test_mem[i + k] = (uint8_t)((i >> 12) * 131 + k * 29 + 7);
   const uint64_t page = HW_PAGE_SIZE;
   const uint64_t bases[] = {
      GPU(BUF_A),                          /* inside one page */
      GPU(BUF_A + 3 * page - 40),          /* lanes cross a page boundary */
      GPU(BUF_A + 5 * page - 6),           /* lane 0 already crosses */
      TEST_GPU_BASE + TEST_GPU_SIZE - 64,  /* lanes run off mapped memory */
   };
   for (unsigned b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
      for (unsigned soft = 0; soft < 2; soft++) {
         struct opts o;
         opts_default(&o);
         o.uni[0] = (uint32_t)bases[b];
         o.uni[1] = (uint32_t)(bases[b] >> 32);
         o.soft_faults = soft;
         static uint32_t want_r[HW_USC_NUM_GPRS][HW_USC_SIMD_WIDTH];
         struct hw_usc_result want_res, got_res;
         memset(&want_res, 0, sizeof(want_res));
         memset(&got_res, 0, sizeof(got_res));
         hw_usc_fast_paths = false;
         usc_test_maps = 0;
         enum hw_usc_status want = run(src, &o, &want_res);
         unsigned want_maps = usc_test_maps;
         struct hw_usc_stats want_stats = last_stats;
         memcpy(want_r, cap_r[0], sizeof(want_r));
         hw_usc_fast_paths = true;
         usc_test_maps = 0;
         enum hw_usc_status got = run(src, &o, &got_res);
         unsigned got_maps = usc_test_maps;
         print_message("base %u soft %u: %s, %u -> %u mappings\n", b, soft,
                       hw_usc_status_name(got), want_maps, got_maps);
         assert_int_equal(got, want);
         assert_memory_equal(&last_stats, &want_stats, sizeof(want_stats));
         if (want == HW_USC_OK) {
            assert_memory_equal(cap_r[0], want_r, sizeof(want_r));
         } else {
            assert_int_equal(got_res.pc, want_res.pc);
            assert_memory_equal(&got_res.fault, &want_res.fault, sizeof(want_res.fault));
            assert_string_equal(got_res.message, want_res.message);
         }
         if (b == 0)
            assert_true(got_maps < want_maps);
      }
   }
}

/*
 * The lanes' positions in their workgroup (thread_position_in_threadgroup
 * x/y/z, thread_index_in_threadgroup) for power-of-two workgroup sizes,
 * which simd_init computes with masks and shifts (hw_usc_fast_paths),
 * against the lane-stepped general loop and the positions worked out
 * here: pixel groups (16x2), 3-D groups over several SIMD groups, a
 * partial last group, and sizes that are not powers of two (the general
 * loop either way).
 */
static void
test_positions_fast_path(void **state)
{
   (void)state;
   static const char src[] =
      "get_sr r10, sr48\n"
      "get_sr r11, sr49\n"
      "get_sr r12, sr50\n"
      "get_sr r13, sr51\n"
      "stop\n";
   static const unsigned dims[][3] = {
      { 16, 2, 1 }, { 4, 4, 4 }, { 8, 2, 4 }, { 2, 8, 8 }, { 1, 32, 2 },
      { 64, 1, 1 }, { 2, 2, 2 }, { 3, 5, 2 }, { 16, 3, 1 }, { 4, 4, 3 },
   };
   static uint32_t want_r[HW_USC_MAX_SIMDS][4][HW_USC_SIMD_WIDTH];
   for (unsigned d = 0; d < sizeof(dims) / sizeof(dims[0]); d++) {
      struct opts o;
      opts_default(&o);
      memcpy(o.threads, dims[d], sizeof(o.threads));
      unsigned n = dims[d][0] * dims[d][1] * dims[d][2];
      unsigned nsimd = (n + 31) / 32;
      for (int fast = 0; fast <= 1; fast++) {
         hw_usc_fast_paths = fast;
         run_ok(src, &o);
         hw_usc_fast_paths = true;
         for (unsigned i = 0; i < nsimd; i++)
            for (unsigned l = 0; l < 32; l++) {
               unsigned lin = 32 * i + l;
               if (lin >= n)
                  continue;
               uint32_t want[4] = { lin % dims[d][0], lin / dims[d][0] % dims[d][1],
                                    lin / (dims[d][0] * dims[d][1]), lin };
               for (unsigned k = 0; k < 4; k++) {
                  if (cap_r[i][10 + k][l] != want[k])
                     fail_msg("%ux%ux%u fast %d: SIMD %u lane %u sr%u = %u, want %u",
                              dims[d][0], dims[d][1], dims[d][2], fast, i, l, 48 + k,
                              cap_r[i][10 + k][l], want[k]);
                  if (fast && cap_r[i][10 + k][l] != want_r[i][k][l])
                     fail_msg("%ux%ux%u: SIMD %u lane %u sr%u differs from the general loop",
                              dims[d][0], dims[d][1], dims[d][2], i, l, 48 + k);
                  want_r[i][k][l] = cap_r[i][10 + k][l];
               }
            }
      }
   }
}

static void
test_strict_wait(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   uint32_t v = 0xabcd1234;
   memcpy(host(BUF_A), &v, 4);
   static const char src[] =
      "mov_imm r3, 7, 0b0\n"
      "device_load 0, i32, x, r3, u0_u1, 0, unsigned\n"
      "mov r4, r3\n"            /* missing wait */
      "wait 0\n"
      "mov r5, r3\n"
      "stop\n";
   run_ok(src, &o);
   assert_int_equal(cap_r[0][4][0], v);       /* default: lands at issue */
   o.flags = HW_USC_STRICT_WAIT;
   run_ok(src, &o);
   assert_int_equal(cap_r[0][4][0], 7);       /* strict: stale before wait */
   assert_int_equal(cap_r[0][5][0], v);
}

/* ---- threadgroup memory, barriers, stack, atomics -------------------- */

static void
test_threadgroup_transpose(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   o.threads[0] = 16;
   o.threads[1] = 8;          /* 128 threads = 4 SIMD groups */
   o.tg_size = 128 * 4;
   memset(tg_mem, 0, sizeof(tg_mem));
   /* tg[y * 16 + x] = id * 3; barrier; out[id] = tg[transpose(id)],
    * transpose of the 16x8 tile read as 8x16: idx = (id % 8) * 16 + id / 8 */
   run_ok("get_sr r1, sr51\n"
          "imadd r2, r1, 3, 0\n"
          "threadgroup_store i32, x, r2, 0, r1l\n"
          "threadgroup_barrier\n"
          "and r3, r1, 7\n"
          "bfeil r4, 0, r1, 3, mask 0xFFFF\n"
          "imadd r5, r3, 16, r4\n"
          "threadgroup_load i32, x, r6, 0, r5l\n"
          "device_store 0, i32, x, r6, u4_u5, r1, unsigned, 0\n"
          "stop\n", &o);
   for (unsigned id = 0; id < 128; id++) {
      unsigned src = (id % 8) * 16 + id / 8;
      assert_int_equal(u32_at(BUF_C + 4 * id), src * 3);
   }
   assert_int_equal(last_stats.barriers, 4);
}

static void
test_stack_and_bounds(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   o.stack_per_thread = 16;
   /* Mesa opens a shader with scratch with stack_adjust (the model's
    * slices start at 0 whatever the pointer; it used to decode as a
    * stack_store with an empty mask and fail the shader). The offset
    * counts bytes (Mesa's scratch and spill offsets): a vec2 stored at 0
    * is read back at 0 and 4 (an element index made the second read
    * byte 16, past the 16-byte slice: fs-large-local-array-vec4). */
   run_ok("stack_adjust 12\n"
          "get_sr r1, sr52\n"
          "iadd r20, r1, 200\n"
          "iadd r22, r1, 100\n"
          "iadd r23, r1, 150\n"
          "stack_store i32, 0, 0, x, 0, r20, 8, 0\n"
          "stack_store i32, 0, 0, xy, 0, r22_r23, 0, 0\n"
          "mov_imm r20, 0, 0b0\n"
          "stack_load r21, i32, 0, 0, x, 0, 8, 0\n"
          "stack_load r24, i32, 0, 0, x, 0, 0, 0\n"
          "stack_load r25, i32, 0, 0, x, 0, 4, 0\n"
          "stop\n", &o);
   for (unsigned l = 0; l < 32; l++) {
      assert_int_equal(cap_r[0][21][l], 200 + l);
      assert_int_equal(cap_r[0][24][l], 100 + l);
      assert_int_equal(cap_r[0][25][l], 150 + l);
   }
   uint32_t v;
   memcpy(&v, stack_mem + 5 * 16 + 8, 4);
   assert_int_equal(v, 205);

   struct hw_usc_result res;
   assert_int_equal(run("stack_store i32, 0, 0, x, 0, r20, 16, 0\nstop\n", &o, &res),
                    HW_USC_OUT_OF_BOUNDS);
   assert_int_equal(run("stack_store i32, 0, 0, x, 0, r20, 13, 0\nstop\n", &o, &res),
                    HW_USC_OUT_OF_BOUNDS);
   o.tg_size = 64;
   assert_int_equal(run("threadgroup_load i32, x, r6, 0, 16\nstop\n", &o, &res),
                    HW_USC_OUT_OF_BOUNDS);
   assert_non_null(strstr(res.message, "threadgroup"));
}

static void
test_atomics(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   o.threads[0] = 64;
   uint32_t init[8] = { 100, 0, 0xffffffff, 0, 0xf0, 5, 9, 0x80000000 };
   memcpy(host(BUF_A), init, sizeof(init));
   run_ok("get_sr r1, sr51\n"
          "iadd r22, r1, 1\n"
          "atomic add, 0, r21, u0_u1, 0, unsigned, r22, 1, 0, 1, 4, 2\n"
          "atomic umax, 0, None, u0_u1, 1, unsigned, r22, 1, 0, 1, 4, 2\n"
          "atomic umin, 0, None, u0_u1, 2, unsigned, r22, 1, 0, 1, 4, 2\n"
          "atomic or, 0, None, u0_u1, 3, unsigned, r22, 1, 0, 1, 4, 2\n"
          "atomic and, 0, None, u0_u1, 4, unsigned, r22, 1, 0, 1, 4, 2\n"
          "mov_imm r24, 5, 0b0\n"
          "mov_imm r25, 5, 0b0\n"
          "mov r24, r22\n"
          "atomic cmpxchg, 0, r26, u0_u1, 5, unsigned, r24_r25, 1, 0, 1, 4, 2\n"
          "atomic xchg, 0, r27, u0_u1, 6, unsigned, r22, 1, 0, 1, 4, 2\n"
          "atomic imin, 0, None, u0_u1, 7, unsigned, r22, 1, 0, 1, 4, 2\n"
          "stop\n", &o);
   uint32_t fin[8];
   memcpy(fin, host(BUF_A), sizeof(fin));
   assert_int_equal(fin[0], 100 + 64 * 65 / 2);
   assert_int_equal(fin[1], 64);
   assert_int_equal(fin[2], 1);
   assert_int_equal(fin[3], 0x7f);
   assert_int_equal(fin[4], 0);
   assert_int_equal(fin[5], 1);              /* lane 0 swapped 5 -> 1 */
   assert_int_equal(fin[6], 64);             /* last xchg wins */
   assert_int_equal(fin[7], 0x80000000);     /* signed min */
   /* returned old values: SIMD 0 runs first, lanes in order */
   uint32_t expect = 100;
   for (unsigned g = 0; g < 2; g++)
      for (unsigned l = 0; l < 32; l++) {
         assert_int_equal(cap_r[g][21][l], expect);
         expect += g * 32 + l + 1;
      }
   assert_int_equal(cap_r[0][26][0], 5);
   assert_int_equal(cap_r[0][26][1], 1);
   assert_int_equal(cap_r[0][27][0], 9);
}

/* icmpsel/fcmpsel X and Y take bit 8 of a uniform's half index from bit 0
 * of their type field (Mesa's agx_pack_cmpsel_src, applegpu's encoder and
 * pseudocode; applegpu's disassembler drops it, see docs/isa.md): the
 * model must read the uniform the disassembly names, not its low 8 bits. */
static void
test_cmpsel_high_uniforms(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   o.uni[0] = 0x0a0b0c0d;     /* what bit-8-less decoding would read */
   o.uni[1] = 0x01020304;
   o.uni[127] = 0x55555555;
   o.uni[128] = 0xaaaa1111;   /* u128h = half 257 */
   o.uni[129] = 0x2222bbbb;   /* u129l = half 258 */
   o.uni[64] = 0x12345678;    /* 32-bit u64 = halves 128-129 (no bit 8) */
   o.uni[255] = 0x9abcdef0;   /* 32-bit u255 = halves 510-511 */
   run_ok("mov_imm r0, 7, 0b0\n"
          "icmpsel seq, r10l, r0l, r0l, u128h, u0h\n"     /* true: X */
          "icmpsel ult, r10h, r0l, r0l, u0l, u129l\n"     /* false: Y */
          "icmpsel seq, r11, r0, r0, u64, u0\n"
          "fcmpsel eq, r12, r0, r0, u255, u0\n"
          "fcmpsel lt, r13, r0, r0, u0, u255\n"
          "stop\n", &o);
   for (unsigned l = 0; l < 32; l++) {
      assert_int_equal(reg16(0, 20, l), 0xaaaa);
      assert_int_equal(reg16(0, 21, l), 0xbbbb);
      assert_int_equal(cap_r[0][11][l], 0x12345678);
      assert_int_equal(cap_r[0][12][l], 0x9abcdef0);
      assert_int_equal(cap_r[0][13][l], 0x9abcdef0);
   }
}

/* ---- preshader / uniform_store ----------------------------------------- */

static void
test_preshader_uniforms(void **state)
{
   (void)state;
   uint8_t code[256];
   size_t len = assemble("mov_imm r19, 3735928559, 0b0\n"
                         "uniform_store 0, i32, x, 0, r19, 16\n"
                         "mov_imm r3l, 4660\n"
                         "uniform_store 0, i16, x, 0, r3l, 20\n"
                         "stop\n", code, sizeof(code));
   char err[128];
   struct hw_usc_shader *pre = hw_usc_compile(code, len, GPU(0), err, sizeof(err));
   assert_non_null(pre);
   uint32_t uni[HW_USC_NUM_UNIFORMS] = { 0 };
   uni[4] = (uint32_t)GPU(BUF_C);
   uni[5] = (uint32_t)(GPU(BUF_C) >> 32);
   struct hw_usc_launch L = { .shader = pre, .gpr_count = 32 };
   struct hw_mmu mmu;
   hw_mmu_init(&mmu, NULL, 0, HW_UNIT_USC);
   struct hw_usc_result res;
   memset(&res, 0xab, sizeof(res));           /* a stale failure's bytes */
   assert_int_equal(hw_usc_run_preshader(&L, uni, &mmu, NULL, &res), HW_USC_OK);
   hw_usc_shader_free(pre);
   assert_result_ok(&res);
   assert_int_equal(uni[8], 0xdeadbeef);     /* half 16 = u8 */
   assert_int_equal(uni[10] & 0xffff, 4660);

   struct opts o;
   opts_default(&o);
   memcpy(o.uni, uni, sizeof(uni));
   run_ok("get_sr r1, sr52\n"
          "iadd r2, u8, r1\n"
          "device_store 0, i32, x, r2, u4_u5, r1, unsigned, 0\n"
          "stop\n", &o);
   for (unsigned l = 0; l < 32; l++)
      assert_int_equal(u32_at(BUF_C + 4 * l), 0xdeadbeef + l);
}

/* A main shader's uniform_store is seen by the rest of its workgroup but
 * never reaches the launch's array: the launch copies the uniforms for a
 * shader that stores them (and only then; others read them in place). */
static void
test_uniform_store_private(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   o.uni[8] = 5;
   for (unsigned run_no = 0; run_no < 2; run_no++) {
      run_ok("mov_imm r19, 100, 0b0\n"
             "uniform_store 0, i32, x, 0, r19, 16\n"
             "get_sr r1, sr52\n"
             "iadd r2, u8, r1\n"
             "device_store 0, i32, x, r2, u4_u5, r1, unsigned, 0\n"
             "stop\n", &o);
      for (unsigned l = 0; l < 32; l++)
         assert_int_equal(u32_at(BUF_C + 4 * l), 100 + l);
      assert_int_equal(o.uni[8], 5);
   }
   /* without a uniform_store the launch's values are read */
   run_ok("get_sr r1, sr52\n"
          "iadd r2, u8, r1\n"
          "device_store 0, i32, x, r2, u4_u5, r1, unsigned, 0\n"
          "stop\n", &o);
   for (unsigned l = 0; l < 32; l++)
      assert_int_equal(u32_at(BUF_C + 4 * l), 5 + l);
}

/* ---- errors -------------------------------------------------------------- */

static void
test_faults(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   struct hw_usc_result res;
   o.uni[8] = 0x1000;      /* u8_u9 = 0x1000: unmapped */
   o.uni[9] = 0;
   assert_int_equal(run("mov_imm r3, 9, 0b0\n"
                        "device_load 0, i32, x, r3, u8_u9, 4, unsigned\n"
                        "wait 0\nstop\n", &o, &res), HW_USC_FAULT);
   assert_true(res.fault.valid);
   assert_true(res.fault.read);
   assert_int_equal(res.fault.addr, 0x1010);
   assert_int_equal(res.fault.unit, HW_UNIT_USC);
   assert_int_equal(res.pc, GPU(CODE_OFF) + 6);   /* the device_load */

   /* soft faults: reads give 0, writes vanish, the shader completes */
   o.soft_faults = true;
   run_ok("mov_imm r3, 9, 0b0\n"
          "device_load 0, i32, x, r3, u8_u9, 4, unsigned\n"
          "wait 0\n"
          "device_store 0, i32, x, r3, u8_u9, 0, unsigned, 0\n"
          "stop\n", &o);
   assert_int_equal(cap_r[0][3][0], 0);
   o.soft_faults = false;

   /* write to a read-only page */
   usc_test_ro_page = GPU(BUF_D);
   assert_int_equal(run("device_store 0, i32, x, r3, u6_u7, 0, unsigned, 0\nstop\n", &o, &res),
                    HW_USC_FAULT);
   assert_false(res.fault.read);
   assert_int_equal(res.fault.reason, HW_FAULT_READ_ONLY);
   usc_test_ro_page = 0;
}

static void
test_budget_stop_trap(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   struct hw_usc_result res;
   o.budget = 1000;
   assert_int_equal(run("top:\njmp_exec_any pc+top\nstop\n", &o, &res), HW_USC_BUDGET);
   assert_int_equal(last_stats.instructions, 1000);
   o.budget = 0;
   volatile int flag = 1;
   o.stop = &flag;
   assert_int_equal(run("top:\njmp_exec_any pc+top\nstop\n", &o, &res), HW_USC_STOPPED);
   o.stop = NULL;
   assert_int_equal(run("mov_imm r2, 1, 0b0\ntrap\nstop\n", &o, &res), HW_USC_TRAP);
   assert_int_equal(res.pc, GPU(CODE_OFF) + 6);
   /* A success after a failure in the same result clears what it shows. */
   memset(&res, 0xab, sizeof(res));
   assert_int_equal(run("mov_imm r2, 1, 0b0\nstop\n", &o, &res), HW_USC_OK);
   assert_result_ok(&res);
   assert_int_equal(run("texture_load 0, 0b0000, 0b0, none, x, 0b00, r6, None, ts0, ss0, "
                        "tex_2d, r4_r5, auto_lod, 0\nstop\n", &o, &res), HW_USC_UNSUPPORTED);
   assert_non_null(strstr(res.message, "texture_load"));
   o.gprs = 4;
   assert_int_equal(run("mov_imm r9, 1, 0b0\nstop\n", &o, &res), HW_USC_BAD_CODE);
   assert_non_null(strstr(res.message, "r9"));
}

/*
 * A preshader loop around a barrier returns to the scheduler at every
 * barrier; the budget must still hold when it runs out exactly there
 * (found by fuzz_hw_usc: a zero budget used to read as "unlimited").
 */
static void
test_preshader_budget_across_barriers(void **state)
{
   (void)state;
   uint8_t code[256];
   size_t len = assemble("top:\n"
                         "threadgroup_barrier\n"
                         "jmp_exec_any pc+top\n"
                         "stop\n", code, sizeof(code));
   char err[128];
   struct hw_usc_shader *pre = hw_usc_compile(code, len, GPU(0), err, sizeof(err));
   assert_non_null(pre);
   uint32_t uni[HW_USC_NUM_UNIFORMS] = { 0 };
   struct hw_usc_stats st = { 0 };
   for (uint64_t budget = 1; budget <= 8; budget++) {
      struct hw_usc_launch L = { .shader = pre, .gpr_count = 8,
                                 .instruction_budget = budget };
      struct hw_mmu mmu;
      hw_mmu_init(&mmu, NULL, 0, HW_UNIT_USC);
      struct hw_usc_result res;
      memset(&st, 0, sizeof(st));
      assert_int_equal(hw_usc_run_preshader(&L, uni, &mmu, &st, &res),
                       HW_USC_BUDGET);
      assert_int_equal(st.instructions, budget);
   }
   hw_usc_shader_free(pre);
}

static enum hw_usc_status
hook_ok(void *user, struct hw_usc_simd *s, const struct agx_instr *in, uint32_t exec)
{
   (void)user;
   if (in->op == AGX_OP_ST_VAR)
      for (unsigned l = 0; l < 32; l++)
         if (exec >> l & 1)
            hw_usc_simd_write32(s, 9, l, 0x5a5a0000u | l);
   return HW_USC_OK;
}

static void
test_stage_hook(void **state)
{
   (void)state;
   struct opts o;
   opts_default(&o);
   o.hook = hook_ok;
   run_ok("st_var 0, r2, 1\nstop\n", &o);
   assert_int_equal(cap_r[0][9][3], 0x5a5a0003);
}

static void
test_bad_code(void **state)
{
   (void)state;
   char err[160];
   static const uint8_t garbage[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
   assert_null(hw_usc_compile(garbage, sizeof(garbage), 0, err, sizeof(err)));
   assert_non_null(strstr(err, "undecodable"));
   /* the message carries the bytes, which name the missing opcode */
   assert_non_null(strstr(err, "at +0x0: ff ff ff ff ff ff ff ff"));

   uint8_t code[64];
   size_t len = assemble("mov_imm r2, 1, 0b0\n", code, sizeof(code));
   assert_null(hw_usc_compile(code, len, 0, err, sizeof(err)));
   assert_non_null(strstr(err, "runs off the end"));

   len = assemble("jmp_exec_any pc+2\nstop\n", code, sizeof(code));
   assert_null(hw_usc_compile(code, len, 0, err, sizeof(err)));
   assert_non_null(strstr(err, "not an instruction"));

   len = assemble("jmp_exec_any pc+400\nstop\n", code, sizeof(code));
   assert_null(hw_usc_compile(code, len, 0, err, sizeof(err)));

   /* truncated instruction */
   len = assemble("mov_imm r2, 1, 0b0\nstop\n", code, sizeof(code));
   assert_null(hw_usc_compile(code, 3, 0, err, sizeof(err)));

   /* random bytes never crash: either an error or a shader */
   uint32_t seed = 7;
   for (unsigned i = 0; i < 2000; i++) {
      uint8_t buf[48];
      for (unsigned k = 0; k < sizeof(buf); k++) {
         seed = seed * 1664525u + 1013904223u;
         buf[k] = (uint8_t)(seed >> 24);
      }
      buf[46] = 0x88;
      buf[47] = 0x00;
      struct hw_usc_shader *s = hw_usc_compile(buf, sizeof(buf), 0, err, sizeof(err));
      hw_usc_shader_free(s);
   }
}

static void
test_cache_and_timing(void **state)
{
   (void)state;
   struct hw_usc_cache *c = hw_usc_cache_create();
   assert_non_null(c);
   uint8_t code[64];
   size_t len = assemble("fadd32 r2, r2, r2\nfadd32 r2, r2, r2\nrcp r3, r2\n"
                         "imadd r4, r2, r2, 0\nstop\n", code, sizeof(code));
   memcpy(host(0x8000), code, len);
   struct hw_mmu mmu;
   hw_mmu_init(&mmu, NULL, 0, HW_UNIT_USC);
   struct hw_usc_result res;
   const struct hw_usc_shader *a = hw_usc_cache_get(c, &mmu, GPU(0x8000), &res);
   assert_non_null(a);
   const struct hw_usc_shader *b = hw_usc_cache_get(c, &mmu, GPU(0x8000), &res);
   assert_ptr_equal(a, b);
   assert_int_equal(hw_usc_cache_entries(c), 1);
   assert_int_equal(hw_usc_shader_length(a), 5);
   assert_int_equal(hw_usc_shader_bytes(a), len);
   /* changed content at the same address: a new entry */
   code[0] ^= 0;
   len = assemble("fadd32 r2, r2, r3\nstop\n", code, sizeof(code));
   memcpy(host(0x8000), code, len);
   const struct hw_usc_shader *d = hw_usc_cache_get(c, &mmu, GPU(0x8000), &res);
   assert_non_null(d);
   assert_ptr_not_equal(a, d);
   assert_int_equal(hw_usc_cache_entries(c), 2);
   /* unmapped code address -> fault */
   assert_null(hw_usc_cache_get(c, &mmu, 0x4000, &res));
   assert_int_equal(res.status, HW_USC_FAULT);

   /* timing: 2 ALU + 1 SFU (4) + 1 IMUL (4) + stop (1) = 11 per group;
    * two groups; identical on every run */
   struct hw_usc_launch L = { .shader = a, .gpr_count = 8,
                              .threads_per_threadgroup = { 64, 1, 1 } };
   struct hw_usc_workgroup wg = { 0 };
   struct hw_usc_stats s1 = { 0 }, s2 = { 0 };
   assert_int_equal(hw_usc_run_workgroup(&L, &wg, &mmu, &s1, &res), HW_USC_OK);
   assert_int_equal(hw_usc_run_workgroup(&L, &wg, &mmu, &s2, &res), HW_USC_OK);
   assert_int_equal(s1.cycles, 22);
   assert_int_equal(s1.max_simd_cycles, 11);
   assert_int_equal(s1.instructions, 10);
   assert_int_equal(s1.sfu, 2);
   assert_int_equal(s1.imul, 2);
   assert_memory_equal(&s1, &s2, sizeof(s1));
   hw_usc_cache_destroy(c);
}

/* The model's inline popcount (tessera/bits.h) against the compiler's. */
static void
test_popcount32(void **state)
{
   (void)state;
   for (uint64_t v = 0; v <= 0xffffffffu; v += 65521)
      assert_int_equal(tessera_popcount32((uint32_t)v), __builtin_popcount((uint32_t)v));
   assert_int_equal(tessera_popcount32(0xffffffffu), 32);
   for (unsigned i = 0; i < 32; i++)
      assert_int_equal(tessera_popcount32(1u << i), 1);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_half_conversions),
      cmocka_unit_test(test_popcount32),
      cmocka_unit_test(test_int_alu),
      cmocka_unit_test(test_float_alu),
      cmocka_unit_test(test_half_alu),
      cmocka_unit_test(test_sfu_and_derivatives),
      cmocka_unit_test(test_control_flow_loops),
      cmocka_unit_test(test_call_ret_and_partial_group),
      cmocka_unit_test(test_simd_ops),
      cmocka_unit_test(test_ballot),
      cmocka_unit_test(test_device_formats),
      cmocka_unit_test(test_device_load_fast_path),
      cmocka_unit_test(test_positions_fast_path),
      cmocka_unit_test(test_strict_wait),
      cmocka_unit_test(test_threadgroup_transpose),
      cmocka_unit_test(test_stack_and_bounds),
      cmocka_unit_test(test_atomics),
      cmocka_unit_test(test_cmpsel_high_uniforms),
      cmocka_unit_test(test_preshader_uniforms),
      cmocka_unit_test(test_uniform_store_private),
      cmocka_unit_test(test_faults),
      cmocka_unit_test(test_budget_stop_trap),
      cmocka_unit_test(test_preshader_budget_across_barriers),
      cmocka_unit_test(test_stage_hook),
      cmocka_unit_test(test_bad_code),
      cmocka_unit_test(test_cache_and_timing),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
