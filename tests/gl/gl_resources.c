/* SPDX-License-Identifier: MIT */
/*
 * gl_resources: texture upload / readback through the tessera Gallium
 * driver on a surfaceless GLES2 context.
 *
 * For every texture format GLES2 (plus EXT_texture_format_BGRA8888) offers,
 * uploads a full mip chain (and a cube map) with glTexImage2D, updates a
 * sub-rectangle with glTexSubImage2D, and reads every level back:
 *   - colour-renderable formats: the level attached to an FBO, glReadPixels
 *     (levels > 0 need OES_fbo_render_mipmap);
 *   - every format: a textured quad drawn into an RGBA8 FBO of the level's
 *     size (nearest mipmap filtering picks that level), glReadPixels.
 * Then renders (clears, full and scissored) into every level of a
 * mipmapped RGBA texture and every cube face and reads those back through
 * the FBO and by sampling; finally exports a shareable EGL image as a
 * dma-buf and imports it again (skipped where the extensions are absent).
 * Depth/stencil renderbuffers (Z16, Z24S8, Z16 + S8) are checked with a
 * depth-tested and a stencil-tested draw, a vertex buffer rewritten as a
 * whole between two draws of one frame, and an EGL fence after rendering
 * is waited for.
 * Expected bytes follow GL's unorm conversions (tolerance 1 for formats
 * narrower than 8 bits per channel). Prints PASS/FAIL per check; exit
 * status 1 when any check fails.
 *
 * Built by `make` (tests/gl/module.mk) into build/release/bin/gl_resources;
 * tests/gl/programs.sh runs it on both paths.
 * Run (render-node path):
 *   build/release/bin/tessera run -- build/release/bin/gl_resources
 * (sw path: `tessera run --sw`; the reference: `tessera run --driver softpipe`.)
 * Options: -v prints the first mismatching texels.
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/gl/gl_util.h"

static bool verbose;

static void
report(bool ok, const char *fmt, const char *what, unsigned level)
{
   gl_util_verdict(ok, ": %-22s %-28s level %u", fmt, what, level);
}

struct fmt {
   const char *name;
   GLenum format, type;
   unsigned bpp;               /* bytes per texel in client memory */
   bool renderable;            /* colour-renderable in GLES2 */
   const char *ext;            /* required extension, or NULL */
};

static const struct fmt formats[] = {
   {"RGBA/UNSIGNED_BYTE", GL_RGBA, GL_UNSIGNED_BYTE, 4, true, NULL},
   {"RGB/UNSIGNED_BYTE", GL_RGB, GL_UNSIGNED_BYTE, 3, false, NULL},
   {"RGB/UNSIGNED_SHORT_565", GL_RGB, GL_UNSIGNED_SHORT_5_6_5, 2, false, NULL},
   {"RGBA/UNSIGNED_SHORT_4444", GL_RGBA, GL_UNSIGNED_SHORT_4_4_4_4, 2, false, NULL},
   {"RGBA/UNSIGNED_SHORT_5551", GL_RGBA, GL_UNSIGNED_SHORT_5_5_5_1, 2, false, NULL},
   {"LUMINANCE", GL_LUMINANCE, GL_UNSIGNED_BYTE, 1, false, NULL},
   {"ALPHA", GL_ALPHA, GL_UNSIGNED_BYTE, 1, false, NULL},
   {"LUMINANCE_ALPHA", GL_LUMINANCE_ALPHA, GL_UNSIGNED_BYTE, 2, false, NULL},
   {"BGRA/UNSIGNED_BYTE", GL_BGRA_EXT, GL_UNSIGNED_BYTE, 4, true, "GL_EXT_texture_format_BGRA8888"},
};

/* Deterministic texel bytes for (level, x, y). */
static uint8_t
pattern(unsigned level, unsigned x, unsigned y, unsigned byte)
{
   uint32_t h = (level * 73856093u) ^ (x * 19349663u) ^ (y * 83492791u) ^ (byte * 2654435761u);
   h ^= h >> 13;
   h *= 0x5bd1e995u;
   h ^= h >> 15;
   return (uint8_t)h;
}

static unsigned
expand(unsigned v, unsigned bits)
{
   unsigned max = (1u << bits) - 1;
   return (v * 255 + max / 2) / max;
}

