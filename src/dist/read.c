/* The distributed solvers' read (docs/distributed.md, twenty-first
 * session): every rank reads the file; the ranks agree on the outcome
 * (a rank that cannot read it fails them all, one line from rank 0); and
 * M's definiteness, which the serial reader checks by a Cholesky of the
 * whole M (half of the read's CPU on the 10^5-contact pile steps, on
 * every rank), is checked on M's diagonal blocks, each rank a share. */
#include "internal.h"
#include "dist/dist.h"
#include "matrix/blocks.h"

#include <lapacke.h>
#include <stdio.h>
#include <string.h>

/* M's diagonal blocks (fc_diag_blocks), this rank's share of them
 * (every size-th from the rank-th) each by a dense Cholesky: 1 all
 * positive definite, 0 one is not, -1 a block has more than
 * FC_DIST_MAX_BODY dofs (or no memory): the whole M must be checked. */
static int blocks_definite(const fc_matrix *M, int rank, int size)
{
    fc_matrix *C = fc_matrix_to_csr(M);
    int n = M->rows, ok = -1, nb = -1, big = 0;
    int *blk = fc_calloc((size_t)n + 1, sizeof *blk), *start = fc_calloc((size_t)n + 2, sizeof *start);
    int *dofs = fc_calloc((size_t)n + 1, sizeof *dofs), *pos = fc_calloc((size_t)n + 1, sizeof *pos);
    double *A = NULL;
    if (!C || !blk || !start || !dofs || !pos || (nb = fc_diag_blocks(C, NULL, 0, blk, start, dofs)) < 0) goto done;
    for (int b = 0; b < nb; b++) big = big > start[b + 1] - start[b] ? big : start[b + 1] - start[b];
    if (big > FC_DIST_MAX_BODY) goto done;
    if (!(A = fc_calloc((size_t)big * big + 1, sizeof *A))) goto done;
    ok = 1;
    for (int b = rank; b < nb && ok; b += size) {
        int s = start[b + 1] - start[b];
        for (int k = 0; k < s; k++) pos[dofs[start[b] + k]] = k;   /* the place in the block */
        memset(A, 0, (size_t)s * s * sizeof *A);
        for (int k = 0; k < s; k++) {
            int i = dofs[start[b] + k];
            for (int t = C->p[i]; t < C->p[i + 1]; t++) A[k + (size_t)pos[C->j[t]] * s] += C->x[t];
        }
        ok = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', s, A, s) == 0;   /* > 0: a pivot not positive */
    }
done:
    fc_matrix_free(C);
    free(blk); free(start); free(dofs); free(pos); free(A);
    return ok;
}

static int is_hdf5(const char *path)
{
    size_t l = strlen(path);
    return (l > 5 && !strcmp(path + l - 5, ".hdf5")) || (l > 3 && !strcmp(path + l - 3, ".h5"));
}

int fc_dist_agree(int failed, char *msg, int len)
{
    fc_dist_ensure_init();
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int lo = failed ? rank : size;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (lo == size) return 0;
    MPI_Bcast(msg, len, MPI_CHAR, lo, MPI_COMM_WORLD);
    msg[len - 1] = '\0';
    return 1;
}

fc_err fc_dist_read(const char *path, fc_problem **out, fc_error *err)
{
    fc_dist_ensure_init();
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fc_problem *p = NULL;
    int hdf5 = is_hdf5(path);
    fc_err e = hdf5 ? fc_read_hdf5_shape(path, &p, err) : fc_read(path, &p, err);
    int definite = 1;
    if (!e && hdf5 && p->kind == FC_GLOBAL) {
        definite = blocks_definite(p->M, rank, size);
        if (definite < 0) {   /* a large block: the whole M, as the serial reader */
            fc_error t;
            definite = fc_problem_validate(p, &t) == FC_OK;
        }
    }
    /* the lowest failing rank (size: none); M's verdict from every rank */
    int st[2] = {e ? rank : size, !definite}, lo[1];
    lo[0] = st[0];
    MPI_Allreduce(MPI_IN_PLACE, lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, st + 1, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (lo[0] < size) {
        if (!e) {
            fc_problem_free(p);
            e = fc_error_set(err, FC_ERR_IO, "%s: rank %d of %d could not read it (every rank reads the file)",
                             path, lo[0], size);
        }
        return e;
    }
    if (st[1]) {   /* the serial reader's own message when it agrees */
        fc_error t;
        if (fc_problem_validate(p, &t) != FC_OK) e = fc_error_set(err, t.code, "%s: %s", path, t.msg);
        else e = fc_error_set(err, FC_ERR_INVALID, "%s: matrix M is not positive definite (a diagonal block)", path);
        fc_problem_free(p);
        return e;
    }
    *out = p;
    return FC_OK;
}
