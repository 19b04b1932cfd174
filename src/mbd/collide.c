/* Narrow phase: contacts (point, frame, gap) of a pair of shapes.
 * Sphere-sphere, sphere-plane, box-plane (8 corners), sphere-box (closest
 * point), box-box (separating axes; face clipping or edge-edge).  The normal points from body
 * b towards body a; the point is midway between the two surfaces.  A
 * contact is kept when its gap is at most the margin plus the distance
 * the two bodies can close within one step (speculative contacts: the
 * gap term phi/h of w lets them close exactly, no more).  The world is
 * only read: contacts go to a buffer (fc_mbd_narrow), one per thread of
 * the threaded detection (step.c). */
#include "mbd/mbd.h"

/* Append a contact; the frame is completed from n. */
static int push(fc_mbd_narrow *w, int a, int b, int feature, const double pb[3],
                const double n[3], double gap)
{
    if (gap > w->pair_margin) return 0;
    if (w->ncontacts == w->cap_contacts) {
        fc_mbd_contact *nc = fc_mbd_grow(w->contacts, &w->cap_contacts, sizeof *nc, 256);
        if (!nc) return -1;
        w->contacts = nc;
    }
    fc_mbd_contact *c = &w->contacts[w->ncontacts++];
    memset(c, 0, sizeof *c);
    c->a = a;
    c->b = b;
    c->feature = feature;
    for (int k = 0; k < 3; k++) {
        c->n[k] = n[k];
        c->p[k] = pb[k] + 0.5 * gap * n[k];
    }
    fc_mbd_tangents(c->n, c->t1, c->t2);
    c->gap = gap;
    c->mu = fmin(w->bodies[a].mu, w->bodies[b].mu);
    return 1;
}

static int sphere_sphere(fc_mbd_narrow *w, int a, int b)
{
    const fc_mbd_body *A = &w->bodies[a], *B = &w->bodies[b];
    double d[3] = {A->x[0] - B->x[0], A->x[1] - B->x[1], A->x[2] - B->x[2]};
    double dist = v3_norm(d), n[3] = {0, 0, 1};
    if (dist - A->radius - B->radius > w->pair_margin) return 0;
    if (dist > 0) for (int k = 0; k < 3; k++) n[k] = d[k] / dist;
    double pb[3];
    for (int k = 0; k < 3; k++) pb[k] = B->x[k] + B->radius * n[k];
    return push(w, a, b, 0, pb, n, dist - A->radius - B->radius);
}

/* Outward normal of a plane body. */
static void plane_normal(const fc_mbd_body *P, double n[3])
{
    static const double ez[3] = {0, 0, 1};
    fc_mbd_rotate(P->q, ez, n);
}

static int sphere_plane(fc_mbd_narrow *w, int a, int b)
{
    const fc_mbd_body *A = &w->bodies[a], *P = &w->bodies[b];
    double n[3], pb[3];
    plane_normal(P, n);
    double dc = (A->x[0] - P->x[0]) * n[0] + (A->x[1] - P->x[1]) * n[1] + (A->x[2] - P->x[2]) * n[2];
    for (int k = 0; k < 3; k++) pb[k] = A->x[k] - dc * n[k];
    return push(w, a, b, 0, pb, n, dc - A->radius);
}

/* World coordinates of box corner k (bit i of k: sign of axis i). */
static void box_corner(const fc_mbd_body *B, const double R[9], int k, double c[3])
{
    double l[3];
    for (int i = 0; i < 3; i++) l[i] = (k >> i & 1) ? B->half[i] : -B->half[i];
    for (int i = 0; i < 3; i++) c[i] = B->x[i] + R[3 * i] * l[0] + R[3 * i + 1] * l[1] + R[3 * i + 2] * l[2];
}

static int box_plane(fc_mbd_narrow *w, int a, int b)
{
    const fc_mbd_body *A = &w->bodies[a], *P = &w->bodies[b];
    double n[3], R[9];
    plane_normal(P, n);
    fc_mbd_quat_matrix(A->q, R);
    int count = 0;
    for (int k = 0; k < 8; k++) {
        double c[3], pb[3];
        box_corner(A, R, k, c);
        double g = (c[0] - P->x[0]) * n[0] + (c[1] - P->x[1]) * n[1] + (c[2] - P->x[2]) * n[2];
        for (int i = 0; i < 3; i++) pb[i] = c[i] - g * n[i];
        int s = push(w, a, b, k, pb, n, g);
        if (s < 0) return -1;
        count += s;
    }
    return count;
}

