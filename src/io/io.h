/* Private helpers shared by the file readers and writers of src/io/. */
#ifndef FRICON_IO_H
#define FRICON_IO_H

#include "internal.h"

/* A growing list of (row, column, value) entries. */
typedef struct fc_triplets {
    long n, cap;
    int *i, *j;
    double *x;
} fc_triplets;

/* Append one entry; FC_OK or FC_ERR_NOMEM. */
fc_err fc_triplets_push(fc_triplets *t, int i, int j, double x);
void fc_triplets_free(fc_triplets *t);
/* CSR of the entries (inside rows x cols; duplicates summed, explicit
 * zeros kept, columns sorted); NULL when out of memory. */
fc_matrix *fc_triplets_to_csr(const fc_triplets *t, int rows, int cols);

/* The entries of a matrix as libfclib returns it (triplet, CSC or CSR by
 * its nz), every size, pointer and index checked against its declared
 * sizes (arrays of nzmax entries; p of n+1 (CSC) or m+1 (CSR) entries);
 * NULL on success, else why it is refused. */
struct fclib_matrix;
const char *fc_fclib_matrix_entries(const struct fclib_matrix *A, fc_triplets *T);

/* The last component of a path (points into path). */
const char *fc_io_basename(const char *path);
/* Validate a read problem: *out = p, else p freed, err "PATH: message". */
fc_err fc_io_finish(const char *path, fc_problem *p, fc_problem **out, fc_error *err);
fc_err fc_io_finish_shape(const char *path, fc_problem *p, fc_problem **out, fc_error *err); /* but M's definiteness */

#endif
