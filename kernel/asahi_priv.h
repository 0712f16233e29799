/* SPDX-License-Identifier: MIT */
/*
 * Internal structures of the asahi driver. One big device lock (dev->lock)
 * protects every driver object, as the driver is small and the firmware
 * never calls back into it; fences signal under it and wake everyone
 * waiting on dev->fence_cv.
 */
#ifndef ASAHI_PRIV_H
#define ASAHI_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cmdstream/agx_fw_pack.h"
#include "drm-uapi/asahi_drm.h"
#include "hw/hw_device.h"
#include "hw/hw_fw.h"
#include "hw/hw_uat.h"
#include "kernel/asahi.h"
#include "kernel/os/os.h"

#define ASAHI_PAGE HW_PAGE_SIZE
#define ASAHI_PAGE_MASK (HW_PAGE_SIZE - 1)

/* uAPI window and limits (GET_PARAMS). Page 0 stays unmapped so a NULL
 * GPU pointer faults. */
#define ASAHI_VM_START 0x4000ull
#define ASAHI_VM_END HW_UAT_USER_END
#define ASAHI_VM_KERNEL_MIN_SIZE (256ull << 20)
#define ASAHI_MAX_COMMANDS 64
#define ASAHI_MAX_ATTACHMENTS 16
#define ASAHI_MAX_SYNCS 256
#define ASAHI_MAX_BINDS 4096
#define ASAHI_MAX_GEM_SIZE (1ull << 32)

/* Kernel half of the GPU address space (slot 0's TTB1, shared by all). */
#define ASAHI_KHEAP_VA 0xffffffa000000000ull
#define ASAHI_KHEAP_SIZE (16ull << 20)
#define ASAHI_KHEAP_GRAN 256u
#define ASAHI_KOBJ_VA 0xffffffc000000000ull   /* GEM_BIND_OBJECT mappings */
#define ASAHI_KOBJ_END 0xffffffe000000000ull

#define ASAHI_RING_ENTRIES 256
#define ASAHI_WQ_ENTRIES 128
#define ASAHI_TVB_INITIAL (1u << 20)
#define ASAHI_TVB_DEFAULT_MAX (64u << 20)
#define ASAHI_TILEMAP_MAX (4u << 20)
#define ASAHI_GROW_PENDING 64
#define ASAHI_TILEMAP_BYTES_PER_TILE 64u   /* per 32x32 tile and layer */

/* Job memory: header, script and payload in one kernel-heap block. */
#define ASAHI_SCRIPT_MAX 128
#define ASAHI_JOB_BLOCK (AGX_FW_JOB_HEADER_LENGTH + ASAHI_SCRIPT_MAX + 256)

struct asahi_idr {
   void **slots;
   uint32_t cap;
};

int asahi_idr_alloc(struct asahi_idr *idr, void *p, uint32_t *id);
void *asahi_idr_find(struct asahi_idr *idr, uint32_t id);
void *asahi_idr_remove(struct asahi_idr *idr, uint32_t id);
/* Iterates over used slots: *id starts at 0; returns NULL at the end. */
void *asahi_idr_next(struct asahi_idr *idr, uint32_t *id);
void asahi_idr_fini(struct asahi_idr *idr);

struct asahi_fence {
   unsigned refcnt;
   bool signaled;
   int error;
   /* A merged fence (a sync-file merge, a dma-buf's reservation) signals
    * once every one of its deps has; deps are never merged fences
    * themselves (asahi_fence_merge flattens), so one pass over the
    * pending list per signal settles everything. */
   struct asahi_fence **deps;
   unsigned ndeps;
   struct asahi_fence *next_merged;   /* dev->merged, while unsignalled */
};

struct asahi_point {
   uint64_t value;
   struct asahi_fence *fence;
};

struct asahi_syncobj {
   unsigned refcnt;
   struct asahi_fence *fence;    /* binary payload, NULL when reset */
   uint64_t tl_base;             /* every timeline point <= base signaled */
   struct asahi_point *pts;      /* points > base, ascending */
   unsigned npts, cap;
   int export_fd;
   ino_t export_ino;
   struct asahi_syncobj *next_export;
};

