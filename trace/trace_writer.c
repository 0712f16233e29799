/* SPDX-License-Identifier: MIT */
/*
 * Trace writer: records into chunk buffers on the caller's thread, and a
 * background thread compresses and writes them (bounded queue).
 *
 * Ordering invariant: page chunks are queued before the records chunk that
 * may reference their pages, so any prefix of the file that ends on a chunk
 * boundary is self-consistent (a truncated trace never references a page
 * it does not contain).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>
/* ZSTD_initStaticCCtx and ZSTD_estimateCCtxSize_usingCCtxParams (zstd's
 * "static" API, exported by the shared libzstd since 1.3): the writer's
 * compression context lives in a workspace the writer allocates and
 * pre-faults itself (writer_cctx_new). */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "trace/trace_priv.h"

struct wchunk {
   uint32_t type, count;
   uint32_t index; /* position in the chunk table */
   uint8_t *data;
   size_t size;
   void *base;     /* what to free: data, or the pages buffer data lies in */
   size_t cap;     /* a records chunk's: base's allocated size; a pages
                    * chunk's: its buffer's slots ever written (pg_hw) */
};

struct wpos {
   uint32_t chunk, offset;
};

struct wobject {
   uint64_t size;
   uint64_t npages;
   struct tsr_hash *pages; /* last recorded list; zero hash = never recorded */
   uint8_t *known;         /* per page: recorded at least once */
};

struct tsr_writer {
   pthread_mutex_t lock;
   pthread_cond_t cond;
   pthread_t thread;
   bool thread_started, stopping;

   int fd;
   char *name;
   struct tsr_writer_options opts;
   int error;
   bool error_printed;

   /* Records chunk being filled. */
   uint8_t *rec;
   size_t rec_size, rec_cap;
   uint32_t rec_count;

   /* Pages chunk being filled. pg_data lies in pg_buf after PG_HEAD(pg_cap)
    * bytes of room, so that flush_pages() puts the chunk's count and hashes
    * right before the n pages' data and queues pg_buf itself (the data is
    * not copied again: 1 MiB a full chunk); a new pg_buf takes its place. */
   struct tsr_hash *pg_hash;
   uint8_t *pg_buf, *pg_data;
   uint32_t pg_count, pg_cap;
   /* Slots of pg_buf / pg_spare ever written: their pages are faulted in.
    * A keyframe fills a buffer with its ~190 pages at once; the next
    * keyframe found the other buffer current about every other time and
    * faulted its pages in too (~15 us a fresh page on the 2-core VM: es2gears
    * ~300 faults, ~4 ms, in tsr_write_memory). So while the current buffer
    * holds at most PG_SWAP_MAX pages and the spare has more slots written,
    * the pages move over and the spare becomes current (swap_to_spare). */
   uint32_t pg_hw, pg_spare_hw;

   /* Buffers the thread is done with, kept for the next chunk instead of
    * freed (lock held): a fresh 1 MiB pages buffer or records buffer is
    * fresh memory, and the program's thread that fills it takes a page
    * fault on each of its pages (~230 a run of es2gears, docs/capture.md).
    * One of each is enough: the program fills one while the thread
    * compresses the other. */
   uint8_t *pg_spare;
   uint8_t *rec_spare;
   size_t rec_spare_cap;

   /* CLOCK_MONOTONIC time the oldest record or page not yet queued was
    * added (0: none): the thread seals it opts.flush_ms later. */
   uint64_t pending_ns;

   /* Chunk indices are assigned when queued; the thread writes in order. */
   uint32_t next_chunk;
   struct wchunk *queue;
   unsigned q_head, q_len;

   /* Written by the thread: offsets and kinds of chunks on disk. */
   uint64_t *chunk_off;
   uint32_t *chunk_type, *chunk_count;
   uint32_t chunks_written, chunk_tab_cap;
   uint64_t file_off;

   /* Index material. */
   struct wpos *frames, *submits;
   uint32_t nframes, nsubmits, frames_cap, submits_cap;
   struct tsr_map pages;   /* hash -> chunk << 32 | slot */
   struct tsr_map objects; /* (file, handle) -> index in objs */
   struct tsr_map shaders; /* (va, hash) */
   struct wobject *objs;
   uint32_t nobjs, objs_cap;

   struct tsr_writer_stats st;
   ZSTD_CCtx *cctx;   /* the thread's, once it has ended (for the index) */
   /* zstd's workspace for cctx when it is a static context
    * (writer_cctx_new; NULL: zstd allocates its own) */
   void *cctx_mem;
   size_t cctx_mem_size;
   /* Compressed-output buffer: the thread's, then close()'s for the index. */
   struct emit_buf {
      uint8_t *p;
      size_t cap;    /* mapped size */
      size_t ready;  /* bytes from p pre-faulted or written before */
   } ob;
   bool no_populate;  /* MADV_POPULATE_WRITE refused: the kernel is < 5.14 */
};

/* Room before a pages buffer's data: the chunk's 8-byte count and page
 * size, and a hash per page (TSR_CHUNK_PAGES, docs/trace-format.md). */
#define PG_HEAD(cap) (8 + (size_t)(cap) * 16)
/* ... rounded up to whole pages, so that each slot of the data is one
 * page of memory (pg_prefault makes whole slots resident). */
#define PG_ROOM(cap) ((PG_HEAD(cap) + TSR_PAGE_SIZE - 1) & ~(size_t)(TSR_PAGE_SIZE - 1))
#define PG_BYTES(cap) (PG_ROOM(cap) + (size_t)(cap) * TSR_PAGE_SIZE)

/* The writer's large buffers (pages buffers, zstd's workspace, the
 * compressed output) are mappings of their own instead of malloc's:
 * they are pre-faulted in one madvise (wmem_prefault) rather than a page
 * fault at a time, and the writer's thread never calls malloc for them,
 * so glibc gives it no arena of its own (a 128 MiB reservation, half of
 * it unmapped again, and pages faulted in for the arena's bookkeeping).
 * The system calls are made directly: the capture layer interposes
 * mmap/munmap to follow the program's GPU mappings, under a lock it may
 * hold while it closes the writer. */
static void *wmem_alloc(size_t size)
{
   long p = syscall(SYS_mmap, NULL, size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);
   return p == -1 ? NULL : (void *)p;
}

static void wmem_free(void *p, size_t size)
{
   if (p)
      syscall(SYS_munmap, p, size);
}

/* Makes [p, p + size) of a wmem_alloc mapping resident and writable in
 * one MADV_POPULATE_WRITE: on the 2-core VM a first touch of a fresh page
 * costs ~10 us (the fault), the madvise ~0.5 us a page. Returns the pages
 * made resident (0: not supported, or no memory now -- the pages then
 * fault in when written, as before). Whoever calls it owns the buffer
 * (the writer's lock, or the thread's own buffers); no_populate is only
 * ever set, and a stale read of it costs one more refused madvise. */
static uint64_t wmem_prefault(struct tsr_writer *w, void *p, size_t size)
{
#ifdef MADV_POPULATE_WRITE
   static size_t psz;
   if (!psz) {
      long v = sysconf(_SC_PAGESIZE);
      psz = v > 0 ? (size_t)v : 4096;
   }
   if (__atomic_load_n(&w->no_populate, __ATOMIC_RELAXED) || !size)
      return 0;
   uintptr_t a = (uintptr_t)p & ~(uintptr_t)(psz - 1);
   uintptr_t b = ((uintptr_t)p + size + psz - 1) & ~(uintptr_t)(psz - 1);
   if (madvise((void *)a, b - a, MADV_POPULATE_WRITE) == 0)
      return (b - a) / psz;
   if (errno == EINVAL)
      __atomic_store_n(&w->no_populate, true, __ATOMIC_RELAXED);
#else
   (void)w;
   (void)p;
   (void)size;
#endif
   return 0;
}

static uint8_t *pg_buf_alloc(uint32_t cap)
{
   return wmem_alloc(PG_BYTES(cap));
}

static void pg_buf_free(uint32_t cap, uint8_t *buf)
{
   wmem_free(buf, PG_BYTES(cap));
}

static uint64_t now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int flush_records(struct tsr_writer *w);

/* Writer thread, lock held: waits for queued chunks, and with opts.flush_ms
 * seals the records and pages in memory once the oldest is flush_ms old,
 * so they reach the file even when no chunk fills (a crash or SIGKILL then
 * loses at most about flush_ms of them). */
