/* Lemke's complementary pivoting method on the 2D friction LCP (lcp.h),
 * with lexicographic degeneracy handling.
 *
 * A revised (not tableau) implementation, so that memory stays a small
 * multiple of the problem's size: the basis B (n columns taken from
 * [I, -M, -d], d = ones the covering vector) is factorised by KLU (sparse
 * LU), and the pivots between two factorisations are kept in product form
 * (one eta column each, stored sparse).  FTRAN (B^-1 a) and BTRAN (rows of
 * B^-1, needed only to break ties lexicographically) go through the
 * factorisation and the etas.  The basis is refactorised every
 * opt->lcp.refactor_every pivots and at the end, where the basic values
 * are recomputed from the fresh factorisation and refined once: the
 * answer is exact up to round-off.
 *
 * The first path starts from a complementary basis guessed from a warm
 * start or a short NSGS run (lemke_run explains the order of the paths);
 * a singular W that defeats every path gets a regularised continuation
 * (lemke_regularised).
 *
 * Variables: index i < n is w_i, n + i is z_i, 2n is the artificial z0.
 * Each pivot counts as one iteration, and so does each NSGS sweep. */
#include "solvers/lcp.h"
#include "core/stage.h"

#include <klu.h>
#include <limits.h>
#include <stdio.h>

typedef struct lemke_ws {
    int n;
    const fc_lcp *lcp;
    /* M in compressed columns (the columns -M[:, j] enter the basis) */
    int *mcp, *mci;
    double *mcx;
    /* the basis and its factorisation */
    int *basis;       /* basis[i]: the variable basic in row i          */
    int *where;       /* where[v]: row of variable v, or -1             */
    double *x;        /* basic values, B x = q                          */
    int *bp, *bi;     /* CSC of B                                       */
    double *bx;
    klu_common common;
    klu_symbolic *sym;
    klu_numeric *num;
    /* etas: pivot row, pivot value, [start, end) in the pool */
    int neta, maxeta;
    int *eta_r;
    long *eta_start;
    double *eta_piv;
    int *pool_i;
    double *pool_x;
    long pool_len, pool_cap;
    /* scratch */
    double *y, *row, *best;
    double *d;        /* the covering vector (> 0)                      */
} lemke_ws;

static void ws_free(lemke_ws *w)
{
    free(w->mcp); free(w->mci); free(w->mcx);
    free(w->basis); free(w->where); free(w->x);
    free(w->bp); free(w->bi); free(w->bx);
    if (w->num) klu_free_numeric(&w->num, &w->common);
    if (w->sym) klu_free_symbolic(&w->sym, &w->common);
    free(w->eta_r); free(w->eta_start); free(w->eta_piv);
    free(w->pool_i); free(w->pool_x);
    free(w->y); free(w->row); free(w->best); free(w->d);
}

/* The eta pool's entries for an LCP of size n. */
static long pool_entries(int n) { return 8L * n + 1024; }