struct asahi_bo {
   unsigned refcnt;
   uint64_t size;        /* page multiple */
   uint64_t pa;          /* physically contiguous */
   uint32_t flags;
   /* VM_PRIVATE: the owner VM's serial (0: shared). Not a reference, as
    * in Linux, where a private object shares its VM's reservation object
    * but does not keep the VM alive: the VM's mappings hold references on
    * their objects, so a reference back would be a cycle that nothing
    * frees once userspace has closed both. */
   uint64_t vm_serial;
   int export_fd;
   ino_t export_ino;
   /* The dma-buf's reservation, as DMA_BUF_IOCTL_IMPORT_SYNC_FILE filled
    * it (the upstream uAPI has no implicit sync of its own): what writers
    * and what readers left behind. NULL = nothing pending. */
   struct asahi_fence *resv_write, *resv_read;
   struct asahi_bo *prev, *next;   /* device list */
};

struct asahi_mapping {
   uint64_t va, size;
   struct asahi_bo *bo;
   uint64_t offset;
   bool single;
   unsigned prot;        /* HW_UAT_* */
};

struct asahi_kchunk {
   uint64_t pa, npages;
};

struct asahi_vm {
   unsigned refcnt;
   uint64_t serial;      /* unique over the device's life, never reused */
   unsigned slot;
   uint64_t ttb;
   uint64_t kstart, kend, knext;
   struct asahi_mapping *maps;
   unsigned nmaps, cap;
   /* freed pieces of the kernel range, reused first-fit */
   struct asahi_kchunk *kfree;   /* {va, size} here */
   unsigned nkfree, kfcap;
};

struct asahi_bind_obj {
   struct asahi_bo *bo;
   uint64_t offset, range;
   uint64_t kva;
};

struct asahi_submission;

struct asahi_job {
   struct asahi_job *next;
   struct asahi_submission *sub;
   struct asahi_wq *wq;
   uint64_t va;
   uint32_t stamp_value;
   uint32_t id;
};

struct asahi_wq {
   unsigned pipe;
   uint64_t va;
   uint8_t *host;
   uint64_t ring_va;
   uint64_t *ring;
   uint64_t stamp_va;
   uint32_t *stamp;
   uint32_t last_stamp;      /* value of the last job queued */
   uint32_t seen;            /* stamp snapshot for completion */
   bool announced;
   struct asahi_job *head, *tail;
   unsigned inflight;
};

struct asahi_tvb {
   struct asahi_kchunk *chunks;  /* {pa, npages} backing heap and tilemap */
   uint64_t *chunk_va;
   unsigned nchunks, cap;
   uint64_t va;          /* in the VM's kernel range */
   uint64_t reserved;    /* VA reserved (the cap) */
   uint64_t size;        /* mapped */
   uint64_t tilemap_va, tilemap_size;
   uint32_t counter;
   uint32_t frame;       /* render passes binned into this heap so far */
   unsigned buffer_slot;
};

struct asahi_queue {
   struct asahi_dev *dev;
   struct asahi_file *file;
   uint32_t id;
   struct asahi_vm *vm;
   unsigned prio;            /* firmware priority: 0 highest */
   uint64_t usc_base;
   unsigned event_slot;
   struct asahi_wq wq[HW_FW_PIPES];
   struct asahi_submission *wait_head, *wait_tail;
   unsigned inflight;        /* submissions pushed, not completed */
   struct asahi_tvb tvb;
   bool destroyed;
   struct asahi_queue *prev, *next;
};

struct asahi_cmd {
   uint16_t type;
   uint16_t vdm_barrier, cdm_barrier;
   union {
      struct drm_asahi_cmd_render render;
      struct drm_asahi_cmd_compute compute;
   };
   /* timestamp addresses resolved to kernel VAs (0: none) */
   uint64_t ts[4];
};

struct asahi_submission {
   struct asahi_submission *next;
   struct asahi_queue *q;
   struct asahi_fence **in;
   unsigned nin;
   struct asahi_fence *done;
   struct asahi_cmd *cmds;
   unsigned ncmds;
   unsigned jobs_left;
   int error;
   uint64_t *blocks;         /* kernel heap blocks (VA), freed at the end */
   unsigned nblocks;
};

struct asahi_dev {
   struct hw_device *hw;
   struct asahi_config cfg;
   struct os_mutex lock;
   struct os_cond fence_cv;

   /* page tables */
   uint64_t ttbat, kttb;
   struct asahi_vm *slots[HW_UAT_NUM_CONTEXTS];
   uint64_t vm_serial;       /* the last one given out */

   /* kernel heap */
   uint64_t kheap_pa;
   uint8_t *kheap_host;
   uint8_t *kheap_bitmap;    /* one byte per granule: 0 free, 1 start, 2 cont */
   uint32_t kheap_grans, kheap_hint;
   uint64_t kobj_next;

