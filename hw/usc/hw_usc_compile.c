/* SPDX-License-Identifier: MIT */
/*
 * Shader translation (struct agx_instr -> struct usc_inst) and the
 * thread-safe compiled-shader cache.
 *
 * Translation reads only decoded operands and named fields, never bits, so
 * the ISA XML stays the single description of the encoding.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/usc/hw_usc_internal.h"

struct xlate {
   const struct agx_instr *ai;
   struct usc_inst *in;
   unsigned max_gpr;
   char *err;
   size_t err_size;
   bool bad;
};

static const struct agx_operand *
opnd(const struct agx_instr *ai, const char *name)
{
   for (unsigned i = 0; i < ai->num_operands; i++) {
      const char *n = agx_isa_op_operand_name(ai->op, i);
      if (n && !strcmp(n, name))
         return &ai->operands[i];
   }
   return NULL;
}

static uint32_t
field(const struct agx_instr *ai, const char *name)
{
   uint32_t v = 0;
   agx_instr_field(ai, name, &v);
   return v;
}

static void
fail(struct xlate *x, const char *msg)
{
   if (!x->bad) {
      char mn[32];
      agx_isa_mnemonic(x->ai, mn, sizeof(mn));
      snprintf(x->err, x->err_size, "%s: %s", mn, msg);
   }
   x->bad = true;
}

static void
note_gpr(struct xlate *x, unsigned reg32_last)
{
   if (reg32_last >= HW_USC_NUM_GPRS) {
      fail(x, "register past r127");
      return;
   }
   if (reg32_last + 1 > x->max_gpr)
      x->max_gpr = reg32_last + 1;
}

/* Register operand -> source; count > 1 is a tuple. */
static struct usc_src
src_of(struct xlate *x, const struct agx_operand *o)
{
   struct usc_src s = { 0 };
   if (!o)
      return s;
   switch (o->type) {
   case AGX_OPERAND_IMM:
      s.kind = SRC_IMM;
      s.imm = (uint32_t)o->imm;
      break;
   case AGX_OPERAND_FIMM: {
      union { float f; uint32_t u; } c = { .f = o->fimm };
      s.kind = SRC_FIMM;
      s.imm = c.u;
      break;
   }
   case AGX_OPERAND_REG:
      s.idx = o->value;
      if (o->file == AGX_FILE_GPR) {
         unsigned cnt = o->count ? o->count : 1;
         if (o->size == 16) {
            s.kind = SRC_R16;
            note_gpr(x, (o->value + cnt - 1) >> 1);
         } else if (o->size == 32) {
            s.kind = SRC_R32;
            note_gpr(x, o->value + cnt - 1);
         } else {
            s.kind = SRC_R64;
            note_gpr(x, o->value + 2 * cnt - 1);
         }
      } else if (o->file == AGX_FILE_UNIFORM) {
         s.kind = o->size == 16 ? SRC_U16 : o->size == 32 ? SRC_U32 : SRC_U64;
         unsigned last = o->size == 16 ? o->value >> 1 : o->value + (o->size == 64);
         if (last >= HW_USC_NUM_UNIFORMS)
            fail(x, "uniform register past u255");
      } else {
         fail(x, "unexpected register file");
      }
      if (o->flags & AGX_OPF_ABS)
         s.flags |= SRCF_ABS;
      if (o->flags & AGX_OPF_NEG)
         s.flags |= SRCF_NEG;
      if (o->flags & AGX_OPF_SX)
         s.flags |= SRCF_SX;
      break;
   case AGX_OPERAND_NONE:
      fail(x, "undefined operand encoding");
      break;
   default:
      break;
   }
   return s;
}

static struct usc_dst
dst_of(struct xlate *x, const struct agx_operand *o)
{
   struct usc_dst d = { 0 };
   if (!o || o->type != AGX_OPERAND_REG) {
      if (o && o->type == AGX_OPERAND_NONE)
         fail(x, "undefined destination encoding");
      return d;
   }
   if (o->file != AGX_FILE_GPR) {
      fail(x, "destination is not a GPR");
      return d;
   }
   struct usc_src s = src_of(x, o);
   d.size = o->size;
   d.idx = s.idx;
   d.count = o->count ? o->count : 1;
   return d;
}

/* Opcode tables for the families. */
static int
funary_of(enum agx_isa_opcode op)
{
   switch (op) {
   case AGX_OP_FLOOR: return FU_FLOOR;
   case AGX_OP_CEIL: return FU_CEIL;
   case AGX_OP_TRUNC: return FU_TRUNC;
   case AGX_OP_RINT: return FU_RINT;
   case AGX_OP_RCP: return FU_RCP;
   case AGX_OP_RSQRT: return FU_RSQRT;
   case AGX_OP_RSQRT_SPECIAL: return FU_RSQRT_SPECIAL;
   case AGX_OP_SIN_PT_1: return FU_SIN_PT_1;
   case AGX_OP_SIN_PT_2: return FU_SIN_PT_2;
   case AGX_OP_LOG2: return FU_LOG2;
   case AGX_OP_EXP2: return FU_EXP2;
   case AGX_OP_DFDX: return FU_DFDX;
   case AGX_OP_DFDY: return FU_DFDY;
   default: return -1;
   }
}

