/* Sparse Cholesky through CHOLMOD. */
#include "internal.h"
#include "linsys/linsys.h"

#include <amd.h>
#include <cholmod.h>
#include <cs.h>

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

/* A factorisation of size n to be, CHOLMOD started quiet (NULL when out
 * of memory). */
static fc_chol *chol_start(int n)
{
    fc_chol *F = calloc(1, sizeof *F);
    if (!F) return NULL;
    cholmod_start(&F->c);
    F->c.print = 0;          /* the library never prints */
    F->c.error_handler = NULL;
    F->n = n;
    return F;
}

/* A failed factorisation: the error said (out of memory, or not positive
 * definite at column minor), F freed; NULL. */
static fc_chol *chol_fail(fc_chol *F, int nomem, long minor, const char *name, fc_error *err)
{
    if (nomem || F->c.status == CHOLMOD_OUT_OF_MEMORY)
        fc_error_set(err, FC_ERR_NOMEM, "out of memory factorising %s", name);
    else
        fc_error_set(err, FC_ERR_NUMERIC,
                     "%s is not positive definite (Cholesky failed at column %ld)", name, minor);
    fc_chol_free(F);
    return NULL;
}

fc_chol *fc_chol_copy(const fc_chol *F)
{
    fc_chol *G = chol_start(F->n);
    if (G && !(G->L = cholmod_copy_factor(F->L, &G->c))) {
        fc_chol_free(G);
        G = NULL;
    }
    return G;
}

/* The factorisation of fc_chol_factor; ll: LL' throughout (supernodal),
 * which fails on any pivot <= 0, where the simplicial LDL' that CHOLMOD
 * picks for small sparse matrices accepts an indefinite A. */
static fc_chol *chol_factor(const fc_matrix *A, const char *name, int ll, fc_error *err)
{
    fc_chol *F = chol_start(A->rows);
    if (F && ll) F->c.supernodal = CHOLMOD_SUPERNODAL;
    fc_matrix *C = F ? csr_or_convert(A) : NULL;
    if (!C) {
        free(F);
        fc_error_set(err, FC_ERR_NOMEM, "out of memory factorising %s", name);
        return NULL;
    }
    cholmod_sparse s = csr_as_csc_transpose(C, 1); /* symmetric: CSR == CSC */
    F->L = cholmod_analyze(&s, &F->c);
    int ok = F->L && cholmod_factorize(&s, F->L, &F->c) &&
             F->c.status == CHOLMOD_OK && F->L->minor == (size_t)A->rows;
    if (C != A) fc_matrix_free(C);
    if (!ok) return chol_fail(F, 0, F->L ? (long)F->L->minor : 0L, name, err);
    return F;
}

fc_chol *fc_chol_factor(const fc_matrix *A, const char *name, fc_error *err)
{
    return chol_factor(A, name, 0, err);
}

fc_err fc_chol_check_definite(const fc_matrix *A, const char *name, fc_error *err)
{
    fc_chol *F = chol_factor(A, name, 1, err);
    if (!F) return err->code;
    fc_chol_free(F);
    return FC_OK;
}

/* The upper triangle of A + shift I, A block-CSR with bs x bs blocks,
 * as a CHOLMOD CSC matrix (stype +1, rows sorted in each column).  The
 * blocks (a, b), b >= a, are read; for a symmetric A they hold the upper
 * triangle. */
