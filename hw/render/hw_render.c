/* SPDX-License-Identifier: MIT */
/*
 * hwrender glue: executors, the tile worker pool, USC pipelines and the
 * hidden shader prologues.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw/render/hw_render_priv.h"
#include "hw/render/hw_render_tex.h"

/* ------------------------------------------------------------ errors */

bool
hwr_fail(struct hwr_job *j, const char *fmt, ...)
{
   if (j->status == HW_EXEC_OK) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(j->message, sizeof(j->message), fmt, ap);
      va_end(ap);
      j->status = HW_EXEC_ERROR;
   }
   return false;
}

bool
hwr_fault(struct hwr_job *j, const struct hw_mmu *m)
{
   if (j->status == HW_EXEC_OK) {
      if (m->fault.valid) {
         j->status = HW_EXEC_FAULT;
         j->fault = m->fault;
      } else {
         hwr_fail(j, "memory access failed");
      }
   }
   return false;
}

bool
hwr_read(struct hwr_job *j, struct hw_mmu *m, uint64_t va, void *dst,
         size_t size)
{
   if (!hw_mmu_read(m, va, dst, size)) {
      if (!m->fault.valid)   /* soft fault: units other than USC are hard */
         memset(dst, 0, size);
      return hwr_fault(j, m);
   }
   return true;
}

bool hwr_fast_paths = true;

/* ------------------------------------------------------------ pool */

/* The pool runs a dispatch on `threads` host threads: the caller (the
 * firmware thread, or hw_render_execute's) and threads - 1 workers,
 * woken only as many as there are items beyond the caller's first.  The
 * caller used to wake every worker and sleep until the last finished:
 * each fragment pass paid two more sleeps and wakeups than it needed,
 * and on a machine busy with other work every wakeup waits for a CPU.
 * Which thread runs an item never matters for the results (tiles keep
 * their own records, merged in tile order); worker ids stay below
 * `threads`, the caller's being threads - 1, for per-worker state such
 * as the profile's accumulators. */

/* Runs items until none is left. */
static void
pool_work(struct hw_render *r, unsigned id)
{
   for (;;) {
      unsigned i = atomic_fetch_add(&r->next, 1);
      if (i >= r->items)
         break;
      r->fn(r->ctx, id, i);
   }
}

static void *
worker_main(void *arg)
{
   struct hw_render *r = ((void **)arg)[0];
   unsigned id = (unsigned)(uintptr_t)((void **)arg)[1];
   free(arg);
   uint64_t seen = 0;
   pthread_mutex_lock(&r->lock);
   for (;;) {
      /* a ticket per worker the dispatch wants; one woken after the
       * caller took the tickets back (every item was taken) sleeps on */
      while (!r->quit && (r->gen == seen || r->tickets == 0))
         pthread_cond_wait(&r->cond, &r->lock);
      if (r->quit)
         break;
      seen = r->gen;
      r->tickets--;
      r->busy++;
      pthread_mutex_unlock(&r->lock);
      pool_work(r, id);
      pthread_mutex_lock(&r->lock);
      if (--r->busy == 0)
         pthread_cond_signal(&r->done_cond);
   }
   pthread_mutex_unlock(&r->lock);
   return NULL;
}

static void
pool_dispatch(struct hw_render *r, unsigned n,
              void (*fn)(void *ctx, unsigned worker, unsigned item), void *ctx)
{
   unsigned helpers = r->threads - 1 < n - 1 ? r->threads - 1 : n - 1;
   pthread_mutex_lock(&r->lock);
   r->fn = fn;
   r->ctx = ctx;
   r->items = n;
   atomic_store(&r->next, 0);
   r->tickets = helpers;
   r->gen++;
   if (helpers == r->threads - 1)
      pthread_cond_broadcast(&r->cond);
   else
      for (unsigned i = 0; i < helpers; i++)
         pthread_cond_signal(&r->cond);
   pthread_mutex_unlock(&r->lock);
   pool_work(r, r->threads - 1);
   pthread_mutex_lock(&r->lock);
   r->tickets = 0;   /* every item is taken: later wakers need not start */
   while (r->busy)
      pthread_cond_wait(&r->done_cond, &r->lock);
   pthread_mutex_unlock(&r->lock);
}

void
hwr_pool_run(struct hw_render *r, unsigned n,
             void (*fn)(void *ctx, unsigned worker, unsigned item), void *ctx)
{
   if (r->threads <= 1 || n <= 1) {
      for (unsigned i = 0; i < n; i++)
         fn(ctx, 0, i);
      return;
   }
   pthread_mutex_lock(&r->run_lock);
   pool_dispatch(r, n, fn, ctx);
   pthread_mutex_unlock(&r->run_lock);
}

