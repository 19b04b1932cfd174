/* fc_solve: run a registered solver on a local or global problem and
 * judge its answer with the SPEC measure, recomputed here. */
#include "internal.h"
#include "measure/measure.h"
#include "problem/reduce.h"
#include "core/stage.h"

#include <limits.h>
#include <stdio.h>

/* u = W r + V lambda + q (local) or H^T v + w (global). */
static void recompute_u(const fc_problem *p, const double *r, const double *v,
                        const double *lambda, double *u)
{
    int m = fc_problem_m(p);
    if (p->kind == FC_LOCAL) {
        fc_problem_u_eq(p, r, lambda, u);
    } else {
        memcpy(u, p->w, (size_t)m * sizeof *u);
        fc_matrix_gemv_t(p->H, 1.0, v, 1.0, u);
    }
}

/* The solver's claim checked against the recomputed measure. */
static void judge(const fc_problem *p, const fc_options *opt, const double *r,
                  const double *u, const double *v, const double *lambda, fc_info *info)
{
    info->residual = fc_error_local(p, r, u);
    info->dyn_residual = p->kind == FC_GLOBAL ? fc_dynamics_residual_eq(p, r, v, lambda) : 0.0;
    info->eq_residual = fc_equality_residual(p, r, v, lambda);
    int ok = info->residual <= opt->tolerance && info->eq_residual <= opt->tolerance &&
             (p->kind == FC_LOCAL || info->dyn_residual <= opt->tolerance);
    if (!isfinite(info->residual) || !isfinite(info->eq_residual) ||
        !fc_all_finite((size_t)fc_problem_m(p), r) ||
        (lambda && !fc_all_finite((size_t)p->neq, lambda))) {
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

/* The stall watch on the top-level run's progress reports (iteration,
 * error): a run whose best error has not gained 10% over the last
 * max(stall_iterations, 2 x the iterations its last 10% gain took) is
 * stopped.  The window counts reported iterations (a sweep, a pivot, an
 * outer step, whatever the solver reports); a restart of the count adds
 * one.  The factor 2 keeps sublinear rates (error ~ k^-p, p >= 0.15) from
 * being cut: each 10% gain there takes 0.9^(-1/p) times the last.  Only
 * the caller's run is watched: stages get no callback (stage.c). */
typedef struct stall_watch {
    fc_progress_fn user_fn;
    void *user;
    long min_window;
    int started, stalled;
    int last_it;         /* the last reported iteration                   */
    long clock;          /* reported iterations so far                    */
    long at_gain, gain;  /* clock at the last 10% gain, what it took       */
    double ref;          /* best error at the last 10% gain               */
    double best;
} stall_watch;

static int stall_progress(void *user, int iteration, double error)
{
    stall_watch *w = user;
    if (w->user_fn && w->user_fn(w->user, iteration, error)) return 1;
    if (isnan(error)) return 0;
    /* judged from the first report whose error differs from the first
     * one: a solver reporting a constant (enum's 1.0) has no measure */
    if (w->started < 2) {
        if (!w->started) w->ref = error;
        w->started = w->started || 1;
        w->last_it = iteration;
        if (error == w->ref) return 0;
        w->started = 2;
        w->ref = w->best = fmin(error, w->ref);
        return 0;
    }
    w->clock += iteration >= w->last_it ? (long)iteration - w->last_it : 1;
    w->last_it = iteration;
    if (error < w->best) w->best = error;
    if (error <= 0.9 * w->ref) {
        w->gain = w->clock - w->at_gain;
        w->at_gain = w->clock;
        w->ref = error;
        return 0;
    }
    long window = 2 * w->gain > w->min_window ? 2 * w->gain : w->min_window;
    if (w->clock - w->at_gain > window) w->stalled = 1;
    return w->stalled;
}

/* A registered solver's local entry, for fc_solve_reduced. */
static fc_status solve_local(const fc_problem *loc, const fc_options *opt, double *r, double *u,
                             fc_info *info, void *solver)
{
    return ((const fc_solver *)solver)->solve_local(loc, opt, r, u, info);
}

/* A registered solver's local entry with equalities, for fc_solve_reduced_eq. */
static fc_status solve_local_eq(const fc_problem *loc, const fc_options *opt, double *r,
                                double *u, double *lambda, fc_info *info, void *solver)
{
    return ((const fc_solver *)solver)->solve_local_eq(loc, opt, r, u, lambda, info);
}

/* Run s on p (equalities: its _eq entries, lambda of p->neq values; a
 * global problem without solve_global_eq through its reduction). */
static fc_err run(const fc_solver *s, const fc_problem *p, const fc_options *opt, double *r,
                  double *u, double *v, double *lambda, fc_info *info, fc_error *err)
{
    if (p->neq > 0 && p->kind == FC_LOCAL) {
        info->status = s->solve_local_eq(p, opt, r, u, lambda, info);
        return FC_OK;
    }
    fc_clock clk;
    fc_clock_start(&clk, opt);
    if (p->neq > 0 && s->solve_global_eq) {
        info->status = s->solve_global_eq(p, opt, r, u, v, lambda, info);
        return FC_OK;
    }
    if (p->neq > 0)
        return fc_solve_reduced_eq(p, opt, &clk, FC_V_REDUCED_FACTOR, solve_local_eq, (void *)s, r,
                                   u, v, lambda, info, &info->status, err);
    if (p->kind == FC_LOCAL) {
        info->status = s->solve_local(p, opt, r, u, info);
        return FC_OK;
    }
    if (s->solve_global) {
        info->status = s->solve_global(p, opt, r, u, v, info);
        return FC_OK;
    }
    return fc_solve_reduced(p, opt, &clk, FC_V_REDUCED_FACTOR, solve_local, (void *)s, r, u, v,
                            info, &info->status, err);
}

fc_err fc_solve(const fc_problem *p, const char *name, const fc_options *opt,
                double *r, double *u, double *v, fc_info *info, fc_error *err)
{
    return fc_solve_eq(p, name, opt, r, u, v, NULL, info, err);
}

fc_err fc_solve_eq(const fc_problem *p, const char *name, const fc_options *opt,
                   double *r, double *u, double *v, double *lambda, fc_info *info,
                   fc_error *err)
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
    if (p->neq > 0 && !s->solve_local_eq && !(p->kind == FC_GLOBAL && s->solve_global_eq))
        return fc_error_set(err, FC_ERR_UNSUPPORTED,
                            "solver '%s' does not handle equality constraints (joints)", s->name);
    int m = fc_problem_m(p);
    double *vv = v, *lam = lambda;
    if (p->kind == FC_GLOBAL && !vv && !(vv = fc_calloc((size_t)p->n, sizeof *vv)))
        return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    if (p->neq > 0 && !lam && !(lam = fc_calloc((size_t)p->neq, sizeof *lam))) {
        if (vv != v) free(vv);
        return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    }
    if (lam && opt->lambda0) memmove(lam, opt->lambda0, (size_t)p->neq * sizeof *lam);
    else if (lam) memset(lam, 0, (size_t)p->neq * sizeof *lam);
    int threads_before = fc_threads_set(fc_threads_resolve(o.threads));
    int clock_before = fc_clock_cpu_set(o.cpu_clock);
    if (opt->r0) memcpy(r, opt->r0, (size_t)m * sizeof *r);
    else memset(r, 0, (size_t)m * sizeof *r);
    stall_watch watch = {opt->progress, opt->progress_user, opt->stall_iterations, 0, 0, 0, 0, 0, 0, 0, 0};
    fc_options watched;
    if (opt->stall_iterations > 0) {
        watched = *opt;
        watched.progress = stall_progress;
        watched.progress_user = &watch;
        opt = &watched;
    }
    double t0 = fc_now();
    fc_err e = run(s, p, opt, r, u, vv, lam, info, err);
    info->seconds = fc_now() - t0;
    if (e == FC_OK) {
        recompute_u(p, r, vv, lam, u);
        if (watch.stalled && info->status != FC_DIVERGED) {
            info->status = FC_STALLED;
            snprintf(info->message, sizeof info->message,
                     "stalled: the best error %.3e has not gained 10%% in %ld iterations (stall_iterations = %d)",
                     watch.best, watch.clock - watch.at_gain, opt->stall_iterations);
        }
        judge(p, opt, r, u, vv, lam, info);
    }
    if (vv != v) free(vv);
    if (lam != lambda) free(lam);
    fc_threads_set(threads_before);
    fc_clock_cpu_set(clock_before);
    return e;
}
