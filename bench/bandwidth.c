/* The machine's memory bandwidth bound for a sweep (issue 28), built with
 * the library (target bench_bandwidth, not a ctest):
 *   build/bench_bandwidth [PROBLEM] [--threads N] [--reps K]
 * 1. a STREAM-like triad a = b + s c over arrays of 3 x 64 MB, with 1 and
 *    N threads: the bytes streamed per second (best of K);
 * 2. with a problem file: the product W x over W's own pattern (its block
 *    values, column indices and the gathered x: what one Gauss-Seidel
 *    sweep must read at least), timed with 1 and N threads, and the bound
 *    it implies at the triad's bandwidth.  A sweep's time over that bound
 *    is the ratio bench/README.md reports;
 * 3. (--lines) the latency of a line last written by the other thread
 *    against one this thread wrote: a random chase over 256 KB to 16 MB,
 *    each written first by thread 1, then by thread 0, and chased by
 *    thread 0 (docs/measurements.md, "The bodies' lines on the core that
 *    wrote them"). */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"   /* fc_threads_set: the kernels' thread count outside fc_solve */

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Best triad bandwidth in bytes per second with nt threads. */
static double triad(int nt, int reps)
{
    size_t n = (size_t)8 << 20;   /* 8 M doubles: 64 MB per array */
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c) { free(a); free(b); free(c); return 0.0; }
#pragma omp parallel for num_threads(nt) schedule(static)
    for (size_t i = 0; i < n; i++) { a[i] = 0.0; b[i] = 1.0; c[i] = 2.0; }
    double best = 1e300;
    for (int k = 0; k < reps; k++) {
        double t0 = now();
#pragma omp parallel for num_threads(nt) schedule(static)
        for (size_t i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
        double t = now() - t0;
        if (t < best) best = t;
    }
    double check = a[n / 2];
    free(a); free(b); free(c);
    return check == 7.0 ? 3.0 * n * sizeof(double) / best : 0.0;
}

/* Best time of W x with the library's kernel at nt threads. */
static double product(const fc_matrix *W, int nt, int reps)
{
    double *x = malloc((size_t)W->cols * sizeof *x), *y = malloc((size_t)W->rows * sizeof *y);
    if (!x || !y) { free(x); free(y); return 0.0; }
    for (int i = 0; i < W->cols; i++) x[i] = 1.0 / (1 + i % 7);
    int before = fc_threads_set(nt);
    double best = 1e300;
    for (int k = 0; k < reps; k++) {
        double t0 = now();
        fc_matrix_gemv(W, 1.0, x, 0.0, y);
        double t = now() - t0;
        if (t < best) best = t;
    }
    fc_threads_set(before);
    free(x); free(y);
    return best;
}

/* The chase's set of k lines (one long each used, a line apart): a single
 * random cycle, so that every load waits for the one before. */
static void cycle(long *a, size_t k)
{
    size_t *p = malloc(k * sizeof *p);
    if (!p) return;
    for (size_t i = 0; i < k; i++) p[i] = i;
    unsigned long long s = 88172645463325252ULL;
    for (size_t i = k - 1; i > 0; i--) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        size_t j = (size_t)(s % (i + 1)), t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
    for (size_t i = 0; i < k; i++) a[8 * p[i]] = (long)p[(i + 1) % k];
    free(p);
}

/* Nanoseconds a line of the chase over kb KB, after thread 1 wrote every
 * line (other) and after thread 0 did (own); reps rounds, the medians'
 * stand-in the best.  Needs two threads of a region (0 when not had). */
static void lines(size_t kb, int reps, double *other, double *own)
{
    size_t k = kb * 1024 / 64;
    long *a = aligned_alloc(64, k * 64);
    size_t nflush = (size_t)8 << 20;
    double *flush = calloc(nflush, sizeof *flush);
    *other = *own = 0.0;
    if (!a || !flush) { free(a); free(flush); return; }
    cycle(a, k);
    double bo = 1e300, bw = 1e300;
    long sum = 0;
#pragma omp parallel num_threads(2) reduction(+ : sum)
    if (omp_get_num_threads() == 2)
        for (int r = 0; r < 2 * reps; r++) {
            int writer = r % 2 == 0 ? 1 : 0;   /* even rounds: the other thread writes */
            if (omp_get_thread_num() == 0)       /* a solve's worth of other data first */
                for (size_t i = 0; i < nflush; i += 8) flush[i] += 1.0;
#pragma omp barrier
            if (omp_get_thread_num() == writer)
                for (size_t i = 0; i < k; i++) a[8 * i + 1] += 1;
#pragma omp barrier
            if (omp_get_thread_num() == 0) {
                double t0 = now();
                long at = 0;
                for (size_t i = 0; i < k; i++) at = a[8 * at];
                double t = (now() - t0) / (double)k * 1e9;
                sum += at;
                if (writer == 1 && t < bo) bo = t;
                if (writer == 0 && t < bw) bw = t;
            }
#pragma omp barrier
        }
    if (bo < 1e300 && sum >= 0) { *other = bo; *own = bw; }
    free(a);
    free(flush);
}

int main(int argc, char **argv)
{
    const char *file = NULL;
    int nt = omp_get_num_procs(), reps = 10, with_lines = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) nt = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--lines")) with_lines = 1;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else file = argv[i];
    }
    if (nt < 1) nt = 1;
    if (reps < 1) reps = 1;
    double bw1 = triad(1, reps), bwn = triad(nt, reps);
    printf("triad: %.2f GB/s with 1 thread, %.2f GB/s with %d\n", bw1 / 1e9, bwn / 1e9, nt);
    for (size_t kb = 256; with_lines && kb <= 16384; kb *= 2) {
        double other, own;
        lines(kb, reps, &other, &own);
        printf("lines: %5zu KB chased, %.1f ns a line after the other thread wrote them, %.1f ns after this one\n",
               kb, other, own);
    }
    if (!file) return 0;
    fc_problem *p;
    fc_error err;
    if (fc_read(file, &p, &err) != FC_OK) {
        fprintf(stderr, "bench_bandwidth: %s\n", err.msg);
        return 2;
    }
    const fc_matrix *W = p->W;
    if (!W || W->kind == FC_MAT_DENSE) {
        fprintf(stderr, "bench_bandwidth: %s: a local problem with a sparse W is needed "
                        "(fricon convert a global one with its local form: simulate --local)\n", file);
        fc_problem_free(p);
        return 2;
    }
    long blocks = W->kind == FC_MAT_BSR ? W->nnz / ((long)W->bs * W->bs) : W->nnz;
    double bytes = W->nnz * 8.0 + blocks * 4.0 + (W->rows / (W->kind == FC_MAT_BSR ? W->bs : 1) + 1) * 4.0 +
                   (double)W->nnz / (W->kind == FC_MAT_BSR ? W->bs : 1) * 8.0 + W->rows * 16.0;
    double t1 = product(W, 1, reps), tn = product(W, nt, reps);
    printf("%s: nc %d, W %ld stored entries, %.1f MB read per product (values, indices, gathered x, r and u)\n",
           file, p->nc, W->nnz, bytes / 1e6);
    printf("W x: %.3f ms with 1 thread (bound %.3f ms: %.2fx), %.3f ms with %d (bound %.3f ms: %.2fx)\n",
           1e3 * t1, 1e3 * bytes / bw1, t1 * bw1 / bytes, 1e3 * tn, nt, 1e3 * bytes / bwn, tn * bwn / bytes);
    fc_problem_free(p);
    return 0;
}
