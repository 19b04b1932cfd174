/* Broad phase: candidate pairs by a uniform grid.  Bodies with a small
 * bounding sphere go into cells of size 2 r_max + margin (r_max the
 * largest of them), bucketed (a counting sort: bucket b's bodies at
 * start[b] .. start[b + 1], by body) by their cell's index in the box of
 * occupied cells when that box has at most 4 tsize cells (tsize, the
 * hash's size, a power of 2 >= 2 n; dense: the buckets in space order, a
 * column of 3 neighbouring cells one range), else by a hash of the cell;
 * each is tested against the bodies of its 27 neighbouring cells, so n
 * similar spheres cost O(n) tests.  Reaches include the distance the
 * bodies can travel in one step (h times their speed bounds).  Planes and boxes much larger
 * than the typical body are tested against every body.  Fast bodies (h
 * times the speed bound above half the median radius; at most n / 32,
 * the fastest) stay out of the cells, whose size is then set by the
 * others: a fast body scans the cells within its own reach, and is listed
 * in each bucket within it, where the slow bodies of lower index find it
 * (one fast body would otherwise widen every body's 27 cells).  A body's pairs
 * come out sorted by partner, so the pairs of a range of bodies are in
 * (i, j) order whatever the grid: threads take ranges (detect.c). */
#include "mbd/mbd.h"

#include <omp.h>

/* A body is fast when h times its speed bound exceeds FAST_EXCESS 2^k
 * times the median radius, k the least of 0 .. FAST_LEVELS - 1 that
 * leaves at most n / FAST_SHARE of them, and when their visits of cells
 * stay below FAST_LIST per body. */
#define FAST_EXCESS 0.5
#define FAST_LEVELS 8
#define FAST_SHARE 32
#define FAST_LIST 8
/* A slice's values (sizes_of, bodies_of, classify): rmax, smax, the
 * least and greatest coordinates, per level the count and the largest
 * speed bound, the count of large bodies, whether a radius changed, its
 * fast bodies' visits of cells. */
#define PART (11 + 2 * (FAST_LEVELS + 1))
#define P_LARGE (PART - 3)
#define P_CHANGED (PART - 2)
#define P_VISITS (PART - 1)
/* The bodies' first pass is taken in slices of at least SLICE_MIN bodies,
 * at most SLICES of them (a thread that starts late takes fewer). */
#define SLICE_MIN 256
#define SLICES 64

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

/* The grid's test of a pair, a the lower index (the same doubles in the
 * same order whichever way the pair is found). */
