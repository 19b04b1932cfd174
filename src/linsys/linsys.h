/* Linear-system seam: SuiteSparse factorisations behind small opaque
 * types, so that solvers need not know the library. */
#ifndef FRICON_LINSYS_H
#define FRICON_LINSYS_H

#include "fricon.h"

/* ---- chol.c: sparse Cholesky (CHOLMOD) of an SPD matrix ---- */
typedef struct fc_chol fc_chol;

/* A's upper triangle is read.  NULL with FC_ERR_NUMERIC when A is not
 * positive definite (name: for the message). */
fc_chol *fc_chol_factor(const fc_matrix *A, const char *name, fc_error *err);
/* A + shift I for a symmetric block-CSR A, ordered by AMD on the block
 * graph.  NULL with FC_ERR_NOMEM when the analysis (fc_chol_predict_bsr
 * alone) predicts more than max_entries entries or max_flops flops. */
fc_chol *fc_chol_factor_bsr_shift(const fc_matrix *A, double shift, double max_entries,
                                  double max_flops, const char *name, fc_error *err);
fc_err fc_chol_predict_bsr(const fc_matrix *A, double *entries, double *flops, fc_error *err);
/* x = A^-1 b (x and b may alias). */
fc_err fc_chol_solve(fc_chol *F, const double *b, double *x, fc_error *err);
/* H^T A^-1 H as a symmetrised CSR matrix (H: n x m, any storage). */
fc_matrix *fc_chol_congruence(fc_chol *F, const fc_matrix *H, fc_error *err);
/* A copy of the factor (no factorisation; NULL when out of memory). */
fc_chol *fc_chol_copy(const fc_chol *F);
void fc_chol_free(fc_chol *F);
/* FC_OK when A (its upper triangle) is positive definite, else
 * FC_ERR_NUMERIC (or FC_ERR_NOMEM) with a message naming it. */
fc_err fc_chol_check_definite(const fc_matrix *A, const char *name, fc_error *err);

/* ---- lu.c: sparse LU of a fixed pattern, refactorised by Newton ---- */
/* The CSC pattern (row indices sorted) is analysed once.  UMFPACK by
 * default, KLU (UMFPACK instead on heavy predicted fill), or dense LAPACK,
 * which fc_lu_new picks itself when n <= 64. */
typedef struct fc_lu fc_lu;
typedef enum fc_lu_kind {
    FC_LU_UMFPACK = 0, FC_LU_KLU = 1, FC_LU_DENSE = 2,
    FC_LU_UMFPACK_SYMMETRIC = 3   /* UMFPACK's symmetric strategy */
} fc_lu_kind;

/* The arrays are copied.  NULL on failure, FC_ERR_NOMEM when the factor
 * is predicted beyond 50 x the matrix's entries + 1e6. */
fc_lu *fc_lu_new(int n, const int *Ap, const int *Ai, fc_lu_kind kind, fc_error *err);
/* Values Ax in the pattern's order.  FC_ERR_NUMERIC when singular; rcond
 * (may be NULL): an estimate of the reciprocal condition number. */
fc_err fc_lu_factor(fc_lu *F, const double *Ax, double *rcond, fc_error *err);
/* x = A^-1 b with the last factorisation (x and b may alias). */
fc_err fc_lu_solve(fc_lu *F, const double *b, double *x, fc_error *err);
/* The caller refines itself: UMFPACK's own refinement is turned off
 * (docs/measurements.md, "linsys"). */
void fc_lu_solver_refines(fc_lu *F);
fc_lu_kind fc_lu_backend(const fc_lu *F);
/* The flops of one factorisation, as the analysis predicts them. */
double fc_lu_predicted_flops(const fc_lu *F);
void fc_lu_free(fc_lu *F);

/* ---- blockjac.c: the pattern of W + block-diagonal terms ---- */
/* W's blocks (block-CSR, blocks of d, rows sorted) plus the missing
 * diagonal blocks: block rows (bp, bj; bw: W's block or -1; bdiag: the
 * diagonal block of each row), one CSC pattern (Ap, Ai, Ax) with
 * pos[k*d*d + ii + jj*d] the CSC index of entry (ii, jj) of block k, and
 * its LU analysis. */
typedef struct fc_bjac {
    int d, nc, m;
    long nb;
    int *bp, *bj, *bdiag;
    long *bw, *pos;
    int *Ap, *Ai;
    double *Ax;
    fc_lu *lu;
} fc_bjac;
fc_err fc_bjac_init(fc_bjac *J, const fc_matrix *W, int d, fc_lu_kind kind, const char *who,
                    fc_error *err);
void fc_bjac_free(fc_bjac *J);

/* ---- kkt.c: a symmetric matrix of fixed pattern, refactorised often ---- */
typedef struct fc_kkt fc_kkt;
/* From nz triplets (either triangle, duplicates summed, tx NULL: zeros;
 * the diagonal always in the pattern), ordered once.  quasidef 0: LL',
 * 1: quasi-definite LDL'. */
fc_kkt *fc_kkt_new(int n, long nz, const int *ti, const int *tj, const double *tx,
                   int quasidef, fc_error *err);
/* A quasi-definite [A11 B; B' -C] (n1 = size of A11, C block diagonal
 * with blocks of bs <= 8) factorised through its Schur complement A11 +
 * B C^-1 B', solves refined against the whole matrix: far smaller factors
 * when n1 is small or C's coupling local.  Whole LDL' when C is not block
 * diagonal. */
fc_kkt *fc_kkt_new_schur(int n, long nz, const int *ti, const int *tj, const double *tx,
                         int n1, int bs, fc_error *err);
/* The KKT matrix of a problem's cone QP: W (global = 0), or [M sign H;
 * sign H' C] with C of d x d blocks, starting at zero.  M or W enters as
 * (A + A')/2, scaled by ta_i ta_j if ta != NULL; H's column j by sign
 * hs_j (hs may be NULL).  cblocks: explicit zeros for the upper triangles
 * of the contacts' diagonal blocks, filled in through fc_kkt_find. */
fc_kkt *fc_kkt_new_problem(const fc_problem *p, int global, const double *ta, double sign,
                           const double *hs, int cblocks, fc_error *err);
/* The values (upper triangle), to be updated in place at the positions
 * fc_kkt_find gives (-1: not in the pattern). */
long fc_kkt_find(const fc_kkt *K, int i, int j);
long fc_kkt_diag(const fc_kkt *K, int i);
double *fc_kkt_values(fc_kkt *K);
/* Factorise with reg[i] added to the diagonal (reg may be NULL). */
fc_err fc_kkt_factor(fc_kkt *K, const double *reg, fc_error *err);
/* x = A^-1 b with `refine` refinement steps (x and b must not alias). */
fc_err fc_kkt_solve(fc_kkt *K, const double *b, double *x, int refine, fc_error *err);
/* ||b - A x||_inf / ||b||_inf of the last solve (inf for non-finite x). */
double fc_kkt_solve_residual(const fc_kkt *K);
void fc_kkt_free(fc_kkt *K);
/* Predicted flops of one factorisation (fc_kkt_new refuses, FC_ERR_NOMEM,
 * a factor beyond 50 x the entries + 1e6). */
double fc_kkt_predicted_flops(const fc_kkt *K);

#endif
