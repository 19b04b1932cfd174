/* fpp and vi-fpp: the fixed-point projection r <- P_K(r - rho F(r)) on
 * the natural map of the VI reformulation, F(r) = u + g(u), u = W r + q;
 * fpp with a constant rho, vi-fpp with the self-adaptive step rule
 * (Khobotov; Siconos VI solvers), which eg.c's vi-eg shares. */
#include "core/firstorder.h"

double fo_adaptive_step(fo_proj *S, const double *x)
{
    const fc_fp_options *o = S->o;
    double r = S->rho, nd = 0.0, dF = 0.0;
    for (int ls = 0;; ls++) {
        nd = fo_proj_step(S->p, x, r, S->F, S->y);
        fo_velocity(S->p, S->y, S->uy);
        fo_uhat(S->p, S->ccp, S->uy, S->Fy);
        dF = fc_dist2(S->m, S->F, S->Fy);
        if (r * dF <= o->ls_L * nd || nd == 0.0 || ls + 1 >= o->ls_max_iter) break;
        r *= o->ls_tau;
    }
    S->rho = S->grow && r * dF < o->ls_Lmin * nd ? r * o->ls_tauinv : r;
    return r;
}

static void fpp_step(fo_proj *S, double *r, double *u)
{
    fo_proj_step(S->p, r, S->rho, S->F, S->y);
    fc_copy(S->m, S->y, r);
    fo_velocity(S->p, r, u);
}

static void vi_fpp_step(fo_proj *S, double *r, double *u)
{
    fo_adaptive_step(S, r);
    memcpy(r, S->y, (size_t)S->m * sizeof *r);
    memcpy(u, S->uy, (size_t)S->m * sizeof *u);
}

const fo_proj_method fo_fpp_method = {fpp_step, NULL};
const fo_proj_method fo_vi_fpp_method = {vi_fpp_step, NULL};

FC_FO_DECL(fc_fpp_solve) { return fo_projection_solve(FO_FPP, p, opt, r, u, info); }
FC_FO_DECL(fc_vi_fpp_solve) { return fo_projection_solve(FO_VI_FPP, p, opt, r, u, info); }
