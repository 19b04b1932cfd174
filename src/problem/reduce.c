/* The global problem's reduction to a local one, W = H^T M^-1 H and
 * q = H^T M^-1 f + w, and the recovery of v = M^-1 (H r + f).
 *
 * M is taken as stored.  When it is symmetric (up to round-off) CHOLMOD
 * factorises it; some files store only one triangle of M (LMGC90 dumps),
 * and SPEC's checker reads such an M as it stands, so a non-symmetric M
 * is factorised by a sparse LU instead and W is formed column by column. */
#include "internal.h"
#include "problem/reduce.h"
#include "core/stage.h"

#include <stdio.h>

/* Relative asymmetry of M below which M is symmetric up to round-off. */
#define FC_M_SYMMETRIC 1e-14

static fc_err lu_start(fc_reduction *red, fc_error *err)
{
    fc_matrix *C = fc_matrix_to_csr(red->global->M);
    fc_matrix *T = C ? fc_csr_transpose(C) : NULL; /* CSR of M^T = CSC of M */
    int n = red->global->n;
    fc_err e = FC_OK;
    if (!T) {
        e = fc_error_set(err, FC_ERR_NOMEM, "out of memory factorising M");
    } else if (!(red->lu = fc_lu_new(n, T->p, T->j, FC_LU_UMFPACK, err))) {
        e = err->code;
    } else if (fc_lu_factor(red->lu, T->x, NULL, err)) {
        e = fc_error_set(err, FC_ERR_NUMERIC, "M is singular (sparse LU failed)");
    }
    fc_matrix_free(C);
    fc_matrix_free(T);
    return e;
}

fc_err fc_reduction_start(const fc_problem *p, fc_reduction *red, fc_error *err)
{
    memset(red, 0, sizeof *red);
    red->global = p;
    if (fc_matrix_asymmetry(p->M) > FC_M_SYMMETRIC) {
        fc_err e = lu_start(red, err);
        if (e) fc_reduction_end(red);   /* nothing left to free on failure */
        return e;
    }
    red->chol = fc_chol_factor(p->M, "M", err);
    return red->chol ? FC_OK : err->code;
}

static fc_err solve_M(fc_reduction *red, const double *b, double *x, fc_error *err)
{
    return red->lu ? fc_lu_solve(red->lu, b, x, err) : fc_chol_solve(red->chol, b, x, err);
}

/* L^T M^-1 C (L n x a, C n x b) column by column: column j is
 * L^T M^-1 c_j, one solve per column of C in an n-vector, the exact zeros
 * dropped.  W = H^T M^-1 H with the LU of M, and the equality blocks
 * V = H^T M^-1 G and R = G^T M^-1 G with either factor. */
