/* SPDX-License-Identifier: MIT */
/*
 * gl_fork: GL and the render node across fork(), as a forking program, a
 * browser's zygote (forks before its GPU process opens the GPU) or a
 * program spawning helpers meets them. docs/kernel.md ("fork()") says what
 * the shim promises; on a real kernel the inherited fd would work too, so
 * the inherited-fd checks run on the shim only.
 *
 *   1. parent: opens the render node itself (fd N) and draws with GL
 *      (surfaceless EGL, a triangle into an FBO, checked pixel by pixel),
 *      then terminates EGL, keeping fd N open;
 *   2. fork: the child's inherited fd N fails with EIO (version and GEM
 *      ioctls, mmap) and closes cleanly; a new EGL display in the child
 *      opens the node anew and draws correctly;
 *   3. fork + exec of this program (`gl_fork --exec-child`): the new image
 *      gets the shim from the environment and draws correctly;
 *   4. parent: fd N still works, and GL again.
 * PASS/FAIL lines; exit 1 when any fails. The children report through
 * their own PASS/FAIL lines and exit status.
 *
 *   build/release/bin/tessera run -- build/release/bin/gl_fork
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <GLES2/gl2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include "drm-uapi/asahi_drm.h"
#include "tests/gl/gl_util.h"

#define W 64
#define H 64

static const char *vs =
   "attribute vec4 pos;\nattribute vec4 attr;\nvarying vec4 c;\n"
   "void main() { gl_Position = pos; c = attr; }\n";
static const char *fs =
   "precision mediump float;\nvarying vec4 c;\nvoid main() { gl_FragColor = c; }\n";

/* A clear and a flat green triangle over the lower-left half (below the
 * diagonal), checked at points away from the edge. */
static bool
draw_and_check(const char *who)
{
   struct gl_util_egl egl;
   char test[64];
   snprintf(test, sizeof(test), "%s: EGL context", who);
   if (!gl_util_egl_surfaceless(&egl, EGL_OPENGL_ES_API))
      return gl_util_verdict(false, ": %s", test);
   /* "renderer: " once (tests/gl/programs.sh checks it), then per process */
   static bool printed;
   printf("%s%s%s: %s\n", printed ? who : "", printed ? " " : "", "renderer",
          (const char *)glGetString(GL_RENDERER));
   printed = true;
   GLuint fbo, rb;
   bool ok = gl_util_color_fbo(W, H, &fbo, &rb);
   glClearColor(0.0f, 0.0f, 1.0f, 1.0f);
   glClear(GL_COLOR_BUFFER_BIT);
   gl_util_use_program(vs, fs, NULL);
   static const GLfloat pos[] = { -1, -1, 0, 1, 1, -1, 0, 1, -1, 1, 0, 1 };
   static const GLfloat col[] = { 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1 };
   glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 0, pos);
   glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 0, col);
   glEnableVertexAttribArray(0);
   glEnableVertexAttribArray(1);
   glDrawArrays(GL_TRIANGLES, 0, 3);
   static uint8_t px[W * H * 4];
   gl_util_read_fb(px, W, H);
   static const uint8_t green[4] = { 0, 255, 0, 255 }, blue[4] = { 0, 0, 255, 255 };
   snprintf(test, sizeof(test), "%s: draw", who);
   ok = ok && gl_util_pixel_is(px, W, 8, 8, green, 0, test) &&
        gl_util_pixel_is(px, W, 20, 30, green, 0, test) &&
        gl_util_pixel_is(px, W, 56, 56, blue, 0, test) &&
        gl_util_pixel_is(px, W, 40, 50, blue, 0, test);
   ok = gl_util_check(test, ok);
   glDeleteFramebuffers(1, &fbo);
   glDeleteRenderbuffers(1, &rb);
   gl_util_egl_finish(&egl);
   return ok;
}

static int
open_node(void)
{
   for (int minor = 128; minor < 192; minor++) {
      char path[64];
      snprintf(path, sizeof(path), "/dev/dri/renderD%d", minor);
      int fd = open(path, O_RDWR | O_CLOEXEC);
      if (fd < 0)
         continue;
      drmVersionPtr v = drmGetVersion(fd);
      bool asahi = v && strcmp(v->name, "asahi") == 0;
      drmFreeVersion(v);
      if (asahi)
         return fd;
      close(fd);
   }
   return -1;
}

/* The child's view of the fd it inherited: dead (EIO), closable. */
static void
check_inherited_fd(int fd)
{
   errno = 0;
   drmVersionPtr v = drmGetVersion(fd);
   int e = errno;
   gl_util_verdict(!v && e == EIO, ": child: inherited fd: DRM_IOCTL_VERSION fails with EIO (got %s)",
                   v ? "success" : strerror(e));
   drmFreeVersion(v);
   struct drm_asahi_gem_create g = { .size = 16384 };
   errno = 0;
   int r = drmIoctl(fd, DRM_IOCTL_ASAHI_GEM_CREATE, &g);
   e = errno;
   gl_util_verdict(r == -1 && e == EIO, ": child: inherited fd: GEM_CREATE fails with EIO (got %d, %s)",
                   r, strerror(e));
   errno = 0;
   void *p = mmap(NULL, 16384, PROT_READ, MAP_SHARED, fd, 0);
   e = errno;
   gl_util_verdict(p == MAP_FAILED && e == EIO, ": child: inherited fd: mmap fails with EIO (got %s)",
                   p == MAP_FAILED ? strerror(e) : "a mapping");
   if (p != MAP_FAILED)
      munmap(p, 16384);
   gl_util_verdict(close(fd) == 0, ": child: inherited fd closes");
}

/* Waits for pid; PASS when it exited 0. */
static void
reap(pid_t pid, const char *what)
{
   int st = 0;
   bool ok = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
   gl_util_verdict(ok, ": %s (status %#x)", what, st);
}

int
main(int argc, char **argv)
{
   setvbuf(stdout, NULL, _IOLBF, 0);
   if (argc > 1 && strcmp(argv[1], "--exec-child") == 0)
      return draw_and_check("exec child") ? 0 : 1;

   bool shim = dlsym(RTLD_DEFAULT, "tessera_shim_present") != NULL;
   int fd = open_node();
   gl_util_verdict(fd >= 0, ": parent: an asahi render node opens");
   draw_and_check("parent");

   fflush(stdout);
   pid_t pid = fork();
   if (pid == 0) {
      if (shim && fd >= 0)
         check_inherited_fd(fd);
      else if (fd >= 0)
         close(fd);
      draw_and_check("child");
      fflush(stdout);
      _exit(gl_util_failures ? 1 : 0);
   }
   reap(pid, "parent: the forked child passed");

   fflush(stdout);
   pid = fork();
   if (pid == 0) {
      execl("/proc/self/exe", argv[0], "--exec-child", (char *)NULL);
      perror("exec");
      _exit(127);
   }
   reap(pid, "parent: the fork+exec child passed");

   drmVersionPtr v = fd >= 0 ? drmGetVersion(fd) : NULL;
   gl_util_verdict(v && strcmp(v->name, "asahi") == 0, ": parent: its fd still works after the forks");
   drmFreeVersion(v);
   if (fd >= 0)
      close(fd);
   draw_and_check("parent again");
   printf("%d passed, %d failed\n", gl_util_passes, gl_util_failures);
   return gl_util_failures ? 1 : 0;
}
