/* Damped nonsmooth Newton on the Alart-Curnier function of one contact
 * (d = 2, 3; for d = 5 the rolling part is a second disk law):
 *   Phi_N = r_N - max(0, r_N - rho_n u_N)
 *   Phi_T = r_T - P_D(mu max(0, r_N - rho_n u_N)) (r_T - rho_t u_T)
 * with u = W r + q, its generalized Jacobian in closed form, the linear
 * systems solved inline and an Armijo line search on |Phi|^2 / 2. */
#include "internal.h"
#include "cone/cone.h"

/* Phi at r with u = W r + q and, when J != NULL, a generalized Jacobian
 * (row-major d x d).  The friction groups are T (rows 1..nt, radius mu
 * a+) and, for d = 5, R (rows 3, 4, radius mu_r a+), each an
 * Alart-Curnier disk law. */
static void ac_function(const fc_local *c, const double *r, const double *u,
                        double *phi, double J[5][5])
{
    int d = c->d;
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

static double sq3(int d, const double *x)
{
    double s = 0.0;
    for (int k = 0; k < d; k++) s += x[k] * x[k];
    return s;
}

/* Damped AC Newton from r; r receives the best iterate (by the SPEC local
 * error), whose error is returned.  Stops at error <= tol, after max_iter
 * iterations, or when the direction or the line search fails. */
double fc_local_newton_ac(const fc_local *c, const double *q, double tol,
                          int max_iter, double *r)
{
    double u[5] = {0};
    fc_local_velocity(c, q, r, u);
    return fc_local_newton_ac_from(c, q, tol, max_iter, r,
                                   fc_local_error_u(c, fc_norm_small(c->d, q), r, u), u);
}

/* Each point's velocity is computed once: the line search's accepted
 * trial gives the next iterate's u, its error and its Phi. */
double fc_local_newton_ac_from(const fc_local *c, const double *q, double tol,
                               int max_iter, double *r, double e0, const double *u0)
{
    int d = c->d;
    double best[5], x[5], phi[5], J[5][5], dx[5], xt[5], pt[5], u[5], ut[5];
    double qn = fc_norm_small(d, q);
    memcpy(x, r, (size_t)d * sizeof *x);
    memcpy(best, r, (size_t)d * sizeof *x);
    memcpy(u, u0, (size_t)d * sizeof *u);
    double eb = e0;
    for (int it = 0; it < max_iter && eb > tol; it++) {
        ac_function(c, x, u, phi, J);
        double th = 0.5 * sq3(d, phi);
        if (th == 0.0) break;
        for (int k = 0; k < d; k++) dx[k] = -phi[k];
        if (fc_small_solve(d, J, dx)) break;
        /* Armijo on the merit: theta(x + t dx) <= (1 - 2 sigma t) theta(x) */
        double t = 1.0, tht = 0.0;
        int ok = 0;
        for (int ls = 0; ls < 40; ls++, t *= 0.5) {
            for (int k = 0; k < d; k++) xt[k] = x[k] + t * dx[k];
            fc_local_velocity(c, q, xt, ut);
            ac_function(c, xt, ut, pt, NULL);
            tht = 0.5 * sq3(d, pt);
            if (tht <= (1.0 - 2e-4 * t) * th) { ok = 1; break; }
        }
        if (!ok) break;
        memcpy(x, xt, (size_t)d * sizeof *x);
        memcpy(u, ut, (size_t)d * sizeof *u);
        double e = fc_local_error_u(c, qn, x, u);
        if (e < eb) { eb = e; memcpy(best, x, (size_t)d * sizeof *x); }
    }
    memcpy(r, best, (size_t)d * sizeof *r);
    return eb;
}
