/* Solver options by name ("nsgs.omega", ...): one table of every field of
 * fc_options settable by name, with its accepted range; fc_options_set
 * parses and checks one value, fc_options_validate checks a whole struct
 * (fc_solve calls it first).  A new option is one line in the table. */
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
#define D(field, lo, hi, open, help) {#field, help, FC_OPTION_DOUBLE, offsetof(fc_options, field), lo, hi, open}
#define I(field, lo, hi, help) {#field, help, FC_OPTION_INT, offsetof(fc_options, field), lo, hi, CLOSED}
/* a registered solver's name (stored as the registry's own string) */
#define S(field, help) {#field, help, FC_OPTION_SOLVER, offsetof(fc_options, field), 0, 0, CLOSED}

static const fc_option_info table[] = {
    D(tolerance, 0, INF, OPEN_LO, "target of the SPEC error measure"),
    I(max_iter, 1, INT_MAX, "outer iterations (sweeps for nsgs)"),
    D(time_limit, 0, INF, CLOSED, "seconds, 0 for none"),
    D(nsgs.omega, 0, 2, OPEN, "relaxation factor of nsgs (psor when != 1)"),
    I(nsgs.shuffle, 0, 1, "1: shuffle the contact order each sweep"),
    I(nsgs.error_every, 0, INT_MAX, "sweeps between two evaluations of the full error (0: predicted)"),
    I(nsgs.local, 0, 3, "one-contact solver: 0 hybrid, 1 projection, 2 AC Newton, 3 exact"),
    D(nsgs.local_tol, 0, INF, OPEN_LO, "one-contact solver tolerance"),
    I(nsgs.local_max_iter, 1, INT_MAX, "one-contact Newton iterations"),
    I(nsgs.anderson, 0, 100, "Anderson acceleration memory of nsgs/psor (0: off)"),
    I(nsgs.anderson_start, 0, INT_MAX, "plain sweeps before Anderson acceleration starts"),
    D(nsgs.anderson_growth, 1, INF, CLOSED, "fixed-point residual growth that rejects an accelerated sweep"),
    I(nsgs.anderson_window, 0, INT_MAX, "sweeps without halving the error before plain sweeps run alone (0: never)"),
    I(nsn.rho_strategy, 0, 3, "nsn rho: 0 constant, 1 spectral, 2 split spectral, 3 adaptive"),
    D(nsn.rho, 0, INF, OPEN_LO, "nsn constant rho, or factor of the spectral rho"),
    I(nsn.line_search, 0, 3, "nsn line search: 0 none, 1 Goldstein-Price, 2 Armijo, 3 non-monotone"),
    I(nsn.ls_max_iter, 1, INT_MAX, "nsn line-search steps per Newton iteration"),
    I(nsn.nonmonotone_m, 1, 100, "nsn memory of the non-monotone line search"),
    I(nsn.regularisation, 0, 2, "nsn regularisation: 0 none, 1 delta*I on W, 2 LM shift"),
    D(nsn.reg_delta, 0, INF, CLOSED, "nsn first regularisation delta (relative to max ||W_aa||)"),
    D(nsn.reg_max, 0, INF, CLOSED, "nsn largest relative regularisation delta"),
    I(nsn.linear_solver, 0, 1, "nsn sparse LU: 0 UMFPACK, 1 KLU"),
    I(nsn.stagnation, 1, INT_MAX, "nsn iterations without a 2x better error before stagnation"),
    I(nsn.formulation, 0, 3, "nsn-hybrid formulation: 0 AC, 1 JM, 2 FB, 3 NM"),
    I(nsn.hybrid_sweeps, 1, INT_MAX, "nsn-hybrid NSGS sweeps of the first fallback"),
    I(nsn.hybrid_max_sweeps, 1, INT_MAX, "nsn-hybrid cap of the fallback sweeps"),
    I(nsn.hybrid_newton_iter, 1, INT_MAX, "nsn-hybrid Newton iterations per attempt"),
    I(nsn.hybrid_stagnation, 1, INT_MAX, "nsn-hybrid Newton iterations without halving the error"),
    I(ipm.formulation, 0, 3, "ipm/gipm: 0 auto (ipm dual, gipm primal), 1 dual (W), 2 primal (M, H), 3 equilibrium"),
    D(ipm.step_fraction, 0, 1, OPEN, "ipm: fraction of the step to the cone boundary"),
    I(ipm.max_outer, 1, INT_MAX, "ipm: cone QPs at most (fixed-point updates of the De Saxce shift + 1)"),
    I(ipm.max_inner, 1, INT_MAX, "ipm: interior-point steps per cone QP"),
    I(ipm.warm_start, 0, 1, "ipm: 1 warm-starts each cone QP from the last"),
    I(ipm.convex, 0, 1, "ipm: 1 solves the convex relaxation only (shift s = 0)"),
    D(ipm.reg, 0, INF, CLOSED, "ipm: static KKT regularisation, relative to the largest diagonal entry"),
    I(ipm.refine, 0, INT_MAX, "ipm: iterative refinement steps per KKT solve"),
    I(ipm.anderson, 0, 20, "ipm: Anderson memory on the shift's fixed point (0: plain updates)"),
    I(ipm.polish, 0, 1, "ipm-mdp: 1 finishes an unconverged run with NSGS sweeps, then Newton"),
    I(ipm.polish_sweeps, 0, INT_MAX, "ipm-mdp: NSGS sweeps of the polish"),
    I(ipm.stall, 1, INT_MAX, "ipm-mdp: steps without halving the error before it counts as stalled"),
    I(ipm.unjam, 0, 1, "ipm-mdp: 1 breaks a jam by solving the blocking contacts alone"),
    D(ipm.margin, 0, INF, OPEN_LO, "ipm-mdp: the start's margin inside the cones, relative to r and u"),
    D(admm.rho, 0, INF, OPEN_LO, "admm: penalty when admm.initial_rho = 0"),
    I(admm.initial_rho, 0, 2, "admm: 0 given, 1 norm-inf, 2 eigenvalue estimate"),
    I(admm.rho_strategy, 0, 2, "admm: 0 constant, 1 residual balancing, 2 scaled residual balancing"),
    I(admm.acceleration, 0, 2, "admm: 0 none, 1 Nesterov, 2 Nesterov with restart"),
    D(admm.restart_eta, 0, INF, OPEN_LO, "admm: restart when the combined residual exceeds eta times the last"),
    D(admm.balancing_tau, 1, INF, CLOSED, "admm: rho multiplied or divided by tau"),
    D(admm.balancing_phi, 1, INF, CLOSED, "admm: when one residual exceeds phi times the other"),
    I(admm.balancing_every, 1, INT_MAX, "admm: iterations between two rho updates"),
    I(admm.scaling, 0, 1, "admm: 1 scales W per contact group to a unit diagonal, 0 none"),
    I(admm.probe, 0, INT_MAX, "admm: iterations of the unscaled sticking probe run first, 0 none"),
    I(lcp.refactor_every, 1, INT_MAX, "lemke: pivots between two KLU factorisations of the basis"),
    D(lcp.pivot_tol, 0, INF, OPEN_LO, "lemke: relative size of the smallest accepted pivot"),
    D(lcp.tie_tol, 0, INF, CLOSED, "lemke: relative gap under which ratios tie (lexicographic rule)"),
    I(lcp.restarts, 0, INT_MAX, "lemke: new covering vectors tried after a secondary ray"),
    I(lcp.crash_sweeps, 0, INT_MAX, "lemke: NSGS sweeps guessing the start basis (0: classical start)"),
    I(lcp.enum_max_size, 0, INT_MAX, "enum: largest LCP size (4 nc) enumerated"),
    D(lcp.regularisation, 0, INF, CLOSED, "lemke: W + reg diag(W_NN) when every path fails (0: off)"),
    I(cpg.inner_max_iter, 1, INT_MAX, "cpg: CPG iterations per friction update"),
    D(cpg.inner_ratio, 0, INF, OPEN_LO, "cpg: inner QP tolerance relative to the current error"),
    D(fp.rho, -INF, INF, CLOSED, "fpp/eg/vi-*/hp/dsfp step; <= 0: 1/lambda_max(W) (dsfp: per contact)"),
    D(fp.ls_tau, 0, 1, OPEN, "vi-*/hp: step shrink factor"),
    D(fp.ls_tauinv, 1, INF, CLOSED, "vi-*/hp: step growth factor"),
    D(fp.ls_L, 0, INF, OPEN_LO, "vi-*: accept when rho ||F(x)-F(y)|| <= L ||x-y||"),
    D(fp.ls_Lmin, 0, INF, CLOSED, "vi-*: grow rho below Lmin"),
    I(fp.ls_max_iter, 1, INT_MAX, "vi-*/hp: line-search steps per iteration"),
    D(fp.hp_sigma, 0, 1, OPEN, "hp: Armijo constant of the hyperplane search"),
    I(fp.anderson, 0, 100, "fpp/eg/vi-*/hp/dsfp: Anderson acceleration memory (0: off)"),
    I(fp.anderson_start, 0, INT_MAX, "fpp/eg/vi-*/hp/dsfp: plain iterations before Anderson"),
    D(fp.anderson_growth, 1, INF, CLOSED, "fpp/eg/vi-*/hp/dsfp: residual growth that rejects an extrapolation"),
    S(prox.inner_solver, "prox: the solver of the regularised problems (a solver name)"),
    D(prox.alpha, -INF, INF, CLOSED, "prox: first alpha relative to lambda_max(W); <= 0: sigma/nu rule"),
    D(prox.sigma, 0, INF, OPEN_LO, "prox: alpha = sigma * error^nu * lambda_max(W)"),
    D(prox.nu, 0, INF, CLOSED, "prox: exponent of the alpha rule"),
    D(prox.alpha_min, 0, INF, CLOSED, "prox: relative floor of alpha"),
    I(prox.inner.strategy, 0, 2, "prox inner tolerance: 0 given, 1 adaptive, 2 adaptive / nc"),
    D(prox.inner.tol, 0, INF, OPEN_LO, "prox inner tolerance (given)"),
    D(prox.inner.ratio, 0, INF, OPEN_LO, "prox: outer error / ratio (adaptive)"),
    I(prox.inner.max_iter, 1, INT_MAX, "prox: iterations of one inner solve"),
    I(prox.max_sweeps, 0, INT_MAX, "prox: inner iterations in all at most (0: no bound)"),
    I(tresca.inner_solver, 0, 1, "tfp/pfp inner solver: 0 Gauss-Seidel, 1 apgd"),
    I(tresca.inner.strategy, 0, 2, "tfp/pfp inner tolerance: 0 given, 1 adaptive, 2 adaptive / nc"),
    D(tresca.inner.tol, 0, INF, OPEN_LO, "tfp/pfp inner tolerance (given)"),
    D(tresca.inner.ratio, 0, INF, OPEN_LO, "tfp/pfp: outer error / ratio (adaptive)"),
    I(tresca.inner.max_iter, 1, INT_MAX, "tfp/pfp: Gauss-Seidel sweeps of one inner solve"),
    I(tresca.local_max_iter, 1, INT_MAX, "tfp/pfp: projected iterations of one contact"),
    D(tresca.local_tol, 0, INF, OPEN_LO, "tfp/pfp: one-contact tolerance"),
    D(stick.shift, 0, INF, OPEN_LO, "stick: eps of W + eps I, relative to max W_ii"),
    I(stick.refine, 1, INT_MAX, "stick: proximal refinement steps at most"),
    I(aclm.inner_solver, 0, 2, "aclm convex solver: 0 apgd, 1 vi-eg, 2 vi-fpp"),
    I(aclm.inner.strategy, 0, 2, "aclm inner tolerance: 0 given, 1 adaptive, 2 adaptive / nc"),
    D(aclm.inner.tol, 0, INF, OPEN_LO, "aclm inner tolerance (given)"),
    D(aclm.inner.ratio, 0, INF, OPEN_LO, "aclm: outer error / ratio (adaptive)"),
    I(aclm.inner.max_iter, 1, INT_MAX, "aclm: iterations of one convex solve"),
    D(apgd.L0, -INF, INF, CLOSED, "apgd: first Lipschitz estimate; <= 0: from one product with W"),
    D(apgd.L_grow, 1, INF, CLOSED, "apgd: L growth when the descent test fails"),
    D(apgd.L_shrink, 0, 1, OPEN_LO, "apgd: L shrink after each iteration"),
    I(apgd.restart, 0, 1, "apgd: 1 restart on a gradient opposing the step"),
};

