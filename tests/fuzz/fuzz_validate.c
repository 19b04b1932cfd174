/* libFuzzer target: problem validation on corrupted in-memory problems
 * (sizes, sparse structures, values).  Whatever fc_problem_validate
 * accepts must be safe to use: a product with W (or M and H) and the error
 * measure run under ASan on every accepted problem. */
#include "fricon.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { const uint8_t *p; size_t n; } bytes;

static int take_int(bytes *b, int lo, int hi)
{
    if (b->n == 0) return lo;
    int v = lo + (int)(b->p[0] % (unsigned)(hi - lo + 1));
    b->p++, b->n--;
    return v;
}

static double take_double(bytes *b)
{
    double v = 0;
    if (b->n >= sizeof v) { memcpy(&v, b->p, sizeof v); b->p += sizeof v; b->n -= sizeof v; }
    return v;
}

/* A matrix of small declared size whose structure comes from the input. */
static fc_matrix *take_matrix(bytes *b, int rows, int cols, int bs)
{
    int kind = take_int(b, 0, 2);
    fc_matrix *A;
    if (kind == 0) A = fc_matrix_dense(rows, cols);
    else if (kind == 1) A = fc_matrix_csr(rows, cols, take_int(b, 0, 40));
    else A = fc_matrix_bsr(rows, cols, bs, take_int(b, 0, 12));
    if (!A) return NULL;
    if (A->kind != FC_MAT_DENSE) {
        int np = (A->kind == FC_MAT_BSR ? rows / bs : rows) + 1;
        long len = A->kind == FC_MAT_BSR ? A->nnz / ((long)bs * bs) : A->nnz;
        for (int i = 0; i < np; i++) A->p[i] = take_int(b, -2, 45);
        for (long k = 0; k < len; k++) A->j[k] = take_int(b, -2, 20);
    }
    for (long k = 0; k < A->nnz; k++) A->x[k] = take_double(b);
    return A;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bytes b = {data, size};
    int d = take_int(&b, 2, 5), nc = take_int(&b, 0, 4), global = take_int(&b, 0, 1);
    if (d == 4) d = 3;
    fc_problem *p = fc_problem_new(global ? FC_GLOBAL : FC_LOCAL, d, nc);
    if (!p) return 0;
    int m = d * nc;
    for (int a = 0; a < nc; a++) p->mu[a] = take_double(&b);
    if (p->mu_r) for (int a = 0; a < nc; a++) p->mu_r[a] = take_double(&b);
    if (!global) {
        p->W = take_matrix(&b, m + take_int(&b, 0, 1) * d, m, d);
        p->q = calloc((size_t)m + 1, sizeof *p->q);
        for (int i = 0; i < m; i++) p->q[i] = take_double(&b);
    } else {
        p->n = take_int(&b, 0, 6);
        p->M = take_matrix(&b, p->n, p->n, 1);
        p->H = take_matrix(&b, p->n, m, 1);
        p->f = calloc((size_t)p->n + 1, sizeof *p->f);
        p->w = calloc((size_t)m + 1, sizeof *p->w);
        for (int i = 0; i < p->n; i++) p->f[i] = take_double(&b);
        for (int i = 0; i < m; i++) p->w[i] = take_double(&b);
    }
    fc_error err;
    if (fc_problem_validate(p, &err) == FC_OK) {
        double *r = calloc((size_t)m + 1, sizeof *r), *v = calloc((size_t)p->n + 1, sizeof *v);
        for (int i = 0; i < m; i++) r[i] = 1.0;
        (void)fc_residual(p, r, NULL, NULL);
        if (global) (void)fc_problem_recover_v(p, r, v, &err);
        free(r);
        free(v);
    }
    fc_problem_free(p);
    return 0;
}
