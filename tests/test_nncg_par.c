/* nncg's block-parallel sweeps (nncg.order 4: stretches of the file
 * order, 5: slabs of the body graph; 0: auto) on bundled pile steps:
 * - the slabs (fc_level_parts, fc_parts_shared) in one phase and in two:
 *   a partition, no body of v touched by the interior contacts of two
 *   slabs of one phase;
 * - at one thread orders 4 and 5 give the file order's result bit for bit;
 * - at 2 and 3 threads each order gives the same bits run to run, and
 *   converges: the error recomputed independently (check.h) within the
 *   tolerance, the dynamics consistent. */
#include "test.h"
#include "check.h"
#include "internal.h"
#include "matrix/colour.h"

typedef struct run_out {
    double *r, *v;
    fc_info info;
} run_out;

static const char *phases = "0";   /* nncg.phases of the runs */

/* nncg on p with nncg.order `order` at `threads` threads. */
static run_out run(const fc_problem *p, const char *order, int threads, double tol)
{
    run_out o = {calloc((size_t)fc_problem_m(p), sizeof(double)), calloc((size_t)p->n, sizeof(double)), {0}};
    double *u = calloc((size_t)fc_problem_m(p), sizeof *u);
    fc_options opt;
    fc_default_options(&opt);
    opt.tolerance = tol;
    opt.threads = threads;
    opt.max_iter = 5000;
    fc_error err;
    CHECK(fc_options_set(&opt, "nncg.order", order, &err) == FC_OK, "%s", err.msg);
    CHECK(fc_options_set(&opt, "nncg.phases", phases, &err) == FC_OK, "%s", err.msg);
    CHECK(fc_solve(p, "nncg", &opt, o.r, u, o.v, &o.info, &err) == FC_OK, "nncg: %s", err.msg);
    free(u);
    return o;
}

static int same(const run_out *a, const run_out *b, const fc_problem *p)
{
    return !memcmp(a->r, b->r, (size_t)fc_problem_m(p) * sizeof *a->r) &&
           !memcmp(a->v, b->v, (size_t)p->n * sizeof *a->v) && a->info.iterations == b->info.iterations;
}

static void out_free(run_out *o)
{
    free(o->r);
    free(o->v);
}

/* The slabs of p at S parts: every contact once, the interior contacts of
 * two slabs touching no common column of H^T. */
static void check_slabs(const fc_problem *p, int T, int P)
{
    int S = T * P;   /* the slabs: T a phase */
    int nc = p->nc, d = p->d, n = p->n;
    fc_matrix *Hc = fc_matrix_to_csr(p->H);
    fc_matrix *Ht = Hc ? fc_csr_transpose(Hc) : NULL;
    int *body = malloc((size_t)2 * nc * sizeof *body), *part = calloc((size_t)nc, sizeof *part);
    int *seen = malloc((size_t)n * sizeof *seen), *cnt = calloc((size_t)nc, sizeof *cnt);
    CHECK(Ht && body && part && seen && cnt, "out of memory");
    /* bodies: groups of 6 dofs (the pile's rigid bodies, M's blocks) */
    for (int a = 0; a < nc; a++) {
        body[2 * a] = body[2 * a + 1] = -1;
        for (int q = Ht->p[d * a]; q < Ht->p[d * a + d]; q++) {
            int b = Ht->j[q] / 6;
            if (body[2 * a] < 0) body[2 * a] = b;
            else if (body[2 * a] != b && body[2 * a + 1] < 0) body[2 * a + 1] = b;
        }
    }
    fc_colouring c;
    CHECK(fc_level_parts(nc, n / 6, body, NULL, S, P, part) == 0 &&
              fc_parts_shared(nc, d, Ht, NULL, n, S, P, part, &c) == 0,
          "slabs failed");
    CHECK(c.stretches == S && c.start[0] == 0 && c.start[S + 1] == nc, "slabs: %d groups of %d contacts",
          c.stretches, c.start[S + 1]);
    for (int i = 0; i < nc; i++) cnt[c.member[i]]++;
    int once = 1, bad = 0;
    for (int a = 0; a < nc; a++) once &= cnt[a] == 1;
    CHECK(once, "slabs: not a partition of the contacts");
    CHECK(c.phases == P, "slabs: %d phases, not %d", c.phases, P);
    for (int ph = 0; ph < P; ph++) {   /* the slabs of one phase: no unknown in common */
        for (int i = 0; i < n; i++) seen[i] = -1;
        for (int s = ph * T; s < ph * T + T; s++)
            for (int i = c.start[s]; i < c.start[s + 1]; i++) {
                int a = c.member[i];
                CHECK(i == c.start[s] || c.member[i - 1] < a, "slab %d not in file order", s);
                for (int q = Ht->p[d * a]; q < Ht->p[d * a + d]; q++) {
                    int u = Ht->j[q];
                    bad += seen[u] >= 0 && seen[u] != s;
                    seen[u] = s;
                }
            }
    }
    CHECK(bad == 0, "slabs: %d unknowns touched by two slabs of one phase", bad);
    printf("%d contacts, %d slabs in %d phases: %d at the interface (sizes", nc, S, P, c.start[S + 1] - c.start[S]);
    for (int s = 0; s < S; s++) printf(" %d", c.start[s + 1] - c.start[s]);
    printf(")\n");
    fc_colouring_free(&c);
    free(body); free(part); free(seen); free(cnt);
    fc_matrix_free(Hc);
    fc_matrix_free(Ht);
}

