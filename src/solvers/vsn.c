/* vsn: semismooth Newton in the velocity space (global problems), inside
 * a proximal point (augmented Lagrangian) loop on the reactions.
 *
 * For the prox centre lambda and the De Saxce shift s frozen, the
 * reactions are a function of the velocities,
 *   r_a(v) = P_K(lambda_a - rho_a (H_a'v + w_a + s_a e_N)),
 * and the dynamics M v = H r(v) + f is the gradient of the convex
 *   psi(v) = 1/2 v'Mv - f'v + sum_a ||r_a(v)||^2 / (2 rho_a),
 * minimised by Newton's method with an Armijo line search: the Newton
 * matrix J = M + sum_a rho_a H_a D_a H_a' (D_a the Jacobian of the cone
 * projection, symmetric, 0 <= D_a <= I) is symmetric positive definite and
 * has the sparsity of M plus the contact graph of the bodies: one CHOLMOD
 * LL' of n unknowns (12000 for 2000 rigid bodies), pattern analysed once
 * (linsys/kkt.c), where a Newton method on the contacts factorises an
 * m x m matrix (3 m = 27000 on a 9000-contact pile step) and an interior
 * point the same J but needs the fixed point on s to converge alone.
 * After the inner Newton steps lambda = r(v) and s = mu ||u_T(v)|| (the
 * proximal point on the reactions; its rate improves with rho), and the
 * SPEC error is measured on r = lambda with v = M^-1 (H r + f) recomputed
 * (M factorised once).
 *
 * rho_a = vsn.rho / w_a, w_a = trace(H_a' diag(M)^-1 H_a) / d, an estimate
 * of the contact's compliance W_aa.  Measurements: docs/granular-piles.md.
 * Local problems (no M, H) are refused: this is a method of the global
 * form. */
#include "internal.h"
#include "linsys/linsys.h"
#include "measure/measure.h"

#include <stdio.h>

/* The line search: |phi'(t)| <= VSN_LS_TOL |phi'(0)|, at most VSN_LS_MAX
 * evaluations per phase. */
#define VSN_LS_TOL 0.1
#define VSN_LS_MAX 30
/* Static regularisation of J relative to its largest diagonal entry
 * (the solves refine it away); guards a singular M + H D H'. */
#define VSN_REG 1e-13
/* The most dofs one contact may touch (4 rigid bodies' worth). */
#define VSN_MAX_DOFS 48

typedef struct vsn {
    const fc_problem *p;
    const fc_options *opt;
    int d, nc, m, n;
    fc_matrix *Mc;            /* M as CSR                                  */
    fc_matrix *Ht;            /* H' as CSR (m x n)                         */
    int *cs, *sdof;           /* contact a's dofs: sdof[cs[a] .. cs[a+1])  */
    double *hv;               /* its dense H_a (k x d, column-major) at d cs[a] */
    long *pp, *jpos;          /* J positions of its pairs (i <= j): jpos[pp[a] ..] */
    long *mpos;               /* J position of each M entry (-1: lower)    */
    long nv;                  /* J's stored values                         */
    fc_kkt *K;
    fc_chol *Mf;
    double *reg;              /* n: the factorisation's regularisation     */
    double *rho;              /* nc                                         */
    double *v, *dv, *vt, *F, *rhs; /* n                                    */
    double *u, *z, *r, *lam, *s, *Dj; /* m, m, m, m, nc, nc d d            */
    double *best, *vr, *ur;   /* m, n, m                                    */
    fc_error err;
} vsn;

static void vsn_free(vsn *w)
{
    fc_matrix_free(w->Mc);
    fc_matrix_free(w->Ht);
    free(w->cs); free(w->sdof); free(w->hv); free(w->pp); free(w->jpos); free(w->mpos);
    fc_kkt_free(w->K);
    fc_chol_free(w->Mf);
    free(w->reg); free(w->rho);
    free(w->v); free(w->dv); free(w->vt); free(w->F); free(w->rhs);
    free(w->u); free(w->z); free(w->r); free(w->lam); free(w->s); free(w->Dj);
    free(w->best); free(w->vr); free(w->ur);
}

