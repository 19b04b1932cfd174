/* The machinery of the distributed solvers (dist-nsgs, dist-nncg,
 * dist-apgd): the per-rank setup on the layout (M^-1 of the local bodies,
 * the owned contacts' rows of H^T and of G = k M^-1 H, their W_aa), the
 * per-rank Gauss-Seidel sweep, the globally reduced SPEC error, and the
 * run around a solver's iteration: gathering r on every rank, v and u
 * recomputed, and the serial polish of small problems.
 * Every rank holds the whole problem (each read the file). */
#include "internal.h"
#include "cone/cone.h"
#include "core/stage.h"
#include "measure/measure.h"
#include "dist/dist.h"
#include "solvers/velocity_contact.h"
#include "matrix/bsr.h"

#include <stdio.h>
#include <time.h>

/* A problem of at most this many contacts whose distributed sweeps have
 * not converged after DIST_POLISH_SWEEPS is finished by the serial
 * polisher on rank 0 (said in info->message and the log): Gauss-Seidel
 * alone is slow on some small problems (docs/distributed.md). */
#define DIST_POLISH_CONTACTS 5000
#define DIST_POLISH_SWEEPS 1000
#define DIST_POLISHER "nsgs-v"

void fc_dist_work_free(fc_dist_work *w)
{
    fc_dist_exchange_free(&w->X);
    fc_dist_layout_free(&w->L);
    fc_matrix_free(w->Mc); fc_matrix_free(w->Hc_own); fc_matrix_free(w->Hl); fc_matrix_free(w->Gl);
    fc_vsweep_free(&w->vs);
    free(w->inv); free(w->ioff); free(w->loc); free(w->v); free(w->rl); free(w->best);
    free(w->scratch); free(w->piv); free(w->red);
}

static void finalize_at_exit(void)
{
    int done = 0;
    MPI_Finalized(&done);
    if (!done) MPI_Finalize();
}

void fc_dist_ensure_init(void)
{
    int on = 0;
    MPI_Initialized(&on);
    if (on) return;
    MPI_Init(NULL, NULL);
    atexit(finalize_at_exit);
}

/* ---- a body's block of M, dense LU ---- */

/* A (s x s, column-major) = M restricted to body b's dofs. */
static void body_matrix(const fc_matrix *Mc, const fc_dist_layout *L, int b, double *A)
{
    int s = L->bstart[b + 1] - L->bstart[b];
    memset(A, 0, (size_t)s * s * sizeof *A);
    for (int k = 0; k < s; k++) {
        int i = L->bdof[L->bstart[b] + k];
        for (int t = Mc->p[i]; t < Mc->p[i + 1]; t++) A[k + L->dof_pos[Mc->j[t]] * s] += Mc->x[t];
    }
}

/* LU with partial pivoting in place; 1 when singular. */
static int lu_factor(int s, double *A, int *piv)
{
    for (int c = 0; c < s; c++) {
        int pr = c;
        for (int i = c + 1; i < s; i++) if (fabs(A[i + c * s]) > fabs(A[pr + c * s])) pr = i;
        piv[c] = pr;
        if (!(fabs(A[pr + c * s]) > 0.0)) return 1;
        if (pr != c)
            for (int j = 0; j < s; j++) { double t = A[c + j * s]; A[c + j * s] = A[pr + j * s]; A[pr + j * s] = t; }
        for (int i = c + 1; i < s; i++) {
            double l = A[i + c * s] /= A[c + c * s];
            if (l != 0.0) for (int j = c + 1; j < s; j++) A[i + j * s] -= l * A[c + j * s];
        }
    }
    return 0;
}

static void lu_solve(int s, const double *A, const int *piv, double *x)
{
    for (int c = 0; c < s; c++)
        if (piv[c] != c) { double t = x[c]; x[c] = x[piv[c]]; x[piv[c]] = t; }
    for (int c = 0; c < s; c++)
        for (int i = c + 1; i < s; i++) x[i] -= A[i + c * s] * x[c];
    for (int i = s - 1; i >= 0; i--) {
        for (int j = i + 1; j < s; j++) x[i] -= A[i + j * s] * x[j];
        x[i] /= A[i + i * s];
    }
}

