/* Where one file-order NSGS sweep (1 thread, d = 3) spends its time
 * (issue 28): built with the library (target bench_sweep_parts, not a
 * ctest):
 *   build/bench_sweep_parts PROBLEM [--sweeps K] [--warm W] [--reps R]
 * After W warm sweeps from r = 0 (nsgs's own update: the block row's
 * product then fc_local_solve), each of R rounds times K sweeps of, in
 * turn and each from the same r,
 *   the sweep with the hybrid as main had it (fc_local.iso cleared: AC
 *   Newton for sliding), with the closed-form sliding (iso as set up),
 *   and with the prefetch of the next row (one and two rows ahead);
 *   the block rows' products alone (q'_a stored, r unchanged);
 *   the one-contact solves alone, from the stored q'_a and r;
 * and prints the medians in ms a sweep (CPU time; WALL=1 in the
 * environment: wall time), the contacts' cases at the last q'_a
 * (take-off q_N >= 0, sticking, sliding) and for the sliding ones the
 * closed form against AC Newton (difference, local errors). */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "cone/cone.h"
#include "matrix/bsr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(getenv("WALL") ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct run {
    const fc_matrix *W;
    const fc_local *loc;
    const fc_problem *p;
    fc_local_params par;
} run;

static void sweep_full(const run *R, double *r)
{
    for (int a = 0; a < R->p->nc; a++) {
        double qa[3], ra[3];
        bsr_row_dot(R->W, 3, a, r, 1, qa);
        for (int k = 0; k < 3; k++) { qa[k] += R->p->q[3 * a + k]; ra[k] = r[3 * a + k]; }
        fc_local_solve(&R->loc[a], qa, &R->par, ra);
        for (int k = 0; k < 3; k++) r[3 * a + k] = ra[k];
    }
}

static void sweep_full_pf(const run *R, double *r, int RD)
{
    const fc_matrix *W = R->W;
    int nc = R->p->nc;
    for (int a = 0; a < nc; a++) {
        double qa[3], ra[3];
        if (a + RD < nc) {   /* row a + RD: its blocks, indices, contact data */
            const char *b0 = (const char *)(W->x + (size_t)9 * W->p[a + RD]);
            const char *b1 = (const char *)(W->x + (size_t)9 * W->p[a + RD + 1]);
            for (const char *c = b0; c < b1; c += 64) __builtin_prefetch(c);
            __builtin_prefetch(W->j + W->p[a + RD + 1]);
            __builtin_prefetch(&R->loc[a + RD]);
            __builtin_prefetch((const char *)&R->loc[a + RD] + 64);
        }
        bsr_row_dot(R->W, 3, a, r, 1, qa);
        for (int k = 0; k < 3; k++) { qa[k] += R->p->q[3 * a + k]; ra[k] = r[3 * a + k]; }
        fc_local_solve(&R->loc[a], qa, &R->par, ra);
        for (int k = 0; k < 3; k++) r[3 * a + k] = ra[k];
    }
}

static void sweep_rows(const run *R, const double *r, double *Q)
{
    for (int a = 0; a < R->p->nc; a++) {
        double qa[3];
        bsr_row_dot(R->W, 3, a, r, 1, qa);
        for (int k = 0; k < 3; k++) Q[3 * a + k] = qa[k] + R->p->q[3 * a + k];
    }
}

static void sweep_solve(const run *R, const double *Q, const double *r0, double *r,
                        const int *list, int n)
{
    for (int i = 0; i < n; i++) {
        int a = list ? list[i] : i;
        double ra[3] = {r0[3 * a], r0[3 * a + 1], r0[3 * a + 2]};
        fc_local_solve(&R->loc[a], Q + 3 * a, &R->par, ra);
        for (int k = 0; k < 3; k++) r[3 * a + k] = ra[k];
    }
}

