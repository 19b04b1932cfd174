/* Conversions between the dense, CSR and block-CSR storages. */
#include "internal.h"

/* CSR copy of any matrix; explicit zeros of dense storage are dropped. */
fc_matrix *fc_matrix_to_csr(const fc_matrix *A)
{
    if (A->kind == FC_MAT_CSR) return fc_matrix_copy(A);
    long nnz = A->kind == FC_MAT_DENSE ? fc_matrix_count_nonzeros(A) : A->nnz;
    fc_matrix *C = fc_matrix_csr(A->rows, A->cols, nnz);
    if (!C) return NULL;
    long k = 0;
    if (A->kind == FC_MAT_DENSE) {
        for (int i = 0; i < A->rows; i++) {
            for (int j = 0; j < A->cols; j++) {
                double v = A->x[(size_t)j * A->rows + i];
                if (v != 0.0) { C->j[k] = j; C->x[k++] = v; }
            }
            C->p[i + 1] = (int)k;
        }
        return C;
    }
    int bs = A->bs;
    for (int i = 0; i < A->rows; i++) {
        int a = i / bs, r = i % bs;
        for (int t = A->p[a]; t < A->p[a + 1]; t++)
            for (int c = 0; c < bs; c++) {
                C->j[k] = A->j[t] * bs + c;
                C->x[k++] = A->x[(size_t)t * bs * bs + c * bs + r];
            }
        C->p[i + 1] = (int)k;
    }
    return C;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Block-CSR copy with bs x bs blocks; a block is stored when any of its
 * entries is stored in A.  NULL when the sizes are not multiples of bs. */
fc_matrix *fc_matrix_to_bsr(const fc_matrix *A, int bs)
{
    if (bs <= 0 || A->rows % bs || A->cols % bs) return NULL;
    if (A->kind == FC_MAT_BSR && A->bs == bs) return fc_matrix_copy(A);
    fc_matrix *C = A->kind == FC_MAT_CSR ? (fc_matrix *)A : fc_matrix_to_csr(A);
    if (!C) return NULL;
    int nbr = A->rows / bs, nbc = A->cols / bs;
    int *stamp = fc_calloc((size_t)nbc, sizeof *stamp); /* last block row seen + 1 */
    int *slot = fc_calloc((size_t)nbc, sizeof *slot);   /* block's index in its row */
    int *list = fc_calloc((size_t)nbc, sizeof *list);
    fc_matrix *B = NULL;
    long nblocks = 0;
    if (!stamp || !slot || !list) goto done;
    for (int a = 0; a < nbr; a++)
        for (int i = a * bs; i < (a + 1) * bs; i++)
            for (int k = C->p[i]; k < C->p[i + 1]; k++)
                if (stamp[C->j[k] / bs] != a + 1) { stamp[C->j[k] / bs] = a + 1; nblocks++; }
    B = fc_matrix_bsr(A->rows, A->cols, bs, nblocks);
    if (!B) goto done;
    memset(stamp, 0, (size_t)nbc * sizeof *stamp);
    long nb = 0;
    for (int a = 0; a < nbr; a++) {
        int len = 0;
        for (int i = a * bs; i < (a + 1) * bs; i++)
            for (int k = C->p[i]; k < C->p[i + 1]; k++) {
                int b = C->j[k] / bs;
                if (stamp[b] != a + 1) { stamp[b] = a + 1; list[len++] = b; }
            }
        qsort(list, (size_t)len, sizeof *list, cmp_int);
        for (int t = 0; t < len; t++) { slot[list[t]] = t; B->j[nb + t] = list[t]; }
        for (int i = a * bs; i < (a + 1) * bs; i++)
            for (int k = C->p[i]; k < C->p[i + 1]; k++) {
                int b = C->j[k] / bs, c = C->j[k] % bs;
                B->x[(size_t)(nb + slot[b]) * bs * bs + c * bs + (i % bs)] = C->x[k];
            }
        nb += len;
        B->p[a + 1] = (int)nb;
    }
done:
    free(stamp);
    free(slot);
    free(list);
    if (C != A) fc_matrix_free(C);
    return B;
}

/* Dense copy. */
fc_matrix *fc_matrix_to_dense(const fc_matrix *A)
{
    if (A->kind == FC_MAT_DENSE) return fc_matrix_copy(A);
    fc_matrix *D = fc_matrix_dense(A->rows, A->cols);
    if (!D) return NULL;
    fc_matrix *C = A->kind == FC_MAT_CSR ? (fc_matrix *)A : fc_matrix_to_csr(A);
    if (!C) { fc_matrix_free(D); return NULL; }
    for (int i = 0; i < C->rows; i++)
        for (int k = C->p[i]; k < C->p[i + 1]; k++)
            D->x[(size_t)C->j[k] * C->rows + i] = C->x[k];
    if (C != A) fc_matrix_free(C);
    return D;
}

/* Transpose of a CSR matrix, as CSR (column indices sorted per row). */
fc_matrix *fc_csr_transpose(const fc_matrix *C)
{
    fc_matrix *T = fc_matrix_csr(C->cols, C->rows, C->nnz);
    if (!T) return NULL;
    for (long k = 0; k < C->nnz; k++) T->p[C->j[k] + 1]++;
    for (int j = 0; j < C->cols; j++) T->p[j + 1] += T->p[j];
    int *next = fc_calloc((size_t)C->cols + 1, sizeof *next);
    if (!next) { fc_matrix_free(T); return NULL; }
    memcpy(next, T->p, (size_t)C->cols * sizeof *next);
    for (int i = 0; i < C->rows; i++)
        for (int k = C->p[i]; k < C->p[i + 1]; k++) {
            int t = next[C->j[k]]++;
            T->j[t] = i;
            T->x[t] = C->x[k];
        }
    free(next);
    return T;
}

static int dof_sig_cmp(const void *x, const void *y)
{
    const fc_dof_sig *a = x, *b = y;
    return a->h < b->h ? -1 : a->h > b->h ? 1 : a->i - b->i;
}

void fc_dof_signatures(const fc_matrix *Hc, int d, fc_dof_sig *sg)
{
    int n = Hc->rows;
    for (int i = 0; i < n; i++) {
        unsigned long long h = 1469598103934665603ULL;   /* FNV-1a over the contacts */
        int last = -1, cnt = 0;
        for (int t = Hc->p[i]; t < Hc->p[i + 1]; t++) {
            int c = Hc->j[t] / d;
            if (c == last) continue;
            h = (h ^ (unsigned long long)(c + 1)) * 1099511628211ULL;
            last = c;
            cnt++;
        }
        sg[i].h = cnt ? h : 0;
        sg[i].i = i;
    }
    qsort(sg, (size_t)n, sizeof *sg, dof_sig_cmp);
}
