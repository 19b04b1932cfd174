/* fricon profile [--tol T] [--out DIR] [--manifest FILE] RESULTS.csv...: Dolan-More
 * performance profiles and the summary of one or several benchmark CSVs
 * (fricon's and Siconos' side by side when both are given).
 *
 * For a measure t (solve time, iterations) and a problem p, the ratio of
 * solver s is t(p,s) / min over solvers of t(p,.), over the runs that
 * solved p (status converged and SPEC residual <= tol); a run that did
 * not solve p has an infinite ratio.  The profile of s is
 * rho_s(tau) = |{p : ratio(p,s) <= tau}| / |problems|: rho_s(1) is the
 * share of problems where s was the fastest, rho_s(large) its robustness.
 * The curves are rendered with gnuplot (svg, and png through pngcairo). */
#define _GNU_SOURCE
#include "bench.h"
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* CSV                                                                  */
/* ------------------------------------------------------------------ */

static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_number(FILE *f, const char *fmt, double x)
{
    if (isfinite(x)) fprintf(f, fmt, x);
    else fputs("nan", f);
}

void bench_csv_header(FILE *f) { fprintf(f, "%s\n", BENCH_CSV_HEADER); }

void bench_csv_row(FILE *f, const bench_row *r)
{
    csv_field(f, r->problem);
    fputc(',', f);
    csv_field(f, r->kind);
    fprintf(f, ",%d,%ld,", r->nc, r->nnz);
    csv_field(f, r->solver);
    fputc(',', f);
    csv_field(f, r->status);
    fprintf(f, ",%d,", r->iterations);
    csv_number(f, "%.6e", r->residual);
    fputc(',', f);
    csv_number(f, "%.6f", r->seconds);
    fputc(',', f);
    csv_number(f, "%.1f", r->peak_rss_mb);
    fprintf(f, ",%d\n", r->warm);
}

/* Split one CSV line into at most max fields (quotes honoured, in place). */
static int csv_split(char *line, char **fields, int max)
{
    int n = 0;
    char *s = line;
    for (;;) {
        if (n == max) return max + 1;
        char *out = s;
        fields[n++] = s;
        if (*s == '"') {
            s++;
            for (;;) {
                if (!*s) break;
                if (*s == '"' && s[1] == '"') { *out++ = '"'; s += 2; continue; }
                if (*s == '"') { s++; break; }
                *out++ = *s++;
            }
            while (*s && *s != ',') s++;
        } else {
            while (*s && *s != ',') *out++ = *s++;
        }
        int more = *s == ',';
        if (*s) s++;
        *out = 0;
        if (!more) return n;
    }
}

static double parse_num(const char *s)
{
    char *end;
    double x = strtod(s, &end);
    return end == s ? NAN : x;
}

int bench_csv_read(const char *path, bench_row **rows, int *nrows)
{
    FILE *f = fopen(path, "r");
    if (!f) return cli_fail("%s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int rc = 0, cap_rows = *nrows, nfields = 11;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if (lineno == 1) {
            if (!strcmp(line, BENCH_CSV_HEADER_V1)) nfields = 10;
            else if (strcmp(line, BENCH_CSV_HEADER)) {
                rc = cli_fail("%s: line 1: expected the header '%s'", path, BENCH_CSV_HEADER);
                break;
            }
            continue;
        }
        if (!len) continue;
        char *fl[12];
        if (csv_split(line, fl, nfields) != nfields) {
            rc = cli_fail("%s: line %ld: expected %d fields", path, lineno, nfields);
            break;
        }
        if (*nrows >= cap_rows) {
            cap_rows = cap_rows ? 2 * cap_rows : 256;
            bench_row *t = realloc(*rows, (size_t)cap_rows * sizeof *t);
            if (!t) { rc = cli_fail("out of memory"); break; }
            *rows = t;
        }
        bench_row *r = &(*rows)[(*nrows)++];
        memset(r, 0, sizeof *r);
        snprintf(r->problem, sizeof r->problem, "%s", fl[0]);
        snprintf(r->kind, sizeof r->kind, "%s", fl[1]);
        r->nc = atoi(fl[2]);
        r->nnz = atol(fl[3]);
        snprintf(r->solver, sizeof r->solver, "%s", fl[4]);
        snprintf(r->status, sizeof r->status, "%s", fl[5]);
        r->iterations = atoi(fl[6]);
        r->residual = parse_num(fl[7]);
        r->seconds = parse_num(fl[8]);
        r->peak_rss_mb = parse_num(fl[9]);
        r->warm = nfields > 10 && atoi(fl[10]) != 0;
    }
    free(line);
    fclose(f);
    return rc;
}