bool
hwr_pool_try_run(struct hw_render *r, unsigned n,
                 void (*fn)(void *ctx, unsigned worker, unsigned item), void *ctx)
{
   if (r->threads <= 1 || n <= 1 || pthread_mutex_trylock(&r->run_lock) != 0)
      return false;
   pool_dispatch(r, n, fn, ctx);
   pthread_mutex_unlock(&r->run_lock);
   return true;
}

void
hwr_stats_add(struct hw_render *r, const struct hw_render_stats *s)
{
   pthread_mutex_lock(&r->stats_lock);
   uint64_t *d = (uint64_t *)&r->stats;
   const uint64_t *a = (const uint64_t *)s;
   for (size_t i = 0; i < sizeof(*s) / sizeof(uint64_t); i++)
      d[i] += a[i];
   pthread_mutex_unlock(&r->stats_lock);
}

/* ------------------------------------------------------------ shaders */

static const struct hw_usc_shader *
fetch_shader(struct hwr_job *j, struct hw_mmu *m, uint64_t va,
             enum hwr_stage stage)
{
   (void)stage;   /* register preloads are start hooks, not code */
   struct hw_render *r = j->r;
   /* Pipelines are loaded per tile and per state change: reuse the
    * compile when the code is unchanged instead of fetching and
    * compiling it again. */
   const struct hw_usc_shader *hit = hw_usc_cache_find(r->cache, m, va);
   if (hit)
      return hit;
   size_t cap = 256 * 1024, len = 0;
   uint8_t *buf = malloc(cap);
   if (!buf) {
      hwr_fail(j, "out of host memory");
      return NULL;
   }
   const struct hw_usc_shader *s = NULL;
   struct hw_usc_result res;
   while (len < cap) {
      uint64_t at = va + len;
      size_t chunk = HW_PAGE_SIZE - (at & (HW_PAGE_SIZE - 1));
      if (chunk > cap - len)
         chunk = cap - len;
      if (!hw_mmu_read(m, at, buf + len, chunk)) {
         if (len == 0) {
            hwr_fault(j, m);
            break;
         }
         memset(&m->fault, 0, sizeof(m->fault));
         hwr_fail(j, "shader at 0x%llx: %s", (unsigned long long)va,
                  res.message);
         break;
      }
      len += chunk;
      s = hw_usc_cache_get_bytes(r->cache, va, buf, len, &res);
      if (s)
         break;
      if (res.status != HW_USC_BAD_CODE) {
         hwr_fail(j, "shader at 0x%llx: %s", (unsigned long long)va,
                  res.message);
         break;
      }
      if (len >= cap)
         hwr_fail(j, "shader at 0x%llx: %s", (unsigned long long)va,
                  res.message);
   }
   free(buf);
   return s;
}

/* The preshader of a render pipeline (once per draw, one thread) may read
 * textures: Mesa hoists a fetch with uniform coordinates, such as
 * textureOffset at a constant texel or a texture buffer read for a
 * uniform, into it. The texture unit serves it with the tables of the
 * pipeline's words bound before the preshader word. */
struct hwr_pre_run {
   const struct hwr_pipeline *pipe;
   uint64_t sampler_heap;
   bool textured;                     /* a texture instruction ran */
};

static enum hw_usc_status
pre_hook(void *user, struct hw_usc_simd *s, const struct agx_instr *in, uint32_t exec)
{
   struct hwr_pre_run *r = user;
   r->textured = true;
   if (in->op != AGX_OP_TEXTURE_LOAD && in->op != AGX_OP_TEXTURE_SAMPLE) {
      hw_usc_simd_hook_message(s, "not a preshader instruction");
      return HW_USC_UNSUPPORTED;
   }
   char err[96];
   /* (preshader fetches are not charged to a draw's profile) */
   enum hw_usc_status st = hwr_tex_op(r->pipe, r->sampler_heap, s, in, exec, NULL, NULL,
                                      err, sizeof(err));
   if (st != HW_USC_OK && st != HW_USC_FAULT)
      hw_usc_simd_hook_message(s, err);
   return st;
}

void *
hwr_scratch_get(struct hwr_scratch *s, size_t need)
{
   if (s->size < need) {
      /* Nothing to keep: free first so old and new never coexist. */
      free(s->p);
      s->p = malloc(need ? need : 1);
      s->size = s->p ? need : 0;
   }
   return s->p;
}