static void thread_wait(struct tsr_writer *w)
{
   while (!w->q_len && !w->stopping) {
      if (!w->opts.flush_ms) {
         pthread_cond_wait(&w->cond, &w->lock);
         continue;
      }
      uint64_t period = (uint64_t)w->opts.flush_ms * 1000000ull;
      uint64_t now = now_ns();
      if (w->pending_ns && now - w->pending_ns >= period) {
         /* queue empty and >= 2 slots (open): flush_records cannot block */
         flush_records(w);
         continue;
      }
      uint64_t until = (w->pending_ns ? w->pending_ns : now) + period;
      struct timespec ts = { (time_t)(until / 1000000000ull), (long)(until % 1000000000ull) };
      pthread_cond_timedwait(&w->cond, &w->lock, &ts);
   }
}

static void set_error(struct tsr_writer *w, int err)
{
   if (w->error)
      return;
   w->error = err;
   if (!w->opts.quiet && !w->error_printed) {
      fprintf(stderr, "tessera trace: %s: %s (recording stopped; the trace is "
                      "kept up to its last whole chunk)\n",
              w->name, strerror(-err));
   }
   w->error_printed = true;
}

static int write_all(int fd, const void *buf, size_t size)
{
   const uint8_t *p = buf;
   while (size) {
      ssize_t n = write(fd, p, size);
      if (n < 0) {
         if (errno == EINTR)
            continue;
         return -errno;
      }
      if (n == 0)
         return -EIO;
      p += n;
      size -= (size_t)n;
   }
   return 0;
}

/* The compressed-output buffer's size for a chunk of raw_size bytes. */
static size_t ob_size(size_t raw_size)
{
   return TSR_CHUNK_HEADER_SIZE + ZSTD_compressBound(raw_size);
}

/* Makes w->ob hold a chunk of raw_size bytes. It is sized at open for the
 * largest pages chunk (ob_init) and kept from chunk to chunk: grown to
 * the size of each larger chunk as it came, it was a new mapping 2-3
 * times a run of es2gears, the old one unmapped and the new one's pages
 * faulted in again. Only a records chunk larger than that (one record of
 * several MiB) grows it now (stats: output_grown). */
static int ob_reserve(struct tsr_writer *w, size_t raw_size, uint64_t *grown)
{
   size_t need = ob_size(raw_size);
   if (w->ob.cap >= need)
      return 0;
   uint8_t *n = wmem_alloc(need);
   if (!n)
      return -ENOMEM;
   wmem_free(w->ob.p, w->ob.cap);
   w->ob = (struct emit_buf){ n, need, 0 };
   (*grown)++;
   return 0;
}

/* Pre-faults the output buffer up to what a chunk of raw_size bytes may
 * need, a quarter of the raw size at a time (the chunks of a capture
 * compress ~2.5-8x; output past it faults in as before): returns the
 * pages made resident. */
static uint64_t ob_prefault(struct tsr_writer *w, size_t raw_size)
{
   size_t want = TSR_CHUNK_HEADER_SIZE + raw_size / 4 + 4096;
   if (want > w->ob.cap)
      want = w->ob.cap;
   if (w->ob.ready >= want)
      return 0;
   uint64_t n = wmem_prefault(w, w->ob.p + w->ob.ready, want - w->ob.ready);
   w->ob.ready = want;
   return n;
}

/* Compresses and writes one chunk at the end of the file, through w->ob
 * (ob_reserve: raw_size fits). On failure the file is cut back to where
 * the chunk began. Called without the lock (only the thread, or close()
 * after the thread ended, touches fd/file_off and ob). */
static int emit_chunk(struct tsr_writer *w, uint32_t type, uint32_t count,
                      const uint8_t *raw, size_t raw_size, ZSTD_CCtx *cctx)
{
   size_t bound = ZSTD_compressBound(raw_size);
   uint8_t *buf = w->ob.p;
   uint8_t *payload = buf + TSR_CHUNK_HEADER_SIZE;
   size_t stored = w->opts.store_raw ? raw_size
                                     : ZSTD_compress2(cctx, payload, bound, raw, raw_size);
   uint32_t flags = TSR_CHUNK_FLAG_ZSTD;
   /* Incompressible data is kept raw: never larger than its input. */
   if (ZSTD_isError(stored) || stored >= raw_size) {
      memcpy(payload, raw, raw_size);
      stored = raw_size;
      flags = 0;
   }
   uint8_t *h = buf;
   tsr_wr32(h, TSR_CHUNK_MAGIC);
   tsr_wr16(h + 4, (uint16_t)type);
   tsr_wr16(h + 6, (uint16_t)flags);
   tsr_wr32(h + 8, (uint32_t)stored);
   tsr_wr32(h + 12, (uint32_t)raw_size);
   tsr_wr32(h + 16, count);
   tsr_wr32(h + 20, 0);
   tsr_wr64(h + 24, tsr_hash64(payload, stored));
   tsr_wr64(h + 32, tsr_hash64(h, 32));

   int err = write_all(w->fd, buf, TSR_CHUNK_HEADER_SIZE + stored);
   if (err) {
      /* Best effort: drop the partial chunk so the file ends cleanly. */
      if (ftruncate(w->fd, (off_t)w->file_off) == 0)
         lseek(w->fd, (off_t)w->file_off, SEEK_SET);
      return err;
   }
   w->file_off += TSR_CHUNK_HEADER_SIZE + stored;
   w->st.file_bytes += TSR_CHUNK_HEADER_SIZE + stored;
   w->st.raw_bytes += raw_size;
   return 0;
}

/* The chunks' compression context: the level, and for zstd's fast
 * strategy (levels 1 and below) a hash table of 2^WRITER_FAST_HASH_LOG
 * entries instead of the 2^14 or more level 1 picks for a 1 MiB chunk.
 * Recompressing an es2gears capture's chunks (3.3 MB raw, mostly the
 * keyframes' render targets): 2.6 -> 2.2 ms (-15 %) for a trace 0.01 %
 * smaller; 16 KiB of table also stay in L1/L2 and take 4 pages to first
 * touch and to clear at every chunk instead of 16 or more (a first touch
 * of a page costs ~15 us on the 2-core VM). Parameters set on the
 * context stay for every chunk (ZSTD_compress2); the frame still
 * declares its content size (docs/trace-format.md). */
#define WRITER_FAST_HASH_LOG 12

static bool writer_cctx_params(const struct tsr_writer *w, ZSTD_CCtx *cctx)
{
   size_t r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, w->opts.zstd_level);
   if (!ZSTD_isError(r) && w->opts.zstd_level <= 1)
      r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_hashLog, WRITER_FAST_HASH_LOG);
   return !ZSTD_isError(r);
}

/* The largest workspace zstd needs for the writer's parameters, any chunk
 * size (0: unknown). At the fast levels (<= 1: the hash table fixed at
 * 2^WRITER_FAST_HASH_LOG, no chain table, blocks of at most 128 KiB) it
 * is the same for every chunk of 256 KiB or more and smaller for smaller
 * ones: ~520 KiB. At the other levels the tables grow with the chunk's
 * size, so those keep zstd's own allocation. */
static size_t writer_cctx_workspace(const struct tsr_writer *w)
{
   if (w->opts.zstd_level > 1 || w->opts.store_raw)
      return 0;
   ZSTD_CCtx_params *p = ZSTD_createCCtxParams();
   if (!p)
      return 0;
   size_t r = ZSTD_CCtxParams_init(p, w->opts.zstd_level);
   if (!ZSTD_isError(r))
      r = ZSTD_CCtxParams_setParameter(p, ZSTD_c_hashLog, WRITER_FAST_HASH_LOG);
   size_t size = ZSTD_isError(r) ? 0 : ZSTD_estimateCCtxSize_usingCCtxParams(p);
   ZSTD_freeCCtxParams(p);
   return ZSTD_isError(size) ? 0 : size;
}

/* The chunks' compression context. At the fast levels it is a static
 * context in a workspace of the size any chunk needs, mapped and
 * pre-faulted here: zstd's own context was sized for the first chunk (a
 * small records chunk: ~115 KiB), then reallocated for the first pages
 * chunk (~520 KiB) and its pages faulted in one by one as the chunks'
 * blocks reached them (~110 faults a run of es2gears on the writer's
 * thread, with the output buffer's). A static context is never resized;
 * the bytes it makes are zstd's with the same parameters
 * (test_zstd_params). *workspace_pages: pages pre-faulted. */
