/* SPDX-License-Identifier: MIT */
/*
 * The trace summary (`tessera info`): see trace/trace_summary.h. Counting
 * first (tsr_summary_read), then the two printed forms.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_dump.h"
#include "trace/trace_summary.h"
#include "uapi/uapi_cmdbuf.h"
#include "uapi/uapi_shaders.h"

static const char *const cmd_names[6] = {"render", "compute", "vertex_attachments",
                                         "fragment_attachments", "compute_attachments",
                                         "unknown"};

void tsr_summary_print_shaders(FILE *fp, struct tsr_reader *r)
{
   struct tsr_record rec;
   if (tsr_reader_rewind(r))
      return;
   fprintf(fp, "shader index:\n");
   fprintf(fp, "  %-14s %8s  %-11s %-32s %s\n", "address", "size", "stage", "hash", "first submit");
   while (tsr_reader_next(r, &rec) > 0) {
      if (rec.type != TSR_REC_SHADER)
         continue;
      const struct tsr_shader *sh = &rec.u.shader;
      fprintf(fp, "  0x%012" PRIx64 " %8u  %-11s ", sh->va, sh->size, uapi_shader_stage_name(sh->stage));
      tsr_dump_hash(fp, &sh->hash);
      fprintf(fp, " %u\n", sh->seq);
   }
}

static void note_time(struct tsr_summary *s, uint64_t ns)
{
   if (!ns)
      return;
   if (!s->have_time || ns < s->first_ns)
      s->first_ns = ns;
   if (!s->have_time || ns > s->last_ns)
      s->last_ns = ns;
   s->have_time = true;
}

static void count_commands(struct tsr_summary *s, const struct tsr_submit *sub)
{
   struct uapi_cmd_iter it;
   struct uapi_cmd c;
   uapi_cmd_iter_init(&it, sub->cmdbuf, sub->cmdbuf_size);
   while (uapi_cmd_next(&it, &c))
      s->cmds[c.known ? c.h.cmd_type : 5]++;
   /* A command whose payload is cut off still counts by its header. */
   if (it.status == UAPI_CMDBUF_SHORT_PAYLOAD)
      s->cmds[c.known ? c.h.cmd_type : 5]++;
}

/* A set of page hashes (their low 64 bits: xxh3-128 halves are as good as
 * any key), open addressing, to tell first references from repeats. */
struct page_set {
   uint64_t *v;
   size_t n, cap;
};

static bool page_set_add(struct page_set *ps, const uint8_t *hash)
{
   uint64_t k;
   memcpy(&k, hash, 8);
   k |= 1; /* 0 marks a free slot */
   if (2 * (ps->n + 1) > ps->cap) {
      size_t ncap = ps->cap ? ps->cap * 2 : 1024;
      uint64_t *nv = calloc(ncap, sizeof(*nv));
      if (!nv)
         return false; /* counted as a repeat: the summary stays usable */
      for (size_t i = 0; i < ps->cap; i++)
         if (ps->v[i])
            for (size_t j = ps->v[i] & (ncap - 1);; j = (j + 1) & (ncap - 1))
               if (!nv[j]) {
                  nv[j] = ps->v[i];
                  break;
               }
      free(ps->v);
      ps->v = nv;
      ps->cap = ncap;
   }
   for (size_t j = k & (ps->cap - 1);; j = (j + 1) & (ps->cap - 1)) {
      if (ps->v[j] == k)
         return false;
      if (!ps->v[j]) {
         ps->v[j] = k;
         ps->n++;
         return true;
      }
   }
}

static int cmp_u64(const void *a, const void *b)
{
   uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
   return x < y ? -1 : x > y;
}

