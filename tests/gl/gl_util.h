/* SPDX-License-Identifier: MIT */
/*
 * gl_util: what tessera's GL test programs share (tests/gl/module.mk
 * compiles gl_util.c into each of them).
 *
 *  - EGL: a surfaceless display with a context current and no surface;
 *  - shaders: compile + link with the attribute locations the programs
 *    use, compile and link logs printed on stdout;
 *  - extensions: a name in glGetString(GL_EXTENSIONS) (GLES and desktop
 *    compatibility contexts; core profiles return NULL there);
 *  - verdicts: one "PASS..." / "FAIL..." line per check, counted, and
 *    pixel comparisons that explain a mismatch.
 *
 * Include the program's GL header (GLES2/gl2.h or GL/gl.h) before this
 * one: the prototypes use its GLuint and GLenum (unsigned int in both).
 * Single-threaded, like the programs.
 */
#ifndef GL_UTIL_H
#define GL_UTIL_H

#include <EGL/egl.h>
#include <stdbool.h>
#include <stdint.h>

struct gl_util_egl {
   EGLDisplay dpy;
   EGLContext ctx;
};

/*
 * EGL_PLATFORM_SURFACELESS_MESA display, initialized, with a context of
 * `api` current without a surface: EGL_OPENGL_ES_API gives a GLES 2
 * context, EGL_OPENGL_API a compatibility context of the driver's default
 * version.  No EGLConfig (EGL_KHR_no_config_context): everything is drawn
 * into FBOs.  On failure prints one "FAIL: ..." line and returns false.
 */
bool gl_util_egl_surfaceless(struct gl_util_egl *egl, EGLenum api);

/* Releases the context and terminates the display. */
void gl_util_egl_finish(struct gl_util_egl *egl);

/*
 * Creates and binds a framebuffer with a w x h RGBA8 colour renderbuffer
 * (*fbo, *rb) and sets the viewport to it.  When the framebuffer is not
 * complete prints "FAIL: framebuffer incomplete" and returns false.
 */
bool gl_util_color_fbo(unsigned w, unsigned h, GLuint *fbo, GLuint *rb);

/* Whether the test `name` runs: every test without arguments, otherwise
 * the ones named on the command line. */
bool gl_util_selected(int argc, char **argv, const char *name);

/* A compiled shader object; the log goes to stdout when compiling fails. */
GLuint gl_util_shader(GLenum type, const char *src);

/*
 * A program from a vertex and a fragment shader, attributes "pos" at
 * location 0 and "attr" at 1 (names a shader does not use are ignored),
 * linked.  The link log goes to stdout when linking fails; the program is
 * returned either way (drawing with it then fails visibly), *linked (if
 * non-NULL) says whether it linked.
 */
GLuint gl_util_program(const char *vs, const char *fs, bool *linked);

/* gl_util_program(), then made the current program (glUseProgram). */
GLuint gl_util_use_program(const char *vs, const char *fs, bool *linked);

/* Whether the current context lists the extension `name`. */
bool gl_util_has_ext(const char *name);

/* Checks printed so far by gl_util_verdict()/gl_util_check(). */
extern int gl_util_passes, gl_util_failures;

/*
 * Prints "PASS" or "FAIL" immediately followed by the formatted text and a
 * newline (callers choose the separator, e.g. ": %s"), counts it and
 * returns ok.
 */
bool gl_util_verdict(bool ok, const char *fmt, ...)
   __attribute__((format(printf, 2, 3)));

/*
 * The named check `test`: fails also when a GL error is pending (printed
 * as "  <test>: GL error 0x..." first), then prints "PASS: <test>" or
 * "FAIL: <test>".  Returns the verdict.
 */
bool gl_util_check(const char *test, bool ok);

/*
 * Compares pixel (x, y) of an RGBA8 image `width` pixels wide with `want`
 * (per-channel tolerance tol); on a mismatch prints
 * "  <test>: pixel (x,y) is ..., expected ..." and returns false.
 */
bool gl_util_pixel_is(const uint8_t *px, unsigned width, unsigned x, unsigned y,
                      const uint8_t want[4], int tol, const char *test);

/* Reads width x height RGBA8 pixels of the bound framebuffer into px,
 * which is filled with 0x55 first (a failed read shows as that). */
void gl_util_read_fb(uint8_t *px, unsigned width, unsigned height);

#endif
