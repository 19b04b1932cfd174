/* fricon_mbd — rigid bodies with frictional contact, stepped in time with
 * the impulse-velocity (Moreau-Jean / Anitescu-Tasora) scheme; each step
 * builds one global frictional contact problem (M, H, f, w, mu) and solves
 * it with any solver of fricon.h.
 *
 * Units are SI.  Poses: position x (world) and unit quaternion q = (w, x,
 * y, z) taking body coordinates to world coordinates.  Velocities: v is
 * the velocity of the centre of mass, omega the angular velocity, both in
 * world coordinates.  Fixed bodies (planes always; spheres and boxes when
 * made fixed) have no degrees of freedom.
 *
 * One step at time t_l with step h:
 *   contacts at the positions q_l (gap phi <= margin), each with a frame
 *   (n, t1, t2), n pointing from body B towards body A;
 *   M v+ = H r + f,  f = M v_l + h (f_ext - omega x I omega),
 *   u = H^T v+ + w,  w = (stab * phi / h, 0, 0) per contact,
 *   q_{l+1} = q_l + h v+ (quaternions by the exact exponential, renormalised).
 * r are impulses (force = r / h); the problem is an fc_problem of kind
 * FC_GLOBAL with M block-diagonal (6 x 6 per moving body, CSR) and H sparse
 * (n x 3 nc), solved by fc_solve warm-started from the previous step's
 * impulses (contacts matched by body pair and feature).
 */
#ifndef FRICON_MBD_H
#define FRICON_MBD_H

#include "fricon.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fc_mbd_shape {
    FC_MBD_SPHERE, /* radius                                           */
    FC_MBD_BOX,    /* half extents along the body axes                 */
    FC_MBD_PLANE   /* half-space below the body's z = 0 plane: the
                      outward normal is the body z axis; always fixed  */
} fc_mbd_shape;

typedef struct fc_mbd_body {
    fc_mbd_shape shape;
    double radius;      /* sphere                                      */
    double half[3];     /* box half extents                            */
    double mass;        /* kg (ignored when fixed)                     */
    double inertia[3];  /* principal moments in body axes, kg m^2      */
    double x[3];        /* centre of mass (world)                      */
    double q[4];        /* orientation, unit quaternion (w, x, y, z)   */
    double v[3];        /* linear velocity (world)                     */
    double omega[3];    /* angular velocity (world)                    */
    double mu;          /* friction coefficient; a contact uses the
                           smaller of its two bodies' values           */
    int fixed;          /* 1: never moves, no degrees of freedom       */
} fc_mbd_body;

typedef struct fc_mbd_contact {
    int a, b;           /* bodies; n points from b towards a           */
    int feature;        /* which feature of the pair (box corner, ...) */
    double p[3];        /* contact point (world)                       */
    double n[3], t1[3], t2[3]; /* orthonormal frame, n first           */
    double gap;         /* signed distance (< 0: penetration)          */
    double mu;
    double r[3];        /* impulse (n, t1, t2) of the last solve       */
} fc_mbd_contact;

/* Joints: rows G^T v + b = 0 of the step's problem (docs/mbd.md#joints). */
typedef enum fc_mbd_joint_type {
    FC_MBD_BALL,       /* 3 rows: the anchor points coincide            */
    FC_MBD_HINGE,      /* 5: ball, and the axis of a stays along b's     */
    FC_MBD_FIXED,      /* 6: ball, and the relative orientation is kept  */
    FC_MBD_PRISMATIC   /* 5: orientation kept, the anchors move apart
                          only along the axis                           */
} fc_mbd_joint_type;

typedef struct fc_mbd_joint {
    fc_mbd_joint_type type;
    int a, b;           /* bodies; b = -1: the world                    */
    double pa[3], pb[3]; /* anchor in a's frame and in b's (world)      */
    double axis[3];     /* hinge: the axis in a's frame                 */
    double tb[2][3];    /* two unit normals of the axis in b's frame    */
    double qref[4];     /* conj(q_b) q_a when added                     */
    double lambda[6];   /* the last step's impulses of its rows         */
} fc_mbd_joint;

