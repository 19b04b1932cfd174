/* Solver options by name ("nsgs.omega", ...): one table of every field of
 * fc_options settable by name, with its default and accepted range.
 * fc_default_options writes the defaults (the only place they are
 * written: `fricon options`, docs/options.md and the header's comments
 * are generated from or checked against them), fc_options_set parses and
 * checks one value, fc_options_validate checks a whole struct (fc_solve
 * calls it first).  A new option is one line in the table. */
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define INF HUGE_VAL
#define CLOSED FC_OPTION_CLOSED
#define OPEN_LO FC_OPTION_OPEN_LO
#define OPEN FC_OPTION_OPEN
/* The field's offset, refused at compile time when its size is not that
 * of the type the table reads and writes it as (an enum must be int-sized). */
#define AT(field, type) \
    (offsetof(fc_options, field) + 0 * sizeof(char[sizeof(((fc_options *)0)->field) == sizeof(type) ? 1 : -1]))
/* D double, I int, E enum (values 0..hi, its last enumerator), U unsigned, S solver name; def is
 * the default, then the accepted range and one line of help */
#define D(field, def, lo, hi, open, help) {#field, help, FC_OPTION_DOUBLE, AT(field, double), lo, hi, open, def, NULL}
#define I(field, def, lo, hi, help) {#field, help, FC_OPTION_INT, AT(field, int), lo, hi, CLOSED, def, NULL}
#define E(field, def, hi, help) {#field, help, FC_OPTION_ENUM, AT(field, int), 0, hi, CLOSED, def, NULL}
#define U(field, def, lo, hi, help) {#field, help, FC_OPTION_UNSIGNED, AT(field, unsigned), lo, hi, CLOSED, def, NULL}
/* a registered solver's name (fc_options_set stores the registry's own string) */
#define S(field, def, help) {#field, help, FC_OPTION_SOLVER, AT(field, const char *), 0, 0, CLOSED, 0, def}

