/* The rigid-body layer: scenes checked against hand-derived values.
 *  - incline at 0 and 25 degrees (1 kg, sticking): summed contact forces
 *    m g cos, m g sin (the seed's 9.81 / 0 and 8.8909 / 4.1459);
 *  - slide (mu 0.3 < tan 25): acceleration g (sin - mu cos);
 *  - the 4 x 20 x 4 stack (800 contacts) at rest for 1 s (time budget);
 *  - the block-diagonal reduction against CHOLMOD's fc_problem_reduce;
 *  - H against relative velocities computed independently;
 *  - the broad phase against all pairs (dense and hashed grids, threads
 *    1, 2, 3); narrow-phase gaps;
 *  - free flight and rotation; pile and column stay sane; the chute's
 *    starting block (narrow at the collections' sizes, wide above);
 *  - export: the stack's problems written (global and local form), read
 *    back, equal to the step's, and the exported impulses solve them to
 *    the tolerance by the independent measure of tests/check.h;
 *  - planar worlds (collections): three disks on a floor under tilted
 *    gravity (not hyperstatic: unique impulses) give the same normal and
 *    tangential forces and velocities in 2D (d = 2, 3 dofs per body) and
 *    in 3D; the 2D scenes build planar problems that solve, and the
 *    exported guess is the step's warm start. */
#include "test.h"
#include "check.h"
#include "fricon_mbd.h"
#include "mbd/mbd.h"

#include <unistd.h>

static const double g0 = 9.81;

static double wall(void) { return fc_now(); }

static void opts(fc_options *o, double tol)
{
    fc_default_options(o);
    o->tolerance = tol;
    o->max_iter = 100000;
}

static void test_incline(double angle)
{
    fc_mbd_scene_params par;
    fc_mbd_scene_defaults(&par);
    par.angle_deg = angle;
    fc_mbd_world *w;
    fc_error err;
    CHECK(fc_mbd_scene("incline", &par, &w, &err) == FC_OK, "%s", err.msg);
    fc_options o;
    /* 1e-11: the global measure's scale is max(|w|, |r|, |u|) ~ |r| ~ 0.1,
     * so v+ is exact to ~1e-12 and forces (r / h) to ~1e-10 relative */
    opts(&o, 1e-11);
    double th = angle * FC_MBD_PI / 180, N0 = g0 * cos(th), T0 = g0 * sin(th);
    for (int s = 0; s < 10; s++) {
        fc_mbd_step_info in;
        CHECK(fc_mbd_step(w, "nsgs", &o, &in, &err) == FC_OK, "%s", err.msg);
        CHECK(in.ncontacts == 4, "incline %g: %d contacts, expected the 4 bottom corners", angle, in.ncontacts);
        CHECK(in.solve.status == FC_CONVERGED, "incline %g step %d: %s, residual %.3e", angle, s + 1,
              fc_status_name(in.solve.status), in.solve.residual);
        double N, T;
        fc_mbd_contact_forces(w, 1, NULL, &N, &T);
        CHECK(fabs(N - N0) <= 1e-6 * N0, "incline %g step %d: normal force %.12f, expected %.12f",
              angle, s + 1, N, N0);
        CHECK(fabs(T - T0) <= 1e-6 * fmax(T0, g0), "incline %g step %d: tangential force %.12f, expected %.12f",
              angle, s + 1, T, T0);
        CHECK(in.max_speed < 1e-8, "incline %g: the box moves at %.3e m/s", angle, in.max_speed);
    }
    double N, T;
    fc_mbd_contact_forces(w, 1, NULL, &N, &T);
    if (angle == 25) { /* the seed's table, 4 decimals */
        CHECK(fabs(N - 8.8909) < 1e-4 && fabs(T - 4.1459) < 1e-4, "seed table: %.6f %.6f", N, T);
    } else if (angle == 0) {
        CHECK(fabs(N - 9.81) < 1e-9 && fabs(T) < 1e-9, "seed table: %.6f %.6f", N, T);
    }
    printf("incline %g deg: normal %.10f (exact %.10f), tangential %.10f (exact %.10f)\n", angle, N, N0, T, T0);
    fc_mbd_world_free(w);
}

static void test_slide(double angle, double mu)
{
    fc_mbd_scene_params par;
    fc_mbd_scene_defaults(&par);
    par.angle_deg = angle;
    par.mu = mu;
    fc_mbd_world *w;
    fc_error err;
    CHECK(fc_mbd_scene("slide", &par, &w, &err) == FC_OK, "%s", err.msg);
    fc_options o;
    opts(&o, 1e-11);
    double th = angle * FC_MBD_PI / 180, a0 = g0 * (sin(th) - mu * cos(th));
    double down[3] = {-cos(th), 0, -sin(th)}, vprev = 0, worst = 0;
    double h = fc_mbd_step_size(w);
    for (int s = 0; s < 30; s++) {
        fc_mbd_step_info in;
        CHECK(fc_mbd_step(w, "nsgs", &o, &in, &err) == FC_OK, "%s", err.msg);
        CHECK(in.solve.status == FC_CONVERGED, "slide step %d: residual %.3e", s + 1, in.solve.residual);
        const fc_mbd_body *b = fc_mbd_body_at(w, 1);
        double vd = v3_dot(b->v, down), a = (vd - vprev) / h;
        worst = fmax(worst, fabs(a - a0) / a0);
        vprev = vd;
        CHECK(v3_norm(b->omega) < 1e-8, "slide: the box rotates (%.3e rad/s)", v3_norm(b->omega));
    }
    CHECK(worst <= 1e-6, "slide %g deg mu %g: acceleration off by %.3e relative (expected %.10f)", angle, mu,
          worst, a0);
    printf("slide %g deg mu %g: acceleration %.10f expected, worst relative error %.2e over 30 steps\n", angle,
           mu, a0, worst);
    fc_mbd_world_free(w);
}

/* The 4 x 20 x 4 stack at rest for 1 s (100 steps of 1e-2) within a time
 * budget: the steps done within it are checked and the count printed. */
static void test_stack(double budget)
{
    fc_mbd_world *w;
    fc_error err;
    CHECK(fc_mbd_scene("stack", NULL, &w, &err) == FC_OK, "%s", err.msg);
    CHECK(fc_mbd_detect(w) == 800, "stack: %d contacts, expected 800", fc_mbd_contact_count(w));
    fc_options o;
    opts(&o, 1e-8);
    double t0 = wall(), vmax = 0, solve = 0;
    int s, notconv = 0;
    for (s = 0; s < 100 && wall() - t0 < budget; s++) {
        fc_mbd_step_info in;
        CHECK(fc_mbd_step(w, "nsgs", &o, &in, &err) == FC_OK, "%s", err.msg);
        CHECK(in.ncontacts == 800, "stack step %d: %d contacts", s + 1, in.ncontacts);
        notconv += in.solve.status != FC_CONVERGED;
        vmax = fmax(vmax, in.max_speed);
        solve += in.t_solve;
    }
    CHECK(s >= 20, "stack: only %d steps within the %.0f s budget", s, budget);
    CHECK(vmax < 1e-3, "stack: maximum speed %.3e m/s over %d steps", vmax, s);
    CHECK(notconv == 0, "stack: %d solves did not converge", notconv);
    printf("stack: %d of 100 steps (%.2f s simulated) in %.1f s, max speed %.3e m/s, %.4f s per solve\n", s,
           s * fc_mbd_step_size(w), wall() - t0, vmax, solve / s);
    fc_mbd_world_free(w);
}

/* The step's own reduction equals fc_problem_reduce (CHOLMOD) on a scene
 * with spheres, boxes, rotations and a plane. */
