/* nncg: nonsmooth nonlinear conjugate gradient (Silcowitz, Niebe and
 * Erleben 2010) over Gauss-Seidel sweeps, for large dense packings.
 * One iteration: x+ = sweep(x); g = x+ - x; beta = ||g||^2 / ||g_prev||^2;
 * beta > nncg.restart restarts (p = g), else x+ += beta p and p = beta p + g
 * (the paper restarts above 1; 1.5 halves the sweeps on the piles,
 * docs/granular-piles.md).
 *
 * On a global problem whose M is block diagonal with small blocks (rigid
 * bodies), the sweeps run on the velocity form as nsgs-v does, with
 * G = M^-1 H formed block by block (no factorisation, no W), and the
 * contacts are ordered along the load path: breadth first over the
 * contact graph from the supports (contacts touching one body only, i.e.
 * the fixed obstacles), nncg.order.  Any other global problem is reduced
 * to W and solved in the local form, where the order is the file order.
 * With 2 threads or more (nncg.order 0 from NNCG_PAR_MIN contacts, 4, 5)
 * the velocity form's sweeps are block-parallel as nsgs-v's stretches
 * (docs/solvers.md#the-stretches): the contacts cut into one part per
 * thread, swept at once in file order, then the interface (contacts
 * touching a body of another part) on one thread; the parts are
 * contiguous stretches of the file order (4) or slabs of breadth-first
 * levels of the body graph (5, matrix/colour.c fc_level_parts).  The
 * result depends on the thread count only; at one thread it is the file
 * order's.
 * nncg.newton / nncg.newton_near: Newton-Krylov steps between the sweeps
 * (nncg_newton.c; off by default, measured even with the sweeps).
 * nncg.focus: passes, after each sweep, over the contacts whose status
 * changed in it and their neighbours (nncg_focus.c; off by default).
 * nncg.cluster: exact solves of clusters of contacts around the largest
 * errors at the measurements (nncg_cluster.c), within a budget of counted
 * operations against the sweeps'.
 * docs/granular-piles.md: the approaches tried and the choice. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "internal.h"
#include "cone/cone.h"
#include "matrix/bsr.h"
#include "problem/reduce.h"
#include "core/firstorder.h"
#include "solvers/nncg.h"
#include "solvers/nncg_newton.h"
#include "solvers/nncg_focus.h"
#include "solvers/nncg_cluster.h"
#include "solvers/velocity_contact.h"
#include "matrix/blocks.h"
#include "matrix/colour.h"

#include <limits.h>
#include <stdio.h>
#include <time.h>

/* Largest diagonal block of M inverted densely (6: a rigid body). */
#define NNCG_MAX_BLOCK 12
/* Most blocks of M one column of H touches (else: the reduced form). */
#define NNCG_ROW_BLOCKS 64
/* nncg.order's values (docs/options.md). */
enum { NNCG_AUTO = 0, NNCG_LOAD_UP = 1, NNCG_LOAD_DOWN = 2, NNCG_FILE = 3, NNCG_STRETCHES = 4,
       NNCG_SLABS = 5 };
/* nncg.order 0 takes the slabs from 2 threads and this many contacts
 * (docs/granular-piles.md, twenty-first session). */
#define NNCG_PAR_MIN 2000
/* A contact's weight in the slabs' balance when the one-contact solver
 * runs on it at the start (1 when the closed-form test decides): about
 * the ratio of the two costs in a sweep (docs/granular-piles.md). */
#define NNCG_SOLVE_WEIGHT 12
/* Most sweeps between two measurements of the error. */
#define NNCG_MEASURE_GAP 8
/* Measure when the predicted error is below this many times the tolerance. */
#define NNCG_PREDICT_MARGIN 2.0
/* Newton-Krylov steps in a row at most, while each is a full step that
 * cuts ||F|| below this ratio and lowers the error (the sweeps between
 * two steps undo part of a step's gain: docs/granular-piles.md). */
#define NNCG_NEWTON_CHAIN 10
#define NNCG_NEWTON_CHAIN_RATIO 0.7
/* A Newton-Krylov step cutting ||F|| by less than this ratio is weak: the
 * gap to the next one doubles, as after a rejected step (steps every
 * sweep or two with short line-search steps kept the conjugate step
 * from ever building up on pile300-step30). */
#define NNCG_NEWTON_WEAK 0.9
/* nncg.cluster: a cluster's solve stops after this many steps at most. */
#define NNCG_CLUSTER_STEPS 30

typedef struct nncg_work {
    int d, nc, m, n;
    /* velocity form (global): Ht rows = contacts' directions, Gt rows = M^-1 H columns */
    fc_matrix *Ht, *Gt;
    fc_vsweep vs;           /* the sweep's data per contact (nncg.sweep_data 1, 2) */
    const double *w;
    double *v, *vp, *vx;    /* n: velocity, G p, v at the sweep's start */
    /* local form */
    const fc_matrix *W;
    fc_matrix *Wb;
    const double *q;
    fc_local *loc;
    int *order;
    fc_colouring col;          /* the parts and interface (col.stretches > 0) */
    double *part_cpu;          /* stretches + 1: each part's thread CPU seconds, then the interface's */
    int *solves;               /* nc: the sweeps in which each contact ran the one-contact solver */
    int *body;                 /* 2 nc: the contacts' bodies (nncg.order, nncg.newton_body) */
    double *x, *pdir, *best;   /* m */
    double *vn;                /* n: G x in the Newton step's products with W */
    fc_nk nk;                  /* the Newton-Krylov step (nncg.newton > 0) */
    fc_focus focus;            /* nncg.focus's status and lists */
    fc_cluster cl;             /* nncg.cluster's workspace */
} nncg_work;

static void work_free(nncg_work *w)
{
    fc_matrix_free(w->Ht);
    fc_matrix_free(w->Gt);
    fc_vsweep_free(&w->vs);
    fc_matrix_free(w->Wb);
    free(w->v); free(w->vp); free(w->vx);
    free(w->loc); free(w->order); free(w->body);
    fc_colouring_free(&w->col);
    free(w->part_cpu);
    free(w->solves);
    free(w->x); free(w->pdir); free(w->best);
    free(w->vn);
    fc_focus_free(&w->focus);
    fc_cluster_free(&w->cl);
    fc_nk_free(&w->nk);
}