static void check_problem(const char *rel, double tol)
{
    fc_problem *p = test_read(rel);
    if (!p) return;
    for (int P = 1; P <= 2; P++) {
        check_slabs(p, 2, P);
        check_slabs(p, 3, P);
    }
    run_out file = run(p, "3", 1, tol);
    CHECK(file.info.status == FC_CONVERGED, "%s: file order %s", rel, fc_status_name(file.info.status));
    const char *orders[] = {"4", "5"};
    for (int k = 0; k < 2; k++) {
        run_out one = run(p, orders[k], 1, tol);
        CHECK(same(&one, &file, p), "%s: order %s at 1 thread differs from the file order", rel, orders[k]);
        out_free(&one);
        for (int t = 2; t <= 4; t++) {   /* 4: 2 threads in one phase */
            phases = t == 4 ? "1" : "0";
            int nt = t == 4 ? 2 : t;
            run_out a = run(p, orders[k], nt, tol), b = run(p, orders[k], nt, tol);
            double e = check_error(p, a.r);
            printf("%s order %s, %d threads, nncg.phases %s: %s after %d sweeps (file order %d), error %.3e\n", rel,
                   orders[k], nt, phases, fc_status_name(a.info.status), a.info.iterations, file.info.iterations, e);
            CHECK(same(&a, &b, p), "%s: order %s at %d threads: two runs differ", rel, orders[k], nt);
            CHECK(a.info.status == FC_CONVERGED && e <= tol * (1 + 1e-6), "%s: order %s at %d threads: %s, error %.3e",
                  rel, orders[k], nt, fc_status_name(a.info.status), e);
            CHECK(a.info.dyn_residual <= 1e-8, "%s: dynamics residual %.3e", rel, a.info.dyn_residual);
            out_free(&a);
            out_free(&b);
        }
    }
    out_free(&file);
    fc_problem_free(p);
}

int main(void)
{
    fc_par_min_set(64);   /* the threaded vector kernels on small problems too */
#ifdef FRICON_TEST_QUICK
    check_problem(FRICON_EXAMPLES "/pile300-step30.hdf5", 1e-3);
#else
    check_problem(FRICON_EXAMPLES "/pile300-step30.hdf5", 1e-4);
    check_problem(FRICON_EXAMPLES "/pile-step24.hdf5", 1e-4);
#endif
    TEST_DONE();
}