static inline int near(const double *xa, double ra, double sa, const double *xb, double rb, double sb,
                       double margin, double h)
{
    double d[3] = {xa[0] - xb[0], xa[1] - xb[1], xa[2] - xb[2]};
    double reach = ra + rb + margin + h * (sa + sb);
    return v3_dot(d, d) <= reach * reach;
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

/* Could large body L touch body i? */
static int large_overlap(const fc_mbd_world *w, const fc_mbd_grid *g, int L, int i)
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

static int slow_pairs(const fc_mbd_world *w, const fc_mbd_grid *g, int i, fc_mbd_tbuf *out);

/* Fast body f: the slow bodies of the cells within fk[f] of its own, the
 * fast ones after it. */
static int fast_pairs(const fc_mbd_world *w, const fc_mbd_grid *g, int f, fc_mbd_tbuf *out)
{
    const double *xa = w->bodies[f].x, ra = g->rad[f], sa = g->spd[f], margin = w->margin, h = w->h;
    const fc_mbd_cell *me = &g->key[f];
    long long k = g->fk[f];
    for (long long cx = me->ix - k; cx <= me->ix + k; cx++)
        for (long long cy = me->iy - k; cy <= me->iy + k; cy++) {
            if (g->dense) {
                long long rx = cx - g->lo[0], ry = cy - g->lo[1], rz = me->iz - g->lo[2];
                if (rx < 0 || rx >= g->nc[0] || ry < 0 || ry >= g->nc[1]) continue;
                long long z0 = rz - k > 0 ? rz - k : 0, z1 = rz + k < g->nc[2] ? rz + k : g->nc[2] - 1;
                if (z0 > z1) continue;
                long long base = (rx * g->nc[1] + ry) * g->nc[2];
                for (int s = g->start[base + z0], e = g->start[base + z1 + 1]; s < e; s++) {
                    const fc_mbd_cell_body *B = &g->body[s];
                    int j = g->cell[s].body;
                    if (j > f && near(xa, ra, sa, B->x, B->rad, B->spd, margin, h) && add_pair(w, out, f, j))
                        return -1;
                }
                continue;
            }
            for (long long cz = me->iz - k; cz <= me->iz + k; cz++) {
                size_t b = cell_hash(cx, cy, cz) & (g->tsize - 1);
                for (int s = g->start[b], e = g->start[b + 1]; s < e; s++) {
                    const fc_mbd_cell *c = &g->cell[s];
                    const fc_mbd_cell_body *B = &g->body[s];
                    if (c->body > f && c->ix == cx && c->iy == cy && c->iz == cz &&
                        near(xa, ra, sa, B->x, B->rad, B->spd, margin, h) && add_pair(w, out, f, c->body))
                        return -1;
                }
            }
        }
    for (int q = 0; q < g->nfast; q++) {
        int j = g->fast[q];
        if (j > f && near(xa, ra, sa, w->bodies[j].x, g->rad[j], g->spd[j], margin, h) && add_pair(w, out, f, j))
            return -1;
    }
    return 0;
}

/* The pairs (i, j), j > i, of body i, appended to out sorted by j: the
 * small bodies of the 27 cells around a small i and the large bodies
 * that may touch it, or every body a large i may touch.  -1 when out of
 * memory. */
static int body_pairs(const fc_mbd_world *w, const fc_mbd_grid *g, int i, fc_mbd_tbuf *out)
{
    int start = out->npairs, n = w->nbodies;
    if (g->large_of[i] >= 0) {
        const unsigned char *hit = g->hit ? g->hit + (size_t)g->large_of[i] * (size_t)n : NULL;
        for (int j = i + 1; j < n; j++)
            if ((hit ? hit[j] : large_overlap(w, g, i, j)) && add_pair(w, out, i, j)) return -1;
        return 0;   /* already in order */
    }
    if (g->large_of[i] == -2) {
        if (fast_pairs(w, g, i, out)) return -1;
    } else if (slow_pairs(w, g, i, out)) return -1;
    for (int l = 0; l < g->nlarge; l++)
        if (g->large[l] > i && large_overlap(w, g, g->large[l], i) && add_pair(w, out, i, g->large[l]))
            return -1;
    /* by j: insertion sort (a body has a few partners), a fast body's
     * many by qsort */
    int *P = out->pairs;
    if (out->npairs - start > 32) {
        qsort(P + 2 * (size_t)start, (size_t)(out->npairs - start), 2 * sizeof *P, fc_mbd_cmp_pair);
        return 0;
    }
    for (int a = start + 1; a < out->npairs; a++) {
        int j = P[2 * a + 1], b = a;
        for (; b > start && P[2 * b - 1] > j; b--) P[2 * b + 1] = P[2 * b - 1];
        P[2 * b + 1] = j;
    }
    return 0;
}

/* Slow body i: the bodies of the 27 cells around it, the fast ones listed
 * in its bucket. */
static int slow_pairs(const fc_mbd_world *w, const fc_mbd_grid *g, int i, fc_mbd_tbuf *out)
{
    const fc_mbd_cell *me = &g->key[i];
    const fc_mbd_cell_body *A = &g->body[g->at[i]];
    double ra = A->rad, sa = A->spd, margin = w->margin, h = w->h;
    if (g->nfast) {
        unsigned b = g->bucket[i];
        for (int s = g->fstart[b], e = g->fstart[b + 1]; s < e; s++) {
            int f = g->flist[s];
            if (f > i && near(A->x, ra, sa, w->bodies[f].x, g->rad[f], g->spd[f], margin, h) &&
                add_pair(w, out, i, f))
                return -1;
        }
    }
    if (g->dense) {
        long long rx = me->ix - g->lo[0], ry = me->iy - g->lo[1], rz = me->iz - g->lo[2];
        long long z0 = rz > 0 ? rz - 1 : 0, z1 = rz + 1 < g->nc[2] ? rz + 1 : rz;
        for (long long cx = rx - 1; cx <= rx + 1; cx++) {
            if (cx < 0 || cx >= g->nc[0]) continue;
            for (long long cy = ry - 1; cy <= ry + 1; cy++) {
                if (cy < 0 || cy >= g->nc[1]) continue;
                long long base = (cx * g->nc[1] + cy) * g->nc[2];
                for (int s = g->start[base + z0], e = g->start[base + z1 + 1]; s < e; s++) {
                    int j = g->cell[s].body;
                    if (j <= i) continue; /* each pair once */
                    const fc_mbd_cell_body *B = &g->body[s];
                    double d[3] = {A->x[0] - B->x[0], A->x[1] - B->x[1], A->x[2] - B->x[2]};
                    double reach = ra + B->rad + margin + h * (sa + B->spd);
                    if (v3_dot(d, d) <= reach * reach && add_pair(w, out, i, j)) return -1;
                }
            }
        }
    } else {
        unsigned long long mask = g->tsize - 1;
        for (int dx = -1; dx <= 1; dx++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dz = -1; dz <= 1; dz++) {
                    long long cx = me->ix + dx, cy = me->iy + dy, cz = me->iz + dz;
                    size_t b = cell_hash(cx, cy, cz) & mask;
                    for (int s = g->start[b], e = g->start[b + 1]; s < e; s++) {
                        const fc_mbd_cell *c = &g->cell[s];
                        int j = c->body;
                        if (j <= i || c->ix != cx || c->iy != cy || c->iz != cz) continue;
                        const fc_mbd_cell_body *B = &g->body[s];
                        double d[3] = {A->x[0] - B->x[0], A->x[1] - B->x[1], A->x[2] - B->x[2]};
                        double reach = ra + B->rad + margin + h * (sa + B->spd);
                        if (v3_dot(d, d) <= reach * reach && add_pair(w, out, i, j)) return -1;
                    }
                }
    }
    return 0;
}

int fc_mbd_grid_pairs(const fc_mbd_world *w, const fc_mbd_grid *g, int lo, int hi, fc_mbd_tbuf *out)
{
    for (int i = lo; i < hi; i++)
        if (body_pairs(w, g, i, out)) return -1;
    return 0;
}

static int slice_of(int n) { return n / SLICES + 1 > SLICE_MIN ? n / SLICES + 1 : SLICE_MIN; }

void fc_mbd_body_range(int n, int nt, int me, int *lo, int *hi)
{
    int slice = slice_of(n), C = (n + slice - 1) / slice;
    int c0 = (int)((long)C * me / nt), c1 = (int)((long)C * (me + 1) / nt);
    *lo = c0 * slice;
    *hi = c1 * slice < n ? c1 * slice : n;
}

/* The grid's arrays for n bodies in w->bp_work, grown when n grows (the
 * workspace is kept from step to step: no allocation, no first-touch page
 * faults a step); their contents are not cleared. */
int fc_mbd_grid_prepare(fc_mbd_world *w, fc_mbd_grid *g, int threads)
{
    int n = w->nbodies;
    size_t m = (size_t)n + 1, off[19], at = 0, al = 64;
    memset(g, 0, sizeof *g);
    g->tsize = 16;
    while (g->tsize < 2 * (size_t)n) g->tsize <<= 1;
    g->slice = slice_of(n);
    g->nslices = (n + g->slice - 1) / g->slice;
    size_t sz[19] = {m * sizeof(double), m * sizeof(double), m * sizeof(double), 3 * m * sizeof(double),
                     m * sizeof(int), m * sizeof(int), m * sizeof(int), m * sizeof(fc_mbd_cell),
                     m * sizeof(fc_mbd_cell), m * sizeof(fc_mbd_cell_body), (4 * g->tsize + 1) * sizeof(int),
                     m * sizeof(unsigned), (size_t)(threads > 1 ? 2 * threads : 1) * (4 * g->tsize + 1) * sizeof(int),
                     ((size_t)g->nslices + 1) * PART * sizeof(double), m * sizeof(int), m * sizeof(int),
                     (4 * g->tsize + 2) * sizeof(int), FAST_LIST * m * sizeof(int), (4 * g->tsize + 1) * sizeof(int)};
    for (int k = 0; k < 19; k++) { off[k] = at; at += (sz[k] + al - 1) / al * al; }
    if (at > w->bp_bytes) {
        free(w->bp_work);
        w->bp_bytes = 0;
        w->bp_valid = -1;
        w->bp_work = malloc(at);
        if (!w->bp_work) return -1;
        w->bp_bytes = at;
    }
    char *b = w->bp_work;
    g->radii = (double *)(b + off[0]);
    g->rad = (double *)(b + off[1]);
    g->spd = (double *)(b + off[2]);
    g->pn = (double *)(b + off[3]);
    g->large = (int *)(b + off[4]);
    g->large_of = (int *)(b + off[5]);
    g->at = (int *)(b + off[6]);
    g->key = (fc_mbd_cell *)(b + off[7]);
    g->cell = (fc_mbd_cell *)(b + off[8]);
    g->body = (fc_mbd_cell_body *)(b + off[9]);
    g->start = (int *)(b + off[10]);
    g->bucket = (unsigned *)(b + off[11]);
    g->count = (int *)(b + off[12]);
    g->part = (double *)(b + off[13]);
    g->fast = (int *)(b + off[14]);
    g->fk = (int *)(b + off[15]);
    g->fstart = (int *)(b + off[16]);
    g->flist = (int *)(b + off[17]);
    g->flast = (int *)(b + off[18]);
    g->same = w->bp_valid == n;   /* rad[] holds the last build's radii */
    g->hit_room = w->bp_hit_bytes;
    return 0;
}

/* The typical size: the median finite bounding radius (kept from the
 * last build while no radius changed: the same value). */
static void typical_size(fc_mbd_world *w, fc_mbd_grid *g)
{
    int n = w->nbodies, nf = 0;
    if (!g->same || g->changed) {
        for (int i = 0; i < n; i++)
            if (isfinite(g->rad[i])) g->radii[nf++] = g->rad[i];
        w->bp_median = nf ? select_kth(g->radii, nf, nf / 2) : 1.0;
    }
    w->bp_valid = n;
}

/* The speed bound of fast level k (exactly the same double wherever). */
static double fast_cut(const fc_mbd_world *w, int k)
{
    return ldexp(FAST_EXCESS * w->bp_median / w->h, k);
}

/* Bodies [lo, hi): large (large_of 0) or small (-1); over the small ones
 * the largest radius and speed bound, the least and greatest coordinates,
 * and per level l of speed (above l of the fast cuts) the count of bodies
 * and their largest speed bound, and the count of large bodies, into part
 * (all but P_CHANGED). */
static void sizes_of(const fc_mbd_world *w, fc_mbd_grid *g, int lo, int hi, double *part)
{
    double median = w->bp_median, rmax = 0, smax = 0, cut[FAST_LEVELS];
    double count[FAST_LEVELS + 1] = {0}, top[FAST_LEVELS + 1] = {0}, nlarge = 0;
    for (int k = 0; k < FAST_LEVELS; k++) cut[k] = fast_cut(w, k);
    double l[3] = {INFINITY, INFINITY, INFINITY}, u[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = lo; i < hi; i++) {
        double r = g->rad[i];
        g->large_of[i] = -1;
        if (!isfinite(r) || r > 4 * median) { g->large_of[i] = 0; nlarge++; continue; }
        double s = g->spd[i];   /* comparisons: fmax is a call here */
        if (r > rmax) rmax = r;
        if (s > smax) smax = s;
        int level = 0;
        while (level < FAST_LEVELS && s > cut[level]) level++;
        count[level]++;
        if (s > top[level]) top[level] = s;
        for (int k = 0; k < 3; k++) {
            double x = w->bodies[i].x[k];
            if (x < l[k]) l[k] = x;
            if (x > u[k]) u[k] = x;
        }
    }
    double v[8] = {rmax, smax, l[0], l[1], l[2], u[0], u[1], u[2]};
    memcpy(part, v, sizeof v);
    memcpy(part + 8, count, sizeof count);
    memcpy(part + 9 + FAST_LEVELS, top, sizeof top);
    part[P_LARGE] = nlarge;
}

/* The cell size and the box of occupied cells (floor is monotone: the
 * cells of the extreme coordinates, lo and hi); dense when it has at most
 * 4 tsize cells (and some small body). */
static void cell_box(fc_mbd_grid *g, double size, const double lo[3], const double hi[3], int small)
{
    g->size = size > 0 ? size : 1;
    double cells = 1;
    for (int k = 0; k < 3; k++) {
        double a = floor(lo[k] / g->size), b = floor(hi[k] / g->size);
        cells *= b - a + 1;
        g->lo[k] = cells <= 4.0 * (double)g->tsize ? (long long)a : 0;
        g->nc[k] = cells <= 4.0 * (double)g->tsize ? (long long)(b - a) + 1 : 0;
    }
    g->dense = small && cells <= 4.0 * (double)g->tsize;
    g->nbuckets = g->dense ? (long long)cells : (long long)g->tsize;
}

/* Every thread the same from the slices' parts (maxima, minima, counts:
 * the same doubles in any order): the cell size and the box of occupied
 * cells, the counts of large and fast bodies; each thread lists those of
 * its own slices c0 .. c1 - 1 after those of the slices before (their
 * counts in the parts), so that the lists are in body order with no
 * pass over all bodies by one thread.  The fast bodies' reach in cells
 * and their visits per slice (part[P_VISITS], too_many's); the hit
 * flags' room (w->bp_hit, kept; grown by one thread when needed, none
 * when it cannot be had: then tested when needed); into box the largest
 * radius and speed bound and the coordinates' bounds (for too_many). */
static void classify(fc_mbd_world *w, fc_mbd_grid *g, int c0, int c1, double box[8])
{
    int n = w->nbodies, C = g->nslices;
    double rmax = 0, smax = 0, lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double count[FAST_LEVELS + 1] = {0}, top[FAST_LEVELS + 1] = {0}, nlarge = 0;
    for (int c = 0; c < C; c++) {
        const double *p = g->part + PART * (size_t)c;
        if (p[0] > rmax) rmax = p[0];
        if (p[1] > smax) smax = p[1];
        for (int l = 0; l <= FAST_LEVELS; l++) {
            count[l] += p[8 + l];
            if (p[9 + FAST_LEVELS + l] > top[l]) top[l] = p[9 + FAST_LEVELS + l];
        }
        for (int k = 0; k < 3; k++) {
            if (p[2 + k] < lo[k]) lo[k] = p[2 + k];
            if (p[5 + k] > hi[k]) hi[k] = p[5 + k];
        }
        nlarge += p[P_LARGE];
    }
    /* the least level k leaving at most n / FAST_SHARE bodies above its
     * cut (none fast when there is none: level FAST_LEVELS); sslow, the
     * others' largest */
    double cut = INFINITY, sslow = smax, above = 0;
    int level = FAST_LEVELS;
    for (int l = 1; l <= FAST_LEVELS; l++) above += count[l];
    for (int k = 0; k < FAST_LEVELS; k++) {
        if (above <= n / FAST_SHARE) {
            cut = fast_cut(w, k);
            level = k;
            sslow = 0;
            for (int l = 0; l <= k; l++) if (top[l] > sslow) sslow = top[l];
            break;
        }
        above -= count[k + 1];
    }
    /* a small body is above the cut of level k when its level exceeds k */
    int la = 0, fa = 0;
    for (int c = 0; c < c0; c++) {
        const double *p = g->part + PART * (size_t)c;
        la += (int)p[P_LARGE];
        for (int l = level + 1; l <= FAST_LEVELS; l++) fa += (int)p[8 + l];
    }
    int lo_i = c0 * g->slice, hi_i = c1 * g->slice < n ? c1 * g->slice : n;
    for (int i = lo_i; i < hi_i; i++) {
        if (g->large_of[i] >= 0) { g->large_of[i] = la; g->large[la++] = i; }
        else if (g->spd[i] > cut) { g->large_of[i] = -2; g->fast[fa++] = i; }
    }
    g->nlarge = (int)nlarge;
    g->nfast = (int)above;
    cell_box(g, 2 * rmax + w->margin + 2 * w->h * sslow, lo, hi, n > g->nlarge);
    /* the fast bodies' reach in cells (a pair's reach is at most theirs
     * plus the largest slow one's) and the cells they visit, per slice */
    double slow_reach = rmax + w->h * sslow + w->margin;
    for (int c = c0; c < c1; c++) {
        double visits = 0;
        int a = c * g->slice, b = a + g->slice < n ? a + g->slice : n;
        for (int f = a; f < b && g->nfast; f++) {
            if (g->large_of[f] != -2) continue;
            double k = floor((g->rad[f] + w->h * g->spd[f] + slow_reach) / g->size) + 1;
            g->fk[f] = k < 1e6 ? (int)k : 1000000;
            visits += (2 * k + 1) * (2 * k + 1) * (2 * k + 1);
        }
        g->part[PART * (size_t)c + P_VISITS] = visits;
    }
    double v[8] = {rmax, smax, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]};
    memcpy(box, v, sizeof v);
    /* the large bodies' rows would weigh on their chunk: their tests
     * first, shared (when the flags fit in 64 MB); hit_room, read before
     * the build, decides alike in every thread */
    size_t need = (size_t)g->nlarge * (size_t)n + 1;
    g->hit = NULL;
    if (g->nlarge && need <= ((size_t)1 << 26) + 1) {
        if (need > g->hit_room) {
#pragma omp single
            {
                free(w->bp_hit);
                w->bp_hit_bytes = 0;
                w->bp_hit = malloc(need);
                if (w->bp_hit) w->bp_hit_bytes = need;
            }
        }
        g->hit = w->bp_hit;
    }
}

