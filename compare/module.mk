# SPDX-License-Identifier: MIT
# compare: image (PNG) and timing comparison, text/JSON/HTML reports.
# Needs libpng and jansson (scripts/install-deps).
LIBS += compare
compare_SRCS := compare/cmp_png.c compare/cmp_image.c compare/cmp_pairs.c \
                compare/cmp_stats.c compare/cmp_timing.c compare/cmp_report.c \
                compare/cmp_html.c compare/cmp_profile.c compare/cmp_profile_report.c
COMPARE_LDLIBS := -lpng -ljansson

# The tessera command links the library (cli/module.mk is included first).
tessera_LIBS += compare
tessera_LDLIBS += $(COMPARE_LDLIBS)

TESTS += test_compare_image test_compare_timing test_compare_profile
test_compare_image_SRCS := tests/unit/test_compare_image.c
test_compare_image_LIBS := compare
test_compare_image_LDLIBS := -lcmocka $(COMPARE_LDLIBS)
test_compare_timing_SRCS := tests/unit/test_compare_timing.c
test_compare_timing_LIBS := compare
test_compare_timing_LDLIBS := -lcmocka $(COMPARE_LDLIBS)
test_compare_profile_SRCS := tests/unit/test_compare_profile.c
test_compare_profile_LIBS := compare
test_compare_profile_LDLIBS := -lcmocka $(COMPARE_LDLIBS)

FUZZERS += fuzz_compare_png fuzz_compare_timing
fuzz_compare_png_SRCS := tests/fuzz/fuzz_compare_png.c
fuzz_compare_png_LIBS := compare
fuzz_compare_png_LDLIBS := $(COMPARE_LDLIBS)
fuzz_compare_timing_SRCS := tests/fuzz/fuzz_compare_timing.c
fuzz_compare_timing_LIBS := compare
fuzz_compare_timing_LDLIBS := $(COMPARE_LDLIBS)

PROGS += compare_speed
compare_speed_SRCS := bench/compare_speed.c
compare_speed_LIBS := compare
compare_speed_LDLIBS := $(COMPARE_LDLIBS)
