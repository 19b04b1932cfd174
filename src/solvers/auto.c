/* auto: the default solver, a strategy over the others (docs/solvers.md).
 *
 *  1. A cheap analysis of the problem: the coupling b (blocks per block
 *     row of W) for the costs below; logged with --verbose: size, mu
 *     range, asymmetry, conditioning of the diagonal blocks.
 *  2. Accelerated NSGS: it alone solves the easy problems at once
 *     (measured on shared/data: every fc2d problem, PerioBox, Box_Stacks,
 *     the small ones, in 1-20 sweeps).  From FC_AUTO_NSGS_SWEEPS sweeps on, its
 *     recent rate is extrapolated to the tolerance, and NSGS goes on while
 *     that is cheaper than the next stages (nsgs_worth_going_on): d = 3,
 *     costed in sweeps from b (one sparse factorisation ~ FC_AUTO_LU_COST
 *     b^2 sweeps; measured, one Newton iteration with KLU costs 2.7 sweeps
 *     on the Capsules, b = 4.6, and 75 on KaplasTower, b = 22.8); d = 2, 5,
 *     while within 3 times the sweeps done.
 *  3. d = 3: stick, the all-sticking solution (one factorisation: a
 *     structure at rest is solved at once), then NSGS again, judged only
 *     after a quarter of Newton's predicted cost; then the interior point on the
 *     maximum-dissipation form (ipm-mdp, sparse LU, polished by NSGS and
 *     Newton) from r = 0: it replaced Alart-Curnier Newton here (measured:
 *     BoxesStack1 4.3 -> 1.9 ms, Capsules-i122 11 -> 7 ms, spheres-in-a-box
 *     86 -> 14 ms; Spheres-i099 3.4 -> 6.7 ms), until it stalls; then
 *     NSGS from its iterate until a plateau; then the proximal point
 *     (prox) from r = 0 for at most FC_AUTO_PROX_SWEEPS sweeps; then
 *     ipm-mdp again from other start margins (auto_mdp_margins); then
 *     the interior point method (ipm) from r = 0, unless the best error
 *     is already below sqrt(tolerance).  d = 2: Lemke's exact pivoting;
 *     d = 5: ADMM.  Without friction (every mu = 0: a convex problem)
 *     the second NSGS stage is judged from its start, and the interior
 *     point is gipm on (M, H) for a global problem from 500 contacts on,
 *     ipm where ipm-mdp's LU is refused.
 *  4. If that fails: nonsmooth Newton with NSGS fallback (nsn-hybrid).
 *  5. Whatever is left of the time and iteration budget goes to NSGS
 *     again from the best iterate so far (robust where the others stall),
 *     until it reaches a plateau.
 * The time limit is shared among the stages, every stage starts from the
 * best iterate so far, and each is recorded in info->stages (shown by
 * fricon solve --verbose). */
#include "internal.h"
#include "linsys/linsys.h"
#include "measure/measure.h"

#include <lapacke.h>
#include <stdio.h>

/* Sweeps of the first NSGS stage before its rate is judged (d = 3: the
 * second measurement, at sweep 9), and at most. */
#define FC_AUTO_NSGS_SWEEPS 8
#define FC_AUTO_NSGS_MAX_SWEEPS 10000
/* d = 2, 5: NSGS goes on while the tolerance is predicted within this
 * many times the sweeps done so far (judged from 50 sweeps on). */
#define FC_AUTO_NSGS_PATIENCE 3
#define FC_AUTO_NSGS_SWEEPS_LOW_D 50
/* d = 3: Newton's expected cost in sweeps, FC_AUTO_NEWTON_ITERS
 * iterations of max(1, FC_AUTO_LU_COST b^2) sweeps (see above; 30 is the
 * Newton iterations on the Capsules, the slowest shared problems that
 * Newton solves). */
