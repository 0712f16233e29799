/* SPDX-License-Identifier: MIT */
/*
 * One CDM launch: its sizes (direct or from an indirect buffer), the USC
 * pipeline words, the uniform preload, the preshader, and the workgroups
 * spread over the host worker pool.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hw/cdm/cdm_priv.h"

static bool
fetch(struct cdm_job *j, uint64_t va, void *dst, size_t size, const char *what)
{
   if (hw_mmu_read(&j->cdm_mmu, va, dst, size))
      return true;
   if (j->cdm_mmu.fault.valid)
      return cdm_fault(j, &j->cdm_mmu.fault);
   return cdm_error(j, "%s at 0x%" PRIx64 " is unreadable", what, va);
}

/* ---- sizes ------------------------------------------------------------ */

static bool
decode_sizes(struct cdm_job *j, struct cdm_launch *L, size_t *size)
{
   uint8_t b[AGX_CDM_LAUNCH_WORD_0_LENGTH + AGX_CDM_LAUNCH_WORD_1_LENGTH +
             AGX_CDM_GLOBAL_SIZE_LENGTH + AGX_CDM_LOCAL_SIZE_LENGTH];
   const size_t head = AGX_CDM_LAUNCH_WORD_0_LENGTH + AGX_CDM_LAUNCH_WORD_1_LENGTH;
   struct agx_cdm_launch_word_0 w0;
   struct agx_cdm_launch_word_1 w1;

   if (!fetch(j, L->va, b, head, "CDM launch"))
      return false;
   if (!agx_cdm_launch_word_0_unpack(b, &w0) ||
       !agx_cdm_launch_word_1_unpack(b + AGX_CDM_LAUNCH_WORD_0_LENGTH, &w1))
      return cdm_error(j, "malformed CDM launch at 0x%" PRIx64, L->va);

   size_t len = head;
   switch (w0.mode) {
   case AGX_CDM_MODE_DIRECT:
      len += AGX_CDM_GLOBAL_SIZE_LENGTH + AGX_CDM_LOCAL_SIZE_LENGTH;
      break;
   case AGX_CDM_MODE_INDIRECT_GLOBAL:
      len += AGX_CDM_INDIRECT_LENGTH + AGX_CDM_LOCAL_SIZE_LENGTH;
      break;
   case AGX_CDM_MODE_INDIRECT_LOCAL:
      len += AGX_CDM_INDIRECT_LENGTH;
      break;
   default:
      return cdm_error(j, "CDM launch at 0x%" PRIx64 ": unknown mode %u",
                       L->va, (unsigned)w0.mode);
   }
   if (!fetch(j, L->va + head, b + head, len - head, "CDM launch"))
      return false;
   *size = len;
   L->uniform_halves = w0.uniform_register_count;
   L->sampler_stride = hw_tex_sampler_stride(w0.sampler_state_register_count);
   L->preshader_halves = w0.preshader_register_count;
   L->pipeline = j->job->compute->usc_base + w1.pipeline;

   struct agx_cdm_global_size g;
   struct agx_cdm_local_size l;
   const uint8_t *w = b + head;
   bool ok = true;
   if (w0.mode == AGX_CDM_MODE_DIRECT) {
      ok = agx_cdm_global_size_unpack(w, &g) &&
           agx_cdm_local_size_unpack(w + AGX_CDM_GLOBAL_SIZE_LENGTH, &l);
   } else {
      struct agx_cdm_indirect ind;
      if (!agx_cdm_indirect_unpack(w, &ind))
         return cdm_error(j, "malformed CDM indirect word at 0x%" PRIx64,
                          L->va + head);
      uint64_t addr = ((uint64_t)ind.address_hi << 32) | ind.address_lo;
      /* The CDM reads the sizes itself when it reaches the launch, so a
       * shader of an earlier launch may have written them. */
      uint8_t buf[AGX_CDM_GLOBAL_SIZE_LENGTH + AGX_CDM_LOCAL_SIZE_LENGTH];
      size_t n = AGX_CDM_GLOBAL_SIZE_LENGTH;
      if (w0.mode == AGX_CDM_MODE_INDIRECT_LOCAL)
         n += AGX_CDM_LOCAL_SIZE_LENGTH;
      if (!fetch(j, addr, buf, n, "indirect launch buffer"))
         return false;
      ok = agx_cdm_global_size_unpack(buf, &g);
      if (w0.mode == AGX_CDM_MODE_INDIRECT_LOCAL)
         ok = ok && agx_cdm_local_size_unpack(buf + AGX_CDM_GLOBAL_SIZE_LENGTH, &l);
      else
         ok = ok && agx_cdm_local_size_unpack(w + AGX_CDM_INDIRECT_LENGTH, &l);
   }
   if (!ok)
      return cdm_error(j, "CDM launch at 0x%" PRIx64 ": sizes do not unpack",
                       L->va);
   L->grid[0] = g.x; L->grid[1] = g.y; L->grid[2] = g.z;
   L->local[0] = l.x; L->local[1] = l.y; L->local[2] = l.z;

   uint64_t threads = (uint64_t)l.x * l.y * l.z;
   if (threads == 0 || threads > HW_USC_SIMD_WIDTH * HW_USC_MAX_SIMDS)
      return cdm_error(j, "CDM launch at 0x%" PRIx64 ": threadgroup %ux%ux%u "
                       "is not 1..1024 threads", L->va, l.x, l.y, l.z);
   L->nwg = 1;
   for (unsigned c = 0; c < 3; c++) {
      L->groups[c] = ((uint64_t)L->grid[c] + L->local[c] - 1) / L->local[c];
      L->nwg *= L->groups[c];   /* < 2^96 cannot happen: checked below */
      if (L->nwg > (1ull << 40))
         return cdm_error(j, "CDM launch at 0x%" PRIx64 ": more than 2^40 "
                          "workgroups", L->va);
   }
   return true;
}

