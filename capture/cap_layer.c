/* SPDX-License-Identifier: MIT */
/*
 * tessera-capture.so: the interposed entry points and the layer's life
 * cycle (init, fork, exit, triggers, frame boundaries). What is recorded
 * for each ioctl is in cap_state.c. docs/capture.md describes the whole.
 *
 * Everything here must leave the program's behaviour alone: the real call
 * is always made with the program's arguments, errno is preserved, and a
 * problem of the layer only ever disables recording.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <drm.h>

#include "tessera/preload_fd.h"
#include "capture/cap_priv.h"
#include "capture/cap_interpose.h"

#define EXPORT __attribute__((visibility("default")))

struct cap_state cap = {
   .lock = PTHREAD_MUTEX_INITIALIZER,
   .cond = PTHREAD_COND_INITIALIZER,
   .reaper_busy_fd = -1,
};
struct cap_real cap_real;
static pthread_once_t cap_once = PTHREAD_ONCE_INIT;
static _Atomic uint8_t fd_kind[CAP_MAX_FDS];
static struct cap_file *fd_file[CAP_MAX_FDS];

uint64_t
cap_now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t
cap_thread_cpu_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void
cap_log(const char *fmt, ...)
{
   if (cap.opt.quiet)
      return;
   char buf[512];
   va_list ap;
   va_start(ap, fmt);
   int n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
   va_end(ap);
   if (n < 0)
      return;
   if ((size_t)n > sizeof(buf) - 2)
      n = sizeof(buf) - 2;
   buf[n++] = '\n';
   /* one write(2): lines from several processes do not interleave */
   ssize_t wr = write(2, buf, (size_t)n);
   (void)wr;
}

void
cap_sig_guard_begin(sigset_t *old)
{
   sigset_t s;
   sigemptyset(&s);
   sigaddset(&s, SIGXFSZ);
   pthread_sigmask(SIG_BLOCK, &s, old);
}

void
cap_sig_guard_end(const sigset_t *old)
{
   if (!sigismember(old, SIGXFSZ)) {
      sigset_t s;
      sigemptyset(&s);
      sigaddset(&s, SIGXFSZ);
      struct timespec zero = { 0, 0 };
      int saved = errno;
      while (sigtimedwait(&s, NULL, &zero) == SIGXFSZ)
         ;
      errno = saved;
   }
   pthread_sigmask(SIG_SETMASK, old, NULL);
}

bool
cap_trace_ok(int r)
{
   if (r == 0)
      return true;
   if (!cap.disabled) {
      cap.disabled = true;
      cap.active = false;
      cap_log("tessera capture: %s: %s; recording stopped, the trace is valid up to "
              "its last whole chunk and the program continues", cap.trace_path, strerror(-r));
   }
   return false;
}

static const char *
env_get(const char *name)
{
   return getenv(name);
}

static void
on_trigger_signal(int sig)
{
   (void)sig;
   atomic_fetch_add(&cap.signal_toggles, 1);
}

void
cap_note_sigaction(int sig, const struct sigaction *act)
{
   static atomic_bool warned;
   if (!act || sig <= 0 || sig != cap.opt.trigger_signal || cap.disabled)
      return;
   bool info = act->sa_flags & SA_SIGINFO;
   if ((!info && act->sa_handler == on_trigger_signal) || atomic_exchange(&warned, true))
      return;
   /* The program's handler wins (its behaviour is not ours to change),
    * so the trigger is lost: say so rather than ignore the signal. */
   char name[32];
   cap_log("tessera capture: the program installs its own handler for SIG%s, the trigger "
           "signal; the signal trigger is off (choose another with --signal or "
           "TESSERA_CAPTURE_SIGNAL)", cap_signal_name(sig, name, sizeof(name)));
}

static void atfork_prepare(void);
static void atfork_parent(void);
static void atfork_child(void);

static void
do_init(void)
{
#define REAL(n) cap_real.n = (__typeof__(cap_real.n))dlsym(RTLD_NEXT, #n)
   REAL(ioctl);
   REAL(mmap);
   REAL(munmap);
   REAL(close);
   REAL(dup);
   REAL(dup2);
   REAL(dup3);
   REAL(fcntl);
#undef REAL
   /* Not yet configured: a sanitizer runtime may call our mmap() before
    * libc has set up the environment, so options wait for cap_configure(). */
   cap.disabled = true;
}

static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;

