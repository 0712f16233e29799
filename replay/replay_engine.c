/* SPDX-License-Identifier: MIT */
/*
 * The replay engine: reads a trace record by record and re-issues it on a
 * backend, pass after pass (a warm-up and N timed passes with --loop),
 * frame by frame (image dumps, frame times). Each record goes to the part
 * that owns its concern (replay/replay_engine.h): lifetime and memory
 * records to the state, SUBMITs to the submission; validation and shader
 * overrides hook into those two.
 */
#include "replay/replay.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "drm-uapi/asahi_drm.h"
#include "replay/replay_engine.h"
#include "replay/replay_image.h"
#include "replay/replay_priv.h"
#include "trace/trace.h"

static void
msg(struct replay_engine *e, const char *kind, const char *fmt, va_list ap)
{
   if (e->progress.enabled && e->progress.last_draw_ns)
      fputc('\n', e->log);
   fprintf(e->log, "tessera replay: %s", kind);
   vfprintf(e->log, fmt, ap);
   fputc('\n', e->log);
}

void
replay_fail(struct replay_engine *e, const char *fmt, ...)
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

void
replay_warn(struct replay_engine *e, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   msg(e, "warning: ", fmt, ap);
   va_end(ap);
}

static void
check_params(struct replay_engine *e, const struct drm_asahi_params_global *t)
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
      replay_warn(e, "%s; replaying anyway (--force)", why);
   else
      replay_fail(e, "incompatible device: %s; use --force to replay anyway", why);
}

/* ---- images -------------------------------------------------------------- */

/* --dump-raw: the target's memory as the GPU left it (replay_image.h). */
static void
dump_raw(struct replay_engine *e, struct replay_vm_ctx *ctx, const struct replay_target *t,
         uint32_t seq)
{
   uint64_t base, size;
   replay_target_range(t, &base, &size);
   char path[4096];
   snprintf(path, sizeof(path), "%s/f%04u_s%05u_%s%u.raw", e->o->dump_dir, e->cur_frame, seq,
            replay_target_kind_name(t->kind), t->index);
   uint8_t *bytes = size && size <= (1ull << 31) ? malloc(size) : NULL;
   if (!bytes || !replay_read_vm(ctx, base, bytes, size)) {
      replay_warn(e, "submission %u %s%u: cannot read its %llu bytes at 0x%llx", seq,
                  replay_target_kind_name(t->kind), t->index, (unsigned long long)size,
                  (unsigned long long)base);
      free(bytes);
      return;
   }
   FILE *f = fopen(path, "wb");
   bool ok = f && fwrite(bytes, 1, size, f) == size;
   if (f && fclose(f))
      ok = false;
   if (!ok)
      replay_fail(e, "%s: %s", path, strerror(errno));
   free(bytes);
}

void
replay_dump_renders(struct replay_engine *e, const struct replay_frame_render *list, unsigned n)
{
   /* The last writer of a target names it; earlier writes are overdrawn. */
   struct replay_target_seen seen = { .n = 0 };
   for (unsigned i = n; i-- > 0;) {
      const struct replay_frame_render *fr = &list[i];
      struct replay_vm_ctx ctx = { e, fr->file, fr->vm };
      struct replay_target t[REPLAY_MAX_TARGETS];
      char err[256];
      int nt = replay_find_targets(&fr->cmd, fr->usc_base, replay_read_vm, &ctx, t,
                                   REPLAY_MAX_TARGETS, err, sizeof(err));
      if (nt < 0) {
         replay_warn(e, "submission %u: %s", fr->seq, err);
         continue;
      }
      for (int k = 0; k < nt; k++) {
         if (!replay_target_first_seen(&seen, &t[k]))
            continue;
         const char *kind = replay_target_kind_name(t[k].kind);
         if (e->o->dump_raw)
            dump_raw(e, &ctx, &t[k], fr->seq);
         uint32_t layers = replay_target_layers(&t[k]);
         for (uint32_t l = 0; l < layers && l < 64; l++) {
            char path[4096];
            if (layers > 1)
               snprintf(path, sizeof(path), "%s/f%04u_s%05u_%s%u_l%u.png", e->o->dump_dir,
                        e->cur_frame, fr->seq, kind, t[k].index, l);
            else
               snprintf(path, sizeof(path), "%s/f%04u_s%05u_%s%u.png", e->o->dump_dir,
                        e->cur_frame, fr->seq, kind, t[k].index);
            uint8_t *px;
            uint32_t w, h;
            if (!replay_target_read_rgba8(&t[k], l, replay_read_vm, &ctx, &px, &w, &h, err,
                                          sizeof(err))) {
               replay_warn(e, "submission %u %s%u: %s", fr->seq, kind, t[k].index, err);
               continue;
            }
            if (!replay_png_write(path, px, w, h, err, sizeof(err)))
               replay_fail(e, "%s", err);
            else
               e->st.images++;
            free(px);
         }
      }
   }
}

