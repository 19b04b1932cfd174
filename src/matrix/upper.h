/* The upper block triangle of a symmetric block-CSR matrix (nsgs's half sweep). */
#ifndef FRICON_UPPER_H
#define FRICON_UPPER_H

#include "fricon.h"
#include "matrix/colour.h"

/* A_ab for b >= a, each row's diagonal block first, when A is symmetric to tol a block
 * pair (upper.c); *why: 0 built, 1 not symmetric, -1 out of memory. */
fc_matrix *fc_bsr_upper(const fc_matrix *A, double tol, int *why);

/* y = q + A x from U = fc_bsr_upper(A), each block for its row and its column. */
void fc_bsr_upper_affine(const fc_matrix *U, const double *x, const double *q, double *y);

/* 0: every block pair of A transposes within tol (the half sweeps' test); 1: not, or A not
 * square block-CSR; -1: no memory. */
int fc_bsr_symmetric(const fc_matrix *A, double tol);

/* Symmetric A's rows in the stretches' order of c for the half sweep on threads (upper.c). */
fc_matrix *fc_bsr_upper_stretches(const fc_matrix *A, const fc_colouring *c, int **split);

#endif
