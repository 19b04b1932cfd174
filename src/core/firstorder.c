/* Shared pieces of the first-order and fixed-point solvers: the natural
 * map, the SPEC measure with or without g, lambda_max(W), the iteration
 * bookkeeping of fo_run and the inner-tolerance strategies. */
#include "core/firstorder.h"
#include "cone/cone.h"
#include "measure/measure.h"

#include <stdio.h>

void fo_velocity(const fc_problem *p, const double *r, double *u)
{
    fc_problem_u(p, r, u);
}

/* The per-contact loops below are threaded from FC_PAR_MIN contacts;
 * their sums go by fc_chunks (the same result for any thread count). */
void fo_uhat(const fc_problem *p, int ccp, const double *u, double *F)
{
    int d = p->d, m = fc_problem_m(p), nc = p->nc;
    if (ccp) {
        if (F != u) fc_copy(m, u, F);
        return;
    }
    FC_PAR_FOR(nc, , for (int a = 0; a < nc; a++) {
        const double *ua = u + d * a;
        double g = p->mu[a] * (d == 2 ? fabs(ua[1]) : fc_hypot(ua[1], ua[2]));
        if (d == 5) g += p->mu_r[a] * fc_hypot(ua[3], ua[4]);
        for (int k = 0; k < d; k++) F[d * a + k] = ua[k];
        F[d * a] += g;
    });
}

void fo_project(const fc_problem *p, double *x)
{
    int d = p->d, nc = p->nc;
    FC_PAR_FOR(nc, , for (int a = 0; a < nc; a++) {
        fc_project_cone(d, p->mu[a], p->mu_r ? p->mu_r[a] : 0.0, x + d * a);
    });
}

double fo_error(const fc_problem *p, int ccp, const double *r, const double *u)
{
    return ccp ? fc_error_relaxation(p, r, u) : fc_error_local(p, r, u);
}

void fo_run_project(const fo_run *R, double *x)
{
    const fc_problem *p = R->p;
    int d = p->d, nc = p->nc;
    if (R->set == FO_SET_CONE) { fo_project(p, x); return; }
    FC_PAR_FOR(nc, , for (int a = 0; a < nc; a++) {
        double *xa = x + d * a;
        const double *fa = R->fixed ? R->fixed + d * a : NULL;
        if (R->set == FO_SET_TANGENT) xa[0] = fa[0];
        else if (xa[0] < 0.0) xa[0] = 0.0;
        if (R->set == FO_SET_NORMAL) {
            for (int k = 1; k < d; k++) xa[k] = fa[k];
        } else {
            fc_project_disk(d - 1, R->s[a], xa + 1);
        }
    });
}

double fo_run_set_error(const fo_run *R, const double *x, const double *u)
{
    const fc_problem *p = R->p;
    if (R->set == FO_SET_CONE) return fo_error(p, 1, x, u);
    int d = p->d, m = fc_problem_m(p), nc = p->nc;
    fc_chunks c = fc_chunks_of(nc, FC_CHUNK_MIN / d);
    double part[FC_CHUNKS_MAX];
    FC_PAR_FOR(nc, , for (int ch = 0; ch < c.count; ch++) {
        double e2 = 0.0;
        for (int a = ch * c.len, end = fc_chunk_end(c, ch, nc); a < end; a++) {
            double y[5] = {0.0};
            const double *xa = x + d * a, *ua = u + d * a;
            for (int k = 0; k < d; k++) y[k] = xa[k] - ua[k];
            if (R->set == FO_SET_TANGENT) y[0] = xa[0];   /* frozen: no residual */
            else if (y[0] < 0.0) y[0] = 0.0;
            if (R->set == FO_SET_NORMAL) {
                for (int k = 1; k < d; k++) y[k] = xa[k];
            } else {
                fc_project_disk(d - 1, R->s[a], y + 1);
            }
            for (int k = 0; k < d; k++) e2 += (xa[k] - y[k]) * (xa[k] - y[k]);
        }
        part[ch] = e2;
    });
    double e2 = fc_chunks_sum(c, part);
    double sc = fmax(fc_norm2(m, p->q), fmax(fc_norm2(m, x), fc_norm2(m, u)));
    return sqrt(e2) / (sc < 1e-300 ? 1.0 : sc);
}

