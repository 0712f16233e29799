/* SPDX-License-Identifier: MIT */
/*
 * The tessera screen: device discovery, the GPU VM and its VA heaps,
 * capabilities and format support (contract in tessera_screen.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "pipe/p_compiler.h"
#include "frontend/sw_winsys.h"
#include "pipe/p_defines.h"
#include "pipe/p_screen.h"
#include "util/format/u_format.h"
#include "util/os_file.h"
#include "util/os_time.h"
#include "util/u_debug.h"
#include "util/u_math.h"
#include "util/u_memory.h"
#include "util/u_screen.h"
#include "util/u_transfer_helper.h"

#include "compiler/tc_compiler.h"
#include "tessera_context.h"
#include "tessera_fence.h"
#include "tessera_public.h"
#include "tessera_resource.h"
#include "tessera_screen.h"

/* tessera_context_create (tessera_context.h) and the tc_* entry points are
 * strong references: they also pull those objects out of libtessera.a. */

#define GiB (1ull << 30)

static const struct debug_named_value tessera_debug_options[] = {
   {"shaders", TESSERA_DBG_SHADERS, "Print NIR and disassembly of every shader variant"},
   {"sync", TESSERA_DBG_SYNC, "Wait for every submission"},
   {"trace", TESSERA_DBG_TRACE, "Decode every submitted command stream to stderr"},
   {"flush", TESSERA_DBG_FLUSH, "Print why each batch was flushed"},
   {"perf", TESSERA_DBG_PERF, "Print slow paths taken"},
   {"notwiddle", TESSERA_DBG_NOTWIDDLE, "Allocate single-level textures linear"},
   DEBUG_NAMED_VALUE_END
};

DEBUG_GET_ONCE_FLAGS_OPTION(tessera_debug, "TESSERA_DEBUG", tessera_debug_options, 0)

/* ---- identification ------------------------------------------------------- */

static const char *
tessera_get_name(struct pipe_screen *pscreen)
{
   return tessera_screen(pscreen)->name;
}

static const char *
tessera_get_vendor(struct pipe_screen *pscreen)
{
   return "tessera";
}

static const char *
tessera_get_device_vendor(struct pipe_screen *pscreen)
{
   return "Apple";
}

static uint64_t
tessera_get_timestamp(struct pipe_screen *pscreen)
{
   struct tessera_screen *s = tessera_screen(pscreen);
   struct drm_asahi_get_time t = {0};
   if (drmIoctl(s->fd, DRM_IOCTL_ASAHI_GET_TIME, &t))
      return os_time_get_nano();
   return t.gpu_timestamp;
}

/* ---- capabilities ------------------------------------------------------- */

