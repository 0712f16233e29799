/* SPDX-License-Identifier: MIT */
/*
 * USC memory instructions: device loads/stores with format conversion,
 * threadgroup memory, per-thread stack, uniform_store and device atomics.
 *
 * Addressing follows applegpu's device_load model: elements are `item`
 * bytes (1, 2 or 4 by format), the base is rounded down to the item size,
 * element i of a lane lives at base + ((index << shift) + i) * item, and
 * the bit-packed formats read one aligned 32-bit word ignoring mask and
 * shift (shift 2 is implied).  Registers are written contiguously for the
 * set mask bits.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tessera/bits.h"
#include "hw/usc/hw_usc_internal.h"
#include "tessera/float_bits.h"

enum {
   F_I8 = 0, F_I16 = 1, F_I32 = 2, F_F16 = 3, F_UNORM8 = 4, F_SNORM8 = 5,
   F_UNORM16 = 6, F_SNORM16 = 7, F_RGB10A2 = 8, F_SRGBA8 = 10,
   F_RG11B10F = 12, F_RGB9E5 = 13, F_RG11B10F_RTZ = 14, F_RGB9E5_RTZ = 15,
};

static unsigned
item_size(unsigned f)
{
   return f == F_I16 || f == F_F16 || f == F_UNORM16 || f == F_SNORM16 ? 2 : f == F_I32 ? 4 : 1;
}

static bool
is_packed(unsigned f)
{
   return f == F_RGB10A2 || f >= F_RG11B10F;
}

static enum hw_usc_status
mem_fail(struct hw_usc_result *res, enum hw_usc_status st, const struct hw_fault *f,
         const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static enum hw_usc_status
mem_fail(struct hw_usc_result *res, enum hw_usc_status st, const struct hw_fault *f,
         const char *fmt, ...)
{
   if (res) {
      memset(res, 0, sizeof(*res));
      res->status = st;
      if (f)
         res->fault = *f;
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(res->message, sizeof(res->message), fmt, ap);
      va_end(ap);
   }
   return st;
}

/* ---- value conversion ------------------------------------------------- */

static uint32_t
float_to_reg(double v, unsigned size)
{
   return size == 16 ? usc_store_f16(v, false) : usc_store_f32(v, false);
}

static double
reg_to_float(uint32_t v, unsigned size)
{
   return size == 16 ? (double)hw_usc_f16_to_f32((uint16_t)v)
                     : (double)tessera_uif(usc_ftz32(v));
}

/* Unpacks one loaded element (or component n of a packed word). */
static uint32_t
unpack(unsigned f, unsigned n, uint32_t v, unsigned size)
{
   switch (f) {
   case F_I8: case F_I16: case F_I32: case F_F16:
      return v;
   case F_UNORM8: return float_to_reg(v / 255.0, size);
   case F_SNORM8: {
      int x = (int8_t)v;
      return float_to_reg((x < -127 ? -127 : x) / 127.0, size);
   }
   case F_UNORM16: return float_to_reg(v / 65535.0, size);
   case F_SNORM16: {
      int x = (int16_t)v;
      return float_to_reg((x < -32767 ? -32767 : x) / 32767.0, size);
   }
   case F_SRGBA8:
      return float_to_reg(n == 3 ? v / 255.0 : (double)usc_srgb_to_linear(v), size);
   case F_RGB10A2:
      return float_to_reg(n < 3 ? ((v >> (10 * n)) & 1023) / 1023.0 : (v >> 30) / 3.0, size);
   case F_RG11B10F: case F_RG11B10F_RTZ:
      return float_to_reg(n == 0 ? usc_unpack_float11(v & 0x7ff) :
                          n == 1 ? usc_unpack_float11((v >> 11) & 0x7ff) :
                                   usc_unpack_float10(v >> 22), size);
   default: {   /* rgb9e5: shared exponent in the top five bits */
      int e = (int)(v >> 27) - 15;
      return float_to_reg(ldexp((double)((v >> (9 * n)) & 0x1ff) / 512.0, e), size);
   }
   }
}