static int
shuffle_of(enum agx_isa_opcode op)
{
   switch (op) {
   case AGX_OP_SIMD_SHUFFLE: return SH_SIMD;
   case AGX_OP_SIMD_SHUFFLE_DOWN: return SH_SIMD_DOWN;
   case AGX_OP_SIMD_SHUFFLE_UP: return SH_SIMD_UP;
   case AGX_OP_SIMD_SHUFFLE_ROTATE_UP: return SH_SIMD_ROTATE_UP;
   case AGX_OP_SIMD_SHUFFLE_XOR: return SH_SIMD_XOR;
   case AGX_OP_QUAD_SHUFFLE: return SH_QUAD;
   case AGX_OP_QUAD_SHUFFLE_DOWN: return SH_QUAD_DOWN;
   case AGX_OP_QUAD_SHUFFLE_UP: return SH_QUAD_UP;
   case AGX_OP_QUAD_SHUFFLE_ROTATE_UP: return SH_QUAD_ROTATE_UP;
   case AGX_OP_QUAD_SHUFFLE_XOR: return SH_QUAD_XOR;
   default: return -1;
   }
}

/* Returns (op << 8) | flags, or -1. */
static int
reduce_of(enum agx_isa_opcode op)
{
#define R(o, k, f) case AGX_OP_##o: return ((k) << 8) | (f)
   switch (op) {
   R(QUAD_AND, RD_AND, RD_QUAD); R(QUAD_OR, RD_OR, RD_QUAD);
   R(QUAD_XOR, RD_XOR, RD_QUAD); R(QUAD_IADD, RD_IADD, RD_QUAD);
   R(QUAD_FADD, RD_FADD, RD_QUAD); R(QUAD_FMUL, RD_FMUL, RD_QUAD);
   R(QUAD_PREFIX_IADD, RD_IADD, RD_QUAD | RD_PREFIX);
   R(QUAD_PREFIX_FADD, RD_FADD, RD_QUAD | RD_PREFIX);
   R(QUAD_PREFIX_FMUL, RD_FMUL, RD_QUAD | RD_PREFIX);
   R(QUAD_MIN_U, RD_UMIN, RD_QUAD); R(QUAD_MAX_U, RD_UMAX, RD_QUAD);
   R(QUAD_MIN_S, RD_SMIN, RD_QUAD); R(QUAD_MAX_S, RD_SMAX, RD_QUAD);
   R(QUAD_MIN_F, RD_FMIN, RD_QUAD); R(QUAD_MAX_F, RD_FMAX, RD_QUAD);
   R(SIMD_AND, RD_AND, 0); R(SIMD_OR, RD_OR, 0); R(SIMD_XOR, RD_XOR, 0);
   R(SIMD_IADD, RD_IADD, 0); R(SIMD_FADD, RD_FADD, 0); R(SIMD_FMUL, RD_FMUL, 0);
   R(SIMD_PREFIX_IADD, RD_IADD, RD_PREFIX); R(SIMD_PREFIX_FADD, RD_FADD, RD_PREFIX);
   R(SIMD_PREFIX_FMUL, RD_FMUL, RD_PREFIX); R(SIMD_PREFIX_AND, RD_AND, RD_PREFIX);
   R(SIMD_PREFIX_OR, RD_OR, RD_PREFIX); R(SIMD_PREFIX_XOR, RD_XOR, RD_PREFIX);
   R(SIMD_PREFIX_MIN_S, RD_SMIN, RD_PREFIX); R(SIMD_PREFIX_MIN_U, RD_UMIN, RD_PREFIX);
   R(SIMD_PREFIX_MAX_S, RD_SMAX, RD_PREFIX); R(SIMD_PREFIX_MAX_U, RD_UMAX, RD_PREFIX);
   R(SIMD_MIN_U, RD_UMIN, 0); R(SIMD_MAX_U, RD_UMAX, 0);
   R(SIMD_MIN_S, RD_SMIN, 0); R(SIMD_MAX_S, RD_SMAX, 0);
   R(SIMD_MIN_F, RD_FMIN, 0); R(SIMD_MAX_F, RD_FMAX, 0);
   default: return -1;
   }
#undef R
}

/* Bytes per element of a memory format (applegpu's item sizes). */
static unsigned
fmt_item(unsigned f)
{
   return f == 1 || f == 3 || f == 6 || f == 7 ? 2 : f == 2 ? 4 : 1;
}

static bool
fmt_valid(unsigned f)
{
   return f <= 8 || f == 10 || (f >= 12 && f <= 15);
}

static void
mem_common(struct xlate *x, bool load)
{
   const struct agx_instr *ai = x->ai;
   struct usc_inst *in = x->in;
   in->fmt = (uint8_t)field(ai, "F");
   in->mask = (uint8_t)field(ai, "mask");
   in->d = dst_of(x, opnd(ai, "R"));
   if (!fmt_valid(in->fmt))
      fail(x, "undefined memory format");
   if (in->fmt == 2 && in->d.size == 16)
      fail(x, "32-bit format with 16-bit registers");
   bool packed = in->fmt == 8 || in->fmt >= 12;
   if (packed)
      in->d.count = in->fmt == 8 ? 4 : 3;
   else if (in->mask == 0)
      fail(x, "empty mask");
   if (load && packed && in->d.size)
      note_gpr(x, in->d.size == 16 ? (unsigned)(in->d.idx + in->d.count - 1) >> 1
                                   : (unsigned)(in->d.idx + in->d.count - 1));
   (void)fmt_item;
}

