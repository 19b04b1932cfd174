/* Nonsmooth (semismooth) Newton methods on reformulations F(r) = 0 of the
 * local problem FC(W, q, mu), with u = W r + q eliminated:
 *   Alart-Curnier, Jean-Moreau, Fischer-Burmeister (second-order cone),
 *   natural map.
 * Per contact F_a depends on (r_a, u_a) only, so a generalised Jacobian is
 * J = A W + B with A, B block diagonal (d x d blocks): J has W's block
 * pattern (plus the diagonal blocks).  It is assembled in place into a
 * fixed CSC pattern and factorised by sparse LU (UMFPACK or KLU) with the
 * symbolic analysis done once.  Globalisation: Goldstein-Price, Armijo or
 * non-monotone line search on 1/2 ||F||^2; a delta*I regularisation of
 * the W part (or a Levenberg-Marquardt-like shift) when J is singular or
 * the direction is not a descent one; stagnation detection.  nsn-hybrid
 * falls back to NSGS sweeps when Newton fails and returns to Newton.
 *
 * Equality rows (V, R, s; solve_local_eq): the iterate is (r, lambda),
 * u = W r + V lambda + q, and the Newton system is bordered,
 *   [J  A V; V^T  R] [dr; dl] = -[F; e],   e = V^T r + R lambda + s,
 * solved by eliminating dr with J's factors (neq solves for Z = J^-1 A V,
 * then the dense Schur complement R - V^T Z); the merit is
 * 1/2 (||F||^2 + ||e||^2). */
#include "internal.h"
#include "core/stage.h"
#include "linsys/linsys.h"
#include "solvers/nsn.h"
#include "solvers/eqblock.h"

#include <lapacke.h>
#include <stdio.h>

/* The rate at which a predicted factorisation is costed before one was
 * timed (UMFPACK's on the generated columns; KLU gives way to UMFPACK on
 * heavy fill). */
#define FC_NSN_FLOPS_PER_SECOND 1e10

/* Relative singular-value cut of the equality rows' Schur complement. */
#define FC_NSN_EQ_RCOND 1e-12

#define FC_SQRT1_2 0.70710678118654752440

/* nsn-hybrid stops when this many rounds in a row at the longest NSGS
 * fallback (nsn.hybrid_max_sweeps) did not make its best error 10% better. */
#define FC_NSN_HYBRID_STALL_ROUNDS 5

/* ------------------------------------------------------------------ */
/* Per-contact functions and their generalised Jacobians               */
/* ------------------------------------------------------------------ */

#define IDX(i, j) ((i) + (j) * d)

/* Alart-Curnier (jm = 0) or Jean-Moreau (jm = 1). */
static void contact_ac(int jm, int d, double mu, double rn, double rt, const double *r,
                       const double *u, double *F, double *A, double *B)
{
    int t = d - 1;
    double xn = r[0] - rn * u[0];
    int pos = xn > 0;
    F[0] = pos ? rn * u[0] : r[0];
    if (A) {
        memset(A, 0, (size_t)(d * d) * sizeof *A);
        memset(B, 0, (size_t)(d * d) * sizeof *B);
        if (pos) A[0] = rn; else B[0] = 1.0;
    }
    double R = jm ? mu * fmax(0.0, r[0]) : mu * fmax(0.0, xn);
    int rpos = jm ? r[0] > 0 : pos;
    double y[2], ny = 0.0;
    for (int k = 0; k < t; k++) { y[k] = r[1 + k] - rt * u[1 + k]; ny += y[k] * y[k]; }
    ny = sqrt(ny);
    if (R > 0 && ny <= R) {                      /* sticking: P(y) = y */
        for (int k = 0; k < t; k++) F[1 + k] = rt * u[1 + k];
        if (A) for (int k = 0; k < t; k++) A[IDX(1 + k, 1 + k)] = rt;
        return;
    }
    if (ny == 0.0) {                             /* R = 0 and y = 0 */
        for (int k = 0; k < t; k++) F[1 + k] = r[1 + k];
        if (A) for (int k = 0; k < t; k++) B[IDX(1 + k, 1 + k)] = 1.0;
        return;
    }
    double n[2], s = R / ny;                     /* sliding: P(y) = R y/|y| */
    for (int k = 0; k < t; k++) { n[k] = y[k] / ny; F[1 + k] = r[1 + k] - R * n[k]; }
    if (!A) return;
    for (int i = 0; i < t; i++)
        for (int j = 0; j < t; j++) {
            double proj = (i == j ? 1.0 : 0.0) - n[i] * n[j];
            B[IDX(1 + i, 1 + j)] = (i == j ? 1.0 : 0.0) - s * proj;
            A[IDX(1 + i, 1 + j)] = rt * s * proj;
        }
    if (rpos)
        for (int i = 0; i < t; i++) {
            B[IDX(1 + i, 0)] = -mu * n[i];
            if (!jm) A[IDX(1 + i, 0)] = mu * rn * n[i];
        }
}

/* Projection onto {|z_T| <= mu z_N} and its derivative DP (d x d). */
static void proj_cone_jac(int d, double mu, const double *z, double *P, double *DP)
{
    int t = d - 1;
    double nt = 0.0;
    for (int k = 0; k < t; k++) nt += z[1 + k] * z[1 + k];
    nt = sqrt(nt);
    memset(DP, 0, (size_t)(d * d) * sizeof *DP);
    if (nt <= mu * z[0]) {
        memcpy(P, z, (size_t)d * sizeof *P);
        for (int k = 0; k < d; k++) DP[IDX(k, k)] = 1.0;
        return;
    }
    if (mu * nt <= -z[0]) {
        memset(P, 0, (size_t)d * sizeof *P);
        return;
    }
    double c = 1.0 / (1.0 + mu * mu), a = (z[0] + mu * nt) * c, w[2];
    for (int k = 0; k < t; k++) w[k] = z[1 + k] / nt;
    P[0] = a;
    for (int k = 0; k < t; k++) P[1 + k] = mu * a * w[k];
    DP[0] = c;
    for (int k = 0; k < t; k++) {
        DP[IDX(0, 1 + k)] = mu * c * w[k];
        DP[IDX(1 + k, 0)] = mu * c * w[k];
    }
    for (int i = 0; i < t; i++)
        for (int j = 0; j < t; j++)
            DP[IDX(1 + i, 1 + j)] = mu * mu * c * w[i] * w[j] +
                                    mu * a / nt * ((i == j ? 1.0 : 0.0) - w[i] * w[j]);
}

