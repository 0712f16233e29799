/* SPDX-License-Identifier: MIT */
/*
 * tessera profile: frames -> passes -> draws with the GPU model's time and
 * counters (replay/replay_profile.h does the work; docs/profiling.md).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_args.h"
#include "cli/cli_override.h"
#include "cli/commands.h"
#include "replay/replay_profile.h"

static void
usage(FILE *fp)
{
   fputs("usage: tessera profile TRACE.tsr [options]\n"
         "  --frames A-B           profile frames A to B (inclusive; B may be omitted)\n"
         "  --json                 the whole profile as JSON (schema tessera-profile/1)\n"
         "  --html DIR             also write DIR/index.html, a self-contained page\n"
         "  --top N                list the N most expensive draws (default 10)\n"
         "  --override-shader ADDR=FILE  replace the shader at GPU VA ADDR (.s: assembled)\n"
         "  --force                profile even if the trace's device differs from the model\n"
         "The trace runs on the GPU model: times are modelled cycles; per pass, the time the\n"
         "capture's firmware timestamps measured is shown beside them (docs/profiling.md).\n",
         fp);
}

int
cmd_profile(int argc, char **argv)
{
   enum { O_FRAMES = 256, O_JSON, O_HTML, O_TOP, O_OVERRIDE, O_FORCE, O_HELP };
   static const struct option longopts[] = {
      { "frames", required_argument, NULL, O_FRAMES },
      { "json", no_argument, NULL, O_JSON },
      { "html", required_argument, NULL, O_HTML },
      { "top", required_argument, NULL, O_TOP },
      { "override-shader", required_argument, NULL, O_OVERRIDE },
      { "force", no_argument, NULL, O_FORCE },
      { "help", no_argument, NULL, O_HELP },
      { NULL, 0, NULL, 0 },
   };
   struct replay_options o;
   replay_options_init(&o);
   bool json = false;
   const char *html = NULL;
   uint32_t top = 10;
   uint8_t *owned[REPLAY_MAX_OVERRIDES] = { 0 };
   int rc = 0, c;
   optind = 1;
   opterr = 0;
   while (!rc && (c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
      switch (c) {
      case O_FRAMES:
         if (!cli_parse_range(optarg, &o.first_frame, &o.last_frame)) {
            fprintf(stderr, "tessera profile: --frames wants A-B, got '%s'\n", optarg);
            rc = 2;
         }
         break;
      case O_JSON: json = true; break;
      case O_HTML:
         if (!*optarg) {
            fprintf(stderr, "tessera profile: --html needs a directory\n");
            rc = 2;
         }
         html = optarg;
         break;
      case O_FORCE: o.force = true; break;
      case O_TOP:
         if (!cli_parse_u32(optarg, &top) || top > 1000000) {
            fprintf(stderr, "tessera profile: --top wants a count up to 1000000, got '%s'\n",
                    optarg);
            rc = 2;
         }
         break;
      case O_OVERRIDE:
         if (o.num_overrides == REPLAY_MAX_OVERRIDES) {
            fprintf(stderr, "tessera profile: at most 16 --override-shader options\n");
            rc = 2;
         } else {
            rc = cli_parse_override("profile", optarg, &o.overrides[o.num_overrides],
                                    &owned[o.num_overrides]);
            o.num_overrides += !rc;
         }
         break;
      case O_HELP:
         usage(stdout);
         rc = -1;
         break;
      default:
         rc = cli_bad_option("profile", c, argv, longopts);
         usage(stderr);
      }
   }
   if (!rc && optind != argc - 1) {
      fprintf(stderr, "tessera profile: expected one trace file\n");
      usage(stderr);
      rc = 2;
   }
   struct replay_backend *b = NULL;
   if (!rc) {
      char err[512];
      b = replay_backend_model(true, err, sizeof(err));
      if (!b) {
         fprintf(stderr, "tessera profile: %s\n", err);
         rc = 2;
      }
   }
   if (rc) {
      for (unsigned i = 0; i < REPLAY_MAX_OVERRIDES; i++)
         free(owned[i]);
      return rc < 0 ? 0 : rc;
   }
   struct replay_profile prof;
   enum replay_status s = replay_profile_run(argv[optind], b, &o, &prof);
   b->destroy(b);
   for (unsigned i = 0; i < REPLAY_MAX_OVERRIDES; i++)
      free(owned[i]);
   if (s != REPLAY_ERROR) {
      if (json)
         replay_profile_print_json(stdout, &prof, top);
      else
         replay_profile_print_text(stdout, &prof, top);
      char err[512];
      if (html && !replay_profile_write_html(html, &prof, top, err, sizeof(err))) {
         fprintf(stderr, "tessera profile: %s\n", err);
         s = REPLAY_ERROR;
      }
      if (fflush(stdout) != 0) {
         perror("tessera profile: stdout");
         s = REPLAY_ERROR;
      }
   }
   replay_profile_free(&prof);
   return (int)s;
}
