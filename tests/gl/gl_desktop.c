/* SPDX-License-Identifier: MIT */
/*
 * gl_desktop: desktop GL (compatibility profile) on a surfaceless EGL
 * context (eglBindAPI(EGL_OPENGL_API)), checked pixel by pixel.
 *
 * Tests (all by default, or the ones named on the command line):
 *   bgra_arrays  client-side (user memory) interleaved vertex arrays with a
 *                GL_BGRA colour array (ARB_vertex_array_bgra) and user u16
 *                indices, as Irrlicht/Minetest draw.  Regression: without
 *                the BGRA vertex format glColorPointer failed, the enabled
 *                colour array kept its NULL pointer and u_vbuf's upload
 *                crashed in memcpy (minetest-seed7 replay).
 *   index_range  client-side arrays of 40000 vertices drawn through a few
 *                indices spanning the whole range (u_vbuf unrolls them)
 *                and glDrawRangeElements with a tight range
 *   version      the context reports GL >= 2.1 and GLSL >= 1.20
 *   shadow       ARB_shadow: a depth texture sampled with shadow2D
 *                (GLSL 1.20) against references on both sides, LEQUAL and
 *                GREATER, and the DEPTH_TEXTURE_MODE swizzles
 *   shadow_clamp references outside [0, 1] clamp for fixed-point depth
 *                formats (16, 24, unsized) and not for DEPTH_COMPONENT32F
 *   tex3d        a 4x4x4 RGBA8 3D texture (glTexImage3D) sampled per slice
 *                with texture3D, nearest and linear between two slices,
 *                then glGenerateMipmap and level 1 on its own, then a
 *                clear of one slice attached to a framebuffer
 *   instancing   ARB_instanced_arrays: four instances of a quad with a
 *                per-instance offset (divisor 1) and colour (divisor 2),
 *                glDrawElementsInstanced (u16, buffer objects) and
 *                glDrawArraysInstanced (client-memory per-instance colours)
 *   restart      NV_primitive_restart: two quads as one triangle strip split
 *                by the restart index, u16 and u32, buffer object and user
 *                memory, restart index 0xffff/0xffffffff and 8 (a real
 *                vertex that would fill the gap without restart); then
 *                restart off
 *   indep_blend  two render targets: ARB_draw_buffers_blend per-target blend
 *                functions and equations, EXT_draw_buffers2 per-target blend enables and
 *                colour masks, against CPU-blended references
 *   vertex_texture  texture2DLod in the vertex shader (a texture on unit
 *                2). Regression: no vertex texture units, so glmark2's
 *                terrain failed to link
 *   border       CLAMP_TO_BORDER with a custom colour on RGBA8, SRGB8_ALPHA8,
 *                ALPHA8, LUMINANCE8_ALPHA8, RGBA16F and RGBA32F (unit 0)
 *                next to a plain sampler on unit 1, read back outside the
 *                texture within 1 LSB.  Regression: custom colours read
 *                transparent black (no extended sampler tables, issue 13).
 *                Then GL_CLAMP with NEAREST reads the edge texel, not the
 *                border (the model read the border at s >= 1)
 *   clip_plane   user clip planes: fixed function (planes 0, then 0 and 5)
 *                and gl_ClipVertex in a GLSL shader
 *   stipple      glPolygonStipple with a user fragment shader and with
 *                fixed function (lines unstippled)
 *   depth_mipmap a mipmapped depth texture sampled per base level, and
 *                one of its levels rendered to as a depth attachment
 *   large_point  glPointSize(20) with a GLSL vertex shader reading the MVP
 *                matrix and a uniform, not writing gl_PointSize
 *   (and point_size_zero, lod_bias, viewport_clip, max_varyings,
 *   mixed_sizes, uniform_index: see each test's comment)
 *   flat_clip    glShadeModel(GL_FLAT): a triangle cut by the near plane is
 *                all its provoking vertex's colour, last and (with
 *                EXT_provoking_vertex) first; a strip's odd triangle takes
 *                vertex 1 (first) or 3 (last); a quad (first) the vertex
 *                GL_QUADS_FOLLOW_PROVOKING_VERTEX_CONVENTION says.
 *                Regressions: the model's clipper interpolated flat
 *                colours and took odd strip triangles' vertex 2 as the
 *                first; the driver denied quads follow the convention but
 *                drew them so (piglit clipflat)
 *   offset_mode  polygon offset applies by polygon mode: a filled quad
 *                with only GL_POLYGON_OFFSET_LINE or _POINT on, and
 *                GL_LINES with _FILL on, are not offset
 * Each prints PASS/FAIL (SKIP when the context lacks what a test needs);
 * exit status 1 when any fails.
 *
 * Built by `make` (tests/gl/module.mk); tests/gl/programs.sh runs it.
 * Run: build/release/bin/tessera run -- build/release/bin/gl_desktop [test...]
 */
#define GL_GLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/gl/gl_util.h"

#define W 64
#define H 64

static int gl_version, glsl_version; /* major * 10 + minor */
static GLuint gl_fbo;               /* the framebuffer tests draw into */

/* ------------------------------------------------------------ client arrays */

/* Minetest's S3DVertex layout: position (3 floats), normal (3 floats),
 * colour (BGRA bytes), texcoord (2 floats): 36 bytes. */
struct vtx {
   float pos[3];
   float normal[3];
   uint8_t bgra[4];
   float uv[2];
};

static void
set_vtx(struct vtx *v, float x, float y, uint8_t r, uint8_t g, uint8_t b)
{
   memset(v, 0, sizeof(*v));
   v->pos[0] = x;
   v->pos[1] = y;
   v->normal[2] = 1.0f;
   v->bgra[0] = b;
   v->bgra[1] = g;
   v->bgra[2] = r;
   v->bgra[3] = 255;
}

static void
test_bgra_arrays(void)
{
   const char *t = "bgra_arrays";
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   /* Left half red, right half blue: R and B swapped would show. */
   struct vtx v[8];
   set_vtx(&v[0], -1, -1, 255, 0, 0);
   set_vtx(&v[1], 0, -1, 255, 0, 0);
   set_vtx(&v[2], 0, 1, 255, 0, 0);
   set_vtx(&v[3], -1, 1, 255, 0, 0);
   set_vtx(&v[4], 0, -1, 0, 64, 255);
   set_vtx(&v[5], 1, -1, 0, 64, 255);
   set_vtx(&v[6], 1, 1, 0, 64, 255);
   set_vtx(&v[7], 0, 1, 0, 64, 255);
   static const uint16_t idx[] = { 0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7 };
   bool ok = gl_util_has_ext("GL_ARB_vertex_array_bgra") ||
             gl_util_has_ext("GL_EXT_vertex_array_bgra");
   if (!ok)
      printf("  %s: no ARB_vertex_array_bgra\n", t);
   glEnableClientState(GL_VERTEX_ARRAY);
   glEnableClientState(GL_COLOR_ARRAY);
   glEnableClientState(GL_NORMAL_ARRAY);
   glColorPointer(GL_BGRA, GL_UNSIGNED_BYTE, sizeof(struct vtx), v[0].bgra);
   if (glGetError() != GL_NO_ERROR) {
      /* The colour array would keep its NULL pointer: drawing now is
       * what crashed the Minetest replay. */
      printf("  %s: glColorPointer(GL_BGRA) failed\n", t);
      ok = false;
   }
   glNormalPointer(GL_FLOAT, sizeof(struct vtx), v[0].normal);
   glVertexPointer(3, GL_FLOAT, sizeof(struct vtx), v[0].pos);
   if (ok)
      glDrawElements(GL_TRIANGLES, 12, GL_UNSIGNED_SHORT, idx);
   glDisableClientState(GL_VERTEX_ARRAY);
   glDisableClientState(GL_COLOR_ARRAY);
   glDisableClientState(GL_NORMAL_ARRAY);
   uint8_t px[W * H * 4];
   gl_util_read_fb(px, W, H);
   static const uint8_t red[4] = { 255, 0, 0, 255 }, blue[4] = { 0, 64, 255, 255 };
   ok = ok && gl_util_pixel_is(px, W, 5, 5, red, 1, t) &&
        gl_util_pixel_is(px, W, 30, 60, red, 1, t) &&
        gl_util_pixel_is(px, W, 40, 5, blue, 1, t) &&
        gl_util_pixel_is(px, W, 60, 60, blue, 1, t);
   gl_util_check(t, ok);
}

static void
test_index_range(void)
{
   const char *t = "index_range";
   enum { N = 40000 };
   struct vtx *v = calloc(N, sizeof(*v));
   if (!v) {
      gl_util_check(t, false);
      return;
   }
   /* Everything off screen except the vertices the indices pick. */
   for (unsigned i = 0; i < N; i++)
      set_vtx(&v[i], 5.0f, 5.0f, 255, 255, 255);
   /* Bottom half green through indices 0..39999 (u_vbuf sees a range of
    * 40000 vertices for 6 indices), top half yellow through a tight range
    * at the end with glDrawRangeElements. */
   set_vtx(&v[0], -1, -1, 0, 255, 0);
   set_vtx(&v[N - 1], 1, -1, 0, 255, 0);
   set_vtx(&v[N / 2], 1, 0, 0, 255, 0);
   set_vtx(&v[N / 3], -1, 0, 0, 255, 0);
   set_vtx(&v[N - 10], -1, 0, 255, 255, 0);
   set_vtx(&v[N - 9], 1, 0, 255, 255, 0);
   set_vtx(&v[N - 8], 1, 1, 255, 255, 0);
   set_vtx(&v[N - 7], -1, 1, 255, 255, 0);
   const uint16_t wide[] = { 0, N - 1, N / 2, 0, N / 2, N / 3 };
   const uint32_t tight[] = { N - 10, N - 9, N - 8, N - 10, N - 8, N - 7 };
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glEnableClientState(GL_VERTEX_ARRAY);
   glEnableClientState(GL_COLOR_ARRAY);
   glColorPointer(4, GL_UNSIGNED_BYTE, sizeof(struct vtx), v[0].bgra); /* RGBA here */
   for (unsigned i = 0; i < N; i++) {
      uint8_t b = v[i].bgra[0];
      v[i].bgra[0] = v[i].bgra[2];
      v[i].bgra[2] = b;
   }
   glVertexPointer(2, GL_FLOAT, sizeof(struct vtx), v[0].pos);
   glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, wide);
   glDrawRangeElements(GL_TRIANGLES, N - 10, N - 7, 6, GL_UNSIGNED_INT, tight);
   glDisableClientState(GL_VERTEX_ARRAY);
   glDisableClientState(GL_COLOR_ARRAY);
   uint8_t px[W * H * 4];
   gl_util_read_fb(px, W, H);
   free(v);
   static const uint8_t green[4] = { 0, 255, 0, 255 }, yellow[4] = { 255, 255, 0, 255 };
   bool ok = gl_util_pixel_is(px, W, 3, 3, green, 1, t) &&
             gl_util_pixel_is(px, W, 60, 28, green, 1, t) &&
             gl_util_pixel_is(px, W, 3, 36, yellow, 1, t) &&
             gl_util_pixel_is(px, W, 60, 60, yellow, 1, t);
   gl_util_check(t, ok);
}

/* ------------------------------------------------------------ GL 2.1 */

static void
test_version(void)
{
   printf("  version: GL %d.%d, GLSL %d.%02d\n", gl_version / 10, gl_version % 10,
          glsl_version / 100, glsl_version % 100);
   gl_util_check("version", gl_version >= 21 && glsl_version >= 120);
}

static const char vs_quad[] =
   "#version 120\n"
   "attribute vec2 pos;\n"
   "varying vec2 uv;\n"
   "void main() { uv = pos * 0.5 + 0.5; gl_Position = vec4(pos, 0.0, 1.0); }\n";

