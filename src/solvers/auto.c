/* auto: the default solver, a plan of stages over the registered solvers
 * (the table `plan` below), sharing one time and iteration budget and
 * keeping the best iterate; each stage is recorded in info->stages.
 * Described in docs/solvers.md#auto-the-default; the measurements behind
 * the constants in docs/auto-measurements.md. */
#include "internal.h"
#include "core/stage.h"
#include "linsys/linsys.h"
#include "measure/measure.h"
#include "problem/reduce.h"
#include "solvers/ipm_mdp.h"
#include "solvers/nncg.h"

#include <lapacke.h>
#include <limits.h>
#include <stdio.h>

/* The first NSGS stage is judged from this many sweeps after Anderson's
 * start (d = 3; d = 2, 5: FC_AUTO_NSGS_SWEEPS_LOW_D), and runs at most
 * FC_AUTO_NSGS_MAX_SWEEPS. */
#define FC_AUTO_NSGS_SWEEPS 8
#define FC_AUTO_NSGS_SWEEPS_LOW_D 50
#define FC_AUTO_NSGS_MAX_SWEEPS 10000
/* d = 2, 5: NSGS goes on while predicted within this many times the
 * sweeps done. */
#define FC_AUTO_NSGS_PATIENCE 3
/* d = 3: Newton's cost, FC_AUTO_NEWTON_ITERS iterations of one sparse
 * factorisation, FC_AUTO_LU_COST b^2 sweeps (docs/auto-measurements.md#cost). */
#define FC_AUTO_NEWTON_ITERS 30
#define FC_AUTO_LU_COST 0.13
/* After a failed stick, from the Cholesky analysis: a Newton iteration is
 * FC_AUTO_SOLVE_SWEEPS plus FC_AUTO_FLOP_SWEEPS sweeps per predicted flop
 * over 2 nnz(W); iterations grow like sqrt(nc) above FC_AUTO_ITERS_CONTACTS
 * (docs/auto-measurements.md#stick). */
#define FC_AUTO_SOLVE_SWEEPS 3.0
#define FC_AUTO_FLOP_SWEEPS 0.2
#define FC_AUTO_ITERS_CONTACTS 1000.0
/* After a failed stick where contacts slide (d = 3, friction; not at rest:
 * ipm-mdp runs next), ipm-mdp's own iteration: FC_AUTO_MDP_LU_SOLVE_SWEEPS
 * plus FC_AUTO_MDP_LU_FLOP_SWEEPS sweeps per flop of its LU (W + D, or
 * M + H D H' on the global form, as it will run) over 2 nnz(W): Cholesky's
 * analysis of W predicts far fewer flops than that LU makes
 * (docs/auto-measurements.md#mdp-lu). */
#define FC_AUTO_MDP_LU_SOLVE_SWEEPS 10.0
#define FC_AUTO_MDP_LU_FLOP_SWEEPS 0.1
/* ipm-mdp's iterations grow with friction: FC_AUTO_MDP_LU_ITERS plus
 * FC_AUTO_MDP_LU_ITERS_MU times the largest mu squared (fitted to the
 * tuning halves' medians: docs/auto-measurements.md#mdp-lu). */
#define FC_AUTO_MDP_LU_ITERS 10.0
#define FC_AUTO_MDP_LU_ITERS_MU 30.0
/* On the global form an iteration also assembles K and solves with M: it
 * costs FC_AUTO_MDP_K_SOLVE_SWEEPS sweeps plus the flop term of K's LU. */
#define FC_AUTO_MDP_K_SOLVE_SWEEPS 100.0
/* NSGS must be predicted this many times cheaper than Newton. */
#define FC_AUTO_NEWTON_MARGIN 4.0
/* After a failed stick where the structure is at rest (ipm, the convex
 * interior point, runs next): FC_AUTO_REST_ITERS iterations of at least
 * FC_AUTO_REST_IT_SWEEPS sweeps, the flop term saturating from
 * FC_AUTO_REST_FLOPS_SATURATE flops per sweep's 2 nnz(W) on, as the large
 * fronts of heavy fill run at BLAS-3 speed; NSGS goes on until it is
 * predicted FC_AUTO_REST_MARGIN times that cost on two judgements in a
 * row (a stall persists, Anderson's swings do not)
 * (docs/auto-measurements.md#rest-cost). */
#define FC_AUTO_REST_ITERS 10.0
#define FC_AUTO_REST_IT_SWEEPS 40.0
#define FC_AUTO_REST_FLOPS_SATURATE 300.0
#define FC_AUTO_REST_MARGIN 8.0
/* A factorisation's fixed cost in block products (a sweep makes nc b). */
#define FC_AUTO_FACTOR_FIXED 400.0
/* stick is tried when NSGS needs more than a factorisation's work over
 * this margin (NSGS's extrapolation is hopeful) plus its fixed cost. */
#define FC_AUTO_STICK_MARGIN 2.0
/* Measurements kept of a watched NSGS stage: when full, every other one is
 * dropped and the stride doubles, so that they span the whole stage. */
#define FC_AUTO_HISTORY 256
/* A global problem with a block-diagonal M (d = 2, 3) starts with nncg on
 * (M, H), no reduction to W, judged from this many sweeps on its best
 * error's rate, going on while within FC_AUTO_NNCG_PATIENCE times the
 * sweeps done (docs/auto-measurements.md#nncg-first). */
#define FC_AUTO_NNCG_JUDGE 100
#define FC_AUTO_NNCG_PATIENCE 10
/* From FC_AUTO_NNCG_LOOSE_TOL, nncg's rate is measured over its last half
 * and at least its last FC_AUTO_NNCG_WINDOW sweeps: a flat step of its
 * best error (100-200 sweeps on the piles at mu = 1) is not a stall early
 * in the stage (docs/auto-measurements.md#nncg-window). */
#define FC_AUTO_NNCG_WINDOW 200
/* nncg's best error falls by steps (flat for hundreds of sweeps, then a
 * drop): within FC_AUTO_NNCG_NEAR times a tolerance from
 * FC_AUTO_NNCG_LOOSE_TOL it is also judged on its rate over the whole
 * stage, up to FC_AUTO_NNCG_NEAR_SWEEPS sweeps for d = 3 (the plan after
 * it costs more on the piles of 300 bodies, where nncg's flat steps last
 * up to 1900 sweeps: docs/auto-measurements.md#nncg-steps, #masonry-tight)
 * and FC_AUTO_NNCG_NEAR_SWEEPS_2D for d = 2 (after it, NSGS's plateau
 * stage finishes the 2D flows at mu = 1: #nncg-window). */
