/* SPDX-License-Identifier: MIT */
/*
 * tsr_minimize (trace/trace_minimize.h): ddmin over submissions. Each
 * candidate is one forward pass over the input through the writer (as
 * tsr_trim does), so it keeps every invariant of the format; the input is
 * never modified in place.
 */
#include "trace/trace_minimize.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/trace.h"

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

struct filt {
   struct tsr_reader *r;
   struct tsr_writer *w;
   const char *in;
   uint8_t *buf;
   size_t cap;
   char *err;
   size_t errlen;
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

int
tsr_filter_submits(const char *in, const char *out, const bool *keep, uint32_t n, char *err,
                   size_t errlen)
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
         if (map_seq(map, n, rec.seq) != UINT32_MAX)
            e = tsr_write_submit(f.w, fl, &rec.u.submit, NULL);
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
   tsr_reader_close(f.r);
   return rc;
}

/* ---- ddmin ------------------------------------------------------------- */

struct mini {
   const char *in, *cand;
   uint32_t n;     /* input submissions */
   bool *keep;
   tsr_min_predicate pred;
   void *ctx;
   FILE *log;
   struct tsr_min_stats *st;
   char *err;
   size_t errlen;
};

/* The predicate on the candidate of the given set (input submission
 * numbers): 1 holds, 0 not, <0 error (err set). */
static int
test_set(struct mini *m, const uint32_t *set, uint32_t len, const char *what)
{
   memset(m->keep, 0, m->n * sizeof(*m->keep));
   for (uint32_t i = 0; i < len; i++)
      m->keep[set[i]] = true;
   if (tsr_filter_submits(m->in, m->cand, m->keep, m->n, m->err, m->errlen))
      return -2;
   m->st->tests++;
   int r = m->pred(m->ctx, m->cand, m->err, m->errlen);
   if (m->log) {
      fprintf(m->log, "step %u: %s, %u submissions:", m->st->tests, what, len);
      for (uint32_t i = 0; i < len && i < 8; i++)
         fprintf(m->log, " %u", set[i]);
      fprintf(m->log, "%s -> %s\n", len > 8 ? " ..." : "",
              r > 0 ? "bug shows" : r == 0 ? "bug gone" : "predicate error");
      fflush(m->log);
   }
   return r;
}

enum tsr_min_result
tsr_minimize(const char *in, const char *out, const char *work_dir, tsr_min_predicate pred,
             void *ctx, FILE *log, struct tsr_min_stats *st, char *err, size_t errlen)
{
   struct tsr_min_stats dummy;
   if (!st)
      st = &dummy;
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

   char cand[4096];
   snprintf(cand, sizeof(cand), "%s/candidate.tsr", work_dir);
   struct mini m = { .in = in, .cand = cand, .n = (uint32_t)subs, .pred = pred, .ctx = ctx,
                     .log = log, .st = st, .err = err, .errlen = errlen };
   st->in_submits = m.n;
   uint32_t *cur = malloc(m.n * sizeof(*cur)), *tmp = malloc(m.n * sizeof(*tmp));
   m.keep = malloc(m.n * sizeof(*m.keep));
   enum tsr_min_result res = TSR_MIN_OK;
   if (!cur || !tmp || !m.keep) {
      seterr(err, errlen, "out of memory");
      res = TSR_MIN_WRITE_ERROR;
      goto done;
   }
   uint32_t len = m.n;
   for (uint32_t i = 0; i < len; i++)
      cur[i] = i;
   int t = test_set(&m, cur, len, "full input");
   if (t <= 0) {
      if (t == 0)
         seterr(err, errlen, "the predicate does not hold on the full input %s", in);
      res = t == 0 ? TSR_MIN_PRED_FAILS_FULL : t == -2 ? TSR_MIN_WRITE_ERROR : TSR_MIN_PRED_ERROR;
      goto done;
   }
   uint32_t parts = 2;
   while (len >= 2) {
      if (parts > len)
         parts = len;
      bool reduced = false;
      /* chunk i is [len*i/parts, len*(i+1)/parts) */
      for (uint32_t i = 0; i < parts && !reduced; i++) {
         uint32_t lo = (uint32_t)((uint64_t)len * i / parts);
         uint32_t hi = (uint32_t)((uint64_t)len * (i + 1) / parts);
         t = test_set(&m, cur + lo, hi - lo, "subset");
         if (t < 0)
            goto pred_err;
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
         t = test_set(&m, tmp, k, "complement");
         if (t < 0)
            goto pred_err;
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
   /* OUT: the final set, written once more (the last candidate may be a
    * rejected one). */
   memset(m.keep, 0, m.n * sizeof(*m.keep));
   for (uint32_t i = 0; i < len; i++)
      m.keep[cur[i]] = true;
   if (tsr_filter_submits(in, out, m.keep, m.n, err, errlen)) {
      res = TSR_MIN_WRITE_ERROR;
      goto done;
   }
   st->out_submits = len;
   if (stat(out, &b) == 0)
      st->out_bytes = (uint64_t)b.st_size;
   goto done;
pred_err:
   res = t == -2 ? TSR_MIN_WRITE_ERROR : TSR_MIN_PRED_ERROR;
done:
   unlink(cand);
   free(cur);
   free(tmp);
   free(m.keep);
   return res;
}
