/* libFuzzer target: the HDF5 (FClib) reader on files laid out from the
 * input: a problem group (local, global, rolling; sometimes two), its
 * spacedim, matrix groups (nzmax, m, n, nz, p, i, x) and vectors, each
 * dataset present or missing, of the expected or another type, rank,
 * shape and values (NaN, Inf, negative mu, out-of-range indices).  Most
 * sizes start consistent and are then perturbed, so inputs reach past the
 * first checks.  fc_read_hdf5 must return an error or a valid problem,
 * never crash, hang or leak. */
#include "fricon.h"

#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct { const uint8_t *p; size_t n; } bytes;

static int take(bytes *b, int lo, int hi)
{
    if (b->n == 0) return lo;
    int v = lo + (int)(b->p[0] % (unsigned)(hi - lo + 1));
    b->p++, b->n--;
    return v;
}

/* Usually v, sometimes v perturbed by a small amount or replaced. */
static long perturb(bytes *b, long v)
{
    int k = take(b, 0, 15);
    if (k < 12) return v;
    if (k == 12) return v + 1;
    if (k == 13) return v - 1;
    if (k == 14) return take(b, -3, 20);
    return 0;
}

static double value(bytes *b)
{
    int k = take(b, 0, 40);
    if (k == 40) return NAN;
    if (k == 39) return INFINITY;
    if (k == 38) return 1e308;
    return (k - 10) * 0.5;
}

/* A dataset at path holding n numbers (ints when integer): usually a 1-D
 * array of the right class, sometimes scalar, 2-D, another class, a
 * string, or missing. */
static void dataset(hid_t f, bytes *b, const char *path, long n, int integer, const long *ints)
{
    int shape = take(b, 0, 23);
    if (shape == 23 || n < 0) return; /* missing */
    if (n > 64) n = 64;
    hsize_t dims[2] = {(hsize_t)n, 1};
    int rank = 1;
    if (shape == 22) rank = 2, dims[0] = (hsize_t)(n > 1 ? n / 2 : 1), dims[1] = 2;
    if (shape == 21 && n == 1) rank = 0;
    hid_t space = H5Screate_simple(rank, dims, NULL);
    if (shape == 20) { /* a fixed string */
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, 8);
        hid_t d = H5Dcreate2(f, path, t, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        char buf[64 * 8 + 8] = "12345678";
        if (d >= 0) { H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf); H5Dclose(d); }
        H5Tclose(t);
        H5Sclose(space);
        return;
    }
    int as_int = shape == 19 ? !integer : integer;
    long total = rank == 2 ? (long)(dims[0] * dims[1]) : rank == 0 ? 1 : n;
    hid_t d = H5Dcreate2(f, path, as_int ? H5T_STD_I32LE : H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT);
    if (d >= 0) {
        int iv[128];
        double dv[128];
        for (long k = 0; k < total && k < 128; k++) {
            iv[k] = ints ? (int)perturb(b, ints[k < n ? k : 0]) : take(b, -2, 12);
            dv[k] = integer ? iv[k] : value(b);
        }
        if (as_int) H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, iv);
        else H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, dv);
        H5Dclose(d);
    }
    H5Sclose(space);
}

static void scalar(hid_t f, bytes *b, const char *path, long v)
{
    dataset(f, b, path, 1, 1, &v);
}