static int
tessera_get_param(struct pipe_screen *pscreen, enum pipe_cap param)
{
   struct tessera_screen *s = tessera_screen(pscreen);
   switch (param) {
   case PIPE_CAP_NPOT_TEXTURES:
   case PIPE_CAP_BLEND_EQUATION_SEPARATE:
   case PIPE_CAP_ACCELERATED:
   case PIPE_CAP_UMA:
   case PIPE_CAP_TEXTURE_SWIZZLE:            /* descriptor swizzles */
   case PIPE_CAP_VERTEX_COLOR_UNCLAMPED:
   case PIPE_CAP_FS_COORD_ORIGIN_UPPER_LEFT:
   case PIPE_CAP_FS_COORD_PIXEL_CENTER_HALF_INTEGER:
   case PIPE_CAP_CLIP_HALFZ:                 /* tc_vs_key.clip_halfz */
   case PIPE_CAP_FLATSHADE:                  /* tc_fs_key.flatshade */
   case PIPE_CAP_TGSI_TEXCOORD:              /* sprite coords replace TEXn */
   case PIPE_CAP_FRAGMENT_SHADER_DERIVATIVES:
   case PIPE_CAP_VERTEX_BUFFER_OFFSET_4BYTE_ALIGNED_ONLY:
   case PIPE_CAP_VERTEX_BUFFER_STRIDE_4BYTE_ALIGNED_ONLY:
   case PIPE_CAP_VERTEX_ELEMENT_SRC_OFFSET_4BYTE_ALIGNED_ONLY:
   case PIPE_CAP_MIXED_COLOR_DEPTH_BITS:
   case PIPE_CAP_OCCLUSION_QUERY:            /* ISP counters (tests/gl/gl_basic query) */
   case PIPE_CAP_TEXTURE_SHADOW_MAP:         /* sampler compare; tests/gl/gl_desktop shadow */
      return 1;

   /* Attachments of different sizes: the pass covers the framebuffer's
    * (smallest) size, each end-of-tile store and ZLS image is addressed
    * by its own surface's layout. Mesa exposes GL_ARB_framebuffer_object
    * on it, which piglit's headless -fbo mode needs for every desktop GL
    * test (tests/gl/gl_desktop mixed_sizes). */
   case PIPE_CAP_MIXED_FRAMEBUFFER_SIZES:
      return 1;

   /* Quads and quad strips reach the hardware as triangles through
    * u_primconvert, whose index translation keeps the API's provoking
    * vertex (flatshade_first in, the same convention out): in the first-
    * vertex convention a quad's flat colour is its first vertex's, so say
    * so (as Mesa's asahi driver does); otherwise GL expects the last
    * vertex's and piglit clipflat failed every quad case in FIRST mode. */
   case PIPE_CAP_QUADS_FOLLOW_PROVOKING_VERTEX_CONVENTION:
      return 1;

   /* Uniforms packed to the component (st/mesa's driver_location in
    * dwords), as Mesa's asahi driver sets: with vec4-padded storage,
    * state constants st/mesa adds to a variant after the program's
    * uniforms went to a UBO (its point size clamp, user clip planes) are
    * placed by parameter index, which a mat4 parameter throws off, and
    * are read from the wrong slot (piglit gl-2.0-large-point-fs drew no
    * point; tests/gl/gl_desktop large_point). */
   case PIPE_CAP_PACKED_UNIFORMS:
      return 1;

   /* User clip planes: 8 (1 = MAX_CLIP_PLANES), lowered by the compiler
    * to clip distances the hardware clips with (tc_vs_key.ucp_enables;
    * st/mesa's own lowering, for 0, places its plane constants wrongly
    * once the program's uniforms were lowered to a UBO). tests/gl/
    * gl_desktop clip_plane. */
   case PIPE_CAP_CLIP_PLANES:
      return 1;

   /* Lowered by the state tracker (NIR) instead. */
   case PIPE_CAP_ALPHA_TEST:
   case PIPE_CAP_TWO_SIDED_COLOR:
   case PIPE_CAP_POINT_SIZE_FIXED:           /* the VS always writes the size */
   case PIPE_CAP_USER_VERTEX_BUFFERS:        /* st uploads them */
   case PIPE_CAP_TEXTURE_TRANSFER_MODES:     /* CPU transfers (de-twiddling) */
   case PIPE_CAP_SHAREABLE_SHADERS:
      return 0;

   /* Firmware-written per-pass GPU timestamps (tessera_query.c; tests/gl/
    * gl_basic timer), in the same clock as GET_TIME / get_timestamp. */
   case PIPE_CAP_QUERY_TIME_ELAPSED:
   case PIPE_CAP_QUERY_TIMESTAMP:
      return s->params.command_timestamp_frequency_hz != 0;

   /* Instanced arrays (per-instance attributes fetched with r6 / divisor,
    * tc_isel_io.c; instance counts in the VDM index list), primitive
    * restart (the VDM restart index) and per-RT blend state (the FS key
    * blends each target on its own): tests/gl/gl_desktop instancing,
    * restart, indep_blend. */
   case PIPE_CAP_VERTEX_ELEMENT_INSTANCE_DIVISOR:
   case PIPE_CAP_PRIMITIVE_RESTART:
   case PIPE_CAP_PRIMITIVE_RESTART_FIXED_INDEX:
   case PIPE_CAP_INDEP_BLEND_ENABLE:
   case PIPE_CAP_INDEP_BLEND_FUNC:
      return 1;

   /* Not supported (yet): no MSAA, geometry/tessellation/compute, stream
    * output, array textures, texture buffers; features implemented but
    * not yet covered by a test stay off too. */
   case PIPE_CAP_MAX_TEXTURE_ARRAY_LAYERS:
   case PIPE_CAP_TEXTURE_BUFFER_OBJECTS:
   case PIPE_CAP_MAX_TEXEL_BUFFER_ELEMENTS_UINT:
   case PIPE_CAP_MAX_STREAM_OUTPUT_BUFFERS:
   case PIPE_CAP_MAX_DUAL_SOURCE_RENDER_TARGETS:
   case PIPE_CAP_SEAMLESS_CUBE_MAP:
   case PIPE_CAP_CONDITIONAL_RENDER:
   case PIPE_CAP_DEPTH_CLIP_DISABLE:
   case PIPE_CAP_SHADER_STENCIL_EXPORT:
   case PIPE_CAP_TEXTURE_MIRROR_CLAMP:
   case PIPE_CAP_TEXTURE_MIRROR_CLAMP_TO_EDGE:
   case PIPE_CAP_NATIVE_FENCE_FD:
   case PIPE_CAP_VIDEO_MEMORY:
   case PIPE_CAP_MAX_TEXTURE_GATHER_COMPONENTS:
   case PIPE_CAP_SURFACE_SAMPLE_COUNT:
      return 0;

   case PIPE_CAP_MAX_RENDER_TARGETS:
      return 4;                              /* tests/gl/gl_basic mrt */
   case PIPE_CAP_MAX_TEXTURE_2D_SIZE:
      return 16384;                          /* 14-bit width/height fields */
   case PIPE_CAP_MAX_TEXTURE_CUBE_LEVELS:
      return 15;                             /* 16384 x 16384 faces */
   case PIPE_CAP_MAX_TEXTURE_3D_LEVELS:
      return 12;                             /* 2048^3: slices are layers with a chain each */
   case PIPE_CAP_MAX_VERTEX_BUFFERS:
      return TC_MAX_VBUFS;
   case PIPE_CAP_MAX_VARYINGS:
      return 16;
   case PIPE_CAP_CONSTANT_BUFFER_OFFSET_ALIGNMENT:
      return 16;
   case PIPE_CAP_MIN_MAP_BUFFER_ALIGNMENT:
      return 64;
   case PIPE_CAP_GLSL_FEATURE_LEVEL:
   case PIPE_CAP_GLSL_FEATURE_LEVEL_COMPATIBILITY:
      return 120;
   case PIPE_CAP_ESSL_FEATURE_LEVEL:
      return 100;
   case PIPE_CAP_VENDOR_ID:
      return 0x106b;                         /* Apple */
   case PIPE_CAP_DEVICE_ID:
      return s->params.chip_id;
   case PIPE_CAP_DMABUF:
      return s->winsys == NULL;

   default:
      return u_pipe_screen_get_param_defaults(pscreen, param);
   }
}

