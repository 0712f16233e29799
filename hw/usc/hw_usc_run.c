/* SPDX-License-Identifier: MIT */
/*
 * Workgroup scheduling: SIMD groups run one after the other on the calling
 * thread and only switch at threadgroup_barrier, in SIMD-index order, so a
 * run is a pure function of its inputs.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/usc/hw_usc_internal.h"

bool hw_usc_fast_paths = true;

const char *
hw_usc_status_name(enum hw_usc_status s)
{
   switch (s) {
   case HW_USC_OK: return "ok";
   case HW_USC_FAULT: return "fault";
   case HW_USC_TRAP: return "trap";
   case HW_USC_BAD_CODE: return "bad code";
   case HW_USC_BUDGET: return "budget exceeded";
   case HW_USC_STOPPED: return "stopped";
   case HW_USC_UNSUPPORTED: return "unsupported in this stage";
   case HW_USC_OUT_OF_BOUNDS: return "out of bounds";
   case HW_USC_BAD_LAUNCH: return "bad launch";
   }
   return "?";
}

/* A successful run's result (hw_usc.h): every field a reader can see
 * is cleared, but not all 160 bytes of the message. */
static void
result_ok(struct hw_usc_result *res)
{
   res->status = HW_USC_OK;
   memset(&res->fault, 0, sizeof(res->fault));
   res->pc = 0;
   res->simd = 0;
   res->message[0] = '\0';
}

static enum hw_usc_status
launch_fail(struct hw_usc_result *res, const char *msg)
{
   if (res) {
      memset(res, 0, sizeof(*res));
      res->status = HW_USC_BAD_LAUNCH;
      snprintf(res->message, sizeof(res->message), "%s", msg);
   }
   return HW_USC_BAD_LAUNCH;
}

static enum hw_usc_status
check_launch(const struct hw_usc_launch *L, struct hw_usc_result *res)
{
   char m[128];
   if (!L || !L->shader)
      return launch_fail(res, "no shader");
   if (L->gpr_count == 0 || L->gpr_count > HW_USC_NUM_GPRS)
      return launch_fail(res, "GPR count must be 1..128");
   if (L->shader->max_gpr > L->gpr_count) {
      snprintf(m, sizeof(m), "shader uses r%u but only %u GPRs are allocated",
               L->shader->max_gpr - 1, L->gpr_count);
      if (res) {
         memset(res, 0, sizeof(*res));
         res->status = HW_USC_BAD_CODE;
         res->pc = L->shader->va;
         snprintf(res->message, sizeof(res->message), "%s", m);
      }
      return HW_USC_BAD_CODE;
   }
   return HW_USC_OK;
}

static void
simd_init(struct hw_usc_simd *s, const struct hw_usc_launch *L,
          const struct hw_usc_workgroup *wg, struct hw_mmu *mmu, const uint32_t *uniforms,
          uint32_t *uniforms_w,
          struct hw_usc_stats *st, unsigned index, unsigned threads)
{
   unsigned z = L->shader->reg_bound;
   if (z < 2)
      z = 2;
   if (z > HW_USC_NUM_GPRS)
      z = HW_USC_NUM_GPRS;
   memset(s->r, 0, (size_t)z * sizeof(s->r[0]));
   s->zeroed = z;
   s->u = uniforms;
   s->uw = uniforms_w;
   s->index = index;
   s->pc = 0;
   s->done = s->at_barrier = false;
   s->cycles = s->instructions = 0;
   s->npending = 0;
   s->outstanding = 0;
   s->launch = L;
   s->wg = wg;
   s->mmu = mmu;
   s->stats = st;
   s->preshader = false;
   s->hook_message[0] = 0;
   unsigned first = index * USC_W;
   unsigned n = threads > first ? threads - first : 0;
   s->present = n >= USC_W ? 0xffffffffu : ((1u << n) - 1);
   s->exec = s->present;
   s->helpers = 0;
   const uint32_t *dim = usc_wg_threads(L, wg);
   uint32_t dx = dim[0] ? dim[0] : 1;
   uint32_t dy = dim[1] ? dim[1] : 1;
   /* lin % dx, (lin / dx) % dy, lin / (dx * dy), stepped instead of
    * divided per lane. */
   if (!(dx & (dx - 1)) && !(dy & (dy - 1)) && hw_usc_fast_paths) {
      /* Power-of-two widths (every pixel group: 16x2; most compute
       * groups): the same quotients and remainders as masks and shifts,
       * a loop the compiler vectorises; the stepped loop below, one lane
       * at a time, was most of this function's time on fragment-heavy
       * replays (a launch per 16x2 group). */
      const unsigned sx = (unsigned)__builtin_ctz(dx), sy = (unsigned)__builtin_ctz(dy);
      for (unsigned l = 0; l < USC_W; l++) {
         const uint32_t lin = first + l;
         s->linear_id[l] = lin;
         s->local_id[0][l] = lin & (dx - 1);
         s->local_id[1][l] = (lin >> sx) & (dy - 1);
         s->local_id[2][l] = lin >> sx >> sy;
      }
      return;
   }
   uint32_t x = first % dx, q = first / dx, y = q % dy, zz = q / dy;
   for (unsigned l = 0; l < USC_W; l++) {
      s->linear_id[l] = first + l;
      s->local_id[0][l] = x;
      s->local_id[1][l] = y;
      s->local_id[2][l] = zz;
      if (++x == dx) {
         x = 0;
         if (++y == dy) {
            y = 0;
            zz++;
         }
      }
   }
}

