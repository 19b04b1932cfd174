/* The 2D solvers lemke, enum and cpg: hand-derived one-contact answers
 * (separated, sticking, sliding both ways), random problems (full rank and
 * rank-deficient W, degenerate q) where each solver's answer is judged by
 * the independent measure of check.h, every problem of shared/data/fc2d,
 * enum's size guard, and the limits (max_iter, time_limit, progress). */
#include "test.h"
#include "check.h"
#include "fricon.h"

#include <stdio.h>

static double next_rand(unsigned long *s)
{
    *s = *s * 6364136223846793005UL + 1442695040888963407UL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* A local 2D problem from a dense column-major W. */
static fc_problem *make_local(int nc, const double *W, const double *q, const double *mu)
{
    int m = 2 * nc;
    fc_problem *p = fc_problem_new(FC_LOCAL, 2, nc);
    fc_matrix *Wd = fc_matrix_dense(m, m);
    memcpy(Wd->x, W, (size_t)m * m * sizeof *W);
    p->W = fc_matrix_to_csr(Wd);
    fc_matrix_free(Wd);
    p->q = malloc((size_t)m * sizeof *p->q);
    memcpy(p->q, q, (size_t)m * sizeof *q);
    memcpy(p->mu, mu, (size_t)nc * sizeof *mu);
    return p;
}

/* W = J J^T (+ eps I) with J m x k; q random, a share of it exactly zero
 * (degenerate); mu in [0.1, 1]. */
static fc_problem *random_problem(int nc, int k, double eps, double zero_share, unsigned long *seed)
{
    int m = 2 * nc;
    double *J = malloc((size_t)m * k * sizeof *J), *W = calloc((size_t)m * m, sizeof *W);
    double *q = malloc((size_t)m * sizeof *q), *mu = malloc((size_t)nc * sizeof *mu);
    for (long i = 0; i < (long)m * k; i++) J[i] = next_rand(seed) < 0.3 ? 2 * next_rand(seed) - 1 : 0;
    for (int i = 0; i < m; i++) J[i + (long)m * (i % k)] += 1.0; /* no zero row */
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            double s = i == j ? eps : 0;
            for (int l = 0; l < k; l++) s += J[i + (long)m * l] * J[j + (long)m * l];
            W[i + (long)m * j] = s;
        }
    for (int i = 0; i < m; i++) q[i] = next_rand(seed) < zero_share ? 0.0 : 2 * next_rand(seed) - 1;
    for (int a = 0; a < nc; a++) mu[a] = 0.1 + 0.9 * next_rand(seed);
    fc_problem *p = make_local(nc, W, q, mu);
    free(J); free(W); free(q); free(mu);
    return p;
}

/* Solve and return the independent residual (NAN on a library error). */
static double solve_check(const fc_problem *p, const char *solver, const fc_options *opt,
                          double *r, fc_info *info)
{
    int m = fc_problem_m(p);
    double *u = malloc((size_t)m * sizeof *u);
    fc_error err;
    fc_err e = fc_solve(p, solver, opt, r, u, NULL, info, &err);
    free(u);
    if (e != FC_OK) { fprintf(stderr, "%s: %s\n", solver, err.msg); return NAN; }
    return check_error(p, r);
}

static int stop_now(void *user, int it, double e) { (void)e; return it >= *(int *)user; }

