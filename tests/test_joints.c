/* Joints of the rigid-body layer (issue 31), independently of any solver
 * where possible:
 *  - each joint type's Jacobian rows against central finite differences
 *    of its position errors along random velocities (poses off the joint's
 *    reference, body-body and body-world);
 *  - the errors mean what the joint says: the point rows equal the anchor
 *    gap computed here; a hinge's errors do not change under a rotation
 *    about its axis, a prismatic's under a slide along its axis;
 *  - the assembled G of a step's problem against the rows (G^T v);
 *  - the pendulum's small-angle period (zero crossings over 5 periods)
 *    against 2 pi sqrt(L / g), ball and hinge; the drift stays bounded;
 *  - the four-bar (redundant hinges) keeps its joints and its energy does
 *    not grow;
 *  - the chain and the rope (contacts + joints): energy never above the
 *    initial one, drift bounded, when a solver handles equalities; a
 *    solver that refuses them gives FC_ERR_UNSUPPORTED, not a crash. */
#include "test.h"
#include "fricon_mbd.h"
#include "mbd/mbd.h"

#include <fclib.h>
#include <unistd.h>

static double uni(unsigned long long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0 * 2 - 1;
}

static void random_quat(unsigned long long *s, double q[4])
{
    double n = 0;
    for (int k = 0; k < 4; k++) {
        q[k] = uni(s);
        n += q[k] * q[k];
    }
    for (int k = 0; k < 4; k++) q[k] /= sqrt(n);
}

/* Move every moving body by dt along its (v, omega). */
static void advance(fc_mbd_world *w, double dt)
{
    for (int i = 0; i < fc_mbd_body_count(w); i++) {
        fc_mbd_body *b = fc_mbd_body_at(w, i);
        if (b->fixed) continue;
        for (int k = 0; k < 3; k++) b->x[k] += dt * b->v[k];
        fc_mbd_quat_integrate(b->q, b->omega, dt);
    }
}

static void copy_poses(fc_mbd_world *w, const fc_mbd_body *saved)
{
    for (int i = 0; i < fc_mbd_body_count(w); i++) *fc_mbd_body_at(w, i) = saved[i];
}

static double row_dot(const fc_mbd_jrow *r, const fc_mbd_body *a, const fc_mbd_body *b)
{
    double s = 0;
    for (int k = 0; k < 3; k++) {
        s += r->ja[k] * a->v[k] + r->ja[3 + k] * a->omega[k];
        if (b) s += r->jb[k] * b->v[k] + r->jb[3 + k] * b->omega[k];
    }
    return s;
}

static const char *type_name[] = {"ball", "hinge", "fixed", "prismatic"};

