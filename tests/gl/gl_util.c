/* SPDX-License-Identifier: MIT */
/*
 * gl_util: shared pieces of the GL test programs (contract in gl_util.h).
 * Written against GLES 2 entry points, which desktop GL 2.0+ has with the
 * same names and types, so the desktop program links it against libGL.
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/gl/gl_util.h"

int gl_util_passes, gl_util_failures;

bool
gl_util_egl_surfaceless(struct gl_util_egl *egl, EGLenum api)
{
   bool desktop = api == EGL_OPENGL_API;
   egl->dpy = EGL_NO_DISPLAY;
   egl->ctx = EGL_NO_CONTEXT;
   PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
      (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
   EGLDisplay dpy = get_display ? get_display(EGL_PLATFORM_SURFACELESS_MESA,
                                              EGL_DEFAULT_DISPLAY, NULL)
                                : EGL_NO_DISPLAY;
   EGLint major, minor;
   if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor)) {
      printf("FAIL: no surfaceless EGL display\n");
      return false;
   }
   if (!eglBindAPI(api)) {
      printf("FAIL: no %s API in EGL\n", desktop ? "desktop GL" : "GLES");
      eglTerminate(dpy);
      return false;
   }
   /* Desktop: no attributes, the driver's default compatibility version. */
   static const EGLint es2_attribs[] = { EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE };
   EGLContext ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT,
                                     desktop ? NULL : es2_attribs);
   if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
      printf("FAIL: cannot create a current %s context (EGL error 0x%x)\n",
             desktop ? "desktop GL" : "GLES2", eglGetError());
      if (ctx != EGL_NO_CONTEXT)
         eglDestroyContext(dpy, ctx);
      eglTerminate(dpy);
      return false;
   }
   egl->dpy = dpy;
   egl->ctx = ctx;
   return true;
}

void
gl_util_egl_finish(struct gl_util_egl *egl)
{
   eglMakeCurrent(egl->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
   eglDestroyContext(egl->dpy, egl->ctx);
   eglTerminate(egl->dpy);
   egl->dpy = EGL_NO_DISPLAY;
   egl->ctx = EGL_NO_CONTEXT;
}

bool
gl_util_color_fbo(unsigned w, unsigned h, GLuint *fbo, GLuint *rb)
{
   glGenFramebuffers(1, fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
   glGenRenderbuffers(1, rb);
   glBindRenderbuffer(GL_RENDERBUFFER, *rb);
   /* GL_RGBA8_OES == desktop GL_RGBA8 */
   glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8_OES, w, h);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, *rb);
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      printf("FAIL: framebuffer incomplete\n");
      return false;
   }
   glViewport(0, 0, w, h);
   return true;
}

bool
gl_util_selected(int argc, char **argv, const char *name)
{
   if (argc < 2)
      return true;
   for (int i = 1; i < argc; i++)
      if (!strcmp(argv[i], name))
         return true;
   return false;
}

GLuint
gl_util_shader(GLenum type, const char *src)
{
   GLuint s = glCreateShader(type);
   glShaderSource(s, 1, &src, NULL);
   glCompileShader(s);
   GLint ok = 0;
   glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
   if (!ok) {
      char log[1024];
      glGetShaderInfoLog(s, sizeof(log), NULL, log);
      printf("  shader compile error: %s\n", log);
   }
   return s;
}

GLuint
gl_util_program(const char *vs, const char *fs, bool *linked)
{
   GLuint p = glCreateProgram();
   glAttachShader(p, gl_util_shader(GL_VERTEX_SHADER, vs));
   glAttachShader(p, gl_util_shader(GL_FRAGMENT_SHADER, fs));
   glBindAttribLocation(p, 0, "pos");
   glBindAttribLocation(p, 1, "attr");
   glLinkProgram(p);
   GLint ok = 0;
   glGetProgramiv(p, GL_LINK_STATUS, &ok);
   if (!ok) {
      char log[1024];
      glGetProgramInfoLog(p, sizeof(log), NULL, log);
      printf("  program link error: %s\n", log);
   }
   if (linked)
      *linked = ok;
   return p;
}

GLuint
gl_util_use_program(const char *vs, const char *fs, bool *linked)
{
   GLuint p = gl_util_program(vs, fs, linked);
   glUseProgram(p);
   return p;
}

bool
gl_util_has_ext(const char *name)
{
   const char *all = (const char *)glGetString(GL_EXTENSIONS);
   size_t len = strlen(name);
   /* Whole words only: GL_OES_texture_3D must not match ..._3D_foo. */
   for (const char *p = all; p && (p = strstr(p, name)); p += len)
      if ((p == all || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
         return true;
   return false;
}

bool
gl_util_verdict(bool ok, const char *fmt, ...)
{
   va_list ap;
   fputs(ok ? "PASS" : "FAIL", stdout);
   va_start(ap, fmt);
   vprintf(fmt, ap);
   va_end(ap);
   putchar('\n');
   if (ok)
      gl_util_passes++;
   else
      gl_util_failures++;
   return ok;
}

bool
gl_util_check(const char *test, bool ok)
{
   GLenum err = glGetError();
   if (err != GL_NO_ERROR) {
      printf("  %s: GL error 0x%x\n", test, err);
      ok = false;
   }
   return gl_util_verdict(ok, ": %s", test);
}

bool
gl_util_pixel_is(const uint8_t *px, unsigned width, unsigned x, unsigned y,
                 const uint8_t want[4], int tol, const char *test)
{
   const uint8_t *p = px + ((size_t)y * width + x) * 4;
   for (unsigned c = 0; c < 4; c++) {
      if (abs((int)p[c] - (int)want[c]) > tol) {
         printf("  %s: pixel (%u,%u) is %02x%02x%02x%02x, expected %02x%02x%02x%02x\n", test,
                x, y, p[0], p[1], p[2], p[3], want[0], want[1], want[2], want[3]);
         return false;
      }
   }
   return true;
}

void
gl_util_read_fb(uint8_t *px, unsigned width, unsigned height)
{
   memset(px, 0x55, (size_t)width * height * 4);
   glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, px);
}
