/* SPDX-License-Identifier: MIT */
/*
 * One SUBMIT replayed: the command buffer again with the backend's
 * timestamp objects (or the replay's own buffer when a command asked for
 * none, so every command is timed), the syncs translated, and the replay's
 * completion syncobj added. The replay waits for every submission before
 * the next one, which keeps memory restores, validation and per-submission
 * images exact (GPU times come from the firmware's timestamps, so waiting
 * does not distort them).
 */
#include <string.h>

#include "replay/replay_engine.h"
#include "replay/replay_image.h"
#include "uapi/uapi_cmdbuf.h"

#define TS_BUF_BYTES (16u * 1024)
#define MAX_CMDS 256
#define WAIT_NS (60ull * 1000000000ull)

bool
replay_submit_setup(struct replay_engine *e)
{
   int r;
   struct drm_syncobj_create sc = { 0 };
   if (replay_ioctl(e->b, DRM_IOCTL_SYNCOBJ_CREATE, &sc)) {
      replay_fail(e, "SYNCOBJ_CREATE failed");
      return false;
   }
   e->done_sync = sc.handle;
   struct drm_asahi_gem_create gc = { .size = TS_BUF_BYTES };
   if ((r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_GEM_CREATE, &gc))) {
      replay_fail(e, "cannot create the timestamp buffer: %s", strerror(-r));
      return false;
   }
   e->ts_gem = gc.handle;
   e->ts_map = e->b->map(e->b, gc.handle, TS_BUF_BYTES);
   struct drm_asahi_gem_bind_object bo = { .op = DRM_ASAHI_BIND_OBJECT_OP_BIND,
                                           .flags = DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS,
                                           .handle = gc.handle, .range = TS_BUF_BYTES };
   if (!e->ts_map || (r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &bo))) {
      replay_fail(e, "cannot set up the timestamp buffer");
      return false;
   }
   e->ts_object = bo.object_handle;
   return true;
}

void
replay_submit_release(struct replay_engine *e)
{
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
   free(e->syncs.v);
}

static uint32_t
sync_handle(struct replay_engine *e, uint32_t file, uint32_t handle, bool create)
{
   struct replay_idmap *m = replay_find_id(e->syncs.v, e->syncs.n, file, handle);
   if (m || !create)
      return m ? m->new_id : 0;
   struct drm_syncobj_create sc = { 0 };
   if (replay_ioctl(e->b, DRM_IOCTL_SYNCOBJ_CREATE, &sc)) {
      replay_fail(e, "SYNCOBJ_CREATE failed");
      return 0;
   }
   struct replay_idmap n = { .file = file, .id = handle, .new_id = sc.handle, .live = true };
   REPLAY_VEC_PUSH(e->syncs, n);
   return sc.handle;
}

/* Where a timestamp lands: the program's object, or the replay's buffer
 * (slot) when the command asked for none. */
