/* nsgs-v: nonsmooth Gauss-Seidel on the velocity form of a global problem
 * (M, H, f, w, mu), the way physics engines run it: W = H^T M^-1 H is
 * never formed.  With G = M^-1 H (sparse when M is block diagonal, as for
 * rigid bodies) and v = M^-1 (H r + f) carried along, contact a is solved
 * as the one-contact problem FC(W_aa, H_a^T v + w_a - W_aa r_a, mu_a)
 * (W_aa = H_a^T G_a, d x d) by the one-contact solver of nsgs.local, then
 * v += G_a (r_a,new - r_a).  A sweep costs O(nnz(H) + nnz(G)).
 * When G would be dense (more than 20 (nnz(H) + n) entries) the problem
 * is reduced to W (fc_problem_reduce) and solved by nsgs.  On a local
 * problem (W given) nsgs-v is nsgs.
 * Equality rows (G_eq, b; solve_global_eq) are swept as blocks J before
 * the contacts, exactly: lambda_J -= R_JJ^+ (G_J'v + b_J) with R_JJ =
 * G_J'M^-1 G_J dense (eqblock.h's factor), v moved along by M^-1 G_J.
 *
 * The coloured order (nsgs.order, matrix/colour.h): contacts that touch a
 * common unknown of v (through H or M^-1 H: a common body when M is
 * block diagonal) get different colours, and a sweep takes the colours in
 * turn, the contacts of a colour in parallel: each reads and moves only
 * its own bodies' velocities, so the result is the same for any thread
 * count.  The equality blocks stay sequential, before the contacts. */
#include "core/firstorder.h"
#include "cone/cone.h"
#include "linsys/linsys.h"
#include "problem/reduce.h"
#include "solvers/eqblock.h"
#include "solvers/velocity_contact.h"
#include "matrix/colour.h"
#include "matrix/bsr.h"

#include <stdio.h>

/* Relative asymmetry of M above which it is factorised by LU in the
 * reduction (the value of problem/reduce.c) instead of Cholesky here. */
#define NSGS_V_M_SYMMETRIC 1e-14

/* Rows of Gt = (M^-1 H)^T: row j = M^-1 H[:, j] without its zeros; NULL
 * when M is not positive definite or G exceeds cap entries. */
static fc_matrix *inverse_times(fc_chol *F, const fc_matrix *Ht, int n, long cap,
                                double *b, double *x)
{
    int m = Ht->rows;
    fc_matrix *G = fc_matrix_csr(m, n, cap);
    if (!G) return NULL;
    long nz = 0;
    for (int j = 0; j < m; j++) {
        memset(b, 0, (size_t)n * sizeof *b);
        for (int k = Ht->p[j]; k < Ht->p[j + 1]; k++) b[Ht->j[k]] = Ht->x[k];
        if (fc_chol_solve(F, b, x, NULL) != FC_OK) { fc_matrix_free(G); return NULL; }
        for (int i = 0; i < n; i++) {
            if (x[i] == 0.0) continue;
            if (nz >= cap) { fc_matrix_free(G); return NULL; }
            G->j[nz] = i;
            G->x[nz++] = x[i];
        }
        G->p[j + 1] = (int)nz;
    }
    G->nnz = nz;
    return G;
}

static fc_status nsgs_local(const fc_problem *loc, const fc_options *opt, double *r, double *u,
                            fc_info *info, void *user)
{
    (void)user;
    return fc_nsgs_solve(loc, opt, r, u, info);
}

/* The fallback: nsgs on the reduced problem, v recovered. */
static fc_status reduced_nsgs(const fc_problem *p, const fc_options *opt, const fc_clock *clk,
                              double *r, double *u, double *v, fc_info *info)
{
    fc_error err;
    fc_status st;
    if (fc_solve_reduced(p, opt, clk, FC_V_M_FACTOR, nsgs_local, NULL, r, u, v, info, &st, &err) != FC_OK) {
        snprintf(info->message, sizeof info->message, "%.200s", err.msg);
        return FC_STATUS_ERROR;
    }
    return st;
}