void
hwr_scratch_trim(struct hwr_scratch *s)
{
   if (s->size > HWR_SCRATCH_KEEP)
      hwr_scratch_free(s);
}

void
hwr_scratch_free(struct hwr_scratch *s)
{
   free(s->p);
   s->p = NULL;
   s->size = 0;
}

bool
hwr_stack(struct hwr_job *j, uint8_t **buf, size_t *size,
          const struct hw_usc_shader *shader, unsigned threads,
          struct hw_usc_workgroup *wg)
{
   uint32_t per = shader ? hw_usc_shader_stack_bytes(shader) : 0;
   if (!per)
      return true;
   size_t need = (size_t)threads * per;
   if (*size < need) {
      free(*buf);
      *buf = calloc(need, 1);
      *size = *buf ? need : 0;
      if (!*buf)
         return hwr_fail(j, "out of host memory for a %u-byte shader stack", per);
   }
   wg->stack = *buf;
   wg->stack_bytes_per_thread = per;
   return true;
}

/*
 * The general path runs a preshader through a fresh USC view of the job's
 * VM: an empty TLB, so every page it touches is walked again, once per
 * tile and state change. The caller's view m, when it is a USC view of
 * the same VM and device state, translates exactly as a fresh one would
 * (the TLB holds only valid translations of the current generation, and
 * soft faults are a device setting) and records a first fault the same
 * way as long as it holds none yet (a fresh view holds none): sharing it
 * keeps its TLB warm across loads. Speed only: hwr_fast_paths off gives
 * the reference.
 */
static bool
preshader_can_share(const struct hwr_job *j, const struct hw_mmu *m)
{
   return hwr_fast_paths && m->unit == HW_UNIT_USC && !m->fault.valid &&
          m->dev == j->ej->dev && m->vm_slot == j->ej->vm_slot &&
          m->soft_faults == hw_device_soft_faults(m->dev) &&
          m->tlb_gen == hw_device_tlb_generation(m->dev);
}

/*
 * The preshader memo. A render pipeline's preshader runs at every load
 * of the pipeline (per tile and state change, twice per draw on the
 * vertex side: look-ahead and in order), ~250 times a glxgears frame on
 * Mesa's asahi driver, which hands every draw a new word list but the
 * same few preshaders; interpreting them was ~5 % of that replay's CPU.
 * Its result (the uniforms it leaves) is a function of the program, the
 * uniforms it starts from and the memory it reads (nothing else: no
 * special registers are set up for it, and texture reads are not
 * memoised), so each thread keeps results with what they read, in a
 * table indexed by a hash of the key: a run through a recording view
 * (hw_mmu.log, all translations
 * walked) that read without faulting, wrote nothing and fetched no
 * texel is kept with the bytes it read; a later load with the same
 * program and the same starting uniforms (the words up to the highest
 * one the pipeline's Uniform words wrote; the rest are zero) first reads
 * those ranges again through the view the preshader would use, in the
 * same order, and takes the kept uniforms only if every byte is the
 * same. The memory is then what the preshader would read, so it would
 * compute the same; a read that faults is the fault its run would take
 * first (it reads the same addresses in the same order up to there), so
 * the preshader then runs as it would have. Entries are tagged with the
 * renderer's id: a program pointer is compared only within the renderer
 * whose shader cache owns it. hwr_fast_paths off runs every preshader.
 */
#define PRE_MEMO_SLOTS 64              /* direct-mapped by the key's hash */
#define PRE_MEMO_IN 64                 /* starting uniform words kept */
#define PRE_MEMO_OUT 128               /* resulting uniform words kept */
#define PRE_MEMO_BYTES 256             /* bytes read kept */

struct pre_memo {
   uint64_t render;                   /* hw_render id; 0: empty */
   uint64_t hash;                     /* pre_memo_hash of the key */
   const struct hw_usc_shader *pre;
   unsigned in_words, out_words, nreads;
   uint32_t in[PRE_MEMO_IN], out[PRE_MEMO_OUT];
   struct {
      uint64_t va;
      uint32_t size, at;               /* bytes at bytes[at] */
   } rd[HW_MMU_LOG_MAX];
   uint8_t bytes[PRE_MEMO_BYTES];
};

/* Each thread's table, allocated at its first preshader and freed when
 * the thread exits (pre_memo_key's destructor): a glxgears frame cycles
 * through ~25 keys per thread (a few-entry FIFO missed every time). */
static _Thread_local struct pre_memo *pre_memo_tab;
static pthread_key_t pre_memo_key;
static pthread_once_t pre_memo_once = PTHREAD_ONCE_INIT;
static bool pre_memo_key_ok;

