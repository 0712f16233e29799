/* SPDX-License-Identifier: MIT */
/*
 * Filtered sampling, texel fetch: addressing, wrap modes, borders, LOD
 * selection and filtering, in single-precision float except for the
 * filter weights, which are fixed point (HW_TEX_WEIGHT_BITS).
 */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "cmdstream/agx_pack.h"
#include "hw/hw_mmu.h"
#include "hw/tex/hw_tex.h"

static uint32_t
minify(uint32_t v, unsigned l)
{
   v >>= l;
   return v ? v : 1;
}

/* Texels along the axes of `level`: x, y and the third axis (3D slices). */
static void
level_size(const struct hw_tex_view *v, unsigned level, uint32_t size[3])
{
   size[0] = v->layout.level[level].width;
   size[1] = v->layout.level[level].height;
   size[2] = v->dim == AGX_TEXTURE_DIMENSION_3D ? minify(v->layers, level) : 1;
}

static unsigned
view_axes(const struct hw_tex_view *v)
{
   switch (v->dim) {
   case AGX_TEXTURE_DIMENSION_1D:
   case AGX_TEXTURE_DIMENSION_1D_ARRAY:
      return 1;
   case AGX_TEXTURE_DIMENSION_3D:
      return 3;
   default:
      return 2;
   }
}

static bool
is_cube(const struct hw_tex_view *v)
{
   return v->dim == AGX_TEXTURE_DIMENSION_CUBE || v->dim == AGX_TEXTURE_DIMENSION_CUBE_ARRAY;
}

void
hw_tex_cube_face(const float d[3], float *s, float *t, unsigned *face)
{
   float ax = fabsf(d[0]), ay = fabsf(d[1]), az = fabsf(d[2]);
   float sc, tc, ma;
   if (az >= ax && az >= ay) {
      ma = az;
      *face = d[2] >= 0 ? 4 : 5;
      sc = d[2] >= 0 ? d[0] : -d[0];
      tc = -d[1];
   } else if (ay >= ax) {
      ma = ay;
      *face = d[1] >= 0 ? 2 : 3;
      sc = d[0];
      tc = d[1] >= 0 ? d[2] : -d[2];
   } else {
      ma = ax;
      *face = d[0] >= 0 ? 0 : 1;
      sc = d[0] >= 0 ? -d[2] : d[2];
      tc = -d[1];
   }
   if (ma == 0) {
      *s = *t = 0.5f;
      return;
   }
   *s = 0.5f * (sc / ma + 1.0f);
   *t = 0.5f * (tc / ma + 1.0f);
}

void
hw_tex_cube_face_deriv(const float d[3], const float dd[3], float *ds, float *dt)
{
   /* The same face choice as hw_tex_cube_face; sc, tc and ma are signed
    * picks of the direction's components, so their derivatives are the
    * same picks of dd.  With s = (sc / ma + 1) / 2:
    * ds = (dsc * ma - sc * dma) / (2 * ma^2) (GL 4.6, 8.13.1). */
   float ax = fabsf(d[0]), ay = fabsf(d[1]), az = fabsf(d[2]);
   float sc, tc, ma, dsc, dtc, dma;
   if (az >= ax && az >= ay) {
      float sg = d[2] >= 0 ? 1.0f : -1.0f;
      ma = az, dma = sg * dd[2];
      sc = sg * d[0], dsc = sg * dd[0];
      tc = -d[1], dtc = -dd[1];
   } else if (ay >= ax) {
      float sg = d[1] >= 0 ? 1.0f : -1.0f;
      ma = ay, dma = sg * dd[1];
      sc = d[0], dsc = dd[0];
      tc = sg * d[2], dtc = sg * dd[2];
   } else {
      float sg = d[0] >= 0 ? 1.0f : -1.0f;
      ma = ax, dma = sg * dd[0];
      sc = -sg * d[2], dsc = -sg * dd[2];
      tc = -d[1], dtc = -dd[1];
   }
   if (ma == 0) {
      *ds = *dt = 0;
      return;
   }
   float k = 0.5f / (ma * ma);
   *ds = (dsc * ma - sc * dma) * k;
   *dt = (dtc * ma - tc * dma) * k;
}

/* Integer texel index after the wrap mode; -1 selects the border. */
static int32_t
wrap_index(int64_t i, uint32_t n, unsigned mode)
{
   int64_t N = n;
   switch (mode) {
   case AGX_WRAP_REPEAT: {
      /* Power-of-two sizes (nearly every repeating texture): the mask is
       * the same non-negative remainder, without the division. */
      if (n && !(n & (n - 1)))
         return (int32_t)(i & (N - 1));
      int64_t r = i % N;
      return (int32_t)(r < 0 ? r + N : r);
   }
   case AGX_WRAP_MIRRORED_REPEAT: {
      int64_t r = i % (2 * N);
      if (r < 0)
         r += 2 * N;
      return (int32_t)(r >= N ? 2 * N - 1 - r : r);
   }
   case AGX_WRAP_MIRRORED_CLAMP_TO_EDGE:
      if (i < 0)
         i = -1 - i;
      return (int32_t)(i >= N ? N - 1 : i);
   case AGX_WRAP_CLAMP_TO_BORDER:
   case AGX_WRAP_CLAMP_GL:
      return (i < 0 || i >= N) ? -1 : (int32_t)i;
   default: /* clamp to edge */
      return (int32_t)(i < 0 ? 0 : (i >= N ? N - 1 : i));
   }
}

/*
 * A custom border holds the colour as the texture's format stores it, one
 * 32-bit word a component in memory order (the texture swizzle applies
 * afterwards, as to texels; Mesa's agx_pack_border writes the same):
 * unorm and snorm at the component's width, sRGB colour components as
 * 12-bit unorm of the linear value (borders are not sRGB-decoded), floats
 * as fp32 for 32-bit components and fp16 otherwise, integers as they are.
 * Components the format lacks read 0, alpha 1, as texels do.
 */
static void
custom_border(const struct hw_tex_format *f, const uint32_t raw[4], union hw_texel *out)
{
   for (unsigned c = 0; c < 4; c++) {
      if (c >= f->comps || (c == 3 && !f->has_alpha)) {
         out->u[c] = c == 3 ? hw_tex_one(f) : 0;
         continue;
      }
      if (f->cls != HW_TEX_CLASS_FLOAT) {
         out->u[c] = raw[c];
         continue;
      }
      unsigned bits = f->bits[c];
      switch (f->type) {
      case AGX_TEXTURE_TYPE_UNORM: {
         unsigned b = f->srgb && c < 3 ? 12 : bits;
         out->f[c] = hw_tex_unorm_to_float(raw[c] & ((1u << b) - 1), b);
         break;
      }
      case AGX_TEXTURE_TYPE_SNORM:
         out->f[c] = hw_tex_snorm_to_float(raw[c] & ((1u << bits) - 1), bits);
         break;
      default:
         if (bits == 32)
            out->u[c] = raw[c];
         else
            out->f[c] = hw_tex_half_to_float((uint16_t)raw[c]);
         break;
      }
   }
}

