/* SPDX-License-Identifier: MIT */
/*
 * gl_basic: the tessera Gallium driver's render passes on a surfaceless
 * GLES2 context, checked pixel by pixel with glReadPixels.
 *
 * Tests (all by default, or the ones named on the command line):
 *   clear      glClear of an RGBA8 FBO to a colour, twice with a readback
 *              between (background program clear, end-of-tile store)
 *   clearmask  a colour-masked-off clear keeps the old contents (load)
 *   triangle   a triangle with a colour per vertex (interpolation)
 *   strip      an indexed triangle strip with primitive ... restart-free
 *              GLES2 indices (u16), flat colour via a uniform
 *   texture    a textured quad (nearest, 4x4 checker) from a texture
 *   depth      two overlapping quads with the depth test (far drawn last)
 *   blend      alpha blending over a cleared background
 *   scissor    a scissored clear (st draws a quad) and a scissored draw
 *   stencil    stencil writes (REPLACE) and tests (EQUAL, NOTEQUAL) on a
 *              packed depth/stencil renderbuffer, across two passes
 *   polyoffset glPolygonOffset pulls a coplanar quad in front (Z16 steps)
 *   discard    a discarding shader in front of an opaque quad (punch-through
 *              pass type next to hidden-surface removal)
 *   mipmap     glGenerateMipmap (CPU blits) and sampling the 1x1 level
 *   rtt        render to a texture, then sample it in the next pass
 *   copytex    glCopyTexSubImage2D from the framebuffer, then sample it
 *   mrt        two render targets (EXT_draw_buffers; SKIP with one):
 *              per-target clear values and fragment outputs
 *   query      EXT_occlusion_query_boolean (SKIP when not exposed): a visible
 *              and a fully hidden quad
 *   timer      EXT_disjoint_timer_query (SKIP when not exposed): GPU time of
 *              1 and 10 blended full-screen quads on a 256x256 target (> 0,
 *              10x the fill clearly slower, same numbers when repeated), an
 *              empty query ~0, monotonic query counters (GL_TIMESTAMP_EXT)
 *   overflow   8192 one-pixel triangles pairs in front of a second full
 *              layer, depth tested: with a small TVB (TESSERA_SHIM_TVB_KB=16)
 *              the pass overflows and partial renders must store and
 *              reload colour and depth losslessly
 * Each prints PASS/FAIL; exit status 1 when any fails.
 *
 * Built by `make` (tests/gl/module.mk) into build/release/bin/gl_basic;
 * tests/gl/programs.sh runs it on both paths and with a 16 KiB TVB.
 * Run (render-node path):
 *   build/release/bin/tessera run -- build/release/bin/gl_basic [test...]
 * (sw path: `tessera run --sw`; the reference: `tessera run --driver softpipe`.)
 */
#ifndef _GNU_SOURCE /* RTLD_DEFAULT; the Makefile defines it already */
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <EGL/egl.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/model/asahi_model.h"   /* the shim's statistics */
#include "tests/gl/gl_util.h"

#define W 64
#define H 64

static GLuint fbo, rb_color, rb_depth;

/* Whether every pixel of the W x H image px is want (tolerance tol). */
static bool
all_pixels(const uint8_t *px, const uint8_t want[4], int tol, const char *test)
{
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++)
         if (!gl_util_pixel_is(px, W, x, y, want, tol, test))
            return false;
   return true;
}

static const char vs_color[] =
   "attribute vec4 pos;\nattribute vec4 attr;\nvarying vec4 c;\n"
   "void main() { gl_Position = pos; c = attr; }\n";
static const char fs_color[] =
   "precision mediump float;\nvarying vec4 c;\nvoid main() { gl_FragColor = c; }\n";
static const char fs_uniform[] =
   "precision mediump float;\nuniform vec4 col;\nvoid main() { gl_FragColor = col; }\n";
static const char vs_tex[] =
   "attribute vec4 pos;\nattribute vec2 attr;\nvarying vec2 uv;\n"
   "void main() { gl_Position = pos; uv = attr; }\n";
static const char fs_tex[] =
   "precision mediump float;\nvarying vec2 uv;\nuniform sampler2D t;\n"
   "void main() { gl_FragColor = texture2D(t, uv); }\n";

/* -------------------------------------------------------------- tests */

static void
test_clear(void)
{
   static uint8_t px[W * H * 4];
   bool ok;
   glClearColor(1.0f, 0.0f, 0.0f, 1.0f);
   glClear(GL_COLOR_BUFFER_BIT);
   gl_util_read_fb(px, W, H);
   ok = all_pixels(px, (uint8_t[4]){ 255, 0, 0, 255 }, 0, "clear");
   glClearColor(0.2f, 0.4f, 0.6f, 0.8f);
   glClear(GL_COLOR_BUFFER_BIT);
   gl_util_read_fb(px, W, H);
   ok = ok && all_pixels(px, (uint8_t[4]){ 51, 102, 153, 204 }, 1, "clear");
   gl_util_check("clear", ok);
}

