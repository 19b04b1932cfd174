/* Cone projections and one-contact solvers: hand-checked projections in
 * each region (d = 2, 3, 5), the projection's optimality conditions on
 * random points, and every one-contact solver on random one-contact
 * problems judged by an independently computed SPEC error. */
#include "test.h"
#include "check.h"
#include "cone/cone.h"

/* A small local PRNG (xorshift64*), uniform in [lo, hi). */
static unsigned long long rng = 88172645463325252ULL;
static double urand(double lo, double hi)
{
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return lo + (hi - lo) * (double)((rng * 2685821657736338717ULL) >> 11) * 0x1.0p-53;
}

/* The rolling-cone projection by bisection on the monotone derivative of
 * phi(n) = (n - x_N)^2 + max(0, |x_T| - mu n)^2 + max(0, |x_R| - mu_r n)^2
 * (to full precision, unlike check.h's golden section), independent of
 * the library's piecewise closed form. */
static void project5_bisect(double mu, double mur, double *x)
{
    double a = hypot(x[1], x[2]), b = hypot(x[3], x[4]);
    if (a <= mu * x[0] && b <= mur * x[0]) return;
    double lo = 0.0, hi = fabs(x[0]) + a + b + 1.0;
    for (int it = 0; it < 200 && hi > lo; it++) {
        double n = 0.5 * (lo + hi);
        if (n <= lo || n >= hi) break;
        double g = (n - x[0]) - mu * fmax(0, a - mu * n) - mur * fmax(0, b - mur * n);
        if (g > 0) hi = n; else lo = n;
    }
    double n = 0.5 * (lo + hi);
    if ((0.0 - x[0]) - mu * a - mur * b >= 0) n = 0.0;
    x[0] = n;
    double st = a > mu * n ? (a > 0 ? mu * n / a : 0) : 1, sr = b > mur * n ? (b > 0 ? mur * n / b : 0) : 1;
    x[1] *= st; x[2] *= st; x[3] *= sr; x[4] *= sr;
}

/* Project x with fc_project_cone and compare with want componentwise. */
static void check_proj(int d, double mu, double mur, const double *x, const double *want,
                       const char *what)
{
    double y[5];
    memcpy(y, x, (size_t)d * sizeof *y);
    fc_project_cone(d, mu, mur, y);
    for (int k = 0; k < d; k++) CHECK_NEAR(y[k], want[k], 1e-15, what);
}