   /* firmware */
   uint64_t initdata, pipe_rings, devctrl_ring, event_ring, event_stamps, status;
   uint32_t event_rd;
   /* Grow TVB events seen but not yet handled (vm slot << 8 | buffer
    * slot). Handling one sends a device-control message and waits for it,
    * which drains events again, so it cannot happen inside the event loop. */
   uint16_t grow_pending[ASAHI_GROW_PENDING];
   unsigned grow_head, grow_count;
   bool fw_up;

   struct os_thread event_thread, sched_thread;
   int stop_fd;              /* eventfd: wakes the event thread to exit */
   bool stopping;
   bool kicking;             /* asahi_sched_kick() is not reentrant */

   uint32_t next_job_id;
   uint8_t buffer_slots[256];
   uint8_t event_slot_use[HW_FW_EVENT_SLOTS];

   struct asahi_bo *bos;
   struct asahi_queue *queues;
   struct asahi_syncobj *sync_exports;
   struct asahi_sync_file *sync_files;
   struct asahi_fence *merged;

   asahi_job_hook_fn hook;
   void *hook_user;
   struct asahi_stats stats;
};

struct asahi_file {
   struct asahi_dev *dev;
   struct asahi_idr gems, syncobjs, vms, queues, objects;
};

/* asahi_fw.c: kernel heap, boot, rings */
int asahi_fw_init(struct asahi_dev *dev);
void asahi_fw_fini(struct asahi_dev *dev);
uint64_t asahi_kalloc(struct asahi_dev *dev, uint64_t size);
void asahi_kfree(struct asahi_dev *dev, uint64_t va);
void *asahi_kva_host(struct asahi_dev *dev, uint64_t va);
int asahi_fw_devctrl(struct asahi_dev *dev, enum agx_fw_device_control type,
                     unsigned vm_slot, unsigned buffer_slot, uint32_t counter,
                     uint64_t address);
int asahi_fw_tlbi(struct asahi_dev *dev, unsigned vm_slot);
int asahi_fw_run_queue(struct asahi_dev *dev, struct asahi_queue *q,
                       struct asahi_wq *wq);
void asahi_fw_drain_events(struct asahi_dev *dev);
/* Waits up to timeout_ms for the model's interrupt and clears it. Only
 * under dev->lock: the event thread reads the interrupt under it too, so a
 * waiter holding the lock cannot lose its wakeup to that thread. The
 * caller must then drain events (asahi_fw_drain_events) before it drops
 * the lock: the interrupt it cleared may announce any event, and the
 * event thread, finding no interrupt, would not look before its guard
 * timeout. */
void asahi_fw_wait_irq(struct asahi_dev *dev, int timeout_ms);

/* asahi_gem.c */
void asahi_bo_put(struct asahi_dev *dev, struct asahi_bo *bo);
struct asahi_bo *asahi_bo_lookup(struct asahi_file *f, uint32_t handle);
void asahi_bind_obj_free(struct asahi_dev *dev, struct asahi_bind_obj *o);

int asahi_export_fd(int *fdp, ino_t *ino, const char *name, uint32_t flags);
int asahi_fd_ino(int fd, ino_t *ino);

/* asahi_syncfile.c: sync files (a fence as a pollable fd) and the
 * dma-buf/sync-file ioctls. All with dev->lock held. */
struct asahi_sync_file;
int asahi_sync_file_export(struct asahi_dev *dev, struct asahi_fence *f);
/* The fence behind a sync-file fd (referenced), or NULL: not one of ours. */
struct asahi_fence *asahi_sync_file_fence(struct asahi_dev *dev, int fd);
void asahi_sync_files_notify(struct asahi_dev *dev);
void asahi_sync_files_fini(struct asahi_dev *dev);

/* asahi_vm.c */
void asahi_vm_put(struct asahi_dev *dev, struct asahi_vm *vm);
uint64_t asahi_vm_kreserve(struct asahi_vm *vm, uint64_t size);
void asahi_vm_kunreserve(struct asahi_vm *vm, uint64_t va, uint64_t size);
int asahi_vm_kmap(struct asahi_dev *dev, struct asahi_vm *vm, uint64_t va,
                  uint64_t size, struct asahi_kchunk *out);

