/* Block-CSR kernels inlined where the block size is a constant (the
 * contact dimension 2 or 3), so that the block loops unroll: the products
 * dominate the Gauss-Seidel sweeps and the error measure; and a CSR row's
 * dot product, inlined in the velocity-form sweeps.  Private to the
 * library. */
#ifndef FRICON_BSR_H
#define FRICON_BSR_H

#include "fricon.h"

/* Blocks up to this size are accumulated in registers. */
#define FC_BSR_SMALL 5

/* out = sum over the blocks k of block row a (the diagonal one skipped
 * when skip_diag) of A_ak x_k, for block-CSR A with bs x bs blocks
 * (column-major); accumulated in registers up to FC_BSR_SMALL. */
static inline void bsr_row_dot(const fc_matrix *A, int bs, int a, const double *x,
                               int skip_diag, double *out)
{
    double acc[FC_BSR_SMALL] = {0};
    double *sum = bs <= FC_BSR_SMALL ? acc : out;
    if (sum == out)
        for (int r = 0; r < bs; r++) out[r] = 0.0;
    for (int k = A->p[a]; k < A->p[a + 1]; k++) {
        if (skip_diag && A->j[k] == a) continue;
        const double *B = A->x + (size_t)k * bs * bs;
        const double *xb = x + (size_t)A->j[k] * bs;
        for (int c = 0; c < bs; c++)
            for (int r = 0; r < bs; r++) sum[r] += B[c * bs + r] * xb[c];
    }
    if (sum == acc)
        for (int r = 0; r < bs; r++) out[r] = acc[r];
}

/* sum over the entries k of row i of CSR A of A_ik x_k. */
static inline double csr_row_dot(const fc_matrix *A, int i, const double *x)
{
    double s = 0.0;
    for (int k = A->p[i]; k < A->p[i + 1]; k++) s += A->x[k] * x[A->j[k]];
    return s;
}

#endif
