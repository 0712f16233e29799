/* SPDX-License-Identifier: MIT */
/*
 * tessera decompile (replay_decompile.h): one walk over the trace's records
 * that writes, for each, the C the program runs at that point. The walk
 * keeps the same tables `tessera replay` keeps (the trace's ids -> the
 * program's indices, each VM's mappings) so the program's names are
 * stable small integers, and it finds each render command's targets from
 * the trace's memory with replay_image.c, which is what makes the
 * program's dumps and `replay --dump-raw` name and cover the same bytes.
 */
#include "replay/replay_decompile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "drm-uapi/asahi_drm.h"
#include "replay/replay_decompile_prelude.h"
#include "replay/replay_image.h"
#include "replay/replay_uapi_text.h"
#include "trace/trace.h"
#include "uapi/uapi_cmdbuf.h"
#include "uapi/uapi_vm_map.h"

#define DATA_NAME "decompiled.bin"

/* A trace id (object, VM, queue, timestamp object, syncobj) and the
 * program's index for it; indices start at 1 so 0 can mean "none". */
struct dc_id {
   uint32_t file, id;
   uint32_t vm;        /* queues: the trace's VM id */
   uint64_t usc_base;  /* queues */
   bool live;
};

struct dc_vec {
   struct dc_id *v;
   unsigned n, cap;
};

struct dc_vmmap {
   uint32_t file, vm;
   struct uapi_vm_map map;   /* handles are object indices */
};

/* A render command of the frame and the targets it writes. */
struct dc_render {
   uint32_t seq, file, vm;
   unsigned nt;
   struct replay_target t[REPLAY_MAX_TARGETS];
};

/* Distinct page contents already in the data file. */
struct dc_page {
   struct tsr_hash h;
   uint64_t offset;
   bool used;
};

struct dc {
   struct tsr_reader *r;
   FILE *subs, *frames;      /* memstreams: submission functions, frame functions */
   char *subs_buf, *frames_buf;
   size_t subs_len, frames_len;
   FILE *data;
   uint64_t data_size;
   struct dc_page *pages;
   size_t pages_cap, pages_n;
   struct dc_vec objs, vms, queues, tsobjs, syncs;
   struct dc_vmmap *maps;
   unsigned nmaps;
   struct dc_render *renders;
   unsigned nrenders, caprenders;
   uint32_t max_file;
   uint32_t cur_frame;
   bool in_frame;
   bool per_submit;
   bool failed, write_failed;
   char *err;
   size_t err_size;
   struct replay_decompile_stats st;
};

static void
fail(struct dc *d, const char *fmt, ...)
{
   if (d->failed)
      return;
   d->failed = true;
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(d->err, d->err_size, fmt, ap);
   va_end(ap);
}

/* ---- id tables ----------------------------------------------------------- */

static unsigned
id_add(struct dc *d, struct dc_vec *v, uint32_t file, uint32_t id)
{
   if (v->n == v->cap) {
      unsigned cap = v->cap ? v->cap * 2 : 16;
      void *p = realloc(v->v, cap * sizeof(*v->v));
      if (!p) {
         fail(d, "out of memory");
         return 0;
      }
      v->v = p;
      v->cap = cap;
   }
   v->v[v->n] = (struct dc_id){ .file = file, .id = id, .live = true };
   if (file > d->max_file)
      d->max_file = file;
   return ++v->n;   /* 1-based */
}

/* The newest live entry of (file, id): its index, or 0. */
static unsigned
id_find(const struct dc_vec *v, uint32_t file, uint32_t id)
{
   for (unsigned i = v->n; i-- > 0;)
      if (v->v[i].live && v->v[i].file == file && v->v[i].id == id)
         return i + 1;
   return 0;
}

static struct uapi_vm_map *
vm_map(struct dc *d, uint32_t file, uint32_t vm)
{
   for (unsigned i = 0; i < d->nmaps; i++)
      if (d->maps[i].file == file && d->maps[i].vm == vm)
         return &d->maps[i].map;
   void *p = realloc(d->maps, (d->nmaps + 1) * sizeof(*d->maps));
   if (!p) {
      fail(d, "out of memory");
      return NULL;
   }
   d->maps = p;
   d->maps[d->nmaps] = (struct dc_vmmap){ .file = file, .vm = vm };
   return &d->maps[d->nmaps++].map;
}

/* ---- data file ----------------------------------------------------------- */

static uint64_t
hash_slot(const struct tsr_hash *h, size_t cap)
{
   uint64_t x;
   memcpy(&x, h->b, 8);
   return x & (cap - 1);
}