static void
border_texel(const struct hw_tex_view *v, const struct hw_tex_sampler *s,
             union hw_texel *out)
{
   uint32_t one = hw_tex_one(&v->fmt);
   switch (s->border) {
   case AGX_BORDER_COLOUR_OPAQUE_BLACK:
      out->u[0] = out->u[1] = out->u[2] = 0;
      out->u[3] = one;
      break;
   case AGX_BORDER_COLOUR_OPAQUE_WHITE:
      out->u[0] = out->u[1] = out->u[2] = out->u[3] = one;
      break;
   case AGX_BORDER_COLOUR_CUSTOM:
      custom_border(&v->fmt, s->border_raw, out);
      break;
   default:
      memset(out, 0, sizeof(*out));
      break;
   }
}

static enum hw_tex_status
read_texel(struct hw_mmu *mmu, const struct hw_tex_view *v, uint32_t x, uint32_t y,
           uint32_t layer, unsigned level, uint32_t sample, union hw_texel *out)
{
   uint8_t buf[16];
   if (v->fmt.packing == HW_TEX_PACK_BLOCK) {
      /* The layout's elements are blocks: read the texel's whole block. */
      unsigned bw = v->fmt.block_w, bh = v->fmt.block_h;
      uint64_t off = hw_tex_offset(&v->layout, x / bw, y / bh, layer, level);
      if (!hw_mmu_read(mmu, v->base + off, buf, v->fmt.bytes))
         return HW_TEX_FAULT;
      hw_tex_unpack_block(&v->fmt, buf, x % bw, y % bh, out);
      return HW_TEX_OK;
   }
   uint64_t off = hw_tex_offset(&v->layout, x, y, layer, level) +
                  (uint64_t)sample * v->fmt.bytes;
   /* A texel mapped as one range (always, unless it straddles pages) is
    * copied with a fixed-size copy instead of hw_mmu_read's libc call;
    * otherwise hw_mmu_read does what it always does (soft faults read
    * zeros, hard ones fail; the mapping attempt recorded the same first
    * fault at the same address). */
   const uint8_t *p = v->fmt.bytes - 1u < sizeof(buf)
                      ? hw_mmu_map_read(mmu, v->base + off, v->fmt.bytes) : NULL;
   if (p) {
      switch (v->fmt.bytes) {
      case 1: buf[0] = p[0]; break;
      case 2: memcpy(buf, p, 2); break;
      case 4: memcpy(buf, p, 4); break;
      case 8: memcpy(buf, p, 8); break;
      case 16: memcpy(buf, p, 16); break;
      default: memcpy(buf, p, v->fmt.bytes); break;
      }
   } else if (!hw_mmu_read(mmu, v->base + off, buf, v->fmt.bytes)) {
      return HW_TEX_FAULT;
   }
   hw_tex_unpack(&v->fmt, buf, out);
   return HW_TEX_OK;
}

static void
apply_swizzle(const struct hw_tex_view *v, const union hw_texel *raw, union hw_texel *out,
              bool compare)
{
   /* A compare result is a float whatever the texture's class. */
   uint32_t one = compare ? 0x3f800000u : hw_tex_one(&v->fmt);
   for (unsigned c = 0; c < 4; c++) {
      unsigned sw = v->swizzle[c];
      out->u[c] = sw <= AGX_CHANNEL_A ? raw->u[sw] : (sw == AGX_CHANNEL_1 ? one : 0);
   }
}

static bool
compare_pass(unsigned func, float ref, float texel)
{
   switch (func) {
   case AGX_COMPARE_FUNC_LEQUAL: return ref <= texel;
   case AGX_COMPARE_FUNC_GEQUAL: return ref >= texel;
   case AGX_COMPARE_FUNC_LESS: return ref < texel;
   case AGX_COMPARE_FUNC_GREATER: return ref > texel;
   case AGX_COMPARE_FUNC_EQUAL: return ref == texel;
   case AGX_COMPARE_FUNC_NOT_EQUAL: return ref != texel;
   case AGX_COMPARE_FUNC_ALWAYS: return true;
   default: return false;
   }
}

void
hw_tex_compute_lambda(const struct hw_tex_view *v, const struct hw_tex_sampler *s,
                      const struct hw_tex_lod *lod, float *clamped, float *unclamped)
{
   float lam;
   if (lod->mode == HW_TEX_LOD_EXPLICIT) {
      lam = lod->lod;
   } else {
      uint32_t size[3];
      level_size(v, v->first_level, size);
      unsigned axes = is_cube(v) ? 2 : view_axes(v);
      float sx = 0, sy = 0;
      for (unsigned a = 0; a < axes; a++) {
         float scale = s->pixel_coords ? 1.0f : (float)size[a];
         float dx = lod->ddx[a] * scale, dy = lod->ddy[a] * scale;
         sx += dx * dx;
         sy += dy * dy;
      }
      float rho = sqrtf(sx > sy ? sx : sy);
      lam = log2f(rho) + lod->bias;
   }
   if (isnan(lam))
      lam = 0;
   *unclamped = lam;
   float lo = s->min_lod;
   if (lod->min_lod > lo)
      lo = lod->min_lod;
   if (lam < lo)
      lam = lo;
   if (lam > s->max_lod)
      lam = s->max_lod;
   *clamped = lam;
}

/*
 * Fraction bits of the bilinear weights and of the mip-level blend factor.
 * The G13's are not published; Mesa's asahi Vulkan driver (Honeykrisp,
 * hk_physical_device.c) reports subTexelPrecisionBits = 8 and
 * mipmapPrecisionBits = 8 for it, the precision the model uses.  llvmpipe
 * also filters 8-bit textures with 8-bit weights (lp_bld_sample_aos.c:
 * coordinates times 256, rounded to nearest).
 */
#define HW_TEX_WEIGHT_BITS 8
#define HW_TEX_WEIGHT_ONE (1 << HW_TEX_WEIGHT_BITS)

/* A blend factor in [0, 1] rounded to the weight precision. */
static float
quantize_weight(float f)
{
   return roundf(f * (float)HW_TEX_WEIGHT_ONE) / (float)HW_TEX_WEIGHT_ONE;
}

struct footprint {
   /* per axis: two texel indices (-1 = border) and the weight of the 2nd */
   int32_t idx[3][2];
   float frac[3];
   /* Seamless cube filtering: idx are unwrapped (-1 and n are the texels
    * past the face's edges, found on the adjacent face); n = face size. */
   bool seamless;
   uint32_t n;
};

/*
 * Texel (x, y) of cube face `face` (n x n texels), one texel past an edge
 * or a corner: the texel of the adjacent face that the direction through
 * its centre hits (hw_tex_cube_face's projection inverted, then applied
 * again). Past an edge that is exactly the neighbouring face's edge texel
 * in the same row or column; past a corner (undefined in GL) one of the
 * texels meeting there.
 */
