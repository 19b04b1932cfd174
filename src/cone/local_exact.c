/* The exact (enumerative) one-contact solver, d = 2 or 3.  Every case of
 * Coulomb's law is tried and the candidate with the smallest local error
 * is kept:
 *   take-off  r = 0                     (valid when q_N >= 0)
 *   sticking  W r = -q                  (valid when ||r_T|| <= mu r_N)
 *   sliding   r = r_N (1, -mu cos t, -mu sin t), u_N = 0, u_T // (cos t, sin t):
 *     with D(t) = W_N . c(t) and r_N = -q_N / D, the direction condition
 *     (D q_T - q_N W_T c) x (cos t, sin t) = 0 is a trigonometric quadratic,
 *     a quartic in tan(t/2) after the half-angle substitution.  Its roots
 *     come from the eigenvalues of the companion matrix (LAPACK dgeev),
 *     each polished by Newton on the trigonometric form; t = pi is tried
 *     separately (the root at infinity of the substitution). */
#include "internal.h"
#include "cone/cone.h"

#include <lapacke.h>

/* Coefficients of the direction condition f(t) = g1 sin t - g2 cos t with
 * g_i = a_i + b_i cos t + c_i sin t. */
typedef struct slide_eq { double a[2], b[2], c[2]; } slide_eq;

/* f(t) and f'(t). */
static double slide_f(const slide_eq *s, double t, double *df)
{
    double cs = cos(t), sn = sin(t);
    double g1 = s->a[0] + s->b[0] * cs + s->c[0] * sn;
    double g2 = s->a[1] + s->b[1] * cs + s->c[1] * sn;
    double d1 = -s->b[0] * sn + s->c[0] * cs, d2 = -s->b[1] * sn + s->c[1] * cs;
    *df = d1 * sn + g1 * cs - d2 * cs + g2 * sn;
    return g1 * sn - g2 * cs;
}

/* out = x * y for polynomials of degree 2 (coefficients by rising power). */
static void poly_mul2(const double *x, const double *y, double *out)
{
    for (int k = 0; k < 5; k++) out[k] = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) out[i + j] += x[i] * y[j];
}

/* The quartic p (rising powers) of f(2 atan tau) (1 + tau^2)^2. */
static void slide_quartic(const slide_eq *s, double *p)
{
    const double one[3] = {1, 0, 1}, C[3] = {1, 0, -1}, S[3] = {0, 2, 0};
    double g[2][3], t1[5], t2[5];
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 3; k++)
            g[i][k] = s->a[i] * one[k] + s->b[i] * C[k] + s->c[i] * S[k];
    poly_mul2(g[0], S, t1);
    poly_mul2(g[1], C, t2);
    for (int k = 0; k < 5; k++) p[k] = t1[k] - t2[k];
}

/* Real parts of the roots of p (degree <= 4, rising powers) into roots;
 * returns their count. */
static int poly_roots(const double *p, double *roots)
{
    double scale = 0.0;
    for (int k = 0; k < 5; k++) scale = fmax(scale, fabs(p[k]));
    if (!(scale > 0.0)) return 0;
    int deg = 4;
    while (deg > 0 && fabs(p[deg]) <= 1e-14 * scale) deg--;
    if (deg == 0) return 0;
    double A[16] = {0}, wr[4], wi[4];
    /* companion matrix (column-major): subdiagonal ones, last column -p/p_deg */
    for (int i = 1; i < deg; i++) A[(i - 1) * deg + i] = 1.0;
    for (int i = 0; i < deg; i++) A[(deg - 1) * deg + i] = -p[i] / p[deg];
    if (LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'N', deg, A, deg, wr, wi,
                      NULL, 1, NULL, 1) != 0)
        return 0;
    int n = 0;
    for (int i = 0; i < deg; i++)
        if (fabs(wi[i]) <= 1e-6 * fmax(1.0, fabs(wr[i]))) roots[n++] = wr[i];
    return n;
}

/* The sliding candidate for angle t (r = r_N c(t)); 0 when r_N is not finite. */
static int slide_candidate(const fc_local *c, const double *q, double t, double *r)
{
    const double *W = c->W;
    double cv[3] = {1.0, -c->mu * cos(t), -c->mu * sin(t)};
    double D = W[0] * cv[0] + W[3] * cv[1] + W[6] * cv[2];
    if (D == 0.0) return 0;
    double rn = -q[0] / D;
    if (!isfinite(rn)) return 0;
    for (int k = 0; k < 3; k++) r[k] = rn * cv[k];
    return 1;
}

/* Try candidate cand; keep it in best when its error is smaller. */
static void try_candidate(const fc_local *c, const double *q, const double *cand,
                          double *best, double *eb)
{
    double e = fc_local_error(c, q, cand);
    if (e < *eb) {
        *eb = e;
        memcpy(best, cand, (size_t)c->d * sizeof *best);
    }
}