static uint32_t
to_unorm(double x, double scale)
{
   if (isnan(x))
      return 0;
   x = x < 0 ? 0 : x > 1 ? 1 : x;
   return (uint32_t)nearbyint(x * scale);
}

static uint32_t
to_snorm(double x, double scale)
{
   if (isnan(x))
      return 0;
   x = x < -1 ? -1 : x > 1 ? 1 : x;
   return (uint32_t)(int32_t)nearbyint(x * scale);
}

/* Converts a register value to one memory element. */
static uint32_t
pack_elem(unsigned f, unsigned n, uint32_t v, unsigned size)
{
   switch (f) {
   case F_I8: case F_I16: case F_I32: case F_F16: return v;
   case F_UNORM8: return to_unorm(reg_to_float(v, size), 255.0);
   case F_SNORM8: return to_snorm(reg_to_float(v, size), 127.0) & 0xff;
   case F_UNORM16: return to_unorm(reg_to_float(v, size), 65535.0);
   case F_SNORM16: return to_snorm(reg_to_float(v, size), 32767.0) & 0xffff;
   default:   /* srgba8 */
      return n == 3 ? to_unorm(reg_to_float(v, size), 255.0)
                    : usc_linear_to_srgb((float)reg_to_float(v, size));
   }
}

static uint32_t
pack_rgb9e5(const double c[3], bool rtz)
{
   const double maxv = ldexp(511.0 / 512.0, 16);
   double cl[3], m = 0;
   for (unsigned i = 0; i < 3; i++) {
      double x = isnan(c[i]) || c[i] < 0 ? 0 : c[i] > maxv ? maxv : c[i];
      cl[i] = x;
      m = x > m ? x : m;
   }
   int e = 0;
   if (m > 0) {
      frexp(m, &e);                 /* m = f * 2^e, f in [0.5, 1) */
      if (e < -14)
         e = -14;
   } else {
      e = -14;
   }
   /* mantissas have 9 bits: unit = 2^(e - 9) */
   double mm = ldexp(m, 9 - e);
   mm = rtz ? floor(mm) : nearbyint(mm);
   if (mm >= 512.0)
      e++;
   uint32_t out = (uint32_t)(e + 15) << 27;
   for (unsigned i = 0; i < 3; i++) {
      double q = ldexp(cl[i], 9 - e);
      q = rtz ? floor(q) : nearbyint(q);
      if (q > 511)
         q = 511;
      out |= (uint32_t)q << (9 * i);
   }
   return out;
}

static uint32_t
pack_word(unsigned f, const uint32_t *regs, unsigned size)
{
   double c[4];
   for (unsigned i = 0; i < 4; i++)
      c[i] = reg_to_float(regs[i], size);
   switch (f) {
   case F_RGB10A2:
      return to_unorm(c[0], 1023.0) | to_unorm(c[1], 1023.0) << 10 |
             to_unorm(c[2], 1023.0) << 20 | to_unorm(c[3], 3.0) << 30;
   case F_RG11B10F: case F_RG11B10F_RTZ: {
      bool rtz = f == F_RG11B10F_RTZ;
      return usc_pack_float11((float)c[0], rtz) | usc_pack_float11((float)c[1], rtz) << 11 |
             usc_pack_float10((float)c[2], rtz) << 22;
   }
   default:
      return pack_rgb9e5(c, f == F_RGB9E5_RTZ);
   }
}

/* ---- register tuple access -------------------------------------------- */

static inline uint32_t
tuple_rd(const struct hw_usc_simd *s, const struct usc_dst *d, unsigned j, unsigned l)
{
   return d->size == 16 ? usc_rd16(s, d->idx + j, l) : s->r[(d->idx + j) & 127][l];
}

static inline void
tuple_wr(struct hw_usc_simd *s, unsigned size, unsigned idx, unsigned j, unsigned l, uint32_t v)
{
   if (size == 16)
      usc_wr16(s, idx + j, l, v);
   else
      s->r[(idx + j) & 127][l] = v;
}

