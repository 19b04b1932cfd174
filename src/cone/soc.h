/* Second-order cone Q = {(x0, x1): ||x1|| <= x0}, k >= 2, for ipm.c: the
 * Jordan algebra x o y = (x'y, x0 y1 + y0 x1), Nesterov-Todd scaling and
 * the step to the boundary. */
#ifndef FRICON_SOC_H
#define FRICON_SOC_H

/* det x = x0^2 - ||x1||^2; out = x o y (no aliasing); out solving
 * l o out = r for interior l (out may alias r). */
double fc_soc_det(int k, const double *x);
void fc_soc_prod(int k, const double *x, const double *y, double *out);
void fc_soc_div(int k, const double *l, const double *r, double *out);

/* NT scaling of interior x, y: G = eta (2 v v' - J), J = diag(1, -1, ..),
 * G y = G^-1 x = lambda; nt = (eta, v) (k + 1 doubles), lam = lambda. */
void fc_soc_nt(int k, const double *x, const double *y, double *nt, double *lam);
/* out = G a  (inv = 0) or G^-1 a (inv = 1); out may not alias a. */
void fc_soc_nt_apply(int k, const double *nt, int inv, const double *a, double *out);
/* G^-2 (k x k, column-major): the scaling's block of the Newton matrix. */
void fc_soc_nt_inv2(int k, const double *nt, double *blk);

/* Largest alpha in [0, amax] with x + alpha dx in Q (x in Q). */
double fc_soc_max_step(int k, const double *x, const double *dx, double amax);
/* The smallest t with x + t e in Q, i.e. ||x1|| - x0. */
double fc_soc_depth(int k, const double *x);

#endif
