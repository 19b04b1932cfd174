/* nsgs and psor end to end: small problems built here (d = 2, 3, 5, each
 * local solver, shuffle, relaxation, stopping rules), then every problem of
 * shared/data/fc3d, fc2d, rolling and the 3-D global ones, each answer
 * judged by the independent measure of check.h. */
#include "test.h"
#include "check.h"
#include "internal.h"

static unsigned long long rng = 0x2545F4914F6CDD1DULL;
static double urand(double lo, double hi)
{
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return lo + (hi - lo) * (double)((rng * 2685821657736338717ULL) >> 11) * 0x1.0p-53;
}

/* A local problem with W = H^T H + 1e-3 I (dense, SPD, coupled contacts),
 * q_N mostly negative (contacts closing), mu in [0.1, 1]. */
static fc_problem *random_problem(int d, int nc)
{
    int m = d * nc, k = m + 3;
    fc_problem *p = fc_problem_new(FC_LOCAL, d, nc);
    p->W = fc_matrix_dense(m, m);
    p->q = calloc((size_t)m, sizeof *p->q);
    double *H = malloc((size_t)k * m * sizeof *H);
    for (int i = 0; i < k * m; i++) H[i] = urand(-1, 1);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            double s = i == j ? 1e-3 : 0.0;
            for (int l = 0; l < k; l++) s += H[i * k + l] * H[j * k + l];
            p->W->x[(size_t)j * m + i] = s;
        }
    free(H);
    for (int i = 0; i < m; i++) p->q[i] = urand(-1, 1);
    for (int a = 0; a < nc; a++) {
        if (a % 4) p->q[d * a] = -fabs(p->q[d * a]);
        p->mu[a] = urand(0.1, 1.0);
        if (p->mu_r) p->mu_r[a] = urand(0.0, 0.3);
    }
    return p;
}

/* Solve with the named solver; returns the independent error (and checks
 * it agrees with info->residual and with the status). */
static double solve(const fc_problem *p, const char *solver, const fc_options *opt,
                    fc_info *info, const char *what)
{
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    double *v = p->kind == FC_GLOBAL ? calloc((size_t)p->n, sizeof *v) : NULL;
    fc_error err;
    fc_err e = fc_solve(p, solver, opt, r, u, v, info, &err);
    CHECK(e == FC_OK, "%s: fc_solve failed: %s", what, err.msg);
    double chk = check_error(p, r);
    double slack = 1e-14;
    CHECK(fabs(chk - info->residual) <= 1e-6 * chk + slack,
          "%s: residual %.3e vs independent %.3e", what, info->residual, chk);
    free(r); free(u); free(v);
    return chk;
}

/* Small random problems: every dimension and local solver converges. */
static void test_small(void)
{
    const char *lname[4] = {"hybrid", "projection", "newton", "exact"};
    int dims[3] = {2, 3, 5};
    for (int t = 0; t < 3; t++) {
        int d = dims[t];
        fc_problem *p = random_problem(d, 8);
        for (int l = 0; l < 4; l++) {
            if (d == 5 && l == 3) continue;
            fc_options opt;
            fc_default_options(&opt);
            opt.tolerance = 1e-10;
            opt.nsgs.local = (fc_local_solver)l;
            fc_info info;
            char what[64];
            snprintf(what, sizeof what, "d=%d local=%s", d, lname[l]);
            double e = solve(p, "nsgs", &opt, &info, what);
            CHECK(info.status == FC_CONVERGED && e <= 1e-10, "%s: %s after %d sweeps, error %.3e",
                  what, fc_status_name(info.status), info.iterations, e);
            /* the same with shuffled order, and PSOR */
            opt.nsgs.shuffle = 1;
            opt.nsgs.seed = 7;
            e = solve(p, "nsgs", &opt, &info, what);
            CHECK(e <= 1e-10, "%s shuffled: error %.3e", what, e);
            opt.nsgs.shuffle = 0;
            e = solve(p, "psor", &opt, &info, what);
            CHECK(e <= 1e-10 || info.status != FC_CONVERGED, "%s psor: error %.3e", what, e);
        }
        fc_problem_free(p);
    }
}

static int stop_at_3(void *user, int it, double err)
{
    (void)err;
    *(int *)user = it;
    return it >= 3;
}