#define FC_AUTO_NEWTON_ITERS 30
#define FC_AUTO_LU_COST 0.13
/* d = 3, after a failed stick (newton_cost_from_analysis): a Newton
 * iteration's sweeps besides its factorisation, and the factorisation's
 * sweeps per predicted flop over 2 nnz(W). */
#define FC_AUTO_SOLVE_SWEEPS 3.0
#define FC_AUTO_FLOP_SWEEPS 0.2
/* d = 3, after a failed stick: Newton's iterations grow like sqrt(nc)
 * above this many contacts (newton_cost_from_analysis). */
#define FC_AUTO_ITERS_CONTACTS 1000.0
/* d = 3: NSGS must be predicted this many times cheaper than Newton. */
#define FC_AUTO_NEWTON_MARGIN 4.0
/* The fixed cost of a factorisation, in block products (a sweep makes
 * nc b of them): measured, a failed stick stage on NESpheres (9 contacts)
 * cost 14 sweeps. */
#define FC_AUTO_FACTOR_FIXED 400.0
/* d = 3: the stick stage is tried when NSGS is predicted to need more
 * sweeps than a factorisation's work (FC_AUTO_LU_COST b^2) over this
 * margin, plus its fixed cost: the extrapolation is hopeful on large
 * coupled problems (KaplasTower: 43 sweeps to go predicted at sweep 17,
 * 136 needed); the fixed cost is certain. */
#define FC_AUTO_STICK_MARGIN 2.0
/* Measurements of a watched NSGS stage kept for its rate: when full,
 * every other one is dropped and from then on every other sweep is
 * recorded, so that they span the whole stage (one near half-way).
 * Before, recording stopped when full, and a stage judged after its
 * grace (thousands of sweeps) took its rate from sweep 265 on instead of
 * the last half; measured, the same stages and iterations on every
 * shared problem and on the 35 hard pile steps of
 * bench/results/2026-11-24-size-aware-cost/: the rule as documented,
 * not a gain. */
#define FC_AUTO_HISTORY 256
/* At most this many iterations of the interior-point stage (ipm-mdp:
 * steps, jam breaks and polish). */
#define FC_AUTO_MDP_MAX_ITER 2000
/* The last NSGS stage stops on a plateau: no 10% better error in as many
 * sweeps as its last gain took, and at least this many (measured on a
 * step of fricon simulate column --count 300: NSGS hovering at 3e-8 for
 * the 80000 sweeps left of the iteration limit, 13 s). */
#define FC_AUTO_PLATEAU_SWEEPS 2000
/* d = 3: the prox stage after a failed ipm-mdp, in inner sweeps (the
 * cost of 1000 NSGS sweeps: 6 s at 10397 contacts, measured). */
#define FC_AUTO_PROX_SWEEPS 1000
/* d = 3: the ipm stage after ipm-mdp runs at most twice ipm-mdp's
 * iterations, and at least this many. */
#define FC_AUTO_IPM_MIN_ITER 200
/* d = 3: after ipm-mdp and prox fail, ipm-mdp again from r = 0 with these
 * start margins (ipm.margin; the first run's is the caller's, default 1):
 * on this non-monotone problem the path, and whether it jams, depends on
 * where it starts.  Measured on generated columns where the default
 * stalled: 1515 contacts (2.4e-6) solved with 0.3 (1.6 s) and with 3
 * (2.5 s); 3206 contacts through W (1.5e-4) solved with 0.3 (28 s), not
 * with 3 (2.3e-4). */
static const double auto_mdp_margins[] = {0.3, 3.0};

