/* nncg: nonsmooth nonlinear conjugate gradient (Silcowitz, Niebe and
 * Erleben 2010) over Gauss-Seidel sweeps, for large dense packings.
 * One iteration: x+ = sweep(x); g = x+ - x; beta = ||g||^2 / ||g_prev||^2;
 * beta > nncg.restart restarts (p = g), else x+ += beta p and p = beta p + g
 * (the paper restarts above 1; 1.5 halves the sweeps on the piles,
 * docs/granular-piles.md).
 *
 * On a global problem whose M is block diagonal with small blocks (rigid
 * bodies), the sweeps run on the velocity form as nsgs-v does, with
 * G = M^-1 H formed block by block (no factorisation, no W), and the
 * contacts are ordered along the load path: breadth first over the
 * contact graph from the supports (contacts touching one body only, i.e.
 * the fixed obstacles), nncg.order.  Any other global problem is reduced
 * to W and solved in the local form, where the order is the file order.
 * docs/granular-piles.md: the approaches tried and the choice. */
#include "internal.h"
#include "cone/cone.h"
#include "matrix/bsr.h"
#include "problem/reduce.h"
#include "core/firstorder.h"
#include "solvers/nncg.h"

#include <stdio.h>

/* Largest diagonal block of M inverted densely (6: a rigid body). */
#define NNCG_MAX_BLOCK 12
/* Most blocks of M one column of H touches (else: the reduced form). */
#define NNCG_ROW_BLOCKS 64
/* Most sweeps between two measurements of the error. */
#define NNCG_MEASURE_GAP 8
/* Measure when the predicted error is below this many times the tolerance. */
#define NNCG_PREDICT_MARGIN 2.0

typedef struct nncg_work {
    int d, nc, m, n;
    /* velocity form (global): Ht rows = contacts' directions, Gt rows = M^-1 H columns */
    fc_matrix *Ht, *Gt;
    const double *w;
    double *v, *vp, *vx;    /* n: velocity, G p, v at the sweep's start */
    /* local form */
    const fc_matrix *W;
    fc_matrix *Wb;
    const double *q;
    fc_local *loc;
    int *order;
    double *x, *pdir, *best;   /* m */
    /* coarse correction (velocity form, nncg.coarse): Z's columns are, per
     * aggregate of contacts, the current reactions on it (scaling) and,
     * with coarse 2, the unit normals on it (a uniform normal increment) */
    int ncol, nagg, k, stamp;
    double trial, cnorm;       /* the last coarse step's error (kept or not), max |c| */
    int *agg;                  /* nc: the aggregate of each contact */
    fc_matrix *Hc, *Gc;        /* H and M^-1 H with dofs as rows */
    int *mark, *list;          /* k: per-dof list of the columns touched */
    double *C, *rhs, *cc, *yb, *xb;   /* k x k coarse matrix Z'WZ; k each */
    double *rsave, *vsave;     /* m, n: the iterate before a coarse step */
    /* rigid clusters (nncg.coarse 3): bodies = M's 6-dof blocks (translation
     * then rotation, world frame), clusters of bodies; Z's columns per
     * cluster and rigid mode: the least-norm reactions of the closed
     * contacts touching the cluster that give its bodies the momentum
     * M P_ck of the rigid mode (so that G Z is about P) */
    int nbody, ncl, amax_r, amax_c;
    int *bdof;                 /* 6 nbody: body b's dofs */
    int *body_of;              /* n: the body of a dof (-1: none) */
    int *cbody;                /* 2 nc: a contact's bodies (-1: none) */
    int *cl, *cbp, *cbi;       /* a body's cluster; clusters' bodies (CSR) */
    int *ccp, *cci, *ccl, *cent;   /* clusters' contacts (CSR), entry's cluster, 2 nc entries of a contact */
    int *lrow;                 /* n: a dof's row in its cluster's A */
    double *pos, *xc;          /* 3 nbody positions (from the lever arms), 3 ncl centroids */
    double *zv;                /* 18 per cluster-contact entry: Z's values */
    double *A, *AA, *bk;       /* amax_r x amax_c, amax_r^2, amax_r */
    fc_matrix *Mc;             /* M by rows */
} nncg_work;

static void work_free(nncg_work *w)
{
    fc_matrix_free(w->Ht);
    fc_matrix_free(w->Gt);
    fc_matrix_free(w->Wb);
    free(w->v); free(w->vp); free(w->vx);
    free(w->loc); free(w->order);
    free(w->x); free(w->pdir); free(w->best);
    free(w->agg); fc_matrix_free(w->Hc); fc_matrix_free(w->Gc);
    free(w->mark); free(w->list);
    free(w->C); free(w->rhs); free(w->cc); free(w->yb); free(w->xb);
    free(w->rsave); free(w->vsave);
    free(w->bdof); free(w->body_of); free(w->cbody); free(w->cl); free(w->cbp); free(w->cbi);
    free(w->ccp); free(w->cci); free(w->ccl); free(w->cent); free(w->lrow);
    free(w->pos); free(w->xc); free(w->zv); free(w->A); free(w->AA); free(w->bk);
    fc_matrix_free(w->Mc);
}

static double row_dot(const fc_matrix *A, int i, const double *x)
{
    double s = 0.0;
    for (int k = A->p[i]; k < A->p[i + 1]; k++) s += A->x[k] * x[A->j[k]];
    return s;
}

/* One contact in the velocity form: qa = H_a^T v + w_a - W_aa r_a. */
static void contact_v(nncg_work *w, const fc_local_params *par, int a, double *r)
{
    int d = w->d;
    double qa[5] = {0}, ra[5] = {0}, *rp = r + (size_t)d * a;
    for (int k = 0; k < d; k++) {
        qa[k] = row_dot(w->Ht, d * a + k, w->v) + w->w[d * a + k];
        for (int l = 0; l < d; l++) qa[k] -= w->loc[a].W[k + l * d] * rp[l];
        ra[k] = rp[k];
    }
    fc_local_solve(&w->loc[a], qa, par, ra);
    for (int k = 0; k < d; k++) {
        double dr = ra[k] - rp[k];
        if (dr == 0.0) continue;
        int j = d * a + k;
        for (int t = w->Gt->p[j]; t < w->Gt->p[j + 1]; t++) w->v[w->Gt->j[t]] += dr * w->Gt->x[t];
        rp[k] = ra[k];
    }
}

/* One contact in the local form: qa = sum_{b != a} W_ab r_b + q_a. */
static void contact_w(nncg_work *w, const fc_local_params *par, int a, double *r)
{
    int d = w->d;
    double qa[5] = {0}, *rp = r + (size_t)d * a;
    int bsr = w->W->kind == FC_MAT_BSR && w->W->bs == d;
    if (bsr && d == 3) bsr_row_dot(w->W, 3, a, r, 1, qa);
    else if (bsr && d == 2) bsr_row_dot(w->W, 2, a, r, 1, qa);
    else fc_matrix_block_row_dot(w->W, a, d, r, 1, qa);
    for (int k = 0; k < d; k++) qa[k] += w->q[(size_t)d * a + k];
    fc_local_solve(&w->loc[a], qa, par, rp);
}

/* One sweep in w->order (forward, then backward when symmetric). */
static void sweep(nncg_work *w, const fc_local_params *par, int symmetric, double *r)
{
    for (int i = 0; i < w->nc; i++) {
        if (w->Gt) contact_v(w, par, w->order[i], r);
        else contact_w(w, par, w->order[i], r);
    }
    if (!symmetric) return;
    for (int i = w->nc - 1; i >= 0; i--) {
        if (w->Gt) contact_v(w, par, w->order[i], r);
        else contact_w(w, par, w->order[i], r);
    }
}

/* The error at r: u = H^T v + w (velocity form) or W r + q. */
static double measure(const fc_problem *p, nncg_work *w, const double *r, double *u)
{
    if (w->Gt) {
        for (int i = 0; i < w->m; i++) u[i] = row_dot(w->Ht, i, w->v) + w->w[i];
    } else {
        fc_affine(w->W, r, w->q, u);
    }
    return fc_error_local(p, r, u);
}

/* v = M^-1 (H r + f) = G r + M^-1 f, with minvf = M^-1 f. */
static void velocity(const nncg_work *w, const double *r, const double *minvf, double *v)
{
    memcpy(v, minvf, (size_t)w->n * sizeof *v);
    for (int j = 0; j < w->m; j++) {
        if (r[j] == 0.0) continue;
        for (int t = w->Gt->p[j]; t < w->Gt->p[j + 1]; t++) v[w->Gt->j[t]] += r[j] * w->Gt->x[t];
    }
}

