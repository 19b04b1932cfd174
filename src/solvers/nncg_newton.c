/* nncg's Newton-Krylov step (nncg.newton; docs/granular-piles.md).
 *
 * F(r) = [F_a(r_a, u_a)]_a with u = W r + q, F_a one of the nsn family's
 * per-contact functions (fc_nsn_contact) with penalties rho_n = 1 / W_nn,
 * rho_t = 1 / lambda_max(W_TT) per contact.  A generalised Jacobian is
 * J = A W + B (A, B block diagonal), and J x = -F is solved by GMRES(kmax)
 * with W applied by the caller's callback (on the velocity form
 * H^T (M^-1 H x): no W, no factorisation), right-preconditioned by the
 * inverses of J's diagonal blocks A_a W_aa + B_a (or by Gauss-Seidel
 * sweeps on J x = b built on them, nncg.newton_gs, or by the inverse of J
 * on each body's contacts, nncg.newton_body), to the relative
 * residual eta of Eisenstat and Walker's second forcing choice (cheap
 * early steps).  Since u is affine in r, u + t W x is exact for every
 * step length t: the Armijo line search on 1/2 ||F||^2 costs no product
 * with W.  nncg.newton_reg = s solves (J + s I) x = -F instead: the
 * packings' self-stresses make J nearly singular and GMRES stall at a
 * relative residual of 0.2-0.3 (docs/granular-piles.md). */
#include "matrix/colour.h"
#include "solvers/nncg_newton.h"
#include "solvers/nsn.h"

#include <stdio.h>

/* Forcing terms: the first one, and their range. */
#define NK_ETA0 0.5
#define NK_ETA_MIN 1e-3
#define NK_ETA_MAX 0.5
/* Eisenstat-Walker's gamma (choice 2, exponent 2). */
#define NK_GAMMA 0.9
/* Armijo's constant and the halvings of the step at most. */
#define NK_ARMIJO 1e-4
#define NK_LS_HALVINGS 12

/* Most contacts in one body block (a sphere of the piles has 4-10; a
 * body with more is split into blocks of this many). */
#define NK_BODY_MAX 16
/* A body block is refactorised only when, for one of its contacts, B_a
 * or A_a W_aa (dimensionless, O(1)) moved by more than this since the
 * block's last factorisation: the stale LU stays a preconditioner. */
#define NK_BODY_REFACTOR 0.05

#define IDX(i, j) ((i) + (j) * d)

void fc_nk_free(fc_nk *k)
{
    free(k->rho_n); free(k->rho_t); free(k->Wd);
    free(k->A); free(k->B); free(k->P);
    free(k->F); free(k->rt); free(k->ut); free(k->x); free(k->du); free(k->z);
    free(k->y2);
    free(k->V); free(k->Hs); free(k->g); free(k->cs); free(k->sn); free(k->y);
    free(k->bptr); free(k->bcon); free(k->piv); free(k->bok); free(k->boff);
    free(k->Wbk); free(k->LU); free(k->wgt); free(k->bx); free(k->Jd); free(k->Jnew); free(k->moved);
    memset(k, 0, sizeof *k);
}

/* Largest eigenvalue of the symmetric tangential block (d - 1 = 1 or 2). */
static double eig_max_t(int d, const double *W)
{
    if (d == 2) return W[IDX(1, 1)];
    double a = W[IDX(1, 1)], b = W[IDX(1, 2)], c = W[IDX(2, 2)];
    return 0.5 * (a + c) + sqrt(0.25 * (a - c) * (a - c) + b * b);
}

