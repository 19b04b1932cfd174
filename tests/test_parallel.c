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
 *   for threads 1, 2 and 3, step after step (joints too: the rope), and
 *   the step's global problem (M, H, f, w, mu) the same bits. */
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

/* The same CSR matrix, bit for bit (both NULL included). */
static int same_csr(const fc_matrix *a, const fc_matrix *b)
{
    if (!a || !b) return a == b;
    return a->rows == b->rows && a->cols == b->cols && a->nnz == b->nnz &&
           !memcmp(a->p, b->p, ((size_t)a->rows + 1) * sizeof *a->p) &&
           !memcmp(a->j, b->j, (size_t)a->nnz * sizeof *a->j) && !memcmp(a->x, b->x, (size_t)a->nnz * sizeof *a->x);
}

/* w's global problem (fc_mbd_build_problem) with threads t. */
static fc_problem *built(const fc_mbd_world *w, int t)
{
    fc_problem *p = NULL;
    fc_error err;
    int before = fc_threads_set(t);
    CHECK(fc_mbd_build_problem(w, &p, &err) == FC_OK, "build, threads %d: %s", t, err.msg);
    fc_threads_set(before);
    return p;
}

/* The same global problem, bit for bit. */
static int same_problem(const fc_problem *a, const fc_problem *b)
{
    if (!a || !b) return a == b;
    size_t m = (size_t)a->d * (size_t)a->nc;
    return a->n == b->n && a->nc == b->nc && a->d == b->d && same_csr(a->M, b->M) && same_csr(a->H, b->H) &&
           !memcmp(a->f, b->f, (size_t)a->n * sizeof *a->f) && !memcmp(a->w, b->w, m * sizeof *a->w) &&
           !memcmp(a->mu, b->mu, (size_t)a->nc * sizeof *a->mu);
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
            if (same) {
                /* the assembly of the next step's problem from these
                 * contacts and positions: threaded counts and ranks */
                fc_problem *a = built(w[1], 1), *b = built(w[t], t);
                CHECK(same_problem(a, b), "%s step %d: the global problem with threads %d differs from threads 1",
                      scene, step + 1, t);
                fc_problem_free(a);
                fc_problem_free(b);
            }
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
    TEST_DONE();
}
