/* Damped nonsmooth Newton on the Alart-Curnier function of one contact
 * (d = 2, 3; for d = 5 the rolling part is a second disk law):
 *   Phi_N = r_N - max(0, r_N - rho_n u_N)
 *   Phi_T = r_T - P_D(mu max(0, r_N - rho_n u_N)) (r_T - rho_t u_T)
 * with u = W r + q, its generalized Jacobian in closed form, the linear
 * systems solved inline and an Armijo line search on |Phi|^2 / 2. */
#include "internal.h"
#include "cone/cone.h"
#include "cone/local_kernels.h"

/* Damped AC Newton from r; r receives the best iterate (by the SPEC local
 * error), whose error is returned.  Stops at error <= tol, after max_iter
 * iterations, or when the direction or the line search fails. */
double fc_local_newton_ac(const fc_local *c, const double *q, double tol,
                          int max_iter, double *r)
{
    double u[5] = {0};
    local_velocity(c->d, c, q, r, u);
    return fc_local_newton_ac_from(c, q, tol, max_iter, r,
                                   local_error_u(c->d, c, fc_norm_small(c->d, q), r, u), u);
}

double fc_local_newton_ac_from(const fc_local *c, const double *q, double tol,
                               int max_iter, double *r, double e0, const double *u)
{
    switch (c->d) {
    case 2: return newton_ac_from(2, c, q, tol, max_iter, r, e0, u);
    case 3: return newton_ac_from(3, c, q, tol, max_iter, r, e0, u);
    default: return newton_ac_from(5, c, q, tol, max_iter, r, e0, u);
    }
}