/* v of body b: M_b^-1 (f_b + (H r)_b), into out (s values); A, piv: scratch. */
static int body_velocity(const fc_problem *p, const fc_matrix *Mc, const fc_dist_work *w, int b,
                         const double *r, double *A, int *piv, double *out)
{
    const fc_dist_layout *L = &w->L;
    int s = L->bstart[b + 1] - L->bstart[b];
    for (int k = 0; k < s; k++) {
        int i = L->bdof[L->bstart[b] + k];
        double x = p->f[i];
        for (int t = w->Hc->p[i]; t < w->Hc->p[i + 1]; t++) x += w->Hc->x[t] * r[w->Hc->j[t]];
        out[k] = x;
    }
    body_matrix(Mc, L, b, A);
    if (lu_factor(s, A, piv)) return 1;
    lu_solve(s, A, piv, out);
    return 0;
}

/* ---- setup ---- */

#define LAP(k) do { clock_t c1 = clock(); w->lap[k] = (double)(c1 - c0) / CLOCKS_PER_SEC; c0 = c1; } while (0)

/* Hl, the owned contacts' rows of H^T over the local velocity (row d o +
 * k: component k of the o-th owned contact; its columns the local
 * indices of the dofs, in the order of the global dofs, as a row of H^T
 * holds them), straight from H's rows: a transpose of this rank's
 * columns only, through a map from H's columns to Hl's rows (no
 * division per entry).  NULL when out of memory. */
static fc_matrix *owned_rows(const fc_matrix *Hc, const fc_dist_layout *L, int d, int nc, int nv)
{
    int rows = d * L->nown, m = d * nc;
    int *row = fc_calloc((size_t)m + 1, sizeof *row), *next = fc_calloc((size_t)rows + 2, sizeof *next);
    fc_matrix *T = NULL;
    if (!row || !next) goto out;
    for (int c = 0; c < m; c++) row[c] = -1;
    for (int o = 0; o < L->nown; o++)
        for (int k = 0; k < d; k++) row[d * L->own[o] + k] = d * o + k;
    /* an owned contact's columns are nonzero in its bodies' rows only, and
     * its bodies are local: the other rows are skipped */
    for (int j = 0; j < Hc->rows; j++) {
        if (L->glob2loc[L->dof_body[j]] < 0) continue;
        for (int t = Hc->p[j]; t < Hc->p[j + 1]; t++)
            if (row[Hc->j[t]] >= 0) next[row[Hc->j[t]] + 1]++;
    }
    for (int i = 0; i < rows; i++) next[i + 1] += next[i];
    if (!(T = fc_matrix_csr(rows, nv, next[rows]))) goto out;
    memcpy(T->p, next, ((size_t)rows + 1) * sizeof *next);
    for (int j = 0; j < Hc->rows; j++) {
        int i = L->glob2loc[L->dof_body[j]];
        if (i < 0) continue;
        int lj = L->loff[i] + L->dof_pos[j];
        for (int t = Hc->p[j]; t < Hc->p[j + 1]; t++) {
            int r = row[Hc->j[t]];
            if (r < 0) continue;
            T->j[next[r]] = lj;
            T->x[next[r]++] = Hc->x[t];
        }
    }
out:
    free(row); free(next);
    return T;
}

/* M^-1 of the local bodies, Hl, the contacts' W_aa, the first v; for a
 * solver that sweeps, the sweep's data per contact (nncg.sweep_data), else
 * (or on the CSR rows) Gl and the contacts' fc_local. */
