/* SPDX-License-Identifier: MIT */
/*
 * The replay tests' live program (rs_scene.h). Memory layout of
 * the one 4 MiB object, bound at RS_VA (also the queue's USC base):
 * shaders and word lists first, then per-frame data.
 */
#include "tests/lib/rs_scene.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmdstream/agx_pack.h"
#include "drm-uapi/asahi_drm.h"
#include "trace/trace.h"
#include "tests/lib/tu_draw.h"
#include "tests/lib/tu_usc.h"

#define RS_VA 0x100000000ull
#define RS_SIZE (4ull << 20)
#define RS_KERNEL_START 0x7000000000ull
#define RS_KERNEL_SIZE (256ull << 20)
#define RS_TS_SIZE 16384u

const uint8_t rs_triangle_rgba[4] = { 0x20, 0xc0, 0x40, 0xff };

const char *const rs_compute_src =
   "get_sr r1, sr80\n"
   "iadd r2, r1, u2\n"
   "device_store 0, i32, x, r2, u0_u1, r1, unsigned, 0\n"
   "stop\n";

/* The "fixed" shader the override test substitutes: i + k + 7. */
const char *const rs_compute_alt_src =
   "get_sr r1, sr80\n"
   "iadd r2, r1, u2\n"
   "iadd r2, r2, 7\n"
   "device_store 0, i32, x, r2, u0_u1, r1, unsigned, 0\n"
   "stop\n";

void
rs_clear_color(unsigned frame, uint8_t rgba[4])
{
   rgba[0] = (uint8_t)(0x10 + 0x30 * (frame % 5));
   rgba[1] = 0x33;
   rgba[2] = (uint8_t)(0xf0 - 0x20 * (frame % 7));
   rgba[3] = 0xff;
}

size_t
rs_assemble(const char *src, uint8_t *code, size_t cap)
{
   char err[160];
   size_t len = tu_usc_assemble(src, code, cap, err, sizeof(err));
   if (!len)
      fprintf(stderr, "rs_assemble: %s\n", err);
   return len;
}

struct rs {
   struct replay_backend *b;
   struct tsr_writer *w;
   uint8_t *mem;
   uint64_t used;
   uint32_t gem, ts_gem, ts_obj, queue, vm, sync;
   uint8_t *ts_map;
   bool corrupt;
   char *err;
   size_t err_size;
};

static uint64_t
put(struct rs *s, const void *data, uint64_t size, uint64_t align)
{
   s->used = (s->used + align - 1) & ~(align - 1);
   uint64_t va = RS_VA + s->used;
   if (s->used + size > RS_SIZE)
      return 0;
   if (data)
      memcpy(s->mem + s->used, data, size);
   s->used += size;
   return va;
}

static uint64_t
shader(struct rs *s, const char *src)
{
   uint8_t code[1024];
   size_t n = rs_assemble(src, code, sizeof(code));
   return n ? put(s, code, n, 128) : 0;
}

static uint32_t
pipeline(struct rs *s, uint64_t code, const void *uni, unsigned uni_bytes, uint64_t tex,
         bool fragment)
{
   struct tu_usc_pipeline p = {
      .code = (uint32_t)(code - RS_VA),
      .uniforms = uni_bytes ? put(s, uni, uni_bytes, 16) : 0, .uniform_bytes = uni_bytes,
      .textures = tex,
      .shared = fragment ? TU_USC_SHARED_TILE_32X32 : TU_USC_SHARED_VERTEX_COMPUTE,
      .registers = 32,
   };
   uint8_t w[TU_USC_WORDS_MAX];
   unsigned n = tu_usc_words(w, &p);
   return (uint32_t)(put(s, w, n, 64) - RS_VA);
}

static int
fail(struct rs *s, const char *what, int r)
{
   snprintf(s->err, s->err_size, "%s: %s", what, strerror(r < 0 ? -r : r));
   return -1;
}

/* Records the whole object (the writer keeps only changed pages). With
 * corrupt, the page holding `corrupt_va` is recorded with a flipped byte. */
static void
record_memory(struct rs *s, uint64_t corrupt_va)
{
   if (!s->w)
      return;
   if (!corrupt_va) {
      tsr_write_memory(s->w, 0, s->gem, 0, s->mem, RS_SIZE);
      return;
   }
   uint8_t *copy = malloc(RS_SIZE);
   if (!copy)
      return;
   memcpy(copy, s->mem, RS_SIZE);
   copy[corrupt_va - RS_VA] ^= 0x5a;
   tsr_write_memory(s->w, 0, s->gem, 0, copy, RS_SIZE);
   free(copy);
}

