/* nncg (nonsmooth nonlinear conjugate gradient over Gauss-Seidel sweeps)
 * on real problems, judged by the independent measure of check.h: the
 * velocity form of global problems with a block-diagonal M (Box_Stacks,
 * a bundled granular pile step), the reduced form of the others (CubeH8,
 * TwoRods), local problems; every order and acceleration converges; the
 * conjugate step takes fewer sweeps than plain sweeps on the stacks;
 * max_iter and the time limit are honoured; so with the Newton-Krylov
 * steps (nncg.newton), the focus passes (nncg.focus) and the cluster
 * solves (nncg.cluster). */
#include "test.h"
#include "check.h"

/* nncg on p with tolerance tol and the options kv (option, value pairs,
 * NULL-ended; the Newton-Krylov steps' nncg.newton among them): the
 * independent error, info filled. */
static double run_kv(const fc_problem *p, double tol, const char *const *kv, int max_iter,
                     double time_limit, fc_info *info)
{
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    double *v = p->kind == FC_GLOBAL ? calloc((size_t)p->n, sizeof *v) : NULL;
    fc_options o;
    fc_default_options(&o);
    o.tolerance = tol;
    if (max_iter > 0) o.max_iter = max_iter;
    o.time_limit = time_limit;
    fc_error err;
    for (int k = 0; kv[k]; k += 2)
        CHECK(fc_options_set(&o, kv[k], kv[k + 1], &err) == FC_OK, "%s", err.msg);
    CHECK(fc_solve(p, "nncg", &o, r, u, v, info, &err) == FC_OK, "nncg: %s", err.msg);
    double e = check_error(p, r);
    free(r); free(u); free(v);
    return e;
}

/* With options kv, the iteration cap (7 sweeps) and the time limit (0.05 s)
 * stop the solve with a finite error (what: the options' name). */
static void limits_honoured(const fc_problem *p, const char *const *kv, const char *what)
{
    fc_info info;
    double e = run_kv(p, 1e-14, kv, 7, 60.0, &info);
    CHECK(info.status == FC_MAX_ITER && info.iterations == 7 && isfinite(e) && e < 1.0,
          "%s, max_iter 7: %s after %d, %.3e", what, fc_status_name(info.status), info.iterations, e);
    e = run_kv(p, 1e-14, kv, 0, 0.05, &info);
    CHECK(info.status == FC_TIME_LIMIT && info.seconds < 2.0 && isfinite(e),
          "%s, time limit 0.05 s: %s after %.3f s", what, fc_status_name(info.status), info.seconds);
}

/* nncg on p with tolerance tol and the option patch set (NULL: none);
 * returns the independent error, info filled. */
static double run(const fc_problem *p, double tol, const char *set, const char *val,
                  int max_iter, double time_limit, fc_info *info)
{
    const char *kv[] = {set, val, NULL};
    return run_kv(p, tol, set ? kv : kv + 2, max_iter, time_limit, info);
}

/* Converges to tol on rel with the default options and the given patch. */
static void converges(const char *rel, double tol, const char *set, const char *val)
{
    fc_problem *p = test_load(rel);
    if (!p) return;
    fc_info info;
    double e = run(p, tol, set, val, 0, 60.0, &info);
    printf("nncg %s=%s on %s: %s after %d sweeps, independent error %.3e, %.3f s\n",
           set ? set : "-", val ? val : "-", rel, fc_status_name(info.status), info.iterations, e,
           info.seconds);
    CHECK(info.status == FC_CONVERGED && e <= tol * (1 + 1e-6),
          "nncg on %s (%s=%s): %s, error %.3e", rel, set ? set : "-", val ? val : "-",
          fc_status_name(info.status), e);
    if (p->kind == FC_GLOBAL)
        CHECK(info.dyn_residual <= 1e-8, "nncg on %s: dynamics residual %.3e", rel,
              info.dyn_residual);
    fc_problem_free(p);
}

