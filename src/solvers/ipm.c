/* Primal-dual interior point for frictional contact (ipm, gipm).
 *
 * Each contact's cone {||r_T|| <= mu r_N} is the standard second-order
 * cone Q in x = (r_N, r_T / mu): r = T x with T = diag(1, mu, .., mu), and
 * the dual variable y = T (u + s) lies in Q too (x'y = r'(u + s)).  For a
 * fixed De Saxce shift s_a = (mu_a ||u_T,a||, 0, 0) the problem is a convex
 * cone complementarity problem:
 *   dual form (ipm):     min 1/2 r'Wr + (q + s)'r,  r in K
 *   primal form (gipm):  min 1/2 v'Mv - f'v,  H'v + w + s in K*,
 *                        with r the multiplier (M v = H r + f)
 * solved by a primal-dual interior point with Nesterov-Todd scaling and
 * Mehrotra's predictor-corrector (cone/soc.c).  Exact Coulomb friction is
 * the fixed point s = mu ||u_T(r)||: an outer loop re-solves with the
 * updated shift, warm-started; the equilibrium form instead updates s at
 * every interior-point step (one single run).
 *
 * Newton matrices (src/linsys/kkt.c, values updated in place):
 *   dual:    T W T + G^-2                   positive definite, LL'
 *   primal:  [M, -H T; -T H', -G^-2]        quasi-definite, LDL'
 * gipm with equality rows (G_eq, b): the multipliers lambda are free
 * unknowns after x, M v = H T x + G_eq lambda + f and G_eq'v + b = 0 the
 * linear equations: [M, -H T, -G_eq; -T H', -G^-2, 0; -G_eq', 0, 0]
 * (regularised, refined), one whole LDL'.
 */
#include "internal.h"
#include "cone/soc.h"
#include "linsys/linsys.h"
#include "measure/measure.h"

#include <stdio.h>

/* Predicted factorisation flops per second, to refuse a step that the
 * time limit cannot hold (as nsn.c and stick.c). */
#define FC_IPM_FLOPS_PER_SECOND 1e10
/* Without friction: outer iterations without halving the error before
 * the run stops. */
#define FC_IPM_FRICTIONLESS_STALL 3

typedef struct ipm {
    const fc_problem *p;
    const fc_options *opt;
    int d, nc, m, n, N;       /* N: Newton unknowns (m, or n + m)          */
    int global;
    int neq;                  /* global: equality rows, unknowns after x    */
    double *t;                /* T's diagonal (m)                           */
    fc_kkt *K;
    double *base;             /* KKT values without the scaling blocks      */
    long *blk;                /* positions of the d x d scaling blocks      */
    double *reg;              /* static regularisation (N)                  */
    double reg_scale;         /* the factor's regularisation / reg (1, 100, ...)  */
    double *z, *dz, *dza;     /* (v, x) or x: N                              */
    double *y, *dy, *dya;     /* dual cone variable: m                       */
    double *res;              /* residuals: N (global: r1 then r2)           */
    double *c;                /* dual: T (q + s); global: T (w + s) (m)      */
    double *s;                /* shift per contact (nc)                      */
    double *nt, *lam;         /* scaling (d + 1 per contact), lambda (m)     */
    double *g, *rc, *rhs, *sol, *tmp; /* m, m, N, N, m                       */
    double *r, *u;            /* current reactions and velocities (m)       */
    double *zbest, *ybest;    /* the iterate of least SPEC error            */
    double *Ghn;              /* global: H'v (m)                             */
    fc_chol *Mf;              /* global: Cholesky of M (NULL if singular)    */
    double *vr;               /* global: v = M^-1 (H r + f), consistent with r */
    double *aS, *aG;          /* Anderson: differences of s and of F(s) - s (mem x nc) */
    double *sprev, *gprev, *Fs; /* previous s, its residual, F(s) (nc)        */
    int amem, acount, ahead, npairs; /* memory, last step stored, next slot, pairs */
    double best;
    fc_clock clock;
    double t_step;            /* seconds of the last interior-point step     */
    double t_mark;            /* when the current step started               */
    int out_of_time;          /* stopped: the time left cannot hold a step   */
    int iter;                 /* interior-point steps so far                 */
    fc_error err;
} ipm;

static void ipm_free(ipm *w)
{
    fc_kkt_free(w->K);
    fc_chol_free(w->Mf);
    free(w->vr);
    free(w->t); free(w->base); free(w->blk); free(w->reg);
    free(w->z); free(w->dz); free(w->dza); free(w->y); free(w->dy); free(w->dya);
    free(w->res); free(w->c); free(w->s); free(w->nt); free(w->lam);
    free(w->g); free(w->rc); free(w->rhs); free(w->sol); free(w->tmp);
    free(w->r); free(w->u); free(w->zbest); free(w->ybest); free(w->Ghn);
    free(w->aS); free(w->aG); free(w->sprev); free(w->gprev); free(w->Fs);
}