static int find_root(int *par, int i)
{
    while (par[i] != i) { par[i] = par[par[i]]; i = par[i]; }
    return i;
}

typedef struct dof_sig { unsigned long long h; int i; } dof_sig;

static int sig_cmp(const void *x, const void *y)
{
    const dof_sig *a = x, *b = y;
    return a->h < b->h ? -1 : a->h > b->h ? 1 : a->i - b->i;
}


/* ---- the coarse correction (nncg.coarse) ----
 * The iterate is r (v = M^-1 (H r + f) follows it), so the coarse step
 * moves r in a small subspace Z (k columns): it minimises the dual
 * quadratic 1/2 r'Wr + (q + s e_N)'r along r + Z c (s = mu |u_T| frozen,
 * De Saxce's term), i.e. (Z'WZ) c = -Z' u_hat, with Z'WZ = (HZ)'(M^-1 H Z)
 * summed dof by dof (no W).  Scaling columns keep every contact in its
 * cone for c >= -1; normal columns are projected back.  The step is kept
 * only when it lowers the SPEC error. */

/* Z's entry of column kind `kind` at row j (the column is j's aggregate's),
 * rj = r_j: the normal columns take the closed contacts (r_N > 0) only. */
static double z_entry(const nncg_work *w, int kind, int j, double rj)
{
    return kind == 0 ? rj : (j % w->d == 0 && rj > 0.0 ? 1.0 : 0.0);
}

/* Dense Cholesky of the k x k matrix A in place (lower); 1 on failure. */
static int chol(int k, double *A)
{
    for (int j = 0; j < k; j++) {
        double *aj = A + (size_t)j * k;
        double dj = aj[j];
        for (int l = 0; l < j; l++) dj -= aj[l] * aj[l];
        if (!(dj > 0.0)) return 1;
        dj = sqrt(dj);
        aj[j] = dj;
        for (int i = j + 1; i < k; i++) {
            double *ai = A + (size_t)i * k, v = ai[j];
            for (int l = 0; l < j; l++) v -= ai[l] * aj[l];
            ai[j] = v / dj;
        }
    }
    return 0;
}

static void chol_solve(int k, const double *L, double *b)
{
    for (int i = 0; i < k; i++) {
        const double *li = L + (size_t)i * k;
        double v = b[i];
        for (int l = 0; l < i; l++) v -= li[l] * b[l];
        b[i] = v / li[i];
    }
    for (int i = k - 1; i >= 0; i--) {
        double v = b[i];
        for (int l = i + 1; l < k; l++) v -= L[(size_t)l * k + i] * b[l];
        b[i] = v / L[(size_t)i * k + i];
    }
}

/* One coarse step from (r, w->v) with u = H'v + w at r and its error err;
 * returns the new error (r, v changed) or err (r, v unchanged). */
static double coarse_step(const fc_problem *p, nncg_work *w, int keep, double *r, double *u,
                          double err)
{
    int d = w->d, k = w->k, m = w->m, n = w->n, nk = w->ncol;
    double *C = w->C;
    memset(C, 0, (size_t)k * k * sizeof *C);
    /* C = (HZ)'(GZ), dof by dof: the columns touching dof i are few */
    for (int i = 0; i < n; i++) {
        int cnt = 0;
        w->stamp++;
        for (int pass = 0; pass < 2; pass++) {
            const fc_matrix *A = pass == 0 ? w->Hc : w->Gc;
            double *buf = pass == 0 ? w->yb : w->xb;
            for (int t = A->p[i]; t < A->p[i + 1]; t++) {
                int j = A->j[t];
                for (int kind = 0; kind < nk; kind++) {
                    double z = z_entry(w, kind, j, r[j]);
                    if (z == 0.0) continue;
                    int col = w->agg[j / d] * nk + kind;
                    if (w->mark[col] != w->stamp) {
                        w->mark[col] = w->stamp;
                        w->list[cnt++] = col;
                        w->yb[col] = w->xb[col] = 0.0;
                    }
                    buf[col] += A->x[t] * z;
                }
            }
        }
        for (int a = 0; a < cnt; a++) {
            int ca = w->list[a];
            if (w->yb[ca] == 0.0) continue;
            for (int b = 0; b < cnt; b++) C[(size_t)ca * k + w->list[b]] += w->yb[ca] * w->xb[w->list[b]];
        }
    }
    /* rhs = -Z' u_hat */
    memset(w->rhs, 0, (size_t)k * sizeof *w->rhs);
    for (int a = 0; a < w->nc; a++) {
        const double *ua = u + (size_t)d * a;
        double ut = 0.0;
        for (int l = 1; l < (d == 5 ? 3 : d); l++) ut += ua[l] * ua[l];
        double s = p->mu[a] * sqrt(ut);
        for (int l = 0; l < d; l++) {
            int j = d * a + l;
            double uh = ua[l] + (l == 0 ? s : 0.0);
            for (int kind = 0; kind < nk; kind++)
                w->rhs[w->agg[a] * nk + kind] -= z_entry(w, kind, j, r[j]) * uh;
        }
    }
    double dmax = 0.0;
    for (int i = 0; i < k; i++) {   /* symmetrise; empty columns decoupled */
        for (int j = 0; j < i; j++) {
            double v = 0.5 * (C[(size_t)i * k + j] + C[(size_t)j * k + i]);
            C[(size_t)i * k + j] = C[(size_t)j * k + i] = v;
        }
        dmax = fmax(dmax, C[(size_t)i * k + i]);
    }
    for (int i = 0; i < k; i++) {
        double *ci = C + (size_t)i * k;
        if (!(ci[i] > 1e-12 * dmax)) {
            for (int j = 0; j < k; j++) ci[j] = C[(size_t)j * k + i] = 0.0;
            ci[i] = 1.0;
            w->rhs[i] = 0.0;
        } else {
            ci[i] *= 1.0 + 1e-10;
        }
    }
    w->trial = INFINITY;
    if (chol(k, C)) return err;
    memcpy(w->cc, w->rhs, (size_t)k * sizeof *w->cc);
    chol_solve(k, C, w->cc);
    w->cnorm = 0.0;
    for (int i = 0; i < k; i++) w->cnorm = fmax(w->cnorm, fabs(w->cc[i]));
    for (int g = 0; g < w->nagg; g++)   /* a scale below -1 leaves the cones */
        if (w->cc[g * nk] < -0.9) w->cc[g * nk] = -0.9;
    memcpy(w->rsave, r, (size_t)m * sizeof *r);
    memcpy(w->vsave, w->v, (size_t)n * sizeof *w->v);
    for (int a = 0; a < w->nc; a++) {
        double *ra = r + (size_t)d * a, r0[5];
        memcpy(r0, ra, (size_t)d * sizeof *ra);
        for (int l = 0; l < d; l++)
            for (int kind = 0; kind < nk; kind++)
                ra[l] += w->cc[w->agg[a] * nk + kind] * z_entry(w, kind, d * a + l, kind == 0 ? r0[l] : r0[0]);
        if (nk > 1) fc_project_cone(d, p->mu[a], p->mu_r ? p->mu_r[a] : 0.0, ra);
        for (int l = 0; l < d; l++) {
            int j = d * a + l;
            double dr = ra[l] - r0[l];
            if (dr == 0.0) continue;
            for (int t = w->Gt->p[j]; t < w->Gt->p[j + 1]; t++) w->v[w->Gt->j[t]] += dr * w->Gt->x[t];
        }
    }
    double e2 = measure(p, w, r, u);
    w->trial = e2;
    if (e2 < err || keep) return e2;
    memcpy(r, w->rsave, (size_t)m * sizeof *r);
    memcpy(w->v, w->vsave, (size_t)n * sizeof *w->v);
    measure(p, w, r, u);   /* u back at r */
    return err;
}

/* The aggregates: contacts grouped greedily, breadth first over the graph
 * of contacts sharing a dof, coarse_size at most each; and the coarse
 * workspace.  0 on success. */