/* What GL returns as RGBA8 for a client texel; *tol the tolerance. */
static void
expected_rgba(const struct fmt *f, const uint8_t *t, uint8_t out[4], unsigned *tol)
{
   uint16_t p;
   /* A format the table adds without a case here compares against zeros
    * (and fails) instead of against uninitialised bytes. */
   memset(out, 0, 4);
   *tol = 0;
   switch (f->format) {
   case GL_RGBA:
      if (f->type == GL_UNSIGNED_BYTE) {
         memcpy(out, t, 4);
         return;
      }
      memcpy(&p, t, 2);
      *tol = 1;
      if (f->type == GL_UNSIGNED_SHORT_4_4_4_4) {
         out[0] = expand(p >> 12, 4); out[1] = expand((p >> 8) & 15, 4);
         out[2] = expand((p >> 4) & 15, 4); out[3] = expand(p & 15, 4);
      } else {
         out[0] = expand(p >> 11, 5); out[1] = expand((p >> 6) & 31, 5);
         out[2] = expand((p >> 1) & 31, 5); out[3] = (p & 1) ? 255 : 0;
      }
      return;
   case GL_RGB:
      if (f->type == GL_UNSIGNED_BYTE) {
         out[0] = t[0]; out[1] = t[1]; out[2] = t[2]; out[3] = 255;
         return;
      }
      memcpy(&p, t, 2);
      *tol = 1;
      out[0] = expand(p >> 11, 5); out[1] = expand((p >> 5) & 63, 6);
      out[2] = expand(p & 31, 5); out[3] = 255;
      return;
   case GL_LUMINANCE:
      out[0] = out[1] = out[2] = t[0]; out[3] = 255;
      return;
   case GL_ALPHA:
      out[0] = out[1] = out[2] = 0; out[3] = t[0];
      return;
   case GL_LUMINANCE_ALPHA:
      out[0] = out[1] = out[2] = t[0]; out[3] = t[1];
      return;
   case GL_BGRA_EXT:
      out[0] = t[2]; out[1] = t[1]; out[2] = t[0]; out[3] = t[3];
      return;
   }
}

static bool
compare(const struct fmt *f, const uint8_t *texels, unsigned w, unsigned h,
        const uint8_t *rgba, unsigned x0, unsigned y0, unsigned rw, unsigned rh)
{
   unsigned bad = 0;
   for (unsigned y = 0; y < rh; y++) {
      for (unsigned x = 0; x < rw; x++) {
         uint8_t e[4];
         unsigned tol;
         expected_rgba(f, texels + ((size_t)(y0 + y) * w + x0 + x) * f->bpp, e, &tol);
         const uint8_t *g = rgba + ((size_t)y * rw + x) * 4;
         for (unsigned c = 0; c < 4; c++) {
            if (abs((int)g[c] - (int)e[c]) > (int)tol) {
               if (verbose && bad < 4)
                  printf("      (%u,%u) got %02x%02x%02x%02x want %02x%02x%02x%02x\n",
                         x0 + x, y0 + y, g[0], g[1], g[2], g[3], e[0], e[1], e[2], e[3]);
               bad++;
               break;
            }
         }
      }
   }
   (void)h;
   return bad == 0;
}

static GLuint prog, vbo;

static bool
setup_draw(void)
{
   static const char *vs = "attribute vec2 pos;\n"
                           "varying vec2 uv;\n"
                           "void main() { uv = pos * 0.5 + 0.5; gl_Position = vec4(pos, 0.0, 1.0); }\n";
   static const char *fs = "precision mediump float;\n"
                           "uniform sampler2D tex;\n"
                           "varying vec2 uv;\n"
                           "void main() { gl_FragColor = texture2D(tex, uv); }\n";
   bool linked;
   prog = gl_util_program(vs, fs, &linked);
   if (!linked)
      return false;
   static const float quad[] = {-1, -1, 1, -1, -1, 1, 1, 1};
   glGenBuffers(1, &vbo);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   glBufferData(GL_ARRAY_BUFFER, sizeof(quad), quad, GL_STATIC_DRAW);
   return glGetError() == GL_NO_ERROR;
}

/* Reads w x h RGBA8 of the bound framebuffer. */
static bool
read_rgba(unsigned w, unsigned h, uint8_t *out)
{
   glPixelStorei(GL_PACK_ALIGNMENT, 1);
   glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, out);
   return glGetError() == GL_NO_ERROR;
}

/* Draws `tex` (bound to TEXTURE_2D, unit 0) into an RGBA8 renderbuffer of
 * w x h and reads it back. */
static bool
draw_readback(unsigned w, unsigned h, uint8_t *out)
{
   GLuint fbo, rb;
   glGenFramebuffers(1, &fbo);
   glGenRenderbuffers(1, &rb);
   glBindRenderbuffer(GL_RENDERBUFFER, rb);
   glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8_OES, w, h);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
   bool ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
   if (ok) {
      glViewport(0, 0, w, h);
      glDisable(GL_BLEND);
      glUseProgram(prog);
      glUniform1i(glGetUniformLocation(prog, "tex"), 0);
      glBindBuffer(GL_ARRAY_BUFFER, vbo);
      glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
      glEnableVertexAttribArray(0);
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
      ok = read_rgba(w, h, out);
   }
   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   glDeleteFramebuffers(1, &fbo);
   glDeleteRenderbuffers(1, &rb);
   return ok;
}

