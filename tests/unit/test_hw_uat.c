/* SPDX-License-Identifier: MIT */
/*
 * UAT page tables and the MMU: the kernel-side helpers write tables, the
 * walker and per-unit views read them back; faults, permissions, soft
 * faults and TLB invalidation.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_hw_util.h"

#define PG HW_PAGE_SIZE
#define RW (HW_UAT_READ | HW_UAT_WRITE)

static int
setup(void **state)
{
   static struct t_fw t;
   t_setup_mem(&t, NULL);
   *state = &t;
   return 0;
}

static int
setup_soft(void **state)
{
   static struct t_fw t;
   struct hw_device_config c = { .mem_size = 256ull << 20, .soft_faults = true };
   t_setup_mem(&t, &c);
   *state = &t;
   return 0;
}

static int
teardown(void **state)
{
   t_teardown(*state);
   return 0;
}

static void
test_pte_format(void **state)
{
   (void)state;
   uint64_t v = 0;
   agx_pack(&v, UAT_PTE, e) {
      e.valid = true;
      e.table = true;
      e.gpu_read = true;
      e.access_flag = true;
      e.output_address = 0x812344000ull;
   }
   /* valid 0, table 1, read 6, AF 10, OA bits 14..39 */
   assert_int_equal(v, 0x812344000ull | 1 << 10 | 1 << 6 | 1 << 1 | 1);
   struct agx_uat_pte e;
   v |= 1ull << 50;    /* undefined bit: reported, walker ignores */
   assert_false(agx_uat_pte_unpack(&v, &e));
   assert_int_equal(e.output_address, 0x812344000ull);
}

static void
test_map_walk_user_and_kernel(void **state)
{
   struct t_fw *t = *state;
   uint64_t before = hw_phys_pages_free(t->dev);
   uint64_t ttb = hw_uat_table_alloc(t->dev);
   assert_int_equal(hw_uat_set_context(t->dev, 3, ttb, t->kttb), 0);
   uint64_t pa = hw_phys_alloc(t->dev, 2);
   assert_int_equal(hw_uat_map(t->dev, ttb, T_USER_VA, pa, 2 * PG, RW), 0);
   /* ttb + one L2 + one L3 table + 2 data pages */
   assert_int_equal(hw_phys_pages_free(t->dev), before - 5);

   /* The L1 entry the kernel helper wrote, read back raw. */
   const uint64_t *l1 = hw_phys_to_host(t->dev, ttb, PG);
   unsigned i1 = (unsigned)(T_USER_VA >> 36) & 7;
   struct agx_uat_pte e;
   assert_true(agx_uat_pte_unpack(&l1[i1], &e));
   assert_true(e.valid && e.table && e.access_flag);
   assert_true(e.output_address != 0);

   struct hw_uat_walk w;
   hw_uat_walk(t->dev, 3, T_USER_VA + PG + 0x123, &w);
   assert_true(w.ok);
   assert_int_equal(w.pa, pa + PG + 0x123);
   assert_true(w.readable && w.writable);

   /* Kernel half: sign-extended, through TTB1 (shared kernel tree). */
   uint64_t kva = 0xffffffb000004000ull;
   uint64_t kpa = hw_phys_alloc(t->dev, 1);
   assert_int_equal(hw_uat_map(t->dev, t->kttb, kva, kpa, PG, HW_UAT_READ), 0);
   hw_uat_walk(t->dev, 3, kva + 8, &w);
   assert_true(w.ok);
   assert_int_equal(w.pa, kpa + 8);
   assert_true(w.readable && !w.writable);
   hw_uat_walk(t->dev, 7, kva, &w);        /* every slot sees it */
   assert_true(w.ok);

   /* Not canonical: bit 39 set without the sign extension, or the hole. */
   hw_uat_walk(t->dev, 3, kva & 0xffffffffffull, &w);
   assert_false(w.ok);
   assert_int_equal(w.reason, HW_FAULT_UNMAPPED);
   assert_int_equal(w.level, 0);
   hw_uat_walk(t->dev, 3, 0xffffff7fffffc000ull, &w);
   assert_false(w.ok);
   /* A slot without a user tree. */
   hw_uat_walk(t->dev, 9, T_USER_VA, &w);
   assert_false(w.ok);
   assert_int_equal(w.level, 0);
   /* Missing L2 table -> level 1; present L3 table, empty entry -> 3. */
   hw_uat_walk(t->dev, 3, 0x100000000ull, &w);
   assert_int_equal(w.level, 1);
   hw_uat_walk(t->dev, 3, T_USER_VA + 2 * PG, &w);
   assert_int_equal(w.level, 3);

   /* Unmapping frees the emptied L2/L3 tables; destroy frees the root. */
   assert_int_equal(hw_uat_unmap(t->dev, ttb, T_USER_VA, 2 * PG), 0);
   hw_uat_walk(t->dev, 3, T_USER_VA, &w);
   assert_false(w.ok);
   assert_int_equal(w.level, 1);
   assert_int_equal(hw_uat_unmap(t->dev, t->kttb, kva, PG), 0);
   assert_int_equal(hw_phys_free(t->dev, pa, 2), 0);
   assert_int_equal(hw_phys_free(t->dev, kpa, 1), 0);
   assert_int_equal(hw_uat_set_context(t->dev, 3, 0, t->kttb), 0);
   hw_uat_destroy(t->dev, ttb);
   assert_int_equal(hw_phys_pages_free(t->dev), before);
}