/* Natural map F = r - P_K(r - rho u_hat), u_hat = u + mu |u_T| e_N. */
static void contact_nm(int d, double mu, double rho, const double *r, const double *u,
                       double *F, double *A, double *B)
{
    int t = d - 1;
    double nu = 0.0, z[3], P[3], DP[9];
    for (int k = 0; k < t; k++) nu += u[1 + k] * u[1 + k];
    nu = sqrt(nu);
    z[0] = r[0] - rho * (u[0] + mu * nu);
    for (int k = 0; k < t; k++) z[1 + k] = r[1 + k] - rho * u[1 + k];
    proj_cone_jac(d, mu, z, P, DP);
    for (int k = 0; k < d; k++) F[k] = r[k] - P[k];
    if (!A) return;
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            B[IDX(i, j)] = (i == j ? 1.0 : 0.0) - DP[IDX(i, j)];
            double g = DP[IDX(i, j)];             /* d u_hat / d u = I + e_N (mu u_T/|u_T|)^T */
            if (j > 0 && nu > 0) g += DP[IDX(i, 0)] * mu * u[j] / nu;
            A[IDX(i, j)] = rho * g;
        }
}

/* Arrow matrix L_x of the Jordan algebra of the Lorentz cone. */
static void arrow(int d, const double *x, double *L)
{
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++)
            L[IDX(i, j)] = i == j ? x[0] : (i == 0 ? x[j] : (j == 0 ? x[i] : 0.0));
}

/* Inverse of the arrow matrix of z (z in the interior of the cone). */
static void arrow_inv(int d, const double *z, double *Li)
{
    double nb2 = 0.0;
    for (int k = 1; k < d; k++) nb2 += z[k] * z[k];
    double det = z[0] * z[0] - nb2;
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double v;
            if (i == 0 && j == 0) v = z[0];
            else if (i == 0) v = -z[j];
            else if (j == 0) v = -z[i];
            else v = (i == j ? det / z[0] : 0.0) + z[i] * z[j] / z[0];
            Li[IDX(i, j)] = v / det;
        }
}

/* Fischer-Burmeister on the Lorentz cone after the change of variables
 * x = (mu r_N, r_T) in L, y = rho (u_N + mu |u_T|, mu u_T) in L:
 * F = x + y - (x o x + y o y)^(1/2).  For mu = 0, scalar FB on the normal
 * pair and F_T = r_T. */
static void contact_fb(int d, double mu, double rho, const double *r, const double *u,
                       double *F, double *A, double *B)
{
    int t = d - 1;
    if (A) {
        memset(A, 0, (size_t)(d * d) * sizeof *A);
        memset(B, 0, (size_t)(d * d) * sizeof *B);
    }
    if (mu <= 0.0) {
        double a = r[0], b = rho * u[0], s = sqrt(a * a + b * b);
        F[0] = a + b - s;
        for (int k = 0; k < t; k++) F[1 + k] = r[1 + k];
        if (A) {
            double ga = s > 0 ? 1.0 - a / s : 1.0 - FC_SQRT1_2;
            double gb = s > 0 ? 1.0 - b / s : 1.0 - FC_SQRT1_2;
            B[0] = ga;
            A[0] = rho * gb;
            for (int k = 0; k < t; k++) B[IDX(1 + k, 1 + k)] = 1.0;
        }
        return;
    }
    double nu = 0.0, x[3], y[3], w[3];
    for (int k = 0; k < t; k++) nu += u[1 + k] * u[1 + k];
    nu = sqrt(nu);
    x[0] = mu * r[0];
    y[0] = rho * (u[0] + mu * nu);
    for (int k = 0; k < t; k++) { x[1 + k] = r[1 + k]; y[1 + k] = rho * mu * u[1 + k]; }
    w[0] = fc_dot(d, x, x) + fc_dot(d, y, y);
    double nw = 0.0, e[2];
    for (int k = 1; k < d; k++) { w[k] = 2.0 * (x[0] * x[k] + y[0] * y[k]); nw += w[k] * w[k]; }
    nw = sqrt(nw);
    for (int k = 0; k < t; k++) e[k] = nw > 0 ? w[1 + k] / nw : (k == 0 ? 1.0 : 0.0);
    double l1 = fmax(0.0, w[0] - nw), l2 = w[0] + nw;
    double s1 = sqrt(l1), s2 = sqrt(l2), z[3];
    z[0] = 0.5 * (s1 + s2);
    for (int k = 0; k < t; k++) z[1 + k] = 0.5 * (s2 - s1) * e[k];
    for (int k = 0; k < d; k++) F[k] = x[k] + y[k] - z[k];
    if (!A) return;
    double Gx[9], Gy[9];                         /* dF/dx, dF/dy */
    if (l2 <= 0.0) {                             /* x = y = 0 */
        for (int i = 0; i < d * d; i++) Gx[i] = Gy[i] = 0.0;
        for (int k = 0; k < d; k++) Gx[IDX(k, k)] = Gy[IDX(k, k)] = 1.0 - FC_SQRT1_2;
    } else {
        /* dz = L_z^-1 (L_x dx + L_y dy); on the boundary of the cone, z is
         * moved slightly inside (an element of a nearby Jacobian). */
        double zz[3], Li[9], Lx[9], Ly[9];
        memcpy(zz, z, sizeof zz);
        double floor_ = 1e-10 * z[0];
        double nzb = 0.5 * (s2 - s1);
        if (z[0] - nzb < floor_) zz[0] = nzb + floor_;
        arrow_inv(d, zz, Li);
        arrow(d, x, Lx);
        arrow(d, y, Ly);
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++) {
                double sx = 0.0, sy = 0.0;
                for (int k = 0; k < d; k++) {
                    sx += Li[IDX(i, k)] * Lx[IDX(k, j)];
                    sy += Li[IDX(i, k)] * Ly[IDX(k, j)];
                }
                Gx[IDX(i, j)] = (i == j ? 1.0 : 0.0) - sx;
                Gy[IDX(i, j)] = (i == j ? 1.0 : 0.0) - sy;
            }
    }
    /* chain rule: dx/dr = diag(mu, 1, ..), dy/du = rho [[1, mu u_T^T/|u_T|], [0, mu I]] */
    for (int i = 0; i < d; i++) {
        B[IDX(i, 0)] = Gx[IDX(i, 0)] * mu;
        for (int k = 1; k < d; k++) B[IDX(i, k)] = Gx[IDX(i, k)];
        A[IDX(i, 0)] = rho * Gy[IDX(i, 0)];
        for (int k = 1; k < d; k++)
            A[IDX(i, k)] = rho * ((nu > 0 ? Gy[IDX(i, 0)] * mu * u[k] / nu : 0.0) +
                                  mu * Gy[IDX(i, k)]);
    }
}

