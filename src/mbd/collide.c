/* Narrow phase: contacts (point, frame, gap) of a pair of shapes.
 * Sphere-sphere, sphere-plane, box-plane (8 corners), sphere-box (closest
 * point), box-box (the corners of each box against the other: face-face
 * and face-corner contacts, not edge-edge).  The normal points from body
 * b towards body a; the point is midway between the two surfaces.  A
 * contact is kept when its gap is at most the margin plus the distance
 * the two bodies can close within one step (speculative contacts: the
 * gap term phi/h of w lets them close exactly, no more). */
#include "mbd/mbd.h"

/* Append a contact; the frame is completed from n. */
static int push(fc_mbd_world *w, int a, int b, int feature, const double pb[3],
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

static int sphere_sphere(fc_mbd_world *w, int a, int b)
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

static int sphere_plane(fc_mbd_world *w, int a, int b)
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

static int box_plane(fc_mbd_world *w, int a, int b)
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

static int sphere_box(fc_mbd_world *w, int a, int b)
{
    const fc_mbd_body *A = &w->bodies[a], *B = &w->bodies[b];
    double R[9], surf[3], n[3];
    fc_mbd_quat_matrix(B->q, R);
    double dist = point_box(B, R, A->x, A->x, surf, n);
    return push(w, a, b, 0, surf, n, dist - A->radius);
}

/* Corners of box a against box b (features base + corner). */
static int corners_in_box(fc_mbd_world *w, int a, int b, int base, int swap)
{
    const fc_mbd_body *A = &w->bodies[a], *B = &w->bodies[b];
    double RA[9], RB[9];
    fc_mbd_quat_matrix(A->q, RA);
    fc_mbd_quat_matrix(B->q, RB);
    int count = 0;
    for (int k = 0; k < 8; k++) {
        double c[3], surf[3], n[3];
        box_corner(A, RA, k, c);
        double g = point_box(B, RB, c, A->x, surf, n);
        int s;
        if (!swap) {
            s = push(w, a, b, base + k, surf, n, g);
        } else { /* contact stored as (b, a): normal from a to b */
            double nn[3] = {-n[0], -n[1], -n[2]};
            s = push(w, b, a, base + k, c, nn, g);
        }
        if (s < 0) return -1;
        count += s;
    }
    return count;
}

static int box_box(fc_mbd_world *w, int a, int b)
{
    int s1 = corners_in_box(w, a, b, 0, 0);
    if (s1 < 0) return -1;
    int s2 = corners_in_box(w, b, a, 8, 1);
    return s2 < 0 ? -1 : s1 + s2;
}

int fc_mbd_collide(fc_mbd_world *w, int i, int j)
{
    fc_mbd_shape si = w->bodies[i].shape, sj = w->bodies[j].shape;
    if (w->bodies[i].fixed && w->bodies[j].fixed) return 0;
    w->pair_margin = w->margin + w->h * (fc_mbd_speed_bound(&w->bodies[i]) + fc_mbd_speed_bound(&w->bodies[j]));
    /* order: a is the "smaller" shape kind (sphere < box < plane) */
    if (si > sj) { int t = i; i = j; j = t; fc_mbd_shape ts = si; si = sj; sj = ts; }
    if (si == FC_MBD_SPHERE && sj == FC_MBD_SPHERE) return sphere_sphere(w, i, j);
    if (si == FC_MBD_SPHERE && sj == FC_MBD_PLANE) return sphere_plane(w, i, j);
    if (si == FC_MBD_SPHERE && sj == FC_MBD_BOX) return sphere_box(w, i, j);
    if (si == FC_MBD_BOX && sj == FC_MBD_PLANE) return box_plane(w, i, j);
    if (si == FC_MBD_BOX && sj == FC_MBD_BOX) return box_box(w, i, j);
    return 0; /* plane-plane */
}
