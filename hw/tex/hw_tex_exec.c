/* SPDX-License-Identifier: MIT */
/*
 * Texture instructions on a SIMD group: operand fetch from registers,
 * descriptor lookup (cached per instruction execution), per-lane dispatch
 * to the sampling and write paths, results back into registers.
 *
 * Operand conventions (applegpu's field layout; meanings from how Mesa
 * sets the operands up):
 *  - coordinates: 32-bit floats (sample) or integers (load/write), one
 *    register per axis; array/cube-array/multisample forms add 16-bit
 *    integer slots after them: the layer, the sample index, or for
 *    multisampled arrays the sample index then the layer (Mesa packs the
 *    two as one 32-bit word, sample in the low half: agx_nir_lower_texture.c,
 *    agx_compile.c's image stores).  With Cs the
 *    coordinates themselves are 16-bit (fp16 or int16).
 *  - lod: fp16 bias (auto_lod_bias) or fp16 level (lod_min) from a 16-bit
 *    uniform or register; for texture_load an integer level.  Gradients are
 *    32-bit (dPdx.s, dPdy.s, dPdx.t, dPdy.t[, dPdx.r, dPdy.r]) followed by
 *    a 32-bit minimum LOD for lod_grad_min.
 *  - O: a 32-bit reference when `compare` is set, then a 16-bit word of
 *    4-bit signed texel offsets (x bits 0-3, y 4-7, z 8-11), for
 *    texture_sample and texture_load (texelFetchOffset) alike.
 *  - results: the components in `mask`, packed, 32-bit registers (Rt) or
 *    16-bit ones (fp16 for float formats, low 16 bits for integers).
 *  - texture: ts index (table + 24 * index), a 16-bit register holding the
 *    index, or bindless (Tt bit 1): a 64-bit uniform base U plus a byte
 *    offset from a register.  Samplers: ss index or 16-bit register.
 */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmdstream/agx_pack.h"
#include "hw/tex/hw_tex.h"
#include "tessera/float_bits.h"
#include "tessera/half.h"

/* Coordinates and extra (array/sample) slots per tex_type. */
static const uint8_t tex_sizes[9][2] = {
   { 1, 0 }, { 1, 1 }, { 2, 0 }, { 2, 1 }, { 2, 1 }, { 3, 0 }, { 3, 0 }, { 3, 1 }, { 2, 2 },
};

struct exec {
   const struct hw_tex_ctx *ctx;
   struct hw_usc_simd *simd;
   const struct agx_instr *in;
   char *err;
   size_t err_size;
   /* one-entry descriptor caches, keyed by GPU address */
   uint64_t view_addr, sampler_addr, image_addr;
   bool view_ok, sampler_ok, image_ok;
   unsigned view_gen, sampler_gen;  /* bumped when view / sampler is decoded */
   /* operands and fields looked up once per execution */
   const struct agx_operand *R, *C, *D, *T, *S, *O, *U;
   uint32_t tt, cs, mask;
   /* write_result's destination rows (R + k), looked up on first use */
   uint32_t *rrow[4];
   unsigned rsh[4];
   bool rrows;
   /* Operand register rows fetched so far (bit r: row[r] is valid). */
   uint64_t row_valid[2];
   /* Decoded descriptors, last: valid only while view_ok / sampler_ok /
    * image_ok say so (the decoders write them whole), so hw_tex_execute
    * clears only the fields before them, not a kilobyte per instruction. */
   struct hw_tex_view view;
   struct hw_tex_sampler sampler;
   struct hw_tex_image image;
   uint32_t *row[128];
   /* Assigned whole before use (pbe_mmu only by the image writes). */
   struct hw_mmu tex_mmu;          /* reads as HW_UNIT_TEX */
   struct hw_mmu pbe_mmu;          /* writes as HW_UNIT_PBE */
};

/* Operands and fields by name, through per-opcode index tables (the
 * lookups run on every texture instruction execution). */
enum { OP_R, OP_C, OP_D, OP_T, OP_S, OP_O, OP_U, NUM_OPS };
enum { F_TT, F_CS, F_MASK, F_N, F_LOD, F_COMPARE, F_Q6, F_MODE, F_OT, F_ROUND, F_F, F_EXPLICIT,
       NUM_FIELDS };
static const char *const op_names[NUM_OPS] = { "R", "C", "D", "T", "S", "O", "U" };
static const char *const field_names[NUM_FIELDS] = { "Tt", "Cs", "mask", "n", "lod", "compare", "q6", "mode", "Ot", "round", "F",
                                                        "explicit" };
static int8_t op_idx[AGX_NUM_OPCODES][HW_ISA_NAMES_MAX];
static int8_t field_idx[AGX_NUM_OPCODES][HW_ISA_NAMES_MAX];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void
names_init(void)
{
   hw_isa_names_fill(op_idx, op_names, NUM_OPS, false);
   hw_isa_names_fill(field_idx, field_names, NUM_FIELDS, true);
}

static const struct agx_operand *
operand(const struct agx_instr *in, unsigned k)
{
   return hw_isa_operand(in, (const int8_t (*)[HW_ISA_NAMES_MAX])op_idx, k);
}

static uint32_t
field(const struct agx_instr *in, unsigned k)
{
   return hw_isa_field(in, (const int8_t (*)[HW_ISA_NAMES_MAX])field_idx, k);
}

