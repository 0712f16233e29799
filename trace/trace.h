/* SPDX-License-Identifier: MIT */
/*
 * tessera trace files (.tsr): writer and reader library ("trace").
 *
 * A trace records one process's use of the Asahi uAPI, enough to replay it on
 * any machine: device parameters, VMs and every bind, GEM and timestamp
 * objects, queues, each SUBMIT with its command buffer and syncs, completions
 * and GPU timestamps, frame boundaries, the firmware jobs the kernel built,
 * shaders found in the streams, and metadata. The byte layout is specified in
 * docs/trace-format.md; this header is the programming contract.
 *
 * Contract
 *  - Everything in the file is little-endian with fixed-size fields. uAPI
 *    structs are stored as their byte images (the uAPI is fixed-layout and
 *    append-only), prefixed by their size; a reader zero-extends a shorter
 *    image, exactly as the kernel does with an older userspace's struct.
 *  - Compatibility: a reader accepts every file whose major version is <= its
 *    own (TSR_VERSION_MAJOR); unknown chunk types and unknown record types are
 *    skipped (tsr_reader_next() returns them with their raw bytes).
 *  - Memory is content addressed in TSR_PAGE_SIZE (4 KiB) pages keyed by
 *    xxh3-128; each distinct page content is stored once per file. The writer
 *    keeps, per GEM object, the list of page hashes it last recorded and emits
 *    only the pages (runs) that changed, so a static scene costs a few bytes
 *    per frame.
 *  - Ids: every object-related call takes a `file` id chosen by the capture
 *    side (one per opened DRM file description, from 0), because GEM handles,
 *    VM ids and queue ids are only unique within one DRM file.
 *  - Submission numbers ("seq") count SUBMIT records from 0 over the whole
 *    trace. Frame N is everything after the N-th frame marker (frame 0 starts
 *    at the beginning); tsr_write_frame() ends the current frame.
 *  - Child processes: a capture of a process tree writes the root's trace to
 *    NAME.tsr and each child's trace to NAME.<pid>.tsr beside it (NAME is the
 *    path without its .tsr suffix); tsr_child_traces() lists them.
 *
 * Writer
 *  - Thread safe (one internal lock). The calling thread only hashes and
 *    copies into the current chunk; full chunks go to a background thread
 *    through a bounded queue (options.queue_chunks) which compresses (zstd),
 *    checksums and writes them. When the queue is full the caller waits, so
 *    memory stays bounded.
 *  - Errors: the first failure (ENOSPC, EFBIG, EIO, ...) stops recording.
 *    The file is cut back to its last whole chunk so it stays a valid
 *    truncated trace; later calls return that same error (a negative errno)
 *    and do nothing. The error is printed once to stderr as
 *    "tessera trace: <path>: <strerror>" unless options.quiet. The capture
 *    side must ignore SIGXFSZ (RLIMIT_FSIZE) so that write() reports EFBIG.
 *  - tsr_writer_close() flushes, writes the index and footer, and returns
 *    0 or the first error. It always frees the writer
 *    (tsr_writer_close_at_exit: the same, leaving the memory to the
 *    process's exit).
 *
 * Reader
 *  - Opens a finished trace through its index (seek without decompressing
 *    earlier chunks) or, if the index/footer is missing or damaged, by a
 *    forward scan that stops at the first incomplete or corrupt chunk
 *    (info.truncated is set, and everything before it is readable).
 *  - Damage versus truncation: a file cut at any byte (a writer that died)
 *    is only `truncated`; anything a writer cannot produce (checksum
 *    mismatch, corrupt header mid-file, damaged index, repeated chunks,
 *    unreadable page contents) is also counted in info.damage with a
 *    message in tsr_reader_damage(). Records that no capture can produce
 *    (a live GEM handle, VM or queue created again; one closed, bound,
 *    submitted to or written before it exists; submission numbers that do
 *    not count up from 0; a completion of a later submission) make
 *    tsr_reader_next() fail with -EBADMSG and a message naming the record
 *    and its chunk.
 *  - A file shorter than its header whose bytes match the magic so far is
 *    refused as "truncated header", not as a foreign file.
 *  - Never crashes or reads out of bounds on any input; errors are returned
 *    as negative errnos with a message in tsr_reader_error().
 *  - Tracks state while iterating records: object page lists, VM mappings,
 *    queues, the live VMs/objects/timestamp objects/queues; so memory can
 *    be read, and the state listed (tsr_reader_state), "as of" the current
 *    position.
 *  - Not thread safe (use one reader per thread).
 */
