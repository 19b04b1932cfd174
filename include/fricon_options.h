/* fricon's solver options: fc_options, one struct per solver family, with
 * each field's default (set by fc_default_options from the table of options
 * by name in src/core/options.c; test_options checks every "default X"
 * below against it) and the options by name (fc_options_set, `fricon
 * options`, docs/options.md).  Included by fricon.h at its place; include
 * fricon.h. */
#ifndef FRICON_H
#include "fricon.h"
#else
#ifndef FRICON_OPTIONS_H
#define FRICON_OPTIONS_H

/* Log callback: level 0 = info, 1 = detail, 2 = debug. */
typedef void (*fc_log_fn)(void *user, int level, const char *msg);
/* Progress callback, called once per outer iteration; return nonzero to
 * stop the solve (status then FC_MAX_ITER). */
typedef int (*fc_progress_fn)(void *user, int iteration, double error);

/* Local one-contact solver used inside NSGS. */
typedef enum fc_local_solver {
    FC_LOCAL_HYBRID = 0, /* AC Newton, fallback to projection, then exact */
    FC_LOCAL_PROJECTION, /* projection on the cone with diagonal scaling   */
    FC_LOCAL_NEWTON_AC,  /* damped Alart-Curnier Newton only               */
    FC_LOCAL_EXACT       /* enumerative (quartic) solver                   */
} fc_local_solver;

typedef struct fc_nsgs_options {
    double omega;          /* relaxation (PSOR when != 1); default 1.0      */
    int order;             /* contact order of a sweep: 0 auto (the
                              stretches when the solve has more than one
                              thread and at least 10^4 contacts, else the
                              file order), 1 the file order, 2 coloured
                              (contacts that do not couple swept in
                              parallel, colour after colour: the same result
                              for any thread count), 3 the stretches (one
                              stretch per thread, nsgs.cut, then the
                              contacts coupling two stretches: the same
                              result for a given thread count;
                              docs/solvers.md#nsgs); default 0            */
    int shuffle;           /* 0: fixed order; 1: shuffle each sweep (the
                              colours' order when coloured; the stretches
                              then give way to the file order); default 0 */
    unsigned seed;         /* seed of the shuffle; default 1               */
    int error_every;       /* full error computed every k sweeps; 0: when the
                              sweep's change predicts the tolerance (at least
                              every 8 sweeps); default 0                     */
    fc_local_solver local; /* default FC_LOCAL_HYBRID                      */
    double local_tol;      /* one-contact tolerance; default 1e-14         */
    int local_max_iter;    /* one-contact Newton iterations; default 20    */
    int anderson;          /* Anderson acceleration memory (0: off); default 10 */
    int anderson_start;    /* plain sweeps before acceleration; default 10  */
    double anderson_growth;/* an accelerated sweep is rejected when it grows
                              the fixed-point residual by more; default 2.0 */
    int anderson_window;   /* when the error has not halved in this many
                              sweeps, plain sweeps run alone for as many
                              (twice as many each time) before Anderson is
                              tried again; 0: never; default 500          */
    int level_min;         /* the stretches' interface as levels (contacts
                              coupled to no other of their level): a level
                              of at least this many contacts swept on the
                              threads, smaller ones in order on one; the
                              same result either way; 0: the interface in
                              order on one thread; -1: 16, or 0 when
                              OpenMP waits passively (OMP_WAIT_POLICY=
                              passive, which the command sets on a machine
                              without a free core: a level's barrier then
                              waits for a sleeping thread); default -1    */
    int half;              /* the sweep on W's upper block triangle
                              alone when W is symmetric (to 1e-12 a
                              block pair): each stored block serves its
                              row's gather and, transposed, its column's
                              scatter into an accumulator, so a sweep
                              reads about half of W; the same iterates to
                              round-off.  The file order, and the
                              stretches' (2 threads: inside each
                              stretch; the interface's rows full).
                              0 auto (from 1000 contacts), 1 on, 2 off;
                              not with the coloured order or shuffle
                              (docs/solvers.md#nsgs-psor); default 0     */
    int cut;               /* the stretches' cut: 1 contiguous stretches of
                              the file order at equal shares of W's blocks;
                              2 of a breadth-first order over W's blocks
                              from a far contact (a smaller interface where
                              the file order is not spatial), at equal
                              shares of an estimated cost (W's blocks and
                              the case each contact's r is in); the same
                              result for a given thread count either way;
                              0 auto (2); default 0                        */
    int renumber;          /* the stretches' sweeps in their own numbering:
                              contact i of the stretches' order stored at i
                              (q, mu, r, the one-contact data, W's column
                              indices), so that a stretch reads a
                              contiguous range; r and u returned in the
                              problem's numbering, the same iterates (the
                              norms' sums in another order).  Not with
                              equalities.  0 auto (on), 1 on, 2 off;
                              default 0                                    */
    int phases;            /* the stretches in phases (nsgs and psor): 2
                              cuts the order into 2 T pieces (T threads),
                              the even pieces swept at once, then the odd
                              ones, each thread one piece at a time: two
                              pieces of a phase lie a piece apart, so
                              almost no contact is left for the
                              interface swept after them on one thread;
                              1 one phase of T stretches side by side,
                              a layer of contacts between them at the
                              interface.  0 auto (2); default 0           */
} fc_nsgs_options;

