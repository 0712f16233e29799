/* SPDX-License-Identifier: MIT */
/*
 * asahi: tessera's DRM driver for the AGX GPU model, with the upstream
 * Asahi uAPI (include/drm-uapi/asahi_drm.h) plus the DRM core ioctls a
 * render node answers (VERSION, GET_CAP, GEM_CLOSE, PRIME, SYNCOBJ_*).
 *
 * CONTRACT
 * - asahi_create() takes a GPU model device (hw/hw_device.h) with its
 *   executors registered, sets up its memory, boots its firmware and
 *   starts the driver's event and scheduler threads. The driver talks to
 *   the model only through memory, page tables, FAULT_INFO and the
 *   doorbell (docs/firmware.md), as a real driver talks to the GPU.
 * - A struct asahi_file is one open of the render node. asahi_ioctl()
 *   behaves like the kernel's drm_ioctl(): `cmd` encodes direction and
 *   size, `arg` is a user pointer (bad pointers give -EFAULT, never a
 *   crash); it returns 0 or -errno. A failing call changes nothing.
 * - Handles (GEM, syncobj) and ids (VM, queue) are per file. Closing the
 *   file releases everything it owned; work already submitted finishes.
 * - Exported fds (PRIME, syncobj) are fds of this process that identify the
 *   object; FD_TO_HANDLE recognises them. They do not keep the object
 *   alive: once its last handle is gone, importing the fd fails.
 * - Thread safe: every entry point may be called from any thread.
 * Structure and per-ioctl validation: docs/kernel.md.
 */
#ifndef ASAHI_H
#define ASAHI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hw_device;
struct asahi_dev;
struct asahi_file;

struct asahi_config {
   bool quiet;          /* no fault log lines on stderr */
   uint32_t tvb_max_bytes;  /* per-queue TVB heap cap; 0: default */
   uint32_t tvb_initial_bytes;  /* per-queue TVB heap at creation; 0: 1 MiB */
   /* How long the event thread sleeps without the model's interrupt
    * before it looks at the event ring anyway; 0: 100 ms. Only a guard
    * against a lost interrupt, which it turns into a stall of that
    * length: tests make it long so that one shows as a hang. */
   uint32_t irq_guard_ms;
};

struct asahi_dev *asahi_create(struct hw_device *hw, const struct asahi_config *cfg);
/* Stops the threads, fails work still pending and frees everything
 * (the hw device stays the caller's). Files must be closed first. */
void asahi_destroy(struct asahi_dev *dev);
struct hw_device *asahi_hw(struct asahi_dev *dev);

struct asahi_file *asahi_open(struct asahi_dev *dev);
void asahi_close(struct asahi_file *file);

int asahi_ioctl(struct asahi_file *file, unsigned long cmd, void *arg);
/* An ioctl on a file the driver handed out that is not the node itself: a
 * sync file (SYNC_IOC_MERGE, SYNC_IOC_FILE_INFO) or an exported dma-buf
 * (DMA_BUF_IOCTL_{EXPORT,IMPORT}_SYNC_FILE, DMA_BUF_IOCTL_SYNC). *ours is
 * false when fd is neither; the caller then hands the ioctl to the OS. */
int asahi_fd_ioctl(struct asahi_dev *dev, int fd, unsigned long cmd, void *arg,
                   bool *ours);

/*
 * mmap support: translates a GEM_MMAP_OFFSET offset into an offset of the
 * model's memory arena (for hw_device_mem_map()), checking that [offset,
 * offset + size) lies inside one object this file can see. 0 or
 * -EINVAL/-EACCES.
 */
int asahi_mmap_resolve(struct asahi_file *file, uint64_t offset, uint64_t size,
                       uint64_t *arena_offset);

/*
 * Debug hook: called for every firmware job exactly as the driver built
 * it, just before it is queued to the firmware (under the driver lock:
 * the hook must not call back into the driver).
 */
struct asahi_job_info {
   uint32_t queue_id;       /* uAPI queue id (per file) */
   unsigned pipe;           /* enum agx_fw_pipe */
   unsigned vm_slot;
   uint64_t job_va;         /* kernel-half VA of the FW Job Header */
   const uint8_t *header;   /* AGX_FW_JOB_HEADER_LENGTH bytes */
   const uint8_t *script;   /* NULL for Barrier jobs */
   uint32_t script_size;
   uint64_t payload_va;
   const uint8_t *payload;
   uint32_t payload_size;
};
typedef void (*asahi_job_hook_fn)(void *user, const struct asahi_job_info *job);
void asahi_set_job_hook(struct asahi_dev *dev, asahi_job_hook_fn fn, void *user);

/* Test/diagnostic helpers. */
/* Error of the fence a syncobj currently holds (0 ok or pending, -errno),
 * or -ENOENT. point 0 = the binary payload. */
int asahi_debug_syncobj_error(struct asahi_file *file, uint32_t handle,
                              uint64_t point);
/* Statistics since creation. */
struct asahi_stats {
   uint64_t jobs_submitted, jobs_completed, jobs_failed;
   uint64_t faults, timeouts, tvb_grows;
};
void asahi_get_stats(struct asahi_dev *dev, struct asahi_stats *out);
/* Runs the kernel side of a firmware Grow TVB event for (vm slot, buffer
 * slot) as if the firmware had posted it; returns the new heap size or
 * -errno. The tiler model will post real events. */
int64_t asahi_debug_grow_tvb(struct asahi_dev *dev, unsigned vm_slot,
                             unsigned buffer_slot);
/* Physical pages the driver currently holds for itself (heap, tables). */
uint64_t asahi_debug_kernel_pages(struct asahi_dev *dev);

#endif