static int ws_init(lemke_ws *w, const fc_lcp *lcp, int maxeta)
{
    int n = lcp->n;
    const fc_matrix *M = lcp->M;
    memset(w, 0, sizeof *w);
    w->n = n;
    w->lcp = lcp;
    w->maxeta = maxeta;
    w->mcp = fc_calloc((size_t)n + 1, sizeof *w->mcp);
    w->mci = fc_calloc((size_t)M->nnz + 1, sizeof *w->mci);
    w->mcx = fc_calloc((size_t)M->nnz + 1, sizeof *w->mcx);
    w->basis = fc_calloc((size_t)n, sizeof *w->basis);
    w->where = fc_calloc((size_t)2 * n + 1, sizeof *w->where);
    w->x = fc_calloc((size_t)n, sizeof *w->x);
    w->bp = fc_calloc((size_t)n + 1, sizeof *w->bp);
    w->bi = fc_calloc((size_t)M->nnz + 2 * (size_t)n, sizeof *w->bi);
    w->bx = fc_calloc((size_t)M->nnz + 2 * (size_t)n, sizeof *w->bx);
    w->eta_r = fc_calloc((size_t)maxeta, sizeof *w->eta_r);
    w->eta_start = fc_calloc((size_t)maxeta + 1, sizeof *w->eta_start);
    w->eta_piv = fc_calloc((size_t)maxeta, sizeof *w->eta_piv);
    w->pool_cap = pool_entries(n);
    w->pool_i = fc_calloc((size_t)w->pool_cap, sizeof *w->pool_i);
    w->pool_x = fc_calloc((size_t)w->pool_cap, sizeof *w->pool_x);
    w->y = fc_calloc((size_t)n, sizeof *w->y);
    w->row = fc_calloc((size_t)n, sizeof *w->row);
    w->best = fc_calloc((size_t)n, sizeof *w->best);
    w->d = fc_calloc((size_t)n, sizeof *w->d);
    if (!w->d ||!w->mcp || !w->mci || !w->mcx || !w->basis || !w->where || !w->x || !w->bp ||
        !w->bi || !w->bx || !w->eta_r || !w->eta_start || !w->eta_piv || !w->pool_i ||
        !w->pool_x || !w->y || !w->row || !w->best)
        return 0;
    /* transpose M (CSR) into compressed columns */
    for (long k = 0; k < M->nnz; k++) w->mcp[M->j[k] + 1]++;
    for (int j = 0; j < n; j++) w->mcp[j + 1] += w->mcp[j];
    int *next = w->bp; /* scratch */
    memcpy(next, w->mcp, (size_t)n * sizeof *next);
    for (int i = 0; i < n; i++)
        for (int k = M->p[i]; k < M->p[i + 1]; k++) {
            int pos = next[M->j[k]]++;
            w->mci[pos] = i;
            w->mcx[pos] = M->x[k];
        }
    klu_defaults(&w->common);
    return 1;
}

/* The column of variable v in [I, -M, -d], scattered into dense a. */
static void column(const lemke_ws *w, int v, double *a)
{
    int n = w->n;
    memset(a, 0, (size_t)n * sizeof *a);
    if (v < n) a[v] = 1.0;
    else if (v < 2 * n) {
        int j = v - n;
        for (int k = w->mcp[j]; k < w->mcp[j + 1]; k++) a[w->mci[k]] = -w->mcx[k];
    } else {
        for (int i = 0; i < n; i++) a[i] = -w->d[i];
    }
}

/* a <- B^-1 a */
static int ftran(lemke_ws *w, double *a)
{
    if (!klu_solve(w->sym, w->num, w->n, 1, a, &w->common)) return 0;
    for (int t = 0; t < w->neta; t++) {
        int r = w->eta_r[t];
        double ar = a[r] / w->eta_piv[t];
        if (ar != 0.0)
            for (long k = w->eta_start[t]; k < w->eta_start[t + 1]; k++)
                a[w->pool_i[k]] -= w->pool_x[k] * ar;
        a[r] = ar;
    }
    return 1;
}

/* c <- B^-T c */
static int btran(lemke_ws *w, double *c)
{
    for (int t = w->neta - 1; t >= 0; t--) {
        int r = w->eta_r[t];
        double s = c[r];
        for (long k = w->eta_start[t]; k < w->eta_start[t + 1]; k++)
            s -= w->pool_x[k] * c[w->pool_i[k]];
        c[r] = s / w->eta_piv[t];
    }
    return klu_tsolve(w->sym, w->num, w->n, 1, c, &w->common);
}

/* Factorise the current basis (KLU), drop the etas, recompute x = B^-1 q
 * with one step of iterative refinement. */
