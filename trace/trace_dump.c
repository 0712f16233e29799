/* SPDX-License-Identifier: MIT */
/*
 * The record printer: see trace/trace_dump.h. One function per record type
 * (and per uAPI struct inside a record), in record-type order.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdstream/agx_decode.h"
#include "cmdstream/agx_fw_pack.h"
#include "cmdstream/isa/agx_isa.h"
#include "trace/trace_dump.h"
#include "uapi/uapi_cmdbuf.h"
#include "uapi/uapi_shaders.h"

struct tsr_dump {
   FILE *fp;
   struct tsr_reader *r;
   bool times, streams, disasm;
   struct uapi_shader_cache cache;
};

struct va_ctx {
   struct tsr_reader *r;
   uint32_t file, vm;
};

static size_t read_va(void *ctx, uint64_t va, void *dst, size_t size)
{
   struct va_ctx *c = ctx;
   return tsr_reader_read_va(c->r, c->file, c->vm, va, dst, size);
}

static void hex(FILE *fp, const char *indent, const uint8_t *p, size_t n)
{
   for (size_t i = 0; i < n; i += 16) {
      fprintf(fp, "%s%04zx:", indent, i);
      for (size_t j = i; j < n && j < i + 16; j++)
         fprintf(fp, " %02x", p[j]);
      fprintf(fp, "\n");
   }
}

static void print_hash(FILE *fp, const uint8_t *h)
{
   for (int i = 0; i < 16; i++)
      fprintf(fp, "%02x", h[i]);
}

static void print_params(FILE *fp, const struct drm_asahi_params_global *p, uint32_t size)
{
   fprintf(fp, "  size %u\n", size);
   fprintf(fp, "  features 0x%" PRIx64 "\n", (uint64_t)p->features);
   fprintf(fp, "  gpu_generation %u\n  gpu_variant '%c'\n  gpu_revision 0x%x\n", p->gpu_generation,
           p->gpu_variant >= 0x20 && p->gpu_variant < 0x7f ? (char)p->gpu_variant : '?',
           p->gpu_revision);
   fprintf(fp, "  chip_id 0x%x\n  num_dies %u\n  num_clusters_total %u\n", p->chip_id,
           p->num_dies, p->num_clusters_total);
   fprintf(fp, "  num_cores_per_cluster %u\n  max_frequency_khz %u\n", p->num_cores_per_cluster,
           p->max_frequency_khz);
   for (unsigned i = 0; i < p->num_clusters_total && i < DRM_ASAHI_MAX_CLUSTERS; i++)
      fprintf(fp, "  core_masks[%u] 0x%" PRIx64 "\n", i, (uint64_t)p->core_masks[i]);
   fprintf(fp, "  vm_start 0x%" PRIx64 "\n  vm_end 0x%" PRIx64 "\n  vm_kernel_min_size 0x%" PRIx64
               "\n",
           (uint64_t)p->vm_start, (uint64_t)p->vm_end, (uint64_t)p->vm_kernel_min_size);
   fprintf(fp, "  max_commands_per_submission %u\n  max_attachments %u\n",
           p->max_commands_per_submission, p->max_attachments);
   fprintf(fp, "  command_timestamp_frequency_hz %" PRIu64 "\n",
           (uint64_t)p->command_timestamp_frequency_hz);
}

static void print_helper(FILE *fp, const char *name, const struct drm_asahi_helper_program *h)
{
   fprintf(fp, "      %s binary 0x%x cfg 0x%x data 0x%" PRIx64 "\n", name, h->binary, h->cfg,
           (uint64_t)h->data);
}

static void print_ts(FILE *fp, const char *name, const struct drm_asahi_timestamps *t)
{
   fprintf(fp, "      %s start {handle %u offset %u} end {handle %u offset %u}\n", name,
           t->start.handle, t->start.offset, t->end.handle, t->end.offset);
}

static void print_zls(FILE *fp, const char *name, const struct drm_asahi_zls_buffer *z)
{
   fprintf(fp, "      %s base 0x%" PRIx64 " comp_base 0x%" PRIx64 " stride %u comp_stride %u\n",
           name, (uint64_t)z->base, (uint64_t)z->comp_base, z->stride, z->comp_stride);
}

static void print_bg_eot(FILE *fp, const char *name, const struct drm_asahi_bg_eot *b)
{
   fprintf(fp, "      %s usc 0x%x rsrc_spec 0x%x\n", name, b->usc, b->rsrc_spec);
}

static void print_render(FILE *fp, const struct drm_asahi_cmd_render *c)
{
   fprintf(fp, "      flags 0x%x\n      isp_zls_pixels 0x%x\n", c->flags, c->isp_zls_pixels);
   fprintf(fp, "      vdm_ctrl_stream_base 0x%" PRIx64 "\n", (uint64_t)c->vdm_ctrl_stream_base);
   print_helper(fp, "vertex_helper", &c->vertex_helper);
   print_helper(fp, "fragment_helper", &c->fragment_helper);
   fprintf(fp, "      isp_scissor_base 0x%" PRIx64 "\n      isp_dbias_base 0x%" PRIx64
               "\n      isp_oclqry_base 0x%" PRIx64 "\n",
           (uint64_t)c->isp_scissor_base, (uint64_t)c->isp_dbias_base,
           (uint64_t)c->isp_oclqry_base);
   print_zls(fp, "depth", &c->depth);
   print_zls(fp, "stencil", &c->stencil);
   fprintf(fp, "      zls_ctrl 0x%" PRIx64 "\n      ppp_multisamplectl 0x%" PRIx64
               "\n      sampler_heap 0x%" PRIx64 "\n      ppp_ctrl 0x%x\n",
           (uint64_t)c->zls_ctrl, (uint64_t)c->ppp_multisamplectl, (uint64_t)c->sampler_heap,
           c->ppp_ctrl);
   fprintf(fp, "      width_px %u height_px %u layers %u sampler_count %u\n", c->width_px,
           c->height_px, c->layers, c->sampler_count);
   fprintf(fp, "      utile %ux%u samples %u sample_size_B %u\n", c->utile_width_px,
           c->utile_height_px, c->samples, c->sample_size_B);
   fprintf(fp, "      isp_merge_upper_x 0x%x isp_merge_upper_y 0x%x\n", c->isp_merge_upper_x,
           c->isp_merge_upper_y);
   print_bg_eot(fp, "bg", &c->bg);
   print_bg_eot(fp, "eot", &c->eot);
   print_bg_eot(fp, "partial_bg", &c->partial_bg);
   print_bg_eot(fp, "partial_eot", &c->partial_eot);
   fprintf(fp, "      isp_bgobjdepth 0x%x isp_bgobjvals 0x%x\n", c->isp_bgobjdepth,
           c->isp_bgobjvals);
   print_ts(fp, "ts_vtx", &c->ts_vtx);
   print_ts(fp, "ts_frag", &c->ts_frag);
}

static void print_compute(FILE *fp, const struct drm_asahi_cmd_compute *c)
{
   fprintf(fp, "      flags 0x%x\n      sampler_count %u\n", c->flags, c->sampler_count);
   fprintf(fp, "      cdm_ctrl_stream_base 0x%" PRIx64 "\n      cdm_ctrl_stream_end 0x%" PRIx64
               "\n      sampler_heap 0x%" PRIx64 "\n",
           (uint64_t)c->cdm_ctrl_stream_base, (uint64_t)c->cdm_ctrl_stream_end,
           (uint64_t)c->sampler_heap);
   print_helper(fp, "helper", &c->helper);
   print_ts(fp, "ts", &c->ts);
}

static unsigned decode_stream(struct tsr_dump *d, uint32_t file, uint32_t queue,
                              enum agx_decode_stream_kind kind, uint64_t va)
{
   uint32_t vm;
   uint64_t usc_base;
   if (!tsr_reader_queue(d->r, file, queue, &vm, &usc_base)) {
      fprintf(d->fp, "      XXX: queue %u unknown: stream not decoded\n", queue);
      return 1;
   }
   struct va_ctx ctx = {d->r, file, vm};
   struct agx_decode_options o = {
      .read = read_va, .read_ctx = &ctx, .usc_base = usc_base, .no_disasm = !d->disasm,
   };
   struct agx_decode_result res;
   fprintf(d->fp, "      %s stream at 0x%" PRIx64 " (usc base 0x%" PRIx64 "):\n",
           kind == AGX_DECODE_VDM ? "VDM" : "CDM", va, usc_base);
   agx_decode_stream(d->fp, &o, kind, va, &res);
   fprintf(d->fp, "      # %u blocks, %u errors, %u warnings%s\n", res.blocks, res.errors,
           res.warnings, res.terminated ? ", terminated" : "");
   return res.errors;
}

/* Which shaders a submission runs: same scan as the capture's. */
static void print_submit_shaders(struct tsr_dump *d, const struct tsr_record *rec)
{
   const struct tsr_submit *s = &rec->u.submit;
   uint32_t vm;
   uint64_t usc_base;
   if (!tsr_reader_queue(d->r, rec->file, s->queue_id, &vm, &usc_base))
      return;
   struct va_ctx ctx = {d->r, rec->file, vm};
   struct uapi_shader_list l = {0};
   uapi_cmdbuf_shaders(s->cmdbuf, s->cmdbuf_size, usc_base, read_va, &ctx, &d->cache, &l);
   for (size_t i = 0; i < l.count; i++) {
      const struct uapi_shader *sh = &l.v[i];
      fprintf(d->fp, "  uses shader 0x%" PRIx64 " %s size %u (command %u)", sh->va,
              uapi_shader_stage_name(sh->stage), sh->size, sh->cmd);
      if (!sh->size)
         fprintf(d->fp, " XXX: %s", sh->why ? sh->why : "size unknown");
      fprintf(d->fp, "\n");
   }
   uapi_shader_list_free(&l);
}