static void
test_clearmask(void)
{
   static uint8_t px[W * H * 4];
   glClearColor(0.0f, 1.0f, 0.0f, 1.0f);
   glClear(GL_COLOR_BUFFER_BIT);
   glColorMask(GL_TRUE, GL_FALSE, GL_TRUE, GL_TRUE);
   glClearColor(1.0f, 0.0f, 1.0f, 1.0f);
   glClear(GL_COLOR_BUFFER_BIT);
   glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
   gl_util_read_fb(px, W, H);
   gl_util_check("clearmask", all_pixels(px, (uint8_t[4]){ 255, 255, 255, 255 }, 0, "clearmask"));
}

static void
test_triangle(void)
{
   static uint8_t px[W * H * 4];
   GLuint p = gl_util_use_program(vs_color, fs_color, NULL);
   static const float v[] = { -1, -1, 0, 1, 3, -1, 0, 1, -1, 3, 0, 1 };
   static const float c[] = { 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1 };
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 0, v);
   glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 0, c);
   glEnableVertexAttribArray(0);
   glEnableVertexAttribArray(1);
   glDrawArrays(GL_TRIANGLES, 0, 3);
   gl_util_read_fb(px, W, H);
   bool ok = all_pixels(px, (uint8_t[4]){ 255, 0, 0, 255 }, 0, "triangle");

   /* Interpolation: red at the bottom left, green right, blue top. */
   static const float v2[] = { -1, -1, 0, 1, 1, -1, 0, 1, -1, 1, 0, 1 };
   static const float c2[] = { 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1 };
   glClear(GL_COLOR_BUFFER_BIT);
   glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 0, v2);
   glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 0, c2);
   glDrawArrays(GL_TRIANGLES, 0, 3);
   gl_util_read_fb(px, W, H);
   /* Pixel (x, y) centre in NDC; barycentrics of the right triangle. */
   for (unsigned y = 2; ok && y < H; y += 7) {
      for (unsigned x = 2; ok && x < W; x += 7) {
         float nx = (x + 0.5f) / (W / 2.0f) - 1, ny = (y + 0.5f) / (H / 2.0f) - 1;
         float g = (nx + 1) / 2, b = (ny + 1) / 2, r = 1 - g - b;
         if (r < 0.02f)
            ok = gl_util_pixel_is(px, W, x, y, (uint8_t[4]){ 0, 0, 0, 255 }, 0, "triangle");
         else if (r > 0.02f)
            ok = gl_util_pixel_is(px, W, x, y,
                                  (uint8_t[4]){ (uint8_t)lrintf(r * 255),
                                                (uint8_t)lrintf(g * 255),
                                                (uint8_t)lrintf(b * 255), 255 },
                                  2, "triangle");
      }
   }
   glDisableVertexAttribArray(1);
   glDeleteProgram(p);
   gl_util_check("triangle", ok);
}

static void
test_strip(void)
{
   static uint8_t px[W * H * 4];
   GLuint p = gl_util_use_program(vs_color, fs_uniform, NULL);
   glUniform4f(glGetUniformLocation(p, "col"), 0.0f, 0.0f, 1.0f, 1.0f);
   /* Left half of the viewport as a 4-vertex strip through a VBO, with
    * indices in an element buffer. */
   static const float v[] = { -1, -1, 0, 1, 0, -1, 0, 1, -1, 1, 0, 1, 0, 1, 0, 1 };
   static const uint16_t idx[] = { 0, 1, 2, 3 };
   GLuint bufs[2];
   glGenBuffers(2, bufs);
   glBindBuffer(GL_ARRAY_BUFFER, bufs[0]);
   glBufferData(GL_ARRAY_BUFFER, sizeof(v), v, GL_STATIC_DRAW);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, bufs[1]);
   glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof(idx), idx, GL_STATIC_DRAW);
   glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 0, 0);
   glEnableVertexAttribArray(0);
   glClearColor(0, 0, 0, 0);
   glClear(GL_COLOR_BUFFER_BIT);
   glDrawElements(GL_TRIANGLE_STRIP, 4, GL_UNSIGNED_SHORT, 0);
   gl_util_read_fb(px, W, H);
   bool ok = true;
   for (unsigned y = 0; ok && y < H; y++)
      for (unsigned x = 0; ok && x < W; x++)
         ok = gl_util_pixel_is(px, W, x, y,
                               x < W / 2 ? (uint8_t[4]){ 0, 0, 255, 255 }
                                         : (uint8_t[4]){ 0, 0, 0, 0 },
                               0, "strip");
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
   glDeleteBuffers(2, bufs);
   glDeleteProgram(p);
   gl_util_check("strip", ok);
}

static void
test_texture(void)
{
   static uint8_t px[W * H * 4];
   GLuint p = gl_util_use_program(vs_tex, fs_tex, NULL);
   uint8_t tex[4 * 4 * 4];
   for (unsigned y = 0; y < 4; y++)
      for (unsigned x = 0; x < 4; x++) {
         uint8_t *t = tex + (y * 4 + x) * 4;
         bool odd = (x ^ y) & 1;
         t[0] = odd ? 255 : 0; t[1] = (uint8_t)(x * 60); t[2] = (uint8_t)(y * 60); t[3] = 255;
      }
   GLuint t;
   glGenTextures(1, &t);
   glBindTexture(GL_TEXTURE_2D, t);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 4, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE, tex);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
   glUniform1i(glGetUniformLocation(p, "t"), 0);
   static const float v[] = { -1, -1, 0, 1, 1, -1, 0, 1, -1, 1, 0, 1, 1, 1, 0, 1 };
   static const float uv[] = { 0, 0, 1, 0, 0, 1, 1, 1 };
   glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 0, v);
   glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 0, uv);
   glEnableVertexAttribArray(0);
   glEnableVertexAttribArray(1);
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
   gl_util_read_fb(px, W, H);
   bool ok = true;
   for (unsigned y = 0; ok && y < H; y++)
      for (unsigned x = 0; ok && x < W; x++)
         ok = gl_util_pixel_is(px, W, x, y, tex + ((y * 4 / H) * 4 + x * 4 / W) * 4, 0, "texture");
   glDisableVertexAttribArray(1);
   glDeleteTextures(1, &t);
   glDeleteProgram(p);
   gl_util_check("texture", ok);
}

