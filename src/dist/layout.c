/* The decomposition of a global problem over the ranks (dist.h): bodies
 * from M's pattern and H's contacts, their partition (computed on rank 0,
 * broadcast), the owned contacts, the local and interface bodies and the
 * neighbours' shared lists.  Every rank holds the whole problem: each
 * reads the file (docs/distributed.md says why), so the layout needs
 * one broadcast and no scatter. */
#include "internal.h"
#include "dist/dist.h"
#include "matrix/blocks.h"

#include <stdio.h>
#include <time.h>

/* Bodies: M's diagonal blocks merged by equal nonempty sets of contacts
 * in H (a hash: a collision only joins two groups, which stays a valid
 * body).  Fills bstart, bdof, dof_body, dof_pos; the count. */
static int find_bodies(const fc_problem *p, const fc_matrix *Mc, const fc_matrix *Hc,
                       fc_dist_layout *L)
{
    int n = p->n;
    int *pairs = fc_calloc(2 * (size_t)n + 1, sizeof *pairs);
    L->bstart = fc_calloc((size_t)n + 2, sizeof *L->bstart);
    int npairs = pairs && L->bstart ? fc_dof_signature_pairs(Hc, p->d, pairs) : -1;
    if (npairs < 0) { free(pairs); return -1; }
    int nb = fc_diag_blocks(Mc, pairs, npairs, L->dof_body, L->bstart, L->bdof);
    free(pairs);
    for (int b = 0; b < nb; b++)   /* dofs ascending within a body */
        for (int k = L->bstart[b]; k < L->bstart[b + 1]; k++) L->dof_pos[L->bdof[k]] = k - L->bstart[b];
    return nb;
}

/* Contact a's bodies (distinct, in order of first appearance in H^T's
 * rows d a .. d a + d - 1), from H^T (the fallback of contact_bodies). */
static int contact_bodies_t(const fc_problem *p, const fc_matrix *Ht, fc_dist_layout *L)
{
    int d = p->d, nc = p->nc;
    L->cptr = fc_calloc((size_t)nc + 1, sizeof *L->cptr);
    L->cbody = fc_calloc((size_t)Ht->nnz + 1, sizeof *L->cbody);
    if (!L->cptr || !L->cbody) return 1;
    int k = 0;
    for (int a = 0; a < nc; a++) {
        for (int t = Ht->p[d * a]; t < Ht->p[d * a + d]; t++) {
            int b = L->dof_body[Ht->j[t]], seen = 0;
            for (int s = L->cptr[a]; s < k && !seen; s++) seen = L->cbody[s] == b;
            if (!seen) L->cbody[k++] = b;
        }
        L->cptr[a + 1] = k;
    }
    return 0;
}

/* Bodies a contact may touch before contact_bodies falls back on H^T. */
#define CONTACT_BODIES_MAX 4

/* The same lists from H's rows, without H^T: each body of contact a keyed
 * by its first place in that scan (component k, dof j: k n + j), the
 * bodies sorted by key. */
