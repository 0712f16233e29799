/* SPDX-License-Identifier: MIT */
/*
 * Test-side "kernel driver" for the firmware tests (see test_hw_util.h).
 */
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_hw_util.h"

void
t_setup_mem(struct t_fw *t, const struct hw_device_config *cfg)
{
   memset(t, 0, sizeof(*t));
   struct hw_device_config c = { .mem_size = 256ull << 20 };
   if (cfg)
      c = *cfg;
   t->dev = hw_device_create(&c);
   assert_non_null(t->dev);
   t->ttbat = hw_phys_alloc(t->dev, 1);
   assert_true(t->ttbat != 0);
   assert_int_equal(hw_uat_set_ttbat(t->dev, t->ttbat), 0);
   t->kttb = hw_uat_table_alloc(t->dev);
   assert_true(t->kttb != 0);
   for (unsigned s = 0; s < HW_UAT_NUM_CONTEXTS; s++)
      assert_int_equal(hw_uat_set_context(t->dev, s, 0, t->kttb), 0);
   t->kheap_pa = hw_phys_alloc(t->dev, T_KHEAP_PAGES);
   assert_true(t->kheap_pa != 0);
   assert_int_equal(hw_uat_map(t->dev, t->kttb, T_KHEAP_VA, t->kheap_pa,
                               T_KHEAP_PAGES * HW_PAGE_SIZE,
                               HW_UAT_READ | HW_UAT_WRITE), 0);
}

void *
t_kva_host(struct t_fw *t, uint64_t va)
{
   assert_true(va >= T_KHEAP_VA && va < T_KHEAP_VA + T_KHEAP_PAGES * HW_PAGE_SIZE);
   return hw_phys_to_host(t->dev, t->kheap_pa + (va - T_KHEAP_VA), 1);
}

void *
t_kalloc(struct t_fw *t, uint64_t size, uint64_t *va)
{
   uint64_t off = (t->kheap_used + 63) & ~63ull;
   assert_true(off + size <= T_KHEAP_PAGES * HW_PAGE_SIZE);
   t->kheap_used = off + size;
   *va = T_KHEAP_VA + off;
   return t_kva_host(t, *va);
}

uint32_t
t_load32(struct t_fw *t, uint64_t kva)
{
   return hw_load_acquire32(t_kva_host(t, kva));
}

void *
t_user_map(struct t_fw *t, unsigned slot, uint64_t va, uint64_t npages,
           unsigned prot)
{
   if (!t->uttb[slot]) {
      t->uttb[slot] = hw_uat_table_alloc(t->dev);
      assert_int_equal(hw_uat_set_context(t->dev, slot, t->uttb[slot], t->kttb), 0);
   }
   uint64_t pa = hw_phys_alloc(t->dev, npages);
   assert_true(pa != 0);
   assert_int_equal(hw_uat_map(t->dev, t->uttb[slot], va, pa,
                               npages * HW_PAGE_SIZE, prot), 0);
   return hw_phys_to_host(t->dev, pa, npages * HW_PAGE_SIZE);
}

static uint64_t
make_ring(struct t_fw *t, uint64_t ring_va, uint32_t entry_size)
{
   uint64_t base;
   t_kalloc(t, (uint64_t)T_RING_COUNT * entry_size, &base);
   agx_pack(t_kva_host(t, ring_va), FW_RING, r) {
      r.base = base;
      r.count = T_RING_COUNT;
      r.entry_size = entry_size;
   }
   return ring_va;
}

void
t_setup_fw(struct t_fw *t, const struct hw_device_config *cfg)
{
   t_setup_mem(t, cfg);
   uint8_t *id = t_kalloc(t, AGX_FW_INIT_DATA_LENGTH, &t->initdata);
   t_kalloc(t, HW_FW_PRIORITIES * HW_FW_PIPES * AGX_FW_RING_LENGTH, &t->pipe_rings);
   for (unsigned i = 0; i < HW_FW_PRIORITIES * HW_FW_PIPES; i++)
      make_ring(t, t->pipe_rings + i * AGX_FW_RING_LENGTH, HW_FW_PIPE_MSG_SIZE);
   t_kalloc(t, AGX_FW_RING_LENGTH, &t->devctrl_ring);
   make_ring(t, t->devctrl_ring, HW_FW_DEVCTRL_MSG_SIZE);
   t_kalloc(t, AGX_FW_RING_LENGTH, &t->event_ring);
   make_ring(t, t->event_ring, HW_FW_EVENT_MSG_SIZE);
   t_kalloc(t, 4 * HW_FW_EVENT_SLOTS, &t->stamps);
   t_kalloc(t, AGX_FW_STATUS_LENGTH, &t->status);
   agx_pack(id, FW_INIT_DATA, d) {
      d.pipe_rings = t->pipe_rings;
      d.device_control_ring = t->devctrl_ring;
      d.event_ring = t->event_ring;
      d.event_stamps = t->stamps;
      d.status = t->status;
   }
   assert_int_equal(hw_fw_boot(t->dev, t->initdata), 0);
}