/* ---- USC words ---------------------------------------------------------- */

static bool
preload(struct cdm_job *j, struct cdm_launch *L, unsigned start, unsigned n,
        uint64_t buffer, uint64_t word_va)
{
   if (start + n > 2 * HW_USC_NUM_UNIFORMS)
      return cdm_error(j, "uniform preload at 0x%" PRIx64 " writes halves "
                       "%u..%u, past u%u", word_va, start, start + n - 1,
                       HW_USC_NUM_UNIFORMS - 1);
   /* Uniform registers are 16-bit halves in little-endian pairs, like
    * the host's view of the uint32_t array. */
   uint8_t *dst = (uint8_t *)L->uniforms + 2 * start;
   if (!hw_mmu_read(&j->usc_mmu, buffer, dst, 2 * (size_t)n)) {
      if (j->usc_mmu.fault.valid)
         return cdm_fault(j, &j->usc_mmu.fault);
      memset(dst, 0, 2 * (size_t)n);   /* soft fault: reads as zero */
   }
   L->preload_bytes += 2 * (uint64_t)n;
   return true;
}

static bool
decode_pipeline(struct cdm_job *j, struct cdm_launch *L)
{
   const uint64_t base = j->job->compute->usc_base;
   uint64_t va = L->pipeline;
   bool have_shader = false;

   for (unsigned n = 0; n < HW_CDM_MAX_USC_WORDS; n++) {
      uint8_t w[8];
      if (!fetch(j, va, w, 1, "USC word"))
         return false;
      size_t len = agx_usc_control_length(w[0]);
      if (!len)
         return cdm_error(j, "unknown USC word 0x%02x at 0x%" PRIx64, w[0], va);
      if (!fetch(j, va, w, len, "USC word"))
         return false;

      bool ok = true, end = false;
      switch (w[0]) {
      case AGX_USC_CONTROL_SHADER: {
         struct agx_usc_shader s;
         ok = agx_usc_shader_unpack(w, &s);
         L->shader = base + (uint32_t)s.code;
         have_shader = true;
         break;
      }
      case AGX_USC_CONTROL_UNIFORM: {
         struct agx_usc_uniform u;
         ok = agx_usc_uniform_unpack(w, &u) &&
              preload(j, L, u.start_halfs, u.size_halfs, u.buffer, va);
         if (!ok && j->res->status != HW_EXEC_OK)
            return false;
         break;
      }
      case AGX_USC_CONTROL_UNIFORM_HIGH: {
         struct agx_usc_uniform_high u;
         ok = agx_usc_uniform_high_unpack(w, &u) &&
              preload(j, L, 256 + u.start_halfs, u.size_halfs, u.buffer, va);
         if (!ok && j->res->status != HW_EXEC_OK)
            return false;
         break;
      }
      case AGX_USC_CONTROL_TEXTURE: {
         struct agx_usc_texture t;
         ok = agx_usc_texture_unpack(w, &t);
         /* The word loads descriptors into state slots Start.., so slot i
          * reads Buffer + (i - Start) * stride; the hook indexes from 0. */
         L->texture_table = t.buffer - (uint64_t)t.start * HW_TEX_DESC_BYTES;
         L->texture_count = t.start + t.count;
         if (ok && L->ntex_slots == CDM_MAX_SLOT_WORDS)
            return cdm_error(j, "more than %u USC Texture words", CDM_MAX_SLOT_WORDS);
         if (ok)
            L->tex_slots[L->ntex_slots++] = (struct hw_tex_slots){ t.start, t.count, t.buffer };
         break;
      }
      case AGX_USC_CONTROL_SAMPLER: {
         struct agx_usc_sampler t;
         ok = agx_usc_sampler_unpack(w, &t);
         L->sampler_table = t.buffer - (uint64_t)t.start * L->sampler_stride;
         L->sampler_count = t.start + t.count;
         if (ok && L->nsmp_slots == CDM_MAX_SLOT_WORDS)
            return cdm_error(j, "more than %u USC Sampler words", CDM_MAX_SLOT_WORDS);
         if (ok)
            L->smp_slots[L->nsmp_slots++] = (struct hw_tex_slots){ t.start, t.count, t.buffer };
         break;
      }
      case AGX_USC_CONTROL_SHARED: {
         struct agx_usc_shared s;
         ok = agx_usc_shared_unpack(w, &s);
         L->tg_bytes = s.uses_shared_memory ? s.bytes_per_threadgroup : 0;
         /* A pixel layout makes the memory an imageblock as well. */
         unsigned ibw = 0, ibh = 0;
         switch (s.layout) {
         case AGX_SHARED_LAYOUT_32X32: ibw = 32; ibh = 32; break;
         case AGX_SHARED_LAYOUT_32X16: ibw = 32; ibh = 16; break;
         case AGX_SHARED_LAYOUT_16X16: ibw = 16; ibh = 16; break;
         default: break;
         }
         L->ib = (struct cdm_imageblock){
            .width = ibw, .height = ibh, .samples = s.sample_count ? s.sample_count : 1,
            .sample_stride = s.sample_stride_in_8_bytes * 8,
         };
         if (ok && L->tg_bytes > HW_CDM_MAX_THREADGROUP_MEM)
            return cdm_error(j, "USC Shared word at 0x%" PRIx64 " asks for %u "
                             "bytes of threadgroup memory", va, L->tg_bytes);
         break;
      }
      case AGX_USC_CONTROL_REGISTERS: {
         struct agx_usc_registers r;
         ok = agx_usc_registers_unpack(w, &r);
         L->have_registers = true;
         L->register_halves = r.register_count;
         break;
      }
      case AGX_USC_CONTROL_FRAGMENT_PROPERTIES: {
         /* Meaningless for compute; accepted as the hardware ignores it. */
         struct agx_usc_fragment_properties f;
         ok = agx_usc_fragment_properties_unpack(w, &f);
         break;
      }
      case AGX_USC_CONTROL_PRESHADER: {
         struct agx_usc_preshader s;
         ok = agx_usc_preshader_unpack(w, &s);
         L->preshader = base + (uint32_t)s.code;
         end = true;
         break;
      }
      case AGX_USC_CONTROL_NO_PRESHADER: {
         struct agx_usc_no_preshader s;
         ok = agx_usc_no_preshader_unpack(w, &s);
         end = true;
         break;
      }
      }
      if (!ok)
         return cdm_error(j, "malformed USC word 0x%02x at 0x%" PRIx64, w[0], va);
      va += len;
      if (end) {
         if (!have_shader)
            return cdm_error(j, "compute pipeline at 0x%" PRIx64 " has no "
                             "Shader word", L->pipeline);
         return true;
      }
   }
   return cdm_error(j, "compute pipeline at 0x%" PRIx64 " has no Preshader or "
                    "No Preshader word in %u words", L->pipeline,
                    HW_CDM_MAX_USC_WORDS);
}