int bench_solved(const bench_row *r, double tol)
{
    return !strcmp(r->status, "converged") && isfinite(r->residual) && r->residual <= tol;
}

/* ------------------------------------------------------------------ */
/* The table of runs: problems x solvers                               */
/* ------------------------------------------------------------------ */

typedef struct {
    int np, ns;
    const char **problem; /* np names, sorted by nc then name */
    const char **solver;  /* ns names, in order of appearance */
    const bench_row **cell; /* np * ns, NULL when not run */
    double tol;
} bench_table;

static int find_name(const char **names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], s)) return i;
    return -1;
}

static const bench_row *g_sort_rows; /* qsort context (sorting only) */
static int g_sort_nrows;

static int problem_nc(const char *name)
{
    for (int i = 0; i < g_sort_nrows; i++)
        if (!strcmp(g_sort_rows[i].problem, name)) return g_sort_rows[i].nc;
    return 0;
}

static int cmp_problem(const void *x, const void *y)
{
    const char *a = *(const char *const *)x, *b = *(const char *const *)y;
    int na = problem_nc(a), nb = problem_nc(b);
    return na != nb ? (na < nb ? -1 : 1) : strcmp(a, b);
}

static int table_build(bench_table *t, const bench_row *rows, int nrows, double tol)
{
    memset(t, 0, sizeof *t);
    t->tol = tol;
    t->problem = calloc((size_t)nrows + 1, sizeof *t->problem);
    t->solver = calloc((size_t)nrows + 1, sizeof *t->solver);
    if (!t->problem || !t->solver) return -1;
    for (int i = 0; i < nrows; i++) {
        if (find_name(t->problem, t->np, rows[i].problem) < 0) t->problem[t->np++] = rows[i].problem;
        if (find_name(t->solver, t->ns, rows[i].solver) < 0) t->solver[t->ns++] = rows[i].solver;
    }
    g_sort_rows = rows;
    g_sort_nrows = nrows;
    if (t->np) qsort(t->problem, (size_t)t->np, sizeof *t->problem, cmp_problem);
    t->cell = calloc((size_t)t->np * t->ns + 1, sizeof *t->cell);
    if (!t->cell) return -1;
    for (int i = 0; i < nrows; i++) /* a later row replaces an earlier one */
        t->cell[(size_t)find_name(t->problem, t->np, rows[i].problem) * t->ns +
                find_name(t->solver, t->ns, rows[i].solver)] = &rows[i];
    return 0;
}

static void table_free(bench_table *t)
{
    free(t->problem);
    free(t->solver);
    free(t->cell);
}

static const bench_row *cell(const bench_table *t, int p, int s)
{
    return t->cell[(size_t)p * t->ns + s];
}

typedef enum { MEASURE_TIME, MEASURE_ITER } measure;

static double measure_value(const bench_row *r, measure m)
{
    return m == MEASURE_TIME ? fmax(r->seconds, BENCH_TIME_FLOOR) : fmax((double)r->iterations, 1.0);
}

