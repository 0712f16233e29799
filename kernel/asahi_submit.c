/* SPDX-License-Identifier: MIT */
/*
 * SUBMIT: parse and validate the flat command buffer, resolve syncs, and
 * once the in-fences have signalled turn each command into firmware jobs
 * (docs/firmware.md section 7):
 *
 *   render  -> Run Vertex on the vertex work queue,
 *              Barrier (on the vertex stamp) + Run Fragment on the
 *              fragment work queue, sharing one FW Render Payload;
 *   compute -> Run Compute on the compute work queue.
 *
 * Barriers between the render and compute subqueues become Barrier ops at
 * the head of the waiting job's script. Completion arrives as Flag events;
 * each job is done when its work queue's stamp has reached its value.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel/asahi_priv.h"

#define BLK_HDR 0
#define BLK_SCRIPT 64
#define BLK_PAYLOAD 192
/* fragment block: barrier job header, its payload, then the run job */
#define BLK_FRAG_HDR 192
#define BLK_FRAG_SCRIPT 256

#define CMDBUF_MAX (256u << 10)

static bool
is_hw_cmd(uint16_t type)
{
   return type == DRM_ASAHI_CMD_RENDER || type == DRM_ASAHI_CMD_COMPUTE;
}

/* ------------------------------------------------------------- payloads */

/*
 * The one place a render command becomes the FW Render Payload shared by
 * its vertex and fragment jobs. The rendering model reads exactly this.
 */
static void
fill_render_payload(struct asahi_queue *q, const struct drm_asahi_cmd_render *r,
                    struct agx_fw_render_payload *p)
{
   memset(p, 0, sizeof(*p));
   p->flags = r->flags;
   p->isp_zls_pixels = r->isp_zls_pixels;
   p->vdm_stream_base = r->vdm_ctrl_stream_base;
   p->usc_base = q->usc_base;
   p->vertex_helper_program = r->vertex_helper.binary;
   p->vertex_helper_config = r->vertex_helper.cfg;
   p->vertex_helper_data = r->vertex_helper.data;
   p->fragment_helper_program = r->fragment_helper.binary;
   p->fragment_helper_config = r->fragment_helper.cfg;
   p->fragment_helper_data = r->fragment_helper.data;
   p->isp_scissor_base = r->isp_scissor_base;
   p->isp_dbias_base = r->isp_dbias_base;
   p->isp_oclqry_base = r->isp_oclqry_base;
   p->depth_base = r->depth.base;
   p->depth_comp_base = r->depth.comp_base;
   p->depth_stride = r->depth.stride;
   p->depth_comp_stride = r->depth.comp_stride;
   p->stencil_base = r->stencil.base;
   p->stencil_comp_base = r->stencil.comp_base;
   p->stencil_stride = r->stencil.stride;
   p->stencil_comp_stride = r->stencil.comp_stride;
   p->zls_control = r->zls_ctrl;
   p->ppp_multisample_control = r->ppp_multisamplectl;
   p->sampler_heap = r->sampler_heap;
   p->ppp_control = r->ppp_ctrl;
   p->width = r->width_px;
   p->height = r->height_px;
   p->layers = r->layers;
   p->sampler_count = r->sampler_count;
   p->utile_width = r->utile_width_px;
   p->utile_height = r->utile_height_px;
   p->samples = r->samples;
   p->sample_size = r->sample_size_B;
   memcpy(&p->isp_merge_upper_x, &r->isp_merge_upper_x, 4);
   memcpy(&p->isp_merge_upper_y, &r->isp_merge_upper_y, 4);
   p->bg_usc = r->bg.usc;
   p->bg_rsrc_spec = r->bg.rsrc_spec;
   p->eot_usc = r->eot.usc;
   p->eot_rsrc_spec = r->eot.rsrc_spec;
   p->partial_bg_usc = r->partial_bg.usc;
   p->partial_bg_rsrc_spec = r->partial_bg.rsrc_spec;
   p->partial_eot_usc = r->partial_eot.usc;
   p->partial_eot_rsrc_spec = r->partial_eot.rsrc_spec;
   p->isp_bg_obj_depth = r->isp_bgobjdepth;
   p->isp_bg_obj_vals = r->isp_bgobjvals;
   p->tvb_heap = q->tvb.va;
   p->tvb_heap_size = (uint32_t)q->tvb.size;
   p->buffer_slot = q->tvb.buffer_slot;
   p->tvb_tilemap = q->tvb.tilemap_va;
   p->tvb_tilemap_size = (uint32_t)q->tvb.tilemap_size;
   /* The fragment job only trusts a TVB whose header names its own frame,
    * so a stale heap (a vertex job that failed early) is caught. Never 0,
    * so a zeroed heap never matches. */
   if (++q->tvb.frame == 0)
      q->tvb.frame = 1;
   p->frame = q->tvb.frame;
}

