/* SPDX-License-Identifier: MIT */
/*
 * The replay engine: reads a trace record by record and re-issues it on a
 * backend. Ids are translated through small tables (traces hold tens of
 * objects, not millions, so linear searches are fine); the replay waits for
 * every submission before the next one, which keeps memory restores,
 * validation and per-submission images exact (GPU times come from the
 * firmware's timestamps, so waiting does not distort them).
 */
#include "replay/replay.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "drm-uapi/asahi_drm.h"
#include "replay/replay_image.h"
#include "replay/replay_priv.h"
#include "trace/trace.h"
#include "uapi/uapi_cmdbuf.h"
#include "uapi/uapi_shaders.h"
#include "uapi/uapi_vm_map.h"

#define TS_BUF_BYTES (16u * 1024)
#define MAX_CMDS 256
#define WAIT_NS (60ull * 1000000000ull)

struct obj {
   uint32_t file, handle, new_handle;
   uint64_t size;
   uint8_t *map;
   bool live;
};

struct idmap {
   uint32_t file, id, new_id;
   uint64_t usc_base;   /* queues */
   uint32_t vm;         /* queues: the trace's VM id */
   int obj;             /* timestamp objects: index in objs */
   uint64_t offset;     /* timestamp objects: offset in the object */
   bool live;
};

/* The replay's view of one of the trace's VMs; a mapping's handle is the
 * index of its object in objs (the object as it was at bind time). */
struct vm_maps {
   uint32_t file, vm;   /* trace ids */
   struct uapi_vm_map map;
};

struct obj_range {
   int obj;
   uint64_t offset, size;
};

/* A page a replayed submission changed, waiting for the trace's first
 * later recording of it (validation). */
struct pending_page {
   int obj;
   uint64_t offset;
   uint32_t seq;                    /* the submission that wrote it */
   uint8_t before[TSR_PAGE_SIZE];   /* the replay's page before the submission */
   uint8_t data[TSR_PAGE_SIZE];     /* ... and after it */
};

/* A render command of the current frame, for image dumps. */
struct frame_render {
   uint32_t seq, file, vm;
   uint64_t usc_base;
   struct drm_asahi_cmd_render cmd;
};

#define VEC(type) struct { type *v; unsigned n, cap; }
#define VEC_PUSH(vec, item)                                                   \
   do {                                                                       \
      if ((vec).n == (vec).cap) {                                             \
         unsigned c_ = (vec).cap ? (vec).cap * 2 : 16;                        \
         void *p_ = realloc((vec).v, c_ * sizeof(*(vec).v));                  \
         if (!p_) {                                                           \
            fail(e, "out of memory");                                         \
            break;                                                            \
         }                                                                    \
         (vec).v = p_;                                                        \
         (vec).cap = c_;                                                      \
      }                                                                       \
      (vec).v[(vec).n++] = (item);                                            \
   } while (0)

struct engine {
   const struct replay_options *o;
   struct replay_backend *b;
   struct tsr_reader *r;
   const char *path;
   FILE *log;
   struct replay_stats st;
   enum replay_status status;
   bool failed;
   struct drm_asahi_params_global params;

   VEC(struct obj) objs;
   VEC(struct idmap) vms, queues, syncs, tsobjs;
   VEC(struct vm_maps) maps;
   VEC(struct pending_page) pending;
   VEC(struct frame_render) renders;
   VEC(struct obj_range) overridden;
   bool difference_reported;

   /* The replay's own objects. */
   uint32_t done_sync;
   uint32_t ts_gem, ts_object;
   uint8_t *ts_map;

   /* Per pass. */
   bool measuring, looping;
   unsigned pass;
   struct replay_timing timing;
   struct replay_progress progress;
   uint64_t frame_gpu_ns, frame_cpu_ns;
   bool frame_has_work;
   uint32_t cur_frame;
   uint64_t done_submits;
};

static void
msg(struct engine *e, const char *kind, const char *fmt, va_list ap)
{
   if (e->progress.enabled && e->progress.last_draw_ns)
      fputc('\n', e->log);
   fprintf(e->log, "tessera replay: %s", kind);
   vfprintf(e->log, fmt, ap);
   fputc('\n', e->log);
}

static void
fail(struct engine *e, const char *fmt, ...)
{
   if (e->failed)
      return;
   va_list ap;
   va_start(ap, fmt);
   msg(e, "", fmt, ap);
   va_end(ap);
   e->failed = true;
   e->status = REPLAY_ERROR;
}

static void
warn(struct engine *e, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   msg(e, "warning: ", fmt, ap);
   va_end(ap);
}

/* ---- id tables ----------------------------------------------------------- */

static struct idmap *
find_id(struct idmap *v, unsigned n, uint32_t file, uint32_t id)
{
   for (unsigned i = n; i-- > 0;)
      if (v[i].live && v[i].file == file && v[i].id == id)
         return &v[i];
   return NULL;
}

static int
find_obj(struct engine *e, uint32_t file, uint32_t handle)
{
   for (unsigned i = e->objs.n; i-- > 0;)
      if (e->objs.v[i].live && e->objs.v[i].file == file && e->objs.v[i].handle == handle)
         return (int)i;
   return -1;
}

/* ---- memory through the replay's own VM mappings ------------------------- */

static struct uapi_vm_map *
vm_map_of(struct engine *e, uint32_t file, uint32_t vm)
{
   for (unsigned i = 0; i < e->maps.n; i++)
      if (e->maps.v[i].file == file && e->maps.v[i].vm == vm)
         return &e->maps.v[i].map;
   return NULL;
}

static uint8_t *
va_to_host(struct engine *e, uint32_t file, uint32_t vm, uint64_t va, uint64_t *avail)
{
   const struct uapi_vm_map *map = vm_map_of(e, file, vm);
   const struct uapi_mapping *m = map ? uapi_vm_map_find(map, va) : NULL;
   if (!m)
      return NULL;
   struct obj *o = &e->objs.v[m->handle];
   if (!o->live || !o->map)
      return NULL;
   uint64_t left;
   uint64_t off = uapi_mapping_offset(m, va, &left);
   if (off >= o->size)
      return NULL;
   *avail = left < o->size - off ? left : o->size - off;
   return o->map + off;
}