/* Signed distance from point p (world) to box B: the closest point on B's
 * surface (world) and the outward normal there.  For a point inside (or on
 * an edge or corner), among the faces of (nearly) least depth the one
 * facing hint (a world point, e.g. the other body's centre) is chosen. */
static double point_box(const fc_mbd_body *B, const double R[9], const double p[3],
                        const double hint[3], double surf[3], double n[3])
{
    double d[3] = {p[0] - B->x[0], p[1] - B->x[1], p[2] - B->x[2]}, l[3], cl[3], nl[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) l[i] = R[i] * d[0] + R[3 + i] * d[1] + R[6 + i] * d[2]; /* R^T d */
    int inside = 1;
    for (int i = 0; i < 3; i++) {
        cl[i] = fmax(-B->half[i], fmin(B->half[i], l[i]));
        if (cl[i] != l[i]) inside = 0;
    }
    double dist;
    if (!inside) {
        double e[3] = {l[0] - cl[0], l[1] - cl[1], l[2] - cl[2]};
        dist = v3_norm(e);
        for (int i = 0; i < 3; i++) nl[i] = e[i] / dist;
    } else {
        int ax = 0;
        double best = INFINITY, hl[3] = {0, 0, 0}, tie = 1e-12 * v3_norm(B->half);
        if (hint) {
            double dh[3] = {hint[0] - B->x[0], hint[1] - B->x[1], hint[2] - B->x[2]};
            for (int i = 0; i < 3; i++) hl[i] = (R[i] * dh[0] + R[3 + i] * dh[1] + R[6 + i] * dh[2]) / B->half[i];
        }
        for (int i = 0; i < 3; i++) best = fmin(best, B->half[i] - fabs(l[i]));
        double pref = -INFINITY;
        for (int i = 0; i < 3; i++)
            if (B->half[i] - fabs(l[i]) <= best + tie && fabs(hl[i]) > pref) { pref = fabs(hl[i]); ax = i; }
        nl[ax] = l[ax] >= 0 ? 1.0 : -1.0;
        cl[ax] = nl[ax] * B->half[ax];
        dist = -best;
    }
    for (int i = 0; i < 3; i++) {
        n[i] = R[3 * i] * nl[0] + R[3 * i + 1] * nl[1] + R[3 * i + 2] * nl[2];
        surf[i] = B->x[i] + R[3 * i] * cl[0] + R[3 * i + 1] * cl[1] + R[3 * i + 2] * cl[2];
    }
    return dist;
}

static int sphere_box(fc_mbd_narrow *w, int a, int b)
{
    const fc_mbd_body *A = &w->bodies[a], *B = &w->bodies[b];
    double R[9], surf[3], n[3];
    fc_mbd_quat_matrix(B->q, R);
    double dist = point_box(B, R, A->x, A->x, surf, n);
    return push(w, a, b, 0, surf, n, dist - A->radius);
}

/* ---- box-box: separating axes, face clipping, edge-edge ----
 * The 15 axes (3 + 3 face normals, 9 edge crosses) give the separation
 * along each; more than the margin on one: no contact.  Otherwise the
 * axis of largest separation (least penetration) decides, a face of a
 * preferred over a face of b, a face over an edge, unless the other is
 * better by a tolerance (so that resting contacts keep their features
 * from step to step).  Face: the incident box's face most opposed to the
 * reference face is clipped against the reference face's 4 side planes;
 * its points within the margin are the contacts (at most 4: the deepest,
 * the farthest from it, the two spanning the largest areas on either
 * side).  Edge: the closest points of the two supporting edges. */

typedef struct box_frame {
    double c[3], u[3][3], h[3]; /* centre, unit axes (world), half extents */
} box_frame;

static void frame_of(const fc_mbd_body *B, box_frame *f)
{
    double R[9];
    fc_mbd_quat_matrix(B->q, R);
    for (int k = 0; k < 3; k++) {
        f->c[k] = B->x[k];
        f->h[k] = B->half[k];
        for (int i = 0; i < 3; i++) f->u[k][i] = R[3 * i + k];
    }
}

/* Half length of the box's projection on the unit axis L. */
static double extent(const box_frame *f, const double L[3])
{
    return f->h[0] * fabs(v3_dot(f->u[0], L)) + f->h[1] * fabs(v3_dot(f->u[1], L)) +
           f->h[2] * fabs(v3_dot(f->u[2], L));
}