int tsr_summary_read(struct tsr_summary *s, struct tsr_reader *r)
{
   *s = (struct tsr_summary){.info = tsr_reader_info(r), .damage = tsr_reader_damage(r)};
   struct tsr_record rec;
   int ret;
   struct page_set ps = {0};
   uint64_t *frame_bytes = NULL;
   size_t nframes = 0, frames_cap = 0;
   while ((ret = tsr_reader_next(r, &rec)) > 0) {
      uint64_t bytes = 16 + (((uint64_t)rec.size + 7) & ~(uint64_t)7);
      if (rec.type < TSR_REC_COUNT_) {
         s->type_records[rec.type]++;
         s->type_bytes[rec.type] += bytes;
      }
      if (rec.type == TSR_REC_MEMORY) {
         s->page_refs += rec.u.memory.num_pages;
         for (uint32_t i = 0; i < rec.u.memory.num_pages; i++)
            if (page_set_add(&ps, rec.u.memory.hashes + 16 * (size_t)i)) {
               s->new_pages++;
               bytes += s->info->page_size;
            }
      }
      if (rec.frame >= frames_cap) {
         size_t ncap = frames_cap ? frames_cap : 64;
         while (ncap <= rec.frame)
            ncap *= 2;
         uint64_t *nf = realloc(frame_bytes, ncap * sizeof(*nf));
         if (nf) {
            memset(nf + frames_cap, 0, (ncap - frames_cap) * sizeof(*nf));
            frame_bytes = nf;
            frames_cap = ncap;
         }
      }
      if (rec.frame < frames_cap) {
         frame_bytes[rec.frame] += bytes;
         if (rec.frame + 1 > nframes)
            nframes = rec.frame + 1;
      }
      switch (rec.type) {
      case TSR_REC_META:
         /* one per keyframe: counted, not listed (they would fill the
          * list on a long trace) */
         if (!strcmp(rec.u.meta.key, TSR_META_KEYFRAME)) {
            s->keyframes++;
            break;
         }
         if (!strcmp(rec.u.meta.key, TSR_META_CPU_OVERWRITE)) {
            s->cpu_overwrites++;
            break;
         }
         if (s->nmeta < TSR_SUMMARY_MAX_META) {
            char *k = strdup(rec.u.meta.key), *v = strdup(rec.u.meta.value);
            if (k && v) {
               s->meta_key[s->nmeta] = k;
               s->meta_val[s->nmeta++] = v;
            } else {
               free(k);
               free(v);
            }
         }
         break;
      case TSR_REC_DRIVER:
         snprintf(s->driver, sizeof(s->driver), "%s %d.%d.%d (%s)", rec.u.driver.name,
                  rec.u.driver.major, rec.u.driver.minor, rec.u.driver.patchlevel,
                  rec.u.driver.date);
         break;
      case TSR_REC_DEVICE_PARAMS:
         s->params = *rec.u.params.p;
         s->have_params = true;
         break;
      case TSR_REC_GEM_CREATE:
         s->objects++;
         s->object_bytes += rec.u.gem_create.size;
         break;
      case TSR_REC_VM_CREATE:
         s->vms++;
         break;
      case TSR_REC_VM_BIND:
         s->binds += rec.u.vm_bind.num_ops;
         break;
      case TSR_REC_QUEUE_CREATE:
         s->queues++;
         break;
      case TSR_REC_SUBMIT:
         count_commands(s, &rec.u.submit);
         if (rec.u.submit.result)
            s->failed_submits++;
         note_time(s, rec.u.submit.cpu_time_ns);
         break;
      case TSR_REC_COMPLETION:
         s->completions++;
         if (rec.u.completion.status)
            s->failed_completions++;
         note_time(s, rec.u.completion.cpu_time_ns);
         break;
      case TSR_REC_FW_JOB:
         s->fw_jobs++;
         break;
      case TSR_REC_SHADER:
         s->shaders++;
         break;
      default:
         break;
      }
   }
   free(ps.v);
   if (nframes)
      s->frame0_bytes = frame_bytes[0];
   if (nframes > 1) {
      s->later_frames = nframes - 1;
      qsort(frame_bytes + 1, nframes - 1, sizeof(*frame_bytes), cmp_u64);
      s->later_median_bytes = frame_bytes[1 + (nframes - 1) / 2];
      s->later_max_bytes = frame_bytes[nframes - 1];
   }
   free(frame_bytes);
   return ret < 0 ? -1 : 0;
}

void tsr_summary_free(struct tsr_summary *s)
{
   for (unsigned i = 0; i < s->nmeta; i++) {
      free(s->meta_key[i]);
      free(s->meta_val[i]);
   }
   s->nmeta = 0;
}

static void json_str(FILE *fp, const char *v)
{
   fputc('"', fp);
   for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
      if (*p == '"' || *p == '\\')
         fprintf(fp, "\\%c", *p);
      else if (*p < 0x20)
         fprintf(fp, "\\u%04x", *p);
      else
         fputc(*p, fp);
   }
   fputc('"', fp);
}

static const char *meta(const struct tsr_summary *s, const char *key)
{
   for (unsigned i = 0; i < s->nmeta; i++)
      if (!strcmp(s->meta_key[i], key))
         return s->meta_val[i];
   return NULL;
}