static ZSTD_CCtx *writer_cctx_new(struct tsr_writer *w, uint64_t *workspace_pages)
{
   size_t size = writer_cctx_workspace(w);
   if (size) {
      size = (size + TSR_PAGE_SIZE - 1) & ~(size_t)(TSR_PAGE_SIZE - 1);
      void *mem = wmem_alloc(size);
      ZSTD_CCtx *cctx = mem ? ZSTD_initStaticCCtx(mem, size) : NULL;
      /* a static context starts with every parameter zero (no content
       * size in the frame); the reset gives it ZSTD_createCCtx's */
      if (cctx && ZSTD_isError(ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters)))
         cctx = NULL;
      if (cctx && writer_cctx_params(w, cctx)) {
         *workspace_pages += wmem_prefault(w, mem, size);
         w->cctx_mem = mem;
         w->cctx_mem_size = size;
         return cctx;
      }
      wmem_free(mem, size);
   }
   ZSTD_CCtx *cctx = ZSTD_createCCtx();
   if (cctx && !writer_cctx_params(w, cctx)) {
      ZSTD_freeCCtx(cctx);
      cctx = NULL;
   }
   return cctx;
}

/* Frees a writer_cctx_new context. */
static void writer_cctx_free(struct tsr_writer *w, ZSTD_CCtx *cctx)
{
   if (!cctx)
      return;
   if (w->cctx_mem) {
      /* a static context is its workspace: nothing of zstd's to free */
      wmem_free(w->cctx_mem, w->cctx_mem_size);
      w->cctx_mem = NULL;
      return;
   }
   ZSTD_freeCCtx(cctx);
}

static void *writer_thread(void *arg)
{
   struct tsr_writer *w = arg;
   /* its own name, so that profiles (perf --comm) tell its time apart */
   pthread_setname_np(pthread_self(), "tessera-writer");
   uint64_t prefaulted = 0;
   ZSTD_CCtx *cctx = w->opts.store_raw ? NULL : writer_cctx_new(w, &prefaulted);

   pthread_mutex_lock(&w->lock);
   w->st.prefaulted += prefaulted;
   if (cctx)
      w->st.zstd_workspace = ZSTD_sizeof_CCtx(cctx);
   for (;;) {
      thread_wait(w);
      if (!w->q_len && w->stopping)
         break;
      struct wchunk c = w->queue[w->q_head];
      int failed = w->error;
      pthread_mutex_unlock(&w->lock);

      int err = 0;
      uint64_t off = w->file_off, grown = 0;
      prefaulted = 0;
      if (!failed && !cctx && !w->opts.store_raw)
         err = -ENOMEM;
      if (!failed && !err)
         err = ob_reserve(w, c.size, &grown);
      if (!failed && !err) {
         prefaulted = ob_prefault(w, c.size);
         err = emit_chunk(w, c.type, c.count, c.data, c.size, cctx);
      }
      size_t zws = cctx ? ZSTD_sizeof_CCtx(cctx) : 0;

      struct timespec cpu;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
      pthread_mutex_lock(&w->lock);
      w->st.prefaulted += prefaulted;
      w->st.output_grown += grown;
      if (zws != w->st.zstd_workspace) {
         w->st.zstd_workspace = zws;
         w->st.zstd_workspace_changes++;
      }
      /* the buffer goes back for the next chunk of its kind if none waits */
      if (c.type == TSR_CHUNK_PAGES) {
         if (!w->pg_spare || c.cap > w->pg_spare_hw) {
            /* the buffer with more pages faulted in is kept */
            pg_buf_free(w->pg_cap, w->pg_spare);
            w->pg_spare = c.base;
            w->pg_spare_hw = (uint32_t)c.cap;
         } else {
            pg_buf_free(w->pg_cap, c.base);
         }
      } else if (c.type == TSR_CHUNK_RECORDS && !w->rec_spare) {
         w->rec_spare = c.base;
         w->rec_spare_cap = c.cap;
      } else {
         free(c.base);
      }
      w->st.thread_cpu_ns = (uint64_t)cpu.tv_sec * 1000000000ull + (uint64_t)cpu.tv_nsec;
      if (!failed && !err) {
         w->chunk_off[c.index] = off;
         w->chunk_type[c.index] = c.type;
         w->chunk_count[c.index] = c.count;
         w->chunks_written = c.index + 1;
      } else if (err) {
         set_error(w, err);
      }
      w->q_head = (w->q_head + 1) % w->opts.queue_chunks;
      w->q_len--;
      pthread_cond_broadcast(&w->cond);
   }
   pthread_mutex_unlock(&w->lock);
   /* kept for the index (tsr_writer_close, after the join): a new
    * context would touch its tables' pages for the first time again; so
    * is the output buffer (w->ob) */
   w->cctx = cctx;
   return NULL;
}

/* Frees a chunk's buffer that is not queued: a pages buffer (a mapping)
 * or a records buffer (malloc's). */
static void chunk_buf_free(struct tsr_writer *w, uint32_t type, void *base)
{
   if (type == TSR_CHUNK_PAGES)
      pg_buf_free(w->pg_cap, base);
   else
      free(base);
}

/* Hands a filled buffer to the thread (lock held; waits while full): the
 * chunk's raw bytes are [data, data + size), inside the allocation base,
 * which is consumed (freed) in every case. */
static int enqueue(struct tsr_writer *w, uint32_t type, uint32_t count,
                   uint8_t *data, size_t size, void *base, size_t cap)
{
   if (w->error) {
      chunk_buf_free(w, type, base);
      return w->error;
   }
   /* two spare entries: tsr_writer_flush_from_signal() cannot allocate */
   if (w->next_chunk + 2 >= w->chunk_tab_cap) {
      uint32_t cap = w->chunk_tab_cap ? w->chunk_tab_cap * 2 : 256;
      uint64_t *o = realloc(w->chunk_off, cap * sizeof(*o));
      if (o)
         w->chunk_off = o;
      uint32_t *t = realloc(w->chunk_type, cap * sizeof(*t));
      if (t)
         w->chunk_type = t;
      uint32_t *n = realloc(w->chunk_count, cap * sizeof(*n));
      if (n)
         w->chunk_count = n;
      if (!o || !t || !n) {
         chunk_buf_free(w, type, base);
         set_error(w, -ENOMEM);
         return w->error;
      }
      w->chunk_tab_cap = cap;
   }
   while (w->q_len == w->opts.queue_chunks)
      pthread_cond_wait(&w->cond, &w->lock);
   unsigned slot = (w->q_head + w->q_len) % w->opts.queue_chunks;
   w->queue[slot] = (struct wchunk){type, count, w->next_chunk++, data, size, base, cap};
   w->q_len++;
   pthread_cond_broadcast(&w->cond);
   return 0;
}

static int flush_pages(struct tsr_writer *w)
{
   if (!w->pg_count)
      return 0;
   size_t n = w->pg_count;
   /* the buffer that takes this one's place: the thread's last one if it
    * gave it back (its pages are already faulted in) */
   uint8_t *next = w->pg_spare;
   uint32_t next_hw = w->pg_spare_hw;
   if (next) {
      w->pg_spare = NULL;
      w->pg_spare_hw = 0;
      w->st.buffers_reused++;
   } else {
      next = pg_buf_alloc(w->pg_cap);
      next_hw = 0;
   }
   if (!next) {
      set_error(w, -ENOMEM);
      return w->error;
   }
   /* the chunk: count, hashes and data, the data where it was copied */
   uint8_t *raw = w->pg_data - PG_HEAD(n);
   tsr_wr32(raw, (uint32_t)n);
   tsr_wr32(raw + 4, TSR_PAGE_SIZE);
   memcpy(raw + 8, w->pg_hash, n * 16);
   uint8_t *buf = w->pg_buf;
   uint32_t hw = w->pg_hw;
   w->pg_buf = next;
   w->pg_hw = next_hw;
   w->pg_data = next + PG_ROOM(w->pg_cap);
   w->pg_count = 0;
   /* a pages chunk's cap: its buffer's slots written (pg_hw) */
   return enqueue(w, TSR_CHUNK_PAGES, (uint32_t)n, raw, PG_HEAD(n) + n * TSR_PAGE_SIZE, buf, hw);
}