/* A vertex of the clipped polygon: the labels of the polygon edges into
 * and out of it (0-3 incident face edges, 4-7 reference side planes)
 * name it, whatever the round-off: its feature. */
typedef struct clip_vertex {
    double p[3];
    int ein, eout;
} clip_vertex;

/* Sutherland-Hodgman: the part of polygon in with nrm . p - off <= tol. */
static int clip(const clip_vertex *in, int n, const double nrm[3], double off, double tol, int label,
                clip_vertex *out)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        const clip_vertex *P = &in[(i + n - 1) % n], *Q = &in[i];
        double dp = v3_dot(nrm, P->p) - off, dq = v3_dot(nrm, Q->p) - off;
        int pin = dp <= tol, qin = dq <= tol;
        if (pin != qin) { /* dp - dq != 0: one side <= tol < the other */
            double t = (dp - tol) / (dp - dq);
            clip_vertex *X = &out[m++];
            for (int k = 0; k < 3; k++) X->p[k] = P->p[k] + t * (Q->p[k] - P->p[k]);
            X->ein = pin ? P->eout : label;
            X->eout = pin ? label : P->eout;
        }
        if (qin) out[m++] = *Q;
    }
    return m;
}

/* Face contacts: reference face along axis k of F[refb] (F[0] box a,
 * F[1] box b), the incident face of the other box clipped against it. */
static int face_contact(fc_mbd_narrow *w, int a, int b, const box_frame *F[2], int refb, int k)
{
    const box_frame *ref = F[refb], *inc = F[1 - refb];
    double d[3] = {inc->c[0] - ref->c[0], inc->c[1] - ref->c[1], inc->c[2] - ref->c[2]};
    double sg = v3_dot(d, ref->u[k]) >= 0 ? 1.0 : -1.0, nf[3];
    for (int i = 0; i < 3; i++) nf[i] = sg * ref->u[k][i]; /* out of ref towards inc */
    int m = 0;
    double best = -1;
    for (int i = 0; i < 3; i++)
        if (fabs(v3_dot(inc->u[i], nf)) > best) { best = fabs(v3_dot(inc->u[i], nf)); m = i; }
    double tau = v3_dot(inc->u[m], nf) > 0 ? -1.0 : 1.0;
    int m1 = (m + 1) % 3, m2 = (m + 2) % 3, k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    static const double s1[4] = {1, -1, -1, 1}, s2[4] = {1, 1, -1, -1};
    clip_vertex P0[12], P1[12];
    for (int v = 0; v < 4; v++) {
        for (int i = 0; i < 3; i++)
            P0[v].p[i] = inc->c[i] + tau * inc->h[m] * inc->u[m][i] + s1[v] * inc->h[m1] * inc->u[m1][i] +
                         s2[v] * inc->h[m2] * inc->u[m2][i];
        P0[v].ein = (v + 3) % 4;
        P0[v].eout = v;
    }
    /* inside tolerance: flush sides (equal bricks) drifting by round-off or
     * by slow motion at rest must not change features from step to step */
    double tol = 1e-4 * fmin(ref->h[k1], ref->h[k2]);
    int n = 4;
    const int ax[2] = {k1, k2};
    for (int s = 0; s < 4 && n > 0; s++) {
        const double *u = ref->u[ax[s / 2]], sn = s % 2 ? -1.0 : 1.0;
        double nrm[3] = {sn * u[0], sn * u[1], sn * u[2]};
        double off = v3_dot(nrm, ref->c) + ref->h[ax[s / 2]];
        n = clip(s % 2 ? P1 : P0, n, nrm, off, tol, 4 + s, s % 2 ? P0 : P1);
    }
    /* after 4 clips the polygon is in P0 again */
    double g[12], plane = v3_dot(nf, ref->c) + ref->h[k];
    int idx[12], cnt = 0;
    for (int v = 0; v < n; v++) {
        g[v] = v3_dot(nf, P0[v].p) - plane;
        if (g[v] <= w->pair_margin) idx[cnt++] = v;
    }
    int keep[4], nk = 0;
    if (cnt <= 4) {
        for (int i = 0; i < cnt; i++) keep[nk++] = idx[i];
    } else {
        /* the deepest: the first in polygon order within a tolerance of the
         * least gap (flush faces: round-off must not pick another each step) */
        int i0 = idx[0], i1 = -1, i2 = -1, i3 = -1;
        double gmin = g[idx[0]], dtol = 1e-6 * fmax(ref->h[k1], ref->h[k2]);
        for (int i = 1; i < cnt; i++) gmin = fmin(gmin, g[idx[i]]);
        for (int i = cnt - 1; i >= 0; i--) if (g[idx[i]] <= gmin + dtol) i0 = idx[i];
        double far = -1, amax = 0, amin = 0;
        for (int i = 0; i < cnt; i++) {
            double e[3] = {P0[idx[i]].p[0] - P0[i0].p[0], P0[idx[i]].p[1] - P0[i0].p[1], P0[idx[i]].p[2] - P0[i0].p[2]};
            if (v3_dot(e, e) > far) { far = v3_dot(e, e); i1 = idx[i]; }
        }
        double e1[3] = {P0[i1].p[0] - P0[i0].p[0], P0[i1].p[1] - P0[i0].p[1], P0[i1].p[2] - P0[i0].p[2]};
        for (int i = 0; i < cnt; i++) {
            double e[3] = {P0[idx[i]].p[0] - P0[i0].p[0], P0[idx[i]].p[1] - P0[i0].p[1], P0[idx[i]].p[2] - P0[i0].p[2]}, c[3];
            v3_cross(e1, e, c);
            double area = v3_dot(c, nf);
            if (area > amax) { amax = area; i2 = idx[i]; }
            if (area < amin) { amin = area; i3 = idx[i]; }
        }
        int cand[4] = {i0, i1, i2, i3};
        for (int i = 0; i < 4; i++) {
            int dup = cand[i] < 0;
            for (int j = 0; j < nk; j++) dup |= keep[j] == cand[i];
            if (!dup) keep[nk++] = cand[i];
        }
    }
    int refface = 2 * k + (sg < 0), incface = 2 * m + (tau < 0), count = 0;
    for (int i = 0; i < nk; i++) {
        const clip_vertex *V = &P0[keep[i]];
        int lo = V->ein < V->eout ? V->ein : V->eout, hi = V->ein ^ V->eout ^ lo;
        int feature = ((refb * 6 + refface) * 6 + incface) * 64 + lo * 8 + hi;
        double n_ab[3], pb[3];
        for (int j = 0; j < 3; j++) {
            /* n from b to a; pb on b's surface */
            n_ab[j] = refb ? nf[j] : -nf[j];
            pb[j] = refb ? V->p[j] - g[keep[i]] * nf[j] : V->p[j];
        }
        int s = push(w, a, b, feature, pb, n_ab, g[keep[i]]);
        if (s < 0) return -1;
        count += s;
    }
    return count;
}

