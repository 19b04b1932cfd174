/* cpg: conjugate projected gradient for 2D frictional contact (in the
 * spirit of Renouf & Alart 2004 and Siconos' fc2d_cpg).
 *
 * Coulomb friction is not a QP, but for a fixed s (one number per
 * contact) the problem  K* ∋ W r + q + (mu s, 0) ⟂ r ∈ K  is the
 * optimality condition of the convex QP
 *     min 1/2 r'W r + (q + mu s e_N)'r   over r ∈ K (2D cones),
 * and at s = |u_T(r)| it is exactly the Coulomb problem in De Saxce's form
 * (SPEC section 2).  So: an outer fixed point on s, each QP solved
 * inexactly by CPG; the update of s is damped (halfway) once the error
 * has grown after an update.
 *
 * CPG on min f(y) = 1/2 y'A y + g'y, y ∈ K, works on the scaled variables
 * y_a = r_a / c_a, c_a = 1/sqrt(W_NN,a) (a positive factor per contact keeps
 * each cone), A = C W C.  Its direction is the natural residual
 * w = y - P_K(y - grad f): at a free contact the gradient, zero at a
 * contact held at the apex.  Steps: exact line search along -p, projection
 * onto K, new residual w+, p+ = w+ - beta p conjugate to p (beta =
 * w+'A p / p'A p) while the contacts' status (apex, inside, either edge)
 * is unchanged, p+ = w+ (restart) when it changed or when f did not
 * decrease (then the step is halved until it does).
 *
 * Each CPG step counts as one iteration; the SPEC measure is evaluated
 * at every step (u comes with the gradient), and the solve stops when it
 * is below the tolerance. */
#include "internal.h"
#include "measure/measure.h"

#include <stdio.h>

typedef struct cpg_ws {
    int m, nc;
    const fc_problem *p;
    double *c;                 /* per-row scaling c_a (both rows of a)   */
    double *g, *s;             /* linear term, s_a                       */
    double *y, *grad, *w, *dir, *Ad, *yn, *gn, *wn, *t, *r, *u, *ylast;
    signed char *status, *statusn;
} cpg_ws;

/* out = A x = C W C x */
static void apply_A(cpg_ws *ws, const double *x, double *out)
{
    for (int i = 0; i < ws->m; i++) ws->t[i] = ws->c[i] * x[i];
    fc_matrix_gemv(ws->p->W, 1.0, ws->t, 0.0, out);
    for (int i = 0; i < ws->m; i++) out[i] *= ws->c[i];
}

/* Natural residual w = y - P_K(y - grad) and the status of each contact
 * (0 apex, 1 inside, 2 upper edge, 3 lower edge). */
static double residual(cpg_ws *ws, const double *y, const double *grad, double *w,
                       signed char *status)
{
    double n2 = 0;
    for (int a = 0; a < ws->nc; a++) {
        double mu = ws->p->mu[a], x[2] = {y[2 * a] - grad[2 * a], y[2 * a + 1] - grad[2 * a + 1]};
        fc_project_cone(2, mu, 0.0, x);
        w[2 * a] = y[2 * a] - x[0];
        w[2 * a + 1] = y[2 * a + 1] - x[1];
        n2 += w[2 * a] * w[2 * a] + w[2 * a + 1] * w[2 * a + 1];
        double yn = y[2 * a], yt = y[2 * a + 1];
        status[a] = yn <= 0 ? 0 : fabs(yt) < mu * yn * (1 - 1e-12) ? 1 : yt > 0 ? 2 : 3;
    }
    return sqrt(n2);
}

static void project_all(const cpg_ws *ws, double *y)
{
    for (int a = 0; a < ws->nc; a++) fc_project_cone(2, ws->p->mu[a], 0.0, y + 2 * a);
}

/* r = C y, u = W r + q = grad / C - mu s e_N; returns the SPEC measure. */
static double coulomb_error(cpg_ws *ws, const double *y, const double *grad)
{
    for (int a = 0; a < ws->nc; a++) {
        for (int k = 0; k < 2; k++) {
            int i = 2 * a + k;
            ws->r[i] = ws->c[i] * y[i];
            ws->u[i] = grad[i] / ws->c[i];
        }
        ws->u[2 * a] -= ws->p->mu[a] * ws->s[a];
    }
    /* a reduced global problem keeps w: SPEC scales by ||w|| there */
    const double *scale = ws->p->w ? ws->p->w : ws->p->q;
    return fc_error_measure(2, ws->nc, ws->p->mu, NULL, scale, ws->r, ws->u, NULL);
}