static void
pre_memo_key_init(void)
{
   pre_memo_key_ok = pthread_key_create(&pre_memo_key, free) == 0;
}

static struct pre_memo *
pre_memo_table(void)
{
   if (!pre_memo_tab) {
      pthread_once(&pre_memo_once, pre_memo_key_init);
      if (!pre_memo_key_ok)
         return NULL;
      struct pre_memo *t = calloc(PRE_MEMO_SLOTS, sizeof(*t));
      if (!t || pthread_setspecific(pre_memo_key, t)) {
         free(t);
         return NULL;
      }
      pre_memo_tab = t;
   }
   return pre_memo_tab;
}

bool hwr_pre_memo = true;
_Atomic uint64_t hwr_pre_memo_hits;

static uint64_t
pre_memo_hash(const struct hw_usc_shader *pre, const uint32_t *in, unsigned words)
{
   uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)(uintptr_t)pre;
   h = (h ^ words) * 0x100000001b3ull;
   for (unsigned i = 0; i < words; i++)
      h = (h ^ in[i]) * 0x100000001b3ull;
   return h ^ (h >> 29);
}

static bool
pre_memo_valid(const struct pre_memo *e, struct hw_mmu *pm)
{
   uint8_t buf[PRE_MEMO_BYTES];
   for (unsigned i = 0; i < e->nreads; i++) {
      if (!hw_mmu_read(pm, e->rd[i].va, buf, e->rd[i].size) ||
          memcmp(buf, e->bytes + e->rd[i].at, e->rd[i].size))
         return false;
   }
   return true;
}

/* The kept result for (pre, uniforms[0, words)) whose reads still read
 * the same through pm, or NULL. */
static const struct pre_memo *
pre_memo_find(const struct hw_render *r, const struct hw_usc_shader *pre,
              const uint32_t *uniforms, unsigned words, uint64_t hash, struct hw_mmu *pm)
{
   struct pre_memo *tab = pre_memo_table();
   if (!tab || words > PRE_MEMO_IN)
      return NULL;
   const struct pre_memo *e = &tab[hash % PRE_MEMO_SLOTS];
   if (e->render != r->id || e->hash != hash || e->pre != pre || e->in_words != words ||
       memcmp(e->in, uniforms, words * 4))
      return NULL;
   return pre_memo_valid(e, pm) ? e : NULL;
}

/* Copies [va, va + size) through the recording view rm after its run
 * (no side effects: its TLB holds nothing, and peeking records no fault). */
static bool
peek_bytes(struct hw_mmu *rm, uint64_t va, uint8_t *dst, uint64_t size)
{
   while (size) {
      uint64_t chunk = HW_PAGE_SIZE - (va & (HW_PAGE_SIZE - 1));
      if (chunk > size)
         chunk = size;
      const uint8_t *p = hw_mmu_peek(rm, va);
      if (!p)
         return false;
      memcpy(dst, p, chunk);
      dst += chunk;
      va += chunk;
      size -= chunk;
   }
   return true;
}

static void
pre_memo_store(const struct hw_render *r, const struct hw_usc_shader *pre,
               const uint32_t *in, unsigned words, uint64_t hash, const uint32_t *out,
               struct hw_mmu *rm, const struct hw_mmu_log *log)
{
   struct pre_memo *tab = pre_memo_table();
   if (!tab || words > PRE_MEMO_IN || log->n > HW_MMU_LOG_MAX || log->write || log->missed)
      return;
   unsigned ow = HW_USC_NUM_UNIFORMS;
   while (ow && !out[ow - 1])
      ow--;
   if (ow > PRE_MEMO_OUT)
      return;
   struct pre_memo *e = &tab[hash % PRE_MEMO_SLOTS];
   e->render = 0;
   uint32_t at = 0;
   for (unsigned i = 0; i < log->n; i++) {
      uint64_t size = log->r[i].size;
      if (size > PRE_MEMO_BYTES - at || !peek_bytes(rm, log->r[i].va, e->bytes + at, size))
         return;
      e->rd[i].va = log->r[i].va;
      e->rd[i].size = (uint32_t)size;
      e->rd[i].at = at;
      at += (uint32_t)size;
   }
   e->nreads = log->n;
   e->hash = hash;
   e->pre = pre;
   e->in_words = words;
   memcpy(e->in, in, words * 4);
   e->out_words = ow;
   memcpy(e->out, out, ow * 4);
   e->render = r->id;
}

