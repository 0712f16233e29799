/* SPDX-License-Identifier: MIT */
/*
 * tsr_trim (trace/trace_trim.h): one forward pass over the input. Records
 * before the window only feed the reader's state tracking (and the little
 * that is copied: metadata, driver and device parameters, shaders); at the
 * window's start the state is written as a snapshot; the window's records
 * follow, re-encoded through the writer so that OUT keeps every invariant
 * of the format (pages stored once and before their first reference,
 * index, frame and submission tables) without a second implementation.
 * Page contents go through the writer again (it hashes them), which costs
 * a hash per copied page and keeps OUT's page store self-contained.
 */
#include "trace/trace_trim.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/trace.h"

struct trim_file {
   uint32_t file;
   bool have_driver, have_params;
   struct tsr_driver driver; /* strings owned */
   struct drm_asahi_params_global params;
   uint32_t params_size;
};

struct trim_meta {
   char *key, *value;
};

struct trim {
   const struct tsr_trim_options *o;
   const char *in, *out;
   struct tsr_reader *r;
   struct tsr_writer *w;
   struct tsr_trim_stats *st;
   char *err;
   size_t errlen;
   enum tsr_trim_result result;
   uint32_t last_frame; /* the input's last frame (frames windows) */
   bool sparse;         /* the input records GPU results only at keyframes */

   /* What the part before the window leaves to copy. */
   struct trim_file *files;
   uint32_t nfiles;
   struct trim_meta *metas;
   uint32_t nmetas;
   struct tsr_shader *shaders;
   uint32_t nshaders;
   bool have_window;          /* the input's last capture_window before ours */
   uint64_t win_frame, win_seq; /* its program frame / submission */
   uint32_t win_at_frame, win_at_seq; /* the input's frame / seq where it stood */

   uint8_t *buf; /* page run buffer */
   size_t buf_cap;
};

static enum tsr_trim_result
fail(struct trim *t, enum tsr_trim_result res, const char *fmt, ...)
{
   if (t->result != TSR_TRIM_OK)
      return t->result;
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(t->err, t->errlen, fmt, ap);
   va_end(ap);
   t->result = res;
   return res;
}

/* A write error is sticky in the writer: report the first one. */
static bool
wr(struct trim *t, int e)
{
   if (e && t->result == TSR_TRIM_OK)
      fail(t, TSR_TRIM_WRITE_ERROR, "writing the trimmed trace: %s", strerror(-e));
   return !e;
}

static bool
reserve(void **p, uint32_t n, uint32_t *cap, size_t elem)
{
   if (n < *cap)
      return true;
   uint32_t c = *cap ? *cap * 2 : 8;
   void *q = realloc(*p, (size_t)c * elem);
   if (!q)
      return false;
   *p = q;
   *cap = c;
   return true;
}

static struct trim_file *
file_of(struct trim *t, uint32_t file, uint32_t *cap)
{
   for (uint32_t i = 0; i < t->nfiles; i++)
      if (t->files[i].file == file)
         return &t->files[i];
   if (!reserve((void **)&t->files, t->nfiles, cap, sizeof(*t->files)))
      return NULL;
   t->files[t->nfiles] = (struct trim_file){ .file = file };
   return &t->files[t->nfiles++];
}

static void
free_driver(struct tsr_driver *d)
{
   free((char *)d->name);
   free((char *)d->date);
   free((char *)d->desc);
}

/* ---- before the window --------------------------------------------------- */

