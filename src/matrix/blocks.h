/* The diagonal blocks of a square sparse matrix (M's bodies). */
#ifndef FRICON_BLOCKS_H
#define FRICON_BLOCKS_H

#include "fricon.h"

/* The components of the n x n CSR C's pattern joined by the pairs[2k], pairs[2k+1] (k < npairs),
 * numbered by lowest dof: blk (n) each dof's block, start (n + 2) their offsets, dofs (n, or NULL)
 * each block's dofs ascending.  The block count; -1: out of memory. */
int fc_diag_blocks(const fc_matrix *C, const int *pairs, int npairs, int *blk, int *start,
                   int *dofs);

#endif
