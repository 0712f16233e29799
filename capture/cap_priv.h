/* SPDX-License-Identifier: MIT */
/*
 * Private state of the capture layer (tessera-capture.so). One global
 * `cap` object; `cap.lock` serialises recording with the real ioctl so a
 * multi-threaded program's trace is in the kernel's order of submission.
 *
 * Lock order: cap.lock, then the shim's or kernel's locks (inside the real
 * ioctl). The kernel's job hook runs under the driver's lock, so it only
 * takes cap.hook_lock, which is never held across a call into the driver.
 */
#ifndef TESSERA_CAP_PRIV_H
#define TESSERA_CAP_PRIV_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture/cap_cmdbuf.h"
#include "capture/cap_options.h"
#include "trace/trace.h"
#include "uapi/uapi_shaders.h"
#include "uapi/uapi_vm_map.h"

#define CAP_MAX_FDS 65536
#define CAP_MAX_CPUMAPS 4096

enum cap_fd_kind { CAP_FD_UNKNOWN = 0, CAP_FD_OTHER = 1, CAP_FD_ASAHI = 2 };

struct cap_bo {
   uint32_t handle, flags, vm_id;
   uint64_t size;
   uint64_t mmap_offset;
   bool have_offset;
   void *map;            /* the layer's own read-only mapping */
   bool map_populated;   /* a whole read populated map (MADV_POPULATE_READ) */
   bool recorded;        /* GEM_CREATE is in the current trace */
   bool full;            /* next snapshot reads the whole object */
   bool gpu_dirty;       /* bound writable where work was submitted */
   bool fw_written;      /* bound as a timestamp object: the firmware writes it */
   bool gpu_stale;       /* ... and work was submitted since its last whole read */
   uint64_t gen;         /* snapshot generation that last read it */
};

struct cap_vm {
   uint32_t id;
   uint64_t kernel_start, kernel_end;
   struct uapi_vm_map map;
   struct uapi_shader_cache shaders; /* va -> size, hash (uapi_shaders.h) */
   bool recorded;
   bool binds_stale;     /* binds happened while not recording */
   bool fresh;           /* VM_CREATE just written by record_state() */
};

struct cap_queue {
   uint32_t id, vm_id, priority, flags;
   uint64_t usc_exec_base;
   bool recorded;
   /* The first out-sync of the queue's last submission, recorded or not:
    * what the start of a window waits on before reading memory. */
   bool have_last_out;
   struct drm_asahi_sync last_out;
};

struct cap_tsobj {
   uint32_t object_handle, handle, flags;
   uint64_t offset, range;
   bool recorded;
};

struct cap_file {
   uint32_t id;
   unsigned fds;                 /* program fds that refer to it */
   int any_fd;                   /* one of them, for the layer's own calls */
   bool recorded;
   char drv_name[64], drv_date[64], drv_desc[128];
   struct tsr_driver drv;
   struct drm_asahi_params_global params;
   size_t params_size;
   struct cap_bo **bos;          /* by GEM handle */
   size_t nbos;
   struct cap_vm *vms;
   size_t nvms;
   struct cap_queue *queues;
   size_t nqueues;
   struct cap_tsobj *tsobjs;
   size_t ntsobjs;
   bool gpu_busy;                /* submissions since the layer last waited for them */
   struct cap_file *next;
};

