/* Rigid bodies: the world, adding bodies, mass properties, quaternions. */
#include "mbd/mbd.h"

fc_mbd_world *fc_mbd_world_new(void)
{
    fc_mbd_world *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->gravity[2] = -9.81;
    w->h = 1e-2;
    w->margin = 1e-3;
    w->stab = 1.0;
    w->joint_stab = 1.0;
    w->bp_valid = -1;
    return w;
}

void fc_mbd_world_free(fc_mbd_world *w)
{
    if (!w) return;
    free(w->bodies);
    free(w->contacts);
    free(w->prev);
    free(w->pairs);
    fc_problem_free(w->last);
    fc_problem_free(w->last_local);
    free(w->last_r);
    free(w->last_v);
    free(w->last_r0);
    free(w->joints);
    free(w->last_lambda);
    for (int t = 0; t < w->ntbuf; t++) {
        free(w->tbuf[t].pairs);
        free(w->tbuf[t].narrow.contacts);
    }
    free(w->tbuf);
    free(w->bp_work);
    free(w->bp_hit);
    free(w);
}

void fc_mbd_set_gravity(fc_mbd_world *w, double gx, double gy, double gz)
{
    w->gravity[0] = gx; w->gravity[1] = gy; w->gravity[2] = gz;
}
void fc_mbd_set_step(fc_mbd_world *w, double h) { if (h > 0) w->h = h; }
void fc_mbd_set_margin(fc_mbd_world *w, double margin) { if (margin >= 0) w->margin = margin; }
void fc_mbd_set_stabilisation(fc_mbd_world *w, double f) { if (f >= 0) w->stab = f; }
void fc_mbd_set_warm_start(fc_mbd_world *w, int mode) { if (mode == 0 || mode == 1) w->warm_world = mode; }
double fc_mbd_step_size(const fc_mbd_world *w) { return w->h; }
double fc_mbd_time(const fc_mbd_world *w) { return w->time; }
int fc_mbd_body_count(const fc_mbd_world *w) { return w->nbodies; }
fc_mbd_body *fc_mbd_body_at(fc_mbd_world *w, int i)
{
    return i >= 0 && i < w->nbodies ? &w->bodies[i] : NULL;
}
int fc_mbd_contact_count(const fc_mbd_world *w) { return w->ncontacts; }
const fc_mbd_contact *fc_mbd_contact_at(const fc_mbd_world *w, int i)
{
    return i >= 0 && i < w->ncontacts ? &w->contacts[i] : NULL;
}
const fc_problem *fc_mbd_last_problem(const fc_mbd_world *w) { return w->last; }
const fc_problem *fc_mbd_last_local_problem(const fc_mbd_world *w) { return w->last_local; }
void fc_mbd_set_general_reduction(fc_mbd_world *w, int on) { w->general_reduction = on != 0; }
void fc_mbd_set_planar(fc_mbd_world *w, int on) { w->planar = on != 0; }
int fc_mbd_planar(const fc_mbd_world *w) { return w->planar; }

/* Uniform-density inertia of a sphere or box of the given mass. */
void fc_mbd_set_mass(fc_mbd_body *b, double mass)
{
    b->mass = mass;
    if (b->shape == FC_MBD_SPHERE) {
        double I = 0.4 * mass * b->radius * b->radius;
        b->inertia[0] = b->inertia[1] = b->inertia[2] = I;
    } else if (b->shape == FC_MBD_BOX) {
        double a = 2 * b->half[0], c = 2 * b->half[1], e = 2 * b->half[2];
        b->inertia[0] = mass * (c * c + e * e) / 12;
        b->inertia[1] = mass * (a * a + e * e) / 12;
        b->inertia[2] = mass * (a * a + c * c) / 12;
    }
}

void *fc_mbd_grow(void *arr, int *cap, size_t size, int first)
{
    int n = *cap ? 2 * *cap : first;
    void *p = realloc(arr, (size_t)n * size);
    if (p) *cap = n;
    return p;
}

