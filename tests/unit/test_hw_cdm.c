/* SPDX-License-Identifier: MIT */
/*
 * The CDM control stream through the firmware: links, calls and returns,
 * indirect launches, barriers, terminate, malformed streams, and the
 * timing model's arithmetic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "cmdstream/agx_pack.h"
#include "test_hw_compute_util.h"

enum { N = 70 };

struct fixture {
   struct tc c;
   uint32_t *y;             /* N words the "ordered" kernel appends digits to */
   uint64_t yva;
   uint32_t digit[10];      /* pipelines appending 0..9 */
};

static int
setup(void **state)
{
   struct fixture *f = test_calloc(1, sizeof(*f));
   tc_setup(&f->c, 2, NULL);
   f->yva = tc_alloc(&f->c, 0, N * 4, (void **)&f->y);
   uint64_t code = tc_kernel(&f->c, 0, "ordered");
   for (unsigned d = 0; d < 10; d++) {
      struct tc_pipeline p = { .shader = code };
      uint32_t u[5] = { (uint32_t)f->yva, (uint32_t)(f->yva >> 32), 0, 0, d };
      p.uniforms[p.nuniforms++] = (struct tc_uniform){
         .size_halfs = 10, .buffer = tc_uniform_buffer(&f->c, 0, u, 5) };
      f->digit[d] = tc_pipeline(&f->c, 0, &p);
   }
   *state = f;
   return 0;
}

static int
teardown(void **state)
{
   struct fixture *f = *state;
   tc_teardown(&f->c);
   test_free(f);
   return 0;
}

static void
launch_digit(struct fixture *f, struct tc_stream *s, unsigned d)
{
   tc_launch(s, f->digit[d], (uint32_t[3]){ N, 1, 1 }, (uint32_t[3]){ 32, 1, 1 });
}

static void
expect_all(struct fixture *f, uint32_t v)
{
   for (unsigned i = 0; i < N; i++)
      assert_int_equal(f->y[i], v);
   memset(f->y, 0, N * 4);
}

static void
expect_job_error(struct fixture *f, const struct tc_result *r, const char *text)
{
   assert_true(r->error);
   assert_int_equal(r->type, AGX_FW_EVENT_JOB_ERROR);
   struct agx_fw_event_job_error e;
   assert_true(agx_fw_event_job_error_unpack(r->msg, &e));
   assert_int_equal(e.error, AGX_FW_ERROR_EXECUTOR);
   const char *msg = hw_device_last_error(f->c.t.dev);
   if (!strstr(msg, text))
      fail_msg("error '%s' does not mention '%s'", msg, text);
}

static void
test_link_call_return(void **state)
{
   struct fixture *f = *state;
   struct tc_stream a, b, c;
   tc_stream_init(&f->c, 0, &a, 256);
   tc_stream_init(&f->c, 0, &b, 256);
   tc_stream_init(&f->c, 0, &c, 256);
   /* a: 1, call b, 4, jump c | b: 2, call c2 (3, return), return | c: 5 */
   struct tc_stream c2;
   tc_stream_init(&f->c, 0, &c2, 256);
   launch_digit(f, &c2, 3);
   tc_barrier(&c2, false, true);

   launch_digit(f, &a, 1);
   tc_link(&a, b.va, true);
   launch_digit(f, &a, 4);
   tc_link(&a, c.va, false);

   launch_digit(f, &b, 2);
   tc_link(&b, c2.va, true);
   tc_barrier(&b, false, true);

   launch_digit(f, &c, 5);
   tc_terminate(&c);
   launch_digit(f, &c, 9);   /* after the terminate: never runs */
   tc_terminate(&c);

   struct tc_result r;
   tc_run(&f->c, 0, a.va, &r);
   assert_false(r.error);
   expect_all(f, 12345);
   struct hw_cdm_stats st;
   hw_cdm_last_stats(f->c.cdm, &st);
   assert_int_equal(st.launches, 5);
   assert_int_equal(st.blocks, 5 + 3 + 2 + 1);
}

