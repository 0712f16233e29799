/* SPDX-License-Identifier: MIT */
/*
 * Compute test harness (see test_hw_compute_util.h).
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmdstream/agx_pack.h"
#include "cmdstream/isa/agx_isa.h"
#include "test_hw_compute_util.h"

void
tc_setup(struct tc *c, unsigned threads, const struct hw_device_config *cfg)
{
   memset(c, 0, sizeof(*c));
   t_setup_fw(&c->t, cfg);
   struct hw_cdm_config cc = { .threads = threads };
   c->cdm = hw_cdm_create(c->t.dev, &cc);
   assert_non_null(c->cdm);
   if (threads)
      assert_int_equal(hw_cdm_threads(c->cdm), threads);
   for (unsigned i = 0; i < TC_MAX_VMS; i++) {
      struct tc_vm *v = &c->vm[i];
      v->slot = i + 1;
      v->heap = t_user_map(&c->t, v->slot, T_USER_VA, TC_HEAP_PAGES,
                           HW_UAT_READ | HW_UAT_WRITE);
      t_queue_init(&c->t, &v->q, AGX_FW_PIPE_COMPUTE, 0, i);
      t_kalloc(&c->t, 4, &v->stamp_va);
   }
}

void
tc_teardown(struct tc *c)
{
   hw_cdm_destroy(c->cdm);
   t_teardown(&c->t);
}

uint64_t
tc_alloc(struct tc *c, unsigned vm, size_t size, void **host)
{
   struct tc_vm *v = &c->vm[vm];
   uint64_t off = (v->used + 63) & ~63ull;
   assert_true(off + size <= TC_HEAP_PAGES * HW_PAGE_SIZE);
   v->used = off + size;
   if (host)
      *host = v->heap + off;
   return T_USER_VA + off;
}

void *
tc_host(struct tc *c, unsigned vm, uint64_t va)
{
   assert_true(va >= T_USER_VA && va < T_USER_VA + TC_HEAP_PAGES * HW_PAGE_SIZE);
   return c->vm[vm].heap + (va - T_USER_VA);
}

/* The repository root: $TOP (set by scripts/run-tests), else the cwd if
 * it has tests/data, else three levels above build/<variant>/tests/x. */
static void
data_path(const char *name, char *out, size_t size)
{
   const char *top = getenv("TOP");
   if (top) {
      snprintf(out, size, "%s/tests/data/compute/%s.s", top, name);
      return;
   }
   if (access("tests/data/compute", R_OK) == 0) {
      snprintf(out, size, "tests/data/compute/%s.s", name);
      return;
   }
   char exe[PATH_MAX];
   ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
   assert_true(n > 0);
   exe[n] = '\0';
   for (int i = 0; i < 4; i++) {
      char *slash = strrchr(exe, '/');
      if (slash)
         *slash = '\0';
   }
   snprintf(out, size, "%s/tests/data/compute/%s.s", exe, name);
}

uint64_t
tc_kernel(struct tc *c, unsigned vm, const char *name)
{
   char path[PATH_MAX + 64];
   data_path(name, path, sizeof(path));
   FILE *f = fopen(path, "rb");
   if (!f)
      fail_msg("cannot open %s", path);
   char text[16384];
   size_t len = fread(text, 1, sizeof(text) - 1, f);
   fclose(f);
   text[len] = '\0';
   uint8_t code[4096];
   size_t code_len;
   char err[256];
   if (!agx_isa_assemble(text, len, code, sizeof(code), &code_len, err, sizeof(err)))
      fail_msg("%s: %s", path, err);
   void *host;
   uint64_t va = tc_alloc(c, vm, code_len + 16, &host);
   memcpy(host, code, code_len);
   return va;
}

uint64_t
tc_uniform_buffer(struct tc *c, unsigned vm, const uint32_t *u, unsigned n)
{
   void *host;
   uint64_t va = tc_alloc(c, vm, 4 * (size_t)n, &host);
   memcpy(host, u, 4 * (size_t)n);
   return va;
}