static void print_command_header(FILE *fp, const struct uapi_cmd *c)
{
   fprintf(fp, "  command %u: %s size %u vdm_barrier %u cdm_barrier %u\n", c->index,
           uapi_cmd_type_name(c->h.cmd_type), c->h.size, c->h.vdm_barrier, c->h.cdm_barrier);
}

static void print_submit(struct tsr_dump *d, const struct tsr_record *rec)
{
   FILE *fp = d->fp;
   const struct tsr_submit *s = &rec->u.submit;
   fprintf(fp, "  queue_id %u flags 0x%x result %d\n", s->queue_id, s->flags, s->result);
   if (d->times)
      fprintf(fp, "  cpu_time_ns %" PRIu64 "\n", s->cpu_time_ns);
   for (uint32_t i = 0; i < s->in_sync_count + s->out_sync_count; i++)
      fprintf(fp, "  %s sync %s handle %u value %" PRIu64 "\n",
              i < s->in_sync_count ? "in" : "out",
              s->syncs[i].sync_type == DRM_ASAHI_SYNC_SYNCOBJ ? "syncobj"
              : s->syncs[i].sync_type == DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ ? "timeline"
                                                                        : "unknown",
              s->syncs[i].handle, (uint64_t)s->syncs[i].timeline_value);
   fprintf(fp, "  cmdbuf_size %u\n", s->cmdbuf_size);
   struct uapi_cmd_iter it;
   struct uapi_cmd c;
   uapi_cmd_iter_init(&it, s->cmdbuf, s->cmdbuf_size);
   while (uapi_cmd_next(&it, &c)) {
      print_command_header(fp, &c);
      if (c.h.cmd_type == DRM_ASAHI_CMD_RENDER) {
         print_render(fp, &c.u.render);
         if (d->streams)
            decode_stream(d, rec->file, s->queue_id, AGX_DECODE_VDM,
                          c.u.render.vdm_ctrl_stream_base);
      } else if (c.h.cmd_type == DRM_ASAHI_CMD_COMPUTE) {
         print_compute(fp, &c.u.compute);
         if (d->streams)
            decode_stream(d, rec->file, s->queue_id, AGX_DECODE_CDM,
                          c.u.compute.cdm_ctrl_stream_base);
      } else if (c.known) {
         for (uint32_t i = 0; i < uapi_cmd_attachment_count(&c); i++) {
            struct drm_asahi_attachment a = uapi_cmd_attachment(&c, i);
            fprintf(fp, "      attachment pointer 0x%" PRIx64 " size 0x%" PRIx64 " flags 0x%x\n",
                    (uint64_t)a.pointer, (uint64_t)a.size, a.flags);
         }
      } else {
         hex(fp, "      ", c.payload, c.h.size);
      }
   }
   if (it.status == UAPI_CMDBUF_SHORT_PAYLOAD) {
      print_command_header(fp, &c);
      fprintf(fp, "    XXX: %s\n", uapi_cmdbuf_status_str(it.status));
      return;
   }
   if (it.status == UAPI_CMDBUF_HEADER_PAST_END)
      fprintf(fp, "  XXX: %zu trailing bytes in the command buffer\n", it.size - it.pos);
   if (d->streams)
      print_submit_shaders(d, rec);
}

