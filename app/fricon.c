/* fricon: solve discrete frictional contact problems from files. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: fricon COMMAND [ARGS]\n"
            "  info FILE                  kind, d, nc, n, nnz, mu range, W symmetry\n"
            "  solvers                    every solver with a one-line description\n"
            "  solve FILE [--solver NAME] [--tol T] [--max-iter N] [--time-limit S]\n"
            "             [--output SOL] [--json] [--verbose] [--set NAME=VALUE]...\n"
            "  convert IN OUT             between .dat and .hdf5 (either direction)\n"
            "  options                    the solver options settable with --set\n"
            "  simulate SCENE [--steps N] [--dt H] [--solver S] [--angle DEG] [--export DIR]\n"
            "             [--every K] [--vtk DIR]  rigid bodies (incline slide stack pile column)\n"
            "  bench [--solvers a,b] [--tol T] [--time-limit S] [--mem-limit MB] [--out DIR] FILE|DIR...\n"
            "  profile [--tol T] [--out DIR] RESULTS.csv...   performance profiles of bench results\n"
            "  check PROBLEM SOLUTION [--tol T]   the SPEC measure of a solution file\n"
            "exit status: 0 converged/done, 1 not converged, 2 bad input or usage\n");
}

int cli_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fricon: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_BAD_INPUT;
}

int fricon_main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return EXIT_DONE;
    }
    if (!strcmp(cmd, "--version")) {
        printf("fricon %s\n", FRICON_VERSION);
        return EXIT_DONE;
    }
    if (!strcmp(cmd, "info")) return cmd_info(argc - 2, argv + 2);
    if (!strcmp(cmd, "solvers")) return cmd_solvers(argc - 2, argv + 2);
    if (!strcmp(cmd, "solve")) return cmd_solve(argc - 2, argv + 2);
    if (!strcmp(cmd, "convert")) return cmd_convert(argc - 2, argv + 2);
    if (!strcmp(cmd, "simulate")) return cmd_simulate(argc - 2, argv + 2);
    if (!strcmp(cmd, "options")) { cli_list_options(); return EXIT_DONE; }
    if (!strcmp(cmd, "bench")) return cmd_bench(argc - 2, argv + 2);
    if (!strcmp(cmd, "profile")) return cmd_profile(argc - 2, argv + 2);
    if (!strcmp(cmd, "check")) return cmd_check(argc - 2, argv + 2);
    usage(stderr);
    return cli_fail("unknown command '%s'", cmd);
}
