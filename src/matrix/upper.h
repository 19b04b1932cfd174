/* The upper block triangle of a symmetric block-CSR matrix: what nsgs's
 * half sweep reads (solvers/nsgs.c).  Private to the library. */
#ifndef FRICON_UPPER_H
#define FRICON_UPPER_H

#include "fricon.h"

/* The blocks A_ab, b >= a, of block-CSR A (square), each block row's
 * diagonal block first (zero when A stores none), when A is symmetric:
 * every pair A_ab, A_ba (a block not stored: zero) transposes of each
 * other within tol of the larger of their entries and of
 * sqrt(max |diag A_aa| max |diag A_bb|).  *why: 0 built, 1 not symmetric
 * (or not block-CSR), -1 out of memory; NULL unless 0. */
fc_matrix *fc_bsr_upper(const fc_matrix *A, double tol, int *why);

/* y = q + A x for the symmetric A whose upper triangle fc_bsr_upper gave
 * as U: each stored block read once, for its row and, transposed, for its
 * column. */
void fc_bsr_upper_affine(const fc_matrix *U, const double *x, const double *q, double *y);

#endif
