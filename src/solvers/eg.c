/* eg and vi-eg: the extragradient method (Korpelevich) on the natural
 * map F(r) = u + g(u): y = P_K(r - rho F(r)), r <- P_K(r - rho F(y));
 * eg with a constant rho, vi-eg with fpp.c's self-adaptive step rule. */
#include "core/firstorder.h"

/* eg converges for rho < 1/L, L the Lipschitz constant of F = u + g(u):
 * up to (1 + mu + mu_r) lambda_max(W). */
static double eg_rho0(const fc_problem *p, int ccp, double rho)
{
    if (ccp) return rho;
    double lip = 0.0;
    for (int a = 0; a < p->nc; a++) lip = fmax(lip, p->mu[a] + (p->mu_r ? p->mu_r[a] : 0.0));
    return rho / (1.0 + lip);
}

static void eg_step(fo_proj *S, double *r, double *u)
{
    fo_proj_step(S->p, r, S->rho, S->F, S->y);
    fo_velocity(S->p, S->y, S->uy);
    fo_uhat(S->p, S->ccp, S->uy, S->Fy);
    fo_proj_step(S->p, r, S->rho, S->Fy, S->z);
    memcpy(r, S->z, (size_t)S->m * sizeof *r);
    fo_velocity(S->p, r, u);
}

static void vi_eg_step(fo_proj *S, double *r, double *u)
{
    double used = fo_adaptive_step(S, r);
    fo_proj_step(S->p, r, used, S->Fy, S->z);
    memcpy(r, S->z, (size_t)S->m * sizeof *r);
    fo_velocity(S->p, r, u);
}

const fo_proj_method fo_eg_method = {eg_step, eg_rho0};
const fo_proj_method fo_vi_eg_method = {vi_eg_step, NULL};

FC_FO_DECL(fc_eg_solve) { return fo_projection_solve(FO_EG, p, opt, r, u, info); }
FC_FO_DECL(fc_vi_eg_solve) { return fo_projection_solve(FO_VI_EG, p, opt, r, u, info); }
