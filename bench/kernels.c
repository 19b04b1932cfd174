/* Threads 1 against 2 on the threaded kernels (issue 28), built with the
 * library (target bench_kernels, not a ctest; bench/parallel.sh runs it):
 *   build/bench_kernels PROBLEM [--reps K] [--iters N] [--solvers a,b,...]
 * On a local problem: the SPEC measure, the product W x, and one
 * iteration of each solver (default admm, apgd-ccp, fpp), timed with 1
 * and 2 threads alternated K times (default 7): medians and their ratio.
 * A solver's iteration is (t(N + 10) - t(10)) / N iterations (default N
 * 100): its set-up (a factorisation, lambda_max) cancels; admm with a
 * constant rho and no probe (no refactorisation in between).  The solves
 * start from the file's first guess (zero without); every timing also
 * checks that 1 and 2 threads return the same bits.  On a global problem
 * the solvers only (default gadmm: constant rho, no refactorisation). */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"   /* fc_threads_set: the kernels' thread count outside fc_solve */
#include "median.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPS 101

typedef struct bench {
    const fc_problem *p;
    const double *r0;
    double *r, *u, *v;
    int m;
    unsigned long long sig[3];   /* the result's bits, per thread count */
    int differ;
} bench;

static unsigned long long bits(const double *x, int n, double extra)
{
    unsigned long long h = 1469598103934665603ULL;
    const unsigned char *c = (const unsigned char *)x;
    for (size_t i = 0; i < (size_t)n * sizeof *x; i++) { h ^= c[i]; h *= 1099511628211ULL; }
    c = (const unsigned char *)&extra;
    for (size_t i = 0; i < sizeof extra; i++) { h ^= c[i]; h *= 1099511628211ULL; }
    return h;
}

static void note(bench *B, int threads, unsigned long long s)
{
    if (B->sig[threads] && B->sig[threads] != s) B->differ = 1;  /* run to run */
    B->sig[threads] = s;
    if (B->sig[1] && B->sig[2] && B->sig[1] != B->sig[2]) B->differ = 1;
}

/* Seconds of one measure (best of a few calls: one call is short). */
static double time_measure(bench *B, int threads)
{
    int before = fc_threads_set(threads);
    fc_problem_u(B->p, B->r0, B->u);
    double best = 1e300, e = 0;
    for (int k = 0; k < 20; k++) {
        double t0 = fc_now();
        e = fc_error_local(B->p, B->r0, B->u);
        double t = fc_now() - t0;
        if (t < best) best = t;
    }
    fc_threads_set(before);
    note(B, threads, bits(&e, 1, 0));
    return best;
}

static double time_product(bench *B, int threads)
{
    int before = fc_threads_set(threads);
    double best = 1e300;
    for (int k = 0; k < 20; k++) {
        double t0 = fc_now();
        fc_matrix_gemv(B->p->W, 1.0, B->r0, 0.0, B->u);
        double t = fc_now() - t0;
        if (t < best) best = t;
    }
    fc_threads_set(before);
    note(B, threads, bits(B->u, B->m, 0));
    return best;
}

/* Seconds of `iters` iterations of solver at threads, *its the count. */
static double solve_for(bench *B, const char *solver, int threads, int iters, int *its)
{
    fc_options o;
    fc_default_options(&o);
    o.threads = threads;
    o.max_iter = iters;
    o.tolerance = 1e-15;
    /* admm: rho kept (no refactorisation within the timed iterations) and
     * no sticking probe: the iteration alone, its triangular solves
     * (CHOLMOD's, sequential) included */
    o.admm.rho_strategy = FC_ADMM_RHO_CONSTANT;
    o.admm.probe = 0;
    memcpy(B->r, B->r0, (size_t)B->m * sizeof *B->r);
    fc_info info;
    fc_error err;
    double t0 = fc_now();
    if (fc_solve(B->p, solver, &o, B->r, B->u, B->v, &info, &err) != FC_OK) {
        fprintf(stderr, "bench_kernels: %s: %s\n", solver, err.msg);
        exit(2);
    }
    *its = info.iterations;
    double t = fc_now() - t0;
    if (iters > 10) note(B, threads, bits(B->r, B->m, info.residual));
    return t;
}

static double time_iteration(bench *B, const char *solver, int threads, int iters)
{
    int i0, i1;
    double t0 = solve_for(B, solver, threads, 10, &i0);
    double t1 = solve_for(B, solver, threads, 10 + iters, &i1);
    return i1 > i0 ? (t1 - t0) / (i1 - i0) : t1 / (i1 > 0 ? i1 : 1);
}

int main(int argc, char **argv)
{
    const char *path = NULL, *solvers = NULL;
    int reps = 7, iters = 100;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--solvers") && i + 1 < argc) solvers = argv[++i];
        else path = argv[i];
    }
    if (!path || reps < 1 || reps > MAX_REPS || iters < 1) {
        fprintf(stderr, "usage: bench_kernels PROBLEM [--reps K <= %d] [--iters N] [--solvers a,b]\n",
                MAX_REPS);
        return 2;
    }
    fc_problem *p;
    fc_error err;
    if (fc_read(path, &p, &err) != FC_OK) { fprintf(stderr, "%s\n", err.msg); return 2; }
    int global = p->kind == FC_GLOBAL;
    if (!solvers) solvers = global ? "gadmm" : "admm,apgd-ccp,fpp";
    int m = fc_problem_m(p);
    double *r0 = calloc((size_t)m, sizeof *r0);
    bench B = {.p = p, .r0 = r0, .m = m, .r = calloc((size_t)m, 8), .u = calloc((size_t)m, 8),
               .v = global ? calloc((size_t)p->n, 8) : NULL};
    int guesses = 0;
    fc_read_guess(path, p, 0, NULL, NULL, &guesses, &err);
    if (guesses > 0) fc_read_guess(path, p, 0, r0, NULL, NULL, &err);
    printf("problem %s: nc %d, %s %ld stored entries, start %s, %d repeats alternating threads 1 and 2\n",
           path, p->nc, global ? "H" : "W", (long)(global ? p->H : p->W)->nnz,
           guesses > 0 ? "guess 0" : "zero", reps);
    printf("%-22s %14s %14s %8s %s\n", "kernel", "threads 1 (s)", "threads 2 (s)", "ratio", "results");
    char list[256];
    snprintf(list, sizeof list, "%s%s", global ? "" : "measure,product,", solvers);
    for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
        double t[3][MAX_REPS];
        memset(B.sig, 0, sizeof B.sig);
        B.differ = 0;
        for (int k = 0; k < reps; k++)
            for (int th = 1; th <= 2; th++) {
                int order = k % 2 ? 3 - th : th;   /* 1 2, 2 1, 1 2, ... */
                double s = !strcmp(name, "measure") ? time_measure(&B, order)
                           : !strcmp(name, "product") ? time_product(&B, order)
                                                      : time_iteration(&B, name, order, iters);
                t[order][k] = s;
            }
        double a = median(t[1], reps), b = median(t[2], reps);
        char label[64];
        snprintf(label, sizeof label, "%s%s", name,
                 strcmp(name, "measure") && strcmp(name, "product") ? " (iteration)" : "");
        printf("%-22s %14.6g %14.6g %8.2f %s\n", label, a, b, b > 0 ? a / b : 0.0,
               B.differ ? "DIFFER" : "identical");
        fflush(stdout);
    }
    free(r0); free(B.r); free(B.u); free(B.v);
    fc_problem_free(p);
    return 0;
}