static void
translate(struct xlate *x)
{
   const struct agx_instr *ai = x->ai;
   struct usc_inst *in = x->in;
   enum agx_isa_opcode op = ai->op;
   int k;

   in->cls = C_ALU;
   switch (op) {
   case AGX_OP_MOV_IMM16:
   case AGX_OP_MOV_IMM32:
      in->op = U_MOV_IMM;
      in->d = dst_of(x, opnd(ai, "D"));
      in->s[0].kind = SRC_IMM;
      in->s[0].imm = field(ai, op == AGX_OP_MOV_IMM16 ? "imm16" : "imm32");
      break;
   case AGX_OP_GET_SR:
      in->op = U_GET_SR;
      in->d = dst_of(x, opnd(ai, "D"));
      in->s[0].imm = field(ai, "SR");
      break;
   case AGX_OP_IADD:
   case AGX_OP_IMADD:
      in->op = op == AGX_OP_IADD ? U_IADD : U_IMADD;
      in->cls = op == AGX_OP_IADD ? C_ALU : C_IMUL;
      in->d = dst_of(x, opnd(ai, "D"));
      in->s[0] = src_of(x, opnd(ai, "A"));
      in->s[1] = src_of(x, opnd(ai, "B"));
      if (op == AGX_OP_IMADD)
         in->s[2] = src_of(x, opnd(ai, "C"));
      in->neg = (uint8_t)field(ai, "N");
      in->sat = (uint8_t)field(ai, "S");
      in->shift = (uint8_t)field(ai, "s");
      break;
   case AGX_OP_CONVERT:
      in->op = U_CONVERT;
      in->d = dst_of(x, opnd(ai, "D"));
      in->s[0] = src_of(x, opnd(ai, "src"));
      in->cc = (uint8_t)field(ai, "mode");
      in->mode = (uint8_t)field(ai, "round");
      if (!((in->cc <= 1) || (in->cc >= 4 && in->cc <= 11)) || in->mode > 1)
         fail(x, "undefined conversion mode");
      break;
   case AGX_OP_BFI: case AGX_OP_BFEIL: case AGX_OP_EXTR:
   case AGX_OP_SHLHI: case AGX_OP_SHRHI:
      in->op = op == AGX_OP_BFI ? U_BFI : op == AGX_OP_BFEIL ? U_BFEIL :
               op == AGX_OP_EXTR ? U_EXTR : op == AGX_OP_SHLHI ? U_SHLHI : U_SHRHI;
      in->d = dst_of(x, opnd(ai, "D"));
      in->s[0] = src_of(x, opnd(ai, "A"));
      in->s[1] = src_of(x, opnd(ai, "B"));
      in->s[2] = src_of(x, opnd(ai, "C"));
      in->mask = (uint8_t)field(ai, "m");
      break;
   case AGX_OP_ASR: case AGX_OP_ASRH:
      in->op = op == AGX_OP_ASR ? U_ASR : U_ASRH;
      in->d = dst_of(x, opnd(ai, "D"));
      in->s[0] = src_of(x, opnd(ai, "A"));
      in->s[1] = src_of(x, opnd(ai, "B"));
      break;
   case AGX_OP_BITOP:
      in->op = U_BITOP;
      in->cc = (uint8_t)field(ai, "tt");
      in->d = dst_of(x, opnd(ai, "D"));
      in->s[0] = src_of(x, opnd(ai, "A"));
      in->s[1] = src_of(x, opnd(ai, "B"));
      if (in->s[1].kind == SRC_NONE) {   /* not/mov hide B = immediate 0 */
         in->s[1].kind = SRC_IMM;
         in->s[1].imm = 0;
      }
      break;
   case AGX_OP_BITREV: case AGX_OP_POPCOUNT: case AGX_OP_FFS:
      in->op = op == AGX_OP_BITREV ? U_BITREV : op == AGX_OP_POPCOUNT ? U_POPCOUNT : U_FFS;
      in->d = dst_of(x, opnd(ai, "D"));
      in->s[0] = src_of(x, opnd(ai, "A"));
      break;
   case AGX_OP_INTL:
      in->op = U_INTL;
      in->d = dst_of(x, opnd(ai, "D"));
      in->s[0] = src_of(x, opnd(ai, "A"));
      in->s[1] = src_of(x, opnd(ai, "B"));
      break;
   case AGX_OP_FMADD32: case AGX_OP_FADD32: case AGX_OP_FMUL32:
   case AGX_OP_FMADD16: case AGX_OP_FADD16: case AGX_OP_FMUL16:
      in->op = op == AGX_OP_FMADD32 ? U_FMADD32 : op == AGX_OP_FADD32 ? U_FADD32 :
               op == AGX_OP_FMUL32 ? U_FMUL32 : op == AGX_OP_FMADD16 ? U_FMADD16 :
               op == AGX_OP_FADD16 ? U_FADD16 : U_FMUL16;
      in->d = dst_of(x, opnd(ai, "D"));
      in->s[0] = src_of(x, opnd(ai, "A"));
      in->s[1] = src_of(x, opnd(ai, "B"));
      if (op == AGX_OP_FMADD32 || op == AGX_OP_FMADD16)
         in->s[2] = src_of(x, opnd(ai, "C"));
      in->sat = (uint8_t)field(ai, "S");
      break;
   case AGX_OP_RET: case AGX_OP_CALL_REG:
      in->op = op == AGX_OP_RET ? U_RET : U_CALL_REG;
      in->cls = C_CF;
      in->s[0].kind = SRC_R32;
      in->s[0].idx = (uint16_t)field(ai, "reg32");
      note_gpr(x, in->s[0].idx);
      break;
   case AGX_OP_STOP: in->op = U_STOP; in->cls = C_CF; break;
   case AGX_OP_TRAP: in->op = U_TRAP; in->cls = C_CF; break;
   case AGX_OP_JMP_EXEC_ANY: case AGX_OP_JMP_EXEC_NONE: case AGX_OP_CALL:
      in->op = op == AGX_OP_JMP_EXEC_ANY ? U_JMP_ANY : op == AGX_OP_JMP_EXEC_NONE ? U_JMP_NONE : U_CALL;
      in->cls = C_CF;
      in->target = (int32_t)(int64_t)opnd(ai, "off")->imm;  /* bytes, resolved later */
      if (op == AGX_OP_CALL)
         note_gpr(x, 1);
      break;
   case AGX_OP_POP_EXEC:
      in->op = U_POP_EXEC;
      in->cls = C_CF;
      in->n = (uint8_t)field(ai, "n");
      break;
   case AGX_OP_IF_ICMP: case AGX_OP_IF_FCMP: case AGX_OP_ELSE_ICMP:
   case AGX_OP_ELSE_FCMP: case AGX_OP_WHILE_ICMP: case AGX_OP_WHILE_FCMP:
      in->op = (op == AGX_OP_IF_ICMP || op == AGX_OP_IF_FCMP) ? U_IF :
               (op == AGX_OP_ELSE_ICMP || op == AGX_OP_ELSE_FCMP) ? U_ELSE : U_WHILE;
      in->sub = op == AGX_OP_IF_FCMP || op == AGX_OP_ELSE_FCMP || op == AGX_OP_WHILE_FCMP;
      in->cls = C_CF;
      in->cc = (uint8_t)field(ai, "cc");
      in->n = (uint8_t)field(ai, "n");
      in->s[0] = src_of(x, opnd(ai, "A"));
      in->s[1] = src_of(x, opnd(ai, "B"));
      if (in->s[0].kind == SRC_NONE) {    /* update_exec / push_exec: 0 == 0 */
         in->s[0].kind = in->s[1].kind = SRC_FIMM;
         in->s[0].imm = in->s[1].imm = 0;
      }
      if (in->sub && (in->cc & 7) == 4)
         fail(x, "undefined float condition");
      if (!in->sub && (in->cc & 3) == 3)
         fail(x, "undefined integer condition");
      break;
   case AGX_OP_ICMPSEL: case AGX_OP_FCMPSEL:
      in->op = op == AGX_OP_ICMPSEL ? U_ICMPSEL : U_FCMPSEL;
      in->cc = (uint8_t)field(ai, "cc");
      in->d = dst_of(x, opnd(ai, "D"));
      in->s[0] = src_of(x, opnd(ai, "A"));
      in->s[1] = src_of(x, opnd(ai, "B"));
      in->s[2] = src_of(x, opnd(ai, "X"));
      in->s[3] = src_of(x, opnd(ai, "Y"));
      if (op == AGX_OP_FCMPSEL && in->cc == 4)
         fail(x, "undefined float condition");
      if (op == AGX_OP_ICMPSEL && (in->cc & 3) == 3)
         fail(x, "undefined integer condition");
      break;
   case AGX_OP_ICMP_BALLOT: case AGX_OP_ICMP_QUAD_BALLOT:
   case AGX_OP_FCMP_BALLOT: case AGX_OP_FCMP_QUAD_BALLOT: {
      bool fl = op == AGX_OP_FCMP_BALLOT || op == AGX_OP_FCMP_QUAD_BALLOT;
      in->op = U_BALLOT;
      in->sub = fl;
      in->mode = op == AGX_OP_ICMP_QUAD_BALLOT || op == AGX_OP_FCMP_QUAD_BALLOT ? RD_QUAD : 0;
      in->cls = C_SHUFFLE;
      in->cc = (uint8_t)field(ai, "cc");
      in->d = dst_of(x, opnd(ai, "D"));
      in->s[0] = src_of(x, opnd(ai, "A"));
      in->s[1] = src_of(x, opnd(ai, "B"));
      if (fl && (in->cc & 7) == 4)
         fail(x, "undefined float condition");
      if (!fl && (in->cc & 3) == 3)
         fail(x, "undefined integer condition");
      break;
   }
   case AGX_OP_WAIT:
      in->op = U_WAIT;
      in->cls = C_CF;
      in->slot = (uint8_t)field(ai, "i");
      break;
   case AGX_OP_DEVICE_LOAD: case AGX_OP_DEVICE_STORE:
      in->op = op == AGX_OP_DEVICE_LOAD ? U_DEVICE_LOAD : U_DEVICE_STORE;
      in->cls = C_MEM;
      mem_common(x, op == AGX_OP_DEVICE_LOAD);
      in->s[0] = src_of(x, opnd(ai, "A"));
      in->s[1] = src_of(x, opnd(ai, "O"));
      in->mode = (uint8_t)field(ai, "Ou");
      in->shift = (uint8_t)field(ai, "s");
      in->slot = (uint8_t)field(ai, "g");
      break;
   case AGX_OP_THREADGROUP_LOAD: case AGX_OP_THREADGROUP_STORE:
      in->op = op == AGX_OP_THREADGROUP_LOAD ? U_TG_LOAD : U_TG_STORE;
      in->cls = C_MEM;
      mem_common(x, op == AGX_OP_THREADGROUP_LOAD);
      in->s[0] = src_of(x, opnd(ai, "A"));
      in->s[1] = src_of(x, opnd(ai, "O"));
      if (in->s[1].kind == SRC_IMM)   /* signed 16-bit index */
         in->s[1].imm = (uint32_t)(int32_t)(int16_t)in->s[1].imm;
      break;
   case AGX_OP_UNIFORM_STORE:
      in->op = U_UNIFORM_STORE;
      in->cls = C_MEM;
      mem_common(x, false);
      in->s[1] = src_of(x, opnd(ai, "O"));
      in->shift = (uint8_t)field(ai, "s");
      break;
   case AGX_OP_STACK_LOAD: case AGX_OP_STACK_STORE:
      in->op = op == AGX_OP_STACK_LOAD ? U_STACK_LOAD : U_STACK_STORE;
      in->cls = C_MEM;
      mem_common(x, op == AGX_OP_STACK_LOAD);
      in->s[1] = src_of(x, opnd(ai, "O"));
      break;
   case AGX_OP_ATOMIC: {
      in->op = U_ATOMIC;
      in->cls = C_MEM;
      in->cc = (uint8_t)field(ai, "op");
      if (in->cc > 10)
         fail(x, "undefined atomic operation");
      const struct agx_operand *r = opnd(ai, "R");
      if (r && r->type == AGX_OPERAND_REG)
         in->d = dst_of(x, r);
      in->s[0] = src_of(x, opnd(ai, "A"));
      in->s[1] = src_of(x, opnd(ai, "O"));
      in->s[2] = src_of(x, opnd(ai, "S"));
      in->mode = (uint8_t)field(ai, "Ou");
      in->slot = (uint8_t)field(ai, "g");
      break;
   }
   case AGX_OP_THREADGROUP_BARRIER:
      in->op = U_BARRIER;
      in->cls = C_CF;
      break;
   case AGX_OP_MEMORY_BARRIER:
      in->op = U_MEMORY_BARRIER;
      in->cls = C_CF;
      break;
   case AGX_OP_STACK_ADJUST:
      /* The model gives every thread its own stack slice from offset 0
       * (stack_bytes_per_thread), so moving the pointer changes nothing
       * Mesa's scratch accesses see. */
      in->op = U_STACK_ADJUST;
      in->cls = C_CF;
      break;
   case AGX_OP_WAIT_PIX: case AGX_OP_SIGNAL_PIX: case AGX_OP_LDST_TILE:
   case AGX_OP_ITER: case AGX_OP_ITERPROJ: case AGX_OP_LDCF:
   case AGX_OP_ST_VAR: case AGX_OP_ST_VAR_FINAL: case AGX_OP_TEXTURE_SAMPLE:
   case AGX_OP_TEXTURE_LOAD: case AGX_OP_IMAGE_WRITE: case AGX_OP_IMAGE_WRITE_BLOCK:
   case AGX_OP_SAMPLE_MASK: case AGX_OP_ZS_EMIT:
      in->op = U_HOOK;
      in->cls = C_MEM;
      /* Registers hooks name are checked against the GPR count too. */
      for (unsigned i = 0; i < ai->num_operands; i++) {
         const struct agx_operand *o = &ai->operands[i];
         if (o->type == AGX_OPERAND_REG && o->file == AGX_FILE_GPR)
            (void)src_of(x, o);
      }
      break;
   default:
      if ((k = funary_of(op)) >= 0) {
         in->op = U_FUNARY;
         in->sub = (uint8_t)k;
         in->cls = (k >= FU_RCP && k <= FU_EXP2) ? C_SFU : C_ALU;
         in->d = dst_of(x, opnd(ai, "D"));
         in->s[0] = src_of(x, opnd(ai, "A"));
         in->sat = (uint8_t)field(ai, "S");
      } else if ((k = shuffle_of(op)) >= 0) {
         in->op = U_SHUFFLE;
         in->sub = (uint8_t)k;
         in->cls = C_SHUFFLE;
         in->d = dst_of(x, opnd(ai, "D"));
         in->s[0] = src_of(x, opnd(ai, "A"));
         in->s[1] = src_of(x, opnd(ai, "B"));
      } else if ((k = reduce_of(op)) >= 0) {
         in->op = U_REDUCE;
         in->sub = (uint8_t)(k >> 8);
         in->mode = (uint8_t)(k & 0xff);
         in->cls = C_SHUFFLE;
         in->d = dst_of(x, opnd(ai, "D"));
         in->s[0] = src_of(x, opnd(ai, "A"));
         if (in->s[0].kind == SRC_R64 || in->s[0].kind == SRC_U64 || in->d.size == 64)
            fail(x, "64-bit reductions are not modelled");
      } else {
         fail(x, "instruction not modelled");
      }
      break;
   }
   if (in->d.size == 64 && in->op != U_IADD && in->op != U_IMADD &&
       in->op != U_DEVICE_LOAD && in->op != U_ATOMIC)
      fail(x, "64-bit destination not allowed here");
}