/* Nonsmooth Newton solvers (nsn-ac, nsn-jm, nsn-fb, nsn-nm, nsn-hybrid);
 * see docs/solvers-newton.md. */
typedef enum fc_nsn_rho {
    FC_NSN_RHO_CONSTANT = 0,       /* rho_N = rho_T = nsn.rho                     */
    FC_NSN_RHO_SPECTRAL = 1,       /* nsn.rho / lambda_max(W_aa), per contact     */
    FC_NSN_RHO_SPLIT_SPECTRAL = 2, /* rho_N = nsn.rho / W_aa[N,N], rho_T =
                                      nsn.rho / lambda_max(W_aa[T,T])            */
    FC_NSN_RHO_ADAPTIVE = 3        /* split spectral, rebalanced per contact to
                                      ||r_a|| / ||u_a|| when Newton stalls        */
} fc_nsn_rho;

typedef enum fc_nsn_linesearch {
    FC_NSN_LS_NONE = 0,        /* full steps                                     */
    FC_NSN_LS_GOLDSTEIN = 1,   /* Goldstein-Price on 1/2 ||F||^2                  */
    FC_NSN_LS_ARMIJO = 2,      /* Armijo backtracking on 1/2 ||F||^2              */
    FC_NSN_LS_NONMONOTONE = 3  /* Armijo against the max of the last M merits     */
} fc_nsn_linesearch;

typedef enum fc_nsn_formulation {
    FC_NSN_AC = 0,  /* Alart-Curnier                      */
    FC_NSN_JM = 1,  /* Jean-Moreau                        */
    FC_NSN_FB = 2,  /* Fischer-Burmeister (second-order cone) */
    FC_NSN_NM = 3   /* natural map r - P_K(r - rho u_hat)  */
} fc_nsn_formulation;

/* What nsn adds to its Jacobian when the Newton system is singular. */
typedef enum fc_nsn_regularisation {
    FC_NSN_REG_NONE = 0,   /* none                                           */
    FC_NSN_REG_W = 1,      /* delta*I added to the W part: A (W + delta I) + B */
    FC_NSN_REG_SHIFT = 2   /* Levenberg-Marquardt-like shift J + delta I     */
} fc_nsn_regularisation;

/* nsn's sparse LU (a dense LU below 64 rows either way). */
typedef enum fc_nsn_linear_solver {
    FC_NSN_UMFPACK = 0,
    FC_NSN_KLU = 1
} fc_nsn_linear_solver;

