/* SPDX-License-Identifier: MIT */
/*
 * Random bytes as shader code, run as one workgroup on the real memory
 * system (a small device, one VM with four mapped pages) with a small
 * instruction budget: whatever the code does, the interpreter must return
 * a status, never crash, hang or read outside its buffers.
 *
 * Input: byte 0 = threads in x - 1 (mod 64), byte 1 = threads in y - 1
 * (mod 4), byte 2 bit 0 = strict waits; the rest is the code.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hw/hw_device.h"
#include "hw/hw_uat.h"
#include "hw/usc/hw_usc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BUF_VA 0x1000000ull
#define BUF_PAGES 4
#define CODE_VA 0x2000000ull

static struct hw_device *dev;
static uint8_t *buf;

static bool
init(void)
{
   struct hw_device_config cfg = { .mem_size = 16ull << 20 };
   dev = hw_device_create(&cfg);
   if (!dev)
      return false;
   uint64_t ttbat = hw_phys_alloc(dev, 1);
   uint64_t ttb = hw_uat_table_alloc(dev);
   uint64_t pa = hw_phys_alloc(dev, BUF_PAGES);
   if (!ttbat || !ttb || !pa || hw_uat_set_ttbat(dev, ttbat) ||
       hw_uat_set_context(dev, 1, ttb, 0) ||
       hw_uat_map(dev, ttb, BUF_VA, pa, BUF_PAGES * HW_PAGE_SIZE,
                  HW_UAT_READ | HW_UAT_WRITE))
      return false;
   buf = hw_phys_to_host(dev, pa, BUF_PAGES * HW_PAGE_SIZE);
   return buf != NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   static uint8_t tg_mem[4096];
   static uint8_t stack[64 * 4 * 64];
   if (!dev && !init())
      abort();
   if (size < 4 || size > 4096 + 3)
      return 0;

   char err[160];
   struct hw_usc_shader *sh = hw_usc_compile(data + 3, size - 3, CODE_VA, err,
                                             sizeof(err));
   if (!sh)
      return 0;

   memset(buf, 0, BUF_PAGES * HW_PAGE_SIZE);
   memset(tg_mem, 0, sizeof(tg_mem));
   hw_device_clear_fault_info(dev);
   uint32_t uniforms[HW_USC_NUM_UNIFORMS] = { 0 };
   for (unsigned i = 0; i < HW_USC_NUM_UNIFORMS; i += 2) {
      uniforms[i] = (uint32_t)BUF_VA;   /* every pair is a usable pointer */
      uniforms[i + 1] = 0;
   }
   uint32_t tx = (data[0] & 63) + 1, ty = (data[1] & 3) + 1;
   struct hw_usc_launch L = {
      .shader = sh,
      .uniforms = uniforms,
      .gpr_count = HW_USC_NUM_GPRS,
      .threads_per_threadgroup = { tx, ty, 1 },
      .grid_size = { tx * 3, ty, 1 },
      .vm_slot = 1,
      .instruction_budget = 2000,
      .flags = (data[2] & 1) ? HW_USC_STRICT_WAIT : 0,
   };
   struct hw_usc_workgroup wg = {
      .threadgroup_position = { 1, 0, 0 },
      .threadgroup_mem = tg_mem,
      .threadgroup_mem_size = sizeof(tg_mem),
      .stack = stack,
      .stack_bytes_per_thread = 64,
   };
   /* an edge workgroup now and then */
   if (data[2] & 2)
      wg.threads[0] = tx > 1 ? tx - 1 : 1, wg.threads[1] = ty, wg.threads[2] = 1;
   struct hw_mmu mmu;
   hw_mmu_init(&mmu, dev, 1, HW_UNIT_USC);
   hw_mmu_begin_job(&mmu);
   struct hw_usc_stats st = { 0 };
   struct hw_usc_result res;
   enum hw_usc_status rc = hw_usc_run_workgroup(&L, &wg, &mmu, &st, &res);
   if (rc == HW_USC_OK && st.instructions > 2000 + 64)
      abort();   /* the budget did not hold */
   uint32_t pre[HW_USC_NUM_UNIFORMS];
   memcpy(pre, uniforms, sizeof(pre));
   hw_usc_run_preshader(&L, pre, &mmu, NULL, &res);
   hw_usc_shader_free(sh);
   return 0;
}
