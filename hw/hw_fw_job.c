/* SPDX-License-Identifier: MIT */
/*
 * Jobs: fetching them from work queues, running their scripts, handing
 * the work to the pipe's executor, and finishing them.
 *
 * Invariant the kernel relies on (docs/firmware.md): every job pointer the
 * firmware takes from a ring is finished exactly once: its stamps are
 * written, GPU Done Index moves past it and its event slot's Flag fires,
 * preceded by at most one Fault, Timeout or Job Error event when it
 * failed. Only a job whose header cannot be read at all (so its stamps are
 * unknown) ends with the error event alone.
 */
#include <string.h>

#include "hw/hw_fw_priv.h"

static unsigned
tag_pipe(enum agx_fw_command tag, unsigned queue_pipe)
{
   switch (tag) {
   case AGX_FW_COMMAND_RUN_VERTEX: return AGX_FW_PIPE_VERTEX;
   case AGX_FW_COMMAND_RUN_FRAGMENT: return AGX_FW_PIPE_FRAGMENT;
   case AGX_FW_COMMAND_RUN_COMPUTE: return AGX_FW_PIPE_COMPUTE;
   default: return queue_pipe;
   }
}

static void
fail_error(struct hw_fw *fw, struct fw_queue *q, struct fw_job *job,
           enum agx_fw_error err)
{
   if (job->failed)
      return;
   job->failed = true;
   fw_post_job_error(fw, q, job, err);
}

static void
fail_fault(struct hw_fw *fw, struct fw_queue *q, struct fw_job *job,
           const struct hw_fault *f)
{
   if (!f->valid) {
      /* An access refused before translation (misaligned): the job is
       * malformed rather than faulting. */
      fail_error(fw, q, job, AGX_FW_ERROR_BAD_JOB);
      return;
   }
   if (job->failed)
      return;
   job->failed = true;
   fw_post_fault(fw, q, job, f);
}

static void
finalize(struct hw_fw *fw, struct fw_queue *q, struct fw_job *job)
{
   hw_device_advance_cycles(fw->dev, HW_FW_FINALIZE_CYCLES);
   hw_mmu_begin_job(&fw->mmu);
   unsigned slot = job->hdr.event_slot;
   uint32_t value = job->hdr.stamp_value;

   /* Stamps before the done index and the Flag: when the host sees
    * either, the stamps are already in memory (release stores). */
   if (job->hdr.stamp && !fw_store32(fw, job->hdr.stamp, value))
      fail_fault(fw, q, job, &fw->mmu.fault);
   if (slot < HW_FW_EVENT_SLOTS &&
       !fw_store32(fw, fw->init.event_stamps + 4 * slot, value))
      fail_fault(fw, q, job, &fw->mmu.fault);
   hw_mmu_begin_job(&fw->mmu);
   if (!fw_store32(fw, q->va + FW_WQ_DONE_OFFSET, q->rptr))
      fail_fault(fw, q, job, &fw->mmu.fault);

   fw->stats.jobs++;
   fw->status_dirty = true;
   if (slot < HW_FW_EVENT_SLOTS) {
      uint8_t msg[HW_FW_EVENT_MSG_SIZE] = { 0 };
      uint32_t firing[4] = { 0 };
      firing[slot / 32] = 1u << (slot % 32);
      agx_pack(msg, FW_EVENT_FLAG, e) {
         e.firing_0 = firing[0];
         e.firing_1 = firing[1];
         e.firing_2 = firing[2];
         e.firing_3 = firing[3];
      }
      fw_post_event(fw, msg);
   }
   q->have_job = false;
   memset(job, 0, sizeof(*job));
}

/* The queue itself is unusable: report and forget it. */
static enum fw_step
drop_queue(struct hw_fw *fw, struct fw_queue *q)
{
   if (fw->mmu.fault.valid)
      fw_post_fault(fw, q, NULL, &fw->mmu.fault);
   else
      fw_post_job_error(fw, q, NULL, AGX_FW_ERROR_BAD_QUEUE);
   memset(q, 0, sizeof(*q));
   return FW_PROGRESS;
}

static bool
header_ok(const struct fw_queue *q, const struct agx_fw_job_header *h)
{
   if (h->vm_slot >= 16)
      return false;
   if (h->event_slot >= HW_FW_EVENT_SLOTS && h->event_slot != HW_FW_NO_EVENT)
      return false;
   if ((h->stamp & 3) || !h->payload)
      return false;
   switch (h->tag) {
   case AGX_FW_COMMAND_BARRIER:
      return true;
   case AGX_FW_COMMAND_RUN_VERTEX:
   case AGX_FW_COMMAND_RUN_FRAGMENT:
   case AGX_FW_COMMAND_RUN_COMPUTE:
      return tag_pipe(h->tag, q->pipe) == q->pipe && h->script &&
             h->script_size >= 8 && h->script_size <= HW_FW_MAX_SCRIPT_SIZE &&
             h->script_size % 8 == 0;
   default:
      return false;
   }
}

