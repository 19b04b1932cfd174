/* The distributed solvers on MPI (-DFRICON_MPI=ON only): the layout over
 * the ranks (layout.c, partition.c), the interface exchange (exchange.c),
 * the read (read.c), the solvers (work.c, dist_*.c).  docs/distributed.md. */
#ifndef FRICON_DIST_H
#define FRICON_DIST_H

#include "fricon.h"
#include "internal.h"
#include "cone/cone.h"
#include "solvers/velocity_contact.h"

#include <mpi.h>
#include <stddef.h>

/* Largest body (dofs) whose block of M is inverted densely. */
#define FC_DIST_MAX_BODY 2048

/* A global problem split over the ranks of comm.  A body is a group of
 * dofs closed under M's pattern (a diagonal block of M) and merged with
 * the dofs touched by the same contacts (a rigid body with a diagonal
 * M).  Bodies are partitioned; a contact belongs to the rank of its
 * lowest-numbered body; a body is local to a rank that owns it or owns
 * one of its contacts, and an interface body when local to several.
 * The global arrays are replicated on every rank (each reads the file). */
typedef struct fc_dist_layout {
    MPI_Comm comm;
    int rank, size;
    int nb;                 /* bodies                                        */
    int *bstart, *bdof;     /* body b: dofs bdof[bstart[b] .. bstart[b+1])   */
    int *dof_body, *dof_pos;/* n: the body of a dof, its place in the body   */
    int *cptr, *cbody;      /* contact a: bodies cbody[cptr[a] .. cptr[a+1]) */
    int *part;              /* nb: the rank a body is assigned to           */
    int *owner;             /* nc: the rank owning a contact                 */
    /* this rank */
    int nown, *own;         /* owned contacts, in file order                 */
    int nloc, *loc;         /* local bodies (global ids, ascending)          */
    int *glob2loc;          /* nb: local index or -1                         */
    int *loff;              /* nloc + 1: offsets in the local velocity       */
    int *nsplit;            /* nloc: ranks owning contacts on the body (>= 1)*/
    int nif, *ifb;          /* interface bodies (local indices, ascending)   */
    int nnb, *nbr;          /* neighbour ranks, ascending                    */
    int *nptr, *nlist;      /* neighbour k: shared local bodies, ascending   */
    int *nbuf;              /* nnb + 1: offsets of neighbour k's dofs        */
    double cpu_part;        /* CPU seconds of rank 0's partition             */
    double wait_part;       /* seconds waited for it (or for a slower read)  */
} fc_dist_layout;

/* Build the layout of p over comm (collective: every rank passes the same
 * p), from M and H as CSR (Mc, Hc).  0 on success; else 1 with a one-line
 * reason in msg. */
int fc_dist_layout_build(const fc_problem *p, const fc_matrix *Mc, const fc_matrix *Hc, const double *r,
                         int active_cost, MPI_Comm comm, fc_dist_layout *L, char *msg, size_t len);
void fc_dist_layout_free(fc_dist_layout *L);

/* part[b] in [0, nparts) for the nb bodies of the contact graph (contact
 * a joins bodies cbody[cptr[a] .. cptr[a+1])), balanced by contacts and
 * cutting few contacts (METIS k-way).  0 on success. */
int fc_dist_partition(int nb, int nc, const int *cptr, const int *cbody, const unsigned char *active,
                      int active_cost, int nparts, int *part);

/* The interface exchange's buffers (sized once per solve). */
typedef struct fc_dist_exchange {
    double *send, *recv;    /* nbuf[nnb] each                                */
    double *sum;            /* local velocity size                           */
    double *vstart;         /* local velocity at the last exchange           */
    MPI_Request *req;       /* 2 nnb                                         */
} fc_dist_exchange;

int fc_dist_exchange_init(const fc_dist_layout *L, fc_dist_exchange *X, const double *v);
void fc_dist_exchange_free(fc_dist_exchange *X);
/* After a sweep: each rank's change of an interface body's velocity since
 * the last exchange, divided by its nsplit (the sweep ran on 1/nsplit of
 * the body's mass), summed over the ranks in rank order (the same sum on
 * every rank), added to the velocity at the last exchange.  Collective. */
void fc_dist_exchange_run(const fc_dist_layout *L, fc_dist_exchange *X, double *v);

/* MPI_Init when nobody did (a library caller), with MPI_Finalize at exit. */
void fc_dist_ensure_init(void);

/* fc_read for a distributed solve (read.c): M's definiteness checked per
 * diagonal block, a share per rank; all fail when one does.  Collective. */
fc_err fc_dist_read(const char *path, fc_problem **p, fc_error *err);
/* 1 when failed on any rank, with msg (len bytes) the lowest failing
 * rank's on every rank; else 0.  Collective. */
int fc_dist_agree(int failed, char *msg, int len);

/* ---- the solvers' common machinery (work.c) ---- */

