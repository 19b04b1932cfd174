/* The one-contact update of Gauss-Seidel on the velocity form: on the CSR
 * rows of H^T and G^T, or on the sweep's data laid out per contact
 * (fc_vsweep: fewer bytes per contact, docs/distributed.md). */
#include "solvers/velocity_contact.h"
#include "matrix/bsr.h"

#include <limits.h>

void fc_velocity_contact(const fc_local *loc, const fc_local_params *par, const fc_matrix *Ht,
                         const fc_matrix *Gt, int row, const double *wa, double *ra, double *v)
{
    int d = loc->d;
    double qa[5] = {0}, rn[5] = {0};
    for (int k = 0; k < d; k++) {
        qa[k] = csr_row_dot(Ht, row + k, v) + wa[k];
        for (int l = 0; l < d; l++) qa[k] -= loc->W[k + l * d] * ra[l];
        rn[k] = ra[k];
    }
    fc_local_solve(loc, qa, par, rn);
    for (int k = 0; k < d; k++) {
        double dr = rn[k] - ra[k];
        if (dr == 0.0) continue;
        int j = row + k;
        for (int t = Gt->p[j]; t < Gt->p[j + 1]; t++) v[Gt->j[t]] += dr * Gt->x[t];
        ra[k] = rn[k];
    }
}

/* ---- the per-contact layout ---- */

/* Largest segment (dofs): a block of M^-1 or, stored, a run of them. */
#define VSWEEP_MAX_SEG 64
/* A contact's values start with its W_aa (d x d, column-major), mu, mu_r;
 * for d = 3 then W_aa's factor (fc_local's lu) and one slot holding its
 * pivots, lu_ok and iso (fc_vsweep_set_local), so that the closed forms
 * need no factorisation in the sweep. */
#define VSWEEP_LU (3 * 3 + 2)          /* d = 3: the factor's 9 values, */
#define VSWEEP_META (VSWEEP_LU + 9)    /* then the slot of piv, lu_ok, iso */
#define VSWEEP_HEAD(d) ((d) == 3 ? VSWEEP_META + 1 : (d) * (d) + 2)

void fc_vsweep_free(fc_vsweep *S)
{
    free(S->sptr); free(S->seg); free(S->voff); free(S->val); free(S->minv);
    memset(S, 0, sizeof *S);
}

/* The sub-blocks of the s x s block B: contiguous intervals with no
 * nonzero between two of them; their ends into end[] (count returned). */
static int split_block(int s, const double *B, int *end)
{
    int n = 0, lo = 0;
    while (lo < s) {
        int hi = lo + 1;
        for (int i = lo; i < hi; i++)
            for (int j = hi; j < s; j++)
                if (B[i + j * s] != 0.0 || B[j + i * s] != 0.0) hi = j + 1;
        end[n++] = hi;
        lo = hi;
    }
    return n;
}

