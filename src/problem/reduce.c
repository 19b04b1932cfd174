/* The global problem's reduction to a local one, W = H^T M^-1 H and
 * q = H^T M^-1 f + w, and the recovery of v = M^-1 (H r + f). */
#include "internal.h"
#include "problem/reduce.h"

#include <stdio.h>

fc_err fc_reduction_start(const fc_problem *p, fc_reduction *red, fc_error *err)
{
    memset(red, 0, sizeof *red);
    red->global = p;
    red->chol = fc_chol_factor(p->M, "M", err);
    return red->chol ? FC_OK : err->code;
}

/* Build the local problem from the factorised M. */
fc_err fc_reduction_local(fc_reduction *red, fc_problem **out, fc_error *err)
{
    const fc_problem *p = red->global;
    int m = fc_problem_m(p);
    fc_problem *loc = fc_problem_new(FC_LOCAL, p->d, p->nc);
    double *y = fc_calloc((size_t)p->n, sizeof *y);
    fc_matrix *W = NULL;
    if (!loc || !y) goto nomem;
    memcpy(loc->mu, p->mu, (size_t)p->nc * sizeof *p->mu);
    if (p->mu_r) memcpy(loc->mu_r, p->mu_r, (size_t)p->nc * sizeof *p->mu_r);
    if (p->name && !(loc->name = fc_strdup(p->name))) goto nomem;
    W = fc_chol_congruence(red->chol, p->H, err);
    if (!W) goto fail;
    loc->W = fc_matrix_to_bsr(W, p->d);
    fc_matrix_free(W);
    loc->q = fc_calloc((size_t)m, sizeof *loc->q);
    if (!loc->W || !loc->q) goto nomem;
    if (fc_chol_solve(red->chol, p->f, y, err)) goto fail;
    memcpy(loc->q, p->w, (size_t)m * sizeof *loc->q);
    /* Keep w: solvers scale their stopping test as SPEC measures the global
     * problem, with ||w|| instead of ||q||. */
    if (!(loc->w = fc_dup(p->w, (size_t)m))) goto nomem;
    fc_matrix_gemv_t(p->H, 1.0, y, 1.0, loc->q);
    free(y);
    *out = loc;
    return FC_OK;
nomem:
    fc_error_set(err, FC_ERR_NOMEM, "out of memory reducing the global problem");
fail:
    free(y);
    fc_problem_free(loc);
    return err->code;
}

fc_err fc_reduction_recover_v(fc_reduction *red, const double *r, double *v, fc_error *err)
{
    const fc_problem *p = red->global;
    memcpy(v, p->f, (size_t)p->n * sizeof *v);
    fc_matrix_gemv(p->H, 1.0, r, 1.0, v);
    return fc_chol_solve(red->chol, v, v, err);
}

void fc_reduction_end(fc_reduction *red)
{
    fc_chol_free(red->chol);
    red->chol = NULL;
}

fc_err fc_problem_reduce(const fc_problem *p, fc_problem **local, fc_error *err)
{
    fc_error tmp;
    if (!err) err = &tmp;
    *local = NULL;
    if (p->kind == FC_LOCAL) {
        fc_problem *c = fc_problem_new(FC_LOCAL, p->d, p->nc);
        int m = fc_problem_m(p);
        if (c) {
            memcpy(c->mu, p->mu, (size_t)p->nc * sizeof *p->mu);
            if (p->mu_r) memcpy(c->mu_r, p->mu_r, (size_t)p->nc * sizeof *p->mu_r);
            c->W = fc_matrix_copy(p->W);
            c->q = fc_dup(p->q, (size_t)m);
            if (p->name) c->name = fc_strdup(p->name);
        }
        if (!c || !c->W || !c->q || (p->name && !c->name)) {
            fc_problem_free(c);
            return fc_error_set(err, FC_ERR_NOMEM, "out of memory copying the problem");
        }
        *local = c;
        return FC_OK;
    }
    fc_reduction red;
    if (fc_reduction_start(p, &red, err)) return err->code;
    fc_err e = fc_reduction_local(&red, local, err);
    fc_reduction_end(&red);
    return e;
}

fc_err fc_problem_recover_v(const fc_problem *p, const double *r, double *v, fc_error *err)
{
    fc_error tmp;
    if (!err) err = &tmp;
    if (p->kind != FC_GLOBAL)
        return fc_error_set(err, FC_ERR_INVALID, "v exists only for a global problem");
    fc_reduction red;
    if (fc_reduction_start(p, &red, err)) return err->code;
    fc_err e = fc_reduction_recover_v(&red, r, v, err);
    fc_reduction_end(&red);
    return e;
}