static void
draw_quad(GLuint prog)
{
   static const float q[] = { -1, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1 };
   glUseProgram(prog);
   glEnableVertexAttribArray(0);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, q);
   glDrawArrays(GL_TRIANGLES, 0, 6);
   glDisableVertexAttribArray(0);
   glUseProgram(0);
}

/* shadow2D of a depth texture whose left half is 0.25 and right half 0.75
 * against reference 0.5: LEQUAL passes on the right only. */
static const char fs_shadow[] =
   "#version 120\n"
   "uniform sampler2DShadow s;\n"
   "uniform float ref;\n"
   "varying vec2 uv;\n"
   "void main() { gl_FragColor = shadow2D(s, vec3(uv, ref)); }\n";

static void
test_shadow(void)
{
   const char *t = "shadow";
   if (glsl_version < 120 || !gl_util_has_ext("GL_ARB_shadow")) {
      printf("SKIP: shadow (no ARB_shadow / GLSL 1.20)\n");
      return;
   }
   enum { S = 16 };
   uint16_t depth[S * S];
   for (unsigned y = 0; y < S; y++)
      for (unsigned x = 0; x < S; x++)
         depth[y * S + x] = x < S / 2 ? 0x4000 : 0xc000;
   /* DEPTH_COMPONENT16 and 24 (whatever depth format the driver picks). */
   static const GLenum ifmt[] = { GL_DEPTH_COMPONENT16, GL_DEPTH_COMPONENT24 };
   bool ok = true;
   for (unsigned f = 0; f < 2 && ok; f++) {
      GLuint tex;
      glGenTextures(1, &tex);
      glBindTexture(GL_TEXTURE_2D, tex);
      glTexImage2D(GL_TEXTURE_2D, 0, ifmt[f], S, S, 0, GL_DEPTH_COMPONENT,
                   GL_UNSIGNED_SHORT, depth);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_R_TO_TEXTURE);
      GLuint prog = gl_util_program(vs_quad, fs_shadow, NULL);
      glUseProgram(prog);
      glUniform1i(glGetUniformLocation(prog, "s"), 0);
      GLint ref = glGetUniformLocation(prog, "ref");
      static const struct {
         GLenum func, mode;
         float ref;
         uint8_t left[4], right[4];
      } cases[] = {
         /* LUMINANCE (the compatibility default): (r, r, r, 1) */
         { GL_LEQUAL, GL_LUMINANCE, 0.5f, { 0, 0, 0, 255 }, { 255, 255, 255, 255 } },
         { GL_GREATER, GL_LUMINANCE, 0.5f, { 255, 255, 255, 255 }, { 0, 0, 0, 255 } },
         { GL_LEQUAL, GL_LUMINANCE, 0.1f, { 255, 255, 255, 255 }, { 255, 255, 255, 255 } },
         { GL_LEQUAL, GL_INTENSITY, 0.5f, { 0, 0, 0, 0 }, { 255, 255, 255, 255 } },
         { GL_LEQUAL, GL_ALPHA, 0.5f, { 0, 0, 0, 0 }, { 0, 0, 0, 255 } },
         { GL_LEQUAL, GL_RED, 0.5f, { 0, 0, 0, 255 }, { 255, 0, 0, 255 } },
      };
      for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]) && ok; i++) {
         glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, cases[i].func);
         glTexParameteri(GL_TEXTURE_2D, GL_DEPTH_TEXTURE_MODE, cases[i].mode);
         glUseProgram(prog);
         glUniform1f(ref, cases[i].ref);
         glClearColor(0.5f, 0.5f, 0.5f, 0.5f);
         glClear(GL_COLOR_BUFFER_BIT);
         draw_quad(prog);
         uint8_t px[W * H * 4];
         gl_util_read_fb(px, W, H);
         if (!gl_util_pixel_is(px, W, 4, 30, cases[i].left, 1, t) ||
             !gl_util_pixel_is(px, W, 60, 30, cases[i].right, 1, t)) {
            printf("  %s: format 0x%x case %u (func 0x%x, mode 0x%x, ref %.2f)\n", t, ifmt[f],
                   i, cases[i].func, cases[i].mode, cases[i].ref);
            ok = false;
         }
      }
      glDeleteProgram(prog);
      glDeleteTextures(1, &tex);
   }
   gl_util_check(t, ok);
}

/* GL 4.6 8.23.1: "If the texture's internal format indicates a
 * fixed-point depth texture, then D_t and D_ref are clamped to the range
 * [0, 1]; otherwise no clamping is performed." A texture of 0.0 (left) and
 * 1.0 (right) compared EQUAL with references -1 and 2: a fixed-point format
 * clamps them to 0 and 1 and passes on one side, DEPTH_COMPONENT32F (when
 * ARB_depth_buffer_float is exposed) fails on both. Regression: Z24,
 * stored as Z32F, compared the unclamped reference (piglit
 * glsl-fs-shadow2D-clamp-z, issue 13). */
static void
test_shadow_clamp(void)
{
   const char *t = "shadow_clamp";
   if (glsl_version < 120 || !gl_util_has_ext("GL_ARB_shadow")) {
      printf("SKIP: %s (no ARB_shadow / GLSL 1.20)\n", t);
      return;
   }
   enum { S = 16 };
   float depth[S * S];
   for (unsigned y = 0; y < S; y++)
      for (unsigned x = 0; x < S; x++)
         depth[y * S + x] = x < S / 2 ? 0.0f : 1.0f;
   static const GLenum ifmt[] = { GL_DEPTH_COMPONENT16, GL_DEPTH_COMPONENT24,
                                  GL_DEPTH_COMPONENT, GL_DEPTH_COMPONENT32F };
   bool ok = true;
   for (unsigned f = 0; f < sizeof(ifmt) / sizeof(ifmt[0]) && ok; f++) {
      bool fixed = ifmt[f] != GL_DEPTH_COMPONENT32F;
      if (!fixed && !gl_util_has_ext("GL_ARB_depth_buffer_float"))
         continue;
      GLuint tex;
      glGenTextures(1, &tex);
      glBindTexture(GL_TEXTURE_2D, tex);
      glTexImage2D(GL_TEXTURE_2D, 0, ifmt[f], S, S, 0, GL_DEPTH_COMPONENT, GL_FLOAT, depth);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_R_TO_TEXTURE);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_EQUAL);
      glTexParameteri(GL_TEXTURE_2D, GL_DEPTH_TEXTURE_MODE, GL_LUMINANCE);
      GLuint prog = gl_util_program(vs_quad, fs_shadow, NULL);
      glUseProgram(prog);
      glUniform1i(glGetUniformLocation(prog, "s"), 0);
      static const uint8_t pass[4] = { 255, 255, 255, 255 }, fail[4] = { 0, 0, 0, 255 };
      static const float refs[] = { -1.0f, 2.0f };
      for (unsigned i = 0; i < 2 && ok; i++) {
         glUseProgram(prog);
         glUniform1f(glGetUniformLocation(prog, "ref"), refs[i]);
         glClearColor(0.5f, 0.5f, 0.5f, 0.5f);
         glClear(GL_COLOR_BUFFER_BIT);
         draw_quad(prog);
         uint8_t px[W * H * 4];
         gl_util_read_fb(px, W, H);
         const uint8_t *left = fixed && i == 0 ? pass : fail;
         const uint8_t *right = fixed && i == 1 ? pass : fail;
         if (!gl_util_pixel_is(px, W, 4, 30, left, 1, t) ||
             !gl_util_pixel_is(px, W, 60, 30, right, 1, t)) {
            printf("  %s: format 0x%x ref %.1f\n", t, ifmt[f], refs[i]);
            ok = false;
         }
      }
      glDeleteProgram(prog);
      glDeleteTextures(1, &tex);
   }
   gl_util_check(t, ok);
}

static const char fs_tex3d[] =
   "#version 120\n"
   "uniform sampler3D s;\n"
   "uniform float r;\n"
   "varying vec2 uv;\n"
   "void main() { gl_FragColor = texture3D(s, vec3(uv, r)); }\n";

static void
test_tex3d(void)
{
   const char *t = "tex3d";
   GLint max3d = 0;
   glGetIntegerv(GL_MAX_3D_TEXTURE_SIZE, &max3d);
   if (glsl_version < 120 || max3d < 4) {
      printf("SKIP: tex3d (3D textures: max size %d)\n", max3d);
      return;
   }
   enum { S = 4 };
   /* texel (x, y, z) = (x * 64, y * 64, z * 80, 255) */
   uint8_t texels[S * S * S * 4];
   for (unsigned z = 0; z < S; z++)
      for (unsigned y = 0; y < S; y++)
         for (unsigned x = 0; x < S; x++) {
            uint8_t *p = texels + ((z * S + y) * S + x) * 4;
            p[0] = x * 64;
            p[1] = y * 64;
            p[2] = z * 80;
            p[3] = 255;
         }
   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_3D, tex);
   glTexImage3D(GL_TEXTURE_3D, 0, GL_RGBA8, S, S, S, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels);
   glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   GLuint prog = gl_util_program(vs_quad, fs_tex3d, NULL);
   glUseProgram(prog);
   glUniform1i(glGetUniformLocation(prog, "s"), 0);
   GLint r = glGetUniformLocation(prog, "r");
   bool ok = true;
   uint8_t px[W * H * 4];
   for (unsigned z = 0; z < S && ok; z++) {
      glUseProgram(prog);
      glUniform1f(r, (z + 0.5f) / S);
      draw_quad(prog);
      gl_util_read_fb(px, W, H);
      for (unsigned ty = 0; ty < S && ok; ty++)
         for (unsigned tx = 0; tx < S && ok; tx++) {
            uint8_t want[4] = { tx * 64, ty * 64, z * 80, 255 };
            ok = gl_util_pixel_is(px, W, tx * 16 + 8, ty * 16 + 8, want, 0, t);
         }
   }
   /* Linear filtering halfway between slices 1 and 2 (texel centres). */
   if (ok) {
      glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
      glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
      glUseProgram(prog);
      glUniform1f(r, 0.5f);
      draw_quad(prog);
      gl_util_read_fb(px, W, H);
      /* pixel 24: u = 24.5 / 64, texel space 1.03125 -> 66 in x and y;
       * r = 0.5 lies halfway between slices 1 and 2 -> (80 + 160) / 2 */
      uint8_t want[4] = { 66, 66, 120, 255 };
      ok = gl_util_pixel_is(px, W, 24, 24, want, 1, t);
   }
   /* glGenerateMipmap, then level 1 alone (BASE_LEVEL 1): 2x2x2 with
    * slice z the average of level-0 slices 2z and 2z+1. */
   if (ok) {
      glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_NEAREST);
      glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glGenerateMipmap(GL_TEXTURE_3D);
      glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_BASE_LEVEL, 1);
      for (unsigned z = 0; z < S / 2 && ok; z++) {
         glUseProgram(prog);
         glUniform1f(r, (z + 0.5f) / (S / 2));
         draw_quad(prog);
         gl_util_read_fb(px, W, H);
         for (unsigned ty = 0; ty < S / 2 && ok; ty++)
            for (unsigned tx = 0; tx < S / 2 && ok; tx++) {
               uint8_t want[4] = { tx * 128 + 32, ty * 128 + 32, z * 160 + 40, 255 };
               ok = gl_util_pixel_is(px, W, tx * 32 + 16, ty * 32 + 16, want, 1, t);
            }
      }
   }
   /* Render into slice 2 of level 0 (FBO attachment of a 3D slice: the
    * end-of-tile store writes that layer), then sample slices 1 and 2. */
   if (ok) {
      GLint prev = 0;
      glGetIntegerv(GL_FRAMEBUFFER_BINDING, &prev);
      glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_BASE_LEVEL, 0);
      glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      GLuint fb3;
      glGenFramebuffers(1, &fb3);
      glBindFramebuffer(GL_FRAMEBUFFER, fb3);
      glFramebufferTexture3D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_3D, tex, 0, 2);
      if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
         printf("  %s: 3D slice framebuffer incomplete\n", t);
         ok = false;
      } else {
         glViewport(0, 0, S, S);
         glClearColor(1.0f, 0.0f, 1.0f, 1.0f);
         glClear(GL_COLOR_BUFFER_BIT);
      }
      glBindFramebuffer(GL_FRAMEBUFFER, prev);
      glDeleteFramebuffers(1, &fb3);
      glViewport(0, 0, W, H);
      for (unsigned z = 1; z <= 2 && ok; z++) {
         glUseProgram(prog);
         glUniform1f(r, (z + 0.5f) / S);
         draw_quad(prog);
         gl_util_read_fb(px, W, H);
         for (unsigned ty = 0; ty < S && ok; ty++)
            for (unsigned tx = 0; tx < S && ok; tx++) {
               uint8_t old[4] = { tx * 64, ty * 64, z * 80, 255 };
               static const uint8_t magenta[4] = { 255, 0, 255, 255 };
               ok = gl_util_pixel_is(px, W, tx * 16 + 8, ty * 16 + 8, z == 2 ? magenta : old, 0, t);
            }
      }
   }
   glDeleteProgram(prog);
   glDeleteTextures(1, &tex);
   gl_util_check(t, ok);
}

