/* SPDX-License-Identifier: MIT */
/*
 * capture_overhead: what `tessera capture` adds to a submission-heavy scene
 * program (capture_scene on the render-node shim), for each page-change
 * strategy (hash, wp), measured so that the answer survives a noisy shared
 * machine:
 *
 *  - the child's CPU time (user + sys from wait4(), which sums every thread
 *    of the process, so the layer's writer and reaper threads are included)
 *    and its wall time, ROUNDS rounds of one run per mode, the order of the
 *    modes rotating from round to round so that drift in the machine's speed
 *    hits every mode alike;
 *  - medians, the ratio of medians and a percentile-bootstrap 95 % interval
 *    of that ratio (rounds resampled as a whole, which keeps the runs of one
 *    round together; fixed seed, so a run's output is reproducible from its
 *    samples);
 *  - instruction counts through `perf stat` when the machine has the
 *    counter (they hardly move between runs); otherwise the output says so.
 *
 * The verdict per strategy uses instructions when available, else CPU time:
 * met when the whole interval is <= 3 %, not met when all of it is above,
 * inconclusive when it straddles the goal.
 *
 *   capture_overhead [-n SUBMITS] [-s FLOATS] [-r ROUNDS] [-i IROUNDS]
 *                    [-b RESAMPLES] [-t HW_THREADS] [-P]
 *
 * Needs build/release/lib/{tessera-shim,tessera-capture}.so next to the
 * binary's build directory. Exit 0 unless a run fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROUNDS 101
#define NMODES 3
#define GOAL_PCT 3.0

static char scene[PATH_MAX], shim[PATH_MAX], layer[PATH_MAX], tmpdir[64];
static char perf_file[128], trace_file[128];
static const char *perf_event;   /* NULL: no usable instruction counter */

static const char *const modes[NMODES] = { NULL, "hash", "wp" };
static const char *const mode_names[NMODES] = { "no capture", "capture --mem hash",
                                                "capture --mem wp" };

struct sample {
   double wall, cpu, insns;
};