struct vm_ctx {
   struct engine *e;
   uint32_t file, vm;
};

static bool
read_vm(void *ctx, uint64_t va, void *dst, size_t size)
{
   struct vm_ctx *c = ctx;
   uint8_t *d = dst;
   while (size) {
      uint64_t avail;
      uint8_t *p = va_to_host(c->e, c->file, c->vm, va, &avail);
      if (!p)
         return false;
      size_t n = avail < size ? (size_t)avail : size;
      memcpy(d, p, n);
      d += n, va += n, size -= n;
   }
   return true;
}

/* ---- records ------------------------------------------------------------- */

static void
check_params(struct engine *e, const struct drm_asahi_params_global *t)
{
   const struct drm_asahi_params_global *d = &e->params;
   char why[256] = "";
   if (t->gpu_generation != d->gpu_generation || t->gpu_variant != d->gpu_variant ||
       t->chip_id != d->chip_id)
      snprintf(why, sizeof(why),
               "the trace was recorded on G%u%c (chip 0x%x), the target is G%u%c (chip 0x%x)",
               t->gpu_generation, (char)t->gpu_variant, t->chip_id, d->gpu_generation,
               (char)d->gpu_variant, d->chip_id);
   else if (t->vm_start < d->vm_start || t->vm_end > d->vm_end)
      snprintf(why, sizeof(why),
               "the trace's GPU VA window [0x%llx, 0x%llx) is not inside the target's "
               "[0x%llx, 0x%llx)",
               (unsigned long long)t->vm_start, (unsigned long long)t->vm_end,
               (unsigned long long)d->vm_start, (unsigned long long)d->vm_end);
   else if (t->num_clusters_total > d->num_clusters_total ||
            t->max_commands_per_submission > d->max_commands_per_submission)
      snprintf(why, sizeof(why),
               "the trace's device is larger (%u clusters, %u commands per submission) "
               "than the target (%u, %u)",
               t->num_clusters_total, t->max_commands_per_submission,
               d->num_clusters_total, d->max_commands_per_submission);
   if (!why[0])
      return;
   if (e->o->force)
      warn(e, "%s; replaying anyway (--force)", why);
   else
      fail(e, "incompatible device: %s; use --force to replay anyway", why);
}

static void
do_vm_create(struct engine *e, uint32_t file, const struct tsr_vm_create *c)
{
   struct drm_asahi_vm_create vc = { .kernel_start = c->kernel_start,
                                     .kernel_end = c->kernel_end };
   int r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_VM_CREATE, &vc);
   if (r) {
      fail(e, "VM_CREATE (kernel range 0x%llx-0x%llx) failed: %s",
           (unsigned long long)c->kernel_start, (unsigned long long)c->kernel_end,
           strerror(-r));
      return;
   }
   struct idmap m = { .file = file, .id = c->vm_id, .new_id = vc.vm_id, .live = true };
   VEC_PUSH(e->vms, m);
}

static void
do_gem_create(struct engine *e, uint32_t file, const struct tsr_gem_create *g)
{
   struct drm_asahi_gem_create gc = { .size = g->size, .flags = g->flags };
   if (g->flags & DRM_ASAHI_GEM_VM_PRIVATE) {
      struct idmap *vm = find_id(e->vms.v, e->vms.n, file, g->vm_id);
      if (!vm) {
         fail(e, "GEM object %u is private to unknown VM %u", g->handle, g->vm_id);
         return;
      }
      gc.vm_id = vm->new_id;
   }
   int r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_GEM_CREATE, &gc);
   if (r) {
      fail(e, "GEM_CREATE of %llu bytes failed: %s", (unsigned long long)g->size,
           strerror(-r));
      return;
   }
   struct obj o = { .file = file, .handle = g->handle, .new_handle = gc.handle,
                    .size = g->size, .live = true };
   o.map = e->b->map(e->b, gc.handle, g->size);
   if (!o.map) {
      fail(e, "cannot map GEM object %u (%llu bytes)", g->handle,
           (unsigned long long)g->size);
      return;
   }
   VEC_PUSH(e->objs, o);
}

static void
close_obj(struct engine *e, int i)
{
   struct obj *o = &e->objs.v[i];
   if (o->map)
      e->b->unmap(e->b, o->map, o->size);
   struct drm_gem_close gc = { .handle = o->new_handle };
   replay_ioctl(e->b, DRM_IOCTL_GEM_CLOSE, &gc);
   o->live = false;
   o->map = NULL;
}

static void
do_vm_bind(struct engine *e, uint32_t file, const struct tsr_vm_bind *b)
{
   if (b->result)
      return;   /* it failed in the capture too */
   struct idmap *vm = find_id(e->vms.v, e->vms.n, file, b->vm_id);
   if (!vm) {
      fail(e, "VM_BIND on unknown VM %u", b->vm_id);
      return;
   }
   struct drm_asahi_gem_bind_op *ops = calloc(b->num_ops ? b->num_ops : 1, sizeof(*ops));
   if (!ops) {
      fail(e, "out of memory");
      return;
   }
   for (uint32_t i = 0; i < b->num_ops && !e->failed; i++) {
      struct drm_asahi_gem_bind_op op;
      memcpy(&op, &b->ops[i], sizeof(op));
      int obj = -1;
      if (!(op.flags & DRM_ASAHI_BIND_UNBIND)) {
         obj = find_obj(e, file, op.handle);
         if (obj < 0) {
            fail(e, "VM_BIND of unknown GEM object %u", op.handle);
            break;
         }
         op.handle = e->objs.v[obj].new_handle;
      }
      ops[i] = op;
      struct uapi_vm_map *map = vm_map_of(e, file, b->vm_id);
      if (!map) {
         struct vm_maps m = { .file = file, .vm = b->vm_id };
         VEC_PUSH(e->maps, m);
         if (e->failed)
            break;
         map = &e->maps.v[e->maps.n - 1].map;
      }
      /* The trace's op with the object's index for a handle. A range the
       * kernel refuses (-EINVAL) fails at VM_BIND below. */
      struct drm_asahi_gem_bind_op mop = op;
      mop.handle = (uint32_t)obj;
      if (uapi_vm_map_apply(map, &mop) == -ENOMEM)
         fail(e, "out of memory");
   }
   if (!e->failed) {
      struct drm_asahi_vm_bind vb = { .vm_id = vm->new_id, .num_binds = b->num_ops,
                                      .stride = sizeof(*ops), .userptr = (uintptr_t)ops };
      int r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_VM_BIND, &vb);
      if (r)
         fail(e, "VM_BIND (%u ops) on VM %u failed: %s", b->num_ops, b->vm_id, strerror(-r));
   }
   free(ops);
}

