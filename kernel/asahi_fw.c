/* SPDX-License-Identifier: MIT */
/*
 * Firmware bring-up and the rings (docs/firmware.md sections 3-5): the
 * page tables' root, the kernel heap every firmware structure lives in,
 * host->firmware messages and the event ring.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "kernel/asahi_priv.h"

/* ------------------------------------------------------------ kernel heap */

/*
 * One physically contiguous region mapped once in the kernel half. A byte
 * per 256-byte granule (1 = first granule of a block, 2 = continuation)
 * lets kfree() find the block's length without a header, so the
 * firmware-visible layout stays exactly what we packed.
 */
void *
asahi_kva_host(struct asahi_dev *dev, uint64_t va)
{
   if (va < ASAHI_KHEAP_VA || va >= ASAHI_KHEAP_VA + ASAHI_KHEAP_SIZE)
      return NULL;
   return dev->kheap_host + (va - ASAHI_KHEAP_VA);
}

uint64_t
asahi_kalloc(struct asahi_dev *dev, uint64_t size)
{
   uint32_t n = (uint32_t)((size + ASAHI_KHEAP_GRAN - 1) / ASAHI_KHEAP_GRAN);
   if (!n || n > dev->kheap_grans)
      return 0;
   for (uint32_t pass = 0; pass < 2; pass++) {
      uint32_t start = pass ? 0 : dev->kheap_hint;
      uint32_t run = 0;
      for (uint32_t i = start; i < dev->kheap_grans; i++) {
         run = dev->kheap_bitmap[i] ? 0 : run + 1;
         if (run == n) {
            uint32_t first = i + 1 - n;
            dev->kheap_bitmap[first] = 1;
            memset(&dev->kheap_bitmap[first + 1], 2, n - 1);
            dev->kheap_hint = i + 1 < dev->kheap_grans ? i + 1 : 0;
            memset(dev->kheap_host + (uint64_t)first * ASAHI_KHEAP_GRAN, 0,
                   (uint64_t)n * ASAHI_KHEAP_GRAN);
            return ASAHI_KHEAP_VA + (uint64_t)first * ASAHI_KHEAP_GRAN;
         }
      }
   }
   return 0;
}

void
asahi_kfree(struct asahi_dev *dev, uint64_t va)
{
   if (!va)
      return;
   uint64_t g = (va - ASAHI_KHEAP_VA) / ASAHI_KHEAP_GRAN;
   if (va < ASAHI_KHEAP_VA || g >= dev->kheap_grans || dev->kheap_bitmap[g] != 1)
      return;
   dev->kheap_bitmap[g++] = 0;
   while (g < dev->kheap_grans && dev->kheap_bitmap[g] == 2)
      dev->kheap_bitmap[g++] = 0;
}

uint64_t
asahi_debug_kernel_pages(struct asahi_dev *dev)
{
   os_mutex_lock(&dev->lock);
   uint64_t used = 0;
   for (uint32_t i = 0; i < dev->kheap_grans; i++)
      used += dev->kheap_bitmap[i] != 0;
   os_mutex_unlock(&dev->lock);
   return (used * ASAHI_KHEAP_GRAN + ASAHI_PAGE_MASK) / ASAHI_PAGE;
}

/* ------------------------------------------------------------------ boot */

static uint64_t
make_ring(struct asahi_dev *dev, uint32_t entry_size)
{
   uint64_t ring = asahi_kalloc(dev, AGX_FW_RING_LENGTH);
   uint64_t base = asahi_kalloc(dev, (uint64_t)ASAHI_RING_ENTRIES * entry_size);
   if (!ring || !base)
      return 0;
   agx_pack(asahi_kva_host(dev, ring), FW_RING, r) {
      r.base = base;
      r.count = ASAHI_RING_ENTRIES;
      r.entry_size = entry_size;
   }
   return ring;
}

