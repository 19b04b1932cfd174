/* Conjugate gradients on A + shift I, A symmetric positive semi-definite
 * (or its symmetric part (A + A')/2, formed once when asked),
 * preconditioned by the inverses of its d x d diagonal blocks (block
 * Jacobi).  No factorisation and no fill: a solve costs products with A
 * and vector updates, all threaded, and its sums go by fc_chunks, so the
 * iterates are the same for any thread count.  Used where a Cholesky of
 * A + shift I would be refactorised often or fill far beyond A (admm's
 * r-step on large problems, admm.linear). */
#include "internal.h"
#include "linsys/linsys.h"

struct fc_pcg {
    const fc_matrix *A;     /* the caller's A, or own                        */
    fc_matrix *own;         /* A (or its symmetric part) in d x d blocks,
                               when A is not so stored or not symmetric     */
    int d, nc, m;
    double shift;
    double *L;              /* nc blocks' Cholesky factors, d x d each       */
    double *r, *z, *p, *q;  /* residual, preconditioned, direction, A p     */
};

void fc_pcg_free(fc_pcg *P)
{
    if (!P) return;
    free(P->L); free(P->r); free(P->z); free(P->p); free(P->q);
    fc_matrix_free(P->own);
    free(P);
}

/* (A + A')/2 in d x d blocks: the rows of A and of A' side by side, each
 * entry halved, summed into their blocks by fc_compressed_to_bsr. */
static fc_matrix *symmetric_part(const fc_matrix *A, int d)
{
    fc_matrix *C = A->kind == FC_MAT_CSR ? (fc_matrix *)A : fc_matrix_to_csr(A);
    fc_matrix *T = C ? fc_csr_transpose(C) : NULL, *B = NULL;
    long nz = C && T ? C->nnz + T->nnz : 0;
    int *p = T ? fc_calloc((size_t)A->rows + 1, sizeof *p) : NULL;
    int *j = p ? fc_calloc((size_t)nz + 1, sizeof *j) : NULL;
    double *x = j ? fc_calloc((size_t)nz + 1, sizeof *x) : NULL;
    if (x) {
        long k = 0;
        for (int i = 0; i < A->rows; i++) {
            for (int t = C->p[i]; t < C->p[i + 1]; t++, k++) { j[k] = C->j[t]; x[k] = 0.5 * C->x[t]; }
            for (int t = T->p[i]; t < T->p[i + 1]; t++, k++) { j[k] = T->j[t]; x[k] = 0.5 * T->x[t]; }
            p[i + 1] = (int)k;
        }
        B = fc_compressed_to_bsr(A->rows, A->cols, d, p, j, x, 0);
    }
    free(p); free(j); free(x);
    fc_matrix_free(T);
    if (C != A) fc_matrix_free(C);
    return B;
}

fc_pcg *fc_pcg_new(const fc_matrix *A, int d, int symmetrise)
{
    fc_pcg *P = fc_calloc(1, sizeof *P);
    if (!P) return NULL;
    size_t m = (size_t)A->rows;
    /* products with d x d blocks (one index a block) read about 2/3 of
     * a scalar CSR's bytes: a block copy when A is not stored so */
    if (symmetrise || !(A->kind == FC_MAT_BSR && A->bs == d)) {
        if (!(P->own = symmetrise ? symmetric_part(A, d) : fc_matrix_to_bsr(A, d))) {
            fc_pcg_free(P);
            return NULL;
        }
        A = P->own;
    }
    P->A = A;
    P->d = d;
    P->nc = A->rows / d;
    P->m = A->rows;
    P->L = fc_calloc((size_t)P->nc * (size_t)(d * d), sizeof *P->L);
    P->r = fc_calloc(m, sizeof *P->r);
    P->z = fc_calloc(m, sizeof *P->z);
    P->p = fc_calloc(m, sizeof *P->p);
    P->q = fc_calloc(m, sizeof *P->q);
    if (!P->L || !P->r || !P->z || !P->p || !P->q) { fc_pcg_free(P); return NULL; }
    return P;
}

/* The Cholesky factor of the block blk (d x d, column-major) in place,
 * lower triangle; a pivot not above tiny * the block's largest diagonal
 * entry is replaced by that floor (the block of a singular A with a
 * vanishing shift: the preconditioner stays SPD). */