static int refactor(lemke_ws *w)
{
    int n = w->n;
    long nz = 0;
    for (int i = 0; i < n; i++) {
        int v = w->basis[i];
        w->bp[i] = (int)nz;
        if (v < n) { w->bi[nz] = v; w->bx[nz++] = 1.0; }
        else if (v < 2 * n) {
            int j = v - n;
            for (int k = w->mcp[j]; k < w->mcp[j + 1]; k++) {
                w->bi[nz] = w->mci[k];
                w->bx[nz++] = -w->mcx[k];
            }
        } else {
            for (int r = 0; r < n; r++) { w->bi[nz] = r; w->bx[nz++] = -w->d[r]; }
        }
    }
    w->bp[n] = (int)nz;
    if (w->num) klu_free_numeric(&w->num, &w->common);
    if (w->sym) klu_free_symbolic(&w->sym, &w->common);
    w->sym = klu_analyze(n, w->bp, w->bi, &w->common);
    if (!w->sym) return 0;
    w->num = klu_factor(w->bp, w->bi, w->bx, w->sym, &w->common);
    if (!w->num || w->common.status != KLU_OK) return 0;
    w->neta = 0;
    w->pool_len = 0;
    memcpy(w->x, w->lcp->q, (size_t)n * sizeof *w->x);
    if (!klu_solve(w->sym, w->num, n, 1, w->x, &w->common)) return 0;
    /* refinement: res = q - B x, x += B^-1 res */
    double *res = w->row;
    memcpy(res, w->lcp->q, (size_t)n * sizeof *res);
    for (int i = 0; i < n; i++)
        for (int k = w->bp[i]; k < w->bp[i + 1]; k++) res[w->bi[k]] -= w->bx[k] * w->x[i];
    if (!klu_solve(w->sym, w->num, n, 1, res, &w->common)) return 0;
    for (int i = 0; i < n; i++) w->x[i] += res[i];
    return 1;
}

/* Record the pivot (row r, FTRAN'd column y) as an eta; 0 when the pool
 * is full (the caller refactorises instead). */
static int add_eta(lemke_ws *w, int r, const double *y)
{
    long need = 0;
    for (int i = 0; i < w->n; i++) need += (i != r && y[i] != 0.0);
    if (w->neta >= w->maxeta || w->pool_len + need > w->pool_cap) return 0;
    int t = w->neta;
    w->eta_r[t] = r;
    w->eta_piv[t] = y[r];
    w->eta_start[t] = w->pool_len;
    for (int i = 0; i < w->n; i++)
        if (i != r && y[i] != 0.0) {
            w->pool_i[w->pool_len] = i;
            w->pool_x[w->pool_len++] = y[i];
        }
    w->eta_start[t + 1] = w->pool_len;
    w->neta++;
    return 1;
}

/* Lexicographic comparison of row/yr vectors: <0 when a < b. */
static int lex_cmp(int n, const double *a, const double *b, double tol)
{
    for (int k = 0; k < n; k++) {
        double scale = fmax(1.0, fmax(fabs(a[k]), fabs(b[k])));
        if (a[k] < b[k] - tol * scale) return -1;
        if (a[k] > b[k] + tol * scale) return 1;
    }
    return 0;
}

/* The ratio test: the row leaving the basis, -1 on a ray, -2 on a
 * numerical failure. */
static int ratio_test(lemke_ws *w, const double *y, double piv_tol, double tie_tol)
{
    int n = w->n;
    double ymax = 0;
    for (int i = 0; i < n; i++) ymax = fmax(ymax, fabs(y[i]));
    double thr = fmax(piv_tol * ymax, 1e-300);
    double tmin = INFINITY;
    int rmin = -1;
    for (int i = 0; i < n; i++)
        if (y[i] > thr) {
            double t = fmax(w->x[i], 0.0) / y[i];
            if (t < tmin) { tmin = t; rmin = i; }
        }
    if (rmin < 0) return -1;
    /* ties: z0 wins; else the lexicographic minimum of rows of B^-1 / y_i */
    double gap = tie_tol * fmax(1.0, tmin);
    int nties = 0, z0row = w->where[2 * n];
    for (int i = 0; i < n; i++)
        if (y[i] > thr && fmax(w->x[i], 0.0) / y[i] <= tmin + gap) {
            nties++;
            if (i == z0row) return i;
        }
    if (nties == 1) return rmin;
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (!(y[i] > thr && fmax(w->x[i], 0.0) / y[i] <= tmin + gap)) continue;
        memset(w->row, 0, (size_t)n * sizeof *w->row);
        w->row[i] = 1.0;
        if (!btran(w, w->row)) return -2;
        for (int k = 0; k < n; k++) w->row[k] /= y[i];
        if (best < 0 || lex_cmp(n, w->row, w->best, tie_tol) < 0) {
            best = i;
            memcpy(w->best, w->row, (size_t)n * sizeof *w->best);
        }
    }
    return best;
}

