# SPDX-License-Identifier: MIT
# Tests that belong to no single library.
TESTS += test_uapi_layout
test_uapi_layout_SRCS := tests/unit/test_uapi_layout.c
test_uapi_layout_LDLIBS := -lcmocka
