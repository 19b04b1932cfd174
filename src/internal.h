/* Internal helpers shared by the library's sources (not installed). */
#ifndef FRICON_INTERNAL_H
#define FRICON_INTERNAL_H

#include "fricon.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Is a plain sum of squares s safe to take the square root of: neither
 * overflowed nor underflowed (a 0 may be an underflow: not safe)?  Then
 * sqrt(s) is the norm, several times faster than the careful ways (libm's
 * hypot showed at 11% in the profiles of the contact loops). */
static inline int fc_plain_square_ok(double s)
{
    return s < 1e300 && s > 1e-300;
}

/* sqrt(x^2 + y^2): the plain formula when it is safe, else hypot. */
static inline double fc_hypot(double x, double y)
{
    double s = x * x + y * y;
    if (fc_plain_square_ok(s)) return sqrt(s);
    return x == 0.0 && y == 0.0 ? 0.0 : hypot(x, y);
}

/* Euclidean norm of a short vector (a contact's d <= 5 components),
 * inlined for the contact loops; fc_norm2's careful way when the plain
 * square is not safe. */
double fc_norm2(int n, const double *x);
static inline double fc_norm_small(int n, const double *x)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += x[i] * x[i];
    return fc_plain_square_ok(s) ? sqrt(s) : fc_norm2(n, x);
}

/* Threads of the OpenMP kernels in this solve (src/util/threads.c): 1
 * outside fc_solve.  fc_threads_set returns the previous count;
 * fc_threads_resolve maps fc_options.threads (0: FRICON_NUM_THREADS, else
 * every core) to a count.  Kernels split work in chunks that depend on
 * the size alone, so that results do not depend on the count. */
#define FC_THREADS_MAX 1024
int fc_threads(void);
int fc_threads_set(int n);
int fc_threads_resolve(int requested);
/* OpenBLAS' own thread count (1 for another BLAS: single-threaded), and
 * setting it (0: not OpenBLAS, nothing done). */
int fc_blas_threads(void);
int fc_blas_threads_set(int n);
/* Rows (or contacts) below which a kernel runs on one thread: 4096, or
 * what fc_par_min_set (per calling thread; tests lower it to run the
 * threaded paths on small problems) says; FC_CHUNK_MIN below follows it
 * (twice FC_PAR_MIN). */
#define FC_PAR_MIN fc_par_min()
int fc_par_min(void);
int fc_par_min_set(int n);
/* Whether a kernel over n items runs threaded: when not, the kernel takes
 * a plain loop instead of a region with a false if clause, which libgomp
 * still sets a team up for (3-10x a small problem's solve time). */
#define FC_PAR_ON(n) ((n) >= FC_PAR_MIN && fc_threads() > 1)
/* A kernel's loop over n rows or contacts: a static parallel for on the
 * solve's threads (with the extra OpenMP clauses, e.g. a reduction) when
 * FC_PAR_ON(n), else the same loop with no OpenMP region at all. */
#define FC_PRAGMA(x) _Pragma(#x)
#define FC_PAR_FOR(n, clauses, ...)                                                    \
    do {                                                                               \
        if (FC_PAR_ON(n)) {                                                            \
            FC_PRAGMA(omp parallel for schedule(static) num_threads(fc_threads()) clauses) \
            __VA_ARGS__                                                                \
        } else {                                                                       \
            __VA_ARGS__                                                                \
        }                                                                              \
    } while (0)

/* A loop over the count chunks of a chunked kernel (fc_chunks below; the
 * body sees the chunk's index as k) whose chunks cost unequal time (the
 * cone projections' cases): handed
 * out one at a time, so a thread that drew cheap chunks takes more; each
 * chunk writes its own partial result, so the result does not depend on
 * which thread ran it. */
#define FC_PAR_CHUNKS(n, count, ...)                                                   \
    do {                                                                               \
        if (FC_PAR_ON(n)) {                                                            \
            FC_PRAGMA(omp parallel for schedule(dynamic, 1) num_threads(fc_threads())) \
            for (int k = 0; k < (count); k++) { __VA_ARGS__ }                          \
        } else {                                                                       \
            for (int k = 0; k < (count); k++) { __VA_ARGS__ }                          \
        }                                                                              \
    } while (0)