static int setup_coarse(const fc_options *opt, nncg_work *w, const fc_matrix *Hc)
{
    int d = w->d, nc = w->nc, size = opt->nncg.coarse_size;
    w->ncol = opt->nncg.coarse == 2 ? 2 : 1;
    w->agg = fc_calloc((size_t)nc + 1, sizeof *w->agg);
    int *queue = fc_calloc((size_t)nc + 1, sizeof *queue);
    w->Hc = fc_csr_transpose(w->Ht);
    w->Gc = fc_csr_transpose(w->Gt);
    (void)Hc;
    if (!w->agg || !queue || !w->Hc || !w->Gc) { free(queue); return 1; }
    for (int a = 0; a < nc; a++) w->agg[a] = -1;
    int ng = 0;
    for (int a0 = 0; a0 < nc; a0++) {
        if (w->agg[a0] >= 0) continue;
        int head = 0, tail = 0, cnt = 1;
        w->agg[a0] = ng;
        queue[tail++] = a0;
        while (head < tail && cnt < size) {
            int a = queue[head++];
            for (int l = 0; l < d && cnt < size; l++)
                for (int t = w->Ht->p[d * a + l]; t < w->Ht->p[d * a + l + 1] && cnt < size; t++) {
                    int i = w->Ht->j[t];
                    for (int s = w->Hc->p[i]; s < w->Hc->p[i + 1] && cnt < size; s++) {
                        int c = w->Hc->j[s] / d;
                        if (w->agg[c] >= 0) continue;
                        w->agg[c] = ng;
                        queue[tail++] = c;
                        cnt++;
                    }
                }
        }
        ng++;
    }
    free(queue);
    w->nagg = ng;
    w->k = ng * w->ncol;
    size_t k = (size_t)w->k;
    w->mark = fc_calloc(k + 1, sizeof *w->mark);
    w->list = fc_calloc(k + 1, sizeof *w->list);
    w->C = fc_calloc(k * k + 1, sizeof *w->C);
    w->rhs = fc_calloc(k + 1, sizeof *w->rhs);
    w->cc = fc_calloc(k + 1, sizeof *w->cc);
    w->yb = fc_calloc(k + 1, sizeof *w->yb);
    w->xb = fc_calloc(k + 1, sizeof *w->xb);
    w->rsave = fc_calloc((size_t)w->m + 1, sizeof *w->rsave);
    w->vsave = fc_calloc((size_t)w->n + 1, sizeof *w->vsave);
    return !w->mark || !w->list || !w->C || !w->rhs || !w->cc || !w->yb || !w->xb ||
           !w->rsave || !w->vsave;
}

/* ---- rigid clusters (nncg.coarse = 3) ---- */

/* Z for the current closed contacts: per cluster, A = H restricted to its
 * bodies' dofs and to the closed contacts touching it, and for each rigid
 * mode k z = A' (A A' + eps)^-1 M P_ck. */
static void rigid_z(nncg_work *w, const double *r)
{
    int d = w->d;
    for (int c = 0; c < w->ncl; c++) {
        int R = 6 * (w->cbp[c + 1] - w->cbp[c]), Cn = d * (w->ccp[c + 1] - w->ccp[c]);
        double *A = w->A, *AA = w->AA;
        memset(A, 0, (size_t)R * Cn * sizeof *A);
        for (int t = w->ccp[c]; t < w->ccp[c + 1]; t++) {
            int a = w->cci[t], col0 = d * (t - w->ccp[c]);
            if (!(r[d * a] > 0.0)) continue;   /* open: not in Z */
            for (int l = 0; l < d; l++)
                for (int s = w->Ht->p[d * a + l]; s < w->Ht->p[d * a + l + 1]; s++) {
                    int i = w->Ht->j[s], b = w->body_of[i];
                    if (b >= 0 && w->cl[b] == c) A[(size_t)w->lrow[i] * Cn + col0 + l] = w->Ht->x[s];
                }
        }
        double dmax = 0.0;
        for (int i = 0; i < R; i++)
            for (int j = 0; j <= i; j++) {
                double v = 0.0;
                for (int k = 0; k < Cn; k++) v += A[(size_t)i * Cn + k] * A[(size_t)j * Cn + k];
                AA[(size_t)i * R + j] = AA[(size_t)j * R + i] = v;
                if (i == j) dmax = fmax(dmax, v);
            }
        for (int i = 0; i < R; i++) AA[(size_t)i * R + i] += 1e-10 * dmax + 1e-300;
        int ok = !chol(R, AA);
        for (int k = 0; k < 6; k++) {
            double *b = w->bk;
            /* P_ck on the cluster's dofs, then M times it (M block diagonal) */
            double pv[6];
            for (int q = w->cbp[c]; q < w->cbp[c + 1]; q++) {
                int bb = w->cbi[q];
                double dx[3], e[3] = {0, 0, 0};
                for (int x = 0; x < 3; x++) dx[x] = w->pos[3 * bb + x] - w->xc[3 * c + x];
                for (int x = 0; x < 6; x++) pv[x] = 0.0;
                if (k < 3) pv[k] = 1.0;
                else {
                    e[k - 3] = 1.0;
                    pv[0] = e[1] * dx[2] - e[2] * dx[1];
                    pv[1] = e[2] * dx[0] - e[0] * dx[2];
                    pv[2] = e[0] * dx[1] - e[1] * dx[0];
                    pv[k] = 1.0;
                }
                for (int x = 0; x < 6; x++) {
                    int i = w->bdof[6 * bb + x];
                    double v = 0.0;
                    for (int s = w->Mc->p[i]; s < w->Mc->p[i + 1]; s++) {
                        int jj = w->Mc->j[s];
                        for (int y = 0; y < 6; y++) if (w->bdof[6 * bb + y] == jj) v += w->Mc->x[s] * pv[y];
                    }
                    b[w->lrow[i]] = v;
                }
            }
            if (ok) chol_solve(R, AA, b);
            for (int t = w->ccp[c]; t < w->ccp[c + 1]; t++)
                for (int l = 0; l < d; l++) {
                    int col = d * (t - w->ccp[c]) + l;
                    double v = 0.0;
                    if (ok) for (int i = 0; i < R; i++) v += A[(size_t)i * Cn + col] * b[i];
                    w->zv[((size_t)t * d + l) * 6 + k] = v;
                }
        }
    }
}

