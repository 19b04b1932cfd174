/* libFuzzer target: the checks on matrices as libfclib returns them.
 * libfclib reads HDF5 files into struct fclib_matrix with arrays sized
 * from the datasets (p: nz entries for triplets, n+1 (CSC) or m+1 (CSR)
 * pointers; i and x: nzmax entries); a corrupted file yields corrupted
 * sizes, counts, pointers and indices inside such arrays, or NULL
 * members.  Whatever fc_fclib_matrix_entries accepts must convert and
 * multiply safely under ASan. */
#include <fclib.h>

#include "io/io.h"

#include <stdint.h>

typedef struct { const uint8_t *p; size_t n; } bytes;

static int take_int(bytes *b, int lo, int hi)
{
    if (b->n == 0) return lo;
    int v = lo + (int)(b->p[0] % (unsigned)(hi - lo + 1));
    b->p++, b->n--;
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bytes b = {data, size};
    struct fclib_matrix A;
    memset(&A, 0, sizeof A);
    A.m = take_int(&b, -2, 12);
    A.n = take_int(&b, -2, 12);
    A.nzmax = take_int(&b, -2, 40);
    A.nz = take_int(&b, -3, 40);
    int nulls = take_int(&b, 0, 15);
    /* array lengths as libfclib allocates them from the declared sizes */
    int np = A.nz >= 0 ? A.nz : A.nz == -1 ? A.n + 1 : A.m + 1;
    int nx = A.nzmax;
    if (np < 0) np = 0;
    if (nx < 0) nx = 0;
    int *p = (nulls & 1) ? NULL : malloc(((size_t)np + 1) * sizeof *p);
    int *i = (nulls & 2) ? NULL : malloc(((size_t)nx + 1) * sizeof *i);
    double *x = (nulls & 4) ? NULL : malloc(((size_t)nx + 1) * sizeof *x);
    int monotone = nulls & 8;   /* half the inputs get plausible pointers */
    for (int k = 0; p && k < np; k++)
        p[k] = monotone && A.nz < 0 ? (k ? p[k - 1] + take_int(&b, 0, 3) : 0) : take_int(&b, -2, 14);
    for (int k = 0; i && k < nx; k++) i[k] = take_int(&b, -2, 14);
    for (int k = 0; x && k < nx; k++) x[k] = take_int(&b, -100, 100) * 0.25;
    A.p = p, A.i = i, A.x = x;

    fc_triplets T = {0};
    const char *why = fc_fclib_matrix_entries(&A, &T);
    if (!why) {
        fc_matrix *C = fc_triplets_to_csr(&T, A.m, A.n);
        if (C) {
            double xin[16] = {0}, y[16] = {0};
            for (int k = 0; k < A.n; k++) xin[k] = 1.0 + k;
            fc_matrix_gemv(C, 1.0, xin, 0.0, y);
            fc_matrix_gemv_t(C, 1.0, y, 0.0, xin);
            if (A.m == A.n && A.m % 3 == 0) {
                fc_matrix *B = fc_matrix_to_bsr(C, 3);
                if (B) fc_matrix_gemv(B, 1.0, xin, 1.0, y);
                fc_matrix_free(B);
            }
            fc_matrix_free(C);
        }
    }
    fc_triplets_free(&T);
    free(p);
    free(i);
    free(x);
    return 0;
}
