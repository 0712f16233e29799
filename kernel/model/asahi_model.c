/* SPDX-License-Identifier: MIT */
/*
 * The GPU model + driver bundle (see asahi_model.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw/cdm/cdm.h"
#include "hw/hw_device.h"
#include "hw/render/hw_render.h"
#include "kernel/model/asahi_model.h"

unsigned
asahi_model_threads(unsigned cfg_threads)
{
   unsigned n = cfg_threads;
   if (!n) {
      const char *e = getenv("TESSERA_HW_THREADS");
      if (e && *e) {
         char *end;
         unsigned long v = strtoul(e, &end, 10);
         if (*end == '\0' && v > 0)
            n = v > ASAHI_MODEL_MAX_THREADS ? ASAHI_MODEL_MAX_THREADS : (unsigned)v;
      }
   }
   if (!n) {
      /* A program embedding the model (through the shim) has threads of
       * its own; taking every CPU would only add contention. */
      long cpus = sysconf(_SC_NPROCESSORS_ONLN);
      n = cpus > 0 ? (unsigned)cpus : 1;
      if (n > ASAHI_MODEL_DEFAULT_THREADS)
         n = ASAHI_MODEL_DEFAULT_THREADS;
   }
   return n > ASAHI_MODEL_MAX_THREADS ? ASAHI_MODEL_MAX_THREADS : n;
}

static void
set_err(char *err, size_t size, const char *what, const char *why)
{
   if (err && size)
      snprintf(err, size, "%s%s%s", what, why && *why ? ": " : "", why ? why : "");
}

struct asahi_model *
asahi_model_create(const struct asahi_model_config *cfg, char *err, size_t err_size)
{
   static const struct asahi_model_config defaults;
   if (!cfg)
      cfg = &defaults;
   struct asahi_model *m = calloc(1, sizeof(*m));
   if (!m) {
      set_err(err, err_size, "out of memory", NULL);
      return NULL;
   }
   m->threads = asahi_model_threads(cfg->threads);

   struct hw_device_config hc = { .mem_size = cfg->mem_size, .soft_faults = cfg->soft_faults };
   m->hw = hw_device_create(&hc);
   if (!m->hw) {
      set_err(err, err_size, "cannot create the GPU model", NULL);
      free(m);
      return NULL;
   }
   /* Executors before the driver: asahi_create() boots the firmware, and
    * from then on any queued job must find its pipe's executor. */
   struct hw_cdm_config cc = { .threads = m->threads };
   m->cdm = hw_cdm_create(m->hw, &cc);
   if (!m->cdm) {
      set_err(err, err_size, "cannot create the compute executor",
              hw_device_last_error(m->hw));
      goto fail;
   }
   struct hw_render_config rc = { .threads = m->threads };
   m->render = hw_render_create(m->hw, &rc);
   if (!m->render) {
      set_err(err, err_size, "cannot create the render executors",
              hw_device_last_error(m->hw));
      goto fail;
   }
   m->dev = asahi_create(m->hw, &cfg->drv);
   if (!m->dev) {
      set_err(err, err_size, "cannot start the driver", hw_device_last_error(m->hw));
      goto fail;
   }
   return m;
fail:
   asahi_model_destroy(m);
   return NULL;
}

void
asahi_model_destroy(struct asahi_model *m)
{
   if (!m)
      return;
   /* The driver first: it stops its threads and fails what is pending
    * while the firmware can still answer device-control messages. */
   if (m->dev)
      asahi_destroy(m->dev);
   /* hw_cdm_destroy() stops the firmware thread before anything else, so
    * no executor is running once it returns ... */
   if (m->cdm)
      hw_cdm_destroy(m->cdm);
   /* ... which makes unregistering the render executors safe. */
   if (m->render)
      hw_render_destroy(m->render);
   hw_device_destroy(m->hw);
   free(m);
}

void
asahi_model_get_stats(struct asahi_model *m, struct asahi_model_stats *out)
{
   memset(out, 0, sizeof(*out));
   asahi_get_stats(m->dev, &out->drv);
   struct hw_render_stats r;
   hw_render_get_stats(m->render, &r);
   out->draws = r.draws;
   out->primitives = r.primitives;
   out->tiles = r.tiles;
   out->fragments = r.fragments;
   out->partial_renders = r.partial_renders;
   out->grow_events = r.grow_events;
}

void
asahi_model_set_profiler(struct asahi_model *m, hw_prof_fn fn, void *user)
{
   hw_cdm_set_profiler(m->cdm, fn, user);
   hw_render_set_profiler(m->render, fn, user);
}