/* ------------------------------------------------------------ instancing */

#define GETPROC(type, name) ((type)eglGetProcAddress(name))

/* Four instances of a 16x32-pixel quad: a per-instance offset (divisor 1)
 * moves instance i into column i, a per-instance colour (divisor 2) is
 * shared by instances 0,1 and 2,3.  Bottom row: glDrawElementsInstanced
 * (u16 indices in a buffer object), top row: glDrawArraysInstanced (its own
 * colours, a triangle list). */
static const char vs_inst[] =
   "#version 120\n"
   "attribute vec2 pos;\n"
   "attribute vec2 offs;\n"
   "attribute vec4 col;\n"
   "varying vec4 c;\n"
   "void main() { c = col; gl_Position = vec4(pos + offs, 0.0, 1.0); }\n";
static const char fs_varying[] =
   "#version 120\n"
   "varying vec4 c;\n"
   "void main() { gl_FragColor = c; }\n";

static GLuint
program_attribs(const char *vs, const char *fs, const char *const *names, unsigned n)
{
   GLuint p = glCreateProgram();
   glAttachShader(p, gl_util_shader(GL_VERTEX_SHADER, vs));
   glAttachShader(p, gl_util_shader(GL_FRAGMENT_SHADER, fs));
   for (unsigned i = 0; i < n; i++)
      glBindAttribLocation(p, i, names[i]);
   glLinkProgram(p);
   GLint ok = 0;
   glGetProgramiv(p, GL_LINK_STATUS, &ok);
   if (!ok) {
      char log[1024];
      glGetProgramInfoLog(p, sizeof(log), NULL, log);
      printf("  link failed: %s\n", log);
   }
   return p;
}

static void
test_instancing(void)
{
   const char *t = "instancing";
   if (!gl_util_has_ext("GL_ARB_instanced_arrays")) {
      printf("SKIP: instancing (no ARB_instanced_arrays)\n");
      return;
   }
   PFNGLVERTEXATTRIBDIVISORARBPROC divisor =
      GETPROC(PFNGLVERTEXATTRIBDIVISORARBPROC, "glVertexAttribDivisorARB");
   PFNGLDRAWELEMENTSINSTANCEDARBPROC draw_elements =
      GETPROC(PFNGLDRAWELEMENTSINSTANCEDARBPROC, "glDrawElementsInstancedARB");
   PFNGLDRAWARRAYSINSTANCEDARBPROC draw_arrays =
      GETPROC(PFNGLDRAWARRAYSINSTANCEDARBPROC, "glDrawArraysInstancedARB");
   if (!divisor || !draw_elements || !draw_arrays) {
      gl_util_verdict(false, ": %s (entry points missing)", t);
      return;
   }
   static const char *const names[] = { "pos", "offs", "col" };
   GLuint prog = program_attribs(vs_inst, fs_varying, names, 3);
   glUseProgram(prog);
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);

   /* A quad 0.5 wide (16 px), 1.0 high (32 px) at the bottom left. */
   static const float quad[] = { -1, -1, -0.5f, -1, -0.5f, 0, -1, 0 };
   static const float tris[] = { -1, 0, -0.5f, 0, -0.5f, 1, -1, 0, -0.5f, 1, -1, 1 };
   static const float offs[] = { 0, 0, 0.5f, 0, 1.0f, 0, 1.5f, 0 };
   static const float col_e[] = { 1, 0, 0, 1, 0, 1, 0, 1 };       /* per 2 instances */
   static const float col_a[] = { 0, 0, 1, 1, 1, 1, 0, 1 };
   static const uint16_t idx[] = { 0, 1, 2, 0, 2, 3 };
   GLuint bo[5];
   glGenBuffers(5, bo);
   const void *data[5] = { quad, offs, col_e, idx, tris };
   const size_t size[5] = { sizeof(quad), sizeof(offs), sizeof(col_e), sizeof(idx), sizeof(tris) };
   for (unsigned i = 0; i < 5; i++) {
      GLenum target = i == 3 ? GL_ELEMENT_ARRAY_BUFFER : GL_ARRAY_BUFFER;
      glBindBuffer(target, bo[i]);
      glBufferData(target, size[i], data[i], GL_STATIC_DRAW);
   }
   for (unsigned i = 0; i < 3; i++) {
      glBindBuffer(GL_ARRAY_BUFFER, bo[i]);
      glVertexAttribPointer(i, i == 2 ? 4 : 2, GL_FLOAT, GL_FALSE, 0, NULL);
      glEnableVertexAttribArray(i);
   }
   divisor(1, 1);
   divisor(2, 2);
   draw_elements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, NULL, 4);
   /* Top row: no index buffer, client-memory colours (u_vbuf uploads
    * per-instance user arrays too). */
   glBindBuffer(GL_ARRAY_BUFFER, bo[4]);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   glVertexAttribPointer(2, 4, GL_FLOAT, GL_FALSE, 0, col_a);
   draw_arrays(GL_TRIANGLES, 0, 6, 4);
   divisor(1, 0);
   divisor(2, 0);
   for (unsigned i = 0; i < 3; i++)
      glDisableVertexAttribArray(i);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
   glUseProgram(0);

   uint8_t px[W * H * 4];
   gl_util_read_fb(px, W, H);
   bool ok = true;
   for (unsigned i = 0; i < 4 && ok; i++) {
      const float *ce = &col_e[(i / 2) * 4], *ca = &col_a[(i / 2) * 4];
      uint8_t we[4], wa[4];
      for (unsigned k = 0; k < 4; k++) {
         we[k] = (uint8_t)(ce[k] * 255);
         wa[k] = (uint8_t)(ca[k] * 255);
      }
      ok = gl_util_pixel_is(px, W, i * 16 + 8, 16, we, 1, t) &&
           gl_util_pixel_is(px, W, i * 16 + 2, 2, we, 1, t) &&
           gl_util_pixel_is(px, W, i * 16 + 8, 48, wa, 1, t) &&
           gl_util_pixel_is(px, W, i * 16 + 13, 61, wa, 1, t);
   }
   glDeleteBuffers(5, bo);
   glDeleteProgram(prog);
   gl_util_check(t, ok);
}

/* ------------------------------------------------------- primitive restart */

/* Two separate quads drawn as one triangle strip split by the restart index:
 * left quad x [0,16), right quad x [48,64); the gap between them must stay
 * clear.  With restart index 8 (a real vertex in the far corner) a missing
 * restart would stitch the quads together through vertex 8 and fill the gap;
 * with 0xffff / 0xffffffff it would use an out-of-range vertex.  Each
 * case in u16 and u32, from a buffer object and from user memory. */
static const char vs_pos[] =
   "#version 120\n"
   "attribute vec2 pos;\n"
   "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";
static const char fs_green[] =
   "#version 120\n"
   "void main() { gl_FragColor = vec4(0.0, 1.0, 0.0, 1.0); }\n";

static void
test_restart(void)
{
   const char *t = "restart";
   if (!gl_util_has_ext("GL_NV_primitive_restart")) {
      printf("SKIP: restart (no NV_primitive_restart)\n");
      return;
   }
   PFNGLPRIMITIVERESTARTINDEXNVPROC restart_index =
      GETPROC(PFNGLPRIMITIVERESTARTINDEXNVPROC, "glPrimitiveRestartIndexNV");
   if (!restart_index) {
      gl_util_verdict(false, ": %s (no glPrimitiveRestartIndexNV)", t);
      return;
   }
   static const float v[] = {
      -1, -1, -0.5f, -1, -1, 1, -0.5f, 1,   /* left quad (strip order) */
      0.5f, -1, 1, -1, 0.5f, 1, 1, 1,       /* right quad */
      0, 0.9f,                              /* vertex 8: between them */
   };
   static const char *const names[] = { "pos" };
   GLuint prog = program_attribs(vs_pos, fs_green, names, 1);
   glUseProgram(prog);
   GLuint vbo, ibo;
   glGenBuffers(1, &vbo);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   glBufferData(GL_ARRAY_BUFFER, sizeof(v), v, GL_STATIC_DRAW);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
   glEnableVertexAttribArray(0);
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   glGenBuffers(1, &ibo);
   glEnableClientState(GL_PRIMITIVE_RESTART_NV);
   bool ok = true;
   static const uint8_t green[4] = { 0, 255, 0, 255 }, black[4] = { 0, 0, 0, 255 };
   for (unsigned c = 0; c < 8 && ok; c++) {
      bool u32 = c & 1, user = c & 2, r8 = c & 4;
      uint32_t r = r8 ? 8 : u32 ? 0xffffffffu : 0xffff;
      const uint32_t list[9] = { 0, 1, 2, 3, r, 4, 5, 6, 7 };
      uint16_t i16[9];
      for (unsigned i = 0; i < 9; i++)
         i16[i] = (uint16_t)list[i];
      const void *data = u32 ? (const void *)list : (const void *)i16;
      size_t sz = u32 ? sizeof(list) : sizeof(i16);
      restart_index(r);
      glClearColor(0, 0, 0, 1);
      glClear(GL_COLOR_BUFFER_BIT);
      GLenum type = u32 ? GL_UNSIGNED_INT : GL_UNSIGNED_SHORT;
      if (user) {
         glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
         glDrawElements(GL_TRIANGLE_STRIP, 9, type, data);
      } else {
         glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
         glBufferData(GL_ELEMENT_ARRAY_BUFFER, sz, data, GL_STATIC_DRAW);
         glDrawElements(GL_TRIANGLE_STRIP, 9, type, NULL);
      }
      uint8_t px[W * H * 4];
      gl_util_read_fb(px, W, H);
      bool c_ok = gl_util_pixel_is(px, W, 4, 4, green, 0, t) &&
                  gl_util_pixel_is(px, W, 12, 60, green, 0, t) &&
                  gl_util_pixel_is(px, W, 52, 4, green, 0, t) &&
                  gl_util_pixel_is(px, W, 60, 60, green, 0, t) &&
                  gl_util_pixel_is(px, W, 32, 32, black, 0, t) &&
                  gl_util_pixel_is(px, W, 24, 50, black, 0, t) &&
                  gl_util_pixel_is(px, W, 40, 50, black, 0, t) &&
                  gl_util_pixel_is(px, W, 32, 4, black, 0, t);
      if (!c_ok)
         printf("  %s: u%d indices from %s, restart index 0x%x\n", t, u32 ? 32 : 16,
                user ? "user memory" : "a buffer object", r);
      ok = c_ok;
      /* A blue frame in between: a render the GPU drops (a faulting
       * vertex fetch) must not pass on the previous case's pixels. */
      glClearColor(0, 0, 1, 1);
      glClear(GL_COLOR_BUFFER_BIT);
      gl_util_read_fb(px, W, H);
   }
   /* Restart off: index 8 is an ordinary vertex and fills the gap. */
   if (ok) {
      glDisableClientState(GL_PRIMITIVE_RESTART_NV);
      static const uint16_t i16[9] = { 0, 1, 2, 3, 8, 4, 5, 6, 7 };
      glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
      glClear(GL_COLOR_BUFFER_BIT);
      glDrawElements(GL_TRIANGLE_STRIP, 9, GL_UNSIGNED_SHORT, i16);
      uint8_t px[W * H * 4];
      gl_util_read_fb(px, W, H);
      ok = gl_util_pixel_is(px, W, 32, 58, green, 0, t);
      if (!ok)
         printf("  %s: with restart disabled\n", t);
   }
   glDisableClientState(GL_PRIMITIVE_RESTART_NV);
   glDisableVertexAttribArray(0);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
   glDeleteBuffers(1, &vbo);
   glDeleteBuffers(1, &ibo);
   glUseProgram(0);
   glDeleteProgram(prog);
   gl_util_check(t, ok);
}

