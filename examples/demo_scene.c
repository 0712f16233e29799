/* SPDX-License-Identifier: MIT */
/*
 * The demo workload of `make demo`: a small animated scene rendered on an
 * Asahi render node (the embedded GPU through tessera-shim.so, or a real
 * one) purely through the uAPI, as a GL driver would drive it. Per frame:
 *
 *   1. compute: a kernel moves the two opaque triangles' vertices by a
 *      per-frame offset (the CPU only rewrites two uniforms), writing the
 *      vertex buffer the render pass then reads;
 *   2. render, 128x128 RGBA8 with a depth buffer: a clear, a textured quad
 *      (16x16 checker, nearest), two interpenetrating colour-interpolated
 *      triangles with the depth test, and a translucent triangle blended
 *      in its fragment shader (tilebuffer read-modify-write).
 *
 * Each frame ends with tessera_capture_frame() when the capture layer is
 * loaded. With -o DIR every frame's render target is read back through the
 * GEM mapping and written as DIR/fFFFF_sSSSSS_color0.png, the name
 * `tessera replay --dump-images` gives the same target (S counts the
 * program's submissions from 0), so the directories compare file by file.
 * Frame 0 is checked against a CPU expectation at a few pixels away from
 * edges; a wrong model exits 1.
 *
 *   demo_scene [-n FRAMES] [-o DIR] [-c]
 *
 * -c (test hook for tests/integration/roundtrip_validate.sh): after frame
 * 0's compute, the CPU overwrites one vertex coordinate the GPU wrote. The
 * capture records that page as it is at the next submission, so the trace
 * holds memory the GPU did not produce there and `tessera replay
 * --validate` must report it.
 */
#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xf86drm.h>

#include "cmdstream/agx_pack.h"
#include "tests/lib/tu_dev.h"
#include "tests/lib/tu_draw.h"
#include "tests/lib/tu_usc.h"

#define W 128
#define H 128
#define TEX 16

struct vtx {
   float x, y, z, w, r, g, b, a;
};

/* Opaque triangles (before the per-frame offset): T1 at constant depth,
 * T2 sloping through it so each hides the other in part. */
static const struct vtx tris[6] = {
   { -0.6f, -0.5f, 0.3f, 1, 1, 0, 0, 1 }, { 0.3f, -0.5f, 0.3f, 1, 0, 1, 0, 1 },
   { -0.15f, 0.6f, 0.3f, 1, 0, 0, 1, 1 },
   { -0.2f, -0.3f, 0.1f, 1, 1, 1, 0, 1 }, { 0.7f, -0.2f, 0.5f, 1, 0, 1, 1, 1 },
   { 0.3f, 0.7f, 0.5f, 1, 1, 0, 1, 1 },
};
/* Translucent, in front of everything, lower right. */
static const struct vtx glass[3] = {
   { 0.2f, -0.95f, 0.05f, 1, 1, 0.9f, 0.6f, 0.5f },
   { 0.95f, -0.95f, 0.05f, 1, 1, 0.9f, 0.6f, 0.5f },
   { 0.95f, 0.2f, 0.05f, 1, 1, 0.9f, 0.6f, 0.5f },
};
#define QUAD_LO -0.7f
#define QUAD_HI 0.7f
#define QUAD_Z 0.8f
static const float clear_rgba[4] = { 0.1f, 0.12f, 0.25f, 1.0f };

/* Thread i moves vertex i: x += u4, y += u5; u0_u1 source, u2_u3 dest. */
static const char anim_src[] =
   "get_sr r1, sr80\n"
   "iadd r7, 0, r1, lsl 3\n"
   "iadd r3, r7, 4\n"
   "device_load 0, i32, xyzw, r8_r9_r10_r11, u0_u1, r7, unsigned\n"
   "device_load 0, i32, xyzw, r12_r13_r14_r15, u0_u1, r3, unsigned\n"
   "wait 0\n"
   "fadd32 r8, r8, u4\n"
   "fadd32 r9, r9, u5\n"
   "device_store 0, i32, xyzw, r8_r9_r10_r11, u2_u3, r7, unsigned, 0\n"
   "device_store 0, i32, xyzw, r12_r13_r14_r15, u2_u3, r3, unsigned, 0\n"
   "stop\n";

