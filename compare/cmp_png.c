/* SPDX-License-Identifier: MIT */
/*
 * PNG in and out through libpng. libpng reports errors by longjmp; every
 * allocation that must survive one is held in a struct outside the setjmp
 * frame, so the error path can free it (locals modified after setjmp are
 * indeterminate after a longjmp).
 */
#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare/compare.h"

#define MAX_FILE_BYTES (1u << 30)

struct mem_reader {
   const uint8_t *data;
   size_t size, pos;
};

struct png_err {
   char *msg;
};

static void
on_error(png_structp png, png_const_charp msg)
{
   struct png_err *e = png_get_error_ptr(png);
   snprintf(e->msg, CMP_ERR_LEN, "corrupt or unsupported PNG: %s", msg);
   png_longjmp(png, 1);
}

static void
on_warning(png_structp png, png_const_charp msg)
{
   /* Warnings (bad CRC in ancillary chunks, ...) do not stop decoding. */
   (void)png;
   (void)msg;
}

static void
read_mem(png_structp png, png_bytep out, size_t len)
{
   struct mem_reader *r = png_get_io_ptr(png);
   if (len > r->size - r->pos)
      png_error(png, "file truncated");
   memcpy(out, r->data + r->pos, len);
   r->pos += len;
}

/* State that must be freed after a longjmp lives here, not in locals. */
struct decode_state {
   png_structp png;
   png_infop info;
   uint8_t *row;
   uint16_t *px;
   png_bytep *rows;
};

static bool
decode(struct decode_state *s, const uint8_t *data, size_t size,
       struct cmp_image *out, char *err)
{
   struct mem_reader rd = {data, size, 0};
   struct png_err perr = {err};

   if (size < 8 || png_sig_cmp(data, 0, 8)) {
      snprintf(err, CMP_ERR_LEN, "not a PNG file (bad signature)");
      return false;
   }
   s->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &perr, on_error,
                                   on_warning);
   if (!s->png) {
      snprintf(err, CMP_ERR_LEN, "out of memory");
      return false;
   }
   s->info = png_create_info_struct(s->png);
   if (!s->info) {
      snprintf(err, CMP_ERR_LEN, "out of memory");
      return false;
   }
   if (setjmp(png_jmpbuf(s->png)))
      return false;

   png_set_read_fn(s->png, &rd, read_mem);
#ifdef TESSERA_FUZZING
   /* Let mutated inputs reach the decoder instead of dying on CRCs. */
   png_set_crc_action(s->png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);
