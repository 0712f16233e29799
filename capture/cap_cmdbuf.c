/* SPDX-License-Identifier: MIT */
/*
 * Command-buffer scanning for the capture layer: which timestamp slots the
 * firmware will write for a SUBMIT, so the completion record can carry the
 * GPU times read back after the out-sync signals.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "capture/capture.h"

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
   size_t pos = 0;
   while (pos < size) {
      struct drm_asahi_cmd_header h;
      if (size - pos < sizeof(h))
         return -EINVAL;
      memcpy(&h, buf + pos, sizeof(h));
      pos += sizeof(h);
      if (h.size > size - pos)
         return -EINVAL;
      /* A payload shorter than the struct is zero-extended, as the
       * kernel does for older userspace. */
      if (h.cmd_type == DRM_ASAHI_CMD_RENDER) {
         struct drm_asahi_cmd_render r;
         memset(&r, 0, sizeof(r));
         memcpy(&r, buf + pos, h.size < sizeof(r) ? h.size : sizeof(r));
         add(&r.ts_vtx.start, out, max, &n);
         add(&r.ts_vtx.end, out, max, &n);
         add(&r.ts_frag.start, out, max, &n);
         add(&r.ts_frag.end, out, max, &n);
         cmds++;
      } else if (h.cmd_type == DRM_ASAHI_CMD_COMPUTE) {
         struct drm_asahi_cmd_compute c;
         memset(&c, 0, sizeof(c));
         memcpy(&c, buf + pos, h.size < sizeof(c) ? h.size : sizeof(c));
         add(&c.ts.start, out, max, &n);
         add(&c.ts.end, out, max, &n);
         cmds++;
      }
      pos += h.size;
   }
   if (hw_cmds)
      *hw_cmds = cmds;
   return (int)n;
}
