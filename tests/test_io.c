/* File I/O: every shared problem parses with the sizes the independent
 * checker (fccheck.py) or h5dump reports; .dat <-> .hdf5 round trips keep
 * every value exactly; bad, huge and truncated inputs fail cleanly with
 * the file name in the message; written files are accepted by fccheck. */
#define _DEFAULT_SOURCE /* mkstemps, mkdtemp */
#define _POSIX_C_SOURCE 200809L
#include "fricon.h"
#include <fclib.h> /* a second reader and writer of /guesses */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct expect {
    const char *file;
    fc_kind kind;
    int d, nc, n; /* n: global only (from the file header or h5dump) */
} expect;

/* d, nc (m = d*nc) as printed by `fccheck.py FILE`; for Chute (which
 * fccheck cannot read) and every global n, from h5dump / the header. */
static const expect FILES[] = {
    {"fc2d/FC2D_SliderCrankLagrangian00000.dat", FC_LOCAL, 2, 2, 0},
    {"fc2d/FrictionContactProblem00071.dat", FC_LOCAL, 2, 89, 0},
    {"fc2d/FrictionContactProblem00394.dat", FC_LOCAL, 2, 6, 0},
    {"fc2d/fc2d_granularflowonwall_00667_00000.dat", FC_LOCAL, 2, 667, 0},
    {"fc3d/BoxesStack1-i100000-32.hdf5.dat", FC_LOCAL, 3, 52, 0},
    {"fc3d/Capsules-i122-1617.dat", FC_LOCAL, 3, 296, 0},
    {"fc3d/Capsules-i125-1213.hdf5", FC_LOCAL, 3, 286, 0},
    {"fc3d/Confeti-ex13-4contact-Fc3D-SBM.dat", FC_LOCAL, 3, 4, 0},
    {"fc3d/FC3D_Example1.dat", FC_LOCAL, 3, 3, 0},
    {"fc3d/FC3D_Example1_SBM.dat", FC_LOCAL, 3, 3, 0},
    {"fc3d/FrictionContact3D_1c.dat", FC_LOCAL, 3, 1, 0},
    {"fc3d/FrictionContact3D_RR_1c.dat", FC_LOCAL, 3, 1, 0},
    {"fc3d/KaplasTower-i1061-4.hdf5.dat", FC_LOCAL, 3, 570, 0},
    {"fc3d/LMGC_100_PR_PerioBox-i00361-60-03000.hdf5", FC_LOCAL, 3, 60, 0},
    {"fc3d/NESpheres_10_1.dat", FC_LOCAL, 3, 9, 0},
    {"fc3d/OneObject-i1028-138.hdf5.dat", FC_LOCAL, 3, 23, 0},
    {"fc3d/Rover1039.dat", FC_LOCAL, 3, 4, 0},
    {"fc3d/Rover11035.dat", FC_LOCAL, 3, 1, 0},
    {"fc3d/Rover4396.dat", FC_LOCAL, 3, 2, 0},
    {"global/Box_Stacks-i0122-82-5.hdf5", FC_GLOBAL, 3, 82, 450},
    {"global/CubeH8.hdf5", FC_GLOBAL, 3, 1, 162},
    {"global/GFC3D_Example0.dat", FC_GLOBAL, 3, 1, 9},
    {"global/GFC3D_Example00.dat", FC_GLOBAL, 3, 1, 3},
    {"global/GFC3D_Example00_badly_scaled.dat", FC_GLOBAL, 3, 1, 3},
    {"global/GFC3D_Example1.dat", FC_GLOBAL, 3, 1, 3},
    {"global/GFC3D_OneContact.dat", FC_GLOBAL, 3, 1, 39},
    {"global/GFC3D_TwoRods1.dat", FC_GLOBAL, 3, 3, 54},
    {"global/LMGC_GlobalFrictionContactProblem00046.hdf5", FC_GLOBAL, 3, 9, 162},
    {"global/Spheres-i099-356-679.hdf5", FC_GLOBAL, 3, 356, 12000},
    {"global/gfc2d_granularflowonwall_00069_00350.dat", FC_GLOBAL, 2, 69, 900},
    {"global/spheres-in-a-box-98-i10000-256-10.hdf5", FC_GLOBAL, 3, 256, 588},
    {"rolling/Chute-ndof-768-nc-4-3.hdf5", FC_GLOBAL, 5, 4, 768},
    {"rolling/RFC3D_cube_1.dat", FC_LOCAL, 5, 2, 0},
    {"rolling/RFC3D_sphere_1.dat", FC_LOCAL, 5, 1, 0},
    {"rolling/rfc3d_sphere_from_grfc3d_dense.dat", FC_LOCAL, 5, 2, 0},
};
#define NFILES ((int)(sizeof FILES / sizeof FILES[0]))

static char tmpdir[64];

static const char *data_path(const char *rel, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", FRICON_SHARED_DATA, rel);
    return buf;
}

