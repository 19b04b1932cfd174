/* Contact detection of a step: the broad phase's grid (broadphase.c),
 * then chunk by chunk (a range of bodies) the chunk's candidate pairs,
 * without the jointed ones, and their contacts (collide.c).  From 2
 * threads it is one parallel region: the grid built by the threads
 * together, then chunks of bodies (guided: smaller as fewer are left),
 * thread 0 taking them from the first body on and appending them to
 * w->pairs and w->contacts directly, the others from the last back, each
 * into its own buffers
 * (a local copy while it runs: no shared counters), copied after thread
 * 0's at the end by all threads, piece by piece: the sequential order,
 * the same lists for any count. */
#include "mbd/mbd.h"

#include <limits.h>
#include <omp.h>

#ifdef FC_DTRACE
#include <time.h>
#define DT_THREADS 4
#define DT_MAX 64
static double dt_t[DT_THREADS][DT_MAX], dt_0;
static int dt_id[DT_THREADS][DT_MAX], dt_n[DT_THREADS];
static const char *const dt_name[] = {
    "start", "enter", "sizes", "b1", "classify", "cells", "starts", "place", "b3", "chunks",
    "b4", "grow", "copy", "end", "-", "b2", "hits", "fork", "-", "adopt"};

static double dt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void fc_mbd_dmark(int id)
{
    int me = omp_get_thread_num();
    if (me < DT_THREADS && dt_n[me] < DT_MAX) {
        dt_id[me][dt_n[me]] = id;
        dt_t[me][dt_n[me]++] = dt_now();
    }
}

void fc_mbd_dtrace_dump(FILE *f, const char *tag)
{
    for (int t = 0; t < DT_THREADS; t++) {
        if (!dt_n[t]) continue;
        fprintf(f, "%s t%d", tag, t);
        for (int k = 0; k < dt_n[t]; k++) fprintf(f, " %s@%.1f", dt_name[dt_id[t][k]], 1e6 * (dt_t[t][k] - dt_0));
        fputc('\n', f);
    }
}

static void dt_reset(void)
{
    for (int t = 0; t < DT_THREADS; t++) dt_n[t] = 0;
    dt_0 = dt_now();
}
#define DT_RESET() dt_reset()
#else
#define DT_RESET() ((void)0)
#endif

/* Planar frames (n, e_z x n, e_z): t1 in the plane of motion. */
static void planar_frames(fc_mbd_contact *ct, int n)
{
    for (int c = 0; c < n; c++, ct++) {
        double l = hypot(ct->n[0], ct->n[1]);
        if (!(l > 0)) continue;
        ct->n[0] /= l; ct->n[1] /= l; ct->n[2] = 0;
        ct->t1[0] = -ct->n[1]; ct->t1[1] = ct->n[0]; ct->t1[2] = 0;
        ct->t2[0] = 0; ct->t2[1] = 0; ct->t2[2] = 1;
    }
}

typedef struct detect_job {
    fc_mbd_grid g;
    const int *jp;   /* the joints' pairs, sorted (narrow phase only) */
    int njoints, narrow;
    int next, end;   /* the bodies not yet taken: next .. end - 1     */
    int nback, K;    /* back chunks taken; the chunks' count (bound)  */
    int div, minc;   /* a chunk: max(minc, remaining / div) bodies    */
} detect_job;

/* The size of the next chunk when rem bodies are left: a share of them
 * (guided: large chunks first, small ones where the threads meet, so
 * that neither waits long for the other's last chunk), at least minc,
 * at most rem.  It depends on rem only, so the number of chunks is the
 * same whichever thread takes them (chunk_count). */
static int chunk_size(const detect_job *job, int rem)
{
    int s = rem / job->div;
    if (s < job->minc) s = job->minc;
    return s < rem ? s : rem;
}

static int chunk_count(const detect_job *job, int n)
{
    int k = 0;
    for (int rem = n; rem > 0; k++) rem -= chunk_size(job, rem);
    return k;
}

/* Chunk bodies [lo, hi) appended to t; -1 when out of memory. */
static int chunk(const fc_mbd_world *w, const detect_job *job, int lo, int hi, fc_mbd_tbuf *t)
{
    int p0 = t->npairs, c0 = t->narrow.ncontacts;
    if (fc_mbd_grid_pairs(w, &job->g, lo, hi, t)) return -1;
    if (!job->narrow) return 0;
    t->npairs = p0 + fc_mbd_joint_filter(job->jp, job->njoints, t->pairs + 2 * (size_t)p0, t->npairs - p0);
    const double *spd = job->g.spd;   /* the speed bounds once per body, not per pair */
    for (int k = p0; k < t->npairs; k++) {
        int i = t->pairs[2 * k], j = t->pairs[2 * k + 1];
        if (fc_mbd_collide_bounded(w, i, j, spd[i], spd[j], &t->narrow) < 0) return -1;
    }
    if (w->planar) planar_frames(t->narrow.contacts + c0, t->narrow.ncontacts - c0);
    return 0;
}

