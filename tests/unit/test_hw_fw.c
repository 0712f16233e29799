/* SPDX-License-Identifier: MIT */
/*
 * The firmware, driven as the kernel driver drives it: rings in memory, a
 * doorbell, events back. Compute work goes to a trivial executor defined
 * here (the real one is the compute model's).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_hw_util.h"

#define RW (HW_UAT_READ | HW_UAT_WRITE)

/* ------------------------------------------------------- test executor */

/* The job ID's top byte picks what the executor does. */
enum { TX_WRITE = 0, TX_FAULT = 1, TX_SPIN = 2, TX_BUDGET = 3, TX_ERROR = 4, TX_ERROR2 = 5,
       TX_GATE = 6 /* runs until `gate` is set */ };

struct tx {
   uint64_t cycles;
   atomic_uint calls;
   uint32_t order[16];
   uint32_t tlb_gen[16];   /* the TLB generation at each job's start */
   atomic_bool gate;
};

static void
tx_exec(void *data, const struct hw_exec_job *job, struct hw_exec_result *res)
{
   struct tx *x = data;
   unsigned n = atomic_load(&x->calls);
   if (n < 16) {
      x->order[n] = job->job_id;
      x->tlb_gen[n] = hw_device_tlb_generation(job->dev);
   }
   atomic_fetch_add(&x->calls, 1);
   assert_non_null(job->compute);

   struct hw_mmu m;
   hw_mmu_init(&m, job->dev, job->vm_slot, HW_UNIT_USC);
   hw_mmu_begin_job(&m);
   switch (job->job_id >> 24) {
   case TX_WRITE: {
      uint32_t id = job->job_id;
      res->cycles = x->cycles;
      if (!hw_mmu_write(&m, T_USER_VA + 4 * (id & 0xff), &id, 4)) {
         res->status = HW_EXEC_FAULT;
         res->fault = m.fault;
      }
      break;
   }
   case TX_FAULT: {
      uint32_t v;
      assert_false(hw_mmu_read(&m, T_USER_VA + (64 << 20) + 0x40, &v, 4));
      res->status = HW_EXEC_FAULT;
      res->fault = m.fault;
      res->cycles = 100;
      break;
   }
   case TX_GATE:
      while (!atomic_load(&x->gate) && !hw_exec_should_stop(job))
         usleep(1000);
      break;
   case TX_SPIN:
      while (!hw_exec_should_stop(job))
         usleep(1000);
      res->status = HW_EXEC_TIMEOUT;
      res->cycles = 5000;
      break;
   case TX_BUDGET:
      res->cycles = job->cycle_budget + 1;
      break;
   case TX_ERROR2:
      res->status = HW_EXEC_ERROR;
      snprintf(res->message, sizeof(res->message), "a later job's own failure");
      break;
   default:
      res->status = HW_EXEC_ERROR;
      snprintf(res->message, sizeof(res->message), "CDM stream ends without terminate");
      break;
   }
}

struct fx {
   struct t_fw t;
   struct tx x;
};

static int
setup_cfg(void **state, const struct hw_device_config *cfg, bool executor)
{
   struct fx *f = test_calloc(1, sizeof(*f));
   t_setup_fw(&f->t, cfg);
   if (executor)
      hw_device_set_executor(f->t.dev, AGX_FW_PIPE_COMPUTE, tx_exec, &f->x);
   *state = f;
   return 0;
}

static int
setup(void **state)
{
   return setup_cfg(state, NULL, true);
}

static int
setup_noexec(void **state)
{
   return setup_cfg(state, NULL, false);
}

static int
setup_short_timeouts(void **state)
{
   struct hw_device_config c = {
      .mem_size = 256ull << 20,
      .job_timeout_ms = 50,
      .job_cycle_budget = 1000000,
   };
   return setup_cfg(state, &c, true);
}

static int
teardown(void **state)
{
   struct fx *f = *state;
   t_teardown(&f->t);
   test_free(f);
   return 0;
}

