/* SPDX-License-Identifier: MIT */
/*
 * The trace library: round trip of every record type, content-addressed
 * memory (dedup, changed runs only), seeking, truncation at every chunk
 * boundary and mid-chunk, corruption caught by checksums, a write failure
 * (RLIMIT_FSIZE in a child) leaving a valid truncated trace, version and
 * garbage rejection, child-trace naming, the page hash's dispatched
 * (AVX2) build against the baseline one.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <xxhash.h>
#include <zstd.h>

#include "trace/trace.h"
#include "trace/trace_hash_x86.h"
#include "trace/trace_priv.h"

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
   static char buf[4][256];
   static int i;
   i = (i + 1) % 4;
   snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
   return buf[i];
}

static uint8_t *read_file(const char *path, size_t *size)
{
   FILE *f = fopen(path, "rb");
   assert_non_null(f);
   fseek(f, 0, SEEK_END);
   long n = ftell(f);
   fseek(f, 0, SEEK_SET);
   uint8_t *buf = malloc((size_t)n + 1);
   assert_non_null(buf);
   assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
   fclose(f);
   *size = (size_t)n;
   return buf;
}

/* Deterministic page contents: page `tag` of the test. */
static void fill(uint8_t *p, size_t n, uint32_t tag)
{
   uint32_t x = tag * 2654435761u + 1;
   for (size_t i = 0; i < n; i++) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      p[i] = (uint8_t)x;
   }
}

static const struct drm_asahi_gem_bind_op g_ops[2] = {
   {DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE, 1, 0, 0x4000, 0x1000000},
   {DRM_ASAHI_BIND_UNBIND, 0, 0, 0x4000, 0x2000000},
};
static const struct drm_asahi_sync g_syncs[3] = {
   {DRM_ASAHI_SYNC_SYNCOBJ, 7, 0}, {DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ, 8, 42}, {0, 9, 0}};
static const uint8_t g_cmdbuf[24] = {1, 0, 16, 0, 0xff, 0xff, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8,
                                     9, 10, 11, 12, 13, 14, 15, 16};
static const struct tsr_timestamp_value g_ts[2] = {{3, 0, 111}, {3, 8, 222}};
static const uint8_t g_hdr[64] = {4, 1, 2}, g_script[16] = {0x20}, g_payload[16] = {9, 9};

/* Writes one of every record type. */
static void write_all_records(struct tsr_writer *w, uint8_t *mem)
{
   assert_int_equal(tsr_write_meta(w, "program", "unit test"), 0);
   assert_int_equal(tsr_write_driver(w, 2, &(struct tsr_driver){1, 2, 3, "asahi", "d", "x"}), 0);
   struct drm_asahi_params_global p = {.gpu_generation = 13, .chip_id = 0x8103,
                                       .command_timestamp_frequency_hz = 24000000};
   /* An older, shorter image must come back zero-extended. */
   assert_int_equal(tsr_write_device_params(w, 2, &p, 24), 0);
   assert_int_equal(tsr_write_vm_create(w, 2, &(struct tsr_vm_create){5, 0x100000000, 0x200000000}), 0);
   assert_int_equal(tsr_write_gem_create(w, 2, &(struct tsr_gem_create){1, 1, 0, 0x4000}), 0);
   assert_int_equal(tsr_write_vm_bind(w, 2, &(struct tsr_vm_bind){5, 2, g_ops, 0}), 0);
   assert_int_equal(tsr_write_bind_object(w, 2, &(struct tsr_bind_object){0, 1, 1, 77, 0x1000, 0x2000}), 0);
   assert_int_equal(tsr_write_queue_create(w, 2, &(struct tsr_queue_create){3, 5, 1, 0, 0x1000000}), 0);
   fill(mem, 0x4000, 1);
   assert_int_equal(tsr_write_memory(w, 2, 1, 0, mem, 0x4000), 0);
   uint32_t seq = 99;
   assert_int_equal(tsr_write_submit(w, 2, &(struct tsr_submit){3, 0, 2, 1, g_syncs, sizeof(g_cmdbuf),
                                                                g_cmdbuf, -22, 12345},
                                     &seq), 0);
   assert_int_equal(seq, 0);
   assert_int_equal(tsr_write_completion(w, 2, &(struct tsr_completion){0, -5, 555, 2, g_ts}), 0);
   assert_int_equal(tsr_write_fw_job(w, 2, &(struct tsr_fw_job){0, 3, 2, 1, 0xffffffa000000000,
                                                                0xffffffa000001000, 64, 16, 16,
                                                                g_hdr, g_script, g_payload}), 0);
   struct tsr_shader sh = {0, TSR_STAGE_FRAGMENT, 0x1000000, 0x1000100, 64,
                           tsr_hash_bytes(mem + 0x100, 64)};
   assert_int_equal(tsr_write_shader(w, 2, &sh), 0);
   assert_int_equal(tsr_write_shader(w, 2, &sh), 0); /* deduplicated */
   assert_int_equal(tsr_write_frame(w, 1, "swap"), 0);
   assert_int_equal(tsr_write_gem_close(w, 2, 1), 0);
   assert_int_equal(tsr_write_queue_destroy(w, 2, 3), 0);
   assert_int_equal(tsr_write_vm_destroy(w, 2, 5), 0);
}

static void test_round_trip(void **state)
{
   (void)state;
   uint8_t mem[0x4000];
   struct tsr_writer *w;
   const char *path = tmp_path("all.tsr");
   assert_int_equal(tsr_writer_open(&w, path, NULL), 0);
   write_all_records(w, mem);
   assert_int_equal(tsr_writer_close(w), 0);

   struct tsr_reader *r;
   char err[256];
   assert_int_equal(tsr_reader_open(&r, path, err, sizeof(err)), 0);
   const struct tsr_info *in = tsr_reader_info(r);
   assert_true(in->indexed);
   assert_false(in->truncated);
   assert_int_equal(in->submits, 1);
   assert_int_equal(in->frames, 1);
   assert_int_equal(in->pages, 4);
   assert_int_equal(in->records, 17);

   static const uint32_t want[] = {
      TSR_REC_META, TSR_REC_DRIVER, TSR_REC_DEVICE_PARAMS, TSR_REC_VM_CREATE, TSR_REC_GEM_CREATE,
      TSR_REC_VM_BIND, TSR_REC_BIND_OBJECT, TSR_REC_QUEUE_CREATE, TSR_REC_MEMORY, TSR_REC_SUBMIT,
      TSR_REC_COMPLETION, TSR_REC_FW_JOB, TSR_REC_SHADER, TSR_REC_FRAME, TSR_REC_GEM_CLOSE,
      TSR_REC_QUEUE_DESTROY, TSR_REC_VM_DESTROY};
   struct tsr_record rec;
   for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
      assert_int_equal(tsr_reader_next(r, &rec), 1);
      assert_int_equal(rec.type, want[i]);
      if (rec.type != TSR_REC_META && rec.type != TSR_REC_FRAME)
         assert_int_equal(rec.file, 2);
      switch (rec.type) {
      case TSR_REC_META:
         assert_string_equal(rec.u.meta.key, "program");
         assert_string_equal(rec.u.meta.value, "unit test");
         break;
      case TSR_REC_DRIVER:
         assert_int_equal(rec.u.driver.major, 1);
         assert_int_equal(rec.u.driver.patchlevel, 3);
         assert_string_equal(rec.u.driver.name, "asahi");
         assert_string_equal(rec.u.driver.desc, "x");
         break;
      case TSR_REC_DEVICE_PARAMS:
         assert_int_equal(rec.u.params.size, 24);
         assert_int_equal(rec.u.params.p->gpu_generation, 13);
         assert_int_equal(rec.u.params.p->chip_id, 0x8103);
         assert_int_equal(rec.u.params.p->command_timestamp_frequency_hz, 0); /* cut off */
         break;
      case TSR_REC_VM_CREATE:
         assert_int_equal(rec.u.vm_create.vm_id, 5);
         assert_int_equal(rec.u.vm_create.kernel_end, 0x200000000);
         break;
      case TSR_REC_GEM_CREATE:
         assert_int_equal(rec.u.gem_create.size, 0x4000);
         assert_int_equal(rec.u.gem_create.flags, 1);
         break;
      case TSR_REC_VM_BIND:
         assert_int_equal(rec.u.vm_bind.num_ops, 2);
         assert_memory_equal(rec.u.vm_bind.ops, g_ops, sizeof(g_ops));
         break;
      case TSR_REC_BIND_OBJECT:
         assert_int_equal(rec.u.bind_object.object_handle, 77);
         assert_int_equal(rec.u.bind_object.range, 0x2000);
         break;
      case TSR_REC_QUEUE_CREATE:
         assert_int_equal(rec.u.queue_create.usc_exec_base, 0x1000000);
         assert_int_equal(rec.u.queue_create.priority, 1);
         break;
      case TSR_REC_MEMORY:
         assert_int_equal(rec.u.memory.handle, 1);
         assert_int_equal(rec.u.memory.first_page, 0);
         assert_int_equal(rec.u.memory.num_pages, 4);
         break;
      case TSR_REC_SUBMIT: {
         assert_int_equal(rec.seq, 0);
         assert_int_equal(rec.u.submit.queue_id, 3);
         assert_int_equal(rec.u.submit.in_sync_count, 2);
         assert_int_equal(rec.u.submit.out_sync_count, 1);
         assert_memory_equal(rec.u.submit.syncs, g_syncs, sizeof(g_syncs));
         assert_int_equal(rec.u.submit.cmdbuf_size, sizeof(g_cmdbuf));
         assert_memory_equal(rec.u.submit.cmdbuf, g_cmdbuf, sizeof(g_cmdbuf));
         assert_int_equal(rec.u.submit.result, -22);
         assert_int_equal(rec.u.submit.cpu_time_ns, 12345);
         /* Memory as of the submission, through the VM. */
         uint8_t got[0x4000];
         assert_int_equal(tsr_reader_read_va(r, 2, 5, 0x1000000, got, sizeof(got)), sizeof(got));
         assert_memory_equal(got, mem, sizeof(got));
         assert_int_equal(tsr_reader_read_va(r, 2, 5, 0x1003ff0, got, 64), 16);
         uint32_t vm;
         uint64_t base;
         assert_true(tsr_reader_queue(r, 2, 3, &vm, &base));
         assert_int_equal(vm, 5);
         assert_int_equal(base, 0x1000000);
         break;
      }
      case TSR_REC_COMPLETION:
         assert_int_equal(rec.u.completion.status, -5);
         assert_int_equal(rec.u.completion.num_timestamps, 2);
         assert_memory_equal(rec.u.completion.timestamps, g_ts, sizeof(g_ts));
         break;
      case TSR_REC_FW_JOB:
         assert_int_equal(rec.u.fw_job.pipe, 2);
         assert_int_equal(rec.u.fw_job.payload_va, 0xffffffa000001000);
         assert_int_equal(rec.u.fw_job.header_size, 64);
         assert_memory_equal(rec.u.fw_job.header, g_hdr, 64);
         assert_memory_equal(rec.u.fw_job.script, g_script, 16);
         assert_memory_equal(rec.u.fw_job.payload, g_payload, 16);
         break;
      case TSR_REC_SHADER: {
         assert_int_equal(rec.u.shader.stage, TSR_STAGE_FRAGMENT);
         assert_int_equal(rec.u.shader.va, 0x1000100);
         struct tsr_hash h = tsr_hash_bytes(mem + 0x100, 64);
         assert_memory_equal(rec.u.shader.hash.b, h.b, 16);
         break;
      }
      case TSR_REC_FRAME:
         assert_int_equal(rec.u.frame.frame, 0);
         assert_int_equal(rec.u.frame.kind, 1);
         assert_string_equal(rec.u.frame.label, "swap");
         break;
      case TSR_REC_GEM_CLOSE:
         assert_int_equal(rec.u.handle, 1);
         assert_int_equal(rec.frame, 1);
         assert_int_equal(rec.seq, 1);
         break;
      }
   }
   assert_int_equal(tsr_reader_next(r, &rec), 0);
   assert_int_equal(tsr_reader_verify(r, stderr), 0);
   tsr_reader_close(r);
}