/* None fast when the cells the fast bodies would visit exceed FAST_LIST
 * per body (then the cells are sized for them too, as without): 1, and
 * slices c0 .. c1's fast bodies made slow again (the cells to be found
 * again).  The visits summed in slice order by every thread (a sum of
 * whole numbers: exact up to 2^53, and once above the bound, which is
 * below it, it stays above in any order: the same answer for any count). */
static int too_many(const fc_mbd_world *w, fc_mbd_grid *g, int c0, int c1, const double box[8])
{
    int n = w->nbodies;
    double visits = 0;
    if (!g->nfast) return 0;
    for (int c = 0; c < g->nslices; c++) visits += g->part[PART * (size_t)c + P_VISITS];
    if (!(visits > (double)FAST_LIST * (n + 1))) return 0;
    int lo = c0 * g->slice, hi = c1 * g->slice < n ? c1 * g->slice : n;
    for (int i = lo; i < hi; i++)
        if (g->large_of[i] == -2) g->large_of[i] = -1;
    g->nfast = 0;
    cell_box(g, 2 * box[0] + w->margin + 2 * w->h * box[1], box + 2, box + 5, n > g->nlarge);
    return 1;
}

/* The cells of bodies [lo, hi) (a thread's range) and their buckets:
 * the box's index (dense) or the hash; counted in cnt. */