static int setup(const fc_problem *p, const fc_options *opt, int sweeps, const double *r, fc_dist_work *w,
                 char *msg, size_t len)
{
    fc_dist_layout *L = &w->L;
    int d = p->d, rows = d * L->nown, ret = 1;
    clock_t c0 = clock();
    const fc_matrix *Mc = w->Mc;
    /* the per-contact layout needs neither G's rows nor the fc_local array */
    int csr = !sweeps || opt->nncg.sweep_data == FC_VSWEEP_CSR;
    snprintf(msg, len, "out of memory");
    LAP(0);
    w->nv = L->loff[L->nloc];
    w->ioff = fc_calloc((size_t)L->nloc + 1, sizeof *w->ioff);
    for (int b = 0; b < L->nb; b++)
        if (L->bstart[b + 1] - L->bstart[b] > w->maxs) w->maxs = L->bstart[b + 1] - L->bstart[b];
    size_t ms = (size_t)w->maxs;
    w->scratch = fc_calloc(ms * ms + 2 * ms + (size_t)w->nv + 1, sizeof *w->scratch);
    w->piv = fc_calloc(ms + 1, sizeof *w->piv);
    w->v = fc_calloc((size_t)w->nv + 1, sizeof *w->v);
    w->rl = fc_calloc((size_t)rows + 1, sizeof *w->rl);
    w->best = fc_calloc((size_t)rows + 1, sizeof *w->best);
    w->loc = csr ? fc_calloc((size_t)L->nown + 1, sizeof *w->loc) : NULL;
    w->red = fc_calloc((size_t)L->size * FC_DIST_SUM_MAX + 1, sizeof *w->red);
    if (!w->red || !w->ioff || !w->scratch || !w->piv || !w->v || !w->rl || !w->best || (csr && !w->loc)) goto out;
    double *A = w->scratch, *x = A + ms * ms;
    double *h = x + ms, *dense = h + ms;
    long isz = 0;
    for (int i = 0; i < L->nloc; i++) {
        int s = L->loff[i + 1] - L->loff[i];
        w->ioff[i] = (int)isz;
        isz += (long)s * s;
    }
    if (!(w->inv = fc_calloc((size_t)isz + 1, sizeof *w->inv))) goto out;
    for (int i = 0; i < L->nloc; i++) {   /* columns of M_b^-1 */
        int b = L->loc[i], s = L->loff[i + 1] - L->loff[i];
        body_matrix(Mc, L, b, A);
        if (lu_factor(s, A, w->piv)) {
            snprintf(msg, len, "M is singular (the block of dof %d)", L->bdof[L->bstart[b]]);
            goto out;
        }
        for (int c = 0; c < s; c++) {
            double *col = w->inv + w->ioff[i] + (size_t)c * s;
            col[c] = 1.0;
            lu_solve(s, A, w->piv, col);
        }
    }
    LAP(1);
    /* Hl: the owned contacts' rows of H^T, over the local v */
    if (!(w->Hl = owned_rows(w->Hc, L, d, p->nc, w->nv))) goto out;
    long gnz = 0;
    for (int o = 0; o < L->nown; o++) {
        int a = L->own[o];
        for (int s = L->cptr[a]; s < L->cptr[a + 1]; s++)
            gnz += (long)d * (L->bstart[L->cbody[s] + 1] - L->bstart[L->cbody[s]]);
    }
    if (csr && !(w->Gl = fc_matrix_csr(rows, w->nv, gnz))) goto out;
    LAP(2);
    /* the sweep's data per contact (the bodies' dofs are ranges of the local v) */
    if (!csr) {
        long *boff = fc_calloc((size_t)L->nloc + 1, sizeof *boff);
        if (!boff) goto out;
        for (int i = 0; i < L->nloc; i++) boff[i] = w->ioff[i];
        int vs = fc_vsweep_build(&w->vs, opt->nncg.sweep_data, d, L->nown, w->Hl, L->nloc, L->loff, w->inv,
                                 boff, L->nsplit);
        free(boff);
        if (vs < 0) goto out;
        if (vs > 0) {   /* a segment too long: the CSR rows after all */
            if (!(w->loc = fc_calloc((size_t)L->nown + 1, sizeof *w->loc)) ||
                !(w->Gl = fc_matrix_csr(rows, w->nv, gnz))) goto out;
            csr = 1;
        }
    }
    LAP(3);
    /* G_a = k M_b^-1 H_a body by body (its row l in dense, and in Gl when kept);
     * W_aa = H_a^T G_a (with the split masses), symmetrised for the one-contact solver */
    memset(dense, 0, (size_t)w->nv * sizeof *dense);
    long gk = 0;
    for (int o = 0; o < L->nown; o++) {
        int a = L->own[o];
        double W[25];
        for (int l = 0; l < d; l++) {
            int jl = d * o + l, grow = jl;
            for (int sb = L->cptr[a]; sb < L->cptr[a + 1]; sb++) {
                int i = L->glob2loc[L->cbody[sb]], lo = L->loff[i], s = L->loff[i + 1] - lo;
                memset(h, 0, (size_t)s * sizeof *h);
                for (int t = w->Hl->p[grow]; t < w->Hl->p[grow + 1]; t++)
                    if (w->Hl->j[t] >= lo && w->Hl->j[t] < lo + s) h[w->Hl->j[t] - lo] += w->Hl->x[t];
                const double *B = w->inv + w->ioff[i];
                for (int e = 0; e < s; e++) {
                    double g = 0.0;
                    for (int c = 0; c < s; c++) g += B[e + (size_t)c * s] * h[c];
                    dense[L->loff[i] + e] = g * L->nsplit[i];
                    if (csr) {
                        w->Gl->j[gk] = L->loff[i] + e;
                        w->Gl->x[gk++] = g * L->nsplit[i];
                    }
                }
            }
            if (csr) w->Gl->p[jl + 1] = (int)gk;
            for (int k = 0; k < d; k++) {
                double sum = 0.0;
                for (int t = w->Hl->p[d * o + k]; t < w->Hl->p[d * o + k + 1]; t++)
                    sum += w->Hl->x[t] * dense[w->Hl->j[t]];
                W[k + l * d] = sum;
            }
            for (int sb = L->cptr[a]; sb < L->cptr[a + 1]; sb++) {
                int i = L->glob2loc[L->cbody[sb]];
                memset(dense + L->loff[i], 0, (size_t)(L->loff[i + 1] - L->loff[i]) * sizeof *dense);
            }
        }
        for (int k = 0; k < d; k++)
            for (int l = 0; l < k; l++) W[k + l * d] = W[l + k * d] = 0.5 * (W[k + l * d] + W[l + k * d]);
        fc_local c;
        fc_local_setup(csr ? &w->loc[o] : &c, d, W, p->mu[a], p->mu_r ? p->mu_r[a] : 0.0);
        if (!csr) fc_vsweep_set_local(&w->vs, o, &c);
        memcpy(w->rl + (size_t)d * o, r + (size_t)d * a, (size_t)d * sizeof *r);
    }
    LAP(4);
    /* the first v, from the whole r */
    for (int i = 0; i < L->nloc; i++)
        if (body_velocity(p, Mc, w, L->loc[i], r, A, w->piv, w->v + L->loff[i])) {
            snprintf(msg, len, "M is singular");
            goto out;
        }
    if (fc_dist_exchange_init(L, &w->X, w->v)) goto out;
    LAP(5);
    ret = 0;
out:
    return ret;
}

