/* ipm-mdp on the global problem (M, H, f, w, mu) without W: with v one
 * more unknown and dr = D^-1 (h + R1 - H' dv) eliminated contact by
 * contact, the Newton matrix is at the bodies' level,
 *     K = M + H D^-1 H'     (the pattern of the bodies' contact graph),
 * assembled from each contact's block on its bodies' unknowns R_a and
 * factorised by UMFPACK (not symmetric; its symmetric strategy on the
 * symmetric pattern), bordered by G's rows when there are equalities
 * (ipm_mdp_eq.c).  The interior point itself is ipm_mdp.c's. */
#include "solvers/ipm_mdp.h"
#include "cone/cone.h"

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* Position of (i, j) in K's CSC pattern (-1: absent). */
static long k_find(const mdp *w, int i, int j)
{
    return fc_find_sorted(w->Ki, w->Kp[j], w->Kp[j + 1], i);
}

/* The diagonal block H_a' M^-1 H_a of W for contact a (d x d,
 * column-major), by d solves with M's factor. */
int fc_mdp_global_wblock(mdp *w, int a, double *blk)
{
    int d = w->d, n = w->n;
    const fc_matrix *Hc = w->Hc;
    for (int k = 0; k < d; k++) {
        memset(w->tn, 0, (size_t)n * sizeof *w->tn);
        int row = d * a + k;
        for (int q = Hc->p[row]; q < Hc->p[row + 1]; q++) w->tn[Hc->j[q]] = Hc->x[q];
        if (fc_chol_solve(w->Mf, w->tn, w->tn, NULL) != FC_OK) return 0;
        for (int i = 0; i < d; i++) {
            double s = 0;
            int ri = d * a + i;
            for (int q = Hc->p[ri]; q < Hc->p[ri + 1]; q++) s += Hc->x[q] * w->tn[Hc->j[q]];
            blk[i + k * d] = s;
        }
    }
    return 1;
}

