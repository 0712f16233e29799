/* SPDX-License-Identifier: MIT */
/*
 * gl_present_x11: presentation check for the tessera sw path (and any
 * X11 EGL driver): clears a 96x64 window to three colours (with a white
 * scissored corner), eglSwapBuffers, and reads the window back with
 * XGetImage. Prints PASS/FAIL per frame; exit status 1 on a failure.
 *
 * Built by `make` (tests/gl/module.mk) into build/release/bin/gl_present_x11;
 * tests/gl/programs.sh runs it under its own Xvfb.
 * Run (under Xvfb :91, sw path: tessera_sw.c's flush_frontbuffer):
 *   DISPLAY=:91 EGL_PLATFORM=x11 build/release/bin/tessera run --sw -- \
 *       build/release/bin/gl_present_x11
 */
#include <EGL/egl.h>
#include <GLES2/gl2.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/gl/gl_util.h"

int
main(void)
{
   Display *x = XOpenDisplay(NULL);
   if (!x) {
      printf("FAIL: no X display\n");
      return 1;
   }
   const int W = 96, H = 64;
   Window w = XCreateSimpleWindow(x, DefaultRootWindow(x), 0, 0, W, H, 0, 0, 0);
   XMapWindow(x, w);
   XSync(x, False);

   EGLDisplay d = eglGetDisplay((EGLNativeDisplayType)x);
   if (!eglInitialize(d, NULL, NULL)) {
      printf("FAIL: eglInitialize\n");
      return 1;
   }
   eglBindAPI(EGL_OPENGL_ES_API);
   const EGLint attrs[] = {EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8,
                           EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
                           EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_NONE};
   EGLConfig cfg;
   EGLint n = 0;
   if (!eglChooseConfig(d, attrs, &cfg, 1, &n) || !n) {
      printf("FAIL: no window config\n");
      return 1;
   }
   const EGLint ctx_attrs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
   EGLContext ctx = eglCreateContext(d, cfg, EGL_NO_CONTEXT, ctx_attrs);
   EGLSurface s = eglCreateWindowSurface(d, cfg, (EGLNativeWindowType)w, NULL);
   if (ctx == EGL_NO_CONTEXT || s == EGL_NO_SURFACE || !eglMakeCurrent(d, s, s, ctx)) {
      printf("FAIL: context/surface (EGL error 0x%x)\n", eglGetError());
      return 1;
   }
   printf("GL_RENDERER: %s\n", (const char *)glGetString(GL_RENDERER));

   static const float cols[3][3] = {{1, 0, 0}, {0, 1, 0}, {0.2f, 0.4f, 0.8f}};
   for (int f = 0; f < 3; f++) {
      glClearColor(cols[f][0], cols[f][1], cols[f][2], 1);
      glClear(GL_COLOR_BUFFER_BIT);
      /* White 16x16 square at the GL origin (bottom left). */
      glEnable(GL_SCISSOR_TEST);
      glScissor(0, 0, 16, 16);
      glClearColor(1, 1, 1, 1);
      glClear(GL_COLOR_BUFFER_BIT);
      glDisable(GL_SCISSOR_TEST);
      eglSwapBuffers(d, s);
      XSync(x, False);

      XImage *im = XGetImage(x, w, 0, 0, W, H, AllPlanes, ZPixmap);
      if (!im) {
         printf("FAIL: XGetImage\n");
         return 1;
      }
      unsigned long p = XGetPixel(im, 50, 10), q = XGetPixel(im, 2, H - 2);
      unsigned r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;
      unsigned er = cols[f][0] * 255 + 0.5f, eg = cols[f][1] * 255 + 0.5f,
               eb = cols[f][2] * 255 + 0.5f;
      int ok = abs((int)r - (int)er) <= 1 && abs((int)g - (int)eg) <= 1 &&
               abs((int)b - (int)eb) <= 1 && (q & 0xffffff) == 0xffffff;
      gl_util_verdict(ok, ": frame %d pixel (50,10) = %02x%02x%02x want %02x%02x%02x, corner %06lx",
                      f, r, g, b, er, eg, eb, q & 0xffffff);
      XDestroyImage(im);
   }
   eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
   eglTerminate(d);
   XCloseDisplay(x);
   return gl_util_failures != 0;
}
