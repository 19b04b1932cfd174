/* x = A^-1 b with CHOLMOD's supernodal factor P A P' = L L', on threads.
 * CHOLMOD's own solve runs the supernodes one after the other; here the
 * supernodal elimination tree is cut in two parts:
 * - tasks: up to SN_TASKS groups of whole subtrees (each a contiguous
 *   range of supernodes in CHOLMOD's postorder), solved by different
 *   threads; in the forward solve a task's updates of rows above its
 *   subtrees go to its own buffer, added into y afterwards in task order;
 *   in the backward solve a task only reads the rows above it;
 * - the top: the supernodes above the tasks, one after the other, each
 *   large one by column panels whose rows below are split in chunks among
 *   the threads (the backward products' partial sums added in chunk
 *   order).
 * The tasks, panels and chunks depend on the factor's structure alone, so
 * the result has the same bits for any thread count (it differs from
 * cholmod_solve's by round-off).  Dense blocks go through BLAS (dtrsv,
 * dgemv) on one BLAS thread each: with a threaded OpenBLAS (a library
 * user's default) every thread's call would ask OpenBLAS' pool for more
 * threads than there are cores (docs/measurements.md, "The threaded
 * triangular solve"), so the plan applies only when OpenBLAS runs one
 * thread (as the command sets it; the Python module gives BLAS the
 * solve's thread count, so CHOLMOD's solve runs there). */
#include "internal.h"
#include "linsys/linsys.h"

#include <cblas.h>
#include <cholmod.h>
#include <omp.h>

/* At most this many subtree tasks: balanced over 2, 4, 8 threads. */
#define SN_TASKS 16

struct fc_snsolve {
    int n, nsuper, ntop, ntopsn, ntask;
    int *top;         /* the top's ntopsn supernodes, in increasing order    */
    int *owner;       /* supernode -> its task, -1: the top                 */
    int *colown;      /* column -> its supernode's owner                    */
    int *tptr, *tlist; /* task t: supernodes tlist[tptr[t] .. tptr[t + 1]), increasing */
    int *torder;      /* tasks, heaviest first (the threads' queue)         */
    int *topidx;      /* column -> index in the top's columns, -1 elsewhere */
    int *topcol;      /* the top's columns                                 */
    int panel, chunk; /* a large top supernode's panel width, row chunk     */
    double big;       /* entries from which a top supernode is split         */
    double *y;        /* the permuted right-hand side, then the solution    */
    double *buf;      /* ntask * ntop: the tasks' updates of the top        */
    double *E;        /* per task (and one for the top): a supernode's rows */
    long estride;
    double *part;     /* the chunks' partial sums of a backward panel       */
    double *xp;       /* per thread: a forward panel's solution             */
    double *z;        /* a top supernode's solved columns (forward)         */
    long pstride;
};

/* Entries a solve touches in supernode s (its triangle and rows below). */
static double sn_work(const cholmod_factor *L, int s)
{
    const int *Sup = L->super, *Pi = L->pi;
    double c = Sup[s + 1] - Sup[s], r = Pi[s + 1] - Pi[s];
    return c * (c + 1) / 2 + c * (r - c);
}

void fc_snsolve_free(fc_snsolve *S)
{
    if (!S) return;
    free(S->top); free(S->owner); free(S->colown); free(S->tptr); free(S->tlist); free(S->torder);
    free(S->topidx); free(S->topcol);
    free(S->y); free(S->buf); free(S->E); free(S->part); free(S->xp); free(S->z);
    free(S);
}

int fc_snsolve_applies(const cholmod_factor *L)
{
    return fc_blas_threads() == 1 && L && L->is_super && L->is_ll && L->xtype == CHOLMOD_REAL && L->nsuper > 1 &&
           (double)L->xsize >= 256.0 * FC_PAR_MIN;
}

