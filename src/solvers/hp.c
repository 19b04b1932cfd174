/* hp: hyperplane projection (Solodov-Svaiter 1999) on the natural map
 * F(r) = u + g(u).  An Armijo search along d = r - P_K(r - rho F(r))
 * finds z with <F(z), d> large enough; the next iterate is the projection
 * of r onto K ∩ H, H = {x: <F(z), x - z> <= 0} separating r from the
 * solutions. */
#include "core/firstorder.h"

/* phi(lambda) = <a, t> - b with t = P_K(x - lambda a). */
static double halfspace_phi(const fc_problem *p, const double *a, double b,
                            const double *x, double lambda, double *t)
{
    int m = fc_problem_m(p);
    for (int i = 0; i < m; i++) t[i] = x[i] - lambda * a[i];
    fo_project(p, t);
    return fc_dot(m, a, t) - b;
}

/* x <- P_{K ∩ H}(x), H = {w: <a, w> <= b}, x outside H: P_K(x - lambda a)
 * with lambda >= 0 the root of the nonincreasing phi, by bisection.
 * t: m doubles of workspace. */
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

/* Search z = r - t d, t halved from 1, until <F(z), d> >= sigma ||d||^2 /
 * rho; rho grows after a first-try success and shrinks otherwise. */
static void hp_step(fo_proj *S, double *r, double *u)
{
    const fc_problem *p = S->p;
    const fc_fp_options *o = S->o;
    int m = S->m;
    double *y = S->y, *uy = S->uy, *Fz = S->Fy, *z = S->z;
    double nd = fo_proj_step(p, r, S->rho, S->F, y);
    if (nd == 0.0) return;
    fo_velocity(p, y, uy);
    double t = 1.0, fzd = 0.0;
    int ls;
    for (ls = 0; ls < o->ls_max_iter; ls++) {
        for (int i = 0; i < m; i++) {
            z[i] = r[i] - t * (r[i] - y[i]);
            Fz[i] = (1.0 - t) * u[i] + t * uy[i];
        }
        fo_uhat(p, S->ccp, Fz, Fz);
        fzd = 0.0;
        for (int i = 0; i < m; i++) fzd += Fz[i] * (r[i] - y[i]);
        if (fzd >= o->hp_sigma * nd * nd / S->rho) break;
        t *= 0.5;
    }
    if (fzd <= 0.0) memcpy(r, y, (size_t)m * sizeof *r);   /* no hyperplane */
    else project_K_halfspace(p, Fz, fc_dot(m, Fz, z), r, y);
    S->rho = ls == 0 ? (S->grow ? S->rho * o->ls_tauinv : S->rho) : S->rho * o->ls_tau;
    fo_velocity(p, r, u);
}

const fo_proj_method fo_hp_method = {hp_step, NULL};

FC_FO_DECL(fc_hp_solve) { return fo_projection_solve(FO_HP, p, opt, r, u, info); }
