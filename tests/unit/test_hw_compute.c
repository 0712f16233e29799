/* SPDX-License-Identifier: MIT */
/*
 * Compute through the firmware, as the kernel drives it: kernels in AGX
 * assembly (tests/data/compute/NAME.s) checked against CPU computations,
 * faults, timeouts and determinism across worker counts.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmdstream/agx_pack.h"
#include "test_hw_compute_util.h"
#include "tessera/float_bits.h"


/* uniform words u[0..n) preloaded from memory into u0.. */
static void
preload(struct tc *c, struct tc_pipeline *p, const uint32_t *u, unsigned n)
{
   p->uniforms[p->nuniforms++] = (struct tc_uniform){
      .start_halfs = 0, .size_halfs = 2 * n,
      .buffer = tc_uniform_buffer(c, 0, u, n),
   };
}

static uint64_t
buffer(struct tc *c, size_t size, void **host)
{
   return tc_alloc(c, 0, size, host);
}

/* ---- kernels ---------------------------------------------------------- */

static void
test_saxpy(void **state)
{
   (void)state;
   struct tc c;
   tc_setup(&c, 2, NULL);
   enum { N = 1000 };
   float *x, *y, ref[N];
   uint64_t xva = buffer(&c, N * 4, (void **)&x);
   uint64_t yva = buffer(&c, N * 4, (void **)&y);
   const float a = 1.75f;
   for (unsigned i = 0; i < N; i++) {
      x[i] = (float)i * 0.25f - 3.0f;
      y[i] = 100.0f / (float)(i + 1);
      ref[i] = fmaf(a, x[i], y[i]);
   }
   struct tc_pipeline p = { .shader = tc_kernel(&c, 0, "saxpy"), .register_halves = 16 };
   uint32_t u[5] = { (uint32_t)xva, (uint32_t)(xva >> 32), (uint32_t)yva,
                     (uint32_t)(yva >> 32), tessera_fui(a) };
   preload(&c, &p, u, 5);
   /* 1000 threads in groups of 64: 15 full groups and one of 40 (a full
    * SIMD group and one of 8 lanes). */
   struct tc_result r;
   tc_run1(&c, 0, tc_pipeline(&c, 0, &p), (uint32_t[3]){ N, 1, 1 },
           (uint32_t[3]){ 64, 1, 1 }, &r);
   assert_false(r.error);
   for (unsigned i = 0; i < N; i++)
      assert_int_equal(tessera_fui(y[i]), tessera_fui(ref[i]));
   struct hw_cdm_stats st;
   hw_cdm_last_stats(c.cdm, &st);
   assert_int_equal(st.launches, 1);
   assert_int_equal(st.workgroups, 16);
   assert_int_equal(st.usc.bytes_written, N * 4);
   assert_true(r.t1 > r.t0);
   tc_teardown(&c);
}

static void
test_reduce_atomic(void **state)
{
   (void)state;
   struct tc c;
   tc_setup(&c, 2, NULL);
   enum { W = 37, H = 13 };
   uint32_t *in, *out;
   uint64_t inva = buffer(&c, W * H * 4, (void **)&in);
   uint64_t outva = buffer(&c, 16, (void **)&out);
   uint64_t sum = 0;
   for (unsigned i = 0; i < W * H; i++) {
      in[i] = i * 2654435761u >> 8;
      sum += in[i];
   }
   struct tc_pipeline p = { .shader = tc_kernel(&c, 0, "reduce_atomic") };
   uint32_t u[7] = { (uint32_t)inva, (uint32_t)(inva >> 32), (uint32_t)outva,
                     (uint32_t)(outva >> 32), 0, 0, W };
   preload(&c, &p, u, 7);
   /* 5 x 4 workgroups of 8 x 4: partial in both dimensions. */
   struct tc_result r;
   tc_run1(&c, 0, tc_pipeline(&c, 0, &p), (uint32_t[3]){ W, H, 1 },
           (uint32_t[3]){ 8, 4, 1 }, &r);
   assert_false(r.error);
   assert_int_equal(out[0], (uint32_t)sum);
   assert_int_equal(out[1], W * H - 1);
   assert_int_equal(out[2], W * H);
   struct hw_cdm_stats st;
   hw_cdm_last_stats(c.cdm, &st);
   assert_int_equal(st.workgroups, 5 * 4);
   tc_teardown(&c);
}