static int contact_bodies(const fc_problem *p, const fc_matrix *Hc, fc_dist_layout *L)
{
    int d = p->d, nc = p->nc, n = p->n, over = 0, ret = 1;
    size_t cap = (size_t)nc * CONTACT_BODIES_MAX + 1;
    int *cnt = fc_calloc((size_t)nc + 1, sizeof *cnt), *sb = fc_calloc(cap, sizeof *sb);
    long *key = fc_calloc(cap, sizeof *key);
    if (!cnt || !sb || !key) goto out;
    for (int j = 0; j < n && !over; j++) {
        int b = L->dof_body[j];
        for (int t = Hc->p[j]; t < Hc->p[j + 1]; t++) {
            int a = d == 3 ? Hc->j[t] / 3 : Hc->j[t] / d, m = cnt[a], q = 0;   /* d = 3: no division */
            long kk = (long)(Hc->j[t] - d * a) * n + j;
            int *s = sb + (size_t)a * CONTACT_BODIES_MAX;
            long *ky = key + (size_t)a * CONTACT_BODIES_MAX;
            while (q < m && s[q] != b) q++;
            if (q < m) { if (kk < ky[q]) ky[q] = kk; }
            else if (m == CONTACT_BODIES_MAX) over = 1;
            else { s[m] = b; ky[m] = kk; cnt[a] = m + 1; }
        }
    }
    if (over) {   /* a contact of many bodies: through H^T */
        fc_matrix *Ht = fc_csr_transpose(Hc);
        ret = !Ht || contact_bodies_t(p, Ht, L);
        fc_matrix_free(Ht);
        goto out;
    }
    long tot = 0;
    for (int a = 0; a < nc; a++) tot += cnt[a];
    L->cptr = fc_calloc((size_t)nc + 1, sizeof *L->cptr);
    L->cbody = fc_calloc((size_t)tot + 1, sizeof *L->cbody);
    if (!L->cptr || !L->cbody) goto out;
    for (int a = 0; a < nc; a++) {
        int *s = sb + (size_t)a * CONTACT_BODIES_MAX, m = cnt[a];
        long *ky = key + (size_t)a * CONTACT_BODIES_MAX;
        for (int q = 1; q < m; q++)   /* by key, insertion */
            for (int r = q; r > 0 && ky[r] < ky[r - 1]; r--) {
                long tk = ky[r]; ky[r] = ky[r - 1]; ky[r - 1] = tk;
                int tb = s[r]; s[r] = s[r - 1]; s[r - 1] = tb;
            }
        memcpy(L->cbody + L->cptr[a], s, (size_t)m * sizeof *s);
        L->cptr[a + 1] = L->cptr[a] + m;
    }
    ret = 0;
out:
    free(cnt); free(sb); free(key);
    return ret;
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* The ranks a body is local to: its part and the owners of its contacts
 * (sorted, distinct) in brank[bptr[b] .. bptr[b+1]); nsplit_all[b] the
 * number of distinct owners of its contacts. */
static int body_ranks(const fc_problem *p, fc_dist_layout *L, int **bptr, int **brank, int **nsplit_all)
{
    int nb = L->nb, nc = p->nc;
    int *cnt = fc_calloc((size_t)nb + 2, sizeof *cnt);
    int *ns = fc_calloc((size_t)nb + 1, sizeof *ns);
    int *rk = fc_calloc((size_t)L->cptr[nc] + nb + 1, sizeof *rk);
    if (!cnt || !ns || !rk) { free(cnt); free(ns); free(rk); return 1; }
    for (int s = 0; s < L->cptr[nc]; s++) cnt[L->cbody[s] + 1]++;
    for (int b = 0; b < nb; b++) cnt[b + 1] += cnt[b] + 1;
    int *fill = fc_calloc((size_t)nb + 1, sizeof *fill);
    if (!fill) { free(cnt); free(ns); free(rk); return 1; }
    for (int a = 0; a < nc; a++)
        for (int s = L->cptr[a]; s < L->cptr[a + 1]; s++) {
            int b = L->cbody[s];
            rk[cnt[b] + fill[b]++] = L->owner[a];
        }
    /* compact: sort each body's owners, count them, add the part */
    int k = 0;
    for (int b = 0; b < nb; b++) {
        int *x = rk + cnt[b], m = fill[b];
        qsort(x, (size_t)m, sizeof *x, cmp_int);
        int start = k, owners = 0;
        for (int i = 0; i < m; i++)
            if (i == 0 || x[i] != x[i - 1]) { rk[k++] = x[i]; owners++; }
        ns[b] = owners > 0 ? owners : 1;
        int has = 0;
        for (int i = start; i < k; i++) has |= rk[i] == L->part[b];
        if (!has) {   /* insert the part in order */
            int i = k++;
            while (i > start && rk[i - 1] > L->part[b]) { rk[i] = rk[i - 1]; i--; }
            rk[i] = L->part[b];
        }
        cnt[b] = start;   /* cnt[b] <= the old cnt[b]: nothing unread is overwritten */
    }
    cnt[nb] = k;
    free(fill);
    *bptr = cnt;
    *brank = rk;
    *nsplit_all = ns;
    return 0;
}

/* This rank's part: owned contacts, local bodies, interface, neighbours. */
static int local_part(const fc_problem *p, fc_dist_layout *L, const int *bptr, const int *brank,
                      const int *ns)
{
    int nb = L->nb, nc = p->nc, me = L->rank;
    L->own = fc_calloc((size_t)nc + 1, sizeof *L->own);
    L->loc = fc_calloc((size_t)nb + 1, sizeof *L->loc);
    L->glob2loc = fc_calloc((size_t)nb + 1, sizeof *L->glob2loc);
    L->loff = fc_calloc((size_t)nb + 2, sizeof *L->loff);
    L->nsplit = fc_calloc((size_t)nb + 1, sizeof *L->nsplit);
    L->ifb = fc_calloc((size_t)nb + 1, sizeof *L->ifb);
    int *isnb = fc_calloc((size_t)L->size + 1, sizeof *isnb);
    if (!L->own || !L->loc || !L->glob2loc || !L->loff || !L->nsplit || !L->ifb || !isnb) {
        free(isnb);
        return 1;
    }
    for (int a = 0; a < nc; a++) if (L->owner[a] == me) L->own[L->nown++] = a;
    for (int b = 0; b < nb; b++) {
        L->glob2loc[b] = -1;
        int mine = 0;
        for (int t = bptr[b]; t < bptr[b + 1]; t++) mine |= brank[t] == me;
        if (!mine) continue;
        int i = L->nloc++;
        L->glob2loc[b] = i;
        L->loc[i] = b;
        L->loff[i + 1] = L->loff[i] + L->bstart[b + 1] - L->bstart[b];
        L->nsplit[i] = ns[b];
        if (bptr[b + 1] - bptr[b] > 1) {
            L->ifb[L->nif++] = i;
            for (int t = bptr[b]; t < bptr[b + 1]; t++) if (brank[t] != me) isnb[brank[t]] = 1;
        }
    }
    for (int j = 0; j < L->size; j++) L->nnb += isnb[j];
    L->nbr = fc_calloc((size_t)L->nnb + 1, sizeof *L->nbr);
    L->nptr = fc_calloc((size_t)L->nnb + 2, sizeof *L->nptr);
    L->nbuf = fc_calloc((size_t)L->nnb + 2, sizeof *L->nbuf);
    if (!L->nbr || !L->nptr || !L->nbuf) { free(isnb); return 1; }
    for (int j = 0, k = 0; j < L->size; j++) if (isnb[j]) { isnb[j] = k; L->nbr[k++] = j; } else isnb[j] = -1;
    /* shared lists: two passes (count, fill) over the interface bodies */
    for (int pass = 0; pass < 2; pass++) {
        int *cur = pass ? fc_calloc((size_t)L->nnb + 1, sizeof *cur) : NULL;
        if (pass && !cur) { free(isnb); return 1; }
        for (int s = 0; s < L->nif; s++) {
            int i = L->ifb[s], b = L->loc[i], sz = L->loff[i + 1] - L->loff[i];
            for (int t = bptr[b]; t < bptr[b + 1]; t++) {
                if (brank[t] == me) continue;
                int k = isnb[brank[t]];
                if (!pass) { L->nptr[k + 1]++; L->nbuf[k + 1] += sz; }
                else L->nlist[L->nptr[k] + cur[k]++] = i;
            }
        }
        if (!pass) {
            for (int k = 0; k < L->nnb; k++) { L->nptr[k + 1] += L->nptr[k]; L->nbuf[k + 1] += L->nbuf[k]; }
            L->nlist = fc_calloc((size_t)L->nptr[L->nnb] + 1, sizeof *L->nlist);
            if (!L->nlist) { free(isnb); return 1; }
        }
        free(cur);
    }
    free(isnb);
    return 0;
}

int fc_dist_layout_build(const fc_problem *p, const fc_matrix *Mc, const fc_matrix *Hc, const double *r,
                         int active_cost, MPI_Comm comm, fc_dist_layout *L, char *msg, size_t len)
{
    memset(L, 0, sizeof *L);
    L->comm = comm;
    MPI_Comm_rank(comm, &L->rank);
    MPI_Comm_size(comm, &L->size);
    int n = p->n, nc = p->nc, ret = 1;
    int *bptr = NULL, *brank = NULL, *ns = NULL;
    L->dof_body = fc_calloc((size_t)n + 1, sizeof *L->dof_body);
    L->dof_pos = fc_calloc((size_t)n + 1, sizeof *L->dof_pos);
    L->bdof = fc_calloc((size_t)n + 1, sizeof *L->bdof);
    L->owner = fc_calloc((size_t)nc + 1, sizeof *L->owner);
    snprintf(msg, len, "out of memory");
    if (!L->dof_body || !L->dof_pos || !L->bdof || !L->owner) goto out;
    if ((L->nb = find_bodies(p, Mc, Hc, L)) < 0) goto out;
    for (int b = 0; b < L->nb; b++)
        if (L->bstart[b + 1] - L->bstart[b] > FC_DIST_MAX_BODY) {
            snprintf(msg, len, "a diagonal block of M has %d dofs (dist-nsgs inverts at most %d densely)",
                     L->bstart[b + 1] - L->bstart[b], FC_DIST_MAX_BODY);
            goto out;
        }
    if (contact_bodies(p, Hc, L)) goto out;
    if (!(L->part = fc_calloc((size_t)L->nb + 1, sizeof *L->part))) goto out;
    int failed = 0;
    clock_t c0 = clock();
    if (L->rank == 0) {   /* the contacts active in the starting r weigh active_cost (dist.active_cost) */
        unsigned char *act = fc_calloc((size_t)nc + 1, 1);
        if (act) for (int a = 0; a < nc; a++) act[a] = r[(size_t)p->d * a] > 0.0;
        failed = !act || fc_dist_partition(L->nb, nc, L->cptr, L->cbody, act, active_cost, L->size, L->part);
        free(act);
    }
    L->cpu_part = (double)(clock() - c0) / CLOCKS_PER_SEC;
    /* the wait for rank 0's partition, or on rank 0 for a slower rank: the
     * part's broadcast (nb ints, past Open MPI's eager size) waits for its
     * receivers, the first (one int) does not */
    double t0 = fc_now();
    MPI_Bcast(&failed, 1, MPI_INT, 0, comm);
    if (!failed) MPI_Bcast(L->part, L->nb, MPI_INT, 0, comm);
    L->wait_part = fc_now() - t0;
    if (failed) goto out;
    for (int a = 0; a < nc; a++) {   /* the lowest-numbered body's rank */
        int lo = -1;
        for (int s = L->cptr[a]; s < L->cptr[a + 1]; s++) if (lo < 0 || L->cbody[s] < lo) lo = L->cbody[s];
        L->owner[a] = lo < 0 ? 0 : L->part[lo];
    }
    if (body_ranks(p, L, &bptr, &brank, &ns) || local_part(p, L, bptr, brank, ns)) goto out;
    ret = 0;
out:
    free(bptr); free(brank); free(ns);
    if (ret) fc_dist_layout_free(L);
    return ret;
}

void fc_dist_layout_free(fc_dist_layout *L)
{
    free(L->bstart); free(L->bdof); free(L->dof_body); free(L->dof_pos);
    free(L->cptr); free(L->cbody); free(L->part); free(L->owner);
    free(L->own); free(L->loc); free(L->glob2loc); free(L->loff); free(L->nsplit);
    free(L->ifb); free(L->nbr); free(L->nptr); free(L->nlist); free(L->nbuf);
    MPI_Comm c = L->comm;
    memset(L, 0, sizeof *L);
    L->comm = c;
}
