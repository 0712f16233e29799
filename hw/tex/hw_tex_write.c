/* SPDX-License-Identifier: MIT */
/*
 * Image writes through PBE descriptors: single texels (image_write) and
 * whole tilebuffer tiles (image_write_block, the end-of-tile store).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HW_TEX_WRITE_SSE2 1
#include <emmintrin.h>
#endif

#include "cmdstream/agx_pack.h"
#include "hw/hw_mmu.h"
#include "hw/tex/hw_tex.h"

/* The PBE swizzle routes source components to memory channels. */
static void
pbe_swizzle(const struct hw_tex_image *im, const union hw_texel *in, union hw_texel *out)
{
   for (unsigned c = 0; c < 4; c++)
      out->u[c] = in->u[im->swizzle[c] & 3];
}

static enum hw_tex_status
store_texel(struct hw_mmu *mmu, const struct hw_tex_image *im, uint32_t x, uint32_t y,
            uint32_t layer, unsigned level, uint32_t sample, const union hw_texel *v,
            bool rtz)
{
   union hw_texel sw;
   uint8_t buf[16];
   pbe_swizzle(im, v, &sw);
   hw_tex_pack(&im->fmt, &sw, rtz, buf);
   uint64_t off = hw_tex_offset(&im->layout, x, y, layer, level) +
                  (uint64_t)sample * im->fmt.bytes;
   if (!hw_mmu_write(mmu, im->base + off, buf, im->fmt.bytes))
      return HW_TEX_FAULT;
   return HW_TEX_OK;
}

enum hw_tex_status
hw_tex_image_store(struct hw_mmu *mmu, const struct hw_tex_image *im, int32_t x, int32_t y,
                   uint32_t layer, uint32_t level_add, uint32_t sample,
                   const union hw_texel *value, bool rtz)
{
   uint32_t level = im->level + level_add;
   if (level_add > 15 || level >= im->layout.levels || sample >= im->samples)
      return HW_TEX_OK;
   const struct hw_tex_level *lv = &im->layout.level[level];
   if (x < 0 || y < 0 || (uint32_t)x >= lv->width || (uint32_t)y >= lv->height ||
       layer >= im->layout.layers)
      return HW_TEX_OK;
   return store_texel(mmu, im, (uint32_t)x, (uint32_t)y, layer, level, sample, value, rtz);
}

/*
 * The end-of-tile store converts every pixel of every tile, so it is
 * built for throughput without changing a byte of its result:
 *  - the memory format is looked up once per store, not per texel;
 *  - the conversion (unpack, PBE swizzle, pack) is a pure function of
 *    the texel's tilebuffer bytes, so a small direct-mapped memo keyed by
 *    those bytes reuses it (tiles are mostly runs of equal colours), or,
 *    with 8-bit components on both sides, a byte table (below);
 *  - texels landing at consecutive addresses (linear rows, twiddled
 *    pairs) are written with one MMU copy.  A copy that faults is redone
 *    texel by texel from the fault state before it, so faults (which
 *    texel, which address) are exactly those of per-texel stores.
 */
#define MEMO_SIZE 64

bool hw_tex_write_fast_paths = true;

struct memo_entry {
   uint64_t key[2];            /* the raw tilebuffer bytes, zero-padded */
   uint8_t packed[16];
   bool valid;
};

struct run {
   struct hw_mmu *mmu;
   uint64_t va;                /* start of the pending run */
   unsigned len;
   unsigned texel;             /* bytes per texel */
   uint8_t buf[512];
};

/* One MMU copy of len bytes (whole texels of `texel` bytes) to va,
 * redone texel by texel from the fault state before it when it faults,
 * so faults are those of per-texel stores. */
static bool
write_chunk(struct hw_mmu *mmu, uint64_t va, const uint8_t *src, unsigned len, unsigned texel)
{
   struct hw_fault before = mmu->fault;
   if (hw_mmu_write(mmu, va, src, len))
      return true;
   mmu->fault = before;
   for (unsigned o = 0; o < len; o += texel)
      if (!hw_mmu_write(mmu, va + o, src + o, texel))
         return false;
   return true;
}

static bool
run_flush(struct run *r)
{
   if (!r->len)
      return true;
   bool ok = write_chunk(r->mmu, r->va, r->buf, r->len, r->texel);
   r->len = 0;
   return ok;
}