static void
add_stats(struct hw_usc_stats *dst, const struct hw_usc_stats *src)
{
   dst->instructions += src->instructions;
   dst->cycles += src->cycles;
   if (src->max_simd_cycles > dst->max_simd_cycles)
      dst->max_simd_cycles = src->max_simd_cycles;
   dst->alu += src->alu;
   dst->sfu += src->sfu;
   dst->imul += src->imul;
   dst->mem += src->mem;
   dst->cf += src->cf;
   dst->bytes_read += src->bytes_read;
   dst->bytes_written += src->bytes_written;
   dst->barriers += src->barriers;
}

static void
finish_simd(struct hw_usc_simd *s, struct hw_usc_stats *st)
{
   st->instructions += s->instructions;
   st->cycles += s->cycles;
   if (s->cycles > st->max_simd_cycles)
      st->max_simd_cycles = s->cycles;
}

/*
 * Per-thread launch scratch.  The render core launches one small
 * workgroup per 16x2 pixel group, so allocating and freeing the SIMD
 * state (tens of KB) per launch was a large share of fragment time.  Each
 * host thread keeps its buffers for the next launch; a launch made while
 * the thread's scratch is in use (a hook launching a workgroup) falls back
 * to the heap.  The SIMD state is fully initialised by simd_init() and
 * the uniforms are rewritten per launch, so reuse changes no result.
 */
struct scratch {
   struct hw_usc_simd *simd;
   unsigned cap;               /* SIMD groups simd holds */
   uint32_t uni[HW_USC_NUM_UNIFORMS];
   bool busy;
};

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static bool scratch_key_ok;

static void
scratch_free(void *p)
{
   struct scratch *sc = p;
   if (sc)
      free(sc->simd);
   free(sc);
}

static void
scratch_init(void)
{
   scratch_key_ok = pthread_key_create(&scratch_key, scratch_free) == 0;
}

static struct scratch *
scratch_get(unsigned nsimd)
{
   pthread_once(&scratch_once, scratch_init);
   if (!scratch_key_ok)
      return NULL;
   struct scratch *sc = pthread_getspecific(scratch_key);
   if (!sc) {
      sc = calloc(1, sizeof(*sc));
      if (!sc)
         return NULL;
      if (pthread_setspecific(scratch_key, sc)) {
         free(sc);
         return NULL;
      }
   }
   if (sc->busy)
      return NULL;
   if (sc->cap < nsimd) {
      struct hw_usc_simd *n = malloc(nsimd * sizeof(*n));
      if (!n)
         return NULL;
      free(sc->simd);
      sc->simd = n;
      sc->cap = nsimd;
   }
   sc->busy = true;
   return sc;
}

static void
scratch_put(struct scratch *sc)
{
   if (sc)
      sc->busy = false;
}

enum hw_usc_status
hw_usc_run_workgroup(const struct hw_usc_launch *L, const struct hw_usc_workgroup *wg,
                     struct hw_mmu *mmu, struct hw_usc_stats *stats,
                     struct hw_usc_result *res)
{
   enum hw_usc_status rc = check_launch(L, res);
   if (rc != HW_USC_OK)
      return rc;
   if (!wg)
      return launch_fail(res, "no workgroup descriptor");
   const uint32_t *dim = usc_wg_threads(L, wg);
   uint64_t threads = (uint64_t)dim[0] * dim[1] * dim[2];
   if (threads == 0 || threads > HW_USC_SIMD_WIDTH * HW_USC_MAX_SIMDS)
      return launch_fail(res, "threads per threadgroup must be 1..1024");
   for (unsigned c = 0; c < 3; c++)
      if (dim[c] > L->threads_per_threadgroup[c])
         return launch_fail(res, "workgroup larger than the launch's threadgroup size");
   unsigned nsimd = (unsigned)((threads + USC_W - 1) / USC_W);