/* N frames, each one submission; object 1 changes one page per frame,
 * object 2 never changes. */
static void write_frames(const char *path, unsigned frames, size_t chunk_bytes)
{
   struct tsr_writer *w;
   struct tsr_writer_options o = {.chunk_bytes = chunk_bytes, .queue_chunks = 2, .zstd_level = 1};
   assert_int_equal(tsr_writer_open(&w, path, &o), 0);
   static uint8_t a[8 * 4096], b[4 * 4096];
   fill(a, sizeof(a), 100);
   fill(b, sizeof(b), 200);
   assert_int_equal(tsr_write_vm_create(w, 0, &(struct tsr_vm_create){1, 0, 0}), 0);
   assert_int_equal(tsr_write_gem_create(w, 0, &(struct tsr_gem_create){1, 0, 0, sizeof(a)}), 0);
   assert_int_equal(tsr_write_gem_create(w, 0, &(struct tsr_gem_create){2, 0, 0, sizeof(b)}), 0);
   /* The reader refuses a submission to a queue that does not exist. */
   assert_int_equal(tsr_write_queue_create(w, 0, &(struct tsr_queue_create){1, 1, 0, 0, 0}), 0);
   for (unsigned f = 0; f < frames; f++) {
      fill(a + (f % 8) * 4096, 4096, 1000 + f);
      assert_int_equal(tsr_write_memory(w, 0, 1, 0, a, sizeof(a)), 0);
      assert_int_equal(tsr_write_memory(w, 0, 2, 0, b, sizeof(b)), 0);
      uint8_t cmd[8] = {(uint8_t)f};
      assert_int_equal(tsr_write_submit(w, 0, &(struct tsr_submit){.queue_id = 1, .cmdbuf_size = 8,
                                                                   .cmdbuf = cmd}, NULL), 0);
      assert_int_equal(tsr_write_frame(w, 0, NULL), 0);
   }
   struct tsr_writer_stats st;
   tsr_writer_get_stats(w, &st);
   assert_int_equal(st.pages_seen, (uint64_t)frames * 12);
   assert_int_equal(st.pages_stored, 12 + (frames - 1));
   assert_int_equal(tsr_writer_close(w), 0);
}

/* zstd's fast levels (negative zstd_level, the capture layer's
 * TESSERA_CAPTURE_ZSTD_LEVEL=-N) compress, and store_raw stores: 64
 * distinct compressible pages, the file against their raw size. Negative
 * levels used to mean "uncompressed". */
static off_t write_compressible(const char *path, const struct tsr_writer_options *o)
{
   struct tsr_writer *w;
   assert_int_equal(tsr_writer_open(&w, path, o), 0);
   assert_int_equal(tsr_write_gem_create(w, 0, &(struct tsr_gem_create){1, 0, 0, 64 * 4096}), 0);
   static uint8_t a[64 * 4096];
   for (size_t i = 0; i < sizeof(a); i++)
      a[i] = (uint8_t)((i / 4096) * 7 + (i % 16));
   assert_int_equal(tsr_write_memory(w, 0, 1, 0, a, sizeof(a)), 0);
   assert_int_equal(tsr_writer_close(w), 0);
   struct tsr_reader *r;
   assert_int_equal(tsr_reader_open(&r, path, NULL, 0), 0);
   assert_int_equal(tsr_reader_verify(r, stderr), 0);
   struct tsr_record rec;
   bool seen = false;
   while (tsr_reader_next(r, &rec) > 0)
      if (rec.type == TSR_REC_MEMORY) {
         assert_int_equal(rec.u.memory.num_pages, 64);
         uint8_t page[4096];
         for (unsigned p = 0; p < 64; p++) {
            struct tsr_hash h;
            memcpy(&h, rec.u.memory.hashes + p * sizeof(h), sizeof(h));
            assert_int_equal(tsr_reader_page(r, &h, page), 0);
            assert_memory_equal(page, a + p * 4096, 4096);
         }
         seen = true;
      }
   assert_true(seen);
   tsr_reader_close(r);
   struct stat st;
   assert_int_equal(stat(path, &st), 0);
   return st.st_size;
}

static void test_zstd_levels(void **state)
{
   (void)state;
   const char *path = tmp_path("levels.tsr");
   const off_t raw = 64 * 4096;
   struct tsr_writer_options o = {.zstd_level = -1};
   assert_true(write_compressible(path, &o) < raw / 4);
   o.zstd_level = -1000000;   /* clamped to zstd's fastest: readable */
   write_compressible(path, &o);
   o.zstd_level = 1;
   assert_true(write_compressible(path, &o) < raw / 4);
   o.zstd_level = 99;         /* clamped to zstd's slowest */
   assert_true(write_compressible(path, &o) < raw / 4);
   o = (struct tsr_writer_options){.store_raw = true};
   assert_true(write_compressible(path, &o) > raw);
}

/* Reads back every page of a memory record and requires it equal to the
 * object's bytes at base (the record's object held base from offset 0);
 * returns how many pages it held. */
static unsigned
check_memory_pages(struct tsr_reader *r, const struct tsr_record *rec, const uint8_t *base)
{
   for (unsigned p = 0; p < rec->u.memory.num_pages; p++) {
      struct tsr_hash h;
      uint8_t page[4096];
      memcpy(&h, rec->u.memory.hashes + p * sizeof(h), sizeof(h));
      assert_int_equal(tsr_reader_page(r, &h, page), 0);
      assert_memory_equal(page, base + (rec->u.memory.first_page + p) * 4096, 4096);
   }
   return rec->u.memory.num_pages;
}

/* check_memory_pages on every memory record from the reader's position
 * on; returns the pages they held. */
static unsigned
check_all_memory(struct tsr_reader *r, const uint8_t *base)
{
   struct tsr_record rec;
   unsigned pages = 0;
   while (tsr_reader_next(r, &rec) > 0)
      if (rec.type == TSR_REC_MEMORY)
         pages += check_memory_pages(r, &rec, base);
   return pages;
}

/* The finished trace at path verifies and holds `pages` memory pages, each
 * bit for bit what base holds at its offset. */
static void
assert_trace_pages(const char *path, const uint8_t *base, unsigned pages)
{
   struct tsr_reader *r;
   assert_int_equal(tsr_reader_open(&r, path, NULL, 0), 0);
   assert_int_equal(tsr_reader_verify(r, stderr), 0);
   assert_int_equal(check_all_memory(r, base), pages);
   tsr_reader_close(r);
}

/* The writer's zstd parameters (trace_writer.c, writer_cctx_new): at
 * level 1 the chunks are compressed with a 2^12-entry hash table, not the
 * larger one level 1 picks for the chunk's size (the same format, ~15 %
 * less CPU on a capture's keyframe pages). The pages chunk of 200 pages
 * (each a mix of a few hundred 64-byte pieces of a 64 KiB pool, so that
 * matches are many and far apart) must be, byte for byte, what ZSTD
 * makes with those parameters -- and not what level 1 alone makes, which
 * shows the input tells them apart. */
