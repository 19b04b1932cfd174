/* auto for problems with equality constraints (joints), on the local form
 * (a global problem reaches it through its reduction, which keeps V, R,
 * s): NSGS with its exact equality blocks first (cheap sweeps, Anderson),
 * then nsn-hybrid (Alart-Curnier Newton on the bordered system) from the
 * best iterate when NSGS has not converged within its share, then NSGS
 * again with what is left.  Each stage sees the caller's time limit; the
 * best (r, lambda) by the SPEC measure is returned. */
#include "internal.h"
#include "measure/measure.h"
#include "core/stage.h"

#include <stdio.h>

/* NSGS's first share of sweeps: a chain or a stack converges in a few
 * hundred when it converges at all (test_eq, test_joints). */
#define AUTO_EQ_NSGS_SWEEPS 200

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
