/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the capture layer's process-independent parts: options
 * from the environment, ranges and signals, trace naming and command-buffer
 * timestamp scanning, userfaultfd write tracking (cap_uffd.h). The VM mapping list and the shader index the layer
 * uses are tested with uapi/ (test_uapi_vm_map, test_uapi_shaders).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture/cap_cmdbuf.h"
#include "capture/cap_options.h"
#include "capture/cap_uffd.h"
#include "drm-uapi/asahi_drm.h"

/* ------------------------------------------------------------- options */

static const char *const *fake_env;

static const char *
fake_getenv(const char *name)
{
   for (const char *const *e = fake_env; e && *e; e += 2)
      if (strcmp(e[0], name) == 0)
         return e[1];
   return NULL;
}

static int
parse(const char *const *env, struct cap_options *o, char *err)
{
   fake_env = env;
   return cap_options_parse(o, fake_getenv, err, 256);
}

static void
test_options(void **state)
{
   (void)state;
   struct cap_options o;
   char err[256];
   const char *const none[] = { NULL };
   assert_int_equal(parse(none, &o, err), -EINVAL);
   assert_string_equal(err, "TESSERA_CAPTURE_FILE is not set");

   const char *const minimal[] = { "TESSERA_CAPTURE_FILE", "/tmp/x.tsr", NULL };
   assert_int_equal(parse(minimal, &o, err), 0);
   assert_string_equal(o.path, "/tmp/x.tsr");
   /* not USR1 or USR2: apitrace's retracers catch both (docs/capture.md) */
   assert_int_equal(o.trigger_signal, SIGRTMIN + 7);
   assert_int_equal(o.trigger_signal, cap_default_signal());
   assert_false(o.have_frames);
   assert_false(o.have_submits);
   assert_false(o.start_off);
   assert_int_equal(o.mem, CAP_MEM_WP);
   assert_int_equal(o.flush_ms, 50);
   assert_int_equal(o.root_pid, 0);
   assert_false(o.gpu_memory_full);   /* keyframes (docs/capture.md) */
   assert_int_equal(o.keyframe_every, CAP_DEFAULT_KEYFRAME_EVERY);
   assert_int_equal(o.zstd_level, CAP_DEFAULT_ZSTD_LEVEL);
   assert_true(o.wp_hot_first);

   const char *const full[] = {
      "TESSERA_CAPTURE_FILE", "a.tsr", "TESSERA_CAPTURE_FRAMES", "3-5",
      "TESSERA_CAPTURE_SUBMITS", "10-", "TESSERA_CAPTURE_SIGNAL", "SIGUSR2",
      "TESSERA_CAPTURE_TRIGGER_FILE", "/tmp/go", "TESSERA_CAPTURE_START", "off",
      "TESSERA_CAPTURE_FRAME_EVERY", "25", "TESSERA_CAPTURE_MEM", "hash",
      "TESSERA_CAPTURE_FRAME_ON", "finish", "TESSERA_CAPTURE_ROOT_PID", "1234", "TESSERA_CAPTURE_QUIET", "1", NULL,
   };
   assert_int_equal(parse(full, &o, err), 0);
   assert_true(o.have_frames);
   assert_int_equal(o.frames.first, 3);
   assert_int_equal(o.frames.last, 5);
   assert_true(o.have_submits);
   assert_int_equal(o.submits.first, 10);
   assert_true(o.submits.last == UINT64_MAX);
   assert_int_equal(o.trigger_signal, SIGUSR2);
   assert_string_equal(o.trigger_file, "/tmp/go");
   assert_true(o.start_off);
   assert_int_equal(o.frame_every, 25);
   assert_int_equal(o.mem, CAP_MEM_HASH);
   assert_int_equal(o.frame_on, CAP_FRAME_ON_FINISH);
   assert_int_equal(o.root_pid, 1234);
   assert_true(o.quiet);

   const char *const bad_frames[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_FRAMES",
                                      "5-3", NULL };
   assert_int_equal(parse(bad_frames, &o, err), -EINVAL);
   assert_string_equal(err, "bad frame range: '5-3'");
   const char *const bad_mem[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_MEM",
                                   "fast", NULL };
   assert_int_equal(parse(bad_mem, &o, err), -EINVAL);
   assert_false(o.wp_uffd);   /* default: mprotect */
   const char *const wp_track[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_WP_TRACK",
                                    "uffd", NULL };
   assert_int_equal(parse(wp_track, &o, err), 0);
   assert_true(o.wp_uffd && !o.wp_mixed);
   const char *const wp_mixed[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_WP_TRACK",
                                    "mixed", NULL };
   assert_int_equal(parse(wp_mixed, &o, err), 0);
   assert_true(o.wp_mixed && o.wp_uffd);
   const char *const bad_track[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_WP_TRACK",
                                     "sigsegv", NULL };
   assert_int_equal(parse(bad_track, &o, err), -EINVAL);
   assert_int_equal(o.wp_fault_delay_us, 0);   /* default: no delay */
   const char *const delay[] = { "TESSERA_CAPTURE_FILE", "a",
                                 "TESSERA_CAPTURE_TEST_WP_FAULT_DELAY_US", "500", NULL };
   assert_int_equal(parse(delay, &o, err), 0);
   assert_int_equal(o.wp_fault_delay_us, 500);
   const char *const bad_delay[] = { "TESSERA_CAPTURE_FILE", "a",
                                     "TESSERA_CAPTURE_TEST_WP_FAULT_DELAY_US", "5s", NULL };
   assert_int_equal(parse(bad_delay, &o, err), -EINVAL);
   const char *const bad_sig[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_SIGNAL",
                                   "KILL", NULL };
   assert_int_equal(parse(bad_sig, &o, err), -EINVAL);
   const char *const bad_pid[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_ROOT_PID",
                                   "12x", NULL };
   assert_int_equal(parse(bad_pid, &o, err), -EINVAL);
   const char *const gpu_full[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_GPU_MEMORY",
                                    "full", "TESSERA_CAPTURE_KEYFRAME_EVERY", "7", NULL };
   assert_int_equal(parse(gpu_full, &o, err), 0);
   assert_true(o.gpu_memory_full);
   assert_int_equal(o.keyframe_every, 7);
   const char *const bad_gpu[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_GPU_MEMORY",
                                   "some", NULL };
   assert_int_equal(parse(bad_gpu, &o, err), -EINVAL);
   const char *const bad_key[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_KEYFRAME_EVERY",
                                   "0", NULL };
   assert_int_equal(parse(bad_key, &o, err), -EINVAL);
   const char *const bad_on[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_FRAME_ON",
                                  "present", NULL };
   assert_int_equal(parse(bad_on, &o, err), -EINVAL);
   assert_int_equal(parse((const char *const[]){ "TESSERA_CAPTURE_FILE", "a", NULL }, &o, err), 0);
   assert_int_equal(o.frame_on, CAP_FRAME_ON_SWAP);
   assert_int_equal(cap_frame_on_parse("submit"), CAP_FRAME_ON_SUBMIT);
   assert_int_equal(cap_frame_on_parse("flush"), CAP_FRAME_ON_FLUSH);
   const char *const hot0[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_TEST_WP_HOT_FIRST",
                                "0", NULL };
   assert_int_equal(parse(hot0, &o, err), 0);
   assert_false(o.wp_hot_first);
   assert_true(o.wp_hot_idle_grow);   /* the default */
   assert_true(o.wp_ahead);           /* the default */
   assert_true(o.wp_append);          /* the default */
   const char *const hotbad[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_TEST_WP_HOT_FIRST",
                                  "yes", NULL };
   assert_int_equal(parse(hotbad, &o, err), -EINVAL);
   const char *const idle0[] = { "TESSERA_CAPTURE_FILE", "a",
                                 "TESSERA_CAPTURE_TEST_WP_HOT_IDLE_GROW", "0", NULL };
   assert_int_equal(parse(idle0, &o, err), 0);
   assert_false(o.wp_hot_idle_grow);
   const char *const idlebad[] = { "TESSERA_CAPTURE_FILE", "a",
                                   "TESSERA_CAPTURE_TEST_WP_HOT_IDLE_GROW", "2", NULL };
   assert_int_equal(parse(idlebad, &o, err), -EINVAL);
   const char *const ahead0[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_TEST_WP_AHEAD",
                                  "0", NULL };
   assert_int_equal(parse(ahead0, &o, err), 0);
   assert_false(o.wp_ahead);
   const char *const aheadbad[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_TEST_WP_AHEAD",
                                    "on", NULL };
   assert_int_equal(parse(aheadbad, &o, err), -EINVAL);
   const char *const append0[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_TEST_WP_APPEND",
                                   "0", NULL };
   assert_int_equal(parse(append0, &o, err), 0);
   assert_false(o.wp_append);
   const char *const appendbad[] = { "TESSERA_CAPTURE_FILE", "a",
                                     "TESSERA_CAPTURE_TEST_WP_APPEND", "x", NULL };
   assert_int_equal(parse(appendbad, &o, err), -EINVAL);
   /* zstd levels: 1..19 and zstd's fast levels -1..-50 */
   const char *const zfast[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_ZSTD_LEVEL",
                                 "-3", NULL };
   assert_int_equal(parse(zfast, &o, err), 0);
   assert_int_equal(o.zstd_level, -3);
   const char *const z19[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_ZSTD_LEVEL",
                               "19", NULL };
   assert_int_equal(parse(z19, &o, err), 0);
   assert_int_equal(o.zstd_level, 19);
   const char *const zbad[] = { "0", "20", "-51", "fast", "1x", "--1", "-", NULL };
   for (unsigned i = 0; zbad[i]; i++) {
      const char *const env[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_ZSTD_LEVEL",
                                  zbad[i], NULL };
      assert_int_equal(parse(env, &o, err), -EINVAL);
   }
   const char *const no_sig[] = { "TESSERA_CAPTURE_FILE", "a", "TESSERA_CAPTURE_SIGNAL",
                                  "none", NULL };
   assert_int_equal(parse(no_sig, &o, err), 0);
   assert_int_equal(o.trigger_signal, 0);
}