static cholmod_sparse *bsr_upper_shifted(const fc_matrix *A, double shift, cholmod_common *c)
{
    int bs = A->bs, n = A->rows, nb = n / bs;
    size_t nz = 0;
    for (int a = 0; a < nb; a++)
        for (int k = A->p[a]; k < A->p[a + 1]; k++)
            if (A->j[k] > a) nz += (size_t)bs * bs;
            else if (A->j[k] == a) nz += (size_t)bs * (bs + 1) / 2;
    cholmod_sparse *S = cholmod_allocate_sparse((size_t)n, (size_t)n, nz + 1, 1, 1, 1,
                                                CHOLMOD_REAL, c);
    if (!S) return NULL;
    int *cp = S->p, *ri = S->i;
    double *x = S->x;
    memset(cp, 0, ((size_t)n + 1) * sizeof *cp);
    for (int a = 0; a < nb; a++)            /* counts per column */
        for (int k = A->p[a]; k < A->p[a + 1]; k++) {
            int b = A->j[k];
            if (b < a) continue;
            for (int cc = 0; cc < bs; cc++)
                cp[b * bs + cc + 1] += b > a ? bs : cc + 1;
        }
    for (int j = 0; j < n; j++) cp[j + 1] += cp[j];
    int *next = malloc((size_t)n * sizeof *next);
    if (!next) { cholmod_free_sparse(&S, c); return NULL; }
    memcpy(next, cp, (size_t)n * sizeof *next);
    for (int a = 0; a < nb; a++)            /* block rows in order: rows sorted */
        for (int r = 0; r < bs; r++)
            for (int k = A->p[a]; k < A->p[a + 1]; k++) {
                int b = A->j[k];
                if (b < a) continue;
                const double *B = A->x + (size_t)k * bs * bs;
                for (int cc = b > a ? 0 : r; cc < bs; cc++) {
                    int j = b * bs + cc, at = next[j]++;
                    ri[at] = a * bs + r;
                    x[at] = B[cc * bs + r] + (j == a * bs + r ? shift : 0.0);
                }
            }
    free(next);
    return S;
}

/* The analysis of A + shift I (A square block-CSR): F with F->L analysed
 * (AMD on the graph of the blocks) and *S its upper triangle; NULL with
 * err set on failure (S then freed). */
static fc_chol *bsr_analyse(const fc_matrix *A, double shift, cholmod_sparse **Sout,
                            const char *name, fc_error *err)
{
    *Sout = NULL;
    if (A->kind != FC_MAT_BSR || A->rows != A->cols) {
        fc_error_set(err, FC_ERR_INVALID, "%s: a square block-CSR matrix is expected", name);
        return NULL;
    }
    int bs = A->bs, n = A->rows, nb = n / bs;
    int *pb = malloc((size_t)(nb > 0 ? nb : 1) * sizeof *pb);
    int *perm = malloc((size_t)(n > 0 ? n : 1) * sizeof *perm);
    fc_chol *F = pb && perm ? chol_start(n) : NULL;
    if (!F) {
        free(pb); free(perm);
        fc_error_set(err, FC_ERR_NOMEM, "out of memory factorising %s", name);
        return NULL;
    }
    /* AMD on the graph of the blocks, expanded block by block */
    int ok = amd_order(nb, A->p, A->j, pb, NULL, NULL) >= AMD_OK;
    if (ok) {
        for (int k = 0; k < nb; k++)
            for (int r = 0; r < bs; r++) perm[k * bs + r] = pb[k] * bs + r;
        F->c.nmethods = 1;
        F->c.method[0].ordering = CHOLMOD_GIVEN;
    }
    cholmod_sparse *S = bsr_upper_shifted(A, shift, &F->c);
    F->L = S ? cholmod_analyze_p(S, ok ? perm : NULL, NULL, 0, &F->c) : NULL;
    free(pb);
    free(perm);
    if (!F->L) {
        int nomem = !S;
        cholmod_free_sparse(&S, &F->c);
        return chol_fail(F, nomem, 0, name, err);
    }
    *Sout = S;
    return F;
}

fc_err fc_chol_predict_bsr(const fc_matrix *A, double *entries, double *flops, fc_error *err)
{
    cholmod_sparse *S;
    fc_chol *F = bsr_analyse(A, 0.0, &S, "W", err);
    if (!F) return err->code;
    *entries = F->c.lnz;
    *flops = F->c.fl;
    cholmod_free_sparse(&S, &F->c);
    fc_chol_free(F);
    return FC_OK;
}

