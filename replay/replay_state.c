/* SPDX-License-Identifier: MIT */
/*
 * The replay's state: the trace's ids (GEM objects, VMs, queues, timestamp
 * objects) translated to the backend's, and the replay's own view of each
 * VM's mappings, through which trace VAs are read and written. The lifetime
 * records (create, bind, destroy) and MEMORY records land here. Ids are
 * translated through small tables: traces hold tens of objects, not
 * millions, so linear searches are fine.
 */
#include <errno.h>
#include <string.h>

#include "replay/replay_engine.h"

struct replay_idmap *
replay_find_id(struct replay_idmap *v, unsigned n, uint32_t file, uint32_t id)
{
   for (unsigned i = n; i-- > 0;)
      if (v[i].live && v[i].file == file && v[i].id == id)
         return &v[i];
   return NULL;
}

int
replay_find_obj(struct replay_engine *e, uint32_t file, uint32_t handle)
{
   for (unsigned i = e->objs.n; i-- > 0;)
      if (e->objs.v[i].live && e->objs.v[i].file == file && e->objs.v[i].handle == handle)
         return (int)i;
   return -1;
}

static struct uapi_vm_map *
vm_map_of(struct replay_engine *e, uint32_t file, uint32_t vm)
{
   for (unsigned i = 0; i < e->maps.n; i++)
      if (e->maps.v[i].file == file && e->maps.v[i].vm == vm)
         return &e->maps.v[i].map;
   return NULL;
}

uint8_t *
replay_va_to_host(struct replay_engine *e, uint32_t file, uint32_t vm, uint64_t va, uint64_t *avail)
{
   const struct uapi_vm_map *map = vm_map_of(e, file, vm);
   const struct uapi_mapping *m = map ? uapi_vm_map_find(map, va) : NULL;
   if (!m)
      return NULL;
   struct replay_obj *o = &e->objs.v[m->handle];
   if (!o->live || !o->map)
      return NULL;
   uint64_t left;
   uint64_t off = uapi_mapping_offset(m, va, &left);
   if (off >= o->size)
      return NULL;
   *avail = left < o->size - off ? left : o->size - off;
   return o->map + off;
}

bool
replay_read_vm(void *ctx, uint64_t va, void *dst, size_t size)
{
   struct replay_vm_ctx *c = ctx;
   uint8_t *d = dst;
   while (size) {
      uint64_t avail;
      uint8_t *p = replay_va_to_host(c->e, c->file, c->vm, va, &avail);
      if (!p)
         return false;
      size_t n = avail < size ? (size_t)avail : size;
      memcpy(d, p, n);
      d += n, va += n, size -= n;
   }
   return true;
}

void
replay_vm_create(struct replay_engine *e, uint32_t file, const struct tsr_vm_create *c)
{
   struct drm_asahi_vm_create vc = { .kernel_start = c->kernel_start,
                                     .kernel_end = c->kernel_end };
   int r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_VM_CREATE, &vc);
   if (r) {
      replay_fail(e, "VM_CREATE (kernel range 0x%llx-0x%llx) failed: %s",
                  (unsigned long long)c->kernel_start, (unsigned long long)c->kernel_end,
                  strerror(-r));
      return;
   }
   struct replay_idmap m = { .file = file, .id = c->vm_id, .new_id = vc.vm_id, .live = true };
   REPLAY_VEC_PUSH(e->vms, m);
}

void
replay_vm_destroy(struct replay_engine *e, uint32_t file, uint32_t vm_id)
{
   struct replay_idmap *vm = replay_find_id(e->vms.v, e->vms.n, file, vm_id);
   if (vm) {
      struct drm_asahi_vm_destroy d = { .vm_id = vm->new_id };
      replay_ioctl(e->b, DRM_IOCTL_ASAHI_VM_DESTROY, &d);
      vm->live = false;
   }
}

void
replay_gem_create(struct replay_engine *e, uint32_t file, const struct tsr_gem_create *g)
{
   struct drm_asahi_gem_create gc = { .size = g->size, .flags = g->flags };
   if (g->flags & DRM_ASAHI_GEM_VM_PRIVATE) {
      struct replay_idmap *vm = replay_find_id(e->vms.v, e->vms.n, file, g->vm_id);
      if (!vm) {
         replay_fail(e, "GEM object %u is private to unknown VM %u", g->handle, g->vm_id);
         return;
      }
      gc.vm_id = vm->new_id;
   }
   int r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_GEM_CREATE, &gc);
   if (r) {
      replay_fail(e, "GEM_CREATE of %llu bytes failed: %s", (unsigned long long)g->size,
                  strerror(-r));
      return;
   }
   struct replay_obj o = { .file = file, .handle = g->handle, .new_handle = gc.handle,
                           .size = g->size, .live = true };
   o.map = e->b->map(e->b, gc.handle, g->size);
   if (!o.map) {
      replay_fail(e, "cannot map GEM object %u (%llu bytes)", g->handle,
                  (unsigned long long)g->size);
      return;
   }
   REPLAY_VEC_PUSH(e->objs, o);
}