static void
quad(float x0, float y0, float x1, float y1, float z)
{
   const float v[] = { x0, y0, z, 1, x1, y0, z, 1, x0, y1, z, 1, x1, y1, z, 1 };
   glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 0, v);
   glEnableVertexAttribArray(0);
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

static void
test_depth(void)
{
   static uint8_t px[W * H * 4];
   GLuint p = gl_util_use_program(vs_color, fs_uniform, NULL);
   GLint col = glGetUniformLocation(p, "col");
   glEnable(GL_DEPTH_TEST);
   glDepthFunc(GL_LESS);
   glClearColor(0, 0, 0, 1);
   glClearDepthf(1.0f);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   glUniform4f(col, 1, 0, 0, 1);           /* near, left */
   quad(-1, -1, 0.5f, 1, -0.5f);
   glUniform4f(col, 0, 1, 0, 1);           /* far, right: hidden where they overlap */
   quad(-0.5f, -1, 1, 1, 0.5f);
   gl_util_read_fb(px, W, H);
   bool ok = true;
   for (unsigned x = 0; ok && x < W; x++) {
      uint8_t want[4] = { 0, 0, 0, 255 };
      float nx = (x + 0.5f) / (W / 2.0f) - 1;
      if (nx < 0.5f)
         want[0] = 255;
      else
         want[1] = 255;
      ok = gl_util_pixel_is(px, W, x, H / 2, want, 0, "depth");
   }
   /* A second pass keeps the depth buffer (ZLS load): green behind. */
   gl_util_read_fb(px, W, H);
   glUniform4f(col, 0, 0, 1, 1);
   quad(-1, -1, 1, 1, 0.0f);
   gl_util_read_fb(px, W, H);
   for (unsigned x = 0; ok && x < W; x++) {
      float nx = (x + 0.5f) / (W / 2.0f) - 1;
      uint8_t want[4] = { 0, 0, 0, 255 };
      if (nx < 0.5f)
         want[0] = 255;
      else
         want[2] = 255;
      ok = gl_util_pixel_is(px, W, x, H / 2, want, 0, "depth");
   }
   glDisable(GL_DEPTH_TEST);
   glDeleteProgram(p);
   gl_util_check("depth", ok);
}

