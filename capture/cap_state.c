/* SPDX-License-Identifier: MIT */
/*
 * What the capture layer records for each asahi ioctl, the shadow of the
 * program's driver objects it keeps to do so, and the memory snapshot
 * taken before every SUBMIT. Everything here runs under cap.lock.
 *
 * The shadow is kept whether or not recording is on, so a trace that
 * starts in the middle of a run (a range or a trigger) can first write the
 * complete state: every VM with its mappings, every object with its
 * contents, every queue and timestamp object (record_state()).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <drm.h>

#include "capture/cap_priv.h"

#define PAGE_GPU 16384u

/* Linux 5.14's madvise; older headers lack the name. */
#ifdef MADV_POPULATE_READ
#define CAP_MADV_POPULATE_READ MADV_POPULATE_READ
#else
#define CAP_MADV_POPULATE_READ 22
#endif

/* Copies from a program pointer without trusting it: the kernel answers
 * EFAULT for a bad pointer, and so must we rather than crash. */
static bool
safe_read(void *dst, uint64_t src, size_t n)
{
   if (n == 0)
      return true;
   if (!src)
      return false;
   return cap_copy_from_user(dst, (const void *)(uintptr_t)src, n);
}

/* --------------------------------------------------------------- shadow */

static struct cap_vm *
vm_get(struct cap_file *f, uint32_t id)
{
   for (size_t i = 0; i < f->nvms; i++)
      if (f->vms[i].id == id)
         return &f->vms[i];
   return NULL;
}

static struct cap_queue *
queue_get(struct cap_file *f, uint32_t id)
{
   for (size_t i = 0; i < f->nqueues; i++)
      if (f->queues[i].id == id)
         return &f->queues[i];
   return NULL;
}

struct cap_bo *
cap_bo_get(struct cap_file *f, uint32_t handle)
{
   return handle < f->nbos ? f->bos[handle] : NULL;
}

struct cap_file *
cap_file_by_id(uint32_t id)
{
   for (struct cap_file *f = cap.files; f; f = f->next)
      if (f->id == id)
         return f;
   return NULL;
}

static bool
grow(void **p, size_t *n, size_t want, size_t elem)
{
   if (want <= *n)
      return true;
   size_t m = *n ? *n : 8;
   while (m < want)
      m *= 2;
   void *q = realloc(*p, m * elem);
   if (!q)
      return false;
   memset((uint8_t *)q + *n * elem, 0, (m - *n) * elem);
   *p = q;
   *n = m;
   return true;
}

/* The layer's own read-only view of an object: the program may never map
 * it (GPU-only objects) or map only part of it. */
const void *
cap_bo_map(struct cap_file *f, struct cap_bo *bo)
{
   if (bo->map)
      return bo->map;
   if (!bo->have_offset) {
      struct drm_asahi_gem_mmap_offset o = { .handle = bo->handle };
      if (cap_real.ioctl(f->any_fd, DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, &o))
         return NULL;
      bo->mmap_offset = o.offset;
      bo->have_offset = true;
   }
   void *p = cap_real.mmap(NULL, bo->size, PROT_READ, MAP_SHARED, f->any_fd,
                           (off_t)bo->mmap_offset);
   if (p == MAP_FAILED)
      return NULL;
   bo->map = p;
   return p;
}

static void
bo_free(struct cap_file *f, struct cap_bo *bo)
{
   if (bo->map)
      cap_real.munmap(bo->map, bo->size);
   cap_wp_forget_bo(f->id, bo->handle);
   free(bo);
}

void
cap_file_release(struct cap_file *f)
{
   for (size_t i = 0; i < f->nbos; i++)
      if (f->bos[i])
         bo_free(f, f->bos[i]);
   for (size_t i = 0; i < f->nvms; i++) {
      uapi_vm_map_free(&f->vms[i].map);
      uapi_shader_cache_free(&f->vms[i].shaders);
   }
   free(f->bos);
   free(f->vms);
   free(f->queues);
   free(f->tsobjs);
   for (struct cap_file **pp = &cap.files; *pp; pp = &(*pp)->next) {
      if (*pp == f) {
         *pp = f->next;
         break;
      }
   }
   free(f);
}

/* ---------------------------------------------------------------- writer */

static void
write_meta(void)
{
   char buf[4096];
   snprintf(buf, sizeof(buf), "%d", cap.pid);
   tsr_write_meta(cap.w, "pid", buf);
   snprintf(buf, sizeof(buf), "%d", getppid());
   tsr_write_meta(cap.w, "ppid", buf);
   FILE *fp = fopen("/proc/self/cmdline", "rb");
   if (fp) {
      size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
      fclose(fp);
      buf[n] = 0;
      tsr_write_meta(cap.w, "program", buf);
      for (size_t i = 0; i + 1 < n; i++)
         if (!buf[i])
            buf[i] = '\n';
      tsr_write_meta(cap.w, "args", buf);
   }
   if (gethostname(buf, sizeof(buf)) == 0)
      tsr_write_meta(cap.w, "host", buf);
   char sig[32];
   snprintf(buf, sizeof(buf), "mem=%s frames=%.64s submits=%.64s signal=%s trigger_file=%.1024s start=%s frame_on=%s",
            cap.opt.mem == CAP_MEM_WP ? "wp" : "hash",
            getenv("TESSERA_CAPTURE_FRAMES") ? getenv("TESSERA_CAPTURE_FRAMES") : "all",
            getenv("TESSERA_CAPTURE_SUBMITS") ? getenv("TESSERA_CAPTURE_SUBMITS") : "all",
            cap_signal_name(cap.opt.trigger_signal, sig, sizeof(sig)), cap.opt.trigger_file,
            cap.opt.start_off ? "off" : "on",
            (const char *[]){ "swap", "flush", "finish", "submit" }[cap.opt.frame_on]);
   tsr_write_meta(cap.w, "capture_options", buf);
   if (cap.opt.gpu_memory_full)
      snprintf(buf, sizeof(buf), "full");
   else
      snprintf(buf, sizeof(buf), "keyframes every %" PRIu64, cap.opt.keyframe_every);
   tsr_write_meta(cap.w, TSR_META_GPU_MEMORY, buf);
   tsr_write_meta(cap.w, "tessera_version", TESSERA_VERSION);
}

