/* SPDX-License-Identifier: MIT */
/*
 * rs_scene (tests/lib, library testuapi): a small "live program" for the
 * replay tests and benchmarks: it drives an
 * Asahi render node (a replay backend) through the uAPI like a GL driver
 * would — one VM, one memory object, a queue, real shaders — and, per
 * frame, runs a compute submission (out[i] = i + frame * 1000) and a render
 * submission (a clear to a per-frame colour and one flat triangle) into a
 * 64x64 linear RGBA8 target. With a trace path it records everything it
 * does with the trace writer, as the capture layer would.
 */
#ifndef RS_SCENE_H
#define RS_SCENE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/replay_backend.h"

#define RS_W 64
#define RS_H 64
#define RS_COMPUTE_N 64

struct rs_options {
   unsigned frames;
   const char *trace_path;    /* NULL: do not record */
   bool corrupt_output;       /* record a wrong compute result (frame 0) */
   uint32_t chip_id;          /* recorded device chip id; 0: the real one */
   bool draw_triangle;        /* else only the clear */
   bool late_records;         /* no recording between compute and render:
                                 the corruptions below go into the frame's
                                 last recording instead */
   bool corrupt_target;       /* record a wrong first target byte (frame 0) */
};

struct rs_result {
   uint8_t rt[RS_W * RS_H * 4];     /* the target after the last frame */
   uint32_t out[RS_COMPUTE_N];      /* compute output of the last frame */
   uint64_t rt_va, out_va, compute_shader_va;
   uint64_t gpu_ns;                 /* sum over submissions */
};

/* 0 or -1 with a message in err. */
int rs_run(struct replay_backend *b, const struct rs_options *o, struct rs_result *res,
           char *err, size_t err_size);

/* The clear colour of frame f and the triangle's colour (RGBA8 bytes). */
void rs_clear_color(unsigned frame, uint8_t rgba[4]);
extern const uint8_t rs_triangle_rgba[4];

/* Assembles src; 0 bytes on failure. */
size_t rs_assemble(const char *src, uint8_t *code, size_t cap);
extern const char *const rs_compute_src, *const rs_compute_alt_src;

#endif
