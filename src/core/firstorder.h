/* The first-order and fixed-point solvers' helpers: the natural map, the
 * iteration bookkeeping, Anderson acceleration. */
#ifndef FRICON_FIRSTORDER_H
#define FRICON_FIRSTORDER_H

#include "internal.h"
#include "core/anderson.h"

/* ---- the maps ------------------------------------------------------ */

/* u = W r + q. */
void fo_velocity(const fc_problem *p, const double *r, double *u);
/* F = u + g(u), De Saxce's modified velocity (ccp: F = u); may alias. */
void fo_uhat(const fc_problem *p, int ccp, const double *u, double *F);
/* x <- P_K(x), contact by contact (Coulomb cones, d = 2, 3, 5). */
void fo_project(const fc_problem *p, double *x);
/* The SPEC measure at (r, u); ccp: with g = 0 (the relaxation's). */
double fo_error(const fc_problem *p, int ccp, const double *r, const double *u);
/* An estimate of lambda_max(W) by power iteration (w1, w2: m doubles). */
double fo_lambda_max(const fc_matrix *W, int m, double *w1, double *w2);
/* y = P_K(x - rho F), and ||x - y|| returned. */
double fo_proj_step(const fc_problem *p, const double *x, double rho,
                    const double *F, double *y);

/* ---- iteration bookkeeping ---------------------------------------- */

/* One run: the registered solver (outer = 1: progress called) or inner. */
typedef struct fo_run {
    const fc_problem *p;
    const fc_options *opt;
    int ccp;            /* 1: solve the convex relaxation (g = 0)          */
    int outer;
    double tol;
    int max_iter;
    fc_clock clock;
    int m;
    double *best;       /* best iterate so far (m)                          */
    double best_err;
    int iterations;     /* iterations done                                  */
    double error;       /* the last iterate's error                         */
    char message[160];
    /* a ccp run's set: K, or (tfp, pfp) R+ x disk(s), r_N >= 0 with r_T
     * fixed (NORMAL), r_T in disk(s) with r_N fixed (TANGENT) */
    int set;
    const double *s;     /* nc thresholds (cylinder, tangent)             */
    const double *fixed; /* m values of the frozen components             */
} fo_run;

enum { FO_SET_CONE, FO_SET_CYLINDER, FO_SET_NORMAL, FO_SET_TANGENT };
/* x <- the projection of x onto the run's set. */
void fo_run_project(const fo_run *R, double *x);
/* The residual of the run's convex problem (g = 0) at x, u = W x + q. */
double fo_run_set_error(const fo_run *R, const double *x, const double *u);

/* Start a run from r; deadline NULL: opt->time_limit's; -1: out of memory. */
int fo_run_begin(fo_run *R, const fc_problem *p, const fc_options *opt, int ccp,
                 int outer, double tol, int max_iter, const fc_clock *deadline,
                 const double *r);
/* After iteration it (0-based) produced r with error err: -1 to go on, or
 * the status to stop with.  Keeps the best finite iterate. */
int fo_run_check(fo_run *R, int it, const double *r, double err);
/* End the run with status st: r <- the best iterate when the last one is
 * worse or not finite; u = W r + q; frees; returns st (FC_DIVERGED kept). */
fc_status fo_run_end(fo_run *R, int st, double *r, double *u);
/* Copy the run's outcome to info (outer runs). */
fc_status fo_run_report(const fo_run *R, fc_status st, fc_info *info);

/* An inner solve's tolerance after an outer error err: io->tol, or with
 * the ADAPTIVE strategies err-based, within [0.1 outer_tol, 0.1]. */
double fo_inner_tol(const fc_inner_options *io, double err, int nc, double outer_tol);

/* A sub-problem sharing p's data but with another W and/or q. */
fc_problem fo_subproblem(const fc_problem *p, fc_matrix *W, double *q);

/* ---- safeguarded Anderson acceleration of an iteration map -------- */

/* x <- G(x) (a projection step, an NSGS sweep) replaced after start plain
 * maps by the Anderson extrapolation of the last mem, projected onto K;
 * dropped, history reset, when ||G(x) - x|| grows by more than growth. */
typedef struct fo_accel {
    fc_anderson aa;
    int on, start, extrapolated, accepted, wait;
    int rest;           /* plain iterations after a rejection (start)      */
    int window, count, plain, plain_len; /* stagnation (window 0: off) */
    double growth, fres_last, err_ref;
    double *x;          /* the iterate before the map (m)                  */
} fo_accel;

/* 0 on success (also when off), -1 when out of memory. */
int fo_accel_init(fo_accel *A, int mem, int start, double growth, int m);
/* The same for NSGS sweeps (nsgs, nsgs-v) from o's nsgs.anderson*: no
 * rest after a rejection, plain phases after anderson_window sweeps. */
