/* Nonsmooth Gauss-Seidel (NSGS) over contacts, and its over-relaxed
 * variant PSOR.  For each contact a in turn:
 *   q'_a = q_a + sum_{b != a} W_ab r_b,
 *   r_a  <- omega * solve_one_contact(W_aa, q'_a) + (1 - omega) * r_a.
 * The SPEC error costs a product with W, as much as a sweep: it is
 * computed every nsgs.error_every sweeps when > 0, else when predicted to
 * have reached the tolerance (the error at the last check over the change
 * of r then, times the change now) and at least every FC_NSGS_MEASURE_GAP
 * sweeps.  The progress callback is called at each check.
 *
 * With nsgs.anderson > 0 the sweeps are Anderson-accelerated by
 * fo_accel_apply (core/firstorder.c), the projection methods' safeguards:
 * an extrapolation is dropped when the fixed-point residual grows by more
 * than anderson_growth, and plain sweeps run alone for a while when the
 * error has not halved in anderson_window sweeps (docs/measurements.md).
 *
 * All workspace is allocated once, before the sweeps. */
#include "internal.h"
#include "cone/cone.h"
#include "matrix/bsr.h"
#include "measure/measure.h"
#include "core/firstorder.h"

#include <stdio.h>

/* PSOR's relaxation when opt->nsgs.omega is left at its default 1.0. */
#define FC_PSOR_DEFAULT_OMEGA 1.5
/* Most sweeps between two measurements of the error (adaptive mode). */
#define FC_NSGS_MEASURE_GAP 8
/* Measure when the predicted error is below this many times the tolerance. */
#define FC_NSGS_PREDICT_MARGIN 2.0

/* The solver's workspace. */
typedef struct nsgs_work {
    fc_matrix *Wb;      /* W as d x d block-CSR (NULL when W already is) */
    fc_local *loc;      /* nc one-contact data (diagonal blocks)         */
    int *order;         /* nc contact order                              */
    double *rlast;      /* m: last finite iterate                        */
    double *x;          /* m: the point the current sweep started from,
                           when not accelerated (else aa.x, saved by
                           fo_accel_save: one copy per sweep, not two)   */
    fo_accel aa;        /* acceleration (aa.on == 0 when off)            */
} nsgs_work;

static void work_free(nsgs_work *w)
{
    fc_matrix_free(w->Wb);
    free(w->loc);
    free(w->order);
    free(w->rlast);
    free(w->x);
    fo_accel_free(&w->aa);
}

/* xorshift64* step of a local PRNG state. */
static unsigned long long prng_next(unsigned long long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

/* Fisher-Yates shuffle of order[0..n-1]. */
static void shuffle(int n, int *order, unsigned long long *s)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(prng_next(s) % (unsigned long long)(i + 1));
        int t = order[i]; order[i] = order[j]; order[j] = t;
    }
}

/* One Gauss-Seidel sweep over contacts of dimension d (a constant in the
 * inlined copies below, for block-CSR W with d x d blocks when bsr);
 * returns the number of contacts whose local solve missed the local
 * tolerance. */
static inline int sweep_d(const fc_problem *p, const fc_matrix *W, const nsgs_work *w,
                          const fc_local_params *par, double omega, double *r, int d, int bsr)
{
    int missed = 0;
    for (int i = 0; i < p->nc; i++) {
        int a = w->order[i];
        double qa[5], ra[5], *rp = r + (size_t)d * a;
        if (bsr) bsr_row_dot(W, d, a, r, 1, qa);
        else fc_matrix_block_row_dot(W, a, d, r, 1, qa);
        for (int k = 0; k < d; k++) {
            qa[k] += p->q[(size_t)d * a + k];
            ra[k] = rp[k];
        }
        double e = fc_local_solve(&w->loc[a], qa, par, ra);
        missed += !(e <= par->tol);
        if (omega == 1.0) {
            for (int k = 0; k < d; k++) rp[k] = ra[k];
        } else {
            for (int k = 0; k < d; k++) rp[k] = omega * ra[k] + (1.0 - omega) * rp[k];
        }
    }
    return missed;
}

static int sweep(const fc_problem *p, const fc_matrix *W, const nsgs_work *w,
                 const fc_local_params *par, double omega, double *r)
{
    int bsr = W->kind == FC_MAT_BSR && W->bs == p->d;
    if (bsr && p->d == 3) return sweep_d(p, W, w, par, omega, r, 3, 1);
    if (bsr && p->d == 2) return sweep_d(p, W, w, par, omega, r, 2, 1);
    return sweep_d(p, W, w, par, omega, r, p->d, 0);
}