/* Register reads go through the rows (hw_usc_simd_row32), fetched once
 * per register and instruction: the same values as the per-lane
 * accessors, whose first touch of a register is the row fetch's, without
 * a call per lane and operand (every lane reads several). */
static inline const uint32_t *
reg_row(struct exec *e, unsigned reg)
{
   reg &= 127;
   uint64_t bit = 1ull << (reg & 63);
   if (!(e->row_valid[reg >> 6] & bit)) {
      e->row[reg] = hw_usc_simd_row32(e->simd, reg);
      e->row_valid[reg >> 6] |= bit;
   }
   return e->row[reg];
}

static inline uint16_t
rd16(struct exec *e, unsigned half, unsigned lane)
{
   half &= 0xff;
   return (uint16_t)(reg_row(e, half >> 1)[lane & 31] >> ((half & 1) * 16));
}

static inline uint32_t
rd32(struct exec *e, unsigned reg, unsigned lane)
{
   return reg_row(e, reg)[lane & 31];
}

static uint16_t
uniform16(struct exec *e, unsigned half)
{
   uint32_t w = hw_usc_simd_uniform32(e->simd, (half >> 1) & 0xff);
   return (uint16_t)(half & 1 ? w >> 16 : w);
}

static enum hw_usc_status
bad(struct exec *e, const char *msg)
{
   if (e->err)
      snprintf(e->err, e->err_size, "%s", msg);
   return HW_USC_BAD_CODE;
}

/* Value of a 16-bit-or-immediate style operand for one lane. */
static uint32_t
small_operand(struct exec *e, const struct agx_operand *o, unsigned lane)
{
   if (!o || o->type == AGX_OPERAND_IMM)
      return o ? (uint32_t)o->imm : 0;
   if (o->type != AGX_OPERAND_REG)
      return 0;
   if (o->file == AGX_FILE_UNIFORM)
      return uniform16(e, o->value);
   return o->size == 32 ? rd32(e, o->value, lane) : rd16(e, o->value, lane);
}

/* True when the operand's value cannot differ between lanes (absent, an
 * immediate, a uniform, or an index into table_file's table, which
 * desc_address/get_sampler take from the instruction itself; the bindless
 * heap base U is always a uniform). */
#define NUM_FILES_NONE (~0u)   /* lane_invariant: no table-index file */

static bool
lane_invariant(const struct agx_operand *o, unsigned table_file)
{
   return !o || o->file == table_file || o->type != AGX_OPERAND_REG ||
          o->file == AGX_FILE_UNIFORM;
}

/* GPU address of slot idx of a table: the last of the words loading it,
 * else table + idx * stride (hw_tex_ctx). */
static uint64_t
slot_address(const struct hw_tex_slots *slots, unsigned n, uint64_t table,
             uint32_t idx, unsigned stride)
{
   for (unsigned i = n; i-- > 0;)
      if (idx >= slots[i].start && idx - slots[i].start < slots[i].count)
         return slots[i].buffer + (uint64_t)(idx - slots[i].start) * stride;
   return table + (uint64_t)idx * stride;
}

uint64_t
hw_tex_ctx_texture_address(const struct hw_tex_ctx *ctx, uint32_t idx)
{
   return slot_address(ctx->tex_slots, ctx->ntex_slots, ctx->texture_table, idx,
                       HW_TEX_DESC_BYTES);
}

/* GPU address of the descriptor named by T (texture/PBE) for one lane. */
static uint64_t
desc_address(struct exec *e, unsigned lane)
{
   const struct agx_operand *T = e->T;
   uint32_t tt = e->tt;
   if (!T)
      return 0;
   if (!(tt & 2)) {
      uint32_t idx = T->file == AGX_FILE_TEXTURE ? T->value : small_operand(e, T, lane);
      return hw_tex_ctx_texture_address(e->ctx, idx);
   }
   /* Bindless: 64-bit heap base in a uniform pair plus a byte offset. */
   const struct agx_operand *U = e->U;
   uint64_t base = 0;
   if (U && U->type == AGX_OPERAND_REG)
      base = hw_usc_simd_uniform32(e->simd, U->value & 0xff) |
             (uint64_t)hw_usc_simd_uniform32(e->simd, (U->value + 1) & 0xff) << 32;
   return base + small_operand(e, T, lane);
}

static enum hw_usc_status
fault(struct exec *e, struct hw_mmu *m)
{
   struct hw_mmu *um = hw_usc_simd_mmu(e->simd);
   if (m->fault.valid && um && !um->fault.valid)
      um->fault = m->fault;
   if (e->err)
      snprintf(e->err, e->err_size, "texture unit fault at 0x%llx",
               (unsigned long long)m->fault.addr);
   return HW_USC_FAULT;
}

static enum hw_usc_status
get_view(struct exec *e, unsigned lane)
{
   uint64_t a = desc_address(e, lane);
   if (e->view_ok && a == e->view_addr)
      return HW_USC_OK;
   uint8_t d[HW_TEX_DESC_BYTES];
   if (!hw_mmu_read(&e->tex_mmu, a, d, sizeof(d)))
      return fault(e, &e->tex_mmu);
   if (!hw_tex_view_decode(&e->view, d, e->err, e->err_size))
      return HW_USC_BAD_CODE;
   e->view_addr = a;
   e->view_ok = true;
   e->view_gen++;
   return HW_USC_OK;
}