void fc_nsn_contact(int form, int d, double mu, double rho_n, double rho_t,
                    const double *r, const double *u, double *F, double *A, double *B)
{
    switch (form) {
    case FC_NSN_JM: contact_ac(1, d, mu, rho_n, rho_t, r, u, F, A, B); break;
    case FC_NSN_FB: contact_fb(d, mu, rho_t, r, u, F, A, B); break;
    case FC_NSN_NM: contact_nm(d, mu, rho_t, r, u, F, A, B); break;
    default: contact_ac(0, d, mu, rho_n, rho_t, r, u, F, A, B); break;
    }
}

#undef IDX

/* ------------------------------------------------------------------ */
/* Workspace                                                           */
/* ------------------------------------------------------------------ */

typedef enum {
    RUN_CONVERGED, RUN_MAX_ITER, RUN_TIME, RUN_STOPPED, RUN_DIVERGED,
    RUN_LS_FAILED, RUN_LINSYS_FAILED, RUN_STAGNATION
} run_result;

typedef struct nsn_ws {
    const fc_problem *p;
    const fc_options *opt;
    const fc_nsn_options *o;
    int form, d, nc, m;
    int neq, mx;            /* equality rows (0: none); mx = m + neq */
    fc_matrix *Vt;          /* V^T as CSR (neq x m), when neq > 0 */
    double *e, *de, *Z, *S, *col;   /* neq, neq, m*neq, neq*neq, m */
    int *ipiv;
    fc_matrix *Wown;        /* W converted to BSR(d) when it was not */
    const fc_matrix *W;     /* BSR, bs = d */
    fc_bjac J;              /* J's pattern (W's blocks + diagonal), LU */
    double wscale;          /* max_a ||W_aa|| (Frobenius) */
    /* per contact */
    double *rho_n, *rho_t, *rho_base_n, *rho_base_t;
    double *Ab, *Bb;        /* nc*d*d */
    /* vectors */
    double *u, *F, *dir, *Wd, *Jd, *rt, *ut, *Ft, *best_r;
    double *keep_r;         /* nsn-hybrid: Newton's best iterate across attempts */
    double *hist;           /* merit history for the non-monotone search */
    int nhist;
    double delta;           /* current (absolute) regularisation */
    fc_clock clock;
    int iter;               /* total iterations used (Newton + sweeps) */
    int rho_adapted;
    int stagnation;         /* window of the stagnation test */
    char msg[200];
} nsn_ws;

static void ws_free(nsn_ws *w)
{
    fc_matrix_free(w->Wown);
    fc_bjac_free(&w->J);
    free(w->rho_n); free(w->rho_t); free(w->rho_base_n); free(w->rho_base_t);
    free(w->Ab); free(w->Bb);
    free(w->u); free(w->F); free(w->dir); free(w->Wd); free(w->Jd);
    free(w->rt); free(w->ut); free(w->Ft); free(w->best_r); free(w->hist); free(w->keep_r);
    fc_matrix_free(w->Vt);
    free(w->e); free(w->de); free(w->Z); free(w->S); free(w->col); free(w->ipiv);
}

/* Largest eigenvalue of the symmetric part of an n x n block (n <= 3). */
static double eig_max(int n, const double *blk, int ld)
{
    double S[9], ev[3];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            S[i + j * n] = 0.5 * (blk[i + j * ld] + blk[j + i * ld]);
    if (LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'U', n, S, n, ev) != 0) return fabs(S[0]);
    return ev[n - 1];
}

/* rho per contact from the strategy. */
static void set_rho(nsn_ws *w)
{
    int d = w->d;
    double blk[9];
    for (int a = 0; a < w->nc; a++) {
        double rn = w->o->rho, rt = w->o->rho;
        if (w->o->rho_strategy != FC_NSN_RHO_CONSTANT) {
            long k = w->J.bw[w->J.bdiag[a]];
            if (k >= 0) memcpy(blk, w->W->x + k * d * d, (size_t)(d * d) * sizeof *blk);
            else memset(blk, 0, sizeof blk);
            double emax = eig_max(d, blk, d);
            if (w->o->rho_strategy == FC_NSN_RHO_SPECTRAL) {
                if (emax > 0) rn = rt = w->o->rho / emax;
            } else {
                double et = eig_max(d - 1, blk + d + 1, d);
                if (blk[0] > 0) rn = w->o->rho / blk[0];
                else if (emax > 0) rn = w->o->rho / emax;
                if (et > 0) rt = w->o->rho / et;
                else if (emax > 0) rt = w->o->rho / emax;
            }
        }
        w->rho_n[a] = w->rho_base_n[a] = rn;
        w->rho_t[a] = w->rho_base_t[a] = rt;
    }
}

static fc_err ws_init(nsn_ws *w, const fc_problem *p, const fc_options *opt, int form,
                      int neq, fc_error *err)
{
    memset(w, 0, sizeof *w);
    w->p = p;
    w->opt = opt;
    w->o = &opt->nsn;
    w->form = form;
    w->d = p->d;
    w->nc = p->nc;
    w->m = fc_problem_m(p);
    w->neq = neq;
    w->mx = w->m + neq;
    fc_clock_start(&w->clock, opt);
    if (p->W->kind == FC_MAT_BSR && p->W->bs == p->d) {
        w->W = p->W;
    } else {
        w->Wown = fc_matrix_to_bsr(p->W, p->d);
        if (!w->Wown) return fc_error_set(err, FC_ERR_NOMEM, "nsn: cannot convert W to BSR");
        w->W = w->Wown;
    }
    size_t m = (size_t)w->m, nc = (size_t)w->nc, dd = (size_t)(w->d * w->d), mx = (size_t)w->mx;
    int M = w->o->nonmonotone_m > 0 ? w->o->nonmonotone_m : 1;
    w->rho_n = fc_calloc(nc, sizeof(double));
    w->rho_t = fc_calloc(nc, sizeof(double));
    w->rho_base_n = fc_calloc(nc, sizeof(double));
    w->rho_base_t = fc_calloc(nc, sizeof(double));
    w->Ab = fc_calloc(nc * dd, sizeof(double));
    w->Bb = fc_calloc(nc * dd, sizeof(double));
    w->u = fc_calloc(m, sizeof(double));
    w->F = fc_calloc(m, sizeof(double));
    w->dir = fc_calloc(mx, sizeof(double));
    w->Wd = fc_calloc(m, sizeof(double));
    w->Jd = fc_calloc(m, sizeof(double));
    w->rt = fc_calloc(mx, sizeof(double));
    w->ut = fc_calloc(m, sizeof(double));
    w->Ft = fc_calloc(m, sizeof(double));
    w->best_r = fc_calloc(mx, sizeof(double));
    w->keep_r = fc_calloc(mx, sizeof(double));
    w->hist = fc_calloc((size_t)M, sizeof(double));
    if (!w->rho_n || !w->rho_t || !w->rho_base_n || !w->rho_base_t || !w->Ab || !w->Bb ||
        !w->u || !w->F || !w->dir || !w->Wd || !w->Jd || !w->rt || !w->ut || !w->Ft ||
        !w->best_r || !w->keep_r || !w->hist)
        return fc_error_set(err, FC_ERR_NOMEM, "nsn: out of memory");
    if (neq) {
        size_t q = (size_t)neq;
        fc_matrix *Vc = fc_matrix_to_csr(p->V);
        w->Vt = Vc ? fc_csr_transpose(Vc) : NULL;
        fc_matrix_free(Vc);
        w->e = fc_calloc(q, sizeof(double));
        w->de = fc_calloc(q, sizeof(double));
        if (m * q > FC_EQ_DENSE_MAX)
            return fc_error_set(err, FC_ERR_NOMEM, "nsn: %d equality rows x %d contact rows: "
                                "the dense elimination would hold more than %g values",
                                neq, w->m, (double)FC_EQ_DENSE_MAX);
        w->Z = fc_calloc(m * q, sizeof(double));
        w->S = fc_calloc(q * q, sizeof(double));
        w->col = fc_calloc(m, sizeof(double));
        w->ipiv = fc_calloc(q, sizeof(int));
        if (!w->Vt || !w->e || !w->de || !w->Z || !w->S || !w->col || !w->ipiv)
            return fc_error_set(err, FC_ERR_NOMEM, "nsn: out of memory (equality rows)");
    }
    fc_err e = fc_bjac_init(&w->J, w->W, w->d, w->o->linear_solver == 1 ? FC_LU_KLU : FC_LU_UMFPACK,
                            "nsn", err);
    if (e) return e;
    double blk[25];
    for (int a = 0; a < w->nc; a++) {
        fc_matrix_diag_block(w->W, a, w->d, blk);
        w->wscale = fmax(w->wscale, fc_norm2(w->d * w->d, blk));
    }
    if (!(w->wscale > 0)) w->wscale = 1.0;
    set_rho(w);
    w->stagnation = w->o->stagnation > 0 ? w->o->stagnation : 20;
    return FC_OK;
}

