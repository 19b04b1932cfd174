/* ipm-mdp's workspace, shared by its local part (ipm_mdp.c), its
 * global part (ipm_mdp_global.c: the Newton matrix at the bodies' level,
 * K = M + H D^-1 H', without W) and its equality rows (ipm_mdp_eq.c: the
 * bordered Newton matrix).  Private to the library. */
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
    /* equality rows (neq > 0): the multipliers y (SPEC's lambda) a free
     * unknown, the rows in the Newton matrix: local [W + D, V; V', R]
     * (its own LU, J's pattern bordered), global K bordered by
     * [-G; -G', 0] (ipm_mdp_eq.c) */
    int neq;
    double *y, *dy, *dya, *best_y;   /* multipliers, step, predictor step, best */
    double *R3;               /* V'r + R y + s, or G'v + b                 */
    double *ey;               /* scratch of neq                            */
    double ereg;              /* the multipliers' static regularisation    */
    int N;                    /* bordered size: m + neq                    */
    int *Bp, *Bi;             /* local: bordered CSC pattern               */
    double *Bx, *bx, *bres;   /* its values; N-vectors (rhs, residual)     */
    long *bmap;               /* J's CSC index -> bordered index            */
    long *bdiag;              /* the multipliers' diagonal positions       */
    double *rdiag;            /* R's diagonal                              */
    fc_lu *Blu;
    fc_matrix *Gr;            /* global: G as CSR                          */
    long *gpos;               /* positions of (i, n + j), (n + j, i) in K  */
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
/* u of r (and y): v_r = M^-1 (H r + G y + f) into w->vr, u = H' v_r + w. */
void fc_mdp_global_u(mdp *w, const double *r, const double *y, double *u);
/* K from the current scalings (w->Dn, w->B), factorised. */
int fc_mdp_global_factor(mdp *w);
/* The step (dv, dr, du) from h (w->rhs, per contact) and the residuals. */
int fc_mdp_global_solve(mdp *w, double *dv, double *dr, double *du, double *dy);
/* K's Cholesky entries and flops predicted from (M, H)'s pattern alone (auto). */
fc_err fc_mdp_global_predict(const fc_problem *p, double *entries, double *flops, fc_error *err);

/* The equality rows (ipm_mdp_eq.c). */
/* The least 1/condition (the LU's pivot ratio) of a bordered Newton
 * matrix: the multipliers' pivots are Schur complements V'(W + D)^-1 V
 * or G'K^-1 G, of the order of the contacts' pivots' inverse, so the
 * square of the plain matrix's 1e-15.  The solve is refined against the
 * exact matrix and refused (a NaN too) when its residual stays above
 * MDP_EQ_SOLVED of the right-hand side (rounding leaves 1e-8 near the end
 * of the path on a 60-row chain step). */
#define MDP_EQ_RCOND 1e-30
#define MDP_EQ_SOLVED 1e-6
/* Refinement steps of a bordered solve against the exact matrix. */
#define MDP_EQ_REFINE 4
/* Multipliers, residual and (local) the bordered pattern and its LU. */
int fc_mdp_eq_init(mdp *w, const double *y0);
void fc_mdp_eq_free(mdp *w);
/* out = V'r + R y + s (local) or G'v + b (global); its scaled norm. */
double fc_mdp_eq_rows(const mdp *w, const double *r, const double *y, const double *v,
                      double *out);
/* Global: the multipliers' regularisation (G' as CSR, M's scale). */
double fc_mdp_eq_global_reg(const mdp *w, const fc_matrix *Gt, double mscale);
/* Local: J's values (W + D + delta) into the bordered matrix, factorised. */
int fc_mdp_eq_factor(mdp *w, double delta, double *rcond);
/* Local: [dr; dy] for [W + D, V; V', R] [dr; dy] = [rhs; -R3], refined;
 * exact: out = (W + D) x as ipm_mdp.c's mdp_apply. */
int fc_mdp_eq_solve(mdp *w, void (*exact)(mdp *, const double *, double *), double *dr,
                    double *dy);

#endif
