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
/* Cholesky of A + shift I for a symmetric block-CSR A (its blocks on and
 * above the diagonal are read), ordered by AMD on the graph of the blocks
 * (the matrix's own structure: a cheaper analysis than AMD on every
 * entry).  NULL with FC_ERR_NUMERIC when not positive definite, with
 * FC_ERR_NOMEM when the analysis predicts more than max_entries entries
 * in the factor or more than max_flops flops (each <= 0: no limit). */
fc_chol *fc_chol_factor_bsr_shift(const fc_matrix *A, double shift, double max_entries,
                                  double max_flops, const char *name, fc_error *err);
/* The same analysis alone (A's pattern, nothing factorised): the factor's
 * predicted entries and flops. */
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

/* Sparse LU of a square nonsymmetric matrix with a fixed pattern, for
 * Newton methods: the pattern (CSC: Ap[n+1], Ai[nnz], row indices sorted
 * per column) is analysed once, then each fc_lu_factor reuses that
 * symbolic analysis with new values.  Backends: UMFPACK (default), KLU
 * (replaced by UMFPACK when its analysis predicts heavy fill), or a dense
 * LAPACK LU that fc_lu_new picks by itself when n <= 64. */
typedef struct fc_lu fc_lu;
typedef enum fc_lu_kind {
    FC_LU_UMFPACK = 0, FC_LU_KLU = 1, FC_LU_DENSE = 2,
    FC_LU_UMFPACK_SYMMETRIC = 3   /* UMFPACK on a symmetric pattern (its symmetric strategy) */
} fc_lu_kind;

/* Analyse the pattern (the arrays are copied).  NULL on failure. */
fc_lu *fc_lu_new(int n, const int *Ap, const int *Ai, fc_lu_kind kind, fc_error *err);
/* Numeric factorisation of the values Ax (in the pattern's order).
 * FC_ERR_NUMERIC when the matrix is (numerically) singular; rcond, if not
 * NULL, receives an estimate of the reciprocal condition number. */
fc_err fc_lu_factor(fc_lu *F, const double *Ax, double *rcond, fc_error *err);
/* x = A^-1 b with the last successful factorisation (x and b may alias). */
fc_err fc_lu_solve(fc_lu *F, const double *b, double *x, fc_error *err);
/* The caller refines its solutions against the exact matrix itself:
 * UMFPACK's own iterative refinement (2 steps a solve by default, each a
 * residual and a second pair of triangular solves) is turned off.
 * Measured: ipm-mdp on the 3206-contact column's (M, H), whose solves
 * took 40% of its time, 7.2 -> 5.9 s. */
void fc_lu_solver_refines(fc_lu *F);
/* The backend actually used. */
fc_lu_kind fc_lu_backend(const fc_lu *F);
/* The flops of one factorisation, as the symbolic analysis predicts them.
 * (fc_lu_new refuses, FC_ERR_NOMEM, factors predicted beyond 50 times the
 * matrix's entries plus 1e6.) */
double fc_lu_predicted_flops(const fc_lu *F);
void fc_lu_free(fc_lu *F);

/* The pattern of W + block-diagonal terms for a block-CSR W (blocks of d,
 * rows sorted): W's blocks plus every missing diagonal block, as block
 * rows (bp, bj: block columns; bw: W's block index or -1 for an added
 * diagonal block; bdiag: the diagonal block of each row) and as one CSC
 * pattern (Ap, Ai, values Ax) with pos[k*d*d + ii + jj*d] the CSC index
 * of entry (ii, jj) of block k; the pattern's LU analysis in lu. */
typedef struct fc_bjac {
    int d, nc, m;
    long nb;
    int *bp, *bj, *bdiag;
    long *bw, *pos;
    int *Ap, *Ai;
    double *Ax;
    fc_lu *lu;
} fc_bjac;
/* who names the solver in messages. */
fc_err fc_bjac_init(fc_bjac *J, const fc_matrix *W, int d, fc_lu_kind kind, const char *who,
                    fc_error *err);
void fc_bjac_free(fc_bjac *J);

#endif

/* ---- kkt.c: a symmetric matrix of fixed pattern, refactorised often ---- */
typedef struct fc_kkt fc_kkt;
/* Pattern and initial values from nz triplets (i, j, x) (either triangle;
 * duplicates summed; tx may be NULL for zeros); the diagonal is always in
 * the pattern.  quasidef = 0: positive definite (LL'), 1: quasi-definite
 * (LDL').  Analysed (ordered) once here. */
fc_kkt *fc_kkt_new(int n, long nz, const int *ti, const int *tj, const double *tx,
                   int quasidef, fc_error *err);
/* The same for a quasi-definite [A11 B; B' -C] (n1 = size of A11) whose
 * C is block diagonal with blocks of bs (<= 8) and whose A11 + B C^-1 B'
 * is positive definite: factorised through that Schur complement
 * (n1 x n1, supernodal LL'; C^-1 block by block), solves refined against
 * the whole matrix.  Far smaller factors when n1 is small against the
 * whole or C's coupling is local (the global problem's M + H D H' has
 * the pattern of the bodies' contact graph; the KKT's LDL' fills like
 * H' M^-1 H).  Falls back to the whole LDL' when C is not block diagonal. */
fc_kkt *fc_kkt_new_schur(int n, long nz, const int *ti, const int *tj, const double *tx,
                         int n1, int bs, fc_error *err);
/* The KKT matrix of a problem's cone QP: for a local problem (global =
 * 0) W alone, for a global one [M sign H; sign H' C] with C of d x d
 * blocks (fc_kkt_new_schur).  M or W enters as (A + A')/2, times ta_i
 * ta_j if ta is not NULL; H's column j times sign and hs_j (hs may be
 * NULL); with cblocks, explicit zeros for the upper triangles of the
 * d x d diagonal blocks of the contacts' part (W's, or C's; filled in by
 * the caller through fc_kkt_find).  C starts at zero. */
fc_kkt *fc_kkt_new_problem(const fc_problem *p, int global, const double *ta, double sign,
                           const double *hs, int cblocks, fc_error *err);
/* Position of entry (i, j) in the values array (-1: not in the pattern). */
long fc_kkt_find(const fc_kkt *K, int i, int j);
long fc_kkt_diag(const fc_kkt *K, int i);
/* The values (upper triangle, exact matrix), to be updated in place. */
double *fc_kkt_values(fc_kkt *K);
/* Factorise with reg[i] added to the diagonal (reg may be NULL). */
fc_err fc_kkt_factor(fc_kkt *K, const double *reg, fc_error *err);
/* x = A^-1 b with `refine` steps of iterative refinement against the
 * exact matrix (x and b must not alias). */
fc_err fc_kkt_solve(fc_kkt *K, const double *b, double *x, int refine, fc_error *err);
/* The last solve's relative residual ||b - A x||_inf / ||b||_inf after its
 * refinement (infinite for a non-finite x): the caller judges it. */
double fc_kkt_solve_residual(const fc_kkt *K);
void fc_kkt_free(fc_kkt *K);
/* The flops of one factorisation, as the analysis predicts them.
 * (fc_kkt_new refuses, FC_ERR_NOMEM, a whole factor predicted beyond 50
 * times the matrix's entries plus 1e6.) */
double fc_kkt_predicted_flops(const fc_kkt *K);
