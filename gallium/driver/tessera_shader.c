/* SPDX-License-Identifier: MIT */
/*
 * Shader CSOs: NIR preprocessed once at creation (tc_preprocess_nir),
 * variants compiled at draw time per tc_vs_key / tc_fs_key and uploaded
 * to the USC heap. TESSERA_DEBUG=shaders prints the NIR and the
 * disassembly of every variant.
 */
#include <stdio.h>
#include <string.h>

#include "compiler/nir/nir.h"
#include "nir/nir_draw_helpers.h"
#include "nir/tgsi_to_nir.h"
#include "util/hash_table.h"
#include "util/ralloc.h"
#include "util/u_memory.h"

#include "tessera_context.h"

static uint32_t
key_hash(const void *key)
{
   return _mesa_hash_data(key, sizeof(union tc_key));
}

static bool
key_equal(const void *a, const void *b)
{
   return memcmp(a, b, sizeof(union tc_key)) == 0;
}

static void *
shader_create(struct pipe_context *pctx, const struct pipe_shader_state *cso,
              enum tc_stage stage)
{
   struct tessera_shader *so = CALLOC_STRUCT(tessera_shader);
   if (!so)
      return NULL;
   so->stage = stage;
   nir_shader *nir;
   if (cso->type == PIPE_SHADER_IR_NIR) {
      nir = cso->ir.nir;
   } else {
      /* TGSI (u_blitter, HUD, st's internal shaders on some paths). */
      nir = tgsi_to_nir(cso->tokens, pctx->screen, false);
   }
   so->nir = nir;
   tc_preprocess_nir(so->nir);
   nir_foreach_function(func, so->nir) {
      if (!func->impl)
         continue;
      nir_foreach_block(block, func->impl) {
         nir_foreach_instr(instr, block) {
            if (instr->type != nir_instr_type_tex)
               continue;
            nir_tex_instr *tex = nir_instr_as_tex(instr);
            if (tex->is_shadow && tex->texture_index < 16)
               so->shadow_textures |= 1u << tex->texture_index;
         }
      }
   }
   so->variants = _mesa_hash_table_create(NULL, key_hash, key_equal);
   if (tessera_context(pctx)->screen->debug & TESSERA_DBG_SHADERS) {
      fprintf(stderr, "tessera: %s shader created:\n",
              stage == TC_STAGE_VERTEX ? "vertex" : "fragment");
      nir_print_shader(so->nir, stderr);
   }
   return so;
}

static void *
tessera_create_vs_state(struct pipe_context *pctx, const struct pipe_shader_state *cso)
{
   return shader_create(pctx, cso, TC_STAGE_VERTEX);
}

static void *
tessera_create_fs_state(struct pipe_context *pctx, const struct pipe_shader_state *cso)
{
   return shader_create(pctx, cso, TC_STAGE_FRAGMENT);
}

static void
tessera_bind_vs_state(struct pipe_context *pctx, void *cso)
{
   tessera_context(pctx)->state->vs = cso;
}

static void
tessera_bind_fs_state(struct pipe_context *pctx, void *cso)
{
   tessera_context(pctx)->state->fs = cso;
}

static void
tessera_delete_shader_state(struct pipe_context *pctx, void *cso)
{
   struct tessera_shader *so = cso;
   struct tessera_context *ctx = tessera_context(pctx);
   if (ctx->state->vs == so)
      ctx->state->vs = NULL;
   if (ctx->state->fs == so)
      ctx->state->fs = NULL;
   hash_table_foreach(so->variants, he) {
      struct tessera_variant *v = he->data;
      tc_shader_binary_finish(&v->bin);
      /* Batches in flight may still run the code: the BO reference in
       * ctx->shader_bos keeps it alive until the context goes. */
      tessera_bo_unreference(v->bo);
      FREE(v);
   }
   _mesa_hash_table_destroy(so->variants, NULL);
   ralloc_free(so->nir_stipple);
   ralloc_free(so->nir);
   FREE(so);
}

/* The fragment shader with Gallium's polygon stipple lowering (the draw
 * module's nir_lower_pstipple_fs: sample the stipple texture at
 * gl_FragCoord.xy / 32, discard where its alpha is set), the texture at
 * the first unit the shader leaves free. NULL when none is. */
