/* tfp: the Tresca fixed point.  Coulomb's law is the fixed point of
 * Tresca problems: with the friction threshold s = mu r_N frozen, find
 *     0 <= u_N ⟂ r_N >= 0,   ||r_T|| <= s,   -u_T ∈ N_{disk(s)}(r_T),
 * a convex problem (min 1/2 r^T W r + q^T r over R+ x disk(s)) solved by
 * Gauss-Seidel sweeps over contacts, each contact by an accelerated
 * projected gradient on its 3 x 3 (2 x 2) block with the step
 * 1/lambda_max(W_aa) ("projection on the cylinder with local
 * iterations").  After each Tresca solve s <- mu r_N.
 * The sweeps also serve pfp (pfp.c): normal-only and
 * tangent-only modes. */
#include "core/firstorder.h"
#include "cone/cone.h"

#include <stdio.h>

struct fo_tresca {
    const fc_problem *p;
    const fc_options *opt;
    const fc_tresca_options *o;
    double *fixed;    /* m: the frozen components for the apgd inner solver */
    double *blk;      /* nc blocks d x d, column-major */
    double *step;     /* 1/lambda_max(W_aa) */
    double *step_t;   /* 1/lambda_max(W_TT,a) */
    double *u;        /* m: W r + q for the residual */
};

/* lambda_max of the symmetric n x n matrix A (leading dimension ld). */
static double sym_lmax(int n, int ld, const double *A)
{
    double x[5] = {1.0, 0.7, 0.4, 0.3, 0.2}, y[5], lam = 0.0;
    for (int it = 0; it < 100; it++) {
        double s = 0.0;
        for (int i = 0; i < n; i++) {
            y[i] = 0.0;
            for (int j = 0; j < n; j++) y[i] += A[i + j * ld] * x[j];
            s += y[i] * y[i];
        }
        s = sqrt(s);
        if (s <= 0.0) return 0.0;
        for (int i = 0; i < n; i++) x[i] = y[i] / s;
        if (fabs(s - lam) <= 1e-12 * s) return s;
        lam = s;
    }
    return lam;
}

fo_tresca *fo_tresca_new(const fc_problem *p, const fc_options *opt)
{
    int d = p->d, nc = p->nc, m = fc_problem_m(p);
    fo_tresca *T = calloc(1, sizeof *T);
    if (!T) return NULL;
    T->p = p;
    T->opt = opt;
    T->o = &opt->tresca;
    T->blk = fc_calloc((size_t)nc * (size_t)(d * d), sizeof *T->blk);
    T->step = fc_calloc((size_t)nc, sizeof *T->step);
    T->step_t = fc_calloc((size_t)nc, sizeof *T->step_t);
    T->u = fc_calloc((size_t)m, sizeof *T->u);
    T->fixed = fc_calloc((size_t)m, sizeof *T->fixed);
    if ((nc && (!T->blk || !T->step || !T->step_t)) || (m && (!T->u || !T->fixed))) {
        fo_tresca_free(T);
        return NULL;
    }
    for (int a = 0; a < nc; a++) {
        double *B = T->blk + (size_t)a * d * d;
        fc_matrix_diag_block(p->W, a, d, B);
        double l = sym_lmax(d, d, B), lt = sym_lmax(d - 1, d, B + d + 1);
        T->step[a] = l > 0 ? 1.0 / l : 0.0;
        T->step_t[a] = lt > 0 ? 1.0 / lt : 0.0;
    }
    return T;
}

void fo_tresca_free(fo_tresca *T)
{
    if (!T) return;
    free(T->blk);
    free(T->step);
    free(T->step_t);
    free(T->u);
    free(T->fixed);
    free(T);
}

/* Projection of components k0..d-1 of x onto R+ (k = 0) x disk(s). */
static void project_cylinder(int d, int k0, double s, double *x)
{
    if (k0 == 0 && x[0] < 0.0) x[0] = 0.0;
    fc_project_disk(d - 1, s, x + 1);
}

/* min 1/2 x^T B x + b^T x over components k0..d-1 (the others fixed) in
 * R+ x disk(s): accelerated projected gradient with restart. */
static void local_solve(int d, int k0, const double *B, const double *b, double s,
                        double step, int max_iter, double tol, double *x)
{
    double y[5], xo[5], g[5];
    memcpy(y, x, (size_t)d * sizeof *x);
    double theta = 1.0;
    for (int it = 0; it < max_iter; it++) {
        memcpy(xo, x, (size_t)d * sizeof *x);
        for (int i = 0; i < d; i++) {
            g[i] = b[i];
            for (int j = 0; j < d; j++) g[i] += B[i + j * d] * y[j];
        }
        for (int i = k0; i < d; i++) x[i] = y[i] - step * g[i];
        project_cylinder(d, k0, s, x);
        double dx = 0.0, nx = 0.0, gs = 0.0;
        for (int i = k0; i < d; i++) {
            dx += (x[i] - xo[i]) * (x[i] - xo[i]);
            nx += x[i] * x[i];
            gs += g[i] * (x[i] - xo[i]);
        }
        if (dx <= tol * tol * fmax(1e-300, nx)) break;
        double th2 = theta * theta, thn = 0.5 * (-th2 + theta * sqrt(th2 + 4.0));
        double beta = theta * (1.0 - theta) / (th2 + thn);
        if (gs > 0.0) { beta = 0.0; thn = 1.0; }   /* restart */
        for (int i = k0; i < d; i++) y[i] = x[i] + beta * (x[i] - xo[i]);
        theta = thn;
    }
}

