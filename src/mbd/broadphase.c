/* Broad phase: candidate pairs by uniform grid hashing.  Bodies with a
 * small bounding sphere go into cells of size 2 r_max + margin (r_max the
 * largest of them), sorted by cell and indexed by an open-addressing hash
 * table; each is tested against the bodies of its 27 neighbouring cells,
 * so n similar spheres cost O(n) tests.  Reaches include the distance
 * the bodies can travel in one step (h times their speed bounds).  Planes and boxes much larger
 * than the typical body are tested against every body. */
#include "mbd/mbd.h"

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

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
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

static int add_pair(fc_mbd_world *w, int i, int j)
{
    if (w->bodies[i].fixed && w->bodies[j].fixed) return 0;
    if (w->npairs == w->cap_pairs) {
        int *np = fc_mbd_grow(w->pairs, &w->cap_pairs, 2 * sizeof *np, 256);
        if (!np) return -1;
        w->pairs = np;
    }
    w->pairs[2 * w->npairs] = i < j ? i : j;
    w->pairs[2 * w->npairs + 1] = i < j ? j : i;
    w->npairs++;
    return 0;
}

/* Could large body L touch body i? */
static int large_overlap(const fc_mbd_world *w, int L, int i)
{
    const fc_mbd_body *B = &w->bodies[L], *A = &w->bodies[i];
    double ri = fc_mbd_bound_radius(A);
    if (B->shape == FC_MBD_PLANE) {
        if (A->shape == FC_MBD_PLANE) return 0;
        double n[3];
        static const double ez[3] = {0, 0, 1};
        fc_mbd_rotate(B->q, ez, n);
        double dc = (A->x[0] - B->x[0]) * n[0] + (A->x[1] - B->x[1]) * n[1] + (A->x[2] - B->x[2]) * n[2];
        return dc <= ri + w->margin + w->h * fc_mbd_speed_bound(A);
    }
    if (A->shape == FC_MBD_PLANE) return large_overlap(w, i, L);
    double d[3] = {A->x[0] - B->x[0], A->x[1] - B->x[1], A->x[2] - B->x[2]};
    return v3_norm(d) <= ri + fc_mbd_bound_radius(B) + w->margin +
                             w->h * (fc_mbd_speed_bound(A) + fc_mbd_speed_bound(B));
}

int fc_mbd_broadphase(fc_mbd_world *w)
{
    int n = w->nbodies, nsmall = 0, nlarge = 0, ret = -1;
    w->npairs = 0;
    double *radii = fc_calloc((size_t)n + 1, sizeof *radii);
    int *large = fc_calloc((size_t)n + 1, sizeof *large);
    cell_entry *cells = fc_calloc((size_t)n + 1, sizeof *cells);
    long long *table = NULL;
    if (!radii || !large || !cells) goto done;
    /* typical size: the median finite bounding radius */
    int nf = 0;
    for (int i = 0; i < n; i++) {
        double r = fc_mbd_bound_radius(&w->bodies[i]);
        if (isfinite(r)) radii[nf++] = r;
    }
    if (nf > 1) qsort(radii, (size_t)nf, sizeof *radii, cmp_double);
    double median = nf ? radii[nf / 2] : 1.0, rmax = 0, smax = 0;
    for (int i = 0; i < n; i++) {
        double r = fc_mbd_bound_radius(&w->bodies[i]);
        if (!isfinite(r) || r > 4 * median) { large[nlarge++] = i; continue; }
        rmax = fmax(rmax, r);
        smax = fmax(smax, fc_mbd_speed_bound(&w->bodies[i]));
    }
    double cell = 2 * rmax + w->margin + 2 * w->h * smax;
    if (!(cell > 0)) cell = 1;
    for (int i = 0; i < n; i++) {
        double r = fc_mbd_bound_radius(&w->bodies[i]);
        if (!isfinite(r) || r > 4 * median) continue;
        const double *x = w->bodies[i].x;
        cells[nsmall].ix = (long long)floor(x[0] / cell);
        cells[nsmall].iy = (long long)floor(x[1] / cell);
        cells[nsmall].iz = (long long)floor(x[2] / cell);
        cells[nsmall].body = i;
        nsmall++;
    }
    if (nsmall > 1) qsort(cells, (size_t)nsmall, sizeof *cells, cmp_cell);
    /* hash table: cell -> index of its first entry in cells[] */
    size_t tsize = 16;
    while (tsize < 2 * (size_t)nsmall) tsize <<= 1;
    table = malloc(tsize * sizeof *table);
    if (!table) goto done;
    for (size_t k = 0; k < tsize; k++) table[k] = -1;
    for (int s = 0; s < nsmall; s++) {
        if (s > 0 && !cmp_cell(&(cell_entry){cells[s].ix, cells[s].iy, cells[s].iz, 0},
                               &(cell_entry){cells[s - 1].ix, cells[s - 1].iy, cells[s - 1].iz, 0}))
            continue;
        size_t k = cell_hash(cells[s].ix, cells[s].iy, cells[s].iz) & (tsize - 1);
        while (table[k] >= 0) k = (k + 1) & (tsize - 1);
        table[k] = s;
    }
    for (int s = 0; s < nsmall; s++) {
        const fc_mbd_body *A = &w->bodies[cells[s].body];
        double ra = fc_mbd_bound_radius(A);
        for (int dx = -1; dx <= 1; dx++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dz = -1; dz <= 1; dz++) {
                    long long cx = cells[s].ix + dx, cy = cells[s].iy + dy, cz = cells[s].iz + dz;
                    size_t k = cell_hash(cx, cy, cz) & (tsize - 1);
                    long long first = -1;
                    for (; table[k] >= 0; k = (k + 1) & (tsize - 1)) {
                        const cell_entry *e = &cells[table[k]];
                        if (e->ix == cx && e->iy == cy && e->iz == cz) { first = table[k]; break; }
                    }
                    if (first < 0) continue;
                    for (long long t = first; t < nsmall && cells[t].ix == cx && cells[t].iy == cy &&
                                              cells[t].iz == cz; t++) {
                        if (t <= s) continue; /* each pair once */
                        const fc_mbd_body *B = &w->bodies[cells[t].body];
                        double d[3] = {A->x[0] - B->x[0], A->x[1] - B->x[1], A->x[2] - B->x[2]};
                        double reach = ra + fc_mbd_bound_radius(B) + w->margin +
                                       w->h * (fc_mbd_speed_bound(A) + fc_mbd_speed_bound(B));
                        if (v3_dot(d, d) <= reach * reach && add_pair(w, cells[s].body, cells[t].body))
                            goto done;
                    }
                }
    }
    for (int l = 0; l < nlarge; l++)
        for (int i = 0; i < n; i++) {
            if (i == large[l]) continue;
            int other_large = 0;
            for (int m = 0; m < nlarge; m++) if (large[m] == i) other_large = m + 1;
            if (other_large && other_large - 1 < l) continue; /* pair of large bodies once */
            if (large_overlap(w, large[l], i) && add_pair(w, large[l], i)) goto done;
        }
    if (w->npairs > 1) qsort(w->pairs, (size_t)w->npairs, 2 * sizeof *w->pairs, fc_mbd_cmp_pair);
    ret = w->npairs;
done:
    free(radii);
    free(large);
    free(cells);
    free(table);
    return ret;
}
