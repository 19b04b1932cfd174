/* Broad phase: candidate pairs by uniform grid hashing.  Bodies with a
 * small bounding sphere go into cells of size 2 r_max + margin (r_max the
 * largest of them), sorted by cell and indexed by an open-addressing hash
 * table; each is tested against the bodies of its 27 neighbouring cells,
 * so n similar spheres cost O(n) tests.  Reaches include the distance
 * the bodies can travel in one step (h times their speed bounds).  Planes and boxes much larger
 * than the typical body are tested against every body.  The pairs come
 * out sorted by (i, j), body by body: threads take ranges of bodies. */
#include "mbd/mbd.h"

#include <limits.h>

typedef struct cell_entry {
    long long ix, iy, iz;
    int body;
} cell_entry;

static int cmp_cell(const void *pa, const void *pb)
{
    const cell_entry *a = pa, *b = pb;
    if (a->ix != b->ix) return a->ix < b->ix ? -1 : 1;
    if (a->iy != b->iy) return a->iy < b->iy ? -1 : 1;
    if (a->iz != b->iz) return a->iz < b->iz ? -1 : 1;
    return (a->body > b->body) - (a->body < b->body);
}

/* The k-th smallest of x[0 .. n-1] (x reordered): Hoare's selection. */
static double select_kth(double *x, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = x[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot) i++;
            while (x[j] > pivot) j--;
            if (i <= j) { double t = x[i]; x[i] = x[j]; x[j] = t; i++; j--; }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else break;
    }
    return x[k];
}

/* cells sorted by cell then body (a total order: one result however
 * sorted); two: its halves sorted by two threads, then merged via tmp. */
static void sort_cells(cell_entry *cells, cell_entry *tmp, int n, int two)
{
    if (!two || n < 2) {
        if (n > 1) qsort(cells, (size_t)n, sizeof *cells, cmp_cell);
        return;
    }
    int h = n / 2;
#pragma omp parallel for schedule(static) num_threads(2)
    for (int k = 0; k < 2; k++)
        qsort(cells + (k ? h : 0), (size_t)(k ? n - h : h), sizeof *cells, cmp_cell);
    int i = 0, j = h, o = 0;
    while (i < h && j < n) tmp[o++] = cmp_cell(&cells[j], &cells[i]) < 0 ? cells[j++] : cells[i++];
    while (i < h) tmp[o++] = cells[i++];
    while (j < n) tmp[o++] = cells[j++];
    memcpy(cells, tmp, (size_t)n * sizeof *cells);
}

int fc_mbd_cmp_pair(const void *pa, const void *pb)
{
    const int *a = pa, *b = pb;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return (a[1] > b[1]) - (a[1] < b[1]);
}

static unsigned long long cell_hash(long long ix, long long iy, long long iz)
{
    unsigned long long h = (unsigned long long)ix * 0x9E3779B97F4A7C15ULL;
    h ^= (unsigned long long)iy * 0xC2B2AE3D27D4EB4FULL + (h << 6) + (h >> 2);
    h ^= (unsigned long long)iz * 0x165667B19E3779F9ULL + (h << 6) + (h >> 2);
    return h ^ (h >> 29);
}

/* Append pair (i, j) to out unless both bodies are fixed; -1 when out
 * of memory. */
static int add_pair(const fc_mbd_world *w, fc_mbd_tbuf *out, int i, int j)
{
    if (w->bodies[i].fixed && w->bodies[j].fixed) return 0;
    if (out->npairs == out->cap_pairs) {
        int *np = fc_mbd_grow(out->pairs, &out->cap_pairs, 2 * sizeof *np, 256);
        if (!np) return -1;
        out->pairs = np;
    }
    out->pairs[2 * out->npairs] = i < j ? i : j;
    out->pairs[2 * out->npairs + 1] = i < j ? j : i;
    out->npairs++;
    return 0;
}

/* The grid of the small bodies: cells[] sorted by cell, the hash table
 * of each cell's first entry, pos[body] (its entry, -1 for a large body). */
