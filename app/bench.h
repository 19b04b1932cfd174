/* Benchmark rows, CSV files and reports, shared by `fricon bench`
 * (app/cmd_bench.c) and `fricon profile` (app/cmd_profile.c). */
#ifndef FRICON_BENCH_H
#define FRICON_BENCH_H

#include <stdio.h>

/* The columns of results.csv, in this order. */
#define BENCH_CSV_HEADER "problem,kind,nc,nnz,solver,status,iterations,residual,seconds,peak_rss_mb,warm"
/* The header before the warm column (read as warm = 0). */
#define BENCH_CSV_HEADER_V1 "problem,kind,nc,nnz,solver,status,iterations,residual,seconds,peak_rss_mb"

/* Times below this are counted as this in ratios: timer resolution and the
 * fixed cost of a call make smaller differences meaningless. */
#define BENCH_TIME_FLOOR 1e-4

/* One run: a solver on a problem.  status is a fricon status name
 * ("converged", "max-iter", "time-limit", "diverged", "error", "stalled") or a
 * failure of the run itself: "timeout" (killed by the bench after the
 * time limit and its margin), "crash" (died on a signal or without a
 * result), "oom" (out of memory under the memory limit), "read-error"
 * (the problem could not be read), "inaccurate" (the solver claimed
 * convergence that the SPEC measure does not confirm). */
typedef struct bench_row {
    char problem[256];  /* file name without its directory */
    char kind[16];      /* fc3d, gfc3d, ... */
    int nc;
    long nnz;           /* nonzeros of W (local) or of M plus H (global) */
    char solver[64];
    char status[24];
    int iterations;
    double residual;    /* SPEC measure of the returned r (NaN if none) */
    double seconds;     /* the solve alone; wall time of a failed run */
    double peak_rss_mb;
    int warm;           /* 1: started from the file's guess (--warm) */
} bench_row;

/* Write the header line / one row (CSV-quoted where needed). */
void bench_csv_header(FILE *f);
void bench_csv_row(FILE *f, const bench_row *r);

/* Append the rows of a results.csv to *rows (grown with realloc);
 * 0 on success, else prints "fricon: ..." and returns nonzero. */
int bench_csv_read(const char *path, bench_row **rows, int *nrows);

/* A run counts as solved at tol when converged with residual <= tol. */
int bench_solved(const bench_row *r, double tol);

/* From rows (several CSVs merged: a later row for the same problem and
 * solver replaces an earlier one), write into outdir: profile-time.{dat,
 * gp,svg,png}, profile-iterations.{dat,gp,svg,png} and summary.md; the
 * images only when gnuplot is found.  note: a line for the summary's
 * header (the campaign's options), or NULL.  0 on success. */
int bench_report(const char *outdir, bench_row *rows, int nrows, double tol,
                 const char *note);

/* Per family and half of a collection's manifest (bench/collections.sh):
 * bench_report at each family's tolerance into outdir/FAMILY-HALF/, and
 * outdir/families.md, auto against the per-problem oracle
 * (app/bench_families.c).  0 on success. */
int bench_families(const char *outdir, const bench_row *rows, int nrows, const char *manifest_path);

#endif