const fc_option_info *fc_option_at(int i)
{
    return i >= 0 && i < (int)(sizeof table / sizeof table[0]) ? &table[i] : NULL;
}

const char *fc_option_range(const fc_option_info *o, char *buf, size_t n)
{
    if (o->type == FC_OPTION_SOLVER) snprintf(buf, n, "a solver name");
    else if (o->type == FC_OPTION_INT && o->hi >= INT_MAX) snprintf(buf, n, "an integer >= %.0f", o->lo);
    else if (o->type == FC_OPTION_INT) snprintf(buf, n, "an integer in %.0f..%.0f", o->lo, o->hi);
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

/* The value of option o in opt, as a double (ints converted). */
static double value_of(const fc_options *opt, const fc_option_info *o)
{
    const char *field = (const char *)opt + o->offset;
    return o->type == FC_OPTION_DOUBLE ? *(const double *)(const void *)field
                                       : *(const int *)(const void *)field;
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
        if (o->type == FC_OPTION_DOUBLE) *(double *)(void *)field = x;
        else *(int *)(void *)field = (int)x;
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

/* Every field's default. */
void fc_default_options(fc_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->tolerance = 1e-8;
    opt->max_iter = 100000;
    opt->time_limit = 0.0;
    opt->nsgs.omega = 1.0;
    opt->nsgs.shuffle = 0;
    opt->nsgs.seed = 1;
    opt->nsgs.error_every = 0;
    opt->nsgs.local = FC_LOCAL_HYBRID;
    opt->nsgs.local_tol = 1e-14;
    opt->nsgs.local_max_iter = 20;
    opt->nsgs.anderson = 10;
    opt->nsgs.anderson_start = 10;
    opt->nsgs.anderson_growth = 2.0;
    opt->nsgs.anderson_window = 500;
    opt->nsn.rho_strategy = FC_NSN_RHO_SPLIT_SPECTRAL;
    opt->nsn.rho = 1.0;
    opt->nsn.line_search = FC_NSN_LS_GOLDSTEIN;
    opt->nsn.ls_max_iter = 20;
    opt->nsn.nonmonotone_m = 5;
    opt->nsn.regularisation = 1;
    opt->nsn.reg_delta = 1e-10;
    opt->nsn.reg_max = 1e-2;
    opt->nsn.linear_solver = 1;
    opt->nsn.stagnation = 20;
    opt->nsn.formulation = FC_NSN_AC;
    opt->nsn.hybrid_sweeps = 10;
    opt->nsn.hybrid_max_sweeps = 2000;
    opt->nsn.hybrid_newton_iter = 50;
    opt->nsn.hybrid_stagnation = 10;
    opt->ipm.formulation = FC_IPM_AUTO;
    opt->ipm.step_fraction = 0.99;
    opt->ipm.max_outer = 200;
    opt->ipm.max_inner = 80;
    opt->ipm.warm_start = 1;
    opt->ipm.convex = 0;
    opt->ipm.reg = 1e-11;
    opt->ipm.refine = 3;
    opt->ipm.anderson = 5;
    opt->ipm.polish = 1;
    opt->ipm.polish_sweeps = 100;
    opt->ipm.stall = 60;
    opt->ipm.unjam = 1;
    opt->ipm.margin = 1.0;
    opt->admm.rho = 1.0;
    opt->admm.initial_rho = FC_ADMM_RHO_EIGENVALUES;
    opt->admm.rho_strategy = FC_ADMM_RHO_SCALED_RESIDUAL_BALANCING;
    opt->admm.acceleration = FC_ADMM_ACCELERATION_AND_RESTART;
    opt->admm.restart_eta = 0.999;
    opt->admm.balancing_tau = 2.0;
    opt->admm.balancing_phi = 10.0;
    opt->admm.balancing_every = 10;
    opt->admm.scaling = 1;
    opt->admm.probe = 50;
    opt->lcp.refactor_every = 50;
    opt->lcp.pivot_tol = 1e-11;
    opt->lcp.tie_tol = 1e-12;
    opt->lcp.restarts = 3;
    opt->lcp.crash_sweeps = 100;
    opt->lcp.enum_max_size = 24;
    opt->lcp.regularisation = 1e-10;
    opt->cpg.inner_max_iter = 200;
    opt->cpg.inner_ratio = 0.1;
    /* first-order and fixed-point solvers (docs/solvers-firstorder.md) */
    opt->fp.rho = 0.0;
    opt->fp.ls_tau = 2.0 / 3.0;
    opt->fp.ls_tauinv = 1.5;
    opt->fp.ls_L = 0.9;
    opt->fp.ls_Lmin = 0.3;
    opt->fp.ls_max_iter = 100;
    opt->fp.hp_sigma = 0.5;
    opt->fp.anderson = 10;
    opt->fp.anderson_start = 10;
    opt->fp.anderson_growth = 2.0;
    opt->prox.inner_solver = "nsgs";
    opt->prox.alpha = 0.0;
    opt->prox.sigma = 5.0;
    opt->prox.nu = 1.0;
    opt->prox.alpha_min = 1e-8;
    opt->prox.inner = (fc_inner_options){FC_INNER_TOL_ADAPTIVE, 1e-10, 10.0, 1000};
    opt->tresca.inner_solver = 1;
    opt->tresca.inner = (fc_inner_options){FC_INNER_TOL_ADAPTIVE, 1e-10, 10.0, 200};
    opt->tresca.local_max_iter = 100;
    opt->tresca.local_tol = 1e-14;
    opt->stick.shift = 1e-10;
    opt->stick.refine = 10;
    opt->aclm.inner_solver = FC_CCP_APGD;
    opt->aclm.inner = (fc_inner_options){FC_INNER_TOL_ADAPTIVE, 1e-10, 10.0, 5000};
    opt->apgd.L0 = 0.0;
    opt->apgd.L_grow = 2.0;
    opt->apgd.L_shrink = 0.9;
    opt->apgd.restart = 1;
}