/* One complementary path from the ray of the covering vector w->d; *it
 * counts the pivots over all paths.  FC_CONVERGED when z0 left the basis;
 * *ray set when the path ended on a secondary ray.
 *
 * start (n variables, one of each pair w_i / z_i, or NULL for all w) is
 * the complementary basis the path starts from.  With a start basis B,
 * the covering vector is d = B 1 (so that B^-1 d = 1: every basic value
 * grows with z0 at the same rate, the ray is primary), and a start basis
 * that is already feasible is the answer without a pivot: a guess of the
 * contact laws from an approximate solution ends the search at once when
 * right and shortens the path when nearly right. */
static fc_status lemke_path(lemke_ws *w, const int *start, int budget, const fc_options *opt,
                            const fc_clock *clk, int *it, int *ray, fc_info *info)
{
    int n = w->n, it0 = *it;
    int every = opt->lcp.refactor_every > 0 ? opt->lcp.refactor_every : 50;
    double piv_tol = opt->lcp.pivot_tol > 0 ? opt->lcp.pivot_tol : 1e-11;
    double tie_tol = opt->lcp.tie_tol > 0 ? opt->lcp.tie_tol : 1e-12;
    *ray = 0;
    for (int v = 0; v <= 2 * n; v++) w->where[v] = -1;
    for (int i = 0; i < n; i++) {
        w->basis[i] = start ? start[i] : i;
        w->where[w->basis[i]] = i;
    }
    if (!refactor(w)) {
        snprintf(info->message, sizeof info->message, "KLU failed on the %s basis",
                 start ? "start (singular guess)" : "initial");
        return FC_STATUS_ERROR;
    }
    if (start) {
        /* d = B 1, the sum of the basic columns */
        memset(w->d, 0, (size_t)n * sizeof *w->d);
        for (int i = 0; i < n; i++)
            for (int k = w->bp[i]; k < w->bp[i + 1]; k++) w->d[w->bi[k]] += w->bx[k];
    }
    /* first pivot: z0 enters, the row of max -x_i / (B^-1 d)_i leaves
     * (ties: the last, as the lexicographic rule on [q | I] has it); none
     * when the start basis is feasible */
    int r = -1;
    double worst = 0;
    for (int i = 0; i < n; i++) {
        double di = start ? 1.0 : w->d[i];
        /* round-off below a start basis's zeros is not infeasibility (the
         * LCP is scaled to ||q||_inf = 1; the answer is checked at the end) */
        double below = start ? -1e-12 : 0.0;
        if (-w->x[i] / di >= worst && w->x[i] < below) { worst = -w->x[i] / di; r = i; }
    }
    if (r < 0) return FC_CONVERGED;
    int entering = 2 * n, first = 1;
    for (;;) {
        column(w, entering, w->y);
        if (!ftran(w, w->y)) {
            snprintf(info->message, sizeof info->message, "KLU solve failed");
            return FC_STATUS_ERROR;
        }
        if (!first) r = ratio_test(w, w->y, piv_tol, tie_tol);
        if (r == -1) {
            *ray = 1;
            snprintf(info->message, sizeof info->message,
                     "Lemke ended on a secondary ray after %d pivots (no solution found)", *it);
            return FC_STATUS_ERROR;
        }
        if (r < 0 || !isfinite(w->y[r])) {
            snprintf(info->message, sizeof info->message, "numerical failure in the ratio test");
            return FC_DIVERGED;
        }
        ++*it;
        double theta = (first ? w->x[r] : fmax(w->x[r], 0.0)) / w->y[r];
        first = 0;
        for (int i = 0; i < n; i++) w->x[i] -= theta * w->y[i];
        w->x[r] = theta;
        int leaving = w->basis[r];
        w->basis[r] = entering;
        w->where[entering] = r;
        w->where[leaving] = -1;
        if (leaving == 2 * n) return FC_CONVERGED;
        entering = leaving < n ? leaving + n : leaving - n;
        if (!add_eta(w, r, w->y) || w->neta >= every) {
            if (!refactor(w)) {
                snprintf(info->message, sizeof info->message,
                         "KLU failed on a singular basis after %d pivots", *it);
                return FC_STATUS_ERROR;
            }
        }
        if (!fc_all_finite((size_t)n, w->x)) {
            snprintf(info->message, sizeof info->message, "NaN in the basic values after %d pivots", *it);
            return FC_DIVERGED;
        }
        int zr = w->where[2 * n];
        if (opt->progress && opt->progress(opt->progress_user, *it, zr >= 0 ? w->x[zr] : 0.0)) {
            snprintf(info->message, sizeof info->message, "stopped by the progress callback");
            return FC_MAX_ITER;
        }
        if (*it >= opt->max_iter) {
            snprintf(info->message, sizeof info->message, "%d pivots without termination", *it);
            return FC_MAX_ITER;
        }
        if (*it - it0 >= budget) { /* a start basis that was far off: given up */
            *ray = 1;
            snprintf(info->message, sizeof info->message, "path from the guessed basis given up after %d pivots",
                     budget);
            return FC_STATUS_ERROR;
        }
        if (fc_clock_expired(clk)) {
            snprintf(info->message, sizeof info->message, "time limit after %d pivots", *it);
            return FC_TIME_LIMIT;
        }
    }
}

