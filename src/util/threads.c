/* The OpenMP thread count of the kernels (fc_threads), per calling thread:
 * fc_solve sets it from fc_options.threads for the length of a solve, so
 * two solves in two threads of the caller each keep their own.  The size
 * from which kernels thread (FC_PAR_MIN) likewise. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "internal.h"

#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

static _Thread_local int current = 1;
static _Thread_local int par_min = 4096;

int fc_threads(void) { return current; }

int fc_threads_set(int n)
{
    int old = current;
    current = n > 0 ? n : 1;
    return old;
}

int fc_par_min(void) { return par_min; }

int fc_par_min_set(int n)
{
    int old = par_min;
    par_min = n > 0 ? n : 1;
    return old;
}

int fc_threads_resolve(int requested)
{
    if (requested > 0) return requested;
    const char *env = getenv("FRICON_NUM_THREADS");
    if (env && *env) {
        char *end;
        long n = strtol(env, &end, 10);
        if (!*end && n > 0 && n <= FC_THREADS_MAX) return (int)n;
    }
    int n = omp_get_num_procs();
    return n < 1 ? 1 : n > FC_THREADS_MAX ? FC_THREADS_MAX : n;
}

/* OpenBLAS' entry points are looked up at run time: another BLAS has none. */
int fc_blas_threads(void)
{
    void *sym = dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
    if (!sym) return 1;
    int (*get)(void);
    memcpy(&get, &sym, sizeof get);
    return get();
}

int fc_blas_threads_set(int n)
{
    void *sym = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    if (!sym) return 0;
    void (*set)(int);
    memcpy(&set, &sym, sizeof set);
    set(n);
    return 1;
}
