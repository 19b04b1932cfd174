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

/* A block row's few block columns (distinct) in increasing order: by
 * insertion up to 32 of them, qsort beyond (a qsort call per block row
 * was a large part of reading the large steps: docs/distributed.md). */
static void sort_ints(int *v, int len)
{
    if (len > 32) {
        qsort(v, (size_t)len, sizeof *v, cmp_int);
        return;
    }
    for (int i = 1; i < len; i++) {
        int x = v[i], k = i;
        while (k > 0 && v[k - 1] > x) { v[k] = v[k - 1]; k--; }
        v[k] = x;
    }
}

/* Block-CSR of a compressed matrix whose outer index is the block row
 * (CSR input): per block row, the block columns met are listed, sorted
 * and given their slots; values are added into their blocks. */
static void rows_to_bsr(fc_matrix *B, const int *p, const int *idx, const double *x, int *work)
{
    int bs = B->bs, nbr = B->rows / bs, nbc = B->cols / bs;
    int *stamp = work, *slot = work + nbc, *list = work + 2 * (size_t)nbc;
    memset(stamp, 0, (size_t)nbc * sizeof *stamp);
    long nb = 0;
    for (int a = 0; a < nbr; a++) {
        int len = 0;
        for (int i = a * bs; i < (a + 1) * bs; i++)
            for (int k = p[i]; k < p[i + 1]; k++) {
                int b = idx[k] / bs;
                if (stamp[b] != a + 1) { stamp[b] = a + 1; list[len++] = b; }
            }
        sort_ints(list, len);
        for (int t = 0; t < len; t++) { slot[list[t]] = t; B->j[nb + t] = list[t]; }
        for (int i = a * bs; i < (a + 1) * bs; i++)
            for (int k = p[i]; k < p[i + 1]; k++) {
                int b = idx[k] / bs, c = idx[k] % bs;
                B->x[(size_t)(nb + slot[b]) * bs * bs + c * bs + (i % bs)] += x[k];
            }
        nb += len;
        B->p[a + 1] = (int)nb;
    }
}

/* The same from a CSC input: block columns are visited in order, so each
 * block row's blocks come out sorted; next[a] is the block row's next free
 * block, pos[a] its block in the current block column. */
static void cols_to_bsr(fc_matrix *B, const int *p, const int *idx, const double *x, int *work)
{
    int bs = B->bs, nbr = B->rows / bs, nbc = B->cols / bs;
    int *stamp = work, *next = work + nbr, *pos = work + 2 * (size_t)nbr;
    memset(stamp, 0, (size_t)nbr * sizeof *stamp);
    memcpy(next, B->p, (size_t)nbr * sizeof *next);
    for (int b = 0; b < nbc; b++)
        for (int col = b * bs; col < (b + 1) * bs; col++)
            for (int k = p[col]; k < p[col + 1]; k++) {
                int a = idx[k] / bs;
                if (stamp[a] != b + 1) { stamp[a] = b + 1; pos[a] = next[a]++; B->j[pos[a]] = b; }
                B->x[(size_t)pos[a] * bs * bs + (col % bs) * bs + idx[k] % bs] += x[k];
            }
}

/* CSR rows with strictly increasing columns (no duplicates): a CSR of
 * blocks of 1 is then a copy, each value added to a zero as the blocks'
 * sums would (so a -0.0 comes out +0.0, as there).  NULL when a row is
 * not so (or out of memory): the general path. */
static fc_matrix *sorted_csr_copy(int rows, int cols, const int *p, const int *idx, const double *x)
{
    for (int i = 0; i < rows; i++)
        for (int k = p[i] + 1; k < p[i + 1]; k++)
            if (idx[k] <= idx[k - 1]) return NULL;
    long nnz = p[rows] - p[0];
    fc_matrix *B = nnz <= FC_MAX_ENTRIES ? fc_matrix_csr(rows, cols, nnz) : NULL;
    if (!B) return NULL;
    for (int i = 0; i <= rows; i++) B->p[i] = p[i] - p[0];
    memcpy(B->j, idx + p[0], (size_t)nnz * sizeof *idx);
    for (long k = 0; k < nnz; k++) B->x[k] = 0.0 + x[p[0] + k];
    return B;
}