static void print_script(FILE *fp, const uint8_t *p, uint32_t size)
{
   uint32_t off = 0;
   while (off + 4 <= size) {
      unsigned op = p[off];
      uint32_t len = 0;
      bool (*dumpfn)(FILE *, const void *, int) = NULL;
      switch (op) {
      case AGX_FW_OP_WAIT_FOR_IDLE:
         len = AGX_FW_OP_WAIT_FOR_IDLE_LENGTH, dumpfn = agx_fw_op_wait_for_idle_dump;
         break;
      case AGX_FW_OP_BARRIER:
         len = AGX_FW_OP_BARRIER_LENGTH, dumpfn = agx_fw_op_barrier_dump;
         break;
      case AGX_FW_OP_TIMESTAMP:
         len = AGX_FW_OP_TIMESTAMP_LENGTH, dumpfn = agx_fw_op_timestamp_dump;
         break;
      case AGX_FW_OP_START:
         len = AGX_FW_OP_START_LENGTH, dumpfn = agx_fw_op_start_dump;
         break;
      case AGX_FW_OP_FINALIZE:
         len = AGX_FW_OP_FINALIZE_LENGTH, dumpfn = agx_fw_op_finalize_dump;
         break;
      default:
         break;
      }
      if (!dumpfn || off + len > size) {
         fprintf(fp, "    XXX: unknown or truncated op 0x%02x at script byte %u\n", op, off);
         hex(fp, "      ", p + off, size - off);
         return;
      }
      fprintf(fp, "    %s:\n", agx_fw_op_as_str((enum agx_fw_op)op));
      dumpfn(fp, p + off, 6);
      off += len;
   }
}

