/* SPDX-License-Identifier: MIT */
/*
 * tessera compiler tests: NIR shaders built with nir_builder are compiled
 * with tc_compile() and run on the tessera USC interpreter (hw/usc); the
 * results are compared with values computed here on the CPU.
 *
 * Vertex shaders run 32 vertices (one SIMD group; r5 = vertex id, r6 =
 * instance id preloaded as the render core does) and their st_var stores
 * are captured by the stage hook. Fragment shaders get their coefficient
 * registers, tilebuffer and texture results from a small emulation of the
 * fragment-stage instructions in the hook.
 *
 * Output: "ok N - name" / "not ok N - name" lines (TAP), exit 1 on failure.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/glsl_types.h"
#include "compiler/nir/nir.h"
#include "compiler/nir/nir_builder.h"
#include "util/u_math.h"
#include "util/format/u_format.h"

#include "cmdstream/isa/agx_isa.h"
#include "hw/hw_mmu.h"
#include "hw/usc/hw_usc.h"

#include "compiler/tc_compiler.h"

#define TEST_GPU_BASE 0x100000000ull
#define TEST_GPU_SIZE (4u << 20)
extern uint8_t usc_test_mem[TEST_GPU_SIZE];

#define CODE_OFF 0x000000u
#define CBUF_OFF 0x100000u
#define VBUF_OFF 0x200000u
#define GPU(off) (TEST_GPU_BASE + (off))

static unsigned test_no, failures;
static char fail_msg[4096];

static void PRINTFLIKE(1, 2)
note(const char *fmt, ...)
{
   size_t l = strlen(fail_msg);
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(fail_msg + l, sizeof(fail_msg) - l, fmt, ap);
   va_end(ap);
}

static void
report(const char *name, bool ok)
{
   test_no++;
   printf("%sok %u - %s\n", ok ? "" : "not ", test_no, name);
   if (!ok) {
      failures++;
      /* TAP diagnostics */
      char *s = fail_msg, *nl;
      unsigned lines = 0;
      while (*s && lines < 40) {
         nl = strchr(s, '\n');
         if (nl)
            *nl = 0;
         printf("# %s\n", s);
         lines++;
         if (!nl)
            break;
         s = nl + 1;
      }
   }
   fail_msg[0] = 0;
   fflush(stdout);
}

/* ------------------------------------------------------------ the model */

#define LANES 32
#define MAX_SLOTS 128

static uint32_t uni[HW_USC_NUM_UNIFORMS];
static uint32_t vs_out[MAX_SLOTS][LANES];
static bool vs_out_written[MAX_SLOTS];
static bool vs_final_seen;
static uint32_t instance_id;

/* fragment emulation state */
static float cf_val[64][LANES];     /* value of coefficient register per lane */
static float tile[4][LANES];        /* one tilebuffer sample per lane */
static bool tile_written[LANES];
static uint8_t coverage[LANES];
static bool tile_read;
static float zs_depth[LANES];
static unsigned tex_calls, last_tex_type;

static const struct agx_operand *
opnd(const struct agx_instr *in, const char *name)
{
   for (unsigned i = 0; i < in->num_operands; i++) {
      const char *n = agx_isa_op_operand_name(in->op, i);
      if (n && !strcmp(n, name))
         return &in->operands[i];
   }
   return NULL;
}

static void
put_reg(struct hw_usc_simd *s, const struct agx_operand *o, unsigned k, unsigned l, uint32_t v)
{
   if (o->size == 16)
      hw_usc_simd_write16(s, o->value + k, l, hw_usc_f32_to_f16(uif(v)));
   else
      hw_usc_simd_write32(s, o->value + k, l, v);
}

static enum hw_usc_status
hook(void *user, struct hw_usc_simd *s, const struct agx_instr *in, uint32_t exec)
{
   (void)user;
   switch (in->op) {
   case AGX_OP_ST_VAR:
   case AGX_OP_ST_VAR_FINAL: {
      const struct agx_operand *r = opnd(in, "r"), *I = opnd(in, "I");
      if (vs_final_seen) {
         note("st_var after st_var_final\n");
         return HW_USC_BAD_CODE;
      }
      unsigned slot = (unsigned)I->imm;
      if (slot >= MAX_SLOTS)
         return HW_USC_BAD_CODE;
      for (unsigned l = 0; l < LANES; l++)
         if (exec >> l & 1)
            vs_out[slot][l] = hw_usc_simd_read32(s, r->value, l);
      vs_out_written[slot] = true;
      if (in->op == AGX_OP_ST_VAR_FINAL)
         vs_final_seen = true;
      return HW_USC_OK;
   }
   case AGX_OP_ITER:
   case AGX_OP_ITERPROJ: {
      const struct agx_operand *d = &in->operands[0], *I = &in->operands[1];
      for (unsigned l = 0; l < LANES; l++) {
         if (!(exec >> l & 1))
            continue;
         float w = in->op == AGX_OP_ITERPROJ ? cf_val[in->operands[2].value][l] : 1.0f;
         for (unsigned k = 0; k < (d->count ? d->count : 1); k++) {
            float v = cf_val[I->value + k][l];
            /* our "plane" for perspective inputs holds value * (1/w) */
            put_reg(s, d, k, l, fui(v / w));
         }
      }
      return HW_USC_OK;
   }
   case AGX_OP_LDCF: {
      const struct agx_operand *d = &in->operands[0], *I = &in->operands[1];
      for (unsigned l = 0; l < LANES; l++) {
         if (!(exec >> l & 1))
            continue;
         put_reg(s, d, 0, l, 0);
         put_reg(s, d, 1, l, 0);
         put_reg(s, d, 2, l, fui(cf_val[I->value][l]));
      }
      return HW_USC_OK;
   }
   case AGX_OP_LDST_TILE: {
      uint32_t load = 0, mask = 0;
      agx_instr_field(in, "load", &load);
      agx_instr_field(in, "mask", &mask);
      const struct agx_operand *R = opnd(in, "R");
      for (unsigned l = 0; l < LANES; l++) {
         if (!(exec >> l & 1))
            continue;
         unsigned k = 0;
         for (unsigned c = 0; c < 4; c++) {
            if (!(mask >> c & 1))
               continue;
            if (load) {
               hw_usc_simd_write32(s, R->value + k, l, fui(tile[c][l]));
            } else if (coverage[l]) {
               /* u8norm: clamp and quantise as the tilebuffer does */
               float v = uif(hw_usc_simd_read32(s, R->value + k, l));
               v = v != v ? 0 : v < 0 ? 0 : v > 1 ? 1 : v;
               tile[c][l] = roundf(v * 255.0f) / 255.0f;
               tile_written[l] = true;
            }
            k++;
         }
      }
      if (load)
         tile_read = true;
      return HW_USC_OK;
   }
   case AGX_OP_SAMPLE_MASK: {
      const struct agx_operand *S = &in->operands[0], *M = &in->operands[1];
      for (unsigned l = 0; l < LANES; l++) {
         if (!(exec >> l & 1))
            continue;
         uint32_t sm = S->type == AGX_OPERAND_IMM ? (uint32_t)S->imm : hw_usc_simd_read16(s, S->value, l);
         uint32_t mv = M->type == AGX_OPERAND_IMM ? (uint32_t)M->imm : hw_usc_simd_read16(s, M->value, l);
         coverage[l] = (uint8_t)((coverage[l] & ~sm) | (mv & sm));
      }
      return HW_USC_OK;
   }
   case AGX_OP_ZS_EMIT: {
      const struct agx_operand *T = &in->operands[1];
      for (unsigned l = 0; l < LANES; l++)
         if (exec >> l & 1)
            zs_depth[l] = uif(hw_usc_simd_read32(s, T->value / 2, l));
      return HW_USC_OK;
   }
   case AGX_OP_WAIT_PIX:
   case AGX_OP_SIGNAL_PIX:
      return HW_USC_OK;
   case AGX_OP_TEXTURE_LOAD: {
      /* texel = (x, y, level, 42) as integers */
      const struct agx_operand *R = opnd(in, "R"), *C = opnd(in, "C"), *D = opnd(in, "D");
      uint32_t lod = 0, mask = 0;
      agx_instr_field(in, "lod", &lod);
      agx_instr_field(in, "mask", &mask);
      tex_calls++;
      for (unsigned l = 0; l < LANES; l++) {
         if (!(exec >> l & 1))
            continue;
         uint32_t t[4] = { hw_usc_simd_read32(s, C->value, l), hw_usc_simd_read32(s, C->value + 1, l),
                           lod && D->type == AGX_OPERAND_REG ? hw_usc_simd_read16(s, D->value, l) : 0,
                           42 };
         unsigned k = 0;
         for (unsigned c = 0; c < 4; c++)
            if (mask >> c & 1)
               hw_usc_simd_write32(s, R->value + k++, l, t[c]);
      }
      return HW_USC_OK;
   }
   case AGX_OP_TEXTURE_SAMPLE: {
      /* texel = (s, t, r for cubes else texture index + sampler index / 16,
       * lod operand); with compare, x = the reference value */
      const struct agx_operand *R = opnd(in, "R"), *C = opnd(in, "C"), *T = opnd(in, "T"),
                               *S = opnd(in, "S"), *D = opnd(in, "D"), *O = opnd(in, "O");
      uint32_t lod = 0, mask = 0, n = 0, compare = 0;
      agx_instr_field(in, "lod", &lod);
      agx_instr_field(in, "mask", &mask);
      agx_instr_field(in, "n", &n);
      agx_instr_field(in, "compare", &compare);
      tex_calls++;
      last_tex_type = n;
      for (unsigned l = 0; l < LANES; l++) {
         if (!(exec >> l & 1))
            continue;
         float st[3] = { uif(hw_usc_simd_read32(s, C->value, l)),
                         uif(hw_usc_simd_read32(s, C->value + 1, l)),
                         n == 6 ? uif(hw_usc_simd_read32(s, C->value + 2, l)) : 0 };
         float lv = 0;
         if (lod && D->type == AGX_OPERAND_REG)
            lv = hw_usc_f16_to_f32(hw_usc_simd_read16(s, D->value, l));
         float t[4] = { st[0], st[1], n == 6 ? st[2] : (float)T->value + (float)S->value / 16.0f, lv };
         if (compare && O)   /* text operand; imm = first half register */
            t[0] = uif(hw_usc_simd_read32(s, (unsigned)(O->imm >> 1), l));
         unsigned k = 0;
         for (unsigned c = 0; c < 4; c++)
            if (mask >> c & 1)
               hw_usc_simd_write32(s, R->value + k++, l, fui(t[c]));
      }
      return HW_USC_OK;
   }
   default:
      note("unexpected stage instruction %s\n", agx_isa_op_name(in->op));
      return HW_USC_UNSUPPORTED;
   }
}

static bool fs_mode;

static void
start(void *user, struct hw_usc_simd *s)
{
   (void)user;
   for (unsigned l = 0; l < LANES; l++) {
      if (fs_mode) {
         hw_usc_simd_write16(s, 2, l, coverage[l]);
         hw_usc_simd_set_position(s, l, 10 + l, 20, 0);
      } else {
         hw_usc_simd_write32(s, 5, l, l);
         hw_usc_simd_write32(s, 6, l, instance_id);
      }
   }
}

static void
sr_hook(void *user, unsigned simd, unsigned sr, uint32_t out[HW_USC_SIMD_WIDTH])
{
   (void)user;
   (void)simd;
   for (unsigned l = 0; l < LANES; l++)
      out[l] = sr == 62 ? (l & 1) : 0;   /* odd lanes back-facing */
}

static bool
run_binary(const struct tc_shader_binary *bin, bool strict)
{
   memcpy(usc_test_mem + CODE_OFF, bin->code, bin->size);
   char err[160];
   struct hw_usc_shader *sh = hw_usc_compile(bin->code, bin->size, GPU(CODE_OFF), err, sizeof(err));
   if (!sh) {
      note("hw_usc_compile: %s\n", err);
      return false;
   }
   uni[0] = (uint32_t)GPU(CBUF_OFF);
   uni[1] = (uint32_t)(GPU(CBUF_OFF) >> 32);
   struct hw_usc_launch L = {
      .shader = sh, .uniforms = uni, .gpr_count = bin->nr_gprs,
      .threads_per_threadgroup = { LANES, 1, 1 },
      .instruction_budget = 1u << 20,
      .flags = strict ? HW_USC_STRICT_WAIT : 0,
      .stage_hook = hook, .start_hook = start, .sr_hook = sr_hook,
   };
   struct hw_usc_workgroup wg = { 0 };
   struct hw_mmu mmu;
   hw_mmu_init(&mmu, NULL, 1, HW_UNIT_USC);
   struct hw_usc_result res;
   memset(vs_out, 0xcd, sizeof(vs_out));
   memset(vs_out_written, 0, sizeof(vs_out_written));
   vs_final_seen = false;
   enum hw_usc_status st = hw_usc_run_workgroup(&L, &wg, &mmu, NULL, &res);
   hw_usc_shader_free(sh);
   if (st != HW_USC_OK) {
      note("run: %s: %s (pc 0x%llx)\n", hw_usc_status_name(st), res.message,
           (unsigned long long)res.pc);
      return false;
   }
   if (!fs_mode && !vs_final_seen) {
      note("no st_var_final executed\n");
      return false;
   }
   return true;
}

