/* admm's r-step by block-Jacobi conjugate gradients (admm.linear 2, the
 * default from admm.cg_from contacts; src/linsys/pcg.c; every shared fc3d
 * and rolling problem to 1e-8 with it: test_ipm_data.c):
 * - KaplasTower with the sticking probe (rho cut to 1e-10 of its start, a
 *   singular W, a W non-symmetric by round-off: its symmetric part) to
 *   1e-8 (87 iterations measured, 10 with the Cholesky: the probe's small
 *   rho leaves W + rho I ill-conditioned for the gradients);
 * - a 767-contact column (examples/column300-step39.hdf5) to 1e-4 both ways;
 * - auto, on a 1515-contact column (examples/column500-step2.hdf5): the
 *   default picks the conjugate gradients from cg_from contacts and the
 *   Cholesky below (the same bits as the forced choice, other bits than
 *   the other one), and the same bits with 2 threads as with 1 (the
 *   kernels' threshold lowered: fc_par_min_set);
 * - auto's switch to the Cholesky when the CG iterations run high;
 * - fc_pcg itself on W + shift I against a product: the residual it
 *   reports is the true one, and it reaches the tolerance asked. */
#include "test.h"
#include "check.h"
#include "fricon.h"
#include "internal.h"
#include "linsys/linsys.h"

static int threads = 1, cg_switch = 0;

static fc_status run(const fc_problem *p, fc_admm_linear lin, int cg_from, int max_iter, double tol,
                     double *r, fc_info *info)
{
    int m = fc_problem_m(p);
    double *u = calloc((size_t)m, 8);
    fc_options opt;
    fc_default_options(&opt);
    opt.admm.linear = lin;
    if (cg_from > 0) opt.admm.cg_from = cg_from;
    opt.max_iter = max_iter;
    opt.tolerance = tol;
    opt.time_limit = 60;   /* a guard only */
    opt.threads = threads;
    if (cg_switch > 0) opt.admm.cg_switch = cg_switch;
    fc_error err;
    memset(r, 0, (size_t)m * sizeof *r);
    CHECK(fc_solve(p, "admm", &opt, r, u, NULL, info, &err) == FC_OK, "admm: %s", err.msg);
    free(u);
    return info->status;
}

static void kaplas(void)
{
    fc_problem *p = test_load("fc3d/KaplasTower-i1061-4.hdf5.dat");
    if (!p) return;
    double *r = calloc((size_t)fc_problem_m(p), 8);
    fc_info info;
    run(p, FC_ADMM_LINEAR_CG, 0, 1000, 1e-8, r, &info);
    double res = check_error(p, r);
    printf("admm cg KaplasTower (probe) it %d check %.3e\n", info.iterations, res);
    CHECK(info.status == FC_CONVERGED && res <= 1e-8, "admm cg on Kaplas: %s, %.3e (%s)",
          fc_status_name(info.status), res, info.message);
    free(r);
    fc_problem_free(p);
}

static void column_and_auto(void)
{
    fc_problem *p = test_read(FRICON_EXAMPLES "/column300-step39.hdf5");
    if (!p) return;
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, 8);
    fc_info info;
    for (int lin = FC_ADMM_LINEAR_CHOLESKY; lin <= FC_ADMM_LINEAR_CG; lin++) {
        run(p, (fc_admm_linear)lin, 0, 5000, 1e-4, r, &info);
        double res = check_error(p, r);
        printf("admm linear %d column300-step39 (%d contacts): %s it %d check %.3e %.3f s\n", lin, p->nc,
               fc_status_name(info.status), info.iterations, res, info.seconds);
        CHECK(info.status == FC_CONVERGED && res <= 1e-4, "admm linear %d on the column: %s %.3e", lin,
              fc_status_name(info.status), res);
    }
    free(r);
    fc_problem_free(p);
    if (!(p = test_read(FRICON_EXAMPLES "/column500-step2.hdf5"))) return;
    m = fc_problem_m(p);
    r = calloc((size_t)m, 8);
    double *rc = calloc((size_t)m, 8), *rl = calloc((size_t)m, 8);
    /* 60 iterations: the choice, judged by the bits */
    run(p, FC_ADMM_LINEAR_CG, 0, 60, 1e-12, rc, &info);
    run(p, FC_ADMM_LINEAR_CHOLESKY, 0, 60, 1e-12, rl, &info);
    CHECK(memcmp(rc, rl, (size_t)m * sizeof *r), "cg and Cholesky give other bits");
    run(p, FC_ADMM_LINEAR_AUTO, p->nc, 60, 1e-12, r, &info);
    CHECK(!memcmp(r, rc, (size_t)m * sizeof *r), "auto from %d contacts: the conjugate gradients", p->nc);
    run(p, FC_ADMM_LINEAR_AUTO, p->nc + 1, 60, 1e-12, r, &info);
    CHECK(!memcmp(r, rl, (size_t)m * sizeof *r), "auto below cg_from: the Cholesky");
    /* the chunks of the sums follow the threshold: both counts with it */
    int par_min = fc_par_min();
    fc_par_min_set(64);
    run(p, FC_ADMM_LINEAR_CG, 0, 60, 1e-12, rc, &info);
    threads = 2;
    run(p, FC_ADMM_LINEAR_CG, 0, 60, 1e-12, r, &info);
    threads = 1;
    fc_par_min_set(par_min);
    CHECK(!memcmp(r, rc, (size_t)m * sizeof *r), "cg: the same bits with 2 threads");
    free(r); free(rc); free(rl);
    fc_problem_free(p);
}

