/* One-contact problem data: set-up, velocity, error; and the hybrid
 * dispatcher that picks and chains the one-contact solvers. */
#include "internal.h"
#include "cone/cone.h"
#include "cone/local_kernels.h"

/* W_aa's off-diagonal entries and the difference of W_TT's diagonal below
 * this times its largest diagonal entry: isotropic (fc_local.iso).  A
 * sphere's block is so to rounding (docs/measurements.md, ninth sweep
 * session); the closed form's local error decides anyway. */
#define FC_LOCAL_ISO_TOL 1e-14
/* The sticking test by W_aa's inverse up to this condition (sticking_factor). */
#define FC_LOCAL_INV_COND 1e4

/* Largest eigenvalue of a symmetric 2 x 2 matrix [a b; b c]. */
static double eig_max2(double a, double b, double c)
{
    return 0.5 * (a + c) + fc_hypot(0.5 * (a - c), b);
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

/* The sticking test's W_aa (3 x 3 by columns) once per solve into f: its
 * inverse by rows (2) when its 1-norm condition is at most
 * FC_LOCAL_INV_COND, nine products with no chain in the test; else its
 * partial-pivoting LU (1: a backward-stable solve, whose residual W x + q
 * the inverse would multiply by the condition); 0 when singular. */
static int sticking_factor(const double *W, signed char *piv, double *f)
{
    double J[5][5], lu[9], inv[9], n1 = 0.0, ni = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) J[i][j] = W[j * 3 + i];
    if (lu_factor(3, J, piv, lu) != 0) return 0;
    memcpy(f, lu, sizeof lu);
    for (int j = 0; j < 3; j++) {
        double e[3] = {0.0, 0.0, 0.0};
        e[j] = 1.0;
        if (lu_solve(3, piv, lu, e) != 0) return 1;
        for (int i = 0; i < 3; i++) inv[3 * i + j] = e[i];
        n1 = fmax(n1, fabs(W[3 * j]) + fabs(W[3 * j + 1]) + fabs(W[3 * j + 2]));
        ni = fmax(ni, fabs(e[0]) + fabs(e[1]) + fabs(e[2]));
    }
    if (!(n1 * ni <= FC_LOCAL_INV_COND)) return 1;
    memcpy(f, inv, sizeof inv);
    return 2;
}

/* Copy the block and derive the step sizes rho from it (and for d = 3
 * the sticking test's factor). */
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
    c->lu_ok = 0;
    c->iso = 0;
    if (d == 3) {
        double sc = FC_LOCAL_ISO_TOL * fmax(W[0], fmax(W[4], W[8]));
        c->iso = W[0] > 0.0 && W[4] > 0.0 && fabs(W[1]) <= sc && fabs(W[2]) <= sc &&
                 fabs(W[3]) <= sc && fabs(W[6]) <= sc && fabs(W[5]) <= sc && fabs(W[7]) <= sc &&
                 fabs(W[4] - W[8]) <= sc;
        c->lu_ok = (signed char)sticking_factor(W, c->piv, c->lu);
    }
}

void fc_local_setup_all(const fc_problem *p, const fc_matrix *W, fc_local *loc)
{
    int d = p->d, nc = p->nc;
    FC_PAR_FOR(nc, , for (int a = 0; a < nc; a++) {
        double blk[25];
        fc_matrix_diag_block(W, a, d, blk);
        fc_local_setup(&loc[a], d, blk, p->mu[a], p->mu_r ? p->mu_r[a] : 0.0);
    });
}

/* u = W r + q. */
void fc_local_velocity(const fc_local *c, const double *q, const double *r, double *u)
{
    local_velocity(c->d, c, q, r, u);
}

/* Natural-map error of one contact, relative to max(||q||, ||r||, ||u||). */
double fc_local_error(const fc_local *c, const double *q, const double *r)
{
    double u[5] = {0};
    local_velocity(c->d, c, q, r, u);
    return local_error_u(c->d, c, fc_norm_small(c->d, q), r, u);
}

/* d = 3, take-off or sticking with W_aa's factor f (sticking_factor's:
 * ok 2 the inverse, 1 the LU with piv, 0 singular): fc_local_law_3d's
 * answer.  With slide != NULL, when the
 * sticking solution x = -W_aa^-1 q has x_N > 0 but lies outside the
 * cone, the sliding candidate of an isotropic W_aa into slide (1
 * returned): for W_NT = W_TN = 0 and W_TT = w I, u_N = 0 gives
 * r_N = -q_N / W_NN = x_N, and r_T opposite to u_T = w r_T + q_T on the
 * cone's boundary makes u_T parallel to q_T (|u_T| = |q_T| - w mu r_N > 0,
 * which is the sticking test failing), so r_T = -mu r_N q_T / |q_T| =
 * mu x_N x_T / |x_T|. */
static int law_3d(const fc_local *c, const signed char *piv, const double *f, int ok, const double *q,
                  double *r, double *slide)
{
    if (q[0] >= 0.0) {
        r[0] = r[1] = r[2] = 0.0;
        return 0;
    }
    double x[3] = {-q[0], -q[1], -q[2]};
    if (ok == 2)
        for (int i = 0; i < 3; i++) x[i] = -(f[3 * i] * q[0] + f[3 * i + 1] * q[1] + f[3 * i + 2] * q[2]);
    else if (!ok || lu_solve(3, piv, f, x) != 0)
        return -1;
    if (!(x[0] >= 0.0)) return -1;
    double t = fc_hypot(x[1], x[2]);
    if (!(t <= c->mu * x[0])) {
        if (!slide || !(x[0] > 0.0)) return -1;
        double s = c->mu * x[0] / t;   /* t > mu x_N >= 0 */
        slide[0] = x[0];
        slide[1] = s * x[1];
        slide[2] = s * x[2];
        return 1;
    }
    memcpy(r, x, sizeof x);
    return 0;
}

