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
    double stab;           /* factor of phi / h in w                     */
    double time;
    int step;
    fc_mbd_contact *contacts;      /* of the current step               */
    int ncontacts, cap_contacts;
    struct fc_mbd_kept *prev;      /* of the previous step (warm start),
                                      sorted by (lo, hi, feature)        */
    int nprev, cap_prev;
    int warm_world;        /* 1: the warm start projects the kept world
                              impulse (fc_mbd_set_warm_start)            */
    int *pairs;            /* broad phase output: 2 * npairs             */
    int npairs, cap_pairs;
    fc_problem *last;      /* the problem of the last step               */
    fc_problem *last_local; /* its local form, when reduced here         */
    double *last_r, *last_v; /* its solution: impulses (3 nc), v+ (n)     */
    double *last_r0;       /* its warm start (3 nc): the exported guess  */
    int general_reduction; /* 1: always fc_solve on the global problem   */
    int planar;            /* 1: motion in z = 0 (vx, vy, omega_z), d = 2 */
    fc_mbd_joint *joints;
    int njoints, cap_joints;
    double joint_stab;     /* factor of C / h in the joints' b           */
    double *last_lambda;   /* the last step's joint multipliers (neq)    */
    struct fc_mbd_tbuf *tbuf; /* threaded detection: one buffer per    */
    int ntbuf;                /* chunk, kept from step to step           */
    void *bp_work;            /* the broad phase's per-body arrays and   */
    size_t bp_bytes;          /* hash table, kept from step to step      */
    unsigned char *bp_hit;    /* its large bodies' flags, kept too       */
    size_t bp_hit_bytes;
    double bp_median;         /* the bodies' median bounding radius, of  */
    int bp_valid;             /* bp_valid bodies (-1: none)              */
};

/* A contact's impulse kept for the next step's warm start, with its key:
 * its bodies lo < hi and its feature (a pair's bodies (a, b) follow from
 * its shapes: the key names the same contact as (a, b, feature)). */
typedef struct fc_mbd_kept {
    int lo, hi, feature;
    double r[3];   /* the impulse's (n, t1, t2) components          */
    double f[3];   /* the impulse on body lo, in the world frame    */
} fc_mbd_kept;

/* The narrow phase's output: contacts appended to a growing buffer, with
 * the margin of the pair being collided (the world's margin + h (speed
 * bound of a + of b), so that contacts closing within the step are seen). */
typedef struct fc_mbd_narrow {
    const fc_mbd_body *bodies;
    double pair_margin;
    fc_mbd_contact *contacts;
    int ncontacts, cap_contacts;
} fc_mbd_narrow;

/* A chunk of the threaded detection (a range of bodies): its candidate
 * pairs and contacts, concatenated in chunk order (the sequential order);
 * taken dynamically (load balance), guided: a chunk is 1 / (FC_MBD_CHUNK_DIV
 * threads) of the bodies left, at least FC_MBD_CHUNK_MIN bodies. */
#define FC_MBD_CHUNK_DIV 4
#define FC_MBD_CHUNK_MIN 16
/* The back chunks' copy after the front's lists: pieces of this many
 * contacts (152 kB), taken as the threads come. */
#define FC_MBD_COPY_PIECE 1024
typedef struct fc_mbd_tbuf {
    int *pairs;
    int npairs, cap_pairs;
    fc_mbd_narrow narrow;
} fc_mbd_tbuf;
/* w->tbuf with at least n buffers; -1 when out of memory. */
int fc_mbd_tbuf_reserve(fc_mbd_world *w, int n);

/* The detection's timeline, compiled in only with -DFC_DTRACE (a bench
 * build: bench/detect_trace.sh): FC_DMARK(id) records the calling
 * thread's wall time at mark id; fc_mbd_dtrace_dump prints the last
 * detection's marks per thread (microseconds from its start). */
#ifdef FC_DTRACE
#include <stdio.h>
void fc_mbd_dmark(int id);
void fc_mbd_dtrace_dump(FILE *f, const char *tag);
#define FC_DMARK(id) fc_mbd_dmark(id)
#else
#define FC_DMARK(id) ((void)0)
#endif

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
/* The broad phase's grid (broadphase.c): a small body's cell key[i] and
 * its entry at[i] in cell[] and body[] (x, bounding radius rad, speed
 * bound spd), bucketed by the cell's index in a box or its hash; large bodies large[], large_of
 * (-1 for a small one); hit: large_of[i] n + j flags, or NULL. */
