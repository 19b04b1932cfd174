/* Private helpers of the first-order and fixed-point solvers (projection.c,
 * apgd.c, aclm.c, prox.c, tresca.c, desaxce.c, panagiotopoulos.c,
 * nsgs_v.c): the natural map, the iteration bookkeeping (limits, progress,
 * NaN, best iterate) and inner solves.  Not installed. */
#ifndef FRICON_FIRSTORDER_H
#define FRICON_FIRSTORDER_H

#include "internal.h"
#include "core/anderson.h"

/* ---- the maps ------------------------------------------------------ */

/* u = W r + q. */
void fo_velocity(const fc_problem *p, const double *r, double *u);
/* F = u + g(u) (the De Saxce modified velocity); with ccp != 0 the convex
 * relaxation's F = u.  F may alias u. */
void fo_uhat(const fc_problem *p, int ccp, const double *u, double *F);
/* x <- P_K(x), contact by contact (Coulomb cones, d = 2, 3, 5). */
void fo_project(const fc_problem *p, double *x);
/* The SPEC measure at (r, u); with ccp != 0 the same formula with g = 0
 * (the residual of the cone complementarity problem). */
double fo_error(const fc_problem *p, int ccp, const double *r, const double *u);
/* An estimate of lambda_max(W) by power iteration (w1, w2: m doubles). */
double fo_lambda_max(const fc_matrix *W, int m, double *w1, double *w2);
/* y = P_K(x - rho F), and ||x - y|| returned. */
double fo_proj_step(const fc_problem *p, const double *x, double rho,
                    const double *F, double *y);

/* ---- iteration bookkeeping ---------------------------------------- */

/* One run of an iterative method: the registered solver (outer = 1:
 * progress callback and info are used) or an inner solve (outer = 0). */
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
    double error;       /* last error measured                              */
    char message[160];
    /* The convex set of a ccp run (fo_apgd_run): FO_SET_CONE (K, default)
     * or, for the Tresca-type problems of tfp and pfp, FO_SET_CYLINDER
     * (R+ x disk(s)), FO_SET_NORMAL (r_N >= 0, r_T = fixed_T),
     * FO_SET_TANGENT (r_N = fixed_N, r_T in disk(s)). */
    int set;
    const double *s;     /* nc thresholds (cylinder, tangent)             */
    const double *fixed; /* m values of the frozen components             */
} fo_run;

enum { FO_SET_CONE, FO_SET_CYLINDER, FO_SET_NORMAL, FO_SET_TANGENT };
/* x <- the projection of x onto the run's set. */
void fo_run_project(const fo_run *R, double *x);
/* ||x - P_set(x - (W x + q))|| / max(||q||, ||x||, ||u||), u = W x + q
 * given: the residual of the run's convex problem (g = 0). */
double fo_run_set_error(const fo_run *R, const double *x, const double *u);

/* Start a run from r (copied as the first "best" iterate); 0 on success,
 * -1 when out of memory.  deadline: the caller's clock to share, or NULL
 * to start one from opt->time_limit. */
int fo_run_begin(fo_run *R, const fc_problem *p, const fc_options *opt, int ccp,
                 int outer, double tol, int max_iter, const fc_clock *deadline,
                 const double *r);
/* After iteration it (0-based) produced r with error err: -1 to go on, or
 * the status to stop with (converged, non-finite, time, progress stop,
 * iteration limit).  Keeps the best finite iterate. */
int fo_run_check(fo_run *R, int it, const double *r, double err);
/* End the run with status st: r <- the best iterate when the last one is
 * worse or not finite; u = W r + q; frees; returns st (FC_DIVERGED kept). */
fc_status fo_run_end(fo_run *R, int st, double *r, double *u);
/* Copy the run's outcome to info (outer runs). */
fc_status fo_run_report(const fo_run *R, fc_status st, fc_info *info);

/* The tolerance of an inner solve after an outer iteration with error
 * err; never below 0.1 * outer_tol (ADAPTIVE*) and never above 0.1. */
double fo_inner_tol(const fc_inner_options *io, double err, int nc, double outer_tol);

/* A sub-problem sharing p's data but with another W and/or q. */
fc_problem fo_subproblem(const fc_problem *p, fc_matrix *W, double *q);

/* ---- safeguarded Anderson acceleration of an iteration map -------- */