static void cells_of(const fc_mbd_world *w, fc_mbd_grid *g, int lo, int hi, int *cnt)
{
    double cell = g->size;
    unsigned long long mask = g->tsize - 1;
    long long lx = g->lo[0], ly = g->lo[1], lz = g->lo[2], ny = g->nc[1], nz = g->nc[2];
    memset(cnt, 0, (size_t)g->nbuckets * sizeof *cnt);
    for (int i = lo; i < hi; i++) {
        if (g->large_of[i] >= 0) continue;   /* a fast body's key only */
        const double *x = w->bodies[i].x;
        fc_mbd_cell *k = &g->key[i];
        k->ix = (long long)floor(x[0] / cell);
        k->iy = (long long)floor(x[1] / cell);
        k->iz = (long long)floor(x[2] / cell);
        k->body = i;
        unsigned b = g->dense ? (unsigned)(((k->ix - lx) * ny + (k->iy - ly)) * nz + (k->iz - lz))
                              : (unsigned)(cell_hash(k->ix, k->iy, k->iz) & mask);
        g->bucket[i] = b;
        cnt[b] += g->large_of[i] == -1;
    }
}

/* The buckets within fk[f] cells of fast body f's (for pass 0 counted
 * into fstart[b], for pass 1 f stored at --fstart[b]), once each. */