/* One rigid-cluster coarse step; as coarse_step. */
static double rigid_step(const fc_problem *p, nncg_work *w, int keep, double *r, double *u,
                         double err)
{
    int d = w->d, k = w->k, m = w->m, n = w->n;
    double *C = w->C;
    rigid_z(w, r);
    memset(C, 0, (size_t)k * k * sizeof *C);
    for (int i = 0; i < n; i++) {
        int cnt = 0;
        w->stamp++;
        for (int pass = 0; pass < 2; pass++) {
            const fc_matrix *H = pass == 0 ? w->Hc : w->Gc;
            double *buf = pass == 0 ? w->yb : w->xb;
            for (int s = H->p[i]; s < H->p[i + 1]; s++) {
                int j = H->j[s], a = j / d, l = j % d;
                for (int e = 0; e < 2; e++) {
                    int t = w->cent[2 * a + e];
                    if (t < 0) continue;
                    for (int kk = 0; kk < 6; kk++) {
                        double z = w->zv[((size_t)t * d + l) * 6 + kk];
                        if (z == 0.0) continue;
                        int col = 6 * w->ccl[t] + kk;
                        if (w->mark[col] != w->stamp) {
                            w->mark[col] = w->stamp;
                            w->list[cnt++] = col;
                            w->yb[col] = w->xb[col] = 0.0;
                        }
                        buf[col] += H->x[s] * z;
                    }
                }
            }
        }
        for (int a = 0; a < cnt; a++) {
            int ca = w->list[a];
            if (w->yb[ca] == 0.0) continue;
            for (int b = 0; b < cnt; b++) C[(size_t)ca * k + w->list[b]] += w->yb[ca] * w->xb[w->list[b]];
        }
    }
    memset(w->rhs, 0, (size_t)k * sizeof *w->rhs);
    for (int a = 0; a < w->nc; a++) {
        const double *ua = u + (size_t)d * a;
        double ut = 0.0;
        for (int l = 1; l < (d == 5 ? 3 : d); l++) ut += ua[l] * ua[l];
        double sN = p->mu[a] * sqrt(ut);
        for (int e = 0; e < 2; e++) {
            int t = w->cent[2 * a + e];
            if (t < 0) continue;
            for (int l = 0; l < d; l++)
                for (int kk = 0; kk < 6; kk++)
                    w->rhs[6 * w->ccl[t] + kk] -= w->zv[((size_t)t * d + l) * 6 + kk] * (ua[l] + (l == 0 ? sN : 0.0));
        }
    }
    double dmax = 0.0;
    for (int i = 0; i < k; i++) {
        for (int j = 0; j < i; j++) {
            double v = 0.5 * (C[(size_t)i * k + j] + C[(size_t)j * k + i]);
            C[(size_t)i * k + j] = C[(size_t)j * k + i] = v;
        }
        dmax = fmax(dmax, C[(size_t)i * k + i]);
    }
    for (int i = 0; i < k; i++) {
        double *ci = C + (size_t)i * k;
        if (!(ci[i] > 1e-12 * dmax)) {
            for (int j = 0; j < k; j++) ci[j] = C[(size_t)j * k + i] = 0.0;
            ci[i] = 1.0;
            w->rhs[i] = 0.0;
        } else {
            ci[i] *= 1.0 + 1e-8;
        }
    }
    w->trial = INFINITY;
    if (chol(k, C)) return err;
    memcpy(w->cc, w->rhs, (size_t)k * sizeof *w->cc);
    chol_solve(k, C, w->cc);
    w->cnorm = 0.0;
    for (int i = 0; i < k; i++) w->cnorm = fmax(w->cnorm, fabs(w->cc[i]));
    memcpy(w->rsave, r, (size_t)m * sizeof *r);
    memcpy(w->vsave, w->v, (size_t)n * sizeof *w->v);
    /* the linear coarse step ignores the cones (and is unbounded along
     * W's near-null directions): the step length is chosen among
     * 1, 1/4, ..., 1/4^5 by the SPEC error after projection */
    double best = INFINITY, balpha = 0.0;
    for (int pass = 0; pass < 7; pass++) {
        double alpha = pass < 6 ? pow(0.25, pass) : balpha;
        if (pass == 6 && (balpha == 0.0 || balpha == pow(0.25, 5))) break;
        memcpy(r, w->rsave, (size_t)m * sizeof *r);
        memcpy(w->v, w->vsave, (size_t)n * sizeof *w->v);
        for (int a = 0; a < w->nc; a++) {
            double *ra = r + (size_t)d * a, r0[5];
            memcpy(r0, ra, (size_t)d * sizeof *ra);
            for (int e = 0; e < 2; e++) {
                int t = w->cent[2 * a + e];
                if (t < 0) continue;
                for (int l = 0; l < d; l++)
                    for (int kk = 0; kk < 6; kk++)
                        ra[l] += alpha * w->cc[6 * w->ccl[t] + kk] * w->zv[((size_t)t * d + l) * 6 + kk];
            }
            fc_project_cone(d, p->mu[a], p->mu_r ? p->mu_r[a] : 0.0, ra);
            for (int l = 0; l < d; l++) {
                int j = d * a + l;
                double dr = ra[l] - r0[l];
                if (dr == 0.0) continue;
                for (int s = w->Gt->p[j]; s < w->Gt->p[j + 1]; s++) w->v[w->Gt->j[s]] += dr * w->Gt->x[s];
            }
        }
        if (pass == 6) break;   /* the best step re-applied */
        double e2 = measure(p, w, r, u);
        if (e2 < best) { best = e2; balpha = alpha; }
        else if (best < INFINITY && balpha == pow(0.25, pass - 1)) {
            /* rising again: the best is the previous one */
            memcpy(r, w->rsave, (size_t)m * sizeof *r);
            memcpy(w->v, w->vsave, (size_t)n * sizeof *w->v);
            pass = 5;
        }
    }
    w->trial = best;
    w->cnorm *= balpha;
    if (best < err || keep) {
        measure(p, w, r, u);
        return best;
    }
    memcpy(r, w->rsave, (size_t)m * sizeof *r);
    memcpy(w->v, w->vsave, (size_t)n * sizeof *w->v);
    measure(p, w, r, u);
    return err;
}

/* The rigid clusters' setup from M's blocks (blk, start, dofs as in
 * setup_velocity): 1 when the problem does not qualify (a block not of 6
 * dofs, a contact on more than two bodies, lever arms inconsistent),
 * -1 out of memory, 0 done. */
