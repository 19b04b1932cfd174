/* tests/ipm_check.h: the SPEC measure of a rolling-friction (d = 5)
 * problem, local or global (through check.h's reduction), with the cone
 * projection's normal value found by bisection on the derivative of the
 * convex piecewise quadratic, to machine precision: check.h's golden
 * section on the function values is only about sqrt(eps) ~ 1e-8
 * accurate (measured: 3.8e-8 against the library's closed form on random
 * vectors), too coarse to judge a 1e-8 target.  For d = 2, 3 it is
 * check.h's check_error.  Include after check.h. */
#ifndef FRICON_TEST_IPM_CHECK_H
#define FRICON_TEST_IPM_CHECK_H

/* The rolling (d = 5) measure with the projection's normal value found by
 * bisection on the derivative of the convex piecewise quadratic (to
 * machine precision: check.h's golden section on the function values is
 * only about 1e-8 accurate, sqrt(eps), too coarse to judge 1e-8). */
static void exact_rolling_projection(double mu, double mr, double *x)
{
    double a = sqrt(x[1] * x[1] + x[2] * x[2]), b = sqrt(x[3] * x[3] + x[4] * x[4]);
    if (a <= mu * x[0] && b <= mr * x[0]) return;
    double lo = 0, hi = fabs(x[0]) + a / (mu > 0 ? mu : 1) + b / (mr > 0 ? mr : 1) + 1, n = 0;
    double g0 = -x[0] - mu * a - mr * b; /* derivative at n = 0 */
    if (g0 < 0) {
        for (int it = 0; it < 200 && hi - lo > 0; it++) {
            double mid = 0.5 * (lo + hi);
            if (mid <= lo || mid >= hi) break;
            double g = (mid - x[0]) - mu * fmax(0, a - mu * mid) - mr * fmax(0, b - mr * mid);
            if (g < 0) lo = mid; else hi = mid;
        }
        n = 0.5 * (lo + hi);
    }
    double st = a > mu * n ? (a > 0 ? mu * n / a : 0) : 1, sr = b > mr * n ? (b > 0 ? mr * n / b : 0) : 1;
    x[0] = n; x[1] *= st; x[2] *= st; x[3] *= sr; x[4] *= sr;
}

static double rolling_error_with(const fc_problem *p, const fc_matrix *W, const double *q,
                                 const double *scale, const double *r)
{
    int m = 5 * p->nc;
    double *u = malloc((size_t)m * sizeof *u), e2 = 0;
    check_error_with(p, W, q, scale, r, u); /* only for u = W r + q */
    for (int c = 0; c < p->nc; c++) {
        const double *ra = r + 5 * c, *ua = u + 5 * c;
        double x[5];
        x[0] = ra[0] - ua[0] - p->mu[c] * sqrt(ua[1] * ua[1] + ua[2] * ua[2]) -
               p->mu_r[c] * sqrt(ua[3] * ua[3] + ua[4] * ua[4]);
        for (int k = 1; k < 5; k++) x[k] = ra[k] - ua[k];
        exact_rolling_projection(p->mu[c], p->mu_r[c], x);
        for (int k = 0; k < 5; k++) e2 += (ra[k] - x[k]) * (ra[k] - x[k]);
    }
    double sc = fmax(check_norm(m, scale), fmax(check_norm(m, r), check_norm(m, u)));
    free(u);
    return sqrt(e2) / fmax(sc, 1e-300);
}

static double ipm_check_error(const fc_problem *p, const double *r)
{
    if (p->d != 5) return check_error(p, r);
    if (p->kind == FC_LOCAL) return rolling_error_with(p, p->W, p->q, p->w ? p->w : p->q, r);
    fc_problem *loc = NULL;
    if (fc_problem_reduce(p, &loc, NULL) != FC_OK) return NAN;
    double e = rolling_error_with(p, loc->W, loc->q, p->w, r);
    fc_problem_free(loc);
    return e;
}

#endif