int fc_nk_init(fc_nk *k, int d, int nc, int kmax, int form, const fc_local *loc,
               const fc_matrix *Ht, const fc_matrix *Gt, int n, int gs)
{
    memset(k, 0, sizeof *k);
    if (Ht && Gt && gs > 0) {
        k->Ht = Ht; k->Gt = Gt; k->gs = gs;
        if (!(k->y2 = fc_calloc((size_t)n + 1, sizeof(double)))) return 1;
    }
    size_t m = (size_t)d * nc, dd = (size_t)d * d * nc + 1, kk = (size_t)kmax + 1;
    k->d = d; k->nc = nc; k->m = (int)m; k->kmax = kmax; k->form = form;
    k->rho_n = fc_calloc((size_t)nc + 1, sizeof(double));
    k->rho_t = fc_calloc((size_t)nc + 1, sizeof(double));
    k->Wd = fc_calloc(dd, sizeof(double));
    k->A = fc_calloc(dd, sizeof(double));
    k->B = fc_calloc(dd, sizeof(double));
    k->P = fc_calloc(dd, sizeof(double));
    k->F = fc_calloc(m + 1, sizeof(double));
    k->rt = fc_calloc(m + 1, sizeof(double));
    k->ut = fc_calloc(m + 1, sizeof(double));
    k->x = fc_calloc(m + 1, sizeof(double));
    k->du = fc_calloc(m + 1, sizeof(double));
    k->z = fc_calloc(m + 1, sizeof(double));
    k->V = fc_calloc(kk * m + 1, sizeof(double));
    k->Hs = fc_calloc(kk * kk, sizeof(double));
    k->g = fc_calloc(kk, sizeof(double));
    k->cs = fc_calloc(kk, sizeof(double));
    k->sn = fc_calloc(kk, sizeof(double));
    k->y = fc_calloc(kk, sizeof(double));
    if (!k->rho_n || !k->rho_t || !k->Wd || !k->A || !k->B || !k->P || !k->F || !k->rt ||
        !k->ut || !k->x || !k->du || !k->z || !k->V || !k->Hs || !k->g || !k->cs || !k->sn ||
        !k->y) {
        fc_nk_free(k);
        return 1;
    }
    for (int a = 0; a < nc; a++) {
        double *Wa = k->Wd + (size_t)d * d * a;
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++) Wa[IDX(i, j)] = loc[a].W[i + j * d];
        double wn = Wa[0], wt = eig_max_t(d, Wa);
        k->rho_n[a] = wn > 0.0 ? 1.0 / wn : 1.0;
        k->rho_t[a] = wt > 0.0 ? 1.0 / wt : k->rho_n[a];
        if (form != FC_NSN_AC && form != FC_NSN_JM) k->rho_n[a] = k->rho_t[a];
    }
    k->eta = NK_ETA0;
    return 0;
}

/* Inverse of the d x d matrix J (column-major) by Gauss-Jordan with
 * partial pivoting; 1 when (numerically) singular. */
static int small_inverse(int d, const double *J, double *Ji)
{
    double a[25], b[25], scale = 0.0;
    memcpy(a, J, (size_t)(d * d) * sizeof *a);
    for (int i = 0; i < d * d; i++) { b[i] = 0.0; scale = fmax(scale, fabs(a[i])); }
    for (int i = 0; i < d; i++) b[IDX(i, i)] = 1.0;
    if (!(scale > 0.0)) return 1;
    for (int c = 0; c < d; c++) {
        int piv = c;
        for (int i = c + 1; i < d; i++) if (fabs(a[IDX(i, c)]) > fabs(a[IDX(piv, c)])) piv = i;
        if (!(fabs(a[IDX(piv, c)]) > 1e-12 * scale)) return 1;
        if (piv != c)
            for (int j = 0; j < d; j++) {
                double t = a[IDX(c, j)]; a[IDX(c, j)] = a[IDX(piv, j)]; a[IDX(piv, j)] = t;
                t = b[IDX(c, j)]; b[IDX(c, j)] = b[IDX(piv, j)]; b[IDX(piv, j)] = t;
            }
        double inv = 1.0 / a[IDX(c, c)];
        for (int j = 0; j < d; j++) { a[IDX(c, j)] *= inv; b[IDX(c, j)] *= inv; }
        for (int i = 0; i < d; i++) {
            if (i == c || a[IDX(i, c)] == 0.0) continue;
            double f = a[IDX(i, c)];
            for (int j = 0; j < d; j++) { a[IDX(i, j)] -= f * a[IDX(c, j)]; b[IDX(i, j)] -= f * b[IDX(c, j)]; }
        }
    }
    memcpy(Ji, b, (size_t)(d * d) * sizeof *Ji);
    return 0;
}

