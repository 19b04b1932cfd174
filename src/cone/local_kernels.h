/* The one-contact kernels of the Gauss-Seidel sweeps, inlined where the
 * contact dimension d is a constant (the hybrid's d = 3 path in local.c)
 * so that the compiler unrolls their loops and copies; the public
 * functions of local.c, local_newton.c and projection.c wrap them.  The
 * same operations in the same order whatever the caller: the same bits.
 * Private to src/cone. */
#ifndef FRICON_LOCAL_KERNELS_H
#define FRICON_LOCAL_KERNELS_H

#include "internal.h"
#include "cone/cone.h"

/* Gaussian elimination with partial pivoting of J (d x d, row-major; J
 * overwritten): step k exchanges rows k and piv[k], then lu receives the
 * step's multipliers (d (d - 1) / 2 in all), then U by rows (d (d + 1) /
 * 2); 0 on success, -1 when J is numerically singular.  Inlined for each d
 * so that the compiler unrolls the loops (the one-contact solvers call it
 * in every sweep). */
static inline int lu_factor(int d, double J[5][5], signed char *piv, double *lu)
{
    double scale = 0.0;
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double a = fabs(J[i][j]);
            if (a > scale) scale = a;   /* fmax's result: scale is never NaN */
        }
    if (!(scale > 0.0)) return -1;
    int m = 0;
    for (int k = 0; k < d; k++) {
        int p = k;
        for (int i = k + 1; i < d; i++)
            if (fabs(J[i][k]) > fabs(J[p][k])) p = i;
        if (!(fabs(J[p][k]) > 1e-14 * scale)) return -1;
        piv[k] = (signed char)p;
        if (p != k)
            for (int j = 0; j < d; j++) { double t = J[k][j]; J[k][j] = J[p][j]; J[p][j] = t; }
        for (int i = k + 1; i < d; i++) {
            double f = J[i][k] / J[k][k];
            lu[m++] = f;
            for (int j = k; j < d; j++) J[i][j] -= f * J[k][j];
        }
    }
    for (int i = 0; i < d; i++)
        for (int j = i; j < d; j++) lu[m++] = J[i][j];
    return 0;
}

/* Solve with lu_factor's factor in place in b: the row exchanges and the
 * multipliers in the elimination's order, then back substitution; 0, or
 * -1 when the solution is not finite. */
static inline int lu_solve(int d, const signed char *piv, const double *lu, double *b)
{
    int m = 0;
    for (int k = 0; k < d; k++) {
        int p = piv[k];
        if (p != k) { double t = b[k]; b[k] = b[p]; b[p] = t; }
        for (int i = k + 1; i < d; i++) b[i] -= lu[m++] * b[k];
    }
    int finite = 1;
    for (int i = d - 1; i >= 0; i--) {
        const double *u = lu + d * (d - 1) / 2 + i * d - i * (i - 1) / 2;   /* U's row i from U_ii */
        double s = b[i];
        for (int j = i + 1; j < d; j++) s -= u[j - i] * b[j];
        b[i] = s / u[0];
        finite &= isfinite(b[i]) != 0;
    }
    return finite ? 0 : -1;
}

/* Solve J x = b (d x d, Gaussian elimination with partial pivoting) in
 * place in b; 0 on success, -1 when J is numerically singular. */
static inline int small_solve(int d, double J[5][5], double *b)
{
    signed char piv[5];
    double lu[25];
    return lu_factor(d, J, piv, lu) || lu_solve(d, piv, lu, b) ? -1 : 0;
}

/* u = W r + q. */
static inline void local_velocity(int d, const fc_local *c, const double *q, const double *r,
                                  double *u)
{
    for (int i = 0; i < d; i++) {
        double s = q[i];
        for (int j = 0; j < d; j++) s += c->W[j * d + i] * r[j];
        u[i] = s;
    }
}

/* Projection onto {||x_T|| <= mu x_N}, x = (x_N, x_T) with nt = 1 or 2
 * tangential components: closed form by regions. */
static inline void project_coulomb(int nt, double mu, double *x)
{
    double xn = x[0];
    double t = nt == 2 ? fc_hypot(x[1], x[2]) : fabs(x[1]);
    if (t <= mu * xn) return;                 /* inside K */
    if (mu * t <= -xn) {                      /* inside the polar cone */
        for (int k = 0; k <= nt; k++) x[k] = 0.0;
        return;
    }
    double a = (xn + mu * t) / (1.0 + mu * mu); /* > 0 here */
    double s = t > 0.0 ? mu * a / t : 0.0;
    x[0] = a;
    for (int k = 1; k <= nt; k++) x[k] *= s;
}

/* fmax for a, b >= 0 or NaN, inlined (fmax is a library call here). */
static inline double max_nonneg(double a, double b)
{
    return a > b || b != b ? a : b;
}

/* The local error with u = W r + q and qn = ||q|| known. */
static inline double local_error_u(int d, const fc_local *c, double qn, const double *r,
                                   const double *u)
{
    double x[5] = {0};
    double un = u[0] + c->mu * fc_hypot(u[1], d > 2 ? u[2] : 0.0);
    if (d == 5) un += c->mu_r * fc_hypot(u[3], u[4]);
    x[0] = r[0] - un;
    for (int k = 1; k < d; k++) x[k] = r[k] - u[k];
    if (d == 5) fc_project_cone(d, c->mu, c->mu_r, x);
    else project_coulomb(d - 1, c->mu, x);
    double e[5];
    for (int k = 0; k < d; k++) e[k] = r[k] - x[k];
    double s = max_nonneg(qn, max_nonneg(fc_norm_small(d, r), fc_norm_small(d, u)));
    if (s < 1e-300) s = 1.0;
    double err = fc_norm_small(d, e) / s;
    return isfinite(err) ? err : INFINITY;
}

