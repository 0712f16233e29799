/* SPDX-License-Identifier: MIT */
/*
 * uapi_cmdbuf: the one walker over a SUBMIT's command buffer, the flat
 * stream of drm_asahi_cmd_header + payload that DRM_IOCTL_ASAHI_SUBMIT
 * takes (include/drm-uapi/asahi_drm.h). Capture, replay, `dump` and `info`
 * all read command buffers through it, so they agree on where each
 * command starts and on what a damaged buffer is.
 *
 * CONTRACT
 * - The buffer is outside input (a trace, another process): every header
 *   and payload is bounds-checked before it is read, nothing is written
 *   and nothing is allocated. Any byte string is safe to walk.
 * - uapi_cmd_next() yields the commands in order. It returns false at the
 *   end of the buffer or at the first malformed command; it->status says
 *   which (UAPI_CMDBUF_END for a buffer that ends exactly after a command,
 *   including an empty one). Once it has returned false it keeps doing so.
 * - Malformed: fewer bytes left than a header (HEADER_PAST_END; it->pos is
 *   where those bytes start), or a header whose payload runs past the end
 *   (SHORT_PAYLOAD; the returned uapi_cmd still holds that header and its
 *   index, so a printer can show what was damaged). These are the cases the
 *   kernel rejects with -EINVAL before looking at the payload.
 * - A cmd_type asahi_drm.h does not define is yielded with known = false
 *   and counted in it->unknown: the walk can go on past it (its size says
 *   where the next command starts); whether it is an error is the caller's
 *   call (the kernel rejects it, a dump prints it).
 * - Render and compute payloads are also copied into c->u zero-extended to
 *   the full struct (a shorter payload is an older userspace's, as the
 *   kernel treats it) or cut to it (a longer one, which the kernel
 *   rejects); c->payload and c->h.size always give the bytes as they are.
 */
#ifndef TESSERA_UAPI_CMDBUF_H
#define TESSERA_UAPI_CMDBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drm-uapi/asahi_drm.h"

enum uapi_cmdbuf_status {
   UAPI_CMDBUF_OK = 0,           /* still walking */
   UAPI_CMDBUF_END,              /* the buffer ended after a whole command */
   UAPI_CMDBUF_HEADER_PAST_END,  /* 1..7 bytes left: a header runs past the end */
   UAPI_CMDBUF_SHORT_PAYLOAD,    /* a payload runs past the end */
};

struct uapi_cmd {
   uint32_t index;                    /* 0-based, over every command */
   uint32_t offset;                   /* byte offset of the header */
   struct drm_asahi_cmd_header h;
   const uint8_t *payload;            /* h.size bytes; NULL on SHORT_PAYLOAD */
   bool known;                        /* cmd_type is one asahi_drm.h defines */
   union {
      struct drm_asahi_cmd_render render;    /* DRM_ASAHI_CMD_RENDER */
      struct drm_asahi_cmd_compute compute;  /* DRM_ASAHI_CMD_COMPUTE */
   } u;                               /* zero for every other type */
};

struct uapi_cmd_iter {
   const uint8_t *buf;
   size_t size, pos;                  /* pos: the next header */
   uint32_t count;                    /* commands yielded so far */
   uint32_t unknown;                  /* ... of which known == false */
   enum uapi_cmdbuf_status status;
};

void uapi_cmd_iter_init(struct uapi_cmd_iter *it, const void *buf, size_t size);

/* The next command in *c, or false (see it->status). */
bool uapi_cmd_next(struct uapi_cmd_iter *it, struct uapi_cmd *c);

/* Whether the walk stopped at damage rather than at the end. */
static inline bool
uapi_cmd_iter_failed(const struct uapi_cmd_iter *it)
{
   return it->status == UAPI_CMDBUF_HEADER_PAST_END ||
          it->status == UAPI_CMDBUF_SHORT_PAYLOAD;
}

/* Render or compute: a command the firmware runs (the others are hints). */
static inline bool
uapi_cmd_is_hw(const struct uapi_cmd *c)
{
   return c->h.cmd_type == DRM_ASAHI_CMD_RENDER || c->h.cmd_type == DRM_ASAHI_CMD_COMPUTE;
}

/* Whole drm_asahi_attachment entries of a SET_*_ATTACHMENTS command (0 for
 * other types; a trailing partial entry is not counted), and entry i. */
uint32_t uapi_cmd_attachment_count(const struct uapi_cmd *c);
struct drm_asahi_attachment uapi_cmd_attachment(const struct uapi_cmd *c, uint32_t i);

/* "render", "compute", "set_vertex_attachments", ... or "unknown". */
const char *uapi_cmd_type_name(uint32_t cmd_type);

/* What stopped a walk, for messages: "payload runs past the command
 * buffer", ...; "" for OK and END. */
const char *uapi_cmdbuf_status_str(enum uapi_cmdbuf_status s);

#endif