static uint64_t
kstamp(struct t_fw *t)
{
   uint64_t va;
   t_kalloc(t, 4, &va);
   return va;
}

static struct agx_fw_status
status(struct t_fw *t)
{
   struct agx_fw_status s;
   assert_true(agx_fw_status_unpack(t_kva_host(t, t->status), &s));
   return s;
}

static void
no_event_for(struct t_fw *t, unsigned ms)
{
   uint8_t msg[HW_FW_EVENT_MSG_SIZE];
   assert_false(t_next_event(t, msg, ms));
}

/* ----------------------------------------------------------------- tests */

static void
test_boot(void **state)
{
   struct fx *f = *state;
   struct t_fw *t = &f->t;
   assert_true(hw_fw_running(t->dev));
   struct agx_fw_status s = status(t);
   assert_true(s.ready);
   assert_int_equal(s.jobs_completed, 0);
   assert_int_equal(hw_fw_boot(t->dev, t->initdata), -EBUSY);
   no_event_for(t, 20);

   /* A second device: InitData unmapped, then a ring with a bad size. */
   struct t_fw u;
   t_setup_mem(&u, NULL);
   assert_int_equal(hw_fw_boot(u.dev, T_KHEAP_VA + (T_KHEAP_PAGES + 1) * HW_PAGE_SIZE), -EINVAL);
   assert_non_null(strstr(hw_device_last_error(u.dev), "is not mapped in VM slot 0"));
   uint64_t id_va, ring_va;
   uint8_t *id = t_kalloc(&u, AGX_FW_INIT_DATA_LENGTH, &id_va);
   t_kalloc(&u, 12 * AGX_FW_RING_LENGTH, &ring_va);
   agx_pack(id, FW_INIT_DATA, d) { d.pipe_rings = ring_va; }
   assert_int_equal(hw_fw_boot(u.dev, id_va), -EINVAL);
   assert_non_null(strstr(hw_device_last_error(u.dev), "pipe ring"));
   assert_false(hw_fw_running(u.dev));
   hw_doorbell(u.dev, 0);   /* no firmware: ignored */
   t_teardown(&u);
}

static void
test_compute_job_and_timestamps(void **state)
{
   struct fx *f = *state;
   struct t_fw *t = &f->t;
   f->x.cycles = 1278000;   /* 1 ms of GPU time */
   uint32_t *user = t_user_map(t, 1, T_USER_VA, 1, RW);

   struct t_queue q;
   t_queue_init(t, &q, AGX_FW_PIPE_COMPUTE, 2, 5);
   uint64_t stamp = kstamp(t), ts;
   uint64_t *tsp = t_kalloc(t, 32, &ts);
   struct t_job_opts o = {
      .tag = AGX_FW_COMMAND_RUN_COMPUTE, .vm_slot = 1, .event_slot = 5,
      .job_id = 0x11, .stamp = stamp, .stamp_value = 0x100,
      .ts_start = ts, .ts_end = ts + 8,
   };
   t_submit(t, &q, t_run_job(t, &o));
   t_expect_flag(t, 5);

   assert_int_equal(user[0x11], 0x11);
   assert_int_equal(t_load32(t, stamp), 0x100);
   assert_int_equal(t_load32(t, t->stamps + 4 * 5), 0x100);
   assert_int_equal(hw_load_acquire32(q.host + 0), 1);     /* done */
   assert_int_equal(hw_load_acquire32(q.host + 64), 1);    /* read */
   /* Start at GPU time 0; the end is after the launch (1278 cycles) and
    * the job (1278000): 1279278 cycles = 24024 ticks of 24 MHz. */
   assert_int_equal(tsp[0], 0);
   assert_int_equal(tsp[1], 24024);
   /* + 1278 launch + 639 finalize: the documented firmware costs. */
   assert_int_equal(hw_device_gpu_cycles(t->dev), 1279917);
   assert_int_equal(hw_device_gpu_time_ns(t->dev), 1001500);

   /* The second job continues from the modelled clock, not host time. */
   o.job_id = 0x12;
   o.stamp_value = 0x200;
   o.ts_start = ts + 16;
   o.ts_end = ts + 24;
   t_submit(t, &q, t_run_job(t, &o));
   t_expect_flag(t, 5);
   assert_int_equal(user[0x12], 0x12);
   assert_int_equal(t_load32(t, stamp), 0x200);
   assert_int_equal(tsp[2], 24036);
   assert_int_equal(tsp[3], 24036 + 24024);
   assert_int_equal(atomic_load(&f->x.calls), 2);
   struct agx_fw_status s = status(t);
   assert_int_equal(s.jobs_completed, 2);
   assert_int_equal(s.doorbells, 2);
   assert_int_equal(s.faults, 0);
}

