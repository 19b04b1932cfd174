/* The matrix type: dense (column-major), CSR, and block-CSR with square
 * blocks; allocation and the products the solvers need. */
#include "internal.h"
#include "matrix/bsr.h"

static fc_matrix *matrix_alloc(fc_mat_kind kind, int rows, int cols)
{
    if (rows < 0 || cols < 0) return NULL;
    fc_matrix *A = calloc(1, sizeof *A);
    if (!A) return NULL;
    A->kind = kind;
    A->rows = rows;
    A->cols = cols;
    A->bs = 1;
    return A;
}

/* A zero dense rows x cols matrix. */
fc_matrix *fc_matrix_dense(int rows, int cols)
{
    fc_matrix *A = matrix_alloc(FC_MAT_DENSE, rows, cols);
    if (!A) return NULL;
    A->nnz = (long)rows * cols;
    A->x = fc_calloc((size_t)A->nnz, sizeof *A->x);
    if (!A->x) { free(A); return NULL; }
    return A;
}

/* A CSR matrix with room for nnz entries, p zeroed, j and x too when zero. */
static fc_matrix *csr_alloc(int rows, int cols, long nnz, int zero)
{
    fc_matrix *A = matrix_alloc(FC_MAT_CSR, rows, cols);
    if (!A || nnz < 0) { free(A); return NULL; }
    A->nnz = nnz;
    A->p = fc_calloc((size_t)rows + 1, sizeof *A->p);
    A->j = zero ? fc_calloc((size_t)nnz, sizeof *A->j) : fc_malloc((size_t)nnz, sizeof *A->j);
    A->x = zero ? fc_calloc((size_t)nnz, sizeof *A->x) : fc_malloc((size_t)nnz, sizeof *A->x);
    if (!A->p || !A->j || !A->x) { fc_matrix_free(A); return NULL; }
    return A;
}

/* A CSR matrix with room for nnz entries (structure zeroed). */
fc_matrix *fc_matrix_csr(int rows, int cols, long nnz) { return csr_alloc(rows, cols, nnz, 1); }

fc_matrix *fc_matrix_csr_unset(int rows, int cols, long nnz) { return csr_alloc(rows, cols, nnz, 0); }

/* A block-CSR matrix of bs x bs blocks with room for nblocks blocks, p
 * zeroed, j and x too when zero. */
static fc_matrix *bsr_alloc(int rows, int cols, int bs, long nblocks, int zero)
{
    if (bs <= 0 || rows % bs || cols % bs || nblocks < 0) return NULL;
    fc_matrix *A = matrix_alloc(FC_MAT_BSR, rows, cols);
    if (!A) return NULL;
    A->bs = bs;
    A->nnz = nblocks * bs * bs;
    A->p = fc_calloc((size_t)(rows / bs) + 1, sizeof *A->p);
    A->j = zero ? fc_calloc((size_t)nblocks, sizeof *A->j) : fc_malloc((size_t)nblocks, sizeof *A->j);
    A->x = zero ? fc_calloc((size_t)A->nnz, sizeof *A->x) : fc_malloc((size_t)A->nnz, sizeof *A->x);
    if (!A->p || !A->j || !A->x) { fc_matrix_free(A); return NULL; }
    return A;
}

/* A block-CSR matrix of bs x bs blocks with room for nblocks blocks. */
fc_matrix *fc_matrix_bsr(int rows, int cols, int bs, long nblocks) { return bsr_alloc(rows, cols, bs, nblocks, 1); }

fc_matrix *fc_matrix_bsr_unset(int rows, int cols, int bs, long nblocks)
{
    return bsr_alloc(rows, cols, bs, nblocks, 0);
}

void fc_matrix_free(fc_matrix *A)
{
    if (!A) return;
    free(A->p);
    free(A->j);
    free(A->x);
    free(A);
}

/* Number of stored blocks (BSR) or entries (CSR). */
static long structure_len(const fc_matrix *A)
{
    return A->kind == FC_MAT_BSR ? A->nnz / ((long)A->bs * A->bs) : A->nnz;
}

fc_matrix *fc_matrix_copy(const fc_matrix *A)
{
    fc_matrix *B;
    switch (A->kind) {
    case FC_MAT_DENSE: B = fc_matrix_dense(A->rows, A->cols); break;
    case FC_MAT_CSR: B = fc_matrix_csr(A->rows, A->cols, A->nnz); break;
    default: B = fc_matrix_bsr(A->rows, A->cols, A->bs, structure_len(A)); break;
    }
    if (!B) return NULL;
    if (A->nnz) memcpy(B->x, A->x, (size_t)A->nnz * sizeof *A->x);
    if (A->kind != FC_MAT_DENSE) {
        int np = (A->kind == FC_MAT_BSR ? A->rows / A->bs : A->rows) + 1;
        memcpy(B->p, A->p, (size_t)np * sizeof *A->p);
        if (structure_len(A))
            memcpy(B->j, A->j, (size_t)structure_len(A) * sizeof *A->j);
    }
    return B;
}


/* Block row a of y = alpha * A x + beta * y for block-CSR A with small
 * blocks bs x bs (column-major), accumulated in registers. */