/* A program mapping of an object, for write tracking (cap_wp.c). */
struct cap_cpumap {
   uintptr_t addr;
   size_t len;
   int prot;
   uint32_t file_id, handle;
   uint64_t bo_offset;
   _Atomic uint8_t *dirty;       /* one byte per host page */
   /* Every page is write-protected except those marked dirty, the hot
    * ones, and those of a fault handler still between its unprotect and
    * its mark (`faulting`), so re-arming a mapping without any needs no
    * mprotect (cap_wp_arm). */
   bool armed;
   /* Hot pages (cap_wp.c): written again soon after they were last
    * collected, left writable and read at every collect instead. Only
    * under cap.lock; the fault handler never sees a hot page. */
   uint32_t collects;            /* cap_wp_collect() calls that saw it */
   uint32_t *last_dirty;         /* per page: `collects` when last collected dirty */
   uint8_t *hot;                 /* per page: 0, or collects in a row unchanged + 1 */
   struct tsr_hash *hot_hash;    /* per hot page: its contents when last read */
   size_t nhot;
   /* Tracked by async userfaultfd write-protection (cap_uffd.h) instead
    * of mprotect: its writes never reach the SIGSEGV handler, collect
    * finds them with PAGEMAP_SCAN, `dirty` and the hot pages stay unused.
    * Cleared (under cap.lock) if a scan fails: mprotect from then on. */
   _Atomic bool uffd;
   /* Set after a page is marked in `dirty` (the fault handler, a scan,
    * cap_wp_cool), cleared by collect before it looks at the pages: a
    * mapping without it and without hot pages has nothing to collect, so
    * collect skips its page loop (most of an es2gears submission's
    * mappings, every submission). */
   _Atomic bool any_dirty;
   /* Fault handlers between giving a page write access and marking it
    * (cap_wp.c, "Ordering"): collect and arm wait for none first. */
   atomic_uint faulting;
   /* Per page (hot pages, cap_wp.c "idle_grow"): bits 0-1 how many times
    * its idle limit (HOT_IDLE) doubled; IDLED set when it was protected
    * again for being idle and has not been hot since. Under cap.lock. */
   uint8_t *idle;
   /* The fault handler may unprotect pages ahead of a sequential write
    * (cap_wp.c, "Writes ahead"): only while the GPU cannot write the
    * object (collect reads those pages). Set at registration, cleared by
    * cap_wp_cool before the object is first bound writable or as a
    * timestamp object. */
   _Atomic bool ahead_ok;
};

/* A submission waiting for its out-sync (cap_reaper.c). */
struct cap_pending {
   struct cap_file *file;
   uint32_t seq, queue_id;
   uint32_t sync_gen;            /* cap.sync_gen when pushed */
   uint64_t pushed_ns;           /* cap_now_ns() at cap_reaper_push */
   struct drm_asahi_sync sync;
   unsigned nts;
   struct cap_ts_ref ts[16];
   struct cap_pending *next;
};

struct cap_real {
   int (*ioctl)(int, unsigned long, ...);
   void *(*mmap)(void *, size_t, int, int, int, off_t);
   int (*munmap)(void *, size_t);
   int (*close)(int);
   int (*dup)(int);
   int (*dup2)(int, int);
   int (*dup3)(int, int, int);
   int (*fcntl)(int, int, ...);
};

struct cap_state {
   pthread_mutex_t lock;
   pthread_cond_t cond;
   bool disabled;                /* bad options or a failed trace: pass through */
   struct cap_options opt;
   int pid;
   bool root;
   char trace_path[4200];
   struct tsr_writer *w;
   bool w_opened;                /* tried to open the writer */
   uint32_t next_seq;            /* next trace submission number */
   uint64_t submits, frames;     /* process-wide counts */
   uint64_t frame_submits;       /* submissions in the current frame */
   uint64_t key_frames;          /* frame markers since the last keyframe */
   bool triggered;
   atomic_uint signal_toggles;
   unsigned seen_toggles;
   uint64_t trigger_check_ns;
   bool active;
   uint64_t gen;
   struct cap_file *files;
   uint32_t next_file_id;
   /* reaper */
   pthread_t reaper;
   bool reaper_started, reaper_stop;
   struct cap_pending *pend_head, *pend_tail;
   int reaper_busy_fd;
   uint64_t reaper_wakes;        /* times the reaper thread woke up (statistics) */
   uint64_t reaper_polls;        /* ... of them that polled the pending fences */
   uint64_t fence_queries;       /* non-blocking fence queries (statistics) */
   uint64_t fences_known;        /* completions known from the program's wait (statistics) */
   /* Bumped before every call that can put another fence in a syncobj
    * than a submission's (reset, signal, transfer, import): a program's
    * wait on a syncobj proves a pending submission complete only if none
    * ran since the submission (cap_reaper_after_wait). */
   atomic_uint sync_gen;
   bool reaper_idle;             /* asleep until a push (nothing was pending) */
   /* job hook */
   bool hook_installed;
   /* statistics (TESSERA_CAPTURE_STATS) */
   bool stats;                   /* count the CPU time below (costs a syscall each) */
   uint64_t snap_ns, snap_bytes, submit_ns; /* snap_ns: reading, without the GPU waits */
   uint64_t reread_ns, reread_bytes; /* the part of snap_* spent re-reading GPU results */
   uint64_t gpu_wait_ns, gpu_waits;  /* blocked in wait_queues_idle(), wall time */
   /* CPU time of the program's threads in the layer's recording work (the
    * real ioctls' own CPU time excluded; the write-fault handler's is
    * cap_wp_fault_cpu_ns()), and of the reaper thread */
   uint64_t layer_cpu_ns, real_cpu_ns, reaper_cpu_ns;
   bool warned_gpu_wait;         /* said once that the GPU did not finish in time */
   uint64_t shader_ns, shader_scans; /* shader indexing at SUBMIT */
};