static void
dump_binary(const struct tc_shader_binary *bin)
{
   char *buf = NULL;
   size_t len = 0;
   FILE *f = open_memstream(&buf, &len);
   tc_print_binary(f, bin);
   fclose(f);
   note("%s", buf);
   free(buf);
}

static bool
compile(nir_shader *nir, const union tc_key *key, struct tc_shader_binary *bin)
{
   nir_validate_shader(nir, "test input");
   tc_preprocess_nir(nir);
   char *error = NULL;
   if (!tc_compile(nir, key, bin, &error)) {
      note("tc_compile: %s\n", error ? error : "(no message)");
      free(error);
      return false;
   }
   return true;
}

/* ------------------------------------------------------ shader building */

static nir_builder
vs_builder(const char *name)
{
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_VERTEX, tc_nir_options(), "%s", name);
   return b;
}

static nir_variable *
vs_input(nir_builder *b, const struct glsl_type *t, unsigned idx)
{
   char name[16];
   snprintf(name, sizeof(name), "in%u", idx);
   nir_variable *v = nir_variable_create(b->shader, nir_var_shader_in, t, name);
   v->data.location = VERT_ATTRIB_GENERIC0 + idx;
   v->data.driver_location = idx;
   b->shader->num_inputs = MAX2(b->shader->num_inputs, idx + 1);
   return v;
}

static unsigned out_count;

static void
vs_output(nir_builder *b, unsigned slot, nir_ssa_def *val)
{
   char name[16];
   snprintf(name, sizeof(name), "out%u", slot);
   const struct glsl_type *t = val->num_components == 4 ? glsl_vec4_type()
                               : glsl_vector_type(GLSL_TYPE_FLOAT, val->num_components);
   nir_variable *v = nir_variable_create(b->shader, nir_var_shader_out, t, name);
   v->data.location = slot;
   v->data.driver_location = out_count++;
   b->shader->num_outputs = out_count;
   nir_store_var(b, v, val, BITFIELD_MASK(val->num_components));
}

static void
vs_begin(void)
{
   out_count = 0;
}

/* The vertex buffer: per vertex `stride` bytes at VBUF_OFF. */
static void
vbuf_f32(unsigned vtx, unsigned stride, unsigned off, float v)
{
   memcpy(usc_test_mem + VBUF_OFF + vtx * stride + off, &v, 4);
}

static void
key_attr(union tc_key *k, unsigned i, enum pipe_format f, unsigned off, unsigned stride,
         unsigned divisor)
{
   k->vs.attribs[i] = (struct tc_vertex_attrib){ .format = f, .buffer = 0, .src_offset = off,
                                                 .stride = stride, .divisor = divisor };
   k->vs.nr_attribs = MAX2(k->vs.nr_attribs, i + 1);
   uni[TC_U_VBUF_BASE] = (uint32_t)GPU(VBUF_OFF);
   uni[TC_U_VBUF_BASE + 1] = (uint32_t)(GPU(VBUF_OFF) >> 32);
   uni[TC_U_VATTR_LIMIT + i] = UINT32_MAX;   /* no bound on the fetch index */
}

static float
out_f(unsigned slot, unsigned lane)
{
   return uif(vs_out[slot][lane]);
}

static bool
close_enough(float got, float want, float rel, float abs_tol)
{
   if (isnan(want))
      return isnan(got);
   if (isinf(want))
      return got == want;
   return fabsf(got - want) <= abs_tol + rel * fabsf(want);
}

/* ------------------------------------------------------------ the tests */

static float in_a[LANES], in_b[LANES];

static void
fill_ab(void)
{
   static const float a[] = { 0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.5f, -2.5f, 3.75f, -7.25f,
                              100.0f, 1e-3f, -1e-3f, 0.999f, 1.5f, -1.5f, 12345.678f };
   for (unsigned l = 0; l < LANES; l++) {
      in_a[l] = a[l % ARRAY_SIZE(a)] * (l >= 16 ? 0.37f : 1.0f);
      in_b[l] = 0.25f + (float)l * 0.73f - (l & 4 ? 9.0f : 0.0f);
      vbuf_f32(l, 8, 0, in_a[l]);
      vbuf_f32(l, 8, 4, in_b[l]);
   }
}

typedef nir_ssa_def *(*build_fn)(nir_builder *b, nir_ssa_def *a, nir_ssa_def *bb);
typedef float (*ref_fn)(float a, float b);

struct fop {
   const char *name;
   build_fn build;
   ref_fn ref;
   float rel, abs_tol;
   bool pos_a;   /* domain: |a| */
};

#define FOP(nm, expr_nir, expr_c, rel, abs_tol, pos)                                  \
   static nir_ssa_def *b_##nm(nir_builder *b, nir_ssa_def *a, nir_ssa_def *bb)       \
   { (void)bb; (void)a; return expr_nir; }                                           \
   static float r_##nm(float a, float bb) { (void)bb; (void)a; return expr_c; }

FOP(fadd, nir_fadd(b, a, bb), a + bb, 0, 0, false)
FOP(fsub, nir_fsub(b, a, bb), a - bb, 0, 0, false)
FOP(fmul, nir_fmul(b, a, bb), a * bb, 1e-7f, 1e-30f, false)
FOP(ffma, nir_ffma(b, a, bb, a), fmaf(a, bb, a), 1e-6f, 1e-30f, false)
FOP(fneg, nir_fneg(b, a), -a, 0, 0, false)
FOP(fabs, nir_fabs(b, a), fabsf(a), 0, 0, false)
FOP(fneg_fold, nir_fmul(b, nir_fneg(b, nir_fabs(b, a)), bb), -fabsf(a) * bb, 1e-7f, 1e-30f, false)
FOP(fsat, nir_fsat(b, a), a < 0 ? 0 : a > 1 ? 1 : a, 0, 0, false)
FOP(ffloor, nir_ffloor(b, a), floorf(a), 0, 0, false)
FOP(fceil, nir_fceil(b, a), ceilf(a), 0, 0, false)
FOP(ftrunc, nir_ftrunc(b, a), truncf(a), 0, 0, false)
FOP(ffract, nir_ffract(b, a), a - floorf(a), 1e-6f, 1e-6f, false)
FOP(fround_even, nir_fround_even(b, a), nearbyintf(a), 0, 0, false)
FOP(fmin, nir_fmin(b, a, bb), fminf(a, bb), 0, 0, false)
FOP(fmax, nir_fmax(b, a, bb), fmaxf(a, bb), 0, 0, false)
FOP(fmax_neg, nir_fmax(b, nir_fneg(b, a), bb), fmaxf(-a, bb), 0, 0, false)
FOP(fsqrt, nir_fsqrt(b, nir_fabs(b, a)), sqrtf(fabsf(a)), 1e-6f, 1e-30f, false)
FOP(frsq, nir_frsq(b, nir_fadd_imm(b, nir_fabs(b, a), 1.0)), 1.0f / sqrtf(fabsf(a) + 1.0f), 1e-6f, 0, false)
FOP(frcp, nir_frcp(b, bb), 1.0f / bb, 1e-6f, 0, false)
FOP(fdiv, nir_fdiv(b, a, bb), a / bb, 1e-6f, 1e-30f, false)
FOP(fexp2, nir_fexp2(b, nir_fmul_imm(b, bb, 0.25)), exp2f(bb * 0.25f), 1e-6f, 0, false)
FOP(flog2, nir_flog2(b, nir_fadd_imm(b, nir_fabs(b, a), 0.5)), log2f(fabsf(a) + 0.5f), 1e-6f, 1e-6f, false)
FOP(fpow, nir_fpow(b, nir_fabs(b, bb), nir_imm_float(b, 2.5)), powf(fabsf(bb), 2.5f), 1e-5f, 1e-6f, false)
FOP(fsin, nir_fsin(b, bb), sinf(bb), 0, 2e-6f, false)
FOP(fcos, nir_fcos(b, bb), cosf(bb), 0, 2e-6f, false)
FOP(fsign, nir_fsign(b, a), a > 0 ? 1.0f : a < 0 ? -1.0f : 0.0f, 0, 0, false)
FOP(flrp, nir_flrp(b, a, bb, nir_imm_float(b, 0.25)), a + (bb - a) * 0.25f, 1e-6f, 1e-5f, false)
FOP(fmod, nir_fmod(b, a, nir_imm_float(b, 1.5f)), a - 1.5f * floorf(a / 1.5f), 1e-5f, 1e-5f, false)
FOP(bigconst, nir_fadd(b, a, nir_imm_float(b, 1234.5678f)), a + 1234.5678f, 1e-7f, 1e-7f, false)
FOP(flt_sel, nir_bcsel(b, nir_flt(b, a, bb), a, nir_fmul_imm(b, bb, 2.0)), a < bb ? a : bb * 2.0f, 0, 0, false)
FOP(fge_b2f, nir_b2f32(b, nir_fge(b, a, bb)), a >= bb ? 1.0f : 0.0f, 0, 0, false)
FOP(feq_b2f, nir_b2f32(b, nir_feq(b, a, nir_imm_float(b, 1.0))), a == 1.0f ? 1.0f : 0.0f, 0, 0, false)
FOP(fneu_b2f, nir_b2f32(b, nir_fneu(b, a, nir_imm_float(b, 0.5))), a != 0.5f ? 1.0f : 0.0f, 0, 0, false)
FOP(f2i_i2f, nir_i2f32(b, nir_f2i32(b, nir_fmul_imm(b, a, 3.0))), (float)(int)(a * 3.0f), 0, 0, false)
FOP(f2u_u2f, nir_u2f32(b, nir_f2u32(b, nir_fabs(b, a))), (float)(unsigned)fabsf(a), 0, 0, false)
FOP(dot3, nir_fdot3(b, nir_vec3(b, a, bb, a), nir_vec3(b, bb, bb, nir_imm_float(b, 2.0))),
    a * bb + bb * bb + a * 2.0f, 1e-5f, 1e-4f, false)
FOP(normalize_x, nir_fmul(b, a, nir_frsq(b, nir_fdot3(b, nir_vec3(b, a, bb, nir_imm_float(b, 1.0)), nir_vec3(b, a, bb, nir_imm_float(b, 1.0))))),
    a / sqrtf(a * a + bb * bb + 1.0f), 1e-5f, 1e-6f, false)

FOP(fsat_mul, nir_fsat(b, nir_fmul(b, a, bb)), fminf(fmaxf(a * bb, 0.0f), 1.0f), 1e-7f, 1e-30f, false)
FOP(fsat_fma, nir_fsat(b, nir_fadd(b, nir_fmul(b, a, bb), nir_imm_float(b, 0.5))),
    fminf(fmaxf(fmaf(a, bb, 0.5f), 0.0f), 1.0f), 1e-6f, 1e-7f, false)

#define FOPE(nm, rel, abs_tol) { #nm, b_##nm, r_##nm, rel, abs_tol, false }
static const struct fop fops[] = {
   FOPE(fadd, 0, 0), FOPE(fsub, 0, 0), FOPE(fmul, 1e-7f, 1e-30f), FOPE(ffma, 1e-6f, 1e-30f),
   FOPE(fneg, 0, 0), FOPE(fabs, 0, 0), FOPE(fneg_fold, 1e-7f, 1e-30f), FOPE(fsat, 0, 0),
   FOPE(ffloor, 0, 0), FOPE(fceil, 0, 0), FOPE(ftrunc, 0, 0), FOPE(ffract, 1e-6f, 1e-6f),
   FOPE(fround_even, 0, 0), FOPE(fmin, 0, 0), FOPE(fmax, 0, 0), FOPE(fmax_neg, 0, 0),
   FOPE(fsqrt, 1e-6f, 1e-30f), FOPE(frsq, 1e-6f, 0), FOPE(frcp, 1e-6f, 0),
   FOPE(fdiv, 1e-6f, 1e-30f), FOPE(fexp2, 1e-6f, 0), FOPE(flog2, 1e-6f, 1e-6f),
   FOPE(fpow, 1e-5f, 1e-5f), FOPE(fsin, 0, 4e-6f), FOPE(fcos, 0, 4e-6f), FOPE(fsign, 0, 0),
   FOPE(flrp, 1e-6f, 1e-5f), FOPE(fmod, 1e-5f, 1e-4f), FOPE(bigconst, 1e-7f, 1e-7f),
   FOPE(flt_sel, 0, 0), FOPE(fge_b2f, 0, 0), FOPE(feq_b2f, 0, 0), FOPE(fneu_b2f, 0, 0),
   FOPE(f2i_i2f, 0, 0), FOPE(f2u_u2f, 0, 0), FOPE(dot3, 1e-5f, 1e-4f),
   FOPE(normalize_x, 1e-5f, 1e-6f), FOPE(fsat_mul, 1e-7f, 1e-30f), FOPE(fsat_fma, 1e-6f, 1e-7f),
};