/* Offset of the page's content in the data file, storing it if new. */
static bool
data_page(struct dc *d, const struct tsr_hash *h, uint64_t *offset)
{
   if (d->pages_n * 2 >= d->pages_cap) {
      size_t cap = d->pages_cap ? d->pages_cap * 2 : 1024;
      struct dc_page *n = calloc(cap, sizeof(*n));
      if (!n) {
         fail(d, "out of memory");
         return false;
      }
      for (size_t i = 0; i < d->pages_cap; i++) {
         if (!d->pages[i].used)
            continue;
         size_t s = hash_slot(&d->pages[i].h, cap);
         while (n[s].used)
            s = (s + 1) & (cap - 1);
         n[s] = d->pages[i];
      }
      free(d->pages);
      d->pages = n;
      d->pages_cap = cap;
   }
   size_t s = hash_slot(h, d->pages_cap);
   while (d->pages[s].used) {
      if (!memcmp(d->pages[s].h.b, h->b, sizeof(h->b))) {
         *offset = d->pages[s].offset;
         return true;
      }
      s = (s + 1) & (d->pages_cap - 1);
   }
   uint8_t page[TSR_PAGE_SIZE];
   if (tsr_reader_page(d->r, h, page)) {
      fail(d, "a recorded page cannot be read: %s", tsr_reader_error(d->r));
      return false;
   }
   if (fwrite(page, 1, sizeof(page), d->data) != sizeof(page)) {
      d->write_failed = true;
      fail(d, "%s: %s", DATA_NAME, strerror(errno));
      return false;
   }
   d->pages[s] = (struct dc_page){ .h = *h, .offset = d->data_size, .used = true };
   d->pages_n++;
   *offset = d->data_size;
   d->data_size += sizeof(page);
   return true;
}

/* ---- frames and dumps ---------------------------------------------------- */

static void
begin_frame(struct dc *d, uint32_t frame)
{
   if (d->in_frame)
      return;
   fprintf(d->frames, "/* frame %" PRIu32 " */\nstatic void\nframe_%" PRIu32 "(void)\n{\n", frame,
           frame);
   d->in_frame = true;
   d->cur_frame = frame;
}

static bool
read_va(void *ctx, uint64_t va, void *dst, size_t size)
{
   const struct dc_render *rd = ((void **)ctx)[1];
   struct tsr_reader *r = ((void **)ctx)[0];
   return tsr_reader_read_va(r, rd->file, rd->vm, va, dst, size) == size;
}

/* The dumps of the pending render commands, named as replay names them
 * (replay_dump_renders): the last writer of a target names it. */
static void
flush_dumps(struct dc *d)
{
   struct replay_target_seen seen = { .n = 0 };
   for (unsigned i = d->nrenders; i-- > 0;) {
      const struct dc_render *rd = &d->renders[i];
      struct uapi_vm_map *map = vm_map(d, rd->file, rd->vm);
      if (!map)
         return;
      for (unsigned k = 0; k < rd->nt; k++) {
         const struct replay_target *t = &rd->t[k];
         if (!replay_target_first_seen(&seen, t))
            continue;
         uint64_t base, size;
         replay_target_range(t, &base, &size);
         char name[96];
         snprintf(name, sizeof(name), "f%04" PRIu32 "_s%05" PRIu32 "_%s%u.raw", d->cur_frame,
                  rd->seq, replay_target_kind_name(t->kind), t->index);
         /* The target's bytes as pieces of the objects that map them. */
         char pieces[2048];
         size_t np = 0, len = 0;
         uint64_t va = base, left = size;
         while (left && len < sizeof(pieces) - 80) {
            const struct uapi_mapping *m = uapi_vm_map_find(map, va);
            if (!m)
               break;
            uint64_t avail, off = uapi_mapping_offset(m, va, &avail);
            uint64_t n = avail < left ? avail : left;
            len += (size_t)snprintf(pieces + len, sizeof(pieces) - len,
                                    "%s{ %" PRIu32 ", 0x%" PRIx64 ", 0x%" PRIx64 " }",
                                    np ? ", " : "", m->handle, off, n);
            np++;
            va += n;
            left -= n;
         }
         if (left) {
            fprintf(d->frames, "   /* %s: 0x%" PRIx64 " bytes at 0x%" PRIx64
                               " are not all mapped: not dumped */\n", name, size, base);
            continue;
         }
         fprintf(d->frames, "   dump(\"%s\", (const struct piece[]){ %s }, %zu);\n", name,
                 pieces, np);
         d->st.dumps++;
      }
   }
   d->nrenders = 0;
}

static void
end_frame(struct dc *d)
{
   if (!d->in_frame)
      return;
   flush_dumps(d);
   fputs("}\n\n", d->frames);
   d->in_frame = false;
   d->st.frames++;
}

