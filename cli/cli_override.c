/* SPDX-License-Identifier: MIT */
/* --override-shader ADDR=FILE (cli/cli_override.h). */
#include "cli/cli_override.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_args.h"
#include "cmdstream/isa/agx_isa.h"

#define MAX_SHADER_BYTES (1u << 20)

static uint8_t *
read_file(const char *path, size_t *size)
{
   FILE *f = fopen(path, "rb");
   if (!f)
      return NULL;
   uint8_t *buf = malloc(MAX_SHADER_BYTES + 1);
   size_t n = buf ? fread(buf, 1, MAX_SHADER_BYTES + 1, f) : 0;
   fclose(f);
   if (!buf || n > MAX_SHADER_BYTES) {
      free(buf);
      errno = EFBIG;
      return NULL;
   }
   *size = n;
   return buf;
}

int
cli_parse_override(const char *cmd, const char *arg, struct replay_override *ov,
                   uint8_t **owned)
{
   const char *eq = strchr(arg, '=');
   if (!eq) {
      fprintf(stderr, "tessera %s: --override-shader wants ADDR=FILE, got '%s'\n", cmd, arg);
      return 2;
   }
   if (!cli_parse_u64_until(arg, '=', &ov->va)) {
      fprintf(stderr, "tessera %s: --override-shader: bad address in '%s'\n", cmd, arg);
      return 2;
   }
   const char *path = eq + 1;
   size_t size;
   uint8_t *data = read_file(path, &size);
   if (!data) {
      fprintf(stderr, "tessera %s: %s: %s\n", cmd, path, strerror(errno));
      return 2;
   }
   size_t len = strlen(path);
   if (len > 2 && !strcmp(path + len - 2, ".s")) {
      uint8_t *code = malloc(MAX_SHADER_BYTES);
      char err[256];
      size_t n;
      /* at ADDR, so absolute branch targets (as dump prints them) resolve */
      if (!code || !agx_isa_assemble_at((const char *)data, size, ov->va, code,
                                        MAX_SHADER_BYTES, &n, err, sizeof(err))) {
         fprintf(stderr, "tessera %s: %s:%s\n", cmd, path, code ? err : " out of memory");
         free(code);
         free(data);
         return 2;
      }
      free(data);
      data = code;
      size = n;
   }
   ov->code = data;
   ov->size = size;
   *owned = data;
   return 0;
}