static void
test_float_ops(unsigned first, unsigned count)
{
   /* one shader computing every op into its own varying */
   vs_begin();
   nir_builder b = vs_builder("float_ops");
   nir_variable *in = vs_input(&b, glsl_vec_type(2), 0);
   nir_ssa_def *v = nir_load_var(&b, in);
   nir_ssa_def *a = nir_channel(&b, v, 0), *bb = nir_channel(&b, v, 1);
   vs_output(&b, VARYING_SLOT_POS, nir_vec4(&b, a, bb, nir_imm_float(&b, 0), nir_imm_float(&b, 1)));
   count = MIN2(count, ARRAY_SIZE(fops) - first);
   for (unsigned i = 0; i < count; i++)
      vs_output(&b, VARYING_SLOT_VAR0 + i, fops[first + i].build(&b, a, bb));
   union tc_key key;
   memset(&key, 0, sizeof(key));
   key.vs.clip_halfz = true;
   key_attr(&key, 0, PIPE_FORMAT_R32G32_FLOAT, 0, 8, 0);
   fill_ab();
   struct tc_shader_binary bin;
   bool ok = compile(b.shader, &key, &bin) && run_binary(&bin, true);
   report("float ops: compile and run", ok);
   if (!ok) {
      ralloc_free(b.shader);
      return;
   }
   for (unsigned j = 0; j < count; j++) {
      unsigned i = first + j;
      unsigned slot = bin.vs.varying_slot[VARYING_SLOT_VAR0 + j];
      bool good = slot != 0xff;
      for (unsigned l = 0; l < LANES && good; l++) {
         float want = fops[i].ref(in_a[l], in_b[l]);
         float got = out_f(slot, l);
         if (!close_enough(got, want, fops[i].rel, fops[i].abs_tol)) {
            note("lane %u: a=%g b=%g: got %.9g want %.9g\n", l, in_a[l], in_b[l], got, want);
            good = false;
         }
      }
      char name[64];
      snprintf(name, sizeof(name), "float op %s", fops[i].name);
      report(name, good);
   }
   /* position passes through with clip_halfz */
   bool good = true;
   for (unsigned l = 0; l < LANES; l++)
      good &= out_f(0, l) == in_a[l] && out_f(1, l) == in_b[l] && out_f(3, l) == 1.0f;
   report("position output slots 0-3", good);
   tc_shader_binary_finish(&bin);
   ralloc_free(b.shader);
}

/* integer ops: inputs as R32G32_SINT */
static int32_t ia[LANES], ib[LANES];

typedef nir_ssa_def *(*ibuild_fn)(nir_builder *b, nir_ssa_def *a, nir_ssa_def *bb);
typedef uint32_t (*iref_fn)(int32_t a, int32_t b);
struct iop { const char *name; ibuild_fn build; iref_fn ref; };

#define IOP(nm, expr_nir, expr_c)                                                    \
   static nir_ssa_def *ib_##nm(nir_builder *b, nir_ssa_def *a, nir_ssa_def *bb)      \
   { (void)bb; (void)a; return expr_nir; }                                           \
   static uint32_t ir_##nm(int32_t a, int32_t bb) { (void)bb; (void)a; return (uint32_t)(expr_c); }

IOP(iadd, nir_iadd(b, a, bb), (uint32_t)a + (uint32_t)bb)
IOP(isub, nir_isub(b, a, bb), (uint32_t)a - (uint32_t)bb)
IOP(ineg, nir_ineg(b, a), 0u - (uint32_t)a)
IOP(imul, nir_imul(b, a, bb), (uint32_t)a * (uint32_t)bb)
IOP(iand, nir_iand(b, a, bb), a & bb)
IOP(ior, nir_ior(b, a, bb), a | bb)
IOP(ixor, nir_ixor(b, a, bb), a ^ bb)
IOP(inot, nir_inot(b, a), ~a)
IOP(ishl, nir_ishl(b, a, bb), (uint32_t)a << (bb & 31))
IOP(ushr, nir_ushr(b, a, bb), (uint32_t)a >> (bb & 31))
IOP(ishr, nir_ishr(b, a, bb), a >> (bb & 31))
IOP(ishl_imm, nir_ishl(b, a, nir_imm_int(b, 7)), (uint32_t)a << 7)
IOP(imin, nir_imin(b, a, bb), a < bb ? a : bb)
IOP(imax, nir_imax(b, a, bb), a > bb ? a : bb)
IOP(umin, nir_umin(b, a, bb), (uint32_t)a < (uint32_t)bb ? a : bb)
IOP(umax, nir_umax(b, a, bb), (uint32_t)a > (uint32_t)bb ? a : bb)
IOP(iabs, nir_iabs(b, a), a < 0 ? 0u - (uint32_t)a : (uint32_t)a)
IOP(ilt_sel, nir_bcsel(b, nir_ilt(b, a, bb), a, bb), a < bb ? a : bb)
IOP(ige_sel, nir_bcsel(b, nir_ige(b, a, bb), nir_imm_int(b, 1000), nir_imm_int(b, 7)), a >= bb ? 1000 : 7)
IOP(ult_sel, nir_bcsel(b, nir_ult(b, a, bb), a, nir_imm_int(b, 3)), (uint32_t)a < (uint32_t)bb ? a : 3)
IOP(ieq_b2i, nir_b2i32(b, nir_ieq(b, a, bb)), a == bb)
IOP(ine_b2i, nir_b2i32(b, nir_ine(b, a, nir_imm_int(b, 0))), a != 0)
IOP(big_const, nir_iadd(b, a, nir_imm_int(b, 0x12345678)), (uint32_t)a + 0x12345678u)
IOP(udiv, nir_udiv(b, nir_iand_imm(b, a, 0xffff), nir_imax(b, nir_iand_imm(b, bb, 0xff), nir_imm_int(b, 1))),
    (uint32_t)(a & 0xffff) / (uint32_t)((bb & 0xff) > 1 ? (bb & 0xff) : 1))
IOP(bool_logic, nir_b2i32(b, nir_iand(b, nir_ilt(b, a, bb), nir_inot(b, nir_ieq(b, a, nir_imm_int(b, 0))))),
    (a < bb) && a != 0)

#define IOPE(nm) { #nm, ib_##nm, ir_##nm }
static const struct iop iops[] = {
   IOPE(iadd), IOPE(isub), IOPE(ineg), IOPE(imul), IOPE(iand), IOPE(ior), IOPE(ixor),
   IOPE(inot), IOPE(ishl), IOPE(ushr), IOPE(ishr), IOPE(ishl_imm), IOPE(imin), IOPE(imax),
   IOPE(umin), IOPE(umax), IOPE(iabs), IOPE(ilt_sel), IOPE(ige_sel), IOPE(ult_sel),
   IOPE(ieq_b2i), IOPE(ine_b2i), IOPE(big_const), IOPE(udiv), IOPE(bool_logic),
};

static void
test_int_ops(void)
{
   static const int32_t va[] = { 0, 1, -1, 2, 0x7fffffff, (int32_t)0x80000000, 255, 256, -256,
                                 12345, -99999, 31, 32, 33, 0x55555555, 7 };
   static const int32_t vb[] = { 0, 1, 3, -1, 31, 5, 255, 1000, -7, 16, 33, 2, 0, -2, 64, 7 };
   for (unsigned l = 0; l < LANES; l++) {
      ia[l] = va[l % 16] ^ (l >= 16 ? 0x100 : 0);
      ib[l] = vb[(l * 7) % 16];
      memcpy(usc_test_mem + VBUF_OFF + l * 8, &ia[l], 4);
      memcpy(usc_test_mem + VBUF_OFF + l * 8 + 4, &ib[l], 4);
   }
   vs_begin();
   nir_builder b = vs_builder("int_ops");
   nir_variable *in = vs_input(&b, glsl_vector_type(GLSL_TYPE_INT, 2), 0);
   nir_ssa_def *v = nir_load_var(&b, in);
   nir_ssa_def *a = nir_channel(&b, v, 0), *bb = nir_channel(&b, v, 1);
   vs_output(&b, VARYING_SLOT_POS, nir_imm_vec4(&b, 0, 0, 0, 1));
   for (unsigned i = 0; i < ARRAY_SIZE(iops); i++)
      vs_output(&b, VARYING_SLOT_VAR0 + i, iops[i].build(&b, a, bb));
   union tc_key key;
   memset(&key, 0, sizeof(key));
   key.vs.clip_halfz = true;
   key_attr(&key, 0, PIPE_FORMAT_R32G32_SINT, 0, 8, 0);
   struct tc_shader_binary bin;
   bool ok = compile(b.shader, &key, &bin) && run_binary(&bin, true);
   report("integer ops: compile and run", ok);
   if (ok) {
      for (unsigned i = 0; i < ARRAY_SIZE(iops); i++) {
         unsigned slot = bin.vs.varying_slot[VARYING_SLOT_VAR0 + i];
         bool good = slot != 0xff;
         for (unsigned l = 0; l < LANES && good; l++) {
            uint32_t want = iops[i].ref(ia[l], ib[l]), got = vs_out[slot][l];
            if (got != want) {
               note("lane %u: a=%d b=%d: got 0x%08x want 0x%08x\n", l, ia[l], ib[l], got, want);
               good = false;
            }
         }
         char name[64];
         snprintf(name, sizeof(name), "int op %s", iops[i].name);
         report(name, good);
      }
      tc_shader_binary_finish(&bin);
   }
   ralloc_free(b.shader);
}

/* uniforms: pushed words, words past the push range, indirect offsets */
static void
test_uniforms(void)
{
   vs_begin();
   nir_builder b = vs_builder("uniforms");
   nir_ssa_def *vid = nir_load_vertex_id(&b);
   nir_ssa_def *u0 = nir_load_ubo(&b, 4, 32, nir_imm_int(&b, 0), nir_imm_int(&b, 16),
                                  .align_mul = 16, .align_offset = 0, .range_base = 0, .range = ~0);
   nir_ssa_def *u1 = nir_load_ubo(&b, 2, 32, nir_imm_int(&b, 0), nir_imm_int(&b, 4096),
                                  .align_mul = 16, .align_offset = 0, .range_base = 0, .range = ~0);
   nir_ssa_def *off = nir_iadd_imm(&b, nir_ishl(&b, vid, nir_imm_int(&b, 2)), 256);
   nir_ssa_def *u2 = nir_load_ubo(&b, 1, 32, nir_imm_int(&b, 0), off,
                                  .align_mul = 4, .align_offset = 0, .range_base = 0, .range = ~0);
   vs_output(&b, VARYING_SLOT_POS, u0);
   vs_output(&b, VARYING_SLOT_VAR0, nir_vec4(&b, nir_channel(&b, u1, 0), nir_channel(&b, u1, 1), u2,
                                              nir_fmul(&b, nir_channel(&b, u0, 2), u2)));
   union tc_key key;
   memset(&key, 0, sizeof(key));
   key.vs.clip_halfz = true;
   float *cb = (float *)(usc_test_mem + CBUF_OFF);
   for (unsigned i = 0; i < 2048; i++)
      cb[i] = (float)i * 0.5f + 0.25f;
   for (unsigned i = 0; i < TC_MAX_PUSH_WORDS; i++)
      uni[TC_U_PUSH + i] = fui(cb[i]);
   struct tc_shader_binary bin;
   bool ok = compile(b.shader, &key, &bin) && run_binary(&bin, true);
   if (ok) {
      unsigned s = bin.vs.varying_slot[VARYING_SLOT_VAR0];
      for (unsigned l = 0; l < LANES && ok; l++) {
         float want[8] = { cb[4], cb[5], cb[6], cb[7], cb[1024], cb[1025], cb[64 + l],
                           cb[6] * cb[64 + l] };
         float got[8] = { out_f(0, l), out_f(1, l), out_f(2, l), out_f(3, l), out_f(s, l),
                          out_f(s + 1, l), out_f(s + 2, l), out_f(s + 3, l) };
         for (unsigned k = 0; k < 8; k++) {
            if (got[k] != want[k]) {
               note("lane %u value %u: got %g want %g\n", l, k, got[k], want[k]);
               ok = false;
            }
         }
      }
      if (bin.nr_uniforms < TC_U_PUSH + 8) {
         note("nr_uniforms %u too small\n", bin.nr_uniforms);
         ok = false;
      }
      if (!ok)
         dump_binary(&bin);
      tc_shader_binary_finish(&bin);
   }
   report("uniforms: pushed, memory and indirect", ok);
   ralloc_free(b.shader);
}

/* Indirect uniform indices outside their array (issue 13, piglit
 * variable-indexing fs-input-array-*): st/mesa flattens
 * "i >= 4 ? b[i - 4] : a[i]" into a select that runs both loads, so b's
 * load runs with a negative index on the lanes that take a[i]. The byte
 * offset is unsigned: b[-4] at constant buffer byte -64 is ~4 GiB past
 * the buffer, unmapped here (and on the device, depending on what the
 * kernel placed there). The compiler clamps an indirect load to its
 * variable's range (range_base/range), so every lane reads inside it and
 * the selected value is right. Without the clamp the run faults. */