void tsr_summary_print_text(FILE *fp, const char *path, const struct tsr_summary *s,
                            char **children)
{
   const struct tsr_info *in = s->info;
   fprintf(fp, "file:         %s\n", path);
   fprintf(fp, "format:       version %u.%u, %s%s\n", in->version_major, in->version_minor,
           in->indexed ? "indexed" : "no index (forward scan)",
           in->truncated ? ", TRUNCATED (read up to the last whole chunk)" : "");
   if (in->damage)
      fprintf(fp, "damage:       %llu problem(s), first: %s\n", (unsigned long long)in->damage,
              s->damage);
   if (s->have_params) {
      const struct drm_asahi_params_global *p = &s->params;
      fprintf(fp, "device:       G%u%c rev 0x%02x, chip 0x%x, %u cluster(s) x %u cores\n",
              p->gpu_generation, (char)p->gpu_variant, p->gpu_revision, p->chip_id,
              p->num_clusters_total, p->num_cores_per_cluster);
   } else {
      fprintf(fp, "device:       (no device parameters recorded)\n");
   }
   fprintf(fp, "driver:       %s\n", s->driver[0] ? s->driver : "(unknown)");
   const char *prog = meta(s, "program"), *pid = meta(s, "pid");
   fprintf(fp, "program:      %s%s%s%s\n", prog ? prog : "(unknown)", pid ? " (pid " : "",
           pid ? pid : "", pid ? ")" : "");
   for (unsigned i = 0; i < s->nmeta; i++) {
      if (!strcmp(s->meta_key[i], "program") || !strcmp(s->meta_key[i], "pid"))
         continue;
      /* One line per key: argv's '\n' separators become spaces. */
      fprintf(fp, "meta:         %s = ", s->meta_key[i]);
      for (const char *c = s->meta_val[i]; *c; c++)
         fputc(*c == '\n' ? ' ' : *c, fp);
      fputc('\n', fp);
   }
   fprintf(fp, "frames:       %" PRIu64 "\n", in->frames);
   if (s->keyframes)
      fprintf(fp, "keyframes:    %" PRIu64 " (GPU-written memory recorded only there)\n",
              s->keyframes);
   if (s->cpu_overwrites)
      fprintf(fp, "cpu writes:   %" PRIu64 " over GPU-written pages between keyframes "
              "(unverifiable by --validate)\n", s->cpu_overwrites);
   fprintf(fp, "submissions:  %" PRIu64 " (%" PRIu64 " failed)\n", in->submits, s->failed_submits);
   fprintf(fp, "commands:    ");
   for (int i = 0; i < 6; i++)
      if (s->cmds[i])
         fprintf(fp, " %s %" PRIu64, cmd_names[i], s->cmds[i]);
   fprintf(fp, "\n");
   fprintf(fp, "completions:  %" PRIu64 " (%" PRIu64 " with errors)\n", s->completions,
           s->failed_completions);
   fprintf(fp, "objects:      %" PRIu64 " GEM objects, %" PRIu64 " bytes; %" PRIu64
               " VMs, %" PRIu64 " binds; %" PRIu64 " queues\n",
           s->objects, s->object_bytes, s->vms, s->binds, s->queues);
   fprintf(fp, "pages:        %" PRIu64 " unique (%u bytes each)\n", in->pages, in->page_size);
   fprintf(fp, "shaders:      %" PRIu64 "\n", s->shaders);
   fprintf(fp, "fw jobs:      %" PRIu64 "\n", s->fw_jobs);
   fprintf(fp, "records:      %" PRIu64 " in %" PRIu64 " chunks\n", in->records, in->chunks);
   fprintf(fp, "size:         %" PRIu64 " bytes in file, %" PRIu64 " raw, ratio %.2f\n",
           in->file_size, in->raw_bytes,
           in->stored_bytes ? (double)in->raw_bytes / (double)in->stored_bytes : 0.0);
   fprintf(fp, "bytes by type (raw, before compression):\n");
   for (uint32_t t = 0; t < TSR_REC_COUNT_; t++)
      if (s->type_records[t])
         fprintf(fp, "  %-14s %8" PRIu64 " records %12" PRIu64 " bytes\n", tsr_record_name(t),
                 s->type_records[t], s->type_bytes[t]);
   fprintf(fp, "  %-14s %8" PRIu64 " pages   %12" PRIu64 " bytes (%" PRIu64
               " page references)\n",
           "page contents", s->new_pages, s->new_pages * in->page_size, s->page_refs);
   fprintf(fp, "frame bytes:  frame 0 %" PRIu64 ", later %" PRIu64 " frames: median %" PRIu64
               ", max %" PRIu64 " (raw: records + new pages)\n",
           s->frame0_bytes, s->later_frames, s->later_median_bytes, s->later_max_bytes);
   if (s->have_time)
      fprintf(fp, "time span:    %.6f s\n", (double)(s->last_ns - s->first_ns) / 1e9);
   for (char **c = children; c && *c; c++)
      fprintf(fp, "child trace:  %s\n", *c);
}

