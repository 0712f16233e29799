/* SPDX-License-Identifier: MIT */
/*
 * Starting a program under the capture layer (capture.h): the request
 * becomes environment variables, the program is started with execvpe in
 * a child and waited for (capture_run), or in place of the caller
 * (capture_exec). Nothing in the caller's environment changes, so a
 * failed request leaves no trace behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/cap_options.h"
#include "capture/capture.h"

extern char **environ;

static int
refuse(char *err, size_t len, const char *what, const char *value)
{
   snprintf(err, len, "%s%s%s", what, value ? ": " : "", value ? value : "");
   return -EINVAL;
}

int
capture_check(const struct capture_request *r, char *err, size_t err_len)
{
   struct cap_range range;
   if (!r->output || !*r->output)
      return refuse(err, err_len, "no output file (-o FILE)", NULL);
   if (!r->layer || !*r->layer)
      return refuse(err, err_len, "no capture layer", NULL);
   if (r->frames && cap_range_parse(r->frames, &range))
      return refuse(err, err_len, "bad frame range", r->frames);
   if (r->submits && cap_range_parse(r->submits, &range))
      return refuse(err, err_len, "bad submission range", r->submits);
   if (r->signal && cap_signal_parse(r->signal) < 0)
      return refuse(err, err_len, "bad signal", r->signal);
   if (r->frame_on && cap_frame_on_parse(r->frame_on) < 0)
      return refuse(err, err_len, "bad --frame-on (swap|flush|finish|submit)", r->frame_on);
   if (r->mem && strcmp(r->mem, "hash") && strcmp(r->mem, "wp"))
      return refuse(err, err_len, "bad --mem (hash|wp)", r->mem);
   if (r->gpu_memory && strcmp(r->gpu_memory, "full") && strcmp(r->gpu_memory, "keyframes"))
      return refuse(err, err_len, "bad --gpu-memory (full|keyframes)", r->gpu_memory);
   if (r->keyframe_every > UINT32_MAX)
      return refuse(err, err_len, "bad --keyframe-every (1 to 4294967295)", NULL);
   return 0;
}

/* A growing NULL-terminated array of "NAME=value" strings. */
struct env {
   char **v;
   size_t n, cap;
   bool oom;
};

static void
env_put(struct env *e, const char *name, const char *value)
{
   if (e->oom)
      return;
   size_t nl = strlen(name);
   char *s;
   if (asprintf(&s, "%s=%s", name, value) < 0) {
      e->oom = true;
      return;
   }
   for (size_t i = 0; i < e->n; i++) {
      if (strncmp(e->v[i], name, nl) == 0 && e->v[i][nl] == '=') {
         free(e->v[i]);
         e->v[i] = s;
         return;
      }
   }
   if (e->n + 2 > e->cap) {
      size_t cap = e->cap ? 2 * e->cap : 64;
      char **v = realloc(e->v, cap * sizeof(*v));
      if (!v) {
         free(s);
         e->oom = true;
         return;
      }
      e->v = v;
      e->cap = cap;
   }
   e->v[e->n++] = s;
   e->v[e->n] = NULL;
}

static const char *
env_get(char *const *env, const char *name)
{
   size_t nl = strlen(name);
   for (char *const *p = env; p && *p; p++)
      if (strncmp(*p, name, nl) == 0 && (*p)[nl] == '=')
         return *p + nl + 1;
   return NULL;
}

/* LD_PRELOAD in the order the contract gives; NULL when out of memory. */
static char *
preload_list(const struct capture_request *r, const char *layer, const char *old)
{
   size_t need = strlen(layer) + (r->shim ? strlen(r->shim) : 0) + (old ? strlen(old) : 0) + 8;
   char *pre = calloc(1, need), *rest = calloc(1, need), *copy = old ? strdup(old) : NULL;
   if (!pre || !rest || (old && !copy)) {
      free(pre);
      free(rest);
      free(copy);
      return NULL;
   }
   char *save = NULL;
   for (char *t = copy ? strtok_r(copy, " :", &save) : NULL; t; t = strtok_r(NULL, " :", &save)) {
      char *dst = strstr(t, "libasan") ? pre : rest;
      if (*dst)
         strcat(dst, " ");
      strcat(dst, t);
   }
   free(copy);
   const char *tail[3] = { layer, r->shim, rest };
   for (unsigned i = 0; i < 3; i++) {
      if (!tail[i] || !*tail[i])
         continue;
      if (*pre)
         strcat(pre, " ");
      strcat(pre, tail[i]);
   }
   free(rest);
   return pre;
}

