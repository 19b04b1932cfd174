/* Greedy colourings of the contacts (colour.h). */
#include "internal.h"
#include "matrix/colour.h"

void fc_colouring_free(fc_colouring *c)
{
    free(c->start);
    free(c->member);
    memset(c, 0, sizeof *c);
}

/* The members by colour (a stable counting sort of the contacts), the
 * greedy's colours numbered backwards: its last colours, the few contacts
 * with many coloured neighbours, are swept first (fewer sweeps than the
 * greedy's own order on every problem tried, docs/solvers.md#nsgs-psor). */
static int gather(int n, int ncolours, int *colour, fc_colouring *c)
{
    for (int a = 0; a < n; a++) colour[a] = ncolours - 1 - colour[a];
    c->n = n;
    c->ncolours = ncolours;
    c->start = fc_calloc((size_t)ncolours + 1, sizeof *c->start);
    c->member = fc_calloc((size_t)n + 1, sizeof *c->member);
    if (!c->start || !c->member) { fc_colouring_free(c); return -1; }
    for (int a = 0; a < n; a++) c->start[colour[a] + 1]++;
    for (int k = 0; k < ncolours; k++) c->start[k + 1] += c->start[k];
    int *next = fc_calloc((size_t)ncolours + 1, sizeof *next);
    if (!next) { fc_colouring_free(c); return -1; }
    memcpy(next, c->start, (size_t)ncolours * sizeof *next);
    for (int a = 0; a < n; a++) c->member[next[colour[a]]++] = a;
    free(next);
    return 0;
}

/* The smallest colour not stamped with `stamp` in mark (max_colours + 1
 * entries). */
static int first_free(const int *mark, int stamp, int max_colours)
{
    int k = 0;
    while (k < max_colours && mark[k] == stamp) k++;
    return k;
}

static int block_nonzero(const double *B, int bs)
{
    for (int k = 0; k < bs * bs; k++)
        if (B[k] != 0.0) return 1;
    return 0;
}

int fc_colour_blocks(const fc_matrix *W, int max_colours, fc_colouring *c)
{
    memset(c, 0, sizeof *c);
    if (W->kind != FC_MAT_BSR) return -1;
    int n = W->rows / W->bs, bs = W->bs;
    if (max_colours > n) max_colours = n;
    /* low[a]: the neighbours b < a, through W_ab or W_ba (duplicates
     * harmless), as CSR lists */
    int *lp = fc_calloc((size_t)n + 1, sizeof *lp);
    int *colour = fc_calloc((size_t)n + 1, sizeof *colour);
    int *mark = fc_calloc((size_t)max_colours + 1, sizeof *mark);
    if (!lp || !colour || !mark) { free(lp); free(colour); free(mark); return -1; }
    for (int a = 0; a < n; a++)
        for (int k = W->p[a]; k < W->p[a + 1]; k++) {
            int b = W->j[k];
            if (b != a && block_nonzero(W->x + (size_t)k * bs * bs, bs)) lp[(a > b ? a : b) + 1]++;
        }
    for (int a = 0; a < n; a++) lp[a + 1] += lp[a];
    int *lj = fc_calloc((size_t)lp[n] + 1, sizeof *lj);
    if (!lj) { free(lp); free(colour); free(mark); return -1; }
    int *fill = colour;   /* the fill pointers first, the colours after */
    memcpy(fill, lp, (size_t)n * sizeof *fill);
    for (int a = 0; a < n; a++)
        for (int k = W->p[a]; k < W->p[a + 1]; k++) {
            int b = W->j[k];
            if (b != a && block_nonzero(W->x + (size_t)k * bs * bs, bs))
                lj[fill[a > b ? a : b]++] = a > b ? b : a;
        }
    int ncolours = 0, rc = 0;
    for (int a = 0; a < n && !rc; a++) {
        for (int k = lp[a]; k < lp[a + 1]; k++) mark[colour[lj[k]]] = a + 1;
        int col = first_free(mark, a + 1, max_colours);
        if (col >= max_colours) rc = 1;
        colour[a] = col;
        if (col + 1 > ncolours) ncolours = col + 1;
    }
    if (!rc) rc = gather(n, ncolours, colour, c);
    free(lp); free(lj); free(colour); free(mark);
    return rc;
}

