/* SPDX-License-Identifier: MIT */
/*
 * tsr_minimize (trace/trace_minimize.h): ddmin over submissions, then over
 * the draws and dispatches of those kept, then a trim. Each candidate is one
 * forward pass over the input through the writer (as tsr_trim does), so it
 * keeps every invariant of the format; the input is never modified in
 * place. It walks the VDM/CDM streams with cmdstream's decoder, which is why
 * it lives in libtraceprint and not in libtrace.
 */
#include "trace/trace_minimize.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmdstream/agx_decode.h"
#include "cmdstream/agx_pack.h"
#include "trace/trace.h"
#include "trace/trace_trim.h"
#include "uapi/uapi_cmdbuf.h"

static void
seterr(char *err, size_t errlen, const char *fmt, ...)
{
   if (!errlen)
      return;
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(err, errlen, fmt, ap);
   va_end(ap);
}

struct patch_page {
   uint32_t file, handle;
   uint64_t off;   /* page-aligned byte offset into the object */
   uint64_t len;   /* bytes of the object from off, at most TSR_PAGE_SIZE */
   uint8_t orig[TSR_PAGE_SIZE], data[TSR_PAGE_SIZE];
};

struct filt {
   struct tsr_reader *r;
   struct tsr_writer *w;
   const char *in;
   uint8_t *buf;
   size_t cap;
   char *err;
   size_t errlen;
   /* the pages the dropped draws of the current submission rewrite */
   struct patch_page *pages;
   uint32_t npages, pages_cap;
};

/* The pages of a MEMORY record, from the input's page store to the writer. */
static int
copy_memory(struct filt *f, const struct tsr_record *rec)
{
   uint32_t file = rec->file, handle = rec->u.memory.handle, n = rec->u.memory.num_pages;
   uint64_t size = tsr_reader_object_size(f->r, file, handle);
   uint64_t off = rec->u.memory.first_page * TSR_PAGE_SIZE;
   if (!n || off >= size)
      return 0;
   size_t need = (size_t)n * TSR_PAGE_SIZE;
   if (need > f->cap) {
      uint8_t *b = realloc(f->buf, need);
      if (!b) {
         seterr(f->err, f->errlen, "out of memory");
         return -1;
      }
      f->buf = b, f->cap = need;
   }
   for (uint32_t i = 0; i < n; i++) {
      struct tsr_hash h;
      memcpy(h.b, rec->u.memory.hashes + 16 * (size_t)i, 16);
      if (tsr_reader_page(f->r, &h, f->buf + (size_t)i * TSR_PAGE_SIZE)) {
         seterr(f->err, f->errlen, "%s is damaged: a page of GEM object %u is not stored",
                f->in, handle);
         return -1;
      }
   }
   uint64_t len = need < size - off ? need : size - off;
   return tsr_write_memory(f->w, file, handle, off, f->buf, len);
}

/* new number of input submission seq; UINT32_MAX if dropped */
static uint32_t
map_seq(const uint32_t *map, uint32_t n, uint32_t seq)
{
   return seq < n ? map[seq] : UINT32_MAX;
}

/* The page of (file, handle) holding byte `off`, read as of the reader's
 * position into f->pages (once per submission); NULL on failure (err set). */
static struct patch_page *
patch_page(struct filt *f, uint32_t file, uint32_t handle, uint64_t off)
{
   uint64_t po = off - off % TSR_PAGE_SIZE;
   for (uint32_t i = 0; i < f->npages; i++)
      if (f->pages[i].file == file && f->pages[i].handle == handle && f->pages[i].off == po)
         return &f->pages[i];
   uint64_t size = tsr_reader_object_size(f->r, file, handle);
   if (off >= size) {
      seterr(f->err, f->errlen, "%s: a draw to drop lies outside GEM object %u", f->in, handle);
      return NULL;
   }
   if (f->npages == f->pages_cap) {
      uint32_t cap = f->pages_cap ? f->pages_cap * 2 : 4;
      struct patch_page *p = realloc(f->pages, cap * sizeof(*p));
      if (!p) {
         seterr(f->err, f->errlen, "out of memory");
         return NULL;
      }
      f->pages = p, f->pages_cap = cap;
   }
   struct patch_page *pg = &f->pages[f->npages++];
   pg->file = file, pg->handle = handle, pg->off = po;
   pg->len = size - po < TSR_PAGE_SIZE ? size - po : TSR_PAGE_SIZE;
   memset(pg->orig, 0, sizeof(pg->orig));
   tsr_reader_read_object(f->r, file, handle, po, pg->orig, (size_t)pg->len);
   memcpy(pg->data, pg->orig, sizeof(pg->data));
   return pg;
}

