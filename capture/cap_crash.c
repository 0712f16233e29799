/* SPDX-License-Identifier: MIT */
/*
 * Crash-safe capture: the layer's handler for the fatal synchronous signals
 * (SIGSEGV, SIGBUS, SIGILL, SIGFPE) and SIGABRT.
 *
 * Records reach the file within TESSERA_CAPTURE_FLUSH_MS through the
 * writer's thread (trace_writer.c), which covers SIGKILL. On these signals
 * the handler also writes what is already serialized in memory
 * (tsr_writer_flush_from_signal: no allocation, bounded waits), then does
 * what the program asked for: its own handler, or the default action.
 *
 * The program's handlers go behind ours: sigaction()/signal() are
 * interposed for the signals we own and only store the program's
 * disposition, which the handler chains to. SIGSEGV also carries the wp
 * strategy's write faults (cap_wp_fault), which never reach the program.
 */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/uio.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "capture/cap_priv.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
static sigaction_fn real_sigaction;

static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
#define NCRASH (sizeof(crash_sigs) / sizeof(crash_sigs[0]))
/* What the program asked for, per signal we own. Written by the program's
 * sigaction() (ours), read by the handler. */
static struct sigaction prev[NCRASH];
static atomic_bool owned[NCRASH];

/* cap_copy_from_user's copy in progress on this thread: where to return
 * to, and the source range whose read fault means "not readable". Set
 * before the thread's first fault can look at them (initial-exec: no
 * allocation in the handler). */
static __thread sigjmp_buf *volatile probe_env __attribute__((tls_model("initial-exec")));
static __thread volatile uintptr_t probe_lo __attribute__((tls_model("initial-exec")));
static __thread volatile uintptr_t probe_hi __attribute__((tls_model("initial-exec")));
/* TESSERA_CAPTURE_STATS: copies made plain, of them faulted, and by
 * process_vm_readv */
static atomic_ulong n_plain, n_faulted, n_vm;

static int
slot_of(int sig)
{
   for (unsigned i = 0; i < NCRASH; i++)
      if (crash_sigs[i] == sig)
         return (int)i;
   return -1;
}

void
cap_crash_flush(void)
{
   static atomic_flag busy = ATOMIC_FLAG_INIT;
   if (atomic_flag_test_and_set(&busy))
      return;   /* a crash inside the flush: leave the file as it is */
   struct tsr_writer *w = cap.w;
   if (w && !cap.disabled && getpid() == cap.pid) {
      int saved = errno;
      /* a file-size limit must not turn the crash into SIGXFSZ */
      sigset_t s, old;
      sigemptyset(&s);
      sigaddset(&s, SIGXFSZ);
      pthread_sigmask(SIG_BLOCK, &s, &old);
      tsr_writer_flush_from_signal(w, 250);
      pthread_sigmask(SIG_SETMASK, &old, NULL);
      errno = saved;
   }
   atomic_flag_clear(&busy);
}

static void
crash_handler(int sig, siginfo_t *si, void *uc)
{
   if (sig == SIGSEGV && cap_wp_fault(si))
      return;
   /* a read fault of cap_copy_from_user's copy: the program passed a
    * pointer the kernel would answer EFAULT for. Our handlers run with
    * SA_NODEFER, so the mask to keep is the one we interrupted. */
   sigjmp_buf *env = probe_env;
   if (env && (sig == SIGSEGV || sig == SIGBUS) && si->si_code > 0 &&
       (uintptr_t)si->si_addr >= probe_lo && (uintptr_t)si->si_addr < probe_hi) {
      probe_env = NULL;
      siglongjmp(*env, 1);
   }
   cap_crash_flush();
   int i = slot_of(sig);
   struct sigaction p = prev[i];
   if (p.sa_flags & SA_SIGINFO) {
      p.sa_sigaction(sig, si, uc);
      return;
   }
   /* A fault raised by an instruction (si_code > 0) comes back if we
    * return, so SIG_IGN cannot hold it either. */
   bool sent = si->si_code <= 0;
   if (p.sa_handler == SIG_IGN && sent)
      return;
   if (p.sa_handler != SIG_IGN && p.sa_handler != SIG_DFL) {
      p.sa_handler(sig);
      return;
   }
   /* Default action: give the signal back to the kernel. A fault repeats
    * when we return; a sent signal (kill, raise, abort) is sent again. */
   struct sigaction dfl;
   memset(&dfl, 0, sizeof(dfl));
   dfl.sa_handler = SIG_DFL;
   atomic_store(&owned[i], false);
   real_sigaction(sig, &dfl, NULL);
   if (sent)
      raise(sig);
}

