/* SPDX-License-Identifier: MIT */
/*
 * Presentation on the software-winsys path (tessera_create_screen_sw):
 * display-target resources render into their own GPU BO and carry a winsys
 * display target; flush_frontbuffer copies the finished image into it.
 */
#ifndef TESSERA_SW_H
#define TESSERA_SW_H

#include <stdbool.h>

struct tessera_screen;
struct tessera_resource;

bool tessera_sw_displaytarget_create(struct tessera_screen *s, struct tessera_resource *r);
void tessera_sw_displaytarget_destroy(struct tessera_screen *s, struct tessera_resource *r);

#endif