static void
cube_neighbour(unsigned face, int32_t x, int32_t y, uint32_t n, unsigned *face_out,
               int32_t *x_out, int32_t *y_out)
{
   float sc = 2.0f * ((float)x + 0.5f) / (float)n - 1.0f;
   float tc = 2.0f * ((float)y + 0.5f) / (float)n - 1.0f;
   float d[3];
   switch (face) {
   case 0: d[0] = 1; d[1] = -tc; d[2] = -sc; break;
   case 1: d[0] = -1; d[1] = -tc; d[2] = sc; break;
   case 2: d[0] = sc; d[1] = 1; d[2] = tc; break;
   case 3: d[0] = sc; d[1] = -1; d[2] = -tc; break;
   case 4: d[0] = sc; d[1] = -tc; d[2] = 1; break;
   default: d[0] = -sc; d[1] = -tc; d[2] = -1; break;
   }
   float s, t;
   hw_tex_cube_face(d, &s, &t, face_out);
   int64_t i = (int64_t)floorf(s * (float)n), j = (int64_t)floorf(t * (float)n);
   *x_out = (int32_t)(i < 0 ? 0 : i >= n ? n - 1 : i);
   *y_out = (int32_t)(j < 0 ? 0 : j >= n ? n - 1 : j);
}

/*
 * floorf(u) clamped to [-1e9, 1e9] (NaN: 1e9, as fminf/fmaxf give), as an
 * integer, in integer arithmetic: the libm calls were a visible share of
 * per-lane sampling (x86-64 without SSE4.1 does not inline floorf).
 * Truncation is exact (|u| < 1e9 < 2^63; floats past 2^23 are integers)
 * and steps down once for negative non-integers.
 */
static int64_t
floor_clamped(float u)
{
   if (!(u < 1e9f))
      return 1000000000;
   if (!(u > -1e9f))
      return -1000000000;
   int64_t t = (int64_t)u;
   return (double)t > (double)u ? t - 1 : t;
}

/* floor(v) as an integer for a finite v with |v| < 2^62 (the caller
 * clamps it). */
static int64_t
floor_int(double v)
{
   int64_t t = (int64_t)v;
   return (double)t > v ? t - 1 : t;
}

/* Texel-space coordinate along axis a of a level `n` texels long, before
 * any clamping: pixel coordinates as they are, normalized ones scaled. */
static float
texel_coord(const struct hw_tex_sampler *s, float coord, uint32_t n)
{
   return s->pixel_coords ? coord : coord * (float)n;
}

/* Nearest filtering's texel index along one axis (-1 = border) for
 * texel-space u with the offset added.  GL clamp with nearest filtering
 * clamps the index to [0, n - 1] (GL compatibility spec, table 8.20, on
 * the offset coordinate): u >= n (s >= 1) reads the edge texel, never the
 * border, and an offset pointing back into the texture from outside it
 * moves off the edge only once u + offset is inside. */
static int32_t
nearest_index(float u, uint32_t n, unsigned mode)
{
   int64_t i0 = floor_clamped(u);
   unsigned m = mode == AGX_WRAP_CLAMP_GL ? AGX_WRAP_CLAMP_TO_EDGE : mode;
   return wrap_index(i0, n, m);
}

/* Texel indices and weights along each axis for one level. */
static void
make_footprint(const struct hw_tex_view *v, const struct hw_tex_sampler *s,
               const float coord[3], const int8_t offset[3], unsigned axes,
               unsigned level, bool linear, struct footprint *fp)
{
   uint32_t size[3];
   level_size(v, level, size);
   /* Seamless cube maps (the sampler's Seamful Cube Maps clear): a linear
    * footprint crossing a face edge takes its texels from the adjacent
    * face (footprint_texel). */
   fp->seamless = is_cube(v) && !s->seamful && linear;
   fp->n = size[0];
   for (unsigned a = 0; a < 3; a++) {
      if (a >= axes) {
         fp->idx[a][0] = fp->idx[a][1] = 0;
         fp->frac[a] = 0;
         continue;
      }
      /* Cube faces ignore the wrap modes: a seamful one clamps at its
       * edges, a seamless one reads past them (below). */
      unsigned mode = is_cube(v) ? AGX_WRAP_CLAMP_TO_EDGE : s->wrap[a];
      float u = texel_coord(s, coord[a], size[a]);
      /* GL clamp: linear filtering clamps the coordinate to [0, n] before
       * the texel offset (so the edge texels blend at most half with the
       * border); nearest filtering clamps only the texel index, after the
       * offset (below), like clamp to edge. */
      if (mode == AGX_WRAP_CLAMP_GL && linear)
         u = fminf(fmaxf(u, 0.0f), (float)size[a]);
      u += (float)offset[a];
      if (linear) {
         /* u - 1/2 in fixed point with HW_TEX_WEIGHT_BITS fraction bits,
          * rounded to nearest: the integer part picks the texels, the
          * fraction is the second texel's weight. */
         /* fmin(fmax(u - 0.5, -1e9), 1e9) (NaN: -1e9) without libm */
         double ud = (double)u - 0.5;
         ud = ud > -1e9 ? ud : -1e9;
         ud = ud < 1e9 ? ud : 1e9;
         int64_t fx = floor_int(ud * HW_TEX_WEIGHT_ONE + 0.5);
         int64_t fr = ((fx % HW_TEX_WEIGHT_ONE) + HW_TEX_WEIGHT_ONE) % HW_TEX_WEIGHT_ONE;
         int64_t i0 = (fx - fr) / HW_TEX_WEIGHT_ONE;
         fp->frac[a] = (float)fr / (float)HW_TEX_WEIGHT_ONE;
         if (fp->seamless && size[a] > 0) {
            /* u is in [-0.5, n - 0.5]: i0 is -1..n-1, i0 + 1 is 0..n */
            int64_t n = size[a];
            fp->idx[a][0] = (int32_t)(i0 < -1 ? -1 : i0 > n ? n : i0);
            fp->idx[a][1] = (int32_t)(i0 + 1 < -1 ? -1 : i0 + 1 > n ? n : i0 + 1);
         } else {
            fp->idx[a][0] = wrap_index(i0, size[a], mode);
            fp->idx[a][1] = wrap_index(i0 + 1, size[a], mode);
         }
      } else {
         fp->idx[a][0] = fp->idx[a][1] = nearest_index(u, size[a], mode);
         fp->frac[a] = 0;
      }
   }
}

/* Texel (x, y, z) of `layer` (raw, unswizzled; compare applied); a
 * negative index reads the border. */
static enum hw_tex_status
texel_at(struct hw_mmu *mmu, const struct hw_tex_view *v, const struct hw_tex_sampler *s,
         int32_t x, int32_t y, int32_t z, uint32_t layer, unsigned level,
         const struct hw_tex_sample_req *req, float ref, union hw_texel *t)
{
   if (x < 0 || y < 0 || z < 0) {
      border_texel(v, s, t);
   } else {
      uint32_t lay = v->dim == AGX_TEXTURE_DIMENSION_3D ? (uint32_t)z : layer;
      enum hw_tex_status st = read_texel(mmu, v, (uint32_t)x, (uint32_t)y, lay, level, 0, t);
      if (st != HW_TEX_OK)
         return st;
   }
   if (req->compare) {
      float r = compare_pass(s->compare, ref, t->f[0]) ? 1.0f : 0.0f;
      t->f[0] = t->f[1] = t->f[2] = t->f[3] = r;
   }
   return HW_TEX_OK;
}

