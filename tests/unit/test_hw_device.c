/* SPDX-License-Identifier: MIT */
/*
 * hw device: lifetime, identity, physical page allocator, clock
 * conversions and the FAULT_INFO register.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cmdstream/agx_fw_pack.h"
#include "hw/hw_device.h"
#include "hw/hw_priv.h"

#define MiB (1ull << 20)

static void
test_create_destroy(void **state)
{
   (void)state;
   /* Default 4 GiB arena: sparse, so this costs next to nothing. */
   struct hw_device *dev = hw_device_create(NULL);
   assert_non_null(dev);
   assert_int_equal(hw_device_mem_size(dev), 4ull << 30);
   assert_non_null(hw_device_mem_host(dev));
   assert_true(hw_device_irq_fd(dev) >= 0);
   const struct hw_device_info *i = hw_device_info(dev);
   assert_int_equal(i->generation, 13);
   assert_int_equal(i->variant, 'G');
   assert_int_equal(i->chip_id, 0x8103);
   assert_int_equal(i->num_clusters, 1);
   assert_int_equal(i->num_cores_per_cluster, 8);
   assert_int_equal(i->max_frequency_khz, 1278000);
   assert_int_equal(i->timestamp_frequency_hz, 24000000);
   assert_int_equal(i->num_vm_slots, 16);
   assert_int_equal(hw_device_gpu_time_ns(dev), 0);
   assert_false(hw_device_soft_faults(dev));
   hw_device_destroy(dev);
   hw_device_destroy(NULL);

   /* Bad sizes are refused, not aborted on. */
   struct hw_device_config c = { .mem_size = 12345 };
   assert_null(hw_device_create(&c));
   c.mem_size = 128ull << 30;
   assert_null(hw_device_create(&c));
}

static void
test_phys_alloc_free(void **state)
{
   (void)state;
   struct hw_device_config c = { .mem_size = 1 * MiB };   /* 64 pages */
   struct hw_device *dev = hw_device_create(&c);
   assert_non_null(dev);
   assert_int_equal(hw_phys_pages_free(dev), 64);

   uint64_t a = hw_phys_alloc(dev, 1);
   uint64_t b = hw_phys_alloc(dev, 3);
   assert_int_equal(a, HW_PHYS_BASE);
   assert_int_equal(b, HW_PHYS_BASE + HW_PAGE_SIZE);
   assert_int_equal(hw_phys_pages_free(dev), 60);

   /* Host view: the same bytes through the memfd offset and the map. */
   uint8_t *hb = hw_phys_to_host(dev, b, 3 * HW_PAGE_SIZE);
   assert_ptr_equal(hb, hw_device_mem_host(dev) + HW_PAGE_SIZE);
   for (uint64_t i = 0; i < 3 * HW_PAGE_SIZE; i++)
      assert_int_equal(hb[i], 0);
   memset(hb, 0xab, 3 * HW_PAGE_SIZE);
   assert_null(hw_phys_to_host(dev, HW_PHYS_BASE - 1, 1));
   assert_null(hw_phys_to_host(dev, HW_PHYS_BASE + MiB - 8, 16));
   assert_non_null(hw_phys_to_host(dev, HW_PHYS_BASE + MiB - 8, 8));

   /* Freed pages come back zeroed. */
   assert_int_equal(hw_phys_free(dev, b, 3), 0);
   assert_int_equal(hw_phys_free(dev, b, 3), -EINVAL);       /* double free */
   assert_int_equal(hw_phys_free(dev, b + 1, 1), -EINVAL);   /* unaligned */
   assert_int_equal(hw_phys_free(dev, 0, 1), -EINVAL);
   uint64_t rest = hw_phys_alloc(dev, 60);                    /* all the rest */
   assert_int_equal(rest, HW_PHYS_BASE + 4 * HW_PAGE_SIZE);
   assert_int_equal(hw_phys_alloc(dev, 4), 0);                /* fragmented */
   assert_non_null(strstr(hw_device_last_error(dev), "no run of 4 free pages"));
   uint64_t again = hw_phys_alloc(dev, 3);
   assert_int_equal(again, b);
   uint8_t *h = hw_phys_to_host(dev, again, 3 * HW_PAGE_SIZE);
   for (uint64_t i = 0; i < 3 * HW_PAGE_SIZE; i++)
      assert_int_equal(h[i], 0);
   assert_int_equal(hw_phys_alloc(dev, 1), 0);
   assert_int_equal(hw_phys_alloc(dev, 0), 0);
   assert_int_equal(hw_phys_pages_free(dev), 0);
   hw_device_destroy(dev);
}

struct alloc_thread {
   struct hw_device *dev;
   uint64_t pages[64];
   unsigned n;
};