/* max_iter, progress callback and the error_every cadence are honoured. */
static void test_stopping(void)
{
    fc_problem *p = random_problem(3, 20);
    fc_options opt;
    fc_default_options(&opt);
    opt.tolerance = 1e-300;
    opt.max_iter = 7;
    fc_info info;
    solve(p, "nsgs", &opt, &info, "max_iter");
    CHECK(info.status == FC_MAX_ITER && info.iterations == 7, "max_iter: %s, %d sweeps",
          fc_status_name(info.status), info.iterations);
    CHECK(info.message[0] != 0, "a message says why it stopped");
    int last = 0;
    opt.max_iter = 1000;
    opt.nsgs.error_every = 1;   /* the callback at every sweep */
    opt.progress = stop_at_3;
    opt.progress_user = &last;
    solve(p, "nsgs", &opt, &info, "progress");
    CHECK(info.iterations == 3 && last == 3, "progress stop: %d sweeps", info.iterations);
    opt.progress = NULL;
    opt.time_limit = 1e-9;
    solve(p, "nsgs", &opt, &info, "time");
    CHECK(info.status == FC_TIME_LIMIT, "time limit: %s", fc_status_name(info.status));
    fc_problem_free(p);
}

/* The problem in file top/dir/name, or NULL (a failed check). */
static fc_problem *read_problem(const char *top, const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s", top, dir, name);
    fc_problem *p = NULL;
    fc_error err;
    if (fc_read(path, &p, &err) != FC_OK) CHECK(0, "cannot read %s: %s", path, err.msg);
    return p;
}

/* A problem file from shared/data: nsgs must reach 1e-8 (the issue-2
 * target); prints sweeps and seconds. */
static void test_file(const char *dir, const char *name, int must)
{
    fc_problem *p = read_problem(FRICON_SHARED_DATA, dir, name);
    if (!p) return;
    fc_options opt;
    fc_default_options(&opt);
    fc_info info;
    double e = solve(p, "nsgs", &opt, &info, name);
    printf("%-48s nc=%4d %-10s sweeps=%6d error=%.3e %.3f s\n", name, p->nc,
           fc_status_name(info.status), info.iterations, e, info.seconds);
    if (must) CHECK(e <= 1e-8, "%s: nsgs error %.3e after %d sweeps", name, e, info.iterations);
    fc_problem_free(p);
}

/* Anderson's plain phases (nsgs.anderson_window) on a bundled problem
 * where the extrapolation stalls: without them NSGS is still above the
 * tolerance after 3000 sweeps (it needs 10796), with them it converges
 * within 3000 (1331); the answer judged by check.h. */
static void test_plain_phases(void)
{
    fc_problem *p = read_problem(FRICON_EXAMPLES, ".", "Capsules-i125-1213.hdf5");
    if (!p) return;
    fc_options opt;
    fc_default_options(&opt);
    opt.max_iter = 3000;
    fc_info info;
    double e = solve(p, "nsgs", &opt, &info, "plain phases");
    CHECK(info.status == FC_CONVERGED && e <= 1e-8, "with plain phases: %s after %d sweeps, %.3e",
          fc_status_name(info.status), info.iterations, e);
    opt.nsgs.anderson_window = 0;
    e = solve(p, "nsgs", &opt, &info, "Anderson throughout");
    CHECK(info.status == FC_MAX_ITER && e > 1e-8, "Anderson throughout: %s after %d sweeps, %.3e",
          fc_status_name(info.status), info.iterations, e);
    fc_problem_free(p);
}

/* Whether nsgs logged its half sweep (nsgs.half) during a solve. */
static int half_used;
static void half_log(void *user, int level, const char *msg)
{
    (void)user;
    (void)level;
    if (strstr(msg, "the half sweep on")) half_used = 1;
}

/* nsgs.half = 1 against 2 (the full rows) on problem p, omega the
 * relaxation: 40 plain sweeps from r = 0 give the same r to round-off (the
 * same Gauss-Seidel map, other summation orders), judged with check.h's
 * error of each r; the half sweep runs iff `symmetric`, else both runs are
 * the full rows, bit for bit.  Then (converge), with nsgs's defaults
 * (Anderson), the half sweep reaches 1e-8 when the full rows do (the
 * sweeps' count itself moves with round-off under Anderson: on
 * BoxesStack1 from 649 to 2675 with either variant as nsgs.local_tol goes
 * from 1e-14 to 3e-15; docs/measurements.md, tenth sweep session). */
