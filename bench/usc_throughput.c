/* SPDX-License-Identifier: MIT */
/*
 * usc_throughput: interpreter throughput of the GPU model's compute path,
 * in lane-instructions per second (SIMD-group instructions x 32 active
 * lanes), on an ALU-heavy and a memory-heavy kernel, with one host worker
 * and with all of them.  Jobs go straight to the compute executor
 * (hw_cdm_execute) with a hand-built job: the firmware's rings would only
 * add a constant.  Prints the scaling ratio; see bench/README.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmdstream/agx_pack.h"
#include "cmdstream/isa/agx_isa.h"
#include "hw/cdm/cdm.h"
#include "hw/cdm/hw_dispatch.h"
#include "hw/hw_uat.h"

#define VA 0x100000000ull
#define PAGES 1024           /* 16 MiB */
#define SLOT 1

static const char alu_kernel[] =
   "get_sr r1, sr80\n"
   "convert u32_to_f, r2, r1, rte\n"
   "mov_imm r4, 0, 0b0\n"
   "top:\n"
   "fmadd32 r2, r2, 0.5, 1.0\n"
   "fmadd32 r2, r2, 0.5, 1.0\n"
   "fmadd32 r2, r2, 0.5, 1.0\n"
   "fmadd32 r2, r2, 0.5, 1.0\n"
   "fmul32 r2, r2, 1.0\n"
   "fadd32 r2, r2, 0.0\n"
   "iadd r4, r4, 1\n"
   "while_icmp r0l, ult, r4, 64, 1\n"
   "jmp_exec_any pc+top\n"
   "pop_exec r0l, 1\n"
   "device_store 0, i32, x, r2, u0_u1, r1, unsigned, 0\n"
   "stop\n";

static const char mem_kernel[] =
   "get_sr r1, sr80\n"
   "mov_imm r4, 0, 0b0\n"
   "top:\n"
   "device_load 0, i32, x, r2, u0_u1, r1, unsigned\n"
   "wait 0\n"
   "device_store 0, i32, x, r2, u2_u3, r1, unsigned, 0\n"
   "iadd r1, r1, u4\n"
   "iadd r4, r4, 1\n"
   "while_icmp r0l, ult, r4, 8, 1\n"
   "jmp_exec_any pc+top\n"
   "pop_exec r0l, 1\n"
   "stop\n";

struct ctx {
   struct hw_device *dev;
   uint8_t *mem;
   uint64_t used;
};

static uint64_t
alloc(struct ctx *c, size_t size, uint8_t **host)
{
   uint64_t off = (c->used + 63) & ~63ull;
   if (off + size > PAGES * HW_PAGE_SIZE) {
      fprintf(stderr, "usc_throughput: out of GPU memory\n");
      exit(2);
   }
   c->used = off + size;
   *host = c->mem + off;
   return VA + off;
}

/* Assembles the kernel, writes its pipeline and a one-launch stream;
 * returns the stream's VA. */
static uint64_t
build(struct ctx *c, const char *src, const uint32_t *u, unsigned nu,
      uint32_t threads, uint32_t local)
{
   uint8_t code[4096], *p;
   size_t len;
   char err[160];
   if (!agx_isa_assemble(src, strlen(src), code, sizeof(code), &len, err, sizeof(err))) {
      fprintf(stderr, "usc_throughput: %s\n", err);
      exit(2);
   }
   uint64_t code_va = alloc(c, len, &p);
   memcpy(p, code, len);
   uint64_t ub = alloc(c, 4 * nu, &p);
   memcpy(p, u, 4 * nu);
   uint64_t pipe = alloc(c, 64, &p);
   agx_pack(p, USC_UNIFORM, w) {
      w.start_halfs = 0;
      w.size_halfs = 2 * nu;
      w.buffer = ub;
   }
   p += AGX_USC_UNIFORM_LENGTH;
   agx_pack(p, USC_SHADER, w) { w.code = code_va - VA; }
   p += AGX_USC_SHADER_LENGTH;
   agx_pack(p, USC_REGISTERS, w) { w.register_count = 16; }
   p += AGX_USC_REGISTERS_LENGTH;
   agx_pack(p, USC_NO_PRESHADER, w) { (void)w; }

   uint64_t s = alloc(c, 64, &p);
   agx_pack(p, CDM_LAUNCH_WORD_0, w) { w.mode = AGX_CDM_MODE_DIRECT; }
   agx_pack(p + 4, CDM_LAUNCH_WORD_1, w) { w.pipeline = pipe - VA; }
   agx_pack(p + 8, CDM_GLOBAL_SIZE, g) { g.x = threads; g.y = 1; g.z = 1; }
   agx_pack(p + 20, CDM_LOCAL_SIZE, l) { l.x = local; l.y = 1; l.z = 1; }
   agx_pack(p + 32, CDM_STREAM_TERMINATE, t) { (void)t; }
   return s;
}

