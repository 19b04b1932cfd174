/* The projection one-contact solver: the fixed point
 * r = P_K(r - rho u_hat(r)), u_hat = W r + q + (mu ||u_T|| [+ mu_r ||u_R||]) e_N,
 * iterated with a self-adaptive scalar step rho (starting from
 * 1/lambda_max(W) and shrunk while rho |du_hat| > 0.9 |dr|).  Any d. */
#include "internal.h"
#include "cone/cone.h"

/* u_hat = u + g(u) from r. */
static void uhat_of(const fc_local *c, const double *q, const double *r, double *uh)
{
    int d = c->d;
    fc_local_velocity(c, q, r, uh);
    double g = c->mu * fc_hypot(uh[1], d > 2 ? uh[2] : 0.0);
    if (d == 5) g += c->mu_r * fc_hypot(uh[3], uh[4]);
    uh[0] += g;
}

/* Iterate from r; r receives the best iterate, whose error is returned. */
double fc_local_projection(const fc_local *c, const double *q, double tol,
                           int max_iter, double *r)
{
    int d = c->d;
    double x[5], best[5], uh[5], xn[5], uhn[5];
    memcpy(x, r, (size_t)d * sizeof *x);
    fc_project_cone(d, c->mu, c->mu_r, x);
    memcpy(best, r, (size_t)d * sizeof *x);
    double eb = fc_local_error(c, q, r);
    double rho = c->rho;
    uhat_of(c, q, x, uh);
    for (int it = 0; it < max_iter && eb > tol; it++) {
        double dr = 0.0, du = 0.0;
        for (int ls = 0; ls < 60; ls++) {
            for (int k = 0; k < d; k++) xn[k] = x[k] - rho * uh[k];
            fc_project_cone(d, c->mu, c->mu_r, xn);
            uhat_of(c, q, xn, uhn);
            dr = 0.0; du = 0.0;
            for (int k = 0; k < d; k++) {
                dr += (xn[k] - x[k]) * (xn[k] - x[k]);
                du += (uhn[k] - uh[k]) * (uhn[k] - uh[k]);
            }
            dr = sqrt(dr); du = sqrt(du);
            if (rho * du <= 0.9 * dr) break;
            rho *= 0.5;
        }
        memcpy(x, xn, (size_t)d * sizeof *x);
        memcpy(uh, uhn, (size_t)d * sizeof *x);
        double e = fc_local_error(c, q, x);
        if (e < eb) { eb = e; memcpy(best, x, (size_t)d * sizeof *x); }
        if (dr == 0.0) break;
        if (rho * du < 0.5 * dr) rho *= 1.25;   /* grow again when safe */
    }
    memcpy(r, best, (size_t)d * sizeof *r);
    return eb;
}