/* Edge contact along the unit axis L = A.u[i] x B.u[j] (from b towards a):
 * the closest points of A's edge along u[i] nearest B and B's edge along
 * u[j] nearest A (the two are not parallel: |L| was not small). */
static int edge_contact(fc_mbd_narrow *w, int a, int b, const box_frame *A, const box_frame *B, int i, int j,
                        const double L[3])
{
    double pa[3], pb[3];
    int ea = 4 * i, eb = 4 * j, bit = 0;
    for (int k = 0; k < 3; k++) { pa[k] = A->c[k]; pb[k] = B->c[k]; }
    for (int k = 0; k < 3; k++) {
        if (k == i) continue;
        double s = v3_dot(A->u[k], L) > 0 ? -1.0 : 1.0; /* towards b */
        for (int l = 0; l < 3; l++) pa[l] += s * A->h[k] * A->u[k][l];
        ea |= (s > 0) << bit++;
    }
    bit = 0;
    for (int k = 0; k < 3; k++) {
        if (k == j) continue;
        double s = v3_dot(B->u[k], L) >= 0 ? 1.0 : -1.0; /* towards a */
        for (int l = 0; l < 3; l++) pb[l] += s * B->h[k] * B->u[k][l];
        eb |= (s > 0) << bit++;
    }
    const double *u = A->u[i], *v = B->u[j];
    double r[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
    double uv = v3_dot(u, v), ur = v3_dot(u, r), vr = v3_dot(v, r), den = 1 - uv * uv;
    double s = den > 0 ? (uv * vr - ur) / den : 0.0;
    s = fmax(-A->h[i], fmin(A->h[i], s));
    double t = fmax(-B->h[j], fmin(B->h[j], vr + uv * s));
    s = fmax(-A->h[i], fmin(A->h[i], uv * t - ur));
    double qa[3], qb[3], e[3];
    for (int l = 0; l < 3; l++) {
        qa[l] = pa[l] + s * u[l];
        qb[l] = pb[l] + t * v[l];
        e[l] = qa[l] - qb[l];
    }
    return push(w, a, b, 8192 + ea * 12 + eb, qb, L, v3_dot(e, L));
}

static int box_box(fc_mbd_narrow *w, int a, int b)
{
    box_frame A, B;
    frame_of(&w->bodies[a], &A);
    frame_of(&w->bodies[b], &B);
    const box_frame *F[2] = {&A, &B};
    double d[3] = {A.c[0] - B.c[0], A.c[1] - B.c[1], A.c[2] - B.c[2]}; /* from b to a */
    double sep[2] = {-INFINITY, -INFINITY}, sedge = -INFINITY, Ledge[3] = {0, 0, 1};
    int face[2] = {0, 0}, ei = -1, ej = -1;
    double hmin = INFINITY;
    for (int k = 0; k < 3; k++) hmin = fmin(hmin, fmin(A.h[k], B.h[k]));
    for (int f = 0; f < 2; f++)
        for (int k = 0; k < 3; k++) {
            const double *L = F[f]->u[k];
            double s = fabs(v3_dot(d, L)) - extent(&A, L) - extent(&B, L);
            if (s > w->pair_margin) return 0;
            if (s > sep[f]) { sep[f] = s; face[f] = k; }
        }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double L[3];
            v3_cross(A.u[i], B.u[j], L);
            double len = v3_norm(L);
            if (!(len > 1e-6)) continue; /* parallel edges: the face axes cover them */
            for (int l = 0; l < 3; l++) L[l] /= len;
            double s = fabs(v3_dot(d, L)) - extent(&A, L) - extent(&B, L);
            if (s > w->pair_margin) return 0;
            if (s > sedge) {
                sedge = s;
                ei = i;
                ej = j;
                double sg = v3_dot(d, L) >= 0 ? 1.0 : -1.0;
                for (int l = 0; l < 3; l++) Ledge[l] = sg * L[l];
            }
        }
    /* preferences: faces of a, then of b, then edges, each by a margin */
    double tol = 1e-3 * hmin;
    int refb = sep[1] > sep[0] + tol;
    double sface = sep[refb];
    if (ei >= 0 && sedge > sface + tol + 0.05 * fabs(sface)) return edge_contact(w, a, b, &A, &B, ei, ej, Ledge);
    int n = face_contact(w, a, b, F, refb, face[refb]);
    if (n == 0 && ei >= 0) return edge_contact(w, a, b, &A, &B, ei, ej, Ledge);
    return n;
}

