/* SPDX-License-Identifier: MIT */
/*
 * The model's firmware: a thread that consumes the host's rings, runs job
 * scripts, hands the work to per-pipe executors and posts events.
 * docs/firmware.md is the protocol reference the kernel driver is written
 * against; the structures are in cmdstream/agx_fw.xml.
 *
 * CONTRACT
 * - hw_fw_boot() validates InitData (a kernel-half VA read through VM slot
 *   0, so the TTBAT and context 0 must be set up first) and starts the
 *   thread; it returns 0 or -errno (reason in hw_device_last_error()).
 * - After boot the host talks to the firmware only through memory and
 *   hw_doorbell(); the firmware answers through the event ring and the
 *   interrupt (callback and eventfd, hw_device.h).
 * - Executors run on the firmware thread, one job at a time. They must
 *   poll hw_exec_should_stop() and return soon after it says true.
 * - hw_fw_shutdown() (also done by hw_device_destroy) stops the thread,
 *   abandoning pending jobs without posting events.
 */
#ifndef HW_FW_H
#define HW_FW_H

#include <stdbool.h>
#include <stdint.h>

#include "cmdstream/agx_fw_pack.h"
#include "hw/hw_device.h"
#include "hw/hw_mmu.h"

#define HW_FW_PRIORITIES 4
#define HW_FW_PIPES 3
#define HW_FW_EVENT_SLOTS 128
#define HW_FW_NO_EVENT 0xff
#define HW_FW_STAMP_INCREMENT 0x100

/* Doorbell values: a pipe ring (pipe | priority << 2) or these. */
#define HW_DOORBELL_PIPE(pipe, prio) ((unsigned)(pipe) | (unsigned)(prio) << 2)
#define HW_DOORBELL_KICKFW  0x10
#define HW_DOORBELL_DEVCTRL 0x11

/* Message sizes of the rings (FW Ring.Entry Size must match). */
#define HW_FW_PIPE_MSG_SIZE   AGX_FW_RUN_QUEUE_MESSAGE_LENGTH
#define HW_FW_DEVCTRL_MSG_SIZE AGX_FW_DEVICE_CONTROL_MESSAGE_LENGTH
#define HW_FW_EVENT_MSG_SIZE  64

/* Limits the firmware enforces (a violation is a Bad Queue / Bad Script
 * error, never a crash). */
#define HW_FW_MAX_QUEUES 256
#define HW_FW_MAX_SCRIPT_SIZE 4096
#define HW_FW_MAX_RING_ENTRIES 65536

/* Modelled firmware costs, in core cycles: why an empty job still takes
 * time (timestamps around Start differ) and stays deterministic. */
#define HW_FW_START_CYCLES 1278      /* 1 us: launch the pipe */
#define HW_FW_FINALIZE_CYCLES 639    /* 0.5 us: flush, write stamps */

/* Stamp order: a has reached b. */
static inline bool
hw_stamp_reached(uint32_t a, uint32_t b)
{
   return (int32_t)(a - b) >> 8 >= 0;
}

int hw_fw_boot(struct hw_device *dev, uint64_t initdata_va);
void hw_fw_shutdown(struct hw_device *dev);
bool hw_fw_running(struct hw_device *dev);

/* Wakes the firmware. Unknown values are counted (FW Status.Bad Doorbells)
 * and otherwise ignored. */
void hw_doorbell(struct hw_device *dev, uint32_t value);

/* ------------------------------------------------------------ executors */

enum hw_exec_status {
   HW_EXEC_OK = 0,
   HW_EXEC_FAULT,     /* result.fault says where */
   HW_EXEC_TIMEOUT,   /* stopped: budget exhausted or asked to stop */
   HW_EXEC_ERROR,     /* malformed work; result.message says why */
};

struct hw_fw;

struct hw_exec_job {
   struct hw_device *dev;
   struct hw_fw *fw;          /* for hw_exec_should_stop() */
   uint64_t job;              /* VA of the job header */
   uint32_t job_id;
   enum agx_fw_command tag;
   unsigned vm_slot;
   uint64_t payload;          /* VA of the payload */
   /* Unpacked payload: compute for Run Compute, render for the others. */
   const struct agx_fw_compute_payload *compute;
   const struct agx_fw_render_payload *render;
   uint64_t cycle_budget;     /* a job using more must return TIMEOUT */
   uint64_t deadline_ns;      /* CLOCK_MONOTONIC watchdog */
};

struct hw_exec_result {
   enum hw_exec_status status;
   uint64_t cycles;           /* modelled duration: advances the GPU clock */
   struct hw_fault fault;     /* HW_EXEC_FAULT */
   char message[128];         /* HW_EXEC_ERROR */
};

typedef void (*hw_exec_fn)(void *data, const struct hw_exec_job *job,
                           struct hw_exec_result *result);

/* Registers the executor of a pipe (NULL to remove). Without one, compute
 * jobs fail with a No Executor error; vertex and fragment jobs complete
 * having done nothing (until the rendering model registers its own). */
void hw_device_set_executor(struct hw_device *dev, enum agx_fw_pipe pipe,
                            hw_exec_fn fn, void *data);

/* Posts a firmware event message (HW_FW_EVENT_MSG_SIZE bytes, e.g. a
 * packed FW Event Grow TVB) from an executor, in order with the job's
 * own completion events.  False when the event ring is full
 * or the job has no firmware (executors called directly). */
bool hw_exec_post_event(const struct hw_exec_job *job, const void *msg);

/* True once the job ran out of wall-clock time or the device is shutting
 * down: the executor should stop and return HW_EXEC_TIMEOUT. Cheap. */
bool hw_exec_should_stop(const struct hw_exec_job *job);

/* -------------------------------------------- shared-memory accessors */

/* Ring indices and stamps are 32-bit words the host and the firmware
 * write from different threads: always use these on them. */
static inline uint32_t
hw_load_acquire32(const void *p)
{
   return __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
}

static inline void
hw_store_release32(void *p, uint32_t v)
{
   __atomic_store_n((uint32_t *)p, v, __ATOMIC_RELEASE);
}

#endif