void
cap_open_writer(void)
{
   if (cap.w_opened || cap.disabled)
      return;
   cap.w_opened = true;
   if (!cap_trace_path(cap.opt.path, cap.pid, cap.root, cap.trace_path,
                       sizeof(cap.trace_path))) {
      cap.disabled = true;
      return;
   }
   /* The writer's thread inherits this mask: with every signal blocked it
    * never runs the program's handlers, and a SIGXFSZ from a file-size
    * limit stays pending on it instead of killing the process. */
   sigset_t all, old;
   sigfillset(&all);
   pthread_sigmask(SIG_BLOCK, &all, &old);
   /* the layer reports a failure itself, once (cap_trace_ok) */
   /* Compression runs on the writer's thread but still competes with the
    * program for CPU: the level is TESSERA_CAPTURE_ZSTD_LEVEL's
    * (CAP_DEFAULT_ZSTD_LEVEL; docs/capture.md weighs CPU against size). */
   /* The writer's thread pushes records out flush_ms after they were
    * written, whether or not the program submits again (a crash or SIGKILL
    * then loses at most about that much). */
   struct tsr_writer_options wo = { .quiet = true, .zstd_level = cap.opt.zstd_level,
                                    .flush_ms = cap.opt.flush_ms > 3600000 ? 3600000u
                                                : (unsigned)cap.opt.flush_ms };
   int r = tsr_writer_open(&cap.w, cap.trace_path, &wo);
   cap_sig_guard_end(&old);
   if (r) {
      cap.w = NULL;
      cap.disabled = true;
      cap_log("tessera capture: cannot create %s: %s; not recording", cap.trace_path,
              strerror(-r));
      return;
   }
   write_meta();
}

/* ---------------------------------------------------------------- files */

struct cap_file *
cap_file_probe(int fd)
{
   struct cap_file *f = calloc(1, sizeof(*f));
   if (!f)
      return NULL;
   struct drm_version v;
   memset(&v, 0, sizeof(v));
   v.name = f->drv_name;
   v.name_len = sizeof(f->drv_name) - 1;
   v.date = f->drv_date;
   v.date_len = sizeof(f->drv_date) - 1;
   v.desc = f->drv_desc;
   v.desc_len = sizeof(f->drv_desc) - 1;
   if (cap_real.ioctl(fd, DRM_IOCTL_VERSION, &v) || strcmp(f->drv_name, "asahi") != 0) {
      free(f);
      return NULL;
   }
   f->drv = (struct tsr_driver){
      .major = v.version_major, .minor = v.version_minor, .patchlevel = v.version_patchlevel,
      .name = f->drv_name, .date = f->drv_date, .desc = f->drv_desc,
   };
   f->id = cap.next_file_id++;
   f->any_fd = fd;
   f->next = cap.files;
   cap.files = f;
   cap_open_writer();
   cap_hook_install();
   /* record from the start when ranges and triggers allow */
   cap_update_active_nopoll();
   return f;
}

/* ------------------------------------------------------ state recording */

static void snapshot_bo(struct cap_file *f, struct cap_bo *bo);

static bool
recording(void)
{
   return cap.active && cap.w && !cap.disabled;
}

static void
record_file(struct cap_file *f)
{
   if (f->recorded)
      return;
   cap_trace_ok(tsr_write_driver(cap.w, f->id, &f->drv));
   if (f->params_size)
      cap_trace_ok(tsr_write_device_params(cap.w, f->id, &f->params, f->params_size));
   f->recorded = true;
}

static void
record_vm_binds(struct cap_file *f, struct cap_vm *vm, bool fresh)
{
   /* Replace whatever the trace had for this VM by the current mappings:
    * unbind the user VA on both sides of the kernel range, then rebind. */
   size_t n = vm->map.count + 2;
   struct drm_asahi_gem_bind_op *ops = calloc(n, sizeof(*ops));
   if (!ops)
      return;
   size_t k = 0;
   uint64_t lo = f->params.vm_start, hi = f->params.vm_end;
   if (vm->kernel_start > lo && !fresh)
      ops[k++] = (struct drm_asahi_gem_bind_op){ .flags = DRM_ASAHI_BIND_UNBIND,
                                                 .addr = lo, .range = vm->kernel_start - lo };
   if (hi > vm->kernel_end && !fresh)
      ops[k++] = (struct drm_asahi_gem_bind_op){ .flags = DRM_ASAHI_BIND_UNBIND,
                                                 .addr = vm->kernel_end,
                                                 .range = hi - vm->kernel_end };
   for (size_t i = 0; i < vm->map.count; i++) {
      const struct uapi_mapping *m = &vm->map.m[i];
      ops[k++] = (struct drm_asahi_gem_bind_op){ .flags = m->flags, .handle = m->handle,
                                                 .offset = m->offset, .range = m->range,
                                                 .addr = m->addr };
   }
   if (k) {
      struct tsr_vm_bind b = { .vm_id = vm->id, .num_ops = (uint32_t)k, .ops = ops };
      cap_trace_ok(tsr_write_vm_bind(cap.w, f->id, &b));
   }
   free(ops);
   vm->binds_stale = false;
}

static void
record_bo(struct cap_file *f, struct cap_bo *bo)
{
   struct tsr_gem_create g = { .handle = bo->handle, .flags = bo->flags,
                               .vm_id = bo->vm_id, .size = bo->size };
   cap_trace_ok(tsr_write_gem_create(cap.w, f->id, &g));
   bo->recorded = true;
   bo->full = true;
}