static void
do_configure(void)
{
   cap.pid = getpid();
   char err[256];
   if (cap_options_parse(&cap.opt, env_get, err, sizeof(err))) {
      cap_log("tessera capture: %s; not recording", err);
      return;
   }
   cap.root = cap.opt.root_pid == 0 || cap.opt.root_pid == cap.pid;
   cap.stats = getenv("TESSERA_CAPTURE_STATS") != NULL;
   cap.triggered = !cap.opt.start_off;
   if (cap.opt.trigger_signal) {
      struct sigaction sa;
      memset(&sa, 0, sizeof(sa));
      sa.sa_handler = on_trigger_signal;
      sa.sa_flags = SA_RESTART;
      sigemptyset(&sa.sa_mask);
      sigaction(cap.opt.trigger_signal, &sa, NULL);
   }
   bool own_segv = cap_crash_init();
   if (cap.opt.mem == CAP_MEM_WP && !cap_wp_init(own_segv)) {
      cap.opt.mem = CAP_MEM_HASH;
      cap_log("tessera capture: cannot own SIGSEGV (sanitizer?); memory strategy 'hash'");
   }
   pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
   cap.disabled = false;
}

void
cap_init(void)
{
   int saved = errno;
   pthread_once(&cap_once, do_init);
   errno = saved;
}

/* Reads the options; from the constructor (libc is ready by then) or, at
 * the latest, from the first DRM ioctl. */
static void
cap_configure(void)
{
   cap_init();
   int saved = errno;
   pthread_once(&cfg_once, do_configure);
   errno = saved;
}

__attribute__((constructor)) static void
cap_ctor(void)
{
   cap_configure();
}

/* ------------------------------------------------------------ life cycle */

static void
atfork_prepare(void)
{
   pthread_mutex_lock(&cap.lock);
}

static void
atfork_parent(void)
{
   pthread_mutex_unlock(&cap.lock);
}

/* The child gets its own trace (NAME.<pid>.tsr) the first time it uses a
 * render node. Nothing of the parent's recording can be continued: the
 * writer's thread and the reaper did not come along, and on the shim the
 * inherited node fds are dead. The parent's objects stay reachable. */
static struct tsr_writer *forked_writers[16];
static struct cap_file *forked_files[16];

static void
atfork_child(void)
{
   pthread_mutex_init(&cap.lock, NULL);
   pthread_cond_init(&cap.cond, NULL);
   for (unsigned i = 0; i < 16; i++) {
      if (cap.w && !forked_writers[i]) {
         forked_writers[i] = cap.w;
         cap.w = NULL;
      }
      if (cap.files && !forked_files[i]) {
         forked_files[i] = cap.files;
         cap.files = NULL;
      }
   }
   cap.w = NULL;
   cap.files = NULL;
   cap.w_opened = false;
   cap.pid = getpid();
   cap.root = false;
   cap.next_seq = 0;
   cap.submits = cap.frames = cap.frame_submits = 0;
   cap.active = false;
   cap.next_file_id = 0;
   cap.reaper_started = cap.reaper_stop = cap.reaper_idle = false;
   cap.reaper_wakes = cap.reaper_polls = cap.fence_queries = 0;
   cap.pend_head = cap.pend_tail = NULL;
   cap.reaper_busy_fd = -1;
   cap.hook_installed = false;
   cap_hook_reset_after_fork();
   cap_wp_after_fork();
   for (unsigned i = 0; i < CAP_MAX_FDS; i++) {
      atomic_store_explicit(&fd_kind[i], CAP_FD_UNKNOWN, memory_order_relaxed);
      fd_file[i] = NULL;
   }
}

/* Finishes the trace: waits (briefly) for outstanding completions, writes
 * the index. Runs at exit and from _exit(): children of fork() usually
 * leave through _exit(), which skips destructors. Not in a vfork() child
 * (same memory as the parent, different pid). */
/* What `tessera capture` said once the program was done, said by the root
 * process itself now that the launcher execs the program in its place
 * (capture_exec) instead of waiting for it: the root trace, and the child
 * traces written by then (a child still running after the root exits is
 * not counted). Once, after the trace is closed. */
static void
cap_report(void)
{
   static bool done;
   if (done || !cap.root || !cap.opt.report || cap.opt.quiet)
      return;
   done = true;
   char path[sizeof(cap.trace_path)];
   struct stat sb;
   if (!cap_trace_path(cap.opt.path, cap.pid, true, path, sizeof(path)))
      return;
   char **kids = tsr_child_traces(path);
   unsigned nk = 0;
   for (char **k = kids; k && *k; k++)
      nk++;
   tsr_free_paths(kids);
   if (stat(path, &sb) == 0)
      fprintf(stderr, "tessera capture: wrote %s (%lld bytes)", path, (long long)sb.st_size);
   else
      fprintf(stderr, "tessera capture: %s was not written (no GPU use by the root process)",
              path);
   fprintf(stderr, nk ? " and %u child trace%s\n" : "\n", nk, nk == 1 ? "" : "s");
}