/* Append contact a to the list of unknown k unless it is there already
 * (contacts are appended in increasing order). */
static void touch(int *cnt, int *list, const int *cp, int k, int a)
{
    if (cnt[k] > 0 && list[cp[k] + cnt[k] - 1] == a) return;
    list[cp[k] + cnt[k]++] = a;
}

int fc_colour_shared(int nc, int d, const fc_matrix *A, const fc_matrix *B, int ncols,
                     int max_colours, fc_colouring *c)
{
    memset(c, 0, sizeof *c);
    const fc_matrix *S[2] = {A, B};
    if (max_colours > nc) max_colours = nc;
    /* cp: for each unknown, the contacts touching it (at most the entries
     * of the rows that name it), increasing */
    int *cp = fc_calloc((size_t)ncols + 1, sizeof *cp);
    int *cnt = fc_calloc((size_t)ncols + 1, sizeof *cnt);
    int *colour = fc_calloc((size_t)nc + 1, sizeof *colour);
    int *mark = fc_calloc((size_t)max_colours + 1, sizeof *mark);
    int *list = NULL, rc = -1;
    if (!cp || !cnt || !colour || !mark) goto done;
    for (int s = 0; s < 2; s++)
        for (long k = 0; S[s] && k < S[s]->p[(size_t)d * nc]; k++) cp[S[s]->j[k] + 1]++;
    for (int k = 0; k < ncols; k++) cp[k + 1] += cp[k];
    if (!(list = fc_calloc((size_t)cp[ncols] + 1, sizeof *list))) goto done;
    for (int a = 0; a < nc; a++)
        for (int s = 0; s < 2; s++)
            for (int k = S[s] ? S[s]->p[d * a] : 0; S[s] && k < S[s]->p[d * a + d]; k++)
                touch(cnt, list, cp, S[s]->j[k], a);
    rc = 0;
    for (int k = 0; k < ncols && !rc; k++) rc = cnt[k] > max_colours;
    int ncolours = 0;
    for (int a = 0; a < nc && !rc; a++) {
        for (int s = 0; s < 2; s++)
            for (int k = S[s] ? S[s]->p[d * a] : 0; S[s] && k < S[s]->p[d * a + d]; k++) {
                int u = S[s]->j[k];
                for (int q = cp[u]; q < cp[u] + cnt[u] && list[q] < a; q++)
                    mark[colour[list[q]]] = a + 1;
            }
        int col = first_free(mark, a + 1, max_colours);
        if (col >= max_colours) rc = 1;
        colour[a] = col;
        if (col + 1 > ncolours) ncolours = col + 1;
    }
    if (!rc) rc = gather(nc, ncolours, colour, c);
done:
    free(cp); free(cnt); free(colour); free(mark); free(list);
    return rc;
}

/* The group of piece k of an order cut in per * phases pieces: phase k %
 * phases, the groups numbered phase by phase. */
static int piece_group(int k, int per, int phases)
{
    return k % phases * per + k / phases;
}

/* The stretch of each contact: cuts at equal shares of weight w (the
 * cumulative weight cw[0..n], increasing), stretch[a] in 0 .. S-1. */
static void cut(int n, const long *cw, int S, int *stretch)
{
    long total = cw[n];
    int s = 0;
    for (int a = 0; a < n; a++) {
        while (s + 1 < S && cw[a] >= (total * (s + 1) + S - 1) / S) s++;
        stretch[a] = s;
    }
}

/* The groups from the stretches (in P phases) and the interface flags (iface[a] != 0). */
static int gather_stretches(int n, int S, int P, const int *stretch, const char *iface,
                            fc_colouring *c)
{
    c->n = n;
    c->ncolours = S + 1;
    c->stretches = S;
    c->phases = P;
    c->start = fc_calloc((size_t)S + 2, sizeof *c->start);
    c->member = fc_calloc((size_t)n + 1, sizeof *c->member);
    if (!c->start || !c->member) { fc_colouring_free(c); return -1; }
    for (int a = 0; a < n; a++) c->start[(iface[a] ? S : stretch[a]) + 1]++;
    for (int k = 0; k <= S; k++) c->start[k + 1] += c->start[k];
    int *next = fc_calloc((size_t)S + 2, sizeof *next);
    if (!next) { fc_colouring_free(c); return -1; }
    memcpy(next, c->start, (size_t)(S + 1) * sizeof *next);
    for (int a = 0; a < n; a++) c->member[next[iface[a] ? S : stretch[a]]++] = a;
    free(next);
    return 0;
}