static void ws_free(cpg_ws *ws)
{
    double **v[] = {&ws->c, &ws->g, &ws->s, &ws->y, &ws->grad, &ws->w, &ws->dir, &ws->Ad,
                    &ws->yn, &ws->gn, &ws->wn, &ws->t, &ws->r, &ws->u, &ws->ylast};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) free(*v[i]);
    free(ws->status);
    free(ws->statusn);
}

fc_status fc_cpg_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                       fc_info *info)
{
    int nc = p->nc, m = 2 * nc;
    cpg_ws ws = {0};
    ws.m = m;
    ws.nc = nc;
    ws.p = p;
    double **v[] = {&ws.c, &ws.g, &ws.y, &ws.grad, &ws.w, &ws.dir, &ws.Ad,
                    &ws.yn, &ws.gn, &ws.wn, &ws.t, &ws.r, &ws.u, &ws.ylast};
    int ok = 1;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) ok &= (*v[i] = fc_calloc((size_t)m + 1, sizeof(double))) != NULL;
    ws.s = fc_calloc((size_t)nc + 1, sizeof *ws.s);
    ws.status = fc_calloc((size_t)nc + 1, 1);
    ws.statusn = fc_calloc((size_t)nc + 1, 1);
    if (!ok || !ws.s || !ws.status || !ws.statusn) {
        ws_free(&ws);
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    for (int a = 0; a < nc; a++) {
        double blk[4];
        fc_matrix_diag_block(p->W, a, 2, blk);
        double c = blk[0] > 0 ? 1.0 / sqrt(blk[0]) : 1.0;
        ws.c[2 * a] = ws.c[2 * a + 1] = c;
    }
    /* start: the given r, projected; s from its u */
    for (int i = 0; i < m; i++) ws.y[i] = r[i] / ws.c[i];
    project_all(&ws, ws.y);
    for (int i = 0; i < m; i++) ws.t[i] = ws.c[i] * ws.y[i];
    fc_problem_u(p, ws.t, ws.u);
    for (int a = 0; a < nc; a++) ws.s[a] = fabs(ws.u[2 * a + 1]);

    fc_clock clk;
    fc_clock_start(&clk, opt);
    int inner_max = opt->cpg.inner_max_iter > 0 ? opt->cpg.inner_max_iter : 200;
    double ratio = opt->cpg.inner_ratio > 0 ? opt->cpg.inner_ratio : 0.1;
    fc_status st = FC_MAX_ITER;
    int it = 0, done = 0;
    double err = INFINITY, err_outer = INFINITY, theta = 1.0;
    memcpy(ws.ylast, ws.y, (size_t)m * sizeof *ws.y);
    while (!done) {
        /* outer: the QP of the current s */
        for (int a = 0; a < nc; a++) {
            ws.g[2 * a] = ws.c[2 * a] * (p->q[2 * a] + p->mu[a] * ws.s[a]);
            ws.g[2 * a + 1] = ws.c[2 * a + 1] * p->q[2 * a + 1];
        }
        apply_A(&ws, ws.y, ws.grad);
        for (int i = 0; i < m; i++) ws.grad[i] += ws.g[i];
        double wn = residual(&ws, ws.y, ws.grad, ws.w, ws.status);
        err = coulomb_error(&ws, ws.y, ws.grad);
        if (err <= opt->tolerance) { st = FC_CONVERGED; break; }
        double target = ratio * err * fmax(fc_norm2(m, ws.y), 1e-300);
        double f = 0;
        for (int i = 0; i < m; i++) f += 0.5 * ws.y[i] * (ws.grad[i] + ws.g[i]);
        memcpy(ws.dir, ws.w, (size_t)m * sizeof *ws.dir);
        for (int k = 0; k < inner_max; k++) {
            apply_A(&ws, ws.dir, ws.Ad);
            double pAp = fc_dot(m, ws.dir, ws.Ad), gp = fc_dot(m, ws.grad, ws.dir);
            if (!(pAp > 0) || !(gp > 0)) { /* not a descent direction: restart */
                memcpy(ws.dir, ws.w, (size_t)m * sizeof *ws.dir);
                apply_A(&ws, ws.dir, ws.Ad);
                pAp = fc_dot(m, ws.dir, ws.Ad);
                gp = fc_dot(m, ws.grad, ws.dir);
                if (!(pAp > 0) || !(gp > 0)) break; /* the QP is solved */
            }
            double alpha = gp / pAp, fn = 0;
            int restart = 0;
            for (int half = 0; half < 30; half++) {
                for (int i = 0; i < m; i++) ws.yn[i] = ws.y[i] - alpha * ws.dir[i];
                project_all(&ws, ws.yn);
                apply_A(&ws, ws.yn, ws.gn);
                for (int i = 0; i < m; i++) ws.gn[i] += ws.g[i];
                fn = 0;
                for (int i = 0; i < m; i++) fn += 0.5 * ws.yn[i] * (ws.gn[i] + ws.g[i]);
                if (fn <= f + 1e-14 * fabs(f)) break;
                alpha *= 0.5;
                restart = 1;
            }
            it++;
            if (!fc_all_finite((size_t)m, ws.yn) || !isfinite(fn)) {
                st = FC_DIVERGED;
                snprintf(info->message, sizeof info->message, "NaN or Inf in the iterate at step %d", it);
                done = 1;
                break;
            }
            memcpy(ws.y, ws.yn, (size_t)m * sizeof *ws.y);
            memcpy(ws.grad, ws.gn, (size_t)m * sizeof *ws.grad);
            memcpy(ws.ylast, ws.y, (size_t)m * sizeof *ws.y);
            f = fn;
            wn = residual(&ws, ws.y, ws.grad, ws.wn, ws.statusn);
            for (int a = 0; a < nc && !restart; a++) restart = ws.status[a] != ws.statusn[a];
            if (restart) {
                memcpy(ws.dir, ws.wn, (size_t)m * sizeof *ws.dir);
            } else {
                double beta = fc_dot(m, ws.wn, ws.Ad) / pAp;
                for (int i = 0; i < m; i++) ws.dir[i] = ws.wn[i] - beta * ws.dir[i];
            }
            memcpy(ws.w, ws.wn, (size_t)m * sizeof *ws.w);
            memcpy(ws.status, ws.statusn, (size_t)nc);
            /* the Coulomb error with the current s (exact when s = |u_T|) */
            err = coulomb_error(&ws, ws.y, ws.grad);
            if (err <= opt->tolerance) { st = FC_CONVERGED; done = 1; break; }
            if (opt->progress && opt->progress(opt->progress_user, it, err)) {
                snprintf(info->message, sizeof info->message, "stopped by the progress callback");
                done = 1;
                break;
            }
            if (it >= opt->max_iter) {
                snprintf(info->message, sizeof info->message, "%d CPG steps, error %.3e", it, err);
                done = 1;
                break;
            }
            if (fc_clock_expired(&clk)) {
                st = FC_TIME_LIMIT;
                snprintf(info->message, sizeof info->message, "time limit after %d CPG steps", it);
                done = 1;
                break;
            }
            if (wn <= target) break;
        }
        if (done) break;
        /* the friction update s = |u_T| */
        for (int i = 0; i < m; i++) ws.t[i] = ws.c[i] * ws.y[i];
        fc_problem_u(p, ws.t, ws.u);
        /* damped by half from the first update after which the error grew:
         * the fixed point on s is not a contraction in general (singular W
         * makes it cycle); docs/measurements.md, "cpg.c" */
        if (err > err_outer) theta = 0.5;
        err_outer = err;
        for (int a = 0; a < nc; a++)
            ws.s[a] = (1.0 - theta) * ws.s[a] + theta * fabs(ws.u[2 * a + 1]);
    }
    for (int i = 0; i < m; i++) r[i] = ws.c[i] * ws.ylast[i];
    fc_problem_u(p, r, u);
    info->iterations = it;
    fc_log(opt, 1, "cpg: %d steps, error %.3e", it, err);
    ws_free(&ws);
    return st;
}