/* auto's switch to the Cholesky when the r-steps average more than
 * admm.cg_switch CG iterations: forced here (cg_switch 1, cg_from 1) on
 * Capsules-i125, the run must leave the gradients' bits after its first
 * ten r-steps and still converge to 1e-8 (judged by check.h). */
static void switch_to_cholesky(void)
{
    fc_problem *p = test_load("fc3d/Capsules-i125-1213.hdf5");
    if (!p) return;
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, 8), *rc = calloc((size_t)m, 8);
    fc_info info;
    run(p, FC_ADMM_LINEAR_CG, 0, 200, 1e-12, rc, &info);
    cg_switch = 1;
    run(p, FC_ADMM_LINEAR_AUTO, 1, 200, 1e-12, r, &info);
    CHECK(memcmp(r, rc, (size_t)m * sizeof *r), "auto with cg_switch 1: the Cholesky after 10 r-steps");
    run(p, FC_ADMM_LINEAR_AUTO, 1, 20000, 1e-8, r, &info);
    cg_switch = 0;
    double res = check_error(p, r);
    printf("admm cg -> Cholesky Capsules-i125: %s it %d check %.3e\n", fc_status_name(info.status),
           info.iterations, res);
    CHECK(info.status == FC_CONVERGED && res <= 1e-8, "admm switched: %s %.3e", fc_status_name(info.status), res);
    free(r); free(rc);
    fc_problem_free(p);
}

/* fc_pcg on Capsules' W + 0.1 I: the reported residual recomputed here. */
static void pcg_itself(void)
{
    fc_problem *p = test_load("fc3d/Capsules-i125-1213.hdf5");
    if (!p) return;
    int m = fc_problem_m(p);
    double *b = calloc((size_t)m, 8), *x = calloc((size_t)m, 8), *y = calloc((size_t)m, 8);
    for (int i = 0; i < m; i++) b[i] = 1.0 + (i % 5) - 0.3 * (i % 3);
    double bn = check_norm(m, b);
    fc_pcg *P = fc_pcg_new(p->W, p->d, 0);
    CHECK(P != NULL, "fc_pcg_new");
    if (!P) { free(b); free(x); free(y); fc_problem_free(p); return; }
    for (int s = 0; s < 2; s++) {
        double shift = s ? 1e-3 : 0.1, res = 0.0;
        fc_pcg_shift(P, shift);
        memset(x, 0, (size_t)m * sizeof *x);
        int it = fc_pcg_solve(P, b, x, 1e-10 * bn, 5000, &res);
        for (int i = 0; i < m; i++) y[i] = b[i] - shift * x[i];
        double *Wx = calloc((size_t)m, 8);
        check_gemv(p->W, 0, x, Wx);
        for (int i = 0; i < m; i++) y[i] -= Wx[i];
        double truth = check_norm(m, y);
        printf("pcg shift %g: %d iterations, residual %.3e (recomputed %.3e, asked %.3e)\n", shift, it, res,
               truth, 1e-10 * bn);
        CHECK(truth <= 2e-10 * bn, "pcg shift %g: residual %.3e", shift, truth);
        CHECK(fabs(truth - res) <= 1e-2 * truth + 1e-13 * bn, "pcg's reported residual %.3e, true %.3e", res, truth);
        free(Wx);
    }
    fc_pcg_free(P);
    free(b); free(x); free(y);
    fc_problem_free(p);
}

int main(void)
{
    pcg_itself();
    kaplas();
    column_and_auto();
    switch_to_cholesky();
    TEST_DONE();
}