fc_snsolve *fc_snsolve_new(const cholmod_factor *L)
{
    if (!fc_snsolve_applies(L)) return NULL;
    int n = (int)L->n, ns = (int)L->nsuper;
    const int *Sup = L->super, *Pi = L->pi, *Ls = L->s;
    fc_snsolve *S = calloc(1, sizeof *S);
    int *parent = fc_calloc((size_t)ns, sizeof *parent), *head = fc_calloc((size_t)ns, sizeof *head);
    int *next = fc_calloc((size_t)ns, sizeof *next), *col2s = fc_calloc((size_t)n, sizeof *col2s);
    char *intop = fc_calloc((size_t)ns, 1);
    double *sub = fc_calloc((size_t)ns, sizeof *sub), *tw = fc_calloc((size_t)ns + 1, sizeof *tw);
    int *set = fc_calloc((size_t)ns, sizeof *set);
    if (!S || !parent || !head || !next || !col2s || !intop || !sub || !tw || !set) goto fail;
    S->n = n;
    S->nsuper = ns;
    for (int s = 0; s < ns; s++)
        for (int k = Sup[s]; k < Sup[s + 1]; k++) col2s[k] = s;
    /* the supernodal tree (the parent holds the first row below the
     * triangle), its children lists and subtrees' work */
    for (int s = 0; s < ns; s++) { head[s] = -1; sub[s] = 0; }
    for (int s = ns - 1; s >= 0; s--) {
        int nscol = Sup[s + 1] - Sup[s], nsrow = Pi[s + 1] - Pi[s];
        parent[s] = nsrow > nscol ? col2s[Ls[Pi[s] + nscol]] : -1;
        if (parent[s] >= 0 && parent[s] <= s) goto fail;   /* not a tree order */
        if (parent[s] >= 0) { next[s] = head[parent[s]]; head[parent[s]] = s; }
    }
    for (int s = 0; s < ns; s++) {
        sub[s] += sn_work(L, s);
        if (parent[s] >= 0) sub[parent[s]] += sub[s];
    }
    /* split the heaviest subtree (its root to the top) until every
     * subtree holds at most 1/SN_TASKS of the subtrees' work, or the top
     * half of the whole */
    int nset = 0;
    double total = 0;
    for (int s = 0; s < ns; s++)
        if (parent[s] < 0) { set[nset++] = s; total += sub[s]; }
    for (;;) {
        int h = 0;
        double sw = 0;
        for (int k = 0; k < nset; k++) {
            sw += sub[set[k]];
            if (sub[set[k]] > sub[set[h]]) h = k;
        }
        int root = set[h];
        if (sub[root] <= sw / SN_TASKS || head[root] < 0 || sw < 0.5 * total) break;
        intop[root] = 1;
        set[h] = set[--nset];
        for (int c = head[root]; c >= 0; c = next[c]) set[nset++] = c;
    }
    /* the subtrees by their roots' order, grouped into tasks of about
     * 1/SN_TASKS of their work; every supernode belongs to its subtree
     * root's task (owner; -1: the top) */
    S->owner = fc_calloc((size_t)ns, sizeof *S->owner);
    S->tptr = fc_calloc((size_t)ns + 2, sizeof *S->tptr);
    S->tlist = fc_calloc((size_t)ns + 1, sizeof *S->tlist);
    S->torder = fc_calloc((size_t)ns + 1, sizeof *S->torder);
    S->colown = fc_calloc((size_t)n, sizeof *S->colown);
    if (!S->owner || !S->tptr || !S->tlist || !S->torder || !S->colown) goto fail;
    double sw = 0;
    for (int s = 0; s < ns; s++)
        if (!intop[s] && (parent[s] < 0 || intop[parent[s]])) sw += sub[s];
    int nt = 0;
    double acc = 0;
    for (int s = ns - 1; s >= 0; s--) S->owner[s] = -1;
    for (int s = 0; s < ns; s++)
        if (!intop[s] && (parent[s] < 0 || intop[parent[s]])) {
            if (nt == 0 || acc + sub[s] > sw * nt / SN_TASKS) tw[nt++] = 0;
            tw[nt - 1] += sub[s];
            acc += sub[s];
            S->owner[s] = nt - 1;   /* a root: its subtree below */
        }
    for (int s = ns - 1; s >= 0; s--)
        if (!intop[s] && S->owner[s] < 0) S->owner[s] = S->owner[parent[s]];
    S->ntask = nt;
    int ntopsn = 0, ntop = 0, maxrow = 0;
    for (int s = 0; s < ns; s++) {
        if (intop[s]) { ntopsn++; ntop += Sup[s + 1] - Sup[s]; }
        else S->tptr[S->owner[s] + 1]++;
        if (Pi[s + 1] - Pi[s] > maxrow) maxrow = Pi[s + 1] - Pi[s];
        for (int k = Sup[s]; k < Sup[s + 1]; k++) S->colown[k] = S->owner[s];
    }
    for (int t = 0; t < nt; t++) S->tptr[t + 1] += S->tptr[t];
    int *fill = S->torder;   /* for now: where each task's list goes on */
    for (int t = 0; t < nt; t++) fill[t] = S->tptr[t];
    for (int s = 0; s < ns; s++)
        if (!intop[s]) S->tlist[fill[S->owner[s]]++] = s;
    for (int t = 0; t < nt; t++) S->torder[t] = t;
    for (int a = 1; a < nt; a++)   /* heaviest first */
        for (int b = a; b > 0 && tw[S->torder[b]] > tw[S->torder[b - 1]]; b--) {
            int x = S->torder[b]; S->torder[b] = S->torder[b - 1]; S->torder[b - 1] = x;
        }
    S->ntop = ntop;
    S->ntopsn = ntopsn;
    S->top = fc_calloc((size_t)ntopsn + 1, sizeof *S->top);
    S->topidx = fc_calloc((size_t)n, sizeof *S->topidx);
    S->topcol = fc_calloc((size_t)ntop + 1, sizeof *S->topcol);
    if (!S->top || !S->topidx || !S->topcol) goto fail;
    int q = 0, c = 0;
    for (int k = 0; k < n; k++) S->topidx[k] = -1;
    for (int s = 0; s < ns; s++)
        if (intop[s]) {
            S->top[q++] = s;
            for (int k = Sup[s]; k < Sup[s + 1]; k++) { S->topidx[k] = c; S->topcol[c++] = k; }
        }
    /* panels and chunks scale with the kernels' threshold (tests lower it) */
    int w = FC_PAR_MIN / 16;
    S->panel = S->chunk = w < 8 ? 8 : w > 256 ? 256 : w;
    S->big = 16.0 * FC_PAR_MIN;
    int maxchunks = (maxrow + S->chunk - 1) / S->chunk + 1;
    S->estride = maxrow + 8;
    S->pstride = S->panel;
    S->y = fc_calloc((size_t)n, sizeof *S->y);
    S->buf = fc_calloc((size_t)nt * ((size_t)ntop + 1), sizeof *S->buf);
    S->E = fc_calloc((size_t)(nt + 1) * (size_t)S->estride, sizeof *S->E);
    S->part = fc_calloc((size_t)maxchunks * (size_t)S->pstride, sizeof *S->part);
    S->xp = fc_calloc((size_t)SN_TASKS * (size_t)S->panel, sizeof *S->xp);
    S->z = fc_calloc((size_t)S->estride, sizeof *S->z);
    if (!S->y || !S->buf || !S->E || !S->part || !S->xp || !S->z) goto fail;
    free(parent); free(head); free(next); free(col2s); free(intop); free(sub); free(tw); free(set);
    return S;
fail:
    free(parent); free(head); free(next); free(col2s); free(intop); free(sub); free(tw); free(set);
    fc_snsolve_free(S);
    return NULL;
}

