/* SPDX-License-Identifier: MIT */
/*
 * tessera compiler: scoreboard waits. Results of I_ASYNC instructions
 * (device_load, texture_sample/load) arrive later; the hardware does not
 * interlock on them, so a `wait` must come before the first instruction
 * that reads or overwrites one of their registers. Runs after register
 * allocation, on hardware registers.
 *
 * One scoreboard slot is used for everything (wait 0 waits for all
 * outstanding loads). Control flow (I_CF) and labels also wait: the
 * tracking is per straight-line run, and lanes that skip a block must
 * not find a load still in flight after it.
 */
#include <string.h>

#include "tc_private.h"

static bool
overlaps_pending(const struct tc *c, const struct opnd *o, const bool *pending)
{
   if (o->kind != O_REG && o->kind != O_PHYS)
      return false;
   unsigned r = tc_opnd_phys(c, o);
   for (unsigned k = 0; k < o->count; k++)
      if (r + k < 128 && pending[r + k])
         return true;
   return false;
}

void
tc_insert_waits(struct tc *c)
{
   struct inst *old = c->insts;
   unsigned n = c->ninsts;
   /* at most one wait per instruction */
   c->insts = ralloc_array(c->mem, struct inst, 2 * n + 1);
   c->ninsts = 0;
   c->cap_insts = 2 * n + 1;
   bool pending[128] = { 0 };
   bool any_pending = false;
   for (unsigned i = 0; i < n; i++) {
      struct inst *I = &old[i];
      if (any_pending) {
         bool need = I->kind == I_CF || I->kind == I_LABEL;
         for (unsigned k = 0; k < I->nop && !need; k++)
            need = overlaps_pending(c, &I->op[k], pending);
         if (need) {
            c->insts[c->ninsts++] = (struct inst){ .fmt = (char *)"wait 0", .kind = I_ALU };
            memset(pending, 0, sizeof(pending));
            any_pending = false;
         }
      }
      c->insts[c->ninsts++] = *I;
      if (I->kind == I_ASYNC) {
         for (unsigned k = 0; k < I->nop; k++) {
            if (!(I->op[k].flags & F_DEF))
               continue;
            unsigned r = tc_opnd_phys(c, &I->op[k]);
            for (unsigned q = 0; q < I->op[k].count && r + q < 128; q++)
               pending[r + q] = true;
            any_pending = true;
         }
      }
   }
}