static void
do_bind_object(struct engine *e, uint32_t file, const struct tsr_bind_object *bo)
{
   if (bo->op == DRM_ASAHI_BIND_OBJECT_OP_UNBIND) {
      struct idmap *t = find_id(e->tsobjs.v, e->tsobjs.n, file, bo->object_handle);
      if (t) {
         struct drm_asahi_gem_bind_object u = { .op = DRM_ASAHI_BIND_OBJECT_OP_UNBIND,
                                                .object_handle = t->new_id };
         replay_ioctl(e->b, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &u);
         t->live = false;
      }
      return;
   }
   int obj = find_obj(e, file, bo->handle);
   if (obj < 0) {
      fail(e, "GEM_BIND_OBJECT of unknown GEM object %u", bo->handle);
      return;
   }
   struct drm_asahi_gem_bind_object b = { .op = DRM_ASAHI_BIND_OBJECT_OP_BIND,
                                          .flags = bo->flags,
                                          .handle = e->objs.v[obj].new_handle,
                                          .offset = bo->offset, .range = bo->range };
   int r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &b);
   if (r) {
      fail(e, "GEM_BIND_OBJECT failed: %s", strerror(-r));
      return;
   }
   struct idmap t = { .file = file, .id = bo->object_handle, .new_id = b.object_handle,
                      .obj = obj, .offset = bo->offset, .live = true };
   VEC_PUSH(e->tsobjs, t);
}

static void
do_queue_create(struct engine *e, uint32_t file, const struct tsr_queue_create *q)
{
   struct idmap *vm = find_id(e->vms.v, e->vms.n, file, q->vm_id);
   if (!vm) {
      fail(e, "queue %u on unknown VM %u", q->queue_id, q->vm_id);
      return;
   }
   struct drm_asahi_queue_create qc = { .flags = q->flags, .vm_id = vm->new_id,
                                        .priority = q->priority,
                                        .usc_exec_base = q->usc_exec_base };
   int r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc);
   if (r) {
      fail(e, "QUEUE_CREATE failed: %s", strerror(-r));
      return;
   }
   struct idmap m = { .file = file, .id = q->queue_id, .new_id = qc.queue_id,
                      .usc_base = q->usc_exec_base, .vm = q->vm_id, .live = true };
   VEC_PUSH(e->queues, m);
}

static void validate_page(struct engine *e, int obj, uint64_t offset, const uint8_t *want);

static void
do_memory(struct engine *e, const struct tsr_record *rec)
{
   int obj = find_obj(e, rec->file, rec->u.memory.handle);
   if (obj < 0) {
      fail(e, "memory record for unknown GEM object %u", rec->u.memory.handle);
      return;
   }
   struct obj *o = &e->objs.v[obj];
   for (uint32_t i = 0; i < rec->u.memory.num_pages; i++) {
      uint64_t off = (rec->u.memory.first_page + i) * (uint64_t)TSR_PAGE_SIZE;
      if (off >= o->size)
         break;
      struct tsr_hash h;
      memcpy(&h, rec->u.memory.hashes + 16 * (size_t)i, sizeof(h));
      uint8_t page[TSR_PAGE_SIZE];
      int r = tsr_reader_page(e->r, &h, page);
      if (r) {
         fail(e, "%s: page %llu of GEM object %u: %s", e->path,
              (unsigned long long)(off / TSR_PAGE_SIZE), o->handle, tsr_reader_error(e->r));
         return;
      }
      uint64_t n = o->size - off < TSR_PAGE_SIZE ? o->size - off : TSR_PAGE_SIZE;
      if (e->pending.n)
         validate_page(e, obj, off, page);
      memcpy(o->map + off, page, n);
      e->st.pages_restored++;
   }
}

static int
obj_of_host(struct engine *e, const uint8_t *p, uint64_t *offset)
{
   for (unsigned i = 0; i < e->objs.n; i++) {
      struct obj *o = &e->objs.v[i];
      if (o->live && o->map && p >= o->map && p < o->map + o->size) {
         *offset = (uint64_t)(p - o->map);
         return (int)i;
      }
   }
   return -1;
}

static void
apply_overrides(struct engine *e)
{
   e->overridden.n = 0;
   for (unsigned k = 0; k < e->o->num_overrides; k++) {
      const struct replay_override *ov = &e->o->overrides[k];
      for (unsigned v = 0; v < e->vms.n; v++) {
         if (!e->vms.v[v].live)
            continue;
         uint64_t va = ov->va;
         size_t left = ov->size;
         const uint8_t *src = ov->code;
         while (left) {
            uint64_t avail;
            uint8_t *p = va_to_host(e, e->vms.v[v].file, e->vms.v[v].id, va, &avail);
            if (!p)
               break;
            size_t n = avail < left ? (size_t)avail : left;
            memcpy(p, src, n);
            struct obj_range rg = { .size = n };
            rg.obj = obj_of_host(e, p, &rg.offset);
            VEC_PUSH(e->overridden, rg);
            src += n, va += n, left -= n;
         }
      }
   }
}

/* ---- override checks ----------------------------------------------------- */

struct index_entry {
   uint64_t va;
   uint32_t size;
};

struct shader_index {
   struct index_entry *v;
   size_t n, cap;
};

static void
index_add(struct shader_index *ix, uint64_t va, uint32_t size)
{
   for (size_t i = 0; i < ix->n; i++)
      if (ix->v[i].va == va) {
         if (size > ix->v[i].size)
            ix->v[i].size = size;   /* the code at va changed: the largest */
         return;
      }
   if (ix->n == ix->cap) {
      size_t ncap = ix->cap ? ix->cap * 2 : 16;
      struct index_entry *n = realloc(ix->v, ncap * sizeof(*n));
      if (!n)
         return;
      ix->v = n;
      ix->cap = ncap;
   }
   ix->v[ix->n++] = (struct index_entry){ va, size };
}