/* The conjugate step saves sweeps against plain Gauss-Seidel. */
static void conjugate_saves_sweeps(const char *rel, double tol)
{
    fc_problem *p = test_load(rel);
    if (!p) return;
    fc_info plain, cg;
    double e0 = run(p, tol, "nncg.accel", "0", 0, 60.0, &plain);
    double e1 = run(p, tol, "nncg.accel", "1", 0, 60.0, &cg);
    printf("%s: plain %d sweeps (%.2e), conjugate %d sweeps (%.2e)\n", rel, plain.iterations, e0,
           cg.iterations, e1);
    CHECK(plain.status == FC_CONVERGED && cg.status == FC_CONVERGED &&
              cg.iterations < plain.iterations,
          "%s: plain %s %d sweeps, conjugate %s %d sweeps", rel, fc_status_name(plain.status),
          plain.iterations, fc_status_name(cg.status), cg.iterations);
    fc_problem_free(p);
}

/* max_iter and the time limit end the sweeps, with the best iterate. */
static void limits(const char *path)
{
    fc_problem *p = test_read(path);
    if (!p) return;
    fc_info info;
    double e = run(p, 1e-14, NULL, NULL, 7, 0.0, &info);
    CHECK(info.status == FC_MAX_ITER && info.iterations == 7, "max_iter 7: %s after %d",
          fc_status_name(info.status), info.iterations);
    CHECK(isfinite(e) && e < 1.0, "max_iter: error %.3e", e);
    e = run(p, 1e-14, NULL, NULL, 0, 0.05, &info);
    CHECK(info.status == FC_TIME_LIMIT && info.seconds < 2.0, "time limit 0.05 s: %s after %.3f s",
          fc_status_name(info.status), info.seconds);
    fc_problem_free(p);
}

/* A bundled step of the granular pile (fricon simulate pile, 300
 * spheres, 947 contacts): 1e-4 in every order and acceleration. */
static void pile_step(void)
{
    const char *path = FRICON_EXAMPLES "/pile300-step30.hdf5";
    fc_problem *p = test_read(path);
    if (!p) return;
    static const char *set[][2] = {{NULL, NULL}, {"nncg.order", "1"}, {"nncg.order", "2"},
                                   {"nncg.accel", "0"}, {"nncg.accel", "2"},
                                   {"nncg.symmetric", "1"}, {"nncg.sweep_data", "0"},
                                   {"nncg.sweep_data", "1"}};
    for (size_t k = 0; k < sizeof set / sizeof set[0]; k++) {
        fc_info info;
        double e = run(p, 1e-4, set[k][0], set[k][1], 0, 60.0, &info);
        printf("pile300-step30 %s=%s: %s after %d sweeps, independent error %.3e\n",
               set[k][0] ? set[k][0] : "-", set[k][1] ? set[k][1] : "-",
               fc_status_name(info.status), info.iterations, e);
        CHECK(info.status == FC_CONVERGED && e <= 1e-4 * (1 + 1e-6), "pile step %s=%s: %s, %.3e",
              set[k][0] ? set[k][0] : "-", set[k][1] ? set[k][1] : "-",
              fc_status_name(info.status), e);
        CHECK(info.dyn_residual <= 1e-8, "pile step: dynamics residual %.3e", info.dyn_residual);
    }
    fc_problem_free(p);
}

/* The sweep's data layouts (nncg.sweep_data: CSR rows, per contact with
 * G stored, per contact with G from M^-1's blocks) differ in rounding
 * only: on rel each reaches tol (the independent error) in the same
 * sweeps to within 10% of the CSR rows' count. */
static void sweep_layouts(const char *rel, double tol)
{
    fc_problem *p = test_load(rel);
    if (!p) return;
    int sweeps[3] = {0};
    for (int k = 0; k < 3; k++) {
        char val[2] = {(char)('0' + k), 0};
        fc_info info;
        double e = run(p, tol, "nncg.sweep_data", val, 0, 60.0, &info);
        sweeps[k] = info.iterations;
        printf("%s nncg.sweep_data=%d: %s after %d sweeps, independent error %.3e\n", rel, k,
               fc_status_name(info.status), info.iterations, e);
        CHECK(info.status == FC_CONVERGED && e <= tol * (1 + 1e-6) && info.dyn_residual <= 1e-8,
              "%s sweep_data=%d: %s, error %.3e, dynamics %.3e", rel, k, fc_status_name(info.status), e,
              info.dyn_residual);
    }
    for (int k = 1; k < 3; k++)
        CHECK(abs(sweeps[k] - sweeps[0]) <= sweeps[0] / 10 + 1, "%s: %d sweeps with sweep_data=%d, %d with CSR rows",
              rel, sweeps[k], k, sweeps[0]);
    fc_problem_free(p);
}

