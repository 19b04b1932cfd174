/* nncg.cluster (nncg_cluster.h).  A cluster is a block of Gauss-Seidel
 * solved exactly: with the other contacts' r fixed, its contacts see
 * u_c = W_cc r_c + q_c, q_c = H_c^T v + w_c - W_cc r_c (v the current
 * velocity), W_cc = H_c^T M^-1 H_c from the rows of H^T and G^T.  The
 * Alart-Curnier function of the small problem is driven to zero by
 * Levenberg-Marquardt steps (J^T J + lambda I, Cholesky by LAPACK): W_cc
 * is singular on hyperstatic clusters (more contact unknowns than body
 * dofs), where plain Newton's J is singular too. */
#include "internal.h"
#include "matrix/colour.h"
#include "measure/measure.h"
#include "solvers/nsn.h"
#include "solvers/nncg_cluster.h"
#include "solvers/nncg_focus.h"
#include "matrix/bsr.h"

#include <lapacke.h>

/* Armijo's slope fraction and the step halvings at most per line search. */
#define CLUSTER_ARMIJO 1e-4
#define CLUSTER_HALVINGS 20
/* lambda = this x ||F|| / ||r|| x the mean diagonal of J^T J, at most
 * CLUSTER_LM_MAX of it: the Levenberg-Marquardt shift that vanishes as
 * F does (local fast convergence) and keeps J^T J definite. */
#define CLUSTER_LM 1.0
#define CLUSTER_LM_MAX 1e-2
#define CLUSTER_LM_MIN 1e-12
/* The shortest fraction of a cluster's step tried. */
#define CLUSTER_T_MIN (1.0 / 16)

int fc_cluster_init(fc_cluster *c, int d, int nc, int n, int cap, const int *body, int nbodies)
{
    memset(c, 0, sizeof *c);
    if (cap > nc) cap = nc;
    c->d = d; c->nc = nc; c->n = n; c->cap = cap; c->body = body;
    size_t m = (size_t)d * cap;
    c->bptr = fc_calloc((size_t)nbodies + 2, sizeof *c->bptr);
    c->bcon = fc_calloc((size_t)2 * nc + 1, sizeof *c->bcon);
    c->taken = fc_calloc((size_t)nc + 1, 1);
    c->mem = fc_calloc((size_t)cap + 1, sizeof *c->mem);
    c->err = fc_calloc((size_t)nc + 1, sizeof *c->err);
    c->near = fc_calloc((size_t)nc + 1, 1);
    c->set = fc_calloc((size_t)nc + 1, sizeof *c->set);
    double **big[] = {&c->sr, &c->sdr, &c->su, &c->sdu};
    for (size_t k = 0; k < sizeof big / sizeof big[0]; k++)
        if (!(*big[k] = fc_calloc((size_t)d * nc + 1, sizeof **big[k]))) return 1;
    c->x = fc_calloc((size_t)n + 1, sizeof *c->x);
    c->W = fc_calloc(m * m + 1, sizeof *c->W);
    c->J = fc_calloc(m * m + 1, sizeof *c->J);
    c->JJ = fc_calloc(m * m + 1, sizeof *c->JJ);
    double **vec[] = {&c->q, &c->r, &c->r0, &c->u, &c->F, &c->g, &c->dr, &c->rt, &c->ut, &c->Ft, &c->rho};
    for (size_t k = 0; k < sizeof vec / sizeof vec[0]; k++)
        if (!(*vec[k] = fc_calloc(m + 1, sizeof **vec[k]))) return 1;
    c->muc = fc_calloc((size_t)cap + 1, sizeof *c->muc);
    c->A = fc_calloc(m * d + 1, sizeof *c->A);
    c->B = fc_calloc(m * d + 1, sizeof *c->B);
    if (!c->bptr || !c->bcon || !c->taken || !c->near || !c->set || !c->mem || !c->err || !c->x || !c->W || !c->J || !c->JJ ||
        !c->muc || !c->A || !c->B)
        return 1;
    fc_body_contacts(nc, nbodies, body, c->bptr, c->bcon);
    return 0;
}