static void test_reduction(void)
{
    fc_mbd_world *w = fc_mbd_world_new();
    fc_error err;
    fc_mbd_add_plane(w, 0.1, 0, 1, 0, 0, 0);
    unsigned long long s = 7;
    for (int i = 0; i < 30; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double jitter = (double)(s >> 11) / 9007199254740992.0 - 0.5;
        int b = (i % 3 == 0) ? fc_mbd_add_box(w, 0.1, 0.07, 0.05, 800, 0.3 * (i % 5), 0.3 * (i / 5), 0.2)
                             : fc_mbd_add_sphere(w, 0.1, 1000, 0.3 * (i % 5), 0.3 * (i / 5), 0.08 + 0.02 * jitter);
        fc_mbd_body *B = fc_mbd_body_at(w, b);
        B->q[0] = 1; B->q[1] = 0.3 * jitter; B->q[2] = 0.1; B->q[3] = -0.2 * jitter;
        double n = sqrt(1 + 0.09 * jitter * jitter + 0.01 + 0.04 * jitter * jitter);
        for (int k = 0; k < 4; k++) B->q[k] /= n;
        B->v[0] = jitter; B->omega[2] = 2 * jitter;
    }
    fc_mbd_set_margin(w, 0.3);
    int nc = fc_mbd_detect(w);
    CHECK(nc > 10, "reduction scene: %d contacts", nc);
    fc_problem *g = NULL, *ref = NULL;
    CHECK(fc_mbd_build_problem(w, &g, &err) == FC_OK && g, "%s", err.msg);
    CHECK(fc_problem_validate(g, &err) == FC_OK, "global problem invalid: %s", err.msg);
    CHECK(fc_problem_reduce(g, &ref, &err) == FC_OK, "%s", err.msg);
    fc_mbd_reduced red;
    CHECK(fc_mbd_reduce(w, g, &red, &err) == FC_OK, "%s", err.msg);
    int m = 3 * nc;
    double dw = 0, wmax = 0, dq = 0, qmax = 0;
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < m; j++) {
            double a = fc_matrix_get(red.local->W, i, j), b = fc_matrix_get(ref->W, i, j);
            dw = fmax(dw, fabs(a - b));
            wmax = fmax(wmax, fabs(b));
        }
        dq = fmax(dq, fabs(red.local->q[i] - ref->q[i]));
        qmax = fmax(qmax, fabs(ref->q[i]));
    }
    CHECK(dw <= 1e-12 * wmax, "W differs from CHOLMOD's by %.3e (max %.3e)", dw, wmax);
    CHECK(dq <= 1e-12 * qmax, "q differs from CHOLMOD's by %.3e (max %.3e)", dq, qmax);
    CHECK(fc_problem_validate(red.local, &err) == FC_OK, "local problem invalid: %s", err.msg);
    /* recovery: v = M^-1 (H r + f) for some r */
    double *r = calloc((size_t)m, sizeof *r), *v = calloc((size_t)g->n, sizeof *v), *vr = calloc((size_t)g->n, sizeof *vr);
    for (int i = 0; i < m; i++) r[i] = sin(1.0 + i);
    fc_mbd_recover_v(w, g, &red, r, v);
    CHECK(fc_problem_recover_v(g, r, vr, &err) == FC_OK, "%s", err.msg);
    double dv = 0, vm = 0;
    for (int i = 0; i < g->n; i++) { dv = fmax(dv, fabs(v[i] - vr[i])); vm = fmax(vm, fabs(vr[i])); }
    CHECK(dv <= 1e-12 * vm, "v differs by %.3e", dv);
    printf("reduction: %d contacts, |dW| %.1e, |dq| %.1e, |dv| %.1e\n", nc, dw, dq, dv);

    /* H: u_N = n . (velocity of a's point - velocity of b's point) + w */
    double *u = calloc((size_t)m, sizeof *u), *vel = calloc((size_t)g->n, sizeof *vel);
    int o = 0;
    for (int i = 0; i < fc_mbd_body_count(w); i++) {
        fc_mbd_body *B = fc_mbd_body_at(w, i);
        if (B->fixed) continue;
        for (int k = 0; k < 3; k++) { vel[o + k] = B->v[k]; vel[o + 3 + k] = B->omega[k]; }
        o += 6;
    }
    memcpy(u, g->w, (size_t)m * sizeof *u);
    fc_matrix_gemv_t(g->H, 1.0, vel, 1.0, u);
    double du = 0;
    for (int c = 0; c < nc; c++) {
        const fc_mbd_contact *ct = fc_mbd_contact_at(w, c);
        double rel[3] = {0, 0, 0};
        int side[2] = {ct->a, ct->b};
        for (int sd = 0; sd < 2; sd++) {
            const fc_mbd_body *B = fc_mbd_body_at(w, side[sd]);
            if (B->fixed) continue;
            double arm[3], wx[3];
            for (int k = 0; k < 3; k++) arm[k] = ct->p[k] - B->x[k];
            v3_cross(B->omega, arm, wx);
            for (int k = 0; k < 3; k++) rel[k] += (sd ? -1 : 1) * (B->v[k] + wx[k]);
        }
        du = fmax(du, fabs(u[3 * c] - v3_dot(rel, ct->n) - ct->gap / fc_mbd_step_size(w)));
        du = fmax(du, fabs(u[3 * c + 1] - v3_dot(rel, ct->t1)));
        du = fmax(du, fabs(u[3 * c + 2] - v3_dot(rel, ct->t2)));
    }
    CHECK(du < 1e-12, "H^T v + w differs from the relative velocity by %.3e", du);
    free(u); free(vel); free(r); free(v); free(vr);
    fc_mbd_reduced_free(&red);
    fc_problem_free(g);
    fc_problem_free(ref);
    fc_mbd_world_free(w);
}

/* The grid broad phase finds exactly the pairs of an all-pairs search, on
 * a cloud of n spheres (and a floor) whose cells' box is small (a dense
 * grid) or, far, half of them 10^4 m away (hashed cells), before and
 * after radii change, with a few fast bodies (kept out of the cells:
 * their reach from 1 to 4 cells) and one too fast for that, the same
 * pairs for threads 1, 2 and 3 (threaded from 64 bodies here). */