/* Writes the pending renders' images now, while the memory they read is
 * still there: the record about to run (`rec`) unmaps or frees memory. The
 * images of a frame are normally taken at its end, but a frame's end can
 * come after its memory is gone: a program without frame boundaries (an
 * off-screen one captured with the default --frame-on swap) is one frame
 * ending after its teardown, and a program may free a pipeline or a render
 * target within a frame. Reading then found the end-of-tile program
 * unmapped and wrote no image. */
static bool
drops_memory(const struct tsr_record *rec)
{
   if (rec->type == TSR_REC_GEM_CLOSE || rec->type == TSR_REC_VM_DESTROY)
      return true;
   if (rec->type != TSR_REC_VM_BIND || rec->u.vm_bind.result)
      return false;
   for (uint32_t i = 0; i < rec->u.vm_bind.num_ops; i++) {
      struct drm_asahi_gem_bind_op op;
      memcpy(&op, &rec->u.vm_bind.ops[i], sizeof(op));
      if (op.flags & DRM_ASAHI_BIND_UNBIND)
         return true;
   }
   return false;
}

static void
dump_before_unmap(struct replay_engine *e, const struct tsr_record *rec)
{
   if (!e->o->dump_dir || e->failed || !e->renders.n || e->looping || !drops_memory(rec))
      return;
   replay_dump_renders(e, e->renders.v, e->renders.n);
   e->renders.n = 0;
}

