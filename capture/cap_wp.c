/* SPDX-License-Identifier: MIT */
/*
 * The "wp" memory strategy: the program's CPU mappings of GPU objects are
 * write-protected after each snapshot, and a snapshot reads only the pages
 * written since (plus whole objects the GPU may have written, at
 * keyframes: cap_reread_gpu_written()). Two mechanisms, chosen per
 * mapping at cap_wp_register():
 *  - mprotect (the default, and the fallback): the first write to a page
 *    faults into our SIGSEGV handler, which marks the page dirty and gives
 *    write access back;
 *  - async userfaultfd (cap_uffd.h; TESSERA_CAPTURE_WP_TRACK=uffd), where
 *    the kernel offers it: writes are resolved in the kernel,
 *    cap_wp_scan() finds them with PAGEMAP_SCAN, which protects them again
 *    atomically; no hot pages. Not the default: on es2gears it measured
 *    no cheaper (docs/capture.md).
 *
 * The handler runs on any thread at any time, so the mapping table is a
 * fixed array of atomically published entries; entries are never freed
 * while a fault could still look at them (a dead entry's address range is
 * cleared first, its memory is kept on a free list).
 *
 * The SIGSEGV handler is cap_crash.c's, which asks cap_wp_fault() first.
 *
 * Hot pages (mprotect mechanism). A write fault costs a signal and two mprotect() calls (the
 * handler's, and the collect's that protects the page again), ~30 us on a
 * 2-core VM where each mprotect shoots down the other CPU's TLB; reading
 * and hashing a 4 KiB page costs well under 1 us. A GL driver rewrites
 * the same pages of its upload buffers frame after frame, so a page
 * collected dirty again within HOT_WINDOW collects of its mapping becomes
 * hot: it is left writable and read at every collect, which records it
 * when its contents changed (the trace writer stores a content once and
 * writes a record only for a changed page, as with --mem hash). A hot
 * page unchanged for HOT_IDLE collects in a row is protected again. Only
 * objects the GPU cannot write (never bound writable: bo->gpu_dirty, nor
 * bound as a timestamp object, which the firmware writes: bo->fw_written) get
 * hot pages: reading a page the GPU may be writing would record a
 * half-done result; cap_wp_cool() protects them before the first
 * submission that binds the object writable, and that submission's
 * snapshot marks the object gpu_dirty before it collects, so a page
 * written just before it does not become hot in that collect.
 *
 * Ordering (mprotect mechanism). The fault handler runs on the writing
 * thread, collect and arm (under cap.lock) on a submitting one; a page's
 * state is its protection and its dirty mark, and neither side can change
 * both at once. The rule: a page is writable only while it is marked
 * dirty, or hot (under cap.lock, never protected behind collect's back),
 * or a handler that made it writable has not marked it yet and is counted
 * in m->faulting. Hence:
 *  - the handler gives write access first, then marks the page, then sets
 *    any_dirty, and only then returns to the faulting write. Marking first
 *    loses writes: a collect between the mark and the unprotect clears the
 *    mark, protects the page and reads it, then the handler unprotects it
 *    and the write (and every later one) lands on a writable page nobody
 *    will read. Unprotecting first, a collect between the two steps either
 *    sees the page clean and leaves it writable (it is marked just after,
 *    collected next time: the faulting write has not happened yet) or sees
 *    an older mark and protects it again (the write faults again);
 *  - collect and arm clear a mark, then protect, then read: a write
 *    between the clear and the protection lands before the read; one after
 *    it faults and marks the page again;
 *  - collect and arm first wait until no handler of the mapping is
 *    between its two steps (m->faulting). Without that, another thread's
 *    write landing on the page the handler just unprotected (no fault of
 *    its own), followed by a submission ordered after it by the program,
 *    would find the page unmarked: recorded only at a later submission,
 *    and the replay of this one reads the older contents. Handlers never
 *    wait (they take no lock), and the wait is bounded (FAULT_WAIT_NS) in
 *    case a collect ever runs in a signal handler that interrupted one on
 *    its own thread;
 *  - any_dirty is set after the page's mark and cleared by collect before
 *    it looks at the marks (mark_written and cap_wp_cool, under cap.lock,
 *    likewise): a collect that skips a mapping as clean has no page marked
 *    behind it;
 *  - hot pages are only changed under cap.lock: cap_wp_cool marks them
 *    dirty (they are writable) for the next collect to protect and read;
 *    collect protects an idle one, then hashes it again to catch a write
 *    between its read and the protection; a later write faults as usual.
 *  - userfaultfd mappings: PAGEMAP_SCAN reports and protects written pages
 *    in one step in the kernel; mark_written marks them for collect, all
 *    under cap.lock.
 *
 * Limits of the mprotect mechanism (docs/capture.md): a program that
 * mprotect()s these mappings itself, or lets a system call write into them
 * (read(2) into a mapped object gets EFAULT while the page is protected)
 * should use the "hash" strategy.
 */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "capture/cap_priv.h"