static uint64_t
tilemap_bytes(const struct drm_asahi_cmd_render *r)
{
   uint64_t tx = (r->width_px + 31u) / 32u, ty = (r->height_px + 31u) / 32u;
   uint64_t layers = r->layers ? r->layers : 1;
   return tx * ty * layers * ASAHI_TILEMAP_BYTES_PER_TILE;
}

/* --------------------------------------------------------------- scripts */

struct script {
   uint8_t *p;
   uint32_t size;
};

static void
op_barrier(struct script *s, uint64_t stamp, uint32_t value)
{
   agx_pack(s->p + s->size, FW_OP_BARRIER, op) {
      op.stamp = stamp;
      op.value = value;
   }
   s->size += AGX_FW_OP_BARRIER_LENGTH;
}

static void
op_timestamp(struct script *s, uint64_t va)
{
   if (!va)
      return;
   agx_pack(s->p + s->size, FW_OP_TIMESTAMP, op) { op.address = va; }
   s->size += AGX_FW_OP_TIMESTAMP_LENGTH;
}

/* Timestamp(start) Start WaitForIdle(own pipe) Timestamp(end) Finalize */
static void
op_body(struct script *s, unsigned pipe, uint64_t ts_start, uint64_t ts_end)
{
   op_timestamp(s, ts_start);
   agx_pack(s->p + s->size, FW_OP_START, op) { (void)op; }
   s->size += AGX_FW_OP_START_LENGTH;
   agx_pack(s->p + s->size, FW_OP_WAIT_FOR_IDLE, op) {
      op.vertex = pipe == AGX_FW_PIPE_VERTEX;
      op.fragment = pipe == AGX_FW_PIPE_FRAGMENT;
      op.compute = pipe == AGX_FW_PIPE_COMPUTE;
   }
   s->size += AGX_FW_OP_WAIT_FOR_IDLE_LENGTH;
   op_timestamp(s, ts_end);
   agx_pack(s->p + s->size, FW_OP_FINALIZE, op) { (void)op; }
   s->size += AGX_FW_OP_FINALIZE_LENGTH;
}

/* ------------------------------------------------------------- queueing */

static void
call_hook(struct asahi_dev *dev, struct asahi_queue *q, unsigned pipe, uint64_t job_va,
          uint64_t script_va, uint32_t script_size, uint64_t payload_va,
          uint32_t payload_size)
{
   if (!dev->hook)
      return;
   struct asahi_job_info info = {
      .queue_id = q->id,
      .pipe = pipe,
      .vm_slot = q->vm->slot,
      .job_va = job_va,
      .header = asahi_kva_host(dev, job_va),
      .script = script_va ? asahi_kva_host(dev, script_va) : NULL,
      .script_size = script_size,
      .payload_va = payload_va,
      .payload = asahi_kva_host(dev, payload_va),
      .payload_size = payload_size,
   };
   dev->hook(dev->hook_user, &info);
}

/* Appends a job pointer to a work queue's ring (published later, all at
 * once, by wq_publish()). */
static void
wq_put(struct asahi_wq *wq, uint32_t *wr, uint64_t job_va)
{
   __atomic_store_n(&wq->ring[*wr], job_va, __ATOMIC_RELAXED);
   *wr = (*wr + 1) % ASAHI_WQ_ENTRIES;
}

static int
track_job(struct asahi_submission *sub, struct asahi_wq *wq, uint64_t va,
          uint32_t stamp_value, uint32_t id)
{
   struct asahi_job *j = os_zalloc(sizeof(*j));
   if (!j)
      return -ENOMEM;
   j->sub = sub;
   j->wq = wq;
   j->va = va;
   j->stamp_value = stamp_value;
   j->id = id;
   if (wq->tail)
      wq->tail->next = j;
   else
      wq->head = j;
   wq->tail = j;
   wq->inflight++;
   sub->jobs_left++;
   return 0;
}

static void
finish_submission(struct asahi_dev *dev, struct asahi_submission *sub)
{
   struct asahi_queue *q = sub->q;
   asahi_fence_signal(dev, sub->done, sub->error);
   asahi_fence_put(sub->done);
   for (unsigned i = 0; i < sub->nin; i++)
      asahi_fence_put(sub->in[i]);
   for (unsigned i = 0; i < sub->nblocks; i++)
      asahi_kfree(dev, sub->blocks[i]);
   if (sub->error)
      dev->stats.jobs_failed++;
   else
      dev->stats.jobs_completed++;
   os_free(sub->in);
   os_free(sub->blocks);
   os_free(sub->cmds);
   os_free(sub);
   q->inflight--;
}

