/* SPDX-License-Identifier: MIT */
/*
 * UAT page tables: kernel-side construction and the model's walker.
 *
 * Both sides go through the generated "UAT PTE" / "UAT Context" code, so
 * the bit layout lives only in cmdstream/agx_fw.xml. Entries are read and
 * written as single 64-bit atomics: the walker may run on a unit's thread
 * while the kernel edits another part of the same table.
 */
#include <errno.h>
#include <string.h>

#include "cmdstream/agx_fw_pack.h"
#include "hw/hw_priv.h"
#include "hw/hw_uat.h"

#define ENTRIES_PER_TABLE (HW_PAGE_SIZE / 8)   /* 2048 */
#define L1_SHIFT 36
#define L2_SHIFT 25
#define L3_SHIFT 14

static unsigned
level_index(uint64_t va, unsigned level)
{
   switch (level) {
   case 1: return (unsigned)(va >> L1_SHIFT) & 7;
   case 2: return (unsigned)(va >> L2_SHIFT) & 0x7ff;
   default: return (unsigned)(va >> L3_SHIFT) & 0x7ff;
   }
}

static uint64_t *
entry_ptr(struct hw_device *dev, uint64_t table_pa, unsigned index)
{
   uint64_t *t = hw_phys_to_host(dev, table_pa, HW_PAGE_SIZE);
   return t ? &t[index] : NULL;
}