static void finish_trace(void);

static void
cap_finish(void)
{
   if (getpid() != cap.pid)
      return;
   if (!cap.disabled || cap.w)
      finish_trace();
   cap_report();
}

static void
finish_trace(void)
{
   cap_reaper_shutdown();
   pthread_mutex_lock(&cap.lock);
   cap_hook_drain_locked();
   /* the reaper has waited for the outstanding work: its results are final
    * (only --validate reads them: with --gpu-memory keyframes they wait for
    * a keyframe, and there is none after the end) */
   if (cap.opt.gpu_memory_full)
      cap_reread_gpu_written(NULL, NULL);
   struct tsr_writer *w = cap.w;
   cap.w = NULL;
   cap.active = false;
   if (w) {
      if (cap.stats) {
         /* the writer's CPU time is final once its queue is empty */
         sigset_t old;
         cap_sig_guard_begin(&old);
         tsr_writer_flush(w);
         cap_sig_guard_end(&old);
         struct tsr_writer_stats st;
         tsr_writer_get_stats(w, &st);
         fprintf(stderr, "tessera capture: %s: %llu submissions of %llu, %llu frames, "
                 "memory %s: %.3f ms for %llu MiB, pages %llu stored of %llu, "
                 "frame re-reads: %.3f ms for %llu MiB, "
                 "shader indexing: %.3f ms for %llu submissions\n",
                 cap.trace_path, (unsigned long long)st.submits,
                 (unsigned long long)cap.submits, (unsigned long long)st.frames,
                 cap.opt.mem == CAP_MEM_WP ? "wp" : "hash", (double)cap.snap_ns / 1e6,
                 (unsigned long long)(cap.snap_bytes >> 20),
                 (unsigned long long)st.pages_stored, (unsigned long long)st.pages_seen,
                 (double)cap.reread_ns / 1e6, (unsigned long long)(cap.reread_bytes >> 20),
                 (double)cap.shader_ns / 1e6, (unsigned long long)cap.shader_scans);
         fprintf(stderr, "tessera capture: %s: CPU: layer %.3f ms on the program's threads, "
                 "writer %.3f ms, reaper %.3f ms (%llu wake-ups, %llu polls); GPU waits: %.3f ms (%llu)\n",
                 cap.trace_path, (double)(cap.layer_cpu_ns + cap_wp_fault_cpu_ns()) / 1e6,
                 (double)st.thread_cpu_ns / 1e6, (double)cap.reaper_cpu_ns / 1e6,
                 (unsigned long long)cap.reaper_wakes, (unsigned long long)cap.reaper_polls,
                 (double)cap.gpu_wait_ns / 1e6, (unsigned long long)cap.gpu_waits);
         fprintf(stderr, "tessera capture: %s: writer: %llu chunks' buffers reused, "
                 "%llu pages buffer slots made resident (%llu of them pre-faulted), "
                 "%llu swaps to the spare; %llu pages pre-faulted in all, zstd workspace "
                 "%llu KiB (%llu changes), output buffer grown %llu times\n",
                 cap.trace_path, (unsigned long long)st.buffers_reused,
                 (unsigned long long)st.pages_buffer_touched,
                 (unsigned long long)st.pages_buffer_prefaulted,
                 (unsigned long long)st.buffer_swaps, (unsigned long long)st.prefaulted,
                 (unsigned long long)(st.zstd_workspace >> 10),
                 (unsigned long long)st.zstd_workspace_changes,
                 (unsigned long long)st.output_grown);
         unsigned long cplain, cfault, cvm;
         cap_copy_stats(&cplain, &cfault, &cvm);
         fprintf(stderr, "tessera capture: %s: completions: %llu fence queries, %llu known from "
                 "the program's waits; program memory "
                 "read: %lu plain copies (%lu faulted), %lu by process_vm_readv\n",
                 cap.trace_path, (unsigned long long)cap.fence_queries,
                 (unsigned long long)cap.fences_known, cplain, cfault, cvm);
         if (cap.opt.mem == CAP_MEM_WP) {
            unsigned long faults, protects, maps;
            cap_wp_stats(&faults, &protects, &maps);
            fprintf(stderr, "tessera capture: %s: wp: %lu write faults, %lu write-protections, "
                    "%lu mappings\n", cap.trace_path, faults, protects, maps);
            unsigned long hreads, hrecs, collects, skips;
            cap_wp_hot_stats(&hreads, &hrecs, &collects, &skips);
            fprintf(stderr, "tessera capture: %s: wp hot pages: %lu reads, %lu recorded; "
                    "mapping collects: %lu, %lu skipped clean\n", cap.trace_path, hreads, hrecs,
                    collects, skips);
            fprintf(stderr, "tessera capture: %s: wp: %lu waits for a fault handler in progress\n",
                    cap.trace_path, cap_wp_fault_waits());
            fprintf(stderr, "tessera capture: %s: wp: %lu pages unprotected ahead of sequential "
                    "writes, %lu made hot ahead of appends\n", cap.trace_path,
                    cap_wp_ahead_pages(), cap_wp_append_pages());
            unsigned long umaps, refused, scans, pages;
            int uerr;
            cap_wp_uffd_stats(&umaps, &refused, &scans, &pages, &uerr);
            if (uerr)
               fprintf(stderr, "tessera capture: %s: wp uffd: unavailable (%s)\n",
                       cap.trace_path, uerr == ENOTSUP ? "not asked for: TESSERA_CAPTURE_WP_TRACK=uffd"
                                                       : strerror(uerr));
            else
               fprintf(stderr, "tessera capture: %s: wp uffd: %lu mappings, %lu refused, "
                       "%lu scans, %lu pages written\n", cap.trace_path, umaps, refused,
                       scans, pages);
         }
      }
      sigset_t old;
      cap_sig_guard_begin(&old);
      /* finish_trace runs only at the process's end (destructor, _exit) */
      tsr_writer_close_at_exit(w);
      cap_sig_guard_end(&old);
   }
   pthread_mutex_unlock(&cap.lock);
}