/* How long wait_queues_idle() waits for one queue. It used to be 2 s, and
 * the wait's failure was ignored: a program runs up to 8 batches ahead of
 * the GPU (the tessera driver), and on a loaded machine the model took
 * longer than that to finish them, so the re-read at a keyframe marker
 * recorded render targets the GPU was still drawing (glmark2-es2-texture:
 * frame 59, the frame before the keyframe at 60, differed in about one
 * capture of three). Only a hung GPU takes this long. */
#define CAP_GPU_WAIT_NS (60ull * 1000000000ull)

/* Waits for the last submission of every queue of f, recorded or not, so
 * that memory read afterwards holds the results of all the work before it.
 * At the start of a window: the replay does not re-run that work, and
 * treats a wait on a syncobj it has not seen signalled as satisfied
 * (replay_submit.c), which is then true. Before a whole read of an object
 * the GPU may be writing (snapshot_bo, the keyframes of
 * cap_reread_gpu_written): the replay restores what is read, so a read
 * racing with the GPU would put a stale or half-written render target
 * into the replay's frame (without it, es2gears under eglretrace without
 * -s recorded frame N-1's image for about one frame in ten, differently on
 * every run). A queue whose last submission had no out-sync cannot be
 * waited for; a syncobj the program reset (or destroyed) meanwhile answers
 * at once, as done: the program waited for it first. False when the GPU
 * did not finish within CAP_GPU_WAIT_NS (f stays busy). */
static bool
wait_queues_idle(struct cap_file *f)
{
   uint64_t t0 = cap_now_ns();
   bool idle = true;
   for (size_t i = 0; i < f->nqueues; i++) {
      struct cap_queue *q = &f->queues[i];
      if (!q->vm_id || !q->have_last_out)
         continue;
      uint32_t h = q->last_out.handle;
      int64_t deadline = (int64_t)(cap_now_ns() + CAP_GPU_WAIT_NS);
      int r;
      if (q->last_out.sync_type == DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ) {
         uint64_t pt = q->last_out.timeline_value;
         struct drm_syncobj_timeline_wait w = { .handles = (uintptr_t)&h,
                                                .points = (uintptr_t)&pt,
                                                .timeout_nsec = deadline, .count_handles = 1 };
         do
            r = cap_real.ioctl(f->any_fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w);
         while (r && errno == EINTR);
      } else {
         struct drm_syncobj_wait w = { .handles = (uintptr_t)&h, .timeout_nsec = deadline,
                                       .count_handles = 1 };
         do
            r = cap_real.ioctl(f->any_fd, DRM_IOCTL_SYNCOBJ_WAIT, &w);
         while (r && errno == EINTR);
      }
      if (r && errno == ETIME) {
         idle = false;
         if (!cap.warned_gpu_wait) {
            cap.warned_gpu_wait = true;
            cap_log("tessera capture: the GPU did not finish queue %u's work within %llu s; "
                    "its results are recorded at a later keyframe\n", q->id,
                    (unsigned long long)(CAP_GPU_WAIT_NS / 1000000000ull));
         }
      }
   }
   f->gpu_busy = !idle;
   /* the layer's own wait says these are done: record them now, at the
    * time it learned it (the program may not wait for them) */
   if (idle)
      cap_reaper_poll_after_wait(f);
   cap.gpu_wait_ns += cap_now_ns() - t0;
   cap.gpu_waits++;
   return idle;
}

/* Writes the whole current state that the trace does not have yet, in the
 * order the kernel needs it (a replay creates it in record order): the
 * file's driver and parameters, VMs, GEM objects (VM-private ones name
 * their VM), the VMs' mappings, timestamp objects, every object's memory
 * as of now, then queues. Syncobjs have no state records: the window
 * starts after all earlier work is done (wait_queues_idle), so every
 * syncobj it may wait on from before is signalled. A META record
 * "capture_window" says where the window starts in the program's run. */
/* Marks the trace position where every object's recorded memory is the
 * real one, as of the start of the trace frame `ahead` frames from the
 * current one (0: the current frame, which has no submission yet; 1: the
 * next one, before the marker ending this one). Only traces that leave out
 * GPU results between keyframes need the mark. */
static void
write_keyframe(unsigned ahead)
{
   if (cap.opt.gpu_memory_full || !recording())
      return;
   struct tsr_writer_stats st;
   tsr_writer_get_stats(cap.w, &st);
   char v[32];
   snprintf(v, sizeof(v), "%" PRIu64, st.frames + ahead);
   cap_trace_ok(tsr_write_meta(cap.w, TSR_META_KEYFRAME, v));
   cap.key_frames = 0;
}

