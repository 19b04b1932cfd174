/* Interior point and ADMM building blocks and solvers on problems built
 * here: the SOC Jordan algebra and Nesterov-Todd scaling (G y = G^-1 x,
 * G^-2 as a matrix), the step to the boundary, and ipm / admm / gipm /
 * gadmm on random local and global problems, checked with the independent
 * measure of tests/check.h; limits (max_iter) honoured. */
#include "test.h"
#include "check.h"
#include "fricon.h"
#include "cone/soc.h"

static double rnd(unsigned long *s)
{
    *s = *s * 6364136223846793005UL + 1442695040888963407UL;
    return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static void test_soc(void)
{
    unsigned long s = 7;
    for (int t = 0; t < 50; t++) {
        int k = 2 + t % 3;
        double x[4], y[4], nt[5], lam[4], a[4], b[4], blk[16];
        for (int i = 1; i < k; i++) { x[i] = rnd(&s); y[i] = rnd(&s); }
        double nx = 0, ny = 0;
        for (int i = 1; i < k; i++) { nx += x[i] * x[i]; ny += y[i] * y[i]; }
        x[0] = sqrt(nx) + 0.1 + fabs(rnd(&s));
        y[0] = sqrt(ny) + 1e-3 + fabs(rnd(&s));
        fc_soc_nt(k, x, y, nt, lam);
        fc_soc_nt_apply(k, nt, 1, x, a); /* G^-1 x must equal lambda = G y */
        for (int i = 0; i < k; i++) CHECK_NEAR(a[i], lam[i], 1e-10 * (1 + fabs(lam[i])), "G^-1 x = G y");
        /* G^-2 matrix = G^-1 G^-1 applied to y */
        fc_soc_nt_inv2(k, nt, blk);
        fc_soc_nt_apply(k, nt, 1, y, a);
        fc_soc_nt_apply(k, nt, 1, a, b);
        for (int i = 0; i < k; i++) {
            double v = 0;
            for (int j = 0; j < k; j++) v += blk[j * k + i] * y[j];
            CHECK_NEAR(v, b[i], 1e-9 * (1 + fabs(b[i])), "G^-2 block");
        }
        /* l o (l \ r) = r */
        fc_soc_div(k, lam, x, a);
        fc_soc_prod(k, lam, a, b);
        for (int i = 0; i < k; i++) CHECK_NEAR(b[i], x[i], 1e-9 * (1 + fabs(x[i])), "division");
        /* step to the boundary lands on it */
        double dx[4];
        for (int i = 0; i < k; i++) dx[i] = 3 * rnd(&s);
        double al = fc_soc_max_step(k, x, dx, 1e6);
        if (al < 1e6) {
            for (int i = 0; i < k; i++) a[i] = x[i] + al * dx[i];
            CHECK(fabs(fc_soc_depth(k, a)) <= 1e-9 * (1 + fabs(a[0])), "boundary at the max step: %g", fc_soc_depth(k, a));
        }
    }
}

/* A random local problem W = B B' + 0.1 I (dense), q random, mu in [0.1, 0.9]. */
static fc_problem *random_local(int nc, unsigned long *s)
{
    int m = 3 * nc;
    fc_problem *p = fc_problem_new(FC_LOCAL, 3, nc);
    fc_matrix *B = fc_matrix_dense(m, m), *W = fc_matrix_dense(m, m);
    for (long i = 0; i < (long)m * m; i++) B->x[i] = rnd(s);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            double v = i == j ? 0.1 : 0.0;
            for (int k = 0; k < m; k++) v += B->x[k * m + i] * B->x[k * m + j] / m;
            W->x[j * m + i] = v;
        }
    fc_matrix_free(B);
    p->W = W;
    p->q = calloc((size_t)m, sizeof *p->q);
    for (int i = 0; i < m; i++) p->q[i] = rnd(s);
    for (int a = 0; a < nc; a++) p->mu[a] = 0.5 + 0.4 * rnd(s);
    return p;
}

/* Rolling friction (d = 5): admm (the projection onto the rolling cone is
 * all it needs) on random problems; ipm refuses d = 5 cleanly. */
