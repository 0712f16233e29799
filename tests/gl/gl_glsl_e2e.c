/* SPDX-License-Identifier: MIT */
/*
 * gl_glsl_e2e: end-to-end check of the compiler through st/mesa: GLSL ES 2.0
 * shaders (loops, conditionals, lighting math, dynamic uniform indexing,
 * textures, cube maps, discard, gl_FragCoord, gl_FrontFacing, blending)
 * drawn into a 64x64 FBO and compared with CPU values. Prints PASS/FAIL per
 * case; exit status 1 when a case fails.
 *
 * Built by `make` (tests/gl/module.mk) into build/release/bin/gl_glsl_e2e;
 * tests/gl/programs.sh runs it. By hand:
 *   build/release/bin/tessera run -- build/release/bin/gl_glsl_e2e
 * (`tessera run --sw` for the sw path, `tessera run --driver softpipe`
 * checks the references themselves.)
 */
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/gl/gl_util.h"

#define W 64
#define H 64

static const char *vs_src =
   "attribute vec2 pos;\n"
   "varying vec2 v;\n"
   "uniform float u_vs_n;\n"
   "varying float vl;\n"
   "void main() {\n"
   "  v = pos * 0.5 + 0.5;\n"
   "  float acc = 0.0;\n"
   "  for (int i = 0; i < 8; i++) { if (float(i) >= u_vs_n) break; acc += 0.125; }\n"
   "  vl = acc;\n"
   "  gl_Position = vec4(pos, 0.0, 1.0);\n"
   "}\n";

struct fs_case {
   const char *name;
   const char *src;
   void (*ref)(float x, float y, float out[4]);
};

static float u_n = 5.0f;

static void r_loop(float x, float y, float o[4])
{
   float acc = 0;
   for (int i = 0; i < 16; i++) {
      if ((float)i > x * 16.0f)
         break;
      acc += 1.0f / 16.0f;
   }
   float b = 0;
   for (int i = 0; i < 5; i++)
      b += 0.1f;
   o[0] = acc; o[1] = b; o[2] = 0.625f; o[3] = 1;
   (void)y;
}

static void r_cond(float x, float y, float o[4])
{
   if (x > 0.5f) {
      if (y > 0.5f) { o[0] = 1; o[1] = 0; }
      else { o[0] = 0.5f; o[1] = 0.25f; }
   } else if (y < 0.25f) {
      o[0] = 0; o[1] = 1;
   } else {
      o[0] = x; o[1] = y;
   }
   o[2] = fabsf(x - y); o[3] = 1;
}

static void r_math(float x, float y, float o[4])
{
   float n[3] = { x - 0.5f, y - 0.5f, 0.75f };
   float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
   float d = fmaxf(n[2] / l, 0.0f);
   o[0] = powf(d, 8.0f);
   o[1] = 0.5f + 0.5f * sinf(x * 6.0f);
   o[2] = x * (1.0f - y) + y * 0.3f;   /* mix(x, 0.3, y) */
   o[3] = 1;
}

static void r_array(float x, float y, float o[4])
{
   int i = (int)(x * 4.0f);
   if (i > 3) i = 3;
   float arr[4] = { 0.1f, 0.4f, 0.7f, 1.0f };
   o[0] = arr[i]; o[1] = y; o[2] = 0; o[3] = 1;
}

static void r_while(float x, float y, float o[4])
{
   int i = 0;
   float acc = 0;
   while (i < 10) {
      i++;
      if ((i & 1) == 0 && (float)i < y * 10.0f)
         continue;
      acc += 0.05f;
   }
   o[0] = acc; o[1] = x; o[2] = 0.625f; o[3] = 1;
}

static void r_tex(float x, float y, float o[4])
{
   int tx = (int)(x * 8), ty = (int)(y * 8);
   o[0] = tx * 32 / 255.0f; o[1] = ty * 32 / 255.0f; o[2] = 128 / 255.0f; o[3] = 1;
}

static void r_discard(float x, float y, float o[4])
{
   float fx = x * 64.0f, fy = y * 64.0f;   /* fragcoord */
   if (fmodf(floorf(fx), 2.0f) < 1.0f) {
      o[0] = o[1] = o[2] = o[3] = 0.2f;
      return;
   }
   o[0] = fx / 64.0f; o[1] = fy / 64.0f; o[2] = 0; o[3] = 1;
}