/* ---- records ------------------------------------------------------------- */

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
do_vm_bind(struct dc *d, uint32_t file, const struct tsr_vm_bind *b)
{
   FILE *f = d->frames;
   if (b->result) {
      fprintf(f, "   /* a VM_BIND the kernel refused in the capture (%s) */\n",
              strerror(-b->result));
      return;
   }
   unsigned v = id_find(&d->vms, file, b->vm_id);
   if (!v) {
      fail(d, "VM_BIND on unknown VM %" PRIu32, b->vm_id);
      return;
   }
   struct uapi_vm_map *map = vm_map(d, file, b->vm_id);
   if (!map)
      return;
   fputs("   {\n      const struct drm_asahi_gem_bind_op ops[] = {\n", f);
   for (uint32_t i = 0; i < b->num_ops && !d->failed; i++) {
      struct drm_asahi_gem_bind_op op;
      memcpy(&op, &b->ops[i], sizeof(op));
      unsigned o = 0;
      char handle[48] = "0";
      if (!(op.flags & DRM_ASAHI_BIND_UNBIND)) {
         o = id_find(&d->objs, file, op.handle);
         if (!o) {
            fail(d, "VM_BIND of unknown GEM object %" PRIu32, op.handle);
            break;
         }
         snprintf(handle, sizeof(handle), "obj[%u].handle", o);
      }
      fprintf(f, "         { .flags = 0x%" PRIx32 ", .handle = %s, .offset = 0x%" PRIx64
                 ", .range = 0x%" PRIx64 ", .addr = 0x%" PRIx64 " },\n",
              (uint32_t)op.flags, handle, (uint64_t)op.offset, (uint64_t)op.range,
              (uint64_t)op.addr);
      struct drm_asahi_gem_bind_op mop = op;
      mop.handle = o;
      if (uapi_vm_map_apply(map, &mop) == -ENOMEM)
         fail(d, "out of memory");
   }
   fprintf(f, "      };\n      vm_bind(%" PRIu32 ", %u, ops, %" PRIu32 ");\n   }\n", file, v,
           b->num_ops);
}

static void
do_memory(struct dc *d, const struct tsr_record *rec)
{
   unsigned o = id_find(&d->objs, rec->file, rec->u.memory.handle);
   if (!o) {
      fail(d, "memory record for unknown GEM object %" PRIu32, rec->u.memory.handle);
      return;
   }
   uint64_t size = tsr_reader_object_size(d->r, rec->file, rec->u.memory.handle);
   /* Runs of pages whose contents follow each other in the data file are
    * one load. */
   uint64_t run_off = 0, run_data = 0, run_len = 0;
   for (uint32_t i = 0; i <= rec->u.memory.num_pages && !d->failed; i++) {
      uint64_t off = 0, data = 0, n = 0;
      if (i < rec->u.memory.num_pages) {
         off = (rec->u.memory.first_page + i) * (uint64_t)TSR_PAGE_SIZE;
         if (off < size) {
            struct tsr_hash h;
            memcpy(&h, rec->u.memory.hashes + 16 * (size_t)i, sizeof(h));
            if (!data_page(d, &h, &data))
               return;
            n = size - off < TSR_PAGE_SIZE ? size - off : TSR_PAGE_SIZE;
         }
      }
      if (n && run_len && run_off + run_len == off && run_data + run_len == data &&
          run_len % TSR_PAGE_SIZE == 0) {
         run_len += n;
         continue;
      }
      if (run_len) {
         fprintf(d->frames, "   load(%u, 0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ");\n", o,
                 run_off, run_data, run_len);
         d->st.loads++;
      }
      run_off = off, run_data = data, run_len = n;
   }
}

/* ---- submissions --------------------------------------------------------- */

static void
ts_field(FILE *f, const char *name, const struct drm_asahi_timestamp *t, unsigned idx)
{
   if (t->handle)
      fprintf(f, "      .%s = { .handle = tsobj[%u], .offset = 0x%" PRIx32 " },\n", name, idx,
              (uint32_t)t->offset);
   else
      fprintf(f, "      .%s = { .handle = 0, .offset = 0x%" PRIx32 " },\n", name,
              (uint32_t)t->offset);
}

static bool
ts_index(struct dc *d, uint32_t file, const struct drm_asahi_timestamp *t, unsigned *idx)
{
   *idx = 0;
   if (!t->handle)
      return true;
   *idx = id_find(&d->tsobjs, file, t->handle);
   if (!*idx)
      fail(d, "a command uses unknown timestamp object %" PRIu32, (uint32_t)t->handle);
   return *idx != 0;
}

#define X64(field) fprintf(f, "      ." #field " = 0x%" PRIx64 ",\n", (uint64_t)c->field)
#define X32(field) fprintf(f, "      ." #field " = 0x%" PRIx32 ",\n", (uint32_t)c->field)
#define U(field) fprintf(f, "      ." #field " = %" PRIu32 ",\n", (uint32_t)c->field)