static void fast_visit(fc_mbd_grid *g, int f, int pass)
{
    const fc_mbd_cell *me = &g->key[f];
    long long k = g->fk[f], ny = g->nc[1], nz = g->nc[2];
    unsigned long long mask = g->tsize - 1;
    for (long long cx = me->ix - k; cx <= me->ix + k; cx++)
        for (long long cy = me->iy - k; cy <= me->iy + k; cy++)
            for (long long cz = me->iz - k; cz <= me->iz + k; cz++) {
                long long b;
                if (g->dense) {
                    long long rx = cx - g->lo[0], ry = cy - g->lo[1], rz = cz - g->lo[2];
                    if (rx < 0 || rx >= g->nc[0] || ry < 0 || ry >= ny || rz < 0 || rz >= nz) continue;
                    b = (rx * ny + ry) * nz + rz;
                } else {
                    b = (long long)(cell_hash(cx, cy, cz) & mask);
                }
                if (!g->dense) {   /* cells of one hash bucket: f once */
                    if (g->flast[b] == 2 * f + pass) continue;
                    g->flast[b] = 2 * f + pass;
                }
                if (pass == 0) g->fstart[b]++;
                else g->flist[--g->fstart[b]] = f;
            }
}

/* The fast bodies listed in each bucket within their reach: fstart[b] ..
 * fstart[b + 1] - 1 of flist. */
