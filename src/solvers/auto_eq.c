/* auto for problems with equality constraints (joints).  Local form: NSGS
 * with its exact equality blocks first (cheap sweeps, Anderson), then
 * nsn-hybrid (Alart-Curnier Newton on the bordered system) from the best
 * iterate when NSGS has not converged within its share, then NSGS again
 * with what is left.  Global form: gipm on (M, H, G) first (docs/solvers.md,
 * "Equality constraints": a chain step), then the local plan on the
 * reduction from its iterate.  Each stage sees the caller's time limit; the best (r, lambda)
 * by the SPEC measure is returned. */
#include "internal.h"
#include "measure/measure.h"
#include "core/stage.h"
#include "problem/reduce.h"

#include <stdio.h>

/* NSGS's first share of sweeps: a chain or a stack converges in a few
 * hundred when it converges at all (test_eq, test_joints); gipm's share of
 * interior-point iterations. */
#define AUTO_EQ_NSGS_SWEEPS 200
#define AUTO_EQ_GIPM_ITERATIONS 200

typedef struct eq_best {
    double *r, *lambda;
    double err;
} eq_best;

/* The measure fc_solve judges by: the contact part and the equality rows. */
static double eq_error(const fc_problem *p, const double *r, const double *lambda, double *u)
{
    fc_problem_u_eq(p, r, lambda, u);
    return fmax(fc_error_local(p, r, u), fc_equality_residual(p, r, NULL, lambda));
}

typedef fc_status (*eq_fn)(const fc_problem *p, const fc_options *opt, double *r, double *u,
                           double *lambda, fc_info *info);

/* One stage of at most max_iter iterations from (r, lambda); the best
 * iterate kept in b.  Returns the stage's error. */
static double stage(const fc_problem *p, const fc_options *opt, const fc_clock *clk, eq_fn fn,
                    const char *name, int max_iter, double *r, double *u, double *lambda,
                    eq_best *b, fc_info *info)
{
    fc_options o = *opt;
    o.max_iter = max_iter;
    o.time_limit = fc_time_left(clk);
    o.progress = NULL;
    o.r0 = NULL;
    fc_info sub;
    memset(&sub, 0, sizeof sub);
    double t0 = fc_clock_elapsed(clk);
    fc_status st = fn(p, &o, r, u, lambda, &sub);
    double err = eq_error(p, r, lambda, u);
    if (!isfinite(err)) err = INFINITY;
    info->iterations += sub.iterations;
    fc_info_add_stage(info, name, st, sub.iterations, err, fc_clock_elapsed(clk) - t0);
    if (err < b->err) {
        b->err = err;
        memcpy(b->r, r, (size_t)fc_problem_m(p) * sizeof *r);
        memcpy(b->lambda, lambda, (size_t)p->neq * sizeof *lambda);
    } else {   /* the next stage starts from the best */
        memcpy(r, b->r, (size_t)fc_problem_m(p) * sizeof *r);
        memcpy(lambda, b->lambda, (size_t)p->neq * sizeof *lambda);
    }
    return err;
}

fc_status fc_auto_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                           double *lambda, fc_info *info)
{
    int m = fc_problem_m(p);
    fc_clock clk;
    fc_clock_start(&clk, opt);
    eq_best b = {fc_dup(r, (size_t)m), fc_dup(lambda, (size_t)p->neq), INFINITY};
    if (!b.r || !b.lambda) {
        free(b.r);
        free(b.lambda);
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    b.err = eq_error(p, r, lambda, u);
    if (!isfinite(b.err)) b.err = INFINITY;
    static const struct { eq_fn fn; const char *name; } plan[] = {
        {fc_nsgs_solve_eq, "nsgs"}, {fc_nsn_hybrid_solve_eq, "nsn-hybrid"}, {fc_nsgs_solve_eq, "nsgs"}};
    for (int k = 0; k < 3 && b.err > opt->tolerance && !fc_clock_expired(&clk); k++) {
        int left = opt->max_iter - info->iterations;
        if (left <= 0) break;
        int budget = k == 0 && left > AUTO_EQ_NSGS_SWEEPS ? AUTO_EQ_NSGS_SWEEPS : left;
        stage(p, opt, &clk, plan[k].fn, plan[k].name, budget, r, u, lambda, &b, info);
    }
    memcpy(r, b.r, (size_t)m * sizeof *r);
    memcpy(lambda, b.lambda, (size_t)p->neq * sizeof *lambda);
    double err = eq_error(p, r, lambda, u);
    free(b.r);
    free(b.lambda);
    if (err <= opt->tolerance) return FC_CONVERGED;
    if (!isfinite(err)) return FC_DIVERGED;
    snprintf(info->message, sizeof info->message, "equality plan: best error %.3e after %d iterations",
             err, info->iterations);
    return fc_clock_expired(&clk) ? FC_TIME_LIMIT : FC_MAX_ITER;
}

static fc_status reduced_plan(const fc_problem *loc, const fc_options *opt, double *r, double *u,
                              double *lambda, fc_info *info, void *user)
{
    (void)user;
    return fc_auto_solve_eq(loc, opt, r, u, lambda, info);
}

fc_status fc_auto_solve_global_eq(const fc_problem *p, const fc_options *opt, double *r,
                                  double *u, double *v, double *lambda, fc_info *info)
{
    fc_clock clk;
    fc_clock_start(&clk, opt);
    fc_options o = *opt;
    o.max_iter = opt->max_iter < AUTO_EQ_GIPM_ITERATIONS ? opt->max_iter : AUTO_EQ_GIPM_ITERATIONS;
    o.progress = NULL;
    o.r0 = NULL;
    fc_info sub;
    memset(&sub, 0, sizeof sub);
    fc_status st = fc_gipm_solve_eq(p, &o, r, u, v, lambda, &sub);
    double dyn = 0, eq = 0, err = fc_residual_eq(p, r, v, lambda, &dyn, &eq);
    err = fmax(err, fmax(dyn, eq));
    info->iterations = sub.iterations;
    fc_info_add_stage(info, "gipm", st, sub.iterations, err, fc_clock_elapsed(&clk));
    if (err <= opt->tolerance) return FC_CONVERGED;
    if (!isfinite(err) || st == FC_DIVERGED) {   /* the reduction's plan from zero */
        memset(r, 0, (size_t)fc_problem_m(p) * sizeof *r);
        memset(lambda, 0, (size_t)p->neq * sizeof *lambda);
    }
    o = *opt;
    o.max_iter = opt->max_iter - info->iterations;
    if (o.max_iter <= 0 || fc_clock_expired(&clk)) return FC_MAX_ITER;
    o.progress = NULL;
    fc_status status;
    fc_error e;
    if (fc_solve_reduced_eq(p, &o, &clk, FC_V_REDUCED_FACTOR, reduced_plan, NULL, r, u, v, lambda,
                            info, &status, &e) != FC_OK) {
        snprintf(info->message, sizeof info->message, "%.200s", e.msg);
        return FC_STATUS_ERROR;
    }
    return status;
}