/* The equality blocks of the velocity form: G_eq^T and (M^-1 G_eq)^T as
 * CSR rows, the blocks' starts and dense factors. */
typedef struct vblocks {
    int neq, nb;
    fc_matrix *Gt, *Kt;
    int *start;
    long *off;
    double *L, *e;
} vblocks;

static void vblocks_free(vblocks *B)
{
    fc_matrix_free(B->Gt); fc_matrix_free(B->Kt);
    free(B->start); free(B->off); free(B->L); free(B->e);
}

static int same_rows(const fc_matrix *A, int i, int k)
{
    int li = A->p[i + 1] - A->p[i];
    return li == A->p[k + 1] - A->p[k] &&
           !memcmp(A->j + A->p[i], A->j + A->p[k], (size_t)li * sizeof *A->j);
}

/* 0: ready, -1: out of memory or M^-1 G_eq not sparse, 1: an empty row. */
static int vblocks_init(vblocks *B, const fc_problem *p, fc_chol *F, double *b, double *x)
{
    int n = p->n, neq = p->neq;
    B->neq = neq;
    fc_matrix *Gc = fc_matrix_to_csr(p->G);
    B->Gt = Gc ? fc_csr_transpose(Gc) : NULL;
    fc_matrix_free(Gc);
    if (!B->Gt) return -1;
    B->Kt = inverse_times(F, B->Gt, n, 20 * (B->Gt->nnz + n), b, x);
    memset(x, 0, (size_t)n * sizeof *x);   /* the scatters below start from 0 */
    B->start = fc_calloc((size_t)neq + 1, sizeof *B->start);
    B->off = fc_calloc((size_t)neq + 1, sizeof *B->off);
    B->e = fc_calloc((size_t)neq, sizeof *B->e);
    if (!B->Kt || !B->start || !B->off || !B->e) return -1;
    long tot = 0;
    for (int i = 0; i < neq;) {
        int e = neq <= FC_EQB_DENSE ? neq : i + 1;
        while (e < neq && e - i < FC_EQB_MAX && same_rows(B->Kt, e, i)) e++;
        B->start[B->nb] = i;
        B->off[B->nb++] = tot;
        tot += (long)(e - i) * (e - i);
        i = e;
    }
    B->start[B->nb] = neq;
    if (!(B->L = fc_calloc((size_t)tot, sizeof *B->L))) return -1;
    for (int k = 0; k < B->nb; k++) {
        int a = B->start[k], nk = B->start[k + 1] - a;
        double *L = B->L + B->off[k];
        for (int j = 0; j < nk; j++) {
            const fc_matrix *K = B->Kt;
            for (int q = K->p[a + j]; q < K->p[a + j + 1]; q++) x[K->j[q]] = K->x[q];
            for (int i = 0; i < nk; i++) L[i + (size_t)nk * j] = csr_row_dot(B->Gt, a + i, x);
            for (int q = K->p[a + j]; q < K->p[a + j + 1]; q++) x[K->j[q]] = 0.0;
            if (!(L[j + (size_t)nk * j] > 0)) return 1;
        }
        fc_eqb_chol(nk, L);
    }
    return 0;
}

/* v += (M^-1 G_eq) row i times dl. */
static void move_v(const fc_matrix *Kt, int i, double dl, double *v)
{
    for (int q = Kt->p[i]; q < Kt->p[i + 1]; q++) v[Kt->j[q]] += dl * Kt->x[q];
}

/* One pass over the equality blocks: lambda and v updated. */
static void vblocks_sweep(const vblocks *B, const double *bv, double *lambda, double *v)
{
    for (int k = 0; k < B->nb; k++) {
        int a = B->start[k], nk = B->start[k + 1] - a;
        for (int i = 0; i < nk; i++) B->e[i] = csr_row_dot(B->Gt, a + i, v) + bv[a + i];
        fc_eqb_chol_solve_neg(nk, B->L + B->off[k], B->e);
        for (int i = 0; i < nk; i++) {
            lambda[a + i] += B->e[i];
            move_v(B->Kt, a + i, B->e[i], v);
        }
    }
}