/* d = 2, from FC_AUTO_NNCG_LOOSE_TOL: nncg stops once its sweeps exceed
 * FC_AUTO_NNCG_OVERDUE times the finish it predicted at half of them (its
 * rate decays: the sweeps to go hold while the finish recedes; after it,
 * NSGS finishes the 2D flows: docs/auto-measurements.md#nncg-overdue). */
#define FC_AUTO_NNCG_OVERDUE 1.5
#define FC_AUTO_NNCG_NEAR 10.0
#define FC_AUTO_NNCG_NEAR_SWEEPS 3500
#define FC_AUTO_NNCG_NEAR_SWEEPS_2D 1500
/* d = 3: that whole-stage rule holds nncg only while its sweeps are below
 * FC_AUTO_NNCG_FLAT times the sweep of its best error's last 10% gain: a
 * flat step lasts up to 1.5 times the sweeps before it on the piles, a
 * stall (a column at mu = 1: flat from sweep 289 on) lasts
 * (docs/auto-measurements.md#nncg-flat). */
#define FC_AUTO_NNCG_FLAT 3.0
/* The plan's nncg stage on W, and the whole-stage rule above, from this
 * tolerance on: at 1e-4 nncg is the oracle or close on the local form; at
 * 1e-8 its rate flattens (far from the tolerance, or within 10x for
 * hundreds of sweeps) where stick, Newton or ipm-mdp finish
 * (docs/auto-measurements.md#nncg-local). */
#define FC_AUTO_NNCG_LOOSE_TOL 1e-6
/* Below FC_AUTO_NNCG_LOOSE_TOL, the global form's nncg stage is also
 * weighed against ipm-mdp on (M, H) (where its direct form runs): ipm-mdp
 * costs FC_AUTO_MDP_ITERS iterations of FC_AUTO_MDP_SOLVE_SWEEPS nncg
 * sweeps plus FC_AUTO_MDP_FLOP_SWEEPS sweeps per predicted flop of K's
 * factorisation over nnz(H) + nnz(M) (a sweep's work); nncg stops, and
 * ipm-mdp runs next, when its extrapolated sweeps to go exceed
 * FC_AUTO_MDP_MARGIN times that within its first FC_AUTO_MDP_WINDOW
 * sweeps (the rate of its first sweeps; later the plan after it is the
 * alternative: examples/pile-step24.hdf5) (the extrapolation is hopeful;
 * d = 3 only: docs/auto-measurements.md#masonry-tight). */
#define FC_AUTO_MDP_ITERS 10.0
#define FC_AUTO_MDP_SOLVE_SWEEPS 20.0
#define FC_AUTO_MDP_FLOP_SWEEPS 0.06
#define FC_AUTO_MDP_MARGIN 0.5
#define FC_AUTO_MDP_WINDOW 200
/* From a cold start (r = 0) that weighing begins at this sweep, not at
 * FC_AUTO_NNCG_JUDGE: nncg's early sweeps are what auto lost to ipm-mdp
 * on the cold masonry (docs/auto-measurements.md#nncg-window). */
#define FC_AUTO_MDP_COLD_JUDGE 20
/* d = 2: Lemke's cost, nc pivots of FC_AUTO_LEMKE_PIVOT nc sweeps each
 * (at least one; docs/auto-measurements.md#2d-large). */
#define FC_AUTO_LEMKE_PIVOT 0.0045
/* After a failed stick (d = 3, friction), the convex interior point (ipm)
 * before ipm-mdp when the best iterate's loaded contacts slide at most
 * FC_AUTO_AT_REST times its error (docs/auto-measurements.md#at-rest). */
#define FC_AUTO_AT_REST 1.5
/* At most this many iterations of an interior-point stage. */
#define FC_AUTO_MDP_MAX_ITER 2000
/* A plateau NSGS stage stops after no 10% gain in as many sweeps as its
 * last gain took, and at least this many (docs/auto-measurements.md#plateau). */
#define FC_AUTO_PLATEAU_SWEEPS 2000
/* The prox stage's inner sweeps in all (docs/auto-measurements.md#prox). */
#define FC_AUTO_PROX_SWEEPS 1000
/* The ipm stage after ipm-mdp: at most twice ipm-mdp's iterations, at
 * least this many (docs/auto-measurements.md#ipm). */
#define FC_AUTO_IPM_MIN_ITER 200

typedef struct auto_run {
    const fc_problem *p;
    const fc_problem *global;   /* the global problem p was reduced from, if any */
    const fc_options *opt;
    fc_clock clk;
    fc_stages st;           /* the stage runner: best iterate, iterations */
    int stopped;            /* the caller's progress callback said stop */
    int watch;              /* watching NSGS's rate (nsgs_worth_going_on) */
    int plateau;            /* watching an NSGS stage for a plateau        */
    int plat_it;            /* its sweep of the last 10% gain, and the best */
    double plat_best;
    double newton_sweeps;   /* d = 3: Newton's cost in sweeps; 0: d != 3  */
    int rest;               /* ... after a failed stick at rest: ipm's cost, */
    int rest_over;          /* and the judgements in a row NSGS was beyond it */
    double stick_sweeps;    /* d = 3: stick's threshold in sweeps while it
                               is on offer, else 0                        */
    double needed;          /* NSGS's last extrapolated sweeps to go      */
    double lemke_sweeps;    /* d = 2: Lemke's predicted cost in sweeps    */
    int stick_tried;        /* the stick step's condition held            */
    int grace;              /* sweeps before NSGS's rate is judged, if more */
    int mdp_iterations;     /* the first interior-point stage's iterations */
    int mdp_refused;        /* ... and it ended in an error               */
    int nncg;               /* the watched stage is nncg: its best error, patience */
    double nncg_best;
    double nncg_gain;       /* its best error at its last 10% gain, and that sweep */
    int nncg_gain_it;
    int nncg_ran;           /* a global problem's nncg stage ran on (M, H) */
    const fc_problem *mdp_global;   /* its global problem, ipm-mdp's direct form to cost */
    double mdp_sweeps;      /* ipm-mdp on it, predicted in nncg sweeps (0: not yet) */
    double mdp_lu_sweeps;   /* d = 3: ipm-mdp from its LU's analysis, in sweeps (0: not known) */
    int mdp_lu_done;        /* ... analysed (once a solve: not every sweep when not known) */
    int mdp_first;          /* the nncg stage was cut for ipm-mdp: it ran next */
    int mdp_judge;          /* the weighing's first sweep when earlier than the stage's judgement */
    double *u;              /* auto's u: a workspace between stages */
    int nhist, stride, calls;   /* a watched NSGS stage's measurements     */
    int hist_it[FC_AUTO_HISTORY];
    double hist_err[FC_AUTO_HISTORY];
    double hist_finish[FC_AUTO_HISTORY];   /* nncg: the sweep it predicted to finish at */
} auto_run;

