/* SPDX-License-Identifier: MIT */
/*
 * The firmware thread: boot, doorbell, the host->firmware rings, the event
 * ring and the scheduler. Jobs themselves are in hw_fw_job.c.
 *
 * The thread sleeps until a doorbell (or, while some job waits on a stamp
 * or the event ring is full, until a 1 ms poll), then drains the
 * device-control ring, then every pipe ring, then runs jobs: always the
 * highest-priority queue that can make progress, round robin among queues
 * of equal priority, one job step at a time so a high-priority submission
 * overtakes queued low-priority work at the next job boundary.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hw/hw_fw_priv.h"
#include "hw/hw_uat.h"

#define FW_POLL_NS 1000000

/* ------------------------------------------------------ memory helpers */

bool
fw_read(struct hw_fw *fw, uint64_t va, void *dst, size_t size)
{
   return hw_mmu_read(&fw->mmu, va, dst, size);
}

bool
fw_write(struct hw_fw *fw, uint64_t va, const void *src, size_t size)
{
   return hw_mmu_write(&fw->mmu, va, src, size);
}

/* Shared words are naturally aligned, so one page holds them: a single
 * atomic access on the host mapping. */
bool
fw_load32(struct hw_fw *fw, uint64_t va, uint32_t *v)
{
   if (va & 3)
      return false;   /* callers check alignment where the host chose va */
   void *p = hw_mmu_map(&fw->mmu, va, 4, false);
   if (!p)
      return false;
   *v = hw_load_acquire32(p);
   return true;
}

bool
fw_store32(struct hw_fw *fw, uint64_t va, uint32_t v)
{
   if (va & 3)
      return false;
   void *p = hw_mmu_map(&fw->mmu, va, 4, true);
   if (!p)
      return false;
   hw_store_release32(p, v);
   return true;
}

static bool
fw_stopping(struct hw_fw *fw)
{
   return atomic_load(&fw->stopping);
}

/* Sleeps up to ns or until a doorbell/stop. */
static void
fw_wait(struct hw_fw *fw, uint64_t ns)
{
   pthread_mutex_lock(&fw->lock);
   if (!fw->kick && !fw->stop) {
      if (ns) {
         struct timespec ts;
         clock_gettime(CLOCK_REALTIME, &ts);
         uint64_t t = (uint64_t)ts.tv_nsec + ns;
         ts.tv_sec += (time_t)(t / 1000000000ull);
         ts.tv_nsec = (long)(t % 1000000000ull);
         pthread_cond_timedwait(&fw->cond, &fw->lock, &ts);
      } else {
         pthread_cond_wait(&fw->cond, &fw->lock);
      }
   }
   pthread_mutex_unlock(&fw->lock);
}

/* TESSERA_HW_STALL=N:MS (hw_fw_priv.h). A malformed value leaves it off
 * and says so: a test that believes it stalled the GPU must not pass
 * without the stall. */
static void
parse_stall(struct hw_fw *fw, const char *v)
{
   if (!v || !*v)
      return;
   char *e;
   unsigned long long n = strtoull(v, &e, 10);
   unsigned long long ms = *e == ':' ? strtoull(e + 1, &e, 10) : 0;
   if (e == v || *e || ms == 0 || ms > 600000) {
      fprintf(stderr, "tessera: TESSERA_HW_STALL='%s' ignored: want N:MS "
              "(job index, 1 to 600000 ms)\n", v);
      return;
   }
   fw->stall_at = n;
   fw->stall_ms = ms;
}

void
fw_maybe_stall(struct hw_fw *fw)
{
   if (!fw->stall_ms || fw->starts++ != fw->stall_at)
      return;
   /* in slices, so that a shutdown is not held up */
   for (uint64_t t = 0; t < fw->stall_ms && !fw_stopping(fw); t += 10) {
      struct timespec ts = { 0, 10000000 };
      nanosleep(&ts, NULL);
   }
}

/* ---------------------------------------------------------------- events */

static void write_status(struct hw_fw *fw, bool ready, bool stopped);