static enum hw_usc_status
get_sampler(struct exec *e, unsigned lane)
{
   const struct agx_operand *S = e->S;
   uint32_t idx = S && S->file == AGX_FILE_SAMPLER ? S->value : small_operand(e, S, lane);
   unsigned stride = e->ctx->sampler_stride ? e->ctx->sampler_stride : HW_TEX_SAMPLER_BYTES;
   uint64_t a = slot_address(e->ctx->smp_slots, e->ctx->nsmp_slots, e->ctx->sampler_table, idx,
                             stride);
   if (e->sampler_ok && a == e->sampler_addr)
      return HW_USC_OK;
   uint8_t d[HW_TEX_SAMPLER_BYTES + HW_TEX_BORDER_BYTES];
   if (!hw_mmu_read(&e->tex_mmu, a, d, HW_TEX_SAMPLER_BYTES))
      return fault(e, &e->tex_mmu);
   struct agx_sampler probe;
   (void)agx_sampler_unpack(d, &probe);
   /* A custom border colour lives in the 16 bytes after the sampler. */
   bool custom = probe.border_colour == AGX_BORDER_COLOUR_CUSTOM;
   if (custom && !hw_mmu_read(&e->tex_mmu, a + HW_TEX_SAMPLER_BYTES,
                              d + HW_TEX_SAMPLER_BYTES, HW_TEX_BORDER_BYTES))
      return fault(e, &e->tex_mmu);
   if (!hw_tex_sampler_decode(&e->sampler, d, custom ? d + HW_TEX_SAMPLER_BYTES : NULL,
                              e->err, e->err_size))
      return HW_USC_BAD_CODE;
   e->sampler_addr = a;
   e->sampler_ok = true;
   e->sampler_gen++;
   return HW_USC_OK;
}

static enum hw_usc_status
get_image(struct exec *e, unsigned lane)
{
   uint64_t a = desc_address(e, lane);
   if (e->image_ok && a == e->image_addr)
      return HW_USC_OK;
   uint8_t d[HW_TEX_DESC_BYTES];
   if (!hw_mmu_read(&e->tex_mmu, a, d, sizeof(d)))
      return fault(e, &e->tex_mmu);
   if (!hw_tex_image_decode(&e->image, d, e->err, e->err_size))
      return HW_USC_BAD_CODE;
   e->image_addr = a;
   e->image_ok = true;
   return HW_USC_OK;
}

/* Raw coordinates of one lane: 32-bit words (or sign/zero-free 16-bit
 * values widened) for the axes, then the extra 16-bit slots. */
struct raw_coords {
   uint32_t c[3];
   bool half;          /* c[] hold 16-bit values */
   uint32_t extra[2];
};

/* Always inlined, fields zeroed one by one: the struct then lives in
 * registers; through memory (a memset, then narrow stores read back by a
 * wider load) each lane's coordinates took a store-forwarding stall. */
static inline __attribute__((always_inline)) bool
read_coords(struct exec *e, unsigned dim, unsigned lane, struct raw_coords *rc)
{
   const struct agx_operand *C = e->C;
   rc->c[0] = rc->c[1] = rc->c[2] = 0;
   rc->extra[0] = rc->extra[1] = 0;
   rc->half = false;
   if (!C || C->type != AGX_OPERAND_REG || dim > 8)
      return false;
   unsigned n = tex_sizes[dim][0], x = tex_sizes[dim][1];
   bool s16 = e->cs != 0;
   rc->half = s16;
   unsigned next;
   /* Constant indices (n <= 3, x <= 2), so the words stay in registers. */
#define TEX_AXIS_WORD(i)                                                        \
   (C->size == 32 ? rd32(e, C->value + (i), lane)                               \
    : s16         ? rd16(e, C->value + (i), lane)                               \
                  : rd16(e, C->value + 2 * (i), lane) |                         \
                       (uint32_t)rd16(e, C->value + 2 * (i) + 1, lane) << 16)
   if (n > 0)
      rc->c[0] = TEX_AXIS_WORD(0);
   if (n > 1)
      rc->c[1] = TEX_AXIS_WORD(1);
   if (n > 2)
      rc->c[2] = TEX_AXIS_WORD(2);
#undef TEX_AXIS_WORD
   if (C->size == 32)
      next = (C->value + n) * 2;
   else if (s16)
      next = C->value + n;
   else
      next = C->value + 2 * n;
   if (x > 0)
      rc->extra[0] = rd16(e, next, lane);
   if (x > 1)
      rc->extra[1] = rd16(e, next + 1, lane);
   return true;
}

static float
coord_float(const struct raw_coords *rc, unsigned i)
{
   return rc->half ? hw_tex_half_to_float((uint16_t)rc->c[i]) : tessera_uif(rc->c[i]);
}

static int32_t
coord_int(const struct raw_coords *rc, unsigned i)
{
   return rc->half ? (int32_t)(int16_t)rc->c[i] : (int32_t)rc->c[i];
}

/* Writes the masked components of a result texel into R for one lane.
 * Always inlined: called per lane from exec_sample's loop and from
 * exec_load_lanes, where a call per lane was a visible share. */