#include "capture/cap_uffd.h"

#define HOT_WINDOW 64u
#define HOT_IDLE 32u
/* Longest wait of a collect for the fault handlers in progress on a
 * mapping ("Ordering"); they take microseconds unless preempted */
#define FAULT_WAIT_NS 1000000000ull
/* Writes ahead (mprotect mechanism). A program filling a buffer from the
 * CPU writes it page after page: glmark2-es2 build uploads two 256 KiB
 * buffers before their first submission, 128 of its 179 write faults, a
 * signal and an mprotect each. A fault on a page right after a run of
 * pages marked dirty since the last collect unprotects as many pages
 * again ahead of it (at most AHEAD_MAX) and marks them dirty too, so a
 * sequential fill of N pages takes about log2(N) + 1 faults (64 pages:
 * 7). A page marked but not written is read at the collect and recorded
 * only if the trace did not have its contents (a page never recorded:
 * the kernel's zeroes, stored once), and at most as many pages are
 * marked ahead as were written in sequence before. Only while the GPU
 * cannot write the object (m->ahead_ok): collect reads the pages marked,
 * and a page the GPU may be writing must not be read (as for hot pages). */
#define AHEAD_MAX 64u

static struct cap_cpumap *_Atomic maps[CAP_MAX_CPUMAPS];
/* Each slot's (file, handle), set before its mapping is published: the
 * per-object scans (collect, cool, arm at every submission and frame)
 * compare these, contiguous, instead of loading every mapping's struct
 * (es2gears: 32 objects x 26 mappings a submission; the struct loads
 * were cap_wp_collect's most sampled instruction). A stale key of a freed
 * slot only costs a look at NULL. */
static _Atomic uint64_t map_keys[CAP_MAX_CPUMAPS];

static inline uint64_t
map_key(uint32_t file_id, uint32_t handle)
{
   return (uint64_t)file_id << 32 | handle;
}
/* One past the highest slot ever used: the scans below (per object at every
 * snapshot, and in the fault handler) stop there instead of walking all
 * CAP_MAX_CPUMAPS slots. It only grows; it is raised before a mapping is
 * published, and a mapping is protected (can fault) only after that. */
static _Atomic unsigned maps_end;
/* Counts for TESSERA_CAPTURE_STATS (cap_wp_stats) */
static atomic_ulong n_faults, n_protects, n_maps;
/* collects and arms that waited for a fault handler ("Ordering") */
static atomic_ulong n_fault_waits;
/* under cap.lock */
static unsigned long n_hot_reads, n_hot_records, n_collects, n_clean_skips;
/* CPU time in the fault handler (with TESSERA_CAPTURE_STATS; the signal's
 * delivery and return are the kernel's and not counted) */
static _Atomic uint64_t fault_ns;
static size_t host_page;
static bool wp_on;
/* TESSERA_CAPTURE_TEST_WP_FAULT_DELAY_US (tests): the handler's sleep
 * between its two steps; 0 (one load and a branch) otherwise */
static struct timespec fault_delay;
/* cap.opt.wp_hot_first (TESSERA_CAPTURE_TEST_WP_HOT_FIRST): short dirty
 * runs become hot at their first collect (short_dirty_run) */
static bool hot_first = true;
/* cap.opt.wp_hot_idle_grow (TESSERA_CAPTURE_TEST_WP_HOT_IDLE_GROW): idle
 * limits grow for pages rewritten soon after going idle (idle_grow) */
static bool hot_idle_grow = true;
/* cap.opt.wp_ahead (TESSERA_CAPTURE_TEST_WP_AHEAD): writes ahead */
static bool fault_ahead = true;
static atomic_ulong n_ahead_pages;
/* cap.opt.wp_append (TESSERA_CAPTURE_TEST_WP_APPEND): appends (collect) */
static bool hot_append = true;
static unsigned long n_append_pages;   /* under cap.lock */
/* The userfaultfd mechanism (cap_uffd.h), per process, if
 * TESSERA_CAPTURE_WP_TRACK=uffd; uf_err is why it is closed (ENOTSUP: not
 * asked for), uf_reopen set in a forked child. */
static struct cap_uffd uf = CAP_UFFD_CLOSED;
static int uf_err = ENOTSUP;
static bool uf_reopen;
static atomic_ulong n_uffd_maps, n_uffd_refused, n_scans, n_scan_pages;
static bool scan_ranges_stale;   /* cap_wp_scan()'s ranges, under cap.lock */

