/* dist-apgd: accelerated projected gradient (Nesterov, with apgd's
 * backtracking Lipschitz estimate and gradient restart) on the global
 * form, distributed over dist-nsgs's layout (work.c).
 * The operator is that of the Coulomb problem, not of its convex
 * relaxation: at y, g = u + mu ||u_T|| e_N with u = H^T v(y) + w (De
 * Saxcé's modified velocity), so that a fixed point r = P_K(r - g / L)
 * is a solution of the SPEC measure; the estimate L is grown until
 * (x+ - y)^T W (x+ - y) <= L ||x+ - y||^2.  W is never formed: each rank
 * moves the velocity by its contacts' G (x+ - y), G = k M^-1 H as in the
 * sweeps, and the interface exchange sums the copies' changes, giving
 * v(x+) on every local body; u and W d follow from its rows of H^T.
 * One exchange and two reductions (the step's dot products, the error)
 * per iteration, plus one exchange and one reduction per rejected L; the
 * first L is apgd's ||W 1|| / sqrt(m) (one product).
 * Iterates, steps and sums are per owned contact, the sums added up in
 * rank order: every rank takes the same decisions. */
#include "internal.h"
#include "dist/dist.h"
#include "matrix/bsr.h"

#include <stdio.h>
#include <time.h>

/* Most estimates of L tried in one iteration. */
#define DAPGD_MAX_BACKTRACK 60

/* w->v = v0 + G (w->rl - r0), made consistent by the exchange (the rest
 * counted as this rank's work).  Collective. */
static void move(fc_dist_work *w, const double *r0, const double *v0)
{
    clock_t c0 = clock();
    int rows = w->d * w->L.nown;
    memcpy(w->v, v0, (size_t)w->nv * sizeof *v0);
    memcpy(w->X.vstart, v0, (size_t)w->nv * sizeof *v0);
    for (int j = 0; j < rows; j++) {
        double dr = w->rl[j] - r0[j];
        if (dr == 0.0) continue;
        for (int t = w->Gl->p[j]; t < w->Gl->p[j + 1]; t++) w->v[w->Gl->j[t]] += dr * w->Gl->x[t];
    }
    w->work += (double)(clock() - c0) / CLOCKS_PER_SEC;
    fc_dist_exchange_run(&w->L, &w->X, w->v);
}

static void project(fc_dist_work *w, const fc_problem *p, double *r)
{
    for (int o = 0; o < w->L.nown; o++) {
        int a = w->L.own[o];
        fc_project_cone(w->d, p->mu[a], p->mu_r ? p->mu_r[a] : 0.0, r + (size_t)w->d * o);
    }
}