static void
record_state(void)
{
   char where[96];
   snprintf(where, sizeof(where), "frame %llu submission %llu",
            (unsigned long long)cap.frames, (unsigned long long)cap.submits);
   cap_trace_ok(tsr_write_meta(cap.w, "capture_window", where));
   for (struct cap_file *f = cap.files; f; f = f->next) {
      record_file(f);
      for (size_t i = 0; i < f->nvms; i++) {
         struct cap_vm *vm = &f->vms[i];
         if (!vm->kernel_end || vm->recorded)
            continue;   /* a free slot, or in the trace already */
         struct tsr_vm_create c = { vm->id, vm->kernel_start, vm->kernel_end };
         cap_trace_ok(tsr_write_vm_create(cap.w, f->id, &c));
         vm->recorded = true;
         vm->fresh = true;
         vm->binds_stale = vm->map.count != 0;
      }
      for (size_t i = 0; i < f->nbos; i++) {
         struct cap_bo *bo = f->bos[i];
         if (bo && !bo->recorded)
            record_bo(f, bo);
      }
      for (size_t i = 0; i < f->nvms; i++) {
         struct cap_vm *vm = &f->vms[i];
         if (vm->kernel_end && vm->binds_stale)
            record_vm_binds(f, vm, vm->fresh);
         vm->fresh = false;
      }
      for (size_t i = 0; i < f->ntsobjs; i++) {
         struct cap_tsobj *t = &f->tsobjs[i];
         if (t->object_handle && !t->recorded) {
            struct tsr_bind_object b = { DRM_ASAHI_BIND_OBJECT_OP_BIND, t->flags, t->handle,
                                         t->object_handle, t->offset, t->range };
            cap_trace_ok(tsr_write_bind_object(cap.w, f->id, &b));
            t->recorded = true;
         }
      }
      /* Memory as of the window's start: CPU writes were not tracked and
       * GPU results not read while recording was off. */
      bool idle = wait_queues_idle(f);
      for (size_t i = 0; i < f->nbos && recording(); i++) {
         struct cap_bo *bo = f->bos[i];
         if (!bo)
            continue;
         bo->full = true;
         snapshot_bo(f, bo);
      }
      if (idle)
         write_keyframe(0);
      for (size_t i = 0; i < f->nqueues; i++) {
         struct cap_queue *q = &f->queues[i];
         if (!q->vm_id)
            continue;   /* a free slot */
         if (!q->recorded) {
            struct tsr_queue_create c = { q->id, q->vm_id, q->priority, q->flags,
                                          q->usc_exec_base };
            cap_trace_ok(tsr_write_queue_create(cap.w, f->id, &c));
            q->recorded = true;
         }
      }
   }
}

void
cap_update_active_nopoll(void)
{
   bool want = cap.triggered && !cap.disabled && cap.w &&
               (!cap.opt.have_submits || cap_range_has(&cap.opt.submits, cap.submits)) &&
               (!cap.opt.have_frames || cap_range_has(&cap.opt.frames, cap.frames));
   if (want == cap.active)
      return;
   if (want) {
      cap.active = true;
      record_state();
   } else {
      cap.active = false;
      cap_trace_ok(tsr_write_frame(cap.w, 2, "capture stopped"));
      sigset_t old;
      cap_sig_guard_begin(&old);
      cap_trace_ok(tsr_writer_flush(cap.w));
      cap_sig_guard_end(&old);
   }
}

void
cap_frame_locked(uint32_t kind, const char *label)
{
   /* The frame's GPU results go into the trace before its marker: replay's
    * --validate checks a submission against the first later recording of
    * each page it wrote, and the pre-submit snapshots alone would leave the
    * last submissions of a frame unrecorded (wp) or recorded only after the
    * CPU touched them again. This read replaces wp's former lazy re-read at
    * the next frame's first submission, so the cost per frame is unchanged. */
   if (recording()) {
      /* --gpu-memory keyframes: only every keyframe_every-th marker. The
       * replay re-creates what the GPU wrote by running its work again;
       * the trace needs it only where a replay starts without running what
       * came before (--from-frame, trim) and for --validate. */
      if (cap.opt.gpu_memory_full || ++cap.key_frames >= cap.opt.keyframe_every) {
         /* Not idle: what the GPU is still writing stays stale and the
          * keyframe moves to the next marker. */
         if (cap_reread_gpu_written(NULL, NULL))
            write_keyframe(1);
      }
      cap_trace_ok(tsr_write_frame(cap.w, kind, label));
   }
   cap.frames++;
   cap.frame_submits = 0;
   /* Not recording: whatever the GPU wrote is read at the next snapshot.
    * (Recording, the keyframes alone read it: marking it here would read
    * it whole at every frame's first submission.) */
   for (struct cap_file *f = recording() ? NULL : cap.files; f; f = f->next)
      for (size_t i = 0; i < f->nbos; i++)
         if (f->bos[i] && f->bos[i]->gpu_stale)
            f->bos[i]->full = true;
}

/* -------------------------------------------------------------- memory */

static void
snapshot_bo(struct cap_file *f, struct cap_bo *bo)
{
   if (!bo->recorded)
      record_bo(f, bo);
   /* wp: arm before reading, so a write racing with the read faults and
    * is caught by the next snapshot */
   if (cap.opt.mem == CAP_MEM_WP && !bo->full) {
      if (cap_wp_collect(f, bo))
         return;
      bo->full = true;   /* a mapping lost its tracking: read whole, re-arm */
   }
   /* A GPU that does not finish (wait_queues_idle false) leaves the
    * object stale: read now, the CPU's writes are not lost, and what the
    * GPU still writes is read again at the next keyframe. */
   bool gpu_done = true;
   if (bo->gpu_stale && f->gpu_busy)
      gpu_done = wait_queues_idle(f);
   if (cap.opt.mem == CAP_MEM_WP)
      cap_wp_arm(f, bo);
   const void *p = cap_bo_map(f, bo);
   if (!p)
      return;   /* cannot read it: the trace keeps the older contents */
   /* The first whole read through the layer's own mapping (mostly the
    * keyframes' re-reads of GPU-written objects) would fault on every
    * fault-around window of 16 pages (es2gears: 26 faults a run in the
    * page hash, ~11 us each on the 2-core VM); one MADV_POPULATE_READ maps
    * them all in one call. Once per mapping: later reads find the pages
    * mapped (if the kernel dropped some, they fault as before). A kernel
    * or mapping without it (EINVAL: before 5.14, VM_PFNMAP) just faults. */
   if (!bo->map_populated) {
      bo->map_populated = true;
      madvise((void *)p, bo->size, CAP_MADV_POPULATE_READ);
   }
   cap_trace_ok(tsr_write_memory(cap.w, f->id, bo->handle, 0, p, bo->size));
   cap.snap_bytes += bo->size;
   bo->full = false;
   bo->gpu_stale = !gpu_done;
}