static void
test_indirect(void **state)
{
   struct fixture *f = *state;
   uint32_t *ind;
   uint64_t iva = tc_alloc(&f->c, 0, 64, (void **)&ind);
   /* indirect global: 3 x u32 grid, local from the stream */
   ind[0] = N; ind[1] = 1; ind[2] = 1;
   /* indirect local: grid then local, 6 x u32 */
   ind[4] = 40; ind[5] = 1; ind[6] = 1;
   ind[7] = 16; ind[8] = 1; ind[9] = 1;
   struct tc_stream s;
   tc_stream_init(&f->c, 0, &s, 256);
   tc_launch_indirect(&s, f->digit[7], AGX_CDM_MODE_INDIRECT_GLOBAL, iva,
                      (uint32_t[3]){ 64, 1, 1 });
   tc_launch_indirect(&s, f->digit[8], AGX_CDM_MODE_INDIRECT_LOCAL, iva + 16, NULL);
   tc_terminate(&s);
   struct tc_result r;
   tc_run(&f->c, 0, s.va, &r);
   assert_false(r.error);
   for (unsigned i = 0; i < N; i++)
      assert_int_equal(f->y[i], i < 40 ? 78 : 7);
   struct hw_cdm_stats st;
   hw_cdm_last_stats(f->c.cdm, &st);
   assert_int_equal(st.workgroups, 2 + 3);
   memset(f->y, 0, N * 4);

   /* an empty grid launches nothing and is fine */
   ind[0] = 0;
   tc_run(&f->c, 0, s.va, &r);
   assert_false(r.error);
   hw_cdm_last_stats(f->c.cdm, &st);
   assert_int_equal(st.workgroups, 3);

   /* an unmapped indirect buffer is a CDM fault */
   tc_stream_init(&f->c, 0, &s, 256);
   tc_launch_indirect(&s, f->digit[7], AGX_CDM_MODE_INDIRECT_GLOBAL,
                      T_USER_VA + 0x3000000, (uint32_t[3]){ 64, 1, 1 });
   tc_terminate(&s);
   tc_run(&f->c, 0, s.va, &r);
   struct agx_fw_event_fault fe;
   struct agx_fault_info fi;
   tc_fault(&r, &fe, &fi);
   assert_int_equal(fi.unit, AGX_FAULT_UNIT_CDM);
   assert_int_equal(fe.address, T_USER_VA + 0x3000000);
   hw_device_clear_fault_info(f->c.t.dev);
}

static void
test_barrier_and_timing(void **state)
{
   struct fixture *f = *state;
   /* Terminate alone: one block. */
   struct tc_stream s;
   tc_stream_init(&f->c, 0, &s, 256);
   tc_terminate(&s);
   struct tc_result r;
   tc_run(&f->c, 0, s.va, &r);
   assert_false(r.error);
   assert_int_equal(r.cycles, HW_FW_START_CYCLES + HW_CDM_BLOCK_CYCLES +
                              HW_FW_FINALIZE_CYCLES);

   /* One launch of one workgroup: the documented formula. */
   tc_stream_init(&f->c, 0, &s, 256);
   tc_launch(&s, f->digit[1], (uint32_t[3]){ 32, 1, 1 }, (uint32_t[3]){ 32, 1, 1 });
   tc_terminate(&s);
   tc_run(&f->c, 0, s.va, &r);
   assert_false(r.error);
   struct hw_cdm_stats st;
   hw_cdm_last_stats(f->c.cdm, &st);
   uint64_t busy = (st.usc.cycles + 3) / 4 + HW_CDM_WORKGROUP_CYCLES;
   uint64_t crit = st.usc.max_simd_cycles + HW_CDM_WORKGROUP_CYCLES;
   uint64_t want = 2 * HW_CDM_BLOCK_CYCLES + HW_CDM_LAUNCH_CYCLES +
                   (20 + 63) / 64 /* preloaded bytes */ + (busy > crit ? busy : crit);
   assert_int_equal(st.cycles, want);
   assert_int_equal(st.core_cycles[0], busy > crit ? busy : crit);
   assert_int_equal(st.core_cycles[1], 0);
   assert_int_equal(r.cycles, HW_FW_START_CYCLES + want + HW_FW_FINALIZE_CYCLES);
   uint64_t one = st.cycles;
   memset(f->y, 0, N * 4);

   /* Two launches overlap (workgroups go to cores 0 and 1) unless a
    * barrier separates them; an invalidating barrier drops the cache. */
   tc_stream_init(&f->c, 0, &s, 256);
   tc_launch(&s, f->digit[1], (uint32_t[3]){ 32, 1, 1 }, (uint32_t[3]){ 32, 1, 1 });
   tc_launch(&s, f->digit[2], (uint32_t[3]){ 32, 1, 1 }, (uint32_t[3]){ 32, 1, 1 });
   tc_terminate(&s);
   tc_run(&f->c, 0, s.va, &r);
   hw_cdm_last_stats(f->c.cdm, &st);
   uint64_t overlapped = st.cycles;
   assert_int_equal(overlapped, one + HW_CDM_BLOCK_CYCLES + HW_CDM_LAUNCH_CYCLES + 1);
   assert_int_equal(f->y[0], 12);
   memset(f->y, 0, N * 4);

   tc_stream_init(&f->c, 0, &s, 256);
   tc_launch(&s, f->digit[1], (uint32_t[3]){ 32, 1, 1 }, (uint32_t[3]){ 32, 1, 1 });
   tc_barrier(&s, true, false);
   tc_launch(&s, f->digit[2], (uint32_t[3]){ 32, 1, 1 }, (uint32_t[3]){ 32, 1, 1 });
   tc_terminate(&s);
   tc_run(&f->c, 0, s.va, &r);
   hw_cdm_last_stats(f->c.cdm, &st);
   assert_int_equal(st.barriers, 1);
   assert_int_equal(st.cache_invalidations, 1);
   /* one = launch + terminate blocks; here 2 launches, a barrier, 1 terminate */
   assert_int_equal(st.cycles, 2 * one + HW_CDM_BARRIER_CYCLES);
   assert_int_equal(f->y[0], 12);
   memset(f->y, 0, N * 4);
}

