/* Golden behaviour: every shared problem and every bundled example, solved
 * by every registered solver that handles its dimension with a fixed
 * iteration cap (GOLDEN_CAP, GOLDEN_CAP_LARGE on large problems) (and auto with its own caps on the shared problems), must
 * give the status, iterations, stages and residuals recorded in
 * tests/golden/solvers.txt, the residual to 1e-12 relative.  It pins what a
 * refactoring must not change; a change of behaviour regenerates the file
 * on purpose:
 *
 *     OPENBLAS_CORETYPE=Haswell build/tests/test_golden --write tests/golden/solvers.txt
 *
 * (ctest sets OPENBLAS_CORETYPE so: OpenBLAS's kernels chosen by the CPU
 * change the factorising solvers' last bits; tests/CMakeLists.txt.)
 *
 * Each residual is recomputed by tests/check.h from the returned r, beside
 * the one fc_solve reports. */
#include "test.h"
#include "check.h"

#include <dirent.h>

#define GOLDEN_CAP 40        /* iterations per solver and problem */
#define GOLDEN_CAP_LARGE 8   /* from GOLDEN_LARGE contacts (Newton steps cost seconds there) */
#define GOLDEN_LARGE 1000
#define GOLDEN_REL 1e-12     /* residuals: relative agreement */
#define GOLDEN_MAX_FILES 256
#define GOLDEN_LINE 1024

/* The files of dir (sorted), as "prefix/name", appended to list. */
static int list_dir(const char *dir, const char *prefix, char list[][GOLDEN_LINE], int n)
{
    DIR *dh = opendir(dir);
    if (!dh) return n;
    int first = n;
    struct dirent *e;
    while ((e = readdir(dh)) && n < GOLDEN_MAX_FILES) {
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || (strcmp(dot, ".dat") && strcmp(dot, ".hdf5"))) continue;
        snprintf(list[n++], GOLDEN_LINE, "%s/%s", prefix, e->d_name);
    }
    closedir(dh);
    for (int i = first; i < n; i++)          /* insertion sort: a handful */
        for (int j = i; j > first && strcmp(list[j - 1], list[j]) > 0; j--) {
            char t[GOLDEN_LINE];
            memcpy(t, list[j], GOLDEN_LINE);
            memcpy(list[j], list[j - 1], GOLDEN_LINE);
            memcpy(list[j - 1], t, GOLDEN_LINE);
        }
    return n;
}

static void path_of(const char *key, char *path, size_t size)
{
    if (!strncmp(key, "shared/", 7)) snprintf(path, size, "%s/%s", FRICON_SHARED_DATA, key + 7);
    else snprintf(path, size, "%s/%s", FRICON_EXAMPLES, key + 9);   /* "examples/" */
}

/* One run, formatted as its golden line (without the newline). */
static void run(const fc_problem *p, const char *key, const char *solver, int cap,
                char *line, size_t size)
{
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    double *v = p->kind == FC_GLOBAL ? calloc((size_t)p->n, sizeof *v) : NULL;
    fc_options opt;
    fc_default_options(&opt);
    if (cap > 0) opt.max_iter = cap;
    fc_info info;
    fc_error err;
    if (fc_solve(p, solver, &opt, r, u, v, &info, &err) != FC_OK) {
        snprintf(line, size, "%.200s %.60s error", key, solver);
    } else {
        int k = snprintf(line, size, "%.200s %.60s%s %s %d %.17g %.17g", key, solver, cap > 0 ? "" : "@default",
                         fc_status_name(info.status), info.iterations, info.residual,
                         check_error(p, r));
        for (int s = 0; s < info.nstages && k < (int)size; s++) {
            char label[sizeof info.stages[0].solver];
            snprintf(label, sizeof label, "%s", info.stages[s].solver);
            for (char *c = label; *c; c++)
                if (*c == ' ') *c = '_';
            k += snprintf(line + k, size - (size_t)k, " %s:%d", label, info.stages[s].iterations);
        }
    }
    free(r); free(u); free(v);
}

/* Fields of a golden line: key solver status iterations residual check
 * stages... */
typedef struct golden {
    char key[GOLDEN_LINE], solver[64], status[32], stages[GOLDEN_LINE];
    int iterations;
    double residual, check;
} golden;

static int parse(const char *line, golden *g)
{
    int n = 0;
    g->stages[0] = 0;
    if (sscanf(line, "%1023s %63s %31s %d %lg %lg%n", g->key, g->solver, g->status, &g->iterations,
               &g->residual, &g->check, &n) < 6) {
        if (sscanf(line, "%1023s %63s %31s", g->key, g->solver, g->status) == 3 &&
            !strcmp(g->status, "error")) {
            g->iterations = 0;
            g->residual = g->check = 0;
            return 1;
        }
        return 0;
    }
    snprintf(g->stages, sizeof g->stages, "%s", line + n);
    return 1;
}

