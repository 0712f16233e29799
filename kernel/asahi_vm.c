/* SPDX-License-Identifier: MIT */
/*
 * GPU VMs: one UAT context slot and one user-half page-table tree each,
 * the list of bound ranges (which keeps the objects alive), and the
 * userspace-chosen kernel range where the driver maps per-VM buffers the
 * GPU's units need (the TVB heap and tile map).
 */
#include <errno.h>
#include <string.h>

#include "kernel/asahi_priv.h"

static int
vm_slot_alloc(struct asahi_dev *dev, struct asahi_vm *vm)
{
   /* Slot 0 is the firmware's. */
   for (unsigned s = 1; s < HW_UAT_NUM_CONTEXTS; s++) {
      if (!dev->slots[s]) {
         dev->slots[s] = vm;
         vm->slot = s;
         return 0;
      }
   }
   return -ENOSPC;
}

static bool
vm_unmap_range(struct asahi_dev *dev, struct asahi_vm *vm, uint64_t va,
               uint64_t size);

void
asahi_vm_put(struct asahi_dev *dev, struct asahi_vm *vm)
{
   if (--vm->refcnt)
      return;
   vm_unmap_range(dev, vm, 0, ASAHI_VM_END);
   hw_uat_set_context(dev->hw, vm->slot, 0, dev->kttb);
   /* Nothing of this VM can run any more (queues hold references), so
    * dropping the context is safe; it also flushes its translations. */
   asahi_fw_devctrl(dev, AGX_FW_DEVICE_CONTROL_DESTROY_CONTEXT, vm->slot, 0, 0, 0);
   hw_uat_destroy(dev->hw, vm->ttb);
   dev->slots[vm->slot] = NULL;
   os_free(vm->kfree);
   os_free(vm->maps);
   os_free(vm);
}

int
asahi_ioctl_vm_create(struct asahi_file *f, void *data)
{
   struct drm_asahi_vm_create *a = data;
   struct asahi_dev *dev = f->dev;
   if (a->pad)
      return -EINVAL;
   if (!asahi_aligned(a->kernel_start) || !asahi_aligned(a->kernel_end) ||
       a->kernel_start >= a->kernel_end || a->kernel_start < ASAHI_VM_START ||
       a->kernel_end > ASAHI_VM_END ||
       a->kernel_end - a->kernel_start < ASAHI_VM_KERNEL_MIN_SIZE)
      return -EINVAL;
   struct asahi_vm *vm = os_zalloc(sizeof(*vm));
   if (!vm)
      return -ENOMEM;
   vm->refcnt = 1;
   vm->kstart = vm->knext = a->kernel_start;
   vm->kend = a->kernel_end;
   os_mutex_lock(&dev->lock);
   int ret = vm_slot_alloc(dev, vm);
   if (ret)
      goto fail;
   vm->serial = ++dev->vm_serial;
   vm->ttb = hw_uat_table_alloc(dev->hw);
   if (!vm->ttb) {
      ret = -ENOMEM;
      dev->slots[vm->slot] = NULL;
      goto fail;
   }
   uint32_t id;
   ret = asahi_idr_alloc(&f->vms, vm, &id);
   if (ret) {
      dev->slots[vm->slot] = NULL;
      hw_uat_destroy(dev->hw, vm->ttb);
      goto fail;
   }
   hw_uat_set_context(dev->hw, vm->slot, vm->ttb, dev->kttb);
   a->vm_id = id;
   os_mutex_unlock(&dev->lock);
   return 0;
fail:
   os_mutex_unlock(&dev->lock);
   os_free(vm);
   return ret;
}

int
asahi_ioctl_vm_destroy(struct asahi_file *f, void *data)
{
   struct drm_asahi_vm_destroy *a = data;
   if (a->pad)
      return -EINVAL;
   os_mutex_lock(&f->dev->lock);
   struct asahi_vm *vm = asahi_idr_remove(&f->vms, a->vm_id);
   if (vm)
      asahi_vm_put(f->dev, vm);
   os_mutex_unlock(&f->dev->lock);
   return vm ? 0 : -ENOENT;
}

