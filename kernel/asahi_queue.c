/* SPDX-License-Identifier: MIT */
/*
 * Queues: three firmware work queues (vertex, fragment, compute) on one
 * event slot and priority, each with its own stamp, plus the queue's TVB
 * heap and tile map in its VM's kernel range.
 */
#include <errno.h>
#include <string.h>

#include "kernel/asahi_priv.h"

static int
tvb_add_chunk(struct asahi_dev *dev, struct asahi_queue *q, uint64_t va, uint64_t size)
{
   struct asahi_tvb *t = &q->tvb;
   if (t->nchunks == t->cap) {
      unsigned ncap = t->cap ? t->cap * 2 : 8;
      struct asahi_kchunk *c = os_realloc_array(t->chunks, ncap, sizeof(*c));
      if (!c)
         return -ENOMEM;
      t->chunks = c;
      uint64_t *v = os_realloc_array(t->chunk_va, ncap, sizeof(*v));
      if (!v)
         return -ENOMEM;
      t->chunk_va = v;
      t->cap = ncap;
   }
   int r = asahi_vm_kmap(dev, q->vm, va, size, &t->chunks[t->nchunks]);
   if (r)
      return r;
   t->chunk_va[t->nchunks++] = va;
   return 0;
}

/*
 * Kernel side of a Grow TVB event: the tiler ran out of heap. Back the
 * next piece of the reserved VA (doubling, up to the cap) and acknowledge
 * so the firmware resumes the tiler. Returns the new size or -errno; at
 * the cap the firmware is still acknowledged and must fall back to a
 * partial render.
 */
int64_t
asahi_tvb_grow(struct asahi_dev *dev, struct asahi_queue *q)
{
   struct asahi_tvb *t = &q->tvb;
   int64_t ret;
   if (t->size >= t->reserved) {
      ret = -ENOSPC;
   } else {
      uint64_t add = t->size;
      if (add > t->reserved - t->size)
         add = t->reserved - t->size;
      ret = tvb_add_chunk(dev, q, t->va + t->size, add);
      if (!ret) {
         t->size += add;
         ret = (int64_t)t->size;
         dev->stats.tvb_grows++;
      }
   }
   t->counter++;
   asahi_fw_devctrl(dev, AGX_FW_DEVICE_CONTROL_GROW_TVB_ACK, q->vm->slot,
                    t->buffer_slot, t->counter, t->va);
   return ret;
}

int64_t
asahi_debug_grow_tvb(struct asahi_dev *dev, unsigned vm_slot, unsigned buffer_slot)
{
   int64_t ret = -ENOENT;
   os_mutex_lock(&dev->lock);
   for (struct asahi_queue *q = dev->queues; q; q = q->next) {
      if (q->vm->slot == vm_slot && q->tvb.buffer_slot == buffer_slot) {
         ret = asahi_tvb_grow(dev, q);
         break;
      }
   }
   os_mutex_unlock(&dev->lock);
   return ret;
}

int
asahi_tilemap_ensure(struct asahi_dev *dev, struct asahi_queue *q, uint64_t bytes)
{
   struct asahi_tvb *t = &q->tvb;
   bytes = (bytes + ASAHI_PAGE_MASK) & ~ASAHI_PAGE_MASK;
   if (bytes > ASAHI_TILEMAP_MAX)
      return -EINVAL;
   if (bytes <= t->tilemap_size)
      return 0;
   int r = tvb_add_chunk(dev, q, t->tilemap_va + t->tilemap_size, bytes - t->tilemap_size);
   if (!r)
      t->tilemap_size = bytes;
   return r;
}

static int
wq_init(struct asahi_dev *dev, struct asahi_wq *wq, unsigned pipe)
{
   wq->pipe = pipe;
   wq->va = asahi_kalloc(dev, AGX_FW_WORK_QUEUE_LENGTH);
   wq->ring_va = asahi_kalloc(dev, ASAHI_WQ_ENTRIES * 8);
   wq->stamp_va = asahi_kalloc(dev, 4);
   if (!wq->va || !wq->ring_va || !wq->stamp_va)
      return -ENOMEM;
   wq->host = asahi_kva_host(dev, wq->va);
   wq->ring = asahi_kva_host(dev, wq->ring_va);
   wq->stamp = asahi_kva_host(dev, wq->stamp_va);
   agx_pack(wq->host, FW_WORK_QUEUE, w) {
      w.ring_size = ASAHI_WQ_ENTRIES;
      w.ring = wq->ring_va;
   }
   return 0;
}