/* The bytes that turn a draw or dispatch into one that does nothing: a
 * count of 0 for a draw, a global size of 0x0x0 for a direct dispatch,
 * packed from the stream's XML descriptions. Returns the byte count. */
static size_t
noop_words(const struct tsr_min_draw *d, uint8_t out[12])
{
   if (!d->dispatch) {
      agx_pack(out, INDEX_LIST_COUNT, c) {
         c.count = 0;
      }
      return AGX_INDEX_LIST_COUNT_LENGTH;
   }
   agx_pack(out, CDM_GLOBAL_SIZE, g) {
      g.x = 0;
      g.y = 0;
      g.z = 0;
   }
   return AGX_CDM_GLOBAL_SIZE_LENGTH;
}

/* Before SUBMIT `rec` (input seq `seq`): rewrites the dropped draws of that
 * submission into no-ops in the pages that hold them, recorded as MEMORY
 * records. 0 or -1 (err set). */
static int
patch_before(struct filt *f, const struct tsr_record *rec, uint32_t seq,
             const struct tsr_min_draw *drop, uint32_t ndrop)
{
   f->npages = 0;
   uint32_t vm = 0;
   uint64_t usc;
   bool have_vm = false;
   for (uint32_t i = 0; i < ndrop; i++) {
      if (drop[i].seq != seq || !drop[i].count_va)
         continue;
      if (!have_vm && !tsr_reader_queue(f->r, rec->file, rec->u.submit.queue_id, &vm, &usc)) {
         seterr(f->err, f->errlen, "%s: submission %u names an unknown queue", f->in, seq);
         return -1;
      }
      have_vm = true;
      uint8_t words[12];
      size_t nb = noop_words(&drop[i], words);
      for (size_t b = 0; b < nb; b++) {
         uint32_t h;
         uint64_t off;
         if (!tsr_reader_va_object(f->r, rec->file, vm, drop[i].count_va + b, &h, &off, NULL)) {
            seterr(f->err, f->errlen, "%s: the draw at 0x%" PRIx64 " of submission %u is unmapped",
                   f->in, drop[i].va, seq);
            return -1;
         }
         struct patch_page *pg = patch_page(f, rec->file, h, off);
         if (!pg)
            return -1;
         pg->data[off - pg->off] = words[b];
      }
   }
   for (uint32_t i = 0; i < f->npages; i++) {
      struct patch_page *pg = &f->pages[i];
      int e = tsr_write_memory(f->w, pg->file, pg->handle, pg->off, pg->data, pg->len);
      if (e)
         return e;
   }
   return 0;
}

/* After the SUBMIT: the pages as the input has them again, so that a later
 * submission reusing the stream memory sees the recorded draws (replay waits
 * for each submission, so the no-ops are read before this record). */
static int
patch_after(struct filt *f)
{
   for (uint32_t i = 0; i < f->npages; i++) {
      struct patch_page *pg = &f->pages[i];
      int e = tsr_write_memory(f->w, pg->file, pg->handle, pg->off, pg->orig, pg->len);
      if (e)
         return e;
   }
   f->npages = 0;
   return 0;
}

int
tsr_filter_submits(const char *in, const char *out, const bool *keep, uint32_t n, char *err,
                   size_t errlen)
{
   return tsr_filter(in, out, keep, n, NULL, 0, err, errlen);
}