struct trace_va {
   struct tsr_reader *r;
   uint32_t file, vm;
};

static size_t
trace_read_va(void *ctx, uint64_t va, void *dst, size_t size)
{
   struct trace_va *t = ctx;
   return tsr_reader_read_va(t->r, t->file, t->vm, va, dst, size);
}

/* The trace's shader index; a trace without one (an older capture, or a
 * writer that does not index) gets it computed from its streams the way
 * the capture would have. Leaves the reader rewound. */
static void
load_index(struct engine *e, struct shader_index *ix)
{
   struct tsr_record rec;
   while (tsr_reader_next(e->r, &rec) > 0)
      if (rec.type == TSR_REC_SHADER)
         index_add(ix, rec.u.shader.va, rec.u.shader.size);
   tsr_reader_rewind(e->r);
   if (ix->n)
      return;
   struct uapi_shader_cache cache = { 0 };
   while (tsr_reader_next(e->r, &rec) > 0) {
      if (rec.type != TSR_REC_SUBMIT || rec.u.submit.result)
         continue;
      struct trace_va t = { e->r, rec.file, 0 };
      uint64_t usc_base;
      if (!tsr_reader_queue(e->r, rec.file, rec.u.submit.queue_id, &t.vm, &usc_base))
         continue;
      struct uapi_shader_list l = { 0 };
      uapi_cmdbuf_shaders(rec.u.submit.cmdbuf, rec.u.submit.cmdbuf_size, usc_base,
                         trace_read_va, &t, &cache, &l);
      for (size_t i = 0; i < l.count; i++)
         index_add(ix, l.v[i].va, l.v[i].size);
      uapi_shader_list_free(&l);
   }
   uapi_shader_cache_free(&cache);
   tsr_reader_rewind(e->r);
}

/* An override must replace a shader the trace has, and must not spill
 * over another one (it would silently change a second program). Writing
 * past the original's end into other data is allowed with a warning. */
static void
check_overrides(struct engine *e)
{
   struct shader_index ix = { 0 };
   load_index(e, &ix);
   for (unsigned k = 0; k < e->o->num_overrides && !e->failed; k++) {
      const struct replay_override *ov = &e->o->overrides[k];
      const struct index_entry *hit = NULL;
      for (size_t i = 0; i < ix.n; i++)
         if (ix.v[i].va == ov->va)
            hit = &ix.v[i];
      if (!hit) {
         fail(e, "--override-shader: no shader at 0x%llx in the trace's shader index "
              "(%zu shaders; `tessera info --shaders` lists them)",
              (unsigned long long)ov->va, ix.n);
         break;
      }
      if (ov->size <= hit->size || !hit->size)
         continue;
      for (size_t i = 0; i < ix.n; i++) {
         if (&ix.v[i] != hit && ix.v[i].va > ov->va && ix.v[i].va < ov->va + ov->size) {
            fail(e, "--override-shader: %zu bytes at 0x%llx would overwrite the shader at "
                 "0x%llx (the original is %u bytes)", ov->size, (unsigned long long)ov->va,
                 (unsigned long long)ix.v[i].va, hit->size);
            break;
         }
      }
      if (!e->failed)
         warn(e, "--override-shader: %zu bytes at 0x%llx replace a %u-byte shader: "
              "%zu bytes after it are overwritten too", ov->size, (unsigned long long)ov->va,
              hit->size, ov->size - hit->size);
   }
   free(ix.v);
}

/* ---- validation ---------------------------------------------------------- */

struct snapshot {
   uint8_t **data;
   unsigned n;
};

static void
snapshot_take(struct engine *e, struct snapshot *s)
{
   s->n = e->objs.n;
   s->data = calloc(s->n ? s->n : 1, sizeof(*s->data));
   for (unsigned i = 0; s->data && i < s->n; i++) {
      struct obj *o = &e->objs.v[i];
      if (o->live && (s->data[i] = malloc(o->size)))
         memcpy(s->data[i], o->map, o->size);
   }
}

/* Timestamps are times, not results: they differ from run to run on real
 * hardware, so validation leaves timestamp objects out. */
static bool
is_timestamp_obj(struct engine *e, unsigned obj)
{
   for (unsigned i = 0; i < e->tsobjs.n; i++)
      if (e->tsobjs.v[i].live && e->tsobjs.v[i].obj == (int)obj)
         return true;
   return false;
}

static int
find_pending(struct engine *e, int obj, uint64_t offset)
{
   for (unsigned i = 0; i < e->pending.n; i++)
      if (e->pending.v[i].obj == obj && e->pending.v[i].offset == offset)
         return (int)i;
   return -1;
}

/* A pending page that will never be compared: the GPU wrote it again, or
 * its object went away, before the capture recorded it. */
static void
drop_pending(struct engine *e, unsigned i, bool unverifiable)
{
   if (unverifiable)
      e->st.pages_unverifiable++;
   e->pending.v[i] = e->pending.v[--e->pending.n];
}

static void
drop_all_pending(struct engine *e, int obj)
{
   for (unsigned i = e->pending.n; i-- > 0;)
      if (obj < 0 || e->pending.v[i].obj == obj)
         drop_pending(e, i, true);
}

/* The pages submission `seq` changed join the pending list. A page still
 * pending from an earlier submission was rewritten before the capture
 * recorded it: the earlier result cannot be checked against this trace. */
static void
snapshot_diff(struct engine *e, struct snapshot *s, uint32_t seq)
{
   for (unsigned i = 0; s->data && i < s->n; i++) {
      struct obj *o = &e->objs.v[i];
      if (!s->data[i] || !o->live || is_timestamp_obj(e, i))
         continue;
      for (uint64_t off = 0; off < o->size; off += TSR_PAGE_SIZE) {
         uint64_t n = o->size - off < TSR_PAGE_SIZE ? o->size - off : TSR_PAGE_SIZE;
         if (!memcmp(s->data[i] + off, o->map + off, n))
            continue;
         struct pending_page *p = calloc(1, sizeof(*p));
         if (!p) {
            fail(e, "out of memory");
            break;
         }
         p->obj = (int)i;
         p->offset = off;
         p->seq = seq;
         memcpy(p->before, s->data[i] + off, n);
         memcpy(p->data, o->map + off, n);
         int old = find_pending(e, (int)i, off);
         if (old >= 0) {
            e->st.pages_unverifiable++;
            e->pending.v[old] = *p;
         } else {
            VEC_PUSH(e->pending, *p);
         }
         free(p);
      }
   }
   for (unsigned i = 0; s->data && i < s->n; i++)
      free(s->data[i]);
   free(s->data);
}

