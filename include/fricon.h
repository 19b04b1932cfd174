/* fricon — discrete frictional contact problems (Coulomb friction with
 * unilateral contact, second-order cone complementarity).
 *
 * This header, with fricon_options.h (included here), is the library's
 * public surface for solving: matrices and problems, reading and writing
 * files, the error measure, the solver registry, options, results, and
 * fc_solve.  fricon_mbd.h adds the rigid-body simulator.
 *
 * Conventions.  Vectors are stacked per contact: contact a owns rows
 * d*a .. d*a+d-1, normal component first (d = 2, 3, or 5 for rolling
 * friction).  Functions that can fail return an fc_err and fill an
 * fc_error (code and a one-line message); they never print.  The library
 * has no global mutable state: two problems can be solved in two threads.
 */
#ifndef FRICON_H
#define FRICON_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FRICON_VERSION "0.1.0"

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

typedef enum fc_err {
    FC_OK = 0,
    FC_ERR_IO,             /* cannot open, read or write a file          */
    FC_ERR_PARSE,          /* malformed or truncated file                */
    FC_ERR_INVALID,        /* inconsistent data: sizes, NaN, mu < 0, ... */
    FC_ERR_NOMEM,          /* allocation failed or size beyond limits    */
    FC_ERR_UNKNOWN_SOLVER, /* no solver of that name                     */
    FC_ERR_UNSUPPORTED,    /* the solver does not handle this problem    */
    FC_ERR_NUMERIC         /* a factorisation failed (singular matrix)   */
} fc_err;

typedef struct fc_error {
    fc_err code;
    char msg[512];         /* one line, no trailing newline */
} fc_error;