int
tsr_filter(const char *in, const char *out, const bool *keep, uint32_t n,
           const struct tsr_min_draw *drop, uint32_t ndrop, char *err, size_t errlen)
{
   struct filt f = { .in = in, .err = err, .errlen = errlen };
   char rerr[512];
   if (tsr_reader_open(&f.r, in, rerr, sizeof(rerr))) {
      seterr(err, errlen, "%s", rerr);
      return -1;
   }
   /* map[i]: OUT's number for input submission i; next[i]: the number of
    * the first kept submission at or after i (for shaders). */
   uint32_t *map = calloc(n + 1, sizeof(*map)), *next = calloc(n + 1, sizeof(*next));
   int rc = -1;
   if (!map || !next) {
      seterr(err, errlen, "out of memory");
      goto out;
   }
   uint32_t k = 0;
   for (uint32_t i = 0; i < n; i++)
      map[i] = keep[i] ? k++ : UINT32_MAX;
   next[n] = k;
   for (uint32_t i = n; i-- > 0;)
      next[i] = keep[i] ? map[i] : next[i + 1];
   struct tsr_writer_options wo = { .quiet = true };
   int e = tsr_writer_open(&f.w, out, &wo);
   if (e) {
      seterr(err, errlen, "%s: %s", out, strerror(-e));
      goto out;
   }
   struct tsr_record rec;
   for (;;) {
      int r = tsr_reader_next(f.r, &rec);
      if (r < 0) {
         seterr(err, errlen, "%s is damaged: %s", in, tsr_reader_error(f.r));
         e = -EBADMSG;
         break;
      }
      if (r == 0)
         break;
      uint32_t fl = rec.file;
      switch (rec.type) {
      case TSR_REC_META: e = tsr_write_meta(f.w, rec.u.meta.key, rec.u.meta.value); break;
      case TSR_REC_DEVICE_PARAMS: {
         uint32_t sz = rec.u.params.size;
         if (sz > sizeof(struct drm_asahi_params_global))
            sz = sizeof(struct drm_asahi_params_global);
         e = tsr_write_device_params(f.w, fl, rec.u.params.p, sz);
         break;
      }
      case TSR_REC_DRIVER: e = tsr_write_driver(f.w, fl, &rec.u.driver); break;
      case TSR_REC_VM_CREATE: e = tsr_write_vm_create(f.w, fl, &rec.u.vm_create); break;
      case TSR_REC_VM_DESTROY: e = tsr_write_vm_destroy(f.w, fl, rec.u.vm_id); break;
      case TSR_REC_VM_BIND: e = tsr_write_vm_bind(f.w, fl, &rec.u.vm_bind); break;
      case TSR_REC_GEM_CREATE: e = tsr_write_gem_create(f.w, fl, &rec.u.gem_create); break;
      case TSR_REC_GEM_CLOSE: e = tsr_write_gem_close(f.w, fl, rec.u.handle); break;
      case TSR_REC_BIND_OBJECT: e = tsr_write_bind_object(f.w, fl, &rec.u.bind_object); break;
      case TSR_REC_QUEUE_CREATE: e = tsr_write_queue_create(f.w, fl, &rec.u.queue_create); break;
      case TSR_REC_QUEUE_DESTROY: e = tsr_write_queue_destroy(f.w, fl, rec.u.queue_id); break;
      case TSR_REC_SUBMIT:
         if (map_seq(map, n, rec.seq) != UINT32_MAX) {
            e = patch_before(&f, &rec, rec.seq, drop, ndrop);
            if (!e)
               e = tsr_write_submit(f.w, fl, &rec.u.submit, NULL);
            if (!e)
               e = patch_after(&f);
         }
         break;
      case TSR_REC_MEMORY: e = copy_memory(&f, &rec); break;
      case TSR_REC_COMPLETION: {
         struct tsr_completion c = rec.u.completion;
         c.seq = map_seq(map, n, c.seq);
         if (c.seq != UINT32_MAX)
            e = tsr_write_completion(f.w, fl, &c);
         break;
      }
      case TSR_REC_FRAME: e = tsr_write_frame(f.w, rec.u.frame.kind, rec.u.frame.label); break;
      case TSR_REC_FW_JOB: {
         struct tsr_fw_job j = rec.u.fw_job;
         if (j.seq != UINT32_MAX) {
            j.seq = map_seq(map, n, j.seq);
            if (j.seq == UINT32_MAX)
               break;
         }
         e = tsr_write_fw_job(f.w, fl, &j);
         break;
      }
      case TSR_REC_SHADER: {
         struct tsr_shader s = rec.u.shader;
         s.seq = s.seq < n ? next[s.seq] : k;
         e = tsr_write_shader(f.w, fl, &s);
         break;
      }
      default: break; /* unknown record types are left out, as tsr_trim does */
      }
      if (e)
         break;
   }
   if (e && e != -1 && e != -EBADMSG && !*err)
      seterr(err, errlen, "writing %s: %s", out, strerror(-e));
   int ce = tsr_writer_close(f.w);
   if (!e && ce) {
      seterr(err, errlen, "writing %s: %s", out, strerror(-ce));
      e = ce;
   }
   if (!e && tsr_reader_info(f.r)->damage) {
      seterr(err, errlen, "%s is damaged: %s", in, tsr_reader_damage(f.r));
      e = -EBADMSG;
   }
   if (e)
      unlink(out);
   else
      rc = 0;
out:
   free(map);
   free(next);
   free(f.buf);
   free(f.pages);
   tsr_reader_close(f.r);
   return rc;
}