/* The Newton matrix, its pattern with the zero scaling blocks. */
/* The primal Newton matrix with equality rows, from triplets. */
static fc_kkt *ipm_kkt_eq(ipm *w)
{
    const fc_problem *p = w->p;
    int n = w->n, m = w->m, d = w->d, neq = w->neq;
    fc_matrix *A = fc_matrix_to_csr(p->M), *H = fc_matrix_to_csr(p->H), *G = fc_matrix_to_csr(p->G);
    int *ti = NULL, *tj = NULL;
    double *tx = NULL;
    size_t nz = 0;
    if (A && H && G) {
        nz = (size_t)A->nnz + (size_t)H->nnz + (size_t)G->nnz + (size_t)w->nc * d * d + neq;
        ti = fc_calloc(nz, sizeof *ti); tj = fc_calloc(nz, sizeof *tj); tx = fc_calloc(nz, sizeof *tx);
    }
    fc_kkt *K = NULL;
    if (ti && tj && tx) {
        long k = 0;
        for (int i = 0; i < n; i++)
            for (int q = A->p[i]; q < A->p[i + 1]; q++) {
                ti[k] = i; tj[k] = A->j[q]; tx[k++] = A->x[q] * (i == A->j[q] ? 1.0 : 0.5);
            }
        for (int i = 0; i < n; i++)
            for (int q = H->p[i]; q < H->p[i + 1]; q++) {
                ti[k] = i; tj[k] = n + H->j[q]; tx[k++] = -H->x[q] * w->t[H->j[q]];
            }
        for (int i = 0; i < n; i++)
            for (int q = G->p[i]; q < G->p[i + 1]; q++) {
                ti[k] = i; tj[k] = n + m + G->j[q]; tx[k++] = -G->x[q];
            }
        for (int a = 0; a < w->nc; a++)
            for (int jj = 0; jj < d; jj++)
                for (int ii = 0; ii <= jj; ii++) {
                    ti[k] = n + d * a + ii; tj[k] = n + d * a + jj; tx[k++] = 0;
                }
        for (int j = 0; j < neq; j++) { ti[k] = tj[k] = n + m + j; tx[k++] = 0; }
        K = fc_kkt_new(w->N, k, ti, tj, tx, 1, &w->err);
    } else {
        fc_error_set(&w->err, FC_ERR_NOMEM, "out of memory building a KKT matrix");
    }
    free(ti); free(tj); free(tx);
    fc_matrix_free(A); fc_matrix_free(H); fc_matrix_free(G);
    return K;
}

static int ipm_build(ipm *w)
{
    int d = w->d, n = w->n;
    /* M and H, or W scaled by T (the dual form) */
    w->K = w->neq ? ipm_kkt_eq(w)
                  : fc_kkt_new_problem(w->p, w->global, w->global ? NULL : w->t, -1.0, w->t, 1,
                                       &w->err);
    if (!w->K) return 0;
    double *vals = fc_kkt_values(w->K);
    /* number of stored values: last diagonal position + 1 */
    long nv = fc_kkt_diag(w->K, w->N - 1) + 1;
    w->base = fc_dup(vals, (size_t)nv);
    w->blk = fc_calloc((size_t)w->nc * d * d, sizeof *w->blk);
    if (!w->base || !w->blk) return 0;
    for (int a = 0; a < w->nc; a++)      /* the contacts' rows start at n (0: local) */
        for (int jj = 0; jj < d; jj++)
            for (int ii = 0; ii < d; ii++)
                w->blk[(long)a * d * d + jj * d + ii] =
                    ii <= jj ? fc_kkt_find(w->K, n + d * a + ii, n + d * a + jj) : -1;
    return 1;
}

static int ipm_init(ipm *w, const fc_problem *p, const fc_options *opt, int global, int neq)
{
    memset(w, 0, sizeof *w);
    w->p = p; w->opt = opt; w->global = global;
    w->d = p->d; w->nc = p->nc; w->m = p->d * p->nc;
    w->n = global ? p->n : 0;
    w->neq = global ? neq : 0;
    w->N = w->n + w->m + w->neq;
    size_t m = (size_t)w->m, N = (size_t)w->N, nc = (size_t)w->nc;
    w->t = fc_calloc(m, sizeof(double));
    w->reg = fc_calloc(N, sizeof(double));
    w->z = fc_calloc(N, sizeof(double)); w->dz = fc_calloc(N, sizeof(double));
    w->dza = fc_calloc(N, sizeof(double));
    w->y = fc_calloc(m, sizeof(double)); w->dy = fc_calloc(m, sizeof(double));
    w->dya = fc_calloc(m, sizeof(double));
    w->res = fc_calloc(N, sizeof(double)); w->c = fc_calloc(m, sizeof(double));
    w->s = fc_calloc(nc, sizeof(double));
    w->nt = fc_calloc(nc * (size_t)(w->d + 1), sizeof(double));
    w->lam = fc_calloc(m, sizeof(double));
    w->g = fc_calloc(m, sizeof(double)); w->rc = fc_calloc(m, sizeof(double));
    w->rhs = fc_calloc(N, sizeof(double)); w->sol = fc_calloc(N, sizeof(double));
    w->tmp = fc_calloc(m, sizeof(double));
    w->r = fc_calloc(m, sizeof(double)); w->u = fc_calloc(m, sizeof(double));
    w->zbest = fc_calloc(N, sizeof(double)); w->ybest = fc_calloc(m, sizeof(double));
    w->Ghn = fc_calloc(m, sizeof(double));
    w->amem = opt->ipm.anderson > 0 ? (opt->ipm.anderson < 20 ? opt->ipm.anderson : 20) : 0;
    w->aS = fc_calloc(nc * (size_t)(w->amem + 1), sizeof(double));
    w->aG = fc_calloc(nc * (size_t)(w->amem + 1), sizeof(double));
    w->sprev = fc_calloc(nc, sizeof(double)); w->gprev = fc_calloc(nc, sizeof(double));
    w->Fs = fc_calloc(nc, sizeof(double));
    if (!w->t || !w->reg || !w->z || !w->dz || !w->dza || !w->y || !w->dy || !w->dya ||
        !w->res || !w->c || !w->s || !w->nt || !w->lam || !w->g || !w->rc || !w->rhs ||
        !w->sol || !w->tmp || !w->r || !w->u || !w->zbest || !w->ybest || !w->Ghn ||
        !w->aS || !w->aG || !w->sprev || !w->gprev || !w->Fs) {
        fc_error_set(&w->err, FC_ERR_NOMEM, "out of memory");
        return 0;
    }
    for (int a = 0; a < w->nc; a++) {
        w->t[w->d * a] = 1.0;
        for (int k = 1; k < w->d; k++) w->t[w->d * a + k] = p->mu[a];
    }
    if (global) {
        /* v recomputed from r (as the SPEC checker does) when M is definite */
        if (fc_matrix_asymmetry(p->M) <= FC_IPM_M_SYMMETRIC) w->Mf = fc_chol_factor(p->M, "M", NULL);
        w->vr = fc_calloc((size_t)w->n, sizeof(double));
        if (!w->vr) { fc_error_set(&w->err, FC_ERR_NOMEM, "out of memory"); return 0; }
    }
    if (!ipm_build(w)) {
        if (!w->err.code) fc_error_set(&w->err, FC_ERR_NOMEM, "out of memory");
        return 0;
    }
    /* regularisation relative to the largest diagonal entry */
    double *vals = w->base, dmax = 1e-300;
    for (int i = 0; i < w->N; i++) dmax = fmax(dmax, fabs(vals[fc_kkt_diag(w->K, i)]));
    for (int i = 0; i < w->N; i++)
        w->reg[i] = (i < w->n ? 1.0 : (global ? -1.0 : 1.0)) * opt->ipm.reg * dmax;
    /* lambda's rows: G_eq's scale on the zero block */
    for (int i = w->n + w->m; i < w->N; i++) w->reg[i] = -opt->ipm.reg * dmax;
    w->best = INFINITY;
    return 1;
}