static inline __attribute__((always_inline)) void
write_result(struct exec *e, unsigned lane, const union hw_texel *t, bool is_float)
{
   const struct agx_operand *R = e->R;
   if (!R || R->type != AGX_OPERAND_REG)
      return;
   uint32_t mask = e->mask;
   if (!e->rrows) {
      for (unsigned k = 0; k < 4; k++) {
         unsigned reg = R->size == 32 ? (R->value + k) & 0x7f : ((R->value + k) & 0xff) >> 1;
         e->rrow[k] = hw_usc_simd_row32(e->simd, reg);
         e->rsh[k] = R->size == 32 ? 0 : ((R->value + k) & 1) * 16;
      }
      e->rrows = true;
   }
   unsigned k = 0;
   for (unsigned c = 0; c < 4; c++) {
      if (!(mask >> c & 1))
         continue;
      if (R->size == 32) {
         e->rrow[k][lane] = t->u[c];
      } else {
         uint16_t h = is_float ? tessera_f64_to_f16((double)t->f[c], false) : (uint16_t)t->u[c];
         e->rrow[k][lane] = (e->rrow[k][lane] & ~(0xffffu << e->rsh[k])) |
                            (uint32_t)h << e->rsh[k];
      }
      k++;
   }
}

static bool
dim_is_cube(unsigned dim)
{
   return dim == AGX_TEXTURE_DIMENSION_CUBE || dim == AGX_TEXTURE_DIMENSION_CUBE_ARRAY;
}

/* Per-lane sampling coordinates; st gets (s, t, r), for cubes the
 * direction (projected per lane when derivatives are taken). */
static void
lane_coords(struct exec *e, unsigned dim, unsigned lane, struct hw_tex_coord *hc,
            float st[3])
{
   struct raw_coords rc;
   read_coords(e, dim, lane, &rc);
   *hc = (struct hw_tex_coord){ .s = 0 };
   hc->s = coord_float(&rc, 0);
   hc->t = coord_float(&rc, 1);
   hc->r = coord_float(&rc, 2);
   hc->layer = rc.extra[0];
   st[0] = hc->s;
   st[1] = hc->t;
   st[2] = hc->r;
}

/* The end of a whole-group texture access: the done lanes' results
 * written, their profile counts (a faulting instruction counts its
 * faulting lane under counter too, and drops its format counts, as the
 * per-lane loop does) and the status. */
static enum hw_usc_status
lanes_finish(struct exec *e, const union hw_texel *out, uint32_t done, enum hw_tex_status ts,
             unsigned counter)
{
   bool is_float = e->view.fmt.cls == HW_TEX_CLASS_FLOAT || e->view.null;
   for (uint32_t m = done; m; m &= m - 1) {
      unsigned l = (unsigned)__builtin_ctz(m);
      write_result(e, l, &out[l], is_float);
   }
   struct hw_prof_entry *prof = e->ctx->prof;
   unsigned n = (unsigned)__builtin_popcount(done);
   if (ts == HW_TEX_FAULT) {
      if (prof)
         prof->c[counter] += n + 1;
      return fault(e, &e->tex_mmu);
   }
   if (prof) {
      prof->c[counter] += n;
      hw_prof_tex_add(prof, hw_prof_tex_key(e->view.fmt.channels, e->view.fmt.type,
                                            e->view.fmt.srgb, e->view.null), n);
   }
   return HW_USC_OK;
}

/*
 * texture_load of a 2D view at level 0, no offset, descriptor named by a
 * lane-invariant operand: what Mesa's asahi background programs do to
 * reload a render target at the start of each (partial) render, a whole
 * group of adjacent pixels per instruction.  The view is looked up once
 * and the texels loaded by hw_tex_load_lanes, which sets the level's
 * addressing up once instead of per lane.  Same results, profile counts,
 * status and first fault as exec_sample's lane loop (the reference, taken
 * when hw_tex_sample_fast_paths is clear): lanes in the same order, the
 * view decoded for the first active lane, a faulting lane counted as a
 * load and the format counts of a faulting instruction dropped.
 */
static enum hw_usc_status
exec_load_lanes(struct exec *e, uint32_t exec_mask)
{
   if (!exec_mask)
      return HW_USC_OK;
   enum hw_usc_status rs = get_view(e, (unsigned)__builtin_ctz(exec_mask));
   if (rs != HW_USC_OK)
      return rs;
   int32_t x[HW_USC_SIMD_WIDTH], y[HW_USC_SIMD_WIDTH];
   for (uint32_t m = exec_mask; m; m &= m - 1) {
      unsigned l = (unsigned)__builtin_ctz(m);
      struct raw_coords rc;
      read_coords(e, AGX_TEXTURE_DIMENSION_2D, l, &rc);
      x[l] = coord_int(&rc, 0);
      y[l] = coord_int(&rc, 1);
   }
   union hw_texel out[HW_USC_SIMD_WIDTH];
   uint32_t loaded;
   enum hw_tex_status ts = hw_tex_load_lanes(&e->tex_mmu, &e->view, x, y, 0, 0, exec_mask,
                                             out, &loaded);
   return lanes_finish(e, out, loaded, ts, HW_PROF_TEX_LOADS);
}