int main(int argc, char **argv)
{
    const char *file = NULL;
    int K = 20, warm = 10, reps = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sweeps") && i + 1 < argc) K = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--warm") && i + 1 < argc) warm = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else file = argv[i];
    }
    if (!file || K < 1 || reps < 1 || reps > 64) {
        fprintf(stderr, "usage: bench_sweep_parts PROBLEM [--sweeps K] [--warm W] [--reps R]\n");
        return 2;
    }
    fc_problem *p;
    fc_error err;
    if (fc_read(file, &p, &err) != FC_OK) {
        fprintf(stderr, "bench_sweep_parts: %s\n", err.msg);
        return 2;
    }
    if (p->d != 3 || !p->W || p->W->kind == FC_MAT_DENSE) {
        fprintf(stderr, "bench_sweep_parts: a 3D local problem with a sparse W is needed\n");
        return 2;
    }
    int nc = p->nc, m = 3 * nc;
    fc_matrix *Wb = p->W->kind == FC_MAT_BSR && p->W->bs == 3 ? NULL : fc_matrix_to_bsr(p->W, 3);
    run R = {Wb ? Wb : p->W, NULL, p, {FC_LOCAL_HYBRID, 1e-14, 20}};
    fc_local *loc = calloc((size_t)nc, sizeof *loc);
    double *r = calloc((size_t)m, sizeof *r), *Q = calloc((size_t)m, sizeof *Q);
    double *r0 = calloc((size_t)m, sizeof *r0), *rs = calloc((size_t)m, sizeof *rs);
    int *list = calloc((size_t)nc, sizeof *list);
    if (!loc || !r || !Q || !r0 || !rs || !list || !R.W) return 3;
    for (int a = 0; a < nc; a++) {
        double blk[9];
        fc_matrix_diag_block(R.W, a, 3, blk);
        fc_local_setup(&loc[a], 3, blk, p->mu[a], 0.0);
    }
    R.loc = loc;
    for (int s = 0; s < warm; s++) sweep_full(&R, r);
    /* A/B in one process: the hybrid as in main (iso off: AC Newton for
     * sliding), with the closed form (iso on), and with the next rows'
     * prefetch; each variant from the same r, in turn, rounds alternated. */
    fc_local *loc0 = malloc((size_t)nc * sizeof *loc0);
    if (!loc0) return 3;
    memcpy(loc0, loc, (size_t)nc * sizeof *loc);
    int niso = 0;
    for (int a = 0; a < nc; a++) { niso += loc[a].iso; loc0[a].iso = 0; }
    double tv[4][64], tr[64], ts[64];
    run R0 = R;
    R0.loc = loc0;
    for (int k = 0; k < reps; k++) {
        for (int v = 0; v < 4; v++) {
            memcpy(rs, r, (size_t)m * sizeof *r);
            double t0 = now();
            for (int s = 0; s < K; s++) {
                if (v == 0) sweep_full(&R0, rs);
                else if (v == 1) sweep_full(&R, rs);
                else if (v == 2) sweep_full_pf(&R, rs, 1);
                else sweep_full_pf(&R, rs, 2);
            }
            tv[v][k] = (now() - t0) / K;
        }
        double t0 = now();
        for (int s = 0; s < K; s++) sweep_rows(&R, r, Q);
        tr[k] = (now() - t0) / K;
        t0 = now();
        for (int s = 0; s < K; s++) sweep_solve(&R, Q, r, rs, NULL, nc);
        ts[k] = (now() - t0) / K;
    }
    int ncase[4] = {0, 0, 0, 0};
    double dmax = 0.0, enmax = 0.0, ecmax = 0.0;
    for (int a = 0; a < nc; a++) {   /* the cases at the last rows' q: take-off, sticking, sliding */
        double x[3] = {r[3 * a], r[3 * a + 1], r[3 * a + 2]}, y[3];
        int cs = Q[3 * a] >= 0.0 ? 0 : fc_local_law_3d(&loc[a], Q + 3 * a, y) == 0 ? 1 : 2;
        ncase[cs]++;
        if (cs != 2) continue;
        double xn[3] = {x[0], x[1], x[2]};
        if (!(fc_local_solve(&loc[a], Q + 3 * a, &R.par, x) <= 1e-14)) ncase[3]++;
        double en = fc_local_solve(&loc0[a], Q + 3 * a, &R.par, xn), dn = 0.0, nn = 0.0;
        for (int i = 0; i < 3; i++) { dn += (x[i] - xn[i]) * (x[i] - xn[i]); nn += xn[i] * xn[i]; }
        if (nn > 0 && sqrt(dn / nn) > dmax) dmax = sqrt(dn / nn);
        if (en > enmax) enmax = en;
        ecmax = fmax(ecmax, fc_local_error(&loc[a], Q + 3 * a, x));
    }
    printf("sliding: closed form against AC Newton, largest relative difference %.2e; local errors at most "
           "%.2e (closed form) and %.2e (Newton)\n", dmax, ecmax, enmax);
    printf("%s: nc %d (%d isotropic W_aa), %ld blocks (%.2f a row), %d warm sweeps, %d rounds of %d, %s time\n",
           file, nc, niso, R.W->nnz / 9, R.W->nnz / 9.0 / nc, warm, reps, K, getenv("WALL") ? "wall" : "CPU");
    printf("cases: take-off %d, sticking %d, sliding %d (local tolerance missed %d)\n", ncase[0], ncase[1],
           ncase[2], ncase[3]);
    double m0 = median(tv[0], reps);
    printf("ms a sweep (medians): AC Newton for sliding %.3f, closed form %.3f (%.2fx), with the prefetch of row a+1 %.3f (%.2fx), "
           "of row a+2 %.3f (%.2fx); rows alone %.3f, solves alone %.3f\n",
           1e3 * m0, 1e3 * median(tv[1], reps), m0 / median(tv[1], reps), 1e3 * median(tv[2], reps),
           m0 / median(tv[2], reps), 1e3 * median(tv[3], reps), m0 / median(tv[3], reps),
           1e3 * median(tr, reps), 1e3 * median(ts, reps));
    free(loc0);
    free(loc); free(r); free(Q); free(r0); free(rs); free(list);
    fc_matrix_free(Wb);
    fc_problem_free(p);
    return 0;
}
