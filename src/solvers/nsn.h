/* Nonsmooth Newton solvers: the per-contact functions, exposed for tests. */
#ifndef FRICON_NSN_H
#define FRICON_NSN_H

#include "fricon.h"

/* One contact's piece F_a(r_a, u_a) of the formulation form (an
 * fc_nsn_formulation) for d = 2 or 3, and, when A and B are not NULL, an
 * element of its generalised Jacobian: A = dF_a/du_a, B = dF_a/dr_a, both
 * d x d column-major (A[i + j*d] = dF_i/du_j).  rho_n, rho_t: penalty
 * parameters (FB and NM use rho_t for the whole contact: their zero set
 * needs a scalar rho). */
void fc_nsn_contact(int form, int d, double mu, double rho_n, double rho_t,
                    const double *r, const double *u, double *F, double *A, double *B);

#endif
