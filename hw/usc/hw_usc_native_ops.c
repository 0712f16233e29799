/* SPDX-License-Identifier: MIT */
/*
 * The one symbol tessera-usc-native.so exports (hw_usc_native_plugin.h;
 * hw/usc/native.map hides everything else, so nothing of the plugin's
 * copies of hw_usc_float.c / hw_usc_sr.c interposes on the host's, nor
 * the reverse).  Kept out of hw_usc_native.c so that file stays as it is.
 */
#include "hw/usc/hw_usc_native_plugin.h"

const struct usc_native_plugin_ops tessera_usc_native_ops = {
   USC_NATIVE_PLUGIN_OPS_INIT,
   .get = usc_native_get,
   .release = usc_native_release,
   .note = usc_native_note,
   .set_mode = usc_native_set_mode,
   .translatable = usc_native_translatable,
   .shutdown = usc_native_shutdown,
   .set_cache_dir = usc_native_set_cache_dir,
   .cache_get_counts = usc_native_cache_get_counts,
   .set_async = usc_native_set_async,
   .wait_idle = usc_native_wait_idle,
};