/* Keeps what the snapshot copies from the records before the window. */
static bool
note_prefix(struct trim *t, const struct tsr_record *rec, uint32_t *files_cap,
            uint32_t *metas_cap, uint32_t *shaders_cap)
{
   switch (rec->type) {
   case TSR_REC_META: {
      unsigned long long f, s;
      if (!strcmp(rec->u.meta.key, "capture_window")) {
         if (sscanf(rec->u.meta.value, "frame %llu submission %llu", &f, &s) == 2) {
            t->have_window = true;
            t->win_frame = f, t->win_seq = s;
            t->win_at_frame = rec->frame, t->win_at_seq = rec->seq;
         }
         return true;
      }
      if (!strcmp(rec->u.meta.key, TSR_META_KEYFRAME))
         return true; /* positions in the input: OUT has its own */
      if (!strcmp(rec->u.meta.key, TSR_META_GPU_MEMORY))
         t->sparse = !strncmp(rec->u.meta.value, "keyframes", 9);
      for (uint32_t i = 0; i < t->nmetas; i++)
         if (!strcmp(t->metas[i].key, rec->u.meta.key) &&
             !strcmp(t->metas[i].value, rec->u.meta.value))
            return true; /* the same pair again (each window repeats none, but be safe) */
      if (!reserve((void **)&t->metas, t->nmetas, metas_cap, sizeof(*t->metas)))
         return false;
      struct trim_meta m = { strdup(rec->u.meta.key), strdup(rec->u.meta.value) };
      if (!m.key || !m.value) {
         free(m.key);
         free(m.value);
         return false;
      }
      t->metas[t->nmetas++] = m;
      return true;
   }
   case TSR_REC_DRIVER: {
      struct trim_file *f = file_of(t, rec->file, files_cap);
      if (!f)
         return false;
      if (f->have_driver)
         free_driver(&f->driver);
      f->driver = rec->u.driver;
      f->driver.name = strdup(rec->u.driver.name);
      f->driver.date = strdup(rec->u.driver.date);
      f->driver.desc = strdup(rec->u.driver.desc);
      f->have_driver = true;
      return f->driver.name && f->driver.date && f->driver.desc;
   }
   case TSR_REC_DEVICE_PARAMS: {
      struct trim_file *f = file_of(t, rec->file, files_cap);
      if (!f)
         return false;
      f->params = *rec->u.params.p;
      f->params_size = rec->u.params.size < sizeof(f->params) ? rec->u.params.size
                                                              : (uint32_t)sizeof(f->params);
      f->have_params = true;
      return true;
   }
   case TSR_REC_SHADER:
      if (!reserve((void **)&t->shaders, t->nshaders, shaders_cap, sizeof(*t->shaders)))
         return false;
      t->shaders[t->nshaders] = rec->u.shader;
      t->shaders[t->nshaders++].seq = 0;
      return true;
   default:
      return true;
   }
}

/* ---- memory --------------------------------------------------------------- */

/* Copies pages [first, first + n) of an object, whose hashes are given,
 * from the input's page store to the writer. */
static bool
copy_pages(struct trim *t, uint32_t file, uint32_t handle, uint64_t first, uint32_t n,
           const uint8_t *hashes)
{
   uint64_t size = tsr_reader_object_size(t->r, file, handle);
   uint64_t off = first * TSR_PAGE_SIZE;
   if (!n || off >= size)
      return true; /* nothing the object holds (the reader checked the range) */
   size_t need = (size_t)n * TSR_PAGE_SIZE;
   if (need > t->buf_cap) {
      uint8_t *b = realloc(t->buf, need);
      if (!b) {
         fail(t, TSR_TRIM_WRITE_ERROR, "out of memory");
         return false;
      }
      t->buf = b;
      t->buf_cap = need;
   }
   for (uint32_t i = 0; i < n; i++) {
      struct tsr_hash h;
      memcpy(h.b, hashes + 16 * (size_t)i, 16);
      if (tsr_reader_page(t->r, &h, t->buf + (size_t)i * TSR_PAGE_SIZE)) {
         fail(t, TSR_TRIM_DAMAGED, "%s is damaged: page %" PRIu64 " of GEM object %u: %s",
              t->in, first + i, handle,
              *tsr_reader_error(t->r) ? tsr_reader_error(t->r) : "its content is not stored");
         return false;
      }
   }
   uint64_t len = need < size - off ? need : size - off;
   return wr(t, tsr_write_memory(t->w, file, handle, off, t->buf, len));
}

