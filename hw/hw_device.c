/* SPDX-License-Identifier: MIT */
/*
 * Device lifetime, identity, registers and the modelled clock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cmdstream/agx_fw_pack.h"
#include "hw/hw_priv.h"

_Static_assert((int)AGX_FAULT_UNIT_FW == (int)HW_UNIT_FW &&
                  (int)AGX_FAULT_UNIT_USC == (int)HW_UNIT_USC &&
                  (int)AGX_FAULT_UNIT_PBE == (int)HW_UNIT_PBE,
               "FAULT_INFO unit codes are enum hw_unit");
_Static_assert((int)AGX_UAT_FAULT_REASON_NO_ACCESS == (int)HW_FAULT_NO_ACCESS &&
                  (int)AGX_UAT_FAULT_REASON_READ_ONLY == (int)HW_FAULT_READ_ONLY,
               "FAULT_INFO reasons are enum hw_fault_reason");

void
hw_set_error(struct hw_device *dev, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   pthread_mutex_lock(&dev->lock);
   vsnprintf(dev->last_error, sizeof(dev->last_error), fmt, ap);
   pthread_mutex_unlock(&dev->lock);
   va_end(ap);
}

void
hw_set_job_error(struct hw_device *dev, uint32_t job_id, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   pthread_mutex_lock(&dev->lock);
   vsnprintf(dev->last_error, sizeof(dev->last_error), fmt, ap);
   unsigned i = dev->job_err_next++ % (sizeof(dev->job_err) / sizeof(dev->job_err[0]));
   dev->job_err[i].job_id = job_id;
   dev->job_err[i].used = true;
   snprintf(dev->job_err[i].msg, sizeof(dev->job_err[i].msg), "%s", dev->last_error);
   pthread_mutex_unlock(&dev->lock);
   va_end(ap);
}

const char *
hw_device_last_error(const struct hw_device *dev)
{
   return dev->last_error;
}

bool
hw_device_job_error(struct hw_device *dev, uint32_t job_id, char *buf, size_t size)
{
   const unsigned n = sizeof(dev->job_err) / sizeof(dev->job_err[0]);
   bool found = false;
   pthread_mutex_lock(&dev->lock);
   /* newest first: a job ID the kernel reused names its latest job */
   for (unsigned k = 1; k <= n && !found; k++) {
      unsigned i = (dev->job_err_next - k) % n;
      if (dev->job_err[i].used && dev->job_err[i].job_id == job_id) {
         snprintf(buf, size, "%s", dev->job_err[i].msg);
         found = true;
      }
   }
   pthread_mutex_unlock(&dev->lock);
   return found;
}