/* ---------------------------------------------------------------- uffd */

struct runs {
   uintptr_t base;
   long page;
   unsigned n;
   long p[8], q[8];
};

static void
on_run(void *ctx, uintptr_t start, uintptr_t end)
{
   struct runs *r = ctx;
   assert_true(r->n < 8);
   r->p[r->n] = (long)((start - r->base) / (uintptr_t)r->page);
   r->q[r->n++] = (long)((end - r->base) / (uintptr_t)r->page);
}

static long
scan(const struct cap_uffd *u, char *p, size_t len, struct runs *r)
{
   r->base = (uintptr_t)p;
   r->page = sysconf(_SC_PAGESIZE);
   r->n = 0;
   return cap_uffd_scan(u, p, len, true, on_run, r);
}

/* Writes between two scans (the layer's two submissions) are found, each
 * once, on a shared memfd mapping as the shim's GEM objects are; also a
 * page first touched after tracking started. */
static void
test_uffd_tracks_writes(void **state)
{
   (void)state;
   struct cap_uffd u;
   int e = cap_uffd_open(&u);
   if (e == -ENOSYS || e == -EPERM || e == -EINVAL) {
      print_message("no async userfaultfd write-protection here (%s): skipped\n", strerror(-e));
      skip();
   }
   assert_int_equal(e, 0);
   long pg = sysconf(_SC_PAGESIZE);
   size_t len = 16 * (size_t)pg;
   int fd = memfd_create("test-uffd", MFD_CLOEXEC);
   assert_true(fd >= 0);
   assert_int_equal(ftruncate(fd, (off_t)len), 0);
   char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
   assert_true(p != MAP_FAILED);
   p[1 * pg] = 1;   /* populated before tracking, the rest not */
   assert_int_equal(cap_uffd_track(&u, p, len), 0);
   struct runs r;
   assert_int_equal(scan(&u, p, len, &r), 0);
   p[3 * pg] = 2;
   p[4 * pg + 7] = 3;
   p[9 * pg] = 4;
   p[1 * pg] = 5;
   assert_int_equal(scan(&u, p, len, &r), 4);
   assert_int_equal(r.n, 3);
   assert_int_equal(r.p[0], 1);
   assert_int_equal(r.q[0], 2);
   assert_int_equal(r.p[1], 3);
   assert_int_equal(r.q[1], 5);
   assert_int_equal(r.p[2], 9);
   assert_int_equal(r.q[2], 10);
   /* protected again by the scan: nothing new, then a rewrite is found */
   assert_int_equal(scan(&u, p, len, &r), 0);
   p[4 * pg] = 6;
   assert_int_equal(scan(&u, p, len, &r), 1);
   assert_int_equal(r.p[0], 4);
   /* a system call writing into a protected page succeeds (the kernel
    * resolves the fault), and is found */
   int pipefd[2];
   assert_int_equal(pipe(pipefd), 0);
   assert_int_equal(write(pipefd[1], "x", 1), 1);
   assert_int_equal(read(pipefd[0], p + 12 * pg, 1), 1);
   assert_int_equal(scan(&u, p, len, &r), 1);
   assert_int_equal(r.p[0], 12);
   close(pipefd[0]);
   close(pipefd[1]);
   munmap(p, len);
   close(fd);
   cap_uffd_close(&u);
}