/* Bytes --override-shader replaced differ from the capture on purpose. */
static bool
is_overridden(struct engine *e, int obj, uint64_t offset)
{
   for (unsigned i = 0; i < e->overridden.n; i++) {
      const struct obj_range *r = &e->overridden.v[i];
      if (r->obj == obj && offset >= r->offset && offset - r->offset < r->size)
         return true;
   }
   return false;
}

/* A memory record brings the first recording of page (obj, offset) since
 * the pending submission wrote it: the bytes that submission changed must
 * read the same in `want`. Other bytes may have been rewritten by the
 * program's CPU before the capture recorded the page. */
static void
validate_page(struct engine *e, int obj, uint64_t offset, const uint8_t *want)
{
   int i = find_pending(e, obj, offset);
   if (i < 0)
      return;
   struct pending_page *p = &e->pending.v[i];
   struct obj *o = &e->objs.v[obj];
   uint64_t n = o->size - p->offset < TSR_PAGE_SIZE ? o->size - p->offset : TSR_PAGE_SIZE;
   e->st.pages_validated++;
   for (uint64_t k = 0; k < n && !e->difference_reported; k++) {
      if (p->before[k] == p->data[k] || want[k] == p->data[k] ||
          is_overridden(e, p->obj, p->offset + k))
         continue;
      fprintf(e->log,
              "tessera replay: validation: submission %u: GEM object %u offset 0x%llx: "
              "replay wrote 0x%02x, the capture recorded 0x%02x\n",
              p->seq, o->handle, (unsigned long long)(p->offset + k), p->data[k], want[k]);
      e->difference_reported = true;
      e->st.validated_ok = false;
      if (e->status == REPLAY_OK)
         e->status = REPLAY_DIFFERENT;
   }
   drop_pending(e, (unsigned)i, false);
}

/* ---- images -------------------------------------------------------------- */

static void
dump_renders(struct engine *e, const struct frame_render *list, unsigned n)
{
   /* The last writer of a target names it; earlier writes are overdrawn. */
   struct done {
      uint64_t base;
      unsigned kind, level;
   } seen[64];
   unsigned nseen = 0;
   for (unsigned i = n; i-- > 0;) {
      const struct frame_render *fr = &list[i];
      struct vm_ctx ctx = { e, fr->file, fr->vm };
      struct replay_target t[REPLAY_MAX_TARGETS];
      char err[256];
      int nt = replay_find_targets(&fr->cmd, fr->usc_base, read_vm, &ctx, t,
                                   REPLAY_MAX_TARGETS, err, sizeof(err));
      if (nt < 0) {
         warn(e, "submission %u: %s", fr->seq, err);
         continue;
      }
      for (int k = 0; k < nt; k++) {
         struct done d = { t[k].kind == REPLAY_TARGET_COLOR ? t[k].image.base : t[k].base,
                           t[k].kind,
                           t[k].kind == REPLAY_TARGET_COLOR ? t[k].image.level : 0 };
         bool dup = false;
         for (unsigned s = 0; s < nseen; s++)
            dup |= seen[s].base == d.base && seen[s].kind == d.kind && seen[s].level == d.level;
         if (dup)
            continue;
         if (nseen < 64)
            seen[nseen++] = d;
         static const char *const kinds[] = { "color", "depth", "stencil" };
         uint32_t layers = replay_target_layers(&t[k]);
         for (uint32_t l = 0; l < layers && l < 64; l++) {
            char path[4096];
            if (layers > 1)
               snprintf(path, sizeof(path), "%s/f%04u_s%05u_%s%u_l%u.png", e->o->dump_dir,
                        e->cur_frame, fr->seq, kinds[t[k].kind], t[k].index, l);
            else
               snprintf(path, sizeof(path), "%s/f%04u_s%05u_%s%u.png", e->o->dump_dir,
                        e->cur_frame, fr->seq, kinds[t[k].kind], t[k].index);
            uint8_t *px;
            uint32_t w, h;
            if (!replay_target_read_rgba8(&t[k], l, read_vm, &ctx, &px, &w, &h, err,
                                          sizeof(err))) {
               warn(e, "submission %u %s%u: %s", fr->seq, kinds[t[k].kind], t[k].index, err);
               continue;
            }
            if (!replay_png_write(path, px, w, h, err, sizeof(err)))
               fail(e, "%s", err);
            else
               e->st.images++;
            free(px);
         }
      }
   }
}

/* ---- submissions --------------------------------------------------------- */

static uint32_t
sync_handle(struct engine *e, uint32_t file, uint32_t handle, bool create)
{
   struct idmap *m = find_id(e->syncs.v, e->syncs.n, file, handle);
   if (m || !create)
      return m ? m->new_id : 0;
   struct drm_syncobj_create sc = { 0 };
   if (replay_ioctl(e->b, DRM_IOCTL_SYNCOBJ_CREATE, &sc)) {
      fail(e, "SYNCOBJ_CREATE failed");
      return 0;
   }
   struct idmap n = { .file = file, .id = handle, .new_id = sc.handle, .live = true };
   VEC_PUSH(e->syncs, n);
   return sc.handle;
}

/* Where a timestamp lands: the program's object, or the replay's buffer
 * (slot) when the command asked for none. */