/* A reduction over n items in chunks whose layout depends on n alone:
 * one chunk up to `one` items (the plain loop's sum: FC_CHUNK_MIN
 * entries, FC_CHUNK_MIN / d contacts), else a multiple of 8 chunks of
 * equal length (at most FC_CHUNKS_MAX; balanced on 2, 4, 8 threads).  The
 * partial sums, combined in chunk order by fc_chunks_sum, give the same
 * result for any thread count. */
#define FC_CHUNKS_MAX 64
#define FC_CHUNK_MIN (2 * fc_par_min())
typedef struct fc_chunks {
    int len, count;
} fc_chunks;
static inline fc_chunks fc_chunks_of(int n, int one)
{
    fc_chunks c;
    long groups = one > 0 ? ((long)n + 8L * one - 1) / (8L * one) : 8;
    c.count = n <= one ? 1 : groups * 8 < FC_CHUNKS_MAX ? (int)groups * 8 : FC_CHUNKS_MAX;
    c.len = n > 0 ? (n - 1) / c.count + 1 : 1;
    if (n <= 0) c.count = 0;
    return c;
}
/* End of chunk k (its start is k * c.len). */
static inline int fc_chunk_end(fc_chunks c, int k, int n)
{
    return (k + 1) * c.len < n ? (k + 1) * c.len : n;
}
static inline double fc_chunks_sum(fc_chunks c, const double *part)
{
    double s = 0.0;
    for (int k = 0; k < c.count; k++) s += part[k];
    return s;
}

/* Largest vector or matrix the library allocates without question:
 * guards against absurd declared sizes in files. */
#define FC_MAX_ENTRIES (1L << 31)

/* Allocation of n elements of size sz, zeroed; NULL when n*sz overflows,
 * exceeds FC_MAX_ENTRIES elements, or the allocation fails. */
void *fc_calloc(size_t n, size_t sz);
/* The same, zeroed by writing now: for arrays threads update in place
 * (calloc's untouched pages fault twice, flushing every core's TLB). */
void *fc_calloc_touched(size_t n, size_t sz);
/* The same, not zeroed: for memory the caller writes in full anyway. */
void *fc_malloc(size_t n, size_t sz);
/* Duplicate n doubles (NULL if src is NULL or allocation fails). */
double *fc_dup(const double *src, size_t n);

/* Copy of a string (NULL on failure). */
char *fc_strdup(const char *s);

/* Monotonic wall clock, seconds; the process's CPU clock instead while
 * the calling thread's fc_solve runs with fc_options.cpu_clock. */
double fc_now(void);
/* Set the calling thread's clock (1: CPU); returns the previous one. */
int fc_clock_cpu_set(int on);

/* A deadline opt->time_limit after start (0: none). */
typedef struct fc_clock {
    double start;
    double limit;   /* seconds, <= 0: none */
} fc_clock;
void fc_clock_start(fc_clock *c, const fc_options *opt);
int fc_clock_expired(const fc_clock *c);
double fc_clock_elapsed(const fc_clock *c);