static int
find_record(const struct hw_usc_shader *s, int64_t off)
{
   unsigned lo = 0, hi = s->count;
   while (lo < hi) {
      unsigned mid = (lo + hi) / 2;
      if ((int64_t)s->inst[mid].pc < off)
         lo = mid + 1;
      else
         hi = mid;
   }
   return lo < s->count && (int64_t)s->inst[lo].pc == off ? (int)lo : -1;
}

int usc_find_record(const struct hw_usc_shader *s, int64_t off);
int
usc_find_record(const struct hw_usc_shader *s, int64_t off)
{
   return find_record(s, off);
}

struct hw_usc_shader *
hw_usc_compile(const uint8_t *code, size_t size, uint64_t va, char *err,
               size_t err_size)
{
   char dummy[8];
   if (!err || !err_size) {
      err = dummy;
      err_size = sizeof(dummy);
   }
   err[0] = 0;
   if (size > HW_USC_MAX_CODE_BYTES)
      size = HW_USC_MAX_CODE_BYTES;

   struct hw_usc_shader *s = calloc(1, sizeof(*s));
   unsigned cap = 64, hcap = 0;
   struct agx_instr *ai = malloc(sizeof(*ai));
   if (!s || !ai)
      goto oom;
   s->inst = malloc(cap * sizeof(*s->inst));
   if (!s->inst)
      goto oom;
   s->va = va;

   size_t off = 0;
   int64_t reach = 0;        /* furthest forward branch target */
   bool ended = false;
   unsigned max_gpr = 0;
   while (!ended) {
      if (off >= size) {
         snprintf(err, err_size, "code runs off the end at +0x%zx (no stop)", off);
         goto bad;
      }
      enum agx_isa_status st = agx_isa_decode(code + off, size - off, ai);
      if (st == AGX_ISA_TRUNCATED) {
         snprintf(err, err_size, "truncated instruction at +0x%zx", off);
         goto bad;
      }
      if (st != AGX_ISA_OK) {
         /* The first bytes name the opcode: enough to find the instruction
          * the decoder lacks without a capture. */
         char hex[3 * 8 + 1] = "";
         for (size_t i = 0; i < 8 && off + i < size; i++)
            snprintf(hex + 3 * i, sizeof(hex) - 3 * i, " %02x", code[off + i]);
         snprintf(err, err_size, "undecodable instruction at +0x%zx:%s", off, hex);
         goto bad;
      }
      if (s->count == cap) {
         cap *= 2;
         struct usc_inst *n = realloc(s->inst, cap * sizeof(*n));
         if (!n)
            goto oom;
         s->inst = n;
      }
      struct usc_inst *in = &s->inst[s->count];
      memset(in, 0, sizeof(*in));
      struct xlate x = { .ai = ai, .in = in, .max_gpr = max_gpr, .err = err,
                         .err_size = err_size };
      translate(&x);
      if (x.bad) {
         size_t l = strlen(err);
         snprintf(err + l, err_size - l, " (at +0x%zx)", off);
         goto bad;
      }
      max_gpr = x.max_gpr;
      in->len = ai->length;
      in->pc = (uint32_t)off;
      if (in->op == U_UNIFORM_STORE)
         s->stores_uniforms = true;
      if (in->op == U_STACK_ADJUST) {
         /* A signed count of 4-byte words (Mesa: the scratch size plus
          * 40 bytes at entry, its negation after a sample loop): the
          * largest reservation is the per-thread stack the shader needs. */
         uint32_t words = 0;
         agx_instr_field(ai, "size", &words);
         int32_t w = (int16_t)(uint16_t)words;
         if (w > 0 && (uint32_t)w * 4 > s->stack_bytes)
            s->stack_bytes = (uint32_t)w * 4;
      }
      if (in->op == U_HOOK) {
         if (s->hook_count == hcap) {
            hcap = hcap ? hcap * 2 : 8;
            struct agx_instr *n = realloc(s->hook_instrs, hcap * sizeof(*n));
            if (!n)
               goto oom;
            s->hook_instrs = n;
         }
         s->hook_instrs[s->hook_count] = *ai;
         in->hook = (uint16_t)s->hook_count++;
         uint32_t z = 0;
         if (ai->op == AGX_OP_ZS_EMIT && agx_instr_field(ai, "z", &z) && z)
            s->writes_depth = true;
         if (ai->op == AGX_OP_ZS_EMIT && agx_instr_field(ai, "s", &z) && z)
            s->writes_stencil = true;
         if (s->hook_count > 0xffff) {
            snprintf(err, err_size, "too many stage-specific instructions");
            goto bad;
         }
      }
      if (in->op == U_JMP_ANY || in->op == U_JMP_NONE || in->op == U_CALL) {
         int64_t t = (int64_t)off + in->target;
         if (t > reach)
            reach = t;
      }
      s->count++;
      off += ai->length;
      /* the end: a stop (or a function's ret) past every forward target */
      if ((in->op == U_STOP || in->op == U_RET) && (int64_t)off > reach)
         ended = true;
   }
   s->bytes = off;
   s->max_gpr = max_gpr;
   /* Registers the records can touch: every register operand with its
    * tuple (memory tuples up to 4 + packing, 64-bit pairs) and a wide
    * margin, plus r1 (call link).  simd_init() zeroes only these. */
   unsigned bound = 2;
   for (unsigned i = 0; i < s->count; i++) {
      const struct usc_inst *in = &s->inst[i];
      if (in->d.size) {
         unsigned r = in->d.size == 16 ? in->d.idx / 2u : in->d.idx;
         unsigned hi = r + 2u * (in->d.count ? in->d.count : 1) + 8;
         if (hi > bound)
            bound = hi;
      }
      for (unsigned k = 0; k < 4; k++) {
         const struct usc_src *src = &in->s[k];
         unsigned r;
         if (src->kind == SRC_R16)
            r = src->idx / 2u;
         else if (src->kind == SRC_R32 || src->kind == SRC_R64)
            r = src->idx;
         else
            continue;
         if (r + 16 > bound)
            bound = r + 16;
      }
   }
   s->reg_bound = bound > HW_USC_NUM_GPRS ? HW_USC_NUM_GPRS : bound;

   /* Resolve branch targets to records. */
   for (unsigned i = 0; i < s->count; i++) {
      struct usc_inst *in = &s->inst[i];
      if (in->op == U_JMP_ANY || in->op == U_JMP_NONE || in->op == U_CALL) {
         int64_t t = (int64_t)in->pc + in->target;
         int r = find_record(s, t);
         if (r < 0) {
            snprintf(err, err_size, "branch at +0x%x to +0x%" PRIx64 " is not an instruction",
                     in->pc, (uint64_t)t);
            goto bad;
         }
         in->target = r;
      }
   }
   free(ai);
   return s;

oom:
   snprintf(err, err_size, "out of memory");
bad:
   free(ai);
   hw_usc_shader_free(s);
   return NULL;
}