bool
fw_post_event(struct hw_fw *fw, const void *msg)
{
   struct fw_ring *r = &fw->event;
   uint32_t rd, wr;
   /* Counters first, so the host sees them current when it handles the
    * event. */
   if (fw->status_dirty)
      write_status(fw, true, false);
   for (;;) {
      hw_mmu_begin_job(&fw->mmu);
      if (!fw_load32(fw, r->va + FW_RING_WRITE_OFFSET, &wr) ||
          !fw_load32(fw, r->va + FW_RING_READ_OFFSET, &rd))
         return false;
      if (wr >= r->count || rd >= r->count)
         return false;  /* the host broke the ring; nothing sane to do */
      if ((wr + 1) % r->count != rd)
         break;
      /* Full: the host has not drained it yet. Wait, as firmware would. */
      if (fw_stopping(fw))
         return false;
      hw_raise_irq(fw->dev);
      fw_wait(fw, FW_POLL_NS);
   }
   if (!fw_write(fw, r->base + (uint64_t)wr * HW_FW_EVENT_MSG_SIZE, msg,
                 HW_FW_EVENT_MSG_SIZE) ||
       !fw_store32(fw, r->va + FW_RING_WRITE_OFFSET, (wr + 1) % r->count))
      return false;
   hw_raise_irq(fw->dev);
   return true;
}

static void
job_ids(const struct fw_queue *q, const struct fw_job *job, unsigned *slot,
        unsigned *vm, uint32_t *stamp, uint32_t *id, uint64_t *va)
{
   *slot = job ? job->hdr.event_slot : (q ? q->event_slot : HW_FW_NO_EVENT);
   *vm = job ? job->hdr.vm_slot : 0;
   *stamp = job ? job->hdr.stamp_value : 0;
   *id = job ? job->hdr.job_id : 0;
   *va = job ? job->va : 0;
}

void
fw_post_fault(struct hw_fw *fw, const struct fw_queue *q,
              const struct fw_job *job, const struct hw_fault *f)
{
   uint8_t msg[HW_FW_EVENT_MSG_SIZE] = { 0 };
   struct agx_fw_event_fault e = { 0 };
   unsigned slot, vm;
   job_ids(q, job, &slot, &vm, &e.stamp_value, &e.job_id, &e.job);
   e.event_slot = slot & 0xff;
   e.vm_slot = vm & 0xff;
   e.work_queue = q ? q->va : 0;
   e.fault_info = hw_fault_info_pack(f);
   e.address = f->addr;
   agx_fw_event_fault_pack(msg, &e);
   fw->stats.faults++;
   fw->status_dirty = true;
   fw_post_event(fw, msg);
}

void
fw_post_job_error(struct hw_fw *fw, const struct fw_queue *q,
                  const struct fw_job *job, enum agx_fw_error err)
{
   uint8_t msg[HW_FW_EVENT_MSG_SIZE] = { 0 };
   struct agx_fw_event_job_error e = { 0 };
   unsigned slot, vm;
   job_ids(q, job, &slot, &vm, &e.stamp_value, &e.job_id, &e.job);
   e.event_slot = slot & 0xff;
   e.vm_slot = vm & 0xff;
   e.work_queue = q ? q->va : 0;
   e.error = err;
   agx_fw_event_job_error_pack(msg, &e);
   fw->stats.errors++;
   fw->status_dirty = true;
   fw_post_event(fw, msg);
}

void
fw_post_timeout(struct hw_fw *fw, const struct fw_queue *q,
                const struct fw_job *job, uint64_t cycles)
{
   uint8_t msg[HW_FW_EVENT_MSG_SIZE] = { 0 };
   struct agx_fw_event_timeout e = { 0 };
   unsigned slot, vm;
   job_ids(q, job, &slot, &vm, &e.stamp_value, &e.job_id, &e.job);
   e.event_slot = slot & 0xff;
   e.vm_slot = vm & 0xff;
   e.work_queue = q ? q->va : 0;
   e.cycles = cycles;
   agx_fw_event_timeout_pack(msg, &e);
   fw->stats.timeouts++;
   fw->status_dirty = true;
   fw_post_event(fw, msg);
}

