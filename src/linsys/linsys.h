/* Linear-system seam: sparse factorisations from SuiteSparse behind
 * small opaque types, so that solvers need not know the library. */
#ifndef FRICON_LINSYS_H
#define FRICON_LINSYS_H

#include "fricon.h"

/* Sparse Cholesky (CHOLMOD) of a symmetric positive definite matrix. */
typedef struct fc_chol fc_chol;

/* Analyse and factorise A (any storage; symmetric, only its upper
 * triangle is read).  NULL with FC_ERR_NUMERIC when A is not positive
 * definite; name is used in the message. */
fc_chol *fc_chol_factor(const fc_matrix *A, const char *name, fc_error *err);
/* x = A^-1 b (x and b may alias). */
fc_err fc_chol_solve(fc_chol *F, const double *b, double *x, fc_error *err);
/* H^T A^-1 H as a symmetrised CSR matrix (H: n x m, any storage). */
fc_matrix *fc_chol_congruence(fc_chol *F, const fc_matrix *H, fc_error *err);
void fc_chol_free(fc_chol *F);

#endif