static void
test_blend(void)
{
   static uint8_t px[W * H * 4];
   GLuint p = gl_util_use_program(vs_color, fs_uniform, NULL);
   glClearColor(0, 0, 1, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glEnable(GL_BLEND);
   glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
   glUniform4f(glGetUniformLocation(p, "col"), 1, 0, 0, 0.25f);
   quad(-1, -1, 1, 1, 0);
   glDisable(GL_BLEND);
   gl_util_read_fb(px, W, H);
   /* 0.25 red over blue, alpha 0.25*0.25 + 1*0.75 */
   gl_util_check("blend", all_pixels(px, (uint8_t[4]){ 64, 0, 191, 207 }, 2, "blend"));
   glDeleteProgram(p);
}

static void
test_scissor(void)
{
   static uint8_t px[W * H * 4];
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glEnable(GL_SCISSOR_TEST);
   glScissor(8, 8, 16, 16);
   glClearColor(1, 1, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   GLuint p = gl_util_use_program(vs_color, fs_uniform, NULL);
   glUniform4f(glGetUniformLocation(p, "col"), 0, 1, 1, 1);
   glScissor(40, 40, 8, 8);
   quad(-1, -1, 1, 1, 0);
   glDisable(GL_SCISSOR_TEST);
   gl_util_read_fb(px, W, H);
   bool ok = true;
   for (unsigned y = 0; ok && y < H; y++)
      for (unsigned x = 0; ok && x < W; x++) {
         uint8_t want[4] = { 0, 0, 0, 255 };
         if (x >= 8 && x < 24 && y >= 8 && y < 24)
            want[0] = want[1] = 255;
         if (x >= 40 && x < 48 && y >= 40 && y < 48)
            want[1] = want[2] = 255;
         ok = gl_util_pixel_is(px, W, x, y, want, 0, "scissor");
      }
   glDeleteProgram(p);
   gl_util_check("scissor", ok);
}

static void
test_overflow(void)
{
   static uint8_t px[W * H * 4];
   static float v[W * H * 6 * 4], c[W * H * 6 * 4];
   GLuint p = gl_util_use_program(vs_color, fs_color, NULL);
   unsigned n = 0;
   /* Layer 1: a quad per pixel at z = 0; layer 2: the same behind, grey. */
   for (unsigned layer = 0; layer < 2; layer++) {
      for (unsigned y = 0; y < H; y++) {
         for (unsigned x = 0; x < W; x++) {
            float x0 = 2.0f * x / W - 1, x1 = 2.0f * (x + 1) / W - 1;
            float y0 = 2.0f * y / H - 1, y1 = 2.0f * (y + 1) / H - 1;
            const float q[6][2] = { { x0, y0 }, { x1, y0 }, { x0, y1 },
                                    { x1, y0 }, { x1, y1 }, { x0, y1 } };
            for (unsigned k = 0; k < 6; k++, n++) {
               v[4 * n] = q[k][0];
               v[4 * n + 1] = q[k][1];
               v[4 * n + 2] = layer ? 0.5f : 0.0f;
               v[4 * n + 3] = 1;
               c[4 * n] = layer ? 0.5f : (x * 4) / 255.0f;
               c[4 * n + 1] = layer ? 0.5f : (y * 4) / 255.0f;
               c[4 * n + 2] = layer ? 0.5f : 128 / 255.0f;
               c[4 * n + 3] = 1;
            }
         }
      }
      if (layer == 0) {
         /* Draw layer 1 first (n vertices so far). */
         glEnable(GL_DEPTH_TEST);
         glDepthFunc(GL_LESS);
         glClearColor(0, 0, 0, 1);
         glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
         glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 0, v);
         glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 0, c);
         glEnableVertexAttribArray(0);
         glEnableVertexAttribArray(1);
         glDrawArrays(GL_TRIANGLES, 0, n);
         n = 0;
      }
   }
   glDrawArrays(GL_TRIANGLES, 0, n);
   glDisable(GL_DEPTH_TEST);
   glDisableVertexAttribArray(1);
   gl_util_read_fb(px, W, H);
   bool ok = true;
   for (unsigned y = 0; ok && y < H; y++)
      for (unsigned x = 0; ok && x < W; x++)
         ok = gl_util_pixel_is(px, W, x, y, (uint8_t[4]){ x * 4, y * 4, 128, 255 }, 0, "overflow");
   /* On the embedded GPU, say whether the pass really overflowed. */
   void (*stats)(struct asahi_model_stats *) =
      (void (*)(struct asahi_model_stats *))dlsym(RTLD_DEFAULT, "tessera_shim_get_stats");
   if (stats) {
      struct asahi_model_stats st;
      memset(&st, 0, sizeof(st));
      stats(&st);
      printf("  overflow: %llu partial renders, %llu TVB grow events so far\n",
             (unsigned long long)st.partial_renders, (unsigned long long)st.grow_events);
   }
   glDeleteProgram(p);
   gl_util_check("overflow", ok);
}

static const char fs_discard[] =
   "precision mediump float;\nvarying vec4 c;\n"
   "void main() { if (gl_FragCoord.x < 32.0) discard; gl_FragColor = c; }\n";

/* A quad with a constant colour attribute. */
static void
color_quad(float x0, float y0, float x1, float y1, float z, const float rgba[4])
{
   glVertexAttrib4fv(1, rgba);
   glDisableVertexAttribArray(1);
   quad(x0, y0, x1, y1, z);
}

static bool
check_halves(const uint8_t *px, const uint8_t left[4], const uint8_t right[4], const char *t)
{
   bool ok = true;
   for (unsigned y = 0; ok && y < H; y += 3)
      for (unsigned x = 0; ok && x < W; x++)
         ok = gl_util_pixel_is(px, W, x, y, x < W / 2 ? left : right, 0, t);
   return ok;
}

static void
test_stencil(void)
{
   static uint8_t px[W * H * 4];
   GLuint f, rb[2];
   glGenFramebuffers(1, &f);
   glBindFramebuffer(GL_FRAMEBUFFER, f);
   glGenRenderbuffers(2, rb);
   glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
   glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8_OES, W, H);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
   glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
   glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8_OES, W, H);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb[1]);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_STENCIL_ATTACHMENT, GL_RENDERBUFFER, rb[1]);
   bool ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
   GLuint p = gl_util_use_program(vs_color, fs_color, NULL);
   static const float red[4] = { 1, 0, 0, 1 }, green[4] = { 0, 1, 0, 1 };
   glClearColor(0, 0, 0, 1);
   glClearStencil(0);
   glClear(GL_COLOR_BUFFER_BIT | GL_STENCIL_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   glEnable(GL_STENCIL_TEST);
   /* Mark the left half with 1, colour writes off. */
   glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
   glStencilFunc(GL_ALWAYS, 1, 0xff);
   glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
   color_quad(-1, -1, 0, 1, 0, red);
   glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
   glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
   glStencilFunc(GL_EQUAL, 1, 0xff);
   color_quad(-1, -1, 1, 1, 0, red);
   gl_util_read_fb(px, W, H);
   ok = ok && check_halves(px, (uint8_t[4]){ 255, 0, 0, 255 }, (uint8_t[4]){ 0, 0, 0, 255 },
                           "stencil");
   /* A new pass: the stencil buffer is loaded back. */
   glStencilFunc(GL_NOTEQUAL, 1, 0xff);
   color_quad(-1, -1, 1, 1, 0, green);
   gl_util_read_fb(px, W, H);
   ok = ok && check_halves(px, (uint8_t[4]){ 255, 0, 0, 255 }, (uint8_t[4]){ 0, 255, 0, 255 },
                           "stencil");
   glDisable(GL_STENCIL_TEST);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glDeleteFramebuffers(1, &f);
   glDeleteRenderbuffers(2, rb);
   glDeleteProgram(p);
   gl_util_check("stencil", ok);
}

