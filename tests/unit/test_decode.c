/* SPDX-License-Identifier: MIT */
/*
 * The stream decoder against golden text.
 *
 * The memory image is built here with the pack helpers (a VDM stream, its
 * PPP record, pipelines, descriptors, CF bindings, tiny shaders, and a CDM
 * stream) and decoded; the text must match the .txt files in tests/data/decode/ exactly.
 * Run with TESSERA_REGEN_GOLDEN=1 to rewrite the golden files and the image
 * files the integration test feeds to `tessera decode` (then review the
 * diff by eye).
 *
 * Golden files do not depend on the disassembler's formatting: the decoder
 * runs with a hook that prints "@disasm <pc> <indent>@" where the shader
 * text goes. A separate case runs the real agx_disasm_print and checks the
 * output equals the golden with each marker expanded by calling
 * agx_disasm_print on the same bytes.
 *
 * Hostile input: link loops, call recursion, garbage memory and the output
 * limit must all end quickly with bounded text and counted errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "cmdstream/agx_decode.h"
#include "cmdstream/agx_pack.h"

#define IMG_VA 0x1500000000ull
#define IMG_SIZE 0x3000
#define IMG_SPLIT 0x2000 /* the image is mapped as two files */

#define VDM_START 0x0000
#define VDM_SEG2 0x0200
#define VDM_SUB 0x0280
#define PPP_REC 0x0400
#define CF_BIND 0x0600
#define VS_PIPE 0x0800
#define FS_PIPE 0x0840
#define UNIFORMS 0x0a00
#define TEX_TABLE 0x0b00
#define SAMP_TABLE 0x0b80
#define SHADER_VS 0x1000
#define SHADER_FS 0x1010
#define SHADER_PRE 0x1020
#define INDEX_BUF 0x1800
#define CDM_START 0x2000
#define CDM_SEG2 0x2100
#define CS_PIPE 0x2400
#define INDIRECT 0x2800

static uint8_t img[IMG_SIZE];

static void
put_link_vdm(uint8_t *p, uint64_t target, bool call)
{
   agx_pack(p, VDM_STREAM_LINK, cfg) {
      cfg.target_hi = (uint32_t)(target >> 32);
      cfg.target_lo = (uint32_t)target;
      cfg.with_return = call;
   }
}

static void
build_pipelines(void)
{
   /* Shaders: a lone `stop` each (0x88 0x00). */
   const uint8_t stop[] = { 0x88, 0x00 };
   memcpy(img + SHADER_VS, stop, 2);
   memcpy(img + SHADER_FS, stop, 2);
   memcpy(img + SHADER_PRE, stop, 2);

   for (unsigned i = 0; i < 8; i++)
      img[UNIFORMS + i] = (uint8_t)(0x10 + i);

   /* Vertex pipeline: uniforms, registers, shader, no preshader. */
   uint8_t *p = img + VS_PIPE;
   agx_pack(p, USC_UNIFORM, cfg) {
      cfg.start_halfs = 0;
      cfg.size_halfs = 4;
      cfg.buffer = IMG_VA + UNIFORMS;
   }
   p += AGX_USC_UNIFORM_LENGTH;
   agx_pack(p, USC_REGISTERS, cfg) cfg.register_count = 16;
   p += AGX_USC_REGISTERS_LENGTH;
   agx_pack(p, USC_SHADER, cfg) cfg.code = SHADER_VS;
   p += AGX_USC_SHADER_LENGTH;
   agx_pack(p, USC_NO_PRESHADER, cfg) {}
   p += AGX_USC_NO_PRESHADER_LENGTH;
   assert_true(p <= img + FS_PIPE);

   /* Fragment pipeline: tilebuffer, one texture, one sampler, properties,
    * registers, shader, preshader. */
   p = img + FS_PIPE;
   agx_pack(p, USC_SHARED, cfg) {
      cfg.layout = AGX_SHARED_LAYOUT_32X32;
      cfg.sample_stride_in_8_bytes = 1;
   }
   p += AGX_USC_SHARED_LENGTH;
   agx_pack(p, USC_TEXTURE, cfg) {
      cfg.count = 1;
      cfg.buffer = IMG_VA + TEX_TABLE;
   }
   p += AGX_USC_TEXTURE_LENGTH;
   agx_pack(p, USC_SAMPLER, cfg) {
      cfg.count = 1;
      cfg.buffer = IMG_VA + SAMP_TABLE;
   }
   p += AGX_USC_SAMPLER_LENGTH;
   agx_pack(p, USC_FRAGMENT_PROPERTIES, cfg) cfg.early_z_testing = true;
   p += AGX_USC_FRAGMENT_PROPERTIES_LENGTH;
   agx_pack(p, USC_REGISTERS, cfg) cfg.register_count = 8;
   p += AGX_USC_REGISTERS_LENGTH;
   agx_pack(p, USC_SHADER, cfg) {
      cfg.code = SHADER_FS;
      cfg.loads_varyings = true;
   }
   p += AGX_USC_SHADER_LENGTH;
   agx_pack(p, USC_PRESHADER, cfg) cfg.code = SHADER_PRE;

   agx_pack(img + TEX_TABLE, TEXTURE, cfg) {
      cfg.layout = AGX_LAYOUT_TWIDDLED;
      cfg.channels = AGX_CHANNELS_R8G8B8A8;
      cfg.width = 64;
      cfg.height = 32;
      cfg.address = IMG_VA + 0x10000;
   }
   agx_pack(img + SAMP_TABLE, SAMPLER, cfg) {
      cfg.magnify = AGX_FILTER_LINEAR;
      cfg.minify = AGX_FILTER_LINEAR;
      cfg.wrap_s = AGX_WRAP_REPEAT;
      cfg.wrap_t = AGX_WRAP_REPEAT;
   }

   /* Coefficient bindings: header + two. */
   p = img + CF_BIND;
   agx_pack(p, CF_BINDING_HEADER, cfg) {
      cfg.slots = 8;
      cfg.coefficient_registers = 6;
   }
   agx_pack(p + 4, CF_BINDING, cfg) {
      cfg.components = 1;
      cfg.source = AGX_CF_SOURCE_FRAGCOORD_Z;
      cfg.shade_model = AGX_SHADE_MODEL_LINEAR;
   }
   agx_pack(p + 8, CF_BINDING, cfg) {
      cfg.components = 4;
      cfg.shade_model = AGX_SHADE_MODEL_PERSPECTIVE;
      cfg.base_slot = 1;
      cfg.base_coefficient_register = 2;
   }
}

