/* The GAMS study's test (shared/seeds/000): a 1 kg box resting on a plane
 * inclined by 0 and 25 degrees, g = 9.81, mu = 0.8 (it sticks), written as
 * a global problem with 4 contacts at the corners of its bottom face.  The
 * contact forces (reaction impulses / h) must sum to m g cos(theta) along
 * the normal and m g sin(theta) along the slope for the dual (reactions,
 * W formed), primal (velocities, the study's 10 outer updates of the
 * relaxation term) and equilibrium formulations (the interior point with
 * the shift updated every step, and Newton on the Alart-Curnier equations,
 * as PATH in the study), and for the ADMM solvers.
 * The 4-contact box is statically indeterminate: only the sums are
 * determined, so only the sums are compared (relative 1e-6, the brief's
 * tolerance; the exact values are the closed forms above, not the study's
 * rounded table).  The SPEC residual is recomputed with tests/check.h. */
#include "test.h"
#include "check.h"
#include "fricon.h"

#define PI 3.14159265358979323846

/* Box of side a, mass mass, at rest on the plane z = 0 of the incline's
 * frame (normal e_z, tangents e_x down-slope direction and e_y); gravity
 * in that frame is mass * 9.81 * (-sin t, 0, -cos t). */
static fc_problem *incline_box(double theta_deg, double mu, double h)
{
    double mass = 1.0, a = 1.0, g = 9.81, th = theta_deg * PI / 180.0;
    double I = mass * a * a / 6.0; /* cube: m (a^2 + a^2) / 12 */
    int nc = 4, n = 6, m = 3 * nc;
    fc_problem *p = fc_problem_new(FC_GLOBAL, 3, nc);
    p->n = n;
    fc_matrix *M = fc_matrix_dense(n, n), *H = fc_matrix_dense(n, m);
    for (int i = 0; i < 3; i++) { M->x[i * n + i] = mass; M->x[(i + 3) * n + i + 3] = I; }
    double frame[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}}; /* normal, t1, t2 */
    for (int c = 0; c < nc; c++) {
        double pc[3] = {(c & 1) ? 0.5 * a : -0.5 * a, (c & 2) ? 0.5 * a : -0.5 * a, -0.5 * a};
        for (int k = 0; k < 3; k++) {
            const double *e = frame[k];
            double mom[3] = {pc[1] * e[2] - pc[2] * e[1], pc[2] * e[0] - pc[0] * e[2],
                             pc[0] * e[1] - pc[1] * e[0]};
            double *col = H->x + (size_t)(3 * c + k) * n;
            for (int i = 0; i < 3; i++) { col[i] = e[i]; col[3 + i] = mom[i]; }
        }
    }
    p->M = M;
    p->H = H;
    p->f = calloc((size_t)n, sizeof *p->f);
    p->w = calloc((size_t)m, sizeof *p->w);
    /* f = M v_prev + h F_gravity with v_prev = 0 */
    p->f[0] = -h * mass * g * sin(th);
    p->f[2] = -h * mass * g * cos(th);
    for (int c = 0; c < nc; c++) p->mu[c] = mu;
    return p;
}

static void run(const char *solver, int formulation, int max_outer, double theta)
{
    double h = 0.01, g = 9.81, th = theta * PI / 180.0;
    fc_problem *p = incline_box(theta, 0.8, h);
    fc_error err;
    CHECK(fc_problem_validate(p, &err) == FC_OK, "box problem valid: %s", err.msg);
    fc_options opt;
    fc_default_options(&opt);
    opt.ipm.formulation = formulation;
    if (max_outer > 0) opt.ipm.max_outer = max_outer;
    opt.max_iter = 20000;
    opt.time_limit = 20;
    int m = fc_problem_m(p);
    double r[12], u[12], v[6];
    fc_info info;
    fc_err e = fc_solve(p, solver, &opt, r, u, v, &info, &err);
    CHECK(e == FC_OK, "%s runs: %s", solver, err.msg);
    double sn = 0, st1 = 0, st2 = 0;
    for (int c = 0; c < p->nc; c++) { sn += r[3 * c]; st1 += r[3 * c + 1]; st2 += r[3 * c + 2]; }
    double fn = sn / h, ft = sqrt(st1 * st1 + st2 * st2) / h;
    double en = 1.0 * g * cos(th), et = 1.0 * g * sin(th);
    double res = check_error(p, r);
    printf("%-6s form %d theta %4.1f: status %-9s it %4d normal %.10f tangential %.10f "
           "(exact %.10f %.10f) residual %.2e\n",
           solver, formulation, theta, fc_status_name(info.status), info.iterations, fn, ft,
           en, et, res);
    CHECK(info.status == FC_CONVERGED, "%s form %d theta %g converged (%s)", solver,
          formulation, theta, info.message);
    CHECK(res <= 1e-8, "%s form %d theta %g: independent residual %.3e", solver, formulation,
          theta, res);
    CHECK(fabs(fn - en) <= 1e-6 * en, "%s form %d theta %g: normal force sum %.12f vs %.12f",
          solver, formulation, theta, fn, en);
    /* at 0 degrees the tangential sum is 0: absolute 1e-6 of the weight */
    CHECK(fabs(ft - et) <= 1e-6 * fmax(et, g), "%s form %d theta %g: tangential sum %.12f vs %.12f",
          solver, formulation, theta, ft, et);
    (void)m;
    fc_problem_free(p);
}

int main(void)
{
    double thetas[2] = {0.0, 25.0};
    for (int k = 0; k < 2; k++) {
        run("gipm", FC_IPM_DUAL, 0, thetas[k]);        /* reactions, W formed */
        run("gipm", FC_IPM_PRIMAL, 10, thetas[k]);     /* velocities, 10 outer updates */
        run("gipm", FC_IPM_EQUILIBRIUM, 0, thetas[k]); /* v, r, u at once */
        run("ipm", FC_IPM_AUTO, 0, thetas[k]);         /* through fc_solve's reduction */
        run("admm", 0, 0, thetas[k]);
        run("gadmm", 0, 0, thetas[k]);
        /* the equilibrium form by Newton (as PATH in the study): the
         * Alart-Curnier equations with v eliminated (fc_solve's reduction) */
        run("nsn-ac", 0, 0, thetas[k]);
    }
    TEST_DONE();
}