typedef struct fc_nsn_options {
    fc_nsn_rho rho_strategy; /* default FC_NSN_RHO_SPLIT_SPECTRAL          */
    double rho;            /* the constant rho, or the factor applied to the
                              spectral ones; default 1.0                      */
    fc_nsn_linesearch line_search; /* default FC_NSN_LS_GOLDSTEIN          */
    int ls_max_iter;       /* line-search steps per Newton iteration; default 20 */
    int nonmonotone_m;     /* memory M of the non-monotone search; default 5 */
    fc_nsn_regularisation regularisation; /* default FC_NSN_REG_W        */
    double reg_delta;      /* first delta, relative to max_a ||W_aa||; default 1e-10 */
    double reg_max;        /* largest relative delta tried; default 1e-2       */
    fc_nsn_linear_solver linear_solver; /* default FC_NSN_KLU            */
    int stagnation;        /* Newton iterations without a 2x better error
                              before declaring stagnation; default 20         */
    fc_nsn_formulation formulation; /* nsn-hybrid's; default FC_NSN_AC    */
    int hybrid_sweeps;     /* NSGS sweeps of the first fallback; default 10   */
    int hybrid_max_sweeps; /* cap of the doubling fallback length; default 2000 */
    int hybrid_newton_iter;/* Newton iterations per attempt in nsn-hybrid; default 50 */
    int hybrid_stagnation; /* nsn-hybrid leaves Newton after this many iterations
                              without halving the error; default 10           */
} fc_nsn_options;
/* Interior point (ipm, gipm): see docs/solvers-ipm.md. */
typedef enum fc_ipm_formulation {
    FC_IPM_AUTO = 0,       /* ipm: dual; gipm: primal                     */
    FC_IPM_DUAL,           /* unknown r, the cone QP in W (global: W formed) */
    FC_IPM_PRIMAL,         /* unknown v: the QP in M, H (never forms W)     */
    FC_IPM_EQUILIBRIUM     /* v, r, u of the equations of motion at once,
                              the friction shift updated every step        */
} fc_ipm_formulation;

typedef struct fc_ipm_options {
    fc_ipm_formulation formulation; /* default FC_IPM_AUTO               */
    double step_fraction;  /* fraction of the step to the boundary; default 0.99 */
    int max_outer;         /* cone QPs solved at most, i.e. fixed-point
                              updates of s = mu ||u_T|| + 1 (the GAMS study
                              used 10); default 200                         */
    int max_inner;         /* interior-point steps per cone QP; default 80  */
    int warm_start;        /* 1: start each cone QP from the last one; default 1 */
    int convex;            /* 1: solve only the convex relaxation (s = 0)
                              and return its last iterate (status and
                              residual still judge Coulomb's law); default 0 */
    int shift_start;       /* gipm (primal form, no equality rows): 1 takes
                              the first cone QP's De Saxce shift s = mu ||u_T||
                              from the initial guess r (v = M^-1 (H r + f))
                              and solves that QP to a gap of tol^2; 0: s = 0;
                              default 0                                       */
    double reg;            /* static regularisation of the KKT; default 1e-11 */
    int refine;            /* iterative refinement steps; default 3        */
    int anderson;          /* memory of the Anderson acceleration of the
                              fixed point on the shift (<= 20); 0: plain
                              (damped) updates; default 5                   */
    int polish;            /* ipm-mdp: 1 finishes an unconverged run from its
                              best iterate with NSGS sweeps (at most
                              polish_sweeps), then Alart-Curnier Newton,
                              then, within 10 times the tolerance, Fischer-
                              Burmeister Newton from the interior point's
                              iterate;
                              0: the interior point alone; default 1       */
    int polish_sweeps;     /* ipm-mdp: NSGS sweeps of the polish; default 100 */
    int stall;             /* ipm-mdp: steps without halving the error
                              before the run counts as stalled; default 60  */
    double margin;         /* ipm-mdp: the start's margin inside the cones,
                              relative to the sizes of r and u; default 1   */
    int unjam;             /* ipm-mdp: 1 breaks a jam (two steps below 1e-2)
                              by solving the contacts that block the step
                              alone, the others fixed; default 1           */
} fc_ipm_options;