static void
patch_ts(struct engine *e, uint32_t file, struct drm_asahi_timestamp *ts, unsigned *slot,
         uint64_t **where)
{
   *where = NULL;
   if (ts->handle) {
      struct idmap *t = find_id(e->tsobjs.v, e->tsobjs.n, file, ts->handle);
      if (!t) {
         fail(e, "command uses unknown timestamp object %u", ts->handle);
         return;
      }
      ts->handle = t->new_id;
      struct obj *o = &e->objs.v[t->obj];
      if (o->live && t->offset + ts->offset + 8 <= o->size)
         *where = (uint64_t *)(void *)(o->map + t->offset + ts->offset);
      return;
   }
   if (*slot * 8 + 8 > TS_BUF_BYTES)
      return;
   ts->handle = e->ts_object;
   ts->offset = *slot * 8;
   *where = (uint64_t *)(void *)(e->ts_map + *slot * 8);
   **where = 0;
   (*slot)++;
}

static uint64_t
ticks_to_ns(struct engine *e, uint64_t ticks)
{
   uint64_t hz = e->params.command_timestamp_frequency_hz ? e->params.command_timestamp_frequency_hz
                                                          : 24000000ull;
   return (uint64_t)((unsigned __int128)ticks * 1000000000ull / hz);
}

static void
do_submit(struct engine *e, const struct tsr_record *rec)
{
   const struct tsr_submit *s = &rec->u.submit;
   if (s->result)
      return;   /* the kernel refused it during capture */
   uint32_t seq = rec->seq;
   struct idmap *q = find_id(e->queues.v, e->queues.n, rec->file, s->queue_id);
   if (!q) {
      fail(e, "submission %u on unknown queue %u", seq, s->queue_id);
      return;
   }
   apply_overrides(e);

   /* The command buffer with translated timestamp handles; short payloads
    * are zero-extended to the full struct, as the kernel would. */
   uint8_t *buf = malloc((size_t)s->cmdbuf_size + MAX_CMDS * sizeof(struct drm_asahi_cmd_render) + 64);
   uint64_t *ts_at[MAX_CMDS * 4];
   unsigned nts = 0, slot = 0, nb = 0;
   if (!buf) {
      fail(e, "out of memory");
      return;
   }
   /* Bytes after the last whole command are not resubmitted (the kernel
    * accepted this buffer, so there are none in a real capture). */
   struct uapi_cmd_iter it;
   struct uapi_cmd c;
   uapi_cmd_iter_init(&it, s->cmdbuf, s->cmdbuf_size);
   while (!e->failed && uapi_cmd_next(&it, &c)) {
      if (c.index >= MAX_CMDS) {
         fail(e, "submission %u: more than %u commands", seq, MAX_CMDS);
         break;
      }
      struct drm_asahi_cmd_header h = c.h;
      size_t psize = h.size;
      if (c.h.cmd_type == DRM_ASAHI_CMD_RENDER || c.h.cmd_type == DRM_ASAHI_CMD_COMPUTE) {
         if (c.h.cmd_type == DRM_ASAHI_CMD_RENDER) {
            struct drm_asahi_timestamp *t[4] = { &c.u.render.ts_vtx.start, &c.u.render.ts_vtx.end,
                                                 &c.u.render.ts_frag.start, &c.u.render.ts_frag.end };
            for (unsigned k = 0; k < 4; k++)
               patch_ts(e, rec->file, t[k], &slot, &ts_at[nts++]);
            if (e->o->dump_dir) {
               struct frame_render fr = { .seq = seq, .file = rec->file, .vm = q->vm,
                                          .usc_base = q->usc_base, .cmd = c.u.render };
               VEC_PUSH(e->renders, fr);
            }
         } else {
            patch_ts(e, rec->file, &c.u.compute.ts.start, &slot, &ts_at[nts++]);
            patch_ts(e, rec->file, &c.u.compute.ts.end, &slot, &ts_at[nts++]);
         }
         /* short payloads go out zero-extended to the full struct */
         size_t full = c.h.cmd_type == DRM_ASAHI_CMD_RENDER ? sizeof(c.u.render)
                                                            : sizeof(c.u.compute);
         size_t out = psize > full ? psize : full;
         h.size = (uint16_t)out;
         memcpy(buf + nb, &h, sizeof(h));
         memcpy(buf + nb + sizeof(h), &c.u, full);
         if (psize > full)
            memcpy(buf + nb + sizeof(h) + full, c.payload + full, psize - full);
         nb += sizeof(h) + out;
      } else {
         memcpy(buf + nb, &h, sizeof(h));
         memcpy(buf + nb + sizeof(h), c.payload, psize);
         nb += sizeof(h) + psize;
      }
   }
   if (!e->failed && it.status == UAPI_CMDBUF_SHORT_PAYLOAD)
      fail(e, "submission %u: command %u overruns the command buffer", seq, c.index);

   /* In-syncs the replay itself signalled earlier; out-syncs all, plus the
    * replay's completion syncobj. */
   struct drm_asahi_sync *syncs = calloc(s->in_sync_count + s->out_sync_count + 1, sizeof(*syncs));
   unsigned nin = 0, nout = 0;
   for (uint32_t i = 0; syncs && i < s->in_sync_count; i++) {
      struct drm_asahi_sync y = s->syncs[i];
      uint32_t h = sync_handle(e, rec->file, y.handle, false);
      if (!h)
         continue;
      y.handle = h;
      syncs[nin++] = y;
   }
   for (uint32_t i = 0; syncs && i < s->out_sync_count; i++) {
      struct drm_asahi_sync y = s->syncs[s->in_sync_count + i];
      y.handle = sync_handle(e, rec->file, y.handle, true);
      syncs[nin + nout++] = y;
   }
   if (syncs)
      syncs[nin + nout++] = (struct drm_asahi_sync){ .sync_type = DRM_ASAHI_SYNC_SYNCOBJ,
                                                     .handle = e->done_sync };
   if (!syncs)
      fail(e, "out of memory");

   struct snapshot snap = { 0 };
   if (!e->failed && e->o->validate)
      snapshot_take(e, &snap);

   uint64_t t0 = replay_now_ns();
   if (!e->failed) {
      struct drm_asahi_submit sub = { .syncs = (uintptr_t)syncs, .cmdbuf = (uintptr_t)buf,
                                      .flags = s->flags, .queue_id = q->new_id,
                                      .in_sync_count = nin, .out_sync_count = nout,
                                      .cmdbuf_size = nb };
      int r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_SUBMIT, &sub);
      if (r)
         fail(e, "submission %u: SUBMIT failed: %s", seq, strerror(-r));
   }
   if (!e->failed) {
      struct drm_syncobj_wait w = { .handles = (uintptr_t)&e->done_sync, .count_handles = 1,
                                    .timeout_nsec = (int64_t)(replay_now_ns() + WAIT_NS) };
      int r = replay_ioctl(e->b, DRM_IOCTL_SYNCOBJ_WAIT, &w);
      if (r)
         fail(e, "submission %u: waiting for completion failed: %s", seq, strerror(-r));
   }
   uint64_t cpu = replay_now_ns() - t0;
   if (!e->failed && e->b->fence_error) {
      int fe = e->b->fence_error(e->b, e->done_sync);
      if (fe) {
         e->st.gpu_errors++;
         warn(e, "submission %u completed with an error: %s", seq, strerror(-fe));
         if (e->status == REPLAY_OK)
            e->status = REPLAY_DIFFERENT;
      }
   }
   if (!e->failed && e->o->validate)
      snapshot_diff(e, &snap, seq);

   /* GPU time: first start to last end of the submission's commands. */
   uint64_t lo = UINT64_MAX, hi = 0;
   for (unsigned i = 0; i < nts; i++) {
      if (!ts_at[i])
         continue;
      uint64_t v;
      memcpy(&v, ts_at[i], 8);
      if (!v)
         continue;
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
   }
   uint64_t gpu = hi > lo ? ticks_to_ns(e, hi - lo) : 0;
   e->st.submits++;
   e->st.gpu_ns += gpu;
   e->frame_gpu_ns += gpu;
   e->frame_cpu_ns += cpu;
   e->frame_has_work = true;
   if (e->measuring) {
      struct replay_sample smp = { rec->frame, seq, gpu, cpu };
      replay_timing_add(&e->timing, &smp);
   }
   if (!e->failed && e->o->dump_dir && e->o->per_submit && e->renders.n) {
      dump_renders(e, e->renders.v, e->renders.n);
      e->renders.n = 0;
   }
   e->done_submits++;
   replay_progress_update(&e->progress, e->done_submits, e->cur_frame);
   free(syncs);
   free(buf);
}