static int setup_rigid(const fc_options *opt, nncg_work *w, const fc_problem *p)
{
    int d = w->d, nc = w->nc, n = w->n, size = opt->nncg.coarse_size;
    w->body_of = fc_calloc((size_t)n + 1, sizeof *w->body_of);
    w->cbody = fc_calloc((size_t)2 * nc + 1, sizeof *w->cbody);
    w->lrow = fc_calloc((size_t)n + 1, sizeof *w->lrow);
    w->cent = fc_calloc((size_t)2 * nc + 1, sizeof *w->cent);
    w->Mc = fc_matrix_to_csr(p->M);
    w->Hc = fc_csr_transpose(w->Ht);
    w->Gc = fc_csr_transpose(w->Gt);
    int *uf = fc_calloc((size_t)n + 1, sizeof *uf), *cntb = fc_calloc((size_t)n + 1, sizeof *cntb);
    dof_sig *sg = fc_calloc((size_t)n + 1, sizeof *sg);
    int *bcp = NULL, *bci = NULL, *queue = NULL, *seen = NULL;
    double *arm = NULL;
    int ret = -1, nb = 0;
    if (!w->body_of || !w->cbody || !w->lrow || !w->cent || !w->Mc || !w->Hc || !w->Gc || !uf ||
        !cntb || !sg)
        goto out;
    /* bodies: dofs joined by M's pattern and by equal sets of touching
     * contacts (a rigid body's dofs); a body qualifies with 6 dofs,
     * taken in increasing order as translation then rotation */
    for (int i = 0; i < n; i++) uf[i] = i;
    for (int i = 0; i < n; i++)
        for (int t = w->Mc->p[i]; t < w->Mc->p[i + 1]; t++) {
            int a = find_root(uf, i), b = find_root(uf, w->Mc->j[t]);
            if (a != b) uf[a < b ? b : a] = a < b ? a : b;
        }
    for (int i = 0; i < n; i++) {
        unsigned long long h = 1469598103934665603ULL;
        int last = -1, cnt = 0;
        for (int t = w->Hc->p[i]; t < w->Hc->p[i + 1]; t++) {
            int c = w->Hc->j[t] / d;
            if (c == last) continue;
            h = (h ^ (unsigned long long)(c + 1)) * 1099511628211ULL;
            last = c;
            cnt++;
        }
        sg[i].h = cnt ? h : 0;
        sg[i].i = i;
    }
    qsort(sg, (size_t)n, sizeof *sg, sig_cmp);
    for (int k = 1; k < n; k++)
        if (sg[k].h && sg[k].h == sg[k - 1].h) {
            int a = find_root(uf, sg[k - 1].i), b = find_root(uf, sg[k].i);
            if (a != b) uf[a < b ? b : a] = a < b ? a : b;
        }
    for (int i = 0; i < n; i++) cntb[find_root(uf, i)]++;
    for (int i = 0; i < n; i++) w->body_of[i] = -1;
    for (int i = 0; i < n; i++)   /* roots first in increasing order: body numbers */
        if (find_root(uf, i) == i && cntb[i] == 6) w->body_of[i] = nb++;
    w->nbody = nb;
    w->bdof = fc_calloc((size_t)6 * nb + 1, sizeof *w->bdof);
    w->cl = fc_calloc((size_t)nb + 1, sizeof *w->cl);
    w->pos = fc_calloc((size_t)3 * nb + 1, sizeof *w->pos);
    bcp = fc_calloc((size_t)nb + 2, sizeof *bcp);
    bci = fc_calloc((size_t)2 * nc + 1, sizeof *bci);
    queue = fc_calloc((size_t)nb + 1, sizeof *queue);
    seen = fc_calloc((size_t)nb + 1, sizeof *seen);
    arm = fc_calloc((size_t)6 * nc + 1, sizeof *arm);
    if (!w->bdof || !w->cl || !w->pos || !bcp || !bci || !queue || !seen || !arm) goto out;
    memset(cntb, 0, (size_t)n * sizeof *cntb);
    for (int i = 0; i < n; i++) {
        int root = find_root(uf, i), b = w->body_of[root];
        if (b < 0) continue;
        w->bdof[6 * b + cntb[b]++] = i;
    }
    for (int i = 0; i < n; i++) w->body_of[i] = w->body_of[find_root(uf, i)];
    /* the bodies of each contact and the lever arms l = 1/2 sum_k t_k x rho_k
     * (rows of H: translation t_k, rotation rho_k = l x t_k) */
    ret = 1;
    if (nb == 0) goto out;
    for (int a = 0; a < nc; a++) {
        w->cbody[2 * a] = w->cbody[2 * a + 1] = -1;
        double tr[2][3][3] = {{{0}}}, ro[2][3][3] = {{{0}}};
        for (int l = 0; l < 3 && l < d; l++)
            for (int s = w->Ht->p[d * a + l]; s < w->Ht->p[d * a + l + 1]; s++) {
                int i = w->Ht->j[s], b = w->body_of[i], e;
                if (b < 0) continue;   /* a dof of a body that does not qualify */
                if (w->cbody[2 * a] == b) e = 0;
                else if (w->cbody[2 * a + 1] == b) e = 1;
                else if (w->cbody[2 * a] < 0) { e = 0; w->cbody[2 * a] = b; }
                else if (w->cbody[2 * a + 1] < 0) { e = 1; w->cbody[2 * a + 1] = b; }
                else goto out;
                int x = 0;
                while (x < 5 && w->bdof[6 * b + x] != i) x++;
                if (x < 3) tr[e][l][x] = w->Ht->x[s];
                else ro[e][l][x - 3] = w->Ht->x[s];
            }
        for (int e = 0; e < 2; e++)
            for (int x = 0; x < 3; x++) {
                int y = (x + 1) % 3, z = (x + 2) % 3;
                double v = 0.0;
                for (int l = 0; l < 3; l++) v += 0.5 * (tr[e][l][y] * ro[e][l][z] - tr[e][l][z] * ro[e][l][y]);
                arm[6 * a + 3 * e + x] = v;
            }
    }
    /* bodies' contacts, positions breadth first (x_B = x_A + l_A - l_B) */
    for (int a = 0; a < 2 * nc; a++) if (w->cbody[a] >= 0) bcp[w->cbody[a] + 2]++;
    for (int b = 0; b < nb; b++) bcp[b + 2] += bcp[b + 1];
    for (int a = 0; a < 2 * nc; a++) if (w->cbody[a] >= 0) bci[bcp[w->cbody[a] + 1]++] = a;
    for (int b0 = 0; b0 < nb; b0++) {
        if (seen[b0]) continue;
        int head = 0, tail = 0;
        seen[b0] = 1;
        queue[tail++] = b0;
        while (head < tail) {
            int A = queue[head++];
            for (int q = bcp[A]; q < bcp[A + 1]; q++) {
                int a = bci[q] / 2, eA = bci[q] % 2, B = w->cbody[2 * a + 1 - eA];
                if (B < 0 || seen[B]) continue;
                seen[B] = 1;
                for (int x = 0; x < 3; x++)
                    w->pos[3 * B + x] = w->pos[3 * A + x] + arm[6 * a + 3 * eA + x] - arm[6 * a + 3 * (1 - eA) + x];
                queue[tail++] = B;
            }
        }
    }
    double worst = 0.0;   /* the positions must close every contact */
    for (int a = 0; a < nc; a++) {
        int A = w->cbody[2 * a], B = w->cbody[2 * a + 1];
        if (B < 0) continue;
        double gap = 0.0, len = 0.0;
        for (int x = 0; x < 3; x++) {
            double g = w->pos[3 * A + x] + arm[6 * a + x] - w->pos[3 * B + x] - arm[6 * a + 3 + x];
            gap += g * g;
            len += arm[6 * a + x] * arm[6 * a + x];
        }
        worst = fmax(worst, sqrt(gap / fmax(len, 1e-300)));
    }
    if (worst > 1e-6) goto out;
    /* clusters: greedy breadth first over bodies, size bodies each */
    ret = -1;
    for (int b = 0; b < nb; b++) w->cl[b] = -1;
    int ncl = 0;
    for (int b0 = 0; b0 < nb; b0++) {
        if (w->cl[b0] >= 0) continue;
        int head = 0, tail = 0;
        w->cl[b0] = ncl;
        queue[tail++] = b0;
        while (head < tail && tail < size) {
            int A = queue[head++];
            for (int q = bcp[A]; q < bcp[A + 1] && tail < size; q++) {
                int a = bci[q] / 2, B = w->cbody[2 * a + 1 - bci[q] % 2];
                if (B < 0 || w->cl[B] >= 0) continue;
                w->cl[B] = ncl;
                queue[tail++] = B;
            }
        }
        ncl++;
    }
    w->ncl = ncl;
    w->cbp = fc_calloc((size_t)ncl + 2, sizeof *w->cbp);
    w->cbi = fc_calloc((size_t)nb + 1, sizeof *w->cbi);
    w->ccp = fc_calloc((size_t)ncl + 2, sizeof *w->ccp);
    w->cci = fc_calloc((size_t)2 * nc + 1, sizeof *w->cci);
    w->ccl = fc_calloc((size_t)2 * nc + 1, sizeof *w->ccl);
    w->xc = fc_calloc((size_t)3 * ncl + 1, sizeof *w->xc);
    if (!w->cbp || !w->cbi || !w->ccp || !w->cci || !w->ccl || !w->xc) goto out;
    for (int b = 0; b < nb; b++) w->cbp[w->cl[b] + 2]++;
    for (int c = 0; c < ncl; c++) w->cbp[c + 2] += w->cbp[c + 1];
    for (int b = 0; b < nb; b++) w->cbi[w->cbp[w->cl[b] + 1]++] = b;
    for (int c = 0; c < ncl; c++) {
        int cnt = w->cbp[c + 1] - w->cbp[c];
        for (int q = w->cbp[c]; q < w->cbp[c + 1]; q++) {
            int b = w->cbi[q];
            for (int x = 0; x < 3; x++) w->xc[3 * c + x] += w->pos[3 * b + x] / cnt;
            for (int x = 0; x < 6; x++) w->lrow[w->bdof[6 * b + x]] = 6 * (q - w->cbp[c]) + x;
        }
    }
    /* the clusters' contacts: every contact touching a body of the cluster */
    int ne = 0;
    for (int c = 0; c < ncl; c++) {
        w->ccp[c] = ne;
        for (int a = 0; a < nc; a++) {   /* (setup only) */
            int A = w->cbody[2 * a], B = w->cbody[2 * a + 1];
            if (!((A >= 0 && w->cl[A] == c) || (B >= 0 && w->cl[B] == c))) continue;
            w->cci[ne] = a;
            w->ccl[ne] = c;
            ne++;
        }
    }
    w->ccp[ncl] = ne;
    for (int a = 0; a < 2 * nc; a++) w->cent[a] = -1;
    for (int t = 0; t < ne; t++) {
        int a = w->cci[t];
        w->cent[2 * a + (w->cent[2 * a] >= 0)] = t;
    }
    w->amax_r = 0;
    w->amax_c = 0;
    for (int c = 0; c < ncl; c++) {
        w->amax_r = w->amax_r > 6 * (w->cbp[c + 1] - w->cbp[c]) ? w->amax_r : 6 * (w->cbp[c + 1] - w->cbp[c]);
        w->amax_c = w->amax_c > d * (w->ccp[c + 1] - w->ccp[c]) ? w->amax_c : d * (w->ccp[c + 1] - w->ccp[c]);
    }
    w->k = 6 * ncl;
    w->nagg = ncl;
    size_t k = (size_t)w->k;
    w->zv = fc_calloc((size_t)ne * d * 6 + 1, sizeof *w->zv);
    w->A = fc_calloc((size_t)w->amax_r * w->amax_c + 1, sizeof *w->A);
    w->AA = fc_calloc((size_t)w->amax_r * w->amax_r + 1, sizeof *w->AA);
    w->bk = fc_calloc((size_t)w->amax_r + 1, sizeof *w->bk);
    w->mark = fc_calloc(k + 1, sizeof *w->mark);
    w->list = fc_calloc(k + 1, sizeof *w->list);
    w->C = fc_calloc(k * k + 1, sizeof *w->C);
    w->rhs = fc_calloc(k + 1, sizeof *w->rhs);
    w->cc = fc_calloc(k + 1, sizeof *w->cc);
    w->yb = fc_calloc(k + 1, sizeof *w->yb);
    w->xb = fc_calloc(k + 1, sizeof *w->xb);
    w->rsave = fc_calloc((size_t)w->m + 1, sizeof *w->rsave);
    w->vsave = fc_calloc((size_t)n + 1, sizeof *w->vsave);
    if (w->zv && w->A && w->AA && w->bk && w->mark && w->list && w->C && w->rhs && w->cc && w->yb &&
        w->xb && w->rsave && w->vsave)
        ret = 0;
out:
    free(bcp); free(bci); free(queue); free(seen); free(arm); free(uf); free(cntb); free(sg);
    return ret;
}