typedef struct auto_run {
    const fc_problem *p;
    const fc_problem *global;   /* the global problem p was reduced from, if any */
    const fc_options *opt;
    fc_clock clk;
    double *best, best_err;
    int iterations;
    int stopped;            /* the caller's progress callback said stop */
    int watch;              /* watching NSGS's rate (the first stage)     */
    double newton_sweeps;   /* d = 3: Newton's cost in sweeps; 0: d != 3  */
    double stick_sweeps;    /* d = 3: the stick stage's threshold in sweeps
                               while it is on offer, else 0              */
    double needed;          /* NSGS's last extrapolated sweeps to go      */
    int plateau;            /* watching the last NSGS stage for a plateau  */
    int plat_it;            /* its sweep of the last 10% gain, and the best */
    double plat_best;
    double mdp_margin;      /* > 0: the ipm-mdp stage's start margin       */
    int grace;              /* sweeps before NSGS's rate is judged, if more
                               than FC_AUTO_NSGS_SWEEPS                   */
    int nhist, stride;      /* a watched NSGS stage's measurements, one
                               every stride calls                         */
    int calls;
    int hist_it[FC_AUTO_HISTORY];
    double hist_err[FC_AUTO_HISTORY];
} auto_run;

/* Should the first NSGS stage go on?  Its error's log-linear rate over
 * the last half of the sweeps (a recent rate: NSGS slows down, and a rate
 * taken from the start is too hopeful) is extrapolated to the tolerance:
 * d = 2, 5: NSGS goes on while that takes fewer than 3 times the sweeps
 * done; d = 3, fewer than the stick stage's threshold (while it is on
 * offer) and Newton's cost over FC_AUTO_NEWTON_MARGIN (measured: PerioBox
 * and Box_Stacks finish on NSGS; KaplasTower, the Capsules, BoxesStack1,
 * OneObject and Spheres leave it after 9 sweeps). */
static int nsgs_worth_going_on(auto_run *a, int it, double err)
{
    if (a->nhist == FC_AUTO_HISTORY) {
        for (int k = 0; k < FC_AUTO_HISTORY / 2; k++) {
            a->hist_it[k] = a->hist_it[2 * k + 1];
            a->hist_err[k] = a->hist_err[2 * k + 1];
        }
        a->nhist = FC_AUTO_HISTORY / 2;
        a->stride *= 2;
    }
    if (a->stride < 1) a->stride = 1;
    if (++a->calls % a->stride == 0) {
        a->hist_it[a->nhist] = it;
        a->hist_err[a->nhist++] = err;
    }
    int judge = a->p->d == 3 ? FC_AUTO_NSGS_SWEEPS : FC_AUTO_NSGS_SWEEPS_LOW_D;
    if (judge < a->grace) judge = a->grace;
    if (it < judge) return 1;
    int ref = 0;   /* the measurement nearest to half-way */
    for (int k = 1; k < a->nhist; k++)
        if (abs(2 * a->hist_it[k] - it) < abs(2 * a->hist_it[ref] - it)) ref = k;
    if (a->hist_it[ref] >= it) return 1;
    a->needed = INFINITY;   /* unless a decreasing error says otherwise */
    if (!(err > 0) || !(a->hist_err[ref] > 0)) return 0;
    double rate = log(err / a->hist_err[ref]) / (it - a->hist_it[ref]);   /* < 0: decreasing */
    if (!(rate < 0)) return 0;
    double needed = log(a->opt->tolerance / err) / rate;
    a->needed = needed;
    fc_log(a->opt, 1, "auto: nsgs sweep %d, error %.3e, %.0f sweeps to go", it, err, needed);
    if (a->newton_sweeps > 0) {
        double next = a->newton_sweeps / FC_AUTO_NEWTON_MARGIN;
        if (a->stick_sweeps > 0) next = fmin(next, a->stick_sweeps);
        return needed < next;
    }
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
    if (a->plateau) {
        if (error < 0.9 * a->plat_best) { a->plat_best = error; a->plat_it = iteration; }
        return iteration - a->plat_it >= (a->plat_it > FC_AUTO_PLATEAU_SWEEPS ? a->plat_it
                                                                              : FC_AUTO_PLATEAU_SWEEPS);
    }
    return a->watch && !nsgs_worth_going_on(a, iteration, error);
}

