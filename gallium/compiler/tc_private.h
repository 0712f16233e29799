/* tessera compiler internals shared between its files. */
#ifndef TC_PRIVATE_H
#define TC_PRIVATE_H

#include "tc_compiler.h"

bool tc_vertex_format_info(enum pipe_format format, const char **mem_format,
                           unsigned *item_bytes, unsigned *comps);
void tc_lower_io(nir_shader *nir, const union tc_key *key);

#endif