/* Reads level `level` of a colour-renderable texture through an FBO. */
static bool
fbo_readback(GLenum target, GLuint tex, unsigned level, unsigned w, unsigned h, uint8_t *out)
{
   GLuint fbo;
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, target, tex, level);
   bool ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
   if (ok)
      ok = read_rgba(w, h, out);
   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   glDeleteFramebuffers(1, &fbo);
   return ok;
}

static void
fill_level(const struct fmt *f, unsigned level, unsigned w, unsigned h, uint8_t *t)
{
   for (unsigned y = 0; y < h; y++)
      for (unsigned x = 0; x < w; x++)
         for (unsigned b = 0; b < f->bpp; b++)
            t[((size_t)y * w + x) * f->bpp + b] = pattern(level, x, y, b);
}

static void
test_format(const struct fmt *f, bool fbo_mips, bool draw_ok)
{
   const unsigned W = 64, H = 32;   /* POT: nearest-mip draws hit exact levels */
   unsigned levels = 7;             /* 64x32 .. 1x1 */
   uint8_t *texels[8];
   GLuint tex;

   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
   for (unsigned l = 0; l < levels; l++) {
      unsigned w = W >> l ? W >> l : 1, h = H >> l ? H >> l : 1;
      texels[l] = malloc((size_t)w * h * f->bpp);
      fill_level(f, l, w, h, texels[l]);
      glTexImage2D(GL_TEXTURE_2D, l, f->format, w, h, 0, f->format, f->type, texels[l]);
   }
   report(glGetError() == GL_NO_ERROR, f->name, "glTexImage2D", 0);

   /* A sub-rectangle update of level 0 (crosses Morton blocks). */
   {
      unsigned sx = 5, sy = 3, sw = 37, sh = 19;
      uint8_t *sub = malloc((size_t)sw * sh * f->bpp);
      for (unsigned y = 0; y < sh; y++)
         for (unsigned x = 0; x < sw; x++)
            for (unsigned b = 0; b < f->bpp; b++) {
               uint8_t v = pattern(99, x, y, b);
               sub[((size_t)y * sw + x) * f->bpp + b] = v;
               texels[0][((size_t)(sy + y) * W + sx + x) * f->bpp + b] = v;
            }
      glTexSubImage2D(GL_TEXTURE_2D, 0, sx, sy, sw, sh, f->format, f->type, sub);
      free(sub);
      report(glGetError() == GL_NO_ERROR, f->name, "glTexSubImage2D", 0);
   }

   uint8_t *rgba = malloc((size_t)W * H * 4);
   for (unsigned l = 0; l < levels; l++) {
      unsigned w = W >> l ? W >> l : 1, h = H >> l ? H >> l : 1;
      if (f->renderable && (l == 0 || fbo_mips)) {
         memset(rgba, 0xcd, (size_t)w * h * 4);
         bool ok = fbo_readback(GL_TEXTURE_2D, tex, l, w, h, rgba) &&
                   compare(f, texels[l], w, h, rgba, 0, 0, w, h);
         report(ok, f->name, "FBO glReadPixels", l);
      }
      if (draw_ok) {
         memset(rgba, 0xcd, (size_t)w * h * 4);
         glBindTexture(GL_TEXTURE_2D, tex);
         bool ok = draw_readback(w, h, rgba) && compare(f, texels[l], w, h, rgba, 0, 0, w, h);
         report(ok, f->name, "textured draw", l);
      }
   }
   free(rgba);
   for (unsigned l = 0; l < levels; l++)
      free(texels[l]);
   glDeleteTextures(1, &tex);
}

static void
test_cube(void)
{
   const struct fmt *f = &formats[0];
   const unsigned S = 16;
   uint8_t *faces[6];
   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_CUBE_MAP, tex);
   glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   for (unsigned i = 0; i < 6; i++) {
      faces[i] = malloc(S * S * 4);
      fill_level(f, 10 + i, S, S, faces[i]);
      glTexImage2D(GL_TEXTURE_CUBE_MAP_POSITIVE_X + i, 0, GL_RGBA, S, S, 0, GL_RGBA,
                   GL_UNSIGNED_BYTE, faces[i]);
   }
   report(glGetError() == GL_NO_ERROR, "cube RGBA", "glTexImage2D (6 faces)", 0);
   uint8_t rgba[16 * 16 * 4];
   for (unsigned i = 0; i < 6; i++) {
      char what[32];
      snprintf(what, sizeof(what), "FBO readback face %u", i);
      bool ok = fbo_readback(GL_TEXTURE_CUBE_MAP_POSITIVE_X + i, tex, 0, S, S, rgba) &&
                compare(f, faces[i], S, S, rgba, 0, 0, S, S);
      report(ok, "cube RGBA", what, 0);
      free(faces[i]);
   }
   glDeleteTextures(1, &tex);
}