static float
tessera_get_paramf(struct pipe_screen *pscreen, enum pipe_capf param)
{
   switch (param) {
   case PIPE_CAPF_MIN_LINE_WIDTH:
   case PIPE_CAPF_MIN_LINE_WIDTH_AA:
   case PIPE_CAPF_MIN_POINT_SIZE:
   case PIPE_CAPF_MIN_POINT_SIZE_AA:
      return 1.0f;
   case PIPE_CAPF_LINE_WIDTH_GRANULARITY:
   case PIPE_CAPF_POINT_SIZE_GRANULARITY:
      return 0.1f;
   case PIPE_CAPF_MAX_LINE_WIDTH:
   case PIPE_CAPF_MAX_LINE_WIDTH_AA:
      return 16.0f;
   case PIPE_CAPF_MAX_POINT_SIZE:
   case PIPE_CAPF_MAX_POINT_SIZE_AA:
      return 511.95f;
   case PIPE_CAPF_MAX_TEXTURE_ANISOTROPY:
      return 1.0f;                           /* anisotropic filtering: not modelled */
   case PIPE_CAPF_MAX_TEXTURE_LOD_BIAS:
      return 16.0f;
   default:
      return 0.0f;
   }
}

static int
tessera_get_shader_param(struct pipe_screen *pscreen, enum pipe_shader_type shader,
                         enum pipe_shader_cap param)
{
   if (shader != PIPE_SHADER_VERTEX && shader != PIPE_SHADER_FRAGMENT)
      return 0;
   bool vs = shader == PIPE_SHADER_VERTEX;