int fc_mdp_global_init(mdp *w)
{
    const fc_problem *p = w->p;
    int d = w->d, nc = w->nc, n = p->n, neq = w->neq;
    w->n = n;
    w->N = n + neq;   /* K bordered by the equality rows */
    w->Mf = fc_chol_factor(p->M, "M", &w->err);
    if (!w->Mf) return 0;
    fc_matrix *Hr = fc_matrix_to_csr(p->H);
    w->Hc = Hr ? fc_csr_transpose(Hr) : NULL;
    fc_matrix_free(Hr);
    w->Mr = fc_matrix_to_csr(p->M);
    if (neq && !(w->Gr = fc_matrix_to_csr(p->G)))
        return !fc_error_set(&w->err, FC_ERR_NOMEM, "out of memory");
    long ng = neq ? w->Gr->nnz : 0;
    size_t nn = (size_t)n, nN = (size_t)w->N;
    w->v = fc_calloc(nn, sizeof(double)); w->dv = fc_calloc(nn, sizeof(double));
    w->dva = fc_calloc(nn, sizeof(double)); w->R0 = fc_calloc(nn, sizeof(double));
    w->vr = fc_calloc(nn, sizeof(double)); w->tn = fc_calloc(nN + 1, sizeof(double));
    w->tk = fc_calloc(nN + 1, sizeof(double));
    w->bx = fc_calloc(nN + 1, sizeof(double));
    w->Dinv = fc_calloc((size_t)nc * d * d, sizeof(double));
    w->rofs = fc_calloc((size_t)nc + 1, sizeof(int));
    w->kofs = fc_calloc((size_t)nc + 1, sizeof(long));
    if (!w->Hc || !w->Mr || !w->v || !w->dv || !w->dva || !w->R0 || !w->vr || !w->tn || !w->tk ||
        !w->bx || !w->Dinv || !w->rofs || !w->kofs)
        return !fc_error_set(&w->err, FC_ERR_NOMEM, "out of memory");
    const fc_matrix *Hc = w->Hc;
    /* R_a: the body unknowns of contact a (H's rows in its d columns) */
    long bound = Hc->p[w->m];
    w->ridx = fc_calloc((size_t)bound + 1, sizeof(int));
    if (!w->ridx) return !fc_error_set(&w->err, FC_ERR_NOMEM, "out of memory");
    int k = 0;
    for (int a = 0; a < nc; a++) {
        w->rofs[a] = k;
        int start = k;
        for (int q = Hc->p[d * a]; q < Hc->p[d * a + d]; q++) w->ridx[k++] = Hc->j[q];
        qsort(w->ridx + start, (size_t)(k - start), sizeof(int), cmp_int);
        int u = start;
        for (int t = start; t < k; t++)
            if (t == start || w->ridx[t] != w->ridx[u - 1]) w->ridx[u++] = w->ridx[t];
        k = u;
    }
    w->rofs[nc] = k;
    long nk = 0;
    for (int a = 0; a < nc; a++) {
        long r = w->rofs[a + 1] - w->rofs[a];
        w->kofs[a] = nk;
        nk += r * r;
    }
    w->kofs[nc] = nk;
    w->HR = fc_calloc((size_t)k * d + 1, sizeof(double));
    w->kpos = fc_calloc((size_t)nk + 1, sizeof(long));
    w->mpos = fc_calloc((size_t)w->Mr->nnz + 1, sizeof(long));
    long ntr = w->Mr->nnz + nk + 2 * ng + neq;
    int *tj = fc_calloc((size_t)ntr + 1, sizeof(int)), *ti = fc_calloc((size_t)ntr + 1, sizeof(int));
    int *cnt = fc_calloc(nN + 1, sizeof(int));
    w->Kp = fc_calloc(nN + 1, sizeof(int));
    w->gpos = fc_calloc(2 * (size_t)ng + 1, sizeof(long));
    if (!w->HR || !w->kpos || !w->mpos || !tj || !ti || !cnt || !w->Kp || !w->gpos) {
        free(tj); free(ti); free(cnt);
        return !fc_error_set(&w->err, FC_ERR_NOMEM, "out of memory");
    }
    /* H_a dense on R_a */
    for (int a = 0; a < nc; a++) {
        int r0 = w->rofs[a], nr = w->rofs[a + 1] - r0;
        for (int kk = 0; kk < d; kk++) {
            int row = d * a + kk;
            for (int q = Hc->p[row]; q < Hc->p[row + 1]; q++) {
                int s2 = 0;
                while (s2 < nr && w->ridx[r0 + s2] != Hc->j[q]) s2++;
                w->HR[(size_t)(r0 + s2) * d + kk] += Hc->x[q];
            }
        }
    }
    /* K's pattern: M's entries and every R_a x R_a, bucketed by column */
    long t = 0;
    for (int i = 0; i < n; i++)
        for (int q = w->Mr->p[i]; q < w->Mr->p[i + 1]; q++) { ti[t] = i; tj[t] = w->Mr->j[q]; t++; }
    for (int a = 0; a < nc; a++)
        for (int s1 = w->rofs[a]; s1 < w->rofs[a + 1]; s1++)
            for (int s2 = w->rofs[a]; s2 < w->rofs[a + 1]; s2++) { ti[t] = w->ridx[s1]; tj[t] = w->ridx[s2]; t++; }
    /* the bordering: G, G' and the multipliers' diagonal */
    for (int i = 0; i < n && neq; i++)
        for (int q = w->Gr->p[i]; q < w->Gr->p[i + 1]; q++) {
            ti[t] = i; tj[t] = n + w->Gr->j[q]; t++;
            ti[t] = n + w->Gr->j[q]; tj[t] = i; t++;
        }
    for (int j = n; j < w->N; j++) { ti[t] = tj[t] = j; t++; }
    for (long q = 0; q < ntr; q++) cnt[tj[q] + 1]++;
    for (int j = 0; j < w->N; j++) cnt[j + 1] += cnt[j];
    int *rows = fc_calloc((size_t)ntr + 1, sizeof(int));
    if (!rows) { free(tj); free(ti); free(cnt); return !fc_error_set(&w->err, FC_ERR_NOMEM, "out of memory"); }
    for (long q = 0; q < ntr; q++) rows[cnt[tj[q]]++] = ti[q];
    for (int j = w->N; j > 0; j--) cnt[j] = cnt[j - 1];
    cnt[0] = 0;
    long nz = 0;
    for (int j = 0; j < w->N; j++) {
        int b = cnt[j], e = cnt[j + 1];
        qsort(rows + b, (size_t)(e - b), sizeof(int), cmp_int);
        w->Kp[j] = (int)nz;
        for (int q = b; q < e; q++)
            if (q == b || rows[q] != rows[q - 1]) rows[nz++] = rows[q];
    }
    w->Kp[w->N] = (int)nz;
    w->Ki = rows;
    free(tj); free(ti); free(cnt);
    w->Kx = fc_calloc((size_t)nz + 1, sizeof(double));
    w->kdiag = fc_calloc(nN + 1, sizeof(long));
    if (!w->Kx || !w->kdiag) return !fc_error_set(&w->err, FC_ERR_NOMEM, "out of memory");
    for (int j = 0; j < w->N; j++) w->kdiag[j] = k_find(w, j, j);
    t = 0;
    for (int i = 0; i < n && neq; i++)
        for (int q = w->Gr->p[i]; q < w->Gr->p[i + 1]; q++) {
            w->gpos[t++] = k_find(w, i, n + w->Gr->j[q]);
            w->gpos[t++] = k_find(w, n + w->Gr->j[q], i);
        }
    t = 0;
    for (int i = 0; i < n; i++)
        for (int q = w->Mr->p[i]; q < w->Mr->p[i + 1]; q++) w->mpos[t++] = k_find(w, i, w->Mr->j[q]);
    for (int a = 0; a < nc; a++) {
        long o = w->kofs[a];
        for (int s1 = w->rofs[a]; s1 < w->rofs[a + 1]; s1++)
            for (int s2 = w->rofs[a]; s2 < w->rofs[a + 1]; s2++) w->kpos[o++] = k_find(w, w->ridx[s1], w->ridx[s2]);
    }
    w->Klu = fc_lu_new(w->N, w->Kp, w->Ki, FC_LU_UMFPACK_SYMMETRIC, &w->err);
    if (!w->Klu) return 0;
    fc_lu_solver_refines(w->Klu);   /* fc_mdp_global_solve refines against K */
    if (neq) {   /* the multipliers' regularisation, on M's scale */
        double ms = 0;
        for (int i = 0; i < n; i++)
            for (int q = w->Mr->p[i]; q < w->Mr->p[i + 1]; q++)
                if (w->Mr->j[q] == i) ms = fmax(ms, fabs(w->Mr->x[q]));
        fc_matrix *Gt = fc_csr_transpose(w->Gr);
        if (!Gt) return !fc_error_set(&w->err, FC_ERR_NOMEM, "out of memory");
        w->ereg = fc_mdp_eq_global_reg(w, Gt, ms > 0 ? ms : 1.0);
        fc_matrix_free(Gt);
    }
    /* W's scale from a few contacts' diagonal blocks */
    double blk[9];
    for (int a = 0; a < nc && a < 16; a++) {
        if (!fc_mdp_global_wblock(w, a, blk)) break;
        for (int i = 0; i < d; i++) w->wscale = fmax(w->wscale, fabs(blk[i + i * d]));
    }
    if (!(w->wscale > 0)) w->wscale = 1.0;
    return 1;
}

