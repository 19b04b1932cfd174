/* fricon solve FILE [options]: solve, report, optionally write the
 * solution (SPEC sections 3 and 4).  An FClib HDF5 file's first guess
 * (/guesses/1) is the initial r unless --cold. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#ifdef FRICON_MPI
#include "dist/dist.h"
#endif

#include <math.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *file, *solver, *output;
    int json, verbose, quiet, cold, has_guess;
    fc_options opt;
} solve_args;

/* Progress on a terminal: after PROGRESS_AFTER seconds, one line updated
 * every PROGRESS_EVERY seconds (iteration, error, elapsed), erased at the
 * end; never with --json, --verbose or --quiet, or when stderr is not a
 * terminal. */
#define PROGRESS_AFTER 1.0
#define PROGRESS_EVERY 0.25
typedef struct {
    const char *solver;
    double start, last;
    int shown;
} progress_line;

static double wall_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int show_progress(void *user, int iteration, double error)
{
    progress_line *pl = user;
    double now = wall_seconds();
    if (now - pl->start >= PROGRESS_AFTER && now - pl->last >= PROGRESS_EVERY) {
        fprintf(stderr, "\r%s: iteration %d, error %.3e, %.1f s ", pl->solver, iteration, error,
                now - pl->start);
        fflush(stderr);
        pl->last = now;
        pl->shown = 1;
    }
    return 0;
}

static void log_stderr(void *user, int level, const char *msg)
{
    (void)user;
    fprintf(stderr, "%*s%s\n", 2 * level, "", msg);
}

/* Parse the command's arguments; EXIT_DONE or EXIT_BAD_INPUT. */
static int parse_args(int argc, char **argv, solve_args *a)
{
    memset(a, 0, sizeof *a);
    fc_default_options(&a->opt);
    a->solver = fc_default_solver();
    int rc;
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = !strcmp(s, "--solver") || !strcmp(s, "--tol") || !strcmp(s, "--max-iter") ||
                    !strcmp(s, "--time-limit") || !strcmp(s, "--output") || !strcmp(s, "--set") ||
                    !strcmp(s, "--threads");
        if (takes && !val) return cli_fail("option %s needs a value", s);
        if (!strcmp(s, "--json")) a->json = 1;
        else if (!strcmp(s, "--cold")) a->cold = 1;
        else if (!strcmp(s, "--quiet")) a->quiet = 1;
        else if (!strcmp(s, "--verbose")) a->verbose++;   /* twice: per-iteration detail */
        else if (!strcmp(s, "--solver")) a->solver = val;
        else if (!strcmp(s, "--output")) a->output = val;
        else if ((rc = cli_solver_option(&a->opt, s, val)) != 1) {
            if (rc) return rc;
        } else if (s[0] == '-' && s[1]) {
            return cli_fail("unknown option '%s'", s);
        } else if (!a->file) {
            a->file = s;
        } else {
            return cli_fail("unexpected argument '%s'", s);
        }
        i += takes;
    }
    if (!a->file) return cli_fail("usage: fricon solve FILE [--solver NAME] [--tol T] ...");
    if (!fc_solver_find(a->solver))
        return cli_fail("unknown solver '%s' (see 'fricon solvers')", a->solver);
    if (a->verbose) {
        a->opt.verbose = a->verbose;
        a->opt.log = log_stderr;
    }
    return EXIT_DONE;
}

static void print_number(const char *key, double x)
{
    if (isfinite(x)) printf(", \"%s\": %.6e", key, x);
    else printf(", \"%s\": null", key);
}

static void report_json(const solve_args *a, const fc_problem *p, const fc_info *info, int warm)
{
    printf("{\"problem\": ");
    cli_json_string(a->file);
    printf(", \"kind\": \"%s\", \"nc\": %d, \"solver\": ", fc_problem_kind_name(p), p->nc);
    cli_json_string(a->solver);
    printf(", \"status\": \"%s\", \"iterations\": %d", fc_status_name(info->status), info->iterations);
    print_number("residual", info->residual);
    print_number("seconds", info->seconds);
    /* exactly SPEC's keys, "warm" when the file holds a guess (whether it
     * was used) and "eq_residual" when the problem has equality
     * constraints; the global dynamics residual is in the text report */
    if (a->has_guess) printf(", \"warm\": %s", warm ? "true" : "false");
    if (p->neq > 0) print_number("eq_residual", info->eq_residual);
    printf("}\n");
}

static void report_text(const solve_args *a, const fc_problem *p, const fc_info *info, int warm)
{
    printf("problem:    %s (%s, nc = %d)\n", a->file, fc_problem_kind_name(p), p->nc);
    printf("solver:     %s\n", a->solver);
    printf("start:      %s\n", warm ? "warm (the file's guess)" : "cold");
    printf("status:     %s\n", fc_status_name(info->status));
    printf("iterations: %d\n", info->iterations);
    printf("residual:   %.3e\n", info->residual);
    if (p->kind == FC_GLOBAL) printf("dynamics:   %.3e\n", info->dyn_residual);
    if (p->neq > 0) printf("equalities: %.3e (%d rows)\n", info->eq_residual, p->neq);
    printf("seconds:    %.6f\n", info->seconds);
    if (info->message[0]) printf("message:    %s\n", info->message);
}