int fc_nk_init_bodies(fc_nk *k, const int *body, int n, const fc_matrix *Ht, const fc_matrix *Gt)
{
    int d = k->d, nc = k->nc;
    int *cnt = fc_calloc((size_t)n + 2, sizeof *cnt);
    int *list = fc_calloc((size_t)2 * nc + 1, sizeof *list);
    double *x = fc_calloc((size_t)n + 1, sizeof *x);
    int ret = 1;
    if (!cnt || !list || !x) goto out;
    /* contacts of each body (CSR over body ids), then blocks of at most NK_BODY_MAX */
    fc_body_contacts(nc, n, body, cnt, list);
    int nbk = 0, total = cnt[n];
    for (int b = 0; b < n; b++) nbk += (cnt[b + 1] - cnt[b] + NK_BODY_MAX - 1) / NK_BODY_MAX;
    k->bptr = fc_calloc((size_t)nbk + 2, sizeof *k->bptr);
    k->bcon = fc_calloc((size_t)total + 1, sizeof *k->bcon);
    k->boff = fc_calloc((size_t)nbk + 2, sizeof *k->boff);
    k->bok = fc_calloc((size_t)nbk + 1, sizeof *k->bok);
    k->piv = fc_calloc((size_t)d * total + 1, sizeof *k->piv);
    k->wgt = fc_calloc((size_t)nc + 1, sizeof *k->wgt);
    k->Jd = fc_calloc((size_t)2 * d * d * nc + 1, sizeof *k->Jd);
    k->Jnew = fc_calloc((size_t)2 * d * d * nc + 1, sizeof *k->Jnew);
    k->moved = fc_calloc((size_t)nc + 1, sizeof *k->moved);
    if (!k->bptr || !k->bcon || !k->boff || !k->bok || !k->piv || !k->wgt || !k->Jd || !k->Jnew ||
        !k->moved)
        goto out;
    for (int a = 0; a < nc; a++) k->moved[a] = 1;   /* Jd = 0: the first eval moves them all anyway */
    int nb = 0, nz = 0;
    size_t off = 0;
    for (int b = 0; b < n; b++)
        for (int c = cnt[b]; c < cnt[b + 1]; c += NK_BODY_MAX) {
            int e = c + NK_BODY_MAX < cnt[b + 1] ? c + NK_BODY_MAX : cnt[b + 1];
            k->bptr[nb] = nz;
            k->boff[nb] = off;
            for (int t = c; t < e; t++) { k->bcon[nz++] = list[t]; k->wgt[list[t]] += 1.0; }
            size_t s = (size_t)d * (e - c);
            off += s * s;
            if ((int)s > k->smax) k->smax = (int)s;
            nb++;
        }
    k->bptr[nb] = nz;
    k->boff[nb] = off;
    for (int a = 0; a < nc; a++) k->wgt[a] = k->wgt[a] > 0.0 ? 1.0 / k->wgt[a] : 0.0;
    k->Wbk = fc_calloc(off + 1, sizeof *k->Wbk);
    k->LU = fc_calloc(off + 1, sizeof *k->LU);
    k->bx = fc_calloc((size_t)k->smax + 1, sizeof *k->bx);
    if (!k->Wbk || !k->LU || !k->bx) goto out;
    /* W's restriction to each block: W_ac = H_a^T (M^-1 H_c), column by column */
    for (int bb = 0; bb < nb; bb++) {
        int c0 = k->bptr[bb], nbc = k->bptr[bb + 1] - c0, s = d * nbc;
        double *Wb = k->Wbk + k->boff[bb];
        for (int jc = 0; jc < nbc; jc++)
            for (int l = 0; l < d; l++) {
                int col = d * k->bcon[c0 + jc] + l;
                for (int t = Gt->p[col]; t < Gt->p[col + 1]; t++) x[Gt->j[t]] = Gt->x[t];
                for (int ia = 0; ia < nbc; ia++)
                    for (int i = 0; i < d; i++) {
                        int row = d * k->bcon[c0 + ia] + i;
                        double v = 0.0;
                        for (int t = Ht->p[row]; t < Ht->p[row + 1]; t++) v += Ht->x[t] * x[Ht->j[t]];
                        Wb[(d * ia + i) + (size_t)(d * jc + l) * s] = v;
                    }
                for (int t = Gt->p[col]; t < Gt->p[col + 1]; t++) x[Gt->j[t]] = 0.0;
            }
    }
    k->nbk = nb;
    ret = 0;
out:
    free(cnt); free(list); free(x);
    return ret;
}

