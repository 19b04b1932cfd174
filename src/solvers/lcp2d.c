/* The 2D frictional contact problem as an LCP (see lcp.h): build the
 * scaled sparse LCP, map its solution back to reactions. */
#include "solvers/lcp.h"

void fc_lcp_free(fc_lcp *lcp)
{
    if (!lcp) return;
    fc_matrix_free(lcp->M);
    free(lcp->q);
    free(lcp->D);
    memset(lcp, 0, sizeof *lcp);
}

/* Sort the entries of each CSR row by column (rows are short). */
static void sort_rows(fc_matrix *A)
{
    for (int i = 0; i < A->rows; i++)
        for (int k = A->p[i] + 1; k < A->p[i + 1]; k++) {
            int jj = A->j[k];
            double xx = A->x[k];
            int l = k;
            for (; l > A->p[i] && A->j[l - 1] > jj; l--) {
                A->j[l] = A->j[l - 1];
                A->x[l] = A->x[l - 1];
            }
            A->j[l] = jj;
            A->x[l] = xx;
        }
}

fc_err fc_lcp2d_build(const fc_problem *p, fc_lcp *lcp, fc_error *err)
{
    return fc_lcp2d_build_reg(p, 0.0, lcp, err);
}

fc_err fc_lcp2d_build_reg(const fc_problem *p, double reg, fc_lcp *lcp, fc_error *err)
{
    memset(lcp, 0, sizeof *lcp);
    if (p->d != 2 || p->kind != FC_LOCAL)
        return fc_error_set(err, FC_ERR_UNSUPPORTED, "the LCP formulation needs a local 2D problem");
    int nc = p->nc, n = 4 * nc;
    fc_matrix *W = p->W->kind == FC_MAT_CSR ? p->W : fc_matrix_to_csr(p->W);
    if (!W) return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    /* entries: each W entry in a normal column gives 1 or 2 LCP entries per
     * LCP row it feeds (1 or 2 rows), a tangential one 2 x (1 or 2) */
    long nnz = 0;
    for (int i = 0; i < 2 * nc; i++) {
        int rows = i % 2 ? 2 : 1;
        for (int k = W->p[i]; k < W->p[i + 1]; k++) nnz += rows * (W->j[k] % 2 ? 2 : 1);
    }
    nnz += 5L * nc; /* lambda in the two tangential rows, the cone row */
    if (reg > 0) nnz += 5L * nc; /* diagonal entries absent from W */
    lcp->n = n;
    lcp->M = fc_matrix_csr(n, n, nnz);
    lcp->q = fc_calloc((size_t)n, sizeof *lcp->q);
    lcp->D = fc_calloc((size_t)n, sizeof *lcp->D);
    if (!lcp->M || !lcp->q || !lcp->D) {
        if (W != p->W) fc_matrix_free(W);
        fc_lcp_free(lcp);
        return fc_error_set(err, FC_ERR_NOMEM, "out of memory (LCP of size %d)", n);
    }
    double qmax = 0;
    for (int i = 0; i < 2 * nc; i++) qmax = fmax(qmax, fabs(p->q[i]));
    lcp->t = qmax > 0 && isfinite(qmax) ? qmax : 1.0;
    for (int a = 0; a < nc; a++) {
        double wnn = 0;
        for (int k = W->p[2 * a]; k < W->p[2 * a + 1]; k++)
            if (W->j[k] == 2 * a) wnn = W->x[k];
        double s = wnn > 0 ? 1.0 / sqrt(wnn) : 1.0;
        lcp->D[4 * a] = lcp->D[4 * a + 1] = lcp->D[4 * a + 2] = s;
        lcp->D[4 * a + 3] = 1.0 / s;
    }
    fc_matrix *M = lcp->M;
    long pos = 0;
    for (int a = 0; a < nc; a++) {
        /* rows 4a (u_N), 4a+1 (u_T + lambda), 4a+2 (-u_T + lambda) */
        for (int row = 0; row < 3; row++) {
            int i = row == 0 ? 2 * a : 2 * a + 1;
            double sg = row == 2 ? -1.0 : 1.0, si = lcp->D[4 * a];
            M->p[4 * a + row] = (int)pos;
            int has_diag = 0;
            for (int k = W->p[i]; k < W->p[i + 1]; k++) {
                int j = W->j[k], b = j / 2;
                /* the regularisation: reg on the scaled diagonal of W */
                double v = sg * W->x[k] * si * lcp->D[4 * b] + (j == i ? sg * reg : 0.0);
                has_diag |= j == i;
                if (j % 2 == 0) {
                    M->j[pos] = 4 * b; M->x[pos++] = v;
                } else {
                    M->j[pos] = 4 * b + 1; M->x[pos++] = v;
                    M->j[pos] = 4 * b + 2; M->x[pos++] = -v;
                }
            }
            if (reg > 0 && !has_diag) {
                if (i % 2 == 0) {
                    M->j[pos] = 4 * a; M->x[pos++] = reg;
                } else {
                    M->j[pos] = 4 * a + 1; M->x[pos++] = sg * reg;
                    M->j[pos] = 4 * a + 2; M->x[pos++] = -sg * reg;
                }
            }
            if (row > 0) { M->j[pos] = 4 * a + 3; M->x[pos++] = 1.0; }
            double qi = row == 0 ? p->q[2 * a] : sg * p->q[2 * a + 1];
            lcp->q[4 * a + row] = si * qi / lcp->t;
        }
        /* row 4a+3: mu r_N - r_T+ - r_T- (scaled: entries mu, -1, -1) */
        M->p[4 * a + 3] = (int)pos;
        M->j[pos] = 4 * a;     M->x[pos++] = p->mu[a];
        M->j[pos] = 4 * a + 1; M->x[pos++] = -1.0;
        M->j[pos] = 4 * a + 2; M->x[pos++] = -1.0;
        lcp->q[4 * a + 3] = 0.0;
    }
    M->p[n] = (int)pos;
    M->nnz = pos;
    sort_rows(M);
    if (W != p->W) fc_matrix_free(W);
    return FC_OK;
}

void fc_lcp2d_reactions(const fc_problem *p, const fc_lcp *lcp, const double *z, double *r)
{
    for (int a = 0; a < p->nc; a++) {
        const double *za = z + 4 * a, *Da = lcp->D + 4 * a;
        r[2 * a] = lcp->t * Da[0] * za[0];
        r[2 * a + 1] = lcp->t * Da[1] * (za[1] - za[2]);
    }
}

void fc_lcp_slack(const fc_lcp *lcp, const double *z, double *w)
{
    fc_affine(lcp->M, z, lcp->q, w);
}

double fc_lcp_error(const fc_lcp *lcp, const double *z, double *w)
{
    fc_lcp_slack(lcp, z, w);
    double e = 0;
    for (int i = 0; i < lcp->n; i++) e = fmax(e, fabs(fmin(z[i], w[i])));
    return e;
}