bool
cap_reread_gpu_written(struct cap_file *only_f, struct cap_bo *only_bo)
{
   if (!recording())
      return false;
   uint64_t t0 = cap_now_ns(), bytes0 = cap.snap_bytes, wait0 = cap.gpu_wait_ns;
   bool exact = true;
   for (struct cap_file *f = cap.files; f && recording(); f = f->next) {
      if (only_f && f != only_f)
         continue;
      /* Wait once per file before reading any of its objects: a file whose
       * GPU work does not finish keeps them stale (read at a later
       * keyframe) instead of recording half-drawn results. */
      if (f->gpu_busy && !wait_queues_idle(f)) {
         exact = false;
         continue;
      }
      for (size_t i = 0; i < f->nbos && recording(); i++) {
         struct cap_bo *bo = f->bos[i];
         if (!bo || !bo->gpu_stale || (only_bo && bo != only_bo))
            continue;
         bo->full = true;
         snapshot_bo(f, bo);
      }
   }
   /* the time reading, not waiting for the GPU (counted apart) */
   uint64_t dt = cap_now_ns() - t0 - (cap.gpu_wait_ns - wait0);
   cap.snap_ns += dt;
   cap.reread_ns += dt;
   cap.reread_bytes += cap.snap_bytes - bytes0;
   return exact && recording();
}

/* Everything bound in the VM is what the GPU may read. */
static void
snapshot_vm(struct cap_file *f, struct cap_vm *vm)
{
   uint64_t t0 = cap_now_ns(), wait0 = cap.gpu_wait_ns;
   /* An object this submission is the first to let the GPU write loses
    * its hot pages before it is read (cap_wp.c), and is GPU-dirty from
    * here on, before the collect below: a page written since the last
    * snapshot in a short run became hot in that very collect while
    * gpu_dirty was still false, and a hot page is read at every snapshot
    * while the GPU may be writing it. Mesa's asahi driver binds every
    * object writable as it creates it, so its first uploads' pages stayed
    * hot; when the object was later reused as a render target, a
    * snapshot read such a page half-drawn and the replay put that record
    * over its own result (chromium-compose-glx: one capture in ~10 drew
    * frame 0's tab icon from a half-drawn mask). gpu_stale waits for the
    * reads: this snapshot still reads what the CPU wrote before it. */
   for (size_t i = 0; i < vm->map.count; i++) {
      struct cap_bo *bo = cap_bo_get(f, vm->map.m[i].handle);
      if (bo && !bo->gpu_dirty && (vm->map.m[i].flags & DRM_ASAHI_BIND_WRITE)) {
         if (cap.opt.mem == CAP_MEM_WP)
            cap_wp_cool(f, bo);
         bo->gpu_dirty = true;
      }
   }
   if (cap.opt.mem == CAP_MEM_WP)
      cap_wp_scan();   /* the userfaultfd mappings' writes, for collect */
   cap.gen++;
   for (size_t i = 0; i < vm->map.count && recording(); i++) {
      struct cap_bo *bo = cap_bo_get(f, vm->map.m[i].handle);
      if (!bo || bo->gen == cap.gen)
         continue;
      bo->gen = cap.gen;
      snapshot_bo(f, bo);
   }
   /* what this submission may write is stale from now on */
   for (size_t i = 0; i < vm->map.count; i++) {
      struct cap_bo *bo = cap_bo_get(f, vm->map.m[i].handle);
      if (bo && (vm->map.m[i].flags & DRM_ASAHI_BIND_WRITE))
         bo->gpu_dirty = bo->gpu_stale = true;
   }
   cap.snap_ns += cap_now_ns() - t0 - (cap.gpu_wait_ns - wait0);
}

/* -------------------------------------------------------------- shaders */

struct vm_reader {
   struct cap_file *f;
   struct cap_vm *vm;
};

/* GPU memory as the submission will see it, through the layer's own
 * mappings of the bound objects (agx_decode_read_fn). */
static size_t
read_vm(void *ctx, uint64_t va, void *dst, size_t size)
{
   struct vm_reader *r = ctx;
   size_t done = 0;
   while (done < size) {
      uint64_t a = va + done;
      const struct uapi_mapping *m = uapi_vm_map_find(&r->vm->map, a);
      if (!m)
         break;
      struct cap_bo *bo = cap_bo_get(r->f, m->handle);
      const uint8_t *p = bo ? cap_bo_map(r->f, bo) : NULL;
      if (!p)
         break;
      uint64_t avail;
      uint64_t off = uapi_mapping_offset(m, a, &avail);
      if (off >= bo->size)
         break;
      if (avail > bo->size - off)
         avail = bo->size - off;
      size_t n = size - done < avail ? size - done : (size_t)avail;
      memcpy((uint8_t *)dst + done, p + off, n);
      done += n;
   }
   return done;
}

/* Shaders of a submission, found over the memory just recorded (before
 * the kernel runs it: what the trace holds is what they are read from). */
static void
scan_shaders(struct cap_file *f, struct cap_vm *vm, struct cap_queue *q,
             const uint8_t *cmdbuf, size_t size, struct uapi_shader_list *out)
{
   uint64_t t0 = cap_now_ns();
   struct vm_reader r = { f, vm };
   uapi_cmdbuf_shaders(cmdbuf, size, q->usc_exec_base, read_vm, &r, &vm->shaders, out);
   cap.shader_ns += cap_now_ns() - t0;
   cap.shader_scans++;
}

static void
record_shaders(struct cap_file *f, struct cap_queue *q, uint32_t seq,
               const struct uapi_shader_list *l)
{
   for (size_t i = 0; i < l->count; i++) {
      const struct uapi_shader *c = &l->v[i];
      struct tsr_shader sh = {
         .seq = seq, .stage = c->stage, .usc_base = q->usc_exec_base,
         .va = c->va, .size = c->size, .hash = c->hash,
      };
      if (!cap_trace_ok(tsr_write_shader(cap.w, f->id, &sh)))
         return;
   }
}