/*
 * texture_sample of a 2D view without offset, compare or gather,
 * descriptors named by lane-invariant operands, whose view and sampler
 * hw_tex_sample_nearest_ok takes (GL_NEAREST without mipmaps: minetest's
 * textures): lambda is never used, so whatever the lod mode (Mesa asahi
 * gives these samples a bias or an explicit lod) the lanes' derivatives,
 * biases and lods are not read and the texels come from
 * hw_tex_sample_nearest_lanes.  The caller looked the view and the
 * sampler up for the first active lane, as exec_sample's lane loop (the
 * reference, taken when hw_tex_sample_fast_paths is clear) does; results,
 * profile counts (a faulting lane counted as a nearest sample, the
 * format counts of a faulting instruction dropped), status and first
 * fault are the loop's.
 */
static enum hw_usc_status
exec_sample_nearest_lanes(struct exec *e, uint32_t exec_mask)
{
   struct hw_tex_coord hc[HW_USC_SIMD_WIDTH];
   for (uint32_t m = exec_mask; m; m &= m - 1) {
      unsigned l = (unsigned)__builtin_ctz(m);
      float st[3];
      lane_coords(e, AGX_TEXTURE_DIMENSION_2D, l, &hc[l], st);
   }
   union hw_texel out[HW_USC_SIMD_WIDTH];
   uint32_t done;
   enum hw_tex_status ts = hw_tex_sample_nearest_lanes(&e->tex_mmu, &e->view, &e->sampler, hc,
                                                       exec_mask, out, &done);
   return lanes_finish(e, out, done, ts, HW_PROF_TEX_NEAREST);
}

