/* commands.h -- the subcommands of `gradeq`; each returns the exit status. */
#ifndef GRADEQ_COMMANDS_H
#define GRADEQ_COMMANDS_H

int wk_cmd_run(int argc, char **argv);
int wk_cmd_submit(int argc, char **argv);
int wk_cmd_stats(int argc, char **argv);
int wk_cmd_dead(int argc, char **argv);
int wk_cmd_grade(int argc, char **argv);
int wk_cmd_languages(int argc, char **argv);
int wk_cmd_result(int argc, char **argv);

#endif