#ifndef TESSERA_TRACE_H
#define TESSERA_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "drm-uapi/asahi_drm.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_VERSION_MAJOR 1
#define TSR_VERSION_MINOR 0
#define TSR_PAGE_SIZE 4096u
#define TSR_SUFFIX ".tsr"

/* META keys about GPU-written memory (docs/trace-format.md, "Keyframes").
 * TSR_META_GPU_MEMORY: "full" (or absent: older traces) when the memory the
 * GPU wrote is recorded before every frame marker, so every frame's start
 * holds every object's memory; "keyframes every N" when it is recorded only
 * at keyframes. TSR_META_KEYFRAME: value F (decimal), written where every
 * object's recorded memory equals the real memory as of the start of trace
 * frame F (before its first submission). */
#define TSR_META_GPU_MEMORY "gpu_memory"
#define TSR_META_KEYFRAME "keyframe"
/* TSR_META_CPU_OVERWRITE: value "FILE HANDLE OFFSET SIZE" (decimal), written
 * just before the MEMORY record of pages the program's CPU rewrote after
 * the GPU may have written them, when the trace did not record the GPU's
 * result first (keyframe traces): that record holds the CPU's bytes, so it
 * cannot confirm what the GPU wrote there (replay --validate counts those
 * pages as unverifiable instead of comparing them). */
#define TSR_META_CPU_OVERWRITE "cpu_overwrite"

/* ---------------------------------------------------------------- records */

enum tsr_record_type {
   TSR_REC_META = 1,          /* key/value text (program, args, pid, ...) */
   TSR_REC_DEVICE_PARAMS = 2, /* drm_asahi_params_global image */
   TSR_REC_DRIVER = 3,        /* DRM_IOCTL_VERSION: name, version, date */
   TSR_REC_VM_CREATE = 4,
   TSR_REC_VM_DESTROY = 5,
   TSR_REC_VM_BIND = 6,       /* one VM_BIND ioctl: all its ops */
   TSR_REC_GEM_CREATE = 7,
   TSR_REC_GEM_CLOSE = 8,
   TSR_REC_BIND_OBJECT = 9,   /* GEM_BIND_OBJECT (timestamp objects) */
   TSR_REC_QUEUE_CREATE = 10,
   TSR_REC_QUEUE_DESTROY = 11,
   TSR_REC_SUBMIT = 12,
   TSR_REC_MEMORY = 13,       /* page-hash list of a run of an object */
   TSR_REC_COMPLETION = 14,
   TSR_REC_FRAME = 15,
   TSR_REC_FW_JOB = 16,
   TSR_REC_SHADER = 17,
   TSR_REC_COUNT_
};

/* Name of a record type ("submit", ...); "unknown" for others. */
const char *tsr_record_name(uint32_t type);

struct tsr_hash {
   uint8_t b[16]; /* xxh3-128, low 64 bits first, each half little-endian */
};

/* A key/value pair. Keys in use: program, args (NUL-separated argv as one
 * string with '\n' separators), pid, ppid, host, kernel, time (RFC 3339),
 * capture_options, tessera_version. Others are allowed. */
struct tsr_meta {
   const char *key;
   const char *value;
};

struct tsr_driver {
   int32_t major, minor, patchlevel;
   const char *name, *date, *desc;
};