static void test_jacobian(int type, int to_world, unsigned long long seed)
{
    unsigned long long s = seed;
    fc_mbd_world *w = fc_mbd_world_new();
    int a = fc_mbd_add_box(w, 0.3, 0.2, 0.1, 1000, 0.1, 0.2, 0.3);
    int b = fc_mbd_add_box(w, 0.2, 0.1, 0.3, 1000, 0.5, -0.1, 0.2);
    random_quat(&s, fc_mbd_body_at(w, a)->q);
    random_quat(&s, fc_mbd_body_at(w, b)->q);
    double anchor[3] = {uni(&s), uni(&s), uni(&s)}, axis[3] = {uni(&s), uni(&s), uni(&s)};
    int j = fc_mbd_add_joint(w, (fc_mbd_joint_type)type, a, to_world ? -1 : b, anchor, axis);
    CHECK(j == 0, "add_joint %s", type_name[type]);
    double C[6];
    int n = fc_mbd_joint_error(w, j, C);
    CHECK(n == fc_mbd_joint_rows((fc_mbd_joint_type)type), "%s: %d rows", type_name[type], n);
    for (int i = 0; i < n; i++) CHECK(fabs(C[i]) < 1e-12, "%s: error %g at creation", type_name[type], C[i]);
    /* off the reference: random pose changes, then random velocities */
    for (int i = 0; i < 2; i++) {
        fc_mbd_body *B = fc_mbd_body_at(w, i);
        double om[3] = {0.3 * uni(&s), 0.3 * uni(&s), 0.3 * uni(&s)};
        fc_mbd_quat_integrate(B->q, om, 1.0);
        for (int k = 0; k < 3; k++) B->x[k] += 0.1 * uni(&s);
        for (int k = 0; k < 3; k++) { B->v[k] = uni(&s); B->omega[k] = 2 * uni(&s); }
    }
    if (to_world) fc_mbd_body_at(w, b)->fixed = 1;
    fc_mbd_body saved[2] = {*fc_mbd_body_at(w, a), *fc_mbd_body_at(w, b)};
    fc_mbd_jrow rows[6];
    n = fc_mbd_joint_jacobian(w, fc_mbd_joint_at(w, j), rows);
    const double dt = 1e-5;
    double Cp[6], Cm[6];
    advance(w, dt);
    fc_mbd_joint_error(w, j, Cp);
    copy_poses(w, saved);
    advance(w, -dt);
    fc_mbd_joint_error(w, j, Cm);
    copy_poses(w, saved);
    double worst = 0;
    for (int i = 0; i < n; i++) {
        double fd = (Cp[i] - Cm[i]) / (2 * dt), jv = row_dot(&rows[i], &saved[0], to_world ? NULL : &saved[1]);
        worst = fmax(worst, fabs(fd - jv) / (1 + fabs(jv)));
    }
    CHECK(worst < 1e-8, "%s%s: Jacobian against finite differences: worst %.3e", type_name[type],
          to_world ? " to the world" : "", worst);
    /* the point rows: x_a + R_a p_a - (x_b + R_b p_b), computed here */
    const fc_mbd_joint *J = fc_mbd_joint_at(w, j);
    if (type != FC_MBD_PRISMATIC) {
        double ra[3], rb[3] = {J->pb[0], J->pb[1], J->pb[2]};
        fc_mbd_rotate(saved[0].q, J->pa, ra);
        if (!to_world) fc_mbd_rotate(saved[1].q, J->pb, rb);
        fc_mbd_joint_error(w, j, C);
        for (int k = 0; k < 3; k++) {
            double gap = saved[0].x[k] + ra[k] - (to_world ? rb[k] : saved[1].x[k] + rb[k]);
            CHECK(fabs(gap - C[k]) < 1e-12, "%s: point row %d %g, expected %g", type_name[type], k, C[k], gap);
        }
    }
    /* hinge: a spin of a about its axis through the anchor leaves the
     * errors; prismatic: so does a slide of a along the axis */
    if (type == FC_MBD_HINGE || type == FC_MBD_PRISMATIC) {
        double before[6], after[6], ua[3];
        fc_mbd_joint_error(w, j, before);
        fc_mbd_body *A = fc_mbd_body_at(w, a);
        fc_mbd_rotate(A->q, J->axis, ua);
        if (type == FC_MBD_HINGE) {
            double p[3], om[3], arm[3], turn[3];
            fc_mbd_rotate(A->q, J->pa, p);
            for (int k = 0; k < 3; k++) { p[k] += A->x[k]; om[k] = 0.7 * ua[k]; arm[k] = A->x[k] - p[k]; }
            /* x' = p + Rot(arm): Rodrigues, about the unit axis ua by 0.7 */
            double c = cos(0.7), sn = sin(0.7), d = v3_dot(ua, arm);
            v3_cross(ua, arm, turn);
            for (int k = 0; k < 3; k++) A->x[k] = p[k] + arm[k] * c + turn[k] * sn + ua[k] * d * (1 - c);
            fc_mbd_quat_integrate(A->q, om, 1.0);
        } else {
            /* the slide axis is b's: t_0 x t_1 in b's frame */
            double ub[3];
            v3_cross(J->tb[0], J->tb[1], ub);
            if (!to_world) fc_mbd_rotate(saved[1].q, ub, ub);
            for (int k = 0; k < 3; k++) A->x[k] += 0.37 * ub[k];
        }
        fc_mbd_joint_error(w, j, after);
        double ch = 0;
        for (int i = 0; i < n; i++) ch = fmax(ch, fabs(after[i] - before[i]));
        CHECK(ch < 1e-12, "%s: the free motion changed the errors by %.3e", type_name[type], ch);
        copy_poses(w, saved);
    }
    /* G of the step's problem: G^T v equals the rows' J v */
    fc_problem *p = NULL;
    fc_error err;
    fc_mbd_detect(w);
    CHECK(fc_mbd_build_problem(w, &p, &err) == FC_OK && p, "build: %s", err.msg);
    if (p) {
        CHECK(p->neq == n, "%s: neq %d, expected %d", type_name[type], p->neq, n);
        double v[12], gv[6] = {0};
        for (int k = 0; k < 3; k++) {
            v[k] = saved[0].v[k]; v[3 + k] = saved[0].omega[k];
            v[6 + k] = saved[1].v[k]; v[9 + k] = saved[1].omega[k];
        }
        fc_matrix_gemv_t(p->G, 1.0, v, 0.0, gv);
        double worst_g = 0;
        for (int i = 0; i < n && i < p->neq; i++)
            worst_g = fmax(worst_g, fabs(gv[i] - row_dot(&rows[i], &saved[0], to_world ? NULL : &saved[1])));
        CHECK(worst_g < 1e-12, "%s: G^T v against the rows: %.3e", type_name[type], worst_g);
        double bexp = 1.0 * rows[0].c / fc_mbd_step_size(w);
        CHECK(fabs(p->b[0] - bexp) < 1e-12 * (1 + fabs(bexp)), "%s: b[0] %g, expected %g", type_name[type],
              p->b[0], bexp);
        fc_problem_free(p);
    }
    fc_mbd_world_free(w);
}

