/* fricon check PROBLEM SOLUTION [--tol T]: the SPEC measure of a solution
 * file, u recomputed from r (the file's u and v are not trusted).  Prints
 * the measure on stdout (and, with equality constraints, a line
 * "eq_residual: E" from the file's lambda); exit 0 when it is (they are)
 * <= tol (default 1e-8), 1 when not, 2 on bad input.  The one ruler the benchmarks judge every solver
 * with, fricon's and other libraries' alike. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_check(int argc, char **argv)
{
    const char *files[2] = {NULL, NULL};
    int nfiles = 0;
    double tol = 1e-8;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--tol")) {
            if (i + 1 >= argc || cli_parse_double(argv[i + 1], &tol) || tol <= 0)
                return cli_fail("--tol needs a positive number");
            i++;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_fail("unknown option '%s'", argv[i]);
        } else if (nfiles < 2) {
            files[nfiles++] = argv[i];
        } else {
            return cli_fail("unexpected argument '%s'", argv[i]);
        }
    }
    if (nfiles != 2) return cli_fail("usage: fricon check PROBLEM SOLUTION [--tol T]");
    fc_problem *p;
    fc_error err;
    if (fc_read(files[0], &p, &err)) return cli_fail("%s", err.msg);
    double *r = calloc((size_t)fc_problem_m(p), sizeof *r);
    double *lambda = p->neq > 0 ? calloc((size_t)p->neq, sizeof *lambda) : NULL;
    int rc = EXIT_BAD_INPUT;
    if (!r || (p->neq > 0 && !lambda)) {
        cli_fail("%s: out of memory", files[0]);
    } else if (fc_read_solution(files[1], p, r, NULL, NULL, lambda, &err)) {
        cli_fail("%s", err.msg);
    } else {
        double dyn = 0.0, eq = 0.0;
        double e = fc_residual_eq(p, r, NULL, lambda, &dyn, &eq);
        if (isfinite(e)) printf("%.6e\n", e);
        else printf("nan\n");
        /* with equalities (lambda from the file; v recomputed from r and
         * lambda), their residual must meet tol as well */
        if (p->neq > 0) printf("eq_residual: %.6e\n", eq);
        rc = isfinite(e) && e <= tol && (p->neq == 0 || eq <= tol) ? EXIT_DONE : EXIT_NOT_CONVERGED;
    }
    free(r);
    free(lambda);
    fc_problem_free(p);
    return rc;
}