static void
test_barrier_between_queues(void **state)
{
   struct fx *f = *state;
   struct t_fw *t = &f->t;
   struct t_queue vq, fq;
   t_queue_init(t, &vq, AGX_FW_PIPE_VERTEX, 1, 1);
   t_queue_init(t, &fq, AGX_FW_PIPE_FRAGMENT, 1, 2);
   uint64_t sv = kstamp(t), sf = kstamp(t);

   /* Fragment side first: a Barrier on the vertex stamp, then the work. */
   t_submit(t, &fq, t_barrier_job(t, 0, HW_FW_NO_EVENT, 0, 0, sv, 0x100));
   struct t_job_opts fo = {
      .tag = AGX_FW_COMMAND_RUN_FRAGMENT, .vm_slot = 1, .event_slot = 2,
      .job_id = 0x21, .stamp = sf, .stamp_value = 0x100,
   };
   t_submit(t, &fq, t_run_job(t, &fo));
   no_event_for(t, 50);
   assert_int_equal(hw_load_acquire32(fq.host + 0), 0);   /* nothing done */
   assert_int_equal(t_load32(t, sf), 0);

   struct t_job_opts vo = {
      .tag = AGX_FW_COMMAND_RUN_VERTEX, .vm_slot = 1, .event_slot = 1,
      .job_id = 0x20, .stamp = sv, .stamp_value = 0x100,
   };
   t_submit(t, &vq, t_run_job(t, &vo));
   t_expect_flag(t, 1);
   t_expect_flag(t, 2);
   assert_int_equal(t_load32(t, sf), 0x100);
   assert_int_equal(hw_load_acquire32(fq.host + 0), 2);
   /* Vertex/fragment have no executor yet: they did no modelled work. */
   assert_int_equal(atomic_load(&f->x.calls), 0);
}

static void
test_barrier_op_waits_for_host_stamp(void **state)
{
   struct fx *f = *state;
   struct t_fw *t = &f->t;
   t_user_map(t, 1, T_USER_VA, 1, RW);
   struct t_queue q;
   t_queue_init(t, &q, AGX_FW_PIPE_COMPUTE, 0, 7);
   uint64_t wait = kstamp(t);
   hw_store_release32(t_kva_host(t, wait), 0xffffff00);   /* about to wrap */
   struct t_job_opts o = {
      .tag = AGX_FW_COMMAND_RUN_COMPUTE, .vm_slot = 1, .event_slot = 7,
      .job_id = 0x30, .wait_stamp = wait, .wait_value = 0x100,
   };
   t_submit(t, &q, t_run_job(t, &o));
   no_event_for(t, 30);
   assert_int_equal(atomic_load(&f->x.calls), 0);
   /* 0x100 is after 0xffffff00 in stamp order. */
   assert_true(hw_stamp_reached(0x100, 0xffffff00));
   assert_false(hw_stamp_reached(0xffffff00, 0x100));
   hw_store_release32(t_kva_host(t, wait), 0x100);
   t_expect_flag(t, 7);
   assert_int_equal(atomic_load(&f->x.calls), 1);
}