char **
capture_environ(const struct capture_request *r, char *const *base, char *err, size_t err_len)
{
   if (capture_check(r, err, err_len))
      return NULL;
   char layer[PATH_MAX], out[PATH_MAX];
   if (access(r->layer, R_OK)) {
      refuse(err, err_len, "cannot read the capture layer", r->layer);
      return NULL;
   }
   if (!realpath(r->layer, layer)) {
      refuse(err, err_len, "cannot resolve", r->layer);
      return NULL;
   }
   if (r->output[0] != '/') {
      char cwd[PATH_MAX];
      if (!getcwd(cwd, sizeof(cwd)) ||
          snprintf(out, sizeof(out), "%s/%s", cwd, r->output) >= (int)sizeof(out)) {
         refuse(err, err_len, "path too long", r->output);
         return NULL;
      }
   } else if (snprintf(out, sizeof(out), "%s", r->output) >= (int)sizeof(out)) {
      refuse(err, err_len, "path too long", r->output);
      return NULL;
   }
   struct env e = { 0 };
   for (char *const *p = base; p && *p; p++) {
      const char *eq = strchr(*p, '=');
      if (!eq)
         continue;
      char name[256];
      size_t nl = (size_t)(eq - *p);
      if (nl >= sizeof(name))
         continue;
      memcpy(name, *p, nl);
      name[nl] = 0;
      env_put(&e, name, eq + 1);
   }
   env_put(&e, "TESSERA_CAPTURE_FILE", out);
   if (r->frames)
      env_put(&e, "TESSERA_CAPTURE_FRAMES", r->frames);
   if (r->submits)
      env_put(&e, "TESSERA_CAPTURE_SUBMITS", r->submits);
   if (r->signal)
      env_put(&e, "TESSERA_CAPTURE_SIGNAL", r->signal);
   if (r->trigger_file)
      env_put(&e, "TESSERA_CAPTURE_TRIGGER_FILE", r->trigger_file);
   if (r->start_off)
      env_put(&e, "TESSERA_CAPTURE_START", "off");
   if (r->frame_every) {
      /* the layer reads decimal */
      char dec[24];
      snprintf(dec, sizeof(dec), "%" PRIu64, r->frame_every);
      env_put(&e, "TESSERA_CAPTURE_FRAME_EVERY", dec);
   }
   if (r->frame_on)
      env_put(&e, "TESSERA_CAPTURE_FRAME_ON", r->frame_on);
   if (r->mem)
      env_put(&e, "TESSERA_CAPTURE_MEM", r->mem);
   if (r->gpu_memory)
      env_put(&e, "TESSERA_CAPTURE_GPU_MEMORY", r->gpu_memory);
   if (r->keyframe_every) {
      char dec[24];
      snprintf(dec, sizeof(dec), "%" PRIu64, r->keyframe_every);
      env_put(&e, "TESSERA_CAPTURE_KEYFRAME_EVERY", dec);
   }
   if (r->quiet)
      env_put(&e, "TESSERA_CAPTURE_QUIET", "1");
   if (r->report)
      env_put(&e, "TESSERA_CAPTURE_REPORT", "1");
   char *pre = preload_list(r, layer, env_get(base, "LD_PRELOAD"));
   if (pre)
      env_put(&e, "LD_PRELOAD", pre);
   free(pre);
   if (e.oom || !pre || !e.v) {
      capture_environ_free(e.v);
      snprintf(err, err_len, "out of memory");
      return NULL;
   }
   return e.v;
}

void
capture_environ_free(char **env)
{
   for (char **p = env; p && *p; p++)
      free(*p);
   free(env);
}

static volatile sig_atomic_t child_pid;

/* cap_options_parse() looks names up without a context: the environment
 * being checked, for the length of one capture_run() check. */
static char **check_env;

static const char *
check_getenv(const char *name)
{
   return env_get(check_env, name);
}

static void
forward(int sig)
{
   if (child_pid > 0)
      kill((pid_t)child_pid, sig);
}

/* The environment of the program (capture_environ), checked as the layer
 * will read it; NULL with a message in err. */
static char **
checked_environ(const struct capture_request *r, char *const argv[], char *err, size_t err_len)
{
   if (err_len)
      err[0] = 0;
   if (!argv || !argv[0]) {
      snprintf(err, err_len, "no program to run (-- PROGRAM [ARGS])");
      return NULL;
   }
   char **env = capture_environ(r, environ, err, err_len);
   if (!env)
      return NULL;
   /* The layer reads the environment, where the request meets any
    * TESSERA_CAPTURE_* the user exported: check it all here, so a bad value
    * fails the command instead of a capture that silently records nothing. */
   struct cap_options *co = malloc(sizeof(*co));
   check_env = env;
   int bad = co ? cap_options_parse(co, check_getenv, err, err_len) : -ENOMEM;
   check_env = NULL;
   free(co);
   if (bad) {
      if (bad == -ENOMEM)
         snprintf(err, err_len, "out of memory");
      capture_environ_free(env);
      return NULL;
   }
   return env;
}

/* env without any TESSERA_CAPTURE_ROOT_PID, plus root = the program's pid
 * (a new array of env's strings; NULL when out of memory). */
static char **
with_root_pid(char **env, char *root, size_t root_len, pid_t pid)
{
   snprintf(root, root_len, "TESSERA_CAPTURE_ROOT_PID=%d", (int)pid);
   size_t n = 0;
   while (env[n])
      n++;
   char **full = malloc((n + 2) * sizeof(*full));
   if (!full)
      return NULL;
   size_t k = 0;
   for (size_t i = 0; i < n; i++)
      if (strncmp(env[i], "TESSERA_CAPTURE_ROOT_PID=", 25))
         full[k++] = env[i];
   full[k++] = root;
   full[k] = NULL;
   return full;
}