static const char fs_tex_src[] =
   "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "texture_sample 0, 0b0000, 0b0, none, xyzw, 0b00, r8_r9_r10_r11, None, ts0, ss0, "
   "tex_2d, r4_r5, auto_lod, 0\n"
   "wait 0\n"
   "st_tile r8_r9_r10_r11, u8norm, 0, xyzw, 0, 255, 0\n"
   "stop\n";

/* Blending is the shader's job on AGX: read the tile, src*a + dst*(1-a),
 * ordered against overlapping fragments by wait_pix/signal_pix. */
static const char fs_blend_src[] =
   "iter r4_r5_r6_r7, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
   "wait_pix 1, 0\n"
   "ld_tile r8_r9_r10_r11, u8norm, 0, xyzw, 0, 255, 0\n"
   "fadd32 r12, 1.0, r7.neg\n"
   "fmul32 r8, r8, r12\nfmul32 r9, r9, r12\nfmul32 r10, r10, r12\nfmul32 r11, r11, r12\n"
   "fmadd32 r4, r4, r7, r8\nfmadd32 r5, r5, r7, r9\nfmadd32 r6, r6, r7, r10\n"
   "fmadd32 r7, r7, r7, r11\n"
   "st_tile r4_r5_r6_r7, u8norm, 0, xyzw, 0, 255, 0\n"
   "signal_pix 1, 0\n"
   "stop\n";

struct demo {
   struct tu_dev d;
   uint32_t sync;
   unsigned submits;
};

static void
die(const char *msg)
{
   fprintf(stderr, "demo_scene: %s\n", msg);
   exit(3);
}

static uint64_t
put(struct demo *s, const void *data, uint64_t size)
{
   void *cpu;
   uint64_t va = tu_alloc(&s->d, size, &cpu);
   if (data)
      memcpy(cpu, data, size);
   return va;
}

static void *
host(struct demo *s, uint64_t va)
{
   return s->d.heap + (va - s->d.heap_va);
}

static uint64_t
shader(struct demo *s, const char *src)
{
   uint8_t code[1024];
   char err[256];
   size_t len = tu_usc_assemble(src, code, sizeof(code), err, sizeof(err));
   if (!len) {
      fprintf(stderr, "demo_scene: assembler: %s\n", err);
      exit(3);
   }
   return put(s, code, len);
}

/* A USC word list: [uniforms] [texture] [sampler] shared shader regs. */
static uint32_t
pipeline(struct demo *s, uint64_t code, uint64_t uni, unsigned uni_bytes, uint64_t tex,
         uint64_t smp, bool fragment)
{
   struct tu_usc_pipeline p = {
      .code = (uint32_t)(code - s->d.heap_va), .uniforms = uni, .uniform_bytes = uni_bytes,
      .textures = tex, .samplers = smp,
      .shared = fragment ? TU_USC_SHARED_TILE_32X32 : TU_USC_SHARED_VERTEX_COMPUTE,
      .registers = 32,
   };
   uint8_t w[TU_USC_WORDS_MAX];
   unsigned n = tu_usc_words(w, &p);
   return (uint32_t)(put(s, w, n) - s->d.heap_va);
}

struct draw {
   const char *fs;
   uint64_t vb, tex, smp;
   enum agx_zs_func zfunc;
   bool zwrite, translucent, flat;
   unsigned count;
};

/* VDM state + PPP record + index list for one draw, appended to v. */
static unsigned
emit_draw(struct demo *s, uint8_t *v, const struct draw *dr, uint64_t vs)
{
   uint32_t vs_pipe = pipeline(s, vs, put(s, &dr->vb, 8), 8, 0, 0, false);
   uint32_t fs_pipe = pipeline(s, shader(s, dr->fs), 0, 0, dr->tex, dr->smp, true);
   struct tu_draw d = {
      .vs_pipeline = vs_pipe, .fs_pipeline = fs_pipe, .width = W, .height = H,
      .translucent = dr->translucent, .depth_write = dr->zwrite, .depth_func = dr->zfunc,
      .vertex_count = dr->count,
   };
   uint8_t cb[TU_DRAW_CF_BYTES];
   d.cf_bindings = (uint32_t)(put(s, cb, tu_draw_cf(cb, dr->flat)) - s->d.heap_va);
   uint8_t p[TU_DRAW_PPP_BYTES];
   unsigned k = tu_draw_ppp(p, &d);
   return tu_draw_vdm(v, &d, put(s, p, k), k);
}

