/* The projection family on the natural map of the VI reformulation
 *   find r in K:  <F(r), s - r> >= 0 for all s in K,  F(r) = u + g(u),
 *   u = W r + q,  i.e.  r = P_K(r - rho F(r)):
 *  fpp     fixed-point projection, constant rho;
 *  eg      extragradient (Korpelevich), constant rho;
 *  vi-fpp  fixed-point projection with the self-adaptive step rule;
 *  vi-eg   extragradient with the self-adaptive step rule;
 *  hp      hyperplane projection (Solodov-Svaiter 1999) with an Armijo
 *          search: the next iterate is the projection of r onto K ∩ H,
 *          H the half-space {x: <F(z), x - z> <= 0} that separates r from
 *          the solutions.
 * The self-adaptive rule (Khobotov; Siconos VI solvers): shrink rho by
 * ls_tau until rho ||F(x) - F(y)|| <= ls_L ||x - y||, y = P_K(x - rho F(x)),
 * and grow it by ls_tauinv when the ratio falls under ls_Lmin. */
#include "core/firstorder.h"

#include <stdio.h>

/* y = P_K(x - rho F(x)) with the self-adaptive rule: uy = W y + q and
 * Fy = F(y) on return.  *rho is updated for the next iteration; the step
 * actually used is returned. */
static double adaptive_step(const fc_problem *p, int ccp, const fc_fp_options *o,
                            int grow, double *rho, const double *x, const double *F,
                            double *y, double *uy, double *Fy)
{
    int m = fc_problem_m(p);
    double r = *rho, nd = 0.0, dF = 0.0;
    for (int ls = 0;; ls++) {
        nd = fo_proj_step(p, x, r, F, y);
        fo_velocity(p, y, uy);
        fo_uhat(p, ccp, uy, Fy);
        double s = 0.0;
        for (int i = 0; i < m; i++) s += (F[i] - Fy[i]) * (F[i] - Fy[i]);
        dF = sqrt(s);
        if (r * dF <= o->ls_L * nd || nd == 0.0 || ls + 1 >= o->ls_max_iter) break;
        r *= o->ls_tau;
    }
    *rho = grow && r * dF < o->ls_Lmin * nd ? r * o->ls_tauinv : r;
    return r;
}

/* phi(lambda) = <a, t> - b with t = P_K(x - lambda a). */
static double halfspace_phi(const fc_problem *p, const double *a, double b,
                            const double *x, double lambda, double *t)
{
    int m = fc_problem_m(p);
    for (int i = 0; i < m; i++) t[i] = x[i] - lambda * a[i];
    fo_project(p, t);
    return fc_dot(m, a, t) - b;
}

/* x <- P_{K ∩ H}(x), H = {w: <a, w> <= b}, x outside H: the projection
 * is P_K(x - lambda a) with lambda >= 0 the root of the nonincreasing
 * phi(lambda) = <a, P_K(x - lambda a)> - b, found by bisection.  t: m
 * doubles of workspace. */
static void project_K_halfspace(const fc_problem *p, const double *a, double b,
                                double *x, double *t)
{
    int m = fc_problem_m(p);
    double lo = 0.0, hi = (fc_dot(m, a, x) - b) / fc_dot(m, a, a);
    for (int k = 0; k < 60 && halfspace_phi(p, a, b, x, hi, t) > 0.0; k++) {
        lo = hi;
        hi *= 2.0;
    }
    for (int k = 0; k < 60 && hi - lo > 1e-13 * hi; k++) {
        double mid = 0.5 * (lo + hi);
        if (halfspace_phi(p, a, b, x, mid, t) > 0.0) lo = mid; else hi = mid;
    }
    halfspace_phi(p, a, b, x, hi, t);
    memcpy(x, t, (size_t)m * sizeof *x);
}