static int flush_records(struct tsr_writer *w)
{
   w->pending_ns = 0;
   int err = flush_pages(w);
   if (err || !w->rec_count)
      return err;
   /* Only now is this chunk's index known (a pages chunk may go first). */
   for (uint32_t i = w->nsubmits; i > 0 && w->submits[i - 1].chunk == UINT32_MAX; i--)
      w->submits[i - 1].chunk = w->next_chunk;
   for (uint32_t i = w->nframes; i > 0 && w->frames[i - 1].chunk == UINT32_MAX; i--)
      w->frames[i - 1].chunk = w->next_chunk;
   uint8_t *buf = w->rec;
   size_t size = w->rec_size, cap = w->rec_cap;
   uint32_t count = w->rec_count;
   /* The next records go into the thread's last buffer if it gave it back.
    * Taken before enqueue(), which may wait (the lock released) while
    * another thread adds records. */
   w->rec = w->rec_spare;
   w->rec_cap = w->rec_spare ? w->rec_spare_cap : 0;
   if (w->rec_spare)
      w->st.buffers_reused++;
   w->rec_spare = NULL;
   w->rec_spare_cap = 0;
   w->rec_size = 0;
   w->rec_count = 0;
   return enqueue(w, TSR_CHUNK_RECORDS, count, buf, size, buf, cap);
}

/* Starts a record of `size` payload bytes in the records chunk; returns a
 * zeroed payload pointer, or NULL with w->error set. *pos receives where
 * the record starts (for the index). */
static uint8_t *begin_record(struct tsr_writer *w, uint32_t type, uint32_t file,
                             size_t size, struct wpos *pos)
{
   if (w->error)
      return NULL;
   size_t total = TSR_RECORD_HEADER_SIZE + ((size + 7) & ~(size_t)7);
   if (total > TSR_MAX_CHUNK_BYTES) {
      set_error(w, -E2BIG);
      return NULL;
   }
   if (w->rec_size && w->rec_size + total > w->opts.chunk_bytes) {
      if (flush_records(w))
         return NULL;
   }
   if (w->rec_size + total > w->rec_cap) {
      size_t cap = w->rec_cap ? w->rec_cap : 4096;
      while (cap < w->rec_size + total)
         cap *= 2;
      uint8_t *n = realloc(w->rec, cap);
      if (!n) {
         set_error(w, -ENOMEM);
         return NULL;
      }
      w->rec = n;
      w->rec_cap = cap;
   }
   if (!w->pending_ns)
      w->pending_ns = now_ns();
   uint8_t *h = w->rec + w->rec_size;
   memset(h, 0, total);
   tsr_wr32(h, type);
   tsr_wr32(h + 4, file);
   tsr_wr32(h + 8, (uint32_t)size);
   if (pos)
      *pos = (struct wpos){UINT32_MAX, (uint32_t)w->rec_size}; /* see flush_records */
   w->rec_size += total;
   w->rec_count++;
   w->st.records++;
   return h + TSR_RECORD_HEADER_SIZE;
}

int tsr_writer_open_fd(struct tsr_writer **out, int fd, const char *name,
                       const struct tsr_writer_options *opts)
{
   *out = NULL;
   struct tsr_writer *w = calloc(1, sizeof(*w));
   if (!w) {
      close(fd);
      return -ENOMEM;
   }
   w->fd = fd;
   w->name = strdup(name ? name : "trace");
   if (opts)
      w->opts = *opts;
   if (!w->opts.zstd_level)
      w->opts.zstd_level = 3;
   if (w->opts.zstd_level < ZSTD_minCLevel())
      w->opts.zstd_level = ZSTD_minCLevel();
   if (w->opts.zstd_level > ZSTD_maxCLevel())
      w->opts.zstd_level = ZSTD_maxCLevel();
   if (!w->opts.chunk_bytes)
      w->opts.chunk_bytes = 1u << 20;
   if (w->opts.chunk_bytes > 16u << 20)
      w->opts.chunk_bytes = 16u << 20;
   if (w->opts.chunk_bytes < 2 * TSR_PAGE_SIZE)
      w->opts.chunk_bytes = 2 * TSR_PAGE_SIZE;
   if (!w->opts.queue_chunks)
      w->opts.queue_chunks = 8;
   /* the thread's timed flush queues a pages and a records chunk at once */
   if (w->opts.queue_chunks < 2)
      w->opts.queue_chunks = 2;
   w->pg_cap = (uint32_t)(w->opts.chunk_bytes / TSR_PAGE_SIZE);
   w->pg_hash = malloc(w->pg_cap * sizeof(*w->pg_hash));
   w->pg_buf = pg_buf_alloc(w->pg_cap);
   w->pg_data = w->pg_buf ? w->pg_buf + PG_ROOM(w->pg_cap) : NULL;
   /* the output buffer for the largest pages chunk (ob_reserve); its
    * pages are pre-faulted by the thread as chunks need them */
   w->ob.cap = ob_size(PG_BYTES(w->pg_cap) > w->opts.chunk_bytes ? PG_BYTES(w->pg_cap)
                                                                 : w->opts.chunk_bytes);
   w->ob.p = wmem_alloc(w->ob.cap);
   if (!w->ob.p)
      w->ob.cap = 0;
   w->queue = calloc(w->opts.queue_chunks, sizeof(*w->queue));
   tsr_map_init(&w->pages);
   tsr_map_init(&w->objects);
   tsr_map_init(&w->shaders);
   pthread_mutex_init(&w->lock, NULL);
   pthread_condattr_t ca;
   pthread_condattr_init(&ca);
   pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
   pthread_cond_init(&w->cond, &ca);
   pthread_condattr_destroy(&ca);
   w->chunk_tab_cap = 256;
   w->chunk_off = malloc(w->chunk_tab_cap * sizeof(*w->chunk_off));
   w->chunk_type = malloc(w->chunk_tab_cap * sizeof(*w->chunk_type));
   w->chunk_count = malloc(w->chunk_tab_cap * sizeof(*w->chunk_count));

   int err = 0;
   if (!w->name || !w->pg_hash || !w->pg_data || !w->queue || !w->chunk_off ||
       !w->chunk_type || !w->chunk_count || !w->ob.p)
      err = -ENOMEM;

   uint8_t hdr[TSR_FILE_HEADER_SIZE] = {0};
   memcpy(hdr, TSR_FILE_MAGIC, 8);
   tsr_wr16(hdr + 8, TSR_VERSION_MAJOR);
   tsr_wr16(hdr + 10, TSR_VERSION_MINOR);
   tsr_wr32(hdr + 12, TSR_FILE_HEADER_SIZE);
   tsr_wr32(hdr + 16, TSR_PAGE_SIZE);
   if (!err)
      err = write_all(fd, hdr, sizeof(hdr));
   w->file_off = TSR_FILE_HEADER_SIZE;
   if (!err && pthread_create(&w->thread, NULL, writer_thread, w))
      err = -EAGAIN;
   if (err) {
      w->opts.quiet = true;
      w->error = err;
      tsr_writer_close(w);
      return err;
   }
   w->thread_started = true;
   *out = w;
   return 0;
}

int tsr_writer_open(struct tsr_writer **out, const char *path,
                    const struct tsr_writer_options *opts)
{
   *out = NULL;
   int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
   if (fd < 0)
      return -errno;
   return tsr_writer_open_fd(out, fd, path, opts);
}

int tsr_writer_error(struct tsr_writer *w)
{
   pthread_mutex_lock(&w->lock);
   int e = w->error;
   pthread_mutex_unlock(&w->lock);
   return e;
}

static void wait_idle(struct tsr_writer *w)
{
   while (w->q_len)
      pthread_cond_wait(&w->cond, &w->lock);
}

int tsr_writer_flush(struct tsr_writer *w)
{
   pthread_mutex_lock(&w->lock);
   flush_records(w);
   wait_idle(w);
   int e = w->error;
   pthread_mutex_unlock(&w->lock);
   return e;
}

/* Signal path: one uncompressed chunk written with writev from the
 * caller's buffers (no allocation). Lock held, thread idle. */
