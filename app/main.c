/* The fricon executable. */
#define _GNU_SOURCE /* setenv */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef FRICON_MPI
#include <mpi.h>
#endif

/* The OpenMP threads the command asks for: --threads N (0: every core),
 * else FRICON_NUM_THREADS, else 1.  A bad value is left to the option
 * parser to refuse. */
static long threads_wanted(int argc, char **argv)
{
    const char *val = getenv("FRICON_NUM_THREADS");
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--threads")) val = argv[i + 1];
    if (!val || !*val) return 1;
    char *end;
    long n = strtol(val, &end, 10);
    if (*end || n < 0) return 1;
    if (n == 0) n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 1024 ? 1024 : n;
}

/* One thread for the numerical libraries, set before they are loaded:
 * OpenBLAS starts its thread pool and libgomp reads its limits when the
 * program is loaded, and SuiteSparse's supernodal Cholesky asks OpenMP
 * for 4 threads whatever omp_set_num_threads said (its idle threads
 * spin-waiting cost admm 20% on KaplasTower, measured).  So the program
 * starts itself again once, with the environment set: OpenMP limited to
 * the threads the command asks for (fricon's own kernels), waiting
 * between parallel regions as below, BLAS to one thread.
 * A user's own OMP_THREAD_LIMIT is respected (no restart then), and so is
 * a failed exec (the run goes on, fricon_main still sets what it can). */
#define FRICON_SPINCOUNT "3000"

/* The machine's load average over the last minute (1e9 if unknown). */
static double load_average(void)
{
    double l = 1e9;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = 1e9;
        fclose(f);
    }
    return l;
}

static void restart_single_threaded(int argc, char **argv)
{
    if (getenv("OMP_THREAD_LIMIT")) return;
    long threads = threads_wanted(argc, argv);
    char limit[32];
    snprintf(limit, sizeof limit, "%ld", threads);
    setenv("OMP_THREAD_LIMIT", limit, 1);
    /* the wait between parallel regions, unless the user chose it: from
     * 2 threads on a machine with a core free (the load average below the
     * cores), a short spin before sleeping, which catches a kernel loop's
     * next region; else passive: a spinning thread holds a core the other
     * jobs, or our own sequential solve, need
     * (docs/measurements.md#threads, "The wait between regions") */
    if (!getenv("OMP_WAIT_POLICY") && !getenv("GOMP_SPINCOUNT")) {
        if (threads > 1 && load_average() < sysconf(_SC_NPROCESSORS_ONLN))
            setenv("GOMP_SPINCOUNT", FRICON_SPINCOUNT, 1);
        else
            setenv("OMP_WAIT_POLICY", "passive", 1);
    }
    setenv("OMP_NUM_THREADS", "1", 1);
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    execv("/proc/self/exe", argv);
}

#ifdef FRICON_MPI
/* Started by an MPI launcher (Open MPI's mpirun, a PMIx or PMI one)?
 * Outside one, MPI_Init would start a singleton runtime (Open MPI forks
 * its daemon: some 0.7 s of every info, check or simulate of this build,
 * docs/distributed.md); a dist-* solve then initialises MPI itself
 * (fc_dist_ensure_init). */
static int launched_by_mpi(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}
#endif

int main(int argc, char **argv)
{
    restart_single_threaded(argc, argv);
#ifdef FRICON_MPI
    if (!launched_by_mpi()) return fricon_main(argc, argv);
    /* under mpirun every rank runs the command; rank 0 alone speaks */
    MPI_Init(&argc, &argv);
    int size = 1, rc;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (cli_mpi_rank() > 0 && (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)))
        return EXIT_BAD_INPUT;
    /* the commands that write files would run (and write) once per rank */
    const char *serial[] = {"simulate", "convert", "bench", "profile"};
    for (int i = 0; i < 4 && size > 1 && argc > 1; i++)
        if (!strcmp(argv[1], serial[i])) {
            fprintf(stderr, "fricon: %s runs on one process (under mpirun only solve is distributed)\n", argv[1]);
            MPI_Finalize();
            return EXIT_BAD_INPUT;
        }
    rc = fricon_main(argc, argv);
    MPI_Finalize();
    return rc;
#else
    return fricon_main(argc, argv);
#endif
}
