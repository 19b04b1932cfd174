/* An independent implementation of the SPEC section 2 error measure for
 * tests: its own cone projections and its own u = W r + q (entry by entry
 * through fc_matrix_get's storage-free view is too slow, so through a CSR
 * copy walked here), so that no test takes a solver's or the library's
 * measure on trust.  Header-only; include once per test file. */
#ifndef FRICON_TEST_CHECK_H
#define FRICON_TEST_CHECK_H

#include "fricon.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Projection onto {||x_T|| <= mu x_N} (d = 2, 3) or, for d = 5, onto
 * {||x_T|| <= mu x_N, ||x_R|| <= mu_r x_N} by minimising the convex
 * piecewise quadratic in x_N (bisection on its slope). */
static inline void check_project(int d, double mu, double mu_r, double *x)
{
    if (d != 5) {
        double nt = d == 3 ? hypot(x[1], x[2]) : fabs(x[1]);
        if (nt <= mu * x[0]) return;
        if (mu * nt <= -x[0]) { for (int k = 0; k < d; k++) x[k] = 0; return; }
        double a = (x[0] + mu * nt) / (1 + mu * mu);
        x[0] = a;
        for (int k = 1; k < d; k++) x[k] = x[k] * (mu * a / nt);
        return;
    }
    double t = hypot(x[1], x[2]), s = hypot(x[3], x[4]);
    /* phi(n) = (n - x0)^2 + max(0, t - mu n)^2 + max(0, s - mu_r n)^2 is
     * convex in n >= 0: bisection on the sign of its (increasing) slope
     * phi'(n)/2 = n - x0 - mu max(0, t - mu n) - mu_r max(0, s - mu_r n). */
    double lo = 0.0, hi = fabs(x[0]) + t + s + 1.0;
    for (int it = 0; it < 200 && hi - lo > 0; it++) {
        double mid = 0.5 * (lo + hi);
        double slope = mid - x[0] - mu * fmax(0, t - mu * mid) - mu_r * fmax(0, s - mu_r * mid);
        if (slope > 0) hi = mid; else lo = mid;
    }
    double n = 0.5 * (lo + hi);
    x[0] = n;
    if (t > mu * n) { for (int k = 1; k < 3; k++) x[k] = t > 0 ? x[k] * (mu * n / t) : 0; }
    if (s > mu_r * n) { for (int k = 3; k < 5; k++) x[k] = s > 0 ? x[k] * (mu_r * n / s) : 0; }
}

/* Euclidean norm, scaled by the largest entry (no overflow near DBL_MAX). */
static inline double check_norm(int n, const double *x)
{
    double big = 0, s = 0;
    for (int i = 0; i < n; i++) big = fmax(big, fabs(x[i]));
    if (big == 0 || !isfinite(big)) return big;
    for (int i = 0; i < n; i++) s += (x[i] / big) * (x[i] / big);
    return big * sqrt(s);
}

/* SPEC measure of a local problem at r, with u = W r + q computed here
 * (u_out, if not NULL, receives it).  scale: q for local, w for global.
 * relaxation != 0: the same formula without the De Saxce term (u_hat =
 * u), the residual of the convex relaxation K* ∋ u ⟂ r ∈ K. */
/* y += A x, through a CSR copy walked here (A rows x cols); transposed:
 * y += A^T x. */
static inline void check_gemv(const fc_matrix *A, int transposed, const double *x, double *y)
{
    fc_matrix *C = fc_matrix_to_csr(A);
    for (int i = 0; i < C->rows; i++)
        for (int k = C->p[i]; k < C->p[i + 1]; k++) {
            if (transposed) y[C->j[k]] += C->x[k] * x[i];
            else y[i] += C->x[k] * x[C->j[k]];
        }
    fc_matrix_free(C);
}

/* The SPEC contact measure at (r, u) with s = max(||scale||, ||r||, ||u||);
 * relaxation != 0: without the De Saxce term. */
static inline double check_contact_error(const fc_problem *p, const double *r, const double *u,
                                         const double *scale, int relaxation)
{
    int d = p->d, m = d * p->nc;
    double *e = malloc((size_t)m * sizeof *e);
    for (int a = 0; a < p->nc; a++) {
        const double *ra = r + d * a, *ua = u + d * a;
        double x[5], mu = p->mu[a], mur = p->mu_r ? p->mu_r[a] : 0;
        double uhat = ua[0] + mu * (d == 2 ? fabs(ua[1]) : hypot(ua[1], ua[2]));
        if (d == 5) uhat += mur * hypot(ua[3], ua[4]);
        if (relaxation) uhat = ua[0];
        x[0] = ra[0] - uhat;
        for (int k = 1; k < d; k++) x[k] = ra[k] - ua[k];
        check_project(d, mu, mur, x);
        for (int k = 0; k < d; k++) e[d * a + k] = ra[k] - x[k];
    }
    double s = fmax(check_norm(m, scale), fmax(check_norm(m, r), check_norm(m, u)));
    if (s < 1e-300) s = 1;
    double en = check_norm(m, e);
    free(e);
    return en / s;
}