/* ---- costing ---------------------------------------------------------- */

/* ipm-mdp's cost on the global problem g in nncg sweeps, from the
 * Cholesky analysis of its Newton matrix's pattern (K = M + H D H');
 * INFINITY when the analysis fails. */
static double mdp_global_cost(const fc_problem *g, const fc_options *opt)
{
    double entries, flops, t0 = fc_now();
    fc_error e;
    if (fc_mdp_global_predict(g, &entries, &flops, &e) != FC_OK) return INFINITY;
    double sweep = (double)g->H->nnz + (double)g->M->nnz;
    double cost = FC_AUTO_MDP_ITERS * (FC_AUTO_MDP_SOLVE_SWEEPS + FC_AUTO_MDP_FLOP_SWEEPS * flops / sweep);
    fc_log(opt, 1, "auto: ipm-mdp on (M, H): factor %.3g entries, %.3g flops (%.3g a sweep's work); "
           "predicted %.0f nncg sweeps (analysis %.4f s)", entries, flops, flops / sweep, cost, fc_now() - t0);
    return cost;
}

/* d = 3: ipm-mdp's cost in sweeps from the analysis of the factorisation
 * it will run: the LU of W + D, or of M + H D H' where it runs on the
 * global problem (from its direct size on, and for the global problem's
 * own nncg stage, before any W); a sweep's work is nnz(W), or nnz(H) +
 * nnz(M) without W.  0 when not known, INFINITY when the LU would be
 * refused. */
static double mdp_cost_from_lu(const auto_run *a)
{
    const fc_problem *p = a->p;
    const fc_problem *g = p->W ? a->global : p;
    const fc_solver *mdp = fc_solver_find("ipm-mdp");
    if (!mdp) return 0;
    double flops = 0, fixed = FC_AUTO_MDP_LU_SOLVE_SWEEPS, sweep;
    fc_error e;
    int direct = g && mdp->solve_direct && mdp->direct_contacts > 0 && g->nc >= mdp->direct_contacts;
    if (g && g->M && g->H && (!p->W || direct)) {
        double entries;
        if (fc_mdp_global_predict(g, &entries, &flops, &e) != FC_OK) return 0;
        flops *= 2.0;   /* an LU of K's pattern: twice its Cholesky's */
        if (direct) fixed = FC_AUTO_MDP_K_SOLVE_SWEEPS;   /* else W + D's LU, costed from K's flops */
    } else if (p->W && p->W->kind == FC_MAT_BSR && p->W->bs == p->d) {
        fc_bjac J;
        memset(&J, 0, sizeof J);
        fc_err st = fc_bjac_init(&J, p->W, p->d, FC_LU_KLU, "auto", &e);
        if (st == FC_OK) flops = fc_lu_predicted_flops(J.lu);
        fc_bjac_free(&J);
        if (st == FC_ERR_NOMEM) return INFINITY;
        if (st != FC_OK) return 0;
    } else {
        return 0;
    }
    sweep = p->W ? (double)p->W->nnz : (double)g->H->nnz + (double)g->M->nnz;
    double mu = 0;
    for (int c = 0; c < p->nc; c++) mu = fmax(mu, p->mu[c]);
    double iters = FC_AUTO_MDP_LU_ITERS + FC_AUTO_MDP_LU_ITERS_MU * mu * mu;
    return iters * (fixed + FC_AUTO_MDP_LU_FLOP_SWEEPS * flops / (2.0 * sweep));
}

/* mdp_cost_from_lu, analysed once per auto_run. */
static double mdp_lu_cost(auto_run *a)
{
    if (!a->mdp_lu_done) {
        a->mdp_lu_sweeps = mdp_cost_from_lu(a);
        a->mdp_lu_done = 1;
    }
    return a->mdp_lu_sweeps;
}

/* The watched stage's measurement whose sweep is nearest to half of
 * `twice` (the first of equals). */
static int hist_nearest(const auto_run *a, int twice)
{
    int best = 0;
    for (int k = 1; k < a->nhist; k++)
        if (abs(2 * a->hist_it[k] - twice) < abs(2 * a->hist_it[best] - twice)) best = k;
    return best;
}

/* Should a watched NSGS stage go on?  Its error's log-linear rate over
 * the last half of the sweeps, extrapolated to the tolerance: d = 3, while
 * cheaper than stick (on offer) and Newton over FC_AUTO_NEWTON_MARGIN;
 * d = 2, 5, while within FC_AUTO_NSGS_PATIENCE times the sweeps done. */