__attribute__((destructor)) static void
cap_fini(void)
{
   cap_finish();
}

EXPORT void
_exit(int status)
{
   static void (*real)(int);
   cap_init();
   cap_finish();
   if (!real)
      real = (void (*)(int))dlsym(RTLD_NEXT, "_exit");
   if (real)
      real(status);
   syscall(SYS_exit_group, status);
   __builtin_unreachable();
}

EXPORT void
_Exit(int status)
{
   _exit(status);
}

/* ------------------------------------------------------------- triggers */

/* Called under cap.lock before each submission. */
static void
poll_triggers(void)
{
   unsigned t = atomic_load(&cap.signal_toggles);
   if (t != cap.seen_toggles) {
      if ((t - cap.seen_toggles) & 1)
         cap.triggered = !cap.triggered;
      cap.seen_toggles = t;
   }
   if (cap.opt.trigger_file[0]) {
      /* at most every 10 ms: one access(2) per submission would show */
      uint64_t now = cap_now_ns();
      if (now - cap.trigger_check_ns >= 10000000ull) {
         cap.trigger_check_ns = now;
         if (access(cap.opt.trigger_file, F_OK) == 0 && unlink(cap.opt.trigger_file) == 0)
            cap.triggered = !cap.triggered;
      }
   }
}

void
cap_update_active(void)
{
   poll_triggers();
   cap_update_active_nopoll();
}

/* ------------------------------------------------------------- fd table */

static inline bool
fd_ok(int fd)
{
   return fd >= 0 && fd < CAP_MAX_FDS;
}

static void
fd_forget_locked(int fd)
{
   if (!fd_ok(fd))
      return;
   struct cap_file *f = fd_file[fd];
   fd_file[fd] = NULL;
   atomic_store(&fd_kind[fd], CAP_FD_UNKNOWN);
   if (!f)
      return;
   while (cap.reaper_busy_fd == fd)
      pthread_cond_wait(&cap.cond, &cap.lock);
   if (--f->fds == 0) {
      cap_reaper_forget_file(f);
      cap_file_release(f);
   } else if (f->any_fd == fd) {
      for (int i = 0; i < CAP_MAX_FDS; i++) {
         if (fd_file[i] == f) {
            f->any_fd = i;
            break;
         }
      }
   }
}

/* newfd now refers to what oldfd does (preload_fd.h; cap.lock held). */
static void
fd_alias_locked(int oldfd, int newfd)
{
   if (!fd_ok(newfd))
      return;
   fd_forget_locked(newfd);
   if (!fd_ok(oldfd) || !fd_file[oldfd])
      return;
   struct cap_file *f = fd_file[oldfd];
   f->fds++;
   fd_file[newfd] = f;
   atomic_store(&fd_kind[newfd], CAP_FD_ASAHI);
}