typedef struct grid {
    const cell_entry *cells;
    int nsmall;
    const long long *table;
    size_t tsize;
    const int *pos, *large;
    int nlarge;
    const double *rad, *spd;   /* each body's bounding radius, speed bound */
    const double *pn;          /* a plane's normal (3 per body)            */
    const unsigned char *hit;  /* large_overlap(large[l], j) at l n + j,
                                  or NULL: tested when needed            */
} grid;

/* Could large body L touch body i? */
static int large_overlap(const fc_mbd_world *w, const grid *g, int L, int i)
{
    const fc_mbd_body *B = &w->bodies[L], *A = &w->bodies[i];
    double ri = g->rad[i];
    if (B->shape == FC_MBD_PLANE) {
        if (A->shape == FC_MBD_PLANE) return 0;
        const double *n = g->pn + 3 * (size_t)L;
        double dc = (A->x[0] - B->x[0]) * n[0] + (A->x[1] - B->x[1]) * n[1] + (A->x[2] - B->x[2]) * n[2];
        return dc <= ri + w->margin + w->h * g->spd[i];
    }
    if (A->shape == FC_MBD_PLANE) return large_overlap(w, g, i, L);
    double d[3] = {A->x[0] - B->x[0], A->x[1] - B->x[1], A->x[2] - B->x[2]};
    return v3_norm(d) <= ri + g->rad[L] + w->margin + w->h * (g->spd[i] + g->spd[L]);
}

/* The pairs (i, j), j > i, of body i, appended to out sorted by j: the
 * small bodies of the 27 cells around a small i and the large bodies
 * that may touch it, or every body a large i may touch.  -1 when out of
 * memory. */
static int body_pairs(const fc_mbd_world *w, const grid *g, int i, fc_mbd_tbuf *out)
{
    int start = out->npairs, n = w->nbodies;
    const fc_mbd_body *A = &w->bodies[i];
    if (g->pos[i] < 0) {
        const unsigned char *hit = g->hit ? g->hit + (size_t)(-1 - g->pos[i]) * (size_t)n : NULL;
        for (int j = i + 1; j < n; j++)
            if ((hit ? hit[j] : large_overlap(w, g, i, j)) && add_pair(w, out, i, j)) return -1;
        return 0;   /* already in order */
    }
    const cell_entry *me = &g->cells[g->pos[i]], *cells = g->cells;
    double ra = g->rad[i], sa = g->spd[i];
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dz = -1; dz <= 1; dz++) {
                long long cx = me->ix + dx, cy = me->iy + dy, cz = me->iz + dz;
                size_t k = cell_hash(cx, cy, cz) & (g->tsize - 1);
                long long first = -1;
                for (; g->table[k] >= 0; k = (k + 1) & (g->tsize - 1)) {
                    const cell_entry *e = &cells[g->table[k]];
                    if (e->ix == cx && e->iy == cy && e->iz == cz) { first = g->table[k]; break; }
                }
                if (first < 0) continue;
                for (long long t = first; t < g->nsmall && cells[t].ix == cx && cells[t].iy == cy &&
                                          cells[t].iz == cz; t++) {
                    int j = cells[t].body;
                    if (j <= i) continue; /* each pair once */
                    const fc_mbd_body *B = &w->bodies[j];
                    double d[3] = {A->x[0] - B->x[0], A->x[1] - B->x[1], A->x[2] - B->x[2]};
                    double reach = ra + g->rad[j] + w->margin + w->h * (sa + g->spd[j]);
                    if (v3_dot(d, d) <= reach * reach && add_pair(w, out, i, j)) return -1;
                }
            }
    for (int l = 0; l < g->nlarge; l++)
        if (g->large[l] > i && large_overlap(w, g, g->large[l], i) && add_pair(w, out, i, g->large[l]))
            return -1;
    /* by j: insertion sort (a body has a few partners) */
    int *P = out->pairs;
    for (int a = start + 1; a < out->npairs; a++) {
        int j = P[2 * a + 1], b = a;
        for (; b > start && P[2 * b - 1] > j; b--) P[2 * b + 1] = P[2 * b - 1];
        P[2 * b + 1] = j;
    }
    return 0;
}