/* Period of the pendulum by the zero crossings of x - x_pivot (linear
 * interpolation) over the given number of half periods. */
static double pendulum_period(fc_mbd_world *w, int body, double x0, int halves, double *drift)
{
    fc_mbd_step_info in;
    fc_error err;
    double prev = fc_mbd_body_at(w, body)->x[0] - x0, first = -1, last = -1;
    int crossings = 0;
    *drift = 0;
    for (int s = 0; s < 100000 && crossings <= halves; s++) {
        double t0 = fc_mbd_time(w);
        if (fc_mbd_step(w, NULL, NULL, &in, &err)) {
            CHECK(0, "pendulum step: %s", err.msg);
            return NAN;
        }
        double x = fc_mbd_body_at(w, body)->x[0] - x0;
        *drift = fmax(*drift, fc_mbd_joint_drift(w));
        if ((prev < 0) != (x < 0)) {
            double t = t0 + fc_mbd_step_size(w) * prev / (prev - x);
            if (crossings == 0) first = t;
            last = t;
            crossings++;
        }
        prev = x;
    }
    return 2 * (last - first) / (crossings - 1);
}

/* The period of w's pendulum (body, pivot at x = x0) within 1e-3 of
 * 2 pi sqrt(L / g), L = 1 m, and its drift below 1e-5; w freed. */
static void check_period(fc_mbd_world *w, int body, double x0, const char *what)
{
    double T0 = 2 * FC_MBD_PI * sqrt(1.0 / 9.81), drift;
    double T = pendulum_period(w, body, x0, 10, &drift);
    printf("pendulum (%s): period %.9f s, 2 pi sqrt(L/g) %.9f s, relative %.2e, drift %.2e m\n", what, T,
           T0, (T - T0) / T0, drift);
    CHECK(fabs(T - T0) <= 1e-3 * T0, "%s pendulum: period %.9f, expected %.9f", what, T, T0);
    CHECK(drift < 1e-5, "%s pendulum: joint drift %.3e", what, drift);
    fc_mbd_world_free(w);
}