static int
submit(struct rs *s, uint16_t type, const void *cmd, uint16_t size, uint64_t *gpu_ns)
{
   uint8_t buf[sizeof(struct drm_asahi_cmd_header) + sizeof(struct drm_asahi_cmd_render)];
   struct drm_asahi_cmd_header h = { .cmd_type = type, .size = size,
                                     .vdm_barrier = DRM_ASAHI_BARRIER_NONE,
                                     .cdm_barrier = DRM_ASAHI_BARRIER_NONE };
   memcpy(buf, &h, sizeof(h));
   memcpy(buf + sizeof(h), cmd, size);
   struct drm_asahi_sync out = { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ, .handle = s->sync };
   struct drm_asahi_submit sub = { .syncs = (uintptr_t)&out, .cmdbuf = (uintptr_t)buf,
                                   .queue_id = s->queue, .out_sync_count = 1,
                                   .cmdbuf_size = (uint32_t)(sizeof(h) + size) };
   memset(s->ts_map, 0, 64);
   int r = s->b->ioctl(s->b, DRM_IOCTL_ASAHI_SUBMIT, &sub);
   if (s->w) {
      struct tsr_submit ts = { .queue_id = s->queue, .out_sync_count = 1, .syncs = &out,
                               .cmdbuf_size = sub.cmdbuf_size, .cmdbuf = buf, .result = r };
      tsr_write_submit(s->w, 0, &ts, NULL);
   }
   if (r)
      return fail(s, "SUBMIT", r);
   struct timespec now;
   clock_gettime(CLOCK_MONOTONIC, &now);
   struct drm_syncobj_wait wt = { .handles = (uintptr_t)&s->sync, .count_handles = 1,
                                  .timeout_nsec = (int64_t)now.tv_sec * 1000000000 +
                                                  now.tv_nsec + 60000000000ll };
   if ((r = s->b->ioctl(s->b, DRM_IOCTL_SYNCOBJ_WAIT, &wt)))
      return fail(s, "SYNCOBJ_WAIT", r);
   uint64_t t[4];
   memcpy(t, s->ts_map, sizeof(t));
   uint64_t lo = t[0], hi = type == DRM_ASAHI_CMD_RENDER ? t[3] : t[1];
   if (hi > lo)
      *gpu_ns += (hi - lo) * 1000000000ull / 24000000ull;
   return 0;
}