/* F (and, when jac, the blocks A, B) at (r, u); returns 1/2 ||F||^2. */
static double eval_F(nsn_ws *w, const double *r, const double *u, double *F, int jac)
{
    int d = w->d, dd = d * d;
    double s = 0.0;
    for (int a = 0; a < w->nc; a++) {
        fc_nsn_contact(w->form, d, w->p->mu[a], w->rho_n[a], w->rho_t[a], r + d * a, u + d * a,
                       F + d * a, jac ? w->Ab + a * dd : NULL, jac ? w->Bb + a * dd : NULL);
        for (int k = 0; k < d; k++) s += F[d * a + k] * F[d * a + k];
    }
    return isfinite(s) ? 0.5 * s : INFINITY;
}

/* e = V^T r + R lambda + s at x = (r, lambda). */
static void eq_resid(nsn_ws *w, const double *x, double *e)
{
    memcpy(e, w->p->s, (size_t)w->neq * sizeof *e);
    fc_matrix_gemv_t(w->p->V, 1.0, x, 1.0, e);
    if (w->p->R) fc_matrix_gemv(w->p->R, 1.0, x + w->m, 1.0, e);
}

/* The merit 1/2 (||F||^2 + ||e||^2) at x = (r, lambda) and its u; F, and
 * w->e when there are equality rows. */
static double eval_merit(nsn_ws *w, const double *x, const double *u, double *F, int jac)
{
    double psi = eval_F(w, x, u, F, jac);
    if (!w->neq) return psi;
    eq_resid(w, x, w->e);
    return psi + 0.5 * fc_dot(w->neq, w->e, w->e);
}

/* The bordered Newton step: on entry dir[0..m) = -J^-1 F; on exit (dr, dl)
 * in dir, de = V^T dr + R dl.  0 on success. */
static int eq_step(nsn_ws *w, fc_error *err)
{
    int m = w->m, neq = w->neq, d = w->d, dd = d * d;
    const fc_matrix *Vt = w->Vt;
    for (int j = 0; j < neq; j++) {   /* Z_j = J^-1 A V_j */
        double *z = w->Z + (size_t)m * j;
        memset(w->col, 0, (size_t)m * sizeof *w->col);
        for (int k = Vt->p[j]; k < Vt->p[j + 1]; k++) w->col[Vt->j[k]] = Vt->x[k];
        for (int a = 0; a < w->nc; a++) {
            const double *A = w->Ab + a * dd, *c = w->col + d * a;
            for (int i = 0; i < d; i++) {
                double v = 0.0;
                for (int k = 0; k < d; k++) v += A[i + k * d] * c[k];
                z[d * a + i] = v;
            }
        }
        if (fc_lu_solve(w->J.lu, z, z, err) != FC_OK) return -1;
    }
    /* S = R - V^T Z, rhs = -V^T dir_r - e */
    for (int j = 0; j < neq; j++) {
        double *Sj = w->S + (size_t)neq * j;
        for (int i = 0; i < neq; i++) Sj[i] = w->p->R ? fc_matrix_get(w->p->R, i, j) : 0.0;
        fc_matrix_gemv_t(w->p->V, -1.0, w->Z + (size_t)m * j, 1.0, Sj);
    }
    double *dl = w->dir + m;
    for (int i = 0; i < neq; i++) dl[i] = -w->e[i];
    fc_matrix_gemv_t(w->p->V, -1.0, w->dir, 1.0, dl);
    /* least squares with rank detection: redundant rows (a closed loop of
     * joints) make S singular with a consistent right-hand side */
    int rank;
    memset(w->ipiv, 0, (size_t)neq * sizeof *w->ipiv);
    if (LAPACKE_dgelsy(LAPACK_COL_MAJOR, neq, neq, 1, w->S, neq, dl, neq, w->ipiv,
                       FC_NSN_EQ_RCOND, &rank) != 0 ||
        !fc_all_finite((size_t)neq, dl))
        return -1;
    for (int j = 0; j < neq; j++)
        for (int i = 0; i < m; i++) w->dir[i] -= w->Z[i + (size_t)m * j] * dl[j];
    fc_matrix_gemv_t(w->p->V, 1.0, w->dir, 0.0, w->de);
    if (w->p->R) fc_matrix_gemv(w->p->R, 1.0, dl, 1.0, w->de);
    return 0;
}

