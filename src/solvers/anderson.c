/* Anderson acceleration of fixed-point iterations (see anderson.h). */
#include "internal.h"
#include "solvers/anderson.h"

#include <lapacke.h>

int fc_anderson_init(fc_anderson *a, int m, int mem)
{
    memset(a, 0, sizeof *a);
    if (mem > m) mem = m;   /* the least squares stays overdetermined */
    a->m = m;
    a->mem = mem;
    size_t mm = (size_t)m * (size_t)mem;
    a->dF = fc_calloc(mm, sizeof *a->dF);
    a->dG = fc_calloc(mm, sizeof *a->dG);
    a->A = fc_calloc(mm, sizeof *a->A);
    a->fprev = fc_calloc((size_t)m, sizeof *a->fprev);
    a->gprev = fc_calloc((size_t)m, sizeof *a->gprev);
    a->b = fc_calloc((size_t)m, sizeof *a->b);
    /* dgels' workspace, asked once for the largest least squares */
    double lw = 0.0;
    if (LAPACKE_dgels_work(LAPACK_COL_MAJOR, 'N', m, mem, 1, a->A, m, a->b, m, &lw, -1) == 0)
        a->lwork = (int)lw;
    if (a->lwork < 1) a->lwork = m + mem;
    a->work = fc_calloc((size_t)a->lwork, sizeof *a->work);
    if (a->dF && a->dG && a->A && a->fprev && a->gprev && a->b && a->work) return 0;
    fc_anderson_free(a);
    return -1;
}

void fc_anderson_free(fc_anderson *a)
{
    free(a->dF);
    free(a->dG);
    free(a->A);
    free(a->fprev);
    free(a->gprev);
    free(a->b);
    free(a->work);
    memset(a, 0, sizeof *a);
}

void fc_anderson_reset(fc_anderson *a)
{
    a->count = a->head = a->have_prev = 0;
}

int fc_anderson_step(fc_anderson *a, const double *x, double *g)
{
    int m = a->m;
    double *f = a->b;   /* f = g - x, kept in b for the least squares */
    for (int i = 0; i < m; i++) f[i] = g[i] - x[i];
    if (a->have_prev) {
        double *df = a->dF + (size_t)a->head * m, *dg = a->dG + (size_t)a->head * m;
        for (int i = 0; i < m; i++) {
            df[i] = f[i] - a->fprev[i];
            dg[i] = g[i] - a->gprev[i];
        }
        a->head = (a->head + 1) % a->mem;
        if (a->count < a->mem) a->count++;
    }
    memcpy(a->fprev, f, (size_t)m * sizeof *f);
    memcpy(a->gprev, g, (size_t)m * sizeof *g);
    a->have_prev = 1;
    int k = a->count;
    if (k == 0) return 0;
    memcpy(a->A, a->dF, (size_t)m * (size_t)k * sizeof *a->A);
    /* b := f on entry of dgels, the first k entries hold gamma on exit;
     * the _work interface skips LAPACKE's NaN scan of A and b (5% of an
     * NSGS run, measured) and uses the workspace allocated once; a NaN
     * shows up in gamma, checked below */
    if (LAPACKE_dgels_work(LAPACK_COL_MAJOR, 'N', m, k, 1, a->A, m, f, m, a->work, a->lwork) != 0) {
        fc_anderson_reset(a);
        return 0;
    }
    for (int j = 0; j < k; j++)
        if (!isfinite(f[j])) { fc_anderson_reset(a); return 0; }
    for (int j = 0; j < k; j++) {
        const double *dg = a->dG + (size_t)j * m;
        double gam = f[j];
        for (int i = 0; i < m; i++) g[i] -= gam * dg[i];
    }
    return 1;
}