/* Hand-derived projections, one per region and per special case. */
static void test_hand_cases(void)
{
    /* d = 3 */
    check_proj(3, 0.5, 0, (double[]){1, 0.3, 0.2}, (double[]){1, 0.3, 0.2}, "3d inside");
    check_proj(3, 0.5, 0, (double[]){-1, 0.1, 0.1}, (double[]){0, 0, 0}, "3d polar");
    /* x = (0, 1, 0), mu = 1: a = (0 + 1) / 2 */
    check_proj(3, 1.0, 0, (double[]){0, 1, 0}, (double[]){0.5, 0.5, 0}, "3d boundary");
    /* x = (1, 3, 4), mu = 0.5: ||x_T|| = 5, a = (1 + 2.5) / 1.25 = 2.8, x_T -> 0.5*2.8*(3,4)/5 */
    check_proj(3, 0.5, 0, (double[]){1, 3, 4}, (double[]){2.8, 0.84, 1.12}, "3d boundary 2");
    check_proj(3, 0.0, 0, (double[]){1, 2, 3}, (double[]){1, 0, 0}, "3d mu=0");
    check_proj(3, 0.0, 0, (double[]){-1, 2, 3}, (double[]){0, 0, 0}, "3d mu=0 polar");
    check_proj(3, 0.3, 0, (double[]){0, 0, 0}, (double[]){0, 0, 0}, "3d apex");
    /* d = 2 */
    check_proj(2, 1.0, 0, (double[]){0, -2}, (double[]){1, -1}, "2d boundary");
    check_proj(2, 1.0, 0, (double[]){2, -1}, (double[]){2, -1}, "2d inside");
    check_proj(2, 1.0, 0, (double[]){-2, 1}, (double[]){0, 0}, "2d polar");
    /* d = 5, mu = mu_r = 1.  x = (0,1,0,0,0): phi'/2 = 2n - 1 -> n = 1/2 */
    check_proj(5, 1, 1, (double[]){0, 1, 0, 0, 0}, (double[]){0.5, 0.5, 0, 0, 0}, "5d T only");
    /* x = (0,1,0,1,0): both active, 3n - 2 = 0 -> n = 2/3 */
    check_proj(5, 1, 1, (double[]){0, 1, 0, 1, 0},
               (double[]){2.0 / 3, 2.0 / 3, 0, 2.0 / 3, 0}, "5d both");
    /* x = (0,1,0,0.1,0): breakpoints 0.1 and 1, root n = 1/2 on [0.1, 1] */
    check_proj(5, 1, 1, (double[]){0, 1, 0, 0.1, 0}, (double[]){0.5, 0.5, 0, 0.1, 0}, "5d middle");
    check_proj(5, 1, 1, (double[]){2, 1, 0, 0.1, 0.2}, (double[]){2, 1, 0, 0.1, 0.2}, "5d inside");
    check_proj(5, 1, 2, (double[]){-5, 1, 0, 1, 0}, (double[]){0, 0, 0, 0, 0}, "5d polar");
    /* mu_r = 0: x_R must vanish, x_T inside */
    check_proj(5, 1, 0, (double[]){1, 0.5, 0, 1, 1}, (double[]){1, 0.5, 0, 0, 0}, "5d mu_r=0");
    check_proj(5, 0, 0, (double[]){1, 0.5, 0, 1, 1}, (double[]){1, 0, 0, 0, 0}, "5d mu=mu_r=0");
}

/* Moreau: P(x) in K, y = x - P(x) in the polar cone, <y, P(x)> = 0,
 * P idempotent, and agreement with the test's own projection. */
static void test_optimality(void)
{
    int dims[3] = {2, 3, 5};
    for (int t = 0; t < 30000; t++) {
        int d = dims[t % 3];
        double mu = t % 7 == 0 ? 0.0 : urand(0.01, 2.0);
        double mur = d == 5 && t % 11 == 0 ? 0.0 : urand(0.0, 1.0);
        double x[5] = {0}, p[5] = {0}, p2[5], ref[5], y[5] = {0};
        for (int k = 0; k < d; k++) x[k] = urand(-1, 1) * (t % 5 == 0 ? 1e3 : 1.0);
        memcpy(p, x, sizeof x);
        fc_project_cone(d, mu, mur, p);
        double sc = check_norm(d, x) + 1e-300, tol = 1e-13 * sc;
        for (int k = 0; k < d; k++) y[k] = x[k] - p[k];
        double pt = d == 2 ? fabs(p[1]) : hypot(p[1], p[2]);
        double yt = d == 2 ? fabs(y[1]) : hypot(y[1], y[2]);
        double pr = d == 5 ? hypot(p[3], p[4]) : 0.0, yr = d == 5 ? hypot(y[3], y[4]) : 0.0;
        CHECK(pt <= mu * p[0] + tol && pr <= mur * p[0] + tol && p[0] >= -tol,
              "P(x) in K (d=%d, t=%d)", d, t);
        /* polar cone of K: -y_N >= mu ||y_T|| (+ mu_r ||y_R||) */
        CHECK(mu * yt + mur * yr <= -y[0] + tol, "x - P(x) in the polar cone (d=%d, t=%d)", d, t);
        CHECK(fabs(y[0] * p[0] + y[1] * p[1] + (d > 2 ? y[2] * p[2] : 0.0) + (d == 5 ? y[3] * p[3] + y[4] * p[4] : 0.0)) <= 1e-13 * sc * sc, "complementarity (d=%d, t=%d)", d, t);
        memcpy(p2, p, sizeof p);
        fc_project_cone(d, mu, mur, p2);
        for (int k = 0; k < d; k++) CHECK_NEAR(p2[k], p[k], tol, "idempotent");
        memcpy(ref, x, sizeof x);
        check_project(d, mu, mur, ref);
        for (int k = 0; k < d; k++) CHECK_NEAR(p[k], ref[k], 1e-7 * sc, "agrees with check_project");
        if (d == 5) {   /* x_R = 0 reduces the rolling cone to the 3-D one */
            double a[5] = {x[0], x[1], x[2], 0, 0}, b[3] = {x[0], x[1], x[2]};
            fc_project_cone(5, mu, mur, a);
            fc_project_cone(3, mu, 0, b);
            for (int k = 0; k < 3; k++) CHECK_NEAR(a[k], b[k], tol, "5d with x_R = 0 is 3d");
            memcpy(ref, x, sizeof x);
            project5_bisect(mu, mur, ref);
            for (int k = 0; k < d; k++) CHECK_NEAR(p[k], ref[k], 1e-12 * sc, "agrees with bisection");
        }
    }
}