static void
test_polyoffset(void)
{
   static uint8_t px[W * H * 4];
   GLuint p = gl_util_use_program(vs_color, fs_color, NULL);
   static const float red[4] = { 1, 0, 0, 1 }, blue[4] = { 0, 0, 1, 1 };
   glEnable(GL_DEPTH_TEST);
   glDepthFunc(GL_LESS);
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   color_quad(-1, -1, 1, 1, 0, red);
   /* Coplanar: fails LESS on the left, pulled in front on the right. */
   color_quad(-1, -1, 0, 1, 0, blue);
   glEnable(GL_POLYGON_OFFSET_FILL);
   glPolygonOffset(0, -4);
   color_quad(0, -1, 1, 1, 0, blue);
   glDisable(GL_POLYGON_OFFSET_FILL);
   glDisable(GL_DEPTH_TEST);
   gl_util_read_fb(px, W, H);
   gl_util_check("polyoffset", check_halves(px, (uint8_t[4]){ 255, 0, 0, 255 },
                                            (uint8_t[4]){ 0, 0, 255, 255 }, "polyoffset"));
   glDeleteProgram(p);
}

static void
test_discard(void)
{
   static uint8_t px[W * H * 4];
   GLuint p = gl_util_use_program(vs_color, fs_color, NULL), pd;
   static const float red[4] = { 1, 0, 0, 1 }, blue[4] = { 0, 0, 1, 1 };
   glEnable(GL_DEPTH_TEST);
   glDepthFunc(GL_LESS);
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   color_quad(-1, -1, 1, 1, 0.5f, red);           /* opaque, behind */
   pd = gl_util_use_program(vs_color, fs_discard, NULL);
   color_quad(-1, -1, 1, 1, 0.0f, blue);          /* discards its left half */
   glUseProgram(p);
   color_quad(-1, -1, 1, 1, 0.75f, (const float[4]){ 0, 1, 0, 1 });   /* hidden */
   glDisable(GL_DEPTH_TEST);
   gl_util_read_fb(px, W, H);
   gl_util_check("discard", check_halves(px, (uint8_t[4]){ 255, 0, 0, 255 },
                                         (uint8_t[4]){ 0, 0, 255, 255 }, "discard"));
   glDeleteProgram(p);
   glDeleteProgram(pd);
}

/* Draws the bound texture on the whole viewport. */
static void
textured_quad(void)
{
   static const float v[] = { -1, -1, 0, 1, 1, -1, 0, 1, -1, 1, 0, 1, 1, 1, 0, 1 };
   static const float uv[] = { 0, 0, 1, 0, 0, 1, 1, 1 };
   glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 0, v);
   glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 0, uv);
   glEnableVertexAttribArray(0);
   glEnableVertexAttribArray(1);
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
   glDisableVertexAttribArray(1);
}

static void
test_mipmap(void)
{
   uint8_t tex[16 * 16 * 4], px[4];
   for (unsigned i = 0; i < 16 * 16; i++) {
      bool left = (i % 16) < 8;
      tex[4 * i] = left ? 255 : 0;
      tex[4 * i + 1] = left ? 0 : 255;
      tex[4 * i + 2] = 0;
      tex[4 * i + 3] = 255;
   }
   GLuint p = gl_util_use_program(vs_tex, fs_tex, NULL), t;
   glGenTextures(1, &t);
   glBindTexture(GL_TEXTURE_2D, t);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 16, 16, 0, GL_RGBA, GL_UNSIGNED_BYTE, tex);
   glGenerateMipmap(GL_TEXTURE_2D);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   glUniform1i(glGetUniformLocation(p, "t"), 0);
   glClearColor(0, 0, 0, 0);
   glClear(GL_COLOR_BUFFER_BIT);
   glViewport(0, 0, 1, 1);   /* 16 texels per pixel: level 4 */
   textured_quad();
   glViewport(0, 0, W, H);
   glReadPixels(0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
   bool ok = abs(px[0] - 128) <= 1 && abs(px[1] - 128) <= 1 && px[2] == 0 && px[3] == 255;
   if (!ok)
      printf("  mipmap: level 4 is %02x%02x%02x%02x, expected 808000ff\n", px[0], px[1], px[2],
             px[3]);
   glDeleteTextures(1, &t);
   glDeleteProgram(p);
   gl_util_check("mipmap", ok);
}

static void
test_rtt(void)
{
   static uint8_t px[W * H * 4];
   GLuint t, f;
   glGenTextures(1, &t);
   glBindTexture(GL_TEXTURE_2D, t);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, W, H, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   glGenFramebuffers(1, &f);
   glBindFramebuffer(GL_FRAMEBUFFER, f);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t, 0);
   bool ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
   GLuint pc = gl_util_use_program(vs_color, fs_color, NULL);
   glClearColor(0, 1, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   color_quad(-1, -1, 0, 1, 0, (const float[4]){ 1, 0, 1, 1 });
   /* Sample it in the main framebuffer (no readback in between). */
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   GLuint pt = gl_util_use_program(vs_tex, fs_tex, NULL);
   glUniform1i(glGetUniformLocation(pt, "t"), 0);
   textured_quad();
   gl_util_read_fb(px, W, H);
   ok = ok && check_halves(px, (uint8_t[4]){ 255, 0, 255, 255 }, (uint8_t[4]){ 0, 255, 0, 255 },
                           "rtt");
   glDeleteFramebuffers(1, &f);
   glDeleteTextures(1, &t);
   glDeleteProgram(pc);
   glDeleteProgram(pt);
   gl_util_check("rtt", ok);
}

