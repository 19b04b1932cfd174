/* The first-order and fixed-point solvers (fpp, eg, vi-fpp, vi-eg, hp,
 * dsfp, tfp, pfp, prox, aclm, apgd, apgd-ccp, nsgs-v) on real problems of
 * ../shared/data: each answer is judged by the independent measure of
 * tests/check.h, and each solver must honour max_iter and time_limit. */
#include "test.h"
#include "check.h"
#include "fricon.h"
#include "core/firstorder.h"

#include <stdio.h>

static const char *solvers[] = {"fpp", "eg", "vi-fpp", "vi-eg", "hp", "dsfp", "tfp",
                                "pfp", "prox", "aclm", "apgd", "nsgs-v"};
#define NSOLVERS ((int)(sizeof solvers / sizeof solvers[0]))
/* the limits are checked on these and on apgd-ccp (a relaxation solver) */
static const char *limited[] = {"fpp", "eg", "vi-fpp", "vi-eg", "hp", "dsfp", "tfp",
                                "pfp", "prox", "aclm", "apgd", "nsgs-v", "apgd-ccp"};
#define NLIMITED ((int)(sizeof limited / sizeof limited[0]))


/* Solve p with solver s and options o; returns the independent measure
 * of the returned r (r, u, info filled). */
static double run(const fc_problem *p, const char *s, const fc_options *o, double *r,
                  double *u, fc_info *info)
{
    fc_error err;
    fc_err e = fc_solve(p, s, o, r, u, NULL, info, &err);
    CHECK(e == FC_OK, "%s on %s: %s", s, p->name, err.msg);
    return check_error(p, r);
}

/* Every solver converges to 1e-8 on a problem it is expected to solve
 * (with tresca.inner_solver = gs_inner for tfp and pfp).  The convergence
 * checks here are iteration-limited only: a time limit made them depend on
 * the machine's load (they flaked on loaded CI machines). */
static void test_converges_with(const char *rel, const char **list, int n, int tresca_inner)
{
    fc_problem *p = test_load(rel);
    if (!p) return;
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    for (int i = 0; i < n; i++) {
        fc_options o;
        fc_default_options(&o);
        o.tresca.inner_solver = tresca_inner;
        fc_info info;
        double e = run(p, list[i], &o, r, u, &info);
        /* 1e-8 is the target; the independent measure may differ from the
         * library's in the last bits only (summation order) */
        CHECK(info.status == FC_CONVERGED && e <= 1e-8 * (1 + 1e-6),
              "%s on %s: %s after %d iterations, measure %.3e (library %.3e) %s", list[i], rel,
              fc_status_name(info.status), info.iterations, e, info.residual, info.message);
    }
    free(r);
    free(u);
    fc_problem_free(p);
}

static void test_converges(const char *rel, const char **list, int n)
{
    fc_options o;
    fc_default_options(&o);
    test_converges_with(rel, list, n, o.tresca.inner_solver);
}

/* apgd-ccp, and ipm with ipm.convex = 1, solve the relaxation: its own
 * residual, recomputed here, reaches 1e-8 on every small problem (ipm
 * stops on it too: on its scaled gap alone it stopped at 5.2e-7 on
 * NESpheres_10_1; before that it returned its iterate nearest to
 * Coulomb's law, 8.7e-3 there), while the Coulomb measure is judged
 * honestly. */
static void test_relaxation(const char *rel)
{
    fc_problem *p = test_load(rel);
    if (!p) return;
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    const char *names[] = {"apgd-ccp", "ipm"};
    for (int k = 0; k < 2; k++) {
        fc_options o;
        fc_default_options(&o);
        o.ipm.convex = 1;
        fc_info info;
        double e = run(p, names[k], &o, r, u, &info);
        double ec = check_relaxation_error(p, r);
        double tol = 1e-8;
        printf("%-8s relaxation of %s: residual %.2e (%d iterations)\n", names[k], rel, ec, info.iterations);
        CHECK(ec <= tol * (1 + 1e-6), "%s on %s: relaxation residual %.3e", names[k], rel, ec);
        CHECK((info.status == FC_CONVERGED) == (e <= 1e-8 * (1 + 1e-6)),
              "%s on %s: status %s but Coulomb measure %.3e", names[k], rel,
              fc_status_name(info.status), e);
    }
    free(r);
    free(u);
    fc_problem_free(p);
}

/* max_iter = 3 stops every solver after at most 3 (outer) iterations. */
static void test_max_iter(const char *rel)
{
    fc_problem *p = test_load(rel);
    if (!p) return;
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    for (int i = 0; i < NLIMITED; i++) {
        fc_options o;
        fc_default_options(&o);
        o.max_iter = 3;
        fc_info info;
        double e = run(p, limited[i], &o, r, u, &info);
        CHECK(info.iterations <= 3, "%s: %d iterations with max_iter 3", limited[i],
              info.iterations);
        CHECK(info.status == FC_MAX_ITER || (info.status == FC_CONVERGED && e <= 1e-8 * (1 + 1e-6)),
              "%s: status %s with max_iter 3, measure %.3e", limited[i],
              fc_status_name(info.status), e);
    }
    free(r);
    free(u);
    fc_problem_free(p);
}

