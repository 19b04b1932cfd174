/* Stress measurement of the 2D solvers on random local problems (not a
 * ctest: run by hand).  W = J J^T + eps I with J m x k sparse random
 * (rank-deficient when k < m, eps = 0), q random with a share of exact
 * zeros (degenerate), mu in [0.1, 1].  Prints, per kind, how many of N
 * problems each solver solved to 1e-10 (lemke) / 1e-8 (cpg), judged by
 * tests/check.h.
 *   cc -O2 -Iinclude -Isrc -Itests bench/lcp2d_stress.c build/libfricon.a \
 *      $(libs) -o /tmp/stress && /tmp/stress [N] [--set restarts]      */
#include "fricon.h"
#include "check.h"
#include <stdio.h>

static double rnd(unsigned long *s)
{
    *s = *s * 6364136223846793005UL + 1442695040888963407UL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static void logger(void *user, int level, const char *msg)
{
    (void)user;
    fprintf(stderr, "[%d] %s\n", level, msg);
}

static fc_problem *random_problem(int nc, int k, double eps, double zeros, double density,
                                  unsigned long *seed)
{
    int m = 2 * nc;
    double *J = calloc((size_t)m * k, sizeof *J), *W = calloc((size_t)m * m, sizeof *W);
    for (long i = 0; i < (long)m * k; i++) J[i] = rnd(seed) < density ? 2 * rnd(seed) - 1 : 0;
    for (int i = 0; i < m; i++) J[i + (long)m * (i % k)] += 1.0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            double s = i == j ? eps : 0;
            for (int l = 0; l < k; l++) s += J[i + (long)m * l] * J[j + (long)m * l];
            W[i + (long)m * j] = s;
        }
    fc_problem *p = fc_problem_new(FC_LOCAL, 2, nc);
    fc_matrix *Wd = fc_matrix_dense(m, m);
    memcpy(Wd->x, W, (size_t)m * m * sizeof *W);
    p->W = fc_matrix_to_csr(Wd);
    fc_matrix_free(Wd);
    p->q = malloc((size_t)m * sizeof *p->q);
    for (int i = 0; i < m; i++) p->q[i] = rnd(seed) < zeros ? 0.0 : 2 * rnd(seed) - 1;
    for (int a = 0; a < nc; a++) p->mu[a] = 0.1 + 0.9 * rnd(seed);
    free(J);
    free(W);
    return p;
}

int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 50;
    int restarts = argc > 2 ? atoi(argv[2]) : 3;
    double tie = argc > 3 ? atof(argv[3]) : 1e-12;
    int vkind = argc > 5 ? atoi(argv[4]) : -1, vrep = argc > 5 ? atoi(argv[5]) : -1;
    struct { int nc, k; double eps, zeros, density; } kinds[] = {
        {5, 10, 1e-3, 0.0, 0.3}, {5, 4, 0.0, 0.3, 0.3}, {20, 10, 0.0, 0.5, 0.3},
        {20, 40, 0.0, 0.0, 0.3}, {60, 30, 0.0, 0.3, 0.1}, {60, 200, 1e-6, 0.3, 0.05},
        {200, 150, 0.0, 0.2, 0.02},
    };
    const char *solvers[] = {"lemke", "cpg", "nsgs"};
    unsigned long seed = 12345;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        int ok[3] = {0, 0, 0}, iters[3] = {0, 0, 0};
        double secs[3] = {0, 0, 0}, worst[3] = {0, 0, 0};
        for (int rep = 0; rep < N; rep++) {
            fc_problem *p = random_problem(kinds[k].nc, kinds[k].k, kinds[k].eps, kinds[k].zeros,
                                           kinds[k].density, &seed);
            int m = fc_problem_m(p);
            double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
            for (int s = 0; s < 3; s++) {
                fc_options opt;
                fc_default_options(&opt);
                opt.time_limit = 5;
                opt.lcp.restarts = restarts;
                opt.lcp.tie_tol = tie;
                if ((int)k == vkind && rep == vrep && s == 0) {
                    opt.verbose = 3;
                    opt.log = logger;
                }
                fc_info info;
                fc_error err;
                memset(r, 0, (size_t)m * sizeof *r);
                if (fc_solve(p, solvers[s], &opt, r, u, NULL, &info, &err) != FC_OK) continue;
                double e = check_error(p, r);
                if (info.status == FC_CONVERGED && e <= (s == 0 ? 1e-10 : 1e-8)) ok[s]++;
                else if (s < 2 && N <= 50) fprintf(stderr, "  %s kind %zu rep %d: %s %g %s\n", solvers[s], k, rep,
                                       fc_status_name(info.status), e, info.message);
                if (!(e <= worst[s])) worst[s] = e;
                iters[s] += info.iterations;
                secs[s] += info.seconds;
            }
            free(r);
            free(u);
            fc_problem_free(p);
        }
        printf("nc=%3d k=%3d eps=%-6g zeros=%.1f:", kinds[k].nc, kinds[k].k, kinds[k].eps,
               kinds[k].zeros);
        for (int s = 0; s < 3; s++)
            printf("  %s %d/%d (worst %.1e, %.0f it, %.3fs)", solvers[s], ok[s], N, worst[s],
                   (double)iters[s] / N, secs[s] / N);
        printf("\n");
    }
    return 0;
}