/* The SPEC measure of r (u recomputed into u). */
static double measure(const fc_problem *p, const double *r, double *u)
{
    fc_problem_u(p, r, u);
    return fc_error_local(p, r, u);
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
    if (o.progress || a->watch || a->plateau) {
        o.progress = progress;
        o.progress_user = a;
    }
    o.max_iter = max_iter;
    if (!strcmp(name, "prox")) {
        /* the stage's budget, with NSGS inside whatever the caller's
         * prox.inner_solver (auto inside would recurse) */
        o.prox.max_sweeps = FC_AUTO_PROX_SWEEPS;
        o.prox.inner_solver = NULL;
    }
    char label[sizeof info->stages[0].solver];
    snprintf(label, sizeof label, "%s", name);
    if (a->mdp_margin > 0 && !strcmp(name, "ipm-mdp")) {
        o.ipm.margin = a->mdp_margin;
        snprintf(label, sizeof label, "ipm-mdp margin %g", a->mdp_margin);
    }
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
    fc_status st;
    if (a->global && !strcmp(name, "ipm-mdp") && a->global->nc >= FC_IPM_MDP_DIRECT_CONTACTS) {
        /* on (M, H) directly: its Newton matrix at the bodies' level
         * instead of W + D (measured on the generated columns: 3206
         * contacts in 7 s against 77 s); without friction, the first run
         * is gipm's (the convex problem, M + H D H' symmetric positive
         * definite, CHOLMOD's LL' instead of a general LU; measured on
         * the columns made frictionless, 1515 to 36536 contacts: 0.33 s
         * against 0.52, 3.9 s against 11, 34 s against 100), unless M is
         * not symmetric (gipm's quasi-definite matrix takes M as
         * symmetric) */
        double *v = fc_calloc((size_t)a->global->n, sizeof *v);
        o.ipm.formulation = FC_IPM_PRIMAL;
        if (v && a->mdp_margin == 0 && !fc_problem_has_friction(p) &&
            fc_matrix_asymmetry(a->global->M) <= FC_IPM_M_SYMMETRIC) {
            snprintf(label, sizeof label, "gipm");
            st = fc_gipm_solve(a->global, &o, r, u, v, &sub);
        } else {
            st = v ? fc_ipm_mdp_solve_global(a->global, &o, r, u, v, &sub) : FC_STATUS_ERROR;
        }
        free(v);
    } else {
        st = s->solve_local(p, &o, r, u, &sub);
    }
    double err = fc_all_finite((size_t)m, r) ? measure(p, r, u) : INFINITY;
    a->iterations += sub.iterations;
    double seconds = fc_now() - t0;
    fc_info_add_stage(info, label, st, sub.iterations, err, seconds);
    fc_log(a->opt, 1, "auto: %s %s after %d iterations, error %.3e, %.3f s", label,
           fc_status_name(st), sub.iterations, err, seconds);
    if (err < a->best_err) {
        a->best_err = err;
        memcpy(a->best, r, (size_t)m * sizeof *r);
    }
    return a->best_err <= a->opt->tolerance;
}

/* An NSGS stage whose rate is watched (nsgs_worth_going_on), from a fresh
 * history, at most FC_AUTO_NSGS_MAX_SWEEPS sweeps. */
static int watched_nsgs(auto_run *a, double *r, double *u, fc_info *info)
{
    int left = a->opt->max_iter - a->iterations;
    a->watch = 1;
    a->nhist = 0;
    a->stride = 1;
    a->calls = 0;
    int done = stage(a, "nsgs", 0, left < FC_AUTO_NSGS_MAX_SWEEPS ? left : FC_AUTO_NSGS_MAX_SWEEPS,
                     r, u, info);
    a->watch = 0;
    return done;
}