static void test_zstd_params(void **state)
{
   (void)state;
   const char *path = tmp_path("zparams.tsr");
   enum { NP = 200 };
   static uint8_t pool[65536], a[NP * 4096];
   fill(pool, sizeof(pool), 5);
   uint32_t x = 99;
   for (size_t i = 0; i < sizeof(a); i += 64) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      memcpy(a + i, pool + (x % (sizeof(pool) / 64)) * 64, 64);
   }
   struct tsr_writer *w;
   struct tsr_writer_options o = {.zstd_level = 1};
   assert_int_equal(tsr_writer_open(&w, path, &o), 0);
   assert_int_equal(tsr_write_gem_create(w, 0, &(struct tsr_gem_create){1, 0, 0, sizeof(a)}), 0);
   assert_int_equal(tsr_write_memory(w, 0, 1, 0, a, sizeof(a)), 0);
   assert_int_equal(tsr_writer_close(w), 0);

   /* the file's pages chunk (40-byte chunk headers after a 32-byte header:
    * docs/trace-format.md) */
   FILE *f = fopen(path, "rb");
   assert_non_null(f);
   static uint8_t file[NP * 4096 * 2];
   size_t n = fread(file, 1, sizeof(file), f);
   fclose(f);
   const uint8_t *stored = NULL;
   uint32_t stored_size = 0, raw_size = 0;
   for (size_t off = 32; off + 40 <= n;) {
      uint16_t type, flags;
      uint32_t st, rs;
      memcpy(&type, file + off + 4, 2);
      memcpy(&flags, file + off + 6, 2);
      memcpy(&st, file + off + 8, 4);
      memcpy(&rs, file + off + 12, 4);
      if (type == 2) {
         assert_true(flags & 1);   /* compressed */
         stored = file + off + 40;
         stored_size = st;
         raw_size = rs;
         break;
      }
      off += 40 + st;
   }
   assert_non_null(stored);
   uint8_t *raw = malloc(raw_size);
   size_t cap = ZSTD_compressBound(raw_size);
   uint8_t *want = malloc(cap);
   assert_non_null(raw);
   assert_non_null(want);
   assert_int_equal(ZSTD_decompress(raw, raw_size, stored, stored_size), raw_size);
   ZSTD_CCtx *c = ZSTD_createCCtx();
   ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
   ZSTD_CCtx_setParameter(c, ZSTD_c_hashLog, 12);
   size_t wn = ZSTD_compress2(c, want, cap, raw, raw_size);
   assert_int_equal(wn, stored_size);
   assert_memory_equal(want, stored, stored_size);
   size_t ln = ZSTD_compressCCtx(c, want, cap, raw, raw_size, 1);
   assert_false(ln == stored_size && !memcmp(want, stored, stored_size));
   ZSTD_freeCCtx(c);
   free(raw);
   free(want);
}

/* A burst of pages (a keyframe's render targets) fills the current pages
 * buffer; a few small chunks later the next burst goes into the buffer
 * whose pages are already faulted in, not into the other one (before,
 * the buffers alternated and an odd number of chunks between two bursts
 * put the second burst into the other buffer: every slot a fresh page).
 * 64-page chunks; burst of 40, two flushed chunks of 2 pages, burst of
 * 40: at most 40 + 2 slots ever written (80 + 2 before), and every page
 * reads back bit for bit. */
static void test_pages_buffer_swap(void **state)
{
   (void)state;
   const char *path = tmp_path("pgswap.tsr");
   enum { BURST = 40, SMALL = 2, NSMALL = 2, NP = 2 * BURST + NSMALL * SMALL };
   static uint8_t a[NP * 4096];
   fill(a, sizeof(a), 123);
   struct tsr_writer *w;
   struct tsr_writer_options o = {.zstd_level = 1, .chunk_bytes = 64 * 4096};
   assert_int_equal(tsr_writer_open(&w, path, &o), 0);
   assert_int_equal(tsr_write_gem_create(w, 0, &(struct tsr_gem_create){1, 0, 0, sizeof(a)}), 0);
   size_t p = 0;
   assert_int_equal(tsr_write_memory(w, 0, 1, 0, a, BURST * 4096), 0);
   p += BURST;
   assert_int_equal(tsr_writer_flush(w), 0);
   for (int i = 0; i < NSMALL; i++, p += SMALL) {
      assert_int_equal(tsr_write_memory(w, 0, 1, p * 4096, a + p * 4096, SMALL * 4096), 0);
      assert_int_equal(tsr_writer_flush(w), 0);
   }
   assert_int_equal(tsr_write_memory(w, 0, 1, p * 4096, a + p * 4096, BURST * 4096), 0);
   struct tsr_writer_stats st;
   tsr_writer_get_stats(w, &st);
   assert_int_equal(st.pages_stored, NP);
   assert_true(st.pages_buffer_touched <= BURST + SMALL);
   assert_true(st.buffer_swaps >= 1);
   assert_int_equal(tsr_writer_close(w), 0);
   assert_trace_pages(path, a, NP);
}

/* Whether this kernel pre-faults with MADV_POPULATE_WRITE (5.14+). */
static bool populate_supported(void)
{
#ifdef MADV_POPULATE_WRITE
   void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   if (p == MAP_FAILED)
      return false;
   bool ok = madvise(p, 4096, MADV_POPULATE_WRITE) == 0;
   munmap(p, 4096);
   return ok;
#else
   return false;
#endif
}

/* The writer's large buffers are pre-faulted and never re-made: a small
 * records chunk first (zstd's own context was sized for it, then
 * reallocated for the first pages chunk; the output buffer grew with
 * each larger chunk), then a burst of 100 pages in one call (a
 * keyframe), then small chunks again. The compression context's size
 * never changes, the output buffer never grows, and (where the kernel
 * has MADV_POPULATE_WRITE) every pages buffer slot written was
 * pre-faulted, in a few batches rather than a page at a time, as were
 * zstd's workspace and the output buffer's pages; every page reads back. */
static void test_writer_prefault(void **state)
{
   (void)state;
   const char *path = tmp_path("prefault.tsr");
   enum { BURST = 100 };
   static uint8_t a[(BURST + 4) * 4096];
   fill(a, sizeof(a), 55);
   for (size_t i = 0; i < sizeof(a); i++)   /* compressible: zstd runs */
      if ((i / 4096) % 2)
         a[i] = (uint8_t)((i / 4096) * 7 + (i % 16));
   struct tsr_writer *w;
   struct tsr_writer_options o = {.zstd_level = 1};
   assert_int_equal(tsr_writer_open(&w, path, &o), 0);
   assert_int_equal(tsr_write_meta(w, "k", "a small records chunk first"), 0);
   assert_int_equal(tsr_writer_flush(w), 0);
   assert_int_equal(tsr_write_gem_create(w, 0, &(struct tsr_gem_create){1, 0, 0, sizeof(a)}), 0);
   assert_int_equal(tsr_write_memory(w, 0, 1, 0, a, BURST * 4096), 0);
   assert_int_equal(tsr_writer_flush(w), 0);
   for (unsigned i = 0; i < 4; i++) {
      assert_int_equal(tsr_write_memory(w, 0, 1, (BURST + i) * 4096,
                                        a + (BURST + i) * 4096, 4096), 0);
      assert_int_equal(tsr_writer_flush(w), 0);
   }
   struct tsr_writer_stats st;
   tsr_writer_get_stats(w, &st);
   assert_int_equal(st.pages_stored, BURST + 4);
   assert_true(st.zstd_workspace > 0);
   assert_int_equal(st.zstd_workspace_changes, 0);
   assert_int_equal(st.output_grown, 0);
   if (populate_supported()) {
      assert_true(st.pages_buffer_prefaulted >= BURST);
      assert_int_equal(st.pages_buffer_prefaulted, st.pages_buffer_touched);
      /* zstd's ~520 KiB workspace and some of the output buffer too */
      assert_true(st.prefaulted >= st.pages_buffer_prefaulted + 100);
   } else {
      print_message("MADV_POPULATE_WRITE unsupported: pre-faulting not checked\n");
      assert_int_equal(st.prefaulted, 0);
   }
   assert_int_equal(tsr_writer_close(w), 0);
   assert_trace_pages(path, a, BURST + 4);
}

/* tsr_writer_close_at_exit leaves the program's heap alone. In the capture
 * layer the writer's heap is the program's, and glibc consolidates every
 * fast-bin chunk of a heap at a malloc of a large-bin size (1 KiB and
 * more) and at a free that makes a free block of 64 KiB or more: a close
 * at exit, after Mesa's teardown, paid ~1-3 ms of an es2gears capture for
 * it (the index buffer, the page map's table, the records buffers). In a
 * child (the writer's memory is left to its exit, which LeakSanitizer
 * must not see): a writer with a page map and a records buffer past
 * 64 KiB is closed after the test filled the fast bins; with glibc they
 * must still hold what they held. Under ASan (its own allocator, no fast
 * bins) the cause is checked instead: no such malloc or free during the
 * close. The parent reads the trace back. */
