/* The SPEC measure of a problem from r alone (u recomputed). */
#include "internal.h"
#include "measure/measure.h"
#include "problem/reduce.h"

/* ||M v - H r - f|| / max(1, ||f||). */
double fc_dynamics_residual(const fc_problem *p, const double *r, const double *v)
{
    double *t = fc_calloc((size_t)p->n, sizeof *t);
    if (!t) return NAN;
    fc_matrix_gemv(p->M, 1.0, v, 0.0, t);
    fc_matrix_gemv(p->H, -1.0, r, 1.0, t);
    for (int i = 0; i < p->n; i++) t[i] -= p->f[i];
    double res = fc_norm2(p->n, t) / fmax(1.0, fc_norm2(p->n, p->f));
    free(t);
    return res;
}

double fc_residual(const fc_problem *p, const double *r, const double *v, double *dyn)
{
    int m = fc_problem_m(p);
    double *u = fc_calloc((size_t)m, sizeof *u), err = NAN;
    if (!u) return NAN;
    if (p->kind == FC_LOCAL) {
        err = fc_problem_error(p, r, u);
    } else {
        double *vr = fc_calloc((size_t)p->n, sizeof *vr);
        fc_error e;
        if (vr && fc_problem_recover_v(p, r, vr, &e) == FC_OK) {
            memcpy(u, p->w, (size_t)m * sizeof *u);
            fc_matrix_gemv_t(p->H, 1.0, vr, 1.0, u);
            err = fc_error_local(p, r, u);
            if (dyn) *dyn = fc_dynamics_residual(p, r, v ? v : vr);
        }
        free(vr);
    }
    free(u);
    return err;
}