/* Record an error (printf-style); returns code.  err may be NULL. */
fc_err fc_error_set(fc_error *err, fc_err code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ------------------------------------------------------------------ */
/* Matrices                                                            */
/* ------------------------------------------------------------------ */

typedef enum fc_mat_kind {
    FC_MAT_DENSE, /* x[rows*cols], column-major                        */
    FC_MAT_CSR,   /* p[rows+1], j[nnz], x[nnz]; columns sorted per row  */
    FC_MAT_BSR    /* square bs x bs blocks in block-CSR: p[rows/bs+1],
                     j[nblocks] block columns, x[nblocks*bs*bs], each
                     block column-major                                 */
} fc_mat_kind;

typedef struct fc_matrix {
    fc_mat_kind kind;
    int rows, cols;
    int bs;        /* block size (BSR only, else 1)                     */
    long nnz;      /* stored entries: rows*cols, nnz, or nblocks*bs*bs  */
    int *p, *j;    /* CSR / BSR structure (NULL for dense)              */
    double *x;
} fc_matrix;

/* Allocate (zeroed) matrices; NULL on failure or absurd sizes. */
fc_matrix *fc_matrix_dense(int rows, int cols);
fc_matrix *fc_matrix_csr(int rows, int cols, long nnz);
fc_matrix *fc_matrix_bsr(int rows, int cols, int bs, long nblocks);
fc_matrix *fc_matrix_copy(const fc_matrix *A);
void fc_matrix_free(fc_matrix *A);

/* y = alpha*A*x + beta*y  (beta == 0 ignores y's previous contents). */
void fc_matrix_gemv(const fc_matrix *A, double alpha, const double *x,
                    double beta, double *y);
/* y = alpha*A^T*x + beta*y. */
void fc_matrix_gemv_t(const fc_matrix *A, double alpha, const double *x,
                      double beta, double *y);
/* Copy the square diagonal block of size d at rows/cols d*a.. into
 * blk (column-major d x d). */
void fc_matrix_diag_block(const fc_matrix *A, int a, int d, double *blk);
/* Row i times x (the i-th entry of A x). */
double fc_matrix_row_dot(const fc_matrix *A, int i, const double *x);
/* Rows d*a .. d*a+d-1 of A x, without the diagonal block's contribution
 * when skip_diag != 0: out[k] = sum_{b != a} A_ab x_b.  The kernel of
 * Gauss-Seidel sweeps. */
void fc_matrix_block_row_dot(const fc_matrix *A, int a, int d,
                             const double *x, int skip_diag, double *out);
/* Conversions; the result is a new matrix (NULL on failure).
 * to_bsr fails (NULL) when rows or cols is not a multiple of bs. */
fc_matrix *fc_matrix_to_csr(const fc_matrix *A);
fc_matrix *fc_matrix_to_bsr(const fc_matrix *A, int bs);
fc_matrix *fc_matrix_to_dense(const fc_matrix *A);
/* Value A(i,j) (slow; for tests and I/O). */
double fc_matrix_get(const fc_matrix *A, int i, int j);
/* Number of structurally stored nonzero values (entries != 0). */
long fc_matrix_count_nonzeros(const fc_matrix *A);
/* max |A_ij - A_ji| / max(1e-300, max |A_ij|); requires a square A. */
double fc_matrix_asymmetry(const fc_matrix *A);

/* ------------------------------------------------------------------ */
/* Problems                                                            */
/* ------------------------------------------------------------------ */

typedef enum fc_kind {
    FC_LOCAL,  /* FC(W, q, mu): u = W r + q                              */
    FC_GLOBAL  /* (M, H, f, w, mu): M v = H r + f, u = H^T v + w         */
} fc_kind;

typedef struct fc_problem {
    fc_kind kind;
    int d;          /* 2, 3, or 5 (rolling friction)                     */
    int nc;         /* number of contacts; m = d * nc                    */
    /* local */
    fc_matrix *W;   /* m x m                                              */
    double *q;      /* m                                                  */
    /* global */
    int n;          /* number of degrees of freedom                      */
    fc_matrix *M;   /* n x n                                              */
    fc_matrix *H;   /* n x m                                              */
    double *f;      /* n                                                  */
    double *w;      /* m                                                  */
    /* both */
    double *mu;     /* nc friction coefficients                          */
    double *mu_r;   /* nc rolling coefficients (d == 5), else NULL       */
    /* neq equality constraints (joints, SPEC section 1), multipliers lambda:
     * local u = W r + V lambda + q, V^T r + R lambda + s = 0; global
     * M v = H r + G lambda + f, G^T v + b = 0.  neq == 0: none. */
    int neq;
    fc_matrix *V;   /* local: m x neq                                      */
    fc_matrix *R;   /* local: neq x neq, symmetric PSD; NULL means zero    */
    double *s;      /* local: neq                                          */
    fc_matrix *G;   /* global: n x neq                                     */
    double *b;      /* global: neq                                         */
    char *name;     /* source file name, or NULL                         */
} fc_problem;

fc_problem *fc_problem_new(fc_kind kind, int d, int nc);
void fc_problem_free(fc_problem *p);
/* Allocates s or b (zeroed) for neq rows; the caller sets V, R or G. */
fc_err fc_problem_set_equalities(fc_problem *p, int neq, fc_error *err);
static inline int fc_problem_m(const fc_problem *p) { return p->d * p->nc; }
const char *fc_problem_kind_name(const fc_problem *p); /* "fc3d", "gfc3d", "rfc3d", ... */

/* Check sizes, finiteness, mu >= 0, square and symmetric W / M, positive
 * normal diagonal of W.  FC_OK or FC_ERR_INVALID with a message. */
fc_err fc_problem_validate(const fc_problem *p, fc_error *err);

/* The local problem of a global one: W = H^T M^-1 H and
 * q = H^T M^-1 f + w, through a sparse Cholesky factorisation of M (never
 * a dense inverse); with equality constraints V = H^T M^-1 G,
 * R = G^T M^-1 G and s = G^T M^-1 f + b.  A local problem is copied. */
fc_err fc_problem_reduce(const fc_problem *p, fc_problem **local, fc_error *err);

/* v = M^-1 (H r + f); _eq: M^-1 (H r + G lambda + f) (lambda NULL: 0). */
fc_err fc_problem_recover_v(const fc_problem *p, const double *r, double *v,
                            fc_error *err);
fc_err fc_problem_recover_v_eq(const fc_problem *p, const double *r, const double *lambda,
                               double *v, fc_error *err);

/* ------------------------------------------------------------------ */
/* Files                                                               */
/* ------------------------------------------------------------------ */

/* Read a problem: Siconos text (.dat, any other name) or FClib HDF5
 * (.hdf5, .h5).  Validates before returning.  The message names the file
 * and, for parse errors, the line or the HDF5 object. */
fc_err fc_read(const char *path, fc_problem **p, fc_error *err);
fc_err fc_read_dat(const char *path, fc_problem **p, fc_error *err);
fc_err fc_read_hdf5(const char *path, fc_problem **p, fc_error *err);

/* Write a problem, format by extension (.dat, .hdf5, .h5; another is
 * FC_ERR_INVALID).  Every value is kept exactly (%.17g in text). */
fc_err fc_write(const char *path, const fc_problem *p, fc_error *err);
fc_err fc_write_dat(const char *path, const fc_problem *p, fc_error *err);
fc_err fc_write_hdf5(const char *path, const fc_problem *p, fc_error *err);

/* Initial guesses of an FClib HDF5 file (/guesses, libfclib's layout):
 * *count (may be NULL) receives how many the file holds, 0 when none or
 * when the file is not HDF5.  When it holds some and r is not NULL, guess
 * k (from 0) is read into r (m values) and, for a global problem, its v
 * into v (n values) when v is not NULL and the guess has one.  A guess of
 * the wrong size or with a non-finite value is refused ("PATH: OBJECT:
 * why"); r and v are then untouched. */
fc_err fc_read_guess(const char *path, const fc_problem *p, int k, double *r,
                     double *v, int *count, fc_error *err);
/* Add one guess (r; v for a global problem, NULL: recovered from r) with
 * its u to the FClib HDF5 file holding p; refused if it has /guesses. */
fc_err fc_write_guess(const char *path, const fc_problem *p, const double *r,
                      const double *v, fc_error *err);
/* With lambda (p->neq values, /guesses/K/l; NULL: not read / zero). */
fc_err fc_read_guess_eq(const char *path, const fc_problem *p, int k, double *r, double *v,
                        double *lambda, int *count, fc_error *err);
fc_err fc_write_guess_eq(const char *path, const fc_problem *p, const double *r, const double *v,
                         const double *lambda, fc_error *err);

/* Solution text file of SPEC section 3 (v, lambda may be NULL). */
fc_err fc_write_solution(const char *path, const fc_problem *p,
                         const double *r, const double *u, const double *v,
                         const double *lambda, fc_error *err);
/* Read one for problem p: r (m) required; u (m), v (n, "# v" section) and
 * lambda (p->neq, "# lambda", then required) filled when not NULL. */
fc_err fc_read_solution(const char *path, const fc_problem *p, double *r,
                        double *u, double *v, double *lambda, fc_error *err);

/* ------------------------------------------------------------------ */
/* Error measure (SPEC section 2)                                      */
/* ------------------------------------------------------------------ */

/* Projection onto the Coulomb cone {||x_T|| <= mu x_N} (d = 2 or 3), or
 * for d = 5 onto {||x_T|| <= mu x_N, ||x_R|| <= mu_r x_N}; in place. */
void fc_project_cone(int d, double mu, double mu_r, double *x);

/* The error measure of SPEC section 2 for a local problem, with u given
 * (u = W r + q is not recomputed here); scaled by ||w|| when the problem
 * carries the w of the global problem it was reduced from (as SPEC
 * measures that global problem), else by ||q||. */
double fc_error_local(const fc_problem *p, const double *r, const double *u);

/* The SPEC measure for any problem from r alone: u is recomputed (W r + q,
 * or H^T v + w with v = M^-1 (H r + f)).  For a global problem, if
 * dyn is not NULL it receives ||M v - H r - f|| / max(1, ||f||) with the
 * given v (if v != NULL) or the recomputed one. */
double fc_residual(const fc_problem *p, const double *r, const double *v,
                   double *dyn);
/* With equalities: lambda (NULL: 0) enters u or v and the dynamics; eq
 * (may be NULL) receives the equality residual of fc_info.eq_residual. */
double fc_residual_eq(const fc_problem *p, const double *r, const double *v,
                      const double *lambda, double *dyn, double *eq);

typedef enum fc_law { FC_LAW_SEPARATED, FC_LAW_STICKING, FC_LAW_SLIDING } fc_law;
const char *fc_law_name(fc_law law);

typedef struct fc_contact_diag {
    int contact;
    fc_law law;
    double error;  /* ||e_a|| / s: this contact's share of the measure */
} fc_contact_diag;

/* Per-contact diagnostics for a local problem at (r, u): diag[nc] receives
 * each contact's law and error.  Returns the overall measure. */
double fc_diagnose(const fc_problem *p, const double *r, const double *u,
                   fc_contact_diag *diag);

/* ------------------------------------------------------------------ */
/* Options and results                                                 */
/* ------------------------------------------------------------------ */

typedef enum fc_status {
    FC_CONVERGED = 0,
    FC_MAX_ITER,
    FC_TIME_LIMIT,
    FC_DIVERGED,
    FC_STATUS_ERROR,
    FC_STALLED      /* no progress: fc_solve's stall watch (stall_iterations) */
} fc_status;
/* "converged", "max-iter", "time-limit", "diverged", "error", "stalled" */
const char *fc_status_name(fc_status s);

#include "fricon_options.h"   /* fc_options: every solver option, its default and range */

#define FC_MAX_STAGES 16
typedef struct fc_stage {  /* one solver run inside a composite solve */
    char solver[32];
    fc_status status;
    int iterations;
    double residual;
    double seconds;
} fc_stage;

typedef struct fc_info {
    fc_status status;
    int iterations;
    double residual;       /* SPEC measure recomputed on the returned r, u */
    double dyn_residual;   /* global: ||M v - H r - G lambda - f|| / max(1, ||f||) */
    double eq_residual;    /* ||V^T r + R lambda + s|| or ||G^T v + b||, / max(1, ||s or b||) */
    double seconds;        /* solve alone (no I/O); reduction included     */
    char message[256];     /* why the solver stopped, if not converged     */
    int nstages;
    fc_stage stages[FC_MAX_STAGES];
} fc_info;

/* ------------------------------------------------------------------ */
/* Solvers                                                             */
/* ------------------------------------------------------------------ */

typedef struct fc_solver {
    const char *name;
    const char *description; /* one line */
    unsigned dims;           /* bit d set when dimension d is supported   */
    /* Local problem: r holds the initial guess on entry; fills r and u,
     * info->iterations, info->status and info->message. */
    fc_status (*solve_local)(const fc_problem *p, const fc_options *opt,
                             double *r, double *u, fc_info *info);
    /* Global problem solved directly (NULL: through fc_problem_reduce). */
    fc_status (*solve_global)(const fc_problem *p, const fc_options *opt,
                              double *r, double *u, double *v, fc_info *info);
    /* For composite solvers (auto): a global problem of at least
     * direct_contacts contacts (0: none) is better solved on (M, H) by
     * solve_direct than through its reduction to W. */
    int direct_contacts;
    fc_status (*solve_direct)(const fc_problem *p, const fc_options *opt,
                              double *r, double *u, double *v, fc_info *info);
    /* With max_iter 0 and a time limit, no iteration count: the solver
     * ends by its own rules or when the time is up (auto). */
    int until_time;
    /* Problems with equalities (neq > 0; lambda out).  Both NULL: refused
     * (FC_ERR_UNSUPPORTED); a global one without _global_eq is reduced. */
    fc_status (*solve_local_eq)(const fc_problem *p, const fc_options *opt, double *r,
                                double *u, double *lambda, fc_info *info);
    fc_status (*solve_global_eq)(const fc_problem *p, const fc_options *opt, double *r,
                                 double *u, double *v, double *lambda, fc_info *info);
} fc_solver;

/* The iteration count that max_iter = 0 stands for otherwise. */
#define FC_MAX_ITER_DEFAULT 100000

#define FC_DIM(d) (1u << (d))

int fc_solver_count(void);
const fc_solver *fc_solver_at(int i);
const fc_solver *fc_solver_find(const char *name);
const char *fc_default_solver(void);

/* Solve p with the named solver (NULL: the default).  r (m), u (m) and,
 * for a global problem, v (n, may be NULL) receive the solution.
 * Returns FC_OK when the solver ran (info->status says whether it
 * converged); info->residual is always recomputed from the returned r
 * and u with the SPEC measure, independently of the solver, and
 * info->status is FC_CONVERGED only when that residual <= tolerance. */
fc_err fc_solve(const fc_problem *p, const char *solver, const fc_options *opt,
                double *r, double *u, double *v, fc_info *info, fc_error *err);
/* fc_solve that also returns the multipliers lambda (p->neq values, may
 * be NULL) of p's equality constraints. */
fc_err fc_solve_eq(const fc_problem *p, const char *solver, const fc_options *opt,
                   double *r, double *u, double *v, double *lambda, fc_info *info,
                   fc_error *err);

#ifdef __cplusplus
}
#endif
#endif /* FRICON_H */
