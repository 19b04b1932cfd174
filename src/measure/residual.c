/* The SPEC measure of a problem from r alone (u recomputed). */
#include "internal.h"
#include "measure/measure.h"
#include "problem/reduce.h"

/* ||M v - H r - G lambda - f|| / max(1, ||f||) (lambda NULL: no G term). */
double fc_dynamics_residual_eq(const fc_problem *p, const double *r, const double *v,
                               const double *lambda)
{
    double *t = fc_calloc((size_t)p->n, sizeof *t);
    if (!t) return NAN;
    fc_matrix_gemv(p->M, 1.0, v, 0.0, t);
    fc_matrix_gemv(p->H, -1.0, r, 1.0, t);
    if (lambda && p->neq > 0) fc_matrix_gemv(p->G, -1.0, lambda, 1.0, t);
    for (int i = 0; i < p->n; i++) t[i] -= p->f[i];
    double res = fc_norm2(p->n, t) / fmax(1.0, fc_norm2(p->n, p->f));
    free(t);
    return res;
}

double fc_dynamics_residual(const fc_problem *p, const double *r, const double *v)
{
    return fc_dynamics_residual_eq(p, r, v, NULL);
}

double fc_equality_residual(const fc_problem *p, const double *r, const double *v,
                            const double *lambda)
{
    if (p->neq <= 0) return 0.0;
    double *t = fc_calloc((size_t)p->neq, sizeof *t), res;
    if (!t) return NAN;
    const double *c = p->kind == FC_LOCAL ? p->s : p->b;
    memcpy(t, c, (size_t)p->neq * sizeof *t);
    if (p->kind == FC_LOCAL) {
        fc_matrix_gemv_t(p->V, 1.0, r, 1.0, t);
        if (p->R) fc_matrix_gemv(p->R, 1.0, lambda, 1.0, t);
    } else {
        fc_matrix_gemv_t(p->G, 1.0, v, 1.0, t);
    }
    res = fc_norm2(p->neq, t) / fmax(1.0, fc_norm2(p->neq, c));
    free(t);
    return res;
}

void fc_problem_u_eq(const fc_problem *p, const double *r, const double *lambda, double *u)
{
    fc_problem_u(p, r, u);
    if (p->neq > 0 && lambda) fc_matrix_gemv(p->V, 1.0, lambda, 1.0, u);
}

double fc_error_local_eq(const fc_problem *p, const double *r, const double *lambda, double *u)
{
    fc_problem_u_eq(p, r, lambda, u);
    double err = fc_error_local(p, r, u), eq = fc_equality_residual(p, r, NULL, lambda);
    return eq > err || eq != eq ? eq : err;
}

double fc_residual_eq(const fc_problem *p, const double *r, const double *v,
                      const double *lambda, double *dyn, double *eq)
{
    int m = fc_problem_m(p), n = p->kind == FC_GLOBAL ? p->n : 0;
    double *u = fc_calloc((size_t)m, sizeof *u), *vr = NULL, err = NAN;
    double *zero = NULL;
    if (!lambda && p->neq > 0) lambda = zero = fc_calloc((size_t)p->neq, sizeof *zero);
    if (!u || (p->neq > 0 && !lambda)) goto done;
    if (p->kind == FC_LOCAL) {
        fc_problem_u_eq(p, r, lambda, u);
        err = fc_error_local(p, r, u);
        if (eq) *eq = fc_equality_residual(p, r, NULL, lambda);
        goto done;
    }
    fc_error e;
    if (!(vr = fc_calloc((size_t)n, sizeof *vr)) ||
        fc_problem_recover_v_eq(p, r, lambda, vr, &e) != FC_OK)
        goto done;
    memcpy(u, p->w, (size_t)m * sizeof *u);
    fc_matrix_gemv_t(p->H, 1.0, vr, 1.0, u);
    err = fc_error_local(p, r, u);
    if (dyn) *dyn = fc_dynamics_residual_eq(p, r, v ? v : vr, lambda);
    if (eq) *eq = fc_equality_residual(p, r, v ? v : vr, lambda);
done:
    free(u);
    free(vr);
    free(zero);
    return err;
}

double fc_residual(const fc_problem *p, const double *r, const double *v, double *dyn)
{
    return fc_residual_eq(p, r, v, NULL, dyn, NULL);
}