/* A progress callback that asks to stop at the second call. */
static int stop_at_two(void *user, int iteration, double error)
{
    int *calls = user;
    (void)iteration;
    (void)error;
    return ++*calls >= 2;
}

/* The progress callback is called once per outer iteration and stops the
 * solve (status max-iter) when it returns nonzero. */
static void test_progress(const char *rel)
{
    fc_problem *p = test_load(rel);
    if (!p) return;
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    for (int i = 0; i < NLIMITED; i++) {
        if (!strcmp(limited[i], "nsgs-v")) continue;   /* nsgs on a local problem */
        fc_options o;
        fc_default_options(&o);
        int calls = 0;
        o.progress = stop_at_two;
        o.progress_user = &calls;
        fc_info info;
        double e = run(p, limited[i], &o, r, u, &info);
        CHECK(calls == 2 || (info.status == FC_CONVERGED && e <= 1e-8 * (1 + 1e-6)),
              "%s: %d progress calls", limited[i], calls);
        CHECK(info.status == FC_MAX_ITER && info.iterations <= 2, "%s: %s after %d iterations",
              limited[i], fc_status_name(info.status), info.iterations);
    }
    free(r);
    free(u);
    fc_problem_free(p);
}

/* A time limit of 0.05 s is honoured (a generous 0.5 s slack for one
 * inner solve or one reading of the clock on a loaded machine). */
static void test_time_limit(const char *rel)
{
    fc_problem *p = test_load(rel);
    if (!p) return;
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    for (int i = 0; i < NLIMITED; i++) {
        fc_options o;
        fc_default_options(&o);
        o.time_limit = 0.05;
        fc_info info;
        double e = run(p, limited[i], &o, r, u, &info);
        CHECK(info.seconds <= 0.55, "%s: %.3f s with a 0.05 s limit", limited[i], info.seconds);
        /* apgd-ccp may end on its relaxation's residual first (max-iter) */
        int relax_done = !strcmp(limited[i], "apgd-ccp") && info.status == FC_MAX_ITER;
        CHECK(info.status == FC_TIME_LIMIT || relax_done ||
                  (info.status == FC_CONVERGED && e <= 1e-8 * (1 + 1e-6)),
              "%s: status %s with a 0.05 s limit", limited[i], fc_status_name(info.status));
    }
    free(r);
    free(u);
    fc_problem_free(p);
}

/* The bookkeeping every solver shares: a non-finite iterate stops the
 * run with FC_DIVERGED and the last finite (best) iterate is returned. */
static void test_diverged(void)
{
    fc_problem *p = test_load("fc3d/Rover1039.dat");
    if (!p) return;
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    fc_options o;
    fc_default_options(&o);
    fo_run R;
    CHECK(fo_run_begin(&R, p, &o, 0, 1, 1e-8, 100, NULL, r) == 0, "fo_run_begin");
    for (int i = 0; i < m; i++) r[i] = 1.0 + i;
    CHECK(fo_run_check(&R, 0, r, 0.5) == -1, "a finite iterate goes on");
    r[2] = NAN;
    int st = fo_run_check(&R, 1, r, NAN);
    CHECK(st == FC_DIVERGED, "a NaN iterate gives %d", st);
    fo_run_end(&R, st, r, u);
    int ok = 1;
    for (int i = 0; i < m; i++) ok &= r[i] == 1.0 + i && isfinite(u[i]);
    CHECK(ok, "the last finite iterate is returned");
    free(r);
    free(u);
    fc_problem_free(p);
}

/* nsgs-v on global problems (velocity form) against the independent
 * measure of the reduced problem and the dynamics residual. */
static void test_nsgs_v_global(const char *rel)
{
    fc_problem *p = test_load(rel);
    if (!p) return;
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    double *v = calloc((size_t)p->n, sizeof *v);
    fc_options o;
    fc_default_options(&o);
    fc_info info;
    fc_error err;
    CHECK(fc_solve(p, "nsgs-v", &o, r, u, v, &info, &err) == FC_OK, "nsgs-v: %s", err.msg);
    double e = check_error(p, r);
    CHECK(info.status == FC_CONVERGED && e <= 1e-8 * (1 + 1e-6) && info.dyn_residual <= 1e-8,
          "nsgs-v on %s: %s, measure %.3e, dynamics %.3e", rel, fc_status_name(info.status), e,
          info.dyn_residual);
    free(r);
    free(u);
    free(v);
    fc_problem_free(p);
}

/* The plain projection methods (fp.anderson = 0, as in the seed) still
 * solve the small problems. */
