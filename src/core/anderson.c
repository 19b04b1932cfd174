/* Anderson acceleration of fixed-point iterations (see anderson.h). */
#include "internal.h"
#include "core/anderson.h"


/* Ridge of the normal equations, relative to the largest diagonal entry
 * of the Gram matrix: keeps the Cholesky defined when differences are
 * (nearly) dependent, far below what changes a well-posed gamma. */
#define FC_ANDERSON_RIDGE 1e-12

/* Solve A x = b in place in b for a k x k symmetric positive definite A
 * (column-major, lower triangle read and overwritten by its Cholesky
 * factor); 0 on success, -1 when A is not numerically positive definite.
 * Not LAPACK's dposv: for k = Anderson's memory (10) OpenBLAS's first-call
 * set-up costs as much as a whole small NSGS solve (docs/measurements.md). */
static int small_cholesky_solve(int k, double *A, double *b)
{
    for (int j = 0; j < k; j++) {
        double djj = A[(size_t)j * k + j];
        for (int l = 0; l < j; l++) djj -= A[(size_t)l * k + j] * A[(size_t)l * k + j];
        if (!(djj > 0.0)) return -1;
        djj = sqrt(djj);
        A[(size_t)j * k + j] = djj;
        for (int i = j + 1; i < k; i++) {
            double v = A[(size_t)j * k + i];
            for (int l = 0; l < j; l++) v -= A[(size_t)l * k + i] * A[(size_t)l * k + j];
            A[(size_t)j * k + i] = v / djj;
        }
    }
    for (int i = 0; i < k; i++) {          /* L y = b */
        double v = b[i];
        for (int l = 0; l < i; l++) v -= A[(size_t)l * k + i] * b[l];
        b[i] = v / A[(size_t)i * k + i];
    }
    for (int i = k - 1; i >= 0; i--) {     /* L^T x = y */
        double v = b[i];
        for (int l = i + 1; l < k; l++) v -= A[(size_t)i * k + l] * b[l];
        b[i] = v / A[(size_t)i * k + i];
    }
    return 0;
}

int fc_anderson_init(fc_anderson *a, int m, int mem)
{
    memset(a, 0, sizeof *a);
    if (mem > m) mem = m;   /* the least squares stays overdetermined */
    a->m = m;
    a->mem = mem;
    size_t mm = (size_t)m * (size_t)mem, kk = (size_t)mem * (size_t)mem;
    a->dF = fc_calloc(mm, sizeof *a->dF);
    a->dG = fc_calloc(mm, sizeof *a->dG);
    a->fprev = fc_calloc((size_t)m, sizeof *a->fprev);
    a->gprev = fc_calloc((size_t)m, sizeof *a->gprev);
    a->gram = fc_calloc(kk, sizeof *a->gram);
    a->A = fc_calloc(kk, sizeof *a->A);
    a->b = fc_calloc((size_t)mem, sizeof *a->b);
    a->part = fc_calloc((size_t)FC_CHUNKS_MAX * 2 * (size_t)(mem > 0 ? mem : 1), sizeof *a->part);
    if (a->dF && a->dG && a->fprev && a->gprev && a->gram && a->A && a->b && a->part) return 0;
    fc_anderson_free(a);
    return -1;
}

void fc_anderson_free(fc_anderson *a)
{
    free(a->dF);
    free(a->dG);
    free(a->fprev);
    free(a->gprev);
    free(a->gram);
    free(a->A);
    free(a->b);
    free(a->part);
    memset(a, 0, sizeof *a);
}

void fc_anderson_reset(fc_anderson *a)
{
    a->count = a->head = a->have_prev = 0;
}

/* Entries a block of the fused passes handles at once: the new
 * differences of a block are computed, then dotted with every stored
 * column while they are in cache. */
#define FC_ANDERSON_BLOCK 256

/* One pass over the vectors, in fc_chunks: the new differences into slot
 * h (when have_prev), fprev and gprev updated, and the partial sums of
 * dF_h . dF_j (Gram row h) and of dF_j . f (right-hand side) for the k
 * stored slots.  Each sum runs over the entries in order within a chunk,
 * as fc_dot's do, so the result does not depend on the thread count. */