static void half_against_full(fc_problem *p, const char *name, double omega, int symmetric,
                              int converge)
{
    if (!p) return;
    int m = fc_problem_m(p);
    double *rf = calloc((size_t)m, sizeof *rf), *rh = calloc((size_t)m, sizeof *rh);
    double *u = calloc((size_t)m, sizeof *u);
    fc_options opt;
    fc_default_options(&opt);
    opt.nsgs.omega = omega;
    opt.nsgs.order = 1;
    opt.nsgs.anderson = 0;
    opt.max_iter = 40;
    opt.tolerance = 1e-300;
    opt.verbose = 2;
    opt.log = half_log;
    fc_info info;
    fc_error err;
    opt.nsgs.half = 2;
    half_used = 0;
    CHECK(fc_solve(p, "nsgs", &opt, rf, u, NULL, &info, &err) == FC_OK, "%s: %s", name, err.msg);
    CHECK(!half_used, "%s: nsgs.half = 2 ran the half sweep", name);
    opt.nsgs.half = 1;
    half_used = 0;
    CHECK(fc_solve(p, "nsgs", &opt, rh, u, NULL, &info, &err) == FC_OK, "%s: %s", name, err.msg);
    CHECK(half_used == symmetric, "%s: the half sweep %s", name, half_used ? "ran" : "did not run");
    double dmax = 0.0, rmax = 0.0;
    for (int i = 0; i < m; i++) {
        dmax = fmax(dmax, fabs(rf[i] - rh[i]));
        rmax = fmax(rmax, fabs(rf[i]));
    }
    double ef = check_error(p, rf), eh = check_error(p, rh);
    printf("%-40s half %d: 40 sweeps, |r_half - r_full| %.1e of max |r| %.1e; errors %.6e %.6e\n",
           name, half_used, dmax, rmax, eh, ef);
    if (symmetric)
        CHECK(dmax <= 1e-10 * rmax && fabs(eh - ef) <= 1e-6 * ef, "%s: half and full rows differ: "
              "|dr| %.3e of %.3e, errors %.6e and %.6e", name, dmax, rmax, eh, ef);
    else
        CHECK(dmax == 0.0, "%s: not symmetric, yet the runs differ by %.3e", name, dmax);
    if (!converge) {
        free(rf); free(rh); free(u);
        fc_problem_free(p);
        return;
    }
    fc_default_options(&opt);
    opt.nsgs.omega = omega;
    opt.nsgs.order = 1;
    opt.nsgs.half = 2;
    opt.max_iter = 20000;
    double full = solve(p, "nsgs", &opt, &info, name);
    int full_sweeps = info.iterations;
    opt.nsgs.half = 1;
    double half = solve(p, "nsgs", &opt, &info, name);
    printf("%-40s to 1e-8: full rows %d sweeps (%.2e), half %d sweeps (%.2e)\n", name, full_sweeps,
           full, info.iterations, half);
    CHECK(!(full <= 1e-8) || half <= 1e-8, "%s: the half sweep did not reach 1e-8 (%.3e after %d)",
          name, half, info.iterations);
    free(rf); free(rh); free(u);
    fc_problem_free(p);
}

/* The half sweep's problems, bundled and shared: 3-D (the column and
 * pile steps, global problems reduced to W = H^T M^-1 H; KaplasTower,
 * BoxesStack, symmetric to round-off), with PSOR's relaxation, 2-D (a CSR
 * W: nsgs's block copy freed for the triangle) and rolling (d = 5); a
 * non-symmetric W (Capsules, 1e-3) keeps the full rows.  converge: the
 * runs to 1e-8 of test_half (1 thread) and test_half2 (2 threads; -1: the
 * problem not run there). */
typedef struct half_case {
    const char *top, *dir, *file, *name;
    double omega;
    int symmetric, converge1, converge2;
} half_case;
static const half_case half_cases[] = {
    {FRICON_EXAMPLES, ".", "column500-step2.hdf5", "column500", 1.0, 1, 1, 1},
    {FRICON_EXAMPLES, ".", "pile-step24.hdf5", "pile-step24", 1.0, 1, 0, 0},
    {FRICON_EXAMPLES, ".", "pile-step24.hdf5", "pile-step24 psor", 1.5, 1, 0, 0},
    {FRICON_SHARED_DATA, "fc3d", "KaplasTower-i1061-4.hdf5.dat", "KaplasTower", 1.0, 1, 1, 1},
    {FRICON_SHARED_DATA, "fc3d", "BoxesStack1-i100000-32.hdf5.dat", "BoxesStack1", 1.0, 1, 0, 0},
    {FRICON_SHARED_DATA, "fc2d", "fc2d_granularflowonwall_00667_00000.dat", "fc2d granularflow", 1.0, 1, 1, 1},
    {FRICON_SHARED_DATA, "fc2d", "FrictionContactProblem00071.dat", "fc2d 00071", 1.0, 1, 1, -1},
    {FRICON_SHARED_DATA, "rolling", "RFC3D_cube_1.dat", "RFC3D_cube_1", 1.0, 1, 1, 0},
    {FRICON_EXAMPLES, ".", "Capsules-i125-1213.hdf5", "Capsules-i125", 1.0, 0, 1, 0},
};

