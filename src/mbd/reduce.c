/* The step's local problem W = H^T M^-1 H, q = H^T M^-1 f + w, built from
 * the contacts and the block-diagonal M directly: M^-1 is 1/m on the
 * translations and R diag(1/I) R^T on the rotations of each body, and
 * W_ab = sum over the moving bodies k shared by contacts a and b of
 * J_ak^T M_k^-1 J_bk (J_ak the 6 x 3 rows of H of body k, contact a).
 * Cost O(sum over bodies of (contacts per body)^2), against O(n m) for a
 * general sparse solve with m right-hand sides.  Recovery
 * v_k = M_k^-1 (f_k + sum_a J_ak r_a). */
#include "mbd/mbd.h"

#include <limits.h>

/* The 6 x 3 block of H (row-major [6][3]) of body bi in contact ct. */
static void jacobian(const fc_mbd_world *w, const fc_mbd_contact *ct, int bi, double J[6][3])
{
    const double *dir[3] = {ct->n, ct->t1, ct->t2};
    double sign = bi == ct->a ? 1.0 : -1.0, arm[3], rot[3];
    for (int d = 0; d < 3; d++) arm[d] = ct->p[d] - w->bodies[bi].x[d];
    for (int e = 0; e < 3; e++) {
        v3_cross(arm, dir[e], rot);
        for (int r = 0; r < 3; r++) {
            J[r][e] = sign * dir[e][r];
            J[3 + r][e] = sign * rot[r];
        }
    }
}

/* M_k^-1 x for a 6-vector (in place allowed). */
static void minv_apply(const fc_mbd_body *b, const double R[9], const double *x, double *y)
{
    double l[3], t[6];
    for (int k = 0; k < 3; k++) t[k] = x[k] / b->mass;
    for (int k = 0; k < 3; k++)
        l[k] = (R[k] * x[3] + R[3 + k] * x[4] + R[6 + k] * x[5]) / b->inertia[k];
    for (int k = 0; k < 3; k++) t[3 + k] = R[3 * k] * l[0] + R[3 * k + 1] * l[1] + R[3 * k + 2] * l[2];
    memcpy(y, t, sizeof t);
}

/* Contact c's neighbours in W (c among them): the contacts of its moving
 * bodies, in increasing order and once each, the merge of the two bodies'
 * lists (list[start[k] .. start[k + 1]], increasing).  Written to out
 * unless NULL; their count. */
static int neighbours(const fc_mbd_world *w, const int *start, const int *list, int c, int *out)
{
    const fc_mbd_contact *ct = &w->contacts[c];
    const int *a = list, *ae = list, *b = list, *be = list;
    if (!w->bodies[ct->a].fixed) { a = list + start[ct->a]; ae = list + start[ct->a + 1]; }
    if (!w->bodies[ct->b].fixed) { b = list + start[ct->b]; be = list + start[ct->b + 1]; }
    int n = 0, last = -1;
    while (a < ae || b < be) {
        int x = b == be || (a < ae && *a <= *b) ? *a++ : *b++;
        if (x == last) continue;
        if (out) out[n] = x;
        n++;
        last = x;
    }
    return n;
}

