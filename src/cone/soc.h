/* Second-order cone Q = {(x0, x1): ||x1|| <= x0}, k >= 2, for ipm.c: the
 * Jordan algebra x o y = (x'y, x0 y1 + y0 x1), Nesterov-Todd scaling and
 * the step to the boundary. */
#ifndef FRICON_SOC_H
#define FRICON_SOC_H

/* det x = x0^2 - ||x1||^2; x o y (no aliasing); l o out = r (may alias). */
double fc_soc_det(int k, const double *x);
void fc_soc_prod(int k, const double *x, const double *y, double *out);
void fc_soc_div(int k, const double *l, const double *r, double *out);

/* NT scaling: G = eta (2 v v' - J), G y = G^-1 x = lam; nt = (eta, v). */
void fc_soc_nt(int k, const double *x, const double *y, double *nt, double *lam);
/* out = G a  (inv = 0) or G^-1 a (inv = 1); out may not alias a. */
void fc_soc_nt_apply(int k, const double *nt, int inv, const double *a, double *out);
/* G^-2 (k x k, column-major): the scaling's block of the Newton matrix. */
void fc_soc_nt_inv2(int k, const double *nt, double *blk);

double fc_soc_max_step(int k, const double *x, const double *dx, double amax);  /* x + a dx in Q */
double fc_soc_depth(int k, const double *x);   /* min t: x + t e in Q, ||x1|| - x0 */

#endif
