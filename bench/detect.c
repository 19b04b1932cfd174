/* Threads 1 against 2 on the simulator's contact detection (issue 28),
 * built with the library (target bench_detect, not a ctest; run by
 * bench/threads.sh --detect):
 *   build/bench_detect [--scene NAME] [--count N] [--steps S] [--reps K]
 *                      [--lockstep L]
 * The scene (default pile, 10^4 spheres) is stepped S times (default 5;
 * nsgs, 20 sweeps, 1 thread) to a configuration.  Then:
 * 1. the broad phase alone and the whole detection (broad + narrow
 *    phase) of that configuration, timed with 1 and 2 threads alternated
 *    K times (default 21): medians of the wall seconds and of the process
 *    CPU seconds (both threads' together: what the second thread costs,
 *    its waits included);
 * 2. with --lockstep L: two copies of the world stepped L more steps side
 *    by side, one with 1 thread, one with 2 (nsgs, 1 sweep in the file
 *    order, as bench/parallel.sh's simulate runs), alternating which goes
 *    first: the detection of each step (what fc_mbd_step's first phase
 *    does, timed here: wall and process CPU seconds, minor page faults),
 *    their medians and ratio; "again": the step's own detection of the
 *    same configuration right after (fc_mbd_step_info's t_detect, its
 *    data now in the caches), then once more for its CPU seconds.  The
 *    two copies stay identical (checked: pairs, contacts, positions), so
 *    each step times the same work with the solve's traffic in between;
 *    the last step's signature is printed (to compare builds).
 * Every timing checks that 1 and 2 threads gave the same pairs and
 * contacts (bits). */
#define _POSIX_C_SOURCE 200809L
#include "mbd/mbd.h"   /* fc_mbd_broadphase, the world's pairs and contacts */
#include "median.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#define MAX_REPS 1001

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long minflt(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

static unsigned long long fnv(unsigned long long h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) { h ^= c[i]; h *= 1099511628211ULL; }
    return h;
}

/* The bits of the pairs, the contacts (the solve's r excluded) and the
 * bodies' positions. */
static unsigned long long signature(const fc_mbd_world *w)
{
    unsigned long long h = 1469598103934665603ULL;
    h = fnv(h, &w->npairs, sizeof w->npairs);
    if (w->npairs) h = fnv(h, w->pairs, 2 * sizeof(int) * (size_t)w->npairs);
    for (int c = 0; c < w->ncontacts; c++) {
        fc_mbd_contact a = w->contacts[c];
        memset(a.r, 0, sizeof a.r);
        h = fnv(h, &a, sizeof a);
    }
    for (int i = 0; i < w->nbodies; i++) h = fnv(h, w->bodies[i].x, sizeof w->bodies[i].x);
    return h;
}

static fc_mbd_world *make(const char *scene, int count, int steps)
{
    fc_mbd_scene_params par;
    fc_mbd_scene_defaults(&par);
    par.count = count;
    fc_mbd_world *w;
    fc_error err;
    if (fc_mbd_scene(scene, &par, &w, &err) != FC_OK) {
        fprintf(stderr, "bench_detect: %s: %s\n", scene, err.msg);
        exit(2);
    }
    fc_options o;
    fc_default_options(&o);
    o.max_iter = 20;
    o.threads = 1;
    for (int s = 0; s < steps; s++)
        if (fc_mbd_step(w, "nsgs", &o, NULL, &err) != FC_OK) {
            fprintf(stderr, "bench_detect: step %d: %s\n", s + 1, err.msg);
            exit(1);
        }
    return w;
}

/* 1: the detection of one configuration, repeated. */
static int repeated(fc_mbd_world *w, int reps)
{
    static double bw[3][MAX_REPS], bc[3][MAX_REPS], dw[3][MAX_REPS], dc[3][MAX_REPS];
    unsigned long long sig[3] = {0, 0, 0};
    int differ = 0;
    for (int k = 0; k < reps; k++)
        for (int q = 0; q < 2; q++) {
            int t = (k % 2) ? 2 - q : 1 + q;   /* 1 2, then 2 1, ... */
            int before = fc_threads_set(t);
            double c0 = cpu_now(), t0 = fc_now();
            if (fc_mbd_broadphase(w) < 0) return 1;
            double c1 = cpu_now(), t1 = fc_now();
            if (fc_mbd_detect(w) < 0) return 1;
            double c2 = cpu_now(), t2 = fc_now();
            fc_threads_set(before);
            bw[t][k] = t1 - t0;
            bc[t][k] = c1 - c0;
            dw[t][k] = t2 - t1;
            dc[t][k] = c2 - c1;
            unsigned long long s = signature(w);
            if (sig[t] && sig[t] != s) differ = 1;
            sig[t] = s;
        }
    if (sig[1] != sig[2]) differ = 1;
    printf("1. one configuration: %d bodies, %d pairs, %d contacts; %d repeats alternating threads 1 and 2\n",
           w->nbodies, w->npairs, w->ncontacts, reps);
    printf("%-12s %12s %12s %7s %12s %12s %s\n", "phase", "wall 1 (ms)", "wall 2 (ms)", "ratio",
           "cpu 1 (ms)", "cpu 2 (ms)", "results");
    double b1 = median(bw[1], reps), b2 = median(bw[2], reps);
    double d1 = median(dw[1], reps), d2 = median(dw[2], reps);
    printf("%-12s %12.3f %12.3f %7.2f %12.3f %12.3f\n", "broad", 1e3 * b1, 1e3 * b2, b1 / b2,
           1e3 * median(bc[1], reps), 1e3 * median(bc[2], reps));
    printf("%-12s %12.3f %12.3f %7.2f %12.3f %12.3f %s\n", "detection", 1e3 * d1, 1e3 * d2, d1 / d2,
           1e3 * median(dc[1], reps), 1e3 * median(dc[2], reps), differ ? "DIFFER" : "identical");
    return differ;
}

