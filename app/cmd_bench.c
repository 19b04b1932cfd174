/* fricon bench [--solvers a,b,...] [--tol T] [--time-limit S] [--mem-limit MB]
 *              [--max-iter N] [--set NAME=VALUE]... [--warm|--cold] [--out DIR]
 *              FILE|DIR...
 *
 * --warm (the default) starts each solve from the file's first FClib guess
 * when it has one, --cold from zero; results.csv says which (warm 1/0).
 * --repeat N (default 1): a solve that took under REPEAT_BELOW seconds is
 * run N times in its child and the fastest run is kept (single timings of
 * millisecond solves vary 10x on a loaded machine).  --cpu: the seconds
 * column is the solve's CPU time in its child (the process clock; for
 * single-threaded solves on a loaded machine), not its wall time; the
 * time limit stays on the wall clock.  --cpu-limit: --cpu, and the time
 * limit counts the solve's CPU time too (fc_options.cpu_clock), so that a
 * loaded machine does not cut the solves short; the parent's deadline
 * stretches to CPU_LIMIT_WALL times the limit.
 *
 * Every solver on every problem, each run isolated in a child process:
 * the child reads the problem, solves it and sends one result line back
 * through a pipe; the parent enforces a wall-clock limit on the solve
 * (from the child's "start" line, sent once the problem is read: the
 * solver's own time limit plus a margin, then SIGKILL; reading gets 120 s)
 * while the child runs under RLIMIT_AS (--mem-limit).  A crash, an out-of-memory or a hang is one
 * failed row of results.csv; the campaign goes on.  At the end the
 * performance profiles and summary.md are written (app/cmd_profile.c).
 *
 * Test hook (for tests/test_bench.sh only): the environment variable
 * FRICON_BENCH_TEST_FAULT=crash|hang|alloc[:SOLVER] makes the child of
 * each run (of that solver only, when given) crash on SIGSEGV, hang
 * ignoring its time limit, or allocate memory until the limit refuses. */
#define _GNU_SOURCE
#include "bench.h"
#include "cli.h"

#include <dirent.h>

/* Built with AddressSanitizer?  It maps terabytes of shadow memory, so an
 * address-space limit would fail every run: not enforced there. */
#if defined(__SANITIZE_ADDRESS__)
#define FRICON_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FRICON_ASAN 1
#endif
#endif
#ifndef FRICON_ASAN
#define FRICON_ASAN 0
#endif
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    const char **solvers; /* selected solver names (all when none given) */
    int nsolvers;
    double tol, time_limit, mem_mb, margin;
    int max_iter;
    int repeat;           /* --repeat: runs of a short solve, the fastest kept */
    int cpu;              /* --cpu: seconds are the solve's CPU time */
    int cpu_limit;        /* --cpu-limit: and the time limit too */
    int cold;             /* --cold: ignore the files' guesses */
    const char *out;
    const char **sets;
    int nsets;
    const char **inputs;
    int ninputs;
} bench_args;

typedef struct {
    char *path;
    const char *name; /* basename of path */
    int ok;           /* the probe read it */
    int d, nc;
    long nnz;
    char kind[16];
    char status[24];  /* when !ok: read-error, crash, oom, timeout */
    char msg[512];    /* when !ok: why */
} bench_problem;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* This process's CPU seconds (--cpu). */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* Arguments and the list of problems                                  */
/* ------------------------------------------------------------------ */

static int split_solvers(bench_args *a, char *list)
{
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        if (!*tok) continue;
        if (!fc_solver_find(tok)) return cli_fail("unknown solver '%s' (see 'fricon solvers')", tok);
        a->solvers[a->nsolvers++] = tok;
    }
    return 0;
}

