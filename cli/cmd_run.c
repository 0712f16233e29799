/* SPDX-License-Identifier: MIT */
/*
 * tessera run: run any program on the embedded GPU through Mesa with the
 * tessera Gallium driver. Sets the library and driver search paths to the
 * Mesa build, preloads tessera-shim.so (the render node backed by the GPU
 * model) and execs the program: it keeps its pid, so `tessera capture --
 * tessera run -- PROG` records PROG itself.
 *
 * Paths: EGL (surfaceless, device) finds the shim's node, whose kernel
 * driver is "asahi", and loads asahi_dri.so = tessera (the DRM path).
 * Where Mesa falls back to swrast_dri.so by itself (GLX and EGL/x11 on an
 * X server without DRI3, such as Xvfb), GALLIUM_DRIVER=tessera makes that
 * the tessera sw-winsys screen; --sw forces that path everywhere
 * (LIBGL_ALWAYS_SOFTWARE=1). Either way the driver renders on the node.
 *
 * --driver asahi runs Mesa's own asahi driver instead (Mesa 25.0.7, ported
 * to the upstream uAPI: build/mesa-asahi) on the same node; our patch gives
 * it the same software-winsys screen (GALLIUM_DRIVER=asahi: agx_sw.c), so
 * GLX on Xvfb renders on the node too. --driver softpipe|llvmpipe run
 * Mesa's CPU rasterizers without the node, for comparisons.
 *
 * Vulkan: the same tree holds Mesa's asahi Vulkan driver (honeykrisp,
 * libvulkan_asahi.so) and its ICD manifest (lib/vulkan/asahi_icd.json, its
 * library path relative to the manifest). --driver asahi points the Vulkan
 * loader at that manifest alone (VK_DRIVER_FILES, and VK_ICD_FILENAMES for
 * loaders older than 1.3.207), so vulkaninfo and every Vulkan program see
 * the model's GPU through the shim's node and no other device. Presentation
 * takes Mesa's software WSI (MESA_VK_WSI_DEBUG=sw: rendered on the node,
 * copied out by the CPU, put to the X server): an X server cannot import
 * the shim's buffers by DRI3, so it is the Vulkan twin of the drisw path.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_args.h"
#include "cli/cli_paths.h"
#include "cli/commands.h"

static void
usage(FILE *fp)
{
   fprintf(fp,
      "usage: tessera run [options] -- PROGRAM [ARGS...]\n"
      "Run PROGRAM with OpenGL/GLES on the embedded GPU (Mesa + the tessera driver).\n\n"
      "  -s, --sw          force the software-winsys path (Mesa's drisw with\n"
      "                    GALLIUM_DRIVER=tessera|asahi) also where a render node would be used\n"
      "      --no-shim     do not preload tessera-shim.so (use a real Asahi render node)\n"
      "      --driver NAME tessera (default): the tessera driver (Mesa 22.3.6);\n"
      "                    asahi: Mesa's asahi driver (Mesa 25.0.7) on the same node;\n"
      "                    softpipe, llvmpipe: Mesa's CPU rasterizers (imply --sw and\n"
      "                    --no-shim; softpipe from the 22.3.6 tree, llvmpipe from 25.0.7)\n"
      "                    (asahi also points the Vulkan loader at Mesa's asahi\n"
      "                    Vulkan driver, honeykrisp, on the node)\n"
      "      --print-env   print the environment settings and exit\n"
      "  -h, --help\n"
      "Environment the drivers read: TESSERA_DEBUG=shaders,sync,trace,flush,perf,notwiddle\n"
      "(tessera), ASAHI_MESA_DEBUG=trace,sync,stats,nocompress,... (asahi; docs/driver.md)\n");
}

static int
fail(const char *what, const char *detail)
{
   fprintf(stderr, "tessera run: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
   return 2;
}

/* VAR=value:$VAR (or value alone), so the program's own settings survive. */
static bool
prepend(const char *var, const char *value, char sep)
{
   const char *old = getenv(var);
   if (!old || !*old)
      return setenv(var, value, 1) == 0;
   size_t n = strlen(value) + strlen(old) + 2;
   char *s = malloc(n);
   if (!s)
      return false;
   snprintf(s, n, "%s%c%s", value, sep, old);
   bool ok = setenv(var, s, 1) == 0;
   free(s);
   return ok;
}

/* LD_PRELOAD=$LD_PRELOAD shim: a capture layer already there stays first,
 * so it sees the program's ioctls before the shim does. */
static bool
append_preload(const char *lib)
{
   const char *old = getenv("LD_PRELOAD");
   if (old && strstr(old, lib))
      return true;
   if (!old || !*old)
      return setenv("LD_PRELOAD", lib, 1) == 0;
   size_t n = strlen(lib) + strlen(old) + 2;
   char *s = malloc(n);
   if (!s)
      return false;
   snprintf(s, n, "%s %s", old, lib);
   bool ok = setenv("LD_PRELOAD", s, 1) == 0;
   free(s);
   return ok;
}

/* MESA_VK_WSI_DEBUG gets "sw" (Mesa's software presentation), keeping the
 * user's other flags. */
static bool
add_wsi_sw(void)
{
   const char *old = getenv("MESA_VK_WSI_DEBUG");
   if (!old || !*old)
      return setenv("MESA_VK_WSI_DEBUG", "sw", 1) == 0;
   char flags[256];
   snprintf(flags, sizeof(flags), ",%s,", old);
   if (strstr(flags, ",sw,"))
      return true;
   return prepend("MESA_VK_WSI_DEBUG", "sw", ',');
}

/* What each --driver needs: which Mesa tree, the node, a forced software
 * winsys, and the Gallium driver name the swrast path must pick. */