void
replay_close_obj(struct replay_engine *e, int i)
{
   struct replay_obj *o = &e->objs.v[i];
   if (o->map)
      e->b->unmap(e->b, o->map, o->size);
   struct drm_gem_close gc = { .handle = o->new_handle };
   replay_ioctl(e->b, DRM_IOCTL_GEM_CLOSE, &gc);
   o->live = false;
   o->map = NULL;
}

/* The object's pending pages go first: nothing can record them now. */
void
replay_gem_close(struct replay_engine *e, uint32_t file, uint32_t handle)
{
   int obj = replay_find_obj(e, file, handle);
   if (obj >= 0) {
      replay_drop_all_pending(e, obj);
      replay_close_obj(e, obj);
   }
}

void
replay_vm_bind(struct replay_engine *e, uint32_t file, const struct tsr_vm_bind *b)
{
   if (b->result)
      return;   /* it failed in the capture too */
   struct replay_idmap *vm = replay_find_id(e->vms.v, e->vms.n, file, b->vm_id);
   if (!vm) {
      replay_fail(e, "VM_BIND on unknown VM %u", b->vm_id);
      return;
   }
   struct drm_asahi_gem_bind_op *ops = calloc(b->num_ops ? b->num_ops : 1, sizeof(*ops));
   if (!ops) {
      replay_fail(e, "out of memory");
      return;
   }
   for (uint32_t i = 0; i < b->num_ops && !e->failed; i++) {
      struct drm_asahi_gem_bind_op op;
      memcpy(&op, &b->ops[i], sizeof(op));
      int obj = -1;
      if (!(op.flags & DRM_ASAHI_BIND_UNBIND)) {
         obj = replay_find_obj(e, file, op.handle);
         if (obj < 0) {
            replay_fail(e, "VM_BIND of unknown GEM object %u", op.handle);
            break;
         }
         op.handle = e->objs.v[obj].new_handle;
      }
      ops[i] = op;
      struct uapi_vm_map *map = vm_map_of(e, file, b->vm_id);
      if (!map) {
         struct replay_vm_maps m = { .file = file, .vm = b->vm_id };
         REPLAY_VEC_PUSH(e->maps, m);
         if (e->failed)
            break;
         map = &e->maps.v[e->maps.n - 1].map;
      }
      /* The trace's op with the object's index for a handle. A range the
       * kernel refuses (-EINVAL) fails at VM_BIND below. */
      struct drm_asahi_gem_bind_op mop = op;
      mop.handle = (uint32_t)obj;
      if (uapi_vm_map_apply(map, &mop) == -ENOMEM)
         replay_fail(e, "out of memory");
   }
   if (!e->failed) {
      struct drm_asahi_vm_bind vb = { .vm_id = vm->new_id, .num_binds = b->num_ops,
                                      .stride = sizeof(*ops), .userptr = (uintptr_t)ops };
      int r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_VM_BIND, &vb);
      if (r)
         replay_fail(e, "VM_BIND (%u ops) on VM %u failed: %s", b->num_ops, b->vm_id, strerror(-r));
   }
   free(ops);
}

void
replay_bind_object(struct replay_engine *e, uint32_t file, const struct tsr_bind_object *bo)
{
   if (bo->op == DRM_ASAHI_BIND_OBJECT_OP_UNBIND) {
      struct replay_idmap *t = replay_find_id(e->tsobjs.v, e->tsobjs.n, file, bo->object_handle);
      if (t) {
         struct drm_asahi_gem_bind_object u = { .op = DRM_ASAHI_BIND_OBJECT_OP_UNBIND,
                                                .object_handle = t->new_id };
         replay_ioctl(e->b, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &u);
         t->live = false;
      }
      return;
   }
   int obj = replay_find_obj(e, file, bo->handle);
   if (obj < 0) {
      replay_fail(e, "GEM_BIND_OBJECT of unknown GEM object %u", bo->handle);
      return;
   }
   struct drm_asahi_gem_bind_object b = { .op = DRM_ASAHI_BIND_OBJECT_OP_BIND,
                                          .flags = bo->flags,
                                          .handle = e->objs.v[obj].new_handle,
                                          .offset = bo->offset, .range = bo->range };
   int r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &b);
   if (r) {
      replay_fail(e, "GEM_BIND_OBJECT failed: %s", strerror(-r));
      return;
   }
   struct replay_idmap t = { .file = file, .id = bo->object_handle, .new_id = b.object_handle,
                             .obj = obj, .offset = bo->offset, .live = true };
   REPLAY_VEC_PUSH(e->tsobjs, t);
}