/* ---- the iteration's parts ---- */

void fc_dist_sum_start(MPI_Comm comm, const double *s, int n, double *all, MPI_Request *req)
{
    MPI_Iallgather(s, n, MPI_DOUBLE, all, n, MPI_DOUBLE, comm, req);
}

void fc_dist_sum_end(MPI_Comm comm, double *s, int n, const double *all, MPI_Request *req)
{
    int K = 1;
    MPI_Comm_size(comm, &K);
    MPI_Wait(req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) {
        s[i] = 0.0;
        for (int k = 0; k < K; k++) s[i] += all[(size_t)k * n + i];
    }
}

void fc_dist_sum(MPI_Comm comm, double *s, int n, double *all)
{
    MPI_Request req;
    fc_dist_sum_start(comm, s, n, all, &req);
    fc_dist_sum_end(comm, s, n, all, &req);
}

void fc_dist_sweep(fc_dist_work *w, const fc_problem *p, const fc_local_params *par)
{
    clock_t c0 = clock();
    int d = w->d;
    int nown = w->L.nown;
    for (int o = 0; o < nown; o++) {
        const double *wa = p->w + (size_t)d * w->L.own[o];
        if (w->vs.val)
            fc_vsweep_contact(&w->vs, o, o + 1 < nown ? o + 1 : -1, par, wa, w->rl + (size_t)d * o, w->v);
        else
            fc_velocity_contact(&w->loc[o], par, w->Hl, w->Gl, d * o, wa, w->rl + (size_t)d * o, w->v);
    }
    w->work += (double)(clock() - c0) / CLOCKS_PER_SEC;
}

/* The global SPEC error at the consistent v (after an exchange), and
 * whether any rank's clock has expired.  Collective. */