static void
test_map_errors(void **state)
{
   struct t_fw *t = *state;
   uint64_t ttb = hw_uat_table_alloc(t->dev);
   uint64_t pa = hw_phys_alloc(t->dev, 1);
   assert_int_equal(hw_uat_map(t->dev, ttb, T_USER_VA + 8, pa, PG, RW), -EINVAL);
   assert_int_equal(hw_uat_map(t->dev, ttb, T_USER_VA, pa + 8, PG, RW), -EINVAL);
   assert_int_equal(hw_uat_map(t->dev, ttb, T_USER_VA, pa, 100, RW), -EINVAL);
   assert_int_equal(hw_uat_map(t->dev, ttb, T_USER_VA, pa, 0, RW), -EINVAL);
   assert_int_equal(hw_uat_map(t->dev, ttb, T_USER_VA, 0x1000000000000ull, PG, RW), -EINVAL);
   assert_int_equal(hw_uat_map(t->dev, ttb, T_USER_VA, pa, PG, 8), -EINVAL);
   /* Straddles the end of the user half. */
   assert_int_equal(hw_uat_map(t->dev, ttb, (1ull << 39) - PG, pa, 2 * PG, RW), -EINVAL);
   assert_int_equal(hw_uat_map(t->dev, ttb, 1ull << 39, pa, PG, RW), -EINVAL);
   assert_non_null(strstr(hw_device_last_error(t->dev), "uat_map: bad arguments"));
   /* The very last kernel page is fine. */
   assert_int_equal(hw_uat_map(t->dev, ttb, 0 - PG, pa, PG, RW), 0);
   assert_int_equal(hw_uat_unmap(t->dev, ttb, 0 - PG, PG), 0);
   /* Unmapping a large, mostly empty range is fine and quick. */
   assert_int_equal(hw_uat_unmap(t->dev, ttb, 0, 1ull << 39), 0);
   assert_int_equal(hw_uat_set_context(t->dev, 16, ttb, 0), -EINVAL);
   assert_int_equal(hw_uat_set_ttbat(t->dev, 0x1234), -EINVAL);
   hw_uat_destroy(t->dev, ttb);
   hw_phys_free(t->dev, pa, 1);
}

static void
test_mmu_read_write_across_pages(void **state)
{
   struct t_fw *t = *state;
   /* Two pages adjacent in VA but not in PA. */
   uint8_t *a = t_user_map(t, 1, T_USER_VA, 1, RW);
   hw_phys_alloc(t->dev, 1);   /* a gap */
   uint8_t *b = t_user_map(t, 1, T_USER_VA + PG, 1, RW);
   assert_true(b != a + PG);

   struct hw_mmu m;
   hw_mmu_init(&m, t->dev, 1, HW_UNIT_CDM);
   hw_mmu_begin_job(&m);
   const char msg[] = "0123456789abcdef";
   assert_true(hw_mmu_write(&m, T_USER_VA + PG - 8, msg, 16));
   assert_memory_equal(a + PG - 8, "01234567", 8);
   assert_memory_equal(b, "89abcdef", 8);
   char back[16];
   assert_true(hw_mmu_read(&m, T_USER_VA + PG - 8, back, 16));
   assert_memory_equal(back, msg, 16);

   /* One pointer only within a page (or physically adjacent pages). */
   assert_ptr_equal(hw_mmu_map(&m, T_USER_VA + 16, 32, false), a + 16);
   assert_null(hw_mmu_map(&m, T_USER_VA + PG - 8, 16, false));
   assert_false(m.fault.valid);
   uint8_t *c = t_user_map(t, 1, T_USER_VA + 4 * PG, 2, RW);
   assert_ptr_equal(hw_mmu_map(&m, T_USER_VA + 5 * PG - 4, 8, true), c + PG - 4);
   assert_false(m.fault.valid);
}