static size_t
build_ppp(void)
{
   uint8_t *p = img + PPP_REC;
   agx_pack(p, PPP_HEADER, cfg) {
      cfg.fragment_control = true;
      cfg.front_face = true;
      cfg.front_stencil = true;
      cfg.depth_bias_scissor = true;
      cfg.region_clip = true;
      cfg.viewport = true;
      cfg.cull = true;
      cfg.cull_2 = true;
      cfg.fragment_shader = true;
      cfg.output_size = true;
   }
   p += 4;
   agx_pack(p, FRAGMENT_CONTROL, cfg) {
      cfg.visibility_mode = AGX_VISIBILITY_MODE_COUNTING;
      cfg.scissor_enable = true;
      cfg.pass_type = AGX_PASS_TYPE_TRANSLUCENT;
   }
   p += 4;
   agx_pack(p, FRAGMENT_FACE, cfg) {
      cfg.line_width = 0x0f;
      cfg.depth_function = AGX_ZS_FUNC_LEQUAL;
   }
   p += 4;
   agx_pack(p, FRAGMENT_STENCIL, cfg) {
      cfg.write_mask = 0xff;
      cfg.read_mask = 0xff;
      cfg.compare = AGX_ZS_FUNC_ALWAYS;
   }
   p += 4;
   agx_pack(p, DEPTH_BIAS_SCISSOR, cfg) {
      cfg.scissor = 3;
      cfg.depth_bias = 1;
   }
   p += 4;
   agx_pack(p, REGION_CLIP, cfg) {
      cfg.enable = true;
      cfg.max_x = 8;
      cfg.max_y = 4;
   }
   p += 8;
   agx_pack(p, VIEWPORT_CONTROL, cfg) {}
   p += 4;
   agx_pack(p, VIEWPORT, cfg) {
      cfg.translate_x = 128.0f;
      cfg.scale_x = 128.0f;
      cfg.translate_y = 64.0f;
      cfg.scale_y = -64.0f;
      cfg.translate_z = 0.5f;
      cfg.scale_z = 0.5f;
   }
   p += 24;
   agx_pack(p, CULL, cfg) {
      cfg.cull_back = true;
      cfg.depth_clip = true;
   }
   p += 4;
   agx_pack(p, CULL_2, cfg) {}
   p += 4;
   agx_pack(p, FRAGMENT_SHADER_WORD_0, cfg) {
      cfg.uniform_register_count = 64;
      cfg.texture_state_register_count = 8;
      cfg.sampler_state_register_count = AGX_SAMPLER_STATES_4_COMPACT;
      cfg.cf_binding_count = 2;
   }
   agx_pack(p + 4, FRAGMENT_SHADER_WORD_1, cfg) cfg.pipeline = FS_PIPE;
   agx_pack(p + 8, FRAGMENT_SHADER_WORD_2, cfg) cfg.cf_bindings = CF_BIND;
   agx_pack(p + 12, FRAGMENT_SHADER_WORD_3, cfg) {}
   p += 16;
   agx_pack(p, OUTPUT_SIZE, cfg) cfg.count = 3;
   p += 4;
   return (size_t)(p - (img + PPP_REC));
}

