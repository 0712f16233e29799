# SPDX-License-Identifier: MIT
# testuapi: the test library (tests/lib) -- the uAPI as test programs,
# examples and benchmarks drive it by hand: the render node, GEM objects,
# VM binds and submissions (tu_uapi), shader code and USC word lists
# (tu_usc), one simple draw and its render command (tu_draw), the capture programs' and the demo's small device (tu_dev, over
# libdrm) and the replay tests' live program (rs_scene, over a replay
# backend and the trace writer). Programs link it instead of compiling
# test sources; nothing shipped (the tessera command, the preload layers,
# the libraries) links it. An archive: a program gets only the members it
# uses, so it links the system libraries of those alone.
LIBS += testuapi
testuapi_SRCS := tests/lib/tu_uapi.c tests/lib/tu_usc.c tests/lib/tu_draw.c tests/lib/tu_dev.c \
                 tests/lib/rs_scene.c
