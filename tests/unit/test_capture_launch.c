/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the capture library's public launcher (capture/capture.h):
 * which requests it refuses, the environment it builds (and that it leaves
 * the caller's alone), and running programs: exit status, signals,
 * programs that cannot run, the forwarded trigger signal.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/capture.h"

/* A readable shared object that is harmless to preload into sh: the
 * cmocka library this test runs in. */
static const char *
harmless_layer(void)
{
   static char path[PATH_MAX];
   Dl_info info;
   if (!path[0] && dladdr((void *)&_cmocka_run_group_tests, &info) && info.dli_fname)
      snprintf(path, sizeof(path), "%s", info.dli_fname);
   return path;
}

static void
test_check(void **state)
{
   (void)state;
   char err[256];
   struct capture_request r = { .output = "t.tsr", .layer = "x.so" };
   assert_int_equal(capture_check(&r, err, sizeof(err)), 0);
   r.frames = "3-1";
   assert_int_equal(capture_check(&r, err, sizeof(err)), -EINVAL);
   assert_string_equal(err, "bad frame range: 3-1");
   r.frames = "2-";
   r.submits = "-";
   assert_int_equal(capture_check(&r, err, sizeof(err)), -EINVAL);
   assert_string_equal(err, "bad submission range: -");
   r.submits = "-9";
   r.signal = "KILL";
   assert_int_equal(capture_check(&r, err, sizeof(err)), -EINVAL);
   assert_string_equal(err, "bad signal: KILL");
   r.signal = "none";
   r.mem = "both";
   assert_int_equal(capture_check(&r, err, sizeof(err)), -EINVAL);
   assert_string_equal(err, "bad --mem (hash|wp): both");
   r.mem = "hash";
   assert_int_equal(capture_check(&r, err, sizeof(err)), 0);
   r.output = NULL;
   assert_int_equal(capture_check(&r, err, sizeof(err)), -EINVAL);
   assert_string_equal(err, "no output file (-o FILE)");
}

static const char *
lookup(char **env, const char *name)
{
   size_t n = strlen(name);
   const char *found = NULL;
   for (char **p = env; *p; p++) {
      if (strncmp(*p, name, n) == 0 && (*p)[n] == '=') {
         assert_null(found);   /* each variable once */
         found = *p + n + 1;
      }
   }
   return found;
}

static void
test_environ(void **state)
{
   (void)state;
   char err[256], cwd[PATH_MAX], want[PATH_MAX * 2];
   const char *layer = harmless_layer();
   assert_true(layer[0]);
   char *base[] = { "PATH=/bin", "TESSERA_CAPTURE_FRAMES=9-9", "TESSERA_CAPTURE_FLUSH_MS=5",
                    "LD_PRELOAD=/x/libfoo.so:/usr/lib/libasan.so.8", NULL };
   struct capture_request r = { .output = "out/t.tsr", .frames = "1-3", .frame_every = 0x10,
                                .start_off = true, .quiet = true, .layer = layer,
                                .shim = "/s/tessera-shim.so" };
   char **env = capture_environ(&r, base, err, sizeof(err));
   assert_non_null(env);
   assert_non_null(getcwd(cwd, sizeof(cwd)));
   snprintf(want, sizeof(want), "%s/out/t.tsr", cwd);
   assert_string_equal(lookup(env, "TESSERA_CAPTURE_FILE"), want);
   assert_string_equal(lookup(env, "TESSERA_CAPTURE_FRAMES"), "1-3");   /* request wins */
   assert_string_equal(lookup(env, "TESSERA_CAPTURE_FLUSH_MS"), "5");   /* kept */
   assert_string_equal(lookup(env, "TESSERA_CAPTURE_FRAME_EVERY"), "16");
   assert_string_equal(lookup(env, "TESSERA_CAPTURE_START"), "off");
   assert_string_equal(lookup(env, "TESSERA_CAPTURE_QUIET"), "1");
   assert_null(lookup(env, "TESSERA_CAPTURE_REPORT"));
   assert_null(lookup(env, "TESSERA_CAPTURE_SUBMITS"));
   assert_null(lookup(env, "TESSERA_CAPTURE_MEM"));
   assert_string_equal(lookup(env, "PATH"), "/bin");
   char real[PATH_MAX];
   assert_non_null(realpath(layer, real));
   snprintf(want, sizeof(want), "/usr/lib/libasan.so.8 %s /s/tessera-shim.so /x/libfoo.so",
            real);
   assert_string_equal(lookup(env, "LD_PRELOAD"), want);
   capture_environ_free(env);
   assert_string_equal(base[1], "TESSERA_CAPTURE_FRAMES=9-9");

   /* no LD_PRELOAD before; an unreadable layer is refused */
   char *bare[] = { NULL };
   r.shim = NULL;
   env = capture_environ(&r, bare, err, sizeof(err));
   assert_non_null(env);
   assert_string_equal(lookup(env, "LD_PRELOAD"), real);
   capture_environ_free(env);
   r.report = true;   /* the root process reports the traces (capture_exec) */
   env = capture_environ(&r, bare, err, sizeof(err));
   assert_non_null(env);
   assert_string_equal(lookup(env, "TESSERA_CAPTURE_REPORT"), "1");
   capture_environ_free(env);
   r.layer = "/nonexistent/tessera-capture.so";
   assert_null(capture_environ(&r, bare, err, sizeof(err)));
   assert_string_equal(err, "cannot read the capture layer: /nonexistent/tessera-capture.so");
}

static int
run_sh(const struct capture_request *r, const char *script, char *err, size_t len)
{
   char *argv[] = { "sh", "-c", (char *)script, NULL };
   return capture_run(r, argv, err, len);
}

static void
test_run(void **state)
{
   (void)state;
   char err[256];
   struct capture_request r = { .output = "/tmp/never-written.tsr", .layer = harmless_layer(),
                                .start_off = true };
   assert_int_equal(run_sh(&r, "exit 3", err, sizeof(err)), 3);
   assert_string_equal(err, "");
   assert_int_equal(run_sh(&r, "kill -9 $$", err, sizeof(err)), 128 + SIGKILL);
   /* what the layer will read, and the root process is the program */
   assert_int_equal(run_sh(&r,
                           "test \"$TESSERA_CAPTURE_ROOT_PID\" = $$ && "
                           "test \"$TESSERA_CAPTURE_START\" = off && "
                           "test \"$TESSERA_CAPTURE_FILE\" = /tmp/never-written.tsr",
                           err, sizeof(err)), 0);
   assert_null(getenv("TESSERA_CAPTURE_FILE"));   /* ours is untouched */
   char *missing[] = { "/nonexistent/program", NULL };
   assert_int_equal(capture_run(&r, missing, err, sizeof(err)), 127);
   assert_string_equal(err, "cannot run /nonexistent/program: No such file or directory");
   r.mem = "bad";
   assert_int_equal(run_sh(&r, "exit 0", err, sizeof(err)), -1);
   assert_string_equal(err, "bad --mem (hash|wp): bad");
}

/* capture_enter() makes the caller's own environment the program's (in a
 * child: it is the process's). A refused request changes nothing. */
static void
test_enter(void **state)
{
   (void)state;
   pid_t pid = fork();
   assert_true(pid >= 0);
   if (pid == 0) {
      char err[256], want[64];
      char *argv[] = { "tessera", "run", NULL };
      struct capture_request r = { .output = "/tmp/never-written.tsr", .layer = harmless_layer(),
                                   .mem = "bad" };
      setenv("TESSERA_CAPTURE_ROOT_PID", "1", 1);   /* an outer capture's */
      setenv("KEEP_ME", "yes", 1);
      if (capture_enter(&r, argv, err, sizeof(err)) != -1 ||
          strcmp(err, "bad --mem (hash|wp): bad") || getenv("TESSERA_CAPTURE_FILE") ||
          strcmp(getenv("TESSERA_CAPTURE_ROOT_PID"), "1"))
         _exit(1);
      r.mem = "hash";
      r.start_off = true;
      if (capture_enter(&r, argv, err, sizeof(err)) != 0)
         _exit(2);
      snprintf(want, sizeof(want), "%d", (int)getpid());
      const char *pre = getenv("LD_PRELOAD"), *file = getenv("TESSERA_CAPTURE_FILE");
      if (!file || strcmp(file, "/tmp/never-written.tsr") ||
          strcmp(getenv("TESSERA_CAPTURE_ROOT_PID"), want) ||
          strcmp(getenv("TESSERA_CAPTURE_MEM"), "hash") ||
          strcmp(getenv("TESSERA_CAPTURE_START"), "off") || strcmp(getenv("KEEP_ME"), "yes") ||
          !pre || !strstr(pre, "cmocka"))
         _exit(3);
      /* what the exec'd program sees */
      char *sh[] = { "sh", "-c", "test \"$TESSERA_CAPTURE_ROOT_PID\" = $$ && test \"$KEEP_ME\" = yes",
                     NULL };
      execvp(sh[0], sh);
      _exit(4);
   }
   int status;
   assert_int_equal(waitpid(pid, &status, 0), pid);
   assert_true(WIFEXITED(status));
   assert_int_equal(WEXITSTATUS(status), 0);
   assert_null(getenv("TESSERA_CAPTURE_FILE"));   /* ours is untouched */
}

/* The trigger signal sent to the caller reaches the program; the
 * caller's handler is back afterwards. */
static void
test_forward(void **state)
{
   (void)state;
   char err[256];
   struct capture_request r = { .output = "/tmp/never-written.tsr", .layer = harmless_layer(),
                                .signal = "USR2" };
   assert_int_equal(run_sh(&r,
                           "trap 'exit 42' USR2; kill -USR2 $PPID; i=0; "
                           "while [ $i -lt 2000000 ]; do i=$((i+1)); done; exit 1",
                           err, sizeof(err)), 42);
   struct sigaction now;
   assert_int_equal(sigaction(SIGUSR2, NULL, &now), 0);
   assert_ptr_equal(now.sa_handler, SIG_DFL);
   assert_int_equal(sigaction(SIGINT, NULL, &now), 0);
   assert_ptr_equal(now.sa_handler, SIG_DFL);
}

/* The window between fork() returning in the launcher and the launcher
 * knowing the child's pid, held open for 300 ms by a fork handler that
 * runs in exactly that place. A trigger the program sends at once (as a
 * program that captures itself from its first frame does) lands in that
 * window; it must still reach the program. Under load the scheduler made
 * that window on its own now and then. */
static volatile int slow_parent;

static void
after_fork_in_parent(void)
{
   if (!slow_parent)
      return;
   struct timespec until, now;
   clock_gettime(CLOCK_MONOTONIC, &until);
   until.tv_nsec += 300 * 1000000L;
   until.tv_sec += until.tv_nsec / 1000000000L;
   until.tv_nsec %= 1000000000L;
   do {   /* a signal delivered here interrupts the sleep: sleep on */
      struct timespec left;
      clock_gettime(CLOCK_MONOTONIC, &now);
      left.tv_sec = until.tv_sec - now.tv_sec;
      left.tv_nsec = until.tv_nsec - now.tv_nsec;
      if (left.tv_nsec < 0) {
         left.tv_sec--;
         left.tv_nsec += 1000000000L;
      }
      if (left.tv_sec < 0)
         break;
      nanosleep(&left, NULL);
   } while (1);
}

static void
test_forward_before_pid_known(void **state)
{
   (void)state;
   static bool registered;
   if (!registered)
      assert_int_equal(pthread_atfork(NULL, after_fork_in_parent, NULL), 0);
   registered = true;
   char err[256];
   struct capture_request r = { .output = "/tmp/never-written.tsr", .layer = harmless_layer(),
                                .signal = "USR2" };
   slow_parent = 1;
   int rc = run_sh(&r,
                   "trap 'exit 42' USR2; kill -USR2 $PPID; i=0; "
                   "while [ $i -lt 2000000 ]; do i=$((i+1)); done; exit 1",
                   err, sizeof(err));
   slow_parent = 0;
   assert_int_equal(rc, 42);
   struct sigaction now;
   assert_int_equal(sigaction(SIGUSR2, NULL, &now), 0);
   assert_ptr_equal(now.sa_handler, SIG_DFL);
   sigset_t mask;
   assert_int_equal(sigprocmask(SIG_SETMASK, NULL, &mask), 0);
   assert_false(sigismember(&mask, SIGUSR2));   /* the caller's mask is back */
   assert_false(sigismember(&mask, SIGINT));
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_check),
      cmocka_unit_test(test_environ),
      cmocka_unit_test(test_run),
      cmocka_unit_test(test_enter),
      cmocka_unit_test(test_forward),
      cmocka_unit_test(test_forward_before_pid_known),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
