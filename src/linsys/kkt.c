/* Repeated factorisations of a symmetric matrix of fixed sparsity pattern
 * (the Newton / KKT matrices of the interior-point and ADMM solvers):
 * the pattern is built and analysed once (AMD ordering), then the values
 * change and the matrix is refactorised each iteration with no allocation
 * beyond CHOLMOD's reused workspaces.  Positive definite matrices use a
 * supernodal LL'; quasi-definite ones ([A B; B' -C], A, C positive
 * definite) a simplicial LDL', which exists for every symmetric ordering.
 * A diagonal regularisation can be added to the factorisation only; the
 * solves then refine iteratively against the exact matrix. */
#include "internal.h"
#include "linsys/linsys.h"

#include <cholmod.h>

struct fc_kkt {
    cholmod_common c;
    cholmod_sparse *A;   /* upper triangle, CSC, sorted, exact values */
    cholmod_factor *L;
    cholmod_dense *B, *X, *Y, *E, *R, *D; /* rhs, solution, solve workspaces, residual, correction */
    long *diag;          /* position of each diagonal entry in A->x */
    int n, quasidef, analysed;
};

fc_kkt *fc_kkt_new(int n, long nz, const int *ti, const int *tj, const double *tx,
                   int quasidef, fc_error *err)
{
    fc_kkt *K = calloc(1, sizeof *K);
    if (!K) { fc_error_set(err, FC_ERR_NOMEM, "out of memory building a KKT matrix"); return NULL; }
    cholmod_start(&K->c);
    K->c.print = 0;
    K->c.error_handler = NULL;
    K->n = n;
    K->quasidef = quasidef;
    if (quasidef) {
        K->c.final_ll = 0;
        K->c.supernodal = CHOLMOD_SIMPLICIAL;
    }
    /* triplets of the upper triangle, plus an explicit diagonal */
    cholmod_triplet *T = cholmod_allocate_triplet((size_t)n, (size_t)n, (size_t)(nz + n), 1,
                                                  CHOLMOD_REAL, &K->c);
    if (!T) goto nomem;
    int *Ti = T->i, *Tj = T->j;
    double *Tx = T->x;
    long t = 0;
    for (long k = 0; k < nz; k++) {
        int i = ti[k], j = tj[k];
        if (i > j) { int s = i; i = j; j = s; }
        Ti[t] = i; Tj[t] = j; Tx[t] = tx ? tx[k] : 0.0; t++;
    }
    for (int i = 0; i < n; i++) { Ti[t] = i; Tj[t] = i; Tx[t] = 0.0; t++; }
    T->nnz = (size_t)t;
    K->A = cholmod_triplet_to_sparse(T, (size_t)t, &K->c);
    cholmod_free_triplet(&T, &K->c);
    if (!K->A) goto nomem;
    K->diag = fc_calloc((size_t)n, sizeof *K->diag);
    K->B = cholmod_allocate_dense((size_t)n, 1, (size_t)n, CHOLMOD_REAL, &K->c);
    K->R = cholmod_allocate_dense((size_t)n, 1, (size_t)n, CHOLMOD_REAL, &K->c);
    if (!K->diag || !K->B || !K->R) goto nomem;
    const int *Ap = K->A->p, *Ai = K->A->i;
    for (int j = 0; j < n; j++) {
        K->diag[j] = -1;
        for (int p = Ap[j]; p < Ap[j + 1]; p++)
            if (Ai[p] == j) K->diag[j] = p;
    }
    K->L = cholmod_analyze(K->A, &K->c);
    if (!K->L) goto nomem;
    return K;
nomem:
    fc_error_set(err, FC_ERR_NOMEM, "out of memory building a KKT matrix");
    fc_kkt_free(K);
    return NULL;
}