/* Breadth first over W's block graph (its nonzero off-diagonal blocks)
 * from contact `from`, then each other component from its lowest
 * contact: order[0 .. n-1] the contacts as reached (seen: n bytes of
 * scratch; n > 0).  The last contact reached in from's component. */
static int bfs_blocks(const fc_matrix *W, int from, int *order, char *seen)
{
    int n = W->rows / W->bs, bs = W->bs, head = 0, tail = 0, next = 0, last = -1;
    memset(seen, 0, (size_t)n);
    seen[from] = 1;
    order[tail++] = from;
    while (head < n) {
        if (head == tail) {   /* a component done: the next from its lowest contact */
            if (last < 0) last = order[tail - 1];
            while (seen[next]) next++;
            seen[next] = 1;
            order[tail++] = next;
        }
        int a = order[head++];
        for (int k = W->p[a]; k < W->p[a + 1]; k++) {
            int b = W->j[k];
            if (!seen[b] && block_nonzero(W->x + (size_t)k * bs * bs, bs)) {
                seen[b] = 1;
                order[tail++] = b;
            }
        }
    }
    return last < 0 ? order[n - 1] : last;
}

/* Contact a's weight in the stretches' shares: weight[a], or W's blocks. */
static long stretch_weight(const fc_matrix *W, const long *weight, int a)
{
    return weight ? weight[a] : W->p[a + 1] - W->p[a];
}

int fc_stretch_blocks(const fc_matrix *W, int stretches, int phases, const long *weight,
                      int spatial, fc_colouring *c)
{
    memset(c, 0, sizeof *c);
    if (W->kind != FC_MAT_BSR || stretches < 1 || phases < 1) return -1;
    int n = W->rows / W->bs, bs = W->bs, rc = -1, G = stretches * phases;
    long *cw = fc_calloc((size_t)n + 1, sizeof *cw);
    int *stretch = fc_calloc((size_t)n + 1, sizeof *stretch);
    int *order = spatial ? fc_calloc((size_t)n + 1, sizeof *order) : NULL;
    int *at = fc_calloc((size_t)n + 1, sizeof *at);   /* by position */
    char *iface = fc_calloc((size_t)n + 1, 1);
    if (cw && stretch && iface && at && (!spatial || order)) {
        if (spatial && n > 0) {   /* from a far contact: the last reached from contact 0 */
            bfs_blocks(W, bfs_blocks(W, 0, order, iface), order, iface);
            memset(iface, 0, (size_t)n);
        }
        for (int k = 0; k < n; k++) {
            int a = order ? order[k] : k;
            cw[k + 1] = cw[k] + stretch_weight(W, weight, a);
        }
        cut(n, cw, G, at);
        for (int k = 0; k < n; k++) stretch[order ? order[k] : k] = piece_group(at[k], stretches, phases);
        /* A vertex separator: of two coupled contacts of two groups of one
         * phase, the one of the group with the more weight left goes to the
         * interface (one layer of contacts rather than both sides of the
         * cut, and the groups' interiors kept even). */
        long *left = fc_calloc((size_t)G, sizeof *left);
        if (left) {
            for (int a = 0; a < n; a++) left[stretch[a]] += stretch_weight(W, weight, a);
            for (int a = 0; a < n; a++)
                for (int k = W->p[a]; k < W->p[a + 1] && !iface[a]; k++) {
                    int b = W->j[k];
                    if (iface[b] || stretch[b] == stretch[a] || stretch[b] / stretches != stretch[a] / stretches ||
                        !block_nonzero(W->x + (size_t)k * bs * bs, bs))
                        continue;
                    int out = left[stretch[a]] >= left[stretch[b]] ? a : b;
                    iface[out] = 1;
                    left[stretch[out]] -= stretch_weight(W, weight, out);
                }
            rc = gather_stretches(n, G, phases, stretch, iface, c);
            free(left);
        }
    }
    free(cw); free(stretch); free(order); free(iface); free(at);
    return rc;
}