/* ------------------------------------------------------ independent blend */

/* Two RGBA8 targets cleared to D, a full-screen quad writes S0 to target 0
 * and S1 to target 1.  Left half (ARB_draw_buffers_blend): both blended,
 * target 0 with SRC_ALPHA/ONE_MINUS_SRC_ALPHA (ADD), target 1 with ONE/ONE
 * REVERSE_SUBTRACT and green masked off.  Right half (EXT_draw_buffers2): target 0 not blended
 * with red masked off, target 1 blended ONE/ONE with every channel. */
static const char fs_two[] =
   "#version 120\n"
   "void main() { gl_FragData[0] = vec4(1.0, 0.5, 0.0, 0.5);\n"
   "              gl_FragData[1] = vec4(0.25, 0.25, 0.25, 0.25); }\n";

static uint8_t
unorm8(float f)
{
   f = f < 0 ? 0 : f > 1 ? 1 : f;
   return (uint8_t)(f * 255.0f + 0.5f);
}

static void
test_indep_blend(void)
{
   const char *t = "indep_blend";
   bool func = gl_util_has_ext("GL_ARB_draw_buffers_blend");
   if (!gl_util_has_ext("GL_EXT_draw_buffers2")) {
      printf("SKIP: indep_blend (no EXT_draw_buffers2)\n");
      return;
   }
   GLint max = 1;
   glGetIntegerv(GL_MAX_DRAW_BUFFERS, &max);
   if (max < 2) {
      printf("SKIP: indep_blend (%d draw buffer)\n", max);
      return;
   }
   PFNGLENABLEINDEXEDEXTPROC enable_i = GETPROC(PFNGLENABLEINDEXEDEXTPROC, "glEnableIndexedEXT");
   PFNGLDISABLEINDEXEDEXTPROC disable_i =
      GETPROC(PFNGLDISABLEINDEXEDEXTPROC, "glDisableIndexedEXT");
   PFNGLCOLORMASKINDEXEDEXTPROC mask_i =
      GETPROC(PFNGLCOLORMASKINDEXEDEXTPROC, "glColorMaskIndexedEXT");
   PFNGLBLENDFUNCIARBPROC func_i = GETPROC(PFNGLBLENDFUNCIARBPROC, "glBlendFunciARB");
   PFNGLBLENDEQUATIONIARBPROC eq_i =
      GETPROC(PFNGLBLENDEQUATIONIARBPROC, "glBlendEquationiARB");
   if (!enable_i || !disable_i || !mask_i || (func && (!func_i || !eq_i))) {
      gl_util_verdict(false, ": %s (entry points missing)", t);
      return;
   }
   GLuint f, rb[2];
   glGenFramebuffers(1, &f);
   glBindFramebuffer(GL_FRAMEBUFFER, f);
   glGenRenderbuffers(2, rb);
   for (unsigned i = 0; i < 2; i++) {
      glBindRenderbuffer(GL_RENDERBUFFER, rb[i]);
      glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, W, H);
      glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0 + i, GL_RENDERBUFFER, rb[i]);
   }
   static const GLenum bufs[2] = { GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1 };
   glDrawBuffers(2, bufs);
   bool ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
   static const float d[4] = { 64 / 255.0f, 128 / 255.0f, 192 / 255.0f, 1 };
   static const float s0[4] = { 1, 0.5f, 0, 0.5f }, s1[4] = { 0.25f, 0.25f, 0.25f, 0.25f };
   glClearColor(d[0], d[1], d[2], d[3]);
   glClear(GL_COLOR_BUFFER_BIT);
   static const char *const names[] = { "pos" };
   GLuint prog = program_attribs(vs_pos, fs_two, names, 1);
   glUseProgram(prog);
   glEnableVertexAttribArray(0);
   static const float left[] = { -1, -1, 0, -1, 0, 1, -1, -1, 0, 1, -1, 1 };
   static const float right[] = { 0, -1, 1, -1, 1, 1, 0, -1, 1, 1, 0, 1 };
   /* CPU references, [half][target][channel]. */
   uint8_t want[2][2][4];
   if (func) {
      enable_i(GL_BLEND, 0);
      enable_i(GL_BLEND, 1);
      func_i(0, GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
      func_i(1, GL_ONE, GL_ONE);
      eq_i(1, GL_FUNC_REVERSE_SUBTRACT);
      mask_i(0, GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
      mask_i(1, GL_TRUE, GL_FALSE, GL_TRUE, GL_TRUE);
      glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, left);
      glDrawArrays(GL_TRIANGLES, 0, 6);
      for (unsigned k = 0; k < 4; k++) {
         want[0][0][k] = unorm8(s0[k] * s0[3] + d[k] * (1 - s0[3]));
         want[0][1][k] = unorm8(k == 1 ? d[k] : d[k] - s1[k]);
      }
   }
   /* One blend function again, blending and masks per target. */
   glBlendFunc(GL_ONE, GL_ONE);
   glBlendEquation(GL_FUNC_ADD);
   disable_i(GL_BLEND, 0);
   enable_i(GL_BLEND, 1);
   mask_i(0, GL_FALSE, GL_TRUE, GL_TRUE, GL_TRUE);
   mask_i(1, GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, right);
   glDrawArrays(GL_TRIANGLES, 0, 6);
   for (unsigned k = 0; k < 4; k++) {
      want[1][0][k] = unorm8(k == 0 ? d[k] : s0[k]);
      want[1][1][k] = unorm8(s1[k] + d[k]);
   }
   glDisable(GL_BLEND);
   glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
   glBlendFunc(GL_ONE, GL_ZERO);
   glDisableVertexAttribArray(0);
   glUseProgram(0);
   uint8_t px[W * H * 4];
   for (unsigned i = 0; i < 2 && ok; i++) {
      glReadBuffer(GL_COLOR_ATTACHMENT0 + i);
      gl_util_read_fb(px, W, H);
      for (unsigned h = func ? 0 : 1; h < 2 && ok; h++) {
         ok = gl_util_pixel_is(px, W, h * 32 + 8, 8, want[h][i], 1, t) &&
              gl_util_pixel_is(px, W, h * 32 + 24, 56, want[h][i], 1, t);
         if (!ok)
            printf("  %s: target %u, %s half\n", t, i, h ? "right" : "left");
      }
   }
   if (!func)
      printf("  %s: no ARB_draw_buffers_blend, per-target functions not tested\n", t);
   glBindFramebuffer(GL_FRAMEBUFFER, gl_fbo);
   glDeleteFramebuffers(1, &f);
   glDeleteRenderbuffers(2, rb);
   glDeleteProgram(prog);
   gl_util_check(t, ok);
}

/* ------------------------------------------------ vertex texture fetch */

/* Each vertex reads its colour from a 4x1 texture with texture2DLod. */
static const char vs_vtf[] =
   "#version 120\n"
   "attribute vec2 pos;\n"
   "uniform sampler2D vt;\n"
   "varying vec4 col;\n"
   "void main() {\n"
   "  float i = pos.x < 0.0 ? (pos.y < 0.0 ? 0.0 : 3.0) : (pos.y < 0.0 ? 1.0 : 2.0);\n"
   "  col = texture2DLod(vt, vec2((i + 0.5) / 4.0, 0.5), 0.0);\n"
   "  gl_Position = vec4(pos, 0.0, 1.0);\n"
   "}\n";

static const char fs_vtf[] =
   "#version 120\n"
   "varying vec4 col;\n"
   "void main() { gl_FragColor = col; }\n";

/* Vertex texture fetch (glmark2's terrain displaces its grid this way):
 * flat-coloured triangles whose colours come from the vertex stage's
 * texture, next to a fragment-stage texture on another unit. */
static void
test_vertex_texture(void)
{
   const char *t = "vertex_texture";
   GLint units = 0;
   glGetIntegerv(GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS, &units);
   if (!gl_util_verdict(units >= 4, ": %s: %d vertex texture units", t, units))
      return;
   static const uint8_t texels[4 * 4] = {
      200, 40, 40, 255, 40, 200, 40, 255, 40, 40, 200, 255, 200, 200, 40, 255,
   };
   GLuint tex;
   glGenTextures(1, &tex);
   glActiveTexture(GL_TEXTURE2);
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 4, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   glActiveTexture(GL_TEXTURE0);
   bool linked = false;
   GLuint prog = gl_util_program(vs_vtf, fs_vtf, &linked);
   bool ok = linked;
   if (ok) {
      glUseProgram(prog);
      glUniform1i(glGetUniformLocation(prog, "vt"), 2);
      /* four small quads near the corners, each a constant colour */
      static const float q[4][12] = {
         { -0.9f, -0.9f, -0.5f, -0.9f, -0.5f, -0.5f, -0.9f, -0.9f, -0.5f, -0.5f, -0.9f, -0.5f },
         { 0.5f, -0.9f, 0.9f, -0.9f, 0.9f, -0.5f, 0.5f, -0.9f, 0.9f, -0.5f, 0.5f, -0.5f },
         { 0.5f, 0.5f, 0.9f, 0.5f, 0.9f, 0.9f, 0.5f, 0.5f, 0.9f, 0.9f, 0.5f, 0.9f },
         { -0.9f, 0.5f, -0.5f, 0.5f, -0.5f, 0.9f, -0.9f, 0.5f, -0.5f, 0.9f, -0.9f, 0.9f },
      };
      glClearColor(0, 0, 0, 0);
      glClear(GL_COLOR_BUFFER_BIT);
      glEnableVertexAttribArray(0);
      for (unsigned i = 0; i < 4; i++) {
         glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, q[i]);
         glDrawArrays(GL_TRIANGLES, 0, 6);
      }
      glDisableVertexAttribArray(0);
      glUseProgram(0);
      uint8_t px[W * H * 4];
      gl_util_read_fb(px, W, H);
      /* quad centres in pixels: x, y = (±0.7 + 1) * 32 */
      static const unsigned at[4][2] = { { 10, 10 }, { 54, 10 }, { 54, 54 }, { 10, 54 } };
      for (unsigned i = 0; i < 4 && ok; i++)
         ok = gl_util_pixel_is(px, W, at[i][0], at[i][1], texels + 4 * i, 0, t);
   }
   glDeleteProgram(prog);
   glDeleteTextures(1, &tex);
   gl_util_check(t, ok);
}

/* Unit 0 (custom border) sampled from -1 to 2 in the lower half, unit 1
 * (a plain clamp-to-edge sampler in the same, then extended, table) in the
 * upper half. */
static const char fs_border[] =
   "#version 120\n"
   "uniform sampler2D s0, s1;\n"
   "varying vec2 uv;\n"
   "void main() {\n"
   "   gl_FragColor = uv.y < 0.5 ? texture2D(s0, uv * 3.0 - 1.0) : texture2D(s1, uv);\n"
   "}\n";