void
hw_usc_shader_free(struct hw_usc_shader *s)
{
   if (!s)
      return;
   if (usc_native_release)
      usc_native_release(s);
   free(s->inst);
   free(s->hook_instrs);
   free(s->code);
   free(s);
}

unsigned hw_usc_shader_length(const struct hw_usc_shader *s) { return s->count; }
size_t hw_usc_shader_bytes(const struct hw_usc_shader *s) { return s->bytes; }
unsigned hw_usc_shader_gprs(const struct hw_usc_shader *s) { return s->max_gpr; }

uint32_t
hw_usc_shader_stack_bytes(const struct hw_usc_shader *s)
{
   return s->stack_bytes;
}

bool
hw_usc_shader_writes_depth(const struct hw_usc_shader *s)
{
   return s->writes_depth;
}

bool
hw_usc_shader_writes_stencil(const struct hw_usc_shader *s)
{
   return s->writes_stencil;
}

bool
hw_usc_shader_launch_invariant(const struct hw_usc_shader *s,
                               bool (*hook_ok)(const struct agx_instr *in, void *user),
                               void *user)
{
   for (unsigned i = 0; i < s->count; i++) {
      const struct usc_inst *in = &s->inst[i];
      switch ((enum usc_op)in->op) {
      case U_MOV_IMM: case U_IADD: case U_IMADD: case U_CONVERT:
      case U_BFI: case U_BFEIL: case U_EXTR: case U_SHLHI: case U_SHRHI:
      case U_ASR: case U_ASRH: case U_BITOP: case U_BITREV: case U_POPCOUNT:
      case U_FFS: case U_INTL:
      case U_FMADD32: case U_FADD32: case U_FMUL32:
      case U_FMADD16: case U_FADD16: case U_FMUL16:
      case U_ICMPSEL: case U_FCMPSEL:
      case U_STOP: case U_WAIT: case U_STACK_ADJUST:
         break;
      case U_FUNARY:
         if (in->sub == FU_DFDX || in->sub == FU_DFDY)
            return false;
         break;
      case U_HOOK:
         if (!hook_ok || !hook_ok(&s->hook_instrs[in->hook], user))
            return false;
         break;
      default:
         return false;
      }
   }
   return true;
}