void
t_teardown(struct t_fw *t)
{
   hw_device_destroy(t->dev);
   t->dev = NULL;
}

void
t_queue_init(struct t_fw *t, struct t_queue *q, unsigned pipe, unsigned prio,
             unsigned event_slot)
{
   memset(q, 0, sizeof(*q));
   uint64_t ring_va;
   q->size = 16;
   q->ring = t_kalloc(t, q->size * 8, &ring_va);
   q->host = t_kalloc(t, AGX_FW_WORK_QUEUE_LENGTH, &q->va);
   agx_pack(q->host, FW_WORK_QUEUE, w) {
      w.ring_size = q->size;
      w.ring = ring_va;
   }
   q->pipe = pipe;
   q->prio = prio;
   q->event_slot = event_slot;
}

/* Host side of a host->firmware ring: write the entry, then publish it
 * with a release store of the write index. */
static void
ring_push(struct t_fw *t, uint64_t ring_va, const void *msg, size_t size)
{
   struct agx_fw_ring r;
   uint8_t *ctl = t_kva_host(t, ring_va);
   agx_fw_ring_unpack(ctl, &r);
   uint32_t wr = hw_load_acquire32(ctl + 64);
   assert_true((wr + 1) % r.count != hw_load_acquire32(ctl));
   memcpy(t_kva_host(t, r.base + (uint64_t)wr * size), msg, size);
   hw_store_release32(ctl + 64, (wr + 1) % r.count);
}

void
t_submit_quiet(struct t_fw *t, struct t_queue *q, uint64_t job_va)
{
   uint32_t wr = hw_load_acquire32(q->host + 128);
   __atomic_store_n(&q->ring[wr], job_va, __ATOMIC_RELAXED);
   hw_store_release32(q->host + 128, (wr + 1) % q->size);
   uint8_t msg[HW_FW_PIPE_MSG_SIZE];
   agx_pack(msg, FW_RUN_QUEUE_MESSAGE, m) {
      m.pipe = (enum agx_fw_pipe)q->pipe;
      m.work_queue = q->va;
      m.write_index = (wr + 1) % q->size;
      m.event_slot = q->event_slot & 0x7f;
      m.new_queue = wr == 0;
   }
   ring_push(t, t->pipe_rings + (q->prio * HW_FW_PIPES + q->pipe) * AGX_FW_RING_LENGTH,
             msg, sizeof(msg));
}

void
t_submit(struct t_fw *t, struct t_queue *q, uint64_t job_va)
{
   t_submit_quiet(t, q, job_va);
   hw_doorbell(t->dev, HW_DOORBELL_PIPE(q->pipe, q->prio));
}

void
t_devctrl_quiet(struct t_fw *t, const struct agx_fw_device_control_message *m)
{
   uint8_t msg[HW_FW_DEVCTRL_MSG_SIZE];
   agx_fw_device_control_message_pack(msg, m);
   ring_push(t, t->devctrl_ring, msg, sizeof(msg));
   hw_doorbell(t->dev, HW_DOORBELL_DEVCTRL);
}

bool
t_devctrl_done(struct t_fw *t)
{
   uint8_t *ctl = t_kva_host(t, t->devctrl_ring);
   return hw_load_acquire32(ctl) == hw_load_acquire32(ctl + 64);
}

void
t_devctrl(struct t_fw *t, const struct agx_fw_device_control_message *m)
{
   t_devctrl_quiet(t, m);
   /* Done when the firmware moved the read index past it. */
   uint8_t *ctl = t_kva_host(t, t->devctrl_ring);
   for (int i = 0; i < 5000 && hw_load_acquire32(ctl) != hw_load_acquire32(ctl + 64); i++)
      usleep(1000);
   assert_int_equal(hw_load_acquire32(ctl), hw_load_acquire32(ctl + 64));
}

bool
t_next_event(struct t_fw *t, uint8_t *msg, unsigned timeout_ms)
{
   uint8_t *ctl = t_kva_host(t, t->event_ring);
   struct agx_fw_ring r;
   agx_fw_ring_unpack(ctl, &r);
   for (unsigned waited = 0;; waited += 10) {
      uint32_t wr = hw_load_acquire32(ctl + 64);
      if (wr != t->event_rd) {
         memcpy(msg, t_kva_host(t, r.base + (uint64_t)t->event_rd * HW_FW_EVENT_MSG_SIZE),
                HW_FW_EVENT_MSG_SIZE);
         t->event_rd = (t->event_rd + 1) % r.count;
         hw_store_release32(ctl, t->event_rd);
         return true;
      }
      if (waited >= timeout_ms)
         return false;
      struct pollfd p = { .fd = hw_device_irq_fd(t->dev), .events = POLLIN };
      if (poll(&p, 1, 10) > 0) {
         uint64_t n;
         assert_int_equal(read(p.fd, &n, sizeof(n)), sizeof(n));
      }
   }
}

