/* Small shared helpers: errors, allocation, clock, logging (the vector
 * kernels: vec.c). */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* Record an error code and a one-line message. */
fc_err fc_error_set(fc_error *err, fc_err code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
        for (char *c = err->msg; *c; c++)  /* keep it on one line */
            if (*c == '\n' || *c == '\r') *c = ' ';
    }
    return code;
}

/* Zeroed array of n elements of size sz, NULL on overflow or excess. */
void *fc_calloc(size_t n, size_t sz)
{
    if (sz == 0 || n > (size_t)FC_MAX_ENTRIES || n > SIZE_MAX / sz) return NULL;
    return calloc(n ? n : 1, sz);
}

/* memset through a pointer the compiler cannot see through: malloc then
 * memset of zero is otherwise compiled as calloc. */
static void *(*const volatile zero_fill)(void *, int, size_t) = memset;

void *fc_calloc_touched(size_t n, size_t sz)
{
    void *x = fc_malloc(n, sz);
    if (x) zero_fill(x, 0, (n ? n : 1) * sz);
    return x;
}

void *fc_malloc(size_t n, size_t sz)
{
    if (sz == 0 || n > (size_t)FC_MAX_ENTRIES || n > SIZE_MAX / sz) return NULL;
    return malloc((n ? n : 1) * sz);
}

/* Copy of n doubles. */
double *fc_dup(const double *src, size_t n)
{
    if (!src) return NULL;
    double *d = fc_calloc(n, sizeof *d);
    if (d && n) memcpy(d, src, n * sizeof *d);
    return d;
}

/* The clock of fc_now, per calling thread (set for the length of a solve). */
static _Thread_local int cpu_clock;

int fc_clock_cpu_set(int on)
{
    int old = cpu_clock;
    cpu_clock = on != 0;
    return old;
}

/* Monotonic time in seconds. */
double fc_now(void)
{
    struct timespec ts;
    clock_gettime(cpu_clock ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void fc_clock_start(fc_clock *c, const fc_options *opt)
{
    c->start = fc_now();
    c->limit = opt ? opt->time_limit : 0.0;
}

int fc_clock_expired(const fc_clock *c)
{
    return c->limit > 0 && fc_now() - c->start >= c->limit;
}

double fc_clock_elapsed(const fc_clock *c) { return fc_now() - c->start; }

/* Format a message and pass it to the caller's log callback. */
void fc_log(const fc_options *opt, int level, const char *fmt, ...)
{
    if (!opt || !opt->log || opt->verbose < level + 1) return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    opt->log(opt->log_user, level, buf);
}

int fc_all_finite(size_t n, const double *x)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return 0;
    return 1;
}

void fc_info_add_stage(fc_info *info, const char *solver, fc_status status,
                       int iterations, double residual, double seconds)
{
    if (info->nstages >= FC_MAX_STAGES) return;
    fc_stage *s = &info->stages[info->nstages++];
    snprintf(s->solver, sizeof s->solver, "%s", solver);
    s->status = status;
    s->iterations = iterations;
    s->residual = residual;
    s->seconds = seconds;
}

const char *fc_status_name(fc_status s)
{
    switch (s) {
    case FC_CONVERGED: return "converged";
    case FC_MAX_ITER: return "max-iter";
    case FC_TIME_LIMIT: return "time-limit";
    case FC_DIVERGED: return "diverged";
    case FC_STALLED: return "stalled";
    default: return "error";
    }
}

char *fc_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}

int fc_find_sorted(const int *idx, int lo, int end, int key)
{
    int hi = end - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (idx[mid] == key) return mid;
        if (idx[mid] < key) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}