/* An NSGS stage from the best iterate, stopped on a plateau: no 10% gain
 * in as many sweeps as the last gain took, and at least
 * FC_AUTO_PLATEAU_SWEEPS. */
static int plateau_nsgs(auto_run *a, double *r, double *u, fc_info *info)
{
    a->plateau = 1;
    a->plat_it = 0;
    a->plat_best = a->best_err;
    int done = stage(a, "nsgs", 0, a->opt->max_iter - a->iterations, r, u, info);
    a->plateau = 0;
    return done;
}

/* d = 3, after a failed stick: Newton's cost in sweeps from the Cholesky
 * analysis of W's pattern (the b^2 model underestimates heavy fill: on
 * fricon simulate stack, 800 contacts, b = 9, it predicts 10 sweeps a
 * factorisation where stick takes 44, and warm-started steps whose NSGS
 * was at 2e-8 went to ipm-mdp for 0.3-2.5 s).  A Newton iteration costs
 * FC_AUTO_SOLVE_SWEEPS plus FC_AUTO_FLOP_SWEEPS times the factor's
 * predicted flops over a sweep's 2 nnz(W) (fitted on stick's own time
 * over a sweep's: 0.11-0.29 on KaplasTower, the stack and the column's
 * steps, within 2x of the measured times but on BoxesStack1, 52
 * contacts).  FC_AUTO_NEWTON_ITERS iterations up to FC_AUTO_ITERS_CONTACTS
 * contacts, and that times sqrt(nc / FC_AUTO_ITERS_CONTACTS) above: the
 * interior-point stage takes 13-23 iterations on the shared problems (up
 * to 570 contacts) and 55-208 on the generated piles it solves (3500 to
 * 6500 contacts); sqrt(nc) is the path-following methods' bound, a
 * cautious growth.  Measured on 35 pile steps of 3400-6500 contacts that
 * go to ipm-mdp (30 s limit, both versions run in turn): 18 converged
 * either way, in 0.58 of the time (geometric mean; 238 -> 165 s in all):
 * where NSGS converges given more sweeps 3-7 times faster (the default
 * pile's step 24: 18.4 -> 2.9 s), where it does not 1.05-1.2 times
 * slower.  Deterministic, unlike a measured time: the same problem
 * takes the same stages on a loaded machine (tests/test_threads.c).
 * Without friction, FC_AUTO_NEWTON_ITERS at any size (see the second
 * NSGS stage in auto_solve). */
static double newton_cost_from_analysis(const fc_problem *p)
{
    const fc_matrix *W = p->W;
    double entries, flops;
    fc_error e;
    if (W->kind != FC_MAT_BSR || W->bs != p->d || fc_chol_predict_bsr(W, &entries, &flops, &e) != FC_OK)
        return 0;
    double iters = FC_AUTO_NEWTON_ITERS;
    if (fc_problem_has_friction(p)) iters *= fmax(1.0, sqrt(p->nc / FC_AUTO_ITERS_CONTACTS));
    return iters * (FC_AUTO_SOLVE_SWEEPS + FC_AUTO_FLOP_SWEEPS * flops / (2.0 * W->nnz));
}

/* Blocks per block row of W, averaged (1: decoupled contacts). */
static double coupling(const fc_problem *p)
{
    const fc_matrix *W = p->W;
    if (W->kind == FC_MAT_BSR) return (double)W->p[W->rows / W->bs] / (W->rows / W->bs);
    if (W->kind == FC_MAT_CSR) return (double)W->nnz / W->rows / p->d;
    return (double)p->nc;
}

/* The analysis, logged with --verbose (computed only then): size,
 * coupling, mu range, the asymmetry of W and the conditioning of its
 * diagonal blocks (each contact's own stiffness: a singular block is a
 * contact whose local problem NSGS cannot solve well). */
