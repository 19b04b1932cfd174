/* pfp: the Panagiotopoulos fixed point.  Alternate the normal problem
 * (the LCP 0 <= u_N ⟂ r_N >= 0, r_T frozen) and the tangential one (min
 * 1/2 r'W r + q'r over ||r_T,a|| <= mu_a r_N,a, r_N frozen), each solved
 * by tfp.c's Tresca solver to the inner tolerance of tresca.inner. */
#include "core/firstorder.h"

/* One alternation: the normal problem with r_T frozen, then the
 * tangential one with the thresholds mu r_N it gave. */
int fo_pfp_step(fo_run *R, fo_tresca *T, double *s, double tol, int it, double err, double *r)
{
    const fc_problem *p = R->p;
    int d = p->d, sn = 0, stg = 0;
    double en = fo_tresca_solve(T, FO_TRESCA_NORMAL, s, tol, &R->clock, r, &sn);
    for (int a = 0; a < p->nc; a++) s[a] = p->mu[a] * r[d * a];
    double et = fo_tresca_solve(T, FO_TRESCA_TANGENT, s, tol, &R->clock, r, &stg);
    fc_log(R->opt, 2, "pfp %d: error %.3e, normal %.3e (%d), tangent %.3e (%d)", it, err, en, sn,
           et, stg);
    return sn + stg;
}

fc_status fc_pfp_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                       fc_info *info)
{
    return fo_solve_outer(p, opt, fo_tresca_run, FO_PFP, 0, r, u, info);
}