/* The interface of the parts stretch[] (0 .. G-1; -1: the interface) of
 * the contacts in P phases (part g in phase g / (G / P)): also a contact
 * touching an unknown that another part of its phase touches
 * (fc_stretch_shared, fc_parts_shared). */
static int shared_interface(int nc, int d, const fc_matrix *A, const fc_matrix *B, int ncols,
                            int G, int P, const int *stretch, fc_colouring *c)
{
    const fc_matrix *S[2] = {A, B};
    int rc = -1, per = G / P;
    int *owner = fc_calloc((size_t)ncols * P + 1, sizeof *owner);   /* the part of each phase touching u */
    char *clash = fc_calloc((size_t)ncols + 1, 1);                    /* u touched by two parts of a phase */
    char *iface = fc_calloc((size_t)nc + 1, 1);
    if (owner && clash && iface) {
        for (size_t k = 0; k < (size_t)ncols * P; k++) owner[k] = -1;
        for (int a = 0; a < nc; a++)
            for (int s = 0; s < 2 && stretch[a] >= 0; s++)
                for (int k = S[s] ? S[s]->p[d * a] : 0; S[s] && k < S[s]->p[d * a + d]; k++) {
                    int *o = owner + (size_t)S[s]->j[k] * P + stretch[a] / per;
                    if (*o < 0) *o = stretch[a];
                    else if (*o != stretch[a]) clash[S[s]->j[k]] = 1;
                }
        for (int a = 0; a < nc; a++) {
            iface[a] = stretch[a] < 0;
            for (int s = 0; s < 2; s++)
                for (int k = S[s] ? S[s]->p[d * a] : 0; S[s] && k < S[s]->p[d * a + d]; k++)
                    if (clash[S[s]->j[k]]) iface[a] = 1;
        }
        rc = gather_stretches(nc, G, P, stretch, iface, c);
    }
    free(owner); free(clash); free(iface);
    return rc;
}

int fc_stretch_shared(int nc, int d, const fc_matrix *A, const fc_matrix *B, int ncols,
                      int stretches, int phases, fc_colouring *c)
{
    memset(c, 0, sizeof *c);
    if (stretches < 1 || phases < 1) return -1;
    int rc = -1, G = stretches * phases;
    long *cw = fc_calloc((size_t)nc + 1, sizeof *cw);
    int *stretch = fc_calloc((size_t)nc + 1, sizeof *stretch);
    if (cw && stretch) {
        for (int a = 0; a < nc; a++) cw[a + 1] = a + 1;
        cut(nc, cw, G, stretch);
        for (int a = 0; a < nc; a++) stretch[a] = piece_group(stretch[a], stretches, phases);
        rc = shared_interface(nc, d, A, B, ncols, G, phases, stretch, c);
    }
    free(cw); free(stretch);
    return rc;
}

int fc_parts_shared(int nc, int d, const fc_matrix *A, const fc_matrix *B, int ncols,
                    int parts, int phases, const int *part, fc_colouring *c)
{
    memset(c, 0, sizeof *c);
    for (int a = 0; a < nc; a++)
        if (part[a] < -1 || part[a] >= parts) return -1;
    return parts < 1 || phases < 1 || parts % phases ? -1
                                                     : shared_interface(nc, d, A, B, ncols, parts, phases, part, c);
}

/* Breadth first over the bodies from `from` (level[] -1 where unreached),
 * the levels from base on; queue: the bodies reached, in order.  The
 * count reached. */
static int bfs_bodies(int from, int base, const int *bp, const int *bc, const int *body,
                      int *level, int *queue)
{
    int head = 0, tail = 0;
    level[from] = base;
    queue[tail++] = from;
    while (head < tail) {
        int b = queue[head++];
        for (int k = bp[b]; k < bp[b + 1]; k++) {
            int a = bc[k];
            for (int e = 0; e < 2; e++) {
                int o = body[2 * a + e];
                if (o < 0 || level[o] >= 0) continue;
                level[o] = level[b] + 1;
                queue[tail++] = o;
            }
        }
    }
    return tail;
}

