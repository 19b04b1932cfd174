/* Matrix storages agree: products, transposed products, diagonal blocks,
 * block rows and conversions checked against a plain dense computation. */
#include "test.h"
#include "fricon.h"
#include "internal.h"
#include "matrix/upper.h"

/* A deterministic pseudo-random sequence (no global state). */
static double next_rand(unsigned long *s)
{
    *s = *s * 6364136223846793005UL + 1442695040888963407UL;
    return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* A dense n x n matrix with a block-sparse pattern of d x d blocks. */
static fc_matrix *random_block_sparse(int nb, int d, unsigned long *seed)
{
    fc_matrix *A = fc_matrix_dense(nb * d, nb * d);
    for (int a = 0; a < nb; a++)
        for (int b = 0; b < nb; b++) {
            if (a != b && next_rand(seed) < 0.3) continue; /* ~35% of blocks present */
            for (int c = 0; c < d; c++)
                for (int r = 0; r < d; r++) {
                    double v = next_rand(seed);
                    A->x[(size_t)(b * d + c) * A->rows + a * d + r] = (r + c) % 2 ? 0.0 : v;
                }
        }
    return A;
}

static void check_same(const fc_matrix *A, const fc_matrix *D, const char *what)
{
    int n = D->rows, d = 3;
    double x[64] = {0}, y[64] = {0}, yref[64] = {0}, blk[9] = {0};
    unsigned long seed = 7;
    for (int i = 0; i < n; i++) x[i] = next_rand(&seed);
    for (int i = 0; i < n; i++) {
        yref[i] = 0.5 * x[i];
        for (int j = 0; j < n; j++) yref[i] += 2.0 * D->x[(size_t)j * n + i] * x[j];
        y[i] = x[i];
    }
    fc_matrix_gemv(A, 2.0, x, 0.5, y);
    for (int i = 0; i < n; i++) CHECK_NEAR(y[i], yref[i], 1e-13, what);
    for (int i = 0; i < n; i++) {
        yref[i] = 0.0;
        for (int j = 0; j < n; j++) yref[i] -= D->x[(size_t)i * n + j] * x[j];
    }
    fc_matrix_gemv_t(A, -1.0, x, 0.0, y);
    for (int i = 0; i < n; i++) CHECK_NEAR(y[i], yref[i], 1e-13, what);
    for (int a = 0; a < n / d; a++) {
        fc_matrix_diag_block(A, a, d, blk);
        for (int c = 0; c < d; c++)
            for (int r = 0; r < d; r++)
                CHECK_NEAR(blk[c * d + r], D->x[(size_t)(a * d + c) * n + a * d + r], 0, what);
        double out[3];
        for (int skip = 0; skip <= 1; skip++) {
            fc_matrix_block_row_dot(A, a, d, x, skip, out);
            for (int r = 0; r < d; r++) {
                double ref = 0.0;
                for (int j = 0; j < n; j++)
                    if (!skip || j / d != a) ref += D->x[(size_t)j * n + a * d + r] * x[j];
                CHECK_NEAR(out[r], ref, 1e-13, what);
            }
        }
        double row = 0.0;
        for (int j = 0; j < n; j++) row += D->x[(size_t)j * n + a * d + 1] * x[j];
        CHECK_NEAR(fc_matrix_row_dot(A, a * d + 1, x), row, 1e-13, what);
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            CHECK(fc_matrix_get(A, i, j) == D->x[(size_t)j * n + i], "%s get(%d,%d)", what, i, j);
}

/* fc_bsr_symmetric (the half sweep's test) on 1 and 2 threads, its rows
 * shared by the threads when the threshold is lowered: yes for A + A^T,
 * no once one entry of an early or a late block row moves. */
static void symmetric_on_threads(void)
{
    unsigned long seed = 7;
    int nb = 40, d = 3;
    fc_matrix *D = random_block_sparse(nb, d, &seed), *S = fc_matrix_dense(nb * d, nb * d);
    int n = nb * d;
    double smax = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            S->x[(size_t)j * n + i] = D->x[(size_t)j * n + i] + D->x[(size_t)i * n + j];
            smax = fmax(smax, fabs(S->x[(size_t)j * n + i]));
        }
    fc_matrix *B = fc_matrix_to_bsr(S, d);
    int before = fc_threads(), pmin = fc_par_min_set(4);
    const int rows[] = {-1, 1, nb - 1};   /* -1: unperturbed */
    for (int r = 0; r < 3; r++) {
        int row = rows[r];
        long k = -1;
        if (row >= 0) {
            for (int t = B->p[row]; t < B->p[row + 1] && k < 0; t++)
                if (B->j[t] != row && B->x[(size_t)t * d * d] != 0.0) k = t;
            CHECK(k >= 0, "row %d has an off-diagonal block", row);
            if (k >= 0) B->x[(size_t)k * d * d] += 1e-3 * smax;
        }
        for (int t = 1; t <= 2; t++) {
            fc_threads_set(t);
            CHECK(fc_bsr_symmetric(B, 1e-12) == (row >= 0), "fc_bsr_symmetric, %d thread(s), %s", t,
                  row < 0 ? "symmetric" : "one entry moved");
        }
        if (k >= 0) B->x[(size_t)k * d * d] -= 1e-3 * smax;
    }
    fc_threads_set(before);
    fc_par_min_set(pmin);
    fc_matrix_free(D); fc_matrix_free(S); fc_matrix_free(B);
}

int main(void)
{
    symmetric_on_threads();
    unsigned long seed = 42;
    fc_matrix *D = random_block_sparse(7, 3, &seed);
    fc_matrix *C = fc_matrix_to_csr(D), *B = fc_matrix_to_bsr(D, 3);
    fc_matrix *B2 = fc_matrix_to_bsr(C, 3), *D2 = fc_matrix_to_dense(B);
    CHECK(C && B && B2 && D2, "conversions allocate");
    CHECK(C->nnz == fc_matrix_count_nonzeros(D), "CSR keeps exactly the nonzeros");
    CHECK(B->kind == FC_MAT_BSR && B->bs == 3, "BSR kind");
    CHECK(fc_matrix_to_bsr(D, 4) == NULL, "to_bsr refuses a block size that does not divide");
    check_same(D, D, "dense");
    check_same(C, D, "csr");
    check_same(B, D, "bsr");
    check_same(B2, D, "bsr from csr");
    check_same(D2, D, "dense from bsr");
    fc_matrix *Bc = fc_matrix_copy(B);
    check_same(Bc, D, "bsr copy");

    /* straight from compressed arrays (the FClib reader's path): CSR and
     * CSC (the CSR of the transpose), every entry split into two halves
     * stored one after the other, which must be summed back */
    fc_matrix *T = fc_csr_transpose(C);
    for (int by_column = 0; by_column <= 1; by_column++) {
        const fc_matrix *S0 = by_column ? T : C;
        int no = S0->rows;
        int *pp = calloc((size_t)no + 1, sizeof *pp), *ii = calloc(2 * (size_t)S0->nnz, sizeof *ii);
        double *xx = calloc(2 * (size_t)S0->nnz, sizeof *xx);
        for (int o = 0; o < no; o++) {
            for (int k = S0->p[o]; k < S0->p[o + 1]; k++)
                for (int h = 0; h < 2; h++) { ii[2 * k + h] = S0->j[k]; xx[2 * k + h] = 0.5 * S0->x[k]; }
            pp[o + 1] = 2 * S0->p[o + 1];
        }
        for (int bs = 1; bs <= 3; bs += 2) {
            fc_matrix *Z = fc_compressed_to_bsr(D->rows, D->cols, bs, pp, ii, xx, by_column);
            CHECK(Z && Z->kind == (bs > 1 ? FC_MAT_BSR : FC_MAT_CSR) && Z->bs == bs, "compressed kind");
            CHECK(Z->nnz == (bs > 1 ? B->nnz : C->nnz), "compressed: one entry or block per stored one");
            for (int a = 0; a < Z->rows / bs; a++)
                for (int t = Z->p[a] + 1; t < Z->p[a + 1]; t++)
                    CHECK(Z->j[t - 1] < Z->j[t], "compressed: sorted columns");
            check_same(Z, D, by_column ? "from CSC arrays" : "from CSR arrays");
            fc_matrix_free(Z);
        }
        CHECK(fc_compressed_to_bsr(D->rows, D->cols, 4, pp, ii, xx, by_column) == NULL,
              "compressed refuses a block size that does not divide");
        free(pp); free(ii); free(xx);
    }
    fc_matrix_free(T);

    /* asymmetry: 0 for A + A^T, the relative gap for a perturbed copy */
    fc_matrix *S = fc_matrix_dense(D->rows, D->cols);
    int n = D->rows;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            S->x[(size_t)j * n + i] = D->x[(size_t)j * n + i] + D->x[(size_t)i * n + j];
    double smax = 0;
    for (long k = 0; k < S->nnz; k++) smax = fmax(smax, fabs(S->x[k]));
    fc_matrix *Sb = fc_matrix_to_bsr(S, 3);
    CHECK(fc_matrix_asymmetry(S) == 0.0 && fc_matrix_asymmetry(Sb) == 0.0, "symmetric: asymmetry 0");
    S->x[1] += 1e-3 * smax; /* entry (1, 0) */
    CHECK_NEAR(fc_matrix_asymmetry(S), 1e-3, 1e-12, "relative asymmetry of a perturbed entry");

    fc_matrix *all[] = {D, C, B, B2, D2, Bc, S, Sb};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) fc_matrix_free(all[i]);
    CHECK(fc_matrix_dense(-1, 3) == NULL, "negative size refused");
    CHECK(fc_matrix_dense(1 << 20, 1 << 20) == NULL, "absurd size refused without allocating");

    /* validation of a sparse structure whose middle pointer runs past the
     * entries (p = 0 5 1 with one block): refused without reading past
     * them (a fuzz_validate finding) */
    fc_problem *p = fc_problem_new(FC_LOCAL, 3, 2);
    p->W = fc_matrix_bsr(6, 6, 3, 1);
    p->W->p[1] = 5;
    p->W->p[2] = 1;
    p->W->x[0] = 1.0;
    p->q = calloc(6, sizeof *p->q);
    fc_error err;
    CHECK(fc_problem_validate(p, &err) == FC_ERR_INVALID && strstr(err.msg, "structure"),
          "pointer past the entries refused: %s", err.msg);
    fc_problem_free(p);
    TEST_DONE();
}