static void
test_uniform_index_out_of_bounds(void)
{
   vs_begin();
   nir_builder b = vs_builder("uniform_oob");
   nir_ssa_def *vid = nir_load_vertex_id(&b);
   nir_ssa_def *i = nir_iand_imm(&b, vid, 7);
   nir_ssa_def *c0 = nir_imm_int(&b, 0);
   /* vec4 b[4] at bytes 0..63, vec4 a[4] at bytes 64..127 */
   nir_ssa_def *boff = nir_ishl(&b, nir_iadd_imm(&b, i, -4), nir_imm_int(&b, 4));
   nir_ssa_def *aoff = nir_iadd_imm(&b, nir_ishl(&b, i, nir_imm_int(&b, 4)), 64);
   nir_ssa_def *bv = nir_load_ubo(&b, 4, 32, c0, boff, .align_mul = 16, .align_offset = 0,
                                  .range_base = 0, .range = 64);
   nir_ssa_def *av = nir_load_ubo(&b, 4, 32, c0, aoff, .align_mul = 16, .align_offset = 0,
                                  .range_base = 64, .range = 64);
   /* a scalar load of b with an index past its end (i + 4: 4..11) */
   nir_ssa_def *past = nir_iadd_imm(&b, nir_ishl(&b, i, nir_imm_int(&b, 4)), 64 + 4);
   nir_ssa_def *pv = nir_load_ubo(&b, 1, 32, c0, past, .align_mul = 4,
                                  .align_offset = 0, .range_base = 0, .range = 64);
   nir_ssa_def *sel = nir_bcsel(&b, nir_ige(&b, i, nir_imm_int(&b, 4)), bv, av);
   vs_output(&b, VARYING_SLOT_POS, nir_vec4(&b, nir_u2f32(&b, vid), c0, c0, nir_imm_float(&b, 1)));
   vs_output(&b, VARYING_SLOT_VAR0, sel);
   vs_output(&b, VARYING_SLOT_VAR1, nir_vec4(&b, pv, pv, pv, pv));
   union tc_key key;
   memset(&key, 0, sizeof(key));
   float *cb = (float *)(usc_test_mem + CBUF_OFF);
   for (unsigned k = 0; k < 2048; k++)
      cb[k] = (float)k + 0.5f;
   for (unsigned k = 0; k < TC_MAX_PUSH_WORDS; k++)
      uni[TC_U_PUSH + k] = fui(cb[k]);
   struct tc_shader_binary bin;
   bool ok = compile(b.shader, &key, &bin) && run_binary(&bin, true);
   if (ok) {
      unsigned s0 = bin.vs.varying_slot[VARYING_SLOT_VAR0];
      unsigned s1 = bin.vs.varying_slot[VARYING_SLOT_VAR1];
      for (unsigned l = 0; l < LANES && ok; l++) {
         unsigned il = l & 7;
         /* the selected element: b[il - 4] (words 0..15) or a[il] (16..31) */
         unsigned w = il >= 4 ? (il - 4) * 4 : 16 + il * 4;
         for (unsigned k = 0; k < 4; k++) {
            if (out_f(s0 + k, l) != cb[w + k]) {
               note("lane %u component %u: got %g want %g\n", l, k, out_f(s0 + k, l), cb[w + k]);
               ok = false;
            }
         }
         /* past b's end: any word of b (the clamp gives its last), never
          * a word outside the array */
         float p = out_f(s1, l);
         if (!(p >= cb[0] && p <= cb[15] && p == floorf(p) + 0.5f)) {
            note("lane %u: the out-of-range load read %g, outside b\n", l, p);
            ok = false;
         }
      }
      if (!ok)
         dump_binary(&bin);
      tc_shader_binary_finish(&bin);
   }
   report("uniforms: indirect index outside its array stays inside it (no fault)", ok);
   ralloc_free(b.shader);
}

/* vertex fetch (stride, offset, u8norm, per-instance) + matrix transform,
 * with GL's clip-space z remapped */
static void
test_vertex_transform(void)
{
   vs_begin();
   nir_builder b = vs_builder("transform");
   nir_variable *pos = vs_input(&b, glsl_vec4_type(), 0);
   nir_variable *col = vs_input(&b, glsl_vec4_type(), 1);
   nir_variable *ofs = vs_input(&b, glsl_vec4_type(), 2);
   nir_ssa_def *p = nir_load_var(&b, pos);
   nir_ssa_def *rows[4];
   for (unsigned r = 0; r < 4; r++)
      rows[r] = nir_load_ubo(&b, 4, 32, nir_imm_int(&b, 0), nir_imm_int(&b, 16 * r),
                             .align_mul = 16, .align_offset = 0, .range_base = 0, .range = ~0);
   nir_ssa_def *o = nir_load_var(&b, ofs);
   nir_ssa_def *comps[4];
   for (unsigned r = 0; r < 4; r++)
      comps[r] = nir_fadd(&b, nir_fdot4(&b, rows[r], p), nir_channel(&b, o, r == 0 ? 0 : 3));
   vs_output(&b, VARYING_SLOT_POS, nir_vec(&b, comps, 4));
   vs_output(&b, VARYING_SLOT_VAR1, nir_load_var(&b, col));
   union tc_key key;
   memset(&key, 0, sizeof(key));
   key.vs.clip_halfz = false;
   /* interleaved: 8 bytes padding, position xyz (w defaults to 1), rgba8 */
   key_attr(&key, 0, PIPE_FORMAT_R32G32B32_FLOAT, 8, 24, 0);
   key_attr(&key, 1, PIPE_FORMAT_R8G8B8A8_UNORM, 20, 24, 0);
   key_attr(&key, 2, PIPE_FORMAT_R32_FLOAT, 4096, 4, 1);   /* per instance */
   float m[16];
   for (unsigned i = 0; i < 16; i++)
      m[i] = (float)((i * 7) % 5) - 1.5f;
   for (unsigned i = 0; i < 16; i++)
      uni[TC_U_PUSH + i] = fui(m[i]);
   memcpy(usc_test_mem + CBUF_OFF, m, sizeof(m));
   float P[LANES][3];
   uint8_t C[LANES][4];
   for (unsigned l = 0; l < LANES; l++) {
      for (unsigned k = 0; k < 3; k++) {
         P[l][k] = (float)l * 0.5f - (float)k * 3.0f;
         vbuf_f32(l, 24, 8 + 4 * k, P[l][k]);
      }
      for (unsigned k = 0; k < 4; k++) {
         C[l][k] = (uint8_t)(l * 8 + k * 50);
         usc_test_mem[VBUF_OFF + l * 24 + 20 + k] = C[l][k];
      }
   }
   instance_id = 3;
   for (unsigned i = 0; i < 8; i++) {
      float v = 100.0f + (float)i;
      memcpy(usc_test_mem + VBUF_OFF + 4096 + 4 * i, &v, 4);
   }
   struct tc_shader_binary bin;
   bool ok = compile(b.shader, &key, &bin) && run_binary(&bin, true);
   if (ok) {
      unsigned s = bin.vs.varying_slot[VARYING_SLOT_VAR1];
      for (unsigned l = 0; l < LANES && ok; l++) {
         float in[4] = { P[l][0], P[l][1], P[l][2], 1.0f }, want[4];
         for (unsigned r = 0; r < 4; r++) {
            want[r] = 0;
            for (unsigned k = 0; k < 4; k++)
               want[r] += m[4 * r + k] * in[k];
            want[r] += r == 0 ? 103.0f : 1.0f;   /* R32_FLOAT: w reads 1 */
         }
         want[2] = 0.5f * want[2] + 0.5f * want[3];
         for (unsigned r = 0; r < 4; r++) {
            if (!close_enough(out_f(r, l), want[r], 1e-5f, 1e-4f)) {
               note("lane %u pos[%u]: got %g want %g\n", l, r, out_f(r, l), want[r]);
               ok = false;
            }
         }
         for (unsigned k = 0; k < 4; k++) {
            if (!close_enough(out_f(s + k, l), C[l][k] / 255.0f, 1e-6f, 1e-6f)) {
               note("lane %u color[%u]: got %g want %g\n", l, k, out_f(s + k, l), C[l][k] / 255.0f);
               ok = false;
            }
         }
      }
      if (bin.vs.nr_slots != 8 || bin.vs.writes_psiz)
         ok = false, note("nr_slots %u\n", bin.vs.nr_slots);
      if (!ok)
         dump_binary(&bin);
      tc_shader_binary_finish(&bin);
   }
   instance_id = 0;
   report("vertex fetch + transform (stride, offset, unorm8, instance, z remap)", ok);
   ralloc_free(b.shader);
}

/* The user varyings grouped as the fragment shader interpolates them
 * (key.flat_mask, key.linear_mask): smooth, flat, linear, so the PPP's
 * Varying Counts word can say which slots the clipper must not
 * interpolate. */
static void
test_varying_groups(void)
{
   vs_begin();
   nir_builder b = vs_builder("groups");
   vs_output(&b, VARYING_SLOT_POS, nir_imm_vec4(&b, 0, 0, 0, 1));
   static const gl_varying_slot locs[4] = { VARYING_SLOT_VAR0, VARYING_SLOT_VAR1,
                                            VARYING_SLOT_VAR2, VARYING_SLOT_COL0 };
   for (unsigned i = 0; i < 4; i++)
      vs_output(&b, locs[i], nir_imm_vec4(&b, 10 * i + 1, 10 * i + 2, 10 * i + 3, 10 * i + 4));
   union tc_key key;
   memset(&key, 0, sizeof(key));
   key.vs.flat_mask = BITFIELD64_BIT(VARYING_SLOT_VAR1) | BITFIELD64_BIT(VARYING_SLOT_COL0);
   key.vs.linear_mask = BITFIELD64_BIT(VARYING_SLOT_VAR0);
   struct tc_shader_binary bin;
   bool ok = compile(b.shader, &key, &bin);
   if (ok) {
      /* smooth VAR2; flat COL0, VAR1 (slot order); linear VAR0 */
      static const unsigned want[4] = { 16, 12, 4, 8 };
      for (unsigned i = 0; i < 4; i++)
         if (bin.vs.varying_slot[locs[i]] != want[i])
            ok = false, note("varying %u at slot %u, want %u\n", locs[i],
                             bin.vs.varying_slot[locs[i]], want[i]);
      if (bin.vs.nr_smooth != 4 || bin.vs.nr_flat != 8 || bin.vs.nr_linear != 4 ||
          bin.vs.nr_slots != 20)
         ok = false, note("groups %u %u %u of %u slots\n", bin.vs.nr_smooth,
                          bin.vs.nr_flat, bin.vs.nr_linear, bin.vs.nr_slots);
      ok = ok && run_binary(&bin, true);
      for (unsigned i = 0; i < 4 && ok; i++)
         for (unsigned k = 0; k < 4; k++)
            if (out_f(want[i] + k, 0) != (float)(10 * i + k + 1))
               ok = false, note("varying %u[%u]: %g\n", locs[i], k, out_f(want[i] + k, 0));
      tc_shader_binary_finish(&bin);
   }
   report("varyings grouped smooth, flat, linear (Varying Counts)", ok);
   ralloc_free(b.shader);
}