static void test_plain(const char *rel)
{
    static const char *plain[] = {"fpp", "eg", "vi-fpp", "vi-eg", "hp", "dsfp"};
    fc_problem *p = test_load(rel);
    if (!p) return;
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    for (int i = 0; i < 6; i++) {
        fc_options o;
        fc_default_options(&o);
        o.fp.anderson = 0;
        fc_info info;
        double e = run(p, plain[i], &o, r, u, &info);
        CHECK(info.status == FC_CONVERGED && e <= 1e-8 * (1 + 1e-6),
              "plain %s on %s: %s after %d iterations, measure %.3e", plain[i], rel,
              fc_status_name(info.status), info.iterations, e);
    }
    free(r);
    free(u);
    fc_problem_free(p);
}

/* The inner-tolerance strategies of the seed. */
static void test_inner_tol(void)
{
    fc_inner_options io = {FC_INNER_TOL_GIVEN, 1e-7, 10.0, 100};
    CHECK(fo_inner_tol(&io, 1e-3, 50, 1e-8) == 1e-7, "given value");
    io.strategy = FC_INNER_TOL_ADAPTIVE;
    CHECK_NEAR(fo_inner_tol(&io, 1e-3, 50, 1e-8), 1e-4, 1e-18, "error / ratio");
    CHECK_NEAR(fo_inner_tol(&io, 1e-12, 50, 1e-8), 1e-9, 1e-22, "floor 0.1 tol");
    io.strategy = FC_INNER_TOL_ADAPTIVE_NC;
    CHECK_NEAR(fo_inner_tol(&io, 1e-3, 50, 1e-8), 2e-6, 1e-18, "error / (ratio nc)");
}

/* prox.max_sweeps bounds prox's inner iterations in all (auto's budget
 * for its prox stage): on BoxesStack1, which prox solves in about 9000
 * sweeps, a budget of 40 stops it with max-iter after at most 40, as its
 * message reports; without the budget it converges. */
static void test_prox_sweeps(void)
{
    fc_problem *p = test_load("fc3d/BoxesStack1-i100000-32.hdf5.dat");
    if (!p) return;
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    fc_options o;
    fc_default_options(&o);
    o.prox.max_sweeps = 40;
    fc_info info;
    run(p, "prox", &o, r, u, &info);
    long sweeps = -1;
    CHECK(sscanf(info.message, "prox: %ld inner", &sweeps) == 1 && sweeps <= 40 && sweeps > 0,
          "prox.max_sweeps 40: '%s'", info.message);
    CHECK(info.status == FC_MAX_ITER, "prox.max_sweeps 40: %s", fc_status_name(info.status));
    free(r);
    free(u);
    fc_problem_free(p);
}

int main(void)
{
    const char *small[] = {"fc3d/FC3D_Example1.dat", "fc3d/Rover1039.dat", "fc3d/Rover11035.dat",
                           "fc3d/Rover4396.dat", "fc3d/NESpheres_10_1.dat"};
    for (int i = 0; i < 5; i++) {
        test_converges(small[i], solvers, NSOLVERS);
        test_relaxation(small[i]);
        const char *tresca[] = {"tfp", "pfp"};   /* their Gauss-Seidel inner solver */
        test_converges_with(small[i], tresca, 2, 0);
        test_plain(small[i]);
    }
    /* the solvers that solve the larger shared problems within seconds */
    /* hp stalls within a hair of 1e-8 on OneObject (measured: 9.9e-9 after
     * 4590 iterations or 1.02e-8 after 100000, as the last bits of the norms
     * fall; 8.8e-9 at best with tol 5e-9): it is measured in bench/ */
    const char *oneobject[] = {"fpp", "eg", "vi-fpp", "vi-eg", "dsfp", "tfp",
                               "pfp", "prox", "aclm", "apgd", "nsgs-v"};
    test_converges("fc3d/OneObject-i1028-138.hdf5.dat", oneobject, 11);
    /* hp (8e-8 after 100000 iterations) and pfp (5 s) are measured in bench/ */
    const char *boxes[] = {"fpp", "eg", "vi-fpp", "vi-eg", "dsfp", "tfp",
                           "prox", "aclm", "apgd", "apgd-ccp", "nsgs-v"};
    test_converges("fc3d/BoxesStack1-i100000-32.hdf5.dat", boxes, 11);
    test_max_iter("fc3d/NESpheres_10_1.dat");
    test_progress("fc3d/NESpheres_10_1.dat");
    test_time_limit("fc3d/Capsules-i122-1617.dat");
    test_diverged();
    test_nsgs_v_global("global/GFC3D_TwoRods1.dat");
    test_nsgs_v_global("global/Box_Stacks-i0122-82-5.hdf5");
    test_nsgs_v_global("global/gfc2d_granularflowonwall_00069_00350.dat");
    test_nsgs_v_global("global/spheres-in-a-box-98-i10000-256-10.hdf5"); /* needs Anderson */
    test_nsgs_v_global("rolling/Chute-ndof-768-nc-4-3.hdf5");  /* M not symmetric */
    test_inner_tol();
    test_prox_sweeps();
    TEST_DONE();
}