static void test_pendulum(void)
{
    fc_mbd_world *w;
    fc_error err;
    CHECK(fc_mbd_scene("pendulum", NULL, &w, &err) == FC_OK, "%s", err.msg);
    check_period(w, 0, 0.0, "ball");

    /* the same on a hinge about y, with a box bob of 1 cm */
    w = fc_mbd_world_new();
    double th = 0.02, pivot[3] = {0.5, 0, 2}, y[3] = {0, 1, 0};
    int b = fc_mbd_add_box(w, 0.005, 0.005, 0.005, 1000, 0.5 + sin(th), 0, 2 - cos(th));
    CHECK(fc_mbd_add_joint(w, FC_MBD_HINGE, b, -1, pivot, y) == 0, "hinge");
    check_period(w, b, 0.5, "hinge");

    /* planar (2D): a disk pinned to the world, gravity along -y */
    w = fc_mbd_world_new();
    fc_mbd_set_planar(w, 1);
    fc_mbd_set_gravity(w, 0, -9.81, 0);
    double pin[3] = {0, 0, 0};
    b = fc_mbd_add_sphere(w, 0.005, 1000, sin(th), -cos(th), 0);
    CHECK(fc_mbd_add_joint(w, FC_MBD_BALL, b, -1, pin, NULL) == 0, "planar pin");
    check_period(w, b, 0.0, "planar");
}

static double energy(const fc_mbd_world *w)
{
    return fc_mbd_kinetic_energy(w) + fc_mbd_potential_energy(w);
}

/* Steps a scene with the solver: the largest energy gain over the initial
 * energy, relative to the scene's energy scale (the potential range), and
 * the largest drift; -1 on a step error (message in err). */
static int run_energy(const char *scene, const char *solver, int steps, double *gain, double *drift,
                      fc_error *err)
{
    fc_mbd_world *w;
    if (fc_mbd_scene(scene, NULL, &w, err)) return -1;
    fc_options o;
    fc_default_options(&o);
    o.tolerance = 1e-8;
    double E0 = energy(w), scale = fabs(E0) + fc_mbd_kinetic_energy(w) + 1e-3;
    for (int i = 0; i < fc_mbd_body_count(w); i++) {
        const fc_mbd_body *B = fc_mbd_body_at(w, i);
        if (!B->fixed) scale += B->mass * 9.81 * fabs(B->x[2]);
    }
    *gain = -INFINITY;
    *drift = 0;
    for (int s = 0; s < steps; s++) {
        fc_mbd_step_info in;
        if (fc_mbd_step(w, solver, &o, &in, err)) {
            fc_mbd_world_free(w);
            return -1;
        }
        *gain = fmax(*gain, (energy(w) - E0) / scale);
        *drift = fmax(*drift, fc_mbd_joint_drift(w));
    }
    fc_mbd_world_free(w);
    return 0;
}

/* Sanitizer builds run the scenes with contacts for a third of the steps. */
#ifdef FRICON_TEST_QUICK
#define QUICK 3
#else
#define QUICK 1
#endif

static void test_fourbar(void)
{
    double gain = 0, drift = 0;
    fc_error err;
    CHECK(run_energy("fourbar", NULL, 500, &gain, &drift, &err) == 0, "fourbar: %s", err.msg);
    printf("fourbar: 500 steps, energy gain %.2e of the scale, drift %.2e\n", gain, drift);
    CHECK(gain <= 1e-3, "fourbar: energy grew by %.3e of its scale", gain);
    CHECK(drift < 1e-2, "fourbar: joint drift %.3e", drift);
}

/* Scenes with contacts and joints: solved by the scenes' default solver
 * (auto, which handles equalities) and by nsgs on the rope. */