/* ||G_eq'v + b|| / max(1, ||b||). */
static double vblocks_residual(const vblocks *B, const double *bv, const double *v)
{
    double s = 0.0;
    for (int i = 0; i < B->neq; i++) {
        double e = csr_row_dot(B->Gt, i, v) + bv[i];
        s += e * e;
    }
    return sqrt(s) / fmax(1.0, fc_norm2(B->neq, bv));
}

/* The update of contact a: its one-contact problem at the current v,
 * then v moved by G_a (r_a,new - r_a). */
static inline void update(const fc_problem *p, const fc_matrix *Ht, const fc_matrix *Gt,
                          const fc_local *loc, const fc_local_params *par, double *r, double *v,
                          int a)
{
    int d = p->d;
    fc_velocity_contact(&loc[a], par, Ht, Gt, d * a, p->w + d * a, r + d * a, v);
}

/* One sweep over the contacts: in file order, or colour after colour
 * with the contacts of one colour in parallel (static chunks; the barrier
 * of each `omp for` separates the colours). */
static void sweep(const fc_problem *p, const fc_matrix *Ht, const fc_matrix *Gt,
                  const fc_local *loc, const fc_local_params *par, const fc_colouring *c,
                  double *r, double *v)
{
    if (!c->ncolours) {
        for (int a = 0; a < p->nc; a++) update(p, Ht, Gt, loc, par, r, v, a);
        return;
    }
    int nt = fc_threads();
    if (c->stretches) {   /* one stretch per thread (phase by phase), then the interface */
        int S = c->stretches, P = fc_colouring_phases(c), per = fc_phase_groups(c);
#pragma omp parallel num_threads(nt) if (nt > 1)
        for (int ph = 0; ph < P; ph++) {
#pragma omp for schedule(static, 1)
            for (int s = ph * per; s < ph * per + per; s++)
                for (int i = c->start[s]; i < c->start[s + 1]; i++)
                    update(p, Ht, Gt, loc, par, r, v, c->member[i]);
        }
        for (int i = c->start[S]; i < c->start[S + 1]; i++)
            update(p, Ht, Gt, loc, par, r, v, c->member[i]);
        return;
    }
#pragma omp parallel num_threads(nt) if (nt > 1)
    for (int k = 0; k < c->ncolours; k++) {
#pragma omp for schedule(static)
        for (int i = c->start[k]; i < c->start[k + 1]; i++)
            update(p, Ht, Gt, loc, par, r, v, c->member[i]);
    }
}

static fc_status nsgs_v_run(const fc_problem *p, const fc_options *opt, double *r, double *u,
                            double *v, double *lambda, fc_info *info);

fc_status fc_nsgs_v_solve_global(const fc_problem *p, const fc_options *opt, double *r,
                                 double *u, double *v, fc_info *info)
{
    return nsgs_v_run(p, opt, r, u, v, NULL, info);
}

fc_status fc_nsgs_v_solve_global_eq(const fc_problem *p, const fc_options *opt, double *r,
                                    double *u, double *v, double *lambda, fc_info *info)
{
    return nsgs_v_run(p, opt, r, u, v, lambda, info);
}