static void
test_fault_then_other_vm_completes(void **state)
{
   struct fx *f = *state;
   struct t_fw *t = &f->t;
   t_user_map(t, 1, T_USER_VA, 1, RW);
   uint32_t *user2 = t_user_map(t, 2, T_USER_VA, 1, RW);
   struct t_queue a, b;
   t_queue_init(t, &a, AGX_FW_PIPE_COMPUTE, 2, 10);
   t_queue_init(t, &b, AGX_FW_PIPE_COMPUTE, 2, 11);
   uint64_t sa = kstamp(t), sb = kstamp(t);
   struct t_job_opts oa = {
      .tag = AGX_FW_COMMAND_RUN_COMPUTE, .vm_slot = 1, .event_slot = 10,
      .job_id = TX_FAULT << 24 | 1, .stamp = sa, .stamp_value = 0x100,
   };
   struct t_job_opts ob = {
      .tag = AGX_FW_COMMAND_RUN_COMPUTE, .vm_slot = 2, .event_slot = 11,
      .job_id = 0x07, .stamp = sb, .stamp_value = 0x300,
   };
   uint64_t ja = t_run_job(t, &oa);
   t_submit_quiet(t, &a, ja);
   t_submit_quiet(t, &b, t_run_job(t, &ob));
   hw_doorbell(t->dev, HW_DOORBELL_KICKFW);

   uint8_t msg[HW_FW_EVENT_MSG_SIZE];
   assert_true(t_next_event(t, msg, 5000));
   assert_int_equal(t_event_type(msg), AGX_FW_EVENT_FAULT);
   struct agx_fw_event_fault e;
   assert_true(agx_fw_event_fault_unpack(msg, &e));
   assert_int_equal(e.event_slot, 10);
   assert_int_equal(e.vm_slot, 1);
   assert_int_equal(e.stamp_value, 0x100);
   assert_int_equal(e.job_id, TX_FAULT << 24 | 1);
   assert_int_equal(e.job, ja);
   assert_int_equal(e.work_queue, a.va);
   assert_int_equal(e.address, T_USER_VA + (64 << 20) + 0x40);
   struct agx_fault_info fi;
   assert_true(agx_fault_info_unpack(&e.fault_info, &fi));
   assert_true(fi.valid && fi.read);
   assert_int_equal(fi.reason, AGX_UAT_FAULT_REASON_UNMAPPED);
   assert_int_equal(fi.unit, AGX_FAULT_UNIT_USC);
   assert_int_equal(fi.vm_slot, 1);
   assert_int_equal(fi.address, T_USER_VA + (64 << 20) + 0x40);
   /* The register latched the same fault. */
   assert_int_equal(hw_device_fault_info(t->dev), e.fault_info);

   /* The faulted job still completes (stamp + Flag); the other VM runs. */
   t_expect_flag(t, 10);
   t_expect_flag(t, 11);
   assert_int_equal(t_load32(t, sa), 0x100);
   assert_int_equal(t_load32(t, sb), 0x300);
   assert_int_equal(user2[7], 7);
   assert_int_equal(status(t).faults, 1);
}

static void
test_timeouts(void **state)
{
   struct fx *f = *state;
   struct t_fw *t = &f->t;
   struct t_queue q;
   t_queue_init(t, &q, AGX_FW_PIPE_COMPUTE, 1, 20);
   uint64_t s = kstamp(t);

   /* A hung shader: the 50 ms watchdog stops it. */
   struct t_job_opts o = {
      .tag = AGX_FW_COMMAND_RUN_COMPUTE, .vm_slot = 1, .event_slot = 20,
      .job_id = TX_SPIN << 24, .stamp = s, .stamp_value = 0x100,
   };
   t_submit(t, &q, t_run_job(t, &o));
   uint8_t msg[HW_FW_EVENT_MSG_SIZE];
   assert_true(t_next_event(t, msg, 5000));
   assert_int_equal(t_event_type(msg), AGX_FW_EVENT_TIMEOUT);
   struct agx_fw_event_timeout e;
   assert_true(agx_fw_event_timeout_unpack(msg, &e));
   assert_int_equal(e.event_slot, 20);
   assert_int_equal(e.stamp_value, 0x100);
   assert_int_equal(e.cycles, 5000);
   t_expect_flag(t, 20);
   assert_int_equal(t_load32(t, s), 0x100);

   /* Over the modelled budget: the clock advances by the budget only. */
   uint64_t c0 = hw_device_gpu_cycles(t->dev);
   o.job_id = TX_BUDGET << 24;
   o.stamp_value = 0x200;
   t_submit(t, &q, t_run_job(t, &o));
   assert_true(t_next_event(t, msg, 5000));
   assert_true(agx_fw_event_timeout_unpack(msg, &e));
   assert_int_equal(e.cycles, 1000001);
   t_expect_flag(t, 20);
   assert_int_equal(hw_device_gpu_cycles(t->dev) - c0,
                    HW_FW_START_CYCLES + 1000000 + HW_FW_FINALIZE_CYCLES);
   assert_int_equal(status(t).timeouts, 2);
}