static inline void bsr_gemv_row(const fc_matrix *A, int bs, int a, double alpha, const double *x,
                                double beta, double *y)
{
    double acc[FC_BSR_SMALL] = {0};
    for (int k = A->p[a]; k < A->p[a + 1]; k++) {
        const double *B = A->x + (size_t)k * bs * bs;
        const double *xb = x + (size_t)A->j[k] * bs;
        for (int c = 0; c < bs; c++)
            for (int r = 0; r < bs; r++) acc[r] += B[c * bs + r] * xb[c];
    }
    for (int r = 0; r < bs; r++) {
        double *yr = y + (size_t)a * bs + r;
        *yr = (beta == 0.0 ? 0.0 : beta * *yr) + alpha * acc[r];
    }
}

/* y = alpha * A x + beta * y for block-CSR A with blocks bs x bs; the
 * rows call bsr_gemv_row with a literal bs for the contact dimensions 2
 * and 3, so that its block loops unroll (the products dominate the
 * Gauss-Seidel sweeps and the error measure) in the plain loop and in
 * the OpenMP region alike (a region's body does not see the caller's
 * constant). */
static void bsr_gemv(const fc_matrix *A, double alpha, const double *x, double beta, double *y)
{
    int bs = A->bs, nb = A->rows / bs;
    if (bs > FC_BSR_SMALL) {   /* large blocks (global M): straight into y */
        for (int i = 0; i < A->rows; i++) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
        for (int a = 0; a < nb; a++)
            for (int k = A->p[a]; k < A->p[a + 1]; k++) {
                const double *B = A->x + (size_t)k * bs * bs;
                const double *xb = x + (size_t)A->j[k] * bs;
                for (int c = 0; c < bs; c++)
                    for (int r = 0; r < bs; r++)
                        y[(size_t)a * bs + r] += alpha * B[c * bs + r] * xb[c];
            }
        return;
    }
    FC_PAR_FOR(nb, , for (int a = 0; a < nb; a++) {
        if (bs == 3) bsr_gemv_row(A, 3, a, alpha, x, beta, y);
        else if (bs == 2) bsr_gemv_row(A, 2, a, alpha, x, beta, y);
        else bsr_gemv_row(A, bs, a, alpha, x, beta, y);
    });
}

/* y = alpha*A*x + beta*y (the sparse kinds scale y in their row loop:
 * one pass over y, threaded with it). */
void fc_matrix_gemv(const fc_matrix *A, double alpha, const double *x,
                    double beta, double *y)
{
    if (A->kind == FC_MAT_DENSE) {
        for (int i = 0; i < A->rows; i++) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
        for (int c = 0; c < A->cols; c++) {
            double xc = alpha * x[c];
            if (xc == 0.0) continue;
            const double *col = A->x + (size_t)c * A->rows;
            for (int i = 0; i < A->rows; i++) y[i] += col[i] * xc;
        }
    } else if (A->kind == FC_MAT_CSR) {
        FC_PAR_FOR(A->rows, , for (int i = 0; i < A->rows; i++) {
            double s = 0.0;
            for (int k = A->p[i]; k < A->p[i + 1]; k++) s += A->x[k] * x[A->j[k]];
            y[i] = (beta == 0.0 ? 0.0 : beta * y[i]) + alpha * s;
        });
    } else {
        bsr_gemv(A, alpha, x, beta, y);
    }
}

/* y = alpha*A^T*x + beta*y. */
void fc_matrix_gemv_t(const fc_matrix *A, double alpha, const double *x,
                      double beta, double *y)
{
    for (int i = 0; i < A->cols; i++) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
    if (A->kind == FC_MAT_DENSE) {
        for (int c = 0; c < A->cols; c++)
            y[c] += alpha * fc_dot(A->rows, A->x + (size_t)c * A->rows, x);
    } else if (A->kind == FC_MAT_CSR) {
        for (int i = 0; i < A->rows; i++) {
            double xi = alpha * x[i];
            for (int k = A->p[i]; k < A->p[i + 1]; k++) y[A->j[k]] += A->x[k] * xi;
        }
    } else {
        int bs = A->bs, nb = A->rows / bs;
        for (int a = 0; a < nb; a++) {
            const double *xa = x + (size_t)a * bs;
            for (int k = A->p[a]; k < A->p[a + 1]; k++) {
                const double *B = A->x + (size_t)k * bs * bs;
                double *yb = y + (size_t)A->j[k] * bs;
                for (int c = 0; c < bs; c++)
                    yb[c] += alpha * fc_dot(bs, B + c * bs, xa);
            }
        }
    }
}

/* Index of block (a, b) in a BSR matrix, -1 when absent. */
static int bsr_find(const fc_matrix *A, int a, int b)
{
    return fc_find_sorted(A->j, A->p[a], A->p[a + 1], b);
}