static void
build_vdm(size_t ppp_size)
{
   uint8_t *p = img + VDM_START;
   uint64_t rec = IMG_VA + PPP_REC;

   agx_pack(p, PPP_STATE, cfg) {
      cfg.pointer_hi = (uint32_t)(rec >> 32);
      cfg.pointer_lo = (uint32_t)rec;
      cfg.size_words = (uint32_t)(ppp_size / 4);
   }
   p += 8;

   agx_pack(p, VDM_STATE, cfg) {
      cfg.vertex_shader_word_0_present = true;
      cfg.vertex_shader_word_1_present = true;
      cfg.vertex_outputs_present = true;
   }
   agx_pack(p + 4, VDM_STATE_VERTEX_SHADER_WORD_0, cfg) {
      cfg.uniform_register_count = 128;
      cfg.texture_state_register_count = 8;
   }
   agx_pack(p + 8, VDM_STATE_VERTEX_SHADER_WORD_1, cfg) cfg.pipeline = VS_PIPE;
   agx_pack(p + 12, VDM_STATE_VERTEX_OUTPUTS, cfg) {
      cfg.output_count_1 = 8;
      cfg.output_count_2 = 8;
   }
   p += 16;

   uint64_t ib = IMG_VA + INDEX_BUF;
   agx_pack(p, INDEX_LIST, cfg) {
      cfg.index_buffer_hi = (uint32_t)(ib >> 32);
      cfg.primitive = AGX_PRIMITIVE_TRIANGLES;
      cfg.index_size = AGX_INDEX_SIZE_U16;
      cfg.index_buffer_present = true;
      cfg.index_count_present = true;
      cfg.instance_count_present = true;
      cfg.start_present = true;
      cfg.index_buffer_size_present = true;
   }
   agx_pack(p + 4, INDEX_LIST_BUFFER_LO, cfg) cfg.buffer_lo = (uint32_t)ib;
   agx_pack(p + 8, INDEX_LIST_COUNT, cfg) cfg.count = 36;
   agx_pack(p + 12, INDEX_LIST_INSTANCES, cfg) cfg.count = 1;
   agx_pack(p + 16, INDEX_LIST_START, cfg) cfg.start = 0;
   agx_pack(p + 20, INDEX_LIST_BUFFER_SIZE, cfg) cfg.size = 72;
   p += 24;

   agx_pack(p, VDM_BARRIER, cfg) cfg.usc_cache_inval = true;
   p += 4;
   put_link_vdm(p, IMG_VA + VDM_SEG2, false);

   /* Segment 2: call a subroutine, then terminate. */
   p = img + VDM_SEG2;
   put_link_vdm(p, IMG_VA + VDM_SUB, true);
   agx_pack(p + 8, VDM_STREAM_TERMINATE, cfg) {}

   /* The subroutine: a non-indexed draw, then a returning barrier. */
   p = img + VDM_SUB;
   agx_pack(p, INDEX_LIST, cfg) {
      cfg.primitive = AGX_PRIMITIVE_TRIANGLE_STRIP;
      cfg.index_count_present = true;
      cfg.instance_count_present = true;
   }
   agx_pack(p + 4, INDEX_LIST_COUNT, cfg) cfg.count = 4;
   agx_pack(p + 8, INDEX_LIST_INSTANCES, cfg) cfg.count = 2;
   agx_pack(p + 12, VDM_BARRIER, cfg) cfg.returns = true;
}

static void
build_cdm(void)
{
   uint8_t *p = img + CS_PIPE;
   agx_pack(p, USC_SHARED, cfg) {
      cfg.uses_shared_memory = true;
      cfg.bytes_per_threadgroup = 1024;
   }
   p += AGX_USC_SHARED_LENGTH;
   agx_pack(p, USC_REGISTERS, cfg) cfg.register_count = 24;
   p += AGX_USC_REGISTERS_LENGTH;
   agx_pack(p, USC_SHADER, cfg) cfg.code = SHADER_VS;
   p += AGX_USC_SHADER_LENGTH;
   agx_pack(p, USC_NO_PRESHADER, cfg) {}

   p = img + CDM_START;
   agx_pack(p, CDM_LAUNCH_WORD_0, cfg) {
      cfg.mode = AGX_CDM_MODE_DIRECT;
      cfg.uniform_register_count = 64;
   }
   agx_pack(p + 4, CDM_LAUNCH_WORD_1, cfg) cfg.pipeline = CS_PIPE;
   agx_pack(p + 8, CDM_GLOBAL_SIZE, cfg) {
      cfg.x = 64;
      cfg.y = 1;
      cfg.z = 1;
   }
   agx_pack(p + 20, CDM_LOCAL_SIZE, cfg) {
      cfg.x = 32;
      cfg.y = 1;
      cfg.z = 1;
   }
   p += 32;

   uint64_t ind = IMG_VA + INDIRECT;
   agx_pack(p, CDM_LAUNCH_WORD_0, cfg) cfg.mode = AGX_CDM_MODE_INDIRECT_GLOBAL;
   agx_pack(p + 4, CDM_LAUNCH_WORD_1, cfg) cfg.pipeline = CS_PIPE;
   agx_pack(p + 8, CDM_INDIRECT, cfg) {
      cfg.address_hi = (uint32_t)(ind >> 32);
      cfg.address_lo = (uint32_t)ind;
   }
   agx_pack(p + 16, CDM_LOCAL_SIZE, cfg) {
      cfg.x = 16;
      cfg.y = 16;
      cfg.z = 1;
   }
   p += 28;

   uint64_t seg2 = IMG_VA + CDM_SEG2;
   agx_pack(p, CDM_STREAM_LINK, cfg) {
      cfg.target_hi = (uint32_t)(seg2 >> 32);
      cfg.target_lo = (uint32_t)seg2;
   }

   p = img + CDM_SEG2;
   agx_pack(p, CDM_BARRIER, cfg) cfg.usc_cache_inval = true;
   agx_pack(p + 4, CDM_STREAM_TERMINATE, cfg) {}
}

static void
build_image(void)
{
   memset(img, 0, sizeof(img));
   build_pipelines();
   build_vdm(build_ppp());
   build_cdm();
}

/* ------------------------------------------------------------ helpers */

static struct agx_decode_mem mem;