double fc_dist_measure(fc_dist_work *w, const fc_problem *p, const fc_clock *clk, int *expired)
{
    clock_t c0 = clock();
    int d = w->d;
    double s[5] = {0};   /* e^2, r^2, u^2, w^2, expired */
    for (int o = 0; o < w->L.nown; o++) {
        int a = w->L.own[o];
        double u[5], e[5], *ra = w->rl + (size_t)d * o;
        for (int k = 0; k < d; k++) u[k] = csr_row_dot(w->Hl, d * o + k, w->v) + p->w[d * a + k];
        fc_contact_residual(d, p->mu[a], p->mu_r ? p->mu_r[a] : 0.0, ra, u, e);
        for (int k = 0; k < d; k++) {
            s[0] += e[k] * e[k];
            s[1] += ra[k] * ra[k];
            s[2] += u[k] * u[k];
            s[3] += p->w[d * a + k] * p->w[d * a + k];
        }
    }
    s[4] = fc_clock_expired(clk) ? 1.0 : 0.0;
    w->work += (double)(clock() - c0) / CLOCKS_PER_SEC;
    fc_dist_sum(w->L.comm, s, 5, w->red);
    *expired = s[4] > 0.0;
    double sc = sqrt(fmax(s[3], fmax(s[1], s[2])));
    if (!(sc >= 1e-300)) sc = 1.0;
    return isfinite(s[0]) && isfinite(s[1]) && isfinite(s[2]) ? sqrt(s[0]) / sc : NAN;
}

/* ---- the gathered result ---- */

/* r of every contact on every rank, from the owners' r. */
static int gather_r(fc_dist_work *w, const fc_problem *p, double *r)
{
    const fc_dist_layout *L = &w->L;
    int d = p->d, K = L->size;
    int *cnt = fc_calloc((size_t)K + 1, sizeof *cnt), *dis = fc_calloc((size_t)K + 1, sizeof *dis);
    int *fill = fc_calloc((size_t)K + 1, sizeof *fill);
    double *all = fc_calloc((size_t)d * p->nc + 1, sizeof *all);
    /* every rank learns whether one ran out of memory: none enters the
     * gather alone, none returns alone */
    int bad = !cnt || !dis || !fill || !all, any = bad;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, L->comm);
    if (any) { free(cnt); free(dis); free(fill); free(all); return 1; }
    for (int a = 0; a < p->nc; a++) cnt[L->owner[a]] += d;
    for (int k = 1; k < K; k++) dis[k] = dis[k - 1] + cnt[k - 1];
    MPI_Allgatherv(w->rl, d * L->nown, MPI_DOUBLE, all, cnt, dis, MPI_DOUBLE, L->comm);
    for (int a = 0; a < p->nc; a++) {   /* each rank sent its contacts in file order */
        int k = L->owner[a];
        memcpy(r + (size_t)d * a, all + dis[k] + fill[k], (size_t)d * sizeof *r);
        fill[k] += d;
    }
    free(cnt); free(dis); free(fill); free(all);
    return 0;
}

/* v = M^-1 (H r + f) body by body, u = H^T v + w, on every rank. */
static int finish(fc_dist_work *w, const fc_problem *p, const double *r, double *u, double *v)
{
    double *A = w->scratch, *x = A + (size_t)w->maxs * w->maxs;
    for (int b = 0; b < w->L.nb; b++) {
        if (body_velocity(p, w->Mc, w, b, r, A, w->piv, x)) return 1;
        for (int k = 0; k < w->L.bstart[b + 1] - w->L.bstart[b]; k++) v[w->L.bdof[w->L.bstart[b] + k]] = x[k];
    }
    /* u = H^T v + w by H's rows: each u_i summed over the dofs in ascending
     * order from 0, as a row of H^T would be */
    const fc_matrix *H = w->Hc;
    memset(u, 0, (size_t)w->d * p->nc * sizeof *u);
    for (int j = 0; j < H->rows; j++)
        for (int t = H->p[j]; t < H->p[j + 1]; t++) u[H->j[t]] += H->x[t] * v[j];
    for (int i = 0; i < w->d * p->nc; i++) u[i] += p->w[i];
    return 0;
}

/* The serial polisher on rank 0 from the gathered r, with what is left
 * of the budget; its r broadcast.  Collective. */