/* Forward solve of supernode s alone (CHOLMOD's way): gather its rows
 * below the triangle into E (rows of the task's own columns from y, the
 * others from the task's buffer), x1 = L11^-1 y1, E -= L21 x1, scatter. */
static void sn_forward_one(const fc_snsolve *S, const cholmod_factor *L, int s, double *y,
                           double *E, double *buf, int t)
{
    const int *Sup = L->super, *Pi = L->pi, *Ls = L->s;
    const int *Px = L->px;
    const double *Lx = (const double *)L->x + Px[s];
    int k1 = Sup[s], nscol = Sup[s + 1] - k1, nsrow = Pi[s + 1] - Pi[s], nr2 = nsrow - nscol;
    const int *rows = Ls + Pi[s] + nscol;
    cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, nscol, Lx, nsrow, y + k1, 1);
    if (nr2 <= 0) return;
    for (int i = 0; i < nr2; i++) {
        int r = rows[i];
        E[i] = t < 0 || S->colown[r] == t ? y[r] : buf[S->topidx[r]];
    }
    cblas_dgemv(CblasColMajor, CblasNoTrans, nr2, nscol, -1.0, Lx + nscol, nsrow, y + k1, 1, 1.0, E, 1);
    for (int i = 0; i < nr2; i++) {
        int r = rows[i];
        if (t < 0 || S->colown[r] == t) y[r] = E[i];
        else buf[S->topidx[r]] = E[i];
    }
}