/* The common driver of nsgs and psor with relaxation omega. */
static fc_status nsgs_run(const fc_problem *p, const fc_options *opt, double omega,
                          double *r, double *u, fc_info *info)
{
    int d = p->d, nc = p->nc, m = d * nc;
    const fc_nsgs_options *o = &opt->nsgs;
    nsgs_work w = {0};
    fc_clock clk;
    fc_clock_start(&clk, opt);
    const fc_matrix *W = p->W;
    if (!(W->kind == FC_MAT_BSR && W->bs == d)) {
        w.Wb = fc_matrix_to_bsr(W, d);
        if (w.Wb) W = w.Wb;
    }
    w.loc = fc_calloc((size_t)nc, sizeof *w.loc);
    w.order = fc_calloc((size_t)nc, sizeof *w.order);
    w.rlast = fc_calloc((size_t)m, sizeof *w.rlast);
    int oom = fo_accel_init_nsgs(&w.aa, o, m);
    if (!w.aa.on) w.x = fc_calloc((size_t)m, sizeof *w.x);
    const double *x0 = w.aa.on ? w.aa.x : w.x;
    if (!w.loc || !w.order || !w.rlast || oom || !x0) {
        work_free(&w);
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    for (int a = 0; a < nc; a++) {
        double blk[25];
        fc_matrix_diag_block(W, a, d, blk);
        fc_local_setup(&w.loc[a], d, blk, p->mu[a], p->mu_r ? p->mu_r[a] : 0.0);
        w.order[a] = a;
    }
    fc_local_params par = {o->local, o->local_tol > 0 ? o->local_tol : 1e-14,
                           o->local_max_iter > 0 ? o->local_max_iter : 20};
    int every = o->error_every;   /* 0: adaptive */
    unsigned long long seed = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)o->seed;
    if (!seed) seed = 1;
    if (!fc_all_finite((size_t)m, r)) memset(r, 0, (size_t)m * sizeof *r);
    memcpy(w.rlast, r, (size_t)m * sizeof *r);

    fc_status st = FC_MAX_ITER;
    double err = INFINITY;
    int it = 0, missed = 0, checked_at = 0;
    double ratio = 0.0;            /* error / relative change, at the last measure */
    while (1) {
        if (it >= opt->max_iter) {
            snprintf(info->message, sizeof info->message,
                     "%d sweeps done, error %.3e > %.1e", it, err, opt->tolerance);
            break;
        }
        if (fc_clock_expired(&clk)) {
            st = FC_TIME_LIMIT;
            snprintf(info->message, sizeof info->message,
                     "time limit after %d sweeps, error %.3e", it, err);
            break;
        }
        if (o->shuffle) shuffle(nc, w.order, &seed);
        if (w.aa.on) fo_accel_save(&w.aa, r, m);
        else memcpy(w.x, r, (size_t)m * sizeof *r);
        missed = sweep(p, W, &w, &par, omega, r);
        it++;
        double fres = 0.0, rn = 0.0;   /* ||G(x) - x||, ||G(x)|| */
        for (int i = 0; i < m; i++) {
            fres += (r[i] - x0[i]) * (r[i] - x0[i]);
            rn += r[i] * r[i];
        }
        /* finite sums: a finite r (the full scan only when they overflow) */
        if (!(isfinite(fres) && isfinite(rn)) && !fc_all_finite((size_t)m, r)) {
            memcpy(r, w.rlast, (size_t)m * sizeof *r);
            st = FC_DIVERGED;
            snprintf(info->message, sizeof info->message,
                     "non-finite iterate at sweep %d; last finite iterate kept", it);
            break;
        }
        memcpy(w.rlast, r, (size_t)m * sizeof *r);
        fres = sqrt(fres);
        double change = fres / fmax(sqrt(rn), 1e-300);
        int due = every > 0 ? it % every == 0
                            : it == 1 || it - checked_at >= FC_NSGS_MEASURE_GAP ||
                              !(ratio * change > FC_NSGS_PREDICT_MARGIN * opt->tolerance);
        if (due || it >= opt->max_iter) {
            fc_affine(W, r, p->q, u);
            err = fc_error_local(p, r, u);
            checked_at = it;
            ratio = change > 0.0 ? err / change : 0.0;
            fc_log(opt, 1, "nsgs sweep %d error %.3e (%d local misses)", it, err, missed);
            if (err <= opt->tolerance) { st = FC_CONVERGED; break; }
            if (opt->progress && opt->progress(opt->progress_user, it, err)) {
                snprintf(info->message, sizeof info->message,
                         "stopped by the progress callback at sweep %d", it);
                break;
            }
        }
        fo_accel_apply(&w.aa, p, it - 1, err, NULL, r);   /* err: the last computed */
    }
    if (w.aa.extrapolated) memcpy(r, w.rlast, (size_t)m * sizeof *r); /* a checked iterate */
    if (w.aa.on) fc_log(opt, 1, "nsgs: %d accelerated sweeps accepted", w.aa.accepted);
    fc_affine(W, r, p->q, u);
    info->iterations = it;
    info->residual = fc_error_local(p, r, u);
    fc_log(opt, 0, "%s: %s after %d sweeps, error %.3e, %.3f s",
           omega == 1.0 ? "nsgs" : "psor", fc_status_name(st), it, info->residual,
           fc_clock_elapsed(&clk));
    info->status = st;
    work_free(&w);
    return st;
}

fc_status fc_nsgs_solve(const fc_problem *p, const fc_options *opt, double *r,
                        double *u, fc_info *info)
{
    return nsgs_run(p, opt, opt->nsgs.omega > 0 ? opt->nsgs.omega : 1.0, r, u, info);
}

fc_status fc_psor_solve(const fc_problem *p, const fc_options *opt, double *r,
                        double *u, fc_info *info)
{
    double omega = opt->nsgs.omega;
    if (!(omega > 0.0 && omega < 2.0) || omega == 1.0) omega = FC_PSOR_DEFAULT_OMEGA;
    return nsgs_run(p, opt, omega, r, u, info);
}