static int parse_args(int argc, char **argv, bench_args *a)
{
    memset(a, 0, sizeof *a);
    a->tol = 1e-8;
    a->time_limit = 20.0;
    a->mem_mb = 4096.0;
    a->margin = -1.0;
    a->max_iter = 0;
    a->repeat = 1;
    a->out = "bench-out";
    a->solvers = calloc((size_t)fc_solver_count() + 1, sizeof *a->solvers);
    a->sets = calloc((size_t)argc + 1, sizeof *a->sets);
    a->inputs = calloc((size_t)argc + 1, sizeof *a->inputs);
    if (!a->solvers || !a->sets || !a->inputs) return cli_fail("out of memory");
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = !strcmp(s, "--solvers") || !strcmp(s, "--tol") || !strcmp(s, "--time-limit") ||
                    !strcmp(s, "--mem-limit") || !strcmp(s, "--out") || !strcmp(s, "--max-iter") ||
                    !strcmp(s, "--set") || !strcmp(s, "--kill-margin") || !strcmp(s, "--repeat");
        if (takes && !val) return cli_fail("option %s needs a value", s);
        if (!strcmp(s, "--warm")) {
            a->cold = 0;
        } else if (!strcmp(s, "--cold")) {
            a->cold = 1;
        } else if (!strcmp(s, "--cpu")) {
            a->cpu = 1;
        } else if (!strcmp(s, "--cpu-limit")) {
            a->cpu = a->cpu_limit = 1;
        } else if (!strcmp(s, "--solvers")) {
            if (a->nsolvers) return cli_fail("--solvers given twice");
            if (split_solvers(a, argv[i + 1])) return EXIT_BAD_INPUT;
        } else if (!strcmp(s, "--tol")) {
            if (cli_parse_double(val, &a->tol) || a->tol <= 0)
                return cli_fail("--tol: '%s' is not a positive number", val);
        } else if (!strcmp(s, "--time-limit")) {
            if (cli_parse_double(val, &a->time_limit) || a->time_limit < 0)
                return cli_fail("--time-limit: '%s' is not a number of seconds >= 0", val);
        } else if (!strcmp(s, "--kill-margin")) {
            if (cli_parse_double(val, &a->margin) || a->margin < 0)
                return cli_fail("--kill-margin: '%s' is not a number of seconds >= 0", val);
        } else if (!strcmp(s, "--mem-limit")) {
            if (cli_parse_double(val, &a->mem_mb) || a->mem_mb < 0)
                return cli_fail("--mem-limit: '%s' is not a number of MB >= 0", val);
        } else if (!strcmp(s, "--max-iter")) {
            if (cli_parse_int(val, &a->max_iter) || a->max_iter <= 0)
                return cli_fail("--max-iter: '%s' is not a positive integer", val);
        } else if (!strcmp(s, "--repeat")) {
            if (cli_parse_int(val, &a->repeat) || a->repeat <= 0)
                return cli_fail("--repeat: '%s' is not a positive integer", val);
        } else if (!strcmp(s, "--out")) {
            a->out = val;
        } else if (!strcmp(s, "--set")) {
            fc_options probe;
            fc_default_options(&probe);
            if (cli_set_option(&probe, val)) return EXIT_BAD_INPUT;
            a->sets[a->nsets++] = val;
        } else if (s[0] == '-' && s[1]) {
            return cli_fail("unknown option '%s'", s);
        } else {
            a->inputs[a->ninputs++] = s;
        }
        i += takes;
    }
    if (!a->ninputs)
        return cli_fail("usage: fricon bench [--solvers a,b] [--tol T] [--time-limit S] "
                        "[--mem-limit MB] [--repeat N] [--cpu] [--cpu-limit] [--out DIR] FILE|DIR...");
    if (!a->nsolvers)
        for (int i = 0; i < fc_solver_count(); i++) a->solvers[a->nsolvers++] = fc_solver_at(i)->name;
    if (a->margin < 0) a->margin = 1.0 + 0.1 * a->time_limit;
    return 0;
}

