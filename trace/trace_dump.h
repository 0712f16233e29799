/* SPDX-License-Identifier: MIT */
/*
 * trace_dump: the record printer (library "traceprint"), every record of a
 * trace as stable text, for reading and for diffing two traces. It is what
 * `tessera dump` prints; cli/cmd_dump.c only parses the options.
 *
 * CONTRACT
 * - uAPI structs are printed field by field; the VDM/CDM streams of each
 *   command are decoded (cmdstream/agx_decode.h) over the trace's memory as
 *   of that submission, with shaders disassembled; firmware jobs go through
 *   the generated agx_fw print functions.
 * - Shaders: the trace's shader index (SHADER records) is listed first and
 *   each recorded shader is disassembled once, at its record; every
 *   submission lists the shaders it uses, found again by walking its
 *   streams over the trace's memory with uapi_cmdbuf_shaders(), the way
 *   the capture indexed them.
 * - Stability: no host addresses, no wall-clock times (unless times is
 *   set), and object memory is named by content hash, so two captures of
 *   the same work dump identically. The text is compared byte for byte by
 *   golden tests (tests/data/trace/mktest.dump): a change to it is a format
 *   change.
 * - Reads the trace only through the reader (trace/trace.h), which it
 *   advances; any trace, damaged or not, is safe. Prints only to the
 *   printer's stream (never to stderr): reader errors are returned and read
 *   with tsr_reader_error().
 * - Layering: this library sits above uapishaders (uapi/uapi_shaders.h) and
 *   cmdstream, so it is not part of libtrace, which sits below them.
 */
#ifndef TESSERA_TRACE_DUMP_H
#define TESSERA_TRACE_DUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/trace.h"

struct tsr_dump_options {
   bool times;     /* host times: META "time", cpu_time_ns, timestamp values */
   bool streams;   /* decode the VDM/CDM streams of commands */
   bool disasm;    /* disassemble shaders (at SHADER records and in streams) */
};

/* Which records tsr_dump_records() prints, from the reader's position. */
enum tsr_dump_range {
   TSR_DUMP_ALL,     /* the whole trace, after a header line and the shader
                      * index; the reader must be at its start */
   TSR_DUMP_FRAME,   /* the records of one frame (after tsr_reader_seek_frame) */
   TSR_DUMP_SUBMIT,  /* one SUBMIT and the records up to the next one (after
                      * tsr_reader_seek_submit) */
};

/* A printer of r's records to fp; NULL when out of memory. The caller keeps
 * ownership of r and fp, which must outlive the printer. */
struct tsr_dump *tsr_dump_create(FILE *fp, struct tsr_reader *r, const struct tsr_dump_options *o);
void tsr_dump_destroy(struct tsr_dump *d);

/*
 * Prints the records of `range` (for TSR_DUMP_FRAME, `frame` names the frame
 * the reader was sought to). Returns 0 when it reached the end of the range
 * or of the trace, -1 when the reader failed mid-way (tsr_reader_error();
 * the output then ends with a line "# stopped: <error>"). A truncated trace
 * (tsr_reader_info()->truncated) is printed up to its last whole chunk and
 * returns 0.
 */
int tsr_dump_records(struct tsr_dump *d, enum tsr_dump_range range, uint64_t frame);

/*
 * The SHADER record of the indexed shader at GPU VA `va` and its code as of
 * that record, disassembled whatever the options say, from the reader's
 * position. Returns 1 printed, 0 no such shader, -1 the reader failed
 * (tsr_reader_error()).
 */
int tsr_dump_shader(struct tsr_dump *d, uint64_t va);

/* A content hash as 32 lowercase hex digits (the dump's and info's form). */
void tsr_dump_hash(FILE *fp, const struct tsr_hash *h);

#endif
