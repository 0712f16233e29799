/* SPDX-License-Identifier: MIT */
/*
 * Physical page allocator for the host (kernel) side: a bitmap over the
 * arena's 16 KiB pages, next-fit for contiguous runs.
 *
 * Freed pages are removed from the arena's shmem (MADV_REMOVE, a hole
 * punch): the host gets the memory back, every mapping of them reads
 * zeros, and they read as zero when handed out again, which is what
 * page-table code relies on (a fresh table must be all invalid entries).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "hw/hw_priv.h"

static bool
page_used(const struct hw_device *dev, uint64_t i)
{
   return dev->phys_bitmap[i / 64] >> (i % 64) & 1;
}

static void
set_pages(struct hw_device *dev, uint64_t first, uint64_t n, bool used)
{
   for (uint64_t i = first; i < first + n; i++) {
      if (used)
         dev->phys_bitmap[i / 64] |= 1ull << (i % 64);
      else
         dev->phys_bitmap[i / 64] &= ~(1ull << (i % 64));
   }
}

/* First run of n free pages in [from, to), or UINT64_MAX. */
static uint64_t
find_run(const struct hw_device *dev, uint64_t from, uint64_t to, uint64_t n)
{
   uint64_t run = 0;
   for (uint64_t i = from; i < to;) {
      /* Skip fully used words quickly. */
      if (i % 64 == 0 && run == 0 && dev->phys_bitmap[i / 64] == ~0ull) {
         i += 64;
         continue;
      }
      if (page_used(dev, i)) {
         run = 0;
      } else if (++run == n) {
         return i + 1 - n;
      }
      i++;
   }
   return UINT64_MAX;
}

uint64_t
hw_phys_alloc(struct hw_device *dev, uint64_t npages)
{
   if (npages == 0 || npages > dev->npages) {
      hw_set_error(dev, "phys_alloc: bad page count %llu",
                   (unsigned long long)npages);
      return 0;
   }
   pthread_mutex_lock(&dev->phys_lock);
   uint64_t first = UINT64_MAX;
   if (npages <= dev->phys_free) {
      first = find_run(dev, dev->phys_hint, dev->npages, npages);
      if (first == UINT64_MAX)
         first = find_run(dev, 0, dev->npages, npages);
   }
   if (first != UINT64_MAX) {
      set_pages(dev, first, npages, true);
      dev->phys_free -= npages;
      dev->phys_hint = first + npages;
      if (dev->phys_hint >= dev->npages)
         dev->phys_hint = 0;
   }
   pthread_mutex_unlock(&dev->phys_lock);
   if (first == UINT64_MAX) {
      hw_set_error(dev, "phys_alloc: no run of %llu free pages",
                   (unsigned long long)npages);
      return 0;
   }
   return HW_PHYS_BASE + (first << HW_PAGE_SHIFT);
}

int
hw_phys_free(struct hw_device *dev, uint64_t pa, uint64_t npages)
{
   if (pa < HW_PHYS_BASE || (pa - HW_PHYS_BASE) % HW_PAGE_SIZE || npages == 0)
      return -EINVAL;
   uint64_t first = (pa - HW_PHYS_BASE) >> HW_PAGE_SHIFT;
   if (first >= dev->npages || npages > dev->npages - first)
      return -EINVAL;

   pthread_mutex_lock(&dev->phys_lock);
   for (uint64_t i = first; i < first + npages; i++) {
      if (!page_used(dev, i)) {
         pthread_mutex_unlock(&dev->phys_lock);
         hw_set_error(dev, "phys_free: page %#llx is not allocated",
                      (unsigned long long)(HW_PHYS_BASE + (i << HW_PAGE_SHIFT)));
         return -EINVAL;
      }
   }
   off_t off = (off_t)(first << HW_PAGE_SHIFT);
   off_t len = (off_t)(npages << HW_PAGE_SHIFT);
   if (madvise(dev->mem + off, (size_t)len, MADV_REMOVE) < 0)
      memset(dev->mem + off, 0, (size_t)len);
   set_pages(dev, first, npages, false);
   dev->phys_free += npages;
   pthread_mutex_unlock(&dev->phys_lock);
   return 0;
}

uint64_t
hw_phys_pages_free(struct hw_device *dev)
{
   pthread_mutex_lock(&dev->phys_lock);
   uint64_t n = dev->phys_free;
   pthread_mutex_unlock(&dev->phys_lock);
   return n;
}