/* A mapping the kernel refuses to track is left as it was, writable (the
 * layer then tracks it with mprotect): here one that another userfaultfd
 * (the program's own) tracks already. A scan over an untracked mapping
 * fails instead of reporting nothing written (the layer then reads the
 * object whole and falls back to mprotect). */
static void
test_uffd_refuses(void **state)
{
   (void)state;
   struct cap_uffd u, other;
   int e = cap_uffd_open(&u);
   if (e == -ENOSYS || e == -EPERM || e == -EINVAL)
      skip();
   assert_int_equal(e, 0);
   assert_int_equal(cap_uffd_open(&other), 0);
   long pg = sysconf(_SC_PAGESIZE);
   size_t len = 4 * (size_t)pg;
   char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
   assert_true(p != MAP_FAILED);
   struct runs r;
   assert_true(scan(&u, p, len, &r) < 0);   /* not tracked yet */
   assert_int_equal(cap_uffd_track(&other, p, len), 0);
   assert_int_equal(cap_uffd_track(&u, p, len), -EBUSY);
   cap_uffd_close(&other);   /* its registration ends with it */
   p[pg] = 1;   /* writable */
   assert_true(scan(&u, p, len, &r) < 0);
   /* and now ours is accepted */
   assert_int_equal(cap_uffd_track(&u, p, len), 0);
   p[2 * pg] = 1;
   assert_int_equal(scan(&u, p, len, &r), 1);
   assert_int_equal(r.p[0], 2);
   /* not strict: one scan over the span of a tracked and an untracked
    * mapping reports the tracked one's writes only */
   char *q = mmap(NULL, 3 * len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
   assert_true(q != MAP_FAILED);
   assert_int_equal(cap_uffd_track(&u, q, len), 0);
   assert_int_equal(cap_uffd_track(&u, q + 2 * len, len), 0);
   q[len + 1] = 1;   /* untracked, between the two */
   q[2 * len + 3 * pg] = 1;
   r.base = (uintptr_t)q;
   r.n = 0;
   assert_int_equal(cap_uffd_scan(&u, q, 3 * len, false, on_run, &r), 1);
   assert_int_equal(r.p[0], 11);
   assert_true(cap_uffd_scan(&u, q, 3 * len, true, NULL, NULL) < 0);
   munmap(q, 3 * len);
   munmap(p, len);
   /* a closed tracker refuses everything */
   cap_uffd_close(&u);
   assert_int_equal(cap_uffd_track(&u, p, len), -EBADF);
}

static void
test_ranges(void **state)
{
   (void)state;
   struct cap_range r;
   assert_int_equal(cap_range_parse("2-7", &r), 0);
   assert_int_equal(r.first, 2);
   assert_int_equal(r.last, 7);
   assert_true(cap_range_has(&r, 2) && cap_range_has(&r, 7));
   assert_false(cap_range_has(&r, 1) || cap_range_has(&r, 8));
   assert_int_equal(cap_range_parse("4", &r), 0);
   assert_true(r.first == 4 && r.last == 4);
   assert_int_equal(cap_range_parse("-9", &r), 0);
   assert_true(r.first == 0 && r.last == 9);
   assert_int_equal(cap_range_parse("0-", &r), 0);
   assert_true(r.first == 0 && r.last == UINT64_MAX);
   const char *bad[] = { "", "-", "a-3", "3-b", "3--4", "3-4x", " 3", "7-2",
                         "99999999999999999999999" };
   for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
      assert_int_equal(cap_range_parse(bad[i], &r), -EINVAL);

   assert_int_equal(cap_signal_parse("USR1"), SIGUSR1);
   assert_int_equal(cap_signal_parse("sigusr2"), SIGUSR2);
   assert_int_equal(cap_signal_parse("12"), 12);
   assert_int_equal(cap_signal_parse("none"), 0);
   assert_int_equal(cap_signal_parse("9"), -1);
   assert_int_equal(cap_signal_parse("11"), -1);
   assert_int_equal(cap_signal_parse("BOGUS"), -1);
   /* real-time signals, by name relative to RTMIN/RTMAX or by number */
   assert_int_equal(cap_signal_parse("RTMIN"), SIGRTMIN);
   assert_int_equal(cap_signal_parse("SIGRTMIN+7"), SIGRTMIN + 7);
   assert_int_equal(cap_signal_parse("rtmax-2"), SIGRTMAX - 2);
   assert_int_equal(cap_signal_parse("RTMAX"), SIGRTMAX);
   char num[16];
   snprintf(num, sizeof(num), "%d", SIGRTMIN + 3);
   assert_int_equal(cap_signal_parse(num), SIGRTMIN + 3);
   const char *badsig[] = { "RTMIN-1", "RTMAX+1", "RTMIN+", "RTMIN+x", "RTMIN+99", "32", "33",
                            "65", "0" };
   for (unsigned i = 0; i < sizeof(badsig) / sizeof(badsig[0]); i++)
      assert_int_equal(cap_signal_parse(badsig[i]), -1);
   /* names read back */
   char name[32];
   assert_string_equal(cap_signal_name(SIGRTMIN + 7, name, sizeof(name)), "RTMIN+7");
   assert_string_equal(cap_signal_name(SIGUSR2, name, sizeof(name)), "USR2");
   assert_string_equal(cap_signal_name(0, name, sizeof(name)), "none");
   assert_int_equal(cap_signal_parse(cap_signal_name(SIGRTMAX, name, sizeof(name))), SIGRTMAX);
}

static void
test_naming(void **state)
{
   (void)state;
   char p[64];
   assert_true(cap_trace_path("out/run.tsr", 42, true, p, sizeof(p)));
   assert_string_equal(p, "out/run.tsr");
   assert_true(cap_trace_path("out/run.tsr", 42, false, p, sizeof(p)));
   assert_string_equal(p, "out/run.42.tsr");
   assert_true(cap_trace_path("trace", 7, false, p, sizeof(p)));
   assert_string_equal(p, "trace.7.tsr");
   assert_false(cap_trace_path("a-very-long-name-that-does-not-fit.tsr", 123456, false, p, 20));
}

/* ------------------------------------------------------------ cmdbufs */

static size_t
put(uint8_t *buf, size_t pos, uint16_t type, const void *payload, uint16_t size)
{
   struct drm_asahi_cmd_header h = { type, size, 0, 0 };
   memcpy(buf + pos, &h, sizeof(h));
   memcpy(buf + pos + sizeof(h), payload, size);
   return pos + sizeof(h) + size;
}

static void
test_cmdbuf(void **state)
{
   (void)state;
   uint8_t buf[2048];
   struct drm_asahi_cmd_compute c = { .ts = { { 5, 0 }, { 5, 8 } } };
   struct drm_asahi_cmd_render r = { .ts_vtx = { { 6, 16 }, { 0, 0 } },
                                     .ts_frag = { { 0, 0 }, { 6, 24 } } };
   struct drm_asahi_attachment a[2] = { 0 };
   size_t n = put(buf, 0, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, a, sizeof(a));
   n = put(buf, n, DRM_ASAHI_CMD_COMPUTE, &c, sizeof(c));
   n = put(buf, n, DRM_ASAHI_CMD_RENDER, &r, sizeof(r));
   struct cap_ts_ref ts[8];
   unsigned cmds = 0;
   assert_int_equal(cap_cmdbuf_timestamps(buf, n, ts, 8, &cmds), 4);
   assert_int_equal(cmds, 2);
   assert_true(ts[0].object_handle == 5 && ts[0].offset == 0);
   assert_true(ts[1].object_handle == 5 && ts[1].offset == 8);
   assert_true(ts[2].object_handle == 6 && ts[2].offset == 16);
   assert_true(ts[3].object_handle == 6 && ts[3].offset == 24);
   /* more than fit: counted, not written past max */
   memset(ts, 0xee, sizeof(ts));
   assert_int_equal(cap_cmdbuf_timestamps(buf, n, ts, 1, NULL), 4);
   assert_int_equal(ts[1].object_handle, 0xeeeeeeee);
   /* a short (older) compute payload is zero extended: no timestamps */
   size_t m = put(buf, 0, DRM_ASAHI_CMD_COMPUTE, &c, offsetof(struct drm_asahi_cmd_compute, ts));
   assert_int_equal(cap_cmdbuf_timestamps(buf, m, ts, 8, &cmds), 0);
   assert_int_equal(cmds, 1);
   /* truncated header or payload */
   assert_int_equal(cap_cmdbuf_timestamps(buf, 5, ts, 8, NULL), -EINVAL);
   assert_int_equal(cap_cmdbuf_timestamps(buf, m - 1, ts, 8, NULL), -EINVAL);
   assert_int_equal(cap_cmdbuf_timestamps(buf, 0, ts, 8, &cmds), 0);
   assert_int_equal(cmds, 0);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_options),
      cmocka_unit_test(test_ranges),
      cmocka_unit_test(test_naming),
      cmocka_unit_test(test_cmdbuf),
      cmocka_unit_test(test_uffd_tracks_writes),
      cmocka_unit_test(test_uffd_refuses),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
