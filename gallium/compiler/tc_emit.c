/* SPDX-License-Identifier: MIT */
/*
 * tessera compiler: printing the allocated IR as agxisa text and
 * assembling it with the ISA library (which also resolves the labels).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdstream/isa/agx_isa.h"

#include "tc_private.h"

static void
print_opnd(struct tc *c, const struct opnd *o, char *buf, size_t size)
{
   size_t len = 0;
   switch (o->kind) {
   case O_REG: case O_PHYS: {
      unsigned r = tc_opnd_phys(c, o);
      if (o->flags & F_PAIR16) {
         len = snprintf(buf, size, "r%ul_r%uh", r, r);
      } else if (o->flags & F_HALF) {
         len = snprintf(buf, size, "r%ul", r);
      } else {
         len = snprintf(buf, size, "r%u", r);
         for (unsigned k = 1; k < o->count; k++)
            len += snprintf(buf + len, size - len, "_r%u", r + k);
      }
      break;
   }
   case O_UNI:
      len = snprintf(buf, size, "u%u", o->v);
      /* the push range covers every uniform the code reads */
      c->max_uniform = MAX2(c->max_uniform, o->v + 1);
      break;
   case O_IMM:
      if (o->flags & F_FLOAT) {
         char t[32];
         snprintf(t, sizeof(t), "%.9g", uif(o->v));
         if (!strchr(t, '.'))
            strcat(t, ".0");
         snprintf(buf, size, "%s", t);
         return;
      }
      snprintf(buf, size, "%u", o->v);
      return;
   default:
      snprintf(buf, size, "?");
      return;
   }
   if (o->flags & F_ABS)
      len += snprintf(buf + len, size - len, ".abs");
   if (o->flags & F_NEG)
      len += snprintf(buf + len, size - len, ".neg");
}

/* The program as assembler text, one instruction a line, ending in stop. */
char *
tc_print_program(struct tc *c)
{
   char *text = ralloc_strdup(c->mem, "");
   for (unsigned i = 0; i < c->ninsts; i++) {
      struct inst *I = &c->insts[i];
      char line[512];
      size_t len = 0;
      for (const char *p = I->fmt; *p && len + 64 < sizeof(line); p++) {
         if (p[0] == '$' && p[1] >= '0' && p[1] <= '7') {
            unsigned k = p[1] - '0';
            char ob[96];
            print_opnd(c, &I->op[k], ob, sizeof(ob));
            len += snprintf(line + len, sizeof(line) - len, "%s", ob);
            p++;
         } else {
            line[len++] = *p;
         }
      }
      line[len] = 0;
      ralloc_asprintf_append(&text, "%s\n", line);
   }
   ralloc_strcat(&text, "stop\n");
   return text;
}

bool
tc_assemble(struct tc *c, const char *text)
{
   struct tc_shader_binary *out = c->out;
   size_t cap = strlen(text) * 2 + 64, len = 0;
   uint8_t *code = calloc(1, cap + 128);
   char err[256];
   if (!code) {
      tc_fail(c, "out of memory");
      return false;
   }
   if (!agx_isa_assemble(text, strlen(text), code, cap, &len, err, sizeof(err))) {
      tc_fail(c, "internal: assembler rejected the generated code: %s\n%s", err, text);
      free(code);
      return false;
   }
   out->code = code;
   out->size = len;
   out->nr_uniforms = c->max_uniform;
   if (getenv("TC_DEBUG_ASM"))
      fprintf(stderr, "%s", text);
   return true;
}
