/* Jordan algebra of the second-order cone and Nesterov-Todd scaling.
 * Notation: x = (x0, x1), J = diag(1, -1, .., -1), det x = x'Jx. */
#include "cone/soc.h"

#include <math.h>

static double tail_dot(int k, const double *x, const double *y)
{
    double s = 0;
    for (int i = 1; i < k; i++) s += x[i] * y[i];
    return s;
}

double fc_soc_det(int k, const double *x)
{
    double t = sqrt(tail_dot(k, x, x));
    return (x[0] - t) * (x[0] + t);
}

void fc_soc_prod(int k, const double *x, const double *y, double *out)
{
    out[0] = x[0] * y[0] + tail_dot(k, x, y);
    for (int i = 1; i < k; i++) out[i] = x[0] * y[i] + y[0] * x[i];
}

/* l o a = r:  a0 = (l0 r0 - l1'r1) / det l,  a1 = (r1 - a0 l1) / l0. */
void fc_soc_div(int k, const double *l, const double *r, double *out)
{
    double det = fc_soc_det(k, l);
    double a0 = (l[0] * r[0] - tail_dot(k, l, r)) / det;
    for (int i = 1; i < k; i++) out[i] = (r[i] - a0 * l[i]) / l[0];
    out[0] = a0;
}

/* With xb = x / sqrt(det x), yb = y / sqrt(det y), gamma = sqrt((1 + xb'yb)/2),
 * w = (xb + J yb) / (2 gamma) has det w = 1 and (2ww' - J) yb = xb; its
 * Jordan square root v = (w + e) / sqrt(2 (w0 + 1)) gives the scaling
 * G = eta (2vv' - J) with G^2 y = x when eta^2 = sqrt(det x / det y). */
void fc_soc_nt(int k, const double *x, const double *y, double *nt, double *lam)
{
    double dx = sqrt(fmax(fc_soc_det(k, x), 1e-300)), dy = sqrt(fmax(fc_soc_det(k, y), 1e-300));
    double xy = 0;
    for (int i = 0; i < k; i++) xy += x[i] * y[i];
    double gamma = sqrt(fmax(0.5 * (1.0 + xy / (dx * dy)), 0.5));
    double w[8];
    w[0] = (x[0] / dx + y[0] / dy) / (2 * gamma);
    for (int i = 1; i < k; i++) w[i] = (x[i] / dx - y[i] / dy) / (2 * gamma);
    double c = sqrt(2 * (w[0] + 1));
    nt[0] = sqrt(dx / dy);
    nt[1] = (w[0] + 1) / c;
    for (int i = 1; i < k; i++) nt[1 + i] = w[i] / c;
    fc_soc_nt_apply(k, nt, 0, y, lam);
}

/* G a = eta (2 v (v'a) - J a);  G^-1 a = (2 Jv (v'J a) - J a) / eta. */
void fc_soc_nt_apply(int k, const double *nt, int inv, const double *a, double *out)
{
    double eta = nt[0];
    const double *v = nt + 1;
    if (!inv) {
        double va = v[0] * a[0] + tail_dot(k, v, a);
        out[0] = eta * (2 * v[0] * va - a[0]);
        for (int i = 1; i < k; i++) out[i] = eta * (2 * v[i] * va + a[i]);
    } else {
        double vja = v[0] * a[0] - tail_dot(k, v, a);
        out[0] = (2 * v[0] * vja - a[0]) / eta;
        for (int i = 1; i < k; i++) out[i] = (-2 * v[i] * vja + a[i]) / eta;
    }
}

/* G^-2 = (2 Jw w'J - J) / eta^2 with w = v o v. */
void fc_soc_nt_inv2(int k, const double *nt, double *blk)
{
    double eta2 = nt[0] * nt[0], w[8];
    const double *v = nt + 1;
    w[0] = v[0] * v[0] + tail_dot(k, v, v);
    for (int i = 1; i < k; i++) w[i] = -2 * v[0] * v[i]; /* J w */
    for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++)
            blk[j * k + i] = (2 * w[i] * w[j] - (i == j ? (i == 0 ? 1.0 : -1.0) : 0.0)) / eta2;
}

/* Largest alpha with det(x + alpha dx) >= 0: the first positive root of
 * a alpha^2 + 2 b alpha + c, a = det dx, b = dx'J x, c = det x. */
double fc_soc_max_step(int k, const double *x, const double *dx, double amax)
{
    double a = fc_soc_det(k, dx), b = x[0] * dx[0] - tail_dot(k, x, dx);
    double c = fmax(fc_soc_det(k, x), 0.0);
    double alpha = INFINITY;
    if (a > 0) {
        if (b < 0 || dx[0] < 0) {
            double disc = b * b - a * c;
            if (disc >= 0) alpha = c / (sqrt(disc) - b);
            if (dx[0] < 0 && !(alpha < INFINITY)) alpha = -x[0] / dx[0];
        }
    } else if (a < 0) {
        double s = sqrt(fmax(b * b - a * c, 0.0));
        alpha = b < 0 ? c / (s - b) : (b + s) / (-a);
    } else if (b < 0) {
        alpha = -c / (2 * b);
    }
    if (!(alpha >= 0)) alpha = 0;
    return alpha < amax ? alpha : amax;
}

double fc_soc_depth(int k, const double *x)
{
    return sqrt(tail_dot(k, x, x)) - x[0];
}
