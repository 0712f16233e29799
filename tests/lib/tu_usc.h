/* SPDX-License-Identifier: MIT */
/*
 * tu_usc: shader code and USC pipeline word lists for test programs
 * (tests/lib, library testuapi). A word list is what a VDM/CDM state word
 * points at: [Uniform] [Texture] [Sampler] [Shared] Shader [Registers]
 * No-preshader, in that order, each word present or not as described.
 *
 * CONTRACT
 * - tu_usc_words() writes the list into w (at most TU_USC_WORDS_MAX
 *   bytes) and returns its length; the bytes depend on the description
 *   alone.
 * - tu_usc_assemble() returns the code's length, 0 on an assembler error
 *   (the message in err).
 */
#ifndef TU_USC_H
#define TU_USC_H

#include <stddef.h>
#include <stdint.h>

#define TU_USC_WORDS_MAX 64

enum tu_usc_shared {
   TU_USC_SHARED_NONE,             /* no Shared word */
   TU_USC_SHARED_VERTEX_COMPUTE,   /* 256 bytes per threadgroup, no tilebuffer */
   TU_USC_SHARED_TILE_32X32,       /* fragment: a 32x32 one-sample tilebuffer */
};

struct tu_usc_pipeline {
   uint32_t code;                /* the shader: offset from the USC base */
   uint64_t uniforms;            /* uniform buffer VA, loaded from u0 on */
   unsigned uniform_bytes;       /* 0: no Uniform word */
   uint64_t textures, samplers;  /* one-entry tables; 0: no word */
   enum tu_usc_shared shared;
   unsigned registers;           /* 0: no Registers word */
};

unsigned tu_usc_words(uint8_t w[TU_USC_WORDS_MAX], const struct tu_usc_pipeline *p);

size_t tu_usc_assemble(const char *src, uint8_t *code, size_t cap, char *err, size_t err_size);

#endif