/* r = T x, u = W r + q or H'v + w from the current iterate. */
static void ipm_physical(ipm *w)
{
    const fc_problem *p = w->p;
    const double *x = w->z + w->n;
    for (int i = 0; i < w->m; i++) w->r[i] = w->t[i] * x[i];
    if (!w->global) {
        fc_problem_u(p, w->r, w->u);
    } else {
        memcpy(w->vr, w->z, (size_t)w->n * sizeof *w->vr);
        if (w->Mf) {
            fc_matrix_gemv(p->H, 1.0, w->r, 0.0, w->vr);
            for (int i = 0; i < w->n; i++) w->vr[i] += p->f[i];
            if (w->neq) fc_matrix_gemv(p->G, 1.0, w->z + w->n + w->m, 1.0, w->vr);
            if (fc_chol_solve(w->Mf, w->vr, w->vr, NULL) != FC_OK)
                memcpy(w->vr, w->z, (size_t)w->n * sizeof *w->vr);
            /* refined against the stored M (the factor reads its upper
             * triangle: a slightly asymmetric M is solved exactly) */
            for (int it = 0; it < 3; it++) {
                double *rr = w->rhs, *dv = w->sol;
                fc_matrix_gemv(p->H, 1.0, w->r, 0.0, rr);
                for (int i = 0; i < w->n; i++) rr[i] += p->f[i];
                if (w->neq) fc_matrix_gemv(p->G, 1.0, w->z + w->n + w->m, 1.0, rr);
                fc_matrix_gemv(p->M, -1.0, w->vr, 1.0, rr);
                if (fc_norm2(w->n, rr) <= 1e-15 * (1.0 + fc_norm2(w->n, p->f))) break;
                if (fc_chol_solve(w->Mf, rr, dv, NULL) != FC_OK) break;
                for (int i = 0; i < w->n; i++) w->vr[i] += dv[i];
            }
        }
        fc_matrix_gemv_t(p->H, 1.0, w->vr, 0.0, w->Ghn);
        for (int i = 0; i < w->m; i++) w->u[i] = w->Ghn[i] + p->w[i];
    }
}

static double ipm_spec_error(ipm *w)
{
    const fc_problem *p = w->p;
    double e = fc_error_measure(w->d, w->nc, p->mu, p->mu_r, p->w ? p->w : p->q,
                                w->r, w->u, NULL);
    if (w->neq) {
        const double *lam = w->z + w->n + w->m;
        e = fmax(e, fc_dynamics_residual_eq(p, w->r, w->vr, lam));
        e = fmax(e, fc_equality_residual(p, w->r, w->vr, lam));
    } else if (w->global) {
        e = fmax(e, fc_dynamics_residual(p, w->r, w->vr));
    }
    return e;
}

/* s = mu ||u_T|| at the current u; returns max |change|. */
static double ipm_update_shift_damped(ipm *w, double theta);
static double ipm_update_shift(ipm *w) { return ipm_update_shift_damped(w, 1.0); }

/* s <- s + theta (mu ||u_T|| - s); returns max |mu ||u_T|| - s|. */
static double ipm_update_shift_damped(ipm *w, double theta)
{
    double ch = 0;
    for (int a = 0; a < w->nc; a++) {
        const double *ua = w->u + w->d * a;
        double nt = 0;
        for (int k = 1; k < w->d; k++) nt += ua[k] * ua[k];
        double s = w->p->mu[a] * sqrt(nt);
        ch = fmax(ch, fabs(s - w->s[a]));
        w->s[a] = theta == 1.0 ? s : w->s[a] + theta * (s - w->s[a]);
    }
    const double *base = w->global ? w->p->w : w->p->q;
    for (int i = 0; i < w->m; i++)
        w->c[i] = w->t[i] * (base[i] + (i % w->d == 0 ? w->s[i / w->d] : 0.0));
    return ch;
}

/* The shift's fixed point s = F(s) = mu ||u_T(r(s))|| with Anderson
 * acceleration (type II, memory amem): s+ = s + g - (dS + dG) gamma with
 * gamma minimising ||g - dG gamma|| (normal equations, k <= 20, with a
 * relative Tikhonov term), g = F(s) - s; clipped at s >= 0.  reset drops
 * the memory (the error grew: a plain damped step theta).  Returns
 * max |s+ - s|. */
