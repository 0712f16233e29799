/* SPDX-License-Identifier: MIT */
/*
 * The firmware's parsing of host-written memory: InitData, ring controls,
 * run-queue and device-control messages, work queues, work-queue entries,
 * job headers, scripts and payloads come from the input, either raw or
 * packed from input values (so that the deeper paths are reached too).
 * Each input gets a fresh small device: boot, doorbells, a short wait for
 * the events, shutdown.  Whatever the host wrote, the firmware must answer
 * with events or ignore it: no crash, no hang, no leak.
 *
 * Input: byte 0 = what is raw (bits below), byte 1 = selectors; the rest
 * is read in order as the structures need it (zeros past the end).
 *
 * A compute executor stands in for the CDM: it returns the status, cycles
 * and fault the payload's first bytes ask for, so every event path runs.
 */
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmdstream/agx_fw_pack.h"
#include "hw/hw_device.h"
#include "hw/hw_fw.h"
#include "hw/hw_uat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
   RAW_INITDATA = 1 << 0,  /* InitData bytes from the input */
   RAW_RING = 1 << 1,      /* one ring control (byte 1 bits 0-3) from the input */
   RAW_QUEUE = 1 << 2,     /* the work queue structure from the input */
   RAW_RUNMSG = 1 << 3,    /* the run-queue message from the input */
   RAW_DEVCTRL = 1 << 4,   /* a device-control message from the input first */
   RAW_HEADER = 1 << 5,    /* the job header from the input */
   RAW_DOORBELL = 1 << 6,  /* an input doorbell value too */
   TWO_JOBS = 1 << 7,      /* a second entry in the work queue */
};

#define KHEAP_VA 0xffffffa000000000ull
#define KHEAP_PAGES 8
#define RING_COUNT 8
#define WAIT_MS 20

struct input {
   const uint8_t *p;
   size_t left;
};

static void
take(struct input *in, void *dst, size_t n)
{
   size_t k = n < in->left ? n : in->left;
   memcpy(dst, in->p, k);
   memset((uint8_t *)dst + k, 0, n - k);
   in->p += k;
   in->left -= k;
}

static uint32_t
take32(struct input *in)
{
   uint32_t v;
   take(in, &v, 4);
   return v;
}

struct host {
   struct hw_device *dev;
   uint8_t *kheap;         /* host view of the kernel heap */
   uint64_t used;
};

static uint64_t
kalloc(struct host *h, uint64_t size, uint8_t **host)
{
   uint64_t off = (h->used + 63) & ~63ull;
   if (off + size > KHEAP_PAGES * HW_PAGE_SIZE)
      abort();   /* the layout below is fixed and fits */
   h->used = off + size;
   *host = h->kheap + off;
   return KHEAP_VA + off;
}

/* A valid address (a structure in the kernel heap), one near it, or a
 * random one, as the selector says: mostly in-bounds so parsing goes on. */
static uint64_t
pick_va(struct input *in, uint64_t valid)
{
   uint8_t sel;
   take(in, &sel, 1);
   switch (sel & 3) {
   case 0:
   case 1:
      return valid;
   case 2:
      return valid + (sel >> 2) * 8;   /* near it, maybe past its end */
   default: {
      uint64_t v;
      take(in, &v, 8);
      return v;
   }
   }
}

/* Compute executor: payload byte 0 = status, bytes 1-4 = cycles, 5-12 =
 * fault address, 13 = fault unit/reason bits.  Never reads past them. */
static void
fake_exec(void *data, const struct hw_exec_job *job, struct hw_exec_result *res)
{
   (void)data;
   uint8_t b[16];
   struct hw_mmu mmu;
   hw_mmu_init(&mmu, job->dev, job->vm_slot, HW_UNIT_CDM);
   memset(b, 0, sizeof(b));
   if (!hw_mmu_read(&mmu, job->payload, b, sizeof(b))) {
      res->status = HW_EXEC_FAULT;
      res->fault = mmu.fault;
      return;
   }
   uint32_t cycles;
   memcpy(&cycles, b + 1, 4);
   res->cycles = cycles;
   switch (b[0] & 3) {
   case 0:
      res->status = HW_EXEC_OK;
      break;
   case 1:
      res->status = HW_EXEC_FAULT;
      res->fault.valid = true;
      memcpy(&res->fault.addr, b + 5, 8);
      res->fault.unit = b[13] & 15;
      res->fault.reason = b[13] >> 4;
      res->fault.read = b[14] & 1;
      res->fault.vm_slot = (uint8_t)job->vm_slot;
      break;
   case 2:
      res->status = HW_EXEC_TIMEOUT;
      break;
   default:
      res->status = HW_EXEC_ERROR;
      memcpy(res->message, "fuzz executor error", 20);
      break;
   }
}