static void r_front(float x, float y, float o[4])
{
   o[0] = 1; o[1] = 0; o[2] = x; o[3] = 1;
   (void)y;
}

static void r_blend(float x, float y, float o[4])
{
   float a = 0.25f, src[4] = { x, y, 0.5f, a };
   for (int k = 0; k < 4; k++)
      o[k] = k < 3 ? src[k] * a + 0.2f * (1 - a) : a * a + 0.2f * (1 - a);
}

static void r_cube(float x, float y, float o[4])
{
   /* direction (1, x - 0.5, y - 0.5): +X face (red) unless |y-.5| etc. */
   o[0] = 1; o[1] = 0.5f; o[2] = 0; o[3] = 1;
   (void)x; (void)y;
}

static const struct fs_case cases[] = {
   { "texture2D nearest",
     "precision highp float;\nvarying vec2 v;\nuniform sampler2D t;\n"
     "void main() { gl_FragColor = texture2D(t, v); }\n", r_tex },
   { "discard + gl_FragCoord",
     "precision highp float;\nvarying vec2 v;\n"
     "void main() { if (mod(floor(gl_FragCoord.x), 2.0) < 1.0) discard;\n"
     "  gl_FragColor = vec4(gl_FragCoord.xy / 64.0, 0.0, 1.0); }\n", r_discard },
   { "gl_FrontFacing",
     "precision highp float;\nvarying vec2 v;\n"
     "void main() { gl_FragColor = gl_FrontFacing ? vec4(1.0, 0.0, v.x, 1.0) : vec4(0.0, 1.0, v.x, 1.0); }\n", r_front },
   { "blending (src alpha, one minus src alpha)",
     "precision highp float;\nvarying vec2 v;\n"
     "void main() { gl_FragColor = vec4(v, 0.5, 0.25); }\n", r_blend },
   { "textureCube",
     "precision highp float;\nvarying vec2 v;\nuniform samplerCube tc;\n"
     "void main() { gl_FragColor = textureCube(tc, vec3(1.0, (v.x - 0.5) * 0.5, (v.y - 0.5) * 0.5)); }\n", r_cube },
   { "loops (varying break, uniform count), VS loop",
     "precision highp float;\nvarying vec2 v;\nvarying float vl;\nuniform float u_n;\n"
     "void main() {\n"
     "  float acc = 0.0;\n"
     "  for (int i = 0; i < 16; i++) { if (float(i) > v.x * 16.0) break; acc += 1.0/16.0; }\n"
     "  float b = 0.0;\n"
     "  for (int i = 0; i < 100; i++) { if (float(i) >= u_n) break; b += 0.1; }\n"
     "  gl_FragColor = vec4(acc, b, vl, 1.0);\n"
     "}\n", r_loop },
   { "nested conditionals",
     "precision highp float;\nvarying vec2 v;\n"
     "void main() {\n"
     "  vec2 c;\n"
     "  if (v.x > 0.5) { if (v.y > 0.5) c = vec2(1.0, 0.0); else c = vec2(0.5, 0.25); }\n"
     "  else if (v.y < 0.25) c = vec2(0.0, 1.0); else c = v;\n"
     "  gl_FragColor = vec4(c, abs(v.x - v.y), 1.0);\n"
     "}\n", r_cond },
   { "lighting math (normalize, dot, pow, sin, mix)",
     "precision highp float;\nvarying vec2 v;\n"
     "float spec(vec3 n) { return pow(max(dot(normalize(n), vec3(0.0, 0.0, 1.0)), 0.0), 8.0); }\n"
     "void main() {\n"
     "  gl_FragColor = vec4(spec(vec3(v - 0.5, 0.75)), 0.5 + 0.5 * sin(v.x * 6.0), mix(v.x, 0.3, v.y), 1.0);\n"
     "}\n", r_math },
   { "uniform array, dynamic index",
     "precision highp float;\nvarying vec2 v;\nuniform float arr[4];\n"
     "void main() {\n"
     "  int i = int(min(v.x * 4.0, 3.0));\n"
     "  gl_FragColor = vec4(arr[i], v.y, 0.0, 1.0);\n"
     "}\n", r_array },
   { "while loop with continue",
     "precision highp float;\nvarying vec2 v;\nvarying float vl;\n"
     "void main() {\n"
     "  int i = 0; float acc = 0.0;\n"
     "  while (i < 10) { i++; if (mod(float(i), 2.0) == 0.0 && float(i) < v.y * 10.0) continue; acc += 0.05; }\n"
     "  gl_FragColor = vec4(acc, v.x, vl, 1.0);\n"
     "}\n", r_while },
};