struct tsr_vm_create {
   uint32_t vm_id; /* as returned by the kernel */
   uint64_t kernel_start, kernel_end;
};

struct tsr_vm_bind {
   uint32_t vm_id;
   uint32_t num_ops;
   const struct drm_asahi_gem_bind_op *ops; /* num_ops, packed */
   int32_t result;                          /* 0 or -errno of the ioctl */
};

struct tsr_gem_create {
   uint32_t handle;
   uint32_t flags; /* enum drm_asahi_gem_flags */
   uint32_t vm_id;
   uint64_t size;
};

struct tsr_bind_object {
   uint32_t op, flags, handle, object_handle;
   uint64_t offset, range;
};

struct tsr_queue_create {
   uint32_t queue_id, vm_id, priority, flags;
   uint64_t usc_exec_base;
};

struct tsr_submit {
   uint32_t queue_id;
   uint32_t flags;
   uint32_t in_sync_count, out_sync_count;
   const struct drm_asahi_sync *syncs; /* in syncs then out syncs */
   uint32_t cmdbuf_size;
   const uint8_t *cmdbuf; /* the flat command buffer as submitted */
   int32_t result;        /* 0 or -errno of the ioctl */
   uint64_t cpu_time_ns;  /* CLOCK_MONOTONIC at submit (printed only with --times) */
};

/* A value the GPU wrote into a timestamp object, read back at completion. */
struct tsr_timestamp_value {
   uint32_t object_handle; /* GEM handle of the timestamp buffer */
   uint32_t offset;
   uint64_t value;
};

struct tsr_completion {
   uint32_t seq;        /* submission number */
   int32_t status;      /* 0, -EIO, -ETIMEDOUT, -ECANCELED, ... */
   uint64_t cpu_time_ns;
   uint32_t num_timestamps;
   const struct tsr_timestamp_value *timestamps;
};

struct tsr_frame {
   uint32_t frame;  /* number of the frame this marker ends (set by reader) */
   uint32_t kind;   /* 0 marker, 1 present/swap, 2 capture-range boundary */
   const char *label; /* may be NULL on write */
};

/* A firmware job as the kernel's job hook saw it (struct asahi_job_info). */
struct tsr_fw_job {
   uint32_t seq;      /* submission it belongs to (UINT32_MAX: unknown) */
   uint32_t queue_id;
   uint32_t pipe;     /* enum agx_fw_pipe */
   uint32_t vm_slot;
   uint64_t job_va, payload_va;
   uint32_t header_size, script_size, payload_size;
   const uint8_t *header, *script, *payload;
};

enum tsr_shader_stage {
   TSR_STAGE_UNKNOWN = 0,
   TSR_STAGE_VERTEX = 1,
   TSR_STAGE_FRAGMENT = 2,
   TSR_STAGE_COMPUTE = 3,
   TSR_STAGE_BG = 4,   /* background (tile load) */
   TSR_STAGE_EOT = 5,  /* end of tile (tile store) */
   TSR_STAGE_HELPER = 6,
   TSR_STAGE_PRESHADER = 7,   /* named by a pipeline's Preshader word */
   TSR_STAGE_PARTIAL_BG = 8,  /* background after a partial render */
   TSR_STAGE_PARTIAL_EOT = 9, /* end of tile of a partial render */
};

/* A USC code range reachable from a submission's streams. */
struct tsr_shader {
   uint32_t seq;      /* first submission it was found in */
   uint32_t stage;    /* enum tsr_shader_stage */
   uint64_t usc_base; /* the queue's usc_exec_base */
   uint64_t va;       /* GPU VA of the code (usc_base + offset) */
   uint32_t size;     /* bytes of code */
   struct tsr_hash hash; /* xxh3-128 of the code bytes */
};

/* ----------------------------------------------------------------- writer */

struct tsr_writer;