void
usc_flush_pending(struct hw_usc_simd *s, int slot)
{
   unsigned keep = 0;
   for (unsigned i = 0; i < s->npending; i++) {
      struct usc_pending *p = &s->pending[i];
      if (slot >= 0 && p->slot != (unsigned)slot) {
         if (keep != i)
            s->pending[keep] = *p;
         keep++;
         continue;
      }
      for (unsigned l = 0; l < USC_W; l++)
         if (p->lanes >> l & 1)
            for (unsigned j = 0; j < p->count; j++)
               tuple_wr(s, p->size, p->idx, j, l, p->v[j][l]);
   }
   s->npending = keep;
}

/* ---- address helpers --------------------------------------------------- */

static inline uint64_t
src64(const struct hw_usc_simd *s, const struct usc_src *src, unsigned l)
{
   switch (src->kind) {
   case SRC_R64: return s->r[src->idx & 127][l] | (uint64_t)s->r[(src->idx + 1) & 127][l] << 32;
   case SRC_U64: return s->u[src->idx & 255] | (uint64_t)s->u[(src->idx + 1) & 255] << 32;
   case SRC_R32: return s->r[src->idx & 127][l];
   case SRC_U32: return s->u[src->idx & 255];
   case SRC_R16: return usc_rd16(s, src->idx, l);
   case SRC_U16: return usc_uni16(s, src->idx);
   case SRC_IMM: return src->imm;
   default: return 0;
   }
}

/* Signed (or with `unsigned_idx`, zero-extended) element index. */
static inline int64_t
index_of(const struct hw_usc_simd *s, const struct usc_src *src, unsigned l, bool unsigned_idx)
{
   if (src->kind == SRC_IMM)
      return (int16_t)(uint16_t)src->imm;
   uint64_t v = src64(s, src, l);
   if (src->kind == SRC_R16)
      return unsigned_idx ? (int64_t)v : (int16_t)(uint16_t)v;
   return unsigned_idx ? (int64_t)(uint32_t)v : (int64_t)(int32_t)(uint32_t)v;
}

/* One little-endian element of 1, 2 or 4 bytes, each size a fixed-size
 * load: a memcpy of a variable size into a zeroed word was a byte loop
 * whose word reload stalled on store forwarding (half of exec_ldst's
 * time on vertex fetch). */
static inline uint32_t
elem_read(const uint8_t *q, unsigned item)
{
   if (item == 4) {
      uint32_t v;
      memcpy(&v, q, 4);
      return v;
   }
   if (item == 2) {
      uint16_t h;
      memcpy(&h, q, 2);
      return h;
   }
   return *q;
}

/* Device element access through the MMU; soft faults read 0 / drop. */
static bool
dev_read(struct hw_usc_simd *s, uint64_t va, unsigned n, uint32_t *v)
{
   void *p = hw_mmu_map(s->mmu, va, n, false);
   *v = 0;
   if (!p)
      return !s->mmu->fault.valid;
   memcpy(v, p, n);   /* little-endian host */
   return true;
}

static bool
dev_write(struct hw_usc_simd *s, uint64_t va, unsigned n, uint32_t v)
{
   void *p = hw_mmu_map(s->mmu, va, n, true);
   if (!p)
      return !s->mmu->fault.valid;
   memcpy(p, &v, n);
   return true;
}

/* Local (threadgroup / stack) element access with bounds. */
static bool
loc_access(uint8_t *mem, size_t size, int64_t off, unsigned n, uint32_t *v, bool write)
{
   if (!mem || off < 0 || (uint64_t)off + n > size)
      return false;
   if (write)
      memcpy(mem + off, v, n);
   else {
      *v = 0;
      memcpy(v, mem + off, n);
   }
   return true;
}

/* ---- the instructions ------------------------------------------------- */

enum space { SP_DEVICE, SP_TG, SP_STACK };