bool
cap_wp_fault(const siginfo_t *si)
{
   if (!wp_on)
      return false;
   uintptr_t a = (uintptr_t)si->si_addr;
   unsigned end = atomic_load(&maps_end);
   for (unsigned i = 0; i < end; i++) {
      struct cap_cpumap *m = atomic_load(&maps[i]);
      if (!m || a < m->addr || a >= m->addr + m->len)
         continue;
      if (atomic_load(&m->uffd))
         return false;   /* the kernel resolves its write faults: not ours */
      size_t pg = (a - m->addr) / host_page;
      int saved = errno;
      uint64_t c0 = cap.stats ? cap_thread_cpu_ns() : 0;   /* async-signal-safe */
      atomic_fetch_add(&n_faults, 1);
      /* writable first, then marked ("Ordering"); counted in between, and
       * from before ahead_ok is read: a cap_wp_cool that clears it after
       * this read is followed by a collect that waits for us */
      atomic_fetch_add(&m->faulting, 1);
      /* pages from pg: ahead of a sequential write, as many as the dirty
       * run behind it ("Writes ahead") */
      size_t n = 1;
      if (atomic_load(&m->ahead_ok)) {
         size_t back = 0, left = m->len / host_page - pg;
         while (back < AHEAD_MAX - 1 && back < pg && atomic_load(&m->dirty[pg - 1 - back]))
            back++;
         n = back + 1 < left ? back + 1 : left;
         atomic_fetch_add(&n_ahead_pages, n - 1);
      }
      mprotect((void *)(m->addr + pg * host_page), n * host_page, m->prot);
      if (fault_delay.tv_nsec)
         nanosleep(&fault_delay, NULL);   /* async-signal-safe */
      for (size_t k = 0; k < n; k++)
         atomic_store(&m->dirty[pg + k], 1);
      atomic_store(&m->any_dirty, true);   /* after the page: collect's order */
      atomic_fetch_sub(&m->faulting, 1);
      if (cap.stats)
         atomic_fetch_add(&fault_ns, cap_thread_cpu_ns() - c0);
      errno = saved;
      return true;
   }
   return false;
}

bool
cap_wp_init(bool own_segv)
{
   if (!own_segv)
      return false;   /* e.g. a sanitizer keeps SIGSEGV to itself */
   host_page = (size_t)sysconf(_SC_PAGESIZE);
   wp_on = true;
   fault_delay.tv_nsec = (long)cap.opt.wp_fault_delay_us * 1000;
   hot_first = cap.opt.wp_hot_first;
   hot_idle_grow = cap.opt.wp_hot_idle_grow;
   fault_ahead = cap.opt.wp_ahead;
   hot_append = cap.opt.wp_append;
   if (cap.opt.wp_uffd)
      uf_err = -cap_uffd_open(&uf);
   return true;
}

void
cap_wp_after_fork(void)
{
   /* Closed now, not at the next mapping: a scan through the parent's
    * /proc/self/pagemap would take the parent's written pages from it.
    * (The parent keeps its own references: its registrations stay.) The
    * parent's mappings in the table are not registered in the child: the
    * child's scans skip them, the fault handler leaves them alone. */
   cap_uffd_close(&uf);
   uf_err = ENOTSUP;
   uf_reopen = wp_on && cap.opt.wp_uffd;
}

