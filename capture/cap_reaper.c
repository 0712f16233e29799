/* SPDX-License-Identifier: MIT */
/*
 * Completions and firmware jobs.
 *
 * A completion (time and the GPU timestamps the firmware wrote) is
 * recorded when the program's own wait or poll of a syncobj returns
 * (cap_reaper_poll_after_wait, every signalled pending submission of the
 * file), or by the reaper thread, which polls the pending submissions'
 * first out-syncs (the program's own syncobjs, through a second,
 * read-only wait) every CAP_REAP_DEFER_NS while there are any, and waits
 * for them at exit (reaper_main).
 *
 * Firmware jobs come from the in-process kernel's job hook, which the shim
 * exports as tessera_shim_set_job_hook(); on real hardware there is none
 * and no job is recorded. The hook runs under the driver's lock, inside
 * the real SUBMIT or on the driver's scheduler thread, so it only copies
 * the job into a list under hook_lock; the list is written out under
 * cap.lock. Jobs are attributed to submissions in per-queue order: every
 * render command starts with one vertex job and every compute command is
 * one compute job; fragment and barrier jobs follow their vertex job.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm.h>

#include "capture/cap_priv.h"
#include "cmdstream/agx_fw_pack.h"
#include "kernel/asahi.h"

#define SLICE_NS 20000000ll

/* ----------------------------------------------------------------- reaper */

static uint32_t
gem_of_ts_object(struct cap_file *f, uint32_t object_handle, uint64_t *base)
{
   if (object_handle >= f->ntsobjs || !f->tsobjs[object_handle].object_handle)
      return 0;
   *base = f->tsobjs[object_handle].offset;
   return f->tsobjs[object_handle].handle;
}

static void
record_completion(struct cap_pending *p)
{
   struct cap_file *f = p->file;
   struct tsr_timestamp_value tv[16];
   unsigned n = 0;
   for (unsigned i = 0; i < p->nts; i++) {
      uint64_t base = 0;
      uint32_t h = gem_of_ts_object(f, p->ts[i].object_handle, &base);
      struct cap_bo *bo = h ? cap_bo_get(f, h) : NULL;
      const uint8_t *m = bo ? cap_bo_map(f, bo) : NULL;
      uint64_t off = base + p->ts[i].offset;
      if (!m || off + 8 > bo->size)
         continue;
      uint64_t v;
      memcpy(&v, m + off, 8);
      tv[n++] = (struct tsr_timestamp_value){ h, (uint32_t)off, v };
   }
   struct tsr_completion c = { .seq = p->seq, .status = 0, .cpu_time_ns = cap_now_ns(),
                               .num_timestamps = n, .timestamps = tv };
   if (cap.w && !cap.disabled)
      cap_trace_ok(tsr_write_completion(cap.w, f->id, &c));
}

static int
wait_slice(int fd, const struct drm_asahi_sync *s)
{
   int64_t deadline = (int64_t)cap_now_ns() + SLICE_NS;
   uint32_t h = s->handle;
   if (s->sync_type == DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ) {
      uint64_t pt = s->timeline_value;
      struct drm_syncobj_timeline_wait w = {
         .handles = (uintptr_t)&h, .points = (uintptr_t)&pt, .timeout_nsec = deadline,
         .count_handles = 1, .flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
      };
      return cap_real.ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w) ? -errno : 0;
   }
   struct drm_syncobj_wait w = {
      .handles = (uintptr_t)&h, .timeout_nsec = deadline, .count_handles = 1,
      .flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
   };
   return cap_real.ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w) ? -errno : 0;
}

/* Under cap.lock, without blocking: records the completions of `f`'s
 * (every file's if f is NULL) pending submissions signalling `handle`
 * (all of them if handle is 0) that have signalled, before the program
 * destroys, resets or reuses the syncobj or closes the file, after a wait
 * that returned, and at the reaper's periodic poll. What has not
 * signalled stays (or, at close, is dropped). */
struct queue_ref {
   struct cap_file *f;
   uint32_t q;
};