/* J = A (W + delta I) + B  (reg 1)  or  A W + B + delta I  (reg 2). */
static void assemble(nsn_ws *w)
{
    int d = w->d, dd = d * d, reg = w->o->regularisation;
    for (int a = 0; a < w->nc; a++) {
        const double *A = w->Ab + a * dd, *B = w->Bb + a * dd;
        for (int t = w->J.bp[a]; t < w->J.bp[a + 1]; t++) {
            const double *Wb = w->J.bw[t] >= 0 ? w->W->x + w->J.bw[t] * dd : NULL;
            const long *ps = w->J.pos + (long)t * dd;
            for (int jj = 0; jj < d; jj++)
                for (int ii = 0; ii < d; ii++) {
                    double v = 0.0;
                    if (Wb) for (int k = 0; k < d; k++) v += A[ii + k * d] * Wb[k + jj * d];
                    if (w->J.bj[t] == a) {
                        v += B[ii + jj * d];
                        if (reg == 1) v += w->delta * A[ii + jj * d];
                        else if (reg == 2 && ii == jj) v += w->delta;
                    }
                    w->J.Ax[ps[ii + jj * d]] = v;
                }
        }
    }
}

/* Jd = A (W d) + B d  (the unregularised J applied to d; Wd given). */
static void apply_J(nsn_ws *w, const double *dv, const double *Wd, double *Jd)
{
    int d = w->d, dd = d * d;
    for (int a = 0; a < w->nc; a++) {
        const double *A = w->Ab + a * dd, *B = w->Bb + a * dd;
        for (int i = 0; i < d; i++) {
            double s = 0.0;
            for (int k = 0; k < d; k++)
                s += A[i + k * d] * Wd[d * a + k] + B[i + k * d] * dv[d * a + k];
            Jd[d * a + i] = s;
        }
    }
}

static void compute_u(nsn_ws *w, const double *r, double *u)
{
    fc_affine(w->W, r, w->p->q, u);
    if (w->neq) fc_matrix_gemv(w->p->V, 1.0, r + w->m, 1.0, u);
}

static double ref_merit(nsn_ws *w, double psi)
{
    if (w->o->line_search != FC_NSN_LS_NONMONOTONE) return psi;
    double ref = psi;
    for (int i = 0; i < w->nhist; i++) ref = fmax(ref, w->hist[i]);
    return ref;
}

static void push_merit(nsn_ws *w, double psi)
{
    int M = w->o->nonmonotone_m > 0 ? w->o->nonmonotone_m : 1;
    if (w->nhist < M) w->hist[w->nhist++] = psi;
    else { memmove(w->hist, w->hist + 1, (size_t)(M - 1) * sizeof *w->hist); w->hist[M - 1] = psi; }
}

/* Line search along dir from (r, u, psi) with slope g < 0: on success the
 * trial point (rt, ut, Ft) holds the accepted one and *alpha its step. */
static int line_search(nsn_ws *w, const double *r, const double *u, double psi, double g,
                       double *alpha, double *psi_new)
{
    int m = w->m, kind = w->o->line_search, maxls = w->o->ls_max_iter > 0 ? w->o->ls_max_iter : 1;
    double a = 1.0, lo = 0.0, hi = INFINITY, ref = ref_merit(w, psi);
    const double sigma = 1e-4, c = 0.1;
    for (int it = 0; it < maxls; it++) {
        for (int i = 0; i < m; i++) {
            w->rt[i] = r[i] + a * w->dir[i];
            w->ut[i] = u[i] + a * w->Wd[i];
        }
        double pt = eval_F(w, w->rt, w->ut, w->Ft, 0);
        for (int i = 0; i < w->neq; i++) {   /* e is affine in (r, lambda) */
            double et = w->e[i] + a * w->de[i];
            w->rt[m + i] = r[m + i] + a * w->dir[m + i];
            pt += 0.5 * et * et;
        }
        *alpha = a;
        *psi_new = pt;
        if (kind == FC_NSN_LS_NONE) return isfinite(pt);
        if (kind == FC_NSN_LS_GOLDSTEIN) {
            int upper = pt <= psi + c * a * g;
            int lower = pt >= psi + (1.0 - c) * a * g;
            if (upper && (lower || a >= 1.0)) return 1;
            if (!upper) hi = a;
            else lo = a;
            a = isfinite(hi) ? 0.5 * (lo + hi) : 2.0 * a;
        } else {
            if (pt <= ref + sigma * a * g) return 1;
            a *= 0.5;
        }
    }
    return 0;
}

/* Raise the regularisation; 0 when it is already at its cap (or none). */
static int raise_delta(nsn_ws *w)
{
    if (w->o->regularisation == 0) return 0;
    double d0 = w->o->reg_delta * w->wscale, dmax = w->o->reg_max * w->wscale;
    if (w->delta >= dmax) return 0;
    w->delta = w->delta <= 0 ? d0 : fmin(dmax, w->delta * 100.0);
    return 1;
}

/* Rebalance rho per contact to ||r_a|| / ||u_a|| within [1e-3, 1e3] of the base. */
static void adapt_rho(nsn_ws *w, const double *r)
{
    int d = w->d;
    for (int a = 0; a < w->nc; a++) {
        double nr = fc_norm2(d, r + d * a), nu = fc_norm2(d, w->u + d * a);
        if (!(nr > 0) || !(nu > 0)) continue;
        double ratio = nr / nu;
        w->rho_n[a] = fmin(1e3 * w->rho_base_n[a], fmax(1e-3 * w->rho_base_n[a], ratio));
        w->rho_t[a] = fmin(1e3 * w->rho_base_t[a], fmax(1e-3 * w->rho_base_t[a], ratio));
    }
    w->nhist = 0;
    w->rho_adapted++;
}

/* The measure Newton steers by: the SPEC measure with s = max(|r|, |u|)
 * instead of max(|v|, |r|, |u|), v the vector fc_error_local scales by
 * (w for a reduced global problem, else q).  It is never smaller than the
 * SPEC measure. */
static double strict_ratio(nsn_ws *w, const double *r, const double *u)
{
    const double *v = w->p->w ? w->p->w : w->p->q;
    double nq = fc_norm2(w->m, v), nr = fc_norm2(w->m, r), nu = fc_norm2(w->m, u);
    double s = fmax(nq, fmax(nr, nu)), s2 = fmax(nr, nu);
    if (s < 1e-300) s = 1.0;
    return s2 > 1e-300 ? s2 / s : 1.0;
}

static double strict_error(nsn_ws *w, const double *r, const double *u)
{
    double err = fc_error_local(w->p, r, u) / strict_ratio(w, r, u);
    if (!w->neq) return err;
    eq_resid(w, r, w->e);
    return fmax(err, fc_norm2(w->neq, w->e) / fmax(1.0, fc_norm2(w->neq, w->p->s)));
}

/* nsn-hybrid's NSGS stages judged as its Newton runs (u recomputed). */
static double hybrid_measure(void *user, const double *r, double *u)
{
    nsn_ws *w = user;
    (void)u;
    compute_u(w, r, w->u);
    return strict_error(w, r, w->u);
}