/* Log through opt->log when opt->verbose >= level (printf-style). */
void fc_log(const fc_options *opt, int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Position of key in the sorted idx[lo .. end - 1] (a compressed row or
 * column), -1 when absent. */
int fc_find_sorted(const int *idx, int lo, int end, int key);

/* A CSR matrix with room for nnz entries, p zeroed, j and x not: for a
 * caller that writes every entry (a large clear is a serial pass). */
fc_matrix *fc_matrix_csr_unset(int rows, int cols, long nnz);
/* The same for a block-CSR matrix of bs x bs blocks. */
fc_matrix *fc_matrix_bsr_unset(int rows, int cols, int bs, long nblocks);
/* Transpose of a CSR matrix, as CSR (NULL when out of memory). */
fc_matrix *fc_csr_transpose(const fc_matrix *C);
/* Block-CSR (bs > 1) or CSR (bs = 1) straight from compressed arrays:
 * CSC when by_column (p: cols + 1 pointers, idx: rows), else CSR; indices
 * in range (the caller checks).  Duplicates summed, block columns sorted,
 * a block stored when any entry is; no copy besides the result and three
 * index arrays over the blocks.  NULL when out of memory or the sizes are
 * not multiples of bs. */
fc_matrix *fc_compressed_to_bsr(int rows, int cols, int bs, const int *p, const int *idx,
                                const double *x, int by_column);
/* Dofs touched by the same nonempty set of contacts (a hash of the
 * contacts, d rows each, a CSR H's row touches; a collision only joins two
 * groups): each joined to the first dof of its set, pairs[2k], pairs[2k+1]
 * (room for 2 n); the count, -1 when out of memory.  Rigid bodies' dofs
 * for fc_diag_blocks. */
int fc_dof_signature_pairs(const fc_matrix *Hc, int d, int *pairs);

/* fc_problem_validate but M's definiteness (its Cholesky): for a reader
 * whose caller checks M itself (the distributed solvers, per body). */
fc_err fc_problem_validate_shape(const fc_problem *p, fc_error *err);
/* fc_read_hdf5 validating with fc_problem_validate_shape (src/io). */
fc_err fc_read_hdf5_shape(const char *path, fc_problem **p, fc_error *err);

/* u = W r + q (q and u of W's rows): the velocity of a local problem, or
 * of any matrix and shift a solver works with.  fc_problem_u: p's own. */
void fc_affine(const fc_matrix *W, const double *r, const double *q, double *u);
static inline void fc_problem_u(const fc_problem *p, const double *r, double *u)
{
    fc_affine(p->W, r, p->q, u);
}
/* The SPEC measure of a local problem at r, with u = W r + q into u. */
static inline double fc_problem_error(const fc_problem *p, const double *r, double *u)
{
    fc_problem_u(p, r, u);
    return fc_error_local(p, r, u);
}
/* With equalities: the larger of that measure (u = W r + V lambda + q)
 * and the equality residual; NaN kept (src/measure/residual.c). */
double fc_error_local_eq(const fc_problem *p, const double *r, const double *lambda, double *u);

/* Dense vector kernels (src/util/vec.c), threaded from FC_PAR_MIN
 * entries; the sums by fc_chunks. */
double fc_dot(int n, const double *x, const double *y);
double fc_norm2(int n, const double *x);
double fc_norm2_max3(int n, const double *x, const double *y, const double *z);
/* ||x - y||. */
double fc_dist2(int n, const double *x, const double *y);
/* ||x - y||^2 and ||x||^2 in one parallel region. */
void fc_sq_dist_norm(int n, const double *x, const double *y, double *dist2, double *norm2);
/* y = x (a threaded memcpy). */
void fc_copy(int n, const double *x, double *y);
int fc_all_finite(size_t n, const double *x);

/* Record a stage in info (composite solvers). */
void fc_info_add_stage(fc_info *info, const char *solver, fc_status status,
                       int iterations, double residual, double seconds);

/* Solver entry points, one per file under src/solvers/. */
fc_status fc_stick_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                         fc_info *info);
fc_status fc_auto_solve(const fc_problem *p, const fc_options *opt,
                        double *r, double *u, fc_info *info);
fc_status fc_auto_solve_global(const fc_problem *p, const fc_options *opt, double *r, double *u,
                               double *v, fc_info *info);
/* Equality-capable entry points (fc_solver.solve_local_eq / solve_global_eq). */
fc_status fc_auto_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                           double *lambda, fc_info *info);
fc_status fc_auto_solve_global_eq(const fc_problem *p, const fc_options *opt, double *r,
                                  double *u, double *v, double *lambda, fc_info *info);
fc_status fc_nsgs_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                           double *lambda, fc_info *info);
fc_status fc_psor_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                           double *lambda, fc_info *info);
fc_status fc_nsn_ac_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                             double *lambda, fc_info *info);
fc_status fc_nsn_jm_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                             double *lambda, fc_info *info);
fc_status fc_nsn_fb_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                             double *lambda, fc_info *info);
fc_status fc_nsn_nm_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                             double *lambda, fc_info *info);
fc_status fc_gadmm_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                            double *v, double *lambda, fc_info *info);
fc_status fc_gipm_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                           double *v, double *lambda, fc_info *info);
fc_status fc_nsgs_v_solve_global_eq(const fc_problem *p, const fc_options *opt, double *r,
                                    double *u, double *v, double *lambda, fc_info *info);
fc_status fc_nsn_hybrid_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                                 double *lambda, fc_info *info);
fc_status fc_admm_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                           double *lambda, fc_info *info);
fc_status fc_ipm_mdp_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                              double *lambda, fc_info *info);
fc_status fc_ipm_mdp_solve_global_eq(const fc_problem *p, const fc_options *opt, double *r,
                                     double *u, double *v, double *lambda, fc_info *info);
fc_status fc_nsgs_solve(const fc_problem *p, const fc_options *opt,
                        double *r, double *u, fc_info *info);
fc_status fc_psor_solve(const fc_problem *p, const fc_options *opt,
                        double *r, double *u, fc_info *info);