/* SPEC error of one contact at r computed here: u = W r + q, u_hat, the
 * natural map with check_project, relative to max(||q||, ||r||, ||u||). */
static double one_contact_error(int d, const double *W, const double *q, double mu,
                                double mur, const double *r, int *sliding)
{
    double u[5], x[5], e[5];
    for (int i = 0; i < d; i++) {
        u[i] = q[i];
        for (int j = 0; j < d; j++) u[i] += W[j * d + i] * r[j];
    }
    double ut = d == 2 ? fabs(u[1]) : hypot(u[1], u[2]);
    x[0] = r[0] - (u[0] + mu * ut + (d == 5 ? mur * hypot(u[3], u[4]) : 0.0));
    for (int k = 1; k < d; k++) x[k] = r[k] - u[k];
    if (d == 5) project5_bisect(mu, mur, x);
    else check_project(d, mu, mur, x);
    for (int k = 0; k < d; k++) e[k] = r[k] - x[k];
    if (sliding) *sliding = ut > 1e-8 * check_norm(d, q) && r[0] > 0;
    double s = fmax(check_norm(d, q), fmax(check_norm(d, r), check_norm(d, u)));
    return check_norm(d, e) / (s < 1e-300 ? 1.0 : s);
}

/* A random SPD d x d matrix A A^T + 0.05 I (column-major). */
static void random_spd(int d, double *W)
{
    double A[25];
    for (int k = 0; k < d * d; k++) A[k] = urand(-1, 1);
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double s = i == j ? 0.05 : 0.0;
            for (int k = 0; k < d; k++) s += A[k * d + i] * A[k * d + j];
            W[j * d + i] = s;
        }
}

/* Each local solver on random one-contact problems: the hybrid and the
 * exact solver must reach 1e-12 on every problem; Newton and projection
 * alone on most of them.  Sliding solutions must occur. */
