/* prox: the proximal point algorithm.  r_{k+1} solves the regularised
 * problem FC(W + alpha_k I, q - alpha_k r_k, mu) (whose fixed points are
 * the solutions of FC(W, q, mu)), by a registered inner solver chosen by
 * name (prox.inner_solver, "nsgs" by default), warm-started from r_k, to
 * the tolerance of prox.inner.  alpha_k = sigma * error_k^nu * lambda_max(W)
 * (the seed's sigma / nu rule, made relative to the scale of W), floored at
 * alpha_min * lambda_max(W); prox.alpha > 0 fixes the first one.  An
 * outer step that does not reduce the error by 10% divides the rule's
 * alpha by 10 for the rest of the solve.  prox.max_sweeps bounds the inner
 * iterations in all (auto's budget for this stage). */
#include "core/firstorder.h"
#include "core/stage.h"

#include <stdio.h>

/* Index in A->x of each diagonal entry of a BSR or dense copy of W; -1
 * when one is not stored. */
static int diag_index(const fc_matrix *A, long *idx)
{
    int n = A->rows;
    if (A->kind == FC_MAT_DENSE) {
        for (int i = 0; i < n; i++) idx[i] = (long)i + (long)i * n;
        return 0;
    }
    if (A->kind != FC_MAT_BSR) return -1;
    int bs = A->bs;
    for (int a = 0; a < n / bs; a++) {
        int k = A->p[a];
        while (k < A->p[a + 1] && A->j[k] != a) k++;
        if (k == A->p[a + 1]) return -1;
        for (int i = 0; i < bs; i++) idx[a * bs + i] = (long)k * bs * bs + i + (long)i * bs;
    }
    return 0;
}

static fc_status prox_run(fo_run *R, int kind, double *r, double *u)
{
    (void)kind;
    const fc_problem *p = R->p;
    const fc_prox_options *o = &R->opt->prox;
    int m = R->m, st = -1;
    const char *name = o->inner_solver ? o->inner_solver : "nsgs";
    const fc_solver *inner = fc_solver_find(name);
    if (!inner || inner->solve_local == fc_prox_solve || !(inner->dims & FC_DIM(p->d))) {
        snprintf(R->message, sizeof R->message, "prox: inner solver '%s' %s", name,
                 inner ? "cannot be used here" : "is unknown");
        return fo_run_end(R, FC_STATUS_ERROR, r, u);
    }
    fc_matrix *Wa = p->W->kind == FC_MAT_DENSE ? fc_matrix_copy(p->W)
                                                : fc_matrix_to_bsr(p->W, p->d);
    long *idx = fc_calloc((size_t)m + 1, sizeof *idx);
    double *ws = fc_calloc((size_t)3 * (size_t)m + 1, sizeof *ws);
    if (!Wa || !idx || !ws || diag_index(Wa, idx)) {
        snprintf(R->message, sizeof R->message, "prox: out of memory or no diagonal");
        st = FC_STATUS_ERROR;
    }
    double *qa = ws, *ui = ws + m, *d0 = ws + 2 * m, lam = 1.0;
    if (st < 0) {
        for (int i = 0; i < m; i++) d0[i] = Wa->x[idx[i]];
        lam = fo_lambda_max(p->W, m, qa, ui);
    }
    fc_problem sub = fo_subproblem(p, Wa, qa);
    fc_stages inner_run;   /* the inner solves: unrecorded, the outer loop measures */
    fc_stages_init(&inner_run, &sub, R->opt, &R->clock, NULL, NULL);
    inner_run.no_measure = 1;
    long total = 0;
    double prev = INFINITY, shrink = 1.0;
    fo_velocity(p, r, u);
    for (int it = 0; st < 0; it++) {
        double err = fo_error(p, 0, r, u);
        if ((st = fo_run_check(R, it, r, err)) >= 0) break;
        if (o->max_sweeps > 0 && total >= o->max_sweeps) {
            snprintf(R->message, sizeof R->message, "prox: %ld inner iterations, its budget (prox.max_sweeps)",
                     total);
            st = FC_MAX_ITER;
            break;
        }
        /* a step that did not gain 10% (a far solution along a direction
         * W barely sees: each step moves r by about ||u|| / alpha) divides
         * alpha by 10 from then on */
        if (err > 0.9 * prev) shrink *= 0.1;
        prev = err;
        double alpha = it == 0 && o->alpha > 0 ? o->alpha : o->sigma * pow(err, o->nu) * shrink;
        alpha = fmax(alpha, o->alpha_min) * lam;
        for (int i = 0; i < m; i++) {
            Wa->x[idx[i]] = d0[i] + alpha;
            qa[i] = p->q[i] - alpha * r[i];
        }
        int max_iter = o->inner.max_iter;
        if (o->max_sweeps > 0 && o->max_sweeps - total < max_iter) max_iter = (int)(o->max_sweeps - total);
        fc_options so = fc_stage_options(&inner_run, max_iter);
        so.tolerance = fo_inner_tol(&o->inner, err, p->nc, R->tol);
        fc_status s = fc_stage_run(&inner_run, inner, NULL, FC_START_GIVEN, &so, r, ui) ? inner_run.status
                                                                                       : FC_TIME_LIMIT;
        const fc_info si = inner_run.sub;
        total += inner_run.stage_iterations;
        fc_log(R->opt, 2, "prox %d: error %.3e, alpha %.3e, %s: %s in %d", it, err, alpha,
               name, fc_status_name(s), si.iterations);
        if (s == FC_STATUS_ERROR) {
            snprintf(R->message, sizeof R->message, "prox: inner solver '%.24s' failed: %.90s", name,
                     si.message);
            st = FC_STATUS_ERROR;
        }
        fo_velocity(p, r, u);
    }
    fc_log(R->opt, 1, "prox: %d outer, %ld inner iterations", R->iterations, total);
    fc_matrix_free(Wa);
    free(idx);
    free(ws);
    return fo_run_end(R, st, r, u);
}

fc_status fc_prox_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                        fc_info *info)
{
    return fo_solve_outer(p, opt, prox_run, 0, 0, r, u, info);
}
