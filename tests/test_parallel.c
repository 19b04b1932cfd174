/* The threaded kernels (issue 28) on small problems, with the threading
 * threshold lowered (fc_par_min_set(64): chunks of 128 entries) so that
 * every threaded path runs, under ThreadSanitizer too (ctest label
 * "threads"):
 * - the vector sums, W x, the SPEC measure: the same bits for threads 1,
 *   2 and 3 and run to run (chunks fixed by the length alone);
 * - admm, gadmm, apgd and fpp converge on shared problems with threads 2,
 *   the residual recomputed by tests/check.h, and return the bits of
 *   threads 1 (admm: of threads 3, since from 2 threads its factor's
 *   solves are src/linsys/supernodal_solve.c's, not CHOLMOD's; threads 1
 *   converges too);
 * - the simulator's contact detection gives the same pairs and contacts
 *   for threads 1, 2 and 3, step after step (joints too: rope, chain);
 * - the broad phase finds every pair an all-pairs search finds, with its
 *   grid dense (a compact cloud) and hashed (a cluster far away), the
 *   same pairs for threads 1, 2 and 3. */
#include "test.h"
#include "check.h"
#include "internal.h"
#include "mbd/mbd.h"

/* Lowered threshold: threaded from 64 rows, chunks of 128 entries. */
#define TEST_PAR_MIN 64

static void vector_kernels(void)
{
    int n = 5000;
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    double *z = malloc((size_t)n * sizeof *z);
    for (int i = 0; i < n; i++) {
        x[i] = sin(0.1 * i) * (1 + i % 13);
        y[i] = cos(0.37 * i) / (1 + i % 5);
    }
    double dot[4], nrm[4], dist[4];
    for (int t = 1; t <= 3; t++) {
        fc_threads_set(t);
        dot[t] = fc_dot(n, x, y);
        nrm[t] = fc_norm2(n, x);
        dist[t] = fc_dist2(n, x, y);
        fc_copy(n, x, z);
        CHECK(!memcmp(x, z, (size_t)n * sizeof *x), "fc_copy, threads %d", t);
        /* run to run */
        CHECK(fc_dot(n, x, y) == dot[t] && fc_norm2(n, x) == nrm[t], "threads %d: not repeatable", t);
    }
    fc_threads_set(1);
    for (int t = 2; t <= 3; t++)
        CHECK(dot[t] == dot[1] && nrm[t] == nrm[1] && dist[t] == dist[1],
              "threads %d: dot %.17g / %.17g, norm %.17g / %.17g", t, dot[t], dot[1], nrm[t], nrm[1]);
    /* and the sums are right: against a plain loop, to round-off */
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i] * y[i];
    CHECK_NEAR(dot[1], s, 1e-12 * fabs(s) + 1e-12, "fc_dot against the plain loop");
    free(x); free(y); free(z);
}

/* W x, u = W r + q and the measure on a shared problem, threads 1 to 3. */
static void product_and_measure(void)
{
    fc_problem *p = test_load("fc3d/Rover1039.dat");
    if (!p) return;
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, sizeof *r), *u[4];
    for (int i = 0; i < m; i++) r[i] = (i % 3 == 0 ? 1.0 : 0.3) * cos(0.01 * i);
    double e[4];
    for (int t = 1; t <= 3; t++) {
        u[t] = calloc((size_t)m, sizeof *u[t]);
        fc_threads_set(t);
        fc_problem_u(p, r, u[t]);
        e[t] = fc_error_local(p, r, u[t]);
    }
    fc_threads_set(1);
    for (int t = 2; t <= 3; t++)
        CHECK(!memcmp(u[1], u[t], (size_t)m * sizeof *u[1]) && e[t] == e[1],
              "W r + q and the measure, threads %d: %.17g / %.17g", t, e[t], e[1]);
    CHECK_NEAR(e[1], check_error(p, r), 1e-10 * e[1], "the measure against check.h");
    for (int t = 1; t <= 3; t++) free(u[t]);
    free(r);
    fc_problem_free(p);
}

/* solver on the problem with threads 1 and 2: converges with 2 (the
 * residual recomputed here), the same bits as with 1. */
static void solver_threads(const char *rel, const char *solver, double tol)
{
    fc_problem *p = test_load(rel);
    if (!p) return;
    int m = fc_problem_m(p);
    int n = p->kind == FC_GLOBAL ? p->n : 1;
    /* admm's threaded triangular solves: the same bits from 2 threads on */
    int ref = !strcmp(solver, "admm") ? 3 : 1;
    double *r[4], *u[4], *v[4];
    fc_info info[4];
    for (int t = 1; t <= 3; t++) {
        r[t] = calloc((size_t)m, sizeof *r[t]);
        u[t] = calloc((size_t)m, sizeof *u[t]);
        v[t] = calloc((size_t)n, sizeof *v[t]);
        if (t == 3 && ref != 3) continue;
        fc_options o;
        fc_default_options(&o);
        o.tolerance = tol;
        o.max_iter = 20000;
        o.threads = t;
        fc_error err;
        CHECK(fc_solve(p, solver, &o, r[t], u[t], p->kind == FC_GLOBAL ? v[t] : NULL, &info[t],
                       &err) == FC_OK, "%s: %s", solver, err.msg);
    }
    for (int t = 1; t <= 2; t++) {
        double dyn = 0.0, eq = 0.0;
        double chk = p->kind == FC_GLOBAL ? check_error_eq(p, r[t], v[t], NULL, &dyn, &eq)
                                          : check_error(p, r[t]);
        chk = fmax(chk, dyn);
        CHECK(info[t].status == FC_CONVERGED && chk <= 2 * tol,
              "%s on %s, threads %d: %s after %d iterations, residual %.3e (check.h %.3e)", solver, rel,
              t, fc_status_name(info[t].status), info[t].iterations, info[t].residual, chk);
    }
    CHECK(info[ref].iterations == info[2].iterations && !memcmp(r[ref], r[2], (size_t)m * sizeof *r[2]) &&
              !memcmp(v[ref], v[2], (size_t)n * sizeof *v[2]),
          "%s on %s: threads 2 (%d iterations, %.17g) differs from threads %d (%d, %.17g)", solver,
          rel, info[2].iterations, info[2].residual, ref, info[ref].iterations, info[ref].residual);
    printf("%s on %s: %d iterations, threads %d and 2 identical\n", solver, rel, info[2].iterations, ref);
    for (int t = 1; t <= 3; t++) { free(r[t]); free(u[t]); free(v[t]); }
    fc_problem_free(p);
}