static double
now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Lane-instructions per second of repeated runs of the stream. */
static double
measure(struct ctx *c, unsigned threads, uint64_t stream, uint64_t *gpu_cycles)
{
   struct hw_cdm_config cfg = { .threads = threads };
   struct hw_cdm *cdm = hw_cdm_create(c->dev, &cfg);
   if (!cdm) {
      fprintf(stderr, "usc_throughput: cannot create the compute unit\n");
      exit(2);
   }
   struct agx_fw_compute_payload pl = {
      .cdm_stream_base = stream, .cdm_stream_end = stream + 64, .usc_base = VA,
   };
   struct hw_exec_job job = {
      .dev = c->dev, .tag = AGX_FW_COMMAND_RUN_COMPUTE, .vm_slot = SLOT,
      .compute = &pl, .cycle_budget = UINT64_MAX / 8, .deadline_ns = UINT64_MAX,
   };
   uint64_t lanes = 0;
   double t0 = now(), t;
   do {
      struct hw_exec_result res;
      hw_cdm_execute(cdm, &job, &res);
      if (res.status != HW_EXEC_OK) {
         fprintf(stderr, "usc_throughput: job failed (%d): %s\n", res.status,
                 res.message);
         exit(1);
      }
      struct hw_cdm_stats st;
      hw_cdm_last_stats(cdm, &st);
      lanes += st.usc.instructions * HW_USC_SIMD_WIDTH;
      *gpu_cycles = st.cycles;
      t = now() - t0;
   } while (t < 0.4);
   hw_cdm_destroy(cdm);
   return (double)lanes / t;
}

int
main(void)
{
   struct hw_device_config dc = { .mem_size = 64ull << 20 };
   struct ctx c = { .dev = hw_device_create(&dc) };
   if (!c.dev) {
      fprintf(stderr, "usc_throughput: cannot create the device\n");
      return 2;
   }
   uint64_t ttbat = hw_phys_alloc(c.dev, 1), ttb = hw_uat_table_alloc(c.dev);
   uint64_t pa = hw_phys_alloc(c.dev, PAGES);
   if (!ttbat || !ttb || !pa || hw_uat_set_ttbat(c.dev, ttbat) ||
       hw_uat_set_context(c.dev, SLOT, ttb, 0) ||
       hw_uat_map(c.dev, ttb, VA, pa, PAGES * HW_PAGE_SIZE, HW_UAT_READ | HW_UAT_WRITE)) {
      fprintf(stderr, "usc_throughput: cannot map memory\n");
      return 2;
   }
   c.mem = hw_phys_to_host(c.dev, pa, PAGES * HW_PAGE_SIZE);

   enum { ALU_THREADS = 16384, MEM_THREADS = 65536 };
   uint8_t *p;
   uint64_t out = alloc(&c, ALU_THREADS * 4, &p);
   uint32_t ua[2] = { (uint32_t)out, (uint32_t)(out >> 32) };
   uint64_t alu = build(&c, alu_kernel, ua, 2, ALU_THREADS, 256);
   uint64_t in = alloc(&c, MEM_THREADS * 8 * 4, &p);
   uint64_t dst = alloc(&c, MEM_THREADS * 8 * 4, &p);
   uint32_t um[5] = { (uint32_t)in, (uint32_t)(in >> 32), (uint32_t)dst,
                      (uint32_t)(dst >> 32), MEM_THREADS };
   uint64_t mem = build(&c, mem_kernel, um, 5, MEM_THREADS, 256);

   unsigned all = hw_dispatch_default_threads();
   printf("usc_throughput: lane-instructions per second (%u host threads available)\n", all);
   printf("%-12s %14s %14s %8s %14s\n", "kernel", "1 thread", "all threads", "ratio",
          "GPU cycles");
   const struct { const char *name; uint64_t stream; } k[] = {
      { "alu-heavy", alu }, { "memory-heavy", mem },
   };
   for (unsigned i = 0; i < 2; i++) {
      uint64_t cyc1, cycn;
      double one = measure(&c, 1, k[i].stream, &cyc1);
      double n = measure(&c, all, k[i].stream, &cycn);
      printf("%-12s %14.3e %14.3e %8.2f %14" PRIu64 "%s\n", k[i].name, one, n,
             n / one, cyc1, cyc1 == cycn ? "" : "  (MISMATCH)");
      if (cyc1 != cycn)
         return 1;
   }
   hw_device_destroy(c.dev);
   return 0;
}