/* Statistics of one step. */
typedef struct fc_mbd_step_info {
    int step;           /* index of the step just taken (from 1)       */
    double time;        /* simulated time after the step              */
    int ncontacts;
    int npairs;         /* candidate pairs of the broad phase          */
    int warm;           /* contacts warm-started from the last step    */
    fc_info solve;      /* the solver's info (zero when no contact); of
                           the local problem when reduced by the step  */
    double global_residual; /* SPEC measure of the global problem at
                           the step's (r, u = H^T v+ + w)              */
    double t_detect;    /* seconds: broad + narrow phase               */
    double t_build;     /* seconds: assembling the global problem      */
    double t_solve;     /* seconds: fc_solve                           */
    double t_step;      /* seconds: the whole step                     */
    double max_speed;   /* max over bodies of |v| after the step       */
    double min_gap;     /* smallest gap among the step's contacts      */
    int neq;            /* joint rows of the step                      */
} fc_mbd_step_info;

typedef struct fc_mbd_world fc_mbd_world;

/* An empty world (gravity (0, 0, -9.81), step 1e-2, margin 1e-3,
 * stabilisation 1).  NULL on allocation failure. */
fc_mbd_world *fc_mbd_world_new(void);
void fc_mbd_world_free(fc_mbd_world *w);

/* Settings. */
void fc_mbd_set_gravity(fc_mbd_world *w, double gx, double gy, double gz);
void fc_mbd_set_step(fc_mbd_world *w, double h);
/* Contacts from gap <= margin (> 0: contacts about to close are seen). */
void fc_mbd_set_margin(fc_mbd_world *w, double margin);
/* Factor of phi/h in w (1: the seed's full stabilisation). */
void fc_mbd_set_stabilisation(fc_mbd_world *w, double factor);
/* The warm start from the last step's impulses (contacts matched by body
 * pair and feature): 0 their (n, t1, t2) components copied (default), 1
 * the impulse kept as a world vector, projected on the new frame and
 * cone (docs/granular-piles.md: a tie with 0 on the piles). */
void fc_mbd_set_warm_start(fc_mbd_world *w, int mode);
double fc_mbd_step_size(const fc_mbd_world *w);
double fc_mbd_time(const fc_mbd_world *w);

/* Add a body: its index, or -1 on failure; mass and inertia from the
 * density (kg/m^3), identity orientation, zero velocity, mu 0.5. */
int fc_mbd_add_sphere(fc_mbd_world *w, double radius, double density,
                      double x, double y, double z);
int fc_mbd_add_box(fc_mbd_world *w, double hx, double hy, double hz,
                   double density, double x, double y, double z);
/* The fixed half-space {p : n . (p - point) <= 0}, n outward (normalised). */
int fc_mbd_add_plane(fc_mbd_world *w, double nx, double ny, double nz,
                     double px, double py, double pz);
/* Add a body given in full (copied; q is normalised). */
int fc_mbd_add_body(fc_mbd_world *w, const fc_mbd_body *b);

int fc_mbd_body_count(const fc_mbd_world *w);
/* The body (modifiable: pose, velocity, mu, mass); NULL if out of range. */
fc_mbd_body *fc_mbd_body_at(fc_mbd_world *w, int i);
/* Set a box's or sphere's mass, recomputing its inertia (uniform). */
void fc_mbd_set_mass(fc_mbd_body *b, double mass);

/* Add a joint between bodies a and b (b = -1: the world) at the world
 * point anchor, with the world axis (hinge, prismatic; else ignored), at
 * the current poses: its index, -1 on bad arguments or allocation failure. */
int fc_mbd_add_joint(fc_mbd_world *w, fc_mbd_joint_type type, int a, int b,
                     const double anchor[3], const double axis[3]);
int fc_mbd_joint_count(const fc_mbd_world *w);
const fc_mbd_joint *fc_mbd_joint_at(const fc_mbd_world *w, int i);
/* Rows of a joint type in 3D (planar worlds keep the in-plane ones). */
int fc_mbd_joint_rows(fc_mbd_joint_type type);
/* Position errors of joint j at the current poses; their number. */
int fc_mbd_joint_error(const fc_mbd_world *w, int j, double *C);
/* Largest |error| over all joints. */
double fc_mbd_joint_drift(const fc_mbd_world *w);
/* Factor of C / h in b (default 1, as the contacts' stabilisation). */
void fc_mbd_set_joint_stabilisation(fc_mbd_world *w, double factor);
/* The solver fc_mbd_step uses when given NULL: the default, or with joints
 * the first of it, nsn-ac, nsgs that handles equalities (else the default). */
const char *fc_mbd_default_solver(const fc_mbd_world *w);
/* Gravity's potential energy -sum m g . x. */
double fc_mbd_potential_energy(const fc_mbd_world *w);