static void fast_lists(fc_mbd_grid *g)
{
    size_t nb = (size_t)g->nbuckets;
    memset(g->fstart, 0, (nb + 1) * sizeof *g->fstart);
    if (!g->dense) memset(g->flast, 0xff, nb * sizeof *g->flast);
    for (int q = 0; q < g->nfast; q++) fast_visit(g, g->fast[q], 0);
    for (size_t b = 1; b < nb; b++) g->fstart[b] += g->fstart[b - 1];   /* ends */
    g->fstart[nb] = g->fstart[nb - 1];
    for (int q = 0; q < g->nfast; q++) fast_visit(g, g->fast[q], 1);
}

/* The buckets' starts (written by thread 0) and thread me's cursors in
 * cur (its bodies of bucket b after those of threads < me) from the nt
 * threads' counts: every thread the same scan, so that none waits for
 * another's.  With one thread cur may be its counts (replaced in place). */
static void bucket_starts(fc_mbd_grid *g, int nt, int me, int *cur)
{
    int at = 0, nb = (int)g->nbuckets;
    const int *cnt = g->count;
    size_t stride = (size_t)nb + 1;
    for (int b = 0; b < nb; b++) {
        int mine = at;
        for (int t = 0; t < me; t++) mine += cnt[t * stride + b];
        if (me == 0) g->start[b] = at;
        for (int t = 0; t < nt; t++) at += cnt[t * stride + b];
        cur[b] = mine;
    }
    if (me == 0) g->start[nb] = at;
}