/* What a command waits for on one subqueue, by the uAPI's barrier rule. */
struct stamp_wait {
   bool wait;
   uint64_t stamp;
   uint32_t value;
};

static struct stamp_wait
subqueue_wait(uint16_t barrier, const struct asahi_wq *wq, bool work_before,
              uint32_t base, const uint32_t *done_in_submit)
{
   /* 0: everything submitted to that subqueue before this SUBMIT. */
   if (barrier == 0 && work_before)
      return (struct stamp_wait){ true, wq->stamp_va, base };
   /* N: the first N commands of that subqueue in this SUBMIT. */
   if (barrier != DRM_ASAHI_BARRIER_NONE && barrier > 0)
      return (struct stamp_wait){ true, wq->stamp_va, done_in_submit[barrier - 1] };
   return (struct stamp_wait){ false, 0, 0 };
}

/*
 * Queues one Run* job: it advances its work queue's stamp by one increment,
 * its header points at its script and payload, the capture hook sees it
 * exactly as built, and completion is tracked by the stamp it will write.
 * Returns that stamp value.
 */
static uint32_t
queue_run_job(struct asahi_dev *dev, struct asahi_queue *q,
              struct asahi_submission *sub, unsigned pipe, unsigned tag,
              uint8_t *hdr, uint64_t hdr_va, uint64_t script_va,
              uint32_t script_size, uint64_t payload_va, uint32_t payload_size,
              uint32_t *wr)
{
   struct asahi_wq *wq = &q->wq[pipe];
   wq->last_stamp += HW_FW_STAMP_INCREMENT;
   uint32_t id = dev->next_job_id++;
   agx_pack(hdr, FW_JOB_HEADER, h) {
      h.tag = tag;
      h.vm_slot = q->vm->slot;
      h.event_slot = q->event_slot;
      h.job_id = id;
      h.stamp = wq->stamp_va;
      h.stamp_value = wq->last_stamp;
      h.script = script_va;
      h.script_size = script_size;
      h.payload = payload_va;
   }
   call_hook(dev, q, pipe, hdr_va, script_va, script_size, payload_va,
             payload_size);
   track_job(sub, wq, hdr_va, wq->last_stamp, id);
   wq_put(wq, &wr[pipe], hdr_va);
   return wq->last_stamp;
}

/*
 * Builds and queues the firmware jobs of a submission whose in-fences have
 * signalled. Stamp values are assigned here, in queue order, so barriers
 * naming "everything before this submit" use the values current now.
 */
