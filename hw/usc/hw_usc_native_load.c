/* SPDX-License-Identifier: MIT */
/*
 * The loader of the USC native path (hw_usc_native_plugin.h): defines the
 * usc_native_* functions hw_usc_internal.h declares and forwards them to
 * tessera-usc-native.so, loaded the first time a shader asks for native
 * code with the mode not 0 (with mode 1 and the background compile, once
 * the shaders have run USC_NATIVE_HOT instructions: load_deferred).
 * Programs that never run a shader (tessera --version, dump, the capture
 * launcher) thus never map LLVM.  No plugin,
 * or one of another build: one warning line, and the interpreter runs
 * everything (same results, slower).  No LLVM here.
 */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw/usc/hw_usc_native_plugin.h"

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const struct usc_native_plugin_ops *plugin;   /* atomic; set once */
static int loaded;                /* atomic: the load was tried */
static int env_mode = -1;         /* TESSERA_USC_NATIVE: 0, 2, else 1 */
static int env_async = -1;        /* TESSERA_USC_NATIVE_ASYNC is "0": 0, else 1;
                                   * -1: not read yet (atomic) */
/* The SIMD-group instructions all shaders ran while the load was held
 * back (load_deferred); atomic. */
static uint64_t unloaded_work;

/* The settings (usc_native_set_*): each is stored here and forwarded to
 * the plugin if it is loaded, and load() hands the stored ones to the
 * plugin before publishing it, so a setting made before the load applies
 * as well as one made after, and setting something never loads LLVM.
 * settings_lock orders a setter against the load: whichever comes second
 * sees the other's work. */
static pthread_mutex_t settings_lock = PTHREAD_MUTEX_INITIALIZER;
static int set_mode_value = -1;   /* usc_native_set_mode's, -1: none (atomic) */
static bool cache_dir_set;        /* usc_native_set_cache_dir was called */
static char *cache_dir_value;     /* its directory (NULL: no cache) */
static int async_value = -1;      /* usc_native_set_async's, -1: none (atomic) */

/* A setter's start: takes settings_lock and returns the plugin if it is
 * loaded, for the setter to forward its value to, else NULL (load() hands
 * the stored value over).  Under the lock the load is wholly before or
 * wholly after the setter's store.  setting_end() unlocks. */
static const struct usc_native_plugin_ops *
setting_begin(void)
{
   pthread_mutex_lock(&settings_lock);
   return __atomic_load_n(&plugin, __ATOMIC_ACQUIRE);
}

static void
setting_end(void)
{
   pthread_mutex_unlock(&settings_lock);
}

/* The directory of the object this loader is linked into (the program,
 * the shim, a test), into dir[size]; false if unknown. */
