/* Colourings of the contacts for parallel Gauss-Seidel (issue 28):
 * contacts of one colour do not couple, so a sweep may update them at the
 * same time, colour after colour, and the result is the same for any
 * number of threads.  Greedy, in the contacts' own order: each contact
 * takes the smallest colour that none of its already coloured neighbours
 * has (deterministic; at most the largest degree + 1 colours).  Private
 * to the library. */
#ifndef FRICON_COLOUR_H
#define FRICON_COLOUR_H

#include "internal.h"

/* nsgs.order = 0 (auto) colours from this many contacts (with 2 threads
 * or more): below, a sweep lasts a few milliseconds and a barrier per
 * colour is a noticeable part of it (docs/measurements.md#threads). */
#define FC_COLOUR_AUTO_MIN 10000
/* ... and when the colouring has at least this many contacts per colour
 * on average: fewer, and the barriers cost more than the colours' work
 * (a dense W needs one colour per contact). */
#define FC_COLOUR_MIN_SIZE 256

typedef struct fc_colouring {
    int n;          /* contacts                                          */
    int ncolours;
    int *start;     /* ncolours + 1: colour c is member[start[c] .. start[c+1]-1] */
    int *member;    /* the n contacts by colour, increasing within one   */
} fc_colouring;

/* Colours of the block graph of W (block-CSR, bs x bs blocks, one block
 * row per contact): contacts a != b conflict when W_ab or W_ba is stored
 * with a nonzero entry.  0: done; 1: more than max_colours colours would
 * be needed (c left empty); -1: out of memory. */
int fc_colour_blocks(const fc_matrix *W, int max_colours, fc_colouring *c);

/* Colours of contacts that touch unknowns (e.g. the velocities of the
 * bodies of a global problem): contact a touches the column indices of
 * rows d*a .. d*a+d-1 of A and of B (CSR, ncols columns; B may be NULL),
 * and two contacts conflict when they touch a common unknown.  Returns as
 * fc_colour_blocks (1 as soon as one unknown is touched by more than
 * max_colours contacts, which keeps the cost linear in the rows' sizes). */
int fc_colour_shared(int nc, int d, const fc_matrix *A, const fc_matrix *B, int ncols,
                     int max_colours, fc_colouring *c);

void fc_colouring_free(fc_colouring *c);

/* The most colours a solve of nc contacts with option nsgs.order (0
 * auto, 1 file order, 2 coloured) accepts; 0: it sweeps in file order. */
static inline int fc_colour_limit(int order, int nc)
{
    if (order == 2) return nc;
    if (order == 1 || fc_threads() < 2 || nc < FC_COLOUR_AUTO_MIN) return 0;
    return nc / FC_COLOUR_MIN_SIZE;
}

#endif