void fc_cluster_free(fc_cluster *c)
{
    free(c->bptr); free(c->bcon); free(c->taken); free(c->mem); free(c->err); free(c->x);
    free(c->W); free(c->J); free(c->JJ);
    free(c->q); free(c->r); free(c->r0); free(c->u); free(c->F); free(c->g); free(c->dr);
    free(c->rt); free(c->ut); free(c->Ft); free(c->rho); free(c->muc);
    free(c->near); free(c->set); free(c->sr); free(c->sdr); free(c->su); free(c->sdu); free(c->A); free(c->B);
    memset(c, 0, sizeof *c);
}

/* The cluster grown from seed over the body graph, breadth first, up to
 * cap contacts not taken by an earlier cluster of the pass (chains: the
 * sticking ones only); its size. */
static int grow(fc_cluster *c, const double *mu, const double *r, int seed, int chains)
{
    int size = 0, head = 0, d = c->d;
    c->mem[size++] = seed;
    c->taken[seed] = 1;
    while (head < size && size < c->cap) {
        int a = c->mem[head++];
        for (int e = 0; e < 2 && size < c->cap; e++) {
            int b = c->body[2 * a + e];
            if (b < 0) continue;
            for (int t = c->bptr[b]; t < c->bptr[b + 1] && size < c->cap; t++) {
                int k = c->bcon[t];
                if (c->taken[k] ||
                    (chains && fc_focus_status(d, mu[k], r + (size_t)d * k) != FC_FOCUS_STICK))
                    continue;
                c->taken[k] = 1;
                c->mem[size++] = k;
            }
        }
    }
    return size;
}

/* u = W r + q (m x m dense, column-major). */
static void affine(int m, const double *W, const double *r, const double *q, double *u)
{
    memcpy(u, q, (size_t)m * sizeof *u);
    for (int j = 0; j < m; j++) {
        double rj = r[j];
        if (rj == 0.0) continue;
        const double *col = W + (size_t)j * m;
        for (int i = 0; i < m; i++) u[i] += col[i] * rj;
    }
}

/* The Alart-Curnier F at (r, u) (A, B its blocks when not NULL); returns
 * ||F||^2, *nat the natural-map error's square. */
static double eval(const fc_cluster *c, int mc, const double *mu, const double *r, const double *u,
                   double *F, double *A, double *B, double *nat)
{
    int d = c->d;
    double ff = 0.0, ee = 0.0;
    for (int k = 0; k < mc; k++) {
        const double *ra = r + d * k, *ua = u + d * k;
        double e[5];
        fc_nsn_contact(FC_NSN_AC, d, mu[k], c->rho[d * k], c->rho[d * k + 1], ra, ua, F + d * k,
                       A ? A + (size_t)d * d * k : NULL, B ? B + (size_t)d * d * k : NULL);
        fc_contact_residual(d, mu[k], 0.0, ra, ua, e);
        for (int l = 0; l < d; l++) {
            ff += F[d * k + l] * F[d * k + l];
            ee += e[l] * e[l];
        }
    }
    *nat = ee;
    return ff;
}

/* Sum of the squared natural-map errors of the ns contacts S (set[]) at
 * r0 + t dr, u0 + t du (their entries in S's order). */
static double set_error(const fc_cluster *c, const fc_problem *p, int ns, double t)
{
    int d = c->d;
    double s = 0.0;
    for (int i = 0; i < ns; i++) {
        double ra[5], ua[5], e[5];
        for (int l = 0; l < d; l++) {
            ra[l] = c->sr[d * i + l] + t * c->sdr[d * i + l];
            ua[l] = c->su[d * i + l] + t * c->sdu[d * i + l];
        }
        fc_contact_residual(d, p->mu[c->set[i]], 0.0, ra, ua, e);
        for (int l = 0; l < d; l++) s += e[l] * e[l];
    }
    return s;
}