static double ipm_update_shift_anderson(ipm *w, double theta, int reset)
{
    int nc = w->nc, d = w->d;
    for (int a = 0; a < nc; a++) {
        const double *ua = w->u + d * a;
        double nt = 0;
        for (int k = 1; k < d; k++) nt += ua[k] * ua[k];
        w->Fs[a] = w->p->mu[a] * sqrt(nt);
    }
    double *g = w->tmp; /* m >= nc doubles of scratch */
    for (int a = 0; a < nc; a++) g[a] = w->Fs[a] - w->s[a];
    /* acount: 1 when (sprev, gprev) hold the last step; ahead: the next
     * slot of the ring of pairs, npairs of them */
    if (reset) { w->acount = 0; w->ahead = 0; w->npairs = 0; }
    if (w->acount > 0) {
        double *dS = w->aS + (size_t)w->ahead * nc, *dG = w->aG + (size_t)w->ahead * nc;
        for (int a = 0; a < nc; a++) { dS[a] = w->s[a] - w->sprev[a]; dG[a] = g[a] - w->gprev[a]; }
        w->ahead = (w->ahead + 1) % w->amem;
        if (w->npairs < w->amem) w->npairs++;
    }
    int k = w->npairs;
    memcpy(w->sprev, w->s, (size_t)nc * sizeof *w->s);
    memcpy(w->gprev, g, (size_t)nc * sizeof *g);
    w->acount = 1;
    double gamma[20] = {0}, A[400], b[20];
    int use = k > 0;
    if (use) {
        double tr = 0;
        for (int i = 0; i < k; i++) {
            const double *gi = w->aG + (size_t)i * nc;
            b[i] = fc_dot(nc, gi, g);
            for (int j = 0; j <= i; j++) A[i * k + j] = A[j * k + i] = fc_dot(nc, gi, w->aG + (size_t)j * nc);
            tr += A[i * k + i];
        }
        for (int i = 0; i < k; i++) A[i * k + i] += 1e-10 * tr + 1e-300;
        /* Cholesky of the k x k normal matrix, in place */
        for (int j = 0; j < k && use; j++) {
            double dj = A[j * k + j];
            for (int l = 0; l < j; l++) dj -= A[j * k + l] * A[j * k + l];
            if (!(dj > 0)) { use = 0; break; }
            A[j * k + j] = sqrt(dj);
            for (int i = j + 1; i < k; i++) {
                double v = A[i * k + j];
                for (int l = 0; l < j; l++) v -= A[i * k + l] * A[j * k + l];
                A[i * k + j] = v / A[j * k + j];
            }
        }
        if (use) {
            for (int i = 0; i < k; i++) {
                double v = b[i];
                for (int l = 0; l < i; l++) v -= A[i * k + l] * gamma[l];
                gamma[i] = v / A[i * k + i];
            }
            for (int i = k - 1; i >= 0; i--) {
                double v = gamma[i];
                for (int l = i + 1; l < k; l++) v -= A[l * k + i] * gamma[l];
                gamma[i] = v / A[i * k + i];
            }
            for (int i = 0; i < k; i++) if (!isfinite(gamma[i])) use = 0;
        }
    }
    double ch = 0;
    for (int a = 0; a < nc; a++) {
        double sn = w->s[a] + (use ? g[a] : theta * g[a]);
        if (use)
            for (int i = 0; i < k; i++)
                sn -= gamma[i] * (w->aS[(size_t)i * nc + a] + w->aG[(size_t)i * nc + a]);
        if (!(sn >= 0)) sn = 0;
        ch = fmax(ch, fabs(sn - w->s[a]));
        w->s[a] = sn;
    }
    const double *base = w->global ? w->p->w : w->p->q;
    for (int i = 0; i < w->m; i++)
        w->c[i] = w->t[i] * (base[i] + (i % d == 0 ? w->s[i / d] : 0.0));
    return ch;
}

/* Residuals of the linear equations at (z, y); returns their scaled norm. */
static double ipm_residuals(ipm *w)
{
    const fc_problem *p = w->p;
    int m = w->m, n = w->n;
    const double *x = w->z + n;
    double *rd = w->res + n;
    for (int i = 0; i < m; i++) w->r[i] = w->t[i] * x[i];
    if (!w->global) {
        /* rd = T W T x + T (q + s) - y */
        fc_matrix_gemv(p->W, 1.0, w->r, 0.0, w->tmp);
        for (int i = 0; i < m; i++) rd[i] = w->t[i] * w->tmp[i] + w->c[i] - w->y[i];
        for (int i = 0; i < m; i++) w->tmp[i] *= w->t[i];
        double sc = fmax(fmax(fc_norm2(m, w->c), fc_norm2(m, w->tmp)), fc_norm2(m, w->y));
        return fc_norm2(m, rd) / fmax(sc, 1e-300);
    }
    /* r1 = M v - H T x - f,  r2 = T (H'v + w + s) - y */
    fc_matrix_gemv(p->M, 1.0, w->z, 0.0, w->res);
    double s1 = fmax(fc_norm2(n, w->res), fc_norm2(n, p->f));
    fc_matrix_gemv(p->H, -1.0, w->r, 1.0, w->res);
    for (int i = 0; i < n; i++) w->res[i] -= p->f[i];
    double r3 = 0.0;
    if (w->neq) {   /* r1 -= G_eq lambda;  r3 = G_eq'v + b */
        double *e3 = w->res + n + m;
        fc_matrix_gemv(p->G, -1.0, w->z + n + m, 1.0, w->res);
        memcpy(e3, p->b, (size_t)w->neq * sizeof *e3);
        fc_matrix_gemv_t(p->G, 1.0, w->z, 1.0, e3);
        r3 = fc_norm2(w->neq, e3) / fmax(1.0, fc_norm2(w->neq, p->b));
    }
    fc_matrix_gemv_t(p->H, 1.0, w->z, 0.0, w->Ghn);
    for (int i = 0; i < m; i++) rd[i] = w->t[i] * w->Ghn[i] + w->c[i] - w->y[i];
    for (int i = 0; i < m; i++) w->tmp[i] = w->t[i] * w->Ghn[i];
    double s2 = fmax(fmax(fc_norm2(m, w->c), fc_norm2(m, w->tmp)), fc_norm2(m, w->y));
    double r1 = fc_norm2(n, w->res) / fmax(s1, 1e-300);
    double r2 = fc_norm2(m, rd) / fmax(s2, 1e-300);
    return fmax(fmax(r1, r2), r3);
}

/* Factorise with the regularisation f times its base; on a breakdown (a
 * vanishing pivot of the ill-conditioned late iterations) retry with it
 * 100 times larger, up to 1e8 times the base; the solves refine it away. */