static fc_status polish(fc_dist_work *w, const char *name, const fc_problem *p, const fc_options *opt, const fc_clock *clk,
                        double *r, double *u, double *v, fc_info *info)
{
    int sweeps = info->iterations;
    long res[2] = {FC_MAX_ITER, 0};   /* status, iterations */
    if (w->L.rank == 0) {
        fc_options o = *opt;
        o.max_iter = opt->max_iter - sweeps;
        o.time_limit = fc_time_left(clk);
        o.progress = NULL;
        o.r0 = NULL;
        fc_info pi;
        memset(&pi, 0, sizeof pi);
        res[0] = fc_solver_find(DIST_POLISHER)->solve_global(p, &o, r, u, v, &pi);
        res[1] = pi.iterations;
    }
    MPI_Bcast(res, 2, MPI_LONG, 0, w->L.comm);
    MPI_Bcast(r, p->d * p->nc, MPI_DOUBLE, 0, w->L.comm);
    info->iterations = sweeps + (int)res[1];
    snprintf(info->message, sizeof info->message,
             "%d distributed sweeps, then polished by serial %s on rank 0 (%ld sweeps; nc <= %d)",
             sweeps, DIST_POLISHER, res[1], DIST_POLISH_CONTACTS);
    fc_log(opt, 0, "%s: %s", name, info->message);
    return (fc_status)res[0];
}