/* Per-contact laws, the worst contacts and the solver stages (--verbose). */
static void report_details(const fc_problem *p, const double *r, const double *u, const fc_info *info)
{
    for (int k = 0; k < info->nstages; k++) {
        const fc_stage *s = &info->stages[k];
        fprintf(stderr, "stage %d: %s %s, %d iterations, residual %.3e, %.3f s\n", k + 1,
                s->solver, fc_status_name(s->status), s->iterations, s->residual, s->seconds);
    }
    if (p->kind != FC_LOCAL) return;
    fc_contact_diag *dg = calloc((size_t)p->nc, sizeof *dg);
    if (!dg) return;
    fc_diagnose(p, r, u, dg);
    int count[3] = {0, 0, 0};
    for (int c = 0; c < p->nc; c++) count[dg[c].law]++;
    fprintf(stderr, "contacts: %d separated, %d sticking, %d sliding\n", count[0], count[1], count[2]);
    for (int k = 0; k < 5 && k < p->nc; k++) { /* five worst, by selection */
        int worst = k;
        for (int c = k + 1; c < p->nc; c++)
            if (dg[c].error > dg[worst].error) worst = c;
        fc_contact_diag t = dg[k]; dg[k] = dg[worst]; dg[worst] = t;
        fprintf(stderr, "worst contact %d: error %.3e (%s)\n", dg[k].contact, dg[k].error,
                fc_law_name(dg[k].law));
    }
    free(dg);
}

int cmd_solve(int argc, char **argv)
{
    solve_args a;
    if (parse_args(argc, argv, &a)) return EXIT_BAD_INPUT;
    if (cli_mpi_rank() > 0) a.output = NULL;   /* rank 0 writes the gathered solution */
    if (a.output && cli_same_file(a.file, a.output))
        return cli_fail("%s: --output is the problem file itself (it would be overwritten)", a.output);
    fc_problem *p;
    fc_error err;
    int dist = 0;   /* a dist-* solver under an MPI launcher: the ranks read together */
#ifdef FRICON_MPI
    int mpi_on = 0;
    MPI_Initialized(&mpi_on);
    dist = mpi_on && !strncmp(a.solver, "dist-", 5);
    if (dist ? fc_dist_read(a.file, &p, &err) : fc_read(a.file, &p, &err)) return cli_fail("%s", err.msg);
#else
    (void)dist;
    if (fc_read(a.file, &p, &err)) return cli_fail("%s", err.msg);
#endif
    int m = fc_problem_m(p), rc = EXIT_BAD_INPUT;
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    double *v = p->kind == FC_GLOBAL ? calloc((size_t)p->n, sizeof *v) : NULL;
    double *lambda = p->neq > 0 ? calloc((size_t)p->neq, sizeof *lambda) : NULL;
    fc_info info;
    progress_line pl = {a.solver, wall_seconds(), 0.0, 0};
    if (!a.json && !a.verbose && !a.quiet && isatty(2)) {
        a.opt.progress = show_progress;
        a.opt.progress_user = &pl;
    }
    fc_err solved = FC_OK;
    int nguess = 0, warm = 0;
    double *r0 = NULL, *lambda0 = NULL;
    int bad = r && fc_read_guess(a.file, p, 0, NULL, NULL, &nguess, &err);
    a.has_guess = nguess > 0;
    if (!bad && nguess > 0 && !a.cold && (r0 = calloc((size_t)m, sizeof *r0)) != NULL &&
        (p->neq == 0 || (lambda0 = calloc((size_t)p->neq, sizeof *lambda0)) != NULL)) {
        /* the guess's lambda (FClib /guesses/K/l) warm-starts the multipliers */
        bad = fc_read_guess_eq(a.file, p, 0, r0, NULL, lambda0, NULL, &err) != FC_OK;
        a.opt.r0 = r0;
        a.opt.lambda0 = lambda0;
        warm = 1;
    }
    int have = r && u && (p->kind == FC_LOCAL || v) && (p->neq == 0 || lambda);
#ifdef FRICON_MPI
    /* the ranks go on together or stop together: one rank failing to read
     * the guess would leave the others in the barrier below */
    if (dist) {
        if (!bad && !have) snprintf(err.msg, sizeof err.msg, "%s: out of memory", a.file);
        bad = fc_dist_agree(bad || !have, err.msg, (int)sizeof err.msg);
    }
#endif
    if (bad) {
        free(r0); free(lambda0); free(r); free(u); free(v); free(lambda);
        fc_problem_free(p);
        return cli_fail("%s", err.msg);
    }
    if (have) {
#ifdef FRICON_MPI
        /* the solve's clock ("seconds") starts once every rank has read */
        if (dist) MPI_Barrier(MPI_COMM_WORLD);
#endif
        solved = fc_solve_eq(p, a.solver, &a.opt, r, u, v, lambda, &info, &err);
        if (pl.shown) fprintf(stderr, "\r%*s\r", 72, "");
    }
    if (!have) {
        cli_fail("%s: out of memory", a.file);
    } else if (solved) {
        cli_fail("%s: %s", a.file, err.msg);
    } else if (a.output && fc_write_solution(a.output, p, r, u, v, lambda, &err)) {
        cli_fail("%s", err.msg);
    } else {
        if (a.json) report_json(&a, p, &info, warm);
        else report_text(&a, p, &info, warm);
        if (a.verbose) report_details(p, r, u, &info);
        rc = info.status == FC_CONVERGED ? EXIT_DONE : EXIT_NOT_CONVERGED;
    }
    free(r0);
    free(lambda0);
    free(r);
    free(u);
    free(v);
    free(lambda);
    fc_problem_free(p);
    return rc;
}