fc_status fc_ipm_solve(const fc_problem *p, const fc_options *opt,
                       double *r, double *u, fc_info *info);
fc_status fc_ipm_mdp_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                           fc_info *info);
/* ipm-mdp (ipm.formulation 0) and auto's interior-point stages solve a
 * global problem on (M, H) directly, without W, from this many contacts
 * on (docs/auto-measurements.md#direct). */
#define FC_IPM_MDP_DIRECT_CONTACTS 500
/* The interior points take M as symmetric (a Cholesky of M, K = M + H D
 * H') when its relative asymmetry is at most this; above, a file's M (one
 * stored triangle, LMGC dumps) goes through W or its own LU. */
#define FC_IPM_M_SYMMETRIC 1e-13
fc_status fc_ipm_mdp_solve_global(const fc_problem *p, const fc_options *opt, double *r,
                                  double *u, double *v, fc_info *info);
/* Does any contact have friction (mu > 0)?  Without, the problem is a
 * monotone complementarity problem (a convex QP): auto and ipm/gipm treat
 * it as such. */
static inline int fc_problem_has_friction(const fc_problem *p)
{
    for (int c = 0; c < p->nc; c++)
        if (p->mu[c] > 0) return 1;
    return 0;
}
/* ipm-mdp's start margin: ipm.margin, or 1 when unset (<= 0). */
static inline double fc_ipm_mdp_margin(const fc_options *opt)
{
    return opt->ipm.margin > 0 ? opt->ipm.margin : 1.0;
}
fc_status fc_gipm_solve(const fc_problem *p, const fc_options *opt,
                        double *r, double *u, double *v, fc_info *info);
fc_status fc_admm_solve(const fc_problem *p, const fc_options *opt,
                        double *r, double *u, fc_info *info);
fc_status fc_gadmm_solve(const fc_problem *p, const fc_options *opt,
                         double *r, double *u, double *v, fc_info *info);

fc_status fc_nsn_ac_solve(const fc_problem *p, const fc_options *opt,
                          double *r, double *u, fc_info *info);
fc_status fc_nsn_jm_solve(const fc_problem *p, const fc_options *opt,
                          double *r, double *u, fc_info *info);
fc_status fc_nsn_fb_solve(const fc_problem *p, const fc_options *opt,
                          double *r, double *u, fc_info *info);
fc_status fc_nsn_nm_solve(const fc_problem *p, const fc_options *opt,
                          double *r, double *u, fc_info *info);
fc_status fc_nsn_hybrid_solve(const fc_problem *p, const fc_options *opt,
                              double *r, double *u, fc_info *info);
/* 2D pivoting and gradient solvers (lemke.c, enum.c, cpg.c). */
fc_status fc_lemke_solve(const fc_problem *p, const fc_options *opt,
                         double *r, double *u, fc_info *info);
fc_status fc_enum_solve(const fc_problem *p, const fc_options *opt,
                        double *r, double *u, fc_info *info);
fc_status fc_cpg_solve(const fc_problem *p, const fc_options *opt,
                       double *r, double *u, fc_info *info);
/* First-order and fixed-point solvers (projection.c, apgd.c, aclm.c,
 * prox.c, tfp.c, dsfp.c, pfp.c, nsgs_v.c). */
#define FC_FO_DECL(name) fc_status name(const fc_problem *p, const fc_options *opt, \
                                        double *r, double *u, fc_info *info)
FC_FO_DECL(fc_fpp_solve);
FC_FO_DECL(fc_eg_solve);
FC_FO_DECL(fc_vi_fpp_solve);
FC_FO_DECL(fc_vi_eg_solve);
FC_FO_DECL(fc_hp_solve);
FC_FO_DECL(fc_prox_solve);
FC_FO_DECL(fc_tfp_solve);
FC_FO_DECL(fc_dsfp_solve);
FC_FO_DECL(fc_pfp_solve);
FC_FO_DECL(fc_aclm_solve);
FC_FO_DECL(fc_apgd_solve);
FC_FO_DECL(fc_apgd_ccp_solve);
FC_FO_DECL(fc_nsgs_v_solve);
fc_status fc_nsgs_v_solve_global(const fc_problem *p, const fc_options *opt, double *r,
                                 double *u, double *v, fc_info *info);
FC_FO_DECL(fc_nncg_solve);
fc_status fc_nncg_solve_global(const fc_problem *p, const fc_options *opt, double *r,
                               double *u, double *v, fc_info *info);

#endif
