/* The SPEC section 2 error measure on hand-derived cases (each value is
 * worked out in the comment next to it), the per-contact laws, and the
 * global scaling by ||w||. */
#include "test.h"
#include "fricon.h"

/* A one-contact local problem W = I, q given. */
static fc_problem *one_contact(int d, double mu, double mu_r, const double *q)
{
    fc_problem *p = fc_problem_new(FC_LOCAL, d, 1);
    p->W = fc_matrix_dense(d, d);
    for (int i = 0; i < d; i++) p->W->x[i * d + i] = 1.0;
    p->q = calloc((size_t)d, sizeof *p->q);
    memcpy(p->q, q, (size_t)d * sizeof *q);
    p->mu[0] = mu;
    if (d == 5) p->mu_r[0] = mu_r;
    return p;
}

static double measure(int d, double mu, double mu_r, const double *q, const double *r, const double *u)
{
    fc_problem *p = one_contact(d, mu, mu_r, q);
    double e = fc_error_local(p, r, u);
    fc_problem_free(p);
    return e;
}

int main(void)
{
    const double z[5] = {0, 0, 0, 0, 0};
    const double tol = 1e-15; /* a few ulps of the O(1) values involved */

    /* separated: r = 0, u = q = (1,0,0): r - u_hat = (-1,0,0) is in the polar cone, e = 0 */
    double q1[3] = {1, 0, 0}, r0[3] = {0, 0, 0};
    CHECK_NEAR(measure(3, 0.5, 0, q1, r0, q1), 0.0, tol, "separated contact");
    /* sticking inside the cone with u = 0: e = r - P(r) = 0 */
    double rs[3] = {1, 0.2, -0.1};
    CHECK_NEAR(measure(3, 0.5, 0, z, rs, z), 0.0, tol, "sticking contact");
    /* sliding: mu = .5, r = (2,-1,0), u = (0,3,0): u_hat = (1.5,3,0), r - u_hat = (.5,-4,0)
       projects to a = (.5 + .5*4)/1.25 = 2 -> (2,-1,0) = r, e = 0 */
    double rsl[3] = {2, -1, 0}, usl[3] = {0, 3, 0};
    CHECK_NEAR(measure(3, 0.5, 0, z, rsl, usl), 0.0, tol, "sliding contact");
    /* r = (1,1,0) outside the cone, u = 0: P(r) = (1.2,.6,0), e = (-.2,.4,0),
       ||e|| = sqrt(.2), s = ||r|| = sqrt(2): error = sqrt(.1) */
    double rout[3] = {1, 1, 0};
    CHECK_NEAR(measure(3, 0.5, 0, z, rout, z), sqrt(0.1), tol, "r outside the cone");
    /* r = 0 with u = (-1,0,0) (penetration): P((1,0,0)) = (1,0,0), e = (-1,0,0); s = 1 */
    double upen[3] = {-1, 0, 0};
    CHECK_NEAR(measure(3, 0.5, 0, z, r0, upen), 1.0, tol, "penetration");
    /* r = (1,0,0), u = (1,0,0): both positive, r - u_hat = 0, e = r, s = 1 */
    double r100[3] = {1, 0, 0};
    CHECK_NEAR(measure(3, 0.5, 0, z, r100, r100), 1.0, tol, "complementarity violated");
    /* s = max(||q||, ||r||, ||u||): same case with ||q|| = 4 gives 1/4 */
    double q4[3] = {4, 0, 0};
    CHECK_NEAR(measure(3, 0.5, 0, q4, r100, r100), 0.25, tol, "normalised by ||q||");
    /* all zero: s < 1e-300 is replaced by 1, error 0 */
    CHECK_NEAR(measure(3, 0.5, 0, z, z, z), 0.0, 0, "all zero");
    /* d = 2, mu = 1, r = (1,2), u = 0: P = (1.5,1.5), e = (-.5,.5), s = sqrt(5): sqrt(.1) */
    double r2[2] = {1, 2};
    CHECK_NEAR(measure(2, 1.0, 0, z, r2, z), sqrt(0.1), tol, "2D outside the cone");
    /* d = 5, mu_r = .5, r = (1,0,0,1,0), u = 0: min (n-1)^2 + (1-.5n)^2 at n = 1.2,
       P = (1.2,0,0,.6,0), e = (-.2,0,0,.4,0): error sqrt(.2)/sqrt(2) = sqrt(.1) */
    double r5[5] = {1, 0, 0, 1, 0};
    CHECK_NEAR(measure(5, 0.5, 0.5, z, r5, z), sqrt(0.1), tol, "rolling cone");
    /* d = 5 rolling u_hat: r = (1,0,0,0,0) (inside), u = (0,0,0,3,4): u_hat_N = .1*5 = .5,
       r - u_hat = (.5,0,0,-3,-4): ||x_R|| = 5 > .1*.5; min (n-.5)^2 + (5-.1n)^2:
       n = (.5 + .5)/(1.01) = .990099..., e = r - P(x) */
    double r5b[5] = {1, 0, 0, 0, 0}, u5b[5] = {0, 0, 0, 3, 4};
    {
        double n = 1.0 / 1.01, rad = 0.1 * n;
        double e[5] = {1 - n, 0, 0, 0.6 * rad, 0.8 * rad}; /* P_R = (-3,-4)/5 * rad */
        double enorm = sqrt(e[0] * e[0] + e[3] * e[3] + e[4] * e[4]);
        CHECK_NEAR(measure(5, 0.5, 0.1, z, r5b, u5b), enorm / 5.0, 1e-14, "rolling u_hat");
    }

    /* scale invariance where the plain sums of squares leave the safe
       range: r outside the cone (error sqrt(.1) above) and r = 0 with a
       penetrating u (error 1), everything times 1e-170 (the squares
       underflow) or 1e170 (they overflow) */
    for (int k = 0; k < 2; k++) {
        double f = k ? 1e170 : 1e-170, rt[3], ut[3], qt[3];
        for (int i = 0; i < 3; i++) { rt[i] = f * rout[i]; ut[i] = 0.0; qt[i] = 0.0; }
        CHECK_NEAR(measure(3, 0.5, 0, qt, rt, ut), sqrt(0.1), 1e-14, "r outside the cone, scaled");
        for (int i = 0; i < 3; i++) { rt[i] = 0.0; ut[i] = f * upen[i]; qt[i] = f * 0.5 * upen[i]; }
        CHECK_NEAR(measure(3, 0.5, 0, qt, rt, ut), 1.0, 1e-14, "penetration, scaled");
    }

    /* fc_diagnose: the three laws on a 3-contact problem */
    fc_problem *p = fc_problem_new(FC_LOCAL, 3, 3);
    p->W = fc_matrix_dense(9, 9);
    for (int i = 0; i < 9; i++) p->W->x[i * 9 + i] = 1.0;
    p->q = calloc(9, sizeof *p->q);
    for (int a = 0; a < 3; a++) p->mu[a] = 0.5;
    double r[9] = {0, 0, 0, 1, 0.2, -0.1, 2, -1, 0}, u[9] = {1, 0, 0, 0, 0, 0, 0, 3, 0};
    fc_contact_diag dg[3];
    double e = fc_diagnose(p, r, u, dg);
    CHECK_NEAR(e, 0.0, tol, "three laws, exact solution");
    CHECK(dg[0].law == FC_LAW_SEPARATED, "contact 0 separated (%s)", fc_law_name(dg[0].law));
    CHECK(dg[1].law == FC_LAW_STICKING, "contact 1 sticking (%s)", fc_law_name(dg[1].law));
    CHECK(dg[2].law == FC_LAW_SLIDING, "contact 2 sliding (%s)", fc_law_name(dg[2].law));
    /* fc_residual recomputes u = W r + q itself */
    double rr[9] = {1, 1, 0, 0, 0, 0, 0, 0, 0};
    CHECK_NEAR(fc_residual(p, rr, NULL, NULL), measure(3, 0.5, 0, z, rout, rout), tol,
               "fc_residual recomputes u");
    double rnan[9] = {NAN, 0, 0, 0, 0, 0, 0, 0, 0};
    CHECK(isnan(fc_residual(p, rnan, NULL, NULL)), "NaN in r gives a NaN measure");
    fc_problem_free(p);

    /* Equality constraints, local: W = I, q = (-1, 0, 0), V = e_N, R = 2,
     * s = -3, mu = 0.5.  r = 0, lambda = 1.5: V^T r + R lambda + s = 0 and
     * u = W r + V lambda + q = (0.5, 0, 0), separated: every residual 0.
     * lambda = 1: u = 0 (the contact part is still 0) but the equality
     * residual is |2 - 3| / max(1, 3) = 1/3. */
    const double qe[3] = {-1, 0, 0}, rz[3] = {0, 0, 0};
    fc_problem *pe = one_contact(3, 0.5, 0, qe);
    CHECK(fc_problem_set_equalities(pe, 1, NULL) == FC_OK, "set_equalities");
    pe->V = fc_matrix_dense(3, 1);
    pe->V->x[0] = 1;
    pe->R = fc_matrix_dense(1, 1);
    pe->R->x[0] = 2;
    pe->s[0] = -3;
    double lam = 1.5, eq = -1;
    CHECK_NEAR(fc_residual_eq(pe, rz, NULL, &lam, NULL, &eq), 0.0, tol, "local eq: solution");
    CHECK_NEAR(eq, 0.0, tol, "local eq: equality residual at the solution");
    lam = 1;
    CHECK_NEAR(fc_residual_eq(pe, rz, NULL, &lam, NULL, &eq), 0.0, tol, "local eq: contact part");
    CHECK_NEAR(eq, 1.0 / 3, tol, "local eq: equality residual 1/3");
    fc_info info;
    fc_error err;
    double re[3], ue[3];
    CHECK(fc_solve_eq(pe, "fpp", NULL, re, ue, NULL, &lam, &info, &err) == FC_ERR_UNSUPPORTED,
          "a solver without equality support refuses (%s)", err.msg);
    fc_problem_free(pe);

    /* Global: M = H = I, f = (-1, 0, 0), w = 0, G = e_1, b = -0.5, so
     * G^T v + b = 0 is v_1 = 0.5 and u = v.  r = 0, lambda = 1.5, v =
     * (0.5, 0, 0) solves it.  lambda = 1, v recomputed = 0: dynamics 0,
     * equality residual |0 - 0.5| / max(1, 0.5) = 0.5. */
    fc_problem *pg = fc_problem_new(FC_GLOBAL, 3, 1);
    pg->n = 3;
    pg->M = fc_matrix_dense(3, 3);
    pg->H = fc_matrix_dense(3, 3);
    for (int i = 0; i < 3; i++) pg->M->x[4 * i] = pg->H->x[4 * i] = 1;
    pg->f = calloc(3, sizeof *pg->f);
    pg->w = calloc(3, sizeof *pg->w);
    pg->f[0] = -1;
    pg->mu[0] = 0.5;
    CHECK(fc_problem_set_equalities(pg, 1, NULL) == FC_OK, "set_equalities (global)");
    pg->G = fc_matrix_dense(3, 1);
    pg->G->x[0] = 1;
    pg->b[0] = -0.5;
    CHECK(fc_problem_validate(pg, &err) == FC_OK, "global problem with G valid (%s)", err.msg);
    double dyn = -1, vsol[3] = {0.5, 0, 0};
    lam = 1.5;
    CHECK_NEAR(fc_residual_eq(pg, rz, vsol, &lam, &dyn, &eq), 0.0, tol, "global eq: solution");
    CHECK_NEAR(dyn, 0.0, tol, "global eq: dynamics with G lambda");
    CHECK_NEAR(eq, 0.0, tol, "global eq: G^T v + b");
    lam = 1;
    CHECK_NEAR(fc_residual_eq(pg, rz, NULL, &lam, &dyn, &eq), 0.0, tol, "global eq: contact part");
    CHECK_NEAR(dyn, 0.0, tol, "global eq: recomputed v satisfies the dynamics");
    CHECK_NEAR(eq, 0.5, tol, "global eq: equality residual 0.5");
    fc_problem_free(pg);
    TEST_DONE();
}
