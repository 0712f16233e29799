/* SPDX-License-Identifier: MIT */
/*
 * --override-shader ADDR=FILE for the commands that replay (replay,
 * profile): reads FILE (at most 1 MiB), assembling it at ADDR when it ends
 * in ".s" (so `tessera dump`'s disassembly, whose branch targets are GPU
 * VAs, re-assembles unchanged), else taking it as machine code.
 * Returns 0 and fills *ov (code owned by *owned, to free), or prints
 * "tessera CMD: ..." and returns 2.
 */
#ifndef TESSERA_CLI_OVERRIDE_H
#define TESSERA_CLI_OVERRIDE_H

#include <stdint.h>

#include "replay/replay.h"

int cli_parse_override(const char *cmd, const char *arg, struct replay_override *ov,
                       uint8_t **owned);

#endif