static size_t
marker_disasm(FILE *fp, const uint8_t *code, size_t size,
              const struct agx_disasm_options *o)
{
   (void)code;
   (void)size;
   fprintf(fp, "@disasm 0x%" PRIx64 " %zu@\n", o->pc, strlen(o->indent));
   return 0;
}

static struct agx_decode_options
options(void)
{
   return (struct agx_decode_options){
      .read = agx_decode_mem_read,
      .read_ctx = &mem,
      .usc_base = IMG_VA,
      .disasm = marker_disasm,
   };
}

static char *
decode_to_string(const struct agx_decode_options *o,
                 enum agx_decode_stream_kind kind, uint64_t va,
                 struct agx_decode_result *res, bool *ok)
{
   char *text = NULL;
   size_t len = 0;
   FILE *fp = open_memstream(&text, &len);
   assert_non_null(fp);
   *ok = agx_decode_stream(fp, o, kind, va, res);
   fclose(fp);
   return text;
}

static const char *
top_dir(void)
{
   const char *top = getenv("TOP");
   return top && *top ? top : ".";
}

static bool
regen(void)
{
   const char *r = getenv("TESSERA_REGEN_GOLDEN");
   return r && *r && strcmp(r, "0");
}

static char *
read_file(const char *rel, size_t *size)
{
   char path[512];
   snprintf(path, sizeof(path), "%s/%s", top_dir(), rel);
   FILE *fp = fopen(path, "rb");
   if (!fp)
      return NULL;
   char *buf = NULL;
   size_t len = 0, cap = 0;
   for (;;) {
      if (len + 4096 + 1 > cap) {
         cap = cap ? cap * 2 : 8192;
         char *n = realloc(buf, cap);
         assert_non_null(n);
         buf = n;
      }
      size_t r = fread(buf + len, 1, 4096, fp);
      len += r;
      if (r < 4096)
         break;
   }
   fclose(fp);
   buf[len] = 0;
   if (size)
      *size = len;
   return buf;
}

static void
write_file(const char *rel, const void *data, size_t size)
{
   char path[512];
   snprintf(path, sizeof(path), "%s/%s", top_dir(), rel);
   FILE *fp = fopen(path, "wb");
   assert_non_null(fp);
   assert_int_equal(fwrite(data, 1, size, fp), size);
   fclose(fp);
   print_message("regenerated %s\n", path);
}

/* Compares with a golden file, printing the first differing line. */
static void
check_golden(const char *rel, const char *text)
{
   if (regen()) {
      write_file(rel, text, strlen(text));
      return;
   }
   char *want = read_file(rel, NULL);
   if (!want)
      fail_msg("missing golden file %s (run with TESSERA_REGEN_GOLDEN=1)", rel);
   if (strcmp(want, text)) {
      const char *a = want, *b = text;
      unsigned line = 1;
      while (*a && *a == *b) {
         if (*a == '\n')
            line++;
         a++;
         b++;
      }
      print_error("%s differs at line %u\n--- got:\n%s\n", rel, line, text);
      free(want);
      fail_msg("decoder output differs from %s", rel);
   }
   free(want);
}

static int
setup(void **state)
{
   (void)state;
   build_image();
   agx_decode_mem_init(&mem);
   if (!agx_decode_mem_add(&mem, IMG_VA, img, IMG_SPLIT) ||
       !agx_decode_mem_add(&mem, IMG_VA + IMG_SPLIT, img + IMG_SPLIT,
                           IMG_SIZE - IMG_SPLIT))
      return -1;
   return 0;
}

static int
teardown(void **state)
{
   (void)state;
   agx_decode_mem_finish(&mem);
   return 0;
}

/* ------------------------------------------------------------ tests */

/* The checked-in images the integration test uses are these bytes. */
static void
test_images_match(void **state)
{
   (void)state;
   if (regen()) {
      write_file("tests/data/decode/image_lo.bin", img, IMG_SPLIT);
      write_file("tests/data/decode/image_hi.bin", img + IMG_SPLIT,
                 IMG_SIZE - IMG_SPLIT);
      return;
   }
   size_t n;
   char *lo = read_file("tests/data/decode/image_lo.bin", &n);
   assert_non_null(lo);
   assert_int_equal(n, IMG_SPLIT);
   assert_memory_equal(lo, img, IMG_SPLIT);
   free(lo);
   char *hi = read_file("tests/data/decode/image_hi.bin", &n);
   assert_non_null(hi);
   assert_int_equal(n, IMG_SIZE - IMG_SPLIT);
   assert_memory_equal(hi, img + IMG_SPLIT, IMG_SIZE - IMG_SPLIT);
   free(hi);
}

static void
test_vdm_golden(void **state)
{
   (void)state;
   struct agx_decode_options o = options();
   struct agx_decode_result res;
   bool ok;
   char *text = decode_to_string(&o, AGX_DECODE_VDM, IMG_VA + VDM_START,
                                 &res, &ok);
   check_golden("tests/data/decode/vdm_stream.txt", text);
   free(text);
   assert_true(ok);
   assert_true(res.terminated);
   assert_int_equal(res.errors, 0);
   assert_int_equal(res.warnings, 0);
   /* PPP, VDM state, index list, barrier, link, call, sub draw, return
    * barrier, terminate. */
   assert_int_equal(res.blocks, 9);
}