static void test_contacts_and_joints(void)
{
    const char *scenes[] = {"chain", "rope", "rope"}, *solvers[] = {NULL, NULL, "nsgs"};
    const int steps[] = {200, 200, 80};   /* nsgs: 0.2 s a rope step */
    for (int k = 0; k < 3; k++) {
        double gain = 0, drift = 0;
        fc_error err;
        int rc = run_energy(scenes[k], solvers[k], steps[k] / QUICK, &gain, &drift, &err);
        CHECK(rc == 0, "%s: %s", scenes[k], err.msg);
        if (rc) continue;
        printf("%s (%s): %d steps, energy gain %.2e of the scale, drift %.2e\n", scenes[k],
               solvers[k] ? solvers[k] : "default", steps[k] / QUICK, gain, drift);
        CHECK(gain <= 1e-3, "%s: energy grew by %.3e of its scale", scenes[k], gain);
        CHECK(drift < 1e-2, "%s: joint drift %.3e", scenes[k], drift);
    }
}

/* out = c + A x (A^T x when trans), k values. */
static void affine(double *out, int k, const double *c, const fc_matrix *A, int trans, const double *x)
{
    memcpy(out, c, (size_t)k * sizeof *out);
    if (trans) fc_matrix_gemv_t(A, 1.0, x, 1.0, out);
    else fc_matrix_gemv(A, 1.0, x, 1.0, out);
}

/* The step's local form with the joints (fc_mbd_reduce and
 * fc_mbd_joint_reduce) against the global problem: for random r and
 * lambda, v recovered satisfies M v = H r + G lambda + f, and
 * H^T v + w = W r + V lambda + q, G^T v + b = V^T r + R lambda + s. */