static enum hw_usc_status
exec_ldst(struct hw_usc_simd *s, const struct usc_inst *in, enum space sp, bool load,
          struct hw_usc_result *res)
{
   /* Helper lanes' device stores are predicated away (hw_usc_simd_set_helpers):
    * they would write pixels outside the primitive (a 1-pixel-high
    * target's quads reach the row below it). Stack and threadgroup
    * memory are the lane's own or the group's, written as usual. */
   uint32_t ex = !load && sp == SP_DEVICE ? s->exec & ~s->helpers : s->exec;
   unsigned f = in->fmt, item = item_size(f);
   bool packed = is_packed(f);
   unsigned mask = packed ? 0xf : in->mask;
   unsigned shift = sp == SP_DEVICE ? (packed ? 2 : (in->shift == 3 ? 2 : in->shift)) : 0;
   unsigned size = in->d.size;
   unsigned nregs = packed ? in->d.count : tessera_popcount32(mask);
   bool strict = load && sp == SP_DEVICE && (s->launch->flags & HW_USC_STRICT_WAIT);
   struct usc_pending *pend = NULL;
   uint64_t bytes = 0;

   if (strict) {
      if (s->npending == USC_MAX_PENDING)
         usc_flush_pending(s, s->pending[0].slot);
      pend = &s->pending[s->npending++];
      pend->slot = in->slot;
      pend->size = (uint8_t)size;
      pend->count = (uint8_t)nregs;
      pend->idx = in->d.idx;
      pend->lanes = ex;
   }
   if (load && sp == SP_DEVICE)
      s->outstanding |= 1u << (in->slot & 1);