#if defined(__SANITIZE_ADDRESS__)
/* libasan's allocator hooks (GCC ships no header for them) */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
size_t __sanitizer_get_allocated_size(const volatile void *p);
static atomic_bool heap_watch;
static atomic_uint heap_bad;
static void heap_malloc_hook(const volatile void *p, size_t size)
{
   (void)p;
   if (atomic_load(&heap_watch) && size >= 1024)
      atomic_fetch_add(&heap_bad, 1);
}
static void heap_free_hook(const volatile void *p)
{
   if (atomic_load(&heap_watch) && p && __sanitizer_get_allocated_size(p) >= (64u << 10))
      atomic_fetch_add(&heap_bad, 1);
}
#else
#include <malloc.h>
#endif

enum { EXIT_PAGES = 3000, EXIT_RECORDS = 2000 };

/* The child's part: 0 when the close left the heap alone, 1 when it did
 * not, 2 on another failure. */
static int close_at_exit_child(const char *path, const uint8_t *a)
{
   struct tsr_writer *w;
   struct tsr_writer_options o = {.zstd_level = 1};
   if (tsr_writer_open(&w, path, &o) ||
       tsr_write_gem_create(w, 0, &(struct tsr_gem_create){1, 0, 0, (uint64_t)EXIT_PAGES * 4096}) ||
       tsr_write_memory(w, 0, 1, 0, a, (uint64_t)EXIT_PAGES * 4096) || tsr_writer_flush(w))
      return 2;
   /* records past 64 KiB still in the writer's buffer at the close */
   for (unsigned i = 0; i < EXIT_RECORDS; i++)
      if (tsr_write_meta(w, "note", "a record of about forty bytes"))
         return 2;
   /* fast-bin chunks: more small blocks freed than the tcache keeps */
   enum { SMALL = 2000 };
   static void *small[SMALL];
   for (unsigned i = 0; i < SMALL; i++)
      if (!(small[i] = malloc(40)))
         return 2;
   for (unsigned i = 0; i < SMALL; i += 2)   /* no two neighbours: nothing merges */
      free(small[i]);
#if defined(__SANITIZE_ADDRESS__)
   if (!__sanitizer_install_malloc_and_free_hooks(heap_malloc_hook, heap_free_hook))
      return 2;
   atomic_store(&heap_watch, true);
   int err = tsr_writer_close_at_exit(w);
   atomic_store(&heap_watch, false);
   if (err)
      return 2;
   if (atomic_load(&heap_bad)) {
      fprintf(stderr, "%u large mallocs or frees in the close\n", atomic_load(&heap_bad));
      return 1;
   }
#else
   size_t fast_before = mallinfo2().fsmblks;
   if (fast_before < (SMALL / 2 - 64) * 48)
      return 2;
   if (tsr_writer_close_at_exit(w))
      return 2;
   size_t fast_after = mallinfo2().fsmblks;
   if (fast_after < fast_before) {
      fprintf(stderr, "fast bins %zu -> %zu bytes: the close consolidated the heap\n",
              fast_before, fast_after);
      return 1;
   }
#endif
   return 0;
}

static void test_writer_close_at_exit(void **state)
{
   (void)state;
   const char *path = tmp_path("closeexit.tsr");
   uint8_t *a = malloc((size_t)EXIT_PAGES * 4096);
   assert_non_null(a);
   fill(a, (size_t)EXIT_PAGES * 4096, 91);
   fflush(NULL);
   pid_t pid = fork();
   assert_true(pid >= 0);
   if (pid == 0)
      _exit(close_at_exit_child(path, a));
   int status;
   assert_int_equal(waitpid(pid, &status, 0), pid);
   assert_true(WIFEXITED(status));
   assert_int_equal(WEXITSTATUS(status), 0);

   assert_trace_pages(path, a, EXIT_PAGES);
   free(a);
}

/* Pages chunks full and partial: the writer builds a chunk around the
 * pages where tsr_write_memory copied them (count and hashes put right
 * before the n pages' data, flush_pages), so a chunk of fewer pages than
 * fit starts further into the buffer. 4 pages a chunk; 11 distinct
 * pages written one call each (two full chunks and a partial one), then
 * 6 in one call, compressed (random pages: stored raw by emit_chunk) and
 * uncompressed: every page reads back bit for bit. */
static void test_pages_chunks(void **state)
{
   (void)state;
   const char *path = tmp_path("pgchunks.tsr");
   static uint8_t a[17 * 4096];
   fill(a, sizeof(a), 77);
   /* half the pages compressible: zstd'd chunks too */
   for (size_t i = 0; i < sizeof(a); i++)
      if ((i / 4096) % 2)
         a[i] = (uint8_t)((i / 4096) * 3 + (i % 8));
   for (int raw = 0; raw < 2; raw++) {
      struct tsr_writer *w;
      struct tsr_writer_options o = {.chunk_bytes = 4 * 4096, .zstd_level = 1,
                                     .store_raw = raw};
      assert_int_equal(tsr_writer_open(&w, path, &o), 0);
      assert_int_equal(tsr_write_gem_create(w, 0, &(struct tsr_gem_create){1, 0, 0, sizeof(a)}), 0);
      for (unsigned p = 0; p < 11; p++)
         assert_int_equal(tsr_write_memory(w, 0, 1, p * 4096, a + p * 4096, 4096), 0);
      assert_int_equal(tsr_write_memory(w, 0, 1, 11 * 4096, a + 11 * 4096, 6 * 4096), 0);
      struct tsr_writer_stats st;
      tsr_writer_get_stats(w, &st);
      assert_int_equal(st.pages_stored, 17);
      assert_int_equal(tsr_writer_close(w), 0);
      assert_trace_pages(path, a, 17);
   }
}

/* The thread gives each chunk's buffer back and the next chunk of its
 * kind is built in it (a fresh one faulted its pages in again, on the
 * program's thread): 4 pages a chunk, 40 rounds of 3 distinct pages and a
 * submission, each round flushed. Buffers are reused, and every page and
 * every submission's command buffer reads back bit for bit, in order --
 * nothing of a reused buffer's earlier chunk shows through. */
static void test_buffer_reuse(void **state)
{
   (void)state;
   const char *path = tmp_path("reuse.tsr");
   enum { ROUNDS = 40, PER = 3 };
   static uint8_t a[ROUNDS * PER * 4096];
   fill(a, sizeof(a), 31);
   for (size_t i = 0; i < sizeof(a); i++)   /* some compressible pages */
      if ((i / 4096) % 3 == 1)
         a[i] = (uint8_t)((i / 4096) * 5 + (i % 8));
   struct tsr_writer *w;
   struct tsr_writer_options o = {.chunk_bytes = 4 * 4096, .queue_chunks = 2, .zstd_level = 1,
                                  .quiet = true};
   assert_int_equal(tsr_writer_open(&w, path, &o), 0);
   assert_int_equal(tsr_write_vm_create(w, 0, &(struct tsr_vm_create){1, 0, 0}), 0);
   assert_int_equal(tsr_write_gem_create(w, 0, &(struct tsr_gem_create){1, 0, 0, sizeof(a)}), 0);
   assert_int_equal(tsr_write_queue_create(w, 0, &(struct tsr_queue_create){1, 1, 0, 0, 0}), 0);
   for (unsigned f = 0; f < ROUNDS; f++) {
      assert_int_equal(tsr_write_memory(w, 0, 1, (size_t)f * PER * 4096,
                                        a + (size_t)f * PER * 4096, PER * 4096), 0);
      uint8_t cmd[24];
      memset(cmd, (int)f, sizeof(cmd));
      assert_int_equal(tsr_write_submit(w, 0, &(struct tsr_submit){.queue_id = 1,
                                                                   .cmdbuf_size = sizeof(cmd),
                                                                   .cmdbuf = cmd}, NULL), 0);
      assert_int_equal(tsr_writer_flush(w), 0);
   }
   struct tsr_writer_stats st;
   tsr_writer_get_stats(w, &st);
   assert_int_equal(st.pages_stored, ROUNDS * PER);
   assert_true(st.buffers_reused >= ROUNDS);
   assert_int_equal(tsr_writer_close(w), 0);
   struct tsr_reader *r;
   assert_int_equal(tsr_reader_open(&r, path, NULL, 0), 0);
   assert_int_equal(tsr_reader_verify(r, stderr), 0);
   struct tsr_record rec;
   unsigned pages = 0, submits = 0;
   while (tsr_reader_next(r, &rec) > 0) {
      if (rec.type == TSR_REC_MEMORY) {
         pages += check_memory_pages(r, &rec, a);
      } else if (rec.type == TSR_REC_SUBMIT) {
         assert_int_equal(rec.u.submit.cmdbuf_size, 24);
         for (unsigned i = 0; i < 24; i++)
            assert_int_equal(rec.u.submit.cmdbuf[i], submits);
         submits++;
      }
   }
   assert_int_equal(pages, ROUNDS * PER);
   assert_int_equal(submits, ROUNDS);
   tsr_reader_close(r);
}

static void test_dedup(void **state)
{
   (void)state;
   const char *path = tmp_path("dedup.tsr");
   write_frames(path, 5, 0);
   struct tsr_reader *r;
   assert_int_equal(tsr_reader_open(&r, path, NULL, 0), 0);
   assert_int_equal(tsr_reader_info(r)->pages, 12 + 4);
   struct tsr_record rec;
   unsigned mem_records = 0, mem_pages = 0;
   while (tsr_reader_next(r, &rec) > 0)
      if (rec.type == TSR_REC_MEMORY) {
         mem_records++;
         mem_pages += rec.u.memory.num_pages;
      }
   /* Frame 0: one run per object; then one changed page per frame. */
   assert_int_equal(mem_records, 2 + 4);
   assert_int_equal(mem_pages, 12 + 4);
   tsr_reader_close(r);
}

