/* SPDX-License-Identifier: MIT */
/*
 * Trace reader: chunk table (forward header scan, cross-checked with the
 * index), record iteration with state tracking (objects, VM mappings,
 * queues), memory reads through the page directory, seek and verify.
 *
 * Every length read from the file is checked against what is actually
 * there before it is used; allocations are bounded by TSR_MAX_CHUNK_BYTES
 * or by the file's size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "trace/trace_priv.h"
#include "uapi/uapi_vm_map.h"

#ifdef TESSERA_FUZZING
#define TSR_FUZZING 1
#else
#define TSR_FUZZING 0
#endif

#define TSR_PAGE_CACHE 8

struct rchunk {
   uint64_t off; /* of the header */
   uint32_t type, flags, stored, raw, count;
   uint64_t hash;
   bool damaged; /* its payload failed its checksum (noted as damage once) */
};

struct rpos {
   uint32_t chunk, offset;
};

struct robject {
   uint64_t size;
   uint32_t gen; /* distinguishes objects that reused a handle */
   bool live;    /* created and not closed yet */
   uint32_t file;
   struct tsr_gem_create create; /* as last created (live only) */
};

struct rvm {
   struct uapi_vm_map map;
   bool live;
   uint32_t file;
   struct tsr_vm_create create;
};

struct rqueue {
   uint32_t file;
   struct tsr_queue_create create;
};

struct rtsobj {
   uint32_t file;
   struct tsr_bind_object bind;
   bool live;
};

struct tsr_reader {
   int fd;
   const uint8_t *mem;
   uint64_t size;
   struct tsr_info info;
   char err[256];
   char damage[256]; /* the first damage worked around (tsr_reader_damage) */
   char why[160];    /* why apply_state refused a record */
   struct tsr_map noted; /* page contents already noted as unreadable */

   struct rchunk *chunks;
   uint32_t nchunks;
   struct rpos *frames, *submits;
   uint32_t nframes, nsubmits;
   struct tsr_map pagedir; /* hash -> chunk << 32 | slot */
   bool tables_ok;

   /* Cursor. */
   uint32_t cur_chunk;
   uint8_t *cur_raw;
   uint32_t cur_raw_chunk; /* UINT32_MAX: none loaded */
   uint32_t cur_off;
   uint32_t cur_seq, cur_frame;
   bool at_end;

   /* Decompressed page chunks, least recently used replaced first: an
    * object's pages come from the frame that first stored each one, so a
    * read touches a few chunks over and over. */
   uint8_t *pg_raw[TSR_PAGE_CACHE];
   uint32_t pg_chunk[TSR_PAGE_CACHE];
   uint64_t pg_used[TSR_PAGE_CACHE], pg_clock;

   /* State. */
   struct tsr_map objects; /* (file, handle) -> index in objs */
   struct robject *objs;
   uint32_t nobjs, objs_cap, gen;
   struct tsr_map objpages; /* (gen, page) -> hash index in hashes */
   struct tsr_hash *hashes;
   size_t nhashes, hashes_cap;
   struct tsr_map vms; /* (file, vm) -> index in vmv */
   struct rvm *vmv;
   uint32_t nvms, vms_cap;
   struct tsr_map queues; /* (file, queue) -> vm << 32 | index in qbase */
   uint64_t *qbase;
   bool *qlive; /* parallel to qbase */
   struct rqueue *qv; /* parallel to qbase: what created it */
   uint32_t nqueues, queues_cap;
   struct rtsobj *tsv; /* timestamp objects, in bind order (a few) */
   uint32_t ntsobjs, tsobjs_cap;

   /* Scratch for decoded arrays of the current record. */
   void *scratch;
   struct drm_asahi_params_global params;
};

static int fail(struct tsr_reader *r, int err, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(r->err, sizeof(r->err), fmt, ap);
   va_end(ap);
   return err;
}

/* Damage the reader works around (salvage): counted, the first one kept. */
static void note_damage(struct tsr_reader *r, const char *fmt, ...)
{
   if (!r->info.damage++) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(r->damage, sizeof(r->damage), fmt, ap);
      va_end(ap);
   }
}

/* A refused record's reason, for tsr_reader_next()'s message. */
static int refuse(struct tsr_reader *r, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(r->why, sizeof(r->why), fmt, ap);
   va_end(ap);
   return -EBADMSG;
}

const char *tsr_reader_damage(struct tsr_reader *r)
{
   return r->damage;
}

const char *tsr_reader_error(struct tsr_reader *r)
{
   return r->err;
}

const struct tsr_info *tsr_reader_info(struct tsr_reader *r)
{
   return &r->info;
}

static int read_at(struct tsr_reader *r, uint64_t off, void *buf, size_t len)
{
   if (off > r->size || len > r->size - off)
      return -EBADMSG;
   if (r->mem) {
      memcpy(buf, r->mem + off, len);
      return 0;
   }
   uint8_t *p = buf;
   while (len) {
      ssize_t n = pread(r->fd, p, len, (off_t)off);
      if (n < 0 && errno == EINTR)
         continue;
      if (n <= 0)
         return n < 0 ? -errno : -EIO;
      p += n;
      off += (uint64_t)n;
      len -= (size_t)n;
   }
   return 0;
}

static int parse_chunk_header(const uint8_t *h, struct rchunk *c, uint64_t off)
{
   if (tsr_rd32(h) != TSR_CHUNK_MAGIC || (!TSR_FUZZING && tsr_rd64(h + 32) != tsr_hash64(h, 32)))
      return -EBADMSG;
   c->off = off;
   c->type = tsr_rd16(h + 4);
   c->flags = tsr_rd16(h + 6);
   c->stored = tsr_rd32(h + 8);
   c->raw = tsr_rd32(h + 12);
   c->count = tsr_rd32(h + 16);
   c->hash = tsr_rd64(h + 24);
   c->damaged = false;
   if (c->stored > TSR_MAX_CHUNK_BYTES || c->raw > TSR_MAX_CHUNK_BYTES)
      return -EBADMSG;
   if (!(c->flags & TSR_CHUNK_FLAG_ZSTD) && c->stored != c->raw)
      return -EBADMSG;
   return 0;
}

static const char *chunk_kind(uint32_t type)
{
   switch (type) {
   case TSR_CHUNK_RECORDS: return "records";
   case TSR_CHUNK_PAGES: return "pages";
   case TSR_CHUNK_INDEX: return "index";
   default: return "unknown";
   }
}

/* "pages chunk 3 at offset 1234": what messages call a chunk, so that a
 * damaged one can be found (tessera info --verify, a hex editor). */
static const char *chunk_label(const struct tsr_reader *r, const struct rchunk *c, char *buf,
                               size_t n)
{
   if (r->chunks && c >= r->chunks && c < r->chunks + r->nchunks)
      snprintf(buf, n, "%s chunk %u at offset %llu", chunk_kind(c->type),
               (unsigned)(c - r->chunks), (unsigned long long)c->off);
   else
      snprintf(buf, n, "%s chunk at offset %llu", chunk_kind(c->type),
               (unsigned long long)c->off);
   return buf;
}

/* Reads, checks and decompresses a chunk's payload into a new buffer of
 * c->raw bytes (+8 so empty payloads still allocate). */
static int load_chunk(struct tsr_reader *r, const struct rchunk *c, uint8_t **out)
{
   char name[96];
   *out = NULL;
   uint8_t *stored = malloc((size_t)c->stored + 8);
   if (!stored)
      return fail(r, -ENOMEM, "out of memory");
   int err = read_at(r, c->off + TSR_CHUNK_HEADER_SIZE, stored, c->stored);
   if (err) {
      free(stored);
      return fail(r, err, "%s: cannot read its payload", chunk_label(r, c, name, sizeof(name)));
   }
   /* Fuzzing builds skip the checksum so mutations reach the parsers. */
   if (!TSR_FUZZING && tsr_hash64(stored, c->stored) != c->hash) {
      free(stored);
      return fail(r, -EBADMSG, "%s: checksum mismatch (corrupt data)",
                  chunk_label(r, c, name, sizeof(name)));
   }
   if (!(c->flags & TSR_CHUNK_FLAG_ZSTD)) {
      *out = stored;
      return 0;
   }
   uint8_t *raw = malloc((size_t)c->raw + 8);
   if (!raw) {
      free(stored);
      return fail(r, -ENOMEM, "out of memory");
   }
   unsigned long long fcs = ZSTD_getFrameContentSize(stored, c->stored);
   size_t n = ZSTD_decompress(raw, c->raw, stored, c->stored);
   free(stored);
   if (fcs != c->raw || ZSTD_isError(n) || n != c->raw) {
      free(raw);
      return fail(r, -EBADMSG, "%s: bad compressed data", chunk_label(r, c, name, sizeof(name)));
   }
   *out = raw;
   return 0;
}