long fc_kkt_find(const fc_kkt *K, int i, int j)
{
    if (i > j) { int s = i; i = j; j = s; }
    const int *Ap = K->A->p, *Ai = K->A->i;
    int lo = Ap[j], hi = Ap[j + 1] - 1;
    while (lo <= hi) {               /* columns are sorted */
        int mid = (lo + hi) / 2;
        if (Ai[mid] == i) return mid;
        if (Ai[mid] < i) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

double *fc_kkt_values(fc_kkt *K) { return K->A->x; }

long fc_kkt_diag(const fc_kkt *K, int i) { return K->diag[i]; }

fc_err fc_kkt_factor(fc_kkt *K, const double *reg, fc_error *err)
{
    double *x = K->A->x;
    if (reg) for (int i = 0; i < K->n; i++) x[K->diag[i]] += reg[i];
    int ok = cholmod_factorize(K->A, K->L, &K->c);
    if (reg) for (int i = 0; i < K->n; i++) x[K->diag[i]] -= reg[i];
    if (!ok || K->c.status == CHOLMOD_OUT_OF_MEMORY)
        return fc_error_set(err, FC_ERR_NOMEM, "out of memory factorising a KKT matrix");
    if (K->c.status != CHOLMOD_OK || K->L->minor < (size_t)K->n)
        return fc_error_set(err, FC_ERR_NUMERIC, "KKT factorisation failed at column %ld",
                            (long)K->L->minor);
    return FC_OK;
}

/* y = A x with A symmetric, upper triangle stored. */
static void sym_mult(const cholmod_sparse *A, const double *x, double *y)
{
    const int *Ap = A->p, *Ai = A->i;
    const double *Ax = A->x;
    int n = (int)A->ncol;
    memset(y, 0, (size_t)n * sizeof *y);
    for (int j = 0; j < n; j++)
        for (int p = Ap[j]; p < Ap[j + 1]; p++) {
            int i = Ai[p];
            y[i] += Ax[p] * x[j];
            if (i != j) y[j] += Ax[p] * x[i];
        }
}

fc_err fc_kkt_solve(fc_kkt *K, const double *b, double *x, int refine, fc_error *err)
{
    int n = K->n;
    double *Bx = K->B->x, *Rx = K->R->x;
    memcpy(Bx, b, (size_t)n * sizeof *b);
    if (!cholmod_solve2(CHOLMOD_A, K->L, K->B, NULL, &K->X, NULL, &K->Y, &K->E, &K->c))
        return fc_error_set(err, FC_ERR_NOMEM, "out of memory in a KKT solve");
    memcpy(x, K->X->x, (size_t)n * sizeof *x);
    double bn = 0;
    for (int i = 0; i < n; i++) bn = fmax(bn, fabs(b[i]));
    for (int it = 0; it < refine; it++) {
        sym_mult(K->A, x, Rx);
        double rn = 0;
        for (int i = 0; i < n; i++) { Bx[i] = b[i] - Rx[i]; rn = fmax(rn, fabs(Bx[i])); }
        if (rn <= 1e-15 * bn) break;
        if (!cholmod_solve2(CHOLMOD_A, K->L, K->B, NULL, &K->D, NULL, &K->Y, &K->E, &K->c))
            return fc_error_set(err, FC_ERR_NOMEM, "out of memory in a KKT solve");
        const double *dx = K->D->x;
        for (int i = 0; i < n; i++) x[i] += dx[i];
    }
    return FC_OK;
}

void fc_kkt_free(fc_kkt *K)
{
    if (!K) return;
    cholmod_free_factor(&K->L, &K->c);
    cholmod_free_sparse(&K->A, &K->c);
    cholmod_free_dense(&K->B, &K->c);
    cholmod_free_dense(&K->X, &K->c);
    cholmod_free_dense(&K->Y, &K->c);
    cholmod_free_dense(&K->E, &K->c);
    cholmod_free_dense(&K->R, &K->c);
    cholmod_free_dense(&K->D, &K->c);
    free(K->diag);
    cholmod_finish(&K->c);
    free(K);
}
