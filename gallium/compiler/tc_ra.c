/* SPDX-License-Identifier: MIT */
/*
 * tessera compiler: register allocation -- live ranges over the linear
 * instruction order (extended over whole loops for loop-carried values)
 * and linear scan onto r<first_gpr>..r127. No spilling: running out is a
 * compile error.
 */
#include "tc_private.h"

static void
touch(struct tc *c, unsigned v, int pos)
{
   struct vreg *r = &c->vregs[v];
   if (r->start < 0 || pos < r->start)
      r->start = pos;
   if (pos > r->end)
      r->end = pos;
}

bool
tc_regalloc(struct tc *c, unsigned first_gpr)
{
   /* resolve scalars that live inside tuples */
   for (unsigned i = 0; i < c->ninsts; i++) {
      for (unsigned k = 0; k < c->insts[i].nop; k++) {
         struct opnd *o = &c->insts[i].op[k];
         while (o->kind == O_REG && c->vregs[o->v].alias >= 0) {
            o->comp += c->vregs[o->v].alias_comp;
            o->v = (unsigned)c->vregs[o->v].alias;
         }
      }
   }
   for (unsigned i = 0; i < c->ninsts; i++)
      for (unsigned k = 0; k < c->insts[i].nop; k++)
         if (c->insts[i].op[k].kind == O_REG)
            touch(c, c->insts[i].op[k].v, (int)i);
   /* Values live across a loop boundary stay allocated for the whole loop
    * (inner loops come first in the list). */
   for (unsigned l = 0; l < c->nloops; l++) {
      struct loop_range *L = &c->loops[l];
      for (unsigned v = 0; v < c->nvregs; v++) {
         struct vreg *r = &c->vregs[v];
         if (r->start < 0)
            continue;
         bool inside = r->start >= L->start && r->end <= L->end;
         bool disjoint = r->end < L->start || r->start > L->end;
         if (!inside && !disjoint) {
            r->start = MIN2(r->start, L->start);
            r->end = MAX2(r->end, L->end);
         }
      }
   }
   /* linear scan in order of start */
   unsigned *order = ralloc_array(c->mem, unsigned, c->nvregs + 1);
   unsigned n = 0;
   for (unsigned v = 0; v < c->nvregs; v++)
      if (c->vregs[v].start >= 0)
         order[n++] = v;
   /* counting sort by start position */
   unsigned *bucket = rzalloc_array(c->mem, unsigned, c->ninsts + 1);
   for (unsigned i = 0; i < n; i++)
      bucket[c->vregs[order[i]].start]++;
   unsigned acc = 0;
   for (unsigned i = 0; i <= c->ninsts; i++) {
      unsigned t = bucket[i];
      bucket[i] = acc;
      acc += t;
   }
   unsigned *sorted = ralloc_array(c->mem, unsigned, n + 1);
   for (unsigned i = 0; i < n; i++)
      sorted[bucket[c->vregs[order[i]].start]++] = order[i];

   int busy_until[128];
   for (unsigned r = 0; r < 128; r++)
      busy_until[r] = r < first_gpr ? INT32_MAX : -1;
   unsigned max_reg = first_gpr;
   for (unsigned i = 0; i < n; i++) {
      struct vreg *v = &c->vregs[sorted[i]];
      unsigned sz = v->size ? v->size : 1;
      int found = -1;
      for (unsigned r = first_gpr; r + sz <= 128 && found < 0; r++) {
         bool ok = true;
         for (unsigned k = 0; k < sz && ok; k++)
            ok = busy_until[r + k] < v->start;
         if (ok)
            found = (int)r;
      }
      if (found < 0) {
         tc_fail(c, "out of registers (no spilling)");
         return false;
      }
      v->phys = found;
      for (unsigned k = 0; k < sz; k++)
         busy_until[found + k] = v->end;
      max_reg = MAX2(max_reg, (unsigned)found + sz);
   }
   c->out->nr_gprs = max_reg;
   return true;
}
