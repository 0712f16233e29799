/* SPDX-License-Identifier: MIT */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_paths.h"

static bool
self_dir(char *out, size_t len)
{
   ssize_t n = readlink("/proc/self/exe", out, len - 1);
   if (n <= 0)
      return false;
   out[n] = 0;
   char *s = strrchr(out, '/');
   if (!s)
      return false;
   *s = 0;
   return true;
}

static bool
try_path(char *out, size_t len, const char *dir, const char *rel, const char *probe)
{
   if (snprintf(out, len, "%s/%s", dir, rel) >= (int)len)
      return false;
   char p[PATH_MAX];
   if (snprintf(p, sizeof(p), "%s%s", out, probe) >= (int)sizeof(p))
      return false;
   if (access(p, R_OK) != 0)
      return false;
   /* canonical, so environment variables built from it stay readable */
   char canon[PATH_MAX];
   if (realpath(out, canon) && strlen(canon) < len)
      strcpy(out, canon);
   return true;
}

bool
cli_find_lib(const char *name, char *out, size_t len)
{
   char self[PATH_MAX], rel[PATH_MAX];
   if (!self_dir(self, sizeof(self)))
      return false;
   snprintf(rel, sizeof(rel), "../lib/%s", name);
   if (try_path(out, len, self, rel, ""))
      return true;
   snprintf(rel, sizeof(rel), "../../release/lib/%s", name);
   return try_path(out, len, self, rel, "");
}

bool
cli_find_mesa_lib(const char *tree, char *out, size_t len)
{
   char self[PATH_MAX], rel[PATH_MAX];
   if (!self_dir(self, sizeof(self)))
      return false;
   snprintf(rel, sizeof(rel), "../../%s/lib", tree);
   if (try_path(out, len, self, rel, "/libEGL.so.1"))
      return true;
   snprintf(rel, sizeof(rel), "../lib/tessera-%s", tree);
   return try_path(out, len, self, rel, "/libEGL.so.1");
}