/* LU with partial pivoting of the s x s column-major a in place; 1 when
 * (numerically) singular. */
static int dense_lu(int s, double *a, int *piv)
{
    double scale = 0.0;
    for (int i = 0; i < s * s; i++) scale = fmax(scale, fabs(a[i]));
    if (!(scale > 0.0)) return 1;
    for (int c = 0; c < s; c++) {
        int p = c;
        for (int i = c + 1; i < s; i++) if (fabs(a[i + c * s]) > fabs(a[p + c * s])) p = i;
        if (!(fabs(a[p + c * s]) > 1e-12 * scale)) return 1;
        piv[c] = p;
        if (p != c)
            for (int j = 0; j < s; j++) { double t = a[c + j * s]; a[c + j * s] = a[p + j * s]; a[p + j * s] = t; }
        double inv = 1.0 / a[c + c * s];
        for (int i = c + 1; i < s; i++) a[i + c * s] *= inv;
        for (int j = c + 1; j < s; j++) {
            double f = a[c + j * s];
            if (f == 0.0) continue;
            for (int i = c + 1; i < s; i++) a[i + j * s] -= a[i + c * s] * f;
        }
    }
    return 0;
}

/* x = (LU)^-1 x for dense_lu's factors. */
static void dense_lu_solve(int s, const double *a, const int *piv, double *x)
{
    for (int c = 0; c < s; c++)   /* the rows were swapped whole: P x first, then L */
        if (piv[c] != c) { double t = x[c]; x[c] = x[piv[c]]; x[piv[c]] = t; }
    for (int c = 0; c < s; c++)
        for (int i = c + 1; i < s; i++) x[i] -= a[i + c * s] * x[c];
    for (int c = s - 1; c >= 0; c--) {
        x[c] /= a[c + c * s];
        for (int i = 0; i < c; i++) x[i] -= a[i + c * s] * x[c];
    }
}

/* The body blocks' A W + B, factorised (after eval has set A, B). */
static void body_factor(fc_nk *k)
{
    int d = k->d;
    for (int bb = 0; bb < k->nbk; bb++) {
        int c0 = k->bptr[bb], nbc = k->bptr[bb + 1] - c0, s = d * nbc, moved = 0;
        for (int ia = 0; ia < nbc; ia++) moved |= k->moved[k->bcon[c0 + ia]];
        if (!moved) continue;
        k->refactored++;
        const double *Wb = k->Wbk + k->boff[bb];
        double *J = k->LU + k->boff[bb];
        for (int ia = 0; ia < nbc; ia++) {
            size_t oo = (size_t)d * d * k->bcon[c0 + ia];
            const double *Aa = k->A + oo, *Ba = k->B + oo;
            for (int i = 0; i < d; i++)
                for (int col = 0; col < s; col++) {
                    double v = 0.0;
                    for (int l = 0; l < d; l++) v += Aa[IDX(i, l)] * Wb[(d * ia + l) + (size_t)col * s];
                    if (col / d == ia) v += Ba[IDX(i, col % d)];
                    J[(d * ia + i) + (size_t)col * s] = v;
                }
        }
        k->bok[bb] = !dense_lu(s, J, k->piv + (size_t)d * c0);
        for (int ia = 0; ia < nbc; ia++) {   /* the factorised state: the reference */
            size_t oo = (size_t)2 * d * d * k->bcon[c0 + ia];
            memcpy(k->Jd + oo, k->Jnew + oo, (size_t)(2 * d * d) * sizeof *k->Jd);
        }
    }
}