/* A warm start is measured before any sweep: its own solution as the
 * guess returns at once (0 sweeps), and a worse run never replaces it.
 * Judged by check.h. */
static void warm_start(const char *rel)
{
    fc_problem *p = test_load(rel);
    if (!p) return;
    int m = fc_problem_m(p);
    double *r0 = calloc((size_t)m, sizeof *r0), *r = calloc((size_t)m, sizeof *r);
    double *u = calloc((size_t)m, sizeof *u), *v = calloc((size_t)p->n, sizeof *v);
    fc_options o;
    fc_default_options(&o);
    fc_info info;
    fc_error err;
    CHECK(fc_solve(p, "nncg", &o, r0, u, v, &info, &err) == FC_OK, "nncg: %s", err.msg);
    double e0 = check_error(p, r0);
    o.r0 = r0;
    CHECK(fc_solve(p, "nncg", &o, r, u, v, &info, &err) == FC_OK, "nncg: %s", err.msg);
    CHECK(info.status == FC_CONVERGED && info.iterations == 0 && check_error(p, r) <= 1e-8,
          "%s from its solution (%.3e): %s after %d sweeps, %.3e", rel, e0,
          fc_status_name(info.status), info.iterations, check_error(p, r));
    o.max_iter = 1;
    o.tolerance = 1e-30;
    CHECK(fc_solve(p, "nncg", &o, r, u, v, &info, &err) == FC_OK, "nncg: %s", err.msg);
    CHECK(check_error(p, r) <= e0 * (1 + 1e-9) + 1e-300, "%s: one sweep from %.3e returned %.3e",
          rel, e0, check_error(p, r));
    free(r0); free(r); free(u); free(v);
    fc_problem_free(p);
}


/* The Newton-Krylov steps (every preconditioner, body blocks among them, and function) keep nncg
 * converging on the bundled pile step (velocity form) and on a local
 * problem, change the iterates (other sweep counts than plain nncg), and
 * honour the time limit inside the Krylov solve. */
static void newton_steps(void)
{
    static const char *const base[] = {NULL}, *const bj[] = {"nncg.newton", "20", NULL},
        *const gs[] = {"nncg.newton", "20", "nncg.newton_gs", "2", NULL},
        *const nm[] = {"nncg.newton", "20", "nncg.newton_form", "3", "nncg.newton_gap", "2", NULL},
        *const body[] = {"nncg.newton", "20", "nncg.newton_body", "1", NULL},
        *const reg[] = {"nncg.newton", "20", "nncg.newton_reg", "0.1", "nncg.newton_body", "1", NULL},
        *const every[] = {"nncg.newton", "1", "nncg.newton_gap", "1", "nncg.krylov", "200", NULL};
    const char *const *sets[] = {bj, gs, nm, body, reg};
    const char *path = FRICON_EXAMPLES "/pile300-step30.hdf5";
    fc_problem *p = test_read(path);
    if (p) {
        fc_info i0, info;
        run_kv(p, 1e-4, base, 0, 60.0, &i0);
        for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
            double e = run_kv(p, 1e-4, sets[k], 0, 60.0, &info);
            printf("pile300-step30 Newton-Krylov set %zu: %s after %d sweeps (plain nncg %d), "
                   "independent error %.3e\n", k, fc_status_name(info.status), info.iterations,
                   i0.iterations, e);
            CHECK(info.status == FC_CONVERGED && e <= 1e-4 * (1 + 1e-6),
                  "Newton-Krylov set %zu: %s, %.3e", k, fc_status_name(info.status), e);
            CHECK(info.dyn_residual <= 1e-8, "Newton-Krylov: dynamics residual %.3e",
                  info.dyn_residual);
            CHECK(info.iterations != i0.iterations, "Newton-Krylov set %zu: the same %d sweeps",
                  k, info.iterations);
        }
        double e = run_kv(p, 1e-14, every, 0, 0.05, &info);
        CHECK(info.status == FC_TIME_LIMIT && info.seconds < 2.0 && isfinite(e),
              "Newton-Krylov, time limit 0.05 s: %s after %.3f s", fc_status_name(info.status),
              info.seconds);
        e = run_kv(p, 1e-14, every, 5, 60.0, &info);
        CHECK(info.status == FC_MAX_ITER && info.iterations == 5 && isfinite(e) && e < 1.0,
              "Newton-Krylov, max_iter 5: %s after %d, %.3e", fc_status_name(info.status),
              info.iterations, e);
        fc_problem_free(p);
    }
    p = test_load("fc3d/KaplasTower-i1061-4.hdf5.dat");
    if (!p) return;
    fc_info info;
    double e = run_kv(p, 1e-6, bj, 0, 60.0, &info);
    printf("KaplasTower (local) Newton-Krylov: %s after %d sweeps, independent error %.3e\n",
           fc_status_name(info.status), info.iterations, e);
    CHECK(info.status == FC_CONVERGED && e <= 1e-6 * (1 + 1e-6), "KaplasTower Newton-Krylov: %s, %.3e",
          fc_status_name(info.status), e);
    fc_problem_free(p);
}

