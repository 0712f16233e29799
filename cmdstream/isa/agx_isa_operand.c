/* SPDX-License-Identifier: MIT */
/*
 * Operand kinds: how a group of fields reads as one printed operand, and
 * back.  Each kind follows one of applegpu's operand descriptions; the bit
 * positions come from agx_isa.xml.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmdstream/isa/agx_isa_tables.h"

/* Texture dimensionality -> (coordinate count, extra array/sample slots). */
static const uint8_t tex_sizes[9][2] = {
   { 1, 0 }, { 1, 1 }, { 2, 0 }, { 2, 1 }, { 2, 1 }, { 3, 0 }, { 3, 0 }, { 3, 1 }, { 2, 2 },
};

static void
mk_reg(struct agx_operand *o, unsigned file, unsigned size, unsigned value,
       unsigned count, unsigned flags)
{
   o->type = AGX_OPERAND_REG;
   o->file = (uint8_t)file;
   o->size = (uint8_t)size;
   o->value = (uint16_t)value;
   o->count = (uint8_t)count;
   o->flags = (uint8_t)flags;
   if (count == 0)
      o->type = AGX_OPERAND_EMPTY;
}

static void
mk_imm(struct agx_operand *o, int64_t v)
{
   o->type = AGX_OPERAND_IMM;
   o->imm = v;
}

static void
mk_text(struct agx_operand *o, const char *s)
{
   if (!s[0]) {
      o->type = AGX_OPERAND_EMPTY;
      return;
   }
   o->type = AGX_OPERAND_TEXT;
   snprintf(o->text, sizeof(o->text), "%s", s);
}

static int64_t
sext(uint32_t v, unsigned bits)
{
   if (bits >= 32)
      return (int32_t)v;
   uint32_t sign = 1u << (bits - 1);
   return (int64_t)(v ^ sign) - (int64_t)sign;
}

static unsigned
hint_flags(unsigned bits)
{
   return bits == 2 ? AGX_OPF_CACHE : bits == 3 ? AGX_OPF_DISCARD : 0;
}

static const struct agx_isa_enum_value *
enum_lookup(int id, uint32_t v)
{
   const struct agx_isa_enum *e = &agx_isa_enums[id];
   for (unsigned i = 0; i < e->num_values; i++) {
      if (agx_isa_enum_vals(e)[i].value == v)
         return &agx_isa_enum_vals(e)[i];
   }
   return NULL;
}