/* ---- workgroups ----------------------------------------------------------- */

static void
record_failure(struct cdm_job *j, uint64_t wg, const struct hw_usc_result *r)
{
   pthread_mutex_lock(&j->err_lock);
   /* A STOPPED workgroup is a consequence, not a cause: any real failure
    * replaces it; among real ones the lowest index wins. */
   bool replace = !j->failed ||
                  (j->err.status == HW_USC_STOPPED && r->status != HW_USC_STOPPED) ||
                  ((r->status != HW_USC_STOPPED) == (j->err.status != HW_USC_STOPPED) &&
                   wg < j->err_wg);
   if (replace) {
      j->failed = true;
      j->err_wg = wg;
      j->err = *r;
   }
   pthread_mutex_unlock(&j->err_lock);
   __atomic_store_n((int *)&j->stop, 1, __ATOMIC_RELAXED);
}

static void
run_workgroup(void *ctx, unsigned worker, uint64_t i)
{
   struct cdm_job *j = ctx;
   const struct cdm_launch *L = j->cur;
   struct cdm_worker *w = &j->cdm->workers[worker];

   if (__atomic_load_n((int *)&j->stop, __ATOMIC_RELAXED))
      return;

   struct hw_usc_workgroup wg = { 0 };
   uint64_t pos[3] = {
      i % L->groups[0],
      (i / L->groups[0]) % L->groups[1],
      i / (L->groups[0] * L->groups[1]),
   };
   size_t threads = 1;
   for (unsigned c = 0; c < 3; c++) {
      uint64_t first = pos[c] * L->local[c];
      uint64_t left = L->grid[c] - first;
      wg.threads[c] = left < L->local[c] ? (uint32_t)left : L->local[c];
      wg.threadgroup_position[c] = (uint32_t)pos[c];
      threads *= wg.threads[c];
   }
   /* Fresh threadgroup memory and stacks: what a workgroup finds there
    * must not depend on which workgroup this host thread ran before. */
   wg.threadgroup_mem = w->tg_mem;
   wg.threadgroup_mem_size = L->tg_bytes;
   memset(w->tg_mem, 0, L->tg_bytes);
   wg.stack = w->stack;
   wg.stack_bytes_per_thread = HW_CDM_STACK_BYTES_PER_THREAD;
   memset(w->stack, 0, threads * HW_CDM_STACK_BYTES_PER_THREAD);

   unsigned core = (unsigned)((j->wg_base + i) % HW_CDM_CORES);
   struct hw_usc_launch ul = j->usc;
   ul.core_index = core;

   struct hw_usc_stats st = { 0 };
   struct hw_usc_result r;
   enum hw_usc_status rc = hw_usc_run_workgroup(&ul, &wg, &w->mmu, &st, &r);
   if (rc != HW_USC_OK) {
      record_failure(j, i, &r);
      return;
   }
   w->core_cycles[core] += (st.cycles + HW_CDM_SCHEDULERS - 1) / HW_CDM_SCHEDULERS +
                           HW_CDM_WORKGROUP_CYCLES;
   uint64_t crit = st.max_simd_cycles + HW_CDM_WORKGROUP_CYCLES;
   if (crit > w->core_crit[core])
      w->core_crit[core] = crit;
   w->workgroups++;
   w->usc.instructions += st.instructions;
   w->usc.cycles += st.cycles;
   if (st.max_simd_cycles > w->usc.max_simd_cycles)
      w->usc.max_simd_cycles = st.max_simd_cycles;
   w->usc.alu += st.alu;
   w->usc.sfu += st.sfu;
   w->usc.imul += st.imul;
   w->usc.mem += st.mem;
   w->usc.cf += st.cf;
   w->usc.bytes_read += st.bytes_read;
   w->usc.bytes_written += st.bytes_written;
   w->usc.barriers += st.barriers;
}