static void
end_frame(struct replay_engine *e)
{
   if (!e->frame_has_work)
      return;
   if (e->o->dump_dir && !e->failed && e->renders.n)
      replay_dump_renders(e, e->renders.v, e->renders.n);
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
run_pass(struct replay_engine *e, bool first)
{
   struct tsr_record rec;
   bool in_range = false;
   while (!e->failed) {
      int r = tsr_reader_next(e->r, &rec);
      if (r < 0) {
         replay_fail(e, "%s: %s", e->path, tsr_reader_error(e->r));
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
      dump_before_unmap(e, &rec);
      switch (rec.type) {
      case TSR_REC_DEVICE_PARAMS:
         check_params(e, rec.u.params.p);
         break;
      case TSR_REC_VM_CREATE:
         replay_vm_create(e, rec.file, &rec.u.vm_create);
         break;
      case TSR_REC_VM_DESTROY:
         if (!e->looping)
            replay_vm_destroy(e, rec.file, rec.u.vm_id);
         break;
      case TSR_REC_VM_BIND:
         replay_vm_bind(e, rec.file, &rec.u.vm_bind);
         break;
      case TSR_REC_GEM_CREATE:
         replay_gem_create(e, rec.file, &rec.u.gem_create);
         break;
      case TSR_REC_GEM_CLOSE:
         if (!e->looping)
            replay_gem_close(e, rec.file, rec.u.handle);
         break;
      case TSR_REC_BIND_OBJECT:
         replay_bind_object(e, rec.file, &rec.u.bind_object);
         break;
      case TSR_REC_QUEUE_CREATE:
         replay_queue_create(e, rec.file, &rec.u.queue_create);
         break;
      case TSR_REC_QUEUE_DESTROY:
         if (!e->looping)
            replay_queue_destroy(e, rec.file, rec.u.queue_id);
         break;
      case TSR_REC_MEMORY:
         replay_memory(e, &rec);
         break;
      case TSR_REC_META:
         if (e->o->validate && !strcmp(rec.u.meta.key, TSR_META_CPU_OVERWRITE))
            replay_cpu_overwrite(e, rec.u.meta.value);
         break;
      case TSR_REC_SUBMIT:
         if (in_range) {
            replay_submit(e, &rec);
         } else if (first && rec.frame >= e->exec_from) {
            e->preroll = true;
            replay_submit(e, &rec);
            e->preroll = false;
         }
         break;
      default:
         break;   /* metadata, completions, firmware jobs, shaders */
      }
   }
   /* Pages the trace never recorded again cannot be checked. */
   replay_drop_all_pending(e, -1);
   end_frame(e);
}

/* Before a looped pass: every object back to its recorded content at the
 * start of the range (objects made later in the range start zeroed). */
static void
restore_range_start(struct replay_engine *e)
{
   int r = e->o->first_frame ? tsr_reader_seek_frame(e->r, e->o->first_frame)
                             : tsr_reader_rewind(e->r);
   if (r) {
      replay_fail(e, "%s: cannot seek to frame %u: %s", e->path, e->o->first_frame,
                  tsr_reader_error(e->r));
      return;
   }
   for (unsigned i = 0; i < e->objs.n; i++) {
      struct replay_obj *o = &e->objs.v[i];
      if (!o->live)
         continue;
      size_t got = tsr_reader_read_object(e->r, o->file, o->handle, 0, o->map, o->size);
      if (got < o->size)
         memset(o->map + got, 0, o->size - got);
   }
   e->cur_frame = e->o->first_frame;
}

static bool
setup(struct replay_engine *e)
{
   struct drm_asahi_get_params gp = { .pointer = (uintptr_t)&e->params,
                                      .size = sizeof(e->params) };
   int r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_GET_PARAMS, &gp);
   if (r) {
      replay_fail(e, "GET_PARAMS on the %s backend failed: %s", e->b->name, strerror(-r));
      return false;
   }
   if (e->o->profile)
      replay_prof_start(e);
   return !e->failed && replay_submit_setup(e);
}

/* The order is the kernel's: objects, queues and VMs, then the syncobjs
 * and the timestamp buffer. */
static void
teardown(struct replay_engine *e)
{
   replay_state_release(e);
   replay_submit_release(e);
   replay_prof_stop(e);
   free(e->pending.v);
   free(e->renders.v);
   free(e->overridden.v);
   replay_timing_free(&e->timing);
}

/* The last frame of the trace: frame N follows the N-th frame marker, so
 * the part after the last marker is a frame if it holds a submission (a
 * program whose work lands after its last swap), and nothing otherwise.
 * -1 if the trace has neither markers nor submissions. */
static int64_t
last_frame_of(struct replay_engine *e, const struct tsr_info *info)
{
   bool tail = false;
   if (tsr_reader_seek_frame(e->r, info->frames) == 0) {
      struct tsr_record rec;
      while (!tail && tsr_reader_next(e->r, &rec) > 0)
         tail = rec.type == TSR_REC_SUBMIT;
   }
   tsr_reader_rewind(e->r);
   if (tail)
      return (int64_t)info->frames;
   return (int64_t)info->frames - 1;
}

/* --frames A-B and --from-frame A name frames the trace has: a range past
 * its end would replay nothing and look like success. An open end (A-)
 * stops at the last frame. */
static void
check_frame_range(struct replay_engine *e, const struct tsr_info *info)
{
   const struct replay_options *o = e->o;
   if (o->first_frame == 0 && o->last_frame == UINT32_MAX)
      return;
   int64_t last = last_frame_of(e, info);
   if (last < 0)
      replay_fail(e, "%s holds no frame to replay (no frame marker, no submission)", e->path);
   else if (o->first_frame > last || (o->last_frame != UINT32_MAX && o->last_frame > last))
      replay_fail(e, "frame %u is past the end of %s: its frames are 0-%lld",
                  o->first_frame > last ? o->first_frame : o->last_frame, e->path,
                  (long long)last);
}

/* Where --from-frame A starts running submissions: at A when every frame's
 * start holds every object's memory (TSR_META_GPU_MEMORY "full", or older
 * traces without it), otherwise at the last keyframe at or before A. */
static void
find_exec_from(struct replay_engine *e)
{
   uint32_t a = e->o->first_frame;
   e->exec_from = a;
   if (!a)
      return;
   bool sparse = false;
   uint32_t key = 0;
   struct tsr_record rec;
   while (tsr_reader_next(e->r, &rec) > 0 && rec.frame <= a) {
      if (rec.type != TSR_REC_META)
         continue;
      if (!strcmp(rec.u.meta.key, TSR_META_GPU_MEMORY))
         sparse = !strncmp(rec.u.meta.value, "keyframes", 9);
      else if (!strcmp(rec.u.meta.key, TSR_META_KEYFRAME)) {
         char *end;
         unsigned long v = strtoul(rec.u.meta.value, &end, 10);
         if (!*end && v <= a && v > key)
            key = (uint32_t)v;
      }
   }
   tsr_reader_rewind(e->r);
   if (sparse)
      e->exec_from = key;
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
   struct replay_engine e = { .o = o, .b = b, .path = trace_path, .log = o->log ? o->log : stderr };
   e.st.validated_ok = true;
   char err[512];
   if (tsr_reader_open(&e.r, trace_path, err, sizeof(err))) {
      fprintf(e.log, "tessera replay: %s\n", err);
      if (st)
         memset(st, 0, sizeof(*st));
      return REPLAY_ERROR;
   }
   const struct tsr_info *info = tsr_reader_info(e.r);
   if (info->damage)
      replay_fail(&e, "%s: damaged trace: %s (tessera info --verify lists the damage)",
                  trace_path, tsr_reader_damage(e.r));
   else if (info->truncated)
      replay_warn(&e, "%s is truncated; replaying what it holds", trace_path);
   if (o->first_frame > o->last_frame)
      replay_fail(&e, "empty frame range %u-%u", o->first_frame, o->last_frame);
   if (!e.failed)
      check_frame_range(&e, info);
   if (!e.failed)
      find_exec_from(&e);
   if (o->dump_dir) {
      struct stat sb;
      if (stat(o->dump_dir, &sb) != 0 && mkdir(o->dump_dir, 0777) != 0)
         replay_fail(&e, "%s: %s", o->dump_dir, strerror(errno));
   }
   e.progress.enabled = o->progress;
   e.progress.total = info->submits * (o->loops ? o->loops + 1 : 1);
   e.looping = o->loops > 0;
   if (!e.failed && o->num_overrides)
      replay_check_overrides(&e);

   if (!e.failed && setup(&e)) {
      /* Pass 0 is the plain replay, or the warm-up when looping. */
      e.measuring = !e.looping && o->timing_path;
      uint64_t t0 = replay_now_ns();
      run_pass(&e, true);
      e.st.cpu_ns = replay_now_ns() - t0;
      if (e.measuring && !replay_timing_end_pass(&e.timing))
         replay_fail(&e, "internal: timing pass shape");
      for (unsigned p = 0; p < o->loops && !e.failed; p++) {
         restore_range_start(&e);
         e.measuring = true;
         e.st.gpu_ns = 0;
         t0 = replay_now_ns();
         run_pass(&e, false);
         e.st.cpu_ns = replay_now_ns() - t0;
         if (!e.failed && !replay_timing_end_pass(&e.timing))
            replay_fail(&e, "pass %u ran different work than the first", p + 1);
      }
      if (!e.failed && o->timing_path &&
          !replay_timing_write(&e.timing, o->timing_path, trace_path, b->name,
                               e.looping ? 1 : 0, err, sizeof(err)))
         replay_fail(&e, "%s", err);
   }
   /* Pages read as zeros because their content was missing or damaged. */
   if (!e.failed && info->damage)
      replay_fail(&e, "%s: damaged trace: %s", trace_path, tsr_reader_damage(e.r));
   replay_progress_end(&e.progress);
   teardown(&e);
   tsr_reader_close(e.r);
   if (st)
      *st = e.st;
   return e.status;
}