/* One contact in the velocity form (velocity_contact.c): qa = H_a^T v + w_a - W_aa r_a. */
static void contact_v(nncg_work *w, const fc_local_params *par, int a, int next, double *r)
{
    int d = w->d;
    if (w->vs.val) {
        int solved = fc_vsweep_contact(&w->vs, a, next, par, w->w + (size_t)d * a, r + (size_t)d * a, w->v);
        if (w->solves) w->solves[a] += solved;
    } else
        fc_velocity_contact(&w->loc[a], par, w->Ht, w->Gt, d * a, w->w + (size_t)d * a, r + (size_t)d * a, w->v);
}

/* One contact in the local form: qa = sum_{b != a} W_ab r_b + q_a. */
static void contact_w(nncg_work *w, const fc_local_params *par, int a, double *r)
{
    int d = w->d;
    double qa[5] = {0}, *rp = r + (size_t)d * a;
    int bsr = w->W->kind == FC_MAT_BSR && w->W->bs == d;
    if (bsr && d == 3) bsr_row_dot(w->W, 3, a, r, 1, qa);
    else if (bsr && d == 2) bsr_row_dot(w->W, 2, a, r, 1, qa);
    else fc_matrix_block_row_dot(w->W, a, d, r, 1, qa);
    for (int k = 0; k < d; k++) qa[k] += w->q[(size_t)d * a + k];
    fc_local_solve(&w->loc[a], qa, par, rp);
}

/* The order nncg.order takes on nc contacts (velocity form): the
 * parallel ones need 2 threads (at one: the file order). */
static int resolve_order(int order, int nc)
{
    if (order == NNCG_AUTO) order = fc_threads() >= 2 && nc >= NNCG_PAR_MIN ? NNCG_SLABS : NNCG_FILE;
    if ((order == NNCG_STRETCHES || order == NNCG_SLABS) && fc_threads() < 2) return NNCG_FILE;
    return order;
}

/* The calling thread's CPU seconds: the parts' times on a loaded machine,
 * where the wall clock says little (the log's critical path). */
static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Members lo .. hi-1 of the parts' order, forward or backward. */
static void sweep_members(nncg_work *w, const fc_local_params *par, const int *mem, int lo, int hi,
                          int backward, double *r)
{
    if (!backward)
        for (int i = lo; i < hi; i++) contact_v(w, par, mem[i], i + 1 < hi ? mem[i + 1] : -1, r);
    else
        for (int i = hi - 1; i >= lo; i--) contact_v(w, par, mem[i], i > lo ? mem[i - 1] : -1, r);
}

/* One sweep of the parts at once, phase by phase, then the interface
 * (backward: the reverse).  The parts of one phase touch no common body,
 * so no two threads read or write one entry of v or r. */
static void sweep_parts(nncg_work *w, const fc_local_params *par, int backward, double *r)
{
    const fc_colouring *c = &w->col;
    int S = c->stretches, nt = fc_threads(), P = fc_colouring_phases(c), per = fc_phase_groups(c);
    double t0 = thread_cpu();
    if (backward) sweep_members(w, par, c->member, c->start[S], c->start[S + 1], 1, r);
    double ti = thread_cpu() - t0;
#pragma omp parallel num_threads(nt) if (nt > 1)
    for (int k = 0; k < P; k++) {
        int ph = backward ? P - 1 - k : k;
#pragma omp for schedule(static, 1)
        for (int s = ph * per; s < ph * per + per; s++) {
            double ts = thread_cpu();
            sweep_members(w, par, c->member, c->start[s], c->start[s + 1], backward, r);
            w->part_cpu[s] += thread_cpu() - ts;
        }
    }
    t0 = thread_cpu();
    if (!backward) sweep_members(w, par, c->member, c->start[S], c->start[S + 1], 0, r);
    w->part_cpu[S] += ti + thread_cpu() - t0;
}

/* One sweep in w->order (forward, then backward when symmetric). */
static void sweep(nncg_work *w, const fc_local_params *par, int symmetric, double *r)
{
    if (w->col.stretches) {
        sweep_parts(w, par, 0, r);
        if (symmetric) sweep_parts(w, par, 1, r);
        return;
    }
    for (int i = 0; i < w->nc; i++) {
        if (w->Gt) contact_v(w, par, w->order[i], i + 1 < w->nc ? w->order[i + 1] : -1, r);
        else contact_w(w, par, w->order[i], r);
    }
    if (!symmetric) return;
    for (int i = w->nc - 1; i >= 0; i--) {
        if (w->Gt) contact_v(w, par, w->order[i], i > 0 ? w->order[i - 1] : -1, r);
        else contact_w(w, par, w->order[i], r);
    }
}

/* nncg.focus: passes over the k contacts list[] (file order). */
static void focus_passes(nncg_work *w, const fc_local_params *par, int passes, const int *list, int k,
                         double *r)
{
    for (int s = 0; s < passes; s++)
        for (int i = 0; i < k; i++) {
            if (w->Gt) contact_v(w, par, list[i], i + 1 < k ? list[i + 1] : -1, r);
            else contact_w(w, par, list[i], r);
        }
}

/* The error at r: u = H^T v + w (velocity form) or W r + q. */
static double measure(const fc_problem *p, nncg_work *w, const double *r, double *u)
{
    if (w->Gt) {
        FC_PAR_FOR(w->m, , for (int i = 0; i < w->m; i++) { u[i] = csr_row_dot(w->Ht, i, w->v) + w->w[i]; });
    } else {
        fc_affine(w->W, r, w->q, u);
    }
    return fc_error_local(p, r, u);
}