/* v_r = M^-1 (H r + G y + f) and u = H' v_r + w (the global problem's u
 * of r and y). */
void fc_mdp_global_u(mdp *w, const double *r, const double *y, double *u)
{
    const fc_problem *p = w->p;
    int n = w->n;
    fc_matrix_gemv(p->H, 1.0, r, 0.0, w->vr);
    if (w->neq) fc_matrix_gemv(p->G, 1.0, y, 1.0, w->vr);
    for (int i = 0; i < n; i++) w->vr[i] += p->f[i];
    memcpy(w->tn, w->vr, (size_t)n * sizeof *w->tn);
    if (fc_chol_solve(w->Mf, w->vr, w->vr, NULL) == FC_OK) {
        /* one refinement against M as stored */
        fc_matrix_gemv(p->M, -1.0, w->vr, 1.0, w->tn);
        if (fc_chol_solve(w->Mf, w->tn, w->tn, NULL) == FC_OK)
            for (int i = 0; i < n; i++) w->vr[i] += w->tn[i];
    }
    memcpy(u, p->w, (size_t)w->m * sizeof *u);
    fc_matrix_gemv_t(p->H, 1.0, w->vr, 1.0, u);
}

/* K = M + sum_a H_a D_a^-1 H_a' with D_a from the current scalings;
 * factorised (a diagonal shift on failure). */