int
main(void)
{
   struct gl_util_egl egl;
   if (!gl_util_egl_surfaceless(&egl, EGL_OPENGL_ES_API))
      return 2;
   printf("renderer: %s\n", glGetString(GL_RENDERER));
   GLuint fbo, rb;
   if (!gl_util_color_fbo(W, H, &fbo, &rb))
      return 2;
   static const float quad[] = { -1, -1, 1, -1, -1, 1, 1, 1 };
   for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
      GLuint p = gl_util_program(vs_src, cases[c].src, NULL);
      glUseProgram(p);
      glUniform1f(glGetUniformLocation(p, "u_n"), u_n);
      glUniform1f(glGetUniformLocation(p, "u_vs_n"), 5.0f);
      float arr[4] = { 0.1f, 0.4f, 0.7f, 1.0f };
      glUniform1fv(glGetUniformLocation(p, "arr"), 4, arr);
      glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, quad);
      glEnableVertexAttribArray(0);
      /* textures: unit 0 2D 8x8, unit 1 cube with one colour per face */
      static uint8_t texels[8 * 8 * 4];
      for (int ty = 0; ty < 8; ty++)
         for (int tx = 0; tx < 8; tx++) {
            uint8_t *t = &texels[(ty * 8 + tx) * 4];
            t[0] = tx * 32; t[1] = ty * 32; t[2] = 128; t[3] = 255;
         }
      GLuint tex[2];
      glGenTextures(2, tex);
      glActiveTexture(GL_TEXTURE0);
      glBindTexture(GL_TEXTURE_2D, tex[0]);
      glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 8, 8, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glActiveTexture(GL_TEXTURE1);
      glBindTexture(GL_TEXTURE_CUBE_MAP, tex[1]);
      for (int f = 0; f < 6; f++) {
         uint8_t face[4 * 4 * 4];
         for (int i = 0; i < 16; i++) {
            face[i * 4 + 0] = f == 0 ? 255 : 0; face[i * 4 + 1] = f == 0 ? 128 : 255;
            face[i * 4 + 2] = f * 40; face[i * 4 + 3] = 255;
         }
         glTexImage2D(GL_TEXTURE_CUBE_MAP_POSITIVE_X + f, 0, GL_RGBA, 4, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE, face);
      }
      glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_CUBE_MAP, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glUniform1i(glGetUniformLocation(p, "t"), 0);
      glUniform1i(glGetUniformLocation(p, "tc"), 1);
      if (cases[c].ref == r_blend) {
         glEnable(GL_BLEND);
         glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
      } else {
         glDisable(GL_BLEND);
      }
      glClearColor(0.2f, 0.2f, 0.2f, 0.2f);
      glClear(GL_COLOR_BUFFER_BIT);
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
      static uint8_t px[W * H * 4];
      glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
      int bad = 0, maxd = 0;
      for (int y = 0; y < H; y++)
         for (int x = 0; x < W; x++) {
            float o[4];
            float fx = (x + 0.5f) / W, fy = (y + 0.5f) / H;
            cases[c].ref(fx, fy, o);
            if (cases[c].ref == r_loop || cases[c].ref == r_while)
               o[2] = 0.625f;
            for (int k = 0; k < 4; k++) {
               float cl = o[k] < 0 ? 0 : o[k] > 1 ? 1 : o[k];
               int w = (int)lrintf(cl * 255.0f), g = px[(y * W + x) * 4 + k];
               int d = abs(w - g);
               if (d > maxd) maxd = d;
               if (d > 3) {
                  if (bad < 3)
                     printf("  (%d,%d) comp %d: got %d want %d\n", x, y, k, g, w);
                  bad++;
               }
            }
         }
      gl_util_verdict(!bad, " %s: %d bad components, max diff %d", cases[c].name, bad, maxd);
      glDeleteProgram(p);
      glDeleteTextures(2, tex);
   }
   gl_util_egl_finish(&egl);
   return gl_util_failures ? 1 : 0;
}