static void test_local_solvers(int d)
{
    const int N = 3000;
    int fails[4] = {0}, slides = 0, sticks = 0, takeoffs = 0;
    fc_local_solver kinds[4] = {FC_LOCAL_HYBRID, FC_LOCAL_EXACT, FC_LOCAL_NEWTON_AC,
                                FC_LOCAL_PROJECTION};
    for (int t = 0; t < N; t++) {
        double W[25], q[5], mu = urand(0.05, 1.5), mur = urand(0.0, 0.5);
        random_spd(d, W);
        for (int k = 0; k < d; k++) q[k] = urand(-1, 1);
        if (t % 4) q[0] = -fabs(q[0]);   /* mostly in contact */
        fc_local c;
        fc_local_setup(&c, d, W, mu, mur);
        for (int s = 0; s < 4; s++) {
            if (d == 5 && s == 1) continue;   /* no enumeration for rolling */
            fc_local_params par = {kinds[s], 1e-14, 50};
            double r[5] = {0};
            if (t % 3 == 0) for (int k = 0; k < d; k++) r[k] = urand(-1, 1); /* warm start */
            double claimed = fc_local_solve(&c, q, &par, r);
            int sl = 0;
            double e = one_contact_error(d, W, q, mu, mur, r, &sl);
            if (!(e <= 1e-12)) fails[s]++;
            CHECK(fabs(claimed - e) <= 1e-12 + 1e-6 * e, "claimed error %g vs %g", claimed, e);
            if (s == 0) {
                if (r[0] == 0) takeoffs++;
                else if (sl) slides++;
                else sticks++;
                CHECK(e <= 1e-12, "hybrid d=%d problem %d: error %.3e", d, t, e);
            }
            if (s == 1) CHECK(e <= 1e-12, "exact d=%d problem %d: error %.3e", d, t, e);
        }
    }
    printf("d=%d: %d take-off, %d sticking, %d sliding; misses of 1e-12: hybrid %d, exact %d, "
           "newton %d, projection %d (of %d)\n", d, takeoffs, sticks, slides,
           fails[0], fails[1], fails[2], fails[3], N);
    CHECK(slides > N / 10 && sticks > 0 && takeoffs > 0, "all three laws occur");
    CHECK(fails[2] < N / 20, "newton alone solves most problems (%d misses)", fails[2]);
    CHECK(fails[3] < N / 50, "projection solves most problems (%d misses)", fails[3]);
}

/* The exact solver on a hand-made sliding case: W = I, q = (-1, 2, 0),
 * mu = 0.5: r = (1, -0.5, 0), u = (0, 1.5, 0). */
static void test_exact_hand(void)
{
    double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q[3] = {-1, 2, 0}, r[3] = {0, 0, 0};
    fc_local c;
    fc_local_setup(&c, 3, W, 0.5, 0.0);
    double e = fc_local_exact(&c, q, r);
    CHECK(e <= 1e-15, "exact sliding error %g", e);
    CHECK_NEAR(r[0], 1.0, 1e-15, "r_N");
    CHECK_NEAR(r[1], -0.5, 1e-15, "r_T1");
    CHECK_NEAR(r[2], 0.0, 1e-15, "r_T2");
}

/* fc_local_law_3d against a solve done here (Gaussian elimination):
 * on random, slightly nonsymmetric W, the sticking case is taken when
 * W^-1 (-q) is inside the cone by a margin (and equals it), refused when
 * outside by a margin; take-off when q_N >= 0; a singular W: -1. */