/* Checks the payload checksum of every chunk without decompressing (an
 * indexed file's chunks are otherwise only read when needed, so a damaged
 * pages chunk would go unnoticed by a reader that never reads its pages).
 * Each damaged chunk is noted as damage; records chunks fail again, with
 * the same message, when tsr_reader_next() reaches them. */
static int check_payloads(struct tsr_reader *r)
{
   if (TSR_FUZZING)
      return 0;
   uint8_t *buf = NULL;
   size_t cap = 0;
   for (uint32_t i = 0; i < r->nchunks; i++) {
      const struct rchunk *c = &r->chunks[i];
      const uint8_t *p;
      if (r->mem) {
         if (c->off + TSR_CHUNK_HEADER_SIZE + c->stored > r->size)
            continue; /* scan_chunks already bounded it; defensive */
         p = r->mem + c->off + TSR_CHUNK_HEADER_SIZE;
      } else {
         if (c->stored + 8 > cap) {
            free(buf);
            cap = (size_t)c->stored + 8;
            if (!(buf = malloc(cap)))
               return fail(r, -ENOMEM, "out of memory");
         }
         if (read_at(r, c->off + TSR_CHUNK_HEADER_SIZE, buf, c->stored)) {
            char name[96];
            note_damage(r, "%s: cannot read its payload", chunk_label(r, c, name, sizeof(name)));
            continue;
         }
         p = buf;
      }
      if (tsr_hash64(p, c->stored) != c->hash) {
         char name[96];
         r->chunks[i].damaged = true;
         note_damage(r, "%s: checksum mismatch (corrupt data)",
                     chunk_label(r, c, name, sizeof(name)));
      }
   }
   free(buf);
   return 0;
}

/* ------------------------------------------------------- record framing */

/* Validates the record at raw+off; returns its total size or 0 if bad. */
static uint32_t record_span(const uint8_t *raw, uint32_t rawsz, uint32_t off)
{
   if (off > rawsz || rawsz - off < TSR_RECORD_HEADER_SIZE)
      return 0;
   uint64_t size = tsr_rd32(raw + off + 8);
   uint64_t total = TSR_RECORD_HEADER_SIZE + ((size + 7) & ~7ull);
   if (total > rawsz - off)
      return 0;
   return (uint32_t)total;
}

static bool str_ok(const uint8_t *p, uint64_t len, uint64_t avail)
{
   return len < avail && p[len] == 0;
}

/* Fills rec->u from the payload. -EBADMSG if the payload is inconsistent. */
static int decode_record(struct tsr_reader *r, struct tsr_record *rec)
{
   const uint8_t *p = rec->data;
   uint64_t n = rec->size;
   free(r->scratch);
   r->scratch = NULL;
   memset(&rec->u, 0, sizeof(rec->u));

   switch (rec->type) {
   case TSR_REC_META: {
      if (n < TSR_META_FIXED)
         return -EBADMSG;
      uint64_t kl = tsr_rd32(p), vl = tsr_rd32(p + 4);
      const uint8_t *k = p + TSR_META_FIXED;
      uint64_t avail = n - TSR_META_FIXED;
      if (!str_ok(k, kl, avail) || !str_ok(k + kl + 1, vl, avail - kl - 1))
         return -EBADMSG;
      rec->u.meta.key = (const char *)k;
      rec->u.meta.value = (const char *)k + kl + 1;
      return 0;
   }
   case TSR_REC_DRIVER: {
      if (n < TSR_DRIVER_FIXED)
         return -EBADMSG;
      rec->u.driver.major = (int32_t)tsr_rd32(p);
      rec->u.driver.minor = (int32_t)tsr_rd32(p + 4);
      rec->u.driver.patchlevel = (int32_t)tsr_rd32(p + 8);
      const uint8_t *s = p + TSR_DRIVER_FIXED;
      uint64_t avail = n - TSR_DRIVER_FIXED;
      const char **dst[3] = {&rec->u.driver.name, &rec->u.driver.date, &rec->u.driver.desc};
      for (int i = 0; i < 3; i++) {
         uint64_t l = tsr_rd32(p + 12 + 4 * i);
         if (!str_ok(s, l, avail))
            return -EBADMSG;
         *dst[i] = (const char *)s;
         s += l + 1;
         avail -= l + 1;
      }
      return 0;
   }
   case TSR_REC_DEVICE_PARAMS: {
      if (n < TSR_PARAMS_FIXED)
         return -EBADMSG;
      uint64_t sz = tsr_rd32(p);
      if (sz > n - TSR_PARAMS_FIXED)
         return -EBADMSG;
      /* Older (shorter) images are zero-extended, newer ones cut. */
      memset(&r->params, 0, sizeof(r->params));
      memcpy(&r->params, p + TSR_PARAMS_FIXED, sz < sizeof(r->params) ? sz : sizeof(r->params));
      rec->u.params.p = &r->params;
      rec->u.params.size = (uint32_t)sz;
      return 0;
   }
   case TSR_REC_VM_CREATE:
      if (n < 24)
         return -EBADMSG;
      rec->u.vm_create.vm_id = tsr_rd32(p);
      rec->u.vm_create.kernel_start = tsr_rd64(p + 8);
      rec->u.vm_create.kernel_end = tsr_rd64(p + 16);
      return 0;
   case TSR_REC_VM_DESTROY:
   case TSR_REC_GEM_CLOSE:
   case TSR_REC_QUEUE_DESTROY:
      if (n < 4)
         return -EBADMSG;
      rec->u.vm_id = tsr_rd32(p); /* same storage as handle / queue_id */
      return 0;
   case TSR_REC_VM_BIND: {
      if (n < TSR_VMBIND_FIXED)
         return -EBADMSG;
      uint64_t num = tsr_rd32(p + 4), opsz = tsr_rd32(p + 12);
      if (opsz < 32 || num > (n - TSR_VMBIND_FIXED) / opsz)
         return -EBADMSG;
      struct drm_asahi_gem_bind_op *ops = calloc(num ? num : 1, sizeof(*ops));
      if (!ops)
         return -ENOMEM;
      for (uint64_t i = 0; i < num; i++) {
         const uint8_t *o = p + TSR_VMBIND_FIXED + i * opsz;
         ops[i].flags = tsr_rd32(o);
         ops[i].handle = tsr_rd32(o + 4);
         ops[i].offset = tsr_rd64(o + 8);
         ops[i].range = tsr_rd64(o + 16);
         ops[i].addr = tsr_rd64(o + 24);
      }
      r->scratch = ops;
      rec->u.vm_bind.vm_id = tsr_rd32(p);
      rec->u.vm_bind.num_ops = (uint32_t)num;
      rec->u.vm_bind.result = (int32_t)tsr_rd32(p + 8);
      rec->u.vm_bind.ops = ops;
      return 0;
   }
   case TSR_REC_GEM_CREATE:
      if (n < 24)
         return -EBADMSG;
      rec->u.gem_create.handle = tsr_rd32(p);
      rec->u.gem_create.flags = tsr_rd32(p + 4);
      rec->u.gem_create.vm_id = tsr_rd32(p + 8);
      rec->u.gem_create.size = tsr_rd64(p + 16);
      return 0;
   case TSR_REC_BIND_OBJECT:
      if (n < 32)
         return -EBADMSG;
      rec->u.bind_object.op = tsr_rd32(p);
      rec->u.bind_object.flags = tsr_rd32(p + 4);
      rec->u.bind_object.handle = tsr_rd32(p + 8);
      rec->u.bind_object.object_handle = tsr_rd32(p + 12);
      rec->u.bind_object.offset = tsr_rd64(p + 16);
      rec->u.bind_object.range = tsr_rd64(p + 24);
      return 0;
   case TSR_REC_QUEUE_CREATE:
      if (n < 24)
         return -EBADMSG;
      rec->u.queue_create.queue_id = tsr_rd32(p);
      rec->u.queue_create.vm_id = tsr_rd32(p + 4);
      rec->u.queue_create.priority = tsr_rd32(p + 8);
      rec->u.queue_create.flags = tsr_rd32(p + 12);
      rec->u.queue_create.usc_exec_base = tsr_rd64(p + 16);
      return 0;
   case TSR_REC_SUBMIT: {
      if (n < TSR_SUBMIT_FIXED)
         return -EBADMSG;
      struct tsr_submit *s = &rec->u.submit;
      uint64_t in = tsr_rd32(p + 12), out = tsr_rd32(p + 16), cb = tsr_rd32(p + 20);
      if ((in + out) * 16 + cb > n - TSR_SUBMIT_FIXED)
         return -EBADMSG;
      struct drm_asahi_sync *sy = calloc(in + out + 1, sizeof(*sy));
      if (!sy)
         return -ENOMEM;
      const uint8_t *q = p + TSR_SUBMIT_FIXED;
      for (uint64_t i = 0; i < in + out; i++, q += 16) {
         sy[i].sync_type = tsr_rd32(q);
         sy[i].handle = tsr_rd32(q + 4);
         sy[i].timeline_value = tsr_rd64(q + 8);
      }
      r->scratch = sy;
      s->queue_id = tsr_rd32(p + 4);
      s->flags = tsr_rd32(p + 8);
      s->in_sync_count = (uint32_t)in;
      s->out_sync_count = (uint32_t)out;
      s->syncs = sy;
      s->cmdbuf_size = (uint32_t)cb;
      s->cmdbuf = q;
      s->result = (int32_t)tsr_rd32(p + 24);
      s->cpu_time_ns = tsr_rd64(p + 32);
      return 0;
   }
   case TSR_REC_MEMORY: {
      if (n < TSR_MEMORY_FIXED)
         return -EBADMSG;
      uint64_t np = tsr_rd32(p + 4);
      if (np > (n - TSR_MEMORY_FIXED) / 16)
         return -EBADMSG;
      rec->u.memory.handle = tsr_rd32(p);
      rec->u.memory.num_pages = (uint32_t)np;
      rec->u.memory.first_page = tsr_rd64(p + 8);
      rec->u.memory.hashes = p + TSR_MEMORY_FIXED;
      return 0;
   }
   case TSR_REC_COMPLETION: {
      if (n < TSR_COMPLETION_FIXED)
         return -EBADMSG;
      uint64_t nt = tsr_rd32(p + 16);
      if (nt > (n - TSR_COMPLETION_FIXED) / 16)
         return -EBADMSG;
      struct tsr_timestamp_value *ts = calloc(nt + 1, sizeof(*ts));
      if (!ts)
         return -ENOMEM;
      for (uint64_t i = 0; i < nt; i++) {
         const uint8_t *q = p + TSR_COMPLETION_FIXED + i * 16;
         ts[i].object_handle = tsr_rd32(q);
         ts[i].offset = tsr_rd32(q + 4);
         ts[i].value = tsr_rd64(q + 8);
      }
      r->scratch = ts;
      rec->u.completion.seq = tsr_rd32(p);
      rec->u.completion.status = (int32_t)tsr_rd32(p + 4);
      rec->u.completion.cpu_time_ns = tsr_rd64(p + 8);
      rec->u.completion.num_timestamps = (uint32_t)nt;
      rec->u.completion.timestamps = ts;
      return 0;
   }
   case TSR_REC_FRAME: {
      if (n < TSR_FRAME_FIXED)
         return -EBADMSG;
      uint64_t l = tsr_rd32(p + 8);
      if (!str_ok(p + TSR_FRAME_FIXED, l, n - TSR_FRAME_FIXED))
         return -EBADMSG;
      rec->u.frame.frame = r->cur_frame;
      rec->u.frame.kind = tsr_rd32(p + 4);
      rec->u.frame.label = (const char *)p + TSR_FRAME_FIXED;
      return 0;
   }
   case TSR_REC_FW_JOB: {
      if (n < TSR_FWJOB_FIXED)
         return -EBADMSG;
      struct tsr_fw_job *j = &rec->u.fw_job;
      uint64_t hs = tsr_rd32(p + 32), ss = tsr_rd32(p + 36), ps = tsr_rd32(p + 40);
      if (hs + ss + ps > n - TSR_FWJOB_FIXED)
         return -EBADMSG;
      j->seq = tsr_rd32(p);
      j->queue_id = tsr_rd32(p + 4);
      j->pipe = tsr_rd32(p + 8);
      j->vm_slot = tsr_rd32(p + 12);
      j->job_va = tsr_rd64(p + 16);
      j->payload_va = tsr_rd64(p + 24);
      j->header_size = (uint32_t)hs;
      j->script_size = (uint32_t)ss;
      j->payload_size = (uint32_t)ps;
      j->header = p + TSR_FWJOB_FIXED;
      j->script = ss ? j->header + hs : NULL;
      j->payload = j->header + hs + ss;
      return 0;
   }
   case TSR_REC_SHADER: {
      if (n < TSR_SHADER_SIZE)
         return -EBADMSG;
      struct tsr_shader *s = &rec->u.shader;
      s->seq = tsr_rd32(p);
      s->stage = tsr_rd32(p + 4);
      s->size = tsr_rd32(p + 8);
      s->usc_base = tsr_rd64(p + 16);
      s->va = tsr_rd64(p + 24);
      memcpy(s->hash.b, p + 32, 16);
      return 0;
   }
   default:
      return 0; /* unknown: raw bytes only (forward compatibility) */
   }
}