static int emit_raw_chunk_sig(struct tsr_writer *w, uint32_t type, uint32_t count,
                              const struct iovec *parts, int nparts)
{
   size_t raw = 0;
   XXH3_state_t st;
   XXH3_64bits_reset(&st);
   for (int i = 0; i < nparts; i++) {
      XXH3_64bits_update(&st, parts[i].iov_base, parts[i].iov_len);
      raw += parts[i].iov_len;
   }
   uint8_t h[TSR_CHUNK_HEADER_SIZE];
   tsr_wr32(h, TSR_CHUNK_MAGIC);
   tsr_wr16(h + 4, (uint16_t)type);
   tsr_wr16(h + 6, 0);
   tsr_wr32(h + 8, (uint32_t)raw);
   tsr_wr32(h + 12, (uint32_t)raw);
   tsr_wr32(h + 16, count);
   tsr_wr32(h + 20, 0);
   tsr_wr64(h + 24, XXH3_64bits_digest(&st));
   tsr_wr64(h + 32, tsr_hash64(h, 32));
   struct iovec iov[5];
   iov[0] = (struct iovec){ h, sizeof(h) };
   for (int i = 0; i < nparts; i++)
      iov[1 + i] = parts[i];
   size_t total = sizeof(h) + raw, done = 0;
   int idx = 0, n = 1 + nparts;
   while (done < total) {
      ssize_t k = writev(w->fd, iov + idx, n - idx);
      if (k < 0 && errno == EINTR)
         continue;
      if (k <= 0) {
         int err = k < 0 ? -errno : -EIO;
         if (ftruncate(w->fd, (off_t)w->file_off) == 0)
            lseek(w->fd, (off_t)w->file_off, SEEK_SET);
         return err;
      }
      done += (size_t)k;
      while (idx < n && (size_t)k >= iov[idx].iov_len) {
         k -= (ssize_t)iov[idx].iov_len;
         idx++;
      }
      if (idx < n) {
         iov[idx].iov_base = (uint8_t *)iov[idx].iov_base + k;
         iov[idx].iov_len -= (size_t)k;
      }
   }
   uint32_t index = w->next_chunk++;
   w->chunk_off[index] = w->file_off;
   w->chunk_type[index] = type;
   w->chunk_count[index] = count;
   w->chunks_written = index + 1;
   w->file_off += total;
   w->st.file_bytes += total;
   w->st.raw_bytes += raw;
   return 0;
}

static void sleep_ms(void)
{
   struct timespec ts = { 0, 1000000 };
   nanosleep(&ts, NULL);
}

int tsr_writer_flush_from_signal(struct tsr_writer *w, unsigned timeout_ms)
{
   if (!w || !w->thread_started)
      return -EINVAL;
   uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
   /* The lock, once the thread has written every queued chunk. A thread
    * that holds the lock (perhaps the one that crashed) is waited for
    * until the deadline, never forever. */
   for (;;) {
      if (pthread_mutex_trylock(&w->lock) == 0) {
         if (!w->q_len)
            break;
         pthread_mutex_unlock(&w->lock);
      }
      if (now_ns() >= deadline)
         return -ETIMEDOUT;
      sleep_ms();
   }
   int err = w->error;
   /* pages first: the records may name them (ordering invariant) */
   if (!err && w->pg_count && w->next_chunk + 1 < w->chunk_tab_cap) {
      uint8_t hdr[8];
      tsr_wr32(hdr, w->pg_count);
      tsr_wr32(hdr + 4, TSR_PAGE_SIZE);
      struct iovec parts[3] = {
         { hdr, sizeof(hdr) },
         { w->pg_hash, (size_t)w->pg_count * 16 },
         { w->pg_data, (size_t)w->pg_count * TSR_PAGE_SIZE },
      };
      err = emit_raw_chunk_sig(w, TSR_CHUNK_PAGES, w->pg_count, parts, 3);
      if (!err)
         w->pg_count = 0;
   }
   if (!err && w->rec_count && !w->pg_count && w->next_chunk < w->chunk_tab_cap) {
      uint32_t chunk = w->next_chunk;
      struct iovec parts[1] = { { w->rec, w->rec_size } };
      err = emit_raw_chunk_sig(w, TSR_CHUNK_RECORDS, w->rec_count, parts, 1);
      if (!err) {
         for (uint32_t i = w->nsubmits; i > 0 && w->submits[i - 1].chunk == UINT32_MAX; i--)
            w->submits[i - 1].chunk = chunk;
         for (uint32_t i = w->nframes; i > 0 && w->frames[i - 1].chunk == UINT32_MAX; i--)
            w->frames[i - 1].chunk = chunk;
         w->rec_size = 0;   /* the buffer is kept for the records that follow */
         w->rec_count = 0;
      }
   }
   if (!err)
      w->pending_ns = 0;
   else if (!w->error)
      w->error = err;   /* set_error would print: not from a handler */
   pthread_mutex_unlock(&w->lock);
   return err;
}

void tsr_writer_get_stats(struct tsr_writer *w, struct tsr_writer_stats *st)
{
   pthread_mutex_lock(&w->lock);
   *st = w->st;
   pthread_mutex_unlock(&w->lock);
}

/* The index covers only chunks that reached the disk. */
static int write_index(struct tsr_writer *w, ZSTD_CCtx *cctx)
{
   uint32_t nchunks = w->chunks_written;
   uint32_t nframes = 0, nsubmits = 0;
   while (nframes < w->nframes && w->frames[nframes].chunk < nchunks)
      nframes++;
   while (nsubmits < w->nsubmits && w->submits[nsubmits].chunk < nchunks)
      nsubmits++;
   size_t npages = 0;
   for (size_t i = 0; i < w->pages.cap; i++)
      if (w->pages.e[i].used && (w->pages.e[i].value >> 32) < nchunks)
         npages++;

   size_t size = TSR_IDX_HEADER + (size_t)nchunks * TSR_IDX_CHUNK +
                 (size_t)(nframes + nsubmits) * TSR_IDX_POS + npages * TSR_IDX_PAGE;
   /* Its own mapping, not malloc's: at exit the capture layer's heap is
    * the program's, holding the fast bins of everything Mesa's teardown
    * freed, and a malloc of this size would consolidate them all (~1 ms
    * of an es2gears capture; tsr_writer_close_at_exit). Raw syscalls, as
    * for the page buffers: the capture layer interposes mmap/munmap. */
   uint8_t *buf = wmem_alloc(size);
   if (!buf)
      return -ENOMEM;
   wmem_prefault(w, buf, size);
   uint8_t *p = buf;
   tsr_wr32(p, nchunks);
   tsr_wr32(p + 4, nframes);
   tsr_wr32(p + 8, nsubmits);
   tsr_wr32(p + 12, (uint32_t)npages);
   p += TSR_IDX_HEADER;
   for (uint32_t i = 0; i < nchunks; i++, p += TSR_IDX_CHUNK) {
      tsr_wr64(p, w->chunk_off[i]);
      tsr_wr32(p + 8, w->chunk_type[i]);
      tsr_wr32(p + 12, w->chunk_count[i]);
   }
   for (uint32_t i = 0; i < nframes; i++, p += TSR_IDX_POS) {
      tsr_wr32(p, w->frames[i].chunk);
      tsr_wr32(p + 4, w->frames[i].offset);
   }
   for (uint32_t i = 0; i < nsubmits; i++, p += TSR_IDX_POS) {
      tsr_wr32(p, w->submits[i].chunk);
      tsr_wr32(p + 4, w->submits[i].offset);
   }
   for (size_t i = 0; i < w->pages.cap; i++) {
      const struct tsr_map_entry *e = &w->pages.e[i];
      if (!e->used || (e->value >> 32) >= nchunks)
         continue;
      memcpy(p, e->key.b, 16);
      tsr_wr32(p + 16, (uint32_t)(e->value >> 32));
      tsr_wr32(p + 20, (uint32_t)e->value);
      p += TSR_IDX_PAGE;
   }

   uint64_t index_off = w->file_off;
   uint64_t grown = 0;
   int err = size > TSR_MAX_CHUNK_BYTES ? -E2BIG : ob_reserve(w, size, &grown);
   if (!err)
      err = emit_chunk(w, TSR_CHUNK_INDEX, nchunks, buf, size, cctx);
   wmem_free(buf, size);
   if (err)
      return err;

   uint8_t f[TSR_FOOTER_SIZE] = {0};
   memcpy(f, TSR_FOOTER_MAGIC, 8);
   tsr_wr64(f + 8, index_off);
   tsr_wr16(f + 16, TSR_VERSION_MAJOR);
   tsr_wr16(f + 18, TSR_VERSION_MINOR);
   tsr_wr64(f + 24, tsr_hash64(f, 24));
   err = write_all(w->fd, f, sizeof(f));
   if (err) {
      /* A footerless file is still read by a forward scan. */
      if (ftruncate(w->fd, (off_t)index_off) == 0)
         w->file_off = index_off;
   }
   return err;
}

/* release false: the process is about to exit and takes the memory with
 * it (tsr_writer_close_at_exit). */