static void print_fw_job(struct tsr_dump *d, const struct tsr_fw_job *j)
{
   FILE *fp = d->fp;
   fprintf(fp, "  seq %u queue_id %u pipe %s vm_slot %u job_va 0x%" PRIx64 " payload_va 0x%" PRIx64
               "\n",
           j->seq, j->queue_id,
           j->pipe <= AGX_FW_PIPE_COMPUTE ? agx_fw_pipe_as_str((enum agx_fw_pipe)j->pipe) : "?",
           j->vm_slot, j->job_va, j->payload_va);
   unsigned tag = UINT32_MAX;
   if (j->header_size >= AGX_FW_JOB_HEADER_LENGTH) {
      fprintf(fp, "  header:\n");
      agx_fw_job_header_dump(fp, j->header, 4);
      tag = j->header[0];
   } else {
      fprintf(fp, "  XXX: header of %u bytes\n", j->header_size);
      hex(fp, "    ", j->header, j->header_size);
   }
   if (j->script_size) {
      fprintf(fp, "  script (%u bytes):\n", j->script_size);
      print_script(fp, j->script, j->script_size);
   }
   fprintf(fp, "  payload (%u bytes):\n", j->payload_size);
   if (tag == AGX_FW_COMMAND_RUN_COMPUTE && j->payload_size >= AGX_FW_COMPUTE_PAYLOAD_LENGTH)
      agx_fw_compute_payload_dump(fp, j->payload, 4);
   else if ((tag == AGX_FW_COMMAND_RUN_VERTEX || tag == AGX_FW_COMMAND_RUN_FRAGMENT) &&
            j->payload_size >= AGX_FW_RENDER_PAYLOAD_LENGTH)
      agx_fw_render_payload_dump(fp, j->payload, 4);
   else if (tag == AGX_FW_COMMAND_BARRIER && j->payload_size >= AGX_FW_BARRIER_PAYLOAD_LENGTH)
      agx_fw_barrier_payload_dump(fp, j->payload, 4);
   else
      hex(fp, "    ", j->payload, j->payload_size);
}

