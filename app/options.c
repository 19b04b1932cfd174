/* Solver options settable by name from the command line (--set NAME=VALUE):
 * a table of the fc_options fields, so a new option is one line here. */
#include "cli.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef enum { OPT_DOUBLE, OPT_INT, OPT_SOLVER } opt_type;

typedef struct {
    const char *name;
    opt_type type;
    size_t offset;
    const char *help;
} opt_entry;

#define D(field, help) {#field, OPT_DOUBLE, offsetof(fc_options, field), help}
#define I(field, help) {#field, OPT_INT, offsetof(fc_options, field), help}
/* a registered solver's name (stored as the registry's own string) */
#define S(field, help) {#field, OPT_SOLVER, offsetof(fc_options, field), help}

static const opt_entry entries[] = {
    D(tolerance, "target of the SPEC error measure"),
    I(max_iter, "outer iterations (sweeps for nsgs)"),
    D(time_limit, "seconds, 0 for none"),
    D(nsgs.omega, "relaxation factor of nsgs (psor when != 1)"),
    I(nsgs.shuffle, "1: shuffle the contact order each sweep"),
    I(nsgs.error_every, "sweeps between two evaluations of the full error (0: predicted)"),
    I(nsgs.local, "one-contact solver: 0 hybrid, 1 projection, 2 AC Newton, 3 exact"),
    D(nsgs.local_tol, "one-contact solver tolerance"),
    I(nsgs.local_max_iter, "one-contact Newton iterations"),
    I(nsgs.anderson, "Anderson acceleration memory of nsgs/psor (0: off)"),
    I(nsgs.anderson_start, "plain sweeps before Anderson acceleration starts"),
    D(nsgs.anderson_growth, "fixed-point residual growth that rejects an accelerated sweep"),
    I(nsn.rho_strategy, "nsn rho: 0 constant, 1 spectral, 2 split spectral, 3 adaptive"),
    D(nsn.rho, "nsn constant rho, or factor of the spectral rho"),
    I(nsn.line_search, "nsn line search: 0 none, 1 Goldstein-Price, 2 Armijo, 3 non-monotone"),
    I(nsn.ls_max_iter, "nsn line-search steps per Newton iteration"),
    I(nsn.nonmonotone_m, "nsn memory of the non-monotone line search"),
    I(nsn.regularisation, "nsn regularisation: 0 none, 1 delta*I on W, 2 LM shift"),
    D(nsn.reg_delta, "nsn first regularisation delta (relative to max ||W_aa||)"),
    D(nsn.reg_max, "nsn largest relative regularisation delta"),
    I(nsn.linear_solver, "nsn sparse LU: 0 UMFPACK, 1 KLU"),
    I(nsn.stagnation, "nsn iterations without a 2x better error before stagnation"),
    I(nsn.formulation, "nsn-hybrid formulation: 0 AC, 1 JM, 2 FB, 3 NM"),
    I(nsn.hybrid_sweeps, "nsn-hybrid NSGS sweeps of the first fallback"),
    I(nsn.hybrid_max_sweeps, "nsn-hybrid cap of the fallback sweeps"),
    I(nsn.hybrid_newton_iter, "nsn-hybrid Newton iterations per attempt"),
    I(nsn.hybrid_stagnation, "nsn-hybrid Newton iterations without halving the error"),
    I(ipm.formulation, "ipm/gipm: 0 auto (ipm dual, gipm primal), 1 dual (W), 2 primal (M, H), 3 equilibrium"),
    D(ipm.step_fraction, "ipm: fraction of the step to the cone boundary"),
    I(ipm.max_outer, "ipm: cone QPs at most (fixed-point updates of the De Saxce shift + 1)"),
    I(ipm.max_inner, "ipm: interior-point steps per cone QP"),
    I(ipm.warm_start, "ipm: 1 warm-starts each cone QP from the last"),
    I(ipm.convex, "ipm: 1 solves the convex relaxation only (shift s = 0)"),
    D(ipm.reg, "ipm: static KKT regularisation, relative to the largest diagonal entry"),
    I(ipm.refine, "ipm: iterative refinement steps per KKT solve"),
    I(ipm.anderson, "ipm: Anderson memory on the shift's fixed point (0: plain updates)"),
    I(ipm.polish, "ipm-mdp: 1 finishes an unconverged run with NSGS sweeps, then Newton"),
    I(ipm.polish_sweeps, "ipm-mdp: NSGS sweeps of the polish"),
    I(ipm.stall, "ipm-mdp: steps without halving the error before it counts as stalled"),
    I(ipm.unjam, "ipm-mdp: 1 breaks a jam by solving the blocking contacts alone"),
    D(ipm.margin, "ipm-mdp: the start's margin inside the cones, relative to r and u"),
    D(admm.rho, "admm: penalty when admm.initial_rho = 0"),
    I(admm.initial_rho, "admm: 0 given, 1 norm-inf, 2 eigenvalue estimate"),
    I(admm.rho_strategy, "admm: 0 constant, 1 residual balancing, 2 scaled residual balancing"),
    I(admm.acceleration, "admm: 0 none, 1 Nesterov, 2 Nesterov with restart"),
    D(admm.restart_eta, "admm: restart when the combined residual exceeds eta times the last"),
    D(admm.balancing_tau, "admm: rho multiplied or divided by tau"),
    D(admm.balancing_phi, "admm: when one residual exceeds phi times the other"),
    I(admm.balancing_every, "admm: iterations between two rho updates"),
    I(admm.scaling, "admm: 1 scales W per contact group to a unit diagonal, 0 none"),
    I(admm.probe, "admm: iterations of the unscaled sticking probe run first, 0 none"),
    I(lcp.refactor_every, "lemke: pivots between two KLU factorisations of the basis"),
    D(lcp.pivot_tol, "lemke: relative size of the smallest accepted pivot"),
    D(lcp.tie_tol, "lemke: relative gap under which ratios tie (lexicographic rule)"),
    I(lcp.restarts, "lemke: new covering vectors tried after a secondary ray"),
    I(lcp.crash_sweeps, "lemke: NSGS sweeps guessing the start basis (0: classical start)"),
    I(lcp.enum_max_size, "enum: largest LCP size (4 nc) enumerated"),
    D(lcp.regularisation, "lemke: W + reg diag(W_NN) when every path fails (0: off)"),
    I(cpg.inner_max_iter, "cpg: CPG iterations per friction update"),
    D(cpg.inner_ratio, "cpg: inner QP tolerance relative to the current error"),
    D(fp.rho, "fpp/eg/vi-*/hp/dsfp step; <= 0: 1/lambda_max(W) (dsfp: per contact)"),
    D(fp.ls_tau, "vi-*/hp: step shrink factor"),
    D(fp.ls_tauinv, "vi-*/hp: step growth factor"),
    D(fp.ls_L, "vi-*: accept when rho ||F(x)-F(y)|| <= L ||x-y||"),
    D(fp.ls_Lmin, "vi-*: grow rho below Lmin"),
    I(fp.ls_max_iter, "vi-*/hp: line-search steps per iteration"),
    D(fp.hp_sigma, "hp: Armijo constant of the hyperplane search"),
    I(fp.anderson, "fpp/eg/vi-*/hp/dsfp: Anderson acceleration memory (0: off)"),
    I(fp.anderson_start, "fpp/eg/vi-*/hp/dsfp: plain iterations before Anderson"),
    D(fp.anderson_growth, "fpp/eg/vi-*/hp/dsfp: residual growth that rejects an extrapolation"),
    S(prox.inner_solver, "prox: the solver of the regularised problems (a solver name)"),
    D(prox.alpha, "prox: first alpha relative to lambda_max(W); <= 0: sigma/nu rule"),
    D(prox.sigma, "prox: alpha = sigma * error^nu * lambda_max(W)"),
    D(prox.nu, "prox: exponent of the alpha rule"),
    D(prox.alpha_min, "prox: relative floor of alpha"),
    I(prox.inner.strategy, "prox inner tolerance: 0 given, 1 adaptive, 2 adaptive / nc"),
    D(prox.inner.tol, "prox inner tolerance (given)"),
    D(prox.inner.ratio, "prox: outer error / ratio (adaptive)"),
    I(prox.inner.max_iter, "prox: iterations of one inner solve"),
    I(tresca.inner_solver, "tfp/pfp inner solver: 0 Gauss-Seidel, 1 apgd"),
    I(tresca.inner.strategy, "tfp/pfp inner tolerance: 0 given, 1 adaptive, 2 adaptive / nc"),
    D(tresca.inner.tol, "tfp/pfp inner tolerance (given)"),
    D(tresca.inner.ratio, "tfp/pfp: outer error / ratio (adaptive)"),
    I(tresca.inner.max_iter, "tfp/pfp: Gauss-Seidel sweeps of one inner solve"),
    I(tresca.local_max_iter, "tfp/pfp: projected iterations of one contact"),
    D(tresca.local_tol, "tfp/pfp: one-contact tolerance"),
    D(stick.shift, "stick: eps of W + eps I, relative to max W_ii"),
    I(stick.refine, "stick: proximal refinement steps at most"),
    I(aclm.inner_solver, "aclm convex solver: 0 apgd, 1 vi-eg, 2 vi-fpp"),
    I(aclm.inner.strategy, "aclm inner tolerance: 0 given, 1 adaptive, 2 adaptive / nc"),
    D(aclm.inner.tol, "aclm inner tolerance (given)"),
    D(aclm.inner.ratio, "aclm: outer error / ratio (adaptive)"),
    I(aclm.inner.max_iter, "aclm: iterations of one convex solve"),
    D(apgd.L0, "apgd: first Lipschitz estimate; <= 0: from one product with W"),
    D(apgd.L_grow, "apgd: L growth when the descent test fails"),
    D(apgd.L_shrink, "apgd: L shrink after each iteration"),
    I(apgd.restart, "apgd: 1 restart on a gradient opposing the step"),
};

