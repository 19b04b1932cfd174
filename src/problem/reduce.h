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
    fc_chol *chol_v;    /* a copy of chol as factorised, for v (FC_V_M_FACTOR) */
} fc_reduction;

/* Which factor fc_solve_reduced recovers v with: M's Cholesky factor as
 * the reduction leaves it (turned simplicial by W's congruence: fc_solve's
 * rule), or as factorised (a copy taken before: the composite solvers'
 * rule, bit-identical to a second factorisation).  One factorisation
 * either way; they differ in round-off, which tests/test_golden pins. */
typedef enum fc_v_factor { FC_V_REDUCED_FACTOR, FC_V_M_FACTOR } fc_v_factor;

fc_err fc_reduction_start(const fc_problem *p, fc_reduction *red, fc_error *err);
fc_err fc_reduction_local(fc_reduction *red, fc_problem **local, fc_error *err);
fc_err fc_reduction_recover_v(fc_reduction *red, const double *r, const double *lambda, double *v,
                              fc_error *err);
void fc_reduction_end(fc_reduction *red);

/* A solve of a global problem's reduction loc (user: the caller's). */
typedef fc_status (*fc_reduced_fn)(const fc_problem *loc, const fc_options *opt, double *r,
                                    double *u, fc_info *info, void *user);

/* Solve the global problem p through its reduction: M factorised once,
 * solve run on the local problem with the time left on clk (core/stage.h),
 * v recovered from r with the same factor; the solve's status in *status.
 * u receives the local u = W r + q.  Equalities: FC_ERR_UNSUPPORTED. */
fc_err fc_solve_reduced(const fc_problem *p, const fc_options *opt, const fc_clock *clk,
                        fc_v_factor vf, fc_reduced_fn solve, void *user, double *r, double *u, double *v,
                        fc_info *info, fc_status *status, fc_error *err);

/* fc_solve_reduced for any global problem: the reduction keeps the
 * equalities (V = H^T M^-1 G, R = G^T M^-1 G, s = G^T M^-1 f + b), solve
 * fills r, u = W r + V lambda + q and lambda, then v = M^-1 (H r + G lambda
 * + f).  lambda (p->neq values) may be NULL. */
typedef fc_status (*fc_reduced_eq_fn)(const fc_problem *loc, const fc_options *opt, double *r,
                                      double *u, double *lambda, fc_info *info, void *user);
fc_err fc_solve_reduced_eq(const fc_problem *p, const fc_options *opt, const fc_clock *clk,
                           fc_v_factor vf, fc_reduced_eq_fn solve, void *user, double *r, double *u,
                           double *v, double *lambda, fc_info *info, fc_status *status, fc_error *err);

#endif
