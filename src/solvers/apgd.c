/* Accelerated projected gradient (APGD; Nesterov's method with an
 * adaptive Lipschitz estimate and gradient restart, as in Chrono's APGD
 * for granular media) on the convex relaxation of the friction problem,
 * the cone complementarity problem
 *     K* ∋ W r + q ⟂ r ∈ K   <=>   min 1/2 r^T W r + q^T r  s.t.  r ∈ K.
 *  apgd-ccp  this relaxation alone: it stops on the relaxation's residual
 *            and its answer is judged, like every answer, by the SPEC
 *            measure of the real (Coulomb) problem: it does not converge
 *            there when the relaxation's solution slides.
 *  apgd      the exact Coulomb problem: the ACLM fixed point (aclm.c)
 *            with apgd solving each convex problem.
 * One product with W per iteration (W y is carried along linearly), plus
 * one per rejected Lipschitz estimate.  The same iteration solves the
 * Tresca-type problems of tfp and pfp (the run's set, fo_run_project). */
#include "core/firstorder.h"

#include <stdio.h>

fc_status fo_apgd_run(fo_run *R, int kind, double *r, double *u)
{
    (void)kind;
    const fc_problem *p = R->p;
    const fc_apgd_options *o = &R->opt->apgd;
    int m = R->m;
    double *ws = fc_calloc((size_t)5 * (size_t)m, sizeof *ws);
    if (!ws) {
        snprintf(R->message, sizeof R->message, "out of memory");
        return fo_run_end(R, FC_STATUS_ERROR, r, u);
    }
    double *Wx = ws, *y = ws + m, *Wy = ws + 2 * m, *xn = ws + 3 * m, *Wxn = ws + 4 * m;
    /* x = r (made feasible), u = W x + q */
    fo_run_project(R, r);
    fc_matrix_gemv(p->W, 1.0, r, 0.0, Wx);
    double L = o->L0;
    if (!(L > 0)) {   /* ||W e|| / ||e|| with e = ones: a cheap, local estimate */
        for (int i = 0; i < m; i++) y[i] = 1.0;
        fc_matrix_gemv(p->W, 1.0, y, 0.0, Wy);
        L = m > 0 ? fc_norm2(m, Wy) / sqrt((double)m) : 1.0;
        if (!(L > 0) || !isfinite(L)) L = 1.0;
    }
    memcpy(y, r, (size_t)m * sizeof *y);
    memcpy(Wy, Wx, (size_t)m * sizeof *Wy);
    double theta = 1.0;
    int st = -1;
    /* the vector loops are threaded from FC_PAR_MIN entries, the sums by
     * fc_chunks (the same for any thread count) */
    fc_chunks c = fc_chunks_of(m, FC_CHUNK_MIN);
    double part[2][FC_CHUNKS_MAX];
    for (int it = 0;; it++) {
        FC_PAR_FOR(m, , for (int i = 0; i < m; i++) { u[i] = Wx[i] + p->q[i]; });
        if ((st = fo_run_check(R, it, r, fo_run_set_error(R, r, u))) >= 0) break;
        /* xn = P_K(y - grad / L), L grown until the quadratic upper bound
         * holds: (xn - y)^T W (xn - y) <= L ||xn - y||^2 (exact for a
         * quadratic, free of the cancellation of comparing f values) */
        for (int ls = 0; ls < 60; ls++) {
            FC_PAR_FOR(m, , for (int i = 0; i < m; i++) { xn[i] = y[i] - (Wy[i] + p->q[i]) / L; });
            fo_run_project(R, xn);
            fc_matrix_gemv(p->W, 1.0, xn, 0.0, Wxn);
            FC_PAR_FOR(m, , for (int k = 0; k < c.count; k++) {
                double a = 0.0, b = 0.0;
                for (int i = k * c.len, e = fc_chunk_end(c, k, m); i < e; i++) {
                    double di = xn[i] - y[i];
                    a += di * (Wxn[i] - Wy[i]);
                    b += di * di;
                }
                part[0][k] = a;
                part[1][k] = b;
            });
            double dWd = fc_chunks_sum(c, part[0]), dd = fc_chunks_sum(c, part[1]);
            if (dWd <= L * dd * (1.0 + 1e-12) || !isfinite(dWd)) break;
            L *= o->L_grow;
        }
        double th2 = theta * theta;
        double thn = 0.5 * (-th2 + theta * sqrt(th2 + 4.0));
        double beta = theta * (1.0 - theta) / (th2 + thn);
        /* restart when the gradient at y opposes the step just taken */
        FC_PAR_FOR(m, , for (int k = 0; k < c.count; k++) {
            double a = 0.0;
            for (int i = k * c.len, e = fc_chunk_end(c, k, m); i < e; i++)
                a += (Wy[i] + p->q[i]) * (xn[i] - r[i]);
            part[0][k] = a;
        });
        double gs = fc_chunks_sum(c, part[0]);
        if (o->restart && gs > 0.0) {
            fc_copy(m, xn, y);
            fc_copy(m, Wxn, Wy);
            thn = 1.0;
        } else {
            FC_PAR_FOR(m, , for (int i = 0; i < m; i++) {
                y[i] = xn[i] + beta * (xn[i] - r[i]);
                Wy[i] = Wxn[i] + beta * (Wxn[i] - Wx[i]);
            });
        }
        theta = thn;
        fc_copy(m, xn, r);
        fc_copy(m, Wxn, Wx);
        L *= o->L_shrink;
    }
    free(ws);
    return fo_run_end(R, st, r, u);
}

fc_status fc_apgd_ccp_solve(const fc_problem *p, const fc_options *opt, double *r,
                            double *u, fc_info *info)
{
    return fo_solve_outer(p, opt, fo_apgd_run, 0, 1, r, u, info);
}

fc_status fc_apgd_solve(const fc_problem *p, const fc_options *opt, double *r,
                        double *u, fc_info *info)
{
    return fo_aclm_solve(p, opt, FC_CCP_APGD, r, u, info);
}
