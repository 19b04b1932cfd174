/* Enumeration of the complementary bases of the 2D friction LCP (lcp.h),
 * for small problems only (LCP size 4 nc <= opt->lcp.enum_max_size).
 *
 * A complementary basis is a set S of the z variables that are basic (the
 * w of the others are): z_S solves M_SS z_S = -q_S, z = 0 off S, and the
 * basis gives a solution when z_S >= 0 and w = M z + q >= 0.  The bases
 * are visited in two passes: first the ones a contact law produces (per
 * contact: free with u = 0, sticking r_T >= 0 or <= 0, sliding either way,
 * separated with u_T >= 0 or <= 0, r_T = 0 kept by a singular W: 8^nc bases, each solution of the
 * friction problem being generically one of them), then, if none is
 * feasible (a degenerate problem), every one of the 2^n.  Each basis tried
 * counts as one iteration.  Dense n x n storage: n is at most a few tens. */
#include "solvers/lcp.h"

#include <stdio.h>

/* z variables basic (bit 0: r_N, 1: r_T+, 2: r_T-, 3: lambda) per law */
static const unsigned contact_laws[8] = {
    0x0,        /* r = 0, u = 0 (w all basic)         */
    0x3,        /* sticking, r_T >= 0                 */
    0x5,        /* sticking, r_T <= 0                 */
    0xD,        /* sliding, u_T > 0 (r_T = -mu r_N)   */
    0xB,        /* sliding, u_T < 0 (r_T = +mu r_N)   */
    0xC,        /* separated, u_T > 0 (lambda = u_T)  */
    0xA,        /* separated, u_T < 0                 */
    0x1,        /* r_T = 0 held by u_T = 0 elsewhere (singular W) */
};

typedef struct enum_ws {
    int n;
    double *M;        /* dense n x n, column-major */
    const double *q;
    double *A, *b, *z, *w;
    int *ipiv;
    int *idx;
    double feas_tol;
} enum_ws;

/* Solve A x = b (k x k, column-major, overwritten) by Gaussian
 * elimination with partial pivoting; 0 when A is singular.  Not LAPACK's
 * dgesv: for these tiny systems, solved by the hundred thousand, a
 * threaded OpenBLAS costs more in thread start-up (docs/measurements.md). */
static int small_solve(int k, double *A, double *b, int *piv)
{
    double amax = 0;
    for (int i = 0; i < k * k; i++) amax = fmax(amax, fabs(A[i]));
    for (int c = 0; c < k; c++) {
        int pr = c;
        for (int r = c + 1; r < k; r++)
            if (fabs(A[r + c * k]) > fabs(A[pr + c * k])) pr = r;
        if (!(fabs(A[pr + c * k]) > 1e-13 * amax)) return 0;
        piv[c] = pr;
        if (pr != c) {
            for (int j = 0; j < k; j++) {
                double t = A[c + j * k]; A[c + j * k] = A[pr + j * k]; A[pr + j * k] = t;
            }
            double t = b[c]; b[c] = b[pr]; b[pr] = t;
        }
        double d = A[c + c * k];
        for (int r = c + 1; r < k; r++) {
            double f = A[r + c * k] / d;
            if (f == 0.0) continue;
            for (int j = c + 1; j < k; j++) A[r + j * k] -= f * A[c + j * k];
            b[r] -= f * b[c];
        }
    }
    for (int c = k - 1; c >= 0; c--) {
        double s = b[c];
        for (int j = c + 1; j < k; j++) s -= A[c + j * k] * b[j];
        b[c] = s / A[c + c * k];
    }
    return 1;
}

/* Try the basis S (bit i: z_i basic); 1 and z filled when feasible. */
static int try_basis(enum_ws *e, unsigned long S)
{
    int n = e->n, k = 0;
    for (int i = 0; i < n; i++)
        if (S >> i & 1UL) e->idx[k++] = i;
    memset(e->z, 0, (size_t)n * sizeof *e->z);
    if (k > 0) {
        for (int c = 0; c < k; c++)
            for (int r = 0; r < k; r++) e->A[r + c * k] = e->M[e->idx[r] + (size_t)e->idx[c] * n];
        for (int r = 0; r < k; r++) e->b[r] = -e->q[e->idx[r]];
        if (!small_solve(k, e->A, e->b, e->ipiv)) return 0;
        for (int r = 0; r < k; r++) {
            if (!(e->b[r] >= -e->feas_tol)) return 0;
            e->z[e->idx[r]] = fmax(e->b[r], 0.0);
        }
    }
    for (int i = 0; i < n; i++) {
        if (S >> i & 1UL) continue;
        double s = e->q[i];
        for (int j = 0; j < n; j++) s += e->M[i + (size_t)j * n] * e->z[j];
        if (!(s >= -e->feas_tol)) return 0;
    }
    return 1;
}