static inline bool
run_add(struct run *r, uint64_t va, const uint8_t *texel)
{
   if (r->len && (va != r->va + r->len || r->len + r->texel > sizeof(r->buf))) {
      if (!run_flush(r))
         return false;
   }
   if (!r->len)
      r->va = va;
   if (r->texel == 4)
      memcpy(r->buf + r->len, texel, 4);
   else
      memcpy(r->buf + r->len, texel, r->texel);
   r->len += r->texel;
   return true;
}

/*
 * The byte-table conversion (8-bit components on both sides): output
 * byte c of a texel is lut[input byte src[c]][c], entry v being the
 * conversion of the texel whose bytes are all v. The table is a pure
 * function of the formats, the swizzle and the rounding, so it is built
 * whole once per such combination and kept (lut_get), not per store:
 * the end-of-tile store of every tile uses the same few. `perm` says
 * each output byte is an input byte unchanged (an RGBA8 tilebuffer to an
 * RGBA8 or BGRA8 unorm image): the swizzle's byte moves, no table;
 * `ident` that it is the same byte (a twiddled tile's texels are then
 * copied whole).
 */
struct lut_key {
   struct hw_tex_format mf, fmt;   /* byte fields only: memcmp compares */
   uint8_t swizzle[4];
   uint8_t rtz;
};

struct lut_table {
   struct lut_key key;
   bool ident, perm;
   uint8_t lut[256][4];
};

#define LUT_CACHE 16
static _Atomic(struct lut_table *) lut_cache[LUT_CACHE];

static void
lut_build(struct lut_table *t, const struct hw_tex_image *im, const struct hw_tex_format *mf,
          bool rtz, const unsigned src[4], const bool konst[4])
{
   for (unsigned v = 0; v < 256; v++) {
      uint8_t same[16];
      union hw_texel tx, sw;
      memset(same, (int)v, sizeof(same));
      hw_tex_memfmt_unpack_with(mf, im->fmt.comps, same, &tx);
      pbe_swizzle(im, &tx, &sw);
      hw_tex_pack(&im->fmt, &sw, rtz, t->lut[v]);
   }
   /* perm: every output byte is its input byte unchanged (only the
    * swizzle moves bytes); ident: and in place. */
   t->perm = true;
   t->ident = true;
   for (unsigned c = 0; c < im->fmt.comps; c++) {
      if (konst[c])
         t->perm = false;
      if (konst[c] || src[c] != c)
         t->ident = false;
      for (unsigned v = 0; v < 256; v++)
         if (t->lut[v][c] != v)
            t->perm = t->ident = false;
   }
}

/* The table for this key: a cached one, or one built into *local and
 * cached when a slot is free (tables are immutable once published). */
static const struct lut_table *
lut_get(const struct lut_key *k, struct lut_table *local, const struct hw_tex_image *im,
        const struct hw_tex_format *mf, bool rtz, const unsigned src[4], const bool konst[4])
{
   for (unsigned i = 0; i < LUT_CACHE; i++) {
      struct lut_table *e = atomic_load_explicit(&lut_cache[i], memory_order_acquire);
      if (!e)
         break;
      if (!memcmp(&e->key, k, sizeof(*k)))
         return e;
   }
   local->key = *k;
   lut_build(local, im, mf, rtz, src, konst);
   struct lut_table *n = malloc(sizeof(*n));
   if (!n)
      return local;
   *n = *local;
   for (unsigned i = 0; i < LUT_CACHE; i++) {
      struct lut_table *expected = NULL;
      if (atomic_compare_exchange_strong_explicit(&lut_cache[i], &expected, n,
                                                  memory_order_acq_rel, memory_order_acquire))
         return n;
      if (!memcmp(&expected->key, k, sizeof(*k)))
         break;   /* another thread published the same table */
   }
   free(n);
   return local;
}

struct lut_conv {
   const uint8_t (*lut)[4];
   unsigned comps;             /* image components (= image bytes) */
   unsigned bytes;             /* tilebuffer bytes per texel */
   unsigned src[4];            /* input byte of output byte c */
   bool konst[4];              /* output byte c routes a missing component */
   bool ident;                 /* output byte c = input byte c */
   bool perm;                  /* output byte c = input byte src[c] */
   bool swap_rb;               /* perm of 4 bytes: B, G, R, A */
   uint32_t prev_raw, prev_w;  /* last texel converted through the table */
   bool have_prev;
};

