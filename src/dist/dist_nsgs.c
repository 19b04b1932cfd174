/* dist-nsgs: nonsmooth Gauss-Seidel on the velocity form of a global
 * problem, distributed over the ranks of MPI_COMM_WORLD (NSCD domain
 * decomposition, as in LMGC90: Visseq et al. 2012).
 * Each rank sweeps its own contacts (file order) as nsgs-v does, with
 * v = M^-1 (H r + f) carried along for its local bodies; an interface
 * body shared by k ranks owning its contacts is swept with 1/k of its
 * mass on each (the copies' changes add up to one body's), and after
 * every sweep the copies are made equal again by exchange.c.  The SPEC
 * error is summed over the owned contacts and reduced; it is the
 * stopping test, the limits and the stall watch are decided on the
 * reduced values, so every rank stops at the same sweep.  With one rank
 * this is Gauss-Seidel on the velocity form in file order.  The setup,
 * the gathered result and the polish: work.c. */
#include "internal.h"
#include "dist/dist.h"

#include <stdio.h>

/* The distributed sweeps, at most cap of them (*capped: 1 when the cap,
 * lower than max_iter, ended them). */
static fc_status iterate(fc_dist_work *w, const fc_problem *p, const fc_options *opt, const fc_clock *clk,
                         int cap, int *capped, fc_info *info)
{
    const fc_nsgs_options *o = &opt->nsgs;
    fc_local_params par = {o->local, o->local_tol > 0 ? o->local_tol : 1e-14,
                           o->local_max_iter > 0 ? o->local_max_iter : 20};
    size_t rows = (size_t)w->d * w->L.nown;
    int it = 0, expired = 0;
    double best = fc_dist_measure(w, p, clk, &expired);   /* the start may solve it */
    memcpy(w->best, w->rl, rows * sizeof *w->rl);
    fc_status st = best <= opt->tolerance ? FC_CONVERGED : FC_MAX_ITER;
    if (!isfinite(best)) best = INFINITY;
    *capped = 0;
    while (st == FC_MAX_ITER) {
        if (fc_dist_limits(opt, it, cap, expired, best, "sweep", &st, capped, info)) break;
        fc_dist_sweep(w, p, &par);
        it++;
        fc_dist_exchange_run(&w->L, &w->X, w->v);
        double err = fc_dist_measure(w, p, clk, &expired);
        if (fc_dist_take(w, err, &best, it, "sweep", &st, info)) break;
        fc_log(opt, 2, "dist-nsgs sweep %d error %.3e", it, err);
        if (err <= opt->tolerance) { st = FC_CONVERGED; break; }
        if (fc_dist_progress(w, opt, it, err, "sweep", info)) break;
    }
    if (st != FC_CONVERGED) memcpy(w->rl, w->best, rows * sizeof *w->rl);
    info->iterations = it;
    return st;
}

fc_status fc_dist_nsgs_solve_global(const fc_problem *p, const fc_options *opt, double *r,
                                    double *u, double *v, fc_info *info)
{
    return fc_dist_run("dist-nsgs", iterate, 1, p, opt, r, u, v, info);
}