int fo_accel_init_nsgs(fo_accel *A, const fc_nsgs_options *o, int m);
/* Before the map: remember x = r. */
void fo_accel_save(fo_accel *A, const double *r, int m);
/* After map it (err at x): r = G(x) in, the next iterate out; 1 when r
 * changed.  err not halved in window iterations: plain maps from best. */
int fo_accel_apply(fo_accel *A, const fc_problem *p, int it, double err, const double *best,
                   double *r);
void fo_accel_free(fo_accel *A);
/* An fp.anderson loop's start: n zeroed doubles and A (NULL: out of
 * memory); fo_fp_end frees both and ends R with st. */
double *fo_fp_begin(fo_run *R, fo_accel *A, size_t n);
fc_status fo_fp_end(fo_run *R, fo_accel *A, double *ws, int st, double *r, double *u);

/* ---- cores shared between files ------------------------------------ */

/* A core iteration: runs R on R->p from r (kind: the member), ends R. */
typedef fc_status (*fo_core)(fo_run *R, int kind, double *r, double *u);
/* A registered solver: one outer run of core under opt's limits, on the
 * problem (ccp = 0) or its convex relaxation (ccp = 1). */
fc_status fo_solve_outer(const fc_problem *p, const fc_options *opt, fo_core core,
                         int kind, int ccp, double *r, double *u, fc_info *info);

/* The projection family (fpp.c, eg.c, hp.c): one loop calls the member's
 * step, which maps r (u = W r + q, F = F(r)) to the next r and its u. */
typedef struct fo_proj {
    const fc_problem *p;
    const fc_fp_options *o;
    int m, ccp;
    double rho;                 /* the step size, kept between iterations */
    int grow;                   /* 0: rho may only shrink                 */
    double *F;                  /* F(r) at the current iterate            */
    double *y, *uy, *Fy, *z;    /* workspace, m each                      */
} fo_proj;
typedef struct fo_proj_method {
    void (*step)(fo_proj *S, double *r, double *u);
    /* the default rho = 1/lambda_max(W) rescaled (NULL: kept) */
    double (*rho0)(const fc_problem *p, int ccp, double rho);
} fo_proj_method;
extern const fo_proj_method fo_fpp_method, fo_eg_method, fo_vi_fpp_method,
    fo_vi_eg_method, fo_hp_method;
enum { FO_FPP, FO_EG, FO_VI_FPP, FO_VI_EG, FO_HP };
/* Member kind on (R->p, R->ccp) from r; r out: the best, u = W r + q. */
fc_status fo_projection_run(fo_run *R, int kind, double *r, double *u);
/* The registered solver of member kind (fo_solve_outer of the above). */
fc_status fo_projection_solve(int kind, const fc_problem *p, const fc_options *opt, double *r,
                              double *u, fc_info *info);
/* The self-adaptive step (fpp.c): y = P_K(x - rho F), rho shrunk until
 * rho ||F - F(y)|| <= ls_L ||x - y||, grown under ls_Lmin; the rho used. */
double fo_adaptive_step(fo_proj *S, const double *x);

/* APGD on the convex relaxation K* ∋ W r + q ⟂ r ∈ K; kind unused. */
fc_status fo_apgd_run(fo_run *R, int kind, double *r, double *u);

/* The ACLM fixed point with the convex solver inner (an fc_ccp_solver). */
fc_status fo_aclm_solve(const fc_problem *p, const fc_options *opt, int inner,
                        double *r, double *u, fc_info *info);

/* A Tresca-type convex problem with thresholds s (nc): 0 <= u_N ⟂ r_N >= 0,
 * ||r_T|| <= s, -u_T normal to the disk at r_T; mode FULL, NORMAL (r_T
 * frozen) or TANGENT (r_N frozen).  Solved from r by opt->tresca's inner
 * solver to tol; returns the residual, *its the sweeps or iterations. */
enum { FO_TRESCA_FULL, FO_TRESCA_NORMAL, FO_TRESCA_TANGENT };
typedef struct fo_tresca fo_tresca;
fo_tresca *fo_tresca_new(const fc_problem *p, const fc_options *opt);
double fo_tresca_solve(fo_tresca *T, int mode, const double *s, double tol,
                       const fc_clock *deadline, double *r, int *its);
void fo_tresca_free(fo_tresca *T);
/* The outer loop of tfp and pfp: each step updates r to inner tolerance
 * tol (s: nc thresholds of scratch), returns its inner sweeps (logged). */
enum { FO_TFP, FO_PFP };
fc_status fo_tresca_run(fo_run *R, int kind, double *r, double *u);
int fo_pfp_step(fo_run *R, fo_tresca *T, double *s, double tol, int it, double err, double *r);

#endif