/* A page written back to the content the writer last recorded is skipped,
 * unless the writer was told to forget it (the capture does so for pages
 * the GPU may have changed unrecorded: the replay holds the GPU's result). */
static void test_forget_memory(void **state)
{
   (void)state;
   const char *path = tmp_path("forget.tsr");
   struct tsr_writer *w;
   assert_int_equal(tsr_writer_open(&w, path, NULL), 0);
   static uint8_t a[4 * 4096];
   fill(a, sizeof(a), 7);
   assert_int_equal(tsr_write_gem_create(w, 0, &(struct tsr_gem_create){1, 0, 0, sizeof(a)}), 0);
   assert_int_equal(tsr_write_memory(w, 0, 1, 0, a, sizeof(a)), 0);      /* 4 pages */
   assert_int_equal(tsr_write_memory(w, 0, 1, 4096, a + 4096, 4096), 0); /* same: skipped */
   assert_int_equal(tsr_writer_forget_memory(w, 0, 1, 4096, 2 * 4096 - 1), 0);
   assert_int_equal(tsr_write_memory(w, 0, 1, 0, a, sizeof(a)), 0);      /* pages 1, 2 again */
   assert_int_equal(tsr_writer_forget_memory(w, 0, 1, 3 * 4096, UINT64_MAX), 0);
   assert_int_equal(tsr_write_memory(w, 0, 1, 0, a, sizeof(a)), 0);      /* page 3 again */
   assert_int_equal(tsr_writer_forget_memory(w, 0, 9, 0, 4096), -EINVAL); /* unknown */
   assert_int_equal(tsr_writer_close(w), 0);
   struct tsr_reader *r;
   assert_int_equal(tsr_reader_open(&r, path, NULL, 0), 0);
   assert_int_equal(tsr_reader_info(r)->pages, 4); /* contents still stored once */
   struct tsr_record rec;
   unsigned runs[3][2], n = 0;
   while (tsr_reader_next(r, &rec) > 0)
      if (rec.type == TSR_REC_MEMORY && n < 3) {
         runs[n][0] = (unsigned)rec.u.memory.first_page;
         runs[n++][1] = rec.u.memory.num_pages;
      }
   assert_int_equal(n, 3);
   assert_int_equal(runs[0][0], 0);
   assert_int_equal(runs[0][1], 4);
   assert_int_equal(runs[1][0], 1);
   assert_int_equal(runs[1][1], 2);
   assert_int_equal(runs[2][0], 3);
   assert_int_equal(runs[2][1], 1);
   tsr_reader_close(r);
}

static void test_identical_pages_stored_once(void **state)
{
   (void)state;
   const char *path = tmp_path("same.tsr");
   struct tsr_writer *w;
   assert_int_equal(tsr_writer_open(&w, path, NULL), 0);
   static uint8_t z[16 * 4096];
   memset(z, 0x5a, sizeof(z));
   assert_int_equal(tsr_write_gem_create(w, 0, &(struct tsr_gem_create){1, 0, 0, sizeof(z)}), 0);
   assert_int_equal(tsr_write_gem_create(w, 1, &(struct tsr_gem_create){1, 0, 0, sizeof(z)}), 0);
   assert_int_equal(tsr_write_memory(w, 0, 1, 0, z, sizeof(z)), 0);
   assert_int_equal(tsr_write_memory(w, 1, 1, 0, z, 100), 0); /* partial page: rest zero */
   assert_int_equal(tsr_write_memory(w, 0, 1, 3, z, 10), -EINVAL); /* unaligned */
   assert_int_equal(tsr_write_memory(w, 0, 9, 0, z, 10), -EINVAL); /* unknown object */
   assert_int_equal(tsr_writer_close(w), 0);
   struct tsr_reader *r;
   assert_int_equal(tsr_reader_open(&r, path, NULL, 0), 0);
   assert_int_equal(tsr_reader_info(r)->pages, 2);
   struct tsr_record rec;
   while (tsr_reader_next(r, &rec) > 0)
      ;
   uint8_t got[4096];
   assert_int_equal(tsr_reader_read_object(r, 0, 1, 15 * 4096, got, 4096), 4096);
   assert_memory_equal(got, z, 4096);
   assert_int_equal(tsr_reader_read_object(r, 1, 1, 0, got, 4096), 4096);
   assert_memory_equal(got, z, 100);
   assert_int_equal(got[100], 0);
   assert_int_equal(tsr_reader_read_object(r, 1, 1, sizeof(z), got, 1), 0);
   tsr_reader_close(r);
}

static void check_seek(struct tsr_reader *r, unsigned frames)
{
   static uint8_t a[8 * 4096];
   fill(a, sizeof(a), 100);
   struct tsr_record rec;
   for (unsigned f = 0; f < frames; f++) {
      fill(a + (f % 8) * 4096, 4096, 1000 + f);
      /* Seek backwards and forwards alike. */
      unsigned g = (f * 7) % frames;
      assert_int_equal(tsr_reader_seek_frame(r, g), 0);
      assert_int_equal(tsr_reader_next(r, &rec), 1);
      assert_int_equal(rec.frame, g);
      assert_int_equal(tsr_reader_seek_submit(r, f), 0);
      do
         assert_int_equal(tsr_reader_next(r, &rec), 1);
      while (rec.type != TSR_REC_SUBMIT);
      assert_int_equal(rec.seq, f);
      assert_int_equal(rec.u.submit.cmdbuf[0], (uint8_t)f);
      uint8_t got[sizeof(a)];
      assert_int_equal(tsr_reader_read_object(r, 0, 1, 0, got, sizeof(got)), sizeof(got));
      assert_memory_equal(got, a, sizeof(a));
   }
   assert_int_equal(tsr_reader_seek_submit(r, frames), -ERANGE);
   assert_int_equal(tsr_reader_seek_frame(r, frames + 1), -ERANGE);
   assert_non_null(strstr(tsr_reader_error(r), "frame"));
}

static void test_seek(void **state)
{
   (void)state;
   const char *path = tmp_path("seek.tsr");
   write_frames(path, 20, 8192); /* small chunks: frames span many */
   struct tsr_reader *r;
   assert_int_equal(tsr_reader_open(&r, path, NULL, 0), 0);
   assert_true(tsr_reader_info(r)->indexed);
   assert_int_equal(tsr_reader_info(r)->frames, 20);
   assert_true(tsr_reader_info(r)->chunks > 10);
   check_seek(r, 20);
   tsr_reader_close(r);
}

/* Chunk boundaries of a file, from the layout in docs/trace-format.md. */
static size_t chunk_ends(const uint8_t *d, size_t size, size_t *ends, uint64_t *records, size_t max)
{
   size_t n = 0, off = 32;
   uint64_t total = 0;
   while (off + 40 <= size && n < max && !memcmp(d + off, "TSCK", 4)) {
      uint32_t stored = (uint32_t)d[off + 8] | (uint32_t)d[off + 9] << 8 |
                        (uint32_t)d[off + 10] << 16 | (uint32_t)d[off + 11] << 24;
      uint32_t count = (uint32_t)d[off + 16] | (uint32_t)d[off + 17] << 8;
      if (d[off + 4] == 1)
         total += count;
      off += 40 + stored;
      ends[n] = off;
      records[n++] = total;
   }
   return n;
}

static uint64_t count_records(struct tsr_reader *r, int *last)
{
   struct tsr_record rec;
   uint64_t n = 0;
   while ((*last = tsr_reader_next(r, &rec)) > 0)
      n++;
   return n;
}

static void test_truncation(void **state)
{
   (void)state;
   const char *path = tmp_path("trunc.tsr");
   write_frames(path, 6, 8192);
   size_t size;
   uint8_t *d = read_file(path, &size);
   size_t ends[256];
   uint64_t recs[256];
   size_t n = chunk_ends(d, size, ends, recs, 256);
   assert_true(n > 4);

   struct tsr_reader *r;
   /* Below the file header: not a trace. */
   assert_int_equal(tsr_reader_open_mem(&r, d, 31, NULL, 0), -EBADMSG);
   assert_null(r);
   /* Every chunk boundary and the middle of every chunk (and its header). */
   for (size_t i = 0; i < n; i++) {
      size_t start = i ? ends[i - 1] : 32;
      size_t cuts[3] = {ends[i], start + 20, start + (ends[i] - start) / 2};
      for (int c = 0; c < 3; c++) {
         assert_int_equal(tsr_reader_open_mem(&r, d, cuts[c], NULL, 0), 0);
         const struct tsr_info *in = tsr_reader_info(r);
         bool whole = c == 0;
         uint64_t want = whole ? recs[i] : (i ? recs[i - 1] : 0);
         assert_false(in->indexed);
         /* The last data chunk ends where the index begins: not truncated. */
         assert_int_equal(in->truncated, !whole);
         /* A cut is what a writer that died leaves: never damage. */
         assert_int_equal(in->damage, 0);
         int last;
         assert_int_equal(count_records(r, &last), want);
         assert_int_equal(last, 0);
         /* A truncated file has no index; verify says so, nothing else. */
         assert_int_equal(tsr_reader_verify(r, NULL), whole ? 1 : 2);
         tsr_reader_close(r);
      }
   }
   /* The complete file. */
   assert_int_equal(tsr_reader_open_mem(&r, d, size, NULL, 0), 0);
   assert_true(tsr_reader_info(r)->indexed);
   int last;
   assert_int_equal(count_records(r, &last), recs[n - 2]); /* last chunk is the index */
   tsr_reader_close(r);
   free(d);
}

