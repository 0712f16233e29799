/*
 * capture_overhead: wall time of the submission-heavy scene program
 * (capture_scene) on the shim without capture and under capture with each
 * memory strategy, ROUNDS runs each, interleaved so that drift in the
 * machine's speed hits all three alike; prints medians and ratios.
 *
 *   capture_overhead [-n SUBMITS] [-s FLOATS] [-r ROUNDS]
 *
 * Needs build/release/lib/{tessera-shim,tessera-capture}.so next to
 * the binary's build directory.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROUNDS 15

static char scene[PATH_MAX], shim[PATH_MAX], layer[PATH_MAX], tmpdir[64];

static double
now_s(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* mode: NULL = no capture, else the strategy */
static double
run(const char *mode, const char *n, const char *size)
{
   double t0 = now_s();
   pid_t pid = fork();
   if (pid < 0)
      return -1;
   if (pid == 0) {
      char pre[2 * PATH_MAX + 2], out[128];
      if (mode) {
         snprintf(pre, sizeof(pre), "%s %s", layer, shim);
         snprintf(out, sizeof(out), "%s/trace.tsr", tmpdir);
         setenv("TESSERA_CAPTURE_FILE", out, 1);
         setenv("TESSERA_CAPTURE_MEM", mode, 1);
      } else {
         snprintf(pre, sizeof(pre), "%s", shim);
      }
      setenv("LD_PRELOAD", pre, 1);
      if (!freopen("/dev/null", "w", stdout))
         _exit(126);
      execl(scene, scene, "-n", n, "-e", "20", "-s", size, "-r", (char *)NULL);
      _exit(127);
   }
   int st;
   waitpid(pid, &st, 0);
   if (!WIFEXITED(st) || WEXITSTATUS(st))
      return -1;
   return now_s() - t0;
}

static int
cmp(const void *a, const void *b)
{
   double x = *(const double *)a, y = *(const double *)b;
   return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
   qsort(v, (size_t)n, sizeof(*v), cmp);
   return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main(int argc, char **argv)
{
   const char *n = "1000", *size = "16384";
   int rounds = 5, c;
   while ((c = getopt(argc, argv, "n:s:r:")) != -1) {
      if (c == 'n')
         n = optarg;
      else if (c == 's')
         size = optarg;
      else if (c == 'r')
         rounds = atoi(optarg);
      else
         return 2;
   }
   if (rounds < 1 || rounds > MAX_ROUNDS)
      return 2;
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
   if (!mkdtemp(tmpdir))
      return 2;
   static const char *const modes[3] = { NULL, "hash", "wp" };
   double t[3][MAX_ROUNDS];
   run(NULL, "20", size);   /* warm caches */
   for (int r = 0; r < rounds; r++) {
      for (int m = 0; m < 3; m++) {
         t[m][r] = run(modes[m], n, size);
         if (t[m][r] < 0) {
            fprintf(stderr, "capture_overhead: run failed (%s)\n", modes[m] ? modes[m] : "plain");
            return 1;
         }
      }
   }
   char trace[128];
   snprintf(trace, sizeof(trace), "%s/trace.tsr", tmpdir);
   unlink(trace);
   rmdir(tmpdir);
   double base = median(t[0], rounds);
   printf("capture_scene -n %s -s %s -r: median of %d interleaved runs\n", n, size, rounds);
   printf("  %-22s %8.3f s\n", "no capture", base);
   double ratio[3] = { 1, 0, 0 };
   for (int m = 1; m < 3; m++) {
      double med = median(t[m], rounds);
      ratio[m] = med / base;
      printf("  %-22s %8.3f s  ratio %.3f (%+.1f %%)\n",
             m == 1 ? "capture --mem hash" : "capture --mem wp", med, ratio[m],
             (ratio[m] - 1) * 100);
   }
   printf("strategy in use by default: wp (goal: <= 3 %% overhead; %s)\n",
          ratio[2] <= 1.03 ? "met" : "NOT met in this run");
   return 0;
}
