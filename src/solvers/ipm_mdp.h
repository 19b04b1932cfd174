/* ipm-mdp's workspace, shared by its local part (ipm_mdp.c) and its
 * global part (ipm_mdp_global.c: the Newton matrix at the bodies' level,
 * K = M + H D^-1 H', without W).  Private to the library. */
#ifndef FRICON_IPM_MDP_H
#define FRICON_IPM_MDP_H

#include "internal.h"
#include "linsys/linsys.h"

typedef struct mdp {
    const fc_problem *p;
    const fc_options *opt;
    int d, nc, m;
    fc_matrix *Wown;          /* W as block-CSR (d) when it was not        */
    const fc_matrix *W;
    fc_bjac J;                /* W + D: pattern, values, LU                */
    double *r, *u, *psi;      /* iterate (u independent of r until solved) */
    double *dr, *du, *dpsi;   /* step                                      */
    double *dra, *dua, *dpsia; /* predictor step                            */
    double *R1;               /* u - W r - q                               */
    double *nt, *lam, *B;     /* per contact: NT (d + 1), lambda (d), G^-2 (d x d) */
    double *Dn;               /* per contact: u_N / r_N                    */
    double *g;                /* per contact: G^-1 (lambda \ rc_F) (d)     */
    double *rc;               /* per contact: rc_N, rc_F (1 + d)           */
    double *rhs, *res, *tmp, *ue, *best_r;
    double *step;             /* per contact: its own step (mdp_unjam)      */
    double wscale;            /* largest |diagonal entry| of W             */
    /* the global form (M, H) without W: the body-level Newton matrix
     * K = M + H D^-1 H' (bodies' contact graph), sparse LU */
    int global, n;
    fc_matrix *Hc;            /* H' as CSR: row d a + k lists H's column   */
    fc_chol *Mf;              /* Cholesky of M                             */
    double *v, *dv, *dva, *R0, *vr, *tn, *Dinv, *HR;
    int *Kp, *Ki, *rofs, *ridx;
    long *kofs, *kpos, *mpos;
    double *Kx, *tk;
    fc_lu *Klu;
    fc_matrix *Mr;            /* M as CSR (its values, in mpos's order)    */
    long *kdiag;              /* K's diagonal positions                     */
    fc_clock clock;
    fc_error err;
} mdp;

/* Has contact a a friction pair (mu > 0)?  Without, r_T is held at 0. */
static inline int fc_mdp_frictional(const mdp *w, int a) { return w->p->mu[a] > 0; }

/* D_a (d x d, column-major) from the scalings: du_a = h_a - D_a dr_a
 * (ipm_mdp.c). */
void fc_mdp_dblock(const mdp *w, int a, double *D);

/* The global part (ipm_mdp_global.c). */
/* Workspace for (M, H): M's Cholesky, H' by rows, K's pattern and LU. */
int fc_mdp_global_init(mdp *w);
/* W's diagonal block H_a' M^-1 H_a of contact a (d x d, column-major). */
int fc_mdp_global_wblock(mdp *w, int a, double *blk);
/* u of r: v_r = M^-1 (H r + f) into w->vr, u = H' v_r + w. */
void fc_mdp_global_u(mdp *w, const double *r, double *u);
/* K from the current scalings (w->Dn, w->B), factorised. */
int fc_mdp_global_factor(mdp *w);
/* The step (dv, dr, du) from h (w->rhs, per contact) and the residuals. */
int fc_mdp_global_solve(mdp *w, double *dv, double *dr, double *du);

#endif