static void *
alloc_worker(void *arg)
{
   struct alloc_thread *a = arg;
   for (unsigned round = 0; round < 200; round++) {
      for (a->n = 0; a->n < 16; a->n++)
         a->pages[a->n] = hw_phys_alloc(a->dev, 1 + a->n % 3);
      for (unsigned i = 0; i < a->n; i++)
         if (a->pages[i] && hw_phys_free(a->dev, a->pages[i], 1 + i % 3) != 0)
            return (void *)1;
   }
   for (a->n = 0; a->n < 16; a->n++)
      a->pages[a->n] = hw_phys_alloc(a->dev, 2);
   return NULL;
}

static void
test_phys_threads(void **state)
{
   (void)state;
   struct hw_device_config c = { .mem_size = 4 * MiB };   /* 256 pages */
   struct hw_device *dev = hw_device_create(&c);
   struct alloc_thread t[2] = { { .dev = dev }, { .dev = dev } };
   pthread_t th[2];
   for (int i = 0; i < 2; i++)
      assert_int_equal(pthread_create(&th[i], NULL, alloc_worker, &t[i]), 0);
   for (int i = 0; i < 2; i++) {
      void *ret;
      pthread_join(th[i], &ret);
      assert_null(ret);
   }
   /* The survivors of both threads never overlap. */
   for (unsigned i = 0; i < 32; i++) {
      uint64_t a = t[i / 16].pages[i % 16];
      assert_true(a != 0);
      for (unsigned j = i + 1; j < 32; j++) {
         uint64_t b = t[j / 16].pages[j % 16];
         assert_true(a + 2 * HW_PAGE_SIZE <= b || b + 2 * HW_PAGE_SIZE <= a);
      }
   }
   assert_int_equal(hw_phys_pages_free(dev), 256 - 64);
   hw_device_destroy(dev);
}

static void
test_clock(void **state)
{
   (void)state;
   /* 1.278 GHz cycles to 24 MHz ticks to ns, exactly. */
   assert_int_equal(hw_cycles_to_ticks(1278000000ull), 24000000ull);
   assert_int_equal(hw_cycles_to_ticks(213), 4);
   assert_int_equal(hw_cycles_to_ticks(212), 3);
   assert_int_equal(hw_ticks_to_ns(24000000ull), 1000000000ull);
   assert_int_equal(hw_ticks_to_ns(3), 125);
   assert_int_equal(hw_ticks_to_ns(1), 41);
   /* No overflow for a year of GPU time. */
   uint64_t year = 1278000000ull * 86400 * 365;
   assert_int_equal(hw_cycles_to_ticks(year), 24000000ull * 86400 * 365);

   struct hw_device_config c = { .mem_size = MiB };
   struct hw_device *dev = hw_device_create(&c);
   hw_device_advance_cycles(dev, 1278000);   /* 1 ms */
   assert_int_equal(hw_device_gpu_cycles(dev), 1278000);
   assert_int_equal(hw_device_gpu_ticks(dev), 24000);
   assert_int_equal(hw_device_gpu_time_ns(dev), 1000000);
   hw_device_destroy(dev);
}

static void
test_fault_info_register(void **state)
{
   (void)state;
   struct hw_device_config c = { .mem_size = MiB };
   struct hw_device *dev = hw_device_create(&c);
   assert_int_equal(hw_device_fault_info(dev), 0);

   struct hw_fault f = {
      .valid = true, .read = true, .reason = HW_FAULT_READ_ONLY,
      .unit = HW_UNIT_TE, .vm_slot = 5, .level = 3,
      .addr = 0xffffffa012345678ull,
   };
   hw_latch_fault(dev, &f);
   uint64_t v = hw_device_fault_info(dev);
   /* valid | reason 3 << 1 | read << 4 | level 3 << 7 | unit 4 << 9 |
    * slot 5 << 17 | (addr & 0xff_ffff_ffc0) >> 6 << 30 */
   uint64_t want = 1 | 3 << 1 | 1 << 4 | 3 << 7 | 4 << 9 | 5 << 17 |
                   ((0xa012345678ull & ~0x3full) >> 6) << 30;
   assert_int_equal(v, want);
   struct agx_fault_info fi;
   assert_true(agx_fault_info_unpack(&v, &fi));
   assert_int_equal(fi.unit, AGX_FAULT_UNIT_TE);
   assert_int_equal(fi.address, 0xa012345640ull);

   /* Latched: a second fault does not overwrite until cleared. */
   struct hw_fault g = f;
   g.unit = HW_UNIT_USC;
   hw_latch_fault(dev, &g);
   assert_int_equal(hw_device_fault_info(dev), want);
   hw_device_clear_fault_info(dev);
   hw_latch_fault(dev, &g);
   assert_int_equal(hw_device_fault_info(dev), want & ~(0xffull << 9));
   hw_device_destroy(dev);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_destroy),
      cmocka_unit_test(test_phys_alloc_free),
      cmocka_unit_test(test_phys_threads),
      cmocka_unit_test(test_clock),
      cmocka_unit_test(test_fault_info_register),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
