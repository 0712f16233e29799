/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the VM mapping list (uapi/uapi_vm_map.h): binds that
 * replace, unbinds that split at the start, the middle and the end of a
 * mapping or across several, single-page mappings, lookups, and the
 * errors that must leave the map as it was.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "uapi/uapi_vm_map.h"



static struct drm_asahi_gem_bind_op
op(uint32_t flags, uint32_t handle, uint64_t offset, uint64_t range, uint64_t addr)
{
   return (struct drm_asahi_gem_bind_op){ flags, handle, offset, range, addr };
}

static void
expect_map(const struct uapi_vm_map *m, unsigned n, const struct uapi_mapping *want)
{
   assert_int_equal(m->count, n);
   for (unsigned i = 0; i < n; i++) {
      assert_int_equal(m->m[i].addr, want[i].addr);
      assert_int_equal(m->m[i].range, want[i].range);
      assert_int_equal(m->m[i].handle, want[i].handle);
      assert_int_equal(m->m[i].offset, want[i].offset);
      assert_int_equal(m->m[i].flags, want[i].flags);
   }
}

#define RW (DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE)
#define K UAPI_VM_PAGE_SIZE

static void
test_vm_map(void **state)
{
   (void)state;
   struct uapi_vm_map m = { 0 };
   struct drm_asahi_gem_bind_op o = op(RW, 1, 0, 8 * K, 0x100000);
   assert_int_equal(uapi_vm_map_apply(&m, &o), 0);
   o = op(DRM_ASAHI_BIND_READ, 2, 0, 2 * K, 0x200000);
   assert_int_equal(uapi_vm_map_apply(&m, &o), 0);
   expect_map(&m, 2, (struct uapi_mapping[]){ { 0x100000, 8 * K, 1, RW, 0 },
                                             { 0x200000, 2 * K, 2, DRM_ASAHI_BIND_READ, 0 } });
   /* unbinding the middle splits object 1's mapping; the tail keeps its offset */
   o = op(DRM_ASAHI_BIND_UNBIND, 0, 0, 2 * K, 0x100000 + 3 * K);
   assert_int_equal(uapi_vm_map_apply(&m, &o), 0);
   expect_map(&m, 3, (struct uapi_mapping[]){ { 0x100000, 3 * K, 1, RW, 0 },
                                             { 0x100000 + 5 * K, 3 * K, 1, RW, 5 * K },
                                             { 0x200000, 2 * K, 2, DRM_ASAHI_BIND_READ, 0 } });
   /* binding across both pieces replaces the overlapped parts */
   o = op(RW, 3, K, 4 * K, 0x100000 + 2 * K);
   assert_int_equal(uapi_vm_map_apply(&m, &o), 0);
   expect_map(&m, 4, (struct uapi_mapping[]){ { 0x100000, 2 * K, 1, RW, 0 },
                                             { 0x100000 + 2 * K, 4 * K, 3, RW, K },
                                             { 0x100000 + 6 * K, 2 * K, 1, RW, 6 * K },
                                             { 0x200000, 2 * K, 2, DRM_ASAHI_BIND_READ, 0 } });
   /* a single-page mapping's tail keeps the repeated page */
   o = op(RW | DRM_ASAHI_BIND_SINGLE_PAGE, 4, 3 * K, 4 * K, 0x300000);
   assert_int_equal(uapi_vm_map_apply(&m, &o), 0);
   o = op(DRM_ASAHI_BIND_UNBIND, 0, 0, K, 0x300000 + K);
   assert_int_equal(uapi_vm_map_apply(&m, &o), 0);
   assert_int_equal(m.count, 6);
   assert_int_equal(m.m[5].addr, 0x300000 + 2 * K);
   assert_int_equal(m.m[5].offset, 3 * K);
   /* closing object 1 drops both of its pieces */
   uapi_vm_map_drop_handle(&m, 1);
   assert_int_equal(m.count, 4);
   for (size_t i = 0; i < m.count; i++)
      assert_int_not_equal(m.m[i].handle, 1);
   /* unbinding everything */
   o = op(DRM_ASAHI_BIND_UNBIND, 0, 0, 0x400000, 0);
   assert_int_equal(uapi_vm_map_apply(&m, &o), 0);
   assert_int_equal(m.count, 0);
   uapi_vm_map_free(&m);
   assert_null(m.m);
}