/* every fetched vertex format against a CPU conversion */
static void
test_vertex_formats(void)
{
   static const struct { enum pipe_format f; unsigned off, n; bool is_int; } fmts[] = {
      { PIPE_FORMAT_R8G8B8A8_SNORM, 0, 4, false },
      { PIPE_FORMAT_R16G16_UNORM, 4, 2, false },
      { PIPE_FORMAT_R16G16B16A16_UNORM, 8, 4, false },
      { PIPE_FORMAT_R8G8B8A8_UINT, 16, 4, true },
      { PIPE_FORMAT_R32G32B32A32_FLOAT, 20, 4, false },
      { PIPE_FORMAT_R16G16_SNORM, 36, 2, false },
      { PIPE_FORMAT_R8G8_UNORM, 40, 2, false },
      { PIPE_FORMAT_R32G32B32_UINT, 44, 3, true },
   };
   const unsigned stride = 56;
   vs_begin();
   nir_builder b = vs_builder("vertex_formats");
   union tc_key key;
   memset(&key, 0, sizeof(key));
   key.vs.clip_halfz = true;
   vs_output(&b, VARYING_SLOT_POS, nir_imm_vec4(&b, 0, 0, 0, 1));
   for (unsigned i = 0; i < ARRAY_SIZE(fmts); i++) {
      nir_variable *in = vs_input(&b, fmts[i].is_int ? glsl_uvec4_type() : glsl_vec4_type(), i);
      nir_ssa_def *v = nir_load_var(&b, in);
      if (fmts[i].is_int)
         v = nir_u2f32(&b, v);
      vs_output(&b, VARYING_SLOT_VAR0 + i, v);
      key_attr(&key, i, fmts[i].f, fmts[i].off, stride, 0);
   }
   float want[ARRAY_SIZE(fmts)][LANES][4];
   for (unsigned l = 0; l < LANES; l++) {
      uint8_t *p = usc_test_mem + VBUF_OFF + l * stride;
      for (unsigned i = 0; i < ARRAY_SIZE(fmts); i++) {
         float *w = want[i][l];
         w[0] = w[1] = w[2] = 0;
         w[3] = 1;
         uint8_t *q = p + fmts[i].off;
         for (unsigned k = 0; k < fmts[i].n; k++) {
            switch (fmts[i].f) {
            case PIPE_FORMAT_R8G8B8A8_SNORM: {
               int8_t x = (int8_t)(l * 37 + k * 91);
               q[k] = (uint8_t)x;
               w[k] = fmaxf((float)x / 127.0f, -1.0f);
               break;
            }
            case PIPE_FORMAT_R16G16_UNORM: case PIPE_FORMAT_R16G16_SNORM:
            case PIPE_FORMAT_R16G16B16A16_UNORM: {
               uint16_t x = (uint16_t)(l * 2741 + k * 40503);
               memcpy(q + 2 * k, &x, 2);
               w[k] = fmts[i].f != PIPE_FORMAT_R16G16_SNORM ? (float)x / 65535.0f
                                                            : fmaxf((float)(int16_t)x / 32767.0f, -1.0f);
               break;
            }
            case PIPE_FORMAT_R8G8B8A8_UINT: case PIPE_FORMAT_R8G8_UNORM:
               q[k] = (uint8_t)(l * 7 + k * 60);
               w[k] = fmts[i].f == PIPE_FORMAT_R8G8_UNORM ? q[k] / 255.0f : (float)q[k];
               break;
            case PIPE_FORMAT_R32G32B32A32_FLOAT: {
               float f = (float)l * -1.25f + (float)k;
               memcpy(q + 4 * k, &f, 4);
               w[k] = f;
               break;
            }
            default: {
               uint32_t x = l * 100000u + k;
               memcpy(q + 4 * k, &x, 4);
               w[k] = (float)x;
               break;
            }
            }
         }
      }
   }
   struct tc_shader_binary bin;
   bool ok = compile(b.shader, &key, &bin) && run_binary(&bin, true);
   if (ok) {
      for (unsigned i = 0; i < ARRAY_SIZE(fmts); i++) {
         unsigned s = bin.vs.varying_slot[VARYING_SLOT_VAR0 + i];
         for (unsigned l = 0; l < LANES; l++) {
            for (unsigned k = 0; k < 4; k++) {
               float got = out_f(s + k, l);
               if (!close_enough(got, want[i][l][k], 1e-6f, 1e-7f)) {
                  if (ok)
                     note("%s lane %u comp %u: got %g want %g\n", util_format_name(fmts[i].f), l, k,
                          got, want[i][l][k]);
                  ok = false;
               }
            }
         }
      }
      tc_shader_binary_finish(&bin);
   }
   report("vertex fetch: snorm8, unorm16x2, snorm16, unorm16x4, uint8, unorm8x2, float4, uint3", ok);
   ralloc_free(b.shader);
}

/* control flow: divergent if/else, loop with break, nested continue */
static void
test_control_flow(void)
{
   vs_begin();
   nir_builder b = vs_builder("control_flow");
   nir_ssa_def *vid = nir_load_vertex_id(&b);
   nir_variable *acc = nir_local_variable_create(b.impl, glsl_int_type(), "acc");
   nir_variable *i = nir_local_variable_create(b.impl, glsl_int_type(), "i");
   nir_variable *r = nir_local_variable_create(b.impl, glsl_float_type(), "r");

   /* if (vid & 1) r = vid * 2.0; else if (vid < 10) r = -1; else r = 7 */
   nir_ssa_def *fv = nir_u2f32(&b, vid);
   nir_push_if(&b, nir_ine(&b, nir_iand_imm(&b, vid, 1), nir_imm_int(&b, 0)));
   nir_store_var(&b, r, nir_fmul_imm(&b, fv, 2.0), 1);
   nir_push_else(&b, NULL);
   nir_push_if(&b, nir_ult(&b, vid, nir_imm_int(&b, 10)));
   nir_store_var(&b, r, nir_imm_float(&b, -1.0), 1);
   nir_push_else(&b, NULL);
   nir_store_var(&b, r, nir_imm_float(&b, 7.0), 1);
   nir_pop_if(&b, NULL);
   nir_pop_if(&b, NULL);

   /* acc = 0; for (i = 0;; i++) { if (i >= vid) break; if (i % 3 == 1) continue; acc += i; } */
   nir_store_var(&b, acc, nir_imm_int(&b, 0), 1);
   nir_store_var(&b, i, nir_imm_int(&b, 0), 1);
   nir_push_loop(&b);
   {
      nir_ssa_def *iv = nir_load_var(&b, i);
      nir_push_if(&b, nir_ige(&b, iv, vid));
      nir_jump(&b, nir_jump_break);
      nir_pop_if(&b, NULL);
      nir_store_var(&b, i, nir_iadd_imm(&b, iv, 1), 1);
      nir_push_if(&b, nir_ieq(&b, nir_umod(&b, iv, nir_imm_int(&b, 3)), nir_imm_int(&b, 1)));
      nir_jump(&b, nir_jump_continue);
      nir_pop_if(&b, NULL);
      nir_store_var(&b, acc, nir_iadd(&b, nir_load_var(&b, acc), iv), 1);
   }
   nir_pop_loop(&b, NULL);

   vs_output(&b, VARYING_SLOT_POS, nir_imm_vec4(&b, 0, 0, 0, 1));
   vs_output(&b, VARYING_SLOT_VAR0, nir_vec4(&b, nir_load_var(&b, r), nir_i2f32(&b, nir_load_var(&b, acc)),
                                              nir_i2f32(&b, nir_load_var(&b, i)), fv));
   union tc_key key;
   memset(&key, 0, sizeof(key));
   key.vs.clip_halfz = true;
   struct tc_shader_binary bin;
   bool ok = compile(b.shader, &key, &bin) && run_binary(&bin, true);
   bool ok_if = ok, ok_loop = ok;
   if (ok) {
      unsigned s = bin.vs.varying_slot[VARYING_SLOT_VAR0];
      for (unsigned l = 0; l < LANES; l++) {
         float wr = (l & 1) ? l * 2.0f : l < 10 ? -1.0f : 7.0f;
         int wacc = 0;
         for (unsigned k = 0; k < l; k++)
            if (k % 3 != 1)
               wacc += (int)k;
         if (out_f(s, l) != wr) {
            note("lane %u if/else: got %g want %g\n", l, out_f(s, l), wr);
            ok_if = false;
         }
         if (out_f(s + 1, l) != (float)wacc || out_f(s + 2, l) != (float)l ||
             out_f(s + 3, l) != (float)l) {
            note("lane %u loop: acc %g (want %d) i %g\n", l, out_f(s + 1, l), wacc,
                 out_f(s + 2, l));
            ok_loop = false;
         }
      }
      if (!ok_if || !ok_loop)
         dump_binary(&bin);
      tc_shader_binary_finish(&bin);
   }
   report("control flow: divergent nested if/else", ok_if);
   report("control flow: loop with break and continue", ok_loop);
   ralloc_free(b.shader);
}

/* ------------------------------------------------------------ fragment */

static nir_variable *
fs_input(nir_builder *b, unsigned slot, unsigned n, enum glsl_interp_mode mode, unsigned drv)
{
   char name[16];
   snprintf(name, sizeof(name), "v%u", slot);
   nir_variable *v = nir_variable_create(b->shader, nir_var_shader_in,
                                         glsl_vector_type(GLSL_TYPE_FLOAT, n), name);
   v->data.location = slot;
   v->data.driver_location = drv;
   v->data.interpolation = mode;
   return v;
}

static nir_variable *
fs_color_out(nir_builder *b)
{
   nir_variable *v = nir_variable_create(b->shader, nir_var_shader_out, glsl_vec4_type(), "color");
   v->data.location = FRAG_RESULT_DATA0;
   v->data.driver_location = 0;
   return v;
}

static int
find_input(const struct tc_shader_binary *bin, enum tc_cf_source src, unsigned loc)
{
   for (unsigned i = 0; i < bin->fs.nr_inputs; i++)
      if (bin->fs.inputs[i].source == src && (src != TC_CF_VARYING || bin->fs.inputs[i].location == loc))
         return i;
   return -1;
}

static void
test_fragment(bool blend)
{
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, tc_nir_options(),
                                                  blend ? "fs_blend" : "fs");
   nir_variable *tc = fs_input(&b, VARYING_SLOT_VAR0, 2, INTERP_MODE_SMOOTH, 0);
   nir_variable *col = fs_input(&b, VARYING_SLOT_VAR1, 4, INTERP_MODE_NOPERSPECTIVE, 1);
   nir_variable *flat = fs_input(&b, VARYING_SLOT_VAR2, 1, INTERP_MODE_FLAT, 2);
   nir_variable *out = fs_color_out(&b);
   nir_ssa_def *t = nir_load_var(&b, tc);
   nir_ssa_def *c = nir_load_var(&b, col);
   nir_ssa_def *f = nir_load_var(&b, flat);
   /* texel = (s, t, 1 + 1/16, bias) from the emulated texture unit */
   nir_tex_instr *ti = nir_tex_instr_create(b.shader, 2);
   ti->op = nir_texop_txb;
   ti->sampler_dim = GLSL_SAMPLER_DIM_2D;
   ti->dest_type = nir_type_float32;
   ti->coord_components = 2;
   ti->texture_index = 1;
   ti->sampler_index = 1;
   ti->src[0].src_type = nir_tex_src_coord;
   ti->src[0].src = nir_src_for_ssa(t);
   ti->src[1].src_type = nir_tex_src_bias;
   ti->src[1].src = nir_src_for_ssa(nir_imm_float(&b, 1.5));
   nir_ssa_dest_init(&ti->instr, &ti->dest, 4, 32, NULL);
   nir_builder_instr_insert(&b, &ti->instr);
   nir_ssa_def *texel = &ti->dest.ssa;
   /* discard lanes with flat value > 100 */
   nir_discard_if(&b, nir_flt(&b, nir_imm_float(&b, 100.0), f));
   nir_ssa_def *fc = nir_load_frag_coord(&b);
   nir_ssa_def *res = nir_vec4(&b,
      nir_fmul(&b, nir_channel(&b, texel, 0), nir_channel(&b, c, 0)),
      nir_fadd(&b, nir_channel(&b, texel, 3), nir_fmul_imm(&b, nir_channel(&b, texel, 2), 0.0)),
      nir_fmul_imm(&b, nir_fadd(&b, nir_channel(&b, fc, 0), nir_channel(&b, fc, 1)), 1.0 / 64.0),
      nir_fsat(&b, nir_fmul_imm(&b, f, 0.01)));
   nir_store_var(&b, out, res, 0xf);

   union tc_key key;
   memset(&key, 0, sizeof(key));
   key.fs.nr_cbufs = 1;
   key.fs.rt[0].format = PIPE_FORMAT_R8G8B8A8_UNORM;
   key.fs.rt[0].offset = 0;
   key.fs.blend[0].colormask = 0xf;
   if (blend) {
      key.fs.blend[0].blend_enable = 1;
      key.fs.blend[0].rgb_func = PIPE_BLEND_ADD;
      key.fs.blend[0].rgb_src_factor = PIPE_BLENDFACTOR_SRC_ALPHA;
      key.fs.blend[0].rgb_dst_factor = PIPE_BLENDFACTOR_INV_SRC_ALPHA;
      key.fs.blend[0].alpha_func = PIPE_BLEND_ADD;
      key.fs.blend[0].alpha_src_factor = PIPE_BLENDFACTOR_ONE;
      key.fs.blend[0].alpha_dst_factor = PIPE_BLENDFACTOR_CONST_ALPHA;
      key.fs.blend[0].colormask = 0xb;   /* no blue */
      uni[TC_U_BLEND_CONST + 3] = fui(0.5f);
   }
   struct tc_shader_binary bin;
   fs_mode = true;
   bool ok = compile(b.shader, &key, &bin);
   float W[LANES], S[LANES], T[LANES], CR[LANES], FL[LANES], dst[4][LANES];
   if (ok) {
      int i_tc = find_input(&bin, TC_CF_VARYING, VARYING_SLOT_VAR0);
      int i_col = find_input(&bin, TC_CF_VARYING, VARYING_SLOT_VAR1);
      int i_fl = find_input(&bin, TC_CF_VARYING, VARYING_SLOT_VAR2);
      int i_w = find_input(&bin, TC_CF_POSITION_W, 0);
      if (i_tc < 0 || i_col < 0 || i_fl < 0 || i_w < 0 ||
          bin.fs.inputs[i_tc].interp != TC_INTERP_PERSPECTIVE ||
          bin.fs.inputs[i_col].interp != TC_INTERP_LINEAR ||
          bin.fs.inputs[i_fl].interp != TC_INTERP_FLAT) {
         note("fs inputs not as expected (%d %d %d %d)\n", i_tc, i_col, i_fl, i_w);
         ok = false;
      } else {
         memset(cf_val, 0, sizeof(cf_val));
         for (unsigned l = 0; l < LANES; l++) {
            W[l] = 0.5f + l * 0.25f;          /* 1/w */
            S[l] = 0.1f * l, T[l] = 1.0f - 0.03f * l;
            CR[l] = 0.25f + l / 64.0f;
            FL[l] = l == 5 || l == 17 ? 150.0f : (float)l * 3.0f;
            unsigned wc = bin.fs.inputs[i_w].cf_base;
            cf_val[wc][l] = W[l];
            cf_val[bin.fs.inputs[i_tc].cf_base][l] = S[l] * W[l];
            cf_val[bin.fs.inputs[i_tc].cf_base + 1][l] = T[l] * W[l];
            cf_val[bin.fs.inputs[i_col].cf_base][l] = CR[l];
            cf_val[bin.fs.inputs[i_fl].cf_base][l] = FL[l];
            coverage[l] = 1;
            tile_written[l] = false;
            for (unsigned k = 0; k < 4; k++)
               dst[k][l] = tile[k][l] = roundf((0.2f + 0.1f * k + l / 128.0f) * 255.0f) / 255.0f;
         }
         tile_read = false;
         ok = run_binary(&bin, true);
      }
   }
   if (ok) {
      if (!bin.fs.discards || bin.fs.reads_tilebuffer != blend || tile_read != blend) {
         note("flags: discards %d reads_tilebuffer %d tile_read %d\n", bin.fs.discards,
              bin.fs.reads_tilebuffer, tile_read);
         ok = false;
      }
      for (unsigned l = 0; l < LANES && ok; l++) {
         bool killed = FL[l] > 100.0f;
         if (killed) {
            if (tile_written[l] || coverage[l]) {
               note("lane %u: discarded lane wrote the tile\n", l);
               ok = false;
            }
            continue;
         }
         float x = 10 + l + 0.5f, y = 20 + 0.5f;
         float src[4] = { S[l] * CR[l], 1.5f, (x + y) / 64.0f, fminf(FL[l] * 0.01f, 1.0f) };
         float want[4];
         for (unsigned k = 0; k < 4; k++) {
            float v = src[k] < 0 ? 0 : src[k] > 1 ? 1 : src[k];
            if (blend) {
               float sa = src[3];
               if (k < 3)
                  v = v * sa + dst[k][l] * (1.0f - sa);
               else
                  v = sa + dst[3][l] * 0.5f;
               if (k == 2)
                  v = dst[2][l];   /* masked */
            }
            v = v < 0 ? 0 : v > 1 ? 1 : v;
            want[k] = roundf(v * 255.0f) / 255.0f;
            if (fabsf(tile[k][l] - want[k]) > 1.01f / 255.0f) {
               note("lane %u comp %u: tile %g want %g (src %g)\n", l, k, tile[k][l], want[k], src[k]);
               ok = false;
            }
         }
         if (!tile_written[l]) {
            note("lane %u: tile not written\n", l);
            ok = false;
         }
      }
      if (!ok)
         dump_binary(&bin);
   }
   if (bin.code)
      tc_shader_binary_finish(&bin);
   fs_mode = false;
   report(blend ? "fragment: varyings, texture, discard, blending + colour mask"
                : "fragment: varyings (perspective/linear/flat), texture bias, discard, frag coord",
          ok);
   ralloc_free(b.shader);
}