/* Renders into every level of a mipmapped texture and every face of a cube
 * (clears, full and scissored: the pixel back end writing twiddled
 * images), then reads back through the FBO and by sampling. */
static void
fill_rt_expect(uint8_t *t, unsigned w, unsigned h, const uint8_t bg[4], const uint8_t fg[4],
               unsigned sx, unsigned sy, unsigned sw, unsigned sh)
{
   for (unsigned y = 0; y < h; y++)
      for (unsigned x = 0; x < w; x++) {
         bool in = x >= sx && x < sx + sw && y >= sy && y < sy + sh;
         memcpy(t + ((size_t)y * w + x) * 4, in ? fg : bg, 4);
      }
}

static bool
clear_level(GLenum target, GLuint tex, unsigned level, unsigned w, unsigned h,
            const uint8_t bg[4], const uint8_t fg[4], unsigned sx, unsigned sy,
            unsigned sw, unsigned sh)
{
   GLuint fbo;
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, target, tex, level);
   bool ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
   if (ok) {
      glViewport(0, 0, w, h);
      glClearColor(bg[0] / 255.0f, bg[1] / 255.0f, bg[2] / 255.0f, bg[3] / 255.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      glEnable(GL_SCISSOR_TEST);
      glScissor(sx, sy, sw, sh);
      glClearColor(fg[0] / 255.0f, fg[1] / 255.0f, fg[2] / 255.0f, fg[3] / 255.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      glDisable(GL_SCISSOR_TEST);
   }
   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   glDeleteFramebuffers(1, &fbo);
   return ok && glGetError() == GL_NO_ERROR;
}

static void
test_render_to_texture(bool fbo_mips, bool draw_ok)
{
   const struct fmt *f = &formats[0];
   const unsigned W = 64, H = 32, levels = fbo_mips ? 7 : 1;
   uint8_t *expect = malloc(W * H * 4), *rgba = malloc(W * H * 4);
   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   for (unsigned l = 0; l < 7; l++) {
      unsigned w = W >> l ? W >> l : 1, h = H >> l ? H >> l : 1;
      glTexImage2D(GL_TEXTURE_2D, l, GL_RGBA, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
   }
   for (unsigned l = 0; l < levels; l++) {
      unsigned w = W >> l ? W >> l : 1, h = H >> l ? H >> l : 1;
      uint8_t bg[4] = {(uint8_t)(40 * l), 0x80, (uint8_t)(255 - 30 * l), 0xff};
      uint8_t fg[4] = {0xff, (uint8_t)(20 * l), 0x10, 0x7f};
      unsigned sx = w / 4, sy = h / 4, sw = (w + 1) / 2, sh = (h + 1) / 2;
      fill_rt_expect(expect, w, h, bg, fg, sx, sy, sw, sh);
      bool ok = clear_level(GL_TEXTURE_2D, tex, l, w, h, bg, fg, sx, sy, sw, sh);
      report(ok, "RGBA render target", "clear + scissored clear", l);
      ok = ok && fbo_readback(GL_TEXTURE_2D, tex, l, w, h, rgba) &&
           compare(f, expect, w, h, rgba, 0, 0, w, h);
      report(ok, "RGBA render target", "FBO glReadPixels", l);
      if (draw_ok) {
         glBindTexture(GL_TEXTURE_2D, tex);
         ok = draw_readback(w, h, rgba) && compare(f, expect, w, h, rgba, 0, 0, w, h);
         report(ok, "RGBA render target", "sampled after rendering", l);
      }
   }
   glDeleteTextures(1, &tex);

   /* Cube faces: six layers of one twiddled image. */
   const unsigned S = 32;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_CUBE_MAP, tex);
   glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   for (unsigned i = 0; i < 6; i++)
      glTexImage2D(GL_TEXTURE_CUBE_MAP_POSITIVE_X + i, 0, GL_RGBA, S, S, 0, GL_RGBA,
                   GL_UNSIGNED_BYTE, NULL);
   for (unsigned i = 0; i < 6; i++) {
      uint8_t bg[4] = {(uint8_t)(i * 40), (uint8_t)(255 - i * 40), 0x33, 0xff};
      uint8_t fg[4] = {0x11, 0x22, (uint8_t)(i * 20), 0x44};
      clear_level(GL_TEXTURE_CUBE_MAP_POSITIVE_X + i, tex, 0, S, S, bg, fg, 3, 5, 20, 9);
   }
   for (unsigned i = 0; i < 6; i++) {
      uint8_t bg[4] = {(uint8_t)(i * 40), (uint8_t)(255 - i * 40), 0x33, 0xff};
      uint8_t fg[4] = {0x11, 0x22, (uint8_t)(i * 20), 0x44};
      char what[40];
      snprintf(what, sizeof(what), "rendered face %u readback", i);
      fill_rt_expect(expect, S, S, bg, fg, 3, 5, 20, 9);
      bool ok = fbo_readback(GL_TEXTURE_CUBE_MAP_POSITIVE_X + i, tex, 0, S, S, rgba) &&
                compare(f, expect, S, S, rgba, 0, 0, S, S);
      report(ok, "cube render target", what, 0);
   }
   glDeleteTextures(1, &tex);
   free(expect);
   free(rgba);
}

/* dma-buf round trip: an EGL_MESA_drm_image (a shareable linear image)
 * rendered to, exported (EGL_MESA_image_dma_buf_export) and imported
 * again (EGL_EXT_image_dma_buf_import) as a second texture. */
static void
test_dmabuf(EGLDisplay dpy)
{
   const char *egl_ext = eglQueryString(dpy, EGL_EXTENSIONS);
   if (!egl_ext || !strstr(egl_ext, "EGL_MESA_drm_image") ||
       !strstr(egl_ext, "EGL_MESA_image_dma_buf_export") ||
       !strstr(egl_ext, "EGL_EXT_image_dma_buf_import") || !gl_util_has_ext("GL_OES_EGL_image")) {
      printf("SKIP: dma-buf round trip (EGL/GL image extensions missing)\n");
      return;
   }
   PFNEGLCREATEDRMIMAGEMESAPROC create_drm =
      (PFNEGLCREATEDRMIMAGEMESAPROC)eglGetProcAddress("eglCreateDRMImageMESA");
   PFNEGLEXPORTDMABUFIMAGEQUERYMESAPROC export_query =
      (PFNEGLEXPORTDMABUFIMAGEQUERYMESAPROC)eglGetProcAddress("eglExportDMABUFImageQueryMESA");
   PFNEGLEXPORTDMABUFIMAGEMESAPROC export_img =
      (PFNEGLEXPORTDMABUFIMAGEMESAPROC)eglGetProcAddress("eglExportDMABUFImageMESA");
   PFNEGLCREATEIMAGEKHRPROC create_image =
      (PFNEGLCREATEIMAGEKHRPROC)eglGetProcAddress("eglCreateImageKHR");
   PFNEGLDESTROYIMAGEKHRPROC destroy_image =
      (PFNEGLDESTROYIMAGEKHRPROC)eglGetProcAddress("eglDestroyImageKHR");
   PFNGLEGLIMAGETARGETTEXTURE2DOESPROC image_target =
      (PFNGLEGLIMAGETARGETTEXTURE2DOESPROC)eglGetProcAddress("glEGLImageTargetTexture2DOES");

   const unsigned S = 64;
   const EGLint attrs[] = {EGL_WIDTH, S, EGL_HEIGHT, S, EGL_DRM_BUFFER_FORMAT_MESA,
                           EGL_DRM_BUFFER_FORMAT_ARGB32_MESA, EGL_DRM_BUFFER_USE_MESA,
                           EGL_DRM_BUFFER_USE_SHARE_MESA, EGL_NONE};
   EGLImageKHR img = create_drm(dpy, attrs);
   report(img != EGL_NO_IMAGE_KHR, "dma-buf", "eglCreateDRMImageMESA", 0);
   if (img == EGL_NO_IMAGE_KHR)
      return;
   GLuint tex[2];
   glGenTextures(2, tex);
   glBindTexture(GL_TEXTURE_2D, tex[0]);
   image_target(GL_TEXTURE_2D, img);
   const uint8_t bg[4] = {0x20, 0x40, 0x80, 0xff}, fg[4] = {0xf0, 0x10, 0x33, 0xff};
   bool ok = glGetError() == GL_NO_ERROR &&
             clear_level(GL_TEXTURE_2D, tex[0], 0, S, S, bg, fg, 7, 9, 30, 20);
   report(ok, "dma-buf", "render into the image", 0);

   int fourcc = 0, planes = 0, fd = -1;
   EGLint stride = 0, offset = 0;
   EGLuint64KHR modifier = 0;
   ok = export_query(dpy, img, &fourcc, &planes, &modifier) && planes == 1 &&
        export_img(dpy, img, &fd, &stride, &offset) && fd >= 0;
   report(ok, "dma-buf", "eglExportDMABUFImageMESA", 0);
   if (!ok) {
      destroy_image(dpy, img);
      return;
   }
   if (strstr(egl_ext, "EGL_EXT_image_dma_buf_import_modifiers")) {
      PFNEGLQUERYDMABUFMODIFIERSEXTPROC query_mods =
         (PFNEGLQUERYDMABUFMODIFIERSEXTPROC)eglGetProcAddress("eglQueryDmaBufModifiersEXT");
      EGLuint64KHR mods[8];
      EGLint nmods = 0;
      ok = query_mods(dpy, fourcc, 8, mods, NULL, &nmods) && nmods >= 1 &&
           mods[0] == 0 /* DRM_FORMAT_MOD_LINEAR */ && modifier == 0;
      report(ok, "dma-buf", "modifiers: linear", 0);
   }
   const EGLint imp[] = {EGL_WIDTH, S, EGL_HEIGHT, S, EGL_LINUX_DRM_FOURCC_EXT, fourcc,
                         EGL_DMA_BUF_PLANE0_FD_EXT, fd, EGL_DMA_BUF_PLANE0_OFFSET_EXT, offset,
                         EGL_DMA_BUF_PLANE0_PITCH_EXT, stride,
                         EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT, 0,
                         EGL_DMA_BUF_PLANE0_MODIFIER_HI_EXT, 0, EGL_NONE};
   EGLImageKHR img2 = create_image(dpy, EGL_NO_CONTEXT, EGL_LINUX_DMA_BUF_EXT, NULL, imp);
   report(img2 != EGL_NO_IMAGE_KHR, "dma-buf", "import (EGL_LINUX_DMA_BUF_EXT)", 0);
   if (img2 != EGL_NO_IMAGE_KHR) {
      glBindTexture(GL_TEXTURE_2D, tex[1]);
      image_target(GL_TEXTURE_2D, img2);
      uint8_t *expect = malloc(S * S * 4), *rgba = malloc(S * S * 4);
      fill_rt_expect(expect, S, S, bg, fg, 7, 9, 30, 20);
      ok = glGetError() == GL_NO_ERROR && fbo_readback(GL_TEXTURE_2D, tex[1], 0, S, S, rgba) &&
           compare(&formats[0], expect, S, S, rgba, 0, 0, S, S);
      report(ok, "dma-buf", "imported image reads back", 0);
      free(expect);
      free(rgba);
      destroy_image(dpy, img2);
   }
   close(fd);
   glDeleteTextures(2, tex);
   destroy_image(dpy, img);
}

/* Depth/stencil attachments (Z16, Z24S8 stored as Z32F + S8): a near quad
 * over the left half, then a far quad over everything with depth test
 * LESS; with stencil, the far quad only where the near one wrote 1. */
static GLuint solid_prog;

static void
draw_quad(float x0, float x1, float z, const float col[4])
{
   const float v[] = {x0, -1, z, x1, -1, z, x0, 1, z, x1, 1, z};
   glUseProgram(solid_prog);
   glUniform4fv(glGetUniformLocation(solid_prog, "col"), 1, col);
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, v);
   glEnableVertexAttribArray(0);
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

static void
test_depth_stencil(void)
{
   static const char *vs = "attribute vec3 pos;\n"
                           "void main() { gl_Position = vec4(pos, 1.0); }\n";
   static const char *fs = "precision mediump float;\n"
                           "uniform vec4 col;\n"
                           "void main() { gl_FragColor = col; }\n";
   solid_prog = gl_util_program(vs, fs, NULL);

   struct { const char *name; GLenum depth, stencil; const char *ext; } cases[] = {
      {"DEPTH_COMPONENT16", GL_DEPTH_COMPONENT16, 0, NULL},
      {"DEPTH24_STENCIL8", GL_DEPTH24_STENCIL8_OES, GL_DEPTH24_STENCIL8_OES,
       "GL_OES_packed_depth_stencil"},
      {"DEPTH16 + STENCIL8", GL_DEPTH_COMPONENT16, GL_STENCIL_INDEX8, NULL},
   };
   const unsigned W = 48, H = 40;
   const float red[4] = {1, 0, 0, 1}, green[4] = {0, 1, 0, 1};
   uint8_t *rgba = malloc(W * H * 4);
   for (unsigned c = 0; c < 3; c++) {
      if (cases[c].ext && !gl_util_has_ext(cases[c].ext)) {
         printf("SKIP: %s (no %s)\n", cases[c].name, cases[c].ext);
         continue;
      }
      GLuint fbo, rb[3] = {0};
      glGenFramebuffers(1, &fbo);
      glGenRenderbuffers(3, rb);
      glBindFramebuffer(GL_FRAMEBUFFER, fbo);
      glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
      glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8_OES, W, H);
      glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
      glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
      glRenderbufferStorage(GL_RENDERBUFFER, cases[c].depth, W, H);
      glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb[1]);
      bool stencil = cases[c].stencil != 0;
      if (cases[c].stencil == cases[c].depth) {
         glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_STENCIL_ATTACHMENT, GL_RENDERBUFFER, rb[1]);
      } else if (stencil) {
         glBindRenderbuffer(GL_RENDERBUFFER, rb[2]);
         glRenderbufferStorage(GL_RENDERBUFFER, cases[c].stencil, W, H);
         glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_STENCIL_ATTACHMENT, GL_RENDERBUFFER, rb[2]);
      }
      GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
      if (status == GL_FRAMEBUFFER_UNSUPPORTED && cases[c].stencil &&
          cases[c].stencil != cases[c].depth) {
         /* Separate depth and stencil buffers are optional in GLES2. */
         printf("SKIP: %s (framebuffer unsupported)\n", cases[c].name);
         goto next;
      }
      bool ok = status == GL_FRAMEBUFFER_COMPLETE;
      if (ok) {
         glViewport(0, 0, W, H);
         glClearColor(0, 0, 1, 1);
         glClearDepthf(1.0f);
         glClearStencil(0);
         glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
         glEnable(GL_DEPTH_TEST);
         glDepthFunc(GL_LESS);
         if (stencil) {
            glEnable(GL_STENCIL_TEST);
            glStencilFunc(GL_ALWAYS, 1, 0xff);
            glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
         }
         draw_quad(-1, 0, 0.0f, red);              /* left half, near */
         if (stencil) {
            /* Far quad where the stencil is 1: fails depth there (red
             * stays); elsewhere the stencil test fails (blue stays). */
            glStencilFunc(GL_EQUAL, 1, 0xff);
            glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
         }
         draw_quad(-1, 1, 0.5f, green);             /* everything, far */
         glDisable(GL_DEPTH_TEST);
         glDisable(GL_STENCIL_TEST);
         ok = read_rgba(W, H, rgba);
         unsigned bad = 0;
         for (unsigned y = 0; ok && y < H; y++)
            for (unsigned x = 0; x < W; x++) {
               const uint8_t *p = rgba + (y * W + x) * 4;
               bool left = x < W / 2;
               uint8_t want[4] = {left ? 255 : 0, left || stencil ? 0 : 255,
                                  left || !stencil ? 0 : 255, 255};
               if (memcmp(p, want, 4)) {
                  if (verbose && bad < 4)
                     printf("      (%u,%u) got %02x%02x%02x%02x want %02x%02x%02x%02x\n", x, y,
                            p[0], p[1], p[2], p[3], want[0], want[1], want[2], want[3]);
                  bad++;
               }
            }
         ok = ok && bad == 0;
      }
      report(ok, cases[c].name, stencil ? "depth + stencil test" : "depth test", 0);
   next:
      glBindFramebuffer(GL_FRAMEBUFFER, 0);
      glDeleteFramebuffers(1, &fbo);
      glDeleteRenderbuffers(3, rb);
   }
   free(rgba);
}

