/* Cone projections and one-contact solvers of the Gauss-Seidel family. */
#ifndef FRICON_CONE_H
#define FRICON_CONE_H

#include "fricon.h"

/* x (n = 1, 2) projected in place onto the disk |x| <= R (Tresca's set). */
void fc_project_disk(int n, double R, double *x);

/* One contact: W_aa and coefficients; Alart-Curnier steps rho_n = 1/W_NN,
 * rho_t = 1/lambda_max(W_TT) (rho_r: W_RR, d = 5); the projection solver's
 * rho = 1/lambda_max(W_aa) (an upper bound).  d = 3: the sticking test's
 * inverse or elimination of W_aa, done once; d, mu, lu first (two cache lines). */
typedef struct fc_local {
    signed char d;
    signed char iso;            /* d = 3: 1 when W_aa is isotropic to rounding
                                   (W_TN, W_NT, W_TT's off-diagonal ~ 0, W_TT's
                                   diagonal equal): the hybrid's closed-form
                                   sliding candidate applies */
    signed char piv[3], lu_ok;  /* d = 3: 2 lu is W_aa^-1 by rows; 1 its LU
                                   with pivot rows piv; 0 W_aa singular */
    double mu;
    double lu[9];           /* d = 3: the inverse, or multipliers then U by rows */
    double mu_r;
    double rho_n, rho_t, rho_r, rho;
    double W[25];           /* d x d, column-major */
} fc_local;

/* Parameters of a one-contact solve. */
typedef struct fc_local_params {
    fc_local_solver kind;
    double tol;             /* relative natural-map error to reach */
    int max_iter;           /* Newton iterations (projection: 10 x this) */
} fc_local_params;

/* Fill c from the diagonal block W (d x d column-major) and mu, mu_r. */
void fc_local_setup(fc_local *c, int d, const double *W, double mu, double mu_r);
/* loc[a] for every contact a of p from W's diagonal blocks (W: p's or its
 * block copy), on the solve's threads. */
void fc_local_setup_all(const fc_problem *p, const fc_matrix *W, fc_local *loc);

/* u = W r + q for one contact. */
void fc_local_velocity(const fc_local *c, const double *q, const double *r, double *u);

/* The one-contact SPEC error ||r - P_K(r - u_hat)|| / max(||q||, ||r||,
 * ||u||) at r, with u = W r + q (the scale replaced by 1 below 1e-300). */
double fc_local_error(const fc_local *c, const double *q, const double *r);

/* Solve J x = b (d <= 3, row-major J, partial pivoting) in place in b;
 * 0 on success, -1 when J is numerically singular.  J is overwritten. */
int fc_small_solve(int d, double J[5][5], double *b);

/* The one-contact solvers.  Each starts from r (warm start), leaves in r
 * its best iterate and returns its local error. */
double fc_local_projection(const fc_local *c, const double *q, double tol,
                           int max_iter, double *r);
double fc_local_newton_ac(const fc_local *c, const double *q, double tol,
                          int max_iter, double *r);
double fc_local_exact(const fc_local *c, const double *q, double *r);
/* d = 2: the contact law in closed form (take-off, sticking, sliding);
 * 0 with r set, -1 when no case holds (then use a solver above). */
int fc_local_law_2d(const fc_local *c, const double *q, double *r);
/* d = 3: take-off or sticking when one holds (0, r set), else -1. */
int fc_local_law_3d(const fc_local *c, const double *q, double *r);
/* d = 3 (c's d, mu, W, factor, iso): the hybrid's closed forms, r set:
 * 0 take-off or sticking, 1 isotropic sliding within tol; else -1. */
int fc_local_closed_3d(const fc_local *c, const double *q, double tol, double *r);

/* Solve one contact with the solver chosen in par (the hybrid: AC Newton,
 * then projection, then the exact enumeration, keeping the best).
 * Returns the local error of the r left in r. */
double fc_local_solve(const fc_local *c, const double *q,
                      const fc_local_params *par, double *r);
/* After fc_local_closed_3d's -1: the hybrid's search (else fc_local_solve). */
double fc_local_solve_open(const fc_local *c, const double *q,
                           const fc_local_params *par, double *r);

#endif