static fc_matrix *cols_product(fc_reduction *red, const fc_matrix *Lm, const fc_matrix *Cm,
                               const char *what, fc_error *err)
{
    int n = red->global->n, a = Lm->cols, b = Cm->cols;
    fc_matrix *L = fc_matrix_to_csr(Lm), *C = fc_matrix_to_csr(Cm);
    fc_matrix *Lt = L ? fc_csr_transpose(L) : NULL;   /* a x n: row i is l_i */
    fc_matrix *Ct = C ? fc_csr_transpose(C) : NULL;   /* b x n: row j is c_j */
    fc_matrix *Wt = NULL, *W = NULL;                   /* Wt: CSR of the result's transpose */
    double *x = fc_calloc((size_t)n, sizeof *x);
    long cap = 4L * a + 16, nnz = 0;
    int *wp = fc_calloc((size_t)b + 1, sizeof *wp), *wj = fc_calloc((size_t)cap, sizeof *wj);
    double *wx = fc_calloc((size_t)cap, sizeof *wx);
    if (!Lt || !Ct || !x || !wp || !wj || !wx) goto nomem;
    for (int j = 0; j < b; j++) {
        memset(x, 0, (size_t)n * sizeof *x);
        for (int k = Ct->p[j]; k < Ct->p[j + 1]; k++) x[Ct->j[k]] = Ct->x[k];
        if (solve_M(red, x, x, err)) goto fail;
        if (nnz + a > cap) {   /* grow geometrically: at most a more entries */
            long c2 = 2 * cap > nnz + a ? 2 * cap : nnz + a;
            int *j2 = realloc(wj, (size_t)c2 * sizeof *wj);
            if (j2) wj = j2;
            double *x2 = j2 ? realloc(wx, (size_t)c2 * sizeof *wx) : NULL;
            if (!x2) goto nomem;
            wx = x2;
            cap = c2;
        }
        for (int i = 0; i < a; i++) {
            double v = fc_matrix_row_dot(Lt, i, x);
            if (v != 0.0) { wj[nnz] = i; wx[nnz++] = v; }
        }
        wp[j + 1] = (int)nnz;
    }
    if (!(Wt = fc_matrix_csr(b, a, nnz))) goto nomem;
    memcpy(Wt->p, wp, ((size_t)b + 1) * sizeof *wp);
    memcpy(Wt->j, wj, (size_t)nnz * sizeof *wj);
    memcpy(Wt->x, wx, (size_t)nnz * sizeof *wx);
    if (!(W = fc_csr_transpose(Wt))) goto nomem;
    goto done;
nomem:
    fc_error_set(err, FC_ERR_NOMEM, "out of memory forming %s", what);
fail:
    W = NULL;
done:
    fc_matrix_free(L);
    fc_matrix_free(C);
    fc_matrix_free(Lt);
    fc_matrix_free(Ct);
    fc_matrix_free(Wt);
    free(x);
    free(wp);
    free(wj);
    free(wx);
    return W;
}

/* The reduction's equality constraints: V = H^T M^-1 G, R = G^T M^-1 G
 * and s = G^T y + b with y = M^-1 f. */