static void test_rolling(void)
{
    unsigned long s = 5;
    for (int t = 0; t < 4; t++) {
        int nc = 3 + t, d = 5, m = d * nc;
        fc_problem *p = fc_problem_new(FC_LOCAL, d, nc);
        fc_matrix *B = fc_matrix_dense(m, m), *W = fc_matrix_dense(m, m);
        for (long i = 0; i < (long)m * m; i++) B->x[i] = rnd(&s);
        for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++) {
                double v = i == j ? 0.2 : 0.0;
                for (int k = 0; k < m; k++) v += B->x[k * m + i] * B->x[k * m + j] / m;
                W->x[j * m + i] = v;
            }
        fc_matrix_free(B);
        p->W = W;
        p->q = calloc((size_t)m, sizeof *p->q);
        for (int i = 0; i < m; i++) p->q[i] = rnd(&s);
        for (int a = 0; a < nc; a++) { p->mu[a] = 0.5 + 0.3 * rnd(&s); p->mu_r[a] = 0.1 + 0.05 * rnd(&s); }
        double *r = calloc((size_t)m, 8), *u = calloc((size_t)m, 8);
        fc_options opt;
        fc_default_options(&opt);
        opt.max_iter = 20000;
        opt.time_limit = 10;
        fc_info info;
        fc_error err;
        CHECK(fc_solve(p, "admm", &opt, r, u, NULL, &info, &err) == FC_OK, "admm d=5 runs: %s", err.msg);
        double e = check_error(p, r);
        printf("rolling %d admm %-9s it %5d residual %.2e (library %.2e)\n", t, fc_status_name(info.status),
               info.iterations, e, info.residual);
        CHECK(info.status == FC_CONVERGED && e <= 1e-8, "admm on rolling problem %d: %.3e (%s)", t, e, info.message);
        CHECK(fc_solve(p, "ipm", &opt, r, u, NULL, &info, &err) != FC_OK, "ipm refuses d = 5");
        free(r); free(u);
        fc_problem_free(p);
    }
}

/* Random global problems: M = B B' / n + I (n = m + 3), H dense random,
 * f and w random: gipm (every formulation) and gadmm directly on (M, H),
 * judged with check.h's own reduction. */
static void test_global(void)
{
    unsigned long s = 23;
    for (int t = 0; t < 4; t++) {
        int nc = 3 + 2 * t, m = 3 * nc, n = m + 3;
        fc_problem *p = fc_problem_new(FC_GLOBAL, 3, nc);
        p->n = n;
        fc_matrix *B = fc_matrix_dense(n, n), *M = fc_matrix_dense(n, n), *H = fc_matrix_dense(n, m);
        for (long i = 0; i < (long)n * n; i++) B->x[i] = rnd(&s);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double v = i == j ? 1.0 : 0.0;
                for (int k = 0; k < n; k++) v += B->x[k * n + i] * B->x[k * n + j] / n;
                M->x[j * n + i] = v;
            }
        fc_matrix_free(B);
        for (long i = 0; i < (long)n * m; i++) H->x[i] = rnd(&s);
        p->M = M;
        p->H = H;
        p->f = calloc((size_t)n, sizeof *p->f);
        p->w = calloc((size_t)m, sizeof *p->w);
        for (int i = 0; i < n; i++) p->f[i] = rnd(&s);
        for (int i = 0; i < m; i++) p->w[i] = 0.1 * rnd(&s);
        for (int a = 0; a < nc; a++) p->mu[a] = 0.2 + 0.6 * fabs(rnd(&s));
        double r[64], u[64], v[64];
        const char *names[5] = {"gipm", "gipm", "gipm", "gipm", "gadmm"};
        int forms[5] = {FC_IPM_AUTO, FC_IPM_DUAL, FC_IPM_PRIMAL, FC_IPM_EQUILIBRIUM, 0};
        for (int k = 0; k < 5; k++) {
            fc_options opt;
            fc_default_options(&opt);
            opt.ipm.formulation = forms[k];
            opt.max_iter = 20000;
            opt.time_limit = 10;
            fc_info info;
            fc_error err;
            CHECK(fc_solve(p, names[k], &opt, r, u, v, &info, &err) == FC_OK, "%s runs: %s", names[k], err.msg);
            double e = check_error(p, r);
            printf("global %d %-5s form %d %-9s it %5d residual %.2e\n", t, names[k], forms[k],
                   fc_status_name(info.status), info.iterations, e);
            CHECK(info.status == FC_CONVERGED && e <= 1e-8, "%s form %d on random global problem %d: %s %.3e (%s)",
                  names[k], forms[k], t, fc_status_name(info.status), e, info.message);
        }
        fc_problem_free(p);
    }
}

/* A factorisation that cannot end within the time limit is not started:
 * with a limit of 1e-9 s, admm (on W) and gadmm (on M, H) stop before
 * their first iteration, status time-limit, returning the guess (r = 0).
 * admm on a global problem works on the reduced W, under the time left
 * after the reduction (fc_time_left: at least 1e-9 s; 1 ms before the
 * one time-left rule): its factorisation is refused there
 * (column500-step2: 1.6e8 flops), or, with the conjugate gradients
 * (admm.linear's default from 1500 contacts, column500-step2's 1515), its
 * first iteration is not started.
 * Before, both factorised and ran one iteration whatever the limit: with
 * a 1-s limit on the 36536-contact column, 5.6 s and 5.4 s. */
static void test_factor_refused(const char *path, const char *solver)
{
    fc_problem *p = test_read(path);
    if (!p) return;
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, 8), *u = calloc((size_t)m, 8);
    double *v = calloc(p->n > 0 ? (size_t)p->n : 1, 8);
    fc_options opt;
    fc_default_options(&opt);
    opt.time_limit = 1e-9;
    fc_info info;
    fc_error err;
    CHECK(fc_solve(p, solver, &opt, r, u, p->n > 0 ? v : NULL, &info, &err) == FC_OK, "%s runs: %s",
          solver, err.msg);
    printf("%s with a 1e-9 s limit: %s after %d iterations (%s)\n", solver,
           fc_status_name(info.status), info.iterations, info.message);
    CHECK(info.status == FC_TIME_LIMIT && info.iterations == 0,
          "%s with a 1e-9 s limit on %s: %s after %d iterations", solver, path,
          fc_status_name(info.status), info.iterations);
    double rn = 0;
    for (int i = 0; i < m; i++) rn = fmax(rn, fabs(r[i]));
    CHECK(rn == 0, "%s with a 1e-9 s limit on %s: r moved from the guess (%.3e)", solver, path, rn);
    free(r); free(u); free(v);
    fc_problem_free(p);
}