extern struct cap_state cap;
extern struct cap_real cap_real;

/* cap_layer.c */
void cap_init(void);
uint64_t cap_now_ns(void);
/* CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID). */
uint64_t cap_thread_cpu_ns(void);
void cap_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Runs a trace call with SIGXFSZ blocked in this thread and any pending one
 * discarded, so a file-size limit ends recording and not the program. */
void cap_sig_guard_begin(sigset_t *old);
void cap_sig_guard_end(const sigset_t *old);
/* Told of every sigaction() the program makes (cap_crash.c interposes it):
 * warns once when the program takes over the trigger signal. */
void cap_note_sigaction(int sig, const struct sigaction *act);
/* Checks a trace call's result; the first failure stops recording. */
bool cap_trace_ok(int r);

/* cap_state.c (all under cap.lock unless noted) */
struct cap_file *cap_file_probe(int fd);
int cap_ioctl_locked(struct cap_file *f, int fd, unsigned long req, void *arg);
struct cap_bo *cap_bo_get(struct cap_file *f, uint32_t handle);
const void *cap_bo_map(struct cap_file *f, struct cap_bo *bo);
void cap_file_release(struct cap_file *f);
struct cap_file *cap_file_by_id(uint32_t id);
void cap_update_active(void);
/* Starts or stops recording as ranges and triggers now say. */
void cap_update_active_nopoll(void);
void cap_frame_locked(uint32_t kind, const char *label);
/* Reads whole every object the GPU may have written since it was last read
 * (gpu_stale), so the trace holds the GPU's results before a frame marker,
 * a GEM_CLOSE (bo != NULL: that object only) or the end of the trace.
 * With --gpu-memory keyframes only at keyframes (cap_frame_locked). False
 * when not recording or when some file's GPU work did not finish (its
 * objects stay stale, the memory is not exact: no keyframe there). */
bool cap_reread_gpu_written(struct cap_file *f, struct cap_bo *bo);
void cap_open_writer(void);

/* cap_reaper.c */
/* The reaper's period: while submissions are pending it polls their
 * fences (without blocking) this long after the oldest was pushed and then
 * every period, leaving the rest to the program's own waits and polls
 * (recorded in the ioctl interposer, cap_reaper_poll_after_wait). So a
 * completion nobody waits for is recorded at most about this late. */
#define CAP_REAP_DEFER_NS 50000000ull
/* Queues p; wakes the reaper only if it sleeps until a push (nothing was
 * pending for a whole period), so a steadily submitting program costs no
 * thread switch per submission. */
void cap_reaper_push(struct cap_pending *p);
void cap_reaper_forget_file(struct cap_file *f);
void cap_reaper_poll(struct cap_file *f, uint32_t handle);
/* cap_reaper_poll(f, 0) also for the submission the reaper is waiting on:
 * after the program's own syncobj wait returned, so the GPU timestamps
 * are read before the program can reuse their slots. */
void cap_reaper_poll_after_wait(struct cap_file *f);
/* The same, knowing what the wait proves: the program's wait on syncobjs
 * `handles` (timeline points `points`, NULL for binary syncobjs; n of
 * them, all signalled) returned success, and it began when the next
 * submission number was seq0. A pending submission of f numbered below
 * seq0 that signals a waited syncobj (the last such one for a binary
 * syncobj, one at or below the point for a timeline), with no other
 * fence put in a syncobj since it was submitted (cap.sync_gen), is
 * complete without asking, and so is every earlier one of its queue
 * (a queue completes in order); the later ones of that queue are not
 * asked (the program cannot know of them from this wait; the reaper
 * records them). The other queues are asked as by
 * cap_reaper_poll_after_wait. n == 0: just that. */
void cap_reaper_after_wait(struct cap_file *f, const uint32_t *handles, const uint64_t *points,
                           unsigned n, uint32_t seq0);