/* ---------------------------------------------------------------- state */

static struct tsr_hash key_page(uint32_t gen, uint64_t page)
{
   return tsr_key3(0x70616765, gen, page);
}

static void state_reset(struct tsr_reader *r)
{
   tsr_map_finish(&r->objects);
   tsr_map_finish(&r->objpages);
   tsr_map_finish(&r->vms);
   tsr_map_finish(&r->queues);
   for (uint32_t i = 0; i < r->nvms; i++)
      uapi_vm_map_free(&r->vmv[i].map);
   free(r->objs);
   free(r->hashes);
   free(r->vmv);
   free(r->qbase);
   free(r->qlive);
   free(r->qv);
   free(r->tsv);
   r->qlive = NULL;
   r->qv = NULL;
   r->tsv = NULL;
   r->ntsobjs = r->tsobjs_cap = 0;
   r->objs = NULL;
   r->hashes = NULL;
   r->vmv = NULL;
   r->qbase = NULL;
   r->nobjs = r->objs_cap = r->nvms = r->vms_cap = r->nqueues = r->queues_cap = 0;
   r->nhashes = r->hashes_cap = 0;
   r->gen = 0;
}

static int grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
   if (need <= *cap)
      return 0;
   uint32_t c = *cap ? *cap : 16;
   while (c < need)
      c *= 2;
   void *n = realloc(*arr, (size_t)c * elem);
   if (!n)
      return -ENOMEM;
   *arr = n;
   *cap = c;
   return 0;
}

static struct robject *state_object(struct tsr_reader *r, uint32_t file, uint32_t handle)
{
   struct tsr_hash k = tsr_key3(1, file, handle);
   uint64_t *v = tsr_map_get(&r->objects, &k);
   return v ? &r->objs[*v] : NULL;
}

static struct rvm *state_vm(struct tsr_reader *r, uint32_t file, uint32_t vm, bool create)
{
   struct tsr_hash k = tsr_key3(2, file, vm);
   uint64_t *v = tsr_map_get(&r->vms, &k);
   if (v || !create)
      return v ? &r->vmv[*v] : NULL;
   if (grow((void **)&r->vmv, &r->vms_cap, r->nvms + 1, sizeof(*r->vmv)))
      return NULL;
   int ins;
   v = tsr_map_put(&r->vms, &k, &ins);
   if (!v)
      return NULL;
   *v = r->nvms;
   r->vmv[r->nvms] = (struct rvm){ .file = file, .create = { .vm_id = vm } };
   return &r->vmv[r->nvms++];
}

/*
 * Applies a record to the tracked state. Besides malformed payloads it
 * refuses sequences no capture can produce (a live handle, VM or queue
 * created again, one used or destroyed before it was created, submission
 * numbers going back): what a repeated or reordered records chunk looks
 * like once the index that would have caught it is gone. The reason goes
 * to r->why.
 */
