#define _POSIX_C_SOURCE 200809L
/* Numerical and library hygiene, for every registered solver:
 *  - values that overflow inside the iterations (not in the input) end as
 *    "diverged" or another failure, never as "converged" with a non-finite
 *    r, and a converged answer passes the independent measure;
 *  - the library writes nothing to stdout or stderr, even verbose without
 *    a log callback. */
#include "test.h"
#include "check.h"

#include <unistd.h>
#include <fcntl.h>

/* n zeroed doubles (n > 0 in every use). */
static double *zeros(int n)
{
    return calloc(n > 0 ? (size_t)n : 1, sizeof(double));
}

/* A valid, finite problem whose products overflow: W ~ 1e300 entries
 * with q ~ 1e300 (W r alone exceeds DBL_MAX once r leaves 0). */
static fc_problem *overflowing(int d, int nc, double big)
{
    fc_problem *p = fc_problem_new(FC_LOCAL, d, nc);
    int m = d * nc;
    fc_matrix *D = fc_matrix_dense(m, m);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
            D->x[(size_t)j * m + i] = (i == j ? 4.0 : 1.0) * big;
    p->W = fc_matrix_to_bsr(D, d);
    fc_matrix_free(D);
    p->q = zeros(m);
    for (int i = 0; i < m; i++) p->q[i] = i % d == 0 ? -1.5 * big : big;
    for (int a = 0; a < nc; a++) p->mu[a] = 0.5, p->mu_r ? p->mu_r[a] = 0.1 : 0;
    return p;
}

/* A small well-posed random problem. */
static fc_problem *plain(int d, int nc)
{
    fc_problem *p = fc_problem_new(FC_LOCAL, d, nc);
    int m = d * nc;
    fc_matrix *D = fc_matrix_dense(m, m);
    unsigned s = 12345;
    for (int i = 0; i < m; i++)
        for (int j = 0; j <= i; j++) {
            s = s * 1103515245u + 12345u;
            double v = i == j ? m + 1.0 : ((s >> 8) % 1000) / 1000.0 - 0.5;
            D->x[(size_t)j * m + i] = D->x[(size_t)i * m + j] = v;
        }
    p->W = fc_matrix_to_bsr(D, d);
    fc_matrix_free(D);
    p->q = zeros(m);
    for (int i = 0; i < m; i++) p->q[i] = i % d == 0 ? -1.0 + 0.3 * (i % 3) : 0.4;
    for (int a = 0; a < nc; a++) p->mu[a] = 0.3, p->mu_r ? p->mu_r[a] = 0.05 : 0;
    return p;
}

/* stdout and stderr into one file while the library runs (on = 1), back
 * to the terminal after (on = 0); the file must stay empty. */
static int capture_fd = -1, saved_out = -1, saved_err = -1;

static void silence(int on)
{
    fflush(stdout);
    fflush(stderr);
    if (on) {
        saved_out = dup(1);
        saved_err = dup(2);
        dup2(capture_fd, 1);
        dup2(capture_fd, 2);
    } else {
        dup2(saved_out, 1);
        dup2(saved_err, 2);
        close(saved_out);
        close(saved_err);
    }
}

static int all_finite(int m, const double *x)
{
    for (int i = 0; i < m; i++)
        if (!isfinite(x[i])) return 0;
    return 1;
}

static void run_all(fc_problem *p, int verbose, const char *what)
{
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    for (int s = 0; s < fc_solver_count(); s++) {
        const fc_solver *sv = fc_solver_at(s);
        if (!(sv->dims & FC_DIM(p->d))) continue;
        fc_options opt;
        fc_default_options(&opt);
        opt.max_iter = 200;
        opt.time_limit = 2.0;
        opt.verbose = verbose;   /* no log callback: must stay silent */
        fc_info info;
        fc_error err;
        silence(1);
        fc_err e = fc_solve(p, sv->name, &opt, r, u, NULL, &info, &err);
        silence(0);
        if (e != FC_OK) continue;   /* refused with an error: fine */
        CHECK(all_finite(m, r), "%s on %s: status %s with a non-finite r (the last finite "
              "iterate is due)", sv->name, what, fc_status_name(info.status));
        if (info.status == FC_CONVERGED) {
            CHECK(all_finite(m, r), "%s on %s: converged with non-finite r", sv->name, what);
            double chk = check_error(p, r);
            CHECK(chk <= opt.tolerance, "%s on %s: converged but independent error %.3e "
                  "(r[0..2] = %g %g %g)", sv->name, what, chk, r[0], r[1], r[2]);
        }
    }
    free(r);
    free(u);
}

int main(void)
{
    char path[] = "/tmp/fricon-hygiene-XXXXXX";
    capture_fd = mkstemp(path);
    if (capture_fd < 0) { CHECK(0, "mkstemp"); TEST_DONE(); }
    int dims[3] = {2, 3, 5};
    for (int k = 0; k < 3; k++) {
        fc_problem *a = overflowing(dims[k], 4, 1e300), *c = overflowing(dims[k], 4, 1e307);
        fc_problem *b = plain(dims[k], 5);
        char wa[32], wb[32], wc[32];
        snprintf(wa, sizeof wa, "overflowing(1e300) d=%d", dims[k]);
        snprintf(wc, sizeof wc, "overflowing(1e307) d=%d", dims[k]);
        snprintf(wb, sizeof wb, "plain d=%d", dims[k]);
        run_all(a, 0, wa);
        run_all(c, 0, wc);
        run_all(b, 3, wb);
        fc_problem_free(a);
        fc_problem_free(b);
        fc_problem_free(c);
    }
    off_t size = lseek(capture_fd, 0, SEEK_END);
    close(capture_fd);
    CHECK(size == 0, "the library wrote %ld bytes to stdout/stderr (see %s)", (long)size, path);
    if (size == 0) unlink(path);
    TEST_DONE();
}