static void
test_border(void)
{
   const char *t = "border";
   static const float colour[4] = { 0.2f, 0.4f, 0.6f, 0.8f };
   static const struct {
      GLenum ifmt;
      const char *name;
      uint8_t want[4]; /* the border as an RGBA8 framebuffer stores it */
   } fmts[] = {
      { GL_RGBA8, "RGBA8", { 51, 102, 153, 204 } },
      /* sRGB: the border is linear and not decoded (GL 4.6 8.14.2) */
      { GL_SRGB8_ALPHA8, "SRGB8_ALPHA8", { 51, 102, 153, 204 } },
      { GL_ALPHA8, "ALPHA8", { 0, 0, 0, 204 } },
      { GL_LUMINANCE8_ALPHA8, "LUMINANCE8_ALPHA8", { 51, 51, 51, 204 } },
      { GL_RGBA16F, "RGBA16F", { 51, 102, 153, 204 } },
      { GL_RGBA32F, "RGBA32F", { 51, 102, 153, 204 } },
   };
   if (glsl_version < 120) {
      printf("SKIP: border (GLSL %d)\n", glsl_version);
      return;
   }
   bool has_float = gl_version >= 30 || gl_util_has_ext("GL_ARB_texture_float");
   /* Unit 1: 2x2 texels (x * 200 + 20, y * 200 + 20, 90, 255). */
   static const uint8_t plain[16] = { 20, 20, 90, 255, 220, 20, 90, 255,
                                      20, 220, 90, 255, 220, 220, 90, 255 };
   GLuint tex[2];
   glGenTextures(2, tex);
   glActiveTexture(GL_TEXTURE1);
   glBindTexture(GL_TEXTURE_2D, tex[1]);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 2, 2, 0, GL_RGBA, GL_UNSIGNED_BYTE, plain);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
   glActiveTexture(GL_TEXTURE0);
   glBindTexture(GL_TEXTURE_2D, tex[0]);
   GLuint prog = gl_util_program(vs_quad, fs_border, NULL);
   glUseProgram(prog);
   glUniform1i(glGetUniformLocation(prog, "s0"), 0);
   glUniform1i(glGetUniformLocation(prog, "s1"), 1);
   bool ok = true;
   unsigned tested = 0;
   for (unsigned f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++) {
      bool is_float = fmts[f].ifmt == GL_RGBA16F || fmts[f].ifmt == GL_RGBA32F;
      if (is_float && !has_float) {
         printf("  %s: %s skipped (no float textures)\n", t, fmts[f].name);
         continue;
      }
      /* 2x2 of (0.5, 0.5, 0.5, 1) */
      static const float texels[16] = { 0.5f, 0.5f, 0.5f, 1, 0.5f, 0.5f, 0.5f, 1,
                                        0.5f, 0.5f, 0.5f, 1, 0.5f, 0.5f, 0.5f, 1 };
      glGetError();
      glTexImage2D(GL_TEXTURE_2D, 0, fmts[f].ifmt, 2, 2, 0, GL_RGBA, GL_FLOAT, texels);
      if (glGetError() != GL_NO_ERROR) {
         printf("  %s: %s skipped (not supported)\n", t, fmts[f].name);
         continue;
      }
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_BORDER);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_BORDER);
      glTexParameterfv(GL_TEXTURE_2D, GL_TEXTURE_BORDER_COLOR, colour);
      draw_quad(prog);
      uint8_t px[W * H * 4];
      gl_util_read_fb(px, W, H);
      /* (4, 4): s, t = -0.81, outside; (60, 60): unit 1's texel (1, 1) */
      static const uint8_t texel11[4] = { 220, 220, 90, 255 };
      if (!gl_util_pixel_is(px, W, 4, 4, fmts[f].want, 1, t) ||
          !gl_util_pixel_is(px, W, 60, 60, texel11, 0, t)) {
         printf("  %s: format %s\n", t, fmts[f].name);
         ok = false;
      }
      tested++;
   }
   /* GL_CLAMP with nearest filtering never reads the border (x = 60:
    * s = 1.84, clamped to 1, u = 2 = width): the edge
    * texel (0.5, 0.5, 0.5, 1) of the last format. Regression: the model
    * read the border at s >= 1 (piglit texwrap, issue 13). */
   if (tested) {
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP);
      draw_quad(prog);
      uint8_t px[W * H * 4];
      gl_util_read_fb(px, W, H);
      static const uint8_t edge[4] = { 128, 128, 128, 255 };
      if (!gl_util_pixel_is(px, W, 4, 4, edge, 1, t) ||
          !gl_util_pixel_is(px, W, 60, 4, edge, 1, t)) {
         printf("  %s: GL_CLAMP, NEAREST\n", t);
         ok = false;
      }
   }
   glDeleteProgram(prog);
   glDeleteTextures(2, tex);
   gl_util_check(t, ok && tested > 0);
}

/* ---------------------------------------------------------- max varyings */

/* GL_MAX_VARYING_FLOATS (64) user varyings as 16 vec4s, each a distinct
 * value the fragment shader checks (nudged by the position, so that
 * Mesa's linker cannot fold them into the fragment shader as constants):
 * with the position that is 68
 * vertex output slots. Regression: the model refused more than 64 slots
 * (the hardware's fields take 255), the vertex job failed and the
 * fragment job reported "TVB heap holds no binned frame" (piglit
 * varying-packing, issue 13). */
static const char vs_many[] =
   "#version 120\n"
   "attribute vec2 pos;\n"
   "varying vec4 v[16];\n"
   "void main() {\n"
   "   for (int i = 0; i < 16; i++)\n"
   "      v[i] = vec4(float(i), float(i) + 0.25, float(i) + 0.5, float(i) + 0.75) +\n"
   "             0.001 * pos.xyxy;\n"   /* not a constant Mesa's linker could fold */
   "   gl_Position = vec4(pos, 0.0, 1.0);\n"
   "}\n";
static const char fs_many[] =
   "#version 120\n"
   "varying vec4 v[16];\n"
   "void main() {\n"
   "   bool ok = true;\n"
   "   for (int i = 0; i < 16; i++) {\n"
   "      vec4 want = vec4(float(i), float(i) + 0.25, float(i) + 0.5, float(i) + 0.75);\n"
   "      if (any(greaterThan(abs(v[i] - want), vec4(0.01)))) ok = false;\n"
   "   }\n"
   "   gl_FragColor = ok ? vec4(0.0, 1.0, 0.0, 1.0) : vec4(1.0, 0.0, 0.0, 1.0);\n"
   "}\n";

static void
test_max_varyings(void)
{
   const char *t = "max_varyings";
   GLint floats = 0;
   glGetIntegerv(GL_MAX_VARYING_FLOATS, &floats);
   if (floats < 64) {
      printf("SKIP: %s (GL_MAX_VARYING_FLOATS is %d)\n", t, floats);
      return;
   }
   static const char *const names[] = { "pos" };
   GLuint prog = program_attribs(vs_many, fs_many, names, 1);
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   draw_quad(prog);
   uint8_t px[W * H * 4];
   gl_util_read_fb(px, W, H);
   static const uint8_t green[4] = { 0, 255, 0, 255 };
   bool ok = gl_util_pixel_is(px, W, 4, 4, green, 0, t) &&
             gl_util_pixel_is(px, W, 60, 60, green, 0, t);
   glDeleteProgram(prog);
   gl_util_check(t, ok);
}

/* ------------------------------------------------------ mixed FBO sizes */

/* GL_ARB_framebuffer_object (piglit's headless -fbo mode needs it for
 * every desktop GL test) allows attachments of different sizes: a 64x64
 * colour renderbuffer with a 128x128 depth renderbuffer. A near green quad
 * then a farther red one with LESS: green must win everywhere, so the
 * depth image (its own size, stored and reloaded by the ZLS unit) works. */
static void
test_mixed_sizes(void)
{
   const char *t = "mixed_sizes";
   if (!gl_util_has_ext("GL_ARB_framebuffer_object")) {
      gl_util_verdict(false, ": %s (no GL_ARB_framebuffer_object)", t);
      return;
   }
   GLuint fbo, rb[2];
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glGenRenderbuffers(2, rb);
   glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
   glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, W, H);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
   glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
   glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, 2 * W, 2 * H);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb[1]);
   GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
   bool ok = status == GL_FRAMEBUFFER_COMPLETE;
   if (!ok)
      printf("  %s: framebuffer status %#x\n", t, status);
   static const char *const names[] = { "pos" };
   static const char vs_z[] =
      "#version 120\n"
      "attribute vec2 pos;\n"
      "uniform float z;\n"
      "void main() { gl_Position = vec4(pos, z, 1.0); }\n";
   static const char fs_col[] =
      "#version 120\n"
      "uniform vec4 col;\n"
      "void main() { gl_FragColor = col; }\n";
   GLuint prog = program_attribs(vs_z, fs_col, names, 1);
   if (ok) {
      glViewport(0, 0, W, H);
      glClearColor(0, 0, 0, 1);
      glClearDepth(1.0);
      glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
      glEnable(GL_DEPTH_TEST);
      glDepthFunc(GL_LESS);
      glUseProgram(prog);
      glUniform1f(glGetUniformLocation(prog, "z"), 0.0f);
      glUniform4f(glGetUniformLocation(prog, "col"), 0, 1, 0, 1);
      draw_quad(prog);
      glFlush();   /* a second pass reloads the depth image */
      glUseProgram(prog);
      glUniform1f(glGetUniformLocation(prog, "z"), 0.5f);
      glUniform4f(glGetUniformLocation(prog, "col"), 1, 0, 0, 1);
      draw_quad(prog);
      glDisable(GL_DEPTH_TEST);
      uint8_t px[W * H * 4];
      gl_util_read_fb(px, W, H);
      static const uint8_t green[4] = { 0, 255, 0, 255 };
      ok = gl_util_pixel_is(px, W, 2, 2, green, 0, t) &&
           gl_util_pixel_is(px, W, 61, 61, green, 0, t) &&
           gl_util_pixel_is(px, W, 32, 32, green, 0, t);
   }
   glDeleteProgram(prog);
   glBindFramebuffer(GL_FRAMEBUFFER, gl_fbo);
   glDeleteFramebuffers(1, &fbo);
   glDeleteRenderbuffers(2, rb);
   gl_util_check(t, ok && glGetError() == GL_NO_ERROR);
}

/* ------------------------------------------------- indirect uniform index */

/* "i >= 4 ? b[i - 4] : a[i]" over two uniform arrays: st/mesa flattens the
 * branch into a select, so both loads run, one with an index out of its
 * array (b[-4] for i = 0). Regression: the negative offset of an unsigned
 * device_load read unmapped memory, the fragment job faulted and stored
 * nothing (piglit variable-indexing fs-input-array-*, issue 13): the
 * compiler clamps an indirect uniform load to its array. */
static const char fs_index[] =
   "#version 120\n"
   "uniform vec4 b[4];\n"   /* first: b[-4] is before the buffer */
   "uniform vec4 a[4];\n"
   "uniform int i;\n"
   "uniform vec4 want;\n"
   "uniform float tag;\n"
   "void main() {\n"
   "   gl_FragColor = (i >= 4 ? b[i - 4] : a[i]) == want ? vec4(0.0, 1.0, tag, 1.0)\n"
   "                                                   : vec4(1.0, 0.0, 0.0, 1.0);\n"
   "}\n";

