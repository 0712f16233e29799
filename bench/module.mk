# SPDX-License-Identifier: MIT
# Benchmarks (bench/README.md): programs that print measurements and
# ratios against a baseline measured in the same run.
PROGS += usc_throughput
usc_throughput_SRCS := bench/usc_throughput.c
usc_throughput_LIBS := hwcdm hwtex hwusc agxisa hw cmdstream

# bench/gl_capture_overhead's flush-matched live baseline (bench/swap_flush.c)
SHLIBS += bench-swap-flush
bench-swap-flush_SRCS := bench/swap_flush.c
bench-swap-flush_LDLIBS := -ldl