static fc_status iterate(fc_dist_work *w, const fc_problem *p, const fc_options *opt,
                         const fc_clock *clk, int cap, int *capped, fc_info *info)
{
    const fc_apgd_options *o = &opt->apgd;
    int d = w->d, rows = d * w->L.nown, nv = w->nv;
    double *x = fc_calloc((size_t)rows + 1, sizeof *x), *y = fc_calloc((size_t)rows + 1, sizeof *y);
    double *g = fc_calloc((size_t)rows + 1, sizeof *g);
    double *vx = fc_calloc((size_t)nv + 1, sizeof *vx), *vy = fc_calloc((size_t)nv + 1, sizeof *vy);
    *capped = 0;
    info->iterations = 0;
    if (!x || !y || !g || !vx || !vy) {
        free(x); free(y); free(g); free(vx); free(vy);
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    double L = o->L0;
    if (!(L > 0.0)) {   /* ||W 1|| / sqrt(m), as apgd: the same for any partition */
        memcpy(y, w->rl, (size_t)rows * sizeof *y);
        memcpy(vy, w->v, (size_t)nv * sizeof *vy);
        for (int j = 0; j < rows; j++) w->rl[j] = 1.0;
        move(w, x, vx);   /* x, vx still zero: v = G 1 */
        double s2[2] = {0.0, (double)rows};
        for (int j = 0; j < rows; j++) {
            double t = csr_row_dot(w->Hl, j, w->v);
            s2[0] += t * t;
        }
        fc_dist_sum(w->L.comm, s2, 2, w->red);
        L = s2[1] > 0.0 ? sqrt(s2[0]) / sqrt(s2[1]) : 1.0;
        if (!(L > 0.0) || !isfinite(L)) L = 1.0;
        memcpy(w->rl, y, (size_t)rows * sizeof *y);
        memcpy(w->v, vy, (size_t)nv * sizeof *vy);
    }
    /* the start, made feasible */
    memcpy(x, w->rl, (size_t)rows * sizeof *x);
    memcpy(vx, w->v, (size_t)nv * sizeof *vx);
    project(w, p, w->rl);
    move(w, x, vx);
    memcpy(x, w->rl, (size_t)rows * sizeof *x);
    memcpy(vx, w->v, (size_t)nv * sizeof *vx);
    memcpy(y, x, (size_t)rows * sizeof *y);
    memcpy(vy, vx, (size_t)nv * sizeof *vy);
    int it = 0, expired = 0, restarts = 0, rejected = 0;
    double theta = 1.0;
    double err = fc_dist_measure(w, p, clk, &expired), best = isfinite(err) ? err : INFINITY;
    memcpy(w->best, w->rl, (size_t)rows * sizeof *w->rl);
    fc_status st = err <= opt->tolerance ? FC_CONVERGED : FC_MAX_ITER;
    while (st == FC_MAX_ITER) {
        if (fc_dist_limits(opt, it, cap, expired, best, "iteration", &st, capped, info)) break;
        clock_t c0 = clock();
        for (int c = 0; c < w->L.nown; c++) {   /* g = u_hat at y */
            int a = w->L.own[c];
            double *ga = g + (size_t)d * c, t2 = 0.0;
            for (int k = 0; k < d; k++) ga[k] = csr_row_dot(w->Hl, d * c + k, vy) + p->w[(size_t)d * a + k];
            for (int k = 1; k < d; k++) t2 += ga[k] * ga[k];
            ga[0] += p->mu[a] * sqrt(t2);
        }
        double s[3];   /* ||x+ - y||^2, (x+ - y)^T W (x+ - y), g^T (x+ - x) */
        for (int ls = 0;; ls++) {
            for (int j = 0; j < rows; j++) w->rl[j] = y[j] - g[j] / L;
            project(w, p, w->rl);
            w->work += (double)(clock() - c0) / CLOCKS_PER_SEC;
            move(w, y, vy);
            c0 = clock();
            s[0] = s[1] = s[2] = 0.0;
            for (int j = 0; j < rows; j++) {
                double dj = w->rl[j] - y[j];
                s[0] += dj * dj;
                s[1] += dj * (csr_row_dot(w->Hl, j, w->v) - csr_row_dot(w->Hl, j, vy));
                s[2] += g[j] * (w->rl[j] - x[j]);
            }
            fc_dist_sum(w->L.comm, s, 3, w->red);
            if (!(s[1] > L * s[0]) || ls == DAPGD_MAX_BACKTRACK) break;
            L *= o->L_grow;
            rejected++;
        }
        it++;
        w->work += (double)(clock() - c0) / CLOCKS_PER_SEC;
        err = fc_dist_measure(w, p, clk, &expired);
        if (fc_dist_take(w, err, &best, it, "iteration", &st, info)) break;
        fc_log(opt, 2, "dist-apgd iteration %d error %.3e L %.3e", it, err, L);
        if (err <= opt->tolerance) { st = FC_CONVERGED; break; }
        if (fc_dist_progress(w, opt, it, err, "iteration", info)) break;
        c0 = clock();
        double tn = 0.5 * (-theta * theta + theta * sqrt(theta * theta + 4.0));
        double beta = theta * (1.0 - theta) / (theta * theta + tn);
        theta = tn;
        if (o->restart && s[2] > 0.0) {   /* the step opposes the gradient: restart */
            restarts++;
            theta = 1.0;
            beta = 0.0;
        }
        for (int j = 0; j < rows; j++) {
            y[j] = w->rl[j] + beta * (w->rl[j] - x[j]);
            x[j] = w->rl[j];
        }
        for (int i = 0; i < nv; i++) {   /* v(y): affine in r, the copies moved alike */
            vy[i] = w->v[i] + beta * (w->v[i] - vx[i]);
            vx[i] = w->v[i];
        }
        L *= o->L_shrink;
        w->work += (double)(clock() - c0) / CLOCKS_PER_SEC;
    }
    if (st != FC_CONVERGED) memcpy(w->rl, w->best, (size_t)rows * sizeof *w->rl);
    fc_log(opt, 1, "dist-apgd: %d iterations, %d restarts, %d rejected estimates of L, L %.3e", it,
           restarts, rejected, L);
    info->iterations = it;
    free(x); free(y); free(g); free(vx); free(vy);
    return st;
}

fc_status fc_dist_apgd_solve_global(const fc_problem *p, const fc_options *opt, double *r,
                                    double *u, double *v, fc_info *info)
{
    return fc_dist_run("dist-apgd", iterate, 0, p, opt, r, u, v, info);
}