static int has_problem_ext(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (!strcmp(dot, ".dat") || !strcmp(dot, ".hdf5") || !strcmp(dot, ".h5"));
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Append path, or every problem file of the directory path (sorted). */
static int add_input(const char *path, bench_problem **list, int *n, int *cap)
{
    struct stat st;
    if (stat(path, &st)) return cli_fail("%s: %s", path, strerror(errno));
    char **names = NULL;
    int nn = 0;
    if (S_ISDIR(st.st_mode)) {
        DIR *dir = opendir(path);
        if (!dir) return cli_fail("%s: %s", path, strerror(errno));
        struct dirent *e;
        int ncap = 0;
        while ((e = readdir(dir))) {
            if (e->d_name[0] == '.' || !has_problem_ext(e->d_name)) continue;
            if (nn == ncap) {
                ncap = ncap ? 2 * ncap : 64;
                char **t = realloc(names, (size_t)ncap * sizeof *t);
                if (!t) break;
                names = t;
            }
            size_t len = strlen(path) + strlen(e->d_name) + 2;
            if (!(names[nn] = malloc(len))) break;
            snprintf(names[nn++], len, "%s/%s", path, e->d_name);
        }
        closedir(dir);
        if (nn) qsort(names, (size_t)nn, sizeof *names, cmp_str);
    } else {
        names = malloc(sizeof *names);
        if (!names || !(names[0] = strdup(path))) return cli_fail("out of memory");
        nn = 1;
    }
    for (int k = 0; k < nn; k++) {
        if (*n == *cap) {
            *cap = *cap ? 2 * *cap : 64;
            bench_problem *t = realloc(*list, (size_t)*cap * sizeof *t);
            if (!t) return cli_fail("out of memory");
            *list = t;
        }
        bench_problem *bp = &(*list)[(*n)++];
        memset(bp, 0, sizeof *bp);
        bp->path = names[k];
        const char *slash = strrchr(bp->path, '/');
        bp->name = slash ? slash + 1 : bp->path;
    }
    free(names);
    return 0;
}

static int mkdir_p(const char *dir)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) return -1;
    for (char *c = buf + 1; *c; c++) {
        if (*c != '/') continue;
        *c = 0;
        if (mkdir(buf, 0777) && errno != EEXIST) return -1;
        *c = '/';
    }
    return mkdir(buf, 0777) && errno != EEXIST ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Isolation: one child process per run                                */
/* ------------------------------------------------------------------ */

typedef struct {
    char line[1024];  /* what the child sent */
    int complete;     /* the line ended with a newline */
    int timed_out;    /* killed by us at the deadline */
    int signo;        /* the signal that ended it, else 0 */
    int exit_code;
    double wall;      /* seconds since the solve started (or the fork) */
    double rss_mb;    /* from wait4, for runs that sent nothing */
} child_out;

typedef void (*child_body)(int fd, void *arg);

static void write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t k = write(fd, buf, len);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return;
        buf += k;
        len -= (size_t)k;
    }
}

/* The line a run's child sends when the problem is read and the solve
 * starts: from then on the solve deadline applies. */
#define START_LINE "start\n"
#define READ_DEADLINE 120.0
/* --cpu-limit: a solve's wall deadline is its CPU limit times this (a
 * process on a loaded machine gets a share of a core), plus the margin. */
#define CPU_LIMIT_WALL 20.0
/* --repeat applies to solves shorter than this (seconds). */
#define REPEAT_BELOW 0.05

/* Run body(fd, arg) in a child under RLIMIT_AS = mem_mb (0: none), kill
 * it READ_DEADLINE seconds after its start or solve_deadline seconds
 * (0: never) after it sent START_LINE; collect its line and its fate. */