/* Fences: EGL_KHR_fence_sync after rendering (pipe->flush returning a
 * fence, screen->fence_finish waiting on its syncobj). */
static void
test_fence(EGLDisplay dpy)
{
   const char *egl_ext = eglQueryString(dpy, EGL_EXTENSIONS);
   if (!egl_ext || !strstr(egl_ext, "EGL_KHR_fence_sync")) {
      printf("SKIP: fence (no EGL_KHR_fence_sync)\n");
      return;
   }
   PFNEGLCREATESYNCKHRPROC create_sync =
      (PFNEGLCREATESYNCKHRPROC)eglGetProcAddress("eglCreateSyncKHR");
   PFNEGLCLIENTWAITSYNCKHRPROC wait_sync =
      (PFNEGLCLIENTWAITSYNCKHRPROC)eglGetProcAddress("eglClientWaitSyncKHR");
   PFNEGLDESTROYSYNCKHRPROC destroy_sync =
      (PFNEGLDESTROYSYNCKHRPROC)eglGetProcAddress("eglDestroySyncKHR");
   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 256, 256, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
   const uint8_t c[4] = {1, 2, 3, 4};
   clear_level(GL_TEXTURE_2D, tex, 0, 256, 256, c, c, 0, 0, 1, 1);
   EGLSyncKHR sync = create_sync(dpy, EGL_SYNC_FENCE_KHR, NULL);
   bool ok = sync != EGL_NO_SYNC_KHR &&
             wait_sync(dpy, sync, EGL_SYNC_FLUSH_COMMANDS_BIT_KHR, 10000000000ull) ==
                EGL_CONDITION_SATISFIED_KHR;
   report(ok, "fence", "eglClientWaitSyncKHR", 0);
   if (sync != EGL_NO_SYNC_KHR) {
      /* A second wait on a signalled fence returns at once. */
      ok = wait_sync(dpy, sync, 0, 0) == EGL_CONDITION_SATISFIED_KHR;
      report(ok, "fence", "wait on a signalled fence", 0);
      destroy_sync(dpy, sync);
   }
   glDeleteTextures(1, &tex);
}

