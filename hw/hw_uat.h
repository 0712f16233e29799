/* SPDX-License-Identifier: MIT */
/*
 * UAT page tables: the kernel-side helpers that write them (what a real
 * kernel driver's page-table code does) and the walker the model's units
 * use to read them back from memory.
 *
 * Geometry (facts: 4 levels, L0:2 L1:8 L2:2048 L3:2048, 16 KiB pages):
 *   VA bit 39 (L0) picks the half: 0 = user, TTB0; 1 = kernel, TTB1, and
 *   the address must then be sign-extended (0xffffff80_00000000 and up).
 *   Bits 36..38 index the 8-entry L1 table a TTB points to, 25..35 the L2
 *   table, 14..24 the L3 table whose entries map 16 KiB pages.
 * Entries are "UAT PTE" (cmdstream/agx_fw.xml), tables are whole zeroed
 * pages from hw_phys_alloc(). The TTBAT is one page of HW_UAT_NUM_CONTEXTS
 * "UAT Context" entries (TTB0, TTB1) whose PA the kernel programs with
 * hw_uat_set_ttbat(); VM slot N translates through entry N.
 *
 * The helpers do not invalidate TLBs: after changing live mappings the
 * kernel sends a TLB Invalidate device-control message (or, outside the
 * firmware, calls hw_device_tlb_invalidate(), like a broadcast TLBI).
 * They are not thread safe per table tree: serialise per VM.
 */
#ifndef HW_UAT_H
#define HW_UAT_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/hw_device.h"

#define HW_UAT_NUM_CONTEXTS 16
#define HW_UAT_VA_BITS 40
#define HW_UAT_USER_END (1ull << 39)               /* exclusive */
#define HW_UAT_KERNEL_START 0xffffff8000000000ull

/* prot bits for hw_uat_map */
#define HW_UAT_READ  (1u << 0)
#define HW_UAT_WRITE (1u << 1)

/* A new empty L1 table (one zeroed page): its PA, or 0. */
uint64_t hw_uat_table_alloc(struct hw_device *dev);

/*
 * Maps [va, va + size) to [pa, pa + size) in the tree rooted at the L1
 * table `ttb`, replacing existing entries. va, pa and size must be page
 * aligned, the range must lie in one half (user or kernel; the tree does
 * not know which, only the bits below 39 index it) and pa in the arena.
 * Returns 0, -EINVAL or -ENOMEM (entries mapped before a failure stay).
 */
int hw_uat_map(struct hw_device *dev, uint64_t ttb, uint64_t va, uint64_t pa,
               uint64_t size, unsigned prot);

/* Clears the entries of [va, va + size) (unmapped ones are fine) and frees
 * L2/L3 tables left empty. 0 or -EINVAL. */
int hw_uat_unmap(struct hw_device *dev, uint64_t ttb, uint64_t va,
                 uint64_t size);

/* Frees every table of the tree, ttb included. */
void hw_uat_destroy(struct hw_device *dev, uint64_t ttb);

/* The TTBAT register, and one context slot in it (ttb 0 = invalid). */
int hw_uat_set_ttbat(struct hw_device *dev, uint64_t ttbat_pa);
uint64_t hw_uat_ttbat(struct hw_device *dev);
int hw_uat_set_context(struct hw_device *dev, unsigned slot, uint64_t ttb0,
                       uint64_t ttb1);

/* Result of a walk. */
struct hw_uat_walk {
   bool ok;
   uint8_t reason;     /* enum hw_fault_reason, when !ok */
   uint8_t level;      /* level whose entry was missing/bad (0..3) */
   bool readable;
   bool writable;
   uint64_t pa;        /* of the byte at va, when ok */
};

/* Walks the tables of VM slot `slot` for va (no TLB, no fault latching).
 * Permission faults are left to the caller: readable/writable say what
 * the page allows; an entry without the access flag fails with HW_FAULT_AF,
 * a page allowing nothing with HW_FAULT_NO_ACCESS. */
void hw_uat_walk(struct hw_device *dev, unsigned slot, uint64_t va,
                 struct hw_uat_walk *out);

#endif