int fc_mdp_global_factor(mdp *w)
{
    int d = w->d, dd = d * d, nc = w->nc;
    for (int a = 0; a < nc; a++) {
        double D[5][5], Da[9], *Di = w->Dinv + (size_t)a * dd;
        if (!fc_mdp_frictional(w, a)) {
            /* frictionless: r_T stays 0 whatever dv (fc_mdp_global_solve),
             * only the normal pair couples to the bodies */
            memset(Di, 0, (size_t)dd * sizeof *Di);
            if (!(w->Dn[a] > 0) || !isfinite(1.0 / w->Dn[a])) {
                fc_error_set(&w->err, FC_ERR_NUMERIC, "a contact's D block is singular");
                return 0;
            }
            Di[0] = 1.0 / w->Dn[a];
            continue;
        }
        fc_mdp_dblock(w, a, Da);
        for (int col = 0; col < d; col++) {
            /* fc_small_solve overwrites its matrix: a fresh copy each time */
            for (int i = 0; i < d; i++)
                for (int j = 0; j < d; j++) D[i][j] = Da[i + j * d];
            double e[5] = {0};
            e[col] = 1.0;
            if (fc_small_solve(d, D, e) != 0) {
                fc_error_set(&w->err, FC_ERR_NUMERIC, "a contact's D block is singular");
                return 0;
            }
            for (int i = 0; i < d; i++) Di[i + col * d] = e[i];
        }
    }
    double delta = 0, dmax = 0;
    for (int k = 0; k < 5; k++) {
        memset(w->Kx, 0, (size_t)w->Kp[w->N] * sizeof *w->Kx);
        for (long q = 0; q < w->Mr->nnz; q++) w->Kx[w->mpos[q]] += w->Mr->x[q];
        for (int a = 0; a < nc; a++) {
            int r0 = w->rofs[a], nr = w->rofs[a + 1] - r0;
            const double *Di = w->Dinv + (size_t)a * dd, *HR = w->HR + (size_t)r0 * d;
            const long *kp = w->kpos + w->kofs[a];
            for (int s1 = 0; s1 < nr; s1++) {
                double t[5] = {0};   /* row s1 of H_R D^-1 */
                for (int j = 0; j < d; j++)
                    for (int i = 0; i < d; i++) t[j] += HR[s1 * d + i] * Di[i + j * d];
                for (int s2 = 0; s2 < nr; s2++) {
                    double v = 0;
                    for (int j = 0; j < d; j++) v += t[j] * HR[s2 * d + j];
                    w->Kx[kp[s1 * nr + s2]] += v;
                }
            }
        }
        for (long q = 0; q < (w->neq ? w->Gr->nnz : 0); q++)
            w->Kx[w->gpos[2 * q]] = w->Kx[w->gpos[2 * q + 1]] = -w->Gr->x[q];
        for (int j = w->n; j < w->N; j++) w->Kx[w->kdiag[j]] = w->ereg - delta;
        if (k == 0) for (int j = 0; j < w->n; j++) dmax = fmax(dmax, fabs(w->Kx[w->kdiag[j]]));
        for (int j = 0; j < w->n && delta > 0; j++) w->Kx[w->kdiag[j]] += delta;
        double rcond = 0;
        fc_error e;
        if (fc_lu_factor(w->Klu, w->Kx, &rcond, &e) == FC_OK && rcond > (w->neq ? MDP_EQ_RCOND : 1e-15))
            return 1;
        delta = delta == 0 ? 1e-12 * dmax : delta * 100;
    }
    fc_error_set(&w->err, FC_ERR_NUMERIC, "M + H D^-1 H' numerically singular");
    return 0;
}

