/* Euclidean projections onto the Coulomb cone (d = 2, 3), the rolling
 * friction cone (d = 5) and the disk (Tresca). */
#include "internal.h"
#include "cone/cone.h"
#include "cone/local_kernels.h"

/* Half the derivative of phi(n) = (n - xn)^2 + max(0, a - mu n)^2
 * + max(0, b - mr n)^2. */
static double dphi(double n, double xn, double a, double mu, double b, double mr)
{
    return (n - xn) - mu * fmax(0.0, a - mu * n) - mr * fmax(0.0, b - mr * n);
}

/* Exact projection onto {||x_T|| <= mu x_N, ||x_R|| <= mr x_N}: for a fixed
 * normal value n the tangential parts are radially clipped, leaving the
 * convex piecewise quadratic phi(n) minimised over n >= 0 piece by piece. */
static void project_rolling(double mu, double mr, double *x)
{
    double xn = x[0], a = fc_hypot(x[1], x[2]), b = fc_hypot(x[3], x[4]);
    if (a <= mu * xn && b <= mr * xn) return;   /* inside */
    double n = 0.0;
    if (dphi(0.0, xn, a, mu, b, mr) < 0.0) {
        /* breakpoints a/mu and b/mr (infinite when the coefficient is 0) */
        double p1 = mu > 0.0 ? a / mu : INFINITY, p2 = mr > 0.0 ? b / mr : INFINITY;
        double lo = 0.0, bk[3] = {fmin(p1, p2), fmax(p1, p2), INFINITY};
        for (int i = 0; i < 3; i++) {
            double hi = bk[i];
            if (hi <= lo) continue;
            if (isinf(hi) || dphi(hi, xn, a, mu, b, mr) >= 0.0) {
                /* the root lies in [lo, hi]: terms active on this piece */
                double mid = isinf(hi) ? lo + 1.0 : 0.5 * (lo + hi);
                int act1 = mu > 0.0 && mid < p1, act2 = mr > 0.0 && mid < p2;
                double num = xn + (act1 ? mu * a : 0.0) + (act2 ? mr * b : 0.0);
                double den = 1.0 + (act1 ? mu * mu : 0.0) + (act2 ? mr * mr : 0.0);
                n = fmin(fmax(num / den, lo), hi);
                break;
            }
            lo = hi;
        }
    }
    double st = a > mu * n ? (a > 0.0 ? mu * n / a : 0.0) : 1.0;
    double sr = b > mr * n ? (b > 0.0 ? mr * n / b : 0.0) : 1.0;
    x[0] = n;
    x[1] *= st; x[2] *= st;
    x[3] *= sr; x[4] *= sr;
}

/* Projection onto the friction cone of dimension d (public). */
void fc_project_cone(int d, double mu, double mu_r, double *x)
{
    if (d == 5) project_rolling(mu, mu_r, x);
    else project_coulomb(d - 1, mu, x);
}

/* Projection onto the disk of radius R in dimension n (1 or 2). */
void fc_project_disk(int n, double R, double *x)
{
    double t = n == 2 ? fc_hypot(x[0], x[1]) : fabs(x[0]);
    if (t <= R) return;
    double s = t > 0.0 ? R / t : 0.0;
    for (int k = 0; k < n; k++) x[k] *= s;
}