uint32_t
tc_pipeline(struct tc *c, unsigned vm, const struct tc_pipeline *p)
{
   uint8_t *w;
   uint64_t va = tc_alloc(c, vm, 128, (void **)&w);
   for (unsigned i = 0; i < p->nuniforms; i++) {
      const struct tc_uniform *u = &p->uniforms[i];
      if (u->high) {
         agx_pack(w, USC_UNIFORM_HIGH, x) {
            x.start_halfs = u->start_halfs;
            x.size_halfs = u->size_halfs;
            x.buffer = u->buffer;
         }
         w += AGX_USC_UNIFORM_HIGH_LENGTH;
      } else {
         agx_pack(w, USC_UNIFORM, x) {
            x.start_halfs = u->start_halfs;
            x.size_halfs = u->size_halfs;
            x.buffer = u->buffer;
         }
         w += AGX_USC_UNIFORM_LENGTH;
      }
   }
   if (p->ntextures) {
      agx_pack(w, USC_TEXTURE, x) {
         x.start = p->texture_start;
         x.count = p->ntextures;
         x.buffer = p->textures;
      }
      w += AGX_USC_TEXTURE_LENGTH;
   }
   if (p->nsamplers) {
      agx_pack(w, USC_SAMPLER, x) {
         x.start = p->sampler_start;
         x.count = p->nsamplers;
         x.buffer = p->samplers;
      }
      w += AGX_USC_SAMPLER_LENGTH;
   }
   agx_pack(w, USC_SHARED, x) {
      x.uses_shared_memory = p->tg_bytes != 0;
      x.layout = p->ib_layout ? p->ib_layout : AGX_SHARED_LAYOUT_VERTEX_COMPUTE;
      x.sample_stride_in_8_bytes = p->ib_sample_stride_8;
      x.bytes_per_threadgroup = p->tg_bytes ? p->tg_bytes : 256;
   }
   w += AGX_USC_SHARED_LENGTH;
   agx_pack(w, USC_SHADER, x) { x.code = p->shader - T_USER_VA; }
   w += AGX_USC_SHADER_LENGTH;
   if (p->register_halves) {
      agx_pack(w, USC_REGISTERS, x) { x.register_count = p->register_halves; }
      w += AGX_USC_REGISTERS_LENGTH;
   }
   if (p->preshader) {
      agx_pack(w, USC_PRESHADER, x) { x.code = p->preshader - T_USER_VA; }
   } else {
      agx_pack(w, USC_NO_PRESHADER, x) { (void)x; }
   }
   return (uint32_t)(va - T_USER_VA);
}

void
tc_stream_init(struct tc *c, unsigned vm, struct tc_stream *s, size_t cap)
{
   s->va = tc_alloc(c, vm, cap, (void **)&s->host);
   s->len = 0;
   s->cap = cap;
}

static uint8_t *
take(struct tc_stream *s, size_t n)
{
   assert_true(s->len + n <= s->cap);
   uint8_t *p = s->host + s->len;
   s->len += n;
   return p;
}

uint64_t
tc_stream_va(const struct tc_stream *s)
{
   return s->va + s->len;
}

static void
launch_head(struct tc_stream *s, uint32_t pipeline, unsigned mode)
{
   agx_pack(take(s, 4), CDM_LAUNCH_WORD_0, w) {
      w.uniform_register_count = 512;
      w.texture_state_register_count = 0;
      w.preshader_register_count = 256;
      w.mode = (enum agx_cdm_mode)mode;
   }
   agx_pack(take(s, 4), CDM_LAUNCH_WORD_1, w) { w.pipeline = pipeline; }
}

static void
local_size(struct tc_stream *s, const uint32_t local[3])
{
   agx_pack(take(s, AGX_CDM_LOCAL_SIZE_LENGTH), CDM_LOCAL_SIZE, l) {
      l.x = local[0];
      l.y = local[1];
      l.z = local[2];
   }
}

void
tc_launch(struct tc_stream *s, uint32_t pipeline, const uint32_t grid[3],
          const uint32_t local[3])
{
   launch_head(s, pipeline, AGX_CDM_MODE_DIRECT);
   agx_pack(take(s, AGX_CDM_GLOBAL_SIZE_LENGTH), CDM_GLOBAL_SIZE, g) {
      g.x = grid[0];
      g.y = grid[1];
      g.z = grid[2];
   }
   local_size(s, local);
}

void
tc_launch_indirect(struct tc_stream *s, uint32_t pipeline, unsigned mode,
                   uint64_t buffer, const uint32_t local[3])
{
   launch_head(s, pipeline, mode);
   agx_pack(take(s, AGX_CDM_INDIRECT_LENGTH), CDM_INDIRECT, i) {
      i.address_hi = (uint32_t)(buffer >> 32);
      i.address_lo = (uint32_t)buffer;
   }
   if (mode == AGX_CDM_MODE_INDIRECT_GLOBAL)
      local_size(s, local);
}

void
tc_barrier(struct tc_stream *s, bool usc_inval, bool returns)
{
   agx_pack(take(s, AGX_CDM_BARRIER_LENGTH), CDM_BARRIER, b) {
      b.usc_cache_inval = usc_inval;
      b.returns = returns;
   }
}