/* out = K x with K's current values (the multipliers' diagonal, a
 * regularisation only, left out). */
static void k_apply(const mdp *w, const double *x, double *out)
{
    memset(out, 0, (size_t)w->N * sizeof *out);
    for (int j = 0; j < w->N; j++)
        for (int q = w->Kp[j]; q < w->Kp[j + 1]; q++)
            if (j < w->n || q != w->kdiag[j]) out[w->Ki[q]] += w->Kx[q] * x[j];
}

/* The global step from h (in w->rhs, per contact) and the residuals;
 * with equality rows dy too (G'dv = -R3). */
int fc_mdp_global_solve(mdp *w, double *dv, double *dr, double *du, double *dy)
{
    const fc_problem *p = w->p;
    int d = w->d, dd = d * d, m = w->m, n = w->n;
    /* y = D^-1 (h + R1), b = -R0 + H y */
    for (int a = 0; a < w->nc; a++) {
        const double *Di = w->Dinv + (size_t)a * dd;
        for (int i = 0; i < d; i++) {
            double s = 0;
            for (int j = 0; j < d; j++) s += Di[i + j * d] * (w->rhs[d * a + j] + w->R1[d * a + j]);
            w->tmp[d * a + i] = s;
        }
        if (!fc_mdp_frictional(w, a))   /* dr_T = h_T + R1_T = -r_T (ipm_mdp.c) */
            for (int i = 1; i < d; i++) w->tmp[d * a + i] = w->rhs[d * a + i] + w->R1[d * a + i];
    }
    fc_matrix_gemv(p->H, 1.0, w->tmp, 0.0, w->tn);
    for (int i = 0; i < n; i++) w->tn[i] -= w->R0[i];
    for (int j = 0; j < w->neq; j++) w->tn[n + j] = w->R3[j];
    fc_error e;
    double *x = w->neq ? w->bx : dv;
    if (fc_lu_solve(w->Klu, w->tn, x, &e) != FC_OK) return 0;
    /* refinement against K's values: once, or until exact with the
     * regularised bordering */
    double *kx = w->tk, nb = fc_norm2(w->N, w->tn);
    for (int it = 0; it < (w->neq ? MDP_EQ_REFINE : 1); it++) {
        k_apply(w, x, kx);
        for (int i = 0; i < w->N; i++) kx[i] = w->tn[i] - kx[i];
        if (w->neq && fc_norm2(w->N, kx) <= 1e-14 * nb) break;
        if (fc_lu_solve(w->Klu, kx, kx, &e) == FC_OK)
            for (int i = 0; i < w->N; i++) x[i] += kx[i];
    }
    if (w->neq) {
        k_apply(w, x, kx);
        for (int i = 0; i < w->N; i++) kx[i] = w->tn[i] - kx[i];
        if (!(fc_norm2(w->N, kx) <= MDP_EQ_SOLVED * nb)) return 0;
        memcpy(dv, x, (size_t)n * sizeof *dv);
        memcpy(dy, x + n, (size_t)w->neq * sizeof *dy);
    }
    /* dr = y - D^-1 H' dv, du = H' dv - R1 */
    fc_matrix_gemv_t(p->H, 1.0, dv, 0.0, w->res);
    for (int a = 0; a < w->nc; a++) {
        const double *Di = w->Dinv + (size_t)a * dd;
        for (int i = 0; i < d; i++) {
            double s = 0;
            for (int j = 0; j < d; j++) s += Di[i + j * d] * w->res[d * a + j];
            dr[d * a + i] = w->tmp[d * a + i] - s;
        }
    }
    for (int i = 0; i < m; i++) du[i] = w->res[i] - w->R1[i];
    return 1;
}