/* KaplasTower with one off-diagonal entry of W (symmetric to 1e-13) moved
 * by 1e-9 of itself: above the 1e-12 a block pair, so the full rows. */
static fc_problem *kaplas_moved(void)
{
    fc_problem *p = read_problem(FRICON_SHARED_DATA, "fc3d", "KaplasTower-i1061-4.hdf5.dat");
    if (!p) return NULL;
    const fc_matrix *W = p->W;
    CHECK(W->kind == FC_MAT_BSR && W->bs == 3, "KaplasTower: W is not 3 x 3 block-CSR");
    int moved = 0;
    for (int a = 0; a < p->nc && !moved && W->kind == FC_MAT_BSR; a++)
        for (int k = W->p[a]; k < W->p[a + 1] && !moved; k++)
            if (W->j[k] > a && W->x[9 * (size_t)k] != 0.0) {
                W->x[9 * (size_t)k] *= 1.0 + 1e-9;
                moved = 1;
            }
    CHECK(moved, "KaplasTower: no off-diagonal block to move");
    return p;
}

static void test_half(void)
{
    for (size_t i = 0; i < sizeof half_cases / sizeof half_cases[0]; i++) {
        const half_case *c = &half_cases[i];
        half_against_full(read_problem(c->top, c->dir, c->file), c->name, c->omega, c->symmetric,
                          c->converge1);
    }
    fc_problem *p = kaplas_moved();
    if (p) half_against_full(p, "KaplasTower moved by 1e-9", 1.0, 0, 0);
}

static int half2_used, half2_stretches, half2_moved;
static int half2_phases;   /* nsgs.phases of the 2-thread runs */
static void half2_log(void *user, int level, const char *msg)
{
    (void)user;
    (void)level;
    const char *rn = strstr(msg, "the stretches renumbered (");
    if (strstr(msg, "the half sweep on the stretches")) half2_used = 1;
    if (strstr(msg, "phases for")) half2_stretches = 1;
    if (rn) half2_moved = atoi(rn + strlen("the stretches renumbered ("));
}

/* One 2-thread stretches' solve of p (nsgs.half = half, nsgs.renumber =
 * renumber) into r: 40 plain sweeps from r = 0; whether the half sweep
 * ran.  half2_moved: the contacts the renumbering moved (-1: none). */
static int half2_run_rn(const fc_problem *p, const char *name, int half, int renumber, double omega,
                        double *r)
{
    int m = fc_problem_m(p);
    double *u = calloc((size_t)m, sizeof *u);
    fc_options opt;
    fc_default_options(&opt);
    opt.threads = 2;
    opt.nsgs.order = 3;
    opt.nsgs.omega = omega;
    opt.nsgs.half = half;
    opt.nsgs.renumber = renumber;
    opt.nsgs.phases = half2_phases;
    opt.nsgs.anderson = 0;
    opt.max_iter = 40;
    opt.tolerance = 1e-300;
    opt.verbose = 2;
    opt.log = half2_log;
    fc_info info;
    fc_error err;
    memset(r, 0, (size_t)m * sizeof *r);
    half2_used = half2_stretches = 0;
    half2_moved = -1;
    CHECK(fc_solve(p, "nsgs", &opt, r, u, NULL, &info, &err) == FC_OK, "%s: %s", name, err.msg);
    CHECK(half2_stretches, "%s: two threads did not sweep the stretches", name);
    CHECK(info.iterations == 40, "%s: %d sweeps, not 40", name, info.iterations);
    CHECK((renumber == 2) == (half2_moved < 0), "%s: nsgs.renumber %d, yet %s", name, renumber,
          half2_moved < 0 ? "not renumbered" : "renumbered");
    /* u returned in the problem's numbering: W r + q there (a local problem) */
    double *u2 = calloc((size_t)m, sizeof *u2), du = 0.0, un = 0.0;
    if (p->kind == FC_LOCAL) fc_problem_u(p, r, u2);
    for (int i = 0; i < m && p->kind == FC_LOCAL; i++) {
        du = fmax(du, fabs(u[i] - u2[i]));
        un = fmax(un, fabs(u2[i]));
    }
    CHECK(du <= 1e-12 * un, "%s: the returned u differs from W r + q by %.3e of %.3e", name, du, un);
    free(u); free(u2);
    return half2_used;
}