static uint64_t
load_entry(const uint64_t *p)
{
   return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void
store_entry(uint64_t *p, uint64_t v)
{
   __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static uint64_t
table_entry(uint64_t table_pa)
{
   uint64_t v = 0;
   agx_pack(&v, UAT_PTE, e) {
      e.valid = true;
      e.table = true;
      e.access_flag = true;
      e.output_address = table_pa;
   }
   return v;
}

static bool
table_pa_ok(struct hw_device *dev, uint64_t pa)
{
   return pa % HW_PAGE_SIZE == 0 && hw_phys_to_host(dev, pa, HW_PAGE_SIZE);
}

uint64_t
hw_uat_table_alloc(struct hw_device *dev)
{
   return hw_phys_alloc(dev, 1);
}

/* The L3 entry for va, creating missing tables when `create`. NULL when a
 * table is missing (and !create), on allocation failure or bad tables. */
static uint64_t *
l3_entry(struct hw_device *dev, uint64_t ttb, uint64_t va, bool create,
         int *err)
{
   uint64_t table = ttb;
   for (unsigned level = 1; level < 3; level++) {
      uint64_t *p = entry_ptr(dev, table, level_index(va, level));
      if (!p) {
         *err = -EINVAL;
         return NULL;
      }
      struct agx_uat_pte e;
      uint64_t raw = load_entry(p);
      agx_uat_pte_unpack(&raw, &e);
      if (!e.valid) {
         if (!create) {
            *err = 0;
            return NULL;
         }
         uint64_t t = hw_phys_alloc(dev, 1);
         if (!t) {
            *err = -ENOMEM;
            return NULL;
         }
         store_entry(p, table_entry(t));
         table = t;
      } else if (!e.table || !table_pa_ok(dev, e.output_address)) {
         hw_set_error(dev, "uat: level %u entry for %#llx is not a table",
                      level, (unsigned long long)va);
         *err = -EINVAL;
         return NULL;
      } else {
         table = e.output_address;
      }
   }
   uint64_t *p = entry_ptr(dev, table, level_index(va, 3));
   *err = p ? 0 : -EINVAL;
   return p;
}

/* The range must stay inside one half and not wrap. */
static bool
range_ok(uint64_t va, uint64_t size)
{
   if (va < HW_UAT_USER_END)
      return size <= HW_UAT_USER_END - va;
   if (va >= HW_UAT_KERNEL_START)
      return size - 1 <= ~va;
   return false;
}

int
hw_uat_map(struct hw_device *dev, uint64_t ttb, uint64_t va, uint64_t pa,
           uint64_t size, unsigned prot)
{
   if (!size || va % HW_PAGE_SIZE || pa % HW_PAGE_SIZE || size % HW_PAGE_SIZE ||
       !range_ok(va, size) || !hw_phys_to_host(dev, pa, size) ||
       !table_pa_ok(dev, ttb) || (prot & ~(HW_UAT_READ | HW_UAT_WRITE))) {
      hw_set_error(dev, "uat_map: bad arguments va %#llx pa %#llx size %#llx "
                   "prot %#x", (unsigned long long)va, (unsigned long long)pa,
                   (unsigned long long)size, prot);
      return -EINVAL;
   }
   uint64_t page = 0;
   agx_pack(&page, UAT_PTE, e) {
      e.valid = true;
      e.table = true;    /* "page" at L3 */
      e.access_flag = true;
      e.gpu_read = prot & HW_UAT_READ;
      e.gpu_write = prot & HW_UAT_WRITE;
   }
   for (uint64_t off = 0; off < size; off += HW_PAGE_SIZE) {
      int err;
      uint64_t *p = l3_entry(dev, ttb, va + off, true, &err);
      if (!p)
         return err;
      struct agx_uat_pte e;
      agx_uat_pte_unpack(&page, &e);
      e.output_address = pa + off;
      uint64_t v = 0;
      agx_uat_pte_pack(&v, &e);
      store_entry(p, v);
   }
   return 0;
}

static bool
table_empty(struct hw_device *dev, uint64_t table)
{
   const uint64_t *t = hw_phys_to_host(dev, table, HW_PAGE_SIZE);
   for (unsigned i = 0; i < ENTRIES_PER_TABLE; i++)
      if (load_entry(&t[i]))
         return false;
   return true;
}

/* Table PA an L1/L2 entry points to, or 0. */
static uint64_t
next_table(struct hw_device *dev, const uint64_t *p)
{
   struct agx_uat_pte e;
   uint64_t raw = load_entry(p);
   agx_uat_pte_unpack(&raw, &e);
   if (!e.valid || !e.table || !table_pa_ok(dev, e.output_address))
      return 0;
   return e.output_address;
}

int
hw_uat_unmap(struct hw_device *dev, uint64_t ttb, uint64_t va, uint64_t size)
{
   if (!size || va % HW_PAGE_SIZE || size % HW_PAGE_SIZE ||
       !range_ok(va, size) || !table_pa_ok(dev, ttb)) {
      hw_set_error(dev, "uat_unmap: bad arguments va %#llx size %#llx",
                   (unsigned long long)va, (unsigned long long)size);
      return -EINVAL;
   }
   /* Counted in pages so a range ending at the top of the kernel half
    * (where va + size wraps to 0) needs no special case. */
   uint64_t remaining = size >> HW_PAGE_SHIFT;
   uint64_t cur = va;
   while (remaining) {
      uint64_t *p1 = entry_ptr(dev, ttb, level_index(cur, 1));
      uint64_t l2 = next_table(dev, p1);
      uint64_t n1 = ((1ull << L1_SHIFT) - (cur & ((1ull << L1_SHIFT) - 1))) >> HW_PAGE_SHIFT;
      if (n1 > remaining)
         n1 = remaining;
      if (l2) {
         uint64_t c2 = cur, r2 = n1;
         while (r2) {
            uint64_t *p2 = entry_ptr(dev, l2, level_index(c2, 2));
            uint64_t l3 = next_table(dev, p2);
            uint64_t n2 = ((1ull << L2_SHIFT) - (c2 & ((1ull << L2_SHIFT) - 1))) >> HW_PAGE_SHIFT;
            if (n2 > r2)
               n2 = r2;
            if (l3) {
               for (uint64_t i = 0; i < n2; i++)
                  store_entry(entry_ptr(dev, l3, level_index(c2 + i * HW_PAGE_SIZE, 3)), 0);
               if (table_empty(dev, l3)) {
                  store_entry(p2, 0);
                  hw_phys_free(dev, l3, 1);
               }
            }
            c2 += n2 * HW_PAGE_SIZE;
            r2 -= n2;
         }
         if (table_empty(dev, l2)) {
            store_entry(p1, 0);
            hw_phys_free(dev, l2, 1);
         }
      }
      cur += n1 * HW_PAGE_SIZE;
      remaining -= n1;
   }
   return 0;
}

void
hw_uat_destroy(struct hw_device *dev, uint64_t ttb)
{
   if (!table_pa_ok(dev, ttb))
      return;
   for (unsigned i = 0; i < 8; i++) {
      uint64_t l2 = next_table(dev, entry_ptr(dev, ttb, i));
      if (!l2)
         continue;
      for (unsigned j = 0; j < ENTRIES_PER_TABLE; j++) {
         uint64_t l3 = next_table(dev, entry_ptr(dev, l2, j));
         if (l3)
            hw_phys_free(dev, l3, 1);
      }
      hw_phys_free(dev, l2, 1);
   }
   hw_phys_free(dev, ttb, 1);
}

/* --------------------------------------------------------------- TTBAT */

int
hw_uat_set_ttbat(struct hw_device *dev, uint64_t ttbat_pa)
{
   if (!table_pa_ok(dev, ttbat_pa)) {
      hw_set_error(dev, "uat: TTBAT %#llx is not a page in GPU memory",
                   (unsigned long long)ttbat_pa);
      return -EINVAL;
   }
   atomic_store(&dev->ttbat, ttbat_pa);
   return 0;
}

uint64_t
hw_uat_ttbat(struct hw_device *dev)
{
   return atomic_load(&dev->ttbat);
}

int
hw_uat_set_context(struct hw_device *dev, unsigned slot, uint64_t ttb0,
                   uint64_t ttb1)
{
   uint64_t ttbat = hw_uat_ttbat(dev);
   if (!ttbat || slot >= HW_UAT_NUM_CONTEXTS ||
       (ttb0 && !table_pa_ok(dev, ttb0)) || (ttb1 && !table_pa_ok(dev, ttb1))) {
      hw_set_error(dev, "uat: bad context %u (ttbat %#llx, ttb0 %#llx, ttb1 %#llx)",
                   slot, (unsigned long long)ttbat, (unsigned long long)ttb0,
                   (unsigned long long)ttb1);
      return -EINVAL;
   }
   uint64_t w[2] = { 0, 0 };
   agx_pack(w, UAT_CONTEXT, c) {
      c.ttb0_valid = ttb0 != 0;
      c.ttb0 = ttb0;
      c.ttb1_valid = ttb1 != 0;
      c.ttb1 = ttb1;
   }
   uint64_t *p = hw_phys_to_host(dev, ttbat + slot * AGX_UAT_CONTEXT_LENGTH,
                                 AGX_UAT_CONTEXT_LENGTH);
   store_entry(&p[0], w[0]);
   store_entry(&p[1], w[1]);
   return 0;
}

/* -------------------------------------------------------------- walker */

static void
walk_fail(struct hw_uat_walk *out, unsigned reason, unsigned level)
{
   out->ok = false;
   out->reason = (uint8_t)reason;
   out->level = (uint8_t)level;
}

void
hw_uat_walk(struct hw_device *dev, unsigned slot, uint64_t va,
            struct hw_uat_walk *out)
{
   memset(out, 0, sizeof(*out));
   uint64_t ttbat = hw_uat_ttbat(dev);
   bool kernel = va >= HW_UAT_KERNEL_START;
   if (!ttbat || slot >= HW_UAT_NUM_CONTEXTS ||
       (!kernel && va >= HW_UAT_USER_END)) {
      walk_fail(out, HW_FAULT_UNMAPPED, 0);
      return;
   }
   const uint64_t *ctx = hw_phys_to_host(dev, ttbat + slot * AGX_UAT_CONTEXT_LENGTH,
                                         AGX_UAT_CONTEXT_LENGTH);
   uint64_t raw[2] = { load_entry(&ctx[0]), load_entry(&ctx[1]) };
   struct agx_uat_context c;
   agx_uat_context_unpack(raw, &c);
   bool valid = kernel ? c.ttb1_valid : c.ttb0_valid;
   uint64_t table = kernel ? c.ttb1 : c.ttb0;
   if (!valid || !table_pa_ok(dev, table)) {
      walk_fail(out, HW_FAULT_UNMAPPED, 0);
      return;
   }

   for (unsigned level = 1; level <= 3; level++) {
      uint64_t raw_e = load_entry(entry_ptr(dev, table, level_index(va, level)));
      struct agx_uat_pte e;
      /* Bits the format does not define are ignored, like reserved
       * bits on the hardware. */
      agx_uat_pte_unpack(&raw_e, &e);
      if (!e.valid || !e.table) {
         walk_fail(out, HW_FAULT_UNMAPPED, level);
         return;
      }
      if (level < 3) {
         if (!table_pa_ok(dev, e.output_address)) {
            walk_fail(out, HW_FAULT_UNMAPPED, level);
            return;
         }
         table = e.output_address;
         continue;
      }
      if (!hw_phys_to_host(dev, e.output_address, HW_PAGE_SIZE)) {
         walk_fail(out, HW_FAULT_UNMAPPED, 3);
         return;
      }
      if (!e.access_flag) {
         walk_fail(out, HW_FAULT_AF, 3);
         return;
      }
      if (!e.gpu_read && !e.gpu_write) {
         walk_fail(out, HW_FAULT_NO_ACCESS, 3);
         return;
      }
      out->ok = true;
      out->readable = e.gpu_read;
      out->writable = e.gpu_write;
      out->pa = e.output_address | (va & (HW_PAGE_SIZE - 1));
   }
}