int fc_mbd_tbuf_reserve(fc_mbd_world *w, int n)
{
    if (n <= w->ntbuf) return 0;
    fc_mbd_tbuf *t = realloc(w->tbuf, (size_t)n * sizeof *t);
    if (!t) return -1;
    memset(t + w->ntbuf, 0, (size_t)(n - w->ntbuf) * sizeof *t);
    w->tbuf = t;
    w->ntbuf = n;
    return 0;
}

int fc_mbd_add_body(fc_mbd_world *w, const fc_mbd_body *b)
{
    if (w->nbodies == w->cap_bodies) {
        fc_mbd_body *nb = fc_mbd_grow(w->bodies, &w->cap_bodies, sizeof *nb, 64);
        if (!nb) return -1;
        w->bodies = nb;
    }
    fc_mbd_body *d = &w->bodies[w->nbodies];
    *d = *b;
    double nq = sqrt(d->q[0] * d->q[0] + d->q[1] * d->q[1] + d->q[2] * d->q[2] + d->q[3] * d->q[3]);
    if (!(nq > 0)) { d->q[0] = 1; d->q[1] = d->q[2] = d->q[3] = 0; nq = 1; }
    for (int k = 0; k < 4; k++) d->q[k] /= nq;
    if (d->shape == FC_MBD_PLANE) d->fixed = 1;
    if (!d->fixed && !(d->mass > 0)) return -1;
    return w->nbodies++;
}

static fc_mbd_body body_at_rest(fc_mbd_shape shape, double x, double y, double z)
{
    fc_mbd_body b;
    memset(&b, 0, sizeof b);
    b.shape = shape;
    b.x[0] = x; b.x[1] = y; b.x[2] = z;
    b.q[0] = 1;
    b.mu = 0.5;
    return b;
}

int fc_mbd_add_sphere(fc_mbd_world *w, double radius, double density,
                      double x, double y, double z)
{
    if (!(radius > 0) || !(density > 0)) return -1;
    fc_mbd_body b = body_at_rest(FC_MBD_SPHERE, x, y, z);
    b.radius = radius;
    fc_mbd_set_mass(&b, density * 4.0 / 3.0 * FC_MBD_PI * radius * radius * radius);
    return fc_mbd_add_body(w, &b);
}

int fc_mbd_add_box(fc_mbd_world *w, double hx, double hy, double hz,
                   double density, double x, double y, double z)
{
    if (!(hx > 0 && hy > 0 && hz > 0) || !(density > 0)) return -1;
    fc_mbd_body b = body_at_rest(FC_MBD_BOX, x, y, z);
    b.half[0] = hx; b.half[1] = hy; b.half[2] = hz;
    fc_mbd_set_mass(&b, density * 8 * hx * hy * hz);
    return fc_mbd_add_body(w, &b);
}

/* The plane's body z axis is n: q is the shortest rotation taking e_z to n. */
int fc_mbd_add_plane(fc_mbd_world *w, double nx, double ny, double nz,
                     double px, double py, double pz)
{
    double n[3] = {nx, ny, nz}, len = v3_norm(n);
    if (!(len > 0)) return -1;
    for (int k = 0; k < 3; k++) n[k] /= len;
    fc_mbd_body b = body_at_rest(FC_MBD_PLANE, px, py, pz);
    b.fixed = 1;
    /* q = (1 + ez.n, ez x n) normalised; opposite normal: half turn about x */
    double c = n[2];
    if (c < -1 + 1e-15) {
        b.q[0] = 0; b.q[1] = 1; b.q[2] = 0; b.q[3] = 0;
    } else {
        b.q[0] = 1 + c; b.q[1] = -n[1]; b.q[2] = n[0]; b.q[3] = 0;
    }
    return fc_mbd_add_body(w, &b);
}

void fc_mbd_quat_matrix(const double q[4], double R[9])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - w * z);     R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y);     R[7] = 2 * (y * z + w * x);     R[8] = 1 - 2 * (x * x + y * y);
}

