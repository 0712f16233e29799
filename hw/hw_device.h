/* SPDX-License-Identifier: MIT */
/*
 * The GPU model as a device: physical memory, identity, the few registers
 * the host touches (FAULT_INFO, the TTBAT base), the modelled GPU clock,
 * the doorbell and the interrupt.
 *
 * CONTRACT
 * - Physical memory is one shared anonymous mapping of cfg.mem_size bytes
 *   (sparse: untouched pages cost nothing; not a file, so a file-size
 *   limit does not apply to it), made once and never moved. Physical
 *   address PA lives at arena offset PA - HW_PHYS_BASE, host address
 *   hw_device_mem_host(dev) + (PA - HW_PHYS_BASE).
 *   hw_device_mem_map() gives userspace (the kernel shim's mmap) another
 *   mapping of the very pages the GPU sees.
 * - hw_phys_alloc() hands out zeroed, contiguous 16 KiB pages and is thread
 *   safe; freeing gives the memory back to the host (hole punch).
 * - GPU time only advances by the modelled duration of work, so the same
 *   submission stream yields the same timestamps on every run.
 * - Nothing here aborts on bad input: functions return errors (-errno or 0
 *   addresses) and hw_device_last_error() explains the latest one.
 * The firmware (hw_fw.h) and the UAT helpers (hw_uat.h) build on this.
 */
#ifndef HW_DEVICE_H
#define HW_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/hw_mmu.h"

/* Where the arena sits in the GPU's physical address space (M1 DRAM
 * starts here too); PA 0 is therefore never valid memory. */
#define HW_PHYS_BASE 0x800000000ull
#define HW_DEFAULT_MEM_SIZE (4ull << 30)
#define HW_MAX_MEM_SIZE (64ull << 30)

/* M1 (G13G) figures: facts/agx-architecture.md sections 2 and 7. */
#define HW_CORE_CLOCK_HZ 1278000000ull
#define HW_TIMESTAMP_HZ 24000000ull

struct hw_device;

/* Host interrupt: called on the firmware thread after it posted events.
 * Must not block and must not call back into the firmware. */
typedef void (*hw_irq_fn)(void *data);

struct hw_device_config {
   uint64_t mem_size;        /* bytes, multiple of 16 KiB; 0: 4 GiB */
   bool soft_faults;         /* DRM_ASAHI_FEATURE_SOFT_FAULTS */
   hw_irq_fn irq;            /* optional */
   void *irq_data;
   uint32_t job_timeout_ms;  /* wall-clock watchdog per job; 0: 60000 */
   uint64_t job_cycle_budget;/* modelled cycles per job; 0: 10 s worth */
};

struct hw_device_info {
   uint32_t generation;      /* 13 */
   uint32_t variant;         /* 'G' */
   uint32_t revision;        /* BCD, 0x00 = A0 */
   uint32_t chip_id;         /* 0x8103 */
   uint32_t num_dies;
   uint32_t num_clusters;
   uint32_t num_cores_per_cluster;
   uint32_t core_mask;       /* per cluster */
   uint32_t max_frequency_khz;
   uint64_t timestamp_frequency_hz;
   uint32_t num_vm_slots;    /* UAT contexts */
   uint32_t page_size;
};

struct hw_device *hw_device_create(const struct hw_device_config *cfg);
/* Stops the firmware (pending jobs are abandoned) and frees everything. */
void hw_device_destroy(struct hw_device *dev);

const struct hw_device_info *hw_device_info(const struct hw_device *dev);
const char *hw_device_last_error(const struct hw_device *dev);
/*
 * The message of the latest failed job with this ID (one of the last 16
 * remembered) copied into buf; false when none is remembered. A job error
 * event names its job: the kernel explains it with this, since
 * hw_device_last_error() may already describe a later job (a render's
 * fragment job fails right after its vertex job).
 */
bool hw_device_job_error(struct hw_device *dev, uint32_t job_id, char *buf, size_t size);

/*
 * A new mapping of arena bytes [off, off + len) (off a multiple of the host
 * page size), with mmap()'s addr, prot (READ/WRITE/EXEC) and placement
 * flags (MAP_FIXED, MAP_FIXED_NOREPLACE; other flags are ignored). flags
 * must say MAP_SHARED: a private copy would not be GPU memory (EINVAL).
 * Returns the address, or MAP_FAILED with errno set. munmap() it as any
 * mapping; it survives the device (the pages stay while it is mapped).
 */
void *hw_device_mem_map(struct hw_device *dev, uint64_t off, size_t len,
                        void *addr, int prot, int flags);
uint8_t *hw_device_mem_host(const struct hw_device *dev);
uint64_t hw_device_mem_size(const struct hw_device *dev);

/* Host pointer for [pa, pa + size), or NULL if it leaves the arena. */
void *hw_phys_to_host(struct hw_device *dev, uint64_t pa, uint64_t size);

/* npages contiguous zeroed pages: their PA, or 0 when memory is short. */
uint64_t hw_phys_alloc(struct hw_device *dev, uint64_t npages);
/* Returns -EINVAL (and frees nothing) unless all pages are allocated. */
int hw_phys_free(struct hw_device *dev, uint64_t pa, uint64_t npages);
uint64_t hw_phys_pages_free(struct hw_device *dev);

/* FAULT_INFO: the first fault since the last clear (packed "Fault Info"). */
uint64_t hw_device_fault_info(struct hw_device *dev);
void hw_device_clear_fault_info(struct hw_device *dev);

bool hw_device_soft_faults(const struct hw_device *dev);

/* TLB generation: every bump invalidates all units' cached translations. */
uint32_t hw_device_tlb_generation(struct hw_device *dev);
void hw_device_tlb_invalidate(struct hw_device *dev);

/* The modelled clock. cycles = GPU core cycles at HW_CORE_CLOCK_HZ. */
uint64_t hw_device_gpu_cycles(struct hw_device *dev);
uint64_t hw_device_gpu_ticks(struct hw_device *dev);   /* 24 MHz ticks */
uint64_t hw_device_gpu_time_ns(struct hw_device *dev);
void hw_device_advance_cycles(struct hw_device *dev, uint64_t cycles);
/* Idles the clock forward to the next multiple of `multiple` cycles. */
void hw_device_align_cycles(struct hw_device *dev, uint64_t multiple);
/* 213 core cycles are exactly 4 ticks (1.278 GHz / 24 MHz = 53.25): the
 * smallest span where both clocks have an edge. */
#define HW_CYCLES_PER_4_TICKS 213u
uint64_t hw_cycles_to_ticks(uint64_t cycles);
uint64_t hw_ticks_to_ns(uint64_t ticks);

/* eventfd the firmware writes 1 to whenever it posts events (its counter
 * accumulates; read it to clear). Non-blocking. */
int hw_device_irq_fd(const struct hw_device *dev);

#endif