static void
test_faults(void **state)
{
   struct t_fw *t = *state;
   t_user_map(t, 2, T_USER_VA, 1, HW_UAT_READ);
   t_user_map(t, 2, T_USER_VA + PG, 1, HW_UAT_WRITE);
   t_user_map(t, 2, T_USER_VA + 2 * PG, 1, 0);
   struct hw_mmu m;
   uint32_t v = 0;

   /* Unmapped read by the CDM. */
   hw_mmu_init(&m, t->dev, 2, HW_UNIT_CDM);
   hw_mmu_begin_job(&m);
   assert_false(hw_mmu_read(&m, T_USER_VA + 8 * PG + 0x44, &v, 4));
   assert_true(m.fault.valid);
   assert_true(m.fault.read);
   assert_int_equal(m.fault.reason, HW_FAULT_UNMAPPED);
   assert_int_equal(m.fault.unit, HW_UNIT_CDM);
   assert_int_equal(m.fault.vm_slot, 2);
   assert_int_equal(m.fault.level, 3);
   assert_int_equal(m.fault.addr, T_USER_VA + 8 * PG + 0x44);
   uint64_t fi = hw_device_fault_info(t->dev);
   assert_int_equal(fi, 1 | 0 << 1 | 1 << 4 | 3 << 7 | (uint64_t)HW_UNIT_CDM << 9 |
                           2 << 17 | ((T_USER_VA + 8 * PG + 0x40) >> 6) << 30);
   /* Only the first fault is kept, in the view and in the register. */
   assert_false(hw_mmu_write(&m, T_USER_VA, &v, 4));
   assert_int_equal(m.fault.reason, HW_FAULT_UNMAPPED);
   assert_int_equal(hw_device_fault_info(t->dev), fi);
   hw_device_clear_fault_info(t->dev);

   /* Write to a read-only page. */
   hw_mmu_begin_job(&m);
   assert_true(hw_mmu_read(&m, T_USER_VA, &v, 4));
   assert_null(hw_mmu_map(&m, T_USER_VA + 4, 4, true));
   assert_int_equal(m.fault.reason, HW_FAULT_READ_ONLY);
   assert_false(m.fault.read);
   struct agx_fault_info f;
   fi = hw_device_fault_info(t->dev);
   assert_true(agx_fault_info_unpack(&fi, &f));
   assert_true(f.valid);
   assert_int_equal(f.reason, AGX_UAT_FAULT_REASON_READ_ONLY);
   assert_false(f.read);
   assert_int_equal(f.vm_slot, 2);
   assert_int_equal(f.address, T_USER_VA);
   hw_device_clear_fault_info(t->dev);

   /* Read from a write-only page; a page allowing nothing. */
   hw_mmu_begin_job(&m);
   assert_false(hw_mmu_read(&m, T_USER_VA + PG, &v, 4));
   assert_int_equal(m.fault.reason, HW_FAULT_WRITE_ONLY);
   hw_mmu_begin_job(&m);
   assert_true(hw_mmu_write(&m, T_USER_VA + PG, &v, 4));
   hw_mmu_begin_job(&m);
   assert_false(hw_mmu_read(&m, T_USER_VA + 2 * PG, &v, 4));
   assert_int_equal(m.fault.reason, HW_FAULT_NO_ACCESS);
   hw_device_clear_fault_info(t->dev);

   /* An entry without the access flag (written by hand). */
   struct hw_uat_walk w;
   hw_uat_walk(t->dev, 2, T_USER_VA, &w);
   assert_true(w.ok);
   uint64_t *pte = NULL;
   {
      /* find the L3 entry: L1 -> L2 -> L3 */
      uint64_t tbl = t->uttb[2];
      unsigned idx[3] = { (unsigned)(T_USER_VA >> 36) & 7,
                          (unsigned)(T_USER_VA >> 25) & 0x7ff,
                          (unsigned)(T_USER_VA >> 14) & 0x7ff };
      for (int l = 0; l < 3; l++) {
         uint64_t *ent = (uint64_t *)hw_phys_to_host(t->dev, tbl, PG) + idx[l];
         struct agx_uat_pte e;
         agx_uat_pte_unpack(ent, &e);
         tbl = e.output_address;
         pte = ent;
      }
   }
   *pte &= ~(1ull << 10);
   hw_device_tlb_invalidate(t->dev);
   hw_mmu_begin_job(&m);
   assert_false(hw_mmu_read(&m, T_USER_VA, &v, 4));
   assert_int_equal(m.fault.reason, HW_FAULT_AF);
   *pte |= 1ull << 10;
   hw_device_clear_fault_info(t->dev);
}