static void
test_transpose(void **state)
{
   (void)state;
   struct tc c;
   tc_setup(&c, 2, NULL);
   enum { W = 32, H = 24 };
   uint32_t *in, *out;
   uint64_t inva = buffer(&c, W * H * 4, (void **)&in);
   uint64_t outva = buffer(&c, W * H * 4, (void **)&out);
   for (unsigned i = 0; i < W * H; i++)
      in[i] = 0x10000 + i;
   struct tc_pipeline p = { .shader = tc_kernel(&c, 0, "transpose"), .tg_bytes = 256 };
   uint32_t u[5] = { (uint32_t)inva, (uint32_t)(inva >> 32), (uint32_t)outva,
                     (uint32_t)(outva >> 32), W };
   preload(&c, &p, u, 5);
   struct tc_result r;
   tc_run1(&c, 0, tc_pipeline(&c, 0, &p), (uint32_t[3]){ W, H, 1 },
           (uint32_t[3]){ 8, 8, 1 }, &r);
   assert_false(r.error);
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         unsigned bx = x / 8, by = y / 8, lx = x % 8, ly = y % 8;
         assert_int_equal(out[y * W + x], in[(by * 8 + lx) * W + bx * 8 + ly]);
      }
   struct hw_cdm_stats st;
   hw_cdm_last_stats(c.cdm, &st);
   assert_int_equal(st.usc.barriers, 4 * 3 * 2);   /* per SIMD group */
   tc_teardown(&c);
}

static unsigned
collatz(uint32_t n)
{
   unsigned steps = 0;
   while (n != 1) {
      n = (n & 1) ? 3 * n + 1 : n >> 1;
      steps++;
   }
   return steps;
}

static void
test_divergent_loops(void **state)
{
   (void)state;
   struct tc c;
   tc_setup(&c, 2, NULL);
   enum { N = 1000 };
   uint32_t *out;
   uint64_t outva = buffer(&c, N * 4, (void **)&out);
   memset(out, 0xee, N * 4);
   struct tc_pipeline p = { .shader = tc_kernel(&c, 0, "collatz") };
   uint32_t u[2] = { (uint32_t)outva, (uint32_t)(outva >> 32) };
   preload(&c, &p, u, 2);
   struct tc_result r;
   tc_run1(&c, 0, tc_pipeline(&c, 0, &p), (uint32_t[3]){ N, 1, 1 },
           (uint32_t[3]){ 96, 1, 1 }, &r);
   assert_false(r.error);
   for (unsigned i = 0; i < N; i++)
      assert_int_equal(out[i], collatz(i + 1));
   tc_teardown(&c);
}

static void
test_preshader(void **state)
{
   (void)state;
   struct tc c;
   tc_setup(&c, 2, NULL);
   enum { N = 300 };
   uint32_t *out;
   uint64_t outva = buffer(&c, N * 4, (void **)&out);
   struct tc_pipeline p = {
      .shader = tc_kernel(&c, 0, "preamble_main"),
      .preshader = tc_kernel(&c, 0, "preamble_pre"),
   };
   /* u0_u1 = out, u4 = 7 (squared by the preshader into u5), u6 = 11 */
   uint32_t u[7] = { (uint32_t)outva, (uint32_t)(outva >> 32), 0, 0, 7, 0, 11 };
   preload(&c, &p, u, 7);
   struct tc_result r;
   tc_run1(&c, 0, tc_pipeline(&c, 0, &p), (uint32_t[3]){ N, 1, 1 },
           (uint32_t[3]){ 32, 1, 1 }, &r);
   assert_false(r.error);
   for (unsigned i = 0; i < N; i++)
      assert_int_equal(out[i], i * 49 + 11);
   struct hw_cdm_stats st;
   hw_cdm_last_stats(c.cdm, &st);
   assert_int_equal(st.preshaders, 1);
   assert_int_equal(st.workgroups, 10);
   tc_teardown(&c);
}

static void
test_format_conversion(void **state)
{
   (void)state;
   struct tc c;
   tc_setup(&c, 2, NULL);
   enum { N = 256 + 77 };
   uint8_t *in;
   int16_t *out;
   uint64_t inva = buffer(&c, N, (void **)&in);
   uint64_t outva = buffer(&c, N * 2, (void **)&out);
   for (unsigned i = 0; i < N; i++)
      in[i] = (uint8_t)(i * 7 + 3);
   struct tc_pipeline p = { .shader = tc_kernel(&c, 0, "convert") };
   uint32_t u[4] = { (uint32_t)inva, (uint32_t)(inva >> 32), (uint32_t)outva,
                     (uint32_t)(outva >> 32) };
   preload(&c, &p, u, 4);
   struct tc_result r;
   tc_run1(&c, 0, tc_pipeline(&c, 0, &p), (uint32_t[3]){ N, 1, 1 },
           (uint32_t[3]){ 128, 1, 1 }, &r);
   assert_false(r.error);
   for (unsigned i = 0; i < N; i++) {
      float f = (float)(in[i] / 255.0);
      float v = fmaf(f, 2.0f, -1.0f);
      double s = v < -1 ? -1 : v > 1 ? 1 : v;
      int16_t want = (int16_t)nearbyint(s * 32767.0);
      assert_int_equal(out[i], want);
   }
   assert_int_equal(out[0], -32767 + 2 * 3 * 32767 / 255 + 1);   /* 3/255 */
   tc_teardown(&c);
}