/* One texel of the footprint (raw, unswizzled; compare applied). */
static enum hw_tex_status
footprint_texel(struct hw_mmu *mmu, const struct hw_tex_view *v,
                const struct hw_tex_sampler *s, const struct footprint *fp,
                unsigned ix, unsigned iy, unsigned iz, uint32_t layer, unsigned level,
                const struct hw_tex_sample_req *req, float ref, union hw_texel *t)
{
   int32_t x = fp->idx[0][ix], y = fp->idx[1][iy], z = fp->idx[2][iz];
   if (fp->seamless &&
       (x < 0 || y < 0 || (uint32_t)x >= fp->n || (uint32_t)y >= fp->n)) {
      unsigned face = layer % 6, nface;
      cube_neighbour(face, x, y, fp->n, &nface, &x, &y);
      layer = layer - face + nface;
   }
   return texel_at(mmu, v, s, x, y, z, layer, level, req, ref, t);
}

/*
 * Fast paths.  Nearly every sampled texel is an 8-bit unorm (RGBA8,
 * BGRA8 through the swizzle, R8, RG8; sRGB or not) in a twiddled or
 * linear image, filtered nearest or bilinear away from the border.  For
 * those, filter_level resolves the level's addressing once per call
 * (struct level_addr) and decodes with hw_tex_unpack's tables, instead of
 * going through footprint_texel / texel_at / read_texel / hw_tex_offset /
 * hw_tex_unpack per texel.  The general path stays the reference: the
 * fast paths make the same memory calls in the same order, compute the
 * same offsets and decode to the same bits, and accumulate with the same
 * weights in the same order; test_hw_tex_sample compares the two with
 * hw_tex_sample_fast_paths cleared.
 */
bool hw_tex_sample_fast_paths = true;

/* Byte address of texel (x, y) of one level of one layer:
 * base + xoff(x) + yoff(y).  Twiddled: tile (tx, ty) and Morton index
 * m = spread(x) | spread(y) << 1 (disjoint bits, so a sum) give
 * ((ty * tiles_per_row + tx) * tw * th + m) * block, which splits into an
 * x part and a y part; linear: x * block + y * row_stride. */
struct level_addr {
   uint64_t base;
   bool twiddled;
   unsigned sx, sy;          /* log2 of the tile size */
   uint32_t mx, my;          /* tile size - 1 */
   uint64_t tile_bytes;      /* twiddled: bytes of one tile */
   uint64_t row_bytes;       /* twiddled: a row of tiles; linear: row_stride */
   uint32_t block;
};

/* Whether the fast paths read v: 8-bit unorm components, byte arrays,
 * one sample, power-of-two tiles (the layouts Mesa and the model build;
 * hw_tex_offset divides otherwise). */
static bool
fast_view(const struct hw_tex_view *v)
{
   return hw_tex_sample_fast_paths && v->fmt.packing == HW_TEX_PACK_ARRAY &&
          v->fmt.bits[0] == 8 && v->fmt.type == AGX_TEXTURE_TYPE_UNORM && v->samples == 1;
}

static inline __attribute__((always_inline)) bool
level_addr_init(const struct hw_tex_view *v, uint32_t layer, unsigned level,
                struct level_addr *la)
{
   const struct hw_tex_layout *l = &v->layout;
   const struct hw_tex_level *lv = &l->level[level];
   la->base = v->base + ((uint64_t)layer * l->layer_stride + lv->offset);
   la->twiddled = l->twiddled;
   la->block = l->block_bytes;
   if (!l->twiddled) {
      la->row_bytes = l->row_stride;
      la->sx = la->sy = 0;
      la->mx = la->my = 0;
      la->tile_bytes = 0;
      return true;
   }
   unsigned tw = lv->tile_w, th = lv->tile_h;
   if (!tw || !th || (tw & (tw - 1)) || (th & (th - 1)))
      return false;
   la->sx = (unsigned)__builtin_ctz(tw);
   la->sy = (unsigned)__builtin_ctz(th);
   la->mx = tw - 1;
   la->my = th - 1;
   la->tile_bytes = (uint64_t)tw * th * l->block_bytes;
   la->row_bytes = (uint64_t)lv->tiles_per_row * la->tile_bytes;
   return true;
}

static inline __attribute__((always_inline)) uint64_t
addr_x(const struct level_addr *la, uint32_t x)
{
   if (!la->twiddled)
      return (uint64_t)x * la->block;
   return (uint64_t)(x >> la->sx) * la->tile_bytes +
          (uint64_t)hw_tex_spread16(x & la->mx) * la->block;
}

static inline __attribute__((always_inline)) uint64_t
addr_y(const struct level_addr *la, uint32_t y)
{
   if (!la->twiddled)
      return (uint64_t)y * la->row_bytes;
   return (uint64_t)(y >> la->sy) * la->row_bytes +
          (uint64_t)(hw_tex_spread16(y & la->my) << 1) * la->block;
}

/* hw_tex_unorm8_tables, looked up once per process: its pthread_once was
 * a libc call per sampled lane.  The pointers are published with release
 * after the call returned (tables filled), read with acquire. */
static _Atomic(const float *) fast_unorm8, fast_srgb8;

static inline __attribute__((always_inline)) void
fast_tables(const float **unorm, const float **srgb)
{
   *unorm = atomic_load_explicit(&fast_unorm8, memory_order_acquire);
   *srgb = atomic_load_explicit(&fast_srgb8, memory_order_acquire);
   if (*unorm && *srgb)
      return;
   hw_tex_unorm8_tables(unorm, srgb);
   atomic_store_explicit(&fast_srgb8, *srgb, memory_order_release);
   atomic_store_explicit(&fast_unorm8, *unorm, memory_order_release);
}

/* read_texel's memory access for a fast_view texel at address a: the
 * same mapping attempt and fallback copy into buf; NULL after a hard
 * fault. */
static inline __attribute__((always_inline)) const uint8_t *
fast_map(struct hw_mmu *mmu, const struct hw_tex_format *f, uint64_t a, uint8_t buf[4])
{
   const uint8_t *p = hw_mmu_map_read(mmu, a, f->bytes);
   if (p)
      return p;
   return hw_mmu_read(mmu, a, buf, f->bytes) ? buf : NULL;
}

/* hw_tex_unpack of a fast_view texel, with its tables. */
static inline __attribute__((always_inline)) void
fast_decode(const struct hw_tex_format *f, const float *unorm, const float *srgb,
            const uint8_t *p, float out[4])
{
   if (f->comps == 4 && !f->srgb) {
      out[0] = unorm[p[0]];
      out[1] = unorm[p[1]];
      out[2] = unorm[p[2]];
      out[3] = unorm[p[3]];
      return;
   }
   out[0] = out[1] = out[2] = 0.0f;
   out[3] = 1.0f;
   for (unsigned c = 0; c < f->comps; c++)
      out[c] = f->srgb && c < 3 ? srgb[p[c]] : unorm[p[c]];
}