struct tsr_writer_options {
   /* zstd's level: 0 selects 3; negative ones are zstd's fast levels
    * (-N is `zstd --fast=N`), clamped to what the library offers */
   int zstd_level;
   bool store_raw;        /* chunks stored uncompressed (zstd_level unused) */
   size_t chunk_bytes;    /* raw bytes per chunk; 0 selects 1 MiB */
   unsigned queue_chunks; /* chunks waiting for the thread; 0 selects 8 */
   bool quiet;            /* do not print the (one) error message */
   unsigned flush_ms;     /* > 0: the writer's thread queues the records and pages
                           * in memory once the oldest is this old, so they reach
                           * the file without waiting for a chunk to fill */
};

/* Creates `path` (truncating) and writes the file header. 0 or -errno;
 * *out is NULL on failure. opts may be NULL. */
int tsr_writer_open(struct tsr_writer **out, const char *path,
                    const struct tsr_writer_options *opts);
/* Same on an open, writable, seekable fd (the writer takes ownership). */
int tsr_writer_open_fd(struct tsr_writer **out, int fd, const char *name,
                       const struct tsr_writer_options *opts);
/* Flushes, writes index + footer, closes. 0 or the first error. */
int tsr_writer_close(struct tsr_writer *w);
/* The same file as tsr_writer_close, for a process about to exit: the
 * writer's memory is left to the exit instead of freed. In the capture
 * layer the heap is the program's, and glibc consolidates all of its free
 * small blocks at the first free of a large block (or large request):
 * after a Mesa teardown, ~1-3 ms of the run (docs/capture.md, ninth
 * round). A process that goes on must use tsr_writer_close (this leaks). */
int tsr_writer_close_at_exit(struct tsr_writer *w);
/* The sticky error (0 or -errno). */
int tsr_writer_error(struct tsr_writer *w);
/* Waits until every queued chunk is on disk (still no index). 0 or error. */
int tsr_writer_flush(struct tsr_writer *w);
/* For a fatal-signal handler: writes what is serialized in memory (pages,
 * then records) as uncompressed chunks behind the chunks already queued,
 * which the writer's thread must finish first. Async-signal-safe in
 * practice: no allocation, no condition variable, only trylock, nanosleep,
 * writev; gives up with -ETIMEDOUT after timeout_ms (e.g. when the thread
 * that crashed holds the writer's lock). The writer stays usable (a
 * handler may return); the file has no index until tsr_writer_close, and
 * readers salvage it (docs/trace-format.md). 0 or -errno. */
int tsr_writer_flush_from_signal(struct tsr_writer *w, unsigned timeout_ms);

/* Each returns 0 or a negative errno (-EINVAL for bad arguments, or the
 * sticky write error). `file` is the capture's DRM-file id. */
int tsr_write_meta(struct tsr_writer *w, const char *key, const char *value);
int tsr_write_driver(struct tsr_writer *w, uint32_t file, const struct tsr_driver *d);
int tsr_write_device_params(struct tsr_writer *w, uint32_t file,
                            const struct drm_asahi_params_global *p, size_t size);
int tsr_write_vm_create(struct tsr_writer *w, uint32_t file, const struct tsr_vm_create *c);
int tsr_write_vm_destroy(struct tsr_writer *w, uint32_t file, uint32_t vm_id);
int tsr_write_vm_bind(struct tsr_writer *w, uint32_t file, const struct tsr_vm_bind *b);
int tsr_write_gem_create(struct tsr_writer *w, uint32_t file, const struct tsr_gem_create *g);
int tsr_write_gem_close(struct tsr_writer *w, uint32_t file, uint32_t handle);
int tsr_write_bind_object(struct tsr_writer *w, uint32_t file, const struct tsr_bind_object *b);
int tsr_write_queue_create(struct tsr_writer *w, uint32_t file, const struct tsr_queue_create *q);
int tsr_write_queue_destroy(struct tsr_writer *w, uint32_t file, uint32_t queue_id);
/* Records a SUBMIT; *seq_out (may be NULL) receives its submission number.
 * Call tsr_write_memory() for the objects that changed BEFORE this. */
