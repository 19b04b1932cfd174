/* The solver registry: every solver by name, with a one-line description
 * and the dimensions it handles.  A new solver is one line here and one
 * file under src/solvers/. */
#include "internal.h"

static const fc_solver solvers[] = {
    {"nsgs", "nonsmooth Gauss-Seidel over contacts, hybrid one-contact solver "
             "(Alart-Curnier Newton, projection, exact)",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_nsgs_solve, NULL},
    {"psor", "nsgs with over-relaxation (omega = nsgs.omega, default 1.5 when unset)",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_psor_solve, NULL},
    {"nsn-ac", "nonsmooth Newton on the Alart-Curnier function, sparse LU, line search",
     FC_DIM(2) | FC_DIM(3), fc_nsn_ac_solve, NULL},
    {"nsn-jm", "nonsmooth Newton on the Jean-Moreau function, sparse LU, line search",
     FC_DIM(2) | FC_DIM(3), fc_nsn_jm_solve, NULL},
    {"nsn-fb", "nonsmooth Newton on the Fischer-Burmeister function of the second-order cone",
     FC_DIM(2) | FC_DIM(3), fc_nsn_fb_solve, NULL},
    {"nsn-nm", "nonsmooth Newton on the natural map r - P_K(r - rho u_hat)",
     FC_DIM(2) | FC_DIM(3), fc_nsn_nm_solve, NULL},
    {"nsn-hybrid", "Alart-Curnier Newton with fallback to NSGS sweeps when it fails or stalls",
     FC_DIM(2) | FC_DIM(3), fc_nsn_hybrid_solve, NULL},
};

int fc_solver_count(void) { return (int)(sizeof solvers / sizeof solvers[0]); }

const fc_solver *fc_solver_at(int i)
{
    return i >= 0 && i < fc_solver_count() ? &solvers[i] : NULL;
}

const fc_solver *fc_solver_find(const char *name)
{
    for (int i = 0; i < fc_solver_count(); i++)
        if (strcmp(solvers[i].name, name) == 0) return &solvers[i];
    return NULL;
}

const char *fc_default_solver(void) { return "nsgs"; }

void fc_default_options(fc_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->tolerance = 1e-8;
    opt->max_iter = 100000;
    opt->time_limit = 0.0;
    opt->nsgs.omega = 1.0;
    opt->nsgs.shuffle = 0;
    opt->nsgs.seed = 1;
    opt->nsgs.error_every = 1;
    opt->nsgs.local = FC_LOCAL_HYBRID;
    opt->nsgs.local_tol = 1e-14;
    opt->nsgs.local_max_iter = 20;
    opt->nsn.rho_strategy = FC_NSN_RHO_SPLIT_SPECTRAL;
    opt->nsn.rho = 1.0;
    opt->nsn.line_search = FC_NSN_LS_GOLDSTEIN;
    opt->nsn.ls_max_iter = 20;
    opt->nsn.nonmonotone_m = 5;
    opt->nsn.regularisation = 1;
    opt->nsn.reg_delta = 1e-10;
    opt->nsn.reg_max = 1e-2;
    opt->nsn.linear_solver = 0;
    opt->nsn.stagnation = 20;
    opt->nsn.formulation = FC_NSN_AC;
    opt->nsn.hybrid_sweeps = 10;
    opt->nsn.hybrid_max_sweeps = 2000;
    opt->nsn.hybrid_newton_iter = 50;
    opt->nsn.hybrid_stagnation = 10;
}
