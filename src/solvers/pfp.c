/* pfp: the Panagiotopoulos fixed point.  Alternate
 *   the normal problem: the LCP 0 <= u_N ⟂ r_N >= 0 with r_T frozen
 *     (projected Gauss-Seidel, exact per contact), and
 *   the tangential problem: min over ||r_T,a|| <= mu_a r_N,a of
 *     1/2 r^T W r + q^T r with r_N frozen (a convex problem; Gauss-Seidel
 *     over contacts with local projected iterations on the disk),
 * each solved to the inner tolerance of tresca.inner; the sweeps are
 * those of the Tresca solver (tresca.c). */
#include "core/firstorder.h"

/* One alternation: the normal problem with r_T frozen, then the
 * tangential one with the thresholds mu r_N it gave. */
static int pfp_step(fo_run *R, fo_tresca *T, double *s, double tol, int it, double err, double *r)
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

static fc_status pfp_run(fo_run *R, int kind, double *r, double *u)
{
    (void)kind;
    return fo_tresca_fixed_point(R, "pfp", pfp_step, r, u);
}

fc_status fc_pfp_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                       fc_info *info)
{
    return fo_solve_outer(p, opt, pfp_run, 0, 0, r, u, info);
}