/* The recorded pages of a live object, run by run; pages never recorded
 * stay so (a later record of them must not look unchanged to the writer). */
static bool
copy_object_memory(struct trim *t, uint32_t file, uint32_t handle, uint64_t size)
{
   uint64_t npages = (size + TSR_PAGE_SIZE - 1) / TSR_PAGE_SIZE;
   uint8_t hashes[64 * 16];
   uint64_t run_first = 0;
   uint32_t run = 0;
   for (uint64_t p = 0; p <= npages; p++) {
      struct tsr_hash h;
      bool have = p < npages && tsr_reader_object_page(t->r, file, handle, p, &h);
      if (have) {
         if (!run)
            run_first = p;
         memcpy(hashes + 16 * run++, h.b, 16);
         t->st->state_pages++;
      }
      if (run && (!have || run == 64)) {
         if (!copy_pages(t, file, handle, run_first, run, hashes))
            return false;
         run = 0;
      }
   }
   return true;
}

/* ---- the snapshot -------------------------------------------------------- */

static bool
write_snapshot(struct trim *t, uint32_t at_frame, uint32_t at_seq, bool start_of_input)
{
   const struct tsr_trim_options *o = t->o;
   char v[256];
   for (uint32_t i = 0; i < t->nmetas; i++)
      if (!wr(t, tsr_write_meta(t->w, t->metas[i].key, t->metas[i].value)))
         return false;
   char last[16] = "";
   if (o->last != UINT32_MAX)
      snprintf(last, sizeof(last), "%" PRIu32, o->last);
   if (o->from)
      snprintf(v, sizeof(v), "%s", o->from);
   else
      snprintf(v, sizeof(v), "%s %s %" PRIu32 "-%s", t->in,
               o->unit == TSR_TRIM_FRAMES ? "frames" : "submits", o->first, last);
   if (!wr(t, tsr_write_meta(t->w, "trimmed_from", v)))
      return false;
   /* Where the window starts in the program's run: the input's numbering,
    * or the program's through the input's own capture_window. A window at
    * the input's very start keeps the input's records as they are. */
   if (!start_of_input) {
      uint64_t pf = at_frame, ps = at_seq;
      if (t->have_window)
         pf = t->win_frame + (at_frame - t->win_at_frame),
         ps = t->win_seq + (at_seq - t->win_at_seq);
      snprintf(v, sizeof(v), "frame %" PRIu64 " submission %" PRIu64, pf, ps);
      if (!wr(t, tsr_write_meta(t->w, "capture_window", v)))
         return false;
   }
   for (uint32_t i = 0; i < t->nfiles; i++) {
      const struct trim_file *f = &t->files[i];
      if (f->have_driver && !wr(t, tsr_write_driver(t->w, f->file, &f->driver)))
         return false;
      if (f->have_params &&
          !wr(t, tsr_write_device_params(t->w, f->file, &f->params, f->params_size)))
         return false;
   }

   struct tsr_state s;
   if (tsr_reader_state(t->r, &s)) {
      fail(t, TSR_TRIM_WRITE_ERROR, "out of memory");
      return false;
   }
   bool ok = true;
   /* VMs first: a VM-private object names its VM, which must exist. */
   for (uint32_t i = 0; ok && i < s.num_vms; i++)
      ok = wr(t, tsr_write_vm_create(t->w, s.vms[i].file, &s.vms[i].create));
   for (uint32_t i = 0; ok && i < s.num_objects; i++)
      ok = wr(t, tsr_write_gem_create(t->w, s.objects[i].file, &s.objects[i].create));
   for (uint32_t i = 0; ok && i < s.num_vms; i++) {
      struct tsr_vm_bind b = { .vm_id = s.vms[i].create.vm_id, .num_ops = s.vms[i].num_ops,
                               .ops = s.vms[i].ops };
      if (b.num_ops)
         ok = wr(t, tsr_write_vm_bind(t->w, s.vms[i].file, &b));
   }
   for (uint32_t i = 0; ok && i < s.num_tsobjs; i++)
      ok = wr(t, tsr_write_bind_object(t->w, s.tsobjs[i].file, &s.tsobjs[i].bind));
   for (uint32_t i = 0; ok && i < s.num_objects; i++)
      ok = copy_object_memory(t, s.objects[i].file, s.objects[i].create.handle,
                              s.objects[i].create.size);
   /* The state above is the real memory: the window starts at a keyframe
    * of a keyframes input (tsr_trim widens it to one) */
   if (ok && t->sparse)
      ok = wr(t, tsr_write_meta(t->w, TSR_META_KEYFRAME, "0"));
   for (uint32_t i = 0; ok && i < s.num_queues; i++)
      ok = wr(t, tsr_write_queue_create(t->w, s.queues[i].file, &s.queues[i].create));
   for (uint32_t i = 0; ok && i < t->nshaders; i++)
      ok = wr(t, tsr_write_shader(t->w, 0, &t->shaders[i]));
   t->st->vms = s.num_vms;
   t->st->objects = s.num_objects;
   t->st->tsobjs = s.num_tsobjs;
   t->st->queues = s.num_queues;
   tsr_state_free(&s);
   /* What the state costs in the file: its chunks, flushed (one chunk
    * boundary more than the writer would make alone). */
   struct stat sb;
   if (ok && wr(t, tsr_writer_flush(t->w)) && stat(t->out, &sb) == 0)
      t->st->state_bytes = (uint64_t)sb.st_size;
   return ok;
}

