/* SPDX-License-Identifier: MIT */
/*
 * gl_offscreen: an off-screen program as capture sees it: a surfaceless
 * GLES2 context, an FBO, no window and no swap. Each of its frames draws
 * into the FBO, ends with glFinish() and reads the image back with
 * glReadPixels, saving it as OUTDIR/frameNN.png (rows in memory order, as
 * `tessera replay --dump-images` writes render targets). Every frame uses
 * a freshly linked program that is deleted afterwards, so the driver
 * frees and reuses shader memory between frames (what made a whole-run
 * replay frame read freed end-of-tile programs).
 *
 * Usage: gl_offscreen OUTDIR [FRAMES]   (default 4 frames, 96x64 pixels)
 */
#include <GLES2/gl2.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/gl/gl_util.h"
#include "tests/gl/test_png.h"

#define W 96
#define H 64

int
main(int argc, char **argv)
{
   if (argc < 2) {
      fprintf(stderr, "usage: gl_offscreen OUTDIR [FRAMES]\n");
      return 2;
   }
   unsigned frames = argc > 2 ? (unsigned)atoi(argv[2]) : 4;
   if (frames < 1 || frames > 99) {
      fprintf(stderr, "gl_offscreen: FRAMES must be 1..99\n");
      return 2;
   }
   struct gl_util_egl egl;
   if (!gl_util_egl_surfaceless(&egl, EGL_OPENGL_ES_API))
      return 1;
   GLuint fbo, rb;
   if (!gl_util_color_fbo(W, H, &fbo, &rb))
      return 1;
   static const char *vs = "attribute vec2 pos;\n"
                           "uniform float shift;\n"
                           "void main() { gl_Position = vec4(pos.x + shift, pos.y, 0.0, 1.0); }\n";
   static const char *fs = "precision mediump float;\n"
                           "uniform vec4 colour;\n"
                           "void main() { gl_FragColor = colour; }\n";
   static const float tri[] = { -0.6f, -0.7f, 0.6f, -0.7f, 0.0f, 0.8f };
   uint8_t px[W * H * 4];
   int rc = 0;
   for (unsigned i = 0; i < frames; i++) {
      GLuint prog = gl_util_program(vs, fs, NULL);
      glUseProgram(prog);
      glUniform1f(glGetUniformLocation(prog, "shift"), -0.3f + 0.2f * (float)i);
      glUniform4f(glGetUniformLocation(prog, "colour"), 1.0f, 0.25f * (float)(i % 5), 0.5f,
                  1.0f);
      glClearColor(0.1f * (float)(i % 10), 0.2f, 0.6f, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, tri);
      glEnableVertexAttribArray(0);
      glDrawArrays(GL_TRIANGLES, 0, 3);
      glFinish();
      gl_util_read_fb(px, W, H);
      glUseProgram(0);
      glDeleteProgram(prog);
      char path[4096];
      snprintf(path, sizeof(path), "%s/frame%02u.png", argv[1], i);
      if (!test_png_write_rgba(path, px, W, H)) {
         fprintf(stderr, "gl_offscreen: cannot write %s\n", path);
         rc = 1;
      }
   }
   glDeleteFramebuffers(1, &fbo);
   glDeleteRenderbuffers(1, &rb);
   gl_util_egl_finish(&egl);
   if (!rc)
      printf("gl_offscreen: %u frames written to %s\n", frames, argv[1]);
   return rc;
}