/* Detect contacts at the current positions (as fc_mbd_step does): their
 * number, -1 on allocation failure. */
int fc_mbd_detect(fc_mbd_world *w);
int fc_mbd_contact_count(const fc_mbd_world *w);
const fc_mbd_contact *fc_mbd_contact_at(const fc_mbd_world *w, int i);

/* The global problem of a step from the current state (contacts must be
 * detected).  NULL problem when there is no contact. */
fc_err fc_mbd_build_problem(const fc_mbd_world *w, fc_problem **p, fc_error *err);

/* Advance one step: detect, build, solve with the named solver (NULL: the
 * default) and options (NULL: defaults; opt->r0 ignored: the warm start is
 * the previous step's), update velocities and positions.  A solver without
 * a global entry point gets the local problem that the step reduces itself
 * (M^-1 block-diagonal, body by body), unless
 * fc_mbd_set_general_reduction(w, 1).  A solver that does not converge
 * does not stop the simulation (status in info->solve); FC_OK unless an
 * error (allocation, solver setup) prevents the step. */
fc_err fc_mbd_step(fc_mbd_world *w, const char *solver, const fc_options *opt,
                   fc_mbd_step_info *info, fc_error *err);
/* The last step's problem (NULL: no contact), the world's, until the next. */
const fc_problem *fc_mbd_last_problem(const fc_mbd_world *w);
/* Its local form (W, q) when the step reduced it, else NULL. */
const fc_problem *fc_mbd_last_local_problem(const fc_mbd_world *w);
void fc_mbd_set_general_reduction(fc_mbd_world *w, int on);
/* Planar motion (default off): (vx, vy, omega_z) per body, problems of
 * d = 2 (n, t1 = e_z x n) solved in global form (docs/mbd.md). */
void fc_mbd_set_planar(fc_mbd_world *w, int on);
int fc_mbd_planar(const fc_mbd_world *w);
/* The last step's problem (local: its form W, q) as FClib HDF5, with
 * /solution (r, u, global: v+) and /guesses/1 (the step's warm start);
 * sol_path != NULL: the solution as SPEC section 3 text (fccheck.py). */
fc_err fc_mbd_export_last(const fc_mbd_world *w, const char *path, int local,
                          const char *sol_path, fc_error *err);

/* Diagnostics over the contacts of body i (i < 0: all): the sum of the
 * forces (r / h, world), of r_N / h, and |sum of the tangential forces|. */
void fc_mbd_contact_forces(const fc_mbd_world *w, int i, double force[3],
                           double *normal, double *tangential);
double fc_mbd_kinetic_energy(const fc_mbd_world *w);

/* World coordinates of body-frame vector bv rotated by q (no translation). */
void fc_mbd_rotate(const double q[4], const double bv[3], double out[3]);

/* Legacy VTK polydata of the bodies for ParaView: spheres as vertices with
 * a "radius" scalar, boxes as 6 quads, planes as squares of plane_size. */
fc_err fc_mbd_write_vtk(const fc_mbd_world *w, const char *path,
                        double plane_size, fc_error *err);

/* ---- scenes -------------------------------------------------------- */

typedef struct fc_mbd_scene_params {
    double angle_deg;   /* incline / slide: plane angle; default 25 (incline), 25 (slide) */
    double mu;          /* friction; < 0: the scene's default          */
    int count;          /* pile / column: number of spheres; tower /
                           wall / arch: boxes; <= 0: default           */
    unsigned seed;      /* random placements (pile, column), small
                           perturbations (tower, wall, arch; 0: none);
                           default 1                                   */
} fc_mbd_scene_params;

void fc_mbd_scene_defaults(fc_mbd_scene_params *par);
/* Scene names: incline slide stack pile column chute disks-wall hopper
 * tower wall arch (the last three: count boxes, seed 0 no perturbation). */
int fc_mbd_scene_count(void);
const char *fc_mbd_scene_name(int i);
const char *fc_mbd_scene_description(int i);
/* Build a scene (sets gravity, step and margin too).  For incline and
 * slide the box is body 1 (body 0 the plane). */
fc_err fc_mbd_scene(const char *name, const fc_mbd_scene_params *par,
                    fc_mbd_world **w, fc_error *err);
/* Bytes a scene needs while stepping, estimated before building it
 * (bodies, contacts, the step's problem; no solver workspace). */
double fc_mbd_scene_memory(const char *name, const fc_mbd_scene_params *par);

#ifdef __cplusplus
}
#endif
#endif /* FRICON_MBD_H */