static void
expect_job_error(struct t_fw *t, enum agx_fw_error err, unsigned slot)
{
   uint8_t msg[HW_FW_EVENT_MSG_SIZE];
   assert_true(t_next_event(t, msg, 5000));
   assert_int_equal(t_event_type(msg), AGX_FW_EVENT_JOB_ERROR);
   struct agx_fw_event_job_error e;
   assert_true(agx_fw_event_job_error_unpack(msg, &e));
   assert_int_equal(e.error, err);
   assert_int_equal(e.event_slot, slot);
}

static void
test_no_executor(void **state)
{
   struct fx *f = *state;
   struct t_fw *t = &f->t;
   struct t_queue q;
   t_queue_init(t, &q, AGX_FW_PIPE_COMPUTE, 0, 3);
   uint64_t s = kstamp(t);
   struct t_job_opts o = {
      .tag = AGX_FW_COMMAND_RUN_COMPUTE, .vm_slot = 1, .event_slot = 3,
      .job_id = 0x40, .stamp = s, .stamp_value = 0x100,
   };
   t_submit(t, &q, t_run_job(t, &o));
   expect_job_error(t, AGX_FW_ERROR_NO_EXECUTOR, 3);
   t_expect_flag(t, 3);
   assert_int_equal(t_load32(t, s), 0x100);
   assert_non_null(strstr(hw_device_last_error(t->dev), "no compute executor"));
}

/* Two jobs fail back to back (as a render's vertex and fragment jobs do):
 * each keeps its own message, found by its job ID, while the last error
 * is the second's. Regression: the kernel printed the fragment job's
 * "TVB heap holds no binned frame" for the vertex job too, hiding the
 * vertex job's cause (piglit varying-packing, issue 13). */
static void
test_job_error_messages(void **state)
{
   struct fx *f = *state;
   struct t_fw *t = &f->t;
   struct t_queue q;
   t_queue_init(t, &q, AGX_FW_PIPE_COMPUTE, 0, 4);
   uint64_t s = kstamp(t);
   uint32_t a = TX_ERROR << 24 | 1, b = TX_ERROR2 << 24 | 3;
   struct t_job_opts o = {
      .tag = AGX_FW_COMMAND_RUN_COMPUTE, .vm_slot = 1, .event_slot = 4,
      .job_id = a, .stamp = s, .stamp_value = 0x100,
   };
   t_submit(t, &q, t_run_job(t, &o));
   o.job_id = b;
   o.stamp_value = 0x200;
   t_submit(t, &q, t_run_job(t, &o));
   expect_job_error(t, AGX_FW_ERROR_EXECUTOR, 4);
   t_expect_flag(t, 4);
   expect_job_error(t, AGX_FW_ERROR_EXECUTOR, 4);
   t_expect_flag(t, 4);
   char buf[192];
   assert_true(hw_device_job_error(t->dev, a, buf, sizeof(buf)));
   assert_non_null(strstr(buf, "without terminate"));
   assert_true(hw_device_job_error(t->dev, b, buf, sizeof(buf)));
   assert_non_null(strstr(buf, "a later job's own failure"));
   assert_non_null(strstr(hw_device_last_error(t->dev), "a later job's own failure"));
   assert_false(hw_device_job_error(t->dev, 0x77, buf, sizeof(buf)));
}