/* ---- the window ---------------------------------------------------------- */

/* One record of the window (or a late completion / job after it). */
static bool
copy_record(struct trim *t, const struct tsr_record *rec, uint32_t first_seq)
{
   struct tsr_writer *w = t->w;
   uint32_t f = rec->file;
   int e = 0;
   switch (rec->type) {
   case TSR_REC_META:
      if (!strcmp(rec->u.meta.key, TSR_META_KEYFRAME)) {
         /* a frame number: the input's, OUT's frame 0 is first_frame */
         char *end, v[32];
         unsigned long k = strtoul(rec->u.meta.value, &end, 10);
         if (*end || k < t->st->first_frame)
            return true;
         snprintf(v, sizeof(v), "%lu", k - t->st->first_frame);
         e = tsr_write_meta(w, rec->u.meta.key, v);
      } else {
         e = tsr_write_meta(w, rec->u.meta.key, rec->u.meta.value);
      }
      break;
   case TSR_REC_DEVICE_PARAMS: {
      uint32_t n = rec->u.params.size;
      if (n > sizeof(struct drm_asahi_params_global))
         n = sizeof(struct drm_asahi_params_global);
      e = tsr_write_device_params(w, f, rec->u.params.p, n);
      break;
   }
   case TSR_REC_DRIVER: e = tsr_write_driver(w, f, &rec->u.driver); break;
   case TSR_REC_VM_CREATE: e = tsr_write_vm_create(w, f, &rec->u.vm_create); break;
   case TSR_REC_VM_DESTROY: e = tsr_write_vm_destroy(w, f, rec->u.vm_id); break;
   case TSR_REC_VM_BIND: e = tsr_write_vm_bind(w, f, &rec->u.vm_bind); break;
   case TSR_REC_GEM_CREATE: e = tsr_write_gem_create(w, f, &rec->u.gem_create); break;
   case TSR_REC_GEM_CLOSE: e = tsr_write_gem_close(w, f, rec->u.handle); break;
   case TSR_REC_BIND_OBJECT: e = tsr_write_bind_object(w, f, &rec->u.bind_object); break;
   case TSR_REC_QUEUE_CREATE: e = tsr_write_queue_create(w, f, &rec->u.queue_create); break;
   case TSR_REC_QUEUE_DESTROY: e = tsr_write_queue_destroy(w, f, rec->u.queue_id); break;
   case TSR_REC_SUBMIT:
      e = tsr_write_submit(w, f, &rec->u.submit, NULL);
      t->st->submits++;
      break;
   case TSR_REC_MEMORY:
      return copy_pages(t, f, rec->u.memory.handle, rec->u.memory.first_page,
                        rec->u.memory.num_pages, rec->u.memory.hashes);
   case TSR_REC_COMPLETION: {
      if (rec->u.completion.seq < first_seq)
         return true; /* a submission before the window */
      struct tsr_completion c = rec->u.completion;
      c.seq -= first_seq;
      e = tsr_write_completion(w, f, &c);
      break;
   }
   case TSR_REC_FRAME:
      e = tsr_write_frame(w, rec->u.frame.kind, rec->u.frame.label);
      t->st->frames++;
      break;
   case TSR_REC_FW_JOB: {
      struct tsr_fw_job j = rec->u.fw_job;
      if (j.seq != UINT32_MAX) {
         if (j.seq < first_seq)
            return true;
         j.seq -= first_seq;
      }
      e = tsr_write_fw_job(w, f, &j);
      break;
   }
   case TSR_REC_SHADER: {
      struct tsr_shader s = rec->u.shader;
      s.seq = s.seq >= first_seq ? s.seq - first_seq : 0;
      e = tsr_write_shader(w, f, &s);
      break;
   }
   default:
      t->st->dropped++;
      return true;
   }
   t->st->records++;
   return wr(t, e);
}