   struct scratch *sc = scratch_get(nsimd);
   struct hw_usc_simd *simd = sc ? sc->simd : malloc(nsimd * sizeof(*simd));
   uint32_t *uni = sc ? sc->uni : malloc(HW_USC_NUM_UNIFORMS * sizeof(uint32_t));
   if (!simd || !uni) {
      if (!sc) {
         free(simd);
         free(uni);
      }
      scratch_put(sc);
      return launch_fail(res, "out of memory");
   }
   /* A main shader's uniform_store stays private to its workgroup, so a
    * shader with one works on a copy; the others (nearly all: pixel
    * groups launch per 16x2 pixels) read the launch's array in place. */
   static const uint32_t zero_uniforms[HW_USC_NUM_UNIFORMS];
   const uint32_t *ur = L->uniforms ? L->uniforms : zero_uniforms;
   uint32_t *uw = NULL;
   if (L->shader->stores_uniforms) {
      memcpy(uni, ur, HW_USC_NUM_UNIFORMS * sizeof(uint32_t));
      ur = uw = uni;
   }

   struct hw_usc_stats st = { 0 };
   for (unsigned i = 0; i < nsimd; i++) {
      simd_init(&simd[i], L, wg, mmu, ur, uw, &st, i, (unsigned)threads);
      if (L->start_hook)
         L->start_hook(L->hook_user, &simd[i]);
   }

   uint64_t budget = L->instruction_budget;
   uint64_t *bp = budget ? &budget : NULL;
   unsigned remaining = nsimd;
   rc = HW_USC_OK;
   while (remaining && rc == HW_USC_OK) {
      /* One round: every unfinished group runs to its next barrier. */
      for (unsigned i = 0; i < nsimd && rc == HW_USC_OK; i++) {
         struct hw_usc_simd *s = &simd[i];
         if (s->done)
            continue;
         rc = usc_run_simd(s, bp, res);
         if (rc == HW_USC_OK && s->done) {
            if (L->finish_hook)
               L->finish_hook(L->hook_user, s);
            finish_simd(s, &st);
            remaining--;
         }
      }
      /* Everyone is now at the barrier or done: the barrier releases. */
   }
   if (rc != HW_USC_OK) {
      for (unsigned i = 0; i < nsimd; i++)
         if (!simd[i].done)
            finish_simd(&simd[i], &st);
   } else if (res) {
      result_ok(res);
   }
   if (stats)
      add_stats(stats, &st);
   if (sc) {
      scratch_put(sc);
   } else {
      free(simd);
      free(uni);
   }
   return rc;
}

enum hw_usc_status
hw_usc_run_preshader(const struct hw_usc_launch *L, uint32_t uniforms[HW_USC_NUM_UNIFORMS],
                     struct hw_mmu *mmu, struct hw_usc_stats *stats,
                     struct hw_usc_result *res)
{
   enum hw_usc_status rc = check_launch(L, res);
   if (rc != HW_USC_OK)
      return rc;
   struct hw_usc_simd *s = malloc(sizeof(*s));
   if (!s)
      return launch_fail(res, "out of memory");
   struct hw_usc_stats st = { 0 };
   static const struct hw_usc_workgroup nowg;
   simd_init(s, L, &nowg, mmu, uniforms, uniforms, &st, 0, 1);
   s->preshader = true;
   /* Decide once whether there is a budget: a budget that reaches zero
    * between two barrier releases must not turn into "unlimited". */
   uint64_t budget = L->instruction_budget;
   uint64_t *bp = budget ? &budget : NULL;
   rc = usc_run_simd(s, bp, res);
   if (rc == HW_USC_OK && s->at_barrier && !s->done) {
      /* a barrier in a one-group program releases at once */
      while (rc == HW_USC_OK && !s->done)
         rc = usc_run_simd(s, bp, res);
   }
   if (rc == HW_USC_OK) {
      if (L->finish_hook)
         L->finish_hook(L->hook_user, s);
      if (res)
         result_ok(res);
   }
   finish_simd(s, &st);
   if (stats)
      add_stats(stats, &st);
   free(s);
   return rc;
}

/* ---- accessors --------------------------------------------------------- */