static void
push_submission(struct asahi_dev *dev, struct asahi_queue *q, struct asahi_submission *sub)
{
   struct asahi_wq *vtx = &q->wq[AGX_FW_PIPE_VERTEX];
   struct asahi_wq *frag = &q->wq[AGX_FW_PIPE_FRAGMENT];
   struct asahi_wq *cmp = &q->wq[AGX_FW_PIPE_COMPUTE];
   uint32_t wr[HW_FW_PIPES];
   bool used[HW_FW_PIPES] = { false };
   for (unsigned p = 0; p < HW_FW_PIPES; p++)
      wr[p] = hw_load_acquire32(q->wq[p].host + 128);
   /* What "0 = all earlier work" means for each subqueue. */
   bool frag_before = frag->announced, cmp_before = cmp->announced;
   uint32_t frag_base = frag->last_stamp, cmp_base = cmp->last_stamp;
   uint32_t render_done[ASAHI_MAX_COMMANDS], compute_done[ASAHI_MAX_COMMANDS];
   unsigned nrender = 0, ncompute = 0, blk = 0;
   q->inflight++;

   for (unsigned i = 0; i < sub->ncmds; i++) {
      const struct asahi_cmd *c = &sub->cmds[i];
      if (!is_hw_cmd(c->type))
         continue;
      if (c->type == DRM_ASAHI_CMD_RENDER) {
         struct stamp_wait w =
            subqueue_wait(c->cdm_barrier, cmp, cmp_before, cmp_base, compute_done);
         uint64_t vb = sub->blocks[blk++], fb = sub->blocks[blk++];
         uint8_t *vh = asahi_kva_host(dev, vb), *fh = asahi_kva_host(dev, fb);
         asahi_tilemap_ensure(dev, q, tilemap_bytes(&c->render));
         struct agx_fw_render_payload pl;
         fill_render_payload(q, &c->render, &pl);
         agx_fw_render_payload_pack(vh + BLK_PAYLOAD, &pl);

         /* vertex */
         struct script s = { vh + BLK_SCRIPT, 0 };
         if (w.wait)
            op_barrier(&s, w.stamp, w.value);
         /* The queue has one TVB heap: this pass may only bin into it once
          * the previous pass's fragment job has stopped reading it. */
         if (frag_before || nrender > 0)
            op_barrier(&s, frag->stamp_va, frag->last_stamp);
         op_body(&s, AGX_FW_PIPE_VERTEX, c->ts[0], c->ts[1]);
         queue_run_job(dev, q, sub, AGX_FW_PIPE_VERTEX, AGX_FW_COMMAND_RUN_VERTEX,
                       vh + BLK_HDR, vb, vb + BLK_SCRIPT, s.size,
                       vb + BLK_PAYLOAD, AGX_FW_RENDER_PAYLOAD_LENGTH, wr);
         used[AGX_FW_PIPE_VERTEX] = true;

         /* fragment: wait for this pass's vertex stamp, then run */
         agx_pack(fh + BLK_SCRIPT, FW_BARRIER_PAYLOAD, b) {
            b.stamp = vtx->stamp_va;
            b.value = vtx->last_stamp;
         }
         agx_pack(fh + BLK_HDR, FW_JOB_HEADER, h) {
            h.tag = AGX_FW_COMMAND_BARRIER;
            h.vm_slot = q->vm->slot;
            h.event_slot = HW_FW_NO_EVENT;
            h.job_id = dev->next_job_id++;
            h.payload = fb + BLK_SCRIPT;
         }
         call_hook(dev, q, AGX_FW_PIPE_FRAGMENT, fb, 0, 0, fb + BLK_SCRIPT,
                   AGX_FW_BARRIER_PAYLOAD_LENGTH);
         wq_put(frag, &wr[AGX_FW_PIPE_FRAGMENT], fb);

         s = (struct script){ fh + BLK_FRAG_SCRIPT, 0 };
         op_body(&s, AGX_FW_PIPE_FRAGMENT, c->ts[2], c->ts[3]);
         /* The fragment job shares the vertex job's payload. */
         render_done[nrender++] =
            queue_run_job(dev, q, sub, AGX_FW_PIPE_FRAGMENT, AGX_FW_COMMAND_RUN_FRAGMENT,
                          fh + BLK_FRAG_HDR, fb + BLK_FRAG_HDR, fb + BLK_FRAG_SCRIPT,
                          s.size, vb + BLK_PAYLOAD, AGX_FW_RENDER_PAYLOAD_LENGTH, wr);
         used[AGX_FW_PIPE_FRAGMENT] = true;
      } else {
         struct stamp_wait w =
            subqueue_wait(c->vdm_barrier, frag, frag_before, frag_base, render_done);
         uint64_t cb = sub->blocks[blk++];
         uint8_t *ch = asahi_kva_host(dev, cb);
         const struct drm_asahi_cmd_compute *cc = &c->compute;
         agx_pack(ch + BLK_PAYLOAD, FW_COMPUTE_PAYLOAD, p) {
            p.cdm_stream_base = cc->cdm_ctrl_stream_base;
            p.cdm_stream_end = cc->cdm_ctrl_stream_end;
            p.usc_base = q->usc_base;
            p.sampler_heap = cc->sampler_heap;
            p.sampler_count = cc->sampler_count;
            p.flags = cc->flags;
            p.helper_program = cc->helper.binary;
            p.helper_config = cc->helper.cfg;
            p.helper_data = cc->helper.data;
         }
         struct script s = { ch + BLK_SCRIPT, 0 };
         if (w.wait)
            op_barrier(&s, w.stamp, w.value);
         op_body(&s, AGX_FW_PIPE_COMPUTE, c->ts[0], c->ts[1]);
         compute_done[ncompute++] =
            queue_run_job(dev, q, sub, AGX_FW_PIPE_COMPUTE, AGX_FW_COMMAND_RUN_COMPUTE,
                          ch + BLK_HDR, cb, cb + BLK_SCRIPT, s.size,
                          cb + BLK_PAYLOAD, AGX_FW_COMPUTE_PAYLOAD_LENGTH, wr);
         used[AGX_FW_PIPE_COMPUTE] = true;
      }
      dev->stats.jobs_submitted++;
   }
   if (!sub->jobs_left) {
      /* out of host memory for the tracking entries: nothing was queued
       * that we could follow, so fail it here */
      sub->error = -ENOMEM;
      finish_submission(dev, sub);
      return;
   }
   /* From here on the submission may complete (and be freed) while we
    * wait for ring space, since waiting drains events. */
   for (unsigned p = 0; p < HW_FW_PIPES; p++) {
      if (!used[p])
         continue;
      hw_store_release32(q->wq[p].host + 128, wr[p]);
      if (asahi_fw_run_queue(dev, q, &q->wq[p]) && !dev->cfg.quiet)
         fprintf(stderr, "asahi: firmware pipe ring stuck, queue %u\n", q->id);
   }
}