/* asahi_sync.c */
struct asahi_fence *asahi_fence_create(void);
struct asahi_fence *asahi_fence_get(struct asahi_fence *f);
void asahi_fence_put(struct asahi_fence *f);
void asahi_fence_signal(struct asahi_dev *dev, struct asahi_fence *f, int error);
/* A fence that signals once all of fences[0..n) have (NULL entries are
 * skipped); a signalled stub when none is pending. Caller holds dev->lock. */
struct asahi_fence *asahi_fence_merge(struct asahi_dev *dev,
                                      struct asahi_fence *const *fences, unsigned n);
void asahi_fence_fini_merged(struct asahi_dev *dev);
struct asahi_syncobj *asahi_syncobj_lookup(struct asahi_file *f, uint32_t h);
/* The fence for a point (0: binary); NULL when none submitted. */
int asahi_syncobj_find_fence(struct asahi_syncobj *s, uint64_t point,
                             struct asahi_fence **out);
int asahi_syncobj_add_point(struct asahi_syncobj *s, uint64_t point,
                            struct asahi_fence *f);
void asahi_syncobj_replace(struct asahi_syncobj *s, struct asahi_fence *f);
void asahi_syncobj_put(struct asahi_dev *dev, struct asahi_syncobj *s);

/* asahi_queue.c */
void asahi_queue_release(struct asahi_dev *dev, struct asahi_queue *q);
void asahi_queue_reap(struct asahi_dev *dev, struct asahi_queue *q);
int64_t asahi_tvb_grow(struct asahi_dev *dev, struct asahi_queue *q);
int asahi_tilemap_ensure(struct asahi_dev *dev, struct asahi_queue *q,
                         uint64_t bytes);

/* asahi_submit.c */
void asahi_sched_kick(struct asahi_dev *dev);
void asahi_job_snapshot(struct asahi_dev *dev);
void asahi_job_complete_flags(struct asahi_dev *dev);
void asahi_job_error(struct asahi_dev *dev, const uint8_t *msg);
void asahi_fail_all_pending(struct asahi_dev *dev);
void *asahi_sched_thread(void *arg);

/* asahi_fault.c */
void asahi_log_fault(struct asahi_dev *dev, const uint8_t *msg,
                     const char *what, struct asahi_queue *q);

/* ioctl handlers: kernel copies of the argument struct */
int asahi_ioctl_get_params(struct asahi_file *f, void *data);
int asahi_ioctl_get_time(struct asahi_file *f, void *data);
int asahi_ioctl_vm_create(struct asahi_file *f, void *data);
int asahi_ioctl_vm_destroy(struct asahi_file *f, void *data);
int asahi_ioctl_vm_bind(struct asahi_file *f, void *data);
int asahi_ioctl_gem_create(struct asahi_file *f, void *data);
int asahi_ioctl_gem_mmap_offset(struct asahi_file *f, void *data);
int asahi_ioctl_gem_bind_object(struct asahi_file *f, void *data);
int asahi_ioctl_queue_create(struct asahi_file *f, void *data);
int asahi_ioctl_queue_destroy(struct asahi_file *f, void *data);
int asahi_ioctl_submit(struct asahi_file *f, void *data);
int asahi_ioctl_gem_close(struct asahi_file *f, void *data);
int asahi_ioctl_prime_handle_to_fd(struct asahi_file *f, void *data);
int asahi_ioctl_prime_fd_to_handle(struct asahi_file *f, void *data);
int asahi_ioctl_syncobj_create(struct asahi_file *f, void *data);
int asahi_ioctl_syncobj_destroy(struct asahi_file *f, void *data);
int asahi_ioctl_syncobj_handle_to_fd(struct asahi_file *f, void *data);
int asahi_ioctl_syncobj_fd_to_handle(struct asahi_file *f, void *data);
int asahi_ioctl_syncobj_wait(struct asahi_file *f, void *data);
int asahi_ioctl_syncobj_timeline_wait(struct asahi_file *f, void *data);
int asahi_ioctl_syncobj_reset(struct asahi_file *f, void *data);
int asahi_ioctl_syncobj_signal(struct asahi_file *f, void *data);
int asahi_ioctl_syncobj_timeline_signal(struct asahi_file *f, void *data);
int asahi_ioctl_syncobj_query(struct asahi_file *f, void *data);
int asahi_ioctl_syncobj_transfer(struct asahi_file *f, void *data);

/* per-file teardown helpers */
void asahi_file_release_syncobjs(struct asahi_file *f);
void asahi_file_release_gems(struct asahi_file *f);

static inline bool
asahi_aligned(uint64_t v)
{
   return (v & ASAHI_PAGE_MASK) == 0;
}

#endif