static double row_dot(const fc_matrix *A, int i, const double *x)
{
    double s = 0.0;
    for (int k = A->p[i]; k < A->p[i + 1]; k++) s += A->x[k] * x[A->j[k]];
    return s;
}

/* y = beta y + H x (through H' stored by rows). */
static void h_times(const vsn *w, const double *x, double beta, double *y)
{
    if (beta == 0.0) memset(y, 0, (size_t)w->n * sizeof *y);
    for (int i = 0; i < w->m; i++) {
        if (x[i] == 0.0) continue;
        for (int k = w->Ht->p[i]; k < w->Ht->p[i + 1]; k++) y[w->Ht->j[k]] += w->Ht->x[k] * x[i];
    }
}

/* Alart and Curnier's map with the friction disk's radius frozen at
 * R_a (a Tresca problem, convex): at v, u = H'v + w, z = lambda - rho u,
 * r_N = max(0, z_N), r_T = z_T projected on the disk of radius R_a, and
 * with jac its Jacobian D_a = dr/dz (symmetric, 0 <= D_a <= I).  Returns
 * psi(v) = 1/2 v'Mv - f'v + sum_a (||z_a||^2 - ||z_a - r_a||^2) / (2 rho_a),
 * whose gradient is M v - f - H r (the squared distance's gradient is
 * z - r). */
static double eval(vsn *w, const double *v, int jac)
{
    const fc_problem *p = w->p;
    int d = w->d;
    double val = 0.0;
    for (int i = 0; i < w->n; i++) val += v[i] * (0.5 * row_dot(w->Mc, i, v) - p->f[i]);
    for (int a = 0; a < w->nc; a++) {
        double *z = w->z + d * a, *r = w->r + d * a, nt = 0.0, R = w->s[a];
        for (int k = 0; k < d; k++) {
            int i = d * a + k;
            w->u[i] = row_dot(w->Ht, i, v) + p->w[i];
            z[k] = w->lam[i] - w->rho[a] * w->u[i];
            if (k > 0) nt += z[k] * z[k];
        }
        nt = sqrt(nt);
        r[0] = fmax(0.0, z[0]);
        double sc = nt > R ? R / nt : 1.0;
        for (int k = 1; k < d; k++) r[k] = sc * z[k];
        double zz = 0.0, dd = 0.0;
        for (int k = 0; k < d; k++) { zz += z[k] * z[k]; dd += (z[k] - r[k]) * (z[k] - r[k]); }
        val += 0.5 * (zz - dd) / w->rho[a];
        if (!jac) continue;
        double *D = w->Dj + (size_t)a * d * d;
        memset(D, 0, (size_t)d * d * sizeof *D);
        D[0] = z[0] > 0.0 ? 1.0 : 0.0;
        for (int k = 1; k < d; k++)
            for (int l = 1; l < d; l++)
                D[k + l * d] = sc * ((k == l) - (nt > R ? z[k] * z[l] / (nt * nt) : 0.0));
    }
    return val;
}

/* The frozen radii R_a = mu_a max(0, lambda_N,a). */
static void radii(vsn *w)
{
    for (int a = 0; a < w->nc; a++) w->s[a] = w->p->mu[a] * fmax(0.0, w->lam[w->d * a]);
}

/* F = M v - f - H r (psi's gradient) at the v last evaluated; returns ||F||. */
static double residual(vsn *w, const double *v)
{
    for (int i = 0; i < w->n; i++) w->F[i] = row_dot(w->Mc, i, v) - w->p->f[i];
    for (int i = 0; i < w->m; i++) {
        if (w->r[i] == 0.0) continue;
        for (int k = w->Ht->p[i]; k < w->Ht->p[i + 1]; k++) w->F[w->Ht->j[k]] -= w->Ht->x[k] * w->r[i];
    }
    return fc_norm2(w->n, w->F);
}