#endif
   png_set_user_limits(s->png, 1u << 16, 1u << 16);
   png_read_info(s->png, s->info);

   uint32_t w = png_get_image_width(s->png, s->info);
   uint32_t h = png_get_image_height(s->png, s->info);
   int bit_depth = png_get_bit_depth(s->png, s->info);
   int color = png_get_color_type(s->png, s->info);
   if ((uint64_t)w * h > CMP_MAX_PIXELS) {
      snprintf(err, CMP_ERR_LEN, "image too large (%ux%u, limit %u pixels)",
               w, h, CMP_MAX_PIXELS);
      return false;
   }

   bool has_trns = png_get_valid(s->png, s->info, PNG_INFO_tRNS);
   /* Normalise to 8- or 16-bit grey/grey+alpha/RGB/RGBA samples. */
   if (color == PNG_COLOR_TYPE_PALETTE)
      png_set_palette_to_rgb(s->png);
   if (color == PNG_COLOR_TYPE_GRAY && bit_depth < 8)
      png_set_expand_gray_1_2_4_to_8(s->png);
   if (has_trns)
      png_set_tRNS_to_alpha(s->png);
   if (png_get_interlace_type(s->png, s->info) != PNG_INTERLACE_NONE)
      png_set_interlace_handling(s->png);
   png_read_update_info(s->png, s->info);

   unsigned depth = png_get_bit_depth(s->png, s->info) == 16 ? 16 : 8;
   unsigned ch = png_get_channels(s->png, s->info);
   size_t rowbytes = png_get_rowbytes(s->png, s->info);
   if (ch < 1 || ch > 4 || rowbytes != (size_t)w * ch * (depth / 8)) {
      snprintf(err, CMP_ERR_LEN, "unsupported PNG layout");
      return false;
   }

   bool interlaced = png_get_interlace_type(s->png, s->info) !=
                     PNG_INTERLACE_NONE;
   /* Interlaced images need the whole image in memory for libpng's passes;
    * the common non-interlaced case converts row by row. */
   size_t rows_buf = interlaced ? h : 1;
   s->row = malloc(rowbytes * rows_buf);
   s->px = malloc((size_t)w * h * 4 * sizeof(uint16_t));
   if (!s->row || !s->px) {
      snprintf(err, CMP_ERR_LEN, "out of memory");
      return false;
   }
   if (interlaced) {
      s->rows = malloc(h * sizeof(*s->rows));
      if (!s->rows) {
         snprintf(err, CMP_ERR_LEN, "out of memory");
         return false;
      }
      for (uint32_t y = 0; y < h; y++)
         s->rows[y] = s->row + (size_t)y * rowbytes;
      png_read_image(s->png, s->rows);
   }

   bool alpha = ch == 2 || ch == 4;
   bool grey = ch <= 2;
   uint16_t opaque = depth == 16 ? 0xffff : 0xff;
   for (uint32_t y = 0; y < h; y++) {
      const uint8_t *src = s->row + (interlaced ? (size_t)y * rowbytes : 0);
      if (!interlaced)
         png_read_row(s->png, s->row, NULL);
      uint16_t *dst = s->px + (size_t)y * w * 4;
      if (depth == 8) {
         for (uint32_t x = 0; x < w; x++, dst += 4) {
            const uint8_t *p = src + (size_t)x * ch;
            if (grey) {
               dst[0] = dst[1] = dst[2] = p[0];
               dst[3] = alpha ? p[1] : opaque;
            } else {
               dst[0] = p[0];
               dst[1] = p[1];
               dst[2] = p[2];
               dst[3] = alpha ? p[3] : opaque;
            }
         }
      } else {
         for (uint32_t x = 0; x < w; x++, dst += 4) {
            const uint8_t *p = src + (size_t)x * ch * 2;
            uint16_t v[4];
            for (unsigned c = 0; c < ch; c++)
               v[c] = (uint16_t)(p[2 * c] << 8 | p[2 * c + 1]);
            if (grey) {
               dst[0] = dst[1] = dst[2] = v[0];
               dst[3] = alpha ? v[1] : opaque;
            } else {
               dst[0] = v[0];
               dst[1] = v[1];
               dst[2] = v[2];
               dst[3] = alpha ? v[3] : opaque;
            }
         }
      }
   }
   png_read_end(s->png, NULL);

   out->width = w;
   out->height = h;
   out->depth = depth;
   out->has_alpha = alpha;
   out->is_grey = grey;
   out->px = s->px;
   s->px = NULL;
   return true;
}

bool
cmp_png_decode(const uint8_t *data, size_t size, struct cmp_image *out,
               char err[CMP_ERR_LEN])
{
   struct decode_state s = {0};
   memset(out, 0, sizeof(*out));
   err[0] = 0;
   bool ok = decode(&s, data, size, out, err);
   if (s.png)
      png_destroy_read_struct(&s.png, s.info ? &s.info : NULL, NULL);
   free(s.row);
   free(s.px);
   free(s.rows);
   return ok;
}

bool
cmp_png_load(const char *path, struct cmp_image *out, uint8_t **bytes,
             size_t *nbytes, char err[CMP_ERR_LEN])
{
   memset(out, 0, sizeof(*out));
   FILE *fp = fopen(path, "rb");
   if (!fp) {
      snprintf(err, CMP_ERR_LEN, "cannot open '%s': %s", path,
               strerror(errno));
      return false;
   }
   uint8_t *buf = NULL;
   size_t len = 0, cap = 0;
   bool ok = true;
   for (;;) {
      if (len == cap) {
         if (cap >= MAX_FILE_BYTES) {
            snprintf(err, CMP_ERR_LEN, "'%s': file too large", path);
            ok = false;
            break;
         }
         cap = cap ? cap * 2 : 1u << 16;
         uint8_t *n = realloc(buf, cap);
         if (!n) {
            snprintf(err, CMP_ERR_LEN, "out of memory");
            ok = false;
            break;
         }
         buf = n;
      }
      size_t r = fread(buf + len, 1, cap - len, fp);
      len += r;
      if (r == 0) {
         if (ferror(fp)) {
            snprintf(err, CMP_ERR_LEN, "'%s': read error", path);
            ok = false;
         }
         break;
      }
   }
   fclose(fp);
   if (ok) {
      char why[CMP_ERR_LEN];
      ok = cmp_png_decode(buf, len, out, why);
      if (!ok)
         snprintf(err, CMP_ERR_LEN, "'%s': %.200s", path, why);
   }
   if (ok && bytes) {
      *bytes = buf;
      *nbytes = len;
   } else {
      free(buf);
   }
   return ok;
}