/* Passes NSGS's progress reports on to the caller's callback and
 * remembers a request to stop. */
typedef struct progress_relay {
    fc_progress_fn fn;
    void *user;
    int stopped;
} progress_relay;

static int relay_progress(void *user, int it, double err)
{
    progress_relay *r = user;
    if (r->fn(r->user, it, err)) r->stopped = 1;
    return r->stopped;
}

/* z from the basic values (negative round-off clipped). */
static void extract(const lemke_ws *w, double *z)
{
    int n = w->n;
    memset(z, 0, (size_t)n * sizeof *z);
    for (int i = 0; i < n; i++) {
        int v = w->basis[i];
        if (v >= n && v < 2 * n) z[v - n] = fmax(w->x[i], 0.0);
    }
}

/* A complementary basis guessed from approximate reactions r (2 nc):
 * the LCP point z of r (lambda = |u_T|) and its slack w = M z + q; per
 * contact, the normal pair takes the larger of z and w; lambda is basic
 * when it exceeds the cone slack (sliding, or separated and slipping:
 * then the tangential pair of the sliding direction keeps its slack and
 * the other its reaction, degenerate at zero if need be), else the cone
 * slack is basic and each tangential pair takes its reaction when that
 * half-reaction is the positive one. */
static void crash_basis(const fc_problem *p, const fc_lcp *lcp, const double *r, int *start,
                        double *z, double *wv)
{
    int n = lcp->n;
    for (int a = 0; a < p->nc; a++) {
        const double *D = lcp->D + 4 * a;
        z[4 * a] = fmax(r[2 * a], 0.0) / (lcp->t * D[0]);
        z[4 * a + 1] = fmax(r[2 * a + 1], 0.0) / (lcp->t * D[1]);
        z[4 * a + 2] = fmax(-r[2 * a + 1], 0.0) / (lcp->t * D[2]);
        z[4 * a + 3] = 0.0;
    }
    fc_lcp_slack(lcp, z, wv);
    for (int a = 0; a < p->nc; a++) {
        double *za = z + 4 * a, *wa = wv + 4 * a;
        za[3] = fabs(wa[1]); /* the scaled |u_T| */
        wa[1] += za[3];
        wa[2] += za[3];
        int *sa = start + 4 * a, base = 4 * a;
        sa[0] = za[0] > wa[0] ? n + base : base;
        if (za[3] > wa[3]) {
            sa[3] = n + base + 3;
            int plus_slides = wa[1] >= wa[2]; /* u_T >= 0: r_T- carries the friction */
            sa[1] = plus_slides ? base + 1 : n + base + 1;
            sa[2] = plus_slides ? n + base + 2 : base + 2;
        } else {
            sa[3] = base + 3;
            sa[1] = za[1] > 0 && za[1] >= za[2] ? n + base + 1 : base + 1;
            sa[2] = za[2] > 0 && za[2] > za[1] ? n + base + 2 : base + 2;
        }
    }
}