int fc_mbd_collide_into(const fc_mbd_world *world, int i, int j, fc_mbd_narrow *w)
{
    return fc_mbd_collide_bounded(world, i, j, fc_mbd_speed_bound(&world->bodies[i]),
                                  fc_mbd_speed_bound(&world->bodies[j]), w);
}

int fc_mbd_collide_bounded(const fc_mbd_world *world, int i, int j, double spd_i, double spd_j,
                           fc_mbd_narrow *w)
{
    w->bodies = world->bodies;
    fc_mbd_shape si = w->bodies[i].shape, sj = w->bodies[j].shape;
    if (w->bodies[i].fixed && w->bodies[j].fixed) return 0;
    w->pair_margin = world->margin + world->h * (spd_i + spd_j);
    /* order: a is the "smaller" shape kind (sphere < box < plane) */
    if (si > sj) { int t = i; i = j; j = t; fc_mbd_shape ts = si; si = sj; sj = ts; }
    if (si == FC_MBD_SPHERE && sj == FC_MBD_SPHERE) return sphere_sphere(w, i, j);
    if (si == FC_MBD_SPHERE && sj == FC_MBD_PLANE) return sphere_plane(w, i, j);
    if (si == FC_MBD_SPHERE && sj == FC_MBD_BOX) return sphere_box(w, i, j);
    if (si == FC_MBD_BOX && sj == FC_MBD_PLANE) return box_plane(w, i, j);
    if (si == FC_MBD_BOX && sj == FC_MBD_BOX) return box_box(w, i, j);
    return 0; /* plane-plane */
}

int fc_mbd_collide(fc_mbd_world *w, int i, int j)
{
    fc_mbd_narrow out = {.contacts = w->contacts, .ncontacts = w->ncontacts,
                         .cap_contacts = w->cap_contacts};
    int n = fc_mbd_collide_into(w, i, j, &out);
    w->contacts = out.contacts;
    w->ncontacts = out.ncontacts;
    w->cap_contacts = out.cap_contacts;
    return n;
}
