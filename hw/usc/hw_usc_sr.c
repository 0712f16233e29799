/* SPDX-License-Identifier: MIT */
/*
 * Special registers (get_sr), per lane.  A file of its own so that the
 * native path (hw_usc_native.c), which calls it for the registers it does
 * not compute in line, pulls in no more of the interpreter than this
 * (programs linking libhwusc.a without the memory model still link).
 */
#include "hw/usc/hw_usc_internal.h"
#include "tessera/bits.h"

void
usc_read_sr(const struct hw_usc_simd *s, unsigned sr, uint32_t out[USC_W])
{
   const struct hw_usc_launch *L = s->launch;
   const struct hw_usc_workgroup *wg = s->wg;
   for (unsigned l = 0; l < USC_W; l++) {
      uint32_t v = 0;
      switch (sr) {
      case 0: case 1: case 2: v = wg ? wg->threadgroup_position[sr] : 0; break;
      case 4: case 5: case 6: v = usc_wg_threads(L, wg)[sr - 4]; break;
      case 8: case 9: case 10: v = L->threads_per_threadgroup[sr - 8]; break;
      case 20: v = L->core_index; break;
      case 21: v = L->vm_slot; break;
      case 48: case 49: case 50: v = s->local_id[sr - 48][l]; break;
      case 51: v = s->linear_id[l]; break;
      case 52: v = l; break;
      case 53: v = s->index; break;
      case 56: v = tessera_popcount32(s->exec & ((1u << l) - 1) & (0xfu << (l & ~3u))); break;
      case 58: v = tessera_popcount32(s->exec & ((1u << l) - 1)); break;
      case 63: v = ((s->exec & ~s->helpers) >> l) & 1; break;
      case 80: case 81: case 82: {
         unsigned c = sr - 80;
         v = (wg ? wg->threadgroup_position[c] : 0) * L->threads_per_threadgroup[c] +
             s->local_id[c][l];
         break;
      }
      default:
         if (L->sr_hook) {
            L->sr_hook(L->hook_user, s->index, sr, out);
            return;
         }
         break;
      }
      out[l] = v;
   }
}

