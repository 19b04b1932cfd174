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
 * Equality rows (V, R, s; solve_local_eq): the multipliers are Gauss-Seidel
 * blocks (eqblock.h) swept exactly before the contacts, whose q then
 * includes V lambda; the iterate (and Anderson's) is (r, lambda).
 *
 * The coloured order (nsgs.order, matrix/colour.h): contacts coloured so
 * that those of one colour do not couple in W; a sweep takes the colours
 * in turn and the contacts of a colour in parallel (OpenMP, static
 * schedule).  Each contact sees the same values whatever the thread count,
 * so the result is the same for any count.  shuffle then permutes the
 * colours.  The equality blocks stay sequential, before the contacts.
 *
 * The half sweep (nsgs.half; the file order, W symmetric): W's upper
 * block triangle alone, each block used for its row's gather and,
 * transposed, for its column's scatter into the accumulator t
 * (half_update_d; docs/solvers.md#the-half-sweep-nsgshalf): half of W's
 * reads a sweep, the same iterates to round-off.  In the stretches' order
 * the same inside each stretch (its thread alone writes its contacts' t),
 * the interface's blocks gathered in full (fc_bsr_upper_stretches).
 *
 * The stretches' phases (nsgs.phases, fc_stretch_blocks): with 2 the
 * order is cut into twice as many pieces as threads, the even pieces
 * swept at once, then the odd ones; a piece's rows gather the blocks to
 * the other phase's pieces in full, as those to the interface, which is
 * then at most a few contacts.
 *
 * The stretches' numbering (nsgs.renumber, renumber below): the sweeps,
 * the measure and Anderson run with contact col.member[i] stored at
 * position i, so that a stretch's per-contact data is one contiguous
 * range; r and u are returned in the problem's numbering.
 *
 * All workspace is allocated once, before the sweeps. */
#include "internal.h"
#include "cone/cone.h"
#include "matrix/bsr.h"
#include "measure/measure.h"
#include "core/firstorder.h"
#include "solvers/eqblock.h"
#include "matrix/colour.h"
#include "matrix/upper.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

/* PSOR's relaxation when opt->nsgs.omega is left at its default 1.0. */
#define FC_PSOR_DEFAULT_OMEGA 1.5
/* Most sweeps between two measurements of the error (adaptive mode). */
#define FC_NSGS_MEASURE_GAP 8
/* Measure when the predicted error is below this many times the tolerance. */
#define FC_NSGS_PREDICT_MARGIN 2.0
/* The half sweep: W counts as symmetric when each block pair is so to this
 * relative tolerance (fc_bsr_upper; W = H M^-1 H^T is to round-off). */
#define FC_NSGS_HALF_SYM 1e-12
/* nsgs.half's auto: the half sweep from this many contacts (below, about
 * as fast as the full rows: docs/measurements.md, tenth sweep session). */
#define FC_NSGS_HALF_FROM 1000
/* The stretches' W r: interface rows a thread takes at a time (a few
 * blocks' rows: the static schedule's share without a call per row). */
#define FC_NSGS_AFFINE_ROWS 64

/* The solver's workspace. */
typedef struct nsgs_work {
    fc_matrix *Wb;      /* W as d x d block-CSR (NULL when W already is) */
    fc_local *loc;      /* nc one-contact data (diagonal blocks)         */
    int *order;         /* nc contact order (file order)                 */
    fc_colouring col;   /* the colours (col.ncolours == 0: file order)   */
    fc_matrix *Wc;      /* coloured: W's block rows in the colours' order
                           (row i: contact col.member[i]) without the
                           diagonal blocks, so that a colour streams one
                           stretch of memory (docs/solvers.md#nsgs-psor) */
    int *corder;        /* col.ncolours: the colours' order              */
    int nlev, nseg;     /* the stretches' interface: its levels, segments */
    int *seg_row;       /* its Wc rows by level (interface_levels)       */
    int *seg_ptr;       /* segment g: seg_row[seg_ptr[g] .. seg_ptr[g+1]) */
    char *seg_par;      /* 1: one level, on the threads; 0: levels in
                           order on one thread                           */
    double *rlast;      /* m: last finite iterate (with Anderson; without,
                           x0 holds it)                                  */
    double *x;          /* m: the point the current sweep started from,
                           when not accelerated (else aa.x, saved by
                           fo_accel_save: one copy per sweep, not two)   */
    fo_accel aa;        /* acceleration (aa.on == 0 when off)            */
    fc_eqb eq;          /* equality blocks (eq.neq == 0: none)           */
    double *xe;         /* m + neq: (r, lambda) when neq > 0             */
    double *qe;         /* m: q + V lambda when neq > 0                  */
    fc_matrix *Wh;      /* the half sweep (nsgs.half): W's upper block
                           triangle, each row's diagonal block first;
                           NULL: the full rows                           */
    double *t;          /* m: with Wh, t_a = sum over the contacts b < a
                           swept so far of W_ba r_b, scattered from their
                           rows; zeroed again as contact a reads it;
                           with split, over those of a's own stretch   */
    int *split;         /* the stretches' half sweep: Wc from
                           fc_bsr_upper_stretches (no diagonal
                           blocks), row i scattering from split[i]    */
    int *orig;          /* nc: renumbered (nsgs.renumber), the problem's
                           contact stored at position i (the stretches'
                           order; col.member then the identity, Wc's
                           columns and all per-contact data by position);
                           NULL: the problem's numbering                 */
    double *qp, *rp;    /* m: q and the iterate r in that numbering      */
    double *mup, *murp; /* nc: mu and mu_r (NULL without) in it          */
} nsgs_work;

static void work_free(nsgs_work *w)
{
    fc_matrix_free(w->Wb);
    free(w->loc);
    free(w->order);
    fc_colouring_free(&w->col);
    fc_matrix_free(w->Wc);
    free(w->corder);
    free(w->seg_ptr);
    free(w->seg_par);
    free(w->seg_row);
    free(w->rlast);
    free(w->x);
    fo_accel_free(&w->aa);
    fc_eqb_free(&w->eq);
    free(w->xe);
    free(w->qe);
    fc_matrix_free(w->Wh);
    free(w->t);
    free(w->split);
    free(w->orig);
    free(w->qp);
    free(w->rp);
    free(w->mup);
    free(w->murp);
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

/* The update of contact a of dimension d (a constant in the inlined
 * copies below, for block-CSR W with d x d blocks when bsr) from block row
 * `row` of W (its diagonal block skipped when skip); 1 when its local
 * solve missed the local tolerance. */
static inline int update_d(const fc_matrix *W, int row, int skip, const nsgs_work *w,
                           const fc_local_params *par, double omega, const double *q, double *r,
                           int d, int bsr, int a)
{
    double qa[5], ra[5], *rp = r + (size_t)d * a;
    if (bsr) bsr_row_dot(W, d, row, r, skip, qa);
    else fc_matrix_block_row_dot(W, row, d, r, skip, qa);
    for (int k = 0; k < d; k++) {
        qa[k] += q[(size_t)d * a + k];
        ra[k] = rp[k];
    }
    double e = fc_local_solve(&w->loc[a], qa, par, ra);
    if (omega == 1.0) {
        for (int k = 0; k < d; k++) rp[k] = ra[k];
    } else {
        for (int k = 0; k < d; k++) rp[k] = omega * ra[k] + (1.0 - omega) * rp[k];
    }
    return !(e <= par->tol);
}

/* update_d with d a constant where W is block-CSR with 3 x 3 or 2 x 2
 * blocks (the block loops unroll and accumulate in registers; inside an
 * OpenMP region the compiler does not propagate a caller's constant). */
static inline int update(const fc_matrix *W, int row, int skip, const nsgs_work *w,
                         const fc_local_params *par, double omega, const double *q, double *r,
                         int d, int bsr, int a)
{
    if (bsr && d == 3) return update_d(W, row, skip, w, par, omega, q, r, 3, 1, a);
    if (bsr && d == 2) return update_d(W, row, skip, w, par, omega, q, r, 2, 1, a);
    return update_d(W, row, skip, w, par, omega, q, r, d, bsr, a);
}

/* The half sweep's update of contact a from row `row` of H (d a constant
 * in the inlined copies below): q'_a = q_a + t_a + the row's W_ab r_b (past
 * its diagonal block: b not yet swept, the previous values), as the full
 * row gives it (W_ba = W_ab^T); then the one-contact solve, and the row's
 * blocks from ks on scatter the new r_a into the later contacts' t_b +=
 * W_ab^T r_a.  The file order: H = Wh, row a, k0 and ks its blocks past
 * the diagonal; the stretches: H = Wc (no diagonal blocks), k0 its start,
 * ks = split[row]. */
static inline int half_update_d(const fc_matrix *H, int row, int k0, int ks, const nsgs_work *w,
                                const fc_local_params *par, double omega, const double *q, double *r,
                                int d, int a)
{
    double qa[5] = {0}, ra[5] = {0}, acc[5] = {0}, *rp = r + (size_t)d * a, *ta = w->t + (size_t)d * a, *t = w->t;
    int k1 = H->p[row + 1];
    for (int k = k0; k < k1; k++) {   /* acc, not qa: in registers (qa's address escapes) */
        const double *B = H->x + (size_t)k * d * d, *xb = r + (size_t)H->j[k] * d;
        for (int c = 0; c < d; c++)
            for (int i = 0; i < d; i++) acc[i] += B[c * d + i] * xb[c];
    }
    for (int k = 0; k < d; k++) {
        qa[k] = acc[k] + ta[k] + q[(size_t)d * a + k];
        ta[k] = 0.0;   /* ready for the next sweep */
        ra[k] = rp[k];
    }
    double e = fc_local_solve(&w->loc[a], qa, par, ra);
    if (omega != 1.0)
        for (int k = 0; k < d; k++) ra[k] = omega * ra[k] + (1.0 - omega) * rp[k];
    for (int k = 0; k < d; k++) rp[k] = ra[k];
    for (int k = ks; k < k1; k++) {   /* ra, not rp: the stores to t cannot alias it */
        const double *B = H->x + (size_t)k * d * d;
        double *tb = t + (size_t)H->j[k] * d;
        for (int c = 0; c < d; c++) {
            double s = 0.0;
            for (int i = 0; i < d; i++) s += B[c * d + i] * ra[i];
            tb[c] += s;
        }
    }
    return !(e <= par->tol);
}

/* half_update_d on the stretches' row `row` of Wc (w->split), d a constant for 3 and 2. */
static inline int half_update(const fc_matrix *H, int row, const nsgs_work *w, const fc_local_params *par,
                              double omega, const double *q, double *r, int d, int a)
{
    int k0 = H->p[row], ks = w->split[row];
    if (d == 3) return half_update_d(H, row, k0, ks, w, par, omega, q, r, 3, a);
    if (d == 2) return half_update_d(H, row, k0, ks, w, par, omega, q, r, 2, a);
    return half_update_d(H, row, k0, ks, w, par, omega, q, r, d, a);
}

/* Row i of the stretches' Wc: the half (w->split) or the full rows. */
static inline int stretch_update(const nsgs_work *w, int i, const fc_local_params *par, double omega,
                                 const double *q, double *r, int d)
{
    int a = w->col.member[i];
    return w->split ? half_update(w->Wc, i, w, par, omega, q, r, d, a)
                    : update(w->Wc, i, 0, w, par, omega, q, r, d, 1, a);
}

/* Ask for block row `row` of block-CSR W (d x d blocks) and contact c's
 * data ahead of their use, one row before: the next update's reads then
 * stream in while this one's one-contact solve computes (the hardware
 * prefetcher runs only a few lines ahead of a stream that pauses;
 * docs/measurements.md, ninth sweep session).  A hint: no effect on the
 * results. */
static inline void prefetch_row(const fc_matrix *W, int d, int row, const fc_local *c)
{
    const char *b = (const char *)(W->x + (size_t)d * d * W->p[row]);
    const char *e = (const char *)(W->x + (size_t)d * d * W->p[row + 1]);
    for (; b < e; b += 64) __builtin_prefetch(b);
    __builtin_prefetch(W->j + W->p[row + 1]);
    __builtin_prefetch(c);
    __builtin_prefetch((const char *)c + 64);
}

/* W's block rows in the order of the colours, without the diagonal
 * blocks (nsgs_work.Wc); NULL when out of memory. */
static fc_matrix *coloured_rows(const fc_matrix *W, const fc_colouring *c)
{
    size_t b2 = (size_t)W->bs * W->bs;
    long nb = 0, t = 0;
    for (int a = 0; a < c->n; a++)
        for (int k = W->p[a]; k < W->p[a + 1]; k++) nb += W->j[k] != a;
    fc_matrix *C = fc_matrix_bsr(W->rows, W->cols, W->bs, nb > 0 ? nb : 1);
    if (!C) return NULL;
    for (int i = 0; i < c->n; i++) {
        int a = c->member[i];
        for (int k = W->p[a]; k < W->p[a + 1]; k++) {
            if (W->j[k] == a) continue;
            C->j[t] = W->j[k];
            memcpy(C->x + (size_t)t * b2, W->x + (size_t)k * b2, b2 * sizeof *C->x);
            t++;
        }
        C->p[i + 1] = (int)t;
    }
    C->nnz = nb * (long)b2;
    return C;
}

/* The stretches' interface (Wc rows start[S] .. start[S+1]), swept in
 * order, as levels: a contact's level is above those of the earlier
 * interface contacts it couples to, either way (W_ab or W_ba stored), so
 * the contacts of one level read and write disjoint r and each sees the
 * values it sees in order: the same bits, the level's contacts on
 * threads.  Levels of fewer than nsgs.level_min contacts (all when 0) run
 * in order on one thread, consecutive ones together (one barrier): a
 * barrier costs more than a few updates, and under a passive wait much
 * more (docs/measurements.md, twenty-first session).  0: done, -1: out of
 * memory. */
static int interface_levels(nsgs_work *w, int level_min)
{
    const fc_colouring *c = &w->col;
    const fc_matrix *C = w->Wc;
    int S = c->stretches, i0 = c->start[S], ni = c->start[S + 1] - i0, n = c->n;
    int *inv = fc_calloc((size_t)n, sizeof *inv), *lev = fc_calloc((size_t)ni + 1, sizeof *lev);
    int *cnt = NULL;
    w->seg_row = fc_calloc((size_t)ni + 1, sizeof *w->seg_row);
    w->seg_ptr = fc_calloc((size_t)ni + 2, sizeof *w->seg_ptr);
    w->seg_par = fc_calloc((size_t)ni + 1, 1);
    if (!inv || !lev || !w->seg_row || !w->seg_ptr || !w->seg_par) goto fail;
    for (int i = 0; i < n; i++) inv[c->member[i]] = i;
    int nlev = 0;
    for (int k = 0; k < ni; k++) {   /* lev[k]: first the bound from earlier rows */
        int i = i0 + k, L = lev[k];
        for (int q = C->p[i]; q < C->p[i + 1]; q++) {
            int ib = inv[C->j[q]] - i0;
            if (ib >= 0 && ib < k && lev[ib] + 1 > L) L = lev[ib] + 1;
        }
        lev[k] = L;
        for (int q = C->p[i]; q < C->p[i + 1]; q++) {
            int ib = inv[C->j[q]] - i0;
            if (ib > k && lev[ib] < L + 1) lev[ib] = L + 1;
        }
        if (L + 1 > nlev) nlev = L + 1;
    }
    cnt = fc_calloc((size_t)nlev + 1, sizeof *cnt);
    if (!cnt) goto fail;
    for (int k = 0; k < ni; k++) cnt[lev[k] + 1]++;
    for (int l = 0; l < nlev; l++) cnt[l + 1] += cnt[l];
    int *fill = inv;   /* reused: where each level goes on */
    for (int l = 0; l < nlev; l++) fill[l] = cnt[l];
    for (int k = 0; k < ni; k++) w->seg_row[fill[lev[k]]++] = i0 + k;
    if (level_min <= 0)   /* one segment, in the contacts' order */
        for (int k = 0; k < ni; k++) w->seg_row[k] = i0 + k;
    int g = 0;
    for (int l = 0; l < nlev; l++) {
        int par = level_min > 0 && cnt[l + 1] - cnt[l] >= level_min;
        if (par || g == 0 || w->seg_par[g - 1]) { w->seg_par[g] = (char)par; w->seg_ptr[g++] = cnt[l]; }
    }
    w->seg_ptr[g] = ni;
    w->nseg = g;
    w->nlev = nlev;
    free(inv); free(lev); free(cnt);
    return 0;
fail:
    free(inv); free(lev); free(cnt);
    return -1;
}

/* nsgs.level_min as set, or for -1 its default: 16, or 0 when OpenMP
 * waits passively (OMP_WAIT_POLICY, case-insensitive), where each
 * level's barrier wakes a sleeping thread (docs/measurements.md,
 * "threads": the levels pay on a free machine, lose under a passive
 * wait). */
static int level_min_of(int level_min)
{
    if (level_min >= 0) return level_min;
    const char *p = getenv("OMP_WAIT_POLICY"), *want = "passive";
    if (!p) return 16;
    for (; *p && *want; p++, want++)
        if (tolower((unsigned char)*p) != *want) return 16;
    return *p || *want ? 16 : 0;
}

/* nsgs.renumber: the stretches' sweeps in their order's numbering,
 * position i holding contact col.member[i] (w->orig), so that a stretch's
 * q, r, t and one-contact data are one contiguous range and a row's
 * neighbours near it.  The stretches' members rise within a group, so
 * each row's blocks, the half's split and the interface's levels keep
 * their order: the same updates in the same order.  pp: p with q, mu and
 * mu_r renumbered (its W not used by the sweeps, measure's u from Wc),
 * and as the measure's scale the vector whose norm it takes, unmoved;
 * w->rp: r (from r0) renumbered.  0: done, -1: out of memory. */
static int renumber(nsgs_work *w, const fc_problem *p, const double *r0, fc_problem *pp)
{
    int n = w->col.n, d = p->d;
    size_t m = (size_t)d * n, dd = (size_t)d * sizeof *r0;
    int *inv = fc_calloc((size_t)n + 1, sizeof *inv), *id = fc_calloc((size_t)n + 1, sizeof *id);
    char *done = fc_calloc((size_t)n + 1, 1);
    w->qp = fc_calloc(m + 1, sizeof *w->qp);
    w->rp = fc_calloc(m + 1, sizeof *w->rp);
    w->mup = fc_calloc((size_t)n + 1, sizeof *w->mup);
    w->murp = p->mu_r ? fc_calloc((size_t)n + 1, sizeof *w->murp) : NULL;
    if (!inv || !id || !done || !w->qp || !w->rp || !w->mup || (p->mu_r && !w->murp)) {
        free(inv); free(id); free(done);
        return -1;
    }
    const int *mem = w->col.member;
    for (int i = 0; i < n; i++) {
        int a = mem[i];
        inv[a] = i;
        id[i] = i;
        memcpy(w->qp + (size_t)d * i, p->q + (size_t)d * a, dd);
        memcpy(w->rp + (size_t)d * i, r0 + (size_t)d * a, dd);
        w->mup[i] = p->mu[a];
        if (w->murp) w->murp[i] = p->mu_r[a];
    }
    fc_matrix *C = w->Wc;
    for (int k = 0; k < C->p[n]; k++) C->j[k] = inv[C->j[k]];
    /* loc[i] = the old loc[mem[i]], in place along each cycle of mem */
    for (int s = 0; s < n; s++) {
        if (done[s]) continue;
        fc_local first = w->loc[s];
        int i = s;
        for (; mem[i] != s; i = mem[i]) {
            w->loc[i] = w->loc[mem[i]];
            done[i] = 1;
        }
        w->loc[i] = first;
        done[i] = 1;
    }
    w->orig = w->col.member;
    w->col.member = id;
    *pp = *p;
    pp->q = w->qp;
    pp->mu = w->mup;
    pp->mu_r = w->murp;
    pp->w = p->w ? p->w : p->q;   /* measure_scale's vector: its norm alone counts */
    free(inv); free(done);
    return 0;
}

/* One Gauss-Seidel sweep; returns the number of contacts whose local
 * solve missed the local tolerance.  Coloured: one parallel region, the
 * colours in turn, each split in static chunks (the barrier at the end of
 * each `omp for` separates the colours). */
static int sweep(const fc_problem *p, const fc_matrix *W, const nsgs_work *w,
                 const fc_local_params *par, double omega, double *r)
{
    const double *q = p->q;
    if (w->eq.neq) {   /* the equality blocks first, then u's shift V lambda */
        int m = fc_problem_m(p);
        fc_eqb_sweep(&w->eq, p->s, r, r + m);
        fc_eqb_shift(&w->eq, p->q, r + m, w->qe);
        q = w->qe;
    }
    int d = p->d, missed = 0;
    if (w->Wh) {   /* the file order on the upper triangle */
        const fc_matrix *H = w->Wh;
        for (int a = 0; a < p->nc; a++) {
            if (a + 1 < p->nc) prefetch_row(H, d, a + 1, &w->loc[a + 1]);
            int ks = H->p[a] + 1;
            if (d == 3) missed += half_update_d(H, a, ks, ks, w, par, omega, q, r, 3, a);
            else if (d == 2) missed += half_update_d(H, a, ks, ks, w, par, omega, q, r, 2, a);
            else missed += half_update_d(H, a, ks, ks, w, par, omega, q, r, d, a);
        }
        return missed;
    }
    int bsr = W->kind == FC_MAT_BSR && W->bs == p->d;
    const fc_colouring *c = &w->col;
    if (!c->ncolours) {
        for (int i = 0; i < p->nc; i++) {
            int a = w->order[i];
            if (bsr && i + 1 < p->nc) prefetch_row(W, d, w->order[i + 1], &w->loc[w->order[i + 1]]);
            missed += update(W, a, 1, w, par, omega, q, r, d, bsr, a);
        }
        return missed;
    }
    int nt = fc_threads();
    if (c->stretches) {   /* one stretch per thread (phase by phase), then the interface's levels */
        int P = fc_colouring_phases(c), per = fc_phase_groups(c);
#pragma omp parallel num_threads(nt) if (nt > 1) reduction(+ : missed)
        {
            for (int ph = 0; ph < P; ph++) {
#pragma omp for schedule(static, 1)
                for (int s = ph * per; s < ph * per + per; s++)
                    for (int i = c->start[s]; i < c->start[s + 1]; i++) {
                        if (i + 1 < c->start[s + 1]) prefetch_row(w->Wc, d, i + 1, &w->loc[c->member[i + 1]]);
                        missed += stretch_update(w, i, par, omega, q, r, d);
                    }
            }
            for (int g = 0; g < w->nseg; g++) {
                if (w->seg_par[g]) {
#pragma omp for schedule(static)
                    for (int k = w->seg_ptr[g]; k < w->seg_ptr[g + 1]; k++)
                        missed += stretch_update(w, w->seg_row[k], par, omega, q, r, d);
                } else {
#pragma omp single
                    for (int k = w->seg_ptr[g]; k < w->seg_ptr[g + 1]; k++)
                        missed += stretch_update(w, w->seg_row[k], par, omega, q, r, d);
                }
            }
        }
        return missed;
    }
#pragma omp parallel num_threads(nt) if (nt > 1) reduction(+ : missed)
    for (int k = 0; k < c->ncolours; k++) {
        int col = w->corder[k];
#pragma omp for schedule(static)
        for (int i = c->start[col]; i < c->start[col + 1]; i++)
            missed += update(w->Wc, i, 0, w, par, omega, q, r, d, 1, c->member[i]);
    }
    return missed;
}

/* y_a = q_a + (W x)_a for the contacts of rows i0 .. i1 of the stretches'
 * Wc: each row gathers W_aa (the contact's copy, loc[a].W) and all its
 * blocks, and with the half (w->split) scatters those from split[i] into
 * rows later in i0 .. i1 (d a constant in the inlined copies). */
static inline void stretch_affine_d(const nsgs_work *w, int i0, int i1, const double *x,
                                    const double *q, double *y, int d)
{
    const fc_matrix *H = w->Wc;
    const int *mem = w->col.member;
    for (int i = i0; i < i1; i++) fc_copy(d, q + (size_t)d * mem[i], y + (size_t)d * mem[i]);
    for (int i = i0; i < i1; i++) {
        int a = mem[i];
        const double *xa = x + (size_t)d * a;
        double acc[5] = {0};
        for (int c = 0; c < d; c++)
            for (int r = 0; r < d; r++) acc[r] += w->loc[a].W[c * d + r] * xa[c];
        for (int k = H->p[i]; k < H->p[i + 1]; k++) {
            const double *B = H->x + (size_t)k * d * d, *xb = x + (size_t)H->j[k] * d;
            for (int c = 0; c < d; c++)
                for (int r = 0; r < d; r++) acc[r] += B[c * d + r] * xb[c];
        }
        for (int r = 0; r < d; r++) y[(size_t)d * a + r] += acc[r];
        for (int k = w->split ? w->split[i] : H->p[i + 1]; k < H->p[i + 1]; k++) {
            const double *B = H->x + (size_t)k * d * d;
            double *yb = y + (size_t)H->j[k] * d;
            for (int c = 0; c < d; c++) {
                double s = 0.0;
                for (int r = 0; r < d; r++) s += B[c * d + r] * xa[r];
                yb[c] += s;
            }
        }
    }
}

static void stretch_affine_rows(const nsgs_work *w, int i0, int i1, const double *x, const double *q,
                                double *y, int d)
{
    if (d == 3) stretch_affine_d(w, i0, i1, x, q, y, 3);
    else if (d == 2) stretch_affine_d(w, i0, i1, x, q, y, 2);
    else stretch_affine_d(w, i0, i1, x, q, y, d);
}

/* y = q + W x from the stretches' Wc (the half, or the full rows when
 * renumbered): a stretch per thread (its scatter stays in it), then the
 * interface's rows, full, in static chunks; the same sums whatever the
 * schedule. */
static void stretch_affine(const nsgs_work *w, int d, const double *x, const double *q, double *y)
{
    const fc_colouring *c = &w->col;
    int S = c->stretches, nt = fc_threads(), i0 = c->start[S], ni = c->start[S + 1] - i0;
    int chunk = FC_NSGS_AFFINE_ROWS;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
#pragma omp for schedule(static, 1) nowait
        for (int s = 0; s < S; s++) stretch_affine_rows(w, c->start[s], c->start[s + 1], x, q, y, d);
#pragma omp for schedule(static)
        for (int k = 0; k < ni; k += chunk)
            stretch_affine_rows(w, i0 + k, i0 + (k + chunk < ni ? k + chunk : ni), x, q, y, d);
    }
}

/* The SPEC error at the sweep's (r, lambda), u into u; with equalities the
 * larger of the contact error and the equality residual (*eqres).  half:
 * u from the half sweep's triangle when there is one (half of W's reads;
 * W r to round-off), and from Wc when renumbered (p then the renumbered
 * problem, W unused), else from W. */
static double measure(const fc_problem *p, const fc_matrix *W, const nsgs_work *w,
                      const double *r, double *u, double *eqres, int half)
{
    int m = fc_problem_m(p);
    if (half && w->Wh) fc_bsr_upper_affine(w->Wh, r, w->eq.neq ? w->qe : p->q, u);
    else if (half && (w->split || w->orig)) stretch_affine(w, p->d, r, w->eq.neq ? w->qe : p->q, u);
    else fc_affine(W, r, w->eq.neq ? w->qe : p->q, u);
    double err = fc_error_local(p, r, u);
    if (!w->eq.neq) return err;
    *eqres = fc_eqb_residual(&w->eq, p->s, r, r + m);
    return isnan(*eqres) ? NAN : fmax(err, *eqres);
}

/* nsgs.cut 2 (auto): a contact's estimated update cost, in units of one block
 * of its row's product: its blocks and a row's own work, and its
 * one-contact solve by the case its r is in (a take-off ends at its first
 * test, a sticking contact solves with its stored factor, a sliding one
 * takes the closed form or Newton; docs/measurements.md, twenty-seventh
 * session). */
#define FC_CUT_ROW 2
#define FC_CUT_TAKEOFF 1
#define FC_CUT_STICK 6
#define FC_CUT_SLIDE 16

/* nsgs.cut 2's weights at r (d x d block-CSR W); NULL: out of memory. */
static long *cut_weights(const fc_matrix *W, const fc_problem *p, const double *r)
{
    int d = p->d;
    long *wt = fc_calloc((size_t)p->nc + 1, sizeof *wt);
    for (int a = 0; wt && a < p->nc; a++) {
        const double *ra = r + (size_t)d * a;
        double t = 0.0;
        for (int k = 1; k < d && k < 3; k++) t += ra[k] * ra[k];
        long c = !(ra[0] > 0.0) ? FC_CUT_TAKEOFF
               : p->mu[a] > 0.0 && sqrt(t) >= p->mu[a] * ra[0] * (1.0 - 1e-9) ? FC_CUT_SLIDE : FC_CUT_STICK;
        wt[a] = W->p[a + 1] - W->p[a] + FC_CUT_ROW + c;
    }
    return wt;
}

/* Why the half sweep was not built (why: fc_bsr_symmetric's 1 or -1). */
static void log_full_rows(const fc_options *opt, int why)
{
    fc_log(opt, 1, why > 0 ? "nsgs: W not symmetric to %.0e a block pair: the full rows"
                           : "nsgs: no memory for the half sweep (%.0e): the full rows",
           FC_NSGS_HALF_SYM);
}

/* The common driver of nsgs and psor with relaxation omega. */
static fc_status nsgs_run(const fc_problem *p, const fc_options *opt, double omega,
                          double *r_out, double *u, double *lambda, fc_info *info)
{
    int d = p->d, nc = p->nc, m0 = d * nc, neq = lambda ? p->neq : 0;
    int m = m0 + neq;   /* the iterate: r, then lambda */
    const fc_nsgs_options *o = &opt->nsgs;
    nsgs_work w = {0};
    fc_problem pr;             /* renumbered: p in the stretches' numbering */
    const fc_problem *ps = p;  /* the sweeps' problem: p or &pr */
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
    double *r = r_out, eqres = 0.0;
    if (neq) {
        int e = fc_eqb_init(&w.eq, p, info->message, sizeof info->message);
        if (e > 0) {
            work_free(&w);
            info->status = FC_STATUS_ERROR;
            return FC_STATUS_ERROR;
        }
        oom |= e < 0;
        w.xe = fc_calloc((size_t)m, sizeof *w.xe);
        w.qe = fc_calloc((size_t)m0, sizeof *w.qe);
        if (w.xe && w.qe) {
            memcpy(w.xe, r_out, (size_t)m0 * sizeof *r);
            memcpy(w.xe + m0, lambda, (size_t)neq * sizeof *r);
            r = w.xe;
        }
    }
    if (!w.loc || !w.order || !w.rlast || oom || !x0 || (neq && !(w.xe && w.qe))) {
        work_free(&w);
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    fc_local_setup_all(p, W, w.loc);
    for (int a = 0; a < nc; a++) w.order[a] = a;
    int order = W->kind == FC_MAT_BSR ? fc_sweep_order(o->order, nc) : FC_ORDER_FILE;
    if (order == FC_ORDER_STRETCHES && o->shuffle) order = FC_ORDER_FILE;
    /* the half sweep (file order or stretches): fixed order, d x d blocks,
     * W symmetric (checked below) */
    int half = (o->half == 1 || (o->half == 0 && nc >= FC_NSGS_HALF_FROM)) && !o->shuffle &&
               W->kind == FC_MAT_BSR && W->bs == d;
    if (order != FC_ORDER_FILE) {
        int e = -1, bycost = o->cut != 1;   /* auto: by cost */
        if (order == FC_ORDER_STRETCHES) {
            /* a non-finite r: the zeros (w.rlast, not yet set) the sweeps start from */
            long *wt = bycost ? cut_weights(W, p, fc_all_finite((size_t)m0, r) ? r : w.rlast) : NULL;
            if (wt || !bycost) e = fc_stretch_blocks(W, fc_threads(), fc_phases_option(o->phases), wt, bycost, &w.col);
            free(wt);
        } else
            e = fc_colour_blocks(W, fc_colour_limit(order, nc), &w.col);
        if (!e) {
            w.corder = fc_calloc((size_t)w.col.ncolours, sizeof *w.corder);
            if (w.col.stretches && half) {
                /* the half sweep on the stretches: W symmetric; else (or
                 * out of memory for it) the full rows */
                int why = fc_bsr_symmetric(W, FC_NSGS_HALF_SYM);
                if (!why) w.Wc = fc_bsr_upper_stretches(W, &w.col, &w.split);
                w.t = w.Wc ? fc_calloc_touched((size_t)m0, sizeof *w.t) : NULL;
                if (w.Wc && w.t)
                    fc_log(opt, 1, "nsgs: the half sweep on the stretches (%d of %d blocks)",
                           w.Wc->p[nc], W->p[nc]);
                else {
                    fc_matrix_free(w.Wc); w.Wc = NULL;
                    free(w.split); w.split = NULL;
                    free(w.t); w.t = NULL;
                    log_full_rows(opt, why);
                }
            }
            if (!w.Wc) w.Wc = coloured_rows(W, &w.col);
        }
        if (e < 0 || (!e && !(w.corder && w.Wc))) {
            work_free(&w);
            snprintf(info->message, sizeof info->message, "out of memory");
            return FC_STATUS_ERROR;
        }
        for (int k = 0; k < w.col.ncolours; k++) w.corder[k] = k;
        if (w.col.stretches && interface_levels(&w, level_min_of(o->level_min))) {
            work_free(&w);
            snprintf(info->message, sizeof info->message, "out of memory");
            return FC_STATUS_ERROR;
        }
        if (w.split && w.Wb) { fc_matrix_free(w.Wb); w.Wb = NULL; W = p->W; }   /* as for Wh below */
        if (w.col.stretches) {
            int on = 0;   /* interface contacts in the levels swept on threads */
            for (int g = 0; g < w.nseg; g++) on += w.seg_par[g] ? w.seg_ptr[g + 1] - w.seg_ptr[g] : 0;
            fc_log(opt, 1, "nsgs: %d stretches in %d phases for %d contacts, %d at the interface in %d levels "
                   "(%d contacts on threads, %d segments)", w.col.stretches, fc_colouring_phases(&w.col), nc,
                   w.col.start[w.col.stretches + 1] - w.col.start[w.col.stretches], w.nlev, on, w.nseg);
        }
        else
            fc_log(opt, 1, e ? "nsgs: more than %d colours for %d contacts: file order"
                             : "nsgs: %d colours for %d contacts",
                   e ? fc_colour_limit(order, nc) : w.col.ncolours, nc);
        /* the stretches' numbering; not with equalities (their blocks'
         * V and the shift keep the problem's) */
        if (w.col.stretches && !neq && o->renumber != 2) {
            if (renumber(&w, p, r_out, &pr)) {
                work_free(&w);
                snprintf(info->message, sizeof info->message, "out of memory");
                return FC_STATUS_ERROR;
            }
            ps = &pr;
            r = w.rp;
            int moved = 0;
            for (int i = 0; i < nc; i++) moved += w.orig[i] != i;
            fc_log(opt, 1, "nsgs: the stretches renumbered (%d of %d contacts moved)", moved, nc);
        }
    }
    /* the half sweep: file order, fixed, W symmetric; W's block copy, if
     * any, then no longer needed (the last u comes from p->W).  Out of
     * memory for it: the full rows. */
    if (half && order == FC_ORDER_FILE) {
        int why;
        w.Wh = fc_bsr_upper(W, FC_NSGS_HALF_SYM, &why);
        w.t = w.Wh ? fc_calloc_touched((size_t)m0, sizeof *w.t) : NULL;
        if (w.Wh && !w.t) { fc_matrix_free(w.Wh); w.Wh = NULL; why = -1; }
        if (w.Wh) {
            fc_log(opt, 1, "nsgs: the half sweep on W's upper block triangle (%d of %d blocks)",
                   w.Wh->p[nc], W->p[nc]);
            if (w.Wb) { fc_matrix_free(w.Wb); w.Wb = NULL; W = p->W; }
        } else
            log_full_rows(opt, why);
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
        if (o->shuffle && w.col.ncolours) shuffle(w.col.ncolours, w.corder, &seed);
        else if (o->shuffle) shuffle(nc, w.order, &seed);
        fc_copy(m, r, w.aa.on ? w.aa.x : w.x);   /* x0: fo_accel_save's copy, on threads */
        missed = sweep(ps, W, &w, &par, omega, r);
        it++;
        double fres, rn;   /* ||G(x) - x||, ||G(x)||, squared; on the threads: a
                              serial loop here left the other thread asleep
                              at the next sweep's start */
        fc_sq_dist_norm(m, r, x0, &fres, &rn);
        /* finite sums: a finite r (the full scan only when they overflow) */
        if (!(isfinite(fres) && isfinite(rn)) && !fc_all_finite((size_t)m, r)) {
            memcpy(r, w.aa.on ? w.rlast : x0, (size_t)m * sizeof *r);
            st = FC_DIVERGED;
            snprintf(info->message, sizeof info->message,
                     "non-finite iterate at sweep %d; last finite iterate kept", it);
            break;
        }
        /* without Anderson the next sweep's x0 is this r: no copy */
        if (w.aa.on) fc_copy(m, r, w.rlast);
        fres = sqrt(fres);
        double change = fres / fmax(sqrt(rn), 1e-300);
        int due = every > 0 ? it % every == 0
                            : it == 1 || it - checked_at >= FC_NSGS_MEASURE_GAP ||
                              !(ratio * change > FC_NSGS_PREDICT_MARGIN * opt->tolerance);
        if (due || it >= opt->max_iter) {
            err = measure(ps, W, &w, r, u, &eqres, 1);
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
        fo_accel_apply(&w.aa, ps, it - 1, err, NULL, r);   /* err: the last computed */
    }
    if (w.aa.extrapolated) memcpy(r, w.rlast, (size_t)m * sizeof *r); /* a checked iterate */
    if (w.aa.on) fc_log(opt, 1, "nsgs: %d accelerated sweeps accepted", w.aa.accepted);
    if (w.orig) {   /* back to the problem's numbering */
        for (int i = 0; i < nc; i++)
            memcpy(r_out + (size_t)d * w.orig[i], r + (size_t)d * i, (size_t)d * sizeof *r);
        r = r_out;
    }
    if (neq) fc_eqb_shift(&w.eq, p->q, r + m0, w.qe);
    measure(p, W, &w, r, u, &eqres, 0);   /* the returned u from W itself */
    info->iterations = it;
    info->residual = fc_error_local(p, r, u);
    info->eq_residual = eqres;
    if (neq) {
        if (st == FC_CONVERGED && !(eqres <= opt->tolerance)) st = FC_MAX_ITER;
        memcpy(r_out, r, (size_t)m0 * sizeof *r);
        memcpy(lambda, r + m0, (size_t)neq * sizeof *r);
    }
    fc_log(opt, 0, "%s: %s after %d sweeps, error %.3e, %.3f s",
           omega == 1.0 ? "nsgs" : "psor", fc_status_name(st), it, info->residual,
           fc_clock_elapsed(&clk));
    info->status = st;
    work_free(&w);
    return st;
}

/* PSOR's omega: nsgs.omega when in (0, 2) and not 1, else the default. */
static double psor_omega(const fc_options *opt)
{
    double omega = opt->nsgs.omega;
    return !(omega > 0.0 && omega < 2.0) || omega == 1.0 ? FC_PSOR_DEFAULT_OMEGA : omega;
}

fc_status fc_nsgs_solve(const fc_problem *p, const fc_options *opt, double *r,
                        double *u, fc_info *info)
{
    return nsgs_run(p, opt, opt->nsgs.omega > 0 ? opt->nsgs.omega : 1.0, r, u, NULL, info);
}

fc_status fc_nsgs_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                           double *lambda, fc_info *info)
{
    return nsgs_run(p, opt, opt->nsgs.omega > 0 ? opt->nsgs.omega : 1.0, r, u, lambda, info);
}

fc_status fc_psor_solve(const fc_problem *p, const fc_options *opt, double *r,
                        double *u, fc_info *info)
{
    return nsgs_run(p, opt, psor_omega(opt), r, u, NULL, info);
}

fc_status fc_psor_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                           double *lambda, fc_info *info)
{
    return nsgs_run(p, opt, psor_omega(opt), r, u, lambda, info);
}