/* ipm.shift_start: gipm's first cone QP takes its De Saxce shift from the
 * guess.  From a 1e-9 solution of the bundled pile step (nncg), one cone
 * QP (ipm.max_outer = 1) with that shift reaches 1e-5 (measured 3e-6 in
 * 12 steps); with the default shift s = 0 the same single QP stays far
 * from Coulomb's law (3.5e-2): the option is what makes the difference. */
static void test_shift_start(void)
{
    fc_problem *p = test_read(FRICON_EXAMPLES "/pile300-step30.hdf5");
    if (!p) return;
    int m = fc_problem_m(p);
    double *r0 = calloc((size_t)m, 8), *r = calloc((size_t)m, 8), *u = calloc((size_t)m, 8);
    double *v = calloc((size_t)p->n, 8);
    fc_options opt;
    fc_info info;
    fc_error err;
    fc_default_options(&opt);
    opt.tolerance = 1e-9;
    opt.time_limit = 60;
    CHECK(fc_solve(p, "nncg", &opt, r0, u, v, &info, &err) == FC_OK, "nncg runs: %s", err.msg);
    double e0 = check_error(p, r0);
    CHECK(e0 <= 1e-9 * (1 + 1e-6), "nncg reference on pile300-step30: %.3e", e0);
    for (int k = 1; k >= 0; k--) {
        fc_default_options(&opt);
        opt.tolerance = 1e-5;
        opt.time_limit = 60;
        opt.ipm.max_outer = 1;
        opt.ipm.shift_start = k;
        opt.r0 = r0;
        CHECK(fc_solve(p, "gipm", &opt, r, u, v, &info, &err) == FC_OK, "gipm runs: %s", err.msg);
        double e = check_error(p, r);
        printf("pile300-step30 gipm one cone QP, shift_start %d: %s after %d steps, %.3e\n", k,
               fc_status_name(info.status), info.iterations, e);
        if (k)
            CHECK(info.status == FC_CONVERGED && e <= 1e-5, "shift from the guess: %s %.3e (%s)",
                  fc_status_name(info.status), e, info.message);
        else
            CHECK(e > 1e-3, "shift 0, one cone QP: %.3e, expected far from Coulomb's law", e);
    }
    free(r0); free(r); free(u); free(v);
    fc_problem_free(p);
}

int main(void)
{
    test_shift_start();
    test_factor_refused(FRICON_EXAMPLES "/column500-step2.hdf5", "admm");
    test_factor_refused(FRICON_EXAMPLES "/column500-step2.hdf5", "gadmm");
    test_factor_refused(FRICON_SHARED_DATA "/fc3d/KaplasTower-i1061-4.hdf5.dat", "admm");
    test_factor_refused(FRICON_SHARED_DATA "/global/Spheres-i099-356-679.hdf5", "gadmm");
    test_soc();
    test_rolling();
    test_global();
    unsigned long s = 11;
    const char *solvers[] = {"ipm", "admm", "ipm"};
    const int forms[] = {FC_IPM_AUTO, FC_IPM_AUTO, FC_IPM_EQUILIBRIUM};
    for (int t = 0; t < 6; t++) {
        fc_problem *p = random_local(4 + t, &s);
        int m = fc_problem_m(p);
        double *r = calloc((size_t)m, 8), *u = calloc((size_t)m, 8);
        for (int k = 0; k < 3; k++) {
            fc_options opt;
            fc_default_options(&opt);
            opt.ipm.formulation = forms[k];
            opt.max_iter = 20000;
            opt.time_limit = 10;
            fc_info info;
            fc_error err;
            CHECK(fc_solve(p, solvers[k], &opt, r, u, NULL, &info, &err) == FC_OK, "%s runs", solvers[k]);
            double e = check_error(p, r);
            printf("random %d %-5s form %d %-9s it %5d residual %.2e\n", t, solvers[k], forms[k],
                   fc_status_name(info.status), info.iterations, e);
            CHECK(info.status == FC_CONVERGED && e <= 1e-8, "%s on random problem %d: %s %.3e (%s)",
                  solvers[k], t, fc_status_name(info.status), e, info.message);
            /* the iteration limit is honoured */
            opt.max_iter = 3;
            fc_solve(p, solvers[k], &opt, r, u, NULL, &info, &err);
            CHECK(info.iterations <= 3, "%s max_iter 3: %d iterations", solvers[k], info.iterations);
        }
        free(r); free(u);
        fc_problem_free(p);
    }
    TEST_DONE();
}