static void print_shader(struct tsr_dump *d, const struct tsr_record *rec)
{
   FILE *fp = d->fp;
   const struct tsr_shader *s = &rec->u.shader;
   fprintf(fp, "  seq %u stage %s va 0x%" PRIx64 " (usc offset 0x%" PRIx64 ") size %u hash ",
           s->seq, uapi_shader_stage_name(s->stage), s->va, s->va - s->usc_base, s->size);
   print_hash(fp, s->hash.b);
   fprintf(fp, "\n");
   if (!d->disasm || !s->size)
      return;
   /* Find the code through any VM that maps it (a queue's VM, normally). */
   size_t size = s->size < (1u << 20) ? s->size : (1u << 20);
   uint8_t *code = calloc(1, size);
   if (!code)
      return;
   bool found = false;
   for (uint32_t vm = 0; vm < 64 && !found; vm++)
      found = tsr_reader_read_va(d->r, rec->file, vm, s->va, code, size) == size;
   if (found) {
      struct tsr_hash h = tsr_hash_bytes(code, size);
      if (memcmp(h.b, s->hash.b, 16))
         fprintf(fp, "  (memory at this point differs from the recorded hash)\n");
      /* Branch targets print as GPU VAs: the address --override-shader
       * takes, so the text re-assembles there (agx_isa_assemble_at). */
      struct agx_disasm_options o = {.pc = s->va, .indent = "    ",
                                      .stop_at_end = true};
      agx_disasm_print(fp, code, size, &o);
   } else {
      fprintf(fp, "  (code not in the recorded memory)\n");
   }
   free(code);
}