/* Newton iterations from r (updated in place, ends on the best iterate)
 * for at most max_newton iterations; *err_out receives the measure. */
static run_result newton_run(nsn_ws *w, double *r, int max_newton, double *err_out)
{
    const fc_options *opt = w->opt;
    int m = w->m, mx = w->mx;
    fc_error e;
    compute_u(w, r, w->u);
    double err = strict_error(w, r, w->u), best = err, mark = err;
    double psi = eval_merit(w, r, w->u, w->F, 1);
    int best_it = 0;   /* iteration of the last halving of the error (vs mark) */
    memcpy(w->best_r, r, (size_t)mx * sizeof *r);
    w->nhist = 0;
    w->delta = 0.0;
    run_result res = RUN_MAX_ITER;
    if (!isfinite(err) || !isfinite(psi)) { res = RUN_DIVERGED; goto done; }
    /* Newton aims at a tenth of the tolerance on the strict measure (one
     * more iteration near a solution costs little and gives a margin). */
    /* before the first iteration, its factorisation's predicted flops at
     * FC_NSN_FLOPS_PER_SECOND stand for its time */
    double target = 0.1 * opt->tolerance;
    double t_iter = fc_lu_predicted_flops(w->J.lu) / FC_NSN_FLOPS_PER_SECOND;
    for (int k = 0;; k++) {
        if (err <= target) { res = RUN_CONVERGED; break; }
        if (k >= max_newton || w->iter >= opt->max_iter) { res = RUN_MAX_ITER; break; }
        /* one iteration is one sparse LU, seconds at 10^4 contacts: none
         * is started that the time left cannot hold (predicted by the
         * last one), so the limit is not overshot by a whole iteration */
        if (fc_clock_expired(&w->clock) ||
            (w->clock.limit > 0 && fc_clock_elapsed(&w->clock) + t_iter > w->clock.limit)) {
            res = RUN_TIME;
            break;
        }
        double t0 = fc_now();
        if (k - best_it >= w->stagnation) {
            if (w->o->rho_strategy == FC_NSN_RHO_ADAPTIVE && w->rho_adapted < 5) {
                adapt_rho(w, r);
                psi = eval_merit(w, r, w->u, w->F, 1);
                best_it = k;
                mark = best;
            } else {
                res = RUN_STAGNATION;
                snprintf(w->msg, sizeof w->msg, "Newton stagnated at error %.3e", best);
                break;
            }
        }
        push_merit(w, psi);
        int ok = 0, lin_fail = 0;
        double alpha = 0.0, psi_new = psi;
        for (int attempt = 0; attempt < 8; attempt++) {
            assemble(w);
            double rcond = 0.0;
            if (fc_lu_factor(w->J.lu, w->J.Ax, &rcond, &e) != FC_OK || !(rcond > 1e-14)) {
                lin_fail = 1;
                if (raise_delta(w)) continue;
                if (e.code == FC_ERR_NOMEM) break;
                if (rcond > 0 && fc_lu_factor(w->J.lu, w->J.Ax, &rcond, &e) == FC_OK) {
                    /* ill-conditioned but factorised: try the direction anyway */
                } else break;
            }
            for (int i = 0; i < m; i++) w->dir[i] = -w->F[i];
            if (fc_lu_solve(w->J.lu, w->dir, w->dir, &e) != FC_OK ||
                !fc_all_finite((size_t)m, w->dir)) {
                lin_fail = 1;
                if (raise_delta(w)) continue;
                break;
            }
            if (w->neq && eq_step(w, &e) != 0) {
                lin_fail = 1;
                if (raise_delta(w)) continue;
                break;
            }
            lin_fail = 0;
            fc_matrix_gemv(w->W, 1.0, w->dir, 0.0, w->Wd);
            if (w->neq) fc_matrix_gemv(w->p->V, 1.0, w->dir + m, 1.0, w->Wd);
            apply_J(w, w->dir, w->Wd, w->Jd);
            double g = fc_dot(m, w->F, w->Jd) + (w->neq ? fc_dot(w->neq, w->e, w->de) : 0.0);
            if (!(g < 0) && w->o->line_search != FC_NSN_LS_NONE) {
                if (raise_delta(w)) continue;
                break;
            }
            if (line_search(w, r, w->u, psi, g, &alpha, &psi_new)) { ok = 1; break; }
            if (!raise_delta(w)) break;
        }
        w->iter++;
        t_iter = fc_now() - t0;
        if (!ok) {
            res = lin_fail ? RUN_LINSYS_FAILED : RUN_LS_FAILED;
            snprintf(w->msg, sizeof w->msg, "%s failed at error %.3e (delta %.1e)",
                     lin_fail ? "the linear solve" : "the line search", best, w->delta);
            break;
        }
        memcpy(r, w->rt, (size_t)mx * sizeof *r);
        compute_u(w, r, w->u);    /* fresh product: no drift from u + alpha W d */
        err = strict_error(w, r, w->u);
        psi = eval_merit(w, r, w->u, w->F, 1);
        (void)psi_new;
        if (!isfinite(err) || !isfinite(psi)) { res = RUN_DIVERGED; break; }
        if (alpha >= 1.0 && w->delta > 0) {
            w->delta *= 0.1;
            if (w->delta < w->o->reg_delta * w->wscale) w->delta = 0.0;
        }
        fc_log(opt, 1, "nsn it %d: error %.3e merit %.3e alpha %.2e delta %.1e", w->iter, err,
               psi, alpha, w->delta);
        if (err < 0.5 * mark) { best_it = k + 1; mark = err; }
        if (err < best) {
            best = err;
            memcpy(w->best_r, r, (size_t)mx * sizeof *r);
        }
        if (opt->progress && opt->progress(opt->progress_user, w->iter, err)) {
            res = RUN_STOPPED;
            break;
        }
    }
done:
    if (res != RUN_CONVERGED) {
        memcpy(r, w->best_r, (size_t)mx * sizeof *r);
        err = best;
        if (best <= opt->tolerance && res != RUN_DIVERGED) res = RUN_CONVERGED;
    }
    *err_out = err;
    return res;
}

static fc_status run_status(run_result res)
{
    switch (res) {
    case RUN_CONVERGED: return FC_CONVERGED;
    case RUN_TIME: return FC_TIME_LIMIT;
    case RUN_DIVERGED: return FC_DIVERGED;
    default: return FC_MAX_ITER;
    }
}

/* The workspace and the iterate x: r itself, or (r, lambda) copied into a
 * new buffer when lambda (equality rows); NULL (message in info) on
 * failure. */