/* Filters one level: nearest or (bi/tri)linear over the footprint. */
static enum hw_tex_status
filter_level(struct hw_mmu *mmu, const struct hw_tex_view *v,
             const struct hw_tex_sampler *s, const struct hw_tex_sample_req *req,
             const float coord[3], const struct hw_tex_coord *c, uint32_t layer,
             unsigned axes, unsigned level, bool linear, union hw_texel *out)
{
   /* Integer texels cannot be blended: they always filter as nearest. */
   if (v->fmt.cls != HW_TEX_CLASS_FLOAT && !req->compare)
      linear = false;
   if (!linear) {
      /* Nearest: one texel, its indices straight from the coordinates
       * (make_footprint's nearest branch, without the footprint; nearest
       * cube filtering never crosses a face, so no seamless fix-up). */
      int32_t idx[3] = { 0, 0, 0 };
      for (unsigned a = 0; a < axes; a++) {
         uint32_t n = a == 0 ? v->layout.level[level].width
                    : a == 1 ? v->layout.level[level].height
                             : (v->dim == AGX_TEXTURE_DIMENSION_3D ? minify(v->layers, level) : 1);
         unsigned mode = is_cube(v) ? AGX_WRAP_CLAMP_TO_EDGE : s->wrap[a];
         float u = texel_coord(s, coord[a], n) + (float)c->offset[a];
         idx[a] = nearest_index(u, n, mode);
      }
      struct level_addr la;
      if (axes <= 2 && !req->compare && idx[0] >= 0 && idx[1] >= 0 && fast_view(v) &&
          level_addr_init(v, layer, level, &la)) {
         const float *unorm, *srgb;
         fast_tables(&unorm, &srgb);
         uint8_t buf[4];
         const uint8_t *p = fast_map(mmu, &v->fmt,
                                     la.base + addr_x(&la, (uint32_t)idx[0]) +
                                        addr_y(&la, (uint32_t)idx[1]),
                                     buf);
         if (!p)
            return HW_TEX_FAULT;
         fast_decode(&v->fmt, unorm, srgb, p, out->f);
         return HW_TEX_OK;
      }
      return texel_at(mmu, v, s, idx[0], idx[1], idx[2], layer, level, req, c->ref, out);
   }
   struct footprint fp;
   make_footprint(v, s, coord, c->offset, axes, level, linear, &fp);
   struct level_addr la;
   if (axes == 2 && !req->compare && !fp.seamless && fp.idx[0][0] >= 0 &&
       fp.idx[0][1] >= 0 && fp.idx[1][0] >= 0 && fp.idx[1][1] >= 0 && fast_view(v) &&
       level_addr_init(v, layer, level, &la)) {
      /* Bilinear inside the level: the loop below without the border and
       * seam cases; texels and weights in its order. */
      const float *unorm, *srgb;
      fast_tables(&unorm, &srgb);
      uint64_t ax[2] = { addr_x(&la, (uint32_t)fp.idx[0][0]), addr_x(&la, (uint32_t)fp.idx[0][1]) };
      uint64_t ay[2] = { addr_y(&la, (uint32_t)fp.idx[1][0]), addr_y(&la, (uint32_t)fp.idx[1][1]) };
      /* All four mapped first (in the loop's order, stopping at a fault
       * as it does), then decoded: the loads overlap. */
      uint8_t buf[4][4];
      const uint8_t *p[4];
      for (unsigned i = 0; i < 4; i++) {
         p[i] = fast_map(mmu, &v->fmt, la.base + ax[i & 1] + ay[i >> 1], buf[i]);
         if (!p[i])
            return HW_TEX_FAULT;
      }
      float acc[4] = { 0, 0, 0, 0 };
      for (unsigned iy = 0; iy < 2; iy++)
         for (unsigned ix = 0; ix < 2; ix++) {
            float w = (ix ? fp.frac[0] : 1.0f - fp.frac[0]);
            w *= (iy ? fp.frac[1] : 1.0f - fp.frac[1]);
            float t[4];
            fast_decode(&v->fmt, unorm, srgb, p[iy * 2 + ix], t);
            for (unsigned k = 0; k < 4; k++)
               acc[k] += w * t[k];
         }
      memcpy(out->f, acc, sizeof(acc));
      return HW_TEX_OK;
   }
   float acc[4] = { 0, 0, 0, 0 };
   unsigned nz = axes > 2 ? 2 : 1, ny = axes > 1 ? 2 : 1;
   for (unsigned iz = 0; iz < nz; iz++)
      for (unsigned iy = 0; iy < ny; iy++)
         for (unsigned ix = 0; ix < 2; ix++) {
            float w = (ix ? fp.frac[0] : 1.0f - fp.frac[0]);
            if (axes > 1)
               w *= (iy ? fp.frac[1] : 1.0f - fp.frac[1]);
            if (axes > 2)
               w *= (iz ? fp.frac[2] : 1.0f - fp.frac[2]);
            union hw_texel t;
            enum hw_tex_status st =
               footprint_texel(mmu, v, s, &fp, ix, iy, iz, layer, level, req, c->ref, &t);
            if (st != HW_TEX_OK)
               return st;
            for (unsigned k = 0; k < 4; k++)
               acc[k] += w * t.f[k];
         }
   memcpy(out->f, acc, sizeof(acc));
   return HW_TEX_OK;
}

enum hw_tex_status
hw_tex_sample(struct hw_mmu *mmu, const struct hw_tex_view *v,
              const struct hw_tex_sampler *s, const struct hw_tex_sample_req *req,
              const struct hw_tex_coord *c, const struct hw_tex_lod *lod,
              union hw_texel *out)
{
   return hw_tex_sample_lambda(mmu, v, s, req, c, lod, NULL, out);
}

enum hw_tex_status
hw_tex_sample_lambda(struct hw_mmu *mmu, const struct hw_tex_view *v,
                     const struct hw_tex_sampler *s, const struct hw_tex_sample_req *req,
                     const struct hw_tex_coord *c, const struct hw_tex_lod *lod,
                     struct hw_tex_lambda *shared, union hw_texel *out)
{
   if (v->null) {
      memset(out, 0, sizeof(*out));
      return HW_TEX_OK;
   }
   if (v->samples > 1)
      return HW_TEX_BAD_ARGS;     /* multisampled images are load-only */

   /* Depth references compare in the texture's range: unorm depth clamps
    * the reference to [0, 1] first, as GL and Vulkan require. */
   struct hw_tex_coord cc = *c;
   if (req->compare && v->fmt.type == AGX_TEXTURE_TYPE_UNORM)
      cc.ref = fminf(fmaxf(cc.ref, 0.0f), 1.0f);
   c = &cc;
   float coord[3] = { c->s, c->t, c->r };
   uint32_t layer = 0;
   unsigned axes = view_axes(v);
   if (is_cube(v)) {
      unsigned face;
      hw_tex_cube_face(coord, &coord[0], &coord[1], &face);
      coord[2] = 0;
      uint32_t cubes = v->layers / 6;
      uint32_t cube = v->dim == AGX_TEXTURE_DIMENSION_CUBE_ARRAY ? c->layer : 0;
      if (cube >= cubes)
         cube = cubes - 1;
      layer = cube * 6 + face;
   } else if (v->dim != AGX_TEXTURE_DIMENSION_3D) {
      layer = c->layer < v->layers ? c->layer : v->layers - 1;
   }