/* Index of p's queue in refs[0..n), or n. */
static unsigned
queue_ref_find(const struct queue_ref *refs, unsigned n, const struct cap_pending *p)
{
   unsigned k = 0;
   while (k < n && (refs[k].f != p->file || refs[k].q != p->queue_id))
      k++;
   return k;
}

/* Raises p's queue's "complete up to" sequence number to p's. More than
 * 16 queues in one wait: the rest are simply not inferred (asked later). */
static void
queue_done_raise(struct queue_ref *done, uint32_t *done_seq, unsigned *ndone,
                 const struct cap_pending *p)
{
   unsigned k = queue_ref_find(done, *ndone, p);
   if (k == *ndone && *ndone < 16) {
      done[k] = (struct queue_ref){ p->file, p->queue_id };
      done_seq[k] = p->seq;
      (*ndone)++;
   } else if (k < *ndone && p->seq > done_seq[k]) {
      done_seq[k] = p->seq;
   }
}

static void
poll_pending_skip(struct cap_file *f, uint32_t handle, bool even_busy, bool in_order,
                  const struct queue_ref *skipq, unsigned nskip)
{
   /* in_order: a queue's work completes in submission order, so after
    * one of a queue's submissions is found busy its later ones are not
    * asked (the reaper's periodic poll: one ioctl per busy queue, not one
    * per pending submission of a GPU that runs behind). skipq: queues not
    * asked at all, as if found busy. */
   struct queue_ref busy[16];
   unsigned nbusy = 0;
   for (unsigned i = 0; i < nskip && nbusy < 16; i++)
      busy[nbusy++] = skipq[i];
   struct cap_pending **pp = &cap.pend_head;
   cap.pend_tail = NULL;
   while (*pp) {
      struct cap_pending *p = *pp;
      bool skip = in_order && queue_ref_find(busy, nbusy, p) < nbusy;
      if (!skip && (!f || p->file == f) && (!handle || p->sync.handle == handle) &&
          (even_busy || (int)cap.reaper_busy_fd != p->file->any_fd)) {
         int64_t now = (int64_t)cap_now_ns();
         cap.fence_queries++;
         uint32_t h = p->sync.handle;
         uint64_t pt = p->sync.timeline_value;
         int r;
         if (p->sync.sync_type == DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ) {
            struct drm_syncobj_timeline_wait w = { .handles = (uintptr_t)&h,
                                                   .points = (uintptr_t)&pt,
                                                   .timeout_nsec = now, .count_handles = 1 };
            r = cap_real.ioctl(p->file->any_fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w);
         } else {
            struct drm_syncobj_wait w = { .handles = (uintptr_t)&h, .timeout_nsec = now,
                                          .count_handles = 1 };
            r = cap_real.ioctl(p->file->any_fd, DRM_IOCTL_SYNCOBJ_WAIT, &w);
         }
         if (r == 0) {
            record_completion(p);
            *pp = p->next;
            free(p);
            continue;
         }
         if (in_order && nbusy < 16)
            busy[nbusy++] = (struct queue_ref){ p->file, p->queue_id };
      }
      cap.pend_tail = p;
      pp = &p->next;
   }
}

static void
poll_pending(struct cap_file *f, uint32_t handle, bool even_busy, bool in_order)
{
   poll_pending_skip(f, handle, even_busy, in_order, NULL, 0);
}

void
cap_reaper_after_wait(struct cap_file *f, const uint32_t *handles, const uint64_t *points,
                      unsigned n, uint32_t seq0)
{
   /* per queue, the last submission known complete */
   struct queue_ref done[16];
   uint32_t done_seq[16];
   unsigned ndone = 0;
   /* per waited binary syncobj, the last submission that signals it */
   struct cap_pending *last[16] = { 0 };
   if (n > 16)
      n = 0;
   unsigned gen = atomic_load(&cap.sync_gen);
   for (struct cap_pending *p = cap.pend_head; n && p; p = p->next) {
      if (p->file != f || p->seq >= seq0)
         continue;
      bool timeline = p->sync.sync_type == DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ;
      for (unsigned i = 0; i < n; i++) {
         if (handles[i] != p->sync.handle || timeline != (points != NULL))
            continue;
         bool fresh = p->sync_gen == gen;
         if (!timeline) {
            last[i] = fresh ? p : NULL;   /* a later one replaced its fence */
            continue;
         }
         if (!fresh || p->sync.timeline_value > points[i])
            continue;
         queue_done_raise(done, done_seq, &ndone, p);
      }
   }
   for (unsigned i = 0; i < n; i++) {
      struct cap_pending *p = last[i];
      if (p)
         queue_done_raise(done, done_seq, &ndone, p);
   }
   if (ndone) {
      struct cap_pending **pp = &cap.pend_head;
      cap.pend_tail = NULL;
      while (*pp) {
         struct cap_pending *p = *pp;
         unsigned k = queue_ref_find(done, ndone, p);
         if (k < ndone && p->seq <= done_seq[k]) {
            cap.fences_known++;
            record_completion(p);
            *pp = p->next;
            free(p);
            continue;
         }
         cap.pend_tail = p;
         pp = &p->next;
      }
   }
   poll_pending_skip(f, 0, true, true, done, ndone);
}

