/* Equality rows of a local problem (V, R, s) as Gauss-Seidel blocks J:
 * lambda_J solved exactly from V_J'r + R_J. lambda + s_J = 0 by a dense
 * Cholesky of R_JJ whose vanishing pivots (redundant rows) are dropped.
 * Blocks: all rows when neq <= FC_EQB_DENSE, else runs of consecutive
 * rows with R's sparsity pattern (a joint's), at most FC_EQB_MAX rows.
 * A zero diagonal entry of R (R = 0: a saddle point) is refused. */
#ifndef FRICON_EQBLOCK_H
#define FRICON_EQBLOCK_H

#include "internal.h"

#define FC_EQB_DENSE 64
#define FC_EQB_MAX 12
/* Most values of the dense n x neq blocks of nsn's and gadmm's eliminations. */
#define FC_EQ_DENSE_MAX ((size_t)1 << 26)

typedef struct fc_eqb {
    int neq, m, nb;
    int *start;      /* nb + 1 block starts                     */
    long *off;       /* nb offsets of the blocks' factors in L  */
    double *L;       /* column-major lower factors, 0 = dropped  */
    fc_matrix *Vt;   /* V^T, CSR (neq x m)                       */
    fc_matrix *Rc;   /* R, CSR (neq x neq)                       */
    double *res;     /* block scratch                            */
} fc_eqb;

/* 0: ready; -1: out of memory; 1: unsupported (msg says why). */
int fc_eqb_init(fc_eqb *E, const fc_problem *p, char *msg, size_t len);
/* One pass over the blocks: lambda updated in place from r. */
void fc_eqb_sweep(const fc_eqb *E, const double *s, const double *r, double *lambda);
/* qe = q + V lambda. */
void fc_eqb_shift(const fc_eqb *E, const double *q, const double *lambda, double *qe);
/* ||V^T r + R lambda + s|| / max(1, ||s||). */
double fc_eqb_residual(const fc_eqb *E, const double *s, const double *r, const double *lambda);
void fc_eqb_free(fc_eqb *E);
/* Dense PSD n x n (column-major): factor in place, vanishing pivots
 * dropped; then x = -(L L')^+ x (a dropped row's entry 0). */
void fc_eqb_chol(int n, double *A);
void fc_eqb_chol_solve_neg(int n, const double *L, double *x);

#endif