static void
watchdog(void *ctx)
{
   struct cdm_job *j = ctx;
   if (hw_exec_should_stop(j->job)) {
      j->watchdog = true;
      __atomic_store_n((int *)&j->stop, 1, __ATOMIC_RELAXED);
   }
}

static void
add_usc(struct hw_usc_stats *d, const struct hw_usc_stats *s)
{
   d->instructions += s->instructions;
   d->cycles += s->cycles;
   if (s->max_simd_cycles > d->max_simd_cycles)
      d->max_simd_cycles = s->max_simd_cycles;
   d->alu += s->alu;
   d->sfu += s->sfu;
   d->imul += s->imul;
   d->mem += s->mem;
   d->cf += s->cf;
   d->bytes_read += s->bytes_read;
   d->bytes_written += s->bytes_written;
   d->barriers += s->barriers;
}

/* Folds what the workers measured into the job (firmware thread, after
 * the run: the pool's completion handshake orders the accesses). */
static uint64_t
merge_workers(struct cdm_job *j)
{
   struct hw_cdm *c = j->cdm;
   uint64_t core_cycles = 0;   /* the launch's issue cycles on every core */
   for (unsigned k = 0; k < c->nworkers; k++) {
      struct cdm_worker *w = &c->workers[k];
      for (unsigned i = 0; i < HW_CDM_CORES; i++) {
         core_cycles += w->core_cycles[i];
         j->seg_core_cycles[i] += w->core_cycles[i];
         if (w->core_crit[i] > j->seg_core_crit[i])
            j->seg_core_crit[i] = w->core_crit[i];
         w->core_cycles[i] = w->core_crit[i] = 0;
      }
      j->stats.workgroups += w->workgroups;
      add_usc(&j->stats.usc, &w->usc);
      w->workgroups = 0;
      memset(&w->usc, 0, sizeof(w->usc));
   }
   return core_cycles;
}