static void one_contact(void)
{
    /* W = I, mu = 0.5: u = r + q */
    double W[4] = {1, 0, 0, 1}, mu[1] = {0.5}, r[2];
    struct { double q[2], r[2]; const char *law; } cases[] = {
        {{1, 3}, {0, 0}, "separated"},
        {{-1, 0.2}, {1, -0.2}, "sticking"},
        {{-1, 2}, {1, -0.5}, "sliding u_T > 0"},
        {{-2, -3}, {2, 1}, "sliding u_T < 0"},
    };
    const char *solvers[] = {"lemke", "enum", "cpg"};
    fc_options opt;
    fc_default_options(&opt);
    for (int c = 0; c < 4; c++) {
        fc_problem *p = make_local(1, W, cases[c].q, mu);
        for (int s = 0; s < 3; s++) {
            fc_info info;
            double e = solve_check(p, solvers[s], &opt, r, &info);
            /* pivoting: exact up to round-off; cpg to its tolerance 1e-8 */
            double tol = s < 2 ? 1e-14 : 1e-7;
            CHECK(info.status == FC_CONVERGED && e <= opt.tolerance, "%s on %s: status %s, error %g",
                  solvers[s], cases[c].law, fc_status_name(info.status), e);
            CHECK(fabs(r[0] - cases[c].r[0]) <= tol && fabs(r[1] - cases[c].r[1]) <= tol,
                  "%s on %s: r = (%.17g, %.17g), expected (%g, %g)", solvers[s], cases[c].law,
                  r[0], r[1], cases[c].r[0], cases[c].r[1]);
        }
        fc_problem_free(p);
    }
}

