/* nsgs's half sweep (nsgs.half = 1: the file order on W's upper block
 * triangle) against the full rows (nsgs.half = 2) in one process, 1
 * thread, file order, or with --threads 2 the stretches' order (nsgs.order
 * = 3: their half sweep; issue 28): built with the library (target
 * bench_sweep_half, not a ctest):
 *   build/bench_sweep_half PROBLEM [--sweeps K] [--reps R] [--tol T] [--max-sweeps M] [--threads N]
 * From the file's .sol when there is one (else r = 0), each of R rounds
 * runs, for the full rows then the half, nsgs with 10 and with K + 10
 * plain sweeps (no Anderson, the error measured at the last sweep only)
 * and takes the difference over K: the milliseconds of one sweep, CPU
 * and wall, setup (the triangle's copy) excluded.  Prints the medians,
 * their ratio, the largest difference between the two variants' r after
 * K + 10 sweeps (relative to max |r|) and, with --tol, each variant's
 * sweeps to T with nsgs's defaults (at most M, default 3000). */
#define _POSIX_C_SOURCE 200809L
#include "fricon.h"
#include "median.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* nsgs from r0 into r with nsgs.half = half; CPU and wall seconds. */
static fc_info run(const fc_problem *p, const fc_options *base, int half, int sweeps, double tol,
                   const double *r0, double *r, double *u, double *cpu, double *wall)
{
    fc_options o = *base;
    o.nsgs.half = half;
    o.max_iter = sweeps;
    o.tolerance = tol;
    fc_info info;
    fc_error err;
    size_t m = (size_t)p->d * p->nc;
    memcpy(r, r0, m * sizeof *r);
    double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
    if (fc_solve(p, "nsgs", &o, r, u, NULL, &info, &err) != FC_OK) {
        fprintf(stderr, "bench_sweep_half: %s\n", err.msg);
        exit(3);
    }
    *cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    *wall = clock_s(CLOCK_MONOTONIC) - w0;
    return info;
}

int main(int argc, char **argv)
{
    const char *file = NULL;
    int K = 50, reps = 5, maxs = 3000, nt = 1;
    double tol = 0.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sweeps") && i + 1 < argc) K = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--tol") && i + 1 < argc) tol = atof(argv[++i]);
        else if (!strcmp(argv[i], "--max-sweeps") && i + 1 < argc) maxs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) nt = atoi(argv[++i]);
        else file = argv[i];
    }
    if (!file || K < 1 || reps < 1 || reps > 64 || nt < 1) {
        fprintf(stderr, "usage: bench_sweep_half PROBLEM [--sweeps K] [--reps R] [--tol T] [--max-sweeps M] [--threads N]\n");
        return 2;
    }
    fc_problem *p;
    fc_error err;
    if (fc_read(file, &p, &err) != FC_OK) {
        fprintf(stderr, "bench_sweep_half: %s\n", err.msg);
        return 2;
    }
    size_t m = (size_t)p->d * p->nc;
    double *r0 = calloc(m, sizeof *r0), *r = calloc(m, sizeof *r), *rh = calloc(m, sizeof *rh);
    double *u = calloc(m, sizeof *u);
    if (!r0 || !r || !rh || !u) return 3;
    char sol[4096];
    snprintf(sol, sizeof sol, "%s.sol", file);
    int warm = fc_read_solution(sol, p, r0, NULL, NULL, NULL, &err) == FC_OK;
    if (!warm) memset(r0, 0, m * sizeof *r0);
    fc_options base;
    fc_default_options(&base);
    base.threads = nt;
    base.nsgs.order = nt > 1 ? 3 : 1;
    base.nsgs.anderson = 0;
    base.nsgs.error_every = 1 << 30;
    base.stall_iterations = 0;
    double tc[2][64], tw[2][64];
    for (int k = 0; k < reps; k++)
        for (int v = 0; v < 2; v++) {
            double c10, w10, cK, wK;
            run(p, &base, v ? 1 : 2, 10, 1e-300, r0, v ? rh : r, u, &c10, &w10);
            run(p, &base, v ? 1 : 2, K + 10, 1e-300, r0, v ? rh : r, u, &cK, &wK);
            tc[v][k] = (cK - c10) / K;
            tw[v][k] = (wK - w10) / K;
        }
    double dmax = 0.0, rmax = 0.0;
    for (size_t i = 0; i < m; i++) {
        dmax = fmax(dmax, fabs(r[i] - rh[i]));
        rmax = fmax(rmax, fabs(r[i]));
    }
    double fc = median(tc[0], reps), fw = median(tw[0], reps);
    double hc = median(tc[1], reps), hw = median(tw[1], reps);
    printf("%s: nc %d, %s start, %d rounds of %d sweeps, %d thread(s), %s order\n", file, p->nc,
           warm ? "warm (.sol)" : "cold", reps, K, nt, nt > 1 ? "stretches'" : "file");
    printf("ms a sweep (medians): full rows CPU %.3f wall %.3f; half CPU %.3f wall %.3f; "
           "full / half CPU %.2fx wall %.2fx\n",
           1e3 * fc, 1e3 * fw, 1e3 * hc, 1e3 * hw, fc / hc, fw / hw);
    printf("r after %d sweeps: largest |full - half| %.2e of max |r| %.2e (%.1e relative)\n", K + 10,
           dmax, rmax, rmax > 0 ? dmax / rmax : 0.0);
    if (tol > 0) {
        fc_options o;
        fc_default_options(&o);
        o.threads = nt;
        o.nsgs.order = nt > 1 ? 3 : 1;
        for (int v = 0; v < 2; v++) {
            double c, w;
            fc_info info = run(p, &o, v ? 1 : 2, maxs, tol, r0, r, u, &c, &w);
            printf("%s to %.0e: %s after %d sweeps, error %.3e, %.2f s CPU\n", v ? "half" : "full", tol,
                   fc_status_name(info.status), info.iterations, info.residual, c);
        }
    }
    free(r0); free(r); free(rh); free(u);
    fc_problem_free(p);
    return 0;
}