/* Backward solve of supernode s alone: x1 = L11^-T (x1 - L21' x(rows)). */
static void sn_backward_one(const cholmod_factor *L, int s, double *y, double *E)
{
    const int *Sup = L->super, *Pi = L->pi, *Ls = L->s;
    const int *Px = L->px;
    const double *Lx = (const double *)L->x + Px[s];
    int k1 = Sup[s], nscol = Sup[s + 1] - k1, nsrow = Pi[s + 1] - Pi[s], nr2 = nsrow - nscol;
    const int *rows = Ls + Pi[s] + nscol;
    if (nr2 > 0) {
        for (int i = 0; i < nr2; i++) E[i] = y[rows[i]];
        cblas_dgemv(CblasColMajor, CblasTrans, nr2, nscol, -1.0, Lx + nscol, nsrow, E, 1, 1.0, y + k1, 1);
    }
    cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, nscol, Lx, nsrow, y + k1, 1);
}

/* A top supernode by the team in the current parallel region: E holds
 * all its rows (its columns first); panels of S->panel columns, each
 * triangle solved by every thread into its own copy (the same bits: one
 * barrier a panel instead of two), the rows below split in chunks. */
static void sn_forward_team(fc_snsolve *S, const cholmod_factor *L, int s, double *y)
{
    const int *Sup = L->super, *Pi = L->pi, *Ls = L->s;
    const double *Lx = (const double *)L->x + ((const int *)L->px)[s];
    int k1 = Sup[s], nscol = Sup[s + 1] - k1, nsrow = Pi[s + 1] - Pi[s];
    const int *rows = Ls + Pi[s];
    double *E = S->E + (long)S->ntask * S->estride;
    double *xp = S->xp + (long)omp_get_thread_num() * S->panel;
#pragma omp for schedule(static)
    for (int i = 0; i < nsrow; i++) E[i] = y[rows[i]];
    for (int j0 = 0; j0 < nscol; j0 += S->panel) {
        int pw = nscol - j0 < S->panel ? nscol - j0 : S->panel, j1 = j0 + pw;
        memcpy(xp, E + j0, (size_t)pw * sizeof *xp);
        cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, pw,
                    Lx + j0 + (long)j0 * nsrow, nsrow, xp, 1);
        int nch = (nsrow - j1 + S->chunk - 1) / S->chunk;
#pragma omp for schedule(static) nowait
        for (int c = 0; c < nch; c++) {
            int r0 = j1 + c * S->chunk, nr = nsrow - r0 < S->chunk ? nsrow - r0 : S->chunk;
            cblas_dgemv(CblasColMajor, CblasNoTrans, nr, pw, -1.0, Lx + r0 + (long)j0 * nsrow, nsrow,
                        xp, 1, 1.0, E + r0, 1);
        }
        /* the panel's solution to Z (E's rows j0 .. j1 may still be read
         * by a thread's copy above) */
#pragma omp single nowait
        memcpy(S->z + j0, xp, (size_t)pw * sizeof *xp);
#pragma omp barrier
    }
#pragma omp for schedule(static)
    for (int i = 0; i < nsrow; i++) y[rows[i]] = i < nscol ? S->z[i] : E[i];
}

static void sn_backward_team(fc_snsolve *S, const cholmod_factor *L, int s, double *y)
{
    const int *Sup = L->super, *Pi = L->pi, *Ls = L->s;
    const double *Lx = (const double *)L->x + ((const int *)L->px)[s];
    int k1 = Sup[s], nscol = Sup[s + 1] - k1, nsrow = Pi[s + 1] - Pi[s];
    const int *rows = Ls + Pi[s];
    double *E = S->E + (long)S->ntask * S->estride;
#pragma omp for schedule(static)
    for (int i = 0; i < nsrow; i++) E[i] = y[rows[i]];
    for (int j0 = (nscol - 1) / S->panel * S->panel; j0 >= 0; j0 -= S->panel) {
        int pw = nscol - j0 < S->panel ? nscol - j0 : S->panel, j1 = j0 + pw;
        int nch = (nsrow - j1 + S->chunk - 1) / S->chunk;
#pragma omp for schedule(static)
        for (int c = 0; c < nch; c++) {
            int r0 = j1 + c * S->chunk, nr = nsrow - r0 < S->chunk ? nsrow - r0 : S->chunk;
            cblas_dgemv(CblasColMajor, CblasTrans, nr, pw, 1.0, Lx + r0 + (long)j0 * nsrow, nsrow,
                        E + r0, 1, 0.0, S->part + (long)c * S->pstride, 1);
        }
#pragma omp single
        {
            for (int c = 0; c < nch; c++)
                for (int k = 0; k < pw; k++) E[j0 + k] -= S->part[(long)c * S->pstride + k];
            cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, pw,
                        Lx + j0 + (long)j0 * nsrow, nsrow, E + j0, 1);
        }
    }