int
asahi_fw_init(struct asahi_dev *dev)
{
   struct hw_device *hw = dev->hw;
   dev->kheap_grans = (uint32_t)(ASAHI_KHEAP_SIZE / ASAHI_KHEAP_GRAN);
   dev->kheap_bitmap = os_zalloc(dev->kheap_grans);
   if (!dev->kheap_bitmap)
      return -ENOMEM;
   dev->ttbat = hw_phys_alloc(hw, 1);
   dev->kttb = hw_uat_table_alloc(hw);
   dev->kheap_pa = hw_phys_alloc(hw, ASAHI_KHEAP_SIZE / ASAHI_PAGE);
   if (!dev->ttbat || !dev->kttb || !dev->kheap_pa)
      return -ENOMEM;
   dev->kheap_host = hw_phys_to_host(hw, dev->kheap_pa, ASAHI_KHEAP_SIZE);
   /* Every slot shares the kernel tree, so the firmware sees the same
    * kernel VAs whichever context a job runs in. */
   if (hw_uat_set_ttbat(hw, dev->ttbat))
      return -EINVAL;
   for (unsigned s = 0; s < HW_UAT_NUM_CONTEXTS; s++)
      hw_uat_set_context(hw, s, 0, dev->kttb);
   if (hw_uat_map(hw, dev->kttb, ASAHI_KHEAP_VA, dev->kheap_pa, ASAHI_KHEAP_SIZE,
                  HW_UAT_READ | HW_UAT_WRITE))
      return -ENOMEM;

   dev->initdata = asahi_kalloc(dev, AGX_FW_INIT_DATA_LENGTH);
   dev->pipe_rings = asahi_kalloc(dev, HW_FW_PRIORITIES * HW_FW_PIPES * AGX_FW_RING_LENGTH);
   if (!dev->initdata || !dev->pipe_rings)
      return -ENOMEM;
   for (unsigned i = 0; i < HW_FW_PRIORITIES * HW_FW_PIPES; i++) {
      uint64_t base = asahi_kalloc(dev, (uint64_t)ASAHI_RING_ENTRIES * HW_FW_PIPE_MSG_SIZE);
      if (!base)
         return -ENOMEM;
      agx_pack(asahi_kva_host(dev, dev->pipe_rings + i * AGX_FW_RING_LENGTH), FW_RING, r) {
         r.base = base;
         r.count = ASAHI_RING_ENTRIES;
         r.entry_size = HW_FW_PIPE_MSG_SIZE;
      }
   }
   dev->devctrl_ring = make_ring(dev, HW_FW_DEVCTRL_MSG_SIZE);
   dev->event_ring = make_ring(dev, HW_FW_EVENT_MSG_SIZE);
   dev->event_stamps = asahi_kalloc(dev, 4 * HW_FW_EVENT_SLOTS);
   dev->status = asahi_kalloc(dev, AGX_FW_STATUS_LENGTH);
   if (!dev->devctrl_ring || !dev->event_ring || !dev->event_stamps || !dev->status)
      return -ENOMEM;
   agx_pack(asahi_kva_host(dev, dev->initdata), FW_INIT_DATA, d) {
      d.pipe_rings = dev->pipe_rings;
      d.device_control_ring = dev->devctrl_ring;
      d.event_ring = dev->event_ring;
      d.event_stamps = dev->event_stamps;
      d.status = dev->status;
   }
   int r = hw_fw_boot(hw, dev->initdata);
   if (r)
      return r;
   dev->fw_up = true;
   return 0;
}

void
asahi_fw_fini(struct asahi_dev *dev)
{
   struct hw_device *hw = dev->hw;
   hw_fw_shutdown(hw);
   dev->fw_up = false;
   if (dev->ttbat)
      hw_uat_set_ttbat(hw, 0);
   if (dev->kttb)
      hw_uat_destroy(hw, dev->kttb);
   if (dev->kheap_pa)
      hw_phys_free(hw, dev->kheap_pa, ASAHI_KHEAP_SIZE / ASAHI_PAGE);
   if (dev->ttbat)
      hw_phys_free(hw, dev->ttbat, 1);
   dev->kttb = dev->kheap_pa = dev->ttbat = 0;
   os_free(dev->kheap_bitmap);
   dev->kheap_bitmap = NULL;
}

/* ----------------------------------------------------------------- rings */

/* Producer side of a host->firmware ring. The firmware drains rings on
 * every doorbell, so a full ring only needs a short wait. */