/* The step along dv minimising psi (convex): the root of its derivative
 * phi'(t) = F(v + t dv)'dv, increasing, phi'(0) = slope < 0, by the
 * Illinois variant of regula falsi from [0, 1] (extended while phi' < 0
 * at the end), to |phi'| <= VSN_LS_TOL |slope|; the kinks of psi (each
 * contact changing state along dv) make backtracking's steps tiny.
 * *evals counts the evaluations; NAN when psi is not finite. */
static double line_search(vsn *w, double slope, int *evals)
{
    int n = w->n;
    double lo = 0.0, glo = slope, hi = 1.0, ghi = 0.0;
    for (int k = 0; k < VSN_LS_MAX; k++) {     /* the bracket */
        for (int i = 0; i < n; i++) w->vt[i] = w->v[i] + hi * w->dv[i];
        if (!isfinite(eval(w, w->vt, 0))) return NAN;
        residual(w, w->vt);
        ghi = fc_dot(n, w->F, w->dv);
        (*evals)++;
        if (ghi >= 0.0 || fabs(ghi) <= VSN_LS_TOL * fabs(slope)) break;
        lo = hi; glo = ghi; hi *= 2.0;
    }
    if (ghi <= 0.0) return hi;
    int side = 0;
    double t = hi;
    for (int k = 0; k < VSN_LS_MAX; k++) {
        t = lo - glo * (hi - lo) / (ghi - glo);
        for (int i = 0; i < n; i++) w->vt[i] = w->v[i] + t * w->dv[i];
        if (!isfinite(eval(w, w->vt, 0))) return NAN;
        residual(w, w->vt);
        double g = fc_dot(n, w->F, w->dv);
        (*evals)++;
        if (fabs(g) <= VSN_LS_TOL * fabs(slope)) break;
        if (g < 0.0) { lo = t; glo = g; if (side == -1) ghi *= 0.5; side = -1; }
        else { hi = t; ghi = g; if (side == 1) glo *= 0.5; side = 1; }
    }
    return t;
}

/* J = M + sum_a rho_a H_a D_a H_a' into the factorisation's values. */
static void assemble(vsn *w)
{
    int d = w->d;
    double *x = fc_kkt_values(w->K);
    memset(x, 0, (size_t)w->nv * sizeof *x);
    for (long k = 0; k < w->Mc->nnz; k++)
        if (w->mpos[k] >= 0) x[w->mpos[k]] += w->Mc->x[k];
    for (int a = 0; a < w->nc; a++) {
        int k0 = w->cs[a], kk = w->cs[a + 1] - k0;
        const double *Ha = w->hv + (size_t)k0 * d, *D = w->Dj + (size_t)a * d * d;
        double hb[VSN_MAX_DOFS * 3];   /* rho_a H_a D_a, kk x d (kk <= VSN_MAX_DOFS, d <= 3) */
        for (int l = 0; l < d; l++)
            for (int i = 0; i < kk; i++) {
                double sum = 0.0;
                for (int t = 0; t < d; t++) sum += Ha[i + t * kk] * D[t + l * d];
                hb[i + l * kk] = w->rho[a] * sum;
            }
        const long *pos = w->jpos + w->pp[a];
        for (int j = 0; j < kk; j++)
            for (int i = 0; i <= j; i++) {
                double sum = 0.0;
                for (int l = 0; l < d; l++) sum += hb[i + l * kk] * Ha[j + l * kk];
                x[*pos++] += sum;
            }
    }
}