static void
test_uniform_index(void)
{
   const char *t = "uniform_index";
   static const char *const names[] = { "pos" };
   GLuint prog = program_attribs(vs_pos, fs_index, names, 1);
   float a[16], b[16];
   for (unsigned k = 0; k < 16; k++)
      a[k] = (float)k, b[k] = 100.0f + (float)k;
   glUseProgram(prog);
   glUniform4fv(glGetUniformLocation(prog, "a"), 4, a);
   glUniform4fv(glGetUniformLocation(prog, "b"), 4, b);
   bool ok = true;
   static const int idx[] = { 0, 3, 4, 7 };
   for (unsigned k = 0; k < 4 && ok; k++) {
      const float *w = idx[k] >= 4 ? b + 4 * (idx[k] - 4) : a + 4 * idx[k];
      /* green with a blue tag per draw: a faulted render stores nothing
       * (its clear neither), so the framebuffer would still hold the
       * previous draw's or the previous test's green */
      const uint8_t green[4] = { 0, 255, (uint8_t)(51 * (k + 1)), 255 };
      glUseProgram(prog);
      glUniform1i(glGetUniformLocation(prog, "i"), idx[k]);
      glUniform4fv(glGetUniformLocation(prog, "want"), 1, w);
      glUniform1f(glGetUniformLocation(prog, "tag"), (float)(k + 1) / 5.0f);
      glClearColor(0, 0, 0, 1);
      glClear(GL_COLOR_BUFFER_BIT);
      draw_quad(prog);
      uint8_t px[W * H * 4];
      gl_util_read_fb(px, W, H);
      ok = gl_util_pixel_is(px, W, 32, 32, green, 1, t);
      if (!ok)
         printf("  %s: index %d\n", t, idx[k]);
   }
   glDeleteProgram(prog);
   gl_util_check(t, ok);
}

/* ------------------------------------------------------- point size zero */

/* A vertex shader writing gl_PointSize = 0: the size is clamped to the
 * driver's range (1 .. 511.95), so the point covers one pixel. Regression:
 * the size reached the model as 0 and the point was not drawn (piglit
 * vs-point_size-zero, issue 13). */
static const char vs_psize0[] =
   "#version 120\n"
   "attribute vec2 pos;\n"
   "void main() { gl_Position = vec4(pos, 0.0, 1.0); gl_PointSize = 0.0; }\n";

static void
test_point_size_zero(void)
{
   const char *t = "point_size_zero";
   static const char *const names[] = { "pos" };
   GLuint prog = program_attribs(vs_psize0, fs_green, names, 1);
   /* the centre of pixel (32, 32) */
   static const float p[] = { 65.0f / W - 1.0f, 65.0f / H - 1.0f };
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glEnable(GL_VERTEX_PROGRAM_POINT_SIZE);
   glUseProgram(prog);
   glEnableVertexAttribArray(0);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, p);
   glDrawArrays(GL_POINTS, 0, 1);
   glDisableVertexAttribArray(0);
   glUseProgram(0);
   glDisable(GL_VERTEX_PROGRAM_POINT_SIZE);
   uint8_t px[W * H * 4];
   gl_util_read_fb(px, W, H);
   static const uint8_t green[4] = { 0, 255, 0, 255 };
   bool ok = gl_util_pixel_is(px, W, 32, 32, green, 0, t);
   glDeleteProgram(prog);
   gl_util_check(t, ok);
}

/* ------------------------------------------------------ sampler LOD bias */

/* GL_TEXTURE_LOD_BIAS 1 on a 64x64 texture drawn 1:1 (LOD 0): level 1
 * (green) is sampled, not level 0 (red). The hardware's sampler has no
 * bias field; the compiler adds it from a uniform. Regression: the bias
 * was ignored (piglit tex-miplevel-selection GL2:texture(), issue 13). */
static const char fs_tex2d[] =
   "#version 120\n"
   "uniform sampler2D t;\n"
   "varying vec2 uv;\n"
   "void main() { gl_FragColor = texture2D(t, uv); }\n";

static void
test_lod_bias(void)
{
   const char *t = "lod_bias";
   static const char *const names[] = { "pos" };
   GLuint prog = program_attribs(vs_quad, fs_tex2d, names, 1);
   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   static uint8_t img[64 * 64 * 4];
   static const uint8_t col[7][4] = { { 255, 0, 0, 255 }, { 0, 255, 0, 255 }, { 0, 0, 255, 255 },
                                      { 255, 255, 0, 255 }, { 0, 255, 255, 255 },
                                      { 255, 0, 255, 255 }, { 255, 255, 255, 255 } };
   for (unsigned l = 0, sz = 64; l < 7; l++, sz /= 2) {
      for (unsigned i = 0; i < sz * sz; i++)
         memcpy(img + 4 * i, col[l], 4);
      glTexImage2D(GL_TEXTURE_2D, l, GL_RGBA8, sz, sz, 0, GL_RGBA, GL_UNSIGNED_BYTE, img);
   }
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   bool ok = true;
   static const float bias[] = { 0.0f, 1.0f, 2.0f };
   for (unsigned k = 0; k < 3 && ok; k++) {
      glTexParameterf(GL_TEXTURE_2D, GL_TEXTURE_LOD_BIAS, bias[k]);
      glClearColor(0, 0, 0, 1);
      glClear(GL_COLOR_BUFFER_BIT);
      glUseProgram(prog);
      glUniform1i(glGetUniformLocation(prog, "t"), 0);
      draw_quad(prog);
      uint8_t px[W * H * 4];
      gl_util_read_fb(px, W, H);
      ok = gl_util_pixel_is(px, W, 20, 20, col[k], 0, t);
      if (!ok)
         printf("  %s: bias %.0f\n", t, bias[k]);
   }
   glDeleteTextures(1, &tex);
   glDeleteProgram(prog);
   gl_util_check(t, ok);
}

/* ------------------------------------------------------- viewport clip */

/* Viewport = left half; a quad reaching to x = 3 in clip space. Triangles
 * are clipped to the viewport, so the right half keeps the clear colour.
 * Regression: the hardware clips against a guard band, the driver did not
 * intersect the scissor with the viewport and the quad covered the right
 * half (piglit triangle-guardband-viewport, issue 13). */
static void
test_viewport_clip(void)
{
   const char *t = "viewport_clip";
   static const char *const names[] = { "pos" };
   GLuint prog = program_attribs(vs_pos, fs_green, names, 1);
   static const float q[] = { -1, -1, 3, -1, 3, 1, -1, -1, 3, 1, -1, 1 };
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glViewport(0, 0, W / 2, H);
   glUseProgram(prog);
   glEnableVertexAttribArray(0);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, q);
   glDrawArrays(GL_TRIANGLES, 0, 6);
   glDisableVertexAttribArray(0);
   glUseProgram(0);
   glViewport(0, 0, W, H);
   uint8_t px[W * H * 4];
   gl_util_read_fb(px, W, H);
   static const uint8_t green[4] = { 0, 255, 0, 255 }, black[4] = { 0, 0, 0, 255 };
   bool ok = gl_util_pixel_is(px, W, 4, 32, green, 0, t) &&
             gl_util_pixel_is(px, W, W / 2 - 1, 32, green, 0, t) &&
             gl_util_pixel_is(px, W, W / 2, 32, black, 0, t) &&
             gl_util_pixel_is(px, W, W - 2, 60, black, 0, t);
   glDeleteProgram(prog);
   gl_util_check(t, ok);
}

/* ------------------------------------------------------ user clip planes */

/* gl_ClipVertex's y against plane (1, 0, 0, 0): only the top half stays. */
static const char vs_clipvertex[] =
   "#version 120\n"
   "attribute vec2 pos;\n"
   "void main() {\n"
   "   gl_Position = vec4(pos, 0.0, 1.0);\n"
   "   gl_ClipVertex = vec4(pos.y, 0.0, 0.0, 1.0);\n"
   "}\n";

/* A full-screen quad cut by user clip planes: fixed function with plane 0
 * (x >= 0, eye space = clip space here), then planes 0 and 5 (y <= 0:
 * only the lower right quadrant stays), then a GLSL shader writing
 * gl_ClipVertex. Regression: the compiler refused clip distances ("user
 * clip distances are not supported", nothing drawn; piglit user-clip,
 * vs-clip-vertex-*, issue 13). */
static void
test_clip_plane(void)
{
   const char *t = "clip_plane";
   static const float q[] = { -1, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1 };
   static const GLdouble keep_right[] = { 1, 0, 0, 0 }, keep_low[] = { 0, -1, 0, 0 };
   static const uint8_t green[4] = { 0, 255, 0, 255 }, black[4] = { 0, 0, 0, 255 };
   glMatrixMode(GL_MODELVIEW);
   glLoadIdentity();
   glMatrixMode(GL_PROJECTION);
   glLoadIdentity();
   glClipPlane(GL_CLIP_PLANE0, keep_right);
   glClipPlane(GL_CLIP_PLANE5, keep_low);
   bool ok = true;
   uint8_t px[W * H * 4];
   for (unsigned pass = 0; pass < 3 && ok; pass++) {
      glClearColor(0, 0, 0, 1);
      glClear(GL_COLOR_BUFFER_BIT);
      GLuint prog = 0;
      if (pass < 2) {
         glEnable(GL_CLIP_PLANE0);
         if (pass == 1)
            glEnable(GL_CLIP_PLANE5);
         glColor4f(0, 1, 0, 1);
         glEnableClientState(GL_VERTEX_ARRAY);
         glVertexPointer(2, GL_FLOAT, 0, q);
         glDrawArrays(GL_TRIANGLES, 0, 6);
         glDisableClientState(GL_VERTEX_ARRAY);
      } else {
         static const char *const names[] = { "pos" };
         prog = program_attribs(vs_clipvertex, fs_green, names, 1);
         glEnable(GL_CLIP_PLANE0);
         glUseProgram(prog);
         glEnableVertexAttribArray(0);
         glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, q);
         glDrawArrays(GL_TRIANGLES, 0, 6);
         glDisableVertexAttribArray(0);
         glUseProgram(0);
      }
      glDisable(GL_CLIP_PLANE0);
      glDisable(GL_CLIP_PLANE5);
      gl_util_read_fb(px, W, H);
      /* (x, y) in GL window coordinates: y = 0 is the bottom row. */
      const uint8_t *ll = black, *lr = pass == 2 ? black : green;
      const uint8_t *ul = pass == 2 ? green : black, *ur = pass == 2 ? green : pass == 1 ? black : green;
      ok = gl_util_pixel_is(px, W, 8, 8, ll, 0, t) && gl_util_pixel_is(px, W, 56, 8, lr, 0, t) &&
           gl_util_pixel_is(px, W, 8, 56, ul, 0, t) && gl_util_pixel_is(px, W, 56, 56, ur, 0, t);
      if (!ok)
         printf("  %s: pass %u (%s)\n", t, pass,
                pass == 0 ? "fixed function, plane 0" : pass == 1 ? "planes 0 and 5" : "gl_ClipVertex");
      if (prog)
         glDeleteProgram(prog);
   }
   gl_util_check(t, ok);
}

/* ------------------------------------------------------- polygon stipple */

/* glPolygonStipple with even rows set: a quad drawn with a user fragment
 * shader and with fixed function keeps only the even window rows; a line
 * is not stippled. Regression: the stipple was ignored (the hardware has
 * none; piglit polygon-stipple-fs, issue 13). */