/* ratio[p*ns+s] of measure m (INFINITY when s did not solve p). */
static double *ratios(const bench_table *t, measure m)
{
    double *ratio = malloc(((size_t)t->np * t->ns + 1) * sizeof *ratio);
    if (!ratio) return NULL;
    for (int p = 0; p < t->np; p++) {
        double best = INFINITY;
        for (int s = 0; s < t->ns; s++) {
            const bench_row *r = cell(t, p, s);
            if (r && bench_solved(r, t->tol)) best = fmin(best, measure_value(r, m));
        }
        for (int s = 0; s < t->ns; s++) {
            const bench_row *r = cell(t, p, s);
            ratio[(size_t)p * t->ns + s] =
                r && bench_solved(r, t->tol) ? measure_value(r, m) / best : INFINITY;
        }
    }
    return ratio;
}

/* rho_s(tau) */
static double rho(const bench_table *t, const double *ratio, int s, double tau)
{
    if (!t->np) return 0.0;
    int k = 0;
    for (int p = 0; p < t->np; p++) k += ratio[(size_t)p * t->ns + s] <= tau * (1 + 1e-12);
    return (double)k / t->np;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* ------------------------------------------------------------------ */
/* Profiles: data, gnuplot script, images                              */
/* ------------------------------------------------------------------ */

static FILE *open_in(const char *dir, const char *name, char *path, size_t len)
{
    int n = snprintf(path, len, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= len) {
        cli_fail("%s/%s: path too long", dir, name);
        return NULL;
    }
    FILE *f = fopen(path, "w");
    if (!f) cli_fail("%s: %s", path, strerror(errno));
    return f;
}

/* Colours of the curves (Tableau 10, then darker shades). */
static const char *colour(int i)
{
    static const char *c[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                              "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939",
                              "#8c6d31", "#843c39", "#7b4173", "#3182bd"};
    return c[i % (int)(sizeof c / sizeof c[0])];
}

static int is_siconos(const char *solver) { return !strncmp(solver, "siconos-", 8); }

/* Run gnuplot on script inside dir; 0 when it succeeded. */
static int run_gnuplot(const char *dir, const char *script)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (chdir(dir)) _exit(126);
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int write_profile(const char *dir, const bench_table *t, const double *ratio, measure m)
{
    const char *tag = m == MEASURE_TIME ? "time" : "iterations";
    char name[64], path[4096];
    double taumax = 10.0;
    for (size_t k = 0; k < (size_t)t->np * t->ns; k++)
        if (isfinite(ratio[k])) taumax = fmax(taumax, 2.0 * ratio[k]);
    taumax = pow(10.0, ceil(log10(taumax)));

    snprintf(name, sizeof name, "profile-%s.dat", tag);
    FILE *f = open_in(dir, name, path, sizeof path);
    if (!f) return -1;
    double *v = malloc(((size_t)t->np + 1) * sizeof *v);
    if (!v) { fclose(f); return -1; }
    fprintf(f, "# performance profile (%s): tau, fraction of the %d problems solved within tau x best\n",
            tag, t->np);
    for (int s = 0; s < t->ns; s++) {
        int k = 0;
        for (int p = 0; p < t->np; p++)
            if (isfinite(ratio[(size_t)p * t->ns + s])) v[k++] = ratio[(size_t)p * t->ns + s];
        qsort(v, (size_t)k, sizeof *v, cmp_double);
        fprintf(f, "# %s\n", t->solver[s]);
        fprintf(f, "1 %.6f\n", rho(t, ratio, s, 1.0));
        for (int i = 0; i < k; i++)
            if (v[i] > 1.0 + 1e-12) fprintf(f, "%.6g %.6f\n", v[i], (double)(i + 1) / (t->np ? t->np : 1));
        fprintf(f, "%.6g %.6f\n\n\n", taumax, (double)k / (t->np ? t->np : 1));
    }
    free(v);
    fclose(f);

    snprintf(name, sizeof name, "profile-%s.gp", tag);
    if (!(f = open_in(dir, name, path, sizeof path))) return -1;
    const char *what = m == MEASURE_TIME ? "solve time" : "iterations (not comparable across solver families)";
    fprintf(f, "# gnuplot script written by fricon profile; run: gnuplot %s\n", name);
    fprintf(f, "set title \"Performance profile: %s\\n%d problems, solved = converged with SPEC residual <= %g\" noenhanced\n",
            what, t->np, t->tol);
    fprintf(f, "set xlabel \"tau (%s within tau x the best solver's)\" noenhanced\n",
            m == MEASURE_TIME ? "time" : "iterations");
    fprintf(f, "set ylabel \"fraction of problems solved\"\n");
    fprintf(f, "set logscale x\nset xrange [1:%g]\nset yrange [0:1.02]\n", taumax);
    fprintf(f, "set format x \"%%g\"\nset grid xtics ytics mxtics\nset mxtics 10\n");
    fprintf(f, "set key outside right top vertical Left reverse noenhanced spacing 1.1\n");
    fprintf(f, "set border lw 1.2\n");
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0)
            fprintf(f, "set terminal svg size 1000,600 dynamic font 'DejaVu Sans,13' background '#ffffff'\n"
                       "set output 'profile-%s.svg'\n", tag);
        else
            fprintf(f, "set terminal pngcairo size 1200,720 font 'DejaVu Sans,12' background '#ffffff'\n"
                       "set output 'profile-%s.png'\n", tag);
        fprintf(f, "plot ");
        int nfricon = 0, nsiconos = 0;
        for (int s = 0; s < t->ns; s++) {
            int sic = is_siconos(t->solver[s]);
            int idx = sic ? nsiconos++ : nfricon++;
            fprintf(f, "%s'profile-%s.dat' index %d using 1:2 with steps lw %s dt %d lc rgb '%s' title '%s'",
                    s ? ", \\\n     " : "", tag, s, sic ? "2" : "2.5", sic ? 2 : 1,
                    colour(sic ? idx + 3 : idx), t->solver[s]);
        }
        if (!t->ns) fprintf(f, "NaN notitle");
        fprintf(f, "\nunset output\n");
    }
    fclose(f);
    int rc = run_gnuplot(dir, name);
    if (rc == 127) {
        fprintf(stderr, "fricon: gnuplot not found: %s/%s written, images not rendered\n", dir, name);
        return 0;
    }
    if (rc) fprintf(stderr, "fricon: gnuplot failed on %s/%s (status %d)\n", dir, name, rc);
    return 0;
}