uint64_t
hw_now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct hw_device *
hw_device_create(const struct hw_device_config *cfg)
{
   struct hw_device *dev = calloc(1, sizeof(*dev));
   if (!dev)
      return NULL;
   if (cfg)
      dev->cfg = *cfg;
   if (!dev->cfg.mem_size)
      dev->cfg.mem_size = HW_DEFAULT_MEM_SIZE;
   /* The wall-clock watchdog only guards against work the interpreter
    * would take hours over (a shader that never ends); the deterministic
    * limit is the cycle budget. A model job may take seconds where the
    * GPU takes milliseconds, more on a loaded machine (glmark2's desktop
    * build scene: vertex jobs of ~12 ms of GPU time ran past 10 s at load
    * 10), so the watchdog must not be near real job times. */
   if (!dev->cfg.job_timeout_ms)
      dev->cfg.job_timeout_ms = 60000;
   if (!dev->cfg.job_cycle_budget)
      dev->cfg.job_cycle_budget = 10 * HW_CORE_CLOCK_HZ;
   dev->irq_fd = -1;
   pthread_mutex_init(&dev->lock, NULL);
   pthread_mutex_init(&dev->phys_lock, NULL);

   if (dev->cfg.mem_size % HW_PAGE_SIZE || dev->cfg.mem_size > HW_MAX_MEM_SIZE) {
      fprintf(stderr, "hw: memory size %#llx is not a multiple of 16 KiB "
              "up to 64 GiB\n", (unsigned long long)dev->cfg.mem_size);
      goto fail;
   }

   dev->mem_size = dev->cfg.mem_size;
   dev->npages = dev->mem_size >> HW_PAGE_SHIFT;
   dev->phys_free = dev->npages;
   dev->phys_bitmap = calloc((dev->npages + 63) / 64, sizeof(uint64_t));
   if (!dev->phys_bitmap)
      goto fail;

   /*
    * The arena is a shared anonymous mapping, not a file: a memfd would
    * have to be ftruncate()d to its size, and a file-size limit
    * (RLIMIT_FSIZE, `ulimit -f`) below it kills the process with SIGXFSZ
    * (or, grown in steps, would cap GPU memory at the file-size limit,
    * which a real GPU does not have). Shared anonymous memory is shmem
    * created at its full size without that check; MAP_NORESERVE keeps it
    * sparse (pages are backed on first touch, given back by MADV_REMOVE).
    * The mapping is made once and never moves, so executors may hold
    * pointers into it while jobs run. Userspace views of the same pages
    * are duplicates of it (hw_device_mem_map()).
    */
   void *m = mmap(NULL, dev->mem_size, PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
   if (m == MAP_FAILED) {
      fprintf(stderr, "hw: mapping the GPU memory arena (%llu MiB): %s\n",
              (unsigned long long)(dev->mem_size >> 20), strerror(errno));
      goto fail;
   }
   dev->mem = m;

   dev->irq_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
   if (dev->irq_fd < 0) {
      perror("hw: eventfd");
      goto fail;
   }

   dev->info = (struct hw_device_info){
      .generation = 13,
      .variant = 'G',
      .revision = 0x00,
      .chip_id = 0x8103,
      .num_dies = 1,
      .num_clusters = 1,
      .num_cores_per_cluster = 8,
      .core_mask = 0xff,
      .max_frequency_khz = (uint32_t)(HW_CORE_CLOCK_HZ / 1000),
      .timestamp_frequency_hz = HW_TIMESTAMP_HZ,
      .num_vm_slots = 16,
      .page_size = (uint32_t)HW_PAGE_SIZE,
   };
   return dev;

fail:
   hw_device_destroy(dev);
   return NULL;
}

void
hw_device_destroy(struct hw_device *dev)
{
   if (!dev)
      return;
   hw_fw_shutdown(dev);
   if (dev->mem)
      munmap(dev->mem, dev->mem_size);
   if (dev->irq_fd >= 0)
      close(dev->irq_fd);
   free(dev->phys_bitmap);
   pthread_mutex_destroy(&dev->phys_lock);
   pthread_mutex_destroy(&dev->lock);
   free(dev);
}

const struct hw_device_info *
hw_device_info(const struct hw_device *dev)
{
   return &dev->info;
}

void *
hw_device_mem_map(struct hw_device *dev, uint64_t off, size_t len, void *addr,
                  int prot, int flags)
{
   const uint64_t host_page = (uint64_t)sysconf(_SC_PAGESIZE);
   if (!len || off % host_page || off > dev->mem_size || len > dev->mem_size - off ||
       (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)) ||
       (flags & MAP_TYPE) != MAP_SHARED) {
      /* MAP_PRIVATE would be a copy the GPU never sees: refused, as
       * drm_gem_shmem_mmap() refuses copy-on-write mappings. */
      errno = EINVAL;
      return MAP_FAILED;
   }
   /* The address range first, with mmap()'s own placement rules (hint,
    * MAP_FIXED, MAP_FIXED_NOREPLACE), as an inaccessible placeholder... */
   int place = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);
   void *r = mmap(addr, len, PROT_NONE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | place, -1, 0);
   if (r == MAP_FAILED)
      return MAP_FAILED;
   /* ...then replaced by a second mapping of the arena's pages: mremap()
    * with old_size 0 duplicates a shared mapping (documented in
    * mremap(2)) instead of moving it, so the arena stays where it is. */
   void *m = mremap(dev->mem + off, 0, len, MREMAP_MAYMOVE | MREMAP_FIXED, r);
   if (m == MAP_FAILED) {
      int e = errno;
      munmap(r, len);
      errno = e;
      return MAP_FAILED;
   }
   if (prot != (PROT_READ | PROT_WRITE) && mprotect(m, len, prot) < 0) {
      int e = errno;
      munmap(m, len);
      errno = e;
      return MAP_FAILED;
   }
   return m;
}