/* The back chunks' (from .. K - 1) pair and contact counts. */
static void back_totals(const fc_mbd_world *w, int from, int K, long *np, long *nc)
{
    *np = *nc = 0;
    for (int c = from; c < K; c++) {
        *np += w->tbuf[c].npairs;
        *nc += w->tbuf[c].narrow.ncontacts;
    }
}

/* The front's lists grown to hold np more pairs and nc more contacts; -1
 * when out of memory or past int. */
static int grow_front(fc_mbd_tbuf *front, long np, long nc)
{
    np += front->npairs;
    nc += front->narrow.ncontacts;
    if (np > INT_MAX / 2 || nc > INT_MAX) return -1;
    /* a quarter more than asked: while a scene's contacts grow from step
     * to step, growing to the count alone moved the lists (and faulted
     * their new pages in) at nearly every step (docs/measurements.md,
     * "The detection inside fricon simulate") */
    if (np > front->cap_pairs) {
        long cap = np + np / 4 < INT_MAX / 2 ? np + np / 4 : np;
        int *p = realloc(front->pairs, (size_t)cap * 2 * sizeof *p);
        if (!p) return -1;
        front->pairs = p;
        front->cap_pairs = (int)cap;
    }
    if (nc > front->narrow.cap_contacts) {
        long cap = nc + nc / 4 < INT_MAX ? nc + nc / 4 : nc;
        fc_mbd_contact *ct = realloc(front->narrow.contacts, (size_t)cap * sizeof *ct);
        if (!ct) return -1;
        front->narrow.contacts = ct;
        front->narrow.cap_contacts = (int)cap;
    }
    return 0;
}

/* The back chunks' (from .. K - 1) pairs [p0, p1) and contacts [c0, c1),
 * counted over those chunks in order, copied after the front's lists. */
static void copy_back(const fc_mbd_world *w, const fc_mbd_tbuf *front, int from, int K, long p0, long p1,
                      long c0, long c1)
{
    long atp = 0, atc = 0;   /* the chunk's place among the back chunks' */
    for (int c = from; c < K && (atp < p1 || atc < c1); c++) {
        const fc_mbd_tbuf *t = &w->tbuf[c];
        long a = atp > p0 ? atp : p0, b = atp + t->npairs < p1 ? atp + t->npairs : p1;
        if (a < b)
            memcpy(front->pairs + 2 * (front->npairs + a), t->pairs + 2 * (a - atp),
                   (size_t)(b - a) * 2 * sizeof *t->pairs);
        a = atc > c0 ? atc : c0;
        b = atc + t->narrow.ncontacts < c1 ? atc + t->narrow.ncontacts : c1;
        if (a < b)
            memcpy(front->narrow.contacts + front->narrow.ncontacts + a, t->narrow.contacts + (a - atc),
                   (size_t)(b - a) * sizeof *t->narrow.contacts);
        atp += t->npairs;
        atc += t->narrow.ncontacts;
    }
}

/* The copy of the back chunks' np pairs and nc contacts after the front's,
 * in pieces of FC_MBD_COPY_PIECE contacts (or 8 times as many pairs)
 * taken as the threads come: the thread whose pieces fault new pages in,
 * or whose core the host slows, takes fewer (an equal split left one
 * thread waiting for the other; docs/measurements.md). */
static void copy_back_pieces(const fc_mbd_world *w, const fc_mbd_tbuf *front, int from, int K, long np,
                             long nc)
{
    const long pc = FC_MBD_COPY_PIECE, pp = 8 * FC_MBD_COPY_PIECE;
    long kc = (nc + pc - 1) / pc, kp = (np + pp - 1) / pp;
#pragma omp for schedule(dynamic, 1) nowait
    for (long k = 0; k < kc + kp; k++) {
        if (k < kc) copy_back(w, front, from, K, 0, 0, k * pc, (k + 1) * pc < nc ? (k + 1) * pc : nc);
        else {
            long q = k - kc;
            copy_back(w, front, from, K, q * pp, (q + 1) * pp < np ? (q + 1) * pp : np, 0, 0);
        }
    }
}

