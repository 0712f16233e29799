/* SPDX-License-Identifier: MIT */
/*
 * Hand-checked cases for the generated format code: bytes worked out from
 * the bit positions by hand, modifier edge cases, exact messages and golden
 * print text. (test_pack_vectors covers every structure mechanically.)
 */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmdstream/agx_fw_pack.h"
#include "cmdstream/agx_pack.h"

static uint32_t
word(const uint8_t *p, unsigned i)
{
   uint32_t w;
   memcpy(&w, p + 4 * i, 4);
   return w;
}

/* Runs fn(fp) into a string the caller frees. */
#define CAPTURE(text, code)                                                  \
   do {                                                                      \
      size_t len_;                                                           \
      FILE *fp = open_memstream(&(text), &len_);                             \
      assert_non_null(fp);                                                   \
      code;                                                                  \
      fclose(fp);                                                            \
   } while (0)

static void
test_usc_shader_bytes(void **state)
{
   (void)state;
   uint8_t b[8];
   memset(b, 0xee, sizeof(b));
   agx_pack(b, USC_SHADER, cfg) {
      cfg.loads_varyings = true;
      cfg.code = 0x12345678;
   }
   /* tag 0x0d; byte 1 = loads varyings (bit 0) | default unk 2 = 3 << 2 */
   const uint8_t want[8] = { 0x0d, 0x0d, 0x78, 0x56, 0x34, 0x12, 0xee, 0xee };
   assert_memory_equal(b, want, sizeof(want));

   struct agx_usc_shader s;
   assert_true(agx_usc_shader_unpack(b, &s));
   assert_true(s.loads_varyings);
   assert_int_equal(s.unk_2, 3);
   assert_int_equal(s.code, 0x12345678);
}

static void
test_sampler_bytes_and_print(void **state)
{
   (void)state;
   struct agx_sampler_packed p;
   agx_pack(&p, SAMPLER, cfg) {
      cfg.min_lod = 0.5f;
      cfg.magnify = AGX_FILTER_LINEAR;
      cfg.minify = AGX_FILTER_LINEAR;
      cfg.mip_filter = AGX_MIP_FILTER_LINEAR;
      cfg.wrap_s = AGX_WRAP_REPEAT;
      cfg.wrap_t = AGX_WRAP_MIRRORED_REPEAT;
      cfg.wrap_r = AGX_WRAP_CLAMP_TO_BORDER;
      cfg.compare_func = AGX_COMPARE_FUNC_LESS;
      cfg.compare_enable = true;
      cfg.border_colour = AGX_BORDER_COLOUR_OPAQUE_WHITE;
   }
   /* min lod 0.5 = 32/64; max lod defaults to the largest, 1023/64 */
   assert_int_equal(word(p.opaque, 0), 0x328ffc20);
   assert_int_equal(word(p.opaque, 1), 0x0100051a);

   char *text = NULL;
   CAPTURE(text, agx_sampler_dump(fp, p.opaque, 2));
   assert_string_equal(text,
                       "  Min LOD: 0.500000\n"
                       "  Max LOD: 15.984375\n"
                       "  Max Anisotropy: 1\n"
                       "  Magnify: Linear\n"
                       "  Minify: Linear\n"
                       "  Mip Filter: Linear\n"
                       "  Wrap S: Repeat\n"
                       "  Wrap T: Mirrored Repeat\n"
                       "  Wrap R: Clamp To Border\n"
                       "  Pixel Coordinates: false\n"
                       "  Compare Func: Less\n"
                       "  Compare Enable: true\n"
                       "  Border Colour: Opaque White\n"
                       "  Seamful Cube Maps: false\n");
   free(text);
}