/* hw_mmu_peek: the host byte of a readable page (TLB hit or not), NULL
 * for unmapped and write-only pages, and no side effect at all: no fault
 * recorded or latched, the TLB neither filled nor synchronised. */
static void
test_mmu_peek(void **state)
{
   struct t_fw *t = *state;
   uint8_t *a = t_user_map(t, 2, T_USER_VA, 1, RW);
   t_user_map(t, 2, T_USER_VA + PG, 1, HW_UAT_WRITE);
   struct hw_mmu m;
   hw_mmu_init(&m, t->dev, 2, HW_UNIT_TEX);
   hw_mmu_begin_job(&m);
   struct hw_mmu before = m;
   assert_ptr_equal(hw_mmu_peek(&m, T_USER_VA + 0x123), a + 0x123);
   assert_null(hw_mmu_peek(&m, T_USER_VA + PG + 4));
   assert_null(hw_mmu_peek(&m, T_USER_VA + 7 * PG));
   hw_device_tlb_invalidate(t->dev);
   assert_ptr_equal(hw_mmu_peek(&m, T_USER_VA + 8), a + 8);
   assert_memory_equal(&m, &before, sizeof(m));
   assert_int_equal(hw_device_fault_info(t->dev), 0);
   /* a TLB hit */
   uint32_t v;
   assert_true(hw_mmu_read(&m, T_USER_VA, &v, 4));
   assert_ptr_equal(hw_mmu_peek(&m, T_USER_VA + 0x40), a + 0x40);
}

/* hw_mmu.log: every access of a recording view is listed in order --
 * hw_mmu_map_read's TLB-hit path included, because the view caches no
 * translation -- with the write and missed flags and the count past the
 * capacity; the accesses themselves behave as without a log (the
 * preshader memo, hw/render, relies on both). */
static void
test_mmu_log(void **state)
{
   struct t_fw *t = *state;
   uint8_t *a = t_user_map(t, 3, T_USER_VA, 1, RW);
   a[0x40] = 0x5a;
   struct hw_mmu m;
   struct hw_mmu_log log = { 0 };
   hw_mmu_init(&m, t->dev, 3, HW_UNIT_USC);
   hw_mmu_begin_job(&m);
   assert_null(m.log);
   m.log = &log;
   uint32_t v = 0;
   assert_true(hw_mmu_read(&m, T_USER_VA + 0x40, &v, 4));
   assert_int_equal(v & 0xff, 0x5a);
   for (unsigned k = 0; k < 3; k++)   /* a plain view would hit its TLB */
      assert_ptr_equal(hw_mmu_map_read(&m, T_USER_VA + 0x80, 8), a + 0x80);
   for (unsigned k = 0; k < HW_TLB_ENTRIES; k++)
      assert_int_equal(m.tlb[k].vpn, 0);
   assert_int_equal(log.n, 4);
   assert_int_equal(log.r[0].va, T_USER_VA + 0x40);
   assert_int_equal(log.r[0].size, 4);
   assert_int_equal(log.r[3].va, T_USER_VA + 0x80);
   assert_int_equal(log.r[3].size, 8);
   assert_false(log.write);
   assert_false(log.missed);
   assert_true(hw_mmu_write(&m, T_USER_VA + 0x100, &v, 4));
   assert_true(log.write);
   assert_int_equal(log.n, 5);
   /* a miss (an unmapped page: a fault) is flagged and still listed */
   assert_null(hw_mmu_map(&m, T_USER_VA + 9 * PG, 4, false));
   assert_true(log.missed);
   assert_true(m.fault.valid);
   assert_int_equal(log.n, 6);
   for (unsigned k = 0; k < HW_MMU_LOG_MAX; k++)
      hw_mmu_read(&m, T_USER_VA, &v, 1);
   assert_int_equal(log.n, 6 + HW_MMU_LOG_MAX);   /* past capacity: counted */
   /* without a log the view caches again */
   m.log = NULL;
   assert_ptr_equal(hw_mmu_map_read(&m, T_USER_VA + 0x80, 8), a + 0x80);
   unsigned filled = 0;
   for (unsigned k = 0; k < HW_TLB_ENTRIES; k++)
      filled += m.tlb[k].vpn != 0;
   assert_int_equal(filled, 1);
}