static void log_analysis(const fc_problem *p, const fc_options *opt, double b)
{
    int d = p->d, bad = 0;
    double mulo = INFINITY, muhi = 0.0, worst = 1.0;
    for (int c = 0; c < p->nc; c++) {
        mulo = fmin(mulo, p->mu[c]);
        muhi = fmax(muhi, p->mu[c]);
        double blk[25], ev[5], work[64];
        fc_matrix_diag_block(p->W, c, d, blk);
        for (int i = 0; i < d; i++)      /* symmetrised */
            for (int j = 0; j < i; j++)
                blk[j * d + i] = blk[i * d + j] = 0.5 * (blk[j * d + i] + blk[i * d + j]);
        double cond = INFINITY;
        if (LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'N', 'U', d, blk, d, ev, work, 64) == 0 &&
            ev[0] > 0.0)
            cond = ev[d - 1] / ev[0];
        worst = fmax(worst, cond);
        bad += !(cond <= 1e8);
    }
    fc_log(opt, 0, "auto: d = %d, nc = %d, %.1f blocks per block row, mu in [%g, %g], "
           "asymmetry of W %.1e, diagonal blocks: worst condition %.1e (%d above 1e8)",
           d, p->nc, b, mulo, muhi, fc_matrix_asymmetry(p->W), worst, bad);
}

static fc_status auto_solve(const fc_problem *p, const fc_problem *global, const fc_options *opt,
                            double *r, double *u, fc_info *info);

fc_status fc_auto_solve(const fc_problem *p, const fc_options *opt, double *r,
                        double *u, fc_info *info)
{
    return auto_solve(p, NULL, opt, r, u, info);
}