static void
print_render(struct dc *d, FILE *f, uint32_t file, unsigned n, const struct drm_asahi_cmd_render *c)
{
   unsigned ts[4];
   const struct drm_asahi_timestamp *t[4] = { &c->ts_vtx.start, &c->ts_vtx.end,
                                              &c->ts_frag.start, &c->ts_frag.end };
   for (unsigned k = 0; k < 4; k++)
      if (!ts_index(d, file, t[k], &ts[k]))
         return;
   fprintf(f, "   struct drm_asahi_cmd_render render%u = {\n", n);
   X32(flags);
   X32(isp_zls_pixels);
   X64(vdm_ctrl_stream_base);
   X32(vertex_helper.binary);
   X32(vertex_helper.cfg);
   X64(vertex_helper.data);
   X32(fragment_helper.binary);
   X32(fragment_helper.cfg);
   X64(fragment_helper.data);
   X64(isp_scissor_base);
   X64(isp_dbias_base);
   X64(isp_oclqry_base);
   X64(depth.base);
   X64(depth.comp_base);
   X32(depth.stride);
   X32(depth.comp_stride);
   X64(stencil.base);
   X64(stencil.comp_base);
   X32(stencil.stride);
   X32(stencil.comp_stride);
   X64(zls_ctrl);
   X64(ppp_multisamplectl);
   X64(sampler_heap);
   X32(ppp_ctrl);
   U(width_px);
   U(height_px);
   U(layers);
   U(sampler_count);
   U(utile_width_px);
   U(utile_height_px);
   U(samples);
   U(sample_size_B);
   X32(isp_merge_upper_x);
   X32(isp_merge_upper_y);
   X32(bg.usc);
   X32(bg.rsrc_spec);
   X32(eot.usc);
   X32(eot.rsrc_spec);
   X32(partial_bg.usc);
   X32(partial_bg.rsrc_spec);
   X32(partial_eot.usc);
   X32(partial_eot.rsrc_spec);
   X32(isp_bgobjdepth);
   X32(isp_bgobjvals);
   ts_field(f, "ts_vtx.start", t[0], ts[0]);
   ts_field(f, "ts_vtx.end", t[1], ts[1]);
   ts_field(f, "ts_frag.start", t[2], ts[2]);
   ts_field(f, "ts_frag.end", t[3], ts[3]);
   fputs("   };\n", f);
}

static void
print_compute(struct dc *d, FILE *f, uint32_t file, unsigned n,
              const struct drm_asahi_cmd_compute *c)
{
   unsigned ts[2];
   if (!ts_index(d, file, &c->ts.start, &ts[0]) || !ts_index(d, file, &c->ts.end, &ts[1]))
      return;
   fprintf(f, "   struct drm_asahi_cmd_compute compute%u = {\n", n);
   X32(flags);
   U(sampler_count);
   X64(cdm_ctrl_stream_base);
   X64(cdm_ctrl_stream_end);
   X64(sampler_heap);
   X32(helper.binary);
   X32(helper.cfg);
   X64(helper.data);
   ts_field(f, "ts.start", &c->ts.start, ts[0]);
   ts_field(f, "ts.end", &c->ts.end, ts[1]);
   fputs("   };\n", f);
}

static const char *
cmd_type_name(uint16_t type)
{
   switch (type) {
   case DRM_ASAHI_CMD_RENDER: return "DRM_ASAHI_CMD_RENDER";
   case DRM_ASAHI_CMD_COMPUTE: return "DRM_ASAHI_CMD_COMPUTE";
   case DRM_ASAHI_SET_VERTEX_ATTACHMENTS: return "DRM_ASAHI_SET_VERTEX_ATTACHMENTS";
   case DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS: return "DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS";
   case DRM_ASAHI_SET_COMPUTE_ATTACHMENTS: return "DRM_ASAHI_SET_COMPUTE_ATTACHMENTS";
   default: return NULL;
   }
}

static void
barrier(char *out, size_t size, uint16_t b)
{
   if (b == DRM_ASAHI_BARRIER_NONE)
      snprintf(out, size, "DRM_ASAHI_BARRIER_NONE");
   else
      snprintf(out, size, "%u", b);
}

/* The render command's targets, from the trace's memory as of now (the
 * end-of-tile program and its descriptors were written before the SUBMIT). */
static void
note_render(struct dc *d, uint32_t seq, uint32_t file, uint32_t vm, uint64_t usc_base,
            const struct drm_asahi_cmd_render *cmd)
{
   if (d->nrenders == d->caprenders) {
      unsigned cap = d->caprenders ? d->caprenders * 2 : 16;
      void *p = realloc(d->renders, cap * sizeof(*d->renders));
      if (!p) {
         fail(d, "out of memory");
         return;
      }
      d->renders = p;
      d->caprenders = cap;
   }
   struct dc_render *rd = &d->renders[d->nrenders];
   rd->seq = seq, rd->file = file, rd->vm = vm;
   void *ctx[2] = { d->r, rd };
   char err[256];
   int nt = replay_find_targets(cmd, usc_base, read_va, ctx, rd->t, REPLAY_MAX_TARGETS, err,
                                sizeof(err));
   if (nt < 0) {
      fprintf(d->frames, "   /* submission %" PRIu32 ": %s: no dump */\n", seq, err);
      return;
   }
   rd->nt = (unsigned)nt;
   d->nrenders++;
}