void
agx_isa_operand_decode(const struct agx_isa_op_desc *desc,
                       const struct agx_isa_operand_desc *od,
                       const uint32_t *f, struct agx_operand *o)
{
   memset(o, 0, sizeof(*o));
   const int8_t *r = od->role;
   uint32_t v = f[r[AGX_ROLE_VALUE]];
   uint32_t t = r[AGX_ROLE_TYPE] >= 0 ? f[r[AGX_ROLE_TYPE]] : 0;
   uint32_t dep = r[AGX_ROLE_DEP] >= 0 ? f[r[AGX_ROLE_DEP]] : 0;
   uint32_t dep2 = r[AGX_ROLE_DEP2] >= 0 ? f[r[AGX_ROLE_DEP2]] : 0;
   unsigned width = agx_isa_field_width(&agx_isa_op_fields(desc)[r[AGX_ROLE_VALUE]]);
   char buf[24];

   switch ((enum agx_isa_kind)od->kind) {
   case AGX_KIND_ALU_DST:
      if ((t & 2) && od->max_size >= 32) {
         if ((v & 1) && od->max_size >= 64)
            mk_reg(o, AGX_FILE_GPR, 64, v >> 1, 1, 0);
         else
            mk_reg(o, AGX_FILE_GPR, 32, v >> 1, 1, 0);
      } else {
         mk_reg(o, AGX_FILE_GPR, 16, v, 1, 0);
      }
      if (t & 1)
         o->flags |= AGX_OPF_CACHE;
      break;
   case AGX_KIND_R0L:
      mk_reg(o, AGX_FILE_GPR, 16, 0, 1, v ? AGX_OPF_CACHE : 0);
      break;
   case AGX_KIND_ALU_SRC: {
      uint32_t m = r[AGX_ROLE_MOD] >= 0 ? f[r[AGX_ROLE_MOD]] : 0;
      bool sx = r[AGX_ROLE_SX] >= 0 && f[r[AGX_ROLE_SX]];
      if (t == 0) {
         if (od->is_float) {
            o->type = AGX_OPERAND_FIMM;
            o->value = (uint16_t)v;
            o->fimm = agx_minifloat_decode((uint8_t)v);
         } else {
            mk_imm(o, v);
         }
      } else if ((t & 0xc) == 0x4) {
         uint32_t u = v | ((t & 1) << 8);
         if (t & 2)
            mk_reg(o, AGX_FILE_UNIFORM, 32, u >> 1, 1, 0);
         else
            mk_reg(o, AGX_FILE_UNIFORM, 16, u, 1, 0);
      } else if (t & 3) {
         unsigned h = hint_flags(t & 3);
         if (od->max_size >= 64 && (t & 0xc) == 0xc)
            mk_reg(o, AGX_FILE_GPR, 64, v >> 1, 1, h);
         else if (od->max_size >= 32 && (t & 0x8))
            mk_reg(o, AGX_FILE_GPR, 32, v >> 1, 1, h);
         else
            mk_reg(o, AGX_FILE_GPR, 16, v, 1, h);
      } else {
         o->type = AGX_OPERAND_NONE;
         break;
      }
      if (sx && o->type == AGX_OPERAND_REG)
         o->flags |= AGX_OPF_SX;
      if (m & 1)
         o->flags |= AGX_OPF_ABS;
      if (m & 2)
         o->flags |= AGX_OPF_NEG;
      break;
   }
   case AGX_KIND_CMPSEL_SRC: {
      bool is32 = dep & 2;
      if (t == 4)
         mk_imm(o, v);
      else if (t >= 1 && t <= 3)
         mk_reg(o, AGX_FILE_GPR, is32 ? 32 : 16, is32 ? v >> 1 : v, 1, hint_flags(t));
      else if (t >= 6) {
         uint32_t u = v | ((t & 1) << 8);
         mk_reg(o, AGX_FILE_UNIFORM, is32 ? 32 : 16, is32 ? u >> 1 : u, 1, 0);
      } else
         o->type = AGX_OPERAND_NONE;
      break;
   }
   case AGX_KIND_BITS_LSB:
      for (unsigned i = 0; i < od->param && i < sizeof(buf) - 1; i++)
         buf[i] = (char)('0' + ((v >> i) & 1));
      buf[od->param < sizeof(buf) ? od->param : sizeof(buf) - 1] = 0;
      mk_text(o, buf);
      break;
   case AGX_KIND_IMM:
      mk_imm(o, v);
      break;
   case AGX_KIND_BINARY:
      buf[0] = '0';
      buf[1] = 'b';
      for (unsigned i = 0; i < width && i < 20; i++)
         buf[2 + i] = (char)('0' + ((v >> (width - 1 - i)) & 1));
      buf[2 + (width < 20 ? width : 20)] = 0;
      mk_text(o, buf);
      break;
   case AGX_KIND_ENUM: {
      const struct agx_isa_enum_value *ev = enum_lookup(od->enum_id, v);
      if (ev)
         mk_text(o, ev->name);
      else
         mk_imm(o, v);
      break;
   }
   case AGX_KIND_LSL:
      if (v) {
         snprintf(buf, sizeof(buf), "lsl %u", (unsigned)v);
         mk_text(o, buf);
      }
      break;
   case AGX_KIND_BITMASK:
      if (v) {
         snprintf(buf, sizeof(buf), "mask 0x%" PRIX64, ((uint64_t)1 << v) - 1);
         mk_text(o, buf);
      }
      break;
   case AGX_KIND_BRANCH:
      o->type = AGX_OPERAND_OFFSET;
      o->imm = sext(v, width);
      break;
   case AGX_KIND_MEM_INDEX:
      if (t)
         mk_imm(o, sext(v, 16));
      else
         mk_reg(o, AGX_FILE_GPR, 32, v >> 1, 1, 0);
      break;
   case AGX_KIND_MEM_BASE:
      mk_reg(o, t ? AGX_FILE_UNIFORM : AGX_FILE_GPR, 64, v >> 1, 1, 0);
      break;
   case AGX_KIND_MEM_REG: {
      unsigned n = (unsigned)__builtin_popcount(dep);
      if (t)
         mk_reg(o, AGX_FILE_GPR, 32, v >> 1, n, 0);
      else
         mk_reg(o, AGX_FILE_GPR, 16, v, n, 0);
      break;
   }
   case AGX_KIND_TG_BASE:
      if (t == 0)
         mk_reg(o, AGX_FILE_GPR, 16, v, 1, 0);
      else if (t == 2)
         mk_imm(o, 0);
      else
         mk_reg(o, AGX_FILE_UNIFORM, 16, v | ((t >> 1) << 8), 1, 0);
      break;
   case AGX_KIND_TG_INDEX:
      if (t)
         mk_imm(o, sext(v, 16));
      else
         mk_reg(o, AGX_FILE_GPR, 16, v & 0xff, 1, 0);
      break;
   case AGX_KIND_SREG:
      mk_reg(o, AGX_FILE_SPECIAL, 32, v, 1, 0);
      break;
   case AGX_KIND_REG32:
      mk_reg(o, AGX_FILE_GPR, 32, v, 1, 0);
      break;
   case AGX_KIND_VAR_REG: {
      unsigned n = (dep ? dep : 4) * od->param;
      if (t)
         mk_reg(o, AGX_FILE_GPR, 32, v >> 1, n, 0);
      else
         mk_reg(o, AGX_FILE_GPR, 16, v, n, 0);
      break;
   }
   case AGX_KIND_CF:
      if (t)
         mk_reg(o, AGX_FILE_GPR, 16, v, 1, 0);
      else
         mk_reg(o, AGX_FILE_CF, 32, v, 1, 0);
      break;
   case AGX_KIND_CF_PLAIN:
      mk_reg(o, AGX_FILE_CF, 32, v, 1, 0);
      break;
   case AGX_KIND_ITER_SAMPLE: {
      /* the interpolation mode's form (agx_isa.xml) decides what S is */
      const struct agx_isa_enum_value *ev = enum_lookup(od->enum_id, dep);
      if (ev && ev->form == AGX_FORM_GPR16)
         mk_reg(o, AGX_FILE_GPR, 16, v, 1, 0);
      else if (ev && ev->form == AGX_FORM_IMM)
         mk_imm(o, v);
      break;
   }
   case AGX_KIND_R16_OR_IMM:
      if ((t != 0) == (od->param == 1))
         mk_imm(o, v);
      else
         mk_reg(o, AGX_FILE_GPR, 16, v, 1, 0);
      break;
   case AGX_KIND_ZS:
      mk_reg(o, AGX_FILE_GPR, 16, v, (dep ? 2 : 0) + (dep2 ? 1 : 0), 0);
      break;
   case AGX_KIND_SAMPLE_UREG:
      if (dep & 2)
         mk_reg(o, AGX_FILE_UNIFORM, 64, v * 2, 1, 0);
      else
         o->type = AGX_OPERAND_NONE;
      break;
   case AGX_KIND_TEXTURE:
      if (t == 0)
         mk_reg(o, AGX_FILE_TEXTURE, 32, v, 1, 0);
      else if (t == 1 || (t == 2 && v != 0))
         mk_reg(o, AGX_FILE_GPR, 16, v, 1, 0);
      else if (t == 2)
         mk_imm(o, 0);
      else
         mk_reg(o, AGX_FILE_GPR, 32, v >> 1, 1, 0);
      break;
   case AGX_KIND_SAMPLER:
      if (t)
         mk_reg(o, AGX_FILE_GPR, 16, v, 1, 0);
      else
         mk_reg(o, AGX_FILE_SAMPLER, 32, v, 1, 0);
      break;
   case AGX_KIND_COORDS: {
      bool s16 = r[AGX_ROLE_SX] >= 0 && f[r[AGX_ROLE_SX]];
      unsigned count = dep < 9 ? tex_sizes[dep][0] : 0;
      unsigned extra = dep < 9 ? tex_sizes[dep][1] : 0;
      unsigned fl = t ? AGX_OPF_DISCARD : 0;
      if (s16)
         mk_reg(o, AGX_FILE_GPR, 16, v, count + extra, fl);
      else if (extra)
         mk_reg(o, AGX_FILE_GPR, 16, v, count * 2 + 1, fl);
      else
         mk_reg(o, AGX_FILE_GPR, 32, v >> 1, count, fl);
      break;
   }
   case AGX_KIND_LOD: {
      /* The LOD mode's form (agx_isa.xml) decides what D is. */
      const struct agx_isa_enum_value *ev = enum_lookup(od->enum_id, dep);
      unsigned form = ev ? ev->form : AGX_FORM_ANY;
      if (form == AGX_FORM_ZERO)
         mk_imm(o, 0);
      else if (form == AGX_FORM_GRAD || form == AGX_FORM_GRAD_MIN) {
         unsigned count = (dep2 < 9 ? tex_sizes[dep2][0] : 0) * 2 +
                          (form == AGX_FORM_GRAD_MIN);
         mk_reg(o, AGX_FILE_GPR, 32, v >> 1, count, 0);
      } else if (form == AGX_FORM_UNIFORM16)
         mk_reg(o, AGX_FILE_UNIFORM, 16, v, 1, 0);
      else if (form == AGX_FORM_GPR16)
         mk_reg(o, AGX_FILE_GPR, 16, v, 1, 0);
      else
         o->type = AGX_OPERAND_NONE;
      break;
   }
   case AGX_KIND_CMP_OFF: {
      /* A 32-bit compare value then a 16-bit offset word, either optional:
       * mixed sizes, so it is carried as text plus the raw start in imm. */
      char *p = buf;
      size_t left = sizeof(buf);
      unsigned cur = v;
      buf[0] = 0;
      if (dep) {
         snprintf(p, left, "r%u", cur >> 1);
         cur += 2;
      }
      if (t) {
         size_t l = strlen(buf);
         snprintf(buf + l, sizeof(buf) - l, "%sr%u%c", l ? "_" : "", (cur >> 1) & 0x7fff,
                  (cur & 1) ? 'h' : 'l');
      }
      mk_text(o, buf);
      o->imm = v;
      break;
   }
   case AGX_KIND_PBE_SRC:
      if (t)
         mk_reg(o, AGX_FILE_GPR, 32, v >> 1, 4, 0);
      else
         mk_reg(o, AGX_FILE_GPR, 16, v, 4, 0);
      break;
   case AGX_KIND_REG16:
      mk_reg(o, AGX_FILE_GPR, 16, v, 1, 0);
      break;
   case AGX_KIND_ATOMIC_SRC:
      mk_reg(o, AGX_FILE_GPR, dep == 3 ? 64 : 32, v >> 1, 1, 0);
      break;
   case AGX_KIND_ATOMIC_DST:
      if (t == 1)
         mk_reg(o, AGX_FILE_GPR, 32, v >> 1, 1, 0);
      else
         o->type = AGX_OPERAND_NONE;
      break;
   }
}