   /* A plain sample whose sampler filters minification and magnification
    * alike without mipmaps reads the same texels whatever lambda is:
    * skip computing it (the log2 per quad). */
   bool lam_used = req->op != HW_TEX_OP_SAMPLE || s->mip != AGX_MIP_FILTER_NONE ||
                   (s->min != AGX_FILTER_NEAREST) != (s->mag != AGX_FILTER_NEAREST);
   float lam = 0, unclamped = 0;
   if (!lam_used) {
      /* lambda stays 0: only minifying (lam > 0) reads it below, and both
       * filters are the same class */
   } else if (shared && shared->valid) {
      lam = shared->clamped;
      unclamped = shared->unclamped;
   } else {
      hw_tex_compute_lambda(v, s, lod, &lam, &unclamped);
      if (shared) {
         shared->clamped = lam;
         shared->unclamped = unclamped;
         shared->valid = true;
      }
   }
   if (req->op == HW_TEX_OP_QUERY_LOD) {
      memset(out, 0, sizeof(*out));
      out->f[0] = lam;
      out->f[1] = unclamped;
      return HW_TEX_OK;
   }

   union hw_texel raw;
   enum hw_tex_status st;
   if (req->op == HW_TEX_OP_GATHER) {
      /* Gather reads the 2x2 bilinear footprint of the base level. */
      struct footprint fp;
      make_footprint(v, s, coord, c->offset, axes < 2 ? axes : 2, v->first_level, true, &fp);
      static const uint8_t order[4][2] = { { 0, 1 }, { 1, 1 }, { 1, 0 }, { 0, 0 } };
      unsigned comp = req->gather_comp & 3;
      for (unsigned k = 0; k < 4; k++) {
         union hw_texel t, sw;
         st = footprint_texel(mmu, v, s, &fp, order[k][0], order[k][1], 0, layer,
                              v->first_level, req, c->ref, &t);
         if (st != HW_TEX_OK)
            return st;
         apply_swizzle(v, &t, &sw, req->compare);
         out->u[k] = sw.u[comp];
      }
      return HW_TEX_OK;
   }

   bool minifying = lam > 0;
   bool linear = (minifying ? s->min : s->mag) != AGX_FILTER_NEAREST;
   unsigned first = v->first_level, last = v->last_level;
   if (s->mip == AGX_MIP_FILTER_NONE || !minifying) {
      st = filter_level(mmu, v, s, req, coord, c, layer, axes, first, linear, &raw);
   } else if (s->mip == AGX_MIP_FILTER_NEAREST) {
      /* GL's rule: round lambda to the nearest level, halves go down. */
      unsigned d = lam <= 0.5f ? 0 : (unsigned)(ceilf(lam + 0.5f) - 1.0f);
      unsigned level = first + d > last ? last : first + d;
      st = filter_level(mmu, v, s, req, coord, c, layer, axes, level, linear, &raw);
   } else {
      unsigned d = (unsigned)floorf(lam);
      /* The level blend factor has the weights' precision too; a factor
       * that rounds to 1 reads the next level only. */
      float f = quantize_weight(lam - floorf(lam));
      unsigned l0 = first + d > last ? last : first + d;
      unsigned l1 = l0 + 1 > last ? last : l0 + 1;
      st = filter_level(mmu, v, s, req, coord, c, layer, axes, l0, linear, &raw);
      if (st == HW_TEX_OK && l1 != l0 && f > 0 &&
          (v->fmt.cls == HW_TEX_CLASS_FLOAT || req->compare)) {
         union hw_texel b;
         st = filter_level(mmu, v, s, req, coord, c, layer, axes, l1, linear, &b);
         for (unsigned k = 0; k < 4; k++)
            raw.f[k] = (1.0f - f) * raw.f[k] + f * b.f[k];
      }
   }
   if (st != HW_TEX_OK)
      return st;
   /* The descriptor's swizzle applies to compare results too: Mesa's asahi
    * driver puts GL's DEPTH_TEXTURE_MODE and ARB_texture_swizzle (composed
    * with a broadcast of R) only there and emits nothing for them in the
    * shader, so luminance reads (c, c, c, 1), red (c, 0, 0, 1), alpha
    * (0, 0, 0, c). */
   apply_swizzle(v, &raw, out, req->compare);
   return HW_TEX_OK;
}

enum hw_tex_status
hw_tex_load(struct hw_mmu *mmu, const struct hw_tex_view *v, int32_t x, int32_t y,
            int32_t z, uint32_t level, uint32_t sample, union hw_texel *out)
{
   memset(out, 0, sizeof(*out));
   if (v->null)
      return HW_TEX_OK;
   uint32_t l = v->first_level + level;
   if (level > 15 || l > v->last_level || sample >= v->samples)
      return HW_TEX_OK;
   uint32_t size[3];
   level_size(v, l, size);
   uint32_t depth = v->dim == AGX_TEXTURE_DIMENSION_3D ? size[2] : v->layers;
   if (x < 0 || y < 0 || z < 0 || (uint32_t)x >= size[0] || (uint32_t)y >= size[1] ||
       (uint32_t)z >= depth)
      return HW_TEX_OK;
   union hw_texel raw;
   struct level_addr la;
   if (fast_view(v) && level_addr_init(v, (uint32_t)z, l, &la)) {
      /* read_texel's access and decode (sample is 0: fast views have one) */
      const float *unorm, *srgb;
      fast_tables(&unorm, &srgb);
      uint8_t buf[4];
      const uint8_t *p = fast_map(mmu, &v->fmt,
                                  la.base + addr_x(&la, (uint32_t)x) + addr_y(&la, (uint32_t)y),
                                  buf);
      if (!p)
         return HW_TEX_FAULT;
      fast_decode(&v->fmt, unorm, srgb, p, raw.f);
   } else {
      enum hw_tex_status st = read_texel(mmu, v, (uint32_t)x, (uint32_t)y, (uint32_t)z, l,
                                         sample, &raw);
      if (st != HW_TEX_OK)
         return st;
   }
   apply_swizzle(v, &raw, out, false);
   return HW_TEX_OK;
}

enum hw_tex_status
hw_tex_load_lanes(struct hw_mmu *mmu, const struct hw_tex_view *v, const int32_t x[32],
                  const int32_t y[32], int32_t z, uint32_t level, uint32_t mask,
                  union hw_texel out[32], uint32_t *loaded)
{
   *loaded = 0;
   uint32_t l = v->first_level + level;
   uint32_t size[3] = { 0, 0, 0 };
   struct level_addr la;
   /* hw_tex_load's checks that do not depend on the lane, once; anything
    * but an in-range fast view (null, bad level, layer out of range, a
    * format or layout fast_view does not take) goes lane by lane through
    * hw_tex_load itself. */
   bool fast = fast_view(v) && !v->null && level <= 15 && l <= v->last_level;
   if (fast) {
      level_size(v, l, size);
      uint32_t depth = v->dim == AGX_TEXTURE_DIMENSION_3D ? size[2] : v->layers;
      fast = z >= 0 && (uint32_t)z < depth && level_addr_init(v, (uint32_t)z, l, &la);
   }
   if (!fast) {
      for (uint32_t m = mask; m; m &= m - 1) {
         unsigned i = (unsigned)__builtin_ctz(m);
         enum hw_tex_status st = hw_tex_load(mmu, v, x[i], y[i], z, level, 0, &out[i]);
         if (st == HW_TEX_FAULT)
            return st;
         *loaded |= 1u << i;
      }
      return HW_TEX_OK;
   }
   const float *unorm, *srgb;
   fast_tables(&unorm, &srgb);
   for (uint32_t m = mask; m; m &= m - 1) {
      unsigned i = (unsigned)__builtin_ctz(m);
      if (x[i] < 0 || y[i] < 0 || (uint32_t)x[i] >= size[0] || (uint32_t)y[i] >= size[1]) {
         memset(&out[i], 0, sizeof(out[i]));
         *loaded |= 1u << i;
         continue;
      }
      uint8_t buf[4];
      const uint8_t *p = fast_map(mmu, &v->fmt,
                                  la.base + addr_x(&la, (uint32_t)x[i]) +
                                     addr_y(&la, (uint32_t)y[i]),
                                  buf);
      if (!p) {
         memset(&out[i], 0, sizeof(out[i]));
         return HW_TEX_FAULT;
      }
      union hw_texel raw;
      fast_decode(&v->fmt, unorm, srgb, p, raw.f);
      apply_swizzle(v, &raw, &out[i], false);
      *loaded |= 1u << i;
   }
   return HW_TEX_OK;
}

