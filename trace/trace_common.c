/* SPDX-License-Identifier: MIT */
/*
 * Shared pieces: record names, hashing, the key map, child-trace discovery.
 */
#include <dirent.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "tessera/host_cpu.h"
#include "trace/trace_hash_x86.h"
#include "trace/trace_priv.h"

static const char *const record_names[TSR_REC_COUNT_] = {
   [TSR_REC_META] = "meta",
   [TSR_REC_DEVICE_PARAMS] = "device_params",
   [TSR_REC_DRIVER] = "driver",
   [TSR_REC_VM_CREATE] = "vm_create",
   [TSR_REC_VM_DESTROY] = "vm_destroy",
   [TSR_REC_VM_BIND] = "vm_bind",
   [TSR_REC_GEM_CREATE] = "gem_create",
   [TSR_REC_GEM_CLOSE] = "gem_close",
   [TSR_REC_BIND_OBJECT] = "bind_object",
   [TSR_REC_QUEUE_CREATE] = "queue_create",
   [TSR_REC_QUEUE_DESTROY] = "queue_destroy",
   [TSR_REC_SUBMIT] = "submit",
   [TSR_REC_MEMORY] = "memory",
   [TSR_REC_COMPLETION] = "completion",
   [TSR_REC_FRAME] = "frame",
   [TSR_REC_FW_JOB] = "fw_job",
   [TSR_REC_SHADER] = "shader",
};

const char *tsr_record_name(uint32_t type)
{
   if (type < TSR_REC_COUNT_ && record_names[type])
      return record_names[type];
   return "unknown";
}

/* Inputs up to this size take XXH3's scalar short paths (the same code in
 * every vector variant): only longer ones are worth the dispatch. */
#define HASH_VECTOR_MIN 241

/* The hash variant, chosen once: XXH3 compiled for AVX2 where the CPU and
 * the OS support it (trace/trace_hash_avx2.c: ~2.5x faster a page, and
 * immune to other code's dirty upper vector state), else the baseline
 * build below. All variants give the same values (test_trace checks).
 * Racing first calls choose the same thing; relaxed is enough. */
enum { HASH_UNCHOSEN, HASH_BASELINE, HASH_AVX2 };
static atomic_int hash_variant;

static int hash_choose(void)
{
   int v = atomic_load_explicit(&hash_variant, memory_order_relaxed);
   if (v != HASH_UNCHOSEN)
      return v;
   v = HASH_BASELINE;
#ifdef TSR_HASH_HAVE_AVX2
   /* glibc's view (include/tessera/host_cpu.h): set up by the dynamic
    * loader before any constructor (the capture layer's calls here), it
    * includes the OS's XSAVE support for the YMM state, and unlike
    * __builtin_cpu_supports it links no CPUID constructor into every
    * program that hashes (tests/integration/startup_cost.sh). */
   if (tessera_host_avx2())
      v = HASH_AVX2;
#endif
   atomic_store_explicit(&hash_variant, v, memory_order_relaxed);
   return v;
}

const char *tsr_hash_variant(void)
{
   return hash_choose() == HASH_AVX2 ? "avx2" : "baseline";
}

struct tsr_hash tsr_hash_bytes_baseline(const void *data, size_t size)
{
   XXH128_hash_t h = XXH3_128bits(data, size);
   struct tsr_hash out;
   tsr_wr64(out.b, h.low64);
   tsr_wr64(out.b + 8, h.high64);
   return out;
}

uint64_t tsr_hash64_baseline(const void *data, size_t size)
{
   return XXH3_64bits(data, size);
}

struct tsr_hash tsr_hash_bytes(const void *data, size_t size)
{
#ifdef TSR_HASH_HAVE_AVX2
   if (size >= HASH_VECTOR_MIN && hash_choose() == HASH_AVX2) {
      uint64_t h[2];
      tsr_hash128_avx2(data, size, h);
      struct tsr_hash out;
      tsr_wr64(out.b, h[0]);
      tsr_wr64(out.b + 8, h[1]);
      return out;
   }
#endif
   return tsr_hash_bytes_baseline(data, size);
}

uint64_t tsr_hash64(const void *data, size_t size)
{
#ifdef TSR_HASH_HAVE_AVX2
   if (size >= HASH_VECTOR_MIN && hash_choose() == HASH_AVX2)
      return tsr_hash64_avx2(data, size);
#endif
   return tsr_hash64_baseline(data, size);
}