/* Host side of a ring: entry, then the write index (release). */
static void
ring_push(struct host *h, uint64_t ctl_va, const void *msg, size_t size)
{
   uint8_t *ctl = h->kheap + (ctl_va - KHEAP_VA);
   struct agx_fw_ring r;
   agx_fw_ring_unpack(ctl, &r);
   uint32_t wr = hw_load_acquire32(ctl + 64);
   /* a ring the input made up may point anywhere: write only into ours */
   if (r.base < KHEAP_VA || r.count == 0 || r.count > RING_COUNT || r.entry_size != size ||
       wr >= r.count || r.base - KHEAP_VA + (uint64_t)r.count * size > KHEAP_PAGES * HW_PAGE_SIZE)
      return;
   memcpy(h->kheap + (r.base - KHEAP_VA) + (uint64_t)wr * size, msg, size);
   hw_store_release32(ctl + 64, (wr + 1) % r.count);
}

static uint64_t
make_ring(struct host *h, uint64_t ctl_va, uint32_t entry_size)
{
   uint8_t *base_host;
   uint64_t base = kalloc(h, (uint64_t)RING_COUNT * entry_size, &base_host);
   agx_pack(h->kheap + (ctl_va - KHEAP_VA), FW_RING, r) {
      r.base = base;
      r.count = RING_COUNT;
      r.entry_size = entry_size;
   }
   return ctl_va;
}