static int same(double a, double b)
{
    if (a == b) return 1;
    if (isnan(a) && isnan(b)) return 1;
    return fabs(a - b) <= GOLDEN_REL * fmax(fabs(a), fabs(b));
}

static void compare(const char *want_line, const char *got_line)
{
    golden w, g;
    if (!parse(want_line, &w) || !parse(got_line, &g)) {
        CHECK(0, "unreadable golden line: %s / %s", want_line, got_line);
        return;
    }
    CHECK(!strcmp(w.status, g.status) && w.iterations == g.iterations && same(w.residual, g.residual) &&
          same(w.check, g.check) && !strcmp(w.stages, g.stages),
          "%s %s: want %s %d %.17g %.17g%s, got %s %d %.17g %.17g%s", w.key, w.solver, w.status,
          w.iterations, w.residual, w.check, w.stages, g.status, g.iterations, g.residual, g.check,
          g.stages);
}

static char files[GOLDEN_MAX_FILES][GOLDEN_LINE];

int main(int argc, char **argv)
{
    FILE *out = NULL, *in = NULL;
    if (argc == 3 && !strcmp(argv[1], "--write")) {
        out = fopen(argv[2], "w");
        if (!out) { fprintf(stderr, "cannot write %s\n", argv[2]); return 2; }
    } else {
        in = fopen(FRICON_GOLDEN, "r");
        CHECK(in != NULL, "cannot read %s", FRICON_GOLDEN);
        if (!in) TEST_DONE();
    }
    /* the golden lines by key and solver */
    static char want[4096][GOLDEN_LINE];
    int nwant = 0;
    while (in && nwant < 4096 && fgets(want[nwant], GOLDEN_LINE, in)) {
        want[nwant][strcspn(want[nwant], "\n")] = 0;
        if (want[nwant][0] && want[nwant][0] != '#') nwant++;
    }
    if (in) fclose(in);
    const char *sub[] = {"fc2d", "fc3d", "global", "rolling"};
    int n = 0;
    for (int k = 0; k < 4; k++) {
        char dir[GOLDEN_LINE], prefix[64];
        snprintf(dir, sizeof dir, "%s/%s", FRICON_SHARED_DATA, sub[k]);
        snprintf(prefix, sizeof prefix, "shared/%s", sub[k]);
        n = list_dir(dir, prefix, files, n);
    }
    n = list_dir(FRICON_EXAMPLES, "examples", files, n);
    if (out) fprintf(out, "# test_golden: key solver status iterations residual check stages "
                          "(cap %d, %d from %d contacts; @default: auto with its own caps)\n", GOLDEN_CAP,
                     GOLDEN_CAP_LARGE, GOLDEN_LARGE);
    int runs = 0, matched = 0;
    for (int f = 0; f < n; f++) {
        char path[GOLDEN_LINE];
        path_of(files[f], path, sizeof path);
        fc_problem *p = test_read(path);
        if (!p) continue;
#ifdef FRICON_GOLDEN_QUICK
        /* sanitizer builds: the problems under GOLDEN_LARGE contacts only */
        if (!out && p->nc >= GOLDEN_LARGE) { fc_problem_free(p); continue; }
#endif
        for (int i = 0; i < fc_solver_count(); i++) {
            const fc_solver *s = fc_solver_at(i);
            if (!(s->dims & FC_DIM(p->d))) continue;
            for (int pass = 0; pass < 2; pass++) {
                /* auto with its own caps, on the shared problems (small) */
                if (pass == 1 && (strcmp(s->name, "auto") || strncmp(files[f], "shared/", 7))) continue;
                char got[GOLDEN_LINE];
                run(p, files[f], s->name, pass ? 0 : p->nc >= GOLDEN_LARGE ? GOLDEN_CAP_LARGE : GOLDEN_CAP,
                    got, sizeof got);
                runs++;
                if (out) { fprintf(out, "%s\n", got); continue; }
                golden g;
                if (!parse(got, &g)) { CHECK(0, "bad run line %s", got); continue; }
                const char *w = NULL;
                for (int k = 0; k < nwant && !w; k++) {
                    golden x;
                    if (parse(want[k], &x) && !strcmp(x.key, g.key) && !strcmp(x.solver, g.solver))
                        w = want[k];
                }
                if (!w) { printf("not pinned: %s\n", got); continue; }
                matched++;
                compare(w, got);
            }
        }
        fc_problem_free(p);
    }
    if (out) { fclose(out); printf("%d runs written\n", runs); return 0; }
    printf("%d runs, %d compared with the golden file\n", runs, matched);
#ifndef FRICON_GOLDEN_QUICK
    CHECK(matched == nwant, "%d golden lines, %d matched by a run", nwant, matched);
#else
    CHECK(matched > nwant / 2, "%d golden lines, only %d matched by a run", nwant, matched);
#endif
    TEST_DONE();
}