static void
queue_free_resources(struct asahi_dev *dev, struct asahi_queue *q)
{
   for (unsigned p = 0; p < HW_FW_PIPES; p++) {
      struct asahi_wq *wq = &q->wq[p];
      /* The firmware must forget a work queue before its memory goes. */
      if (wq->announced)
         asahi_fw_devctrl(dev, AGX_FW_DEVICE_CONTROL_DESTROY_QUEUE, q->vm->slot,
                          0, 0, wq->va);
      asahi_kfree(dev, wq->va);
      asahi_kfree(dev, wq->ring_va);
      asahi_kfree(dev, wq->stamp_va);
   }
   struct asahi_tvb *t = &q->tvb;
   for (unsigned i = 0; i < t->nchunks; i++) {
      hw_uat_unmap(dev->hw, q->vm->ttb, t->chunk_va[i], t->chunks[i].npages * ASAHI_PAGE);
      hw_phys_free(dev->hw, t->chunks[i].pa, t->chunks[i].npages);
   }
   if (t->nchunks)
      asahi_fw_tlbi(dev, q->vm->slot);
   if (t->va)
      asahi_vm_kunreserve(q->vm, t->va, t->reserved + ASAHI_TILEMAP_MAX);
   os_free(t->chunks);
   os_free(t->chunk_va);
   dev->buffer_slots[t->buffer_slot] = 0;
   dev->event_slot_use[q->event_slot]--;
   asahi_vm_put(dev, q->vm);
   os_free(q);
}

int
asahi_ioctl_queue_create(struct asahi_file *f, void *data)
{
   struct drm_asahi_queue_create *a = data;
   struct asahi_dev *dev = f->dev;
   if (a->flags || a->priority > DRM_ASAHI_PRIORITY_REALTIME)
      return -EINVAL;
   if (a->usc_exec_base >= ASAHI_VM_END)
      return -EINVAL;
   os_mutex_lock(&dev->lock);
   int ret = 0;
   struct asahi_vm *vm = asahi_idr_find(&f->vms, a->vm_id);
   if (!vm) {
      os_mutex_unlock(&dev->lock);
      return -ENOENT;
   }
   unsigned bslot = 0;
   while (bslot < 256 && dev->buffer_slots[bslot])
      bslot++;
   if (bslot == 256) {
      os_mutex_unlock(&dev->lock);
      return -ENOSPC;
   }
   struct asahi_queue *q = os_zalloc(sizeof(*q));
   if (!q) {
      os_mutex_unlock(&dev->lock);
      return -ENOMEM;
   }
   q->dev = dev;
   q->file = f;
   q->vm = vm;
   vm->refcnt++;
   /* uAPI LOW..REALTIME onto firmware priorities 3..0 (0 runs first). */
   q->prio = DRM_ASAHI_PRIORITY_REALTIME - a->priority;
   q->usc_base = a->usc_exec_base;
   /* Spread queues over the event slots; sharing one is fine because
    * completion is checked against each work queue's own stamp. */
   unsigned best = 0;
   for (unsigned s = 1; s < HW_FW_EVENT_SLOTS; s++)
      if (dev->event_slot_use[s] < dev->event_slot_use[best])
         best = s;
   q->event_slot = best;
   dev->event_slot_use[best]++;
   dev->buffer_slots[bslot] = 1;
   q->tvb.buffer_slot = bslot;

   for (unsigned p = 0; p < HW_FW_PIPES && !ret; p++)
      ret = wq_init(dev, &q->wq[p], p);
   if (!ret) {
      struct asahi_tvb *t = &q->tvb;
      t->reserved = dev->cfg.tvb_max_bytes;
      t->va = asahi_vm_kreserve(vm, t->reserved + ASAHI_TILEMAP_MAX);
      if (!t->va) {
         ret = -ENOSPC;
      } else {
         t->tilemap_va = t->va + t->reserved;
         ret = tvb_add_chunk(dev, q, t->va, dev->cfg.tvb_initial_bytes);
         if (!ret)
            t->size = dev->cfg.tvb_initial_bytes;
      }
   }
   uint32_t id = 0;
   if (!ret)
      ret = asahi_idr_alloc(&f->queues, q, &id);
   if (ret) {
      queue_free_resources(dev, q);
      os_mutex_unlock(&dev->lock);
      return ret;
   }
   q->id = id;
   q->next = dev->queues;
   if (dev->queues)
      dev->queues->prev = q;
   dev->queues = q;
   a->queue_id = id;
   os_mutex_unlock(&dev->lock);
   return 0;
}

/* Frees a destroyed queue once nothing of it is left to run. */
void
asahi_queue_reap(struct asahi_dev *dev, struct asahi_queue *q)
{
   if (q->prev)
      q->prev->next = q->next;
   else
      dev->queues = q->next;
   if (q->next)
      q->next->prev = q->prev;
   queue_free_resources(dev, q);
}

/* The queue's id goes away now; its submitted work still completes (and
 * signals), as with drm_sched entities. */
void
asahi_queue_release(struct asahi_dev *dev, struct asahi_queue *q)
{
   q->destroyed = true;
   q->file = NULL;
   if (!q->wait_head && !q->inflight)
      asahi_queue_reap(dev, q);
}

int
asahi_ioctl_queue_destroy(struct asahi_file *f, void *data)
{
   struct drm_asahi_queue_destroy *a = data;
   if (a->pad)
      return -EINVAL;
   os_mutex_lock(&f->dev->lock);
   struct asahi_queue *q = asahi_idr_remove(&f->queues, a->queue_id);
   if (q)
      asahi_queue_release(f->dev, q);
   os_mutex_unlock(&f->dev->lock);
   return q ? 0 : -ENOENT;
}
