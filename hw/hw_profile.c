/* SPDX-License-Identifier: MIT */
/*
 * hw_profile: counter names and the exact sharing-out of a pass's time
 * (hw/hw_profile.h).
 */
#include "hw/hw_profile.h"

#include <stdio.h>
#include "cmdstream/agx_pack.h"

#include <stdlib.h>
#include <string.h>

static const struct {
   const char *name, *help;
} counters[HW_PROF_NUM] = {
   [HW_PROF_CYCLES] = { "cycles", "modelled GPU time attributed (vertex + fragment)" },
   [HW_PROF_VERTEX_CYCLES] = { "vertex_cycles", "modelled time on the vertex side" },
   [HW_PROF_FRAGMENT_CYCLES] = { "fragment_cycles", "modelled time on the fragment side, partial renders included" },
   [HW_PROF_VERTICES] = { "vertices", "vertex shader invocations" },
   [HW_PROF_PRIMS_IN] = { "prims_in", "primitives assembled" },
   [HW_PROF_PRIMS_CLIPPED] = { "prims_clipped", "primitives crossing a clip plane (clipped)" },
   [HW_PROF_PRIMS_CULLED] = { "prims_culled", "primitives dropped before binning" },
   [HW_PROF_PRIMS_BINNED] = { "prims_binned", "primitives written to the tiled vertex buffer" },
   [HW_PROF_BIN_REFS] = { "bin_refs", "tile references written" },
   [HW_PROF_TVB_BYTES] = { "tvb_bytes", "bytes written to the tiled vertex buffer" },
   [HW_PROF_PARTIAL_RENDERS] = { "partial_renders", "partial renders triggered (the TVB heap filled)" },
   [HW_PROF_PIXELS_RASTER] = { "pixels_raster", "pixels tested by the ISP" },
   [HW_PROF_SAMPLES_COVERED] = { "samples_covered", "samples inside the primitive" },
   [HW_PROF_SAMPLES_ZS_FAIL] = { "samples_zs_fail", "samples rejected by the stencil or depth test" },
   [HW_PROF_SAMPLES_HSR_HIDDEN] = { "samples_hsr_hidden", "deferred opaque samples hidden before shading" },
   [HW_PROF_SAMPLES_PASSED] = { "samples_passed", "samples that passed depth/stencil" },
   [HW_PROF_FRAGMENTS] = { "fragments", "fragment shader invocations (pixels)" },
   [HW_PROF_TB_LOADS] = { "tb_loads", "tilebuffer loads (ld_tile lanes)" },
   [HW_PROF_TB_STORES] = { "tb_stores", "tilebuffer stores (st_tile lanes)" },
   [HW_PROF_TEX_FETCHES] = { "tex_fetches", "texture fetches (texture_sample/load lanes)" },
   [HW_PROF_TEX_LOADS] = { "tex_loads", "texture_load lanes (no filtering)" },
   [HW_PROF_TEX_NEAREST] = { "tex_nearest", "texture_sample lanes, nearest, no mipmapping" },
   [HW_PROF_TEX_LINEAR] = { "tex_linear", "texture_sample lanes, linear, no mipmapping" },
   [HW_PROF_TEX_NEAREST_MIPMAP_NEAREST] = { "tex_nearest_mipmap_nearest", "texture_sample lanes, nearest, nearest mip level" },
   [HW_PROF_TEX_LINEAR_MIPMAP_NEAREST] = { "tex_linear_mipmap_nearest", "texture_sample lanes, linear, nearest mip level" },
   [HW_PROF_TEX_NEAREST_MIPMAP_LINEAR] = { "tex_nearest_mipmap_linear", "texture_sample lanes, nearest, between mip levels" },
   [HW_PROF_TEX_LINEAR_MIPMAP_LINEAR] = { "tex_linear_mipmap_linear", "texture_sample lanes, trilinear" },
   [HW_PROF_VS_INSTRUCTIONS] = { "vs_instructions", "vertex shader SIMD-group instructions" },
   [HW_PROF_FS_INSTRUCTIONS] = { "fs_instructions", "fragment/tile program SIMD-group instructions" },
   [HW_PROF_CS_INSTRUCTIONS] = { "cs_instructions", "compute SIMD-group instructions" },
   [HW_PROF_THREADGROUPS] = { "threadgroups", "compute workgroups" },
   [HW_PROF_INVOCATIONS] = { "invocations", "compute threads" },
};

const char *
hw_prof_counter_name(enum hw_prof_counter c)
{
   return (unsigned)c < HW_PROF_NUM ? counters[c].name : "?";
}

const char *
hw_prof_counter_help(enum hw_prof_counter c)
{
   return (unsigned)c < HW_PROF_NUM ? counters[c].help : "?";
}

void
hw_prof_apportion(uint64_t total, const uint64_t *w, size_t n, uint64_t *out)
{
   if (!n)
      return;
   unsigned __int128 sum = 0;
   for (size_t i = 0; i < n; i++)
      sum += w[i];
   if (sum == 0) {
      out[n - 1] += total;
      return;
   }
   uint64_t given = 0;
   /* Remainders are < sum; keep them to hand out the leftover units. */
   unsigned __int128 *rem = malloc(n * sizeof(*rem));
   for (size_t i = 0; i < n; i++) {
      unsigned __int128 p = (unsigned __int128)total * w[i];
      uint64_t q = (uint64_t)(p / sum);
      out[i] += q;
      given += q;
      if (rem)
         rem[i] = p % sum;
   }
   uint64_t left = total - given;   /* < n */
   while (left) {
      size_t best = 0;
      if (rem) {
         for (size_t i = 1; i < n; i++)
            if (rem[i] > rem[best])
               best = i;
         rem[best] = 0;
      } else {
         best = n - 1;   /* no memory for remainders: still exact */
      }
      out[best]++;
      left--;
   }
   free(rem);
}

const char *
hw_prof_tex_format_name(uint32_t key, char *buf, size_t size)
{
   if (key == 0)
      snprintf(buf, size, "other");
   else if (key == 1)
      snprintf(buf, size, "null");
   else {
      const char *c = agx_channels_as_str((enum agx_channels)(key & 0xff));
      const char *t = agx_texture_type_as_str((enum agx_texture_type)(key >> 8 & 0xf));
      snprintf(buf, size, "%s %s%s", c ? c : "?", t ? t : "?", key >> 12 & 1 ? " sRGB" : "");
   }
   return buf;
}

void
hw_prof_sum(struct hw_prof_pass *pass)
{
   memcpy(pass->total, pass->overhead.c, sizeof(pass->total));
   for (unsigned i = 0; i < pass->n; i++)
      for (unsigned k = 0; k < HW_PROF_NUM; k++)
         pass->total[k] += pass->entries[i].c[k];
}