void
replay_queue_create(struct replay_engine *e, uint32_t file, const struct tsr_queue_create *q)
{
   struct replay_idmap *vm = replay_find_id(e->vms.v, e->vms.n, file, q->vm_id);
   if (!vm) {
      replay_fail(e, "queue %u on unknown VM %u", q->queue_id, q->vm_id);
      return;
   }
   struct drm_asahi_queue_create qc = { .flags = q->flags, .vm_id = vm->new_id,
                                        .priority = q->priority,
                                        .usc_exec_base = q->usc_exec_base };
   int r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc);
   if (r) {
      replay_fail(e, "QUEUE_CREATE failed: %s", strerror(-r));
      return;
   }
   struct replay_idmap m = { .file = file, .id = q->queue_id, .new_id = qc.queue_id,
                             .usc_base = q->usc_exec_base, .vm = q->vm_id, .live = true };
   REPLAY_VEC_PUSH(e->queues, m);
}

void
replay_queue_destroy(struct replay_engine *e, uint32_t file, uint32_t queue_id)
{
   struct replay_idmap *q = replay_find_id(e->queues.v, e->queues.n, file, queue_id);
   if (q) {
      struct drm_asahi_queue_destroy d = { .queue_id = q->new_id };
      replay_ioctl(e->b, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &d);
      q->live = false;
   }
}

void
replay_memory(struct replay_engine *e, const struct tsr_record *rec)
{
   int obj = replay_find_obj(e, rec->file, rec->u.memory.handle);
   if (obj < 0) {
      replay_fail(e, "memory record for unknown GEM object %u", rec->u.memory.handle);
      return;
   }
   struct replay_obj *o = &e->objs.v[obj];
   for (uint32_t i = 0; i < rec->u.memory.num_pages; i++) {
      uint64_t off = (rec->u.memory.first_page + i) * (uint64_t)TSR_PAGE_SIZE;
      if (off >= o->size)
         break;
      struct tsr_hash h;
      memcpy(&h, rec->u.memory.hashes + 16 * (size_t)i, sizeof(h));
      uint8_t page[TSR_PAGE_SIZE];
      int r = tsr_reader_page(e->r, &h, page);
      if (r) {
         replay_fail(e, "%s: page %llu of GEM object %u: %s", e->path,
                     (unsigned long long)(off / TSR_PAGE_SIZE), o->handle, tsr_reader_error(e->r));
         return;
      }
      uint64_t n = o->size - off < TSR_PAGE_SIZE ? o->size - off : TSR_PAGE_SIZE;
      if (e->pending.n)
         replay_validate_page(e, obj, off, page);
      memcpy(o->map + off, page, n);
      e->st.pages_restored++;
   }
}

int
replay_obj_of_host(struct replay_engine *e, const uint8_t *p, uint64_t *offset)
{
   for (unsigned i = 0; i < e->objs.n; i++) {
      struct replay_obj *o = &e->objs.v[i];
      if (o->live && o->map && p >= o->map && p < o->map + o->size) {
         *offset = (uint64_t)(p - o->map);
         return (int)i;
      }
   }
   return -1;
}

void
replay_state_release(struct replay_engine *e)
{
   for (unsigned i = 0; i < e->objs.n; i++)
      if (e->objs.v[i].live)
         replay_close_obj(e, (int)i);
   for (unsigned i = 0; i < e->queues.n; i++) {
      if (!e->queues.v[i].live)
         continue;
      struct drm_asahi_queue_destroy d = { .queue_id = e->queues.v[i].new_id };
      replay_ioctl(e->b, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &d);
   }
   for (unsigned i = 0; i < e->vms.n; i++) {
      if (!e->vms.v[i].live)
         continue;
      struct drm_asahi_vm_destroy d = { .vm_id = e->vms.v[i].new_id };
      replay_ioctl(e->b, DRM_IOCTL_ASAHI_VM_DESTROY, &d);
   }
   free(e->objs.v);
   free(e->vms.v);
   free(e->queues.v);
   free(e->tsobjs.v);
   for (unsigned i = 0; i < e->maps.n; i++)
      uapi_vm_map_free(&e->maps.v[i].map);
   free(e->maps.v);
}
