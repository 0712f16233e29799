# SPDX-License-Identifier: MIT
# Benchmarks (bench/README.md): programs that print measurements and
# ratios against a baseline measured in the same run.
PROGS += usc_throughput
usc_throughput_SRCS := bench/usc_throughput.c
usc_throughput_LIBS := hwcdm hwtex hwusc agxisa hw cmdstream