static void broadphase_cloud(int n, int far)
{
    fc_mbd_world *w = fc_mbd_world_new();
    unsigned long long s = 7;
    for (int i = 0; i < n; i++) {
        double x[4];
        for (int k = 0; k < 4; k++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            x[k] = (double)(s >> 11) / 9007199254740992.0;
        }
        double shift = far && i % 2 ? 1e4 : 0.0;
        fc_mbd_add_sphere(w, 0.02 + 0.03 * x[3], 1000, x[0] * 2 - 1 + shift, x[1] * 2 - 1, x[2] - 3.5);
    }
    fc_mbd_add_plane(w, 0, 0, 1, 0, 0, -3);
    fc_mbd_set_margin(w, 0.01);
    /* round 2: every other radius doubled, the typical size changes
     * (the kept median must not be reused) */
    for (int round = 1; round <= 4; round++) {
        if (round == 2)
            for (int i = 0; i < n; i += 2) fc_mbd_body_at(w, i)->radius *= 2;
        /* round 3: every 37th body at 2-20 m/s (h = 0.01); round 4: and
         * one at 10^4 m/s */
        if (round == 3)
            for (int i = 0; i < n; i += 37) fc_mbd_body_at(w, i)->v[i % 3] = (i % 2 ? -2.0 : 2.0) * (1 + i % 10);
        if (round == 4) fc_mbd_body_at(w, n / 2)->v[0] = 1e4;
        int *ref = NULL, nref = 0, brute = 0, missing = 0;
        for (int t = 1; t <= 3; t++) {
            int before = fc_threads_set(t), pmin = fc_par_min_set(64);
            int np = fc_mbd_broadphase(w);
            fc_threads_set(before);
            fc_par_min_set(pmin);
            if (t == 1) {
                nref = np;
                ref = malloc(2 * sizeof *ref * (size_t)(np + 1));
                memcpy(ref, w->pairs, 2 * sizeof *ref * (size_t)np);
                continue;
            }
            CHECK(np == nref && !memcmp(ref, w->pairs, 2 * sizeof *ref * (size_t)np),
                  "broad phase (far %d, round %d), threads %d: %d pairs, threads 1: %d", far, round, t, np,
                  nref);
        }
        for (int i = 0; i < w->nbodies; i++)
            for (int j = i + 1; j < w->nbodies; j++) {
                const fc_mbd_body *A = &w->bodies[i], *B = &w->bodies[j];
                double h = fc_mbd_step_size(w), sa = h * v3_norm(A->v), sb = h * v3_norm(B->v);
                int hit;
                if (B->shape == FC_MBD_PLANE) hit = A->x[2] + 3 <= A->radius + 0.01 + sa;
                else {
                    double d[3] = {A->x[0] - B->x[0], A->x[1] - B->x[1], A->x[2] - B->x[2]};
                    hit = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) <= A->radius + B->radius + 0.01 + sa + sb;
                }
                if (!hit) continue;
                brute++;
                int key[2] = {i, j};
                missing += !bsearch(key, ref, (size_t)nref, 2 * sizeof *ref, fc_mbd_cmp_pair);
            }
        CHECK(nref == brute && missing == 0, "broad phase (far %d, round %d): %d pairs, all-pairs search %d, %d missing",
              far, round, nref, brute, missing);
        printf("broad phase (%s grid, round %d): %d pairs among %d bodies, threads 1, 2, 3 identical, "
               "all-pairs %d\n", far ? "hashed" : "dense", round, nref, w->nbodies, brute);
        free(ref);
    }
    fc_mbd_world_free(w);
}

static void test_narrow(void)
{
    fc_mbd_world *w = fc_mbd_world_new();
    fc_mbd_set_margin(w, 1.0);
    int a = fc_mbd_add_sphere(w, 0.5, 1000, 0, 0, 0);
    int b = fc_mbd_add_sphere(w, 0.25, 1000, 0.6, 0.8, 0);   /* centres 1 apart: gap 0.25 */
    int c = fc_mbd_add_box(w, 1, 1, 1, 1000, 3, 0, 0);        /* faces x = 2, 4 */
    int d = fc_mbd_add_sphere(w, 0.1, 1000, 1.7, 0, 0);      /* gap to box face 0.2 */
    CHECK(fc_mbd_collide(w, a, b) == 1, "sphere-sphere");
    CHECK(fabs(w->contacts[0].gap - 0.25) < 1e-15, "sphere-sphere gap %.17g", w->contacts[0].gap);
    CHECK(w->contacts[0].a == a && fabs(w->contacts[0].n[0] + 0.6) < 1e-15, "normal from b to a");
    w->ncontacts = 0;
    CHECK(fc_mbd_collide(w, c, d) == 1, "sphere-box");
    CHECK(fabs(w->contacts[0].gap - 0.2) < 1e-14 && w->contacts[0].a == d &&
          fabs(w->contacts[0].n[0] + 1) < 1e-15, "sphere-box gap %.17g", w->contacts[0].gap);
    w->bodies[d].x[0] = 2.05; /* inside the box by 0.05 */
    w->ncontacts = 0;
    fc_mbd_collide(w, d, c);
    CHECK(fabs(w->contacts[0].gap + 0.15) < 1e-14, "sphere inside box: gap %.17g", w->contacts[0].gap);
    w->bodies[d].x[0] = 1.9; w->bodies[d].x[1] = 1.1; /* near the edge x = 2, y = 1 */
    w->ncontacts = 0;
    fc_mbd_collide(w, d, c);
    CHECK(fabs(w->contacts[0].gap - (sqrt(0.02) - 0.1)) < 1e-14, "sphere-box edge gap %.17g", w->contacts[0].gap);
    int p = fc_mbd_add_plane(w, 0, 0, 1, 0, 0, -1.0);
    w->ncontacts = 0;
    CHECK(fc_mbd_collide(w, p, c) == 4, "box-plane: %d contacts, expected the 4 bottom corners", w->ncontacts);
    for (int k = 0; k < w->ncontacts; k++) CHECK(fabs(w->contacts[k].gap) < 1e-15, "box corner gap");
    int e = fc_mbd_add_box(w, 1, 1, 1, 1000, 3, 0, 2); /* on top of box c */
    w->ncontacts = 0;
    int nb = fc_mbd_collide(w, c, e);
    CHECK(nb >= 4, "box-box face contact: %d contacts", nb);
    for (int k = 0; k < w->ncontacts; k++)
        CHECK(fabs(w->contacts[k].gap) < 1e-14 && fabs(fabs(w->contacts[k].n[2]) - 1) < 1e-14,
              "box-box contact %d gap %g n_z %g", k, w->contacts[k].gap, w->contacts[k].n[2]);
    fc_mbd_world_free(w);
}

/* No contact: semi-implicit Euler free fall, exact rotation. */
static void test_free_flight(void)
{
    fc_mbd_world *w = fc_mbd_world_new();
    int b = fc_mbd_add_sphere(w, 0.1, 1000, 0, 0, 10);
    fc_mbd_body *B = fc_mbd_body_at(w, b);
    B->omega[2] = 3.0;
    fc_error err;
    double h = fc_mbd_step_size(w);
    int n = 50;
    for (int s = 0; s < n; s++) CHECK(fc_mbd_step(w, NULL, NULL, NULL, &err) == FC_OK, "%s", err.msg);
    B = fc_mbd_body_at(w, b);
    double z = 10 - g0 * h * h * n * (n + 1) / 2, angle = 3.0 * h * n;
    CHECK(fabs(B->x[2] - z) < 1e-12, "free fall z %.15g expected %.15g", B->x[2], z);
    CHECK(fabs(B->q[0] - cos(angle / 2)) < 1e-12 && fabs(B->q[3] - sin(angle / 2)) < 1e-12,
          "rotation: q = (%g, %g, %g, %g), expected angle %g about z", B->q[0], B->q[1], B->q[2], B->q[3], angle);
    fc_mbd_world_free(w);
}

/* The pile scene with 150 spheres (NULL when it cannot be built). */
static fc_mbd_world *small_pile(void)
{
    fc_mbd_scene_params par;
    fc_mbd_scene_defaults(&par);
    par.count = 150;
    fc_mbd_world *w = NULL;
    fc_error err;
    CHECK(fc_mbd_scene("pile", &par, &w, &err) == FC_OK, "%s", err.msg);
    return w;
}

/* A small pile: spheres fall into the box, stay inside it, do not sink
 * deep into each other, and the warm start is used. */
static void test_pile(void)
{
    fc_mbd_world *w = small_pile();
    if (!w) return;
    fc_error err;
    fc_options o;
    opts(&o, 1e-5);
    o.max_iter = 300;
    double min_gap = INFINITY, t0 = wall();
    int warm = 0, s;
    for (s = 0; s < 80 && wall() - t0 < 10; s++) {
        fc_mbd_step_info in;
        CHECK(fc_mbd_step(w, "nsgs", &o, &in, &err) == FC_OK, "%s", err.msg);
        if (in.ncontacts) min_gap = fmin(min_gap, in.min_gap);
        warm += in.warm;
    }
    double zmax = 0, vmax = 0;
    int outside = 0;
    for (int i = 0; i < fc_mbd_body_count(w); i++) {
        const fc_mbd_body *B = fc_mbd_body_at(w, i);
        if (B->shape != FC_MBD_SPHERE) continue;
        outside += B->x[2] < 0 || fabs(B->x[0]) > 1 || fabs(B->x[1]) > 1;
        zmax = fmax(zmax, B->x[2]);
        vmax = fmax(vmax, v3_norm(B->v));
    }
    CHECK(outside == 0, "pile: %d spheres left the box", outside);
    CHECK(min_gap > -0.02, "pile: penetration %.3e m (radius 0.05)", -min_gap);
    CHECK(warm > 0, "pile: no contact was warm-started");
    CHECK(vmax < 3.0, "pile: speed %.3f m/s after %d steps", vmax, s);
    printf("pile: 150 spheres, %d steps, deepest penetration %.2e m, top %.3f m, max speed %.3f m/s\n", s,
           fmax(0, -min_gap), zmax, vmax);
    fc_mbd_world_free(w);
}

