/* SPDX-License-Identifier: MIT */
/*
 * tessera compiler: control flow -- structured NIR if/loop/break/continue
 * on the r0l nesting counter (conventions in tc_private.h), and the walk
 * over blocks that hands each instruction to its selector.
 */
#include <stdio.h>

#include "tc_private.h"

static void
emit_if(struct tc *c, nir_if *nif)
{
   nir_alu_instr *cmpi = tc_cmp_parent(&nif->condition);
   if (cmpi) {
      struct tc_cmp k;
      tc_cmp_info(cmpi->op, &k);
      struct opnd a = k.is_float ? tc_fsrc(c, cmpi, 0) : tc_isrc(c, cmpi, 0);
      struct opnd b = k.is_float ? tc_fsrc(c, cmpi, 1) : tc_isrc(c, cmpi, 1);
      char buf[64];
      /* if_*cmp keeps the lanes where the condition holds */
      const char *cc;
      switch (cmpi->op) {
      case nir_op_flt32: cc = "lt"; break;
      case nir_op_fge32: cc = "gte"; break;
      case nir_op_feq32: cc = "eq"; break;
      case nir_op_fneu32: cc = "neq"; break;
      case nir_op_ilt32: cc = "slt"; break;
      case nir_op_ige32: cc = "sgte"; break;
      case nir_op_ult32: cc = "ult"; break;
      case nir_op_uge32: cc = "ugte"; break;
      case nir_op_ieq32: cc = "ueq"; break;
      default: cc = "nueq"; break;
      }
      snprintf(buf, sizeof(buf), "%s r0l, %s, $0, $1, 1", k.is_float ? "if_fcmp" : "if_icmp", cc);
      tc_emit_ops(c, I_CF, buf, (struct opnd[]){ a, b }, 2);
   } else {
      struct opnd v = tc_isrc_legal(c, tc_get_src(c, &nif->condition, 0));
      EMITK(c, I_CF, "if_icmp r0l, nueq, $0, 0, 1", v);
   }
   unsigned l_else = tc_new_label(c), l_end = tc_new_label(c);
   bool has_else = !nir_cf_list_is_empty_block(&nif->else_list);
   tc_emit_text(c, I_CF, "jmp_exec_none pc+L%u", has_else ? l_else : l_end);
   c->if_depth++;
   tc_emit_cf_list(c, &nif->then_list);
   if (has_else) {
      tc_place_label(c, l_else);
      tc_emit_text(c, I_CF, "else_icmp r0l, ueq, 0, 0, 1");
      tc_emit_text(c, I_CF, "jmp_exec_none pc+L%u", l_end);
      tc_emit_cf_list(c, &nif->else_list);
   }
   c->if_depth--;
   tc_place_label(c, l_end);
   tc_emit_text(c, I_CF, "pop_exec r0l, 1");
}

static void
emit_loop(struct tc *c, nir_loop *loop)
{
   int saved_depth = c->if_depth;
   bool saved_in = c->in_loop;
   unsigned l_top = tc_new_label(c);
   tc_emit_text(c, I_CF, "push_exec r0l, 2");
   int start = c->ninsts;
   tc_place_label(c, l_top);
   c->if_depth = 0;
   c->in_loop = true;
   tc_emit_cf_list(c, &loop->body);
   /* lanes that continued (level 1) run the next iteration */
   tc_emit_text(c, I_CF, "while_icmp r0l, ueq, 0, 0, 2");
   tc_emit_text(c, I_CF, "jmp_exec_any pc+L%u", l_top);
   int end = c->ninsts;
   tc_emit_text(c, I_CF, "pop_exec r0l, 2");
   c->if_depth = saved_depth;
   c->in_loop = saved_in;
   if (c->nloops == c->cap_loops) {
      c->cap_loops = c->cap_loops ? c->cap_loops * 2 : 16;
      c->loops = reralloc(c->mem, c->loops, struct loop_range, c->cap_loops);
   }
   c->loops[c->nloops++] = (struct loop_range){ start, end };
}