/* The cluster's step dr = rt - r0 taken at the t in 1, 1/2, ... that
 * lowers most the error of the contacts it changes (the cluster and
 * every contact sharing a body with it: the other contacts' u do not
 * move), so a pass never raises the problem's error; none: 0. */
static int settle(fc_cluster *c, const fc_problem *p, const fc_matrix *Ht, const fc_matrix *Gt,
                  const double *w, int mc, double *r, double *v)
{
    int d = c->d, m = d * mc, ns = 0;
    double *x = c->x;
    for (int ic = 0; ic < m; ic++) {   /* x = M^-1 H_c dr */
        int j = d * c->mem[ic / d] + ic % d;
        double dr = c->rt[ic] - c->r0[ic];
        if (dr != 0.0)
            for (int t = Gt->p[j]; t < Gt->p[j + 1]; t++) x[Gt->j[t]] += dr * Gt->x[t];
    }
    for (int k = 0; k < mc; k++) {
        c->near[c->mem[k]] = 1;
        c->set[ns++] = c->mem[k];
    }
    for (int k = 0; k < mc; k++)
        for (int e = 0; e < 2; e++) {
            int b = c->body[2 * c->mem[k] + e];
            if (b < 0) continue;
            for (int t = c->bptr[b]; t < c->bptr[b + 1]; t++)
                if (!c->near[c->bcon[t]]) {
                    c->near[c->bcon[t]] = 1;
                    c->set[ns++] = c->bcon[t];
                }
        }
    for (int i = 0; i < ns; i++) {
        int a = c->set[i];
        for (int l = 0; l < d; l++) {
            int row = d * a + l;
            c->sr[d * i + l] = r[row];
            c->sdr[d * i + l] = i < mc ? c->rt[d * i + l] - c->r0[d * i + l] : 0.0;
            c->su[d * i + l] = csr_row_dot(Ht, row, v) + w[row];
            c->sdu[d * i + l] = csr_row_dot(Ht, row, x);
            c->work += 4.0 * (Ht->p[row + 1] - Ht->p[row]);
        }
        c->near[a] = 0;
    }
    double e0 = set_error(c, p, ns, 0.0), eb = e0, tb = 0.0;
    for (double t = 1.0; t >= CLUSTER_T_MIN; t *= 0.5) {
        double et = set_error(c, p, ns, t);
        if (et < eb) { eb = et; tb = t; }
        if (tb > 0.0 && et >= eb) break;   /* past the best */
    }
    if (tb > 0.0)
        for (int ic = 0; ic < m; ic++) {
            int j = d * c->mem[ic / d] + ic % d;
            double dr = c->rt[ic] - c->r0[ic];
            r[j] = c->r0[ic] + tb * dr;
            if (dr != 0.0)
                for (int t = Gt->p[j]; t < Gt->p[j + 1]; t++) v[Gt->j[t]] += tb * dr * Gt->x[t];
        }
    for (int ic = 0; ic < m; ic++) {
        int j = d * c->mem[ic / d] + ic % d;
        for (int t = Gt->p[j]; t < Gt->p[j + 1]; t++) x[Gt->j[t]] = 0.0;
    }
    if (tb == 0.0) return 0;
    c->improved++;
    c->tsum += tb;
    return 1;
}

/* The cluster mem[0 .. mc-1] solved in place of r, v updated.  1 when r
 * moved (its natural-map error fell), else 0. */