/* SPEC measure of a local problem at r, with u = W r + q computed here
 * (u_out, if not NULL, receives it).  scale: q for local, w for global.
 * relaxation != 0: the same formula without the De Saxce term (u_hat =
 * u), the residual of the convex relaxation K* ∋ u ⟂ r ∈ K. */
static inline double check_error_with(const fc_problem *p, const fc_matrix *W, const double *q,
                               const double *scale, const double *r, double *u_out,
                               int relaxation)
{
    int m = p->d * p->nc;
    double *u = malloc((size_t)m * sizeof *u);
    memcpy(u, q, (size_t)m * sizeof *u);
    check_gemv(W, 0, r, u);
    double e = check_contact_error(p, r, u, scale, relaxation);
    if (u_out) memcpy(u_out, u, (size_t)m * sizeof *u);
    free(u);
    return e;
}

static inline double check_error_kind(const fc_problem *p, const double *r, int relaxation)
{
    if (p->kind == FC_LOCAL) return check_error_with(p, p->W, p->q, p->q, r, NULL, relaxation);
    fc_problem *loc = NULL;
    if (fc_problem_reduce(p, &loc, NULL) != FC_OK) return NAN;
    double e = check_error_with(p, loc->W, loc->q, p->w, r, NULL, relaxation);
    fc_problem_free(loc);
    return e;
}

/* The measure for a local problem, or for a global one through its
 * reduction (W = H^T M^-1 H, q = H^T M^-1 f + w) with s using ||w||, as
 * shared/tools/fccheck.py computes it. */
static inline double check_error(const fc_problem *p, const double *r)
{
    return check_error_kind(p, r, 0);
}

/* The convex relaxation's residual, computed the same way. */
static inline double check_relaxation_error(const fc_problem *p, const double *r)
{
    return check_error_kind(p, r, 1);
}

/* SPEC section 2 with equality constraints, all recomputed here: the
 * contact measure with u = W r + V lambda + q (local) or u = H^T v + w
 * (global, v required), *dyn = ||M v - H r - G lambda - f|| / max(1, ||f||)
 * (global; 0 for local), *eq = ||V^T r + R lambda + s|| / max(1, ||s||) or
 * ||G^T v + b|| / max(1, ||b||). */
static inline double check_error_eq(const fc_problem *p, const double *r, const double *v,
                                    const double *lambda, double *dyn, double *eq)
{
    int m = p->d * p->nc, neq = p->neq;
    double *u = calloc((size_t)m, sizeof *u), *e = calloc((size_t)neq + 1, sizeof *e);
    double err;
    *dyn = 0;
    if (p->kind == FC_LOCAL) {
        memcpy(u, p->q, (size_t)m * sizeof *u);
        check_gemv(p->W, 0, r, u);
        if (neq) check_gemv(p->V, 0, lambda, u);
        err = check_contact_error(p, r, u, p->q, 0);
        if (neq) {
            memcpy(e, p->s, (size_t)neq * sizeof *e);
            check_gemv(p->V, 1, r, e);
            if (p->R) check_gemv(p->R, 0, lambda, e);
        }
        *eq = neq ? check_norm(neq, e) / fmax(1, check_norm(neq, p->s)) : 0;
    } else {
        int n = p->n;
        double *g = calloc((size_t)n, sizeof *g);
        memcpy(u, p->w, (size_t)m * sizeof *u);
        check_gemv(p->H, 1, v, u);
        err = check_contact_error(p, r, u, p->w, 0);
        check_gemv(p->M, 0, v, g);
        for (int i = 0; i < n; i++) g[i] = -g[i] + p->f[i];
        check_gemv(p->H, 0, r, g);
        if (neq) check_gemv(p->G, 0, lambda, g);
        *dyn = check_norm(n, g) / fmax(1, check_norm(n, p->f));
        if (neq) {
            memcpy(e, p->b, (size_t)neq * sizeof *e);
            check_gemv(p->G, 1, v, e);
        }
        *eq = neq ? check_norm(neq, e) / fmax(1, check_norm(neq, p->b)) : 0;
        free(g);
    }
    free(u);
    free(e);
    return err;
}

#endif