/* ---- cache ---------------------------------------------------------- */

#define CACHE_BUCKETS 256

struct hw_usc_cache {
   pthread_mutex_t lock;
   unsigned entries;
   struct hw_usc_shader *bucket[CACHE_BUCKETS];
   struct hw_usc_shader *by_va[CACHE_BUCKETS];   /* newest first */
};

static unsigned
va_bucket(uint64_t va)
{
   return (unsigned)((va >> 2) ^ (va >> 12)) % CACHE_BUCKETS;
}

static uint64_t
fnv1a(const uint8_t *p, size_t n)
{
   uint64_t h = 0xcbf29ce484222325ull;
   for (size_t i = 0; i < n; i++) {
      h ^= p[i];
      h *= 0x100000001b3ull;
   }
   return h;
}

struct hw_usc_cache *
hw_usc_cache_create(void)
{
   struct hw_usc_cache *c = calloc(1, sizeof(*c));
   if (c && pthread_mutex_init(&c->lock, NULL)) {
      free(c);
      return NULL;
   }
   return c;
}

void
hw_usc_cache_destroy(struct hw_usc_cache *c)
{
   if (!c)
      return;
   for (unsigned i = 0; i < CACHE_BUCKETS; i++) {
      struct hw_usc_shader *s = c->bucket[i];
      while (s) {
         struct hw_usc_shader *n = s->next;
         hw_usc_shader_free(s);
         s = n;
      }
   }
   pthread_mutex_destroy(&c->lock);
   free(c);
}