double fo_lambda_max(const fc_matrix *W, int m, double *w1, double *w2)
{
    /* a fixed, non-symmetric start so that no eigenvector is missed by luck */
    for (int i = 0; i < m; i++) w1[i] = 1.0 + 0.1 * (double)(i % 7);
    double lam = 0.0, nrm = fc_norm2(m, w1);
    for (int it = 0; it < 50 && nrm > 0; it++) {
        for (int i = 0; i < m; i++) w1[i] /= nrm;
        fc_matrix_gemv(W, 1.0, w1, 0.0, w2);
        double next = fc_norm2(m, w2);
        double *t = w1; w1 = w2; w2 = t;
        nrm = next;
        if (it > 5 && fabs(next - lam) <= 1e-3 * next) { lam = next; break; }
        lam = next;
    }
    return lam > 0 && isfinite(lam) ? lam : 1.0;
}

double fo_proj_step(const fc_problem *p, const double *x, double rho,
                    const double *F, double *y)
{
    int d = p->d, nc = p->nc;
    fc_chunks c = fc_chunks_of(nc, FC_CHUNK_MIN / d);
    double part[FC_CHUNKS_MAX];
    FC_PAR_FOR(nc, , for (int ch = 0; ch < c.count; ch++) {
        double s = 0.0;
        for (int a = ch * c.len, end = fc_chunk_end(c, ch, nc); a < end; a++) {
            const double *xa = x + d * a, *Fa = F + d * a;
            double *ya = y + d * a;
            for (int k = 0; k < d; k++) ya[k] = xa[k] - rho * Fa[k];
            fc_project_cone(d, p->mu[a], p->mu_r ? p->mu_r[a] : 0.0, ya);
            for (int k = 0; k < d; k++) s += (xa[k] - ya[k]) * (xa[k] - ya[k]);
        }
        part[ch] = s;
    });
    return sqrt(fc_chunks_sum(c, part));
}

int fo_run_begin(fo_run *R, const fc_problem *p, const fc_options *opt, int ccp,
                 int outer, double tol, int max_iter, const fc_clock *deadline,
                 const double *r)
{
    memset(R, 0, sizeof *R);
    R->p = p;
    R->opt = opt;
    R->ccp = ccp;
    R->outer = outer;
    R->tol = tol;
    R->max_iter = max_iter > 0 ? max_iter : 1;
    if (deadline) R->clock = *deadline;
    else fc_clock_start(&R->clock, opt);
    R->m = fc_problem_m(p);
    R->best_err = INFINITY;
    R->error = INFINITY;
    R->best = fc_dup(r, (size_t)R->m);
    if (!R->best && R->m > 0) {
        snprintf(R->message, sizeof R->message, "out of memory");
        return -1;
    }
    return 0;
}

int fo_run_check(fo_run *R, int it, const double *r, double err)
{
    R->iterations = it + 1;
    R->error = err;
    if (!isfinite(err) || !fc_all_finite((size_t)R->m, r)) {
        snprintf(R->message, sizeof R->message,
                 "non-finite iterate at iteration %d; last finite iterate returned", it + 1);
        return FC_DIVERGED;
    }
    if (err < R->best_err) {
        R->best_err = err;
        memcpy(R->best, r, (size_t)R->m * sizeof *r);
    }
    if (err <= R->tol) return FC_CONVERGED;
    if (R->outer && R->opt->progress &&
        R->opt->progress(R->opt->progress_user, it + 1, err)) {
        snprintf(R->message, sizeof R->message, "stopped by the progress callback");
        return FC_MAX_ITER;
    }
    if (fc_clock_expired(&R->clock)) {
        snprintf(R->message, sizeof R->message, "time limit after %d iterations, error %.3e",
                 it + 1, R->best_err);
        return FC_TIME_LIMIT;
    }
    if (it + 1 >= R->max_iter) {
        snprintf(R->message, sizeof R->message, "%d iterations, error %.3e", it + 1,
                 R->best_err);
        return FC_MAX_ITER;
    }
    return -1;
}