/* Solve the LCP (w = M z + q) by Lemke's method; z (n) receives the
 * solution.  The paths tried, until one ends with z0 leaving:
 *  1. when a warm start r0 is given: from the basis guessed from it;
 *  1b. else, unless opt->lcp.crash_sweeps is 0, from the basis guessed
 *     from a short NSGS run (to 1e-6, at most crash_sweeps sweeps): on
 *     the shared problems it is exactly right and no pivot is needed.
 *     Paths from a guessed basis get at most n/4 + 50 pivots (a far-off
 *     guess does not cost more than a fraction of a classical path);
 *  2. the classical path, covering vector d = 1;
 *  3. after a secondary ray or a numerically singular final basis
 *     (possible: the friction LCP's matrix is copositive but not
 *     copositive-plus, and a singular W makes it happen), up to
 *     opt->lcp.restarts paths from covering vectors with entries drawn in
 *     [1, 2] (a generator seeded per restart: deterministic, no global
 *     state).  A start basis guessed from a long NSGS run did not rescue
 *     any of the failures of bench/lcp2d_stress.c (it was singular), so
 *     there is no such step.
 * (fc_lemke_solve adds the regularised continuation, lemke_regularised.) */
static fc_status lemke_run(const fc_problem *p, const fc_lcp *lcp, const fc_options *opt,
                           const double *r0, int crash_only, double *z, fc_info *info)
{
    int n = lcp->n;
    memset(z, 0, (size_t)n * sizeof *z);
    info->iterations = 0;
    int neg = 0;
    for (int i = 0; i < n; i++) neg |= lcp->q[i] < 0;
    if (!neg) return FC_CONVERGED;

    int every = opt->lcp.refactor_every > 0 ? opt->lcp.refactor_every : 50;
    /* the eta file's slots: no more than the pool has entries, so that a
     * huge lcp.refactor_every does not size it (a pivot past the last slot
     * refactorises, as a full pool does) */
    long slots = pool_entries(n);
    lemke_ws w;
    int *start = fc_calloc((size_t)n, sizeof *start);
    if (!ws_init(&w, lcp, every < slots ? every : (int)slots) || !start) {
        ws_free(&w);
        free(start);
        snprintf(info->message, sizeof info->message, "out of memory (Lemke, LCP size %d)", n);
        return FC_STATUS_ERROR;
    }
    fc_clock clk;
    fc_clock_start(&clk, opt);
    fc_status st = FC_STATUS_ERROR;
    int it = 0, ray = 0;
    int restarts = opt->lcp.restarts > 0 ? opt->lcp.restarts : 0;
    int budget = n / 4 + 50;
    /* NSGS's reactions for the guessed start (allocated once, if used) */
    int m = 2 * p->nc, use_nsgs = !r0 && !crash_only && opt->lcp.crash_sweeps > 0;
    double *rr = use_nsgs ? fc_calloc((size_t)m, sizeof *rr) : NULL;
    double *uu = use_nsgs ? fc_calloc((size_t)m, sizeof *uu) : NULL;
    /* attempts: -3 warm start r0, -2 NSGS guess, -1 classical, 1..restarts
     * random covering vectors (0 unused) */
    for (int attempt = -3; attempt <= (crash_only ? -3 : restarts); attempt++) {
        const int *from = NULL;
        if (attempt == 0) continue;
        if (attempt == -3) { /* the warm start */
            if (!r0) continue;
            crash_basis(p, lcp, r0, start, w.row, w.y);
            from = start;
        } else if (attempt == -2) { /* a guess from NSGS */
            if (!use_nsgs || !rr || !uu) continue;
            /* the sweeps count as iterations and see the progress callback */
            fc_stages crash;
            fc_stages_init(&crash, p, opt, &clk, NULL, NULL);
            crash.no_measure = 1;
            fc_options o = fc_stage_options(&crash, opt->lcp.crash_sweeps < opt->max_iter
                                                        ? opt->lcp.crash_sweeps : opt->max_iter);
            progress_relay relay = {opt->progress, opt->progress_user, 0};
            if (opt->progress) {   /* every sweep reported, as the pivots are */
                o.progress = relay_progress;
                o.progress_user = &relay;
                o.nsgs.error_every = 1;
            }
            o.verbose = 0;
            o.tolerance = 1e-6;
            o.time_limit *= 0.5;   /* half of what is left */
            fc_stage_run(&crash, fc_solver_find("nsgs"), NULL, FC_START_COLD, &o, rr, uu);
            it = crash.iterations;
            int ok = fc_all_finite((size_t)m, rr);
            if (ok) crash_basis(p, lcp, rr, start, w.row, w.y);
            int expired = fc_clock_expired(&clk);
            if (ok && (relay.stopped || it >= opt->max_iter || expired)) {
                /* the NSGS point is the answer so far */
                memcpy(z, w.row, (size_t)n * sizeof *z);
                st = expired && !relay.stopped ? FC_TIME_LIMIT : FC_MAX_ITER;
                snprintf(info->message, sizeof info->message, "%s after %d NSGS sweeps (start basis guess)",
                         relay.stopped ? "stopped by the progress callback"
                                       : expired ? "time limit" : "max_iter reached", it);
                break;
            }
            if (!ok) continue;
            from = start;
            fc_log(opt, 1, "lemke: start basis from %d NSGS sweeps (error %.1e)", it, crash.sub.residual);
        } else {
            int k = attempt < 0 ? 0 : attempt;
            unsigned long seed = 0x9E3779B97F4A7C15UL * (unsigned long)(k + 1);
            for (int i = 0; i < n; i++) {
                seed = seed * 6364136223846793005UL + 1442695040888963407UL;
                w.d[i] = k == 0 ? 1.0 : 1.0 + (double)(seed >> 11) / 9007199254740992.0;
            }
        }
        st = lemke_path(&w, from, from ? budget : INT_MAX, opt, &clk, &it, &ray, info);
        if (st == FC_CONVERGED) {
            /* the answer from a fresh factorisation of the final basis,
             * checked: a nearly singular basis passes KLU yet gives
             * garbage, and then the next path is tried */
            double e = INFINITY, size = 1.0;
            if (refactor(&w)) {
                extract(&w, z);
                e = fc_lcp_error(lcp, z, w.y);
                /* relative, as the SPEC measure is (q is scaled to 1) */
                for (int i = 0; i < n; i++) size = fmax(size, fmax(fabs(z[i]), fabs(w.y[i])));
            }
            if (e <= 1e-10 * size) break;
            st = FC_STATUS_ERROR;
            snprintf(info->message, sizeof info->message,
                     "Lemke's final basis is numerically singular (LCP error %.1e)", e);
        } else if (!ray && st != FC_STATUS_ERROR) {
            extract(&w, z); /* max_iter, time limit, progress: the current point */
            break;
        }
        if (fc_clock_expired(&clk)) {
            st = FC_TIME_LIMIT;
            snprintf(info->message, sizeof info->message, "time limit after %d pivots", it);
            break;
        }
        fc_log(opt, 1, "lemke: path %d failed after %d pivots (%s)", attempt, it, info->message);
    }
    info->iterations = it;
    if (st == FC_STATUS_ERROR || st == FC_DIVERGED) memset(z, 0, (size_t)n * sizeof *z);
    fc_log(opt, 1, "lemke: %d pivots, status %s", it, fc_status_name(st));
    ws_free(&w);
    free(start);
    free(rr);
    free(uu);
    return st;
}