   switch (param) {
   case PIPE_SHADER_CAP_MAX_INSTRUCTIONS:
   case PIPE_SHADER_CAP_MAX_ALU_INSTRUCTIONS:
   case PIPE_SHADER_CAP_MAX_TEX_INSTRUCTIONS:
   case PIPE_SHADER_CAP_MAX_TEX_INDIRECTIONS:
      return 16384;
   case PIPE_SHADER_CAP_MAX_CONTROL_FLOW_DEPTH:
      return 1024;
   case PIPE_SHADER_CAP_MAX_INPUTS:
      return vs ? TC_MAX_ATTRIBS : 16;
   case PIPE_SHADER_CAP_MAX_OUTPUTS:
      return vs ? 16 : 1;
   case PIPE_SHADER_CAP_MAX_CONST_BUFFER0_SIZE:
      return 16384 * 4 * sizeof(float);
   case PIPE_SHADER_CAP_MAX_CONST_BUFFERS:
      return 1;
   case PIPE_SHADER_CAP_MAX_TEMPS:
      return 256;
   case PIPE_SHADER_CAP_INDIRECT_CONST_ADDR:
      return 1;                              /* loads through u0_u1 */
   case PIPE_SHADER_CAP_INTEGERS:
      return 1;
   case PIPE_SHADER_CAP_MAX_TEXTURE_SAMPLERS:
   case PIPE_SHADER_CAP_MAX_SAMPLER_VIEWS:
      return 16;                             /* vertex texture fetch too */
   case PIPE_SHADER_CAP_PREFERRED_IR:
      return PIPE_SHADER_IR_NIR;
   case PIPE_SHADER_CAP_SUPPORTED_IRS:
      return 1 << PIPE_SHADER_IR_NIR;
   default:
      return 0;
   }
}

static int
tessera_get_compute_param(struct pipe_screen *pscreen, enum pipe_shader_ir ir,
                          enum pipe_compute_cap param, void *ret)
{
   return 0;   /* no compute shaders */
}

static const void *
tessera_get_compiler_options(struct pipe_screen *pscreen, enum pipe_shader_ir ir,
                             enum pipe_shader_type shader)
{
   if (ir != PIPE_SHADER_IR_NIR)
      return NULL;
   return tc_nir_options();
}

static char *
tessera_finalize_nir(struct pipe_screen *pscreen, void *nir)
{
   tc_preprocess_nir(nir);
   return NULL;
}

/* ---- formats ------------------------------------------------------------- */

static bool
tessera_is_format_supported(struct pipe_screen *pscreen, enum pipe_format format,
                            enum pipe_texture_target target, unsigned sample_count,
                            unsigned storage_sample_count, unsigned usage)
{
   struct tessera_screen *s = tessera_screen(pscreen);

   if (sample_count > 1 || MAX2(storage_sample_count, 1) != MAX2(sample_count, 1))
      return false;
   if (target >= PIPE_MAX_TEXTURE_TYPES)
      return false;
   /* 3D: colour formats only (the depth/stencil unit reads linear 2D). */
   if (target == PIPE_TEXTURE_3D &&
       (util_format_is_depth_or_stencil(format) || (usage & PIPE_BIND_DEPTH_STENCIL)))
      return false;
   if (usage & (PIPE_BIND_SHADER_IMAGE | PIPE_BIND_SHADER_BUFFER | PIPE_BIND_STREAM_OUTPUT |
                PIPE_BIND_COMPUTE_RESOURCE | PIPE_BIND_GLOBAL))
      return false;

   if (target == PIPE_BUFFER) {
      if (usage & (PIPE_BIND_SAMPLER_VIEW | PIPE_BIND_RENDER_TARGET |
                   PIPE_BIND_DEPTH_STENCIL | PIPE_BIND_DISPLAY_TARGET))
         return false;   /* no texture buffers */
   }

   if ((usage & PIPE_BIND_VERTEX_BUFFER) && !tc_vertex_format_supported(format))
      return false;

   if (usage & PIPE_BIND_INDEX_BUFFER) {
      if (format != PIPE_FORMAT_R8_UINT && format != PIPE_FORMAT_R16_UINT &&
          format != PIPE_FORMAT_R32_UINT)
         return false;
   }

   if ((usage & PIPE_BIND_SAMPLER_VIEW) && !tessera_format_sampleable(format))
      return false;

   if (usage & (PIPE_BIND_RENDER_TARGET | PIPE_BIND_DISPLAY_TARGET | PIPE_BIND_SCANOUT |
                PIPE_BIND_BLENDABLE)) {
      if (!tessera_format_renderable(format))
         return false;
      if ((usage & PIPE_BIND_BLENDABLE) && util_format_is_pure_integer(format))
         return false;
   }

   if ((usage & (PIPE_BIND_DISPLAY_TARGET | PIPE_BIND_SCANOUT)) &&
       s->winsys &&
       !s->winsys->is_displaytarget_format_supported(s->winsys, usage, format))
      return false;

   if ((usage & PIPE_BIND_DEPTH_STENCIL) && !tessera_format_depth_stencil(format))
      return false;

   return true;
}