/* Bodies [lo, hi) into their buckets' places (cursors cnt). */
static void place(const fc_mbd_world *w, fc_mbd_grid *g, int lo, int hi, int *cnt)
{
    for (int i = lo; i < hi; i++) {
        if (g->large_of[i] != -1) continue;
        int s = cnt[g->bucket[i]]++;
        g->at[i] = s;
        g->cell[s] = g->key[i];
        const double *x = w->bodies[i].x;
        g->body[s] = (fc_mbd_cell_body){{x[0], x[1], x[2]}, g->rad[i], g->spd[i]};
    }
}

/* Bodies [lo, hi): their bounding radii, speed bounds, planes' normals;
 * whether a radius changed since the last build into part[P_CHANGED]. */
static void bodies_of(const fc_mbd_world *w, fc_mbd_grid *g, int lo, int hi, double *part)
{
    int changed = 0;
    for (int i = lo; i < hi; i++) {
        const fc_mbd_body *b = &w->bodies[i];
        static const double ez[3] = {0, 0, 1};
        double r = fc_mbd_bound_radius(b);
        if (g->same) changed |= !(r == g->rad[i]);
        g->rad[i] = r;
        g->spd[i] = fc_mbd_speed_bound(b);
        if (b->shape == FC_MBD_PLANE) fc_mbd_rotate(b->q, ez, g->pn + 3 * (size_t)i);
    }
    part[P_CHANGED] = changed;
}