/* ----------------------------------------------------------- interposers */

EXPORT int
ioctl(int fd, unsigned long req, ...)
{
   va_list ap;
   va_start(ap, req);
   void *arg = va_arg(ap, void *);
   va_end(ap);
   cap_init();
   if (_IOC_TYPE(req) == DRM_IOCTL_BASE)
      cap_configure();
   if (_IOC_TYPE(req) != DRM_IOCTL_BASE || cap.disabled || !fd_ok(fd))
      return cap_real.ioctl(fd, req, arg);
   unsigned nr = _IOC_NR(req);
   /* The program learns here that its work completed, and may then reuse
    * the timestamp slots it reads: record those completions now, not when
    * the reaper thread gets to them. The wait itself runs unlocked. */
   /* Anything that can put another fence in a syncobj than a submission
    * does: a later wait on it no longer proves that submission complete
    * (cap_reaper_after_wait). Before the call, so that a wait that sees
    * the new fence also sees the count changed. */
   if (nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_RESET) || nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_SIGNAL) ||
       nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL) ||
       nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_TRANSFER) ||
       nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE))
      atomic_fetch_add(&cap.sync_gen, 1);
   if ((nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_WAIT) || nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT)) &&
       atomic_load(&fd_kind[fd]) == CAP_FD_ASAHI) {
      /* the submissions before the wait began are the ones it can prove */
      pthread_mutex_lock(&cap.lock);
      uint32_t seq0 = cap.next_seq;
      pthread_mutex_unlock(&cap.lock);
      int r = cap_real.ioctl(fd, req, arg);
      if (r == 0) {
         int saved = errno;
         /* what the wait proves signalled: all its syncobjs when it waited
          * for all (or one), never when it only waited for fences to be
          * there; NULL points: binary syncobjs */
         bool timeline = nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT);
         uint32_t handles[16];
         uint64_t points[16];
         unsigned n = 0;
         struct drm_syncobj_timeline_wait tw;
         memset(&tw, 0, sizeof(tw));
         if (timeline) {
            if (!cap_copy_from_user(&tw, arg, sizeof(tw)))
               tw.count_handles = 0;
         } else {
            struct drm_syncobj_wait bw;
            if (cap_copy_from_user(&bw, arg, sizeof(bw))) {
               tw.handles = bw.handles;
               tw.count_handles = bw.count_handles;
               tw.flags = bw.flags;
            }
         }
         if (tw.count_handles && tw.count_handles <= 16 &&
             (tw.count_handles == 1 || (tw.flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL)) &&
             !(tw.flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE) &&
             cap_copy_from_user(handles, (const void *)(uintptr_t)tw.handles,
                                tw.count_handles * sizeof(handles[0])) &&
             (!timeline || cap_copy_from_user(points, (const void *)(uintptr_t)tw.points,
                                              tw.count_handles * sizeof(points[0]))))
            n = tw.count_handles;
         pthread_mutex_lock(&cap.lock);
         struct cap_file *f = fd_file[fd];
         /* the layer's time (its fence queries), counted like an
          * interposed call's (it used not to be: ~4 ms a run of es2gears
          * when every pending fence was asked) */
         uint64_t c0 = cap.stats ? cap_thread_cpu_ns() : 0;
         if (f && !cap.disabled)
            cap_reaper_after_wait(f, handles, timeline ? points : NULL, n, seq0);
         if (cap.stats)
            cap.layer_cpu_ns += cap_thread_cpu_ns() - c0;
         pthread_mutex_unlock(&cap.lock);
         errno = saved;
      }
      return r;
   }
   bool interesting = (nr >= DRM_COMMAND_BASE && nr <= DRM_COMMAND_BASE + DRM_ASAHI_SUBMIT) ||
                      nr == _IOC_NR(DRM_IOCTL_GEM_CLOSE) ||
                      nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_DESTROY) ||
                      nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_RESET);
   if (!interesting)
      return cap_real.ioctl(fd, req, arg);
   uint8_t kind = atomic_load(&fd_kind[fd]);
   if (kind == CAP_FD_OTHER)
      return cap_real.ioctl(fd, req, arg);
   int saved = errno;
   pthread_mutex_lock(&cap.lock);
   struct cap_file *f = fd_file[fd];
   if (!f && atomic_load(&fd_kind[fd]) == CAP_FD_UNKNOWN) {
      f = cap_file_probe(fd);
      if (f) {
         fd_file[fd] = f;
         f->fds = 1;
         f->any_fd = fd;
      }
      atomic_store(&fd_kind[fd], f ? CAP_FD_ASAHI : CAP_FD_OTHER);
   }
   if (!f || cap.disabled) {
      pthread_mutex_unlock(&cap.lock);
      errno = saved;
      return cap_real.ioctl(fd, req, arg);
   }
   errno = saved;
   uint64_t c0 = cap.stats ? cap_thread_cpu_ns() : 0, real0 = cap.real_cpu_ns;
   int r = cap_ioctl_locked(f, fd, req, arg);
   saved = errno;
   if (cap.stats)
      cap.layer_cpu_ns += cap_thread_cpu_ns() - c0 - (cap.real_cpu_ns - real0);
   pthread_mutex_unlock(&cap.lock);
   errno = saved;
   return r;
}

