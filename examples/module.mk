# SPDX-License-Identifier: MIT
# examples: the demo workload of `make demo` (scripts/demo, docs/workflows.md)
# -- a uAPI program rendering an animated scene on the embedded GPU through
# the render-node shim. It links the test library's small device (tests/lib).

PROGS += demo_scene
demo_scene_SRCS := examples/demo_scene.c
demo_scene_LIBS := testuapi agxisa cmdstream
demo_scene_LDLIBS := -ldrm $(shell pkg-config --libs libpng 2>/dev/null || echo -lpng)