static void random_problems(void)
{
    unsigned long seed = 7;
    fc_options opt;
    fc_default_options(&opt);
    opt.time_limit = 10;
    struct { int nc, rank; double eps, zeros; } kinds[] = {
        {3, 6, 1e-3, 0.0}, {5, 4, 0.0, 0.3}, {5, 10, 0.1, 0.5}, {6, 8, 0.0, 0.0},
        {40, 50, 1e-2, 0.3}, {150, 200, 0.0, 0.2}, {150, 400, 1e-3, 0.6},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (int rep = 0; rep < 3; rep++) {
            fc_problem *p = random_problem(kinds[k].nc, kinds[k].rank, kinds[k].eps, kinds[k].zeros, &seed);
            int m = fc_problem_m(p);
            double *r = malloc((size_t)m * sizeof *r);
            fc_info info;
            double e = solve_check(p, "lemke", &opt, r, &info);
            /* a PSD W and Lemke: a solution exists (r = 0 is feasible for the
             * dual), the pivoting answer is exact up to round-off */
            CHECK(info.status == FC_CONVERGED && e <= 1e-10,
                  "lemke, random nc=%d rank=%d eps=%g: status %s, error %g (%s)", kinds[k].nc,
                  kinds[k].rank, kinds[k].eps, fc_status_name(info.status), e, info.message);
            if (4 * kinds[k].nc <= 24) {
                /* each basis tried is an iteration: 8^6 = 262144 law bases for
                 * 6 contacts, more than the default max_iter */
                fc_options oe = opt;
                oe.max_iter = 1000000;
                e = solve_check(p, "enum", &oe, r, &info);
                CHECK(info.status == FC_CONVERGED && e <= 1e-10,
                      "enum, random nc=%d: status %s, error %g (%s)", kinds[k].nc,
                      fc_status_name(info.status), e, info.message);
            }
            if (kinds[k].eps > 0) { /* cpg needs a well-posed QP */
                e = solve_check(p, "cpg", &opt, r, &info);
                CHECK(info.status == FC_CONVERGED && e <= opt.tolerance,
                      "cpg, random nc=%d rank=%d eps=%g: status %s, error %g", kinds[k].nc,
                      kinds[k].rank, kinds[k].eps, fc_status_name(info.status), e);
            }
            free(r);
            fc_problem_free(p);
        }
}

static void shared_problems(void)
{
    const char *files[] = {"FC2D_SliderCrankLagrangian00000.dat", "FrictionContactProblem00071.dat",
                           "FrictionContactProblem00394.dat",
                           "fc2d_granularflowonwall_00667_00000.dat"};
    const char *solvers[] = {"lemke", "cpg", "enum"};
    fc_options opt;
    fc_default_options(&opt);
    opt.time_limit = 10;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/fc2d/%s", FRICON_SHARED_DATA, files[f]);
        fc_problem *p = NULL;
        fc_error err;
        if (fc_read(path, &p, &err) != FC_OK) {
            CHECK(0, "read %s: %s", path, err.msg);
            continue;
        }
        int m = fc_problem_m(p);
        double *r = malloc((size_t)m * sizeof *r);
        for (int s = 0; s < 3; s++) {
            if (s == 2 && 4 * p->nc > opt.lcp.enum_max_size) continue;
            fc_info info;
            double e = solve_check(p, solvers[s], &opt, r, &info);
            printf("%-42s %-6s nc=%4d %-9s it=%6d err=%.3e %.3fs\n", files[f], solvers[s], p->nc,
                   fc_status_name(info.status), info.iterations, e, info.seconds);
            double tol = s == 1 ? opt.tolerance : 1e-12; /* pivoting: round-off only */
            CHECK(info.status == FC_CONVERGED && e <= tol, "%s on %s: %s, error %g (%s)", solvers[s],
                  files[f], fc_status_name(info.status), e, info.message);
            CHECK(fabs(e - info.residual) <= 1e-6 * fmax(e, 1e-300) + 1e-15,
                  "library measure %g and check.h %g agree", info.residual, e);
        }
        /* lemke's classical start (no NSGS guess): exact as well */
        {
            fc_options o = opt;
            o.lcp.crash_sweeps = 0;
            fc_info info;
            double e = solve_check(p, "lemke", &o, r, &info);
            printf("%-42s %-6s nc=%4d %-9s it=%6d err=%.3e %.3fs (classical start)\n", files[f], "lemke",
                   p->nc, fc_status_name(info.status), info.iterations, e, info.seconds);
            CHECK(info.status == FC_CONVERGED && e <= 1e-12, "lemke, classical start, on %s: %s, error %g (%s)",
                  files[f], fc_status_name(info.status), e, info.message);
        }
        /* enum refuses what it cannot enumerate, with a message */
        if (4 * p->nc > opt.lcp.enum_max_size) {
            fc_info info;
            solve_check(p, "enum", &opt, r, &info);
            CHECK(info.status == FC_STATUS_ERROR && strstr(info.message, "enum_max_size"),
                  "enum refuses nc=%d: status %s, message '%s'", p->nc, fc_status_name(info.status),
                  info.message);
        }
        /* limits: 3 iterations, a progress callback stopping at 2, a time
         * limit; lemke both with its NSGS start guess (the sweeps count)
         * and with the classical start (the pivots count) */
        if (p->nc > 50) {
            for (int v = 0; v < 3; v++) {
                int s = v < 2 ? v : 0;
                fc_options base = opt;
                if (v == 2) base.lcp.crash_sweeps = 0;
                fc_options o = base;
                o.max_iter = 3;
                fc_info info;
                solve_check(p, solvers[s], &o, r, &info);
                CHECK(info.status == FC_MAX_ITER && info.iterations <= 3, "%s max_iter=3: %s after %d",
                      solvers[s], fc_status_name(info.status), info.iterations);
                o = base;
                int stop_at = 2;
                o.progress = stop_now;
                o.progress_user = &stop_at;
                solve_check(p, solvers[s], &o, r, &info);
                CHECK(info.status != FC_CONVERGED && info.iterations <= 2,
                      "%s stopped by progress: %s after %d", solvers[s], fc_status_name(info.status),
                      info.iterations);
                o = base;
                o.time_limit = 1e-9;
                solve_check(p, solvers[s], &o, r, &info);
                CHECK(info.status == FC_TIME_LIMIT, "%s time_limit=1e-9: %s", solvers[s],
                      fc_status_name(info.status));
            }
        }
        free(r);
        fc_problem_free(p);
    }
}

/* Singular W (rank 10 for m = 40) and a degenerate q: Lemke's paths can
 * end on secondary rays; the regularised continuation must then still
 * reach the tolerance.  The fallback has to be exercised at least once in
 * the batch, else the test says so. */