static double
now_s(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double
tv_s(struct timeval tv)
{
   return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static void
quiet_child(void)
{
   int fd = open("/dev/null", O_WRONLY);
   if (fd < 0)
      _exit(126);
   dup2(fd, STDOUT_FILENO);
   dup2(fd, STDERR_FILENO);
   close(fd);
}

/*
 * Reads the value of the first CSV line `value,unit,event,...` that perf
 * wrote; "<not supported>" and "<not counted>" are not numbers.
 */
static int
read_perf_count(double *out)
{
   FILE *f = fopen(perf_file, "r");
   if (!f)
      return -1;
   char line[512];
   int rc = -1;
   while (fgets(line, sizeof(line), f)) {
      if (line[0] == '#' || line[0] == '\n')
         continue;
      char *end;
      errno = 0;
      double v = strtod(line, &end);
      if (end != line && *end == ',' && !errno && strstr(end, "instructions")) {
         *out = v;
         rc = 0;
      }
      break;
   }
   fclose(f);
   unlink(perf_file);
   return rc;
}

/* Whether `perf stat -e EVENT true` yields a count on this machine. */
static int
perf_probe(const char *event)
{
   pid_t pid = fork();
   if (pid < 0)
      return 0;
   if (pid == 0) {
      quiet_child();
      execlp("perf", "perf", "stat", "-x,", "-o", perf_file, "-e", event, "--", "true",
             (char *)NULL);
      _exit(127);
   }
   int st;
   if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
      unlink(perf_file);
      return 0;
   }
   double v;
   return read_perf_count(&v) == 0 && v > 0;
}

/* mode: NULL = no capture, else the strategy; count: run under perf stat */
static int
run(const char *mode, const char *n, const char *size, const char *threads, int count,
    struct sample *out)
{
   double t0 = now_s();
   pid_t pid = fork();
   if (pid < 0)
      return -1;
   if (pid == 0) {
      char pre[2 * PATH_MAX + 2];
      if (mode) {
         snprintf(pre, sizeof(pre), "%s %s", layer, shim);
         setenv("TESSERA_CAPTURE_FILE", trace_file, 1);
         setenv("TESSERA_CAPTURE_MEM", mode, 1);
         setenv("TESSERA_CAPTURE_QUIET", "1", 1);
      } else {
         snprintf(pre, sizeof(pre), "%s", shim);
      }
      if (threads)
         setenv("TESSERA_HW_THREADS", threads, 1);
      quiet_child();
      if (count) {
         /* perf itself stays out of LD_PRELOAD: -- env sets it for the
          * program only */
         char env_pre[2 * PATH_MAX + 16];
         snprintf(env_pre, sizeof(env_pre), "LD_PRELOAD=%s", pre);
         execlp("perf", "perf", "stat", "-x,", "-o", perf_file, "-e", perf_event, "--",
                "env", env_pre, scene, "-n", n, "-e", "20", "-s", size, "-r",
                (char *)NULL);
      } else {
         setenv("LD_PRELOAD", pre, 1);
         execl(scene, scene, "-n", n, "-e", "20", "-s", size, "-r", (char *)NULL);
      }
      _exit(127);
   }
   int st;
   struct rusage ru;
   if (wait4(pid, &st, 0, &ru) != pid)
      return -1;
   out->wall = now_s() - t0;
   out->cpu = tv_s(ru.ru_utime) + tv_s(ru.ru_stime);
   out->insns = 0;
   unlink(trace_file);
   if (!WIFEXITED(st) || WEXITSTATUS(st))
      return -1;
   if (count && read_perf_count(&out->insns))
      return -1;
   return 0;
}

static int
cmp(const void *a, const void *b)
{
   double x = *(const double *)a, y = *(const double *)b;
   return x < y ? -1 : x > y;
}

static double
median(const double *v, int n)
{
   double s[MAX_ROUNDS];
   memcpy(s, v, sizeof(*v) * (size_t)n);
   qsort(s, (size_t)n, sizeof(*s), cmp);
   return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* xorshift64*: a fixed, portable stream, so intervals are reproducible */
static uint64_t rng_state;

static uint32_t
rng(void)
{
   rng_state ^= rng_state >> 12;
   rng_state ^= rng_state << 25;
   rng_state ^= rng_state >> 27;
   return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

struct ratio {
   double base, med, r, lo, hi;
};

/*
 * Ratio of medians of x over base and its 95 % percentile-bootstrap
 * interval. Resampling picks rounds, and a picked round contributes both
 * its base and its x value: runs of one round shared the machine's state.
 */
static struct ratio
ratio_ci(const double *base, const double *x, int n, int resamples)
{
   struct ratio r = { median(base, n), median(x, n), 0, 0, 0 };
   r.r = r.med / r.base;
   double *boot = malloc(sizeof(*boot) * (size_t)resamples);
   if (!boot) {
      r.lo = r.hi = r.r;
      return r;
   }
   rng_state = 0x7e55e7a5eed0001ull;
   for (int b = 0; b < resamples; b++) {
      double sb[MAX_ROUNDS], sx[MAX_ROUNDS];
      for (int k = 0; k < n; k++) {
         int i = (int)(rng() % (uint32_t)n);
         sb[k] = base[i];
         sx[k] = x[i];
      }
      boot[b] = median(sx, n) / median(sb, n);
   }
   qsort(boot, (size_t)resamples, sizeof(*boot), cmp);
   r.lo = boot[(int)(0.025 * (resamples - 1) + 0.5)];
   r.hi = boot[(int)(0.975 * (resamples - 1) + 0.5)];
   free(boot);
   return r;
}

static const char *
verdict(const struct ratio *r)
{
   if ((r->hi - 1) * 100 <= GOAL_PCT)
      return "met";
   if ((r->lo - 1) * 100 > GOAL_PCT)
      return "not met";
   return "inconclusive";
}

static void
print_metric(const char *what, const char *unit, double scale, double t[NMODES][MAX_ROUNDS],
             int n, int resamples, struct ratio out[NMODES])
{
   printf("%s (median of %d):\n", what, n);
   printf("  %-20s %12.3f %s\n", mode_names[0], median(t[0], n) * scale, unit);
   for (int m = 1; m < NMODES; m++) {
      out[m] = ratio_ci(t[0], t[m], n, resamples);
      printf("  %-20s %12.3f %s  ratio %.3f  overhead %+6.1f %% [%+.1f, %+.1f]  %s\n",
             mode_names[m], out[m].med * scale, unit, out[m].r, (out[m].r - 1) * 100,
             (out[m].lo - 1) * 100, (out[m].hi - 1) * 100, verdict(&out[m]));
   }
}

static int
positive(const char *s, int max)
{
   char *end;
   long v = strtol(s, &end, 10);
   return *s && !*end && v >= 1 && v <= max ? (int)v : -1;
}

static void
usage(void)
{
   fprintf(stderr, "usage: capture_overhead [-n SUBMITS] [-s FLOATS] [-r ROUNDS(1-%d)] "
                   "[-i IROUNDS] [-b RESAMPLES] [-t HW_THREADS] [-P]\n", MAX_ROUNDS);
}

int
main(int argc, char **argv)
{
   const char *n = "1000", *size = "16384", *threads = NULL;
   int rounds = 11, irounds = 3, resamples = 2000, use_perf = 1, c;
   while ((c = getopt(argc, argv, "n:s:r:i:b:t:P")) != -1) {
      switch (c) {
      case 'n': n = optarg; break;
      case 's': size = optarg; break;
      case 'r': rounds = positive(optarg, MAX_ROUNDS); break;
      case 'i': irounds = positive(optarg, MAX_ROUNDS); break;
      case 'b': resamples = positive(optarg, 1000000); break;
      case 't': threads = optarg; break;
      case 'P': use_perf = 0; break;
      default: usage(); return 2;
      }
   }
   if (rounds < 0 || irounds < 0 || resamples < 0 || positive(n, 1 << 30) < 0 ||
       positive(size, 1 << 22) < 0 || (threads && positive(threads, 1024) < 0)) {
      usage();
      return 2;
   }
   char self[PATH_MAX];
   ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
   if (len <= 0)
      return 2;
   self[len] = 0;
   char *s = strrchr(self, '/');
   if (!s)
      return 2;
   *s = 0;   /* <build>/<variant>/bin */
   snprintf(scene, sizeof(scene), "%.4000s/capture_scene", self);
   s = strrchr(self, '/');
   if (!s)
      return 2;
   *s = 0;   /* <build>/<variant> */
   snprintf(shim, sizeof(shim), "%.4000s/../release/lib/tessera-shim.so", self);
   snprintf(layer, sizeof(layer), "%.4000s/../release/lib/tessera-capture.so", self);
   if (access(scene, X_OK) || access(shim, R_OK) || access(layer, R_OK)) {
      fprintf(stderr, "capture_overhead: needs %s, %s and %s\n", scene, shim, layer);
      return 2;
   }
   snprintf(tmpdir, sizeof(tmpdir), "/tmp/capture_overhead.XXXXXX");
   if (!mkdtemp(tmpdir)) {
      fprintf(stderr, "capture_overhead: mkdtemp: %s\n", strerror(errno));
      return 2;
   }
   snprintf(trace_file, sizeof(trace_file), "%s/trace.tsr", tmpdir);
   snprintf(perf_file, sizeof(perf_file), "%s/perf.csv", tmpdir);

   /* With kernel.perf_event_paranoid = 2 only user-mode counting is allowed;
    * then the kernel's share of wp's page faults is missing from the count. */
   const char *no_perf = "not measured (-P)";
   if (use_perf) {
      if (perf_probe("instructions"))
         perf_event = "instructions";
      else if (perf_probe("instructions:u"))
         perf_event = "instructions:u";
      else
         no_perf = "not measured: `perf stat -e instructions` has no counter here "
                   "(no PMU in this VM, or perf missing)";
   }

   static double t_wall[NMODES][MAX_ROUNDS], t_cpu[NMODES][MAX_ROUNDS],
      t_ins[NMODES][MAX_ROUNDS];
   struct sample smp;
   int rc = 0;
   const char *failed = NULL;
   if (run(NULL, "20", size, threads, 0, &smp))   /* warm caches */
      failed = mode_names[0];
   /* Rotate and reverse the order so that each mode runs first, middle and
    * last equally often: the six permutations of three modes in turn. */
   static const int order[6][NMODES] = {
      { 0, 1, 2 }, { 2, 1, 0 }, { 1, 2, 0 }, { 0, 2, 1 }, { 2, 0, 1 }, { 1, 0, 2 },
   };
   double t0 = now_s();
   for (int r = 0; r < rounds && !failed; r++) {
      for (int k = 0; k < NMODES && !failed; k++) {
         int m = order[r % 6][k];
         if (run(modes[m], n, size, threads, 0, &smp))
            failed = mode_names[m];
         t_wall[m][r] = smp.wall;
         t_cpu[m][r] = smp.cpu;
      }
   }
   for (int r = 0; perf_event && r < irounds && !failed; r++) {
      for (int k = 0; k < NMODES && !failed; k++) {
         int m = order[r % 6][k];
         if (run(modes[m], n, size, threads, 1, &smp))
            failed = mode_names[m];
         t_ins[m][r] = smp.insns;
      }
   }
   double elapsed = now_s() - t0;
   unlink(trace_file);
   unlink(perf_file);
   rmdir(tmpdir);
   if (failed) {
      fprintf(stderr, "capture_overhead: a run failed (%s)\n", failed);
      return 1;
   }

   printf("capture_scene -n %s -e 20 -s %s -r on the shim%s%s: %d rounds of %d modes, "
          "order rotating, %.0f s\n", n, size, threads ? ", TESSERA_HW_THREADS=" : "",
          threads ? threads : "", rounds, NMODES, elapsed);
   printf("overhead = ratio of medians - 1, [95 %% bootstrap interval, %d resamples of "
          "rounds, fixed seed]; goal <= %.0f %%\n\n", resamples, GOAL_PCT);
   struct ratio cpu[NMODES], wall[NMODES], ins[NMODES];
   print_metric("CPU time of the program, user+sys, all threads", "s", 1, t_cpu, rounds,
                resamples, cpu);
   print_metric("wall time", "s", 1, t_wall, rounds, resamples, wall);
   if (perf_event)
      print_metric(perf_event, "M", 1e-6, t_ins, irounds, resamples, ins);
   else
      printf("instructions: %s\n", no_perf);

   printf("\n");
   for (int m = 1; m < NMODES; m++) {
      const struct ratio *v = perf_event ? &ins[m] : &cpu[m];
      printf("%-5s overhead %+.1f %% [%+.1f, %+.1f] (%s) — goal ≤ %.0f %%: %s\n", modes[m],
             (v->r - 1) * 100, (v->lo - 1) * 100, (v->hi - 1) * 100,
             perf_event ? perf_event : "CPU time", GOAL_PCT, verdict(v));
   }
   return rc;
}