int fc_vsweep_build(fc_vsweep *S, int mode, int d, int nc, const fc_matrix *Ht, int nblk,
                    const int *bptr, const double *binv, const long *boff, const int *bscale)
{
    int nv = bptr[nblk], ret = -1;
    memset(S, 0, sizeof *S);
    S->d = d; S->nc = nc; S->mode = mode;
    /* sub-blocks: first[i] the first dof of dof i's; size and moff (its offset
     * in minv) at a sub-block's first dof; mark: scratch */
    int *first = fc_calloc((size_t)nv + 1, sizeof *first), *mark = fc_calloc((size_t)nv + 1, sizeof *mark);
    int *size = fc_calloc((size_t)nv + 1, sizeof *size);
    long *moff = fc_calloc((size_t)nv + 1, sizeof *moff);
    S->sptr = fc_calloc((size_t)nc + 1, sizeof *S->sptr);
    S->voff = fc_calloc((size_t)nc + 1, sizeof *S->voff);
    if (!first || !mark || !size || !moff || !S->sptr || !S->voff) goto out;
    long msz = 0;
    for (int b = 0; b < nblk; b++) {
        int s = bptr[b + 1] - bptr[b], end[VSWEEP_MAX_SEG], lo = 0;
        if (s > VSWEEP_MAX_SEG) { ret = 1; goto out; }
        int ns = split_block(s, binv + boff[b], end);
        for (int k = 0; k < ns; k++) {
            for (int i = lo; i < end[k]; i++) first[bptr[b] + i] = bptr[b] + lo;
            moff[bptr[b] + lo] = msz;
            size[bptr[b] + lo] = end[k] - lo;
            msz += (long)(end[k] - lo) * (end[k] - lo);
            lo = end[k];
        }
    }
    if (msz > INT_MAX) { ret = 1; goto out; }
    if (!(S->minv = fc_calloc((size_t)msz + 1, sizeof *S->minv))) goto out;
    for (int b = 0; b < nblk; b++) {
        int s = bptr[b + 1] - bptr[b];
        const double *B = binv + boff[b];
        double k = bscale ? bscale[b] : 1.0;
        for (int lo = 0; lo < s;) {
            int c0 = bptr[b] + lo, hi = lo + size[c0];
            double *D = S->minv + moff[c0];
            for (int j = lo; j < hi; j++)
                for (int i = lo; i < hi; i++) D[(i - lo) + (j - lo) * (hi - lo)] = k * B[i + j * s];
            lo = hi;
        }
    }
    /* the contacts' segments: the sub-blocks their rows touch, in dof order;
     * stored G: adjacent ones merged into runs.  Two passes: count, fill. */
    long nseg = 0, nval = 0;
    for (int pass = 0; pass < 2; pass++) {
        nseg = 0; nval = 0;
        for (int a = 0; a < nc; a++) {
            int list[VSWEEP_MAX_SEG], nl = 0;
            for (int k = 0; k < d; k++)
                for (int t = Ht->p[d * a + k]; t < Ht->p[d * a + k + 1]; t++) {
                    int c = first[Ht->j[t]];
                    if (mark[c] == a + 1) continue;
                    mark[c] = a + 1;
                    if (nl == VSWEEP_MAX_SEG) { ret = 1; goto out; }
                    list[nl++] = c;
                }
            for (int i = 1; i < nl; i++)   /* insertion sort: a few segments */
                for (int j = i; j > 0 && list[j - 1] > list[j]; j--) { int t = list[j]; list[j] = list[j - 1]; list[j - 1] = t; }
            for (int i = 0; i < nl; i++) mark[list[i]] = 0;
            long v0 = nval;
            nval += VSWEEP_HEAD(d);   /* W_aa, mu, mu_r: fc_vsweep_set_local */
            for (int i = 0; i < nl;) {
                /* a segment: one sub-block, or a run of adjacent ones (stored G; or
                 * 1 x 1 ones, a diagonal inverse: length stored negated) */
                int c0 = list[i], len = 0, j = i, diag = mode == FC_VSWEEP_IMPLICIT && size[c0] == 1;
                do len += size[list[j++]];
                while (j < nl && (mode == FC_VSWEEP_STORED || (diag && size[list[j]] == 1)) &&
                       list[j] == c0 + len && len + size[list[j]] <= VSWEEP_MAX_SEG);
                if (pass == 1) {
                    int *g = S->seg + 3 * nseg;
                    g[0] = c0; g[1] = diag ? -len : len; g[2] = (int)moff[c0];
                    double *h = S->val + nval;   /* H^T rows: h[k * len + c] */
                    for (int k = 0; k < d; k++)
                        for (int t = Ht->p[d * a + k]; t < Ht->p[d * a + k + 1]; t++) {
                            int col = Ht->j[t];
                            if (col >= c0 && col < c0 + len) h[k * len + col - c0] += Ht->x[t];
                        }
                    if (mode == FC_VSWEEP_STORED) {   /* G^T rows: M^-1 by sub-block */
                        double *gx = h + (long)d * len;
                        for (int lo = 0; lo < len;) {
                            int s = size[c0 + lo];
                            const double *D = S->minv + moff[c0 + lo];
                            for (int k = 0; k < d; k++)
                                for (int i = 0; i < s; i++) {
                                    double sum = 0.0;
                                    for (int c = 0; c < s; c++) sum += D[i + c * s] * h[k * len + lo + c];
                                    gx[k * len + lo + i] = sum;
                                }
                            lo += s;
                        }
                    }
                }
                nseg++;
                nval += (long)(mode == FC_VSWEEP_STORED ? 2 : 1) * d * len;
                i = j;
            }
            if (pass == 0) S->sptr[a + 1] = (int)nseg;
            S->voff[a] = v0;
        }
        S->voff[nc] = nval;
        if (pass == 0 && (nseg > INT_MAX / 3 ||
                          !(S->seg = fc_calloc((size_t)3 * nseg + 1, sizeof *S->seg)) ||
                          !(S->val = fc_calloc_touched((size_t)nval + 1, sizeof *S->val))))
            goto out;
    }
    if (mode == FC_VSWEEP_STORED) { free(S->minv); S->minv = NULL; }
    ret = 0;
out:
    free(first); free(mark); free(size); free(moff);
    if (ret) fc_vsweep_free(S);
    return ret;
}