/* ADMM (admm, gadmm): see docs/solvers-ipm.md. */
typedef enum fc_admm_rho_strategy {
    FC_ADMM_RHO_CONSTANT = 0,
    FC_ADMM_RHO_RESIDUAL_BALANCING,
    FC_ADMM_RHO_SCALED_RESIDUAL_BALANCING
} fc_admm_rho_strategy;
typedef enum fc_admm_initial_rho {
    FC_ADMM_RHO_GIVEN = 0,    /* admm.rho                                  */
    FC_ADMM_RHO_NORM_INF,     /* ||W||_inf (global: ||M||_inf / ||H||_inf^2) */
    FC_ADMM_RHO_EIGENVALUES   /* sqrt(lambda_max * lambda_min) estimates   */
} fc_admm_initial_rho;
typedef enum fc_admm_acceleration {
    FC_ADMM_NO_ACCELERATION = 0,
    FC_ADMM_ACCELERATION,
    FC_ADMM_ACCELERATION_AND_RESTART
} fc_admm_acceleration;
typedef enum fc_admm_linear {
    FC_ADMM_LINEAR_AUTO = 0,  /* conjugate gradients from admm.cg_from contacts */
    FC_ADMM_LINEAR_CHOLESKY,  /* sparse Cholesky of W + rho I, refactorised when
                                 rho changes                                  */
    FC_ADMM_LINEAR_CG         /* block-Jacobi conjugate gradients on W + rho I,
                                 warm-started, to a tolerance following the
                                 ADMM residuals: no factorisation, no fill     */
} fc_admm_linear;

typedef struct fc_admm_options {
    double rho;            /* penalty when initial_rho is GIVEN; default 1  */
    fc_admm_initial_rho initial_rho;   /* default FC_ADMM_RHO_EIGENVALUES */
    fc_admm_rho_strategy rho_strategy; /* default
                                          FC_ADMM_RHO_SCALED_RESIDUAL_BALANCING */
    fc_admm_acceleration acceleration; /* default
                                          FC_ADMM_ACCELERATION_AND_RESTART */
    double restart_eta;    /* restart when the combined residual exceeds
                              eta times the previous; default 0.999        */
    double balancing_tau;  /* rho multiplied / divided by tau; default 2   */
    double balancing_phi;  /* when one residual exceeds phi times the other;
                              default 10                                    */
    int balancing_every;   /* iterations between two rho updates; default 10 */
    int scaling;           /* admm (local): 1 scales each contact's normal,
                              tangential (and rolling) rows and columns of W
                              to a unit diagonal, mu adjusted; 0 none;
                              default 1                                    */
    int probe;             /* admm (local): at most this many iterations of
                              an unscaled sticking probe first (rho cut 10x
                              while the projection is inactive), 0 none;
                              default 50                                   */
    fc_admm_linear linear; /* admm (local): the r-step's solve; default
                              FC_ADMM_LINEAR_AUTO (gadmm and equality rows:
                              always Cholesky)                             */
    int cg_from;           /* admm.linear auto: conjugate gradients from this
                              many contacts; default 1500                  */
    int cg_max_iter;       /* conjugate-gradient iterations of one r-step
                              at most; default 100                         */
    int cg_switch;         /* admm.linear auto: the Cholesky instead once
                              the r-steps so far (judged every tenth)
                              average more conjugate-gradient iterations
                              than this; default 20                        */
} fc_admm_options;
/* First-order and fixed-point solvers (docs/solvers-firstorder.md). */

/* How a composite solver sets the tolerance of its inner solves. */
typedef enum fc_inner_tol {
    FC_INNER_TOL_GIVEN = 0,   /* inner tolerance = tol                         */
    FC_INNER_TOL_ADAPTIVE,    /* outer error / ratio                           */
    FC_INNER_TOL_ADAPTIVE_NC  /* outer error / (ratio * nc)                    */
} fc_inner_tol;