static unsigned
morton(unsigned x, unsigned y)
{
   unsigned m = 0;
   for (unsigned b = 0; b < 8; b++)
      m |= (x >> b & 1) << (2 * b) | (y >> b & 1) << (2 * b + 1);
   return m;
}

/* Checker of two warm tones with a cool diagonal, as RGBA8 in memory order. */
static void
texel(unsigned x, unsigned y, uint8_t out[4])
{
   bool odd = ((x >> 1) ^ (y >> 1)) & 1;
   out[0] = odd ? 0xe8 : 0x90;
   out[1] = odd ? 0xa0 : 0x50;
   out[2] = x == y || x + y == TEX - 1 ? 0xf0 : 0x30;
   out[3] = 0xff;
}

static void
submit(struct demo *s, uint16_t type, const void *cmd, uint16_t size)
{
   uint8_t buf[sizeof(struct drm_asahi_cmd_header) + sizeof(struct drm_asahi_cmd_render)];
   struct drm_asahi_cmd_header h = { .cmd_type = type, .size = size };
   memcpy(buf, &h, sizeof(h));
   memcpy(buf + sizeof(h), cmd, size);
   struct drm_asahi_sync out = { .sync_type = DRM_ASAHI_SYNC_SYNCOBJ, .handle = s->sync };
   struct drm_asahi_submit sub = { .syncs = (uintptr_t)&out, .cmdbuf = (uintptr_t)buf,
                                   .queue_id = s->d.queue, .out_sync_count = 1,
                                   .cmdbuf_size = (uint32_t)(sizeof(h) + size) };
   if (drmIoctl(s->d.fd, DRM_IOCTL_ASAHI_SUBMIT, &sub)) {
      fprintf(stderr, "demo_scene: SUBMIT: %s\n", strerror(errno));
      exit(1);
   }
   if (tu_wait(&s->d, s->sync)) {
      fprintf(stderr, "demo_scene: submission %u did not complete\n", s->submits);
      exit(1);
   }
   s->submits++;
}