fc_status fc_enum_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                        fc_info *info)
{
    int nc = p->nc, n = 4 * nc;
    int maxn = opt->lcp.enum_max_size > 0 ? opt->lcp.enum_max_size : 24;
    if (maxn > 60) maxn = 60;
    info->iterations = 0;
    if (n > maxn) {
        snprintf(info->message, sizeof info->message,
                 "enum: LCP size %d (%d contacts) exceeds lcp.enum_max_size = %d; use lemke",
                 n, nc, maxn);
        return FC_STATUS_ERROR;
    }
    fc_lcp lcp;
    fc_error err;
    if (fc_lcp2d_build(p, &lcp, &err) != FC_OK) {
        snprintf(info->message, sizeof info->message, "%.200s", err.msg);
        return FC_STATUS_ERROR;
    }
    enum_ws e = {0};
    e.n = n;
    e.q = lcp.q;
    e.feas_tol = 1e-11;
    e.M = fc_calloc((size_t)n * n + 1, sizeof *e.M);
    e.A = fc_calloc((size_t)n * n + 1, sizeof *e.A);
    e.b = fc_calloc((size_t)n + 1, sizeof *e.b);
    e.z = fc_calloc((size_t)n + 1, sizeof *e.z);
    e.ipiv = fc_calloc((size_t)n + 1, sizeof *e.ipiv);
    e.idx = fc_calloc((size_t)n + 1, sizeof *e.idx);
    fc_status st = FC_MAX_ITER;
    if (!e.M || !e.A || !e.b || !e.z || !e.ipiv || !e.idx) {
        snprintf(info->message, sizeof info->message, "out of memory");
        st = FC_STATUS_ERROR;
        goto done;
    }
    for (int i = 0; i < n; i++)
        for (int k = lcp.M->p[i]; k < lcp.M->p[i + 1]; k++)
            e.M[i + (size_t)lcp.M->j[k] * n] = lcp.M->x[k];
    fc_clock clk;
    fc_clock_start(&clk, opt);
    int it = 0, found = 0, stop = 0;
    /* pass 1: bases of the contact laws, 8^nc, counted in base 8 */
    int cnt[16] = {0};
    for (;;) {
        unsigned long S = 0;
        for (int a = 0; a < nc; a++) S |= (unsigned long)contact_laws[cnt[a]] << (4 * a);
        it++;
        if (try_basis(&e, S)) { found = 1; break; }
        if (it >= opt->max_iter || fc_clock_expired(&clk) ||
            (opt->progress && opt->progress(opt->progress_user, it, 1.0))) { stop = 1; break; }
        int a = 0;
        while (a < nc && ++cnt[a] == 8) cnt[a++] = 0;
        if (a == nc) break;
    }
    /* pass 2: every complementary basis */
    if (!found && !stop)
        for (unsigned long S = 0; S < (1UL << n); S++) {
            it++;
            if (try_basis(&e, S)) { found = 1; break; }
            if (it >= opt->max_iter || fc_clock_expired(&clk) ||
                (opt->progress && opt->progress(opt->progress_user, it, 1.0))) { stop = 1; break; }
        }
    info->iterations = it;
    if (found) {
        st = FC_CONVERGED;
        fc_lcp2d_reactions(p, &lcp, e.z, r);
    } else if (stop) {
        st = fc_clock_expired(&clk) ? FC_TIME_LIMIT : FC_MAX_ITER;
        snprintf(info->message, sizeof info->message, "enum: stopped after %d bases without a solution", it);
    } else {
        st = FC_STATUS_ERROR;
        snprintf(info->message, sizeof info->message,
                 "enum: none of the complementary bases is feasible (tolerance %g)", e.feas_tol);
    }
    fc_problem_u(p, r, u);
done:
    free(e.M); free(e.A); free(e.b); free(e.z); free(e.ipiv); free(e.idx);
    fc_lcp_free(&lcp);
    return st;
}