   for (unsigned l = 0; l < USC_W; l++) {
      if (!(ex >> l & 1))
         continue;
      uint64_t base = 0;
      int64_t off;
      uint8_t *lmem = NULL;
      size_t lsize = 0;
      if (sp == SP_DEVICE) {
         base = src64(s, &in->s[0], l) & ~(uint64_t)(item - 1);
         if (packed)
            base &= ~3ull;
         off = index_of(s, &in->s[1], l, in->mode == 1);
      } else if (sp == SP_TG) {
         base = src64(s, &in->s[0], l) & 0xffff;
         off = index_of(s, &in->s[1], l, false);
         lmem = s->wg ? s->wg->threadgroup_mem : NULL;
         lsize = s->wg ? s->wg->threadgroup_mem_size : 0;
      } else {
         off = index_of(s, &in->s[1], l, false);
         lsize = s->wg ? s->wg->stack_bytes_per_thread : 0;
         lmem = s->wg && s->wg->stack ? s->wg->stack + (size_t)s->linear_id[l] * lsize : NULL;
      }

      uint32_t vals[4] = { 0 };
      unsigned j = 0;
      if (packed && load) {
         uint32_t w = 0;
         uint64_t a = base + ((uint64_t)off << shift);
         bool ok = sp == SP_DEVICE ? dev_read(s, a, 4, &w)
                                   : loc_access(lmem, lsize, (int64_t)(a + (uint64_t)0), 4, &w, false);
         if (!ok)
            goto bad;
         for (unsigned n = 0; n < nregs; n++)
            vals[n] = unpack(f, n, w, size);
         bytes += 4;
      } else if (packed) {
         uint32_t regs[4] = { 0 };
         for (unsigned n = 0; n < nregs; n++)
            regs[n] = tuple_rd(s, &in->d, n, l);
         uint32_t w = pack_word(f, regs, size);
         uint64_t a = base + ((uint64_t)off << shift);
         bool ok = sp == SP_DEVICE ? dev_write(s, a, 4, w)
                                   : loc_access(lmem, lsize, (int64_t)a, 4, &w, true);
         if (!ok)
            goto bad;
         bytes += 4;
      } else {
         /* Fast path (vertex fetch: every attribute of every vertex comes
          * through here): a device load whose components all lie in one
          * page maps that page once instead of once per component.  The
          * components sit at consecutive elements, so one page means one
          * translation for all of them, as the loop below would do
          * component by component; when it fails (a fault, soft or hard)
          * the loop below runs as if this had not been tried: a hard
          * fault is recorded once, at the first component's address,
          * either way (hw_usc_fast_paths off: the loop alone). */
         if (load && sp == SP_DEVICE && mask && hw_usc_fast_paths) {
            unsigned lo = (unsigned)__builtin_ctz(mask), hi = 31u - (unsigned)__builtin_clz(mask);
            int64_t e0 = (off * (1ll << shift) + (int64_t)lo) * (int64_t)item;
            uint64_t a0 = base + (uint64_t)e0;
            uint64_t span = (uint64_t)(hi - lo + 1) * item;
            uint64_t a1 = a0 + span - 1;
            const uint8_t *p = NULL;
            if (a1 >= a0 && (a0 >> HW_PAGE_SHIFT) == (a1 >> HW_PAGE_SHIFT))
               p = hw_mmu_map_read(s->mmu, a0, (size_t)span);   /* a TLB hit inline */
            if (p) {
               for (unsigned i = lo; i <= hi; i++) {
                  if (!(mask >> i & 1))
                     continue;
                  const uint8_t *q = p + (size_t)(i - lo) * item;
                  uint32_t v = elem_read(q, item);
                  /* the integer and f16 formats keep their bits */
                  vals[j++] = f <= F_F16 ? v : unpack(f, i, v, size);
                  bytes += item;
               }
               goto loaded;
            }
         }
         for (unsigned i = 0; i < 4; i++) {
            if (!(mask >> i & 1))
               continue;
            /* The stack's offset counts bytes (Mesa passes scratch and
             * spill offsets in bytes: agx_lower_spill.c), device and
             * threadgroup memory's counts elements. */
            int64_t e = sp == SP_STACK ? off + (int64_t)i * item
                                       : (off * (1ll << shift) + (int64_t)i) * (int64_t)item;
            uint64_t a = base + (uint64_t)e;
            uint32_t v = 0;
            bool ok;
            if (load) {
               ok = sp == SP_DEVICE ? dev_read(s, a, item, &v)
                                    : loc_access(lmem, lsize, (int64_t)a, item, &v, false);
               vals[j] = unpack(f, i, v, size);
            } else {
               v = pack_elem(f, i, tuple_rd(s, &in->d, j, l), size);
               ok = sp == SP_DEVICE ? dev_write(s, a, item, v)
                                    : loc_access(lmem, lsize, (int64_t)a, item, &v, true);
            }
            if (!ok) {
               off = (int64_t)a;
               goto bad;
            }
            j++;
            bytes += item;
         }
      }
loaded:
      if (load) {
         for (unsigned n = 0; n < nregs; n++) {
            uint32_t v = size == 16 ? (vals[n] & 0xffff) : vals[n];
            if (pend)
               pend->v[n][l] = v;
            else
               tuple_wr(s, size, in->d.idx, n, l, v);
         }
      }
      continue;
bad:
      if (pend)
         s->npending--;
      if (sp == SP_DEVICE)
         return mem_fail(res, HW_USC_FAULT, &s->mmu->fault,
                         "device %s fault at 0x%llx (lane %u)", load ? "read" : "write",
                         (unsigned long long)s->mmu->fault.addr, l);
      return mem_fail(res, HW_USC_OUT_OF_BOUNDS, NULL,
                      "%s access out of range (offset %lld, lane %u)",
                      sp == SP_TG ? "threadgroup memory" : "stack", (long long)off, l);
   }
   if (load)
      s->stats->bytes_read += bytes;
   else
      s->stats->bytes_written += bytes;
   s->cycles += (bytes + USC_BYTES_PER_CYCLE - 1) / USC_BYTES_PER_CYCLE;
   return HW_USC_OK;
}

