/* SPDX-License-Identifier: MIT */
/*
 * Shader indexing of a SUBMIT (uapi_shaders.h): which USC code ranges its
 * commands can run, each with its size and content hash.
 *
 * Streams are walked by agx_decode's visitor, the same walker that prints
 * them, so the index and `tessera dump` can never disagree about what a
 * stream reaches. The uAPI structs add what the streams do not name: a
 * render pass's tile programs and the helper programs. Sizes come from
 * decoding the code (agx_decode_shader_size), which costs more than the
 * walk, hence the (va -> size, hash) cache.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "uapi/uapi_shaders.h"
#include "uapi/uapi_cmdbuf.h"

/* bg/eot and helper words carry a tag in their low bits; the programs they
 * name are 64-byte aligned like every USC word list. */
#define USC_TAG_MASK 63u

const char *
uapi_shader_stage_name(uint32_t stage)
{
   static const char *const names[] = {
      [TSR_STAGE_UNKNOWN] = "unknown",     [TSR_STAGE_VERTEX] = "vertex",
      [TSR_STAGE_FRAGMENT] = "fragment",   [TSR_STAGE_COMPUTE] = "compute",
      [TSR_STAGE_BG] = "bg",               [TSR_STAGE_EOT] = "eot",
      [TSR_STAGE_HELPER] = "helper",       [TSR_STAGE_PRESHADER] = "preshader",
      [TSR_STAGE_PARTIAL_BG] = "partial-bg", [TSR_STAGE_PARTIAL_EOT] = "partial-eot",
   };
   return stage < sizeof(names) / sizeof(names[0]) ? names[stage] : "?";
}

static uint32_t
tsr_stage_of(const struct agx_decode_shader_ref *r)
{
   if (r->preshader)
      return TSR_STAGE_PRESHADER;
   switch (r->stage) {
   case AGX_DECODE_STAGE_VERTEX: return TSR_STAGE_VERTEX;
   case AGX_DECODE_STAGE_FRAGMENT: return TSR_STAGE_FRAGMENT;
   case AGX_DECODE_STAGE_COMPUTE: return TSR_STAGE_COMPUTE;
   case AGX_DECODE_STAGE_BG: return TSR_STAGE_BG;
   case AGX_DECODE_STAGE_EOT: return TSR_STAGE_EOT;
   case AGX_DECODE_STAGE_PARTIAL_BG: return TSR_STAGE_PARTIAL_BG;
   case AGX_DECODE_STAGE_PARTIAL_EOT: return TSR_STAGE_PARTIAL_EOT;
   case AGX_DECODE_STAGE_HELPER: return TSR_STAGE_HELPER;
   default: return TSR_STAGE_UNKNOWN;
   }
}

/* ------------------------------------------------------------- cache */

static size_t
slot_of(const struct uapi_shader_cache *c, uint64_t va)
{
   return (size_t)((va * 0x9e3779b97f4a7c15ull) >> 20) & (c->cap - 1);
}

static struct uapi_shader_cache_entry *
cache_find(struct uapi_shader_cache *c, uint64_t va)
{
   if (!c || !c->cap)
      return NULL;
   for (size_t i = slot_of(c, va);; i = (i + 1) & (c->cap - 1)) {
      if (!c->e[i].size)
         return NULL; /* size 0 entries are never stored: empty slot */
      if (c->e[i].va == va)
         return &c->e[i];
   }
}

static void
cache_put(struct uapi_shader_cache *c, uint64_t va, uint32_t size,
          const struct tsr_hash *h)
{
   if (!c || !size)
      return;
   struct uapi_shader_cache_entry *e = cache_find(c, va);
   if (e) {
      e->size = size;
      e->hash = *h;
      return;
   }
   if ((c->count + 1) * 2 > c->cap) {
      size_t ncap = c->cap ? c->cap * 2 : 64;
      struct uapi_shader_cache_entry *n = calloc(ncap, sizeof(*n));
      if (!n)
         return; /* a cache miss later, nothing worse */
      struct uapi_shader_cache old = *c;
      c->e = n;
      c->cap = ncap;
      for (size_t i = 0; i < old.cap; i++) {
         if (!old.e[i].size)
            continue;
         size_t j = slot_of(c, old.e[i].va);
         while (c->e[j].size)
            j = (j + 1) & (ncap - 1);
         c->e[j] = old.e[i];
      }
      free(old.e);
   }
   size_t j = slot_of(c, va);
   while (c->e[j].size)
      j = (j + 1) & (c->cap - 1);
   c->e[j] = (struct uapi_shader_cache_entry){ va, size, *h };
   c->count++;
}

void
uapi_shader_cache_free(struct uapi_shader_cache *c)
{
   free(c->e);
   memset(c, 0, sizeof(*c));
}

void
uapi_shader_list_free(struct uapi_shader_list *l)
{
   free(l->v);
   memset(l, 0, sizeof(*l));
}

/* ------------------------------------------------------------- scan */

struct scan {
   const struct agx_decode_options *o;
   struct uapi_shader_cache *cache;
   struct uapi_shader_list *out;
   size_t first;        /* entries of this call start here */
   uint32_t cmd;
   int errors;
   bool oom;
};

/* Hash of `size` bytes at va, or false if they are not all readable. */
static bool
hash_code(const struct agx_decode_options *o, uint64_t va, uint32_t size,
          struct tsr_hash *h)
{
   uint8_t stackbuf[2048];
   uint8_t *code = size <= sizeof(stackbuf) ? stackbuf : malloc(size);
   if (!code)
      return false;
   bool ok = o->read(o->read_ctx, va, code, size) >= size;
   if (ok)
      *h = tsr_hash_bytes(code, size);
   if (code != stackbuf)
      free(code);
   return ok;
}