static int solve_one(fc_cluster *c, const fc_problem *p, const fc_matrix *Ht, const fc_matrix *Gt,
                     const double *w, int mc, double tol, int newton_max, double *r, double *v)
{
    int d = c->d, m = d * mc;
    double *W = c->W, *J = c->J, *JJ = c->JJ, *x = c->x;
    /* W_cc = H_c^T (M^-1 H_c), column by column through x */
    double rows = 0.0;   /* the cluster's entries of Ht */
    for (int ic = 0; ic < m; ic++) {
        int i = d * c->mem[ic / d] + ic % d;
        rows += Ht->p[i + 1] - Ht->p[i];
    }
    c->work += 2.0 * m * rows;
    for (int jc = 0; jc < m; jc++) {
        int j = d * c->mem[jc / d] + jc % d;
        for (int t = Gt->p[j]; t < Gt->p[j + 1]; t++) x[Gt->j[t]] = Gt->x[t];
        for (int ic = 0; ic < m; ic++) W[ic + (size_t)jc * m] = csr_row_dot(Ht, d * c->mem[ic / d] + ic % d, x);
        for (int t = Gt->p[j]; t < Gt->p[j + 1]; t++) x[Gt->j[t]] = 0.0;
    }
    for (int jc = 0; jc < m; jc++)
        for (int ic = 0; ic < jc; ic++)
            W[ic + (size_t)jc * m] = W[jc + (size_t)ic * m] =
                0.5 * (W[ic + (size_t)jc * m] + W[jc + (size_t)ic * m]);
    for (int k = 0; k < mc; k++) {
        int a = c->mem[k];
        c->muc[k] = p->mu[a];
        for (int l = 0; l < d; l++) {
            c->r0[d * k + l] = c->r[d * k + l] = r[d * a + l];
            c->u[d * k + l] = csr_row_dot(Ht, d * a + l, v) + w[d * a + l];
        }
        /* rho: the inverse of W_aa's normal and tangential diagonal */
        double wn = W[(size_t)(d * k) * (m + 1)], wt = 0.0;
        for (int l = 1; l < d; l++) wt = fmax(wt, W[(size_t)(d * k + l) * (m + 1)]);
        c->rho[d * k] = wn > 0.0 ? 1.0 / wn : 1.0;
        for (int l = 1; l < d; l++) c->rho[d * k + l] = wt > 0.0 ? 1.0 / wt : c->rho[d * k];
    }
    /* q_c = u_c - W_cc r_c */
    affine(m, W, c->r, c->u, c->q);   /* W r + u, then u - W r */
    for (int i = 0; i < m; i++) c->q[i] = 2.0 * c->u[i] - c->q[i];
    double nat0, nat, best = INFINITY;
    double ff = eval(c, mc, c->muc, c->r, c->u, c->F, c->A, c->B, &nat0);
    nat = nat0;
    double target = tol * tol * nat0;
    int it = 0;
    memcpy(c->rt, c->r, (size_t)m * sizeof *c->rt);   /* rt: the best iterate */
    best = nat0;
    double rn = 0.0;
    for (int i = 0; i < m; i++) rn += c->r0[i] * c->r0[i];
    rn = sqrt(rn);
    while (it < newton_max && nat > target && ff > 0.0) {
        it++;
        /* J = A W + B, by the contacts' block rows */
        for (int k = 0; k < mc; k++) {
            const double *Ak = c->A + (size_t)d * d * k, *Bk = c->B + (size_t)d * d * k;
            for (int jc = 0; jc < m; jc++)
                for (int i = 0; i < d; i++) {
                    double s = 0.0;
                    for (int l = 0; l < d; l++) s += Ak[i + l * d] * W[d * k + l + (size_t)jc * m];
                    J[d * k + i + (size_t)jc * m] = s;
                }
            for (int i = 0; i < d; i++)
                for (int l = 0; l < d; l++) J[d * k + i + (size_t)(d * k + l) * m] += Bk[i + l * d];
        }
        /* J^T J + lambda I, g = J^T F */
        double tr = 0.0;
        for (int jc = 0; jc < m; jc++) {
            const double *cj = J + (size_t)jc * m;
            double s = 0.0;
            for (int k = 0; k < m; k++) s += cj[k] * c->F[k];
            c->g[jc] = s;
            for (int ic = 0; ic <= jc; ic++) {
                const double *ci = J + (size_t)ic * m;
                double t = 0.0;
                for (int k = 0; k < m; k++) t += ci[k] * cj[k];
                JJ[ic + (size_t)jc * m] = t;
            }
            tr += JJ[jc + (size_t)jc * m];
        }
        double lam = fmin(CLUSTER_LM_MAX, CLUSTER_LM * sqrt(ff) / fmax(rn, 1e-300));
        lam = fmax(lam, CLUSTER_LM_MIN) * fmax(tr / m, 1e-300);
        for (int i = 0; i < m; i++) {
            JJ[i + (size_t)i * m] += lam;
            c->dr[i] = -c->g[i];
        }
        if (LAPACKE_dposv(LAPACK_COL_MAJOR, 'U', m, 1, JJ, m, c->dr, m) != 0) break;
        double slope = 0.0;
        for (int i = 0; i < m; i++) slope += c->g[i] * c->dr[i];
        if (!(slope < 0.0)) break;
        /* Armijo on ||F||^2 / 2 from the full step */
        double t = 1.0, fft = INFINITY, natt = INFINITY;
        int h;
        for (h = 0; h < CLUSTER_HALVINGS; h++, t *= 0.5) {
            for (int i = 0; i < m; i++) c->Ft[i] = c->r[i] + t * c->dr[i];   /* Ft: the trial r */
            affine(m, W, c->Ft, c->q, c->ut);
            fft = eval(c, mc, c->muc, c->Ft, c->ut, c->g, NULL, NULL, &natt);   /* g: the trial F */
            if (0.5 * fft <= 0.5 * ff + CLUSTER_ARMIJO * t * slope) break;
        }
        /* J, J^T J, its Cholesky factor and the line search's products */
        c->work += 2.0 * d * m * m + (double)m * m * m + m * m * (double)m / 3.0 + 2.0 * (h + 1) * m * m;
        if (h == CLUSTER_HALVINGS) break;
        memcpy(c->r, c->Ft, (size_t)m * sizeof *c->r);
        memcpy(c->u, c->ut, (size_t)m * sizeof *c->u);
        ff = eval(c, mc, c->muc, c->r, c->u, c->F, c->A, c->B, &nat);
        if (nat < best) {
            best = nat;
            memcpy(c->rt, c->r, (size_t)m * sizeof *c->rt);
        }
    }
    c->newton += it;
    c->solves++;
    if (!(best < nat0)) return 0;
    return settle(c, p, Ht, Gt, w, mc, r, v);
}