static int writer_close(struct tsr_writer *w, bool release)
{
   if (!w)
      return -EINVAL;
   if (w->thread_started) {
      pthread_mutex_lock(&w->lock);
      flush_records(w);
      wait_idle(w);
      w->stopping = true;
      pthread_cond_broadcast(&w->cond);
      pthread_mutex_unlock(&w->lock);
      pthread_join(w->thread, NULL);

      if (!w->error) {
         /* the thread's context (it made one unless it failed to) */
         int err = w->cctx || w->opts.store_raw ? write_index(w, w->cctx) : -ENOMEM;
         if (err)
            set_error(w, err);
      }
      if (release)
         writer_cctx_free(w, w->cctx);
      w->cctx = NULL;
   }
   int err = w->error;
   if (w->fd >= 0 && close(w->fd) && !err) {
      err = -errno;
      set_error(w, err);
   }
   if (!release)
      return err;
   wmem_free(w->ob.p, w->ob.cap);
   for (uint32_t i = 0; i < w->nobjs; i++) {
      free(w->objs[i].pages);
      free(w->objs[i].known);
   }
   free(w->objs);
   tsr_map_finish(&w->pages);
   tsr_map_finish(&w->objects);
   tsr_map_finish(&w->shaders);
   free(w->frames);
   free(w->submits);
   free(w->chunk_off);
   free(w->chunk_type);
   free(w->chunk_count);
   free(w->queue);
   free(w->rec);
   free(w->rec_spare);
   free(w->pg_hash);
   pg_buf_free(w->pg_cap, w->pg_buf);
   pg_buf_free(w->pg_cap, w->pg_spare);
   free(w->name);
   pthread_mutex_destroy(&w->lock);
   pthread_cond_destroy(&w->cond);
   free(w);
   return err;
}

int tsr_writer_close(struct tsr_writer *w)
{
   return writer_close(w, true);
}

int tsr_writer_close_at_exit(struct tsr_writer *w)
{
   return writer_close(w, false);
}

/* ------------------------------------------------------------- records */

#define LOCKED(w, body)                                                         \
   do {                                                                         \
      pthread_mutex_lock(&(w)->lock);                                          \
      body;                                                                     \
      int e_ = (w)->error;                                                      \
      pthread_mutex_unlock(&(w)->lock);                                        \
      return e_;                                                                \
   } while (0)

static size_t put_str(uint8_t *p, const char *s, size_t len)
{
   if (len)
      memcpy(p, s, len);
   p[len] = 0;
   return len + 1;
}

int tsr_write_meta(struct tsr_writer *w, const char *key, const char *value)
{
   if (!w || !key || !value)
      return -EINVAL;
   size_t kl = strlen(key), vl = strlen(value);
   if (kl > 65535 || vl > (1u << 20))
      return -EINVAL;
   LOCKED(w, {
      uint8_t *p = begin_record(w, TSR_REC_META, 0, TSR_META_FIXED + kl + 1 + vl + 1, NULL);
      if (p) {
         tsr_wr32(p, (uint32_t)kl);
         tsr_wr32(p + 4, (uint32_t)vl);
         p += TSR_META_FIXED;
         p += put_str(p, key, kl);
         put_str(p, value, vl);
      }
   });
}

int tsr_write_driver(struct tsr_writer *w, uint32_t file, const struct tsr_driver *d)
{
   if (!w || !d)
      return -EINVAL;
   const char *s[3] = {d->name ? d->name : "", d->date ? d->date : "", d->desc ? d->desc : ""};
   size_t l[3];
   for (int i = 0; i < 3; i++) {
      l[i] = strlen(s[i]);
      if (l[i] > 4096)
         return -EINVAL;
   }
   LOCKED(w, {
      uint8_t *p = begin_record(w, TSR_REC_DRIVER, file,
                                TSR_DRIVER_FIXED + l[0] + l[1] + l[2] + 3, NULL);
      if (p) {
         tsr_wr32(p, (uint32_t)d->major);
         tsr_wr32(p + 4, (uint32_t)d->minor);
         tsr_wr32(p + 8, (uint32_t)d->patchlevel);
         for (int i = 0; i < 3; i++)
            tsr_wr32(p + 12 + 4 * i, (uint32_t)l[i]);
         p += TSR_DRIVER_FIXED;
         for (int i = 0; i < 3; i++)
            p += put_str(p, s[i], l[i]);
      }
   });
}

int tsr_write_device_params(struct tsr_writer *w, uint32_t file,
                            const struct drm_asahi_params_global *prm, size_t size)
{
   if (!w || !prm || size > 65536)
      return -EINVAL;
   LOCKED(w, {
      uint8_t *p = begin_record(w, TSR_REC_DEVICE_PARAMS, file, TSR_PARAMS_FIXED + size, NULL);
      if (p) {
         tsr_wr32(p, (uint32_t)size);
         memcpy(p + TSR_PARAMS_FIXED, prm, size);
      }
   });
}

int tsr_write_vm_create(struct tsr_writer *w, uint32_t file, const struct tsr_vm_create *c)
{
   if (!w || !c)
      return -EINVAL;
   LOCKED(w, {
      uint8_t *p = begin_record(w, TSR_REC_VM_CREATE, file, 24, NULL);
      if (p) {
         tsr_wr32(p, c->vm_id);
         tsr_wr64(p + 8, c->kernel_start);
         tsr_wr64(p + 16, c->kernel_end);
      }
   });
}

static int write_u32_record(struct tsr_writer *w, uint32_t type, uint32_t file, uint32_t v)
{
   if (!w)
      return -EINVAL;
   LOCKED(w, {
      uint8_t *p = begin_record(w, type, file, 8, NULL);
      if (p)
         tsr_wr32(p, v);
   });
}

int tsr_write_vm_destroy(struct tsr_writer *w, uint32_t file, uint32_t vm_id)
{
   return write_u32_record(w, TSR_REC_VM_DESTROY, file, vm_id);
}

int tsr_write_gem_close(struct tsr_writer *w, uint32_t file, uint32_t handle)
{
   if (!w)
      return -EINVAL;
   pthread_mutex_lock(&w->lock);
   /* A later object with the same handle starts from an empty page list. */
   struct tsr_hash k = tsr_key3(1, file, handle);
   uint64_t *v = tsr_map_get(&w->objects, &k);
   if (v) {
      struct wobject *o = &w->objs[*v];
      memset(o->known, 0, o->npages);
   }
   pthread_mutex_unlock(&w->lock);
   return write_u32_record(w, TSR_REC_GEM_CLOSE, file, handle);
}

int tsr_writer_forget_memory(struct tsr_writer *w, uint32_t file, uint32_t handle,
                             uint64_t offset, uint64_t size)
{
   if (!w)
      return -EINVAL;
   pthread_mutex_lock(&w->lock);
   struct tsr_hash k = tsr_key3(1, file, handle);
   uint64_t *v = tsr_map_get(&w->objects, &k);
   if (v) {
      struct wobject *o = &w->objs[*v];
      uint64_t first = offset / TSR_PAGE_SIZE;
      uint64_t end = size > UINT64_MAX - offset - (TSR_PAGE_SIZE - 1)
                        ? o->npages
                        : (offset + size + TSR_PAGE_SIZE - 1) / TSR_PAGE_SIZE;
      if (end > o->npages)
         end = o->npages;
      if (first < end)
         memset(o->known + first, 0, end - first);
   }
   pthread_mutex_unlock(&w->lock);
   return v ? 0 : -EINVAL;
}

int tsr_write_queue_destroy(struct tsr_writer *w, uint32_t file, uint32_t queue_id)
{
   return write_u32_record(w, TSR_REC_QUEUE_DESTROY, file, queue_id);
}

int tsr_write_vm_bind(struct tsr_writer *w, uint32_t file, const struct tsr_vm_bind *b)
{
   if (!w || !b || (b->num_ops && !b->ops) || b->num_ops > 65536)
      return -EINVAL;
   size_t opsz = sizeof(struct drm_asahi_gem_bind_op);
   LOCKED(w, {
      uint8_t *p = begin_record(w, TSR_REC_VM_BIND, file,
                                TSR_VMBIND_FIXED + b->num_ops * opsz, NULL);
      if (p) {
         tsr_wr32(p, b->vm_id);
         tsr_wr32(p + 4, b->num_ops);
         tsr_wr32(p + 8, (uint32_t)b->result);
         tsr_wr32(p + 12, (uint32_t)opsz);
         for (uint32_t i = 0; i < b->num_ops; i++) {
            uint8_t *o = p + TSR_VMBIND_FIXED + i * opsz;
            tsr_wr32(o, b->ops[i].flags);
            tsr_wr32(o + 4, b->ops[i].handle);
            tsr_wr64(o + 8, b->ops[i].offset);
            tsr_wr64(o + 16, b->ops[i].range);
            tsr_wr64(o + 24, b->ops[i].addr);
         }
      }
   });
}