static int apply_state(struct tsr_reader *r, const struct tsr_record *rec)
{
   switch (rec->type) {
   case TSR_REC_GEM_CREATE: {
      struct tsr_hash k = tsr_key3(1, rec->file, rec->u.gem_create.handle);
      int ins;
      uint64_t *v = tsr_map_get(&r->objects, &k);
      if (v && r->objs[*v].live)
         return refuse(r, "GEM object %u of file %u created again while it exists "
                          "(records repeated?)", rec->u.gem_create.handle, rec->file);
      if (grow((void **)&r->objs, &r->objs_cap, r->nobjs + 1, sizeof(*r->objs)))
         return -ENOMEM;
      v = tsr_map_put(&r->objects, &k, &ins);
      if (!v)
         return -ENOMEM;
      if (ins)
         *v = r->nobjs++;
      r->objs[*v] = (struct robject){ .size = rec->u.gem_create.size, .gen = ++r->gen,
                                      .live = true, .file = rec->file,
                                      .create = rec->u.gem_create };
      return 0;
   }
   case TSR_REC_GEM_CLOSE: {
      struct robject *o = state_object(r, rec->file, rec->u.handle);
      if (!o || !o->live)
         return refuse(r, "GEM object %u of file %u closed but not created", rec->u.handle,
                       rec->file);
      /* a fresh generation: no pages */
      o->gen = ++r->gen, o->size = 0, o->live = false;
      /* The kernel unbinds a closed object from every VM of its file (as
       * the capture layer's and the replay's maps do). */
      for (uint32_t i = 0; i < r->nvms; i++)
         if (r->vmv[i].file == rec->file)
            uapi_vm_map_drop_handle(&r->vmv[i].map, rec->u.handle);
      return 0;
   }
   case TSR_REC_MEMORY: {
      struct robject *o = state_object(r, rec->file, rec->u.memory.handle);
      uint64_t first = rec->u.memory.first_page, np = rec->u.memory.num_pages;
      uint64_t opages = o ? (o->size + TSR_PAGE_SIZE - 1) / TSR_PAGE_SIZE : 0;
      if (!o || !o->live)
         return refuse(r, "memory of GEM object %u of file %u, which does not exist",
                       rec->u.memory.handle, rec->file);
      if (first > opages || np > opages - first)
         return refuse(r, "pages %llu..%llu of GEM object %u, which has %llu",
                       (unsigned long long)first, (unsigned long long)(first + np),
                       rec->u.memory.handle, (unsigned long long)opages);
      for (uint64_t i = 0; i < np; i++) {
         struct tsr_hash k = key_page(o->gen, first + i);
         int ins;
         uint64_t *v = tsr_map_put(&r->objpages, &k, &ins);
         if (!v)
            return -ENOMEM;
         if (r->nhashes == r->hashes_cap) {
            size_t c = r->hashes_cap ? r->hashes_cap * 2 : 1024;
            struct tsr_hash *h = realloc(r->hashes, c * sizeof(*h));
            if (!h)
               return -ENOMEM;
            r->hashes = h;
            r->hashes_cap = c;
         }
         memcpy(r->hashes[r->nhashes].b, rec->u.memory.hashes + i * 16, 16);
         *v = r->nhashes++;
      }
      return 0;
   }
   case TSR_REC_VM_CREATE: {
      struct rvm *vm = state_vm(r, rec->file, rec->u.vm_create.vm_id, false);
      if (vm && vm->live)
         return refuse(r, "VM %u of file %u created again while it exists (records repeated?)",
                       rec->u.vm_create.vm_id, rec->file);
      if (!vm && !(vm = state_vm(r, rec->file, rec->u.vm_create.vm_id, true)))
         return -ENOMEM;
      uapi_vm_map_clear(&vm->map);
      vm->live = true;
      vm->create = rec->u.vm_create;
      return 0;
   }
   case TSR_REC_VM_DESTROY: {
      struct rvm *vm = state_vm(r, rec->file, rec->u.vm_id, false);
      if (!vm || !vm->live)
         return refuse(r, "VM %u of file %u destroyed but not created", rec->u.vm_id, rec->file);
      uapi_vm_map_clear(&vm->map);
      vm->live = false;
      return 0;
   }
   case TSR_REC_VM_BIND: {
      if (rec->u.vm_bind.result)
         return 0; /* the kernel rejected it: nothing changed */
      struct rvm *vm = state_vm(r, rec->file, rec->u.vm_bind.vm_id, false);
      if (!vm || !vm->live)
         return refuse(r, "bind on VM %u of file %u, which does not exist",
                       rec->u.vm_bind.vm_id, rec->file);
      for (uint32_t i = 0; i < rec->u.vm_bind.num_ops; i++) {
         const struct drm_asahi_gem_bind_op *op = &rec->u.vm_bind.ops[i];
         if (op->addr + op->range < op->addr)
            return refuse(r, "bind op %u wraps around the address space", i);
         if (uapi_vm_map_unbind(&vm->map, op->addr, op->range))
            return -ENOMEM;
         if (op->flags & DRM_ASAHI_BIND_UNBIND || !op->range)
            continue;
         /* Bounded so a hostile trace cannot make us allocate forever. */
         if (vm->map.count >= (1u << 20))
            return refuse(r, "more than %u mappings", 1u << 20);
         if (uapi_vm_map_bind(&vm->map, op->addr, op->range, op->handle, op->offset,
                              op->flags))
            return -ENOMEM;
      }
      return 0;
   }
   case TSR_REC_QUEUE_CREATE: {
      struct tsr_hash k = tsr_key3(3, rec->file, rec->u.queue_create.queue_id);
      int ins;
      uint64_t *v = tsr_map_get(&r->queues, &k);
      if (v && r->qlive[(uint32_t)*v])
         return refuse(r, "queue %u of file %u created again while it exists "
                          "(records repeated?)", rec->u.queue_create.queue_id, rec->file);
      uint32_t cap = r->queues_cap;
      if (grow((void **)&r->qbase, &cap, r->nqueues + 1, sizeof(*r->qbase)))
         return -ENOMEM;
      cap = r->queues_cap;
      if (grow((void **)&r->qv, &cap, r->nqueues + 1, sizeof(*r->qv)))
         return -ENOMEM;
      if (grow((void **)&r->qlive, &r->queues_cap, r->nqueues + 1, sizeof(*r->qlive)))
         return -ENOMEM;
      v = tsr_map_put(&r->queues, &k, &ins);
      if (!v)
         return -ENOMEM;
      uint32_t idx = ins ? r->nqueues++ : (uint32_t)*v;
      *v = (uint64_t)rec->u.queue_create.vm_id << 32 | idx;
      r->qbase[idx] = rec->u.queue_create.usc_exec_base;
      r->qlive[idx] = true;
      r->qv[idx] = (struct rqueue){ rec->file, rec->u.queue_create };
      return 0;
   }
   case TSR_REC_BIND_OBJECT: {
      const struct tsr_bind_object *b = &rec->u.bind_object;
      struct rtsobj *t = NULL;
      for (uint32_t i = 0; i < r->ntsobjs && !t; i++)
         if (r->tsv[i].live && r->tsv[i].file == rec->file &&
             r->tsv[i].bind.object_handle == b->object_handle)
            t = &r->tsv[i];
      if (b->op == DRM_ASAHI_BIND_OBJECT_OP_UNBIND) {
         if (t)
            t->live = false;
         return 0;
      }
      for (uint32_t i = 0; i < r->ntsobjs && !t; i++)
         if (!r->tsv[i].live)
            t = &r->tsv[i]; /* reuse an unbound slot */
      if (!t) {
         /* Bounded: a hostile trace cannot make the list grow forever. */
         if (r->ntsobjs >= (1u << 16))
            return refuse(r, "more than %u timestamp objects", 1u << 16);
         if (grow((void **)&r->tsv, &r->tsobjs_cap, r->ntsobjs + 1, sizeof(*r->tsv)))
            return -ENOMEM;
         t = &r->tsv[r->ntsobjs++];
      }
      *t = (struct rtsobj){ rec->file, *b, true };
      return 0;
   }
   case TSR_REC_QUEUE_DESTROY: {
      struct tsr_hash k = tsr_key3(3, rec->file, rec->u.queue_id);
      uint64_t *v = tsr_map_get(&r->queues, &k);
      if (!v || !r->qlive[(uint32_t)*v])
         return refuse(r, "queue %u of file %u destroyed but not created", rec->u.queue_id,
                       rec->file);
      r->qlive[(uint32_t)*v] = false;
      return 0;
   }
   case TSR_REC_SUBMIT: {
      uint32_t seq = tsr_rd32(rec->data); /* decode_record checked the size */
      if (seq != r->cur_seq)
         return refuse(r, "submission number %u where %u was expected (records repeated "
                          "or out of order?)", seq, r->cur_seq);
      if (!rec->u.submit.result) {
         struct tsr_hash k = tsr_key3(3, rec->file, rec->u.submit.queue_id);
         uint64_t *v = tsr_map_get(&r->queues, &k);
         if (!v || !r->qlive[(uint32_t)*v])
            return refuse(r, "submission to queue %u of file %u, which does not exist",
                          rec->u.submit.queue_id, rec->file);
      }
      return 0;
   }
   case TSR_REC_COMPLETION:
      if (rec->u.completion.seq >= r->cur_seq)
         return refuse(r, "completion of submission %u, which was not made yet",
                       rec->u.completion.seq);
      return 0;
   default:
      return 0;
   }
}