/* ---- faults ------------------------------------------------------------ */

#define UNMAPPED_VA (T_USER_VA + 0x40000000ull)

static uint32_t
saxpy_pipeline(struct tc *c, unsigned vm, uint64_t x, uint64_t y, uint64_t shader)
{
   struct tc_pipeline p = { .shader = shader };
   uint32_t u[5] = { (uint32_t)x, (uint32_t)(x >> 32), (uint32_t)y,
                     (uint32_t)(y >> 32), tessera_fui(2.0f) };
   p.uniforms[p.nuniforms++] = (struct tc_uniform){
      .size_halfs = 10, .buffer = tc_uniform_buffer(c, vm, u, 5) };
   return tc_pipeline(c, vm, &p);
}

static void
expect_fault(struct tc *c, const struct tc_result *r, unsigned unit,
             unsigned reason, bool read, uint64_t addr, unsigned slot)
{
   struct agx_fw_event_fault f;
   struct agx_fault_info fi;
   tc_fault(r, &f, &fi);
   assert_int_equal(fi.unit, unit);
   assert_int_equal(fi.reason, reason);
   assert_int_equal(fi.read, read);
   assert_int_equal(fi.vm_slot, slot);
   assert_int_equal(f.vm_slot, slot);
   assert_int_equal(f.address, addr);
   /* the FAULT_INFO register latched the same fault */
   assert_int_equal(hw_device_fault_info(c->t.dev), f.fault_info);
   hw_device_clear_fault_info(c->t.dev);
}

static void
test_fault_unmapped_read(void **state)
{
   (void)state;
   struct tc c;
   tc_setup(&c, 2, NULL);
   float *y;
   uint64_t yva = buffer(&c, 64 * 4, (void **)&y);
   uint32_t pl = saxpy_pipeline(&c, 0, UNMAPPED_VA, yva, tc_kernel(&c, 0, "saxpy"));
   struct tc_result r;
   /* one workgroup, so which workgroup faults first is not a question */
   tc_run1(&c, 0, pl, (uint32_t[3]){ 64, 1, 1 }, (uint32_t[3]){ 64, 1, 1 }, &r);
   expect_fault(&c, &r, AGX_FAULT_UNIT_USC, AGX_UAT_FAULT_REASON_UNMAPPED,
                true, UNMAPPED_VA, 1);
   for (unsigned i = 0; i < 64; i++)
      assert_true(y[i] == 0.0f);   /* nothing stored */
   tc_teardown(&c);
}

static void
test_fault_read_only_and_other_vm(void **state)
{
   (void)state;
   struct tc c;
   tc_setup(&c, 2, NULL);
   /* VM 0: y is a read-only page. */
   const uint64_t ro = T_USER_VA + 0x2000000ull;
   float *yro = t_user_map(&c.t, c.vm[0].slot, ro, 1, HW_UAT_READ);
   yro[5] = 3.0f;
   float *x0;
   uint64_t x0va = tc_alloc(&c, 0, 64 * 4, (void **)&x0);
   uint32_t pl0 = saxpy_pipeline(&c, 0, x0va, ro, tc_kernel(&c, 0, "saxpy"));
   struct tc_stream s0;
   tc_stream_init(&c, 0, &s0, 128);
   tc_launch(&s0, pl0, (uint32_t[3]){ 64, 1, 1 }, (uint32_t[3]){ 64, 1, 1 });
   tc_terminate(&s0);

   /* VM 1: a good saxpy at the same virtual addresses' neighbours. */
   float *x1, *y1;
   uint64_t x1va = tc_alloc(&c, 1, 100 * 4, (void **)&x1);
   uint64_t y1va = tc_alloc(&c, 1, 100 * 4, (void **)&y1);
   for (unsigned i = 0; i < 100; i++) {
      x1[i] = (float)i;
      y1[i] = 1.0f;
   }
   uint32_t pl1 = saxpy_pipeline(&c, 1, x1va, y1va, tc_kernel(&c, 1, "saxpy"));
   struct tc_stream s1;
   tc_stream_init(&c, 1, &s1, 128);
   tc_launch(&s1, pl1, (uint32_t[3]){ 100, 1, 1 }, (uint32_t[3]){ 32, 1, 1 });
   tc_terminate(&s1);

   /* Both queued before either runs. */
   uint64_t j0 = tc_job(&c, 0, s0.va), j1 = tc_job(&c, 1, s1.va);
   t_submit_quiet(&c.t, &c.vm[0].q, j0);
   t_submit_quiet(&c.t, &c.vm[1].q, j1);
   hw_doorbell(c.t.dev, HW_DOORBELL_PIPE(AGX_FW_PIPE_COMPUTE, 0));
   struct tc_result r0, r1;
   tc_wait(&c, 0, &r0);
   expect_fault(&c, &r0, AGX_FAULT_UNIT_USC, AGX_UAT_FAULT_REASON_READ_ONLY,
                false, ro, 1);
   assert_true(yro[5] == 3.0f);
   tc_wait(&c, 1, &r1);
   assert_false(r1.error);
   for (unsigned i = 0; i < 100; i++)
      assert_true(y1[i] == 2.0f * (float)i + 1.0f);
   tc_teardown(&c);
}