void fc_body_contacts(int nc, int nb, const int *body, int *ptr, int *con)
{
    memset(ptr, 0, ((size_t)nb + 1) * sizeof *ptr);
    for (int a = 0; a < 2 * nc; a++) if (body[a] >= 0) ptr[body[a] + 1]++;
    for (int b = 0; b < nb; b++) ptr[b + 1] += ptr[b];
    for (int a = 0; a < 2 * nc; a++) if (body[a] >= 0) con[ptr[body[a]]++] = a / 2;
    for (int b = nb; b > 0; b--) ptr[b] = ptr[b - 1];   /* the fill moved each start one body on */
    ptr[0] = 0;
}

int fc_level_parts(int nc, int nb, const int *body, const int *weight, int parts, int phases, int *part)
{
    int rc = -1;
    int *bp = fc_calloc((size_t)nb + 2, sizeof *bp), *bc = fc_calloc((size_t)2 * nc + 1, sizeof *bc);
    int *level = fc_calloc((size_t)nb + 1, sizeof *level), *queue = fc_calloc((size_t)nb + 1, sizeof *queue);
    long *cum = NULL;
    if (!bp || !bc || !level || !queue || parts < 1) goto out;
    fc_body_contacts(nc, nb, body, bp, bc);
    for (int b = 0; b < nb; b++) level[b] = -1;
    /* each component from a pseudo-peripheral body: the last one reached
     * from the body of its first contact, its levels after the previous
     * component's */
    int base = 0;
    for (int a = 0; a < 2 * nc; a++) {
        int b = body[a];
        if (b < 0 || level[b] >= 0) continue;
        int cnt = bfs_bodies(b, 0, bp, bc, body, level, queue), far = queue[cnt - 1];
        for (int k = 0; k < cnt; k++) level[queue[k]] = -1;
        cnt = bfs_bodies(far, base, bp, bc, body, level, queue);
        base = level[queue[cnt - 1]] + 1;
    }
    /* the bodies by level (file order within one), cut at equal shares of
     * their weights: a contact's weight shared by its bodies */
    long *bw = fc_calloc((size_t)nb + 1, sizeof *bw);
    if (!bw || !(cum = fc_calloc((size_t)base + 2, sizeof *cum))) { free(bw); goto out; }
    long total = 0;
    for (int a = 0; a < nc; a++) {
        int ends = (body[2 * a] >= 0) + (body[2 * a + 1] >= 0);
        long wa = weight ? weight[a] : 1;
        for (int e = 0; e < 2; e++)
            if (body[2 * a + e] >= 0) bw[body[2 * a + e]] += ends == 1 ? 2 * wa : wa;
        total += ends ? 2 * wa : 0;
    }
    for (int b = 0; b < nb; b++) if (level[b] >= 0) cum[level[b] + 1]++;
    for (int l = 0; l < base; l++) cum[l + 1] += cum[l];
    for (int b = 0; b < nb; b++) if (level[b] >= 0) queue[cum[level[b]]++] = b;
    long before = 0;
    int *bpart = fc_calloc((size_t)nb + 1, sizeof *bpart);
    if (!bpart) { free(bw); goto out; }
    for (long k = 0; k < cum[base]; k++) {   /* cum[base]: the bodies reached */
        int b = queue[k];
        bpart[b] = total > 0 ? (int)(before * parts / total) : 0;
        before += bw[b];
    }
    /* a contact: its bodies' slab; when they differ, -1 (the interface),
     * or in phases the lower slab (the slab next to it is of the other
     * phase), numbered as its piece */
    for (int a = 0; a < nc; a++) {
        int pa = -2;
        for (int e = 0; e < 2; e++) {
            int b = body[2 * a + e];
            if (b < 0) continue;
            pa = pa == -2 || pa == bpart[b] ? bpart[b] : phases > 1 ? (pa < bpart[b] ? pa : bpart[b]) : -1;
        }
        pa = pa == -2 ? 0 : pa;
        part[a] = pa < 0 ? -1 : piece_group(pa, parts / phases, phases);
    }
    free(bpart);
    free(bw);
    rc = 0;
out:
    free(bp); free(bc); free(level); free(queue); free(cum);
    return rc;
}