static void test_law_3d(void)
{
    int stick = 0, slide = 0;
    for (int t = 0; t < 2000; t++) {
        double W[9], A[3][4], x[3], r[3] = {9, 9, 9}, q[3], mu = urand(0.1, 1.0);
        random_spd(3, W);
        for (int k = 0; k < 9; k++) W[k] *= 1.0 + urand(-0.05, 0.05);   /* not symmetric */
        for (int k = 0; k < 3; k++) q[k] = urand(-1, 1);
        q[0] = t % 10 ? -fabs(q[0]) : fabs(q[0]);
        fc_local c;
        fc_local_setup(&c, 3, W, mu, 0.0);
        int ret = fc_local_law_3d(&c, q, r);
        if (q[0] >= 0) {
            CHECK(ret == 0 && r[0] == 0 && r[1] == 0 && r[2] == 0, "take-off");
            continue;
        }
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) A[i][j] = W[j * 3 + i];
            A[i][3] = -q[i];
        }
        for (int k = 0; k < 3; k++) {   /* no pivoting: SPD up to 5% */
            for (int i = k + 1; i < 3; i++) {
                double f = A[i][k] / A[k][k];
                for (int j = k; j < 4; j++) A[i][j] -= f * A[k][j];
            }
        }
        for (int i = 2; i >= 0; i--) {
            double v = A[i][3];
            for (int j = i + 1; j < 3; j++) v -= A[i][j] * x[j];
            x[i] = v / A[i][i];
        }
        double margin = mu * x[0] - hypot(x[1], x[2]), scale = check_norm(3, x);
        if (x[0] > 1e-9 * scale && margin > 1e-9 * scale) {
            stick++;
            CHECK(ret == 0, "law_3d refused a sticking case (margin %g)", margin);
            for (int k = 0; k < 3; k++) CHECK(fabs(r[k] - x[k]) <= 1e-10 * scale, "sticking r[%d]: %g, %g", k, r[k], x[k]);
        } else if (x[0] < -1e-9 * scale || margin < -1e-9 * scale) {
            slide++;
            CHECK(ret != 0, "law_3d took a sticking r outside the cone (margin %g)", margin);
        }
    }
    double S[9] = {1, 1, 0, 1, 1, 0, 0, 0, 1}, q[3] = {-1, 0, 0}, r[3];   /* rank 2 */
    fc_local c;
    fc_local_setup(&c, 3, S, 0.5, 0.0);
    CHECK(fc_local_law_3d(&c, q, r) != 0, "law_3d on a singular W");
    printf("law_3d: %d sticking, %d not, checked\n", stick, slide);
    CHECK(stick > 100 && slide > 100, "both cases occur");
}

/* The velocity form's sweep (velocity_contact.c) runs the hybrid in two
 * parts: fc_local_closed_3d, then fc_local_solve_open when no closed form
 * holds.  On random contacts, isotropic (every case of the closed forms)
 * and not, the two parts give fc_local_solve's r bit for bit, and the
 * closed forms' r meet the local tolerance. */
static void test_closed_split(void)
{
    fc_local_params par = {FC_LOCAL_HYBRID, 1e-14, 20};
    int cases[3] = {0, 0, 0};
    for (int t = 0; t < 3000; t++) {
        double W[9] = {0}, q[3], mu = urand(0.1, 1.0), r0[3], a[3], b[3];
        if (t % 2) {
            random_spd(3, W);
        } else {   /* isotropic: W_NN, w I on the tangent plane */
            W[0] = urand(0.5, 2.0);
            W[4] = W[8] = urand(0.5, 3.0);
        }
        for (int k = 0; k < 3; k++) q[k] = urand(-1, 1);
        q[0] = t % 7 ? -fabs(q[0]) : fabs(q[0]);
        for (int k = 0; k < 3; k++) r0[k] = a[k] = b[k] = urand(-0.2, 0.2);
        fc_local c;
        fc_local_setup(&c, 3, W, mu, 0.0);
        fc_local_solve(&c, q, &par, a);
        int k = fc_local_closed_3d(&c, q, par.tol, b);
        if (k < 0) {
            CHECK(b[0] == r0[0] && b[1] == r0[1] && b[2] == r0[2], "no closed form: r untouched");
            fc_local_solve_open(&c, q, &par, b);
        } else {
            CHECK(fc_local_error(&c, q, b) <= par.tol, "closed form %d: local error %g", k,
                  fc_local_error(&c, q, b));
        }
        cases[k + 1]++;
        CHECK(memcmp(a, b, sizeof a) == 0, "split solve differs: (%g %g %g) (%g %g %g)", a[0], a[1], a[2],
              b[0], b[1], b[2]);
    }
    printf("closed forms: %d searched, %d take-off or sticking, %d sliding\n", cases[0], cases[1], cases[2]);
    CHECK(cases[0] > 100 && cases[1] > 100 && cases[2] > 100, "every case occurs");
}

int main(void)
{
    test_law_3d();
    test_closed_split();
    test_hand_cases();
    test_optimality();
    test_exact_hand();
    test_local_solvers(3);
    test_local_solvers(2);
    test_local_solvers(5);
    TEST_DONE();
}