static void
test_texture_bytes_and_print(void **state)
{
   (void)state;
   struct agx_texture_packed p;
   agx_pack(&p, TEXTURE, cfg) {
      cfg.layout = AGX_LAYOUT_TWIDDLED;
      cfg.channels = AGX_CHANNELS_R8G8B8A8;
      cfg.width = 256;
      cfg.height = 128;
      cfg.last_level = 8;
      cfg.address = 0x1234567890;
      cfg.srgb = true;
      cfg.depth = 6;
      cfg.dimension = AGX_TEXTURE_DIMENSION_CUBE;
   }
   /* w0: dim 6 | layout 2<<4 | channels 0x28<<6 | swizzle RGBA (0,1,2,3 in
    * 3-bit slots from 16) | (width-1)=255 low 4 bits at 28 */
   uint32_t w0 = 6 | 2 << 4 | 0x28 << 6 | 0 << 16 | 1 << 19 | 2 << 22 |
                 3u << 25 | (255u & 0xf) << 28;
   /* w1: width-1 >> 4 in bits 0..9, height-1 at 10, last level at 28 */
   uint32_t w1 = 255 >> 4 | 127 << 10 | 8u << 28;
   /* address >> 4 = 0x123456789 at bit 66: bits 2..31 of w2, rest in w3 */
   uint64_t a = 0x1234567890ull >> 4;
   uint32_t w2 = (uint32_t)(a << 2);
   uint32_t w3 = (uint32_t)(a >> 30) | 1u << (108 - 96) | 5u << (110 - 96);
   assert_int_equal(word(p.opaque, 0), w0);
   assert_int_equal(word(p.opaque, 1), w1);
   assert_int_equal(word(p.opaque, 2), w2);
   assert_int_equal(word(p.opaque, 3), w3);
   assert_int_equal(word(p.opaque, 4), 0);
   assert_int_equal(word(p.opaque, 5), 0);

   char *text = NULL;
   CAPTURE(text, agx_texture_dump(fp, p.opaque, 0));
   assert_string_equal(text,
                       "Dimension: Cube\n"
                       "Layout: Twiddled\n"
                       "Channels: R8G8B8A8\n"
                       "Type: Unorm\n"
                       "Swizzle R: R\n"
                       "Swizzle G: G\n"
                       "Swizzle B: B\n"
                       "Swizzle A: A\n"
                       "Width: 256\n"
                       "Height: 128\n"
                       "First Level: 0\n"
                       "Last Level: 8\n"
                       "Samples: 2\n"
                       "Address: 0x1234567890\n"
                       "Unk Mipmapped: false\n"
                       "Compressed 1: false\n"
                       "Null: false\n"
                       "Compression: 0x0\n"
                       "sRGB: true\n"
                       "sRGB 2 Channel: false\n"
                       "Stride (linear): 0x50\n"
                       "Depth (tiled): 6\n"
                       "Page Aligned Layers (tiled): false\n"
                       "Extended: false\n"
                       "Acceleration Buffer (compressed): 0x0\n"
                       "Depth Linear (linear): 1\n"
                       "Layer Stride Linear (linear): 0\n");
   free(text);
}

static void
test_groups_modifier(void **state)
{
   (void)state;
   struct agx_vdm_state_vertex_shader_word_0 v = {
      AGX_VDM_STATE_VERTEX_SHADER_WORD_0_HEADER };
   struct agx_pack_error err;
   uint8_t b[4];

   /* Zero groups is not encodable: rounds up to one group of 64. */
   v.uniform_register_count = 0;
   assert_true(agx_vdm_state_vertex_shader_word_0_pack_checked(b, &v, &err));
   assert_int_equal((word(b, 0) >> 1) & 7, 1);
   /* ...as do the other counts left at 0 (textures bit 4, preshader 12). */
   assert_int_equal(word(b, 0), 1 << 1 | 1 << 4 | 1 << 12);

   /* 100 rounds up to two groups. */
   v.uniform_register_count = 100;
   assert_true(agx_vdm_state_vertex_shader_word_0_pack_checked(b, &v, &err));
   assert_int_equal((word(b, 0) >> 1) & 7, 2);

   /* 2^3 groups, the whole file, encodes as 0 and decodes back to 512. */
   v.uniform_register_count = 512;
   assert_true(agx_vdm_state_vertex_shader_word_0_pack_checked(b, &v, &err));
   assert_int_equal((word(b, 0) >> 1) & 7, 0);
   struct agx_vdm_state_vertex_shader_word_0 u;
   assert_true(agx_vdm_state_vertex_shader_word_0_unpack(b, &u));
   assert_int_equal(u.uniform_register_count, 512);

   v.uniform_register_count = 513;
   memset(b, 0x5a, sizeof(b));
   assert_false(agx_vdm_state_vertex_shader_word_0_pack_checked(b, &v, &err));
   assert_string_equal(err.msg,
                       "VDM State Vertex Shader Word 0.Uniform Register "
                       "Count: value 513 (0x201) does not fit in 3 bits "
                       "with groups(64)");
   /* A failed pack leaves the destination alone. */
   assert_int_equal(word(b, 0), 0x5a5a5a5a);
}