/* Pattern of J, contacts' dense H_a, positions, rho, M's factor. */
static int vsn_setup(vsn *w)
{
    const fc_problem *p = w->p;
    int d = w->d, nc = w->nc, m = w->m, n = w->n;
    size_t N = (size_t)n, Mm = (size_t)m;
    w->Mc = fc_matrix_to_csr(p->M);
    fc_matrix *Hc = fc_matrix_to_csr(p->H);
    w->Ht = Hc ? fc_csr_transpose(Hc) : NULL;
    fc_matrix_free(Hc);
    w->cs = fc_calloc((size_t)nc + 1, sizeof *w->cs);
    w->pp = fc_calloc((size_t)nc + 1, sizeof *w->pp);
    w->reg = fc_calloc(N + 1, sizeof *w->reg);
    w->rho = fc_calloc((size_t)nc + 1, sizeof *w->rho);
    w->v = fc_calloc(N + 1, sizeof *w->v); w->dv = fc_calloc(N + 1, sizeof *w->dv);
    w->vt = fc_calloc(N + 1, sizeof *w->vt); w->F = fc_calloc(N + 1, sizeof *w->F);
    w->rhs = fc_calloc(N + 1, sizeof *w->rhs); w->vr = fc_calloc(N + 1, sizeof *w->vr);
    w->u = fc_calloc(Mm + 1, sizeof *w->u); w->z = fc_calloc(Mm + 1, sizeof *w->z);
    w->r = fc_calloc(Mm + 1, sizeof *w->r); w->lam = fc_calloc(Mm + 1, sizeof *w->lam);
    w->best = fc_calloc(Mm + 1, sizeof *w->best); w->ur = fc_calloc(Mm + 1, sizeof *w->ur);
    w->s = fc_calloc((size_t)nc + 1, sizeof *w->s);
    w->Dj = fc_calloc((size_t)nc * d * d + 1, sizeof *w->Dj);

    if (!w->Mc || !w->Ht || !w->cs || !w->pp || !w->reg || !w->rho || !w->v || !w->dv || !w->vt ||
        !w->F || !w->rhs || !w->vr || !w->u || !w->z || !w->r || !w->lam || !w->best || !w->ur ||
        !w->s || !w->Dj)
        goto nomem;
    /* each contact's dofs: the union of its d rows of H' (sorted by merging) */
    int *mark = fc_calloc(N + 1, sizeof *mark), tot = 0;
    if (!mark) goto nomem;
    for (int i = 0; i < n; i++) mark[i] = -1;
    for (int a = 0; a < nc; a++) {
        int k = 0;
        for (int l = 0; l < d; l++)
            for (int t = w->Ht->p[d * a + l]; t < w->Ht->p[d * a + l + 1]; t++)
                if (mark[w->Ht->j[t]] != a) { mark[w->Ht->j[t]] = a; k++; }
        if (k > VSN_MAX_DOFS) {
            free(mark);
            fc_error_set(&w->err, FC_ERR_UNSUPPORTED,
                         "contact %d touches %d dofs (at most %d: a few rigid bodies)", a, k, VSN_MAX_DOFS);
            return 0;
        }
        w->cs[a + 1] = w->cs[a] + k;
    }
    tot = w->cs[nc];
    w->sdof = fc_calloc((size_t)tot + 1, sizeof *w->sdof);
    w->hv = fc_calloc((size_t)tot * d + 1, sizeof *w->hv);
    if (!w->sdof || !w->hv) { free(mark); goto nomem; }
    for (int i = 0; i < n; i++) mark[i] = -1;
    long npairs = 0;
    for (int a = 0; a < nc; a++) {
        int k0 = w->cs[a], kk = w->cs[a + 1] - k0, k = 0;
        for (int l = 0; l < d; l++)
            for (int t = w->Ht->p[d * a + l]; t < w->Ht->p[d * a + l + 1]; t++)
                if (mark[w->Ht->j[t]] < k0) { mark[w->Ht->j[t]] = k0 + k; w->sdof[k0 + k++] = w->Ht->j[t]; }
        /* sorted dofs (insertion sort: at most VSN_MAX_DOFS) */
        for (int i = 1; i < kk; i++)
            for (int j = i; j > 0 && w->sdof[k0 + j - 1] > w->sdof[k0 + j]; j--) {
                int t = w->sdof[k0 + j]; w->sdof[k0 + j] = w->sdof[k0 + j - 1]; w->sdof[k0 + j - 1] = t;
            }
        for (int i = 0; i < kk; i++) mark[w->sdof[k0 + i]] = k0 + i;
        double *Ha = w->hv + (size_t)k0 * d;
        for (int l = 0; l < d; l++)
            for (int t = w->Ht->p[d * a + l]; t < w->Ht->p[d * a + l + 1]; t++)
                Ha[(mark[w->Ht->j[t]] - k0) + l * kk] += w->Ht->x[t];
        w->pp[a] = npairs;
        npairs += (long)kk * (kk + 1) / 2;
    }
    free(mark);
    w->pp[nc] = npairs;
    /* J's pattern from triplets: M's upper entries and each contact's pairs */
    long nz = w->Mc->nnz + npairs;
    int *ti = fc_calloc((size_t)nz + 1, sizeof *ti), *tj = fc_calloc((size_t)nz + 1, sizeof *tj);
    if (!ti || !tj) { free(ti); free(tj); goto nomem; }
    long t = 0;
    for (int i = 0; i < n; i++)
        for (int k = w->Mc->p[i]; k < w->Mc->p[i + 1]; k++)
            if (w->Mc->j[k] >= i) { ti[t] = i; tj[t++] = w->Mc->j[k]; }
    for (int a = 0; a < nc; a++)
        for (int j = w->cs[a]; j < w->cs[a + 1]; j++)
            for (int i = w->cs[a]; i <= j; i++) { ti[t] = w->sdof[i]; tj[t++] = w->sdof[j]; }
    w->K = fc_kkt_new(n, t, ti, tj, NULL, 0, &w->err);
    free(ti); free(tj);
    if (!w->K) return 0;
    w->nv = fc_kkt_diag(w->K, n - 1) + 1;
    w->mpos = fc_calloc((size_t)w->Mc->nnz + 1, sizeof *w->mpos);
    w->jpos = fc_calloc((size_t)npairs + 1, sizeof *w->jpos);
    if (!w->mpos || !w->jpos) goto nomem;
    for (int i = 0; i < n; i++)
        for (int k = w->Mc->p[i]; k < w->Mc->p[i + 1]; k++)
            w->mpos[k] = w->Mc->j[k] >= i ? fc_kkt_find(w->K, i, w->Mc->j[k]) : -1;
    for (int a = 0; a < nc; a++) {
        long *pos = w->jpos + w->pp[a];
        for (int j = w->cs[a]; j < w->cs[a + 1]; j++)
            for (int i = w->cs[a]; i <= j; i++) *pos++ = fc_kkt_find(w->K, w->sdof[i], w->sdof[j]);
    }
    /* rho_a = vsn.rho / (trace(H_a' diag(M)^-1 H_a) / d) */
    double dmax = 0.0, wsum = 0.0;
    int wcount = 0;
    for (int i = 0; i < n; i++) {
        double mii = 0.0;
        for (int k = w->Mc->p[i]; k < w->Mc->p[i + 1]; k++) if (w->Mc->j[k] == i) mii = w->Mc->x[k];
        w->vt[i] = mii > 0.0 ? 1.0 / mii : 0.0;
        dmax = fmax(dmax, fabs(mii));
    }
    for (int a = 0; a < nc; a++) {
        int k0 = w->cs[a], kk = w->cs[a + 1] - k0;
        const double *Ha = w->hv + (size_t)k0 * d;
        double tr = 0.0;
        for (int l = 0; l < d; l++)
            for (int i = 0; i < kk; i++) tr += Ha[i + l * kk] * Ha[i + l * kk] * w->vt[w->sdof[k0 + i]];
        w->rho[a] = tr / d;
        if (tr > 0.0) { wsum += tr / d; wcount++; }
    }
    for (int a = 0; a < nc; a++)
        w->rho[a] = w->opt->vsn.rho / (w->rho[a] > 0.0 ? w->rho[a] : wcount ? wsum / wcount : 1.0);
    for (int i = 0; i < n; i++) w->reg[i] = VSN_REG * fmax(dmax, 1e-300);
    memset(w->vt, 0, N * sizeof *w->vt);
    /* M's own factor recovers v from r exactly, for the measure */
    w->Mf = fc_chol_factor(p->M, "M", &w->err);
    return w->Mf != NULL;
nomem:
    fc_error_set(&w->err, FC_ERR_NOMEM, "out of memory");
    return 0;
}