/* A scene stepped with threads 1, 2, 3: the same pairs and contacts. */
static void detection(const char *scene, int count, int steps)
{
    fc_mbd_world *w[4];
    fc_mbd_scene_params par;
    fc_mbd_scene_defaults(&par);
    par.count = count;
    fc_error err;
    for (int t = 1; t <= 3; t++)
        CHECK(fc_mbd_scene(scene, &par, &w[t], &err) == FC_OK, "%s: %s", scene, err.msg);
    int total = 0;
    for (int step = 0; step < steps; step++) {
        for (int t = 1; t <= 3; t++) {
            fc_options o;
            fc_default_options(&o);
            o.max_iter = 20;
            o.threads = t;
            CHECK(fc_mbd_step(w[t], "nsgs", &o, NULL, &err) == FC_OK, "%s: %s", scene, err.msg);
        }
        for (int t = 2; t <= 3; t++) {
            int same = w[t]->npairs == w[1]->npairs && w[t]->ncontacts == w[1]->ncontacts &&
                       (w[1]->npairs == 0 ||   /* pairs may be NULL then */
                        !memcmp(w[t]->pairs, w[1]->pairs, 2 * sizeof(int) * (size_t)w[1]->npairs));
            /* the detection's fields (r is the solve's: compared below) */
            for (int c = 0; same && c < w[1]->ncontacts; c++) {
                fc_mbd_contact a = w[1]->contacts[c], b = w[t]->contacts[c];
                memset(a.r, 0, sizeof a.r);
                memset(b.r, 0, sizeof b.r);
                same = !memcmp(&a, &b, sizeof a);
            }
            CHECK(same, "%s step %d, threads %d: %d pairs %d contacts, threads 1: %d pairs %d contacts",
                  scene, step + 1, t, w[t]->npairs, w[t]->ncontacts, w[1]->npairs, w[1]->ncontacts);
            for (int i = 0; i < w[1]->nbodies; i++)
                if (memcmp(w[1]->bodies[i].x, w[t]->bodies[i].x, sizeof w[1]->bodies[i].x)) {
                    CHECK(0, "%s step %d, threads %d: body %d moved differently", scene, step + 1,
                          t, i);
                    break;
                }
        }
        total += w[1]->ncontacts;
    }
    CHECK(total > 0, "%s: no contact", scene);
    printf("%s (%d bodies): %d contacts in %d steps, threads 1, 2, 3 identical\n", scene,
           w[1]->nbodies, total, steps);
    for (int t = 1; t <= 3; t++) fc_mbd_world_free(w[t]);
}

/* A cloud of n spheres (and a floor), far: half of them 10^4 m away. */
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
    for (int round = 1; round <= 2; round++) {
        if (round == 2)
            for (int i = 0; i < n; i += 2) fc_mbd_body_at(w, i)->radius *= 2;
        int *ref = NULL, nref = 0, brute = 0, missing = 0;
        for (int t = 1; t <= 3; t++) {
            int before = fc_threads_set(t);
            int np = fc_mbd_broadphase(w);
            fc_threads_set(before);
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
                int hit;
                if (B->shape == FC_MBD_PLANE) hit = A->x[2] + 3 <= A->radius + 0.01;
                else {
                    double d[3] = {A->x[0] - B->x[0], A->x[1] - B->x[1], A->x[2] - B->x[2]};
                    hit = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) <= A->radius + B->radius + 0.01;
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

int main(void)
{
    fc_par_min_set(TEST_PAR_MIN);
    vector_kernels();
    product_and_measure();
    solver_threads("fc3d/Rover1039.dat", "fpp", 1e-6);
    solver_threads("fc3d/Rover1039.dat", "apgd", 1e-6);
    solver_threads("fc3d/KaplasTower-i1061-4.hdf5.dat", "admm", 1e-6);
    solver_threads("global/Spheres-i099-356-679.hdf5", "gadmm", 1e-6);
    solver_threads("fc3d/Rover1039.dat", "vi-eg", 1e-6);
    detection("pile", 400, 3);
    detection("wall", 120, 3);
    detection("column", 300, 3);
    detection("disks-wall", 300, 3);
    detection("rope", 150, 12);   /* on the sphere from step 9 */
    broadphase_cloud(1500, 0);
    broadphase_cloud(1500, 1);
    TEST_DONE();
}