static int
write_png(const char *path, const uint8_t *rgba)
{
   FILE *f = fopen(path, "wb");
   if (!f)
      return -1;
   png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
   png_infop info = p ? png_create_info_struct(p) : NULL;
   if (!info || setjmp(png_jmpbuf(p))) {
      png_destroy_write_struct(&p, &info);
      fclose(f);
      return -1;
   }
   png_init_io(p, f);
   png_set_IHDR(p, info, W, H, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
   png_write_info(p, info);
   for (unsigned y = 0; y < H; y++)
      png_write_row(p, (png_const_bytep)(rgba + (size_t)y * W * 4));
   png_write_end(p, NULL);
   png_destroy_write_struct(&p, &info);
   return fclose(f) ? -1 : 0;
}

/* --- the CPU expectation for frame 0 --------------------------------- */

static void
to_u8(const float c[4], uint8_t out[4])
{
   for (unsigned i = 0; i < 4; i++) {
      float v = c[i] < 0 ? 0 : c[i] > 1 ? 1 : c[i];
      out[i] = (uint8_t)lrintf(v * 255.0f);
   }
}

/* Barycentric coverage and interpolation of triangle t at clip (x, y). */
static bool
tri_at(const struct vtx *t, float x, float y, float *z, float rgba[4])
{
   float d = (t[1].y - t[2].y) * (t[0].x - t[2].x) + (t[2].x - t[1].x) * (t[0].y - t[2].y);
   float l0 = ((t[1].y - t[2].y) * (x - t[2].x) + (t[2].x - t[1].x) * (y - t[2].y)) / d;
   float l1 = ((t[2].y - t[0].y) * (x - t[2].x) + (t[0].x - t[2].x) * (y - t[2].y)) / d;
   float l2 = 1 - l0 - l1;
   if (l0 < 0 || l1 < 0 || l2 < 0)
      return false;
   *z = l0 * t[0].z + l1 * t[1].z + l2 * t[2].z;
   const float *c0 = &t[0].r, *c1 = &t[1].r, *c2 = &t[2].r;
   for (unsigned i = 0; i < 4; i++)
      rgba[i] = l0 * c0[i] + l1 * c1[i] + l2 * c2[i];
   return true;
}

/* Expected colour of pixel (px, py) in frame 0 (no offset). */
static void
expect_pixel(unsigned px, unsigned py, uint8_t out[4])
{
   float x = (px + 0.5f) / (W / 2.0f) - 1, y = 1 - (py + 0.5f) / (H / 2.0f);
   float c[4], best = 1.0f;
   memcpy(c, clear_rgba, sizeof(c));
   to_u8(c, out);
   if (x > QUAD_LO && x < QUAD_HI && y > QUAD_LO && y < QUAD_HI) {
      float u = (x - QUAD_LO) / (QUAD_HI - QUAD_LO), v = (QUAD_HI - y) / (QUAD_HI - QUAD_LO);
      texel((unsigned)(u * TEX), (unsigned)(v * TEX), out);
      best = QUAD_Z;
   }
   for (unsigned t = 0; t < 2; t++) {
      float z, rgba[4];
      if (tri_at(&tris[3 * t], x, y, &z, rgba) && z < best) {
         best = z;
         to_u8(rgba, out);
      }
   }
   float z, g[4];
   if (tri_at(glass, x, y, &z, g) && z < best) {
      for (unsigned i = 0; i < 4; i++) {
         float dst = out[i] / 255.0f;
         float a = glass[0].a;
         float v = i == 3 ? a * a + dst * (1 - a) : g[i] * a + dst * (1 - a);
         out[i] = (uint8_t)lrintf(v * 255.0f);
      }
   }
}

/* Pixels well inside one region each: background, bare texture, T1 alone,
 * T2 in front of T1, T1 in front of T2, glass over background and over
 * the quad. A tolerance of 3 covers interpolation rounding. */
static int
check_frame0(const uint8_t *rt)
{
   static const unsigned pts[][2] = {
      { 4, 4 }, { 30, 24 }, { 50, 72 }, { 64, 75 }, { 74, 60 }, { 120, 118 }, { 100, 100 },
   };
   int bad = 0;
   for (unsigned i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
      uint8_t want[4];
      const uint8_t *got = rt + ((size_t)pts[i][1] * W + pts[i][0]) * 4;
      expect_pixel(pts[i][0], pts[i][1], want);
      for (unsigned c = 0; c < 4; c++) {
         if (abs((int)got[c] - (int)want[c]) > 3) {
            fprintf(stderr,
                    "demo_scene: frame 0 pixel (%u,%u) is %02x%02x%02x%02x, "
                    "the CPU expects %02x%02x%02x%02x\n",
                    pts[i][0], pts[i][1], got[0], got[1], got[2], got[3], want[0], want[1],
                    want[2], want[3]);
            bad = 1;
            break;
         }
      }
   }
   return bad;
}

int
main(int argc, char **argv)
{
   unsigned frames = 4;
   const char *outdir = NULL;
   bool corrupt = false;
   int c;
   while ((c = getopt(argc, argv, "n:o:c")) != -1) {
      switch (c) {
      case 'n': frames = (unsigned)atoi(optarg); break;
      case 'o': outdir = optarg; break;
      case 'c': corrupt = true; break;
      default:
         fprintf(stderr, "usage: demo_scene [-n FRAMES] [-o DIR] [-c]\n");
         return 2;
      }
   }
   if (frames < 1 || frames > 1000)
      return 2;
   if (outdir && mkdir(outdir, 0777) && errno != EEXIST) {
      fprintf(stderr, "demo_scene: %s: %s\n", outdir, strerror(errno));
      return 2;
   }

   struct demo s = { 0 };
   tu_open(&s.d, argv, 4u << 20);
   s.d.used = 0x100;   /* USC offset 0 means "no program" */
   if (drmSyncobjCreate(s.d.fd, 0, &s.sync))
      die("SYNCOBJ_CREATE failed");

   /* Render target, depth buffer, texture and their descriptors. */
   uint64_t rt = put(&s, NULL, W * H * 4);
   uint64_t zb = put(&s, NULL, W * H * 4);
   uint8_t d[AGX_PBE_LENGTH > AGX_TEXTURE_LENGTH ? AGX_PBE_LENGTH : AGX_TEXTURE_LENGTH];
   agx_pack(d, PBE, p) {
      p.dimension = AGX_TEXTURE_DIMENSION_2D; p.layout = AGX_LAYOUT_LINEAR;
      p.channels = AGX_CHANNELS_R8G8B8A8; p.type = AGX_TEXTURE_TYPE_UNORM;
      p.swizzle_r = AGX_CHANNEL_R; p.swizzle_g = AGX_CHANNEL_G;
      p.swizzle_b = AGX_CHANNEL_B; p.swizzle_a = AGX_CHANNEL_A;
      p.width = W; p.height = H; p.buffer = rt; p.stride = W * 4 - 4;
   }
   uint64_t pbe = put(&s, d, AGX_PBE_LENGTH);
   uint8_t img[TEX * TEX * 4];
   for (unsigned y = 0; y < TEX; y++)
      for (unsigned x = 0; x < TEX; x++)
         texel(x, y, img + 4 * morton(x, y));
   uint64_t tex_va = put(&s, img, sizeof(img));
   agx_pack(d, TEXTURE, t) {
      t.dimension = AGX_TEXTURE_DIMENSION_2D; t.layout = AGX_LAYOUT_TWIDDLED;
      t.channels = AGX_CHANNELS_R8G8B8A8; t.type = AGX_TEXTURE_TYPE_UNORM;
      t.swizzle_r = AGX_CHANNEL_R; t.swizzle_g = AGX_CHANNEL_G;
      t.swizzle_b = AGX_CHANNEL_B; t.swizzle_a = AGX_CHANNEL_A;
      t.width = TEX; t.height = TEX; t.address = tex_va;
      t.first_level = 0; t.last_level = 0;
   }
   uint64_t tex = put(&s, d, AGX_TEXTURE_LENGTH);
   uint8_t sd[AGX_SAMPLER_LENGTH];
   agx_pack(sd, SAMPLER, sm) {
      sm.magnify = sm.minify = AGX_FILTER_NEAREST;
      sm.mip_filter = AGX_MIP_FILTER_NONE;
      sm.wrap_s = sm.wrap_t = sm.wrap_r = AGX_WRAP_CLAMP_TO_EDGE;
   }
   uint64_t smp = put(&s, sd, sizeof(sd));

   /* Vertex data: the quad is static, the triangles are the compute's
    * output (tri_src moved by the per-frame offset into tri_dst). */
   const struct vtx quad[6] = {
      { QUAD_LO, QUAD_HI, QUAD_Z, 1, 0, 0, 0, 1 }, { QUAD_HI, QUAD_HI, QUAD_Z, 1, 1, 0, 0, 1 },
      { QUAD_LO, QUAD_LO, QUAD_Z, 1, 0, 1, 0, 1 }, { QUAD_HI, QUAD_HI, QUAD_Z, 1, 1, 0, 0, 1 },
      { QUAD_HI, QUAD_LO, QUAD_Z, 1, 1, 1, 0, 1 }, { QUAD_LO, QUAD_LO, QUAD_Z, 1, 0, 1, 0, 1 },
   };
   uint64_t quad_vb = put(&s, quad, sizeof(quad));
   uint64_t glass_vb = put(&s, glass, sizeof(glass));
   uint64_t tri_src = put(&s, tris, sizeof(tris));
   uint64_t tri_dst = put(&s, NULL, sizeof(tris));

   /* Compute: uniforms u0..u5 = src, dst, dx, dy; the CPU rewrites dx, dy. */
   uint32_t *au;
   uint64_t anim_uni = tu_alloc(&s.d, 32, (void **)&au);
   au[0] = (uint32_t)tri_src; au[1] = (uint32_t)(tri_src >> 32);
   au[2] = (uint32_t)tri_dst; au[3] = (uint32_t)(tri_dst >> 32);
   uint32_t anim_pipe = pipeline(&s, shader(&s, anim_src), anim_uni, 24, 0, 0, false);
   uint8_t cs[64], *q = cs;
   agx_pack(q, CDM_LAUNCH_WORD_0, l) {
      l.uniform_register_count = 512; l.preshader_register_count = 256;
      l.mode = AGX_CDM_MODE_DIRECT;
   }
   agx_pack(q + 4, CDM_LAUNCH_WORD_1, l) { l.pipeline = anim_pipe; }
   q += 8;
   agx_pack(q, CDM_GLOBAL_SIZE, g) { g.x = 6; g.y = 1; g.z = 1; }
   q += AGX_CDM_GLOBAL_SIZE_LENGTH;
   agx_pack(q, CDM_LOCAL_SIZE, l) { l.x = 32; l.y = 1; l.z = 1; }
   q += AGX_CDM_LOCAL_SIZE_LENGTH;
   agx_pack(q, CDM_STREAM_TERMINATE, t) { (void)t; }
   q += AGX_CDM_STREAM_TERMINATE_LENGTH;
   uint64_t cs_va = put(&s, cs, (uint64_t)(q - cs));
   uint64_t cs_end = cs_va + (uint64_t)(q - cs);

   /* Render: background clear, end-of-tile store, and the VDM stream. */
   uint64_t clear_uni = put(&s, clear_rgba, sizeof(clear_rgba));
   uint32_t bg = pipeline(&s, shader(&s, tu_draw_bg_clear_src), clear_uni, 16, 0, 0, true);
   uint32_t eot = pipeline(&s, shader(&s, tu_draw_eot_src), 0, 0, pbe, 0, false);
   uint64_t vs = shader(&s, tu_draw_vs_src);
   const struct draw draws[3] = {
      { .fs = fs_tex_src, .vb = quad_vb, .tex = tex, .smp = smp, .zfunc = AGX_ZS_FUNC_LESS,
        .zwrite = true, .count = 6 },
      { .fs = tu_draw_fs_src, .vb = tri_dst, .zfunc = AGX_ZS_FUNC_LESS, .zwrite = true,
        .count = 6 },
      { .fs = fs_blend_src, .vb = glass_vb, .zfunc = AGX_ZS_FUNC_LESS, .translucent = true,
        .flat = true, .count = 3 },
   };
   uint8_t vdm[256];
   unsigned vn = 0;
   for (unsigned i = 0; i < 3; i++)
      vn += emit_draw(&s, vdm + vn, &draws[i], vs);
   vn += tu_draw_vdm_end(vdm + vn);
   uint64_t vdm_va = put(&s, vdm, vn);

   const struct drm_asahi_cmd_compute cmd_c = {
      .cdm_ctrl_stream_base = cs_va, .cdm_ctrl_stream_end = cs_end,
      .ts = { { s.d.ts_obj, 0 }, { s.d.ts_obj, 8 } },
   };
   struct drm_asahi_cmd_render cmd_r = tu_render_cmd(W, H, vdm_va, bg, eot);
   cmd_r.flags = DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES;
   cmd_r.depth.base = zb;
   cmd_r.ts_vtx = (struct drm_asahi_timestamps){ { s.d.ts_obj, 16 }, { s.d.ts_obj, 24 } };
   cmd_r.ts_frag = (struct drm_asahi_timestamps){ { s.d.ts_obj, 32 }, { s.d.ts_obj, 40 } };

   uint8_t *pixels = host(&s, rt);
   int rc = 0;
   for (unsigned f = 0; f < frames && !rc; f++) {
      float off[2] = { 0.25f * sinf(0.8f * (float)f), 0.15f * sinf(1.3f * (float)f) };
      memcpy(&au[4], off, sizeof(off));
      submit(&s, DRM_ASAHI_CMD_COMPUTE, &cmd_c, sizeof(cmd_c));
      if (corrupt && f == 0) {
         float *v = host(&s, tri_dst);
         v[0] += 0.125f;   /* T1's first x: not what the GPU wrote */
         printf("demo_scene: -c: changed heap offset 0x%llx after submission 0\n",
                (unsigned long long)(tri_dst - s.d.heap_va));
      }
      submit(&s, DRM_ASAHI_CMD_RENDER, &cmd_r, sizeof(cmd_r));
      if (f == 0 && !corrupt && check_frame0(pixels))
         rc = 1;
      if (outdir) {
         char path[4096];
         snprintf(path, sizeof(path), "%s/f%04u_s%05u_color0.png", outdir, f, s.submits - 1);
         if (write_png(path, pixels)) {
            fprintf(stderr, "demo_scene: cannot write %s\n", path);
            rc = 3;
         }
      }
      tu_frame("demo frame");
   }
   printf("demo_scene: %u frames, %u submissions, %ux%u, frame 0 %s, last frame %016llx\n",
          frames, s.submits, W, H, corrupt ? "not checked (-c)" : rc ? "WRONG" : "as expected",
          (unsigned long long)tu_checksum(pixels, W * H * 4));
   drmSyncobjDestroy(s.d.fd, s.sync);
   tu_close(&s.d);
   return rc;
}