/* Buffer orphaning: a vertex buffer drawn from, then replaced as a whole
 * (glBufferSubData of the whole buffer: a discard map) and drawn again in
 * the same frame. Both draws must see their own data. */
static void
test_buffer_orphaning(void)
{
   const unsigned W = 32, H = 16;
   const float red[4] = {1, 0, 0, 1}, green[4] = {0, 1, 0, 1};
   const float left[] = {-1, -1, 0, 0, -1, 0, -1, 1, 0, 0, 1, 0};
   const float right[] = {0, -1, 0, 1, -1, 0, 0, 1, 0, 1, 1, 0};
   GLuint fbo, rb, buf;
   glGenFramebuffers(1, &fbo);
   glGenRenderbuffers(1, &rb);
   glBindRenderbuffer(GL_RENDERBUFFER, rb);
   glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8_OES, W, H);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
   glViewport(0, 0, W, H);
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT);
   glGenBuffers(1, &buf);
   glBindBuffer(GL_ARRAY_BUFFER, buf);
   glBufferData(GL_ARRAY_BUFFER, sizeof(left), left, GL_DYNAMIC_DRAW);
   glUseProgram(solid_prog);
   glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, 0);
   glEnableVertexAttribArray(0);
   glUniform4fv(glGetUniformLocation(solid_prog, "col"), 1, red);
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
   glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof(right), right);
   glUniform4fv(glGetUniformLocation(solid_prog, "col"), 1, green);
   glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
   uint8_t rgba[32 * 16 * 4];
   bool ok = read_rgba(W, H, rgba);
   for (unsigned y = 0; ok && y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         const uint8_t *p = rgba + (y * W + x) * 4;
         bool l = x < W / 2;
         if (p[0] != (l ? 255 : 0) || p[1] != (l ? 0 : 255) || p[2] != 0) {
            if (verbose)
               printf("      (%u,%u) got %02x%02x%02x\n", x, y, p[0], p[1], p[2]);
            ok = false;
            break;
         }
      }
   report(ok, "vertex buffer", "rewritten between draws", 0);
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   glDeleteBuffers(1, &buf);
   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   glDeleteFramebuffers(1, &fbo);
   glDeleteRenderbuffers(1, &rb);
}