/* Thread 0's lists (front) become the world's. */
static void adopt(fc_mbd_world *w, const fc_mbd_tbuf *front)
{
    w->pairs = front->pairs;
    w->cap_pairs = front->cap_pairs;
    w->npairs = front->npairs;
    w->contacts = front->narrow.contacts;
    w->cap_contacts = front->narrow.cap_contacts;
    w->ncontacts = front->narrow.ncontacts;
}

/* The chunks a thread takes (thread 0 from the front: into front, w's
 * lists; the others from the back: the k-th back chunk into buffer K - 1
 * - k, so that the back chunks are in body order at K - nback .. K - 1);
 * -1 when out of memory. */
static int take_chunks(const fc_mbd_world *w, detect_job *job, fc_mbd_tbuf *front)
{
    int me = omp_get_thread_num(), bad = 0;
    for (;;) {
        int lo = 0, hi = 0, c = -1;
#pragma omp critical(fc_mbd_chunks)
        {
            int rem = job->end - job->next;
            if (rem > 0) {
                int s = chunk_size(job, rem);
                if (me == 0) {
                    lo = job->next;
                    hi = job->next += s;
                } else {
                    hi = job->end;
                    lo = job->end -= s;
                    c = job->K - 1 - job->nback++;
                }
            }
        }
        if (lo == hi) return bad;
        if (me == 0) {
            bad |= chunk(w, job, lo, hi, front);
        } else {
            fc_mbd_tbuf t = w->tbuf[c];
            t.npairs = t.narrow.ncontacts = 0;
            bad |= chunk(w, job, lo, hi, &t);
            w->tbuf[c] = t;
        }
    }
}

/* The detection (narrow = 0: the broad phase's pairs only, jointed ones
 * kept); the contact count, or the pair count; -1 when out of memory. */
static int detect(fc_mbd_world *w, int narrow)
{
    int n = w->nbodies;
    int nt = FC_PAR_ON(n) ? fc_threads() : 1;
    detect_job job = {.narrow = narrow, .next = 0, .end = n, .div = nt == 1 ? 1 : FC_MBD_CHUNK_DIV * nt,
                      .minc = FC_MBD_CHUNK_MIN};
    job.K = chunk_count(&job, n);
    int *jp = NULL, bad = 0, K = job.K;
    w->npairs = w->ncontacts = 0;
    DT_RESET();
    if (fc_mbd_grid_prepare(w, &job.g, nt) || fc_mbd_tbuf_reserve(w, K)) return -1;
    if (narrow && w->njoints) {
        if (!(jp = fc_mbd_joint_pairs(w))) return -1;
        job.jp = jp;
        job.njoints = w->njoints;
    }
    fc_mbd_tbuf front = {.pairs = w->pairs, .cap_pairs = w->cap_pairs,
                         .narrow = {.contacts = w->contacts, .cap_contacts = w->cap_contacts}};
    FC_DMARK(17);
    if (nt == 1) {
        fc_mbd_grid_build(w, &job.g);
        bad = take_chunks(w, &job, &front);
    } else {
        long np = 0, nc = 0;
#pragma omp parallel num_threads(nt)
        {
            FC_DMARK(1);
            fc_mbd_grid_build(w, &job.g);
            int mine = take_chunks(w, &job, &front);
            FC_DMARK(9);
#pragma omp atomic update
            bad |= mine;
#pragma omp barrier
            FC_DMARK(10);
            /* every thread the same totals (read only); the front's
             * lists grown by one thread when they lack room (every
             * thread decides alike: front is written only after the
             * barrier that follows every thread's reading), then each
             * thread copies its share of the back chunks after them */
            long tp, tc;
            back_totals(w, K - job.nback, K, &tp, &tc);
            if (!bad && (front.npairs + tp > front.cap_pairs ||
                         front.narrow.ncontacts + tc > front.narrow.cap_contacts)) {
#pragma omp barrier
#pragma omp single
                {
                    bad = grow_front(&front, tp, tc) != 0;
                }
            }
            FC_DMARK(11);
            if (!bad) copy_back_pieces(w, &front, K - job.nback, K, tp, tc);
            FC_DMARK(12);
#pragma omp master
            {
                np = tp;
                nc = tc;
            }
        }
        FC_DMARK(13);
        front.npairs += (int)np;
        front.narrow.ncontacts += (int)nc;
    }
    adopt(w, &front);
    FC_DMARK(19);
    free(jp);
    if (bad) {
        w->npairs = w->ncontacts = 0;
        return -1;
    }
    return narrow ? w->ncontacts : w->npairs;
}

int fc_mbd_broadphase(fc_mbd_world *w) { return detect(w, 0); }

int fc_mbd_detect(fc_mbd_world *w) { return detect(w, 1); }