static void
test_lod_clamps(void **state)
{
   (void)state;
   struct agx_sampler s = { AGX_SAMPLER_HEADER };
   struct agx_sampler_packed p;
   struct agx_pack_error err;

   s.min_lod = -1.0f;
   s.max_lod = 100.0f;
   assert_true(agx_sampler_pack_checked(&p, &s, &err));
   assert_int_equal(word(p.opaque, 0) & 0xfffff, 0 | 1023 << 10);

   s.min_lod = NAN;
   s.max_lod = 0.51f; /* 32.64/64 rounds to 33/64 */
   assert_true(agx_sampler_pack_checked(&p, &s, &err));
   assert_int_equal(word(p.opaque, 0) & 0xfffff, 0 | 33 << 10);
}

static void
test_other_modifier_errors(void **state)
{
   (void)state;
   struct agx_pack_error err;
   uint8_t b[24];

   struct agx_sampler s = { AGX_SAMPLER_HEADER };
   s.max_anisotropy = 3;
   assert_false(agx_sampler_pack_checked(b, &s, &err));
   assert_string_equal(err.msg, "Sampler.Max Anisotropy: value 3 is not a "
                                "power of two, log2 would lose bits");
   s.max_anisotropy = 16;
   assert_true(agx_sampler_pack_checked(b, &s, &err));
   assert_int_equal((word(b, 0) >> 20) & 7, 4);

   struct agx_texture t = { AGX_TEXTURE_HEADER };
   t.address = 0x1008;
   assert_false(agx_texture_pack_checked(b, &t, &err));
   assert_string_equal(err.msg, "Texture.Address: value 0x1008 is not a "
                                "multiple of 16: shr(4) would lose bits");
   t.address = 0x1000;
   t.width = 0;
   assert_false(agx_texture_pack_checked(b, &t, &err));
   assert_string_equal(err.msg, "Texture.Width: value 0 is below the "
                                "minimum 1 of minus(1)");
   t.width = 16385;
   assert_false(agx_texture_pack_checked(b, &t, &err));
   assert_string_equal(err.msg, "Texture.Width: value 16385 (0x4001) does "
                                "not fit in 14 bits with minus(1)");
   t.width = 16384;
   assert_true(agx_texture_pack_checked(b, &t, &err));

   /* A NULL error sink is allowed. */
   t.width = 0;
   assert_false(agx_texture_pack_checked(b, &t, NULL));
}

static void
test_unknown_bits_and_consts(void **state)
{
   (void)state;
   char *text = NULL;

   /* A barrier (type 1 in bits 29-31) with bit 0, which no field covers. */
   uint32_t raw = 1u << 29 | 1u << 27 | 1;
   struct agx_vdm_barrier b;
   assert_false(agx_vdm_barrier_unpack(&raw, &b));
   assert_true(b.returns);
   CAPTURE(text, agx_vdm_barrier_validate(fp, &raw, 2));
   assert_string_equal(text,
                       "  XXX: VDM Barrier: unknown bits 0x00000001 set in "
                       "word 0\n");
   free(text);

   /* A shader word whose tag is not 0x0d. */
   uint8_t w[6] = { 0x0e, 0x0c, 0, 0, 0, 0 };
   struct agx_usc_shader s;
   assert_false(agx_usc_shader_unpack(w, &s));
   CAPTURE(text, agx_usc_shader_validate(fp, w, 0));
   assert_string_equal(text, "XXX: USC Shader: Tag is 0xe, expected 0xd\n");
   free(text);

   /* Bits past a 6-byte structure are outside it, not unknown. */
   uint8_t w8[8] = { 0x0d, 0x0c, 0, 0, 0, 0, 0xff, 0xff };
   assert_true(agx_usc_shader_unpack(w8, &s));
}

static void
test_enum_names(void **state)
{
   (void)state;
   assert_string_equal(agx_primitive_as_str(AGX_PRIMITIVE_TRIANGLE_FAN),
                       "Triangle Fan");
   assert_int_equal(AGX_PRIMITIVE_TRIANGLE_FAN, 11);
   assert_string_equal(agx_usc_control_as_str(0xdd), "Texture");
   assert_null(agx_usc_control_as_str(0x42));
   assert_string_equal(agx_channels_as_str(AGX_CHANNELS_ASTC_12X12),
                       "ASTC 12x12");

   /* Unknown enum values print raw. */
   struct agx_index_list il = { AGX_INDEX_LIST_HEADER };
   il.primitive = (enum agx_primitive)2;
   char *text = NULL;
   CAPTURE(text, agx_index_list_print(fp, &il, 0));
   assert_non_null(strstr(text, "Primitive: unknown 0x2\n"));
   free(text);
}