static void
test_bad_jobs(void **state)
{
   struct fx *f = *state;
   struct t_fw *t = &f->t;
   struct t_queue q;
   t_queue_init(t, &q, AGX_FW_PIPE_COMPUTE, 0, 4);
   uint64_t s = kstamp(t);
   t_user_map(t, 1, T_USER_VA, 1, RW);

   /* Header naming VM slot 20. */
   struct t_job_opts o = {
      .tag = AGX_FW_COMMAND_RUN_COMPUTE, .vm_slot = 1, .event_slot = 4,
      .job_id = 0x50, .stamp = s, .stamp_value = 0x100,
   };
   uint64_t j = t_run_job(t, &o);
   uint8_t *h = t_kva_host(t, j);
   h[1] = 20;
   t_submit(t, &q, j);
   expect_job_error(t, AGX_FW_ERROR_BAD_JOB, 4);
   t_expect_flag(t, 4);

   /* A script that never finalizes. */
   o.stamp_value = 0x200;
   j = t_run_job(t, &o);
   struct agx_fw_job_header hdr;
   assert_true(agx_fw_job_header_unpack(t_kva_host(t, j), &hdr));
   hdr.script_size = 16;    /* Start, WaitForIdle */
   agx_fw_job_header_pack(t_kva_host(t, j), &hdr);
   t_submit(t, &q, j);
   expect_job_error(t, AGX_FW_ERROR_BAD_SCRIPT, 4);
   t_expect_flag(t, 4);
   assert_int_equal(t_load32(t, s), 0x200);

   /* The executor rejects the work. */
   o.job_id = TX_ERROR << 24;
   o.stamp_value = 0x300;
   t_submit(t, &q, t_run_job(t, &o));
   expect_job_error(t, AGX_FW_ERROR_EXECUTOR, 4);
   t_expect_flag(t, 4);
   assert_non_null(strstr(hw_device_last_error(t->dev),
                          "CDM stream ends without terminate"));

   /* A job pointer into nothing: a firmware fault, no Flag (no header,
    * so no stamps), and the queue moves on. */
   t_submit(t, &q, T_KHEAP_VA + (T_KHEAP_PAGES + 4) * HW_PAGE_SIZE);
   uint8_t msg[HW_FW_EVENT_MSG_SIZE];
   assert_true(t_next_event(t, msg, 5000));
   struct agx_fw_event_fault e;
   assert_true(agx_fw_event_fault_unpack(msg, &e));
   assert_int_equal(e.work_queue, q.va);
   assert_int_equal(e.event_slot, 4);
   struct agx_fault_info fi;
   agx_fault_info_unpack(&e.fault_info, &fi);
   assert_int_equal(fi.unit, AGX_FAULT_UNIT_FW);
   assert_int_equal(fi.vm_slot, 0);
   o.job_id = 0x51;
   o.stamp_value = 0x400;
   t_submit(t, &q, t_run_job(t, &o));
   t_expect_flag(t, 4);
   assert_int_equal(t_load32(t, s), 0x400);
   assert_int_equal(hw_load_acquire32(q.host + 0), 5);
   struct agx_fw_status st = status(t);
   assert_int_equal(st.errors, 3);
   assert_int_equal(st.faults, 1);
   assert_int_equal(st.jobs_completed, 4);
}