bool tsr_reader_queue(struct tsr_reader *r, uint32_t file, uint32_t queue_id,
                      uint32_t *vm_id, uint64_t *usc_exec_base)
{
   struct tsr_hash k = tsr_key3(3, file, queue_id);
   uint64_t *v = tsr_map_get(&r->queues, &k);
   if (!v || !r->qlive[(uint32_t)*v])
      return false;
   if (vm_id)
      *vm_id = (uint32_t)(*v >> 32);
   if (usc_exec_base)
      *usc_exec_base = r->qbase[(uint32_t)*v];
   return true;
}

/* ---------------------------------------------------------- state export */

void tsr_state_free(struct tsr_state *s)
{
   if (!s)
      return;
   for (uint32_t i = 0; i < s->num_vms; i++)
      free(s->vms[i].ops);
   free(s->vms);
   free(s->objects);
   free(s->tsobjs);
   free(s->queues);
   memset(s, 0, sizeof(*s));
}

int tsr_reader_state(struct tsr_reader *r, struct tsr_state *out)
{
   memset(out, 0, sizeof(*out));
   out->vms = calloc(r->nvms ? r->nvms : 1, sizeof(*out->vms));
   out->objects = calloc(r->nobjs ? r->nobjs : 1, sizeof(*out->objects));
   out->tsobjs = calloc(r->ntsobjs ? r->ntsobjs : 1, sizeof(*out->tsobjs));
   out->queues = calloc(r->nqueues ? r->nqueues : 1, sizeof(*out->queues));
   if (!out->vms || !out->objects || !out->tsobjs || !out->queues)
      goto nomem;
   for (uint32_t i = 0; i < r->nvms; i++) {
      const struct rvm *vm = &r->vmv[i];
      if (!vm->live)
         continue;
      struct tsr_state_vm *v = &out->vms[out->num_vms++];
      v->file = vm->file;
      v->create = vm->create;
      v->ops = calloc(vm->map.count ? vm->map.count : 1, sizeof(*v->ops));
      if (!v->ops)
         goto nomem;
      for (size_t k = 0; k < vm->map.count; k++) {
         const struct uapi_mapping *m = &vm->map.m[k];
         v->ops[k] = (struct drm_asahi_gem_bind_op){ .flags = m->flags, .handle = m->handle,
                                                     .offset = m->offset, .range = m->range,
                                                     .addr = m->addr };
      }
      v->num_ops = (uint32_t)vm->map.count;
   }
   for (uint32_t i = 0; i < r->nobjs; i++)
      if (r->objs[i].live)
         out->objects[out->num_objects++] =
            (struct tsr_state_object){ r->objs[i].file, r->objs[i].create };
   for (uint32_t i = 0; i < r->ntsobjs; i++)
      if (r->tsv[i].live)
         out->tsobjs[out->num_tsobjs++] = (struct tsr_state_tsobj){ r->tsv[i].file, r->tsv[i].bind };
   for (uint32_t i = 0; i < r->nqueues; i++)
      if (r->qlive[i])
         out->queues[out->num_queues++] = (struct tsr_state_queue){ r->qv[i].file, r->qv[i].create };
   return 0;
nomem:
   tsr_state_free(out);
   return fail(r, -ENOMEM, "out of memory");
}

uint64_t tsr_reader_object_size(struct tsr_reader *r, uint32_t file, uint32_t handle)
{
   struct robject *o = state_object(r, file, handle);
   return o && o->live ? o->size : 0;
}

bool tsr_reader_object_page(struct tsr_reader *r, uint32_t file, uint32_t handle,
                            uint64_t page, struct tsr_hash *hash)
{
   struct robject *o = state_object(r, file, handle);
   if (!o || !o->live)
      return false;
   struct tsr_hash k = key_page(o->gen, page);
   uint64_t *v = tsr_map_get(&r->objpages, &k);
   if (!v)
      return false;
   *hash = r->hashes[*v];
   return true;
}

/* --------------------------------------------------------------- memory */

int tsr_reader_page(struct tsr_reader *r, const struct tsr_hash *h, void *dst)
{
   uint64_t *v = tsr_map_get(&r->pagedir, h);
   if (!v)
      return -ENOENT;
   uint32_t ci = (uint32_t)(*v >> 32), slot = (uint32_t)*v;
   if (ci >= r->nchunks || r->chunks[ci].type != TSR_CHUNK_PAGES)
      return -EBADMSG;
   const struct rchunk *c = &r->chunks[ci];
   unsigned e = 0;
   for (unsigned i = 0; i < TSR_PAGE_CACHE; i++) {
      if (r->pg_raw[i] && r->pg_chunk[i] == ci) {
         e = i;
         goto hit;
      }
      if (r->pg_used[i] < r->pg_used[e])
         e = i;
   }
   free(r->pg_raw[e]);
   r->pg_raw[e] = NULL;
   int err = load_chunk(r, c, &r->pg_raw[e]);
   if (err)
      return err;
   r->pg_chunk[e] = ci;
hit:
   r->pg_used[e] = ++r->pg_clock;
   const uint8_t *raw = r->pg_raw[e];
   uint64_t count = c->raw >= 8 ? tsr_rd32(raw) : 0;
   if (c->raw < 8 || tsr_rd32(raw + 4) != TSR_PAGE_SIZE || slot >= count ||
       count > (c->raw - 8) / (16 + TSR_PAGE_SIZE)) {
      char name[96];
      return fail(r, -EBADMSG, "%s: malformed (no page %u)", chunk_label(r, c, name, sizeof(name)),
                  slot);
   }
   memcpy(dst, raw + 8 + count * 16 + (uint64_t)slot * TSR_PAGE_SIZE, TSR_PAGE_SIZE);
   return 0;
}

/* A recorded page that read as zero: noted once per content, and not at
 * all when its chunk was already noted as damaged at open. */
static void note_page_damage(struct tsr_reader *r, const struct tsr_hash *h, int err,
                             uint32_t file, uint32_t handle, uint64_t page)
{
   uint64_t *at = tsr_map_get(&r->pagedir, h);
   if (at && (uint32_t)(*at >> 32) < r->nchunks && r->chunks[*at >> 32].damaged)
      return;
   int fresh = 1;
   tsr_map_put(&r->noted, h, &fresh); /* out of memory: note it again */
   if (!fresh)
      return;
   if (err == -ENOENT)
      note_damage(r, "page %llu of GEM object %u (file %u): its content is in no pages chunk",
                  (unsigned long long)page, handle, file);
   else
      note_damage(r, "page %llu of GEM object %u (file %u): %s", (unsigned long long)page,
                  handle, file, r->err);
}

size_t tsr_reader_read_object(struct tsr_reader *r, uint32_t file, uint32_t handle,
                              uint64_t offset, void *dst, size_t size)
{
   struct robject *o = state_object(r, file, handle);
   if (!o || offset >= o->size)
      return 0;
   if (size > o->size - offset)
      size = (size_t)(o->size - offset);
   uint8_t *d = dst;
   uint8_t page[TSR_PAGE_SIZE];
   size_t done = 0;
   while (done < size) {
      uint64_t pos = offset + done;
      uint64_t pi = pos / TSR_PAGE_SIZE;
      uint32_t in = (uint32_t)(pos % TSR_PAGE_SIZE);
      size_t n = TSR_PAGE_SIZE - in;
      if (n > size - done)
         n = size - done;
      struct tsr_hash k = key_page(o->gen, pi);
      uint64_t *v = tsr_map_get(&r->objpages, &k);
      int err = v ? tsr_reader_page(r, &r->hashes[*v], page) : -ENOENT;
      if (!err) {
         memcpy(d + done, page + in, n);
      } else {
         /* Never recorded: zero, as the object started. Recorded but its
          * content is missing or damaged: zero too (salvage), but noted. */
         memset(d + done, 0, n);
         if (v)
            note_page_damage(r, &r->hashes[*v], err, file, handle, pi);
      }
      done += n;
   }
   return done;
}

size_t tsr_reader_read_va(struct tsr_reader *r, uint32_t file, uint32_t vm_id,
                          uint64_t va, void *dst, size_t size)
{
   struct rvm *vm = state_vm(r, file, vm_id, false);
   if (!vm)
      return 0;
   size_t done = 0;
   while (done < size) {
      uint64_t a = va + done;
      const struct uapi_mapping *m = uapi_vm_map_find(&vm->map, a);
      if (!m)
         break;
      uint64_t n;
      uint64_t off = uapi_mapping_offset(m, a, &n);
      if (n > size - done)
         n = size - done;
      size_t got = tsr_reader_read_object(r, file, m->handle, off, (uint8_t *)dst + done, (size_t)n);
      done += got;
      if (got < n)
         break;
   }
   return done;
}