fc_status fo_projection_run(fo_run *R, int kind, double *r, double *u)
{
    const fc_problem *p = R->p;
    const fc_fp_options *o = &R->opt->fp;
    int m = R->m, ccp = R->ccp;
    double *ws = fc_calloc((size_t)5 * (size_t)m, sizeof *ws);
    fo_accel A;
    if (fo_accel_init(&A, o->anderson, o->anderson_start, o->anderson_growth, m) || !ws) {
        free(ws);
        fo_accel_free(&A);
        snprintf(R->message, sizeof R->message, "out of memory");
        return fo_run_end(R, FC_STATUS_ERROR, r, u);
    }
    double *F = ws, *y = ws + m, *uy = ws + 2 * m, *Fy = ws + 3 * m, *z = ws + 4 * m;
    double rho = o->rho > 0 ? o->rho : 1.0 / fo_lambda_max(p->W, m, y, uy);
    if (o->rho <= 0 && kind == FO_EG && !ccp) {
        /* extragradient converges for rho < 1/L, L the Lipschitz constant of
         * F = u + g(u): up to (1 + mu + mu_r) lambda_max(W) */
        double lip = 0.0;
        for (int a = 0; a < p->nc; a++)
            lip = fmax(lip, p->mu[a] + (p->mu_r ? p->mu_r[a] : 0.0));
        rho /= 1.0 + lip;
    }
    fo_velocity(p, r, u);
    int st = -1;
    for (int it = 0; st < 0; it++) {
        if ((st = fo_run_check(R, it, r, fo_error(p, ccp, r, u))) >= 0) break;
        fo_uhat(p, ccp, u, F);
        fo_accel_save(&A, r, m);
        /* Anderson needs one map: once it runs, rho only shrinks */
        int grow = !A.on || it + 1 < A.start;
        switch (kind) {
        case FO_FPP:
            fo_proj_step(p, r, rho, F, y);
            memcpy(r, y, (size_t)m * sizeof *r);
            fo_velocity(p, r, u);
            break;
        case FO_EG:
            fo_proj_step(p, r, rho, F, y);
            fo_velocity(p, y, uy);
            fo_uhat(p, ccp, uy, Fy);
            fo_proj_step(p, r, rho, Fy, z);
            memcpy(r, z, (size_t)m * sizeof *r);
            fo_velocity(p, r, u);
            break;
        case FO_VI_FPP:
            adaptive_step(p, ccp, o, grow, &rho, r, F, y, uy, Fy);
            memcpy(r, y, (size_t)m * sizeof *r);
            memcpy(u, uy, (size_t)m * sizeof *u);
            break;
        case FO_VI_EG: {
            double used = adaptive_step(p, ccp, o, grow, &rho, r, F, y, uy, Fy);
            fo_proj_step(p, r, used, Fy, z);
            memcpy(r, z, (size_t)m * sizeof *r);
            fo_velocity(p, r, u);
            break;
        }
        case FO_HP: {
            /* d = r - y, y = P_K(r - rho F(r)); search z = r - t d with
             * <F(z), d> >= sigma ||d||^2 / rho, then project r onto the
             * half-space {x: <F(z), x - z> <= 0} and onto K. */
            double nd = fo_proj_step(p, r, rho, F, y);
            if (nd == 0.0) break;
            fo_velocity(p, y, uy);
            double t = 1.0, fzd = 0.0;
            int ls;
            for (ls = 0; ls < o->ls_max_iter; ls++) {
                for (int i = 0; i < m; i++) {
                    z[i] = r[i] - t * (r[i] - y[i]);
                    Fy[i] = (1.0 - t) * u[i] + t * uy[i];
                }
                fo_uhat(p, ccp, Fy, Fy);
                fzd = 0.0;
                for (int i = 0; i < m; i++) fzd += Fy[i] * (r[i] - y[i]);
                if (fzd >= o->hp_sigma * nd * nd / rho) break;
                t *= 0.5;
            }
            if (fzd <= 0.0) memcpy(r, y, (size_t)m * sizeof *r);   /* no hyperplane */
            else project_K_halfspace(p, Fy, fc_dot(m, Fy, z), r, y);
            rho = ls == 0 ? (grow ? rho * o->ls_tauinv : rho) : rho * o->ls_tau;
            fo_velocity(p, r, u);
            break;
        }
        }
        if (fo_accel_apply(&A, p, it, R->error, R->best, r)) fo_velocity(p, r, u);
    }
    free(ws);
    fo_accel_free(&A);
    return fo_run_end(R, st, r, u);
}

fc_status fc_fpp_solve(const fc_problem *p, const fc_options *opt, double *r,
                       double *u, fc_info *info)
{
    return fo_solve_outer(p, opt, fo_projection_run, FO_FPP, 0, r, u, info);
}

fc_status fc_eg_solve(const fc_problem *p, const fc_options *opt, double *r,
                      double *u, fc_info *info)
{
    return fo_solve_outer(p, opt, fo_projection_run, FO_EG, 0, r, u, info);
}

fc_status fc_vi_fpp_solve(const fc_problem *p, const fc_options *opt, double *r,
                          double *u, fc_info *info)
{
    return fo_solve_outer(p, opt, fo_projection_run, FO_VI_FPP, 0, r, u, info);
}

fc_status fc_vi_eg_solve(const fc_problem *p, const fc_options *opt, double *r,
                         double *u, fc_info *info)
{
    return fo_solve_outer(p, opt, fo_projection_run, FO_VI_EG, 0, r, u, info);
}

fc_status fc_hp_solve(const fc_problem *p, const fc_options *opt, double *r,
                      double *u, fc_info *info)
{
    return fo_solve_outer(p, opt, fo_projection_run, FO_HP, 0, r, u, info);
}