static void
test_cdm_golden(void **state)
{
   (void)state;
   struct agx_decode_options o = options();
   struct agx_decode_result res;
   bool ok;
   char *text = decode_to_string(&o, AGX_DECODE_CDM, IMG_VA + CDM_START,
                                 &res, &ok);
   check_golden("tests/data/decode/cdm_stream.txt", text);
   free(text);
   assert_true(ok);
   assert_true(res.terminated);
   assert_int_equal(res.errors, 0);
   assert_int_equal(res.blocks, 5);
}

/* With the real disassembler, the output is the golden text with every
 * marker replaced by agx_disasm_print's text for the same bytes. */
static void
test_real_disassembler(void **state)
{
   (void)state;
   if (regen())
      skip();
   struct agx_decode_options o = options();
   o.disasm = NULL;
   struct agx_decode_result res;
   bool ok;
   char *got = decode_to_string(&o, AGX_DECODE_VDM, IMG_VA, &res, &ok);
   assert_true(ok);

   char *golden = read_file("tests/data/decode/vdm_stream.txt", NULL);
   assert_non_null(golden);
   char *want = NULL;
   size_t len = 0;
   FILE *fp = open_memstream(&want, &len);
   unsigned markers = 0;
   for (char *line = strtok(golden, "\n"); line; line = strtok(NULL, "\n")) {
      uint64_t pc;
      unsigned ind;
      if (sscanf(line, "@disasm 0x%" SCNx64 " %u@", &pc, &ind) == 2) {
         uint8_t code[16 * 1024];
         char indent[64];
         size_t n = agx_decode_mem_read(&mem, pc, code, sizeof(code));
         snprintf(indent, sizeof(indent), "%*s", (int)ind, "");
         struct agx_disasm_options d = {
            .pc = pc, .stop_at_end = true, .indent = indent,
         };
         agx_disasm_print(fp, code, n, &d);
         markers++;
      } else {
         fprintf(fp, "%s\n", line);
      }
   }
   fclose(fp);
   assert_int_equal(markers, 3);
   assert_string_equal(got, want);
   free(got);
   free(want);
   free(golden);
}

/* A link to itself: the loop is detected at once. */
/* ------------------------------------------------------------ visitor */

struct visit_log {
   struct agx_decode_shader_ref refs[16];
   unsigned n;
};

static void
log_shader(void *ctx, const struct agx_decode_shader_ref *r)
{
   struct visit_log *l = ctx;
   if (l->n < 16)
      l->refs[l->n] = *r;
   l->n++;
}

static void
check_ref(const struct agx_decode_shader_ref *r, enum agx_decode_stage stage,
          bool pre, uint32_t pipe, uint32_t code)
{
   assert_int_equal(r->stage, stage);
   assert_int_equal(r->preshader, pre);
   assert_int_equal(r->pipeline, pipe);
   assert_int_equal(r->code, code);
   assert_int_equal(r->va, IMG_VA + code);
}

/* The visitor reports exactly the shaders the golden text prints, in the
 * same order, with the stage of the pipeline that names them. */
static void
test_visit_golden(void **state)
{
   (void)state;
   struct agx_decode_options o = options();
   struct visit_log l = { .n = 0 };
   struct agx_decode_visitor v = { .shader = log_shader, .ctx = &l };
   struct agx_decode_result res;
   assert_true(agx_decode_visit_stream(&o, AGX_DECODE_VDM, IMG_VA + VDM_START, &v, &res));
   assert_int_equal(res.blocks, 9);
   assert_int_equal(res.errors, 0);
   assert_int_equal(l.n, 3);
   check_ref(&l.refs[0], AGX_DECODE_STAGE_FRAGMENT, false, FS_PIPE, SHADER_FS);
   check_ref(&l.refs[1], AGX_DECODE_STAGE_FRAGMENT, true, FS_PIPE, SHADER_PRE);
   check_ref(&l.refs[2], AGX_DECODE_STAGE_VERTEX, false, VS_PIPE, SHADER_VS);

   l.n = 0;
   assert_true(agx_decode_visit_stream(&o, AGX_DECODE_CDM, IMG_VA + CDM_START, &v, &res));
   assert_int_equal(l.n, 2); /* two launches of the same pipeline */
   check_ref(&l.refs[0], AGX_DECODE_STAGE_COMPUTE, false, CS_PIPE, SHADER_VS);
   check_ref(&l.refs[1], AGX_DECODE_STAGE_COMPUTE, false, CS_PIPE, SHADER_VS);

   l.n = 0;
   assert_true(agx_decode_visit_pipeline(&o, FS_PIPE, AGX_DECODE_STAGE_EOT, &v, &res));
   assert_int_equal(l.n, 2);
   check_ref(&l.refs[0], AGX_DECODE_STAGE_EOT, false, FS_PIPE, SHADER_FS);
   check_ref(&l.refs[1], AGX_DECODE_STAGE_EOT, true, FS_PIPE, SHADER_PRE);
   assert_string_equal(agx_decode_stage_name(AGX_DECODE_STAGE_PARTIAL_EOT), "partial-eot");

   /* A loop is still caught, with no output anywhere. */
   struct agx_decode_options bad = options();
   bad.usc_base = 0;
   assert_false(agx_decode_visit_stream(&bad, AGX_DECODE_VDM, 0x42, NULL, &res));
   assert_true(res.errors > 0);
}

struct draw_log {
   struct agx_decode_draw_ref refs[8];
   unsigned n;
};