typedef struct fc_inner_options {
    fc_inner_tol strategy;  /* the defaults: in each parent's "inner" field */
    double tol;            /* the given value (GIVEN)                        */
    double ratio;          /* divisor of the outer error (ADAPTIVE*)         */
    int max_iter;          /* iterations of one inner solve                  */
} fc_inner_options;

/* fpp, eg, vi-fpp, vi-eg, hp, dsfp: projection methods on the natural map
 * r = P_K(r - rho (u + g(u))). */
typedef struct fc_fp_options {
    double rho;            /* step; <= 0: 1 / lambda_max(W) (power
                              iteration); default 0 (rho = 1 diverges
                              when ||W|| > 2)                       */
    double ls_tau;         /* vi-*: rho *= tau while the step is rejected;
                              default 2/3                                  */
    double ls_tauinv;      /* vi-*: rho *= tauinv after an easy step; default 1.5 */
    double ls_L;           /* vi-*: accept when rho ||F(x)-F(y)|| <= L ||x-y||;
                              default 0.9                                  */
    double ls_Lmin;        /* vi-*: grow rho when below Lmin ||x-y||; default 0.3 */
    int ls_max_iter;       /* backtracking steps per iteration; default 100 */
    double hp_sigma;       /* hp: Armijo constant of the hyperplane search;
                              default 0.5 (the seed's 0.99 is slower)     */
    int anderson;          /* fpp, eg, vi-fpp, vi-eg, hp, dsfp: safeguarded Anderson
                              acceleration memory of the iteration map
                              (0: the plain method); default 10           */
    int anderson_start;    /* plain iterations before it starts; default 10 */
    double anderson_growth;/* an extrapolated step is dropped (and the
                              history reset) when the map's residual grows
                              by more than this factor; default 2        */
} fc_fp_options;

/* prox: proximal point, inner solves of FC(W + alpha I, q - alpha r_k). */
typedef struct fc_prox_options {
    const char *inner_solver; /* a registered solver name; default "nsgs"    */
    double alpha;          /* first alpha relative to lambda_max(W); <= 0:
                              from the sigma / nu rule; default 0            */
    double sigma;          /* alpha = sigma * error^nu * lambda_max(W);
                              default 5                                    */
    double nu;             /* exponent of the alpha rule; default 1        */
    double alpha_min;      /* relative floor of alpha; default 1e-8          */
    fc_inner_options inner; /* default {FC_INNER_TOL_ADAPTIVE, 1e-10, 10,
                               1000}                                        */
    int max_sweeps;        /* the inner solver's iterations in all (for
                              nsgs: sweeps) at most; 0: no such bound;
                              default 0                                    */
} fc_prox_options;

/* The solver of tfp's and pfp's inner (Tresca) problems. */
typedef enum fc_tresca_solver {
    FC_TRESCA_GAUSS_SEIDEL = 0, /* sweeps over the contacts                  */
    FC_TRESCA_APGD = 1          /* apgd on the whole convex problem (max_iter
                                   x 50 iterations)                         */
} fc_tresca_solver;

/* tfp (Tresca fixed point) and pfp (Panagiotopoulos fixed point). */
typedef struct fc_tresca_options {
    fc_tresca_solver inner_solver; /* default FC_TRESCA_APGD (Gauss-Seidel
                              does not solve BoxesStack1)                    */
    fc_inner_options inner; /* one Tresca problem; default
                               {FC_INNER_TOL_ADAPTIVE, 1e-10, 10, 200}      */
    int local_max_iter;    /* projected iterations of one contact; default 100 */
    double local_tol;      /* one-contact tolerance; default 1e-14           */
} fc_tresca_options;

/* Convex solvers usable inside aclm. */
typedef enum fc_ccp_solver {
    FC_CCP_APGD = 0,       /* accelerated projected gradient (apgd-ccp)      */
    FC_CCP_VI_EG,          /* self-adaptive extragradient on the relaxation  */
    FC_CCP_VI_FPP          /* self-adaptive projection on the relaxation     */
} fc_ccp_solver;

