/* The Newton matrices of the local problem: W's block pattern (block CSR,
 * blocks of d) plus every diagonal block, stored as one fixed CSC pattern
 * for sparse LU (see linsys.h, fc_bjac).  Shared by the nonsmooth Newton
 * solvers (nsn.c) and the interior point on the maximum-dissipation form
 * (ipm_mdp.c), whose matrices are W plus block-diagonal terms. */
#include "internal.h"
#include "linsys/linsys.h"

void fc_bjac_free(fc_bjac *J)
{
    free(J->bp); free(J->bj); free(J->bw); free(J->bdiag); free(J->pos);
    free(J->Ap); free(J->Ai); free(J->Ax);
    fc_lu_free(J->lu);
    memset(J, 0, sizeof *J);
}

fc_err fc_bjac_init(fc_bjac *J, const fc_matrix *W, int d, fc_lu_kind kind, const char *who,
                    fc_error *err)
{
    memset(J, 0, sizeof *J);
    int nc = W->rows / d;
    J->d = d;
    J->nc = nc;
    J->m = W->rows;
    long nb = W->p[nc];
    for (int a = 0; a < nc; a++) {
        int has = 0;
        for (int k = W->p[a]; k < W->p[a + 1]; k++) has |= W->j[k] == a;
        if (!has) nb++;
    }
    J->nb = nb;
    J->bp = fc_calloc((size_t)nc + 1, sizeof *J->bp);
    J->bj = fc_calloc((size_t)nb, sizeof *J->bj);
    J->bw = fc_calloc((size_t)nb, sizeof *J->bw);
    J->bdiag = fc_calloc((size_t)nc, sizeof *J->bdiag);
    J->pos = fc_calloc((size_t)nb * (size_t)(d * d), sizeof *J->pos);
    J->Ap = fc_calloc((size_t)J->m + 1, sizeof *J->Ap);
    J->Ai = fc_calloc((size_t)nb * (size_t)(d * d), sizeof *J->Ai);
    J->Ax = fc_calloc((size_t)nb * (size_t)(d * d), sizeof *J->Ax);
    int *cnt = fc_calloc((size_t)nc + 1, sizeof *cnt);
    int *order = fc_calloc((size_t)nc + 1, sizeof *order);
    if (!J->bp || !J->bj || !J->bw || !J->bdiag || !J->pos || !J->Ap || !J->Ai || !J->Ax ||
        !cnt || !order) {
        free(cnt); free(order);
        return fc_error_set(err, FC_ERR_NOMEM, "%s: out of memory for the Jacobian pattern", who);
    }
    /* block rows with sorted columns (W's BSR rows are sorted; insert diag) */
    long k = 0;
    for (int a = 0; a < nc; a++) {
        J->bp[a] = (int)k;
        int inserted = 0;
        for (int t = W->p[a]; t <= W->p[a + 1]; t++) {
            int col = t < W->p[a + 1] ? W->j[t] : nc + 1;
            if (!inserted && col >= a) {
                if (col != a) { J->bj[k] = a; J->bw[k] = -1; J->bdiag[a] = (int)k; k++; }
                inserted = 1;
            }
            if (t == W->p[a + 1]) break;
            if (col == a) J->bdiag[a] = (int)k;
            J->bj[k] = col;
            J->bw[k] = t;
            k++;
        }
    }
    J->bp[nc] = (int)k;
    /* CSC: column block b holds the blocks (a, b) for all a, rows ascending */
    for (long t = 0; t < nb; t++) cnt[J->bj[t] + 1]++;
    for (int b = 0; b < nc; b++) cnt[b + 1] += cnt[b];
    /* columns d*b + jj: each has cnt_b * d entries */
    for (int b = 0; b < nc; b++) {
        int nbl = cnt[b + 1] - cnt[b];
        for (int jj = 0; jj < d; jj++)
            J->Ap[d * b + jj + 1] = J->Ap[d * b + jj] + nbl * d;
    }
    memcpy(order, cnt, (size_t)(nc + 1) * sizeof *order); /* next free block slot per column block */
    for (int a = 0; a < nc; a++)
        for (int t = J->bp[a]; t < J->bp[a + 1]; t++) {
            int b = J->bj[t];
            int slot = order[b]++ - cnt[b];  /* position of block (a,b) in column block b */
            for (int jj = 0; jj < d; jj++)
                for (int ii = 0; ii < d; ii++) {
                    long idx = J->Ap[d * b + jj] + (long)slot * d + ii;
                    J->Ai[idx] = d * a + ii;
                    J->pos[(long)t * d * d + ii + jj * d] = idx;
                }
        }
    free(cnt);
    free(order);
    J->lu = fc_lu_new(J->m, J->Ap, J->Ai, kind, err);
    return J->lu ? FC_OK : err->code;
}
