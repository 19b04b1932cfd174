/* Private helpers of the first-order and fixed-point solvers (fpp.c,
 * eg.c, hp.c, dsfp.c, apgd.c, aclm.c, prox.c, tfp.c, pfp.c, nsgs.c,
 * nsgs_v.c): the natural map, the iteration bookkeeping and Anderson
 * acceleration.  Not installed. */
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

/* One run of an iterative method: the registered solver (outer = 1: the
 * progress callback is called) or an inner solve (outer = 0). */
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
    /* The convex set of a ccp run (fo_apgd_run): K, or for tfp and pfp
     * R+ x disk(s) (CYLINDER), r_N >= 0 with r_T = fixed_T (NORMAL),
     * r_N = fixed_N with r_T in disk(s) (TANGENT). */
    int set;
    const double *s;     /* nc thresholds (cylinder, tangent)             */
    const double *fixed; /* m values of the frozen components             */
} fo_run;

enum { FO_SET_CONE, FO_SET_CYLINDER, FO_SET_NORMAL, FO_SET_TANGENT };
/* x <- the projection of x onto the run's set. */
void fo_run_project(const fo_run *R, double *x);
/* The residual of the run's convex problem (g = 0) at x, u = W x + q. */
double fo_run_set_error(const fo_run *R, const double *x, const double *u);

/* Start a run from r (the first "best" iterate); -1 when out of memory.
 * deadline: the caller's clock, or NULL for one from opt->time_limit. */
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

/* x <- G(x), one iteration of a projection method or an NSGS sweep: after
 * start plain iterations G(x) is replaced by the Anderson extrapolation
 * (core/anderson.h) of the last mem maps, projected onto K; it is dropped
 * and the history reset when ||G(x) - x|| grows by more than growth. */
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
/* After the map of iteration it (err: the error at x): r = G(x) in, the
 * next iterate out; 1 when r was changed (u must be recomputed).  When
 * err has not halved in window iterations (50 x mem by default), the plain
 * map runs alone for as many (doubled each time) from best (if not NULL). */
int fo_accel_apply(fo_accel *A, const fc_problem *p, int it, double err, const double *best,
                   double *r);
void fo_accel_free(fo_accel *A);
/* The start of an fp.anderson-accelerated loop (projection family, dsfp):
 * n doubles of zeroed workspace and A from R->opt->fp; NULL when out of
 * memory (R->message set).  fo_fp_end frees both and ends R with st. */
double *fo_fp_begin(fo_run *R, fo_accel *A, size_t n);
fc_status fo_fp_end(fo_run *R, fo_accel *A, double *ws, int st, double *r, double *u);

/* ---- cores shared between files ------------------------------------ */

/* A core iteration: runs R (begun) on R->p from r, kind selects a family
 * member; ends R (fo_run_end) and returns the status. */
typedef fc_status (*fo_core)(fo_run *R, int kind, double *r, double *u);
/* A registered solver made of one outer run of core with the tolerance,
 * max_iter and time limit of opt, on the exact problem (ccp = 0) or on
 * its convex relaxation (ccp = 1: stops on the relaxation's residual). */
fc_status fo_solve_outer(const fc_problem *p, const fc_options *opt, fo_core core,
                         int kind, int ccp, double *r, double *u, fc_info *info);

/* The projection family (fpp.c, eg.c, hp.c): one loop,
 * fo_projection_run, calls the step of the member that kind names.  A
 * step maps r (u = W r + q, F = F(r)) to the next r and its u. */
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
/* Runs the member kind on (R->p, R->ccp) with opt->fp from r; r out: the
 * best iterate, u = W r + q. */
fc_status fo_projection_run(fo_run *R, int kind, double *r, double *u);
/* The registered solver of member kind (fo_solve_outer of the above). */
fc_status fo_projection_solve(int kind, const fc_problem *p, const fc_options *opt, double *r,
                              double *u, fc_info *info);
/* The self-adaptive step (fpp.c): y = P_K(x - rho F) with rho shrunk by
 * ls_tau until rho ||F - F(y)|| <= ls_L ||x - y||, and grown by ls_tauinv
 * for the next iteration when the ratio is under ls_Lmin (and S->grow);
 * S->y, S->uy = W y + q, S->Fy = F(y) out; returns the rho used. */
double fo_adaptive_step(fo_proj *S, const double *x);

/* Accelerated projected gradient on the cone complementarity problem
 * K* ∋ W r + q ⟂ r ∈ K of R->p (its convex relaxation); kind unused. */
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
/* The outer loop of tfp and pfp (kind FO_TFP, FO_PFP): until fo_run_check
 * stops it, the member's step updates r with inner tolerance tol (s:
 * scratch for nc thresholds) and returns its inner sweeps, summed and
 * logged (level 1). */
enum { FO_TFP, FO_PFP };
fc_status fo_tresca_run(fo_run *R, int kind, double *r, double *u);
int fo_pfp_step(fo_run *R, fo_tresca *T, double *s, double tol, int it, double err, double *r);

#endif
