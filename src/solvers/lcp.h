/* The 2D frictional contact problem written as a linear complementarity
 * problem (LCP), shared by the pivoting solvers lemke.c and enum.c.
 *
 * Per contact a, four LCP variables z and four slacks w = M z + q:
 *   z = (r_N, r_T+, r_T-, lambda)      with r_T = r_T+ - r_T-
 *   w = (u_N, u_T + lambda, -u_T + lambda, mu r_N - r_T+ - r_T-)
 * and 0 <= w  _|_  z >= 0.  lambda is the sliding speed |u_T| when the
 * contact slides; the last row is the (polyhedral, in 2D) friction cone.
 * Every solution of the LCP gives a solution of FC(W, q, mu) and back.
 *
 * The LCP is stored symmetrically scaled, M' = D M D and q' = D q / t,
 * with D = (s, s, s, 1/s) per contact, s = 1/sqrt(W_NN) (so that the W
 * part has a unit diagonal and the cone rows keep entries mu and -1),
 * and t = ||q||_inf (the LCP is positively homogeneous in q).  Its
 * solution z' maps back through z = t D z'. */
#ifndef FRICON_SOLVERS_LCP_H
#define FRICON_SOLVERS_LCP_H

#include "internal.h"

typedef struct fc_lcp {
    int n;          /* LCP size, 4 nc                                  */
    fc_matrix *M;   /* n x n CSR, columns sorted per row (scaled)      */
    double *q;      /* n (scaled)                                      */
    double *D;      /* n: the diagonal scaling                          */
    double t;       /* the scale of q (1 when q = 0)                    */
} fc_lcp;

/* Build the scaled LCP of a local 2D problem.  FC_OK, or FC_ERR_NOMEM /
 * FC_ERR_UNSUPPORTED (d != 2) with a message. */
fc_err fc_lcp2d_build(const fc_problem *p, fc_lcp *lcp, fc_error *err);
/* The same with reg added to the scaled diagonal of W (W + reg diag(W_NN)
 * per contact, unscaled): a regularised LCP for singular W. */
fc_err fc_lcp2d_build_reg(const fc_problem *p, double reg, fc_lcp *lcp, fc_error *err);
void fc_lcp_free(fc_lcp *lcp);

/* r (2 nc) from a solution z of the scaled LCP. */
void fc_lcp2d_reactions(const fc_problem *p, const fc_lcp *lcp, const double *z, double *r);

/* w = M z + q of the scaled LCP. */
void fc_lcp_slack(const fc_lcp *lcp, const double *z, double *w);

/* The LCP's own measure: || min(z, w) ||_inf with w = M z + q (scaled). */
double fc_lcp_error(const fc_lcp *lcp, const double *z, double *w);

#endif