static void isolate(child_body body, void *arg, double mem_mb, double solve_deadline, child_out *out)
{
    memset(out, 0, sizeof *out);
    int pfd[2];
    if (pipe(pfd)) {
        snprintf(out->line, sizeof out->line, "pipe: %s", strerror(errno));
        out->exit_code = -1;
        return;
    }
    fflush(NULL);
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        snprintf(out->line, sizeof out->line, "fork: %s", strerror(errno));
        out->exit_code = -1;
        return;
    }
    if (pid == 0) {
        close(pfd[0]);
        struct rlimit core = {0, 0};
        setrlimit(RLIMIT_CORE, &core);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) {
            dup2(devnull, STDOUT_FILENO);
            close(devnull);
        }
        if (mem_mb > 0 && !FRICON_ASAN) {   /* ASan reserves terabytes of shadow */
            rlim_t bytes = (rlim_t)(mem_mb * 1048576.0);
            struct rlimit as = {bytes, bytes};
            setrlimit(RLIMIT_AS, &as);
        }
        body(pfd[1], arg);
        _exit(0);
    }
    close(pfd[1]);
    size_t len = 0;
    double tstart = t0, deadline = READ_DEADLINE;
    for (;;) {
        int ms = 1000;
        if (deadline > 0) {
            double left = deadline - (now() - tstart);
            if (left <= 0) {
                kill(pid, SIGKILL);
                out->timed_out = 1;
                break;
            }
            ms = (int)fmin(1000.0, ceil(left * 1000.0));
        }
        struct pollfd pf = {pfd[0], POLLIN, 0};
        int k = poll(&pf, 1, ms);
        if (k < 0 && errno != EINTR) break;
        if (k <= 0) continue;
        ssize_t got = read(pfd[0], out->line + len, sizeof out->line - 1 - len);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break; /* end of file: the child has exited */
        len += (size_t)got;
        if (len >= strlen(START_LINE) && !memcmp(out->line, START_LINE, strlen(START_LINE))) {
            len -= strlen(START_LINE);
            memmove(out->line, out->line + strlen(START_LINE), len);
            tstart = now();
            deadline = solve_deadline;
        }
        if (len >= sizeof out->line - 1 || memchr(out->line, '\n', len)) break;
    }
    out->line[len] = 0;
    out->complete = memchr(out->line, '\n', len) != NULL;
    close(pfd[0]);
    if (out->complete && !out->timed_out) {
        /* the result is in: give the child a moment to exit, then reap */
        double t1 = now();
        int st = 0, reaped = 0;
        while (!(reaped = waitpid(pid, &st, WNOHANG) == pid)) {
            if (now() - t1 > 5.0) { kill(pid, SIGKILL); break; }
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
        out->wall = now() - tstart;
        if (reaped) {
            if (WIFSIGNALED(st)) out->signo = WTERMSIG(st);
            else out->exit_code = WEXITSTATUS(st);
            return;
        }
    }
    int st = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR) {}
    out->wall = now() - tstart;
    out->rss_mb = (double)ru.ru_maxrss / 1024.0;
    if (WIFSIGNALED(st)) out->signo = WTERMSIG(st);
    else if (WIFEXITED(st)) out->exit_code = WEXITSTATUS(st);
}

static double peak_rss_mb(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru)) return NAN;
    return (double)ru.ru_maxrss / 1024.0;
}

/* "oom" when an error message says memory ran out. */
static int mentions_memory(fc_err code, const char *msg)
{
    return code == FC_ERR_NOMEM || strstr(msg, "memory") || strstr(msg, "alloc");
}

/* Probe: read the problem, send "ok d kind nc nnz" or "read-error|oom". */
static void probe_body(int fd, void *arg)
{
    const bench_problem *bp = arg;
    fc_problem *p;
    fc_error err;
    char buf[1024];
    int n;
    if (fc_read(bp->path, &p, &err)) {
        n = snprintf(buf, sizeof buf, "%s %s\n", mentions_memory(err.code, err.msg) ? "oom" : "read-error",
                     err.msg);
    } else {
        long nnz = p->kind == FC_LOCAL ? fc_matrix_count_nonzeros(p->W)
                                       : fc_matrix_count_nonzeros(p->M) + fc_matrix_count_nonzeros(p->H);
        n = snprintf(buf, sizeof buf, "ok %d %s %d %ld\n", p->d, fc_problem_kind_name(p), p->nc, nnz);
    }
    write_all(fd, buf, (size_t)n);
}

typedef struct {
    const bench_args *a;
    const bench_problem *bp;
    const char *solver;
} run_ctx;

static void send_result(int fd, const char *status, int iterations, double residual, double seconds,
                        int warm)
{
    char buf[256];
    int n = snprintf(buf, sizeof buf, "%s %d %.17g %.17g %.3f %d\n", status, iterations, residual,
                     seconds, peak_rss_mb(), warm);
    write_all(fd, buf, (size_t)n);
}

/* The test hook: the fault asked of this run, or NULL. */
static const char *test_fault(const char *solver)
{
    const char *f = getenv("FRICON_BENCH_TEST_FAULT");
    if (!f || !*f) return NULL;
    const char *colon = strchr(f, ':');
    if (colon && strcmp(colon + 1, solver)) return NULL;
    static char kind[16];
    size_t len = colon ? (size_t)(colon - f) : strlen(f);
    if (len >= sizeof kind) return NULL;
    memcpy(kind, f, len);
    kind[len] = 0;
    return kind;
}

