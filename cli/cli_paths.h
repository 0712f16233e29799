/* SPDX-License-Identifier: MIT */
/*
 * Where the tessera command finds the files built beside it: the LD_PRELOAD
 * objects (tessera-shim.so, tessera-capture.so) and the Mesa build
 * (build/mesa/lib). Works from build/<variant>/bin and from an installed
 * bin/ next to lib/.
 */
#ifndef TESSERA_CLI_PATHS_H
#define TESSERA_CLI_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* <dir of tessera>/../lib/NAME, else the release build's; false if absent. */
bool cli_find_lib(const char *name, char *out, size_t len);

/* The directory holding Mesa's libEGL/libGL/libGLESv2 and dri/ of one of the
 * project's Mesa trees: TREE "mesa" (22.3.6 with the tessera driver) or
 * "mesa-asahi" (25.0.7 with Mesa's asahi driver, softpipe and llvmpipe).
 * Looks in <dir of tessera>/../../TREE/lib, then
 * <dir of tessera>/../lib/tessera-TREE. */
bool cli_find_mesa_lib(const char *tree, char *out, size_t len);

#endif