static int nsgs_worth_going_on(auto_run *a, int it, double err)
{
    if (a->nncg) {
        if (err < 0.9 * a->nncg_gain) { a->nncg_gain = err; a->nncg_gain_it = it; }
        err = a->nncg_best = fmin(a->nncg_best, err);   /* nncg's error is noisy */
    }
    if (a->nhist == FC_AUTO_HISTORY) {
        for (int k = 0; k < FC_AUTO_HISTORY / 2; k++) {
            a->hist_it[k] = a->hist_it[2 * k + 1];
            a->hist_err[k] = a->hist_err[2 * k + 1];
            a->hist_finish[k] = a->hist_finish[2 * k + 1];
        }
        a->nhist = FC_AUTO_HISTORY / 2;
        a->stride *= 2;
    }
    if (a->stride < 1) a->stride = 1;
    int recorded = ++a->calls % a->stride == 0;
    if (recorded) {
        a->hist_it[a->nhist] = it;
        a->hist_finish[a->nhist] = INFINITY;
        a->hist_err[a->nhist++] = err;
    }
    int judge = a->p->d == 3 ? FC_AUTO_NSGS_SWEEPS : FC_AUTO_NSGS_SWEEPS_LOW_D;
    if (a->opt->nsgs.anderson > 0) judge += a->opt->nsgs.anderson_start;
    if (judge < a->grace) judge = a->grace;
    /* before the judgement, only the weighing against ipm-mdp may stop it */
    int early = a->nncg && a->mdp_global && a->mdp_judge > 0 && it >= a->mdp_judge && it < judge;
    if (it < judge && !early) return 1;
    /* the measurement nearest to half-way (twice the sweep, against it),
     * for nncg at loose tolerances nearest to its window's start when that
     * is earlier */
    int window = a->nncg && a->opt->tolerance >= FC_AUTO_NNCG_LOOSE_TOL;
    int at = window && 2 * (it - FC_AUTO_NNCG_WINDOW) < it ? 2 * (it - FC_AUTO_NNCG_WINDOW) : it;
    int ref = hist_nearest(a, at);
    if (a->hist_it[ref] >= it) return 1;
    a->needed = INFINITY;   /* unless a decreasing error says otherwise */
    if (!(err > 0) || !(a->hist_err[ref] > 0)) return 0;
    double rate = log(err / a->hist_err[ref]) / (it - a->hist_it[ref]);   /* < 0: decreasing */
    if (!(rate < 0) && !a->nncg) return 0;
    /* nncg's best error flat over the last half: infinitely far by that
     * rate, but the whole stage's rule below may still keep it (a step) */
    double needed = rate < 0 ? log(a->opt->tolerance / err) / rate : INFINITY;
    a->needed = needed;
    if (recorded) a->hist_finish[a->nhist - 1] = it + needed;
    if (a->nncg && a->p->d == 2 && a->opt->tolerance >= FC_AUTO_NNCG_LOOSE_TOL) {   /* overdue? */
        int half = hist_nearest(a, it);
        if (it > FC_AUTO_NNCG_OVERDUE * a->hist_finish[half]) {
            fc_log(a->opt, 1, "auto: nncg sweep %d, error %.3e, overdue (at sweep %d it predicted %.0f)", it, err,
                   a->hist_it[half], a->hist_finish[half]);
            return 0;
        }
    }
    fc_log(a->opt, 1, "auto: %s sweep %d, error %.3e, %.0f sweeps to go", a->nncg ? "nncg" : "nsgs", it, err,
           needed);
    if (a->newton_sweeps > 0 && !a->nncg && a->rest) {
        a->rest_over = needed < FC_AUTO_REST_MARGIN * a->newton_sweeps ? 0 : a->rest_over + 1;
        return a->rest_over < 2;
    }
    if (a->newton_sweeps > 0 && !a->nncg) {
        double next = a->newton_sweeps / FC_AUTO_NEWTON_MARGIN;
        if (a->stick_sweeps > 0) next = fmin(next, a->stick_sweeps);
        return needed < next;
    }
    if (a->nncg && a->mdp_global && it <= FC_AUTO_MDP_WINDOW &&   /* costed once, when it could win */
        needed > FC_AUTO_MDP_MARGIN * FC_AUTO_MDP_ITERS * FC_AUTO_MDP_SOLVE_SWEEPS) {
        if (a->mdp_sweeps == 0) a->mdp_sweeps = mdp_global_cost(a->mdp_global, a->opt);
        if (needed > FC_AUTO_MDP_MARGIN * a->mdp_sweeps) {
            a->mdp_first = 1;   /* ipm-mdp runs next on (M, H) */
            return 0;
        }
    }
    if (early) return 1;
    double patience = (a->nncg ? FC_AUTO_NNCG_PATIENCE : FC_AUTO_NSGS_PATIENCE) * it;
    if (a->p->d == 2 && !a->nncg) patience = fmax(patience, a->lemke_sweeps / FC_AUTO_NEWTON_MARGIN);
    if (needed < patience) return 1;
    /* nncg near the tolerance: its rate over the whole stage (a flat step
     * of its best error is not a stall) */
    const double tol = a->opt->tolerance;
    int cap = a->p->d == 2 ? FC_AUTO_NNCG_NEAR_SWEEPS_2D : FC_AUTO_NNCG_NEAR_SWEEPS;
    if (a->nncg && tol >= FC_AUTO_NNCG_LOOSE_TOL && err <= FC_AUTO_NNCG_NEAR * tol &&
        it < cap && a->hist_it[0] < it && a->hist_err[0] > err &&
        (a->p->d != 3 || it < FC_AUTO_NNCG_FLAT * a->nncg_gain_it)) {
        double whole = log(err / a->hist_err[0]) / (it - a->hist_it[0]);
        return log(tol / err) / whole < patience;
    }
    /* d = 3 with friction, farther than that from the tolerance: while it
     * still gains, nncg goes on as long as its whole stage's rate reaches
     * the tolerance within ipm-mdp's predicted cost over
     * FC_AUTO_NEWTON_MARGIN, what the plan after it comes to where contacts
     * slide (docs/auto-measurements.md#mdp-lu) */
    if (a->nncg && a->p->d == 3 && tol >= FC_AUTO_NNCG_LOOSE_TOL && err > FC_AUTO_NNCG_NEAR * tol &&
        fc_problem_has_friction(a->p) &&
        a->hist_it[0] < it && a->hist_err[0] > err && it < FC_AUTO_NNCG_FLAT * a->nncg_gain_it) {
        double cost = mdp_lu_cost(a);
        double whole = log(err / a->hist_err[0]) / (it - a->hist_it[0]);
        double togo = log(tol / err) / whole;
        if (togo < cost / FC_AUTO_NEWTON_MARGIN) {
            fc_log(a->opt, 1, "auto: nncg sweep %d, %.0f sweeps to go at its whole rate, ipm-mdp's cost %.0f",
                   it, togo, cost);
            return 1;
        }
    }
    return 0;
}

/* The caller's progress callback seen through the stages, and the
 * watched and plateau NSGS stages' stopping rules. */
static int progress(void *user, int iteration, double error)
{
    auto_run *a = user;
    if (a->opt->progress &&
        a->opt->progress(a->opt->progress_user, a->st.iterations + iteration, error))
        a->stopped = 1;
    if (a->stopped) return 1;
    if (a->plateau) {
        if (error < 0.9 * a->plat_best) { a->plat_best = error; a->plat_it = iteration; }
        return iteration - a->plat_it >= (a->plat_it > FC_AUTO_PLATEAU_SWEEPS ? a->plat_it
                                                                              : FC_AUTO_PLATEAU_SWEEPS);
    }
    return a->watch && !nsgs_worth_going_on(a, iteration, error);
}

/* Blocks per block row of W, averaged (1: decoupled contacts). */
static double coupling(const fc_problem *p)
{
    const fc_matrix *W = p->W;
    if (W->kind == FC_MAT_BSR) return (double)W->p[W->rows / W->bs] / (W->rows / W->bs);
    if (W->kind == FC_MAT_CSR) return (double)W->nnz / W->rows / p->d;
    return (double)p->nc;
}

/* d = 3: stick's threshold and Newton's cost in sweeps from the coupling
 * b (one factorisation ~ FC_AUTO_LU_COST b^2 sweeps, plus its fixed cost). */
static void cost_from_coupling(auto_run *a, double b)
{
    double factor = fmax(1.0, FC_AUTO_LU_COST * b * b);
    double fixed = FC_AUTO_FACTOR_FIXED / (a->p->nc * b);
    a->stick_sweeps = factor / FC_AUTO_STICK_MARGIN + fixed;
    a->newton_sweeps = FC_AUTO_NEWTON_ITERS * (factor + fixed);
}