/* ---- parsing ---------------------------------------------------------- */

struct regspec {
   char file;          /* 'r', 'u', 's' (sr), 't' (ts), 'S' (ss), 'c' (cf) */
   unsigned size;      /* 16 or 32 */
   unsigned first;     /* index in units of size */
   unsigned count;
   unsigned flags;
};

static bool
parse_uint(const char **s, unsigned *out)
{
   if (!isdigit((unsigned char)**s))
      return false;
   unsigned long v = strtoul(*s, (char **)s, 10);
   if (v > 65535)
      return false;
   *out = (unsigned)v;
   return true;
}

static bool
parse_flags(const char *s, unsigned *flags)
{
   static const struct { const char *n; unsigned f; } names[] = {
      { "cache", AGX_OPF_CACHE }, { "discard", AGX_OPF_DISCARD }, { "abs", AGX_OPF_ABS },
      { "neg", AGX_OPF_NEG }, { "sx", AGX_OPF_SX },
   };
   *flags = 0;
   while (*s == '.') {
      s++;
      size_t len = strcspn(s, ".");
      bool found = false;
      for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
         if (strlen(names[i].n) == len && !strncmp(s, names[i].n, len)) {
            *flags |= names[i].f;
            found = true;
         }
      }
      if (!found)
         return false;
      s += len;
   }
   return *s == 0;
}

