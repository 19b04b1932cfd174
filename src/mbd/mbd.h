/* Private parts of the rigid-body layer (src/mbd/): the world, small
 * vector and quaternion helpers, and the phases of a step. */
#ifndef FC_MBD_PRIVATE_H
#define FC_MBD_PRIVATE_H

#include "fricon_mbd.h"
#include "internal.h"

struct fc_mbd_world {
    fc_mbd_body *bodies;
    int nbodies, cap_bodies;
    double gravity[3];
    double h;              /* time step                                  */
    double margin;         /* contact detection distance                 */
    double pair_margin;    /* margin of the pair being collided: margin
                              + h (speed bound of a + of b), so that
                              contacts closing within the step are seen */
    double stab;           /* factor of phi / h in w                     */
    double time;
    int step;
    fc_mbd_contact *contacts;      /* of the current step               */
    int ncontacts, cap_contacts;
    fc_mbd_contact *prev;          /* of the previous step (warm start),
                                      sorted by (a, b, feature)          */
    int nprev, cap_prev;
    int *pairs;            /* broad phase output: 2 * npairs             */
    int npairs, cap_pairs;
    fc_problem *last;      /* the problem of the last step               */
    fc_problem *last_local; /* its local form, when reduced here         */
    double *last_r, *last_v; /* its solution: impulses (3 nc), v+ (n)     */
    double *last_r0;       /* its warm start (3 nc): the exported guess  */
    int general_reduction; /* 1: always fc_solve on the global problem   */
    int planar;            /* 1: motion in z = 0 (vx, vy, omega_z), d = 2 */
};

#define FC_MBD_PI 3.14159265358979323846

/* ---- vectors and quaternions ---- */
static inline double v3_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void v3_cross(const double a[3], const double b[3], double c[3])
{
    double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2],
           z = a[0] * b[1] - a[1] * b[0];
    c[0] = x; c[1] = y; c[2] = z;
}
static inline double v3_norm(const double a[3]) { return sqrt(v3_dot(a, a)); }

/* Rotation matrix (row-major) of a unit quaternion. */
void fc_mbd_quat_matrix(const double q[4], double R[9]);
/* q <- exp(h omega / 2) * q, renormalised. */
void fc_mbd_quat_integrate(double q[4], const double omega[3], double h);
/* World inertia tensor R diag(I) R^T (row-major, symmetric). */
void fc_mbd_world_inertia(const fc_mbd_body *b, double I[9]);
/* An orthonormal tangent pair of the unit normal n (deterministic). */
void fc_mbd_tangents(const double n[3], double t1[3], double t2[3]);

/* ---- phases ---- */
/* Candidate pairs (i < j, at least one moving) into w->pairs. */
int fc_mbd_broadphase(fc_mbd_world *w);
/* Contacts of bodies i and j appended to w->contacts; -1 on failure. */
int fc_mbd_collide(fc_mbd_world *w, int i, int j);
/* Bound on the speed of the body's points: |v| + |omega| r (0 if fixed). */
double fc_mbd_speed_bound(const fc_mbd_body *b);
/* arr grown to twice *cap elements of size bytes (first when *cap = 0);
 * *cap updated.  NULL when out of memory (arr kept). */
void *fc_mbd_grow(void *arr, int *cap, size_t size, int first);
/* Radius of a sphere bounding the body (planes: infinite). */
double fc_mbd_bound_radius(const fc_mbd_body *b);

/* The local problem of a step, reduced with the block-diagonal M^-1. */
typedef struct fc_mbd_reduced {
    fc_problem *local;
    double *G, *J;   /* per contact and side: M^-1 J and J, 6 x 3 column-major */
} fc_mbd_reduced;
fc_err fc_mbd_reduce(const fc_mbd_world *w, const fc_problem *g, fc_mbd_reduced *red,
                     fc_error *err);
void fc_mbd_recover_v(const fc_mbd_world *w, const fc_problem *g, const fc_mbd_reduced *red,
                      const double *r, double *v);
void fc_mbd_reduced_free(fc_mbd_reduced *red);

#endif