/* The NNCG iterations on the prepared work (w->order set); r in/out. */
static fc_status iterate(const fc_problem *p, const fc_options *opt, const fc_clock *clk,
                         nncg_work *w, double *r, double *u, fc_info *info)
{
    const fc_nncg_options *o = &opt->nncg;
    int m = w->m, n = w->n;
    fc_local_params par = {o->local, o->local_tol > 0 ? o->local_tol : 1e-14,
                           o->local_max_iter > 0 ? o->local_max_iter : 20};
    fc_status st = FC_MAX_ITER;
    double err = INFINITY, best_err = INFINITY, gg_prev = 0.0, ratio = 0.0;
    int it = 0, checked_at = 0, restarts = 0, coarse_at = 0, coarse_tried = 0, coarse_kept = 0;
    memset(w->pdir, 0, (size_t)m * sizeof *w->pdir);
    fo_accel aa = {0};
    if (o->accel == 2 && fo_accel_init_nsgs(&aa, &opt->nsgs, m)) {
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    if (w->Gt) memset(w->vp, 0, (size_t)n * sizeof *w->vp);
    memcpy(w->best, r, (size_t)m * sizeof *r);
    for (int i = 0; i < m; i++)   /* a warm start is an iterate: it may solve the problem */
        if (r[i] != 0.0) {
            err = best_err = measure(p, w, r, u);
            if (err <= opt->tolerance) st = FC_CONVERGED;
            break;
        }
    while (st != FC_CONVERGED) {
        if (it >= opt->max_iter) {
            snprintf(info->message, sizeof info->message,
                     "%d sweeps done, error %.3e > %.1e", it, best_err, opt->tolerance);
            break;
        }
        if (fc_clock_expired(clk)) {
            st = FC_TIME_LIMIT;
            snprintf(info->message, sizeof info->message,
                     "time limit after %d sweeps, error %.3e", it, best_err);
            break;
        }
        memcpy(w->x, r, (size_t)m * sizeof *r);
        if (aa.on) fo_accel_save(&aa, r, m);
        if (w->Gt) memcpy(w->vx, w->v, (size_t)n * sizeof *w->v);
        sweep(w, &par, o->symmetric, r);
        it++;
        double gg = 0.0, rn = 0.0;
        for (int i = 0; i < m; i++) {
            double g = r[i] - w->x[i];
            gg += g * g;
            rn += r[i] * r[i];
        }
        if (!(isfinite(gg) && isfinite(rn))) {
            memcpy(r, w->best, (size_t)m * sizeof *r);
            st = FC_DIVERGED;
            snprintf(info->message, sizeof info->message,
                     "non-finite iterate at sweep %d; best iterate kept", it);
            break;
        }
        double change = sqrt(gg) / fmax(sqrt(rn), 1e-300);
        int due = it == 1 || it - checked_at >= NNCG_MEASURE_GAP ||
                  !(ratio * change > NNCG_PREDICT_MARGIN * opt->tolerance);
        if (due || it >= opt->max_iter) {
            err = measure(p, w, r, u);
            checked_at = it;
            ratio = change > 0.0 ? err / change : 0.0;
            if (err < best_err) {
                best_err = err;
                memcpy(w->best, r, (size_t)m * sizeof *r);
            }
            fc_log(opt, 1, "nncg sweep %d error %.3e (%d restarts)", it, err, restarts);
            if (err <= opt->tolerance) { st = FC_CONVERGED; break; }
            if (opt->progress && opt->progress(opt->progress_user, it, err)) {
                snprintf(info->message, sizeof info->message,
                         "stopped by the progress callback at sweep %d", it);
                break;
            }
            if (w->k && it - coarse_at >= o->coarse_every) {
                coarse_at = it;
                coarse_tried++;
                double e2 = o->coarse == 3 ? rigid_step(p, w, o->coarse_keep, r, u, err)
                                           : coarse_step(p, w, o->coarse_keep, r, u, err);
                fc_log(opt, 2, "nncg coarse at sweep %d: %.3e -> %.3e (trial %.3e, max |c| %.2e)", it, err,
                       e2, w->trial, w->cnorm);
                if (e2 < err || o->coarse_keep) {   /* kept: the conjugate direction restarts */
                    coarse_kept++;
                    err = e2;
                    if (err < best_err) {
                        best_err = err;
                        memcpy(w->best, r, (size_t)m * sizeof *r);
                    }
                    if (err <= opt->tolerance) { st = FC_CONVERGED; break; }
                    gg_prev = 0.0;
                    continue;
                }
            }
        }
        if (o->accel == 2) {   /* Anderson: r extrapolated, v moved along by G */
            memcpy(w->pdir, r, (size_t)m * sizeof *r);
            if (fo_accel_apply(&aa, p, it - 1, err, NULL, r) && w->Gt)
                for (int j = 0; j < m; j++) {
                    double dr = r[j] - w->pdir[j];
                    if (dr == 0.0) continue;
                    for (int t = w->Gt->p[j]; t < w->Gt->p[j + 1]; t++) w->v[w->Gt->j[t]] += dr * w->Gt->x[t];
                }
            continue;
        }
        /* the conjugate step; g = r - x, G g = v - vx */
        double beta = gg_prev > 0.0 ? gg / gg_prev : 2.0;
        gg_prev = gg;
        if (o->accel != 1 || beta > o->restart) {
            restarts++;
            for (int i = 0; i < m; i++) w->pdir[i] = r[i] - w->x[i];
            if (w->Gt)
                for (int i = 0; i < n; i++) w->vp[i] = w->v[i] - w->vx[i];
            continue;
        }
        for (int i = 0; i < m; i++) {
            double g = r[i] - w->x[i];
            r[i] += beta * w->pdir[i];
            w->pdir[i] = beta * w->pdir[i] + g;
        }
        if (w->Gt)
            for (int i = 0; i < n; i++) {
                double gv = w->v[i] - w->vx[i];
                w->v[i] += beta * w->vp[i];
                w->vp[i] = beta * w->vp[i] + gv;
            }
    }
    if (st != FC_CONVERGED && best_err < INFINITY) memcpy(r, w->best, (size_t)m * sizeof *r);
    if (w->k)
        fc_log(opt, 1, "nncg coarse: %d aggregates, %d steps tried, %d kept", w->nagg, coarse_tried,
               coarse_kept);
    fo_accel_free(&aa);
    info->iterations = it;
    return st;
}

/* ---- the load-path order ---- */

/* order: contacts by breadth-first level from the supports (contacts of
 * one body) over the graph of contacts sharing a body, file order within
 * a level; reversed when top_down.  body[2a], body[2a+1]: the contact's
 * bodies (-1: none).  Contacts not reached follow, in file order. */
static int load_path_order(int nc, int nb, const int *body, int top_down, int *order)
{
    int *cnt = fc_calloc((size_t)nb + 1, sizeof *cnt);
    int *adj = fc_calloc((size_t)2 * nc + 1, sizeof *adj);
    int *level = fc_calloc((size_t)nc + 1, sizeof *level);
    if (!cnt || !adj || !level) { free(cnt); free(adj); free(level); return 1; }
    /* contacts of each body (CSR) */
    for (int a = 0; a < 2 * nc; a++) if (body[a] >= 0) cnt[body[a] + 1]++;
    for (int b = 0; b < nb; b++) cnt[b + 1] += cnt[b];
    int *fill = fc_calloc((size_t)nb + 1, sizeof *fill);
    if (!fill) { free(cnt); free(adj); free(level); return 1; }
    for (int a = 0; a < 2 * nc; a++)
        if (body[a] >= 0) adj[cnt[body[a]] + fill[body[a]]++] = a / 2;
    free(fill);
    int head = 0, tail = 0;
    for (int a = 0; a < nc; a++) level[a] = -1;
    for (int a = 0; a < nc; a++)
        if (body[2 * a + 1] < 0) { level[a] = 0; order[tail++] = a; }
    while (head < tail) {
        int a = order[head++];
        for (int s = 0; s < 2; s++) {
            int b = body[2 * a + s];
            if (b < 0) continue;
            for (int k = cnt[b]; k < cnt[b + 1]; k++) {
                int c = adj[k];
                if (level[c] >= 0) continue;
                level[c] = level[a] + 1;
                order[tail++] = c;
            }
        }
    }
    for (int a = 0; a < nc; a++) if (level[a] < 0) order[tail++] = a;
    if (top_down)
        for (int i = 0, j = nc - 1; i < j; i++, j--) { int t = order[i]; order[i] = order[j]; order[j] = t; }
    free(cnt); free(adj); free(level);
    return 0;
}

/* ---- setup of the velocity form ---- */

/* Dense Cholesky inverse of the s x s block A (column-major) in place;
 * 1 when not positive definite. */
static int spd_inverse(int s, double *A)
{
    double L[NNCG_MAX_BLOCK * NNCG_MAX_BLOCK] = {0}, X[NNCG_MAX_BLOCK * NNCG_MAX_BLOCK];
    for (int j = 0; j < s; j++) {
        double dj = A[j + j * s];
        for (int k = 0; k < j; k++) dj -= L[j + k * s] * L[j + k * s];
        if (!(dj > 0.0)) return 1;
        L[j + j * s] = sqrt(dj);
        for (int i = j + 1; i < s; i++) {
            double v = A[i + j * s];
            for (int k = 0; k < j; k++) v -= L[i + k * s] * L[j + k * s];
            L[i + j * s] = v / L[j + j * s];
        }
    }
    for (int c = 0; c < s; c++) {   /* solve L L^T x = e_c */
        double y[NNCG_MAX_BLOCK];
        for (int i = 0; i < s; i++) {
            double v = i == c ? 1.0 : 0.0;
            for (int k = 0; k < i; k++) v -= L[i + k * s] * y[k];
            y[i] = v / L[i + i * s];
        }
        for (int i = s - 1; i >= 0; i--) {
            double v = y[i];
            for (int k = i + 1; k < s; k++) v -= L[k + i * s] * X[k + c * s];
            X[i + c * s] = v / L[i + i * s];
        }
    }
    memcpy(A, X, (size_t)s * s * sizeof *A);
    return 0;
}


/* M's diagonal blocks (connected components of its graph): blk[i] the
 * block of dof i (numbered by first dof), start[b] the blocks' offsets
 * (n + 2 entries, zero on entry); par: n scratch.  The number of blocks,
 * or -1 when M is not symmetric or a block exceeds NNCG_MAX_BLOCK. */
static int m_blocks(const fc_problem *p, const fc_matrix *Mc, int *par, int *blk, int *start)
{
    int n = p->n, nb = 0;
    if (fc_matrix_asymmetry(p->M) > 1e-14) return -1;
    for (int i = 0; i < n; i++) par[i] = i;
    for (int i = 0; i < n; i++)
        for (int k = Mc->p[i]; k < Mc->p[i + 1]; k++) {
            int a = find_root(par, i), b = find_root(par, Mc->j[k]);
            if (a != b) par[a < b ? b : a] = a < b ? a : b;
        }
    for (int i = 0; i < n; i++) blk[i] = find_root(par, i) == i ? nb++ : -1;
    for (int i = 0; i < n; i++) blk[i] = blk[find_root(par, i)];
    for (int i = 0; i < n; i++) start[blk[i] + 1]++;
    for (int b = 0; b < nb; b++) {
        if (start[b + 1] > NNCG_MAX_BLOCK) return -1;
        start[b + 1] += start[b];
    }
    return nb;
}

int fc_nncg_velocity_form(const fc_problem *p)
{
    if (p->kind != FC_GLOBAL || !p->M) return 0;
    size_t n = (size_t)p->n;
    fc_matrix *Mc = fc_matrix_to_csr(p->M);
    int *par = fc_calloc(n + 1, sizeof *par), *blk = fc_calloc(n + 1, sizeof *blk);
    int *start = fc_calloc(n + 2, sizeof *start);
    int ok = Mc && par && blk && start && m_blocks(p, Mc, par, blk, start) >= 0;
    fc_matrix_free(Mc);
    free(par); free(blk); free(start);
    return ok;
}

/* The bodies of the contacts, for the order: dofs are grouped by M's
 * blocks and by equal sets of contacts (a rigid body's dofs are touched
 * by the same contacts; a hash collision only changes the order).
 * *body: 2 nc body ids (a dof index; -1: none), the first two bodies of
 * each contact. */
static int contact_bodies(const fc_matrix *Hc, const fc_matrix *Ht, int d, int nc, const int *blk,
                          const int *start, const int *dofs, int **body)
{
    int n = Hc->rows;
    int *bp = fc_calloc((size_t)n + 1, sizeof *bp);
    dof_sig *sg = fc_calloc((size_t)n + 1, sizeof *sg);
    *body = fc_calloc((size_t)2 * nc + 1, sizeof **body);
    if (!bp || !sg || !*body) { free(bp); free(sg); return 1; }
    for (int i = 0; i < n; i++) {
        bp[i] = dofs[start[blk[i]]];
        unsigned long long h = 1469598103934665603ULL;
        int last = -1, cnt = 0;
        for (int t = Hc->p[i]; t < Hc->p[i + 1]; t++) {
            int c = Hc->j[t] / d;
            if (c == last) continue;
            h = (h ^ (unsigned long long)(c + 1)) * 1099511628211ULL;
            last = c;
            cnt++;
        }
        sg[i].h = cnt ? h : 0;
        sg[i].i = i;
    }
    qsort(sg, (size_t)n, sizeof *sg, sig_cmp);
    for (int k = 1; k < n; k++)
        if (sg[k].h && sg[k].h == sg[k - 1].h) {
            int a = find_root(bp, sg[k - 1].i), b = find_root(bp, sg[k].i);
            if (a != b) bp[a < b ? b : a] = a < b ? a : b;
        }
    int *bd = *body;
    for (int a = 0; a < 2 * nc; a++) bd[a] = -1;
    for (int a = 0; a < nc; a++)
        for (int k = 0; k < d; k++)
            for (int t = Ht->p[d * a + k]; t < Ht->p[d * a + k + 1]; t++) {
                int b = find_root(bp, Ht->j[t]);
                if (bd[2 * a] == b || bd[2 * a + 1] == b) continue;
                if (bd[2 * a] < 0) bd[2 * a] = b;
                else if (bd[2 * a + 1] < 0) bd[2 * a + 1] = b;
            }
    free(bp);
    free(sg);
    return 0;
}

/* Velocity form of p when M is block diagonal with blocks of at most
 * NNCG_MAX_BLOCK, each positive definite: Ht, Gt, loc, order, M^-1 f in
 * minvf.  Returns 0 on success, 1 when M does not qualify, -1 when out
 * of memory. */
static int setup_velocity(const fc_problem *p, const fc_options *opt, nncg_work *w, double *minvf)
{
    int n = p->n, d = p->d, nc = p->nc;
    int ret = -1;
    fc_matrix *Mc = fc_matrix_to_csr(p->M), *Hc = NULL;
    int *par = fc_calloc((size_t)n + 1, sizeof *par), *blk = fc_calloc((size_t)n + 1, sizeof *blk);
    int *start = fc_calloc((size_t)n + 2, sizeof *start), *dofs = fc_calloc((size_t)n + 1, sizeof *dofs);
    int *loc_of = fc_calloc((size_t)n + 1, sizeof *loc_of);
    double *inv = NULL;
    int *body = NULL;
    if (!Mc || !par || !blk || !start || !dofs || !loc_of) goto out;
    int nb = m_blocks(p, Mc, par, blk, start);
    if (nb < 0) { ret = 1; goto out; }
    memset(par, 0, (size_t)n * sizeof *par);   /* fill counts */
    for (int i = 0; i < n; i++) { loc_of[i] = par[blk[i]]; dofs[start[blk[i]] + par[blk[i]]++] = i; }
    /* the inverse blocks: block b (s <= NNCG_MAX_BLOCK dofs) at start[b] NNCG_MAX_BLOCK */
    inv = fc_calloc((size_t)n * NNCG_MAX_BLOCK + 1, sizeof *inv);
    if (!inv) goto out;
    for (int i = 0; i < n; i++) {
        int b = blk[i], s = start[b + 1] - start[b];
        double *B = inv + (size_t)start[b] * NNCG_MAX_BLOCK;
        for (int k = Mc->p[i]; k < Mc->p[i + 1]; k++) B[loc_of[i] + loc_of[Mc->j[k]] * s] += Mc->x[k];
    }
    for (int b = 0; b < nb; b++)
        if (spd_inverse(start[b + 1] - start[b], inv + (size_t)start[b] * NNCG_MAX_BLOCK)) {
            ret = 1;
            goto out;
        }
    /* M^-1 f */
    for (int b = 0; b < nb; b++) {
        int s = start[b + 1] - start[b];
        const double *B = inv + (size_t)start[b] * NNCG_MAX_BLOCK;
        for (int i = 0; i < s; i++) {
            double v = 0.0;
            for (int k = 0; k < s; k++) v += B[i + k * s] * p->f[dofs[start[b] + k]];
            minvf[dofs[start[b] + i]] = v;
        }
    }
    Hc = fc_matrix_to_csr(p->H);
    w->Ht = Hc ? fc_csr_transpose(Hc) : NULL;
    if (!w->Ht) goto out;
    /* Gt row j = M^-1 H[:, j] over the blocks that H[:, j] touches */
    long gnz = 0;
    int bl[NNCG_ROW_BLOCKS], nbl = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && !(w->Gt = fc_matrix_csr(w->m, n, gnz))) goto out;
        long nz = 0;
        for (int j = 0; j < w->m; j++) {
            nbl = 0;
            for (int t = w->Ht->p[j]; t < w->Ht->p[j + 1]; t++) {
                int b = blk[w->Ht->j[t]], seen = 0;
                for (int k = 0; k < nbl; k++) seen |= bl[k] == b;
                if (seen) continue;
                if (nbl == NNCG_ROW_BLOCKS) { ret = 1; goto out; }
                bl[nbl++] = b;
            }
            for (int k = 0; k < nbl; k++) {
                int b = bl[k], s = start[b + 1] - start[b];
                if (pass == 0) { gnz += s; continue; }
                const double *B = inv + (size_t)start[b] * NNCG_MAX_BLOCK;
                double h[NNCG_MAX_BLOCK] = {0};
                for (int t = w->Ht->p[j]; t < w->Ht->p[j + 1]; t++)
                    if (blk[w->Ht->j[t]] == b) h[loc_of[w->Ht->j[t]]] = w->Ht->x[t];
                for (int i = 0; i < s; i++) {
                    double v = 0.0;
                    for (int l = 0; l < s; l++) v += B[i + l * s] * h[l];
                    w->Gt->j[nz] = dofs[start[b] + i];
                    w->Gt->x[nz++] = v;
                }
            }
            if (pass == 1) w->Gt->p[j + 1] = (int)nz;
        }
        if (pass == 1) w->Gt->nnz = nz;
    }
    if (opt->nncg.order != 0 && contact_bodies(Hc, w->Ht, d, nc, blk, start, dofs, &body)) goto out;
    /* W_aa = H_a^T G_a */
    double *x = w->vx;   /* n scratch, zero */
    memset(x, 0, (size_t)n * sizeof *x);
    for (int a = 0; a < nc; a++) {
        double W[25];
        for (int l = 0; l < d; l++) {
            int jl = d * a + l;
            for (int t = w->Gt->p[jl]; t < w->Gt->p[jl + 1]; t++) x[w->Gt->j[t]] = w->Gt->x[t];
            for (int k = 0; k < d; k++) W[k + l * d] = row_dot(w->Ht, d * a + k, x);
            for (int t = w->Gt->p[jl]; t < w->Gt->p[jl + 1]; t++) x[w->Gt->j[t]] = 0.0;
        }
        for (int k = 0; k < d; k++)
            for (int l = 0; l < k; l++)
                W[k + l * d] = W[l + k * d] = 0.5 * (W[k + l * d] + W[l + k * d]);
        fc_local_setup(&w->loc[a], d, W, p->mu[a], p->mu_r ? p->mu_r[a] : 0.0);
    }
    if (opt->nncg.order == 0) {
        for (int a = 0; a < nc; a++) w->order[a] = a;
    } else if (load_path_order(nc, n, body, opt->nncg.order == 2, w->order)) {
        goto out;
    }
    if (opt->nncg.coarse == 3) {
        int rs = setup_rigid(opt, w, p);
        if (rs < 0) goto out;
        if (rs > 0) fc_log(opt, 1, "nncg: no rigid clusters (bodies not of 6 dofs or lever arms inconsistent)");
        else fc_log(opt, 1, "nncg: %d rigid clusters, coarse matrix %d", w->ncl, w->k);
    } else if (opt->nncg.coarse && setup_coarse(opt, w, Hc)) {
        goto out;
    }
    ret = 0;
