/* The upper block triangle of a symmetric block-CSR matrix (nsgs's half
 * sweep, matrix/upper.h). */
#include "internal.h"
#include "matrix/upper.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

/* Whether the blocks U = A_ab and L = A_ba (NULL: not stored, zero) are
 * transposes within tol of the larger of their entries and of scale
 * (sqrt(max |diag A_aa| max |diag A_bb|), which bounds an SPD matrix's
 * off-diagonal entries: the round-off of a product H M^-1 H^T is relative
 * to it, not to a block that cancels to near zero). */
static int pair_ok(const double *U, const double *L, int d, double scale, double tol)
{
    double diff = 0.0, big = scale;
    for (int c = 0; c < d; c++)
        for (int r = 0; r < d; r++) {
            double u = U ? U[c * d + r] : 0.0, l = L ? L[r * d + c] : 0.0;
            double e = fabs(u - l), v = fabs(u) > fabs(l) ? fabs(u) : fabs(l);
            if (e > diff) diff = e;
            if (v > big) big = v;
        }
    return diff <= tol * big;
}

/* The blocks A_ab, b >= a, of square block-CSR A, each block row's
 * diagonal block first (zero when A stores none), when every pair A_ab,
 * A_ba (a block not stored: zero) are transposes within tol
 * (fc_bsr_symmetric). */
fc_matrix *fc_bsr_upper(const fc_matrix *A, double tol, int *why)
{
    *why = fc_bsr_symmetric(A, tol);
    if (*why) return NULL;
    int d = A->bs, n = A->rows / d;
    size_t dd = (size_t)d * d;
    long nu = 0;   /* strictly upper blocks */
    for (int a = 0; a < n; a++)
        for (int k = A->p[a]; k < A->p[a + 1]; k++) nu += A->j[k] > a;
    fc_matrix *U = fc_matrix_bsr(A->rows, A->cols, d, (long)n + nu);
    if (!U) { *why = -1; return NULL; }
    long t = 0;
    for (int a = 0; a < n; a++) {
        U->j[t] = a;
        memset(U->x + (size_t)t * dd, 0, dd * sizeof *U->x);
        for (int k = A->p[a]; k < A->p[a + 1]; k++)
            if (A->j[k] == a) memcpy(U->x + (size_t)t * dd, A->x + (size_t)k * dd, dd * sizeof *U->x);
        t++;
        for (int k = A->p[a]; k < A->p[a + 1]; k++)
            if (A->j[k] > a) {
                U->j[t] = A->j[k];
                memcpy(U->x + (size_t)t * dd, A->x + (size_t)k * dd, dd * sizeof *U->x);
                t++;
            }
        U->p[a + 1] = (int)t;
    }
    U->nnz = t * (long)dd;
    return U;
}

/* fc_bsr_upper_affine's loop, d a constant in its inlined copies. */
static inline void upper_affine_d(const fc_matrix *U, int d, const double *x, double *y)
{
    int n = U->rows / d;
    for (int a = 0; a < n; a++) {
        const double *xa = x + (size_t)a * d;
        double *ya = y + (size_t)a * d;
        for (int k = U->p[a]; k < U->p[a + 1]; k++) {
            const double *B = U->x + (size_t)k * d * d;
            int b = U->j[k];
            const double *xb = x + (size_t)b * d;
            double *yb = y + (size_t)b * d;
            for (int c = 0; c < d; c++)
                for (int r = 0; r < d; r++) ya[r] += B[c * d + r] * xb[c];
            if (b == a) continue;
            for (int c = 0; c < d; c++) {
                double s = 0.0;
                for (int r = 0; r < d; r++) s += B[c * d + r] * xa[r];
                yb[c] += s;
            }
        }
    }
}

void fc_bsr_upper_affine(const fc_matrix *U, const double *x, const double *q, double *y)
{
    fc_copy(U->rows, q, y);
    if (U->bs == 3) upper_affine_d(U, 3, x, y);
    else if (U->bs == 2) upper_affine_d(U, 2, x, y);
    else upper_affine_d(U, U->bs, x, y);
}

/* Row a's upper blocks against column a's lower ones (lp, lrow, lk: the
 * lower blocks by column; mark, pos: n ints of the calling thread's, -1
 * where no row has marked); 0 when a pair differs beyond tol. */
static int row_symmetric(const fc_matrix *A, int a, const int *lp, const int *lrow, const int *lk, long nl,
                         const double *dg, double tol, int *mark, int *pos)
{
    int d = A->bs;
    size_t dd = (size_t)d * d;
    for (int k = A->p[a]; k < A->p[a + 1]; k++)
        if (A->j[k] > a) { mark[A->j[k]] = a; pos[A->j[k]] = k; }
    for (int l = lp[a]; l < lp[a + 1]; l++) {
        int b = lrow[l];
        if (l + 8 < nl) {   /* as fc_bsr_upper: the scattered blocks ahead */
            const char *x = (const char *)(A->x + (size_t)lk[l + 8] * dd);
            __builtin_prefetch(x);
            __builtin_prefetch(x + dd * sizeof *A->x - 1);
        }
        const double *Ub = mark[b] == a ? A->x + (size_t)pos[b] * dd : NULL;
        if (!pair_ok(Ub, A->x + (size_t)lk[l] * dd, d, sqrt(dg[a] * dg[b]), tol)) return 0;
        mark[b] = -1;
    }
    for (int k = A->p[a]; k < A->p[a + 1]; k++) {
        int b = A->j[k];
        if (b > a && mark[b] == a && !pair_ok(A->x + (size_t)k * dd, NULL, d, sqrt(dg[a] * dg[b]), tol))
            return 0;
    }
    return 1;
}