static void
do_submit(struct dc *d, const struct tsr_record *rec)
{
   const struct tsr_submit *s = &rec->u.submit;
   uint32_t seq = rec->seq;
   if (s->result) {
      fprintf(d->frames, "   /* submission %" PRIu32 ": the kernel refused it in the capture (%s) */\n",
              seq, strerror(-s->result));
      return;
   }
   unsigned q = id_find(&d->queues, rec->file, s->queue_id);
   if (!q) {
      fail(d, "submission %" PRIu32 " on unknown queue %" PRIu32, seq, s->queue_id);
      return;
   }
   const struct dc_id *qi = &d->queues.v[q - 1];
   FILE *f = d->subs;
   struct uapi_cmd_iter it;
   struct uapi_cmd c;
   uapi_cmd_iter_init(&it, s->cmdbuf, s->cmdbuf_size);
   unsigned ncmds = 0;
   while (uapi_cmd_next(&it, &c))
      ncmds++;
   if (uapi_cmd_iter_failed(&it)) {
      fail(d, "submission %" PRIu32 ": command %" PRIu32 " overruns the command buffer", seq,
           c.index);
      return;
   }
   fprintf(f, "/* submission %" PRIu32 " (frame %" PRIu32 "): %u command%s on queue %u */\n"
              "static void\nsubmit_%" PRIu32 "(void)\n{\n",
           seq, rec->frame, ncmds, ncmds == 1 ? "" : "s", q, seq);
   /* the payloads */
   uapi_cmd_iter_init(&it, s->cmdbuf, s->cmdbuf_size);
   while (!d->failed && uapi_cmd_next(&it, &c)) {
      if (c.h.cmd_type == DRM_ASAHI_CMD_RENDER) {
         print_render(d, f, rec->file, c.index, &c.u.render);
         note_render(d, seq, rec->file, qi->vm, qi->usc_base, &c.u.render);
      } else if (c.h.cmd_type == DRM_ASAHI_CMD_COMPUTE) {
         print_compute(d, f, rec->file, c.index, &c.u.compute);
      } else if (c.known && c.h.size % sizeof(struct drm_asahi_attachment) == 0 && c.h.size) {
         fprintf(f, "   const struct drm_asahi_attachment attachments%" PRIu32 "[] = {\n", c.index);
         for (size_t k = 0; k < c.h.size / sizeof(struct drm_asahi_attachment); k++) {
            struct drm_asahi_attachment a;
            memcpy(&a, c.payload + k * sizeof(a), sizeof(a));
            fprintf(f, "      { .pointer = 0x%" PRIx64 ", .size = 0x%" PRIx64
                       ", .pad = %" PRIu32 ", .flags = 0x%" PRIx32 " },\n",
                    (uint64_t)a.pointer, (uint64_t)a.size, (uint32_t)a.pad, (uint32_t)a.flags);
         }
         fputs("   };\n", f);
      } else {
         fprintf(f, "   const uint8_t raw%" PRIu32 "[%u] = {", c.index, c.h.size ? c.h.size : 1);
         for (unsigned k = 0; k < c.h.size; k++)
            fprintf(f, "%s0x%02x,", k % 12 ? " " : "\n      ", c.payload[k]);
         fputs("\n   };\n", f);
      }
   }
   /* the syncs: in-syncs the program signalled itself, then out-syncs */
   fputs("   const struct drm_asahi_sync syncs[] = {\n", f);
   unsigned nin = 0, nout = 0;
   for (uint32_t i = 0; i < s->in_sync_count + s->out_sync_count && !d->failed; i++) {
      const struct drm_asahi_sync *y = &s->syncs[i];
      bool in = i < s->in_sync_count;
      unsigned k = id_find(&d->syncs, rec->file, y->handle);
      if (in && !k) {
         fprintf(f, "      /* in: syncobj %" PRIu32 " from outside the trace, dropped */\n",
                 (uint32_t)y->handle);
         continue;
      }
      if (!k)
         k = id_add(d, &d->syncs, rec->file, y->handle);
      fprintf(f, "      { .sync_type = %s, .handle = syncobj(%" PRIu32 ", %u), .timeline_value = %" PRIu64
                 " },   /* %s */\n",
              y->sync_type == DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ ? "DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ"
                                                              : "DRM_ASAHI_SYNC_SYNCOBJ",
              rec->file, k, (uint64_t)y->timeline_value, in ? "in" : "out");
      if (in)
         nin++;
      else
         nout++;
   }
   if (!nin && !nout)
      fputs("      { 0 },   /* none */\n", f);
   fputs("   };\n   struct cmdbuf cb = { 0 };\n\n", f);
   uapi_cmd_iter_init(&it, s->cmdbuf, s->cmdbuf_size);
   while (!d->failed && uapi_cmd_next(&it, &c)) {
      char vb[32], cbar[32], type[16];
      barrier(vb, sizeof(vb), c.h.vdm_barrier);
      barrier(cbar, sizeof(cbar), c.h.cdm_barrier);
      const char *tn = cmd_type_name(c.h.cmd_type);
      if (!tn) {
         snprintf(type, sizeof(type), "%u", c.h.cmd_type);
         tn = type;
      }
      if (c.h.cmd_type == DRM_ASAHI_CMD_RENDER)
         fprintf(f, "   cmd(&cb, %s, %s, %s, &render%" PRIu32 ", sizeof(render%" PRIu32 "));\n",
                 tn, vb, cbar, c.index, c.index);
      else if (c.h.cmd_type == DRM_ASAHI_CMD_COMPUTE)
         fprintf(f, "   cmd(&cb, %s, %s, %s, &compute%" PRIu32 ", sizeof(compute%" PRIu32 "));\n",
                 tn, vb, cbar, c.index, c.index);
      else if (c.known && c.h.size % sizeof(struct drm_asahi_attachment) == 0 && c.h.size)
         fprintf(f, "   cmd(&cb, %s, %s, %s, attachments%" PRIu32 ", sizeof(attachments%" PRIu32
                    "));\n", tn, vb, cbar, c.index, c.index);
      else
         fprintf(f, "   cmd(&cb, %s, %s, %s, raw%" PRIu32 ", %u);\n", tn, vb, cbar, c.index,
                 c.h.size);
   }
   fprintf(f, "   cur_submit = %" PRIu32 ";\n   submit(%" PRIu32 ", %u, 0x%" PRIx32
              ", syncs, %u, %u, &cb);\n}\n\n",
           seq, rec->file, q, s->flags, nin, nout);
   fprintf(d->frames, "   submit_%" PRIu32 "();\n", seq);
   d->st.submits++;
   if (d->per_submit)
      flush_dumps(d);
}

