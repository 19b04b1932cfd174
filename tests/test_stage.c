/* The stage runner (src/core/stage.h): the one time-left rule, a stage's
 * start, budget, record and best iterate, the skips; and the one
 * reduction helper (fc_solve_reduced) against fc_problem_reduce. */
#include "test.h"
#include "check.h"
#include "core/stage.h"
#include "problem/reduce.h"

static void test_time_left(void)
{
    fc_options opt;
    fc_default_options(&opt);
    fc_clock clk;
    opt.time_limit = 0;
    fc_clock_start(&clk, &opt);
    CHECK(fc_time_left(&clk) == 0, "no limit: 0 (none)");
    opt.time_limit = 100;
    fc_clock_start(&clk, &opt);
    double t = fc_time_left(&clk);
    CHECK(t > 99 && t <= 100, "100 s limit: %g left", t);
    opt.time_limit = 1e-12;
    fc_clock_start(&clk, &opt);
    while (!fc_clock_expired(&clk)) {}
    CHECK(fc_time_left(&clk) == FC_TIME_LEFT_FLOOR, "passed limit: the floor, %g", fc_time_left(&clk));
}

static void test_runner(const char *rel)
{
    fc_problem *p = test_load(rel);
    if (!p) return;
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, 8), *u = calloc((size_t)m, 8), *best = calloc((size_t)m, 8);
    fc_options opt;
    fc_default_options(&opt);
    fc_clock clk;
    fc_clock_start(&clk, &opt);
    fc_info info;
    memset(&info, 0, sizeof info);
    fc_stages st;
    fc_stages_init(&st, p, &opt, &clk, &info, best);
    const fc_solver *nsgs = fc_solver_find("nsgs");
    fc_options o = fc_stage_options(&st, 5);
    CHECK(o.max_iter == 5 && o.r0 == NULL && o.progress == NULL && o.time_limit == 0, "stage options");
    CHECK(fc_stage_run(&st, nsgs, NULL, FC_START_COLD, &o, r, u) == 1, "a stage runs");
    CHECK(info.nstages == 1 && !strcmp(info.stages[0].solver, "nsgs") &&
          info.stages[0].iterations == st.stage_iterations && st.iterations == st.stage_iterations,
          "recorded: %d stages", info.nstages);
    double e = check_error(p, r);
    CHECK(fabs(st.err - e) <= 1e-6 * e, "its error %.3e, recomputed %.3e", st.err, e);
    CHECK(st.best_err == st.err && !memcmp(best, r, (size_t)m * 8), "the best iterate kept");
    /* from the best so far: a worse stage (garbage r after a 0-iteration
     * budget is skipped) leaves the best */
    memset(r, 0, (size_t)m * 8);
    o = fc_stage_options(&st, 0);
    CHECK(fc_stage_run(&st, nsgs, NULL, FC_START_BEST, &o, r, u) == 0 && info.nstages == 1,
          "a zero budget: not run, not recorded");
    o = fc_stage_options(&st, 5);
    CHECK(fc_stage_run(&st, nsgs, "again", FC_START_BEST, &o, r, u) == 1 && info.nstages == 2 &&
          !strcmp(info.stages[1].solver, "again") && st.best_err <= info.stages[0].residual,
          "from the best: %.3e after %.3e", st.best_err, info.stages[0].residual);
    CHECK(fc_stage_run(&st, fc_solver_find("lemke"), NULL, FC_START_BEST, &o, r, u) == 0,
          "lemke on d = 3: not run");
    /* an expired clock: nothing runs */
    fc_options lim = opt;
    lim.time_limit = 1e-12;
    fc_clock_start(&clk, &lim);
    while (!fc_clock_expired(&clk)) {}
    o = fc_stage_options(&st, 5);
    CHECK(o.time_limit == FC_TIME_LEFT_FLOOR, "time left at the floor");
    CHECK(fc_stage_run(&st, nsgs, NULL, FC_START_BEST, &o, r, u) == 0, "time up: not run");
    free(r); free(u); free(best);
    fc_problem_free(p);
}

static fc_status nsgs_local(const fc_problem *loc, const fc_options *opt, double *r, double *u,
                            fc_info *info, void *user)
{
    (void)user;
    return fc_solver_find("nsgs")->solve_local(loc, opt, r, u, info);
}

/* Both of fc_solve_reduced's v rules give v = M^-1 (H r + f) of the
 * returned r, as fc_problem_recover_v does. */
static void test_reduced(const char *rel)
{
    fc_problem *p = test_load(rel);
    if (!p) return;
    int m = fc_problem_m(p);
    for (int vf = FC_V_REDUCED_FACTOR; vf <= FC_V_M_FACTOR; vf++) {
        double *r = calloc((size_t)m, 8), *u = calloc((size_t)m, 8);
        double *v = calloc((size_t)p->n, 8), *v2 = calloc((size_t)p->n, 8);
        fc_options opt;
        fc_default_options(&opt);
        opt.max_iter = 20;
        fc_clock clk;
        fc_clock_start(&clk, &opt);
        fc_info info;
        memset(&info, 0, sizeof info);
        fc_error err;
        fc_status st;
        CHECK(fc_solve_reduced(p, &opt, &clk, (fc_v_factor)vf, nsgs_local, NULL, r, u, v, &info, &st,
                               &err) == FC_OK && info.iterations > 0, "reduced solve: %s", err.msg);
        CHECK(fc_problem_recover_v(p, r, v2, &err) == FC_OK, "recover v");
        double d = 0, n = 0;
        for (int i = 0; i < p->n; i++) { d = fmax(d, fabs(v[i] - v2[i])); n = fmax(n, fabs(v2[i])); }
        CHECK(d <= 1e-10 * (n > 0 ? n : 1), "v rule %d: |v - v'| %.3e of %.3e", vf, d, n);
        free(r); free(u); free(v); free(v2);
    }
    fc_problem_free(p);
}

/* A composite run's stages add up to its iterations: ipm-mdp polished
 * (its run, then the polish's stages), auto. */
static void test_recorded(const char *rel, const char *solver, const char *first)
{
    fc_problem *p = test_load(rel);
    if (!p) return;
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, 8), *u = calloc((size_t)m, 8);
    fc_info info;
    fc_error err;
    CHECK(fc_solve(p, solver, NULL, r, u, NULL, &info, &err) == FC_OK, "%s runs: %s", solver, err.msg);
    int sum = 0;
    for (int k = 0; k < info.nstages; k++) sum += info.stages[k].iterations;
    CHECK(info.nstages >= 2 && !strcmp(info.stages[0].solver, first) && sum == info.iterations,
          "%s on %s: %d stages (first %s), %d iterations of %d", solver, rel, info.nstages,
          info.nstages ? info.stages[0].solver : "-", sum, info.iterations);
    free(r); free(u);
    fc_problem_free(p);
}

int main(void)
{
    test_recorded("fc3d/NESpheres_10_1.dat", "ipm-mdp", "ipm-mdp");
    test_recorded("fc3d/KaplasTower-i1061-4.hdf5.dat", "auto", "nsgs");
    test_time_left();
    test_runner("fc3d/Capsules-i122-1617.dat");
    test_reduced("global/Spheres-i099-356-679.hdf5");
    TEST_DONE();
}
