/* The one-contact update of Gauss-Seidel on the velocity form (nncg's
 * sweeps, dist-nsgs's and dist-nncg's per-rank sweeps). */
#ifndef FRICON_VELOCITY_CONTACT_H
#define FRICON_VELOCITY_CONTACT_H

#include "internal.h"
#include "cone/cone.h"

/* The contact of loc (d = loc->d) whose d rows of H^T and of G^T = (M^-1 H)^T
 * start at row: FC(W_aa, H_a^T v + w_a - W_aa r_a, mu_a) solved from r_a,
 * then v += G_a (r_a,new - r_a).  wa, ra: the contact's d entries of w, r. */
void fc_velocity_contact(const fc_local *loc, const fc_local_params *par, const fc_matrix *Ht,
                         const fc_matrix *Gt, int row, const double *wa, double *ra, double *v);

#endif