static bool
own_dir(char *dir, size_t size)
{
   Dl_info info;
   struct link_map *lm = NULL;
   if (!dladdr1((void *)&own_dir, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
      return false;
   if (lm->l_name && lm->l_name[0]) {
      if (strlen(lm->l_name) >= size)
         return false;
      strcpy(dir, lm->l_name);
   } else {   /* the main program: its l_name is empty */
      ssize_t n = readlink("/proc/self/exe", dir, size - 1);
      if (n <= 0)
         return false;
      dir[n] = '\0';
   }
   char *slash = strrchr(dir, '/');
   if (!slash)
      strcpy(dir, ".");
   else if (slash == dir)
      dir[1] = '\0';
   else
      *slash = '\0';
   return true;
}

/* The background compile's switch: set_async's value, else
 * TESSERA_USC_NATIVE_ASYNC, read once.  The one place it is resolved:
 * load_deferred asks it, and load hands it to the plugin, whose compiles
 * thus follow the same value (an environment changed between the two
 * could otherwise have the load wait for the background compile and the
 * plugin then compile on the launching thread, or the reverse). */
static bool
async_get(void)
{
   int a = __atomic_load_n(&async_value, __ATOMIC_ACQUIRE);
   if (a >= 0)
      return a;
   a = __atomic_load_n(&env_async, __ATOMIC_RELAXED);
   if (a < 0) {   /* racing threads compute the same */
      const char *v = getenv("TESSERA_USC_NATIVE_ASYNC");
      a = !(v && !strcmp(v, "0"));
      __atomic_store_n(&env_async, a, __ATOMIC_RELAXED);
   }
   return a;
}

static void
load(void)
{
   char path[PATH_MAX + 64];
   const char *env = getenv("TESSERA_USC_NATIVE_LIB");
   if (env && *env) {
      snprintf(path, sizeof(path), "%s", env);
   } else {
      char dir[PATH_MAX];
      if (!own_dir(dir, sizeof(dir))) {
         fprintf(stderr, "tessera: usc native: cannot locate %s (set "
                 "TESSERA_USC_NATIVE_LIB); using the interpreter\n",
                 USC_NATIVE_PLUGIN_NAME);
         goto out;
      }
      /* next to the object (lib/: the shim), else ../lib (bin/, tests/) */
      snprintf(path, sizeof(path), "%s/%s", dir, USC_NATIVE_PLUGIN_NAME);
      if (access(path, F_OK))
         snprintf(path, sizeof(path), "%s/../lib/%s", dir, USC_NATIVE_PLUGIN_NAME);
   }
   /* RTLD_LOCAL: its symbols (its own LLVM-free copies of the float and
    * special-register helpers among them, though hidden) never resolve
    * anything of the host's. */
   void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
   if (!h) {
      fprintf(stderr, "tessera: usc native: cannot load the plugin: %s; "
              "using the interpreter (same results, slower)\n", dlerror());
      goto out;
   }
   const struct usc_native_plugin_ops *ops = dlsym(h, USC_NATIVE_PLUGIN_SYMBOL);
   if (!ops) {
      fprintf(stderr, "tessera: usc native: %s has no %s: not the plugin; "
              "using the interpreter (same results, slower)\n", path,
              USC_NATIVE_PLUGIN_SYMBOL);
      dlclose(h);
      goto out;
   }
   if (ops->version != USC_NATIVE_PLUGIN_VERSION || ops->size_ops != sizeof(*ops) ||
       ops->size_shader != sizeof(struct hw_usc_shader) ||
       ops->size_inst != sizeof(struct usc_inst) ||
       ops->size_simd != sizeof(struct hw_usc_simd) ||
       ops->size_native != sizeof(struct usc_native) ||
       ops->size_run != sizeof(struct usc_native_run) ||
       ops->size_counts != sizeof(struct usc_native_cache_counts)) {
      fprintf(stderr, "tessera: usc native: %s is the plugin of another build "
              "(version %u, want %u; or other struct sizes); using the "
              "interpreter (same results, slower)\n", path, ops->version,
              USC_NATIVE_PLUGIN_VERSION);
      dlclose(h);
      goto out;
   }
   pthread_mutex_lock(&settings_lock);
   if (set_mode_value >= 0)
      ops->set_mode(set_mode_value);
   if (cache_dir_set)
      ops->set_cache_dir(cache_dir_value);
   /* always: the plugin does not read TESSERA_USC_NATIVE_ASYNC itself,
    * so the load and the compiles follow one value (async_get) */
   ops->set_async(async_get());
   /* never closed: shaders hold its code, its exit handlers are hooked */
   __atomic_store_n(&plugin, ops, __ATOMIC_RELEASE);
   pthread_mutex_unlock(&settings_lock);
out:
   __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
}

/* The plugin, loaded if need be; NULL if it is missing or unusable. */
static const struct usc_native_plugin_ops *
plugin_get(void)
{
   const struct usc_native_plugin_ops *ops = __atomic_load_n(&plugin, __ATOMIC_ACQUIRE);
   if (ops || __atomic_load_n(&loaded, __ATOMIC_ACQUIRE))
      return ops;
   pthread_once(&load_once, load);
   return __atomic_load_n(&plugin, __ATOMIC_ACQUIRE);
}

/* The mode (set_mode, else TESSERA_USC_NATIVE) as far as the loader
 * cares: 0 (nothing is loaded), 2, else 1.  Invalid values count as the
 * default, 1: the plugin parses them (and warns about them). */
static int
mode_get(void)
{
   int m = __atomic_load_n(&set_mode_value, __ATOMIC_ACQUIRE);
   if (m >= 0)
      return m == 0 || m == 2 ? m : 1;
   int e = __atomic_load_n(&env_mode, __ATOMIC_RELAXED);
   if (e < 0) {   /* racing threads compute the same */
      const char *v = getenv("TESSERA_USC_NATIVE");
      e = v && !strcmp(v, "0") ? 0 : v && !strcmp(v, "2") ? 2 : HW_USC_NATIVE_DEFAULT;
      __atomic_store_n(&env_mode, e, __ATOMIC_RELAXED);
   }
   return e;
}

/* Whether the load waits for work (docs/usc.md "Linking: a plugin"):
 * with mode 1 and the background compile on, no shader can be hot (its
 * entry's USC_NATIVE_HOT instructions) before all shaders together have
 * run that many, so until then the plugin could give no code and loading
 * it (~20 ms of CPU: libLLVM's relocations and constructors, jit_warm)
 * would only stall the render worker that asked, mid-frame: a small
 * trace (es2tri) took 27-31 ms to replay instead of 10.  Results are
 * the same either way (native code charges what interpreting would).
 * Mode 2 (the tests) wants code at the first launch, and with the
 * background compile off (TESSERA_USC_NATIVE_ASYNC=0, or set_async) the
 * load keeps happening at the first request, as before.  Each shader's
 * work before the load is counted too and handed to the plugin at its
 * first request after it (usc_native_get), so it compiles when it would
 * have.  Not a
 * background dlopen: one running while another thread calls exit() would
 * have libLLVM's constructors register destructors that exit() runs at
 * once, under the constructors and jit_warm still running (the crash
 * jit_at_exit guards against, reopened), and no exit handler registered
 * before the load can run before those. */
static bool
load_deferred(void)
{
   return mode_get() == 1 && async_get() &&
          __atomic_load_n(&unloaded_work, __ATOMIC_RELAXED) < USC_NATIVE_HOT;
}

const struct usc_native *
usc_native_get(const struct hw_usc_shader *sh)
{
   const struct usc_native_plugin_ops *ops = __atomic_load_n(&plugin, __ATOMIC_ACQUIRE);
   if (!ops) {
      if (__atomic_load_n(&loaded, __ATOMIC_ACQUIRE) || mode_get() == 0 || load_deferred())
         return NULL;
      ops = plugin_get();
      if (!ops)
         return NULL;
   }
   const struct usc_native *nat = ops->get(sh);
   if (!nat && __atomic_load_n(&sh->native_unloaded_work, __ATOMIC_RELAXED)) {
      /* the work it did before the load (load_deferred) counts, so it is
       * hot when it would have been with the plugin loaded from the start;
       * get() made the entry that note() adds to */
      struct hw_usc_shader *w = (struct hw_usc_shader *)sh;
      uint64_t n = __atomic_exchange_n(&w->native_unloaded_work, 0, __ATOMIC_RELAXED);
      if (n) {
         ops->note(sh, n);
         nat = ops->get(sh);
      }
   }
   return nat;
}

void
usc_native_note(const struct hw_usc_shader *sh, uint64_t instructions)
{
   const struct usc_native_plugin_ops *ops = __atomic_load_n(&plugin, __ATOMIC_ACQUIRE);
   if (ops) {
      ops->note(sh, instructions);
   } else if (!__atomic_load_n(&loaded, __ATOMIC_RELAXED)) {   /* load_deferred's counts */
      struct hw_usc_shader *w = (struct hw_usc_shader *)sh;   /* a lazily set field */
      __atomic_add_fetch(&w->native_unloaded_work, instructions, __ATOMIC_RELAXED);
      __atomic_add_fetch(&unloaded_work, instructions, __ATOMIC_RELAXED);
   }
}

void
usc_native_release(struct hw_usc_shader *sh)
{
   /* without the plugin nothing set the shader's native fields */
   const struct usc_native_plugin_ops *ops = __atomic_load_n(&plugin, __ATOMIC_ACQUIRE);
   if (ops)
      ops->release(sh);
}

void
usc_native_set_mode(int mode)
{
   const struct usc_native_plugin_ops *ops = setting_begin();
   __atomic_store_n(&set_mode_value, mode, __ATOMIC_RELEASE);   /* mode_get reads it */
   if (ops)
      ops->set_mode(mode);
   setting_end();
}

bool
usc_native_translatable(const struct usc_inst *in)
{
   const struct usc_native_plugin_ops *ops = plugin_get();
   return ops && ops->translatable(in);
}

void
usc_native_shutdown(void)
{
   const struct usc_native_plugin_ops *ops = __atomic_load_n(&plugin, __ATOMIC_ACQUIRE);
   if (ops)
      ops->shutdown();
}

void
usc_native_set_cache_dir(const char *dir)
{
   char *copy = dir && *dir ? strdup(dir) : NULL;   /* out of memory: no cache */
   const struct usc_native_plugin_ops *ops = setting_begin();
   free(cache_dir_value);
   cache_dir_value = copy;
   cache_dir_set = true;
   if (ops)
      ops->set_cache_dir(copy);
   setting_end();
}

/* Nothing loaded: nothing compiled, nothing counted. */
struct usc_native_cache_counts
usc_native_cache_get_counts(void)
{
   const struct usc_native_plugin_ops *ops = __atomic_load_n(&plugin, __ATOMIC_ACQUIRE);
   return ops ? ops->cache_get_counts() : (struct usc_native_cache_counts){ 0 };
}

void
usc_native_set_async(bool async)
{
   const struct usc_native_plugin_ops *ops = setting_begin();
   __atomic_store_n(&async_value, async, __ATOMIC_RELEASE);   /* async_get reads it */
   if (ops)
      ops->set_async(async);
   setting_end();
}

void
usc_native_wait_idle(void)
{
   const struct usc_native_plugin_ops *ops = __atomic_load_n(&plugin, __ATOMIC_ACQUIRE);
   if (ops)
      ops->wait_idle();
}