static void
write_status(struct hw_fw *fw, bool ready, bool stopped)
{
   pthread_mutex_lock(&fw->lock);
   fw->stats.doorbells = fw->doorbells;
   fw->stats.bad_doorbells = fw->bad_doorbells;
   pthread_mutex_unlock(&fw->lock);
   uint8_t buf[AGX_FW_STATUS_LENGTH];
   agx_pack(buf, FW_STATUS, s) {
      s.ready = ready;
      s.stopped = stopped;
      s.jobs_completed = fw->stats.jobs;
      s.faults = fw->stats.faults;
      s.timeouts = fw->stats.timeouts;
      s.errors = fw->stats.errors;
      s.doorbells = fw->stats.doorbells;
      s.bad_doorbells = fw->stats.bad_doorbells;
   }
   hw_mmu_begin_job(&fw->mmu);
   fw_write(fw, fw->init.status, buf, sizeof(buf));
   fw->status_dirty = false;
}

/* --------------------------------------------------------- input rings */

/* Next message of a host->firmware ring into msg; false when empty or
 * broken. The read index advances only after the message is handled
 * (fw_ring_pop), so the host can wait for that to know it took effect. */
static bool
ring_peek(struct hw_fw *fw, struct fw_ring *r, void *msg, size_t size,
          uint32_t *rd_out)
{
   uint32_t rd, wr;
   hw_mmu_begin_job(&fw->mmu);
   if (!fw_load32(fw, r->va + FW_RING_READ_OFFSET, &rd) ||
       !fw_load32(fw, r->va + FW_RING_WRITE_OFFSET, &wr))
      return false;
   if (rd == wr || rd >= r->count || wr >= r->count)
      return false;
   if (!fw_read(fw, r->base + (uint64_t)rd * size, msg, size))
      return false;
   *rd_out = rd;
   return true;
}

static void
ring_pop(struct hw_fw *fw, struct fw_ring *r, uint32_t rd)
{
   fw_store32(fw, r->va + FW_RING_READ_OFFSET, (rd + 1) % r->count);
}

static struct fw_queue *
find_queue(struct hw_fw *fw, uint64_t va)
{
   for (unsigned i = 0; i < HW_FW_MAX_QUEUES; i++)
      if (fw->queues[i].used && fw->queues[i].va == va)
         return &fw->queues[i];
   return NULL;
}

static void
devctrl_message(struct hw_fw *fw, const struct agx_fw_device_control_message *m)
{
   switch (m->type) {
   case AGX_FW_DEVICE_CONTROL_TLB_INVALIDATE:
   case AGX_FW_DEVICE_CONTROL_DESTROY_CONTEXT:
      /* One generation for all slots: invalidating more than asked is
       * always correct. Jobs run between messages, so none of the
       * context's work is in flight here. */
      hw_device_tlb_invalidate(fw->dev);
      break;
   case AGX_FW_DEVICE_CONTROL_DESTROY_QUEUE: {
      struct fw_queue *q = find_queue(fw, m->address);
      if (q)
         memset(q, 0, sizeof(*q));
      break;
   }
   case AGX_FW_DEVICE_CONTROL_INITIALIZE:
   case AGX_FW_DEVICE_CONTROL_GROW_TVB_ACK:
   default:
      /* Grow TVB acks matter once the tiler model exists. */
      break;
   }
}

static void
drain_devctrl(struct hw_fw *fw)
{
   uint8_t buf[HW_FW_DEVCTRL_MSG_SIZE];
   uint32_t rd;
   bool any = false;
   while (!fw_stopping(fw) &&
          ring_peek(fw, &fw->devctrl, buf, sizeof(buf), &rd)) {
      struct agx_fw_device_control_message m;
      if (agx_fw_device_control_message_unpack(buf, &m))
         devctrl_message(fw, &m);
      else
         fw_post_job_error(fw, NULL, NULL, AGX_FW_ERROR_BAD_QUEUE);
      ring_pop(fw, &fw->devctrl, rd);
      any = true;
   }
   /* The host waits for the Read Index to pass its message (a message
    * waits for the job in flight): interrupt it rather than have it poll. */
   if (any)
      hw_raise_irq(fw->dev);
}