void tsr_summary_print_json(FILE *fp, const char *path, const struct tsr_summary *s,
                            char **children)
{
   const struct tsr_info *in = s->info;
   fprintf(fp, "{\"file\": ");
   json_str(fp, path);
   fprintf(fp, ", \"version\": \"%u.%u\", \"indexed\": %s, \"truncated\": %s",
           in->version_major, in->version_minor, in->indexed ? "true" : "false",
           in->truncated ? "true" : "false");
   fprintf(fp, ", \"damage\": %llu", (unsigned long long)in->damage);
   if (in->damage) {
      fprintf(fp, ", \"first_damage\": ");
      json_str(fp, s->damage);
   }
   if (s->have_params) {
      const struct drm_asahi_params_global *p = &s->params;
      fprintf(fp, ", \"device\": {\"generation\": %u, \"variant\": \"%c\", \"revision\": %u, "
                  "\"chip_id\": %u, \"clusters\": %u, \"cores_per_cluster\": %u}",
              p->gpu_generation, (char)(p->gpu_variant >= 0x20 && p->gpu_variant < 0x7f
                                            ? p->gpu_variant : '?'),
              p->gpu_revision, p->chip_id, p->num_clusters_total, p->num_cores_per_cluster);
   }
   fprintf(fp, ", \"driver\": ");
   json_str(fp, s->driver);
   fprintf(fp, ", \"meta\": {");
   for (unsigned i = 0; i < s->nmeta; i++) {
      fprintf(fp, "%s", i ? ", " : "");
      json_str(fp, s->meta_key[i]);
      fprintf(fp, ": ");
      json_str(fp, s->meta_val[i]);
   }
   fprintf(fp, "}, \"frames\": %" PRIu64 ", \"submissions\": %" PRIu64
               ", \"failed_submissions\": %" PRIu64 ", \"commands\": {",
           in->frames, in->submits, s->failed_submits);
   bool first = true;
   for (int i = 0; i < 6; i++) {
      if (!s->cmds[i])
         continue;
      fprintf(fp, "%s\"%s\": %" PRIu64, first ? "" : ", ", cmd_names[i], s->cmds[i]);
      first = false;
   }
   fprintf(fp, "}, \"completions\": %" PRIu64 ", \"objects\": %" PRIu64
               ", \"object_bytes\": %" PRIu64 ", \"vms\": %" PRIu64 ", \"binds\": %" PRIu64
               ", \"queues\": %" PRIu64 ", \"unique_pages\": %" PRIu64 ", \"page_size\": %u"
               ", \"shaders\": %" PRIu64 ", \"fw_jobs\": %" PRIu64 ", \"records\": %" PRIu64
               ", \"chunks\": %" PRIu64 ", \"file_bytes\": %" PRIu64 ", \"raw_bytes\": %" PRIu64
               ", \"stored_bytes\": %" PRIu64 ", \"ratio\": %.4f",
           s->completions, s->objects, s->object_bytes, s->vms, s->binds, s->queues, in->pages,
           in->page_size, s->shaders, s->fw_jobs, in->records, in->chunks, in->file_size,
           in->raw_bytes, in->stored_bytes,
           in->stored_bytes ? (double)in->raw_bytes / (double)in->stored_bytes : 0.0);
   fprintf(fp, ", \"bytes_by_type\": {");
   first = true;
   for (uint32_t t = 0; t < TSR_REC_COUNT_; t++) {
      if (!s->type_records[t])
         continue;
      fprintf(fp, "%s\"%s\": {\"records\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
              first ? "" : ", ", tsr_record_name(t), s->type_records[t], s->type_bytes[t]);
      first = false;
   }
   fprintf(fp, "}, \"keyframes\": %" PRIu64 ", \"cpu_overwrites\": %" PRIu64, s->keyframes,
           s->cpu_overwrites);
   fprintf(fp, ", \"page_content_bytes\": %" PRIu64 ", \"page_refs\": %" PRIu64
               ", \"frame0_bytes\": %" PRIu64 ", \"later_frames\": %" PRIu64
               ", \"later_frame_median_bytes\": %" PRIu64 ", \"later_frame_max_bytes\": %" PRIu64,
           s->new_pages * in->page_size, s->page_refs, s->frame0_bytes, s->later_frames,
           s->later_median_bytes, s->later_max_bytes);
   if (s->have_time)
      fprintf(fp, ", \"time_span_ns\": %" PRIu64, s->last_ns - s->first_ns);
   fprintf(fp, ", \"children\": [");
   for (char **c = children; c && *c; c++) {
      fprintf(fp, "%s", c == children ? "" : ", ");
      json_str(fp, *c);
   }
   fprintf(fp, "]}\n");
}