out:
    if (ret) { fc_matrix_free(w->Gt); w->Gt = NULL; fc_matrix_free(w->Ht); w->Ht = NULL; }
    fc_matrix_free(Mc);
    fc_matrix_free(Hc);
    free(par); free(blk); free(start); free(dofs); free(loc_of); free(inv); free(body);
    return ret;
}

static int alloc_common(nncg_work *w, int d, int nc)
{
    w->d = d; w->nc = nc; w->m = d * nc;
    w->loc = fc_calloc((size_t)nc + 1, sizeof *w->loc);
    w->order = fc_calloc((size_t)nc + 1, sizeof *w->order);
    w->x = fc_calloc((size_t)w->m + 1, sizeof *w->x);
    w->pdir = fc_calloc((size_t)w->m + 1, sizeof *w->pdir);
    w->best = fc_calloc((size_t)w->m + 1, sizeof *w->best);
    return !w->loc || !w->order || !w->x || !w->pdir || !w->best;
}

fc_status fc_nncg_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                        fc_info *info)
{
    int d = p->d, nc = p->nc, m = d * nc;
    nncg_work w = {0};
    fc_clock clk;
    fc_clock_start(&clk, opt);
    w.W = p->W;
    w.q = p->q;
    if (!(p->W->kind == FC_MAT_BSR && p->W->bs == d)) {
        w.Wb = fc_matrix_to_bsr(p->W, d);
        if (w.Wb) w.W = w.Wb;
    }
    if (alloc_common(&w, d, nc)) {
        work_free(&w);
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    for (int a = 0; a < nc; a++) {
        double blk[25];
        fc_matrix_diag_block(w.W, a, d, blk);
        fc_local_setup(&w.loc[a], d, blk, p->mu[a], p->mu_r ? p->mu_r[a] : 0.0);
        w.order[a] = a;
    }
    if (!fc_all_finite((size_t)m, r)) memset(r, 0, (size_t)m * sizeof *r);
    fc_status st = iterate(p, opt, &clk, &w, r, u, info);
    fc_affine(w.W, r, w.q, u);
    info->residual = fc_error_local(p, r, u);
    fc_log(opt, 0, "nncg: %s after %d sweeps, error %.3e, %.3f s", fc_status_name(st),
           info->iterations, info->residual, fc_clock_elapsed(&clk));
    info->status = st;
    work_free(&w);
    return st;
}

static fc_status nncg_local(const fc_problem *loc, const fc_options *opt, double *r, double *u,
                            fc_info *info, void *user)
{
    (void)user;
    return fc_nncg_solve(loc, opt, r, u, info);
}

fc_status fc_nncg_solve_global(const fc_problem *p, const fc_options *opt, double *r, double *u,
                               double *v, fc_info *info)
{
    int d = p->d, nc = p->nc, m = d * nc, n = p->n;
    nncg_work w = {0};
    fc_clock clk;
    fc_clock_start(&clk, opt);
    w.n = n;
    w.w = p->w;
    double *minvf = fc_calloc((size_t)n + 1, sizeof *minvf);
    w.v = fc_calloc((size_t)n + 1, sizeof *w.v);
    w.vp = fc_calloc((size_t)n + 1, sizeof *w.vp);
    w.vx = fc_calloc((size_t)n + 1, sizeof *w.vx);
    int s = -1;
    if (!alloc_common(&w, d, nc) && minvf && w.v && w.vp && w.vx)
        s = setup_velocity(p, opt, &w, minvf);
    if (s != 0) {
        work_free(&w);
        free(minvf);
        if (s < 0) {
            snprintf(info->message, sizeof info->message, "out of memory");
            return FC_STATUS_ERROR;
        }
        fc_log(opt, 1, "nncg: M not block diagonal with small blocks; reduced problem");
        fc_error err;
        fc_status st;
        if (fc_solve_reduced(p, opt, &clk, FC_V_REDUCED_FACTOR, nncg_local, NULL, r, u, v, info,
                             &st, &err) != FC_OK) {
            snprintf(info->message, sizeof info->message, "%.200s", err.msg);
            return FC_STATUS_ERROR;
        }
        return st;
    }
    if (!fc_all_finite((size_t)m, r)) memset(r, 0, (size_t)m * sizeof *r);
    velocity(&w, r, minvf, w.v);
    fc_status st = iterate(p, opt, &clk, &w, r, u, info);
    velocity(&w, r, minvf, v);   /* exact v of the returned r */
    memcpy(w.v, v, (size_t)n * sizeof *v);
    info->residual = measure(p, &w, r, u);
    fc_log(opt, 0, "nncg: %s after %d sweeps, error %.3e, %.3f s", fc_status_name(st),
           info->iterations, info->residual, fc_clock_elapsed(&clk));
    info->status = st;
    work_free(&w);
    free(minvf);
    return st;
}