static void
patch_ts(struct replay_engine *e, uint32_t file, struct drm_asahi_timestamp *ts, unsigned *slot,
         uint64_t **where)
{
   *where = NULL;
   if (ts->handle) {
      struct replay_idmap *t = replay_find_id(e->tsobjs.v, e->tsobjs.n, file, ts->handle);
      if (!t) {
         replay_fail(e, "command uses unknown timestamp object %u", ts->handle);
         return;
      }
      ts->handle = t->new_id;
      struct replay_obj *o = &e->objs.v[t->obj];
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
ticks_to_ns(struct replay_engine *e, uint64_t ticks)
{
   uint64_t hz = e->params.command_timestamp_frequency_hz ? e->params.command_timestamp_frequency_hz
                                                          : 24000000ull;
   return (uint64_t)((unsigned __int128)ticks * 1000000000ull / hz);
}

void
replay_submit(struct replay_engine *e, const struct tsr_record *rec)
{
   const struct tsr_submit *s = &rec->u.submit;
   if (s->result)
      return;   /* the kernel refused it during capture */
   uint32_t seq = rec->seq;
   struct replay_idmap *q = replay_find_id(e->queues.v, e->queues.n, rec->file, s->queue_id);
   if (!q) {
      replay_fail(e, "submission %u on unknown queue %u", seq, s->queue_id);
      return;
   }
   replay_apply_overrides(e);

   /* The command buffer with translated timestamp handles; short payloads
    * are zero-extended to the full struct, as the kernel would. */
   uint8_t *buf = malloc((size_t)s->cmdbuf_size + MAX_CMDS * sizeof(struct drm_asahi_cmd_render) + 64);
   uint64_t *ts_at[MAX_CMDS * 4];
   unsigned nts = 0, slot = 0, nb = 0;
   if (!buf) {
      replay_fail(e, "out of memory");
      return;
   }
   /* Bytes after the last whole command are not resubmitted (the kernel
    * accepted this buffer, so there are none in a real capture). */
   struct uapi_cmd_iter it;
   struct uapi_cmd c;
   uapi_cmd_iter_init(&it, s->cmdbuf, s->cmdbuf_size);
   while (!e->failed && uapi_cmd_next(&it, &c)) {
      if (c.index >= MAX_CMDS) {
         replay_fail(e, "submission %u: more than %u commands", seq, MAX_CMDS);
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
            if (e->o->dump_dir && !e->preroll) {
               struct replay_frame_render fr = { .seq = seq, .file = rec->file, .vm = q->vm,
                                                 .usc_base = q->usc_base, .cmd = c.u.render };
               REPLAY_VEC_PUSH(e->renders, fr);
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
      replay_fail(e, "submission %u: command %u overruns the command buffer", seq, c.index);

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
      replay_fail(e, "out of memory");

   struct replay_snapshot snap = { 0 };
   bool validate = e->o->validate && !e->preroll;
   if (!e->failed && validate)
      replay_snapshot_take(e, &snap);

   uint64_t t0 = replay_now_ns();
   if (!e->failed) {
      struct drm_asahi_submit sub = { .syncs = (uintptr_t)syncs, .cmdbuf = (uintptr_t)buf,
                                      .flags = s->flags, .queue_id = q->new_id,
                                      .in_sync_count = nin, .out_sync_count = nout,
                                      .cmdbuf_size = nb };
      int r = replay_ioctl(e->b, DRM_IOCTL_ASAHI_SUBMIT, &sub);
      if (r)
         replay_fail(e, "submission %u: SUBMIT failed: %s", seq, strerror(-r));
   }
   if (!e->failed) {
      struct drm_syncobj_wait w = { .handles = (uintptr_t)&e->done_sync, .count_handles = 1,
                                    .timeout_nsec = (int64_t)(replay_now_ns() + WAIT_NS) };
      int r = replay_ioctl(e->b, DRM_IOCTL_SYNCOBJ_WAIT, &w);
      if (r)
         replay_fail(e, "submission %u: waiting for completion failed: %s", seq, strerror(-r));
   }
   uint64_t cpu = replay_now_ns() - t0;
   if (!e->failed && e->b->fence_error) {
      int fe = e->b->fence_error(e->b, e->done_sync);
      if (fe) {
         e->st.gpu_errors++;
         replay_warn(e, "submission %u completed with an error: %s", seq, strerror(-fe));
         if (e->status == REPLAY_OK)
            e->status = REPLAY_DIFFERENT;
      }
   }
   if (!e->failed && validate)
      replay_snapshot_diff(e, &snap, seq);

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
   if (e->preroll) {
      if (e->prof)
         replay_prof_discard(e);
      e->done_submits++;
      free(syncs);
      free(buf);
      return;
   }
   e->st.submits++;
   e->st.gpu_ns += gpu;
   e->frame_gpu_ns += gpu;
   e->frame_cpu_ns += cpu;
   e->frame_has_work = true;
   if (e->prof && !e->failed)
      replay_prof_deliver(e, rec->frame, seq, gpu);
   if (e->measuring) {
      struct replay_sample smp = { rec->frame, seq, gpu, cpu };
      replay_timing_add(&e->timing, &smp);
   }
   if (!e->failed && e->o->dump_dir && e->o->per_submit && e->renders.n) {
      replay_dump_renders(e, e->renders.v, e->renders.n);
      e->renders.n = 0;
   }
   e->done_submits++;
   replay_progress_update(&e->progress, e->done_submits, e->cur_frame);
   free(syncs);
   free(buf);
}
