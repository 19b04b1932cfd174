/* The fricon command: one file per command (cmd_*.c). */
#ifndef FRICON_CLI_H
#define FRICON_CLI_H

#include "fricon.h"

/* Exit statuses of SPEC section 4. */
enum { EXIT_DONE = 0, EXIT_NOT_CONVERGED = 1, EXIT_BAD_INPUT = 2 };

/* The whole command: argv[0] is the program name. */
int fricon_main(int argc, char **argv);

int cmd_info(int argc, char **argv);
int cmd_solvers(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_bench(int argc, char **argv);   /* app/cmd_bench.c */
int cmd_profile(int argc, char **argv); /* app/cmd_profile.c */
int cmd_check(int argc, char **argv);   /* app/cmd_check.c */
int cmd_options(int argc, char **argv); /* app/cmd_options.c */

/* Print "fricon: message" on stderr; returns EXIT_BAD_INPUT. */
int cli_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Strict number parsing: the whole string, finite; 0 on success. */
int cli_parse_double(const char *s, double *out);
int cli_parse_int(const char *s, int *out);

/* Are a and b the same existing file (same device and inode)? */
int cli_same_file(const char *a, const char *b);

/* Set a named solver option ("nsgs.omega=1.3"); 0 on success, else an
 * error message is printed and EXIT_BAD_INPUT returned. */
int cli_set_option(fc_options *opt, const char *assignment);
/* The solver options common to solve and simulate (--tol, --max-iter,
 * --time-limit, --set) into opt: 1 when name is not one of them, 0 when
 * it was applied, EXIT_BAD_INPUT (message printed) when val is bad. */
int cli_solver_option(fc_options *opt, const char *name, const char *val);

/* The MPI rank of this process (0 without FRICON_MPI or outside
 * mpirun): only rank 0 writes files and prints. */
int cli_mpi_rank(void);

/* Write s as a JSON string literal. */
void cli_json_string(const char *s);

#endif