static void
log_draw(void *ctx, const struct agx_decode_draw_ref *r)
{
   struct draw_log *l = ctx;
   if (l->n < 8)
      l->refs[l->n] = *r;
   l->n++;
}

/* The draw visitor reports every Index List and Launch of the golden
 * streams with the address of the words that size it (what `tessera
 * minimize` rewrites), and none for an indirect launch. */
static void
test_visit_draws(void **state)
{
   (void)state;
   struct agx_decode_options o = options();
   struct draw_log l = { .n = 0 };
   struct agx_decode_visitor v = { .ctx = &l, .draw = log_draw };
   assert_true(agx_decode_visit_stream(&o, AGX_DECODE_VDM, IMG_VA + VDM_START, &v, NULL));
   assert_int_equal(l.n, 2);
   /* header, buffer lo, then the count (vdm_stream.txt: 36 and 4) */
   assert_int_equal(l.refs[0].kind, AGX_DECODE_VDM);
   assert_int_equal(l.refs[0].va, 0x1500000018ull);
   assert_int_equal(l.refs[0].count_va, 0x1500000018ull + 8);
   assert_int_equal(l.refs[0].count[0], 36);
   /* no index buffer word: the count follows the header */
   assert_int_equal(l.refs[1].va, 0x1500000280ull);
   assert_int_equal(l.refs[1].count_va, 0x1500000280ull + 4);
   assert_int_equal(l.refs[1].count[0], 4);
   uint32_t word;
   assert_int_equal(agx_decode_mem_read(o.read_ctx, l.refs[1].count_va, &word, 4), 4);
   assert_int_equal(word, 4);

   l.n = 0;
   assert_true(agx_decode_visit_stream(&o, AGX_DECODE_CDM, IMG_VA + CDM_START, &v, NULL));
   assert_int_equal(l.n, 2);
   assert_int_equal(l.refs[0].kind, AGX_DECODE_CDM);
   assert_int_equal(l.refs[0].va, 0x1500002000ull);
   assert_int_equal(l.refs[0].count_va, 0x1500002000ull + 8);
   assert_int_equal(l.refs[0].count[0], 64);
   assert_int_equal(l.refs[0].count[1], 1);
   assert_int_equal(l.refs[0].count[2], 1);
   assert_int_equal(l.refs[1].va, 0x1500002020ull);
   assert_int_equal(l.refs[1].count_va, 0); /* indirect: not rewritable */
}

/* Shader sizes: the end is the first stop past every forward branch. */
static void
test_shader_size(void **state)
{
   (void)state;
   struct agx_decode_options o = options();
   const char *why;
   assert_int_equal(agx_decode_shader_size(&o, IMG_VA + SHADER_VS, 0, &why), 2);
   assert_null(why);

   static const char src[] =
      "jmp_exec_none pc+skip\n"
      "stop\n"
      "skip:\n"
      "iadd r2, r2, 1\n"
      "stop\n"
      "iadd r2, r2, 2\n"; /* after the end: not counted */
   uint8_t code[64];
   size_t n;
   char err[128];
   if (!agx_isa_assemble(src, sizeof(src) - 1, code, sizeof(code), &n, err, sizeof(err)))
      fail_msg("assembler: %s", err);
   struct agx_decode_mem m;
   agx_decode_mem_init(&m);
   assert_true(agx_decode_mem_add(&m, 0x10000, code, n));
   struct agx_decode_options mo = { .read = agx_decode_mem_read, .read_ctx = &m };
   size_t size = agx_decode_shader_size(&mo, 0x10000, 0, &why);
   /* everything but the last iadd */
   struct agx_instr last;
   size_t off = 0;
   for (unsigned i = 0; i < 4; i++) {
      assert_int_equal(agx_isa_decode(code + off, n - off, &last), AGX_ISA_OK);
      off += last.length;
   }
   assert_int_equal(size, off);
   assert_true(size > 6 && size < n);

   /* Without its final stop the code runs into unmapped memory. */
   agx_decode_mem_finish(&m);
   agx_decode_mem_init(&m);
   assert_true(agx_decode_mem_add(&m, 0x10000, code, off - 2));
   assert_int_equal(agx_decode_shader_size(&mo, 0x10000, 0, &why), 0);
   assert_string_equal(why, "code runs into unmapped memory");
   assert_int_equal(agx_decode_shader_size(&mo, 0x90000, 0, &why), 0);
   assert_string_equal(why, "code is unmapped");
   agx_decode_mem_finish(&m);

   /* A limit smaller than the shader. */
   assert_int_equal(agx_decode_shader_size(&o, IMG_VA + SHADER_VS - 16, 8, &why), 0);
   assert_non_null(why);
}

static void
test_link_loop(void **state)
{
   (void)state;
   uint8_t buf[64] = { 0 };
   struct agx_decode_mem m;
   agx_decode_mem_init(&m);
   assert_true(agx_decode_mem_add(&m, 0x4000, buf, sizeof(buf)));
   agx_pack(buf, VDM_BARRIER, cfg) {}
   put_link_vdm(buf + 4, 0x4000, false);

   struct agx_decode_options o = options();
   o.read_ctx = &m;
   struct agx_decode_result res;
   bool ok;
   char *text = decode_to_string(&o, AGX_DECODE_VDM, 0x4000, &res, &ok);
   assert_false(ok);
   assert_int_equal(res.blocks, 2);
   assert_int_equal(res.errors, 1);
   assert_non_null(strstr(text, "XXX: block at 0x4000 already decoded in "
                                "this call context: the stream loops"));
   free(text);

   /* A call to itself recurses until the depth limit. */
   put_link_vdm(buf, 0x4000, true);
   text = decode_to_string(&o, AGX_DECODE_VDM, 0x4000, &res, &ok);
   assert_false(ok);
   assert_int_equal(res.blocks, 17);
   assert_non_null(strstr(text, "exceeds the nesting limit 16"));
   free(text);
   agx_decode_mem_finish(&m);
}

