/* auto: the default solver, a strategy over the others.
 *
 *  1. A cheap analysis of the problem (logged at verbose >= 1): size,
 *     coupling (blocks per block row of W), mu range.
 *  2. Accelerated NSGS for 50 sweeps: it alone solves the easy problems
 *     at once (measured on shared/data: every fc2d problem, Box_Stacks,
 *     PerioBox, Spheres in 15-40 sweeps); beyond, it goes on only while its
 *     measured rate promises the tolerance within 3 times the sweeps done.
 *  3. Then, from the best iterate, the method the bench shows fastest and
 *     most reliable for the dimension: the interior point method (ipm) for
 *     d = 3 (1e-8 on every shared fc3d and global problem, 0.5 s at most),
 *     Lemke's exact pivoting for d = 2, ADMM for rolling friction (d = 5).
 *  4. If that fails: nonsmooth Newton (nsn-hybrid) warm-started for d <= 3.
 *  5. Whatever is left of the time and iteration budget goes to NSGS
 *     again from the best iterate so far (robust where the others stall).
 * The time limit is shared among the stages, every stage starts from the
 * best iterate so far, and each is recorded in info->stages (shown by
 * fricon solve --verbose). */
#include "internal.h"
#include "measure/measure.h"

#include <stdio.h>

/* Sweeps of the first NSGS stage before its rate is judged, and at most. */
#define FC_AUTO_NSGS_SWEEPS 50
#define FC_AUTO_NSGS_MAX_SWEEPS 5000
/* NSGS goes on while the tolerance is predicted within this many times
 * the sweeps done so far. */
#define FC_AUTO_NSGS_PATIENCE 3

typedef struct auto_run {
    const fc_problem *p;
    const fc_options *opt;
    fc_clock clk;
    double *best, best_err;
    int iterations;
    int stopped;            /* the caller's progress callback said stop */
    int watch;              /* watching NSGS's rate (the first stage)     */
    int it_ref;             /* the sweep and error the rate is taken from */
    double err_ref;
} auto_run;

/* Should the first NSGS stage go on?  From FC_AUTO_NSGS_SWEEPS sweeps on,
 * its error's log-linear rate since half-way is extrapolated to the
 * tolerance: NSGS goes on while that takes fewer than 3 times the sweeps
 * done so far (measured: KaplasTower, 154 sweeps, keeps NSGS; Capsules-i122,
 * 952 sweeps, switches to ipm at 50). */
static int nsgs_worth_going_on(auto_run *a, int it, double err)
{
    if (a->it_ref == 0 && it >= FC_AUTO_NSGS_SWEEPS / 2) { a->it_ref = it; a->err_ref = err; }
    if (it < FC_AUTO_NSGS_SWEEPS || a->it_ref == 0) return 1;
    if (!(err > 0) || !(a->err_ref > 0)) return 0;
    double rate = log(err / a->err_ref) / (it - a->it_ref);   /* < 0 when decreasing */
    if (!(rate < 0)) return 0;
    double needed = log(a->opt->tolerance / err) / rate;
    return needed < FC_AUTO_NSGS_PATIENCE * it;
}

/* The caller's progress callback, seen through the stages. */
static int progress(void *user, int iteration, double error)
{
    auto_run *a = user;
    if (a->opt->progress &&
        a->opt->progress(a->opt->progress_user, a->iterations + iteration, error))
        a->stopped = 1;
    if (a->stopped) return 1;
    return a->watch && !nsgs_worth_going_on(a, iteration, error);
}

/* The SPEC measure of r (u recomputed into u). */
static double measure(const fc_problem *p, const double *r, double *u)
{
    int m = fc_problem_m(p);
    memcpy(u, p->q, (size_t)m * sizeof *u);
    fc_matrix_gemv(p->W, 1.0, r, 1.0, u);
    return fc_error_measure(p->d, p->nc, p->mu, p->mu_r, p->w ? p->w : p->q, r, u, NULL);
}

/* One stage: solver name from the best iterate (from r = 0 when cold:
 * interior point methods lose to a warm start, measured: ipm needs 37
 * iterations on KaplasTower from 0 and over 1700 from an NSGS iterate),
 * at most max_iter iterations and what is left of the time; keeps the
 * better iterate.  Returns 1 when converged. */