fc_err fc_mbd_reduce(const fc_mbd_world *w, const fc_problem *g, fc_mbd_reduced *red, fc_error *err)
{
    int nc = w->ncontacts, nb = w->nbodies;
    memset(red, 0, sizeof *red);
    /* contacts of each moving body (CSR) */
    int *start = fc_calloc((size_t)nb + 1, sizeof *start), *fill = fc_calloc((size_t)nb + 1, sizeof *fill);
    int *list = fc_calloc(2 * (size_t)nc + 1, sizeof *list);
    /* M^-1 J and J per side, written for the moving bodies' sides (the
     * only ones read) */
    double *G = fc_malloc((size_t)nc * 2 * 18, sizeof *G);
    double *J = fc_malloc((size_t)nc * 2 * 18, sizeof *J);
    double *Rb = fc_calloc((size_t)nb * 9, sizeof *Rb);
    int *rowp = NULL;
    fc_problem *loc = fc_problem_new(FC_LOCAL, 3, nc);
    if (!start || !fill || !list || !G || !J || !Rb || !loc) goto nomem;
    /* the loops over bodies, contacts and W's block rows are threaded
     * (each writes its own entries: the result of any thread count) */
    FC_PAR_FOR(nb, , for (int i = 0; i < nb; i++) { fc_mbd_quat_matrix(w->bodies[i].q, Rb + 9 * i); });
    for (int c = 0; c < nc; c++)
        for (int s = 0; s < 2; s++) {
            int bi = s ? w->contacts[c].b : w->contacts[c].a;
            if (!w->bodies[bi].fixed) start[bi + 1]++;
        }
    FC_PAR_FOR(nc, , for (int c = 0; c < nc; c++) {
        const fc_mbd_contact *ct = &w->contacts[c];
        int side[2] = {ct->a, ct->b};
        for (int s = 0; s < 2; s++) {
            int bi = side[s];
            if (w->bodies[bi].fixed) continue;
            double Jb[6][3], col[6];
            jacobian(w, ct, bi, Jb);
            for (int e = 0; e < 3; e++) {
                for (int r = 0; r < 6; r++) col[r] = Jb[r][e];
                minv_apply(&w->bodies[bi], Rb + 9 * bi, col, col);
                for (int r = 0; r < 6; r++) {
                    G[(size_t)(2 * c + s) * 18 + 6 * e + r] = col[r];
                    J[(size_t)(2 * c + s) * 18 + 6 * e + r] = Jb[r][e];
                }
            }
        }
    });
    for (int i = 0; i < nb; i++) start[i + 1] += start[i];
    memcpy(fill, start, (size_t)nb * sizeof *fill);
    for (int c = 0; c < nc; c++) {
        int side[2] = {w->contacts[c].a, w->contacts[c].b};
        for (int s = 0; s < 2; s++)
            if (!w->bodies[side[s]].fixed) list[fill[side[s]]++] = c;
    }
    /* the block pattern, each row counted then written by its own thread */
    rowp = fc_calloc((size_t)nc + 1, sizeof *rowp);
    if (!rowp) goto nomem;
    FC_PAR_FOR(nc, , for (int c = 0; c < nc; c++) { rowp[c + 1] = neighbours(w, start, list, c, NULL); });
    long total = 0;
    for (int c = 0; c < nc; c++) {
        total += rowp[c + 1];
        if (total > INT_MAX) goto nomem;
        rowp[c + 1] = (int)total;
    }
    loc->W = fc_matrix_bsr_unset(3 * nc, 3 * nc, 3, total);   /* every block written below */
    loc->q = fc_calloc(3 * (size_t)nc, sizeof *loc->q);
    if (!loc->W || !loc->q) goto nomem;
    memcpy(loc->W->p, rowp, ((size_t)nc + 1) * sizeof *rowp);
    FC_PAR_FOR(nc, , for (int c = 0; c < nc; c++) { neighbours(w, start, list, c, loc->W->j + rowp[c]); });
    FC_PAR_FOR(nc, , for (int a = 0; a < nc; a++) {
        const fc_mbd_contact *ca = &w->contacts[a];
        for (int k = loc->W->p[a]; k < loc->W->p[a + 1]; k++) {
            int b = loc->W->j[k];
            const fc_mbd_contact *cb = &w->contacts[b];
            /* summed here and stored once: W's values are fresh pages
             * (calloc), and a first access that reads maps the zero page,
             * whose write then faults again and flushes every thread's TLB */
            double acc[9] = {0};
            int sa[2] = {ca->a, ca->b}, sb[2] = {cb->a, cb->b};
            for (int s = 0; s < 2; s++) {
                if (w->bodies[sa[s]].fixed) continue;
                for (int t = 0; t < 2; t++) {
                    if (sb[t] != sa[s]) continue;
                    const double *Ja = J + (size_t)(2 * a + s) * 18, *Gb = G + (size_t)(2 * b + t) * 18;
                    for (int i = 0; i < 3; i++)
                        for (int j = 0; j < 3; j++) {
                            double v = 0;
                            for (int r = 0; r < 6; r++) v += Ja[6 * i + r] * Gb[6 * j + r];
                            acc[3 * j + i] += v;
                        }
                }
            }
            memcpy(loc->W->x + 9 * (size_t)k, acc, sizeof acc); /* column-major */
        }
    });
    /* q = H^T M^-1 f + w, using the dof offsets of g */
    int o = 0;
    int *dof = fill; /* reuse: offsets of moving bodies */
    for (int i = 0; i < nb; i++) { dof[i] = w->bodies[i].fixed ? -1 : o; if (!w->bodies[i].fixed) o += 6; }
    double *y = fc_calloc((size_t)g->n + 1, sizeof *y);
    if (!y) goto nomem;
    FC_PAR_FOR(nb, , for (int i = 0; i < nb; i++) {
        if (dof[i] >= 0) minv_apply(&w->bodies[i], Rb + 9 * i, g->f + dof[i], y + dof[i]);
    });
    FC_PAR_FOR(nc, , for (int c = 0; c < nc; c++) {
        int side[2] = {w->contacts[c].a, w->contacts[c].b};
        for (int e = 0; e < 3; e++) loc->q[3 * c + e] = g->w[3 * c + e];
        for (int s = 0; s < 2; s++) {
            if (dof[side[s]] < 0) continue;
            const double *Jc = J + (size_t)(2 * c + s) * 18, *ys = y + dof[side[s]];
            for (int e = 0; e < 3; e++)
                for (int r = 0; r < 6; r++) loc->q[3 * c + e] += Jc[6 * e + r] * ys[r];
        }
    });
    free(y);
    memcpy(loc->mu, g->mu, (size_t)nc * sizeof *loc->mu);
    free(start); free(fill); free(list); free(rowp); free(Rb);
    red->local = loc;
    red->G = G;
    red->J = J;
    return FC_OK;
nomem:
    free(start); free(fill); free(list); free(G); free(J); free(Rb); free(rowp);
    fc_problem_free(loc);
    return fc_error_set(err, FC_ERR_NOMEM, "out of memory reducing the step's problem");
}

