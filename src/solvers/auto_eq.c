/* auto for problems with equality constraints (joints).  Local form:
 * ipm-mdp with the equality rows in its Newton matrix first (without its
 * polish: a jam costs little), then NSGS with its exact equality blocks
 * (cheap sweeps, Anderson), then nsn-hybrid (Alart-Curnier Newton on the
 * bordered system) from the best iterate, then NSGS again with what is
 * left.  Global form: ipm-mdp on (M, H, G), then gipm, then the local plan
 * on the reduction from the best iterate (docs/solvers.md, "Equality
 * constraints": chain and rope steps).  Each stage sees the caller's time
 * limit; the best (r, lambda) by the SPEC measure is returned. */
#include "internal.h"
#include "measure/measure.h"
#include "core/stage.h"
#include "problem/reduce.h"

#include <stdio.h>

/* NSGS's first share of sweeps: a chain or a stack converges in a few
 * hundred when it converges at all (test_eq, test_joints); the interior
 * points' share of iterations (ipm-mdp converges in 10-20 on the joint
 * scenes, gipm in 20-100). */
#define AUTO_EQ_NSGS_SWEEPS 200
#define AUTO_EQ_IPM_MDP_ITERATIONS 100
#define AUTO_EQ_GIPM_ITERATIONS 200

typedef struct eq_best {
    double *r, *lambda;
    double err;
} eq_best;

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
    double err = fc_error_local_eq(p, r, lambda, u);
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
    b.err = fc_error_local_eq(p, r, lambda, u);
    if (!isfinite(b.err)) b.err = INFINITY;
    static const struct { eq_fn fn; const char *name; int share; } plan[] = {
        {fc_ipm_mdp_solve_eq, "ipm-mdp", AUTO_EQ_IPM_MDP_ITERATIONS},
        {fc_nsgs_solve_eq, "nsgs", AUTO_EQ_NSGS_SWEEPS},
        {fc_nsn_hybrid_solve_eq, "nsn-hybrid", 0},
        {fc_nsgs_solve_eq, "nsgs", 0}};
    fc_options o = *opt;
    o.ipm.polish = 0;   /* the stages after ipm-mdp are its polish */
    for (int k = 0; k < 4 && b.err > opt->tolerance && !fc_clock_expired(&clk); k++) {
        int left = opt->max_iter - info->iterations;
        if (left <= 0) break;
        int budget = plan[k].share > 0 && left > plan[k].share ? plan[k].share : left;
        stage(p, &o, &clk, plan[k].fn, plan[k].name, budget, r, u, lambda, &b, info);
    }
    memcpy(r, b.r, (size_t)m * sizeof *r);
    memcpy(lambda, b.lambda, (size_t)p->neq * sizeof *lambda);
    double err = fc_error_local_eq(p, r, lambda, u);
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

typedef fc_status (*eq_global_fn)(const fc_problem *p, const fc_options *opt, double *r,
                                  double *u, double *v, double *lambda, fc_info *info);

/* The interior points on (M, H, G), each from the best iterate of the one
 * before; returns the best error (r, v, lambda hold its iterate), or
 * INFINITY when none ended on a finite one. */
static double global_stages(const fc_problem *p, const fc_options *opt, const fc_clock *clk,
                            double *r, double *u, double *v, double *lambda, fc_info *info)
{
    static const struct { eq_global_fn fn; const char *name; int share; } plan[] = {
        {fc_ipm_mdp_solve_global_eq, "ipm-mdp", AUTO_EQ_IPM_MDP_ITERATIONS},
        {fc_gipm_solve_eq, "gipm", AUTO_EQ_GIPM_ITERATIONS}};
    int m = fc_problem_m(p);
    double *keep = malloc(((size_t)m + (size_t)p->n + (size_t)p->neq) * sizeof *keep);
    if (!keep) return INFINITY;
    double best = INFINITY;
    for (int k = 0; k < 2 && best > opt->tolerance && !fc_clock_expired(clk); k++) {
        fc_options o = *opt;
        o.max_iter = opt->max_iter - info->iterations;
        if (o.max_iter <= 0) break;
        if (o.max_iter > plan[k].share) o.max_iter = plan[k].share;
        o.time_limit = fc_time_left(clk);
        o.progress = NULL;
        o.r0 = NULL;
        o.ipm.polish = 0;
        fc_info sub;
        memset(&sub, 0, sizeof sub);
        double t0 = fc_clock_elapsed(clk);
        fc_status st = plan[k].fn(p, &o, r, u, v, lambda, &sub);
        double dyn = 0, eq = 0, err = fc_residual_eq(p, r, v, lambda, &dyn, &eq);
        err = fmax(err, fmax(dyn, eq));
        if (!isfinite(err) || st == FC_DIVERGED) err = INFINITY;
        info->iterations += sub.iterations;
        fc_info_add_stage(info, plan[k].name, st, sub.iterations, err, fc_clock_elapsed(clk) - t0);
        if (err < best) {
            best = err;
            memcpy(keep, r, (size_t)m * sizeof *r);
            memcpy(keep + m, v, (size_t)p->n * sizeof *v);
            memcpy(keep + m + p->n, lambda, (size_t)p->neq * sizeof *lambda);
        } else if (best < INFINITY) {   /* the next stage starts from the best */
            memcpy(r, keep, (size_t)m * sizeof *r);
            memcpy(v, keep + m, (size_t)p->n * sizeof *v);
            memcpy(lambda, keep + m + p->n, (size_t)p->neq * sizeof *lambda);
        } else {   /* nothing finite yet: the next stage from zero */
            memset(r, 0, (size_t)m * sizeof *r);
            memset(lambda, 0, (size_t)p->neq * sizeof *lambda);
        }
    }
    free(keep);
    return best;
}

fc_status fc_auto_solve_global_eq(const fc_problem *p, const fc_options *opt, double *r,
                                  double *u, double *v, double *lambda, fc_info *info)
{
    fc_clock clk;
    fc_clock_start(&clk, opt);
    double err = global_stages(p, opt, &clk, r, u, v, lambda, info);
    if (err <= opt->tolerance) return FC_CONVERGED;
    if (!(err < INFINITY)) {   /* the reduction's plan from zero */
        memset(r, 0, (size_t)fc_problem_m(p) * sizeof *r);
        memset(lambda, 0, (size_t)p->neq * sizeof *lambda);
    }
    fc_options o = *opt;
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