void
cmp_image_free(struct cmp_image *img)
{
   free(img->px);
   img->px = NULL;
}

struct mem_writer {
   uint8_t *buf;
   size_t len, cap;
   bool oom;
};

static void
write_mem(png_structp png, png_bytep data, size_t len)
{
   struct mem_writer *w = png_get_io_ptr(png);
   if (w->oom)
      return;
   if (len > w->cap - w->len) {
      size_t cap = w->cap ? w->cap : 1u << 16;
      while (cap - w->len < len)
         cap *= 2;
      uint8_t *n = realloc(w->buf, cap);
      if (!n) {
         w->oom = true;
         return;
      }
      w->buf = n;
      w->cap = cap;
   }
   memcpy(w->buf + w->len, data, len);
   w->len += len;
}

static void
flush_mem(png_structp png)
{
   (void)png;
}

static bool
encode(png_structp png, png_infop info, struct mem_writer *mw,
       const uint8_t *rgb, uint32_t w, uint32_t h)
{
   if (setjmp(png_jmpbuf(png)))
      return false;
   png_set_write_fn(png, mw, write_mem, flush_mem);
   /* Level 1 with only the Sub filter: several times faster than the
    * defaults and nearly as small on diff pictures, which are flat. */
   png_set_compression_level(png, 1);
   png_set_filter(png, 0, PNG_FILTER_SUB);
   png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
   png_write_info(png, info);
   for (uint32_t y = 0; y < h; y++)
      png_write_row(png, rgb + (size_t)y * w * 3);
   png_write_end(png, NULL);
   return true;
}

bool
cmp_png_encode_rgb8(const uint8_t *rgb, uint32_t w, uint32_t h,
                    uint8_t **out, size_t *size, char err[CMP_ERR_LEN])
{
   struct png_err perr = {err};
   struct mem_writer mw = {0};
   png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &perr,
                                             on_error, on_warning);
   png_infop info = png ? png_create_info_struct(png) : NULL;
   bool ok = png && info && encode(png, info, &mw, rgb, w, h) && !mw.oom;
   if (png)
      png_destroy_write_struct(&png, info ? &info : NULL);
   if (!ok) {
      if (mw.oom || !png || !info)
         snprintf(err, CMP_ERR_LEN, "out of memory encoding PNG");
      free(mw.buf);
      return false;
   }
   *out = mw.buf;
   *size = mw.len;
   return true;
}

bool
cmp_write_file(const char *path, const uint8_t *data, size_t size,
               char err[CMP_ERR_LEN])
{
   FILE *fp = fopen(path, "wb");
   if (!fp) {
      snprintf(err, CMP_ERR_LEN, "cannot create '%s': %s", path,
               strerror(errno));
      return false;
   }
   bool ok = fwrite(data, 1, size, fp) == size;
   ok = (fclose(fp) == 0) && ok;
   if (!ok)
      snprintf(err, CMP_ERR_LEN, "cannot write '%s'", path);
   return ok;
}

bool
cmp_mkdir_p(const char *dir, char err[CMP_ERR_LEN])
{
   char path[4096];
   size_t n = strlen(dir);
   if (n == 0 || n >= sizeof(path)) {
      snprintf(err, CMP_ERR_LEN, "bad directory name");
      return false;
   }
   memcpy(path, dir, n + 1);
   for (char *p = path + 1;; p++) {
      if (*p == '/' || *p == 0) {
         char c = *p;
         *p = 0;
         if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            snprintf(err, CMP_ERR_LEN, "cannot create '%.200s': %s", path,
                     strerror(errno));
            return false;
         }
         *p = c;
         if (!c)
            break;
      }
   }
   return true;
}
