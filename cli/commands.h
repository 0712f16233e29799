/* SPDX-License-Identifier: MIT */
/*
 * tessera command-line front end: one function per subcommand.
 *
 * Each command gets argv with argv[0] set to the subcommand's name, parses its
 * own options (and --help), and returns the process exit status: 0 success,
 * 1 a negative result the command reports (e.g. images differ), 2 usage or
 * input error. Commands print errors to stderr as "tessera <cmd>: <message>".
 * They never abort on bad input.
 */
#ifndef TESSERA_CLI_COMMANDS_H
#define TESSERA_CLI_COMMANDS_H

int cmd_disasm(int argc, char **argv);
int cmd_asm(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_trim(int argc, char **argv);
int cmd_minimize(int argc, char **argv);
int cmd_decompile(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);

int cmd_capture(int argc, char **argv);
int cmd_run(int argc, char **argv);

#endif