static void
test_fault_bad_shader_address(void **state)
{
   (void)state;
   struct tc c;
   tc_setup(&c, 2, NULL);
   uint64_t buf = buffer(&c, 256, NULL);
   uint32_t pl = saxpy_pipeline(&c, 0, buf, buf, UNMAPPED_VA);
   struct tc_result r;
   tc_run1(&c, 0, pl, (uint32_t[3]){ 64, 1, 1 }, (uint32_t[3]){ 64, 1, 1 }, &r);
   expect_fault(&c, &r, AGX_FAULT_UNIT_USC, AGX_UAT_FAULT_REASON_UNMAPPED,
                true, UNMAPPED_VA, 1);
   /* the device keeps working */
   float *x, *y;
   uint64_t xva = buffer(&c, 32 * 4, (void **)&x);
   uint64_t yva = buffer(&c, 32 * 4, (void **)&y);
   x[3] = 4.0f;
   pl = saxpy_pipeline(&c, 0, xva, yva, tc_kernel(&c, 0, "saxpy"));
   tc_run1(&c, 0, pl, (uint32_t[3]){ 32, 1, 1 }, (uint32_t[3]){ 32, 1, 1 }, &r);
   assert_false(r.error);
   assert_true(y[3] == 8.0f);
   tc_teardown(&c);
}

/* ---- runaway shaders ----------------------------------------------------- */

static void
test_cycle_budget(void **state)
{
   (void)state;
   struct tc c;
   struct hw_device_config cfg = { .mem_size = 256ull << 20,
                                   .job_cycle_budget = 2000000 };
   tc_setup(&c, 2, &cfg);
   struct tc_pipeline p = { .shader = tc_kernel(&c, 0, "spin") };
   struct tc_result r;
   tc_run1(&c, 0, tc_pipeline(&c, 0, &p), (uint32_t[3]){ 256, 1, 1 },
           (uint32_t[3]){ 64, 1, 1 }, &r);
   assert_true(r.error);
   assert_int_equal(r.type, AGX_FW_EVENT_TIMEOUT);
   /* The clock moved by exactly the budget plus the firmware's costs. */
   assert_int_equal(r.cycles, HW_FW_START_CYCLES + 2000000 + HW_FW_FINALIZE_CYCLES);
   tc_teardown(&c);
}

static void
test_watchdog(void **state)
{
   (void)state;
   struct tc c;
   struct hw_device_config cfg = { .mem_size = 256ull << 20, .job_timeout_ms = 200 };
   tc_setup(&c, 2, &cfg);
   struct tc_pipeline p = { .shader = tc_kernel(&c, 0, "spin") };
   struct tc_result r;
   tc_run1(&c, 0, tc_pipeline(&c, 0, &p), (uint32_t[3]){ 4096, 1, 1 },
           (uint32_t[3]){ 64, 1, 1 }, &r);
   assert_true(r.error);
   assert_int_equal(r.type, AGX_FW_EVENT_TIMEOUT);
   tc_teardown(&c);
}

/* ---- determinism ---------------------------------------------------------- */

struct det_out {
   uint8_t mem[16384];
   uint64_t t0, t1, cycles;
   struct hw_cdm_stats st;
};

/* Several kernels in one job, with atomics, divergence and threadgroup
 * memory; returns the output memory and the timing. */