/* The pairs of bodies [lo, hi) into out (emptied first). */
static int range_pairs(const fc_mbd_world *w, const grid *g, int lo, int hi, fc_mbd_tbuf *out)
{
    out->npairs = 0;
    for (int i = lo; i < hi; i++)
        if (body_pairs(w, g, i, out)) return -1;
    return 0;
}

/* The broad phase's arrays for n bodies in w->bp_work, grown when n
 * grows (the workspace is kept from step to step: no allocation, no
 * first-touch page faults a step); their contents are not cleared. */
typedef struct bp_arrays {
    double *radii, *rad, *spd, *pn;
    int *large, *pos;
    cell_entry *cells, *tmp;
    long long *table;
    size_t tmax;   /* the table's room: 16 or more, a power of 2 >= 2 n */
} bp_arrays;

static int bp_arrays_get(fc_mbd_world *w, int n, bp_arrays *a)
{
    size_t m = (size_t)n + 1, off[10], at = 0, al = 64;
    a->tmax = 16;
    while (a->tmax < 2 * (size_t)n) a->tmax <<= 1;
    size_t sz[10] = {m * sizeof(double), m * sizeof(double), m * sizeof(double),
                     3 * m * sizeof(double), m * sizeof(int), m * sizeof(int),
                     m * sizeof(cell_entry), m * sizeof(cell_entry), a->tmax * sizeof(long long), 0};
    for (int k = 0; k < 10; k++) { off[k] = at; at += (sz[k] + al - 1) / al * al; }
    if (at > w->bp_bytes) {
        free(w->bp_work);
        w->bp_bytes = 0;
        w->bp_work = malloc(at);
        if (!w->bp_work) return -1;
        w->bp_bytes = at;
    }
    char *b = w->bp_work;
    a->radii = (double *)(b + off[0]);
    a->rad = (double *)(b + off[1]);
    a->spd = (double *)(b + off[2]);
    a->pn = (double *)(b + off[3]);
    a->large = (int *)(b + off[4]);
    a->pos = (int *)(b + off[5]);
    a->cells = (cell_entry *)(b + off[6]);
    a->tmp = (cell_entry *)(b + off[7]);
    a->table = (long long *)(b + off[8]);
    return 0;
}