static void
end_frame(struct engine *e)
{
   if (!e->frame_has_work)
      return;
   if (e->o->dump_dir && !e->failed && e->renders.n)
      dump_renders(e, e->renders.v, e->renders.n);
   e->renders.n = 0;
   if (e->measuring) {
      struct replay_sample smp = { e->cur_frame, UINT32_MAX, e->frame_gpu_ns, e->frame_cpu_ns };
      replay_timing_add(&e->timing, &smp);
   }
   e->st.frames++;
   e->frame_gpu_ns = e->frame_cpu_ns = 0;
   e->frame_has_work = false;
}

/* ---- the passes ---------------------------------------------------------- */

static bool
is_lifetime_record(uint32_t type)
{
   return type == TSR_REC_VM_CREATE || type == TSR_REC_VM_DESTROY ||
          type == TSR_REC_GEM_CREATE || type == TSR_REC_GEM_CLOSE ||
          type == TSR_REC_BIND_OBJECT || type == TSR_REC_QUEUE_CREATE ||
          type == TSR_REC_QUEUE_DESTROY;
}

/* Runs records until the end of the range. The first pass creates
 * everything; later passes (looping) replay only memory and work. */
static void
run_pass(struct engine *e, bool first)
{
   struct tsr_record rec;
   bool in_range = false;
   while (!e->failed) {
      int r = tsr_reader_next(e->r, &rec);
      if (r < 0) {
         fail(e, "%s: %s", e->path, tsr_reader_error(e->r));
         break;
      }
      if (r == 0)
         break;
      if (rec.frame > e->o->last_frame)
         break;
      if (rec.frame != e->cur_frame) {
         end_frame(e);
         e->cur_frame = rec.frame;
      }
      in_range = rec.frame >= e->o->first_frame;
      if (!first && is_lifetime_record(rec.type))
         continue;
      switch (rec.type) {
      case TSR_REC_DEVICE_PARAMS:
         check_params(e, rec.u.params.p);
         break;
      case TSR_REC_VM_CREATE:
         do_vm_create(e, rec.file, &rec.u.vm_create);
         break;
      case TSR_REC_VM_DESTROY:
         if (!e->looping) {
            struct idmap *vm = find_id(e->vms.v, e->vms.n, rec.file, rec.u.vm_id);
            if (vm) {
               struct drm_asahi_vm_destroy d = { .vm_id = vm->new_id };
               replay_ioctl(e->b, DRM_IOCTL_ASAHI_VM_DESTROY, &d);
               vm->live = false;
            }
         }
         break;
      case TSR_REC_VM_BIND:
         do_vm_bind(e, rec.file, &rec.u.vm_bind);
         break;
      case TSR_REC_GEM_CREATE:
         do_gem_create(e, rec.file, &rec.u.gem_create);
         break;
      case TSR_REC_GEM_CLOSE:
         if (!e->looping) {
            int obj = find_obj(e, rec.file, rec.u.handle);
            if (obj >= 0) {
               drop_all_pending(e, obj);
               close_obj(e, obj);
            }
         }
         break;
      case TSR_REC_BIND_OBJECT:
         do_bind_object(e, rec.file, &rec.u.bind_object);
         break;
      case TSR_REC_QUEUE_CREATE:
         do_queue_create(e, rec.file, &rec.u.queue_create);
         break;
      case TSR_REC_QUEUE_DESTROY:
         if (!e->looping) {
            struct idmap *q = find_id(e->queues.v, e->queues.n, rec.file, rec.u.queue_id);
            if (q) {
               struct drm_asahi_queue_destroy d = { .queue_id = q->new_id };
               replay_ioctl(e->b, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &d);
               q->live = false;
            }
         }
         break;
      case TSR_REC_MEMORY:
         do_memory(e, &rec);
         break;
      case TSR_REC_SUBMIT:
         if (in_range)
            do_submit(e, &rec);
         break;
      default:
         break;   /* metadata, completions, firmware jobs, shaders */
      }
   }
   /* Pages the trace never recorded again cannot be checked. */
   drop_all_pending(e, -1);
   end_frame(e);
}

/* Before a looped pass: every object back to its recorded content at the
 * start of the range (objects made later in the range start zeroed). */