bool
hwr_pipeline_load(struct hwr_job *j, struct hw_mmu *m, uint32_t offset,
                  enum hwr_stage stage, struct hwr_pipeline *p)
{
   unsigned uhi = 0;   /* uniform halfs written up to here */
   memset(p, 0, sizeof(*p));
   uint64_t usc = j->pl->usc_base;
   uint64_t va = usc + offset;
   uint64_t code = 0;
   bool have_code = false;
   for (unsigned n = 0; n < 64; n++) {
      uint8_t w[8];
      if (!hwr_read(j, m, va, w, 1))
         return false;
      unsigned len = agx_usc_control_length(w[0]);
      if (!len)
         return hwr_fail(j, "USC word 0x%02x at 0x%llx is unknown", w[0],
                         (unsigned long long)va);
      /* The general path reads the whole word again from its first byte;
       * the fast path reads only the rest. The first byte just read fine,
       * so the rest is the only part that can fault, at the same address
       * (the first unreadable page's) either way, and soft-faulted bytes
       * read as zeros either way. */
      if (hwr_fast_paths ? len > 1 && !hwr_read(j, m, va + 1, w + 1, len - 1)
                         : !hwr_read(j, m, va, w, len))
         return false;
      switch (w[0]) {
      case AGX_USC_CONTROL_UNIFORM:
      case AGX_USC_CONTROL_UNIFORM_HIGH: {
         agx_unpack(w, USC_UNIFORM, u);
         unsigned start = u.start_halfs + (w[0] == AGX_USC_CONTROL_UNIFORM_HIGH ? 256 : 0);
         unsigned halfs = u.size_halfs;
         if (start + halfs > HW_USC_NUM_UNIFORMS * 2)
            return hwr_fail(j, "uniform range %u+%u is past u255", start, halfs);
         if (!hwr_read(j, m, u.buffer, (uint8_t *)p->uniforms + start * 2,
                       halfs * 2))
            return false;
         if (halfs && start + halfs > uhi)
            uhi = start + halfs;
         break;
      }
      case AGX_USC_CONTROL_TEXTURE:
      case AGX_USC_CONTROL_SAMPLER: {
         agx_unpack(w, USC_TEXTURE, t);
         struct hw_tex_slots *rg = w[0] == AGX_USC_CONTROL_TEXTURE ? p->tex : p->smp;
         unsigned *cnt = w[0] == AGX_USC_CONTROL_TEXTURE ? &p->ntex : &p->nsmp;
         if (*cnt == HWR_MAX_SLOT_WORDS)
            return hwr_fail(j, "USC pipeline at 0x%llx has more than %u %s words",
                            (unsigned long long)(usc + offset), HWR_MAX_SLOT_WORDS,
                            w[0] == AGX_USC_CONTROL_TEXTURE ? "Texture" : "Sampler");
         rg[(*cnt)++] = (struct hw_tex_slots){ t.start, t.count, t.buffer };
         break;
      }
      case AGX_USC_CONTROL_SHARED:
         p->has_shared = agx_usc_shared_unpack(w, &p->shared);
         break;
      case AGX_USC_CONTROL_SHADER: {
         agx_unpack(w, USC_SHADER, s);
         code = usc + s.code;
         p->code_va = code;
         have_code = true;
         break;
      }
      case AGX_USC_CONTROL_REGISTERS: {
         agx_unpack(w, USC_REGISTERS, rg);
         p->gprs = rg.register_count ? rg.register_count : 256;
         break;
      }
      default:
         break;
      }
      va += len;
      if (w[0] == AGX_USC_CONTROL_PRESHADER ||
          w[0] == AGX_USC_CONTROL_NO_PRESHADER) {
         if (!have_code)
            return hwr_fail(j, "USC pipeline at 0x%llx has no shader word",
                            (unsigned long long)(usc + offset));
         if (w[0] == AGX_USC_CONTROL_PRESHADER) {
            agx_unpack(w, USC_PRESHADER, ps);
            const struct hw_usc_shader *pre =
               fetch_shader(j, m, usc + ps.code, HWR_EOT);
            if (!pre)
               return false;
            struct hwr_pre_run pr = { p, j->pl->sampler_heap, false };
            struct hw_usc_launch L = {
               .instruction_budget = j->r->insn_budget,
               .shader = pre, .gpr_count = HW_USC_NUM_GPRS,
               .threads_per_threadgroup = { 1, 1, 1 },
               .vm_slot = j->ej->vm_slot,
               .sampler_table = j->pl->sampler_heap,
               .stage_hook = pre_hook, .hook_user = &pr,
            };
            struct hw_usc_result res;
            struct hw_mmu um, *pm = &um;
            if (preshader_can_share(j, m))
               pm = m;
            else
               hw_mmu_init(&um, j->ej->dev, j->ej->vm_slot, HW_UNIT_USC);
            const unsigned words = (uhi + 1) / 2;
            const bool memo = hwr_fast_paths && hwr_pre_memo && words <= PRE_MEMO_IN;
            const uint64_t hash = memo ? pre_memo_hash(pre, p->uniforms, words) : 0;
            const struct pre_memo *hit =
               memo ? pre_memo_find(j->r, pre, p->uniforms, words, hash, pm) : NULL;
            if (hit) {
               atomic_fetch_add_explicit(&hwr_pre_memo_hits, 1, memory_order_relaxed);
               memcpy(p->uniforms, hit->out, hit->out_words * 4);
               memset(p->uniforms + hit->out_words, 0,
                      (HW_USC_NUM_UNIFORMS - hit->out_words) * 4);
            } else {
               /* A run to keep goes through a recording view of its
                * own: a fresh one, as the general path's (unless the
                * check above already faulted: then it runs as it would). */
               struct hw_mmu rm;
               struct hw_mmu_log log = { 0 };
               uint32_t in[PRE_MEMO_IN];
               const bool rec = memo && !pm->fault.valid;
               if (rec) {
                  hw_mmu_init(&rm, j->ej->dev, j->ej->vm_slot, HW_UNIT_USC);
                  rm.log = &log;
                  pm = &rm;
                  memcpy(in, p->uniforms, words * 4);
               }
               if (hw_usc_run_preshader(&L, p->uniforms, pm, NULL, &res) != HW_USC_OK)
                  return res.status == HW_USC_FAULT ? hwr_fault(j, pm)
                     : hwr_fail(j, "preshader: %s", res.message);
               if (rec) {
                  rm.log = NULL;
                  if (!pr.textured)
                     pre_memo_store(j->r, pre, in, words, hash, p->uniforms, &rm, &log);
               }
            }
         }
         p->shader = fetch_shader(j, m, code, stage);
         if (!p->shader)
            return false;
         unsigned need = hw_usc_shader_gprs(p->shader);
         if (p->gprs < need)
            p->gprs = need;
         if (p->gprs > HW_USC_NUM_GPRS)
            p->gprs = HW_USC_NUM_GPRS;
         return true;
      }
   }
   return hwr_fail(j, "USC pipeline at 0x%llx does not end",
                   (unsigned long long)(usc + offset));
}