static int
ring_push(struct asahi_dev *dev, uint64_t ring_va, const void *msg, size_t size,
          uint32_t doorbell)
{
   uint8_t *ctl = asahi_kva_host(dev, ring_va);
   struct agx_fw_ring r;
   agx_fw_ring_unpack(ctl, &r);
   uint32_t wr = hw_load_acquire32(ctl + 64);
   for (unsigned tries = 0; (wr + 1) % r.count == hw_load_acquire32(ctl); tries++) {
      if (tries > 20000 || !hw_fw_running(dev->hw))
         return -EIO;
      hw_doorbell(dev->hw, doorbell);
      /* The firmware may itself be waiting for event-ring space, and the
       * event thread for our lock: drain events here. */
      asahi_fw_drain_events(dev);
      os_sleep_us(50);
   }
   memcpy(asahi_kva_host(dev, r.base + (uint64_t)wr * size), msg, size);
   hw_store_release32(ctl + 64, (wr + 1) % r.count);
   hw_doorbell(dev->hw, doorbell);
   return 0;
}

int
asahi_fw_devctrl(struct asahi_dev *dev, enum agx_fw_device_control type,
                 unsigned vm_slot, unsigned buffer_slot, uint32_t counter,
                 uint64_t address)
{
   if (!dev->fw_up || !hw_fw_running(dev->hw)) {
      /* Before boot (or after shutdown) nothing caches translations
       * except the units: a direct invalidate plays the broadcast TLBI. */
      hw_device_tlb_invalidate(dev->hw);
      return 0;
   }
   uint8_t msg[HW_FW_DEVCTRL_MSG_SIZE];
   agx_pack(msg, FW_DEVICE_CONTROL_MESSAGE, m) {
      m.type = type;
      m.vm_slot = vm_slot;
      m.buffer_slot = buffer_slot;
      m.counter = counter;
      m.address = address;
   }
   int r = ring_push(dev, dev->devctrl_ring, msg, sizeof(msg), HW_DOORBELL_DEVCTRL);
   if (r)
      return r;
   /* Taken effect once the firmware's read index has moved past it. The
    * firmware only handles device control between jobs, so bound the wait
    * by the job watchdog rather than spinning forever. */
   uint8_t *ctl = asahi_kva_host(dev, dev->devctrl_ring);
   uint64_t deadline = os_now_ns() + 30ull * 1000000000ull;
   for (;;) {
      /* Whoever clears the interrupt handles what it announced: the
       * events the firmware posted while we slept (the job in flight's
       * completion comes just before our message is taken) are drained
       * here, after the last wait too. Leaving them to the event thread
       * lost them when that thread was the waiter (a Grow TVB ack from
       * handle_grows()) or had not yet polled: the interrupt was gone,
       * so the job's fence waited for the event thread's 100 ms guard
       * (Mesa's asahi replaying glxgears: 0.29 s instead of 0.15 s, one
       * run in two; test_device_control_keeps_events). */
      asahi_fw_drain_events(dev);
      if (hw_load_acquire32(ctl) == hw_load_acquire32(ctl + 64))
         return 0;
      if (os_now_ns() > deadline || !hw_fw_running(dev->hw))
         return -ETIMEDOUT;
      /* Sleep until the interrupt the firmware raises once it consumed
       * device control (or posted events): this can take a whole job,
       * and polling every 20 us cost a wakeup each. We hold the device
       * lock, which the event thread takes before it reads the eventfd,
       * so the wakeup is ours; the timeout is only a guard. */
      asahi_fw_wait_irq(dev, 10);
   }
}

int
asahi_fw_tlbi(struct asahi_dev *dev, unsigned vm_slot)
{
   return asahi_fw_devctrl(dev, AGX_FW_DEVICE_CONTROL_TLB_INVALIDATE, vm_slot,
                           0, 0, 0);
}