static void
do_record(struct dc *d, const struct tsr_record *rec)
{
   FILE *f = d->frames;
   uint32_t file = rec->file;
   switch (rec->type) {
   case TSR_REC_VM_CREATE: {
      unsigned v = id_add(d, &d->vms, file, rec->u.vm_create.vm_id);
      struct uapi_vm_map *m = vm_map(d, file, rec->u.vm_create.vm_id);
      if (m)
         uapi_vm_map_clear(m);
      fprintf(f, "   vm_create(%u, %" PRIu32 ", 0x%" PRIx64 ", 0x%" PRIx64 ");   /* trace VM %" PRIu32
                 " */\n", v, file, rec->u.vm_create.kernel_start, rec->u.vm_create.kernel_end,
              rec->u.vm_create.vm_id);
      d->st.vms++;
      break;
   }
   case TSR_REC_VM_DESTROY: {
      unsigned v = id_find(&d->vms, file, rec->u.vm_id);
      if (v) {
         d->vms.v[v - 1].live = false;
         struct uapi_vm_map *m = vm_map(d, file, rec->u.vm_id);
         if (m)
            uapi_vm_map_clear(m);
         fprintf(f, "   vm_destroy(%u, %" PRIu32 ");\n", v, file);
      }
      break;
   }
   case TSR_REC_VM_BIND:
      do_vm_bind(d, file, &rec->u.vm_bind);
      break;
   case TSR_REC_GEM_CREATE: {
      const struct tsr_gem_create *g = &rec->u.gem_create;
      int v = -1;
      if (g->flags & DRM_ASAHI_GEM_VM_PRIVATE) {
         v = (int)id_find(&d->vms, file, g->vm_id);
         if (!v) {
            fail(d, "GEM object %" PRIu32 " is private to unknown VM %" PRIu32, g->handle,
                 g->vm_id);
            break;
         }
      }
      unsigned o = id_add(d, &d->objs, file, g->handle);
      fprintf(f, "   gem_create(%u, %" PRIu32 ", 0x%" PRIx64 ", 0x%" PRIx32 ", %d);   /* trace handle %"
                 PRIu32 " */\n", o, file, g->size, g->flags, v, g->handle);
      d->st.objects++;
      break;
   }
   case TSR_REC_GEM_CLOSE: {
      unsigned o = id_find(&d->objs, file, rec->u.handle);
      if (o) {
         d->objs.v[o - 1].live = false;
         for (unsigned i = 0; i < d->nmaps; i++)
            if (d->maps[i].file == file)
               uapi_vm_map_drop_handle(&d->maps[i].map, o);
         fprintf(f, "   gem_close(%u);\n", o);
      }
      break;
   }
   case TSR_REC_BIND_OBJECT: {
      const struct tsr_bind_object *b = &rec->u.bind_object;
      if (b->op == DRM_ASAHI_BIND_OBJECT_OP_UNBIND) {
         unsigned t = id_find(&d->tsobjs, file, b->object_handle);
         if (t) {
            d->tsobjs.v[t - 1].live = false;
            fprintf(f, "   unbind_object(%u, %" PRIu32 ");\n", t, file);
         }
         break;
      }
      unsigned o = id_find(&d->objs, file, b->handle);
      if (!o) {
         fail(d, "GEM_BIND_OBJECT of unknown GEM object %" PRIu32, b->handle);
         break;
      }
      unsigned t = id_add(d, &d->tsobjs, file, b->object_handle);
      fprintf(f, "   bind_object(%u, %u, 0x%" PRIx32 ", 0x%" PRIx64 ", 0x%" PRIx64 ");\n", t, o,
              b->flags, b->offset, b->range);
      break;
   }
   case TSR_REC_QUEUE_CREATE: {
      const struct tsr_queue_create *qc = &rec->u.queue_create;
      unsigned v = id_find(&d->vms, file, qc->vm_id);
      if (!v) {
         fail(d, "queue %" PRIu32 " on unknown VM %" PRIu32, qc->queue_id, qc->vm_id);
         break;
      }
      unsigned q = id_add(d, &d->queues, file, qc->queue_id);
      if (q) {
         d->queues.v[q - 1].vm = qc->vm_id;
         d->queues.v[q - 1].usc_base = qc->usc_exec_base;
      }
      fprintf(f, "   queue_create(%u, %" PRIu32 ", %u, %" PRIu32 ", 0x%" PRIx32 ", 0x%" PRIx64 ");\n",
              q, file, v, qc->priority, qc->flags, qc->usc_exec_base);
      d->st.queues++;
      break;
   }
   case TSR_REC_QUEUE_DESTROY: {
      unsigned q = id_find(&d->queues, file, rec->u.queue_id);
      if (q) {
         d->queues.v[q - 1].live = false;
         fprintf(f, "   queue_destroy(%u, %" PRIu32 ");\n", q, file);
      }
      break;
   }
   case TSR_REC_MEMORY:
      do_memory(d, rec);
      break;
   case TSR_REC_SUBMIT:
      do_submit(d, rec);
      break;
   default:
      break;   /* metadata, completions, firmware jobs, shaders */
   }
}