bool tsr_reader_va_object(struct tsr_reader *r, uint32_t file, uint32_t vm_id, uint64_t va,
                          uint32_t *handle, uint64_t *offset, uint64_t *avail)
{
   struct rvm *vm = state_vm(r, file, vm_id, false);
   const struct uapi_mapping *m = vm ? uapi_vm_map_find(&vm->map, va) : NULL;
   if (!m)
      return false;
   uint64_t n;
   *offset = uapi_mapping_offset(m, va, &n);
   *handle = m->handle;
   if (avail)
      *avail = n;
   return true;
}

/* ------------------------------------------------------------ iteration */

int tsr_reader_rewind(struct tsr_reader *r)
{
   state_reset(r);
   r->cur_chunk = 0;
   r->cur_off = 0;
   r->cur_seq = 0;
   r->cur_frame = 0;
   r->at_end = false;
   return 0;
}

/* Advances to the next record without decoding beyond framing. */
static int next_raw(struct tsr_reader *r, struct tsr_record *rec, uint32_t *chunk, uint32_t *off)
{
   for (;;) {
      if (r->cur_chunk >= r->nchunks) {
         r->at_end = true;
         return 0;
      }
      const struct rchunk *c = &r->chunks[r->cur_chunk];
      if (c->type != TSR_CHUNK_RECORDS) {
         r->cur_chunk++;
         r->cur_off = 0;
         continue;
      }
      if (r->cur_raw_chunk != r->cur_chunk) {
         free(r->cur_raw);
         r->cur_raw = NULL;
         r->cur_raw_chunk = UINT32_MAX;
         int err = load_chunk(r, c, &r->cur_raw);
         if (err)
            return err;
         r->cur_raw_chunk = r->cur_chunk;
      }
      if (r->cur_off >= c->raw) {
         r->cur_chunk++;
         r->cur_off = 0;
         continue;
      }
      uint32_t span = record_span(r->cur_raw, c->raw, r->cur_off);
      if (!span)
         {
         char name[96];
         return fail(r, -EBADMSG, "%s: malformed record at byte %u",
                     chunk_label(r, c, name, sizeof(name)), r->cur_off);
      }
      const uint8_t *h = r->cur_raw + r->cur_off;
      rec->type = tsr_rd32(h);
      rec->file = tsr_rd32(h + 4);
      rec->size = tsr_rd32(h + 8);
      rec->data = h + TSR_RECORD_HEADER_SIZE;
      *chunk = r->cur_chunk;
      *off = r->cur_off;
      r->cur_off += span;
      return 1;
   }
}

int tsr_reader_next(struct tsr_reader *r, struct tsr_record *rec)
{
   uint32_t chunk = 0, off = 0;
   memset(rec, 0, sizeof(*rec));
   int ret = next_raw(r, rec, &chunk, &off);
   if (ret <= 0)
      return ret;
   r->why[0] = 0;
   int err = decode_record(r, rec);
   if (!err)
      err = apply_state(r, rec);
   if (err) {
      char name[96];
      return fail(r, err, "%s record at byte %u of %s: %s", tsr_record_name(rec->type), off,
                  chunk_label(r, &r->chunks[chunk], name, sizeof(name)),
                  err == -ENOMEM ? "out of memory" : r->why[0] ? r->why : "malformed");
   }
   rec->frame = r->cur_frame;
   rec->seq = r->cur_seq;
   if (rec->type == TSR_REC_SUBMIT)
      r->cur_seq++;
   else if (rec->type == TSR_REC_FRAME)
      r->cur_frame++;
   return 1;
}

/* Moves the cursor off exhausted and non-record chunks, so that its
 * (chunk, offset) names the next record as the index does. */
static void normalize(struct tsr_reader *r)
{
   while (r->cur_chunk < r->nchunks && (r->chunks[r->cur_chunk].type != TSR_CHUNK_RECORDS ||
                                        r->cur_off >= r->chunks[r->cur_chunk].raw)) {
      r->cur_chunk++;
      r->cur_off = 0;
   }
}

/* Replays records (state only, no page data) until the cursor reaches pos. */
static int seek_pos(struct tsr_reader *r, struct rpos pos, bool after)
{
   tsr_reader_rewind(r);
   struct tsr_record rec;
   for (;;) {
      normalize(r);
      if (r->cur_chunk == pos.chunk && r->cur_off == pos.offset && !after)
         return 0;
      bool here = r->cur_chunk == pos.chunk && r->cur_off == pos.offset;
      int ret = tsr_reader_next(r, &rec);
      if (ret < 0)
         return ret;
      if (ret == 0)
         return fail(r, -EBADMSG, "index points past the end of the records");
      if (here)
         return 0;
   }
}

int tsr_reader_seek_submit(struct tsr_reader *r, uint64_t seq)
{
   if (seq >= r->nsubmits)
      return fail(r, -ERANGE, "no submission %llu (the trace has %u)",
                  (unsigned long long)seq, r->nsubmits);
   return seek_pos(r, r->submits[seq], false);
}

int tsr_reader_seek_frame(struct tsr_reader *r, uint64_t frame)
{
   if (frame == 0)
      return tsr_reader_rewind(r);
   if (frame > r->nframes)
      return fail(r, -ERANGE, "no frame %llu (the trace has %u frame markers)",
                  (unsigned long long)frame, r->nframes);
   /* Frame N starts right after the marker that ends frame N-1. */
   return seek_pos(r, r->frames[frame - 1], true);
}

/* ----------------------------------------------------------- open/scan */

static int push_rpos(struct rpos **arr, uint32_t *n, uint32_t *cap, struct rpos p)
{
   if (grow((void **)arr, cap, *n + 1, sizeof(**arr)))
      return -ENOMEM;
   (*arr)[(*n)++] = p;
   return 0;
}

/* Builds frames, submits and page directory from the chunks themselves
 * (files without an index, and verify). Stops at the first bad chunk,
 * which then becomes the end of the readable data. */
static int scan_tables(struct tsr_reader *r, struct rpos **frames, uint32_t *nframes,
                       struct rpos **submits, uint32_t *nsubmits, struct tsr_map *pagedir,
                       uint32_t *good_chunks, FILE *report, unsigned *problems)
{
   uint32_t fcap = 0, scap = 0;
   unsigned dup_seen = 0;
   *frames = *submits = NULL;
   *nframes = *nsubmits = 0;
   tsr_map_init(pagedir);
   for (uint32_t ci = 0; ci < r->nchunks; ci++) {
      const struct rchunk *c = &r->chunks[ci];
      *good_chunks = ci;
      if (c->type != TSR_CHUNK_RECORDS && c->type != TSR_CHUNK_PAGES)
         continue;
      uint8_t *raw;
      int err = load_chunk(r, c, &raw);
      if (err) {
         if (report)
            fprintf(report, "%s\n", r->err);
         ++*problems;
         return err;
      }
      if (c->type == TSR_CHUNK_PAGES) {
         uint64_t count = c->raw >= 8 ? tsr_rd32(raw) : 0;
         if (c->raw < 8 || tsr_rd32(raw + 4) != TSR_PAGE_SIZE ||
             c->raw - 8 != count * (16 + TSR_PAGE_SIZE)) {
            free(raw);
            char name[96];
            chunk_label(r, c, name, sizeof(name));
            if (report)
               fprintf(report, "%s: malformed\n", name);
            ++*problems;
            return fail(r, -EBADMSG, "%s: malformed", name);
         }
         for (uint64_t i = 0; i < count; i++) {
            struct tsr_hash h;
            memcpy(h.b, raw + 8 + i * 16, 16);
            if (report) {
               struct tsr_hash real = tsr_hash_bytes(raw + 8 + count * 16 + i * TSR_PAGE_SIZE,
                                                     TSR_PAGE_SIZE);
               if (memcmp(real.b, h.b, 16)) {
                  fprintf(report, "pages chunk %u at offset %llu: page %llu does not match its "
                                  "hash\n", ci, (unsigned long long)c->off, (unsigned long long)i);
                  ++*problems;
               }
            }
            int ins;
            uint64_t *v = tsr_map_put(pagedir, &h, &ins);
            if (!v) {
               free(raw);
               return fail(r, -ENOMEM, "out of memory");
            }
            if (ins) {
               *v = (uint64_t)ci << 32 | i;
            } else if (!dup_seen++) {
               /* The writer stores each content once: a second copy means
                * chunks were repeated (harmless to read, but the file is
                * not what was written). Reported once per scan. */
               char name[96];
               if (report)
                  fprintf(report, "%s: page %llu repeats a page of pages chunk %u "
                                  "(chunks repeated?)\n",
                          chunk_label(r, c, name, sizeof(name)), (unsigned long long)i,
                          (unsigned)(*v >> 32));
               ++*problems;
               if (!report)
                  note_damage(r, "%s: page %llu repeats a page of pages chunk %u "
                                 "(chunks repeated?)",
                              chunk_label(r, c, name, sizeof(name)), (unsigned long long)i,
                              (unsigned)(*v >> 32));
            }
         }
      } else {
         uint32_t off = 0;
         while (off < c->raw) {
            uint32_t span = record_span(raw, c->raw, off);
            if (!span) {
               free(raw);
               char name[96];
               chunk_label(r, c, name, sizeof(name));
               if (report)
                  fprintf(report, "%s: malformed record at byte %u\n", name, off);
               ++*problems;
               return fail(r, -EBADMSG, "%s: malformed record at byte %u", name, off);
            }
            uint32_t type = tsr_rd32(raw + off);
            struct rpos p = {ci, off};
            if ((type == TSR_REC_SUBMIT && push_rpos(submits, nsubmits, &scap, p)) ||
                (type == TSR_REC_FRAME && push_rpos(frames, nframes, &fcap, p))) {
               free(raw);
               return fail(r, -ENOMEM, "out of memory");
            }
            off += span;
         }
      }
      free(raw);
   }
   *good_chunks = r->nchunks;
   return 0;
}