static int ipm_factor_retry(ipm *w, double f)
{
    for (; f <= 1e8; f *= 100.0) {
        for (int i = 0; i < w->N; i++) w->reg[i] *= f;
        fc_err e = fc_kkt_factor(w->K, w->reg, &w->err);
        for (int i = 0; i < w->N; i++) w->reg[i] /= f;
        if (e == FC_OK) { w->reg_scale = f; return 1; }
        if (e != FC_ERR_NUMERIC) return 0;
    }
    return 0;
}

/* NT scalings of every cone and the Newton matrix's values; factorise. */
static int ipm_factor(ipm *w)
{
    int d = w->d;
    double *vals = fc_kkt_values(w->K), blk[25];
    long nv = fc_kkt_diag(w->K, w->N - 1) + 1;
    memcpy(vals, w->base, (size_t)nv * sizeof *vals);
    double sign = w->global ? -1.0 : 1.0;
    int off = w->n;
    for (int a = 0; a < w->nc; a++) {
        double *nt = w->nt + (size_t)a * (d + 1);
        fc_soc_nt(d, w->z + off + d * a, w->y + d * a, nt, w->lam + d * a);
        fc_soc_nt_inv2(d, nt, blk);
        for (int jj = 0; jj < d; jj++)
            for (int ii = 0; ii <= jj; ii++)
                vals[w->blk[(long)a * d * d + jj * d + ii]] += sign * blk[jj * d + ii];
    }
    return ipm_factor_retry(w, 1.0);
}

/* Newton direction for the complementarity right-hand side rc (m):
 * lambda o (G dy + G^-1 dx) = rc, with the linear residuals in res. */
static int ipm_direction(ipm *w, const double *rc, double *dz, double *dy)
{
    int d = w->d, n = w->n, m = w->m;
    double tt[5];
    for (int a = 0; a < w->nc; a++) {
        const double *nt = w->nt + (size_t)a * (d + 1);
        fc_soc_div(d, w->lam + d * a, rc + d * a, tt);
        fc_soc_nt_apply(d, nt, 1, tt, w->g + d * a);   /* g = G^-1 (lambda \ rc) */
    }
    const double *rd = w->res + n;
    if (!w->global) {
        for (int i = 0; i < m; i++) w->rhs[i] = -rd[i] + w->g[i];
    } else {
        for (int i = 0; i < n; i++) w->rhs[i] = -w->res[i];
        for (int i = 0; i < m; i++) w->rhs[n + i] = rd[i] - w->g[i];
        for (int i = 0; i < w->neq; i++) w->rhs[n + m + i] = w->res[n + m + i];
    }
    /* a factor that no longer solves the system (no pivot vanished, but
     * the refined direction is worse than none) is redone with a stronger
     * regularisation, which the refinement then removes; smaller residuals
     * are kept, as a rank-deficient W leaves some at every regularisation
     * (docs/measurements.md, "ipm.c") */
    for (;;) {
        if (fc_kkt_solve(w->K, w->rhs, dz, w->opt->ipm.refine, &w->err) != FC_OK) return 0;
        if (fc_kkt_solve_residual(w->K) <= 1.0) break;
        if (w->reg_scale >= 1e8 || !ipm_factor_retry(w, 100.0 * w->reg_scale)) {
            fc_error_set(&w->err, FC_ERR_NUMERIC,
                         "the Newton system is not solved (relative residual %.1e) even regularised",
                         fc_kkt_solve_residual(w->K));
            return 0;
        }
    }
    /* dy = g - G^-2 dx = g - G^-1 (G^-1 dx) */
    for (int a = 0; a < w->nc; a++) {
        const double *nt = w->nt + (size_t)a * (d + 1);
        fc_soc_nt_apply(d, nt, 1, dz + n + d * a, tt);
        fc_soc_nt_apply(d, nt, 1, tt, dy + d * a);
        for (int k = 0; k < d; k++) dy[d * a + k] = w->g[d * a + k] - dy[d * a + k];
    }
    return 1;
}

static double ipm_max_step(ipm *w, const double *dz, const double *dy)
{
    double a = 1e300;
    for (int c = 0; c < w->nc; c++) {
        a = fc_soc_max_step(w->d, w->z + w->n + w->d * c, dz + w->n + w->d * c, a);
        a = fc_soc_max_step(w->d, w->y + w->d * c, dy + w->d * c, a);
    }
    return a;
}

/* Both cone vectors shifted by a common multiple of e so that each cone's
 * depth is at least margin. */
static void ipm_push_inside(ipm *w, double margin)
{
    int d = w->d;
    for (int a = 0; a < w->nc; a++) {
        double *x = w->z + w->n + d * a, *y = w->y + d * a;
        double dx = fc_soc_depth(d, x), dy = fc_soc_depth(d, y);
        if (dx > -margin) x[0] += dx + margin;
        if (dy > -margin) y[0] += dy + margin;
    }
}

/* Cold start: solve with G = I, then shift into the cones. */
static int ipm_cold_start(ipm *w)
{
    int d = w->d, m = w->m, n = w->n;
    double *vals = fc_kkt_values(w->K);
    long nv = fc_kkt_diag(w->K, w->N - 1) + 1;
    memcpy(vals, w->base, (size_t)nv * sizeof *vals);
    for (int i = 0; i < m; i++) vals[fc_kkt_diag(w->K, n + i)] += w->global ? -1.0 : 1.0;
    if (!ipm_factor_retry(w, 1.0)) return 0;
    if (!w->global) {
        for (int i = 0; i < m; i++) w->rhs[i] = -w->c[i];
    } else {
        for (int i = 0; i < n; i++) w->rhs[i] = w->p->f[i];
        for (int i = 0; i < m; i++) w->rhs[n + i] = w->c[i];
        for (int i = 0; i < w->neq; i++) w->rhs[n + m + i] = w->p->b[i];
    }
    if (fc_kkt_solve(w->K, w->rhs, w->z, w->opt->ipm.refine, &w->err) != FC_OK) return 0;
    double *x = w->z + n;
    for (int i = 0; i < m; i++) w->y[i] = -x[i];
    double ap = -INFINITY, ad = -INFINITY, scale = 0;
    for (int a = 0; a < w->nc; a++) {
        ap = fmax(ap, fc_soc_depth(d, x + d * a));
        ad = fmax(ad, fc_soc_depth(d, w->y + d * a));
    }
    for (int i = 0; i < m; i++) scale = fmax(scale, fabs(x[i]));
    double one = fmax(1.0, scale) * 1e-2;
    for (int a = 0; a < w->nc; a++) {
        if (ap >= -one) x[d * a] += ap + one;
        if (ad >= -one) w->y[d * a] += ad + one;
    }
    return 1;
}

