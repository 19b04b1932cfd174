/* fc_solve: run a registered solver on a local or global problem and
 * judge its answer with the SPEC measure, recomputed here. */
#include "internal.h"
#include "measure/measure.h"
#include "problem/reduce.h"
#include "core/stage.h"

#include <limits.h>
#include <stdio.h>

/* u = W r + q (local) or H^T v + w (global). */
static void recompute_u(const fc_problem *p, const double *r, const double *v, double *u)
{
    int m = fc_problem_m(p);
    if (p->kind == FC_LOCAL) {
        fc_problem_u(p, r, u);
    } else {
        memcpy(u, p->w, (size_t)m * sizeof *u);
        fc_matrix_gemv_t(p->H, 1.0, v, 1.0, u);
    }
}

/* The solver's claim checked against the recomputed measure. */
static void judge(const fc_problem *p, const fc_options *opt, const double *r,
                  const double *u, const double *v, fc_info *info)
{
    info->residual = fc_error_local(p, r, u);
    info->dyn_residual = p->kind == FC_GLOBAL ? fc_dynamics_residual(p, r, v) : 0.0;
    int ok = info->residual <= opt->tolerance &&
             (p->kind == FC_LOCAL || info->dyn_residual <= opt->tolerance);
    if (!isfinite(info->residual) || !fc_all_finite((size_t)fc_problem_m(p), r)) {
        info->status = FC_DIVERGED;
        if (!info->message[0]) snprintf(info->message, sizeof info->message,
                                        "the solution holds NaN or infinite values");
    } else if (ok) {
        info->status = FC_CONVERGED;
    } else if (info->status == FC_CONVERGED) {
        info->status = FC_MAX_ITER;
        snprintf(info->message, sizeof info->message,
                 "the solver reported convergence but the recomputed error is %.3e", info->residual);
    }
}

/* A registered solver's local entry, for fc_solve_reduced. */
static fc_status solve_local(const fc_problem *loc, const fc_options *opt, double *r, double *u,
                             fc_info *info, void *solver)
{
    return ((const fc_solver *)solver)->solve_local(loc, opt, r, u, info);
}

fc_err fc_solve(const fc_problem *p, const char *name, const fc_options *opt,
                double *r, double *u, double *v, fc_info *info, fc_error *err)
{
    fc_error tmp;
    fc_options o;
    if (!err) err = &tmp;
    if (opt) o = *opt;
    else fc_default_options(&o);
    opt = &o;
    memset(info, 0, sizeof *info);
    info->status = FC_STATUS_ERROR;
    if (fc_options_validate(opt, err) != FC_OK) return err->code;
    const fc_solver *s = fc_solver_find(name ? name : fc_default_solver());
    if (!s) return fc_error_set(err, FC_ERR_UNKNOWN_SOLVER, "unknown solver '%s'", name);
    if (o.max_iter == 0) o.max_iter = s->until_time && o.time_limit > 0 ? INT_MAX : FC_MAX_ITER_DEFAULT;
    if (!(s->dims & FC_DIM(p->d)))
        return fc_error_set(err, FC_ERR_UNSUPPORTED, "solver '%s' does not handle d = %d",
                            s->name, p->d);
    int m = fc_problem_m(p);
    double *vv = v;
    if (p->kind == FC_GLOBAL && !vv && !(vv = fc_calloc((size_t)p->n, sizeof *vv)))
        return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    int threads_before = fc_threads_set(fc_threads_resolve(o.threads));
    if (opt->r0) memcpy(r, opt->r0, (size_t)m * sizeof *r);
    else memset(r, 0, (size_t)m * sizeof *r);
    double t0 = fc_now();
    fc_err e = FC_OK;
    if (p->kind == FC_LOCAL)
        info->status = s->solve_local(p, opt, r, u, info);
    else if (s->solve_global)
        info->status = s->solve_global(p, opt, r, u, vv, info);
    else {
        fc_clock clk;
        fc_clock_start(&clk, opt);
        e = fc_solve_reduced(p, opt, &clk, FC_V_REDUCED_FACTOR, solve_local, (void *)s, r, u, vv,
                             info, &info->status, err);
    }
    info->seconds = fc_now() - t0;
    if (e == FC_OK) {
        recompute_u(p, r, vv, u);
        judge(p, opt, r, u, vv, info);
    }
    if (vv != v) free(vv);
    fc_threads_set(threads_before);
    return e;
}
