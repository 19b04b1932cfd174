/* CHOLMOD's supernodal solve against src/linsys/supernodal_solve.c on one
 * problem's A = (W + W')/2 + rho I (a local problem, or the reduction of a
 * global one), built with the library (target bench_supernodal):
 *   build/bench_supernodal PROBLEM [--reps K] [--rho R] [--blas N]
 * Prints the plan (tasks, top supernodes, those split in panels) and, for
 * one solve x = A^-1 b, the minimum over K repeats (default 20; the
 * minimum, not the median: on a shared machine it is the time without the
 * others' jobs) of the wall and CPU seconds of CHOLMOD's solve, of the
 * threaded solve on 1 thread and on 2, the three alternated; and the
 * difference of the results (threads 1 and 2: the same bits).
 * BLAS runs on one thread, as the command sets it (app/fricon.c), unless
 * --blas N (N threads; 0: as the environment has it).  The plan refuses a
 * threaded OpenBLAS (supernodal_solve.c: CHOLMOD's solve then runs), and
 * this bench ran with OpenBLAS' default pool until 2026-11-27, its
 * 2-thread row then 12x CHOLMOD's (bench/results/2026-11-27-idle-4). */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "linsys/linsys.h"

#include <cholmod.h>
#include <stdio.h>
#include <time.h>

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    int reps = 20;
    double rho = 1.0;
    int blas = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rho") && i + 1 < argc) rho = atof(argv[++i]);
        else if (!strcmp(argv[i], "--blas") && i + 1 < argc) blas = atoi(argv[++i]);
        else path = argv[i];
    }
    if (!path || reps < 1) {
        fprintf(stderr, "usage: bench_supernodal PROBLEM [--reps K] [--rho R] [--blas N]\n");
        return 2;
    }
    if (blas > 0) fc_blas_threads_set(blas);
    const char *wp = getenv("OMP_WAIT_POLICY"), *sc = getenv("GOMP_SPINCOUNT");
    printf("# BLAS threads %d, OMP_WAIT_POLICY=%s GOMP_SPINCOUNT=%s\n", fc_blas_threads(), wp ? wp : "(unset)",
           sc ? sc : "(unset)");
    fc_problem *g, *p;
    fc_error err;
    if (fc_read(path, &g, &err) != FC_OK || fc_problem_reduce(g, &p, &err) != FC_OK) {
        fprintf(stderr, "bench_supernodal: %s\n", err.msg);
        return 2;
    }
    fc_matrix *W = fc_matrix_to_csr(p->W);
    int n = W->rows;
    cholmod_common c;
    cholmod_start(&c);
    cholmod_triplet *T = cholmod_allocate_triplet((size_t)n, (size_t)n, (size_t)W->nnz + (size_t)n, 1,
                                                  CHOLMOD_REAL, &c);
    int *ti = T->i, *tj = T->j;
    double *tx = T->x;
    long t = 0;
    for (int i = 0; i < n; i++) {
        ti[t] = i; tj[t] = i; tx[t] = rho; t++;
        for (int q = W->p[i]; q < W->p[i + 1]; q++) {
            int j = W->j[q];
            ti[t] = i < j ? i : j; tj[t] = i < j ? j : i; tx[t] = i == j ? W->x[q] : 0.5 * W->x[q]; t++;
        }
    }
    T->nnz = (size_t)t;
    cholmod_sparse *A = cholmod_triplet_to_sparse(T, (size_t)t, &c);
    cholmod_factor *L = cholmod_analyze(A, &c);
    if (!L || !cholmod_factorize(A, L, &c) || c.status != CHOLMOD_OK) {
        fprintf(stderr, "bench_supernodal: the factorisation failed\n");
        return 1;
    }
    fc_snsolve *S = fc_snsolve_new(L);
    if (!S) {
        fprintf(stderr, "bench_supernodal: no threaded plan for this factor (supernodal %d, %zu entries, "
                        "BLAS threads %d: the plan needs 1)\n", L->is_super, L->xsize, fc_blas_threads());
        return 1;
    }
    int tasks, top, split;
    fc_snsolve_shape(S, L, &tasks, &top, &split);
    printf("%s: n %d, factor %zu entries in %zu supernodes; plan: %d tasks, %d top supernodes (%d in panels)\n",
           path, n, L->xsize, L->nsuper, tasks, top, split);
    cholmod_dense *B = cholmod_allocate_dense((size_t)n, 1, (size_t)n, CHOLMOD_REAL, &c);
    cholmod_dense *X = NULL, *Y = NULL, *E = NULL;
    double *b = B->x, *x1 = malloc((size_t)n * sizeof *x1), *x2 = malloc((size_t)n * sizeof *x2);
    for (int i = 0; i < n; i++) b[i] = sin(1.0 + i);
    double tw[3] = {1e30, 1e30, 1e30}, tc[3] = {1e30, 1e30, 1e30};
    for (int k = 0; k < reps; k++)
        for (int which = 0; which < 3; which++) {
            double w0 = wall(), c0 = cpu();
            if (which == 0) cholmod_solve2(CHOLMOD_A, L, B, NULL, &X, NULL, &Y, &E, &c);
            else {
                fc_threads_set(which);
                fc_snsolve_solve(S, L, b, which == 1 ? x1 : x2);
            }
            double w = wall() - w0, cp = cpu() - c0;
            if (w < tw[which]) tw[which] = w;
            if (cp < tc[which]) tc[which] = cp;
        }
    double dx = 0, nx = 0;
    const double *xc = X->x;
    for (int i = 0; i < n; i++) { dx = fmax(dx, fabs(x1[i] - xc[i])); nx = fmax(nx, fabs(xc[i])); }
    printf("one solve, min of %d   wall (ms)   cpu (ms)\n", reps);
    printf("CHOLMOD                %9.3f  %9.3f\n", 1e3 * tw[0], 1e3 * tc[0]);
    printf("threaded, 1 thread     %9.3f  %9.3f\n", 1e3 * tw[1], 1e3 * tc[1]);
    printf("threaded, 2 threads    %9.3f  %9.3f\n", 1e3 * tw[2], 1e3 * tc[2]);
    printf("CHOLMOD / 2 threads %.2fx, 1 thread / 2 threads %.2fx; |x - x_cholmod| / |x| %.1e; threads 1 and 2 %s\n",
           tw[0] / tw[2], tw[1] / tw[2], dx / nx, memcmp(x1, x2, (size_t)n * sizeof *x1) ? "DIFFER" : "identical");
    free(x1); free(x2);
    cholmod_free_dense(&B, &c); cholmod_free_dense(&X, &c); cholmod_free_dense(&Y, &c); cholmod_free_dense(&E, &c);
    fc_snsolve_free(S);
    cholmod_free_factor(&L, &c); cholmod_free_sparse(&A, &c); cholmod_free_triplet(&T, &c);
    cholmod_finish(&c);
    fc_matrix_free(W); fc_problem_free(p); fc_problem_free(g);
    return 0;
}