static void test_unindexed_seek(void **state)
{
   (void)state;
   const char *path = tmp_path("noindex.tsr");
   write_frames(path, 9, 8192);
   size_t size;
   uint8_t *d = read_file(path, &size);
   /* Drop the footer only: the index chunk is ignored, a scan finds all. */
   struct tsr_reader *r;
   assert_int_equal(tsr_reader_open_mem(&r, d, size - 32, NULL, 0), 0);
   assert_false(tsr_reader_info(r)->indexed);
   assert_int_equal(tsr_reader_info(r)->frames, 9);
   check_seek(r, 9);
   tsr_reader_close(r);
   free(d);
}

static void test_corruption(void **state)
{
   (void)state;
   const char *path = tmp_path("corrupt.tsr");
   write_frames(path, 4, 8192);
   size_t size;
   uint8_t *d = read_file(path, &size);
   size_t ends[256];
   uint64_t recs[256];
   size_t n = chunk_ends(d, size, ends, recs, 256);
   for (size_t i = 0; i + 1 < n; i++) {
      size_t start = i ? ends[i - 1] : 32;
      /* A payload byte: the checksum catches it when the chunk is read. */
      d[start + 40 + 3] ^= 0x40;
      struct tsr_reader *r;
      assert_int_equal(tsr_reader_open_mem(&r, d, size, NULL, 0), 0);
      int last;
      uint64_t got = count_records(r, &last);
      if (d[start + 4] == 1) {
         assert_int_equal(last, -EBADMSG);
         assert_int_equal(got, i ? recs[i - 1] : 0);
         assert_non_null(strstr(tsr_reader_error(r), "checksum"));
      }
      assert_true(tsr_reader_verify(r, NULL) >= 1);
      tsr_reader_close(r);
      d[start + 40 + 3] ^= 0x40;

      /* A header byte: the header check fails, the scan stops there. */
      d[start + 9] ^= 0x01;
      assert_int_equal(tsr_reader_open_mem(&r, d, size, NULL, 0), 0);
      assert_true(tsr_reader_info(r)->truncated);
      assert_int_equal(tsr_reader_info(r)->chunks, i);
      tsr_reader_close(r);
      d[start + 9] ^= 0x01;
   }
   free(d);
}

/* Header truncation at every length: "truncated header" whenever what is
 * there of the magic is intact, "bad magic" otherwise. */
static void test_header_truncation(void **state)
{
   (void)state;
   const char *path = tmp_path("hdr.tsr");
   write_frames(path, 1, 0);
   size_t size;
   uint8_t *d = read_file(path, &size);
   struct tsr_reader *r;
   char err[256];
   for (size_t len = 0; len < 32; len++) {
      assert_int_equal(tsr_reader_open_mem(&r, d, len, err, sizeof(err)), -EBADMSG);
      assert_null(r);
      assert_non_null(strstr(err, len ? "truncated header" : "empty file"));
      if (len) {
         d[len < 8 ? len - 1 : 3] ^= 0x20; /* a byte of the magic */
         assert_int_equal(tsr_reader_open_mem(&r, d, len, err, sizeof(err)), -EBADMSG);
         assert_non_null(strstr(err, "bad magic"));
         d[len < 8 ? len - 1 : 3] ^= 0x20;
      }
   }
   /* A longer header (a newer minor version), cut. */
   d[12] = 64;
   assert_int_equal(tsr_reader_open_mem(&r, d, 48, err, sizeof(err)), -EBADMSG);
   assert_non_null(strstr(err, "truncated header (48 of 64 bytes)"));
   free(d);
}

/* Every read path over a trace whose pages chunk is damaged: the damage is
 * noted at open (naming the chunk), reads still work (salvage: zeros), and
 * the count stays one per damaged chunk however often it is read. */
static void test_damaged_pages(void **state)
{
   (void)state;
   const char *path = tmp_path("dpages.tsr");
   write_frames(path, 4, 8192);
   size_t size;
   uint8_t *d = read_file(path, &size);
   size_t ends[256];
   uint64_t recs[256];
   size_t n = chunk_ends(d, size, ends, recs, 256);
   unsigned tried = 0;
   for (size_t i = 0; i + 1 < n; i++) {
      size_t start = i ? ends[i - 1] : 32;
      if (d[start + 4] != 2)
         continue;
      tried++;
      d[start + 40 + (ends[i] - start - 40) / 2] ^= 0x10;
      for (int indexed = 1; indexed >= 0; indexed--) {
         struct tsr_reader *r;
         /* Without the footer the forward scan stops at the damage. */
         assert_int_equal(tsr_reader_open_mem(&r, d, indexed ? size : size - 32, NULL, 0), 0);
         const struct tsr_info *in = tsr_reader_info(r);
         assert_int_equal(in->indexed, indexed);
         assert_int_equal(in->damage, 1);
         char want[64];
         snprintf(want, sizeof(want), "pages chunk %zu at offset %zu", i, start);
         assert_non_null(strstr(tsr_reader_damage(r), want));
         assert_non_null(strstr(tsr_reader_damage(r), "checksum"));
         struct tsr_record rec;
         uint8_t buf[8 * 4096];
         int ret;
         while ((ret = tsr_reader_next(r, &rec)) > 0) {
            tsr_reader_read_object(r, 0, 1, 0, buf, sizeof(buf));
            tsr_reader_read_object(r, 0, 2, 0, buf, sizeof(buf));
         }
         assert_int_equal(ret, 0);
         /* Pages of later chunks the scan never reached read as zero: noted,
          * each content once; the indexed read notes nothing more. */
         if (indexed)
            assert_int_equal(in->damage, 1);
         uint64_t seen = in->damage;
         tsr_reader_rewind(r);
         while (tsr_reader_next(r, &rec) > 0)
            tsr_reader_read_object(r, 0, 1, 0, buf, sizeof(buf));
         assert_int_equal(in->damage, seen);
         assert_true(tsr_reader_verify(r, NULL) >= 1);
         tsr_reader_close(r);
      }
      d[start + 40 + (ends[i] - start - 40) / 2] ^= 0x10;
   }
   assert_true(tried >= 2);
   free(d);
}

/* Repeated chunks (a copy right after the original, or at the end), with
 * the index dropped or left behind: a repeated records chunk must fail
 * tsr_reader_next() at a named record, a repeated pages chunk is damage. */
static void test_repeated_chunks(void **state)
{
   (void)state;
   const char *path = tmp_path("repeat.tsr");
   write_frames(path, 5, 8192);
   size_t size;
   uint8_t *d = read_file(path, &size);
   size_t ends[256];
   uint64_t recs[256];
   size_t n = chunk_ends(d, size, ends, recs, 256);
   assert_true(n > 4);
   size_t data_end = ends[n - 2]; /* the last chunk is the index */
   uint8_t *m = malloc(size * 2);
   assert_non_null(m);
   unsigned records = 0, pages = 0;
   for (size_t i = 0; i + 1 < n; i++) {
      size_t start = i ? ends[i - 1] : 32, len = ends[i] - start;
      for (int where = 0; where < 2; where++) {
         for (int keep_index = 0; keep_index < 2; keep_index++) {
            size_t at = where ? data_end : ends[i], k = 0;
            memcpy(m, d, at);
            k = at;
            memcpy(m + k, d + start, len);
            k += len;
            memcpy(m + k, d + at, (keep_index ? size : data_end) - at);
            k += (keep_index ? size : data_end) - at;
            struct tsr_reader *r;
            char err[256];
            assert_int_equal(tsr_reader_open_mem(&r, m, k, err, sizeof(err)), 0);
            const struct tsr_info *in = tsr_reader_info(r);
            assert_false(in->indexed); /* the footer no longer points at it */
            int last;
            count_records(r, &last);
            if (d[start + 4] == 1) {
               assert_int_equal(last, -EBADMSG);
               assert_non_null(strstr(tsr_reader_error(r), " record at byte "));
               assert_non_null(strstr(tsr_reader_error(r), "records chunk"));
               records++;
            } else {
               /* With the index left behind, the footer's stale offset is
                * noted first, then the repeated pages. */
               assert_int_equal(in->damage, keep_index ? 2 : 1);
               /* (the scan of the pages comes after the footer's check) */
               assert_non_null(strstr(tsr_reader_damage(r),
                                      keep_index ? "index the footer points to" : "repeats a page"));
               pages++;
            }
            assert_true(tsr_reader_verify(r, NULL) >= 1);
            tsr_reader_close(r);
         }
      }
   }
   assert_true(records >= 4 && pages >= 4);
   free(m);
   free(d);
}

