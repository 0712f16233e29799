/* SPDX-License-Identifier: MIT */
/*
 * trace_summary: one screen about a trace (library "traceprint"), or one
 * JSON object: device, driver, program, frames, submissions, commands by
 * type, objects, unique pages, shaders, sizes and compression ratio, time
 * span, and the child-process traces found beside it. It is what
 * `tessera info` prints; cli/cmd_info.c only parses the options.
 *
 * CONTRACT
 * - tsr_summary_read() reads every record from the reader's position and
 *   counts them; it keeps no pointer into the reader's records (metadata
 *   is copied: the first TSR_SUMMARY_MAX_META keys, later ones ignored).
 * - The text and JSON forms are stable: scripts and tests read them
 *   (field names, the "name:" column, the JSON keys). Times are only the
 *   span between the first and last recorded host times.
 * - Prints only to the stream it is given; never to stderr.
 * - Sizes are raw (before zstd); the chunks' compression ratio is printed
 *   beside them.
 * - Layering: like trace_dump.h, above uapishaders, outside libtrace.
 */
#ifndef TESSERA_TRACE_SUMMARY_H
#define TESSERA_TRACE_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/trace.h"

#define TSR_SUMMARY_MAX_META 16

struct tsr_summary {
   const struct tsr_info *info;   /* the reader's, valid while it is open */
   char *meta_key[TSR_SUMMARY_MAX_META], *meta_val[TSR_SUMMARY_MAX_META];
   unsigned nmeta;
   char driver[256];
   bool have_params;
   struct drm_asahi_params_global params;
   uint64_t cmds[6]; /* by drm_asahi_cmd_type; [5] = unknown */
   uint64_t objects, object_bytes, vms, binds, queues, fw_jobs, shaders, completions;
   uint64_t failed_submits, failed_completions;
   uint64_t first_ns, last_ns;
   bool have_time;
   const char *damage; /* tsr_reader_damage() after reading ("" if none) */
   /* Where the bytes go, before compression: per record type the records
    * and their bytes in records chunks (16-byte header and padding
    * included); the page contents MEMORY records referred to first (each
    * stored once, page_size bytes) and their references in all. */
   uint64_t type_records[TSR_REC_COUNT_], type_bytes[TSR_REC_COUNT_];
   uint64_t page_refs, new_pages;
   uint64_t keyframes; /* META TSR_META_KEYFRAME records (not in meta_key[]) */
   uint64_t cpu_overwrites; /* META TSR_META_CPU_OVERWRITE records (neither) */
   /* Per frame (records + new page contents, raw): frame 0, and the median
    * and largest of the later frames (steady state; 0 if none). */
   uint64_t frame0_bytes, later_median_bytes, later_max_bytes, later_frames;
};

/* Counts the records of r into s (zeroed first). Returns 0, or -1 when the
 * reader failed (tsr_reader_error()); s holds what was read until then and
 * must be freed either way. */
int tsr_summary_read(struct tsr_summary *s, struct tsr_reader *r);
void tsr_summary_free(struct tsr_summary *s);

/* `path` is the trace's name as given; children the NULL-terminated list
 * of tsr_child_traces(path) (NULL: none). */
void tsr_summary_print_text(FILE *fp, const char *path, const struct tsr_summary *s,
                            char **children);
void tsr_summary_print_json(FILE *fp, const char *path, const struct tsr_summary *s,
                            char **children);

/* The shader index in record order (= order of first use): address, size,
 * stage, hash, first submission. Rewinds r first (nothing printed if that
 * fails). */
void tsr_summary_print_shaders(FILE *fp, struct tsr_reader *r);

#endif