int
main(int argc, char **argv)
{
   verbose = argc > 1 && strcmp(argv[1], "-v") == 0;

   struct gl_util_egl egl;
   if (!gl_util_egl_surfaceless(&egl, EGL_OPENGL_ES_API))
      return 1;

   const char *renderer = (const char *)glGetString(GL_RENDERER);
   printf("GL_RENDERER: %s\nGL_VERSION: %s\n", renderer, (const char *)glGetString(GL_VERSION));
   bool is_tessera = renderer && strstr(renderer, "tessera");
   printf("%s: renderer is tessera\n", is_tessera ? "PASS" : "INFO");

   bool fbo_mips = gl_util_has_ext("GL_OES_fbo_render_mipmap");
   bool draw_ok = setup_draw();
   report(draw_ok, "program", "compile/link", 0);

   for (unsigned i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
      if (formats[i].ext && !gl_util_has_ext(formats[i].ext)) {
         printf("SKIP: %s (no %s)\n", formats[i].name, formats[i].ext);
         continue;
      }
      test_format(&formats[i], fbo_mips, draw_ok);
   }
   test_cube();
   test_render_to_texture(fbo_mips, draw_ok);
   test_depth_stencil();
   test_buffer_orphaning();
   test_dmabuf(egl.dpy);
   test_fence(egl.dpy);

   printf("%d passed, %d failed\n", gl_util_passes, gl_util_failures);
   gl_util_egl_finish(&egl);
   return gl_util_failures ? 1 : 0;
}