/* The four bytes of v, least significant first. */
static inline void
put4(uint8_t *d, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
   memcpy(d, &v, 4);
#else
   d[0] = (uint8_t)v;
   d[1] = (uint8_t)(v >> 8);
   d[2] = (uint8_t)(v >> 16);
   d[3] = (uint8_t)(v >> 24);
#endif
}

/* The image bytes (little endian) of the tilebuffer texel at src. */
static inline uint32_t
lut_convert(struct lut_conv *lc, const uint8_t *src)
{
   if (lc->swap_rb) {
      uint32_t x;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      memcpy(&x, src, 4);
#else
      x = (uint32_t)src[0] | (uint32_t)src[1] << 8 | (uint32_t)src[2] << 16 |
          (uint32_t)src[3] << 24;
#endif
      return (x & 0xff00ff00u) | (x >> 16 & 0xffu) | (x & 0xffu) << 16;
   }
   uint32_t w = 0;
   if (lc->perm) {
      for (unsigned c = 0; c < lc->comps; c++)
         w |= (uint32_t)src[lc->src[c]] << (8 * c);
      return w;
   }
   /* Tiles are mostly runs of equal colours: the last texel's result. */
   uint32_t raw = 0;
   for (unsigned b = 0; b < lc->bytes; b++)
      raw |= (uint32_t)src[b] << (8 * b);
   if (lc->have_prev && raw == lc->prev_raw)
      return lc->prev_w;
   for (unsigned c = 0; c < lc->comps; c++)
      w |= (uint32_t)lc->lut[lc->konst[c] ? 0 : src[lc->src[c]]][c] << (8 * c);
   lc->prev_raw = raw;
   lc->prev_w = w;
   lc->have_prev = true;
   return w;
}

/*
 * n packed 4-byte texels of lut_convert() into d: an identity one as a
 * copy (as morton_block does), a swap_rb conversion
 * (BGRA window targets from RGBA tilebuffers, the tessera driver's
 * every end-of-tile store) four texels at a time with SSE2, the same
 * masks and shifts as lut_convert's; the rest texel by texel.  An
 * end-of-tile row was one call per texel through the conversion's
 * dispatch (most of hw_tex_block_store's time on glmark2 gl-build).
 * test_block_store_tables checks the bytes against its own swizzle,
 * rows of 32 texels and a row cut to 7 by the image's edge.
 */
static void
lut_convert_row(struct lut_conv *lc, uint8_t *d, const uint8_t *src, uint32_t n)
{
   uint32_t i = 0;
   if (lc->ident && lc->comps == 4 && lc->bytes == 4) {
      memcpy(d, src, 4 * (size_t)n);
      return;
   }
#ifdef HW_TEX_WRITE_SSE2
   if (lc->swap_rb) {
      const __m128i ga = _mm_set1_epi32((int)0xff00ff00u), lo = _mm_set1_epi32(0xff);
      for (; i + 4 <= n; i += 4) {
         __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(src + 4 * (size_t)i));
         __m128i y = _mm_or_si128(_mm_and_si128(x, ga),
                                  _mm_or_si128(_mm_and_si128(_mm_srli_epi32(x, 16), lo),
                                               _mm_slli_epi32(_mm_and_si128(x, lo), 16)));
         _mm_storeu_si128((__m128i *)(void *)(d + 4 * (size_t)i), y);
      }
   }
#endif
   for (; i < n; i++)
      put4(d + 4 * (size_t)i, lut_convert(lc, src + 4 * (size_t)i));
}

enum block_result { BLOCK_NO, BLOCK_DONE, BLOCK_FAULT };

/*
 * A twiddled image's texels under a tile aligned to its size, with the
 * tile w x h powers of two (w == h or w == 2h) inside one Morton tile,
 * are one contiguous range: texel (tx, ty) at start + morton(tx, ty).
 * When that range lies in one GPU page, it is mapped once and every
 * texel converted straight into it, in Morton order. The per-texel path
 * would write the same bytes (conversions are pure), and its faults are
 * those of that page, first hit at the range start (texel 0, 0), which
 * is what mapping the range records; a soft fault drops the page's
 * writes there too. Anything else (image edges, samples, a range over
 * two pages, a failed mapping) returns BLOCK_NO, with the fault state
 * as it was, for the general path.
 */