/* ---- the draws of a trace -------------------------------------------- */

struct draw_list {
   struct tsr_min_draw *v;
   uint32_t n, cap;
   uint32_t seq, cmd;
   bool failed;
};

struct list_va {
   struct tsr_reader *r;
   uint32_t file, vm;
};

static size_t
list_read_va(void *ctx, uint64_t va, void *dst, size_t size)
{
   struct list_va *c = ctx;
   return tsr_reader_read_va(c->r, c->file, c->vm, va, dst, size);
}

static void
on_draw(void *ctx, const struct agx_decode_draw_ref *ref)
{
   struct draw_list *l = ctx;
   /* A block reached twice (a subroutine called twice) is one unit: its
    * words are rewritten once for every call. */
   for (uint32_t i = l->n; i-- > 0 && l->v[i].seq == l->seq;)
      if (l->v[i].va == ref->va)
         return;
   if (l->n == l->cap) {
      uint32_t cap = l->cap ? l->cap * 2 : 64;
      struct tsr_min_draw *v = realloc(l->v, cap * sizeof(*v));
      if (!v) {
         l->failed = true;
         return;
      }
      l->v = v, l->cap = cap;
   }
   l->v[l->n++] = (struct tsr_min_draw){
      .seq = l->seq, .cmd = l->cmd, .dispatch = ref->kind == AGX_DECODE_CDM, .va = ref->va,
      .count_va = ref->count_va, .count = { ref->count[0], ref->count[1], ref->count[2] },
   };
}

int
tsr_list_draws(const char *in, struct tsr_min_draw **out, uint32_t *n, char *err, size_t errlen)
{
   *out = NULL;
   *n = 0;
   struct tsr_reader *r;
   char rerr[512];
   if (tsr_reader_open(&r, in, rerr, sizeof(rerr))) {
      seterr(err, errlen, "%s", rerr);
      return -1;
   }
   struct draw_list l = { 0 };
   struct tsr_record rec;
   int rc = 0, e;
   while ((e = tsr_reader_next(r, &rec)) > 0 && !l.failed) {
      if (rec.type != TSR_REC_SUBMIT)
         continue;
      uint32_t vm;
      uint64_t usc;
      if (!tsr_reader_queue(r, rec.file, rec.u.submit.queue_id, &vm, &usc))
         continue; /* nothing to walk: its draws stay */
      struct list_va ctx = { r, rec.file, vm };
      struct agx_decode_options o = { .read = list_read_va, .read_ctx = &ctx, .usc_base = usc };
      struct agx_decode_visitor v = { .ctx = &l, .draw = on_draw };
      struct uapi_cmd_iter it;
      struct uapi_cmd c;
      l.seq = (uint32_t)rec.seq;
      uapi_cmd_iter_init(&it, rec.u.submit.cmdbuf, rec.u.submit.cmdbuf_size);
      while (uapi_cmd_next(&it, &c)) {
         l.cmd = c.index;
         if (c.h.cmd_type == DRM_ASAHI_CMD_RENDER)
            agx_decode_visit_stream(&o, AGX_DECODE_VDM, c.u.render.vdm_ctrl_stream_base, &v, NULL);
         else if (c.h.cmd_type == DRM_ASAHI_CMD_COMPUTE)
            agx_decode_visit_stream(&o, AGX_DECODE_CDM, c.u.compute.cdm_ctrl_stream_base, &v,
                                    NULL);
      }
   }
   if (e < 0) {
      seterr(err, errlen, "%s is damaged: %s", in, tsr_reader_error(r));
      rc = -1;
   } else if (l.failed) {
      seterr(err, errlen, "out of memory");
      rc = -1;
   }
   tsr_reader_close(r);
   if (rc)
      free(l.v);
   else
      *out = l.v, *n = l.n;
   return rc;
}