/* ------------------------------------------------------------------ */
/* summary.md                                                           */
/* ------------------------------------------------------------------ */

/* Short code of an unsolved run. */
static const char *fail_code(const bench_row *r)
{
    static const struct { const char *status, *code; } codes[] = {
        {"converged", "inacc"}, /* converged by its own test, not to tol */
        {"max-iter", "iter"},  {"time-limit", "time"}, {"timeout", "KILL"}, {"diverged", "div"}, {"stalled", "stall"},
        {"error", "err"},      {"crash", "CRASH"},     {"oom", "OOM"},      {"read-error", "read"},
        {"inaccurate", "inacc"}};
    if (!r) return "";
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (!strcmp(r->status, codes[i].status)) return codes[i].code;
    return r->status;
}

static void format_ratio(double x, char *buf, size_t len)
{
    if (x < 9.95) snprintf(buf, len, "%.1f", x);
    else if (x < 999.5) snprintf(buf, len, "%.0f", x);
    else snprintf(buf, len, "%.0e", x);
}

static void machine_line(FILE *f)
{
    char model[256] = "unknown CPU";
    FILE *c = fopen("/proc/cpuinfo", "r");
    if (c) {
        char line[512];
        while (fgets(line, sizeof line, c)) {
            if (strncmp(line, "model name", 10)) continue;
            char *colon = strchr(line, ':');
            if (colon) {
                snprintf(model, sizeof model, "%s", colon + 2);
                model[strcspn(model, "\n")] = 0;
            }
            break;
        }
        fclose(c);
    }
    double gb = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE) / 1073741824.0;
    time_t tt = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&tt));
    fprintf(f, "Written %s on %s, %ld cores (nproc), %.0f GB.\n", date, model,
            sysconf(_SC_NPROCESSORS_ONLN), gb);
}