/* The groups are never const objects: reads may zero registers on
 * first touch (usc_touch). */
uint32_t
hw_usc_simd_read32(const struct hw_usc_simd *s, unsigned reg, unsigned lane)
{
   usc_touch((struct hw_usc_simd *)s, reg);
   return s->r[reg & 127][lane & 31];
}

void
hw_usc_simd_write32(struct hw_usc_simd *s, unsigned reg, unsigned lane, uint32_t v)
{
   usc_touch(s, reg);
   s->r[reg & 127][lane & 31] = v;
}

uint16_t
hw_usc_simd_read16(const struct hw_usc_simd *s, unsigned half, unsigned lane)
{
   usc_touch((struct hw_usc_simd *)s, (half & 255) >> 1);
   return (uint16_t)usc_rd16(s, half & 255, lane & 31);
}

void
hw_usc_simd_write16(struct hw_usc_simd *s, unsigned half, unsigned lane, uint16_t v)
{
   usc_touch(s, (half & 255) >> 1);
   usc_wr16(s, half & 255, lane & 31, v);
}

uint32_t *
hw_usc_simd_row32(struct hw_usc_simd *s, unsigned reg)
{
   usc_touch(s, reg);
   return s->r[reg & 127];
}

uint32_t
hw_usc_simd_uniform32(const struct hw_usc_simd *s, unsigned u)
{
   return s->u[u & 255];
}

unsigned
hw_usc_simd_index(const struct hw_usc_simd *s)
{
   return s->index;
}

void
hw_usc_simd_set_position(struct hw_usc_simd *s, unsigned lane, uint32_t x,
                         uint32_t y, uint32_t z)
{
   if (lane >= USC_W)
      return;
   s->local_id[0][lane] = x;
   s->local_id[1][lane] = y;
   s->local_id[2][lane] = z;
}

void
hw_usc_simd_set_positions(struct hw_usc_simd *s, const uint32_t x[USC_W],
                          const uint32_t y[USC_W], uint32_t z)
{
   for (unsigned l = 0; l < USC_W; l++) {
      s->local_id[0][l] = x[l];
      s->local_id[1][l] = y[l];
      s->local_id[2][l] = z;
   }
}

void
hw_usc_simd_disable_lanes(struct hw_usc_simd *s, uint32_t mask)
{
   mask &= s->present;
   /* r0l = 1 in the masked lanes, as usc_wr16(s, 0, l, 1) lane by lane,
    * branch-free through a per-lane mask so that the loop vectorises
    * (a pixel group's start: quads without coverage). */
   static const uint32_t lane_bit[USC_W] = {
#define B4(n) 1u << (n), 1u << ((n) + 1), 1u << ((n) + 2), 1u << ((n) + 3)
      B4(0), B4(4), B4(8), B4(12), B4(16), B4(20), B4(24), B4(28)
#undef B4
   };
   uint32_t *r0 = s->r[0];
   for (unsigned l = 0; l < USC_W; l++) {
      const uint32_t m = 0u - (uint32_t)((mask & lane_bit[l]) != 0);
      r0[l] = (r0[l] & ~(m & 0xffffu)) | (m & 1u);
   }
   s->exec &= ~mask;
}

void
hw_usc_simd_set_helpers(struct hw_usc_simd *s, uint32_t mask)
{
   s->helpers = mask & s->present;
}

uint32_t
hw_usc_simd_helpers(const struct hw_usc_simd *s)
{
   return s->helpers;
}

struct hw_mmu *
hw_usc_simd_mmu(struct hw_usc_simd *s)
{
   return s->mmu;
}

const struct hw_usc_workgroup *
hw_usc_simd_workgroup(const struct hw_usc_simd *s)
{
   return s->wg;
}

void
hw_usc_simd_hook_message(struct hw_usc_simd *s, const char *msg)
{
   snprintf(s->hook_message, sizeof(s->hook_message), "%s", msg);
}

bool
hw_usc_shader_writes_memory(const struct hw_usc_shader *s,
                            bool (*hook_writes)(const struct agx_instr *in, void *user),
                            void *user)
{
   for (unsigned i = 0; i < s->count; i++) {
      const struct usc_inst *in = &s->inst[i];
      switch ((enum usc_op)in->op) {
      case U_DEVICE_STORE: case U_ATOMIC: case U_UNIFORM_STORE:
         return true;
      case U_HOOK:
         if (!hook_writes || hook_writes(&s->hook_instrs[in->hook], user))
            return true;
         break;
      default:
         break;
      }
   }
   return false;
}
