/* Per-family reports of a benchmark over a generated collection (the
 * manifest.csv of bench/collections.sh: a row per file with its family,
 * its half (tuning or validation) and the family's tolerance).  For each
 * family and half: the profiles and summary of bench_report at the
 * family's tolerance, in OUT/FAMILY-HALF/; and in OUT/families.md, auto's
 * time over the per-problem oracle, the fastest other fricon solver that
 * reached the tolerance (issue 27's measure). */
#define _GNU_SOURCE
#include "bench.h"
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    char file[256];   /* the file's name without its directory */
    char family[64];
    char half[32];
    double tol;
} manifest_row;

typedef struct {
    manifest_row *row;
    int n;
} manifest;

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Split a CSV line in place on commas (the manifest has no quoting). */
static int split(char *line, char **f, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = 0;
    for (char *s = line; n < max;) {
        f[n++] = s;
        char *c = strchr(s, ',');
        if (!c) break;
        *c = 0;
        s = c + 1;
    }
    return n;
}

static int column(char **f, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(f[i], name)) return i;
    return -1;
}

static int manifest_read(const char *path, manifest *m)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (!f) return cli_fail("%s: %s", path, strerror(errno));
    char line[4096], *fld[32];
    int nf = fgets(line, sizeof line, f) ? split(line, fld, 32) : 0;
    int cf = column(fld, nf, "file"), cfam = column(fld, nf, "family"), ch = column(fld, nf, "half"),
        ct = column(fld, nf, "tolerance");
    if (cf < 0 || cfam < 0 || ch < 0 || ct < 0) {
        fclose(f);
        return cli_fail("%s: the header must name the columns file, family, half and tolerance", path);
    }
    int cap = 0, lineno = 1, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!line[strspn(line, " \t\r\n")]) continue;
        int k = split(line, fld, 32);
        char *end;
        double tol = k > ct ? strtod(fld[ct], &end) : NAN;
        if (k <= cf || k <= cfam || k <= ch || k <= ct || *end || !(tol > 0)) {
            rc = cli_fail("%s: line %d: not a manifest row (file, family, half, tolerance > 0)", path,
                          lineno);
            break;
        }
        if (m->n == cap) {
            cap = cap ? 2 * cap : 64;
            manifest_row *g = realloc(m->row, (size_t)cap * sizeof *g);
            if (!g) { rc = cli_fail("out of memory"); break; }
            m->row = g;
        }
        manifest_row *r = &m->row[m->n++];
        snprintf(r->file, sizeof r->file, "%s", base_name(fld[cf]));
        snprintf(r->family, sizeof r->family, "%s", fld[cfam]);
        snprintf(r->half, sizeof r->half, "%s", fld[ch]);
        r->tol = tol;
    }
    fclose(f);
    if (rc) { free(m->row); m->row = NULL; }
    return rc;
}

static const manifest_row *manifest_find(const manifest *m, const char *problem)
{
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->row[i].file, problem)) return &m->row[i];
    return NULL;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* auto against the oracle on one group's rows; a line of families.md. */
