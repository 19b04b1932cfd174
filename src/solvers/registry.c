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
}