static enum block_result
morton_block(struct hw_mmu *mmu, const struct hw_tex_image *im, const struct hw_tex_tile *tile,
             uint32_t level, const struct hw_tex_level *lv, uint32_t samples, uint32_t offset,
             unsigned bytes, struct lut_conv *lc)
{
   uint32_t w = tile->width, h = tile->height;
   if (!im->layout.twiddled || samples != 1 || im->samples != 1 || w == 0 || h == 0 ||
       (w & (w - 1)) || (h & (h - 1)) || !(w == h || w == 2 * h) ||
       im->layout.block_bytes != im->fmt.bytes || im->fmt.bytes > 4 ||
       lv->tile_w < w || lv->tile_h < h || (lv->tile_w & (lv->tile_w - 1)) ||
       (lv->tile_h & (lv->tile_h - 1)) || tile->x0 % w || tile->y0 % h ||
       (uint64_t)tile->x0 + w > lv->width || (uint64_t)tile->y0 + h > lv->height)
      return BLOCK_NO;
   /* The last texel's tilebuffer bytes must be readable (the general
    * path reports the first one that is not). */
   uint64_t last_at = (uint64_t)(h - 1) * tile->row_stride +
                      (uint64_t)(w - 1) * tile->pixel_stride + offset;
   if (last_at + bytes > tile->size)
      return BLOCK_NO;
   unsigned tb = im->fmt.bytes;
   uint64_t start = im->base + hw_tex_offset(&im->layout, tile->x0, tile->y0, tile->layer, level);
   uint64_t size = (uint64_t)w * h * tb;
   if ((start >> HW_PAGE_SHIFT) != ((start + size - 1) >> HW_PAGE_SHIFT))
      return BLOCK_NO;
   struct hw_fault before = mmu->fault;
   uint8_t *dst = hw_mmu_map(mmu, start, (size_t)size, true);
   if (!dst) {
      mmu->fault = before;
      return BLOCK_NO;
   }
   /* x's Morton bits, once per store for the usual tile widths */
   uint32_t mx[64];
   for (uint32_t tx = 0; tx < w && tx < 64; tx++)
      mx[tx] = hw_tex_morton(tx, 0);
   for (uint32_t ty = 0; ty < h; ty++) {
      const uint8_t *row = tile->mem + (uint64_t)ty * tile->row_stride + offset;
      uint32_t my = hw_tex_morton(0, ty);
      for (uint32_t tx = 0; tx < w; tx++) {
         const uint8_t *s = row + (uint64_t)tx * tile->pixel_stride;
         uint8_t *d = dst + (size_t)(my | (tx < 64 ? mx[tx] : hw_tex_morton(tx, 0))) * tb;
         if (lc->ident && tb == 4) {
            memcpy(d, s, 4);
            continue;
         }
         uint32_t v = lut_convert(lc, s);
         if (tb == 4) {
            put4(d, v);
            continue;
         }
         for (unsigned b = 0; b < tb; b++)
            d[b] = (uint8_t)(v >> (8 * b));
      }
   }
   return BLOCK_DONE;
}

/*
 * A linear image's rows, single-sampled with 8-bit components: each row
 * of the tile is converted straight into the run buffer and written in
 * the chunks run_add() would make (one MMU copy per chunk, redone texel
 * by texel when it faults, by run_flush()), without the per-texel
 * bookkeeping. Returns BLOCK_NO (nothing done) when the tilebuffer
 * bounds check could fail, which the general path reports.
 */