/* --------------------------------------------------------------- ioctls */

/* The program's own ioctl; with statistics on, its CPU time is taken out
 * of the layer's (cap.layer_cpu_ns). */
static int
do_real(int fd, unsigned long req, void *arg)
{
   if (!cap.stats)
      return cap_real.ioctl(fd, req, arg);
   uint64_t c0 = cap_thread_cpu_ns();
   int r = cap_real.ioctl(fd, req, arg);
   int saved = errno;
   cap.real_cpu_ns += cap_thread_cpu_ns() - c0;
   errno = saved;
   return r;
}

/* Copies the argument struct the way drm_ioctl() does: as many bytes as
 * the request encodes, zero-extended to our struct. */
static bool
read_arg(void *dst, size_t dst_size, unsigned long req, void *arg)
{
   size_t n = _IOC_SIZE(req);
   memset(dst, 0, dst_size);
   return safe_read(dst, (uintptr_t)arg, n < dst_size ? n : dst_size);
}

static void
on_submit(struct cap_file *f, int fd, unsigned long req, void *arg, int *ret)
{
   struct drm_asahi_submit s;
   if (!read_arg(&s, sizeof(s), req, arg)) {
      *ret = do_real(fd, req, arg);
      return;
   }
   cap_update_active();
   struct cap_queue *q = queue_get(f, s.queue_id);
   struct cap_vm *vm = q ? vm_get(f, q->vm_id) : NULL;
   bool rec = recording();
   if (rec && vm)
      snapshot_vm(f, vm);
   /* read the command buffer before the kernel sees it: what we record is
    * what it was given */
   uint8_t *cmdbuf = NULL;
   struct drm_asahi_sync *syncs = NULL;
   uint32_t nsync = s.in_sync_count + s.out_sync_count;
   bool ok = rec && s.cmdbuf_size <= (1u << 20) && nsync <= 1024;
   if (ok) {
      cmdbuf = malloc(s.cmdbuf_size ? s.cmdbuf_size : 1);
      syncs = calloc(nsync ? nsync : 1, sizeof(*syncs));
      ok = cmdbuf && syncs && safe_read(cmdbuf, s.cmdbuf, s.cmdbuf_size) &&
           safe_read(syncs, s.syncs, nsync * sizeof(*syncs));
   }
   unsigned hw_cmds = 0;
   struct cap_ts_ref ts[16];
   int nts = ok ? cap_cmdbuf_timestamps(cmdbuf, s.cmdbuf_size, ts, 16, &hw_cmds) : 0;
   struct uapi_shader_list shaders = { 0 };
   if (ok && vm)
      scan_shaders(f, vm, q, cmdbuf, s.cmdbuf_size, &shaders);
   if (ok) {
      cap_hook_expect(f->id, s.queue_id, cap.next_seq, hw_cmds);
      /* a binary out-sync gets a new fence: collect the old one's news */
      for (uint32_t i = s.in_sync_count; i < nsync; i++)
         if (syncs[i].sync_type == DRM_ASAHI_SYNC_SYNCOBJ)
            cap_reaper_poll(f, syncs[i].handle);
   }
   uint64_t t = cap_now_ns();
   *ret = do_real(fd, req, arg);
   int saved = errno;
   if (*ret == 0) {
      cap.submits++;
      cap.frame_submits++;
      f->gpu_busy = true;
      /* what a later window start waits for (wait_queues_idle) */
      struct drm_asahi_sync last;
      if (q && s.out_sync_count &&
          (ok ? (last = syncs[s.in_sync_count], true)
              : safe_read(&last, s.syncs + (uint64_t)s.in_sync_count * sizeof(last),
                          sizeof(last)))) {
         q->last_out = last;
         q->have_last_out = true;
      }
      /* The firmware writes this submission's timestamps into their
       * objects whatever the VM binding says (a driver that binds its
       * timestamp object read-only, as the tessera driver does, has it
       * never bound writable): stale like GPU-written memory, so the next
       * keyframe records the values the firmware wrote. */
      for (int i = 0; ok && i < nts && i < 16; i++) {
         uint32_t o = ts[i].object_handle;
         struct cap_bo *tbo = o < f->ntsobjs && f->tsobjs[o].object_handle
                                 ? cap_bo_get(f, f->tsobjs[o].handle) : NULL;
         if (tbo)
            tbo->gpu_stale = true;
      }
   }
   if (ok && *ret == 0 && recording()) {
      struct tsr_submit ts_rec = {
         .queue_id = s.queue_id, .flags = s.flags,
         .in_sync_count = s.in_sync_count, .out_sync_count = s.out_sync_count,
         .syncs = syncs, .cmdbuf_size = s.cmdbuf_size, .cmdbuf = cmdbuf,
         .result = 0, .cpu_time_ns = t,
      };
      uint32_t seq = 0;
      if (cap_trace_ok(tsr_write_submit(cap.w, f->id, &ts_rec, &seq))) {
         cap.next_seq = seq + 1;
         record_shaders(f, q, seq, &shaders);
         cap.submit_ns += cap_now_ns() - t;
         if (s.out_sync_count) {
            struct cap_pending *p = calloc(1, sizeof(*p));
            if (p) {
               p->file = f;
               p->seq = seq;
               p->queue_id = s.queue_id;
               p->sync = syncs[s.in_sync_count];
               p->nts = nts < 0 ? 0 : nts > 16 ? 16 : (unsigned)nts;
               memcpy(p->ts, ts, p->nts * sizeof(ts[0]));
               cap_reaper_push(p);
            }
         }
      }
      cap_hook_drain_locked();
   }
   free(cmdbuf);
   free(syncs);
   uapi_shader_list_free(&shaders);
   if (*ret == 0 && cap.opt.frame_every && cap.frame_submits >= cap.opt.frame_every)
      cap_frame_locked(0, "every N submissions");
   else if (*ret == 0 && cap.opt.frame_on == CAP_FRAME_ON_SUBMIT)
      cap_frame_locked(0, "submission");
   errno = saved;
}