int fc_mbd_broadphase(fc_mbd_world *w)
{
    int n = w->nbodies, nsmall = 0, nlarge = 0, ret = -1;
    w->npairs = 0;
    bp_arrays A;
    unsigned char *hit = NULL;
    if (bp_arrays_get(w, n, &A)) return -1;
    double *radii = A.radii, *rad = A.rad, *spd = A.spd, *pn = A.pn;
    int *large = A.large, *pos = A.pos;
    cell_entry *cells = A.cells, *tmp = A.tmp;
    long long *table = A.table;
    FC_PAR_FOR(n, , for (int i = 0; i < n; i++) {
        const fc_mbd_body *b = &w->bodies[i];
        static const double ez[3] = {0, 0, 1};
        rad[i] = fc_mbd_bound_radius(b);
        spd[i] = fc_mbd_speed_bound(b);
        if (b->shape == FC_MBD_PLANE) fc_mbd_rotate(b->q, ez, pn + 3 * (size_t)i);
    });
    /* typical size: the median finite bounding radius */
    int nf = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(rad[i])) radii[nf++] = rad[i];
    double median = nf ? select_kth(radii, nf, nf / 2) : 1.0, rmax = 0, smax = 0;
    for (int i = 0; i < n; i++) {
        double r = rad[i];
        pos[i] = -1 - nlarge;   /* a large body: -1 - its index in large[] */
        if (!isfinite(r) || r > 4 * median) { large[nlarge++] = i; continue; }
        rmax = fmax(rmax, r);
        smax = fmax(smax, spd[i]);
    }
    double cell = 2 * rmax + w->margin + 2 * w->h * smax;
    if (!(cell > 0)) cell = 1;
    for (int i = 0; i < n; i++) {
        double r = rad[i];
        if (!isfinite(r) || r > 4 * median) continue;
        const double *x = w->bodies[i].x;
        cells[nsmall].ix = (long long)floor(x[0] / cell);
        cells[nsmall].iy = (long long)floor(x[1] / cell);
        cells[nsmall].iz = (long long)floor(x[2] / cell);
        cells[nsmall].body = i;
        nsmall++;
    }
    sort_cells(cells, tmp, nsmall, FC_PAR_ON(n));
    for (int s = 0; s < nsmall; s++) pos[cells[s].body] = s;
    /* hash table: cell -> index of its first entry in cells[] */
    size_t tsize = 16;
    while (tsize < 2 * (size_t)nsmall) tsize <<= 1;   /* <= A.tmax */
    for (size_t k = 0; k < tsize; k++) table[k] = -1;
    for (int s = 0; s < nsmall; s++) {
        if (s > 0 && !cmp_cell(&(cell_entry){cells[s].ix, cells[s].iy, cells[s].iz, 0},
                               &(cell_entry){cells[s - 1].ix, cells[s - 1].iy, cells[s - 1].iz, 0}))
            continue;
        size_t k = cell_hash(cells[s].ix, cells[s].iy, cells[s].iz) & (tsize - 1);
        while (table[k] >= 0) k = (k + 1) & (tsize - 1);
        table[k] = s;
    }
    grid g = {cells, nsmall, table, tsize, pos, large, nlarge, rad, spd, pn, NULL};
    /* bodies in index order, each with its partners in order: the pairs
     * come out sorted.  Threads take contiguous chunks of bodies
     * (FC_MBD_CHUNKS per thread, dynamically: the bodies' partners vary
     * along the index), the chunks' pairs concatenated in chunk order:
     * the same list for any count */
    int nt = FC_PAR_ON(n) ? fc_threads() : 1;
    if (nt == 1) {
        fc_mbd_tbuf out = {.pairs = w->pairs, .cap_pairs = w->cap_pairs};
        int bad = range_pairs(w, &g, 0, n, &out);
        w->pairs = out.pairs;
        w->cap_pairs = out.cap_pairs;
        w->npairs = out.npairs;
        if (bad) goto done;
    } else {
        int used = FC_MBD_CHUNKS * nt;
        if (fc_mbd_tbuf_reserve(w, used)) goto done;
        /* the large bodies' rows would weigh on their chunk: their tests
         * first, shared (when the flags fit in 64 MB) */
        if ((size_t)nlarge * (size_t)n <= ((size_t)1 << 26))
            g.hit = hit = malloc((size_t)nlarge * (size_t)n + 1);
        int bad = 0;
#pragma omp parallel num_threads(nt) reduction(| : bad)
        {
            if (hit) {
#pragma omp for schedule(static)
                for (int j = 0; j < n; j++)
                    for (int l = 0; l < nlarge; l++)
                        hit[(size_t)l * n + j] = j > large[l] && large_overlap(w, &g, large[l], j);
            }
#pragma omp for schedule(dynamic, 1)
            for (int c = 0; c < used; c++)
                bad |= range_pairs(w, &g, (int)((long)n * c / used), (int)((long)n * (c + 1) / used),
                                   &w->tbuf[c]) != 0;
        }
        long total = 0;
        for (int t = 0; t < used; t++) total += w->tbuf[t].npairs;
        if (bad || total > INT_MAX / 2) goto done;
        if (total > w->cap_pairs) {
            int *np = realloc(w->pairs, (size_t)total * 2 * sizeof *np);
            if (!np) goto done;
            w->pairs = np;
            w->cap_pairs = (int)total;
        }
        for (int t = 0; t < used; t++) {
            if (w->tbuf[t].npairs)
                memcpy(w->pairs + 2 * (size_t)w->npairs, w->tbuf[t].pairs,
                       (size_t)w->tbuf[t].npairs * 2 * sizeof *w->pairs);
            w->npairs += w->tbuf[t].npairs;
        }
    }
    ret = w->npairs;
done:
    free(hit);
    return ret;
}
