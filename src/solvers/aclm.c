/* The ACLM fixed point (Acary, Cadoux, Lemarechal, Malick): the Coulomb
 * problem is the fixed point s = mu ||u_T(s)|| of convex problems
 *     K* ∋ W r + q + s e_N ⟂ r ∈ K       (the relaxation with q_N + s),
 * each solved by a convex cone-complementarity solver (apgd by default,
 * or vi-eg / vi-fpp on the relaxation), warm-started from the previous r,
 * to an inner tolerance set by aclm.inner. */
#include "core/firstorder.h"

#include <stdio.h>

/* q' = q + s e_N with s_a = mu_a ||u_T,a|| (rolling: + mu_r,a ||u_R,a||). */
static void shifted_q(const fc_problem *p, const double *u, double *qs)
{
    int m = fc_problem_m(p);
    for (int i = 0; i < m; i++) qs[i] = p->q[i] - u[i];   /* q - u ... */
    fo_uhat(p, 0, u, qs + m);                              /* ... + u + g(u) */
    for (int i = 0; i < m; i++) qs[i] += qs[m + i];
}

fc_status fo_aclm_solve(const fc_problem *p, const fc_options *opt, int inner,
                        double *r, double *u, fc_info *info)
{
    const fc_aclm_options *o = &opt->aclm;
    int m = fc_problem_m(p);
    fo_run R;
    if (fo_run_begin(&R, p, opt, 0, 1, opt->tolerance, opt->max_iter, NULL, r)) {
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    double *qs = fc_calloc((size_t)3 * (size_t)m, sizeof *qs);
    if (!qs) {
        snprintf(R.message, sizeof R.message, "out of memory");
        return fo_run_report(&R, fo_run_end(&R, FC_STATUS_ERROR, r, u), info);
    }
    double *ui = qs + 2 * m;
    fc_problem sub = fo_subproblem(p, NULL, qs);
    fo_core core = inner == FC_CCP_APGD ? fo_apgd_run : fo_projection_run;
    int kind = inner == FC_CCP_VI_FPP ? FO_VI_FPP : FO_VI_EG;
    long inner_total = 0;
    int st = -1;
    fo_velocity(p, r, u);
    for (int it = 0;; it++) {
        double err = fo_error(p, 0, r, u);
        if ((st = fo_run_check(&R, it, r, err)) >= 0) break;
        shifted_q(p, u, qs);
        fo_run Ri;
        double tol = fo_inner_tol(&o->inner, err, p->nc, opt->tolerance);
        if (fo_run_begin(&Ri, &sub, opt, 1, 0, tol, o->inner.max_iter, &R.clock, r)) {
            snprintf(R.message, sizeof R.message, "out of memory");
            st = FC_STATUS_ERROR;
            break;
        }
        fc_status si = core(&Ri, kind, r, ui);
        inner_total += Ri.iterations;
        fc_log(opt, 2, "aclm %d: error %.3e, inner tol %.1e: %s in %d, %.3e", it, err, tol,
               fc_status_name(si), Ri.iterations, Ri.error);
        if (si == FC_STATUS_ERROR) {
            snprintf(R.message, sizeof R.message, "aclm: the convex solver failed: %.100s",
                     Ri.message);
            st = FC_STATUS_ERROR;
            break;
        }
        fo_velocity(p, r, u);
    }
    fc_log(opt, 1, "aclm: %d outer, %ld inner iterations", R.iterations, inner_total);
    free(qs);
    return fo_run_report(&R, fo_run_end(&R, st, r, u), info);
}

fc_status fc_aclm_solve(const fc_problem *p, const fc_options *opt, double *r,
                        double *u, fc_info *info)
{
    return fo_aclm_solve(p, opt, opt->aclm.inner_solver, r, u, info);
}