static void
register_queue(struct hw_fw *fw, unsigned pipe, unsigned prio,
               const struct agx_fw_run_queue_message *m)
{
   struct fw_queue *q = find_queue(fw, m->work_queue);
   if (q && q->have_job && !m->new_queue) {
      q->event_slot = m->event_slot;
      return;
   }
   if (!q) {
      for (unsigned i = 0; i < HW_FW_MAX_QUEUES && !q; i++)
         if (!fw->queues[i].used)
            q = &fw->queues[i];
   }
   struct fw_queue tmp = { .va = m->work_queue, .event_slot = m->event_slot };
   uint8_t buf[AGX_FW_WORK_QUEUE_LENGTH];
   struct agx_fw_work_queue wq;
   hw_mmu_begin_job(&fw->mmu);
   if (!q || (int)m->pipe != (int)pipe || m->work_queue % 64 ||
       !fw_read(fw, m->work_queue, buf, sizeof(buf)) ||
       !agx_fw_work_queue_unpack(buf, &wq) || wq.ring_size == 0 ||
       wq.ring_size > HW_FW_MAX_RING_ENTRIES ||
       wq.gpu_read_index >= wq.ring_size) {
      if (fw->mmu.fault.valid)
         fw_post_fault(fw, &tmp, NULL, &fw->mmu.fault);
      else
         fw_post_job_error(fw, &tmp, NULL, AGX_FW_ERROR_BAD_QUEUE);
      return;
   }
   if (q->used && q->have_job)
      return;   /* "new" for a busy queue: keep running what it has */
   *q = (struct fw_queue){
      .used = true,
      .va = m->work_queue,
      .pipe = pipe,
      .prio = prio,
      .event_slot = m->event_slot,
      .ring = wq.ring,
      .size = wq.ring_size,
      .rptr = wq.gpu_read_index,
   };
}

static void
drain_pipe_rings(struct hw_fw *fw)
{
   uint8_t buf[HW_FW_PIPE_MSG_SIZE];
   for (unsigned prio = 0; prio < HW_FW_PRIORITIES; prio++) {
      for (unsigned pipe = 0; pipe < HW_FW_PIPES; pipe++) {
         struct fw_ring *r = &fw->pipe[prio * HW_FW_PIPES + pipe];
         uint32_t rd;
         while (!fw_stopping(fw) && ring_peek(fw, r, buf, sizeof(buf), &rd)) {
            struct agx_fw_run_queue_message m;
            if (agx_fw_run_queue_message_unpack(buf, &m)) {
               register_queue(fw, pipe, prio, &m);
            } else {
               struct fw_queue tmp = { .va = m.work_queue,
                                       .event_slot = HW_FW_NO_EVENT };
               fw_post_job_error(fw, &tmp, NULL, AGX_FW_ERROR_BAD_QUEUE);
            }
            ring_pop(fw, r, rd);
         }
      }
   }
}

/* ------------------------------------------------------------ scheduler */

/* Runs jobs until nothing can progress. Returns true if some queue is
 * blocked (so the caller polls rather than sleeping until a doorbell).
 * Device control is taken between steps (a step is at most one job), as
 * section 4.3 of docs/firmware.md promises: the host waits for its
 * message with the device lock held (a TLB invalidate after every
 * VM_BIND that unmapped something), and taken only once every queue had
 * run dry, a message waited for all the work queued behind the job in
 * flight: a GL program that frees a buffer while frames are queued
 * stalled for several frames (glxgears on the tessera driver: 2 unbinds,
 * 156 ms of a 0.6 s replay).  Messages change no job's results (the TLB
 * generation, queues the host made idle, acks), so modelled output is
 * the same either way. */
static bool
run_queues(struct hw_fw *fw)
{
   for (bool first = true;; first = false) {
      if (!first)
         drain_devctrl(fw);
      bool progress = false, blocked = false;
      for (unsigned prio = 0; prio < HW_FW_PRIORITIES && !progress; prio++) {
         for (unsigned n = 0; n < HW_FW_MAX_QUEUES && !progress; n++) {
            unsigned i = (fw->rr[prio] + n) % HW_FW_MAX_QUEUES;
            struct fw_queue *q = &fw->queues[i];
            if (!q->used || q->prio != prio)
               continue;
            if (fw_stopping(fw))
               return false;
            enum fw_step s = fw_queue_step(fw, q);
            if (s == FW_PROGRESS) {
               progress = true;
               fw->rr[prio] = (i + 1) % HW_FW_MAX_QUEUES;
            } else if (s == FW_BLOCKED) {
               blocked = true;
            }
         }
      }
      if (fw->status_dirty)
         write_status(fw, true, false);
      if (!progress)
         return blocked;
   }
}

