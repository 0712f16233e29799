/* SPDX-License-Identifier: MIT */
/*
 * Command-buffer scanning for the capture layer: which timestamp slots the
 * firmware will write for a SUBMIT, so the completion record can carry the
 * GPU times read back after the out-sync signals.
 */
#include <errno.h>
#include <stddef.h>

#include "capture/cap_cmdbuf.h"
#include "uapi/uapi_cmdbuf.h"

static void
add(const struct drm_asahi_timestamp *t, struct cap_ts_ref *out, unsigned max,
    unsigned *n)
{
   if (!t->handle)
      return;   /* handle 0: no write */
   if (*n < max)
      out[*n] = (struct cap_ts_ref){ t->handle, t->offset };
   (*n)++;
}

int
cap_cmdbuf_timestamps(const uint8_t *buf, size_t size, struct cap_ts_ref *out,
                      unsigned max, unsigned *hw_cmds)
{
   unsigned n = 0, cmds = 0;
   struct uapi_cmd_iter it;
   struct uapi_cmd c;
   uapi_cmd_iter_init(&it, buf, size);
   while (uapi_cmd_next(&it, &c)) {
      if (c.h.cmd_type == DRM_ASAHI_CMD_RENDER) {
         add(&c.u.render.ts_vtx.start, out, max, &n);
         add(&c.u.render.ts_vtx.end, out, max, &n);
         add(&c.u.render.ts_frag.start, out, max, &n);
         add(&c.u.render.ts_frag.end, out, max, &n);
         cmds++;
      } else if (c.h.cmd_type == DRM_ASAHI_CMD_COMPUTE) {
         add(&c.u.compute.ts.start, out, max, &n);
         add(&c.u.compute.ts.end, out, max, &n);
         cmds++;
      }
   }
   if (uapi_cmd_iter_failed(&it))
      return -EINVAL;
   if (hw_cmds)
      *hw_cmds = cmds;
   return (int)n;
}