/* lengths="true" enums: each value gives the size of the struct it tags
 * (the USC word sizes the decoder and the model step by). */
static void
test_tag_lengths(void **state)
{
   (void)state;
   assert_int_equal(agx_usc_control_length(AGX_USC_CONTROL_SHADER), 6);
   assert_int_equal(agx_usc_control_length(AGX_USC_CONTROL_UNIFORM), 8);
   assert_int_equal(agx_usc_control_length(AGX_USC_CONTROL_UNIFORM_HIGH), 8);
   assert_int_equal(agx_usc_control_length(AGX_USC_CONTROL_TEXTURE), 8);
   assert_int_equal(agx_usc_control_length(AGX_USC_CONTROL_SAMPLER), 8);
   assert_int_equal(agx_usc_control_length(AGX_USC_CONTROL_PRESHADER), 8);
   assert_int_equal(agx_usc_control_length(AGX_USC_CONTROL_SHARED), 4);
   assert_int_equal(agx_usc_control_length(AGX_USC_CONTROL_REGISTERS), 4);
   assert_int_equal(agx_usc_control_length(AGX_USC_CONTROL_FRAGMENT_PROPERTIES), 4);
   assert_int_equal(agx_usc_control_length(AGX_USC_CONTROL_NO_PRESHADER), 2);
   assert_int_equal(agx_usc_control_length(0x42), 0);
}

/* agx_T_pack must stop the program, naming the field, in every build. */
static void
test_pack_aborts(void **state)
{
   (void)state;
   int fds[2];
   assert_int_equal(pipe(fds), 0);
   pid_t pid = fork();
   assert_true(pid >= 0);
   if (pid == 0) {
      dup2(fds[1], 2);
      struct agx_usc_texture t = { AGX_USC_TEXTURE_HEADER };
      t.count = 200;
      uint8_t b[8];
      agx_usc_texture_pack(b, &t);
      _exit(0);
   }
   close(fds[1]);
   char buf[512] = { 0 };
   size_t n = 0;
   ssize_t r;
   while (n < sizeof(buf) - 1 &&
          (r = read(fds[0], buf + n, sizeof(buf) - 1 - n)) > 0)
      n += (size_t)r;
   close(fds[0]);
   int status;
   assert_int_equal(waitpid(pid, &status, 0), pid);
   assert_true(WIFSIGNALED(status));
   assert_int_equal(WTERMSIG(status), SIGABRT);
   assert_non_null(strstr(buf, "agx_pack: USC Texture.Count: value 200"));
}

static void
test_fw_struct(void **state)
{
   (void)state;
   struct agx_fw_run_queue_message_packed p;
   agx_pack(&p, FW_RUN_QUEUE_MESSAGE, cfg) {
      cfg.pipe = AGX_FW_PIPE_COMPUTE;
      cfg.work_queue = 0xffffffa000001000ull;
      cfg.write_index = 7;
      cfg.event_slot = 127;
      cfg.new_queue = true;
   }
   const uint32_t want[8] = { 2, 0, 0x00001000, 0xffffffa0, 7, 127, 1, 0 };
   for (unsigned i = 0; i < 8; i++)
      assert_int_equal(word(p.opaque, i), want[i]);

   char *text = NULL;
   CAPTURE(text, agx_fw_run_queue_message_dump(fp, p.opaque, 1));
   assert_string_equal(text, " Pipe: Compute\n"
                             " Work Queue: 0xffffffa000001000\n"
                             " Write Index: 7\n"
                             " Event Slot: 127\n"
                             " New Queue: true\n");
   free(text);
}

int
main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_usc_shader_bytes),
      cmocka_unit_test(test_sampler_bytes_and_print),
      cmocka_unit_test(test_texture_bytes_and_print),
      cmocka_unit_test(test_groups_modifier),
      cmocka_unit_test(test_lod_clamps),
      cmocka_unit_test(test_other_modifier_errors),
      cmocka_unit_test(test_unknown_bits_and_consts),
      cmocka_unit_test(test_enum_names),
      cmocka_unit_test(test_tag_lengths),
      cmocka_unit_test(test_pack_aborts),
      cmocka_unit_test(test_fw_struct),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
