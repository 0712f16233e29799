/*
 * trace_mktest: writes a small but complete trace for the integration
 * tests, the fuzz seeds and manual experiments.
 *
 *   trace_mktest OUT.tsr IMAGE_DIR [--frames N] [--no-index] [--cut BYTES]
 *
 * IMAGE_DIR holds image_lo.bin (8 KiB at 0x1500000000, which is also the
 * USC base) and image_hi.bin (4 KiB at 0x1500002000, a CDM stream), the
 * memory image of tests/data/decode. Every record type appears; frames
 * after the first repeat the same memory, so they must cost almost nothing.
 * --raw stores chunks uncompressed (fuzz seeds); --no-index stops after
 * the data (as if the writer died); --cut truncates.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdstream/agx_fw_pack.h"
#include "trace/trace.h"

#define USC_BASE 0x1500000000ull
#define CDM_VA 0x1500002000ull

static void *slurp(const char *dir, const char *name, size_t *size)
{
   char path[4096];
   snprintf(path, sizeof(path), "%s/%s", dir, name);
   FILE *f = fopen(path, "rb");
   if (!f)
      return NULL;
   void *buf = malloc(1 << 16);
   *size = buf ? fread(buf, 1, 1 << 16, f) : 0;
   fclose(f);
   return buf;
}

static int check(int err, const char *what)
{
   if (err)
      fprintf(stderr, "trace_mktest: %s: %s\n", what, strerror(-err));
   return err;
}

int main(int argc, char **argv)
{
   if (argc < 3) {
      fprintf(stderr, "usage: trace_mktest OUT.tsr IMAGE_DIR [--frames N] [--no-index] "
                      "[--cut BYTES]\n");
      return 2;
   }
   unsigned frames = 3;
   bool no_index = false, raw = false;
   long cut = -1;
   for (int i = 3; i < argc; i++) {
      if (!strcmp(argv[i], "--frames") && i + 1 < argc)
         frames = (unsigned)atoi(argv[++i]);
      else if (!strcmp(argv[i], "--raw"))
         raw = true;
      else if (!strcmp(argv[i], "--no-index"))
         no_index = true;
      else if (!strcmp(argv[i], "--cut") && i + 1 < argc)
         cut = atol(argv[++i]);
      else {
         fprintf(stderr, "trace_mktest: unknown argument %s\n", argv[i]);
         return 2;
      }
   }
   size_t lo_size, hi_size;
   uint8_t *lo = slurp(argv[2], "image_lo.bin", &lo_size);
   uint8_t *hi = slurp(argv[2], "image_hi.bin", &hi_size);
   if (!lo || !hi || lo_size != 8192 || hi_size != 4096) {
      fprintf(stderr, "trace_mktest: %s: image_lo.bin/image_hi.bin missing or wrong size\n",
              argv[2]);
      return 2;
   }

   struct tsr_writer *w;
   struct tsr_writer_options opts = {.chunk_bytes = 16384, .store_raw = raw};
   if (check(tsr_writer_open(&w, argv[1], &opts), argv[1]))
      return 2;

   tsr_write_meta(w, "program", "trace_mktest");
   tsr_write_meta(w, "args", "trace_mktest\nout.tsr");
   tsr_write_meta(w, "pid", "4242");
   tsr_write_meta(w, "host", "testhost");
   tsr_write_meta(w, "time", "2026-01-01T00:00:00Z");
   tsr_write_driver(w, 0, &(struct tsr_driver){1, 0, 0, "asahi", "20250101", "Apple AGX"});
   struct drm_asahi_params_global p = {
      .gpu_generation = 13, .gpu_variant = 'G', .gpu_revision = 0x00, .chip_id = 0x8103,
      .num_dies = 1, .num_clusters_total = 1, .num_cores_per_cluster = 8,
      .max_frequency_khz = 1278000, .vm_start = 0x4000, .vm_end = 1ull << 39,
      .vm_kernel_min_size = 256ull << 20, .max_commands_per_submission = 64,
      .max_attachments = 16, .command_timestamp_frequency_hz = 24000000,
   };
   p.core_masks[0] = 0xff;
   tsr_write_device_params(w, 0, &p, sizeof(p));
   tsr_write_vm_create(w, 0, &(struct tsr_vm_create){1, 0x7000000000ull, 0x7010000000ull});
   tsr_write_gem_create(w, 0, &(struct tsr_gem_create){1, 0, 0, 8192});
   tsr_write_gem_create(w, 0, &(struct tsr_gem_create){2, 0, 0, 4096});
   tsr_write_gem_create(w, 0, &(struct tsr_gem_create){3, DRM_ASAHI_GEM_WRITEBACK, 0, 16384});
   struct drm_asahi_gem_bind_op ops[2] = {
      {DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE, 1, 0, 8192, USC_BASE},
      {DRM_ASAHI_BIND_READ, 2, 0, 4096, CDM_VA},
   };
   tsr_write_vm_bind(w, 0, &(struct tsr_vm_bind){1, 2, ops, 0});
   tsr_write_bind_object(w, 0, &(struct tsr_bind_object){
      DRM_ASAHI_BIND_OBJECT_OP_BIND, DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS, 3, 1, 0, 16384});
   tsr_write_queue_create(w, 0, &(struct tsr_queue_create){1, 1, DRM_ASAHI_PRIORITY_MEDIUM, 0,
                                                             USC_BASE});

   for (unsigned f = 0; f < frames; f++) {
      check(tsr_write_memory(w, 0, 1, 0, lo, 8192), "memory");
      check(tsr_write_memory(w, 0, 2, 0, hi, 4096), "memory");

      struct {
         struct drm_asahi_cmd_header h;
         struct drm_asahi_cmd_compute c;
      } cmd = {
         {DRM_ASAHI_CMD_COMPUTE, sizeof(struct drm_asahi_cmd_compute), DRM_ASAHI_BARRIER_NONE, 0},
         {.cdm_ctrl_stream_base = CDM_VA, .cdm_ctrl_stream_end = CDM_VA + 4096,
          .ts = {{1, 0}, {1, 8}}},
      };
      struct drm_asahi_sync syncs[2] = {{DRM_ASAHI_SYNC_SYNCOBJ, 5, 0},
                                        {DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ, 6, f + 1}};
      uint32_t seq;
      check(tsr_write_submit(w, 0, &(struct tsr_submit){1, 0, f ? 1 : 0, 1, f ? syncs : syncs + 1,
                                                        sizeof(cmd), (const uint8_t *)&cmd, 0,
                                                        1000000ull * (f + 1)},
                             &seq), "submit");

      uint8_t header[AGX_FW_JOB_HEADER_LENGTH], payload[AGX_FW_COMPUTE_PAYLOAD_LENGTH];
      uint8_t script[AGX_FW_OP_START_LENGTH + AGX_FW_OP_FINALIZE_LENGTH];
      agx_fw_job_header_pack(header, &(struct agx_fw_job_header){
         .tag = AGX_FW_COMMAND_RUN_COMPUTE, .vm_slot = 1, .event_slot = 0, .job_id = seq,
         .stamp = 0xffffffa000001000ull, .stamp_value = 0x100 * (seq + 1),
         .script = 0xffffffa000002000ull, .script_size = sizeof(script),
         .payload = 0xffffffa000003000ull});
      agx_fw_op_start_pack(script, &(struct agx_fw_op_start){0});
      agx_fw_op_finalize_pack(script + AGX_FW_OP_START_LENGTH, &(struct agx_fw_op_finalize){0});
      agx_fw_compute_payload_pack(payload, &(struct agx_fw_compute_payload){
         .cdm_stream_base = CDM_VA, .cdm_stream_end = CDM_VA + 4096, .usc_base = USC_BASE});
      check(tsr_write_fw_job(w, 0, &(struct tsr_fw_job){
         seq, 1, AGX_FW_PIPE_COMPUTE, 1, 0xffffffa000000000ull, 0xffffffa000003000ull,
         sizeof(header), sizeof(script), sizeof(payload), header, script, payload}), "fw_job");
      check(tsr_write_shader(w, 0, &(struct tsr_shader){seq, TSR_STAGE_COMPUTE, USC_BASE,
                                                         USC_BASE + 0x1000, 8,
                                                         tsr_hash_bytes(lo + 0x1000, 8)}),
            "shader");
      struct tsr_timestamp_value ts[2] = {{3, 0, 1000 + 100 * f}, {3, 8, 1050 + 100 * f}};
      check(tsr_write_completion(w, 0, &(struct tsr_completion){seq, 0, 1500000ull * (f + 1), 2, ts}),
            "completion");
      check(tsr_write_frame(w, 1, "present"), "frame");
   }
   tsr_write_queue_destroy(w, 0, 1);
   tsr_write_gem_close(w, 0, 3);
   tsr_write_vm_destroy(w, 0, 1);

   int err;
   if (no_index) {
      err = tsr_writer_flush(w);
      /* Simulate a writer that died: truncate off what close() would add. */
      char *path = argv[1];
      FILE *f = fopen(path, "rb");
      long size = -1;
      if (f && !fseek(f, 0, SEEK_END))
         size = ftell(f);
      if (f)
         fclose(f);
      tsr_writer_close(w);
      if (size >= 0 && truncate(path, size))
         err = -errno;
   } else {
      err = tsr_writer_close(w);
   }
   if (!err && cut >= 0 && truncate(argv[1], cut))
      err = -errno;
   free(lo);
   free(hi);
   return check(err, argv[1]) ? 1 : 0;
}