enum agx_fw_event
t_event_type(const uint8_t *msg)
{
   struct agx_fw_event_header h;
   agx_fw_event_header_unpack(msg, &h);
   return h.type;
}

void
t_expect_flag(struct t_fw *t, unsigned slot)
{
   uint8_t msg[HW_FW_EVENT_MSG_SIZE];
   assert_true(t_next_event(t, msg, 5000));
   assert_int_equal(t_event_type(msg), AGX_FW_EVENT_FLAG);
   struct agx_fw_event_flag f;
   assert_true(agx_fw_event_flag_unpack(msg, &f));
   uint32_t want[4] = { 0 };
   want[slot / 32] = 1u << (slot % 32);
   assert_int_equal(f.firing_0, want[0]);
   assert_int_equal(f.firing_1, want[1]);
   assert_int_equal(f.firing_2, want[2]);
   assert_int_equal(f.firing_3, want[3]);
}

uint64_t
t_run_job(struct t_fw *t, const struct t_job_opts *o)
{
   uint64_t script_va, payload_va, job_va;
   uint8_t *s = t_kalloc(t, 128, &script_va);
   uint8_t *p = s;
   if (o->wait_stamp) {
      agx_pack(p, FW_OP_BARRIER, op) {
         op.stamp = o->wait_stamp;
         op.value = o->wait_value;
      }
      p += AGX_FW_OP_BARRIER_LENGTH;
   }
   if (o->ts_start) {
      agx_pack(p, FW_OP_TIMESTAMP, op) { op.address = o->ts_start; }
      p += AGX_FW_OP_TIMESTAMP_LENGTH;
   }
   agx_pack(p, FW_OP_START, op) { (void)op; }
   p += AGX_FW_OP_START_LENGTH;
   agx_pack(p, FW_OP_WAIT_FOR_IDLE, op) {
      op.vertex = o->tag == AGX_FW_COMMAND_RUN_VERTEX;
      op.fragment = o->tag == AGX_FW_COMMAND_RUN_FRAGMENT;
      op.compute = o->tag == AGX_FW_COMMAND_RUN_COMPUTE;
   }
   p += AGX_FW_OP_WAIT_FOR_IDLE_LENGTH;
   if (o->ts_end) {
      agx_pack(p, FW_OP_TIMESTAMP, op) { op.address = o->ts_end; }
      p += AGX_FW_OP_TIMESTAMP_LENGTH;
   }
   agx_pack(p, FW_OP_FINALIZE, op) { (void)op; }
   p += AGX_FW_OP_FINALIZE_LENGTH;

   t_kalloc(t, AGX_FW_RENDER_PAYLOAD_LENGTH, &payload_va);
   uint8_t *h = t_kalloc(t, AGX_FW_JOB_HEADER_LENGTH, &job_va);
   agx_pack(h, FW_JOB_HEADER, j) {
      j.tag = o->tag;
      j.vm_slot = o->vm_slot;
      j.event_slot = o->event_slot;
      j.job_id = o->job_id;
      j.stamp = o->stamp;
      j.stamp_value = o->stamp_value;
      j.script = script_va;
      j.script_size = (uint32_t)(p - s);
      j.payload = payload_va;
   }
   return job_va;
}

uint64_t
t_barrier_job(struct t_fw *t, unsigned vm_slot, unsigned event_slot,
              uint64_t stamp, uint32_t stamp_value, uint64_t wait_stamp,
              uint32_t wait_value)
{
   uint64_t payload_va, job_va;
   agx_pack(t_kalloc(t, AGX_FW_BARRIER_PAYLOAD_LENGTH, &payload_va),
            FW_BARRIER_PAYLOAD, b) {
      b.stamp = wait_stamp;
      b.value = wait_value;
   }
   agx_pack(t_kalloc(t, AGX_FW_JOB_HEADER_LENGTH, &job_va), FW_JOB_HEADER, j) {
      j.tag = AGX_FW_COMMAND_BARRIER;
      j.vm_slot = vm_slot;
      j.event_slot = event_slot;
      j.stamp = stamp;
      j.stamp_value = stamp_value;
      j.payload = payload_va;
   }
   return job_va;
}