static const char *tmp_path(const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", tmpdir, name);
    return buf;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* ------------------------------------------------------------------ */
/* Exact comparison                                                     */
/* ------------------------------------------------------------------ */

/* Do A and B hold the same values everywhere (a missing entry is 0)? */
static int same_matrix(const fc_matrix *A, const fc_matrix *B)
{
    if (!A || !B) return A == B;
    if (A->rows != B->rows || A->cols != B->cols) return 0;
    fc_matrix *a = fc_matrix_to_csr(A), *b = fc_matrix_to_csr(B);
    int ok = a && b;
    for (int i = 0; ok && i < a->rows; i++) {
        int ka = a->p[i], kb = b->p[i], ea = a->p[i + 1], eb = b->p[i + 1];
        while (ok && (ka < ea || kb < eb)) {
            int ja = ka < ea ? a->j[ka] : a->cols, jb = kb < eb ? b->j[kb] : b->cols;
            double va = ja <= jb ? a->x[ka] : 0.0, vb = jb <= ja ? b->x[kb] : 0.0;
            if (va != vb) ok = 0;
            if (ja <= jb) ka++;
            if (jb <= ja) kb++;
        }
    }
    fc_matrix_free(a);
    fc_matrix_free(b);
    return ok;
}

static int same_vector(const double *x, const double *y, int n)
{
    if (!x || !y) return x == y;
    for (int k = 0; k < n; k++)
        if (x[k] != y[k]) return 0;
    return 1;
}

/* Every field of two problems equal (values compared with ==). */
static int same_problem(const fc_problem *p, const fc_problem *q)
{
    int m = fc_problem_m(p);
    if (p->kind != q->kind || p->d != q->d || p->nc != q->nc || p->n != q->n) return 0;
    if (!same_vector(p->mu, q->mu, p->nc)) return 0;
    if (p->d == 5 && !same_vector(p->mu_r, q->mu_r, p->nc)) return 0;
    if (p->neq != q->neq) return 0;
    if (p->kind == FC_LOCAL) {
        /* R: NULL stands for zero (written as an explicit zero) */
        int same_R = p->R && q->R ? same_matrix(p->R, q->R)
                                  : (!p->R || !fc_matrix_count_nonzeros(p->R)) && (!q->R || !fc_matrix_count_nonzeros(q->R));
        return same_matrix(p->W, q->W) && same_vector(p->q, q->q, m) &&
               (!p->neq || (same_matrix(p->V, q->V) && same_R && same_vector(p->s, q->s, p->neq)));
    }
    return same_matrix(p->M, q->M) && same_matrix(p->H, q->H) && same_vector(p->f, q->f, p->n) &&
           same_vector(p->w, q->w, m) &&
           (!p->neq || (same_matrix(p->G, q->G) && same_vector(p->b, q->b, p->neq)));
}

/* ------------------------------------------------------------------ */
/* Every shared file, and round trips                                   */
/* ------------------------------------------------------------------ */

/* Write p to out, read it back, and check equality. */
static void round_trip(const fc_problem *p, const char *out, const char *what)
{
    fc_error err;
    fc_problem *q = NULL;
    fc_err e = fc_write(out, p, &err);
    CHECK(e == FC_OK, "%s: write %s: %s", what, out, err.msg);
    if (e) return;
    e = fc_read(out, &q, &err);
    CHECK(e == FC_OK, "%s: read back %s: %s", what, out, err.msg);
    if (e) return;
    CHECK(same_problem(p, q), "%s: %s differs from the original", what, out);
    fc_problem_free(q);
}

/* Each file: sizes as expected, then both round trips. */
static void test_shared_files(void)
{
    char path[1024], out[256];
    for (int k = 0; k < NFILES; k++) {
        const expect *x = &FILES[k];
        fc_problem *p = NULL;
        fc_error err;
        fc_err e = fc_read(data_path(x->file, path, sizeof path), &p, &err);
        CHECK(e == FC_OK, "%s: %s", x->file, err.msg);
        if (e) continue;
        CHECK(p->kind == x->kind && p->d == x->d && p->nc == x->nc,
              "%s: kind %d d %d nc %d, expected %d %d %d", x->file, p->kind, p->d, p->nc,
              x->kind, x->d, x->nc);
        if (x->kind == FC_GLOBAL) CHECK(p->n == x->n, "%s: n = %d, expected %d", x->file, p->n, x->n);
        if (ends_with(x->file, ".hdf5")) { /* .hdf5 -> .dat -> .hdf5 */
            round_trip(p, tmp_path("rt.dat", out, sizeof out), x->file);
            round_trip(p, tmp_path("rt.hdf5", out, sizeof out), x->file);
        } else {                            /* .dat -> .hdf5 -> .dat */
            round_trip(p, tmp_path("rt.hdf5", out, sizeof out), x->file);
            round_trip(p, tmp_path("rt.dat", out, sizeof out), x->file);
        }
        fc_problem_free(p);
    }
}

/* A .dat read from the shared data keeps its storage: dense stays
 * dense, a uniform 3x3 sparse-block W becomes BSR, CSparse becomes CSR. */
static void test_storage_kinds(void)
{
    static const struct { const char *file; fc_mat_kind kind; } cases[] = {
        {"fc3d/FC3D_Example1.dat", FC_MAT_DENSE},
        {"fc3d/Capsules-i122-1617.dat", FC_MAT_BSR},
        {"fc2d/fc2d_granularflowonwall_00667_00000.dat", FC_MAT_CSR},
    };
    char path[1024];
    for (int k = 0; k < 3; k++) {
        fc_problem *p = NULL;
        fc_error err;
        if (fc_read(data_path(cases[k].file, path, sizeof path), &p, &err)) {
            CHECK(0, "%s: %s", cases[k].file, err.msg);
            continue;
        }
        CHECK(p->W->kind == cases[k].kind, "%s: W kind %d, expected %d", cases[k].file,
              p->W->kind, cases[k].kind);
        fc_problem_free(p);
    }
}

/* ------------------------------------------------------------------ */
/* Bad inputs                                                           */
/* ------------------------------------------------------------------ */

/* A temporary file holding text (len bytes); returns its path. */
static void make_file(char *path, size_t size, const char *suffix, const char *text, size_t len)
{
    snprintf(path, size, "%s/badXXXXXX%s", tmpdir, suffix);
    int fd = mkstemps(path, (int)strlen(suffix));
    if (fd < 0) { perror("mkstemps"); exit(2); }
    if (len && write(fd, text, len) != (ssize_t)len) { perror("write"); exit(2); }
    close(fd);
}

/* Reading text must fail with code, a message naming the file and,
 * when line > 0, that line. */
static void expect_failure(const char *text, fc_err code, int line, const char *why)
{
    char path[256], tag[32];
    make_file(path, sizeof path, ".dat", text, strlen(text));
    fc_problem *p = NULL;
    fc_error err = {FC_OK, ""};
    fc_err e = fc_read(path, &p, &err);
    CHECK(e == code && err.code == code, "%s: code %d, expected %d (%s)", why, e, code, err.msg);
    CHECK(p == NULL, "%s: a problem was returned", why);
    CHECK(strstr(err.msg, path) != NULL, "%s: message lacks the file name: %s", why, err.msg);
    snprintf(tag, sizeof tag, "line %d:", line);
    if (line > 0) CHECK(strstr(err.msg, tag) != NULL, "%s: message lacks '%s': %s", why, tag, err.msg);
    CHECK(strchr(err.msg, '\n') == NULL, "%s: message not on one line", why);
    fc_problem_free(p);
    unlink(path);
}

/* A valid 1-contact local problem, with pieces replaced by the cases. */
#define W1 "0 3 3\n3 3\n1 0 0 0 1 0 0 0 1\n"

static void test_bad_dat(void)
{
    expect_failure("", FC_ERR_PARSE, 1, "empty file");
    expect_failure("   \n\n", FC_ERR_PARSE, 3, "blank file");
    expect_failure("3\n1\n" W1 "-1 0 0\nabc\n", FC_ERR_PARSE, 7, "non-numeric mu");
    expect_failure("3\n1\n" W1 "-1 0 nan\n0.5\n", FC_ERR_INVALID, 6, "NaN in q");
    expect_failure("3\n1\n0 3 3\n3 3\n1 0 0 0 inf 0 0 0 1\n-1 0 0\n0.5\n", FC_ERR_INVALID, 5, "Inf in W");
    expect_failure("4\n1\n" W1 "-1 0 0 0\n0.5\n", FC_ERR_INVALID, 1, "d = 4");
    expect_failure("3\n0\n" W1 "0.5\n", FC_ERR_INVALID, 2, "nc = 0");
    expect_failure("3\n-2\n" W1 "0.5\n", FC_ERR_INVALID, 2, "nc < 0");
    expect_failure("3\n2\n" W1 "-1 0 0\n0.5\n", FC_ERR_INVALID, 0, "W not m x m");
    expect_failure("3\n1\n" W1 "-1 0 0\n", FC_ERR_PARSE, 7, "mu missing");
    expect_failure("3\n1\n0 3 3\n3 4\n1 0 0\n", FC_ERR_PARSE, 4, "dense sizes disagree");
    expect_failure("3\n1\n7 3 3\n", FC_ERR_PARSE, 3, "unknown storage");
    expect_failure("3\n1\n0 -3 3\n", FC_ERR_PARSE, 3, "negative size");
    expect_failure("3 1 1 3 3 1 1 1 3 3 2 1 0 1 5 0 1 0 0 0 1 0 0 0 1 -1 0 0 0.5\n", FC_ERR_PARSE, 1,
                   "block column index out of range");
    expect_failure("3 1 1 3 3 1 1 1 3 3 2 1 1 0 0 0 1 0 0 0 1 0 0 0 1 -1 0 0 0.5\n", FC_ERR_PARSE, 1,
                   "non-monotone block pointers");
    expect_failure("3 1 1 3 3 1 1 1 2 3 2 1 0 1 0 0 1 0 0 0 1 0 0 0 1 -1 0 0 0.5\n", FC_ERR_PARSE, 1,
                   "block sizes not ending at rows");
    expect_failure("3 1 1 3 3 1 1 1 3 3 2 1 0 1 0 7 1 0 0 0 1 0 0 0 1 -1 0 0 0.5\n", FC_ERR_PARSE, 1,
                   "wrong block number");
    expect_failure("3\n1\n2\n3\n3\n1\nCSparse Version 3.1.9\ntriplet: 3-by-3, nzmax: 3 nnz: 3\n"
                   "0 0 : 1\n1 5 : 1\n2 2 : 1\n-1 0 0\n0.5\n", FC_ERR_PARSE, 10, "triplet column out of range");
    expect_failure("3\n1\n2\n3\n3\n1\nCSparse Version 3.1.9\ntriplet: 3-by-3, nzmax: 3 nnz: 4\n"
                   "0 0 : 1\n1 1 : 1\n2 2 : 1\n-1 0 0\n0.5\n", FC_ERR_PARSE, 0, "triplet count disagrees");
    expect_failure("3\n1\n2\n3\n3\n2\nCSparse Version 3.1.9\n3-by-3, nzmax: 3 nnz: 3, 1-norm: 1\n"
                   "col 0 : locations 0 to 0\n0 : 1\ncol 1 : locations 5 to 5\n1 : 1\n", FC_ERR_PARSE, 11,
                   "compressed column locations");
    expect_failure("3\n1\n" W1 "-1 0 0\n-0.5\n", FC_ERR_INVALID, 0, "negative mu");
    expect_failure("3\n1\n0 3 3\n3 3\n0 0 0 0 1 0 0 0 1\n-1 0 0\n0.5\n", FC_ERR_INVALID, 0, "zero W_nn");
    expect_failure("3\n1\n0 3 3\n3 3\n1 5 0 0 1 0 0 0 1\n-1 0 0\n0.5\n", FC_ERR_INVALID, 0, "asymmetric W");
    expect_failure("3\n1\n" W1 "-1 0 1e999\n0.5\n", FC_ERR_INVALID, 6, "overflowing q");
}

/* Reading text must succeed; returns the problem (NULL on failure). */
static fc_problem *expect_success(const char *text, const char *why)
{
    char path[256];
    make_file(path, sizeof path, ".dat", text, strlen(text));
    fc_problem *p = NULL;
    fc_error err = {FC_OK, ""};
    fc_err e = fc_read(path, &p, &err);
    CHECK(e == FC_OK && p, "%s: refused: %s", why, err.msg);
    unlink(path);
    return p;
}

/* A valid 1-contact global problem (GFC3D_Example00's shape): M, H dense. */
#define G1_M "3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n"
#define G1_H "0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n"
#define G1_FW "-1 -1 -1 0 0 0\n0.1\n"

/* A CSparse compressed-column 3 x 3 header for W (nnz entries). */
#define CS_HEAD(nnz) "3\n1\n2\n3\n3\n2\nCSparse Version 3.1.9\n3-by-3, nzmax: " nnz " nnz: " nnz ", 1-norm: 1\n"

/* Where a problem ends: trailing data, sizes that do not match the
 * content, the Siconos isComplete flag (the one accepted trailer). */
static void test_problem_end(void)
{
    fc_problem *p;
    expect_failure("3\n1\n" W1 "-1 0 0\n0.5\nxyz\n", FC_ERR_PARSE, 8, "trailing word");
    expect_failure("3\n1\n" W1 "-1 0 0\n0.5\n0.7\n", FC_ERR_PARSE, 8, "trailing number");
    expect_failure("3\n1\n" W1 "-1 0 0\n0.5 1\n", FC_ERR_PARSE, 7, "flag on the mu line");
    expect_failure("3\n1\n" W1 "-1 0 0\n0.5\n1\n1\n", FC_ERR_PARSE, 9, "two flags");
    expect_failure("3\n1\n" W1 "-1 0 0\n0.5\n1 0\n", FC_ERR_PARSE, 8, "flag and more");
    expect_failure("3\n1\n" W1 "-1 0 0 2\n0.5\n", FC_ERR_PARSE, 7, "q longer than m");
    expect_failure("3\n1\n" W1 "-1 0 0\n0.5 0.5\n", FC_ERR_PARSE, 7, "two mu for one contact");
    expect_failure("3\n1\n0 3 3\n3 3\n1 0 0 0 1 0 0 0 1 0\n-1 0 0\n0.5\n", FC_ERR_PARSE, 7,
                   "dense W with one value too many");
    for (int k = 0; k < 2; k++) {
        p = expect_success(k ? "3\n1\n" W1 "-1 0 0\n0.5\n1\n \n" : "3\n1\n" W1 "-1 0 0\n0.5\n0", "isComplete flag");
        fc_problem_free(p);
    }
    p = expect_success(G1_M G1_H G1_FW "0\n", "global control");
    CHECK(p && p->kind == FC_GLOBAL, "global control read as another kind");
    fc_problem_free(p);
    /* a corrupted H header used to turn the file into a local problem */
    expect_failure(G1_M "7\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n" G1_FW "0\n", FC_ERR_PARSE, 11,
                   "global with a corrupted H storage code");
    expect_failure(G1_M G1_H "-1 -1 -1 0 0 0 0\n0.1\n", FC_ERR_PARSE, 14, "global w too long");
    expect_failure(G1_M G1_H G1_FW "0\n0.1\n", FC_ERR_PARSE, 16, "global with data after the flag");
}

/* CSparse forms: compressed columns once each, a row once per column
 * (any order, as Siconos writes them); triplets sum duplicates. */
static void test_cs_forms(void)
{
    fc_problem *p;
    expect_failure(CS_HEAD("4") "col 0 : locations 0 to 1\n0 : 0.5\n0 : 0.5\ncol 1 : locations 2 to 2\n1 : 1\n"
                   "col 2 : locations 3 to 3\n2 : 1\n-1 0 0\n0.5\n", FC_ERR_PARSE, 11, "duplicate row in a column");
    expect_failure(CS_HEAD("3") "col 0 : locations 0 to 0\n0 : 1\ncol 0 : locations 1 to 1\n1 : 1\n"
                   "col 2 : locations 2 to 2\n2 : 1\n-1 0 0\n0.5\n", FC_ERR_PARSE, 11, "column listed twice");
    expect_failure(CS_HEAD("3") "col 0 : locations 0 to 0\n0 : 1\ncol 2 : locations 1 to 1\n2 : 1\n"
                   "col 1 : locations 2 to 2\n1 : 1\n-1 0 0\n0.5\n", FC_ERR_PARSE, 11, "columns out of order");
    p = expect_success(CS_HEAD("5") "col 0 : locations 0 to 1\n2 : 0.25\n0 : 1\ncol 1 : locations 2 to 2\n1 : 1\n"
                       "col 2 : locations 3 to 4\n2 : 1\n0 : 0.25\n-1 0 0\n0.5\n", "unsorted rows in a column");
    fc_problem_free(p);
    p = expect_success("3\n1\n2\n3\n3\n1\nCSparse Version 3.1.9\ntriplet: 3-by-3, nzmax: 4 nnz: 4\n"
                       "0 0 : 0.5\n1 1 : 1\n0 0 : 0.5\n2 2 : 1\n-1 0 0\n0.5\n", "triplet duplicates");
    if (p) {
        fc_matrix *D = fc_matrix_to_dense(p->W);
        CHECK(D && D->x[0] == 1.0, "triplet duplicates not summed: %g", D ? D->x[0] : -1.0);
        fc_matrix_free(D);
    }
    fc_problem_free(p);
}

/* Open failures: a missing file and a directory give FC_ERR_IO. */
static void test_open_failures(void)
{
    fc_problem *p = NULL;
    fc_error err;
    char path[256];
    tmp_path("does-not-exist.dat", path, sizeof path);
    CHECK(fc_read(path, &p, &err) == FC_ERR_IO && strstr(err.msg, path), "missing file: %s", err.msg);
    CHECK(fc_read(tmpdir, &p, &err) == FC_ERR_IO && strstr(err.msg, tmpdir), "directory: %s", err.msg);
    tmp_path("does-not-exist.hdf5", path, sizeof path);
    CHECK(fc_read(path, &p, &err) == FC_ERR_IO && strstr(err.msg, path), "missing hdf5: %s", err.msg);
    CHECK(p == NULL, "no problem returned");
}

/* Declared sizes far beyond the file fail at once, without allocating. */
static void test_huge_sizes(void)
{
    static const char *texts[] = {
        "3 1000000000 0 9 9 9 9 1 0 0 0 1 0 0 0 1\n",
        "3\n1\n0 1000000000 1000000000\n1000000000 1000000000\n1 2 3\n",
        "3\n1\n0 3 3\n3 3\n1 0 0 0 1 0 0 0 1\n-1 0 0\n0.5\n", /* valid, as a control */
        "3\n1\n1 3 3\n2000000000 1 1\n3\n3\n2 1\n0 1\n0\n",
        "3\n1\n2 3 3\n1\nCSparse Version\n3-by-3, nzmax: 2000000000 nnz: 2000000000\ncol 0 : locations 0 to 1999999999\n",
        "2\n1000000\n2\n2000000\n2000000\n1\nCSparse\ntriplet: 2000000-by-2000000, nzmax: 1 nnz: 1\n",
    };
    for (int k = 0; k < 6; k++) {
        char path[256];
        make_file(path, sizeof path, ".dat", texts[k], strlen(texts[k]));
        fc_problem *p = NULL;
        fc_error err;
        clock_t t0 = clock();
        fc_err e = fc_read(path, &p, &err);
        double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
        if (k == 2) CHECK(e == FC_OK, "control: %s", err.msg);
        else CHECK(e == FC_ERR_PARSE && strstr(err.msg, path), "huge %d: code %d: %s", k, e, err.msg);
        CHECK(secs < 1.0, "huge %d took %.2f s", k, secs);
        fc_problem_free(p);
        unlink(path);
    }
}

/* Start offset of the k-th token from the end (k = 1: the last). */
static size_t token_start_from_end(const char *s, size_t len, int k)
{
    size_t pos = len;
    for (; k > 0; k--) {
        while (pos > 0 && strchr(" \t\r\n", s[pos - 1])) pos--;
        while (pos > 0 && !strchr(" \t\r\n", s[pos - 1])) pos--;
    }
    return pos;
}

/* Truncations of a real file at ~50 points before its last needed token
 * all fail (extra_tokens: trailing tokens the reader ignores). */
static void test_truncations(const char *rel, int extra_tokens)
{
    char path[1024], cut[256];
    FILE *f = fopen(data_path(rel, path, sizeof path), "rb");
    if (!f) { CHECK(0, "cannot open %s", path); return; }
    static char buf[200000];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    size_t limit = token_start_from_end(buf, len, 1 + extra_tokens);
    int failures = 0;
    for (int k = 0; k <= 50; k++) {
        size_t at = limit * (size_t)k / 50;
        make_file(cut, sizeof cut, ".dat", buf, at);
        fc_problem *p = NULL;
        fc_error err;
        fc_err e = fc_read(cut, &p, &err);
        if (e == FC_OK || !strstr(err.msg, cut)) failures++;
        CHECK(e != FC_OK, "%s cut at %zu of %zu was accepted", rel, at, len);
        fc_problem_free(p);
        unlink(cut);
    }
    CHECK(failures == 0, "%s: %d truncations misbehaved", rel, failures);
}

/* Bad HDF5 files: garbage, truncated, and (when h5py is there) files
 * lacking groups or with wrong sizes; never a crash or an exit. */
static void test_bad_hdf5(void)
{
    char path[256], src[1024];
    fc_problem *p = NULL;
    fc_error err;
    make_file(path, sizeof path, ".hdf5", "garbage\n", 8);
    CHECK(fc_read(path, &p, &err) == FC_ERR_PARSE && strstr(err.msg, path), "garbage hdf5: %s", err.msg);
    unlink(path);
    FILE *f = fopen(data_path("global/CubeH8.hdf5", src, sizeof src), "rb");
    static char buf[70000];
    size_t len = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    for (int k = 0; k < 10; k++) {
        make_file(path, sizeof path, ".hdf5", buf, len * (size_t)k / 10);
        fc_err e = fc_read(path, &p, &err);
        CHECK(e != FC_OK && strstr(err.msg, path), "truncated hdf5 at %d/10: %s", k, err.msg);
        fc_problem_free(p);
        p = NULL;
        unlink(path);
    }
}

/* Edited copies of real HDF5 files made with h5py: each must fail (the
 * one FC_OK case is a control). */
static void test_edited_hdf5(void)
{
    if (access("/usr/bin/python3", X_OK) != 0 ||
        system("/usr/bin/python3 -c 'import h5py' >/dev/null 2>&1") != 0) {
        printf("skipped: h5py not available for edited HDF5 files\n");
        return;
    }
    static const struct { const char *src, *edit; fc_err code; const char *msg; } cases[] = {
        {"global/CubeH8.hdf5", "f.move('fclib_global', 'other')", FC_ERR_PARSE, NULL},
        {"global/CubeH8.hdf5", "del f['fclib_global/M/p']; f['fclib_global/M/p'] = np.zeros(3, 'i4')", FC_ERR_PARSE, NULL},
        {"global/CubeH8.hdf5", "del f['fclib_global/vectors/w']", FC_ERR_PARSE, NULL},
        {"global/CubeH8.hdf5", "del f['fclib_global/spacedim']; f['fclib_global/spacedim'] = np.array([7], 'i4')", FC_ERR_INVALID, NULL},
        {"global/CubeH8.hdf5", "del f['fclib_global/spacedim']; f['fclib_global/spacedim'] = np.array([0], 'i4')", FC_ERR_INVALID, NULL},
        {"global/CubeH8.hdf5", "f['fclib_global/M/p'][0] = 100000", FC_ERR_INVALID, NULL},
        {"global/CubeH8.hdf5", "del f['fclib_global/H/x']; f['fclib_global/H/x'] = np.array([b'abc'])", FC_ERR_PARSE, NULL},
        {"global/CubeH8.hdf5", "f.create_group('fclib_global/G')", FC_ERR_PARSE, "/fclib_global/G/nzmax: missing"},
        {"global/CubeH8.hdf5", "f['fclib_global/vectors/b'] = np.zeros(2)", FC_ERR_INVALID, "b: present without G"},
        {"fc3d/Capsules-i125-1213.hdf5", "f.copy('fclib_local/W', 'fclib_local/R')", FC_ERR_INVALID, "R: present without V"},
        {"global/CubeH8.hdf5", "del f['fclib_global/info/title']; f['fclib_global/info/title'] = np.array([1, 2], 'i4')", FC_ERR_PARSE, NULL},
        {"fc3d/Capsules-i125-1213.hdf5", "f['fclib_local/W/p'][5] = -3", FC_ERR_INVALID, NULL},
        {"fc3d/Capsules-i125-1213.hdf5", "del f['fclib_local/W/nz']; f['fclib_local/W/nz'] = np.array([-7], 'i4')", FC_ERR_PARSE, NULL},
        {"fc3d/Capsules-i125-1213.hdf5", "f['fclib_local/W/i'][0] = 5000", FC_ERR_INVALID, NULL},
        {"fc3d/Capsules-i125-1213.hdf5", "f['fclib_local/vectors/q'][0] = np.nan", FC_ERR_INVALID, NULL},
        {"rolling/Chute-ndof-768-nc-4-3.hdf5", "del f['fclib_global_rolling/vectors/mu_r']", FC_ERR_PARSE, NULL},
        {"fc3d/Capsules-i125-1213.hdf5", "q = f['fclib_local/vectors/q'][:]; del f['fclib_local/vectors/q']; "
         "f['fclib_local/vectors/q'] = q.reshape(-1, 2)", FC_ERR_PARSE, "2-dimensional"},
        {"fc3d/Capsules-i125-1213.hdf5", "q = f['fclib_local/vectors/q'][:]; del f['fclib_local/vectors/q']; "
         "f['fclib_local/vectors/q'] = q.reshape(-1, 1)", FC_ERR_PARSE, "vectors/q: is a 2-dimensional"},
        {"fc3d/Capsules-i125-1213.hdf5", "q = f['fclib_local/vectors/q'][:]; del f['fclib_local/vectors/q']; "
         "f['fclib_local/vectors/q'] = np.stack([q, q], 1)", FC_ERR_PARSE, "vectors/q"},
        {"global/CubeH8.hdf5", "x = f['fclib_global/M/x'][:]; del f['fclib_global/M/x']; "
         "f['fclib_global/M/x'] = x.reshape(1, -1)", FC_ERR_PARSE, "M/x: is a 2-dimensional"},
        {"global/CubeH8.hdf5", "x = f['fclib_global/vectors/mu'][:]; del f['fclib_global/vectors/mu']; "
         "f['fclib_global/vectors/mu'] = x[0]", FC_ERR_PARSE, "vectors/mu: is a 0-dimensional"},
        {"global/CubeH8.hdf5", "del f['fclib_global/spacedim']; f['fclib_global/spacedim'] = np.int32(3)", FC_OK,
         NULL}, /* a scalar integer is accepted */
        {"global/CubeH8.hdf5", "f['fclib_global/M/x'][...] = 1.0", FC_ERR_INVALID,
         "matrix M is not symmetric"}, /* its upper triangle, far from a symmetric M */
        {"global/CubeH8.hdf5", "f.copy('fclib_global', 'fclib_local')", FC_ERR_PARSE,
         "holds both /fclib_local and /fclib_global"},
        {"rolling/Chute-ndof-768-nc-4-3.hdf5", "f.copy('fclib_global_rolling', 'fclib_global')", FC_ERR_PARSE,
         "holds both /fclib_global and /fclib_global_rolling"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char path[256], src[1024], cmd[2048];
        make_file(path, sizeof path, ".hdf5", "", 0);
        snprintf(cmd, sizeof cmd,
                 "/usr/bin/python3 -c \"import shutil, h5py, numpy as np; shutil.copy('%s', '%s'); "
                 "f = h5py.File('%s', 'r+'); %s; f.close()\" >/dev/null 2>&1",
                 data_path(cases[k].src, src, sizeof src), path, path, cases[k].edit);
        if (system(cmd) != 0) { CHECK(0, "could not prepare edit %zu", k); continue; }
        fc_problem *p = NULL;
        fc_error err = {FC_OK, ""};
        fc_err e = fc_read(path, &p, &err);
        CHECK(e == cases[k].code && (e == FC_OK || strstr(err.msg, path)) &&
              (!cases[k].msg || strstr(err.msg, cases[k].msg)),
              "edit %zu (%s): code %d, expected %d: %s", k, cases[k].edit, e, cases[k].code, err.msg);
        CHECK(strchr(err.msg, '\n') == NULL, "edit %zu: message not on one line", k);
        fc_problem_free(p);
        unlink(path);
    }
}

/* ------------------------------------------------------------------ */
/* Written files read by the independent checker; solution format       */
/* ------------------------------------------------------------------ */

static void test_fccheck_reads_ours(void)
{
    if (access("/usr/bin/python3", X_OK) != 0 || access(FRICON_CHECKER, R_OK) != 0) {
        printf("skipped: /usr/bin/python3 or %s missing\n", FRICON_CHECKER);
        return;
    }
    static const char *files[] = {"fc3d/FC3D_Example1.dat", "fc3d/Capsules-i125-1213.hdf5",
                                  "global/gfc2d_granularflowonwall_00069_00350.dat",
                                  "global/CubeH8.hdf5", "fc2d/FrictionContactProblem00071.dat"};
    for (int k = 0; k < 5; k++) {
        char path[1024], out[256], cmd[2048], line[128] = "", want[64];
        fc_problem *p = NULL;
        fc_error err;
        if (fc_read(data_path(files[k], path, sizeof path), &p, &err)) { CHECK(0, "%s", err.msg); continue; }
        tmp_path("check.dat", out, sizeof out);
        CHECK(fc_write(out, p, &err) == FC_OK, "%s", err.msg);
        snprintf(want, sizeof want, "%d %d %d", p->d, p->nc, fc_problem_m(p));
        snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s %s 2>&1", FRICON_CHECKER, out);
        FILE *f = popen(cmd, "r");
        if (f) {
            if (!fgets(line, sizeof line, f)) line[0] = 0;
            pclose(f);
        }
        line[strcspn(line, "\n")] = 0;
        CHECK(!strcmp(line, want), "fccheck on our %s: '%s', expected '%s'", files[k], line, want);
        fc_problem_free(p);
    }
}

/* The solution file: header, one line of 2d numbers per contact, v. */
static void test_solution_file(void)
{
    char path[1024], out[256], line[512];
    fc_problem *p = NULL;
    fc_error err;
    if (fc_read(data_path("global/GFC3D_TwoRods1.dat", path, sizeof path), &p, &err)) {
        CHECK(0, "%s", err.msg);
        return;
    }
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    double *v = calloc((size_t)p->n, sizeof *v);
    for (int k = 0; k < m; k++) { r[k] = 0.1 * k + 1.0 / 3.0; u[k] = -k; }
    for (int k = 0; k < p->n; k++) v[k] = k * 1e-17;
    tmp_path("sol.txt", out, sizeof out);
    CHECK(fc_write_solution(out, p, r, u, v, NULL, &err) == FC_OK, "%s", err.msg);
    FILE *f = fopen(out, "r");
    int lines = 0, ok_values = 1;
    while (f && fgets(line, sizeof line, f)) {
        if (lines == 0) CHECK(!strcmp(line, "# fricon solution d=3 nc=3\n"), "header '%s'", line);
        if (lines >= 1 && lines <= p->nc) {
            double x[6];
            int got = sscanf(line, "%lf %lf %lf %lf %lf %lf", &x[0], &x[1], &x[2], &x[3], &x[4], &x[5]);
            int a = lines - 1;
            if (got != 6) ok_values = 0;
            for (int c = 0; c < 3 && got == 6; c++)
                if (x[c] != r[3 * a + c] || x[3 + c] != u[3 * a + c]) ok_values = 0;
        }
        if (lines == p->nc + 1) CHECK(!strcmp(line, "# v n=54\n"), "v header '%s'", line);
        lines++;
    }
    if (f) fclose(f);
    CHECK(ok_values, "solution values not exact");
    CHECK(lines == 1 + p->nc + 1 + p->n, "%d lines", lines);
    free(r);
    free(u);
    free(v);
    fc_problem_free(p);
}

/* Guesses: fc_write_guess and fc_read_guess round trip exactly (local and
 * global), libfclib reads what fc_write_guess wrote (r, u = W r + q or
 * H^T v + w, v), and a guess of the wrong size or with a NaN is refused
 * naming the file. */
static void test_guesses(void)
{
    static const char *files[] = {"fc3d/FC3D_Example1.dat", "global/GFC3D_TwoRods1.dat"};
    char path[1024], out[256], other[256];
    for (int f = 0; f < 2; f++) {
        fc_problem *p = NULL;
        fc_error err;
        if (fc_read(data_path(files[f], path, sizeof path), &p, &err)) { CHECK(0, "%s", err.msg); continue; }
        int m = fc_problem_m(p), n = p->kind == FC_GLOBAL ? p->n : 0, count = -1;
        tmp_path("guess.hdf5", out, sizeof out);
        CHECK(fc_write_hdf5(out, p, &err) == FC_OK, "%s", err.msg);
        CHECK(fc_read_guess(out, p, 0, NULL, NULL, &count, &err) == FC_OK && count == 0,
              "%s: no guess expected, count %d", files[f], count);
        double *r = calloc((size_t)m, sizeof *r), *r2 = calloc((size_t)m, sizeof *r2);
        double *v = calloc((size_t)n + 1, sizeof *v), *v2 = calloc((size_t)n + 1, sizeof *v2);
        for (int k = 0; k < m; k++) r[k] = (k % 3 == 0 ? 1.0 : 0.1) / (k + 1) + 1.0 / 3.0;
        for (int k = 0; k < n; k++) v[k] = 0.25 * k - 1.0 / 7.0;
        CHECK(fc_write_guess(out, p, r, n ? v : NULL, &err) == FC_OK, "%s: %s", files[f], err.msg);
        CHECK(fc_write_guess(out, p, r, n ? v : NULL, &err) != FC_OK, "%s: a second /guesses accepted", files[f]);
        CHECK(fc_read_guess(out, p, 0, r2, n ? v2 : NULL, &count, &err) == FC_OK && count == 1,
              "%s: read guess: %s (count %d)", files[f], err.msg, count);
        CHECK(!memcmp(r, r2, (size_t)m * sizeof *r) && (!n || !memcmp(v, v2, (size_t)n * sizeof *v)),
              "%s: the guess read back differs", files[f]);
        CHECK(fc_read_guess(out, p, 1, r2, NULL, NULL, &err) != FC_OK, "%s: guess 2 of 1 accepted", files[f]);
        /* libfclib's reader: the same r, and u = W r + q (H^T v + w) */
        int ng = 0;
        struct fclib_solution *g = fclib_read_guesses(out, &ng);
        CHECK(g && ng == 1, "%s: libfclib reads %d guesses", files[f], ng);
        if (g && ng == 1) {
            double *u = calloc((size_t)m, sizeof *u), du = 0;
            if (n) {
                memcpy(u, p->w, (size_t)m * sizeof *u);
                fc_matrix_gemv_t(p->H, 1.0, v, 1.0, u);
            } else {
                memcpy(u, p->q, (size_t)m * sizeof *u);
                fc_matrix_gemv(p->W, 1.0, r, 1.0, u);
            }
            for (int k = 0; k < m; k++) du = fmax(du, fabs(u[k] - g[0].u[k]));
            CHECK(!memcmp(g[0].r, r, (size_t)m * sizeof *r) && du <= 1e-12 * (1 + fabs(u[0])),
                  "%s: libfclib's guess: r differs or |du| = %g", files[f], du);
            CHECK(!n || (g[0].v && !memcmp(g[0].v, v, (size_t)n * sizeof *v)), "%s: libfclib's v", files[f]);
            fclib_delete_solutions(g, ng);
            free(u);
        }
        /* refused: a NaN (written by libfclib), a guess of another size */
        tmp_path("guess-nan.hdf5", other, sizeof other);
        CHECK(fc_write_hdf5(other, p, &err) == FC_OK, "%s", err.msg);
        r[m / 2] = NAN;
        struct fclib_solution bad = {n ? v : NULL, r, r, NULL};
        CHECK(fclib_write_guesses(1, &bad, other) == 1, "libfclib cannot write guesses");
        CHECK(fc_write_guess(other, p, r, NULL, &err) != FC_OK, "a NaN guess written");
        for (int k = 0; k < m; k++) r2[k] = 7;
        fc_err e = fc_read_guess(other, p, 0, r2, NULL, NULL, &err);
        CHECK(e == FC_ERR_PARSE && strstr(err.msg, other) && strstr(err.msg, "non-finite") && !strchr(err.msg, '\n'),
              "%s: NaN guess: %d '%s'", files[f], e, err.msg);
        CHECK(r2[0] == 7 && r2[m - 1] == 7, "a refused guess changed r");
        fc_problem *small = fc_problem_new(FC_LOCAL, p->d, 1);
        if (small) {
            int ms = p->d;
            small->W = fc_matrix_dense(ms, ms);
            small->q = calloc((size_t)ms, sizeof *small->q);
            for (int k = 0; k < ms; k++) small->W->x[k * ms + k] = 1;
            small->mu[0] = 0.5;
            tmp_path("guess-size.hdf5", other, sizeof other);
            CHECK(fc_write_hdf5(other, p, &err) == FC_OK, "%s", err.msg);
            double rs[5] = {1, 0, 0, 0, 0};
            CHECK(fc_write_guess(other, small, rs, NULL, &err) == FC_OK, "%s", err.msg);
            e = fc_read_guess(other, p, 0, r2, NULL, NULL, &err);
            CHECK(e == FC_ERR_PARSE && strstr(err.msg, other) && strstr(err.msg, "elements"),
                  "%s: guess of the wrong size: %d '%s'", files[f], e, err.msg);
            fc_problem_free(small);
        }
        free(r); free(r2); free(v); free(v2);
        fc_problem_free(p);
    }
    /* a text file has no guess */
    fc_problem *p = NULL;
    fc_error err;
    int count = -1;
    if (!fc_read(data_path(files[0], path, sizeof path), &p, &err)) {
        CHECK(fc_read_guess(path, p, 0, NULL, NULL, &count, &err) == FC_OK && count == 0, ".dat: count %d", count);
        fc_problem_free(p);
    }
}

/* ------------------------------------------------------------------ */
/* Equality constraints (V, R, s and G, b)                               */
/* ------------------------------------------------------------------ */

/* A shared global problem given neq equality rows: G's columns are H's
 * normal columns of the first contacts then sparse ones of three entries;
 * b = -G^T v0 for some v0, so that the constraints are consistent. */
static fc_problem *with_equalities(const char *rel, int neq)
{
    char path[1024];
    fc_error err;
    fc_problem *p = NULL;
    if (fc_read(data_path(rel, path, sizeof path), &p, &err)) { CHECK(0, "%s", err.msg); return NULL; }
    int n = p->n;
    fc_matrix *G = fc_matrix_dense(n, neq);
    double *v0 = calloc((size_t)n, sizeof *v0);
    CHECK(G && v0 && fc_problem_set_equalities(p, neq, &err) == FC_OK, "equalities: %s", err.msg);
    for (int j = 0; j < neq; j++)
        for (int i = 0; i < n; i++)
            G->x[(size_t)j * n + i] = j < neq / 2 && j < p->nc ? fc_matrix_get(p->H, i, p->d * j)
                                      : (i * 7 + j * 13) % n < 3 ? 0.5 - (i % 3) : 0.0;
    for (int i = 0; i < n; i++) v0[i] = sin(1.0 + i);
    p->G = G;
    fc_matrix_gemv_t(G, -1.0, v0, 0.0, p->b);
    CHECK(fc_problem_validate(p, &err) == FC_OK, "%s with equalities: %s", rel, err.msg);
    free(v0);
    return p;
}

/* p written to out, read back equal by fc_read and by libfclib (sizes,
 * s or b exactly; not for rolling problems, which libfclib does not know). */
static void eq_round_trip(const fc_problem *p, const char *out, const char *what)
{
    fc_error err;
    char dat[256];
    round_trip(p, out, what);
    CHECK(fc_write_dat(tmp_path("eq.dat", dat, sizeof dat), p, &err) == FC_ERR_INVALID &&
          strstr(err.msg, "equality constraints") && access(dat, F_OK) != 0,
          "%s: .dat accepted equalities: %s", what, err.msg);
    if (p->d == 5) return;
    if (p->kind == FC_GLOBAL) {
        struct fclib_global *G = fclib_read_global(out);
        CHECK(G && G->G && G->G->m == p->n && G->G->n == p->neq && G->b &&
              !memcmp(G->b, p->b, (size_t)p->neq * sizeof *p->b), "%s: libfclib's G, b", what);
        if (G) { fclib_delete_global(G); free(G); }
        return;
    }
    struct fclib_local *L = fclib_read_local(out);
    CHECK(L && L->V && L->R && L->V->m == fc_problem_m(p) && L->V->n == p->neq && L->R->m == p->neq &&
          L->R->n == p->neq && L->s && !memcmp(L->s, p->s, (size_t)p->neq * sizeof *p->s),
          "%s: libfclib's V, R, s", what);
    if (L) { fclib_delete_local(L); free(L); }
}

/* Refused by validation: code FC_ERR_INVALID and a message holding want. */
static void eq_refused(fc_problem *p, const char *want, const char *what)
{
    fc_error err = {FC_OK, ""};
    CHECK(fc_problem_validate(p, &err) == FC_ERR_INVALID && strstr(err.msg, want) && !strchr(err.msg, '\n'),
          "%s: '%s', expected '%s'", what, err.msg, want);
}

static void test_equalities(void)
{
    char out[256];
    fc_error err;
    fc_problem *g = with_equalities("global/Box_Stacks-i0122-82-5.hdf5", 6), *loc = NULL;
    if (!g) return;
    eq_round_trip(g, tmp_path("eq-global.hdf5", out, sizeof out), "global with G, b");
    CHECK(fc_problem_reduce(g, &loc, &err) == FC_OK && loc->neq == 6 && loc->V && loc->R && loc->s,
          "reduction keeps the equalities: %s", err.msg);
    if (loc) {
        eq_round_trip(loc, tmp_path("eq-local.hdf5", out, sizeof out), "local with V, R, s");
        fc_matrix_free(loc->R);   /* R absent: written as a zero R */
        loc->R = NULL;
        eq_round_trip(loc, tmp_path("eq-local0.hdf5", out, sizeof out), "local with V, s (R zero)");
        /* a local file with V but no R is read by our own reader */
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c \"import h5py; f = h5py.File('%s', 'r+'); "
                 "del f['fclib_local/R']; f.close()\" >/dev/null 2>&1", out);
        if (system(cmd) == 0) round_trip(loc, out, "local with V, s and no R group");
    }
    /* solution file: lambda written and read back exactly */
    int m = fc_problem_m(g);
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    double *v = calloc((size_t)g->n, sizeof *v), lam[6], lam2[6];
    for (int k = 0; k < 6; k++) lam[k] = 1.0 / (k + 3.0);
    tmp_path("eq.sol", out, sizeof out);
    CHECK(fc_write_solution(out, g, r, u, v, lam, &err) == FC_OK, "%s", err.msg);
    CHECK(fc_read_solution(out, g, r, NULL, NULL, lam2, &err) == FC_OK && !memcmp(lam, lam2, sizeof lam),
          "lambda read back: %s", err.msg);
    CHECK(fc_read_solution(out, g, r, u, v, NULL, &err) == FC_OK, "lambda not asked for: %s", err.msg);
    CHECK(fc_write_solution(out, g, r, u, v, NULL, &err) == FC_OK, "%s", err.msg);
    CHECK(fc_read_solution(out, g, r, NULL, NULL, lam2, &err) == FC_ERR_PARSE && strstr(err.msg, "# lambda p=6"),
          "missing lambda section: '%s'", err.msg);
    /* guesses with l: ours and libfclib's readers */
    tmp_path("eq-guess.hdf5", out, sizeof out);
    CHECK(fc_write_hdf5(out, g, &err) == FC_OK && fc_write_guess_eq(out, g, r, NULL, lam, &err) == FC_OK,
          "guess with lambda: %s", err.msg);
    int ng = 0;
    for (int k = 0; k < 6; k++) lam2[k] = 0;
    CHECK(fc_read_guess_eq(out, g, 0, r, v, lam2, &ng, &err) == FC_OK && ng == 1 && !memcmp(lam, lam2, sizeof lam),
          "guess lambda read back: %s", err.msg);
    struct fclib_solution *gs = fclib_read_guesses(out, &ng);
    CHECK(gs && ng == 1 && gs[0].l && !memcmp(gs[0].l, lam, sizeof lam), "libfclib's guess l");
    if (gs) fclib_delete_solutions(gs, ng);
    free(r); free(u); free(v);
    /* validation: sizes, values, symmetry */
    fc_matrix *G = g->G;
    g->G = fc_matrix_dense(g->n + 1, 6);
    eq_refused(g, "matrix G is 451 x 6, expected 450 x 6", "G of the wrong size");
    fc_matrix_free(g->G);
    g->G = G;
    g->b[2] = NAN;
    eq_refused(g, "b[2] is NaN", "NaN in b");
    g->b[2] = 0;
    g->s = calloc(6, sizeof *g->s);
    eq_refused(g, "a global problem with V, R or s", "s in a global problem");
    if (loc) {
        loc->R = fc_matrix_dense(6, 6);
        loc->R->x[1] = 1.0;   /* R(1,0) = 1, R(0,1) = 0 */
        eq_refused(loc, "matrix R is not symmetric", "non-symmetric R");
        loc->R->x[1] = INFINITY;
        eq_refused(loc, "matrix R has a NaN or infinite entry", "Inf in R");
        loc->s[5] = NAN;
        eq_refused(loc, "NaN", "NaN in s");
    }
    fc_problem_free(loc);
    fc_problem_free(g);
    /* rolling groups (our own layout) carry them too */
    g = with_equalities("rolling/Chute-ndof-768-nc-4-3.hdf5", 4);
    loc = NULL;
    if (g) eq_round_trip(g, tmp_path("eq-rolling.hdf5", out, sizeof out), "rolling global with G, b");
    if (g && fc_problem_reduce(g, &loc, &err) == FC_OK)
        eq_round_trip(loc, tmp_path("eq-rolling-local.hdf5", out, sizeof out), "rolling local with V, R, s");
    CHECK(loc != NULL, "rolling reduction: %s", err.msg);
    fc_problem_free(loc);
    fc_problem_free(g);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/fricon_test_io_XXXXXX");
    if (!mkdtemp(tmpdir)) { perror("mkdtemp"); return 2; }
    test_shared_files();
    test_storage_kinds();
    test_bad_dat();
    test_problem_end();
    test_cs_forms();
    test_open_failures();
    test_huge_sizes();
    test_truncations("fc3d/FC3D_Example1.dat", 1);
    test_truncations("fc3d/FC3D_Example1_SBM.dat", 1);
    test_truncations("fc3d/Confeti-ex13-4contact-Fc3D-SBM.dat", 1);
    test_truncations("global/gfc2d_granularflowonwall_00069_00350.dat", 0);
    test_bad_hdf5();
    test_edited_hdf5();
    test_fccheck_reads_ours();
    test_solution_file();
    test_guesses();
    test_equalities();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    TEST_DONE();
}