void fc_mbd_rotate(const double q[4], const double bv[3], double out[3])
{
    double R[9];
    fc_mbd_quat_matrix(q, R);
    double o[3];
    for (int i = 0; i < 3; i++) o[i] = R[3 * i] * bv[0] + R[3 * i + 1] * bv[1] + R[3 * i + 2] * bv[2];
    out[0] = o[0]; out[1] = o[1]; out[2] = o[2];
}

void fc_mbd_quat_integrate(double q[4], const double omega[3], double h)
{
    double wn = v3_norm(omega), angle = wn * h;
    if (angle == 0) return;
    double s = sin(0.5 * angle) / wn, dq[4] = {cos(0.5 * angle), s * omega[0], s * omega[1], s * omega[2]};
    double r[4] = {
        dq[0] * q[0] - dq[1] * q[1] - dq[2] * q[2] - dq[3] * q[3],
        dq[0] * q[1] + dq[1] * q[0] + dq[2] * q[3] - dq[3] * q[2],
        dq[0] * q[2] - dq[1] * q[3] + dq[2] * q[0] + dq[3] * q[1],
        dq[0] * q[3] + dq[1] * q[2] - dq[2] * q[1] + dq[3] * q[0]};
    double nq = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (int k = 0; k < 4; k++) q[k] = r[k] / nq;
}

void fc_mbd_world_inertia(const fc_mbd_body *b, double I[9])
{
    double R[9];
    fc_mbd_quat_matrix(b->q, R);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j <= i; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += R[3 * i + k] * b->inertia[k] * R[3 * j + k];
            I[3 * i + j] = I[3 * j + i] = s;
        }
}

void fc_mbd_tangents(const double n[3], double t1[3], double t2[3])
{
    /* t1 = n x e, e the axis least aligned with n */
    double ax = fabs(n[0]), ay = fabs(n[1]), az = fabs(n[2]);
    double e[3] = {0, 0, 0};
    if (ax <= ay && ax <= az) e[0] = 1;
    else if (ay <= az) e[1] = 1;
    else e[2] = 1;
    v3_cross(n, e, t1);
    double l = v3_norm(t1);
    for (int k = 0; k < 3; k++) t1[k] /= l;
    v3_cross(n, t1, t2);
}

double fc_mbd_speed_bound(const fc_mbd_body *b)
{
    if (b->fixed) return 0.0;
    return v3_norm(b->v) + v3_norm(b->omega) * fc_mbd_bound_radius(b);
}

double fc_mbd_bound_radius(const fc_mbd_body *b)
{
    switch (b->shape) {
    case FC_MBD_SPHERE: return b->radius;
    case FC_MBD_BOX: return v3_norm(b->half);
    default: return INFINITY;
    }
}

void fc_mbd_contact_forces(const fc_mbd_world *w, int i, double force[3],
                           double *normal, double *tangential)
{
    double F[3] = {0, 0, 0}, T[3] = {0, 0, 0}, N = 0;
    for (int c = 0; c < w->ncontacts; c++) {
        const fc_mbd_contact *k = &w->contacts[c];
        if (i >= 0 && k->a != i && k->b != i) continue;
        double s = (i >= 0 && k->b == i) ? -1.0 : 1.0; /* force on body i */
        N += k->r[0] / w->h;
        for (int d = 0; d < 3; d++) {
            double t = (k->r[1] * k->t1[d] + k->r[2] * k->t2[d]) / w->h;
            T[d] += s * t;
            F[d] += s * (k->r[0] / w->h * k->n[d] + t);
        }
    }
    if (force) { force[0] = F[0]; force[1] = F[1]; force[2] = F[2]; }
    if (normal) *normal = N;
    if (tangential) *tangential = v3_norm(T);
}

double fc_mbd_kinetic_energy(const fc_mbd_world *w)
{
    double e = 0;
    for (int i = 0; i < w->nbodies; i++) {
        const fc_mbd_body *b = &w->bodies[i];
        if (b->fixed) continue;
        double I[9];
        fc_mbd_world_inertia(b, I);
        e += 0.5 * b->mass * v3_dot(b->v, b->v);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) e += 0.5 * b->omega[r] * I[3 * r + c] * b->omega[c];
    }
    return e;
}