bool
hw_tex_sample_nearest_ok(const struct hw_tex_view *v, const struct hw_tex_sampler *s)
{
   /* hw_tex_sample_lambda: lam_used is false for exactly these samplers,
    * so filter_level's nearest branch at first_level is all it does. */
   return fast_view(v) && !v->null && v->dim == AGX_TEXTURE_DIMENSION_2D &&
          s->mip == AGX_MIP_FILTER_NONE && s->min == AGX_FILTER_NEAREST &&
          s->mag == AGX_FILTER_NEAREST;
}

enum hw_tex_status
hw_tex_sample_nearest_lanes(struct hw_mmu *mmu, const struct hw_tex_view *v,
                            const struct hw_tex_sampler *s, const struct hw_tex_coord c[32],
                            uint32_t mask, union hw_texel out[32], uint32_t *done)
{
   *done = 0;
   unsigned level = v->first_level;
   uint32_t n0 = v->layout.level[level].width, n1 = v->layout.level[level].height;
   /* Every lane of a 2D view reads one layer unless the lanes name
    * different ones: set up per distinct layer (the previous lane's). */
   uint32_t la_layer = 0;
   bool la_ok = false, la_valid = false;
   struct level_addr la = { 0 };
   const float *unorm, *srgb;
   fast_tables(&unorm, &srgb);
   /* fast_decode then apply_swizzle, composed once: output component k
    * is a table entry of texel byte src[k] (tab[k]), or a constant (the
    * 0 or 1 fast_decode fills in for a component the format lacks, the
    * swizzle's 0 or one). */
   const struct hw_tex_format *f = &v->fmt;
   const float *tab[4];
   unsigned src[4];
   uint32_t cst[4];
   for (unsigned k = 0; k < 4; k++) {
      unsigned sw = v->swizzle[k];
      tab[k] = NULL;
      src[k] = 0;
      if (sw > AGX_CHANNEL_A) {
         cst[k] = sw == AGX_CHANNEL_1 ? hw_tex_one(f) : 0;
      } else if (sw < f->comps) {
         tab[k] = f->srgb && sw < 3 ? srgb : unorm;
         src[k] = sw;
         cst[k] = 0;
      } else {
         float d = sw == 3 ? 1.0f : 0.0f;
         memcpy(&cst[k], &d, 4);
      }
   }
   for (uint32_t m = mask; m; m &= m - 1) {
      unsigned i = (unsigned)__builtin_ctz(m);
      uint32_t layer = c[i].layer < v->layers ? c[i].layer : v->layers - 1;
      /* filter_level's nearest indices: the offset is +0.0f there too
       * (it turns -0 into +0, which floors alike) */
      int32_t x = nearest_index(texel_coord(s, c[i].s, n0) + 0.0f, n0, s->wrap[0]);
      int32_t y = nearest_index(texel_coord(s, c[i].t, n1) + 0.0f, n1, s->wrap[1]);
      if (!la_valid || layer != la_layer) {
         la_ok = level_addr_init(v, layer, level, &la);
         la_layer = layer;
         la_valid = true;
      }
      if (x < 0 || y < 0 || !la_ok) {
         struct hw_tex_sample_req req = { .op = HW_TEX_OP_SAMPLE };
         struct hw_tex_lod lod = { .mode = HW_TEX_LOD_AUTO, .min_lod = -INFINITY };
         enum hw_tex_status st = hw_tex_sample_lambda(mmu, v, s, &req, &c[i], &lod, NULL, &out[i]);
         if (st != HW_TEX_OK)
            return st;
         *done |= 1u << i;
         continue;
      }
      uint8_t buf[4];
      const uint8_t *p = fast_map(mmu, &v->fmt, la.base + addr_x(&la, (uint32_t)x) +
                                                   addr_y(&la, (uint32_t)y), buf);
      if (!p)
         return HW_TEX_FAULT;
      for (unsigned k = 0; k < 4; k++) {
         if (tab[k])
            memcpy(&out[i].u[k], &tab[k][p[src[k]]], 4);
         else
            out[i].u[k] = cst[k];
      }
      *done |= 1u << i;
   }
   return HW_TEX_OK;
}

/* The byte st_tile stores for component c of a 32-bit register in a
 * tile format with one-byte components (hw_tex_reload_map_init's). */
static uint8_t
reload_store_byte(unsigned tile_fmt, unsigned c, uint32_t reg)
{
   uint8_t w[4] = { 0, 0, 0, 0 };
   hw_tex_tile_store_comp(tile_fmt, c, w, reg, false);
   return w[hw_tex_tile_fmt_packed(tile_fmt) ? c : 0];
}

bool
hw_tex_reload_map_init(struct hw_tex_reload_map *m, const struct hw_tex_view *v,
                       unsigned tile_fmt, uint32_t mask)
{
   /* hw_tex_load_lanes' fast-path conditions for level 0, layer 0; one
    * byte per component (srgba8 is packed: component c is byte c of the
    * word, as the other three store byte c of the sample's c-th slot). */
   unsigned l = v->first_level;
   struct level_addr la;
   if (!fast_view(v) || v->null || l > v->last_level || !mask || (mask & ~0xfu) ||
       v->fmt.bytes != v->fmt.comps || v->fmt.comps > 4 ||
       !(tile_fmt == 0 || tile_fmt == 4 || tile_fmt == 5 || tile_fmt == 10))
      return false;
   uint32_t size[3];
   level_size(v, l, size);
   uint32_t depth = v->dim == AGX_TEXTURE_DIMENSION_3D ? size[2] : v->layers;
   if (!depth || !level_addr_init(v, 0, l, &la))
      return false;
   memset(m, 0, sizeof(*m));
   m->mask = mask;
   m->width = size[0];
   m->height = size[1];
   m->perm = mask == 0xfu && v->fmt.comps == 4;
   for (unsigned c = 0; c < 4; c++) {
      m->src[c] = -1;
      if (!(mask >> c & 1))
         continue;
      /* hw_tex_unpack of an 8-bit unorm byte array reads component k from
       * byte k alone (sRGB or not) and gives missing ones their defaults;
       * apply_swizzle then picks one of those or a constant.  So a texel
       * with every byte b yields, in component c, what any texel whose
       * byte sw is b does. */
      unsigned sw = v->swizzle[c];
      bool var = sw <= AGX_CHANNEL_A && sw < v->fmt.comps;
      m->src[c] = var ? (int8_t)sw : -1;
      for (unsigned b = 0; b < (var ? 256u : 1u); b++) {
         const uint8_t t[4] = { (uint8_t)b, (uint8_t)b, (uint8_t)b, (uint8_t)b };
         union hw_texel raw, out;
         hw_tex_unpack(&v->fmt, t, &raw);
         apply_swizzle(v, &raw, &out, false);
         m->lut[c][b] = reload_store_byte(tile_fmt, c, out.u[c]);
         if (!var || m->lut[c][b] != b)
            m->perm = false;
      }
      /* hw_tex_load: a texel outside the level is all zeros, unswizzled */
      m->oob[c] = reload_store_byte(tile_fmt, c, 0);
   }
   m->copy = m->perm && m->src[0] == 0 && m->src[1] == 1 && m->src[2] == 2 && m->src[3] == 3;
   m->twiddled = la.twiddled;
   m->texel_bytes = v->fmt.bytes;
   m->sx = la.sx;
   m->sy = la.sy;
   m->mx = la.mx;
   m->my = la.my;
   m->base = la.base;
   m->row_bytes = la.row_bytes;
   m->tile_bytes = la.tile_bytes;
   return true;
}