static const fc_option_info table[] = {
    D(tolerance, 1e-8, 0, 1, OPEN_LO, "target of the SPEC error measure"),
    I(max_iter, 0, 0, INT_MAX, "outer iterations (sweeps for nsgs); 0: 100000, or for auto with a time limit none"),
    D(time_limit, 0.0, 0, 1e7, CLOSED, "seconds, 0 for none"),
    I(cpu_clock, 0, 0, 1, "1: time_limit and seconds on this process's CPU clock (benchmarks on a shared machine)"),
    I(threads, 1, 0, FC_THREADS_MAX, "OpenMP threads of the solve's kernels; 0: FRICON_NUM_THREADS, else every core"),
    I(stall_iterations, 100000, 0, INT_MAX, "iterations without a 10% gain of the best error before status stalled (0: off)"),
    D(nsgs.omega, 1.0, 0, 2, OPEN, "relaxation factor of nsgs (psor when != 1)"),
    I(nsgs.order, 0, 0, 3, "sweep order: 0 auto (stretches from 2 threads and 10^4 contacts), 1 file, 2 coloured, 3 stretches"),
    I(nsgs.shuffle, 0, 0, 1, "1: shuffle the contact order each sweep"),
    U(nsgs.seed, 1, 0, UINT_MAX, "seed of the shuffle"),
    I(nsgs.error_every, 0, 0, INT_MAX, "sweeps between two evaluations of the full error (0: predicted)"),
    E(nsgs.local, FC_LOCAL_HYBRID, FC_LOCAL_EXACT, "one-contact solver: 0 hybrid, 1 projection, 2 AC Newton, 3 exact"),
    D(nsgs.local_tol, 1e-14, 0, 1, OPEN, "one-contact solver tolerance"),
    I(nsgs.local_max_iter, 20, 1, 10000, "one-contact Newton iterations"),
    I(nsgs.anderson, 10, 0, 100, "Anderson acceleration memory of nsgs/psor (0: off)"),
    I(nsgs.anderson_start, 10, 0, INT_MAX, "plain sweeps before Anderson acceleration starts"),
    D(nsgs.anderson_growth, 2.0, 1, 1e3, CLOSED, "fixed-point residual growth that rejects an accelerated sweep"),
    I(nsgs.anderson_window, 500, 0, INT_MAX, "sweeps without halving the error before plain sweeps run alone (0: never)"),
    I(nsgs.level_min, -1, -1, INT_MAX, "the stretches' interface: levels of this many contacts on threads (0: in order on one; -1: 16, 0 under a passive OpenMP wait; the same result)"),
    I(nsgs.half, 0, 0, 2, "file-order or stretches' sweep on W's upper block triangle when W is symmetric: 0 auto (from 1000 contacts), 1 on, 2 off"),
    I(nsgs.cut, 0, 0, 2, "the stretches' cut: 0 auto (2), 1 the file order at equal shares of W's blocks, 2 a breadth-first order over W's blocks at equal shares of an estimated cost (blocks and each contact's case in r)"),
    I(nsgs.phases, 0, 0, 2, "the stretches in phases: 0 auto (2), 1 one phase (the stretches side by side, then their interface), 2 twice as many pieces as threads, the odd ones swept after the even ones (an interface only where one phase's pieces couple)"),
    I(nsgs.renumber, 0, 0, 2, "the stretches' sweeps in their own numbering (contiguous per stretch; r returned in the problem's): 0 auto (on), 1 on, 2 off; not with equalities"),
    E(nsn.rho_strategy, FC_NSN_RHO_SPLIT_SPECTRAL, FC_NSN_RHO_ADAPTIVE, "nsn rho: 0 constant, 1 spectral, 2 split spectral, 3 adaptive"),
    D(nsn.rho, 1.0, 0, 1e12, OPEN_LO, "nsn constant rho, or factor of the spectral rho"),
    E(nsn.line_search, FC_NSN_LS_GOLDSTEIN, FC_NSN_LS_NONMONOTONE, "nsn line search: 0 none, 1 Goldstein-Price, 2 Armijo, 3 non-monotone"),
    I(nsn.ls_max_iter, 20, 1, 200, "nsn line-search steps per Newton iteration"),
    I(nsn.nonmonotone_m, 5, 1, 100, "nsn memory of the non-monotone line search"),
    E(nsn.regularisation, FC_NSN_REG_W, FC_NSN_REG_SHIFT, "nsn regularisation: 0 none, 1 delta*I on W, 2 LM shift"),
    D(nsn.reg_delta, 1e-10, 0, 1, CLOSED, "nsn first regularisation delta (relative to max ||W_aa||)"),
    D(nsn.reg_max, 1e-2, 0, 1, CLOSED, "nsn largest relative regularisation delta"),
    E(nsn.linear_solver, FC_NSN_KLU, FC_NSN_KLU, "nsn sparse LU: 0 UMFPACK, 1 KLU"),
    I(nsn.stagnation, 20, 1, INT_MAX, "nsn iterations without a 2x better error before stagnation"),
    E(nsn.formulation, FC_NSN_AC, FC_NSN_NM, "nsn-hybrid formulation: 0 AC, 1 JM, 2 FB, 3 NM"),
    I(nsn.hybrid_sweeps, 10, 1, INT_MAX, "nsn-hybrid NSGS sweeps of the first fallback"),
    I(nsn.hybrid_max_sweeps, 2000, 1, INT_MAX, "nsn-hybrid cap of the fallback sweeps"),
    I(nsn.hybrid_newton_iter, 50, 1, INT_MAX, "nsn-hybrid Newton iterations per attempt"),
    I(nsn.hybrid_stagnation, 10, 1, INT_MAX, "nsn-hybrid Newton iterations without halving the error"),
    E(ipm.formulation, FC_IPM_AUTO, FC_IPM_EQUILIBRIUM, "ipm/gipm: 0 auto (ipm dual, gipm primal), 1 dual (W), 2 primal (M, H), 3 equilibrium"),
    D(ipm.step_fraction, 0.99, 0, 1, OPEN, "ipm: fraction of the step to the cone boundary"),
    I(ipm.max_outer, 200, 1, INT_MAX, "ipm: cone QPs at most (fixed-point updates of the De Saxce shift + 1)"),
    I(ipm.max_inner, 80, 1, INT_MAX, "ipm: interior-point steps per cone QP"),
    I(ipm.warm_start, 1, 0, 1, "ipm: 1 warm-starts each cone QP from the last"),
    I(ipm.convex, 0, 0, 1, "ipm: 1 solves the convex relaxation only (shift s = 0)"),
    I(ipm.shift_start, 0, 0, 1, "gipm: 1 takes the first shift s = mu ||u_T|| from the initial guess"),
    D(ipm.reg, 1e-11, 0, 1, CLOSED, "ipm: static KKT regularisation, relative to the largest diagonal entry"),
    I(ipm.refine, 3, 0, 20, "ipm: iterative refinement steps per KKT solve"),
    I(ipm.anderson, 5, 0, 20, "ipm: Anderson memory on the shift's fixed point (0: plain updates)"),
    I(ipm.polish, 1, 0, 1, "ipm-mdp: 1 finishes an unconverged run with NSGS sweeps, then Newton"),
    I(ipm.polish_sweeps, 100, 0, INT_MAX, "ipm-mdp: NSGS sweeps of the polish"),
    I(ipm.stall, 60, 1, INT_MAX, "ipm-mdp: steps without halving the error before it counts as stalled"),
    I(ipm.unjam, 1, 0, 1, "ipm-mdp: 1 breaks a jam by solving the blocking contacts alone"),
    D(ipm.margin, 1.0, 0, 1e3, OPEN_LO, "ipm-mdp: the start's margin inside the cones, relative to r and u"),
    D(admm.rho, 1.0, 0, 1e12, OPEN_LO, "admm: penalty when admm.initial_rho = 0"),
    E(admm.initial_rho, FC_ADMM_RHO_EIGENVALUES, FC_ADMM_RHO_EIGENVALUES, "admm: 0 given, 1 norm-inf, 2 eigenvalue estimate"),
    E(admm.rho_strategy, FC_ADMM_RHO_SCALED_RESIDUAL_BALANCING, FC_ADMM_RHO_SCALED_RESIDUAL_BALANCING, "admm: 0 constant, 1 residual balancing, 2 scaled residual balancing"),
    E(admm.acceleration, FC_ADMM_ACCELERATION_AND_RESTART, FC_ADMM_ACCELERATION_AND_RESTART, "admm: 0 none, 1 Nesterov, 2 Nesterov with restart"),
    D(admm.restart_eta, 0.999, 0, 10, OPEN_LO, "admm: restart when the combined residual exceeds eta times the last"),
    D(admm.balancing_tau, 2.0, 1, 1e3, CLOSED, "admm: rho multiplied or divided by tau"),
    D(admm.balancing_phi, 10.0, 1, 1e6, CLOSED, "admm: when one residual exceeds phi times the other"),
    I(admm.balancing_every, 10, 1, INT_MAX, "admm: iterations between two rho updates"),
    I(admm.scaling, 1, 0, 1, "admm: 1 scales W per contact group to a unit diagonal, 0 none"),
    I(admm.probe, 50, 0, INT_MAX, "admm: iterations of the unscaled sticking probe run first, 0 none"),
    E(admm.linear, FC_ADMM_LINEAR_AUTO, FC_ADMM_LINEAR_CG, "admm: the r-step's solve, 0 auto (cg from admm.cg_from contacts), 1 Cholesky of W + rho I, 2 block-Jacobi conjugate gradients (no factorisation)"),
    I(admm.cg_from, 1500, 1, INT_MAX, "admm: with admm.linear 0, conjugate gradients from this many contacts"),
    I(admm.cg_max_iter, 100, 1, INT_MAX, "admm: conjugate-gradient iterations of one r-step at most"),
    I(admm.cg_switch, 20, 1, INT_MAX, "admm: with admm.linear 0, the Cholesky once the r-steps so far average more conjugate-gradient iterations than this"),
    I(lcp.refactor_every, 50, 1, INT_MAX, "lemke: pivots between two KLU factorisations of the basis"),
    D(lcp.pivot_tol, 1e-11, 0, 1, OPEN, "lemke: relative size of the smallest accepted pivot"),
    D(lcp.tie_tol, 1e-12, 0, 1, CLOSED, "lemke: relative gap under which ratios tie (lexicographic rule)"),
    I(lcp.restarts, 3, 0, INT_MAX, "lemke: new covering vectors tried after a secondary ray"),
    I(lcp.crash_sweeps, 100, 0, INT_MAX, "lemke: NSGS sweeps guessing the start basis (0: classical start)"),
    I(lcp.enum_max_size, 24, 0, 64, "enum: largest LCP size (4 nc) enumerated"),
    D(lcp.regularisation, 1e-10, 0, 1, CLOSED, "lemke: W + reg diag(W_NN) when every path fails (0: off)"),
    I(cpg.inner_max_iter, 200, 1, INT_MAX, "cpg: CPG iterations per friction update"),
    D(cpg.inner_ratio, 0.1, 0, 1, OPEN_LO, "cpg: inner QP tolerance relative to the current error"),
    D(fp.rho, 0.0, -INF, 1e12, CLOSED, "fpp/eg/vi-*/hp/dsfp step; <= 0: 1/lambda_max(W) (dsfp: per contact)"),
    D(fp.ls_tau, 2.0 / 3.0, 0, 1, OPEN, "vi-*/hp: step shrink factor"),
    D(fp.ls_tauinv, 1.5, 1, 10, CLOSED, "vi-*/hp: step growth factor"),
    D(fp.ls_L, 0.9, 0, 10, OPEN_LO, "vi-*: accept when rho ||F(x)-F(y)|| <= L ||x-y||"),
    D(fp.ls_Lmin, 0.3, 0, 10, CLOSED, "vi-*: grow rho below Lmin"),
    I(fp.ls_max_iter, 100, 1, 200, "vi-*/hp: line-search steps per iteration"),
    D(fp.hp_sigma, 0.5, 0, 1, OPEN, "hp: Armijo constant of the hyperplane search"),
    I(fp.anderson, 10, 0, 100, "fpp/eg/vi-*/hp/dsfp: Anderson acceleration memory (0: off)"),
    I(fp.anderson_start, 10, 0, INT_MAX, "fpp/eg/vi-*/hp/dsfp: plain iterations before Anderson"),
    D(fp.anderson_growth, 2.0, 1, 1e3, CLOSED, "fpp/eg/vi-*/hp/dsfp: residual growth that rejects an extrapolation"),
    S(prox.inner_solver, "nsgs", "prox: the solver of the regularised problems (a solver name)"),
    D(prox.alpha, 0.0, -INF, 1e6, CLOSED, "prox: first alpha relative to lambda_max(W); <= 0: sigma/nu rule"),
    D(prox.sigma, 5.0, 0, 1e6, OPEN_LO, "prox: alpha = sigma * error^nu * lambda_max(W)"),
    D(prox.nu, 1.0, 0, 10, CLOSED, "prox: exponent of the alpha rule"),
    D(prox.alpha_min, 1e-8, 0, 1, CLOSED, "prox: relative floor of alpha"),
    E(prox.inner.strategy, FC_INNER_TOL_ADAPTIVE, FC_INNER_TOL_ADAPTIVE_NC, "prox inner tolerance: 0 given, 1 adaptive, 2 adaptive / nc"),
    D(prox.inner.tol, 1e-10, 0, 1, OPEN_LO, "prox inner tolerance (given)"),
    D(prox.inner.ratio, 10.0, 0, 1e6, OPEN_LO, "prox: outer error / ratio (adaptive)"),
    I(prox.inner.max_iter, 1000, 1, INT_MAX, "prox: iterations of one inner solve"),
    I(prox.max_sweeps, 0, 0, INT_MAX, "prox: inner iterations in all at most (0: no bound)"),
    E(tresca.inner_solver, FC_TRESCA_APGD, FC_TRESCA_APGD, "tfp/pfp inner solver: 0 Gauss-Seidel, 1 apgd"),
    E(tresca.inner.strategy, FC_INNER_TOL_ADAPTIVE, FC_INNER_TOL_ADAPTIVE_NC, "tfp/pfp inner tolerance: 0 given, 1 adaptive, 2 adaptive / nc"),
    D(tresca.inner.tol, 1e-10, 0, 1, OPEN_LO, "tfp/pfp inner tolerance (given)"),
    D(tresca.inner.ratio, 10.0, 0, 1e6, OPEN_LO, "tfp/pfp: outer error / ratio (adaptive)"),
    I(tresca.inner.max_iter, 200, 1, INT_MAX, "tfp/pfp: Gauss-Seidel sweeps of one inner solve"),
    I(tresca.local_max_iter, 100, 1, 10000, "tfp/pfp: projected iterations of one contact"),
    D(tresca.local_tol, 1e-14, 0, 1, OPEN, "tfp/pfp: one-contact tolerance"),
    D(stick.shift, 1e-10, 0, 1, OPEN_LO, "stick: eps of W + eps I, relative to max W_ii"),
    I(stick.refine, 10, 1, 1000, "stick: proximal refinement steps at most"),
    E(aclm.inner_solver, FC_CCP_APGD, FC_CCP_VI_FPP, "aclm convex solver: 0 apgd, 1 vi-eg, 2 vi-fpp"),
    E(aclm.inner.strategy, FC_INNER_TOL_ADAPTIVE, FC_INNER_TOL_ADAPTIVE_NC, "aclm inner tolerance: 0 given, 1 adaptive, 2 adaptive / nc"),
    D(aclm.inner.tol, 1e-10, 0, 1, OPEN_LO, "aclm inner tolerance (given)"),
    D(aclm.inner.ratio, 10.0, 0, 1e6, OPEN_LO, "aclm: outer error / ratio (adaptive)"),
    I(aclm.inner.max_iter, 5000, 1, INT_MAX, "aclm: iterations of one convex solve"),
    I(nncg.order, 0, 0, 5, "nncg contact order: 0 auto (5 from 2 threads and 2000 contacts, else 3), 1 load path from the supports up, 2 down, 3 file, 4 parallel stretches of the file order, 5 parallel slabs of the body graph"),
    I(nncg.phases, 0, 0, 2, "nncg orders 4, 5: the parts in phases: 0 auto (2), 1 one phase (the parts side by side, then their interface), 2 twice as many pieces as threads, the odd ones swept after the even ones"),
    I(nncg.symmetric, 0, 0, 1, "nncg: 1 sweeps forward then backward"),
    I(nncg.accel, 1, 0, 2, "nncg acceleration: 0 none, 1 conjugate step (NNCG), 2 Anderson (nsgs.anderson*)"),
    D(nncg.restart, 1.5, 0, 10, CLOSED, "nncg: the conjugate step restarts when beta = |g|^2/|g_prev|^2 exceeds it"),
    E(nncg.local, FC_LOCAL_HYBRID, FC_LOCAL_EXACT, "nncg one-contact solver: 0 hybrid, 1 projection, 2 AC Newton, 3 exact"),
    D(nncg.local_tol, 1e-14, 0, 1, OPEN, "nncg: one-contact solver tolerance"),
    I(nncg.local_max_iter, 20, 1, 10000, "nncg: one-contact Newton iterations"),
    I(nncg.newton, 0, 0, INT_MAX, "nncg: sweeps before the first Newton-Krylov step (0: none)"),
    I(nncg.newton_gap, 5, 1, INT_MAX, "nncg: sweeps between two Newton-Krylov steps"),
    I(nncg.krylov, 30, 1, 1000, "nncg: GMRES iterations at most per Newton-Krylov step"),
    D(nncg.newton_near, 0.0, 0, 1e6, CLOSED, "nncg: a Newton-Krylov step when the error is within this factor of the tolerance (0: never)"),
    I(nncg.newton_gs, 0, 0, 100, "nncg: GMRES preconditioner, 0 block diagonal, k Gauss-Seidel sweeps (velocity form)"),
    I(nncg.newton_body, 0, 0, 1, "nncg: 1 GMRES preconditioned by J on each body's contacts (velocity form, newton_gs 0)"),
    D(nncg.newton_reg, 0.0, 0, 1e3, CLOSED, "nncg: the Newton-Krylov system is (J + newton_reg I) x = -F"),
    I(nncg.focus, 0, 0, 100, "nncg: passes after each sweep over the contacts whose status (open, sticking, sliding) changed in it and their bodies' other contacts (0: none)"),
    I(nncg.cluster, 24, 0, 1000, "nncg: clusters of at most this many contacts around the largest errors solved exactly at the measurements (velocity form; 0: none)"),
    I(nncg.cluster_count, 4, 1, 1000, "nncg: clusters per pass (nncg.cluster)"),
    I(nncg.cluster_gap, 8, 1, INT_MAX, "nncg: sweeps between two cluster passes at least (nncg.cluster)"),
    I(nncg.cluster_chains, 1, 0, 1, "nncg: 1 clusters grow through the sticking contacts only (nncg.cluster)"),
    I(nncg.cluster_rise, 0, 0, 1, "nncg: 1 a cluster pass only when the error rose between its last two checks (nncg.cluster)"),
    D(nncg.cluster_tol, 1e-2, 0, 1, OPEN, "nncg: a cluster's solve stops at this fraction of its starting error (nncg.cluster)"),
    D(nncg.cluster_budget, 0.35, 0, 1e6, OPEN_LO, "nncg: a cluster pass only when the passes' counted operations, the next one's included, stay within this fraction of the sweeps' (nncg.cluster)"),
    I(nncg.sweep_data, 2, 0, 2, "nncg, dist-nsgs, dist-nncg sweep data: 0 CSR rows of H^T, G^T; 1 per contact, G stored; 2 per contact, G from M^-1's blocks"),
    I(nncg.newton_form, 0, 0, 3, "nncg Newton function: 0 Alart-Curnier, 1 Jean-Moreau, 2 Fischer-Burmeister, 3 natural map"),
    D(apgd.L0, 0.0, -INF, 1e12, CLOSED, "apgd: first Lipschitz estimate; <= 0: from one product with W"),
    D(apgd.L_grow, 2.0, 1, 1e3, CLOSED, "apgd: L growth when the descent test fails"),
    D(apgd.L_shrink, 0.9, 0, 1, OPEN_LO, "apgd: L shrink after each iteration"),
    I(apgd.restart, 1, 0, 1, "apgd: 1 restart on a gradient opposing the step"),
    I(dist.active_cost, 4, 1, 1000, "dist-*: the partition's weight of a contact active in the starting r, in inactive ones (1: by count)"),
};

