/* dsfp: the De Saxce fixed point, r <- P_K(r - rho_a (u + g(u))_a) for
 * all contacts at once (a Jacobi iteration on the bipotential form).
 *  fp.rho > 0: one constant rho for all contacts (Siconos' DSFP);
 *  fp.rho <= 0 (default): per-contact steps rho_a = theta / lambda_max(W_aa)
 *    with a global damping theta, shrunk by fp.ls_tau when the error grows
 *    and regrown by fp.ls_tauinv (up to 1) after 10 decreases in a row. */
#include "core/firstorder.h"

static fc_status dsfp_run(fo_run *R, int kind, double *r, double *u)
{
    (void)kind;
    const fc_problem *p = R->p;
    const fc_fp_options *o = &R->opt->fp;
    int d = p->d, m = R->m, nc = p->nc;
    fo_accel A;
    double *ws = fo_fp_begin(R, &A, (size_t)m + (size_t)nc + 1);
    if (!ws) return fo_run_end(R, FC_STATUS_ERROR, r, u);
    double *F = ws, *rho = ws + m;
    for (int a = 0; a < nc; a++) {
        if (o->rho > 0) { rho[a] = o->rho; continue; }
        double B[25], x[5] = {1.0, 0.6, 0.3, 0.2, 0.1}, lam = 0.0;
        fc_matrix_diag_block(p->W, a, d, B);
        for (int k = 0; k < 60; k++) {   /* power iteration on the block */
            double y[5], n2 = 0.0;
            for (int i = 0; i < d; i++) {
                y[i] = 0.0;
                for (int j = 0; j < d; j++) y[i] += B[i + j * d] * x[j];
                n2 += y[i] * y[i];
            }
            lam = sqrt(n2);
            if (lam <= 0.0) break;
            for (int i = 0; i < d; i++) x[i] = y[i] / lam;
        }
        rho[a] = lam > 0 ? 1.0 / lam : 1.0;
    }
    double theta = 1.0, prev = INFINITY;
    int decreases = 0, st = -1;
    fo_velocity(p, r, u);
    for (int it = 0;; it++) {
        double err = fo_error(p, 0, r, u);
        if ((st = fo_run_check(R, it, r, err)) >= 0) break;
        /* the damping adapts theta: off while Anderson needs one map */
        if (o->rho <= 0 && (!A.on || it + 1 < A.start)) {
            if (err > prev) { theta *= o->ls_tau; decreases = 0; }
            else if (++decreases >= 10) { theta = fmin(1.0, theta * o->ls_tauinv); decreases = 0; }
        }
        prev = err;
        fo_uhat(p, 0, u, F);
        fo_accel_save(&A, r, m);
        for (int a = 0; a < nc; a++)
            for (int k = 0; k < d; k++) r[d * a + k] -= theta * rho[a] * F[d * a + k];
        fo_project(p, r);
        fo_accel_apply(&A, p, it, err, R->best, r);
        fo_velocity(p, r, u);
    }
    return fo_fp_end(R, &A, ws, st, r, u);
}

fc_status fc_dsfp_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                        fc_info *info)
{
    return fo_solve_outer(p, opt, dsfp_run, 0, 0, r, u, info);
}