int tsr_write_submit(struct tsr_writer *w, uint32_t file, const struct tsr_submit *s,
                     uint32_t *seq_out);
int tsr_write_completion(struct tsr_writer *w, uint32_t file, const struct tsr_completion *c);
/* Ends the current frame. */
int tsr_write_frame(struct tsr_writer *w, uint32_t kind, const char *label);
int tsr_write_fw_job(struct tsr_writer *w, uint32_t file, const struct tsr_fw_job *j);
/* Records a shader once per (va, hash); repeated calls are cheap no-ops. */
int tsr_write_shader(struct tsr_writer *w, uint32_t file, const struct tsr_shader *s);

/*
 * Memory content of GEM object `handle` (of `file`), `size` bytes from byte
 * `offset` (offset must be a multiple of TSR_PAGE_SIZE; size may end
 * mid-page, the rest of that page is taken as zero). Pass whole objects or
 * only the ranges the capture knows changed: the writer hashes each page,
 * compares with the object's last recorded list, stores unseen contents once
 * and records only changed runs. Call tsr_write_gem_create() first (the
 * object's size bounds its page list).
 */
int tsr_write_memory(struct tsr_writer *w, uint32_t file, uint32_t handle,
                     uint64_t offset, const void *data, uint64_t size);

/*
 * Forgets what the writer last recorded for the pages of object `handle`
 * that [offset, offset + size) touches (size UINT64_MAX: to its end): the
 * next tsr_write_memory() of such a page records it even if its content
 * equals the last recorded one. For a capture that stops recording what the
 * GPU writes (docs/capture.md, "GPU-written memory"): the trace's view of
 * such an object is then older than the memory, and a page the CPU writes
 * back to its last recorded content must still be recorded, since the
 * replay holds the GPU's result there. 0, or -EINVAL for an unknown object.
 */
int tsr_writer_forget_memory(struct tsr_writer *w, uint32_t file, uint32_t handle,
                             uint64_t offset, uint64_t size);

struct tsr_writer_stats {
   uint64_t records, submits, frames;
   uint64_t pages_seen, pages_stored; /* pages hashed / distinct contents */
   uint64_t raw_bytes, file_bytes;    /* chunk payloads before / after zstd */
   uint64_t thread_cpu_ns;            /* CPU time of the writer's thread so far */
   /* chunk buffers the thread gave back and the next chunk reused
    * (instead of a fresh allocation whose pages fault in as it fills) */
   uint64_t buffers_reused;
   /* slots of the pages buffers made resident for the first time (a
    * fresh page each: trace_writer.c, pg_hw), and the times the current
    * buffer gave way to the spare with more of them */
   uint64_t pages_buffer_touched, buffer_swaps;
   /* pages of the writer's buffers made resident ahead of their first
    * write by MADV_POPULATE_WRITE instead of a fault each (0 on kernels
    * before 5.14): all of them, and the pages buffers' slots among them */
   uint64_t prefaulted, pages_buffer_prefaulted;
   /* the compression context's size (its workspace: fixed at the fast
    * levels) and the times it changed; the times the compressed-output
    * buffer had to grow for a chunk larger than the largest pages chunk */
   uint64_t zstd_workspace, zstd_workspace_changes, output_grown;
};
void tsr_writer_get_stats(struct tsr_writer *w, struct tsr_writer_stats *st);

/* Hash helper (xxh3-128) shared with the capture side. */
struct tsr_hash tsr_hash_bytes(const void *data, size_t size);

/* ----------------------------------------------------------------- reader */

struct tsr_reader;

