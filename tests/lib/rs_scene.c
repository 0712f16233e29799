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

static const char *const vs_src =
   "iadd r7, 0, r5, lsl 3\n"
   "device_load 0, i32, xyzw, r8_r9_r10_r11, u0_u1, r7, unsigned\n"
   "iadd r7, r7, 4\n"
   "device_load 0, i32, xyzw, r12_r13_r14_r15, u0_u1, r7, unsigned\n"
   "wait 0\n"
   "st_var 0, r8, 0\nst_var 0, r9, 1\nst_var 0, r10, 2\nst_var 0, r11, 3\n"
   "st_var 0, r12, 4\nst_var 0, r13, 5\nst_var 0, r14, 6\nst_var_final 0, r15, 7\n"
   "stop\n";

static const char *const fs_src =
   "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\n"
   "stop\n";

static const char *const bg_src =
   "mov r4, u0\nmov r5, u1\nmov r6, u2\nmov r7, u3\n"
   "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\n"
   "stop\n";

static const char *const eot_src =
   "mov_imm r8l, 0\nget_sr r2, sr80\nget_sr r3, sr81\n"
   "image_write_block r8l, r2_r3, 0, ts0, tex_2d, rte, u8norm, 0, 0, 0\n"
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
      uint32_t vs_pipe = pipeline(s, shader(s, vs_src), &vb, 8, 0, false);
      uint32_t fs_pipe = pipeline(s, shader(s, fs_src), NULL, 0, 0, true);
      uint8_t cb[AGX_CF_BINDING_HEADER_LENGTH + AGX_CF_BINDING_LENGTH];
      agx_pack(cb, CF_BINDING_HEADER, h) { h.slots = 4; h.coefficient_registers = 4; }
      agx_pack(cb + 4, CF_BINDING, b) {
         b.components = 4; b.shade_model = AGX_SHADE_MODEL_FLAT_VERTEX_0;
         b.source = AGX_CF_SOURCE_VARYING; b.base_slot = 1; b.base_coefficient_register = 0;
      }
      uint32_t cf = (uint32_t)(put(s, cb, sizeof(cb), 4) - RS_VA);
      memset(v, 0, sizeof(v));
      agx_pack(v, VDM_STATE, st) {
         st.vertex_shader_word_0_present = true; st.vertex_shader_word_1_present = true;
         st.vertex_outputs_present = true; st.restart_index_present = true;
      }
      uint32_t restart = 0xffff;
      memcpy(v + 4, &restart, 4);
      agx_pack(v + 8, VDM_STATE_VERTEX_SHADER_WORD_0, w0) { w0.uniform_register_count = 64; }
      agx_pack(v + 12, VDM_STATE_VERTEX_SHADER_WORD_1, w1) { w1.pipeline = vs_pipe; }
      agx_pack(v + 16, VDM_STATE_VERTEX_OUTPUTS, o) { o.output_count_1 = 8; }
      n = 24;

      uint8_t p[128] = { 0 };
      unsigned k = 0;
      agx_pack(p, PPP_HEADER, h) {
         h.fragment_control = true; h.front_face = true; h.front_stencil = true;
         h.back_face = true; h.back_stencil = true; h.viewport = true; h.viewport_count = 1;
         h.output_select = true; h.cull = true; h.fragment_shader = true;
      }
      k = 4;
      agx_pack(p + k, FRAGMENT_CONTROL, fc) { fc.pass_type = AGX_PASS_TYPE_OPAQUE; }
      k += 4;
      for (unsigned f = 0; f < 2; f++) {
         agx_pack(p + k, FRAGMENT_FACE, ff) {
            ff.disable_depth_write = true; ff.depth_function = AGX_ZS_FUNC_ALWAYS;
         }
         k += 4;
         agx_pack(p + k, FRAGMENT_STENCIL, sf) {
            sf.write_mask = 0xff; sf.read_mask = 0xff; sf.compare = AGX_ZS_FUNC_ALWAYS;
         }
         k += 4;
      }
      k += 4;   /* viewport control */
      agx_pack(p + k, VIEWPORT, vp) {
         vp.translate_x = RS_W / 2.0f; vp.scale_x = RS_W / 2.0f;
         vp.translate_y = RS_H / 2.0f; vp.scale_y = -(RS_H / 2.0f);
         vp.translate_z = 0.0f; vp.scale_z = 1.0f;
      }
      k += 24;
      agx_pack(p + k, OUTPUT_SELECT, os) { os.varyings = true; }
      k += 4;
      agx_pack(p + k, CULL, c2) { c2.depth_clip = true; }
      k += 4;
      agx_pack(p + k, FRAGMENT_SHADER_WORD_0, w0) { w0.cf_binding_count = 1; }
      agx_pack(p + k + 4, FRAGMENT_SHADER_WORD_1, w1) { w1.pipeline = fs_pipe; }
      agx_pack(p + k + 8, FRAGMENT_SHADER_WORD_2, w2) { w2.cf_bindings = cf; }
      k += 16;
      uint64_t pp = put(s, p, k, 16);
      agx_pack(v + n, PPP_STATE, ps) {
         ps.pointer_hi = (uint32_t)(pp >> 32); ps.pointer_lo = (uint32_t)pp; ps.size_words = k / 4;
      }
      n += 8;
      agx_pack(v + n, INDEX_LIST, il) {
         il.primitive = AGX_PRIMITIVE_TRIANGLES; il.index_count_present = true;
         il.instance_count_present = true; il.start_present = true;
      }
      uint32_t words[3] = { 3, 1, 0 };
      memcpy(v + n + 4, words, 12);
      n += 16;
   }
   agx_pack(v + n, VDM_STREAM_TERMINATE, t) { (void)t; }
   n += 8;
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
      eot = pipeline(&s, shader(&s, eot_src), NULL, 0, pbe, false);
      float zero[4] = { 0 };
      bg = pipeline(&s, shader(&s, bg_src), zero, sizeof(zero), 0, true);
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

      struct drm_asahi_cmd_render r = {
         .flags = DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES,
         .vdm_ctrl_stream_base = vdm,
         .width_px = RS_W, .height_px = RS_H, .layers = 1,
         .utile_width_px = 32, .utile_height_px = 32, .samples = 1, .sample_size_B = 4,
         .bg = { bg, 0 }, .eot = { eot, 0 }, .partial_bg = { bg, 0 }, .partial_eot = { eot, 0 },
         .isp_bgobjdepth = 0x3f800000,
         .ts_vtx = { { s.ts_obj, 0 }, { s.ts_obj, 8 } },
         .ts_frag = { { s.ts_obj, 16 }, { s.ts_obj, 24 } },
      };
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