const fc_option_info *fc_option_at(int i)
{
    return i >= 0 && i < (int)(sizeof table / sizeof table[0]) ? &table[i] : NULL;
}

const char *fc_option_range(const fc_option_info *o, char *buf, size_t n)
{
    if (o->type == FC_OPTION_SOLVER) snprintf(buf, n, "a solver name");
    else if (o->type != FC_OPTION_DOUBLE && o->hi >= INT_MAX) snprintf(buf, n, "an integer >= %.0f", o->lo);
    else if (o->type != FC_OPTION_DOUBLE) snprintf(buf, n, "an integer in %.0f..%.0f", o->lo, o->hi);
    else if (isinf(o->lo) && isinf(o->hi)) snprintf(buf, n, "a finite number");
    else if (isinf(o->hi)) snprintf(buf, n, "a number %s %g", o->open & FC_OPTION_OPEN_LO ? ">" : ">=", o->lo);
    else
        snprintf(buf, n, "a number in %c%g, %g%c", o->open & FC_OPTION_OPEN_LO ? '(' : '[', o->lo, o->hi,
                 o->open & FC_OPTION_OPEN_HI ? ')' : ']');
    return buf;
}

static int in_range(const fc_option_info *o, double x)
{
    if (!isfinite(x)) return 0;
    if (o->open & FC_OPTION_OPEN_LO ? !(x > o->lo) : !(x >= o->lo)) return 0;
    return o->open & FC_OPTION_OPEN_HI ? x < o->hi : x <= o->hi;
}

