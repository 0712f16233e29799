/* SPDX-License-Identifier: MIT */
/*
 * The command-buffer walker (uapi_cmdbuf.h). The bounds checks are the
 * kernel's (kernel/asahi_submit.c parse_cmdbuf): a header must fit, then
 * its payload must fit; the payload is read only after both hold.
 */
#include "uapi/uapi_cmdbuf.h"

#include <string.h>

void
uapi_cmd_iter_init(struct uapi_cmd_iter *it, const void *buf, size_t size)
{
   memset(it, 0, sizeof(*it));
   it->buf = buf;
   it->size = buf ? size : 0;
}

bool
uapi_cmd_next(struct uapi_cmd_iter *it, struct uapi_cmd *c)
{
   if (it->status != UAPI_CMDBUF_OK)
      return false;
   if (it->pos == it->size) {
      it->status = UAPI_CMDBUF_END;
      return false;
   }
   if (it->size - it->pos < sizeof(c->h)) {
      it->status = UAPI_CMDBUF_HEADER_PAST_END;
      return false;
   }
   memset(c, 0, sizeof(*c));
   c->index = it->count;
   c->offset = (uint32_t)it->pos;
   memcpy(&c->h, it->buf + it->pos, sizeof(c->h));
   size_t at = it->pos + sizeof(c->h);
   if (c->h.size > it->size - at) {
      it->status = UAPI_CMDBUF_SHORT_PAYLOAD;
      return false;
   }
   c->payload = it->buf + at;
   c->known = c->h.cmd_type <= DRM_ASAHI_SET_COMPUTE_ATTACHMENTS;
   size_t full = c->h.cmd_type == DRM_ASAHI_CMD_RENDER    ? sizeof(c->u.render)
                 : c->h.cmd_type == DRM_ASAHI_CMD_COMPUTE ? sizeof(c->u.compute)
                                                          : 0;
   memcpy(&c->u, c->payload, c->h.size < full ? c->h.size : full);
   it->pos = at + c->h.size;
   it->count++;
   it->unknown += !c->known;
   return true;
}

static bool
is_attachments(uint32_t type)
{
   return type >= DRM_ASAHI_SET_VERTEX_ATTACHMENTS && type <= DRM_ASAHI_SET_COMPUTE_ATTACHMENTS;
}

uint32_t
uapi_cmd_attachment_count(const struct uapi_cmd *c)
{
   if (!c->payload || !is_attachments(c->h.cmd_type))
      return 0;
   return c->h.size / (uint32_t)sizeof(struct drm_asahi_attachment);
}

struct drm_asahi_attachment
uapi_cmd_attachment(const struct uapi_cmd *c, uint32_t i)
{
   struct drm_asahi_attachment a = { 0 };
   if (i < uapi_cmd_attachment_count(c))
      memcpy(&a, c->payload + (size_t)i * sizeof(a), sizeof(a));
   return a;
}

const char *
uapi_cmd_type_name(uint32_t cmd_type)
{
   static const char *const names[] = {
      [DRM_ASAHI_CMD_RENDER] = "render",
      [DRM_ASAHI_CMD_COMPUTE] = "compute",
      [DRM_ASAHI_SET_VERTEX_ATTACHMENTS] = "set_vertex_attachments",
      [DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS] = "set_fragment_attachments",
      [DRM_ASAHI_SET_COMPUTE_ATTACHMENTS] = "set_compute_attachments",
   };
   return cmd_type < sizeof(names) / sizeof(names[0]) ? names[cmd_type] : "unknown";
}

const char *
uapi_cmdbuf_status_str(enum uapi_cmdbuf_status s)
{
   switch (s) {
   case UAPI_CMDBUF_HEADER_PAST_END: return "command header runs past the command buffer";
   case UAPI_CMDBUF_SHORT_PAYLOAD: return "payload runs past the command buffer";
   default: return "";
   }
}
