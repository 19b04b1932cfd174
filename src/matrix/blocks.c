/* A square matrix's diagonal blocks by union-find over its pattern
 * (blocks.h). */
#include "internal.h"
#include "matrix/blocks.h"

#include <string.h>

static int root_of(int *par, int i)
{
    while (par[i] != i) { par[i] = par[par[i]]; i = par[i]; }
    return i;
}

/* a component's root is its lowest dof */
static void join(int *par, int a, int b)
{
    a = root_of(par, a);
    b = root_of(par, b);
    if (a != b) par[a < b ? b : a] = a < b ? a : b;
}

int fc_diag_blocks(const fc_matrix *C, const int *pairs, int npairs, int *blk, int *start, int *dofs)
{
    int n = C->rows, nb = 0;
    int *par = fc_calloc((size_t)n + 1, sizeof *par);
    if (!par) return -1;
    for (int i = 0; i < n; i++) par[i] = i;
    for (int i = 0; i < n; i++)
        for (int k = C->p[i]; k < C->p[i + 1]; k++) join(par, i, C->j[k]);
    for (int k = 0; k < npairs; k++) join(par, pairs[2 * k], pairs[2 * k + 1]);
    for (int i = 0; i < n; i++) blk[i] = root_of(par, i) == i ? nb++ : -1;
    for (int i = 0; i < n; i++) blk[i] = blk[root_of(par, i)];
    memset(start, 0, ((size_t)n + 2) * sizeof *start);
    for (int i = 0; i < n; i++) start[blk[i] + 1]++;
    for (int b = 0; b < nb; b++) start[b + 1] += start[b];
    if (dofs) {   /* par: each block's fill */
        memset(par, 0, (size_t)n * sizeof *par);
        for (int i = 0; i < n; i++) dofs[start[blk[i]] + par[blk[i]]++] = i;
    }
    free(par);
    return nb;
}