/* Entry (i, j). */
double fc_matrix_get(const fc_matrix *A, int i, int j)
{
    if (A->kind == FC_MAT_DENSE) return A->x[(size_t)j * A->rows + i];
    if (A->kind == FC_MAT_CSR) {
        for (int k = A->p[i]; k < A->p[i + 1]; k++)
            if (A->j[k] == j) return A->x[k];
        return 0.0;
    }
    int bs = A->bs, k = bsr_find(A, i / bs, j / bs);
    return k < 0 ? 0.0 : A->x[(size_t)k * bs * bs + (j % bs) * bs + (i % bs)];
}

/* The d x d diagonal block at contact a, column-major. */
void fc_matrix_diag_block(const fc_matrix *A, int a, int d, double *blk)
{
    int o = a * d;
    if (A->kind == FC_MAT_BSR && A->bs == d) {
        int k = bsr_find(A, a, a);
        if (k < 0) memset(blk, 0, (size_t)d * d * sizeof *blk);
        else memcpy(blk, A->x + (size_t)k * d * d, (size_t)d * d * sizeof *blk);
        return;
    }
    if (A->kind == FC_MAT_CSR) {
        memset(blk, 0, (size_t)d * d * sizeof *blk);
        for (int r = 0; r < d; r++)
            for (int k = A->p[o + r]; k < A->p[o + r + 1]; k++) {
                int c = A->j[k] - o;
                if (c >= 0 && c < d) blk[c * d + r] = A->x[k];
            }
        return;
    }
    for (int c = 0; c < d; c++)
        for (int r = 0; r < d; r++) blk[c * d + r] = fc_matrix_get(A, o + r, o + c);
}

/* (A x)_i. */
double fc_matrix_row_dot(const fc_matrix *A, int i, const double *x)
{
    double s = 0.0;
    if (A->kind == FC_MAT_DENSE) {
        for (int c = 0; c < A->cols; c++) s += A->x[(size_t)c * A->rows + i] * x[c];
    } else if (A->kind == FC_MAT_CSR) {
        s = csr_row_dot(A, i, x);
    } else {
        int bs = A->bs, a = i / bs, r = i % bs;
        for (int k = A->p[a]; k < A->p[a + 1]; k++) {
            const double *B = A->x + (size_t)k * bs * bs;
            const double *xb = x + (size_t)A->j[k] * bs;
            for (int c = 0; c < bs; c++) s += B[c * bs + r] * xb[c];
        }
    }
    return s;
}

/* out = rows d*a..d*a+d-1 of A x, the diagonal block left out when
 * skip_diag is set. */
void fc_matrix_block_row_dot(const fc_matrix *A, int a, int d,
                             const double *x, int skip_diag, double *out)
{
    int o = a * d;
    for (int r = 0; r < d; r++) out[r] = 0.0;
    if (A->kind == FC_MAT_BSR && A->bs == d) {
        if (d == 3) bsr_row_dot(A, 3, a, x, skip_diag, out);
        else if (d == 2) bsr_row_dot(A, 2, a, x, skip_diag, out);
        else bsr_row_dot(A, d, a, x, skip_diag, out);
        return;
    }
    if (A->kind == FC_MAT_CSR) {
        for (int r = 0; r < d; r++)
            for (int k = A->p[o + r]; k < A->p[o + r + 1]; k++) {
                int c = A->j[k];
                if (skip_diag && c >= o && c < o + d) continue;
                out[r] += A->x[k] * x[c];
            }
        return;
    }
    for (int r = 0; r < d; r++) out[r] = fc_matrix_row_dot(A, o + r, x);
    if (skip_diag)
        for (int c = 0; c < d; c++)
            for (int r = 0; r < d; r++) out[r] -= fc_matrix_get(A, o + r, o + c) * x[o + c];
}

long fc_matrix_count_nonzeros(const fc_matrix *A)
{
    long n = 0;
    for (long k = 0; k < A->nnz; k++) n += A->x[k] != 0.0;
    return n;
}

/* Index of entry (i, j) in a CSR matrix (sorted rows), -1 when absent. */
static int csr_find(const fc_matrix *A, int i, int j)
{
    return fc_find_sorted(A->j, A->p[i], A->p[i + 1], j);
}

/* Relative asymmetry max |A_ij - A_ji| / max |A_ij|, through the CSR form. */
double fc_matrix_asymmetry(const fc_matrix *A)
{
    fc_matrix *C = A->kind == FC_MAT_CSR ? (fc_matrix *)A : fc_matrix_to_csr(A);
    if (!C) return INFINITY;
    double amax = 0.0, dmax = 0.0;
    for (int i = 0; i < C->rows; i++)
        for (int k = C->p[i]; k < C->p[i + 1]; k++) {
            int j = C->j[k], t = j < C->rows ? csr_find(C, j, i) : -1;
            double aji = t < 0 ? 0.0 : C->x[t];
            amax = fmax(amax, fabs(C->x[k]));
            dmax = fmax(dmax, fabs(C->x[k] - aji));
        }
    if (C != A) fc_matrix_free(C);
    return dmax / (amax > 1e-300 ? amax : 1e-300);
}

void fc_affine(const fc_matrix *W, const double *r, const double *q, double *u)
{
    fc_copy(W->rows, q, u);
    fc_matrix_gemv(W, 1.0, r, 1.0, u);
}