/* F at (r, u), with A, B and the block preconditioner when jac; ||F||^2. */
static double eval(fc_nk *k, const fc_problem *p, const double *r, const double *u, int jac)
{
    int d = k->d;
    double ff = 0.0;
    for (int a = 0; a < k->nc; a++) {
        size_t o = (size_t)d * a, oo = (size_t)d * d * a;
        fc_nsn_contact(k->form, d, p->mu[a], k->rho_n[a], k->rho_t[a], r + o, u + o, k->F + o,
                       jac ? k->A + oo : NULL, jac ? k->B + oo : NULL);
        for (int i = 0; i < d; i++) ff += k->F[o + i] * k->F[o + i];
        if (!jac) continue;
        for (int i = 0; i < d; i++) k->B[oo + IDX(i, i)] += k->reg;   /* J + reg I */
        double J[25];
        const double *Aa = k->A + oo, *Ba = k->B + oo, *Wa = k->Wd + oo;
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++) {
                double s = Ba[IDX(i, j)];
                for (int l = 0; l < d; l++) s += Aa[IDX(i, l)] * Wa[IDX(l, j)];
                J[IDX(i, j)] = s;
            }
        if (k->nbk) {   /* have B_a or A_a W_aa (J_aa's parts) moved since the body blocks' LU? */
            double dj = 0.0, *jn = k->Jnew + 2 * oo;
            const double *jd = k->Jd + 2 * oo;
            for (int i = 0; i < d * d; i++) {
                jn[i] = J[i] - Ba[i];
                jn[d * d + i] = Ba[i];
            }
            for (int i = 0; i < 2 * d * d; i++) dj = fmax(dj, fabs(jn[i] - jd[i]));
            k->moved[a] = !(dj <= NK_BODY_REFACTOR);
        }
        if (small_inverse(d, J, k->P + oo)) {   /* a singular block: no preconditioning there */
            memset(k->P + oo, 0, (size_t)(d * d) * sizeof *k->P);
            for (int i = 0; i < d; i++) k->P[oo + IDX(i, i)] = 1.0;
        }
    }
    if (jac && k->nbk && !k->gs) body_factor(k);
    return ff;
}

/* y = P b by k->gs forward Gauss-Seidel sweeps on J y = b from y = 0 (velocity
 * form): row a of J y is A_a H_a^T (G y) + B_a y_a, G y kept in y2. */
static void precond_gs(const fc_nk *k, const double *b, double *y)
{
    int d = k->d;
    size_t n = (size_t)k->Gt->cols;
    memset(y, 0, (size_t)k->m * sizeof *y);
    memset(k->y2, 0, n * sizeof *k->y2);
    for (int s = 0; s < k->gs; s++)
        for (int a = 0; a < k->nc; a++) {
            size_t o = (size_t)d * a, oo = (size_t)d * d * a;
            const double *Aa = k->A + oo, *Wa = k->Wd + oo, *Pa = k->P + oo;
            double wy[5], res[5];
            for (int i = 0; i < d; i++) {   /* (W y)_a without the diagonal block */
                double t = 0.0;
                for (int q = k->Ht->p[o + i]; q < k->Ht->p[o + i + 1]; q++) t += k->Ht->x[q] * k->y2[k->Ht->j[q]];
                for (int j = 0; j < d; j++) t -= Wa[IDX(i, j)] * y[o + j];
                wy[i] = t;
            }
            for (int i = 0; i < d; i++) {
                double t = b[o + i];
                for (int j = 0; j < d; j++) t -= Aa[IDX(i, j)] * wy[j];
                res[i] = t;
            }
            for (int i = 0; i < d; i++) {
                double t = 0.0;
                for (int j = 0; j < d; j++) t += Pa[IDX(i, j)] * res[j];
                double dy = t - y[o + i];
                if (dy == 0.0) continue;
                y[o + i] = t;
                for (int q = k->Gt->p[o + i]; q < k->Gt->p[o + i + 1]; q++) k->y2[k->Gt->j[q]] += dy * k->Gt->x[q];
            }
        }
}

/* y = P x by the body blocks, averaged over the blocks holding a contact;
 * a singular block's contacts take their own blocks' inverses. */
