/* Temporary (bal): ns per one-contact solve by case (take-off, sticking,
 * sliding isotropic, sliding other) and per block of a row's product,
 * after W warm sweeps, 1 thread, CPU time; each class timed R times over
 * its contacts, medians.  cc -O2 -I src solve_cost.c build/libfricon.a ... */
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
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}
static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
int main(int argc, char **argv)
{
    const char *file = argv[1];
    int warm = argc > 2 ? atoi(argv[2]) : 10, R = 9;
    fc_problem *p;
    fc_error err;
    if (fc_read(file, &p, &err) != FC_OK) return 2;
    int nc = p->nc, m = 3 * nc;
    fc_matrix *Wb = p->W->kind == FC_MAT_BSR && p->W->bs == 3 ? NULL : fc_matrix_to_bsr(p->W, 3);
    const fc_matrix *W = Wb ? Wb : p->W;
    fc_local_params par = {FC_LOCAL_HYBRID, 1e-14, 20};
    fc_local *loc = calloc((size_t)nc, sizeof *loc);
    double *r = calloc((size_t)m, sizeof *r), *Q = calloc((size_t)m, sizeof *Q), *rs = calloc((size_t)m, sizeof *rs);
    int *cls = calloc((size_t)nc, sizeof *cls), *list = calloc((size_t)nc, sizeof *list);
    for (int a = 0; a < nc; a++) {
        double blk[9];
        fc_matrix_diag_block(W, a, 3, blk);
        fc_local_setup(&loc[a], 3, blk, p->mu[a], 0.0);
    }
    for (int s = 0; s < warm; s++)
        for (int a = 0; a < nc; a++) {
            double qa[3], ra[3];
            bsr_row_dot(W, 3, a, r, 1, qa);
            for (int k = 0; k < 3; k++) { qa[k] += p->q[3 * a + k]; ra[k] = r[3 * a + k]; }
            fc_local_solve(&loc[a], qa, &par, ra);
            for (int k = 0; k < 3; k++) r[3 * a + k] = ra[k];
        }
    for (int a = 0; a < nc; a++) {
        double qa[3], y[3];
        bsr_row_dot(W, 3, a, r, 1, qa);
        for (int k = 0; k < 3; k++) Q[3 * a + k] = qa[k] + p->q[3 * a + k];
        cls[a] = Q[3 * a] >= 0.0 ? 0 : fc_local_law_3d(&loc[a], Q + 3 * a, y) == 0 ? 1 : loc[a].iso ? 2 : 3;
    }
    const char *nm[4] = {"take-off", "sticking", "sliding-iso", "sliding-other"};
    for (int c = 0; c < 4; c++) {
        int n = 0;
        for (int a = 0; a < nc; a++) if (cls[a] == c) list[n++] = a;
        if (!n) continue;
        double t[16];
        int reps = n < 100000 ? 20 : 3;
        for (int k = 0; k < R; k++) {
            double t0 = now();
            for (int q = 0; q < reps; q++)
                for (int i = 0; i < n; i++) {
                    int a = list[i];
                    double ra[3] = {r[3 * a], r[3 * a + 1], r[3 * a + 2]};
                    fc_local_solve(&loc[a], Q + 3 * a, &par, ra);
                    rs[3 * a] = ra[0];
                }
            t[k] = (now() - t0) / reps / n;
        }
        qsort(t, R, sizeof *t, cmp);
        printf("%s: %d contacts, %.1f ns a solve (median of %d)\n", nm[c], n, 1e9 * t[R / 2], R);
    }
    double t[16];
    for (int k = 0; k < R; k++) {
        double t0 = now();
        for (int a = 0; a < nc; a++) {
            double qa[3];
            bsr_row_dot(W, 3, a, r, 1, qa);
            rs[3 * a] = qa[0];
        }
        t[k] = (now() - t0) / (W->nnz / 9);
    }
    qsort(t, R, sizeof *t, cmp);
    printf("rows: %ld blocks, %.2f ns a block (median of %d)\n", W->nnz / 9, 1e9 * t[R / 2], R);
    return 0;
}