static enum fw_step
fetch_job(struct hw_fw *fw, struct fw_queue *q)
{
   uint32_t wr;
   hw_mmu_begin_job(&fw->mmu);
   if (!fw_load32(fw, q->va + FW_WQ_WRITE_OFFSET, &wr) || wr >= q->size)
      return drop_queue(fw, q);
   if (wr == q->rptr)
      return FW_IDLE;

   uint64_t ptr;
   bool ok = fw_read(fw, q->ring + (uint64_t)q->rptr * 8, &ptr, sizeof(ptr));
   struct hw_fault fault = fw->mmu.fault;
   q->rptr = (q->rptr + 1) % q->size;
   hw_mmu_begin_job(&fw->mmu);
   if (!fw_store32(fw, q->va + FW_WQ_READ_OFFSET, q->rptr))
      return drop_queue(fw, q);

   struct fw_job *job = &q->job;
   memset(job, 0, sizeof(*job));
   job->va = ok ? ptr : 0;
   job->hdr.event_slot = q->event_slot;
   uint8_t buf[AGX_FW_JOB_HEADER_LENGTH];
   if (ok) {
      ok = fw_read(fw, ptr, buf, sizeof(buf));
      fault = fw->mmu.fault;
   }
   if (!ok) {
      /* No header, so no stamps to write: the error event is all the
       * host gets, and the done index still moves past the job. */
      fw_post_fault(fw, q, job, &fault);
      hw_mmu_begin_job(&fw->mmu);
      fw_store32(fw, q->va + FW_WQ_DONE_OFFSET, q->rptr);
      return FW_PROGRESS;
   }

   q->have_job = true;
   bool clean = agx_fw_job_header_unpack(buf, &job->hdr);
   job->pipe = tag_pipe(job->hdr.tag, q->pipe);
   if (!clean || !header_ok(q, &job->hdr)) {
      if (job->hdr.event_slot >= HW_FW_EVENT_SLOTS)
         job->hdr.event_slot = HW_FW_NO_EVENT;
      job->hdr.stamp &= ~3ull;
      fail_error(fw, q, job, AGX_FW_ERROR_BAD_JOB);
      finalize(fw, q, job);
      return FW_PROGRESS;
   }
   if (job->hdr.tag == AGX_FW_COMMAND_BARRIER) {
      uint8_t p[AGX_FW_BARRIER_PAYLOAD_LENGTH];
      struct agx_fw_barrier_payload b;
      hw_mmu_begin_job(&fw->mmu);
      if (!fw_read(fw, job->hdr.payload, p, sizeof(p))) {
         fail_fault(fw, q, job, &fw->mmu.fault);
         finalize(fw, q, job);
      } else if (!agx_fw_barrier_payload_unpack(p, &b) || (b.stamp & 3) ||
                 !b.stamp) {
         fail_error(fw, q, job, AGX_FW_ERROR_BAD_JOB);
         finalize(fw, q, job);
      } else {
         job->barrier_stamp = b.stamp;
         job->barrier_value = b.value;
      }
   }
   return FW_PROGRESS;
}

/* Another queue's job on one of these pipes is between Start and
 * Finalize (suspended at a Barrier op). */
static bool
pipes_busy(struct hw_fw *fw, const struct fw_queue *self, unsigned mask)
{
   for (unsigned i = 0; i < HW_FW_MAX_QUEUES; i++) {
      const struct fw_queue *q = &fw->queues[i];
      if (q != self && q->used && q->have_job && q->job.started &&
          (mask >> q->job.pipe & 1))
         return true;
   }
   return false;
}

/* Runs the payload on the pipe's executor; false when the job failed (the
 * event is posted) or the firmware is stopping. */
