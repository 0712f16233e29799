/* SPDX-License-Identifier: MIT */
/*
 * --override-shader: before the replay, each override is checked against
 * the trace's shader index (it must replace a shader the trace has and not
 * spill over another); before every SUBMIT, its code is written through
 * every live VM, and the bytes it covers are remembered so that validation
 * does not report them.
 */
#include <string.h>

#include "replay/replay_engine.h"
#include "uapi/uapi_shaders.h"

void
replay_apply_overrides(struct replay_engine *e)
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
            uint8_t *p = replay_va_to_host(e, e->vms.v[v].file, e->vms.v[v].id, va, &avail);
            if (!p)
               break;
            size_t n = avail < left ? (size_t)avail : left;
            memcpy(p, src, n);
            struct replay_obj_range rg = { .size = n };
            rg.obj = replay_obj_of_host(e, p, &rg.offset);
            REPLAY_VEC_PUSH(e->overridden, rg);
            src += n, va += n, left -= n;
         }
      }
   }
}

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
load_index(struct replay_engine *e, struct shader_index *ix)
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
void
replay_check_overrides(struct replay_engine *e)
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
         replay_fail(e, "--override-shader: no shader at 0x%llx in the trace's shader index "
                     "(%zu shaders; `tessera info --shaders` lists them)",
                     (unsigned long long)ov->va, ix.n);
         break;
      }
      if (ov->size <= hit->size || !hit->size)
         continue;
      for (size_t i = 0; i < ix.n; i++) {
         if (&ix.v[i] != hit && ix.v[i].va > ov->va && ix.v[i].va < ov->va + ov->size) {
            replay_fail(e, "--override-shader: %zu bytes at 0x%llx would overwrite the shader at "
                        "0x%llx (the original is %u bytes)", ov->size, (unsigned long long)ov->va,
                        (unsigned long long)ix.v[i].va, hit->size);
            break;
         }
      }
      if (!e->failed)
         replay_warn(e, "--override-shader: %zu bytes at 0x%llx replace a %u-byte shader: "
                     "%zu bytes after it are overwritten too", ov->size, (unsigned long long)ov->va,
                     hit->size, ov->size - hit->size);
   }
   free(ix.v);
}