static nir_ssa_def *
build_tex(nir_builder *b, nir_texop op, enum glsl_sampler_dim dim, unsigned tex, unsigned smp,
          nir_ssa_def *coord, nir_ssa_def *lod, nir_ssa_def *ref)
{
   unsigned n = 1 + (lod != NULL) + (ref != NULL), k = 0;
   nir_tex_instr *ti = nir_tex_instr_create(b->shader, n);
   ti->op = op;
   ti->sampler_dim = dim;
   ti->dest_type = nir_type_float32;
   ti->coord_components = coord->num_components;
   ti->texture_index = tex;
   ti->sampler_index = smp;
   ti->is_shadow = ref != NULL;
   ti->is_new_style_shadow = ref != NULL;
   ti->src[k].src_type = nir_tex_src_coord;
   ti->src[k++].src = nir_src_for_ssa(coord);
   if (lod) {
      ti->src[k].src_type = op == nir_texop_txb ? nir_tex_src_bias : nir_tex_src_lod;
      ti->src[k++].src = nir_src_for_ssa(lod);
   }
   if (ref) {
      ti->src[k].src_type = nir_tex_src_comparator;
      ti->src[k++].src = nir_src_for_ssa(ref);
   }
   nir_ssa_dest_init(&ti->instr, &ti->dest, ref ? 1 : 4, 32, NULL);
   nir_builder_instr_insert(b, &ti->instr);
   return &ti->dest.ssa;
}

/* front facing, point coord (lower-left origin), cube map with explicit
 * LOD, shadow compare, depth output */
static void
test_fragment_misc(void)
{
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, tc_nir_options(), "fs_misc");
   nir_variable *out = fs_color_out(&b);
   nir_variable *dout = nir_variable_create(b.shader, nir_var_shader_out, glsl_float_type(), "depth");
   dout->data.location = FRAG_RESULT_DEPTH;
   dout->data.driver_location = 1;
   nir_variable *ff = nir_variable_create(b.shader, nir_var_system_value, glsl_bool_type(), "ff");
   ff->data.location = SYSTEM_VALUE_FRONT_FACE;
   nir_ssa_def *front = nir_load_front_face(&b, 1);
   nir_ssa_def *pc = nir_load_point_coord(&b);
   nir_ssa_def *fc = nir_load_frag_coord(&b);
   nir_ssa_def *cube = build_tex(&b, nir_texop_txl, GLSL_SAMPLER_DIM_CUBE, 2, 3,
                                 nir_vec3(&b, nir_imm_float(&b, 0.25),
                                          nir_fmul_imm(&b, nir_channel(&b, fc, 0), 0.001),
                                          nir_imm_float(&b, 0.125)),
                                 nir_imm_float(&b, 2.0), NULL);
   nir_ssa_def *shadow = build_tex(&b, nir_texop_tex, GLSL_SAMPLER_DIM_2D, 0, 0,
                                   nir_vec2(&b, nir_imm_float(&b, 0.5), nir_imm_float(&b, 0.5)),
                                   NULL, nir_imm_float(&b, 0.75));
   nir_store_var(&b, out, nir_vec4(&b, nir_b2f32(&b, front), nir_channel(&b, pc, 0),
                                   nir_channel(&b, pc, 1),
                                   nir_fmul_imm(&b, nir_channel(&b, cube, 3), 0.25)), 0xf);
   nir_tex_instr *tf = nir_tex_instr_create(b.shader, 2);
   tf->op = nir_texop_txf;
   tf->sampler_dim = GLSL_SAMPLER_DIM_2D;
   tf->dest_type = nir_type_uint32;
   tf->coord_components = 2;
   tf->texture_index = 4;
   tf->src[0].src_type = nir_tex_src_coord;
   tf->src[0].src = nir_src_for_ssa(nir_vec2(&b, nir_imm_int(&b, 3), nir_imm_int(&b, 9)));
   tf->src[1].src_type = nir_tex_src_lod;
   tf->src[1].src = nir_src_for_ssa(nir_imm_int(&b, 2));
   nir_ssa_dest_init(&tf->instr, &tf->dest, 4, 32, NULL);
   nir_builder_instr_insert(&b, &tf->instr);
   /* x + y + level + 42 = 56 -> depth += 56 / 64 */
   nir_ssa_def *sum = nir_iadd(&b, nir_iadd(&b, nir_channel(&b, &tf->dest.ssa, 0), nir_channel(&b, &tf->dest.ssa, 1)),
                               nir_iadd(&b, nir_channel(&b, &tf->dest.ssa, 2), nir_channel(&b, &tf->dest.ssa, 3)));
   nir_store_var(&b, dout, nir_fadd(&b, nir_fadd(&b, nir_channel(&b, cube, 2), shadow),
                                    nir_fmul_imm(&b, nir_u2f32(&b, sum), 1.0 / 64.0)), 1);
   union tc_key key;
   memset(&key, 0, sizeof(key));
   key.fs.nr_cbufs = 1;
   key.fs.rt[0].format = PIPE_FORMAT_B8G8R8A8_UNORM;
   key.fs.blend[0].colormask = 0xf;
   key.fs.sprite_coord_upper_left = false;
   struct tc_shader_binary bin;
   fs_mode = true;
   bool ok = compile(b.shader, &key, &bin);
   float PX[LANES], PY[LANES];
   if (ok) {
      int ip = find_input(&bin, TC_CF_POINT_COORD, 0);
      if (ip < 0) {
         note("no point coord input\n");
         ok = false;
      } else {
         for (unsigned l = 0; l < LANES; l++) {
            PX[l] = l / 40.0f;
            PY[l] = 0.75f - l / 64.0f;
            cf_val[bin.fs.inputs[ip].cf_base][l] = PX[l];
            cf_val[bin.fs.inputs[ip].cf_base + 1][l] = PY[l];
            coverage[l] = 1;
            tile_written[l] = false;
            zs_depth[l] = -1;
         }
         tex_calls = 0;
         ok = run_binary(&bin, true);
      }
   }
   if (ok) {
      if (!bin.fs.writes_depth || bin.fs.discards || tex_calls != 3 || !bin.uses_textures) {
         note("flags: writes_depth %d discards %d tex calls %u\n", bin.fs.writes_depth,
              bin.fs.discards, tex_calls);
         ok = false;
      }
      for (unsigned l = 0; l < LANES && ok; l++) {
         float want[4] = { (l & 1) ? 0.0f : 1.0f, PX[l], 1.0f - PY[l], 0.5f };
         for (unsigned k = 0; k < 4; k++) {
            float q = roundf(want[k] * 255.0f) / 255.0f;
            if (fabsf(tile[k][l] - q) > 1.01f / 255.0f) {
               note("lane %u comp %u: tile %g want %g\n", l, k, tile[k][l], q);
               ok = false;
            }
         }
         if (zs_depth[l] != 0.125f + 0.75f + 56.0f / 64.0f) {
            note("lane %u: depth %g want 1.75\n", l, zs_depth[l]);
            ok = false;
         }
      }
      if (!ok)
         dump_binary(&bin);
   }
   if (bin.code)
      tc_shader_binary_finish(&bin);
   fs_mode = false;
   report("fragment: front facing, point coord, cube txl, shadow, texelFetch, depth write", ok);
   ralloc_free(b.shader);
}

/* Shadow references clamp to [0, 1] for the views in
 * key.shadow_clamp_mask (Z24 sampled as Z32F: piglit
 * glsl-fs-shadow2D-clamp-z) and pass unchanged for the others. The fake
 * texture_sample returns the reference it receives. */
static void
test_shadow_clamp(void)
{
   static const float refs[] = { -1.5f, 2.5f, 0.25f };
   bool ok = true;
   for (unsigned clamp = 0; clamp < 2; clamp++) {
      for (unsigned r = 0; r < ARRAY_SIZE(refs); r++) {
         nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, tc_nir_options(),
                                                        "fs_shadow_clamp");
         nir_variable *out = fs_color_out(&b);
         nir_variable *dout = nir_variable_create(b.shader, nir_var_shader_out,
                                                  glsl_float_type(), "depth");
         dout->data.location = FRAG_RESULT_DEPTH;
         dout->data.driver_location = 1;
         /* a reference the compiler cannot fold: refs[r] + (x - x) */
         nir_ssa_def *x = nir_channel(&b, nir_load_frag_coord(&b), 0);
         nir_ssa_def *ref = nir_fadd_imm(&b, nir_fsub(&b, x, x), refs[r]);
         nir_ssa_def *coord = nir_vec2(&b, nir_imm_float(&b, 0.5), nir_imm_float(&b, 0.5));
         /* view 3 is clamped when `clamp`; view 5 never */
         nir_ssa_def *s3 = build_tex(&b, nir_texop_tex, GLSL_SAMPLER_DIM_2D, 3, 0, coord, NULL, ref);
         nir_ssa_def *s5 = build_tex(&b, nir_texop_tex, GLSL_SAMPLER_DIM_2D, 5, 1, coord, NULL, ref);
         nir_store_var(&b, out, nir_imm_vec4(&b, 0, 0, 0, 1), 0xf);
         nir_store_var(&b, dout, nir_fadd(&b, s3, nir_fmul_imm(&b, s5, 16.0)), 1);
         union tc_key key;
         memset(&key, 0, sizeof(key));
         key.fs.nr_cbufs = 1;
         key.fs.rt[0].format = PIPE_FORMAT_B8G8R8A8_UNORM;
         key.fs.blend[0].colormask = 0xf;
         key.fs.shadow_clamp_mask = clamp ? 1u << 3 : 0;
         struct tc_shader_binary bin;
         fs_mode = true;
         bool run = compile(b.shader, &key, &bin);
         if (run) {
            for (unsigned l = 0; l < LANES; l++) {
               coverage[l] = 1;
               tile_written[l] = false;
               zs_depth[l] = -100;
            }
            tex_calls = 0;
            run = run_binary(&bin, true);
         }
         float want = (clamp ? fminf(fmaxf(refs[r], 0.0f), 1.0f) : refs[r]) + 16.0f * refs[r];
         for (unsigned l = 0; l < LANES && run; l++) {
            if (zs_depth[l] != want) {
               note("clamp %u ref %g lane %u: depth %g want %g\n", clamp, refs[r], l, zs_depth[l],
                    want);
               run = false;
            }
         }
         if (!run && bin.code)
            dump_binary(&bin);
         if (bin.code)
            tc_shader_binary_finish(&bin);
         fs_mode = false;
         ok = ok && run;
         ralloc_free(b.shader);
      }
   }
   report("fragment: shadow reference clamped for key.shadow_clamp_mask views only", ok);
}