void
cap_wp_register(void *addr, size_t len, int prot, struct cap_file *f, struct cap_bo *bo,
                uint64_t bo_offset)
{
   if (!(prot & PROT_WRITE) || !host_page)
      return;
   size_t pages = (len + host_page - 1) / host_page;
   struct cap_cpumap *m = calloc(1, sizeof(*m));
   _Atomic uint8_t *dirty = calloc(pages, 1);
   uint32_t *last_dirty = calloc(pages, sizeof(*last_dirty));
   uint8_t *hot = calloc(pages, 1);
   struct tsr_hash *hot_hash = calloc(pages, sizeof(*hot_hash));
   uint8_t *idle = calloc(pages, 1);
   unsigned slot = CAP_MAX_CPUMAPS;
   for (unsigned i = 0; i < CAP_MAX_CPUMAPS && slot == CAP_MAX_CPUMAPS; i++)
      if (!atomic_load(&maps[i]))
         slot = i;
   if (!m || !dirty || !last_dirty || !hot || !hot_hash || !idle || slot == CAP_MAX_CPUMAPS) {
      free(idle);
      free(m);
      free(dirty);
      free(last_dirty);
      free(hot);
      free(hot_hash);
      bo->full = true;   /* untracked mapping: read the object whole */
      return;
   }
   if (uf_reopen) {
      /* a forked child: the inherited descriptors track the parent */
      uf_reopen = false;
      cap_uffd_close(&uf);
      uf_err = -cap_uffd_open(&uf);
   }
   /* Async userfaultfd (TESSERA_CAPTURE_WP_TRACK=uffd) where the kernel
    * can write-protect this mapping (Linux >= 6.7): a write costs a minor
    * fault resolved in the kernel instead of a signal and two mprotect
    * calls. Refused (another userfaultfd tracks it, or VM_PFNMAP device
    * memory, which PAGEMAP_SCAN would not see): mprotect, as by default. */
   bool by_uffd = false;
   static unsigned n_registered;
   bool refuse = cap.opt.wp_mixed && (n_registered++ & 1);   /* a test's refusal */
   if (uf.uffd >= 0) {
      if (!refuse && cap_uffd_track(&uf, addr, pages * host_page) == 0)
         by_uffd = true;
      else
         atomic_fetch_add(&n_uffd_refused, 1);
   }
   *m = (struct cap_cpumap){ (uintptr_t)addr, pages * host_page, prot, f->id, bo->handle,
                             bo_offset, dirty, false, 0, last_dirty, hot, hot_hash, 0,
                             by_uffd, false, 0, idle, false };
   atomic_store(&m->ahead_ok, fault_ahead && !bo->gpu_dirty && !bo->fw_written);
   if (atomic_load(&maps_end) <= slot)
      atomic_store(&maps_end, slot + 1);   /* registration runs under cap.lock */
   atomic_store_explicit(&map_keys[slot], map_key(f->id, bo->handle), memory_order_relaxed);
   atomic_store(&maps[slot], m);
   if (by_uffd) {
      m->armed = true;   /* every page protected, from before the program has it */
      atomic_fetch_add(&n_uffd_maps, 1);
      scan_ranges_stale = true;
      return;
   }
   atomic_fetch_add(&n_maps, 1);
   /* Armed before the program has the address: every write through the
    * mapping is caught from its first one, so the object's recorded
    * contents stay exact without reading it whole (an object created
    * while recording is then never read whole: its memory is the kernel's
    * zeroes plus the pages written, cap_state.c). This used to be a whole
    * read at the next snapshot, which also armed the mapping: on a GL
    * program most of the bytes the layer read, and each first touch of a
    * page the program never wrote made the kernel allocate it. If the
    * mapping cannot be protected, that whole read it is. */
   atomic_fetch_add(&n_protects, 1);
   m->armed = mprotect(addr, m->len, prot & ~PROT_WRITE) == 0;
   if (!m->armed)
      bo->full = true;
}

static void
unregister(unsigned i)
{
   struct cap_cpumap *m = atomic_exchange(&maps[i], NULL);
   if (!m)
      return;
   scan_ranges_stale = true;
   /* A fault on another thread may still hold m: keep it (rare: mappings
    * of GPU objects are few and long lived). */
   (void)m;
}

void
cap_wp_unmap(void *addr, size_t len)
{
   uintptr_t a = (uintptr_t)addr, e = a + len;
   for (unsigned i = 0, end = atomic_load(&maps_end); i < end; i++) {
      struct cap_cpumap *m = atomic_load(&maps[i]);
      if (!m || e <= m->addr || a >= m->addr + m->len)
         continue;
      struct cap_file *f = cap_file_by_id(m->file_id);
      struct cap_bo *bo = f ? cap_bo_get(f, m->handle) : NULL;
      if (bo)
         bo->full = true;   /* pages written since the last snapshot */
      unregister(i);
   }
}

void
cap_wp_forget_bo(uint32_t file_id, uint32_t handle)
{
   for (unsigned i = 0, end = atomic_load(&maps_end); i < end; i++) {
      struct cap_cpumap *m = atomic_load(&maps[i]);
      if (m && m->file_id == file_id && m->handle == handle)
         unregister(i);
   }
}

/* Records pages [p, q) of m (host pages), as far as they lie in bo. */
static void
record_pages(struct cap_file *f, struct cap_bo *bo, const struct cap_cpumap *m,
             const uint8_t **view, size_t p, size_t q)
{
   uint64_t off = m->bo_offset + p * host_page;
   uint64_t size = (q - p) * host_page;
   if (off >= bo->size)
      return;
   if (off + size > bo->size)
      size = bo->size - off;
   if (!*view)
      *view = cap_bo_map(f, bo);
   if (!*view || (off % TSR_PAGE_SIZE) != 0)
      return;
   /* The GPU may have changed these pages since the trace last recorded
    * them, so equal to that record is not unchanged for the replay, which
    * holds the GPU's result there. */
   if (bo->gpu_stale) {
      char v[80];
      snprintf(v, sizeof(v), "%u %u %llu %llu", f->id, bo->handle,
               (unsigned long long)off, (unsigned long long)size);
      cap_trace_ok(tsr_write_meta(cap.w, TSR_META_CPU_OVERWRITE, v));
      tsr_writer_forget_memory(cap.w, f->id, bo->handle, off, size);
   }
   cap_trace_ok(tsr_write_memory(cap.w, f->id, bo->handle, off, *view + off, size));
   cap.snap_bytes += size;
}

