/* The stage runner: how a composite solver runs a registered solver as a
 * stage, and the one time-left rule (docs/DEVELOPING.md, "Composing"). */
#ifndef FRICON_STAGE_H
#define FRICON_STAGE_H

#include "internal.h"

/* A sub-solve's time limit: 0 (none) without one, else the time left, at
 * least FC_TIME_LEFT_FLOOR (a passed limit stays a tiny one). */
#define FC_TIME_LEFT_FLOOR 1e-9
double fc_time_left(const fc_clock *clk);

/* Where a stage starts from. */
typedef enum fc_start {
    FC_START_COLD,   /* r = 0                                  */
    FC_START_BEST,   /* the best iterate so far (fc_stages.best) */
    FC_START_GIVEN   /* r as the caller passes it              */
} fc_start;

/* A composite solver's stages: shared limits, the best iterate. */
typedef struct fc_stages {
    const fc_problem *p;
    const fc_options *opt;   /* the caller's options, each stage's base   */
    const fc_clock *clock;   /* the caller's clock: one time limit for all */
    fc_info *info;           /* stages recorded here (NULL: not recorded)  */
    /* The stage's error (u holds the solver's u); NULL: the SPEC measure
     * with u recomputed as W r + q. */
    double (*measure)(void *user, const double *r, double *u);
    void *measure_user;
    int no_measure;          /* 1: no error computed, no best (prox's inner solves) */
    const fc_problem *global;   /* the global problem p was reduced from, if any */
    double *lambda;          /* p->neq multipliers (in, out): _eq entries, eq residual */
    double *best;            /* best iterate so far (NULL: not kept)       */
    double best_err;
    int iterations;          /* all stages' iterations                     */
    /* the last stage's outcome */
    fc_status status;
    int stage_iterations;
    double err;
    fc_info sub;             /* its own info (message, its inner stages)   */
} fc_stages;

/* Set up s: no stages yet, best error infinite. */
void fc_stages_init(fc_stages *s, const fc_problem *p, const fc_options *opt,
                    const fc_clock *clock, fc_info *info, double *best);

/* The base options of a stage of at most max_iter iterations: the
 * caller's, with no r0 and no progress callback, the time left. */
fc_options fc_stage_options(const fc_stages *s, int max_iter);

/* Run solver on s->p (or, when s->global has at least the solver's
 * direct_contacts contacts, its solve_direct on the global problem) with
 * options o from start, into r and u; record the stage as label (NULL:
 * the solver's name), measure it, keep the best iterate.  Returns 0,
 * running nothing, when the solver does not handle d (or, with
 * s->lambda, equalities), o->max_iter <= 0 or the time is up; else 1, the
 * outcome in s->status, s->err, s->stage_iterations. */
int fc_stage_run(fc_stages *s, const fc_solver *solver, const char *label, fc_start start,
                 const fc_options *o, double *r, double *u);

#endif