fc_err fc_chol_predict_pattern(int n, const int *Ap, const int *Ai, double *entries, double *flops,
                               fc_error *err)
{
    fc_chol *F = chol_start(n);
    if (!F) return fc_error_set(err, FC_ERR_NOMEM, "out of memory analysing a pattern");
    F->c.nmethods = 1;   /* AMD alone: a prediction, not the best order */
    F->c.method[0].ordering = CHOLMOD_AMD;
    cholmod_sparse s;
    memset(&s, 0, sizeof s);
    s.nrow = s.ncol = (size_t)n;
    s.nzmax = (size_t)(Ap[n] > 0 ? Ap[n] : 1);
    s.p = (int *)Ap;
    s.i = (int *)Ai;
    s.stype = 1;   /* the upper triangle is read */
    s.itype = CHOLMOD_INT;
    s.xtype = CHOLMOD_PATTERN;
    s.dtype = CHOLMOD_DOUBLE;
    s.sorted = 1;
    s.packed = 1;
    F->L = cholmod_analyze(&s, &F->c);
    if (!F->L) {
        fc_chol_free(F);
        return fc_error_set(err, FC_ERR_NOMEM, "out of memory analysing a pattern");
    }
    *entries = F->c.lnz;
    *flops = F->c.fl;
    fc_chol_free(F);
    return FC_OK;
}