static void oracle_line(FILE *f, const char *family, const char *half, double tol,
                        const bench_row *rows, int n)
{
    int problems = 0, reached = 0, auto_solved = 0, large = 0, within2 = 0;
    double logsum = 0.0, worst = 0.0, *r = malloc(((size_t)n + 1) * sizeof *r);
    int nr = 0;
    for (int i = 0; i < n; i++) {
        /* each problem once: at its first row */
        int first = 1;
        for (int j = 0; j < i && first; j++) first = strcmp(rows[j].problem, rows[i].problem) != 0;
        if (!first) continue;
        problems++;
        double oracle = INFINITY, mine = INFINITY;
        for (int j = i; j < n; j++) {
            if (strcmp(rows[j].problem, rows[i].problem) || !bench_solved(&rows[j], tol)) continue;
            double t = fmax(rows[j].seconds, BENCH_TIME_FLOOR);
            if (!strcmp(rows[j].solver, "auto")) mine = t;
            else if (strncmp(rows[j].solver, "siconos-", 8)) oracle = fmin(oracle, t);
        }
        if (!isfinite(oracle)) continue;
        reached++;
        auto_solved += isfinite(mine);
        if (rows[i].nc < 100) continue;
        large++;
        double ratio = mine / oracle;
        within2 += ratio <= 2.0;
        worst = fmax(worst, ratio);
        if (r) r[nr++] = ratio;
        logsum += isfinite(ratio) ? log(ratio) : INFINITY;
    }
    char med[32] = "-", gm[32] = "-", wst[32] = "-", share[32] = "-";
    if (r && nr) {
        qsort(r, (size_t)nr, sizeof *r, cmp_double);
        snprintf(med, sizeof med, "%.2f", r[nr / 2]);
    }
    if (large) {
        snprintf(gm, sizeof gm, "%.2f", exp(logsum / large));
        snprintf(wst, sizeof wst, "%.2f", worst);
        snprintf(share, sizeof share, "%.0f%%", 100.0 * within2 / large);
    }
    fprintf(f, "| %s | %s | %g | %d | %d | %d | %d | %s | %s | %s | %s |\n", family, half, tol, problems,
            reached, auto_solved, large, share, med, gm, wst);
    free(r);
}

int bench_families(const char *outdir, const bench_row *rows, int nrows, const char *manifest_path)
{
    manifest m;
    if (manifest_read(manifest_path, &m)) return -1;
    bench_row *sub = malloc(((size_t)nrows + 1) * sizeof *sub);
    char path[4096];
    snprintf(path, sizeof path, "%s/families.md", outdir);
    FILE *f = sub ? fopen(path, "w") : NULL;
    if (!f) {
        free(sub);
        free(m.row);
        return cli_fail("%s: %s", path, sub ? strerror(errno) : "out of memory");
    }
    fprintf(f, "# auto against the oracle, per family\n\n"
               "Oracle: on each problem, the fastest fricon solver other than auto that reached "
               "the family's tolerance (status converged, SPEC residual recomputed). Ratios are "
               "auto's time over the oracle's (inf: auto did not reach it), over the problems "
               "with 100 or more contacts that the oracle reached. Each family's profiles: "
               "FAMILY-HALF/summary.md.\n\n"
               "| family | half | tol | problems | oracle reached | auto reached | >= 100 contacts "
               "| auto <= 2x | median | geometric mean | worst |\n"
               "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    int rc = 0, unmatched = 0;
    for (int i = 0; i < nrows; i++) unmatched += manifest_find(&m, rows[i].problem) == NULL;
    for (int g = 0; g < m.n && !rc; g++) {
        /* each (family, half) once: at its first manifest row */
        int first = 1;
        for (int k = 0; k < g && first; k++)
            first = strcmp(m.row[k].family, m.row[g].family) || strcmp(m.row[k].half, m.row[g].half);
        if (!first) continue;
        int n = 0;
        for (int i = 0; i < nrows; i++) {
            const manifest_row *mr = manifest_find(&m, rows[i].problem);
            if (mr && !strcmp(mr->family, m.row[g].family) && !strcmp(mr->half, m.row[g].half))
                sub[n++] = rows[i];
        }
        if (!n) continue;
        oracle_line(f, m.row[g].family, m.row[g].half, m.row[g].tol, sub, n);
        char dir[4096], note[256];
        snprintf(dir, sizeof dir, "%s/%s-%s", outdir, m.row[g].family, m.row[g].half);
        if (mkdir(dir, 0777) && errno != EEXIST) {
            rc = cli_fail("%s: cannot create the directory: %s", dir, strerror(errno));
            break;
        }
        snprintf(note, sizeof note, "family %s, %s half, tolerance %g", m.row[g].family,
                 m.row[g].half, m.row[g].tol);
        rc = bench_report(dir, sub, n, m.row[g].tol, note);
    }
    if (unmatched) fprintf(f, "\n%d runs of problems not in the manifest left out.\n", unmatched);
    if (ferror(f)) rc = -1;
    fclose(f);
    free(sub);
    free(m.row);
    return rc;
}
