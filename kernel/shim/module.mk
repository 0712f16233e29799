# SPDX-License-Identifier: MIT
# The render-node shim: LD_PRELOAD=build/release/lib/tessera-shim.so makes
# the GPU model (firmware, compute and render executors, texture unit) +
# the asahi driver appear as /dev/dri/renderD128.
SHLIBS += tessera-shim
tessera-shim_SRCS := kernel/shim/shim_core.c kernel/shim/shim_fs.c
tessera-shim_LIBS := $(ASAHI_MODEL_LIBS)
tessera-shim_LDLIBS := -ldl -lpthread -lm
