/* The bodies partitioned over the ranks: METIS k-way on the body-contact
 * graph (bodies the vertices, weighted by the contacts they own; an edge per
 * pair of bodies sharing contacts, weighted by how many).  A cut edge is a
 * contact whose bodies live on two ranks: an interface body to exchange. */
#include "internal.h"
#include "dist/dist.h"

#include <metis.h>

/* A body's weight: 1 + this per contact it owns (a sweep's work is per
 * contact, a body's share of the vector passes and exchange small), so
 * that the ranks' weights are their owned contacts' cost.  The allowed
 * imbalance, in thousandths (METIS's default for k-way: 30). */
#define PART_CONTACT_WEIGHT 8
#define PART_UFACTOR 1


static int cmp_ll(const void *x, const void *y)
{
    long long a = *(const long long *)x, b = *(const long long *)y;
    return a < b ? -1 : a > b;
}

/* Bodies in equal contiguous ranges (METIS failed or was not needed). */
static void ranges(int nb, int nparts, int *part)
{
    for (int b = 0; b < nb; b++) part[b] = (int)((long long)b * nparts / (nb > 0 ? nb : 1));
}

int fc_dist_partition(int nb, int nc, const int *cptr, const int *cbody, const unsigned char *active,
                      int active_cost, int nparts, int *part)
{
    if (nparts <= 1 || nb <= nparts) {
        ranges(nb, nparts < 1 ? 1 : nparts, part);
        return 0;
    }
    long npairs = 0;
    for (int a = 0; a < nc; a++) {
        long k = cptr[a + 1] - cptr[a];
        npairs += k * (k - 1);
    }
    long long *pair = fc_calloc((size_t)npairs + 1, sizeof *pair);
    idx_t *xadj = fc_calloc((size_t)nb + 1, sizeof *xadj);
    idx_t *adj = fc_calloc((size_t)npairs + 1, sizeof *adj);
    idx_t *ewgt = fc_calloc((size_t)npairs + 1, sizeof *ewgt);
    idx_t *vwgt = fc_calloc((size_t)nb + 1, sizeof *vwgt);
    idx_t *out = fc_calloc((size_t)nb + 1, sizeof *out);
    int ret = 1;
    if (!pair || !xadj || !adj || !ewgt || !vwgt || !out) goto done;
    long np = 0;
    for (int b = 0; b < nb; b++) vwgt[b] = 1;
    for (int a = 0; a < nc; a++) {
        int lo = -1;   /* the contact's owner: its lowest-numbered body (layout.c) */
        for (int s = cptr[a]; s < cptr[a + 1]; s++) if (lo < 0 || cbody[s] < lo) lo = cbody[s];
        if (lo >= 0) vwgt[lo] += PART_CONTACT_WEIGHT * (active && active[a] ? active_cost : 1);
        for (int s = cptr[a]; s < cptr[a + 1]; s++)
            for (int t = cptr[a]; t < cptr[a + 1]; t++)
                if (t != s) pair[np++] = (long long)cbody[s] * nb + cbody[t];
    }
    /* the pairs sorted: bucketed by their first body (a counting sort, in
     * place of a qsort of them all on rank 0 while the others wait), then
     * each body's few by insertion */
    long *bp = fc_calloc((size_t)nb + 2, sizeof *bp);
    long long *sorted = fc_calloc((size_t)np + 1, sizeof *sorted);
    if (!bp || !sorted) { free(bp); free(sorted); goto done; }
    for (long k = 0; k < np; k++) bp[pair[k] / nb + 1]++;
    for (int b = 0; b < nb; b++) bp[b + 1] += bp[b];
    for (long k = 0; k < np; k++) sorted[bp[pair[k] / nb]++] = pair[k];
    for (int b = nb; b > 0; b--) bp[b] = bp[b - 1];
    bp[0] = 0;
    for (int b = 0; b < nb; b++) {
        long lo = bp[b], hi = bp[b + 1];
        if (hi - lo > 32) { qsort(sorted + lo, (size_t)(hi - lo), sizeof *sorted, cmp_ll); continue; }
        for (long q = lo + 1; q < hi; q++)
            for (long r = q; r > lo && sorted[r] < sorted[r - 1]; r--) {
                long long t = sorted[r]; sorted[r] = sorted[r - 1]; sorted[r - 1] = t;
            }
    }
    free(bp);
    free(pair);
    pair = sorted;
    long ne = 0;
    for (long k = 0; k < np; k++) {
        if (k > 0 && pair[k] == pair[k - 1]) { ewgt[ne - 1]++; continue; }
        int b = (int)(pair[k] / nb);
        xadj[b + 1]++;
        adj[ne] = (idx_t)(pair[k] % nb);
        ewgt[ne++] = 1;
    }
    for (int b = 0; b < nb; b++) xadj[b + 1] += xadj[b];
    idx_t nv = nb, ncon = 1, k = nparts, cut = 0;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1;   /* the same partition on every run */
    options[METIS_OPTION_UFACTOR] = PART_UFACTOR;
    if (METIS_PartGraphKway(&nv, &ncon, xadj, adj, vwgt, NULL, ewgt, &k, NULL, NULL, options, &cut,
                            out) == METIS_OK) {
        for (int b = 0; b < nb; b++) part[b] = (int)out[b];
    } else {
        ranges(nb, nparts, part);
    }
    ret = 0;
done:
    free(pair); free(xadj); free(adj); free(ewgt); free(vwgt); free(out);
    return ret;
}