static void
on_vm_bind(struct cap_file *f, int fd, unsigned long req, void *arg, int *ret)
{
   struct drm_asahi_vm_bind b;
   bool have = read_arg(&b, sizeof(b), req, arg);
   struct drm_asahi_gem_bind_op *ops = NULL;
   if (have && b.num_binds && b.num_binds <= 4096 && b.stride >= 8 && b.stride <= 4096) {
      ops = calloc(b.num_binds, sizeof(*ops));
      uint8_t *raw = malloc((size_t)b.num_binds * b.stride);
      if (ops && raw && safe_read(raw, b.userptr, (size_t)b.num_binds * b.stride)) {
         for (uint32_t i = 0; i < b.num_binds; i++)
            memcpy(&ops[i], raw + (size_t)i * b.stride,
                   b.stride < sizeof(ops[i]) ? b.stride : sizeof(ops[i]));
      } else {
         free(ops);
         ops = NULL;
      }
      free(raw);
   }
   *ret = do_real(fd, req, arg);
   int saved = errno;
   struct cap_vm *vm = have ? vm_get(f, b.vm_id) : NULL;
   if (*ret == 0 && ops && vm) {
      for (uint32_t i = 0; i < b.num_binds; i++)
         uapi_vm_map_apply(&vm->map, &ops[i]);
      if (recording() && vm->recorded && !vm->binds_stale) {
         struct tsr_vm_bind r = { b.vm_id, b.num_binds, ops, 0 };
         cap_trace_ok(tsr_write_vm_bind(cap.w, f->id, &r));
      } else {
         vm->binds_stale = true;
      }
   }
   free(ops);
   errno = saved;
}