/* One register name; returns the position after it. */
static bool
parse_one_reg(const char **s, char *file, unsigned *size, unsigned *index)
{
   const char *p = *s;
   unsigned n;
   if (!strncmp(p, "sr", 2)) {
      *file = 's';
      p += 2;
   } else if (!strncmp(p, "ts", 2)) {
      *file = 't';
      p += 2;
   } else if (!strncmp(p, "ss", 2)) {
      *file = 'S';
      p += 2;
   } else if (!strncmp(p, "cf", 2)) {
      *file = 'c';
      p += 2;
   } else if (*p == 'r' || *p == 'u') {
      *file = *p++;
   } else {
      return false;
   }
   if (!parse_uint(&p, &n))
      return false;
   *size = 32;
   *index = n;
   if ((*file == 'r' || *file == 'u') && (*p == 'l' || *p == 'h')) {
      *size = 16;
      *index = n * 2 + (*p == 'h');
      p++;
   }
   if ((*file == 'r' && n >= 128) || (*file == 'u' && n >= 256) || n >= 256)
      return false;
   *s = p;
   return true;
}

static bool
parse_regspec(const char *s, struct regspec *rs)
{
   memset(rs, 0, sizeof(*rs));
   for (;;) {
      char file;
      unsigned size, index;
      if (!parse_one_reg(&s, &file, &size, &index))
         return false;
      if (rs->count == 0) {
         rs->file = file;
         rs->size = size;
         rs->first = index;
      } else if (file != rs->file || size != rs->size || index != rs->first + rs->count) {
         return false;
      }
      rs->count++;
      if (*s != '_')
         break;
      s++;
   }
   return parse_flags(s, &rs->flags);
}

static bool
parse_int(const char *s, int64_t *out)
{
   bool neg = false;
   int base = 10;
   if (*s == '-' || *s == '+')
      neg = *s++ == '-';
   if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
      base = 16, s += 2;
   else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
      base = 2, s += 2;
   if (!*s)
      return false;
   int64_t v = 0;
   for (; *s; s++) {
      int d;
      if (isdigit((unsigned char)*s))
         d = *s - '0';
      else if (isxdigit((unsigned char)*s))
         d = tolower((unsigned char)*s) - 'a' + 10;
      else
         return false;
      if (d >= base || v > ((int64_t)1 << 40))
         return false;
      v = v * base + d;
   }
   *out = neg ? -v : v;
   return true;
}

/* Minifloat literal with optional .abs/.neg flags ("0.5.neg"). Any decimal
 * spelling of an exactly representable value is accepted. */
static bool
parse_fimm(const char *s, unsigned *raw, unsigned *flags)
{
   if (!isdigit((unsigned char)s[0]) && !(s[0] == '-' && isdigit((unsigned char)s[1])))
      return false;
   char *end;
   float f = strtof(s, &end);
   uint8_t r;
   /* plain decimals only: no exponents, hex floats, inf or nan */
   if (end == s || strspn(s, "-0123456789.") < (size_t)(end - s))
      return false;
   if (!agx_minifloat_encode(f, &r) || !parse_flags(end, flags))
      return false;
   *raw = r;
   return true;
}

#define FAIL(...) do { snprintf(err, err_size, __VA_ARGS__); return false; } while (0)

static bool
fits(int64_t v, unsigned width)
{
   return v >= 0 && (width >= 32 || v < ((int64_t)1 << width));
}

/*
 * An enum name may stand for several encodings that differ only in the
 * form of the operand the enum governs (lod_min: LOD in a uniform or in a
 * register; interpolation `sample`: immediate or register index).  The
 * enum operand, printed first, took the first value of that name; once
 * the governed operand is parsed, switch to the value whose form it has.
 * Values without a form (or unnamed numbers) are left as written.
 */
static bool
select_form(const struct agx_isa_operand_desc *od, uint32_t *f, unsigned want,
            const char *s, char *err, size_t err_size)
{
   int di = od->role[AGX_ROLE_DEP];
   if (od->enum_id < 0 || di < 0)
      return true;
   const struct agx_isa_enum *e = &agx_isa_enums[od->enum_id];
   const struct agx_isa_enum_value *cur = enum_lookup(od->enum_id, f[di]);
   if (!cur || cur->form == AGX_FORM_ANY)
      return true;
   unsigned have = cur->form == AGX_FORM_GRAD_MIN ? AGX_FORM_GRAD : cur->form;
   if (have == want)
      return true;
   const struct agx_isa_enum_value *vals = agx_isa_enum_vals(e);
   for (unsigned i = 0; i < e->num_values; i++) {
      if (vals[i].form == want && !strcmp(vals[i].name, cur->name)) {
         f[di] = vals[i].value;
         return true;
      }
   }
   snprintf(err, err_size, "'%s' does not fit %s '%s'", s, e->name, cur->name);
   return false;
}