/* What the mapping list must hold after each step, as (addr, range,
 * handle, flags, offset) rows, with a K-page unit to keep them short. */
#define M(a, r, h, o) { 0x100000 + (a) * K, (r) * K, h, RW, (o) * K }

static void
bind(struct uapi_vm_map *m, uint64_t page, uint64_t pages, uint32_t h, uint64_t off_pages)
{
   assert_int_equal(uapi_vm_map_bind(m, 0x100000 + page * K, pages * K, h, off_pages * K, RW), 0);
}

static void
unbind(struct uapi_vm_map *m, uint64_t page, uint64_t pages)
{
   assert_int_equal(uapi_vm_map_unbind(m, 0x100000 + page * K, pages * K), 0);
}

static void
test_split_start(void **state)
{
   (void)state;
   struct uapi_vm_map m = { 0 };
   bind(&m, 0, 8, 1, 0);
   unbind(&m, 0, 3);
   expect_map(&m, 1, (struct uapi_mapping[]){ M(3, 5, 1, 3) });
   /* unbinding from before the mapping into it cuts the same way */
   assert_int_equal(uapi_vm_map_unbind(&m, 0x100000 - K, 5 * K), 0);
   expect_map(&m, 1, (struct uapi_mapping[]){ M(4, 4, 1, 4) });
   uapi_vm_map_free(&m);
}

static void
test_split_middle(void **state)
{
   (void)state;
   struct uapi_vm_map m = { 0 };
   bind(&m, 0, 8, 1, 2);
   unbind(&m, 3, 2);
   expect_map(&m, 2, (struct uapi_mapping[]){ M(0, 3, 1, 2), M(5, 3, 1, 7) });
   /* a bind in the middle: three pieces, the new one between */
   bind(&m, 1, 1, 2, 0);
   expect_map(&m, 4, (struct uapi_mapping[]){ M(0, 1, 1, 2), M(1, 1, 2, 0), M(2, 1, 1, 4),
                                              M(5, 3, 1, 7) });
   uapi_vm_map_free(&m);
}

static void
test_split_end(void **state)
{
   (void)state;
   struct uapi_vm_map m = { 0 };
   bind(&m, 0, 8, 1, 0);
   unbind(&m, 6, 2);
   expect_map(&m, 1, (struct uapi_mapping[]){ M(0, 6, 1, 0) });
   unbind(&m, 5, 10);   /* past the end */
   expect_map(&m, 1, (struct uapi_mapping[]){ M(0, 5, 1, 0) });
   uapi_vm_map_free(&m);
}

static void
test_unbind_across(void **state)
{
   (void)state;
   struct uapi_vm_map m = { 0 };
   bind(&m, 0, 4, 1, 0);
   bind(&m, 4, 4, 2, 0);
   bind(&m, 10, 2, 3, 0);
   bind(&m, 20, 2, 4, 0);
   /* from inside 1, over 2 and 3 whole, to the gap before 4 */
   unbind(&m, 2, 12);
   expect_map(&m, 2, (struct uapi_mapping[]){ M(0, 2, 1, 0), M(20, 2, 4, 0) });
   /* an unbind of nothing mapped is a no-op */
   unbind(&m, 2, 18);
   expect_map(&m, 2, (struct uapi_mapping[]){ M(0, 2, 1, 0), M(20, 2, 4, 0) });
   uapi_vm_map_free(&m);
}