int
tsr_min_window_frame(const char *trace, uint64_t *frame)
{
   *frame = 0;
   struct tsr_reader *r;
   char rerr[512];
   if (tsr_reader_open(&r, trace, rerr, sizeof(rerr)))
      return -1;
   struct tsr_record rec;
   /* the METAs come first; the last capture_window among them counts */
   while (tsr_reader_next(r, &rec) > 0 && rec.type == TSR_REC_META) {
      unsigned long long f, s;
      if (!strcmp(rec.u.meta.key, "capture_window") &&
          sscanf(rec.u.meta.value, "frame %llu submission %llu", &f, &s) == 2)
         *frame = f;
   }
   tsr_reader_close(r);
   return 0;
}

/* ---- ddmin ------------------------------------------------------------- */

struct mini;
/* Writes the candidate of `set` (units of the current pass) to m->cand. */
typedef int (*build_fn)(struct mini *m, const uint32_t *set, uint32_t len);

struct mini {
   const char *in, *cand;
   uint32_t n;     /* submissions of `in` */
   bool *keep;
   /* the draw pass: draws[] of `in`; units index rw[] (the rewritable ones) */
   struct tsr_min_draw *draws, *drop;
   uint32_t ndraws, *rw, nrw;
   bool *dkeep;
   const char *unit;
   build_fn build;
   tsr_min_predicate pred;
   void *ctx;
   FILE *log;
   struct tsr_min_stats *st;
   char *err;
   size_t errlen;
};

static int
build_submits(struct mini *m, const uint32_t *set, uint32_t len)
{
   memset(m->keep, 0, m->n * sizeof(*m->keep));
   for (uint32_t i = 0; i < len; i++)
      m->keep[set[i]] = true;
   return tsr_filter_submits(m->in, m->cand, m->keep, m->n, m->err, m->errlen);
}

/* The draws not in `set` become no-ops; every submission stays. */
static uint32_t
draws_to_drop(struct mini *m, const uint32_t *set, uint32_t len)
{
   memset(m->dkeep, 0, m->nrw * sizeof(*m->dkeep));
   for (uint32_t i = 0; i < len; i++)
      m->dkeep[set[i]] = true;
   uint32_t k = 0;
   for (uint32_t i = 0; i < m->nrw; i++)
      if (!m->dkeep[i])
         m->drop[k++] = m->draws[m->rw[i]];
   return k;
}

static int
build_draws(struct mini *m, const uint32_t *set, uint32_t len)
{
   uint32_t k = draws_to_drop(m, set, len);
   for (uint32_t i = 0; i < m->n; i++)
      m->keep[i] = true;
   return tsr_filter(m->in, m->cand, m->keep, m->n, m->drop, k, m->err, m->errlen);
}

/* The predicate on the candidate of the given set: 1 holds, 0 not, -1 the
 * predicate failed, -2 the candidate could not be written (err set). */
static int
test_set(struct mini *m, const uint32_t *set, uint32_t len, const char *what)
{
   if (m->build(m, set, len))
      return -2;
   m->st->tests++;
   int r = m->pred(m->ctx, m->cand, m->err, m->errlen);
   if (r < 0)
      r = -1;
   if (m->log) {
      fprintf(m->log, "step %u: %s, %u %s:", m->st->tests, what, len, m->unit);
      for (uint32_t i = 0; i < len && i < 8; i++) {
         if (m->build == build_draws) {
            const struct tsr_min_draw *d = &m->draws[m->rw[set[i]]];
            fprintf(m->log, " %u/0x%" PRIx64, d->seq, d->va);
         } else {
            fprintf(m->log, " %u", set[i]);
         }
      }
      fprintf(m->log, "%s -> %s\n", len > 8 ? " ..." : "",
              r > 0 ? "bug shows" : r == 0 ? "bug gone" : "predicate error");
      fflush(m->log);
   }
   return r;
}