uint64_t
hwr_pipeline_texture(const struct hwr_pipeline *p, unsigned slot)
{
   for (unsigned i = p->ntex; i-- > 0;)   /* later words overwrite earlier ones */
      if (slot >= p->tex[i].start && slot < p->tex[i].start + p->tex[i].count)
         return p->tex[i].buffer + (uint64_t)(slot - p->tex[i].start) * AGX_TEXTURE_LENGTH;
   return 0;
}

/* ------------------------------------------------------------ executors */

void
hwr_post_grow(struct hwr_job *j)
{
   uint8_t msg[HW_FW_EVENT_MSG_SIZE] = { 0 };
   agx_pack(msg, FW_EVENT_GROW_TVB, e) {
      e.vm_slot = j->ej->vm_slot;
      e.buffer_slot = j->pl->buffer_slot;
      e.counter = j->partials;
   }
   hw_exec_post_event(j->ej, msg);
   struct hw_render_stats s = { .grow_events = 1 };
   hwr_stats_add(j->r, &s);
}

static void
job_init(struct hwr_job *j, struct hw_render *r, const struct hw_exec_job *ej)
{
   memset(j, 0, sizeof(*j));
   j->r = r;
   j->ej = ej;
   j->pl = ej->render;
   hw_mmu_init(&j->mmu, ej->dev, ej->vm_slot, HW_UNIT_VDM);
   hw_mmu_begin_job(&j->mmu);
   j->tiles_x = (j->pl->width + HWR_BIN - 1) / HWR_BIN;
   j->tiles_y = (j->pl->height + HWR_BIN - 1) / HWR_BIN;
   j->layers = j->pl && j->pl->layers ? j->pl->layers : 1;
}

static void
job_finish(struct hwr_job *j, struct hw_exec_result *res)
{
   res->status = j->status;
   res->cycles = j->cycles;
   res->fault = j->fault;
   memcpy(res->message, j->message, sizeof(res->message));
}