fc_chol *fc_chol_factor_bsr_shift(const fc_matrix *A, double shift, double max_entries,
                                  double max_flops, const char *name, fc_error *err)
{
    cholmod_sparse *S;
    fc_chol *F = bsr_analyse(A, shift, &S, name, err);
    if (!F) return NULL;
    int n = A->rows;
    /* the analysis predicts the factor's size and work: refused beyond
     * the caller's limits, before any of it is allocated or done */
    double lnz = F->c.lnz, fl = F->c.fl;
    int too_big = (max_entries > 0 && lnz > max_entries) || (max_flops > 0 && fl > max_flops);
    int done = !too_big && cholmod_factorize(S, F->L, &F->c) && F->c.status == CHOLMOD_OK &&
               F->L->minor == (size_t)n;
    long minor = (long)F->L->minor;
    cholmod_free_sparse(&S, &F->c);
    if (too_big) {
        fc_error_set(err, FC_ERR_NOMEM, "the Cholesky factor of %s would hold %.3g entries "
                     "and take %.3g flops: beyond the limits (%.3g, %.3g)", name, lnz, fl,
                     max_entries, max_flops);
        fc_chol_free(F);
        return NULL;
    }
    if (!done) return chol_fail(F, 0, minor, name, err);
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

/* A CXSparse view (no copy) of a CHOLMOD sparse matrix. */
static cs_di cs_view(const cholmod_sparse *S)
{
    cs_di v;
    v.nzmax = (int)S->nzmax;
    v.m = (int)S->nrow;
    v.n = (int)S->ncol;
    v.p = S->p;
    v.i = S->i;
    v.x = S->x;
    v.nz = -1;   /* compressed columns */
    return v;
}

/* Our CSR matrix from a CXSparse CSC matrix that is symmetric (its CSC
 * is its CSR). */
static fc_matrix *cs_symmetric_to_csr(const cs_di *S)
{
    int n = S->n;
    long nnz = S->p[n];
    fc_matrix *R = fc_matrix_csr(n, n, nnz);
    if (!R) return NULL;
    memcpy(R->p, S->p, ((size_t)n + 1) * sizeof *R->p);
    memcpy(R->j, S->i, (size_t)nnz * sizeof *R->j);
    memcpy(R->x, S->x, (size_t)nnz * sizeof *R->x);
    return R;
}

/* W = H^T M^-1 H = G^T G with G = L^-1 P H (P M P^T = L L^T): each column
 * of G by a sparse triangular solve whose cost is the flops it does
 * (CXSparse's reach-based cs_spsolve on the factor made simplicial), then
 * one sparse product, symmetrised.  Not cholmod_spsolve: it works on dense
 * blocks of n rows (docs/measurements.md). */
fc_matrix *fc_chol_congruence(fc_chol *F, const fc_matrix *H, fc_error *err)
{
    cholmod_common *c = &F->c;
    int n = F->n;
    fc_matrix *C = csr_or_convert(H), *W = NULL;
    int m = C ? C->cols : 0;
    cs_di *PH = NULL, *G = NULL, *Gt = NULL, *A = NULL, *At = NULL, *S = NULL;
    int *xi = NULL, *inv = NULL;
    double *x = NULL;
    cholmod_sparse *Ls = NULL;
    if (!C) goto fail;
    /* the factor as a simplicial LL' with the diagonal first in each column */
    if (!cholmod_change_factor(CHOLMOD_REAL, 1, 0, 1, 1, F->L, c)) goto fail;
    cholmod_factor *Lc = cholmod_copy_factor(F->L, c);
    Ls = Lc ? cholmod_factor_to_sparse(Lc, c) : NULL;
    cholmod_free_factor(&Lc, c);
    if (!Ls) goto fail;
    cs_di L = cs_view(Ls);
    /* P H as CSC (m columns): row i of H goes to row inv[i] */
    inv = malloc((size_t)(n > 0 ? n : 1) * sizeof *inv);
    PH = cs_di_spalloc(n, m, (int)(C->nnz > 0 ? C->nnz : 1), 1, 0);
    xi = malloc(2 * (size_t)(n > 0 ? n : 1) * sizeof *xi);
    x = calloc((size_t)(n > 0 ? n : 1), sizeof *x);
    if (!inv || !PH || !xi || !x) goto fail;
    const int *perm = F->L->Perm;
    for (int k = 0; k < n; k++) inv[perm ? perm[k] : k] = k;
    memset(PH->p, 0, ((size_t)m + 1) * sizeof *PH->p);
    for (long k = 0; k < C->nnz; k++) PH->p[C->j[k] + 1]++;
    for (int j = 0; j < m; j++) PH->p[j + 1] += PH->p[j];
    int *fill = calloc((size_t)(m > 0 ? m : 1), sizeof *fill);
    if (!fill) goto fail;
    for (int i = 0; i < C->rows; i++)
        for (int k = C->p[i]; k < C->p[i + 1]; k++) {
            int j = C->j[k], at = PH->p[j] + fill[j]++;
            PH->i[at] = inv[i];
            PH->x[at] = C->x[k];
        }
    free(fill);
    /* G = L^-1 P H, column by column */
    int cap = PH->p[m] > 0 ? 2 * PH->p[m] : 1;
    G = cs_di_spalloc(n, m, cap, 1, 0);
    if (!G) goto fail;
    int nz = 0;
    for (int j = 0; j < m; j++) {
        G->p[j] = nz;
        int top = cs_di_spsolve(&L, PH, j, xi, x, NULL, 1);
        if (top < 0) goto fail;
        if (nz + (n - top) > G->nzmax && !cs_di_sprealloc(G, 2 * (nz + (n - top)))) goto fail;
        for (int t = top; t < n; t++) {
            int r = xi[t];
            if (x[r] != 0.0) {
                G->i[nz] = r;
                G->x[nz++] = x[r];
            }
            x[r] = 0.0;
        }
    }
    G->p[m] = nz;
    /* W = G^T G, symmetrised */
    Gt = cs_di_transpose(G, 1);
    A = Gt ? cs_di_multiply(Gt, G) : NULL;
    At = A ? cs_di_transpose(A, 1) : NULL;
    S = At ? cs_di_add(A, At, 0.5, 0.5) : NULL;
    if (!S) goto fail;
    /* sorted columns (a double transpose), the exact zeros dropped */
    cs_di_dropzeros(S);
    cs_di *St = cs_di_transpose(S, 1);
    cs_di_spfree(S);
    S = St ? cs_di_transpose(St, 1) : NULL;
    cs_di_spfree(St);
    if (S) W = cs_symmetric_to_csr(S);
fail:
    if (!W) fc_error_set(err, FC_ERR_NOMEM, "out of memory forming H^T M^-1 H");
    cs_di_spfree(PH);
    cs_di_spfree(G);
    cs_di_spfree(Gt);
    cs_di_spfree(A);
    cs_di_spfree(At);
    cs_di_spfree(S);
    cholmod_free_sparse(&Ls, c);
    free(xi);
    free(x);
    free(inv);
    if (C && C != H) fc_matrix_free(C);
    return W;
}

void fc_chol_free(fc_chol *F)
{
    if (!F) return;
    cholmod_free_factor(&F->L, &F->c);
    cholmod_finish(&F->c);
    free(F);
}