static void
measure(struct scan *s, struct uapi_shader *sh)
{
   struct uapi_shader_cache_entry *e = cache_find(s->cache, sh->va);
   if (e) {
      struct tsr_hash h;
      if (hash_code(s->o, sh->va, e->size, &h) && !memcmp(h.b, e->hash.b, 16)) {
         s->cache->hits++;
         sh->size = e->size;
         sh->hash = h;
         return;
      }
   }
   if (s->cache)
      s->cache->misses++;
   sh->size = (uint32_t)agx_decode_shader_size(s->o, sh->va, UAPI_SHADER_MAX_BYTES,
                                               &sh->why);
   if (!sh->size || !hash_code(s->o, sh->va, sh->size, &sh->hash)) {
      if (!sh->why)
         sh->why = "code changed while it was read";
      sh->size = 0;
      sh->hash = tsr_hash_bytes(NULL, 0);
      s->errors++;
      return;
   }
   cache_put(s->cache, sh->va, sh->size, &sh->hash);
}

static void
add(struct scan *s, uint64_t va, uint32_t stage)
{
   struct uapi_shader_list *l = s->out;
   /* Submissions name few distinct shaders (many draws share them), so a
    * linear search over this call's entries is cheap. */
   for (size_t i = s->first; i < l->count; i++)
      if (l->v[i].va == va)
         return;
   if (l->count - s->first >= UAPI_SHADER_MAX_PER_SUBMIT)
      return;
   if (l->count == l->cap) {
      size_t ncap = l->cap ? l->cap * 2 : 16;
      struct uapi_shader *n = realloc(l->v, ncap * sizeof(*n));
      if (!n) {
         s->oom = true;
         return;
      }
      l->v = n;
      l->cap = ncap;
   }
   struct uapi_shader *sh = &l->v[l->count++];
   *sh = (struct uapi_shader){ .stage = stage, .cmd = s->cmd, .va = va };
   measure(s, sh);
}

static void
on_shader(void *ctx, const struct agx_decode_shader_ref *r)
{
   add(ctx, r->va, tsr_stage_of(r));
}

static void
visit_pipeline(struct scan *s, const struct agx_decode_visitor *v, uint32_t word,
               enum agx_decode_stage stage)
{
   if (!word)
      return;
   struct agx_decode_result res;
   agx_decode_visit_pipeline(s->o, word & ~USC_TAG_MASK, stage, v, &res);
   s->errors += (int)res.errors;
}

static void
visit_stream(struct scan *s, const struct agx_decode_visitor *v,
             enum agx_decode_stream_kind kind, uint64_t va)
{
   struct agx_decode_result res;
   if (!agx_decode_visit_stream(s->o, kind, va, v, &res))
      s->errors++;
}

int
uapi_cmdbuf_shaders(const uint8_t *buf, size_t size, uint64_t usc_base,
                   agx_decode_read_fn read, void *read_ctx,
                   struct uapi_shader_cache *cache, struct uapi_shader_list *out)
{
   struct agx_decode_options o = {
      .read = read, .read_ctx = read_ctx, .usc_base = usc_base,
      .max_shader_bytes = UAPI_SHADER_MAX_BYTES,
   };
   struct scan s = { .o = &o, .cache = cache, .out = out, .first = out->count };
   struct agx_decode_visitor v = { .shader = on_shader, .ctx = &s };
   struct uapi_cmd_iter it;
   struct uapi_cmd c;
   uapi_cmd_iter_init(&it, buf, size);
   while (!s.oom && uapi_cmd_next(&it, &c)) {
      s.cmd = c.index;
      if (c.h.cmd_type == DRM_ASAHI_CMD_RENDER) {
         const struct drm_asahi_cmd_render *r = &c.u.render;
         visit_stream(&s, &v, AGX_DECODE_VDM, r->vdm_ctrl_stream_base);
         visit_pipeline(&s, &v, r->bg.usc, AGX_DECODE_STAGE_BG);
         visit_pipeline(&s, &v, r->eot.usc, AGX_DECODE_STAGE_EOT);
         visit_pipeline(&s, &v, r->partial_bg.usc, AGX_DECODE_STAGE_PARTIAL_BG);
         visit_pipeline(&s, &v, r->partial_eot.usc, AGX_DECODE_STAGE_PARTIAL_EOT);
         /* Helper programs are code, not word lists. */
         if (r->vertex_helper.binary)
            add(&s, usc_base + (r->vertex_helper.binary & ~USC_TAG_MASK), TSR_STAGE_HELPER);
         if (r->fragment_helper.binary)
            add(&s, usc_base + (r->fragment_helper.binary & ~USC_TAG_MASK),
                TSR_STAGE_HELPER);
      } else if (c.h.cmd_type == DRM_ASAHI_CMD_COMPUTE) {
         const struct drm_asahi_cmd_compute *cc = &c.u.compute;
         visit_stream(&s, &v, AGX_DECODE_CDM, cc->cdm_ctrl_stream_base);
         if (cc->helper.binary)
            add(&s, usc_base + (cc->helper.binary & ~USC_TAG_MASK), TSR_STAGE_HELPER);
      }
   }
   int ret = uapi_cmd_iter_failed(&it) ? -EINVAL : 0;
   if (s.oom)
      return -ENOMEM;
   return ret ? ret : s.errors;
}