static void *
mmap_common(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
   cap_init();
   void *p = cap_real.mmap(addr, len, prot, flags, fd, off);
   if (p == MAP_FAILED || cap.disabled || !fd_ok(fd) ||
       atomic_load(&fd_kind[fd]) != CAP_FD_ASAHI || cap.opt.mem != CAP_MEM_WP)
      return p;
   int saved = errno;
   pthread_mutex_lock(&cap.lock);
   struct cap_file *f = fd_file[fd];
   if (f && (flags & MAP_SHARED)) {
      for (size_t h = 0; h < f->nbos; h++) {
         struct cap_bo *bo = f->bos[h];
         if (bo && bo->have_offset && (uint64_t)off >= bo->mmap_offset &&
             (uint64_t)off < bo->mmap_offset + bo->size) {
            cap_wp_register(p, len, prot, f, bo, (uint64_t)off - bo->mmap_offset);
            break;
         }
      }
   }
   pthread_mutex_unlock(&cap.lock);
   errno = saved;
   return p;
}

EXPORT void *
mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
   return mmap_common(addr, len, prot, flags, fd, off);
}

EXPORT void *
mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
   return mmap_common(addr, len, prot, flags, fd, off);
}

EXPORT int
munmap(void *addr, size_t len)
{
   cap_init();
   if (cap.opt.mem == CAP_MEM_WP && !cap.disabled) {
      int saved = errno;
      pthread_mutex_lock(&cap.lock);
      cap_wp_unmap(addr, len);
      pthread_mutex_unlock(&cap.lock);
      errno = saved;
   }
   return cap_real.munmap(addr, len);
}

EXPORT int
close(int fd)
{
   cap_init();
   if (fd_ok(fd)) {
      if (atomic_load(&fd_kind[fd]) == CAP_FD_ASAHI) {
         int saved = errno;
         pthread_mutex_lock(&cap.lock);
         fd_forget_locked(fd);
         pthread_mutex_unlock(&cap.lock);
         errno = saved;
      } else {
         atomic_store(&fd_kind[fd], CAP_FD_UNKNOWN);
      }
   }
   return cap_real.close(fd);
}

static const struct preload_fd_layer cap_fd_layer = { &cap.lock, fd_alias_locked };

EXPORT int
dup(int fd)
{
   cap_init();
   return preload_dup(&cap_fd_layer, cap_real.dup, fd);
}

EXPORT int
dup2(int fd, int fd2)
{
   cap_init();
   return preload_dup2(&cap_fd_layer, cap_real.dup2, fd, fd2);
}

EXPORT int
dup3(int fd, int fd2, int flags)
{
   cap_init();
   return preload_dup3(&cap_fd_layer, cap_real.dup3, fd, fd2, flags);
}

static int
fcntl_common(int fd, int cmd, va_list ap)
{
   cap_init();
   return preload_fcntl(&cap_fd_layer, cap_real.fcntl, fd, cmd, ap);
}

EXPORT int
fcntl(int fd, int cmd, ...)
{
   va_list ap;
   va_start(ap, cmd);
   int r = fcntl_common(fd, cmd, ap);
   va_end(ap);
   return r;
}

EXPORT int
fcntl64(int fd, int cmd, ...)
{
   va_list ap;
   va_start(ap, cmd);
   int r = fcntl_common(fd, cmd, ap);
   va_end(ap);
   return r;
}

/* --------------------------------------------------------------- frames */