struct tsr_info {
   uint32_t version_major, version_minor;
   uint32_t page_size;
   bool indexed;    /* the index/footer was found and used */
   bool truncated;  /* data after the last whole chunk was ignored */
   uint64_t file_size, data_end; /* data_end: end of the last good chunk */
   uint64_t chunks, records;
   uint64_t submits, frames;     /* frames: frame markers */
   uint64_t pages;               /* distinct page contents stored */
   uint64_t raw_bytes, stored_bytes; /* chunk payloads raw / in the file */
   uint64_t damage; /* problems worked around so far (tsr_reader_damage()) */
};

/* Opens a trace file. 0 or -errno; on failure *out is NULL and, if err is
 * not NULL, a message is written to err. */
int tsr_reader_open(struct tsr_reader **out, const char *path, char *err, size_t errlen);
/* Same over a memory buffer (borrowed; must outlive the reader). */
int tsr_reader_open_mem(struct tsr_reader **out, const void *data, size_t size,
                        char *err, size_t errlen);
void tsr_reader_close(struct tsr_reader *r);
const struct tsr_info *tsr_reader_info(struct tsr_reader *r);
/* Last error message ("" if none). */
const char *tsr_reader_error(struct tsr_reader *r);
/* The first damage the reader worked around ("" if none; info.damage counts
 * them): a chunk whose payload fails its checksum (every chunk's is checked
 * at open), a chunk header that fails its check mid-file (the data from it
 * on is lost), a damaged index, a page content stored twice (repeated
 * chunks), or a recorded page whose content could not be read (it reads as
 * zero). The message names the chunk or the object and page. Salvage goes
 * on; a tool must still report it and exit non-zero. */
const char *tsr_reader_damage(struct tsr_reader *r);

/* One record. Pointers stay valid until the next tsr_reader_next/seek/close.
 * `u` is filled according to `type` for known types; `data`/`size` always
 * hold the raw payload. */
struct tsr_record {
   uint32_t type;
   uint32_t file;
   const uint8_t *data;
   uint32_t size;
   uint32_t seq;    /* for SUBMIT: its number; else the next submission's */
   uint32_t frame;  /* frame the record belongs to */
   union {
      struct tsr_meta meta;
      struct tsr_driver driver;
      struct {
         const struct drm_asahi_params_global *p; /* zero-extended copy */
         uint32_t size;                            /* size in the file */
      } params;
      struct tsr_vm_create vm_create;
      uint32_t vm_id;     /* VM_DESTROY */
      struct tsr_vm_bind vm_bind;
      struct tsr_gem_create gem_create;
      uint32_t handle;    /* GEM_CLOSE */
      struct tsr_bind_object bind_object;
      struct tsr_queue_create queue_create;
      uint32_t queue_id;  /* QUEUE_DESTROY */
      struct tsr_submit submit;
      struct {
         uint32_t handle;
         uint64_t first_page;
         uint32_t num_pages;
         const uint8_t *hashes; /* num_pages * 16 bytes (struct tsr_hash) */
      } memory;
      struct tsr_completion completion;
      struct tsr_frame frame;
      struct tsr_fw_job fw_job;
      struct tsr_shader shader;
   } u;
};

/* Next record: 1 got one, 0 end of trace, <0 error (corrupt chunk: -EBADMSG). */
int tsr_reader_next(struct tsr_reader *r, struct tsr_record *rec);
/* Positions before the first record of frame N / before SUBMIT number N,
 * with the memory state as of that point. Uses the index (record chunks
 * only; page data is never decompressed to seek). 0, -ERANGE, or error. */
int tsr_reader_rewind(struct tsr_reader *r);
int tsr_reader_seek_frame(struct tsr_reader *r, uint64_t frame);
int tsr_reader_seek_submit(struct tsr_reader *r, uint64_t seq);

/* Memory as of the current position. Return bytes copied (0 if unknown);
 * bytes of recorded objects whose pages were never written read as zero. */
size_t tsr_reader_read_object(struct tsr_reader *r, uint32_t file, uint32_t handle,
                              uint64_t offset, void *dst, size_t size);
