/* SPDX-License-Identifier: MIT */
/*
 * What every tessera command needs to parse its arguments: the report of an
 * option getopt_long() refused, and numbers, ranges of numbers and reals
 * given as option values.
 *
 * Every command parses with getopt_long() the same way: opterr = 0 (the
 * messages are ours, prefixed "tessera CMD: "), an optstring that starts
 * with ':' (so a missing value is told apart from an unknown option),
 * optind = 1 before the loop, and cli_bad_option() for '?' and ':'.
 *
 * Numbers are decimal, 0x-prefixed hex or 0-prefixed octal, without sign or
 * leading space ("-1" is refused, not wrapped around), and refused past
 * `max`: a parse either gives the whole string's value or fails.
 */
#ifndef TESSERA_CLI_ARGS_H
#define TESSERA_CLI_ARGS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

/* Prints "tessera CMD: unknown option 'X'" (c == '?') or "tessera CMD: X
 * needs a value" (c == ':') for the option getopt_long() just refused, as
 * the user wrote it. Returns 2, the usage exit status. */
int cli_bad_option(const char *cmd, int c, char **argv, const struct option *longopts);

bool cli_parse_u64(const char *s, uint64_t max, uint64_t *out);
bool cli_parse_u32(const char *s, uint32_t *out);
/* The number s starts with, which ends at the first `stop` character (the
 * ADDR of "ADDR:FILE"); false without one. */
bool cli_parse_u64_until(const char *s, char stop, uint64_t *out);
/* A real number in [lo, hi] (strtod syntax). */
bool cli_parse_double(const char *s, double lo, double hi, double *out);
/* "A-B" (both set), "A-" (only *first set: to the end) or "A" (both A). */
bool cli_parse_range(const char *s, uint32_t *first, uint32_t *last);

#endif
