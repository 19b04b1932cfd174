/* The fricon executable. */
#define _GNU_SOURCE /* setenv */
#include "cli.h"

#include <stdlib.h>
#include <unistd.h>

/* One thread for the numerical libraries, set before they are loaded:
 * OpenBLAS starts its thread pool and libgomp reads its limits when the
 * program is loaded, and SuiteSparse's supernodal Cholesky asks OpenMP
 * for 4 threads whatever omp_set_num_threads said (its idle threads
 * spin-waiting cost admm 20% on KaplasTower, measured).  So the program
 * starts itself again once, with the environment set; a user's own
 * OMP_THREAD_LIMIT is respected (no restart then), and so is a failed
 * exec (the run goes on, fricon_main still sets what it can). */
static void restart_single_threaded(char **argv)
{
    if (getenv("OMP_THREAD_LIMIT")) return;
    setenv("OMP_THREAD_LIMIT", "1", 1);
    setenv("OMP_NUM_THREADS", "1", 1);
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    execv("/proc/self/exe", argv);
}

int main(int argc, char **argv)
{
    restart_single_threaded(argv);
    return fricon_main(argc, argv);
}