int
capture_exec(const struct capture_request *r, char *const argv[], char *err, size_t err_len)
{
   char **env = checked_environ(r, argv, err, err_len);
   if (!env)
      return -1;
   char root[48];
   char **full = with_root_pid(env, root, sizeof(root), getpid());
   if (!full) {
      snprintf(err, err_len, "out of memory");
      capture_environ_free(env);
      return -1;
   }
   fflush(NULL);
   execvpe(argv[0], argv, full);
   snprintf(err, err_len, "cannot run %s: %s", argv[0], strerror(errno));
   free(full);
   capture_environ_free(env);
   return 127;
}

int
capture_enter(const struct capture_request *r, char *const argv[], char *err, size_t err_len)
{
   char **env = checked_environ(r, argv, err, err_len);
   if (!env)
      return -1;
   /* putenv keeps the strings: they (and root) live as long as the
    * environment, i.e. until the caller execs */
   static char root[48];
   char **full = with_root_pid(env, root, sizeof(root), getpid());
   if (!full || clearenv()) {
      snprintf(err, err_len, "out of memory");
      free(full);
      capture_environ_free(env);
      return -1;
   }
   for (char **p = full; *p; p++) {
      if (putenv(*p)) {
         snprintf(err, err_len, "cannot set the environment: %s", strerror(errno));
         return -1;
      }
   }
   free(full);
   /* the array only: its strings are the environment now, but for a
    * TESSERA_CAPTURE_ROOT_PID inherited (replaced by root) */
   for (char **p = env; *p; p++)
      if (!strncmp(*p, "TESSERA_CAPTURE_ROOT_PID=", 25))
         free(*p);
   free(env);
   return 0;
}

int
capture_run(const struct capture_request *r, char *const argv[], char *err, size_t err_len)
{
   char **env = checked_environ(r, argv, err, err_len);
   if (!env)
      return -1;
   const char *sig = env_get(env, "TESSERA_CAPTURE_SIGNAL");
   int trig = sig ? cap_signal_parse(sig) : cap_default_signal();
   /* exec's errno comes back through a close-on-exec pipe: EOF means the
    * program is running. */
   int pfd[2];
   if (pipe2(pfd, O_CLOEXEC)) {
      snprintf(err, err_len, "pipe: %s", strerror(errno));
      capture_environ_free(env);
      return -1;
   }
   /* Forward before the fork, so no signal meant for the program can end
    * us in between; exec resets the handlers in the child. Restored in
    * reverse order, which is right even if trig is SIGINT or SIGTERM.
    * The signals are also held from before the fork until child_pid is
    * known: a program that triggers at once (kill -USR2 $PPID first
    * thing) can otherwise land in forward() while child_pid is still 0
    * if we are descheduled right after fork, and the trigger is lost. */
   struct sigaction sa, old_trig, old_int, old_term;
   memset(&sa, 0, sizeof(sa));
   sa.sa_handler = forward;
   sigemptyset(&sa.sa_mask);
   sigset_t held, old_mask;
   sigemptyset(&held);
   sigaddset(&held, SIGINT);
   sigaddset(&held, SIGTERM);
   if (trig > 0) {
      sigaction(trig, &sa, &old_trig);
      sigaddset(&held, trig);
   }
   sigaction(SIGINT, &sa, &old_int);
   sigaction(SIGTERM, &sa, &old_term);
   fflush(NULL);
   pthread_sigmask(SIG_BLOCK, &held, &old_mask);
   pid_t pid = fork();
   if (pid == 0) {
      /* the program starts with the caller's mask, not ours */
      pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
      close(pfd[0]);
      char root[48];
      char **full = with_root_pid(env, root, sizeof(root), getpid());
      int e = ENOMEM;
      if (full) {
         execvpe(argv[0], argv, full);
         e = errno;
      }
      ssize_t w = write(pfd[1], &e, sizeof(e));
      (void)w;
      _exit(127);
   }
   int fork_errno = errno;
   child_pid = pid > 0 ? pid : 0;
   /* anything that arrived since the fork is delivered now, and forwarded */
   pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
   close(pfd[1]);
   capture_environ_free(env);
   int rc = -1, st = 0, exec_errno = 0;
   if (pid < 0) {
      snprintf(err, err_len, "fork: %s", strerror(fork_errno));
   } else {
      ssize_t got;
      while ((got = read(pfd[0], &exec_errno, sizeof(exec_errno))) < 0 && errno == EINTR)
         ;
      while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
         ;
      if (got == (ssize_t)sizeof(exec_errno)) {
         snprintf(err, err_len, "cannot run %s: %s", argv[0], strerror(exec_errno));
         rc = 127;
      } else {
         rc = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
      }
   }
   close(pfd[0]);
   sigaction(SIGTERM, &old_term, NULL);
   sigaction(SIGINT, &old_int, NULL);
   if (trig > 0)
      sigaction(trig, &old_trig, NULL);
   child_pid = 0;
   return rc;
}