static void *
fw_main(void *arg)
{
   struct hw_fw *fw = arg;
   bool blocked = false;
   for (;;) {
      fw_wait(fw, blocked ? FW_POLL_NS : 0);
      pthread_mutex_lock(&fw->lock);
      bool stop = fw->stop;
      fw->kick = false;
      pthread_mutex_unlock(&fw->lock);
      if (stop)
         break;
      drain_devctrl(fw);
      drain_pipe_rings(fw);
      blocked = run_queues(fw);
      pthread_mutex_lock(&fw->lock);
      bool counted = fw->doorbells != fw->stats.doorbells ||
                     fw->bad_doorbells != fw->stats.bad_doorbells;
      pthread_mutex_unlock(&fw->lock);
      if (counted || fw->status_dirty)
         write_status(fw, true, false);
   }
   write_status(fw, false, true);
   return NULL;
}

/* ----------------------------------------------------------------- boot */

static bool
load_ring(struct hw_fw *fw, uint64_t va, uint32_t entry_size,
          struct fw_ring *out, const char *what)
{
   uint8_t buf[AGX_FW_RING_LENGTH];
   struct agx_fw_ring r;
   hw_mmu_begin_job(&fw->mmu);
   if (!va || va % 64 || !fw_read(fw, va, buf, sizeof(buf))) {
      hw_set_error(fw->dev, "fw boot: %s ring at %#llx is not 64-byte aligned "
                   "and mapped", what,
                   (unsigned long long)va);
      return false;
   }
   if (!agx_fw_ring_unpack(buf, &r) || r.count < 2 ||
       r.count > HW_FW_MAX_RING_ENTRIES || r.entry_size != entry_size ||
       r.read_index >= r.count || r.write_index >= r.count) {
      hw_set_error(fw->dev, "fw boot: %s ring at %#llx: bad count %u or entry "
                   "size %u (expected %u) or indices", what,
                   (unsigned long long)va, r.count, r.entry_size, entry_size);
      return false;
   }
   /* The whole ring must be mapped and writable where the firmware writes. */
   uint8_t probe;
   uint64_t last = r.base + (uint64_t)r.count * entry_size - 1;
   if (!fw_read(fw, r.base, &probe, 1) || !fw_read(fw, last, &probe, 1)) {
      hw_set_error(fw->dev, "fw boot: %s ring entries at %#llx are not mapped",
                   what, (unsigned long long)r.base);
      return false;
   }
   *out = (struct fw_ring){ .va = va, .base = r.base, .count = r.count };
   return true;
}

static bool
parse_initdata(struct hw_fw *fw, uint64_t va)
{
   uint8_t buf[AGX_FW_INIT_DATA_LENGTH];
   hw_mmu_begin_job(&fw->mmu);
   if (!fw_read(fw, va, buf, sizeof(buf))) {
      hw_set_error(fw->dev, "fw boot: InitData at %#llx is not mapped in VM "
                   "slot 0", (unsigned long long)va);
      return false;
   }
   if (!agx_fw_init_data_unpack(buf, &fw->init)) {
      hw_set_error(fw->dev, "fw boot: InitData at %#llx: wrong version or "
                   "reserved bits set", (unsigned long long)va);
      return false;
   }
   for (unsigned i = 0; i < HW_FW_PRIORITIES * HW_FW_PIPES; i++) {
      if (!load_ring(fw, fw->init.pipe_rings + (uint64_t)i * AGX_FW_RING_LENGTH,
                     HW_FW_PIPE_MSG_SIZE, &fw->pipe[i], "pipe"))
         return false;
   }
   if (!load_ring(fw, fw->init.device_control_ring, HW_FW_DEVCTRL_MSG_SIZE,
                  &fw->devctrl, "device control") ||
       !load_ring(fw, fw->init.event_ring, HW_FW_EVENT_MSG_SIZE, &fw->event,
                  "event"))
      return false;
   uint8_t zero[4 * HW_FW_EVENT_SLOTS];
   hw_mmu_begin_job(&fw->mmu);
   if (!fw->init.event_stamps || fw->init.event_stamps % 4 ||
       !fw_read(fw, fw->init.event_stamps, zero, sizeof(zero)) ||
       !hw_mmu_map(&fw->mmu, fw->init.event_stamps, 4, true) ||
       !fw->init.status ||
       !hw_mmu_map(&fw->mmu, fw->init.status, AGX_FW_STATUS_LENGTH, true)) {
      hw_set_error(fw->dev, "fw boot: event stamps or status not mapped "
                   "writable");
      return false;
   }
   return true;
}