static enum block_result
linear_rows(struct hw_mmu *mmu, const struct hw_tex_image *im, const struct hw_tex_tile *tile,
            uint32_t level, const struct hw_tex_level *lv, uint32_t samples, uint32_t offset,
            unsigned bytes, struct lut_conv *lc)
{
   uint32_t w = tile->width, h = tile->height;
   if (im->layout.twiddled || samples != 1 || w == 0 || h == 0 || im->fmt.bytes > 4 ||
       im->layout.block_bytes != im->fmt.bytes)
      return BLOCK_NO;
   uint64_t last_at = (uint64_t)(h - 1) * tile->row_stride +
                      (uint64_t)(w - 1) * tile->pixel_stride + offset;
   if (last_at + bytes > tile->size)
      return BLOCK_NO;
   if (tile->x0 >= lv->width)
      return BLOCK_DONE;   /* every row breaks at its first pixel */
   uint32_t n = lv->width - tile->x0 < w ? lv->width - tile->x0 : w;
   unsigned tb = im->fmt.bytes;
   unsigned chunk = (unsigned)(sizeof(((struct run *)0)->buf) / tb);   /* texels per run */
   struct run run = { .mmu = mmu, .texel = tb };
   for (uint32_t ty = 0; ty < h; ty++) {
      uint32_t y = tile->y0 + ty;
      if (y >= lv->height)
         break;
      uint64_t va = im->base + hw_tex_offset(&im->layout, tile->x0, y, tile->layer, level);
      const uint8_t *row = tile->mem + (uint64_t)ty * tile->row_stride + offset;
      for (uint32_t tx = 0; tx < n; tx += chunk) {
         uint32_t m = n - tx < chunk ? n - tx : chunk;
         /* Even an identity conversion goes through the run buffer: a
          * copy straight from the tilebuffer row measured slower (the
          * copy's loads from the just-written tilebuffer stall). */
         const uint8_t *src = row + (uint64_t)tx * tile->pixel_stride;
         /* The row's page already in the TLB and writable (every row of
          * an end-of-tile store after the first in its page): converted
          * straight into the page. What run_flush's MMU copy of the same
          * bytes does on a TLB hit, without the copy, its translation
          * and the staging buffer; no fault is possible there. Anything
          * else (a miss, a page crossing, no write permission) goes
          * through the run and hw_mmu_write, faults and all. */
         uint8_t *dst = tb == 4 && hw_tex_write_fast_paths
                           ? hw_mmu_map_write_hit(mmu, va + (uint64_t)tx * tb, (size_t)m * tb)
                           : NULL;
         if (dst && tile->pixel_stride == 4) {
            lut_convert_row(lc, dst, src, m);   /* (packed texels) */
            continue;
         }
         if (dst) {
            for (uint32_t i = 0; i < m; i++)
               put4(dst + 4 * i, lut_convert(lc, src + (uint64_t)i * tile->pixel_stride));
            continue;
         }
         if (tb == 4 && tile->pixel_stride == 4) {
            lut_convert_row(lc, run.buf, src, m);
         } else if (tb == 4) {
            for (uint32_t i = 0; i < m; i++)
               put4(run.buf + 4 * i, lut_convert(lc, src + (uint64_t)i * tile->pixel_stride));
         } else {
            for (uint32_t i = 0; i < m; i++) {
               uint32_t v = lut_convert(lc, src + (uint64_t)i * tile->pixel_stride);
               for (unsigned b = 0; b < tb; b++)
                  run.buf[i * tb + b] = (uint8_t)(v >> (8 * b));
            }
         }
         run.va = va + (uint64_t)tx * tb;
         run.len = m * tb;
         if (!run_flush(&run))
            return BLOCK_FAULT;
      }
   }
   return BLOCK_DONE;
}

/*
 * The integer memory formats move raw bits: the image's components get
 * the tilebuffer's bits unconverted when they are as wide. Mesa relies on
 * it: its compiler turns every f16 image_write_block into i16 (and stores
 * f32 render targets as i32), so a half-float render target reaches its
 * image only through this rule. For a float, unorm or snorm image of the
 * same width, the memory format decoding to that image's type carries the
 * bits exactly (decode then encode is the identity; not so for snorm,
 * whose two encodings of -1 would merge, so snorm is left as it was);
 * i32 already carries f32 bits (hw_tex_memfmt_unpack).
 *
 * An srgba8 tilebuffer holds sRGB-encoded bytes, and Mesa stores it
 * through a PBE it makes linear ("The tilebuffer is already in sRGB space
 * if needed. Do not convert", agx_state.c): the bytes go to an 8-bit unorm
 * image unconverted, as u8norm would carry them. Decoding them to linear
 * (the model did) stored every sRGB render target darkened (piglit
 * framebuffer-srgb, srgb_conformance, the sRGB multisampled blits).
 */