static void
det_run(unsigned threads, unsigned runs, struct det_out *o)
{
   struct tc c;
   tc_setup(&c, threads, NULL);
   uint8_t *mem;
   uint64_t m = buffer(&c, sizeof(o->mem), (void **)&mem);
   uint32_t *w = (uint32_t *)mem;
   for (unsigned i = 0; i < 1024; i++)
      w[i] = i * 0x9e3779b9u;
   uint64_t x = m, y = m + 4096, red = m + 8192, col = m + 8192 + 64,
            tin = m, tout = m + 12288;
   struct tc_stream s;
   tc_stream_init(&c, 0, &s, 512);
   {
      struct tc_pipeline p = { .shader = tc_kernel(&c, 0, "collatz") };
      uint32_t u[2] = { (uint32_t)col, (uint32_t)(col >> 32) };
      preload(&c, &p, u, 2);
      tc_launch(&s, tc_pipeline(&c, 0, &p), (uint32_t[3]){ 700, 1, 1 },
                (uint32_t[3]){ 64, 1, 1 });
   }
   {
      struct tc_pipeline p = { .shader = tc_kernel(&c, 0, "reduce_atomic") };
      uint32_t u[7] = { (uint32_t)x, (uint32_t)(x >> 32), (uint32_t)red,
                        (uint32_t)(red >> 32), 0, 0, 31 };
      preload(&c, &p, u, 7);
      tc_launch(&s, tc_pipeline(&c, 0, &p), (uint32_t[3]){ 31, 17, 1 },
                (uint32_t[3]){ 16, 4, 1 });
   }
   tc_barrier(&s, false, false);
   {
      struct tc_pipeline p = { .shader = tc_kernel(&c, 0, "transpose"), .tg_bytes = 256 };
      uint32_t u[5] = { (uint32_t)tin, (uint32_t)(tin >> 32), (uint32_t)tout,
                        (uint32_t)(tout >> 32), 32 };
      preload(&c, &p, u, 5);
      tc_launch(&s, tc_pipeline(&c, 0, &p), (uint32_t[3]){ 32, 32, 1 },
                (uint32_t[3]){ 8, 8, 1 });
   }
   (void)y;
   tc_terminate(&s);
   struct tc_result r;
   for (unsigned i = 0; i < runs; i++) {
      memcpy(mem + 8192, (uint8_t[64]){ 0 }, 64);   /* reset the reduction */
      tc_run(&c, 0, s.va, &r);
      assert_false(r.error);
      if (i == 0) {
         o->t0 = r.t0;
         o->t1 = r.t1;
         o->cycles = r.cycles;
      } else {
         /* the same job again takes the same time */
         assert_int_equal(r.t1 - r.t0, o->t1 - o->t0);
         assert_int_equal(r.cycles, o->cycles);
      }
   }
   memcpy(o->mem, mem, sizeof(o->mem));
   hw_cdm_last_stats(c.cdm, &o->st);
   tc_teardown(&c);
}

static void
test_determinism_threads(void **state)
{
   (void)state;
   struct det_out *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
   assert_non_null(a);
   assert_non_null(b);
   det_run(1, 2, a);
   det_run(5, 2, b);
   assert_memory_equal(a->mem, b->mem, sizeof(a->mem));
   assert_int_equal(a->t0, b->t0);
   assert_int_equal(a->t1, b->t1);
   assert_int_equal(a->cycles, b->cycles);
   assert_int_equal(a->st.cycles, b->st.cycles);
   assert_memory_equal(a->st.core_cycles, b->st.core_cycles, sizeof(a->st.core_cycles));
   assert_int_equal(a->st.usc.instructions, b->st.usc.instructions);
   /* the reduction really ran (twice, from a reset) */
   uint32_t cnt;
   memcpy(&cnt, a->mem + 8192 + 8, 4);
   assert_int_equal(cnt, 31 * 17);
   free(a);
   free(b);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_saxpy),
      cmocka_unit_test(test_reduce_atomic),
      cmocka_unit_test(test_transpose),
      cmocka_unit_test(test_divergent_loops),
      cmocka_unit_test(test_preshader),
      cmocka_unit_test(test_format_conversion),
      cmocka_unit_test(test_fault_unmapped_read),
      cmocka_unit_test(test_fault_read_only_and_other_vm),
      cmocka_unit_test(test_fault_bad_shader_address),
      cmocka_unit_test(test_cycle_budget),
      cmocka_unit_test(test_watchdog),
      cmocka_unit_test(test_determinism_threads),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