/* ---- output -------------------------------------------------------------- */

static bool
write_file(struct dc *d, const char *dir, const char *name, const char *a, size_t alen,
           const char *b, size_t blen)
{
   char path[4096];
   snprintf(path, sizeof(path), "%s/%s", dir, name);
   FILE *f = fopen(path, "w");
   bool ok = f && fwrite(a, 1, alen, f) == alen && (!blen || fwrite(b, 1, blen, f) == blen);
   if (f && fclose(f))
      ok = false;
   if (!ok) {
      d->write_failed = true;
      fail(d, "%s: %s", path, strerror(errno ? errno : EIO));
   }
   return ok;
}

static void
write_program(struct dc *d, const char *trace_path, const char *dir)
{
   char *buf = NULL;
   size_t len = 0;
   FILE *f = open_memstream(&buf, &len);
   if (!f) {
      fail(d, "out of memory");
      return;
   }
   fprintf(f,
           "/* SPDX-License-Identifier: MIT */\n"
           "/*\n"
           " * Written by `tessera decompile` from %s:\n"
           " * %" PRIu64 " submissions in %" PRIu64 " frames, %" PRIu64 " GEM objects, %" PRIu64
           " VMs, %" PRIu64 " queues.\n"
           " *\n"
           " * It recreates the trace's VMs, objects and memory at the recorded GPU\n"
           " * addresses and issues the same submissions in order, through libdrm\n"
           " * and the uAPI (asahi_drm.h); memory comes from " DATA_NAME ", by offset.\n"
           " * %s it writes each render target's memory as\n"
           " * fFFFF_sSSSSS_KINDn.raw, as `tessera replay --dump-images DIR --dump-raw%s`\n"
           " * does. Edit freely and rebuild: make (or cc -o decompiled decompiled.c\n"
           " * $(pkg-config --cflags --libs libdrm)).\n"
           " *\n"
           " * usage: ./decompiled [-o OUT_DIR] [-d RENDER_NODE]   (on the model:\n"
           " *        tessera run -- ./decompiled -o OUT_DIR)\n"
           " */\n",
           trace_path, d->st.submits, d->st.frames, d->st.objects, d->st.vms, d->st.queues,
           d->per_submit ? "After each submission" : "At the end of each frame",
           d->per_submit ? " --per-submit" : "");
   fprintf(f, "#define NUM_FILES %" PRIu32 "\n#define NUM_OBJS %u\n#define NUM_VMS %u\n"
              "#define NUM_QUEUES %u\n#define NUM_TSOBJS %u\n#define NUM_SYNCOBJS %u\n"
              "#define DATA_FILE \"" DATA_NAME "\"\n#define DATA_SIZE %" PRIu64 "ull\n\n",
           d->max_file + 1, d->objs.n, d->vms.n, d->queues.n, d->tsobjs.n, d->syncs.n,
           d->data_size);
   fputs(replay_decompile_prelude, f);
   fputs("/* ---- submissions ---------------------------------------------------- */\n\n", f);
   fwrite(d->subs_buf, 1, d->subs_len, f);
   fputs("/* ---- frames --------------------------------------------------------- */\n\n", f);
   fwrite(d->frames_buf, 1, d->frames_len, f);
   fputs("int\nmain(int argc, char **argv)\n{\n"
         "   for (int i = 1; i < argc; i++) {\n"
         "      if (!strcmp(argv[i], \"-o\") && i + 1 < argc) {\n"
         "         out_dir = argv[++i];\n"
         "      } else if (!strcmp(argv[i], \"-d\") && i + 1 < argc) {\n"
         "         node = argv[++i];\n"
         "      } else {\n"
         "         fprintf(stderr, \"usage: %s [-o OUT_DIR] [-d RENDER_NODE]\\n\", argv[0]);\n"
         "         return 2;\n"
         "      }\n"
         "   }\n"
         "   map_data(argv[0]);\n"
         "   for (int f = 0; f < NUM_FILES; f++)\n"
         "      open_file(f);\n",
         f);
   for (uint32_t i = 0; i < d->st.frames; i++)
      fprintf(f, "   frame_%" PRIu32 "();\n", i);
   fprintf(f, "   printf(\"decompiled: %" PRIu64 " submissions, %" PRIu64
              " render-target dumps in %%s\\n\", out_dir);\n   return 0;\n}\n",
           d->st.submits, d->st.dumps);
   if (fclose(f)) {
      free(buf);
      fail(d, "out of memory");
      return;
   }
   d->st.source_bytes = len;
   write_file(d, dir, "decompiled.c", buf, len, NULL, 0);
   free(buf);
}