/* R_a, contact a's body unknowns (H's rows in its d columns), sorted, each
 * once, into ra; its size. */
static int contact_unknowns(const fc_matrix *Hc, int d, int a, int *ra)
{
    int k = 0, u = 0;
    for (int q = Hc->p[d * a]; q < Hc->p[d * a + d]; q++) ra[k++] = Hc->j[q];
    qsort(ra, (size_t)k, sizeof(int), cmp_int);
    for (int q = 0; q < k; q++)
        if (q == 0 || ra[q] != ra[u - 1]) ra[u++] = ra[q];
    return u;
}

/* The Cholesky analysis of K's pattern (M's entries and every R_a x R_a,
 * the upper triangle), without M's factor or any value: what one
 * factorisation of the global form will hold and cost (auto's costing). */
fc_err fc_mdp_global_predict(const fc_problem *p, double *entries, double *flops, fc_error *err)
{
    int d = p->d, nc = p->nc, n = p->n;
    fc_matrix *Hr = fc_matrix_to_csr(p->H);
    fc_matrix *Hc = Hr ? fc_csr_transpose(Hr) : NULL;
    fc_matrix *Mr = fc_matrix_to_csr(p->M);
    fc_matrix_free(Hr);
    long most = 1;
    for (int a = 0; Hc && a < nc; a++) {
        long k = Hc->p[d * a + d] - Hc->p[d * a];
        most = k > most ? k : most;
    }
    int *ra = Hc && Mr ? fc_calloc((size_t)most + 1, sizeof(int)) : NULL;
    long nk = Mr ? Mr->nnz : 0;
    for (int a = 0; ra && a < nc; a++) {
        long k = contact_unknowns(Hc, d, a, ra);
        nk += k * (k + 1) / 2;
    }
    int *ti = ra ? fc_calloc((size_t)nk + 1, sizeof(int)) : NULL;
    int *tj = ti ? fc_calloc((size_t)nk + 1, sizeof(int)) : NULL;
    int *cnt = tj ? fc_calloc((size_t)n + 2, sizeof(int)) : NULL;
    int *rows = cnt ? fc_calloc((size_t)nk + 1, sizeof(int)) : NULL;
    fc_err e = FC_OK;
    if (!rows) {
        e = fc_error_set(err, FC_ERR_NOMEM, "out of memory analysing the global form");
        goto done;
    }
    long t = 0;
    for (int i = 0; i < n; i++)
        for (int q = Mr->p[i]; q < Mr->p[i + 1]; q++)
            if (Mr->j[q] >= i) { ti[t] = i; tj[t] = Mr->j[q]; t++; }
    for (int a = 0; a < nc; a++) {
        int k = contact_unknowns(Hc, d, a, ra);
        for (int s1 = 0; s1 < k; s1++)
            for (int s2 = s1; s2 < k; s2++) { ti[t] = ra[s1]; tj[t] = ra[s2]; t++; }
    }
    for (long q = 0; q < t; q++) cnt[tj[q] + 1]++;
    for (int j = 0; j < n; j++) cnt[j + 1] += cnt[j];
    for (long q = 0; q < t; q++) rows[cnt[tj[q]]++] = ti[q];
    for (int j = n; j > 0; j--) cnt[j] = cnt[j - 1];
    cnt[0] = 0;
    long nz = 0;   /* sorted and deduplicated in place, column by column */
    for (int j = 0; j < n; j++) {
        int b = cnt[j], en = cnt[j + 1];
        qsort(rows + b, (size_t)(en - b), sizeof(int), cmp_int);
        cnt[j] = (int)nz;
        for (int q = b; q < en; q++)
            if (q == b || rows[q] != rows[q - 1]) rows[nz++] = rows[q];
    }
    cnt[n] = (int)nz;
    e = fc_chol_predict_pattern(n, cnt, rows, entries, flops, err);
done:
    free(ti); free(tj); free(ra); free(cnt); free(rows);
    fc_matrix_free(Hc);
    fc_matrix_free(Mr);
    return e;
}