static unsigned
block_raw_memfmt(unsigned memfmt, const struct hw_tex_format *f)
{
   if (memfmt == HW_TEX_MEM_SRGBA8)
      return f->packing == HW_TEX_PACK_ARRAY && f->bits[0] == 8 && !f->srgb &&
                   f->type == AGX_TEXTURE_TYPE_UNORM
                ? HW_TEX_MEM_U8NORM
                : memfmt;
   unsigned w = memfmt == HW_TEX_MEM_I8 ? 8 : memfmt == HW_TEX_MEM_I16 ? 16 : 0;
   if (!w || f->packing != HW_TEX_PACK_ARRAY || f->bits[0] != w || f->srgb ||
       f->cls != HW_TEX_CLASS_FLOAT)
      return memfmt;
   switch (f->type) {
   case AGX_TEXTURE_TYPE_FLOAT:
      return w == 16 ? HW_TEX_MEM_F16 : memfmt;
   case AGX_TEXTURE_TYPE_UNORM:
      return w == 16 ? HW_TEX_MEM_U16NORM : HW_TEX_MEM_U8NORM;
   default:
      return memfmt;
   }
}

enum hw_tex_status
hw_tex_block_store(struct hw_mmu *mmu, const struct hw_tex_image *im,
                   const struct hw_tex_tile *tile, unsigned memfmt, uint32_t offset,
                   uint32_t level_add, bool rtz, char *err, size_t err_size)
{
   memfmt = block_raw_memfmt(memfmt, &im->fmt);
   unsigned bytes = hw_tex_memfmt_bytes(memfmt, im->fmt.comps);
   if (!bytes) {
      if (err)
         snprintf(err, err_size, "image_write_block: memory format %u unknown", memfmt);
      return HW_TEX_BAD_ARGS;
   }
   uint32_t level = im->level + level_add;
   if (level_add > 15 || level >= im->layout.levels) {
      if (err)
         snprintf(err, err_size, "image_write_block: level %u outside the image", level);
      return HW_TEX_BAD_ARGS;
   }
   const struct hw_tex_level *lv = &im->layout.level[level];
   if (tile->layer >= im->layout.layers)
      return HW_TEX_OK;
   /* Without a resolve, sample s of the tile lands in sample s of the
    * image; a single-sampled image takes sample 0. */
   uint32_t samples = tile->samples < im->samples ? tile->samples : im->samples;
   if (samples == 0)
      samples = 1;
   struct hw_tex_format mf;
   bool have_fmt = hw_tex_memfmt_format(memfmt, im->fmt.comps, &mf);
   bool memo_ok = have_fmt && bytes <= 16 && im->fmt.bytes <= 16 && im->fmt.bytes > 0;
   struct memo_entry memo[MEMO_SIZE];
   if (memo_ok)
      for (unsigned i = 0; i < MEMO_SIZE; i++)
         memo[i].valid = false;
   /* 8 bits per component on both sides (RGBA8 tilebuffers to RGBA8
    * images, sRGB or not): each output byte is a function of one input
    * byte (the component the swizzle routes there; a constant when it
    * routes a missing one), so a byte table replaces the memo.  Entry v
    * comes from converting the texel whose bytes are all v. */
   bool lut_ok = memo_ok && mf.packing == HW_TEX_PACK_ARRAY && mf.bits[0] == 8 &&
                 bytes == mf.comps && bytes <= 4 &&
                 im->fmt.packing == HW_TEX_PACK_ARRAY && im->fmt.bits[0] == 8 &&
                 im->fmt.bytes == im->fmt.comps && im->fmt.bytes <= 4;
   struct lut_conv lc;
   struct lut_table local;
   if (lut_ok) {
      struct lut_key key;
      memset(&key, 0, sizeof(key));
      key.mf = mf;
      key.fmt = im->fmt;
      memcpy(key.swizzle, im->swizzle, sizeof(key.swizzle));
      key.rtz = rtz;
      lc.comps = im->fmt.comps;
      for (unsigned c = 0; c < 4; c++) {
         lc.src[c] = c < im->fmt.comps ? im->swizzle[c] & 3 : 0;
         lc.konst[c] = c < im->fmt.comps && lc.src[c] >= mf.comps;
      }
      const struct lut_table *lt = lut_get(&key, &local, im, &mf, rtz, lc.src, lc.konst);
      lc.lut = lt->lut;
      lc.ident = lt->ident;
      lc.perm = lt->perm;
      lc.bytes = bytes;
      lc.have_prev = false;
      lc.swap_rb = lc.perm && lc.comps == 4 && bytes == 4 && lc.src[0] == 2 &&
                   lc.src[1] == 1 && lc.src[2] == 0 && lc.src[3] == 3;
      enum block_result br = morton_block(mmu, im, tile, level, lv, samples, offset, bytes, &lc);
      if (br == BLOCK_NO)
         br = linear_rows(mmu, im, tile, level, lv, samples, offset, bytes, &lc);
      switch (br) {
      case BLOCK_DONE:
         return HW_TEX_OK;
      case BLOCK_FAULT:
         return HW_TEX_FAULT;
      case BLOCK_NO:
         break;
      }
   }
   struct run run = { .mmu = mmu, .texel = im->fmt.bytes };
   for (uint32_t ty = 0; ty < tile->height; ty++) {
      uint32_t y = tile->y0 + ty;
      if (y >= lv->height)
         break;
      uint64_t row_off = im->layout.twiddled ? 0
                         : hw_tex_offset(&im->layout, tile->x0, y, tile->layer, level);
      for (uint32_t tx = 0; tx < tile->width; tx++) {
         uint32_t x = tile->x0 + tx;
         if (x >= lv->width)
            break;
         for (uint32_t s = 0; s < samples; s++) {
            uint64_t at = (uint64_t)ty * tile->row_stride + (uint64_t)tx * tile->pixel_stride +
                          (uint64_t)s * tile->sample_stride + offset;
            if (at + bytes > tile->size) {
               if (!run_flush(&run))
                  return HW_TEX_FAULT;
               if (err)
                  snprintf(err, err_size,
                           "image_write_block: tilebuffer read at %llu+%u past %zu bytes",
                           (unsigned long long)at, bytes, tile->size);
               return HW_TEX_BAD_ARGS;
            }
            const uint8_t *src = tile->mem + at;
            if (!memo_ok) {
               if (!run_flush(&run))
                  return HW_TEX_FAULT;
               union hw_texel t;
               hw_tex_memfmt_unpack(memfmt, im->fmt.comps, src, &t);
               enum hw_tex_status st = store_texel(mmu, im, x, y, tile->layer, level, s, &t, rtz);
               if (st != HW_TEX_OK)
                  return st;
               continue;
            }
            if (lut_ok) {
               uint32_t w = lut_convert(&lc, src);
               uint8_t out[4] = { (uint8_t)w, (uint8_t)(w >> 8), (uint8_t)(w >> 16),
                                  (uint8_t)(w >> 24) };
               /* Linear images: hw_tex_offset() is row base + x * block
                * bytes, so it is evaluated once per row. */
               uint64_t off = (im->layout.twiddled ? hw_tex_offset(&im->layout, x, y, tile->layer, level)
                               : row_off + (uint64_t)tx * im->layout.block_bytes) +
                              (uint64_t)s * im->fmt.bytes;
               if (!run_add(&run, im->base + off, out))
                  return HW_TEX_FAULT;
               continue;
            }
            uint64_t key[2] = { 0, 0 };
            if (bytes == 4) {           /* the common case, without a libc call */
               uint32_t w;
               memcpy(&w, src, 4);
               key[0] = w;
            } else {
               memcpy(key, src, bytes);
            }
            uint64_t h = (key[0] ^ (key[1] * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
            struct memo_entry *e = &memo[(h >> 58) % MEMO_SIZE];
            if (!e->valid || e->key[0] != key[0] || e->key[1] != key[1]) {
               union hw_texel t, sw;
               hw_tex_memfmt_unpack_with(&mf, im->fmt.comps, src, &t);
               pbe_swizzle(im, &t, &sw);
               hw_tex_pack(&im->fmt, &sw, rtz, e->packed);
               e->key[0] = key[0];
               e->key[1] = key[1];
               e->valid = true;
            }
            uint64_t off = hw_tex_offset(&im->layout, x, y, tile->layer, level) +
                           (uint64_t)s * im->fmt.bytes;
            if (!run_add(&run, im->base + off, e->packed))
               return HW_TEX_FAULT;
         }
      }
   }
   return run_flush(&run) ? HW_TEX_OK : HW_TEX_FAULT;
}