int cli_set_option(fc_options *opt, const char *assignment)
{
    const char *eq = strchr(assignment, '=');
    if (!eq) return cli_fail("--set expects NAME=VALUE, got '%s'", assignment);
    size_t len = (size_t)(eq - assignment);
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        const opt_entry *e = &entries[i];
        if (strlen(e->name) != len || strncmp(e->name, assignment, len)) continue;
        char *field = (char *)opt + e->offset;
        if (e->type == OPT_SOLVER) {
            const fc_solver *sv = fc_solver_find(eq + 1);
            if (!sv) return cli_fail("--set %s: unknown solver '%s' (see 'fricon solvers')",
                                     e->name, eq + 1);
            memcpy(field, &sv->name, sizeof sv->name);
            return 0;
        }
        int bad = e->type == OPT_DOUBLE ? cli_parse_double(eq + 1, (double *)(void *)field)
                                        : cli_parse_int(eq + 1, (int *)(void *)field);
        if (bad) return cli_fail("--set %s: '%s' is not a valid number", e->name, eq + 1);
        return 0;
    }
    return cli_fail("--set: unknown option '%.*s' (see 'fricon options')", (int)len, assignment);
}

void cli_list_options(void)
{
    fc_options def;
    fc_default_options(&def);
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        const opt_entry *e = &entries[i];
        const char *field = (const char *)&def + e->offset;
        if (e->type == OPT_DOUBLE)
            printf("%-22s %-10g %s\n", e->name, *(const double *)(const void *)field, e->help);
        else if (e->type == OPT_SOLVER)
            printf("%-22s %-10s %s\n", e->name, *(const char *const *)(const void *)field, e->help);
        else
            printf("%-22s %-10d %s\n", e->name, *(const int *)(const void *)field, e->help);
    }
}

int cli_solver_option(fc_options *opt, const char *name, const char *val)
{
    if (!strcmp(name, "--tol")) {
        if (cli_parse_double(val, &opt->tolerance) || opt->tolerance <= 0)
            return cli_fail("--tol: '%s' is not a positive number", val);
    } else if (!strcmp(name, "--max-iter")) {
        if (cli_parse_int(val, &opt->max_iter) || opt->max_iter <= 0)
            return cli_fail("--max-iter: '%s' is not a positive integer", val);
    } else if (!strcmp(name, "--time-limit")) {
        if (cli_parse_double(val, &opt->time_limit) || opt->time_limit < 0)
            return cli_fail("--time-limit: '%s' is not a number of seconds >= 0", val);
    } else if (!strcmp(name, "--set")) {
        if (cli_set_option(opt, val)) return EXIT_BAD_INPUT;
    } else {
        return 1;
    }
    return 0;
}
