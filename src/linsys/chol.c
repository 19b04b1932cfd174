/* Sparse Cholesky through CHOLMOD. */
#include "internal.h"
#include "linsys/linsys.h"

#include <cholmod.h>

struct fc_chol {
    cholmod_common c;
    cholmod_factor *L;
    int n;
};

/* A CHOLMOD view (no copy) of a CSR matrix as the CSC of its transpose. */
static cholmod_sparse csr_as_csc_transpose(const fc_matrix *C, int stype)
{
    cholmod_sparse s;
    memset(&s, 0, sizeof s);
    s.nrow = (size_t)C->cols;
    s.ncol = (size_t)C->rows;
    s.nzmax = (size_t)(C->nnz > 0 ? C->nnz : 1);
    s.p = C->p;
    s.i = C->j;
    s.x = C->x;
    s.stype = stype;
    s.itype = CHOLMOD_INT;
    s.xtype = CHOLMOD_REAL;
    s.dtype = CHOLMOD_DOUBLE;
    s.sorted = 1;
    s.packed = 1;
    return s;
}

static fc_matrix *csr_or_convert(const fc_matrix *A)
{
    return A->kind == FC_MAT_CSR ? (fc_matrix *)A : fc_matrix_to_csr(A);
}

fc_chol *fc_chol_factor(const fc_matrix *A, const char *name, fc_error *err)
{
    fc_chol *F = calloc(1, sizeof *F);
    fc_matrix *C = csr_or_convert(A);
    if (!F || !C) {
        free(F);
        if (C && C != A) fc_matrix_free(C);
        fc_error_set(err, FC_ERR_NOMEM, "out of memory factorising %s", name);
        return NULL;
    }
    cholmod_start(&F->c);
    F->c.print = 0;          /* the library never prints */
    F->c.error_handler = NULL;
    F->n = A->rows;
    cholmod_sparse s = csr_as_csc_transpose(C, 1); /* symmetric: CSR == CSC */
    F->L = cholmod_analyze(&s, &F->c);
    int ok = F->L && cholmod_factorize(&s, F->L, &F->c) &&
             F->c.status == CHOLMOD_OK && F->L->minor == (size_t)A->rows;
    if (C != A) fc_matrix_free(C);
    if (!ok) {
        if (F->c.status == CHOLMOD_OUT_OF_MEMORY)
            fc_error_set(err, FC_ERR_NOMEM, "out of memory factorising %s", name);
        else
            fc_error_set(err, FC_ERR_NUMERIC,
                         "%s is not positive definite (Cholesky failed at column %ld)",
                         name, F->L ? (long)F->L->minor : 0L);
        fc_chol_free(F);
        return NULL;
    }
    return F;
}

fc_err fc_chol_solve(fc_chol *F, const double *b, double *x, fc_error *err)
{
    cholmod_dense *B = cholmod_allocate_dense((size_t)F->n, 1, (size_t)F->n, CHOLMOD_REAL, &F->c);
    if (!B) return fc_error_set(err, FC_ERR_NOMEM, "out of memory in a Cholesky solve");
    memcpy(B->x, b, (size_t)F->n * sizeof *b);
    cholmod_dense *X = cholmod_solve(CHOLMOD_A, F->L, B, &F->c);
    cholmod_free_dense(&B, &F->c);
    if (!X) return fc_error_set(err, FC_ERR_NOMEM, "out of memory in a Cholesky solve");
    memcpy(x, X->x, (size_t)F->n * sizeof *x);
    cholmod_free_dense(&X, &F->c);
    return FC_OK;
}

/* Our CSR copy of a CHOLMOD CSC matrix read as CSR of its transpose. */
static fc_matrix *csc_to_csr_transpose(const cholmod_sparse *S)
{
    const int *sp = S->p, *si = S->i;
    const double *sx = S->x;
    long nnz = sp[S->ncol];
    fc_matrix *R = fc_matrix_csr((int)S->ncol, (int)S->nrow, nnz);
    if (!R) return NULL;
    memcpy(R->p, sp, (S->ncol + 1) * sizeof *sp);
    memcpy(R->j, si, (size_t)nnz * sizeof *si);
    memcpy(R->x, sx, (size_t)nnz * sizeof *sx);
    return R;
}

fc_matrix *fc_chol_congruence(fc_chol *F, const fc_matrix *H, fc_error *err)
{
    cholmod_common *c = &F->c;
    fc_matrix *C = csr_or_convert(H), *W = NULL;
    if (!C) { fc_error_set(err, FC_ERR_NOMEM, "out of memory forming H^T M^-1 H"); return NULL; }
    cholmod_sparse ht = csr_as_csc_transpose(C, 0);          /* H^T, m x n */
    cholmod_sparse *Hs = cholmod_transpose(&ht, 1, c);        /* H, n x m   */
    cholmod_sparse *X = Hs ? cholmod_spsolve(CHOLMOD_A, F->L, Hs, c) : NULL;
    cholmod_sparse *P = X ? cholmod_ssmult(&ht, X, 0, 1, 1, c) : NULL;   /* H^T X */
    cholmod_sparse *Pt = P ? cholmod_transpose(P, 1, c) : NULL;
    double half[2] = {0.5, 0.0};
    cholmod_sparse *S = Pt ? cholmod_add(P, Pt, half, half, 1, 1, c) : NULL;
    if (S) {
        cholmod_sort(S, c);
        W = csc_to_csr_transpose(S); /* S symmetric: its CSC is its CSR */
    }
    cholmod_free_sparse(&Hs, c);
    cholmod_free_sparse(&X, c);
    cholmod_free_sparse(&P, c);
    cholmod_free_sparse(&Pt, c);
    cholmod_free_sparse(&S, c);
    if (C != H) fc_matrix_free(C);
    if (!W) fc_error_set(err, FC_ERR_NOMEM, "out of memory forming H^T M^-1 H");
    return W;
}

void fc_chol_free(fc_chol *F)
{
    if (!F) return;
    cholmod_free_factor(&F->L, &F->c);
    cholmod_finish(&F->c);
    free(F);
}
