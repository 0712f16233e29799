/* SPDX-License-Identifier: MIT */
/*
 * Software-winsys presentation (see tessera_sw.h). The GPU never renders
 * into winsys memory (it is plain CPU memory the GPU cannot map), so each
 * display target is a second, CPU-side image that flush_frontbuffer
 * fills from the GPU BO once the rendering is done.
 */
#include <stdio.h>
#include <string.h>

#include "pipe/p_compiler.h"
#include "frontend/sw_winsys.h"
#include "util/format/u_format.h"
#include "util/u_box.h"
#include "util/u_inlines.h"

#include "tessera_context.h"
#include "tessera_resource.h"
#include "tessera_sw.h"

bool
tessera_sw_displaytarget_create(struct tessera_screen *s, struct tessera_resource *r)
{
   struct sw_winsys *ws = s->winsys;
   if (r->base.target == PIPE_BUFFER)
      return true;
   if (!ws->is_displaytarget_format_supported(ws, r->base.bind, r->base.format)) {
      fprintf(stderr, "tessera: the winsys cannot display %s\n",
              util_format_short_name(r->base.format));
      return false;
   }
   unsigned stride = 0;
   r->dt = ws->displaytarget_create(ws, r->base.bind, r->base.format, r->base.width0,
                                    r->base.height0, 64, NULL, &stride);
   if (!r->dt) {
      fprintf(stderr, "tessera: winsys display target creation failed (%ux%u %s)\n",
              r->base.width0, r->base.height0, util_format_short_name(r->base.format));
      return false;
   }
   r->dt_stride = stride;
   return true;
}

void
tessera_sw_displaytarget_destroy(struct tessera_screen *s, struct tessera_resource *r)
{
   s->winsys->displaytarget_destroy(s->winsys, r->dt);
   r->dt = NULL;
}

void
tessera_flush_frontbuffer(struct pipe_screen *pscreen, struct pipe_context *pctx,
                          struct pipe_resource *prsc, unsigned level, unsigned layer,
                          void *context_private, struct pipe_box *sub_box)
{
   struct tessera_screen *s = tessera_screen(pscreen);
   struct tessera_resource *r = tessera_resource(prsc);
   if (!s->winsys || !r->dt)
      return;   /* DRM path: the loader presents the shared BO itself */

   /* The image must be complete: submit what renders it and wait. */
   if (pctx)
      tessera_flush_writer(tessera_context(pctx), r, "present");

   struct sw_winsys *ws = s->winsys;
   const uint8_t *src = tessera_bo_map(r->bo);
   uint8_t *dst = ws->displaytarget_map(ws, r->dt, PIPE_MAP_WRITE);
   if (!src || !dst) {
      fprintf(stderr, "tessera: cannot map the image to present\n");
      if (dst)
         ws->displaytarget_unmap(ws, r->dt);
      return;
   }
   unsigned bytes = util_format_get_blocksize(r->base.format);
   unsigned w = r->base.width0, h = r->base.height0;
   if (r->layout == TESSERA_LAYOUT_LINEAR) {
      const uint8_t *row = src + r->level[0].offset;
      for (unsigned y = 0; y < h; y++)
         memcpy(dst + (size_t)y * r->dt_stride, row + (size_t)y * r->level[0].stride,
                (size_t)w * bytes);
   } else {
      /* Display targets are created linear; a twiddled one would need the
       * transfer path. Present through a context map instead. */
      struct pipe_box box;
      u_box_2d(0, 0, w, h, &box);
      if (pctx) {
         struct pipe_transfer *t;
         const uint8_t *map = pctx->texture_map(pctx, prsc, 0, PIPE_MAP_READ, &box, &t);
         if (map) {
            for (unsigned y = 0; y < h; y++)
               memcpy(dst + (size_t)y * r->dt_stride, map + (size_t)y * t->stride,
                      (size_t)w * bytes);
            pctx->texture_unmap(pctx, t);
         }
      }
   }
   ws->displaytarget_unmap(ws, r->dt);
   ws->displaytarget_display(ws, r->dt, context_private, sub_box);
}
