/* Issue 33, the second half of lead 1 (an experiment, not in the library):
 * Gauss-Seidel on the reduced problem (W = H' M^-1 H) where the contacts
 * that stick before and after their one-contact solve are over-relaxed,
 * r_a <- P_K(r_a + omega (r_a^GS - r_a)) (the projection keeps the cones),
 * the others take r_a^GS.  omega fixed, or (omega < 0) chosen every K
 * sweeps by a line search on the SPEC error: the candidates omega / 1.15,
 * omega, omega * 1.15 (at most 1.95) each run K sweeps from the same
 * state and the best is kept (3 K sweeps of work per K kept).
 * ACCEL = 1 adds nncg's conjugate step after every sweep (restart at
 * beta > 1.5, as nncg's defaults; u then recomputed, so the CPU is not
 * nncg's: compare sweeps).
 * ACCEL = 2: Anderson(5) (type II) on the sweep map, its extrapolation
 * applied to the contacts that stick before and after the sweep only
 * (gamma fitted on their residuals), projected on the cones; the memory
 * is dropped when the residual grows 2-fold.
 * usage: sticksor FILE OMEGA MAXSWEEPS [K [ACCEL]] ; starts from the file's guess.
 * Prints the error every 100 sweeps and the sweeps (work) to 1e-4. */
#include "internal.h"
#include "cone/cone.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    const fc_problem *lp;
    fc_matrix *W;      /* CSR, symmetric */
    fc_local *loc;
    fc_local_params par;
    int nc, m;
} prob;

static int inside(const double *r, double mu)
{
    double rt = sqrt(r[1] * r[1] + r[2] * r[2]);
    return r[0] > 0 && rt < 0.999 * mu * r[0];
}

static void exact_u(const prob *P, const double *r, double *u)
{
    for (int i = 0; i < P->m; i++) {
        double s = P->lp->q[i];
        for (int k = P->W->p[i]; k < P->W->p[i + 1]; k++) s += P->W->x[k] * r[P->W->j[k]];
        u[i] = s;
    }
}

static void sweep(const prob *P, double omega, double *r, double *u, long *nrelax)
{
    const fc_matrix *W = P->W;
    for (int a = 0; a < P->nc; a++) {
        double *ra = r + 3 * a, qa[3], rn[3], old[3], dl[3];
        const fc_local *c = &P->loc[a];
        for (int k = 0; k < 3; k++) {
            old[k] = ra[k];
            qa[k] = u[3 * a + k];
            for (int l = 0; l < 3; l++) qa[k] -= c->W[l * 3 + k] * ra[l];
            rn[k] = ra[k];
        }
        fc_local_solve(c, qa, &P->par, rn);
        if (omega != 1.0 && inside(rn, c->mu) && inside(old, c->mu)) {
            for (int k = 0; k < 3; k++) rn[k] = old[k] + omega * (rn[k] - old[k]);
            fc_project_cone(3, c->mu, 0, rn);
            (*nrelax)++;
        }
        for (int k = 0; k < 3; k++) { dl[k] = rn[k] - old[k]; ra[k] = rn[k]; }
        if (dl[0] == 0 && dl[1] == 0 && dl[2] == 0) continue;
        /* u += W(:, a) dl = W(a, :)' dl (W symmetric) */
        for (int k = 0; k < 3; k++) {
            int i = 3 * a + k;
            if (dl[k] == 0) continue;
            for (int q = W->p[i]; q < W->p[i + 1]; q++) u[W->j[q]] += W->x[q] * dl[k];
        }
    }
}

static double err_of(const prob *P, const double *r, double *u)
{
    exact_u(P, r, u);
    return fc_error_local(P->lp, r, u);
}