/* The warm start (fc_mbd_set_warm_start) of a pouring pile, recomputed
 * here from the previous step's contacts: mode 0 copies the (n, t1, t2)
 * components of the contact with the same bodies and feature; mode 1
 * projects its world impulse (on the lower-numbered body) on the new
 * frame, then on the cone (check.h's projection).  Some tangents turn. */
static void test_warm_start(int mode)
{
    fc_mbd_world *w = small_pile();
    if (!w) return;
    fc_error err;
    fc_mbd_set_warm_start(w, mode);
    fc_options o;
    opts(&o, 1e-6);
    o.max_iter = 300;
    int matched = 0, turned = 0, bad = 0, cap = 0, nold = 0;
    double *old = NULL;   /* per contact: lo, hi, feature, r (3), world impulse on lo (3) */
    for (int s = 0; s < 40; s++) {
        fc_mbd_step_info in;
        CHECK(fc_mbd_step(w, "nsgs", &o, &in, &err) == FC_OK, "%s", err.msg);
        int nc = fc_mbd_contact_count(w);
        for (int c = 0; c < nc && s > 0; c++) {
            const fc_mbd_contact *ct = fc_mbd_contact_at(w, c);
            int lo = ct->a < ct->b ? ct->a : ct->b, hi = ct->a < ct->b ? ct->b : ct->a;
            const double *g = w->last_r0 + 3 * c, *dir[3] = {ct->n, ct->t1, ct->t2};
            const double *k = NULL;
            for (int j = 0; j < nold && !k; j++)
                if (old[9 * j] == lo && old[9 * j + 1] == hi && old[9 * j + 2] == ct->feature) k = old + 9 * j;
            double e[3] = {0, 0, 0}, sign = ct->a == lo ? 1.0 : -1.0;
            if (k) {
                matched++;
                for (int i = 0; i < 3; i++) e[i] = mode ? sign * v3_dot(k + 6, dir[i]) : k[3 + i];
                if (mode) check_project(3, ct->mu, 0.0, e);
                double dt = hypot(e[1] - k[4], e[2] - k[5]), nt = hypot(k[4], k[5]);
                turned += mode && nt > 0 && dt > 0.1 * nt;
            }
            double scale = fmax(1e-300, v3_norm(e));
            bad += fabs(g[0] - e[0]) + fabs(g[1] - e[1]) + fabs(g[2] - e[2]) > 1e-12 * scale;
        }
        if (nc > cap) {
            cap = nc;
            old = realloc(old, (size_t)cap * 9 * sizeof *old);
        }
        for (int c = 0; c < nc; c++) {   /* this step's impulses, kept as the next one's reference */
            const fc_mbd_contact *ct = fc_mbd_contact_at(w, c);
            int lo = ct->a < ct->b ? ct->a : ct->b;
            double *k = old + 9 * c, sign = ct->a == lo ? 1.0 : -1.0;
            k[0] = lo;
            k[1] = ct->a < ct->b ? ct->b : ct->a;
            k[2] = ct->feature;
            for (int i = 0; i < 3; i++) {
                k[3 + i] = ct->r[i];
                k[6 + i] = sign * (ct->r[0] * ct->n[i] + ct->r[1] * ct->t1[i] + ct->r[2] * ct->t2[i]);
            }
        }
        nold = nc;
    }
    printf("warm start mode %d: %d contacts matched over 40 steps, %d with the tangential part turned\n", mode,
           matched, turned);
    CHECK(matched > 100, "warm start mode %d: %d contacts matched", mode, matched);
    CHECK(bad == 0, "warm start mode %d: %d guesses differ from the recomputed ones", mode, bad);
    CHECK(!mode || turned > 0, "warm start mode 1: no frame turned (the test shows nothing)");
    free(old);
    fc_mbd_world_free(w);
}

/* The 10^4-sphere column: built, detected (linear broad phase), and a few
 * steps taken within a budget; its edges start to roll off. */
static void test_column(void)
{
    fc_mbd_scene_params par;
    fc_mbd_scene_defaults(&par);
    fc_mbd_world *w;
    fc_error err;
    CHECK(fc_mbd_scene("column", &par, &w, &err) == FC_OK, "%s", err.msg);
    CHECK(fc_mbd_body_count(w) == 10001, "column: %d bodies", fc_mbd_body_count(w));
    double t0 = wall();
    int nc = fc_mbd_detect(w);
    double td = wall() - t0;
    CHECK(nc > 35000, "column: %d contacts", nc);
    CHECK(td < 2.0, "column: detection took %.2f s", td);
    fc_options o;
    opts(&o, 1e-4);
    o.max_iter = 30;
    int s;
    double vmax = 0;
    for (s = 0; s < 2 && wall() - t0 < 15; s++) {
        fc_mbd_step_info in;
        CHECK(fc_mbd_step(w, "nsgs", &o, &in, &err) == FC_OK, "%s", err.msg);
        vmax = in.max_speed;
        CHECK(isfinite(in.global_residual), "column residual");
    }
    CHECK(vmax > 0.01 && vmax < 1.0, "column: max speed %.3e after %d steps", vmax, s);
    printf("column: 10^4 spheres, %d contacts, detection %.3f s, %d steps in %.1f s, max speed %.3f\n", nc, td,
           s, wall() - t0, vmax);
    fc_mbd_world_free(w);
}

/* The chute's starting block: at the collections' sizes (up to 30000
 * spheres) 6 spheres across and 12 along in layers (FClib's Chute sets,
 * their files unchanged); at 250000 (bench/million.sh) a wide, shallow
 * block of at most 8 layers, about twice as long as wide, between the
 * side walls.  Layers, extents and walls are read from the bodies. */
static void test_chute_block(int count, int narrow)
{
    const double R = 0.05, sp = 2.4 * R;
    fc_mbd_scene_params par;
    fc_mbd_scene_defaults(&par);
    par.count = count;
    fc_mbd_world *w;
    fc_error err;
    CHECK(fc_mbd_scene("chute", &par, &w, &err) == FC_OK, "%s", err.msg);
    if (!w) return;
    CHECK(fc_mbd_body_count(w) == count + 4, "chute %d: %d bodies", count, fc_mbd_body_count(w));
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY, wall_y = 0;
    int layers = 0, outside = 0;
    for (int i = 0; i < fc_mbd_body_count(w); i++) {
        const fc_mbd_body *B = fc_mbd_body_at(w, i);
        if (B->shape == FC_MBD_PLANE) wall_y = fmax(wall_y, fabs(B->x[1]));
        if (B->shape != FC_MBD_SPHERE) continue;
        xmin = fmin(xmin, B->x[0]); xmax = fmax(xmax, B->x[0]);
        ymin = fmin(ymin, B->x[1]); ymax = fmax(ymax, B->x[1]);
        int l = (int)lround((B->x[2] - 1.2 * R) / sp) + 1;
        if (l > layers) layers = l;
    }
    for (int i = 0; i < fc_mbd_body_count(w); i++) {
        const fc_mbd_body *B = fc_mbd_body_at(w, i);
        if (B->shape == FC_MBD_SPHERE)
            outside += B->x[0] - B->radius < 0 || fabs(B->x[1]) + B->radius > wall_y;
    }
    int across = (int)lround((ymax - ymin) / sp) + 1, along = (int)lround((xmax - xmin) / sp) + 1;
    CHECK(outside == 0, "chute %d: %d spheres outside the walls", count, outside);
    if (narrow)
        CHECK(across == 6 && along == 12 && layers == (count + 71) / 72,
              "chute %d: %d across, %d along, %d layers (6, 12, %d expected)", count, across, along, layers,
              (count + 71) / 72);
    else
        CHECK(layers <= 8 && along >= 2 * across - 1 && along <= 2 * across + 1 &&
                  (double)across * along * layers >= count,
              "chute %d: %d across, %d along, %d layers", count, across, along, layers);
    printf("chute: %d spheres, %d across, %d along, %d layers, walls at y = +-%.3f m\n", count, across, along,
           layers, wall_y);
    fc_mbd_world_free(w);
}