/* Reads the footer and index. Returns 0 and fills the tables, or <0 when
 * there is no usable index (not an error: the file is then scanned). */
static int load_index(struct tsr_reader *r, uint64_t *index_off)
{
   uint8_t f[TSR_FOOTER_SIZE];
   if (r->size < TSR_FILE_HEADER_SIZE + TSR_CHUNK_HEADER_SIZE + TSR_FOOTER_SIZE ||
       read_at(r, r->size - TSR_FOOTER_SIZE, f, sizeof(f)) || memcmp(f, TSR_FOOTER_MAGIC, 8) ||
       tsr_rd64(f + 24) != tsr_hash64(f, 24))
      return -ENOENT;
   uint64_t off = tsr_rd64(f + 8);
   uint8_t h[TSR_CHUNK_HEADER_SIZE];
   struct rchunk c;
   if (off < TSR_FILE_HEADER_SIZE || off > r->size - TSR_FOOTER_SIZE - TSR_CHUNK_HEADER_SIZE ||
       read_at(r, off, h, sizeof(h)) || parse_chunk_header(h, &c, off) ||
       c.type != TSR_CHUNK_INDEX ||
       off + TSR_CHUNK_HEADER_SIZE + c.stored != r->size - TSR_FOOTER_SIZE)
      return -ENOENT;
   uint8_t *raw;
   if (load_chunk(r, &c, &raw))
      return -EBADMSG;
   int err = -EBADMSG;
   uint64_t nchunks = 0, nframes = 0, nsubmits = 0, npages = 0;
   if (c.raw >= TSR_IDX_HEADER) {
      nchunks = tsr_rd32(raw);
      nframes = tsr_rd32(raw + 4);
      nsubmits = tsr_rd32(raw + 8);
      npages = tsr_rd32(raw + 12);
   }
   uint64_t need = TSR_IDX_HEADER + nchunks * TSR_IDX_CHUNK + (nframes + nsubmits) * TSR_IDX_POS +
                   npages * TSR_IDX_PAGE;
   if (c.raw < TSR_IDX_HEADER || need != c.raw || nchunks != r->nchunks)
      goto out;
   const uint8_t *p = raw + TSR_IDX_HEADER;
   /* The index's chunk table must describe exactly the chunks found. */
   for (uint32_t i = 0; i < nchunks; i++, p += TSR_IDX_CHUNK)
      if (tsr_rd64(p) != r->chunks[i].off || tsr_rd32(p + 8) != r->chunks[i].type ||
          tsr_rd32(p + 12) != r->chunks[i].count)
         goto out;
   uint32_t fcap = 0, scap = 0;
   for (uint64_t i = 0; i < nframes + nsubmits; i++, p += TSR_IDX_POS) {
      struct rpos pos = {tsr_rd32(p), tsr_rd32(p + 4)};
      if (pos.chunk >= r->nchunks || r->chunks[pos.chunk].type != TSR_CHUNK_RECORDS ||
          pos.offset >= r->chunks[pos.chunk].raw)
         goto out;
      if (i < nframes ? push_rpos(&r->frames, &r->nframes, &fcap, pos)
                      : push_rpos(&r->submits, &r->nsubmits, &scap, pos))
         goto out;
   }
   for (uint64_t i = 0; i < npages; i++, p += TSR_IDX_PAGE) {
      struct tsr_hash hh;
      memcpy(hh.b, p, 16);
      uint32_t ci = tsr_rd32(p + 16);
      if (ci >= r->nchunks || r->chunks[ci].type != TSR_CHUNK_PAGES)
         goto out;
      int ins;
      uint64_t *v = tsr_map_put(&r->pagedir, &hh, &ins);
      if (!v)
         goto out;
      *v = (uint64_t)ci << 32 | tsr_rd32(p + 20);
   }
   *index_off = off;
   err = 0;
out:
   free(raw);
   if (err) {
      free(r->frames);
      free(r->submits);
      r->frames = r->submits = NULL;
      r->nframes = r->nsubmits = 0;
      tsr_map_finish(&r->pagedir);
   }
   return err;
}

/* Forward scan of chunk headers from the file header to `limit`. */
static int scan_chunks(struct tsr_reader *r, uint64_t start, uint64_t limit)
{
   uint32_t cap = 0;
   uint64_t off = start;
   r->nchunks = 0;
   r->info.raw_bytes = r->info.stored_bytes = 0;
   while (off < limit) {
      uint8_t h[TSR_CHUNK_HEADER_SIZE];
      struct rchunk c;
      if (limit - off < TSR_CHUNK_HEADER_SIZE || read_at(r, off, h, sizeof(h))) {
         r->info.truncated = true;
         break;
      }
      if (parse_chunk_header(h, &c, off)) {
         /* The writer never leaves a whole header that fails its check
          * (it cuts the file back to a chunk boundary): this is damage,
          * not a writer that died. The data after it is lost. */
         r->info.truncated = true;
         if (limit == r->size) /* else scanned again to the end */
            note_damage(r, "chunk %u: its header at offset %llu is corrupt; the %llu bytes "
                           "from there on are not readable", r->nchunks,
                        (unsigned long long)off, (unsigned long long)(r->size - off));
         break;
      }
      if (c.stored > limit - off - TSR_CHUNK_HEADER_SIZE) {
         r->info.truncated = true;
         break;
      }
      /* An index chunk inside the data (e.g. a footer was lost) is not data. */
      if (c.type != TSR_CHUNK_INDEX) {
         if (grow((void **)&r->chunks, &cap, r->nchunks + 1, sizeof(*r->chunks)))
            return fail(r, -ENOMEM, "out of memory");
         r->chunks[r->nchunks++] = c;
         r->info.raw_bytes += c.raw;
         r->info.stored_bytes += c.stored;
      }
      off += TSR_CHUNK_HEADER_SIZE + c.stored;
   }
   r->info.data_end = off;
   return 0;
}