/* Most values one fc_dist_sum adds up. */
#define FC_DIST_SUM_MAX 8

/* One rank's part of a distributed solve: the owned contacts' rows of
 * H^T (Hl) and of G^T, G = k M^-1 H (Gl, k: the body's nsplit), over
 * the local velocity v (consistent after an exchange). */
typedef struct fc_dist_work {
    fc_dist_layout L;
    fc_dist_exchange X;
    int d, nv;
    fc_matrix *Mc;          /* M as CSR (global)                             */
    const fc_matrix *Hc;    /* H by dofs (global): p->H when CSR, or Hc_own  */
    fc_matrix *Hc_own;      /* H's CSR copy when p->H is not CSR             */
    fc_matrix *Hl, *Gl;     /* owned rows of H^T and of G^T, local v indices */
    double *inv;            /* local bodies' M^-1, dense, at ioff[i]         */
    int *ioff;
    fc_local *loc;          /* owned contacts (W_aa with the split masses)   */
    fc_vsweep vs;           /* the sweep's data per contact (nncg.sweep_data)*/
    double *v, *rl, *best;  /* local velocity; owned r; best owned r         */
    double *scratch;        /* a body's matrix, two body vectors, nv         */
    int maxs;               /* the largest body (dofs)                       */
    int *piv;
    double *red;            /* size x FC_DIST_SUM_MAX: fc_dist_sum's buffer  */
    double work;            /* CPU seconds in this rank's own work           */
    double lap[8];          /* CPU seconds of the setup's parts (the log)    */
} fc_dist_work;

/* A solver's iterations on w from w->rl, w->v: at most cap of them
 * (*capped = 1 when the cap, below opt->max_iter, ended them); fills
 * info->iterations and, unless converged, info->message; w->rl holds
 * the result (the best iterate when not converged).  Collective. */
typedef fc_status (*fc_dist_iterate_fn)(fc_dist_work *w, const fc_problem *p, const fc_options *opt,
                                        const fc_clock *clk, int cap, int *capped, fc_info *info);

/* The run: layout and setup, iterate, r gathered on every rank, v and u
 * recomputed; when polished (the sweeping solvers), the sweep's data laid
 * out per contact (nncg.sweep_data), and a problem of at most 5000 contacts
 * not converged after 1000 iterations finished by serial nsgs-v on rank 0. */
fc_status fc_dist_run(const char *name, fc_dist_iterate_fn iterate, int polished,
                      const fc_problem *p, const fc_options *opt, double *r, double *u, double *v,
                      fc_info *info);
void fc_dist_work_free(fc_dist_work *w);

/* s[0..n) summed over the ranks in rank order (the same bits on every
 * rank, for any reduction algorithm); all: size x n scratch. */
void fc_dist_sum(MPI_Comm comm, double *s, int n, double *all);
/* The same in two halves, the exchange running in between. */
void fc_dist_sum_start(MPI_Comm comm, const double *s, int n, double *all, MPI_Request *req);
void fc_dist_sum_end(MPI_Comm comm, double *s, int n, const double *all, MPI_Request *req);
/* One Gauss-Seidel sweep over the owned contacts, file order. */
void fc_dist_sweep(fc_dist_work *w, const fc_problem *p, const fc_local_params *par);
/* The global SPEC error at the consistent v; *expired: any rank's clock. */
double fc_dist_measure(fc_dist_work *w, const fc_problem *p, const fc_clock *clk, int *expired);
/* Before iteration `it` (a "sweep" or an "iteration", what): 1 when the
 * loop must end at the cap (*capped = 1), at opt->max_iter or because
 * the time is out (*st = FC_TIME_LIMIT), with info->message written. */
int fc_dist_limits(const fc_options *opt, int it, int cap, int expired, double best, const char *what,
                   fc_status *st, int *capped, fc_info *info);
/* After iteration `it`, its measured error err: a NaN ends the loop (1,
 * *st = FC_DIVERGED, info->message written; the best iterate is kept);
 * else a new best error is kept in *best and w->rl in w->best. */
int fc_dist_take(fc_dist_work *w, double err, double *best, int it, const char *what, fc_status *st,
                 fc_info *info);
/* The caller's progress callback, one decision for every rank: 1 to stop
 * (info->message written).  Collective. */
int fc_dist_progress(const fc_dist_work *w, const fc_options *opt, int it, double err, const char *what,
                     fc_info *info);

fc_status fc_dist_nsgs_solve_global(const fc_problem *p, const fc_options *opt, double *r,
                                    double *u, double *v, fc_info *info);
fc_status fc_dist_nncg_solve_global(const fc_problem *p, const fc_options *opt, double *r,
                                    double *u, double *v, fc_info *info);
fc_status fc_dist_apgd_solve_global(const fc_problem *p, const fc_options *opt, double *r,
                                    double *u, double *v, fc_info *info);

#endif