static enum hw_usc_status
exec_sample(struct exec *e, uint32_t exec_mask, bool is_load)
{
   unsigned dim = field(e->in, F_N);
   unsigned lod_mode = field(e->in, F_LOD);
   bool compare = field(e->in, F_COMPARE) != 0;
   unsigned q6 = field(e->in, F_Q6);
   bool query = field(e->in, F_MODE) == 2;
   bool has_offset = field(e->in, F_OT) != 0;
   if (dim > 8)
      return bad(e, "texture instruction with an invalid dimension");
   if (lod_mode != 0 && lod_mode != 1 && lod_mode != 2 && lod_mode != 4 &&
       lod_mode != 5 && lod_mode != 6 && lod_mode != 12)
      return bad(e, "texture instruction with an unknown lod mode");
   if (is_load && (lod_mode == 4 || lod_mode == 12))
      return bad(e, "texture_load cannot take gradients");
   const struct agx_operand *D = e->D;
   const struct agx_operand *O = e->O;
   unsigned o_half = O ? (unsigned)O->imm : 0;
   unsigned naxes = tex_sizes[dim][0];
   if (is_load && hw_tex_sample_fast_paths && dim == AGX_TEXTURE_DIMENSION_2D &&
       lod_mode == 0 && !has_offset && !compare && !query &&
       lane_invariant(e->T, (e->tt & 2) ? NUM_FILES_NONE : AGX_FILE_TEXTURE))
      return exec_load_lanes(e, exec_mask);
   if (!is_load && hw_tex_sample_fast_paths && dim == AGX_TEXTURE_DIMENSION_2D &&
       !has_offset && !compare && !query && !(q6 & 2) && exec_mask &&
       lane_invariant(e->T, (e->tt & 2) ? NUM_FILES_NONE : AGX_FILE_TEXTURE) &&
       lane_invariant(e->S, AGX_FILE_SAMPLER)) {
      /* The lane loop's first lookups (its later lanes reuse them). */
      unsigned l0 = (unsigned)__builtin_ctz(exec_mask);
      enum hw_usc_status rs = get_view(e, l0);
      if (rs != HW_USC_OK)
         return rs;
      rs = get_sampler(e, l0);
      if (rs != HW_USC_OK)
         return rs;
      if (hw_tex_sample_nearest_ok(&e->view, &e->sampler))
         return exec_sample_nearest_lanes(e, exec_mask);
   }

   /* Implicit derivatives need every lane's coordinates (helpers too). */
   float st[HW_USC_SIMD_WIDTH][3];
   struct hw_tex_coord hc[HW_USC_SIMD_WIDTH];
   bool implicit = !is_load && (lod_mode == 0 || lod_mode == 1 || lod_mode == 5);
   if (!is_load)
      for (unsigned l = 0; l < HW_USC_SIMD_WIDTH; l++)
         if (implicit || (exec_mask >> l & 1))
            lane_coords(e, dim, l, &hc[l], st[l]);

   /* Lambda of the previous sampled lane, reused while the view, the
    * sampler and the lod inputs are bit-identical (a quad's lanes). */
   struct hw_tex_lod prev_lod;
   unsigned prev_vg = 0, prev_sg = 0;
   struct hw_tex_lambda lam = { .valid = false };
   /* Profile counts, per filter class and per run of lanes with one
    * format (a group's lanes nearly always read one view). */
   struct hw_prof_entry *prof = e->ctx->prof;
   uint32_t fmt_key = 0, fmt_n = 0;
   /* Descriptors named by lane-invariant operands (texture and sampler
    * table indices, uniforms: nearly always) are looked up for the first
    * active lane only; every later lane would hit the one-entry cache. */
   bool view_once = lane_invariant(e->T, (e->tt & 2) ? NUM_FILES_NONE : AGX_FILE_TEXTURE);
   bool sampler_once = lane_invariant(e->S, AGX_FILE_SAMPLER);
   bool have_view = false, have_sampler = false;
   for (unsigned l = 0; l < HW_USC_SIMD_WIDTH; l++) {
      if (!(exec_mask >> l & 1))
         continue;
      enum hw_usc_status rs = HW_USC_OK;
      if (!have_view) {
         rs = get_view(e, l);
         if (rs != HW_USC_OK)
            return rs;
         have_view = view_once;
      }
      if (prof) {
         uint32_t k = hw_prof_tex_key(e->view.fmt.channels, e->view.fmt.type,
                                      e->view.fmt.srgb, e->view.null);
         if (k != fmt_key) {
            if (fmt_n)
               hw_prof_tex_add(prof, fmt_key, fmt_n);
            fmt_key = k;
            fmt_n = 0;
         }
         fmt_n++;
      }
      union hw_texel out;
      enum hw_tex_status ts;
      if (is_load) {
         struct raw_coords rc;
         read_coords(e, dim, l, &rc);
         int32_t x = coord_int(&rc, 0), y = naxes > 1 ? coord_int(&rc, 1) : 0;
         int32_t z = naxes > 2 ? coord_int(&rc, 2) : 0;
         if (has_offset) {
            /* texelFetchOffset: the same packed nibbles as a sample's,
             * added to the integer coordinates (not to the layer) */
            uint16_t w = rd16(e, o_half, l);
            int32_t off[3];
            for (unsigned a = 0; a < 3; a++) {
               int nib = (w >> (4 * a)) & 0xf;
               off[a] = nib >= 8 ? nib - 16 : nib;
            }
            x += off[0];
            if (naxes > 1)
               y += off[1];
            if (naxes > 2)
               z += off[2];
         }
         uint32_t sample = 0;
         if (dim == AGX_TEXTURE_DIMENSION_1D_ARRAY)
            y = (int32_t)rc.extra[0];
         else if (dim == AGX_TEXTURE_DIMENSION_2D_ARRAY || dim == AGX_TEXTURE_DIMENSION_CUBE_ARRAY)
            z = (int32_t)rc.extra[0];
         else if (dim == AGX_TEXTURE_DIMENSION_2D_MS)
            sample = rc.extra[0];
         else if (dim == AGX_TEXTURE_DIMENSION_2D_ARRAY_MS) {
            sample = rc.extra[0];
            z = (int32_t)rc.extra[1];
         }
         if (dim == AGX_TEXTURE_DIMENSION_1D_ARRAY) {
            /* 1D arrays are stored as layers of a height-1 image */
            z = y;
            y = 0;
         }
         uint32_t level = lod_mode ? small_operand(e, D, l) & 0xffff : 0;
         ts = hw_tex_load(&e->tex_mmu, &e->view, x, y, z, level, sample, &out);
         if (prof)
            prof->c[HW_PROF_TEX_LOADS]++;
      } else {
         if (!have_sampler) {
            rs = get_sampler(e, l);
            if (rs != HW_USC_OK)
               return rs;
            have_sampler = sampler_once;
         }
         if (prof) {
            unsigned mip = e->sampler.mip > AGX_MIP_FILTER_LINEAR ? AGX_MIP_FILTER_LINEAR
                                                                  : e->sampler.mip;
            prof->c[HW_PROF_TEX_NEAREST + (e->sampler.min != AGX_FILTER_NEAREST) + 2 * mip]++;
         }
         struct hw_tex_coord c = hc[l];
         unsigned half = o_half;
         if (compare) {
            c.ref = tessera_uif(rd32(e, half >> 1, l));
            half += 2;
         }
         if (has_offset) {
            uint16_t w = rd16(e, half, l);
            for (unsigned a = 0; a < 3; a++) {
               int nib = (w >> (4 * a)) & 0xf;
               c.offset[a] = (int8_t)(nib >= 8 ? nib - 16 : nib);
            }
         }
         struct hw_tex_lod lod;
         memset(&lod, 0, sizeof(lod));
         lod.min_lod = -INFINITY;
         if (implicit) {
            unsigned q = l & ~3u;
            for (unsigned a = 0; a < 3; a++) {
               lod.ddx[a] = st[q + 1][a] - st[q][a];
               lod.ddy[a] = st[q + 2][a] - st[q][a];
            }
            if (dim_is_cube(dim)) {
               /* Cubes: the quad's direction differences projected on this
                * lane's face.  Differencing each lane's face (s, t) instead
                * goes wrong when a quad straddles an edge (helper lanes
                * past a primitive on a face's border do): piglit
                * tex-miplevel-selection GL2:texture() Cube, issue 13. */
               float dx[3], dy[3];
               memcpy(dx, lod.ddx, sizeof(dx));
               memcpy(dy, lod.ddy, sizeof(dy));
               hw_tex_cube_face_deriv(st[l], dx, &lod.ddx[0], &lod.ddx[1]);
               hw_tex_cube_face_deriv(st[l], dy, &lod.ddy[0], &lod.ddy[1]);
               lod.ddx[2] = lod.ddy[2] = 0;
            }
            if (lod_mode != 0)
               lod.bias = hw_tex_half_to_float((uint16_t)small_operand(e, D, l));
         } else if (lod_mode == 2 || lod_mode == 6) {
            lod.mode = HW_TEX_LOD_EXPLICIT;
            lod.lod = hw_tex_half_to_float((uint16_t)small_operand(e, D, l));
         } else {
            /* gradients, interleaved x/y per axis */
            for (unsigned a = 0; a < naxes; a++) {
               lod.ddx[a] = tessera_uif(rd32(e, D->value + 2 * a, l));
               lod.ddy[a] = tessera_uif(rd32(e, D->value + 2 * a + 1, l));
            }
            if (lod_mode == 12)
               lod.min_lod = tessera_uif(rd32(e, D->value + 2 * naxes, l));
         }
         struct hw_tex_sample_req req = {
            .op = query ? HW_TEX_OP_QUERY_LOD : (q6 & 2) ? HW_TEX_OP_GATHER : HW_TEX_OP_SAMPLE,
            .gather_comp = (q6 >> 2) & 3,
            .compare = compare,
         };
         if (lam.valid && (prev_vg != e->view_gen || prev_sg != e->sampler_gen ||
                           memcmp(&prev_lod, &lod, sizeof(lod)) != 0))
            lam.valid = false;
         ts = hw_tex_sample_lambda(&e->tex_mmu, &e->view, &e->sampler, &req, &c, &lod,
                                   &lam, &out);
         prev_lod = lod;
         prev_vg = e->view_gen;
         prev_sg = e->sampler_gen;
         if (ts == HW_TEX_BAD_ARGS)
            return bad(e, "texture_sample on a multisampled texture");
      }
      if (ts == HW_TEX_FAULT)
         return fault(e, &e->tex_mmu);
      bool is_float = query || compare || e->view.fmt.cls == HW_TEX_CLASS_FLOAT || e->view.null;
      write_result(e, l, &out, is_float);
   }
   if (fmt_n)
      hw_prof_tex_add(prof, fmt_key, fmt_n);
   return HW_USC_OK;
}