/* d = 3, after a failed stick: Newton's cost in sweeps from the Cholesky
 * analysis of W's pattern (the b^2 model underestimates heavy fill);
 * deterministic, unlike a timing (docs/auto-measurements.md#stick); at
 * rest, ipm's. */
static double newton_cost_from_analysis(const fc_problem *p, int rest)
{
    const fc_matrix *W = p->W;
    double entries, flops;
    fc_error e;
    if (W->kind != FC_MAT_BSR || W->bs != p->d || fc_chol_predict_bsr(W, &entries, &flops, &e) != FC_OK)
        return 0;
    double x = flops / (2.0 * W->nnz);   /* a factorisation's flops over a sweep's */
    if (rest) {   /* ipm at rest: few iterations (docs/auto-measurements.md#rest-cost) */
        double flop_sweeps = FC_AUTO_FLOP_SWEEPS * x / (1.0 + x / FC_AUTO_REST_FLOPS_SATURATE);
        return FC_AUTO_REST_ITERS * fmax(FC_AUTO_REST_IT_SWEEPS, FC_AUTO_SOLVE_SWEEPS + flop_sweeps);
    }
    double iters = FC_AUTO_NEWTON_ITERS;
    if (fc_problem_has_friction(p)) iters *= fmax(1.0, sqrt(p->nc / FC_AUTO_ITERS_CONTACTS));
    return iters * (FC_AUTO_SOLVE_SWEEPS + FC_AUTO_FLOP_SWEEPS * x);
}

/* The analysis logged with --verbose: size, coupling, mu range, W's
 * asymmetry and its diagonal blocks' conditioning (a singular block is a
 * contact NSGS cannot solve well). */
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

/* ---- when a step runs -------------------------------------------------- */

static int any_d(const auto_run *a) { (void)a; return 1; }
static int d3(const auto_run *a) { return a->p->d == 3; }
static int d2(const auto_run *a) { return a->p->d == 2; }
static int d5(const auto_run *a) { return a->p->d != 2 && a->p->d != 3; }
/* d = 2, 3 with friction, a tolerance from FC_AUTO_NNCG_LOOSE_TOL, unless
 * nncg ran on the global problem (M, H): nncg on W first
 * (docs/auto-measurements.md#nncg-local). */
static int nncg_first(const auto_run *a)
{
    return (a->p->d == 2 || a->p->d == 3) && fc_problem_has_friction(a->p) && !a->nncg_ran &&
           a->opt->tolerance >= FC_AUTO_NNCG_LOOSE_TOL;
}
/* d = 2: Lemke is predicted cheaper than NSGS's extrapolation (infinite
 * when its error stopped falling) and than an NSGS stage's cap: else the
 * last NSGS stage goes on to its plateau (docs/auto-measurements.md#2d-large). */
static int lemke_d2(const auto_run *a)
{
    return d2(a) && fmin(a->needed, FC_AUTO_NSGS_MAX_SWEEPS) > a->lemke_sweeps;
}
static int newton_d3_d2(const auto_run *a) { return d3(a) || lemke_d2(a); }
/* d = 2: Lemke not taken above, with the time left after NSGS's plateau. */
static int lemke_last(const auto_run *a) { return d2(a) && !lemke_d2(a); }
/* NSGS has far to go: one factorisation tells whether all contacts stick. */
static int stick_on_offer(const auto_run *a) { return d3(a) && a->needed > a->stick_sweeps; }
static int after_stick(const auto_run *a) { return a->stick_tried; }
/* A frictionless (convex) global problem from gipm's size on, M symmetric:
 * gipm's LL' in ipm-mdp's place (docs/auto-measurements.md#gipm). */
static int convex_direct(const auto_run *a)
{
    const fc_solver *g = fc_solver_find("gipm");
    return d3(a) && a->global && g && a->global->nc >= g->direct_contacts &&
           !fc_problem_has_friction(a->p) && fc_matrix_asymmetry(a->global->M) <= FC_IPM_M_SYMMETRIC;
}
static int not_convex_direct(const auto_run *a) { return d3(a) && !convex_direct(a) && !a->mdp_first; }
/* Frictionless, where the interior point on W + D could not run (its LU
 * refused): ipm's LL' of W's pattern. */
static int mdp_refused(const auto_run *a)
{
    return d3(a) && !fc_problem_has_friction(a->p) && a->mdp_refused;
}
/* The best iterate's tangential speeds at its loaded contacts (r_N > 0),
 * over the SPEC measure's scale, against its error: at rest they are of
 * the order of the error (a structure at rest solves the convex problem),
 * where contacts slide they are not. */
static double sliding_over_error(const auto_run *a)
{
    const fc_problem *p = a->p;
    const double *r = a->st.best;
    double *u = a->u;
    int d = p->d, m = fc_problem_m(p);
    if (!r || !u || d != 3 || !(a->st.best_err > 0)) return INFINITY;
    fc_problem_u(p, r, u);
    double slide = 0.0;
    for (int c = 0; c < p->nc; c++)
        if (r[d * c] > 0.0) slide += u[d * c + 1] * u[d * c + 1] + u[d * c + 2] * u[d * c + 2];
    double scale = fc_norm2_max3(m, p->q, r, u);   /* the SPEC measure's s */
    if (scale < 1e-300) scale = 1.0;
    double ratio = sqrt(slide) / scale / a->st.best_err;
    fc_log(a->opt, 1, "auto: loaded contacts' sliding speed %.3g times the error", ratio);
    return ratio;
}
/* After a failed stick, with friction: the convex interior point (ipm's
 * LL') first where the structure is at rest up to the error. */
static int at_rest(const auto_run *a)
{
    return a->stick_tried && d3(a) && fc_problem_has_friction(a->p) && !a->mdp_first &&
           sliding_over_error(a) <= FC_AUTO_AT_REST;
}

/* A start margin other than the first run's (which it would repeat). */
static int other_margin(const auto_run *a, double margin)
{
    return d3(a) && margin != fc_ipm_mdp_margin(a->opt);
}
/* ipm from r = 0 only while the best error is above sqrt(tolerance):
 * closer, the warm stages below finish (docs/auto-measurements.md#ipm). */
static int far(const auto_run *a) { return d3(a) && a->st.best_err > sqrt(a->opt->tolerance); }

/* ---- budgets (iterations) --------------------------------------------- */

static int left(const auto_run *a) { return a->opt->max_iter - a->st.iterations; }
static int budget_all(const auto_run *a) { return left(a); }
static int budget_nsgs(const auto_run *a)
{
    return left(a) < FC_AUTO_NSGS_MAX_SWEEPS ? left(a) : FC_AUTO_NSGS_MAX_SWEEPS;
}
static int budget_mdp(const auto_run *a)
{
    return left(a) < FC_AUTO_MDP_MAX_ITER ? left(a) : FC_AUTO_MDP_MAX_ITER;
}
static int budget_ipm(const auto_run *a)
{
    int cap = 2 * a->mdp_iterations > FC_AUTO_IPM_MIN_ITER ? 2 * a->mdp_iterations : FC_AUTO_IPM_MIN_ITER;
    return cap < left(a) ? cap : left(a);
}