/* ---- the window's bounds ------------------------------------------------- */

/* The last frame: frame N follows the N-th marker, so the part after the
 * last marker is a frame if it holds a submission (replay's rule). */
static int64_t
last_frame(struct tsr_reader *r, const struct tsr_info *info)
{
   bool tail = false;
   if (tsr_reader_seek_frame(r, info->frames) == 0) {
      struct tsr_record rec;
      while (!tail && tsr_reader_next(r, &rec) > 0)
         tail = rec.type == TSR_REC_SUBMIT;
   }
   tsr_reader_rewind(r);
   return tail ? (int64_t)info->frames : (int64_t)info->frames - 1;
}

static bool
check_window(struct trim *t)
{
   const struct tsr_trim_options *o = t->o;
   const struct tsr_info *info = tsr_reader_info(t->r);
   const char *what = o->unit == TSR_TRIM_FRAMES ? "frame" : "submission";
   if (o->first > o->last) {
      fail(t, TSR_TRIM_BAD_WINDOW, "empty window: %ss %u-%u", what, o->first, o->last);
      return false;
   }
   int64_t last;
   if (o->unit == TSR_TRIM_FRAMES) {
      last = last_frame(t->r, info);
      if (last < 0) {
         fail(t, TSR_TRIM_BAD_WINDOW, "%s holds no frame (no frame marker, no submission)",
              t->in);
         return false;
      }
   } else {
      last = (int64_t)info->submits - 1;
      if (last < 0) {
         fail(t, TSR_TRIM_BAD_WINDOW, "%s holds no submission", t->in);
         return false;
      }
   }
   t->last_frame = o->unit == TSR_TRIM_FRAMES ? (uint32_t)last : UINT32_MAX;
   uint32_t bad = o->first > last ? o->first : o->last;
   if (o->first > last || (o->last != UINT32_MAX && o->last > last)) {
      fail(t, TSR_TRIM_BAD_WINDOW, "%s %u is past the end of %s: its %ss are 0-%lld", what, bad,
           t->in, what, (long long)last);
      return false;
   }
   return true;
}

/* ---- keyframes ---------------------------------------------------------- */

/* A keyframes input: moves the window's start back to the last keyframe
 * at or before it (trace_trim.h). One pass over the records before it. */
