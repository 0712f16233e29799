/* SPDX-License-Identifier: MIT */
/*
 * VDM/CDM stream decoder (see agx_decode.h for the contract).
 *
 * Everything read from GPU memory goes through fetch(), which zero-fills
 * what the callback did not return and tells the caller how much was real,
 * so a block that runs into unmapped memory is reported, never
 * half-decoded from garbage. Text goes through a bounded FILE (fopencookie)
 * so that a hostile stream cannot produce unbounded output; the loops check
 * the truncation flag to stop early.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cmdstream/agx_decode.h"
#include "cmdstream/agx_pack.h"

#define DEFAULT_MAX_DEPTH 16
#define DEFAULT_MAX_BLOCKS 4096
#define DEFAULT_MAX_SHADER (16 * 1024)
#define DEFAULT_MAX_OUTPUT (16u * 1024 * 1024)

/* A pipeline is a short list of USC words; real ones have under 20. */
#define MAX_USC_WORDS 64
/* Largest block of either stream: an index list with every word present. */
#define MAX_BLOCK_BYTES 64

struct bounded_out {
   FILE *real;
   size_t left;
   bool truncated;
};

struct seen_entry {
   uint64_t va, ret;
   unsigned depth;
   bool used;
};

struct dctx {
   FILE *fp;
   struct bounded_out *out;
   const struct agx_decode_options *o;
   struct agx_decode_result *res;
   unsigned max_depth, max_blocks;
   size_t max_shader;
   struct seen_entry *seen;
   size_t seen_cap, seen_used;
   /* Visitor mode: text goes to a sink that drops it, shaders go here. */
   const struct agx_decode_visitor *v;
   enum agx_decode_stage stage; /* of the pipeline being walked */
   uint32_t pipe_off;
};

/* ------------------------------------------------------------ output */

static ssize_t
bounded_write(void *cookie, const char *buf, size_t size)
{
   struct bounded_out *b = cookie;
   if (b->truncated || !b->real)
      return (ssize_t)size;
   size_t n = size < b->left ? size : b->left;
   fwrite(buf, 1, n, b->real);
   b->left -= n;
   if (n < size) {
      b->truncated = true;
      fputs("\n[output truncated]\n", b->real);
   }
   return (ssize_t)size;
}

static bool
stopped(const struct dctx *d)
{
   return d->out && d->out->truncated;
}

/* Text output. In visitor mode there is no stream (d->fp NULL): nothing
 * is formatted at all, which was most of a walk's cost (the capture layer
 * walks every submission's streams). */
static void __attribute__((format(printf, 2, 3)))
out(struct dctx *d, const char *fmt, ...)
{
   if (!d->fp)
      return;
   va_list ap;
   va_start(ap, fmt);
   vfprintf(d->fp, fmt, ap);
   va_end(ap);
}

static void __attribute__((format(printf, 3, 4)))
xxx(struct dctx *d, int ind, const char *fmt, ...)
{
   d->res->errors++;
   if (!d->fp)
      return;
   va_list ap;
   fprintf(d->fp, "%*sXXX: ", ind, "");
   va_start(ap, fmt);
   vfprintf(d->fp, fmt, ap);
   va_end(ap);
   fputc('\n', d->fp);
}

static void
hexdump(FILE *fp, int ind, uint64_t va, const uint8_t *p, size_t n)
{
   if (!fp)
      return;
   for (size_t i = 0; i < n; i += 16) {
      fprintf(fp, "%*s0x%010" PRIx64 ":", ind, "", va + i);
      for (size_t j = i; j < n && j < i + 16; j++)
         fprintf(fp, " %02x", p[j]);
      fputc('\n', fp);
   }
}

/* Prints a generated structure and counts it if it has unknown bits. */
static void
dump(struct dctx *d, bool (*fn)(FILE *, const void *, int), const void *src,
     int ind)
{
   if (!fn(d->fp, src, ind))
      d->res->warnings++;
}

/* Without text (visitor mode) only the unpack runs: it is what says
 * whether the structure has unknown bits. */