/* aclm: convex problems with s = mu ||u_T|| frozen. */
typedef struct fc_aclm_options {
    fc_ccp_solver inner_solver; /* default FC_CCP_APGD                   */
    fc_inner_options inner; /* default {FC_INNER_TOL_ADAPTIVE, 1e-10, 10,
                               5000}                                        */
} fc_aclm_options;

/* apgd, apgd-ccp: Nesterov accelerated projected gradient with a
 * backtracking Lipschitz estimate and gradient restart. */
typedef struct fc_apgd_options {
    double L0;             /* first Lipschitz estimate; <= 0: ||W 1|| /
                              sqrt(m), one product with W; default 0         */
    double L_grow;         /* L *= grow while the descent test fails;
                              default 2                                    */
    double L_shrink;       /* L *= shrink after each iteration; default 0.9 */
    int restart;           /* 1: restart when the gradient opposes the step;
                              default 1                                    */
} fc_apgd_options;

/* The 2D pivoting solvers lemke and enum (the 2D problem as an LCP of
 * size 4 nc, see docs/solvers-2d.md). */
typedef struct fc_lcp_options {
    int refactor_every;    /* lemke: KLU refactorisation of the basis every
                              k pivots (product-form etas between); default 50 */
    double pivot_tol;      /* lemke: pivots below pivot_tol * max|column| are
                              refused; default 1e-11                          */
    double tie_tol;        /* lemke: ratios within this relative gap are ties,
                              broken lexicographically; default 1e-12         */
    int restarts;          /* lemke: new paths from other covering vectors
                              after a secondary ray; default 3               */
    int crash_sweeps;      /* lemke: the first path starts from the basis
                              guessed from at most this many NSGS sweeps (to
                              1e-6); 0: the classical start; default 100    */
    int enum_max_size;     /* enum: largest LCP size 4 nc accepted; default 24 */
    double regularisation; /* lemke: when every path fails, the LCP of
                              W + reg diag(W_NN) is solved, then its basis
                              tried on W; 0: off; default 1e-10              */
} fc_lcp_options;

/* cpg: conjugate projected gradient on the cone QP, inside a fixed point
 * on the De Saxce term mu ||u_T|| (Coulomb friction). */
typedef struct fc_cpg_options {
    int inner_max_iter;    /* CPG iterations per friction update; default 200 */
    double inner_ratio;    /* the inner QP is solved to inner_ratio times the
                              current Coulomb error; default 0.1             */
} fc_cpg_options;

/* stick, the all-sticking solution (least-norm W r = -q, accepted when
 * inside the cones); see docs/solvers.md. */
typedef struct fc_stick_options {
    double shift;          /* eps of the factorised W + eps I, relative to the
                              largest diagonal entry of W; default 1e-10      */
    int refine;            /* proximal (refinement) steps at most; default 10 */
} fc_stick_options;

/* nncg, nonsmooth nonlinear conjugate gradient over Gauss-Seidel sweeps;
 * see docs/solvers.md#nncg and docs/granular-piles.md. */