static void
test_copytex(void)
{
   static uint8_t px[W * H * 4];
   GLuint t;
   glClearColor(0.0f, 0.0f, 1.0f, 1.0f);
   glClear(GL_COLOR_BUFFER_BIT);
   GLuint pc = gl_util_use_program(vs_color, fs_color, NULL);
   color_quad(-1, -1, 0, 1, 0, (const float[4]){ 1, 1, 0, 1 });
   glGenTextures(1, &t);
   glBindTexture(GL_TEXTURE_2D, t);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, W, H, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   glCopyTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 0, 0, W, H);
   glClearColor(0, 0, 0, 0);
   glClear(GL_COLOR_BUFFER_BIT);
   GLuint pt = gl_util_use_program(vs_tex, fs_tex, NULL);
   glUniform1i(glGetUniformLocation(pt, "t"), 0);
   textured_quad();
   gl_util_read_fb(px, W, H);
   bool ok = check_halves(px, (uint8_t[4]){ 255, 255, 0, 255 }, (uint8_t[4]){ 0, 0, 255, 255 },
                          "copytex");
   glDeleteTextures(1, &t);
   glDeleteProgram(pc);
   glDeleteProgram(pt);
   gl_util_check("copytex", ok);
}

static void
test_mrt(void)
{
   static uint8_t px[W * H * 4];
   GLint max = 1;
   if (gl_util_has_ext("GL_EXT_draw_buffers"))
      glGetIntegerv(GL_MAX_DRAW_BUFFERS_EXT, &max);
   if (max < 2) {
      printf("SKIP: mrt (%d draw buffer)\n", max);
      return;
   }
   PFNGLDRAWBUFFERSEXTPROC draw_buffers =
      (PFNGLDRAWBUFFERSEXTPROC)eglGetProcAddress("glDrawBuffersEXT");
   GLuint f, rb[2];
   glGenFramebuffers(1, &f);
   glBindFramebuffer(GL_FRAMEBUFFER, f);
   glGenRenderbuffers(2, rb);
   for (unsigned i = 0; i < 2; i++) {
      glBindRenderbuffer(GL_RENDERBUFFER, rb[i]);
      glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8_OES, W, H);
      glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0_EXT + i, GL_RENDERBUFFER,
                                rb[i]);
   }
   static const GLenum bufs[2] = { GL_COLOR_ATTACHMENT0_EXT, GL_COLOR_ATTACHMENT1_EXT };
   draw_buffers(2, bufs);
   bool ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
   glClearColor(0, 0, 1, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   static const char fs_mrt[] =
      "#extension GL_EXT_draw_buffers : require\nprecision mediump float;\nvarying vec4 c;\n"
      "void main() { gl_FragData[0] = c; gl_FragData[1] = vec4(1.0) - c; }\n";
   GLuint p = gl_util_use_program(vs_color, fs_mrt, NULL);
   color_quad(-1, -1, 0, 1, 0, (const float[4]){ 1, 0, 0, 1 });
   /* GLES2 has no glReadBuffer: read each target through its own FBO. */
   GLuint rf;
   glGenFramebuffers(1, &rf);
   glBindFramebuffer(GL_FRAMEBUFFER, rf);
   for (unsigned i = 0; ok && i < 2; i++) {
      glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[i]);
      gl_util_read_fb(px, W, H);
      ok = check_halves(px, i ? (uint8_t[4]){ 0, 255, 255, 0 } : (uint8_t[4]){ 255, 0, 0, 255 },
                        (uint8_t[4]){ 0, 0, 255, 255 }, "mrt");
   }
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glDeleteFramebuffers(1, &f);
   glDeleteFramebuffers(1, &rf);
   glDeleteRenderbuffers(2, rb);
   glDeleteProgram(p);
   gl_util_check("mrt", ok);
}