typedef enum { INNER_DONE, INNER_STALL, INNER_LIMIT, INNER_FAIL, INNER_NAN } inner_status;

/* One cone QP for the current shift (every_step: the shift follows the
 * iterate, the equilibrium form).  Stops at relative accuracy tol. */
static inner_status ipm_inner(ipm *w, double tol, int every_step, int *stop_outer)
{
    const fc_options *opt = w->opt;
    int d = w->d, m = w->m, nc = w->nc;
    double frac = opt->ipm.step_fraction;
    double prev_merit = INFINITY;
    int stall = 0;
    for (int k = 0; k < opt->ipm.max_inner; k++) {
        if (every_step) { ipm_physical(w); ipm_update_shift(w); }
        double pres = ipm_residuals(w);
        double gap = fc_dot(m, w->z + w->n, w->y);
        double xn = fc_norm2(m, w->z + w->n), yn = fc_norm2(m, w->y);
        double rgap = gap / fmax(xn * yn, 1e-300);
        ipm_physical(w);
        double e = ipm_spec_error(w);
        if (!isfinite(e) || !fc_all_finite((size_t)w->N, w->z)) return INNER_NAN;
        if (e < w->best) {
            w->best = e;
            memcpy(w->zbest, w->z, (size_t)w->N * sizeof *w->z);
            memcpy(w->ybest, w->y, (size_t)m * sizeof *w->y);
        }
        fc_log(opt, 2, "ipm %d: res %.3e gap %.3e spec %.3e", w->iter, pres, rgap, e);
        if (opt->progress && opt->progress(opt->progress_user, w->iter, e)) { *stop_outer = 1; return INNER_LIMIT; }
        if (e <= opt->tolerance) { *stop_outer = 2; return INNER_DONE; }
        /* done; or the gap has vanished and the linear residual is at the
         * level the factorisation allows */
        if ((pres <= tol && rgap <= tol) || (pres <= 100 * tol && rgap <= 1e-3 * tol)) {
            /* ipm.convex: its own measure too, the relaxation's natural
             * map, which a small scaled gap does not guarantee */
            if (!opt->ipm.convex || fc_error_relaxation(w->p, w->r, w->u) <= opt->tolerance)
                return INNER_DONE;
        }
        /* a step (a factorisation) takes seconds on large problems: none is
         * started that the time left cannot hold, going by the last one */
        if (w->t_mark > 0) w->t_step = fc_now() - w->t_mark;
        if (w->clock.limit > 0 && (fc_clock_expired(&w->clock) ||
                                   fc_clock_elapsed(&w->clock) + w->t_step > w->clock.limit))
            w->out_of_time = 1;
        if (w->iter >= opt->max_iter || w->out_of_time) {
            *stop_outer = 1;
            return INNER_LIMIT;
        }
        w->t_mark = fc_now();
        double merit = fmax(pres, rgap);
        if (merit > 0.5 * prev_merit) { if (++stall >= (every_step ? 30 : 8)) return INNER_STALL; } else stall = 0;
        prev_merit = fmin(prev_merit, merit);
        w->iter++;
        if (!ipm_factor(w)) {
            /* a breakdown at an already accurate point ends this cone QP
             * (the outer loop goes on from it); elsewhere it is an error */
            return (pres <= 1e-6 && rgap <= 1e-6) ? INNER_STALL : INNER_FAIL;
        }
        double mu = gap / nc;
        /* predictor */
        for (int a = 0; a < nc; a++) fc_soc_prod(d, w->lam + d * a, w->lam + d * a, w->rc + d * a);
        for (int i = 0; i < m; i++) w->rc[i] = -w->rc[i];
        if (!ipm_direction(w, w->rc, w->dza, w->dya)) return INNER_FAIL;
        double aa = ipm_max_step(w, w->dza, w->dya);
        aa = fmin(1.0, aa);
        double gap_a = 0;
        for (int i = 0; i < m; i++)
            gap_a += (w->z[w->n + i] + aa * w->dza[w->n + i]) * (w->y[i] + aa * w->dya[i]);
        double sigma = pow(fmax(0.0, gap_a) / fmax(gap, 1e-300), 3);
        sigma = fmin(1.0, sigma);
        /* corrector: rc = -lam o lam - (G^-1 dxa) o (G dya) + sigma mu e */
        double t1[5], t2[5], t3[5];
        for (int a = 0; a < nc; a++) {
            const double *nt = w->nt + (size_t)a * (d + 1);
            fc_soc_nt_apply(d, nt, 1, w->dza + w->n + d * a, t1);
            fc_soc_nt_apply(d, nt, 0, w->dya + d * a, t2);
            fc_soc_prod(d, t1, t2, t3);
            for (int k2 = 0; k2 < d; k2++) w->rc[d * a + k2] -= t3[k2];
            w->rc[d * a] += sigma * mu;
        }
        if (!ipm_direction(w, w->rc, w->dz, w->dy)) return INNER_FAIL;
        double al = ipm_max_step(w, w->dz, w->dy);
        al = fmin(1.0, frac * al);
        for (int i = 0; i < w->N; i++) w->z[i] += al * w->dz[i];
        for (int i = 0; i < m; i++) w->y[i] += al * w->dy[i];
        if (al < 1e-12) return INNER_STALL;
    }
    return INNER_STALL;
}

