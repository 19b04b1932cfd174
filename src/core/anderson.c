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
    if (a->dF && a->dG && a->fprev && a->gprev && a->gram && a->A && a->b) return 0;
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
    memset(a, 0, sizeof *a);
}

void fc_anderson_reset(fc_anderson *a)
{
    a->count = a->head = a->have_prev = 0;
}

int fc_anderson_step(fc_anderson *a, const double *x, double *g)
{
    int m = a->m, mem = a->mem;
    if (a->have_prev) {
        /* the new differences go to slot head; its Gram row and column */
        int h = a->head;
        double *df = a->dF + (size_t)h * m, *dg = a->dG + (size_t)h * m;
        for (int i = 0; i < m; i++) {
            double f = g[i] - x[i];
            df[i] = f - a->fprev[i];
            dg[i] = g[i] - a->gprev[i];
        }
        if (a->count < mem) a->count++;
        for (int j = 0; j < a->count; j++) {
            double s = fc_dot(m, df, a->dF + (size_t)j * m);
            a->gram[(size_t)h * mem + j] = s;
            a->gram[(size_t)j * mem + h] = s;
        }
        a->head = (h + 1) % mem;
    }
    for (int i = 0; i < m; i++) {
        a->fprev[i] = g[i] - x[i];
        a->gprev[i] = g[i];
    }
    a->have_prev = 1;
    int k = a->count;
    if (k == 0) return 0;
    /* (dF^T dF + lambda I) gamma = dF^T f over the k stored slots */
    double dmax = 0.0;
    for (int j = 0; j < k; j++) dmax = fmax(dmax, a->gram[(size_t)j * mem + j]);
    if (!(dmax > 0.0) || !isfinite(dmax)) { fc_anderson_reset(a); return 0; }
    for (int j = 0; j < k; j++) {
        for (int i = 0; i < k; i++) a->A[(size_t)j * k + i] = a->gram[(size_t)j * mem + i];
        a->A[(size_t)j * k + j] += FC_ANDERSON_RIDGE * dmax;
        a->b[j] = fc_dot(m, a->dF + (size_t)j * m, a->fprev);
    }
    if (small_cholesky_solve(k, a->A, a->b) != 0) {
        fc_anderson_reset(a);
        return 0;
    }
    for (int j = 0; j < k; j++)
        if (!isfinite(a->b[j])) { fc_anderson_reset(a); return 0; }
    for (int j = 0; j < k; j++) {
        const double *dg = a->dG + (size_t)j * m;
        double gam = a->b[j];
        for (int i = 0; i < m; i++) g[i] -= gam * dg[i];
    }
    return 1;
}