/* A userfaultfd mapping whose strict scan failed (it is no longer
 * registered): mprotect from now on (cap_wp_arm protects it whole, its
 * object being read whole). */
static void
uffd_to_mprotect(struct cap_cpumap *m)
{
   atomic_store(&m->uffd, false);
   m->armed = false;
   scan_ranges_stale = true;
   atomic_fetch_sub(&n_uffd_maps, 1);
   atomic_fetch_add(&n_maps, 1);
}

/* A run of written pages from cap_wp_scan(), already protected again:
 * marked dirty in every userfaultfd mapping it overlaps, read by the next
 * collect of the mapping's object. */
static void
mark_written(void *ctx, uintptr_t start, uintptr_t end)
{
   (void)ctx;
   for (unsigned i = 0, n = atomic_load(&maps_end); i < n; i++) {
      struct cap_cpumap *m = atomic_load(&maps[i]);
      if (!m || !atomic_load(&m->uffd) || end <= m->addr || start >= m->addr + m->len)
         continue;
      uintptr_t a = start > m->addr ? start : m->addr;
      uintptr_t e = end < m->addr + m->len ? end : m->addr + m->len;
      for (size_t p = (a - m->addr) / host_page; p < (e - m->addr) / host_page; p++)
         atomic_store(&m->dirty[p], 1);
      atomic_store(&m->any_dirty, true);
   }
}

/* Scan ranges: the userfaultfd mappings sorted by address, neighbours
 * closer than SCAN_GAP merged. PAGEMAP_SCAN's cost is mostly per mapping
 * (VMA) it walks, tracked or not: one call per tracked mapping (~25 per
 * es2gears submission) cost more than the faults they replaced, and so did
 * one call over the span of all of them (~1000 other mappings of
 * libraries and heaps in between, ~100 us). Rebuilt when the set changes. */
#define SCAN_GAP (256u << 10)
static struct { uintptr_t lo, hi; } scan_ranges[CAP_MAX_CPUMAPS];
static unsigned n_scan_ranges;

static int
cmp_range(const void *a, const void *b)
{
   uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
   return x < y ? -1 : x > y;
}

static void
build_scan_ranges(void)
{
   n_scan_ranges = 0;
   for (unsigned i = 0, n = atomic_load(&maps_end); i < n; i++) {
      struct cap_cpumap *m = atomic_load(&maps[i]);
      if (m && atomic_load(&m->uffd)) {
         scan_ranges[n_scan_ranges].lo = m->addr;
         scan_ranges[n_scan_ranges++].hi = m->addr + m->len;
      }
   }
   qsort(scan_ranges, n_scan_ranges, sizeof(scan_ranges[0]), cmp_range);
   unsigned k = 0;
   for (unsigned i = 0; i < n_scan_ranges; i++) {
      if (k && scan_ranges[i].lo <= scan_ranges[k - 1].hi + SCAN_GAP) {
         if (scan_ranges[i].hi > scan_ranges[k - 1].hi)
            scan_ranges[k - 1].hi = scan_ranges[i].hi;
      } else {
         scan_ranges[k++] = scan_ranges[i];
      }
   }
   n_scan_ranges = k;
   scan_ranges_stale = false;
}

void
cap_wp_scan(void)
{
   if (uf.uffd < 0 || !atomic_load(&n_uffd_maps))
      return;
   if (scan_ranges_stale)
      build_scan_ranges();
   for (unsigned i = 0; i < n_scan_ranges; i++) {
      atomic_fetch_add(&n_scans, 1);
      /* not strict: untracked mappings in a range's gaps are skipped */
      long n = cap_uffd_scan(&uf, (void *)scan_ranges[i].lo,
                             scan_ranges[i].hi - scan_ranges[i].lo, false, mark_written, NULL);
      if (n > 0)
         atomic_fetch_add(&n_scan_pages, (unsigned long)n);
      /* n < 0 (cannot happen short of a kernel change): the runs reported
       * are marked; a mapping that lost its registration is found by the
       * strict scan of its next whole read (cap_wp_arm) */
   }
}

/* Waits until no fault handler of m is between its unprotect and its mark
 * ("Ordering"), at most FAULT_WAIT_NS. */
static void
wait_faults(struct cap_cpumap *m)
{
   if (!atomic_load(&m->faulting))
      return;
   atomic_fetch_add(&n_fault_waits, 1);
   uint64_t t0 = cap_now_ns();
   while (atomic_load(&m->faulting) && cap_now_ns() - t0 < FAULT_WAIT_NS)
      sched_yield();
}

