/* SPDX-License-Identifier: MIT */
/*
 * tessera report: one HTML page to attach to a bug report. It gathers what
 * the other commands print -- the trace summary of `tessera info`, the
 * shader index with the disassembly of `tessera dump --shader`, the back
 * buffers and per-frame GPU time of `tessera replay --dump-images --timing`
 * on the model -- and compare/'s page writer lays them out. The frames' PNGs
 * and the timing JSON are written beside the page (DIR/frames/,
 * DIR/timing.json), so DIR alone, zipped, is the whole report.
 */
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "compare/compare.h"
#include "replay/replay.h"
#include "trace/trace.h"
#include "trace/trace_dump.h"
#include "trace/trace_summary.h"
#include "uapi/uapi_shaders.h"

static const char usage_text[] =
   "usage: tessera report -o DIR FILE.tsr\n"
   "\n"
   "Writes DIR/index.html: the trace's summary (tessera info), every frame's\n"
   "back buffer as replayed on the model (PNGs in DIR/frames/), the GPU time\n"
   "of each frame (DIR/timing.json), every indexed shader with its\n"
   "disassembly, and the commands that replay the trace. The page has no\n"
   "script and loads nothing from outside DIR.\n"
   "\n"
   "  -o, --output DIR  where to write the report (created if needed)\n"
   "  -h, --help        show this help\n"
   "\n"
   "Exit status: 0 ok; 1 the report was written but the replay failed;\n"
   "2 bad usage, an unreadable or damaged trace, or DIR cannot be written.\n";

struct shader_ref {
   uint64_t va;
   char title[160];
};

/* A memory stream, so the library printers that take a FILE * can fill
 * the page's strings. */
struct membuf {
   char *text;
   size_t size;
   FILE *fp;
};

static bool
membuf_open(struct membuf *m)
{
   m->text = NULL;
   m->size = 0;
   m->fp = open_memstream(&m->text, &m->size);
   return m->fp != NULL;
}

static char *
membuf_close(struct membuf *m)
{
   if (fclose(m->fp) != 0) {
      free(m->text);
      return NULL;
   }
   return m->text;
}