typedef struct fc_nncg_options {
    int order;             /* contact order (global form, block-diagonal M):
                              0 auto (5 from 2 threads and 2000 contacts,
                              else 3), 1 load path from the supports up,
                              2 load path down to the supports, 3 file
                              order, 4 parallel stretches of the file
                              order, 5 parallel slabs of the body graph
                              (4, 5 at 1 thread: 3); default 0           */
    int phases;            /* orders 4 and 5: the parts in phases as
                              nsgs.phases (2 T pieces, the even ones at
                              once, then the odd ones; a contact between
                              two slabs goes with the lower one, so that
                              almost none is left for the interface); 1
                              one phase; 0 auto (2); default 0            */
    int symmetric;         /* 1: each sweep forward then backward; default 0 */
    int accel;             /* acceleration of the sweeps: 0 none, 1 the
                              conjugate step (NNCG), 2 Anderson (the
                              nsgs.anderson* options); default 1          */
    double restart;        /* the conjugate step restarts when beta exceeds
                              it; default 1.5                             */
    fc_local_solver local; /* one-contact solver; default FC_LOCAL_HYBRID */
    double local_tol;      /* one-contact tolerance; default 1e-14         */
    int local_max_iter;    /* one-contact Newton iterations; default 20    */
    int newton;            /* sweeps before the first Newton-Krylov step
                              (semismooth Newton, GMRES with W applied as
                              H^T M^-1 H); 0: none; default 0              */
    int newton_gap;        /* sweeps between two Newton-Krylov steps
                              (doubled after a rejected or weak step); default 5 */
    int krylov;            /* GMRES iterations at most per Newton step;
                              default 30                                  */
    int newton_form;       /* the Newton function (fc_nsn_formulation): 0 AC, 1 JM, 2
                              FB, 3 NM; default 0                          */
    double newton_near;    /* also a Newton-Krylov step whenever the measured
                              error is within newton_near x the tolerance
                              (newton_gap sweeps apart); 0: never; default 0 */
    int newton_gs;         /* GMRES preconditioner: 0 J's block diagonal,
                              k > 0 k Gauss-Seidel sweeps on the Newton
                              system (velocity form); default 0           */
    int newton_body;       /* 1: GMRES preconditioned by the inverse of J on
                              each body's contacts instead (velocity form,
                              newton_gs = 0; docs/granular-piles.md); default 0 */
    double newton_reg;     /* s > 0: the Newton system (J + s I) x = -F
                              (J is nearly singular on hyperstatic
                              packings); default 0                         */
    int focus;             /* passes, after each sweep, over the contacts
                              whose status (open, sticking, sliding) changed
                              in it and the contacts sharing a body with
                              them (velocity form); 0: none; default 0    */
    int cluster;           /* k > 0: at the measurements, clusters of at most
                              k contacts grown over the body graph from the
                              contacts of largest error, each solved exactly
                              with the other contacts fixed (velocity form);
                              0: none; default 24                         */
    int cluster_count;     /* clusters per pass; default 4                 */
    int cluster_gap;       /* sweeps between two passes at least; default 8 */
    int cluster_chains;    /* 1: clusters grow through the sticking contacts
                              only (chains held by friction); default 1   */
    int cluster_rise;      /* 1: a pass only when the error rose between
                              its last two checks; default 0    */
    double cluster_tol;    /* a cluster's solve stops when its natural-map
                              error is this fraction of its start's;
                              default 1e-2                                */
    double cluster_budget; /* a pass only when the passes' operations, the
                              next one's included (predicted from the
                              last), stay within this fraction of the
                              sweeps' (counted, so the choice is
                              deterministic); default 0.35                */
    int sweep_data;        /* the velocity form's sweep data (nncg, and
                              dist-nsgs / dist-nncg): 0 CSR rows of H^T and
                              G^T = (M^-1 H)^T, 1 laid out per contact with
                              G stored, 2 per contact with G applied from
                              M^-1's blocks (docs/distributed.md); default 2 */
} fc_nncg_options;

/* dist-nsgs, dist-nncg, dist-apgd (the MPI build's; the field is in every
 * build); docs/distributed.md. */
typedef struct fc_dist_options {
    int active_cost;       /* the partition's weight of a contact active in
                              the starting r (r_N > 0), in inactive ones
                              (their sweeps' cost); 1: counted alike;
                              default 4                                    */
} fc_dist_options;