static fc_err reduce_equalities(fc_reduction *red, const double *y, fc_problem *loc, fc_error *err)
{
    const fc_problem *p = red->global;
    if (!p->neq) return FC_OK;
    if (fc_problem_set_equalities(loc, p->neq, err)) return err->code;
    if (!(loc->V = cols_product(red, p->H, p->G, "H^T M^-1 G", err)) ||
        !(loc->R = cols_product(red, p->G, p->G, "G^T M^-1 G", err)))
        return err->code;
    memcpy(loc->s, p->b, (size_t)p->neq * sizeof *loc->s);
    fc_matrix_gemv_t(p->G, 1.0, y, 1.0, loc->s);
    return FC_OK;
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
    W = red->lu ? cols_product(red, p->H, p->H, "H^T M^-1 H", err) : fc_chol_congruence(red->chol, p->H, err);
    if (!W) goto fail;
    loc->W = fc_matrix_to_bsr(W, p->d);
    fc_matrix_free(W);
    loc->q = fc_calloc((size_t)m, sizeof *loc->q);
    if (!loc->W || !loc->q) goto nomem;
    if (solve_M(red, p->f, y, err)) goto fail;
    memcpy(loc->q, p->w, (size_t)m * sizeof *loc->q);
    /* Keep w: solvers scale their stopping test as SPEC measures the global
     * problem, with ||w|| instead of ||q||. */
    if (!(loc->w = fc_dup(p->w, (size_t)m))) goto nomem;
    fc_matrix_gemv_t(p->H, 1.0, y, 1.0, loc->q);
    if (reduce_equalities(red, y, loc, err)) goto fail;
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

fc_err fc_reduction_recover_v(fc_reduction *red, const double *r, const double *lambda, double *v,
                               fc_error *err)
{
    const fc_problem *p = red->global;
    fc_affine(p->H, r, p->f, v);
    if (p->neq && lambda) fc_matrix_gemv(p->G, 1.0, lambda, 1.0, v);
    if (red->chol_v) return fc_chol_solve(red->chol_v, v, v, err);
    return solve_M(red, v, v, err);
}

void fc_reduction_end(fc_reduction *red)
{
    fc_chol_free(red->chol);
    fc_chol_free(red->chol_v);
    fc_lu_free(red->lu);
    red->chol = red->chol_v = NULL;
    red->lu = NULL;
}

fc_err fc_solve_reduced_eq(const fc_problem *p, const fc_options *opt, const fc_clock *clk,
                           fc_v_factor vf, fc_reduced_eq_fn solve, void *user, double *r, double *u,
                           double *v, double *lambda, fc_info *info, fc_status *status, fc_error *err)
{
    fc_reduction red;
    fc_problem *loc = NULL;
    double *lam = lambda;
    *status = FC_STATUS_ERROR;
    if (p->neq && !lam && !(lam = fc_calloc((size_t)p->neq, sizeof *lam)))
        return fc_error_set(err, FC_ERR_NOMEM, "out of memory for the multipliers");
    fc_err e = fc_reduction_start(p, &red, err);
    if (e) {
        if (lam != lambda) free(lam);
        return e;
    }
    if (vf == FC_V_M_FACTOR && red.chol && !(red.chol_v = fc_chol_copy(red.chol)))
        e = fc_error_set(err, FC_ERR_NOMEM, "out of memory copying M's factor");
    if (!e) e = fc_reduction_local(&red, &loc, err);
    if (!e) {
        fc_options o = *opt;
        o.time_limit = fc_time_left(clk);
        *status = solve(loc, &o, r, u, lam, info, user);
        fc_problem_free(loc);
        e = fc_reduction_recover_v(&red, r, lam, v, err);
    }
    fc_reduction_end(&red);
    if (lam != lambda) free(lam);
    return e;
}

/* fc_solve_reduced's solve as an fc_reduced_eq_fn (no multipliers). */
typedef struct plain_solve { fc_reduced_fn solve; void *user; } plain_solve;

static fc_status call_plain(const fc_problem *loc, const fc_options *opt, double *r, double *u,
                            double *lambda, fc_info *info, void *user)
{
    (void)lambda;
    const plain_solve *ps = user;
    return ps->solve(loc, opt, r, u, info, ps->user);
}

fc_err fc_solve_reduced(const fc_problem *p, const fc_options *opt, const fc_clock *clk,
                        fc_v_factor vf, fc_reduced_fn solve, void *user, double *r, double *u, double *v,
                        fc_info *info, fc_status *status, fc_error *err)
{
    *status = FC_STATUS_ERROR;
    if (p->neq)
        return fc_error_set(err, FC_ERR_UNSUPPORTED,
                            "this solver does not handle equality constraints (%d rows)", p->neq);
    plain_solve ps = {solve, user};
    return fc_solve_reduced_eq(p, opt, clk, vf, call_plain, &ps, r, u, v, NULL, info, status, err);
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
            if (p->neq && fc_problem_set_equalities(c, p->neq, NULL) == FC_OK) {
                memcpy(c->s, p->s, (size_t)p->neq * sizeof *c->s);
                c->V = fc_matrix_copy(p->V);
                if (p->R) c->R = fc_matrix_copy(p->R);
            }
        }
        if (!c || !c->W || !c->q || (p->name && !c->name) ||
            (p->neq && (c->neq != p->neq || !c->V || (p->R && !c->R)))) {
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

fc_err fc_problem_recover_v_eq(const fc_problem *p, const double *r, const double *lambda, double *v,
                               fc_error *err)
{
    fc_error tmp;
    if (!err) err = &tmp;
    if (p->kind != FC_GLOBAL)
        return fc_error_set(err, FC_ERR_INVALID, "v exists only for a global problem");
    fc_reduction red;
    if (fc_reduction_start(p, &red, err)) return err->code;
    fc_err e = fc_reduction_recover_v(&red, r, lambda, v, err);
    fc_reduction_end(&red);
    return e;
}

fc_err fc_problem_recover_v(const fc_problem *p, const double *r, double *v, fc_error *err)
{
    return fc_problem_recover_v_eq(p, r, NULL, v, err);
}
