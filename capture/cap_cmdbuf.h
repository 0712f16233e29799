/* SPDX-License-Identifier: MIT */
/*
 * cap_cmdbuf: the timestamps a SUBMIT command buffer asks the firmware to
 * write, which the capture layer records after the work completes.
 * Private to the capture library and the layer. The buffer is walked with
 * uapi/uapi_cmdbuf.h; no global state, thread compatible.
 */
#ifndef TESSERA_CAP_CMDBUF_H
#define TESSERA_CAP_CMDBUF_H

#include <stddef.h>
#include <stdint.h>

/* A timestamp the firmware writes for a command. */
struct cap_ts_ref {
   uint32_t object_handle;   /* GEM_BIND_OBJECT handle */
   uint32_t offset;
};

/* Collects the non-zero timestamp references of a SUBMIT command buffer
 * into out[0..max) and returns how many there are (may exceed max), or
 * -EINVAL if the buffer is malformed. Also counts the hardware commands. */
int cap_cmdbuf_timestamps(const uint8_t *buf, size_t size, struct cap_ts_ref *out,
                          unsigned max, unsigned *hw_cmds);

#endif