int main(int argc, char **argv)
{
    if (argc < 4) { fprintf(stderr, "usage: sticksor FILE OMEGA MAXSWEEPS [K]\n"); return 2; }
    double omega = atof(argv[2]);
    int maxs = atoi(argv[3]), K = argc > 4 ? atoi(argv[4]) : 10, accel = argc > 5 ? atoi(argv[5]) : 0;
    fc_problem *p = NULL, *lp = NULL;
    fc_error err;
    if (fc_read(argv[1], &p, &err) != FC_OK) { fprintf(stderr, "%s\n", err.msg); return 2; }
    if (fc_problem_reduce(p, &lp, &err) != FC_OK) { fprintf(stderr, "%s\n", err.msg); return 2; }
    prob P = {lp, fc_matrix_to_csr(lp->W), NULL, {FC_LOCAL_HYBRID, 1e-14, 20}, lp->nc, 3 * lp->nc};
    P.loc = calloc((size_t)P.nc, sizeof *P.loc);
    for (int a = 0; a < P.nc; a++) {
        double blk[9];
        for (int k = 0; k < 3; k++)
            for (int l = 0; l < 3; l++) blk[l * 3 + k] = fc_matrix_get(P.W, 3 * a + k, 3 * a + l);
        fc_local_setup(&P.loc[a], 3, blk, lp->mu[a], 0);
    }
    double *r = calloc((size_t)P.m, 8), *u = calloc((size_t)P.m, 8);
    double *r0 = calloc((size_t)P.m, 8), *u0 = calloc((size_t)P.m, 8);
    double *rb = calloc((size_t)P.m, 8), *ub = calloc((size_t)P.m, 8);
    double *x = calloc((size_t)P.m, 8), *pd = calloc((size_t)P.m, 8), gg_prev = 0;
    enum { AM = 5 };
    double *dF = calloc((size_t)P.m * AM, 8), *dG = calloc((size_t)P.m * AM, 8);
    double *fprev = calloc((size_t)P.m, 8), *gprev = calloc((size_t)P.m, 8), *fk = calloc((size_t)P.m, 8);
    char *stick = calloc((size_t)P.nc, 1);
    int an = 0, ahead = 0, have_prev = 0;
    double fnorm_prev = INFINITY;
    int cnt = 0;
    fc_read_guess(argv[1], p, 1, r, NULL, &cnt, &err);
    double e = err_of(&P, r, u);
    printf("%s nc %d omega %g K %d accel %d: start %.3e\n", argv[1], P.nc, omega, K, accel, e);
    clock_t t0 = clock();
    long work = 0, nrelax = 0;
    int kept = 0;
    double om = omega < 0 ? 1.3 : omega;
    while (work < maxs && e > 1e-4) {
        if (omega > 0) {
            for (int s = 0; s < K; s++) {
                if (accel) memcpy(x, r, (size_t)P.m * 8);
                sweep(&P, om, r, u, &nrelax);
                if (!accel) continue;
                if (accel == 2) {
                    for (int a = 0; a < P.nc; a++)
                        stick[a] = (char)(inside(x + 3 * a, P.loc[a].mu) && inside(r + 3 * a, P.loc[a].mu));
                    double fn = 0;
                    for (int i = 0; i < P.m; i++) { fk[i] = r[i] - x[i]; fn += fk[i] * fk[i]; }
                    if (fn > 4 * fnorm_prev) { an = 0; ahead = 0; have_prev = 0; }
                    fnorm_prev = fn;
                    if (have_prev) {
                        for (int i = 0; i < P.m; i++) {
                            dF[(size_t)ahead * P.m + i] = fk[i] - fprev[i];
                            dG[(size_t)ahead * P.m + i] = r[i] - gprev[i];
                        }
                        ahead = (ahead + 1) % AM;
                        if (an < AM) an++;
                    }
                    memcpy(fprev, fk, (size_t)P.m * 8); memcpy(gprev, r, (size_t)P.m * 8);
                    have_prev = 1;
                    if (an == 0) continue;
                    /* normal equations on the sticking rows */
                    double A[AM * AM] = {0}, b[AM] = {0}, gm[AM] = {0};
                    for (int a = 0; a < P.nc; a++) {
                        if (!stick[a]) continue;
                        for (int k = 0; k < 3; k++) {
                            int i = 3 * a + k;
                            for (int p1 = 0; p1 < an; p1++) {
                                double fi = dF[(size_t)p1 * P.m + i];
                                b[p1] += fi * fk[i];
                                for (int p2 = 0; p2 <= p1; p2++) A[p1 * AM + p2] += fi * dF[(size_t)p2 * P.m + i];
                            }
                        }
                    }
                    double tr = 0;
                    for (int p1 = 0; p1 < an; p1++) tr += A[p1 * AM + p1];
                    for (int p1 = 0; p1 < an; p1++) A[p1 * AM + p1] += 1e-10 * tr + 1e-300;
                    int ok = 1;   /* Cholesky, lower */
                    for (int j = 0; j < an && ok; j++) {
                        double dj = A[j * AM + j];
                        for (int l = 0; l < j; l++) dj -= A[j * AM + l] * A[j * AM + l];
                        if (!(dj > 0)) { ok = 0; break; }
                        A[j * AM + j] = sqrt(dj);
                        for (int i = j + 1; i < an; i++) {
                            double v = A[i * AM + j];
                            for (int l = 0; l < j; l++) v -= A[i * AM + l] * A[j * AM + l];
                            A[i * AM + j] = v / A[j * AM + j];
                        }
                    }
                    if (!ok) continue;
                    for (int i = 0; i < an; i++) {
                        double v = b[i];
                        for (int l = 0; l < i; l++) v -= A[i * AM + l] * gm[l];
                        gm[i] = v / A[i * AM + i];
                    }
                    for (int i = an - 1; i >= 0; i--) {
                        double v = gm[i];
                        for (int l = i + 1; l < an; l++) v -= A[l * AM + i] * gm[l];
                        gm[i] = v / A[i * AM + i];
                    }
                    for (int a = 0; a < P.nc; a++) {
                        if (!stick[a]) continue;
                        for (int k = 0; k < 3; k++) {
                            int i = 3 * a + k;
                            for (int p1 = 0; p1 < an; p1++) r[i] -= gm[p1] * dG[(size_t)p1 * P.m + i];
                        }
                        fc_project_cone(3, P.loc[a].mu, 0, r + 3 * a);
                    }
                    exact_u(&P, r, u);
                    continue;
                }
                double gg = 0;
                for (int i = 0; i < P.m; i++) gg += (r[i] - x[i]) * (r[i] - x[i]);
                double beta = gg_prev > 0 ? gg / gg_prev : INFINITY;
                gg_prev = gg;
                if (beta > 1.5) {
                    for (int i = 0; i < P.m; i++) pd[i] = r[i] - x[i];
                } else {
                    for (int i = 0; i < P.m; i++) {
                        double g = r[i] - x[i];
                        r[i] += beta * pd[i];
                        pd[i] = beta * pd[i] + g;
                    }
                    exact_u(&P, r, u);
                }
            }
            work += K;
            e = err_of(&P, r, u);
        } else {
            /* line search on omega: K sweeps per candidate from the same state */
            memcpy(r0, r, (size_t)P.m * 8); memcpy(u0, u, (size_t)P.m * 8);
            double cand[3] = {fmax(1.0, om / 1.15), om, fmin(1.95, om * 1.15)}, best = INFINITY, bo = om;
            for (int c = 0; c < 3; c++) {
                if (c > 0 && cand[c] == cand[c - 1]) continue;
                memcpy(r, r0, (size_t)P.m * 8); memcpy(u, u0, (size_t)P.m * 8);
                for (int s = 0; s < K; s++) sweep(&P, cand[c], r, u, &nrelax);
                work += K;
                double ec = err_of(&P, r, u);
                if (ec < best) { best = ec; bo = cand[c]; memcpy(rb, r, (size_t)P.m * 8); memcpy(ub, u, (size_t)P.m * 8); }
            }
            memcpy(r, rb, (size_t)P.m * 8); memcpy(u, ub, (size_t)P.m * 8);
            e = best; om = bo; kept++;
        }
        if (work % 100 < (omega > 0 ? K : 3 * K))
            printf("  work %5ld sweeps: %.3e (omega %.3f)\n", work, e, om);
    }
    printf("end: %s after %ld sweeps of work, error %.3e, global %.3e, cpu %.2f s, relaxed updates %ld\n",
           e <= 1e-4 ? "converged" : "not converged", work, e, fc_residual(p, r, NULL, NULL),
           (double)(clock() - t0) / CLOCKS_PER_SEC, nrelax);
    return 0;
}
