/* Reading a solution text file of SPEC section 3 (the inverse of
 * fc_write_solution): "# fricon solution d=D nc=NC", one line per contact
 * holding r_a then u_a, for a global problem "# v n=N" then v, and with
 * equality constraints "# lambda p=P" then lambda. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <ctype.h>
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

/* Does the line s start with prefix? */
static int starts(const char *s, const char *prefix)
{
    return s && !strncmp(s, prefix, strlen(prefix));
}

/* A section "# NAME KEY=COUNT" (its header in s) then COUNT values, one a
 * line, into x (NULL: checked, not kept). */
static fc_err read_section(sol_reader *rd, const char *s, const char *name, const char *key, int count,
                           double *x, fc_error *err)
{
    char head[32];
    snprintf(head, sizeof head, "# %s %s=", name, key);
    char *end = NULL;
    long n = starts(s, head) ? strtol(s + strlen(head), &end, 10) : -1;
    if (n != count || !end || (*end && !isspace((unsigned char)*end)))
        return fc_error_set(err, FC_ERR_PARSE, "%s: line %ld: expected '%s%d'", rd->path, rd->lineno, head,
                            count);
    for (int i = 0; i < count; i++) {
        double tmp;
        if (!(s = next_line(rd, 1)) || parse_numbers(s, x ? x + i : &tmp, 1) != 1)
            return fc_error_set(err, FC_ERR_PARSE, "%s: line %ld: expected value %d of %s", rd->path,
                                rd->lineno, i, name);
    }
    return FC_OK;
}

fc_err fc_read_solution(const char *path, const fc_problem *p, double *r, double *u, double *v,
                        double *lambda, fc_error *err)
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
    /* the v (global) and lambda (equalities) sections: required when asked
     * for, else optional but complete when present */
    s = next_line(&rd, 0);
    if (p->kind == FC_GLOBAL && (v || starts(s, "# v "))) {
        if ((rc = read_section(&rd, s, "v", "n", p->n, v, err))) goto done;
        s = next_line(&rd, 0);
    }
    if (p->neq > 0 && (lambda || starts(s, "# lambda "))) {
        if ((rc = read_section(&rd, s, "lambda", "p", p->neq, lambda, err))) goto done;
        s = next_line(&rd, 0);
    }
    while (s && *s == '#') s = next_line(&rd, 0);   /* trailing comments */
    if (s) rc = fc_error_set(err, FC_ERR_PARSE, "%s: line %ld: unexpected data after the solution", path, rd.lineno);
done:
    free(rd.line);
    fclose(rd.f);
    return rc;
}