/* A matrix group g of size m x n in a storage chosen by the input. */
static void matrix(hid_t f, bytes *b, const char *g, long m, long n)
{
    char path[128];
    if (take(b, 0, 31) == 31) return; /* no group */
    H5Gclose(H5Gcreate2(f, g, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    long nz = take(b, -2, 0), nnz = take(b, 0, 12);
    if (nz == 0) nz = nnz; /* triplets */
    long outer = nz == -1 ? n : m, inner = nz == -1 ? m : n;
    long p[65], i[65];
    long np = nz >= 0 ? nz : outer + 1;
    if (np > 64) np = 64;
    for (long k = 0; k < 64; k++) { p[k] = 0; i[k] = 0; }
    if (nz >= 0) {
        for (long k = 0; k < nz; k++) p[k] = take(b, 0, (int)(n - 1)), i[k] = take(b, 0, (int)(m - 1));
    } else {
        for (long k = 1; k < np; k++) p[k] = p[k - 1] + (k - 1 < outer ? nnz / outer + (take(b, 0, 3) == 0) : 0);
        for (long k = 0; k < 64; k++) i[k] = take(b, 0, (int)(inner - 1));
    }
    long nzmax = nz >= 0 ? nz : p[np - 1];
    snprintf(path, sizeof path, "%s/nzmax", g), scalar(f, b, path, perturb(b, nzmax));
    snprintf(path, sizeof path, "%s/m", g), scalar(f, b, path, perturb(b, m));
    snprintf(path, sizeof path, "%s/n", g), scalar(f, b, path, perturb(b, n));
    snprintf(path, sizeof path, "%s/nz", g), scalar(f, b, path, perturb(b, nz));
    snprintf(path, sizeof path, "%s/p", g), dataset(f, b, path, perturb(b, np), 1, p);
    snprintf(path, sizeof path, "%s/i", g), dataset(f, b, path, perturb(b, nzmax), 1, i);
    snprintf(path, sizeof path, "%s/x", g), dataset(f, b, path, perturb(b, nzmax), 0, NULL);
}

static void vector(hid_t f, bytes *b, const char *g, const char *name, long n)
{
    char path[128];
    snprintf(path, sizeof path, "%s/vectors/%s", g, name);
    dataset(f, b, path, perturb(b, n), 0, NULL);
}

static void problem(hid_t f, bytes *b, int kind)
{
    static const char *groups[] = {"/fclib_local", "/fclib_global", "/fclib_local_rolling",
                                   "/fclib_global_rolling"};
    const char *g = groups[kind];
    int global = kind % 2, rolling = kind >= 2;
    long d = rolling ? 5 : take(b, 2, 3), nc = take(b, 1, 3), m = d * nc, n = take(b, 1, 6);
    char path[128];
    H5Gclose(H5Gcreate2(f, g, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    snprintf(path, sizeof path, "%s/spacedim", g), scalar(f, b, path, perturb(b, d));
    snprintf(path, sizeof path, "%s/vectors", g);
    if (take(b, 0, 31)) H5Gclose(H5Gcreate2(f, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    if (global) {
        snprintf(path, sizeof path, "%s/M", g), matrix(f, b, path, n, n);
        snprintf(path, sizeof path, "%s/H", g), matrix(f, b, path, n, m);
        vector(f, b, g, "f", n);
        vector(f, b, g, "w", m);
    } else {
        snprintf(path, sizeof path, "%s/W", g), matrix(f, b, path, m, m);
        vector(f, b, g, "q", m);
    }
    vector(f, b, g, "mu", nc);
    if (rolling || take(b, 0, 15) == 15) vector(f, b, g, "mu_r", nc);
    if (take(b, 0, 15) == 15) { /* an info group, or something where it goes */
        snprintf(path, sizeof path, "%s/info", g);
        if (take(b, 0, 1)) H5Gclose(H5Gcreate2(f, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        snprintf(path, sizeof path, "%s/info/title", g);
        dataset(f, b, path, 1, 0, NULL);
    }
    if (take(b, 0, 31) == 31) { /* an unsupported member */
        snprintf(path, sizeof path, "%s/%s", g, global ? "G" : "V");
        matrix(f, b, path, m, m);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/fricon-fuzz-hdf5-%d.hdf5", (int)getpid());
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    }
    bytes b = {data, size};
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) return 0;
    int kind = take(&b, 0, 3);
    problem(f, &b, kind);
    if (take(&b, 0, 31) == 31) problem(f, &b, (kind + take(&b, 1, 3)) % 4);
    H5Fclose(f);
    fc_problem *p = NULL;
    fc_error err;
    if (fc_read_hdf5(path, &p, &err) == FC_OK) {
        if (fc_problem_validate(p, &err) != FC_OK) abort(); /* a read problem is valid */
        fc_problem_free(p);
    } else if (!strstr(err.msg, path)) {
        abort(); /* every message names the file */
    }
    return 0;
}