/* "HEX" or "-HEX" (after "0x"): the offset from pc to that target, if
 * it is representable at all (the field width is checked by the caller). */
static bool
branch_target_offset(const char *s, uint64_t pc, int64_t *off)
{
   bool neg = *s == '-';
   if (neg)
      s++;
   if (!isxdigit((unsigned char)*s) || strlen(s) > 16)
      return false;
   char *end;
   errno = 0;
   unsigned long long mag = strtoull(s, &end, 16);
   if (*end || errno)
      return false;
   /* offset = +/-mag - pc, kept only if it fits in 63 bits */
   uint64_t d;
   if (neg) {
      d = (uint64_t)mag + pc;
      if (d < pc || d > (uint64_t)INT64_MAX)
         return false;
      *off = -(int64_t)d;
   } else if (mag >= pc) {
      d = (uint64_t)mag - pc;
      if (d > (uint64_t)INT64_MAX)
         return false;
      *off = (int64_t)d;
   } else {
      d = pc - (uint64_t)mag;
      if (d > (uint64_t)INT64_MAX)
         return false;
      *off = -(int64_t)d;
   }
   return true;
}

bool
agx_isa_operand_parse(const struct agx_isa_op_desc *desc,
                      const struct agx_isa_operand_desc *od, const char *s,
                      uint32_t *f, bool final, uint64_t pc, char *err, size_t err_size)
{
   const int8_t *r = od->role;
   unsigned width = agx_isa_field_width(&agx_isa_op_fields(desc)[r[AGX_ROLE_VALUE]]);
   uint32_t *v = &f[r[AGX_ROLE_VALUE]];
   uint32_t dummy = 0;
   uint32_t *t = r[AGX_ROLE_TYPE] >= 0 ? &f[r[AGX_ROLE_TYPE]] : &dummy;
   uint32_t dep = r[AGX_ROLE_DEP] >= 0 ? f[r[AGX_ROLE_DEP]] : 0;
   struct regspec rs;
   int64_t iv;
   bool is_reg = parse_regspec(s, &rs);
   bool is_int = parse_int(s, &iv);
   bool gpr1 = is_reg && rs.file == 'r' && rs.count == 1;

   switch ((enum agx_isa_kind)od->kind) {
   case AGX_KIND_ALU_DST:
      if (!is_reg || rs.file != 'r' || (rs.flags & ~AGX_OPF_CACHE))
         FAIL("expected a destination register, got '%s'", s);
      *t = (rs.flags & AGX_OPF_CACHE) ? 1 : 0;
      if (rs.size == 16 && rs.count == 1)
         *v = rs.first;
      else if (rs.size == 32 && rs.count == 1 && od->asm_max_size >= 32)
         *v = rs.first << 1, *t |= 2;
      else if (rs.size == 32 && rs.count == 2 && od->asm_max_size >= 64)
         *v = (rs.first << 1) | 1, *t |= 2;
      else
         FAIL("register '%s' has the wrong size here", s);
      return true;
   case AGX_KIND_R0L:
      if (!gpr1 || rs.size != 16 || rs.first != 0 || (rs.flags & ~AGX_OPF_CACHE))
         FAIL("expected r0l, got '%s'", s);
      *v = rs.flags ? 1 : 0;
      return true;
   case AGX_KIND_ALU_SRC: {
      unsigned flags = 0, allowed = AGX_OPF_CACHE | AGX_OPF_DISCARD;
      unsigned fraw;
      if (r[AGX_ROLE_SX] >= 0)
         allowed |= AGX_OPF_SX;
      if (r[AGX_ROLE_MOD] >= 0)
         allowed |= AGX_OPF_ABS | AGX_OPF_NEG;
      unsigned tw = agx_isa_field_width(&agx_isa_op_fields(desc)[r[AGX_ROLE_TYPE]]);
      if (is_reg && rs.file == 'r') {
         unsigned hint = (rs.flags & AGX_OPF_CACHE) ? 2 : (rs.flags & AGX_OPF_DISCARD) ? 3 : 1;
         if ((rs.flags & AGX_OPF_CACHE) && (rs.flags & AGX_OPF_DISCARD))
            FAIL("'%s': cache and discard exclude each other", s);
         if (rs.size == 16 && rs.count == 1)
            *v = rs.first, *t = hint;
         else if (rs.size == 32 && rs.count == 1 && od->max_size >= 32 && tw >= 4)
            *v = rs.first << 1, *t = 0x8 | hint;
         else if (rs.size == 32 && rs.count == 2 && od->max_size >= 64)
            *v = rs.first << 1, *t = 0xc | hint;
         else
            FAIL("register '%s' has the wrong size here", s);
         flags = rs.flags;
      } else if (is_reg && rs.file == 'u' && rs.count == 1) {
         /* 32-bit uniforms decode even in 16-bit sources (the type field
          * has the bit), so accept them back */
         unsigned u = rs.size == 16 ? rs.first : rs.first << 1;
         *t = 0x4 | (rs.size == 32 ? 2 : 0) | ((u >> 8) & 1);
         *v = u & 0xff;
         flags = rs.flags;
         if (flags & (AGX_OPF_CACHE | AGX_OPF_DISCARD))
            FAIL("uniform '%s' takes no cache hints", s);
      } else if (is_int) {
         if (!fits(iv, 8))
            FAIL("immediate '%s' out of range (0-255)", s);
         *v = (uint32_t)iv, *t = 0;
      } else if (parse_fimm(s, &fraw, &flags)) {
         *v = fraw, *t = 0;
      } else {
         FAIL("expected a register or immediate, got '%s'", s);
      }
      if (flags & ~allowed)
         FAIL("modifier not allowed on '%s'", s);
      if (r[AGX_ROLE_SX] >= 0)
         f[r[AGX_ROLE_SX]] = (flags & AGX_OPF_SX) ? 1 : 0;
      if (r[AGX_ROLE_MOD] >= 0)
         f[r[AGX_ROLE_MOD]] = ((flags & AGX_OPF_ABS) ? 1 : 0) | ((flags & AGX_OPF_NEG) ? 2 : 0);
      return true;
   }
   case AGX_KIND_CMPSEL_SRC: {
      bool is32 = dep & 2;
      if (is_reg && (rs.file == 'r' || rs.file == 'u') && rs.count == 1) {
         if ((rs.size == 32) != is32)
            FAIL("'%s' must match the destination size", s);
         unsigned n = is32 ? rs.first << 1 : rs.first;
         if (rs.file == 'u') {
            if (rs.flags)
               FAIL("uniform '%s' takes no hints", s);
            *t = 6 | ((n >> 8) & 1), *v = n & 0xff;
         } else {
            if (rs.flags & ~(AGX_OPF_CACHE | AGX_OPF_DISCARD))
               FAIL("modifier not allowed on '%s'", s);
            *t = (rs.flags & AGX_OPF_CACHE) ? 2 : (rs.flags & AGX_OPF_DISCARD) ? 3 : 1;
            *v = n;
         }
      } else if (is_int && fits(iv, 8)) {
         *t = 4, *v = (uint32_t)iv;
      } else {
         FAIL("expected a register or 8-bit immediate, got '%s'", s);
      }
      return true;
   }
   case AGX_KIND_BITS_LSB: {
      uint32_t x = 0;
      if (strlen(s) != od->param)
         FAIL("expected %u binary digits, got '%s'", od->param, s);
      for (unsigned i = 0; i < od->param; i++) {
         if (s[i] != '0' && s[i] != '1')
            FAIL("expected binary digits, got '%s'", s);
         x |= (uint32_t)(s[i] - '0') << i;
      }
      *v = x;
      return true;
   }
   case AGX_KIND_IMM:
   case AGX_KIND_BINARY:
      if (!is_int || !fits(iv, width))
         FAIL("expected an integer of %u bits, got '%s'", width, s);
      *v = (uint32_t)iv;
      return true;
   case AGX_KIND_ENUM: {
      const struct agx_isa_enum *e = &agx_isa_enums[od->enum_id];
      /* keep a value of this name that select_form() chose already (the
       * governed operand may be printed before the enum) */
      const struct agx_isa_enum_value *cur = enum_lookup(od->enum_id, *v);
      if (cur && cur->name[0] && !strcmp(cur->name, s))
         return true;
      const struct agx_isa_enum_value *vals = agx_isa_enum_vals(e);
      for (unsigned i = 0; i < e->num_values; i++) {
         if (vals[i].name[0] && !strcmp(vals[i].name, s)) {
            *v = vals[i].value;
            return true;
         }
      }
      /* numbers only for values without a name, as the printer does */
      if (is_int && fits(iv, width) && !enum_lookup(od->enum_id, (uint32_t)iv)) {
         *v = (uint32_t)iv;
         return true;
      }
      FAIL("unknown %s '%s'", e->name, s);
   }
   case AGX_KIND_LSL:
      if (strncmp(s, "lsl ", 4) || !parse_int(s + 4, &iv) || !fits(iv, width))
         FAIL("expected 'lsl N', got '%s'", s);
      *v = (uint32_t)iv;
      return true;
   case AGX_KIND_BITMASK: {
      if (strncmp(s, "mask ", 5) || !parse_int(s + 5, &iv) || iv < 0 || iv > 0xffffffffll)
         FAIL("expected 'mask 0x...', got '%s'", s);
      uint64_t m1 = (uint64_t)iv + 1;
      if (m1 & (m1 - 1))
         FAIL("mask '%s' is not 2^n-1", s);
      unsigned n = 0;
      while ((1ull << n) < m1)
         n++;
      if (n == 32)
         n = 0;
      if (n == 0 || !fits(n, width))
         FAIL("mask '%s' out of range", s);
      *v = n;
      return true;
   }
   case AGX_KIND_BRANCH: {
      if (!strncmp(s, "0x", 2)) {
         /* applegpu's absolute target: 0xHEX, or 0x-HEX below address 0 */
         if (!branch_target_offset(s + 2, pc, &iv))
            FAIL("bad branch target '%s' (from address 0x%" PRIX64 ")", s, pc);
      } else if (strncmp(s, "pc", 2) || (s[2] != '+' && s[2] != '-') ||
                 !parse_int(s + 3, &iv)) {
         FAIL("expected a target '0xADDR', 'pc+N' or 'pc-N', got '%s'", s);
      } else if (s[2] == '-') {
         iv = -iv;
      }
      if (iv < -((int64_t)1 << (width - 1)) || iv >= ((int64_t)1 << (width - 1)))
         FAIL("branch offset '%s' out of range", s);
      *v = (uint32_t)((uint64_t)iv & (width >= 32 ? 0xffffffffu : (1u << width) - 1));
      return true;
   }
   case AGX_KIND_MEM_INDEX:
   case AGX_KIND_TG_INDEX: {
      bool tg = od->kind == AGX_KIND_TG_INDEX;
      if (gpr1 && !rs.flags && rs.size == (tg ? 16u : 32u)) {
         *t = 0;
         *v = tg ? rs.first : rs.first << 1;
         if (tg && rs.first > 0xff)
            FAIL("index register '%s' out of range", s);
      } else if (is_int && iv >= -32768 && iv <= 65535) {
         *t = 1;
         *v = (uint32_t)iv & 0xffff;
      } else {
         FAIL("expected an index register or 16-bit offset, got '%s'", s);
      }
      return true;
   }
   case AGX_KIND_MEM_BASE:
      if (!is_reg || rs.flags || rs.size != 32 || rs.count != 2 || (rs.file != 'r' && rs.file != 'u') ||
          !fits(rs.first << 1, width))
         FAIL("expected a 64-bit base like r0_r1 or u0_u1, got '%s'", s);
      *t = rs.file == 'u';
      *v = rs.first << 1;
      return true;
   case AGX_KIND_MEM_REG:
   case AGX_KIND_VAR_REG:
   case AGX_KIND_PBE_SRC: {
      if (!is_reg || rs.file != 'r' || rs.flags)
         FAIL("expected consecutive registers, got '%s'", s);
      unsigned n = rs.size == 32 ? rs.first << 1 : rs.first;
      if (!fits(n, width))
         FAIL("register '%s' out of range", s);
      *v = n;
      *t = rs.size == 32;
      if (od->kind == AGX_KIND_PBE_SRC) {
         if (rs.count != 4)
            FAIL("expected 4 registers, got '%s'", s);
      } else if (od->kind == AGX_KIND_VAR_REG) {
         if (rs.count % od->param || rs.count / od->param < 1 || rs.count / od->param > 4)
            FAIL("wrong number of registers in '%s'", s);
         f[r[AGX_ROLE_DEP]] = (rs.count / od->param) & 3;
      } else if (final && rs.count != (unsigned)__builtin_popcount(dep)) {
         FAIL("'%s': register count must match the mask", s);
      }
      return true;
   }
   case AGX_KIND_TG_BASE:
      if (gpr1 && rs.size == 16 && !rs.flags && rs.first < 256)
         *t = 0, *v = rs.first;
      else if (is_int && iv == 0)
         *t = 2, *v = 0;
      else if (is_reg && rs.file == 'u' && rs.count == 1 && rs.size == 16 && !rs.flags)
         *t = rs.first >= 256 ? 3 : 1, *v = rs.first & 0xff;
      else
         FAIL("expected r16, u16 or 0, got '%s'", s);
      return true;
   case AGX_KIND_SREG: {
      char tmp[16];
      size_t l = strcspn(s, " ");
      if (l >= sizeof(tmp))
         FAIL("expected a special register, got '%s'", s);
      memcpy(tmp, s, l);
      tmp[l] = 0;
      if (s[l] && s[l + 1] != '(')
         FAIL("expected a special register, got '%s'", s);
      if (!parse_regspec(tmp, &rs) || rs.file != 's' || rs.count != 1 || rs.flags)
         FAIL("expected a special register, got '%s'", s);
      *v = rs.first;
      return true;
   }
   case AGX_KIND_REG32:
      if (!gpr1 || rs.size != 32 || rs.flags || !fits(rs.first, width))
         FAIL("expected a 32-bit register, got '%s'", s);
      *v = rs.first;
      return true;
   case AGX_KIND_CF:
   case AGX_KIND_CF_PLAIN:
      if (is_reg && rs.file == 'c' && rs.count == 1 && !rs.flags && fits(rs.first, width))
         *t = 0, *v = rs.first;
      else if (od->kind == AGX_KIND_CF && gpr1 && rs.size == 16 && !rs.flags && fits(rs.first, width))
         *t = 1, *v = rs.first;
      else
         FAIL("expected a coefficient register, got '%s'", s);
      return true;
   case AGX_KIND_ITER_SAMPLE:
   case AGX_KIND_R16_OR_IMM:
   case AGX_KIND_REG16:
      if (gpr1 && rs.size == 16 && !rs.flags && fits(rs.first, width)) {
         *v = rs.first;
         *t = od->param == 1 ? 0 : 1;
      } else if (is_int && fits(iv, width) && od->kind != AGX_KIND_REG16) {
         *v = (uint32_t)iv;
         *t = od->param == 1 ? 1 : 0;
      } else {
         FAIL("expected a 16-bit register%s, got '%s'",
              od->kind == AGX_KIND_REG16 ? "" : " or immediate", s);
      }
      if (od->kind == AGX_KIND_ITER_SAMPLE)
         return select_form(od, f, is_int ? AGX_FORM_IMM : AGX_FORM_GPR16, s, err, err_size);
      return true;
   case AGX_KIND_ZS:
      if (!is_reg || rs.file != 'r' || rs.size != 16 || rs.flags || rs.count > 3 || !fits(rs.first, width))
         FAIL("expected 1-3 consecutive 16-bit registers, got '%s'", s);
      *v = rs.first;
      f[r[AGX_ROLE_DEP]] = rs.count >= 2;
      f[r[AGX_ROLE_DEP2]] = rs.count != 2;
      return true;
   case AGX_KIND_SAMPLE_UREG:
      if (!strcmp(s, "None")) {
         *v = 0;
         return true;
      }
      if (!is_reg || rs.file != 'u' || rs.size != 32 || rs.count != 2 || (rs.first & 1) ||
          !fits(rs.first / 2, width))
         FAIL("expected None or an even uniform pair, got '%s'", s);
      *v = rs.first / 2;
      return true;
   case AGX_KIND_TEXTURE:
      if (is_reg && rs.file == 't' && rs.count == 1 && fits(rs.first, width))
         *t = 0, *v = rs.first;
      else if (gpr1 && rs.size == 16 && !rs.flags && fits(rs.first, width) && rs.first)
         *t = 1, *v = rs.first;
      else if (gpr1 && rs.size == 32 && !rs.flags && fits(rs.first << 1, width))
         *t = 3, *v = rs.first << 1;
      else if (is_int && iv == 0)
         *t = 2, *v = 0;
      else
         FAIL("expected a texture (tsN or register), got '%s'", s);
      return true;
   case AGX_KIND_SAMPLER:
      if (is_reg && rs.file == 'S' && rs.count == 1 && fits(rs.first, width))
         *t = 0, *v = rs.first;
      else if (gpr1 && rs.size == 16 && !rs.flags && fits(rs.first, width))
         *t = 1, *v = rs.first;
      else
         FAIL("expected a sampler (ssN or register), got '%s'", s);
      return true;
   case AGX_KIND_COORDS: {
      unsigned count = dep < 9 ? tex_sizes[dep][0] : 0;
      unsigned extra = dep < 9 ? tex_sizes[dep][1] : 0;
      if (!is_reg || rs.file != 'r' || (rs.flags & ~AGX_OPF_DISCARD))
         FAIL("expected coordinate registers, got '%s'", s);
      *t = (rs.flags & AGX_OPF_DISCARD) ? 1 : 0;
      if (rs.size == 32) {
         f[r[AGX_ROLE_SX]] = 0;
         *v = rs.first << 1;
      } else {
         f[r[AGX_ROLE_SX]] = !(extra && rs.count == count * 2 + 1);
         *v = rs.first;
      }
      if (!fits(*v, width))
         FAIL("register '%s' out of range", s);
      return true;
   }
   case AGX_KIND_LOD: {
      unsigned want;
      if (is_int && iv == 0)
         want = AGX_FORM_ZERO, *v = 0;
      else if (is_reg && rs.count == 1 && rs.size == 16 && !rs.flags &&
               (rs.file == 'u' || rs.file == 'r') && fits(rs.first, width))
         want = rs.file == 'u' ? AGX_FORM_UNIFORM16 : AGX_FORM_GPR16, *v = rs.first;
      else if (is_reg && rs.file == 'r' && rs.size == 32 && !rs.flags &&
               fits(rs.first << 1, width))
         want = AGX_FORM_GRAD, *v = rs.first << 1;
      else
         FAIL("expected a level-of-detail operand, got '%s'", s);
      return select_form(od, f, want, s, err, err_size);
   }
   case AGX_KIND_CMP_OFF: {
      const char *p = s;
      char file;
      unsigned size, index;
      uint32_t start = 0;
      bool have_start = false;
      *t = 0;
      if (dep) {
         if (!parse_one_reg(&p, &file, &size, &index) || file != 'r' || size != 32)
            FAIL("expected the 32-bit compare register first, got '%s'", s);
         start = index << 1;
         have_start = true;
         if (*p == '_')
            p++;
      }
      if (*p) {
         if (!parse_one_reg(&p, &file, &size, &index) || file != 'r' || size != 16 || *p)
            FAIL("expected a 16-bit offset register, got '%s'", s);
         if (have_start && index != start + 2)
            FAIL("offset register must follow the compare value in '%s'", s);
         if (!have_start)
            start = index;
         *t = 1;
      }
      if (!fits(start, width))
         FAIL("register '%s' out of range", s);
      *v = start;
      return true;
   }
   case AGX_KIND_ATOMIC_SRC:
      if (!is_reg || rs.file != 'r' || rs.size != 32 || rs.flags || rs.count > 2 ||
          !fits(rs.first << 1, width))
         FAIL("expected a 32- or 64-bit register, got '%s'", s);
      *v = rs.first << 1;
      return true;
   case AGX_KIND_ATOMIC_DST:
      if (!strcmp(s, "None")) {
         *t = 0, *v = 0;
         return true;
      }
      if (!gpr1 || rs.size != 32 || rs.flags || !fits(rs.first << 1, width))
         FAIL("expected None or a 32-bit register, got '%s'", s);
      *t = 1, *v = rs.first << 1;
      return true;
   }
   FAIL("unsupported operand");
}