/* ---------------------------------------------------------- kernel range */

uint64_t
asahi_vm_kreserve(struct asahi_vm *vm, uint64_t size)
{
   for (unsigned i = 0; i < vm->nkfree; i++) {
      if (vm->kfree[i].npages == size) {
         uint64_t va = vm->kfree[i].pa;
         vm->kfree[i] = vm->kfree[--vm->nkfree];
         return va;
      }
   }
   if (size > vm->kend - vm->knext)
      return 0;
   uint64_t va = vm->knext;
   vm->knext += size;
   return va;
}

void
asahi_vm_kunreserve(struct asahi_vm *vm, uint64_t va, uint64_t size)
{
   if (vm->nkfree == vm->kfcap) {
      unsigned ncap = vm->kfcap ? vm->kfcap * 2 : 8;
      struct asahi_kchunk *n = os_realloc_array(vm->kfree, ncap, sizeof(*n));
      if (!n)
         return;   /* the VA is merely lost until the VM dies */
      vm->kfree = n;
      vm->kfcap = ncap;
   }
   vm->kfree[vm->nkfree++] = (struct asahi_kchunk){ va, size };
}

/* Backs [va, va + size) of the kernel range with fresh pages. New
 * mappings need no TLB invalidation: only valid translations are cached. */
int
asahi_vm_kmap(struct asahi_dev *dev, struct asahi_vm *vm, uint64_t va,
              uint64_t size, struct asahi_kchunk *out)
{
   uint64_t pa = hw_phys_alloc(dev->hw, size / ASAHI_PAGE);
   if (!pa)
      return -ENOMEM;
   int r = hw_uat_map(dev->hw, vm->ttb, va, pa, size, HW_UAT_READ | HW_UAT_WRITE);
   if (r) {
      hw_uat_unmap(dev->hw, vm->ttb, va, size);
      hw_phys_free(dev->hw, pa, size / ASAHI_PAGE);
      return r;
   }
   *out = (struct asahi_kchunk){ pa, size / ASAHI_PAGE };
   return 0;
}

/* -------------------------------------------------------------- mappings */

static int
maps_reserve(struct asahi_vm *vm, unsigned extra)
{
   if (vm->nmaps + extra <= vm->cap)
      return 0;
   unsigned ncap = vm->cap ? vm->cap : 16;
   while (ncap < vm->nmaps + extra)
      ncap *= 2;
   struct asahi_mapping *n = os_realloc_array(vm->maps, ncap, sizeof(*n));
   if (!n)
      return -ENOMEM;
   vm->maps = n;
   vm->cap = ncap;
   return 0;
}

/* Removes [va, va+size) from the mapping list and the page tables,
 * splitting partially covered mappings. Needs at most one free slot in
 * maps (a mapping split in two), which callers reserve. */
static bool
vm_unmap_range(struct asahi_dev *dev, struct asahi_vm *vm, uint64_t va,
               uint64_t size)
{
   uint64_t end = va + size;
   bool any = false;
   for (unsigned i = 0; i < vm->nmaps;) {
      struct asahi_mapping *m = &vm->maps[i];
      uint64_t mend = m->va + m->size;
      if (mend <= va || m->va >= end) {
         i++;
         continue;
      }
      any = true;
      uint64_t cs = m->va > va ? m->va : va;
      uint64_t ce = mend < end ? mend : end;
      hw_uat_unmap(dev->hw, vm->ttb, cs, ce - cs);
      if (cs > m->va && ce < mend) {
         /* split: the head stays at i, the tail goes after it */
         struct asahi_mapping tail = *m;
         tail.va = ce;
         tail.size = mend - ce;
         if (!tail.single)
            tail.offset += ce - m->va;
         m->size = cs - m->va;
         tail.bo->refcnt++;
         memmove(&vm->maps[i + 2], &vm->maps[i + 1],
                 (vm->nmaps - i - 1) * sizeof(*m));
         vm->maps[i + 1] = tail;
         vm->nmaps++;
         i += 2;
      } else if (cs > m->va) {
         m->size = cs - m->va;
         i++;
      } else if (ce < mend) {
         if (!m->single)
            m->offset += ce - m->va;
         m->size = mend - ce;
         m->va = ce;
         i++;
      } else {
         asahi_bo_put(dev, m->bo);
         memmove(m, m + 1, (vm->nmaps - i - 1) * sizeof(*m));
         vm->nmaps--;
      }
   }
   return any;
}

