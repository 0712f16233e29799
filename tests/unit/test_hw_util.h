/* SPDX-License-Identifier: MIT */
/*
 * A minimal "kernel driver" for the hw tests: sets up page tables, a
 * kernel heap, the firmware rings and boots the firmware, then submits
 * jobs and reads events exactly as docs/firmware.md tells a driver to.
 */
#ifndef TEST_HW_UTIL_H
#define TEST_HW_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "cmdstream/agx_fw_pack.h"
#include "hw/hw_device.h"
#include "hw/hw_fw.h"
#include "hw/hw_uat.h"

#define T_KHEAP_VA 0xffffffa000000000ull
#define T_KHEAP_PAGES 256
#define T_USER_VA 0x1500000000ull
#define T_RING_COUNT 64

struct t_queue {
   uint64_t va;          /* FW Work Queue */
   uint8_t *host;
   uint64_t *ring;
   uint32_t size;
   unsigned pipe, prio, event_slot;
};

struct t_fw {
   struct hw_device *dev;
   uint64_t ttbat;
   uint64_t kttb;                    /* kernel half, shared by every slot */
   uint64_t uttb[HW_UAT_NUM_CONTEXTS];
   uint64_t kheap_pa;
   uint64_t kheap_used;

   uint64_t initdata, pipe_rings, devctrl_ring, event_ring, stamps, status;
   uint32_t event_rd;
};

/* Device + TTBAT + kernel tree and heap (no firmware). */
void t_setup_mem(struct t_fw *t, const struct hw_device_config *cfg);
/* ... plus InitData, rings and boot. */
void t_setup_fw(struct t_fw *t, const struct hw_device_config *cfg);
void t_teardown(struct t_fw *t);

/* Kernel-heap allocation (zeroed, 64-byte aligned). */
void *t_kalloc(struct t_fw *t, uint64_t size, uint64_t *va);
void *t_kva_host(struct t_fw *t, uint64_t va);

/* Maps npages fresh pages at va in the user half of slot. */
void *t_user_map(struct t_fw *t, unsigned slot, uint64_t va, uint64_t npages,
                 unsigned prot);

void t_queue_init(struct t_fw *t, struct t_queue *q, unsigned pipe,
                  unsigned prio, unsigned event_slot);
/* Appends the job to the queue, sends the Run Queue message and rings. */
void t_submit(struct t_fw *t, struct t_queue *q, uint64_t job_va);
/* Same without the doorbell (for batching). */
void t_submit_quiet(struct t_fw *t, struct t_queue *q, uint64_t job_va);
void t_devctrl(struct t_fw *t, const struct agx_fw_device_control_message *m);
/* Pushes the message and rings without waiting for it to be taken;
 * t_devctrl_done: the firmware has taken every message pushed. */
void t_devctrl_quiet(struct t_fw *t, const struct agx_fw_device_control_message *m);
bool t_devctrl_done(struct t_fw *t);

/* Next event (64 bytes) within timeout_ms; false on timeout. */
bool t_next_event(struct t_fw *t, uint8_t *msg, unsigned timeout_ms);
enum agx_fw_event t_event_type(const uint8_t *msg);
/* Waits for the next event and asserts it is a Flag for exactly `slot`. */
void t_expect_flag(struct t_fw *t, unsigned slot);

struct t_job_opts {
   enum agx_fw_command tag;
   unsigned vm_slot;
   unsigned event_slot;
   uint32_t job_id;
   uint64_t stamp;          /* VA or 0 */
   uint32_t stamp_value;
   uint64_t ts_start, ts_end;   /* Timestamp ops when non-zero */
   uint64_t wait_stamp;     /* Barrier op before Start when non-zero */
   uint32_t wait_value;
};

/* A run job with script [Barrier] [Timestamp] Start WaitForIdle [Timestamp]
 * Finalize and a zeroed payload; returns the header VA. */
uint64_t t_run_job(struct t_fw *t, const struct t_job_opts *o);
/* A Barrier job. */
uint64_t t_barrier_job(struct t_fw *t, unsigned vm_slot, unsigned event_slot,
                       uint64_t stamp, uint32_t stamp_value,
                       uint64_t wait_stamp, uint32_t wait_value);

uint32_t t_load32(struct t_fw *t, uint64_t kva);

#endif