static unsigned
jobs_per_pipe(const struct asahi_submission *sub, unsigned pipe)
{
   unsigned n = 0;
   for (unsigned i = 0; i < sub->ncmds; i++) {
      uint16_t t = sub->cmds[i].type;
      if (t == DRM_ASAHI_CMD_RENDER && pipe == AGX_FW_PIPE_FRAGMENT)
         n += 2;
      else if (t == DRM_ASAHI_CMD_RENDER && pipe == AGX_FW_PIPE_VERTEX)
         n++;
      else if (t == DRM_ASAHI_CMD_COMPUTE && pipe == AGX_FW_PIPE_COMPUTE)
         n++;
   }
   return n;
}

/* Queues every waiting submission whose in-fences have signalled, in
 * order (a blocked one holds back the ones behind it). */
static void
queue_kick(struct asahi_dev *dev, struct asahi_queue *q)
{
   while (q->wait_head && !dev->stopping) {
      struct asahi_submission *sub = q->wait_head;
      for (unsigned i = 0; i < sub->nin; i++)
         if (!sub->in[i]->signaled)
            return;
      for (unsigned p = 0; p < HW_FW_PIPES; p++) {
         /* ring entries still held: every job not yet finished, plus the
          * barrier jobs we do not track (bounded by the fragment count) */
         unsigned held = q->wq[p].inflight * (p == AGX_FW_PIPE_FRAGMENT ? 2 : 1);
         if (held + jobs_per_pipe(sub, p) >= ASAHI_WQ_ENTRIES - 1)
            return;
      }
      q->wait_head = sub->next;
      if (!q->wait_head)
         q->wait_tail = NULL;
      sub->next = NULL;
      push_submission(dev, q, sub);
   }
}

void
asahi_sched_kick(struct asahi_dev *dev)
{
   /* Pushing can wait for ring space, which drains events, which
    * completes jobs and kicks again: the outer kick finishes the job. */
   if (dev->kicking)
      return;
   dev->kicking = true;
   struct asahi_queue *q = dev->queues, *next;
   for (; q; q = next) {
      queue_kick(dev, q);
      next = q->next;
      if (q->destroyed && !q->wait_head && !q->inflight)
         asahi_queue_reap(dev, q);
   }
   dev->kicking = false;
}

void *
asahi_sched_thread(void *arg)
{
   struct asahi_dev *dev = arg;
   os_mutex_lock(&dev->lock);
   while (!dev->stopping) {
      asahi_sched_kick(dev);
      os_cond_wait_until(&dev->fence_cv, &dev->lock, os_now_ns() + 100000000ull);
   }
   os_mutex_unlock(&dev->lock);
   return NULL;
}

/* ------------------------------------------------------------ completion */

static void
job_done(struct asahi_dev *dev, struct asahi_wq *wq)
{
   struct asahi_job *j = wq->head;
   wq->head = j->next;
   if (!wq->head)
      wq->tail = NULL;
   wq->inflight--;
   struct asahi_submission *sub = j->sub;
   os_free(j);
   if (--sub->jobs_left == 0)
      finish_submission(dev, sub);
}

/* Stamps are read before the events that may explain them: the firmware
 * posts a job's error event before it writes the job's stamp, so once the
 * snapshot is taken, draining the ring once more yields every error for
 * the jobs the snapshot completes. */
void
asahi_job_snapshot(struct asahi_dev *dev)
{
   for (struct asahi_queue *q = dev->queues; q; q = q->next)
      for (unsigned p = 0; p < HW_FW_PIPES; p++)
         q->wq[p].seen = hw_load_acquire32(q->wq[p].stamp);
}

void
asahi_job_complete_flags(struct asahi_dev *dev)
{
   for (struct asahi_queue *q = dev->queues; q; q = q->next) {
      for (unsigned p = 0; p < HW_FW_PIPES; p++) {
         struct asahi_wq *wq = &q->wq[p];
         while (wq->head && hw_stamp_reached(wq->seen, wq->head->stamp_value))
            job_done(dev, wq);
      }
   }
   /* completions free ring space and may release destroyed queues */
   asahi_sched_kick(dev);
}

