/* SPDX-License-Identifier: MIT */
/* Argument parsing shared by the commands: see cli/cli_args.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_args.h"

int cli_bad_option(const char *cmd, int c, char **argv, const struct option *longopts)
{
   /* getopt_long() names the refused option only through optopt (a short
    * option's letter, a long option's val, or 0 for an unknown long one)
    * and argv[optind - 1] (the argument it was in). A letter that is no
    * long option's val can only have come from a short option. */
   bool long_val = optopt == 0;
   for (const struct option *o = longopts; o && o->name && !long_val; o++)
      long_val = o->val == optopt;
   char name[8];
   const char *what = argv[optind - 1];
   if (!long_val || strncmp(what, "--", 2)) {
      snprintf(name, sizeof(name), "-%c", optopt > 32 && optopt < 127 ? optopt : '?');
      what = name;
   }
   if (c == ':')
      fprintf(stderr, "tessera %s: %s needs a value\n", cmd, what);
   else
      fprintf(stderr, "tessera %s: unknown option '%s'\n", cmd, what);
   return 2;
}

bool cli_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
   char *end;
   /* strtoull would skip space and accept a sign (negating the value). */
   if (!s || !isdigit((unsigned char)*s))
      return false;
   errno = 0;
   unsigned long long v = strtoull(s, &end, 0);
   if (errno || *end || v > max)
      return false;
   *out = v;
   return true;
}

bool cli_parse_u32(const char *s, uint32_t *out)
{
   uint64_t v;
   if (!cli_parse_u64(s, UINT32_MAX, &v))
      return false;
   *out = (uint32_t)v;
   return true;
}

bool cli_parse_u64_until(const char *s, char stop, uint64_t *out)
{
   const char *end = strchr(s, stop);
   char num[64];
   if (!end || (size_t)(end - s) >= sizeof(num))
      return false;
   memcpy(num, s, (size_t)(end - s));
   num[end - s] = 0;
   return cli_parse_u64(num, UINT64_MAX, out);
}

bool cli_parse_double(const char *s, double lo, double hi, double *out)
{
   char *end;
   if (!s || !*s)
      return false;
   errno = 0;
   double v = strtod(s, &end);
   if (errno || *end || !(v >= lo && v <= hi))
      return false;
   *out = v;
   return true;
}

bool cli_parse_range(const char *s, uint32_t *first, uint32_t *last)
{
   const char *dash = strchr(s, '-');
   if (!dash)
      return cli_parse_u32(s, first) && (*last = *first, true);
   uint64_t f;
   uint32_t l = *last;
   if (!cli_parse_u64_until(s, '-', &f) || f > UINT32_MAX ||
       (dash[1] && !cli_parse_u32(dash + 1, &l)))
      return false;
   *first = (uint32_t)f;
   *last = l;
   return true;
}