static enum hw_usc_status
exec_image_write(struct exec *e, uint32_t exec_mask)
{
   unsigned dim = field(e->in, F_N);
   bool rtz = field(e->in, F_ROUND) != 0;
   if (dim > 8)
      return bad(e, "image_write with an invalid dimension");
   const struct agx_operand *R = e->R;
   const struct agx_operand *D = e->D;
   if (!R || R->type != AGX_OPERAND_REG)
      return bad(e, "image_write without source registers");
   unsigned naxes = tex_sizes[dim][0];
   for (unsigned l = 0; l < HW_USC_SIMD_WIDTH; l++) {
      if (!(exec_mask >> l & 1))
         continue;
      enum hw_usc_status rs = get_image(e, l);
      if (rs != HW_USC_OK)
         return rs;
      struct raw_coords rc;
      read_coords(e, dim, l, &rc);
      int32_t x = coord_int(&rc, 0), y = naxes > 1 ? coord_int(&rc, 1) : 0;
      uint32_t layer = naxes > 2 ? (uint32_t)coord_int(&rc, 2) : 0, sample = 0;
      if (dim == AGX_TEXTURE_DIMENSION_1D_ARRAY || dim == AGX_TEXTURE_DIMENSION_2D_ARRAY ||
          dim == AGX_TEXTURE_DIMENSION_CUBE_ARRAY)
         layer = rc.extra[0];
      if (dim == AGX_TEXTURE_DIMENSION_2D_MS || dim == AGX_TEXTURE_DIMENSION_2D_ARRAY_MS)
         sample = rc.extra[0];
      if (dim == AGX_TEXTURE_DIMENSION_2D_ARRAY_MS)
         layer = rc.extra[1];
      union hw_texel v;
      for (unsigned c = 0; c < 4; c++) {
         if (R->size == 32) {
            v.u[c] = rd32(e, R->value + c, l);
         } else {
            uint16_t h = rd16(e, R->value + c, l);
            if (e->image.fmt.cls == HW_TEX_CLASS_FLOAT)
               v.u[c] = tessera_fui(hw_tex_half_to_float(h));
            else if (e->image.fmt.cls == HW_TEX_CLASS_SINT)
               v.i[c] = (int16_t)h;
            else
               v.u[c] = h;
         }
      }
      uint32_t level = small_operand(e, D, l) & 0xffff;
      enum hw_tex_status ts = hw_tex_image_store(&e->pbe_mmu, &e->image, x, y, layer, level,
                                                 sample, &v, rtz);
      if (ts == HW_TEX_FAULT)
         return fault(e, &e->pbe_mmu);
   }
   return HW_USC_OK;
}