/*
 * An error event names a job. The job's fence completes with an error
 * (-EIO for faults and firmware errors, -ETIMEDOUT for timeouts) when its
 * stamp arrives. Work of the same queue already queued behind it is
 * cancelled (-ECANCELED): it may depend on results that were never
 * written. The firmware still runs those jobs; work submitted after the
 * error has been handled runs normally, and other queues are unaffected.
 */
void
asahi_job_error(struct asahi_dev *dev, const uint8_t *msg)
{
   struct agx_fw_event_header h;
   agx_fw_event_header_unpack(msg, &h);
   struct agx_fw_event_fault e;
   agx_fw_event_fault_unpack(msg, &e);
   int err = -EIO;
   if (h.type == AGX_FW_EVENT_FAULT)
      dev->stats.faults++;
   else if (h.type == AGX_FW_EVENT_TIMEOUT) {
      dev->stats.timeouts++;
      err = -ETIMEDOUT;
   }
   for (struct asahi_queue *q = dev->queues; q; q = q->next) {
      for (unsigned p = 0; p < HW_FW_PIPES; p++) {
         for (struct asahi_job *j = q->wq[p].head; j; j = j->next) {
            if (j->va != e.job)
               continue;
            asahi_log_fault(dev, msg, agx_fw_pipe_as_str((enum agx_fw_pipe)p), q);
            if (!j->sub->error)
               j->sub->error = err;
            for (unsigned p2 = 0; p2 < HW_FW_PIPES; p2++)
               for (struct asahi_job *k = q->wq[p2].head; k; k = k->next)
                  if (k->sub != j->sub && !k->sub->error)
                     k->sub->error = -ECANCELED;
            return;
         }
      }
   }
   asahi_log_fault(dev, msg, "untracked job", NULL);
}

void
asahi_fail_all_pending(struct asahi_dev *dev)
{
   for (struct asahi_queue *q = dev->queues; q; q = q->next) {
      for (unsigned p = 0; p < HW_FW_PIPES; p++) {
         while (q->wq[p].head) {
            if (!q->wq[p].head->sub->error)
               q->wq[p].head->sub->error = -ENODEV;
            job_done(dev, &q->wq[p]);
         }
      }
      while (q->wait_head) {
         struct asahi_submission *sub = q->wait_head;
         q->wait_head = sub->next;
         sub->error = -ECANCELED;
         q->inflight++;
         finish_submission(dev, sub);
      }
      q->wait_tail = NULL;
   }
}

/* ----------------------------------------------------------------- ioctl */

static int
resolve_ts(struct asahi_file *f, const struct drm_asahi_timestamp *t, uint64_t *va)
{
   *va = 0;
   if (!t->handle)
      return t->offset ? -EINVAL : 0;
   struct asahi_bind_obj *o = asahi_idr_find(&f->objects, t->handle);
   if (!o)
      return -ENOENT;
   if ((t->offset & 7) || t->offset > o->range || o->range - t->offset < 8)
      return -EINVAL;
   *va = o->kva + t->offset;
   return 0;
}

static int
check_barrier(uint16_t b, unsigned count_so_far)
{
   return b == DRM_ASAHI_BARRIER_NONE || b <= count_so_far ? 0 : -EINVAL;
}

static int
validate_render(const struct drm_asahi_cmd_render *r)
{
   const uint32_t known = DRM_ASAHI_RENDER_VERTEX_SCRATCH |
                          DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES |
                          DRM_ASAHI_RENDER_NO_VERTEX_CLUSTERING |
                          DRM_ASAHI_RENDER_DBIAS_IS_INT;
   if (r->flags & ~known)
      return -EINVAL;
   if (r->samples != 1 && r->samples != 2 && r->samples != 4)
      return -EINVAL;
   if ((r->utile_width_px != 16 && r->utile_width_px != 32) ||
       (r->utile_height_px != 16 && r->utile_height_px != 32))
      return -EINVAL;
   if (!r->width_px || !r->height_px || r->width_px > 16384 || r->height_px > 16384 ||
       r->layers > 2048)
      return -EINVAL;
   if (tilemap_bytes(r) > ASAHI_TILEMAP_MAX)
      return -EINVAL;
   return 0;
}