/* When every path failed (W singular, typically, with a degenerate
 * answer that no complementary basis represents): Lemke on the LCP of
 * W + reg diag(W_NN) for reg = 1e-4 (whose paths end), then a
 * continuation: each hundredfold smaller reg, down to
 * opt->lcp.regularisation and then 0 (W itself), is started from the
 * basis of the previous answer (usually a few pivots).  The answer of the
 * smallest reg reached is returned, within about that reg of the
 * problem's (fc_solve judges it by the SPEC measure); reaching 0 makes it
 * exact. */
static fc_status lemke_regularised(const fc_problem *p, const fc_options *opt, const fc_clock *clk,
                                   double *z, double *r, fc_info *info)
{
    fc_options o = *opt;
    char first[128];
    memcpy(first, info->message, sizeof first - 1);
    first[sizeof first - 1] = 0;
    double reached = -1;
    fc_status st = FC_STATUS_ERROR;
    /* the levels: 1e-4, 1e-6, ... while above opt->lcp.regularisation, then it, then 0 */
    double levels[16];
    int nlev = 0;
    for (double g = 1e-4; g > 1.01 * opt->lcp.regularisation && nlev < 13; g *= 1e-2) levels[nlev++] = g;
    levels[nlev++] = opt->lcp.regularisation;
    levels[nlev++] = 0.0;
    for (int l = 0; l < nlev; l++) {
        double reg = levels[l];
        fc_lcp lcp;
        fc_error err;
        if (fc_lcp2d_build_reg(p, reg, &lcp, &err) != FC_OK) {
            snprintf(info->message, sizeof info->message, "%.200s", err.msg);
            break;
        }
        int used = info->iterations;
        o.max_iter = opt->max_iter > used ? opt->max_iter - used : 1;
        o.time_limit = fc_time_left(clk);
        fc_info ri;
        memset(&ri, 0, sizeof ri);
        fc_status s = lemke_run(p, &lcp, &o, reached < 0 ? NULL : r, reached >= 0, z, &ri);
        info->iterations = used + ri.iterations;
        if (s == FC_CONVERGED) {
            fc_lcp2d_reactions(p, &lcp, z, r);
            reached = reg;
            st = FC_CONVERGED;
            fc_log(opt, 1, "lemke: LCP of W + %.0e diag(W_NN) solved (%d pivots)", reg, ri.iterations);
        } else if (reached < 0) {
            snprintf(info->message, sizeof info->message, "%.120s; regularised: %.120s", first, ri.message);
            st = s;
        }
        fc_lcp_free(&lcp);
        if (s != FC_CONVERGED || reg == 0.0) break;
    }
    if (reached == 0.0)
        snprintf(info->message, sizeof info->message, "exact, through regularised LCPs (secondary rays on W)");
    else if (reached > 0)
        snprintf(info->message, sizeof info->message,
                 "answer of the LCP of W + %.0e diag(W_NN) (secondary rays on W)", reached);
    return st;
}

fc_status fc_lemke_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                         fc_info *info)
{
    fc_lcp lcp;
    fc_error err;
    fc_clock clk;
    fc_clock_start(&clk, opt);
    if (fc_lcp2d_build(p, &lcp, &err) != FC_OK) {
        snprintf(info->message, sizeof info->message, "%.200s", err.msg);
        return FC_STATUS_ERROR;
    }
    double *z = fc_calloc((size_t)lcp.n + 1, sizeof *z);
    if (!z) {
        fc_lcp_free(&lcp);
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    fc_status st = lemke_run(p, &lcp, opt, opt->r0 ? r : NULL, 0, z, info);
    if (st == FC_CONVERGED || st == FC_MAX_ITER || st == FC_TIME_LIMIT) fc_lcp2d_reactions(p, &lcp, z, r);
    else if (st == FC_STATUS_ERROR && opt->lcp.regularisation > 0)
        st = lemke_regularised(p, opt, &clk, z, r, info);
    fc_problem_u(p, r, u);
    free(z);
    fc_lcp_free(&lcp);
    return st;
}