static void precond_body(const fc_nk *k, const double *x, double *y)
{
    int d = k->d;
    memset(y, 0, (size_t)k->m * sizeof *y);
    for (int bb = 0; bb < k->nbk; bb++) {
        int c0 = k->bptr[bb], nbc = k->bptr[bb + 1] - c0, s = d * nbc;
        double *z = k->bx;
        for (int ia = 0; ia < nbc; ia++)
            for (int i = 0; i < d; i++) z[d * ia + i] = x[(size_t)d * k->bcon[c0 + ia] + i];
        if (k->bok[bb]) {
            dense_lu_solve(s, k->LU + k->boff[bb], k->piv + (size_t)d * c0, z);
        } else {
            for (int ia = 0; ia < nbc; ia++) {
                const double *Pa = k->P + (size_t)d * d * k->bcon[c0 + ia];
                double t[5];
                for (int i = 0; i < d; i++) {
                    t[i] = 0.0;
                    for (int j = 0; j < d; j++) t[i] += Pa[IDX(i, j)] * z[d * ia + j];
                }
                for (int i = 0; i < d; i++) z[d * ia + i] = t[i];
            }
        }
        for (int ia = 0; ia < nbc; ia++) {
            int a = k->bcon[c0 + ia];
            for (int i = 0; i < d; i++) y[(size_t)d * a + i] += k->wgt[a] * z[d * ia + i];
        }
    }
    for (int a = 0; a < k->nc; a++) {   /* contacts of no body (none on a velocity form) */
        if (k->wgt[a] > 0.0) continue;
        const double *Pa = k->P + (size_t)d * d * a;
        for (int i = 0; i < d; i++) {
            double t = 0.0;
            for (int j = 0; j < d; j++) t += Pa[IDX(i, j)] * x[(size_t)d * a + j];
            y[(size_t)d * a + i] = t;
        }
    }
}

/* y = P x (the preconditioner). */
static void precond(const fc_nk *k, const double *x, double *y)
{
    int d = k->d;
    if (k->gs) { precond_gs(k, x, y); return; }
    if (k->nbk) { precond_body(k, x, y); return; }
    for (int a = 0; a < k->nc; a++) {
        const double *Pa = k->P + (size_t)d * d * a, *xa = x + (size_t)d * a;
        double *ya = y + (size_t)d * a;
        for (int i = 0; i < d; i++) {
            double s = 0.0;
            for (int j = 0; j < d; j++) s += Pa[IDX(i, j)] * xa[j];
            ya[i] = s;
        }
    }
}

/* y = J x = A (W x) + B x; z: m scratch. */
static void jac_apply(fc_nk *k, fc_nk_apply W, void *ctx, const double *x, double *y, double *z)
{
    int d = k->d;
    W(ctx, x, z);
    for (int a = 0; a < k->nc; a++) {
        size_t o = (size_t)d * a, oo = (size_t)d * d * a;
        const double *Aa = k->A + oo, *Ba = k->B + oo;
        for (int i = 0; i < d; i++) {
            double s = 0.0;
            for (int j = 0; j < d; j++) s += Aa[IDX(i, j)] * z[o + j] + Ba[IDX(i, j)] * x[o + j];
            y[o + i] = s;
        }
    }
}

/* GMRES(kmax), right-preconditioned, on J x = -F to ||J x + F|| <= eta ||F||;
 * x = 0 on a breakdown at the first iteration.  The iterations done. */