void fc_vsweep_set_local(fc_vsweep *S, int a, const fc_local *loc)
{
    int d = S->d;
    double *x = S->val + S->voff[a];
    memcpy(x, loc->W, (size_t)d * d * sizeof *x);
    x[d * d] = loc->mu;
    x[d * d + 1] = loc->mu_r;
    if (d == 3) {
        signed char meta[sizeof(double)] = {loc->piv[0], loc->piv[1], loc->piv[2], loc->lu_ok, loc->iso};
        memcpy(x + VSWEEP_LU, loc->lu, sizeof loc->lu);
        memcpy(x + VSWEEP_META, meta, sizeof meta);
    }
}

/* c's fields the closed forms read (d, mu, W and, d = 3, the factor). */
static inline void head_local(int D, const double *x, fc_local *c)
{
    c->d = (signed char)D;
    c->mu = x[D * D];
    memcpy(c->W, x, (size_t)D * D * sizeof *x);
    if (D == 3) {
        signed char meta[sizeof(double)];
        memcpy(c->lu, x + VSWEEP_LU, sizeof c->lu);
        memcpy(meta, x + VSWEEP_META, sizeof meta);
        c->piv[0] = meta[0]; c->piv[1] = meta[1]; c->piv[2] = meta[2];
        c->lu_ok = meta[3];
        c->iso = meta[4];
    }
}

/* qa += H_seg v_seg: the d rows' values h[k s + c] (S, D constants in
 * the callers for the common segments, so the loops unroll). */
static inline void seg_dot(int D, int S, const double *h, const double *vs, double *qa)
{
    for (int c = 0; c < S; c++) {
        double vc = vs[c];
        for (int k = 0; k < D; k++) qa[k] += h[k * S + c] * vc;
    }
}

/* t = H_seg^T dr (or G_seg^T dr). */
static inline void seg_tdot(int D, int S, const double *h, const double *dr, double *t)
{
    for (int c = 0; c < S; c++) {
        double y = 0.0;
        for (int k = 0; k < D; k++) y += h[k * S + c] * dr[k];
        t[c] = y;
    }
}

/* Contact a's qa = H_a^T v + w_a - W_aa r_a and the hybrid's closed
 * forms (d = 3, fc_local_closed_3d): 0 take-off or sticking, 1 sliding in
 * closed form (rn the answer), 2 when the search must run
 * (fc_local_solve_open on c, set up in d, mu, W and the factor). */
static inline int closed_form(int D, const fc_vsweep *S, int a, const fc_local_params *par,
                              const double *wa, const double *ra, const double *v, double *qa, double *rn,
                              fc_local *c)
{
    const double *x = S->val + S->voff[a], *Wa = x;
    const int *g0 = S->seg + 3 * S->sptr[a], *g1 = S->seg + 3 * S->sptr[a + 1];
    int stored = S->mode == FC_VSWEEP_STORED;
    for (int k = 0; k < D; k++) {
        double s = wa[k];
        for (int l = 0; l < D; l++) s -= Wa[k + l * D] * ra[l];
        qa[k] = s;
        rn[k] = ra[k];
    }
    const double *h = x + VSWEEP_HEAD(D);
    for (const int *g = g0; g < g1; g += 3) {
        const double *vs = v + g[0];
        int s = abs(g[1]);
        if (s == 3) seg_dot(D, 3, h, vs, qa);   /* a rigid body's translation, rotation */
        else if (s == 6) seg_dot(D, 6, h, vs, qa);
        else seg_dot(D, s, h, vs, qa);
        h += (stored ? 2 : 1) * D * s;
    }
    head_local(D, x, c);
    if (D != 3 || par->kind != FC_LOCAL_HYBRID) return 2;
    int k = fc_local_closed_3d(c, qa, par->tol, rn);
    return k < 0 ? 2 : k;
}

