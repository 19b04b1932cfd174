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

/* Armijo's constant and the shortest step of the line search. */
#define VSN_ARMIJO 1e-4
#define VSN_MIN_STEP 1e-8
/* Static regularisation of J relative to its largest diagonal entry
 * (the solves refine it away); guards a singular M + H D H'. */
#define VSN_REG 1e-13
/* The most dofs one contact may touch (4 rigid bodies' worth). */
#define VSN_MAX_DOFS 48
/* GMRES's restart length. */
#define VSN_KRYLOV 30

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
    double *Bj;               /* nc d d: the whole derivative of r_a       */
    double *kv, *kh, *kc, *ks, *kg, *kt, *kq; /* GMRES: basis, Hessenberg, rotations, ... */
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
    free(w->best); free(w->vr); free(w->ur); free(w->Bj);
    free(w->kv); free(w->kh); free(w->kc); free(w->ks); free(w->kg); free(w->kt); free(w->kq);
}

/* x projected onto {||x_T|| <= mu x_N} into P, and the projection's
 * Jacobian at x into D (d x d, column-major, symmetric; NULL: not needed).
 * On the boundary part: P = a (1, mu t), a = (x_N + mu |x_T|) / (1 + mu^2),
 * t = x_T / |x_T|. */
static void proj_jac(int d, double mu, const double *x, double *P, double *D)
{
    double nt = 0.0;
    for (int k = 1; k < d; k++) nt += x[k] * x[k];
    nt = sqrt(nt);
    if (D) memset(D, 0, (size_t)d * d * sizeof *D);
    if (nt <= mu * x[0]) {                       /* inside */
        for (int k = 0; k < d; k++) P[k] = x[k];
        if (D) for (int k = 0; k < d; k++) D[k + k * d] = 1.0;
        return;
    }
    if (mu * nt <= -x[0]) {                      /* in the polar cone */
        for (int k = 0; k < d; k++) P[k] = 0.0;
        return;
    }
    double c = 1.0 / (1.0 + mu * mu), a = (x[0] + mu * nt) * c, t[4];
    for (int k = 1; k < d; k++) t[k] = x[k] / nt;
    P[0] = a;
    for (int k = 1; k < d; k++) P[k] = a * mu * t[k];
    if (!D) return;
    double g = a * mu / nt;
    D[0] = c;
    for (int k = 1; k < d; k++) D[k] = D[k * d] = mu * t[k] * c;
    for (int k = 1; k < d; k++)
        for (int l = 1; l < d; l++)
            D[k + l * d] = mu * mu * t[k] * t[l] * c + g * ((k == l) - t[k] * t[l]);
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

/* At v: u = H'v + w, s_a = mu_a ||u_T,a||, z = lambda - rho (u + s e_N),
 * r = P_K(z); with jac, D_a = P_K'(z_a) and the whole derivative
 * B_a = D_a (I + e_N g_a'), g_a = (0, mu t_a) the derivative of s_a
 * (t_a = u_T / ||u_T||; 0 at u_T = 0). */
static void eval(vsn *w, const double *v, int jac)
{
    const fc_problem *p = w->p;
    int d = w->d;
    for (int a = 0; a < w->nc; a++) {
        double nt = 0.0, mu = p->mu[a];
        for (int k = 0; k < d; k++) {
            int i = d * a + k;
            w->u[i] = row_dot(w->Ht, i, v) + p->w[i];
            if (k > 0) nt += w->u[i] * w->u[i];
        }
        nt = sqrt(nt);
        w->s[a] = mu * nt;
        for (int k = 0; k < d; k++) {
            int i = d * a + k;
            w->z[i] = w->lam[i] - w->rho[a] * (w->u[i] + (k == 0 ? w->s[a] : 0.0));
        }
        double *D = w->Dj + (size_t)a * d * d, *B = w->Bj + (size_t)a * d * d;
        proj_jac(d, mu, w->z + d * a, w->r + d * a, jac ? D : NULL);
        if (!jac) continue;
        memcpy(B, D, (size_t)d * d * sizeof *B);
        if (nt > 0.0 && mu > 0.0)   /* B += D e_N g' : column l of B += D[:, 0] mu t_l */
            for (int l = 1; l < d; l++)
                for (int k = 0; k < d; k++) B[k + l * d] += D[k] * mu * w->u[d * a + l] / nt;
    }
}

/* F = M v - f - H r at the v last evaluated; returns ||F||. */
static double residual(vsn *w, const double *v)
{
    for (int i = 0; i < w->n; i++) w->F[i] = row_dot(w->Mc, i, v) - w->p->f[i];
    for (int i = 0; i < w->m; i++) {
        if (w->r[i] == 0.0) continue;
        for (int k = w->Ht->p[i]; k < w->Ht->p[i + 1]; k++) w->F[w->Ht->j[k]] -= w->Ht->x[k] * w->r[i];
    }
    return fc_norm2(w->n, w->F);
}

/* y = J x = M x + sum_a rho_a H_a B_a H_a' x. */
static void jmul(const vsn *w, const double *x, double *y)
{
    int d = w->d;
    for (int i = 0; i < w->n; i++) y[i] = row_dot(w->Mc, i, x);
    for (int a = 0; a < w->nc; a++) {
        int k0 = w->cs[a], kk = w->cs[a + 1] - k0;
        const double *Ha = w->hv + (size_t)k0 * d, *B = w->Bj + (size_t)a * d * d;
        const int *dof = w->sdof + k0;
        double y1[3] = {0}, y2[3] = {0};
        for (int l = 0; l < d; l++)
            for (int i = 0; i < kk; i++) y1[l] += Ha[i + l * kk] * x[dof[i]];
        for (int k = 0; k < d; k++) {
            for (int l = 0; l < d; l++) y2[k] += B[k + l * d] * y1[l];
            y2[k] *= w->rho[a];
        }
        for (int i = 0; i < kk; i++) {
            double sum = 0.0;
            for (int k = 0; k < d; k++) sum += Ha[i + k * kk] * y2[k];
            y[dof[i]] += sum;
        }
    }
}

/* J x = b by GMRES(VSN_KRYLOV), right-preconditioned by the factor of
 * the symmetric M + sum rho_a H_a D_a H_a' (exact without friction's
 * derivative), to ||b - J x|| <= tol ||b||; x from 0.  The Krylov
 * iterations done; -1 when a solve failed. */
static int gmres(vsn *w, const double *b, double tol, int max_it, double *x)
{
    int n = w->n, kd = VSN_KRYLOV, its = 0;
    double *V = w->kv, *H = w->kh, *cs = w->kc, *sn = w->ks, *g = w->kg, *t = w->kt, *q = w->kq;
    double bn = fc_norm2(n, b);
    memset(x, 0, (size_t)n * sizeof *x);
    if (!(bn > 0.0)) return 0;
    memcpy(t, b, (size_t)n * sizeof *t);   /* t: the residual */
    while (its < max_it) {
        double beta = fc_norm2(n, t);
        if (beta <= tol * bn) break;
        for (int i = 0; i < n; i++) V[i] = t[i] / beta;
        memset(g, 0, (size_t)(kd + 1) * sizeof *g);
        g[0] = beta;
        int j;
        for (j = 0; j < kd && its < max_it; j++, its++) {
            double *vj = V + (size_t)j * n, *vn = V + (size_t)(j + 1) * n;
            if (fc_kkt_solve(w->K, vj, q, 0, &w->err) != FC_OK) return -1;
            jmul(w, q, vn);
            for (int i = 0; i <= j; i++) {   /* modified Gram-Schmidt */
                double h = fc_dot(n, vn, V + (size_t)i * n);
                H[i + j * (kd + 1)] = h;
                for (int k = 0; k < n; k++) vn[k] -= h * V[(size_t)i * n + k];
            }
            double hn = fc_norm2(n, vn);
            H[j + 1 + j * (kd + 1)] = hn;
            if (hn > 0.0) for (int k = 0; k < n; k++) vn[k] /= hn;
            for (int i = 0; i < j; i++) {    /* the earlier rotations */
                double h0 = H[i + j * (kd + 1)], h1 = H[i + 1 + j * (kd + 1)];
                H[i + j * (kd + 1)] = cs[i] * h0 + sn[i] * h1;
                H[i + 1 + j * (kd + 1)] = -sn[i] * h0 + cs[i] * h1;
            }
            double h0 = H[j + j * (kd + 1)], h1 = H[j + 1 + j * (kd + 1)], rr = hypot(h0, h1);
            cs[j] = rr > 0.0 ? h0 / rr : 1.0;
            sn[j] = rr > 0.0 ? h1 / rr : 0.0;
            H[j + j * (kd + 1)] = rr;
            H[j + 1 + j * (kd + 1)] = 0.0;
            g[j + 1] = -sn[j] * g[j];
            g[j] = cs[j] * g[j];
            if (fabs(g[j + 1]) <= tol * bn || hn == 0.0) { j++; its++; break; }
        }
        /* y = R^-1 g; x += P^-1 (V y) */
        double y[VSN_KRYLOV];
        for (int i = j - 1; i >= 0; i--) {
            double sum = g[i];
            for (int k = i + 1; k < j; k++) sum -= H[i + k * (kd + 1)] * y[k];
            y[i] = H[i + i * (kd + 1)] != 0.0 ? sum / H[i + i * (kd + 1)] : 0.0;
        }
        memset(t, 0, (size_t)n * sizeof *t);
        for (int i = 0; i < j; i++)
            for (int k = 0; k < n; k++) t[k] += y[i] * V[(size_t)i * n + k];
        if (fc_kkt_solve(w->K, t, q, 0, &w->err) != FC_OK) return -1;
        for (int k = 0; k < n; k++) x[k] += q[k];
        jmul(w, x, q);   /* the true residual, for the restart */
        for (int k = 0; k < n; k++) t[k] = b[k] - q[k];
        if (fc_norm2(n, t) <= tol * bn) break;
    }
    return its;
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
    w->Bj = fc_calloc((size_t)nc * d * d + 1, sizeof *w->Bj);
    w->kv = fc_calloc(N * (VSN_KRYLOV + 1) + 1, sizeof *w->kv);
    w->kh = fc_calloc((size_t)(VSN_KRYLOV + 1) * VSN_KRYLOV, sizeof *w->kh);
    w->kc = fc_calloc(VSN_KRYLOV + 1, sizeof *w->kc);
    w->ks = fc_calloc(VSN_KRYLOV + 1, sizeof *w->ks);
    w->kg = fc_calloc(VSN_KRYLOV + 1, sizeof *w->kg);
    w->kt = fc_calloc(N + 1, sizeof *w->kt);
    w->kq = fc_calloc(N + 1, sizeof *w->kq);
    if (!w->Mc || !w->Ht || !w->cs || !w->pp || !w->reg || !w->rho || !w->v || !w->dv || !w->vt ||
        !w->F || !w->rhs || !w->vr || !w->u || !w->z || !w->r || !w->lam || !w->best || !w->ur ||
        !w->s || !w->Dj || !w->Bj || !w->kv || !w->kh || !w->kc || !w->ks || !w->kg || !w->kt || !w->kq)
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
    for (int a = 0; a < w.nc; a++) {
        double x[5];
        proj_jac(d, p->mu[a], r + d * a, x, NULL);
        memcpy(w.lam + d * a, x, (size_t)d * sizeof *x);
    }
    double err = measure(&w, w.lam), best = err;
    memcpy(w.best, w.lam, (size_t)m * sizeof *w.best);
    memcpy(w.v, w.vr, (size_t)n * sizeof *w.v);
    double fscale = fmax(1.0, fc_norm2(n, p->f));
    fc_status st = err <= opt->tolerance ? FC_CONVERGED : FC_MAX_ITER;
    int it = 0, outer = 0, stop = 0, krylov = 0;
    fc_log(opt, 1, "vsn: setup %.3f s, start error %.3e", setup_s, err);
    while (st != FC_CONVERGED && !stop) {
        /* inner: Newton on F(v) = M v - f - H r(v), to vsn.inner_ratio
         * times the outer error; merit 1/2 ||F||^2 */
        double eta = o->inner_ratio * fmin(err, 1.0);
        int k;
        for (k = 0; k < o->max_inner; k++) {
            eval(&w, w.v, 1);
            double fn = residual(&w, w.v), fs = fn / fscale;
            if (k > 0 && fs <= eta) break;
            if (it >= opt->max_iter) { stop = 1; break; }
            if (fc_clock_expired(&clk)) { st = FC_TIME_LIMIT; stop = 1; break; }
            double t0 = fc_now();
            assemble(&w);
            if (fc_kkt_factor(w.K, w.reg, &w.err) != FC_OK) { st = FC_STATUS_ERROR; stop = 1; break; }
            factor_s += fc_now() - t0;
            for (int i = 0; i < n; i++) w.rhs[i] = -w.F[i];
            int kits = o->krylov_tol >= 1.0 ? (fc_kkt_solve(w.K, w.rhs, w.dv, 1, &w.err) == FC_OK ? 0 : -1)
                                             : gmres(&w, w.rhs, o->krylov_tol, VSN_KRYLOV * 4, w.dv);
            if (kits < 0) { st = FC_STATUS_ERROR; stop = 1; break; }
            krylov += kits;
            it++;
            double step = 1.0, ft = fn;
            for (; step >= VSN_MIN_STEP; step *= 0.5) {
                for (int i = 0; i < n; i++) w.vt[i] = w.v[i] + step * w.dv[i];
                eval(&w, w.vt, 0);
                ft = residual(&w, w.vt);
                if (ft <= (1.0 - VSN_ARMIJO * step) * fn) break;
            }
            if (!isfinite(ft)) { st = FC_DIVERGED; stop = 1; break; }
            fc_log(opt, 2, "vsn outer %d newton %d: |F| %.3e -> %.3e, step %.3g, %d Krylov", outer, k,
                   fs, ft / fscale, step, kits);
            if (step < VSN_MIN_STEP) break;
            memcpy(w.v, w.vt, (size_t)n * sizeof *w.v);
        }
        if (st == FC_STATUS_ERROR || st == FC_DIVERGED) break;
        /* outer: lambda = r(v) */
        eval(&w, w.v, 0);
        memcpy(w.lam, w.r, (size_t)m * sizeof *w.lam);
        outer++;
        err = measure(&w, w.lam);
        if (!isfinite(err)) { st = FC_DIVERGED; break; }
        if (err < best) { best = err; memcpy(w.best, w.lam, (size_t)m * sizeof *w.best); }
        fc_log(opt, 1, "vsn outer %d: %d Newton steps, %d Krylov, error %.3e (%.3f s, factorising %.3f s)",
               outer, it, krylov, err, fc_clock_elapsed(&clk), factor_s);
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