static int gmres(fc_nk *k, fc_nk_apply W, void *ctx, const fc_clock *clk, double fnorm)
{
    size_t m = (size_t)k->m;
    int kmax = k->kmax, ld = kmax + 1, j = 0;
    double *V = k->V, *Hs = k->Hs;
    for (size_t i = 0; i < m; i++) V[i] = -k->F[i] / fnorm;
    memset(k->g, 0, (size_t)ld * sizeof *k->g);
    k->g[0] = fnorm;
    double target = k->eta * fnorm;
    while (j < kmax) {
        double *vj = V + (size_t)j * m, *w = V + (size_t)(j + 1) * m;
        precond(k, vj, k->z);
        jac_apply(k, W, ctx, k->z, w, k->x);
        for (int i = 0; i <= j; i++) {   /* modified Gram-Schmidt */
            double h = fc_dot(k->m, w, V + (size_t)i * m);
            Hs[i + j * ld] = h;
            for (size_t t = 0; t < m; t++) w[t] -= h * V[(size_t)i * m + t];
        }
        double hn = fc_norm2(k->m, w);
        Hs[j + 1 + j * ld] = hn;
        for (int i = 0; i < j; i++) {    /* earlier rotations */
            double a = Hs[i + j * ld], b = Hs[i + 1 + j * ld];
            Hs[i + j * ld] = k->cs[i] * a + k->sn[i] * b;
            Hs[i + 1 + j * ld] = -k->sn[i] * a + k->cs[i] * b;
        }
        double a = Hs[j + j * ld], b = Hs[j + 1 + j * ld], rr = hypot(a, b);
        k->cs[j] = rr > 0.0 ? a / rr : 1.0;
        k->sn[j] = rr > 0.0 ? b / rr : 0.0;
        Hs[j + j * ld] = rr;
        Hs[j + 1 + j * ld] = 0.0;
        k->g[j + 1] = -k->sn[j] * k->g[j];
        k->g[j] = k->cs[j] * k->g[j];
        j++;
        if (!(hn > 1e-14 * fnorm) || fabs(k->g[j]) <= target || fc_clock_expired(clk)) break;
        for (size_t t = 0; t < m; t++) w[t] /= hn;
    }
    k->lin = fabs(k->g[j]) / fnorm;
    for (int i = j - 1; i >= 0; i--) {   /* H y = g, upper triangular */
        double s = k->g[i];
        for (int l = i + 1; l < j; l++) s -= Hs[i + l * ld] * k->y[l];
        k->y[i] = Hs[i + i * ld] != 0.0 ? s / Hs[i + i * ld] : 0.0;
    }
    memset(k->z, 0, m * sizeof *k->z);
    for (int i = 0; i < j; i++)
        for (size_t t = 0; t < m; t++) k->z[t] += k->y[i] * V[(size_t)i * m + t];
    precond(k, k->z, k->x);
    return j;
}

int fc_nk_step(fc_nk *k, const fc_problem *p, fc_nk_apply W, void *ctx, const fc_clock *clk,
               double *r, double *u)
{
    size_t m = (size_t)k->m;
    double ff = eval(k, p, r, u, 1), fnorm = sqrt(ff);
    if (!(fnorm > 0.0) || !isfinite(fnorm)) return 0;
    if (k->steps > 0 && k->fnorm_prev > 0.0) {   /* Eisenstat-Walker, choice 2 */
        double ratio = fnorm / k->fnorm_prev, eta = NK_GAMMA * ratio * ratio;
        double safe = NK_GAMMA * k->eta * k->eta;
        if (safe > 0.1) eta = fmax(eta, safe);
        k->eta = fmin(NK_ETA_MAX, fmax(NK_ETA_MIN, eta));
    }
    k->steps++;
    k->fnorm_prev = fnorm;
    k->krylov_its += gmres(k, W, ctx, clk, fnorm);
    W(ctx, k->x, k->du);
    double t = 1.0;
    for (int h = 0; h <= NK_LS_HALVINGS; h++, t *= 0.5) {
        for (size_t i = 0; i < m; i++) {
            k->rt[i] = r[i] + t * k->x[i];
            k->ut[i] = u[i] + t * k->du[i];
        }
        double ft = eval(k, p, k->rt, k->ut, 0);
        if (isfinite(ft) && ft <= (1.0 - NK_ARMIJO * t) * ff) {
            for (size_t i = 0; i < m; i++) k->x[i] = k->rt[i] - r[i];
            memcpy(r, k->rt, m * sizeof *r);
            memcpy(u, k->ut, m * sizeof *u);
            k->t = t;
            k->fratio = sqrt(ft) / fnorm;
            k->accepted++;
            return 1;
        }
    }
    k->t = 0.0;
    k->fratio = 1.0;
    return 0;
}
