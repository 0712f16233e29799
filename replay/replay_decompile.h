/* SPDX-License-Identifier: MIT */
/*
 * replay decompile: turns a trace into a C program that does what the
 * trace recorded, through libdrm and the uAPI header alone — the role
 * freedreno's rddecompiler plays for Adreno. A developer edits the program
 * (a field of a command, a word of memory, a submission left out) and
 * rebuilds it with `cc`; no tessera library is needed to run it.
 *
 * CONTRACT
 * - replay_decompile() writes into out_dir (created if missing):
 *     decompiled.c    the program
 *     decompiled.bin  the memory blobs it loads, each distinct page once;
 *                     the program names them by byte offset
 *     asahi_drm.h     the uAPI header the program includes (a copy of
 *                     include/drm-uapi/asahi_drm.h)
 *     Makefile        `make` builds ./decompiled with cc and libdrm
 * - The program follows the trace's records in order, as `tessera replay`
 *   does (replay/replay.h): VMs with the recorded kernel ranges, GEM
 *   objects, VM_BIND ops at the recorded GPU addresses, timestamp objects,
 *   queues, every memory record loaded into its object, and each SUBMIT
 *   again with its commands (render and compute commands as designated
 *   initialisers of the uAPI structs, attachments as arrays), barriers and
 *   syncobjs (in-syncs the program did not signal itself are dropped, as
 *   replay drops them). It waits for each submission before the next.
 *   One function per submission, one per frame; main() calls the frames.
 * - Images: where `tessera replay --dump-images DIR --dump-raw` writes
 *   fFFFF_sSSSSS_KINDn.raw (a render target's memory, found as
 *   replay_image.h finds it), the program writes the same file with the
 *   same bytes, at the same point (a frame's end, or before a record that
 *   unmaps memory; after each submission with per_submit). The targets are found when decompiling, from the
 *   trace's memory at each render command.
 * - Errors: a missing or non-trace input, a damaged trace (checksums,
 *   unreadable pages) or records that do not add up (an unknown object,
 *   VM or queue) are REPLAY_ERROR with a message in err; a write failure
 *   in out_dir too, with `*write_failed` set. Never a crash on any input.
 */
#ifndef REPLAY_DECOMPILE_H
#define REPLAY_DECOMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/replay.h"

struct replay_decompile_stats {
   uint64_t submits, frames, objects, vms, queues;
   uint64_t loads;            /* memory loads the program does */
   uint64_t data_bytes;       /* size of decompiled.bin */
   uint64_t dumps;            /* render-target dumps the program writes */
   uint64_t source_bytes;     /* size of decompiled.c */
};

/* per_submit: dump after every submission instead of at frame ends, as
 * `tessera replay --per-submit` does: the targets as the GPU left them,
 * before the trace's later memory records (which may re-record them). */
enum replay_status replay_decompile(const char *trace_path, const char *out_dir, bool per_submit,
                                    struct replay_decompile_stats *st, bool *write_failed,
                                    char *err, size_t err_size);

#endif