int
hw_fw_boot(struct hw_device *dev, uint64_t initdata_va)
{
   pthread_mutex_lock(&dev->lock);
   bool booted = dev->fw != NULL;
   pthread_mutex_unlock(&dev->lock);
   if (booted) {
      hw_set_error(dev, "fw boot: already running");
      return -EBUSY;
   }
   struct hw_fw *fw = calloc(1, sizeof(*fw));
   if (!fw)
      return -ENOMEM;
   fw->dev = dev;
   fw->initdata = initdata_va;
   hw_mmu_init(&fw->mmu, dev, 0, HW_UNIT_FW);
   if (!parse_initdata(fw, initdata_va)) {
      free(fw);
      return -EINVAL;
   }
   parse_stall(fw, getenv("TESSERA_HW_STALL"));
   pthread_mutex_init(&fw->lock, NULL);
   pthread_cond_init(&fw->cond, NULL);
   write_status(fw, true, false);
   if (pthread_create(&fw->thread, NULL, fw_main, fw) != 0) {
      hw_set_error(dev, "fw boot: cannot start the firmware thread");
      pthread_cond_destroy(&fw->cond);
      pthread_mutex_destroy(&fw->lock);
      free(fw);
      return -EAGAIN;
   }
   pthread_mutex_lock(&dev->lock);
   dev->fw = fw;
   pthread_mutex_unlock(&dev->lock);
   return 0;
}

bool
hw_fw_running(struct hw_device *dev)
{
   pthread_mutex_lock(&dev->lock);
   bool r = dev->fw != NULL;
   pthread_mutex_unlock(&dev->lock);
   return r;
}

void
hw_fw_shutdown(struct hw_device *dev)
{
   pthread_mutex_lock(&dev->lock);
   struct hw_fw *fw = dev->fw;
   dev->fw = NULL;
   pthread_mutex_unlock(&dev->lock);
   if (!fw)
      return;
   atomic_store(&fw->stopping, true);
   pthread_mutex_lock(&fw->lock);
   fw->stop = true;
   pthread_cond_signal(&fw->cond);
   pthread_mutex_unlock(&fw->lock);
   pthread_join(fw->thread, NULL);
   pthread_cond_destroy(&fw->cond);
   pthread_mutex_destroy(&fw->lock);
   free(fw);
}

void
hw_doorbell(struct hw_device *dev, uint32_t value)
{
   pthread_mutex_lock(&dev->lock);
   struct hw_fw *fw = dev->fw;
   if (fw) {
      bool ok = value == HW_DOORBELL_KICKFW || value == HW_DOORBELL_DEVCTRL ||
                (value < 4 * HW_FW_PRIORITIES && (value & 3) < HW_FW_PIPES);
      pthread_mutex_lock(&fw->lock);
      if (ok)
         fw->doorbells++;
      else
         fw->bad_doorbells++;
      /* Every doorbell rescans all rings, so a bad value costs a scan. */
      fw->kick = true;
      pthread_cond_signal(&fw->cond);
      pthread_mutex_unlock(&fw->lock);
   }
   pthread_mutex_unlock(&dev->lock);
}

/* ------------------------------------------------------------ executors */

void
hw_device_set_executor(struct hw_device *dev, enum agx_fw_pipe pipe,
                       hw_exec_fn fn, void *data)
{
   if ((unsigned)pipe >= HW_FW_PIPES)
      return;
   pthread_mutex_lock(&dev->lock);
   dev->exec[pipe] = (struct hw_executor){ fn, data };
   pthread_mutex_unlock(&dev->lock);
}

bool
hw_exec_post_event(const struct hw_exec_job *job, const void *msg)
{
   return job->fw ? fw_post_event(job->fw, msg) : false;
}

bool
hw_exec_should_stop(const struct hw_exec_job *job)
{
   if (job->fw && atomic_load(&job->fw->stopping))
      return true;
   return hw_now_ns() > job->deadline_ns;
}