static int
setup(struct rs *s, const struct rs_options *o)
{
   struct drm_asahi_params_global p;
   struct drm_asahi_get_params gp = { .pointer = (uintptr_t)&p, .size = sizeof(p) };
   int r = s->b->ioctl(s->b, DRM_IOCTL_ASAHI_GET_PARAMS, &gp);
   if (r)
      return fail(s, "GET_PARAMS", r);
   if (s->w) {
      tsr_write_meta(s->w, "program", "test_replay_scene");
      struct drm_asahi_params_global rec = p;
      if (o->chip_id)
         rec.chip_id = o->chip_id;
      tsr_write_device_params(s->w, 0, &rec, sizeof(rec));
   }
   struct drm_asahi_vm_create vc = { .kernel_start = RS_KERNEL_START,
                                     .kernel_end = RS_KERNEL_START + RS_KERNEL_SIZE };
   if ((r = s->b->ioctl(s->b, DRM_IOCTL_ASAHI_VM_CREATE, &vc)))
      return fail(s, "VM_CREATE", r);
   s->vm = vc.vm_id;
   if (s->w)
      tsr_write_vm_create(s->w, 0, &(struct tsr_vm_create){ vc.vm_id, vc.kernel_start,
                                                             vc.kernel_end });
   struct drm_asahi_gem_create gc = { .size = RS_SIZE };
   if ((r = s->b->ioctl(s->b, DRM_IOCTL_ASAHI_GEM_CREATE, &gc)))
      return fail(s, "GEM_CREATE", r);
   s->gem = gc.handle;
   if (s->w)
      tsr_write_gem_create(s->w, 0, &(struct tsr_gem_create){ gc.handle, 0, 0, RS_SIZE });
   s->mem = s->b->map(s->b, s->gem, RS_SIZE);
   if (!s->mem)
      return fail(s, "mapping the memory object", EIO);
   struct drm_asahi_gem_bind_op op = { .flags = DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE,
                                       .handle = s->gem, .range = RS_SIZE, .addr = RS_VA };
   struct drm_asahi_vm_bind vb = { .vm_id = s->vm, .num_binds = 1, .stride = sizeof(op),
                                   .userptr = (uintptr_t)&op };
   r = s->b->ioctl(s->b, DRM_IOCTL_ASAHI_VM_BIND, &vb);
   if (s->w)
      tsr_write_vm_bind(s->w, 0, &(struct tsr_vm_bind){ s->vm, 1, &op, r });
   if (r)
      return fail(s, "VM_BIND", r);
   struct drm_asahi_gem_create tc = { .size = RS_TS_SIZE };
   if ((r = s->b->ioctl(s->b, DRM_IOCTL_ASAHI_GEM_CREATE, &tc)))
      return fail(s, "GEM_CREATE", r);
   s->ts_gem = tc.handle;
   if (s->w)
      tsr_write_gem_create(s->w, 0, &(struct tsr_gem_create){ tc.handle, 0, 0, RS_TS_SIZE });
   s->ts_map = s->b->map(s->b, s->ts_gem, RS_TS_SIZE);
   struct drm_asahi_gem_bind_object bo = { .op = DRM_ASAHI_BIND_OBJECT_OP_BIND,
                                           .flags = DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS,
                                           .handle = s->ts_gem, .range = RS_TS_SIZE };
   if (!s->ts_map || (r = s->b->ioctl(s->b, DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, &bo)))
      return fail(s, "GEM_BIND_OBJECT", r ? r : EIO);
   s->ts_obj = bo.object_handle;
   if (s->w)
      tsr_write_bind_object(s->w, 0, &(struct tsr_bind_object){
                                        .op = 0, .flags = bo.flags, .handle = s->ts_gem,
                                        .object_handle = bo.object_handle,
                                        .range = RS_TS_SIZE });
   struct drm_asahi_queue_create qc = { .vm_id = s->vm, .usc_exec_base = RS_VA };
   if ((r = s->b->ioctl(s->b, DRM_IOCTL_ASAHI_QUEUE_CREATE, &qc)))
      return fail(s, "QUEUE_CREATE", r);
   s->queue = qc.queue_id;
   if (s->w)
      tsr_write_queue_create(s->w, 0, &(struct tsr_queue_create){ qc.queue_id, s->vm, 0, 0,
                                                                   RS_VA });
   struct drm_syncobj_create sc = { 0 };
   if ((r = s->b->ioctl(s->b, DRM_IOCTL_SYNCOBJ_CREATE, &sc)))
      return fail(s, "SYNCOBJ_CREATE", r);
   s->sync = sc.handle;
   s->used = 0x100;   /* USC offset 0 means "no program" */
   return 0;
}

/* VDM: vertex state, a PPP record, one triangle list draw, terminate. */
static uint64_t
vdm_stream(struct rs *s, bool triangle)
{
   uint8_t v[256];
   unsigned n = 0;
   if (triangle) {
      const float c[4] = { rs_triangle_rgba[0] / 255.0f, rs_triangle_rgba[1] / 255.0f,
                           rs_triangle_rgba[2] / 255.0f, 1.0f };
      float verts[3][8] = {
         { -0.75f, -0.75f, 0.5f, 1, c[0], c[1], c[2], c[3] },
         { 0.75f, -0.75f, 0.5f, 1, c[0], c[1], c[2], c[3] },
         { 0.0f, 0.75f, 0.5f, 1, c[0], c[1], c[2], c[3] },
      };
      uint64_t vb = put(s, verts, sizeof(verts), 16);
      /* in this order: the memory layout is part of the recorded trace */
      struct tu_draw d = { .width = RS_W, .height = RS_H, .depth_func = AGX_ZS_FUNC_ALWAYS,
                           .vertex_count = 3 };
      d.vs_pipeline = pipeline(s, shader(s, tu_draw_vs_src), &vb, 8, 0, false);
      d.fs_pipeline = pipeline(s, shader(s, tu_draw_fs_src), NULL, 0, 0, true);
      uint8_t cb[TU_DRAW_CF_BYTES];
      d.cf_bindings = (uint32_t)(put(s, cb, tu_draw_cf(cb, true), 4) - RS_VA);
      uint8_t p[TU_DRAW_PPP_BYTES];
      unsigned k = tu_draw_ppp(p, &d);
      uint64_t pp = put(s, p, k, 16);
      n += tu_draw_vdm(v + n, &d, pp, k);
   }
   n += tu_draw_vdm_end(v + n);
   return put(s, v, n, 64);
}