/* ddmin over cur[0..*len) (Zeller): 0 done, or test_set's negative code. */
static int
ddmin(struct mini *m, uint32_t *cur, uint32_t *lenp, uint32_t *tmp)
{
   uint32_t len = *lenp, parts = 2;
   int t;
   while (len >= 2) {
      if (parts > len)
         parts = len;
      bool reduced = false;
      /* chunk i is [len*i/parts, len*(i+1)/parts) */
      for (uint32_t i = 0; i < parts && !reduced; i++) {
         uint32_t lo = (uint32_t)((uint64_t)len * i / parts);
         uint32_t hi = (uint32_t)((uint64_t)len * (i + 1) / parts);
         t = test_set(m, cur + lo, hi - lo, "subset");
         if (t < 0)
            return t;
         if (t) {
            memmove(cur, cur + lo, (hi - lo) * sizeof(*cur));
            len = hi - lo;
            parts = 2;
            reduced = true;
         }
      }
      for (uint32_t i = 0; i < parts && !reduced && parts > 2; i++) {
         uint32_t lo = (uint32_t)((uint64_t)len * i / parts);
         uint32_t hi = (uint32_t)((uint64_t)len * (i + 1) / parts);
         uint32_t k = 0;
         for (uint32_t j = 0; j < len; j++)
            if (j < lo || j >= hi)
               tmp[k++] = cur[j];
         t = test_set(m, tmp, k, "complement");
         if (t < 0)
            return t;
         if (t) {
            memcpy(cur, tmp, k * sizeof(*cur));
            len = k;
            parts = parts - 1 > 2 ? parts - 1 : 2;
            reduced = true;
         }
      }
      if (!reduced) {
         if (parts >= len)
            break; /* 1-minimal */
         parts = parts * 2 < len ? parts * 2 : len;
      }
   }
   *lenp = len;
   return 0;
}

static uint64_t
file_size(const char *path)
{
   struct stat b;
   return stat(path, &b) == 0 ? (uint64_t)b.st_size : 0;
}

static void
count_draws(const struct tsr_min_draw *d, uint32_t n, uint32_t *draws, uint32_t *dispatches)
{
   *draws = *dispatches = 0;
   for (uint32_t i = 0; i < n; i++)
      (d[i].dispatch ? dispatches : draws)[0]++;
}