unsigned
hw_usc_cache_entries(struct hw_usc_cache *c)
{
   pthread_mutex_lock(&c->lock);
   unsigned n = c->entries;
   pthread_mutex_unlock(&c->lock);
   return n;
}

static void
res_set(struct hw_usc_result *res, enum hw_usc_status st, uint64_t pc, const char *msg)
{
   if (!res)
      return;
   memset(res, 0, sizeof(*res));
   res->status = st;
   res->pc = pc;
   snprintf(res->message, sizeof(res->message), "%s", msg);
}

const struct hw_usc_shader *
hw_usc_cache_get_bytes(struct hw_usc_cache *c, uint64_t va, const uint8_t *code,
                       size_t size, struct hw_usc_result *res)
{
   char err[128];
   /* Compile first (cheap, and it finds the length the hash covers). */
   struct hw_usc_shader *s = hw_usc_compile(code, size, va, err, sizeof(err));
   if (!s) {
      res_set(res, HW_USC_BAD_CODE, va, err);
      return NULL;
   }
   s->hash = fnv1a(code, s->bytes);
   unsigned b = (unsigned)((s->hash ^ (va >> 2)) % CACHE_BUCKETS);

   pthread_mutex_lock(&c->lock);
   for (struct hw_usc_shader *e = c->bucket[b]; e; e = e->next) {
      if (e->va == va && e->hash == s->hash && e->bytes == s->bytes) {
         pthread_mutex_unlock(&c->lock);
         hw_usc_shader_free(s);
         return e;
      }
   }
   s->code = malloc(s->bytes);
   if (s->code)
      memcpy(s->code, code, s->bytes);
   s->next = c->bucket[b];
   c->bucket[b] = s;
   s->next_va = c->by_va[va_bucket(va)];
   c->by_va[va_bucket(va)] = s;
   c->entries++;
   pthread_mutex_unlock(&c->lock);
   if (res)
      res_set(res, HW_USC_OK, va, "");
   return s;
}