static enum hw_usc_status
exec_uniform_store(struct hw_usc_simd *s, const struct usc_inst *in, struct hw_usc_result *res)
{
   /* Uniforms are per SIMD group state shared by all lanes: the value of
    * the first active lane is stored (the preshader runs one lane). */
   uint32_t ex = s->exec;
   if (!ex)
      return HW_USC_OK;
   unsigned l = (unsigned)__builtin_ctz(ex);
   int64_t idx = in->s[1].kind == SRC_IMM ? (int64_t)(in->s[1].imm & 0xffff)
                                          : (int64_t)src64(s, &in->s[1], l);
   idx <<= in->shift;
   unsigned halves = in->d.size == 32 ? 2 : 1;
   unsigned j = 0;
   for (unsigned i = 0; i < 4; i++) {
      if (!(in->mask >> i & 1))
         continue;
      uint32_t v = tuple_rd(s, &in->d, j++, l);
      for (unsigned h = 0; h < halves; h++) {
         int64_t u = idx + (int64_t)(i * halves + h);
         if (u < 0 || u >= 2 * HW_USC_NUM_UNIFORMS)
            return mem_fail(res, HW_USC_OUT_OF_BOUNDS, NULL,
                            "uniform_store to half %lld (lane %u): past u255",
                            (long long)u, l);
         uint32_t *p = &s->uw[u >> 1];
         unsigned sh = (unsigned)(u & 1) * 16;
         *p = (*p & ~(0xffffu << sh)) | (((v >> (16 * h)) & 0xffff) << sh);
      }
   }
   return HW_USC_OK;
}

static enum hw_usc_status
exec_atomic(struct hw_usc_simd *s, const struct usc_inst *in, struct hw_usc_result *res)
{
   uint32_t ex = s->exec;
   unsigned op = in->cc;
   for (unsigned l = 0; l < USC_W; l++) {
      if (!(ex >> l & 1))
         continue;
      uint64_t a = src64(s, &in->s[0], l) + (uint64_t)(index_of(s, &in->s[1], l, in->mode == 1) * 4);
      a &= ~3ull;
      /* cmpxchg takes a register pair: new value, then expected (Mesa's
       * operand order); every other op one 32-bit register */
      uint32_t v = s->r[in->s[2].idx & 127][l];
      uint32_t cmp = s->r[(in->s[2].idx + 1) & 127][l];
      uint32_t *p = hw_mmu_map(s->mmu, a, 4, true);
      uint32_t old = 0;
      if (!p) {
         if (s->mmu->fault.valid)
            return mem_fail(res, HW_USC_FAULT, &s->mmu->fault,
                            "atomic fault at 0x%llx (lane %u)", (unsigned long long)a, l);
      } else {
         switch (op) {
         case 0: old = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); break;
         case 1: old = __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); break;
         case 2: old = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); break;
         case 3:
            old = cmp;
            __atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            break;
         case 8: old = __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); break;
         case 9: old = __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); break;
         case 10: old = __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); break;
         default: {   /* min / max: compare-and-swap loop */
            old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
            for (;;) {
               uint32_t nv;
               switch (op) {
               case 4: nv = v < old ? v : old; break;
               case 5: nv = (int32_t)v < (int32_t)old ? v : old; break;
               case 6: nv = v > old ? v : old; break;
               default: nv = (int32_t)v > (int32_t)old ? v : old; break;
               }
               if (nv == old || __atomic_compare_exchange_n(p, &old, nv, false, __ATOMIC_SEQ_CST,
                                                            __ATOMIC_SEQ_CST))
                  break;
            }
            break;
         }
         }
      }
      if (in->d.size)
         s->r[in->d.idx & 127][l] = old;
      s->stats->bytes_read += 4;
      s->stats->bytes_written += 4;
   }
   s->cycles += 4;
   return HW_USC_OK;
}

enum hw_usc_status
usc_exec_mem(struct hw_usc_simd *s, const struct usc_inst *in, struct hw_usc_result *res)
{
   switch (in->op) {
   case U_DEVICE_LOAD: return exec_ldst(s, in, SP_DEVICE, true, res);
   case U_DEVICE_STORE: return exec_ldst(s, in, SP_DEVICE, false, res);
   case U_TG_LOAD: return exec_ldst(s, in, SP_TG, true, res);
   case U_TG_STORE: return exec_ldst(s, in, SP_TG, false, res);
   case U_STACK_LOAD: return exec_ldst(s, in, SP_STACK, true, res);
   case U_STACK_STORE: return exec_ldst(s, in, SP_STACK, false, res);
   case U_UNIFORM_STORE: return exec_uniform_store(s, in, res);
   case U_ATOMIC: return exec_atomic(s, in, res);
   default:
      return mem_fail(res, HW_USC_BAD_CODE, NULL, "internal: unknown op %u", (unsigned)in->op);
   }
}