static void
restore_range_start(struct engine *e)
{
   int r = e->o->first_frame ? tsr_reader_seek_frame(e->r, e->o->first_frame)
                             : tsr_reader_rewind(e->r);
   if (r) {
      fail(e, "%s: cannot seek to frame %u: %s", e->path, e->o->first_frame,
           tsr_reader_error(e->r));
      return;
   }
   for (unsigned i = 0; i < e->objs.n; i++) {
      struct obj *o = &e->objs.v[i];
      if (!o->live)
         continue;
      size_t got = tsr_reader_read_object(e->r, o->file, o->handle, 0, o->map, o->size);
      if (got < o->size)
         memset(o->map + got, 0, o->size - got);
   }
   e->cur_frame = e->o->first_frame;
}

static bool
setup(struct engine *e)
{
   struct drm_asahi_get_params gp = { .pointer = (uintptr_t)&e->params,
                                      .size = sizeof(e->params) };
   int r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_GET_PARAMS, &gp);
   if (r) {
      fail(e, "GET_PARAMS on the %s backend failed: %s", e->b->name, strerror(-r));
      return false;
   }
   struct drm_syncobj_create sc = { 0 };
   if (replay_ioctl(e->b, DRM_IOCTL_SYNCOBJ_CREATE, &sc)) {
      fail(e, "SYNCOBJ_CREATE failed");
      return false;
   }
   e->done_sync = sc.handle;
   struct drm_asahi_gem_create gc = { .size = TS_BUF_BYTES };
   if ((r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_GEM_CREATE, &gc))) {
      fail(e, "cannot create the timestamp buffer: %s", strerror(-r));
      return false;
   }
   e->ts_gem = gc.handle;
   e->ts_map = e->b->map(e->b, gc.handle, TS_BUF_BYTES);
   struct drm_asahi_gem_bind_object bo = { .op = DRM_ASAHI_BIND_OBJECT_OP_BIND,
                                           .flags = DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS,
                                           .handle = gc.handle, .range = TS_BUF_BYTES };
   if (!e->ts_map || (r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &bo))) {
      fail(e, "cannot set up the timestamp buffer");
      return false;
   }
   e->ts_object = bo.object_handle;
   return true;
}

static void
teardown(struct engine *e)
{
   for (unsigned i = 0; i < e->objs.n; i++)
      if (e->objs.v[i].live)
         close_obj(e, (int)i);
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
   for (unsigned i = 0; i < e->syncs.n; i++) {
      struct drm_syncobj_destroy d = { .handle = e->syncs.v[i].new_id };
      replay_ioctl(e->b, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
   }
   if (e->ts_map)
      e->b->unmap(e->b, e->ts_map, TS_BUF_BYTES);
   if (e->ts_gem) {
      struct drm_gem_close gc = { .handle = e->ts_gem };
      replay_ioctl(e->b, DRM_IOCTL_GEM_CLOSE, &gc);
   }
   if (e->done_sync) {
      struct drm_syncobj_destroy d = { .handle = e->done_sync };
      replay_ioctl(e->b, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
   }
   free(e->objs.v);
   free(e->vms.v);
   free(e->queues.v);
   free(e->syncs.v);
   free(e->tsobjs.v);
   for (unsigned i = 0; i < e->maps.n; i++)
      uapi_vm_map_free(&e->maps.v[i].map);
   free(e->maps.v);
   free(e->pending.v);
   free(e->renders.v);
   free(e->overridden.v);
   replay_timing_free(&e->timing);
}

void
replay_options_init(struct replay_options *o)
{
   memset(o, 0, sizeof(*o));
   o->last_frame = UINT32_MAX;
}

enum replay_status
replay_run(const char *trace_path, struct replay_backend *b, const struct replay_options *o,
           struct replay_stats *st)
{
   struct engine e = { .o = o, .b = b, .path = trace_path, .log = o->log ? o->log : stderr };
   e.st.validated_ok = true;
   char err[512];
   if (tsr_reader_open(&e.r, trace_path, err, sizeof(err))) {
      fprintf(e.log, "tessera replay: %s\n", err);
      if (st)
         memset(st, 0, sizeof(*st));
      return REPLAY_ERROR;
   }
   const struct tsr_info *info = tsr_reader_info(e.r);
   if (info->truncated)
      warn(&e, "%s is truncated; replaying what it holds", trace_path);
   if (o->first_frame > o->last_frame)
      fail(&e, "empty frame range %u-%u", o->first_frame, o->last_frame);
   if (o->dump_dir) {
      struct stat sb;
      if (stat(o->dump_dir, &sb) != 0 && mkdir(o->dump_dir, 0777) != 0)
         fail(&e, "%s: %s", o->dump_dir, strerror(errno));
   }
   e.progress.enabled = o->progress;
   e.progress.total = info->submits * (o->loops ? o->loops + 1 : 1);
   e.looping = o->loops > 0;
   if (!e.failed && o->num_overrides)
      check_overrides(&e);

   if (!e.failed && setup(&e)) {
      /* Pass 0 is the plain replay, or the warm-up when looping. */
      e.measuring = !e.looping && o->timing_path;
      uint64_t t0 = replay_now_ns();
      run_pass(&e, true);
      e.st.cpu_ns = replay_now_ns() - t0;
      if (e.measuring && !replay_timing_end_pass(&e.timing))
         fail(&e, "internal: timing pass shape");
      for (unsigned p = 0; p < o->loops && !e.failed; p++) {
         restore_range_start(&e);
         e.measuring = true;
         e.st.gpu_ns = 0;
         t0 = replay_now_ns();
         run_pass(&e, false);
         e.st.cpu_ns = replay_now_ns() - t0;
         if (!e.failed && !replay_timing_end_pass(&e.timing))
            fail(&e, "pass %u ran different work than the first", p + 1);
      }
      if (!e.failed && o->timing_path &&
          !replay_timing_write(&e.timing, o->timing_path, trace_path, b->name,
                               e.looping ? 1 : 0, err, sizeof(err)))
         fail(&e, "%s", err);
   }
   replay_progress_end(&e.progress);
   teardown(&e);
   tsr_reader_close(e.r);
   if (st)
      *st = e.st;
   return e.status;
}