static void
test_query(void)
{
   if (!gl_util_has_ext("GL_EXT_occlusion_query_boolean")) {
      printf("SKIP: query (no EXT_occlusion_query_boolean)\n");
      return;
   }
   PFNGLGENQUERIESEXTPROC gen = (PFNGLGENQUERIESEXTPROC)eglGetProcAddress("glGenQueriesEXT");
   PFNGLBEGINQUERYEXTPROC begin = (PFNGLBEGINQUERYEXTPROC)eglGetProcAddress("glBeginQueryEXT");
   PFNGLENDQUERYEXTPROC end = (PFNGLENDQUERYEXTPROC)eglGetProcAddress("glEndQueryEXT");
   PFNGLGETQUERYOBJECTUIVEXTPROC get =
      (PFNGLGETQUERYOBJECTUIVEXTPROC)eglGetProcAddress("glGetQueryObjectuivEXT");
   PFNGLDELETEQUERIESEXTPROC del =
      (PFNGLDELETEQUERIESEXTPROC)eglGetProcAddress("glDeleteQueriesEXT");
   GLuint p = gl_util_use_program(vs_color, fs_color, NULL), q[2];
   gen(2, q);
   glEnable(GL_DEPTH_TEST);
   glDepthFunc(GL_LESS);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   begin(GL_ANY_SAMPLES_PASSED_EXT, q[0]);
   color_quad(-1, -1, 0, 1, 0, (const float[4]){ 1, 0, 0, 1 });
   end(GL_ANY_SAMPLES_PASSED_EXT);
   begin(GL_ANY_SAMPLES_PASSED_EXT, q[1]);
   color_quad(-1, -1, 0, 1, 0.5f, (const float[4]){ 0, 1, 0, 1 });   /* behind */
   end(GL_ANY_SAMPLES_PASSED_EXT);
   GLuint r[2] = { 7, 7 };
   get(q[0], GL_QUERY_RESULT_EXT, &r[0]);
   get(q[1], GL_QUERY_RESULT_EXT, &r[1]);
   glDisable(GL_DEPTH_TEST);
   bool ok = r[0] == GL_TRUE && r[1] == GL_FALSE;
   if (!ok)
      printf("  query: results %u %u, expected 1 0\n", r[0], r[1]);
   del(2, q);
   glDeleteProgram(p);
   gl_util_check("query", ok);
}

/* EXT_disjoint_timer_query entry points. */
static struct {
   PFNGLGENQUERIESEXTPROC gen;
   PFNGLDELETEQUERIESEXTPROC del;
   PFNGLBEGINQUERYEXTPROC begin;
   PFNGLENDQUERYEXTPROC end;
   PFNGLQUERYCOUNTEREXTPROC counter;
   PFNGLGETQUERYOBJECTUIVEXTPROC getu;
   PFNGLGETQUERYOBJECTUI64VEXTPROC get64;
} tq;

/* A query's result, polled without blocking first (GL_QUERY_RESULT_AVAILABLE
 * goes through the driver's non-blocking path) and then read. */
static GLuint64
timer_result(GLuint q)
{
   GLuint avail = 0;
   for (unsigned i = 0; i < 1000000 && !avail; i++)
      tq.getu(q, GL_QUERY_RESULT_AVAILABLE_EXT, &avail);
   GLuint64 r = ~0ull;
   tq.get64(q, GL_QUERY_RESULT_EXT, &r);
   return r;
}

/* GPU time of a pass drawing n blended full-screen quads (blending keeps
 * hidden-surface removal from dropping the overdraw: every layer is
 * shaded and blended). */
static GLuint64
timed_fill(GLuint q, unsigned n)
{
   tq.begin(GL_TIME_ELAPSED_EXT, q);
   glClear(GL_COLOR_BUFFER_BIT);
   for (unsigned i = 0; i < n; i++)
      color_quad(-1, -1, 1, 1, 0, (const float[4]){ 0.05f, 0.1f, 0.0f, 0.1f });
   tq.end(GL_TIME_ELAPSED_EXT);
   return timer_result(q);
}