/* half2_run_rn with nsgs.renumber at its default. */
static int half2_run(const fc_problem *p, const char *name, int half, double omega, double *r)
{
    return half2_run_rn(p, name, half, 0, omega, r);
}

/* The stretches renumbered (nsgs.renumber's default) against the
 * problem's numbering (2), the half sweep and the full rows: the same
 * updates in the same order, so the same r bit for bit, returned in the
 * problem's numbering; check.h's error of each the same.  rh: the
 * default's r with the half (nsgs.half = 1). */
static void renumbered_against_not(const fc_problem *p, const char *name, double omega, const double *rh)
{
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, sizeof *r), *rf = calloc((size_t)m, sizeof *rf);
    half2_run_rn(p, name, 1, 2, omega, r);
    CHECK(memcmp(r, rh, (size_t)m * sizeof *r) == 0, "%s: renumbered and not, the half sweep: r differs",
          name);
    double e1 = check_error(p, rh), e2 = check_error(p, r);
    CHECK(e1 == e2, "%s: renumbered error %.17g, not %.17g", name, e1, e2);
    half2_run_rn(p, name, 2, 1, omega, rf);
    int moved = half2_moved;
    CHECK(moved > 0, "%s: the renumbering moved no contact", name);
    half2_run_rn(p, name, 2, 2, omega, r);
    CHECK(memcmp(r, rf, (size_t)m * sizeof *r) == 0, "%s: renumbered and not, the full rows: r differs",
          name);
    printf("%-40s 2 threads renumbered (%d of %d contacts moved): the same r as not; error %.6e\n", name,
           moved, p->nc, e1);
    free(r); free(rf);
}

/* The half sweep on two threads (the stretches' order) against the full
 * rows on the same order: 40 sweeps give the same r to round-off, judged
 * also by check.h's error of each; a non-symmetric W keeps the full rows
 * bit for bit; two runs of the half sweep give the same bits.  Then
 * (converge, not under TSan) with Anderson, the half reaches 1e-8 when the
 * full rows do. */
static void half2_against_full(fc_problem *p, const char *name, double omega, int symmetric,
                               int converge)
{
    if (!p) return;
    int m = fc_problem_m(p);
    double *rf = calloc((size_t)m, sizeof *rf), *rh = calloc((size_t)m, sizeof *rh);
    double *r2 = calloc((size_t)m, sizeof *r2);
    CHECK(!half2_run(p, name, 2, omega, rf), "%s: nsgs.half = 2 ran the half sweep", name);
    int used = half2_run(p, name, 1, omega, rh);
    CHECK(used == symmetric, "%s: the half sweep on two threads %s", name, used ? "ran" : "did not run");
    half2_run(p, name, 1, omega, r2);
    CHECK(memcmp(rh, r2, (size_t)m * sizeof *rh) == 0, "%s: two runs at 2 threads differ", name);
    renumbered_against_not(p, name, omega, rh);
    double dmax = 0.0, rmax = 0.0;
    for (int i = 0; i < m; i++) {
        dmax = fmax(dmax, fabs(rf[i] - rh[i]));
        rmax = fmax(rmax, fabs(rf[i]));
    }
    double ef = check_error(p, rf), eh = check_error(p, rh);
    printf("%-40s 2 threads, half %d: 40 sweeps, |r_half - r_full| %.1e of max |r| %.1e; errors %.6e %.6e\n",
           name, used, dmax, rmax, eh, ef);
    CHECK(rmax > 0.0, "%s: r = 0 after 40 sweeps", name);
    if (symmetric)
        CHECK(dmax <= 1e-10 * rmax && fabs(eh - ef) <= 1e-6 * ef, "%s: 2 threads, half and full rows "
              "differ: |dr| %.3e of %.3e, errors %.6e and %.6e", name, dmax, rmax, eh, ef);
    else
        CHECK(dmax == 0.0, "%s: not symmetric, yet the runs differ by %.3e", name, dmax);
#ifndef FRICON_TEST_QUICK
    if (converge) {
        fc_options opt;
        fc_info info;
        fc_default_options(&opt);
        opt.threads = 2;
        opt.nsgs.order = 3;
        opt.nsgs.omega = omega;
        opt.max_iter = 20000;
        opt.nsgs.half = 2;
        double full = solve(p, "nsgs", &opt, &info, name);
        int full_sweeps = info.iterations;
        opt.nsgs.half = 1;
        double half = solve(p, "nsgs", &opt, &info, name);
        printf("%-40s 2 threads to 1e-8: full rows %d sweeps (%.2e), half %d sweeps (%.2e)\n", name,
               full_sweeps, full, info.iterations, half);
        CHECK(!(full <= 1e-8) || half <= 1e-8, "%s: the half sweep on 2 threads did not reach 1e-8 "
              "(%.3e after %d)", name, half, info.iterations);
    }
#else
    (void)converge;
#endif
    free(rf); free(rh); free(r2);
    fc_problem_free(p);
}

