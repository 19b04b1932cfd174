/* The stage runner (stage.h): one registered solver run as a stage of a
 * composite solver, under the caller's shared limits. */
#include "core/stage.h"
#include "measure/measure.h"

#include <stdio.h>

double fc_time_left(const fc_clock *clk)
{
    if (clk->limit <= 0) return 0.0;
    return fmax(FC_TIME_LEFT_FLOOR, clk->limit - fc_clock_elapsed(clk));
}

void fc_stages_init(fc_stages *s, const fc_problem *p, const fc_options *opt,
                    const fc_clock *clock, fc_info *info, double *best)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    s->opt = opt;
    s->clock = clock;
    s->info = info;
    s->best = best;
    s->best_err = INFINITY;
}

fc_options fc_stage_options(const fc_stages *s, int max_iter)
{
    fc_options o = *s->opt;
    o.r0 = NULL;
    o.progress = NULL;
    o.progress_user = NULL;
    o.max_iter = max_iter;
    o.time_limit = fc_time_left(s->clock);
    return o;
}

/* The solver's own entry, or its direct one on the global problem. */
static fc_status run(const fc_stages *s, const fc_solver *solver, const fc_options *o, double *r,
                     double *u, fc_info *sub)
{
    const fc_problem *g = s->global;
    if (s->lambda) return solver->solve_local_eq(s->p, o, r, u, s->lambda, sub);
    if (!g || !solver->solve_direct || solver->direct_contacts <= 0 || g->nc < solver->direct_contacts)
        return solver->solve_local(s->p, o, r, u, sub);
    double *v = fc_calloc((size_t)g->n, sizeof *v);
    fc_status st = v ? solver->solve_direct(g, o, r, u, v, sub) : FC_STATUS_ERROR;
    free(v);
    return st;
}

int fc_stage_run(fc_stages *s, const fc_solver *solver, const char *label, fc_start start,
                 const fc_options *o, double *r, double *u)
{
    const fc_problem *p = s->p;
    int m = fc_problem_m(p);
    memset(&s->sub, 0, sizeof s->sub);
    s->stage_iterations = 0;
    s->err = INFINITY;
    if (!solver || !(solver->dims & FC_DIM(p->d)) || o->max_iter <= 0 || fc_clock_expired(s->clock) ||
        (s->lambda && !solver->solve_local_eq))
        return 0;
    if (!label) label = solver->name;
    if (start == FC_START_COLD) memset(r, 0, (size_t)m * sizeof *r);
    else if (start == FC_START_BEST) memcpy(r, s->best, (size_t)m * sizeof *r);
    double t0 = fc_now();
    s->status = run(s, solver, o, r, u, &s->sub);
    s->stage_iterations = s->sub.iterations;
    s->iterations += s->sub.iterations;
    if (s->no_measure) return 1;
    if (!fc_all_finite((size_t)m, r)) s->err = INFINITY;
    else if (s->measure) s->err = s->measure(s->measure_user, r, u);
    else if (s->lambda) s->err = fc_error_local_eq(p, r, s->lambda, u);
    else s->err = fc_problem_error(p, r, u);
    double seconds = fc_now() - t0;
    if (s->info) fc_info_add_stage(s->info, label, s->status, s->stage_iterations, s->err, seconds);
    fc_log(s->opt, 1, "stage %s: %s after %d iterations, error %.3e, %.3f s", label,
           fc_status_name(s->status), s->stage_iterations, s->err, seconds);
    if (s->best && s->err < s->best_err) {
        s->best_err = s->err;
        memcpy(s->best, r, (size_t)m * sizeof *r);
    }
    return 1;
}