void cap_reaper_shutdown(void);
void cap_hook_install(void);
void cap_hook_expect(uint32_t file_id, uint32_t queue_id, uint32_t seq, unsigned hw_cmds);
void cap_hook_drain_locked(void);
void cap_hook_reset_after_fork(void);

/* cap_crash.c */
/* Installs the crash handler on SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT
 * (those a sanitizer lets us have); true if SIGSEGV is ours. */
bool cap_crash_init(void);
/* From a signal handler: writes the records and pages serialized so far
 * (no allocation; gives up after 250 ms). */
void cap_crash_flush(void);
/* Copies n bytes from a program pointer without trusting it, as the
 * kernel's copy_from_user: false if [src, src + n) is not all readable
 * (the layer never crashes on a bad pointer the kernel would answer
 * EFAULT for). A plain copy when SIGSEGV and SIGBUS are ours (the handler
 * turns a read fault inside it into false), else process_vm_readv. */
bool cap_copy_from_user(void *dst, const void *src, size_t n);
/* Its counts (TESSERA_CAPTURE_STATS): plain copies, of them the ones that
 * faulted, and copies by process_vm_readv. */
void cap_copy_stats(unsigned long *plain, unsigned long *faulted, unsigned long *vm);

/* cap_wp.c */
/* Turns the write tracker on; false if SIGSEGV is not ours (own_segv). */
bool cap_wp_init(bool own_segv);
/* From the SIGSEGV handler: true if the fault was a tracked write (the
 * page is now marked dirty and writable again). */
bool cap_wp_fault(const siginfo_t *si);
void cap_wp_register(void *addr, size_t len, int prot, struct cap_file *f,
                     struct cap_bo *bo, uint64_t bo_offset);
void cap_wp_unmap(void *addr, size_t len);
/* Before the collects of a submission: finds the pages written in every
 * userfaultfd mapping since the last scan (one PAGEMAP_SCAN), protects
 * them again and marks them dirty for collect. */
void cap_wp_scan(void);
/* Records the CPU-dirty pages of bo and write-protects them again.
 * Returns false if the object has a mapping the tracker cannot vouch for. */
bool cap_wp_collect(struct cap_file *f, struct cap_bo *bo);
/* After a whole read: clear the dirty pages and protect every mapping. */
void cap_wp_arm(struct cap_file *f, struct cap_bo *bo);
/* Before work that may write bo is submitted (bo->gpu_dirty set right
 * after, before the snapshot collects): its hot pages are protected again and marked dirty, so this
 * snapshot reads them and every later CPU write to them is tracked (a
 * page read at every snapshot would race with the GPU's writes). */
void cap_wp_cool(struct cap_file *f, struct cap_bo *bo);
void cap_wp_forget_bo(uint32_t file_id, uint32_t handle);
/* Write faults taken, mprotect calls that removed write access (after a
 * fault or to arm a mapping) and mappings tracked, for the statistics. */
void cap_wp_stats(unsigned long *faults, unsigned long *protects, unsigned long *mappings);
/* Hot pages (TESSERA_CAPTURE_STATS): reads at collects, of them recorded
 * (changed); collects of a mapping, of them skipped as clean. */
/* pages the fault handler unprotected ahead of sequential writes */
unsigned long cap_wp_ahead_pages(void);
/* Pages made hot ahead of appends (cap_wp.c, "Appends"; cap.lock) */
unsigned long cap_wp_append_pages(void);
void cap_wp_hot_stats(unsigned long *hot_reads, unsigned long *hot_records,
                      unsigned long *collects, unsigned long *clean_skips);
/* CPU time spent in the write-fault handler (only with cap.stats). */
uint64_t cap_wp_fault_cpu_ns(void);
/* Collects and arms that waited for a fault handler between its two steps
 * (cap_wp.c, "Ordering"). */
unsigned long cap_wp_fault_waits(void);
/* The userfaultfd mechanism: mappings tracked by it, mappings it refused
 * (tracked by mprotect instead), PAGEMAP_SCAN calls and pages they found
 * written; *open_err is 0 if it is available, else the errno of opening
 * it (ENOTSUP: not asked for, TESSERA_CAPTURE_WP_TRACK is not uffd). */
void cap_wp_uffd_stats(unsigned long *maps, unsigned long *refused, unsigned long *scans,
                       unsigned long *pages, int *open_err);
/* In a forked child: the userfaultfd and pagemap descriptors are the
 * parent's; open the child's own at its next mapping. */
void cap_wp_after_fork(void);

#endif
