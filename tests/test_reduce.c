/* The global-to-local reduction: W = H^T M^-1 H and q = H^T M^-1 f + w
 * through CHOLMOD, checked against a dense Gaussian elimination done here;
 * v recovery; a singular M refused with FC_ERR_NUMERIC.  With equality
 * constraints: V = H^T M^-1 G, R = G^T M^-1 G, s = G^T M^-1 f + b, and
 * v = M^-1 (H r + G lambda + f) after fc_solve_reduced_eq. */
#include "test.h"
#include "fricon.h"
#include "internal.h"
#include "problem/reduce.h"

static double next_rand(unsigned long *s)
{
    *s = *s * 6364136223846793005UL + 1442695040888963407UL;
    return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* Solve the dense n x n system A x = b in place (A column-major, copied). */
static void dense_solve(int n, const double *A0, double *b)
{
    double *A = malloc((size_t)n * n * sizeof *A);
    memcpy(A, A0, (size_t)n * n * sizeof *A);
    for (int k = 0; k < n; k++) {
        int piv = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(A[k * n + i]) > fabs(A[k * n + piv])) piv = i;
        for (int j = 0; j < n; j++) { double t = A[j * n + k]; A[j * n + k] = A[j * n + piv]; A[j * n + piv] = t; }
        double t = b[k]; b[k] = b[piv]; b[piv] = t;
        for (int i = k + 1; i < n; i++) {
            double l = A[k * n + i] / A[k * n + k];
            for (int j = k; j < n; j++) A[j * n + i] -= l * A[j * n + k];
            b[i] -= l * b[k];
        }
    }
    for (int k = n - 1; k >= 0; k--) {
        for (int j = k + 1; j < n; j++) b[k] -= A[j * n + k] * b[j];
        b[k] /= A[k * n + k];
    }
    free(A);
}

/* A random global problem: M = B B^T + n I (SPD, sparse-ish), H random. */
static fc_problem *random_global(int n, int nc, unsigned long *seed)
{
    int d = 3, m = d * nc;
    fc_problem *p = fc_problem_new(FC_GLOBAL, d, nc);
    p->n = n;
    fc_matrix *Md = fc_matrix_dense(n, n), *Hd = fc_matrix_dense(n, m);
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double v = (i == j) ? n + 1.0 : (next_rand(seed) > 0.5 ? next_rand(seed) : 0.0);
            Md->x[(size_t)j * n + i] = Md->x[(size_t)i * n + j] = v;
        }
    for (long k = 0; k < Hd->nnz; k++) Hd->x[k] = next_rand(seed) > 0.0 ? next_rand(seed) : 0.0;
    p->M = fc_matrix_to_csr(Md);
    p->H = fc_matrix_to_csr(Hd);
    fc_matrix_free(Md);
    fc_matrix_free(Hd);
    p->f = calloc((size_t)n, sizeof *p->f);
    p->w = calloc((size_t)m, sizeof *p->w);
    for (int i = 0; i < n; i++) p->f[i] = next_rand(seed);
    for (int i = 0; i < m; i++) p->w[i] = next_rand(seed);
    for (int a = 0; a < nc; a++) p->mu[a] = 0.3;
    return p;
}

/* x^T M^-1 y for the columns x = column i of A, y = column j of B (dense
 * n-row column-major), by a dense solve. */
static double dense_form(int n, const double *Md, const double *A, int i, const double *B, int j)
{
    double *z = malloc((size_t)n * sizeof *z), s = 0.0;
    memcpy(z, B + (size_t)j * n, (size_t)n * sizeof *z);
    dense_solve(n, Md, z);
    for (int k = 0; k < n; k++) s += A[(size_t)i * n + k] * z[k];
    free(z);
    return s;
}

/* A local solve of a reduction with equalities, exact for r = 0: lambda
 * solves R lambda = -s (dense), u = V lambda + q. */
static fc_status r_zero_solve(const fc_problem *loc, const fc_options *opt, double *r, double *u,
                              double *lambda, fc_info *info, void *user)
{
    (void)opt; (void)info; (void)user;
    int m = fc_problem_m(loc), p = loc->neq;
    fc_matrix *R = fc_matrix_to_dense(loc->R);
    memset(r, 0, (size_t)m * sizeof *r);
    for (int k = 0; k < p; k++) lambda[k] = -loc->s[k];
    dense_solve(p, R->x, lambda);
    memcpy(u, loc->q, (size_t)m * sizeof *u);
    fc_matrix_gemv(loc->V, 1.0, lambda, 1.0, u);
    fc_matrix_free(R);
    return FC_CONVERGED;
}

/* A random global problem with neq equality rows: the reduction's V, R, s
 * against dense algebra, v recovered with lambda meets G^T v + b = 0 and
 * M v = H r + G lambda + f, and fc_solve_reduced refuses the problem. */