int
asahi_fw_run_queue(struct asahi_dev *dev, struct asahi_queue *q,
                   struct asahi_wq *wq)
{
   uint8_t msg[HW_FW_PIPE_MSG_SIZE];
   agx_pack(msg, FW_RUN_QUEUE_MESSAGE, m) {
      m.pipe = (enum agx_fw_pipe)wq->pipe;
      m.work_queue = wq->va;
      m.write_index = hw_load_acquire32(wq->host + 128);
      m.event_slot = q->event_slot & 0x7f;
      m.new_queue = !wq->announced;
   }
   wq->announced = true;
   unsigned ring = q->prio * HW_FW_PIPES + wq->pipe;
   return ring_push(dev, dev->pipe_rings + ring * AGX_FW_RING_LENGTH, msg,
                    sizeof(msg), HW_DOORBELL_PIPE(wq->pipe, q->prio));
}

/* ---------------------------------------------------------------- events */

/* Handles every event posted so far; true if any was a Flag. */
static bool
process_events(struct asahi_dev *dev)
{
   uint8_t *ctl = asahi_kva_host(dev, dev->event_ring);
   struct agx_fw_ring r;
   agx_fw_ring_unpack(ctl, &r);
   bool flags = false;
   uint32_t wr = hw_load_acquire32(ctl + 64);
   while (dev->event_rd != wr && wr < r.count) {
      uint8_t msg[HW_FW_EVENT_MSG_SIZE];
      memcpy(msg, asahi_kva_host(dev, r.base + (uint64_t)dev->event_rd * HW_FW_EVENT_MSG_SIZE),
             sizeof(msg));
      dev->event_rd = (dev->event_rd + 1) % r.count;
      hw_store_release32(ctl, dev->event_rd);
      struct agx_fw_event_header h;
      agx_fw_event_header_unpack(msg, &h);
      switch (h.type) {
      case AGX_FW_EVENT_FLAG:
         flags = true;
         break;
      case AGX_FW_EVENT_FAULT:
      case AGX_FW_EVENT_TIMEOUT:
      case AGX_FW_EVENT_JOB_ERROR:
         asahi_job_error(dev, msg);
         break;
      case AGX_FW_EVENT_GROW_TVB: {
         struct agx_fw_event_grow_tvb g;
         agx_fw_event_grow_tvb_unpack(msg, &g);
         /* One tiler job posts at most one, so a full list means a
          * duplicate is already pending for some queue: dropping is fine. */
         if (dev->grow_count < ASAHI_GROW_PENDING) {
            unsigned i = (dev->grow_head + dev->grow_count++) % ASAHI_GROW_PENDING;
            dev->grow_pending[i] = (uint16_t)((g.vm_slot & 0xff) << 8 | (g.buffer_slot & 0xff));
         }
         break;
      }
      default:
         break;
      }
      if (dev->event_rd == wr)
         wr = hw_load_acquire32(ctl + 64);
   }
   return flags;
}

/* Grow TVB requests, outside the event loop. Each is taken off the list
 * before it is handled: handling waits for the firmware and drains events
 * (maybe handling later requests), so nothing is handled twice. */
static void
handle_grows(struct asahi_dev *dev)
{
   while (dev->grow_count) {
      uint16_t v = dev->grow_pending[dev->grow_head];
      dev->grow_head = (dev->grow_head + 1) % ASAHI_GROW_PENDING;
      dev->grow_count--;
      for (struct asahi_queue *q = dev->queues; q; q = q->next) {
         if (q->vm->slot == (unsigned)(v >> 8) && q->tvb.buffer_slot == (unsigned)(v & 0xff)) {
            asahi_tvb_grow(dev, q);
            break;
         }
      }
   }
}

void
asahi_fw_wait_irq(struct asahi_dev *dev, int timeout_ms)
{
   struct pollfd p = { .fd = hw_device_irq_fd(dev->hw), .events = POLLIN };
   if (poll(&p, 1, timeout_ms) > 0 && (p.revents & POLLIN)) {
      uint64_t v;
      if (read(p.fd, &v, sizeof(v)) < 0) {
         /* non-blocking eventfd: nothing pending */
      }
   }
}

void
asahi_fw_drain_events(struct asahi_dev *dev)
{
   if (!dev->fw_up)
      return;
   bool pending = process_events(dev);
   while (pending) {
      asahi_job_snapshot(dev);
      pending = process_events(dev);
      asahi_job_complete_flags(dev);
   }
   handle_grows(dev);
}