static void
widen_to_keyframe(struct trim *t, struct tsr_trim_options *eff)
{
   const struct tsr_trim_options *o = t->o;
   bool frames = o->unit == TSR_TRIM_FRAMES, sparse = false, have_key = false;
   uint32_t key = 0;
   struct tsr_record rec;
   while (tsr_reader_next(t->r, &rec) > 0) {
      if (frames ? rec.frame > o->first
                 : rec.type == TSR_REC_SUBMIT && rec.seq == o->first)
         break;
      if (rec.type != TSR_REC_META)
         continue;
      if (!strcmp(rec.u.meta.key, TSR_META_GPU_MEMORY))
         sparse = !strncmp(rec.u.meta.value, "keyframes", 9);
      else if (!strcmp(rec.u.meta.key, TSR_META_KEYFRAME)) {
         char *end;
         unsigned long v = strtoul(rec.u.meta.value, &end, 10);
         if (!*end && v <= (frames ? o->first : UINT32_MAX))
            key = (uint32_t)v, have_key = true;
      }
   }
   tsr_reader_rewind(t->r);
   if (!sparse || !have_key)
      return;
   if (frames) {
      if (key < o->first) {
         eff->first = key;
         t->st->widened = true;
      }
      return;
   }
   /* the first submission of frame `key` or later */
   while (tsr_reader_next(t->r, &rec) > 0)
      if (rec.type == TSR_REC_SUBMIT && rec.frame >= key) {
         if (rec.seq < o->first) {
            eff->first = rec.seq;
            t->st->widened = true;
         }
         break;
      }
   tsr_reader_rewind(t->r);
}

/* ---- the pass ------------------------------------------------------------ */

static void
run(struct trim *t)
{
   const struct tsr_trim_options *o = t->o;
   bool frames = o->unit == TSR_TRIM_FRAMES;
   uint32_t files_cap = 0, metas_cap = 0, shaders_cap = 0;
   enum { BEFORE, INSIDE, AFTER } phase = BEFORE;
   uint32_t first_seq = 0, end_seq = UINT32_MAX, tail_end_frame = UINT32_MAX;
   bool last_was_frame = false, submits_done = false;
   struct tsr_record rec;

   /* Frames A-: from the marker ending A-1; frame 0 from the beginning. */
   if (frames && o->first == 0) {
      if (!write_snapshot(t, 0, 0, true))
         return;
      phase = INSIDE;
      t->st->first_frame = 0;
   }
   for (;;) {
      int r = tsr_reader_next(t->r, &rec);
      if (r < 0) {
         fail(t, TSR_TRIM_DAMAGED, "%s is damaged: %s", t->in, tsr_reader_error(t->r));
         return;
      }
      if (r == 0)
         break;
      if (phase == BEFORE) {
         bool starts = !frames && rec.type == TSR_REC_SUBMIT && rec.seq == o->first;
         if (!starts) {
            if (!note_prefix(t, &rec, &files_cap, &metas_cap, &shaders_cap)) {
               fail(t, TSR_TRIM_WRITE_ERROR, "out of memory");
               return;
            }
            if (frames && rec.type == TSR_REC_FRAME && rec.frame + 1 == o->first) {
               /* The state is now as of frame A's start. */
               first_seq = rec.seq;
               t->st->first_frame = o->first;
               if (!write_snapshot(t, o->first, first_seq, false))
                  return;
               phase = INSIDE;
            }
            continue;
         }
         /* SUBMIT A: it changes no state, so the state is as of before it. */
         first_seq = rec.seq;
         t->st->first_frame = rec.frame;
         if (!write_snapshot(t, rec.frame, first_seq, false))
            return;
         phase = INSIDE;
      }
      if (phase == INSIDE) {
         bool ends = frames ? rec.frame > o->last
                            : (rec.type == TSR_REC_SUBMIT && rec.seq > o->last) || submits_done;
         if (!ends) {
            if (!copy_record(t, &rec, first_seq))
               return;
            last_was_frame = rec.type == TSR_REC_FRAME;
            /* A submits window ends at the first frame marker after its
             * last submission (the records after it are the next
             * submission's), or before the next submission. */
            if (!frames && last_was_frame && rec.seq > o->last)
               submits_done = true;
            if (rec.type == TSR_REC_SUBMIT || (frames && rec.frame <= t->last_frame))
               t->st->last_frame = rec.frame;
            continue;
         }
         end_seq = rec.seq; /* the first submission after the window */
         if (!last_was_frame) {
            if (!wr(t, tsr_write_frame(t->w, 2, "trim end")))
               return;
            t->st->frames++;
         }
         tail_end_frame = rec.frame + 1;
         phase = AFTER;
      }
      /* After: completions and firmware jobs of the window's submissions
       * that were recorded later, up to the end of the next frame. */
      if (rec.frame > tail_end_frame)
         break;
      if ((rec.type == TSR_REC_COMPLETION && rec.u.completion.seq >= first_seq &&
           rec.u.completion.seq < end_seq) ||
          (rec.type == TSR_REC_FW_JOB && rec.u.fw_job.seq >= first_seq &&
           rec.u.fw_job.seq < end_seq))
         if (!copy_record(t, &rec, first_seq))
            return;
   }
   if (phase == BEFORE)
      fail(t, TSR_TRIM_DAMAGED, "%s ended before the window's start", t->in);
   t->st->first_seq = first_seq;
}