static double *iterate_begin(nsn_ws *w, const fc_problem *p, const fc_options *opt, int form,
                             double *r, double *lambda, fc_info *info)
{
    fc_error e = {0};
    int neq = lambda ? p->neq : 0, m = fc_problem_m(p);
    double *x = neq ? fc_calloc((size_t)(m + neq), sizeof *x) : r;
    if (!x || ws_init(w, p, opt, form, neq, &e) != FC_OK) {
        snprintf(info->message, sizeof info->message, "%.200s", x ? e.msg : "out of memory");
        if (x) ws_free(w);
        if (x != r) free(x);
        return NULL;
    }
    if (neq) {
        memcpy(x, r, (size_t)m * sizeof *x);
        memcpy(x + m, lambda, (size_t)neq * sizeof *x);
    }
    if (!fc_all_finite((size_t)w->mx, x)) memset(x, 0, (size_t)w->mx * sizeof *x);
    return x;
}

/* u from x; with equality rows: their residual into info, x copied back
 * to (r, lambda) and freed. */
static void iterate_end(nsn_ws *w, double *x, double *r, double *u, double *lambda,
                        fc_info *info)
{
    compute_u(w, x, u);
    if (!w->neq) return;
    eq_resid(w, x, w->e);
    info->eq_residual = fc_norm2(w->neq, w->e) / fmax(1.0, fc_norm2(w->neq, w->p->s));
    memcpy(r, x, (size_t)w->m * sizeof *r);
    memcpy(lambda, x + w->m, (size_t)w->neq * sizeof *x);
    free(x);
}

/* Pure Newton on one formulation; with lambda (neq values, in and out)
 * on the problem with its equality rows. */
static fc_status nsn_solve(int form, const fc_problem *p, const fc_options *opt, double *r_out,
                           double *u, double *lambda, fc_info *info)
{
    nsn_ws w;
    fc_status st;
    if (p->d != 2 && p->d != 3) {
        snprintf(info->message, sizeof info->message, "nsn handles d = 2 or 3 only");
        return FC_STATUS_ERROR;
    }
    double *r = iterate_begin(&w, p, opt, form, r_out, lambda, info);
    if (!r) return FC_STATUS_ERROR;
    double err;
    run_result res = newton_run(&w, r, opt->max_iter, &err);
    st = run_status(res);
    info->iterations = w.iter;
    iterate_end(&w, r, r_out, u, lambda, info);
    if (st != FC_CONVERGED) {
        if (w.msg[0]) snprintf(info->message, sizeof info->message, "%s", w.msg);
        else snprintf(info->message, sizeof info->message, "stopped (%s) at error %.3e",
                      fc_status_name(st), err);
    }
    ws_free(&w);
    return st;
}

fc_status fc_nsn_ac_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                          fc_info *info)
{
    return nsn_solve(FC_NSN_AC, p, opt, r, u, NULL, info);
}

fc_status fc_nsn_ac_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                             double *lambda, fc_info *info)
{
    return nsn_solve(FC_NSN_AC, p, opt, r, u, lambda, info);
}

fc_status fc_nsn_jm_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                          fc_info *info)
{
    return nsn_solve(FC_NSN_JM, p, opt, r, u, NULL, info);
}

fc_status fc_nsn_jm_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                             double *lambda, fc_info *info)
{
    return nsn_solve(FC_NSN_JM, p, opt, r, u, lambda, info);
}

fc_status fc_nsn_fb_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                          fc_info *info)
{
    return nsn_solve(FC_NSN_FB, p, opt, r, u, NULL, info);
}

fc_status fc_nsn_fb_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                             double *lambda, fc_info *info)
{
    return nsn_solve(FC_NSN_FB, p, opt, r, u, lambda, info);
}

fc_status fc_nsn_nm_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                          fc_info *info)
{
    return nsn_solve(FC_NSN_NM, p, opt, r, u, NULL, info);
}

fc_status fc_nsn_nm_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                             double *lambda, fc_info *info)
{
    return nsn_solve(FC_NSN_NM, p, opt, r, u, lambda, info);
}

/* Newton with a fallback to NSGS sweeps: Newton runs until it converges,
 * fails (line search, linear solve) or stagnates; then a block of NSGS
 * sweeps warm-started from the best iterate; then Newton again.  A block
 * doubles in length (up to nsn.hybrid_max_sweeps) each time Newton did not
 * improve the best error tenfold, so that on problems where Newton never
 * takes over, the cost is NSGS's plus a logarithmic number of attempts.
 * Symmetrically, Newton leaves after nsn.hybrid_stagnation iterations
 * without halving the error, a window that doubles (up to
 * nsn.hybrid_newton_iter) each time an NSGS block did not halve it either. */
/* nsn-hybrid's NSGS fallback with equality rows: nsgs on (r, lambda) =
 * x, judged by the strict measure; 0 when no time is left. */
static int hybrid_eq_sweeps(nsn_ws *w, fc_stages *fb, const fc_options *o, double *x, double *u,
                            fc_info *info)
{
    if (fc_clock_expired(&w->clock)) return 0;
    fc_info si;
    memset(&si, 0, sizeof si);
    double t0 = fc_now();
    fb->status = fc_nsgs_solve_eq(w->p, o, x, u, x + w->m, &si);
    fb->stage_iterations = si.iterations;
    compute_u(w, x, w->u);
    fb->err = strict_error(w, x, w->u);
    fc_info_add_stage(info, "nsgs", fb->status, si.iterations, fb->err, fc_now() - t0);
    return 1;
}

static fc_status hybrid_run(const fc_problem *p, const fc_options *opt, double *r, double *u,
                            double *lambda, fc_info *info);

fc_status fc_nsn_hybrid_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                              fc_info *info)
{
    return hybrid_run(p, opt, r, u, NULL, info);
}

fc_status fc_nsn_hybrid_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                                 double *lambda, fc_info *info)
{
    return hybrid_run(p, opt, r, u, lambda, info);
}