static void
test_overlap(void **state)
{
   (void)state;
   struct uapi_vm_map m = { 0 };
   bind(&m, 0, 4, 1, 0);
   bind(&m, 6, 4, 2, 0);
   /* over 1's tail, the gap and 2's head */
   bind(&m, 2, 6, 3, 1);
   expect_map(&m, 3, (struct uapi_mapping[]){ M(0, 2, 1, 0), M(2, 6, 3, 1), M(8, 2, 2, 2) });
   /* exactly over an existing mapping: replaced */
   bind(&m, 2, 6, 4, 0);
   expect_map(&m, 3, (struct uapi_mapping[]){ M(0, 2, 1, 0), M(2, 6, 4, 0), M(8, 2, 2, 2) });
   /* over everything */
   bind(&m, 0, 10, 5, 0);
   expect_map(&m, 1, (struct uapi_mapping[]){ M(0, 10, 5, 0) });
   /* binds in any order stay sorted */
   bind(&m, 30, 1, 6, 0);
   bind(&m, 20, 1, 7, 0);
   expect_map(&m, 3, (struct uapi_mapping[]){ M(0, 10, 5, 0), M(20, 1, 7, 0), M(30, 1, 6, 0) });
   uapi_vm_map_clear(&m);
   assert_int_equal(m.count, 0);
   uapi_vm_map_free(&m);
}

static void
test_find(void **state)
{
   (void)state;
   struct uapi_vm_map m = { 0 };
   bind(&m, 0, 2, 1, 3);
   assert_int_equal(uapi_vm_map_bind(&m, 0x100000 + 4 * K, 3 * K, 2, K,
                                     RW | DRM_ASAHI_BIND_SINGLE_PAGE), 0);
   assert_null(uapi_vm_map_find(&m, 0x100000 - 1));
   assert_null(uapi_vm_map_find(&m, 0x100000 + 2 * K));   /* the gap */
   assert_null(uapi_vm_map_find(&m, 0x100000 + 7 * K));   /* just past the end */
   const struct uapi_mapping *a = uapi_vm_map_find(&m, 0x100000 + K + 5);
   assert_non_null(a);
   assert_int_equal(a->handle, 1);
   uint64_t avail;
   assert_int_equal(uapi_mapping_offset(a, 0x100000 + K + 5, &avail), 4 * K + 5);
   assert_int_equal(avail, K - 5);
   /* single page: the same page at every step, never past it */
   const struct uapi_mapping *b = uapi_vm_map_find(&m, 0x100000 + 6 * K + 16);
   assert_non_null(b);
   assert_int_equal(b->handle, 2);
   assert_int_equal(uapi_mapping_offset(b, 0x100000 + 6 * K + 16, &avail), K + 16);
   assert_int_equal(avail, K - 16);
   uapi_vm_map_free(&m);
}

static void
test_errors(void **state)
{
   (void)state;
   struct uapi_vm_map m = { 0 };
   bind(&m, 0, 2, 1, 0);
   /* a range that wraps is refused and changes nothing */
   assert_int_equal(uapi_vm_map_bind(&m, UINT64_MAX - K + 1, 2 * K, 2, 0, RW), -EINVAL);
   assert_int_equal(uapi_vm_map_unbind(&m, 0x100000, UINT64_MAX), -EINVAL);
   expect_map(&m, 1, (struct uapi_mapping[]){ M(0, 2, 1, 0) });
   /* a zero range is a no-op, bind or unbind, even inside a mapping */
   assert_int_equal(uapi_vm_map_bind(&m, 0x100000 + K, 0, 2, 0, RW), 0);
   assert_int_equal(uapi_vm_map_unbind(&m, 0x100000 + K, 0), 0);
   expect_map(&m, 1, (struct uapi_mapping[]){ M(0, 2, 1, 0) });
   /* the end is exclusive: a mapping may not end at 2^64 either */
   assert_int_equal(uapi_vm_map_bind(&m, UINT64_MAX - K + 1, K, 3, 0, RW), -EINVAL);
   assert_int_equal(uapi_vm_map_bind(&m, UINT64_MAX - 2 * K + 1, K, 3, 0, RW), 0);
   assert_non_null(uapi_vm_map_find(&m, UINT64_MAX - K));
   assert_null(uapi_vm_map_find(&m, UINT64_MAX));
   assert_int_equal(m.count, 2);
   uapi_vm_map_free(&m);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vm_map),
      cmocka_unit_test(test_split_start),
      cmocka_unit_test(test_split_middle),
      cmocka_unit_test(test_split_end),
      cmocka_unit_test(test_unbind_across),
      cmocka_unit_test(test_overlap),
      cmocka_unit_test(test_find),
      cmocka_unit_test(test_errors),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
