/* nncg's Newton-Krylov step: a semismooth Newton step on the contacts'
 * equations F(r, u) = 0 (the nsn family's functions), the Newton system
 * solved inexactly by GMRES with W applied by a callback (H^T M^-1 H on
 * the velocity form: W is never formed), right-preconditioned by the
 * inverse of the Jacobian's diagonal blocks. */
#ifndef FRICON_NNCG_NEWTON_H
#define FRICON_NNCG_NEWTON_H

#include "internal.h"
#include "cone/cone.h"

/* y = W x (m vectors). */
typedef void (*fc_nk_apply)(void *ctx, const double *x, double *y);

typedef struct fc_nk {
    int d, nc, m, kmax, form, gs;
    double reg;                /* J + reg I (nncg.newton_reg); set after fc_nk_init */
    const fc_matrix *Ht, *Gt;  /* velocity form (or NULL): rows H^T, rows (M^-1 H)^T */
    double *y2;                /* n: G x in the Gauss-Seidel preconditioner */
    double *rho_n, *rho_t;     /* nc: the functions' per-contact penalties */
    double *Wd;                /* nc d x d: W's diagonal blocks */
    double *A, *B, *P;         /* nc d x d: dF/du, dF/dr, (A W_aa + B)^-1 */
    double *F, *rt, *ut, *x, *du, *z;   /* m */
    double *V, *Hs, *g, *cs, *sn, *y;   /* the Krylov basis and its Hessenberg */
    double eta, fnorm_prev;    /* Eisenstat-Walker forcing; ||F|| at the last step's start */
    double lin;                /* the last GMRES's ||J x + F|| / ||F|| */
    double t, fratio;          /* the last step's length and ||F|| after / before */
    int steps, accepted, krylov_its;
    /* body blocks (nbk = 0: none): contacts bcon[bptr[b]..bptr[b+1]), W's and J's LU at boff[b] */
    int nbk, smax;
    int *bptr, *bcon, *piv, *bok, *moved, refactored;
    size_t *boff;
    double *Wbk, *LU, *wgt, *bx;   /* wgt (nc): 1 / blocks holding the contact */
    double *Jd, *Jnew;             /* nc 2 d x d: A_a W_aa, B_a at the last LU, now */
} fc_nk;

/* Allocates the workspace (once per solve): loc holds W_aa per contact;
 * with Ht, Gt (n columns) and gs > 0 the preconditioner is gs Gauss-Seidel
 * sweeps on J x = b from x = 0, else J's block diagonal. */
int fc_nk_init(fc_nk *k, int d, int nc, int kmax, int form, const fc_local *loc,
               const fc_matrix *Ht, const fc_matrix *Gt, int n, int gs);
void fc_nk_free(fc_nk *k);
/* Preconditioner (gs = 0) by J's inverse on each body's contacts (body[2a],
 * body[2a+1]: contact a's bodies < n, -1: none), averaged over a contact's
 * two bodies (weighted additive Schwarz); 1 when out of memory. */
int fc_nk_init_bodies(fc_nk *k, const int *body, int n, const fc_matrix *Ht, const fc_matrix *Gt);

/* One damped Newton step from (r, u = W r + q).  When the line search on
 * 1/2 ||F||^2 accepts a step, r and u are moved, k->x holds the step
 * taken (for the caller's v += M^-1 H x) and 1 is returned; else r, u are
 * unchanged and 0 is returned. */
int fc_nk_step(fc_nk *k, const fc_problem *p, fc_nk_apply W, void *ctx, const fc_clock *clk,
               double *r, double *u);

#endif