/* A run of at most HOT_FIRST_RUN dirty pages (not hot) starts at page p:
 * the pattern of a driver's upload and command pools, which write a page
 * or two per frame into the same few pages, frame after frame (es2gears:
 * about one fault in two was such a page's first, before it became hot at
 * its second). Such a page becomes hot at its first collect: its next
 * writes take no fault, and if it is not written again it costs
 * HOT_IDLE hashes of one page (~5 us) before it is protected again, about
 * a sixth of the fault it may save. Longer runs (a texture or buffer
 * upload, usually written once) are protected as before: hashing them
 * HOT_IDLE times would cost more than their faults. */
#define HOT_FIRST_RUN 2u

static bool
short_dirty_run(struct cap_cpumap *m, size_t p, size_t pages)
{
   size_t n = 0;
   while (p + n < pages && n <= HOT_FIRST_RUN && !m->hot[p + n] && atomic_load(&m->dirty[p + n]))
      n++;
   return n <= HOT_FIRST_RUN;
}

/* Idle limits (mprotect mechanism). A hot page unchanged (by its hash)
 * for its idle limit is protected again, and a page the program keeps
 * rewriting with the same bytes looks unchanged: the tessera driver
 * rewrites page 0 of each of its upload buffers every few frames, mostly
 * with what it held, so on es2gears each went idle after HOT_IDLE
 * collects and faulted 3-5 collects later, every ~38 collects: 42 of its
 * 98 write faults, all past the first frames, each followed by HOT_IDLE
 * hashes again. So a page written again within HOT_WINDOW collects of
 * being protected for idleness gets twice the limit, up to
 * HOT_IDLE << IDLE_GROW_MAX: its later periods cost a hash per collect
 * (~0.6 us measured in place, the pages mostly out of the caches:
 * es2gears' ~3,300 hot reads take ~2 ms) instead of a fault (~30-40 us
 * with the kernel's side) every HOT_IDLE + a few collects. The cap bounds
 * what a page that stops being written costs before it is protected for
 * good: 128 hashes, ~80 us, two or three faults' worth, once. */
#define IDLE_GROW_MAX 2u
#define IDLED 0x80u

static unsigned
idle_limit(const struct cap_cpumap *m, size_t p)
{
   return HOT_IDLE << (m->idle[p] & 3u);
}

/* Page p, dirty and not hot, becomes hot now. */
static void
idle_grow(struct cap_cpumap *m, size_t p)
{
   uint8_t v = m->idle[p];
   if ((v & IDLED) && hot_idle_grow && m->collects - m->last_dirty[p] <= HOT_WINDOW)
      v = IDLE_GROW_MAX;
   m->idle[p] = v & 3u;
}

/* Appends (mprotect mechanism). A command pool written front to back
 * moves on to the next page every few submissions, and that page's first
 * write faults although the page before it is hot (es2gears: the tessera
 * driver's command pool, a page every ~8.5 collects, 14 of its 83 write
 * faults). So a page that becomes hot right after a hot page (a write
 * that moved on from it), and a page made hot this way once it is found
 * written, make the next page hot ahead: hashed now, while it is still
 * protected (its contents are the trace's: it is clean), then unprotected.
 * A write before the unprotect faults and marks it as usual; one after
 * it changes the hash the next collect compares. Costs an mprotect that
 * only adds write access (no TLB shootdown) and a hash per collect until
 * the program gets there, instead of a fault (~30-40 us); a page never
 * written is protected again after its idle limit, like any hot page.
 * APPEND marks a page made hot ahead that has not been written yet. */
#define APPEND 0x40u

static void
append_ahead(struct cap_file *f, struct cap_bo *bo, struct cap_cpumap *m,
             const uint8_t **view, size_t q, size_t pages)
{
   if (!hot_append || q >= pages || m->hot[q] || atomic_load(&m->dirty[q]) || !m->armed ||
       bo->gpu_dirty || bo->fw_written)
      return;
   uint64_t off = m->bo_offset + q * host_page;
   if (!*view)
      *view = cap_bo_map(f, bo);
   if (!*view || off + host_page > bo->size)
      return;
   m->hot_hash[q] = tsr_hash_bytes(*view + off, host_page);
   if (mprotect((void *)(m->addr + q * host_page), host_page, m->prot))
      return;
   m->hot[q] = 1;
   m->nhot++;
   m->idle[q] = APPEND;   /* the first idle limit; not idled before */
   m->last_dirty[q] = m->collects;
   n_append_pages++;
}

/* What collect does with one page. */
enum { PG_SKIP, PG_PROTECT, PG_READ };