void
cap_reaper_poll(struct cap_file *f, uint32_t handle)
{
   poll_pending(f, handle, false, false);
}

/* The reaper, back from its slice, finds its entry gone from the head and
 * moves on (the same as when a file is forgotten meanwhile). */
void
cap_reaper_poll_after_wait(struct cap_file *f)
{
   poll_pending(f, 0, true, true);
}

static void
pop_head(void)
{
   struct cap_pending *p = cap.pend_head;
   cap.pend_head = p->next;
   if (!cap.pend_head)
      cap.pend_tail = NULL;
   free(p);
}

/* Sleeps on cap.cond (cap.lock held) for at most ns, or until woken if
 * ns is 0. */
static void
sleep_locked(uint64_t ns)
{
   if (!ns) {
      cap.reaper_idle = true;
      pthread_cond_wait(&cap.cond, &cap.lock);
      cap.reaper_idle = false;
   } else {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      ns += (uint64_t)ts.tv_nsec;
      ts.tv_sec += (time_t)(ns / 1000000000ull);
      ts.tv_nsec = (long)(ns % 1000000000ull);
      pthread_cond_timedwait(&cap.cond, &cap.lock, &ts);
   }
   cap.reaper_wakes++;
}

/* Completions are left to the program's thread first: a program learns
 * that its work is done by waiting on or polling the syncobj, through the
 * ioctl interposer, which then records every signalled completion of the
 * file (cap_reaper_poll_after_wait) -- the GPU timestamps must be read
 * before the program reuses their slots anyway. While the program runs,
 * the thread does not wait on fences: it wakes every CAP_REAP_DEFER_NS
 * while submissions are pending, records those that have signalled
 * (without blocking) and sleeps again; with nothing pending for a whole
 * period it sleeps until the next push. Only at exit does it block in
 * the fence waits (in slices, so that a close() of the fd it uses is
 * delayed by at most one). It used to be woken at every push and to block
 * in the fence wait at once: two thread switches per submission
 * (es2gears: 237 for 120), most of them for completions the program's own
 * poll records anyway. The price: a completion nobody waits for is
 * recorded up to CAP_REAP_DEFER_NS (plus scheduling delay) after the GPU
 * finished it, not at once. */
