/* The solution text file of SPEC section 3, and fc_read / fc_write,
 * which choose the format from the file name. */
#include "io/io.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>

/* Write `# fricon solution d=D nc=NC`, then per contact r_a and u_a,
 * then (global, v given) `# v n=N` and v one value a line, then (with
 * equalities, lambda given) `# lambda p=P` and lambda one value a line. */
fc_err fc_write_solution(const char *path, const fc_problem *p, const double *r,
                         const double *u, const double *v, const double *lambda, fc_error *err)
{
    if (!p || !r || !u) return fc_error_set(err, FC_ERR_INVALID, "%s: no solution to write", path);
    FILE *f = fopen(path, "w");
    if (!f) return fc_error_set(err, FC_ERR_IO, "%s: cannot open for writing: %s", path, strerror(errno));
    int d = p->d;
    fprintf(f, "# fricon solution d=%d nc=%d\n", d, p->nc);
    for (int a = 0; a < p->nc; a++) {
        for (int k = 0; k < d; k++) fprintf(f, k ? " %.17g" : "%.17g", r[d * a + k]);
        for (int k = 0; k < d; k++) fprintf(f, " %.17g", u[d * a + k]);
        fputc('\n', f);
    }
    if (p->kind == FC_GLOBAL && v) {
        fprintf(f, "# v n=%d\n", p->n);
        for (int i = 0; i < p->n; i++) fprintf(f, "%.17g\n", v[i]);
    }
    if (p->neq > 0 && lambda) {
        fprintf(f, "# lambda p=%d\n", p->neq);
        for (int i = 0; i < p->neq; i++) fprintf(f, "%.17g\n", lambda[i]);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return fc_error_set(err, FC_ERR_IO, "%s: write error: %s", path, strerror(errno));
    return FC_OK;
}

/* Case-insensitive equality of two strings. */
static int same_ci(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

/* Does the path's extension equal ext (any case)? */
static int has_extension(const char *path, const char *ext)
{
    const char *dot = strrchr(fc_io_basename(path), '.');
    return dot && same_ci(dot + 1, ext);
}

/* Does the path end in .hdf5 or .h5 (any case)? */
static int is_hdf5_name(const char *path)
{
    return has_extension(path, "hdf5") || has_extension(path, "h5");
}

/* Read a problem, format by extension. */
fc_err fc_read(const char *path, fc_problem **p, fc_error *err)
{
    return is_hdf5_name(path) ? fc_read_hdf5(path, p, err) : fc_read_dat(path, p, err);
}

/* Write a problem, format by extension (.dat, .hdf5, .h5; any other is
 * refused: a name that says nothing would be written as .dat text). */
fc_err fc_write(const char *path, const fc_problem *p, fc_error *err)
{
    if (is_hdf5_name(path)) return fc_write_hdf5(path, p, err);
    if (!has_extension(path, "dat"))
        return fc_error_set(err, FC_ERR_INVALID,
                            "%s: unknown output format (the name must end in .dat, .hdf5 or .h5)", path);
    return fc_write_dat(path, p, err);
}