static bool
run_start(struct hw_fw *fw, struct fw_queue *q, struct fw_job *job)
{
   struct hw_device *dev = fw->dev;
   struct agx_fw_compute_payload compute;
   struct agx_fw_render_payload render;
   struct hw_exec_job ej = {
      .dev = dev,
      .fw = fw,
      .job = job->va,
      .job_id = job->hdr.job_id,
      .tag = job->hdr.tag,
      .vm_slot = job->hdr.vm_slot,
      .payload = job->hdr.payload,
      .cycle_budget = dev->cfg.job_cycle_budget,
   };
   bool clean;
   hw_mmu_begin_job(&fw->mmu);
   if (job->hdr.tag == AGX_FW_COMMAND_RUN_COMPUTE) {
      uint8_t buf[AGX_FW_COMPUTE_PAYLOAD_LENGTH];
      clean = fw_read(fw, job->hdr.payload, buf, sizeof(buf));
      clean = clean && agx_fw_compute_payload_unpack(buf, &compute);
      ej.compute = &compute;
   } else {
      uint8_t buf[AGX_FW_RENDER_PAYLOAD_LENGTH];
      clean = fw_read(fw, job->hdr.payload, buf, sizeof(buf));
      clean = clean && agx_fw_render_payload_unpack(buf, &render);
      ej.render = &render;
   }
   if (!clean) {
      if (fw->mmu.fault.valid)
         fail_fault(fw, q, job, &fw->mmu.fault);
      else
         fail_error(fw, q, job, AGX_FW_ERROR_BAD_JOB);
      return false;
   }

   pthread_mutex_lock(&dev->lock);
   struct hw_executor ex = dev->exec[job->pipe];
   pthread_mutex_unlock(&dev->lock);

   hw_device_advance_cycles(dev, HW_FW_START_CYCLES);
   job->started = true;
   if (!ex.fn) {
      if (job->pipe == AGX_FW_PIPE_COMPUTE) {
         hw_set_job_error(dev, job->hdr.job_id, "fw: job %#x: no compute executor registered",
                          job->hdr.job_id);
         fail_error(fw, q, job, AGX_FW_ERROR_NO_EXECUTOR);
         return false;
      }
      return true;   /* vertex/fragment: nothing to render with yet */
   }

   ej.deadline_ns = hw_now_ns() + (uint64_t)dev->cfg.job_timeout_ms * 1000000ull;
   struct hw_exec_result res = { 0 };
   ex.fn(ex.data, &ej, &res);
   if (atomic_load(&fw->stopping))
      return false;

   uint64_t cycles = res.cycles;
   if (cycles > ej.cycle_budget) {
      cycles = ej.cycle_budget;
      res.status = HW_EXEC_TIMEOUT;
   }
   hw_device_advance_cycles(dev, cycles);

   switch (res.status) {
   case HW_EXEC_OK:
      return true;
   case HW_EXEC_FAULT:
      if (!res.fault.valid) {
         hw_set_job_error(dev, job->hdr.job_id, "fw: job %#x: executor faulted without a record",
                          job->hdr.job_id);
         fail_error(fw, q, job, AGX_FW_ERROR_EXECUTOR);
      } else {
         fail_fault(fw, q, job, &res.fault);
      }
      return false;
   case HW_EXEC_TIMEOUT:
      if (!job->failed) {
         job->failed = true;
         fw_post_timeout(fw, q, job, res.cycles);
      }
      return false;
   case HW_EXEC_ERROR:
   default:
      res.message[sizeof(res.message) - 1] = '\0';
      hw_set_job_error(dev, job->hdr.job_id, "fw: job %#x: %s", job->hdr.job_id, res.message);
      fail_error(fw, q, job, AGX_FW_ERROR_EXECUTOR);
      return false;
   }
}

static unsigned
op_size(unsigned opcode)
{
   switch (opcode) {
   case AGX_FW_OP_START:
   case AGX_FW_OP_FINALIZE:
   case AGX_FW_OP_WAIT_FOR_IDLE:
      return 8;
   case AGX_FW_OP_TIMESTAMP:
   case AGX_FW_OP_BARRIER:
      return 16;
   default:
      return 0;
   }
}

/* Unpacks an op, false if reserved bits are set. */
static bool
op_unpack(const uint8_t *buf, unsigned opcode, void *out)
{
   switch (opcode) {
   case AGX_FW_OP_START: return agx_fw_op_start_unpack(buf, out);
   case AGX_FW_OP_FINALIZE: return agx_fw_op_finalize_unpack(buf, out);
   case AGX_FW_OP_WAIT_FOR_IDLE: return agx_fw_op_wait_for_idle_unpack(buf, out);
   case AGX_FW_OP_TIMESTAMP: return agx_fw_op_timestamp_unpack(buf, out);
   case AGX_FW_OP_BARRIER: return agx_fw_op_barrier_unpack(buf, out);
   default: return false;
   }
}

static enum fw_step
run_barrier_job(struct hw_fw *fw, struct fw_queue *q, struct fw_job *job)
{
   uint32_t v;
   hw_mmu_begin_job(&fw->mmu);
   if (!fw_load32(fw, job->barrier_stamp, &v)) {
      fail_fault(fw, q, job, &fw->mmu.fault);
   } else if (!hw_stamp_reached(v, job->barrier_value)) {
      return FW_BLOCKED;
   }
   finalize(fw, q, job);
   return FW_PROGRESS;
}