static void
frame_boundary(uint32_t kind, const char *label)
{
   cap_configure();
   if (cap.disabled)
      return;
   int saved = errno;
   pthread_mutex_lock(&cap.lock);
   uint64_t c0 = cap.stats ? cap_thread_cpu_ns() : 0;
   cap_frame_locked(kind, label);
   if (cap.stats)
      cap.layer_cpu_ns += cap_thread_cpu_ns() - c0;
   pthread_mutex_unlock(&cap.lock);
   errno = saved;
}

/* For programs without a window system: ends the current frame. Declare it
 * weak (`void tessera_capture_frame(const char *) __attribute__((weak));`)
 * and call it when non-NULL. */
EXPORT void
tessera_capture_frame(const char *label)
{
   frame_boundary(0, label);
}

typedef unsigned (*swap_fn)(void *, void *);
typedef void (*glx_swap_fn)(void *, unsigned long);

/* The swap functions found by dlsym() on a library handle (see dlsym below):
 * the real ones when the library is not in the global scope. */
static void *_Atomic handle_egl_swap;
static _Atomic(glx_swap_fn) handle_glx_swap;

/* eglGetProcAddress of the library the program's eglSwapBuffers came from */
static _Atomic(cap_ip_gpa_fn) handle_egl_gpa;

/* eglSwapBuffers flushes the context only for window surfaces: on a
 * pbuffer or a surfaceless context (eglretrace --headless) it does
 * nothing, so the frame's work reached the kernel with the next frame's
 * first flush, after the marker, and every frame was attributed one frame
 * late (frame 0 empty) unless the program read the image back first
 * (eglretrace -s). A glFlush() before the swap submits the frame's work
 * where it belongs; on a window surface the swap's own flush then finds
 * nothing new. glFlush only hands queued work to the GPU, so the images
 * and the work are unchanged. */
static void
flush_before_swap(void)
{
   /* shared with bench/swap_flush.c (the benchmark's flush-only baseline);
    * the layer's own dlsym passes RTLD_NEXT lookups on as a tail call */
   cap_ip_flush_before_swap(&handle_egl_gpa, dlsym);
}

/* A swap ends a frame only with --frame-on swap (the default). */
static void
swap_boundary(const char *label)
{
   cap_configure();
   if (!cap.disabled && cap.opt.frame_on == CAP_FRAME_ON_SWAP)
      frame_boundary(1, label);
}

/* The next library's definition of NAME, looked up once: a lookup that
 * fails is not cheap (glibc formats an error message and unwinds with
 * longjmp, ~7 us), and it fails at every call of a program that looks the
 * function up on a dlopen() handle (waffle, so eglretrace: its libEGL is
 * not in the global scope) -- before, once per swap. */
static void *
next_once(void *_Atomic *fn, atomic_bool *looked, const char *name)
{
   void *f = atomic_load(fn);
   if (f || atomic_load(looked))
      return f;
   f = dlsym(RTLD_NEXT, name);
   atomic_store(fn, f);
   atomic_store(looked, true);
   return f;
}

EXPORT unsigned
eglSwapBuffers(void *dpy, void *surface)
{
   static void *_Atomic real;
   static atomic_bool looked;
   swap_fn fn = (swap_fn)next_once(&real, &looked, "eglSwapBuffers");
   if (!fn)
      fn = (swap_fn)atomic_load(&handle_egl_swap);
   if (!cap.disabled)
      flush_before_swap();
   unsigned r = fn ? fn(dpy, surface) : 0;
   swap_boundary("eglSwapBuffers");
   return r;
}

EXPORT void
glXSwapBuffers(void *dpy, unsigned long drawable)
{
   static void *_Atomic real;
   static atomic_bool looked;
   glx_swap_fn fn = (glx_swap_fn)next_once(&real, &looked, "glXSwapBuffers");
   if (!fn)
      fn = handle_glx_swap;
   if (fn)
      fn(dpy, drawable);
   swap_boundary("glXSwapBuffers");
}

/* --frame-on flush|finish: off-screen programs (FBOs, pbuffers, headless
 * browsers) never swap; what ends their frames is a flush or a finish.
 * These run after the real call, so the work it submitted is in the frame
 * it ends. A flush or finish with no submission since the last boundary
 * (a second glFlush in a row) does not make an empty frame. */
typedef void (*gl_void_fn)(void);
static _Atomic(gl_void_fn) handle_gl_flush;
static _Atomic(gl_void_fn) handle_gl_finish;

