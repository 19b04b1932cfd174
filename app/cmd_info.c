/* fricon info FILE: what a problem is. */
#include "cli.h"

#include <math.h>
#include <stdio.h>

int cmd_info(int argc, char **argv)
{
    if (argc != 1) return cli_fail("usage: fricon info FILE");
    fc_problem *p;
    fc_error err;
    if (fc_read(argv[0], &p, &err)) return cli_fail("%s", err.msg);
    double lo = INFINITY, hi = -INFINITY;
    for (int a = 0; a < p->nc; a++) {
        lo = fmin(lo, p->mu[a]);
        hi = fmax(hi, p->mu[a]);
    }
    printf("problem: %s\n", argv[0]);
    printf("kind: %s\n", fc_problem_kind_name(p));
    printf("d: %d\nnc: %d\nm: %d\n", p->d, p->nc, fc_problem_m(p));
    if (p->kind == FC_LOCAL) {
        printf("W: %s, nnz %ld, asymmetry %.3g\n",
               p->W->kind == FC_MAT_DENSE ? "dense" : p->W->kind == FC_MAT_CSR ? "csr" : "block-sparse",
               fc_matrix_count_nonzeros(p->W), fc_matrix_asymmetry(p->W));
    } else {
        printf("n: %d\n", p->n);
        printf("M: nnz %ld, asymmetry %.3g\n", fc_matrix_count_nonzeros(p->M), fc_matrix_asymmetry(p->M));
        printf("H: nnz %ld\n", fc_matrix_count_nonzeros(p->H));
    }
    printf("mu: [%g, %g]\n", lo, hi);
    if (p->mu_r) {
        lo = INFINITY, hi = -INFINITY;
        for (int a = 0; a < p->nc; a++) {
            lo = fmin(lo, p->mu_r[a]);
            hi = fmax(hi, p->mu_r[a]);
        }
        printf("mu_r: [%g, %g]\n", lo, hi);
    }
    if (p->neq > 0) {
        const fc_matrix *E = p->kind == FC_LOCAL ? p->V : p->G;
        printf("equalities: %d\n", p->neq);
        printf("%s: nnz %ld\n", p->kind == FC_LOCAL ? "V" : "G", fc_matrix_count_nonzeros(E));
        if (p->kind == FC_LOCAL) printf("R: %s\n", p->R ? "given" : "zero");
    } else {
        printf("equalities: 0\n");
    }
    int nguess = 0;
    if (fc_read_guess(argv[0], p, 0, NULL, NULL, &nguess, &err)) {
        fc_problem_free(p);
        return cli_fail("%s", err.msg);
    }
    printf("guesses: %d\n", nguess);
    fc_problem_free(p);
    return EXIT_DONE;
}