static struct wobject *find_object(struct tsr_writer *w, uint32_t file, uint32_t handle,
                                   uint64_t size, bool create)
{
   struct tsr_hash k = tsr_key3(1, file, handle);
   uint64_t *v = tsr_map_get(&w->objects, &k);
   if (v && !create)
      return &w->objs[*v];
   if (!create)
      return NULL;
   uint64_t npages = (size + TSR_PAGE_SIZE - 1) / TSR_PAGE_SIZE;
   struct tsr_hash *pages = calloc(npages ? npages : 1, sizeof(*pages));
   uint8_t *known = calloc(npages ? npages : 1, 1);
   if (!pages || !known) {
      free(pages);
      free(known);
      return NULL;
   }
   if (v) {
      /* Handle reused: the old object is gone. */
      struct wobject *o = &w->objs[*v];
      free(o->pages);
      free(o->known);
      *o = (struct wobject){size, npages, pages, known};
      return o;
   }
   if (w->nobjs == w->objs_cap) {
      uint32_t cap = w->objs_cap ? w->objs_cap * 2 : 64;
      struct wobject *n = realloc(w->objs, cap * sizeof(*n));
      if (!n)
         goto fail;
      w->objs = n;
      w->objs_cap = cap;
   }
   int ins;
   v = tsr_map_put(&w->objects, &k, &ins);
   if (!v)
      goto fail;
   *v = w->nobjs;
   w->objs[w->nobjs] = (struct wobject){size, npages, pages, known};
   return &w->objs[w->nobjs++];
fail:
   free(pages);
   free(known);
   return NULL;
}

int tsr_write_gem_create(struct tsr_writer *w, uint32_t file, const struct tsr_gem_create *g)
{
   if (!w || !g || g->size > (1ull << 40))
      return -EINVAL;
   LOCKED(w, {
      if (!w->error && !find_object(w, file, g->handle, g->size, true))
         set_error(w, -ENOMEM);
      uint8_t *p = begin_record(w, TSR_REC_GEM_CREATE, file, 24, NULL);
      if (p) {
         tsr_wr32(p, g->handle);
         tsr_wr32(p + 4, g->flags);
         tsr_wr32(p + 8, g->vm_id);
         tsr_wr64(p + 16, g->size);
      }
   });
}

int tsr_write_bind_object(struct tsr_writer *w, uint32_t file, const struct tsr_bind_object *b)
{
   if (!w || !b)
      return -EINVAL;
   LOCKED(w, {
      uint8_t *p = begin_record(w, TSR_REC_BIND_OBJECT, file, 32, NULL);
      if (p) {
         tsr_wr32(p, b->op);
         tsr_wr32(p + 4, b->flags);
         tsr_wr32(p + 8, b->handle);
         tsr_wr32(p + 12, b->object_handle);
         tsr_wr64(p + 16, b->offset);
         tsr_wr64(p + 24, b->range);
      }
   });
}

int tsr_write_queue_create(struct tsr_writer *w, uint32_t file, const struct tsr_queue_create *q)
{
   if (!w || !q)
      return -EINVAL;
   LOCKED(w, {
      uint8_t *p = begin_record(w, TSR_REC_QUEUE_CREATE, file, 24, NULL);
      if (p) {
         tsr_wr32(p, q->queue_id);
         tsr_wr32(p + 4, q->vm_id);
         tsr_wr32(p + 8, q->priority);
         tsr_wr32(p + 12, q->flags);
         tsr_wr64(p + 16, q->usc_exec_base);
      }
   });
}

static int push_pos(struct wpos **arr, uint32_t *n, uint32_t *cap, struct wpos pos)
{
   if (*n == *cap) {
      uint32_t c = *cap ? *cap * 2 : 256;
      struct wpos *a = realloc(*arr, c * sizeof(*a));
      if (!a)
         return -ENOMEM;
      *arr = a;
      *cap = c;
   }
   (*arr)[(*n)++] = pos;
   return 0;
}

int tsr_write_submit(struct tsr_writer *w, uint32_t file, const struct tsr_submit *s,
                     uint32_t *seq_out)
{
   if (!w || !s || (s->cmdbuf_size && !s->cmdbuf) ||
       ((s->in_sync_count || s->out_sync_count) && !s->syncs) ||
       s->in_sync_count > 4096 || s->out_sync_count > 4096 || s->cmdbuf_size > (8u << 20))
      return -EINVAL;
   uint32_t nsync = s->in_sync_count + s->out_sync_count;
   LOCKED(w, {
      struct wpos pos;
      uint32_t seq = w->nsubmits;
      uint8_t *p = begin_record(w, TSR_REC_SUBMIT, file,
                                TSR_SUBMIT_FIXED + nsync * 16u + s->cmdbuf_size, &pos);
      if (p) {
         if (push_pos(&w->submits, &w->nsubmits, &w->submits_cap, pos))
            set_error(w, -ENOMEM);
         tsr_wr32(p, seq);
         tsr_wr32(p + 4, s->queue_id);
         tsr_wr32(p + 8, s->flags);
         tsr_wr32(p + 12, s->in_sync_count);
         tsr_wr32(p + 16, s->out_sync_count);
         tsr_wr32(p + 20, s->cmdbuf_size);
         tsr_wr32(p + 24, (uint32_t)s->result);
         tsr_wr64(p + 32, s->cpu_time_ns);
         uint8_t *q = p + TSR_SUBMIT_FIXED;
         for (uint32_t i = 0; i < nsync; i++, q += 16) {
            tsr_wr32(q, s->syncs[i].sync_type);
            tsr_wr32(q + 4, s->syncs[i].handle);
            tsr_wr64(q + 8, s->syncs[i].timeline_value);
         }
         if (s->cmdbuf_size)
            memcpy(q, s->cmdbuf, s->cmdbuf_size);
         w->st.submits++;
         if (seq_out)
            *seq_out = seq;
      }
   });
}

int tsr_write_completion(struct tsr_writer *w, uint32_t file, const struct tsr_completion *c)
{
   if (!w || !c || (c->num_timestamps && !c->timestamps) || c->num_timestamps > 65536)
      return -EINVAL;
   LOCKED(w, {
      uint8_t *p = begin_record(w, TSR_REC_COMPLETION, file,
                                TSR_COMPLETION_FIXED + c->num_timestamps * 16u, NULL);
      if (p) {
         tsr_wr32(p, c->seq);
         tsr_wr32(p + 4, (uint32_t)c->status);
         tsr_wr64(p + 8, c->cpu_time_ns);
         tsr_wr32(p + 16, c->num_timestamps);
         uint8_t *q = p + TSR_COMPLETION_FIXED;
         for (uint32_t i = 0; i < c->num_timestamps; i++, q += 16) {
            tsr_wr32(q, c->timestamps[i].object_handle);
            tsr_wr32(q + 4, c->timestamps[i].offset);
            tsr_wr64(q + 8, c->timestamps[i].value);
         }
      }
   });
}

int tsr_write_frame(struct tsr_writer *w, uint32_t kind, const char *label)
{
   if (!w)
      return -EINVAL;
   size_t l = label ? strlen(label) : 0;
   if (l > 4096)
      return -EINVAL;
   LOCKED(w, {
      struct wpos pos;
      uint8_t *p = begin_record(w, TSR_REC_FRAME, 0, TSR_FRAME_FIXED + l + 1, &pos);
      if (p) {
         if (push_pos(&w->frames, &w->nframes, &w->frames_cap, pos))
            set_error(w, -ENOMEM);
         tsr_wr32(p, w->nframes - 1);
         tsr_wr32(p + 4, kind);
         tsr_wr32(p + 8, (uint32_t)l);
         put_str(p + TSR_FRAME_FIXED, label ? label : "", l);
         w->st.frames++;
      }
   });
}