/* ---- before a step: its watch and option patch ------------------------- */

/* A watched NSGS stage starts a fresh history. */
static void watched(auto_run *a, fc_options *o)
{
    (void)o;
    a->watch = 1;
    a->nhist = 0;
    a->stride = 1;
    a->calls = 0;
}
/* The NSGS after a failed stick: Newton costed from the analysis, and
 * (with friction) NSGS judged only after a quarter of that
 * (docs/auto-measurements.md#second-nsgs); at rest, ipm's cost, and NSGS
 * stopped only where it stalls (#rest-cost). */
static void watched_after_stick(auto_run *a, fc_options *o)
{
    int friction = fc_problem_has_friction(a->p) && !a->mdp_first;
    double sliding = friction ? sliding_over_error(a) : 0.0;
    a->rest = friction && sliding <= FC_AUTO_AT_REST;
    a->rest_over = 0;
    double rest = a->rest ? newton_cost_from_analysis(a->p, 1) : 0.0;
    if (rest > 0) {
        a->newton_sweeps = rest;
    } else {
        a->rest = 0;
        a->newton_sweeps = fmax(a->newton_sweeps, newton_cost_from_analysis(a->p, 0));
        if (friction && sliding > FC_AUTO_AT_REST) a->newton_sweeps = fmax(a->newton_sweeps, mdp_lu_cost(a));
    }
    fc_log(a->opt, 1, "auto: Newton's predicted cost %.0f sweeps", a->newton_sweeps);
    if (fc_problem_has_friction(a->p))
        a->grace = (int)fmin(1e9, a->newton_sweeps / FC_AUTO_NEWTON_MARGIN) - a->st.iterations;
    watched(a, o);
}
/* The nncg stage: watched on its best error from FC_AUTO_NNCG_JUDGE sweeps. */
static void watched_nncg(auto_run *a, fc_options *o)
{
    watched(a, o);
    a->grace = FC_AUTO_NNCG_JUDGE;
    a->nncg = 1;
    a->nncg_best = INFINITY;
    a->nncg_gain = INFINITY;
    a->nncg_gain_it = 0;
}
static void plateau(auto_run *a, fc_options *o)
{
    (void)o;
    a->plateau = 1;
    a->plat_it = 0;
    a->plat_best = a->st.best_err;
}
/* A plateau judged on the stage's own errors (a cold start's). */
static void plateau_own(auto_run *a, fc_options *o)
{
    plateau(a, o);
    a->plat_best = INFINITY;
}
/* prox: its budget, with NSGS inside whatever the caller's inner solver
 * (auto inside would recurse). */
static void prox_budget(auto_run *a, fc_options *o)
{
    (void)a;
    o->prox.max_sweeps = FC_AUTO_PROX_SWEEPS;
    o->prox.inner_solver = NULL;
}
static void margin_03(auto_run *a, fc_options *o) { (void)a; o->ipm.margin = 0.3; }
static void margin_3(auto_run *a, fc_options *o) { (void)a; o->ipm.margin = 3.0; }
static int other_margin_03(const auto_run *a) { return other_margin(a, 0.3); }
static int other_margin_3(const auto_run *a) { return other_margin(a, 3.0); }

/* ---- after a step ------------------------------------------------------ */

static void stick_done(auto_run *a, int ran)
{
    (void)ran;
    a->stick_sweeps = 0;
    a->stick_tried = 1;
}
static void nncg_done(auto_run *a, int ran)
{
    (void)ran;
    a->nncg = 0;
}
static void mdp_done(auto_run *a, int ran)
{
    a->mdp_iterations = ran ? a->st.stage_iterations : 0;
    a->mdp_refused = ran && a->st.status == FC_STATUS_ERROR;
}

/* ---- the plan ---------------------------------------------------------- */

typedef struct plan_step {
    const char *solver;                       /* by its registry name    */
    const char *label;                        /* NULL: the solver's name */
    fc_start start;
    int (*when)(const auto_run *a);           /* run the step?           */
    int (*budget)(const auto_run *a);         /* its iterations          */
    void (*before)(auto_run *a, fc_options *o);   /* watch, option patch */
    void (*after)(auto_run *a, int ran);
} plan_step;

/* Read top to bottom until the tolerance is met.  Cold starts for the
 * interior points (they lose to warm starts), warm from the best iterate
 * otherwise.  Why each row (sections of docs/auto-measurements.md):
 * nncg, with friction at loose tolerances, where no nncg ran on (M, H)
 * (#nncg-local); nsgs solves the easy problems at once (#first-nsgs);
 * stick, a structure at rest in one factorisation (#cost); nsgs again,
 * costed from the analysis (#second-nsgs); gipm, the convex case's LL'
 * (#gipm); ipm where the structure is at rest (#at-rest); ipm-mdp,
 * the hard problems (#ipm-mdp, #direct; not again where it ran on (M, H)
 * after the global form's nncg stage, #masonry-tight); ipm where its LU was refused
 * (#refused); nsgs to a plateau from its iterate (#plateau); prox where W
 * is singular (#prox); ipm-mdp from other margins (#margins); ipm from 0
 * while far (#ipm); lemke (d = 2, where cheaper than NSGS, #2d-large),
 * admm (d = 5), nsn-hybrid, nsgs with what is left, nsgs from r = 0 (d = 2,
 * #cold-2d) and lemke last (d = 2).
 * A global problem with a block-diagonal M has had an nncg stage before
 * (#nncg-first). */