fc_matrix *fc_compressed_to_bsr(int rows, int cols, int bs, const int *p, const int *idx,
                                const double *x, int by_column)
{
    if (bs <= 0 || rows % bs || cols % bs) return NULL;
    fc_matrix *S = bs == 1 && !by_column ? sorted_csr_copy(rows, cols, p, idx, x) : NULL;
    if (S) return S;
    int nbr = rows / bs, nbc = cols / bs, nouter = by_column ? nbc : nbr;
    int ninner = by_column ? nbr : nbc;
    /* stamp, count/next/slot and pos/list: 3 arrays over the inner blocks */
    int *work = fc_calloc(3 * (size_t)ninner + 1, sizeof *work);
    long *count = fc_calloc((size_t)nbr + 1, sizeof *count);
    fc_matrix *B = NULL;
    long nblocks = 0;
    if (!work || !count) goto done;
    for (int o = 0; o < nouter; o++)   /* pass 1: blocks per block row */
        for (int e = o * bs; e < (o + 1) * bs; e++)
            for (int k = p[e]; k < p[e + 1]; k++) {
                int in = idx[k] / bs;
                if (work[in] != o + 1) { work[in] = o + 1; count[by_column ? in : o]++; nblocks++; }
            }
    if (nblocks * bs * bs > FC_MAX_ENTRIES || nblocks > 0x7fffffffL) goto done;
    B = bs > 1 ? fc_matrix_bsr(rows, cols, bs, nblocks) : fc_matrix_csr(rows, cols, nblocks);
    if (!B) goto done;
    for (int a = 0; a < nbr; a++) B->p[a + 1] = B->p[a] + (int)count[a];
    if (by_column) cols_to_bsr(B, p, idx, x, work);
    else rows_to_bsr(B, p, idx, x, work);
done:
    free(work);
    free(count);
    return B;
}

/* Block-CSR copy with bs x bs blocks; a block is stored when any of its
 * entries is stored in A.  NULL when the sizes are not multiples of bs. */
fc_matrix *fc_matrix_to_bsr(const fc_matrix *A, int bs)
{
    if (bs <= 0 || A->rows % bs || A->cols % bs) return NULL;
    if (A->kind == FC_MAT_BSR && A->bs == bs) return fc_matrix_copy(A);
    fc_matrix *C = A->kind == FC_MAT_CSR ? (fc_matrix *)A : fc_matrix_to_csr(A);
    if (!C) return NULL;
    fc_matrix *B = fc_compressed_to_bsr(A->rows, A->cols, bs, C->p, C->j, C->x, 0);
    if (B && bs == 1) B->kind = FC_MAT_BSR;   /* asked for block-CSR, blocks of 1 */
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

/* Each dof's contact signature, for a CSR H (n dofs x m): a hash of the
 * contacts (d rows each) its row touches, 0 for none. */
static void dof_hashes(const fc_matrix *Hc, int d, unsigned long long *sig)
{
    int n = Hc->rows;
    for (int i = 0; i < n; i++) {
        unsigned long long h = 1469598103934665603ULL;   /* FNV-1a over the contacts */
        int last = -1, cnt = 0;
        for (int t = Hc->p[i]; t < Hc->p[i + 1]; t++) {
            int c = d == 3 ? Hc->j[t] / 3 : Hc->j[t] / d;   /* d = 3: a multiplication, not a division */
            if (c == last) continue;
            h = (h ^ (unsigned long long)(c + 1)) * 1099511628211ULL;
            last = c;
            cnt++;
        }
        sig[i] = cnt ? h : 0;
    }
}

int fc_dof_signature_pairs(const fc_matrix *Hc, int d, int *pairs)
{
    int n = Hc->rows, npairs = 0;
    size_t cap = 2;
    while (cap < 2 * (size_t)n) cap <<= 1;
    unsigned long long *sig = fc_calloc((size_t)n + 1, sizeof *sig);
    int *tab = fc_calloc(cap, sizeof *tab);
    if (!sig || !tab) { free(sig); free(tab); return -1; }
    dof_hashes(Hc, d, sig);
    memset(tab, 0xff, cap * sizeof *tab);   /* -1: empty */
    for (int i = 0; i < n; i++) {   /* open addressing: each class's first dof in tab */
        unsigned long long h = sig[i];
        if (!h) continue;
        size_t k = (size_t)(h ^ (h >> 31)) & (cap - 1);
        while (tab[k] >= 0 && sig[tab[k]] != h) k = (k + 1) & (cap - 1);
        if (tab[k] < 0) tab[k] = i;
        else { pairs[2 * npairs] = tab[k]; pairs[2 * npairs++ + 1] = i; }
    }
    free(sig); free(tab);
    return npairs;
}