void
tc_link(struct tc_stream *s, uint64_t target, bool call)
{
   agx_pack(take(s, AGX_CDM_STREAM_LINK_LENGTH), CDM_STREAM_LINK, l) {
      l.target_hi = (uint32_t)(target >> 32);
      l.target_lo = (uint32_t)target;
      l.with_return = call;
   }
}

void
tc_terminate(struct tc_stream *s)
{
   agx_pack(take(s, AGX_CDM_STREAM_TERMINATE_LENGTH), CDM_STREAM_TERMINATE, t) {
      (void)t;
   }
}

uint64_t
tc_job(struct tc *c, unsigned vm, uint64_t stream_va)
{
   struct tc_vm *v = &c->vm[vm];
   uint64_t *ts = &v->ts;
   t_kalloc(&c->t, 16, ts);
   v->stamp_value += HW_FW_STAMP_INCREMENT;
   struct t_job_opts o = {
      .tag = AGX_FW_COMMAND_RUN_COMPUTE,
      .vm_slot = v->slot,
      .event_slot = v->q.event_slot,
      .job_id = v->stamp_value,
      .stamp = v->stamp_va,
      .stamp_value = v->stamp_value,
      .ts_start = *ts,
      .ts_end = *ts + 8,
   };
   uint64_t job = t_run_job(&c->t, &o);
   struct agx_fw_job_header h;
   assert_true(agx_fw_job_header_unpack(t_kva_host(&c->t, job), &h));
   agx_pack(t_kva_host(&c->t, h.payload), FW_COMPUTE_PAYLOAD, p) {
      p.cdm_stream_base = stream_va;
      p.cdm_stream_end = stream_va + 4096;
      p.usc_base = T_USER_VA;
   }
   return job;
}

void
tc_wait(struct tc *c, unsigned vm, struct tc_result *r)
{
   memset(r, 0, sizeof(*r));
   for (;;) {
      uint8_t msg[HW_FW_EVENT_MSG_SIZE];
      assert_true(t_next_event(&c->t, msg, 20000));
      enum agx_fw_event type = t_event_type(msg);
      if (type == AGX_FW_EVENT_FLAG) {
         struct agx_fw_event_flag f;
         assert_true(agx_fw_event_flag_unpack(msg, &f));
         unsigned slot = c->vm[vm].q.event_slot;
         uint32_t bits[4] = { f.firing_0, f.firing_1, f.firing_2, f.firing_3 };
         if (bits[slot / 32] & (1u << (slot % 32)))
            break;
         continue;   /* another VM's completion */
      }
      /* Fault, Timeout and Job Error share their first eight words, so
       * the Fault layout finds the VM slot of any of them. */
      struct agx_fw_event_fault e;
      bool is_fault = agx_fw_event_fault_unpack(msg, &e);
      assert_true(is_fault || type != AGX_FW_EVENT_FAULT);
      if (e.vm_slot != c->vm[vm].slot)
         continue;
      r->error = true;
      r->type = type;
      memcpy(r->msg, msg, sizeof(msg));
   }
   uint64_t *ts = t_kva_host(&c->t, c->vm[vm].ts);
   r->t0 = __atomic_load_n(&ts[0], __ATOMIC_ACQUIRE);
   r->t1 = __atomic_load_n(&ts[1], __ATOMIC_ACQUIRE);
   assert_int_equal(t_load32(&c->t, c->vm[vm].stamp_va), c->vm[vm].stamp_value);
}

void
tc_run(struct tc *c, unsigned vm, uint64_t stream_va, struct tc_result *r)
{
   /* A job starts on a timestamp clock edge (hw_fw_job.c): start the
    * measurement there, so r->cycles is the job's own work. */
   hw_device_align_cycles(c->t.dev, HW_CYCLES_PER_4_TICKS);
   uint64_t before = hw_device_gpu_cycles(c->t.dev);
   uint64_t job = tc_job(c, vm, stream_va);
   t_submit(&c->t, &c->vm[vm].q, job);
   tc_wait(c, vm, r);
   r->cycles = hw_device_gpu_cycles(c->t.dev) - before;
}

void
tc_run1(struct tc *c, unsigned vm, uint32_t pipeline, const uint32_t grid[3],
        const uint32_t local[3], struct tc_result *r)
{
   struct tc_stream s;
   tc_stream_init(c, vm, &s, 256);
   tc_launch(&s, pipeline, grid, local);
   tc_terminate(&s);
   tc_run(c, vm, s.va, r);
}

void
tc_fault(const struct tc_result *r, struct agx_fw_event_fault *f,
         struct agx_fault_info *info)
{
   assert_true(r->error);
   assert_int_equal(r->type, AGX_FW_EVENT_FAULT);
   assert_true(agx_fw_event_fault_unpack(r->msg, f));
   assert_true(agx_fault_info_unpack(&f->fault_info, info));
}
