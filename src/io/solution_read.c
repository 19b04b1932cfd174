/* Reading a solution text file of SPEC section 3 (the inverse of
 * fc_write_solution): "# fricon solution d=D nc=NC", one line per contact
 * holding r_a then u_a, and for a global problem "# v n=N" then v. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <stdio.h>

typedef struct {
    FILE *f;
    const char *path;
    char *line;
    size_t cap;
    long lineno;
} sol_reader;

/* Next line that is neither blank nor (when skip_comments) a comment;
 * returns its text or NULL at end of file. */
static char *next_line(sol_reader *rd, int skip_comments)
{
    while (getline(&rd->line, &rd->cap, rd->f) >= 0) {
        rd->lineno++;
        char *s = rd->line;
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
        if (!*s) continue;
        if (skip_comments && *s == '#') continue;
        return s;
    }
    return NULL;
}

/* Parse up to max numbers from s into x; returns how many, or -1 when a
 * token is not a finite-or-infinite number (NaN and inf are accepted:
 * the measure of such a solution is NaN, which is its honest verdict). */
static int parse_numbers(const char *s, double *x, int max)
{
    int k = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n' || *s == ',') s++;
        if (!*s) return k;
        char *end;
        errno = 0;
        double val = strtod(s, &end);
        if (end == s) return -1;
        if (k >= max) return max + 1;
        x[k++] = val;
        s = end;
    }
}

fc_err fc_read_solution(const char *path, const fc_problem *p, double *r,
                        double *u, double *v, fc_error *err)
{
    sol_reader rd = {NULL, path, NULL, 0, 0};
    fc_err rc = FC_OK;
    int d = p->d, nc = p->nc;
    double vals[10];
    rd.f = fopen(path, "r");
    if (!rd.f) return fc_error_set(err, FC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));

    char *s = next_line(&rd, 0);
    int fd = 0, fnc = 0;
    if (!s || sscanf(s, "# fricon solution d=%d nc=%d", &fd, &fnc) != 2) {
        rc = fc_error_set(err, FC_ERR_PARSE, "%s: line %ld: expected '# fricon solution d=D nc=NC'",
                          path, rd.lineno);
        goto done;
    }
    if (fd != d || fnc != nc) {
        rc = fc_error_set(err, FC_ERR_INVALID, "%s: solution has d=%d nc=%d, the problem d=%d nc=%d",
                          path, fd, fnc, d, nc);
        goto done;
    }
    for (int a = 0; a < nc; a++) {
        if (!(s = next_line(&rd, 1))) {
            rc = fc_error_set(err, FC_ERR_PARSE, "%s: line %ld: %d contact lines, expected %d",
                              path, rd.lineno, a, nc);
            goto done;
        }
        int k = parse_numbers(s, vals, 2 * d);
        if (k < 0 || k > 2 * d || k < d || ((u || k > d) && k < 2 * d)) {
            rc = fc_error_set(err, FC_ERR_PARSE, "%s: line %ld: expected %d numbers (r then u) for contact %d",
                              path, rd.lineno, 2 * d, a);
            goto done;
        }
        memcpy(r + (size_t)d * a, vals, (size_t)d * sizeof *r);
        if (u) memcpy(u + (size_t)d * a, vals + d, (size_t)d * sizeof *u);
    }
    /* a global solution's v section: required when v is asked for,
     * else optional but complete when present */
    if (p->kind == FC_GLOBAL && (v || (s = next_line(&rd, 0)) != NULL)) {
        int n = -1;
        double tmp;
        if (v) s = next_line(&rd, 0);
        if (!s || sscanf(s, "# v n=%d", &n) != 1 || n != p->n) {
            rc = fc_error_set(err, FC_ERR_PARSE, "%s: line %ld: expected '# v n=%d'", path,
                              rd.lineno, p->n);
            goto done;
        }
        for (int i = 0; i < n; i++) {
            if (!(s = next_line(&rd, 1)) || parse_numbers(s, v ? v + i : &tmp, 1) != 1) {
                rc = fc_error_set(err, FC_ERR_PARSE, "%s: line %ld: expected value %d of v", path,
                                  rd.lineno, i);
                goto done;
            }
        }
    }
    if ((s = next_line(&rd, 1)) != NULL)
        rc = fc_error_set(err, FC_ERR_PARSE, "%s: line %ld: unexpected data after the solution", path, rd.lineno);
done:
    free(rd.line);
    fclose(rd.f);
    return rc;
}
