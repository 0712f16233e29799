/* SPDX-License-Identifier: MIT */
/*
 * Firmware internals shared by hw_fw.c (thread, rings, events) and
 * hw_fw_job.c (job fetch, scripts, executors).
 */
#ifndef HW_FW_PRIV_H
#define HW_FW_PRIV_H

#include "hw/hw_priv.h"

/* A ring as validated at boot; Base/Count never change afterwards. */
struct fw_ring {
   uint64_t va;          /* the FW Ring structure */
   uint64_t base;
   uint32_t count;
};

#define FW_RING_READ_OFFSET 0
#define FW_RING_WRITE_OFFSET 64
#define FW_WQ_DONE_OFFSET 0
#define FW_WQ_READ_OFFSET 64
#define FW_WQ_WRITE_OFFSET 128

enum fw_step {
   FW_IDLE,      /* nothing to do */
   FW_BLOCKED,   /* waiting on a stamp or another pipe */
   FW_PROGRESS,  /* did something; call again */
};

struct fw_job {
   uint64_t va;
   struct agx_fw_job_header hdr;
   unsigned pipe;
   uint32_t pc;            /* byte offset of the next op */
   bool started;           /* Start ran, Finalize not yet */
   bool failed;            /* an error event was posted */
   uint64_t barrier_stamp; /* Barrier jobs */
   uint32_t barrier_value;
};

struct fw_queue {
   bool used;
   uint64_t va;            /* FW Work Queue */
   unsigned pipe, prio;
   unsigned event_slot;    /* from the Run Queue message */
   uint64_t ring;
   uint32_t size;
   uint32_t rptr;          /* next ring index to fetch */
   bool have_job;
   struct fw_job job;
};

struct fw_stats {
   uint32_t jobs, faults, timeouts, errors, doorbells, bad_doorbells;
};

struct hw_fw {
   struct hw_device *dev;
   pthread_t thread;
   pthread_mutex_t lock;
   pthread_cond_t cond;
   bool kick;               /* doorbell rung since the last scan */
   bool stop;
   atomic_bool stopping;    /* read by hw_exec_should_stop() */
   uint32_t doorbells, bad_doorbells;   /* under lock */

   struct hw_mmu mmu;       /* VM slot 0, unit FW: the firmware thread's */
   uint64_t initdata;
   struct agx_fw_init_data init;
   struct fw_ring pipe[HW_FW_PRIORITIES * HW_FW_PIPES];
   struct fw_ring devctrl;
   struct fw_ring event;

   struct fw_queue queues[HW_FW_MAX_QUEUES];
   unsigned rr[HW_FW_PRIORITIES];
   struct fw_stats stats;
   bool status_dirty;
   /* Test hook TESSERA_HW_STALL=N:MS (read at boot): before the START of
    * the N-th job (0-based, counted over every queue) the firmware thread
    * sleeps MS milliseconds, as a GPU busy with long work would. It makes
    * races with the GPU's progress deterministic (tests/gl/
    * capture_keyframes.sh); the results do not change. */
   uint64_t stall_at, stall_ms, starts;
};

/* Sleeps for the TESSERA_HW_STALL hook if this START is the one it names
 * (hw_fw.c; firmware thread only). */
void fw_maybe_stall(struct hw_fw *fw);

/* Memory helpers through the firmware's own MMU (false on a fault, which
 * is then in fw->mmu.fault). */
bool fw_read(struct hw_fw *fw, uint64_t va, void *dst, size_t size);
bool fw_write(struct hw_fw *fw, uint64_t va, const void *src, size_t size);
bool fw_load32(struct hw_fw *fw, uint64_t va, uint32_t *v);
bool fw_store32(struct hw_fw *fw, uint64_t va, uint32_t v);

/* Posts one 64-byte event and raises the interrupt; false if stopping. */
bool fw_post_event(struct hw_fw *fw, const void *msg);

/* Error events for a job (or for a queue when job is NULL). */
void fw_post_fault(struct hw_fw *fw, const struct fw_queue *q,
                   const struct fw_job *job, const struct hw_fault *f);
void fw_post_job_error(struct hw_fw *fw, const struct fw_queue *q,
                       const struct fw_job *job, enum agx_fw_error err);
void fw_post_timeout(struct hw_fw *fw, const struct fw_queue *q,
                     const struct fw_job *job, uint64_t cycles);

/* Advances a queue by one job or part of one (hw_fw_job.c). */
enum fw_step fw_queue_step(struct hw_fw *fw, struct fw_queue *q);

#endif