/* Each impossible sequence by itself, named in the message. */
static void test_impossible_sequences(void **state)
{
   (void)state;
   static const struct {
      const char *want;
      int op;
   } cases[] = {
      {"GEM object 1 of file 0 created again", 0},
      {"GEM object 9 of file 0 closed but not created", 1},
      {"VM 1 of file 0 created again", 2},
      {"VM 7 of file 0 destroyed but not created", 3},
      {"bind on VM 7 of file 0, which does not exist", 4},
      {"queue 1 of file 0 created again", 5},
      {"queue 4 of file 0 destroyed but not created", 6},
      {"submission to queue 4 of file 0, which does not exist", 7},
      {"completion of submission 1, which was not made yet", 9},
   };
   for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
      const char *path = tmp_path("seq.tsr");
      struct tsr_writer *w;
      assert_int_equal(tsr_writer_open(&w, path, NULL), 0);
      assert_int_equal(tsr_write_vm_create(w, 0, &(struct tsr_vm_create){1, 0, 0}), 0);
      assert_int_equal(tsr_write_gem_create(w, 0, &(struct tsr_gem_create){1, 0, 0, 4096}), 0);
      assert_int_equal(tsr_write_queue_create(w, 0, &(struct tsr_queue_create){1, 1, 0, 0, 0}), 0);
      uint8_t cmd[8] = {0};
      struct tsr_submit sub = {.queue_id = 1, .cmdbuf_size = 8, .cmdbuf = cmd};
      assert_int_equal(tsr_write_submit(w, 0, &sub, NULL), 0);
      struct drm_asahi_gem_bind_op op = {.handle = 1, .range = 16384, .addr = 1ull << 32};
      switch (cases[c].op) {
      case 0: tsr_write_gem_create(w, 0, &(struct tsr_gem_create){1, 0, 0, 4096}); break;
      case 1: tsr_write_gem_close(w, 0, 9); break;
      case 2: tsr_write_vm_create(w, 0, &(struct tsr_vm_create){1, 0, 0}); break;
      case 3: tsr_write_vm_destroy(w, 0, 7); break;
      case 4: tsr_write_vm_bind(w, 0, &(struct tsr_vm_bind){7, 1, &op, 0}); break;
      case 5: tsr_write_queue_create(w, 0, &(struct tsr_queue_create){1, 1, 0, 0, 0}); break;
      case 6: tsr_write_queue_destroy(w, 0, 4); break;
      case 7: sub.queue_id = 4; tsr_write_submit(w, 0, &sub, NULL); break;
      case 9: tsr_write_completion(w, 0, &(struct tsr_completion){.seq = 1}); break;
      }
      assert_int_equal(tsr_writer_close(w), 0);
      struct tsr_reader *r;
      assert_int_equal(tsr_reader_open(&r, path, NULL, 0), 0);
      int last;
      count_records(r, &last);
      assert_int_equal(last, -EBADMSG);
      assert_non_null(strstr(tsr_reader_error(r), cases[c].want));
      tsr_reader_close(r);
   }
}

static void test_bad_files(void **state)
{
   (void)state;
   struct tsr_reader *r;
   char err[256];
   assert_int_equal(tsr_reader_open(&r, tmp_path("missing.tsr"), err, sizeof(err)), -ENOENT);
   assert_non_null(strstr(err, "missing.tsr"));
   assert_int_equal(tsr_reader_open(&r, tmpdir, err, sizeof(err)), -EISDIR);
   static const char garbage[100] = "hello, this is not a trace";
   assert_int_equal(tsr_reader_open_mem(&r, garbage, sizeof(garbage), err, sizeof(err)), -EBADMSG);
   assert_non_null(strstr(err, "not a tessera trace"));

   const char *path = tmp_path("v2.tsr");
   write_frames(path, 1, 0);
   size_t size;
   uint8_t *d = read_file(path, &size);
   d[8] = 2; /* major version 2 */
   assert_int_equal(tsr_reader_open_mem(&r, d, size, err, sizeof(err)), -EPROTONOSUPPORT);
   assert_non_null(strstr(err, "newer"));
   d[8] = 1;
   d[10] = 7; /* a newer minor version is fine */
   assert_int_equal(tsr_reader_open_mem(&r, d, size, err, sizeof(err)), 0);
   tsr_reader_close(r);
   free(d);

   /* Writer argument checks. */
   struct tsr_writer *w;
   assert_int_equal(tsr_writer_open(&w, "/nonexistent-dir/x.tsr", NULL), -ENOENT);
   assert_null(w);
}

/* Runs in a child: a file-size limit makes write() fail with EFBIG. */
static int write_until_efbig(const char *path)
{
   struct rlimit rl = {96 * 1024, 96 * 1024};
   signal(SIGXFSZ, SIG_IGN);
   if (setrlimit(RLIMIT_FSIZE, &rl))
      return 10;
   struct tsr_writer *w;
   struct tsr_writer_options o = {.chunk_bytes = 16384, .quiet = true};
   if (tsr_writer_open(&w, path, &o))
      return 11;
   static uint8_t page[4096];
   tsr_write_gem_create(w, 0, &(struct tsr_gem_create){1, 0, 0, 4096});
   tsr_write_vm_create(w, 0, &(struct tsr_vm_create){1, 0, 0});
   tsr_write_queue_create(w, 0, &(struct tsr_queue_create){0, 1, 0, 0, 0});
   int err = 0;
   for (uint32_t i = 0; i < 1000 && !err; i++) {
      fill(page, sizeof(page), i); /* incompressible, all different */
      err = tsr_write_memory(w, 0, 1, 0, page, sizeof(page));
      if (!err)
         err = tsr_write_submit(w, 0, &(struct tsr_submit){.cmdbuf_size = 8, .cmdbuf = page}, NULL);
      if (!err)
         err = tsr_writer_flush(w);
   }
   if (err != -EFBIG)
      return 12;
   /* Sticky: every later call reports the same error. */
   if (tsr_write_frame(w, 0, NULL) != -EFBIG || tsr_writer_close(w) != -EFBIG)
      return 13;
   return 0;
}

static void test_write_failure(void **state)
{
   (void)state;
   const char *path = tmp_path("efbig.tsr");
   pid_t pid = fork();
   assert_true(pid >= 0);
   if (pid == 0)
      _exit(write_until_efbig(path));
   int status;
   assert_int_equal(waitpid(pid, &status, 0), pid);
   assert_true(WIFEXITED(status));
   assert_int_equal(WEXITSTATUS(status), 0);

   struct tsr_reader *r;
   char err[256];
   assert_int_equal(tsr_reader_open(&r, path, err, sizeof(err)), 0);
   const struct tsr_info *in = tsr_reader_info(r);
   assert_false(in->indexed);
   assert_false(in->truncated); /* cut back to the last whole chunk */
   assert_true(in->file_size <= 96 * 1024);
   assert_true(in->submits > 5);
   int last;
   assert_true(count_records(r, &last) > 10);
   assert_int_equal(last, 0);
   assert_int_equal(tsr_reader_verify(r, NULL), 1); /* only "no index" */
   tsr_reader_close(r);
}

/* The live state as of a position (what `tessera trim` writes): closed
 * objects, destroyed queues and VMs and unbound timestamp objects are gone,
 * a closed object's mappings with it, and page hashes are the latest. */
static void test_live_state(void **state)
{
   (void)state;
   const char *path = tmp_path("state.tsr");
   struct tsr_writer *w;
   assert_int_equal(tsr_writer_open(&w, path, NULL), 0);
   struct tsr_vm_create v1 = { 1, 0x100000, 0x200000 }, v2 = { 2, 0x300000, 0x400000 };
   assert_int_equal(tsr_write_vm_create(w, 0, &v1), 0);
   assert_int_equal(tsr_write_vm_create(w, 0, &v2), 0);
   struct tsr_gem_create g1 = { 1, 0, 0, 2 * TSR_PAGE_SIZE };
   struct tsr_gem_create g2 = { 2, DRM_ASAHI_GEM_VM_PRIVATE, 1, 16384 };
   struct tsr_gem_create g3 = { 3, 0, 0, 16384 };
   assert_int_equal(tsr_write_gem_create(w, 0, &g1), 0);
   assert_int_equal(tsr_write_gem_create(w, 0, &g2), 0);
   assert_int_equal(tsr_write_gem_create(w, 0, &g3), 0);
   struct drm_asahi_gem_bind_op ops[3] = {
      { .flags = DRM_ASAHI_BIND_READ, .handle = 1, .range = 16384, .addr = 0x1000000 },
      { .flags = DRM_ASAHI_BIND_READ, .handle = 2, .range = 16384, .addr = 0x2000000 },
      { .flags = DRM_ASAHI_BIND_READ, .handle = 3, .range = 16384, .addr = 0x3000000 },
   };
   struct tsr_vm_bind b = { .vm_id = 1, .num_ops = 3, .ops = ops };
   assert_int_equal(tsr_write_vm_bind(w, 0, &b), 0);
   struct tsr_bind_object t1 = { DRM_ASAHI_BIND_OBJECT_OP_BIND, 0, 1, 7, 0, 4096 };
   struct tsr_bind_object t2 = { DRM_ASAHI_BIND_OBJECT_OP_BIND, 0, 3, 8, 0, 4096 };
   struct tsr_bind_object t1u = { DRM_ASAHI_BIND_OBJECT_OP_UNBIND, 0, 0, 7, 0, 0 };
   assert_int_equal(tsr_write_bind_object(w, 0, &t1), 0);
   assert_int_equal(tsr_write_bind_object(w, 0, &t2), 0);
   assert_int_equal(tsr_write_bind_object(w, 0, &t1u), 0);
   struct tsr_queue_create q1 = { 1, 1, 0, 0, 0x4000 }, q2 = { 2, 1, 1, 0, 0x5000 };
   assert_int_equal(tsr_write_queue_create(w, 0, &q1), 0);
   assert_int_equal(tsr_write_queue_create(w, 0, &q2), 0);
   uint8_t page[TSR_PAGE_SIZE];
   fill(page, sizeof(page), 1);
   assert_int_equal(tsr_write_memory(w, 0, 1, TSR_PAGE_SIZE, page, sizeof(page)), 0);
   assert_int_equal(tsr_write_gem_close(w, 0, 3), 0);
   assert_int_equal(tsr_write_queue_destroy(w, 0, 1), 0);
   assert_int_equal(tsr_write_vm_destroy(w, 0, 2), 0);
   assert_int_equal(tsr_write_frame(w, 1, "end"), 0);
   assert_int_equal(tsr_writer_close(w), 0);

   struct tsr_reader *r;
   char err[256];
   assert_int_equal(tsr_reader_open(&r, path, err, sizeof(err)), 0);
   assert_int_equal(tsr_reader_seek_frame(r, 1), 0);
   struct tsr_state st;
   assert_int_equal(tsr_reader_state(r, &st), 0);
   assert_int_equal(st.num_vms, 1);
   assert_int_equal(st.vms[0].create.vm_id, 1);
   assert_int_equal(st.vms[0].create.kernel_end, 0x200000);
   assert_int_equal(st.vms[0].num_ops, 2); /* object 3's mapping went with it */
   assert_int_equal(st.vms[0].ops[0].handle, 1);
   assert_int_equal(st.vms[0].ops[1].handle, 2);
   assert_int_equal(st.vms[0].ops[1].addr, 0x2000000);
   assert_int_equal(st.num_objects, 2);
   assert_int_equal(st.objects[1].create.flags, DRM_ASAHI_GEM_VM_PRIVATE);
   assert_int_equal(st.objects[1].create.vm_id, 1);
   assert_int_equal(st.num_tsobjs, 1);
   assert_int_equal(st.tsobjs[0].bind.object_handle, 8);
   assert_int_equal(st.num_queues, 1);
   assert_int_equal(st.queues[0].create.queue_id, 2);
   assert_int_equal(st.queues[0].create.usc_exec_base, 0x5000);
   tsr_state_free(&st);
   struct tsr_hash h, want = tsr_hash_bytes(page, sizeof(page));
   assert_false(tsr_reader_object_page(r, 0, 1, 0, &h)); /* never recorded */
   assert_true(tsr_reader_object_page(r, 0, 1, 1, &h));
   assert_memory_equal(h.b, want.b, 16);
   assert_false(tsr_reader_object_page(r, 0, 3, 0, &h)); /* closed */
   assert_int_equal(tsr_reader_object_size(r, 0, 1), 2 * TSR_PAGE_SIZE);
   assert_int_equal(tsr_reader_object_size(r, 0, 3), 0);
   /* At the start nothing is alive. */
   assert_int_equal(tsr_reader_rewind(r), 0);
   assert_int_equal(tsr_reader_state(r, &st), 0);
   assert_int_equal(st.num_vms + st.num_objects + st.num_tsobjs + st.num_queues, 0);
   tsr_state_free(&st);
   tsr_reader_close(r);
   unlink(path);
}