/* gl_FragCoord / gl_FrontFacing as st/mesa passes them without the
 * sysval caps: inputs at VARYING_SLOT_POS / VARYING_SLOT_FACE */
static void
test_sysval_inputs(void)
{
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, tc_nir_options(), "fs_sysval_in");
   nir_variable *pos = fs_input(&b, VARYING_SLOT_POS, 4, INTERP_MODE_NONE, 0);
   nir_variable *face = nir_variable_create(b.shader, nir_var_shader_in, glsl_bool_type(), "face");
   face->data.location = VARYING_SLOT_FACE;
   face->data.driver_location = 1;
   face->data.interpolation = INTERP_MODE_FLAT;
   nir_variable *out = fs_color_out(&b);
   nir_ssa_def *p = nir_load_var(&b, pos);
   nir_ssa_def *f = nir_load_var(&b, face);
   nir_store_var(&b, out, nir_vec4(&b, nir_b2f32(&b, f), nir_fmul_imm(&b, nir_channel(&b, p, 0), 1.0 / 64),
                                   nir_fmul_imm(&b, nir_channel(&b, p, 1), 1.0 / 64), nir_imm_float(&b, 1.0)), 0xf);
   union tc_key key;
   memset(&key, 0, sizeof(key));
   key.fs.nr_cbufs = 1;
   key.fs.rt[0].format = PIPE_FORMAT_R8G8B8A8_UNORM;
   key.fs.blend[0].colormask = 0xf;
   struct tc_shader_binary bin;
   fs_mode = true;
   bool ok = compile(b.shader, &key, &bin);
   if (ok) {
      for (unsigned l = 0; l < LANES; l++)
         coverage[l] = 1;
      ok = run_binary(&bin, true);
   }
   if (ok) {
      if (bin.fs.nr_inputs != 0) {
         note("%u CF inputs for system values\n", bin.fs.nr_inputs);
         ok = false;
      }
      for (unsigned l = 0; l < LANES && ok; l++) {
         float want[4] = { (l & 1) ? 0.0f : 1.0f, (10 + l + 0.5f) / 64.0f, 20.5f / 64.0f, 1.0f };
         for (unsigned k = 0; k < 4; k++) {
            float q = roundf(want[k] * 255.0f) / 255.0f;
            if (fabsf(tile[k][l] - q) > 0.5f / 255.0f) {
               note("lane %u comp %u: tile %g want %g\n", l, k, tile[k][l], q);
               ok = false;
            }
         }
      }
      if (!ok)
         dump_binary(&bin);
   }
   if (bin.code)
      tc_shader_binary_finish(&bin);
   fs_mode = false;
   report("fragment: gl_FragCoord / gl_FrontFacing passed as inputs", ok);
   ralloc_free(b.shader);
}

/* logic op (XOR) on a unorm8 target: pack, integer op, unpack */
static void
test_logicop(void)
{
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_FRAGMENT, tc_nir_options(), "fs_logicop");
   nir_variable *out = fs_color_out(&b);
   nir_store_var(&b, out, nir_imm_vec4(&b, 0.2, 0.4, 0.6, 0.8), 0xf);
   union tc_key key;
   memset(&key, 0, sizeof(key));
   key.fs.nr_cbufs = 1;
   key.fs.rt[0].format = PIPE_FORMAT_R8G8B8A8_UNORM;
   key.fs.blend[0].colormask = 0xf;
   key.fs.logicop_enable = true;
   key.fs.logicop_func = PIPE_LOGICOP_XOR;
   struct tc_shader_binary bin;
   fs_mode = true;
   bool ok = compile(b.shader, &key, &bin);
   uint8_t d8[4][LANES];
   if (ok) {
      for (unsigned l = 0; l < LANES; l++) {
         coverage[l] = 1;
         for (unsigned k = 0; k < 4; k++) {
            d8[k][l] = (uint8_t)(l * 8 + k * 33);
            tile[k][l] = d8[k][l] / 255.0f;
         }
      }
      ok = run_binary(&bin, true);
   }
   if (ok) {
      static const uint8_t s8[4] = { 51, 102, 153, 204 };
      for (unsigned l = 0; l < LANES && ok; l++) {
         for (unsigned k = 0; k < 4; k++) {
            float want = (uint8_t)(s8[k] ^ d8[k][l]) / 255.0f;
            if (fabsf(tile[k][l] - want) > 0.5f / 255.0f) {
               note("lane %u comp %u: got %g want %g\n", l, k, tile[k][l] * 255.0f, want * 255.0f);
               ok = false;
            }
         }
      }
      if (!ok)
         dump_binary(&bin);
   }
   if (bin.code)
      tc_shader_binary_finish(&bin);
   fs_mode = false;
   report("fragment: logic op XOR on unorm8", ok);
   ralloc_free(b.shader);
}

/* nested loops; a uniform-trip loop inside a divergent one */
static void
test_nested_loops(void)
{
   vs_begin();
   nir_builder b = vs_builder("nested_loops");
   nir_ssa_def *vid = nir_load_vertex_id(&b);
   nir_variable *acc = nir_local_variable_create(b.impl, glsl_int_type(), "acc");
   nir_variable *i = nir_local_variable_create(b.impl, glsl_int_type(), "i");
   nir_variable *j = nir_local_variable_create(b.impl, glsl_int_type(), "j");
   nir_store_var(&b, acc, nir_imm_int(&b, 0), 1);
   nir_store_var(&b, i, nir_imm_int(&b, 0), 1);
   /* for (i = 0; i < vid % 7; i++) for (j = 0; j <= i; j++) { if (j == 3) break; acc += i * 10 + j; } */
   nir_push_loop(&b);
   {
      nir_ssa_def *iv = nir_load_var(&b, i);
      nir_push_if(&b, nir_ige(&b, iv, nir_umod(&b, vid, nir_imm_int(&b, 7))));
      nir_jump(&b, nir_jump_break);
      nir_pop_if(&b, NULL);
      nir_store_var(&b, j, nir_imm_int(&b, 0), 1);
      nir_push_loop(&b);
      {
         nir_ssa_def *jv = nir_load_var(&b, j);
         nir_push_if(&b, nir_ior(&b, nir_ilt(&b, iv, jv), nir_ieq(&b, jv, nir_imm_int(&b, 3))));
         nir_jump(&b, nir_jump_break);
         nir_pop_if(&b, NULL);
         nir_store_var(&b, acc, nir_iadd(&b, nir_load_var(&b, acc),
                                         nir_iadd(&b, nir_imul_imm(&b, iv, 10), jv)), 1);
         nir_store_var(&b, j, nir_iadd_imm(&b, jv, 1), 1);
      }
      nir_pop_loop(&b, NULL);
      nir_store_var(&b, i, nir_iadd_imm(&b, iv, 1), 1);
   }
   nir_pop_loop(&b, NULL);
   vs_output(&b, VARYING_SLOT_POS, nir_imm_vec4(&b, 0, 0, 0, 1));
   vs_output(&b, VARYING_SLOT_VAR0, nir_vec4(&b, nir_i2f32(&b, nir_load_var(&b, acc)),
                                              nir_i2f32(&b, nir_load_var(&b, i)),
                                              nir_imm_float(&b, 0), nir_imm_float(&b, 0)));
   union tc_key key;
   memset(&key, 0, sizeof(key));
   struct tc_shader_binary bin;
   bool ok = compile(b.shader, &key, &bin) && run_binary(&bin, true);
   if (ok) {
      unsigned s = bin.vs.varying_slot[VARYING_SLOT_VAR0];
      for (unsigned l = 0; l < LANES; l++) {
         int wacc = 0, n = (int)(l % 7);
         for (int ii = 0; ii < n; ii++)
            for (int jj = 0; jj <= ii && jj != 3; jj++)
               wacc += ii * 10 + jj;
         if (out_f(s, l) != (float)wacc || out_f(s + 1, l) != (float)n) {
            note("lane %u: acc %g want %d, i %g want %d\n", l, out_f(s, l), wacc, out_f(s + 1, l), n);
            ok = false;
         }
      }
      if (!ok)
         dump_binary(&bin);
      tc_shader_binary_finish(&bin);
   }
   report("control flow: nested divergent loops with breaks", ok);
   ralloc_free(b.shader);
}

/* Whether the disassembly has a line with opcode `op` naming `operand`. */
static bool
binary_has(const struct tc_shader_binary *bin, const char *op, const char *operand)
{
   char *buf = NULL;
   size_t len = 0;
   FILE *f = open_memstream(&buf, &len);
   tc_print_binary(f, bin);
   fclose(f);
   bool found = false;
   for (char *line = strtok(buf, "\n"); line && !found; line = strtok(NULL, "\n")) {
      while (*line == ' ')
         line++;
      found = !strncmp(line, op, strlen(op)) && line[strlen(op)] == ' ' && strstr(line, operand);
   }
   free(buf);
   return found;
}

static void
add_to(nir_builder *b, nir_variable *v, int k)
{
   nir_store_var(b, v, nir_iadd_imm(b, nir_load_var(b, v), k), 1);
}

/* break/continue two and three ifs deep in a loop, divergent across the
 * lanes, with else branches next to parked lanes (which must stay parked).
 * Levels 4 and 5 exceed else_icmp's push count: the r0l write path. */
static void
test_deep_jumps(void)
{
   vs_begin();
   nir_builder b = vs_builder("deep_jumps");
   nir_ssa_def *vid = nir_load_vertex_id(&b);
   nir_variable *acc = nir_local_variable_create(b.impl, glsl_int_type(), "acc");
   nir_variable *i = nir_local_variable_create(b.impl, glsl_int_type(), "i");
   nir_store_var(&b, acc, nir_imm_int(&b, 0), 1);
   nir_store_var(&b, i, nir_imm_int(&b, 0), 1);
   nir_ssa_def *limit = nir_iadd_imm(&b, nir_iand_imm(&b, vid, 7), 6);
   nir_push_loop(&b);
   {
      nir_ssa_def *iv = nir_load_var(&b, i);
      nir_push_if(&b, nir_ige(&b, iv, limit));
      nir_jump(&b, nir_jump_break);
      nir_pop_if(&b, NULL);
      nir_store_var(&b, i, nir_iadd_imm(&b, iv, 1), 1);
      nir_push_if(&b, nir_ine(&b, nir_iand_imm(&b, vid, 1), nir_imm_int(&b, 0)));
      {
         /* if (iv >= (vid >> 2) + 3) { acc += 100; break; } else acc += 1; */
         nir_push_if(&b, nir_ige(&b, iv, nir_iadd_imm(&b, nir_ushr_imm(&b, vid, 2), 3)));
         add_to(&b, acc, 100);
         nir_jump(&b, nir_jump_break);
         nir_push_else(&b, NULL);
         add_to(&b, acc, 1);
         nir_pop_if(&b, NULL);
         /* if ((iv & 3) == ((vid >> 1) & 3)) { if (iv != 0) continue; acc += 1000; } */
         nir_push_if(&b, nir_ieq(&b, nir_iand_imm(&b, iv, 3),
                                 nir_iand_imm(&b, nir_ushr_imm(&b, vid, 1), 3)));
         nir_push_if(&b, nir_ine(&b, iv, nir_imm_int(&b, 0)));
         nir_jump(&b, nir_jump_continue);
         nir_pop_if(&b, NULL);
         add_to(&b, acc, 1000);
         nir_pop_if(&b, NULL);
      }
      nir_push_else(&b, NULL);
      {
         /* if (iv % 3 == vid % 3) { if (iv > vid >> 3) { acc += 10000; break; } continue; } */
         nir_push_if(&b, nir_ieq(&b, nir_umod(&b, iv, nir_imm_int(&b, 3)),
                                 nir_umod(&b, vid, nir_imm_int(&b, 3))));
         nir_push_if(&b, nir_ilt(&b, nir_ushr_imm(&b, vid, 3), iv));
         add_to(&b, acc, 10000);
         nir_jump(&b, nir_jump_break);
         nir_pop_if(&b, NULL);
         nir_jump(&b, nir_jump_continue);
         nir_pop_if(&b, NULL);
      }
      nir_pop_if(&b, NULL);
      nir_store_var(&b, acc, nir_iadd(&b, nir_load_var(&b, acc),
                                      nir_iadd_imm(&b, nir_imul_imm(&b, iv, 7), 2)), 1);
   }
   nir_pop_loop(&b, NULL);
   vs_output(&b, VARYING_SLOT_POS, nir_imm_vec4(&b, 0, 0, 0, 1));
   vs_output(&b, VARYING_SLOT_VAR0, nir_vec4(&b, nir_i2f32(&b, nir_load_var(&b, acc)),
                                              nir_i2f32(&b, nir_load_var(&b, i)),
                                              nir_imm_float(&b, 0), nir_imm_float(&b, 0)));
   union tc_key key;
   memset(&key, 0, sizeof(key));
   struct tc_shader_binary bin;
   bool ok = compile(b.shader, &key, &bin) && run_binary(&bin, true);
   if (ok) {
      unsigned s = bin.vs.varying_slot[VARYING_SLOT_VAR0];
      for (unsigned l = 0; l < LANES; l++) {
         int wacc = 0, wi = 0, lim = (int)(l & 7) + 6;
         for (;;) {
            int iv = wi;
            if (iv >= lim)
               break;
            wi = iv + 1;
            if (l & 1) {
               if (iv >= (int)(l >> 2) + 3) {
                  wacc += 100;
                  break;
               }
               wacc += 1;
               if ((iv & 3) == (int)((l >> 1) & 3)) {
                  if (iv != 0)
                     continue;
                  wacc += 1000;
               }
            } else if (iv % 3 == (int)(l % 3)) {
               if (iv > (int)(l >> 3)) {
                  wacc += 10000;
                  break;
               }
               continue;
            }
            wacc += iv * 7 + 2;
         }
         if (out_f(s, l) != (float)wacc || out_f(s + 1, l) != (float)wi) {
            note("lane %u: acc %g want %d, i %g want %d\n", l, out_f(s, l), wacc,
                 out_f(s + 1, l), wi);
            ok = false;
         }
      }
      if (ok && !binary_has(&bin, "mov_imm", "r0l")) {
         note("no r0l write: the deep jumps did not survive to the backend\n");
         ok = false;
      }
      if (!ok)
         dump_binary(&bin);
      tc_shader_binary_finish(&bin);
   }
   report("control flow: break/continue 2-3 ifs deep, divergent", ok);
   ralloc_free(b.shader);
}