/* The value of option o (not a solver name) in opt, as a double. */
static double value_of(const fc_options *opt, const fc_option_info *o)
{
    const void *field = (const char *)opt + o->offset;
    switch (o->type) {
    case FC_OPTION_DOUBLE: return *(const double *)field;
    case FC_OPTION_UNSIGNED: return *(const unsigned *)field;
    default: return *(const int *)field; /* an int, or an int-sized enum (AT) */
    }
}

/* Store x (in o's range) into option o of opt. */
static void store(fc_options *opt, const fc_option_info *o, double x)
{
    void *field = (char *)opt + o->offset;
    switch (o->type) {
    case FC_OPTION_DOUBLE: *(double *)field = x; break;
    case FC_OPTION_UNSIGNED: *(unsigned *)field = (unsigned)x; break;
    default: *(int *)field = (int)x; break;
    }
}

static fc_err out_of_range(const fc_option_info *o, const char *value, fc_error *err)
{
    char r[64];
    return fc_error_set(err, FC_ERR_INVALID, "option %s: %s is out of range, expected %s", o->name,
                        value, fc_option_range(o, r, sizeof r));
}

fc_err fc_options_set(fc_options *opt, const char *name, const char *value, fc_error *err)
{
    fc_error tmp;
    if (!err) err = &tmp;
    for (int i = 0; fc_option_at(i); i++) {
        const fc_option_info *o = fc_option_at(i);
        if (strcmp(o->name, name)) continue;
        char *field = (char *)opt + o->offset;
        if (o->type == FC_OPTION_SOLVER) {
            const fc_solver *sv = fc_solver_find(value);
            if (!sv) return fc_error_set(err, FC_ERR_INVALID, "option %s: unknown solver '%s'", name, value);
            memcpy(field, &sv->name, sizeof sv->name);
            return FC_OK;
        }
        char *end;
        errno = 0;
        double x = o->type == FC_OPTION_DOUBLE ? strtod(value, &end) : (double)strtol(value, &end, 10);
        if (end == value || *end || errno == ERANGE || !isfinite(x))
            return fc_error_set(err, FC_ERR_INVALID, "option %s: '%s' is not a valid number", name, value);
        if (!in_range(o, x)) return out_of_range(o, value, err);
        store(opt, o, x);
        return FC_OK;
    }
    return fc_error_set(err, FC_ERR_INVALID, "unknown option '%s'", name);
}

