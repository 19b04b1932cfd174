/* LD_PRELOAD shim counting a program's calls into libgomp's entry points
 * of synchronisation (bench/detect_sync.sh): parallel regions, barriers
 * (explicit, and the implicit one closing a `single`), single sections,
 * named critical sections; printed to stderr at exit.  Barriers and
 * singles count only inside a team of more than one thread (outside, as
 * in the 1-thread detection, they are calls that do nothing), once per
 * calling thread: a barrier of 2 threads, 2 calls.  Built by the script:
 * cc -shared -fPIC -O2 bench/gomp_count.c -o gomp_count.so -ldl -lgomp */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

int omp_get_num_threads(void);

static atomic_long n_parallel, n_barrier, n_single, n_critical;

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
    static void (*real)(void (*)(void *), void *, unsigned, unsigned);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "GOMP_parallel");
    atomic_fetch_add(&n_parallel, 1);
    real(fn, data, num_threads, flags);
}

void GOMP_barrier(void)
{
    static void (*real)(void);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "GOMP_barrier");
    if (omp_get_num_threads() > 1) atomic_fetch_add(&n_barrier, 1);
    real();
}

bool GOMP_single_start(void)
{
    static bool (*real)(void);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "GOMP_single_start");
    if (omp_get_num_threads() > 1) atomic_fetch_add(&n_single, 1);
    return real();
}

void GOMP_critical_name_start(void **name)
{
    static void (*real)(void **);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "GOMP_critical_name_start");
    if (omp_get_num_threads() > 1) atomic_fetch_add(&n_critical, 1);
    real(name);
}

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "gomp_count: parallel %ld barrier %ld single %ld critical %ld\n", (long)n_parallel,
            (long)n_barrier, (long)n_single, (long)n_critical);
}