static uint64_t
now_ms(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A job: header, script, payload, each raw or packed from input values. */
static uint64_t
make_job(struct host *h, struct input *in, bool raw_header, uint64_t scratch_va)
{
   uint8_t *script, *payload, *hdr;
   uint8_t slen;
   take(in, &slen, 1);
   uint64_t script_va = kalloc(h, 256, &script);
   if (slen & 1) {
      take(in, script, slen);   /* raw script bytes */
   } else {
      /* a well-formed script whose operands come from the input */
      uint8_t *p = script;
      if (slen & 2) {
         agx_pack(p, FW_OP_BARRIER, op) {
            op.stamp = pick_va(in, scratch_va);
            op.value = take32(in);
         }
         p += AGX_FW_OP_BARRIER_LENGTH;
      }
      if (slen & 4) {
         agx_pack(p, FW_OP_TIMESTAMP, op) { op.address = pick_va(in, scratch_va + 64); }
         p += AGX_FW_OP_TIMESTAMP_LENGTH;
      }
      agx_pack(p, FW_OP_START, op) { (void)op; }
      p += AGX_FW_OP_START_LENGTH;
      agx_pack(p, FW_OP_WAIT_FOR_IDLE, op) {
         op.vertex = slen & 8;
         op.fragment = slen & 16;
         op.compute = slen & 32;
      }
      p += AGX_FW_OP_WAIT_FOR_IDLE_LENGTH;
      if (!(slen & 64)) {
         agx_pack(p, FW_OP_FINALIZE, op) { (void)op; }
         p += AGX_FW_OP_FINALIZE_LENGTH;
      }
      slen = (uint8_t)(p - script);
   }
   uint64_t payload_va = kalloc(h, AGX_FW_RENDER_PAYLOAD_LENGTH, &payload);
   take(in, payload, AGX_FW_RENDER_PAYLOAD_LENGTH);
   uint64_t job_va = kalloc(h, AGX_FW_JOB_HEADER_LENGTH, &hdr);
   if (raw_header) {
      take(in, hdr, AGX_FW_JOB_HEADER_LENGTH);
   } else {
      uint8_t b[4];
      take(in, b, 4);
      agx_pack(hdr, FW_JOB_HEADER, j) {
         static const enum agx_fw_command tags[4] = {
            AGX_FW_COMMAND_RUN_VERTEX, AGX_FW_COMMAND_RUN_FRAGMENT,
            AGX_FW_COMMAND_RUN_COMPUTE, AGX_FW_COMMAND_BARRIER,
         };
         j.tag = tags[b[0] & 3];
         j.vm_slot = b[1];
         j.event_slot = b[2];
         j.job_id = take32(in);
         j.stamp = (b[3] & 1) ? pick_va(in, scratch_va + 128) : 0;
         j.stamp_value = take32(in);
         j.script = pick_va(in, script_va);
         j.script_size = (b[3] & 2) ? take32(in) : slen;
         j.payload = pick_va(in, payload_va);
      }
   }
   return job_va;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   if (size < 2 || size > 4096)
      return 0;
   struct input in = { data + 2, size - 2 };
   const uint8_t raw = data[0], sel = data[1];

   struct hw_device_config cfg = {
      .mem_size = 4ull << 20,
      .job_timeout_ms = 50,
      .job_cycle_budget = 1u << 24,
   };
   struct host h = { .dev = hw_device_create(&cfg) };
   if (!h.dev)
      abort();
   struct hw_device *dev = h.dev;
   uint64_t ttbat = hw_phys_alloc(dev, 1), kttb = hw_uat_table_alloc(dev);
   uint64_t kpa = hw_phys_alloc(dev, KHEAP_PAGES);
   if (!ttbat || !kttb || !kpa || hw_uat_set_ttbat(dev, ttbat))
      abort();
   for (unsigned s = 0; s < HW_UAT_NUM_CONTEXTS; s++)
      if (hw_uat_set_context(dev, s, 0, kttb))
         abort();
   if (hw_uat_map(dev, kttb, KHEAP_VA, kpa, KHEAP_PAGES * HW_PAGE_SIZE,
                  HW_UAT_READ | HW_UAT_WRITE))
      abort();
   h.kheap = hw_phys_to_host(dev, kpa, KHEAP_PAGES * HW_PAGE_SIZE);
   /* scratch the jobs' stamps and timestamps point at (the firmware
    * reaches memory through VM slot 0: the kernel half) */
   uint8_t *scratch;
   uint64_t scratch_va = kalloc(&h, 256, &scratch);
   take(&in, scratch, 256);
   hw_device_set_executor(dev, AGX_FW_PIPE_COMPUTE, fake_exec, NULL);

   /* InitData and the rings, as a driver lays them out. */
   uint8_t *initdata, *rings, *x;
   uint64_t initdata_va = kalloc(&h, AGX_FW_INIT_DATA_LENGTH, &initdata);
   const unsigned nrings = HW_FW_PRIORITIES * HW_FW_PIPES;
   uint64_t rings_va = kalloc(&h, (nrings + 2) * AGX_FW_RING_LENGTH, &rings);
   for (unsigned i = 0; i < nrings; i++)
      make_ring(&h, rings_va + i * AGX_FW_RING_LENGTH, HW_FW_PIPE_MSG_SIZE);
   uint64_t devctrl_va = make_ring(&h, rings_va + nrings * AGX_FW_RING_LENGTH,
                                   HW_FW_DEVCTRL_MSG_SIZE);
   uint64_t event_va = make_ring(&h, rings_va + (nrings + 1) * AGX_FW_RING_LENGTH,
                                 HW_FW_EVENT_MSG_SIZE);
   uint64_t stamps_va = kalloc(&h, 4 * HW_FW_EVENT_SLOTS, &x);
   uint8_t *status;
   uint64_t status_va = kalloc(&h, AGX_FW_STATUS_LENGTH, &status);
   if (raw & RAW_INITDATA) {
      take(&in, initdata, AGX_FW_INIT_DATA_LENGTH);
   } else {
      agx_pack(initdata, FW_INIT_DATA, d) {
         d.pipe_rings = rings_va;
         d.device_control_ring = devctrl_va;
         d.event_ring = event_va;
         d.event_stamps = stamps_va;
         d.status = status_va;
      }
   }
   if (raw & RAW_RING) {
      unsigned r = (sel & 15) % (nrings + 2);
      take(&in, rings + r * AGX_FW_RING_LENGTH, AGX_FW_RING_LENGTH);
   }
   if (hw_fw_boot(dev, initdata_va) != 0) {
      hw_device_destroy(dev);
      return 0;
   }

   if (raw & RAW_DEVCTRL) {
      uint8_t m[HW_FW_DEVCTRL_MSG_SIZE];
      take(&in, m, sizeof(m));
      ring_push(&h, devctrl_va, m, sizeof(m));
      hw_doorbell(dev, HW_DOORBELL_DEVCTRL);
   }

   /* A work queue with one or two jobs. */
   const unsigned pipe = (sel >> 4) % HW_FW_PIPES, prio = (sel >> 6) % HW_FW_PRIORITIES;
   uint8_t *wq, *ring;
   uint64_t wq_va = kalloc(&h, AGX_FW_WORK_QUEUE_LENGTH, &wq);
   uint64_t ring_va = kalloc(&h, 4 * 8, &ring);
   unsigned njobs = (raw & TWO_JOBS) ? 2 : 1;
   for (unsigned i = 0; i < njobs; i++) {
      uint64_t job = make_job(&h, &in, raw & RAW_HEADER, scratch_va);
      uint8_t e;
      take(&in, &e, 1);
      if (e & 1)
         take(&in, &job, 8);   /* a random work-queue entry */
      memcpy(ring + 8 * i, &job, 8);
   }
   if (raw & RAW_QUEUE) {
      take(&in, wq, AGX_FW_WORK_QUEUE_LENGTH);
   } else {
      agx_pack(wq, FW_WORK_QUEUE, w) {
         w.ring_size = 4;
         w.ring = ring_va;
      }
      hw_store_release32(wq + 128, njobs);
   }
   uint8_t msg[HW_FW_PIPE_MSG_SIZE];
   if (raw & RAW_RUNMSG) {
      take(&in, msg, sizeof(msg));
   } else {
      uint8_t slot;
      take(&in, &slot, 1);
      agx_pack(msg, FW_RUN_QUEUE_MESSAGE, m) {
         m.pipe = (enum agx_fw_pipe)pipe;
         m.work_queue = wq_va;
         m.write_index = njobs;
         m.event_slot = slot & 0x7f;
         m.new_queue = true;
      }
   }
   ring_push(&h, rings_va + (prio * HW_FW_PIPES + pipe) * AGX_FW_RING_LENGTH, msg, sizeof(msg));
   hw_doorbell(dev, HW_DOORBELL_PIPE(pipe, prio));
   if (raw & RAW_DOORBELL)
      hw_doorbell(dev, take32(&in));

   /* Wait until every job was answered (status counters) or a short
    * timeout, consuming events so the ring never blocks the firmware. */
   uint8_t *ev = h.kheap + (event_va - KHEAP_VA);
   uint32_t rd = 0;
   const uint64_t end = now_ms() + WAIT_MS;
   for (;;) {
      struct agx_fw_ring r;
      agx_fw_ring_unpack(ev, &r);
      uint32_t wr = hw_load_acquire32(ev + 64);
      if (r.count && wr < r.count && wr != rd) {
         rd = wr;
         hw_store_release32(ev, rd);
      }
      struct agx_fw_status st;
      agx_fw_status_unpack(status, &st);
      if (st.jobs_completed + st.faults + st.timeouts + st.errors >= njobs || now_ms() >= end)
         break;
      struct pollfd p = { .fd = hw_device_irq_fd(dev), .events = POLLIN };
      if (poll(&p, 1, 1) > 0) {
         uint64_t n;
         if (read(p.fd, &n, sizeof(n)) < 0)
            break;
      }
   }
   if (getenv("FUZZ_HW_FW_VERBOSE")) {   /* to check what seeds reach */
      struct agx_fw_status st;
      agx_fw_status_unpack(status, &st);
      fprintf(stderr, "fuzz_hw_fw: completed %u faults %u timeouts %u errors %u "
              "doorbells %u bad %u\n", st.jobs_completed, st.faults, st.timeouts,
              st.errors, st.doorbells, st.bad_doorbells);
   }
   hw_device_destroy(dev);   /* shuts the firmware down */
   return 0;
}