struct tsr_hash tsr_key3(uint32_t kind, uint32_t a, uint64_t b)
{
   uint8_t buf[16];
   tsr_wr32(buf, kind);
   tsr_wr32(buf + 4, a);
   tsr_wr64(buf + 8, b);
   return tsr_hash_bytes(buf, sizeof(buf));
}

void tsr_map_init(struct tsr_map *m)
{
   memset(m, 0, sizeof(*m));
}

void tsr_map_finish(struct tsr_map *m)
{
   free(m->e);
   memset(m, 0, sizeof(*m));
}

static size_t map_slot(const struct tsr_hash *key, size_t cap)
{
   return (size_t)tsr_rd64(key->b) & (cap - 1);
}

uint64_t *tsr_map_get(const struct tsr_map *m, const struct tsr_hash *key)
{
   if (!m->cap)
      return NULL;
   for (size_t i = map_slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
      struct tsr_map_entry *e = &m->e[i];
      if (!e->used)
         return NULL;
      if (!memcmp(e->key.b, key->b, 16))
         return &e->value;
   }
}

static int map_grow(struct tsr_map *m)
{
   size_t cap = m->cap ? m->cap * 2 : 64;
   struct tsr_map_entry *e = calloc(cap, sizeof(*e));
   if (!e)
      return -1;
   for (size_t i = 0; i < m->cap; i++) {
      if (!m->e[i].used)
         continue;
      size_t j = map_slot(&m->e[i].key, cap);
      while (e[j].used)
         j = (j + 1) & (cap - 1);
      e[j] = m->e[i];
   }
   free(m->e);
   m->e = e;
   m->cap = cap;
   return 0;
}

uint64_t *tsr_map_put(struct tsr_map *m, const struct tsr_hash *key, int *inserted)
{
   /* Load factor <= 1/2 keeps probe chains short for random keys. */
   if ((m->count + 1) * 2 > m->cap && map_grow(m))
      return NULL;
   size_t i = map_slot(key, m->cap);
   while (m->e[i].used) {
      if (!memcmp(m->e[i].key.b, key->b, 16)) {
         *inserted = 0;
         return &m->e[i].value;
      }
      i = (i + 1) & (m->cap - 1);
   }
   m->e[i].used = 1;
   m->e[i].key = *key;
   m->e[i].value = 0;
   m->count++;
   *inserted = 1;
   return &m->e[i].value;
}

/* NAME.tsr -> NAME.<digits>.tsr in the same directory. */
char **tsr_child_traces(const char *path)
{
   const char *slash = strrchr(path, '/');
   size_t dirlen = slash ? (size_t)(slash - path) : 0;
   const char *base = slash ? slash + 1 : path;
   size_t blen = strlen(base);
   size_t slen = strlen(TSR_SUFFIX);
   if (blen > slen && !strcmp(base + blen - slen, TSR_SUFFIX))
      blen -= slen;

   char *dir = slash ? strndup(path, dirlen ? dirlen : 1) : strdup(".");
   if (!dir)
      return NULL;
   DIR *d = opendir(dir);
   if (!d) {
      free(dir);
      return NULL;
   }
   char **list = calloc(1, sizeof(*list));
   size_t n = 0;
   struct dirent *de;
   while (list && (de = readdir(d))) {
      const char *nm = de->d_name;
      size_t len = strlen(nm);
      if (len <= blen + 1 + slen || strncmp(nm, base, blen) || nm[blen] != '.' ||
          strcmp(nm + len - slen, TSR_SUFFIX))
         continue;
      size_t dstart = blen + 1, dend = len - slen;
      if (dend <= dstart)
         continue;
      int digits = 1;
      for (size_t i = dstart; i < dend; i++)
         if (nm[i] < '0' || nm[i] > '9')
            digits = 0;
      if (!digits)
         continue;
      char **nl = realloc(list, (n + 2) * sizeof(*list));
      if (!nl)
         break;
      list = nl;
      size_t plen = strlen(dir) + 1 + len + 1;
      list[n] = malloc(plen);
      if (!list[n])
         break;
      snprintf(list[n], plen, "%s/%s", dir, nm);
      list[++n] = NULL;
   }
   closedir(d);
   free(dir);
   if (list) {
      /* Sorted so that `info` output is stable. */
      for (size_t i = 1; i < n; i++)
         for (size_t j = i; j > 0 && strcmp(list[j - 1], list[j]) > 0; j--) {
            char *t = list[j];
            list[j] = list[j - 1];
            list[j - 1] = t;
         }
   }
   return list;
}

void tsr_free_paths(char **paths)
{
   if (!paths)
      return;
   for (char **p = paths; *p; p++)
      free(*p);
   free(paths);
}
