/* SPDX-License-Identifier: MIT */
/*
 * Entry points of the tessera Gallium driver, called from Mesa's target
 * helpers (the hooks in gallium/mesa/mesa-22.3.6-tessera-hooks.patch).
 *
 * Both return a screen driving an Asahi render node through the upstream
 * uAPI, or NULL with the reason printed to stderr:
 *   - _drm: the loader already opened the node (kernel driver "asahi",
 *     or MESA_LOADER_DRIVER_OVERRIDE=tessera); the screen dups the fd.
 *   - _sw: the software-winsys path (GALLIUM_DRIVER=tessera through
 *     swrast_dri.so, for X11/GLX/Xvfb); the screen opens the first asahi
 *     render node itself and presents into the winsys' display targets.
 */
#ifndef TESSERA_PUBLIC_H
#define TESSERA_PUBLIC_H

struct pipe_screen;
struct pipe_screen_config;
struct sw_winsys;

struct pipe_screen *tessera_create_screen_drm(int fd, const struct pipe_screen_config *config);
struct pipe_screen *tessera_create_screen_sw(struct sw_winsys *winsys,
                                             const struct pipe_screen_config *config);

#endif
