/* cmd_run.h -- the steps of `gradeq run`, shared by the command in
 * process (cmd_run.c) and its holder (hold_serve.c), which runs them on
 * the command's fds so that both print and exit alike.
 *
 * Each step that can end the command returns 0 with *status set (its
 * messages printed, c freed), else 1.
 */
#ifndef GRADEQ_CMD_RUN_H
#define GRADEQ_CMD_RUN_H

#include "worker/cli/cli.h"

/* The options and the program (argv as `gradeq run` has it: argv[0] is
 * "run"); c zeroed before. Help and usage errors end here. */
int wk_run_parse(wk_cli_run *c, int argc, char **argv, int *status);
/* stdin read when no --stdin gave it and it is not a terminal. */
int wk_run_input(wk_cli_run *c, int *status);
/* The warnings every run prints about its host (isolation). */
void wk_run_notes(const sbx_host *host);
/* The run (not an interactive one): sbx_run's return. */
int wk_run_single(wk_cli_run *c, sbx_box *box, sbx_result *r);
/* Prints the result, frees it and c; the command's exit status. */
int wk_run_report(wk_cli_run *c, sbx_result *r, int rc);

#endif
