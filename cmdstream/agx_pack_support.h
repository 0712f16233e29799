/* SPDX-License-Identifier: MIT */
/*
 * Runtime support for the generated format code (build/gen/cmdstream/
 * agx_pack.h, agx_fw_pack.h). Include the generated header, not this one.
 *
 * Contract of every generated structure FOO (see docs/formats.md):
 *
 *   struct agx_foo            named fields in logical units (modifiers undone)
 *   AGX_FOO_HEADER            designated initializers for the defaults
 *   AGX_FOO_LENGTH            size in bytes; struct agx_foo_packed holds it
 *   agx_foo_pack_checked()    false + message naming the field if a value
 *                             does not fit or a modifier would lose bits;
 *                             dst is written only on success
 *   agx_foo_pack()            the same, but aborts with the message (all builds)
 *   agx_foo_unpack()          fills every field; false if bits no field
 *                             covers are set or a constant field is wrong
 *   agx_foo_print()           one "Name: value" line per field, indented
 *   agx_foo_validate()        prints what makes unpack return false
 *   agx_foo_dump()            unpack + print (+ validate when invalid)
 *
 * pack/unpack are static inline and allocation-free: the GPU model unpacks
 * on its hot path. Byte order is little-endian, as on the GPU; hosts must be
 * little-endian too (checked below).
 */
#ifndef AGX_PACK_SUPPORT_H
#define AGX_PACK_SUPPORT_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tessera/float_bits.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "tessera's format code assumes a little-endian host"
#endif

struct agx_pack_error {
   char msg[160];
};

/* Out-of-line (cold) reporters: each fills err (if non-NULL) with
 * "<Struct>.<Field>: <what>" and returns false. */
bool agx_pack_err_range(struct agx_pack_error *err, const char *st,
                        const char *field, uint64_t value, unsigned width,
                        const char *mod);
bool agx_pack_err_srange(struct agx_pack_error *err, const char *st,
                         const char *field, int64_t value, unsigned width);
bool agx_pack_err_below(struct agx_pack_error *err, const char *st,
                        const char *field, uint64_t value, unsigned min);
bool agx_pack_err_align(struct agx_pack_error *err, const char *st,
                        const char *field, uint64_t value, unsigned shift);
bool agx_pack_err_pow2(struct agx_pack_error *err, const char *st,
                       const char *field, uint64_t value);

/* Prints the message to stderr and aborts. */
void agx_pack_abort(const struct agx_pack_error *err);

/* Print helpers shared by the generated print/validate functions. */
void agx_print_enum(FILE *fp, int indent, const char *label, const char *name,
                    uint32_t value);
bool agx_report_unknown_bits(FILE *fp, int indent, const char *st,
                             const uint32_t *words, const uint32_t *unknown,
                             unsigned nwords);
bool agx_report_const(FILE *fp, int indent, const char *st, const char *field,
                      uint64_t got, uint64_t want);

/* LODs are unsigned fixed point with 6 fraction bits (4.6 in a 10-bit
 * field). Out-of-range requests clamp rather than fail, as a sampler's LOD
 * range is a clamp itself; NaN and negatives give 0. Rounds to nearest. */
static inline uint64_t
agx_pack_lod(float f, unsigned width)
{
   const float hi = (float)((1u << width) - 1) / 64.0f;
   if (!(f > 0.0f))
      return 0;
   if (f > hi)
      f = hi;
   return (uint64_t)(f * 64.0f + 0.5f);
}

static inline uint64_t
agx_pack_log2(uint64_t v)
{
   uint64_t n = 0;
   while (v > 1) {
      v >>= 1;
      n++;
   }
   return n;
}

/*
 * agx_pack(dst, T, name) { name.field = ...; }
 *
 * Declares `name` initialised with T's defaults, runs the body once, then
 * packs into dst (aborting on a misfit, like agx_T_pack). T is the upper-case
 * structure name: agx_pack(p, USC_SHADER, cfg) { cfg.code = 0x100; }
 */
#define agx_pack(dst, T, name)                                               \
   for (AGX_##T##_T name = { AGX_##T##_HEADER }, *name##_once_ = &name;      \
        name##_once_ != NULL;                                                \
        AGX_##T##_pack((dst), &name), name##_once_ = NULL)

/* Declares `name` and unpacks src into it (validity result discarded; use
 * agx_T_unpack directly to check it). */
#define agx_unpack(src, T, name)                                             \
   AGX_##T##_T name;                                                         \
   (void)AGX_##T##_unpack((src), &name)

#define agx_print(fp, T, var, indent) AGX_##T##_print((fp), &(var), (indent))

#endif