static enum hw_usc_status
exec_block(struct exec *e, uint32_t exec_mask, const struct hw_tex_tile *tile)
{
   if (!tile)
      return bad(e, "image_write_block needs a tilebuffer (fragment/end-of-tile stage)");
   if (!exec_mask)
      return HW_USC_OK;
   /* One store per instruction: operands come from the first active lane. */
   unsigned lane = (unsigned)__builtin_ctz(exec_mask);
   enum hw_usc_status rs = get_image(e, lane);
   if (rs != HW_USC_OK)
      return rs;
   const struct agx_operand *R = e->R;
   const struct agx_operand *D = e->D;
   uint32_t offset = small_operand(e, R, lane);
   uint32_t level = small_operand(e, D, lane) & 0xffff;
   /* Explicit coordinates (compute imageblocks): the block's origin in the
    * image is the first active lane's C, not the tile's. */
   struct hw_tex_tile at = *tile;
   if (field(e->in, F_EXPLICIT)) {
      struct raw_coords rc;
      if (!read_coords(e, field(e->in, F_N), lane, &rc))
         return bad(e, "image_write_block: explicit coordinates need a register C");
      int32_t x = coord_int(&rc, 0), y = coord_int(&rc, 1);
      if (x < 0 || y < 0)
         return HW_USC_OK;   /* entirely outside the image */
      at.x0 = (uint32_t)x;
      at.y0 = (uint32_t)y;
      /* Array forms name the layer in the 16-bit slots after x and y, as
       * image_write does: Mesa's compute blit writes every layer of an
       * array (and every slice of a 3D image, bound as a 2D array) this
       * way, one launch for all layers. */
      unsigned dim = field(e->in, F_N);
      if (dim == AGX_TEXTURE_DIMENSION_2D_ARRAY || dim == AGX_TEXTURE_DIMENSION_CUBE_ARRAY)
         at.layer = rc.extra[0];
      else if (dim == AGX_TEXTURE_DIMENSION_2D_ARRAY_MS)
         at.layer = rc.extra[1];
   }
   tile = &at;
   enum hw_tex_status ts = hw_tex_block_store(&e->pbe_mmu, &e->image, tile, field(e->in, F_F),
                                              offset, level, field(e->in, F_ROUND) != 0,
                                              e->err, e->err_size);
   if (ts == HW_TEX_FAULT)
      return fault(e, &e->pbe_mmu);
   return ts == HW_TEX_OK ? HW_USC_OK : HW_USC_BAD_CODE;
}

enum hw_usc_status
hw_tex_execute(const struct hw_tex_ctx *ctx, struct hw_usc_simd *simd,
               const struct agx_instr *instr, uint32_t exec_mask,
               const struct hw_tex_tile *tile, char *err, size_t err_size)
{
   /* Big (descriptor caches): static storage would not be thread safe,
    * so it lives on the caller's stack. */
   struct exec e;
   memset(&e, 0, offsetof(struct exec, view));
   e.ctx = ctx;
   e.simd = simd;
   e.in = instr;
   e.err = err;
   e.err_size = err_size;
   if (err && err_size)
      err[0] = 0;
   struct hw_mmu *um = hw_usc_simd_mmu(simd);
   if (!um)
      return bad(&e, "texture instruction without a memory view");
   /* The texture unit and the PBE are their own MMU clients: same VM
    * slot and TLB contents as the shader core, their own fault unit. */
   e.tex_mmu = *um;
   e.tex_mmu.unit = HW_UNIT_TEX;
   memset(&e.tex_mmu.fault, 0, sizeof(e.tex_mmu.fault));
   pthread_once(&names_once, names_init);
   e.R = operand(instr, OP_R);
   e.C = operand(instr, OP_C);
   e.D = operand(instr, OP_D);
   e.T = operand(instr, OP_T);
   e.S = operand(instr, OP_S);
   e.O = operand(instr, OP_O);
   e.U = operand(instr, OP_U);
   e.tt = field(instr, F_TT);
   e.cs = field(instr, F_CS);
   e.mask = field(instr, F_MASK);
   /* An indexed texture/PBE operand reads the state table the launch binds
    * (USC Texture words); a bindless one (Tt bit 1) names its heap itself,
    * as Mesa's asahi Vulkan driver does for every image. */
   if (e.T && !(e.tt & 2) && !ctx->texture_table) {
      if (err && err_size)
         snprintf(err, err_size, "%s: the pipeline binds no texture state",
                  agx_isa_op_name(instr->op));
      return HW_USC_BAD_CODE;
   }

   switch (instr->op) {
   case AGX_OP_TEXTURE_SAMPLE:
      return exec_sample(&e, exec_mask, false);
   case AGX_OP_TEXTURE_LOAD:
      return exec_sample(&e, exec_mask, true);
   case AGX_OP_IMAGE_WRITE:
   case AGX_OP_IMAGE_WRITE_BLOCK:
      /* The PBE's client view, only for the instructions that write. */
      e.pbe_mmu = e.tex_mmu;
      e.pbe_mmu.unit = HW_UNIT_PBE;
      /* Helper lanes write nothing (hw_usc_simd_set_helpers). A block
       * store takes its operands from the first active lane and writes
       * the tile, not the lane's pixel: end-of-tile programs and compute
       * kernels, which have no helpers. */
      return instr->op == AGX_OP_IMAGE_WRITE
                ? exec_image_write(&e, exec_mask & ~hw_usc_simd_helpers(simd))
                : exec_block(&e, exec_mask, tile);
   default:
      return HW_USC_UNSUPPORTED;
   }
}

enum hw_usc_status
hw_tex_compute_hook(void *user, struct hw_usc_simd *simd, const struct agx_instr *instr,
                    uint32_t exec_mask)
{
   char err[128];
   return hw_tex_execute((const struct hw_tex_ctx *)user, simd, instr, exec_mask, NULL,
                         err, sizeof(err));
}