bool
cap_crash_init(void)
{
   real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
   if (!real_sigaction)
      return false;
   bool segv = false;
   for (unsigned i = 0; i < NCRASH; i++) {
      struct sigaction sa, cur;
      memset(&sa, 0, sizeof(sa));
      sa.sa_sigaction = crash_handler;
      /* SA_NODEFER: a write fault of the wp strategy inside the program's
       * own handler is still ours */
      sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
      sigemptyset(&sa.sa_mask);
      if (real_sigaction(crash_sigs[i], &sa, &prev[i]) ||
          real_sigaction(crash_sigs[i], NULL, &cur) || !(cur.sa_flags & SA_SIGINFO) ||
          cur.sa_sigaction != crash_handler)
         continue;   /* e.g. a sanitizer keeps it to itself */
      atomic_store(&owned[i], true);
      if (crash_sigs[i] == SIGSEGV)
         segv = true;
   }
   return segv;
}

/* The copy itself: its own function, so that nothing of the caller's
 * state lives across the jump back. */
static __attribute__((noinline)) bool
probe_copy(void *dst, const void *src, size_t n)
{
   /* a copy this one interrupted (an ioctl in a signal handler) gets its
    * probe back afterwards */
   sigjmp_buf *volatile outer = probe_env;
   volatile uintptr_t olo = probe_lo, ohi = probe_hi;
   sigjmp_buf env;
   if (sigsetjmp(env, 0)) {   /* no mask saved: no system call */
      atomic_signal_fence(memory_order_seq_cst);
      atomic_fetch_add_explicit(&n_faulted, 1, memory_order_relaxed);
      probe_lo = olo;
      probe_hi = ohi;
      probe_env = outer;
      return false;
   }
   probe_lo = (uintptr_t)src;
   probe_hi = (uintptr_t)src + n;
   probe_env = &env;
   atomic_signal_fence(memory_order_seq_cst);
   memcpy(dst, src, n);
   atomic_signal_fence(memory_order_seq_cst);
   probe_env = NULL;
   probe_lo = olo;
   probe_hi = ohi;
   probe_env = outer;
   return true;
}

bool
cap_copy_from_user(void *dst, const void *src, size_t n)
{
   if (n == 0)
      return true;
   uintptr_t a = (uintptr_t)src;
   if (!a || a + n < a)
      return false;
   /* Both fault signals ours (no sanitizer keeping them; the program's
    * handlers are behind ours): a plain copy, a fault in it returned as
    * false by the handler. It used to be process_vm_readv on ourselves
    * (and a getpid) for every read: ~2.3 us each on the 2-core VM,
    * ~1,700 a run of eglretrace es2gears (the submissions' arguments,
    * command buffers and syncs, every other ioctl's argument), ~4 ms,
    * most of the layer's own CPU time on the program's threads. */
   if (atomic_load(&owned[0]) && atomic_load(&owned[1]) && real_sigaction) {
      atomic_fetch_add_explicit(&n_plain, 1, memory_order_relaxed);
      return probe_copy(dst, src, n);
   }
   atomic_fetch_add_explicit(&n_vm, 1, memory_order_relaxed);
   struct iovec l = { dst, n }, r = { (void *)a, n };
   ssize_t got = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
   if (got == (ssize_t)n)
      return true;
   if (got < 0 && (errno == ENOSYS || errno == EPERM)) {
      memcpy(dst, src, n);   /* no way to check (seccomp): as before */
      return true;
   }
   return false;
}

void
cap_copy_stats(unsigned long *plain, unsigned long *faulted, unsigned long *vm)
{
   *plain = atomic_load(&n_plain);
   *faulted = atomic_load(&n_faulted);
   *vm = atomic_load(&n_vm);
}

/* The program's handler for a signal we own goes behind ours: we pass it
 * every signal that is not a write-tracking fault, and report it back as
 * set. */
__attribute__((visibility("default"))) int
sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
   if (!real_sigaction)
      real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
   cap_note_sigaction(sig, act);
   int i = slot_of(sig);
   if (i < 0 || !atomic_load(&owned[i]))
      return real_sigaction(sig, act, old);
   struct sigaction p = prev[i];
   if (act)
      prev[i] = *act;
   if (old)
      *old = p;
   return 0;
}

__attribute__((visibility("default"))) sighandler_t
signal(int sig, sighandler_t h)
{
   struct sigaction sa, old;
   memset(&sa, 0, sizeof(sa));
   sa.sa_handler = h;
   sa.sa_flags = SA_RESTART;
   sigemptyset(&sa.sa_mask);
   if (sigaction(sig, &sa, &old))
      return SIG_ERR;
   return (old.sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))old.sa_sigaction
                                      : old.sa_handler;
}