fc_status fc_dist_run(const char *name, fc_dist_iterate_fn iterate, int polished,
                      const fc_problem *p, const fc_options *opt, double *r, double *u, double *v,
                      fc_info *info)
{
    fc_dist_ensure_init();
    fc_dist_work w = {0};
    w.d = p->d;
    fc_clock clk;
    fc_clock_start(&clk, opt);
    if (!fc_all_finite((size_t)p->d * p->nc, r)) memset(r, 0, (size_t)p->d * p->nc * sizeof *r);
    char msg[200];
    clock_t c_setup = clock();
    snprintf(msg, sizeof msg, "out of memory");
    w.Mc = fc_matrix_to_csr(p->M);
    w.Hc = p->H->kind == FC_MAT_CSR ? p->H : (w.Hc_own = fc_matrix_to_csr(p->H));   /* the reader's CSR, not a copy */
    int bad = !w.Mc || !w.Hc ||
              fc_dist_layout_build(p, w.Mc, w.Hc, r, opt->dist.active_cost, MPI_COMM_WORLD, &w.L, msg,
                                   sizeof msg);
    double c_layout = (double)(clock() - c_setup) / CLOCKS_PER_SEC;
    bad = bad || setup(p, opt, polished, r, &w, msg, sizeof msg);   /* the polished ones sweep */
    double c_setup_all = (double)(clock() - c_setup) / CLOCKS_PER_SEC;   /* with the partition's wait */
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) {
        snprintf(info->message, sizeof info->message, "%s: %s", name, msg);
        fc_dist_work_free(&w);
        return FC_STATUS_ERROR;
    }
    long cost = 0;   /* the partition's balance: owned contacts, the active ones dist.active_cost */
    for (int o = 0; o < w.L.nown; o++) cost += r[(size_t)p->d * w.L.own[o]] > 0.0 ? opt->dist.active_cost : 1;
    long shared[4] = {w.L.nif, w.L.nbuf[w.L.nnb], w.L.nnb, cost}, most[2] = {w.L.nown, cost};
    MPI_Allreduce(MPI_IN_PLACE, shared, 4, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, most, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    fc_log(opt, 1, "%s: %d ranks, %d bodies, interface: %ld body copies, %ld dofs sent and "
           "%ld messages per sweep; contacts: %d on rank 0, %ld on the busiest rank; cost (a contact 1, "
           "one active in r %d): %ld on the busiest rank of %ld; setup %.3f s (rank 0's layout %.3f s CPU)",
           name, w.L.size, w.L.nb, shared[0], shared[1], shared[2], w.L.nown, most[0], opt->dist.active_cost,
           most[1], shared[3], fc_clock_elapsed(&clk), c_layout);
    double lap[9];
    memcpy(lap, w.lap, 6 * sizeof *lap);
    lap[6] = c_layout;
    lap[7] = w.L.cpu_part;
    lap[8] = w.L.wait_part;
    MPI_Allreduce(MPI_IN_PLACE, lap, 9, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    fc_log(opt, 1, "%s: waited up to %.3f s (wall) for the partition; setup CPU, the slowest rank's: M as CSR "
           "and the layout %.3f s (rank 0's partition %.3f s); arrays %.3f, M^-1 blocks %.3f, owned rows "
           "%.3f, sweep data %.3f, G and W_aa %.3f, first v %.3f s", name, lap[8], lap[6], lap[7], lap[0],
           lap[1], lap[2], lap[3], lap[4], lap[5]);
    int capped = 0, small = polished && p->nc <= DIST_POLISH_CONTACTS && fc_solver_find(DIST_POLISHER);
    /* CPU seconds, the busiest rank's: the iterations, of which the rank's own
     * work; the setup (layout, partition, blocks); gathering r and finishing */
    double cpu[4] = {(double)clock(), 0.0, c_setup_all, 0.0};
    fc_status st = iterate(&w, p, opt, &clk, small ? DIST_POLISH_SWEEPS : opt->max_iter, &capped, info);
    cpu[0] = ((double)clock() - cpu[0]) / CLOCKS_PER_SEC;   /* the iterations' CPU, the busiest rank's */
    cpu[1] = w.work;                                         /* of which the rank's own work */
    clock_t c_end = clock();
    int bad_end = gather_r(&w, p, r);
    if (!bad_end && capped) st = polish(&w, name, p, opt, &clk, r, u, v, info);
    /* finish is each rank's own: its failure is agreed on before the
     * collectives below, so that no rank waits for one that left */
    int bad_finish = bad_end ? 2 : finish(&w, p, r, u, v), any_bad = bad_finish;
    MPI_Allreduce(&bad_finish, &any_bad, 1, MPI_INT, MPI_MAX, w.L.comm);
    if (any_bad) {
        snprintf(info->message, sizeof info->message, "%s",
                 any_bad == 2 ? "out of memory" : "a singular diagonal block of M");
        fc_dist_work_free(&w);
        return FC_STATUS_ERROR;
    }
    cpu[3] = (double)(clock() - c_end) / CLOCKS_PER_SEC;
    /* the least and the most busy rank's own work: the imbalance the waits come from */
    struct { double v; int rank; } least = {w.work, w.L.rank}, busiest = {w.work, w.L.rank};
    MPI_Allreduce(MPI_IN_PLACE, cpu, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &least, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &busiest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    info->residual = fc_error_local(p, r, u);
    info->status = st;
    fc_log(opt, 0, "%s: %s after %d iterations on %d ranks, error %.3e, %.3f s (distributed "
           "iterations: %.3f s CPU on the busiest rank, of which sweeping and measuring %.3f s (rank %d; "
           "the least busy, rank %d, %.3f s), the rest in MPI and the vector passes; setup %.3f s CPU, "
           "gather and finish %.3f s CPU)", name, fc_status_name(st), info->iterations, w.L.size,
           info->residual, fc_clock_elapsed(&clk), cpu[0], cpu[1], busiest.rank, least.rank, least.v, cpu[2],
           cpu[3]);
    fc_dist_work_free(&w);
    return st;
}

int fc_dist_limits(const fc_options *opt, int it, int cap, int expired, double best, const char *what,
                   fc_status *st, int *capped, fc_info *info)
{
    if (it >= cap && cap < opt->max_iter) {
        *capped = 1;
        return 1;
    }
    if (it >= opt->max_iter) {
        snprintf(info->message, sizeof info->message, "%d %ss done, error %.3e > %.1e", it, what, best,
                 opt->tolerance);
        return 1;
    }
    if (expired) {
        *st = FC_TIME_LIMIT;
        snprintf(info->message, sizeof info->message, "time limit after %d %ss, error %.3e", it, what, best);
        return 1;
    }
    return 0;
}

int fc_dist_progress(const fc_dist_work *w, const fc_options *opt, int it, double err, const char *what,
                     fc_info *info)
{
    int stop = opt->progress && opt->progress(opt->progress_user, it, err);
    MPI_Allreduce(MPI_IN_PLACE, &stop, 1, MPI_INT, MPI_MAX, w->L.comm);
    if (stop)
        snprintf(info->message, sizeof info->message, "stopped by the progress callback at %s %d", what, it);
    return stop;
}

int fc_dist_take(fc_dist_work *w, double err, double *best, int it, const char *what, fc_status *st,
                 fc_info *info)
{
    if (isnan(err)) {
        *st = FC_DIVERGED;
        snprintf(info->message, sizeof info->message, "non-finite iterate at %s %d; best iterate kept", what, it);
        return 1;
    }
    if (err < *best) {
        *best = err;
        memcpy(w->best, w->rl, (size_t)w->d * w->L.nown * sizeof *w->rl);
    }
    return 0;
}