static double median(double *v, int n)
{
    if (!n) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void summary_solvers(FILE *f, const bench_table *t, const double *rt)
{
    fprintf(f, "## Solvers\n\n");
    fprintf(f, "rho(tau) is the performance profile of solve time: the fraction of the %d problems "
               "solved within tau times the fastest solver's time.\n\n", t->np);
    fprintf(f, "| solver | solved | fastest | rho(2) | rho(10) | median s (solved) | max RSS MB | failures |\n");
    fprintf(f, "|---|---:|---:|---:|---:|---:|---:|---|\n");
    double *v = malloc(((size_t)t->np + 1) * sizeof *v);
    if (!v) return;
    for (int s = 0; s < t->ns; s++) {
        int solved = 0, fastest = 0, k = 0;
        double rss = 0.0;
        char fails[256] = "";
        for (int p = 0; p < t->np; p++) {
            const bench_row *r = cell(t, p, s);
            if (!r) continue;
            if (isfinite(r->peak_rss_mb)) rss = fmax(rss, r->peak_rss_mb);
            if (bench_solved(r, t->tol)) {
                solved++;
                v[k++] = r->seconds;
                fastest += rt[(size_t)p * t->ns + s] <= 1.0 + 1e-12;
            }
        }
        /* failures grouped by code */
        for (int p = 0; p < t->np; p++) {
            const bench_row *r = cell(t, p, s);
            if (!r || bench_solved(r, t->tol)) continue;
            const char *code = fail_code(r);
            if (strstr(fails, code)) continue;
            int count = 0;
            for (int q = 0; q < t->np; q++) {
                const bench_row *o = cell(t, q, s);
                count += o && !bench_solved(o, t->tol) && !strcmp(fail_code(o), code);
            }
            size_t len = strlen(fails);
            snprintf(fails + len, sizeof fails - len, "%s%s %d", len ? ", " : "", code, count);
        }
        fprintf(f, "| %s | %d/%d | %d | %.2f | %.2f | ", t->solver[s], solved, t->np, fastest,
                rho(t, rt, s, 2.0), rho(t, rt, s, 10.0));
        double med = median(v, k);
        if (isfinite(med)) fprintf(f, "%.3g | ", med);
        else fprintf(f, "- | ");
        fprintf(f, "%.0f | %s |\n", rss, fails);
    }
    free(v);
    fprintf(f, "\n");
}

static void summary_heat(FILE *f, const bench_table *t, const double *rt)
{
    fprintf(f, "## Time ratio to the best, per problem\n\n");
    fprintf(f, "Each cell: the solver's solve time over the fastest solver's on that problem "
               "(green 1-2, yellow 2-10, orange 10-100, red > 100); unsolved runs show why: "
               "iter = max-iter, time = own time limit, KILL = killed after the limit, div = diverged, "
               "inacc = stopped above tol, CRASH, OOM, err, read.\n\n");
    fprintf(f, "| problem | nc | best s |");
    for (int s = 0; s < t->ns; s++) fprintf(f, " %s |", t->solver[s]);
    fprintf(f, "\n|---|---:|---:|");
    for (int s = 0; s < t->ns; s++) fprintf(f, "---:|");
    fprintf(f, "\n");
    for (int p = 0; p < t->np; p++) {
        double best = INFINITY;
        int nc = 0;
        for (int s = 0; s < t->ns; s++) {
            const bench_row *r = cell(t, p, s);
            if (!r) continue;
            nc = r->nc;
            if (bench_solved(r, t->tol)) best = fmin(best, fmax(r->seconds, BENCH_TIME_FLOOR));
        }
        fprintf(f, "| %s | %d | ", t->problem[p], nc);
        if (isfinite(best)) fprintf(f, "%.2g |", best);
        else fprintf(f, "none solved |");
        for (int s = 0; s < t->ns; s++) {
            const bench_row *r = cell(t, p, s);
            double x = rt[(size_t)p * t->ns + s];
            char buf[32];
            if (!r) fprintf(f, " |");
            else if (!isfinite(x)) fprintf(f, " ⬛ %s |", fail_code(r));
            else {
                format_ratio(x, buf, sizeof buf);
                const char *heat = x <= 2 ? "🟩" : x <= 10 ? "🟨" : x <= 100 ? "🟧" : "🟥";
                fprintf(f, " %s %s%s%s |", heat, x <= 1 + 1e-12 ? "**" : "", buf, x <= 1 + 1e-12 ? "**" : "");
            }
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
}

/* fricon's best against Siconos' best, problem by problem. */
static void summary_versus(FILE *f, const bench_table *t)
{
    int nf = 0, ns = 0;
    for (int s = 0; s < t->ns; s++) {
        if (is_siconos(t->solver[s])) ns++;
        else nf++;
    }
    if (!nf || !ns) return;
    fprintf(f, "## fricon against Siconos\n\n");
    fprintf(f, "Per problem, the fastest fricon solver against the fastest Siconos solver "
               "(each among the runs that solved it); ratio = fricon time / Siconos time "
               "(below 1: fricon faster; times floored at %g s).\n\n", BENCH_TIME_FLOOR);
    fprintf(f, "| problem | nc | best fricon | s | best Siconos | s | fricon / Siconos |\n");
    fprintf(f, "|---|---:|---|---:|---|---:|---:|\n");
    int both = 0, only_f = 0, only_s = 0, none = 0;
    double logsum = 0.0;
    for (int p = 0; p < t->np; p++) {
        int bf = -1, bs = -1, nc = 0;
        double tf = INFINITY, ts = INFINITY;
        for (int s = 0; s < t->ns; s++) {
            const bench_row *r = cell(t, p, s);
            if (!r) continue;
            nc = r->nc;
            if (!bench_solved(r, t->tol)) continue;
            double x = fmax(r->seconds, BENCH_TIME_FLOOR);
            if (is_siconos(t->solver[s])) { if (x < ts) { ts = x; bs = s; } }
            else if (x < tf) { tf = x; bf = s; }
        }
        fprintf(f, "| %s | %d | %s | ", t->problem[p], nc, bf >= 0 ? t->solver[bf] : "none");
        if (bf >= 0) fprintf(f, "%.3g | ", tf);
        else fprintf(f, "- | ");
        fprintf(f, "%s | ", bs >= 0 ? t->solver[bs] : "none");
        if (bs >= 0) fprintf(f, "%.3g | ", ts);
        else fprintf(f, "- | ");
        if (bf >= 0 && bs >= 0) {
            both++;
            logsum += log(tf / ts);
            fprintf(f, "%.3g |\n", tf / ts);
        } else {
            fprintf(f, "%s |\n", bf >= 0 ? "only fricon solved it" : bs >= 0 ? "only Siconos solved it" : "-");
            only_f += bf >= 0 && bs < 0;
            only_s += bs >= 0 && bf < 0;
            none += bf < 0 && bs < 0;
        }
    }
    fprintf(f, "\nSolved by both: %d", both);
    if (both) fprintf(f, " (geometric mean of fricon / Siconos: %.3g)", exp(logsum / both));
    fprintf(f, "; only by fricon: %d; only by Siconos: %d; by neither: %d.\n\n", only_f, only_s, none);
}

int bench_report(const char *outdir, bench_row *rows, int nrows, double tol, const char *note)
{
    bench_table t;
    double *rt = NULL, *ri = NULL;
    int rc = -1;
    char path[4096];
    FILE *f = NULL;
    if (table_build(&t, rows, nrows, tol) || !(rt = ratios(&t, MEASURE_TIME)) ||
        !(ri = ratios(&t, MEASURE_ITER))) {
        cli_fail("out of memory");
        goto done;
    }
    if (write_profile(outdir, &t, rt, MEASURE_TIME) || write_profile(outdir, &t, ri, MEASURE_ITER))
        goto done;
    if (!(f = open_in(outdir, "summary.md", path, sizeof path))) goto done;
    fprintf(f, "# Benchmark summary\n\n");
    if (note) fprintf(f, "%s.\n", note);
    machine_line(f);
    fprintf(f, "%d problems, %d solvers, %d runs. A run solves a problem when its status is converged "
               "and the SPEC residual (recomputed by fricon from the returned r) is <= %g. "
               "Times are the solve alone (no I/O), floored at %g s in ratios.\n\n",
               t.np, t.ns, nrows, tol, BENCH_TIME_FLOOR);
    fprintf(f, "![performance profile of solve time](profile-time.svg)\n\n");
    summary_solvers(f, &t, rt);
    summary_versus(f, &t);
    summary_heat(f, &t, rt);
    fprintf(f, "Iteration profile: profile-iterations.svg (iterations mean different things "
               "in different solver families: a sweep, a Newton step).\n");
    rc = ferror(f) ? -1 : 0;
    fclose(f);
done:
    free(rt);
    free(ri);
    table_free(&t);
    return rc;
}

/* ------------------------------------------------------------------ */
/* The command                                                          */
/* ------------------------------------------------------------------ */

int cmd_profile(int argc, char **argv)
{
    double tol = 1e-8;
    const char *out = NULL, *manifest = NULL;
    const char **csv = calloc((size_t)argc + 1, sizeof *csv);
    int ncsv = 0;
    if (!csv) return cli_fail("out of memory");
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--tol") || !strcmp(argv[i], "--out") || !strcmp(argv[i], "--manifest")) {
            if (i + 1 >= argc) { free(csv); return cli_fail("option %s needs a value", argv[i]); }
            if (!strcmp(argv[i], "--out")) out = argv[i + 1];
            else if (!strcmp(argv[i], "--manifest")) manifest = argv[i + 1];
            else if (cli_parse_double(argv[i + 1], &tol) || tol <= 0) {
                free(csv);
                return cli_fail("--tol: '%s' is not a positive number", argv[i + 1]);
            }
            i++;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            free(csv);
            return cli_fail("unknown option '%s'", argv[i]);
        } else {
            csv[ncsv++] = argv[i];
        }
    }
    if (!ncsv) { free(csv); return cli_fail("usage: fricon profile [--tol T] [--out DIR] [--manifest FILE] RESULTS.csv..."); }
    char dir[4096];
    if (!out) { /* default: the directory of the first CSV */
        snprintf(dir, sizeof dir, "%s", csv[0]);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = 0;
        else snprintf(dir, sizeof dir, ".");
        out = dir;
    }
    if (mkdir(out, 0777) && errno != EEXIST) {
        free(csv);
        return cli_fail("%s: cannot create the directory: %s", out, strerror(errno));
    }
    bench_row *rows = NULL;
    int nrows = 0, rc = EXIT_DONE;
    for (int i = 0; i < ncsv && rc == EXIT_DONE; i++)
        if (bench_csv_read(csv[i], &rows, &nrows)) rc = EXIT_BAD_INPUT;
    if (rc == EXIT_DONE && ncsv > 1) { /* the merged table, for the record */
        char path[4096];
        FILE *f = open_in(out, "results.csv", path, sizeof path);
        if (!f) rc = EXIT_BAD_INPUT;
        else {
            bench_csv_header(f);
            for (int i = 0; i < nrows; i++) bench_csv_row(f, &rows[i]);
            fclose(f);
        }
    }
    if (rc == EXIT_DONE && manifest) {
        if (bench_families(out, rows, nrows, manifest)) rc = EXIT_BAD_INPUT;
        else fprintf(stderr, "fricon profile: %s/families.md\n", out);
    } else if (rc == EXIT_DONE) {
        char note[256];
        snprintf(note, sizeof note, "fricon profile of %d file%s", ncsv, ncsv > 1 ? "s" : "");
        if (bench_report(out, rows, nrows, tol, note)) rc = EXIT_BAD_INPUT;
        else fprintf(stderr, "fricon profile: %s/summary.md, %s/profile-time.svg\n", out, out);
    }
    free(rows);
    free(csv);
    return rc;
}