static int
parse_cmdbuf(struct asahi_file *f, const uint8_t *buf, uint32_t size,
             struct asahi_cmd **out, unsigned *ncmds_out)
{
   struct asahi_cmd *cmds = NULL;
   unsigned n = 0, cap = 0, nrender = 0, ncompute = 0;
   int ret = 0;
   uint32_t off = 0;
   while (off < size) {
      struct drm_asahi_cmd_header h;
      if (size - off < sizeof(h)) {
         ret = -EINVAL;
         break;
      }
      memcpy(&h, buf + off, sizeof(h));
      off += sizeof(h);
      if (h.size > size - off) {
         ret = -EINVAL;
         break;
      }
      if (n == cap) {
         cap = cap ? cap * 2 : 8;
         struct asahi_cmd *c = os_realloc_array(cmds, cap, sizeof(*c));
         if (!c) {
            ret = -ENOMEM;
            break;
         }
         cmds = c;
      }
      struct asahi_cmd *c = &cmds[n];
      memset(c, 0, sizeof(*c));
      c->type = h.cmd_type;
      c->vdm_barrier = h.vdm_barrier;
      c->cdm_barrier = h.cdm_barrier;
      const uint8_t *payload = buf + off;
      off += h.size;
      if (h.cmd_type == DRM_ASAHI_CMD_RENDER || h.cmd_type == DRM_ASAHI_CMD_COMPUTE) {
         if (nrender + ncompute >= ASAHI_MAX_COMMANDS ||
             check_barrier(h.vdm_barrier, nrender) || check_barrier(h.cdm_barrier, ncompute)) {
            ret = -EINVAL;
            break;
         }
      }
      if (h.cmd_type == DRM_ASAHI_CMD_RENDER) {
         if (h.size > sizeof(c->render)) {
            ret = -EINVAL;
            break;
         }
         /* shorter structs (older userspace) are zero-extended */
         memcpy(&c->render, payload, h.size);
         const struct drm_asahi_cmd_render *r = &c->render;
         ret = validate_render(r);
         if (!ret)
            ret = resolve_ts(f, &r->ts_vtx.start, &c->ts[0]);
         if (!ret)
            ret = resolve_ts(f, &r->ts_vtx.end, &c->ts[1]);
         if (!ret)
            ret = resolve_ts(f, &r->ts_frag.start, &c->ts[2]);
         if (!ret)
            ret = resolve_ts(f, &r->ts_frag.end, &c->ts[3]);
         nrender++;
      } else if (h.cmd_type == DRM_ASAHI_CMD_COMPUTE) {
         if (h.size > sizeof(c->compute)) {
            ret = -EINVAL;
            break;
         }
         memcpy(&c->compute, payload, h.size);
         const struct drm_asahi_cmd_compute *cc = &c->compute;
         if (cc->flags || cc->sampler_count > 0xffff)
            ret = -EINVAL;
         if (!ret)
            ret = resolve_ts(f, &cc->ts.start, &c->ts[0]);
         if (!ret)
            ret = resolve_ts(f, &cc->ts.end, &c->ts[1]);
         ncompute++;
      } else if (h.cmd_type >= DRM_ASAHI_SET_VERTEX_ATTACHMENTS &&
                 h.cmd_type <= DRM_ASAHI_SET_COMPUTE_ATTACHMENTS) {
         /* Attachments are hints for the real firmware's cache
          * management; the model needs none, but they are checked. */
         const size_t asz = sizeof(struct drm_asahi_attachment);
         if (h.size % asz || h.size / asz > ASAHI_MAX_ATTACHMENTS ||
             h.vdm_barrier != DRM_ASAHI_BARRIER_NONE ||
             h.cdm_barrier != DRM_ASAHI_BARRIER_NONE) {
            ret = -EINVAL;
            break;
         }
         for (size_t i = 0; i < h.size / asz; i++) {
            struct drm_asahi_attachment a;
            memcpy(&a, payload + i * asz, asz);
            if (a.pad || a.flags)
               ret = -EINVAL;
         }
      } else {
         ret = -EINVAL;
      }
      if (ret)
         break;
      n++;
   }
   if (!ret && (nrender + ncompute) == 0)
      ret = -EINVAL;
   if (ret) {
      os_free(cmds);
      return ret;
   }
   *out = cmds;
   *ncmds_out = n;
   return 0;
}

