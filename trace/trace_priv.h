/* SPDX-License-Identifier: MIT */
/*
 * Internal to the trace library: the on-disk constants and layouts of
 * docs/trace-format.md, little-endian accessors and a 128-bit-keyed map.
 */
#ifndef TSR_PRIV_H
#define TSR_PRIV_H

#include <stdint.h>
#include <string.h>

#include "trace/trace.h"

#define TSR_FILE_MAGIC "TSRTRACE"
#define TSR_FILE_HEADER_SIZE 32u
#define TSR_CHUNK_MAGIC 0x4b435354u /* "TSCK" */
#define TSR_CHUNK_HEADER_SIZE 40u
#define TSR_FOOTER_MAGIC "TSRINDEX"
#define TSR_FOOTER_SIZE 32u
#define TSR_RECORD_HEADER_SIZE 16u

/* A reader refuses larger chunks: it bounds one allocation by this, which
 * also keeps a hostile file from asking for gigabytes. */
#define TSR_MAX_CHUNK_BYTES (64u << 20)
/* Memory records are split so one never exceeds a chunk. */
#define TSR_MAX_PAGES_PER_RECORD 4096u

enum tsr_chunk_type {
   TSR_CHUNK_RECORDS = 1,
   TSR_CHUNK_PAGES = 2,
   TSR_CHUNK_INDEX = 3,
};

#define TSR_CHUNK_FLAG_ZSTD 0x1u

/* Fixed record payload prefix sizes (before variable parts). */
#define TSR_SUBMIT_FIXED 40u
#define TSR_FWJOB_FIXED 48u
#define TSR_SHADER_SIZE 48u
#define TSR_VMBIND_FIXED 16u
#define TSR_MEMORY_FIXED 16u
#define TSR_COMPLETION_FIXED 24u
#define TSR_FRAME_FIXED 16u
#define TSR_DRIVER_FIXED 24u
#define TSR_META_FIXED 8u
#define TSR_PARAMS_FIXED 8u

/* Index entry sizes. */
#define TSR_IDX_HEADER 16u
#define TSR_IDX_CHUNK 16u
#define TSR_IDX_POS 8u
#define TSR_IDX_PAGE 24u

static inline uint16_t tsr_rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t tsr_rd32(const uint8_t *p)
{
   return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t tsr_rd64(const uint8_t *p)
{
   return (uint64_t)tsr_rd32(p) | (uint64_t)tsr_rd32(p + 4) << 32;
}
static inline void tsr_wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void tsr_wr32(uint8_t *p, uint32_t v)
{
   for (int i = 0; i < 4; i++)
      p[i] = (uint8_t)(v >> (8 * i));
}
static inline void tsr_wr64(uint8_t *p, uint64_t v)
{
   tsr_wr32(p, (uint32_t)v);
   tsr_wr32(p + 4, (uint32_t)(v >> 32));
}

uint64_t tsr_hash64(const void *data, size_t size);
/* The baseline (non-dispatched, SSE2 on x86-64) builds of tsr_hash_bytes
 * and tsr_hash64, and the variant those use ("avx2" or "baseline"): for
 * the test that the variants agree (their values are content addresses). */
struct tsr_hash tsr_hash_bytes_baseline(const void *data, size_t size);
uint64_t tsr_hash64_baseline(const void *data, size_t size);
const char *tsr_hash_variant(void);

/* Open-addressing map from a 128-bit key to a 64-bit value. Keys are
 * already uniformly distributed (hashes) or are mixed by the caller. */
struct tsr_map_entry {
   struct tsr_hash key;
   uint64_t value;
   uint8_t used;
};

struct tsr_map {
   struct tsr_map_entry *e;
   size_t cap, count; /* cap is a power of two or 0 */
};

void tsr_map_init(struct tsr_map *m);
void tsr_map_finish(struct tsr_map *m);
/* Pointer to the value of key, or NULL. */
uint64_t *tsr_map_get(const struct tsr_map *m, const struct tsr_hash *key);
/* Inserts (or finds) key; *inserted tells which. NULL on out of memory. */
uint64_t *tsr_map_put(struct tsr_map *m, const struct tsr_hash *key, int *inserted);

/* A key for small integer tuples (file, handle, ...), mixed so it spreads. */
struct tsr_hash tsr_key3(uint32_t kind, uint32_t a, uint64_t b);

#endif