fc_status fo_run_end(fo_run *R, int st, double *r, double *u)
{
    if (R->best && (!(R->error <= R->best_err) || !fc_all_finite((size_t)R->m, r))) {
        memcpy(r, R->best, (size_t)R->m * sizeof *r);
        if (isfinite(R->best_err)) R->error = R->best_err;
    }
    free(R->best);
    R->best = NULL;
    fo_velocity(R->p, r, u);
    if (st < 0) st = FC_MAX_ITER;
    return (fc_status)st;
}

fc_status fo_run_report(const fo_run *R, fc_status st, fc_info *info)
{
    info->iterations = R->iterations;
    if (st != FC_CONVERGED && R->message[0])
        snprintf(info->message, sizeof info->message, "%s", R->message);
    return st;
}

double fo_inner_tol(const fc_inner_options *io, double err, int nc, double outer_tol)
{
    double t;
    switch (io->strategy) {
    case FC_INNER_TOL_ADAPTIVE: t = err / io->ratio; break;
    case FC_INNER_TOL_ADAPTIVE_NC: t = err / (io->ratio * (nc > 0 ? nc : 1)); break;
    default: return io->tol;
    }
    if (!(t <= 0.1)) t = 0.1;
    return fmax(t, 0.1 * outer_tol);
}

fc_problem fo_subproblem(const fc_problem *p, fc_matrix *W, double *q)
{
    fc_problem s = *p;
    if (W) s.W = W;
    if (q) s.q = q;
    s.name = NULL;
    return s;
}

fc_status fo_solve_outer(const fc_problem *p, const fc_options *opt, fo_core core,
                         int kind, int ccp, double *r, double *u, fc_info *info)
{
    fo_run R;
    if (fo_run_begin(&R, p, opt, ccp, 1, opt->tolerance, opt->max_iter, NULL, r)) {
        snprintf(info->message, sizeof info->message, "out of memory");
        return FC_STATUS_ERROR;
    }
    fc_status st = core(&R, kind, r, u);
    return fo_run_report(&R, st, info);
}

double *fo_fp_begin(fo_run *R, fo_accel *A, size_t n)
{
    const fc_fp_options *o = &R->opt->fp;
    double *ws = fc_calloc(n, sizeof *ws);
    if (fo_accel_init(A, o->anderson, o->anderson_start, o->anderson_growth, R->m) || !ws) {
        free(ws);
        fo_accel_free(A);
        snprintf(R->message, sizeof R->message, "out of memory");
        return NULL;
    }
    return ws;
}

fc_status fo_fp_end(fo_run *R, fo_accel *A, double *ws, int st, double *r, double *u)
{
    free(ws);
    fo_accel_free(A);
    return fo_run_end(R, st, r, u);
}

fc_status fo_projection_run(fo_run *R, int kind, double *r, double *u)
{
    static const fo_proj_method *const methods[] = {
        [FO_FPP] = &fo_fpp_method, [FO_EG] = &fo_eg_method, [FO_VI_FPP] = &fo_vi_fpp_method,
        [FO_VI_EG] = &fo_vi_eg_method, [FO_HP] = &fo_hp_method};
    const fo_proj_method *M = methods[kind];
    const fc_problem *p = R->p;
    const fc_fp_options *o = &R->opt->fp;
    int m = R->m, ccp = R->ccp;
    fo_accel A;
    double *ws = fo_fp_begin(R, &A, (size_t)5 * (size_t)m);
    if (!ws) return fo_run_end(R, FC_STATUS_ERROR, r, u);
    fo_proj S = {.p = p, .o = o, .m = m, .ccp = ccp, .F = ws, .y = ws + m,
                 .uy = ws + 2 * m, .Fy = ws + 3 * m, .z = ws + 4 * m};
    S.rho = o->rho > 0 ? o->rho : 1.0 / fo_lambda_max(p->W, m, S.y, S.uy);
    if (o->rho <= 0 && M->rho0) S.rho = M->rho0(p, ccp, S.rho);
    fo_velocity(p, r, u);
    int st = -1;
    for (int it = 0; st < 0; it++) {
        if ((st = fo_run_check(R, it, r, fo_error(p, ccp, r, u))) >= 0) break;
        fo_uhat(p, ccp, u, S.F);
        fo_accel_save(&A, r, m);
        S.grow = !A.on || it + 1 < A.start;   /* Anderson needs one map: rho only shrinks */
        M->step(&S, r, u);
        if (fo_accel_apply(&A, p, it, R->error, R->best, r)) fo_velocity(p, r, u);
    }
    return fo_fp_end(R, &A, ws, st, r, u);
}

