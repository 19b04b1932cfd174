/* The threaded supernodal solve (src/linsys/supernodal_solve.c) against
 * CHOLMOD's on real problems: A = W + rho I factorised by CHOLMOD
 * (supernodal), x = A^-1 b by both; the residual ||b - A x||_inf is
 * recomputed here from A's entries (not from the factor), and the bits
 * must be the same for 1, 2 and 3 threads.  The kernels' threshold is
 * lowered (fc_par_min_set) so that the plan has tasks, a top and panels
 * split in chunks on these sizes.  OpenBLAS is set to one thread, as the
 * command sets it: with more the plan must refuse (checked). */
#include "test.h"
#include "internal.h"
#include "linsys/linsys.h"

#include <cholmod.h>
/* ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf), A symmetric from
 * its upper triangle (CSC). */
static double rel_residual(const cholmod_sparse *A, const double *b, const double *x)
{
    int n = (int)A->ncol;
    const int *Ap = A->p, *Ai = A->i;
    const double *Ax = A->x;
    double *r = calloc((size_t)n, sizeof *r), *rowsum = calloc((size_t)n, sizeof *rowsum);
    for (int j = 0; j < n; j++)
        for (int p = Ap[j]; p < Ap[j + 1]; p++) {
            int i = Ai[p];
            r[i] += Ax[p] * x[j];
            rowsum[i] += fabs(Ax[p]);
            if (i != j) { r[j] += Ax[p] * x[i]; rowsum[j] += fabs(Ax[p]); }
        }
    double res = 0, an = 0, xn = 0, bn = 0;
    for (int i = 0; i < n; i++) {
        res = fmax(res, fabs(b[i] - r[i]));
        an = fmax(an, rowsum[i]);
        xn = fmax(xn, fabs(x[i]));
        bn = fmax(bn, fabs(b[i]));
    }
    free(r);
    free(rowsum);
    return res / (an * xn + bn);
}

static void one(const char *path, int par_min, double rho, int need_split)
{
    fc_problem *g = test_read(path), *p = NULL;
    fc_error err;
    if (!g) return;
    CHECK(fc_problem_reduce(g, &p, &err) == FC_OK, "%s: reduction: %s", path, err.msg);   /* local: a copy */
    fc_problem_free(g);
    if (!p) return;
    int old_min = fc_par_min_set(par_min);
    fc_matrix *W = fc_matrix_to_csr(p->W);
    int n = W->rows;
    cholmod_common c;
    cholmod_start(&c);
    c.supernodal = CHOLMOD_SUPERNODAL;
    cholmod_triplet *T = cholmod_allocate_triplet((size_t)n, (size_t)n, (size_t)W->nnz + (size_t)n, 1,
                                                  CHOLMOD_REAL, &c);
    int *ti = T->i, *tj = T->j;
    double *tx = T->x;
    long t = 0;
    for (int i = 0; i < n; i++) {   /* (W + W')/2 + rho I, upper triangle */
        ti[t] = i; tj[t] = i; tx[t] = rho; t++;
        for (int q = W->p[i]; q < W->p[i + 1]; q++) {
            int j = W->j[q];
            if (i == j) { ti[t] = i; tj[t] = i; tx[t] = W->x[q]; t++; }
            else { ti[t] = i < j ? i : j; tj[t] = i < j ? j : i; tx[t] = 0.5 * W->x[q]; t++; }
        }
    }
    T->nnz = (size_t)t;
    cholmod_sparse *A = cholmod_triplet_to_sparse(T, (size_t)t, &c);
    cholmod_factor *L = cholmod_analyze(A, &c);
    CHECK(L && cholmod_factorize(A, L, &c) && c.status == CHOLMOD_OK, "%s: factorisation", path);
    if (fc_blas_threads_set(2)) {   /* a threaded BLAS: CHOLMOD's solve instead */
        CHECK(!fc_snsolve_applies(L), "%s: a plan with 2 OpenBLAS threads", path);
        fc_blas_threads_set(1);
    }
    fc_snsolve *S = fc_snsolve_new(L);
    CHECK(S != NULL, "%s: no plan (n %d, %zu supernodes, %zu entries)", path, n, L->nsuper, L->xsize);
    if (S) {
        int tasks, top, split;
        fc_snsolve_shape(S, L, &tasks, &top, &split);
        CHECK(tasks >= 2 && top >= 1 && split >= need_split, "%s: plan of %d tasks, %d top supernodes, %d split",
              path, tasks, top, split);
        cholmod_dense *B = cholmod_allocate_dense((size_t)n, 1, (size_t)n, CHOLMOD_REAL, &c);
        double *b = B->x;
        for (int i = 0; i < n; i++) b[i] = sin(1.0 + i) + (i % 7 == 0 ? 3.0 : 0.0);
        cholmod_dense *X = cholmod_solve(CHOLMOD_A, L, B, &c);
        double res_c = rel_residual(A, b, X->x);
        double *x[4];
        for (int k = 1; k <= 3; k++) {
            x[k] = calloc((size_t)n, sizeof *x[k]);
            int prev = fc_threads_set(k);
            CHECK(fc_snsolve_solve(S, L, b, x[k]), "%s: solve with %d threads", path, k);
            fc_threads_set(prev);
        }
        double res = rel_residual(A, b, x[1]);
        /* backward stable as CHOLMOD's: round-off of the same factor */
        CHECK(res <= 1e-14 && res <= 10 * res_c + 1e-16, "%s: residual %.3e (CHOLMOD's %.3e)", path, res,
              res_c);
        for (int k = 2; k <= 3; k++)
            CHECK(!memcmp(x[1], x[k], (size_t)n * sizeof *x[1]), "%s: %d threads differ from 1", path, k);
        /* in place (x and b the same array) */
        double *y = malloc((size_t)n * sizeof *y);
        memcpy(y, b, (size_t)n * sizeof *y);
        int prev = fc_threads_set(2);
        CHECK(fc_snsolve_solve(S, L, y, y) && !memcmp(y, x[1], (size_t)n * sizeof *y), "%s: in place", path);
        fc_threads_set(prev);
        printf("%s: n %d, %zu supernodes, %d tasks, %d top (%d split); residual %.2e, CHOLMOD's %.2e\n",
               path, n, L->nsuper, tasks, top, split, res, res_c);
        free(y);
        for (int k = 1; k <= 3; k++) free(x[k]);
        cholmod_free_dense(&B, &c);
        cholmod_free_dense(&X, &c);
        fc_snsolve_free(S);
    }
    cholmod_free_factor(&L, &c);
    cholmod_free_sparse(&A, &c);
    cholmod_free_triplet(&T, &c);
    cholmod_finish(&c);
    fc_matrix_free(W);
    fc_problem_free(p);
    fc_par_min_set(old_min);
}

int main(void)
{
    fc_blas_threads_set(1);
    one(FRICON_SHARED_DATA "/fc3d/KaplasTower-i1061-4.hdf5.dat", 16, 1e-2, 1);
    one(FRICON_SHARED_DATA "/fc3d/Capsules-i122-1617.dat", 16, 1.0, 0);
#ifndef FRICON_TEST_QUICK
    one(FRICON_EXAMPLES "/pile-step24.hdf5", 64, 1e-1, 1);
#endif
    TEST_DONE();
}
