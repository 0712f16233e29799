/* SPDX-License-Identifier: MIT */
/*
 * test_png: the one PNG writer of the GL and Vulkan test programs
 * (tests/gl/module.mk compiles test_png.c into those that dump images).
 * Writes w x h 8-bit RGBA pixels, rows top to bottom as given (row 0 is the
 * first row in memory, as readbacks and the replay's dumps order them), so
 * the file compares with `tessera replay --dump-images` output.
 * Returns false on any I/O or libpng error (the file may then be partial).
 */
#ifndef TEST_PNG_H
#define TEST_PNG_H

#include <stdbool.h>
#include <stdint.h>

bool test_png_write_rgba(const char *path, const uint8_t *px, unsigned w, unsigned h);

#endif