/* ---- creation ------------------------------------------------------------------ */

static void
tessera_screen_destroy(struct pipe_screen *pscreen)
{
   struct tessera_screen *s = tessera_screen(pscreen);
   if (pscreen->transfer_helper)
      u_transfer_helper_destroy(pscreen->transfer_helper);
   util_vma_heap_finish(&s->main_heap);
   util_vma_heap_finish(&s->usc_heap);
   if (s->vm_id) {
      struct drm_asahi_vm_destroy d = {.vm_id = s->vm_id};
      drmIoctl(s->fd, DRM_IOCTL_ASAHI_VM_DESTROY, &d);
   }
   _mesa_hash_table_u64_destroy(s->shared_bos);
   simple_mtx_destroy(&s->shared_lock);
   simple_mtx_destroy(&s->bo_lock);
   close(s->fd);
   FREE(s);
}

static bool
is_asahi(int fd)
{
   drmVersionPtr v = drmGetVersion(fd);
   bool ok = v && v->name && strcmp(v->name, "asahi") == 0;
   drmFreeVersion(v);
   return ok;
}

/* Chooses the VA layout and creates the VM: the USC heap (4 GiB, 4 GiB
 * aligned) at the bottom of the user range, so address 0 and the first
 * 4 GiB stay unmapped (null and small-offset pointers fault); the kernel
 * range at the top; the main heap in between. */
static bool
tessera_vm_init(struct tessera_screen *s)
{
   const struct drm_asahi_params_global *p = &s->params;
   uint64_t kernel_size = align64(MAX2(p->vm_kernel_min_size, 32 * GiB), 16384);
   s->usc_base = (MAX2(p->vm_start, 1) + 4 * GiB - 1) & ~(4 * GiB - 1);
   s->kernel_end = p->vm_end;
   s->kernel_start = (p->vm_end - kernel_size) & ~(16384ull - 1);
   uint64_t main_start = s->usc_base + 4 * GiB;
   if (p->vm_end <= kernel_size || s->kernel_start <= main_start + GiB) {
      fprintf(stderr, "tessera: GPU VA window [0x%llx, 0x%llx) too small for the layout\n",
              (unsigned long long)p->vm_start, (unsigned long long)p->vm_end);
      return false;
   }

   struct drm_asahi_vm_create vm = {
      .kernel_start = s->kernel_start,
      .kernel_end = s->kernel_end,
   };
   if (drmIoctl(s->fd, DRM_IOCTL_ASAHI_VM_CREATE, &vm)) {
      fprintf(stderr, "tessera: VM_CREATE failed: %s\n", strerror(errno));
      return false;
   }
   s->vm_id = vm.vm_id;

   util_vma_heap_init(&s->usc_heap, s->usc_base, 4 * GiB);
   util_vma_heap_init(&s->main_heap, main_start, s->kernel_start - main_start);
   return true;
}

static void
tessera_make_name(struct tessera_screen *s)
{
   const struct drm_asahi_params_global *p = &s->params;
   unsigned m = p->gpu_generation >= 13 ? p->gpu_generation - 12 : 0;
   const char *tier = p->gpu_variant == 'S' ? " Pro"
                    : p->gpu_variant == 'C' ? " Max"
                    : p->gpu_variant == 'D' ? " Ultra" : "";
   /* The embedded model announces itself through the shim's symbol. */
   bool model = dlsym(RTLD_DEFAULT, "tessera_shim_present") != NULL;
   snprintf(s->name, sizeof(s->name), "tessera (Apple M%u%s G%u%c %c%u%s)", m, tier,
            p->gpu_generation, (char)p->gpu_variant, 'A' + ((p->gpu_revision >> 4) & 0xf),
            p->gpu_revision & 0xf, model ? ", model" : "");
}