/* Sliding candidates in 3D: roots of the quartic, Newton-polished, and pi. */
static void slide_3d(const fc_local *c, const double *q, double *best, double *eb)
{
    const double *W = c->W;
    double mu = c->mu;
    if (!(mu > 0.0)) return;
    slide_eq s;
    for (int i = 0; i < 2; i++) {   /* rows T1, T2 of W: W[j*3 + i+1] */
        s.a[i] = q[i + 1] * W[0] - q[0] * W[i + 1];
        s.b[i] = -mu * q[i + 1] * W[3] + mu * q[0] * W[3 + i + 1];
        s.c[i] = -mu * q[i + 1] * W[6] + mu * q[0] * W[6 + i + 1];
    }
    double p[5], roots[4], cand[3];
    slide_quartic(&s, p);
    int n = poly_roots(p, roots);
    for (int i = 0; i <= n; i++) {
        double t = i < n ? 2.0 * atan(roots[i]) : 3.14159265358979323846, df;
        for (int k = 0; k < 8; k++) {   /* Newton polish on f(t) */
            double f = slide_f(&s, t, &df);
            if (f == 0.0 || df == 0.0) break;
            double tn = t - f / df, dfn;
            if (!(fabs(slide_f(&s, tn, &dfn)) < fabs(f))) break;
            t = tn;
        }
        if (slide_candidate(c, q, t, cand)) try_candidate(c, q, cand, best, eb);
    }
}

/* All cases enumerated; r receives the best candidate (or keeps its value
 * when none is better), whose error is returned. */
double fc_local_exact(const fc_local *c, const double *q, double *r)
{
    int d = c->d;
    if (d != 2 && d != 3) return fc_local_error(c, q, r);
    double best[3], cand[3], J[5][5];
    memcpy(best, r, (size_t)d * sizeof *r);
    double eb = fc_local_error(c, q, r);
    /* take-off */
    for (int k = 0; k < d; k++) cand[k] = 0.0;
    try_candidate(c, q, cand, best, &eb);
    /* sticking */
    for (int i = 0; i < d; i++) {
        cand[i] = -q[i];
        for (int j = 0; j < d; j++) J[i][j] = c->W[j * d + i];
    }
    if (fc_small_solve(d, J, cand) == 0) try_candidate(c, q, cand, best, &eb);
    /* sliding */
    if (d == 3) {
        slide_3d(c, q, best, &eb);
    } else {
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            double cv[2] = {1.0, -c->mu * sgn};
            double D = c->W[0] * cv[0] + c->W[2] * cv[1];
            double rn = D != 0.0 ? -q[0] / D : NAN;
            if (!isfinite(rn)) continue;
            cand[0] = rn * cv[0];
            cand[1] = rn * cv[1];
            try_candidate(c, q, cand, best, &eb);
        }
    }
    memcpy(r, best, (size_t)d * sizeof *r);
    return eb;
}

/* The 2D contact law in closed form: the first case of Coulomb's law
 * whose conditions hold (take-off, sticking, sliding either way), with no
 * error evaluated on the way (a few dozen flops, against a Newton
 * iteration's hundreds).  0 with r set, -1 when no case holds to
 * rounding (a degenerate block: the caller falls back on Newton). */
int fc_local_law_2d(const fc_local *c, const double *q, double *r)
{
    const double *W = c->W;   /* column-major: W[0] NN, W[1] TN, W[2] NT, W[3] TT */
    double mu = c->mu;
    if (q[0] >= 0.0) {        /* take-off: u = q, u_N >= 0 */
        r[0] = r[1] = 0.0;
        return 0;
    }
    double det = W[0] * W[3] - W[2] * W[1];
    if (det > 0.0) {          /* sticking: W r = -q inside the cone */
        double rn = -(W[3] * q[0] - W[2] * q[1]) / det;
        double rt = -(W[0] * q[1] - W[1] * q[0]) / det;
        if (rn >= 0.0 && fabs(rt) <= mu * rn) {
            r[0] = rn;
            r[1] = rt;
            return 0;
        }
    }
    for (int s = 1; s >= -1; s -= 2) {   /* sliding with sign(u_T) = s, r_T = -s mu r_N */
        double den = W[0] - s * mu * W[2];
        if (!(den > 0.0)) continue;
        double rn = -q[0] / den;
        double ut = (W[1] - s * mu * W[3]) * rn + q[1];
        if (rn >= 0.0 && s * ut >= 0.0) {
            r[0] = rn;
            r[1] = -s * mu * rn;
            return 0;
        }
    }
    return -1;
}
