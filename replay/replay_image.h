/* SPDX-License-Identifier: MIT */
/*
 * replay image: finding the render targets of a render command and turning
 * them into 8-bit RGBA pictures (PNG).
 *
 * CONTRACT
 * - Colour targets are found the way the hardware finds them: the command's
 *   end-of-tile program (eot.usc, an offset from the queue's USC base) is a
 *   USC word list whose Texture words load descriptor tables; every entry of
 *   those tables that decodes as a usable 2D PBE descriptor is a target (the
 *   end-of-tile program exists to store the tilebuffer, so its table holds
 *   PBE descriptors). Targets are numbered in table order, duplicates (the
 *   same buffer and level) dropped.
 * - The depth buffer is a target when ZLS Control enables the Z store, the
 *   stencil buffer when it enables the S store; both are linear, rows of
 *   width x samples values (docs/rendering.md, step 6).
 * - Every memory access goes through the caller's read function: nothing
 *   here can fault, and a target whose memory cannot be read is an error
 *   with a message, never a crash.
 * - Conversion to RGBA8: unorm/sRGB channels keep their stored 8-bit value
 *   (sRGB is not linearised, so the PNG shows what memory holds); wider
 *   unorm, snorm and float values are clamped to [0, 1] and rounded; integer
 *   channels are clamped to 0..255; depth (32F clamped to [0, 1], or unorm
 *   16) and stencil are grey with alpha 255. Multisampled targets are
 *   resolved by averaging the samples.
 */
#ifndef REPLAY_IMAGE_H
#define REPLAY_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/tex/hw_tex.h"

struct drm_asahi_cmd_render;

/* Copies size bytes at gpu_va into dst; false when any of it is unmapped. */
typedef bool (*replay_read_fn)(void *ctx, uint64_t gpu_va, void *dst, size_t size);

enum replay_target_kind {
   REPLAY_TARGET_COLOR,
   REPLAY_TARGET_DEPTH,
   REPLAY_TARGET_STENCIL,
};

#define REPLAY_MAX_TARGETS 16

struct replay_target {
   enum replay_target_kind kind;
   unsigned index;            /* colour: position among the colour targets */
   struct hw_tex_image image; /* colour: the decoded PBE descriptor */
   /* depth/stencil: the pass's size, and the twiddled ZLS image it is
    * stored in (sized by the command's isp_zls_pixels, all samples of a
    * pixel in one texel) */
   uint64_t base;
   uint32_t width, height, samples;
   struct hw_tex_layout zs_layout;
   bool depth_unorm16;
};

/*
 * Fills out[] with up to max targets of cmd; returns how many (0 is not an
 * error: a pass may only write depth, or nothing). Returns -1 with a
 * message in err when the end-of-tile word list cannot be read.
 */
int replay_find_targets(const struct drm_asahi_cmd_render *cmd, uint64_t usc_base,
                        replay_read_fn read, void *ctx, struct replay_target *out,
                        unsigned max, char *err, size_t err_size);

/* Width and height of layer 0 of the target's level as it will be drawn. */
void replay_target_size(const struct replay_target *t, uint32_t *w, uint32_t *h);
/* Layers the target has (1 for depth/stencil). */
uint32_t replay_target_layers(const struct replay_target *t);

/* The GPU memory the target's image occupies, every level and layer as its
 * layout places them: `--dump-raw` and `tessera decompile` programs write
 * these bytes, so their dumps can be compared byte for byte. */
void replay_target_range(const struct replay_target *t, uint64_t *base, uint64_t *size);

/* "color", "depth" or "stencil". */
const char *replay_target_kind_name(enum replay_target_kind kind);

/*
 * The targets a frame's (or submission's) dump writes: the last render
 * command to write a target names it, earlier writes of the same target
 * (kind, base, level) are overdrawn. A caller walks the render commands
 * from the last to the first and asks for each target; `seen` holds up to
 * REPLAY_MAX_SEEN keys (more are treated as new).
 */
#define REPLAY_MAX_SEEN 64
struct replay_target_seen {
   struct {
      uint64_t base;
      unsigned kind, level;
   } key[REPLAY_MAX_SEEN];
   unsigned n;
};
/* True when t was not seen yet (and records it). */
bool replay_target_first_seen(struct replay_target_seen *seen, const struct replay_target *t);

/*
 * Reads one layer of the target and converts it; *rgba is malloc'd, w x h x
 * 4 bytes, rows packed. False with a message in err.
 */
bool replay_target_read_rgba8(const struct replay_target *t, uint32_t layer,
                              replay_read_fn read, void *ctx, uint8_t **rgba,
                              uint32_t *w, uint32_t *h, char *err, size_t err_size);

/* Writes an RGBA8 picture as a PNG file (libpng). False with a message. */
bool replay_png_write(const char *path, const uint8_t *rgba, uint32_t w, uint32_t h,
                      char *err, size_t err_size);
/* Reads a PNG written by replay_png_write (8-bit RGBA); for tests and tools. */
bool replay_png_read(const char *path, uint8_t **rgba, uint32_t *w, uint32_t *h,
                     char *err, size_t err_size);

#endif