static void print_record(struct tsr_dump *d, const struct tsr_record *rec)
{
   FILE *fp = d->fp;
   fprintf(fp, "%s", tsr_record_name(rec->type));
   if (rec->type == TSR_REC_SUBMIT)
      fprintf(fp, " %u", rec->seq);
   if (rec->type != TSR_REC_META && rec->type != TSR_REC_FRAME)
      fprintf(fp, " file %u", rec->file);
   switch (rec->type) {
   case TSR_REC_META:
      if (!d->times && !strcmp(rec->u.meta.key, "time"))
         fprintf(fp, " %s = (omitted, use --times)\n", rec->u.meta.key);
      else {
         /* Escaped so that every record stays line-structured. */
         fprintf(fp, " %s = ", rec->u.meta.key);
         for (const char *c = rec->u.meta.value; *c; c++) {
            if (*c == '\n')
               fputs("\\n", fp);
            else if (*c == '\\')
               fputs("\\\\", fp);
            else
               fputc(*c, fp);
         }
         fputc('\n', fp);
      }
      break;
   case TSR_REC_DRIVER:
      fprintf(fp, "\n  name %s\n  version %d.%d.%d\n  date %s\n  desc %s\n", rec->u.driver.name,
              rec->u.driver.major, rec->u.driver.minor, rec->u.driver.patchlevel,
              rec->u.driver.date, rec->u.driver.desc);
      break;
   case TSR_REC_DEVICE_PARAMS:
      fprintf(fp, "\n");
      print_params(fp, rec->u.params.p, rec->u.params.size);
      break;
   case TSR_REC_VM_CREATE:
      fprintf(fp, "\n  vm_id %u kernel_start 0x%" PRIx64 " kernel_end 0x%" PRIx64 "\n",
              rec->u.vm_create.vm_id, rec->u.vm_create.kernel_start, rec->u.vm_create.kernel_end);
      break;
   case TSR_REC_VM_DESTROY:
      fprintf(fp, "\n  vm_id %u\n", rec->u.vm_id);
      break;
   case TSR_REC_VM_BIND:
      fprintf(fp, "\n  vm_id %u num_binds %u result %d\n", rec->u.vm_bind.vm_id,
              rec->u.vm_bind.num_ops, rec->u.vm_bind.result);
      for (uint32_t i = 0; i < rec->u.vm_bind.num_ops; i++) {
         const struct drm_asahi_gem_bind_op *op = &rec->u.vm_bind.ops[i];
         fprintf(fp, "  op %u: flags 0x%x%s%s%s%s handle %u offset 0x%" PRIx64 " range 0x%" PRIx64
                     " addr 0x%" PRIx64 "\n",
                 i, op->flags, op->flags & DRM_ASAHI_BIND_UNBIND ? " UNBIND" : "",
                 op->flags & DRM_ASAHI_BIND_READ ? " READ" : "",
                 op->flags & DRM_ASAHI_BIND_WRITE ? " WRITE" : "",
                 op->flags & DRM_ASAHI_BIND_SINGLE_PAGE ? " SINGLE_PAGE" : "", op->handle,
                 (uint64_t)op->offset, (uint64_t)op->range, (uint64_t)op->addr);
      }
      break;
   case TSR_REC_GEM_CREATE:
      fprintf(fp, "\n  handle %u size 0x%" PRIx64 " flags 0x%x%s%s vm_id %u\n",
              rec->u.gem_create.handle, rec->u.gem_create.size, rec->u.gem_create.flags,
              rec->u.gem_create.flags & DRM_ASAHI_GEM_WRITEBACK ? " WRITEBACK" : "",
              rec->u.gem_create.flags & DRM_ASAHI_GEM_VM_PRIVATE ? " VM_PRIVATE" : "",
              rec->u.gem_create.vm_id);
      break;
   case TSR_REC_GEM_CLOSE:
      fprintf(fp, "\n  handle %u\n", rec->u.handle);
      break;
   case TSR_REC_BIND_OBJECT:
      fprintf(fp, "\n  op %s flags 0x%x handle %u offset 0x%" PRIx64 " range 0x%" PRIx64
                  " object_handle %u\n",
              rec->u.bind_object.op == DRM_ASAHI_BIND_OBJECT_OP_BIND     ? "BIND"
              : rec->u.bind_object.op == DRM_ASAHI_BIND_OBJECT_OP_UNBIND ? "UNBIND"
                                                                         : "?",
              rec->u.bind_object.flags, rec->u.bind_object.handle, rec->u.bind_object.offset,
              rec->u.bind_object.range, rec->u.bind_object.object_handle);
      break;
   case TSR_REC_QUEUE_CREATE:
      fprintf(fp, "\n  queue_id %u vm_id %u priority %u flags 0x%x usc_exec_base 0x%" PRIx64 "\n",
              rec->u.queue_create.queue_id, rec->u.queue_create.vm_id,
              rec->u.queue_create.priority, rec->u.queue_create.flags,
              rec->u.queue_create.usc_exec_base);
      break;
   case TSR_REC_QUEUE_DESTROY:
      fprintf(fp, "\n  queue_id %u\n", rec->u.queue_id);
      break;
   case TSR_REC_SUBMIT:
      fprintf(fp, "\n");
      print_submit(d, rec);
      break;
   case TSR_REC_MEMORY:
      fprintf(fp, "\n  handle %u pages %" PRIu64 "..%" PRIu64 "\n", rec->u.memory.handle,
              rec->u.memory.first_page,
              rec->u.memory.first_page + rec->u.memory.num_pages - 1);
      for (uint32_t i = 0; i < rec->u.memory.num_pages; i++) {
         fprintf(fp, "    page %" PRIu64 " ", rec->u.memory.first_page + i);
         print_hash(fp, rec->u.memory.hashes + 16 * i);
         fprintf(fp, "\n");
      }
      break;
   case TSR_REC_COMPLETION:
      fprintf(fp, "\n  seq %u status %d%s%s\n", rec->u.completion.seq, rec->u.completion.status,
              rec->u.completion.status ? " " : "",
              rec->u.completion.status ? strerror(-rec->u.completion.status) : "");
      if (d->times)
         fprintf(fp, "  cpu_time_ns %" PRIu64 "\n", rec->u.completion.cpu_time_ns);
      for (uint32_t i = 0; i < rec->u.completion.num_timestamps; i++) {
         const struct tsr_timestamp_value *t = &rec->u.completion.timestamps[i];
         if (d->times)
            fprintf(fp, "  timestamp handle %u offset %u value %" PRIu64 "\n", t->object_handle,
                    t->offset, t->value);
         else
            fprintf(fp, "  timestamp handle %u offset %u\n", t->object_handle, t->offset);
      }
      break;
   case TSR_REC_FRAME:
      fprintf(fp, " %u kind %u %s\n", rec->u.frame.frame, rec->u.frame.kind, rec->u.frame.label);
      break;
   case TSR_REC_FW_JOB:
      fprintf(fp, "\n");
      print_fw_job(d, &rec->u.fw_job);
      break;
   case TSR_REC_SHADER:
      fprintf(fp, "\n");
      print_shader(d, rec);
      break;
   default:
      fprintf(fp, " type %u (%u bytes, skipped)\n", rec->type, rec->size);
      break;
   }
}

