/* Colourings for parallel Gauss-Seidel: contacts of one colour do not
 * couple.  Greedy in the contacts' order: deterministic. */
#ifndef FRICON_COLOUR_H
#define FRICON_COLOUR_H

#include "internal.h"

/* nsgs.order = 0 colours from this many contacts and 2 threads, when
 * the colours hold this many contacts on average (docs/solvers.md#nsgs-psor). */
#define FC_COLOUR_AUTO_MIN 10000
#define FC_COLOUR_MIN_SIZE 256

typedef struct fc_colouring {
    int n, ncolours;
    int *start;     /* ncolours + 1: colour c is member[start[c] .. start[c+1]-1] */
    int *member;    /* the n contacts by colour, increasing within one   */
    int stretches;  /* > 0: a block order (fc_stretch_*): groups 0 ..
                       stretches-1 are swept in parallel, one thread
                       each in order, then group `stretches` in order */
    int phases;     /* > 1: phase p (in turn) sweeps groups p g .. p g +
                       g - 1 at once, g = stretches / phases */
} fc_colouring;

/* Colours of W's block graph (block-CSR, a block row per contact): a and
 * b conflict when W_ab or W_ba is stored and nonzero.  0: done; 1: more
 * than max_colours needed (c empty); -1: out of memory. */
int fc_colour_blocks(const fc_matrix *W, int max_colours, fc_colouring *c);

/* Contact a touches the columns of rows d*a .. d*a+d-1 of CSR A and B
 * (B may be NULL): sharing one is a conflict.  Returns as
 * fc_colour_blocks (1 once a column has more than max_colours contacts). */
int fc_colour_shared(int nc, int d, const fc_matrix *A, const fc_matrix *B, int ncols,
                     int max_colours, fc_colouring *c);

/* Block-parallel orders: stretches of the contacts' order (spatial: a
 * breadth-first one) at equal shares of weight[a] (NULL: W's blocks), or of
 * the contacts, or given parts, and the interface swept after them (W's: one
 * of two coupled contacts; shared: both).  Phases > 1: stretches * phases
 * pieces, piece k in phase k % phases, so that a phase's pieces lie apart
 * (an interface only where they couple).  0: done; -1: no memory, bad part. */
int fc_stretch_blocks(const fc_matrix *W, int stretches, int phases, const long *weight,
                      int spatial, fc_colouring *c);
int fc_stretch_shared(int nc, int d, const fc_matrix *A, const fc_matrix *B, int ncols,
                      int stretches, int phases, fc_colouring *c);
int fc_parts_shared(int nc, int d, const fc_matrix *A, const fc_matrix *B, int ncols,
                    int parts, int phases, const int *part, fc_colouring *c);

/* Each body's contacts a (body[2a], body[2a+1]; -1 none), ascending: con[ptr[b]..ptr[b+1]). */
void fc_body_contacts(int nc, int nb, const int *body, int *ptr, int *con);

/* part[a]: bodies (body[2a], body[2a+1]; -1 none) by breadth-first level from a far body, in slabs
 * of equal weight[a] (NULL: 1); between two -1, in phases the lower (as pieces).  0; -1: no memory. */
int fc_level_parts(int nc, int nb, const int *body, const int *weight, int parts, int phases, int *part);

void fc_colouring_free(fc_colouring *c);

/* c's phases (1 without) and the groups one phase sweeps at once; nsgs.phases' and nncg.phases' value. */
static inline int fc_colouring_phases(const fc_colouring *c) { return c->phases > 1 ? c->phases : 1; }
static inline int fc_phase_groups(const fc_colouring *c) { return c->stretches / fc_colouring_phases(c); }
static inline int fc_phases_option(int phases) { return phases == 1 ? 1 : 2; }

/* nsgs.order's values. */
enum { FC_ORDER_AUTO = 0, FC_ORDER_FILE = 1, FC_ORDER_COLOURED = 2, FC_ORDER_STRETCHES = 3 };

/* The order a solve of nc contacts with nsgs.order takes: FC_ORDER_FILE,
 * _COLOURED or _STRETCHES (which needs 2 threads: at one it is the file
 * order).  Auto: from 2 threads and FC_COLOUR_AUTO_MIN contacts the
 * stretches (docs/solvers.md#nsgs-psor). */
static inline int fc_sweep_order(int order, int nc)
{
    if (order == FC_ORDER_AUTO)
        order = fc_threads() >= 2 && nc >= FC_COLOUR_AUTO_MIN ? FC_ORDER_STRETCHES : FC_ORDER_FILE;
    if (order == FC_ORDER_STRETCHES && fc_threads() < 2) return FC_ORDER_FILE;
    return order;
}

/* The most colours a coloured solve of nc contacts accepts: every count
 * when asked for, nc / FC_COLOUR_MIN_SIZE when chosen by auto. */
static inline int fc_colour_limit(int order, int nc)
{
    return order == FC_ORDER_COLOURED ? nc : nc / FC_COLOUR_MIN_SIZE;
}

#endif