/* The focus passes (nncg.focus) keep nncg converging on the bundled pile
 * step (velocity form, the bodies' neighbours listed), a local problem and
 * a 2D one (the changed contacts alone), change the iterates (other sweep
 * counts than plain nncg on the pile step), and leave the limits
 * honoured. */
static void focus_passes(void)
{
    static const char *const base[] = {NULL}, *const f2[] = {"nncg.focus", "2", NULL};
    const char *path = FRICON_EXAMPLES "/pile300-step30.hdf5";
    fc_problem *p = test_read(path);
    if (p) {
        fc_info i0, info;
        run_kv(p, 1e-4, base, 0, 60.0, &i0);
        double e = run_kv(p, 1e-4, f2, 0, 60.0, &info);
        printf("pile300-step30 nncg.focus=2: %s after %d sweeps (plain nncg %d), independent error %.3e\n",
               fc_status_name(info.status), info.iterations, i0.iterations, e);
        CHECK(info.status == FC_CONVERGED && e <= 1e-4 * (1 + 1e-6), "focus: %s, %.3e",
              fc_status_name(info.status), e);
        CHECK(info.dyn_residual <= 1e-8, "focus: dynamics residual %.3e", info.dyn_residual);
        CHECK(info.iterations != i0.iterations, "focus: the same %d sweeps", info.iterations);
        limits_honoured(p, f2, "focus");
        fc_problem_free(p);
    }
    converges("fc3d/KaplasTower-i1061-4.hdf5.dat", 1e-6, "nncg.focus", "2");
    converges("fc2d/fc2d_granularflowonwall_00667_00000.dat", 1e-6, "nncg.focus", "2");
}

/* The cluster passes' log lines "error a -> b": how many, and how many
 * raised the error. */
typedef struct pass_log {
    int passes, raised, moved;
} pass_log;

static void pass_logger(void *user, int level, const char *msg)
{
    (void)level;
    pass_log *pl = user;
    const char *s = strstr(msg, "cluster pass, ");
    if (!s) return;
    int moved = 0;
    double a = 0.0, b = 0.0;
    const char *e = strstr(s, "error ");
    if (sscanf(s, "cluster pass, %d", &moved) != 1 || !e || sscanf(e, "error %lf -> %lf", &a, &b) != 2) {
        pl->raised++;   /* an unreadable line fails the check */
        return;
    }
    pl->passes++;
    pl->moved += moved > 0;
    if (b > a) pl->raised++;
}

/* The cluster solves (nncg.cluster) on the bundled pile step: nncg
 * converges, the error recomputed independently meets the tolerance, the
 * passes move contacts and never raise the error (the logged measurement
 * after each), the iterates change; off (0), with a budget too small for
 * any pass, and on a local problem (no velocity form) they change nothing;
 * the default setting converges; the limits are honoured. */