/* x <- G(x) is one iteration of a projection method or an NSGS sweep;
 * with a memory mem > 0 (fp.anderson, nsgs.anderson), after start plain
 * iterations, G(x) is replaced by the
 * Anderson extrapolation of the last maps (solvers/anderson.h) projected
 * back onto K; an extrapolation is dropped and the history reset when the
 * map's residual ||G(x) - x|| grows by more than anderson_growth. */
typedef struct fo_accel {
    fc_anderson aa;
    int on, start, extrapolated, accepted, wait;
    int rest;           /* plain iterations after a rejected extrapolation:
                           start by default                               */
    int window, count, plain, plain_len; /* stagnation: see fo_accel_apply;
                                            window 0: never             */
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
/* After the map of iteration it (err: the measure at x): r = G(x) in,
 * the next iterate out; returns 1 when r was changed (u = W r + q must be
 * recomputed).  When the measure has not halved in window (50 x memory
 * unless the caller sets it) iterations, the plain map runs alone for as many (then
 * twice as many each time), from best (the best iterate so far, if not
 * NULL), before Anderson is tried again. */
int fo_accel_apply(fo_accel *A, const fc_problem *p, int it, double err, const double *best,
                   double *r);
void fo_accel_free(fo_accel *A);

/* ---- cores shared between files ------------------------------------ */

/* A core iteration: runs R (begun) on R->p from r, kind selects a family
 * member; ends R (fo_run_end) and returns the status. */
typedef fc_status (*fo_core)(fo_run *R, int kind, double *r, double *u);
/* A registered solver made of one outer run of core with the tolerance,
 * max_iter and time limit of opt, on the exact problem (ccp = 0) or on
 * its convex relaxation (ccp = 1: stops on the relaxation's residual). */
fc_status fo_solve_outer(const fc_problem *p, const fc_options *opt, fo_core core,
                         int kind, int ccp, double *r, double *u, fc_info *info);

/* The projection family on (p, ccp) with opt->fp: fpp, eg, vi-fpp,
 * vi-eg, hp.  r in/out (best iterate), u = W r + q out. */
enum { FO_FPP, FO_EG, FO_VI_FPP, FO_VI_EG, FO_HP };
fc_status fo_projection_run(fo_run *R, int kind, double *r, double *u);

/* Accelerated projected gradient on the cone complementarity problem
 * K* ∋ W r + q ⟂ r ∈ K of R->p (its convex relaxation); kind unused. */
fc_status fo_apgd_run(fo_run *R, int kind, double *r, double *u);

/* The ACLM fixed point with the convex solver inner (an fc_ccp_solver). */
fc_status fo_aclm_solve(const fc_problem *p, const fc_options *opt, int inner,
                        double *r, double *u, fc_info *info);

/* A Tresca-type convex problem with thresholds s (nc):
 * 0 <= u_N ⟂ r_N >= 0, ||r_T|| <= s, -u_T normal to the disk at r_T.
 * mode: FO_TRESCA_FULL (both), FO_TRESCA_NORMAL (r_T frozen: the normal
 * LCP), FO_TRESCA_TANGENT (r_N frozen).  Solved from r by the inner solver
 * of opt->tresca (Gauss-Seidel sweeps, or apgd) until its residual <= tol;
 * returns the residual, *its the sweeps or iterations. */
enum { FO_TRESCA_FULL, FO_TRESCA_NORMAL, FO_TRESCA_TANGENT };
typedef struct fo_tresca fo_tresca;
fo_tresca *fo_tresca_new(const fc_problem *p, const fc_options *opt);
double fo_tresca_solve(fo_tresca *T, int mode, const double *s, double tol,
                       const fc_clock *deadline, double *r, int *its);
void fo_tresca_free(fo_tresca *T);
/* The outer loop of the Tresca-type fixed points (tfp, pfp): until
 * fo_run_check stops it, step(R, T, s, tol, r) updates r from r, tol being
 * the inner tolerance for the current error err, s scratch for nc
 * thresholds; it returns the inner sweeps it took, summed and logged
 * (level 1) under name with the outer iterations. */
typedef int (*fo_tresca_step)(fo_run *R, fo_tresca *T, double *s, double tol, int it,
                              double err, double *r);
fc_status fo_tresca_fixed_point(fo_run *R, const char *name, fo_tresca_step step, double *r,
                                double *u);

#endif