/* v = M^-1 (H r + f) = G r + M^-1 f, with minvf = M^-1 f. */
static void velocity(const nncg_work *w, const double *r, const double *minvf, double *v)
{
    memcpy(v, minvf, (size_t)w->n * sizeof *v);
    for (int j = 0; j < w->m; j++) {
        if (r[j] == 0.0) continue;
        for (int t = w->Gt->p[j]; t < w->Gt->p[j + 1]; t++) v[w->Gt->j[t]] += r[j] * w->Gt->x[t];
    }
}

/* y = W x: H^T (M^-1 H x) on the velocity form, else the product with W. */
static void w_apply(void *ctx, const double *x, double *y)
{
    nncg_work *w = ctx;
    if (!w->Gt) {
        fc_matrix_gemv(w->W, 1.0, x, 0.0, y);
        return;
    }
    memset(w->vn, 0, (size_t)w->n * sizeof *w->vn);
    for (int j = 0; j < w->m; j++) {
        if (x[j] == 0.0) continue;
        for (int t = w->Gt->p[j]; t < w->Gt->p[j + 1]; t++) w->vn[w->Gt->j[t]] += x[j] * w->Gt->x[t];
    }
    for (int i = 0; i < w->m; i++) y[i] = csr_row_dot(w->Ht, i, w->vn);
}

/* gg = ||r - x||^2 and rn = ||r||^2 in chunks (the same sums for any
 * thread count). */
static void change_norms(int m, const double *r, const double *x, double *gg, double *rn)
{
    fc_chunks c = fc_chunks_of(m, FC_CHUNK_MIN);
    double pg[FC_CHUNKS_MAX], pr[FC_CHUNKS_MAX];
    FC_PAR_FOR(m, , for (int k = 0; k < c.count; k++) {
        double sg = 0.0, sr = 0.0;
        for (int i = k * c.len, e = fc_chunk_end(c, k, m); i < e; i++) {
            double g = r[i] - x[i];
            sg += g * g;
            sr += r[i] * r[i];
        }
        pg[k] = sg;
        pr[k] = sr;
    });
    *gg = fc_chunks_sum(c, pg);
    *rn = fc_chunks_sum(c, pr);
}