static void test_equalities(unsigned long *seed)
{
    int n = 12, nc = 3, m = 9, neq = 4;
    fc_problem *g = random_global(n, nc, seed);
    fc_error err;
    fc_matrix *Gd = fc_matrix_dense(n, neq);
    for (long k = 0; k < Gd->nnz; k++) Gd->x[k] = next_rand(seed) > 0.2 ? next_rand(seed) : 0.0;
    CHECK(fc_problem_set_equalities(g, neq, &err) == FC_OK, "%s", err.msg);
    g->G = fc_matrix_to_csr(Gd);
    for (int k = 0; k < neq; k++) g->b[k] = next_rand(seed);
    CHECK(fc_problem_validate(g, &err) == FC_OK, "with equalities: %s", err.msg);
    fc_problem *loc = NULL;
    CHECK(fc_problem_reduce(g, &loc, &err) == FC_OK && loc->neq == neq, "reduce: %s", err.msg);
    fc_matrix *Md = fc_matrix_to_dense(g->M), *Hd = fc_matrix_to_dense(g->H);
    for (int j = 0; j < neq; j++) {
        for (int i = 0; i < m; i++)
            CHECK_NEAR(fc_matrix_get(loc->V, i, j), dense_form(n, Md->x, Hd->x, i, Gd->x, j), 1e-12, "V entry");
        for (int i = 0; i < neq; i++)
            CHECK_NEAR(fc_matrix_get(loc->R, i, j), dense_form(n, Md->x, Gd->x, i, Gd->x, j), 1e-12, "R entry");
        double s = g->b[j], *y = malloc((size_t)n * sizeof *y);
        memcpy(y, g->f, (size_t)n * sizeof *y);
        dense_solve(n, Md->x, y);
        for (int k = 0; k < n; k++) s += Gd->x[(size_t)j * n + k] * y[k];
        CHECK_NEAR(loc->s[j], s, 1e-12, "s entry");
        free(y);
    }
    CHECK(fc_problem_validate(loc, &err) == FC_OK, "the reduction is valid: %s", err.msg);
    /* the reduction's solve with lambda, then v */
    fc_options opt;
    fc_default_options(&opt);
    fc_clock clk;
    fc_clock_start(&clk, &opt);
    fc_info info;
    fc_status st;
    double r[9], u[9], v[12], lam[4], t[12];
    CHECK(fc_solve_reduced_eq(g, &opt, &clk, FC_V_M_FACTOR, r_zero_solve, NULL, r, u, v, lam, &info, &st,
                              &err) == FC_OK && st == FC_CONVERGED, "fc_solve_reduced_eq: %s", err.msg);
    double eq = 0, dyn = 0;
    for (int k = 0; k < neq; k++) {
        double x = g->b[k];
        for (int i = 0; i < n; i++) x += Gd->x[(size_t)k * n + i] * v[i];
        eq = fmax(eq, fabs(x));
    }
    fc_matrix_gemv(g->M, 1.0, v, 0.0, t);
    fc_matrix_gemv(g->G, -1.0, lam, 1.0, t);
    for (int i = 0; i < n; i++) dyn = fmax(dyn, fabs(t[i] - g->f[i]));   /* r = 0 */
    CHECK(eq <= 1e-12 && dyn <= 1e-12, "recovered v: |G^T v + b| = %g, |M v - G lambda - f| = %g", eq, dyn);
    double v2[12];
    CHECK(fc_problem_recover_v_eq(g, r, lam, v2, &err) == FC_OK, "%s", err.msg);
    for (int i = 0; i < n; i++) CHECK_NEAR(v2[i], v[i], 1e-12, "fc_problem_recover_v_eq");
    CHECK(fc_solve_reduced(g, &opt, &clk, FC_V_M_FACTOR, NULL, NULL, r, u, v, &info, &st, &err) ==
              FC_ERR_UNSUPPORTED && strstr(err.msg, "equality"), "fc_solve_reduced with equalities: %s", err.msg);
    fc_matrix_free(Gd);
    fc_matrix_free(Md);
    fc_matrix_free(Hd);
    fc_problem_free(loc);
    fc_problem_free(g);
}

