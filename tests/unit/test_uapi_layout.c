/* SPDX-License-Identifier: MIT */
/*
 * Pins the Asahi uAPI to the upstream ABI: the size of every struct, the
 * offset of every field and every ioctl number. The expected numbers were
 * computed from the upstream header's field list (types and order) with the
 * C layout rules, independently of include/drm-uapi/asahi_drm.h, so a field
 * moved, retyped or dropped there fails this file at compile time (static
 * assertions) and at run time (the cmocka cases print which one).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "drm-uapi/asahi_drm.h"

struct layout_check {
   const char *what;
   size_t actual, expected;
};

#define SIZE(s, n)                                                            \
   _Static_assert(sizeof(struct s) == (n), "size of " #s);
#define OFF(s, f, n)                                                          \
   _Static_assert(offsetof(struct s, f) == (n), "offset of " #s "." #f);
#define IOCTL(name, v) _Static_assert((uint32_t)(name) == (v), #name);
#include "tests/unit/uapi_layout.inc"
#undef SIZE
#undef OFF
#undef IOCTL

#define SIZE(s, n) {"sizeof(" #s ")", sizeof(struct s), (n)},
#define OFF(s, f, n) {#s "." #f, offsetof(struct s, f), (n)},
#define IOCTL(name, v) {#name, (uint32_t)(name), (v)},
static const struct layout_check checks[] = {
#include "tests/unit/uapi_layout.inc"
};
#undef SIZE
#undef OFF
#undef IOCTL

static void
test_every_layout_value(void **state)
{
   (void)state;
   unsigned bad = 0;
   for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
      if (checks[i].actual != checks[i].expected) {
         print_error("%s: %zu, upstream %zu\n", checks[i].what,
                     checks[i].actual, checks[i].expected);
         bad++;
      }
   }
   assert_int_equal(bad, 0);
   /* Every struct, every field and all 11 ioctls are listed. */
   assert_int_equal(sizeof(checks) / sizeof(checks[0]), 166);
}

/* The ioctl encoding: direction, size, 'd' and DRM_COMMAND_BASE + id. */
static void
test_ioctl_fields(void **state)
{
   (void)state;
   assert_int_equal(_IOC_TYPE(DRM_IOCTL_ASAHI_SUBMIT), 'd');
   assert_int_equal(_IOC_NR(DRM_IOCTL_ASAHI_GET_PARAMS), DRM_COMMAND_BASE);
   assert_int_equal(_IOC_NR(DRM_IOCTL_ASAHI_SUBMIT), DRM_COMMAND_BASE + 10);
   assert_int_equal(_IOC_DIR(DRM_IOCTL_ASAHI_GET_PARAMS), _IOC_WRITE);
   assert_int_equal(_IOC_DIR(DRM_IOCTL_ASAHI_GEM_CREATE),
                    _IOC_READ | _IOC_WRITE);
   assert_int_equal(_IOC_SIZE(DRM_IOCTL_ASAHI_SUBMIT),
                    sizeof(struct drm_asahi_submit));
}

/* Values userspace passes on the wire and that must never change. */
static void
test_enum_values(void **state)
{
   (void)state;
   assert_int_equal(DRM_ASAHI_FEATURE_SOFT_FAULTS, 1);
   assert_int_equal(DRM_ASAHI_GEM_WRITEBACK, 1);
   assert_int_equal(DRM_ASAHI_GEM_VM_PRIVATE, 2);
   assert_int_equal(DRM_ASAHI_BIND_UNBIND, 1);
   assert_int_equal(DRM_ASAHI_BIND_READ, 2);
   assert_int_equal(DRM_ASAHI_BIND_WRITE, 4);
   assert_int_equal(DRM_ASAHI_BIND_SINGLE_PAGE, 8);
   assert_int_equal(DRM_ASAHI_BIND_OBJECT_OP_UNBIND, 1);
   assert_int_equal(DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS, 1);
   assert_int_equal(DRM_ASAHI_CMD_RENDER, 0);
   assert_int_equal(DRM_ASAHI_CMD_COMPUTE, 1);
   assert_int_equal(DRM_ASAHI_SET_VERTEX_ATTACHMENTS, 2);
   assert_int_equal(DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS, 3);
   assert_int_equal(DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, 4);
   assert_int_equal(DRM_ASAHI_PRIORITY_REALTIME, 3);
   assert_int_equal(DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ, 1);
   assert_int_equal(DRM_ASAHI_BARRIER_NONE, 0xffff);
   assert_int_equal(DRM_ASAHI_RENDER_VERTEX_SCRATCH, 1u << 0);
   assert_int_equal(DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES, 1u << 1);
   assert_int_equal(DRM_ASAHI_RENDER_NO_VERTEX_CLUSTERING, 1u << 2);
   assert_int_equal(DRM_ASAHI_RENDER_DBIAS_IS_INT, 1u << 18);
   assert_int_equal(DRM_ASAHI_MAX_CLUSTERS, 64);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_layout_value),
      cmocka_unit_test(test_ioctl_fields),
      cmocka_unit_test(test_enum_values),
   };
   return cmocka_run_group_tests_name("uapi_layout", tests, NULL, NULL);
}
