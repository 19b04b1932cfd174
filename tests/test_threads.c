/* Thread safety: every registered solver, run on two problems in two
 * threads at once, returns bit for bit what it returns run alone (the
 * library keeps no global mutable state).  Problems are read before the
 * threads start (HDF5 error-handler toggling is not thread-safe). */
#include "test.h"
#include "scene.h"
#include "fricon.h"
#include "fricon_mbd.h"

#include <pthread.h>

/* Built with FRICON_TEST_QUICK (the ThreadSanitizer job, scripts/test.sh
 * --tsan): fewer iterations per run and no auto in the thread counts. */
#ifdef FRICON_TEST_QUICK
#define RUN_ITERATIONS 50
#define COUNT_SOLVERS 2
#else
#define RUN_ITERATIONS 500
#define COUNT_SOLVERS 3
#endif

typedef struct job {
    const fc_problem *p;
    const char *solver;
    double *r, *u, *v;
    fc_info info;
    fc_err err;
} job;

static void *run(void *arg)
{
    job *j = arg;
    fc_options opt;
    fc_default_options(&opt);
    opt.max_iter = RUN_ITERATIONS;  /* deterministic: iteration-limited, no clock */
    int m = fc_problem_m(j->p);
    memset(j->r, 0, (size_t)m * sizeof *j->r);
    fc_error e;
    j->err = fc_solve(j->p, j->solver, &opt, j->r, j->u, j->v, &j->info, &e);
    return NULL;
}

static void job_init(job *j, const fc_problem *p, const char *solver)
{
    memset(j, 0, sizeof *j);
    j->p = p;
    j->solver = solver;
    int m = fc_problem_m(p);
    j->r = calloc((size_t)m, sizeof *j->r);
    j->u = calloc((size_t)m, sizeof *j->u);
    j->v = p->kind == FC_GLOBAL ? calloc((size_t)p->n, sizeof *j->v) : NULL;
}

static void job_free(job *j)
{
    free(j->r);
    free(j->u);
    free(j->v);
}

static int same(const job *a, const job *b)
{
    int m = fc_problem_m(a->p);
    return a->err == b->err && a->info.status == b->info.status &&
           a->info.iterations == b->info.iterations &&
           !memcmp(a->r, b->r, (size_t)m * sizeof *a->r) &&
           (!a->v || !memcmp(a->v, b->v, (size_t)a->p->n * sizeof *a->v));
}

static fc_problem *load(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", FRICON_EXAMPLES, name);
    fc_problem *p = NULL;
    fc_error err;
    if (fc_read(path, &p, &err) != FC_OK) CHECK(0, "cannot read %s: %s", path, err.msg);
    return p;
}

/* fc_options.threads: a problem large enough for the OpenMP kernels (a
 * step of the collapsing column, about 7000 contacts) gives bit for bit
 * the same result with 1, 2 and 3 threads (chunks depend on the size
 * alone), for nsgs, a first-order solver and auto (nncg in file order). */
static void thread_counts(void)
{
    fc_mbd_world *w;
    fc_options o;
    fc_error err;
    const fc_problem *p = test_scene_step("column", 2000, &w);
    CHECK(p && p->nc >= 4096, "column step: %d contacts", p ? p->nc : 0);
    if (!p || p->nc < 4096) { fc_mbd_world_free(w); return; }
    static const char *const solvers[] = {"nsgs", "apgd-ccp", "auto"};
    int m = fc_problem_m(p);
    for (int s = 0; s < COUNT_SOLVERS; s++) {
        double *r[3], *u[3], *v[3];
        fc_info info[3];
        for (int t = 0; t < 3; t++) {
            r[t] = calloc((size_t)m, sizeof *r[t]);
            u[t] = calloc((size_t)m, sizeof *u[t]);
            v[t] = calloc((size_t)p->n, sizeof *v[t]);
            fc_default_options(&o);
            o.max_iter = 30;
            o.threads = t + 1;
            /* auto's nncg stage takes parallel slabs from 2 threads, an
             * order that depends on the count by design (test_nncg_par.c):
             * the file order here, for the kernels' invariance */
            o.nncg.order = 3;
            CHECK(fc_solve(p, solvers[s], &o, r[t], u[t], v[t], &info[t], &err) == FC_OK, "%s: %s",
                  solvers[s], err.msg);
        }
        for (int t = 1; t < 3; t++)
            CHECK(!memcmp(r[0], r[t], (size_t)m * sizeof *r[0]) &&
                  !memcmp(v[0], v[t], (size_t)p->n * sizeof *v[0]) &&
                  info[0].residual == info[t].residual && info[0].iterations == info[t].iterations,
                  "%s on %d contacts: threads %d differs from threads 1 (residual %.17g / %.17g)",
                  solvers[s], p->nc, t + 1, info[t].residual, info[0].residual);
        printf("%s, %d contacts: threads 1, 2, 3 identical (%d iterations, residual %.3e)\n",
               solvers[s], p->nc, info[0].iterations, info[0].residual);
        for (int t = 0; t < 3; t++) { free(r[t]); free(u[t]); free(v[t]); }
    }
    fc_mbd_world_free(w);
}

int main(void)
{
    thread_counts();
    /* pairs of problems of the same dimension, one local and one global
     * where the dimension has both */
    fc_problem *p3a = load("Capsules-i125-1213.hdf5"), *p3b = load("GFC3D_TwoRods1.dat");
    fc_problem *p2 = load("FrictionContactProblem00394.dat"), *p5 = load("RFC3D_sphere_1.dat");
    if (!p3a || !p3b || !p2 || !p5) TEST_DONE();
    const fc_problem *pairs[3][2] = {{p3a, p3b}, {p2, p2}, {p5, p5}};
    int runs = 0;
    for (int s = 0; s < fc_solver_count(); s++) {
        const fc_solver *sv = fc_solver_at(s);
        for (int k = 0; k < 3; k++) {
            const fc_problem *a = pairs[k][0], *b = pairs[k][1];
            if (!(sv->dims & FC_DIM(a->d))) continue;
            job seq[2], par[2];
            job_init(&seq[0], a, sv->name);
            job_init(&seq[1], b, sv->name);
            job_init(&par[0], a, sv->name);
            job_init(&par[1], b, sv->name);
            run(&seq[0]);
            run(&seq[1]);
            pthread_t t[2];
            int ok = !pthread_create(&t[0], NULL, run, &par[0]) &&
                     !pthread_create(&t[1], NULL, run, &par[1]);
            CHECK(ok, "pthread_create");
            if (ok) {
                pthread_join(t[0], NULL);
                pthread_join(t[1], NULL);
                for (int i = 0; i < 2; i++)
                    CHECK(same(&seq[i], &par[i]), "%s on %s: concurrent run differs from the "
                          "sequential one (status %s/%s, iterations %d/%d)", sv->name,
                          seq[i].p->name ? seq[i].p->name : "?",
                          fc_status_name(seq[i].info.status), fc_status_name(par[i].info.status),
                          seq[i].info.iterations, par[i].info.iterations);
            }
            runs++;
            for (int i = 0; i < 2; i++) { job_free(&seq[i]); job_free(&par[i]); }
        }
    }
    printf("%d solver x problem-pair runs compared\n", runs);
    fc_problem_free(p3a);
    fc_problem_free(p3b);
    fc_problem_free(p2);
    fc_problem_free(p5);
    TEST_DONE();
}