static void test_local_form(void)
{
    fc_mbd_world *w = fc_mbd_world_new();
    unsigned long long s = 99;
    fc_mbd_add_plane(w, 0, 0, 1, 0, 0, 0);
    int a = fc_mbd_add_box(w, 0.2, 0.05, 0.05, 1000, 0.2, 0, 0.0495);
    int b = fc_mbd_add_box(w, 0.2, 0.05, 0.05, 1000, 0.6, 0, 0.0495);
    int c = fc_mbd_add_sphere(w, 0.05, 1000, 1.0, 0.3, 0.0499);
    double p1[3] = {0.4, 0, 0.05}, p2[3] = {0.8, 0.1, 0.05}, ax[3] = {0, 1, 0};
    fc_mbd_add_joint(w, FC_MBD_BALL, a, b, p1, NULL);
    fc_mbd_add_joint(w, FC_MBD_HINGE, c, b, p2, ax);
    fc_mbd_add_joint(w, FC_MBD_PRISMATIC, a, -1, p1, ax);
    for (int i = 1; i < 4; i++)
        for (int k = 0; k < 3; k++) fc_mbd_body_at(w, i)->v[k] = 0.1 * uni(&s);
    fc_error err;
    fc_problem *g = NULL;
    CHECK(fc_mbd_detect(w) > 0, "contacts on the plane");
    CHECK(fc_mbd_build_problem(w, &g, &err) == FC_OK && g, "%s", err.msg);
    if (!g) { fc_mbd_world_free(w); return; }
    fc_mbd_reduced red;
    double *Y = NULL;
    CHECK(fc_mbd_reduce(w, g, &red, &err) == FC_OK, "%s", err.msg);
    CHECK(fc_mbd_joint_reduce(w, g, red.local, &Y, &err) == FC_OK, "%s", err.msg);
    int m = fc_problem_m(g), n = g->n, neq = g->neq;
    CHECK(neq == 3 + 5 + 5, "neq %d", neq);
    double *r = calloc(m, sizeof *r), *lam = calloc(neq, sizeof *lam), *v = calloc(n, sizeof *v);
    double *t = calloc(n, sizeof *t), *u1 = calloc(m, sizeof *u1), *u2 = calloc(m, sizeof *u2);
    double *e1 = calloc(neq, sizeof *e1), *e2 = calloc(neq, sizeof *e2);
    for (int i = 0; i < m; i++) r[i] = uni(&s);
    for (int i = 0; i < neq; i++) lam[i] = uni(&s);
    fc_mbd_recover_v(w, g, &red, r, v);
    fc_mbd_joint_recover(n, neq, Y, lam, v);
    /* M v - H r - G lambda - f */
    fc_matrix_gemv(g->M, 1.0, v, 0.0, t);
    fc_matrix_gemv(g->H, -1.0, r, 1.0, t);
    fc_matrix_gemv(g->G, -1.0, lam, 1.0, t);
    double dyn = 0, du = 0, de = 0;
    for (int i = 0; i < n; i++) dyn = fmax(dyn, fabs(t[i] - g->f[i]));
    const fc_problem *L = red.local;
    affine(u1, m, g->w, g->H, 1, v);
    affine(u2, m, L->q, L->W, 0, r);
    fc_matrix_gemv(L->V, 1.0, lam, 1.0, u2);
    affine(e1, neq, g->b, g->G, 1, v);
    affine(e2, neq, L->s, L->V, 1, r);
    fc_matrix_gemv(L->R, 1.0, lam, 1.0, e2);
    for (int i = 0; i < m; i++) du = fmax(du, fabs(u1[i] - u2[i]));
    for (int i = 0; i < neq; i++) de = fmax(de, fabs(e1[i] - e2[i]));
    CHECK(dyn < 1e-10, "local form: M v - H r - G lambda - f = %.3e", dyn);
    CHECK(du < 1e-10, "local form: H^T v + w - (W r + V lambda + q) = %.3e", du);
    CHECK(de < 1e-10, "local form: G^T v + b - (V^T r + R lambda + s) = %.3e", de);
    CHECK(fc_matrix_asymmetry(L->R) < 1e-12, "R symmetric: %.3e", fc_matrix_asymmetry(L->R));
    free(r); free(lam); free(v); free(t); free(u1); free(u2); free(e1); free(e2); free(Y);
    fc_mbd_reduced_free(&red);
    fc_problem_free(g);
    fc_mbd_world_free(w);
}

/* Export of a step with contacts and joints: fricon's reader and
 * libfclib's own (fclib_read_global, fclib_read_local,
 * fclib_read_solution) give back G, b, V, R, s and lambda; the exported
 * solution satisfies the dynamics and G^T v + b = 0. */