static const char makefile[] =
   "# SPDX-License-Identifier: MIT\n"
   "# Written by `tessera decompile`: builds the decompiled program.\n"
   "CC ?= cc\n"
   "CFLAGS ?= -O1 -g\n"
   "DRM_FLAGS := $(shell pkg-config --cflags --libs libdrm 2>/dev/null || echo -I/usr/include/libdrm -ldrm)\n"
   "\n"
   "decompiled: decompiled.c asahi_drm.h\n"
   "\t$(CC) $(CFLAGS) -o $@ decompiled.c $(DRM_FLAGS)\n"
   "\n"
   "clean:\n"
   "\trm -f decompiled\n";

enum replay_status
replay_decompile(const char *trace_path, const char *out_dir, bool per_submit,
                 struct replay_decompile_stats *st, bool *write_failed, char *err,
                 size_t err_size)
{
   struct dc d = { .err = err, .err_size = err_size, .per_submit = per_submit };
   *write_failed = false;
   if (err_size)
      err[0] = 0;
   int r = tsr_reader_open(&d.r, trace_path, err, err_size);
   if (r)
      return REPLAY_ERROR;
   if (tsr_reader_info(d.r)->damage) {
      fail(&d, "%s is damaged: %s", trace_path, tsr_reader_damage(d.r));
      tsr_reader_close(d.r);
      return REPLAY_ERROR;
   }
   if (mkdir(out_dir, 0777) && errno != EEXIST) {
      fail(&d, "cannot create %s: %s", out_dir, strerror(errno));
      *write_failed = true;
      tsr_reader_close(d.r);
      return REPLAY_ERROR;
   }
   char path[4096];
   snprintf(path, sizeof(path), "%s/%s", out_dir, DATA_NAME);
   d.data = fopen(path, "wb");
   d.subs = open_memstream(&d.subs_buf, &d.subs_len);
   d.frames = open_memstream(&d.frames_buf, &d.frames_len);
   if (!d.data) {
      d.write_failed = true;
      fail(&d, "%s: %s", path, strerror(errno));
   } else if (!d.subs || !d.frames) {
      fail(&d, "out of memory");
   }

   struct tsr_record rec;
   while (!d.failed) {
      r = tsr_reader_next(d.r, &rec);
      if (r < 0) {
         fail(&d, "%s: %s", trace_path, tsr_reader_error(d.r));
         break;
      }
      if (r == 0)
         break;
      if (d.in_frame && rec.frame != d.cur_frame)
         end_frame(&d);
      begin_frame(&d, rec.frame);
      /* replay dumps before a record takes memory away (drops_memory) */
      if (d.nrenders && drops_memory(&rec))
         flush_dumps(&d);
      do_record(&d, &rec);
   }
   if (!d.failed && tsr_reader_info(d.r)->damage)
      fail(&d, "%s is damaged: %s", trace_path, tsr_reader_damage(d.r));
   if (!d.failed) {
      if (!d.in_frame)
         begin_frame(&d, 0);
      end_frame(&d);
   }
   /* frames are numbered from 0 without gaps in a trace; a frame the walk
    * never saw a record of still needs its (empty) function */
   if (d.subs)
      fflush(d.subs);
   if (d.frames)
      fflush(d.frames);
   if (!d.failed && d.cur_frame + 1 != d.st.frames)
      fail(&d, "%s: frame numbers skip (frame %" PRIu32 " is the %" PRIu64 "th)", trace_path,
           d.cur_frame, d.st.frames);
   if (d.data && fclose(d.data) && !d.failed) {
      d.write_failed = true;
      fail(&d, "%s: %s", path, strerror(errno));
   }
   d.st.data_bytes = d.data_size;
   if (!d.failed)
      write_program(&d, trace_path, out_dir);
   if (!d.failed)
      write_file(&d, out_dir, "asahi_drm.h", replay_uapi_header_text,
                 sizeof(replay_uapi_header_text) - 1, NULL, 0);
   if (!d.failed)
      write_file(&d, out_dir, "Makefile", makefile, sizeof(makefile) - 1, NULL, 0);

   if (d.subs)
      fclose(d.subs);
   if (d.frames)
      fclose(d.frames);
   free(d.subs_buf);
   free(d.frames_buf);
   free(d.pages);
   free(d.objs.v);
   free(d.vms.v);
   free(d.queues.v);
   free(d.tsobjs.v);
   free(d.syncs.v);
   for (unsigned i = 0; i < d.nmaps; i++)
      uapi_vm_map_free(&d.maps[i].map);
   free(d.maps);
   free(d.renders);
   tsr_reader_close(d.r);
   if (st)
      *st = d.st;
   *write_failed = d.write_failed;
   return d.failed ? REPLAY_ERROR : REPLAY_OK;
}