int
rs_run(struct replay_backend *b, const struct rs_options *o, struct rs_result *res,
       char *err, size_t err_size)
{
   struct rs s = { .b = b, .err = err, .err_size = err_size };
   memset(res, 0, sizeof(*res));
   if (o->trace_path) {
      int r = tsr_writer_open(&s.w, o->trace_path, NULL);
      if (r) {
         snprintf(err, err_size, "%s: %s", o->trace_path, strerror(-r));
         return -1;
      }
   }
   int rc = setup(&s, o);
   /* Program-lifetime objects: shaders, the target and its descriptor. */
   uint64_t cshader = 0, rt = 0, pbe = 0, out = 0;
   uint32_t eot = 0, bg = 0;
   uint64_t bg_uni = 0;
   if (!rc) {
      cshader = shader(&s, rs_compute_src);
      out = put(&s, NULL, RS_COMPUTE_N * 4, 128);
      rt = put(&s, NULL, RS_W * RS_H * 4, 128);
      uint8_t d[AGX_PBE_LENGTH];
      agx_pack(d, PBE, p) {
         p.dimension = AGX_TEXTURE_DIMENSION_2D; p.layout = AGX_LAYOUT_LINEAR;
         p.channels = AGX_CHANNELS_R8G8B8A8; p.type = AGX_TEXTURE_TYPE_UNORM;
         p.swizzle_r = AGX_CHANNEL_R; p.swizzle_g = AGX_CHANNEL_G;
         p.swizzle_b = AGX_CHANNEL_B; p.swizzle_a = AGX_CHANNEL_A;
         p.width = RS_W; p.height = RS_H; p.buffer = rt; p.stride = RS_W * 4 - 4;
      }
      pbe = put(&s, d, sizeof(d), 16);
      eot = pipeline(&s, shader(&s, tu_draw_eot_src), NULL, 0, pbe, false);
      float zero[4] = { 0 };
      bg = pipeline(&s, shader(&s, tu_draw_bg_clear_src), zero, sizeof(zero), 0, true);
      /* The bg word list's uniform buffer is the first thing it put. */
      bg_uni = RS_VA + bg;
      uint8_t word[8];
      memcpy(word, s.mem + bg, 8);
      struct agx_usc_uniform uu;
      agx_usc_uniform_unpack(word, &uu);
      bg_uni = uu.buffer;
      if (!cshader || !eot || !bg)
         rc = fail(&s, "assembling the shaders", EINVAL);
   }
   uint64_t scratch = s.used;
   for (unsigned f = 0; f < o->frames && !rc; f++) {
      s.used = scratch;   /* per-frame data is rebuilt every frame */
      /* Compute: out[i] = i + f * 1000. */
      uint32_t k[4] = { (uint32_t)out, (uint32_t)(out >> 32), f * 1000, 0 };
      uint8_t w[64];
      unsigned n = 0;
      uint64_t ub = put(&s, k, sizeof(k), 16);
      agx_pack(w + n, USC_UNIFORM, u) { u.start_halfs = 0; u.size_halfs = 8; u.buffer = ub; }
      n += 8;
      agx_pack(w + n, USC_SHARED, sh) {
         sh.layout = AGX_SHARED_LAYOUT_VERTEX_COMPUTE; sh.bytes_per_threadgroup = 256;
      }
      n += 4;
      agx_pack(w + n, USC_SHADER, sh) { sh.code = (uint32_t)(cshader - RS_VA); }
      n += 6;
      agx_pack(w + n, USC_REGISTERS, rg) { rg.register_count = 32; }
      n += 4;
      agx_pack(w + n, USC_NO_PRESHADER, np) { (void)np; }
      n += 2;
      uint32_t pipe = (uint32_t)(put(&s, w, n, 64) - RS_VA);
      uint8_t c[64];
      n = 0;
      agx_pack(c, CDM_LAUNCH_WORD_0, l) {
         l.uniform_register_count = 512; l.preshader_register_count = 256;
         l.mode = AGX_CDM_MODE_DIRECT;
      }
      agx_pack(c + 4, CDM_LAUNCH_WORD_1, l) { l.pipeline = pipe; }
      n = 8;
      agx_pack(c + n, CDM_GLOBAL_SIZE, g) { g.x = RS_COMPUTE_N; g.y = 1; g.z = 1; }
      n += AGX_CDM_GLOBAL_SIZE_LENGTH;
      agx_pack(c + n, CDM_LOCAL_SIZE, l) { l.x = 32; l.y = 1; l.z = 1; }
      n += AGX_CDM_LOCAL_SIZE_LENGTH;
      agx_pack(c + n, CDM_STREAM_TERMINATE, t) { (void)t; }
      n += AGX_CDM_STREAM_TERMINATE_LENGTH;
      uint64_t cs = put(&s, c, n, 64);
      memset(s.mem + (out - RS_VA), 0, RS_COMPUTE_N * 4);

      /* Render: clear colour for this frame; the triangle. */
      uint8_t cc[4];
      rs_clear_color(f, cc);
      float clear[4] = { cc[0] / 255.0f, cc[1] / 255.0f, cc[2] / 255.0f, cc[3] / 255.0f };
      memcpy(s.mem + (bg_uni - RS_VA), clear, sizeof(clear));
      uint64_t vdm = vdm_stream(&s, o->draw_triangle);
      if (!cs || !vdm) {
         rc = fail(&s, "scene memory", ENOMEM);
         break;
      }

      struct drm_asahi_cmd_compute cmd = {
         .cdm_ctrl_stream_base = cs, .cdm_ctrl_stream_end = cs + n,
         .ts = { { s.ts_obj, 0 }, { s.ts_obj, 8 } },
      };
      record_memory(&s, 0);
      if ((rc = submit(&s, DRM_ASAHI_CMD_COMPUTE, &cmd, sizeof(cmd), &res->gpu_ns)))
         break;
      /* The capture sees the compute result when it records memory before
       * the next submission: that is where a corrupted page goes. */
      uint64_t bad = f ? 0 : o->corrupt_output ? out + 4 * 5 : o->corrupt_target ? rt : 0;
      if (!o->late_records)
         record_memory(&s, bad);

      struct drm_asahi_cmd_render r = tu_render_cmd(RS_W, RS_H, vdm, bg, eot);
      r.flags = DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES;
      r.ts_vtx = (struct drm_asahi_timestamps){ { s.ts_obj, 0 }, { s.ts_obj, 8 } };
      r.ts_frag = (struct drm_asahi_timestamps){ { s.ts_obj, 16 }, { s.ts_obj, 24 } };
      if ((rc = submit(&s, DRM_ASAHI_CMD_RENDER, &r, sizeof(r), &res->gpu_ns)))
         break;
      record_memory(&s, o->late_records ? bad : 0);
      if (s.w)
         tsr_write_frame(s.w, 1, NULL);
   }
   if (!rc) {
      memcpy(res->rt, s.mem + (rt - RS_VA), sizeof(res->rt));
      memcpy(res->out, s.mem + (out - RS_VA), sizeof(res->out));
      res->rt_va = rt;
      res->out_va = out;
      res->compute_shader_va = cshader;
   }
   if (s.mem)
      b->unmap(b, s.mem, RS_SIZE);
   if (s.ts_map)
      b->unmap(b, s.ts_map, RS_TS_SIZE);
   if (s.sync) {
      struct drm_syncobj_destroy d = { .handle = s.sync };
      b->ioctl(b, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
   }
   if (s.queue) {
      struct drm_asahi_queue_destroy d = { .queue_id = s.queue };
      b->ioctl(b, DRM_IOCTL_ASAHI_QUEUE_DESTROY, &d);
   }
   uint32_t handles[2] = { s.gem, s.ts_gem };
   for (unsigned i = 0; i < 2; i++) {
      if (!handles[i])
         continue;
      struct drm_gem_close gc = { .handle = handles[i] };
      b->ioctl(b, DRM_IOCTL_GEM_CLOSE, &gc);
   }
   if (s.vm) {
      struct drm_asahi_vm_destroy d = { .vm_id = s.vm };
      b->ioctl(b, DRM_IOCTL_ASAHI_VM_DESTROY, &d);
   }
   if (s.w) {
      int r = tsr_writer_close(s.w);
      if (r && !rc) {
         snprintf(err, err_size, "%s: %s", o->trace_path, strerror(-r));
         rc = -1;
      }
   }
   return rc;
}