const struct hw_usc_shader *
hw_usc_cache_get(struct hw_usc_cache *c, struct hw_mmu *mmu, uint64_t va,
                 struct hw_usc_result *res)
{
   /* Fetch page-sized chunks until the shader decodes to its end. */
   size_t cap = 0, len = 0;
   uint8_t *buf = NULL;
   const struct hw_usc_shader *s = NULL;
   char err[128];
   while (len < HW_USC_MAX_CODE_BYTES) {
      size_t chunk = HW_PAGE_SIZE - ((va + len) & (HW_PAGE_SIZE - 1));
      if (len + chunk > cap) {
         cap = len + chunk;
         uint8_t *n = realloc(buf, cap);
         if (!n) {
            res_set(res, HW_USC_BAD_CODE, va, "out of memory");
            free(buf);
            return NULL;
         }
         buf = n;
      }
      if (!hw_mmu_read(mmu, va + len, buf + len, chunk)) {
         if (mmu->fault.valid) {
            res_set(res, HW_USC_FAULT, va + len, "fault fetching shader code");
            if (res)
               res->fault = mmu->fault;
            free(buf);
            return NULL;
         }
      }
      len += chunk;
      struct hw_usc_shader *t = hw_usc_compile(buf, len, va, err, sizeof(err));
      if (t) {
         hw_usc_shader_free(t);
         s = hw_usc_cache_get_bytes(c, va, buf, len, res);
         free(buf);
         return s;
      }
      if (!strstr(err, "runs off the end") && !strstr(err, "truncated"))
         break;
   }
   res_set(res, HW_USC_BAD_CODE, va, err);
   free(buf);
   return NULL;
}

/*
 * A cached compile of the code now at `va`, without compiling: the
 * newest few entries compiled at va have their code bytes compared with
 * memory.  Compiling is a function of the code bytes alone, so a match is
 * exactly what compiling again would return.  NULL (and mmu untouched,
 * fault state included) when nothing matches or the read fails: the
 * caller then takes the compiling path.
 */
const struct hw_usc_shader *
hw_usc_cache_find(struct hw_usc_cache *c, struct hw_mmu *mmu, uint64_t va)
{
   pthread_mutex_lock(&c->lock);
   struct hw_usc_shader *e = c->by_va[va_bucket(va)];
   pthread_mutex_unlock(&c->lock);
   /* Entries are immutable once published and live until the cache is
    * destroyed, so the chain is walked without the lock. */
   uint8_t stackbuf[4096];
   uint8_t *heap = NULL;
   size_t heap_size = 0;
   const struct hw_usc_shader *found = NULL;
   unsigned tries = 0;
   for (; e && !found && tries < 4; e = e->next_va) {
      if (e->va != va || !e->code)
         continue;
      tries++;
      uint8_t *buf = stackbuf;
      if (e->bytes > sizeof(stackbuf)) {
         if (heap_size < e->bytes) {
            uint8_t *n = realloc(heap, e->bytes);
            if (!n)
               break;
            heap = n;
            heap_size = e->bytes;
         }
         buf = heap;
      }
      struct hw_fault before = mmu->fault;
      if (!hw_mmu_read(mmu, va, buf, e->bytes)) {
         mmu->fault = before;
         break;
      }
      if (memcmp(buf, e->code, e->bytes) == 0)
         found = e;
   }
   free(heap);
   return found;
}

void
hw_isa_names_fill(int8_t (*idx)[HW_ISA_NAMES_MAX], const char *const *names,
                  unsigned n, bool fields)
{
   for (unsigned op = 0; op < AGX_NUM_OPCODES; op++) {
      for (unsigned k = 0; k < n && k < HW_ISA_NAMES_MAX; k++) {
         idx[op][k] = -1;
         for (unsigned i = 0; i < 127; i++) {
            const char *nm = fields ? agx_isa_op_field_name((enum agx_isa_opcode)op, i)
                                    : agx_isa_op_operand_name((enum agx_isa_opcode)op, i);
            if (!nm)
               break;
            if (strcmp(nm, names[k]) == 0) {
               idx[op][k] = (int8_t)i;
               break;
            }
         }
      }
   }
}
