/* Thread safety: every registered solver, run on two problems in two
 * threads at once, returns bit for bit what it returns run alone (the
 * library keeps no global mutable state).  Problems are read before the
 * threads start (HDF5 error-handler toggling is not thread-safe). */
#include "test.h"
#include "fricon.h"

#include <pthread.h>

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
    opt.max_iter = 500;     /* deterministic: iteration-limited, no clock */
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

int main(void)
{
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