static fc_status auto_solve(const fc_problem *p, const fc_problem *global, const fc_options *opt,
                            double *r, double *u, fc_info *info)
{
    int m = fc_problem_m(p);
    auto_run a;
    memset(&a, 0, sizeof a);
    a.p = p;
    a.global = global;
    a.opt = opt;
    fc_clock_start(&a.clk, opt);
    a.best = fc_dup(r, (size_t)m);
    if (!a.best) {
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    if (!fc_all_finite((size_t)m, a.best)) memset(a.best, 0, (size_t)m * sizeof *a.best);
    /* the initial guess counts as an iterate: auto returns nothing worse
     * than what it was given (measured: warm-started from gadmm's 1.0e-3
     * on the 10397-contact column, it returned its stages' best, 1.7e-3),
     * and a guess that already solves the problem is returned at once */
    a.best_err = measure(p, a.best, u);
    if (!(a.best_err < INFINITY)) a.best_err = INFINITY;
    double b = coupling(p);
    if (opt->verbose >= 1 && opt->log) log_analysis(p, opt, b);
    if (p->d == 3) {
        /* one factorisation, and its fixed cost on small problems */
        double factor = fmax(1.0, FC_AUTO_LU_COST * b * b), fixed = FC_AUTO_FACTOR_FIXED / (p->nc * b);
        /* the margin corrects NSGS's hopeful extrapolation against the
         * work of a factorisation; its fixed cost is certain */
        a.stick_sweeps = factor / FC_AUTO_STICK_MARGIN + fixed;
        a.newton_sweeps = FC_AUTO_NEWTON_ITERS * (factor + fixed);
    }
    int done = a.best_err <= opt->tolerance || watched_nsgs(&a, r, u, info);
    if (!done && p->d == 3 && a.needed > a.stick_sweeps) {
        /* NSGS has far to go: one factorisation tells whether all contacts
         * can stick (then that is the solution) */
        done = stage(&a, "stick", 1, opt->max_iter - a.iterations, r, u, info);
        a.stick_sweeps = 0;
        if (!done) {
            a.newton_sweeps = fmax(a.newton_sweeps, newton_cost_from_analysis(p));
            fc_log(opt, 1, "auto: Newton's predicted cost %.0f sweeps", a.newton_sweeps);
            /* NSGS again, judged only after a quarter of Newton's
             * predicted cost in all (FC_AUTO_NEWTON_MARGIN): with
             * Anderson, NSGS's error can stall for hundreds of sweeps
             * before its plain phases (nsgs.anderson_window) and
             * Anderson again go on, and its extrapolated rate then says
             * Newton; while Newton's cost is a prediction for 30
             * iterations and ipm-mdp takes 50-290 from 800 contacts on.
             * Measured on the 40 steps of fricon simulate pile --seed 2
             * (30 s limit): 33 converged either way, in 127.5 s in all
             * against 142.0 s; 6 steps 4-7 times faster (pile step 28:
             * 16.3 -> 3.2 s), the steps where NSGS fails up to 1.4 times
             * slower; the generated columns 0.3-1.3 s slower (2224
             * contacts: 3.4 -> 4.6 s); the shared problems within
             * +-25% but Spheres-i099, 10 -> 5.4 ms.  The stage is still
             * capped at FC_AUTO_NSGS_MAX_SWEEPS (the 36536-contact
             * column: 10000 sweeps, 92 s, of a predicted 1.7e6) */
            /* without friction (every mu = 0, a monotone LCP) the
             * interior point's steps do not grow with size (27-29 on
             * the generated columns made frictionless, 1515 to 10397
             * contacts) and NSGS's slow phases are not worth waiting
             * through: judged from its start (skipping the stage lost
             * on warm-started steps, 1.4 -> 4.9 s a step on fricon
             * simulate column --count 3000 --mu 0) */
            if (fc_problem_has_friction(p))
                a.grace = (int)fmin(1e9, a.newton_sweeps / FC_AUTO_NEWTON_MARGIN) - a.iterations;
            done = watched_nsgs(&a, r, u, info);
            a.grace = 0;
        }
    }
    int mdp_iterations = 0;
    if (!done && p->d == 3) {
        int cap = opt->max_iter - a.iterations, before = a.iterations, staged = info->nstages;
        /* the interior point on the maximum-dissipation form, with its
         * polish, under the whole time left: it ends by itself when it
         * stalls (60 steps without halving its error), and it is the
         * stage that solves the hardest problems measured (the generated
         * columns up to 3206 contacts; a budget of 16 times Newton's
         * predicted cost had cut it short on the 844-contact one on a
         * loaded machine) */
        done = stage(&a, "ipm-mdp", 1, cap < FC_AUTO_MDP_MAX_ITER ? cap : FC_AUTO_MDP_MAX_ITER,
                     r, u, info);
        mdp_iterations = a.iterations - before;
        if (!done && !fc_problem_has_friction(p) && info->nstages > staged &&
            info->stages[info->nstages - 1].status == FC_STATUS_ERROR) {
            /* without friction, where ipm-mdp could not run (its LU of W
             * + D refused for its fill: the 10397-contact column made
             * frictionless, local form, ended at 2.4e-8 after 24 s), ipm
             * solves the same convex problem by an LL' of W's pattern
             * (T W T + G^-2); not in ipm-mdp's place: on the shared
             * problems made frictionless it was 1.05-1.45 times slower
             * but on KaplasTower (0.37) */
            int left = opt->max_iter - a.iterations;
            done = stage(&a, "ipm", 1, left < FC_AUTO_MDP_MAX_ITER ? left : FC_AUTO_MDP_MAX_ITER, r, u, info);
        }
        if (!done) {
            /* NSGS from ipm-mdp's iterate, until a plateau: where ipm-mdp
             * crawls (large piles), NSGS with its plain phases converges
             * (measured on 19 steps of fricon simulate pile, 3417 to 6443
             * contacts, that auto left unconverged at 30 s: at 60 s, 8
             * converged with this stage, 5 without; from r = 0 instead,
             * 7) */
            done = plateau_nsgs(&a, r, u, info);
        }
        if (!done) {
            /* the proximal point from r = 0, at most FC_AUTO_PROX_SWEEPS
             * sweeps in all: its first, strongly regularised problems
             * (W + alpha I, alpha ~ the error) are easy for NSGS where W
             * is singular (measured on a 40-step fricon simulate column
             * --count 300: prox alone solved 37 of the 40 steps in 194 to
             * 3935 sweeps; on step 39, 767 contacts, ipm-mdp stalled at
             * 6.7e-6 and every later stage too, where prox from 0 needs
             * 20 outer iterations, 0.02 s; from ipm-mdp's iterate its
             * alpha starts too small and it stalls there) */
            done = stage(&a, "prox", 1, opt->max_iter - a.iterations, r, u, info);
        }
        for (size_t k = 0; !done && k < sizeof auto_mdp_margins / sizeof *auto_mdp_margins; k++) {
            int left = opt->max_iter - a.iterations;
            /* the same start as the first run's (a caller's ipm.margin) would
             * repeat it step for step */
            if (auto_mdp_margins[k] == fc_ipm_mdp_margin(opt)) continue;
            a.mdp_margin = auto_mdp_margins[k];
            done = stage(&a, "ipm-mdp", 1, left < FC_AUTO_MDP_MAX_ITER ? left : FC_AUTO_MDP_MAX_ITER,
                         r, u, info);
            a.mdp_margin = 0;
        }
    }
    /* ipm from r = 0 for d = 3: only when the best iterate is still far
     * (above sqrt(tolerance)); closer, the warm stages below finish from it
     * (measured on fricon simulate column --count 300: after ipm-mdp ended
     * at 1e-8 and 1.2e-7, ipm from 0 spent 5.5 s and 4.3 s to reach 1e-3) */
    if (!done && (p->d != 3 || a.best_err > sqrt(opt->tolerance))) {
        /* d = 3: at most twice ipm-mdp's iterations (at least
         * FC_AUTO_IPM_MIN_ITER): after ipm-mdp it has only been seen to
         * reach 1e-3 (the generated columns from 1515 contacts on), and
         * its fixed point may take 200 x 80 steps (the 10397-contact
         * column: over 8 minutes without a time limit) */
        int left = opt->max_iter - a.iterations;
        int cap = left;
        if (p->d == 3)
            cap = 2 * mdp_iterations > FC_AUTO_IPM_MIN_ITER ? 2 * mdp_iterations : FC_AUTO_IPM_MIN_ITER;
        done = stage(&a, p->d == 3 ? "ipm" : p->d == 2 ? "lemke" : "admm", p->d == 3,
                     cap < left ? cap : left, r, u, info);
    }
    if (!done && p->d <= 3)
        done = stage(&a, "nsn-hybrid", 0, opt->max_iter - a.iterations, r, u, info);
    if (!done) done = plateau_nsgs(&a, r, u, info);
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

/* A global problem: reduced to W, and auto's stages on it, except that
 * from FC_IPM_MDP_DIRECT_CONTACTS contacts on its interior-point stage runs
 * ipm-mdp on (M, H) directly; v recovered from r. */
fc_status fc_auto_solve_global(const fc_problem *p, const fc_options *opt, double *r, double *u,
                               double *v, fc_info *info)
{
    fc_clock clk;
    fc_clock_start(&clk, opt);
    fc_problem *loc = NULL;
    fc_error err;
    if (fc_problem_reduce(p, &loc, &err) != FC_OK) {
        snprintf(info->message, sizeof info->message, "%.200s", err.msg);
        return FC_STATUS_ERROR;
    }
    fc_options o = *opt;
    if (o.time_limit > 0) o.time_limit = fmax(1e-3, o.time_limit - fc_clock_elapsed(&clk));
    fc_status st = auto_solve(loc, p, &o, r, u, info);
    if (fc_problem_recover_v(p, r, v, &err) != FC_OK) st = FC_STATUS_ERROR;
    fc_problem_free(loc);
    return st;
}
