/* fc_kkt_solve's iterative refinement: a factor far from the matrix
 * (a regularisation it cannot absorb) makes refinement diverge; the solve
 * keeps its best x and stops instead of running its steps to 1e115. */
#include "test.h"
#include "linsys/linsys.h"

static double residual(const double *a, const double *b, const double *x, int n)
{
    double r = 0;
    for (int i = 0; i < n; i++) r = fmax(r, fabs(b[i] - a[i] * x[i]));
    return r;
}

int main(void)
{
    /* A = diag(1, 2, 3), factorised as A + diag(-0.6, 0, 0): the
     * correction multiplies the first error by 1 - 1 / 0.4 = -1.5 each
     * step, the other two are exact */
    enum { n = 3 };
    int ti[n] = {0, 1, 2}, tj[n] = {0, 1, 2};
    double a[n] = {1, 2, 3}, reg[n] = {-0.6, 0, 0}, b[n] = {1, 1, 1}, x[n];
    fc_error err;
    for (int quasidef = 0; quasidef < 2; quasidef++) {
        fc_kkt *K = fc_kkt_new(n, n, ti, tj, a, quasidef, &err);
        CHECK(K != NULL, "fc_kkt_new: %s", err.msg);
        if (!K) continue;
        CHECK(fc_kkt_factor(K, reg, &err) == FC_OK, "factor: %s", err.msg);
        /* the first solve alone: x_0 = (2.5, 0.5, 1/3), residual 1.5 */
        CHECK(fc_kkt_solve(K, b, x, 0, &err) == FC_OK, "%s", err.msg);
        double r0 = residual(a, b, x, n);
        CHECK_NEAR(r0, 1.5, 1e-12, "unrefined residual");
        /* 200 steps: the residual would reach 1.5^201 = 1e35; the best x is kept */
        CHECK(fc_kkt_solve(K, b, x, 200, &err) == FC_OK, "%s", err.msg);
        double r = residual(a, b, x, n);
        CHECK(isfinite(r) && r <= r0 * (1 + 1e-12), "refined residual %.3e (unrefined %.3e)", r, r0);
        CHECK(fc_kkt_solve_residual(K) <= 1.5 * (1 + 1e-12), "reported residual %.3e", fc_kkt_solve_residual(K));
        CHECK_NEAR(x[1], 0.5, 1e-15, "exact component");
        /* an exact factor: refinement converges as before */
        CHECK(fc_kkt_factor(K, NULL, &err) == FC_OK, "factor: %s", err.msg);
        CHECK(fc_kkt_solve(K, b, x, 200, &err) == FC_OK, "%s", err.msg);
        CHECK(residual(a, b, x, n) <= 1e-15, "exact factor residual %.3e", residual(a, b, x, n));
        fc_kkt_free(K);
    }
    TEST_DONE();
}