static fc_status ipm_run(const fc_problem *p, const fc_options *opt, int global, int every_step,
                         double *r, double *u, double *v, double *lambda, fc_info *info)
{
    ipm w;
    fc_status st = FC_MAX_ITER;
    if (!ipm_init(&w, p, opt, global, lambda ? p->neq : 0)) {
        snprintf(info->message, sizeof info->message, "ipm: %.200s", w.err.msg);
        ipm_free(&w);
        return FC_STATUS_ERROR;
    }
    fc_clock_start(&w.clock, opt);
    /* a factorisation that the time limit cannot hold is not started */
    if (opt->time_limit > 0 &&
        fc_kkt_predicted_flops(w.K) / FC_IPM_FLOPS_PER_SECOND > opt->time_limit) {
        snprintf(info->message, sizeof info->message,
                 "ipm: one factorisation (%.3g flops predicted) would take longer than the time limit",
                 fc_kkt_predicted_flops(w.K));
        ipm_free(&w);
        return FC_TIME_LIMIT;
    }
    /* the initial shift from the initial guess r (u = W r + q, or for the
     * global problem from r through v is not available: s = 0) */
    if (!global && !opt->ipm.convex) {
        fc_problem_u(p, r, w.u);
        ipm_update_shift(&w);
    } else if (global && opt->ipm.shift_start && !opt->ipm.convex && w.Mf && !w.neq) {
        /* ipm.shift_start: u of the guess through v = M^-1 (H r + f) */
        for (int i = 0; i < w.m; i++) w.z[w.n + i] = w.t[i] != 0 ? r[i] / w.t[i] : 0.0;
        ipm_physical(&w);
        ipm_update_shift(&w);
    } else {
        memset(w.u, 0, (size_t)w.m * sizeof *w.u);
        ipm_update_shift(&w);
    }
    /* no friction: the shift stays 0, so the outer iterations only
     * re-solve the one cone QP more tightly; they stop after
     * FC_IPM_FRICTIONLESS_STALL without halving the error */
    int frictionless = !fc_problem_has_friction(p), no_gain = 0;
    int stop = 0, outer = 0, warm = 0, ok = ipm_cold_start(&w);
    const char *why = NULL;
    char why_buf[160];
    double tol_in = fmin(1e-4, fmax(1e-2 * opt->tolerance, 1e-14));
    /* a shift given by the guess (ipm.shift_start) is taken as good: its
     * cone QP is solved at once to a gap of tol^2 (the error goes as the
     * square root of the gap at degenerate contacts); the run still stops
     * as soon as the SPEC error meets tol */
    double tol_sq = fmax(1e-14, fmin(tol_in, opt->tolerance * opt->tolerance));
    double e_last = INFINITY, tol_cur = opt->ipm.shift_start ? tol_sq : fmax(tol_in, 1e-4);
    double tol_floor = tol_in, theta = 1.0;
    int max_outer = opt->ipm.max_outer;
    while (ok) {
        stop = 0;
        /* inexact outer iterations: each cone QP solved a hundred times
         * more accurately than the last SPEC error, down to tol_in */
        double tol_k = every_step || opt->ipm.convex ? tol_in : tol_cur;
        inner_status is = ipm_inner(&w, tol_k, every_step, &stop);
        if (every_step && w.best > opt->tolerance && w.best < INFINITY && stop == 0) {
            /* the equilibrium run stalled or broke down (its iterates lose
             * centrality as the QP moves under them every step): the
             * shift of its best iterate, a cold start, and the outer
             * fixed point from there */
            fc_log(opt, 1, "ipm: equilibrium run stalled at %.3e, outer fixed point from there", w.best);
            every_step = 0;
            memcpy(w.z, w.zbest, (size_t)w.N * sizeof *w.z);
            ipm_physical(&w);
            ipm_update_shift(&w);
            if (!(ok = ipm_cold_start(&w))) break;
            continue;
        }
        if ((is == INNER_NAN || is == INNER_FAIL) && warm) {
            /* a warm start gone wrong: the same cone QP from a cold start */
            warm = 0;
            if (!(ok = ipm_cold_start(&w))) break;
            continue;
        }
        if (is == INNER_NAN) { st = FC_DIVERGED; why = "NaN or infinite iterate"; break; }
        if (is == INNER_FAIL) { st = FC_STATUS_ERROR; why = w.err.msg; break; }
        if (stop == 2) { st = FC_CONVERGED; break; }
        if (stop == 1) {
            st = w.out_of_time || fc_clock_expired(&w.clock) ? FC_TIME_LIMIT : FC_MAX_ITER;
            why = st == FC_TIME_LIMIT ? "time limit" : "iteration limit";
            break;
        }
        if (every_step || opt->ipm.convex) {
            st = w.best <= opt->tolerance ? FC_CONVERGED : FC_MAX_ITER;
            /* ipm.convex: a solved relaxation is not Coulomb's law, which
             * the SPEC measure judges; say which of the two happened */
            if (st != FC_CONVERGED && opt->ipm.convex) {
                ipm_physical(&w);
                double erel = fc_error_relaxation(p, w.r, w.u);
                snprintf(why_buf, sizeof why_buf, "%s (its own residual %.1e); the SPEC measure judges Coulomb's law",
                         erel <= opt->tolerance ? "the convex relaxation (shift 0) is solved"
                                                : "the interior point stalled on the convex relaxation",
                         erel);
                why = why_buf;
            } else if (st != FC_CONVERGED) {
                why = "the interior point stalled";
            }
            break;
        }
        /* the fixed point on s */
        ipm_physical(&w);
        double e = ipm_spec_error(&w);
        if (++outer >= max_outer) {
            st = e <= opt->tolerance ? FC_CONVERGED : FC_MAX_ITER;
            if (st != FC_CONVERGED) why = "outer fixed-point iterations exhausted";
            break;
        }
        if (e <= opt->tolerance) { st = FC_CONVERGED; break; }
        no_gain = frictionless && e > 0.5 * e_last ? no_gain + 1 : 0;
        if (no_gain >= FC_IPM_FRICTIONLESS_STALL) {
            st = FC_MAX_ITER;
            why = "no friction and the cone QP's error no longer falls";
            break;
        }
        double smax = 1e-300;
        for (int a = 0; a < w.nc; a++) smax = fmax(smax, w.s[a]);
        for (int i = 0; i < w.m; i++) smax = fmax(smax, fabs(w.c[i]));
        double ch = w.amem > 0 ? ipm_update_shift_anderson(&w, theta, e > e_last)
                               : ipm_update_shift_damped(&w, theta);
        /* error not halving with a settled shift: the cone QPs are not
         * accurate enough (at a degenerate contact the error goes as the
         * square root of the gap), so tighten them for good; error growing:
         * the fixed point does not contract: damped updates, Anderson reset */
        tol_cur = fmax(tol_floor, fmin(tol_cur, 1e-2 * e));
        if (e > 0.5 * e_last && ch <= 0.1 * e * smax) {
            tol_floor = fmax(1e-15, 1e-2 * tol_cur);
            tol_cur = tol_floor;
        } else if (e > e_last) theta = fmax(theta * 0.5, 1.0 / 16);
        else theta = fmin(1.0, 2.0 * theta);
        e_last = e;
        fc_log(opt, 1, "ipm outer %d: spec %.3e, shift change %.3e (scale %.3e), inner tol %.1e",
               outer, e, ch, smax, tol_cur);
        if (opt->ipm.warm_start) {
            /* keep x; y follows the new shift; both pushed inside by a
             * margin tied to the change of the shift */
            double margin = fmax(ch, 1e-13 * fmax(fc_norm2(w.m, w.c), fc_norm2(w.m, w.y)));
            ipm_residuals(&w);
            for (int i = 0; i < w.m; i++) w.y[i] += w.res[w.n + i]; /* dual equation exact */
            ipm_push_inside(&w, margin);
            warm = 1;
        } else {
            ok = ipm_cold_start(&w);
        }
    }
    if (!ok && st != FC_DIVERGED) { st = FC_STATUS_ERROR; why = w.err.msg; }
    /* return the best iterate seen by the SPEC measure; ipm.convex: the
     * last (finite) one, the relaxation's solution, which the measure of
     * Coulomb's law does not rank */
    int keep_last = opt->ipm.convex && fc_all_finite((size_t)w.N, w.z);
    if (w.best < INFINITY && !keep_last) memcpy(w.z, w.zbest, (size_t)w.N * sizeof *w.z);
    ipm_physical(&w);
    if (fc_all_finite((size_t)w.m, w.r) && fc_all_finite((size_t)w.m, w.u) &&
        (!global || fc_all_finite((size_t)w.n, w.vr))) {
        memcpy(r, w.r, (size_t)w.m * sizeof *r);
        memcpy(u, w.u, (size_t)w.m * sizeof *u);
        if (v && global) memcpy(v, w.vr, (size_t)w.n * sizeof *v);
        if (w.neq) memcpy(lambda, w.z + w.n + w.m, (size_t)w.neq * sizeof *lambda);
    } else {
        /* no finite iterate at all (overflow from the first step): the
         * initial guess r, as given, is the last finite one */
        st = FC_DIVERGED;
        why = "no finite iterate";
        if (!fc_all_finite((size_t)w.m, r)) memset(r, 0, (size_t)w.m * sizeof *r);
    }
    info->iterations = w.iter;
    if (why) snprintf(info->message, sizeof info->message, "%.200s (after %d outer iterations)", why, outer);
    ipm_free(&w);
    return st;
}