fc_err fc_options_validate(const fc_options *opt, fc_error *err)
{
    fc_error tmp;
    if (!err) err = &tmp;
    for (int i = 0; fc_option_at(i); i++) {
        const fc_option_info *o = fc_option_at(i);
        if (o->type == FC_OPTION_SOLVER) {
            const char *name = *(const char *const *)(const void *)((const char *)opt + o->offset);
            if (!name || !fc_solver_find(name))
                return fc_error_set(err, FC_ERR_INVALID, "option %s: unknown solver '%s'", o->name,
                                    name ? name : "(null)");
            continue;
        }
        double x = value_of(opt, o);
        if (!in_range(o, x)) {
            char v[32];
            snprintf(v, sizeof v, "%g", x);
            return out_of_range(o, v, err);
        }
    }
    return FC_OK;
}

/* The table's defaults; zero (NULL) in the fields it does not name. */
void fc_default_options(fc_options *opt)
{
    memset(opt, 0, sizeof *opt);
    for (int i = 0; fc_option_at(i); i++) {
        const fc_option_info *o = fc_option_at(i);
        if (o->type == FC_OPTION_SOLVER) {
            /* the registry's own string, as fc_options_set stores it */
            const fc_solver *sv = fc_solver_find(o->def_solver);
            const char *name = sv ? sv->name : o->def_solver;
            memcpy((char *)opt + o->offset, &name, sizeof name);
        }
        else store(opt, o, o->def);
    }
}