/* 2: two copies stepped side by side with 1 and 2 threads. */
static int lockstep(const char *scene, int count, int steps, int more)
{
    fc_mbd_world *w[3] = {NULL, make(scene, count, steps), make(scene, count, steps)};
    static double det[3][MAX_REPS], dcpu[3][MAX_REPS], flt[3][MAX_REPS], again[3][MAX_REPS],
        acpu[3][MAX_REPS], cont[MAX_REPS];
    int differ = 0;
    for (int k = 0; k < more; k++) {
        for (int q = 0; q < 2; q++) {
            int t = (k % 2) ? 2 - q : 1 + q;
            fc_options o;
            fc_default_options(&o);
            o.max_iter = 1;
            o.threads = t;
            o.nsgs.order = 1;   /* the file order at any count: the same trajectory */
            fc_mbd_step_info in;
            fc_error err;
            /* the step's detection (fc_mbd_step's first phase) timed here,
             * after the last step's solve; the step then detects the same
             * configuration again, with its data in the caches */
            int before = fc_threads_set(t);
            long f0 = minflt();
            double c0 = cpu_now(), t0 = fc_now();
            if (fc_mbd_detect(w[t]) < 0) return 1;
            det[t][k] = fc_now() - t0;
            dcpu[t][k] = cpu_now() - c0;
#ifdef FC_DTRACE
            char tag[64];
            snprintf(tag, sizeof tag, "step %d threads %d wall %.1f", k + 1, t, 1e6 * det[t][k]);
            fc_mbd_dtrace_dump(stdout, tag);
#endif
            flt[t][k] = (double)(minflt() - f0);
            fc_threads_set(before);
            if (fc_mbd_step(w[t], "nsgs", &o, &in, &err) != FC_OK) {
                fprintf(stderr, "bench_detect: lockstep step %d: %s\n", k + 1, err.msg);
                return 1;
            }
            again[t][k] = in.t_detect;
            before = fc_threads_set(t);
            c0 = cpu_now();
            if (fc_mbd_detect(w[t]) < 0) return 1;
            acpu[t][k] = cpu_now() - c0;
            fc_threads_set(before);
            cont[k] = in.ncontacts;
        }
        differ |= signature(w[1]) != signature(w[2]);
    }
    double d1 = median(det[1], more), d2 = median(det[2], more);
    double a1 = median(again[1], more), a2 = median(again[2], more);
    printf("2. %d steps side by side (after %d), threads 1 and 2 alternating first: median %.0f contacts\n",
           more, steps, median(cont, more));
    printf("%-12s %12s %12s %7s %12s %12s %8s %8s %s\n", "phase", "wall 1 (ms)", "wall 2 (ms)", "ratio",
           "cpu 1 (ms)", "cpu 2 (ms)", "faults 1", "faults 2", "results");
    printf("%-12s %12.3f %12.3f %7.2f %12.3f %12.3f %8.0f %8.0f %s\n", "detection", 1e3 * d1, 1e3 * d2, d1 / d2,
           1e3 * median(dcpu[1], more), 1e3 * median(dcpu[2], more), median(flt[1], more),
           median(flt[2], more), differ ? "DIFFER" : "identical");
    printf("%-12s %12.3f %12.3f %7.2f %12.3f %12.3f\n", "again", 1e3 * a1, 1e3 * a2, a1 / a2,
           1e3 * median(acpu[1], more), 1e3 * median(acpu[2], more));
    printf("signature of the last step's lists and positions: %016llx\n", signature(w[1]));
    fc_mbd_world_free(w[1]);
    fc_mbd_world_free(w[2]);
    return differ;
}

int main(int argc, char **argv)
{
    const char *scene = "pile";
    int count = 10000, steps = 5, reps = 21, more = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--scene")) scene = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--count")) count = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--steps")) steps = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--reps")) reps = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--lockstep")) more = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_detect [--scene NAME] [--count N] [--steps S] [--reps K] "
                            "[--lockstep L]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > MAX_REPS || more < 0 || more > MAX_REPS || count < 1 || steps < 0) {
        fprintf(stderr, "bench_detect: reps 1..%d, lockstep 0..%d, count >= 1, steps >= 0\n", MAX_REPS,
                MAX_REPS);
        return 2;
    }
    printf("# bench_detect: %s --count %d after %d steps\n", scene, count, steps);
    fc_mbd_world *w = make(scene, count, steps);
    int differ = repeated(w, reps);
    fc_mbd_world_free(w);
    if (more) differ |= lockstep(scene, count, steps, more);
    return differ;
}