static void block_chol(int d, double *blk)
{
    double big = 0.0;
    for (int i = 0; i < d; i++) big = fmax(big, blk[i * d + i]);
    double floor = big > 0.0 ? 1e-12 * big : 1.0;
    for (int j = 0; j < d; j++) {
        double s = blk[j * d + j];
        for (int k = 0; k < j; k++) s -= blk[k * d + j] * blk[k * d + j];
        double l = sqrt(s > floor ? s : floor);
        blk[j * d + j] = l;
        for (int i = j + 1; i < d; i++) {
            double t = blk[j * d + i];
            for (int k = 0; k < j; k++) t -= blk[k * d + i] * blk[k * d + j];
            blk[j * d + i] = t / l;
        }
    }
}

void fc_pcg_shift(fc_pcg *P, double shift)
{
    int d = P->d, dd = d * d;
    P->shift = shift;
    FC_PAR_FOR(P->nc, , for (int a = 0; a < P->nc; a++) {
        double *blk = P->L + (size_t)a * dd;
        fc_matrix_diag_block(P->A, a, d, blk);
        for (int i = 0; i < d; i++)
            for (int j = 0; j < i; j++) blk[j * d + i] = blk[i * d + j] = 0.5 * (blk[j * d + i] + blk[i * d + j]);
        for (int i = 0; i < d; i++) blk[i * d + i] += shift;
        block_chol(d, blk);
    });
}

/* z_a = (L_a L_a')^-1 r_a for one contact. */
static inline void block_solve(int d, const double *L, const double *r, double *z)
{
    double y[8];
    for (int i = 0; i < d; i++) {
        double s = r[i];
        for (int k = 0; k < i; k++) s -= L[k * d + i] * y[k];
        y[i] = s / L[i * d + i];
    }
    for (int i = d - 1; i >= 0; i--) {
        double s = y[i];
        for (int k = i + 1; k < d; k++) s -= L[i * d + k] * z[k];
        z[i] = s / L[i * d + i];
    }
}

/* Over the contacts in fc_chunks: x += alpha p and r -= alpha q (when
 * alpha != 0), z = P^-1 r; sums r'z and r'r into s[0], s[1]. */
static void update_precondition(fc_pcg *P, double alpha, double *x, double s[2])
{
    int d = P->d, nc = P->nc, dd = d * d;
    fc_chunks c = fc_chunks_of(nc, FC_CHUNK_MIN / d);
    double part[2][FC_CHUNKS_MAX];
    FC_PAR_FOR(nc, , for (int k = 0; k < c.count; k++) {
        double rz = 0.0, rr = 0.0;
        for (int a = k * c.len, end = fc_chunk_end(c, k, nc); a < end; a++) {
            int i0 = d * a;
            if (alpha != 0.0)
                for (int i = i0; i < i0 + d; i++) {
                    x[i] += alpha * P->p[i];
                    P->r[i] -= alpha * P->q[i];
                }
            block_solve(d, P->L + (size_t)a * dd, P->r + i0, P->z + i0);
            for (int i = i0; i < i0 + d; i++) {
                rz += P->r[i] * P->z[i];
                rr += P->r[i] * P->r[i];
            }
        }
        part[0][k] = rz;
        part[1][k] = rr;
    });
    s[0] = fc_chunks_sum(c, part[0]);
    s[1] = fc_chunks_sum(c, part[1]);
}

int fc_pcg_solve(fc_pcg *P, const double *b, double *x, double tol, int max_iter, double *res)
{
    int m = P->m, it = 0;
    double shift = P->shift;
    /* r = b - (A + shift I) x */
    fc_matrix_gemv(P->A, 1.0, x, 0.0, P->q);
    FC_PAR_FOR(m, , for (int i = 0; i < m; i++) { P->r[i] = b[i] - P->q[i] - shift * x[i]; });
    double s[2];
    update_precondition(P, 0.0, x, s);
    double rz = s[0], rn = sqrt(s[1]);
    /* q = shift p is set with p, then q += A p */
    FC_PAR_FOR(m, , for (int i = 0; i < m; i++) { P->p[i] = P->z[i]; P->q[i] = shift * P->z[i]; });
    while (rn > tol && it < max_iter && rz > 0.0) {
        fc_matrix_gemv(P->A, 1.0, P->p, 1.0, P->q);
        double pq = fc_dot(m, P->p, P->q);
        if (!(pq > 0.0)) break;   /* A + shift I not definite along p */
        double alpha = rz / pq;
        update_precondition(P, alpha, x, s);
        it++;
        rn = sqrt(s[1]);
        double beta = s[0] / rz;
        rz = s[0];
        FC_PAR_FOR(m, , for (int i = 0; i < m; i++) {
            P->p[i] = P->z[i] + beta * P->p[i];
            P->q[i] = shift * P->p[i];
        });
    }
    if (res) *res = rn;
    return it;
}