static struct pipe_screen *
tessera_screen_create(int fd, struct sw_winsys *winsys)
{
   struct tessera_screen *s = CALLOC_STRUCT(tessera_screen);
   if (!s) {
      close(fd);
      return NULL;
   }
   s->fd = fd;
   s->winsys = winsys;
   s->debug = debug_get_option_tessera_debug();
   simple_mtx_init(&s->bo_lock, mtx_plain);
   simple_mtx_init(&s->shared_lock, mtx_plain);
   s->shared_bos = _mesa_hash_table_u64_create(NULL);
   if (!s->shared_bos)
      goto fail;

   struct drm_asahi_get_params gp = {
      .param_group = 0,
      .pointer = (uintptr_t)&s->params,
      .size = sizeof(s->params),
   };
   if (drmIoctl(fd, DRM_IOCTL_ASAHI_GET_PARAMS, &gp)) {
      fprintf(stderr, "tessera: GET_PARAMS failed: %s\n", strerror(errno));
      goto fail;
   }
   if (s->params.gpu_generation != 13) {
      fprintf(stderr, "tessera: G%u GPUs are not supported (G13 only)\n",
              s->params.gpu_generation);
      goto fail;
   }
   if (!tessera_vm_init(s))
      goto fail;
   tessera_make_name(s);

   struct pipe_screen *ps = &s->base;
   ps->destroy = tessera_screen_destroy;
   ps->get_name = tessera_get_name;
   ps->get_vendor = tessera_get_vendor;
   ps->get_device_vendor = tessera_get_device_vendor;
   ps->get_param = tessera_get_param;
   ps->get_paramf = tessera_get_paramf;
   ps->get_shader_param = tessera_get_shader_param;
   ps->get_compute_param = tessera_get_compute_param;
   ps->get_timestamp = tessera_get_timestamp;
   ps->get_compiler_options = tessera_get_compiler_options;
   ps->finalize_nir = tessera_finalize_nir;
   ps->is_format_supported = tessera_is_format_supported;
   ps->context_create = tessera_context_create;
   tessera_init_screen_resource_functions(ps);
   tessera_init_screen_fence_functions(ps);
   return ps;

fail:
   if (s->vm_id) {
      struct drm_asahi_vm_destroy d = {.vm_id = s->vm_id};
      drmIoctl(fd, DRM_IOCTL_ASAHI_VM_DESTROY, &d);
   }
   _mesa_hash_table_u64_destroy(s->shared_bos);
   simple_mtx_destroy(&s->shared_lock);
   simple_mtx_destroy(&s->bo_lock);
   close(fd);
   FREE(s);
   return NULL;
}

struct pipe_screen *
tessera_create_screen_drm(int fd, const struct pipe_screen_config *config)
{
   int own = os_dupfd_cloexec(fd);
   if (own < 0) {
      fprintf(stderr, "tessera: cannot dup the DRM fd: %s\n", strerror(errno));
      return NULL;
   }
   if (!is_asahi(own)) {
      fprintf(stderr, "tessera: the DRM device is not driven by the asahi kernel driver\n");
      close(own);
      return NULL;
   }
   return tessera_screen_create(own, NULL);
}

/* The first render node whose kernel driver is "asahi". */
static int
open_asahi_render_node(void)
{
   drmDevicePtr devices[64];
   int n = drmGetDevices2(0, devices, ARRAY_SIZE(devices));
   int fd = -1;
   for (int i = 0; i < n && fd < 0; i++) {
      if (!(devices[i]->available_nodes & (1 << DRM_NODE_RENDER)))
         continue;
      int f = open(devices[i]->nodes[DRM_NODE_RENDER], O_RDWR | O_CLOEXEC);
      if (f < 0)
         continue;
      if (is_asahi(f))
         fd = f;
      else
         close(f);
   }
   if (n > 0)
      drmFreeDevices(devices, n);
   return fd;
}

struct pipe_screen *
tessera_create_screen_sw(struct sw_winsys *winsys, const struct pipe_screen_config *config)
{
   int fd = open_asahi_render_node();
   if (fd < 0) {
      fprintf(stderr, "tessera: no asahi render node found (is the tessera shim preloaded?)\n");
      return NULL;
   }
   return tessera_screen_create(fd, winsys);
}