static void
gl_boundary(bool finish, const char *label)
{
   cap_configure();
   if (cap.disabled)
      return;
   enum cap_frame_on m = cap.opt.frame_on;
   if (m != CAP_FRAME_ON_FLUSH && !(m == CAP_FRAME_ON_FINISH && finish))
      return;
   int saved = errno;
   pthread_mutex_lock(&cap.lock);
   uint64_t c0 = cap.stats ? cap_thread_cpu_ns() : 0;
   if (cap.frame_submits)
      cap_frame_locked(0, label);
   if (cap.stats)
      cap.layer_cpu_ns += cap_thread_cpu_ns() - c0;
   pthread_mutex_unlock(&cap.lock);
   errno = saved;
}

EXPORT void
glFlush(void)
{
   static void *_Atomic real;
   static atomic_bool looked;
   gl_void_fn fn = (gl_void_fn)next_once(&real, &looked, "glFlush");
   if (!fn)
      fn = handle_gl_flush;
   if (fn)
      fn();
   gl_boundary(false, "glFlush");
}

EXPORT void
glFinish(void)
{
   static void *_Atomic real;
   static atomic_bool looked;
   gl_void_fn fn = (gl_void_fn)next_once(&real, &looked, "glFinish");
   if (!fn)
      fn = handle_gl_finish;
   if (fn)
      fn();
   gl_boundary(true, "glFinish");
}

/* Programs that dlopen() libEGL or libGL and look the swap functions up with
 * dlsym() on that handle (waffle, and so apitrace's eglretrace) never call
 * the interposed functions above: a lookup in a handle's scope does not see
 * LD_PRELOAD. So dlsym is interposed too, and answers such lookups with the
 * layer's function, remembering the library's for it to call. The same
 * holds for glFlush and glFinish (apitrace looks GL entry points up with
 * dlsym on its libGLESv2/libGL handle).
 *
 * Every other lookup must reach the real dlsym as if called directly:
 * RTLD_NEXT is resolved relative to the caller's return address (the shim
 * and this layer rely on it), so the pass-through has to be a tail call
 * (a jump, leaving the caller's return address in place). GCC makes it one
 * from -O2 on and, with the attribute, at -O1 with the sanitizers too (seen
 * in the object code); clang from -O1. If it ever were not a tail call,
 * every capture on the shim would break at once (the shim's own RTLD_NEXT
 * lookups would find the shim itself). */
typedef void *(*dlsym_fn)(void *, const char *);
static _Atomic(dlsym_fn) real_dlsym;

/* (CAP_NO_SANITIZE, cap_interpose.h: ASan looks its interceptors up with
 * dlsym before its shadow memory exists) */
CAP_NO_SANITIZE static dlsym_fn
find_real_dlsym(void)
{
   dlsym_fn fn = cap_ip_find_real_dlsym();
   real_dlsym = fn;
   return fn;
}

static void *
swap_lookup(void *handle, const char *name)
{
   if (!name || (name[0] != 'e' && name[0] != 'g'))
      return NULL;
   bool flush = strcmp(name, "glFlush") == 0, finish = strcmp(name, "glFinish") == 0;
   if (flush || finish) {
      void *fn = real_dlsym(handle, name);
      if (!fn || fn == (void *)glFlush || fn == (void *)glFinish)
         return fn;
      if (flush)
         handle_gl_flush = (gl_void_fn)fn;
      else
         handle_gl_finish = (gl_void_fn)fn;
      return flush ? (void *)glFlush : (void *)glFinish;
   }
   bool egl = strcmp(name, "eglSwapBuffers") == 0;
   if (!egl && strcmp(name, "glXSwapBuffers") != 0)
      return NULL;
   if (egl)
      return cap_ip_swap_lookup(real_dlsym, handle, name, (void *)eglSwapBuffers,
                                &handle_egl_swap, &handle_egl_gpa);
   void *fn = real_dlsym(handle, name);
   /* A handle whose scope is global (dlopen(NULL)) finds the layer itself. */
   if (!fn || fn == (void *)glXSwapBuffers)
      return fn;
   handle_glx_swap = (glx_swap_fn)fn;
   return (void *)glXSwapBuffers;
}

#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("optimize-sibling-calls")))
#endif
CAP_NO_SANITIZE EXPORT void *
dlsym(void *handle, const char *name)
{
   if (!real_dlsym && !find_real_dlsym())
      return NULL;
   if (handle != RTLD_NEXT && handle != RTLD_DEFAULT) {
      void *ours = swap_lookup(handle, name);
      if (ours)
         return ours;
   }
   return real_dlsym(handle, name);
}

/* Lets programs and tests tell that the capture layer is loaded. */
EXPORT const int tessera_capture_present = 1;