static void
test_priorities(void **state)
{
   struct fx *f = *state;
   struct t_fw *t = &f->t;
   t_user_map(t, 1, T_USER_VA, 1, RW);
   struct t_queue lo, hi;
   t_queue_init(t, &lo, AGX_FW_PIPE_COMPUTE, 3, 30);
   t_queue_init(t, &hi, AGX_FW_PIPE_COMPUTE, 0, 31);
   struct t_job_opts o = {
      .tag = AGX_FW_COMMAND_RUN_COMPUTE, .vm_slot = 1, .event_slot = 30,
      .job_id = 0x61,
   };
   t_submit_quiet(t, &lo, t_run_job(t, &o));
   o.job_id = 0x62;
   t_submit_quiet(t, &lo, t_run_job(t, &o));
   o.job_id = 0x01;
   o.event_slot = 31;
   t_submit_quiet(t, &hi, t_run_job(t, &o));
   hw_doorbell(t->dev, HW_DOORBELL_PIPE(AGX_FW_PIPE_COMPUTE, 0));
   t_expect_flag(t, 31);
   t_expect_flag(t, 30);
   t_expect_flag(t, 30);
   assert_int_equal(f->x.order[0], 0x01);
   assert_int_equal(f->x.order[1], 0x61);
   assert_int_equal(f->x.order[2], 0x62);
}

static void
test_device_control(void **state)
{
   struct fx *f = *state;
   struct t_fw *t = &f->t;
   uint32_t gen = hw_device_tlb_generation(t->dev);
   struct agx_fw_device_control_message m = {
      .type = AGX_FW_DEVICE_CONTROL_TLB_INVALIDATE, .vm_slot = 0xff,
   };
   t_devctrl(t, &m);
   assert_int_equal(hw_device_tlb_generation(t->dev), gen + 1);
   m.type = AGX_FW_DEVICE_CONTROL_GROW_TVB_ACK;
   t_devctrl(t, &m);
   assert_int_equal(hw_device_tlb_generation(t->dev), gen + 1);

   hw_doorbell(t->dev, 3);       /* pipe 3 does not exist */
   hw_doorbell(t->dev, 0x12);
   struct agx_fw_device_control_message init = { .type = AGX_FW_DEVICE_CONTROL_INITIALIZE };
   t_devctrl(t, &init);
   /* Status is refreshed after the scan that consumed the message. */
   struct agx_fw_status s = status(t);
   for (int i = 0; i < 1000 && s.doorbells != 3; i++) {
      usleep(1000);
      s = status(t);
   }
   assert_int_equal(s.bad_doorbells, 2);
   assert_int_equal(s.doorbells, 3);
   no_event_for(t, 10);
}

/* Device control is taken between jobs, not once the queues ran dry: a
 * TLB invalidate sent while a job runs and two more are queued behind it
 * has taken effect before the next job starts (the host waits for it
 * holding the device lock; it used to wait for every queued job). */
static void
test_device_control_between_jobs(void **state)
{
   struct fx *f = *state;
   struct t_fw *t = &f->t;
   t_user_map(t, 1, T_USER_VA, 1, RW);
   uint32_t gen = hw_device_tlb_generation(t->dev);
   struct t_queue q;
   t_queue_init(t, &q, AGX_FW_PIPE_COMPUTE, 0, 7);
   struct t_job_opts o = {
      .tag = AGX_FW_COMMAND_RUN_COMPUTE, .vm_slot = 1, .event_slot = 7,
      .job_id = TX_GATE << 24,
   };
   t_submit_quiet(t, &q, t_run_job(t, &o));
   o.job_id = 0x21;
   t_submit_quiet(t, &q, t_run_job(t, &o));
   o.job_id = 0x22;
   t_submit_quiet(t, &q, t_run_job(t, &o));
   hw_doorbell(t->dev, HW_DOORBELL_PIPE(AGX_FW_PIPE_COMPUTE, 0));
   for (int i = 0; i < 5000 && atomic_load(&f->x.calls) == 0; i++)
      usleep(1000);
   assert_int_equal(atomic_load(&f->x.calls), 1);   /* held in the first job */
   struct agx_fw_device_control_message m = {
      .type = AGX_FW_DEVICE_CONTROL_TLB_INVALIDATE, .vm_slot = 0xff,
   };
   t_devctrl_quiet(t, &m);
   usleep(20000);
   assert_false(t_devctrl_done(t));   /* never in the middle of a job */
   atomic_store(&f->x.gate, true);
   for (int i = 0; i < 3; i++)
      t_expect_flag(t, 7);
   assert_true(t_devctrl_done(t));
   assert_int_equal(atomic_load(&f->x.calls), 3);
   assert_int_equal(f->x.order[1], 0x21);
   assert_int_equal(f->x.tlb_gen[0], gen);
   assert_int_equal(f->x.tlb_gen[1], gen + 1);   /* taken before job 2 */
   assert_int_equal(f->x.tlb_gen[2], gen + 1);
}