/* Allocate and touch memory until malloc refuses (a bounded 1 GB when
 * there is no memory limit, so a test cannot take the machine). */
static int hog_memory(double mem_mb)
{
    size_t chunk = (size_t)16 << 20, total = 0;
    size_t cap = mem_mb > 0 && !FRICON_ASAN ? (size_t)1 << 40 : (size_t)1 << 30;
    while (total < cap) {
        char *b = malloc(chunk);
        if (!b) return 1;
        memset(b, 1, chunk);
        total += chunk;
    }
    return 0;
}

static void run_body(int fd, void *arg)
{
    const run_ctx *c = arg;
    const bench_args *a = c->a;
    fc_problem *p;
    fc_error err;
    if (fc_read(c->bp->path, &p, &err)) {
        send_result(fd, mentions_memory(err.code, err.msg) ? "oom" : "read-error", 0, NAN, 0.0, 0);
        return;
    }
    write_all(fd, START_LINE, strlen(START_LINE));
    const char *fault = test_fault(c->solver);
    if (fault && !strcmp(fault, "crash")) raise(SIGSEGV);
    if (fault && !strcmp(fault, "hang"))
        for (;;) pause();
    if (fault && !strcmp(fault, "alloc")) {
        hog_memory(a->mem_mb);
        send_result(fd, "oom", 0, NAN, 0.0, 0);
        return;
    }
    fc_options opt;
    fc_default_options(&opt);
    for (int k = 0; k < a->nsets; k++) cli_set_option(&opt, a->sets[k]);
    opt.tolerance = a->tol;
    opt.max_iter = a->max_iter;
    opt.time_limit = a->time_limit;
    opt.cpu_clock = a->cpu_limit;
    int m = fc_problem_m(p), nguess = 0, warm = 0;
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    double *v = p->kind == FC_GLOBAL ? calloc((size_t)p->n + 1, sizeof *v) : NULL;
    double *r0 = calloc((size_t)m, sizeof *r0);
    if (!r || !u || !r0 || (p->kind == FC_GLOBAL && !v)) {
        send_result(fd, "oom", 0, NAN, 0.0, 0);
        return;
    }
    if (!a->cold && (fc_read_guess(c->bp->path, p, 0, NULL, NULL, &nguess, &err) ||
                     (nguess > 0 && fc_read_guess(c->bp->path, p, 0, r0, NULL, NULL, &err)))) {
        send_result(fd, "read-error", 0, NAN, 0.0, 0);
        return;
    }
    if (nguess > 0) {
        opt.r0 = r0;
        warm = 1;
    }
    fc_info info;
    double cpu0 = cpu_now();
    fc_err e = fc_solve(p, c->solver, &opt, r, u, v, &info, &err);
    if (a->cpu) info.seconds = cpu_now() - cpu0;
    if (e) {
        send_result(fd, mentions_memory(e, err.msg) ? "oom" : "error", 0, NAN, info.seconds, warm);
        return;
    }
    /* a short solve again from the same start, the fastest run kept */
    for (int k = 1; k < a->repeat && info.seconds < REPEAT_BELOW; k++) {
        fc_info again;
        memset(r, 0, (size_t)m * sizeof *r);
        memset(u, 0, (size_t)m * sizeof *u);
        if (v) memset(v, 0, ((size_t)p->n + 1) * sizeof *v);
        cpu0 = cpu_now();
        if (fc_solve(p, c->solver, &opt, r, u, v, &again, &err) != FC_OK) break;
        if (a->cpu) again.seconds = cpu_now() - cpu0;
        if (again.seconds < info.seconds) info = again;
    }
    const char *status = fc_status_name(info.status);
    if (info.status == FC_STATUS_ERROR && mentions_memory(FC_OK, info.message)) status = "oom";
    send_result(fd, status, info.iterations, info.residual, info.seconds, warm);
    /* no cleanup: the process ends here */
}

/* The fate of a child that sent no (complete) line. */
static const char *failure_status(const child_out *o)
{
    if (o->timed_out) return "timeout";
    if (o->signo == SIGKILL) return "oom"; /* not ours: the kernel's OOM killer */
    return "crash";
}

