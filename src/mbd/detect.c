/* Contact detection of a step: the broad phase's grid (broadphase.c),
 * then chunk by chunk (a range of bodies) the chunk's candidate pairs,
 * without the jointed ones, and their contacts (collide.c).  From 2
 * threads it is one parallel region: the grid built by the threads
 * together, FC_MBD_CHUNKS chunks per thread taken dynamically, each into
 * its own buffers (a local copy while it runs: no shared counters), then
 * the buffers copied in chunk order to their offsets in w->pairs and
 * w->contacts: the sequential order, the same lists for any count. */
#include "mbd/mbd.h"

#include <limits.h>

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
} detect_job;

/* Chunk bodies [lo, hi) into tb; -1 when out of memory. */
static int chunk(const fc_mbd_world *w, const detect_job *job, int lo, int hi, fc_mbd_tbuf *tb)
{
    fc_mbd_tbuf t = *tb;
    int bad = fc_mbd_grid_pairs(w, &job->g, lo, hi, &t) != 0;
    t.narrow.ncontacts = 0;
    if (!bad && job->narrow) {
        t.npairs = fc_mbd_joint_filter(job->jp, job->njoints, t.pairs, t.npairs);
        for (int k = 0; k < t.npairs && !bad; k++)
            bad = fc_mbd_collide_into(w, t.pairs[2 * k], t.pairs[2 * k + 1], &t.narrow) < 0;
        if (w->planar) planar_frames(t.narrow.contacts, t.narrow.ncontacts);
    }
    *tb = t;
    return bad;
}

/* The chunks' offsets; w->pairs and w->contacts grown to their totals
 * (narrow: the contacts too).  -1 when out of memory. */
static int offsets(fc_mbd_world *w, int K, int narrow)
{
    long np = 0, nc = 0;
    for (int c = 0; c < K; c++) {
        w->tbuf[c].pair_at = np;
        w->tbuf[c].contact_at = nc;
        np += w->tbuf[c].npairs;
        nc += w->tbuf[c].narrow.ncontacts;
    }
    if (np > INT_MAX / 2 || nc > INT_MAX) return -1;
    if (np > w->cap_pairs) {
        int *p = realloc(w->pairs, (size_t)np * 2 * sizeof *p);
        if (!p) return -1;
        w->pairs = p;
        w->cap_pairs = (int)np;
    }
    if (narrow && nc > w->cap_contacts) {
        fc_mbd_contact *ct = realloc(w->contacts, (size_t)nc * sizeof *ct);
        if (!ct) return -1;
        w->contacts = ct;
        w->cap_contacts = (int)nc;
    }
    w->npairs = (int)np;
    w->ncontacts = narrow ? (int)nc : 0;
    return 0;
}

static void swap_buffers(fc_mbd_world *w, fc_mbd_tbuf *t, int narrow)
{
    int *p = w->pairs, cp = w->cap_pairs;
    w->pairs = t->pairs;
    w->cap_pairs = t->cap_pairs;
    w->npairs = t->npairs;
    t->pairs = p;
    t->cap_pairs = cp;
    t->npairs = 0;
    if (!narrow) return;
    fc_mbd_contact *c = w->contacts;
    int cc = w->cap_contacts;
    w->contacts = t->narrow.contacts;
    w->cap_contacts = t->narrow.cap_contacts;
    w->ncontacts = t->narrow.ncontacts;
    t->narrow.contacts = c;
    t->narrow.cap_contacts = cc;
    t->narrow.ncontacts = 0;
}

/* The detection (narrow = 0: the broad phase's pairs only, jointed ones
 * kept); the contact count, or the pair count; -1 when out of memory. */
static int detect(fc_mbd_world *w, int narrow)
{
    int n = w->nbodies;
    int nt = FC_PAR_ON(n) ? fc_threads() : 1, K = nt == 1 ? 1 : FC_MBD_CHUNKS * nt;
    detect_job job = {.narrow = narrow};
    int *jp = NULL, bad = 0;
    w->npairs = w->ncontacts = 0;
    if (fc_mbd_grid_prepare(w, &job.g) || fc_mbd_tbuf_reserve(w, K)) return -1;
    if (narrow && w->njoints) {
        if (!(jp = fc_mbd_joint_pairs(w))) return -1;
        job.jp = jp;
        job.njoints = w->njoints;
    }
    if (nt == 1) {
        /* the chunk's buffers become the world's: no copy */
        fc_mbd_grid_build(w, &job.g);
        bad = chunk(w, &job, 0, n, &w->tbuf[0]);
        if (!bad) swap_buffers(w, &w->tbuf[0], narrow);
    } else {
#pragma omp parallel num_threads(nt)
        {
            fc_mbd_grid_build(w, &job.g);
#pragma omp for schedule(dynamic, 1) reduction(| : bad)
            for (int c = 0; c < K; c++)
                bad |= chunk(w, &job, (int)((long)n * c / K), (int)((long)n * (c + 1) / K), &w->tbuf[c]);
#pragma omp single
            if (!bad) bad = offsets(w, K, narrow) != 0;
            if (!bad) {
#pragma omp for schedule(static)
                for (int c = 0; c < K; c++) {
                    const fc_mbd_tbuf *t = &w->tbuf[c];
                    if (t->npairs)
                        memcpy(w->pairs + 2 * t->pair_at, t->pairs, (size_t)t->npairs * 2 * sizeof *t->pairs);
                    if (narrow && t->narrow.ncontacts)
                        memcpy(w->contacts + t->contact_at, t->narrow.contacts,
                               (size_t)t->narrow.ncontacts * sizeof *t->narrow.contacts);
                }
            }
        }
    }
    free(jp);
    if (bad) {
        w->npairs = w->ncontacts = 0;
        return -1;
    }
    return narrow ? w->ncontacts : w->npairs;
}

int fc_mbd_broadphase(fc_mbd_world *w) { return detect(w, 0); }

int fc_mbd_detect(fc_mbd_world *w) { return detect(w, 1); }