typedef struct fc_mbd_cell {
    long long ix, iy, iz;
    int body;
} fc_mbd_cell;
typedef struct fc_mbd_cell_body {
    double x[3], rad, spd;
} fc_mbd_cell_body;
typedef struct fc_mbd_grid {
    double *radii, *rad, *spd, *pn, *part, size;
    int *large, *large_of, *at, *start, *count, nlarge;
    /* fast bodies (large_of -2): out of the cells, listed in every bucket
     * within fk[f] cells of theirs (fstart, flist; flast the fill's mark) */
    int *fast, *fk, *fstart, *flist, *flast, nfast;
    unsigned *bucket;
    fc_mbd_cell *key, *cell;
    fc_mbd_cell_body *body;
    size_t tsize;
    long long lo[3], nc[3], nbuckets;   /* dense: the cells' box */
    int dense, same, changed;   /* same: rad[] holds the last build's radii */
    unsigned char *hit;
    size_t hit_room;            /* w->bp_hit_bytes before the build      */
    int slice, nslices;         /* the passes' slices of bodies            */
} fc_mbd_grid;
/* The grid's arrays in w's kept workspace, for a build by threads
 * threads; -1 when out of memory. */
int fc_mbd_grid_prepare(fc_mbd_world *w, fc_mbd_grid *g, int threads);
/* Built by every thread of a parallel region (or one, outside any). */
void fc_mbd_grid_build(fc_mbd_world *w, fc_mbd_grid *g);
/* Thread me's (of nt) bodies [lo, hi) of n in the grid's static passes;
 * the step's update of the bodies uses the same ranges. */
void fc_mbd_body_range(int n, int nt, int me, int *lo, int *hi);
/* The pairs of bodies [lo, hi) appended to out, by (i, j). */
int fc_mbd_grid_pairs(const fc_mbd_world *w, const fc_mbd_grid *g, int lo, int hi, fc_mbd_tbuf *out);
/* Candidate pairs (i < j, at least one moving) into w->pairs. */
int fc_mbd_broadphase(fc_mbd_world *w);
/* Order of int pairs (i, j): by i, then j (qsort, bsearch). */
int fc_mbd_cmp_pair(const void *pa, const void *pb);
/* Contacts of bodies i and j appended to w->contacts; -1 on failure. */
int fc_mbd_collide(fc_mbd_world *w, int i, int j);
/* The same into out (the world only read: one out per thread). */
int fc_mbd_collide_into(const fc_mbd_world *w, int i, int j, fc_mbd_narrow *out);
/* The same with the bodies' speed bounds given (the grid's spd[]). */
int fc_mbd_collide_bounded(const fc_mbd_world *w, int i, int j, double spd_i, double spd_j,
                           fc_mbd_narrow *out);
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

/* ---- joints ---- */
/* One row of a joint: coefficients on (v, omega) of body a and of body b,
 * and the position error C whose time derivative is ja . v_a + jb . v_b. */
typedef struct fc_mbd_jrow {
    double ja[6], jb[6], c;
} fc_mbd_jrow;
/* The rows of joint j at the current poses (3D); their number. */
int fc_mbd_joint_jacobian(const fc_mbd_world *w, const fc_mbd_joint *j, fc_mbd_jrow rows[6]);
/* neq of the step (dof: the bodies' dof offsets, -1 when fixed). */
int fc_mbd_joint_row_count(const fc_mbd_world *w, const int *dof);
/* G (n x neq, CSR) and b = joint_stab C / h into the global problem p. */
fc_err fc_mbd_joint_assemble(const fc_mbd_world *w, const int *dof, fc_problem *p, fc_error *err);
/* The joints' body pairs (i < j), sorted (jointed bodies do not
 * collide); NULL when out of memory. */
int *fc_mbd_joint_pairs(const fc_mbd_world *w);
/* pairs without those of jp (njoints sorted pairs); the count kept. */
int fc_mbd_joint_filter(const int *jp, int njoints, int *pairs, int npairs);
/* The step's multipliers (neq, the columns of G) to the joints' lambda. */
void fc_mbd_joint_scatter(fc_mbd_world *w, const int *dof, const double *lambda);
/* The joints' last lambda in the step's columns (a warm start). */
void fc_mbd_joint_gather(const fc_mbd_world *w, const int *dof, double *lambda);
/* A step without contact: M v = G lambda + f, G^T v + b = 0 solved
 * directly (dense Cholesky of G^T M^-1 G, dependent rows dropped). */
fc_err fc_mbd_joint_solve(const fc_mbd_world *w, const fc_problem *p, double *v, double *lambda,
                          fc_error *err);
/* The equalities of the step's local form loc (W, q from fc_mbd_reduce):
 * V = H^T M^-1 G, R = G^T M^-1 G, s = G^T M^-1 f + b (dense); *Y receives
 * M^-1 G (row-major n x neq) for fc_mbd_joint_recover. */
fc_err fc_mbd_joint_reduce(const fc_mbd_world *w, const fc_problem *g, fc_problem *loc, double **Y,
                           fc_error *err);
/* v += Y lambda. */
void fc_mbd_joint_recover(int n, int neq, const double *Y, const double *lambda, double *v);

#endif