/* The scale collection's problems (bench/mbd_scale.sh) at small sizes:
 * the column of N spheres after 2 steps of at most 50 NSGS sweeps, its
 * local form solved from r = 0 by ipm-mdp and by auto, the residual
 * judged by tests/check.h (hyperstatic and collapsing: at 844 contacts
 * nothing else in fricon solved it within a second; measured ipm-mdp
 * 0.04 s at 233 contacts, 0.8 s at 844). */
static void test_column_solve(int count)
{
    fc_mbd_scene_params par;
    fc_mbd_scene_defaults(&par);
    par.count = count;
    fc_mbd_world *w;
    fc_error err;
    CHECK(fc_mbd_scene("column", &par, &w, &err) == FC_OK, "%s", err.msg);
    fc_options o;
    opts(&o, 1e-8);
    o.max_iter = 50;
    fc_mbd_step_info in;
    for (int s = 0; s < 2; s++) CHECK(fc_mbd_step(w, "nsgs", &o, &in, &err) == FC_OK, "%s", err.msg);
    const fc_problem *p = fc_mbd_last_local_problem(w);
    CHECK(p != NULL, "column %d: no local problem", count);
    if (!p) { fc_mbd_world_free(w); return; }
    int m = fc_problem_m(p);
    const char *solvers[] = {"ipm-mdp", "auto"};
    for (int k = 0; k < 2; k++) {
        double *r = calloc((size_t)m, 8), *u = calloc((size_t)m, 8);
        fc_options so;
        fc_default_options(&so);
        so.time_limit = 60; /* a guard: sanitizer builds are 5-10x slower */
        fc_info info;
        CHECK(fc_solve(p, solvers[k], &so, r, u, NULL, &info, &err) == FC_OK, "%s", err.msg);
        double res = check_error(p, r);
        printf("column %d spheres, %d contacts: %s %s, %d iterations, residual %.3e (check %.3e), %.3f s\n",
               count, p->nc, solvers[k], fc_status_name(info.status), info.iterations, info.residual, res,
               info.seconds);
        CHECK(info.status == FC_CONVERGED && res <= 1e-8, "column %d, %s: %s, %.3e (%s)", count,
              solvers[k], fc_status_name(info.status), res, info.message);
        free(r);
        free(u);
    }
    /* the global problem, by ipm-mdp on (M, H) directly (K = M + H D^-1
     * H'; forced by ipm.formulation = 2 below the size where it is its
     * default), v and the residual recomputed through check.h's own
     * reduction */
    const fc_problem *g = fc_mbd_last_problem(w);
    CHECK(g != NULL && g->kind == FC_GLOBAL, "column %d: no global problem", count);
    if (g) {
        double *r = calloc((size_t)m, 8), *u = calloc((size_t)m, 8), *v = calloc((size_t)g->n, 8);
        fc_options so;
        fc_default_options(&so);
        so.time_limit = 60;
        so.ipm.formulation = FC_IPM_PRIMAL;
        fc_info info;
        CHECK(fc_solve(g, "ipm-mdp", &so, r, u, v, &info, &err) == FC_OK, "%s", err.msg);
        double res = check_error(g, r);
        printf("column %d spheres, %d contacts, global: ipm-mdp %s, %d iterations, residual %.3e "
               "(check %.3e), dynamics %.1e, %.3f s\n", count, g->nc, fc_status_name(info.status),
               info.iterations, info.residual, res, info.dyn_residual, info.seconds);
        CHECK(info.status == FC_CONVERGED && res <= 1e-8, "column %d, global ipm-mdp: %s, %.3e (%s)",
              count, fc_status_name(info.status), res, info.message);
        /* its convex relaxation by gipm (ipm.convex = 1), judged by the
         * relaxation's residual recomputed here (it stopped on its scaled
         * gap alone at 6e-8 to 1.1e-7 of it on these three columns; on
         * the 3206-contact column its last Newton directions were 1e52,
         * residuals 1e20 times the right-hand side, before the solve
         * checked them and strengthened the regularisation) */
        so.ipm.formulation = FC_IPM_PRIMAL;
        so.ipm.convex = 1;
        memset(r, 0, (size_t)m * sizeof *r);
        CHECK(fc_solve(g, "gipm", &so, r, u, v, &info, &err) == FC_OK, "%s", err.msg);
        double rel = check_relaxation_error(g, r);
        printf("column %d spheres, %d contacts, global: gipm relaxation %d iterations, its residual %.3e, %.3f s\n",
               count, g->nc, info.iterations, rel, info.seconds);
        CHECK(rel <= 1e-8, "column %d, gipm relaxation residual %.3e (%s)", count, rel, info.message);
        free(r);
        free(u);
        free(v);
    }
    fc_mbd_world_free(w);
}

/* y = A x for a problem's matrix, to compare two copies of it. */
static double mat_diff(const fc_matrix *A, const fc_matrix *B, int cols, int rows)
{
    double *x = malloc((size_t)cols * sizeof *x), *ya = malloc((size_t)rows * sizeof *ya),
           *yb = malloc((size_t)rows * sizeof *yb), dmax = 0;
    for (int i = 0; i < cols; i++) x[i] = sin(1.0 + i);
    fc_matrix_gemv(A, 1.0, x, 0.0, ya);
    fc_matrix_gemv(B, 1.0, x, 0.0, yb);
    for (int i = 0; i < rows; i++) dmax = fmax(dmax, fabs(ya[i] - yb[i]));
    free(x); free(ya); free(yb);
    return dmax;
}

static void test_export(void)
{
    fc_mbd_world *w;
    fc_error err;
    CHECK(fc_mbd_scene("stack", NULL, &w, &err) == FC_OK, "%s", err.msg);
    fc_options o;
    opts(&o, 1e-8);
    fc_mbd_step_info in;
    for (int s = 0; s < 3; s++) CHECK(fc_mbd_step(w, "nsgs", &o, &in, &err) == FC_OK, "%s", err.msg);
    char gpath[128], lpath[128], spath[140];
    snprintf(gpath, sizeof gpath, "/tmp/fricon-test-mbd-%ld.hdf5", (long)getpid());
    snprintf(lpath, sizeof lpath, "/tmp/fricon-test-mbd-%ld-local.hdf5", (long)getpid());
    snprintf(spath, sizeof spath, "%s.sol", gpath);
    CHECK(fc_mbd_export_last(w, gpath, 0, spath, &err) == FC_OK, "export: %s", err.msg);
    CHECK(fc_mbd_export_last(w, lpath, 1, NULL, &err) == FC_OK, "export local: %s", err.msg);
    const fc_problem *g = fc_mbd_last_problem(w);
    fc_problem *pg = NULL, *pl = NULL;
    CHECK(fc_read(gpath, &pg, &err) == FC_OK, "read back: %s", err.msg);
    CHECK(fc_read(lpath, &pl, &err) == FC_OK, "read back local: %s", err.msg);
    if (pg && pl && g) {
        CHECK(pg->kind == FC_GLOBAL && pg->nc == 800 && pg->n == g->n, "global: kind %d nc %d n %d",
              (int)pg->kind, pg->nc, pg->n);
        CHECK(pl->kind == FC_LOCAL && pl->nc == 800, "local: kind %d nc %d", (int)pl->kind, pl->nc);
        double dM = mat_diff(pg->M, g->M, g->n, g->n), dH = mat_diff(pg->H, g->H, 3 * g->nc, g->n);
        CHECK(dM == 0 && dH == 0, "exported M, H differ by %.1e, %.1e", dM, dH);
        double eg = check_error(pg, w->last_r), el = check_error(pl, w->last_r);
        CHECK(eg <= 1.5e-8, "exported global problem: measure %.3e of its exported solution", eg);
        CHECK(el <= 1.5e-8, "exported local problem: measure %.3e of its exported solution", el);
        printf("export: 800 contacts, measure of the exported solution %.2e (global), %.2e (local)\n", eg,
               el);
    }
    fc_problem_free(pg);
    fc_problem_free(pl);
    remove(gpath);
    remove(lpath);
    remove(spath);
    fc_mbd_world_free(w);
}