int
cap_ioctl_locked(struct cap_file *f, int fd, unsigned long req, void *arg)
{
   unsigned nr = _IOC_NR(req);
   int ret = 0;
   /* a syncobj about to lose its fence: collect what it says first */
   if (nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_DESTROY)) {
      struct drm_syncobj_destroy d;
      if (read_arg(&d, sizeof(d), req, arg))
         cap_reaper_poll(f, d.handle);
      return do_real(fd, req, arg);
   }
   if (nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_RESET)) {
      struct drm_syncobj_array a;
      uint32_t h[64];
      if (read_arg(&a, sizeof(a), req, arg) && a.count_handles <= 64 &&
          safe_read(h, a.handles, a.count_handles * sizeof(h[0])))
         for (uint32_t i = 0; i < a.count_handles; i++)
            cap_reaper_poll(f, h[i]);
      return do_real(fd, req, arg);
   }
   if (nr == _IOC_NR(DRM_IOCTL_GEM_CLOSE)) {
      struct drm_gem_close c;
      bool have = read_arg(&c, sizeof(c), req, arg);
      struct cap_bo *bo = have ? cap_bo_get(f, c.handle) : NULL;
      if (bo && cap.opt.gpu_memory_full)
         cap_reread_gpu_written(f, bo);   /* its last GPU results (only --validate reads them) */
      if (bo && bo->map) {
         /* our mapping would keep the object alive */
         cap_real.munmap(bo->map, bo->size);
         bo->map = NULL;
      }
      ret = do_real(fd, req, arg);
      if (ret == 0 && bo) {
         int saved = errno;
         for (size_t i = 0; i < f->nvms; i++)
            uapi_vm_map_drop_handle(&f->vms[i].map, c.handle);
         if (bo->recorded && cap.w && !cap.disabled)
            cap_trace_ok(tsr_write_gem_close(cap.w, f->id, c.handle));
         f->bos[c.handle] = NULL;
         bo_free(f, bo);
         errno = saved;
      }
      return ret;
   }
   if (nr == DRM_COMMAND_BASE + DRM_ASAHI_SUBMIT) {
      on_submit(f, fd, req, arg, &ret);
      return ret;
   }
   if (nr == DRM_COMMAND_BASE + DRM_ASAHI_VM_BIND) {
      on_vm_bind(f, fd, req, arg, &ret);
      return ret;
   }
   ret = do_real(fd, req, arg);
   if (ret != 0)
      return ret;
   int saved = errno;
   bool rec = recording();
   switch (nr - DRM_COMMAND_BASE) {
   case DRM_ASAHI_GET_PARAMS: {
      struct drm_asahi_get_params g;
      if (read_arg(&g, sizeof(g), req, arg) && g.param_group == 0) {
         size_t n = g.size < sizeof(f->params) ? g.size : sizeof(f->params);
         struct drm_asahi_params_global p;
         memset(&p, 0, sizeof(p));
         if (safe_read(&p, g.pointer, n) && n >= f->params_size) {
            f->params = p;
            f->params_size = n;
            if (f->recorded && rec)
               cap_trace_ok(tsr_write_device_params(cap.w, f->id, &p, n));
         }
      }
      break;
   }
   case DRM_ASAHI_VM_CREATE: {
      struct drm_asahi_vm_create c;
      if (read_arg(&c, sizeof(c), req, arg)) {
         /* f->vms has f->nvms slots; a zeroed one is free */
         struct cap_vm *vm = NULL;
         for (size_t i = 0; i < f->nvms && !vm; i++)
            if (!f->vms[i].id && !f->vms[i].kernel_end)
               vm = &f->vms[i];
         size_t n = f->nvms;
         if (!vm && grow((void **)&f->vms, &f->nvms, n + 1, sizeof(*f->vms)))
            vm = &f->vms[n];
         if (vm) {
            *vm = (struct cap_vm){ .id = c.vm_id, .kernel_start = c.kernel_start,
                                   .kernel_end = c.kernel_end };
            if (rec) {
               record_file(f);
               struct tsr_vm_create t = { c.vm_id, c.kernel_start, c.kernel_end };
               cap_trace_ok(tsr_write_vm_create(cap.w, f->id, &t));
               vm->recorded = true;
            }
         }
      }
      break;
   }
   case DRM_ASAHI_VM_DESTROY: {
      struct drm_asahi_vm_destroy d;
      struct cap_vm *vm = read_arg(&d, sizeof(d), req, arg) ? vm_get(f, d.vm_id) : NULL;
      if (vm) {
         if (vm->recorded && cap.w && !cap.disabled)
            cap_trace_ok(tsr_write_vm_destroy(cap.w, f->id, d.vm_id));
         uapi_vm_map_free(&vm->map);
         uapi_shader_cache_free(&vm->shaders);
         memset(vm, 0, sizeof(*vm));
      }
      break;
   }
   case DRM_ASAHI_GEM_CREATE: {
      struct drm_asahi_gem_create c;
      if (read_arg(&c, sizeof(c), req, arg) &&
          grow((void **)&f->bos, &f->nbos, (size_t)c.handle + 1, sizeof(*f->bos))) {
         struct cap_bo *bo = calloc(1, sizeof(*bo));
         if (bo) {
            *bo = (struct cap_bo){ .handle = c.handle, .flags = c.flags, .vm_id = c.vm_id,
                                   .size = c.size, .full = true };
            if (f->bos[c.handle])
               bo_free(f, f->bos[c.handle]);
            f->bos[c.handle] = bo;
            if (rec) {
               record_file(f);
               record_bo(f, bo);
               /* wp: a new object is zero, as the replay's GEM_CREATE
                * makes it, and every write from now on is tracked (CPU
                * mappings are armed when made, GPU writes make it stale):
                * no whole read. hash reads it at every submission anyway. */
               if (cap.opt.mem == CAP_MEM_WP)
                  bo->full = false;
            }
         }
      }
      break;
   }
   case DRM_ASAHI_GEM_MMAP_OFFSET: {
      struct drm_asahi_gem_mmap_offset o;
      struct cap_bo *bo = read_arg(&o, sizeof(o), req, arg) ? cap_bo_get(f, o.handle) : NULL;
      if (bo) {
         bo->mmap_offset = o.offset;
         bo->have_offset = true;
      }
      break;
   }
   case DRM_ASAHI_GEM_BIND_OBJECT: {
      struct drm_asahi_gem_bind_object b;
      if (!read_arg(&b, sizeof(b), req, arg))
         break;
      if (b.op == DRM_ASAHI_BIND_OBJECT_OP_BIND &&
          grow((void **)&f->tsobjs, &f->ntsobjs, (size_t)b.object_handle + 1,
               sizeof(*f->tsobjs))) {
         struct cap_tsobj *t = &f->tsobjs[b.object_handle];
         *t = (struct cap_tsobj){ b.object_handle, b.handle, b.flags, b.offset, b.range, false };
         /* the firmware writes timestamps into it: no hot pages (cap_wp.c) */
         struct cap_bo *tbo = cap_bo_get(f, b.handle);
         if (tbo && !tbo->fw_written) {
            tbo->fw_written = true;
            if (cap.opt.mem == CAP_MEM_WP)
               cap_wp_cool(f, tbo);
         }
         if (rec) {
            record_file(f);
            struct tsr_bind_object r = { b.op, b.flags, b.handle, b.object_handle,
                                         b.offset, b.range };
            cap_trace_ok(tsr_write_bind_object(cap.w, f->id, &r));
            t->recorded = true;
         }
      } else if (b.op == DRM_ASAHI_BIND_OBJECT_OP_UNBIND && b.object_handle < f->ntsobjs) {
         struct cap_tsobj *t = &f->tsobjs[b.object_handle];
         if (t->recorded && cap.w && !cap.disabled) {
            struct tsr_bind_object r = { b.op, 0, 0, b.object_handle, 0, 0 };
            cap_trace_ok(tsr_write_bind_object(cap.w, f->id, &r));
         }
         memset(t, 0, sizeof(*t));
      }
      break;
   }
   case DRM_ASAHI_QUEUE_CREATE: {
      struct drm_asahi_queue_create c;
      if (read_arg(&c, sizeof(c), req, arg)) {
         size_t n = f->nqueues;
         bool spare = false;
         for (size_t i = 0; i < n && !spare; i++)
            spare = !f->queues[i].id && !f->queues[i].vm_id;
         if (!spare && !grow((void **)&f->queues, &f->nqueues, n + 1, sizeof(*f->queues)))
            break;
         for (size_t i = 0; i < f->nqueues; i++) {
            struct cap_queue *q = &f->queues[i];
            if (q->id || q->vm_id)
               continue;
            *q = (struct cap_queue){ .id = c.queue_id, .vm_id = c.vm_id,
                                     .priority = c.priority, .flags = c.flags,
                                     .usc_exec_base = c.usc_exec_base };
            if (rec) {
               record_file(f);
               struct tsr_queue_create t = { c.queue_id, c.vm_id, c.priority, c.flags,
                                             c.usc_exec_base };
               cap_trace_ok(tsr_write_queue_create(cap.w, f->id, &t));
               q->recorded = true;
            }
            break;
         }
      }
      break;
   }
   case DRM_ASAHI_QUEUE_DESTROY: {
      struct drm_asahi_queue_destroy d;
      struct cap_queue *q = read_arg(&d, sizeof(d), req, arg) ? queue_get(f, d.queue_id) : NULL;
      if (q) {
         if (q->recorded && cap.w && !cap.disabled)
            cap_trace_ok(tsr_write_queue_destroy(cap.w, f->id, d.queue_id));
         memset(q, 0, sizeof(*q));
      }
      break;
   }
   default:
      break;
   }
   errno = saved;
   return ret;
}
