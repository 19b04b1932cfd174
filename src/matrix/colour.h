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

void fc_colouring_free(fc_colouring *c);

/* The most colours a solve of nc contacts with nsgs.order (0 auto, 1 file
 * order, 2 coloured) accepts; 0: file order. */
static inline int fc_colour_limit(int order, int nc)
{
    if (order == 2) return nc;
    if (order == 1 || fc_threads() < 2 || nc < FC_COLOUR_AUTO_MIN) return 0;
    return nc / FC_COLOUR_MIN_SIZE;
}

#endif