static nir_shader *
stipple_nir(struct tessera_shader *so)
{
   if (so->nir_stipple)
      return so->nir_stipple;
   nir_shader *nir = nir_shader_clone(NULL, so->nir);
   nir_shader_gather_info(nir, nir_shader_get_entrypoint(nir));
   unsigned unit = MAX2(BITSET_LAST_BIT(nir->info.textures_used),
                        BITSET_LAST_BIT(nir->info.samplers_used));
   if (unit >= TESSERA_MAX_TEXTURES) {
      fprintf(stderr, "tessera: no texture unit left for the polygon stipple\n");
      ralloc_free(nir);
      return NULL;
   }
   unsigned pass_unit = 0;
   nir_lower_pstipple_fs(nir, &pass_unit, 0, true);
   /* The pass picks its unit from the sampler variables' bindings, which
    * st/mesa's lowered shaders need not keep: move its texture (the
    * first instruction sampling pass_unit, which it put in the start
    * block) to the unit chosen above. */
   nir_foreach_instr(instr, nir_start_block(nir_shader_get_entrypoint(nir))) {
      if (instr->type != nir_instr_type_tex)
         continue;
      nir_tex_instr *tex = nir_instr_as_tex(instr);
      if (tex->texture_index == pass_unit) {
         tex->texture_index = unit;
         tex->sampler_index = unit;
         break;
      }
   }
   nir_shader_gather_info(nir, nir_shader_get_entrypoint(nir));
   tc_preprocess_nir(nir);
   so->nir_stipple = nir;
   so->stipple_unit = unit;
   return nir;
}

struct tessera_variant *
tessera_get_variant(struct tessera_context *ctx, struct tessera_shader *so,
                    const union tc_key *key)
{
   struct hash_entry *he = _mesa_hash_table_search(so->variants, key);
   if (he)
      return he->data;

   struct tessera_variant *v = CALLOC_STRUCT(tessera_variant);
   if (!v)
      return NULL;
   v->key = *key;
   const nir_shader *nir = so->nir;
   if (so->stage == TC_STAGE_FRAGMENT && key->fs.poly_stipple) {
      nir = stipple_nir(so);
      if (!nir) {
         FREE(v);
         return NULL;
      }
   }
   char *error = NULL;
   if (!tc_compile(nir, key, &v->bin, &error)) {
      if (!so->failed_once)
         fprintf(stderr, "tessera: cannot compile a %s shader: %s\n",
                 so->stage == TC_STAGE_VERTEX ? "vertex" : "fragment",
                 error ? error : "unknown error");
      so->failed_once = true;
      free(error);
      FREE(v);
      return NULL;
   }
   /* Code in the USC heap, plus a tail the USC may prefetch; never at
    * USC offset 0 ("no program") should the BO start the heap. */
   v->bo = tessera_bo_create(ctx->screen, v->bin.size + 384,
                             TESSERA_BO_LOW_VA | TESSERA_BO_GPU_READONLY, "shader");
   uint8_t *map = v->bo ? tessera_bo_map(v->bo) : NULL;
   if (!map) {
      fprintf(stderr, "tessera: out of memory for shader code\n");
      if (v->bo)
         tessera_bo_unreference(v->bo);
      tc_shader_binary_finish(&v->bin);
      FREE(v);
      return NULL;
   }
   unsigned start = v->bo->va == ctx->screen->usc_base ? 128 : 0;
   memcpy(map + start, v->bin.code, v->bin.size);
   v->code = tessera_usc_offset(ctx->screen, v->bo->va + start);
   tessera_bo_reference(v->bo);
   util_dynarray_append(&ctx->shader_bos, struct tessera_bo *, v->bo);

   if (ctx->screen->debug & TESSERA_DBG_SHADERS) {
      fprintf(stderr, "tessera: %s variant at USC 0x%x, %u GPRs, %u uniforms:\n",
              so->stage == TC_STAGE_VERTEX ? "vertex" : "fragment", v->code,
              v->bin.nr_gprs, v->bin.nr_uniforms);
      tc_print_binary(stderr, &v->bin);
   }
   union tc_key *k = &v->key;
   _mesa_hash_table_insert(so->variants, k, v);
   return v;
}

void
tessera_init_shader_functions(struct pipe_context *pctx)
{
   pctx->create_vs_state = tessera_create_vs_state;
   pctx->bind_vs_state = tessera_bind_vs_state;
   pctx->delete_vs_state = tessera_delete_shader_state;
   pctx->create_fs_state = tessera_create_fs_state;
   pctx->bind_fs_state = tessera_bind_fs_state;
   pctx->delete_fs_state = tessera_delete_shader_state;
}