static void test_child_traces(void **state)
{
   (void)state;
   const char *names[] = {"app.tsr", "app.123.tsr", "app.45.tsr", "app.x1.tsr", "apple.7.tsr",
                          "app.9.tsr.tmp"};
   for (size_t i = 0; i < 6; i++) {
      FILE *f = fopen(tmp_path(names[i]), "w");
      assert_non_null(f);
      fclose(f);
   }
   char **c = tsr_child_traces(tmp_path("app.tsr"));
   assert_non_null(c);
   assert_non_null(c[0]);
   assert_non_null(strstr(c[0], "/app.123.tsr"));
   assert_non_null(c[1]);
   assert_non_null(strstr(c[1], "/app.45.tsr"));
   assert_null(c[2]);
   tsr_free_paths(c);
   for (size_t i = 0; i < 6; i++)
      unlink(tmp_path(names[i]));
}

static int setup(void **state)
{
   (void)state;
   snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_trace.XXXXXX");
   return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
   (void)state;
   char cmd[128];
   snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
   return system(cmd) == 0 ? 0 : -1;
}

/* Page hashes are content addresses in the format: the dispatched variant
 * (XXH3 built for AVX2, trace_hash_avx2.c) must give exactly the baseline
 * build's values, and both the system libxxhash's (a third, separately
 * compiled XXH3: not inlined here). Every length class of XXH3 (0, 1-3,
 * 4-8, 9-16, 17-128, 129-240, long with partial and whole stripes and
 * blocks), random contents and misaligned starts. */
static void check_hash_variants(const uint8_t *p, size_t n)
{
   struct tsr_hash d = tsr_hash_bytes(p, n), b = tsr_hash_bytes_baseline(p, n);
   XXH128_hash_t x = XXH3_128bits(p, n);
   uint8_t xb[16];
   for (int i = 0; i < 8; i++) {
      xb[i] = (uint8_t)(x.low64 >> (8 * i));
      xb[8 + i] = (uint8_t)(x.high64 >> (8 * i));
   }
   if (memcmp(d.b, b.b, 16) || memcmp(b.b, xb, 16))
      fail_msg("hash of %zu bytes at +%zu: dispatched (%s) and baseline builds differ",
               n, (size_t)((uintptr_t)p & 63), tsr_hash_variant());
   if (tsr_hash64(p, n) != tsr_hash64_baseline(p, n) || tsr_hash64(p, n) != XXH3_64bits(p, n))
      fail_msg("64-bit hash of %zu bytes: dispatched (%s) and baseline builds differ", n,
               tsr_hash_variant());
#ifdef TSR_HASH_HAVE_AVX2
   /* the AVX2 build itself, also below the dispatch's size threshold */
   if (__builtin_cpu_supports("avx2")) {
      uint64_t h[2];
      tsr_hash128_avx2(p, n, h);
      if (h[0] != x.low64 || h[1] != x.high64 || tsr_hash64_avx2(p, n) != XXH3_64bits(p, n))
         fail_msg("AVX2 hash of %zu bytes differs from the baseline", n);
   }
#endif
}

static void test_hash_variants(void **state)
{
   (void)state;
   static const size_t lens[] = {0, 1, 2, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 1024,
                                 1025, 4095, 4096, 4097, 8192, 100000};
   enum { MAXLEN = 100000 + 64 };
   uint8_t *buf = malloc(MAXLEN);
   assert_non_null(buf);
   uint64_t x = 0x9e3779b97f4a7c15ull;
#define NEXT() (x ^= x << 13, x ^= x >> 7, x ^= x << 17, x)
   for (unsigned round = 0; round < 16; round++) {
      for (size_t i = 0; i < MAXLEN; i += 8) {
         uint64_t v = NEXT();
         memcpy(buf + i, &v, MAXLEN - i < 8 ? MAXLEN - i : 8);
      }
      if (round == 0)
         memset(buf, 0, MAXLEN);   /* zero pages: the commonest content */
      for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
         check_hash_variants(buf + round % 64 * (round & 1), lens[l]);
      for (unsigned k = 0; k < 64; k++) {   /* random lengths, mostly long */
         size_t n = (size_t)(NEXT() % (k < 32 ? 8192 : MAXLEN - 64));
         check_hash_variants(buf + NEXT() % 64, n);
      }
   }
#undef NEXT
   print_message("hash variant: %s\n", tsr_hash_variant());
   free(buf);
}

#ifdef TSR_HASH_HAVE_AVX2
#include <cpuid.h>

/* XGETBV with ECX=1: the XSAVE components in use; bit 2, the upper halves
 * of the YMM registers. */
static uint32_t xinuse(void)
{
   uint32_t a, d;
   __asm__ volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(1));
   (void)d;
   return a;
}
#endif

/* The AVX2 build must leave the upper halves of the vector registers clean
 * (vzeroupper): dirty, they make every later legacy-SSE instruction of the
 * host process slow (~6x for XXH3's own SSE2 loop on this machine), and the
 * compiler does not add it to xxhash's loop by itself. */
static void test_hash_clean_upper(void **state)
{
   (void)state;
#ifdef TSR_HASH_HAVE_AVX2
   unsigned a, b, c, d;
   if (!__builtin_cpu_supports("avx2") || !__get_cpuid_count(0xd, 1, &a, &b, &c, &d) ||
       !(a & 4u))
      skip();   /* no AVX2, or no XGETBV(1) to look with */
   assert_string_equal(tsr_hash_variant(), "avx2");
   static uint8_t page[TSR_PAGE_SIZE];
   struct tsr_hash h = tsr_hash_bytes(page, sizeof(page));
   assert_int_equal(xinuse() & 4u, 0);
   uint64_t h64 = tsr_hash64(page, sizeof(page));
   assert_int_equal(xinuse() & 4u, 0);
   (void)h, (void)h64;
#else
   skip();
#endif
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_buffer_reuse),
      cmocka_unit_test(test_dedup),
      cmocka_unit_test(test_pages_chunks),
      cmocka_unit_test(test_zstd_levels),
      cmocka_unit_test(test_zstd_params),
      cmocka_unit_test(test_pages_buffer_swap),
      cmocka_unit_test(test_writer_prefault),
      cmocka_unit_test(test_writer_close_at_exit),
      cmocka_unit_test(test_forget_memory),
      cmocka_unit_test(test_identical_pages_stored_once),
      cmocka_unit_test(test_seek),
      cmocka_unit_test(test_truncation),
      cmocka_unit_test(test_unindexed_seek),
      cmocka_unit_test(test_corruption),
      cmocka_unit_test(test_header_truncation),
      cmocka_unit_test(test_damaged_pages),
      cmocka_unit_test(test_repeated_chunks),
      cmocka_unit_test(test_impossible_sequences),
      cmocka_unit_test(test_bad_files),
      cmocka_unit_test(test_write_failure),
      cmocka_unit_test(test_child_traces),
      cmocka_unit_test(test_live_state),
      cmocka_unit_test(test_hash_variants),
      cmocka_unit_test(test_hash_clean_upper),
   };
   return cmocka_run_group_tests(tests, setup, teardown);
}