static void
test_timer(void)
{
   if (!gl_util_has_ext("GL_EXT_disjoint_timer_query")) {
      printf("SKIP: timer (no EXT_disjoint_timer_query)\n");
      return;
   }
   tq.gen = (PFNGLGENQUERIESEXTPROC)eglGetProcAddress("glGenQueriesEXT");
   tq.del = (PFNGLDELETEQUERIESEXTPROC)eglGetProcAddress("glDeleteQueriesEXT");
   tq.begin = (PFNGLBEGINQUERYEXTPROC)eglGetProcAddress("glBeginQueryEXT");
   tq.end = (PFNGLENDQUERYEXTPROC)eglGetProcAddress("glEndQueryEXT");
   tq.counter = (PFNGLQUERYCOUNTEREXTPROC)eglGetProcAddress("glQueryCounterEXT");
   tq.getu = (PFNGLGETQUERYOBJECTUIVEXTPROC)eglGetProcAddress("glGetQueryObjectuivEXT");
   tq.get64 = (PFNGLGETQUERYOBJECTUI64VEXTPROC)eglGetProcAddress("glGetQueryObjectui64vEXT");
   PFNGLGETQUERYIVEXTPROC getq = (PFNGLGETQUERYIVEXTPROC)eglGetProcAddress("glGetQueryivEXT");
   GLint bits = 0;
   getq(GL_TIME_ELAPSED_EXT, GL_QUERY_COUNTER_BITS_EXT, &bits);
   GLint disjoint = 0;
   glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint);   /* clears the flag */

   /* Its own, bigger target: the fill dominates the per-pass overhead. */
   enum { TW = 256, TH = 256 };
   GLuint tf, trb;
   bool ok = gl_util_color_fbo(TW, TH, &tf, &trb);
   GLuint p = gl_util_use_program(vs_color, fs_color, NULL), q[5];
   tq.gen(5, q);
   glEnable(GL_BLEND);
   glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
   glClearColor(0, 0, 0, 1);

   /* Twice the same work: the modelled clock makes it the same time, up
    * to the tick: timestamps are whole 24 MHz ticks (41.7 ns), so the same
    * duration starting at another phase of a tick can read one tick more
    * or less. (A whole run repeats exactly: the same numbers every run.)
    * One unmeasured round first: a pass that overflows a small TVB makes
    * the kernel grow it, and the passes after that do less work. */
   timed_fill(q[0], 10);
   GLuint64 t1[2], t10[2];
   for (unsigned run = 0; run < 2; run++) {
      t1[run] = timed_fill(q[0], 1);
      t10[run] = timed_fill(q[0], 10);
   }
   printf("  timer: %d bits; 1 quad %llu ns, 10 quads %llu ns (%.2fx); again %llu, %llu ns\n",
          bits, (unsigned long long)t1[0], (unsigned long long)t10[0],
          t1[0] ? (double)t10[0] / t1[0] : 0.0, (unsigned long long)t1[1],
          (unsigned long long)t10[1]);
   if (bits < 30 || !t1[0] || t1[0] == ~0ull || t10[0] <= 3 * t1[0]) {
      printf("  timer: expected > 0 ns and more than 3x for 10x the fill\n");
      ok = false;
   }
   if (llabs((long long)(t1[0] - t1[1])) > 42 || llabs((long long)(t10[0] - t10[1])) > 42) {
      printf("  timer: the same work took a different GPU time (beyond one tick)\n");
      ok = false;
   }

   /* Nothing inside the query: no GPU work measured. */
   glFinish();
   tq.begin(GL_TIME_ELAPSED_EXT, q[1]);
   tq.end(GL_TIME_ELAPSED_EXT);
   GLuint64 empty = timer_result(q[1]);
   printf("  timer: empty query %llu ns\n", (unsigned long long)empty);
   if (empty > 1000) {
      printf("  timer: expected ~0 ns for an empty query\n");
      ok = false;
   }

   /* Query counters around work: increasing, at least the work apart. */
   GLuint64 ts[3], gap;
   tq.counter(q[2], GL_TIMESTAMP_EXT);
   tq.begin(GL_TIME_ELAPSED_EXT, q[1]);
   glClear(GL_COLOR_BUFFER_BIT);
   color_quad(-1, -1, 1, 1, 0, (const float[4]){ 1, 0, 0, 0.5f });
   tq.end(GL_TIME_ELAPSED_EXT);
   tq.counter(q[3], GL_TIMESTAMP_EXT);
   glClear(GL_COLOR_BUFFER_BIT);
   color_quad(-1, -1, 1, 1, 0, (const float[4]){ 0, 1, 0, 0.5f });
   tq.counter(q[4], GL_TIMESTAMP_EXT);
   /* (glGetInteger64vEXT(GL_TIMESTAMP_EXT) is not checked: Mesa 22.3's
    * state tables offer GL_TIMESTAMP to ES 3 contexts only, INVALID_ENUM
    * on ES 2; it is the screen's get_timestamp, GET_TIME's clock.) */
   for (unsigned i = 0; i < 3; i++)
      ts[i] = timer_result(q[2 + i]);
   gap = timer_result(q[1]);
   printf("  timer: timestamps %llu, %llu, %llu ns (pass %llu ns)\n",
          (unsigned long long)ts[0], (unsigned long long)ts[1], (unsigned long long)ts[2],
          (unsigned long long)gap);
   if (!ts[0] || !(ts[0] < ts[1] && ts[1] < ts[2]) || ts[1] - ts[0] < gap) {
      printf("  timer: expected increasing timestamps, the pass between the first two\n");
      ok = false;
   }
   glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint);

   glDisable(GL_BLEND);
   tq.del(5, q);
   glDeleteProgram(p);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glDeleteFramebuffers(1, &tf);
   glDeleteRenderbuffers(1, &trb);
   glViewport(0, 0, W, H);
   gl_util_check("timer", ok);
}

static const struct {
   const char *name;
   void (*fn)(void);
} tests[] = {
   { "clear", test_clear },     { "clearmask", test_clearmask }, { "triangle", test_triangle },
   { "strip", test_strip },     { "texture", test_texture },     { "depth", test_depth },
   { "blend", test_blend },     { "scissor", test_scissor },     { "stencil", test_stencil },
   { "polyoffset", test_polyoffset }, { "discard", test_discard }, { "mipmap", test_mipmap },
   { "rtt", test_rtt },         { "copytex", test_copytex },     { "mrt", test_mrt },
   { "query", test_query },     { "timer", test_timer },
   { "overflow", test_overflow },
};

int
main(int argc, char **argv)
{
   struct gl_util_egl egl;
   if (!gl_util_egl_surfaceless(&egl, EGL_OPENGL_ES_API))
      return 1;
   printf("renderer: %s\n", (const char *)glGetString(GL_RENDERER));

   /* The tests draw into a W x H colour target with a Z16 depth buffer. */
   if (!gl_util_color_fbo(W, H, &fbo, &rb_color)) {
      gl_util_egl_finish(&egl);
      return 1;
   }
   glGenRenderbuffers(1, &rb_depth);
   glBindRenderbuffer(GL_RENDERBUFFER, rb_depth);
   glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT16, W, H);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb_depth);
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      printf("FAIL: framebuffer incomplete\n");
      gl_util_egl_finish(&egl);
      return 1;
   }

   for (unsigned i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
      if (gl_util_selected(argc, argv, tests[i].name))
         tests[i].fn();
   gl_util_egl_finish(&egl);
   printf("%s\n", gl_util_failures ? "FAILED" : "ALL PASSED");
   return gl_util_failures ? 1 : 0;
}