#pragma omp for schedule(static)
    for (int i = 0; i < nscol; i++) y[k1 + i] = E[i];
}

void fc_snsolve_shape(const fc_snsolve *S, const cholmod_factor *L, int *tasks, int *top,
                      int *split)
{
    *tasks = S->ntask;
    *top = S->ntopsn;
    *split = 0;
    for (int q = 0; q < S->ntopsn; q++) *split += sn_work(L, S->top[q]) >= S->big;
}

int fc_snsolve_solve(fc_snsolve *S, const cholmod_factor *L, const double *b, double *x)
{
    if (!S || !L->x || (int)L->nsuper != S->nsuper || (int)L->n != S->n) return 0;
    const int *Perm = L->Perm;
    int n = S->n, nt = S->ntask, ntop = S->ntop, nth = fc_threads();
    double *y = S->y, *buf = S->buf;
    if (nth > SN_TASKS) nth = SN_TASKS;
    const double big = S->big;
#pragma omp parallel num_threads(nth) if (nth > 1)
    {
#pragma omp for schedule(static)
        for (int k = 0; k < n; k++) y[k] = b[Perm ? Perm[k] : k];
#pragma omp for schedule(static)
        for (long k = 0; k < (long)nt * (ntop + 1); k++) buf[k] = 0.0;
        /* forward: the tasks, then their updates of the top in task order */
#pragma omp for schedule(dynamic, 1)
        for (int q = 0; q < nt; q++) {
            int t = S->torder[q];
            for (int k = S->tptr[t]; k < S->tptr[t + 1]; k++)
                sn_forward_one(S, L, S->tlist[k], y, S->E + (long)t * S->estride, buf + (long)t * (ntop + 1), t);
        }
#pragma omp for schedule(static)
        for (int c = 0; c < ntop; c++) {
            double v = y[S->topcol[c]];
            for (int t = 0; t < nt; t++) v += buf[(long)t * (ntop + 1) + c];
            y[S->topcol[c]] = v;
        }
        /* the top, one supernode after the other (rows above the tasks
         * are the top's: no buffer there) */
        for (int q = 0; q < S->ntopsn;) {
            if (sn_work(L, S->top[q]) >= big) { sn_forward_team(S, L, S->top[q], y); q++; continue; }
            int q1 = q;   /* a run of small ones: one thread, one barrier */
            while (q1 < S->ntopsn && sn_work(L, S->top[q1]) < big) q1++;
#pragma omp single
            for (int k = q; k < q1; k++) sn_forward_one(S, L, S->top[k], y, S->E + (long)nt * S->estride, buf, -1);
            q = q1;
        }
        /* backward: the top from the root, then the tasks */
        for (int q = S->ntopsn - 1; q >= 0;) {
            if (sn_work(L, S->top[q]) >= big) { sn_backward_team(S, L, S->top[q], y); q--; continue; }
            int q1 = q;
            while (q1 >= 0 && sn_work(L, S->top[q1]) < big) q1--;
#pragma omp single
            for (int k = q; k > q1; k--) sn_backward_one(L, S->top[k], y, S->E + (long)nt * S->estride);
            q = q1;
        }
#pragma omp for schedule(dynamic, 1)
        for (int q = 0; q < nt; q++) {
            int t = S->torder[q];
            for (int k = S->tptr[t + 1] - 1; k >= S->tptr[t]; k--)
                sn_backward_one(L, S->tlist[k], y, S->E + (long)t * S->estride);
        }
#pragma omp for schedule(static)
        for (int k = 0; k < n; k++) x[Perm ? Perm[k] : k] = y[k];
    }
    return 1;
}