static void test_export(void)
{
    fc_mbd_world *w;
    fc_error err;
    CHECK(fc_mbd_scene("chain", NULL, &w, &err) == FC_OK, "%s", err.msg);
    fc_options o;
    fc_default_options(&o);
    o.tolerance = 1e-10;
    fc_mbd_step_info in = {0};
    fc_err e = FC_OK;
    for (int s = 0; s < 100 && !e && in.ncontacts == 0; s++) e = fc_mbd_step(w, NULL, &o, &in, &err);
    if (e == FC_ERR_UNSUPPORTED) {
        printf("export: no solver handles equalities yet\n");
        fc_mbd_world_free(w);
        return;
    }
    CHECK(!e && in.ncontacts > 0, "chain: %s", e ? err.msg : "no contact in 100 steps");
    const fc_problem *g = fc_mbd_last_problem(w);
    char gpath[128], lpath[128];
    snprintf(gpath, sizeof gpath, "/tmp/fricon-test-joints-%ld.hdf5", (long)getpid());
    snprintf(lpath, sizeof lpath, "/tmp/fricon-test-joints-%ld-local.hdf5", (long)getpid());
    CHECK(fc_mbd_export_last(w, gpath, 0, NULL, &err) == FC_OK, "export: %s", err.msg);
    CHECK(fc_mbd_export_last(w, lpath, 1, NULL, &err) == FC_OK, "export local: %s", err.msg);
    if (!g || e) goto done;
    int n = g->n, neq = g->neq;
    struct fclib_global *fg = fclib_read_global(gpath);
    struct fclib_local *fl = fclib_read_local(lpath);
    struct fclib_solution *fs = fclib_read_solution(gpath);
    CHECK(fg && fg->G && fg->b, "fclib_read_global: G, b");
    CHECK(fl && fl->V && fl->R && fl->s, "fclib_read_local: V, R, s");
    CHECK(fs && fs->l && fs->v, "fclib_read_solution: v, l");
    if (fg && fg->G && fg->b && fs && fs->l && fs->v) {
        CHECK(fg->G->m == n && fg->G->n == neq, "G %d x %d, expected %d x %d", fg->G->m, fg->G->n, n, neq);
        double db = 0, dl = 0, res = 0, nb = 0;
        for (int k = 0; k < neq; k++) {
            db = fmax(db, fabs(fg->b[k] - g->b[k]));
            dl = fmax(dl, fabs(fs->l[k] - w->last_lambda[k]));
        }
        /* G^T v + b from libfclib's G (compressed rows: nz -2) and solution */
        double *e = calloc(neq, sizeof *e);
        memcpy(e, fg->b, neq * sizeof *e);
        for (int r = 0; r < n && fg->G->nz == -2; r++)
            for (int k = fg->G->p[r]; k < fg->G->p[r + 1]; k++) e[fg->G->i[k]] += fg->G->x[k] * fs->v[r];
        for (int c = 0; c < neq; c++) {
            res += e[c] * e[c];
            nb += fg->b[c] * fg->b[c];
        }
        free(e);
        CHECK(fg->G->nz == -2, "G stored by rows (nz %d)", fg->G->nz);
        CHECK(db == 0 && dl == 0, "b differs by %.1e, lambda by %.1e", db, dl);
        res = sqrt(res) / fmax(1, sqrt(nb));
        CHECK(res < 1e-8, "exported solution: ||G^T v + b|| / max(1, ||b||) = %.3e", res);
        printf("export: %d contacts, %d joint rows, read back by libfclib; equality residual %.2e\n",
               g->nc, neq, res);
    }
    fc_problem *pg = NULL;
    CHECK(fc_read(gpath, &pg, &err) == FC_OK, "fc_read: %s", err.msg);
    if (pg) CHECK(pg->neq == neq && pg->G && pg->b, "fc_read: neq %d, expected %d", pg->neq, neq);
    fc_problem_free(pg);
    if (fg) { fclib_delete_global(fg); free(fg); }   /* libfclib frees the members only */
    if (fl) { fclib_delete_local(fl); free(fl); }
    if (fs) fclib_delete_solutions(fs, 1);
done:
    remove(gpath);
    remove(lpath);
    fc_mbd_world_free(w);
}

static void test_refusal(void)
{
    /* fpp handles no equality constraint: a clear error, no crash */
    fc_mbd_world *w;
    fc_error err;
    CHECK(fc_mbd_scene("chain", NULL, &w, &err) == FC_OK, "%s", err.msg);
    fc_err e = FC_OK;
    for (int s = 0; s < 200 && e == FC_OK; s++) e = fc_mbd_step(w, "fpp", NULL, NULL, &err);
    CHECK(e == FC_ERR_UNSUPPORTED, "chain with fpp: %d (%s)", e, e ? err.msg : "ran");
    if (e) CHECK(strstr(err.msg, "joints") != NULL, "message: %s", err.msg);
    fc_mbd_world_free(w);
}

int main(void)
{
    for (int t = 0; t < 4; t++)
        for (int world = 0; world < 2; world++) test_jacobian(t, world, 0x1234567ULL + 17 * t + world);
    test_pendulum();
    test_fourbar();
    test_local_form();
    test_contacts_and_joints();
    test_export();
    test_refusal();
    TEST_DONE();
}