/* The Alart-Curnier function of one contact (d = 2, 3; for d = 5 the
 * rolling part is a second disk law), with u = W r + q:
 *   Phi_N = r_N - max(0, r_N - rho_n u_N)
 *   Phi_T = r_T - P_D(mu max(0, r_N - rho_n u_N)) (r_T - rho_t u_T)
 * at r and, when J != NULL, a generalized Jacobian in closed form
 * (row-major d x d).  The friction groups are T (rows 1..nt, radius mu
 * a+) and, for d = 5, R (rows 3, 4, radius mu_r a+). */
static inline void ac_function(int d, const fc_local *c, const double *r, const double *u,
                               double *phi, double J[5][5])
{
    const double *W = c->W;
    double rn = c->rho_n;
    double an = r[0] - rn * u[0];
    if (an > 0.0) {
        phi[0] = rn * u[0];
        if (J) for (int j = 0; j < d; j++) J[0][j] = rn * W[j * d];
    } else {
        phi[0] = r[0];
        if (J) for (int j = 0; j < d; j++) J[0][j] = j == 0;
    }
    int ngroups = d == 5 ? 2 : 1;
    for (int g = 0; g < ngroups; g++) {
        int o = 1 + 2 * g, nt = d == 2 ? 1 : 2;        /* rows o .. o+nt-1 */
        double rt = g ? c->rho_r : c->rho_t, mu = g ? c->mu_r : c->mu;
        double R = mu * fmax(an, 0.0);
        double v[2] = {0.0, 0.0};
        for (int k = 0; k < nt; k++) v[k] = r[o + k] - rt * u[o + k];
        double nv = fc_hypot(v[0], v[1]);
        if (R <= 0.0) {                       /* take-off or mu = 0: Phi_T = r_T */
            for (int k = 0; k < nt; k++) {
                phi[o + k] = r[o + k];
                if (J) for (int j = 0; j < d; j++) J[o + k][j] = j == o + k;
            }
        } else if (nv <= R) {                 /* sticking: Phi_T = rho_t u_T */
            for (int k = 0; k < nt; k++) {
                phi[o + k] = rt * u[o + k];
                if (J) for (int j = 0; j < d; j++) J[o + k][j] = rt * W[j * d + o + k];
            }
        } else {                              /* sliding */
            double n[2] = {v[0] / nv, v[1] / nv}, s = R / nv;
            for (int k = 0; k < nt; k++) phi[o + k] = r[o + k] - R * n[k];
            if (!J) continue;
            /* dv/dr = E_T - rho_t W_T;  dR/dr = mu (e_0 - rho_n W_N) */
            double dv[2][5], dR[5];
            for (int j = 0; j < d; j++) {
                for (int k = 0; k < nt; k++) dv[k][j] = (j == o + k) - rt * W[j * d + o + k];
                dR[j] = mu * ((j == 0) - rn * W[j * d]);
            }
            for (int k = 0; k < nt; k++)
                for (int j = 0; j < d; j++) {
                    double pdv = 0.0;   /* ((I - n n^T) dv)_kj */
                    for (int l = 0; l < nt; l++)
                        pdv += ((k == l) - n[k] * n[l]) * dv[l][j];
                    J[o + k][j] = (j == o + k) - s * pdv - n[k] * dR[j];
                }
        }
    }
}

static inline double sq3(int d, const double *x)
{
    double s = 0.0;
    for (int k = 0; k < d; k++) s += x[k] * x[k];
    return s;
}

/* Damped Newton on Phi from r (its error e0 and u0 = W r + q known), an
 * Armijo line search on |Phi|^2 / 2; each point's velocity computed once:
 * the accepted trial gives the next iterate's u, its error and its Phi. */
static inline double newton_ac_from(int d, const fc_local *c, const double *q, double tol,
                                     int max_iter, double *r, double e0, const double *u0)
{
    double best[5], x[5], phi[5], J[5][5], dx[5], xt[5], pt[5], u[5], ut[5];
    double qn = fc_norm_small(d, q);
    memcpy(x, r, (size_t)d * sizeof *x);
    memcpy(best, r, (size_t)d * sizeof *x);
    memcpy(u, u0, (size_t)d * sizeof *u);
    double eb = e0;
    for (int it = 0; it < max_iter && eb > tol; it++) {
        ac_function(d, c, x, u, phi, J);
        double th = 0.5 * sq3(d, phi);
        if (th == 0.0) break;
        for (int k = 0; k < d; k++) dx[k] = -phi[k];
        if (small_solve(d, J, dx)) break;
        /* Armijo on the merit: theta(x + t dx) <= (1 - 2 sigma t) theta(x) */
        double t = 1.0, tht = 0.0;
        int ok = 0;
        for (int ls = 0; ls < 40; ls++, t *= 0.5) {
            for (int k = 0; k < d; k++) xt[k] = x[k] + t * dx[k];
            local_velocity(d, c, q, xt, ut);
            ac_function(d, c, xt, ut, pt, NULL);
            tht = 0.5 * sq3(d, pt);
            if (tht <= (1.0 - 2e-4 * t) * th) { ok = 1; break; }
        }
        if (!ok) break;
        memcpy(x, xt, (size_t)d * sizeof *x);
        memcpy(u, ut, (size_t)d * sizeof *u);
        double e = local_error_u(d, c, qn, x, u);
        if (e < eb) { eb = e; memcpy(best, x, (size_t)d * sizeof *x); }
    }
    memcpy(r, best, (size_t)d * sizeof *r);
    return eb;
}

#endif
