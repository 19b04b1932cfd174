/* fc_solve's stall watch (status FC_STALLED, option stall_iterations):
 * a run that provably cannot gain 10% ends stalled well before its cap;
 * 0 disables the watch; converging runs and the caller's callback are
 * unaffected; the time limit counts CPU time with cpu_clock = 1. */

#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "test.h"
#include "check.h"

#include <time.h>

/* One contact, W = I, q = (-1, 0, 0), mu = 0.5: the solution is r = (1,
 * 0, 0).  fpp with step rho moves r_N by at most rho (1 + mu) per
 * iteration, so from r = 0 the error (about 1 - r_N) cannot gain 10%
 * within 0.1 / (1.5 rho) iterations: 6.7e7 for rho = 1e-9. */
static fc_problem *one_contact(void)
{
    fc_problem *p = fc_problem_new(FC_LOCAL, 3, 1);
    p->W = fc_matrix_dense(3, 3);
    for (int i = 0; i < 3; i++) p->W->x[i * 3 + i] = 1.0;
    p->q = calloc(3, sizeof *p->q);
    p->q[0] = -1.0;
    p->mu[0] = 0.5;
    return p;
}

typedef struct { int calls, stop_at; } counter;

static int count(void *user, int it, double err)
{
    (void)err;
    counter *c = user;
    c->calls++;
    return c->stop_at > 0 && it >= c->stop_at;
}

/* A callback that idles 2 ms an iteration: wall time passes, CPU time
 * hardly does. */
static int idle(void *user, int it, double err)
{
    (void)user, (void)it, (void)err;
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
    return 0;
}

static fc_info run(const fc_problem *p, const char *solver, fc_options *o, double *r)
{
    double u[3];
    fc_info info;
    fc_error err;
    CHECK(fc_solve(p, solver, o, r, u, NULL, &info, &err) == FC_OK, "%s: %s", solver, err.msg);
    return info;
}

int main(void)
{
    fc_problem *p = one_contact();
    double r[3];
    fc_options o;

    /* a provable stall: ends stalled after the minimum window, not at the cap */
    fc_default_options(&o);
    o.fp.rho = 1e-9;
    o.fp.anderson = 0; /* no extrapolation: the step bound holds */
    o.max_iter = 1000000;
    o.stall_iterations = 2000;
    fc_info info = run(p, "fpp", &o, r);
    CHECK(info.status == FC_STALLED, "fpp rho 1e-9: %s (%s)", fc_status_name(info.status), info.message);
    CHECK(info.iterations > 2000 && info.iterations < 2200, "stopped after %d iterations", info.iterations);
    CHECK(!strcmp(fc_status_name(FC_STALLED), "stalled"), "name %s", fc_status_name(FC_STALLED));
    CHECK(strstr(info.message, "stalled") != NULL, "message '%s'", info.message);
    CHECK(check_error(p, r) > 0.9, "error %.3e", check_error(p, r));

    /* the default window */
    fc_default_options(&o);
    o.fp.rho = 1e-9;
    o.fp.anderson = 0; /* no extrapolation: the step bound holds */
    o.max_iter = 4 * o.stall_iterations;
    info = run(p, "fpp", &o, r);
    CHECK(info.status == FC_STALLED && info.iterations < o.max_iter / 2, "default: %s after %d iterations",
          fc_status_name(info.status), info.iterations);

    /* 0: off, the run goes to its cap */
    fc_default_options(&o);
    o.fp.rho = 1e-9;
    o.fp.anderson = 0; /* no extrapolation: the step bound holds */
    o.max_iter = 50000;
    o.stall_iterations = 0;
    info = run(p, "fpp", &o, r);
    CHECK(info.status == FC_MAX_ITER && info.iterations == 50000, "off: %s after %d iterations",
          fc_status_name(info.status), info.iterations);

    /* the caller's callback still sees every report, and its stop is its own (max-iter) */
    fc_default_options(&o);
    o.fp.rho = 1e-9;
    o.fp.anderson = 0; /* no extrapolation: the step bound holds */
    o.stall_iterations = 2000;
    counter c = {0, 500};
    o.progress = count;
    o.progress_user = &c;
    info = run(p, "fpp", &o, r);
    CHECK(info.status == FC_MAX_ITER && c.calls >= 500 && c.calls < 600, "callback stop: %s, %d calls",
          fc_status_name(info.status), c.calls);
    c = (counter){0, 0};
    info = run(p, "fpp", &o, r);
    CHECK(info.status == FC_STALLED && c.calls > 2000, "callback kept: %s, %d calls", fc_status_name(info.status),
          c.calls);

    /* converging runs are not cut, whatever the window */
    const char *solvers[] = {"fpp", "nsgs", "apgd", "admm", "auto"};
    for (int k = 0; k < 5; k++) {
        fc_default_options(&o);
        o.stall_iterations = 1;
        info = run(p, solvers[k], &o, r);
        CHECK(info.status == FC_CONVERGED && check_error(p, r) <= 1e-8, "%s with window 1: %s, error %.3e",
              solvers[k], fc_status_name(info.status), check_error(p, r));
    }

    /* a shared problem solved by a slow first-order method at the default window */
    fc_problem *q = test_read(FRICON_SHARED_DATA "/fc3d/Rover1039.dat");
    if (q) {
        double rr[12], uu[12];
        fc_default_options(&o);
        fc_error err;
        CHECK(fc_solve(q, "fpp", &o, rr, uu, NULL, &info, &err) == FC_OK, "%s", err.msg);
        CHECK(info.status == FC_CONVERGED && check_error(q, rr) <= 1e-8, "fpp Rover1039: %s, %.3e",
              fc_status_name(info.status), check_error(q, rr));
        fc_problem_free(q);
    }

    /* the time limit on the wall clock (default) or on the CPU clock
     * (cpu_clock = 1): 60 idle iterations take at least 0.12 s of wall
     * time and far less CPU time than the 0.05-s limit */
    for (int cpu = 0; cpu <= 1; cpu++) {
        fc_default_options(&o);
        o.fp.rho = 1e-9;
        o.fp.anderson = 0;
        o.max_iter = 60;
        o.time_limit = 0.05;
        o.cpu_clock = cpu;
        o.progress = idle;
        info = run(p, "fpp", &o, r);
        if (cpu) {
            CHECK(info.status == FC_MAX_ITER && info.iterations == 60, "cpu clock: %s after %d",
                  fc_status_name(info.status), info.iterations);
            CHECK(info.seconds < 0.05, "cpu clock: %.3f s reported", info.seconds);
        } else {
            CHECK(info.status == FC_TIME_LIMIT && info.iterations < 60, "wall clock: %s after %d",
                  fc_status_name(info.status), info.iterations);
        }
    }
    fc_problem_free(p);
    TEST_DONE();
}