/* Deterministic garbage as memory, decoded from many places, both ways. */
static void
test_garbage(void **state)
{
   (void)state;
   static uint8_t junk[64 * 1024];
   uint64_t x = 0x243f6a8885a308d3ull;
   for (size_t i = 0; i < sizeof(junk); i++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      junk[i] = (uint8_t)x;
   }
   struct agx_decode_mem m;
   agx_decode_mem_init(&m);
   assert_true(agx_decode_mem_add(&m, 0x100000, junk, sizeof(junk)));

   struct agx_decode_options o = options();
   o.read_ctx = &m;
   o.usc_base = 0x100000;
   o.max_output = 64 * 1024;
   unsigned failures = 0;
   for (unsigned i = 0; i < 64; i++) {
      struct agx_decode_result res;
      bool ok;
      char *text = decode_to_string(&o, i & 1 ? AGX_DECODE_CDM : AGX_DECODE_VDM,
                                    0x100000 + i * 1020, &res, &ok);
      /* Text is bounded by max_output plus the truncation note. */
      assert_true(strlen(text) <= o.max_output + 32);
      assert_true(res.blocks <= 4096);
      failures += !ok;
      free(text);
   }
   assert_true(failures > 0);
   agx_decode_mem_finish(&m);
}

/* Visitor mode formats no text (it only unpacks): on any input it must
 * count exactly what the printer counts, warnings (unknown bits) included.
 * Garbage has plenty of all of them. */
static void
test_visit_counts_match(void **state)
{
   (void)state;
   static uint8_t junk[64 * 1024];
   uint64_t x = 0x9e3779b97f4a7c15ull;
   for (size_t i = 0; i < sizeof(junk); i++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      junk[i] = (uint8_t)x;
   }
   /* mostly block headers the decoder knows, so walks go somewhere */
   for (size_t i = 0; i + 4 <= sizeof(junk); i += 16)
      junk[i + 3] = (uint8_t)((junk[i + 3] & 0x1f) | ((i / 16) % 2 ? 0x00 : 0x20));
   struct agx_decode_mem m;
   agx_decode_mem_init(&m);
   assert_true(agx_decode_mem_add(&m, 0x100000, junk, sizeof(junk)));
   struct agx_decode_options o = options();
   o.read_ctx = &m;
   o.usc_base = 0x100000;
   o.max_output = 256u * 1024 * 1024;   /* no truncation: the printer walks on */
   unsigned warned = 0, blocks = 0;
   for (unsigned i = 0; i < 256; i++) {
      enum agx_decode_stream_kind k = i & 1 ? AGX_DECODE_CDM : AGX_DECODE_VDM;
      uint64_t va = 0x100000 + i * 252;
      struct agx_decode_result pr, vr;
      bool pok;
      free(decode_to_string(&o, k, va, &pr, &pok));
      bool vok = agx_decode_visit_stream(&o, k, va, NULL, &vr);
      assert_int_equal(vr.blocks, pr.blocks);
      assert_int_equal(vr.errors, pr.errors);
      assert_int_equal(vr.warnings, pr.warnings);
      assert_int_equal(vr.terminated, pr.terminated);
      assert_int_equal(vok, pok);
      warned += pr.warnings > 0;
      blocks += pr.blocks;
   }
   assert_true(warned > 0);
   assert_true(blocks > 256);
   agx_decode_mem_finish(&m);
}

/* The loop-detection table grows with the walk: a visit with the largest
 * block limit (2^24) used to allocate room for all of it up front (1 GiB,
 * per stream of every submission the capture layer indexes). Under a 256
 * MiB address-space allowance on top of what the process has, it must
 * still work. Under a sanitizer (its shadow memory needs the address
 * space) without the allowance: the visit must work all the same. */
#if defined(__SANITIZE_ADDRESS__)
#define TEST_NO_RLIMIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define TEST_NO_RLIMIT 1
#endif
#endif
static void
test_visit_no_upfront_table(void **state)
{
   (void)state;
#ifdef TEST_NO_RLIMIT
   struct agx_decode_options so = options();
   so.max_blocks = 1u << 24;
   struct agx_decode_result sres;
   assert_true(agx_decode_visit_stream(&so, AGX_DECODE_VDM, IMG_VA + VDM_START, NULL, &sres));
   assert_int_equal(sres.blocks, 9);
#else
   unsigned long pages = 0;
   FILE *fp = fopen("/proc/self/statm", "r");
   assert_non_null(fp);
   assert_int_equal(fscanf(fp, "%lu", &pages), 1);
   fclose(fp);
   struct rlimit old, lim;
   assert_int_equal(getrlimit(RLIMIT_AS, &old), 0);
   lim = old;
   lim.rlim_cur = (rlim_t)pages * 4096 + (256u << 20);
   if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur < lim.rlim_cur)
      lim.rlim_cur = old.rlim_cur;
   assert_int_equal(setrlimit(RLIMIT_AS, &lim), 0);
   struct agx_decode_options o = options();
   o.max_blocks = 1u << 24;
   struct agx_decode_result res;
   bool ok = agx_decode_visit_stream(&o, AGX_DECODE_VDM, IMG_VA + VDM_START, NULL, &res);
   setrlimit(RLIMIT_AS, &old);
   assert_true(ok);
   assert_int_equal(res.blocks, 9);
   assert_int_equal(res.errors, 0);