int fc_cluster_pass(fc_cluster *c, const fc_problem *p, const fc_matrix *Ht, const fc_matrix *Gt,
                    const double *w, const double *u, int count, int chains, double newton_tol,
                    int newton_max, double *r, double *v)
{
    int d = c->d, moved = 0;
    for (int a = 0; a < c->nc; a++) {
        double e[5];
        fc_contact_residual(d, p->mu[a], 0.0, r + (size_t)d * a, u + (size_t)d * a, e);
        c->err[a] = fc_norm_small(d, e);
    }
    double all = 0.0, in = 0.0;
    for (int a = 0; a < c->nc; a++) all += c->err[a] * c->err[a];
    for (int a = 0; a < c->nc; a++) c->taken[a] = 0;
    for (int k = 0; k < count; k++) {
        int seed = -1;
        double top = 0.0;
        for (int a = 0; a < c->nc; a++)
            if (!c->taken[a] && c->err[a] > top) { top = c->err[a]; seed = a; }
        if (seed < 0) break;
        int mc = grow(c, p->mu, r, seed, chains);
        c->contacts += mc;
        for (int i = 0; i < mc; i++) in += c->err[c->mem[i]] * c->err[c->mem[i]];
        if (solve_one(c, p, Ht, Gt, w, mc, newton_tol, newton_max, r, v)) moved += mc;
    }
    c->share = all > 0.0 ? in / all : 0.0;
    return moved;
}