/* ---- box-box contacts and the box scenes ---- */

/* A world of a plane and boxes for the box-box tests. */
static int add_box_q(fc_mbd_world *w, double hx, double hy, double hz, double x, double y, double z,
                     double ax, double ay, double az, double angle, double mu)
{
    int b = fc_mbd_add_box(w, hx, hy, hz, 1000.0, x, y, z);
    fc_mbd_body *B = fc_mbd_body_at(w, b);
    double s = sin(angle / 2);
    B->q[0] = cos(angle / 2); B->q[1] = ax * s; B->q[2] = ay * s; B->q[3] = az * s;
    B->mu = mu;
    return b;
}

/* A small box (yawed 30 deg) on a bigger one on the ground: the summed
 * normal force on the top box is its weight, no tangential force; every
 * contact is warm-started from step 2 on (stable features). */
static void test_box_on_box(void)
{
    fc_mbd_world *w = fc_mbd_world_new();
    int p = fc_mbd_add_plane(w, 0, 0, 1, 0, 0, 0);
    int a = add_box_q(w, 0.3, 0.2, 0.1, 0, 0, 0.1, 0, 0, 1, 0, 0.5);
    int b = add_box_q(w, 0.1, 0.15, 0.05, 0.02, -0.01, 0.25, 0, 0, 1, FC_MBD_PI / 6, 0.5);
    fc_mbd_body_at(w, p)->mu = 0.5;
    fc_mbd_set_mass(fc_mbd_body_at(w, b), 2.0);
    fc_options o;
    opts(&o, 1e-11);
    fc_error err;
    double N0 = 2.0 * g0, worstN = 0, worstT = 0, vmax = 0;
    int nab = 0;
    for (int s = 0; s < 10; s++) {
        fc_mbd_step_info in;
        CHECK(fc_mbd_step(w, "nsgs", &o, &in, &err) == FC_OK, "%s", err.msg);
        CHECK(in.solve.status == FC_CONVERGED, "box on box step %d: residual %.3e", s + 1, in.solve.residual);
        CHECK(s == 0 || in.warm == in.ncontacts, "box on box step %d: %d of %d contacts warm-started", s + 1,
              in.warm, in.ncontacts);
        double N, T;
        fc_mbd_contact_forces(w, b, NULL, &N, &T);
        worstN = fmax(worstN, fabs(N - N0) / N0);
        worstT = fmax(worstT, T);
        vmax = fmax(vmax, in.max_speed);
        nab = 0;
        for (int c = 0; c < fc_mbd_contact_count(w); c++) {
            const fc_mbd_contact *C = fc_mbd_contact_at(w, c);
            if (C->a == a && C->b == b) {
                nab++;
                CHECK(fabs(C->n[2] + 1) < 1e-12 && fabs(C->gap) < 1e-9 && isfinite(C->p[0]),
                      "box on box: normal z %.17g (expected -1, from b to a), gap %g", C->n[2], C->gap);
            }
        }
    }
    (void)a;
    CHECK(nab == 4, "box on box: %d face contacts, expected 4 (the top box's bottom corners)", nab);
    CHECK(worstN <= 1e-6, "box on box: normal force off by %.3e relative", worstN);
    CHECK(worstT <= 1e-6 * N0, "box on box: tangential force %.3e N", worstT);
    CHECK(vmax < 1e-8, "box on box: speed %.3e m/s", vmax);
    printf("box on box: normal force rel. error %.2e, tangential %.2e N, max speed %.2e m/s, %d contacts\n",
           worstN, worstT, vmax, nab);
    fc_mbd_world_free(w);
}

/* Box b on box a on a plane inclined at angle (mu 1 between the plane and
 * a, mu between a and b): b sticks when tan(angle) < mu (forces m g cos,
 * m g sin), slides with g (sin - mu cos) otherwise; a stays. */
static void test_box_incline(double angle, double mu)
{
    double th = angle * FC_MBD_PI / 180, n[3] = {-sin(th), 0, cos(th)}, down[3] = {-cos(th), 0, -sin(th)};
    fc_mbd_world *w = fc_mbd_world_new();
    int p = fc_mbd_add_plane(w, n[0], n[1], n[2], 0, 0, 0);
    fc_mbd_body_at(w, p)->mu = 1.0;
    int a = add_box_q(w, 0.5, 0.3, 0.1, 0.1 * n[0], 0, 0.1 * n[2], 0, 1, 0, -th, 1.0);
    int b = add_box_q(w, 0.1, 0.1, 0.05, 0.25 * n[0], 0, 0.25 * n[2], 0, 1, 0, -th, mu);
    fc_mbd_set_mass(fc_mbd_body_at(w, b), 1.0);
    fc_mbd_set_margin(w, 1e-3);
    fc_options o;
    opts(&o, 1e-11);
    fc_error err;
    int stick = tan(th) < mu;
    double a0 = stick ? 0 : g0 * (sin(th) - mu * cos(th)), h = fc_mbd_step_size(w), vprev = 0, worst = 0;
    double vA = 0, N0 = g0 * cos(th), T0 = g0 * sin(th), worstF = 0;
    for (int s = 0; s < 20; s++) {
        fc_mbd_step_info in;
        CHECK(fc_mbd_step(w, "nsgs", &o, &in, &err) == FC_OK, "%s", err.msg);
        CHECK(in.solve.status == FC_CONVERGED, "box incline step %d: residual %.3e", s + 1, in.solve.residual);
        const fc_mbd_body *B = fc_mbd_body_at(w, b);
        double vd = v3_dot(B->v, down), acc = (vd - vprev) / h;
        worst = fmax(worst, stick ? fabs(vd) : fabs(acc - a0) / a0);
        vprev = vd;
        vA = fmax(vA, v3_norm(fc_mbd_body_at(w, a)->v));
        if (stick) {
            double N, T;
            fc_mbd_contact_forces(w, b, NULL, &N, &T);
            worstF = fmax(worstF, fmax(fabs(N - N0), fabs(T - T0)) / g0);
        }
    }
    if (stick)
        CHECK(worst < 1e-8 && worstF <= 1e-6, "box incline %g deg mu %g: sticks? speed %.3e, force error %.3e",
              angle, mu, worst, worstF);
    else
        CHECK(worst <= 1e-6, "box incline %g deg mu %g: acceleration off by %.3e relative (expected %.10f)",
              angle, mu, worst, a0);
    CHECK(vA < 1e-8, "box incline: the lower box moves at %.3e m/s", vA);
    printf("box on box on incline %g deg, mu %g: %s, %s %.2e, lower box speed %.2e\n", angle, mu,
           stick ? "sticks" : "slides", stick ? "speed" : "acceleration rel. error", worst, vA);
    fc_mbd_world_free(w);
}