static int reader_init(struct tsr_reader *r, char *err, size_t errlen)
{
   int ret = 0;
   uint8_t h[TSR_FILE_HEADER_SIZE];
   r->cur_raw_chunk = UINT32_MAX;
   tsr_map_init(&r->pagedir);
   tsr_map_init(&r->noted);
   r->info.file_size = r->size;
   /* A file cut inside its header is not a foreign file: say so whenever
    * what is there of the magic is intact. */
   size_t have = r->size < TSR_FILE_HEADER_SIZE ? (size_t)r->size : TSR_FILE_HEADER_SIZE;
   if (read_at(r, 0, h, have)) {
      ret = fail(r, -EIO, "cannot read the file header");
      goto out;
   }
   if (memcmp(h, TSR_FILE_MAGIC, have < 8 ? have : 8)) {
      ret = fail(r, -EBADMSG, "not a tessera trace (bad magic)");
      goto out;
   }
   if (have < TSR_FILE_HEADER_SIZE) {
      ret = fail(r, -EBADMSG, have ? "truncated header (%zu of %u bytes)"
                                   : "empty file: no trace header (%zu of %u bytes)",
                 have, TSR_FILE_HEADER_SIZE);
      goto out;
   }
   r->info.version_major = tsr_rd16(h + 8);
   r->info.version_minor = tsr_rd16(h + 10);
   r->info.page_size = tsr_rd32(h + 16);
   uint32_t hsize = tsr_rd32(h + 12);
   if (r->info.version_major > TSR_VERSION_MAJOR || r->info.version_major == 0) {
      ret = fail(r, -EPROTONOSUPPORT, "trace version %u.%u is newer than this reader (%u.%u)",
                 r->info.version_major, r->info.version_minor, TSR_VERSION_MAJOR,
                 TSR_VERSION_MINOR);
      goto out;
   }
   if (hsize > r->size && hsize <= TSR_MAX_CHUNK_BYTES && r->info.page_size == TSR_PAGE_SIZE) {
      /* A newer minor version's longer header, cut. */
      ret = fail(r, -EBADMSG, "truncated header (%llu of %u bytes)",
                 (unsigned long long)r->size, hsize);
      goto out;
   }
   if (hsize < TSR_FILE_HEADER_SIZE || hsize > r->size || r->info.page_size != TSR_PAGE_SIZE) {
      ret = fail(r, -EBADMSG, "bad file header (header size %u, page size %u)", hsize,
                 r->info.page_size);
      goto out;
   }

   /* With a valid footer the data ends at the index; else scan to EOF. */
   uint8_t f[TSR_FOOTER_SIZE];
   uint64_t limit = r->size;
   if (r->size >= hsize + TSR_FOOTER_SIZE && !read_at(r, r->size - TSR_FOOTER_SIZE, f, sizeof(f)) &&
       !memcmp(f, TSR_FOOTER_MAGIC, 8) && tsr_rd64(f + 24) == tsr_hash64(f, 24) &&
       tsr_rd64(f + 8) >= hsize && tsr_rd64(f + 8) <= r->size - TSR_FOOTER_SIZE)
      limit = tsr_rd64(f + 8);
   bool footer = limit != r->size;
   if ((ret = scan_chunks(r, hsize, limit)))
      goto out;
   uint64_t index_off = 0;
   if (!r->info.truncated && footer && load_index(r, &index_off) == 0) {
      r->info.indexed = true;
      if ((ret = check_payloads(r)))
         goto out;
   } else {
      if (footer) {
         /* A finished file whose index or data before it is damaged:
          * read it as an unindexed one, from a scan to the end. */
         r->info.truncated = false;
         if ((ret = scan_chunks(r, hsize, r->size)))
            goto out;
         /* A corrupt chunk header found by the scan says more. */
         if (!r->info.damage)
            note_damage(r, "the index the footer points to (offset %llu) is damaged or "
                           "disagrees with the chunks; read by forward scan",
                        (unsigned long long)limit);
      }
      uint32_t good = 0;
      unsigned problems = 0;
      int e = scan_tables(r, &r->frames, &r->nframes, &r->submits, &r->nsubmits, &r->pagedir,
                          &good, NULL, &problems);
      if (e == -ENOMEM) {
         ret = e;
         goto out;
      }
      if (e) {
         /* Readable up to the last whole, valid chunk. */
         r->info.truncated = true;
         r->info.data_end = good < r->nchunks ? r->chunks[good].off : r->info.data_end;
         note_damage(r, "%s; the data from there on (%u of %u chunks) is not read", r->err,
                     r->nchunks - good, r->nchunks);
         r->nchunks = good;
         while (r->nsubmits && r->submits[r->nsubmits - 1].chunk >= good)
            r->nsubmits--;
         while (r->nframes && r->frames[r->nframes - 1].chunk >= good)
            r->nframes--;
         r->err[0] = 0;
         r->info.raw_bytes = r->info.stored_bytes = 0;
         for (uint32_t i = 0; i < good; i++) {
            r->info.raw_bytes += r->chunks[i].raw;
            r->info.stored_bytes += r->chunks[i].stored;
         }
      }
   }
   r->info.chunks = r->nchunks;
   r->info.submits = r->nsubmits;
   r->info.frames = r->nframes;
   r->info.pages = r->pagedir.count;
   for (uint32_t i = 0; i < r->nchunks; i++)
      if (r->chunks[i].type == TSR_CHUNK_RECORDS)
         r->info.records += r->chunks[i].count;
out:
   if (ret && err && errlen)
      snprintf(err, errlen, "%s", r->err);
   return ret;
}

int tsr_reader_open_mem(struct tsr_reader **out, const void *data, size_t size,
                        char *err, size_t errlen)
{
   *out = NULL;
   struct tsr_reader *r = calloc(1, sizeof(*r));
   if (!r)
      return -ENOMEM;
   r->fd = -1;
   r->mem = data;
   r->size = size;
   int ret = reader_init(r, err, errlen);
   if (ret) {
      tsr_reader_close(r);
      return ret;
   }
   *out = r;
   return 0;
}

int tsr_reader_open(struct tsr_reader **out, const char *path, char *err, size_t errlen)
{
   *out = NULL;
   int fd = open(path, O_RDONLY | O_CLOEXEC);
   struct stat st;
   if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
      int e = fd < 0 || errno ? -errno : -EINVAL;
      if (fd >= 0 && S_ISDIR(st.st_mode))
         e = -EISDIR;
      if (!e)
         e = -EINVAL;
      if (err && errlen)
         snprintf(err, errlen, "cannot open %s: %s", path, strerror(-e));
      if (fd >= 0)
         close(fd);
      return e;
   }
   struct tsr_reader *r = calloc(1, sizeof(*r));
   if (!r) {
      close(fd);
      return -ENOMEM;
   }
   r->fd = fd;
   r->size = (uint64_t)st.st_size;
   int ret = reader_init(r, err, errlen);
   if (ret) {
      tsr_reader_close(r);
      return ret;
   }
   *out = r;
   return 0;
}

void tsr_reader_close(struct tsr_reader *r)
{
   if (!r)
      return;
   state_reset(r);
   tsr_map_finish(&r->pagedir);
   tsr_map_finish(&r->noted);
   free(r->chunks);
   free(r->frames);
   free(r->submits);
   free(r->cur_raw);
   for (unsigned i = 0; i < TSR_PAGE_CACHE; i++)
      free(r->pg_raw[i]);
   free(r->scratch);
   if (r->fd >= 0)
      close(r->fd);
   free(r);
}

/* --------------------------------------------------------------- verify */

unsigned tsr_reader_verify(struct tsr_reader *r, FILE *report)
{
   unsigned problems = 0;
   if (r->info.truncated) {
      if (report)
         fprintf(report, "truncated: data after byte %llu is not a whole chunk\n",
                 (unsigned long long)r->info.data_end);
      problems++;
   }
   if (!r->info.indexed) {
      if (report)
         fprintf(report, "no index (the writer did not finish); read by forward scan\n");
      problems++;
   }
   struct rpos *frames, *submits;
   uint32_t nframes, nsubmits, good;
   struct tsr_map dir;
   scan_tables(r, &frames, &nframes, &submits, &nsubmits, &dir, &good, report, &problems);
   /* A scan stopped by a bad chunk (reported above) has partial tables. */
   if (r->info.indexed && good == r->nchunks) {
      if (nframes != r->nframes || nsubmits != r->nsubmits || dir.count != r->pagedir.count ||
          (nframes && memcmp(frames, r->frames, nframes * sizeof(*frames))) ||
          (nsubmits && memcmp(submits, r->submits, nsubmits * sizeof(*submits)))) {
         if (report)
            fprintf(report, "index disagrees with the chunks (frames %u/%u, submits %u/%u, "
                            "pages %zu/%zu)\n",
                    r->nframes, nframes, r->nsubmits, nsubmits, r->pagedir.count, dir.count);
         problems++;
      }
   }
   free(frames);
   free(submits);
   tsr_map_finish(&dir);

   /* Record payloads, state and page references. */
   tsr_reader_rewind(r);
   struct tsr_record rec;
   int ret;
   while ((ret = tsr_reader_next(r, &rec)) > 0) {
      if (rec.type != TSR_REC_MEMORY)
         continue;
      for (uint32_t i = 0; i < rec.u.memory.num_pages; i++) {
         struct tsr_hash h;
         memcpy(h.b, rec.u.memory.hashes + i * 16, 16);
         if (!tsr_map_get(&r->pagedir, &h)) {
            if (report)
               fprintf(report, "memory record (submission %u): page %llu of object %u has no "
                               "stored content\n",
                       rec.seq, (unsigned long long)(rec.u.memory.first_page + i),
                       rec.u.memory.handle);
            problems++;
         }
      }
   }
   if (ret < 0) {
      if (report)
         fprintf(report, "%s\n", r->err);
      problems++;
   }
   tsr_reader_rewind(r);
   return problems;
}
