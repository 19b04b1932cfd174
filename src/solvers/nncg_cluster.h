/* nncg.cluster: exact solves of small clusters of contacts between the
 * sweeps (velocity form; docs/granular-piles.md).  Clusters grow from the
 * contacts of largest error over the body graph; each is solved as
 * FC(W_cc, q_c, mu_c) with the rest of r fixed, by Levenberg-Marquardt
 * steps on the Alart-Curnier function (dense, LAPACK). */
#ifndef FRICON_NNCG_CLUSTER_H
#define FRICON_NNCG_CLUSTER_H

#include "internal.h"

typedef struct fc_cluster {
    int d, nc, n, cap;
    const int *body;              /* 2 nc: the contacts' bodies (-1: none) */
    int *bptr, *bcon;             /* each body's contacts */
    unsigned char *taken;         /* nc */
    int *mem;                     /* cap: a cluster's contacts */
    double *err;                  /* nc: each contact's error at the pass */
    double *x;                    /* n scratch, zero between uses */
    double *W, *J, *JJ;           /* (d cap)^2 each */
    double *q, *r, *r0, *u, *F, *A, *B, *g, *dr, *rt, *ut, *Ft, *rho;   /* d cap (A, B: d d cap) */
    double *muc;                  /* cap: the cluster's mu */
    unsigned char *near;          /* nc: marks of the contacts a step changes */
    int *set;                     /* nc: those contacts */
    double *sr, *sdr, *su, *sdu;  /* d nc: their r, dr, u, du */
    long solves, contacts, newton, improved;   /* the solves' counts */
    double share;                 /* the last pass's clusters' share of ||e||^2 */
    double tsum;                  /* the steps' fractions taken, summed */
    double work;                  /* the passes' floating-point operations, counted */
} fc_cluster;

/* Once per solve: clusters of at most cap contacts; 1: out of memory. */
int fc_cluster_init(fc_cluster *c, int d, int nc, int n, int cap, const int *body, int nbodies);
void fc_cluster_free(fc_cluster *c);

/* count disjoint clusters at (r, u = H^T v + w) (chains: grown through
 * the sticking contacts only), each solved to newton_tol
 * (its natural-map error relative to its start) in at most newton_max
 * steps, r and v updated in place (v += M^-1 H dr through Gt's rows).
 * Returns the contacts whose r changed; c->work grows by the pass's
 * operations (the dense solves' and the products with Ht and Gt). */
int fc_cluster_pass(fc_cluster *c, const fc_problem *p, const fc_matrix *Ht, const fc_matrix *Gt,
                    const double *w, const double *u, int count, int chains, double newton_tol,
                    int newton_max, double *r, double *v);

#endif