static const plan_step plan[] = {
    /* solver       label                 start           when               budget       before               after */
    {"nncg",       NULL,                 FC_START_BEST, nncg_first,        budget_nsgs, watched_nncg,        nncg_done},
    {"nsgs",       NULL,                 FC_START_BEST, any_d,             budget_nsgs, watched,             NULL},
    {"stick",      NULL,                 FC_START_COLD, stick_on_offer,    budget_all,  NULL,                stick_done},
    {"nsgs",       NULL,                 FC_START_BEST, after_stick,       budget_nsgs, watched_after_stick, NULL},
    {"gipm",       NULL,                 FC_START_COLD, convex_direct,     budget_mdp,  NULL,                mdp_done},
    {"ipm",        "ipm, at rest",       FC_START_COLD, at_rest,           budget_mdp,  NULL,                NULL},
    {"ipm-mdp",    NULL,                 FC_START_COLD, not_convex_direct, budget_mdp,  NULL,                mdp_done},
    {"ipm",        NULL,                 FC_START_COLD, mdp_refused,       budget_mdp,  NULL,                NULL},
    {"nsgs",       NULL,                 FC_START_BEST, d3,                budget_all,  plateau,             NULL},
    {"prox",       NULL,                 FC_START_COLD, d3,                budget_all,  prox_budget,         NULL},
    {"ipm-mdp",    "ipm-mdp margin 0.3", FC_START_COLD, other_margin_03,   budget_mdp,  margin_03,           NULL},
    {"ipm-mdp",    "ipm-mdp margin 3",   FC_START_COLD, other_margin_3,    budget_mdp,  margin_3,            NULL},
    {"ipm",        NULL,                 FC_START_COLD, far,               budget_ipm,  NULL,                NULL},
    {"lemke",      NULL,                 FC_START_BEST, lemke_d2,          budget_all,  NULL,                NULL},
    {"admm",       NULL,                 FC_START_BEST, d5,                budget_all,  NULL,                NULL},
    {"nsn-hybrid", NULL,                 FC_START_BEST, newton_d3_d2,      budget_all,  NULL,                NULL},
    {"nsgs",       NULL,                 FC_START_BEST, any_d,             budget_all,  plateau,             NULL},
    {"nsgs",       "nsgs, cold",         FC_START_COLD, d2,                budget_all,  plateau_own,         NULL},
    {"lemke",      "lemke, last",        FC_START_BEST, lemke_last,        budget_all,  NULL,                NULL},
};

/* Run the plan's step s, with its watch, budget and option patch. */
static void run_step(auto_run *a, const plan_step *s, double *r, double *u)
{
    if (!s->when(a)) return;
    fc_options o = fc_stage_options(&a->st, s->budget(a));
    if (s->before) s->before(a, &o);
    if (a->opt->progress || a->watch || a->plateau) {
        o.progress = progress;
        o.progress_user = a;
    }
    int ran = !a->stopped && fc_stage_run(&a->st, fc_solver_find(s->solver), s->label, s->start, &o, r, u);
    a->watch = a->plateau = a->grace = 0;
    if (s->after) s->after(a, ran);
}

/* What auto's plan on a reduction is given: the global problem and the
 * iterations its nncg stage used. */
typedef struct auto_global {
    const fc_problem *p;
    int iterations;
    int nncg;   /* its nncg stage ran */
    int mdp_first;   /* ... and was cut for ipm-mdp, which ran next on (M, H) */
} auto_global;