int fc_bsr_symmetric(const fc_matrix *A, double tol)
{
    if (A->kind != FC_MAT_BSR || A->rows != A->cols) return 1;
    int d = A->bs, n = A->rows / d, rc = -1, nt = FC_PAR_ON(n) ? fc_threads() : 1;
    size_t dd = (size_t)d * d;
    long nl = 0;
    for (int a = 0; a < n; a++)
        for (int k = A->p[a]; k < A->p[a + 1]; k++) nl += A->j[k] < a;
    double *dg = fc_calloc((size_t)n + 1, sizeof *dg);
    int *lp = fc_calloc((size_t)n + 2, sizeof *lp);
    int *mark = fc_malloc((size_t)nt * n + 1, sizeof *mark), *pos = fc_malloc((size_t)nt * n + 1, sizeof *pos);
    int *lrow = fc_calloc((size_t)nl + 1, sizeof *lrow), *lk = fc_calloc((size_t)nl + 1, sizeof *lk);
    if (!(dg && lp && mark && pos && lrow && lk)) goto done;
    /* dg: each row's largest diagonal entry; the lower blocks by column */
    FC_PAR_FOR(n, , for (int a = 0; a < n; a++) {
        for (int k = A->p[a]; k < A->p[a + 1]; k++)
            if (A->j[k] == a)
                for (int i = 0; i < d; i++) dg[a] = fmax(dg[a], fabs(A->x[(size_t)k * dd + (size_t)i * d + i]));
    });
    for (int a = 0; a < n; a++)
        for (int k = A->p[a]; k < A->p[a + 1]; k++)
            if (A->j[k] < a) lp[A->j[k] + 2]++;
    for (int a = 0; a < n; a++) lp[a + 2] += lp[a + 1];
    for (int b = 0; b < n; b++)
        for (int k = A->p[b]; k < A->p[b + 1]; k++)
            if (A->j[k] < b) {
                long l = lp[A->j[k] + 1]++;
                lrow[l] = b;
                lk[l] = k;
            }
    /* the rows on the threads, each with its own marks: a yes or no, the
     * same for any count */
    for (size_t i = 0; i < (size_t)nt * n; i++) mark[i] = -1;
    int bad = 0;
    FC_PAR_FOR(n, reduction(| : bad), for (int a = 0; a < n; a++) {
        size_t me = (size_t)omp_get_thread_num() * n;   /* 0 outside a region */
        if (!bad && !row_symmetric(A, a, lp, lrow, lk, nl, dg, tol, mark + me, pos + me)) bad = 1;
    });
    rc = bad;
done:
    free(dg); free(lp); free(mark); free(pos); free(lrow); free(lk);
    return rc;
}

/* The stretches' half sweep (nsgs on threads): symmetric A in the order of
 * c (fc_stretch_blocks), row i block row c->member[i] without its diagonal
 * block (nsgs keeps it with the contact); a stretch's row a its blocks to the interface
 * and to the groups of the other phases (gathered only: swept at another
 * time, by any thread), then to
 * its own stretch's later contacts, from (*split)[i] (gathered and,
 * transposed, scattered into the stretch's own accumulator); an interface
 * row every block ((*split)[i] its end).  NULL: out of memory. */
fc_matrix *fc_bsr_upper_stretches(const fc_matrix *A, const fc_colouring *c, int **split)
{
    int d = A->bs, n = c->n, S = c->stretches;
    size_t dd = (size_t)d * d;
    *split = NULL;
    int *grp = fc_calloc((size_t)n + 1, sizeof *grp), *sp = fc_calloc((size_t)n + 1, sizeof *sp);
    fc_matrix *U = NULL;
    if (!grp || !sp) goto done;
    for (int g = 0; g <= S; g++)
        for (int i = c->start[g]; i < c->start[g + 1]; i++) grp[c->member[i]] = g;
    /* keep(a, b): 1 gathered only (b at the interface, or a is, or b in
     * a group of another phase), 2 also scattered (b later in a's own
     * stretch), 0 dropped (earlier in a's stretch: t brings it; another
     * stretch's of the same phase: zero by the cut) */
    int per = fc_phase_groups(c);
#define KEEP(a, b)                                                                                 \
    (grp[a] == S || grp[b] == S         ? 1                                                        \
     : grp[a] == grp[b]                 ? ((b) > (a) ? 2 : 0)                                      \
     : grp[a] / per != grp[b] / per     ? 1                                                        \
                                        : 0)
    long nb = 0;
    for (int a = 0; a < n; a++)
        for (int k = A->p[a]; k < A->p[a + 1]; k++)
            if (A->j[k] != a) nb += KEEP(a, A->j[k]) > 0;
    U = fc_matrix_bsr(A->rows, A->cols, d, nb > 0 ? nb : 1);
    if (!U) goto done;
    long t = 0;
    for (int i = 0; i < n; i++) {
        int a = c->member[i];
        for (int pass = 1; pass <= 2; pass++) {
            if (pass == 2) sp[i] = (int)t;
            for (int k = A->p[a]; k < A->p[a + 1]; k++) {
                int b = A->j[k];
                if (b == a || KEEP(a, b) != pass) continue;
                U->j[t] = b;
                memcpy(U->x + (size_t)t * dd, A->x + (size_t)k * dd, dd * sizeof *U->x);
                t++;
            }
        }
        U->p[i + 1] = (int)t;
    }
#undef KEEP
    U->nnz = t * (long)dd;
    *split = sp;
    sp = NULL;
done:
    free(grp); free(sp);
    return U;
}