enum tsr_trim_result
tsr_trim(const char *in, const char *out, const struct tsr_trim_options *o,
         struct tsr_trim_stats *st, char *err, size_t errlen)
{
   struct tsr_trim_stats dummy;
   if (!st)
      st = &dummy;
   memset(st, 0, sizeof(*st));
   struct trim t = { .o = o, .in = in, .out = out, .st = st, .err = err, .errlen = errlen };
   if (errlen)
      err[0] = 0;
   char rerr[512];
   if (tsr_reader_open(&t.r, in, rerr, sizeof(rerr))) {
      fail(&t, TSR_TRIM_BAD_INPUT, "%s", rerr);
      return t.result;
   }
   struct stat a, b;
   if (stat(in, &a) == 0 && stat(out, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
      fail(&t, TSR_TRIM_BAD_INPUT, "the output %s is the input", out);
      tsr_reader_close(t.r);
      return t.result;
   }
   st->in_bytes = tsr_reader_info(t.r)->file_size;
   /* The reader salvages damaged files (tsr_reader_damage); a trim of one
    * would silently lack what the damage took, so it is refused. The
    * chunks' checksums are checked at open, pages as they are read. */
   if (tsr_reader_info(t.r)->damage)
      fail(&t, TSR_TRIM_DAMAGED, "%s is damaged: %s", in, tsr_reader_damage(t.r));
   else if (check_window(&t)) {
      struct tsr_trim_options eff = *o;
      st->asked_first = o->first;
      widen_to_keyframe(&t, &eff);
      t.o = &eff;
      struct tsr_writer_options wo = { .zstd_level = o->zstd_level, .quiet = true };
      int e = tsr_writer_open(&t.w, out, &wo);
      if (e)
         fail(&t, TSR_TRIM_WRITE_ERROR, "%s: %s", out, strerror(-e));
      else {
         run(&t);
         if (tsr_reader_info(t.r)->damage)
            fail(&t, TSR_TRIM_DAMAGED, "%s is damaged: %s", in, tsr_reader_damage(t.r));
         e = tsr_writer_close(t.w);
         wr(&t, e);
         if (stat(out, &b) == 0)
            st->out_bytes = (uint64_t)b.st_size;
         if (t.result != TSR_TRIM_OK)
            unlink(out);
      }
   }
   for (uint32_t i = 0; i < t.nfiles; i++)
      if (t.files[i].have_driver)
         free_driver(&t.files[i].driver);
   free(t.files);
   for (uint32_t i = 0; i < t.nmetas; i++) {
      free(t.metas[i].key);
      free(t.metas[i].value);
   }
   free(t.metas);
   free(t.shaders);
   free(t.buf);
   tsr_reader_close(t.r);
   return t.result;
}