/* Narrow phase on crafted pairs: edges crossed at 90 degrees, edges
 * crossed onto a face, parallel edges, coincident boxes, touching faces. */
static void test_box_box_narrow(void)
{
    fc_mbd_world *w = fc_mbd_world_new();
    fc_mbd_set_margin(w, 0.05);
    double r2 = sqrt(2.0);
    /* a: long along x, turned 45 deg about x (top edge along x at z = 0.1 sqrt 2);
     * b: long along y, turned 45 deg about y, bottom edge 0.01 above */
    int a = add_box_q(w, 0.5, 0.1, 0.1, 0, 0, 0, 1, 0, 0, FC_MBD_PI / 4, 0.5);
    int b = add_box_q(w, 0.1, 0.5, 0.1, 0.03, 0.02, 0.2 * r2 + 0.01, 0, 1, 0, FC_MBD_PI / 4, 0.5);
    CHECK(fc_mbd_collide(w, a, b) == 1, "edge-edge: %d contacts", w->ncontacts);
    const fc_mbd_contact *C = &w->contacts[0];
    CHECK(fabs(C->gap - 0.01) < 1e-12 && fabs(C->n[2] + 1) < 1e-12 && C->a == a && C->feature >= 8192,
          "edge-edge: gap %.17g, n (%g %g %g), feature %d", C->gap, C->n[0], C->n[1], C->n[2], C->feature);
    CHECK(fabs(C->p[0] - 0.03) < 1e-12 && fabs(C->p[1]) < 1e-12 && fabs(C->p[2] - (0.1 * r2 + 0.005)) < 1e-12,
          "edge-edge point (%.17g %.17g %.17g)", C->p[0], C->p[1], C->p[2]);
    /* penetrating by 0.01: the same feature, gap -0.01 */
    int f0 = C->feature;
    w->bodies[b].x[2] -= 0.02;
    w->ncontacts = 0;
    CHECK(fc_mbd_collide(w, a, b) == 1 && fabs(w->contacts[0].gap + 0.01) < 1e-12 &&
          w->contacts[0].feature == f0, "edge-edge penetrating: gap %.17g", w->contacts[0].gap);
    /* b not turned: its flat bottom face across a's top edge, crossed at 90 deg */
    fc_mbd_body *B = fc_mbd_body_at(w, b);
    B->q[0] = 1; B->q[1] = B->q[2] = B->q[3] = 0;
    B->x[2] = 0.1 * r2 + 0.1;
    w->ncontacts = 0;
    int nf = fc_mbd_collide(w, a, b);
    CHECK(nf >= 1 && nf <= 2, "edge on face: %d contacts", nf);
    for (int k = 0; k < w->ncontacts; k++)
        CHECK(fabs(w->contacts[k].n[2] + 1) < 1e-12 && fabs(w->contacts[k].gap) < 1e-12,
              "edge on face: n_z %.17g gap %.3g", w->contacts[k].n[2], w->contacts[k].gap);
    /* parallel edges (both turned 45 deg about x), touching and apart: finite */
    B->q[0] = cos(FC_MBD_PI / 8); B->q[1] = sin(FC_MBD_PI / 8);
    B->half[0] = 0.5; B->half[1] = 0.1;
    B->x[0] = 0.1; B->x[1] = 0; B->x[2] = 0.2 * r2;
    for (int t = 0; t < 3; t++) {
        w->ncontacts = 0;
        B->x[2] = 0.2 * r2 + (t - 1) * 0.01;
        int m = fc_mbd_collide(w, a, b);
        CHECK(m >= 0 && m <= 4, "parallel edges %d: %d contacts", t, m);
        for (int k = 0; k < w->ncontacts; k++) {
            const fc_mbd_contact *D = &w->contacts[k];
            CHECK(isfinite(D->gap) && isfinite(D->p[0] + D->p[1] + D->p[2]) && D->n[2] < 0 &&
                  D->gap >= (t - 1) * 0.01 / r2 - 1e-12, "parallel edges %d: gap %g n_z %g", t, D->gap, D->n[2]);
        }
        CHECK(t != 1 || m >= 1, "parallel edges touching: no contact");
    }
    /* coincident boxes (deep, degenerate): contacts finite */
    memcpy(B->x, w->bodies[a].x, sizeof B->x);
    memcpy(B->q, w->bodies[a].q, sizeof B->q);
    w->ncontacts = 0;
    int mc = fc_mbd_collide(w, a, b);
    CHECK(mc >= 1 && mc <= 4, "coincident boxes: %d contacts", mc);
    for (int k = 0; k < w->ncontacts; k++)
        CHECK(isfinite(w->contacts[k].gap) && isfinite(w->contacts[k].n[0] + w->contacts[k].n[1] + w->contacts[k].n[2]),
              "coincident boxes: contact %d not finite", k);
    /* equal boxes face on face, touching exactly: 4 corners, gap 0, n from c to d */
    fc_mbd_world *v = fc_mbd_world_new();
    int c = add_box_q(v, 0.2, 0.1, 0.05, 1, 2, 3, 0, 0, 1, 0.3, 0.5);
    int d = add_box_q(v, 0.2, 0.1, 0.05, 1, 2, 3.1, 0, 0, 1, 0.3, 0.5);
    CHECK(fc_mbd_collide(v, d, c) == 4, "face on face: %d contacts", v->ncontacts);
    for (int k = 0; k < v->ncontacts; k++)
        CHECK(fabs(v->contacts[k].gap) < 1e-12 && fabs(v->contacts[k].n[2] - 1) < 1e-12 && v->contacts[k].a == d,
              "face on face %d: gap %g n_z %g", k, v->contacts[k].gap, v->contacts[k].n[2]);
    fc_mbd_world_free(v);
    fc_mbd_world_free(w);
}

/* A box scene at rest for 100 steps (nsgs, 1e-8): maximum speed, every
 * solve converged, contacts constant and warm-started from step 2, fewer
 * iterations per step after the first. */
static void test_box_scene(const char *name, int count, double vlimit)
{
    fc_mbd_scene_params par;
    fc_mbd_scene_defaults(&par);
    par.count = count;
    fc_mbd_world *w;
    fc_error err;
    CHECK(fc_mbd_scene(name, &par, &w, &err) == FC_OK, "%s", err.msg);
    fc_options o;
    opts(&o, 1e-8);
    double t0 = wall(), vmax = 0;
    int nc0 = 0, notconv = 0, it1 = 0, itmax = 0, cold = 0;
    long itsum = 0;
    for (int s = 0; s < 100; s++) {
        fc_mbd_step_info in;
        CHECK(fc_mbd_step(w, "nsgs", &o, &in, &err) == FC_OK, "%s", err.msg);
        if (s == 0) { nc0 = in.ncontacts; it1 = in.solve.iterations; }
        else {
            itsum += in.solve.iterations;
            itmax = in.solve.iterations > itmax ? in.solve.iterations : itmax;
            cold += in.ncontacts - in.warm;
        }
        CHECK(in.ncontacts == nc0, "%s step %d: %d contacts, %d at step 1", name, s + 1, in.ncontacts, nc0);
        notconv += in.solve.status != FC_CONVERGED;
        vmax = fmax(vmax, in.max_speed);
    }
    double itmean = itsum / 99.0;
    CHECK(notconv == 0, "%s: %d solves did not converge", name, notconv);
    CHECK(vmax < vlimit, "%s: maximum speed %.3e m/s over 100 steps (limit %.1e)", name, vmax, vlimit);
    CHECK(cold == 0, "%s: %d contacts not warm-started after step 1", name, cold);
    CHECK(itmean < 0.8 * it1, "%s: %.1f iterations per step after the first (%d at step 1)", name, itmean, it1);
    printf("%s (%d boxes): %d contacts, max speed %.2e m/s, nsgs iterations %d at step 1, then mean %.1f "
           "(max %d), %.1f s\n", name, fc_mbd_body_count(w) - 1, nc0, vmax, it1, itmean, itmax, wall() - t0);
    fc_mbd_world_free(w);
}