static void singular_problems(void)
{
    unsigned long seed = 2024;
    fc_options opt;
    fc_default_options(&opt);
    opt.time_limit = 10;
    int fallbacks = 0, exact = 0, count = 80;
    for (int rep = 0; rep < count; rep++) {
        fc_problem *p = random_problem(20, 10, 0.0, 0.5, &seed);
        double *r = malloc((size_t)fc_problem_m(p) * sizeof *r);
        fc_info info;
        double e = solve_check(p, "lemke", &opt, r, &info);
        int fell = strstr(info.message, "secondary rays on W") != NULL;
        fallbacks += fell;
        exact += e <= 1e-12;
        CHECK(info.status == FC_CONVERGED && e <= opt.tolerance, "lemke, singular W #%d: %s, error %g (%s)",
              rep, fc_status_name(info.status), e, info.message);
        free(r);
        fc_problem_free(p);
    }
    printf("lemke on %d singular problems: %d exact, %d through the regularised LCPs\n", count, exact,
           fallbacks);
    CHECK(fallbacks > 0, "the regularised fallback was exercised (%d times)", fallbacks);
}

/* Warm start: from lemke's own answer the guessed basis is feasible (no
 * pivot); from a perturbed answer the path is still exact. */
static void warm_start(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/fc2d/FrictionContactProblem00071.dat", FRICON_SHARED_DATA);
    fc_problem *p = NULL;
    fc_error err;
    if (fc_read(path, &p, &err) != FC_OK) {
        CHECK(0, "read %s: %s", path, err.msg);
        return;
    }
    int m = fc_problem_m(p);
    double *r = malloc((size_t)m * sizeof *r), *r0 = malloc((size_t)m * sizeof *r0);
    fc_options opt;
    fc_default_options(&opt);
    fc_info cold, info;
    double e = solve_check(p, "lemke", &opt, r, &cold);
    CHECK(cold.status == FC_CONVERGED && e <= 1e-12, "lemke cold: %s %g", fc_status_name(cold.status), e);
    memcpy(r0, r, (size_t)m * sizeof *r);
    opt.r0 = r0;
    e = solve_check(p, "lemke", &opt, r, &info);
    CHECK(info.status == FC_CONVERGED && e <= 1e-12 && info.iterations == 0,
          "lemke warm from its answer: %s, error %g, %d pivots (cold %d)", fc_status_name(info.status), e,
          info.iterations, cold.iterations);
    unsigned long seed = 3;
    for (int i = 0; i < m; i++) r0[i] *= 1 + 0.2 * (next_rand(&seed) - 0.5);
    e = solve_check(p, "lemke", &opt, r, &info);
    printf("lemke warm start from a perturbed answer: %d pivots (cold %d), error %.2e\n", info.iterations,
           cold.iterations, e);
    CHECK(info.status == FC_CONVERGED && e <= 1e-12, "lemke warm from a perturbed answer: %s, error %g",
          fc_status_name(info.status), e);
    free(r);
    free(r0);
    fc_problem_free(p);
}

/* The global 2D problem (solved through the reduction, measure scaled by
 * ||w|| as SPEC and fccheck.py have it). */
static void global_problem(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/global/gfc2d_granularflowonwall_00069_00350.dat", FRICON_SHARED_DATA);
    fc_problem *p = NULL;
    fc_error err;
    if (fc_read(path, &p, &err) != FC_OK) {
        CHECK(0, "read %s: %s", path, err.msg);
        return;
    }
    CHECK(p->kind == FC_GLOBAL && p->d == 2, "global 2D problem");
    double *r = malloc((size_t)fc_problem_m(p) * sizeof *r);
    const char *solvers[] = {"lemke", "cpg"};
    fc_options opt;
    fc_default_options(&opt);
    opt.time_limit = 10;
    for (int s = 0; s < 2; s++) {
        fc_info info;
        double e = solve_check(p, solvers[s], &opt, r, &info);
        printf("%-42s %-6s nc=%4d %-9s it=%6d err=%.3e %.3fs\n", "gfc2d_granularflowonwall_00069_00350",
               solvers[s], p->nc, fc_status_name(info.status), info.iterations, e, info.seconds);
        CHECK(info.status == FC_CONVERGED && e <= (s == 0 ? 1e-12 : opt.tolerance),
              "%s on the global 2D problem: %s, error %g (%s)", solvers[s], fc_status_name(info.status), e,
              info.message);
    }
    free(r);
    fc_problem_free(p);
}

int main(void)
{
    one_contact();
    random_problems();
    shared_problems();
    warm_start();
    singular_problems();
    global_problem();
    TEST_DONE();
}