static void
test_malformed_streams(void **state)
{
   struct fixture *f = *state;
   struct tc_stream s;
   struct tc_result r;

   /* a block of an unknown type (5 in bits 29..31) */
   tc_stream_init(&f->c, 0, &s, 64);
   memcpy(s.host, (uint32_t[2]){ 0xa0000000u, 0 }, 8);
   tc_run(&f->c, 0, s.va, &r);
   expect_job_error(f, &r, "malformed CDM block");

   /* a jump to itself */
   tc_stream_init(&f->c, 0, &s, 64);
   tc_link(&s, s.va, false);
   tc_run(&f->c, 0, s.va, &r);
   expect_job_error(f, &r, "loops");

   /* return with nothing to return to */
   tc_stream_init(&f->c, 0, &s, 64);
   tc_barrier(&s, false, true);
   tc_run(&f->c, 0, s.va, &r);
   expect_job_error(f, &r, "empty call stack");

   /* calls nested too deep: a stream calling itself */
   tc_stream_init(&f->c, 0, &s, 64);
   launch_digit(f, &s, 0);
   tc_link(&s, s.va, true);
   tc_run(&f->c, 0, s.va, &r);
   expect_job_error(f, &r, "nests deeper");
   memset(f->y, 0, N * 4);

   /* a pipeline with an unknown USC word */
   uint8_t *pw;
   uint64_t pva = tc_alloc(&f->c, 0, 64, (void **)&pw);
   pw[0] = 0x77;
   tc_stream_init(&f->c, 0, &s, 64);
   tc_launch(&s, (uint32_t)(pva - T_USER_VA), (uint32_t[3]){ 1, 1, 1 },
             (uint32_t[3]){ 1, 1, 1 });
   tc_terminate(&s);
   tc_run(&f->c, 0, s.va, &r);
   expect_job_error(f, &r, "unknown USC word 0x77");

   /* a threadgroup of 2048 threads */
   tc_stream_init(&f->c, 0, &s, 64);
   tc_launch(&s, f->digit[0], (uint32_t[3]){ 1, 1, 1 }, (uint32_t[3]){ 64, 32, 1 });
   tc_terminate(&s);
   tc_run(&f->c, 0, s.va, &r);
   expect_job_error(f, &r, "1..1024 threads");

   /* a stream that runs into unmapped memory: a CDM fault */
   uint64_t end = T_USER_VA + TC_HEAP_PAGES * HW_PAGE_SIZE - 8;
   agx_pack(tc_host(&f->c, 0, end), CDM_STREAM_LINK, l) {
      l.target_lo = (uint32_t)(end + 8);
      l.target_hi = (uint32_t)((end + 8) >> 32);
   }
   tc_run(&f->c, 0, end, &r);
   struct agx_fw_event_fault fe;
   struct agx_fault_info fi;
   tc_fault(&r, &fe, &fi);
   assert_int_equal(fi.unit, AGX_FAULT_UNIT_CDM);
   assert_int_equal(fe.address, end + 8);
   hw_device_clear_fault_info(f->c.t.dev);

   /* and the device still runs good work */
   tc_stream_init(&f->c, 0, &s, 64);
   launch_digit(f, &s, 6);
   tc_terminate(&s);
   tc_run(&f->c, 0, s.va, &r);
   assert_false(r.error);
   expect_all(f, 6);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_link_call_return, setup, teardown),
      cmocka_unit_test_setup_teardown(test_indirect, setup, teardown),
      cmocka_unit_test_setup_teardown(test_barrier_and_timing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_malformed_streams, setup, teardown),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
