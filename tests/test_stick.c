/* stick, the all-sticking solution: it solves KaplasTower (a tower at
 * rest, W of rank 504 out of 1710) in one factorisation, judged by the
 * independent measure of check.h, with u = 0 and every r_a in its cone
 * checked directly; on problems where some contact slides or separates
 * it says so (not converged, the contacts outside their cones counted in
 * the message) instead of returning a wrong answer; a factorisation that
 * does not fit its limits is refused before it starts. */
#include "test.h"
#include "check.h"

/* stick on p with the default options but a time limit (0: none); r, u
 * (allocated) and info filled, the independent measure returned. */
static double run_stick(const fc_problem *p, double time_limit, double **r, double **u,
                        fc_info *info)
{
    int m = fc_problem_m(p);
    *r = calloc((size_t)m, sizeof **r);
    *u = calloc((size_t)m, sizeof **u);
    fc_options opt;
    fc_default_options(&opt);
    opt.time_limit = time_limit;
    fc_error err;
    CHECK(fc_solve(p, "stick", &opt, *r, *u, NULL, info, &err) == FC_OK, "%s", err.msg);
    return check_error(p, *r);
}

static void solves_tower(void)
{
    fc_problem *p = test_load("fc3d/KaplasTower-i1061-4.hdf5.dat");
    if (!p) return;
    int m = fc_problem_m(p);
    double *r, *u;
    fc_info info;
    double chk = run_stick(p, 0.0, &r, &u, &info);
    printf("KaplasTower: stick %s after %d steps, independent error %.2e, %.4f s\n",
           fc_status_name(info.status), info.iterations, chk, info.seconds);
    CHECK(info.status == FC_CONVERGED && chk <= 1e-8, "stick on KaplasTower: %s, error %.3e",
          fc_status_name(info.status), chk);
    /* what makes it the all-sticking solution, checked directly */
    double un = 0.0, rn = 0.0, qn = 0.0, rmax = 0.0;
    int outside = 0;
    for (int i = 0; i < m; i++) {
        un += u[i] * u[i], rn += r[i] * r[i], qn += p->q[i] * p->q[i];
        rmax = fmax(rmax, fabs(r[i]));
    }
    un = sqrt(un), rn = sqrt(rn), qn = sqrt(qn);
    for (int a = 0; a < p->nc; a++) {
        const double *ra = r + 3 * a;
        outside += !(ra[0] >= -1e-12 * rmax &&
                     hypot(ra[1], ra[2]) <= p->mu[a] * ra[0] + 1e-12 * rmax);
    }
    CHECK(un <= 1e-8 * fmax(qn, rn), "u = W r + q = 0: |u| %.3e, |q| %.3e, |r| %.3e", un, qn, rn);
    CHECK(outside == 0, "every r_a in its cone: %d outside", outside);
    free(r);
    free(u);
    fc_problem_free(p);
}

/* Problems with sliding or separating contacts: stick says it failed. */
static void says_when_not_sticking(const char *rel)
{
    fc_problem *p = test_load(rel);
    if (!p) return;
    double *r, *u;
    fc_info info;
    double chk = run_stick(p, 0.0, &r, &u, &info);
    fc_options opt;
    fc_default_options(&opt);
    CHECK(info.status != FC_CONVERGED && chk > opt.tolerance, "%s: %s with error %.3e", rel,
          fc_status_name(info.status), chk);
    CHECK(strstr(info.message, "outside their cones") != NULL, "%s: message '%s'", rel,
          info.message);
    CHECK(info.iterations <= opt.stick.refine, "%s: %d steps", rel, info.iterations);
    free(r);
    free(u);
    fc_problem_free(p);
}

/* A factorisation that cannot fit in the time left is refused before it
 * starts, and said so. */
static void refuses_too_costly(void)
{
    fc_problem *p = test_load("fc3d/KaplasTower-i1061-4.hdf5.dat");
    if (!p) return;
    double *r, *u;
    fc_info info;
    run_stick(p, 1e-3, &r, &u, &info);   /* its 1.5e7 flops are predicted at 1.5 ms */
    CHECK(info.status == FC_STATUS_ERROR && strstr(info.message, "beyond the limits"),
          "time limit 1 ms: %s, '%s'", fc_status_name(info.status), info.message);
    CHECK(info.seconds < 0.5, "refused at once: %.3f s", info.seconds);
    free(r);
    free(u);
    fc_problem_free(p);
}

int main(void)
{
    refuses_too_costly();
    solves_tower();
    says_when_not_sticking("fc3d/Capsules-i122-1617.dat");
    says_when_not_sticking("fc3d/BoxesStack1-i100000-32.hdf5.dat");
    says_when_not_sticking("fc2d/FrictionContactProblem00071.dat");
    says_when_not_sticking("global/Spheres-i099-356-679.hdf5");
    TEST_DONE();
}