/* The draw pass over `in` (every submission kept), written to `out`. */
static enum tsr_min_result
minimize_draws(struct mini *m, const char *in, const char *out)
{
   struct tsr_min_stats *st = m->st;
   enum tsr_min_result res = TSR_MIN_OK;
   uint32_t *cur = NULL, *tmp = NULL;
   if (tsr_list_draws(in, &m->draws, &m->ndraws, m->err, m->errlen))
      return TSR_MIN_BAD_INPUT;
   count_draws(m->draws, m->ndraws, &st->in_draws, &st->in_dispatches);
   m->rw = malloc((m->ndraws + 1) * sizeof(*m->rw));
   m->drop = malloc((m->ndraws + 1) * sizeof(*m->drop));
   m->dkeep = malloc((m->ndraws + 1) * sizeof(*m->dkeep));
   cur = malloc((m->ndraws + 1) * sizeof(*cur));
   tmp = malloc((m->ndraws + 1) * sizeof(*tmp));
   if (!m->rw || !m->drop || !m->dkeep || !cur || !tmp) {
      seterr(m->err, m->errlen, "out of memory");
      res = TSR_MIN_WRITE_ERROR;
      goto done;
   }
   m->nrw = 0;
   for (uint32_t i = 0; i < m->ndraws; i++)
      if (m->draws[i].count_va)
         m->rw[m->nrw++] = i;
   st->fixed_draws = m->ndraws - m->nrw;
   m->in = in;
   m->build = build_draws;
   m->unit = "draws/dispatches";
   uint32_t len = m->nrw;
   for (uint32_t i = 0; i < len; i++)
      cur[i] = i;
   /* ddmin takes the empty set as failing; here it need not be (a bug in
    * a background program or in the state shows without any draw), and
    * one predicate run tells. */
   if (len >= 1) {
      int t = test_set(m, cur, 0, "none");
      if (t < 0) {
         res = t == -2 ? TSR_MIN_WRITE_ERROR : TSR_MIN_PRED_ERROR;
         goto done;
      }
      if (t)
         len = 0;
   }
   if (len >= 2) {
      int t = ddmin(m, cur, &len, tmp);
      if (t < 0) {
         res = t == -2 ? TSR_MIN_WRITE_ERROR : TSR_MIN_PRED_ERROR;
         goto done;
      }
   }
   uint32_t k = draws_to_drop(m, cur, len);
   for (uint32_t i = 0; i < m->n; i++)
      m->keep[i] = true;
   if (tsr_filter(in, out, m->keep, m->n, m->drop, k, m->err, m->errlen)) {
      res = TSR_MIN_WRITE_ERROR;
      goto done;
   }
   /* what is left: the kept rewritable units and every fixed one */
   st->out_draws = st->in_draws, st->out_dispatches = st->in_dispatches;
   for (uint32_t i = 0; i < k; i++)
      (m->drop[i].dispatch ? &st->out_dispatches : &st->out_draws)[0]--;
done:
   free(cur);
   free(tmp);
   return res;
}