/* The Tresca residual of mode at r, relative to max(||q||, ||r||, ||u||). */
static double tresca_residual(fo_tresca *T, int mode, const double *s, const double *r)
{
    const fc_problem *p = T->p;
    int d = p->d, m = fc_problem_m(p);
    fo_velocity(p, r, T->u);
    double e2 = 0.0;
    for (int a = 0; a < p->nc; a++) {
        const double *ra = r + d * a, *ua = T->u + d * a;
        double x[5] = {0.0};
        for (int k = 0; k < d; k++) x[k] = ra[k] - ua[k];
        project_cylinder(d, 0, mode == FO_TRESCA_NORMAL ? INFINITY : s[a], x);
        int k0 = mode == FO_TRESCA_TANGENT ? 1 : 0, k1 = mode == FO_TRESCA_NORMAL ? 1 : d;
        for (int k = k0; k < k1; k++) e2 += (ra[k] - x[k]) * (ra[k] - x[k]);
    }
    double sc = fmax(fc_norm2(m, p->q), fmax(fc_norm2(m, r), fc_norm2(m, T->u)));
    return sqrt(e2) / (sc < 1e-300 ? 1.0 : sc);
}

/* Gauss-Seidel sweeps until the residual of mode <= tol. */
static double tresca_sweeps(fo_tresca *T, int mode, const double *s, double tol,
                            int max_sweeps, const fc_clock *deadline, double *r,
                            int *sweeps)
{
    const fc_problem *p = T->p;
    int d = p->d;
    double res = INFINITY;
    int k;
    for (k = 0; k < max_sweeps; k++) {
        for (int a = 0; a < p->nc; a++) {
            double b[5], *ra = r + d * a;
            const double *B = T->blk + (size_t)a * d * d;
            fc_matrix_block_row_dot(p->W, a, d, r, 1, b);
            for (int i = 0; i < d; i++) b[i] += p->q[d * a + i];
            if (mode == FO_TRESCA_NORMAL) {   /* exact: one unknown */
                double un = b[0];
                for (int j = 0; j < d; j++) un += B[j * d] * ra[j];
                if (B[0] > 0) ra[0] = fmax(0.0, ra[0] - un / B[0]);
            } else if (mode == FO_TRESCA_TANGENT) {
                local_solve(d, 1, B, b, s[a], T->step_t[a], T->o->local_max_iter,
                            T->o->local_tol, ra);
            } else {
                local_solve(d, 0, B, b, s[a], T->step[a], T->o->local_max_iter,
                            T->o->local_tol, ra);
            }
        }
        res = tresca_residual(T, mode, s, r);
        if (!(res > tol) || (deadline && fc_clock_expired(deadline))) { k++; break; }
    }
    if (sweeps) *sweeps = k;
    return res;
}

double fo_tresca_solve(fo_tresca *T, int mode, const double *s, double tol,
                       const fc_clock *deadline, double *r, int *its)
{
    if (T->o->inner_solver == 0)
        return tresca_sweeps(T, mode, s, tol, T->o->inner.max_iter, deadline, r, its);
    fo_run Ri;
    memcpy(T->fixed, r, (size_t)fc_problem_m(T->p) * sizeof *r);
    if (fo_run_begin(&Ri, T->p, T->opt, 1, 0, tol, 50 * T->o->inner.max_iter, deadline, r))
        return INFINITY;
    Ri.set = mode == FO_TRESCA_FULL ? FO_SET_CYLINDER
           : mode == FO_TRESCA_NORMAL ? FO_SET_NORMAL : FO_SET_TANGENT;
    Ri.s = s;
    Ri.fixed = T->fixed;
    fo_apgd_run(&Ri, 0, r, T->u);
    *its = Ri.iterations;
    return Ri.error;
}

/* The Tresca fixed point on the exact problem: one Tresca problem with
 * the thresholds mu r_N of the current r. */
static int tfp_step(fo_run *R, fo_tresca *T, double *s, double tol, int it, double err, double *r)
{
    const fc_problem *p = R->p;
    int d = p->d, sw = 0;
    for (int a = 0; a < p->nc; a++) s[a] = p->mu[a] * fmax(0.0, r[d * a]);
    double res = fo_tresca_solve(T, FO_TRESCA_FULL, s, tol, &R->clock, r, &sw);
    fc_log(R->opt, 2, "tfp %d: error %.3e, Tresca residual %.3e after %d sweeps", it, err, res, sw);
    return sw;
}

fc_status fo_tresca_run(fo_run *R, int kind, double *r, double *u)
{
    static const struct {
        const char *name;
        int (*step)(fo_run *R, fo_tresca *T, double *s, double tol, int it, double err, double *r);
    } fps[] = {[FO_TFP] = {"tfp", tfp_step}, [FO_PFP] = {"pfp", fo_pfp_step}};
    const fc_problem *p = R->p;
    fo_tresca *T = fo_tresca_new(p, R->opt);
    double *s = fc_calloc((size_t)p->nc + 1, sizeof *s);
    int st = -1;
    if (!T || !s) {
        snprintf(R->message, sizeof R->message, "out of memory");
        st = FC_STATUS_ERROR;
    }
    fo_velocity(p, r, u);
    long total = 0;
    for (int it = 0; st < 0; it++) {
        double err = fo_error(p, 0, r, u);
        if ((st = fo_run_check(R, it, r, err)) >= 0) break;
        double tol = fo_inner_tol(&R->opt->tresca.inner, err, p->nc, R->tol);
        total += fps[kind].step(R, T, s, tol, it, err, r);
        fo_velocity(p, r, u);
    }
    fc_log(R->opt, 1, "%s: %d outer iterations, %ld sweeps", fps[kind].name, R->iterations, total);
    fo_tresca_free(T);
    free(s);
    return fo_run_end(R, st, r, u);
}

fc_status fc_tfp_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                       fc_info *info)
{
    return fo_solve_outer(p, opt, fo_tresca_run, FO_TFP, 0, r, u, info);
}