/* Bucket b's small bodies at start[b] .. start[b + 1] - 1 of cell[] and
 * body[], in body order: a counting sort, each thread counting and
 * placing a contiguous range of slices (its counts at count + t
 * (nbuckets + 1), its cursors after the nt threads' counts); the large
 * bodies' flags and the fast bodies' lists after.  Every pass over the
 * bodies gives each thread the same range (fc_mbd_body_range, the range
 * whose bodies the step's update wrote on that thread): a thread reads
 * lines its own core wrote, cheaper after a solve than lines the other
 * core wrote (docs/measurements.md, "The bodies' lines on the core that
 * wrote them").  The first pass (radii, speed bounds, and the
 * sizes when no radius can have changed) keeps its parts per slice, so
 * the sums are the same for any count.  Three barriers (one more when a radius changed,
 * one more when the fast bodies are too many), no thread waiting for
 * another's serial work: every thread classifies and scans the buckets'
 * counts alike (one single section only when the hit flags' room grows).
 * Each thread works on its own copy of the grid's scalars (every one the
 * same values), thread 0's copied back for the pairs once the others no
 * longer read g. */
void fc_mbd_grid_build(fc_mbd_world *w, fc_mbd_grid *g)
{
    fc_mbd_grid G = *g;
    int n = w->nbodies, nt = omp_get_num_threads(), me = omp_get_thread_num(), C = G.nslices;
    /* this thread's slices c0 .. c1 - 1, bodies lo .. hi - 1: fc_mbd_body_range's */
    int c0 = (int)((long)C * me / nt), c1 = (int)((long)C * (me + 1) / nt);
    int lo = c0 * G.slice, hi = c1 * G.slice < n ? c1 * G.slice : n;
    for (int c = c0; c < c1; c++) {
        int a = c * G.slice, b = a + G.slice < n ? a + G.slice : n;
        double *part = G.part + PART * (size_t)c;
        bodies_of(w, &G, a, b, part);
        /* no radius changed since the last build (the usual step): its
         * median holds, so the sizes need no barrier before them; else (a
         * first build, a radius changed) they are done again after the
         * median's */
        if (G.same) sizes_of(w, &G, a, b, part);
    }
    FC_DMARK(2);
#pragma omp barrier
    FC_DMARK(3);
    for (int c = 0; c < C && G.same && !G.changed; c++) G.changed = G.part[PART * (size_t)c + P_CHANGED] != 0;
    if (!G.same || G.changed) {
#pragma omp single
        typical_size(w, &G);
        for (int c = c0; c < c1; c++) {
            int a = c * G.slice, b = a + G.slice < n ? a + G.slice : n;
            sizes_of(w, &G, a, b, G.part + PART * (size_t)c);
        }
#pragma omp barrier
    }
    double box[8];
    classify(w, &G, c0, c1, box);
    FC_DMARK(4);
    int *cnt = G.count + (size_t)me * ((size_t)G.nbuckets + 1);
    cells_of(w, &G, lo, hi, cnt);
    FC_DMARK(5);
#pragma omp barrier
    FC_DMARK(15);
    /* the fast bodies' visits known: cells of the slow size again when
     * they are too many (every thread alike) */
    if (too_many(w, &G, c0, c1, box)) {
        cnt = G.count + (size_t)me * ((size_t)G.nbuckets + 1);
        cells_of(w, &G, lo, hi, cnt);
#pragma omp barrier
    }
    if (me == 0) *g = G;   /* the others read only their copies until the barrier below */
    int *cur = nt == 1 ? cnt : G.count + (size_t)(nt + me) * ((size_t)G.nbuckets + 1);
    bucket_starts(&G, nt, me, cur);
    FC_DMARK(6);
    place(w, &G, lo, hi, cur);
    FC_DMARK(7);
    /* needed by the pairs only: the fast bodies' lists by the first
     * thread done placing, the large bodies' flags (their list complete
     * since the barrier) over each thread's own range */
    if (G.nfast) {
#pragma omp single nowait
        fast_lists(&G);
    }
    for (int c = c0; G.hit && c < c1; c++) {
        int a = c * G.slice, b = a + G.slice < n ? a + G.slice : n;
        for (int j = a; j < b; j++)
            for (int l = 0; l < G.nlarge; l++)
                G.hit[(size_t)l * n + j] = j > G.large[l] && large_overlap(w, &G, G.large[l], j);
    }
    FC_DMARK(16);
#pragma omp barrier
    FC_DMARK(8);
}
