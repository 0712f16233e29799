# SPDX-License-Identifier: MIT
# trace: the .tsr trace file format (writer, reader, verify). See trace/trace.h
# and docs/trace-format.md. System libraries: libzstd, libxxhash.

TRACE_LDLIBS := -lzstd -lxxhash

LIBS += trace
trace_SRCS := trace/trace_common.c trace/trace_writer.c trace/trace_reader.c \
              trace/trace_trim.c trace/trace_hash_avx2.c
# XXH3's AVX2 build, called only where the CPU has AVX2 (trace_common.c
# dispatches): page hashing ~2.5x faster than the baseline's SSE2 loop.
ifneq ($(filter x86_64-%,$(shell $(CC) -dumpmachine)),)
trace/trace_hash_avx2.c_CFLAGS := -mavx2
endif

# The reader follows VMs with uapi's VM map (uapi/, below trace/): every
# target that links trace links uapi too.

# traceprint: the record printer (`tessera dump`, trace/trace_dump.h) and the
# summary (`tessera info`, trace/trace_summary.h). It decodes streams, lists
# shaders and disassembles them, so it sits above uapishaders and cmdstream,
# not in libtrace below them.
LIBS += traceprint
# trace_minimize rewrites draws in VDM/CDM streams (cmdstream's walker and
# packers), so it lives here too.
traceprint_SRCS := trace/trace_dump.c trace/trace_summary.c trace/trace_minimize.c
TRACEPRINT_LIBS := traceprint uapishaders trace uapi cmdstream agxisa

# The tessera command prints traces for `info` and `dump`.
tessera_LIBS += $(TRACEPRINT_LIBS)
tessera_LDLIBS += $(TRACE_LDLIBS)

TESTS += test_trace
test_trace_SRCS := tests/unit/test_trace.c
test_trace_LIBS := trace uapi
test_trace_LDLIBS := -lcmocka $(TRACE_LDLIBS)

FUZZERS += fuzz_trace_reader
fuzz_trace_reader_SRCS := tests/fuzz/fuzz_trace_reader.c
fuzz_trace_reader_LIBS := trace uapi
fuzz_trace_reader_LDLIBS := $(TRACE_LDLIBS)

# The printer over any input (damaged pages decoded as streams and shaders).
FUZZERS += fuzz_trace_dump
fuzz_trace_dump_SRCS := tests/fuzz/fuzz_trace_dump.c
fuzz_trace_dump_LIBS := $(TRACEPRINT_LIBS)
fuzz_trace_dump_LDLIBS := $(TRACE_LDLIBS)

# Writes the small traces used by the integration tests and fuzz seeds.
PROGS += trace_mktest
trace_mktest_SRCS := tests/data/trace/trace_mktest.c
trace_mktest_LIBS := trace uapi cmdstream
trace_mktest_LDLIBS := $(TRACE_LDLIBS)

PROGS += bench_trace
bench_trace_SRCS := bench/trace_bench.c
bench_trace_LIBS := trace uapi
bench_trace_LDLIBS := $(TRACE_LDLIBS)

# pkg-config file for out-of-tree readers of traces.
$(B)/lib/pkgconfig/tessera-trace.pc: trace/tessera-trace.pc.in
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(abspath .)|' -e 's|@LIBDIR@|$(abspath $(B)/lib)|' \
	    -e 's|@VERSION@|0.1.0|' $< > $@
all: $(B)/lib/pkgconfig/tessera-trace.pc
