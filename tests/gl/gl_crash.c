/* SPDX-License-Identifier: MIT */
/*
 * gl_crash: renders a few frames with GLES2 on a surfaceless context and
 * then dies, for tests/gl/capture_crash.sh (crash-safe capture,
 * docs/capture.md).
 *
 *   gl_crash MODE [FRAMES] [DELAY_MS]
 *
 * Each frame clears a 64x64 FBO to a colour of its own and draws a
 * triangle at a position of its own, reads the centre pixel back (so the
 * frame's work has reached the kernel and finished) and ends the frame with
 * tessera_capture_frame() when the capture layer is loaded. After FRAMES
 * frames (default 4) and DELAY_MS milliseconds (default 0) MODE says how
 * the program ends:
 *   exit   normally, status 0 (the reference run)
 *   segv   a write through a null pointer (SIGSEGV)
 *   abort  abort() (SIGABRT)
 *   kill   kill(getpid(), SIGKILL)
 * Prints one line per frame and "crashing: MODE" before it does.
 */
#include <EGL/egl.h>
#include <GLES2/gl2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/gl/gl_util.h"

void tessera_capture_frame(const char *label) __attribute__((weak));

static const char *vs =
   "attribute vec2 pos;\n"
   "uniform vec2 offset;\n"
   "void main() { gl_Position = vec4(pos + offset, 0.0, 1.0); }\n";
static const char *fs =
   "precision mediump float;\n"
   "uniform vec4 color;\n"
   "void main() { gl_FragColor = color; }\n";

int
main(int argc, char **argv)
{
   const char *mode = argc > 1 ? argv[1] : "";
   if (strcmp(mode, "exit") && strcmp(mode, "segv") && strcmp(mode, "abort") &&
       strcmp(mode, "kill")) {
      fprintf(stderr, "usage: gl_crash exit|segv|abort|kill [FRAMES] [DELAY_MS]\n");
      return 2;
   }
   int frames = argc > 2 ? atoi(argv[2]) : 4;
   int delay_ms = argc > 3 ? atoi(argv[3]) : 0;
   if (frames < 1 || frames > 1000 || delay_ms < 0) {
      fprintf(stderr, "gl_crash: bad FRAMES or DELAY_MS\n");
      return 2;
   }
   setvbuf(stdout, NULL, _IONBF, 0);

   struct gl_util_egl egl;
   if (!gl_util_egl_surfaceless(&egl, EGL_OPENGL_ES_API))
      return 1;
   GLuint fbo, rb;
   if (!gl_util_color_fbo(64, 64, &fbo, &rb))
      return 1;
   GLuint prog = gl_util_use_program(vs, fs, NULL);
   GLint u_offset = glGetUniformLocation(prog, "offset");
   GLint u_color = glGetUniformLocation(prog, "color");
   static const float tri[] = { -0.5f, -0.5f, 0.5f, -0.5f, 0.0f, 0.5f };
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, tri);
   glEnableVertexAttribArray(0);

   for (int f = 0; f < frames; f++) {
      glClearColor(0.1f * (float)(f % 8), 0.2f, 0.9f - 0.1f * (float)(f % 8), 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      glUniform2f(u_offset, -0.4f + 0.2f * (float)(f % 5), 0.1f * (float)(f % 3));
      glUniform4f(u_color, 1.0f, 0.5f + 0.1f * (float)(f % 5), 0.0f, 1.0f);
      glDrawArrays(GL_TRIANGLES, 0, 3);
      uint8_t px[4];
      glReadPixels(32, 32, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
      printf("frame %d: centre %u %u %u %u\n", f, px[0], px[1], px[2], px[3]);
      if (tessera_capture_frame)
         tessera_capture_frame("gl_crash");
   }
   if (delay_ms) {
      struct timespec ts = { delay_ms / 1000, (long)(delay_ms % 1000) * 1000000 };
      nanosleep(&ts, NULL);
   }
   if (strcmp(mode, "exit") == 0) {
      gl_util_egl_finish(&egl);
      return 0;
   }
   printf("crashing: %s\n", mode);
   if (strcmp(mode, "segv") == 0) {
      volatile int *volatile p = NULL;
      *p = 1;
   } else if (strcmp(mode, "abort") == 0) {
      abort();
   } else {
      kill(getpid(), SIGKILL);
   }
   return 1;   /* not reached */
}