static bool
check_payload(struct hwr_job *j)
{
   const struct agx_fw_render_payload *p = j->pl;
   if (!p)
      return hwr_fail(j, "render job without a render payload");
   if (p->width == 0 || p->height == 0 || p->width > 16384 || p->height > 16384)
      return hwr_fail(j, "render size %ux%u is out of range", p->width, p->height);
   if (p->samples != 1 && p->samples != 2 && p->samples != 4)
      return hwr_fail(j, "%u samples per pixel: only 1, 2 and 4 exist", p->samples);
   unsigned uw = p->utile_width, uh = p->utile_height;
   if (!((uw == 32 && uh == 32) || (uw == 32 && uh == 16) || (uw == 16 && uh == 16)))
      return hwr_fail(j, "tilebuffer tile %ux%u: must be 32x32, 32x16 or 16x16", uw, uh);
   /* 0 is a pass without colour attachments (depth/stencil only, or no
    * attachment at all): the tilebuffer holds nothing, and any access a
    * shader makes to it is out of bounds and faults. */
   if (p->sample_size > 64 || (p->sample_size & 3))
      return hwr_fail(j, "sample size %u bytes: must be 0..64, a multiple of 4",
                      p->sample_size);
   if (j->layers > HWR_MAX_LAYERS)
      return hwr_fail(j, "%u framebuffer layers: at most %u exist", j->layers,
                      HWR_MAX_LAYERS);
   if ((uint64_t)j->tiles_x * j->tiles_y * j->layers > HWR_MAX_BINS)
      return hwr_fail(j, "%ux%u tiles x %u layers: more than the %u bins modelled",
                      j->tiles_x, j->tiles_y, j->layers, HWR_MAX_BINS);
   uint64_t tm = (uint64_t)j->tiles_x * j->tiles_y * j->layers * AGX_TVB_TILE_ENTRY_LENGTH;
   if (p->tvb_tilemap_size < tm)
      return hwr_fail(j, "TVB tilemap is %u bytes, %ux%u tiles x %u layers need %llu",
                      p->tvb_tilemap_size, j->tiles_x, j->tiles_y, j->layers,
                      (unsigned long long)tm);
   if (p->tvb_heap_size < 4096)
      return hwr_fail(j, "TVB heap of %u bytes is below the 4 KiB minimum",
                      p->tvb_heap_size);
   return true;
}

static void
vertex_exec(void *data, const struct hw_exec_job *ej, struct hw_exec_result *res)
{
   struct hwr_job j;
   job_init(&j, data, ej);
   j.prof = hwr_prof_job_begin(j.r, ej);
   bool ok = check_payload(&j) && hwr_vertex_job(&j);
   hwr_prof_vertex_end(j.r, j.prof, j.cycles, ok && j.status == HW_EXEC_OK);
   struct hw_render_stats s = { .vertex_cycles = j.cycles };
   hwr_stats_add(j.r, &s);
   job_finish(&j, res);
}

static void
fragment_exec(void *data, const struct hw_exec_job *ej, struct hw_exec_result *res)
{
   struct hwr_job j;
   job_init(&j, data, ej);
   j.prof = hwr_prof_job_begin(j.r, ej);
   if (check_payload(&j)) {
      /* A frame that overflowed restarts every tile from what the partial
       * end-of-tile programs spilled. */
      uint8_t h[AGX_TVB_HEADER_LENGTH];
      struct agx_tvb_header hdr;
      j.mmu.unit = HW_UNIT_ISP;
      if (hwr_read(&j, &j.mmu, j.pl->tvb_heap, h, sizeof(h))) {
         if (!agx_tvb_header_unpack(h, &hdr) || hdr.magic != 0x54564231 || !hdr.valid)
            hwr_fail(&j, "TVB heap holds no binned frame (vertex job missing?)");
         else if (hdr.frame != j.pl->frame)
            hwr_fail(&j, "TVB holds frame %u, this fragment job renders %u",
                     hdr.frame, j.pl->frame);
         else
            hwr_fragment_pass(&j, hdr.partial_renders > 0, false);
      }
   }
   hwr_prof_fragment_end(j.r, j.prof, ej, j.cycles);
   struct hw_render_stats s = { .fragment_cycles = j.cycles };
   hwr_stats_add(j.r, &s);
   job_finish(&j, res);
}

void
hw_render_execute(struct hw_render *r, const struct hw_exec_job *job,
                  struct hw_exec_result *res)
{
   if (job->tag == AGX_FW_COMMAND_RUN_VERTEX)
      vertex_exec(r, job, res);
   else
      fragment_exec(r, job, res);
}

/* ------------------------------------------------------------ lifetime */

/* TESSERA_HW_TILE_STALL=LAYER:MS (hw_render_priv.h). A malformed value
 * leaves it off and says so: a test that believes it reordered tiles
 * must not pass without it. */