/* "'...'" if s needs quoting for a POSIX shell. */
static void
shell_word(FILE *fp, const char *s)
{
   if (*s && !s[strcspn(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~")]) {
      fputs(s, fp);
      return;
   }
   fputc('\'', fp);
   for (; *s; s++)
      *s == '\'' ? fputs("'\\''", fp) : fputc(*s, fp);
   fputc('\'', fp);
}

/* The frame's back buffer: the colour target written by its last
 * submission that wrote one (lowest target index on ties), as
 * tests/gl/capture.sh pairs them with the live snapshots. Names are the
 * replay's "fFFFF_sSSSSS_colorN.png" (layered targets are skipped). */
static void
pick_images(const char *frames_dir, char **image, unsigned *best_seq, unsigned *best_idx,
            size_t n)
{
   DIR *d = opendir(frames_dir);
   if (!d)
      return;
   struct dirent *e;
   while ((e = readdir(d))) {
      unsigned f, s, idx;
      int end = 0;
      if (sscanf(e->d_name, "f%4u_s%5u_color%u.png%n", &f, &s, &idx, &end) != 3 ||
          end == 0 || e->d_name[end] || f >= n)
         continue;
      if (image[f] && (s < best_seq[f] || (s == best_seq[f] && idx >= best_idx[f])))
         continue;
      free(image[f]);
      size_t len = strlen(e->d_name) + sizeof("frames/");
      image[f] = malloc(len);
      if (image[f])
         snprintf(image[f], len, "frames/%s", e->d_name);
      best_seq[f] = s;
      best_idx[f] = idx;
   }
   closedir(d);
}

/* Removes the PNGs of an earlier report in the same DIR, so that no stale
 * image is shown for a frame this replay did not dump. */
static void
clear_frames(const char *frames_dir)
{
   DIR *d = opendir(frames_dir);
   if (!d)
      return;
   struct dirent *e;
   while ((e = readdir(d))) {
      size_t n = strlen(e->d_name);
      if (e->d_name[0] == 'f' && n > 4 && !strcmp(e->d_name + n - 4, ".png")) {
         char p[4352];
         snprintf(p, sizeof(p), "%s/%s", frames_dir, e->d_name);
         unlink(p);
      }
   }
   closedir(d);
}

static int
fail(const char *path, const char *what)
{
   fprintf(stderr, "tessera report: %s: %s\n", path, what);
   return 2;
}

int
cmd_report(int argc, char **argv)
{
   static const struct option longopts[] = {
      { "output", required_argument, NULL, 'o' },
      { "help", no_argument, NULL, 'h' },
      { NULL, 0, NULL, 0 },
   };
   const char *dir = NULL;
   int c;
   optind = 1;
   opterr = 0;
   while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
      switch (c) {
      case 'h': fputs(usage_text, stdout); return 0;
      case 'o': dir = optarg; break;
      default:
         cli_bad_option("report", c, argv, longopts);
         fputs(usage_text, stderr);
         return 2;
      }
   }
   if (optind + 1 != argc || !dir || !*dir) {
      fprintf(stderr, "tessera report: %s\n%s",
              optind + 1 != argc ? "expected one trace file" : "no output directory (-o DIR)",
              usage_text);
      return 2;
   }
   const char *path = argv[optind];

   /* 1. The trace: readable and undamaged, or no report (a page built from
    * a salvaged trace would mislead whoever reads the bug). */
   char err[512];
   struct tsr_reader *r;
   if (tsr_reader_open(&r, path, err, sizeof(err)))
      return fail(path, err);
   struct tsr_summary s;
   int status = 0;
   char *info = NULL;
   struct shader_ref *sh = NULL;
   char **dis = NULL;
   size_t nsh = 0, nfr = 0;
   char **image = NULL;
   unsigned *best = NULL;
   struct cmp_timing_file tf = { 0 };
   bool have_timing = false;
   struct cmp_trace_frame *frames = NULL;
   struct cmp_trace_shader *shaders = NULL;
   char *cmd = NULL, *note = NULL;
   struct membuf m;

   if (tsr_summary_read(&s, r)) {
      status = fail(path, tsr_reader_error(r));
      goto out;
   }
   if (s.info->damage) {
      fprintf(stderr, "tessera report: %s: damaged trace: %s (tessera info --verify lists "
                      "the problems)\n", path, tsr_reader_damage(r));
      status = 2;
      goto out;
   }

   /* 2. DIR, before the slow part: an unwritable DIR fails now. */
   char frames_dir[4096], timing_path[4096];
   snprintf(frames_dir, sizeof(frames_dir), "%s/frames", dir);
   snprintf(timing_path, sizeof(timing_path), "%s/timing.json", dir);
   if (strlen(dir) > 4000) {
      status = fail(dir, "directory name too long");
      goto out;
   }
   char cerr[CMP_ERR_LEN];
   if (!cmp_mkdir_p(frames_dir, cerr) || access(dir, W_OK) != 0) {
      status = fail(dir, *cerr ? cerr : "directory is not writable");
      goto out;
   }
   clear_frames(frames_dir);

   /* 3. What `tessera info --shaders` prints. */
   if (!membuf_open(&m)) {
      status = fail(path, "out of memory");
      goto out;
   }
   char **children = tsr_child_traces(path);
   tsr_summary_print_text(m.fp, path, &s, children);
   tsr_free_paths(children);
   tsr_summary_print_shaders(m.fp, r);
   if (!(info = membuf_close(&m))) {
      status = fail(path, "out of memory");
      goto out;
   }

   /* 4. The shader index, then each shader's disassembly. The index is in
    * record order, so one pass of tsr_dump_shader() (which reads on from
    * the reader's position) finds them all, each with its code as of its
    * own record even when an address is reused. */
   struct tsr_record rec;
   size_t cap = 0;
   if (tsr_reader_rewind(r)) {
      status = fail(path, tsr_reader_error(r));
      goto out;
   }
   int rc;
   while ((rc = tsr_reader_next(r, &rec)) > 0) {
      if (rec.type != TSR_REC_SHADER)
         continue;
      if (nsh == cap) {
         cap = cap ? 2 * cap : 64;
         struct shader_ref *n = realloc(sh, cap * sizeof(*sh));
         if (!n) {
            status = fail(path, "out of memory");
            goto out;
         }
         sh = n;
      }
      const struct tsr_shader *t = &rec.u.shader;
      struct membuf h;
      char *hash = NULL;
      if (membuf_open(&h)) {
         tsr_dump_hash(h.fp, &t->hash);
         hash = membuf_close(&h);
      }
      snprintf(sh[nsh].title, sizeof(sh[nsh].title),
               "0x%012" PRIx64 "  %6u bytes  %-11s %s  first used by submission %u", t->va,
               t->size, uapi_shader_stage_name(t->stage), hash ? hash : "", t->seq);
      free(hash);
      sh[nsh++].va = t->va;
   }
   if (rc < 0) {
      status = fail(path, tsr_reader_error(r));
      goto out;
   }
   dis = calloc(nsh ? nsh : 1, sizeof(*dis));
   if (!dis || tsr_reader_rewind(r)) {
      status = fail(path, dis ? tsr_reader_error(r) : "out of memory");
      goto out;
   }
   const struct tsr_dump_options dopt = { .disasm = true };
   for (size_t i = 0; i < nsh; i++) {
      if (!membuf_open(&m))
         break;
      struct tsr_dump *d = tsr_dump_create(m.fp, r, &dopt);
      if (!d || tsr_dump_shader(d, sh[i].va) != 1)
         fprintf(m.fp, "(not found: %s)\n", tsr_reader_error(r));
      if (d)
         tsr_dump_destroy(d);
      dis[i] = membuf_close(&m);
   }

   /* 5. Replay on the model: back buffers and per-frame times. */
   struct replay_options o;
   replay_options_init(&o);
   o.dump_dir = frames_dir;
   o.timing_path = timing_path;
   struct membuf log;
   bool have_log = membuf_open(&log);
   o.log = have_log ? log.fp : NULL;
   struct replay_stats st = { 0 };
   enum replay_status rs = REPLAY_ERROR;
   struct replay_backend *b = replay_backend_model(false, err, sizeof(err));
   if (b) {
      rs = replay_run(path, b, &o, &st);
      b->destroy(b);
   }
   char *log_text = have_log ? membuf_close(&log) : NULL;
   if (!b || rs == REPLAY_ERROR || st.gpu_errors) {
      if (membuf_open(&m)) {
         fprintf(m.fp, "The replay on the model %s%s",
                 !b ? "could not start: " : rs == REPLAY_ERROR ? "failed" : "had GPU errors",
                 !b ? err : "");
         if (log_text && *log_text)
            fprintf(m.fp, ":\n%s", log_text);
         note = membuf_close(&m);
      }
      fprintf(stderr, "tessera report: %s: %s\n", path, note ? note : "the replay failed");
      status = 1;
   } else if (log_text && *log_text) {
      fputs(log_text, stderr);
   }
   free(log_text);
   if (b && rs != REPLAY_ERROR)
      have_timing = cmp_timing_load(timing_path, &tf, cerr);

   /* 6. One row per frame: the trace's frame markers, or more if the
    * replay timed more (work after the last marker is a frame too). */
   nfr = s.info->frames;
   if (have_timing && tf.nframes && tf.frames[tf.nframes - 1].id >= 0 &&
       (size_t)tf.frames[tf.nframes - 1].id + 1 > nfr)
      nfr = (size_t)tf.frames[tf.nframes - 1].id + 1;
   frames = calloc(nfr ? nfr : 1, sizeof(*frames));
   image = calloc(nfr ? nfr : 1, sizeof(*image));
   best = calloc(2 * (nfr ? nfr : 1), sizeof(*best));
   shaders = calloc(nsh ? nsh : 1, sizeof(*shaders));
   if (!frames || !image || !best || !shaders) {
      status = fail(path, "out of memory");
      goto out;
   }
   pick_images(frames_dir, image, best, best + nfr, nfr);
   for (size_t i = 0; i < nfr; i++)
      frames[i] = (struct cmp_trace_frame){ (int64_t)i, image[i], NAN, NAN };
   for (size_t i = 0; have_timing && i < tf.nframes; i++) {
      int64_t id = tf.frames[i].id;
      if (id >= 0 && (size_t)id < nfr && tf.nruns) {
         frames[id].gpu_ns = tf.frames[i].gpu[0];
         frames[id].cpu_ns = tf.frames[i].cpu[0];
      }
   }
   for (size_t i = 0; i < nsh; i++)
      shaders[i] = (struct cmp_trace_shader){ sh[i].title, dis[i] ? dis[i] : "(out of memory)" };

   if (membuf_open(&m)) {
      fputs("# on the model (the default), as this report did:\ntessera replay ", m.fp);
      shell_word(m.fp, path);
      fputs("\n# with the back buffers and per-frame GPU times:\ntessera replay ", m.fp);
      shell_word(m.fp, path);
      fputs(" --dump-images frames/ --timing timing.json\n"
            "# on a real GPU (Asahi Linux):\ntessera replay ", m.fp);
      shell_word(m.fp, path);
      fputs(" --device /dev/dri/renderD128\n", m.fp);
      cmd = membuf_close(&m);
   }
   struct cmp_trace_page page = {
      .trace = path, .info = info, .replay_cmd = cmd, .replay_note = note,
      .nframes = nfr, .frames = frames, .nshaders = nsh, .shaders = shaders,
   };
   if (!cmp_html_trace(dir, &page, cerr)) {
      status = fail(dir, cerr);
      goto out;
   }
   printf("wrote %s/index.html: %zu frames, %zu shaders%s\n", dir, nfr, nsh,
          status ? " (the replay failed)" : "");

out:
   for (size_t i = 0; image && i < nfr; i++)
      free(image[i]);
   for (size_t i = 0; dis && i < nsh; i++)
      free(dis[i]);
   free(image);
   free(best);
   free(dis);
   free(sh);
   free(frames);
   free(shaders);
   free(info);
   free(cmd);
   free(note);
   if (have_timing)
      cmp_timing_free(&tf);
   tsr_summary_free(&s);
   tsr_reader_close(r);
   return status;
}