struct run_driver {
   const char *name, *tree, *gallium;
   bool shim, sw;
   /* The tree's Vulkan ICD manifest, relative to its lib/; NULL: none */
   const char *vulkan_icd;
};

static const struct run_driver run_drivers[] = {
   { "tessera", "mesa", "tessera", true, false, NULL },
   { "asahi", "mesa-asahi", "asahi", true, false, "vulkan/asahi_icd.json" },
   { "softpipe", "mesa", "softpipe", false, true, NULL },
   { "llvmpipe", "mesa-asahi", "llvmpipe", false, true, NULL },
};

int
cmd_run(int argc, char **argv)
{
   enum { O_NO_SHIM = 256, O_DRIVER, O_PRINT_ENV };
   static const struct option opts[] = {
      { "sw", no_argument, NULL, 's' },
      { "no-shim", no_argument, NULL, O_NO_SHIM },
      { "driver", required_argument, NULL, O_DRIVER },
      { "print-env", no_argument, NULL, O_PRINT_ENV },
      { "help", no_argument, NULL, 'h' },
      { NULL, 0, NULL, 0 },
   };
   bool sw = false, no_shim = false, print_env = false;
   const char *driver = "tessera";
   int c;
   optind = 1;
   opterr = 0;
   while ((c = getopt_long(argc, argv, "+:sh", opts, NULL)) != -1) {
      switch (c) {
      case 's': sw = true; break;
      case O_NO_SHIM: no_shim = true; break;
      case O_DRIVER: driver = optarg; break;
      case O_PRINT_ENV: print_env = true; break;
      case 'h': usage(stdout); return 0;
      default:
         cli_bad_option("run", c, argv, opts);
         usage(stderr);
         return 2;
      }
   }
   if (optind >= argc && !print_env) {
      usage(stderr);
      return 2;
   }

   const struct run_driver *d = NULL;
   for (size_t i = 0; i < sizeof(run_drivers) / sizeof(run_drivers[0]); i++)
      if (!strcmp(driver, run_drivers[i].name))
         d = &run_drivers[i];
   if (!d)
      return fail("unknown driver (tessera, asahi, softpipe or llvmpipe)", driver);
   if (sw && !d->gallium)
      return fail("--sw: this driver has no software winsys", driver);
   sw = sw || d->sw;
   bool shim = d->shim && !no_shim;

   char mesa[PATH_MAX], dri[PATH_MAX + 8], shim_path[PATH_MAX];
   if (!cli_find_mesa_lib(d->tree, mesa, sizeof(mesa))) {
      char what[160];
      snprintf(what, sizeof(what), "cannot find the Mesa build for %s (build/%s/lib): run `make` first",
               d->name, d->tree);
      return fail(what, NULL);
   }
   snprintf(dri, sizeof(dri), "%s/dri", mesa);
   if (shim && !cli_find_lib("tessera-shim.so", shim_path, sizeof(shim_path)))
      return fail("cannot find tessera-shim.so", NULL);

   if (!prepend("LD_LIBRARY_PATH", mesa, ':') || setenv("LIBGL_DRIVERS_PATH", dri, 1) ||
       (shim && !append_preload(shim_path)))
      return fail("cannot set the environment", strerror(errno));
   /* Even without --sw: where Mesa falls back to swrast_dri.so on its own
    * (GLX and EGL/x11 on Xvfb), the driver it picks must be the one asked
    * for (tessera or asahi, each with a sw-winsys screen), not llvmpipe;
    * with GALLIUM_DRIVER set Mesa tries no other. */
   /* Mesa 25's GBM loads its DRI backend (gbm/dri_gbm.so) from a path
    * compiled into libgbm: point it at the copy beside the libraries. */
   char gbm[PATH_MAX + 8];
   snprintf(gbm, sizeof(gbm), "%s/gbm", mesa);
   if (access(gbm, R_OK) == 0 && setenv("GBM_BACKENDS_PATH", gbm, 1))
      return fail("cannot set the environment", strerror(errno));
   if (d->gallium)
      setenv("GALLIUM_DRIVER", d->gallium, 1);
   else
      unsetenv("GALLIUM_DRIVER");
   if (sw)
      setenv("LIBGL_ALWAYS_SOFTWARE", "1", 1);
   /* A tree built before its Vulkan driver was (no manifest) runs GL as
    * before; the loader then finds whatever the system has. */
   char icd[PATH_MAX + 32];
   if (d->vulkan_icd) {
      snprintf(icd, sizeof(icd), "%s/%s", mesa, d->vulkan_icd);
      if (access(icd, R_OK) == 0 &&
          (setenv("VK_DRIVER_FILES", icd, 1) || setenv("VK_ICD_FILENAMES", icd, 1) ||
           (shim && !add_wsi_sw())))
         return fail("cannot set the environment", strerror(errno));
   }
   if (print_env) {
      static const char *vars[] = { "LD_LIBRARY_PATH", "LIBGL_DRIVERS_PATH", "GBM_BACKENDS_PATH",
                                    "LD_PRELOAD", "LIBGL_ALWAYS_SOFTWARE", "GALLIUM_DRIVER",
                                    "VK_DRIVER_FILES", "VK_ICD_FILENAMES", "MESA_VK_WSI_DEBUG" };
      for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
         const char *v = getenv(vars[i]);
         if (v)
            printf("%s=%s\n", vars[i], v);
      }
      if (optind >= argc)
         return 0;
   }
   fflush(stdout);
   execvp(argv[optind], &argv[optind]);
   fprintf(stderr, "tessera run: cannot run %s: %s\n", argv[optind], strerror(errno));
   return 127;
}
