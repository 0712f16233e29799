/* SPDX-License-Identifier: MIT */
/*
 * asahi_model: creation and teardown order with every executor present,
 * thread-count selection, and a device used from several threads then
 * destroyed (must neither hang nor leak under ASan).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drm-uapi/asahi_drm.h"
#include "hw/hw_device.h"
#include "kernel/model/asahi_model.h"

static void
test_threads(void **state)
{
   (void)state;
   assert_int_equal(asahi_model_threads(3), 3);
   assert_int_equal(asahi_model_threads(1000), ASAHI_MODEL_MAX_THREADS);
   setenv("TESSERA_HW_THREADS", "2", 1);
   assert_int_equal(asahi_model_threads(0), 2);
   setenv("TESSERA_HW_THREADS", "bogus", 1);
   unsigned d = asahi_model_threads(0);
   assert_true(d >= 1 && d <= ASAHI_MODEL_DEFAULT_THREADS);
   unsetenv("TESSERA_HW_THREADS");
}

static void
test_create_destroy(void **state)
{
   (void)state;
   for (unsigned i = 0; i < 3; i++) {
      struct asahi_model_config cfg = { .mem_size = 256ull << 20, .threads = i + 1,
                                        .drv = { .quiet = true } };
      char err[128] = "";
      struct asahi_model *m = asahi_model_create(&cfg, err, sizeof(err));
      assert_non_null(m);
      assert_non_null(m->hw);
      assert_non_null(m->cdm);
      assert_non_null(m->render);
      assert_ptr_equal(asahi_hw(m->dev), m->hw);
      assert_int_equal(m->threads, i + 1);
      struct asahi_model_stats st;
      asahi_model_get_stats(m, &st);
      assert_int_equal(st.drv.jobs_submitted, 0);
      assert_int_equal(st.draws, 0);
      asahi_model_destroy(m);
   }
   asahi_model_destroy(NULL);
}

static void
test_bad_config(void **state)
{
   (void)state;
   /* not a multiple of 16 KiB: the device refuses, nothing leaks */
   struct asahi_model_config cfg = { .mem_size = 12345 };
   char err[128] = "";
   assert_null(asahi_model_create(&cfg, err, sizeof(err)));
   assert_true(strlen(err) > 0);
}

static void *
hammer(void *arg)
{
   struct asahi_dev *dev = arg;
   struct asahi_file *f = asahi_open(dev);
   for (unsigned i = 0; f && i < 50; i++) {
      struct drm_asahi_get_time t = { 0 };
      if (asahi_ioctl(f, DRM_IOCTL_ASAHI_GET_TIME, &t))
         return (void *)1;
      struct drm_asahi_gem_create g = { .size = 16384 };
      if (asahi_ioctl(f, DRM_IOCTL_ASAHI_GEM_CREATE, &g))
         return (void *)1;
   }
   if (f)
      asahi_close(f);
   return f ? NULL : (void *)1;
}

static void
test_threaded_use(void **state)
{
   (void)state;
   struct asahi_model_config cfg = { .mem_size = 256ull << 20, .threads = 2 };
   struct asahi_model *m = asahi_model_create(&cfg, NULL, 0);
   assert_non_null(m);
   pthread_t t[4];
   for (unsigned i = 0; i < 4; i++)
      assert_int_equal(pthread_create(&t[i], NULL, hammer, m->dev), 0);
   for (unsigned i = 0; i < 4; i++) {
      void *r;
      pthread_join(t[i], &r);
      assert_null(r);
   }
   asahi_model_destroy(m);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_create_destroy),
      cmocka_unit_test(test_bad_config),
      cmocka_unit_test(test_threaded_use),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
