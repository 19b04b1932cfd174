/* dist-nncg: nncg's nonsmooth nonlinear conjugate gradient (Silcowitz,
 * Niebe and Erleben 2010) over dist-nsgs's distributed sweeps.
 * One iteration: x+ = sweep(x) (each rank's Gauss-Seidel over its own
 * contacts, then the interface exchange); g = x+ - x; beta = ||g||^2 /
 * ||g_prev||^2, the norms summed over the owned contacts and added up
 * in rank order (fc_dist_sum: the same beta on every rank); beta above
 * nncg.restart restarts (p = g), else x+ += beta p, p = beta p + g, and
 * v and G p alongside (v stays M^-1 (H r + f): the step is linear in r,
 * and the copies of an interface body move by the same global beta).
 * The error is measured on nncg's schedule (every sweep at first, then
 * when due or predicted near the tolerance), so that one rank is serial
 * nncg in file order (nncg.order = 3, nncg.accel = 1), up to the
 * rounding of M^-1 (LU here, Cholesky there).  nncg.symmetric and
 * nncg.accel = 2 (Anderson) are not distributed: refused. */
#include "internal.h"
#include "dist/dist.h"

#include <stdio.h>
#include <time.h>

/* nncg.c's schedule of measurements: at most this many sweeps apart,
 * and whenever the predicted error is below the margin x the tolerance. */
#define DNNCG_MEASURE_GAP 8
#define DNNCG_PREDICT_MARGIN 2.0

static fc_status iterate(fc_dist_work *w, const fc_problem *p, const fc_options *opt,
                         const fc_clock *clk, int cap, int *capped, fc_info *info)
{
    const fc_nncg_options *o = &opt->nncg;
    fc_local_params par = {o->local, o->local_tol > 0 ? o->local_tol : 1e-14,
                           o->local_max_iter > 0 ? o->local_max_iter : 20};
    int rows = w->d * w->L.nown, nv = w->nv;
    double *x = fc_calloc((size_t)rows + 1, sizeof *x), *pdir = fc_calloc((size_t)rows + 1, sizeof *pdir);
    double *vx = fc_calloc((size_t)nv + 1, sizeof *vx), *vp = fc_calloc((size_t)nv + 1, sizeof *vp);
    *capped = 0;
    info->iterations = 0;
    if (!x || !pdir || !vx || !vp) {
        free(x); free(pdir); free(vx); free(vp);
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    fc_status st = FC_MAX_ITER;
    double err = INFINITY, best_err = INFINITY, gg_prev = 0.0, ratio = 0.0;
    int it = 0, checked_at = 0, restarts = 0, expired = 0;
    memcpy(w->best, w->rl, (size_t)rows * sizeof *w->rl);
    double nz = 0.0;   /* a warm start is an iterate: it may solve the problem */
    for (int i = 0; i < rows; i++) nz += w->rl[i] != 0.0;
    fc_dist_sum(w->L.comm, &nz, 1, w->red);
    if (nz > 0.0) {
        err = best_err = fc_dist_measure(w, p, clk, &expired);
        if (err <= opt->tolerance) st = FC_CONVERGED;
    }
    while (st != FC_CONVERGED) {
        if (fc_dist_limits(opt, it, cap, expired, best_err, "sweep", &st, capped, info)) break;
        memcpy(x, w->rl, (size_t)rows * sizeof *x);
        memcpy(vx, w->v, (size_t)nv * sizeof *vx);
        fc_dist_sweep(w, p, &par);
        it++;
        /* the norms of the owned r (the exchange moves v only), gathered
         * while the exchange runs: one wait for the other ranks a sweep */
        clock_t c0 = clock();
        double s[3] = {0.0, 0.0, fc_clock_expired(clk) ? 1.0 : 0.0};   /* ||g||^2, ||r||^2, expired */
        for (int i = 0; i < rows; i++) {
            double g = w->rl[i] - x[i];
            s[0] += g * g;
            s[1] += w->rl[i] * w->rl[i];
        }
        w->work += (double)(clock() - c0) / CLOCKS_PER_SEC;
        MPI_Request sum;
        fc_dist_sum_start(w->L.comm, s, 3, w->red, &sum);
        fc_dist_exchange_run(&w->L, &w->X, w->v);
        fc_dist_sum_end(w->L.comm, s, 3, w->red, &sum);
        double gg = s[0], rn = s[1];
        expired = s[2] > 0.0;
        if (!(isfinite(gg) && isfinite(rn))) {
            memcpy(w->rl, w->best, (size_t)rows * sizeof *w->rl);
            st = FC_DIVERGED;
            snprintf(info->message, sizeof info->message, "non-finite iterate at sweep %d; best iterate kept", it);
            break;
        }
        double change = sqrt(gg) / fmax(sqrt(rn), 1e-300);
        int due = it == 1 || it - checked_at >= DNNCG_MEASURE_GAP ||
                  !(ratio * change > DNNCG_PREDICT_MARGIN * opt->tolerance);
        if (due || it >= opt->max_iter) {
            int exp2 = 0;
            err = fc_dist_measure(w, p, clk, &exp2);
            expired |= exp2;
            checked_at = it;
            ratio = change > 0.0 ? err / change : 0.0;
            if (err < best_err) {
                best_err = err;
                memcpy(w->best, w->rl, (size_t)rows * sizeof *w->rl);
            }
            fc_log(opt, 2, "dist-nncg sweep %d error %.3e (%d restarts)", it, err, restarts);
            if (err <= opt->tolerance) { st = FC_CONVERGED; break; }
            if (fc_dist_progress(w, opt, it, err, "sweep", info)) break;
        }
        /* the conjugate step; g = r - x, G g = v - vx (consistent: both after an exchange) */
        c0 = clock();
        double beta = gg_prev > 0.0 ? gg / gg_prev : INFINITY;
        gg_prev = gg;
        if (o->accel != 1 || beta > o->restart) {
            restarts++;
            for (int i = 0; i < rows; i++) pdir[i] = w->rl[i] - x[i];
            for (int i = 0; i < nv; i++) vp[i] = w->v[i] - vx[i];
        } else {
            for (int i = 0; i < rows; i++) {
                double g = w->rl[i] - x[i];
                w->rl[i] += beta * pdir[i];
                pdir[i] = beta * pdir[i] + g;
            }
            for (int i = 0; i < nv; i++) {   /* the next exchange counts changes from here */
                double gv = w->v[i] - vx[i];
                w->X.vstart[i] = w->v[i] += beta * vp[i];
                vp[i] = beta * vp[i] + gv;
            }
        }
        w->work += (double)(clock() - c0) / CLOCKS_PER_SEC;
    }
    if (st != FC_CONVERGED && best_err < INFINITY) memcpy(w->rl, w->best, (size_t)rows * sizeof *w->rl);
    fc_log(opt, 1, "dist-nncg: %d sweeps, %d restarts", it, restarts);
    info->iterations = it;
    free(x); free(pdir); free(vx); free(vp);
    return st;
}

fc_status fc_dist_nncg_solve_global(const fc_problem *p, const fc_options *opt, double *r,
                                    double *u, double *v, fc_info *info)
{
    if (opt->nncg.symmetric || opt->nncg.accel == 2) {
        snprintf(info->message, sizeof info->message,
                 "dist-nncg: nncg.symmetric and nncg.accel = 2 are not distributed");
        return FC_STATUS_ERROR;
    }
    return fc_dist_run("dist-nncg", iterate, 1, p, opt, r, u, v, info);
}