int
asahi_ioctl_submit(struct asahi_file *f, void *data)
{
   struct drm_asahi_submit *a = data;
   struct asahi_dev *dev = f->dev;
   if (a->flags || a->pad)
      return -EINVAL;
   if (a->in_sync_count > ASAHI_MAX_SYNCS || a->out_sync_count > ASAHI_MAX_SYNCS)
      return -EINVAL;
   if (a->cmdbuf_size < sizeof(struct drm_asahi_cmd_header) || a->cmdbuf_size > CMDBUF_MAX)
      return -EINVAL;
   uint32_t nsync = a->in_sync_count + a->out_sync_count;
   struct drm_asahi_sync *syncs = os_zalloc_array(nsync, sizeof(*syncs));
   uint8_t *cmdbuf = os_zalloc(a->cmdbuf_size);
   struct asahi_syncobj **objs = os_zalloc_array(nsync, sizeof(*objs));
   struct asahi_submission *sub = os_zalloc(sizeof(*sub));
   int ret = 0;
   if (!syncs || !cmdbuf || !objs || !sub)
      ret = -ENOMEM;
   if (!ret && nsync)
      ret = os_copy_from_user(syncs, a->syncs, (size_t)nsync * sizeof(*syncs));
   if (!ret)
      ret = os_copy_from_user(cmdbuf, a->cmdbuf, a->cmdbuf_size);
   if (ret) {
      os_free(syncs);
      os_free(cmdbuf);
      os_free(objs);
      os_free(sub);
      return ret;
   }

   os_mutex_lock(&dev->lock);
   struct asahi_queue *q = asahi_idr_find(&f->queues, a->queue_id);
   if (!q) {
      ret = -ENOENT;
      goto fail;
   }
   ret = parse_cmdbuf(f, cmdbuf, a->cmdbuf_size, &sub->cmds, &sub->ncmds);
   if (ret)
      goto fail;
   for (uint32_t i = 0; i < nsync; i++) {
      const struct drm_asahi_sync *s = &syncs[i];
      if (s->sync_type > DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ ||
          (s->sync_type == DRM_ASAHI_SYNC_SYNCOBJ && s->timeline_value) ||
          (s->sync_type == DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ && !s->timeline_value)) {
         ret = -EINVAL;
         goto fail;
      }
      objs[i] = asahi_syncobj_lookup(f, s->handle);
      if (!objs[i]) {
         ret = -ENOENT;
         goto fail;
      }
   }
   sub->in = os_zalloc_array(a->in_sync_count, sizeof(*sub->in));
   if (!sub->in) {
      ret = -ENOMEM;
      goto fail;
   }
   for (uint32_t i = 0; i < a->in_sync_count; i++) {
      struct asahi_fence *fence;
      int st = asahi_syncobj_find_fence(objs[i], syncs[i].timeline_value, &fence);
      if (st == -ENOENT) {
         ret = -EINVAL;   /* nothing submitted for that point */
         goto fail;
      }
      if (fence)
         sub->in[sub->nin++] = fence;
   }
   /* kernel memory for every job, reserved now so SUBMIT reports ENOMEM */
   unsigned nblocks = 0;
   for (unsigned i = 0; i < sub->ncmds; i++)
      nblocks += sub->cmds[i].type == DRM_ASAHI_CMD_RENDER ? 2 :
                 sub->cmds[i].type == DRM_ASAHI_CMD_COMPUTE ? 1 : 0;
   sub->blocks = os_zalloc_array(nblocks, sizeof(uint64_t));
   if (!sub->blocks) {
      ret = -ENOMEM;
      goto fail;
   }
   for (unsigned i = 0; i < nblocks; i++) {
      sub->blocks[i] = asahi_kalloc(dev, ASAHI_JOB_BLOCK);
      if (!sub->blocks[i]) {
         ret = -ENOMEM;
         goto fail;
      }
      sub->nblocks++;
   }
   sub->done = asahi_fence_create();
   if (!sub->done) {
      ret = -ENOMEM;
      goto fail;
   }
   /* Out-syncs get the submission's fence now, as with drm_sched. */
   for (uint32_t i = a->in_sync_count; i < nsync; i++)
      asahi_syncobj_add_point(objs[i], syncs[i].timeline_value, sub->done);
   sub->q = q;
   if (q->wait_tail)
      q->wait_tail->next = sub;
   else
      q->wait_head = sub;
   q->wait_tail = sub;
   asahi_sched_kick(dev);
   os_mutex_unlock(&dev->lock);
   os_free(syncs);
   os_free(cmdbuf);
   os_free(objs);
   return 0;

fail:
   for (unsigned i = 0; i < sub->nin; i++)
      asahi_fence_put(sub->in[i]);
   for (unsigned i = 0; i < sub->nblocks; i++)
      asahi_kfree(dev, sub->blocks[i]);
   asahi_fence_put(sub->done);
   os_mutex_unlock(&dev->lock);
   os_free(sub->in);
   os_free(sub->blocks);
   os_free(sub->cmds);
   os_free(sub);
   os_free(syncs);
   os_free(cmdbuf);
   os_free(objs);
   return ret;
}
