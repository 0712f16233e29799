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

/* The directory holding Mesa's libEGL/libGL/libGLESv2 and dri/ built with
 * the tessera driver: <dir of tessera>/../../mesa/lib, or
 * <dir of tessera>/../lib/tessera-mesa. */
bool cli_find_mesa_lib(char *out, size_t len);

#endif