static fc_status nsgs_v_run(const fc_problem *p, const fc_options *opt, double *r, double *u,
                            double *v, double *lambda, fc_info *info)
{
    int d = p->d, nc = p->nc, n = p->n, m = fc_problem_m(p);
    fc_error err;
    fc_clock clk;
    fc_clock_start(&clk, opt);
    int neq = lambda ? p->neq : 0;
    vblocks B = {0};
    if (neq && fc_matrix_asymmetry(p->M) > NSGS_V_M_SYMMETRIC) {
        snprintf(info->message, sizeof info->message,
                 "nsgs-v with equality rows needs a symmetric M");
        return FC_STATUS_ERROR;
    }
    if (fc_matrix_asymmetry(p->M) > NSGS_V_M_SYMMETRIC) {
        /* M stored non-symmetric (one triangle, or round-off above
         * Cholesky's reach): the reduction factorises it by LU */
        fc_log(opt, 1, "nsgs-v: M is not symmetric; reduced problem and nsgs instead");
        return reduced_nsgs(p, opt, &clk, r, u, v, info);
    }
    fc_matrix *Hc = fc_matrix_to_csr(p->H);
    fc_matrix *Ht = Hc ? fc_csr_transpose(Hc) : NULL;
    fc_matrix_free(Hc);
    fc_chol *F = Ht ? fc_chol_factor(p->M, "M", &err) : NULL;
    double *ws = fc_calloc((size_t)2 * (size_t)n + 1, sizeof *ws);
    fc_local *loc = fc_calloc((size_t)nc + 1, sizeof *loc);
    fc_matrix *Gt = NULL;
    fo_accel aa = {0};
    fc_colouring col = {0};
    double *rplain = NULL;   /* the sweep's plain output (m) */
    fc_status st = FC_STATUS_ERROR;
    if (!Ht || !F || !ws || !loc) {
        snprintf(info->message, sizeof info->message, "nsgs-v: %.200s",
                 F || !Ht ? "out of memory" : err.msg);
        goto done;
    }
    double *b = ws, *x = ws + n;
    Gt = inverse_times(F, Ht, n, 20 * (Ht->nnz + n), b, x);
    memset(x, 0, (size_t)n * sizeof *x);   /* the scatters below start from 0 */
    if (neq) {
        int e = Gt ? vblocks_init(&B, p, F, b, x) : -1;
        if (e) {
            snprintf(info->message, sizeof info->message, "nsgs-v: %s",
                     e > 0 ? "an equality row is empty (G_eq has a zero column)"
                           : "out of memory, or M^-1 H or M^-1 G_eq not sparse");
            goto done;
        }
    }
    if (!Gt) {
        fc_log(opt, 1, "nsgs-v: M^-1 H is not sparse; reduced problem and nsgs instead");
        st = reduced_nsgs(p, opt, &clk, r, u, v, info);
        goto done;
    }
    /* W_aa = H_a^T G_a through a dense scatter of the rows of Gt */
    for (int a = 0; a < nc; a++) {
        double blk[25];
        for (int l = 0; l < d; l++) {
            int jl = d * a + l;
            for (int k = Gt->p[jl]; k < Gt->p[jl + 1]; k++) x[Gt->j[k]] = Gt->x[k];
            for (int k2 = 0; k2 < d; k2++) blk[k2 + l * d] = csr_row_dot(Ht, d * a + k2, x);
            for (int k = Gt->p[jl]; k < Gt->p[jl + 1]; k++) x[Gt->j[k]] = 0.0;
        }
        for (int k = 0; k < d; k++)       /* symmetrise the round-off */
            for (int l = 0; l < k; l++)
                blk[k + l * d] = blk[l + k * d] = 0.5 * (blk[k + l * d] + blk[l + k * d]);
        fc_local_setup(&loc[a], d, blk, p->mu[a], p->mu_r ? p->mu_r[a] : 0.0);
    }
    const fc_nsgs_options *o = &opt->nsgs;
    int order = fc_sweep_order(o->order, nc);
    if (order != FC_ORDER_FILE) {
        int e = order == FC_ORDER_STRETCHES
                    ? fc_stretch_shared(nc, d, Ht, Gt, n, fc_threads(), fc_phases_option(o->phases), &col)
                    : fc_colour_shared(nc, d, Ht, Gt, n, fc_colour_limit(order, nc), &col);
        if (e < 0) {
            snprintf(info->message, sizeof info->message, "out of memory");
            goto done;
        }
        if (col.stretches)
            fc_log(opt, 1, "nsgs-v: %d stretches in %d phases for %d contacts, %d at the interface",
                   col.stretches, fc_colouring_phases(&col), nc, col.start[col.stretches + 1] - col.start[col.stretches]);
        else
            fc_log(opt, 1, e ? "nsgs-v: more than %d colours for %d contacts: file order"
                             : "nsgs-v: %d colours for %d contacts",
                   e ? fc_colour_limit(order, nc) : col.ncolours, nc);
    }
    fc_local_params par = {o->local, o->local_tol > 0 ? o->local_tol : 1e-14,
                           o->local_max_iter > 0 ? o->local_max_iter : 20};
    /* v = M^-1 (H r + G_eq lambda + f) */
    fc_affine(p->H, r, p->f, b);
    if (neq) fc_matrix_gemv(p->G, 1.0, lambda, 1.0, b);
    if (fc_chol_solve(F, b, v, &err) != FC_OK) {
        snprintf(info->message, sizeof info->message, "nsgs-v: %.200s", err.msg);
        goto done;
    }
    /* safeguarded Anderson acceleration of the sweeps, as in nsgs (options
     * nsgs.anderson*, the same plain phases and no rest after a
     * rejection): r extrapolated, projected, and v moved along by G */
    if (fo_accel_init_nsgs(&aa, o, m) ||
        (aa.on && !(rplain = fc_calloc((size_t)m, sizeof *rplain)))) {
        snprintf(info->message, sizeof info->message, "out of memory");
        goto done;
    }
    fo_run R;
    if (fo_run_begin(&R, p, opt, 0, 1, opt->tolerance, opt->max_iter, NULL, r)) {
        snprintf(info->message, sizeof info->message, "out of memory");
        goto done;
    }
    int rs = -1;
    for (int it = 0;; it++) {
        for (int i = 0; i < m; i++) u[i] = csr_row_dot(Ht, i, v) + p->w[i];
        double err = fc_error_local(p, r, u);
        if (neq) err = fmax(err, vblocks_residual(&B, p->b, v));
        if ((rs = fo_run_check(&R, it, r, err)) >= 0) break;
        fo_accel_save(&aa, r, m);
        if (neq) vblocks_sweep(&B, p->b, lambda, v);
        sweep(p, Ht, Gt, loc, &par, &col, r, v);
        if (!aa.on) continue;
        memcpy(rplain, r, (size_t)m * sizeof *r);
        if (fo_accel_apply(&aa, p, it, R.error, NULL, r))
            for (int j = 0; j < m; j++) {   /* v += G (r - rplain) */
                double dr = r[j] - rplain[j];
                if (dr == 0.0) continue;
                for (int q = Gt->p[j]; q < Gt->p[j + 1]; q++) v[Gt->j[q]] += dr * Gt->x[q];
            }
    }
    /* the best iterate and its v, recomputed exactly (with equality rows
     * the last: lambda goes with it) */
    if ((!neq && R.error > R.best_err) || !fc_all_finite((size_t)m, r))
        memcpy(r, R.best, (size_t)m * sizeof *r);
    free(R.best);
    fc_affine(p->H, r, p->f, b);
    if (neq) fc_matrix_gemv(p->G, 1.0, lambda, 1.0, b);
    fc_chol_solve(F, b, v, NULL);
    for (int i = 0; i < m; i++) u[i] = csr_row_dot(Ht, i, v) + p->w[i];
    st = fo_run_report(&R, (fc_status)rs, info);
done:
    vblocks_free(&B);
    fc_colouring_free(&col);
    fo_accel_free(&aa);
    free(rplain);
    fc_matrix_free(Ht);
    fc_matrix_free(Gt);
    fc_chol_free(F);
    free(ws);
    free(loc);
    return st;
}

fc_status fc_nsgs_v_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                          fc_info *info)
{
    fc_log(opt, 1, "nsgs-v on a local problem (no M, H): nsgs");
    return fc_nsgs_solve(p, opt, r, u, info);
}