/* ------------------------------------------------------------------ */
/* Progress on the terminal                                             */
/* ------------------------------------------------------------------ */

static void format_duration(double s, char *buf, size_t len)
{
    if (!isfinite(s) || s < 0) snprintf(buf, len, "?");
    else if (s < 60) snprintf(buf, len, "%.0fs", s);
    else if (s < 3600) snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
}

typedef struct {
    int tty;
    int done, total;
    double t0;
} progress;

static void progress_start(progress *pg, const bench_problem *bp, const char *solver)
{
    char el[32], eta[32];
    double elapsed = now() - pg->t0;
    format_duration(elapsed, el, sizeof el);
    if (pg->done > 0) format_duration(elapsed / pg->done * (pg->total - pg->done), eta, sizeof eta);
    else snprintf(eta, sizeof eta, "?");
    if (pg->tty)
        fprintf(stderr, "\r\033[K[%d/%d] %s  %s  elapsed %s  ETA %s", pg->done + 1, pg->total,
                bp->name, solver, el, eta);
}

static void progress_end(progress *pg, const bench_row *row)
{
    pg->done++;
    if (!pg->tty)
        fprintf(stderr, "[%d/%d] %s %s: %s, %d it, residual %.2e, %.3f s\n", pg->done, pg->total,
                row->problem, row->solver, row->status, row->iterations, row->residual, row->seconds);
}

/* ------------------------------------------------------------------ */
/* The campaign                                                         */
/* ------------------------------------------------------------------ */

static void row_init(bench_row *row, const bench_problem *bp, const char *solver)
{
    memset(row, 0, sizeof *row);
    snprintf(row->problem, sizeof row->problem, "%s", bp->name);
    snprintf(row->kind, sizeof row->kind, "%s", bp->ok ? bp->kind : "?");
    row->nc = bp->ok ? bp->nc : 0;
    row->nnz = bp->ok ? bp->nnz : 0;
    snprintf(row->solver, sizeof row->solver, "%s", solver);
    row->residual = NAN;
}

/* Fill row from what the run's child sent, or from its fate. */
static void row_result(bench_row *row, const child_out *o)
{
    char status[24];
    int it, warm;
    double res, sec, rss;
    if (o->complete && sscanf(o->line, "%23s %d %lg %lg %lg %d", status, &it, &res, &sec, &rss, &warm) == 6) {
        snprintf(row->status, sizeof row->status, "%s", status);
        row->warm = warm;
        row->iterations = it;
        row->residual = res;
        row->seconds = sec;
        row->peak_rss_mb = rss;
        if (!strcmp(status, "oom") || !strcmp(status, "read-error")) row->seconds = o->wall;
    } else {
        snprintf(row->status, sizeof row->status, "%s", failure_status(o));
        row->seconds = o->wall;
        row->peak_rss_mb = o->rss_mb;
    }
}

static void probe(const bench_args *a, bench_problem *bp)
{
    child_out o;
    isolate(probe_body, bp, a->mem_mb, 120.0, &o);
    char status[24];
    if (o.complete && sscanf(o.line, "ok %d %15s %d %ld", &bp->d, bp->kind, &bp->nc, &bp->nnz) == 4) {
        bp->ok = 1;
    } else if (o.complete && sscanf(o.line, "%23s", status) == 1) {
        snprintf(bp->status, sizeof bp->status, "%s", status);
        const char *m = o.line + strlen(status);
        snprintf(bp->msg, sizeof bp->msg, "%s", *m == ' ' ? m + 1 : m);
        bp->msg[strcspn(bp->msg, "\n")] = 0;
    } else {
        snprintf(bp->status, sizeof bp->status, "%s", failure_status(&o));
        snprintf(bp->msg, sizeof bp->msg, "%s: reading it ended in a %s", bp->path, bp->status);
    }
    if (!bp->ok) fprintf(stderr, "fricon bench: %s (%s for every solver)\n", bp->msg, bp->status);
}

static int solver_applies(const char *name, const bench_problem *bp)
{
    const fc_solver *s = fc_solver_find(name);
    return s && (s->dims & FC_DIM(bp->d));
}