static int
vm_map(struct asahi_dev *dev, struct asahi_vm *vm, const struct drm_asahi_gem_bind_op *op,
       struct asahi_bo *bo)
{
   unsigned prot = ((op->flags & DRM_ASAHI_BIND_READ) ? HW_UAT_READ : 0) |
                   ((op->flags & DRM_ASAHI_BIND_WRITE) ? HW_UAT_WRITE : 0);
   bool single = op->flags & DRM_ASAHI_BIND_SINGLE_PAGE;
   int r;
   if (single) {
      r = 0;
      for (uint64_t o = 0; o < op->range && !r; o += ASAHI_PAGE)
         r = hw_uat_map(dev->hw, vm->ttb, op->addr + o, bo->pa + op->offset,
                        ASAHI_PAGE, prot);
   } else {
      r = hw_uat_map(dev->hw, vm->ttb, op->addr, bo->pa + op->offset, op->range, prot);
   }
   if (r)
      return r;
   /* keep the list sorted by VA */
   unsigned i = 0;
   while (i < vm->nmaps && vm->maps[i].va < op->addr)
      i++;
   memmove(&vm->maps[i + 1], &vm->maps[i], (vm->nmaps - i) * sizeof(vm->maps[0]));
   vm->maps[i] = (struct asahi_mapping){
      .va = op->addr, .size = op->range, .bo = bo, .offset = op->offset,
      .single = single, .prot = prot,
   };
   vm->nmaps++;
   bo->refcnt++;
   return 0;
}

/* Worst-case page-table pages a range can need: an L2 table per 32 MiB
 * L1 span and an L3 table per 32 MiB of range, plus the ends. */
static uint64_t
table_pages_for(uint64_t range)
{
   return 2 * (range / (32ull << 20)) + 4;
}