enum tsr_min_result
tsr_minimize(const char *in, const char *out, const char *work_dir,
             const struct tsr_min_options *opts, tsr_min_predicate pred, void *ctx, FILE *log,
             struct tsr_min_stats *st, char *err, size_t errlen)
{
   static const struct tsr_min_options defaults = { 0 };
   struct tsr_min_stats dummy;
   if (!st)
      st = &dummy;
   if (!opts)
      opts = &defaults;
   memset(st, 0, sizeof(*st));
   if (errlen)
      err[0] = 0;
   struct tsr_reader *r;
   char rerr[512];
   if (tsr_reader_open(&r, in, rerr, sizeof(rerr))) {
      seterr(err, errlen, "%s", rerr);
      return TSR_MIN_BAD_INPUT;
   }
   const struct tsr_info *info = tsr_reader_info(r);
   uint64_t subs = info->submits;
   st->in_bytes = info->file_size;
   bool damaged = info->damage != 0;
   if (damaged)
      seterr(err, errlen, "%s is damaged: %s", in, tsr_reader_damage(r));
   tsr_reader_close(r);
   if (damaged)
      return TSR_MIN_BAD_INPUT;
   if (!subs || subs > UINT32_MAX / 2) {
      seterr(err, errlen, "%s holds no submission", in);
      return TSR_MIN_BAD_INPUT;
   }
   struct stat a, b;
   if (stat(in, &a) == 0 && stat(out, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
      seterr(err, errlen, "the output %s is the input", out);
      return TSR_MIN_BAD_INPUT;
   }

   char cand[4096], subs_path[4096], draws_path[4096];
   snprintf(cand, sizeof(cand), "%s/candidate.tsr", work_dir);
   snprintf(subs_path, sizeof(subs_path), "%s/submissions.tsr", work_dir);
   snprintf(draws_path, sizeof(draws_path), "%s/draws.tsr", work_dir);
   struct mini m = { .in = in, .cand = cand, .n = (uint32_t)subs, .pred = pred, .ctx = ctx,
                     .log = log, .st = st, .err = err, .errlen = errlen,
                     .build = build_submits, .unit = "submissions" };
   st->in_submits = m.n;
   uint32_t *cur = malloc(m.n * sizeof(*cur)), *tmp = malloc(m.n * sizeof(*tmp));
   m.keep = malloc(m.n * sizeof(*m.keep));
   enum tsr_min_result res = TSR_MIN_OK;
   int t;
   if (!cur || !tmp || !m.keep) {
      seterr(err, errlen, "out of memory");
      res = TSR_MIN_WRITE_ERROR;
      goto done;
   }
   uint32_t len = m.n;
   for (uint32_t i = 0; i < len; i++)
      cur[i] = i;
   t = test_set(&m, cur, len, "full input");
   if (t <= 0) {
      if (t == 0)
         seterr(err, errlen, "the predicate does not hold on the full input %s", in);
      res = t == 0 ? TSR_MIN_PRED_FAILS_FULL : t == -2 ? TSR_MIN_WRITE_ERROR : TSR_MIN_PRED_ERROR;
      goto done;
   }
   t = ddmin(&m, cur, &len, tmp);
   if (t < 0) {
      res = t == -2 ? TSR_MIN_WRITE_ERROR : TSR_MIN_PRED_ERROR;
      goto done;
   }
   /* The submissions pass's result, written once more (the last candidate
    * may be a rejected one). */
   if (build_submits(&m, cur, len) || rename(cand, subs_path)) {
      if (!*err)
         seterr(err, errlen, "%s: %s", subs_path, strerror(errno));
      res = TSR_MIN_WRITE_ERROR;
      goto done;
   }
   st->out_submits = len;
   st->submits_bytes = file_size(subs_path);
   const char *result = subs_path;

   /* The draws pass, over the kept submissions (renumbered from 0). */
   if (!opts->no_draws) {
      if (log)
         fprintf(log, "draws: %u submissions kept; reducing their draws and dispatches\n", len);
      m.n = len;
      res = minimize_draws(&m, subs_path, draws_path);
      if (res != TSR_MIN_OK)
         goto done;
      result = draws_path;
   } else {
      uint32_t nd;
      struct tsr_min_draw *d;
      if (tsr_list_draws(subs_path, &d, &nd, err, errlen) == 0) {
         count_draws(d, nd, &st->in_draws, &st->in_dispatches);
         st->out_draws = st->in_draws, st->out_dispatches = st->in_dispatches;
         free(d);
      }
   }
   st->draws_bytes = file_size(result);

   /* Compaction: the kept submissions' window cut out with tsr_trim, which
    * writes the live state as of its start instead of the memory history
    * (superseded pages, objects closed before it). Kept only if the
    * predicate still holds on it: a trim renumbers frames and, on a
    * keyframes capture, may start at an earlier keyframe. */
   if (!opts->no_trim) {
      /* the kept submissions' window: it ends with the frame of the last
       * one, so the empty frames after it go too */
      char from[4200];
      snprintf(from, sizeof(from), "%s minimized", in);
      struct tsr_trim_options to = { .unit = TSR_TRIM_SUBMITS, .first = 0, .last = len - 1,
                                     .from = from };
      struct tsr_trim_stats ts;
      char terr[512];
      if (tsr_trim(result, cand, &to, &ts, terr, sizeof(terr)) != TSR_TRIM_OK) {
         if (log)
            fprintf(log, "trim: %s; the untrimmed trace is kept\n", terr);
      } else {
         st->tests++;
         int p = pred(ctx, cand, err, errlen);
         if (p < 0) {
            res = TSR_MIN_PRED_ERROR;
            goto done;
         }
         if (log)
            fprintf(log, "step %u: trim to the live state, %" PRIu64 " → %" PRIu64
                         " bytes -> %s\n",
                    st->tests, file_size(result), file_size(cand),
                    p ? "bug shows" : "bug gone, the untrimmed trace is kept");
         if (p) {
            st->trimmed = true;
            result = cand;
         }
      }
   }
   if (rename(result, out)) {
      /* another file system: copy through the filter, everything kept */
      for (uint32_t i = 0; i < m.n; i++)
         m.keep[i] = true;
      if (tsr_filter(result, out, m.keep, m.n, NULL, 0, err, errlen)) {
         res = TSR_MIN_WRITE_ERROR;
         goto done;
      }
   }
   st->out_bytes = file_size(out);
done:
   unlink(cand);
   unlink(subs_path);
   unlink(draws_path);
   free(cur);
   free(tmp);
   free(m.keep);
   free(m.draws);
   free(m.rw);
   free(m.drop);
   free(m.dkeep);
   return res;
}