/* break / continue: park the active lanes at the r0l level that the pops
 * of the enclosing ifs (one each) bring to 2 (break) or 1 (continue) at
 * the end of the loop body, where while_icmp n=2 wakes the continued
 * lanes for the next iteration and the loop's pop_exec 2 the broken ones.
 * Only lanes that are active (r0l == 0) change; parked lanes keep their
 * level, in particular those at 1 waiting for this if's else branch. */
static void
emit_jump(struct tc *c, nir_jump_instr *j)
{
   if (!c->in_loop) {
      tc_fail(c, "jump outside a loop");
      return;
   }
   unsigned level;
   if (j->type == nir_jump_break)
      level = 2 + c->if_depth;
   else if (j->type == nir_jump_continue)
      level = 1 + c->if_depth;
   else {
      tc_fail(c, "unsupported jump type %d", j->type);
      return;
   }
   if (level <= 3) {
      /* else_icmp with a false condition: r0l 0 -> level, 1 stays 1 */
      tc_emit_text(c, I_CF, "else_icmp r0l, ueq, 0, 1, %u", level);
      return;
   }
   /* The push count of else_icmp is 2 bits. Deeper, write the level into
    * r0l directly: an ALU write only reaches the active lanes, which are
    * exactly those at 0; pop_exec 0 then recomputes the exec mask. */
   if (level > 0xffff) {
      tc_fail(c, "break/continue nested %d ifs deep in a loop", c->if_depth);
      return;
   }
   tc_emit_text(c, I_CF, "mov_imm r0l, %u", level);
   tc_emit_text(c, I_CF, "pop_exec r0l, 0");
}

static void
emit_block(struct tc *c, nir_block *block)
{
   nir_foreach_instr(instr, block) {
      if (c->error)
         return;
      switch (instr->type) {
      case nir_instr_type_alu:
         tc_emit_alu(c, nir_instr_as_alu(instr));
         break;
      case nir_instr_type_intrinsic:
         tc_emit_intrinsic(c, nir_instr_as_intrinsic(instr));
         break;
      case nir_instr_type_load_const: {
         nir_load_const_instr *lc = nir_instr_as_load_const(instr);
         if (lc->def.bit_size != 32 && lc->def.bit_size != 1) {
            tc_fail(c, "%u-bit constants are not supported", lc->def.bit_size);
            return;
         }
         for (unsigned i = 0; i < lc->def.num_components; i++)
            tc_set_ssa(c, &lc->def, i, IMM(lc->def.bit_size == 1 ? (lc->value[i].b ? ~0u : 0) : lc->value[i].u32));
         break;
      }
      case nir_instr_type_ssa_undef: {
         nir_ssa_undef_instr *u = nir_instr_as_ssa_undef(instr);
         for (unsigned i = 0; i < u->def.num_components; i++)
            tc_set_ssa(c, &u->def, i, IMM(0));
         break;
      }
      case nir_instr_type_tex:
         tc_emit_tex(c, nir_instr_as_tex(instr));
         break;
      case nir_instr_type_jump:
         emit_jump(c, nir_instr_as_jump(instr));
         break;
      case nir_instr_type_deref:
         tc_fail(c, "unlowered variable access");
         break;
      default:
         tc_fail(c, "unsupported instruction type %d", instr->type);
         break;
      }
   }
}

void
tc_emit_cf_list(struct tc *c, struct exec_list *list)
{
   foreach_list_typed(nir_cf_node, node, node, list) {
      if (c->error)
         return;
      switch (node->type) {
      case nir_cf_node_block:
         emit_block(c, nir_cf_node_as_block(node));
         break;
      case nir_cf_node_if:
         emit_if(c, nir_cf_node_as_if(node));
         break;
      case nir_cf_node_loop:
         emit_loop(c, nir_cf_node_as_loop(node));
         break;
      default:
         tc_fail(c, "unsupported control flow node");
         break;
      }
   }
}