static void
test_shutdown_with_pending_jobs(void **state)
{
   struct fx *f = *state;
   struct t_fw *t = &f->t;
   struct t_queue q;
   t_queue_init(t, &q, AGX_FW_PIPE_COMPUTE, 0, 9);
   struct t_job_opts o = {
      .tag = AGX_FW_COMMAND_RUN_COMPUTE, .vm_slot = 1, .event_slot = 9,
      .job_id = TX_SPIN << 24,
   };
   for (int i = 0; i < 4; i++)
      t_submit(t, &q, t_run_job(t, &o));
   for (int i = 0; i < 5000 && atomic_load(&f->x.calls) == 0; i++)
      usleep(1000);
   assert_int_equal(atomic_load(&f->x.calls), 1);

   struct timespec a, b;
   clock_gettime(CLOCK_MONOTONIC, &a);
   hw_fw_shutdown(t->dev);
   clock_gettime(CLOCK_MONOTONIC, &b);
   assert_true(b.tv_sec - a.tv_sec < 2);   /* the 10 s watchdog did not fire */
   assert_false(hw_fw_running(t->dev));
   assert_true(status(t).stopped);
   assert_int_equal(atomic_load(&f->x.calls), 1);
   hw_doorbell(t->dev, 0);
   /* teardown destroys the device with the queue still full */
}

static atomic_uint irq_count;

static void
count_irq(void *data)
{
   (void)data;
   atomic_fetch_add(&irq_count, 1);
}

static void
test_irq_callback(void **state)
{
   (void)state;
   struct hw_device_config c = { .mem_size = 256ull << 20, .irq = count_irq };
   struct fx *f;
   setup_cfg((void **)&f, &c, true);
   struct t_fw *t = &f->t;
   t_user_map(t, 1, T_USER_VA, 1, RW);
   struct t_queue q;
   t_queue_init(t, &q, AGX_FW_PIPE_COMPUTE, 0, 0);
   struct t_job_opts o = { .tag = AGX_FW_COMMAND_RUN_COMPUTE, .vm_slot = 1 };
   t_submit(t, &q, t_run_job(t, &o));
   t_expect_flag(t, 0);
   /* The interrupt follows the event's publication. */
   for (int i = 0; i < 1000 && atomic_load(&irq_count) == 0; i++)
      usleep(1000);
   assert_true(atomic_load(&irq_count) >= 1);
   teardown((void **)&f);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_boot, setup, teardown),
      cmocka_unit_test_setup_teardown(test_compute_job_and_timestamps, setup, teardown),
      cmocka_unit_test_setup_teardown(test_barrier_between_queues, setup, teardown),
      cmocka_unit_test_setup_teardown(test_barrier_op_waits_for_host_stamp, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fault_then_other_vm_completes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_timeouts, setup_short_timeouts, teardown),
      cmocka_unit_test_setup_teardown(test_no_executor, setup_noexec, teardown),
      cmocka_unit_test_setup_teardown(test_bad_jobs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_job_error_messages, setup, teardown),
      cmocka_unit_test_setup_teardown(test_priorities, setup, teardown),
      cmocka_unit_test_setup_teardown(test_device_control, setup, teardown),
      cmocka_unit_test_setup_teardown(test_device_control_between_jobs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_shutdown_with_pending_jobs, setup, teardown),
      cmocka_unit_test(test_irq_callback),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