/* The 2-thread half sweep on half_cases (their converge2) and the moved
 * KaplasTower (the full rows). */
/* The half sweep on two threads, the stretches in two phases (the
 * default) and in one (nsgs.phases = 1; its convergence run only for the
 * default). */
static void test_half2(void)
{
    for (half2_phases = 0; half2_phases <= 1; half2_phases++) {
        printf("nsgs.phases %d:\n", half2_phases);
        for (size_t i = 0; i < sizeof half_cases / sizeof half_cases[0]; i++) {
            const half_case *c = &half_cases[i];
            if (c->converge2 >= 0)
                half2_against_full(read_problem(c->top, c->dir, c->file), c->name, c->omega,
                                   c->symmetric, half2_phases ? 0 : c->converge2);
        }
        fc_problem *p = kaplas_moved();
        if (p) half2_against_full(p, "KaplasTower moved by 1e-9", 1.0, 0, 0);
    }
}

int main(int argc, char **argv)
{
#ifdef FRICON_TEST_QUICK
    /* ThreadSanitizer's build (ctest -L threads): the threaded part alone */
    (void)argc; (void)argv;
    test_half2();
    TEST_DONE();
#endif
    test_small();
    test_stopping();
    test_plain_phases();
    test_half();
    test_half2();
    if (argc > 1 && strcmp(argv[1], "--quick") == 0) TEST_DONE();
    const char *fc3d[] = {"BoxesStack1-i100000-32.hdf5.dat", "Capsules-i122-1617.dat",
                          "Capsules-i125-1213.hdf5", "Confeti-ex13-4contact-Fc3D-SBM.dat",
                          "FC3D_Example1.dat", "FC3D_Example1_SBM.dat",
                          "FrictionContact3D_1c.dat", "FrictionContact3D_RR_1c.dat",
                          "KaplasTower-i1061-4.hdf5.dat",
                          "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5", "NESpheres_10_1.dat",
                          "OneObject-i1028-138.hdf5.dat", "Rover1039.dat", "Rover11035.dat",
                          "Rover4396.dat"};
    for (size_t i = 0; i < sizeof fc3d / sizeof *fc3d; i++) test_file("fc3d", fc3d[i], 1);
    const char *fc2d[] = {"FC2D_SliderCrankLagrangian00000.dat", "FrictionContactProblem00071.dat",
                          "FrictionContactProblem00394.dat",
                          "fc2d_granularflowonwall_00667_00000.dat"};
    for (size_t i = 0; i < sizeof fc2d / sizeof *fc2d; i++) test_file("fc2d", fc2d[i], 0);
    const char *roll[] = {"Chute-ndof-768-nc-4-3.hdf5", "RFC3D_cube_1.dat", "RFC3D_sphere_1.dat",
                          "rfc3d_sphere_from_grfc3d_dense.dat"};
    for (size_t i = 0; i < sizeof roll / sizeof *roll; i++) test_file("rolling", roll[i], 0);
    const char *glob[] = {"GFC3D_Example0.dat", "GFC3D_Example00.dat",
                          "GFC3D_Example00_badly_scaled.dat", "GFC3D_Example1.dat",
                          "GFC3D_OneContact.dat", "GFC3D_TwoRods1.dat", "CubeH8.hdf5",
                          "LMGC_GlobalFrictionContactProblem00046.hdf5",
                          "Box_Stacks-i0122-82-5.hdf5", "Spheres-i099-356-679.hdf5",
                          "spheres-in-a-box-98-i10000-256-10.hdf5"};
    for (size_t i = 0; i < sizeof glob / sizeof *glob; i++) test_file("global", glob[i], 1);
    TEST_DONE();
}