static fc_status ipm_check(const fc_problem *p, fc_info *info)
{
    if (p->d != 2 && p->d != 3) {
        snprintf(info->message, sizeof info->message, "ipm handles d = 2 and 3 only");
        return FC_STATUS_ERROR;
    }
    return FC_CONVERGED;
}

fc_status fc_ipm_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                       fc_info *info)
{
    if (ipm_check(p, info) != FC_CONVERGED) return FC_STATUS_ERROR;
    /* on a local problem only the dual form applies (no M, no H) */
    int every = opt->ipm.formulation == FC_IPM_EQUILIBRIUM;
    return ipm_run(p, opt, 0, every, r, u, NULL, NULL, info);
}

fc_status fc_gipm_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                        double *v, fc_info *info)
{
    if (ipm_check(p, info) != FC_CONVERGED) return FC_STATUS_ERROR;
    int form = opt->ipm.formulation == FC_IPM_AUTO ? FC_IPM_PRIMAL : opt->ipm.formulation;
    if (form == FC_IPM_DUAL) {
        /* the reactions' cone QP: W = H' M^-1 H formed */
        fc_problem *loc = NULL;
        fc_error err;
        if (fc_problem_reduce(p, &loc, &err) != FC_OK) {
            snprintf(info->message, sizeof info->message, "%.200s", err.msg);
            return FC_STATUS_ERROR;
        }
        fc_status st = ipm_run(loc, opt, 0, 0, r, u, NULL, NULL, info);
        fc_problem_free(loc);
        if (v && fc_problem_recover_v(p, r, v, &err) != FC_OK) return FC_STATUS_ERROR;
        return st;
    }
    return ipm_run(p, opt, 1, form == FC_IPM_EQUILIBRIUM, r, u, v, NULL, info);
}

/* gipm with equality rows: the primal form (or the equilibrium form when
 * asked); the dual form would need W, V, R formed. */
fc_status fc_gipm_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                           double *v, double *lambda, fc_info *info)
{
    if (ipm_check(p, info) != FC_CONVERGED) return FC_STATUS_ERROR;
    return ipm_run(p, opt, 1, opt->ipm.formulation == FC_IPM_EQUILIBRIUM, r, u, v, lambda, info);
}
