/* A global problem's factorised M, kept for the reduction and for the
 * recovery of v after a local solve. */
#ifndef FRICON_REDUCE_H
#define FRICON_REDUCE_H

#include "fricon.h"
#include "linsys/linsys.h"

typedef struct fc_reduction {
    const fc_problem *global;
    fc_chol *chol;  /* Cholesky factor of M when M is stored symmetric, */
    fc_lu *lu;      /* else an LU factor of M as stored (e.g. one triangle) */
} fc_reduction;

fc_err fc_reduction_start(const fc_problem *p, fc_reduction *red, fc_error *err);
fc_err fc_reduction_local(fc_reduction *red, fc_problem **local, fc_error *err);
fc_err fc_reduction_recover_v(fc_reduction *red, const double *r, double *v, fc_error *err);
void fc_reduction_end(fc_reduction *red);

#endif