static fc_status hybrid_run(const fc_problem *p, const fc_options *opt, double *r_out, double *u,
                            double *lambda, fc_info *info)
{
    nsn_ws w;
    if (p->d != 2 && p->d != 3) {
        snprintf(info->message, sizeof info->message, "nsn-hybrid handles d = 2 or 3 only");
        return FC_STATUS_ERROR;
    }
    int form = opt->nsn.formulation;
    if (form < FC_NSN_AC || form > FC_NSN_NM) form = FC_NSN_AC;
    double *r = iterate_begin(&w, p, opt, form, r_out, lambda, info);
    if (!r) return FC_STATUS_ERROR;
    int neq = w.neq;
    double *top = fc_dup(r, (size_t)w.mx);   /* the best iterate, returned unless converged */
    if (!top) {
        snprintf(info->message, sizeof info->message, "out of memory");
        ws_free(&w);
        if (r != r_out) free(r);
        return FC_STATUS_ERROR;
    }
    int sweeps = opt->nsn.hybrid_sweeps > 0 ? opt->nsn.hybrid_sweeps : 10;
    int cap = opt->nsn.hybrid_max_sweeps > sweeps ? opt->nsn.hybrid_max_sweeps : sweeps;
    int newton_iter = opt->nsn.hybrid_newton_iter > 0 ? opt->nsn.hybrid_newton_iter : 50;
    if (opt->nsn.hybrid_stagnation > 0) w.stagnation = opt->nsn.hybrid_stagnation;
    double best = INFINITY;
    fc_status st = FC_MAX_ITER;
    static const char *names[] = {"nsn-ac", "nsn-jm", "nsn-fb", "nsn-nm"};
    int stalled = 0;   /* rounds at the full fallback length without a 10% better error */
    const fc_solver *nsgs = fc_solver_find("nsgs");
    fc_stages fallback;   /* the NSGS fallback runs, judged as Newton's are */
    fc_stages_init(&fallback, p, opt, &w.clock, info, NULL);
    fallback.measure = hybrid_measure;
    fallback.measure_user = &w;
    for (;;) {
        double t0 = fc_now(), err, round_best = best;
        int it0 = w.iter;
        w.msg[0] = 0;
        compute_u(&w, r, w.u);
        double start_err = strict_error(&w, r, w.u);
        run_result res = newton_run(&w, r, newton_iter, &err);
        fc_info_add_stage(info, names[form], run_status(res), w.iter - it0, err, fc_now() - t0);
        if (res == RUN_CONVERGED || res == RUN_TIME || res == RUN_STOPPED) {
            /* Newton ends on its best iterate: it counts (the message's best error) */
            if (err < best) { best = err; memcpy(top, r, (size_t)w.mx * sizeof *r); }
            st = run_status(res);
            break;
        }
        if (w.iter >= opt->max_iter) { st = FC_MAX_ITER; break; }
        if (!(err < 0.1 * best)) sweeps = sweeps * 2 < cap ? sweeps * 2 : cap;
        double newton_best = err;
        if (err < best) { best = err; memcpy(top, r, (size_t)w.mx * sizeof *r); }
        fc_log(opt, 1, "nsn-hybrid: Newton stopped (%s), %d NSGS sweeps from error %.3e",
               w.msg, sweeps, err);
        /* NSGS sweeps from the best Newton iterate */
        memcpy(w.keep_r, r, (size_t)w.mx * sizeof *r);
        compute_u(&w, r, w.u);
        fc_options o = fc_stage_options(&fallback, sweeps < opt->max_iter - w.iter ? sweeps
                                                                                 : opt->max_iter - w.iter);
        o.tolerance = opt->tolerance * strict_ratio(&w, r, w.u);
        /* no plain phases: these short runs move the iterate for Newton,
         * and plain sweeps can freeze it (docs/auto-measurements.md#nsn-hybrid) */
        o.nsgs.anderson_window = 0;
        if (!(neq ? hybrid_eq_sweeps(&w, &fallback, &o, r, u, info)
                  : fc_stage_run(&fallback, nsgs, NULL, FC_START_GIVEN, &o, r, u))) {
            st = FC_TIME_LIMIT;
            break;
        }
        fc_status sst = fallback.status;
        w.iter += fallback.stage_iterations;
        double gerr = fallback.err;
        if (!isfinite(gerr)) {
            /* should not happen; return the best Newton iterate */
            memcpy(r, w.best_r, (size_t)w.mx * sizeof *r);
            st = FC_DIVERGED;
            break;
        }
        /* NSGS did not halve the best error: Newton gets a longer leash;
         * if NSGS even lost ground on a Newton run that was only slow
         * (not failed), Newton resumes from its own best iterate */
        if (!(gerr < 0.5 * best)) w.stagnation = 2 * w.stagnation < newton_iter ? 2 * w.stagnation : newton_iter;
        /* (only if that attempt at least halved its starting error: resuming
         * from a point where Newton made no progress would repeat the same
         * attempt forever).  An attempt cut by its iteration cap while
         * progressing gets a doubled cap next time. */
        int progressing = newton_best < 0.5 * start_err;
        if (gerr > newton_best && progressing && (res == RUN_STAGNATION || res == RUN_MAX_ITER)) {
            memcpy(r, w.keep_r, (size_t)w.mx * sizeof *r);
            gerr = newton_best;
            if (res == RUN_MAX_ITER && newton_iter < opt->max_iter / 2) newton_iter *= 2;
        }
        if (gerr < best) { best = gerr; memcpy(top, r, (size_t)w.mx * sizeof *r); }
        if (gerr <= opt->tolerance) {
            /* a few Newton iterations from the NSGS solution for a margin
             * (see target in newton_run); never worse than gerr */
            if (!fc_clock_expired(&w.clock) && w.iter < opt->max_iter) {
                t0 = fc_now();
                it0 = w.iter;
                run_result pres = newton_run(&w, r, 3, &err);
                fc_info_add_stage(info, names[form], run_status(pres), w.iter - it0, err,
                                  fc_now() - t0);
            }
            st = FC_CONVERGED;
            break;
        }
        if (sst == FC_TIME_LIMIT || fc_clock_expired(&w.clock)) { st = FC_TIME_LIMIT; break; }
        if (w.iter >= opt->max_iter) { st = FC_MAX_ITER; break; }
        if (opt->progress && opt->progress(opt->progress_user, w.iter, gerr)) break;
        /* neither Newton nor the longest NSGS fallback gains any more: a
         * plateau (docs/auto-measurements.md#nsn-hybrid) */
        stalled = best < 0.9 * round_best ? 0 : sweeps >= cap ? stalled + 1 : 0;
        if (stalled >= FC_NSN_HYBRID_STALL_ROUNDS) { st = FC_MAX_ITER; break; }
    }
    info->iterations = w.iter;
    if (st != FC_CONVERGED && best < INFINITY) memcpy(r, top, (size_t)w.mx * sizeof *r);
    free(top);
    iterate_end(&w, r, r_out, u, lambda, info);
    if (stalled >= FC_NSN_HYBRID_STALL_ROUNDS)
        snprintf(info->message, sizeof info->message,
                 "nsn-hybrid stalled (no 10%% gain in %d rounds at the longest fallback), best error %.3e",
                 FC_NSN_HYBRID_STALL_ROUNDS, best);
    else if (st != FC_CONVERGED)
        snprintf(info->message, sizeof info->message, "nsn-hybrid %s, best error %.3e",
                 fc_status_name(st), best);
    ws_free(&w);
    return st;
}