int main(void)
{
    unsigned long seed = 3;
    int n = 12, nc = 3, m = 9;
    fc_problem *g = random_global(n, nc, &seed);
    fc_error err;
    CHECK(fc_problem_validate(g, &err) == FC_OK, "random global problem is valid: %s", err.msg);
    fc_problem *loc = NULL;
    CHECK(fc_problem_reduce(g, &loc, &err) == FC_OK, "reduce: %s", err.msg);
    fc_matrix *Md = fc_matrix_to_dense(g->M), *Hd = fc_matrix_to_dense(g->H);
    /* dense reference: X = M^-1 H column by column, W = H^T X */
    double *X = calloc((size_t)n * m, sizeof *X), *y = calloc((size_t)n, sizeof *y);
    for (int c = 0; c < m; c++) {
        memcpy(X + (size_t)c * n, Hd->x + (size_t)c * n, (size_t)n * sizeof *X);
        dense_solve(n, Md->x, X + (size_t)c * n);
    }
    double wmax = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            double ref = 0.0;
            for (int k = 0; k < n; k++) ref += Hd->x[(size_t)i * n + k] * X[(size_t)j * n + k];
            wmax = fmax(wmax, fabs(ref));
            CHECK_NEAR(fc_matrix_get(loc->W, i, j), ref, 1e-12, "W entry");
        }
    CHECK(wmax > 0, "W is not zero");
    CHECK(fc_matrix_asymmetry(loc->W) == 0.0, "reduced W exactly symmetric");
    memcpy(y, g->f, (size_t)n * sizeof *y);
    dense_solve(n, Md->x, y);
    for (int i = 0; i < m; i++) {
        double ref = g->w[i];
        for (int k = 0; k < n; k++) ref += Hd->x[(size_t)i * n + k] * y[k];
        CHECK_NEAR(loc->q[i], ref, 1e-12, "q entry");
    }
    /* v = M^-1 (H r + f) */
    double r[9], v[12], vref[12];
    for (int i = 0; i < m; i++) r[i] = next_rand(&seed);
    CHECK(fc_problem_recover_v(g, r, v, &err) == FC_OK, "recover v");
    for (int i = 0; i < n; i++) {
        vref[i] = g->f[i];
        for (int j = 0; j < m; j++) vref[i] += Hd->x[(size_t)j * n + i] * r[j];
    }
    dense_solve(n, Md->x, vref);
    for (int i = 0; i < n; i++) CHECK_NEAR(v[i], vref[i], 1e-12, "v entry");

    /* a singular M: zero its last row and column */
    fc_matrix *S = fc_matrix_to_dense(g->M);
    for (int i = 0; i < n; i++) S->x[(size_t)(n - 1) * n + i] = S->x[(size_t)i * n + n - 1] = 0.0;
    fc_matrix_free(g->M);
    g->M = fc_matrix_to_csr(S);
    fc_problem *bad = NULL;
    CHECK(fc_problem_reduce(g, &bad, &err) == FC_ERR_NUMERIC && bad == NULL,
          "singular M refused (got: %s)", err.msg);
    CHECK(strstr(err.msg, "not positive definite") != NULL, "message says why: %s", err.msg);

    /* M stored as its upper triangle only (as LMGC90 dumps are): taken as
     * stored, the non-symmetric U, through a sparse LU */
    fc_matrix *U = fc_matrix_dense(n, n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++) U->x[(size_t)j * n + i] = Md->x[(size_t)j * n + i];
    fc_matrix_free(g->M);
    g->M = fc_matrix_to_csr(U);
    fc_problem *up = NULL;
    CHECK(fc_problem_reduce(g, &up, &err) == FC_OK, "triangular M: %s", err.msg);
    for (int c = 0; c < m && up; c++) {
        memcpy(X + (size_t)c * n, Hd->x + (size_t)c * n, (size_t)n * sizeof *X);
        dense_solve(n, U->x, X + (size_t)c * n);
        for (int i = 0; i < m; i++) {
            double ref = 0.0;
            for (int k = 0; k < n; k++) ref += Hd->x[(size_t)i * n + k] * X[(size_t)c * n + k];
            CHECK_NEAR(fc_matrix_get(up->W, i, c), ref, 1e-12, "W entry (triangular M)");
        }
    }
    CHECK(fc_problem_recover_v(g, r, v, &err) == FC_OK, "recover v (triangular M)");
    for (int i = 0; i < n; i++) {
        vref[i] = g->f[i];
        for (int j = 0; j < m; j++) vref[i] += Hd->x[(size_t)j * n + i] * r[j];
    }
    dense_solve(n, U->x, vref);
    for (int i = 0; i < n; i++) CHECK_NEAR(v[i], vref[i], 1e-12, "v entry (triangular M)");
    fc_problem_free(up);
    /* and singular: refused, nothing leaked (a fuzzing finding) */
    U->x[(size_t)(n - 1) * n + n - 1] = 0.0;
    fc_matrix_free(g->M);
    g->M = fc_matrix_to_csr(U);
    CHECK(fc_problem_recover_v(g, r, v, &err) == FC_ERR_NUMERIC, "singular triangular M refused");
    bad = NULL;
    CHECK(fc_problem_reduce(g, &bad, &err) == FC_ERR_NUMERIC && bad == NULL,
          "singular triangular M refused by the reduction (got: %s)", err.msg);
    fc_matrix_free(U);

    fc_matrix_free(S);
    fc_matrix_free(Md);
    fc_matrix_free(Hd);
    free(X);
    free(y);
    fc_problem_free(loc);
    fc_problem_free(g);
    test_equalities(&seed);
    TEST_DONE();
}