static uint64_t
wg_instruction_budget(const struct cdm_job *j)
{
   if (j->cdm->cfg.instruction_budget)
      return j->cdm->cfg.instruction_budget;
   /* A workgroup issuing more than this keeps its core busy past the
    * job's remaining cycles, so it could never finish in budget. */
   uint64_t left = j->job->cycle_budget > j->cycles ? j->job->cycle_budget - j->cycles : 0;
   if (left > UINT64_MAX / HW_CDM_SCHEDULERS - 1)
      return UINT64_MAX;
   return left * HW_CDM_SCHEDULERS + HW_CDM_SCHEDULERS;
}

/* ---- the launch ------------------------------------------------------------ */

bool
cdm_launch(struct cdm_job *j, uint64_t va, size_t *size)
{
   struct cdm_launch *L = calloc(1, sizeof(*L));
   if (!L)
      return cdm_error(j, "out of memory");
   bool ok = false;
   L->va = va;
   uint64_t core_cycles = 0;
   cdm_prof_launch_begin(j, va);
   j->stats.launches++;
   j->cycles += HW_CDM_LAUNCH_CYCLES;

   if (!decode_sizes(j, L, size) || !decode_pipeline(j, L))
      goto out;
   j->cycles += (L->preload_bytes + HW_CDM_PRELOAD_BYTES_PER_CYCLE - 1) /
                HW_CDM_PRELOAD_BYTES_PER_CYCLE;
   if (L->nwg == 0) {
      ok = true;   /* an empty grid launches nothing */
      goto out;
   }

   struct hw_usc_result r;
   const struct hw_usc_shader *sh = hw_usc_cache_get(j->cdm->cache, &j->usc_mmu,
                                                     L->shader, &r);
   if (!sh) {
      cdm_usc_failure(j, &r, "shader", L->shader);
      goto out;
   }
   unsigned gprs = HW_USC_NUM_GPRS;
   if (L->have_registers)
      gprs = (L->register_halves + 1) / 2;
   if (gprs == 0 || gprs > HW_USC_NUM_GPRS)
      gprs = HW_USC_NUM_GPRS;

   /* Texture instructions go to the texture unit model; it reads the
    * descriptors through the group's MMU view (unit TEX/PBE). */
   L->tex = (struct hw_tex_ctx){ .texture_table = L->texture_table,
                                 .sampler_table = L->sampler_table,
                                 .sampler_stride = L->sampler_stride,
                                 .tex_slots = L->tex_slots, .ntex_slots = L->ntex_slots,
                                 .smp_slots = L->smp_slots, .nsmp_slots = L->nsmp_slots };
   j->usc = (struct hw_usc_launch){
      .shader = sh,
      .uniforms = L->uniforms,
      .gpr_count = gprs,
      .texture_table = L->texture_table,
      .sampler_table = L->sampler_table,
      .threads_per_threadgroup = { L->local[0], L->local[1], L->local[2] },
      .grid_size = { L->grid[0], L->grid[1], L->grid[2] },
      .vm_slot = j->job->vm_slot,
      .instruction_budget = wg_instruction_budget(j),
      .stop_flag = &j->stop,
      .flags = j->cdm->cfg.usc_flags,
      .stage_hook = cdm_stage_hook,
      .hook_user = L,
   };

   if (L->preshader) {
      const struct hw_usc_shader *pre =
         hw_usc_cache_get(j->cdm->cache, &j->usc_mmu, L->preshader, &r);
      if (!pre) {
         cdm_usc_failure(j, &r, "preshader", L->preshader);
         goto out;
      }
      /* Runs once per launch, before any workgroup, and writes the
       * uniform registers every workgroup then starts with. */
      struct hw_usc_launch pl = j->usc;
      pl.shader = pre;
      pl.uniforms = NULL;
      pl.gpr_count = (L->preshader_halves + 1) / 2;
      if (pl.gpr_count > HW_USC_NUM_GPRS)
         pl.gpr_count = HW_USC_NUM_GPRS;
      struct hw_usc_stats st = { 0 };
      if (hw_usc_run_preshader(&pl, L->uniforms, &j->usc_mmu, &st, &r) != HW_USC_OK) {
         cdm_usc_failure(j, &r, "preshader", L->preshader);
         goto out;
      }
      j->stats.preshaders++;
      add_usc(&j->stats.usc, &st);
      j->cycles += st.cycles;
      j->usc.instruction_budget = wg_instruction_budget(j);
   }

   j->cur = L;
   j->wg_base = j->seg_workgroups;
   hw_dispatch_run(j->cdm->pool, L->nwg, run_workgroup, watchdog, j, &j->stop);
   core_cycles = merge_workers(j);
   j->seg_workgroups += L->nwg;
   j->cur = NULL;

   if (j->failed) {
      if (j->err.status == HW_USC_STOPPED && !j->watchdog)
         cdm_error(j, "launch at 0x%" PRIx64 " stopped", va);
      else
         cdm_usc_failure(j, &j->err, "workgroup of the launch", va);
      goto out;
   }
   if (j->watchdog) {
      j->res->status = HW_EXEC_TIMEOUT;
      goto out;
   }
   ok = !cdm_should_stop(j);

out:
   cdm_prof_launch_end(j, L, core_cycles);
   free(L);
   return ok;
}