/* Three disks stacked on the floor y = 0 under gravity (3, -9.81, 0), mu
 * 0.3: planar or not; returns the world after one step with nsn-hybrid. */
static fc_mbd_world *disks_step(int planar, fc_mbd_step_info *in)
{
    fc_mbd_world *w = fc_mbd_world_new();
    fc_mbd_set_gravity(w, 3.0, -g0, 0);
    fc_mbd_set_planar(w, planar);
    fc_mbd_add_plane(w, 0, 1, 0, 0, 0, 0);
    for (int k = 0; k < 3; k++) fc_mbd_add_sphere(w, 0.1, 1000.0, 0.01 * k, 0.1 + 0.2 * k, 0);
    for (int i = 0; i < fc_mbd_body_count(w); i++) fc_mbd_body_at(w, i)->mu = 0.3;
    fc_mbd_set_margin(w, 1e-3);
    fc_options o;
    opts(&o, 1e-12);
    fc_error err;
    CHECK(fc_mbd_step(w, "nsn-hybrid", &o, in, &err) == FC_OK, "planar %d: %s", planar, err.msg);
    return w;
}

static void test_planar(void)
{
    fc_mbd_step_info i2, i3;
    fc_mbd_world *w2 = disks_step(1, &i2), *w3 = disks_step(0, &i3);
    const fc_problem *p2 = fc_mbd_last_problem(w2), *p3 = fc_mbd_last_problem(w3);
    CHECK(p2 && p3 && p2->d == 2 && p3->d == 3 && p2->nc == 3 && p3->nc == 3, "planar: d %d/%d nc %d/%d",
          p2 ? p2->d : 0, p3 ? p3->d : 0, p2 ? p2->nc : 0, p3 ? p3->nc : 0);
    CHECK(p2 && p2->n == 9 && p3 && p3->n == 18, "planar: n = %d, 3D n = %d", p2 ? p2->n : 0, p3 ? p3->n : 0);
    CHECK(i2.solve.status == FC_CONVERGED && i3.solve.status == FC_CONVERGED, "planar: not converged");
    double dn = 0, dt = 0, dv = 0, rn = 0;
    for (int c = 0; c < 3 && p2 && p3; c++) {
        const fc_mbd_contact *a = fc_mbd_contact_at(w2, c), *b = fc_mbd_contact_at(w3, c);
        CHECK(fabs(a->n[2]) == 0 && fabs(a->t1[2]) == 0, "planar: contact %d frame out of the plane", c);
        dn = fmax(dn, fabs(a->r[0] - b->r[0]));
        rn = fmax(rn, fabs(a->r[0]));
        for (int k = 0; k < 3; k++)
            dt = fmax(dt, fabs(a->r[1] * a->t1[k] - (b->r[1] * b->t1[k] + b->r[2] * b->t2[k])));
    }
    for (int i = 1; i < 4; i++) {
        const fc_mbd_body *a = fc_mbd_body_at(w2, i), *b = fc_mbd_body_at(w3, i);
        for (int k = 0; k < 3; k++) dv = fmax(dv, fmax(fabs(a->v[k] - b->v[k]), fabs(a->omega[k] - b->omega[k])));
    }
    printf("planar vs 3D: |dr_N| %.2e (r_N up to %.3g), |dr_T| %.2e, |dv| %.2e\n", dn, rn, dt, dv);
    CHECK(rn > 0.01 && dn <= 1e-9 * rn && dt <= 1e-9 * rn && dv <= 1e-9, "planar and 3D differ: %g %g %g", dn, dt, dv);
    fc_mbd_world_free(w2);
    fc_mbd_world_free(w3);

    /* the 2D scenes: planar, their problems solve, the guess is the warm start */
    static const char *names[] = {"disks-wall", "hopper"};
    for (int s = 0; s < 2; s++) {
        fc_mbd_scene_params par;
        fc_mbd_scene_defaults(&par);
        par.count = 60;
        fc_mbd_world *w;
        fc_error err;
        if (fc_mbd_scene(names[s], &par, &w, &err)) { CHECK(0, "%s: %s", names[s], err.msg); continue; }
        CHECK(fc_mbd_planar(w), "%s is not planar", names[s]);
        fc_options o;
        opts(&o, 1e-8);
        int solved = 0, steps = 40;
        fc_mbd_step_info in;
        for (int k = 0; k < steps; k++) {
            if (fc_mbd_step(w, "nsgs", &o, &in, &err)) { CHECK(0, "%s: %s", names[s], err.msg); break; }
            solved += !in.ncontacts || in.solve.status == FC_CONVERGED;
        }
        const fc_problem *p = fc_mbd_last_problem(w);
        CHECK(solved == steps && p && p->d == 2 && p->nc > 10, "%s: %d of %d steps solved, nc %d", names[s], solved,
              steps, p ? p->nc : 0);
        for (int i = 0; i < fc_mbd_body_count(w); i++) {
            const fc_mbd_body *b = fc_mbd_body_at(w, i);
            if (b->shape == FC_MBD_SPHERE) CHECK(b->x[2] == 0 && b->v[2] == 0, "%s: body %d left the plane", names[s], i);
        }
        char path[128];
        snprintf(path, sizeof path, "/tmp/fricon_test_mbd_%d_%s.hdf5", (int)getpid(), names[s]);
        if (p && !fc_mbd_export_last(w, path, 0, NULL, &err)) {
            fc_problem *q = NULL;
            int count = 0, m = fc_problem_m(p);
            double *g = calloc((size_t)m, sizeof *g);
            CHECK(!fc_read(path, &q, &err) && q->d == 2 && q->nc == p->nc, "%s: read back: %s", names[s], err.msg);
            CHECK(!fc_read_guess(path, p, 0, g, NULL, &count, &err) && count == 1, "%s: guess: %s", names[s], err.msg);
            CHECK(!memcmp(g, w->last_r0, (size_t)m * sizeof *g), "%s: the guess is not the warm start", names[s]);
            double any = 0;
            for (int k = 0; k < m; k++) any = fmax(any, fabs(g[k]));
            CHECK(any > 0, "%s: zero warm start", names[s]);
            free(g);
            fc_problem_free(q);
            unlink(path);
        } else {
            CHECK(0, "%s: export: %s", names[s], err.msg);
        }
        fc_mbd_world_free(w);
    }
}

int main(void)
{
    test_narrow();
    broadphase_cloud(1500, 0);
    broadphase_cloud(1500, 1);
    test_free_flight();
    test_reduction();
    test_incline(0);
    test_incline(25);
    test_slide(25, 0.3);
    test_slide(30, 0.1);
    test_pile();
    test_warm_start(0);
    test_warm_start(1);
    test_stack(30);
    test_export();
    test_column();
    test_chute_block(300, 1);
    test_chute_block(30000, 1);
    test_chute_block(250000, 0);
    test_column_solve(30);
    test_column_solve(100);
    test_column_solve(300);
    test_box_box_narrow();
    test_box_on_box();
    test_box_incline(20, 0.5);
    test_box_incline(30, 0.3);
    test_box_scene("tower", 27, 1e-6); /* 6e-9 m/s (docs/mbd.md) */
    test_box_scene("wall", 60, 1e-5);  /* 1e-7 */
    test_box_scene("arch", 17, 1e-4);  /* 2.5e-6 */
    test_planar();
    TEST_DONE();
}