/* The shader index: one line per SHADER record. Leaves the reader rewound. */
static unsigned print_index(struct tsr_dump *d)
{
   struct tsr_record rec;
   unsigned n = 0;
   while (tsr_reader_next(d->r, &rec) > 0) {
      if (rec.type != TSR_REC_SHADER)
         continue;
      const struct tsr_shader *s = &rec.u.shader;
      if (!n++)
         fprintf(d->fp, "# shader index (address size stage first-submission hash):\n");
      fprintf(d->fp, "#   0x%" PRIx64 " %u %s %u ", s->va, s->size, uapi_shader_stage_name(s->stage),
              s->seq);
      print_hash(d->fp, s->hash.b);
      fprintf(d->fp, "\n");
   }
   tsr_reader_rewind(d->r);
   return n;
}

struct tsr_dump *tsr_dump_create(FILE *fp, struct tsr_reader *r, const struct tsr_dump_options *o)
{
   struct tsr_dump *d = calloc(1, sizeof(*d));
   if (!d)
      return NULL;
   d->fp = fp;
   d->r = r;
   d->times = o->times;
   d->streams = o->streams;
   d->disasm = o->disasm;
   return d;
}

void tsr_dump_destroy(struct tsr_dump *d)
{
   if (!d)
      return;
   uapi_shader_cache_free(&d->cache);
   free(d);
}

void tsr_dump_hash(FILE *fp, const struct tsr_hash *h)
{
   print_hash(fp, h->b);
}

int tsr_dump_records(struct tsr_dump *d, enum tsr_dump_range range, uint64_t frame)
{
   if (range == TSR_DUMP_ALL) {
      const struct tsr_info *in = tsr_reader_info(d->r);
      fprintf(d->fp, "# tessera trace version %u.%u%s\n", in->version_major, in->version_minor,
              in->truncated ? " (truncated)" : "");
      print_index(d);
   }
   struct tsr_record rec;
   bool first = true;
   int ret;
   while ((ret = tsr_reader_next(d->r, &rec)) > 0) {
      if (range == TSR_DUMP_FRAME && rec.frame != frame)
         break;
      /* A submission's records run up to the next submission. */
      if (range == TSR_DUMP_SUBMIT && !first && rec.type == TSR_REC_SUBMIT)
         break;
      first = false;
      print_record(d, &rec);
   }
   if (ret < 0) {
      fprintf(d->fp, "# stopped: %s\n", tsr_reader_error(d->r));
      return -1;
   }
   return 0;
}

int tsr_dump_shader(struct tsr_dump *d, uint64_t va)
{
   struct tsr_record rec;
   int ret;
   while ((ret = tsr_reader_next(d->r, &rec)) > 0) {
      if (rec.type == TSR_REC_SHADER && rec.u.shader.va == va) {
         fprintf(d->fp, "shader file %u\n", rec.file);
         bool disasm = d->disasm;
         d->disasm = true;
         print_shader(d, &rec);
         d->disasm = disasm;
         return 1;
      }
   }
   return ret < 0 ? -1 : 0;
}