/* v = M^-1 (H r + f) = M^-1 f + sum_a G_a r_a, per moving body. */
void fc_mbd_recover_v(const fc_mbd_world *w, const fc_problem *g, const fc_mbd_reduced *red,
                      const double *r, double *v)
{
    int o = 0;
    for (int i = 0; i < w->nbodies; i++) {
        const fc_mbd_body *b = &w->bodies[i];
        if (b->fixed) continue;
        double R[9];
        fc_mbd_quat_matrix(b->q, R);
        minv_apply(b, R, g->f + o, v + o);
        o += 6;
    }
    int *dof = fc_calloc((size_t)w->nbodies + 1, sizeof *dof);
    if (!dof) return;
    o = 0;
    for (int i = 0; i < w->nbodies; i++) { dof[i] = w->bodies[i].fixed ? -1 : o; if (!w->bodies[i].fixed) o += 6; }
    for (int c = 0; c < w->ncontacts; c++) {
        int side[2] = {w->contacts[c].a, w->contacts[c].b};
        for (int s = 0; s < 2; s++) {
            if (dof[side[s]] < 0) continue;
            const double *Gc = red->G + (size_t)(2 * c + s) * 18;
            for (int e = 0; e < 3; e++)
                for (int k = 0; k < 6; k++) v[dof[side[s]] + k] += Gc[6 * e + k] * r[3 * c + e];
        }
    }
    free(dof);
}

void fc_mbd_reduced_free(fc_mbd_reduced *red)
{
    fc_problem_free(red->local);
    free(red->G);
    free(red->J);
    memset(red, 0, sizeof *red);
}