static void *
reaper_main(void *arg)
{
   (void)arg;
   /* its own name, so that profiles (perf --comm) tell its time apart */
   pthread_setname_np(pthread_self(), "tessera-reaper");
   pthread_mutex_lock(&cap.lock);
   uint64_t stop_since = 0;
   bool was_empty = false;
   for (;;) {
      cap_hook_drain_locked();
      if (!cap.pend_head) {
         if (cap.reaper_stop)
            break;
         /* one period with nothing pending: sleep until a push */
         sleep_locked(was_empty ? 0 : CAP_REAP_DEFER_NS);
         was_empty = true;
         continue;
      }
      was_empty = false;
      struct cap_pending *p = cap.pend_head;
      if (!cap.reaper_stop) {
         uint64_t now = cap_now_ns(), due = p->pushed_ns + CAP_REAP_DEFER_NS;
         if (now >= due) {
            poll_pending(NULL, 0, true, true);
            cap.reaper_polls++;
            due = now + CAP_REAP_DEFER_NS;
         }
         sleep_locked(due - now);
         continue;
      }
      int fd = p->file->any_fd;
      cap.reaper_busy_fd = fd;
      pthread_mutex_unlock(&cap.lock);
      int r = wait_slice(fd, &p->sync);
      pthread_mutex_lock(&cap.lock);
      cap.reaper_busy_fd = -1;
      pthread_cond_broadcast(&cap.cond);
      if (p != cap.pend_head)
         continue;   /* its file was closed meanwhile */
      if (r == 0) {
         record_completion(p);
         pop_head();
      } else if (r == -ETIME || r == -EINTR) {
         /* at exit, give outstanding work two seconds */
         if (!stop_since)
            stop_since = cap_now_ns();
         else if (cap_now_ns() - stop_since > 2000000000ull)
            pop_head();
      } else {
         pop_head();   /* syncobj gone or replaced: no completion known */
      }
   }
   cap.reaper_cpu_ns += cap_thread_cpu_ns();
   pthread_mutex_unlock(&cap.lock);
   return NULL;
}

void
cap_reaper_push(struct cap_pending *p)
{
   if (!cap.reaper_started) {
      sigset_t all, old;
      sigfillset(&all);
      pthread_sigmask(SIG_BLOCK, &all, &old);
      int r = pthread_create(&cap.reaper, NULL, reaper_main, NULL);
      pthread_sigmask(SIG_SETMASK, &old, NULL);
      if (r) {
         free(p);
         return;
      }
      cap.reaper_started = true;
   }
   p->pushed_ns = cap_now_ns();
   p->sync_gen = atomic_load(&cap.sync_gen);
   if (cap.pend_tail)
      cap.pend_tail->next = p;
   else
      cap.pend_head = p;
   cap.pend_tail = p;
   /* The reaper is woken only from its idle sleep; otherwise it looks at
    * the list at its next period (a wake-up per push was a thread switch
    * per submission). */
   if (cap.reaper_idle)
      pthread_cond_broadcast(&cap.cond);
}

void
cap_reaper_forget_file(struct cap_file *f)
{
   cap_reaper_poll(f, 0);
   struct cap_pending **pp = &cap.pend_head;
   cap.pend_tail = NULL;
   while (*pp) {
      if ((*pp)->file == f) {
         struct cap_pending *d = *pp;
         *pp = d->next;
         free(d);
      } else {
         cap.pend_tail = *pp;
         pp = &(*pp)->next;
      }
   }
}

void
cap_reaper_shutdown(void)
{
   pthread_mutex_lock(&cap.lock);
   bool started = cap.reaper_started;
   cap.reaper_stop = true;
   pthread_cond_broadcast(&cap.cond);
   pthread_mutex_unlock(&cap.lock);
   if (started)
      pthread_join(cap.reaper, NULL);
   pthread_mutex_lock(&cap.lock);
   cap.reaper_started = false;
   while (cap.pend_head)
      pop_head();
   pthread_mutex_unlock(&cap.lock);
}

/* ------------------------------------------------------------------ hook */

struct hook_job {
   uint32_t file_id, seq, queue_id, pipe, vm_slot;
   uint64_t job_va, payload_va;
   uint32_t header_size, script_size, payload_size;
   struct hook_job *next;
   uint8_t data[];
};

struct hook_expect {
   uint32_t file_id, queue_id, seq;
   unsigned left;
};

#define MAX_EXPECT 256
static pthread_mutex_t hook_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hook_job *jobs_head, **jobs_tail = &jobs_head;
static struct hook_expect expect[MAX_EXPECT];
static unsigned n_expect;
static struct { uint32_t file_id, seq; bool valid; } last_for_queue[256];

typedef int (*set_hook_fn)(asahi_job_hook_fn fn, void *user);