bool
cap_wp_collect(struct cap_file *f, struct cap_bo *bo)
{
   if (!host_page)
      return false;
   const uint8_t *view = NULL;
   const uint64_t key = map_key(f->id, bo->handle);
   for (unsigned i = 0, end = atomic_load(&maps_end); i < end; i++) {
      if (atomic_load_explicit(&map_keys[i], memory_order_relaxed) != key)
         continue;
      struct cap_cpumap *m = atomic_load(&maps[i]);
      if (!m || m->file_id != f->id || m->handle != bo->handle)
         continue;
      if (atomic_load(&m->uffd)) {
         /* the pages cap_wp_scan() found written, protected again by it.
          * No hot pages here: a page rewritten every frame costs a minor
          * fault the kernel resolves and its share of one scan. */
         if (!atomic_exchange(&m->any_dirty, false))
            continue;
         size_t pages = m->len / host_page;
         for (size_t p = 0; p < pages;) {
            size_t q = p;
            while (q < pages && atomic_load(&m->dirty[q]))
               atomic_store(&m->dirty[q++], 0);
            if (q > p)
               record_pages(f, bo, m, &view, p, q);
            p = q + 1;
         }
         continue;
      }
      size_t pages = m->len / host_page;
      m->collects++;
      n_collects++;
      wait_faults(m);
      /* Nothing written since the last collect and no hot page: every
       * page is still protected and clean, nothing to look at. Cleared
       * before the pages are looked at: a fault from now on sets it again
       * after marking its page, and is collected next time. */
      if (!atomic_exchange(&m->any_dirty, false) && !m->nhot) {
         n_clean_skips++;
         continue;
      }
      for (size_t p = 0; p < pages;) {
         /* a run of pages to protect (dirty, not hot) */
         size_t q = p;
         while (q < pages && !m->hot[q] && atomic_load(&m->dirty[q])) {
            uint32_t last = m->last_dirty[q];
            if (!bo->gpu_dirty && !bo->fw_written &&
                ((last && m->collects - last <= HOT_WINDOW) ||
                 (hot_first && q == p && !last && short_dirty_run(m, p, pages))))
               break;   /* becomes hot (below) */
            q++;
         }
         if (q > p) {
            /* protect first, then read: a write racing with us faults
             * again and is caught by the next snapshot */
            for (size_t k = p; k < q; k++) {
               atomic_store(&m->dirty[k], 0);
               m->last_dirty[k] = m->collects;
               m->idle[k] &= 3u;   /* protected for being written, not idle */
            }
            atomic_fetch_add(&n_protects, 1);
            mprotect((void *)(m->addr + p * host_page), (q - p) * host_page,
                     m->prot & ~PROT_WRITE);
            record_pages(f, bo, m, &view, p, q);
            p = q;
            continue;
         }
         if (!m->hot[p] && !atomic_load(&m->dirty[p])) {
            p++;
            continue;
         }
         /* hot, or dirty and about to be: writable, read now */
         const uint8_t *pg = NULL;
         uint64_t off = m->bo_offset + p * host_page;
         if (!view)
            view = cap_bo_map(f, bo);
         if (view && off + host_page <= bo->size)
            pg = view + off;
         if (!pg) {
            /* cannot read it here: protect it and collect it the usual way */
            m->hot[p] = 0;
            m->nhot -= m->nhot ? 1 : 0;
            atomic_store(&m->dirty[p], 1);
            m->last_dirty[p] = 0;
            continue;
         }
         /* Most hot reads find the page unchanged (es2gears: 2895 reads,
          * 279 recorded), so it is hashed in place; the writer hashes a
          * changed one again as it copies it (the page is writable). */
         struct tsr_hash h = tsr_hash_bytes(pg, host_page);
         bool was_dirty = atomic_exchange(&m->dirty[p], 0);
         n_hot_reads++;
         if (!m->hot[p]) {
            idle_grow(m, p);
            m->nhot++;
            m->hot[p] = 1;
            n_hot_records++;
            record_pages(f, bo, m, &view, p, p + 1);
            if (p && m->hot[p - 1])   /* moved on from a hot page: "Appends" */
               append_ahead(f, bo, m, &view, p + 1, pages);
         } else if (was_dirty || memcmp(h.b, m->hot_hash[p].b, sizeof(h.b))) {
            m->hot[p] = 1;
            n_hot_records++;
            record_pages(f, bo, m, &view, p, p + 1);
            if (m->idle[p] & APPEND) {   /* the program got here: next one */
               m->idle[p] &= ~APPEND;
               append_ahead(f, bo, m, &view, p + 1, pages);
            }
         } else if (++m->hot[p] > idle_limit(m, p)) {
            /* unchanged for a while: protect it again (its contents are
             * in the trace; a later write faults as before) */
            m->hot[p] = 0;
            m->idle[p] = (m->idle[p] & 3u) | IDLED;
            m->nhot--;
            m->last_dirty[p] = 0;
            atomic_fetch_add(&n_protects, 1);
            mprotect((void *)(m->addr + p * host_page), host_page, m->prot & ~PROT_WRITE);
            /* a write between the hash and the protection */
            if (memcmp(tsr_hash_bytes(pg, host_page).b, h.b, sizeof(h.b)))
               record_pages(f, bo, m, &view, p, p + 1);
         }
         m->hot_hash[p] = h;
         m->last_dirty[p] = m->collects;
         p++;
      }
   }
   return true;
}