/* One texel's bytes through the map (p: its bytes in memory). */
static inline __attribute__((always_inline)) void
reload_texel(const struct hw_tex_reload_map *m, const uint8_t *p, uint8_t *d)
{
   if (m->copy) {
      memcpy(d, p, 4);
      return;
   }
   if (m->perm) {
      /* BGRA8 render targets reloaded into RGBA tilebuffers (Mesa's
       * window formats): four byte moves, no tables */
      uint8_t b[4] = { p[m->src[0]], p[m->src[1]], p[m->src[2]], p[m->src[3]] };
      memcpy(d, b, 4);
      return;
   }
   for (unsigned c = 0; c < 4; c++)
      if (m->mask >> c & 1)
         d[c] = m->src[c] >= 0 ? m->lut[c][p[m->src[c]]] : m->lut[c][0];
}

enum hw_tex_status
hw_tex_reload_row(struct hw_mmu *mmu, const struct hw_tex_reload_map *m, int32_t x, int32_t y,
                  unsigned n, uint8_t *dst, size_t stride)
{
   /* texels [i0, i1) of the n are inside the level */
   int64_t i0 = 0, i1 = 0;
   if (y >= 0 && (uint32_t)y < m->height) {
      i0 = x < 0 ? -(int64_t)x : 0;
      i1 = (int64_t)m->width - x;
      i0 = i0 > n ? n : i0;
      i1 = i1 > n ? n : i1 < i0 ? i0 : i1;
   }
   for (int64_t i = 0; i < n; i++) {
      if (i == i0)
         i = i1;
      if (i >= n)
         break;
      for (unsigned c = 0; c < 4; c++)
         if (m->mask >> c & 1)
            dst[i * stride + c] = m->oob[c];
   }
   if (i0 == i1)
      return HW_TEX_OK;
   const struct level_addr la = {
      .base = m->base, .twiddled = m->twiddled, .sx = m->sx, .sy = m->sy, .mx = m->mx,
      .my = m->my, .tile_bytes = m->tile_bytes, .row_bytes = m->row_bytes,
      .block = m->texel_bytes,
   };
   const uint64_t row = la.base + addr_y(&la, (uint32_t)y);
   const unsigned tb = m->texel_bytes;
   if (!la.twiddled) {
      /* A linear row: the texels of each page at once (a texel that
       * straddles pages goes through fast_map's copy, as hw_tex_load's). */
      for (int64_t i = i0; i < i1;) {
         uint64_t a = row + (uint64_t)(x + i) * tb;
         uint64_t room = (HW_PAGE_SIZE - (a & (HW_PAGE_SIZE - 1))) / tb;
         int64_t k = (int64_t)room < i1 - i ? (int64_t)room : i1 - i;
         if (!k) {
            uint8_t buf[4];
            const uint8_t *p = hw_mmu_read(mmu, a, buf, tb) ? buf : NULL;
            if (!p)
               return HW_TEX_FAULT;
            reload_texel(m, p, dst + i * stride);
            i++;
            continue;
         }
         const uint8_t *p = hw_mmu_map_read(mmu, a, (size_t)k * tb);
         if (!p)
            return HW_TEX_FAULT;
         if (m->copy && stride == 4) {
            memcpy(dst + i * 4, p, (size_t)k * 4);
         } else {
            for (int64_t j = 0; j < k; j++)
               reload_texel(m, p + j * tb, dst + (i + j) * stride);
         }
         i += k;
      }
      return HW_TEX_OK;
   }
   for (int64_t i = i0; i < i1; i++) {
      /* fast_map's access */
      uint8_t buf[4];
      uint64_t a = row + addr_x(&la, (uint32_t)(x + i));
      const uint8_t *p = hw_mmu_map_read(mmu, a, tb);
      if (!p) {
         if (!hw_mmu_read(mmu, a, buf, tb))
            return HW_TEX_FAULT;
         p = buf;
      }
      reload_texel(m, p, dst + i * stride);
   }
   return HW_TEX_OK;
}

void
hw_tex_reload_prefetch(struct hw_mmu *mmu, const struct hw_tex_reload_map *m, int32_t x,
                       int32_t y, unsigned w, unsigned h)
{
   /* the part inside the level */
   int64_t x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
   int64_t x1 = (int64_t)x + w, y1 = (int64_t)y + h;
   x1 = x1 > m->width ? m->width : x1;
   y1 = y1 > m->height ? m->height : y1;
   if (x0 >= x1 || y0 >= y1)
      return;
   const struct level_addr la = {
      .base = m->base, .twiddled = m->twiddled, .sx = m->sx, .sy = m->sy, .mx = m->mx,
      .my = m->my, .tile_bytes = m->tile_bytes, .row_bytes = m->row_bytes,
      .block = m->texel_bytes,
   };
   enum { LINE = 64 };
   uint64_t page = ~0ull, last = ~0ull;
   const uint8_t *host = NULL;
   for (int64_t yy = y0; yy < y1; yy++) {
      uint64_t row = la.base + addr_y(&la, (uint32_t)yy);
      /* linear: the row's lines; twiddled: each texel's line (a tile's
       * row is spread over its Morton order), repeats skipped */
      uint64_t a = row + addr_x(&la, (uint32_t)x0), end = row + (uint64_t)x1 * la.block;
      for (int64_t xx = x0; la.twiddled ? xx < x1 : a < end; xx++) {
         if (la.twiddled)
            a = row + addr_x(&la, (uint32_t)xx);
         if (a / LINE != last) {
            last = a / LINE;
            if (a >> HW_PAGE_SHIFT != page) {
               page = a >> HW_PAGE_SHIFT;
               host = hw_mmu_peek(mmu, page << HW_PAGE_SHIFT);
            }
            if (host)
               __builtin_prefetch(host + (a & (HW_PAGE_SIZE - 1)));
         }
         if (!la.twiddled)
            a = (a | (LINE - 1)) + 1;
      }
   }
}
