/* fricon: solve discrete frictional contact problems from files. */
#define _GNU_SOURCE /* setenv, RTLD_DEFAULT */
#include "cli.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#ifdef FRICON_MPI
#include <mpi.h>
#endif

int cli_mpi_rank(void)
{
    int rank = 0;
#ifdef FRICON_MPI
    int on = 0, off = 0;
    MPI_Initialized(&on);
    MPI_Finalized(&off);
    if (on && !off) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#endif
    return rank;
}

/* Each command's usage: its name and its lines of the general usage. */
static const struct { const char *cmd, *text; } usages[] = {
    {"info", "  info FILE                  kind, d, nc, n, nnz, mu range, W symmetry, equalities\n"},
    {"solvers", "  solvers                    every solver with a one-line description\n"},
    {"solve", "  solve FILE [--solver NAME] [--tol T] [--max-iter N] [--time-limit S]\n"
              "             [--output SOL] [--json] [--verbose] [--quiet] [--cold] [--set NAME=VALUE]...\n"},
    {"convert", "  convert IN OUT             between .dat and .hdf5 (either direction)\n"},
    {"options", "  options [--markdown]       the solver options settable with --set, defaults\n"},
    {"simulate", "  simulate SCENE [--steps N] [--dt H] [--solver S] [--angle DEG] [--export DIR]\n"
                 "             [--every K] [--export-from S] [--vtk DIR] [--local|--both] [--count N] [--seed S] [--mu MU] [--mem-limit MB]\n"
                 "             rigid bodies (incline slide stack pile column chute disks-wall hopper tower wall arch)\n"},
    {"bench", "  bench [--solvers a,b] [--tol T] [--time-limit S] [--mem-limit MB] [--warm|--cold] [--repeat N] [--cpu] [--cpu-limit] [--out DIR] FILE|DIR...\n"},
    {"profile", "  profile [--tol T] [--out DIR] [--manifest FILE] RESULTS.csv...\n"
                "                                   performance profiles of bench results (per family: --manifest)\n"},
    {"check", "  check PROBLEM SOLUTION [--tol T]   the SPEC measure of a solution file\n"},
};
#define NUSAGES (int)(sizeof usages / sizeof usages[0])

/* The usage of one command (cmd), or of all (NULL). */
static void usage(FILE *out, const char *cmd)
{
    fprintf(out, "usage: fricon %s\n", cmd ? cmd : "COMMAND [ARGS]");
    for (int k = 0; k < NUSAGES; k++)
        if (!cmd || !strcmp(cmd, usages[k].cmd)) fputs(usages[k].text, out);
    fprintf(out, "exit status: 0 converged/done, 1 not converged, 2 bad input or usage\n");
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

/* Single-threaded BLAS for every command: the solvers' dense kernels are
 * small (one-contact blocks, Anderson's least squares, dense LU below 64
 * rows), where OpenBLAS' thread pool only spins (measured: nsgs on
 * KaplasTower 0.22 s with two threads, 0.094 s with one); timings are
 * comparable with the Siconos side, which runs with OPENBLAS_NUM_THREADS=1;
 * and no thread pool competes with a run on a shared machine.  OpenBLAS
 * read its environment when it was loaded, so it is told directly too. */
static void single_threaded_blas(void)
{
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    setenv("OMP_NUM_THREADS", "1", 1);
    /* OpenMP (SuiteSparse's CHOLMOD uses it): the environment is read when
     * libgomp is loaded, before main, so it is told directly as well
     * (measured: its idle threads spin-waiting topped the profile of admm
     * on KaplasTower) */
    static const char *const setters[] = {"openblas_set_num_threads", "omp_set_num_threads"};
    for (int k = 0; k < 2; k++) {
        void *sym = dlsym(RTLD_DEFAULT, setters[k]);
        if (sym) {
            void (*set_threads)(int);
            memcpy(&set_threads, &sym, sizeof set_threads);
            set_threads(1);
        }
    }
}

int fricon_main(int argc, char **argv)
{
    single_threaded_blas();
    if (argc < 2) {
        usage(stderr, NULL);
        return EXIT_BAD_INPUT;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout, NULL);
        return EXIT_DONE;
    }
    /* COMMAND --help (or -h) anywhere: that command's usage */
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            for (int k = 0; k < NUSAGES; k++)
                if (!strcmp(cmd, usages[k].cmd)) {
                    usage(stdout, cmd);
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
    if (!strcmp(cmd, "options")) return cmd_options(argc - 2, argv + 2);
    if (!strcmp(cmd, "bench")) return cmd_bench(argc - 2, argv + 2);
    if (!strcmp(cmd, "profile")) return cmd_profile(argc - 2, argv + 2);
    if (!strcmp(cmd, "check")) return cmd_check(argc - 2, argv + 2);
    usage(stderr, NULL);
    return cli_fail("unknown command '%s'", cmd);
}