#endif
}

/* A long valid stream hits the output limit and says so. */
static void
test_output_limit(void **state)
{
   (void)state;
   static uint8_t buf[4096 * 4 + 8];
   for (unsigned i = 0; i < 4096; i++)
      agx_pack(buf + 4 * i, VDM_BARRIER, cfg) cfg.usc_cache_inval = true;
   agx_pack(buf + 4 * 4096, VDM_STREAM_TERMINATE, cfg) {}
   struct agx_decode_mem m;
   agx_decode_mem_init(&m);
   assert_true(agx_decode_mem_add(&m, 0x8000, buf, sizeof(buf)));

   struct agx_decode_options o = options();
   o.read_ctx = &m;
   o.max_output = 4096;
   struct agx_decode_result res;
   bool ok;
   char *text = decode_to_string(&o, AGX_DECODE_VDM, 0x8000, &res, &ok);
   assert_true(res.truncated);
   assert_false(res.terminated);
   assert_true(res.blocks < 4096);
   assert_non_null(strstr(text, "\n[output truncated]\n"));
   assert_true(strlen(text) <= 4096 + 32);
   free(text);

   /* The block limit applies too. */
   o.max_output = 0;
   o.max_blocks = 100;
   text = decode_to_string(&o, AGX_DECODE_VDM, 0x8000, &res, &ok);
   assert_false(ok);
   assert_int_equal(res.blocks, 100);
   assert_non_null(strstr(text, "XXX: stopping after 100 blocks (limit)"));
   free(text);
   agx_decode_mem_finish(&m);
}

/* Unmapped starts, short blocks, records and pipelines are errors, not
 * crashes, and name the address. */
static void
test_unmapped(void **state)
{
   (void)state;
   struct agx_decode_options o = options();
   struct agx_decode_result res;
   bool ok;
   char *text = decode_to_string(&o, AGX_DECODE_VDM, 0x1234, &res, &ok);
   assert_false(ok);
   assert_string_equal(text, "VDM stream at 0x1234\n"
                             "XXX: stream block at 0x1234 is unmapped\n");
   free(text);

   /* A PPP state pointing nowhere, then the stream runs off the mapping. */
   uint8_t buf[8];
   agx_pack(buf, PPP_STATE, cfg) {
      cfg.pointer_lo = 0x9000;
      cfg.size_words = 2;
   }
   struct agx_decode_mem m;
   agx_decode_mem_init(&m);
   assert_true(agx_decode_mem_add(&m, 0x4000, buf, sizeof(buf)));
   o.read_ctx = &m;
   text = decode_to_string(&o, AGX_DECODE_VDM, 0x4000, &res, &ok);
   assert_false(ok);
   assert_int_equal(res.errors, 2);
   assert_non_null(strstr(text, "XXX: PPP record at 0x9000 is unmapped"));
   assert_non_null(strstr(text, "XXX: stream block at 0x4008 is unmapped"));
   free(text);
   agx_decode_mem_finish(&m);
}

/* The memory table refuses overlaps and reads across adjacent ranges. */
static void
test_mem_table(void **state)
{
   (void)state;
   uint8_t a[16], b[16], out[32];
   memset(a, 0xaa, sizeof(a));
   memset(b, 0xbb, sizeof(b));
   struct agx_decode_mem m;
   agx_decode_mem_init(&m);
   assert_true(agx_decode_mem_add(&m, 0x100, a, sizeof(a)));
   assert_false(agx_decode_mem_add(&m, 0x108, b, sizeof(b)));
   assert_false(agx_decode_mem_add(&m, UINT64_MAX - 4, b, sizeof(b)));
   assert_true(agx_decode_mem_add(&m, 0x110, b, sizeof(b)));
   assert_int_equal(agx_decode_mem_read(&m, 0x108, out, 32), 24);
   assert_int_equal(out[7], 0xaa);
   assert_int_equal(out[8], 0xbb);
   assert_int_equal(agx_decode_mem_read(&m, 0x200, out, 4), 0);
   agx_decode_mem_finish(&m);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_images_match),
      cmocka_unit_test(test_vdm_golden),
      cmocka_unit_test(test_cdm_golden),
      cmocka_unit_test(test_real_disassembler),
      cmocka_unit_test(test_visit_golden),
      cmocka_unit_test(test_shader_size),
      cmocka_unit_test(test_link_loop),
      cmocka_unit_test(test_garbage),
      cmocka_unit_test(test_output_limit),
      cmocka_unit_test(test_unmapped),
      cmocka_unit_test(test_mem_table),
      cmocka_unit_test(test_visit_draws),
      cmocka_unit_test(test_visit_counts_match),
      cmocka_unit_test(test_visit_no_upfront_table),
   };
   return cmocka_run_group_tests(tests, setup, teardown);
}