void
cap_wp_cool(struct cap_file *f, struct cap_bo *bo)
{
   const uint64_t key = map_key(f->id, bo->handle);
   for (unsigned i = 0, end = atomic_load(&maps_end); i < end; i++) {
      if (atomic_load_explicit(&map_keys[i], memory_order_relaxed) != key)
         continue;
      struct cap_cpumap *m = atomic_load(&maps[i]);
      if (!m || m->file_id != f->id || m->handle != bo->handle)
         continue;
      /* before the GPU may write it: no more pages marked ahead. A fault
       * that already marked some is waited for by the next collect, which
       * reads them before the submission (and the GPU) runs. */
      atomic_store(&m->ahead_ok, false);
      if (!m->nhot)
         continue;
      size_t pages = m->len / host_page;
      /* marked dirty and not recently: collect protects and reads them */
      for (size_t p = 0; p < pages; p++) {
         if (!m->hot[p])
            continue;
         m->hot[p] = 0;
         m->last_dirty[p] = 0;
         atomic_store(&m->dirty[p], 1);
      }
      atomic_store(&m->any_dirty, true);
      m->nhot = 0;
   }
}

void
cap_wp_arm(struct cap_file *f, struct cap_bo *bo)
{
   const uint64_t key = map_key(f->id, bo->handle);
   for (unsigned i = 0, end = atomic_load(&maps_end); i < end; i++) {
      if (atomic_load_explicit(&map_keys[i], memory_order_relaxed) != key)
         continue;
      struct cap_cpumap *m = atomic_load(&maps[i]);
      if (!m || m->file_id != f->id || m->handle != bo->handle)
         continue;
      if (atomic_load(&m->uffd)) {
         /* protect what was written (the caller reads it all next); strict:
          * a mapping that lost its registration is found here */
         atomic_fetch_add(&n_scans, 1);
         long n = cap_uffd_scan(&uf, (void *)m->addr, m->len, true, NULL, NULL);
         if (n >= 0) {
            atomic_fetch_add(&n_scan_pages, (unsigned long)n);
            memset((void *)m->dirty, 0, m->len / host_page);
            continue;
         }
         uffd_to_mprotect(m);
      }
      size_t pages = m->len / host_page;
      wait_faults(m);
      bool any = !m->armed || m->nhot;
      for (size_t p = 0; p < pages; p++)
         if (atomic_exchange(&m->dirty[p], 0))
            any = true;
      /* every page protected below: none stays hot */
      if (m->nhot) {
         memset(m->hot, 0, pages);
         m->nhot = 0;
      }
      /* Clean and armed: every page is still protected, so the whole
       * reads of every stale object at every frame marker need no system
       * call (it halves the mprotect calls of a GL program; those calls
       * changed no page table entry, so the CPU time saved is small). A
       * write racing with the scan faults, marks its page and is collected
       * next time. */
      if (!any)
         continue;
      atomic_fetch_add(&n_protects, 1);
      m->armed = mprotect((void *)m->addr, m->len, m->prot & ~PROT_WRITE) == 0;
   }
}

unsigned long
cap_wp_fault_waits(void)
{
   return atomic_load(&n_fault_waits);
}

uint64_t
cap_wp_fault_cpu_ns(void)
{
   return atomic_load(&fault_ns);
}

void
cap_wp_stats(unsigned long *faults, unsigned long *protects, unsigned long *mappings)
{
   *faults = atomic_load(&n_faults);
   *protects = atomic_load(&n_protects);
   *mappings = atomic_load(&n_maps);
}

unsigned long
cap_wp_ahead_pages(void)
{
   return atomic_load(&n_ahead_pages);
}

unsigned long
cap_wp_append_pages(void)
{
   return n_append_pages;
}

void
cap_wp_hot_stats(unsigned long *hot_reads, unsigned long *hot_records, unsigned long *collects,
                 unsigned long *clean_skips)
{
   *hot_reads = n_hot_reads;
   *hot_records = n_hot_records;
   *collects = n_collects;
   *clean_skips = n_clean_skips;
}

void
cap_wp_uffd_stats(unsigned long *maps, unsigned long *refused, unsigned long *scans,
                  unsigned long *pages, int *open_err)
{
   *maps = atomic_load(&n_uffd_maps);
   *refused = atomic_load(&n_uffd_refused);
   *scans = atomic_load(&n_scans);
   *pages = atomic_load(&n_scan_pages);
   *open_err = uf.uffd >= 0 ? 0 : uf_err;
}