fc_status fo_projection_solve(int kind, const fc_problem *p, const fc_options *opt, double *r,
                              double *u, fc_info *info)
{
    return fo_solve_outer(p, opt, fo_projection_run, kind, 0, r, u, info);
}

int fo_accel_init(fo_accel *A, int mem, int start, double growth, int m)
{
    memset(A, 0, sizeof *A);
    A->fres_last = A->err_ref = INFINITY;
    if (mem <= 0 || m <= 0) return 0;
    A->on = 1;
    A->window = A->plain_len = 50 * mem;
    A->start = A->rest = start > 0 ? start : 0;
    A->growth = growth > 0 ? growth : 2.0;
    A->x = fc_calloc((size_t)m, sizeof *A->x);
    if (!A->x || fc_anderson_init(&A->aa, m, mem)) {
        fo_accel_free(A);
        return -1;
    }
    return 0;
}

int fo_accel_init_nsgs(fo_accel *A, const fc_nsgs_options *o, int m)
{
    if (fo_accel_init(A, o->anderson, o->anderson_start, o->anderson_growth, m)) return -1;
    /* the next sweep is extrapolated again right after a rejection:
     * resting slows NSGS down (docs/measurements.md, "nsgs.c") */
    A->rest = 0;
    A->window = A->plain_len = o->anderson_window;
    return 0;
}

void fo_accel_save(fo_accel *A, const double *r, int m)
{
    if (A->on) memcpy(A->x, r, (size_t)m * sizeof *r);
}

int fo_accel_apply(fo_accel *A, const fc_problem *p, int it, double err, const double *best,
                   double *r)
{
    if (!A->on || it + 1 < A->start) return 0;
    int m = A->aa.m;
    double fres = fc_dist2(m, r, A->x);
    int changed = 0;
    /* Stagnation of the measure while extrapolating (Anderson can freeze
     * the slow drift that a plain iteration needs to change an active
     * set): when the error has not halved for `window` iterations, the
     * plain map runs alone for plain_len iterations (doubled each time). */
    if (A->plain > 0) {
        if (--A->plain == 0) { A->err_ref = err; A->count = 0; }
        A->fres_last = fres;
        return 0;
    }
    if (!(err >= 0.5 * A->err_ref)) { A->err_ref = err; A->count = 0; }
    else if (A->window > 0 && ++A->count > A->window) {
        fc_anderson_reset(&A->aa);
        A->extrapolated = 0;
        A->plain = A->plain_len;
        A->plain_len *= 2;
        A->fres_last = fres;
        if (best) memcpy(r, best, (size_t)m * sizeof *r);   /* from the best point */
        return best != NULL;
    }
    if (!isfinite(fres) || (A->extrapolated && !(fres < A->growth * A->fres_last))) {
        fc_anderson_reset(&A->aa);   /* rejected: keep the plain map */
        A->extrapolated = 0;
        A->wait = A->rest;           /* and plain iterations before the next try */
    } else if (A->wait > 0) {
        A->wait--;
    } else {
        A->accepted += A->extrapolated;
        A->extrapolated = fc_anderson_step(&A->aa, A->x, r);
        if (A->extrapolated) {
            fo_project(p, r);
            changed = 1;
            if (!fc_all_finite((size_t)m, r)) {   /* back to the plain map */
                memcpy(r, A->aa.gprev, (size_t)m * sizeof *r);
                fc_anderson_reset(&A->aa);
                A->extrapolated = 0;
            }
        }
    }
    A->fres_last = fres;
    return changed;
}

void fo_accel_free(fo_accel *A)
{
    if (A->on) fc_anderson_free(&A->aa);
    free(A->x);
    memset(A, 0, sizeof *A);
}