typedef struct fc_options {
    double tolerance;      /* target of the SPEC measure; default 1e-8     */
    int max_iter;          /* outer iterations; 0: FC_MAX_ITER_DEFAULT, or
                              no count for a solver that runs until the
                              time limit (fc_solver.until_time); default 0 */
    double time_limit;     /* seconds, <= 0 for none; default 0            */
    int cpu_clock;         /* 1: time_limit and the seconds reported count
                              this process's CPU time (summed over its
                              threads), not the wall clock: benchmarks on
                              a shared machine (fricon bench --cpu-limit);
                              default 0                                    */
    int threads;           /* OpenMP threads of the kernels; 0: the
                              environment's FRICON_NUM_THREADS, else every
                              core; results do not depend on it (but for
                              nsgs.order = 0's choice); one thread
                              unless asked: on a loaded machine a parallel
                              region waits for a descheduled thread
                              (docs/measurements.md#threads); default 1 */
    int verbose;           /* 0 silent; >0 passes messages to log; default 0 */
    fc_log_fn log;         /* default NULL                                 */
    void *log_user;
    int stall_iterations;  /* fc_solve ends a run whose best error has not
                              gained 10% over max(this, 2 x the iterations
                              its last 10% gain took) reported iterations
                              with FC_STALLED; 0: off; default 100000     */
    fc_progress_fn progress; /* default NULL                               */
    void *progress_user;
    const double *r0;      /* warm start (m values) or NULL for zero; auto
                              returns nothing worse than it (and it, with 0
                              iterations, when it meets the tolerance); the
                              other solvers return their own iterate      */
    const double *lambda0; /* warm start of the equality multipliers (neq
                              values) or NULL for zero                    */
    fc_nsgs_options nsgs;
    fc_nsn_options nsn;
    fc_ipm_options ipm;
    fc_admm_options admm;
    fc_lcp_options lcp;
    fc_cpg_options cpg;
    fc_fp_options fp;       /* fpp, eg, vi-fpp, vi-eg, hp, dsfp              */
    fc_prox_options prox;
    fc_tresca_options tresca; /* tfp, pfp                                    */
    fc_aclm_options aclm;   /* aclm, apgd                                     */
    fc_apgd_options apgd;   /* apgd, apgd-ccp (and aclm's inner apgd)          */
    fc_stick_options stick;
    fc_nncg_options nncg;
    fc_dist_options dist;
} fc_options;

/* Every field's default: the table of options by name (fc_option_at)
 * for the fields it names, zero or NULL for the others. */
void fc_default_options(fc_options *opt);

/* Options by name: every field settable by name ("nsgs.omega", ...) with
 * its default and the values it accepts (`fricon options` lists them,
 * docs/options.md is generated from them).  fc_default_options writes
 * these defaults and zero (NULL) into every other field. */
typedef enum {
    FC_OPTION_DOUBLE = 0,
    FC_OPTION_INT = 1,
    FC_OPTION_SOLVER = 2,   /* a registered solver's name                  */
    FC_OPTION_ENUM = 3,     /* an enum field, read and written as an int
                               (options.c checks its size at compile time) */
    FC_OPTION_UNSIGNED = 4
} fc_option_type;
enum { FC_OPTION_CLOSED = 0, FC_OPTION_OPEN_LO = 1, FC_OPTION_OPEN_HI = 2, FC_OPTION_OPEN = 3 };
typedef struct fc_option_info {
    const char *name;       /* "family.field"                              */
    const char *help;       /* one line                                    */
    fc_option_type type;
    size_t offset;          /* of the field in fc_options                  */
    double lo, hi;          /* accepted values (integers: inclusive)       */
    int open;               /* doubles: FC_OPTION_CLOSED, _OPEN_LO, _OPEN_HI or _OPEN */
    double def;             /* the default (all but FC_OPTION_SOLVER)      */
    const char *def_solver; /* the default of an FC_OPTION_SOLVER          */
} fc_option_info;
/* The i-th option, NULL past the last. */
const fc_option_info *fc_option_at(int i);
/* Its range as text ("a number in (0, 2)", "an integer >= 1", ...) in buf. */
const char *fc_option_range(const fc_option_info *o, char *buf, size_t n);
/* Parse value into the named field: FC_ERR_INVALID (message naming the
 * option) for an unknown name, a malformed number or one out of range. */
fc_err fc_options_set(fc_options *opt, const char *name, const char *value, fc_error *err);
/* Every field in its range (fc_solve checks this first): FC_OK or
 * FC_ERR_INVALID naming the first field out of range. */
fc_err fc_options_validate(const fc_options *opt, fc_error *err);

#endif /* FRICON_OPTIONS_H */
#endif /* FRICON_H */