static int stage(auto_run *a, const char *name, int cold, int max_iter, double *r, double *u,
                 fc_info *info)
{
    const fc_problem *p = a->p;
    const fc_solver *s = fc_solver_find(name);
    int m = fc_problem_m(p);
    if (!s || !(s->dims & FC_DIM(p->d)) || max_iter <= 0 || a->stopped) return 0;
    fc_options o = *a->opt;
    o.r0 = NULL;
    if (o.progress || a->watch) {
        o.progress = progress;
        o.progress_user = a;
    }
    o.max_iter = max_iter;
    if (a->opt->time_limit > 0) {
        double left = a->opt->time_limit - fc_clock_elapsed(&a->clk);
        if (left <= 0) return 0;
        o.time_limit = left;
    }
    fc_info sub;
    memset(&sub, 0, sizeof sub);
    if (cold) memset(r, 0, (size_t)m * sizeof *r);
    else memcpy(r, a->best, (size_t)m * sizeof *r);
    double t0 = fc_now();
    fc_status st = s->solve_local(p, &o, r, u, &sub);
    double err = fc_all_finite((size_t)m, r) ? measure(p, r, u) : INFINITY;
    a->iterations += sub.iterations;
    fc_info_add_stage(info, name, st, sub.iterations, err, fc_now() - t0);
    fc_log(a->opt, 1, "auto: %s %s after %d iterations, error %.3e, %.3f s", name,
           fc_status_name(st), sub.iterations, err, fc_now() - t0);
    if (err < a->best_err) {
        a->best_err = err;
        memcpy(a->best, r, (size_t)m * sizeof *r);
    }
    return a->best_err <= a->opt->tolerance;
}

/* Blocks per block row of W, averaged (1: decoupled contacts). */
static double coupling(const fc_problem *p)
{
    const fc_matrix *W = p->W;
    if (W->kind == FC_MAT_BSR) return (double)W->p[W->rows / W->bs] / (W->rows / W->bs);
    if (W->kind == FC_MAT_CSR) return (double)W->nnz / W->rows / p->d;
    return (double)p->nc;
}

fc_status fc_auto_solve(const fc_problem *p, const fc_options *opt, double *r,
                        double *u, fc_info *info)
{
    int m = fc_problem_m(p);
    auto_run a;
    memset(&a, 0, sizeof a);
    a.p = p;
    a.opt = opt;
    a.best_err = INFINITY;
    fc_clock_start(&a.clk, opt);
    a.best = fc_dup(r, (size_t)m);
    if (!a.best) {
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    if (!fc_all_finite((size_t)m, a.best)) memset(a.best, 0, (size_t)m * sizeof *a.best);
    if (opt->verbose >= 1) {
        double mulo = INFINITY, muhi = 0;
        for (int c = 0; c < p->nc; c++) mulo = fmin(mulo, p->mu[c]), muhi = fmax(muhi, p->mu[c]);
        fc_log(opt, 1, "auto: d = %d, nc = %d, %.1f blocks per block row, mu in [%g, %g]",
               p->d, p->nc, coupling(p), mulo, muhi);
    }
    const char *main_solver = p->d == 3 ? "ipm" : p->d == 2 ? "lemke" : "admm";
    int left = opt->max_iter;
    a.watch = 1;
    int done = stage(&a, "nsgs", 0, left < FC_AUTO_NSGS_MAX_SWEEPS ? left : FC_AUTO_NSGS_MAX_SWEEPS,
                     r, u, info);
    a.watch = 0;
    if (!done)
        done = stage(&a, main_solver, p->d == 3, opt->max_iter - a.iterations, r, u, info);
    if (!done && p->d <= 3)
        done = stage(&a, "nsn-hybrid", 0, opt->max_iter - a.iterations, r, u, info);
    if (!done) done = stage(&a, "nsgs", 0, opt->max_iter - a.iterations, r, u, info);
    (void)left;
    memcpy(r, a.best, (size_t)m * sizeof *r);
    a.best_err = measure(p, r, u);
    free(a.best);
    info->iterations = a.iterations;
    info->residual = a.best_err;
    fc_status st = done ? FC_CONVERGED
                 : (opt->time_limit > 0 && fc_clock_expired(&a.clk)) ? FC_TIME_LIMIT : FC_MAX_ITER;
    if (!fc_all_finite((size_t)m, r)) st = FC_DIVERGED;
    if (!done)
        snprintf(info->message, sizeof info->message, "%s%d stages, best error %.3e",
                 a.stopped ? "stopped by the progress callback; " : "", info->nstages, a.best_err);
    info->status = st;
    return st;
}