/* d = 3: the two cases of Coulomb's law that need no search, take-off
 * (q_N >= 0: r = 0) and sticking (W r = -q inside the cone); 0 with r
 * set when one holds, -1 otherwise (sliding: the caller's Newton).  W_aa
 * factored here (c may be set up only in d, mu and W). */
int fc_local_law_3d(const fc_local *c, const double *q, double *r)
{
    if (q[0] >= 0.0) return law_3d(c, NULL, NULL, 0, q, r, NULL);
    double f[9];
    signed char piv[3];
    int ok = sticking_factor(c->W, piv, f);
    return law_3d(c, piv, f, ok, q, r, NULL);
}

/* Keep in best the better of (best, cand) by error; returns the best error. */
static inline double keep_best(int d, double *best, double ebest, const double *cand, double ecand)
{
    if (ecand < ebest) {
        memcpy(best, cand, (size_t)d * sizeof *best);
        return ecand;
    }
    return ebest;
}

/* d = 3, the hybrid's closed forms on c's factor: take-off or sticking
 * (0, r set, *err = 0), or for an isotropic W_aa the sliding candidate
 * when its local error meets tol (1, r set, *err its error); else -1 (r
 * untouched: the search follows). */
static inline int closed_3d(const fc_local *c, const double *q, double tol, double *r, double *err)
{
    double t[3], u[3] = {0};
    int law = law_3d(c, c->piv, c->lu, c->lu_ok, q, r, c->iso ? t : NULL);
    *err = 0.0;
    if (law == 0) return 0;   /* the case's conditions are the law: exact to rounding */
    if (law == 1) {   /* isotropic W_aa: the sliding closed form, kept when its error passes */
        local_velocity(3, c, q, t, u);
        double e = local_error_u(3, c, fc_norm_small(3, q), t, u);
        if (e <= tol) {
            memcpy(r, t, sizeof t);
            *err = e;
            return 1;
        }
    }
    return -1;
}

int fc_local_closed_3d(const fc_local *c, const double *q, double tol, double *r)
{
    double e;
    return closed_3d(c, q, tol, r, &e);
}

/* The hybrid's search once no closed form holds: AC Newton from the warm
 * start; if it misses tol, projection from the best point so far, then
 * the exact enumeration (d = 2, 3), each result polished by Newton; the
 * best iterate wins.  For d = 5 (no enumeration), Newton then projection. */
static inline double search(int d, const fc_local *c, const double *q, double tol, int it, double *r)
{
    double best[5], t[5], u[5] = {0};
    memcpy(best, r, (size_t)d * sizeof *r);
    local_velocity(d, c, q, best, u);
    double eb = local_error_u(d, c, fc_norm_small(d, q), best, u);
    if (eb <= tol) return eb;
    memcpy(t, r, (size_t)d * sizeof *r);
    eb = keep_best(d, best, eb, t, newton_ac_from(d, c, q, tol, it, t, eb, u));
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

/* Hybrid: the closed forms (d = 2: the law, when one of its cases holds;
 * d = 3: closed_3d), else the search.  Inlined with d = 3 a constant:
 * the sweeps' common path (the law, the entry error, Newton) unrolled. */
static inline double hybrid(int d, const fc_local *c, const double *q, double tol, int it,
                            double *r)
{
    double e;
    if (d == 2 && fc_local_law_2d(c, q, r) == 0)
        return 0.0;   /* the case's conditions are the law: exact to rounding */
    if (d == 3 && closed_3d(c, q, tol, r, &e) >= 0) return e;
    return search(d, c, q, tol, it, r);
}

/* par's Newton iterations (20 when not set). */
static int local_iters(const fc_local_params *par)
{
    return par->max_iter > 0 ? par->max_iter : 20;
}

/* Solve one contact with the solver chosen in par. */
double fc_local_solve(const fc_local *c, const double *q, const fc_local_params *par,
                      double *r)
{
    double tol = par->tol;
    int it = local_iters(par);
    if (par->kind == FC_LOCAL_PROJECTION)
        return fc_local_projection(c, q, tol, 50 * it, r);
    if (par->kind == FC_LOCAL_NEWTON_AC) return fc_local_newton_ac(c, q, tol, it, r);
    if (par->kind == FC_LOCAL_EXACT) {
        double e = fc_local_exact(c, q, r);
        return e <= tol ? e : fc_local_newton_ac(c, q, tol, 5, r);
    }
    return c->d == 3 ? hybrid(3, c, q, tol, it, r) : hybrid(c->d, c, q, tol, it, r);
}

double fc_local_solve_open(const fc_local *c, const double *q, const fc_local_params *par,
                           double *r)
{
    if (par->kind != FC_LOCAL_HYBRID || c->d != 3) return fc_local_solve(c, q, par, r);
    return search(3, c, q, par->tol, local_iters(par), r);
}