/* The SPEC error of r (v = M^-1 (H r + f) into vr, u = H'vr + w into ur). */
static double measure(vsn *w, const double *r)
{
    const fc_problem *p = w->p;
    h_times(w, r, 0.0, w->rhs);
    for (int i = 0; i < w->n; i++) w->rhs[i] += p->f[i];
    if (fc_chol_solve(w->Mf, w->rhs, w->vr, &w->err) != FC_OK) return NAN;
    for (int i = 0; i < w->m; i++) w->ur[i] = row_dot(w->Ht, i, w->vr) + p->w[i];
    return fc_error_local(p, r, w->ur);
}

fc_status fc_vsn_solve_global(const fc_problem *p, const fc_options *opt, double *r, double *u,
                              double *v, fc_info *info)
{
    vsn w;
    memset(&w, 0, sizeof w);
    w.p = p; w.opt = opt;
    w.d = p->d; w.nc = p->nc; w.m = p->d * p->nc; w.n = p->n;
    int m = w.m, n = w.n, d = w.d;
    fc_clock clk;
    fc_clock_start(&clk, opt);
    if ((d != 2 && d != 3) || p->neq > 0) {
        snprintf(info->message, sizeof info->message, "vsn handles d = 2 and 3 without equalities");
        return FC_STATUS_ERROR;
    }
    if (fc_matrix_asymmetry(p->M) > 1e-14) {
        snprintf(info->message, sizeof info->message, "vsn: M is not symmetric");
        return FC_STATUS_ERROR;
    }
    if (!vsn_setup(&w)) {
        snprintf(info->message, sizeof info->message, "vsn: %.200s", w.err.msg);
        vsn_free(&w);
        return FC_STATUS_ERROR;
    }
    const fc_vsn_options *o = &opt->vsn;
    double setup_s = fc_clock_elapsed(&clk), factor_s = 0.0;
    /* the start: lambda = P_K(r0), v = v(lambda), s from it */
    if (!fc_all_finite((size_t)m, r)) memset(r, 0, (size_t)m * sizeof *r);
    if (o->presweeps > 0) {   /* nncg's sweeps first: the active set nearly right */
        fc_options po = *opt;
        po.max_iter = o->presweeps;
        po.progress = NULL;
        fc_info pi;
        memset(&pi, 0, sizeof pi);
        fc_nncg_solve_global(p, &po, r, w.u, w.vr, &pi);
        fc_log(opt, 1, "vsn: %d nncg sweeps first, error %.3e, %.3f s", pi.iterations, pi.residual,
               fc_clock_elapsed(&clk));
    }
    memcpy(w.lam, r, (size_t)m * sizeof *w.lam);
    for (int a = 0; a < w.nc; a++) fc_project_cone(d, p->mu[a], 0.0, w.lam + d * a);
    double err = measure(&w, w.lam), best = err;
    memcpy(w.best, w.lam, (size_t)m * sizeof *w.best);
    memcpy(w.v, w.vr, (size_t)n * sizeof *w.v);
    radii(&w);
    double fscale = fmax(1.0, fc_norm2(n, p->f));
    fc_status st = err <= opt->tolerance ? FC_CONVERGED : FC_MAX_ITER;
    int it = 0, outer = 0, stop = 0, ls = 0;
    fc_log(opt, 1, "vsn: setup %.3f s, J: n %d, %ld stored entries, factor %.3g flops; start error %.3e",
           setup_s, n, w.nv, fc_kkt_predicted_flops(w.K), err);
    while (st != FC_CONVERGED && !stop) {
        /* inner: Newton on psi, to vsn.inner_ratio times the outer error */
        double eta = o->inner_ratio * fmin(err, 1.0);
        for (int k = 0; k < o->max_inner; k++) {
            double ph = eval(&w, w.v, 1);
            double fs = residual(&w, w.v) / fscale;
            if (k > 0 && fs <= eta) break;
            if (it >= opt->max_iter) { stop = 1; break; }
            if (fc_clock_expired(&clk)) { st = FC_TIME_LIMIT; stop = 1; break; }
            double t0 = fc_now();
            assemble(&w);
            if (fc_kkt_factor(w.K, w.reg, &w.err) != FC_OK) { st = FC_STATUS_ERROR; stop = 1; break; }
            for (int i = 0; i < n; i++) w.rhs[i] = -w.F[i];
            if (fc_kkt_solve(w.K, w.rhs, w.dv, 2, &w.err) != FC_OK) { st = FC_STATUS_ERROR; stop = 1; break; }
            factor_s += fc_now() - t0;
            it++;
            double slope = fc_dot(n, w.F, w.dv);
            if (!(slope < 0.0)) break;   /* no descent: J solved badly */
            double step = line_search(&w, slope, &ls);
            if (!isfinite(step)) { st = FC_DIVERGED; stop = 1; break; }
            fc_log(opt, 2, "vsn outer %d newton %d: |F| %.3e, psi %.6e, step %.3g", outer, k, fs, ph, step);
            for (int i = 0; i < n; i++) w.vt[i] = w.v[i] + step * w.dv[i];
            memcpy(w.v, w.vt, (size_t)n * sizeof *w.v);
        }
        if (st == FC_STATUS_ERROR || st == FC_DIVERGED) break;
        /* outer: lambda = r(v), the radii from it */
        eval(&w, w.v, 0);
        memcpy(w.lam, w.r, (size_t)m * sizeof *w.lam);
        radii(&w);
        outer++;
        err = measure(&w, w.lam);
        if (!isfinite(err)) { st = FC_DIVERGED; break; }
        if (err < best) { best = err; memcpy(w.best, w.lam, (size_t)m * sizeof *w.best); }
        fc_log(opt, 1, "vsn outer %d: %d Newton steps, error %.3e (%.3f s, factorising %.3f s)",
               outer, it, err, fc_clock_elapsed(&clk), factor_s);
        if (err <= opt->tolerance) { st = FC_CONVERGED; break; }
        if (opt->progress && opt->progress(opt->progress_user, it, err)) {
            snprintf(info->message, sizeof info->message, "stopped by the progress callback");
            break;
        }
        if (it >= opt->max_iter) break;
        if (fc_clock_expired(&clk)) { st = FC_TIME_LIMIT; break; }
    }
    if (st == FC_STATUS_ERROR)
        snprintf(info->message, sizeof info->message, "vsn: %.200s", w.err.msg);
    else if (st != FC_CONVERGED && !info->message[0])
        snprintf(info->message, sizeof info->message, "%d Newton steps, %d outer, error %.3e > %.1e",
                 it, outer, best, opt->tolerance);
    memcpy(r, w.best, (size_t)m * sizeof *r);
    info->residual = measure(&w, r);
    memcpy(u, w.ur, (size_t)m * sizeof *u);
    if (v) memcpy(v, w.vr, (size_t)n * sizeof *v);
    info->iterations = it;
    info->status = st;
    fc_log(opt, 0, "vsn: %s after %d Newton steps (%d outer), error %.3e, %.3f s (setup %.3f, "
           "Newton matrices %.3f)", fc_status_name(st), it, outer, info->residual,
           fc_clock_elapsed(&clk), setup_s, factor_s);
    vsn_free(&w);
    return st;
}

fc_status fc_vsn_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                       fc_info *info)
{
    (void)p; (void)opt; (void)r; (void)u;
    snprintf(info->message, sizeof info->message,
             "vsn works on a global problem's (M, H); a local problem has none");
    return FC_STATUS_ERROR;
}
