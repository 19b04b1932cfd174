/* SuiteSparse factorisations behind small opaque types. */
#ifndef FRICON_LINSYS_H
#define FRICON_LINSYS_H

#include "fricon.h"

/* ---- chol.c: sparse Cholesky (CHOLMOD) of an SPD matrix ---- */
typedef struct fc_chol fc_chol;

/* A's upper triangle; NULL, FC_ERR_NUMERIC naming it, when not SPD. */
fc_chol *fc_chol_factor(const fc_matrix *A, const char *name, fc_error *err);
/* A + shift I, A symmetric block-CSR, AMD on the block graph; FC_ERR_NOMEM
 * past max_entries or max_flops as predicted (fc_chol_predict_bsr). */
fc_chol *fc_chol_factor_bsr_shift(const fc_matrix *A, double shift, double max_entries,
                                  double max_flops, const char *name, fc_error *err);
fc_err fc_chol_predict_bsr(const fc_matrix *A, double *entries, double *flops, fc_error *err);
/* The same for a symmetric CSC pattern (upper triangle read), AMD. */
fc_err fc_chol_predict_pattern(int n, const int *Ap, const int *Ai, double *entries, double *flops,
                               fc_error *err);
/* x = A^-1 b (x and b may alias). */
fc_err fc_chol_solve(fc_chol *F, const double *b, double *x, fc_error *err);
/* H^T A^-1 H as a symmetrised CSR matrix (H: n x m, any storage). */
fc_matrix *fc_chol_congruence(fc_chol *F, const fc_matrix *H, fc_error *err);
fc_chol *fc_chol_copy(const fc_chol *F);   /* no factorisation; NULL: out of memory */
void fc_chol_free(fc_chol *F);
/* Is A (its upper triangle) positive definite: FC_OK, or FC_ERR_NUMERIC. */
fc_err fc_chol_check_definite(const fc_matrix *A, const char *name, fc_error *err);

/* ---- lu.c: sparse LU of a fixed pattern, refactorised by Newton ---- */
/* The CSC pattern (rows sorted) analysed once; UMFPACK, KLU (UMFPACK on
 * heavy predicted fill), or dense LAPACK (picked itself when n <= 64). */
typedef struct fc_lu fc_lu;
typedef enum fc_lu_kind {
    FC_LU_UMFPACK = 0, FC_LU_KLU = 1, FC_LU_DENSE = 2,
    FC_LU_UMFPACK_SYMMETRIC = 3   /* UMFPACK's symmetric strategy */
} fc_lu_kind;

/* Arrays copied; FC_ERR_NOMEM past 50 x the entries + 1e6 predicted. */
fc_lu *fc_lu_new(int n, const int *Ap, const int *Ai, fc_lu_kind kind, fc_error *err);
/* Ax in the pattern's order; FC_ERR_NUMERIC when singular; rcond: 1/cond. */
fc_err fc_lu_factor(fc_lu *F, const double *Ax, double *rcond, fc_error *err);
/* x = A^-1 b, the last factorisation (x and b may alias). */
fc_err fc_lu_solve(fc_lu *F, const double *b, double *x, fc_error *err);
/* The caller refines: UMFPACK's refinement off (docs/measurements.md). */
void fc_lu_solver_refines(fc_lu *F);
fc_lu_kind fc_lu_backend(const fc_lu *F);
double fc_lu_predicted_flops(const fc_lu *F);   /* one factorisation's, predicted */
void fc_lu_free(fc_lu *F);

/* ---- blockjac.c: the pattern of W + block-diagonal terms: W's blocks plus the missing diagonal ones: block rows (bp, bj; bw: W's
 * block or -1; bdiag), one CSC pattern (Ap, Ai, Ax), pos[k*d*d + ii + jj*d]
 * the CSC index of entry (ii, jj) of block k, and its LU analysis. */
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

/* ---- pcg.c: conjugate gradients on A + shift I, block-Jacobi preconditioned ---- */
typedef struct fc_pcg fc_pcg;
/* A PSD in blocks of d (symmetrise: its symmetric part); NULL: out of memory. */
fc_pcg *fc_pcg_new(const fc_matrix *A, int d, int symmetrise);
void fc_pcg_shift(fc_pcg *P, double shift);   /* the blocks of A + shift I factorised */
/* x (the start) until ||b - (A + shift I) x|| <= tol or max_iter; returns
 * the iterations, *res the residual's norm (res may be NULL). */
int fc_pcg_solve(fc_pcg *P, const double *b, double *x, double tol, int max_iter, double *res);
void fc_pcg_free(fc_pcg *P);

/* ---- kkt.c: a symmetric matrix of fixed pattern, refactorised often ---- */
typedef struct fc_kkt fc_kkt;
/* From nz triplets (either triangle, duplicates summed, tx NULL: zeros),
 * diagonal included, ordered once; quasidef 0: LL', 1: LDL'. */
fc_kkt *fc_kkt_new(int n, long nz, const int *ti, const int *tj, const double *tx,
                   int quasidef, fc_error *err);
/* Quasi-definite [A11 B; B' -C] (A11: n1, C block diagonal, bs <= 8) by
 * its Schur complement A11 + B C^-1 B' (whole LDL' otherwise), refined. */
fc_kkt *fc_kkt_new_schur(int n, long nz, const int *ti, const int *tj, const double *tx,
                         int n1, int bs, fc_error *err);
/* A cone QP's KKT matrix: W, or [M sign H; sign H' C] (global; C: d x d
 * blocks from zero, explicit when cblocks); W or M as (A + A')/2 scaled by
 * ta_i ta_j (ta may be NULL), H's column j by hs_j (hs may be NULL). */
fc_kkt *fc_kkt_new_problem(const fc_problem *p, int global, const double *ta, double sign,
                           const double *hs, int cblocks, fc_error *err);
/* The values (upper triangle), updated in place at fc_kkt_find's (-1: none). */
long fc_kkt_find(const fc_kkt *K, int i, int j);
long fc_kkt_diag(const fc_kkt *K, int i);
double *fc_kkt_values(fc_kkt *K);
/* Factorise with reg[i] added to the diagonal (reg may be NULL). */
fc_err fc_kkt_factor(fc_kkt *K, const double *reg, fc_error *err);
/* x = A^-1 b with `refine` refinement steps (x and b must not alias). */
fc_err fc_kkt_solve(fc_kkt *K, const double *b, double *x, int refine, fc_error *err);
double fc_kkt_solve_residual(const fc_kkt *K);   /* ||b - A x||_inf / ||b||_inf, last solve */
void fc_kkt_free(fc_kkt *K);
/* Predicted flops (fc_kkt_new refuses past 50 x the entries + 1e6). */
double fc_kkt_predicted_flops(const fc_kkt *K);

/* ---- supernodal_solve.c: CHOLMOD's supernodal LL' solved on threads ---- */
struct cholmod_factor_struct;
typedef struct fc_snsolve fc_snsolve;
int fc_snsolve_applies(const struct cholmod_factor_struct *L);   /* large enough */
/* The plan for L's structure; NULL: not applicable or out of memory. */
fc_snsolve *fc_snsolve_new(const struct cholmod_factor_struct *L);
/* x = A^-1 b, A = P' L L' P (x, b may alias); 0: not the plan's L. */
int fc_snsolve_solve(fc_snsolve *S, const struct cholmod_factor_struct *L, const double *b, double *x);
void fc_snsolve_free(fc_snsolve *S);
void fc_snsolve_shape(const fc_snsolve *S, const struct cholmod_factor_struct *L, int *tasks, int *top,
                      int *split);   /* its tasks, top supernodes, those in panels */

#endif
