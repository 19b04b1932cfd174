/* One-contact problem data: set-up, velocity, error; and the hybrid
 * dispatcher that picks and chains the one-contact solvers. */
#include "internal.h"
#include "cone/cone.h"

/* Largest eigenvalue of a symmetric 2 x 2 matrix [a b; b c]. */
static double eig_max2(double a, double b, double c)
{
    return 0.5 * (a + c) + fc_hypot(0.5 * (a - c), b);
}

/* Copy the block and derive the step sizes rho from it. */
void fc_local_setup(fc_local *c, int d, const double *W, double mu, double mu_r)
{
    c->d = d;
    c->mu = mu;
    c->mu_r = mu_r;
    memcpy(c->W, W, (size_t)d * d * sizeof *W);
    double wn = W[0];
    double wt = d == 2 ? W[3] : eig_max2(W[d + 1], 0.5 * (W[2 * d + 1] + W[d + 2]), W[2 * d + 2]);
    c->rho_n = wn > 0.0 ? 1.0 / wn : 1.0;
    c->rho_t = wt > 0.0 ? 1.0 / wt : c->rho_n;
    double wr = d == 5 ? eig_max2(W[3 * d + 3], 0.5 * (W[4 * d + 3] + W[3 * d + 4]), W[4 * d + 4]) : 0.0;
    c->rho_r = wr > 0.0 ? 1.0 / wr : c->rho_t;
    /* Gershgorin bound on lambda_max(W) */
    double lmax = 0.0;
    for (int i = 0; i < d; i++) {
        double s = 0.0;
        for (int j = 0; j < d; j++) s += fabs(W[j * d + i]);
        lmax = fmax(lmax, s);
    }
    c->rho = lmax > 0.0 ? 1.0 / lmax : 1.0;
}

/* u = W r + q. */
void fc_local_velocity(const fc_local *c, const double *q, const double *r, double *u)
{
    int d = c->d;
    for (int i = 0; i < d; i++) {
        double s = q[i];
        for (int j = 0; j < d; j++) s += c->W[j * d + i] * r[j];
        u[i] = s;
    }
}

/* Natural-map error of one contact, relative to max(||q||, ||r||, ||u||). */
double fc_local_error(const fc_local *c, const double *q, const double *r)
{
    int d = c->d;
    double u[5] = {0}, x[5];
    fc_local_velocity(c, q, r, u);
    double un = u[0] + c->mu * fc_hypot(u[1], d > 2 ? u[2] : 0.0);
    if (d == 5) un += c->mu_r * fc_hypot(u[3], u[4]);
    x[0] = r[0] - un;
    for (int k = 1; k < d; k++) x[k] = r[k] - u[k];
    fc_project_cone(d, c->mu, c->mu_r, x);
    double e[5];
    for (int k = 0; k < d; k++) e[k] = r[k] - x[k];
    double s = fmax(fc_norm_small(d, q), fmax(fc_norm_small(d, r), fc_norm_small(d, u)));
    if (s < 1e-300) s = 1.0;
    double err = fc_norm_small(d, e) / s;
    return isfinite(err) ? err : INFINITY;
}

/* Solve J x = b (d x d, Gaussian elimination with partial pivoting) in
 * place in b; 0 on success, -1 when J is numerically singular.  Written
 * once, inlined for each d below so that the compiler unrolls its loops
 * (the one-contact solvers call it in every sweep; the same operations in
 * the same order, so the same bits). */
static inline int small_solve(int d, double J[5][5], double *b)
{
    double scale = 0.0;
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double a = fabs(J[i][j]);
            if (a > scale) scale = a;   /* fmax's result: scale is never NaN */
        }
    if (!(scale > 0.0)) return -1;
    for (int k = 0; k < d; k++) {
        int p = k;
        for (int i = k + 1; i < d; i++)
            if (fabs(J[i][k]) > fabs(J[p][k])) p = i;
        if (!(fabs(J[p][k]) > 1e-14 * scale)) return -1;
        if (p != k) {
            for (int j = 0; j < d; j++) { double t = J[k][j]; J[k][j] = J[p][j]; J[p][j] = t; }
            double t = b[k]; b[k] = b[p]; b[p] = t;
        }
        for (int i = k + 1; i < d; i++) {
            double f = J[i][k] / J[k][k];
            for (int j = k; j < d; j++) J[i][j] -= f * J[k][j];
            b[i] -= f * b[k];
        }
    }
    int finite = 1;
    for (int i = d - 1; i >= 0; i--) {
        double s = b[i];
        for (int j = i + 1; j < d; j++) s -= J[i][j] * b[j];
        b[i] = s / J[i][i];
        finite &= isfinite(b[i]) != 0;
    }
    return finite ? 0 : -1;
}

int fc_small_solve(int d, double J[5][5], double *b)
{
    switch (d) {
    case 2: return small_solve(2, J, b);
    case 3: return small_solve(3, J, b);
    case 5: return small_solve(5, J, b);
    default: return small_solve(d, J, b);
    }
}

/* Keep in best the better of (best, cand) by error; returns the best error. */
static double keep_best(int d, double *best, double ebest, const double *cand, double ecand)
{
    if (ecand < ebest) {
        memcpy(best, cand, (size_t)d * sizeof *best);
        return ecand;
    }
    return ebest;
}

/* Hybrid (d = 2: the closed-form law, when one of its cases holds; d = 3:
 * take-off or sticking, when one holds): AC
 * Newton from the warm start; if it misses tol, projection from
 * the best point so far, then the exact enumeration (d = 2, 3), each
 * result polished by Newton; the best iterate wins.  For d = 5 (no
 * enumeration), Newton then projection. */
double fc_local_solve(const fc_local *c, const double *q, const fc_local_params *par,
                      double *r)
{
    int d = c->d;
    double tol = par->tol;
    int it = par->max_iter > 0 ? par->max_iter : 20;
    if (par->kind == FC_LOCAL_PROJECTION)
        return fc_local_projection(c, q, tol, 50 * it, r);
    if (par->kind == FC_LOCAL_NEWTON_AC) return fc_local_newton_ac(c, q, tol, it, r);
    if (par->kind == FC_LOCAL_EXACT) {
        double e = fc_local_exact(c, q, r);
        return e <= tol ? e : fc_local_newton_ac(c, q, tol, 5, r);
    }
    double best[5], t[5];
    if (d == 2 && fc_local_law_2d(c, q, r) == 0)
        return 0.0;   /* the case's conditions are the law: exact to rounding */
    if (d == 3 && fc_local_law_3d(c, q, r) == 0) return 0.0;   /* likewise */
    memcpy(best, r, (size_t)d * sizeof *r);
    double eb = fc_local_error(c, q, best);
    if (eb <= tol) return eb;
    memcpy(t, r, (size_t)d * sizeof *r);
    eb = keep_best(d, best, eb, t, fc_local_newton_ac_from(c, q, tol, it, t, eb));
    if (eb > tol) {
        memcpy(t, best, (size_t)d * sizeof *t);
        double e = fc_local_projection(c, q, tol, 10 * it, t);
        if (e > tol) e = fc_local_newton_ac(c, q, tol, it, t);
        eb = keep_best(d, best, eb, t, e);
    }
    if (eb > tol && d != 5) {
        double e = fc_local_exact(c, q, t);
        if (e > tol) e = fc_local_newton_ac(c, q, tol, 5, t);
        eb = keep_best(d, best, eb, t, e);
    }
    memcpy(r, best, (size_t)d * sizeof *r);
    return eb;
}