static void
parse_tile_stall(struct hw_render *r, const char *v)
{
   if (!v || !*v)
      return;
   char *e;
   unsigned long layer = strtoul(v, &e, 10);
   unsigned long ms = *e == ':' ? strtoul(e + 1, &e, 10) : 0;
   if (e == v || *e || ms == 0 || ms > 60000 || layer >= HWR_MAX_LAYERS) {
      fprintf(stderr, "tessera: TESSERA_HW_TILE_STALL='%s' ignored: want LAYER:MS "
              "(a layer, 1 to 60000 ms)\n", v);
      return;
   }
   r->tile_stall_layer = (unsigned)layer;
   r->tile_stall_ms = (unsigned)ms;
}

struct hw_render *
hw_render_create(struct hw_device *dev, const struct hw_render_config *cfg)
{
   struct hw_render *r = calloc(1, sizeof(*r));
   if (!r)
      return NULL;
   atomic_init(&r->vscratch_busy, false);
   static atomic_uint_least64_t ids;
   r->id = atomic_fetch_add(&ids, 1) + 1;
   r->dev = dev;
   r->cache = hw_usc_cache_create();
   r->insn_budget = cfg && cfg->instruction_budget ? cfg->instruction_budget : 1ull << 24;
   parse_tile_stall(r, getenv("TESSERA_HW_TILE_STALL"));
   unsigned n = cfg ? cfg->threads : 0;
   if (n == 0) {
      long c = sysconf(_SC_NPROCESSORS_ONLN);
      n = c > 0 ? (unsigned)c : 1;
   }
   if (n > 64)
      n = 64;
   r->threads = n;
   pthread_mutex_init(&r->lock, NULL);
   pthread_mutex_init(&r->run_lock, NULL);
   pthread_mutex_init(&r->stats_lock, NULL);
   pthread_mutex_init(&r->prof_lock, NULL);
   pthread_cond_init(&r->cond, NULL);
   pthread_cond_init(&r->done_cond, NULL);
   if (!r->cache) {
      hw_usc_cache_destroy(r->cache);
      free(r);
      return NULL;
   }
   if (n > 1) {
      /* the caller of each dispatch is the n-th thread */
      r->workers = calloc(n - 1, sizeof(pthread_t));
      if (!r->workers)
         r->threads = 1;
      for (unsigned i = 0; r->workers && i < n - 1; i++) {
         void **arg = malloc(2 * sizeof(void *));
         if (arg) {
            arg[0] = r;
            arg[1] = (void *)(uintptr_t)i;
         }
         if (!arg || pthread_create(&r->workers[i], NULL, worker_main, arg) != 0) {
            free(arg);
            r->threads = i + 1;   /* run with the ones that started */
            break;
         }
      }
   }
   hw_device_set_executor(dev, AGX_FW_PIPE_VERTEX, vertex_exec, r);
   hw_device_set_executor(dev, AGX_FW_PIPE_FRAGMENT, fragment_exec, r);
   return r;
}

void
hw_render_destroy(struct hw_render *r)
{
   if (!r)
      return;
   hw_device_set_executor(r->dev, AGX_FW_PIPE_VERTEX, NULL, NULL);
   hw_device_set_executor(r->dev, AGX_FW_PIPE_FRAGMENT, NULL, NULL);
   pthread_mutex_lock(&r->lock);
   r->quit = true;
   pthread_cond_broadcast(&r->cond);
   pthread_mutex_unlock(&r->lock);
   unsigned started = r->workers ? r->threads - 1 : 0;
   for (unsigned i = 0; i < started; i++)
      pthread_join(r->workers[i], NULL);
   free(r->workers);
   hw_usc_cache_destroy(r->cache);
   pthread_mutex_destroy(&r->lock);
   pthread_mutex_destroy(&r->run_lock);
   pthread_mutex_destroy(&r->stats_lock);
   while (r->prof_pending) {
      struct hwr_prof *p = r->prof_pending;
      r->prof_pending = p->next;
      hwr_prof_free(p);
   }
   pthread_mutex_destroy(&r->prof_lock);
   hwr_scratch_free(&r->vscratch);
   hwr_vs_ahead_free(r->vahead);
   pthread_cond_destroy(&r->cond);
   pthread_cond_destroy(&r->done_cond);
   free(r);
}

void
hw_render_get_stats(struct hw_render *r, struct hw_render_stats *out)
{
   pthread_mutex_lock(&r->stats_lock);
   *out = r->stats;
   pthread_mutex_unlock(&r->stats_lock);
}

unsigned
hw_render_threads(const struct hw_render *r)
{
   return r->threads;
}