#define DUMP(d, T, src, ind)                                                 \
   do {                                                                      \
      if ((d)->fp) {                                                         \
         dump((d), agx_##T##_dump, (src), (ind));                            \
      } else {                                                               \
         struct agx_##T dump_unpacked_;                                      \
         if (!agx_##T##_unpack((src), &dump_unpacked_))                      \
            (d)->res->warnings++;                                            \
      }                                                                      \
   } while (0)

/* ------------------------------------------------------------ memory */

static size_t
fetch(struct dctx *d, uint64_t va, void *dst, size_t size)
{
   size_t got = d->o->read(d->o->read_ctx, va, dst, size);
   if (got > size)
      got = size; /* a misbehaving callback must not make us trust more */
   memset((uint8_t *)dst + got, 0, size - got);
   return got;
}

/* Fetches exactly `size` bytes or reports what is missing. */
static bool
fetch_all(struct dctx *d, int ind, const char *what, uint64_t va, void *dst,
          size_t size)
{
   size_t got = fetch(d, va, dst, size);
   if (got == size)
      return true;
   if (got == 0)
      xxx(d, ind, "%s at 0x%" PRIx64 " is unmapped", what, va);
   else
      xxx(d, ind, "%s at 0x%" PRIx64 " is cut short: %zu of %zu bytes mapped",
          what, va, got, size);
   return false;
}

/* ------------------------------------------------------------ USC */

static void
disassemble(struct dctx *d, int ind, const char *what, uint32_t offset)
{
   uint64_t va = d->o->usc_base + offset;
   if (d->v) {
      struct agx_decode_shader_ref ref = {
         .stage = d->stage,
         .preshader = !strcmp(what, "Preshader"),
         .pipeline = d->pipe_off,
         .code = offset,
         .va = va,
      };
      if (d->v->shader)
         d->v->shader(d->v->ctx, &ref);
      return;
   }
   out(d, "%*s%s at 0x%" PRIx64 " (USC base + 0x%" PRIx32 ")\n", ind,
           "", what, va, offset);
   if (d->o->no_disasm)
      return;

   uint8_t *code = malloc(d->max_shader);
   if (!code) {
      xxx(d, ind + 2, "out of memory reading the shader");
      return;
   }
   size_t got = fetch(d, va, code, d->max_shader);
   if (got == 0) {
      xxx(d, ind + 2, "shader code at 0x%" PRIx64 " is unmapped", va);
   } else {
      char indent[64];
      snprintf(indent, sizeof(indent), "%*s", ind + 2, "");
      struct agx_disasm_options dopts = {
         .pc = va,
         .stop_at_end = true,
         .indent = indent,
         .show_bytes = false,
      };
      if (d->o->disasm)
         d->o->disasm(d->fp, code, got, &dopts);
      else
         agx_disasm_print(d->fp, code, got, &dopts);
   }
   free(code);
}

static void
texture_table(struct dctx *d, int ind, uint64_t base, unsigned start,
              unsigned count)
{
   if (d->v)
      return; /* data, not structure: nothing to visit */
   for (unsigned i = 0; i < count && !stopped(d); i++) {
      uint8_t desc[AGX_TEXTURE_LENGTH];
      uint64_t va = base + (uint64_t)i * AGX_TEXTURE_LENGTH;
      if (!fetch_all(d, ind + 2, "texture descriptor", va, desc, sizeof(desc)))
         return;
      /* The table holds texture descriptors and the PBE descriptors that
       * image writes use, with no tag telling them apart. A valid texture
       * (its swizzles name one of the 6 channels) prints as one; what only
       * fits a PBE prints as a PBE. */
      struct agx_texture t;
      struct agx_pbe pb;
      bool is_tex = agx_texture_unpack(desc, &t) && t.swizzle_r <= AGX_CHANNEL_0 &&
                    t.swizzle_g <= AGX_CHANNEL_0 && t.swizzle_b <= AGX_CHANNEL_0 &&
                    t.swizzle_a <= AGX_CHANNEL_0;
      if (!is_tex && agx_pbe_unpack(desc, &pb)) {
         out(d, "%*sPBE %u at 0x%" PRIx64 "\n", ind, "", start + i, va);
         DUMP(d, pbe, desc, ind + 2);
      } else {
         out(d, "%*sTexture %u at 0x%" PRIx64 "%s\n", ind, "", start + i, va,
                 is_tex ? "" : " (fits neither a texture nor a PBE descriptor)");
         DUMP(d, texture, desc, ind + 2);
      }
   }
}

static void
sampler_table(struct dctx *d, int ind, uint64_t base, unsigned start,
              unsigned count)
{
   if (d->v)
      return; /* data, not structure: nothing to visit */
   for (unsigned i = 0; i < count && !stopped(d); i++) {
      uint8_t desc[AGX_SAMPLER_LENGTH];
      uint64_t va = base + (uint64_t)i * AGX_SAMPLER_LENGTH;
      out(d, "%*sSampler %u at 0x%" PRIx64 "\n", ind, "", start + i,
              va);
      if (!fetch_all(d, ind + 2, "sampler descriptor", va, desc, sizeof(desc)))
         return;
      DUMP(d, sampler, desc, ind + 2);
   }
}

static void
uniform_data(struct dctx *d, int ind, uint64_t va, unsigned halfs)
{
   if (d->v)
      return; /* data, not structure: nothing to visit */
   uint8_t data[128];
   size_t n = (size_t)halfs * 2;
   if (n > sizeof(data))
      n = sizeof(data);
   if (fetch_all(d, ind, "uniform data", va, data, n))
      hexdump(d->fp, ind, va, data, n);
}

/* Decodes one USC word at p (avail bytes valid). Returns its length, 0 at
 * the end of the pipeline, or -1 when it cannot continue. */
static int
usc_word(struct dctx *d, int ind, uint64_t va, const uint8_t *p, size_t avail)
{
   size_t need = agx_usc_control_length(p[0]);
   if (!need) {
      out(d, "%*s0x%" PRIx64 ": unknown USC word 0x%02x\n", ind, "",
              va, p[0]);
      hexdump(d->fp, ind + 2, va, p, avail < 8 ? avail : 8);
      xxx(d, ind + 2, "unknown USC control word, pipeline decode stops");
      return -1;
   }
   if (avail < need) {
      xxx(d, ind, "USC word at 0x%" PRIx64 " runs into unmapped memory", va);
      return -1;
   }

   const char *name = agx_usc_control_as_str(p[0]);
   out(d, "%*s0x%" PRIx64 ": %s\n", ind, "", va, name);
   if (d->o->raw)
      hexdump(d->fp, ind + 2, va, p, need);

   switch (p[0]) {
   case AGX_USC_CONTROL_SHADER: {
      DUMP(d, usc_shader, p, ind + 2);
      agx_unpack(p, USC_SHADER, w);
      disassemble(d, ind + 2, "Shader", (uint32_t)w.code);
      break;
   }
   case AGX_USC_CONTROL_PRESHADER: {
      DUMP(d, usc_preshader, p, ind + 2);
      agx_unpack(p, USC_PRESHADER, w);
      disassemble(d, ind + 2, "Preshader", (uint32_t)w.code);
      return 0;
   }
   case AGX_USC_CONTROL_NO_PRESHADER:
      DUMP(d, usc_no_preshader, p, ind + 2);
      return 0;
   case AGX_USC_CONTROL_UNIFORM: {
      DUMP(d, usc_uniform, p, ind + 2);
      agx_unpack(p, USC_UNIFORM, w);
      uniform_data(d, ind + 4, w.buffer, w.size_halfs);
      break;
   }
   case AGX_USC_CONTROL_UNIFORM_HIGH: {
      DUMP(d, usc_uniform_high, p, ind + 2);
      agx_unpack(p, USC_UNIFORM_HIGH, w);
      uniform_data(d, ind + 4, w.buffer, w.size_halfs);
      break;
   }
   case AGX_USC_CONTROL_TEXTURE: {
      DUMP(d, usc_texture, p, ind + 2);
      agx_unpack(p, USC_TEXTURE, w);
      texture_table(d, ind + 4, w.buffer, w.start, w.count);
      break;
   }
   case AGX_USC_CONTROL_SAMPLER: {
      DUMP(d, usc_sampler, p, ind + 2);
      agx_unpack(p, USC_SAMPLER, w);
      sampler_table(d, ind + 4, w.buffer, w.start, w.count);
      break;
   }
   case AGX_USC_CONTROL_SHARED:
      DUMP(d, usc_shared, p, ind + 2);
      break;
   case AGX_USC_CONTROL_REGISTERS:
      DUMP(d, usc_registers, p, ind + 2);
      break;
   case AGX_USC_CONTROL_FRAGMENT_PROPERTIES:
      DUMP(d, usc_fragment_properties, p, ind + 2);
      break;
   }
   return (int)need;
}

static void
pipeline(struct dctx *d, int ind, const char *what, uint32_t offset,
         enum agx_decode_stage stage)
{
   uint64_t va = d->o->usc_base + offset;
   d->stage = stage;
   d->pipe_off = offset;
   uint8_t buf[MAX_USC_WORDS * 8];
   size_t got = fetch(d, va, buf, sizeof(buf));

   out(d, "%*s%s at 0x%" PRIx64 " (USC base + 0x%" PRIx32 ")\n", ind,
           "", what, va, offset);
   if (got == 0) {
      xxx(d, ind + 2, "pipeline at 0x%" PRIx64 " is unmapped", va);
      return;
   }

   size_t pos = 0;
   for (unsigned n = 0; n < MAX_USC_WORDS; n++) {
      if (stopped(d))
         return;
      if (pos >= got) {
         xxx(d, ind + 2, "pipeline runs into unmapped memory at 0x%" PRIx64,
             va + pos);
         return;
      }
      int len = usc_word(d, ind + 2, va + pos, buf + pos, got - pos);
      if (len <= 0)
         return;
      pos += (size_t)len;
   }
   xxx(d, ind + 2, "no preshader word after %u USC words, giving up",
       MAX_USC_WORDS);
}

/* ------------------------------------------------------------ PPP */

static void
cf_bindings(struct dctx *d, int ind, uint32_t offset, unsigned count)
{
   uint64_t va = d->o->usc_base + offset;
   uint8_t buf[AGX_CF_BINDING_HEADER_LENGTH + 127 * AGX_CF_BINDING_LENGTH];
   size_t size = AGX_CF_BINDING_HEADER_LENGTH + count * AGX_CF_BINDING_LENGTH;

   out(d, "%*sCF bindings at 0x%" PRIx64 " (USC base + 0x%" PRIx32
           ")\n", ind, "", va, offset);
   if (!fetch_all(d, ind + 2, "CF bindings", va, buf, size))
      return;
   out(d, "%*sHeader\n", ind + 2, "");
   DUMP(d, cf_binding_header, buf, ind + 4);
   for (unsigned i = 0; i < count; i++) {
      out(d, "%*sBinding %u\n", ind + 2, "", i);
      DUMP(d, cf_binding, buf + AGX_CF_BINDING_HEADER_LENGTH +
                             i * AGX_CF_BINDING_LENGTH, ind + 4);
   }
}

struct ppp_cursor {
   struct dctx *d;
   const uint8_t *buf;
   size_t size, pos;
   uint64_t va;
   int ind;
   bool bad;
};

/* Takes the next `len` bytes of the record for `name`, or flags an overrun. */
static const uint8_t *
ppp_take(struct ppp_cursor *c, const char *name, size_t len)
{
   if (c->bad)
      return NULL;
   if (c->pos + len > c->size) {
      xxx(c->d, c->ind, "record too short for %s: needs %zu bytes at offset "
          "%zu of %zu", name, len, c->pos, c->size);
      c->bad = true;
      return NULL;
   }
   const uint8_t *p = c->buf + c->pos;
   out(c->d, "%*s%s\n", c->ind, "", name);
   c->pos += len;
   return p;
}

#define PPP_WORD(c, present, T, name)                                        \
   do {                                                                      \
      const uint8_t *p_;                                                     \
      if ((present) && (p_ = ppp_take((c), (name), AGX_##T##_LENGTH))) {     \
         if ((c)->d->fp) {                                                   \
            dump((c)->d, AGX_##T##_dump, p_, (c)->ind + 2);                  \
         } else {                                                            \
            AGX_##T##_T u_;                                                  \
            if (!AGX_##T##_unpack(p_, &u_))                                  \
               (c)->d->res->warnings++;                                      \
         }                                                                   \
      }                                                                      \
   } while (0)

static void
ppp_record(struct dctx *d, int ind, uint64_t va, size_t size)
{
   uint8_t buf[256 * 4];

   out(d, "%*sPPP record at 0x%" PRIx64 " (%zu bytes)\n", ind, "", va,
           size);
   if (size < AGX_PPP_HEADER_LENGTH || size > sizeof(buf)) {
      xxx(d, ind + 2, "record size %zu is out of range (4..%zu)", size,
          sizeof(buf));
      return;
   }
   if (!fetch_all(d, ind + 2, "PPP record", va, buf, size))
      return;
   if (d->o->raw)
      hexdump(d->fp, ind + 2, va, buf, size);

   struct ppp_cursor c = {
      .d = d, .buf = buf, .size = size, .va = va, .ind = ind + 2,
   };
   const uint8_t *hp = ppp_take(&c, "Header", AGX_PPP_HEADER_LENGTH);
   DUMP(d, ppp_header, hp, ind + 4);
   agx_unpack(hp, PPP_HEADER, h);

   PPP_WORD(&c, h.fragment_control, FRAGMENT_CONTROL, "Fragment control");
   PPP_WORD(&c, h.fragment_control_2, FRAGMENT_CONTROL_2, "Fragment control 2");
   PPP_WORD(&c, h.front_face, FRAGMENT_FACE, "Front face");
   PPP_WORD(&c, h.front_face_2, FRAGMENT_FACE_2, "Front face 2");
   PPP_WORD(&c, h.front_stencil, FRAGMENT_STENCIL, "Front stencil");
   PPP_WORD(&c, h.back_face, FRAGMENT_FACE, "Back face");
   PPP_WORD(&c, h.back_face_2, FRAGMENT_FACE_2, "Back face 2");
   PPP_WORD(&c, h.back_stencil, FRAGMENT_STENCIL, "Back stencil");
   PPP_WORD(&c, h.depth_bias_scissor, DEPTH_BIAS_SCISSOR, "Depth bias/scissor");
   PPP_WORD(&c, h.region_clip, REGION_CLIP, "Region clip");
   if (h.viewport) {
      PPP_WORD(&c, true, VIEWPORT_CONTROL, "Viewport control");
      for (unsigned i = 0; i < h.viewport_count && !c.bad; i++) {
         char name[32];
         snprintf(name, sizeof(name), "Viewport %u", i);
         PPP_WORD(&c, true, VIEWPORT, name);
      }
   }
   PPP_WORD(&c, h.w_clamp, W_CLAMP, "W clamp");
   PPP_WORD(&c, h.output_select, OUTPUT_SELECT, "Output select");
   PPP_WORD(&c, h.varying_counts_32, VARYING_COUNTS, "Varying counts 32");
   PPP_WORD(&c, h.varying_counts_16, VARYING_COUNTS, "Varying counts 16");
   PPP_WORD(&c, h.cull, CULL, "Cull");
   PPP_WORD(&c, h.cull_2, CULL_2, "Cull 2");
   if (h.fragment_shader) {
      const uint8_t *fs = ppp_take(&c, "Fragment shader", 16);
      if (fs) {
         out(d, "%*sWord 0\n", ind + 4, "");
         DUMP(d, fragment_shader_word_0, fs + 0, ind + 6);
         out(d, "%*sWord 1\n", ind + 4, "");
         DUMP(d, fragment_shader_word_1, fs + 4, ind + 6);
         out(d, "%*sWord 2\n", ind + 4, "");
         DUMP(d, fragment_shader_word_2, fs + 8, ind + 6);
         out(d, "%*sWord 3\n", ind + 4, "");
         DUMP(d, fragment_shader_word_3, fs + 12, ind + 6);
         agx_unpack(fs + 0, FRAGMENT_SHADER_WORD_0, w0);
         agx_unpack(fs + 4, FRAGMENT_SHADER_WORD_1, w1);
         agx_unpack(fs + 8, FRAGMENT_SHADER_WORD_2, w2);
         if (w2.cf_bindings)
            cf_bindings(d, ind + 4, (uint32_t)w2.cf_bindings,
                        w0.cf_binding_count);
         pipeline(d, ind + 4, "Fragment pipeline", (uint32_t)w1.pipeline,
                  AGX_DECODE_STAGE_FRAGMENT);
      }
   }
   PPP_WORD(&c, h.occlusion_query, FRAGMENT_OCCLUSION_QUERY, "Occlusion query");
   PPP_WORD(&c, h.occlusion_query_2, FRAGMENT_OCCLUSION_QUERY_2,
            "Occlusion query 2");
   PPP_WORD(&c, h.output_unknown, OUTPUT_UNKNOWN, "Output unknown");
   PPP_WORD(&c, h.output_size, OUTPUT_SIZE, "Output size");
   PPP_WORD(&c, h.varying_word_2, VARYING_WORD_2, "Varying word 2");

   if (!c.bad && c.pos != c.size)
      xxx(d, ind + 2, "record is %zu bytes but its header accounts for %zu",
          c.size, c.pos);
}

/* ------------------------------------------------------------ streams */

enum step_kind { STEP_NEXT, STEP_JUMP, STEP_CALL, STEP_RETURN, STEP_DONE,
                 STEP_STOP };

struct step {
   enum step_kind kind;
   size_t len;      /* STEP_NEXT, STEP_CALL: bytes to the next block */
   uint64_t target; /* STEP_JUMP, STEP_CALL */
};

static bool
need(struct dctx *d, uint64_t va, size_t got, size_t len)
{
   if (got >= len)
      return true;
   xxx(d, 2, "block at 0x%" PRIx64 " needs %zu bytes, only %zu mapped", va,
       len, got);
   return false;
}

static void
unknown_block(struct dctx *d, uint64_t va, const uint8_t *p, size_t got,
              const char *stream, unsigned type)
{
   out(d, "0x%010" PRIx64 ": unknown %s block type %u\n", va, stream,
           type);
   hexdump(d->fp, 2, va, p, got < 8 ? got : 8);
   xxx(d, 2, "cannot find the next block, stream decode stops");
}

static struct step
vdm_block(struct dctx *d, uint64_t va, const uint8_t *p, size_t got)
{
   const struct step stop = { .kind = STEP_STOP };
   unsigned type = p[3] >> 5;
   const char *name = agx_vdm_block_type_as_str(type);

   if (!name) {
      unknown_block(d, va, p, got, "VDM", type);
      return stop;
   }
   out(d, "0x%010" PRIx64 ": %s\n", va, name);

   switch (type) {
   case AGX_VDM_BLOCK_TYPE_PPP_STATE_UPDATE: {
      if (!need(d, va, got, AGX_PPP_STATE_LENGTH))
         return stop;
      DUMP(d, ppp_state, p, 2);
      agx_unpack(p, PPP_STATE, s);
      ppp_record(d, 2, ((uint64_t)s.pointer_hi << 32) | s.pointer_lo,
                 (size_t)s.size_words * 4);
      return (struct step){ STEP_NEXT, AGX_PPP_STATE_LENGTH, 0 };
   }
   case AGX_VDM_BLOCK_TYPE_BARRIER: {
      DUMP(d, vdm_barrier, p, 2);
      agx_unpack(p, VDM_BARRIER, b);
      if (b.returns)
         return (struct step){ STEP_RETURN, 0, 0 };
      return (struct step){ STEP_NEXT, AGX_VDM_BARRIER_LENGTH, 0 };
   }
   case AGX_VDM_BLOCK_TYPE_VDM_STATE_UPDATE: {
      agx_unpack(p, VDM_STATE, h);
      size_t len = AGX_VDM_STATE_LENGTH;
      len += h.restart_index_present ? 4 : 0;
      len += h.vertex_shader_word_0_present ? 4 : 0;
      len += h.vertex_shader_word_1_present ? 4 : 0;
      len += h.vertex_outputs_present ? 4 : 0;
      len += h.tessellation_present ? 4 : 0;
      len += h.vertex_unknown_present ? 4 : 0;
      len += h.tessellation_scale_present ? 4 : 0;
      if (!need(d, va, got, len))
         return stop;
      if (d->o->raw)
         hexdump(d->fp, 2, va, p, len);
      DUMP(d, vdm_state, p, 2);
      const uint8_t *w = p + AGX_VDM_STATE_LENGTH;
#define VDM_WORD(present, T, label)                                          \
   if (present) {                                                            \
      out(d, "  %s\n", label);                                       \
      DUMP(d, T, w, 4);                                                      \
      w += 4;                                                                \
   }
      VDM_WORD(h.restart_index_present, vdm_state_restart_index,
               "Restart index");
      VDM_WORD(h.vertex_shader_word_0_present, vdm_state_vertex_shader_word_0,
               "Vertex shader word 0");
      if (h.vertex_shader_word_1_present) {
         agx_unpack(w, VDM_STATE_VERTEX_SHADER_WORD_1, w1);
         VDM_WORD(true, vdm_state_vertex_shader_word_1, "Vertex shader word 1");
         pipeline(d, 4, "Vertex pipeline", (uint32_t)w1.pipeline,
                  AGX_DECODE_STAGE_VERTEX);
      }
      VDM_WORD(h.vertex_outputs_present, vdm_state_vertex_outputs,
               "Vertex outputs");
      VDM_WORD(h.tessellation_present, vdm_state_tessellation, "Tessellation");
      VDM_WORD(h.vertex_unknown_present, vdm_state_vertex_unknown,
               "Vertex unknown");
      VDM_WORD(h.tessellation_scale_present, vdm_state_tessellation_scale,
               "Tessellation scale");
#undef VDM_WORD
      /* Padded to 8 bytes, except when the scale word is present. */
      if (!h.tessellation_scale_present)
         len = (len + 7) & ~(size_t)7;
      return (struct step){ STEP_NEXT, len, 0 };
   }
   case AGX_VDM_BLOCK_TYPE_INDEX_LIST: {
      agx_unpack(p, INDEX_LIST, h);
      size_t len = AGX_INDEX_LIST_LENGTH;
      len += h.index_buffer_present ? 4 : 0;
      len += h.index_count_present ? 4 : 0;
      len += h.instance_count_present ? 4 : 0;
      len += h.start_present ? 4 : 0;
      len += h.unk_1_present ? 8 : 0;
      len += h.indirect_buffer_present ? 8 : 0;
      len += h.unk_2_present ? 4 : 0;
      len += h.index_buffer_size_present ? 4 : 0;
      if (!need(d, va, got, len))
         return stop;
      if (d->o->raw)
         hexdump(d->fp, 2, va, p, len);
      DUMP(d, index_list, p, 2);
      const uint8_t *w = p + AGX_INDEX_LIST_LENGTH;
#define IDX_WORD(present, T, label, len)                                     \
   if (present) {                                                            \
      out(d, "  %s\n", label);                                       \
      DUMP(d, T, w, 4);                                                      \
      w += (len);                                                            \
   }
      IDX_WORD(h.index_buffer_present, index_list_buffer_lo, "Index buffer",
               AGX_INDEX_LIST_BUFFER_LO_LENGTH);
      IDX_WORD(h.index_count_present, index_list_count, "Index count",
               AGX_INDEX_LIST_COUNT_LENGTH);
      IDX_WORD(h.instance_count_present, index_list_instances,
               "Instance count", AGX_INDEX_LIST_INSTANCES_LENGTH);
      IDX_WORD(h.start_present, index_list_start, "Start",
               AGX_INDEX_LIST_START_LENGTH);
      if (h.unk_1_present) {
         out(d, "  Unknown 1\n");
         hexdump(d->fp, 4, va + (uint64_t)(w - p), w, 8);
         w += 8;
      }
      IDX_WORD(h.indirect_buffer_present, index_list_indirect_buffer,
               "Indirect buffer", AGX_INDEX_LIST_INDIRECT_BUFFER_LENGTH);
      if (h.unk_2_present) {
         out(d, "  Unknown 2\n");
         hexdump(d->fp, 4, va + (uint64_t)(w - p), w, 4);
         w += 4;
      }
      IDX_WORD(h.index_buffer_size_present, index_list_buffer_size,
               "Index buffer size", AGX_INDEX_LIST_BUFFER_SIZE_LENGTH);
#undef IDX_WORD
      if (d->v && d->v->draw) {
         struct agx_decode_draw_ref ref = { .kind = AGX_DECODE_VDM, .va = va };
         /* The count word follows the buffer word; an indirect draw takes
          * its count from memory, so rewriting the word would not stop it. */
         if (h.index_count_present && !h.indirect_buffer_present) {
            size_t at = AGX_INDEX_LIST_LENGTH +
                        (h.index_buffer_present ? AGX_INDEX_LIST_BUFFER_LO_LENGTH : 0);
            agx_unpack(p + at, INDEX_LIST_COUNT, cnt);
            ref.count_va = va + at;
            ref.count[0] = cnt.count;
         }
         d->v->draw(d->v->ctx, &ref);
      }
      return (struct step){ STEP_NEXT, len, 0 };
   }
   case AGX_VDM_BLOCK_TYPE_STREAM_LINK: {
      if (!need(d, va, got, AGX_VDM_STREAM_LINK_LENGTH))
         return stop;
      DUMP(d, vdm_stream_link, p, 2);
      agx_unpack(p, VDM_STREAM_LINK, l);
      uint64_t target = ((uint64_t)l.target_hi << 32) | l.target_lo;
      return (struct step){ l.with_return ? STEP_CALL : STEP_JUMP,
                            AGX_VDM_STREAM_LINK_LENGTH, target };
   }
   case AGX_VDM_BLOCK_TYPE_STREAM_TERMINATE:
      if (!need(d, va, got, AGX_VDM_STREAM_TERMINATE_LENGTH))
         return stop;
      DUMP(d, vdm_stream_terminate, p, 2);
      return (struct step){ STEP_DONE, 0, 0 };
   default: /* Tessellate: the word layout is not reliably known yet. */
      hexdump(d->fp, 2, va, p, got < 8 ? got : 8);
      xxx(d, 2, "%s blocks are not decoded, stream decode stops", name);
      return stop;
   }
}

static struct step
cdm_block(struct dctx *d, uint64_t va, const uint8_t *p, size_t got)
{
   const struct step stop = { .kind = STEP_STOP };
   unsigned type = p[3] >> 5;
   const char *name = agx_cdm_block_type_as_str(type);

   if (!name) {
      unknown_block(d, va, p, got, "CDM", type);
      return stop;
   }
   out(d, "0x%010" PRIx64 ": %s\n", va, name);

   switch (type) {
   case AGX_CDM_BLOCK_TYPE_LAUNCH: {
      agx_unpack(p, CDM_LAUNCH_WORD_0, w0);
      size_t len = AGX_CDM_LAUNCH_WORD_0_LENGTH + AGX_CDM_LAUNCH_WORD_1_LENGTH;
      switch (w0.mode) {
      case AGX_CDM_MODE_DIRECT:
         len += AGX_CDM_GLOBAL_SIZE_LENGTH + AGX_CDM_LOCAL_SIZE_LENGTH;
         break;
      case AGX_CDM_MODE_INDIRECT_GLOBAL:
         len += AGX_CDM_INDIRECT_LENGTH + AGX_CDM_LOCAL_SIZE_LENGTH;
         break;
      case AGX_CDM_MODE_INDIRECT_LOCAL:
         len += AGX_CDM_INDIRECT_LENGTH;
         break;
      default:
         DUMP(d, cdm_launch_word_0, p, 2);
         xxx(d, 2, "unknown launch mode %u, stream decode stops",
             (unsigned)w0.mode);
         return stop;
      }
      if (!need(d, va, got, len))
         return stop;
      if (d->o->raw)
         hexdump(d->fp, 2, va, p, len);
      DUMP(d, cdm_launch_word_0, p, 2);
      DUMP(d, cdm_launch_word_1, p + 4, 2);
      agx_unpack(p + 4, CDM_LAUNCH_WORD_1, w1);
      const uint8_t *w = p + 8;
      if (w0.mode != AGX_CDM_MODE_DIRECT) {
         out(d, "  Indirect buffer\n");
         DUMP(d, cdm_indirect, w, 4);
         w += AGX_CDM_INDIRECT_LENGTH;
      } else {
         out(d, "  Global size\n");
         DUMP(d, cdm_global_size, w, 4);
         w += AGX_CDM_GLOBAL_SIZE_LENGTH;
      }
      if (w0.mode != AGX_CDM_MODE_INDIRECT_LOCAL) {
         out(d, "  Local size\n");
         DUMP(d, cdm_local_size, w, 4);
      }
      pipeline(d, 2, "Compute pipeline", (uint32_t)w1.pipeline,
               AGX_DECODE_STAGE_COMPUTE);
      if (d->v && d->v->draw) {
         struct agx_decode_draw_ref ref = { .kind = AGX_DECODE_CDM, .va = va };
         if (w0.mode == AGX_CDM_MODE_DIRECT) {
            size_t at = AGX_CDM_LAUNCH_WORD_0_LENGTH + AGX_CDM_LAUNCH_WORD_1_LENGTH;
            agx_unpack(p + at, CDM_GLOBAL_SIZE, g);
            ref.count_va = va + at;
            ref.count[0] = g.x, ref.count[1] = g.y, ref.count[2] = g.z;
         }
         d->v->draw(d->v->ctx, &ref);
      }
      return (struct step){ STEP_NEXT, len, 0 };
   }
   case AGX_CDM_BLOCK_TYPE_STREAM_LINK: {
      if (!need(d, va, got, AGX_CDM_STREAM_LINK_LENGTH))
         return stop;
      DUMP(d, cdm_stream_link, p, 2);
      agx_unpack(p, CDM_STREAM_LINK, l);
      uint64_t target = ((uint64_t)l.target_hi << 32) | l.target_lo;
      return (struct step){ l.with_return ? STEP_CALL : STEP_JUMP,
                            AGX_CDM_STREAM_LINK_LENGTH, target };
   }
   case AGX_CDM_BLOCK_TYPE_STREAM_TERMINATE:
      if (!need(d, va, got, AGX_CDM_STREAM_TERMINATE_LENGTH))
         return stop;
      DUMP(d, cdm_stream_terminate, p, 2);
      return (struct step){ STEP_DONE, 0, 0 };
   default: { /* Barrier */
      DUMP(d, cdm_barrier, p, 2);
      agx_unpack(p, CDM_BARRIER, b);
      if (b.returns)
         return (struct step){ STEP_RETURN, 0, 0 };
      return (struct step){ STEP_NEXT, AGX_CDM_BARRIER_LENGTH, 0 };
   }
   }
}

/* Records (va, call context); returns false if it was already there, which
 * means the stream loops. The context is the depth and the return address,
 * so a subroutine called from two places is not mistaken for a loop. */
static size_t
seen_slot(uint64_t va, unsigned depth, uint64_t ret, size_t cap)
{
   uint64_t h = (va ^ (ret * 0x9e3779b97f4a7c15ull) ^ depth) * 0xff51afd7ed558ccdull;
   return (size_t)(h >> 17) & (cap - 1);
}

static bool
visit(struct dctx *d, uint64_t va, unsigned depth, uint64_t ret)
{
   /* at most half full; a table that cannot grow keeps working fuller
    * (walk() stops at max_blocks, before it could fill up) */
   if ((d->seen_used + 1) * 2 > d->seen_cap) {
      size_t ncap = d->seen_cap * 2;
      struct seen_entry *n = calloc(ncap, sizeof(*n));
      if (n) {
         for (size_t j = 0; j < d->seen_cap; j++) {
            const struct seen_entry *o = &d->seen[j];
            if (!o->used)
               continue;
            size_t k = seen_slot(o->va, o->depth, o->ret, ncap);
            while (n[k].used)
               k = (k + 1) & (ncap - 1);
            n[k] = *o;
         }
         free(d->seen);
         d->seen = n;
         d->seen_cap = ncap;
      }
   }
   size_t mask = d->seen_cap - 1;
   for (size_t i = seen_slot(va, depth, ret, d->seen_cap);; i = (i + 1) & mask) {
      struct seen_entry *e = &d->seen[i];
      if (!e->used) {
         if (d->seen_used + 1 >= d->seen_cap)
            return false;   /* full (no memory to grow): stop as for a loop */
         *e = (struct seen_entry){ va, ret, depth, true };
         d->seen_used++;
         return true;
      }
      if (e->va == va && e->ret == ret && e->depth == depth)
         return false;
   }
}

static void
walk(struct dctx *d, enum agx_decode_stream_kind kind, uint64_t va)
{
   uint64_t stack[64];
   unsigned depth = 0;
   const char *stream = kind == AGX_DECODE_CDM ? "CDM" : "VDM";

   out(d, "%s stream at 0x%" PRIx64 "\n", stream, va);

   for (unsigned steps = 0;; steps++) {
      if (stopped(d))
         return;
      if (steps >= d->max_blocks) {
         xxx(d, 0, "stopping after %u blocks (limit)", d->max_blocks);
         return;
      }
      if (!visit(d, va, depth, depth ? stack[depth - 1] : 0)) {
         xxx(d, 0, "block at 0x%" PRIx64 " already decoded in this call "
             "context: the stream loops", va);
         return;
      }

      uint8_t buf[MAX_BLOCK_BYTES];
      size_t got = fetch(d, va, buf, sizeof(buf));
      if (got < 4) {
         xxx(d, 0, "stream block at 0x%" PRIx64 " is unmapped", va);
         return;
      }

      d->res->blocks++;
      struct step s = kind == AGX_DECODE_CDM ? cdm_block(d, va, buf, got)
                                             : vdm_block(d, va, buf, got);
      switch (s.kind) {
      case STEP_NEXT:
         va += s.len;
         break;
      case STEP_JUMP:
         out(d, "  -> jump to 0x%" PRIx64 "\n", s.target);
         va = s.target;
         break;
      case STEP_CALL:
         if (depth >= d->max_depth) {
            xxx(d, 2, "call to 0x%" PRIx64 " exceeds the nesting limit %u",
                s.target, d->max_depth);
            return;
         }
         out(d, "  -> call 0x%" PRIx64 " (depth %u)\n", s.target,
                 depth + 1);
         stack[depth++] = va + s.len;
         va = s.target;
         break;
      case STEP_RETURN:
         if (depth == 0) {
            xxx(d, 2, "return with an empty call stack");
            return;
         }
         va = stack[--depth];
         out(d, "  <- return to 0x%" PRIx64 "\n", va);
         break;
      case STEP_DONE:
         if (depth != 0)
            xxx(d, 2, "terminate inside a call (depth %u)", depth);
         else
            d->res->terminated = true;
         return;
      case STEP_STOP:
         return;
      }
   }
}

/* ------------------------------------------------------------ entry */

typedef void (*body_fn)(struct dctx *d, const void *arg);

/* fp is NULL in visitor mode (v set): the text sink then drops everything,
 * so the walk is exactly the printer's, minus the output limit. */
static bool
run(FILE *fp, const struct agx_decode_options *opts,
    struct agx_decode_result *res, body_fn body, const void *arg,
    bool need_seen, const struct agx_decode_visitor *v)
{
   struct agx_decode_result local;
   struct bounded_out out = {
      .real = fp,
      .left = v ? SIZE_MAX
                : opts->max_output ? opts->max_output : DEFAULT_MAX_OUTPUT,
   };
   struct dctx d = {
      .o = opts,
      .res = res ? res : &local,
      .max_depth = opts->max_depth ? opts->max_depth : DEFAULT_MAX_DEPTH,
      .max_blocks = opts->max_blocks ? opts->max_blocks : DEFAULT_MAX_BLOCKS,
      .max_shader = opts->max_shader_bytes ? opts->max_shader_bytes
                                           : DEFAULT_MAX_SHADER,
      .v = v,
   };
   memset(d.res, 0, sizeof(*d.res));
   if (d.max_depth > 64)
      d.max_depth = 64;
   if (d.max_blocks > (1u << 24))
      d.max_blocks = 1u << 24;

   if (!opts->read) {
      if (fp)
         fprintf(fp, "XXX: no memory reader given\n");
      d.res->errors++;
      return false;
   }

   if (need_seen) {
      /* Grown by visit(): a walk allocating (and zeroing) room for
       * max_blocks up front cost more than the walk of a short stream. */
      d.seen_cap = 256;
      d.seen = calloc(d.seen_cap, sizeof(*d.seen));
      if (!d.seen) {
         if (fp)
            fprintf(fp, "XXX: out of memory\n");
         d.res->errors++;
         return false;
      }
   }

   cookie_io_functions_t io = { .write = bounded_write };
   d.out = &out;
   d.fp = v ? NULL : fopencookie(&out, "w", io);
   if (v) {
      d.out = NULL;   /* visitor mode: no text at all (out()) */
   } else if (!d.fp && !fp) {
      d.res->errors++;
      free(d.seen);
      return false;
   } else if (!d.fp) {
      /* Unbounded, but still correct. */
      d.out = NULL;
      d.fp = fp;
   } else {
      setvbuf(d.fp, NULL, _IOFBF, 4096);
   }

   body(&d, arg);

   if (d.out)
      fclose(d.fp);
   if (fp)
      fflush(fp);
   d.res->truncated = out.truncated;
   free(d.seen);
   return d.res->errors == 0;
}

struct stream_arg {
   enum agx_decode_stream_kind kind;
   uint64_t va;
};

static void
stream_body(struct dctx *d, const void *arg)
{
   const struct stream_arg *a = arg;
   walk(d, a->kind, a->va);
}

bool
agx_decode_stream(FILE *fp, const struct agx_decode_options *opts,
                  enum agx_decode_stream_kind kind, uint64_t gpu_va,
                  struct agx_decode_result *res)
{
   struct agx_decode_result local;
   struct stream_arg a = { kind, gpu_va };
   if (!res)
      res = &local;
   bool ok = run(fp, opts, res, stream_body, &a, true, NULL);
   return ok && res->terminated;
}

struct pipeline_arg {
   uint32_t offset;
   enum agx_decode_stage stage;
};

static void
pipeline_body(struct dctx *d, const void *arg)
{
   const struct pipeline_arg *a = arg;
   pipeline(d, 0, "Pipeline", a->offset, a->stage);
}

bool
agx_decode_pipeline(FILE *fp, const struct agx_decode_options *opts,
                    uint32_t usc_offset, struct agx_decode_result *res)
{
   struct pipeline_arg a = { usc_offset, AGX_DECODE_STAGE_UNKNOWN };
   return run(fp, opts, res, pipeline_body, &a, false, NULL);
}

struct ppp_arg {
   uint64_t va;
   size_t size;
};

static void
ppp_body(struct dctx *d, const void *arg)
{
   const struct ppp_arg *a = arg;
   ppp_record(d, 0, a->va, a->size);
}

bool
agx_decode_ppp_record(FILE *fp, const struct agx_decode_options *opts,
                      uint64_t gpu_va, size_t size_bytes,
                      struct agx_decode_result *res)
{
   struct ppp_arg a = { gpu_va, size_bytes };
   return run(fp, opts, res, ppp_body, &a, false, NULL);
}

/* ------------------------------------------------------------ visitor */

static const char *const stage_names[] = {
   [AGX_DECODE_STAGE_UNKNOWN] = "unknown",
   [AGX_DECODE_STAGE_VERTEX] = "vertex",
   [AGX_DECODE_STAGE_FRAGMENT] = "fragment",
   [AGX_DECODE_STAGE_COMPUTE] = "compute",
   [AGX_DECODE_STAGE_BG] = "bg",
   [AGX_DECODE_STAGE_EOT] = "eot",
   [AGX_DECODE_STAGE_PARTIAL_BG] = "partial-bg",
   [AGX_DECODE_STAGE_PARTIAL_EOT] = "partial-eot",
   [AGX_DECODE_STAGE_HELPER] = "helper",
};

const char *
agx_decode_stage_name(enum agx_decode_stage stage)
{
   if ((unsigned)stage >= sizeof(stage_names) / sizeof(stage_names[0]))
      return "?";
   return stage_names[stage];
}

bool
agx_decode_visit_stream(const struct agx_decode_options *opts,
                        enum agx_decode_stream_kind kind, uint64_t gpu_va,
                        const struct agx_decode_visitor *v,
                        struct agx_decode_result *res)
{
   static const struct agx_decode_visitor none = { 0 };
   struct agx_decode_result local;
   struct stream_arg a = { kind, gpu_va };
   if (!res)
      res = &local;
   bool ok = run(NULL, opts, res, stream_body, &a, true, v ? v : &none);
   return ok && res->terminated;
}

bool
agx_decode_visit_pipeline(const struct agx_decode_options *opts,
                          uint32_t usc_offset, enum agx_decode_stage stage,
                          const struct agx_decode_visitor *v,
                          struct agx_decode_result *res)
{
   static const struct agx_decode_visitor none = { 0 };
   struct pipeline_arg a = { usc_offset, stage };
   return run(NULL, opts, res, pipeline_body, &a, false, v ? v : &none);
}

/* Signed byte offset of a branch/call instruction's target, if it is one. */
static bool
branch_offset(const struct agx_instr *in, int64_t *off)
{
   if (in->op != AGX_OP_JMP_EXEC_ANY && in->op != AGX_OP_JMP_EXEC_NONE &&
       in->op != AGX_OP_CALL)
      return false;
   for (unsigned i = 0; i < in->num_operands; i++) {
      const char *n = agx_isa_op_operand_name(in->op, i);
      if (n && !strcmp(n, "off")) {
         *off = in->operands[i].imm;
         return true;
      }
   }
   return false;
}

size_t
agx_decode_shader_size(const struct agx_decode_options *opts, uint64_t gpu_va,
                       size_t max_bytes, const char **why)
{
   const char *dummy;
   if (!why)
      why = &dummy;
   *why = NULL;
   if (!max_bytes)
      max_bytes = 64 * 1024;
   if (!opts || !opts->read) {
      *why = "no memory reader";
      return 0;
   }

   /* Read in growing windows: most shaders are far smaller than the
    * limit, and reading (copying) 64 KiB per shader is what would cost. */
   size_t cap = max_bytes < 1024 ? max_bytes : 1024, have = 0;
   uint8_t *code = malloc(cap);
   if (!code) {
      *why = "out of memory";
      return 0;
   }
   have = opts->read(opts->read_ctx, gpu_va, code, cap);
   if (have > cap)
      have = cap;

   size_t off = 0, size = 0;
   int64_t reach = 0;
   struct agx_instr in;
   for (;;) {
      /* Grow the window when the next instruction may cross its end. */
      if (have - off < AGX_ISA_MAX_BYTES && have == cap && cap < max_bytes) {
         size_t ncap = cap * 4 < max_bytes ? cap * 4 : max_bytes;
         uint8_t *n = realloc(code, ncap);
         if (!n) {
            *why = "out of memory";
            break;
         }
         code = n;
         size_t got = opts->read(opts->read_ctx, gpu_va + cap, code + cap,
                                 ncap - cap);
         have = cap + (got > ncap - cap ? ncap - cap : got);
         cap = ncap;
         continue;
      }
      if (off >= have) {
         *why = have == 0          ? "code is unmapped"
                : off >= max_bytes ? "no end within the size limit"
                                   : "code runs into unmapped memory";
         break;
      }
      enum agx_isa_status st = agx_isa_decode(code + off, have - off, &in);
      if (st != AGX_ISA_OK) {
         *why = st != AGX_ISA_TRUNCATED ? "undecodable instruction"
                : have == max_bytes     ? "no end within the size limit"
                                        : "code runs into unmapped memory";
         break;
      }
      int64_t rel;
      if (branch_offset(&in, &rel) && (int64_t)off + rel > reach)
         reach = (int64_t)off + rel;
      off += in.length;
      if ((in.op == AGX_OP_STOP || in.op == AGX_OP_RET) &&
          (int64_t)off > reach) {
         size = off;
         break;
      }
      if (off >= max_bytes) {
         *why = "no end within the size limit";
         break;
      }
   }
   free(code);
   return size;
}
