/* SPDX-License-Identifier: MIT */
/*
 * Random VDM streams, PPP records, USC words and shaders driven through
 * the render core's vertex and fragment executors (called directly, no
 * firmware) on a small device with small budgets: whatever the memory
 * holds, the executors must return a status, never crash or hang.
 *
 * Input: byte 0 = width - 1 (mod 64), byte 1 = height - 1 (mod 64),
 * byte 2 = samples (bits 0-1: 1, 2, 4) and tile size (bits 2-3: 32x32,
 * 32x16, 16x16), bytes 3-4 = background program offset, bytes 5-6 =
 * end-of-tile program offset, byte 7 = TVB heap size in KiB / 4 (0 = 4 KiB);
 * the rest is copied to the start of memory, which is the VDM stream
 * and the USC base.
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "hw/hw_device.h"
#include "hw/hw_uat.h"
#include "hw/render/hw_render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MEM_VA 0x1000000ull
#define DATA_PAGES 4
#define TVB_PAGES 4
#define TILEMAP_BYTES 4096
#define MEM_PAGES (DATA_PAGES + TVB_PAGES)

static struct hw_device *dev;
static struct hw_render *render;
static uint8_t *mem;

static bool
init(void)
{
   struct hw_device_config cfg = { .mem_size = 16ull << 20 };
   dev = hw_device_create(&cfg);
   if (!dev)
      return false;
   uint64_t ttbat = hw_phys_alloc(dev, 1);
   uint64_t ttb = hw_uat_table_alloc(dev);
   uint64_t pa = hw_phys_alloc(dev, MEM_PAGES);
   if (!ttbat || !ttb || !pa || hw_uat_set_ttbat(dev, ttbat) ||
       hw_uat_set_context(dev, 1, ttb, 0) ||
       hw_uat_map(dev, ttb, MEM_VA, pa, MEM_PAGES * HW_PAGE_SIZE,
                  HW_UAT_READ | HW_UAT_WRITE))
      return false;
   mem = hw_phys_to_host(dev, pa, MEM_PAGES * HW_PAGE_SIZE);
   /* One host thread: a fuzzer wants reproducible, cheap runs. */
   struct hw_render_config rc = { .threads = 1, .instruction_budget = 2048 };
   render = hw_render_create(dev, &rc);
   return mem && render;
}

static uint64_t
now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   static bool ready;
   if (!ready) {
      if (!init())
         return 0;
      ready = true;
   }
   if (size < 8)
      return 0;
   memset(mem, 0, MEM_PAGES * HW_PAGE_SIZE);
   size_t n = size - 8 < DATA_PAGES * HW_PAGE_SIZE ? size - 8 : DATA_PAGES * HW_PAGE_SIZE;
   memcpy(mem, data + 8, n);
   hw_device_clear_fault_info(dev);

   static const unsigned samples[4] = { 1, 2, 4, 1 };
   static const unsigned tiles[4][2] = { { 32, 32 }, { 32, 16 }, { 16, 16 }, { 32, 32 } };
   uint32_t heap = (data[7] ? data[7] : 1) * 4096u;
   uint32_t heap_max = TVB_PAGES * HW_PAGE_SIZE - TILEMAP_BYTES;
   struct agx_fw_render_payload pl = {
      .vdm_stream_base = MEM_VA,
      .usc_base = MEM_VA,
      .width = 1u + data[0] % 64, .height = 1u + data[1] % 64,
      .layers = 1u + (data[2] >> 4) % 4,   /* layered passes too */
      .samples = samples[data[2] & 3], .sample_size = 8,
      .utile_width = tiles[data[2] >> 2 & 3][0], .utile_height = tiles[data[2] >> 2 & 3][1],
      .bg_usc = (uint32_t)(data[3] | data[4] << 8), .eot_usc = (uint32_t)(data[5] | data[6] << 8),
      .partial_bg_usc = (uint32_t)(data[3] | data[4] << 8),
      .partial_eot_usc = (uint32_t)(data[5] | data[6] << 8),
      .tvb_heap = MEM_VA + DATA_PAGES * HW_PAGE_SIZE,
      .tvb_heap_size = heap < heap_max ? heap : heap_max,
      .tvb_tilemap = MEM_VA + MEM_PAGES * HW_PAGE_SIZE - TILEMAP_BYTES,
      .tvb_tilemap_size = TILEMAP_BYTES,
      .frame = 1,
      .isp_scissor_base = MEM_VA, .isp_dbias_base = MEM_VA, .isp_oclqry_base = MEM_VA,
   };
   struct hw_exec_job job = {
      .dev = dev, .vm_slot = 1, .render = &pl, .job_id = 1,
      .tag = AGX_FW_COMMAND_RUN_VERTEX,
      .cycle_budget = 1ull << 30,
      .deadline_ns = now_ns() + 2000000000ull,
   };
   struct hw_exec_result res;
   memset(&res, 0, sizeof(res));
   hw_render_execute(render, &job, &res);
   if (res.status == HW_EXEC_OK) {
      job.tag = AGX_FW_COMMAND_RUN_FRAGMENT;
      memset(&res, 0, sizeof(res));
      hw_render_execute(render, &job, &res);
   }
   return 0;
}