static void cluster_solves(void)
{
    const char *path = FRICON_EXAMPLES "/pile-step24.hdf5";
    fc_problem *p = test_read(path);
    if (p) {
        int m = fc_problem_m(p);
        double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
        double *v = calloc((size_t)p->n, sizeof *v);
        fc_options o;
        fc_default_options(&o);
        o.tolerance = 1e-4;
        o.nncg.cluster = 24;
        o.nncg.cluster_gap = 16;
        o.nncg.cluster_chains = 0;
        o.nncg.cluster_budget = 1e6;   /* every measurement 16 sweeps apart */
        o.verbose = 3;
        pass_log pl = {0};
        o.log = pass_logger;
        o.log_user = &pl;
        fc_info info, i0, itiny, idef;
        fc_error err;
        CHECK(fc_solve(p, "nncg", &o, r, u, v, &info, &err) == FC_OK, "nncg.cluster: %s", err.msg);
        double e = check_error(p, r);
        static const char *const off[] = {"nncg.cluster", "0", NULL},
                                 *const tiny[] = {"nncg.cluster_budget", "1e-12", NULL}, *const def[] = {NULL};
        double e0 = run_kv(p, 1e-4, off, 0, 60.0, &i0), etiny = run_kv(p, 1e-4, tiny, 0, 60.0, &itiny);
        double edef = run_kv(p, 1e-4, def, 0, 60.0, &idef);
        printf("pile-step24 nncg.cluster=24: %s after %d sweeps (plain nncg %d, the default %d), independent error %.3e; "
               "%d passes, %d moved contacts, %d raised the error\n",
               fc_status_name(info.status), info.iterations, i0.iterations, idef.iterations, e, pl.passes, pl.moved,
               pl.raised);
        CHECK(info.status == FC_CONVERGED && e <= 1e-4 * (1 + 1e-6), "cluster: %s, %.3e",
              fc_status_name(info.status), e);
        CHECK(info.dyn_residual <= 1e-8, "cluster: dynamics residual %.3e", info.dyn_residual);
        CHECK(pl.passes > 0 && pl.moved > 0 && pl.raised == 0, "cluster: %d passes, %d moved, %d raised",
              pl.passes, pl.moved, pl.raised);
        CHECK(info.iterations != i0.iterations, "cluster: the same %d sweeps", info.iterations);
        CHECK(itiny.iterations == i0.iterations && etiny == e0,
              "cluster_budget 1e-12: %d sweeps, %.17g against %d, %.17g", itiny.iterations, etiny, i0.iterations, e0);
        CHECK(idef.status == FC_CONVERGED && edef <= 1e-4 * (1 + 1e-6), "cluster by default: %s, %.3e",
              fc_status_name(idef.status), edef);
        free(r); free(u); free(v);
        static const char *const c24[] = {"nncg.cluster", "24", "nncg.cluster_budget", "1e6", NULL};
        limits_honoured(p, c24, "cluster");
        fc_problem_free(p);
    }
    fc_problem *q = test_load("fc3d/KaplasTower-i1061-4.hdf5.dat");
    if (q) {
        static const char *const off[] = {"nncg.cluster", "0", NULL},
                                 *const c24[] = {"nncg.cluster", "24", "nncg.cluster_budget", "1e6", NULL};
        fc_info i0, info;
        double e0 = run_kv(q, 1e-6, off, 0, 60.0, &i0), e = run_kv(q, 1e-6, c24, 0, 60.0, &info);
        CHECK(info.iterations == i0.iterations && e == e0, "cluster on a local problem: %d sweeps, %.3e against %d, %.3e",
              info.iterations, e, i0.iterations, e0);
        fc_problem_free(q);
    }
}

int main(void)
{
    warm_start("global/Spheres-i099-356-679.hdf5");
    converges("global/Box_Stacks-i0122-82-5.hdf5", 1e-8, NULL, NULL);
    converges("global/Box_Stacks-i0122-82-5.hdf5", 1e-8, "nncg.order", "1");
    sweep_layouts("global/Box_Stacks-i0122-82-5.hdf5", 1e-8);
    sweep_layouts("global/Spheres-i099-356-679.hdf5", 1e-6);
    converges("global/Spheres-i099-356-679.hdf5", 1e-6, NULL, NULL);
    converges("global/CubeH8.hdf5", 1e-8, NULL, NULL);
    converges("global/GFC3D_TwoRods1.dat", 1e-8, NULL, NULL);
    converges("fc3d/KaplasTower-i1061-4.hdf5.dat", 1e-6, NULL, NULL);
    converges("fc3d/Capsules-i122-1617.dat", 1e-8, "nncg.accel", "2");
    converges("fc2d/fc2d_granularflowonwall_00667_00000.dat", 1e-6, NULL, NULL);
    conjugate_saves_sweeps("fc3d/KaplasTower-i1061-4.hdf5.dat", 1e-6);
    conjugate_saves_sweeps("global/Spheres-i099-356-679.hdf5", 1e-6);
    limits(FRICON_EXAMPLES "/pile300-step30.hdf5");
    pile_step();
    newton_steps();
    focus_passes();
    cluster_solves();
    TEST_DONE();
}
