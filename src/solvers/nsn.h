/* Nonsmooth Newton solvers: the per-contact functions, exposed for tests. */
#ifndef FRICON_NSN_H
#define FRICON_NSN_H

#include "fricon.h"

/* One contact's F_a(r_a, u_a) of formulation form (d = 2, 3) and, when A,
 * B are not NULL, a generalised Jacobian: A = dF/du, B = dF/dr (d x d,
 * column-major); penalties rho_n, rho_t (FB and NM: rho_t for all). */
void fc_nsn_contact(int form, int d, double mu, double rho_n, double rho_t,
                    const double *r, const double *u, double *F, double *A, double *B);

#endif