/* The NNCG iterations on the prepared work (w->order set); r in/out. */
static fc_status iterate(const fc_problem *p, const fc_options *opt, const fc_clock *clk,
                         nncg_work *w, double *r, double *u, fc_info *info)
{
    const fc_nncg_options *o = &opt->nncg;
    int m = w->m, n = w->n;
    fc_local_params par = {o->local, o->local_tol > 0 ? o->local_tol : 1e-14,
                           o->local_max_iter > 0 ? o->local_max_iter : 20};
    fc_status st = FC_MAX_ITER;
    double err = INFINITY, best_err = INFINITY, gg_prev = 0.0, ratio = 0.0;
    int it = 0, checked_at = 0, restarts = 0;
    int newton = (o->newton > 0 || o->newton_near > 0) && (w->d == 2 || w->d == 3);
    int next_newton = o->newton > 0 ? o->newton : INT_MAX, last_newton = -INT_MAX / 2;
    int gap = o->newton_gap;
    memset(w->pdir, 0, (size_t)m * sizeof *w->pdir);
    if (newton && (fc_nk_init(&w->nk, w->d, w->nc, o->krylov, o->newton_form, w->loc, w->Ht, w->Gt,
                               n, o->newton_gs) ||
                   (w->Gt && !(w->vn = fc_calloc((size_t)n + 1, sizeof *w->vn))) ||
                   (o->newton_body && !o->newton_gs && w->Gt && w->body &&
                    fc_nk_init_bodies(&w->nk, w->body, n, w->Ht, w->Gt)))) {
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    w->nk.reg = o->newton_reg;
    int focus = o->focus > 0 && (w->d == 2 || w->d == 3);
    long focused = 0;
    if (focus && fc_focus_init(&w->focus, w->d, w->nc, w->Gt ? w->body : NULL, n)) {
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    if (focus) fc_focus_list(&w->focus, p->mu, r, 1);
    /* nncg.cluster: the velocity form's rows and bodies are needed */
    int cluster = o->cluster > 0 && w->Gt && w->body && (w->d == 2 || w->d == 3);
    int last_cluster = 0, cluster_passes = 0;
    double prev_err = INFINITY;   /* the measurement before the last (nncg.cluster_rise) */
    long cluster_moved = 0;
    /* nncg.cluster_budget: a sweep's operations (a row of Ht and a row of
     * Gt per unknown, twice); a pass's, the last one's, or before any ten
     * Levenberg-Marquardt steps on each cluster (J^T J and its factor) */
    double sweep_work = cluster ? 2.0 * ((double)w->Ht->nnz + (double)w->Gt->nnz) : 0.0;
    double cm = (double)w->d * (o->cluster < w->nc ? o->cluster : w->nc);
    double pass_work = o->cluster_count * 10.0 * (4.0 / 3.0) * cm * cm * cm;
    if (cluster && fc_cluster_init(&w->cl, w->d, w->nc, n, o->cluster, w->body, n)) {
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    fo_accel aa = {0};
    if (o->accel == 2 && fo_accel_init_nsgs(&aa, &opt->nsgs, m)) {
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    if (w->Gt) memset(w->vp, 0, (size_t)n * sizeof *w->vp);
    memcpy(w->best, r, (size_t)m * sizeof *r);
    for (int i = 0; i < m; i++)   /* a warm start is an iterate: it may solve the problem */
        if (r[i] != 0.0) {
            err = best_err = measure(p, w, r, u);
            if (err <= opt->tolerance) st = FC_CONVERGED;
            break;
        }
    while (st != FC_CONVERGED) {
        if (it >= opt->max_iter) {
            snprintf(info->message, sizeof info->message,
                     "%d sweeps done, error %.3e > %.1e", it, best_err, opt->tolerance);
            break;
        }
        if (fc_clock_expired(clk)) {
            st = FC_TIME_LIMIT;
            snprintf(info->message, sizeof info->message,
                     "time limit after %d sweeps, error %.3e", it, best_err);
            break;
        }
        int near = o->newton_near > 0 && err <= o->newton_near * opt->tolerance &&
                   it - last_newton >= o->newton_gap;
        if (newton && (it >= next_newton || near)) {   /* Newton-Krylov steps, then the sweeps restart */
            err = measure(p, w, r, u);   /* u at r (the conjugate step moved r since) */
            int ok, chain = 0;
            double before;
            do {
                ok = fc_nk_step(&w->nk, p, w_apply, w, clk, r, u);
                if (ok && w->Gt)
                    for (int j = 0; j < m; j++) {
                        double dr = w->nk.x[j];
                        if (dr == 0.0) continue;
                        for (int t = w->Gt->p[j]; t < w->Gt->p[j + 1]; t++) w->v[w->Gt->j[t]] += dr * w->Gt->x[t];
                    }
                before = err;
                if (ok) err = fc_error_local(p, r, u);
                fc_log(opt, 1, "nncg sweep %d: Newton-Krylov step %s (%d Krylov iterations in all, eta %.2g, reached %.2g, step %.3g, |F| x %.3g), error %.3e -> %.3e",
                       it, ok ? "taken" : "rejected", w->nk.krylov_its, w->nk.eta, w->nk.lin, w->nk.t,
                       w->nk.fratio, before, err);
                if (err < best_err) {
                    best_err = err;
                    memcpy(w->best, r, (size_t)m * sizeof *r);
                }
            } while (ok && ++chain < NNCG_NEWTON_CHAIN && w->nk.t == 1.0 && err < before &&
                     w->nk.fratio < NNCG_NEWTON_CHAIN_RATIO && err > opt->tolerance &&
                     !fc_clock_expired(clk));
            gap = ok && w->nk.fratio < NNCG_NEWTON_WEAK ? o->newton_gap : 2 * gap;
            if (o->newton > 0) next_newton = it + gap;
            last_newton = it;
            gg_prev = 0.0;
            checked_at = it;
            if (err <= opt->tolerance) { st = FC_CONVERGED; break; }
        }
        fc_copy(m, r, w->x);
        if (aa.on) fo_accel_save(&aa, r, m);
        if (w->Gt) fc_copy(n, w->v, w->vx);
        sweep(w, &par, o->symmetric, r);
        if (focus) {   /* the sweep and the passes are one map for the conjugate step */
            int k = fc_focus_list(&w->focus, p->mu, r, 0);
            focus_passes(w, &par, o->focus, w->focus.list, k, r);
            focused += (long)k * o->focus;
        }
        it++;
        double gg, rn;
        change_norms(m, r, w->x, &gg, &rn);
        if (!(isfinite(gg) && isfinite(rn))) {
            memcpy(r, w->best, (size_t)m * sizeof *r);
            st = FC_DIVERGED;
            snprintf(info->message, sizeof info->message,
                     "non-finite iterate at sweep %d; best iterate kept", it);
            break;
        }
        double change = sqrt(gg) / fmax(sqrt(rn), 1e-300);
        int due = it == 1 || it - checked_at >= NNCG_MEASURE_GAP ||
                  !(ratio * change > NNCG_PREDICT_MARGIN * opt->tolerance);
        if (due || it >= opt->max_iter) {
            prev_err = err;
            err = measure(p, w, r, u);
            checked_at = it;
            ratio = change > 0.0 ? err / change : 0.0;
            if (err < best_err) {
                best_err = err;
                memcpy(w->best, r, (size_t)m * sizeof *r);
            }
            fc_log(opt, 1, "nncg sweep %d error %.3e (%d restarts)", it, err, restarts);
            if (err <= opt->tolerance) { st = FC_CONVERGED; break; }
            if (opt->progress && opt->progress(opt->progress_user, it, err)) {
                snprintf(info->message, sizeof info->message,
                         "stopped by the progress callback at sweep %d", it);
                break;
            }
            if (cluster && it - last_cluster >= o->cluster_gap && (!o->cluster_rise || err > prev_err) &&
                w->cl.work + pass_work <= o->cluster_budget * it * sweep_work) {
                double before = w->cl.work;
                /* the clusters are part of this sweep's map for the conjugate step */
                int moved = fc_cluster_pass(&w->cl, p, w->Ht, w->Gt, w->w, u, o->cluster_count, o->cluster_chains,
                                            o->cluster_tol, NNCG_CLUSTER_STEPS, r, w->v);
                pass_work = w->cl.work - before;
                last_cluster = it;
                cluster_passes++;
                cluster_moved += moved;
                if (moved) change_norms(m, r, w->x, &gg, &rn);
                if (opt->verbose >= 3)   /* the pass's effect on the error: a measurement more */
                    fc_log(opt, 2, "nncg sweep %d: cluster pass, %d contacts moved (%.0f%% of ||e||^2 in the clusters), error %.3e -> %.3e", it,
                           moved, 100.0 * w->cl.share, err, measure(p, w, r, u));
            }
        }
        if (o->accel == 2) {   /* Anderson: r extrapolated, v moved along by G */
            memcpy(w->pdir, r, (size_t)m * sizeof *r);
            if (fo_accel_apply(&aa, p, it - 1, err, NULL, r) && w->Gt)
                for (int j = 0; j < m; j++) {
                    double dr = r[j] - w->pdir[j];
                    if (dr == 0.0) continue;
                    for (int t = w->Gt->p[j]; t < w->Gt->p[j + 1]; t++) w->v[w->Gt->j[t]] += dr * w->Gt->x[t];
                }
            continue;
        }
        /* the conjugate step; g = r - x, G g = v - vx */
        double beta = gg_prev > 0.0 ? gg / gg_prev : INFINITY;
        gg_prev = gg;
        if (o->accel != 1 || beta > o->restart) {
            restarts++;
            double *pd = w->pdir, *vp = w->vp;
            const double *x = w->x, *v = w->v, *vx = w->vx;
            FC_PAR_FOR(m, , for (int i = 0; i < m; i++) { pd[i] = r[i] - x[i]; });
            if (w->Gt) FC_PAR_FOR(n, , for (int i = 0; i < n; i++) { vp[i] = v[i] - vx[i]; });
            continue;
        }
        double *pd = w->pdir, *vp = w->vp, *v = w->v;
        const double *x = w->x, *vx = w->vx;
        FC_PAR_FOR(m, , for (int i = 0; i < m; i++) {
            double g = r[i] - x[i];
            r[i] += beta * pd[i];
            pd[i] = beta * pd[i] + g;
        });
        if (w->Gt)
            FC_PAR_FOR(n, , for (int i = 0; i < n; i++) {
                double gv = v[i] - vx[i];
                v[i] += beta * vp[i];
                vp[i] = beta * vp[i] + gv;
            });
    }
    if (st != FC_CONVERGED && best_err < INFINITY) memcpy(r, w->best, (size_t)m * sizeof *r);
    if (newton)
        fc_log(opt, 0, "nncg: %d Newton-Krylov steps (%d taken), %d Krylov iterations; %d factorisations of %d body blocks",
               w->nk.steps, w->nk.accepted, w->nk.krylov_its, w->nk.refactored, w->nk.nbk);
    if (cluster)
        fc_log(opt, 0, "nncg: %d cluster passes, %ld clusters solved (%ld improved, %ld contacts in all, %ld moved), %ld Levenberg-Marquardt steps, mean step fraction %.2f, operations %.2f of the sweeps'",
               cluster_passes, w->cl.solves, w->cl.improved, w->cl.contacts, cluster_moved, w->cl.newton,
               w->cl.tsum / fmax(1.0, (double)w->cl.improved), w->cl.work / fmax(1.0, it * sweep_work));
    if (focus)
        fc_log(opt, 0, "nncg: %ld contact solves in the focus passes (%.1f sweeps' worth)", focused,
               (double)focused / fmax(1.0, (double)w->nc));
    fo_accel_free(&aa);
    info->iterations = it;
    return st;
}

/* ---- the load-path order ---- */

/* order: contacts by breadth-first level from the supports (contacts of
 * one body) over the graph of contacts sharing a body, file order within
 * a level; reversed when top_down.  body[2a], body[2a+1]: the contact's
 * bodies (-1: none).  Contacts not reached follow, in file order. */
static int load_path_order(int nc, int nb, const int *body, int top_down, int *order)
{
    int *cnt = fc_calloc((size_t)nb + 1, sizeof *cnt);
    int *adj = fc_calloc((size_t)2 * nc + 1, sizeof *adj);
    int *level = fc_calloc((size_t)nc + 1, sizeof *level);
    if (!cnt || !adj || !level) { free(cnt); free(adj); free(level); return 1; }
    fc_body_contacts(nc, nb, body, cnt, adj);
    int head = 0, tail = 0;
    for (int a = 0; a < nc; a++) level[a] = -1;
    for (int a = 0; a < nc; a++)
        if (body[2 * a + 1] < 0) { level[a] = 0; order[tail++] = a; }
    while (head < tail) {
        int a = order[head++];
        for (int s = 0; s < 2; s++) {
            int b = body[2 * a + s];
            if (b < 0) continue;
            for (int k = cnt[b]; k < cnt[b + 1]; k++) {
                int c = adj[k];
                if (level[c] >= 0) continue;
                level[c] = level[a] + 1;
                order[tail++] = c;
            }
        }
    }
    for (int a = 0; a < nc; a++) if (level[a] < 0) order[tail++] = a;
    if (top_down)
        for (int i = 0, j = nc - 1; i < j; i++, j--) { int t = order[i]; order[i] = order[j]; order[j] = t; }
    free(cnt); free(adj); free(level);
    return 0;
}

/* ---- setup of the velocity form ---- */

/* Dense Cholesky inverse of the s x s block A (column-major) in place;
 * 1 when not positive definite. */
static int spd_inverse(int s, double *A)
{
    double L[NNCG_MAX_BLOCK * NNCG_MAX_BLOCK] = {0}, X[NNCG_MAX_BLOCK * NNCG_MAX_BLOCK];
    for (int j = 0; j < s; j++) {
        double dj = A[j + j * s];
        for (int k = 0; k < j; k++) dj -= L[j + k * s] * L[j + k * s];
        if (!(dj > 0.0)) return 1;
        L[j + j * s] = sqrt(dj);
        for (int i = j + 1; i < s; i++) {
            double v = A[i + j * s];
            for (int k = 0; k < j; k++) v -= L[i + k * s] * L[j + k * s];
            L[i + j * s] = v / L[j + j * s];
        }
    }
    for (int c = 0; c < s; c++) {   /* solve L L^T x = e_c */
        double y[NNCG_MAX_BLOCK];
        for (int i = 0; i < s; i++) {
            double v = i == c ? 1.0 : 0.0;
            for (int k = 0; k < i; k++) v -= L[i + k * s] * y[k];
            y[i] = v / L[i + i * s];
        }
        for (int i = s - 1; i >= 0; i--) {
            double v = y[i];
            for (int k = i + 1; k < s; k++) v -= L[k + i * s] * X[k + c * s];
            X[i + c * s] = v / L[i + i * s];
        }
    }
    memcpy(A, X, (size_t)s * s * sizeof *A);
    return 0;
}

/* M's diagonal blocks (fc_diag_blocks): blk[i] the block of dof i
 * (numbered by first dof), start[b] the blocks' offsets (n + 2 entries),
 * dofs (or NULL) each block's dofs.  The number of blocks, or -1 when M
 * is not symmetric, a block exceeds NNCG_MAX_BLOCK or memory is out. */
static int m_blocks(const fc_problem *p, const fc_matrix *Mc, int *blk, int *start, int *dofs)
{
    if (fc_matrix_asymmetry(p->M) > 1e-14) return -1;
    int nb = fc_diag_blocks(Mc, NULL, 0, blk, start, dofs);
    for (int b = 0; b < nb; b++)
        if (start[b + 1] - start[b] > NNCG_MAX_BLOCK) return -1;
    return nb;
}

int fc_nncg_velocity_form(const fc_problem *p)
{
    if (p->kind != FC_GLOBAL || !p->M) return 0;
    size_t n = (size_t)p->n;
    fc_matrix *Mc = fc_matrix_to_csr(p->M);
    int *blk = fc_calloc(n + 1, sizeof *blk), *start = fc_calloc(n + 2, sizeof *start);
    int ok = Mc && blk && start && m_blocks(p, Mc, blk, start, NULL) >= 0;
    fc_matrix_free(Mc);
    free(blk); free(start);
    return ok;
}

/* The bodies of the contacts, for the order: M's diagonal blocks joined
 * by equal sets of contacts (fc_diag_blocks; a rigid body's dofs are
 * touched by the same contacts; a hash collision only changes the order).
 * *body: 2 nc body ids (numbered by lowest dof, < n; -1: none), the first
 * two bodies of each contact. */
static int contact_bodies(const fc_matrix *Mc, const fc_matrix *Hc, const fc_matrix *Ht, int d, int nc,
                          int **body)
{
    int n = Hc->rows, ret = 1;
    int *bid = fc_calloc((size_t)n + 1, sizeof *bid), *bstart = fc_calloc((size_t)n + 2, sizeof *bstart);
    int *pairs = fc_calloc(2 * (size_t)n + 1, sizeof *pairs);
    *body = fc_calloc((size_t)2 * nc + 1, sizeof **body);
    if (!bid || !bstart || !pairs || !*body) goto out;
    int npairs = fc_dof_signature_pairs(Hc, d, pairs);
    if (npairs < 0 || fc_diag_blocks(Mc, pairs, npairs, bid, bstart, NULL) < 0) goto out;
    int *bd = *body;
    for (int a = 0; a < 2 * nc; a++) bd[a] = -1;
    for (int a = 0; a < nc; a++)
        for (int k = 0; k < d; k++)
            for (int t = Ht->p[d * a + k]; t < Ht->p[d * a + k + 1]; t++) {
                int b = bid[Ht->j[t]];
                if (bd[2 * a] == b || bd[2 * a + 1] == b) continue;
                if (bd[2 * a] < 0) bd[2 * a] = b;
                else if (bd[2 * a + 1] < 0) bd[2 * a + 1] = b;
            }
    ret = 0;
out:
    free(bid); free(bstart); free(pairs);
    return ret;
}

/* Velocity form of p when M is block diagonal with blocks of at most
 * NNCG_MAX_BLOCK, each positive definite: Ht, Gt, loc, order, M^-1 f in
 * minvf.  Returns 0 on success, 1 when M does not qualify, -1 when out
 * of memory. */
static int setup_velocity(const fc_problem *p, const fc_options *opt, nncg_work *w, double *minvf)
{
    int n = p->n, d = p->d, nc = p->nc;
    int ret = -1;
    fc_matrix *Mc = fc_matrix_to_csr(p->M), *Hc = NULL;
    int *blk = fc_calloc((size_t)n + 1, sizeof *blk);
    int *start = fc_calloc((size_t)n + 2, sizeof *start), *dofs = fc_calloc((size_t)n + 1, sizeof *dofs);
    int *loc_of = fc_calloc((size_t)n + 1, sizeof *loc_of);
    double *inv = NULL;
    int *body = NULL;
    if (!Mc || !blk || !start || !dofs || !loc_of) goto out;
    int nb = m_blocks(p, Mc, blk, start, dofs);
    if (nb < 0) { ret = 1; goto out; }
    for (int i = 0; i < n; i++) loc_of[dofs[i]] = i - start[blk[dofs[i]]];
    /* the inverse blocks: block b (s <= NNCG_MAX_BLOCK dofs) at start[b] NNCG_MAX_BLOCK */
    inv = fc_calloc((size_t)n * NNCG_MAX_BLOCK + 1, sizeof *inv);
    if (!inv) goto out;
    for (int i = 0; i < n; i++) {
        int b = blk[i], s = start[b + 1] - start[b];
        double *B = inv + (size_t)start[b] * NNCG_MAX_BLOCK;
        for (int k = Mc->p[i]; k < Mc->p[i + 1]; k++) B[loc_of[i] + loc_of[Mc->j[k]] * s] += Mc->x[k];
    }
    for (int b = 0; b < nb; b++)
        if (spd_inverse(start[b + 1] - start[b], inv + (size_t)start[b] * NNCG_MAX_BLOCK)) {
            ret = 1;
            goto out;
        }
    /* M^-1 f */
    for (int b = 0; b < nb; b++) {
        int s = start[b + 1] - start[b];
        const double *B = inv + (size_t)start[b] * NNCG_MAX_BLOCK;
        for (int i = 0; i < s; i++) {
            double v = 0.0;
            for (int k = 0; k < s; k++) v += B[i + k * s] * p->f[dofs[start[b] + k]];
            minvf[dofs[start[b] + i]] = v;
        }
    }
    Hc = fc_matrix_to_csr(p->H);
    w->Ht = Hc ? fc_csr_transpose(Hc) : NULL;
    if (!w->Ht) goto out;
    /* Gt row j = M^-1 H[:, j] over the blocks that H[:, j] touches */
    long gnz = 0;
    int bl[NNCG_ROW_BLOCKS], nbl = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && !(w->Gt = fc_matrix_csr(w->m, n, gnz))) goto out;
        long nz = 0;
        for (int j = 0; j < w->m; j++) {
            nbl = 0;
            for (int t = w->Ht->p[j]; t < w->Ht->p[j + 1]; t++) {
                int b = blk[w->Ht->j[t]], seen = 0;
                for (int k = 0; k < nbl; k++) seen |= bl[k] == b;
                if (seen) continue;
                if (nbl == NNCG_ROW_BLOCKS) { ret = 1; goto out; }
                bl[nbl++] = b;
            }
            for (int k = 0; k < nbl; k++) {
                int b = bl[k], s = start[b + 1] - start[b];
                if (pass == 0) { gnz += s; continue; }
                const double *B = inv + (size_t)start[b] * NNCG_MAX_BLOCK;
                double h[NNCG_MAX_BLOCK] = {0};
                for (int t = w->Ht->p[j]; t < w->Ht->p[j + 1]; t++)
                    if (blk[w->Ht->j[t]] == b) h[loc_of[w->Ht->j[t]]] = w->Ht->x[t];
                for (int i = 0; i < s; i++) {
                    double v = 0.0;
                    for (int l = 0; l < s; l++) v += B[i + l * s] * h[l];
                    w->Gt->j[nz] = dofs[start[b] + i];
                    w->Gt->x[nz++] = v;
                }
            }
            if (pass == 1) w->Gt->p[j + 1] = (int)nz;
        }
        if (pass == 1) w->Gt->nnz = nz;
    }
    int order = resolve_order(opt->nncg.order, nc);
    if ((order == NNCG_LOAD_UP || order == NNCG_LOAD_DOWN || order == NNCG_SLABS || opt->nncg.newton_body ||
         opt->nncg.focus || opt->nncg.cluster) &&
        contact_bodies(Mc, Hc, w->Ht, d, nc, &body))
        goto out;
    /* W_aa = H_a^T G_a */
    double *x = w->vx;   /* n scratch, zero */
    memset(x, 0, (size_t)n * sizeof *x);
    for (int a = 0; a < nc; a++) {
        double W[25];
        for (int l = 0; l < d; l++) {
            int jl = d * a + l;
            for (int t = w->Gt->p[jl]; t < w->Gt->p[jl + 1]; t++) x[w->Gt->j[t]] = w->Gt->x[t];
            for (int k = 0; k < d; k++) W[k + l * d] = csr_row_dot(w->Ht, d * a + k, x);
            for (int t = w->Gt->p[jl]; t < w->Gt->p[jl + 1]; t++) x[w->Gt->j[t]] = 0.0;
        }
        for (int k = 0; k < d; k++)
            for (int l = 0; l < k; l++)
                W[k + l * d] = W[l + k * d] = 0.5 * (W[k + l * d] + W[l + k * d]);
        fc_local_setup(&w->loc[a], d, W, p->mu[a], p->mu_r ? p->mu_r[a] : 0.0);
    }
    /* the sweep's data per contact, when M's blocks are ranges of dofs */
    int ranges = opt->nncg.sweep_data != FC_VSWEEP_CSR;
    for (int i = 0; i < n && ranges; i++) ranges = dofs[i] == i;
    if (ranges) {
        long *boff = fc_calloc((size_t)nb + 1, sizeof *boff);
        if (!boff) goto out;
        for (int b = 0; b < nb; b++) boff[b] = (long)start[b] * NNCG_MAX_BLOCK;
        int vs = fc_vsweep_build(&w->vs, opt->nncg.sweep_data, d, nc, w->Ht, nb, start, inv, boff, NULL);
        free(boff);
        if (vs < 0) goto out;
        if (vs == 0)
            for (int a = 0; a < nc; a++) fc_vsweep_set_local(&w->vs, a, &w->loc[a]);
    }
    if (order == NNCG_LOAD_UP || order == NNCG_LOAD_DOWN) {
        if (load_path_order(nc, n, body, order == NNCG_LOAD_DOWN, w->order)) goto out;
    } else {
        for (int a = 0; a < nc; a++) w->order[a] = a;
    }
    w->body = body;
    body = NULL;
    ret = 0;
out:
    if (ret) {
        fc_matrix_free(w->Gt); w->Gt = NULL; fc_matrix_free(w->Ht); w->Ht = NULL;
        fc_vsweep_free(&w->vs); fc_colouring_free(&w->col);
    }
    fc_matrix_free(Mc);
    fc_matrix_free(Hc);
    free(blk); free(start); free(dofs); free(loc_of); free(inv); free(body);
    return ret;
}

/* The parallel parts (nncg.order 4, 5 from 2 threads) at the start r
 * (v = M^-1 (H r + f) set): the slabs weigh each contact by its cost
 * there, NNCG_SOLVE_WEIGHT when the one-contact solver would run, 1
 * else.  0; -1: out of memory. */
static int setup_parts(const fc_options *opt, nncg_work *w, const double *r)
{
    int order = resolve_order(opt->nncg.order, w->nc), nc = w->nc, d = w->d, T = fc_threads(), e;
    int P = fc_phases_option(opt->nncg.phases), G = T * P;
    if (order != NNCG_STRETCHES && order != NNCG_SLABS) return 0;
    if (order == NNCG_STRETCHES) {
        e = fc_stretch_shared(nc, d, w->Ht, w->Gt, w->n, T, P, &w->col);
    } else {
        int *part = fc_calloc((size_t)nc + 1, sizeof *part), *wt = fc_calloc((size_t)nc + 1, sizeof *wt);
        const fc_nncg_options *o = &opt->nncg;
        fc_local_params par = {o->local, o->local_tol > 0 ? o->local_tol : 1e-14,
                               o->local_max_iter > 0 ? o->local_max_iter : 20};
        for (int a = 0; wt && w->vs.val && a < nc; a++)
            wt[a] = fc_vsweep_probe(&w->vs, a, &par, w->w + (size_t)d * a, r + (size_t)d * a, w->v)
                        ? NNCG_SOLVE_WEIGHT : 1;
        e = !part || !wt || fc_level_parts(nc, w->n, w->body, w->vs.val ? wt : NULL, G, P, part)
                ? -1 : fc_parts_shared(nc, d, w->Ht, w->Gt, w->n, G, P, part, &w->col);
        free(part);
        free(wt);
    }
    if (e || !(w->part_cpu = fc_calloc((size_t)G + 1, sizeof *w->part_cpu)) ||
        !(w->solves = fc_calloc((size_t)nc + 1, sizeof *w->solves)))
        return -1;
    fc_log(opt, 1, "nncg: %d %s in %d phases for %d contacts, %d at the interface (the first part %d, the last %d)", G,
           order == NNCG_STRETCHES ? "stretches" : "slabs", P, nc, w->col.start[G + 1] - w->col.start[G],
           w->col.start[1] - w->col.start[0], w->col.start[G] - w->col.start[G - 1]);
    return 0;
}

static int alloc_common(nncg_work *w, int d, int nc)
{
    w->d = d; w->nc = nc; w->m = d * nc;
    w->loc = fc_calloc((size_t)nc + 1, sizeof *w->loc);
    w->order = fc_calloc((size_t)nc + 1, sizeof *w->order);
    w->x = fc_calloc((size_t)w->m + 1, sizeof *w->x);
    w->pdir = fc_calloc((size_t)w->m + 1, sizeof *w->pdir);
    w->best = fc_calloc((size_t)w->m + 1, sizeof *w->best);
    return !w->loc || !w->order || !w->x || !w->pdir || !w->best;
}

fc_status fc_nncg_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                        fc_info *info)
{
    int d = p->d, nc = p->nc, m = d * nc;
    nncg_work w = {0};
    fc_clock clk;
    fc_clock_start(&clk, opt);
    w.W = p->W;
    w.q = p->q;
    if (!(p->W->kind == FC_MAT_BSR && p->W->bs == d)) {
        w.Wb = fc_matrix_to_bsr(p->W, d);
        if (w.Wb) w.W = w.Wb;
    }
    if (alloc_common(&w, d, nc)) {
        work_free(&w);
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    fc_local_setup_all(p, w.W, w.loc);
    for (int a = 0; a < nc; a++) w.order[a] = a;
    if (!fc_all_finite((size_t)m, r)) memset(r, 0, (size_t)m * sizeof *r);
    fc_status st = iterate(p, opt, &clk, &w, r, u, info);
    fc_affine(w.W, r, w.q, u);
    info->residual = fc_error_local(p, r, u);
    fc_log(opt, 0, "nncg: %s after %d sweeps, error %.3e, %.3f s", fc_status_name(st),
           info->iterations, info->residual, fc_clock_elapsed(&clk));
    info->status = st;
    work_free(&w);
    return st;
}

static fc_status nncg_local(const fc_problem *loc, const fc_options *opt, double *r, double *u,
                            fc_info *info, void *user)
{
    (void)user;
    return fc_nncg_solve(loc, opt, r, u, info);
}

fc_status fc_nncg_solve_global(const fc_problem *p, const fc_options *opt, double *r, double *u,
                               double *v, fc_info *info)
{
    int d = p->d, nc = p->nc, m = d * nc, n = p->n;
    nncg_work w = {0};
    fc_clock clk;
    fc_clock_start(&clk, opt);
    w.n = n;
    w.w = p->w;
    double *minvf = fc_calloc((size_t)n + 1, sizeof *minvf);
    w.v = fc_calloc((size_t)n + 1, sizeof *w.v);
    w.vp = fc_calloc((size_t)n + 1, sizeof *w.vp);
    w.vx = fc_calloc((size_t)n + 1, sizeof *w.vx);
    int s = -1;
    if (!alloc_common(&w, d, nc) && minvf && w.v && w.vp && w.vx)
        s = setup_velocity(p, opt, &w, minvf);
    if (s != 0) {
        work_free(&w);
        free(minvf);
        if (s < 0) {
            snprintf(info->message, sizeof info->message, "out of memory");
            return FC_STATUS_ERROR;
        }
        fc_log(opt, 1, "nncg: M not block diagonal with small blocks; reduced problem");
        fc_error err;
        fc_status st;
        if (fc_solve_reduced(p, opt, &clk, FC_V_REDUCED_FACTOR, nncg_local, NULL, r, u, v, info,
                             &st, &err) != FC_OK) {
            snprintf(info->message, sizeof info->message, "%.200s", err.msg);
            return FC_STATUS_ERROR;
        }
        return st;
    }
    if (!fc_all_finite((size_t)m, r)) memset(r, 0, (size_t)m * sizeof *r);
    velocity(&w, r, minvf, w.v);
    if (setup_parts(opt, &w, r)) {
        work_free(&w);
        free(minvf);
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    clock_t c0 = clock();
    double t0 = fc_clock_elapsed(&clk);
    fc_status st = iterate(p, opt, &clk, &w, r, u, info);
    double cpu = (double)(clock() - c0) / CLOCKS_PER_SEC, wall = fc_clock_elapsed(&clk) - t0;
    velocity(&w, r, minvf, v);   /* exact v of the returned r */
    memcpy(w.v, v, (size_t)n * sizeof *v);
    info->residual = measure(p, &w, r, u);
    /* the bytes a sweep streams per contact: its values and indices, W_aa */
    double bytes = w.vs.val ? (double)w.vs.voff[nc] * 8 + (double)w.vs.sptr[nc] * 12 + nc * 12.0
                            : (double)(w.Ht->nnz + w.Gt->nnz) * 12 + m * 8.0 + nc * (double)sizeof(fc_local);
    fc_log(opt, 0, "nncg: %s after %d sweeps, error %.3e, %.3f s (the iterations %.3f s CPU, %.3f s wall; sweep data %s, "
           "%.0f bytes per contact)", fc_status_name(st), info->iterations, info->residual, fc_clock_elapsed(&clk), cpu, wall,
           !w.vs.val ? "CSR rows" : w.vs.mode == FC_VSWEEP_STORED ? "per contact, G stored" : "per contact, G from M^-1",
           bytes / nc);
    if (w.col.stretches) {
        int S = w.col.stretches, len = 0;
        double most = 0.0, sum = 0.0;
        char each[400] = "";
        for (int k = 0; k < S; k++) {
            most = fmax(most, w.part_cpu[k]);
            sum += w.part_cpu[k];
            long ns = 0;
            for (int i = w.col.start[k]; i < w.col.start[k + 1]; i++) ns += w.solves[w.col.member[i]];
            if (len < (int)sizeof each - 40)
                len += snprintf(each + len, sizeof each - (size_t)len, " %.3f (%d contacts, %ld solves)", w.part_cpu[k],
                                w.col.start[k + 1] - w.col.start[k], ns);
        }
        fc_log(opt, 0, "nncg: %d parts' sweeps %.3f s CPU (the longest %.3f s; each%s), the interface's %.3f s CPU",
               S, sum, most, each, w.part_cpu[S]);
    }
    info->status = st;
    work_free(&w);
    free(minvf);
    return st;
}