int
asahi_ioctl_vm_bind(struct asahi_file *f, void *data)
{
   struct drm_asahi_vm_bind *a = data;
   struct asahi_dev *dev = f->dev;
   if (a->pad || !a->num_binds || a->num_binds > ASAHI_MAX_BINDS)
      return -EINVAL;
   if (a->stride < sizeof(struct drm_asahi_gem_bind_op) || a->stride > 4096)
      return -EINVAL;
   struct drm_asahi_gem_bind_op *ops = os_zalloc_array(a->num_binds, sizeof(*ops));
   struct asahi_bo **bos = os_zalloc_array(a->num_binds, sizeof(*bos));
   if (!ops || !bos) {
      os_free(ops);
      os_free(bos);
      return -ENOMEM;
   }
   int ret = 0;
   for (uint32_t i = 0; i < a->num_binds && !ret; i++) {
      /* A longer (newer) op struct is accepted as long as what we do not
       * understand is zero. */
      ret = os_copy_from_user(&ops[i], a->userptr + (uint64_t)i * a->stride, sizeof(ops[i]));
      for (uint32_t b = sizeof(ops[i]); b < a->stride && !ret; b += 8) {
         uint64_t extra = 0;
         uint32_t n = a->stride - b < 8 ? a->stride - b : 8;
         ret = os_copy_from_user(&extra, a->userptr + (uint64_t)i * a->stride + b, n);
         if (!ret && extra)
            ret = -EINVAL;
      }
   }
   if (ret)
      goto out_free;

   os_mutex_lock(&dev->lock);
   struct asahi_vm *vm = asahi_idr_find(&f->vms, a->vm_id);
   if (!vm) {
      ret = -ENOENT;
      goto out;
   }
   /* Validate everything first: the call is all or nothing. */
   uint64_t tables = 0;
   for (uint32_t i = 0; i < a->num_binds; i++) {
      const struct drm_asahi_gem_bind_op *op = &ops[i];
      const uint32_t known = DRM_ASAHI_BIND_UNBIND | DRM_ASAHI_BIND_READ |
                             DRM_ASAHI_BIND_WRITE | DRM_ASAHI_BIND_SINGLE_PAGE;
      if (op->flags & ~known) {
         ret = -EINVAL;
         goto out;
      }
      if (!op->range || !asahi_aligned(op->addr) || !asahi_aligned(op->range) ||
          !asahi_aligned(op->offset) || op->addr < ASAHI_VM_START ||
          op->addr > ASAHI_VM_END || op->range > ASAHI_VM_END - op->addr) {
         ret = -EINVAL;
         goto out;
      }
      /* The kernel range is the driver's. */
      if (op->addr < vm->kend && op->addr + op->range > vm->kstart) {
         ret = -EINVAL;
         goto out;
      }
      if (op->flags & DRM_ASAHI_BIND_UNBIND) {
         if (op->flags != DRM_ASAHI_BIND_UNBIND || op->handle || op->offset) {
            ret = -EINVAL;
            goto out;
         }
         continue;
      }
      if (!(op->flags & (DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE))) {
         ret = -EINVAL;
         goto out;
      }
      struct asahi_bo *bo = asahi_bo_lookup(f, op->handle);
      if (!bo) {
         ret = -ENOENT;
         goto out;
      }
      if (bo->vm_serial && bo->vm_serial != vm->serial) {
         ret = -EINVAL;
         goto out;
      }
      uint64_t need = (op->flags & DRM_ASAHI_BIND_SINGLE_PAGE) ? ASAHI_PAGE : op->range;
      if (op->offset > bo->size || need > bo->size - op->offset) {
         ret = -EINVAL;
         goto out;
      }
      bos[i] = bo;
      tables += table_pages_for(op->range);
   }
   /* Reserve what applying can need so it cannot fail half way: list
    * slots for the new mappings and splits, and page-table pages. */
   if (maps_reserve(vm, 2 * a->num_binds) || hw_phys_pages_free(dev->hw) < tables) {
      ret = -ENOMEM;
      goto out;
   }
   bool unmapped = false;
   for (uint32_t i = 0; i < a->num_binds; i++) {
      const struct drm_asahi_gem_bind_op *op = &ops[i];
      /* Binding over existing mappings replaces them, as drm_gpuvm does.
       * Only what was mapped can sit in a TLB (the units cache successful
       * translations only, as ARM-style page tables allow): a bind into
       * free address space needs no invalidate, and so does not wait for
       * the job in flight (device control runs between jobs), which
       * stalled every buffer allocation of a replay behind the GPU. */
      unmapped |= vm_unmap_range(dev, vm, op->addr, op->range) ||
                  (op->flags & DRM_ASAHI_BIND_UNBIND);
      if (maps_reserve(vm, 2)) {
         ret = -ENOMEM;
         break;
      }
      if (!(op->flags & DRM_ASAHI_BIND_UNBIND)) {
         ret = vm_map(dev, vm, op, bos[i]);
         if (ret)
            break;
      }
   }
   if (unmapped)
      asahi_fw_tlbi(dev, vm->slot);
out:
   os_mutex_unlock(&dev->lock);
out_free:
   os_free(ops);
   os_free(bos);
   return ret;
}