static void
test_stipple(void)
{
   const char *t = "stipple";
   GLubyte pattern[32 * 4];
   for (unsigned r = 0; r < 32; r++)
      memset(pattern + 4 * r, r % 2 ? 0x00 : 0xff, 4);
   glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
   glPolygonStipple(pattern);
   glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
   static const char *const names[] = { "pos" };
   GLuint prog = program_attribs(vs_pos, fs_green, names, 1);
   static const float q[] = { -1, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1 };
   static const float line[] = { -1, 41.5f / (H / 2) - 1, 1, 41.5f / (H / 2) - 1 };
   static const uint8_t green[4] = { 0, 255, 0, 255 }, black[4] = { 0, 0, 0, 255 };
   bool ok = true;
   uint8_t px[W * H * 4];
   for (unsigned pass = 0; pass < 2 && ok; pass++) {
      glClearColor(0, 0, 0, 1);
      glClear(GL_COLOR_BUFFER_BIT);
      glEnable(GL_POLYGON_STIPPLE);
      if (pass == 0) {
         glUseProgram(prog);
         glEnableVertexAttribArray(0);
         glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, q);
         glDrawArrays(GL_TRIANGLES, 0, 6);
         /* window row 41 (odd): a line through its centres */
         glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, line);
         glDrawArrays(GL_LINES, 0, 2);
         glDisableVertexAttribArray(0);
         glUseProgram(0);
      } else {
         glColor4f(0, 1, 0, 1);
         glEnableClientState(GL_VERTEX_ARRAY);
         glVertexPointer(2, GL_FLOAT, 0, q);
         glDrawArrays(GL_TRIANGLES, 0, 6);
         glDisableClientState(GL_VERTEX_ARRAY);
      }
      glDisable(GL_POLYGON_STIPPLE);
      gl_util_read_fb(px, W, H);
      ok = gl_util_pixel_is(px, W, 5, 10, green, 0, t) &&
           gl_util_pixel_is(px, W, 5, 11, black, 0, t) &&
           gl_util_pixel_is(px, W, 50, 42, green, 0, t) &&
           gl_util_pixel_is(px, W, 50, 43, black, 0, t) &&
           (pass == 1 || gl_util_pixel_is(px, W, 20, 41, green, 0, t));
      if (!ok)
         printf("  %s: %s\n", t, pass == 0 ? "user fragment shader" : "fixed function");
   }
   glDeleteProgram(prog);
   gl_util_check(t, ok);
}

/* ------------------------------------------------ mipmapped depth texture */

/* A 64x64 mipmapped DEPTH_COMPONENT24 texture: level 0 at 0.2, the others
 * at 0.8, compared against 0.5 with BASE_LEVEL 0 and 1 (which level is
 * read); then level 2 as a framebuffer's depth attachment: cleared to 1,
 * the left half drawn at depth 0.4, read back through the compare
 * (rendering into a level: the ZLS images of that level's size).
 * Regression: mipmapped depth textures were refused (GL_OUT_OF_MEMORY;
 * piglit tex-miplevel-selection *shadow, issue 13). */
static void
test_depth_mipmap(void)
{
   const char *t = "depth_mipmap";
   if (glsl_version < 120 || !gl_util_has_ext("GL_ARB_shadow")) {
      printf("SKIP: %s (no ARB_shadow / GLSL 1.20)\n", t);
      return;
   }
   static float d[64 * 64];
   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   for (unsigned l = 0, sz = 64; l < 7; l++, sz /= 2) {
      for (unsigned i = 0; i < sz * sz; i++)
         d[i] = l == 0 ? 0.2f : 0.8f;
      glTexImage2D(GL_TEXTURE_2D, l, GL_DEPTH_COMPONENT24, sz, sz, 0, GL_DEPTH_COMPONENT,
                   GL_FLOAT, d);
   }
   bool ok = glGetError() == GL_NO_ERROR;
   if (!ok)
      printf("  %s: glTexImage2D of the levels failed\n", t);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_R_TO_TEXTURE);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
   GLuint prog = gl_util_program(vs_quad, fs_shadow, NULL);
   static const uint8_t white[4] = { 255, 255, 255, 255 }, black[4] = { 0, 0, 0, 255 };
   uint8_t px[W * H * 4];
   /* base level 0 (0.2: 0.5 fails), 1 (0.8: passes), then level 2
    * after rendering (left 0.4: fails, right 1: passes) */
   for (unsigned k = 0; k < 3 && ok; k++) {
      if (k == 2) {
         GLuint fbo, rb;
         glGenFramebuffers(1, &fbo);
         glBindFramebuffer(GL_FRAMEBUFFER, fbo);
         glGenRenderbuffers(1, &rb);
         glBindRenderbuffer(GL_RENDERBUFFER, rb);
         glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 16, 16);
         glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
         glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, tex, 2);
         if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
            printf("  %s: level 2 as a depth attachment is incomplete\n", t);
            ok = false;
         } else {
            glViewport(0, 0, 16, 16);
            glClearDepth(1.0);
            glClear(GL_DEPTH_BUFFER_BIT | GL_COLOR_BUFFER_BIT);
            glEnable(GL_DEPTH_TEST);
            glDepthFunc(GL_ALWAYS);
            static const float left[] = { -1, -1, -0.2f, 0, -1, -0.2f, 0, 1, -0.2f,
                                          -1, -1, -0.2f, 0, 1, -0.2f, -1, 1, -0.2f };
            glEnableClientState(GL_VERTEX_ARRAY);
            glVertexPointer(3, GL_FLOAT, 0, left);
            glDrawArrays(GL_TRIANGLES, 0, 6);
            glDisableClientState(GL_VERTEX_ARRAY);
            glDisable(GL_DEPTH_TEST);
            glDepthFunc(GL_LESS);
         }
         glBindFramebuffer(GL_FRAMEBUFFER, gl_fbo);
         glViewport(0, 0, W, H);
         glDeleteFramebuffers(1, &fbo);
         glDeleteRenderbuffers(1, &rb);
         glBindTexture(GL_TEXTURE_2D, tex);
      }
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_BASE_LEVEL, k);
      glUseProgram(prog);
      glUniform1i(glGetUniformLocation(prog, "s"), 0);
      glUniform1f(glGetUniformLocation(prog, "ref"), 0.5f);
      glClearColor(0.5f, 0.5f, 0.5f, 1);
      glClear(GL_COLOR_BUFFER_BIT);
      draw_quad(prog);
      gl_util_read_fb(px, W, H);
      const uint8_t *l = k == 1 ? white : black, *r = k == 0 ? black : white;
      if (ok && (!gl_util_pixel_is(px, W, 8, 30, l, 1, t) ||
                 !gl_util_pixel_is(px, W, 56, 30, r, 1, t))) {
         printf("  %s: base level %u\n", t, k);
         ok = false;
      }
   }
   glDeleteProgram(prog);
   glDeleteTextures(1, &tex);
   gl_util_check(t, ok);
}

/* ------------------------------------------------------------ large point */

/* glPointSize(20) with a GLSL vertex shader that does not write
 * gl_PointSize and reads a vec4 uniform and the built-in MVP matrix (as
 * piglit gl-2.0-large-point-fs): st/mesa adds the clamped point size as a
 * constant of the variant. Regression: with vec4-padded uniform storage
 * that constant was read from a slot of the matrix and no point was
 * drawn (issue 13). */
static const char vs_point_mvp[] =
   "#version 110\n"
   "uniform vec4 bias;\n"
   "varying vec4 col;\n"
   "void main() {\n"
   "   gl_Position = gl_ModelViewProjectionMatrix * gl_Vertex;\n"
   "   col = gl_Color + bias;\n"
   "}\n";
static const char fs_col[] =
   "#version 110\n"
   "varying vec4 col;\n"
   "void main() { gl_FragColor = col; }\n";

static void
test_large_point(void)
{
   const char *t = "large_point";
   GLuint prog = gl_util_program(vs_point_mvp, fs_col, NULL);
   glMatrixMode(GL_MODELVIEW);
   glLoadIdentity();
   glMatrixMode(GL_PROJECTION);
   glLoadIdentity();
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glPointSize(20.0f);
   glUseProgram(prog);
   glUniform4f(glGetUniformLocation(prog, "bias"), 0.0f, 0.5f, 0.0f, 0.0f);
   /* the corner of pixels (31, 31) and (32, 32): the point covers 22..41 */
   static const float p[] = { 0.0f, 0.0f };
   glColor4f(0, 0.5f, 0, 1);
   glEnableClientState(GL_VERTEX_ARRAY);
   glVertexPointer(2, GL_FLOAT, 0, p);
   glDrawArrays(GL_POINTS, 0, 1);
   glDisableClientState(GL_VERTEX_ARRAY);
   glUseProgram(0);
   glPointSize(1.0f);
   uint8_t px[W * H * 4];
   gl_util_read_fb(px, W, H);
   static const uint8_t green[4] = { 0, 255, 0, 255 }, black[4] = { 0, 0, 0, 255 };
   bool ok = gl_util_pixel_is(px, W, 23, 23, green, 2, t) &&
             gl_util_pixel_is(px, W, 40, 40, green, 2, t) &&
             gl_util_pixel_is(px, W, 20, 32, black, 0, t) &&
             gl_util_pixel_is(px, W, 43, 32, black, 0, t);
   glDeleteProgram(prog);
   gl_util_check(t, ok);
}

/* Every pixel drawn (not the black background) is `want`, and some are. */
static bool
only_colour(const uint8_t *px, const uint8_t want[4], const char *t, const char *what)
{
   unsigned lit = 0;
   for (unsigned i = 0; i < W * H; i++) {
      const uint8_t *p = px + 4 * i;
      if (p[0] == 0 && p[1] == 0 && p[2] == 0)
         continue;
      lit++;
      if (memcmp(p, want, 4) != 0) {
         printf("  %s: %s: pixel (%u,%u) is %u,%u,%u,%u, expected %u,%u,%u,%u\n", t, what,
                i % W, i / W, p[0], p[1], p[2], p[3], want[0], want[1], want[2], want[3]);
         return false;
      }
   }
   if (!lit)
      printf("  %s: %s: nothing drawn\n", t, what);
   return lit > 0;
}

static void
test_flat_clip(void)
{
   const char *t = "flat_clip";
   static const uint8_t red[4] = { 255, 0, 0, 255 }, green[4] = { 0, 255, 0, 255 },
                        blue[4] = { 0, 0, 255, 255 }, white[4] = { 255, 255, 255, 255 };
   PFNGLPROVOKINGVERTEXEXTPROC provoking = NULL;
   if (gl_util_has_ext("GL_EXT_provoking_vertex"))
      provoking = GETPROC(PFNGLPROVOKINGVERTEXEXTPROC, "glProvokingVertexEXT");
   glUseProgram(0);
   glMatrixMode(GL_PROJECTION);
   glLoadIdentity();
   glMatrixMode(GL_MODELVIEW);
   glLoadIdentity();
   glShadeModel(GL_FLAT);
   glClearColor(0, 0, 0, 1);
   bool ok = true;
   uint8_t px[W * H * 4];
   /* Vertex 2 beyond the near plane (z < -w): the clipper makes new
    * vertices, which must carry the provoking vertex's colour. */
   for (unsigned first = 0; first < (provoking ? 2u : 1u) && ok; first++) {
      if (provoking)
         provoking(first ? GL_FIRST_VERTEX_CONVENTION_EXT : GL_LAST_VERTEX_CONVENTION_EXT);
      glClear(GL_COLOR_BUFFER_BIT);
      glBegin(GL_TRIANGLES);
      glColor4ub(255, 0, 0, 255);
      glVertex3f(-1, -1, 0);
      glColor4ub(0, 255, 0, 255);
      glVertex3f(1, -1, 0);
      glColor4ub(0, 0, 255, 255);
      glVertex3f(0, 1, -3);
      glEnd();
      gl_util_read_fb(px, W, H);
      ok = only_colour(px, first ? red : blue, t,
                       first ? "clipped triangle, first vertex" : "clipped triangle, last vertex");
   }
   /* A strip's second (odd) triangle: its provoking vertex is vertex 1
    * (first) or vertex 3 (last), whatever order keeps its winding. */
   static const uint8_t *const strip_want[2][2] = { { blue, white }, { red, green } };
   for (unsigned first = 0; first < (provoking ? 2u : 1u) && ok; first++) {
      if (provoking)
         provoking(first ? GL_FIRST_VERTEX_CONVENTION_EXT : GL_LAST_VERTEX_CONVENTION_EXT);
      glClear(GL_COLOR_BUFFER_BIT);
      glBegin(GL_TRIANGLE_STRIP);
      glColor4ub(255, 0, 0, 255);
      glVertex2f(-1, -1);
      glColor4ub(0, 255, 0, 255);
      glVertex2f(-1, 1);
      glColor4ub(0, 0, 255, 255);
      glVertex2f(1, -1);
      glColor4ub(255, 255, 255, 255);
      glVertex2f(1, 1);
      glEnd();
      gl_util_read_fb(px, W, H);
      ok = gl_util_pixel_is(px, W, 16, 16, strip_want[first][0], 0, t) &&
           gl_util_pixel_is(px, W, 48, 48, strip_want[first][1], 0, t);
      if (!ok)
         printf("  %s: triangle strip, %s vertex\n", t, first ? "first" : "last");
   }
   /* A quad in the first-vertex convention takes vertex 1 if the context
    * says quads follow the convention, else vertex 4 (GL's table).
    * Regression: the driver said they do not, but drew vertex 1's colour
    * (u_primconvert keeps the API's convention; piglit clipflat). */
   if (provoking && ok) {
      GLboolean follow = GL_FALSE;
      glGetBooleanv(GL_QUADS_FOLLOW_PROVOKING_VERTEX_CONVENTION_EXT, &follow);
      provoking(GL_FIRST_VERTEX_CONVENTION_EXT);
      glClear(GL_COLOR_BUFFER_BIT);
      glBegin(GL_QUADS);
      glColor4ub(255, 0, 0, 255);
      glVertex2f(-1, -1);
      glColor4ub(0, 255, 0, 255);
      glVertex2f(1, -1);
      glColor4ub(0, 0, 255, 255);
      glVertex2f(1, 1);
      glColor4ub(255, 255, 255, 255);
      glVertex2f(-1, 1);
      glEnd();
      gl_util_read_fb(px, W, H);
      ok = only_colour(px, follow ? red : white, t,
                       follow ? "quad, first vertex (quads follow the convention)"
                              : "quad, first-vertex convention (quads use the last)");
   }
   if (provoking)
      provoking(GL_LAST_VERTEX_CONVENTION_EXT);
   else
      printf("  %s: no EXT_provoking_vertex: last vertex only\n", t);
   glShadeModel(GL_SMOOTH);
   gl_util_check(t, ok);
}