/* A deep break/continue in an inner loop inside an if of the outer loop
 * (levels count from the innermost loop), then a break of the outer loop
 * three ifs deep after the inner loop has finished. */
static void
test_deep_jumps_nested_loops(void)
{
   vs_begin();
   nir_builder b = vs_builder("deep_jumps_nested");
   nir_ssa_def *vid = nir_load_vertex_id(&b);
   nir_variable *acc = nir_local_variable_create(b.impl, glsl_int_type(), "acc");
   nir_variable *i = nir_local_variable_create(b.impl, glsl_int_type(), "i");
   nir_variable *j = nir_local_variable_create(b.impl, glsl_int_type(), "j");
   nir_store_var(&b, acc, nir_imm_int(&b, 0), 1);
   nir_store_var(&b, i, nir_imm_int(&b, 0), 1);
   nir_ssa_def *lim = nir_iadd_imm(&b, nir_iand_imm(&b, vid, 3), 2);
   nir_push_loop(&b);
   {
      nir_ssa_def *iv = nir_load_var(&b, i);
      nir_push_if(&b, nir_ige(&b, iv, lim));
      nir_jump(&b, nir_jump_break);
      nir_pop_if(&b, NULL);
      nir_store_var(&b, i, nir_iadd_imm(&b, iv, 1), 1);
      nir_push_if(&b, nir_ine(&b, nir_iand_imm(&b, iv, 1), nir_imm_int(&b, 0)));
      {
         nir_store_var(&b, j, nir_imm_int(&b, 0), 1);
         nir_push_loop(&b);
         {
            nir_ssa_def *jv = nir_load_var(&b, j);
            nir_push_if(&b, nir_ige(&b, jv, nir_imm_int(&b, 5)));
            nir_jump(&b, nir_jump_break);
            nir_pop_if(&b, NULL);
            nir_push_if(&b, nir_ine(&b, nir_iand_imm(&b, vid, 2), nir_imm_int(&b, 0)));
            nir_push_if(&b, nir_ieq(&b, jv, nir_iand_imm(&b, nir_ushr_imm(&b, vid, 2), 3)));
            nir_push_if(&b, nir_ine(&b, nir_iand_imm(&b, vid, 4), nir_imm_int(&b, 0)));
            add_to(&b, acc, 50);
            nir_jump(&b, nir_jump_break);
            nir_push_else(&b, NULL);
            nir_store_var(&b, j, nir_iadd_imm(&b, jv, 1), 1);
            nir_jump(&b, nir_jump_continue);
            nir_pop_if(&b, NULL);
            nir_pop_if(&b, NULL);
            nir_pop_if(&b, NULL);
            nir_store_var(&b, acc, nir_iadd(&b, nir_load_var(&b, acc), nir_iadd_imm(&b, jv, 1)), 1);
            nir_store_var(&b, j, nir_iadd_imm(&b, jv, 1), 1);
         }
         nir_pop_loop(&b, NULL);
         nir_push_if(&b, nir_ine(&b, nir_iand_imm(&b, vid, 8), nir_imm_int(&b, 0)));
         nir_push_if(&b, nir_ieq(&b, iv, nir_imm_int(&b, 3)));
         nir_push_if(&b, nir_ilt(&b, nir_load_var(&b, j), nir_imm_int(&b, 5)));
         nir_jump(&b, nir_jump_break);
         nir_pop_if(&b, NULL);
         nir_pop_if(&b, NULL);
         nir_pop_if(&b, NULL);
      }
      nir_pop_if(&b, NULL);
      add_to(&b, acc, 3);
   }
   nir_pop_loop(&b, NULL);
   vs_output(&b, VARYING_SLOT_POS, nir_imm_vec4(&b, 0, 0, 0, 1));
   vs_output(&b, VARYING_SLOT_VAR0, nir_vec4(&b, nir_i2f32(&b, nir_load_var(&b, acc)),
                                              nir_i2f32(&b, nir_load_var(&b, i)),
                                              nir_imm_float(&b, 0), nir_imm_float(&b, 0)));
   union tc_key key;
   memset(&key, 0, sizeof(key));
   struct tc_shader_binary bin;
   bool ok = compile(b.shader, &key, &bin) && run_binary(&bin, true);
   if (ok) {
      unsigned s = bin.vs.varying_slot[VARYING_SLOT_VAR0];
      for (unsigned l = 0; l < LANES; l++) {
         int wacc = 0, wi = 0, lim = (int)(l & 3) + 2;
         for (;;) {
            int iv = wi;
            if (iv >= lim)
               break;
            wi = iv + 1;
            if (iv & 1) {
               int jj = 0;
               for (;;) {
                  if (jj >= 5)
                     break;
                  if ((l & 2) && jj == (int)((l >> 2) & 3)) {
                     if (l & 4) {
                        wacc += 50;
                        break;
                     }
                     jj++;
                     continue;
                  }
                  wacc += jj + 1;
                  jj++;
               }
               if ((l & 8) && iv == 3 && jj < 5)
                  break;
            }
            wacc += 3;
         }
         if (out_f(s, l) != (float)wacc || out_f(s + 1, l) != (float)wi) {
            note("lane %u: acc %g want %d, i %g want %d\n", l, out_f(s, l), wacc,
                 out_f(s + 1, l), wi);
            ok = false;
         }
      }
      if (ok && !binary_has(&bin, "mov_imm", "r0l")) {
         note("no r0l write: the deep jumps did not survive to the backend\n");
         ok = false;
      }
      if (!ok)
         dump_binary(&bin);
      tc_shader_binary_finish(&bin);
   }
   report("control flow: deep break/continue in nested loops", ok);
   ralloc_free(b.shader);
}

/* values read from a phi-web register before it is rewritten in the same
 * iteration must not be re-read later (condition and negation folding) */
static void
test_register_hazard(void)
{
   vs_begin();
   nir_builder b = vs_builder("reg_hazard");
   nir_ssa_def *vid = nir_load_vertex_id(&b);
   nir_variable *i = nir_local_variable_create(b.impl, glsl_float_type(), "i");
   nir_variable *acc = nir_local_variable_create(b.impl, glsl_float_type(), "acc");
   nir_store_var(&b, i, nir_u2f32(&b, nir_iand_imm(&b, vid, 7)), 1);
   nir_store_var(&b, acc, nir_imm_float(&b, 0), 1);
   nir_push_loop(&b);
   {
      nir_ssa_def *iv = nir_load_var(&b, i);
      nir_ssa_def *cnd = nir_flt(&b, iv, nir_imm_float(&b, 10.0));
      nir_ssa_def *neg = nir_fneg(&b, iv);
      nir_store_var(&b, i, nir_fadd_imm(&b, iv, 1.0), 1);
      nir_push_if(&b, cnd);
      nir_store_var(&b, acc, nir_fadd(&b, nir_load_var(&b, acc), nir_fmul_imm(&b, neg, 1.0)), 1);
      nir_push_else(&b, NULL);
      nir_jump(&b, nir_jump_break);
      nir_pop_if(&b, NULL);
   }
   nir_pop_loop(&b, NULL);
   vs_output(&b, VARYING_SLOT_POS, nir_imm_vec4(&b, 0, 0, 0, 1));
   vs_output(&b, VARYING_SLOT_VAR0, nir_vec4(&b, nir_load_var(&b, acc), nir_load_var(&b, i),
                                              nir_imm_float(&b, 0), nir_imm_float(&b, 0)));
   union tc_key key;
   memset(&key, 0, sizeof(key));
   struct tc_shader_binary bin;
   bool ok = compile(b.shader, &key, &bin) && run_binary(&bin, true);
   if (ok) {
      unsigned s = bin.vs.varying_slot[VARYING_SLOT_VAR0];
      for (unsigned l = 0; l < LANES; l++) {
         float wi = (float)(l & 7), wacc = 0;
         while (wi < 10.0f) {
            wacc += -wi;
            wi += 1.0f;
         }
         wi += 1.0f;
         if (out_f(s, l) != wacc || out_f(s + 1, l) != wi) {
            note("lane %u: acc %g want %g, i %g want %g\n", l, out_f(s, l), wacc, out_f(s + 1, l), wi);
            ok = false;
         }
      }
      if (!ok)
         dump_binary(&bin);
      tc_shader_binary_finish(&bin);
   }
   report("control flow: loop-carried values read before their update", ok);
   ralloc_free(b.shader);
}

/* Unsupported input must fail with a message, not miscompile. */
static void
test_refusal(void)
{
   vs_begin();
   nir_builder b = vs_builder("refuse");
   nir_ssa_def *vid = nir_load_vertex_id(&b);
   nir_ssa_def *x = nir_load_ubo(&b, 1, 32, nir_imm_int(&b, 1), nir_imm_int(&b, 0),
                                 .align_mul = 4, .align_offset = 0, .range_base = 0, .range = ~0);
   vs_output(&b, VARYING_SLOT_POS, nir_vec4(&b, x, nir_u2f32(&b, vid), x, x));
   union tc_key key;
   memset(&key, 0, sizeof(key));
   tc_preprocess_nir(b.shader);
   struct tc_shader_binary bin;
   char *error = NULL;
   bool compiled = tc_compile(b.shader, &key, &bin, &error);
   bool ok = !compiled && error && strstr(error, "constant buffer");
   if (!ok)
      note("compiled=%d error=%s\n", compiled, error ? error : "(null)");
   free(error);
   if (compiled)
      tc_shader_binary_finish(&bin);
   report("unsupported input (UBO 1) is refused with a message", ok);
   ok = !tc_vertex_format_supported(PIPE_FORMAT_R16G16B16A16_FLOAT) &&
        tc_vertex_format_supported(PIPE_FORMAT_R32G32B32_FLOAT) &&
        tc_tib_format_for(PIPE_FORMAT_R8G8B8A8_UNORM) == TC_TIB_U8NORM &&
        tc_tib_format_for(PIPE_FORMAT_Z24_UNORM_S8_UINT) == TC_TIB_NONE;
   report("format tables", ok);
   ralloc_free(b.shader);
}

int
main(void)
{
   glsl_type_singleton_init_or_ref();
   printf("TAP version 13\n");
   test_float_ops(0, 20);
   test_float_ops(20, 20);
   test_int_ops();
   test_uniforms();
   test_uniform_index_out_of_bounds();
   test_vertex_transform();
   test_varying_groups();
   test_vertex_formats();
   test_control_flow();
   test_fragment(false);
   test_fragment(true);
   test_fragment_misc();
   test_shadow_clamp();
   test_logicop();
   test_sysval_inputs();
   test_nested_loops();
   test_deep_jumps();
   test_deep_jumps_nested_loops();
   test_register_hazard();
   test_refusal();
   printf("1..%u\n", test_no);
   glsl_type_singleton_decref();
   return failures ? 1 : 0;
}