uint8_t *
hw_device_mem_host(const struct hw_device *dev)
{
   return dev->mem;
}

uint64_t
hw_device_mem_size(const struct hw_device *dev)
{
   return dev->mem_size;
}

void *
hw_phys_to_host(struct hw_device *dev, uint64_t pa, uint64_t size)
{
   if (pa < HW_PHYS_BASE)
      return NULL;
   uint64_t off = pa - HW_PHYS_BASE;
   if (off > dev->mem_size || size > dev->mem_size - off)
      return NULL;
   return dev->mem + off;
}

bool
hw_device_soft_faults(const struct hw_device *dev)
{
   return dev->cfg.soft_faults;
}

/* ------------------------------------------------------------ FAULT_INFO */

uint64_t
hw_fault_info_pack(const struct hw_fault *f)
{
   struct agx_fault_info fi = {
      .valid = true,
      .reason = (enum agx_uat_fault_reason)(f->reason & 7),
      .read = f->read,
      .level = f->level & 3,
      .unit = (enum agx_fault_unit)f->unit,
      .vm_slot = f->vm_slot & 0x3f,
      /* The register keeps VA bits 6..39 only. */
      .address = f->addr & 0xffffffffc0ull,
   };
   uint64_t v = 0;
   agx_fault_info_pack(&v, &fi);
   return v;
}

void
hw_latch_fault(struct hw_device *dev, const struct hw_fault *f)
{
   uint64_t expected = 0;
   atomic_compare_exchange_strong(&dev->fault_info, &expected,
                                  hw_fault_info_pack(f));
}

uint64_t
hw_device_fault_info(struct hw_device *dev)
{
   return atomic_load(&dev->fault_info);
}

void
hw_device_clear_fault_info(struct hw_device *dev)
{
   atomic_store(&dev->fault_info, 0);
}

/* ------------------------------------------------------------------ TLB */

uint32_t
hw_device_tlb_generation(struct hw_device *dev)
{
   return atomic_load_explicit(&dev->tlb_gen, memory_order_acquire);
}

void
hw_device_tlb_invalidate(struct hw_device *dev)
{
   atomic_fetch_add_explicit(&dev->tlb_gen, 1, memory_order_acq_rel);
}

/* ---------------------------------------------------------------- clock */

/* 24 MHz / 1.278 GHz = 4 / 213 exactly; split to stay exact without
 * overflow for any realistic cycle count. */
uint64_t
hw_cycles_to_ticks(uint64_t cycles)
{
   return cycles / 213 * 4 + cycles % 213 * 4 / 213;
}

/* One 24 MHz tick is 125/3 ns. */
uint64_t
hw_ticks_to_ns(uint64_t ticks)
{
   return ticks / 3 * 125 + ticks % 3 * 125 / 3;
}

uint64_t
hw_device_gpu_cycles(struct hw_device *dev)
{
   return atomic_load(&dev->cycles);
}

uint64_t
hw_device_gpu_ticks(struct hw_device *dev)
{
   return hw_cycles_to_ticks(hw_device_gpu_cycles(dev));
}

uint64_t
hw_device_gpu_time_ns(struct hw_device *dev)
{
   return hw_ticks_to_ns(hw_device_gpu_ticks(dev));
}

void
hw_device_advance_cycles(struct hw_device *dev, uint64_t cycles)
{
   atomic_fetch_add(&dev->cycles, cycles);
}

void
hw_device_align_cycles(struct hw_device *dev, uint64_t multiple)
{
   uint64_t c = atomic_load(&dev->cycles), want;
   do {
      want = (c + multiple - 1) / multiple * multiple;
   } while (want != c && !atomic_compare_exchange_weak(&dev->cycles, &c, want));
}

/* ------------------------------------------------------------ interrupt */

int
hw_device_irq_fd(const struct hw_device *dev)
{
   return dev->irq_fd;
}

void
hw_raise_irq(struct hw_device *dev)
{
   uint64_t one = 1;
   /* EAGAIN only when the counter is saturated: already signalled. */
   if (write(dev->irq_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
      perror("hw: interrupt eventfd");
   if (dev->cfg.irq)
      dev->cfg.irq(dev->cfg.irq_data);
}
