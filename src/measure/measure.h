/* Internal entry points of the error measure. */
#ifndef FRICON_MEASURE_H
#define FRICON_MEASURE_H

#include "fricon.h"

/* e = r - P_K(r - u_hat) for one contact of dimension d. */
void fc_contact_residual(int d, double mu, double mu_r, const double *r,
                         const double *u, double *e);

/* SPEC section 2 with s = max(||scale||, ||r||, ||u||) (scale: q for a
 * local problem, w for a global one); diag (nc entries) may be NULL.
 * NaN when r or u holds a NaN or infinity. */
double fc_error_measure(int d, int nc, const double *mu, const double *mu_r,
                        const double *scale, const double *r, const double *u,
                        fc_contact_diag *diag);

/* The same measure for the convex relaxation K* ∋ u ⟂ r ∈ K (u in place
 * of u_hat: no De Saxce term), of a local or a global problem. */
double fc_error_relaxation(const fc_problem *p, const double *r, const double *u);

/* ||M v - H r - G lambda - f|| / max(1, ||f||) (lambda NULL: no G). */
double fc_dynamics_residual(const fc_problem *p, const double *r, const double *v);
double fc_dynamics_residual_eq(const fc_problem *p, const double *r, const double *v,
                               const double *lambda);
/* ||V^T r + R lambda + s|| / max(1, ||s||) (local; v unused) or
 * ||G^T v + b|| / max(1, ||b||) (global); 0 when p->neq == 0. */
double fc_equality_residual(const fc_problem *p, const double *r, const double *v,
                            const double *lambda);
/* u = W r + V lambda + q for a local problem (lambda NULL: W r + q). */
void fc_problem_u_eq(const fc_problem *p, const double *r, const double *lambda, double *u);

#endif