static fc_status auto_solve(const fc_problem *p, const auto_global *g, const fc_options *opt,
                            double *r, double *u, fc_info *info)
{
    const fc_problem *global = g ? g->p : NULL;
    int m = fc_problem_m(p);
    auto_run a;
    memset(&a, 0, sizeof a);
    a.p = p;
    a.global = global;
    a.opt = opt;
    a.u = u;
    fc_clock_start(&a.clk, opt);
    double *best = fc_dup(r, (size_t)m);
    if (!best) {
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    if (!fc_all_finite((size_t)m, best)) memset(best, 0, (size_t)m * sizeof *best);
    fc_stages_init(&a.st, p, opt, &a.clk, info, best);
    a.st.global = global;
    a.st.iterations = g ? g->iterations : 0;
    a.nncg_ran = g && g->nncg;
    a.mdp_first = g && g->mdp_first;
    /* the initial guess counts as an iterate: nothing worse is returned,
     * and a guess that solves the problem at once */
    a.st.best_err = fc_problem_error(p, best, u);
    if (!(a.st.best_err < INFINITY)) a.st.best_err = INFINITY;
    double b = coupling(p);
    if (opt->verbose >= 1 && opt->log) log_analysis(p, opt, b);
    if (p->d == 3) cost_from_coupling(&a, b);
    if (p->d == 2) {
        a.lemke_sweeps = p->nc * fmax(1.0, FC_AUTO_LEMKE_PIVOT * p->nc);
        fc_log(opt, 1, "auto: Lemke's predicted cost %.0f sweeps", a.lemke_sweeps);
    }
    const size_t nplan = sizeof plan / sizeof *plan;
    for (size_t k = 0; k < nplan && a.st.best_err > opt->tolerance; k++) run_step(&a, &plan[k], r, u);
    /* With no iteration cap (no --max-iter) and time left, the rows from
     * admm to nsgs's plateau run again from the best iterate while a round
     * gains 10%: auto uses the time it is given (the rows from NSGS from
     * r = 0 on, and Lemke, last, are not repeated: the same sweeps and
     * pivots again). */
    size_t tail = 0, tail_end = 0;
    while (tail < nplan && strcmp(plan[tail].solver, "admm")) tail++;
    while (tail_end < nplan && !(plan[tail_end].label && !strcmp(plan[tail_end].label, "nsgs, cold")))
        tail_end++;
    int unlimited = opt->max_iter == INT_MAX && opt->time_limit > 0;
    for (double round = INFINITY; unlimited && a.st.best_err > opt->tolerance && a.st.best_err < 0.9 * round &&
                                  !a.stopped && !fc_clock_expired(&a.clk);) {
        round = a.st.best_err;
        for (size_t k = tail; k < tail_end && a.st.best_err > opt->tolerance; k++)
            run_step(&a, &plan[k], r, u);
    }
    int done = a.st.best_err <= opt->tolerance;
    memcpy(r, best, (size_t)m * sizeof *r);
    double err = fc_problem_error(p, r, u);
    free(best);
    info->iterations = a.st.iterations;
    info->residual = err;
    fc_status st = done ? FC_CONVERGED
                 : (opt->time_limit > 0 && fc_clock_expired(&a.clk)) ? FC_TIME_LIMIT
                 : unlimited ? FC_STALLED : FC_MAX_ITER;
    if (!fc_all_finite((size_t)m, r)) st = FC_DIVERGED;
    if (!done)
        snprintf(info->message, sizeof info->message, "%s%d stages, best error %.3e",
                 a.stopped ? "stopped by the progress callback; " : "", info->nstages, err);
    info->status = st;
    return st;
}

fc_status fc_auto_solve(const fc_problem *p, const fc_options *opt, double *r,
                        double *u, fc_info *info)
{
    return auto_solve(p, NULL, opt, r, u, info);
}

static fc_status auto_reduced(const fc_problem *loc, const fc_options *opt, double *r, double *u,
                              fc_info *info, void *global)
{
    return auto_solve(loc, global, opt, r, u, info);
}

/* x is all zeros (a cold start). */
static int all_zero(size_t n, const double *x)
{
    for (size_t i = 0; i < n; i++)
        if (x[i] != 0.0) return 0;
    return 1;
}

/* The nncg stage of a global problem (p's M block diagonal), watched like
 * NSGS's d = 2 stage; r from the caller's guess to nncg's best iterate
 * (the guess included).  Its status; a->stopped when the caller's
 * callback said stop. */
static fc_status nncg_stage(auto_run *a, const fc_problem *p, const fc_options *opt, double *r,
                            double *u, double *v, fc_info *info)
{
    fc_stages_init(&a->st, p, opt, &a->clk, info, NULL);
    a->p = p;
    a->opt = opt;
    fc_options o = fc_stage_options(&a->st, budget_nsgs(a));
    watched_nncg(a, &o);
    const fc_solver *mdp = fc_solver_find("ipm-mdp");   /* tight: weighed against ipm-mdp's direct form */
    if (p->d == 3 && opt->tolerance < FC_AUTO_NNCG_LOOSE_TOL && mdp && mdp->solve_direct && mdp->direct_contacts > 0 &&
        p->nc >= mdp->direct_contacts && fc_matrix_asymmetry(p->M) <= FC_IPM_M_SYMMETRIC)
        a->mdp_global = p;
    if (a->mdp_global && all_zero((size_t)fc_problem_m(p), r)) a->mdp_judge = FC_AUTO_MDP_COLD_JUDGE;
    o.progress = progress;
    o.progress_user = a;
    fc_info sub;
    memset(&sub, 0, sizeof sub);
    double t0 = fc_now();
    fc_status st = fc_nncg_solve_global(p, &o, r, u, v, &sub);
    double seconds = fc_now() - t0;
    fc_info_add_stage(info, "nncg", st, sub.iterations, sub.residual, seconds);
    fc_log(opt, 1, "stage nncg: %s after %d iterations, error %.3e, %.3f s", fc_status_name(st),
           sub.iterations, sub.residual, seconds);
    info->iterations = sub.iterations;
    info->residual = sub.residual;
    if (st != FC_CONVERGED)
        snprintf(info->message, sizeof info->message, "nncg: %.200s", sub.message);
    return st;
}

/* A global problem's error: the SPEC measure and the dynamics residual. */
static double global_error(const fc_problem *p, const double *r, const double *u, const double *v)
{
    return fmax(fc_error_measure(p->d, p->nc, p->mu, p->mu_r, p->w, r, u, NULL), fc_dynamics_residual(p, r, v));
}

/* ipm-mdp's direct form on the global problem p, cold, after the nncg
 * stage was cut for it: FC_CONVERGED (by global_error), or FC_MAX_ITER
 * with r, u, v ipm-mdp's iterate when better, else back to nncg's best
 * (the plan on the reduction goes on from there). */
static fc_status mdp_stage(auto_run *a, const fc_problem *p, const fc_options *opt, double *r,
                           double *u, double *v, fc_info *info)
{
    const fc_solver *mdp = fc_solver_find("ipm-mdp");
    size_t m = (size_t)fc_problem_m(p), n = (size_t)p->n;
    double *keep = fc_calloc(2 * m + n + 1, sizeof *keep);
    int budget = opt->max_iter - info->iterations;
    if (!keep || budget <= 0 || fc_clock_expired(&a->clk)) {
        free(keep);
        return FC_MAX_ITER;
    }
    memcpy(keep, r, m * sizeof *r);
    memcpy(keep + m, u, m * sizeof *u);
    memcpy(keep + 2 * m, v, n * sizeof *v);
    double kept = global_error(p, r, u, v);
    fc_options o = fc_stage_options(&a->st, budget < FC_AUTO_MDP_MAX_ITER ? budget : FC_AUTO_MDP_MAX_ITER);
    fc_info sub;
    memset(&sub, 0, sizeof sub);
    memset(r, 0, m * sizeof *r);
    double t0 = fc_now();
    fc_status st = mdp->solve_direct(p, &o, r, u, v, &sub);
    double err = global_error(p, r, u, v);
    double seconds = fc_now() - t0;
    fc_info_add_stage(info, mdp->name, st, sub.iterations, err, seconds);
    fc_log(opt, 1, "stage %s: %s after %d iterations, error %.3e, %.3f s", mdp->name, fc_status_name(st),
           sub.iterations, err, seconds);
    info->iterations += sub.iterations;
    if (err <= opt->tolerance || err < kept) {   /* converged, or the better iterate */
        info->residual = err;
        if (err <= opt->tolerance) info->message[0] = 0;
        free(keep);
        return err <= opt->tolerance ? FC_CONVERGED : FC_MAX_ITER;
    }
    memcpy(r, keep, m * sizeof *r);
    memcpy(u, keep + m, m * sizeof *u);
    memcpy(v, keep + 2 * m, n * sizeof *v);
    free(keep);
    return FC_MAX_ITER;   /* whatever ipm-mdp's end (an error too), the plan goes on */
}

/* A global problem: with friction and a block-diagonal M (d = 2, 3),
 * nncg on (M, H) first (without friction the plan's gipm is direct:
 * docs/auto-measurements.md#second-nsgs); then auto's plan on its reduction, from nncg's best iterate; the
 * steps whose solver has a direct entry (solve_direct) run it on (M, H)
 * from its size on. */
fc_status fc_auto_solve_global(const fc_problem *p, const fc_options *opt, double *r, double *u,
                               double *v, fc_info *info)
{
    auto_run a;
    memset(&a, 0, sizeof a);
    fc_clock_start(&a.clk, opt);
    auto_global g = {p, 0, 0, 0};
    if ((p->d == 2 || p->d == 3) && fc_problem_has_friction(p) && fc_nncg_velocity_form(p)) {
        fc_status st = nncg_stage(&a, p, opt, r, u, v, info);
        g.nncg = 1;
        g.mdp_first = a.mdp_first;
        a.nncg = 0;
        if (a.mdp_first && st != FC_CONVERGED && st != FC_STATUS_ERROR && !a.stopped)
            st = mdp_stage(&a, p, opt, r, u, v, info);
        g.iterations = info->iterations;
        if (st == FC_CONVERGED || st == FC_STATUS_ERROR || a.stopped || fc_clock_expired(&a.clk) ||
            g.iterations >= opt->max_iter) {
            if (st != FC_CONVERGED && st != FC_STATUS_ERROR)
                st = fc_clock_expired(&a.clk) ? FC_TIME_LIMIT : FC_MAX_ITER;
            return info->status = st;
        }
    }
    fc_error err;
    fc_status st;
    if (fc_solve_reduced(p, opt, &a.clk, FC_V_M_FACTOR, auto_reduced, &g, r, u, v, info, &st,
                         &err) != FC_OK) {
        snprintf(info->message, sizeof info->message, "%.200s", err.msg);
        return FC_STATUS_ERROR;
    }
    return st;
}