static void fused_differences(fc_anderson *a, const double *x, const double *g, int h, int k)
{
    int m = a->m, mem = a->mem, prev = a->have_prev;
    fc_chunks c = fc_chunks_of(m, FC_CHUNK_MIN);
    FC_PAR_FOR(m, , for (int ck = 0; ck < c.count; ck++) {
        double *pg = a->part + (size_t)ck * 2 * mem, *pb = pg + mem;
        for (int j = 0; j < k; j++) pg[j] = pb[j] = 0.0;
        for (int lo = ck * c.len, e = fc_chunk_end(c, ck, m); lo < e; lo += FC_ANDERSON_BLOCK) {
            int hi = lo + FC_ANDERSON_BLOCK < e ? lo + FC_ANDERSON_BLOCK : e;
            double *df = a->dF + (size_t)h * m, *dg = a->dG + (size_t)h * m;
            for (int i = lo; i < hi; i++) {
                double f = g[i] - x[i];
                if (prev) {
                    df[i] = f - a->fprev[i];
                    dg[i] = g[i] - a->gprev[i];
                }
                a->fprev[i] = f;
                a->gprev[i] = g[i];
            }
            const double *f = a->fprev;
            int j = 0;
            /* four columns at a time: eight independent sums, where one
             * column's two are bound by the latency of the additions */
            for (; j + 4 <= k; j += 4) {
                const double *d0 = a->dF + (size_t)j * m, *d1 = d0 + m, *d2 = d1 + m, *d3 = d2 + m;
                double g0 = pg[j], g1 = pg[j + 1], g2 = pg[j + 2], g3 = pg[j + 3];
                double b0 = pb[j], b1 = pb[j + 1], b2 = pb[j + 2], b3 = pb[j + 3];
                for (int i = lo; i < hi; i++) {
                    g0 += df[i] * d0[i];
                    g1 += df[i] * d1[i];
                    g2 += df[i] * d2[i];
                    g3 += df[i] * d3[i];
                    b0 += d0[i] * f[i];
                    b1 += d1[i] * f[i];
                    b2 += d2[i] * f[i];
                    b3 += d3[i] * f[i];
                }
                pg[j] = g0, pg[j + 1] = g1, pg[j + 2] = g2, pg[j + 3] = g3;
                pb[j] = b0, pb[j + 1] = b1, pb[j + 2] = b2, pb[j + 3] = b3;
            }
            for (; j < k; j++) {
                const double *dj = a->dF + (size_t)j * m;
                double sg = pg[j], sb = pb[j];
                for (int i = lo; i < hi; i++) {
                    sg += df[i] * dj[i];
                    sb += dj[i] * f[i];
                }
                pg[j] = sg;
                pb[j] = sb;
            }
        }
    });
    for (int j = 0; j < k; j++) {
        double sg = 0.0, sb = 0.0;
        for (int ck = 0; ck < c.count; ck++) {
            sg += a->part[(size_t)ck * 2 * mem + j];
            sb += a->part[(size_t)ck * 2 * mem + mem + j];
        }
        if (prev) a->gram[(size_t)h * mem + j] = a->gram[(size_t)j * mem + h] = sg;
        a->b[j] = sb;
    }
}

int fc_anderson_step(fc_anderson *a, const double *x, double *g)
{
    int m = a->m, mem = a->mem, h = a->head;
    if (a->have_prev && a->count < mem) a->count++;
    int k = a->count;
    fused_differences(a, x, g, h, k);
    if (a->have_prev) a->head = (h + 1) % mem;
    a->have_prev = 1;
    if (k == 0) return 0;
    /* (dF^T dF + lambda I) gamma = dF^T f over the k stored slots */
    double dmax = 0.0;
    for (int j = 0; j < k; j++) dmax = fmax(dmax, a->gram[(size_t)j * mem + j]);
    if (!(dmax > 0.0) || !isfinite(dmax)) { fc_anderson_reset(a); return 0; }
    for (int j = 0; j < k; j++) {
        for (int i = 0; i < k; i++) a->A[(size_t)j * k + i] = a->gram[(size_t)j * mem + i];
        a->A[(size_t)j * k + j] += FC_ANDERSON_RIDGE * dmax;
    }
    if (small_cholesky_solve(k, a->A, a->b) != 0) {
        fc_anderson_reset(a);
        return 0;
    }
    for (int j = 0; j < k; j++)
        if (!isfinite(a->b[j])) { fc_anderson_reset(a); return 0; }
    /* g -= dG gamma, the columns applied in order at each entry */
    const double *gam = a->b;
    FC_PAR_FOR(m, , for (int lo = 0; lo < m; lo += FC_ANDERSON_BLOCK) {
        int hi = lo + FC_ANDERSON_BLOCK < m ? lo + FC_ANDERSON_BLOCK : m;
        for (int j = 0; j < k; j++) {
            const double *dg = a->dG + (size_t)j * m;
            for (int i = lo; i < hi; i++) g[i] -= gam[j] * dg[i];
        }
    });
    return 1;
}
