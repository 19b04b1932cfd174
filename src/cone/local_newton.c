/* The Alart-Curnier Newton one-contact solver: its kernels (the function,
 * Jacobian and damped iteration) are local_kernels.h's, inlined per d. */
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
    double e0 = local_error_u(c->d, c, fc_norm_small(c->d, q), r, u);
    switch (c->d) {
    case 2: return newton_ac_from(2, c, q, tol, max_iter, r, e0, u);
    case 3: return newton_ac_from(3, c, q, tol, max_iter, r, e0, u);
    default: return newton_ac_from(5, c, q, tol, max_iter, r, e0, u);
    }
}
