/* stick: the all-sticking solution of FC(W, q, mu), when there is one.
 *
 * A structure at rest (a tower, a stack, a pile that does not move) often
 * has a solution where every contact sticks: u = W r + q = 0 with every
 * r_a inside its cone; then r - P_K(r - u_hat) = 0 exactly.  W is
 * singular there as a rule (more contact unknowns than body degrees of
 * freedom: KaplasTower, 1710 unknowns, rank 504), so W r = -q has a whole
 * affine space of solutions, and the natural one to try is the one of
 * least norm, which spreads the load over the contacts.  It is reached by
 * the proximal point iteration
 *     r_{k+1} = r_k + (W + eps I)^-1 (-q - W r_k),   r_0 = 0,
 * with one sparse Cholesky factorisation of W + eps I (CHOLMOD; its upper
 * triangle, W being symmetric to rounding; ordered by AMD on the contact
 * graph when W is block-CSR): on the range of W the error
 * contracts by eps / (lambda + eps) per step (eps = stick.shift times the
 * largest diagonal entry of W, 1e-10 by default: two or three steps), the
 * null-space part stays 0.
 *
 * The result is judged by the SPEC measure like any other: converged when
 * it meets the tolerance; otherwise some contact left its cone (a sliding
 * or separating contact: not an all-sticking problem) or q has a part W
 * cannot balance, and the solver says so (max-iter, the number of contacts
 * outside their cones in the message).  One factorisation of a matrix of
 * W's pattern: the cost of one Newton iteration; used by auto before
 * Newton.  The factor's size and work are predicted by CHOLMOD's analysis
 * first: a factor beyond FC_STICK_MAX_FILL times W's entries, or one that
 * cannot be done in the time left, is refused (status error, the message
 * says why).  Workspace allocated once. */
#include "internal.h"
#include "core/stage.h"
#include "linsys/linsys.h"
#include "measure/measure.h"

#include <stdio.h>

/* The factor may hold at most this many times W's stored entries (plus
 * 1e6): a small multiple of the problem's own size
 * (docs/auto-measurements.md#stick-fill). */
#define FC_STICK_MAX_FILL 16.0
/* With a time limit, the factorisation is refused when its predicted flops
 * exceed the time left at this rate (docs/auto-measurements.md#stick-fill). */
#define FC_STICK_FLOPS_PER_SECOND 1e10

/* W + shift I as CSR (W converted; NULL when out of memory or when a
 * diagonal entry is not stored). */
static fc_matrix *shifted(const fc_matrix *W, double shift)
{
    fc_matrix *A = fc_matrix_to_csr(W);
    if (!A) return NULL;
    for (int i = 0; i < A->rows; i++) {
        int k = A->p[i];
        while (k < A->p[i + 1] && A->j[k] != i) k++;
        if (k == A->p[i + 1]) {
            fc_matrix_free(A);
            return NULL;
        }
        A->x[k] += shift;
    }
    return A;
}

/* Contacts whose r_a is outside its cone (beyond rounding). */
static int outside_cones(const fc_problem *p, const double *r)
{
    int d = p->d, out = 0;
    for (int a = 0; a < p->nc; a++) {
        const double *ra = r + (size_t)d * a;
        double rt = d == 2 ? fabs(ra[1]) : fc_hypot(ra[1], ra[2]);
        double tol = 1e-12 * fc_norm_small(d, ra);
        out += !(ra[0] >= -tol && rt <= p->mu[a] * ra[0] + tol);
    }
    return out;
}

fc_status fc_stick_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                         fc_info *info)
{
    int m = fc_problem_m(p);
    fc_clock clk;
    fc_clock_start(&clk, opt);
    double wmax = 0.0;
    for (int a = 0; a < p->nc; a++) {
        double blk[25];
        fc_matrix_diag_block(p->W, a, p->d, blk);
        for (int k = 0; k < p->d; k++) wmax = fmax(wmax, fabs(blk[k * p->d + k]));
    }
    if (!(opt->stick.shift > 0.0) || !(opt->stick.refine > 0)) {
        snprintf(info->message, sizeof info->message,
                 "stick.shift (%g) and stick.refine (%d) must be > 0", opt->stick.shift,
                 opt->stick.refine);
        info->iterations = 0;
        return FC_STATUS_ERROR;
    }
    double shift = opt->stick.shift * (wmax > 0.0 ? wmax : 1.0);
    double *res = fc_calloc((size_t)m, sizeof *res);
    fc_error e;
    fc_matrix *A = NULL;
    fc_chol *F = NULL;
    memset(&e, 0, sizeof e);
    if (res && p->W->kind == FC_MAT_BSR && p->W->bs == p->d) {
        /* factorised in place of a copy, ordered by its blocks; refused
         * when the factor would exceed a small multiple of W's size, or
         * take longer than the time left */
        A = p->W;
        F = fc_chol_factor_bsr_shift(p->W, shift, FC_STICK_MAX_FILL * (double)p->W->nnz + 1e6,
                                     fc_time_left(&clk) * FC_STICK_FLOPS_PER_SECOND,
                                     "W + eps I", &e);
    } else if (res && (A = shifted(p->W, shift)) != NULL) {
        F = fc_chol_factor(A, "W + eps I", &e);
        fc_matrix_free(A);
    }
    if (!F) {
        free(res);
        snprintf(info->message, sizeof info->message, "%.200s",
                 !res || !A ? "out of memory (or a diagonal entry of W not stored)" : e.msg);
        info->iterations = 0;
        return FC_STATUS_ERROR;
    }
    memset(r, 0, (size_t)m * sizeof *r);
    fc_status st = FC_MAX_ITER;
    double err = INFINITY;
    int settled = 0;   /* stopped at the fixed point (not by a limit) */
    int it = 0, max_it = opt->stick.refine < opt->max_iter ? opt->stick.refine : opt->max_iter;
    while (1) {
        /* u = W r + q; res = -u */
        fc_problem_u(p, r, u);
        double prev = err;
        err = fc_error_local(p, r, u);
        fc_log(opt, 1, "stick step %d: error %.3e", it, err);
        if (err <= opt->tolerance) { st = FC_CONVERGED; break; }
        if (!isfinite(err)) { st = FC_DIVERGED; break; }
        if (it > 1 && !(err < 0.5 * prev)) { settled = 1; break; }   /* the fixed point */
        if (it >= max_it) break;
        if (fc_clock_expired(&clk)) { st = FC_TIME_LIMIT; break; }
        if (opt->progress && opt->progress(opt->progress_user, it, err)) break;
        for (int i = 0; i < m; i++) res[i] = -u[i];
        if (fc_chol_solve(F, res, res, NULL) != FC_OK) { st = FC_STATUS_ERROR; break; }
        for (int i = 0; i < m; i++) r[i] += res[i];
        it++;
    }
    if (!fc_all_finite((size_t)m, r)) {
        memset(r, 0, (size_t)m * sizeof *r);
        memcpy(u, p->q, (size_t)m * sizeof *u);
        st = FC_DIVERGED;
    }
    int outside = st == FC_CONVERGED ? 0 : outside_cones(p, r);
    if (st != FC_CONVERGED && (settled || outside > 0))
        snprintf(info->message, sizeof info->message,
                 "%d of %d contacts outside their cones at the least-norm solution of W r = -q: "
                 "not an all-sticking problem (error %.3e)", outside, p->nc, err);
    else if (st != FC_CONVERGED)
        snprintf(info->message, sizeof info->message,
                 "stopped after %d steps by a limit, error %.3e", it, err);
    info->iterations = it;
    info->residual = err;
    fc_chol_free(F);
    free(res);
    return st;
}