/* The campaign over the parsed arguments; probs and the arrays of a are
 * freed by the caller whatever happens here. */
static int bench_campaign(bench_args *a, bench_problem **probsp, int *npp)
{
    int capp = 0;
    for (int i = 0; i < a->ninputs; i++)
        if (add_input(a->inputs[i], probsp, npp, &capp)) return EXIT_BAD_INPUT;
    bench_problem *probs = *probsp;
    int np = *npp;
    if (!np) return cli_fail("no problem files (.dat, .hdf5, .h5) found");
    if (mkdir_p(a->out)) return cli_fail("%s: cannot create the directory: %s", a->out, strerror(errno));
    char path[4096];
    snprintf(path, sizeof path, "%s/results.csv", a->out);
    FILE *csv = fopen(path, "w");
    if (!csv) return cli_fail("%s: %s", path, strerror(errno));
    bench_csv_header(csv);

    progress pg = {isatty(STDERR_FILENO), 0, 0, now()};
    for (int i = 0; i < np; i++) {
        probe(a, &probs[i]);
        for (int k = 0; k < a->nsolvers; k++)
            pg.total += !probs[i].ok || solver_applies(a->solvers[k], &probs[i]);
    }
    bench_row *rows = calloc((size_t)pg.total + 1, sizeof *rows);
    if (!rows) { fclose(csv); return cli_fail("out of memory"); }
    int nrows = 0;
    for (int i = 0; i < np; i++) {
        bench_problem *bp = &probs[i];
        for (int k = 0; k < a->nsolvers; k++) {
            if (bp->ok && !solver_applies(a->solvers[k], bp)) continue;
            bench_row *row = &rows[nrows++];
            row_init(row, bp, a->solvers[k]);
            progress_start(&pg, bp, a->solvers[k]);
            if (!bp->ok) {
                snprintf(row->status, sizeof row->status, "%s", bp->status);
            } else {
                run_ctx ctx = {a, bp, a->solvers[k]};
                child_out o;
                double limit = a->time_limit * (a->cpu_limit ? CPU_LIMIT_WALL : 1.0);
                isolate(run_body, &ctx, a->mem_mb, a->time_limit > 0 ? limit + a->margin : 0.0, &o);
                row_result(row, &o);
            }
            bench_csv_row(csv, row);
            fflush(csv);
            progress_end(&pg, row);
        }
    }
    fclose(csv);
    int solved = 0;
    for (int i = 0; i < nrows; i++) solved += bench_solved(&rows[i], a->tol);
    char el[32];
    format_duration(now() - pg.t0, el, sizeof el);
    if (pg.tty) fputs("\r\033[K", stderr);
    fprintf(stderr, "fricon bench: %d problems, %d runs, %d solved to %g, in %s\n", np, nrows, solved,
            a->tol, el);

    char note[512];
    snprintf(note, sizeof note,
             "fricon bench: tol %g, time limit %g s (killed after %g s more), memory limit %g MB%s, "
             "max-iter %d (0: the default), repeat %d (solves under %g s: the fastest kept), "
             "seconds: %s, single-threaded BLAS",
             a->tol, a->time_limit, a->margin, a->mem_mb,
             FRICON_ASAN ? " (not enforced: AddressSanitizer build)" : "", a->max_iter, a->repeat,
             REPEAT_BELOW, a->cpu ? "CPU time of the solve" : "wall time of the solve");
    int rc = bench_report(a->out, rows, nrows, a->tol, note);
    fprintf(stderr, "fricon bench: %s/results.csv, %s/summary.md, %s/profile-time.svg\n", a->out,
            a->out, a->out);
    free(rows);
    return rc ? EXIT_BAD_INPUT : EXIT_DONE;
}

int cmd_bench(int argc, char **argv)
{
    bench_args a;
    bench_problem *probs = NULL;
    int np = 0;
    int rc = parse_args(argc, argv, &a);
    if (!rc) {
        rc = bench_campaign(&a, &probs, &np);
    }
    for (int i = 0; i < np; i++) free(probs[i].path);
    free(probs);
    free(a.solvers);
    free(a.sets);
    free(a.inputs);
    return rc;
}