/* The update of contact a for d = D (a constant in each caller below, so
 * that the compiler unrolls the d loops). */
static inline int vsweep_contact(int D, const fc_vsweep *S, int a, int next,
                                 const fc_local_params *par, const double *wa, double *ra, double *v)
{
    const double *x = S->val + S->voff[a], *Wa = x;
    if (next >= 0) {   /* the next contact's first lines while this one computes */
        const char *nx = (const char *)(S->val + S->voff[next]);
        __builtin_prefetch(nx);
        __builtin_prefetch(nx + 64);
        __builtin_prefetch(nx + 128);
        __builtin_prefetch(S->seg + 3 * S->sptr[next]);
    }
    const int *g0 = S->seg + 3 * S->sptr[a], *g1 = S->seg + 3 * S->sptr[a + 1];
    int stored = S->mode == FC_VSWEEP_STORED;
    double qa[5] = {0}, rn[5] = {0}, dr[5];
    fc_local c;
    int cf = closed_form(D, S, a, par, wa, ra, v, qa, rn, &c);
    if (cf == 2) {
        fc_local_setup(&c, D, Wa, Wa[D * D], Wa[D * D + 1]);
        fc_local_solve_open(&c, qa, par, rn);
    }
    int solved = cf != 0;
    int moved = 0;
    for (int k = 0; k < D; k++) {
        dr[k] = rn[k] - ra[k];
        moved |= dr[k] != 0.0;
        ra[k] = rn[k];
    }
    if (!moved) return solved;
    const double *h = x + VSWEEP_HEAD(D);
    for (const int *g = g0; g < g1; g += 3) {
        double *vs = v + g[0];
        int s = abs(g[1]);
        double t[VSWEEP_MAX_SEG];
        const double *hg = stored ? h + D * s : h;   /* stored: G's rows after H's */
        if (s == 3) seg_tdot(D, 3, hg, dr, t);
        else if (s == 6) seg_tdot(D, 6, hg, dr, t);
        else seg_tdot(D, s, hg, dr, t);
        h += (stored ? 2 : 1) * D * s;
        if (stored) {   /* v += G_a dr */
            for (int c = 0; c < s; c++) vs[c] += t[c];
            continue;
        }
        const double *B = S->minv + g[2];   /* v += M_b^-1 (H_a^T dr) */
        if (g[1] < 0) {   /* a run of 1 x 1 blocks: their inverses in a row */
            for (int c = 0; c < s; c++) vs[c] += B[c] * t[c];
        } else if (s == 3) {
            for (int i = 0; i < 3; i++) vs[i] += B[i] * t[0] + B[i + 3] * t[1] + B[i + 6] * t[2];
        } else {
            for (int c = 0; c < s; c++)
                for (int i = 0; i < s; i++) vs[i] += B[i + c * s] * t[c];
        }
    }
    return solved;
}

int fc_vsweep_probe(const fc_vsweep *S, int a, const fc_local_params *par, const double *wa,
                    const double *ra, const double *v)
{
    double qa[5] = {0}, rn[5] = {0};
    fc_local c;
    return closed_form(S->d, S, a, par, wa, ra, v, qa, rn, &c) != 0;
}

int fc_vsweep_contact(const fc_vsweep *S, int a, int next, const fc_local_params *par,
                      const double *wa, double *ra, double *v)
{
    switch (S->d) {
    case 3: return vsweep_contact(3, S, a, next, par, wa, ra, v);
    case 2: return vsweep_contact(2, S, a, next, par, wa, ra, v);
    default: return vsweep_contact(S->d, S, a, next, par, wa, ra, v);
    }
}
