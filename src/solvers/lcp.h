/* The 2D frictional contact problem as an LCP (lemke.c, enum.c).  Per
 * contact z = (r_N, r_T+, r_T-, lambda), w = M z + q = (u_N, u_T + lambda,
 * -u_T + lambda, mu r_N - r_T+ - r_T-), 0 <= w _|_ z >= 0; its solutions
 * are those of FC(W, q, mu).  Stored scaled, M' = D M D, q' = D q / t,
 * D = (s, s, s, 1/s), s = 1/sqrt(W_NN), t = ||q||_inf: z = t D z'. */
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

/* The scaled LCP of a local 2D problem (FC_ERR_UNSUPPORTED when d != 2). */
fc_err fc_lcp2d_build(const fc_problem *p, fc_lcp *lcp, fc_error *err);
/* The same for W + reg diag(W_NN), a regularised LCP for singular W. */
fc_err fc_lcp2d_build_reg(const fc_problem *p, double reg, fc_lcp *lcp, fc_error *err);
void fc_lcp_free(fc_lcp *lcp);

/* r (2 nc) from a solution z of the scaled LCP. */
void fc_lcp2d_reactions(const fc_problem *p, const fc_lcp *lcp, const double *z, double *r);

/* w = M z + q of the scaled LCP. */
void fc_lcp_slack(const fc_lcp *lcp, const double *z, double *w);

/* The LCP's own measure: || min(z, w) ||_inf with w = M z + q (scaled). */
double fc_lcp_error(const fc_lcp *lcp, const double *z, double *w);

#endif