static void
test_tlb_invalidation(void **state)
{
   struct t_fw *t = *state;
   uint32_t *old = t_user_map(t, 4, T_USER_VA, 1, RW);
   uint64_t pa2 = hw_phys_alloc(t->dev, 1);
   uint32_t *new = hw_phys_to_host(t->dev, pa2, PG);
   old[0] = 0x01d;
   new[0] = 0x2e7;

   struct hw_mmu m;
   uint32_t v;
   hw_mmu_init(&m, t->dev, 4, HW_UNIT_USC);
   hw_mmu_begin_job(&m);
   assert_true(hw_mmu_read(&m, T_USER_VA, &v, 4));
   assert_int_equal(v, 0x01d);

   /* Remap without invalidating: the view keeps its cached entry. */
   assert_int_equal(hw_uat_map(t->dev, t->uttb[4], T_USER_VA, pa2, PG, RW), 0);
   assert_true(hw_mmu_read(&m, T_USER_VA, &v, 4));
   assert_int_equal(v, 0x01d);
   hw_mmu_begin_job(&m);
   assert_true(hw_mmu_read(&m, T_USER_VA, &v, 4));
   assert_int_equal(v, 0x01d);

   /* After the generation bump, the next job sees the new mapping. */
   uint32_t gen = hw_device_tlb_generation(t->dev);
   hw_device_tlb_invalidate(t->dev);
   assert_int_equal(hw_device_tlb_generation(t->dev), gen + 1);
   hw_mmu_begin_job(&m);
   assert_true(hw_mmu_read(&m, T_USER_VA, &v, 4));
   assert_int_equal(v, 0x2e7);

   /* ... or the next miss of the running job. */
   assert_int_equal(hw_uat_unmap(t->dev, t->uttb[4], T_USER_VA, PG), 0);
   hw_device_tlb_invalidate(t->dev);
   assert_false(hw_mmu_read(&m, T_USER_VA + 5 * PG, &v, 4));   /* miss */
   hw_mmu_begin_job(&m);
   assert_false(hw_mmu_read(&m, T_USER_VA, &v, 4));
   assert_int_equal(m.fault.reason, HW_FAULT_UNMAPPED);
   hw_device_clear_fault_info(t->dev);
}

static void
test_soft_faults(void **state)
{
   struct t_fw *t = *state;
   uint8_t *page = t_user_map(t, 1, T_USER_VA, 1, HW_UAT_READ);
   struct hw_mmu usc, cdm;
   hw_mmu_init(&usc, t->dev, 1, HW_UNIT_USC);
   hw_mmu_init(&cdm, t->dev, 1, HW_UNIT_CDM);
   assert_true(usc.soft_faults);
   hw_mmu_begin_job(&usc);
   hw_mmu_begin_job(&cdm);

   /* USC: unmapped loads read zero, stores vanish, nothing is latched. */
   uint8_t buf[32];
   memset(buf, 0x5a, sizeof(buf));
   assert_true(hw_mmu_read(&usc, T_USER_VA + 3 * PG, buf, sizeof(buf)));
   for (unsigned i = 0; i < sizeof(buf); i++)
      assert_int_equal(buf[i], 0);
   assert_true(hw_mmu_write(&usc, T_USER_VA + 3 * PG, buf, sizeof(buf)));
   assert_null(hw_mmu_map(&usc, T_USER_VA + 3 * PG, 4, false));
   assert_false(usc.fault.valid);
   assert_int_equal(hw_device_fault_info(t->dev), 0);
   /* A mapped page followed by an unmapped one: half real, half zero. */
   memcpy(page + PG - 4, "abcd", 4);
   memset(buf, 0x5a, sizeof(buf));
   assert_true(hw_mmu_read(&usc, T_USER_VA + PG - 4, buf, 8));
   assert_memory_equal(buf, "abcd\0\0\0\0", 8);

   /* Permission faults stay hard for the USC too. */
   assert_false(hw_mmu_write(&usc, T_USER_VA, buf, 4));
   assert_true(usc.fault.valid);
   assert_int_equal(usc.fault.reason, HW_FAULT_READ_ONLY);
   hw_device_clear_fault_info(t->dev);

   /* Other units fault as usual. */
   assert_false(hw_mmu_read(&cdm, T_USER_VA + 3 * PG, buf, 4));
   assert_true(cdm.fault.valid);
   assert_int_equal(cdm.fault.unit, HW_UNIT_CDM);
   assert_true(hw_device_fault_info(t->dev) & 1);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pte_format),
      cmocka_unit_test_setup_teardown(test_map_walk_user_and_kernel, setup, teardown),
      cmocka_unit_test_setup_teardown(test_map_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mmu_read_write_across_pages, setup, teardown),
      cmocka_unit_test_setup_teardown(test_faults, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mmu_peek, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mmu_log, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tlb_invalidation, setup, teardown),
      cmocka_unit_test_setup_teardown(test_soft_faults, setup_soft, teardown),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