int tsr_write_fw_job(struct tsr_writer *w, uint32_t file, const struct tsr_fw_job *j)
{
   if (!w || !j || (j->header_size && !j->header) || (j->script_size && !j->script) ||
       (j->payload_size && !j->payload) || j->header_size > (1u << 20) ||
       j->script_size > (1u << 20) || j->payload_size > (1u << 20))
      return -EINVAL;
   size_t var = (size_t)j->header_size + j->script_size + j->payload_size;
   LOCKED(w, {
      uint8_t *p = begin_record(w, TSR_REC_FW_JOB, file, TSR_FWJOB_FIXED + var, NULL);
      if (p) {
         tsr_wr32(p, j->seq);
         tsr_wr32(p + 4, j->queue_id);
         tsr_wr32(p + 8, j->pipe);
         tsr_wr32(p + 12, j->vm_slot);
         tsr_wr64(p + 16, j->job_va);
         tsr_wr64(p + 24, j->payload_va);
         tsr_wr32(p + 32, j->header_size);
         tsr_wr32(p + 36, j->script_size);
         tsr_wr32(p + 40, j->payload_size);
         uint8_t *q = p + TSR_FWJOB_FIXED;
         if (j->header_size)
            memcpy(q, j->header, j->header_size);
         q += j->header_size;
         if (j->script_size)
            memcpy(q, j->script, j->script_size);
         q += j->script_size;
         if (j->payload_size)
            memcpy(q, j->payload, j->payload_size);
      }
   });
}

int tsr_write_shader(struct tsr_writer *w, uint32_t file, const struct tsr_shader *s)
{
   if (!w || !s)
      return -EINVAL;
   uint8_t kb[24];
   tsr_wr64(kb, s->va);
   memcpy(kb + 8, s->hash.b, 16);
   struct tsr_hash key = tsr_hash_bytes(kb, sizeof(kb));
   LOCKED(w, {
      int ins = 0;
      if (!w->error && !tsr_map_put(&w->shaders, &key, &ins))
         set_error(w, -ENOMEM);
      uint8_t *p = ins ? begin_record(w, TSR_REC_SHADER, file, TSR_SHADER_SIZE, NULL) : NULL;
      if (p) {
         tsr_wr32(p, s->seq);
         tsr_wr32(p + 4, s->stage);
         tsr_wr32(p + 8, s->size);
         tsr_wr64(p + 16, s->usc_base);
         tsr_wr64(p + 24, s->va);
         memcpy(p + 32, s->hash.b, 16);
      }
   });
}

/* Emits one MEMORY record for pages [first, first + n) of o. */
static void memory_record(struct tsr_writer *w, uint32_t file, uint32_t handle,
                          const struct wobject *o, uint64_t first, uint32_t n)
{
   uint8_t *p = begin_record(w, TSR_REC_MEMORY, file, TSR_MEMORY_FIXED + n * 16u, NULL);
   if (!p)
      return;
   tsr_wr32(p, handle);
   tsr_wr32(p + 4, n);
   tsr_wr64(p + 8, first);
   memcpy(p + TSR_MEMORY_FIXED, o->pages + first, n * 16u);
}

/* The current pages buffer holds at most this many pages when it gives way
 * to a spare with more pages faulted in (they are copied over). */
#define PG_SWAP_MAX 8u

/* Slots of a pages buffer made resident at a time (pg_prefault): as many
 * as the tsr_write_memory call still has pages, within these bounds. A
 * keyframe's ~190 pages take 3-4 madvise calls; the pages pre-faulted and
 * never written are at most PG_PREFAULT_MAX - 1 a buffer. */
#define PG_PREFAULT_MIN 16u
#define PG_PREFAULT_MAX 64u

/* Lock held; slot pg_count is about to be written for the first time:
 * makes it and up to want - 1 more slots resident (the first call on a
 * buffer also its room for the chunk's count and hashes). pg_hw then
 * counts them as written: the spare-or-current choice (swap_to_spare,
 * writer_thread) weighs the pages already faulted in. */
static void pg_prefault(struct tsr_writer *w, uint64_t want)
{
   uint32_t from = w->pg_hw, n;
   if (want < PG_PREFAULT_MIN)
      want = PG_PREFAULT_MIN;
   if (want > PG_PREFAULT_MAX)
      want = PG_PREFAULT_MAX;
   n = w->pg_cap - from < want ? w->pg_cap - from : (uint32_t)want;
   uint8_t *start = from ? w->pg_data + (size_t)from * TSR_PAGE_SIZE : w->pg_buf;
   uint8_t *end = w->pg_data + (size_t)(from + n) * TSR_PAGE_SIZE;
   uint64_t made = wmem_prefault(w, start, (size_t)(end - start));
   if (made) {
      w->st.prefaulted += made;
      w->st.pages_buffer_prefaulted += n;
   } else {
      n = w->pg_count + 1 - from;   /* the slot written now faults in */
   }
   w->pg_hw = from + n;
   w->st.pages_buffer_touched += n;
}

/* Lock held; the spare has more slots written than the current buffer. */
static void swap_to_spare(struct tsr_writer *w)
{
   uint8_t *buf = w->pg_spare, *data = buf + PG_ROOM(w->pg_cap);
   uint32_t hw = w->pg_spare_hw;
   memcpy(data, w->pg_data, (size_t)w->pg_count * TSR_PAGE_SIZE);
   w->pg_spare = w->pg_buf;
   w->pg_spare_hw = w->pg_hw;
   w->pg_buf = buf;
   w->pg_data = data;
   w->pg_hw = hw;
   w->st.buffer_swaps++;
}

int tsr_write_memory(struct tsr_writer *w, uint32_t file, uint32_t handle,
                     uint64_t offset, const void *data, uint64_t size)
{
   if (!w || (size && !data) || offset % TSR_PAGE_SIZE)
      return -EINVAL;
   pthread_mutex_lock(&w->lock);
   int err = w->error;
   struct wobject *o = err ? NULL : find_object(w, file, handle, 0, false);
   if (!err && (!o || offset > o->size || size > o->size - offset))
      err = -EINVAL;
   if (err) {
      pthread_mutex_unlock(&w->lock);
      return err;
   }
   const uint8_t *src = data;
   uint64_t first = offset / TSR_PAGE_SIZE;
   uint64_t npages = (size + TSR_PAGE_SIZE - 1) / TSR_PAGE_SIZE;
   uint64_t run_start = 0;
   uint32_t run_len = 0;
   uint8_t tail[TSR_PAGE_SIZE];

   for (uint64_t i = 0; i < npages && !w->error; i++) {
      const uint8_t *pg = src + i * TSR_PAGE_SIZE;
      uint64_t left = size - i * TSR_PAGE_SIZE;
      if (left < TSR_PAGE_SIZE) {
         memset(tail, 0, sizeof(tail));
         memcpy(tail, pg, left);
         pg = tail;
      }
      /* Hashing runs on the caller's thread: it is what decides whether
       * anything needs copying at all, and xxh3 is memory-bandwidth fast. */
      struct tsr_hash h = tsr_hash_bytes(pg, TSR_PAGE_SIZE);
      uint64_t idx = first + i;
      w->st.pages_seen++;
      bool changed = !o->known[idx] || memcmp(o->pages[idx].b, h.b, 16);
      if (changed) {
         int ins;
         uint64_t *v = tsr_map_put(&w->pages, &h, &ins);
         if (!v) {
            set_error(w, -ENOMEM);
            break;
         }
         if (ins) {
            if (w->pg_count == w->pg_cap && flush_pages(w))
               break;
            if (w->pg_spare_hw > w->pg_hw && w->pg_count <= PG_SWAP_MAX && w->pg_spare)
               swap_to_spare(w);
            if (!w->pending_ns)
               w->pending_ns = now_ns();
            *v = (uint64_t)w->next_chunk << 32 | w->pg_count;
            w->pg_hash[w->pg_count] = h;
            if (w->pg_count >= w->pg_hw)
               pg_prefault(w, npages - i);
            memcpy(w->pg_data + (size_t)w->pg_count * TSR_PAGE_SIZE, pg, TSR_PAGE_SIZE);
            w->pg_count++;
            w->st.pages_stored++;
         }
         o->pages[idx] = h;
         o->known[idx] = 1;
         if (run_len && run_start + run_len == idx && run_len < TSR_MAX_PAGES_PER_RECORD) {
            run_len++;
         } else {
            if (run_len)
               memory_record(w, file, handle, o, run_start, run_len);
            run_start = idx;
            run_len = 1;
         }
      }
   }
   if (run_len && !w->error)
      memory_record(w, file, handle, o, run_start, run_len);
   err = w->error;
   pthread_mutex_unlock(&w->lock);
   return err;
}