/* Through the VM mappings of (file, vm_id), as agx_decode_read_fn wants. */
size_t tsr_reader_read_va(struct tsr_reader *r, uint32_t file, uint32_t vm_id,
                          uint64_t va, void *dst, size_t size);
/* The GEM object (the trace's handle) and byte offset that `va` of (file,
 * vm_id) maps to as of the current position, and how many bytes from there
 * stay in the mapping (`avail`, may be NULL). false if va is unmapped. */
bool tsr_reader_va_object(struct tsr_reader *r, uint32_t file, uint32_t vm_id, uint64_t va,
                          uint32_t *handle, uint64_t *offset, uint64_t *avail);
/* usc_exec_base and vm_id of a queue as of the current position (false if
 * unknown). */
bool tsr_reader_queue(struct tsr_reader *r, uint32_t file, uint32_t queue_id,
                      uint32_t *vm_id, uint64_t *usc_exec_base);
/*
 * The state as of the current position: what a replay that starts here
 * must create before the next record (tsr_trim() writes it as a trimmed
 * trace's start). Only what is alive: VMs created and not destroyed, in
 * creation order; GEM objects created and not closed, in the order their
 * handles were first created (a VM-private one names a VM of the list);
 * each VM's mappings as bind ops sorted by address, with the trace's
 * handles (a closed object's mappings are gone, as the kernel unbinds it);
 * timestamp objects bound and not unbound; queues created and not
 * destroyed. Syncobjs have no records, so no state. Memory is per page:
 * tsr_reader_object_page().
 */
struct tsr_state_vm {
   uint32_t file;
   struct tsr_vm_create create;
   uint32_t num_ops;
   struct drm_asahi_gem_bind_op *ops; /* binds, no unbinds */
};
struct tsr_state_object {
   uint32_t file;
   struct tsr_gem_create create;
};
struct tsr_state_tsobj {
   uint32_t file;
   struct tsr_bind_object bind; /* op is DRM_ASAHI_BIND_OBJECT_OP_BIND */
};
struct tsr_state_queue {
   uint32_t file;
   struct tsr_queue_create create;
};
struct tsr_state {
   struct tsr_state_vm *vms;
   struct tsr_state_object *objects;
   struct tsr_state_tsobj *tsobjs;
   struct tsr_state_queue *queues;
   uint32_t num_vms, num_objects, num_tsobjs, num_queues;
};
/* Fills *out (free with tsr_state_free). 0 or -ENOMEM. */
int tsr_reader_state(struct tsr_reader *r, struct tsr_state *out);
void tsr_state_free(struct tsr_state *s);
/* Size of a live object as of the current position; 0 if not live. */
uint64_t tsr_reader_object_size(struct tsr_reader *r, uint32_t file, uint32_t handle);
/* The hash of page `page` (TSR_PAGE_SIZE units) of a live object as of the
 * current position: true if some MEMORY record set it; false if it was
 * never recorded (it reads as zero) or the object is not live. */
bool tsr_reader_object_page(struct tsr_reader *r, uint32_t file, uint32_t handle,
                            uint64_t page, struct tsr_hash *hash);

/* Content of a page by hash (TSR_PAGE_SIZE bytes). 0 or -ENOENT/-EBADMSG. */
int tsr_reader_page(struct tsr_reader *r, const struct tsr_hash *h, void *dst);

/* Checks every chunk checksum, every record's framing, the index against
 * the chunks and every page reference. Prints one line per problem to
 * `report` (may be NULL). Returns the number of problems (0 = valid). */
unsigned tsr_reader_verify(struct tsr_reader *r, FILE *report);

/* Child traces beside `path` (NAME.<pid>.tsr). Returns a NULL-terminated
 * malloc'd array of malloc'd paths (free with tsr_free_paths), or NULL. */
char **tsr_child_traces(const char *path);
void tsr_free_paths(char **paths);

#ifdef __cplusplus
}
#endif

#endif