static void
attribute(const struct asahi_job_info *j, uint32_t *file_id, uint32_t *seq)
{
   *file_id = 0;
   *seq = UINT32_MAX;
   uint32_t qi = j->queue_id & 255;
   if (j->pipe == AGX_FW_PIPE_VERTEX || j->pipe == AGX_FW_PIPE_COMPUTE) {
      for (unsigned i = 0; i < n_expect; i++) {
         if (expect[i].queue_id != j->queue_id)
            continue;
         *file_id = expect[i].file_id;
         *seq = expect[i].seq;
         last_for_queue[qi].file_id = *file_id;
         last_for_queue[qi].seq = *seq;
         last_for_queue[qi].valid = true;
         if (--expect[i].left == 0) {
            memmove(&expect[i], &expect[i + 1], (n_expect - i - 1) * sizeof(expect[0]));
            n_expect--;
         }
         return;
      }
   } else if (last_for_queue[qi].valid) {
      *file_id = last_for_queue[qi].file_id;
      *seq = last_for_queue[qi].seq;
   }
}

static void
job_hook(void *user, const struct asahi_job_info *j)
{
   (void)user;
   size_t hs = AGX_FW_JOB_HEADER_LENGTH, ss = j->script ? j->script_size : 0, ps = j->payload ? j->payload_size : 0;
   struct hook_job *h = malloc(sizeof(*h) + hs + ss + ps);
   if (!h)
      return;
   pthread_mutex_lock(&hook_lock);
   attribute(j, &h->file_id, &h->seq);
   h->queue_id = j->queue_id;
   h->pipe = j->pipe;
   h->vm_slot = j->vm_slot;
   h->job_va = j->job_va;
   h->payload_va = j->payload_va;
   h->header_size = j->header ? (uint32_t)hs : 0;
   h->script_size = (uint32_t)ss;
   h->payload_size = (uint32_t)ps;
   if (j->header)
      memcpy(h->data, j->header, hs);
   if (ss)
      memcpy(h->data + h->header_size, j->script, ss);
   if (ps)
      memcpy(h->data + h->header_size + ss, j->payload, ps);
   h->next = NULL;
   *jobs_tail = h;
   jobs_tail = &h->next;
   pthread_mutex_unlock(&hook_lock);
}

void
cap_hook_install(void)
{
   if (cap.hook_installed)
      return;
   set_hook_fn set = (set_hook_fn)dlsym(RTLD_DEFAULT, "tessera_shim_set_job_hook");
   if (set && set(job_hook, NULL) == 0)
      cap.hook_installed = true;
}

void
cap_hook_expect(uint32_t file_id, uint32_t queue_id, uint32_t seq, unsigned hw_cmds)
{
   if (!cap.hook_installed || !hw_cmds)
      return;
   pthread_mutex_lock(&hook_lock);
   if (n_expect == MAX_EXPECT) {
      memmove(&expect[0], &expect[1], (MAX_EXPECT - 1) * sizeof(expect[0]));
      n_expect--;
   }
   expect[n_expect++] = (struct hook_expect){ file_id, queue_id, seq, hw_cmds };
   pthread_mutex_unlock(&hook_lock);
}

void
cap_hook_drain_locked(void)
{
   if (!cap.hook_installed)
      return;
   pthread_mutex_lock(&hook_lock);
   struct hook_job *list = jobs_head;
   jobs_head = NULL;
   jobs_tail = &jobs_head;
   pthread_mutex_unlock(&hook_lock);
   while (list) {
      struct hook_job *h = list;
      list = h->next;
      if (cap.active && cap.w && !cap.disabled) {
         struct tsr_fw_job j = {
            .seq = h->seq, .queue_id = h->queue_id, .pipe = h->pipe, .vm_slot = h->vm_slot,
            .job_va = h->job_va, .payload_va = h->payload_va,
            .header_size = h->header_size, .script_size = h->script_size,
            .payload_size = h->payload_size, .header = h->data,
            .script = h->data + h->header_size,
            .payload = h->data + h->header_size + h->script_size,
         };
         cap_trace_ok(tsr_write_fw_job(cap.w, h->file_id, &j));
      }
      free(h);
   }
}

void
cap_hook_reset_after_fork(void)
{
   pthread_mutex_init(&hook_lock, NULL);
   jobs_head = NULL;   /* the parent's, left reachable from nowhere: freed by exit */
   jobs_tail = &jobs_head;
   n_expect = 0;
   memset(last_for_queue, 0, sizeof(last_for_queue));
}