/* Polygon offset is enabled per polygon mode: with only
 * GL_POLYGON_OFFSET_LINE (or _POINT) on, a filled quad is not offset, and
 * GL_LINES are never offset. A red primitive at z = 0 with a large
 * positive offset allowed only for another mode, then green at z = 0
 * with LESS: red must stay. Regression: any enable offset every draw
 * (piglit polygon-mode-offset drew its outline under the offset fill). */
static void
test_offset_mode(void)
{
   const char *t = "offset_mode";
   GLuint fbo, rb[2];
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glGenRenderbuffers(2, rb);
   glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
   glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, W, H);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
   glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
   glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, W, H);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb[1]);
   bool ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
   if (!ok)
      printf("  %s: framebuffer incomplete\n", t);
   glUseProgram(0);
   glMatrixMode(GL_PROJECTION);
   glLoadIdentity();
   glMatrixMode(GL_MODELVIEW);
   glLoadIdentity();
   static const uint8_t red[4] = { 255, 0, 0, 255 };
   static const struct { GLenum enable, prim; const char *what; } cases[] = {
      { GL_POLYGON_OFFSET_LINE, GL_QUADS, "filled quad, only LINE offset on" },
      { GL_POLYGON_OFFSET_POINT, GL_QUADS, "filled quad, only POINT offset on" },
      { GL_POLYGON_OFFSET_FILL, GL_LINES, "GL_LINES, FILL offset on" },
   };
   for (unsigned c = 0; c < 3 && ok; c++) {
      glViewport(0, 0, W, H);
      glClearColor(0, 0, 0, 1);
      glClearDepth(1.0);
      glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
      glEnable(GL_DEPTH_TEST);
      glDepthFunc(GL_LESS);
      for (unsigned pass = 0; pass < 2; pass++) {
         if (pass == 0) {
            glEnable(cases[c].enable);
            glPolygonOffset(0.0f, 1000.0f);   /* far back, if applied */
            glColor4ub(255, 0, 0, 255);
         } else {
            glDisable(cases[c].enable);
            glColor4ub(0, 255, 0, 255);
         }
         glBegin(cases[c].prim);
         if (cases[c].prim == GL_QUADS) {
            glVertex2f(-1, -1);
            glVertex2f(1, -1);
            glVertex2f(1, 1);
            glVertex2f(-1, 1);
         } else {
            glVertex2f(-1, 0.01f);
            glVertex2f(1, 0.01f);
         }
         glEnd();
      }
      glDisable(GL_DEPTH_TEST);
      uint8_t px[W * H * 4];
      gl_util_read_fb(px, W, H);
      ok = gl_util_pixel_is(px, W, cases[c].prim == GL_QUADS ? 10 : 20, 32, red, 0, t);
      if (!ok)
         printf("  %s: %s\n", t, cases[c].what);
   }
   glPolygonOffset(0.0f, 0.0f);
   glBindFramebuffer(GL_FRAMEBUFFER, gl_fbo);
   glDeleteFramebuffers(1, &fbo);
   glDeleteRenderbuffers(2, rb);
   gl_util_check(t, ok && glGetError() == GL_NO_ERROR);
}

/* Polygon mode GL_LINE of GL_POLYGON (triangles to the hardware): only
 * the polygon's boundary, edges whose first vertex has its edge flag set,
 * over a polygon-offset fill (piglit polygon-mode-offset's configs 0 and
 * 1, and gl-1.0-edgeflag). Regressions: the model filled every triangle
 * (polygon mode ignored), then outlined both triangles of the fan, its
 * diagonal crossing the centre, and edge flags were ignored. */
static void
test_polygon_outline(void)
{
   const char *t = "polygon_outline";
   GLuint fbo, rb[2];
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glGenRenderbuffers(2, rb);
   glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
   glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, W, H);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
   glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
   glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, W, H);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb[1]);
   bool ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
   if (!ok)
      printf("  %s: framebuffer incomplete\n", t);
   glUseProgram(0);
   glViewport(0, 0, W, H);
   glMatrixMode(GL_PROJECTION);
   glLoadIdentity();
   glOrtho(0, W, 0, H, -1, 1);
   glMatrixMode(GL_MODELVIEW);
   glLoadIdentity();
   glTranslatef(0.375f, 0.375f, 0.0f);   /* lines on pixel centres */
   glClearColor(1, 0, 0, 1);
   glEnable(GL_DEPTH_TEST);
   glDepthFunc(GL_LEQUAL);
   glEnable(GL_POLYGON_OFFSET_FILL);
   glPolygonOffset(1, 1);
   static const uint8_t white[4] = { 255, 255, 255, 255 }, blue[4] = { 0, 0, 255, 255 };
   /* case 0: outline first, 1: fill first, 2: outline with the vertical
    * edges' flags off */
   for (int c = 0; c < 3 && ok; c++) {
      glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
      for (int pr = 0; pr < 2; pr++) {
         bool outline = (pr == 0) == (c != 1);
         glPolygonMode(GL_FRONT_AND_BACK, outline ? GL_LINE : GL_FILL);
         float a = outline ? 1 : 0, b = outline ? W - 2 : W;
         glColor4ub(outline ? 255 : 0, outline ? 255 : 0, 255, 255);
         glBegin(GL_POLYGON);
         glEdgeFlag(GL_TRUE);
         glVertex2f(a, a);
         glEdgeFlag(c != 2);
         glVertex2f(b, a);
         glEdgeFlag(GL_TRUE);
         glVertex2f(b, b);
         glEdgeFlag(c != 2);
         glVertex2f(a, b);
         glEnd();
      }
      glEdgeFlag(GL_TRUE);
      uint8_t px[W * H * 4];
      gl_util_read_fb(px, W, H);
      ok = gl_util_pixel_is(px, W, W / 2, H / 2, blue, 0, t) &&
           gl_util_pixel_is(px, W, W / 2, 1, white, 0, t) &&
           gl_util_pixel_is(px, W, 1, H / 2, c == 2 ? blue : white, 0, t);
      if (!ok)
         printf("  %s: case %d\n", t, c);
   }
   /* A quad strip of 16 quads side by side (4 edges for every 2
    * vertices): every quad outlined, no diagonal through its centre. */
   if (ok) {
      glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
      glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
      glColor4ub(0, 0, 255, 255);
      glRectf(0, 0, W, H);
      glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
      glColor4ub(255, 255, 255, 255);
      glBegin(GL_QUAD_STRIP);
      for (int q = 0; q <= 16; q++) {
         glVertex2f(q * 3 + 1, 1);
         glVertex2f(q * 3 + 1, H - 2);
      }
      glEnd();
      uint8_t px[W * H * 4];
      gl_util_read_fb(px, W, H);
      for (int q = 0; q < 16 && ok; q++)
         ok = gl_util_pixel_is(px, W, q * 3 + 2, H / 2, blue, 0, t) &&
              gl_util_pixel_is(px, W, q * 3 + 1, H / 2, white, 0, t) &&
              gl_util_pixel_is(px, W, q * 3 + 2, 1, white, 0, t);
      if (!ok)
         printf("  %s: quad strip\n", t);
   }
   glDisable(GL_POLYGON_OFFSET_FILL);
   glPolygonOffset(0, 0);
   glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
   glDisable(GL_DEPTH_TEST);
   glBindFramebuffer(GL_FRAMEBUFFER, gl_fbo);
   glDeleteFramebuffers(1, &fbo);
   glDeleteRenderbuffers(2, rb);
   gl_util_check(t, ok && glGetError() == GL_NO_ERROR);
}

static const struct {
   const char *name;
   void (*fn)(void);
} tests[] = {
   { "bgra_arrays", test_bgra_arrays }, { "index_range", test_index_range },
   { "version", test_version },         { "shadow", test_shadow },
   { "shadow_clamp", test_shadow_clamp },
   { "tex3d", test_tex3d },             { "instancing", test_instancing },
   { "restart", test_restart },         { "indep_blend", test_indep_blend },
   { "vertex_texture", test_vertex_texture }, { "border", test_border },
   { "max_varyings", test_max_varyings }, { "mixed_sizes", test_mixed_sizes },
   { "uniform_index", test_uniform_index }, { "point_size_zero", test_point_size_zero },
   { "lod_bias", test_lod_bias }, { "viewport_clip", test_viewport_clip },
   { "clip_plane", test_clip_plane }, { "stipple", test_stipple },
   { "depth_mipmap", test_depth_mipmap }, { "large_point", test_large_point },
   { "flat_clip", test_flat_clip },
   { "offset_mode", test_offset_mode }, { "polygon_outline", test_polygon_outline },
};

int
main(int argc, char **argv)
{
   /* A compatibility context of whatever version the driver offers. */
   struct gl_util_egl egl;
   if (!gl_util_egl_surfaceless(&egl, EGL_OPENGL_API))
      return 1;
   printf("renderer: %s\n", (const char *)glGetString(GL_RENDERER));
   const char *ver = (const char *)glGetString(GL_VERSION);
   const char *sl = (const char *)glGetString(GL_SHADING_LANGUAGE_VERSION);
   int a = 0, b = 0;
   if (ver && sscanf(ver, "%d.%d", &a, &b) == 2)
      gl_version = a * 10 + b;
   a = b = 0;
   if (sl && sscanf(sl, "%d.%d", &a, &b) == 2)
      glsl_version = a * 100 + b;
   glGetError();

   GLuint rb;
   if (!gl_util_color_fbo(W, H, &gl_fbo, &rb))
      return 1;

   for (unsigned i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
      if (gl_util_selected(argc, argv, tests[i].name))
         tests[i].fn();
   gl_util_egl_finish(&egl);
   printf("%s\n", gl_util_failures ? "FAILED" : "ALL PASSED");
   return gl_util_failures ? 1 : 0;
}
