/* SPDX-License-Identifier: MIT */
/*
 * tessera: the single entry point. Dispatches to a subcommand, like git or
 * apitrace; every subcommand lives in its own cli/cmd_*.c.
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"

struct command {
   const char *name;
   int (*run)(int argc, char **argv);
   const char *summary;
};

static const struct command commands[] = {
   {"asm", cmd_asm, "assemble AGX (G13) shader source into machine code"},
   {"disasm", cmd_disasm, "disassemble AGX (G13) machine code"},
   {"decode", cmd_decode, "decode a VDM/CDM control stream from a memory image"},
   {"capture", cmd_capture, "record a program's GPU work into a trace (LD_PRELOAD layer)"},
   {"info", cmd_info, "summarize a trace file (device, program, frames, sizes)"},
   {"dump", cmd_dump, "print every record of a trace as stable, diffable text"},
   {"trim", cmd_trim, "cut a trace to a window of frames or submissions that replays alone"},
   {"minimize", cmd_minimize, "reduce a trace to the submissions a bug needs (delta debugging)"},
   {"decompile", cmd_decompile, "turn a trace into a C program (libdrm + uAPI) that replays it"},
   {"replay", cmd_replay, "replay a trace on the model or a render node"},
   {"profile", cmd_profile, "per-pass and per-draw GPU time and counters of a trace (model)"},
   {"compare", cmd_compare, "compare images or timing of a replay with a reference"},
   {"report", cmd_report, "one HTML page about a trace for a bug report (info, frames, shaders, timing)"},
   {"run", cmd_run, "run a GL/GLES program on the embedded GPU (Mesa + tessera driver)"},
};

#define NUM_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void
usage(FILE *fp)
{
   fprintf(fp, "usage: tessera <command> [options] [args]\n"
               "       tessera <command> --help\n\n"
               "commands:\n");
   for (size_t i = 0; i < NUM_COMMANDS; i++)
      fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

int
main(int argc, char **argv)
{
   if (argc < 2) {
      usage(stderr);
      return 2;
   }
   if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
       !strcmp(argv[1], "help")) {
      usage(stdout);
      return 0;
   }
   if (!strcmp(argv[1], "--version")) {
      printf("tessera %s\n", TESSERA_VERSION);
      return 0;
   }
   for (size_t i = 0; i < NUM_COMMANDS; i++) {
      if (!strcmp(argv[1], commands[i].name))
         return commands[i].run(argc - 1, argv + 1);
   }
   fprintf(stderr, "tessera: unknown command '%s'\n\n", argv[1]);
   usage(stderr);
   return 2;
}
