/* Triplet lists and their conversion to CSR; helpers common to readers. */
#include "io/io.h"

/* Append (i, j, x), doubling the capacity when full. */
fc_err fc_triplets_push(fc_triplets *t, int i, int j, double x)
{
    if (t->n == t->cap) {
        long cap = t->cap ? 2 * t->cap : 64;
        if (cap > FC_MAX_ENTRIES) return FC_ERR_NOMEM;
        int *ni = realloc(t->i, (size_t)cap * sizeof *ni);
        if (ni) t->i = ni;
        int *nj = realloc(t->j, (size_t)cap * sizeof *nj);
        if (nj) t->j = nj;
        double *nx = realloc(t->x, (size_t)cap * sizeof *nx);
        if (nx) t->x = nx;
        if (!ni || !nj || !nx) return FC_ERR_NOMEM;
        t->cap = cap;
    }
    t->i[t->n] = i;
    t->j[t->n] = j;
    t->x[t->n++] = x;
    return FC_OK;
}

void fc_triplets_free(fc_triplets *t)
{
    free(t->i);
    free(t->j);
    free(t->x);
    memset(t, 0, sizeof *t);
}

/* Bucket the entries by column (stable), so that a second bucketing by
 * row yields rows whose columns are sorted. */
static long *column_order(const fc_triplets *t, int cols)
{
    long *start = fc_calloc((size_t)cols + 1, sizeof *start);
    long *order = fc_calloc((size_t)t->n, sizeof *order);
    if (!start || !order) { free(start); free(order); return NULL; }
    for (long k = 0; k < t->n; k++) start[t->j[k] + 1]++;
    for (int c = 0; c < cols; c++) start[c + 1] += start[c];
    for (long k = 0; k < t->n; k++) order[start[t->j[k]]++] = k;
    free(start);
    return order;
}

/* Merge duplicate columns inside each row of C, in place. */
static void csr_sum_duplicates(fc_matrix *C)
{
    long w = 0, k = 0;
    for (int i = 0; i < C->rows; i++) {
        long end = C->p[i + 1];
        long row_start = w;
        for (; k < end; k++) {
            if (w > row_start && C->j[w - 1] == C->j[k]) { C->x[w - 1] += C->x[k]; continue; }
            C->j[w] = C->j[k];
            C->x[w++] = C->x[k];
        }
        C->p[i + 1] = (int)w;
    }
    C->nnz = w;
}

/* CSR of the triplets: counting sorts by column then by row. */
fc_matrix *fc_triplets_to_csr(const fc_triplets *t, int rows, int cols)
{
    if (t->n > 0x7fffffffL) return NULL;
    long *order = column_order(t, cols);
    fc_matrix *C = order ? fc_matrix_csr(rows, cols, t->n) : NULL;
    long *next = C ? fc_calloc((size_t)rows + 1, sizeof *next) : NULL;
    if (!next) { free(order); fc_matrix_free(C); return NULL; }
    for (long k = 0; k < t->n; k++) next[t->i[k] + 1]++;
    for (int i = 0; i < rows; i++) next[i + 1] += next[i];
    for (int i = 0; i <= rows; i++) C->p[i] = (int)next[i];
    for (long s = 0; s < t->n; s++) {
        long k = order[s];
        long dst = next[t->i[k]]++;
        C->j[dst] = t->j[k];
        C->x[dst] = t->x[k];
    }
    free(order);
    free(next);
    csr_sum_duplicates(C);
    return C;
}

/* Last path component. */
const char *fc_io_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Validate p (all of it, or all but M's definiteness), name it after the
 * file, and return it (or free it). */
static fc_err finish(const char *path, fc_problem *p, int definite, fc_problem **out, fc_error *err)
{
    fc_error e = {FC_OK, ""};
    if (!p->name) p->name = fc_strdup(fc_io_basename(path));
    if (!p->name) {
        fc_problem_free(p);
        return fc_error_set(err, FC_ERR_NOMEM, "%s: out of memory", path);
    }
    if ((definite ? fc_problem_validate(p, &e) : fc_problem_validate_shape(p, &e)) != FC_OK) {
        fc_problem_free(p);
        return fc_error_set(err, e.code, "%s: %s", path, e.msg);
    }
    *out = p;
    return FC_OK;
}

fc_err fc_io_finish(const char *path, fc_problem *p, fc_problem **out, fc_error *err)
{
    return finish(path, p, 1, out, err);
}

fc_err fc_io_finish_shape(const char *path, fc_problem *p, fc_problem **out, fc_error *err)
{
    return finish(path, p, 0, out, err);
}