enum fw_step
fw_queue_step(struct hw_fw *fw, struct fw_queue *q)
{
   if (!q->have_job)
      return fetch_job(fw, q);
   struct fw_job *job = &q->job;
   if (job->hdr.tag == AGX_FW_COMMAND_BARRIER)
      return run_barrier_job(fw, q, job);

   for (;;) {
      union {
         struct agx_fw_op_header h;
         struct agx_fw_op_wait_for_idle wfi;
         struct agx_fw_op_timestamp ts;
         struct agx_fw_op_barrier bar;
         struct agx_fw_op_start start;
         struct agx_fw_op_finalize fin;
      } op;
      uint8_t buf[16];
      uint64_t va = job->hdr.script + job->pc;
      hw_mmu_begin_job(&fw->mmu);
      if (job->pc + 8 > job->hdr.script_size) {
         fail_error(fw, q, job, AGX_FW_ERROR_BAD_SCRIPT);  /* no Finalize */
         finalize(fw, q, job);
         return FW_PROGRESS;
      }
      if (!fw_read(fw, va, buf, 8)) {
         fail_fault(fw, q, job, &fw->mmu.fault);
         finalize(fw, q, job);
         return FW_PROGRESS;
      }
      agx_fw_op_header_unpack(buf, &op.h);
      unsigned opcode = op.h.opcode, size = op_size(opcode);
      if (size == 16 && job->pc + 16 <= job->hdr.script_size &&
          !fw_read(fw, va + 8, buf + 8, 8)) {
         fail_fault(fw, q, job, &fw->mmu.fault);
         finalize(fw, q, job);
         return FW_PROGRESS;
      }
      if (!size || job->pc + size > job->hdr.script_size ||
          !op_unpack(buf, opcode, &op)) {
         fail_error(fw, q, job, AGX_FW_ERROR_BAD_SCRIPT);
         finalize(fw, q, job);
         return FW_PROGRESS;
      }

      switch (opcode) {
      case AGX_FW_OP_WAIT_FOR_IDLE: {
         unsigned mask = (op.wfi.vertex ? 1u << AGX_FW_PIPE_VERTEX : 0) |
                         (op.wfi.fragment ? 1u << AGX_FW_PIPE_FRAGMENT : 0) |
                         (op.wfi.compute ? 1u << AGX_FW_PIPE_COMPUTE : 0);
         if (pipes_busy(fw, q, mask))
            return FW_BLOCKED;
         break;
      }
      case AGX_FW_OP_BARRIER: {
         uint32_t v;
         if (op.bar.stamp & 3) {
            fail_error(fw, q, job, AGX_FW_ERROR_BAD_SCRIPT);
            finalize(fw, q, job);
            return FW_PROGRESS;
         }
         if (!fw_load32(fw, op.bar.stamp, &v)) {
            fail_fault(fw, q, job, &fw->mmu.fault);
            finalize(fw, q, job);
            return FW_PROGRESS;
         }
         if (!hw_stamp_reached(v, op.bar.value))
            return FW_BLOCKED;
         break;
      }
      case AGX_FW_OP_TIMESTAMP: {
         /* A job's first timestamp waits for a clock edge of the
          * timestamp counter, so what a job measures (end - start) is a
          * function of its own cycles alone, not of where earlier work
          * left the clock: the model's GPU times repeat exactly. */
         if (!job->started)
            hw_device_align_cycles(fw->dev, HW_CYCLES_PER_4_TICKS);
         uint64_t t = hw_device_gpu_ticks(fw->dev);
         if (!fw_write(fw, op.ts.address, &t, sizeof(t))) {
            fail_fault(fw, q, job, &fw->mmu.fault);
            finalize(fw, q, job);
            return FW_PROGRESS;
         }
         break;
      }
      case AGX_FW_OP_START:
         if (job->started) {
            fail_error(fw, q, job, AGX_FW_ERROR_BAD_SCRIPT);
            finalize(fw, q, job);
            return FW_PROGRESS;
         }
         fw_maybe_stall(fw);
         if (!run_start(fw, q, job)) {
            if (atomic_load(&fw->stopping))
               return FW_IDLE;   /* abandoned: no events at shutdown */
            finalize(fw, q, job);
            return FW_PROGRESS;
         }
         break;
      case AGX_FW_OP_FINALIZE:
         finalize(fw, q, job);
         return FW_PROGRESS;
      }
      job->pc += size;
   }
}
