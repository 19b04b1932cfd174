/* FClib HDF5 files: /fclib_local and /fclib_global through libfclib,
 * rolling problems (/fclib_global_rolling, /fclib_local_rolling, with
 * spacedim 5 and vectors/mu_r) through the HDF5 API in the same layout.
 *
 * libfclib prints to stderr and exits the process on any HDF5 failure,
 * so every object it will read is checked first (existence, class, exact
 * sizes) with the HDF5 API, with HDF5's own error printing silenced. */
#define _POSIX_C_SOURCE 200809L
#include <fclib.h>   /* before hdf5.h: it selects the HDF5 API versions */
#include <hdf5.h>

#include "io/io.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* HDF5 helpers                                                         */
/* ------------------------------------------------------------------ */

typedef struct h5ctx {
    const char *path;  /* file name, for messages */
    hid_t file;
    fc_error *err;
    H5E_auto2_t old_func;
    void *old_data;
} h5ctx;

/* Silence HDF5's error stack printing (restored by quiet_off). */
static void quiet_on(h5ctx *c)
{
    H5Eget_auto2(H5E_DEFAULT, &c->old_func, &c->old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static void quiet_off(h5ctx *c) { H5Eset_auto2(H5E_DEFAULT, c->old_func, c->old_data); }

/* Record "PATH: OBJECT: message". */
static fc_err h5_fail(h5ctx *c, fc_err code, const char *obj, const char *msg)
{
    return fc_error_set(c->err, code, "%s: %s: %s", c->path, obj, msg);
}

/* Does the absolute path exist, every component of it? */
static int h5_exists(hid_t file, const char *path)
{
    char buf[256];
    size_t n = strlen(path);
    if (n >= sizeof buf) return 0;
    memcpy(buf, path, n + 1);
    for (size_t k = 1; k <= n; k++) {
        if (buf[k] != '/' && buf[k] != 0) continue;
        char save = buf[k];
        buf[k] = 0;
        int ok = H5Lexists(file, buf, H5P_DEFAULT) > 0;
        buf[k] = save;
        if (!ok) return 0;
    }
    return 1;
}

/* Is the path a group? */
static int h5_is_group(hid_t file, const char *path)
{
    if (!h5_exists(file, path)) return 0;
    H5O_info_t info;
    if (H5Oget_info_by_name(file, path, &info, H5P_DEFAULT) < 0) return 0;
    return info.type == H5O_TYPE_GROUP;
}

/* A dataset's type class, element count, rank, element size, whether a
 * variable-length string, and its stored bytes. */
typedef struct h5_shape {
    H5T_class_t tc;
    hssize_t np;
    int rank, vlen;
    size_t esize;
    hsize_t stored;
} h5_shape;

static fc_err h5_probe(h5ctx *c, const char *path, h5_shape *sh)
{
    if (!h5_exists(c->file, path)) return h5_fail(c, FC_ERR_PARSE, path, "missing");
    hid_t d = H5Dopen2(c->file, path, H5P_DEFAULT);
    if (d < 0) return h5_fail(c, FC_ERR_PARSE, path, "not a dataset");
    hid_t t = H5Dget_type(d), s = H5Dget_space(d);
    sh->tc = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    sh->np = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    sh->rank = s >= 0 ? H5Sget_simple_extent_ndims(s) : -1;
    sh->esize = t >= 0 ? H5Tget_size(t) : 0;
    sh->vlen = sh->tc == H5T_STRING && t >= 0 && H5Tis_variable_str(t) != 0;
    sh->stored = H5Dget_storage_size(d);
    if (t >= 0) H5Tclose(t);
    if (s >= 0) H5Sclose(s);
    H5Dclose(d);
    return FC_OK;
}

/* Dataset of the given class: its number of elements in *count.  Fixed
 * strings only; numeric data must plausibly fit in the file. */
static fc_err h5_dataset(h5ctx *c, const char *path, H5T_class_t cls, hsize_t *count)
{
    h5_shape sh;
    if (h5_probe(c, path, &sh)) return c->err->code;
    H5T_class_t tc = sh.tc;
    hssize_t np = sh.np;
    int rank = sh.rank;
    if (tc != cls || sh.vlen || np < 0)
        return h5_fail(c, FC_ERR_PARSE, path, cls == H5T_STRING ? "not a fixed-length string" :
                       cls == H5T_INTEGER ? "not an integer dataset" : "not a floating-point dataset");
    /* numbers are 1-D (an integer may also be a scalar); strings any shape */
    if (cls != H5T_STRING && rank != 1 && !(cls == H5T_INTEGER && rank == 0 && np == 1)) {
        char msg[80];
        snprintf(msg, sizeof msg, "is a %d-dimensional array, expected a 1-D dataset", rank);
        return h5_fail(c, FC_ERR_PARSE, path, msg);
    }
    if (cls != H5T_STRING && (double)np * (double)sh.esize > 64.0 * (double)sh.stored + 4096.0)
        return h5_fail(c, FC_ERR_PARSE, path, "declared size exceeds its stored data");
    if ((double)np > (double)FC_MAX_ENTRIES) return h5_fail(c, FC_ERR_PARSE, path, "too large");
    *count = (hsize_t)np;
    return FC_OK;
}

/* Dataset with exactly n elements of class cls. */
static fc_err h5_sized(h5ctx *c, const char *path, H5T_class_t cls, hsize_t n)
{
    hsize_t count;
    if (h5_dataset(c, path, cls, &count)) return c->err->code;
    if (count != n) {
        char msg[96];
        snprintf(msg, sizeof msg, "has %llu elements, expected %llu", (unsigned long long)count,
                 (unsigned long long)n);
        return h5_fail(c, FC_ERR_PARSE, path, msg);
    }
    return FC_OK;
}

/* Read a whole dataset of n elements in the given memory type. */
static fc_err h5_read(h5ctx *c, const char *path, hid_t memtype, void *buf)
{
    hid_t d = H5Dopen2(c->file, path, H5P_DEFAULT);
    herr_t r = d >= 0 ? H5Dread(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) : -1;
    if (d >= 0) H5Dclose(d);
    return r < 0 ? h5_fail(c, FC_ERR_PARSE, path, "cannot be read") : FC_OK;
}

/* One integer from a one-element integer dataset. */
static fc_err h5_int(h5ctx *c, const char *path, int *v)
{
    if (h5_sized(c, path, H5T_INTEGER, 1)) return c->err->code;
    return h5_read(c, path, H5T_NATIVE_INT, v);
}

/* prefix + "/" + name into buf. */
static const char *join(char *buf, size_t size, const char *prefix, const char *name)
{
    size_t a = strlen(prefix), b = strlen(name);
    if (a + b + 2 > size) a = b = 0; /* paths here are short constants */
    memcpy(buf, prefix, a);
    buf[a] = '/';
    memcpy(buf + a + 1, name, b);
    buf[a + b + 1] = '\0';
    return buf;
}

/* ------------------------------------------------------------------ */
/* Checking what libfclib will read                                     */
/* ------------------------------------------------------------------ */

/* Header of a matrix group: nzmax, m, n, nz. */
typedef struct mat_head { int nzmax, m, n, nz; } mat_head;

/* The optional matrix info libfclib reads when "conditioning" exists. */
static fc_err check_matrix_info(h5ctx *c, const char *g)
{
    char b[300];
    if (!h5_exists(c->file, join(b, sizeof b, g, "conditioning"))) return FC_OK;
    if (h5_sized(c, b, H5T_FLOAT, 1) ||
        h5_sized(c, join(b, sizeof b, g, "determinant"), H5T_FLOAT, 1) ||
        h5_sized(c, join(b, sizeof b, g, "rank"), H5T_INTEGER, 1))
        return c->err->code;
    hsize_t n;
    if (h5_exists(c->file, join(b, sizeof b, g, "comment")) && h5_dataset(c, b, H5T_STRING, &n))
        return c->err->code;
    return FC_OK;
}

/* A matrix group: header values sane and p, i, x of the exact sizes the
 * storage (nz) implies. */
static fc_err check_matrix_group(h5ctx *c, const char *g, mat_head *h)
{
    char b[300];
    if (!h5_is_group(c->file, g)) return h5_fail(c, FC_ERR_PARSE, g, "missing matrix group");
    if (h5_int(c, join(b, sizeof b, g, "nzmax"), &h->nzmax) || h5_int(c, join(b, sizeof b, g, "m"), &h->m) ||
        h5_int(c, join(b, sizeof b, g, "n"), &h->n) || h5_int(c, join(b, sizeof b, g, "nz"), &h->nz))
        return c->err->code;
    if (h->m <= 0 || h->n <= 0 || h->nzmax < 0 || h->nz < -2 || h->nz > h->nzmax)
        return h5_fail(c, FC_ERR_PARSE, g, "invalid sizes (m, n, nz or nzmax)");
    long np = h->nz >= 0 ? h->nz : h->nz == -1 ? (long)h->n + 1 : (long)h->m + 1;
    long ni = h->nz >= 0 ? h->nz : h->nzmax;
    hsize_t nx;
    if (h5_sized(c, join(b, sizeof b, g, "p"), H5T_INTEGER, (hsize_t)np) ||
        h5_sized(c, join(b, sizeof b, g, "i"), H5T_INTEGER, (hsize_t)ni) ||
        h5_dataset(c, join(b, sizeof b, g, "x"), H5T_FLOAT, &nx))
        return c->err->code;
    if (nx > (hsize_t)h->nzmax || nx < (hsize_t)ni)
        return h5_fail(c, FC_ERR_PARSE, b, "size disagrees with nzmax");
    return check_matrix_info(c, g);
}

/* The optional info group: title, description, math_info strings. */
static fc_err check_info(h5ctx *c, const char *g)
{
    static const char *names[] = {"title", "description", "math_info"};
    char b[300];
    hsize_t n;
    join(b, sizeof b, g, "info");
    if (!h5_exists(c->file, b)) return FC_OK;
    if (!h5_is_group(c->file, b)) return h5_fail(c, FC_ERR_PARSE, b, "not a group");
    for (int k = 0; k < 3; k++) {
        char s[300];
        snprintf(s, sizeof s, "%s/info/%s", g, names[k]);
        if (h5_exists(c->file, s) && h5_dataset(c, s, H5T_STRING, &n)) return c->err->code;
    }
    return FC_OK;
}

/* spacedim: one integer among the allowed values. */
static fc_err check_spacedim(h5ctx *c, const char *g, int rolling, int *d)
{
    char b[300];
    if (h5_int(c, join(b, sizeof b, g, "spacedim"), d)) return c->err->code;
    if (rolling ? *d != 5 : (*d != 2 && *d != 3))
        return h5_fail(c, FC_ERR_INVALID, b, rolling ? "must be 5 for a rolling problem" :
                       "must be 2 or 3 (rolling problems use a *_rolling group)");
    return FC_OK;
}

/* A vector dataset g/vectors/name with n doubles. */
static fc_err check_vector(h5ctx *c, const char *g, const char *name, long n)
{
    char b[300];
    snprintf(b, sizeof b, "%s/vectors/%s", g, name);
    return h5_sized(c, b, H5T_FLOAT, (hsize_t)n);
}

/* Sizes found while checking a problem group; neq equality rows (V or
 * G columns), has_R when a local group holds R. */
typedef struct shape { int d, neq, has_R; mat_head W, M, H, V, R, G; } shape;

/* The equality constraints of a group, if any: matrix E ("V", m rows, or
 * "G", n rows) giving neq, R (neq x neq; local, optional) and the vector
 * of neq values ("s" or "b"). */
static fc_err check_equalities(h5ctx *c, const char *g, int global, long rows, shape *s)
{
    char b[300];
    const char *E = global ? "G" : "V", *vec = global ? "b" : "s";
    mat_head *h = global ? &s->G : &s->V;
    int hasR = !global && h5_exists(c->file, join(b, sizeof b, g, "R"));
    if (!h5_exists(c->file, join(b, sizeof b, g, E))) {
        if (hasR) return h5_fail(c, FC_ERR_INVALID, join(b, sizeof b, g, "R"), "present without V");
        snprintf(b, sizeof b, "%s/vectors/%s", g, vec);
        if (h5_exists(c->file, b)) return h5_fail(c, FC_ERR_INVALID, b, global ? "present without G" : "present without V");
        return FC_OK;
    }
    if (check_matrix_group(c, b, h)) return c->err->code;
    if (h->m != rows) {
        char msg[96];
        snprintf(msg, sizeof msg, "has %d rows, expected %ld (%s)", h->m, rows, global ? "n" : "m");
        return h5_fail(c, FC_ERR_INVALID, b, msg);
    }
    s->neq = h->n;
    if (hasR) {
        if (check_matrix_group(c, join(b, sizeof b, g, "R"), &s->R)) return c->err->code;
        if (s->R.m != s->neq || s->R.n != s->neq) {
            char msg[96];
            snprintf(msg, sizeof msg, "is %d x %d, expected %d x %d (V's columns)", s->R.m, s->R.n, s->neq, s->neq);
            return h5_fail(c, FC_ERR_INVALID, b, msg);
        }
        s->has_R = 1;
    }
    return check_vector(c, g, vec, s->neq);
}

/* Everything a local problem group holds. */
static fc_err check_local(h5ctx *c, const char *g, int rolling, shape *s)
{
    char b[300];
    if (check_spacedim(c, g, rolling, &s->d) || check_matrix_group(c, join(b, sizeof b, g, "W"), &s->W))
        return c->err->code;
    if (s->W.m != s->W.n || s->W.m % s->d)
        return h5_fail(c, FC_ERR_INVALID, join(b, sizeof b, g, "W"), "not square with a multiple of spacedim rows");
    if (check_vector(c, g, "q", s->W.m) || check_vector(c, g, "mu", s->W.m / s->d) ||
        (rolling && check_vector(c, g, "mu_r", s->W.m / s->d)) || check_equalities(c, g, 0, s->W.m, s))
        return c->err->code;
    return check_info(c, g);
}

/* Everything a global problem group holds. */
static fc_err check_global(h5ctx *c, const char *g, int rolling, shape *s)
{
    char b[300];
    if (check_spacedim(c, g, rolling, &s->d) || check_matrix_group(c, join(b, sizeof b, g, "M"), &s->M) ||
        check_matrix_group(c, join(b, sizeof b, g, "H"), &s->H))
        return c->err->code;
    if (s->M.m != s->M.n || s->H.m != s->M.m || s->H.n % s->d)
        return h5_fail(c, FC_ERR_INVALID, g, "M, H sizes disagree (M n x n, H n x m, m a multiple of spacedim)");
    if (check_vector(c, g, "f", s->M.m) || check_vector(c, g, "w", s->H.n) ||
        check_vector(c, g, "mu", s->H.n / s->d) || (rolling && check_vector(c, g, "mu_r", s->H.n / s->d)) ||
        check_equalities(c, g, 1, s->M.m, s))
        return c->err->code;
    return check_info(c, g);
}

/* ------------------------------------------------------------------ */
/* Conversion of fclib matrices                                         */
/* ------------------------------------------------------------------ */

/* Compressed pointers: start at 0, monotone, end within nzmax. */
static int pointers_ok(const int *p, int n, int nzmax)
{
    if (!p || p[0] != 0) return 0;
    for (int k = 0; k < n; k++)
        if (p[k + 1] < p[k]) return 0;
    return p[n] <= nzmax;
}

/* Entries of an fclib matrix (triplet: i rows, p columns; -1 CSC; -2
 * CSR) as triplets, every index checked; NULL on success, else why. */
const char *fc_fclib_matrix_entries(const struct fclib_matrix *A, fc_triplets *T)
{
    if (!A || !A->x || !A->i || !A->p || A->m <= 0 || A->n <= 0) return "incomplete matrix";
    if (A->nz >= 0) {
        if (A->nz > A->nzmax) return "nz exceeds nzmax";
        for (int k = 0; k < A->nz; k++) {
            if (A->i[k] < 0 || A->i[k] >= A->m || A->p[k] < 0 || A->p[k] >= A->n) return "index out of range";
            if (fc_triplets_push(T, A->i[k], A->p[k], A->x[k])) return "out of memory";
        }
        return NULL;
    }
    if (A->nz != -1 && A->nz != -2) return "unknown storage (nz)";
    int outer = A->nz == -1 ? A->n : A->m, inner = A->nz == -1 ? A->m : A->n;
    if (!pointers_ok(A->p, outer, A->nzmax)) return "invalid compressed pointers";
    for (int o = 0; o < outer; o++)
        for (int k = A->p[o]; k < A->p[o + 1]; k++) {
            if (A->i[k] < 0 || A->i[k] >= inner) return "index out of range";
            int r = A->nz == -1 ? A->i[k] : o, col = A->nz == -1 ? o : A->i[k];
            if (fc_triplets_push(T, r, col, A->x[k])) return "out of memory";
        }
    return NULL;
}

/* A compressed (CSC or CSR) fclib matrix's pointers and indices checked
 * against its sizes; NULL when fine, else why. */
static const char *compressed_ok(const struct fclib_matrix *A)
{
    if (!A || !A->x || !A->i || !A->p || A->m <= 0 || A->n <= 0) return "incomplete matrix";
    int outer = A->nz == -1 ? A->n : A->m, inner = A->nz == -1 ? A->m : A->n;
    if (!pointers_ok(A->p, outer, A->nzmax)) return "invalid compressed pointers";
    for (long k = 0; k < A->p[outer]; k++)
        if (A->i[k] < 0 || A->i[k] >= inner) return "index out of range";
    return NULL;
}

/* Our matrix (CSR, or BSR with bs > 1) from an fclib matrix: compressed
 * storage converted directly (the peak is the fclib arrays and the result,
 * docs/measurements.md#reading-large-files), triplets through a CSR. */
static fc_err from_fclib(h5ctx *c, const struct fclib_matrix *A, int bs, const char *obj,
                         fc_matrix **out)
{
    const char *why = NULL;
    fc_matrix *C = NULL;
    if (A && (A->nz == -1 || A->nz == -2)) {
        why = compressed_ok(A);
        if (!why && A->m % bs == 0 && A->n % bs == 0)
            C = fc_compressed_to_bsr(A->m, A->n, bs, A->p, A->i, A->x, A->nz == -1);
    } else {
        fc_triplets T = {0};
        why = fc_fclib_matrix_entries(A, &T);
        C = why ? NULL : fc_triplets_to_csr(&T, A->m, A->n);
        fc_triplets_free(&T);
        if (C && bs > 1) {
            fc_matrix *B = fc_matrix_to_bsr(C, bs);
            fc_matrix_free(C);
            C = B;
        }
    }
    if (why) return h5_fail(c, FC_ERR_INVALID, obj, why);
    if (!C) return h5_fail(c, FC_ERR_NOMEM, obj, "out of memory");
    *out = C;
    return FC_OK;
}

/* A copy of n doubles (error when src is NULL). */
static fc_err copy_vector(h5ctx *c, const double *src, long n, const char *obj, double **out)
{
    if (!src) return h5_fail(c, FC_ERR_INVALID, obj, "missing");
    *out = fc_dup(src, (size_t)n);
    return *out ? FC_OK : h5_fail(c, FC_ERR_NOMEM, obj, "out of memory");
}

/* The end of a libfclib read with error e so far: mu copied into p (an
 * error when missing), then *out = p, or p freed on an error. */
static fc_err take_problem(h5ctx *c, fc_err e, const double *mu, const char *obj,
                           fc_problem *p, fc_problem **out)
{
    if (!e && !mu) e = h5_fail(c, FC_ERR_INVALID, obj, "missing");
    if (!e) memcpy(p->mu, mu, (size_t)p->nc * sizeof *p->mu);
    if (e) { fc_problem_free(p); return e; }
    *out = p;
    return FC_OK;
}

/* The equality constraints of group g as read (by libfclib or by
 * read_own): E (V or G), R (NULL: zero) and x (s or b) into p. */
static fc_err take_equalities(h5ctx *c, const char *g, const struct fclib_matrix *E,
                              const struct fclib_matrix *R, const double *x, const shape *s,
                              fc_problem *p)
{
    char b[300];
    int global = p->kind == FC_GLOBAL;
    fc_error e;
    if (!s->neq) return FC_OK;
    if (fc_problem_set_equalities(p, s->neq, &e)) return h5_fail(c, e.code, g, e.msg);
    join(b, sizeof b, g, global ? "G" : "V");
    if (!E || E->m != (global ? s->G.m : s->V.m) || E->n != s->neq)
        return h5_fail(c, FC_ERR_INVALID, b, "size changed while reading");
    if (from_fclib(c, E, 1, b, global ? &p->G : &p->V)) return c->err->code;
    if (s->has_R) {
        join(b, sizeof b, g, "R");
        if (!R || R->m != s->neq || R->n != s->neq)
            return h5_fail(c, FC_ERR_INVALID, b, "size changed while reading");
        if (from_fclib(c, R, 1, b, &p->R)) return c->err->code;
    }
    snprintf(b, sizeof b, "%s/vectors/%s", g, global ? "b" : "s");
    if (!x) return h5_fail(c, FC_ERR_INVALID, b, "missing");
    memcpy(global ? p->b : p->s, x, (size_t)s->neq * sizeof *x);
    return FC_OK;
}

/* ------------------------------------------------------------------ */
/* Reading                                                              */
/* ------------------------------------------------------------------ */

/* Local problem through libfclib (the group was checked). */
static fc_err read_local_fclib(h5ctx *c, const shape *s, fc_problem **out)
{
    struct fclib_local *L = fclib_read_local(c->path);
    if (!L) return h5_fail(c, FC_ERR_PARSE, "/fclib_local", "libfclib could not read the problem");
    int nc = s->W.m / s->d;
    fc_problem *p = fc_problem_new(FC_LOCAL, s->d, nc);
    fc_err e = p ? FC_OK : h5_fail(c, FC_ERR_NOMEM, "/fclib_local", "out of memory");
    if (!e && (!L->W || L->W->m != s->W.m || L->W->n != s->W.n))
        e = h5_fail(c, FC_ERR_INVALID, "/fclib_local/W", "size changed while reading");
    if (!e) e = from_fclib(c, L->W, s->d, "/fclib_local/W", &p->W);
    if (!e) e = copy_vector(c, L->q, s->W.m, "/fclib_local/vectors/q", &p->q);
    if (!e) e = take_equalities(c, "/fclib_local", L->V, L->R, L->s, s, p);
    e = take_problem(c, e, L->mu, "/fclib_local/vectors/mu", p, out);
    fclib_delete_local(L);
    free(L);  /* libfclib 3.1 frees the members, not the struct */
    return e;
}

/* Global problem through libfclib (the group was checked). */
static fc_err read_global_fclib(h5ctx *c, const shape *s, fc_problem **out)
{
    struct fclib_global *G = fclib_read_global(c->path);
    if (!G) return h5_fail(c, FC_ERR_PARSE, "/fclib_global", "libfclib could not read the problem");
    int nc = s->H.n / s->d;
    fc_problem *p = fc_problem_new(FC_GLOBAL, s->d, nc);
    fc_err e = p ? FC_OK : h5_fail(c, FC_ERR_NOMEM, "/fclib_global", "out of memory");
    if (!e && (!G->M || !G->H || G->M->m != s->M.m || G->H->n != s->H.n || G->H->m != s->H.m))
        e = h5_fail(c, FC_ERR_INVALID, "/fclib_global", "sizes changed while reading");
    if (!e) {
        p->n = s->M.m;
        e = from_fclib(c, G->M, 1, "/fclib_global/M", &p->M);
    }
    if (!e) e = from_fclib(c, G->H, 1, "/fclib_global/H", &p->H);
    if (!e) e = copy_vector(c, G->f, p->n, "/fclib_global/vectors/f", &p->f);
    if (!e) e = copy_vector(c, G->w, s->H.n, "/fclib_global/vectors/w", &p->w);
    if (!e) e = take_equalities(c, "/fclib_global", G->G, NULL, G->b, s, p);
    e = take_problem(c, e, G->mu, "/fclib_global/vectors/mu", p, out);
    fclib_delete_global(G);
    free(G);
    return e;
}

/* Read a checked matrix group ourselves into an fclib_matrix. */
static fc_err read_matrix_group(h5ctx *c, const char *g, const mat_head *h, struct fclib_matrix *A)
{
    char b[300];
    hsize_t nx;
    long np = h->nz >= 0 ? h->nz : h->nz == -1 ? (long)h->n + 1 : (long)h->m + 1;
    long ni = h->nz >= 0 ? h->nz : h->nzmax;
    memset(A, 0, sizeof *A);
    A->nzmax = h->nzmax; A->m = h->m; A->n = h->n; A->nz = h->nz;
    A->p = fc_calloc((size_t)np, sizeof *A->p);
    A->i = fc_calloc((size_t)ni, sizeof *A->i);
    A->x = fc_calloc((size_t)h->nzmax, sizeof *A->x);
    if (!A->p || !A->i || !A->x) return h5_fail(c, FC_ERR_NOMEM, g, "out of memory");
    if (h5_read(c, join(b, sizeof b, g, "p"), H5T_NATIVE_INT, A->p) ||
        h5_read(c, join(b, sizeof b, g, "i"), H5T_NATIVE_INT, A->i) ||
        h5_dataset(c, join(b, sizeof b, g, "x"), H5T_FLOAT, &nx) ||
        h5_read(c, b, H5T_NATIVE_DOUBLE, A->x))
        return c->err->code;
    return FC_OK;
}

static void free_fclib_matrix(struct fclib_matrix *A)
{
    free(A->p);
    free(A->i);
    free(A->x);
}

/* Read a checked vector g/vectors/name into dst. */
static fc_err read_vector_into(h5ctx *c, const char *g, const char *name, double *dst)
{
    char b[300];
    snprintf(b, sizeof b, "%s/vectors/%s", g, name);
    return h5_read(c, b, H5T_NATIVE_DOUBLE, dst);
}

/* A new vector of n doubles read from g/vectors/name. */
static fc_err read_vector_new(h5ctx *c, const char *g, const char *name, long n, double **out)
{
    *out = fc_calloc((size_t)n, sizeof **out);
    if (!*out) return h5_fail(c, FC_ERR_NOMEM, g, "out of memory");
    return read_vector_into(c, g, name, *out);
}

/* A matrix of our own from a checked group (bs > 1: BSR). */
static fc_err read_our_matrix(h5ctx *c, const char *g, const char *name, const mat_head *h,
                              int bs, fc_matrix **out)
{
    char b[300];
    struct fclib_matrix A;
    join(b, sizeof b, g, name);
    fc_err e = read_matrix_group(c, b, h, &A);
    if (!e) e = from_fclib(c, &A, bs, b, out);
    free_fclib_matrix(&A);
    return e;
}

/* The equality constraints of group g read with the HDF5 API. */
static fc_err read_own_equalities(h5ctx *c, const char *g, const shape *s, fc_problem *p)
{
    char b[300];
    int global = p->kind == FC_GLOBAL;
    struct fclib_matrix E, R;
    memset(&R, 0, sizeof R);
    double *x = NULL;
    fc_err e = read_matrix_group(c, join(b, sizeof b, g, global ? "G" : "V"), global ? &s->G : &s->V, &E);
    if (!e && s->has_R) e = read_matrix_group(c, join(b, sizeof b, g, "R"), &s->R, &R);
    if (!e) e = read_vector_new(c, g, global ? "b" : "s", s->neq, &x);
    if (!e) e = take_equalities(c, g, &E, s->has_R ? &R : NULL, x, s, p);
    free_fclib_matrix(&E);
    free_fclib_matrix(&R);
    free(x);
    return e;
}

/* A problem read with the HDF5 API, not libfclib: rolling problems (which
 * libfclib does not know) and local ones with V but no R (which it cannot
 * read). */
static fc_err read_own(h5ctx *c, const char *g, int global, const shape *s, fc_problem **out)
{
    int m = global ? s->H.n : s->W.m, nc = m / s->d;
    fc_problem *p = fc_problem_new(global ? FC_GLOBAL : FC_LOCAL, s->d, nc);
    if (!p) return h5_fail(c, FC_ERR_NOMEM, g, "out of memory");
    fc_err e;
    if (global) {
        p->n = s->M.m;
        e = read_our_matrix(c, g, "M", &s->M, 1, &p->M);
        if (!e) e = read_our_matrix(c, g, "H", &s->H, 1, &p->H);
        if (!e) e = read_vector_new(c, g, "f", p->n, &p->f);
        if (!e) e = read_vector_new(c, g, "w", m, &p->w);
    } else {
        e = read_our_matrix(c, g, "W", &s->W, s->d, &p->W);
        if (!e) e = read_vector_new(c, g, "q", m, &p->q);
    }
    if (!e) e = read_vector_into(c, g, "mu", p->mu);
    if (!e && s->d == 5) e = read_vector_into(c, g, "mu_r", p->mu_r);
    if (!e && s->neq) e = read_own_equalities(c, g, s, p);
    if (e) { fc_problem_free(p); return e; }
    *out = p;
    return FC_OK;
}

/* The one problem group the open file holds (two are refused), checked; read it. */
/* Every link of the file readable: libfclib exits the process on an HDF5
 * error (a corrupt symbol-table node, say), so the whole tree is walked
 * before it is given the file. */
static herr_t link_ok(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)g, (void)name, (void)info, (void)data;
    return 0;
}

static fc_err read_checked(h5ctx *c, fc_problem **out)
{
    if (H5Lvisit(c->file, H5_INDEX_NAME, H5_ITER_NATIVE, link_ok, NULL) < 0)
        return fc_error_set(c->err, FC_ERR_PARSE, "%s: corrupt HDF5 file (a group cannot be read)",
                            c->path);
    static const char *groups[] = {"/fclib_local", "/fclib_global", "/fclib_local_rolling",
                                   "/fclib_global_rolling"};
    shape s;
    memset(&s, 0, sizeof s);
    int found = -1;
    for (int k = 0; k < 4; k++) {
        if (!h5_is_group(c->file, groups[k])) continue;
        if (found >= 0)
            return fc_error_set(c->err, FC_ERR_PARSE, "%s: holds both %s and %s: one problem per file expected",
                                c->path, groups[found], groups[k]);
        found = k;
    }
    if (found < 0) return fc_error_set(c->err, FC_ERR_PARSE, "%s: no /fclib_local or /fclib_global group", c->path);
    int global = found % 2, rolling = found >= 2;
    const char *g = groups[found];
    if (global ? check_global(c, g, rolling, &s) : check_local(c, g, rolling, &s)) return c->err->code;
    if (rolling || (!global && s.neq && !s.has_R)) return read_own(c, g, global, &s, out);
    H5Fclose(c->file);  /* libfclib opens the file itself */
    c->file = -1;
    return global ? read_global_fclib(c, &s, out) : read_local_fclib(c, &s, out);
}

/* Read an FClib HDF5 problem and validate it (M's definiteness too when
 * definite). */
static fc_err read_hdf5(const char *path, int definite, fc_problem **p, fc_error *err)
{
    fc_error local_err;
    if (!err) err = &local_err;
    *p = NULL;
    struct stat st;
    if (stat(path, &st) != 0)
        return fc_error_set(err, FC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode)) return fc_error_set(err, FC_ERR_IO, "%s: not a regular file", path);
    h5ctx c = {path, -1, err, NULL, NULL};
    quiet_on(&c);
    fc_problem *q = NULL;
    fc_err e;
    c.file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (c.file < 0)
        e = fc_error_set(err, FC_ERR_PARSE, "%s: not a readable HDF5 file", path);
    else
        e = read_checked(&c, &q);
    if (c.file >= 0) H5Fclose(c.file);
    quiet_off(&c);
    if (e) return e;
    return definite ? fc_io_finish(path, q, p, err) : fc_io_finish_shape(path, q, p, err);
}

fc_err fc_read_hdf5(const char *path, fc_problem **p, fc_error *err)
{
    return read_hdf5(path, 1, p, err);
}

fc_err fc_read_hdf5_shape(const char *path, fc_problem **p, fc_error *err)
{
    return read_hdf5(path, 0, p, err);
}

/* ------------------------------------------------------------------ */
/* Writing                                                              */
/* ------------------------------------------------------------------ */

/* An fclib CSR view (nz = -2) of a CSR matrix; an empty matrix gets one
 * explicit zero so that no dataset is empty. */
static void fclib_view(const fc_matrix *C, struct fclib_matrix *A, int *zp, int *zi, double *zx)
{
    memset(A, 0, sizeof *A);
    A->m = C->rows;
    A->n = C->cols;
    A->nz = -2;
    A->nzmax = (int)C->nnz;
    A->p = C->p;
    A->i = C->j;
    A->x = C->x;
    if (C->nnz == 0) {
        for (int k = 0; k <= C->rows; k++) zp[k] = k ? 1 : 0;
        zi[0] = 0;
        zx[0] = 0.0;
        A->nzmax = 1;
        A->p = zp;
        A->i = zi;
        A->x = zx;
    }
}

/* Create (truncate) the output file so that libfclib never has to. */
static fc_err create_file(h5ctx *c)
{
    if (unlink(c->path) != 0 && errno != ENOENT)
        return fc_error_set(c->err, FC_ERR_IO, "%s: cannot replace: %s", c->path, strerror(errno));
    c->file = H5Fcreate(c->path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (c->file < 0) return fc_error_set(c->err, FC_ERR_IO, "%s: cannot create the HDF5 file", c->path);
    return FC_OK;
}

/* CSR copies of the problem's matrices: A (W or M), B (H), E (V or G)
 * and R (a zero neq x neq when the problem has none: libfclib writes V
 * only with R). */
typedef struct csr_set { fc_matrix *A, *B, *E, *R; int *zp; } csr_set;

static void csr_set_free(csr_set *s)
{
    fc_matrix_free(s->A);
    fc_matrix_free(s->B);
    fc_matrix_free(s->E);
    fc_matrix_free(s->R);
    free(s->zp);
}

/* Build the CSR copies and room for an empty matrix's placeholder. */
static fc_err csr_set_make(h5ctx *c, const fc_problem *p, csr_set *s)
{
    memset(s, 0, sizeof *s);
    int global = p->kind == FC_GLOBAL, neq = p->neq;
    s->A = fc_matrix_to_csr(global ? p->M : p->W);
    s->B = global ? fc_matrix_to_csr(p->H) : NULL;
    if (neq) {
        s->E = fc_matrix_to_csr(global ? p->G : p->V);
        s->R = global ? NULL : p->R ? fc_matrix_to_csr(p->R) : fc_matrix_csr(neq, neq, 0);
    }
    int rows = global ? p->M->rows : p->W->rows;
    s->zp = fc_calloc((size_t)(rows > neq ? rows : neq) + 1, sizeof *s->zp);
    if (!s->A || (global && !s->B) || (neq && (!s->E || (!global && !s->R))) || !s->zp)
        return fc_error_set(c->err, FC_ERR_NOMEM, "%s: out of memory", c->path);
    return FC_OK;
}

/* A local or global problem (d = 2, 3) through libfclib. */
static fc_err write_fclib(h5ctx *c, const fc_problem *p)
{
    csr_set s;
    char title[256], description[] = "written by fricon", math[] = "";
    snprintf(title, sizeof title, "%s", p->name ? p->name : "fricon problem");
    struct fclib_info info = {title, description, math};
    struct fclib_matrix A, B, E, R;
    int zi[1], ok;
    double zx[1];
    if (csr_set_make(c, p, &s)) { csr_set_free(&s); return c->err->code; }
    fclib_view(s.A, &A, s.zp, zi, zx);
    if (p->neq) fclib_view(s.E, &E, s.zp, zi, zx);
    if (p->kind == FC_LOCAL) {
        if (p->neq) fclib_view(s.R, &R, s.zp, zi, zx);
        struct fclib_local L = {&A, p->neq ? &E : NULL, p->neq ? &R : NULL, p->mu, p->q, p->s, p->d, &info};
        ok = fclib_write_local(&L, c->path);
    } else {
        fclib_view(s.B, &B, s.zp, zi, zx);
        struct fclib_global G = {&A, &B, p->neq ? &E : NULL, p->mu, p->f, p->b, p->w, p->d, &info};
        ok = fclib_write_global(&G, c->path);
    }
    csr_set_free(&s);
    return ok ? FC_OK : fc_error_set(c->err, FC_ERR_IO, "%s: libfclib could not write the problem", c->path);
}

/* Write a 1-D dataset of n elements. */
static fc_err h5_write(h5ctx *c, const char *path, hid_t filetype, hid_t memtype, hsize_t n,
                       const void *buf)
{
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t d = s >= 0 ? H5Dcreate2(c->file, path, filetype, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    herr_t r = d >= 0 ? H5Dwrite(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) : -1;
    if (d >= 0) H5Dclose(d);
    if (s >= 0) H5Sclose(s);
    return r < 0 ? h5_fail(c, FC_ERR_IO, path, "cannot be written") : FC_OK;
}

static fc_err h5_write_ints(h5ctx *c, const char *path, hsize_t n, const int *v)
{
    return h5_write(c, path, H5T_STD_I32LE, H5T_NATIVE_INT, n, v);
}

static fc_err h5_write_doubles(h5ctx *c, const char *path, hsize_t n, const double *v)
{
    return h5_write(c, path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, v);
}

/* A scalar fixed-length string dataset. */
static fc_err h5_write_string(h5ctx *c, const char *path, const char *text)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, strlen(text) + 1);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t d = H5Dcreate2(c->file, path, t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    herr_t r = d >= 0 ? H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, text) : -1;
    if (d >= 0) H5Dclose(d);
    H5Sclose(s);
    H5Tclose(t);
    return r < 0 ? h5_fail(c, FC_ERR_IO, path, "cannot be written") : FC_OK;
}

/* A group (created). */
static fc_err h5_group(h5ctx *c, const char *path)
{
    hid_t g = H5Gcreate2(c->file, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return h5_fail(c, FC_ERR_IO, path, "cannot create group");
    H5Gclose(g);
    return FC_OK;
}

/* A matrix group in fclib's layout from an fclib view. */
static fc_err write_matrix_group(h5ctx *c, const char *g, const struct fclib_matrix *A)
{
    char b[300];
    long np = (long)A->m + 1;
    if (h5_group(c, g) || h5_write_ints(c, join(b, sizeof b, g, "nzmax"), 1, &A->nzmax) ||
        h5_write_ints(c, join(b, sizeof b, g, "m"), 1, &A->m) ||
        h5_write_ints(c, join(b, sizeof b, g, "n"), 1, &A->n) ||
        h5_write_ints(c, join(b, sizeof b, g, "nz"), 1, &A->nz) ||
        h5_write_ints(c, join(b, sizeof b, g, "p"), (hsize_t)np, A->p) ||
        h5_write_ints(c, join(b, sizeof b, g, "i"), (hsize_t)A->nzmax, A->i) ||
        h5_write_doubles(c, join(b, sizeof b, g, "x"), (hsize_t)A->nzmax, A->x))
        return c->err->code;
    return FC_OK;
}

/* Vectors and info of a rolling problem group. */
static fc_err write_rolling_rest(h5ctx *c, const char *g, const fc_problem *p)
{
    char b[300];
    int m = fc_problem_m(p);
    snprintf(b, sizeof b, "%s/vectors", g);
    if (h5_group(c, b)) return c->err->code;
    if (p->kind == FC_GLOBAL) {
        snprintf(b, sizeof b, "%s/vectors/f", g);
        if (h5_write_doubles(c, b, (hsize_t)p->n, p->f)) return c->err->code;
        snprintf(b, sizeof b, "%s/vectors/w", g);
        if (h5_write_doubles(c, b, (hsize_t)m, p->w)) return c->err->code;
    } else {
        snprintf(b, sizeof b, "%s/vectors/q", g);
        if (h5_write_doubles(c, b, (hsize_t)m, p->q)) return c->err->code;
    }
    snprintf(b, sizeof b, "%s/vectors/mu", g);
    if (h5_write_doubles(c, b, (hsize_t)p->nc, p->mu)) return c->err->code;
    snprintf(b, sizeof b, "%s/vectors/mu_r", g);
    if (h5_write_doubles(c, b, (hsize_t)p->nc, p->mu_r)) return c->err->code;
    snprintf(b, sizeof b, "%s/vectors/%s", g, p->kind == FC_GLOBAL ? "b" : "s");
    if (p->neq && h5_write_doubles(c, b, (hsize_t)p->neq, p->kind == FC_GLOBAL ? p->b : p->s))
        return c->err->code;
    if (h5_group(c, join(b, sizeof b, g, "info")) ||
        h5_write_string(c, join(b, sizeof b, g, "info/title"), p->name ? p->name : "fricon problem") ||
        h5_write_string(c, join(b, sizeof b, g, "info/description"), "written by fricon") ||
        h5_write_string(c, join(b, sizeof b, g, "info/math_info"), ""))
        return c->err->code;
    return FC_OK;
}

/* A rolling problem (d = 5) in the /fclib_*_rolling layout. */
static fc_err write_rolling(h5ctx *c, const fc_problem *p)
{
    const char *g = p->kind == FC_GLOBAL ? "/fclib_global_rolling" : "/fclib_local_rolling";
    char b[300];
    int d = 5, zi[1];
    double zx[1];
    csr_set s;
    struct fclib_matrix A, B, E, R;
    fc_err e = csr_set_make(c, p, &s);
    if (!e) e = h5_group(c, g);
    if (!e) e = h5_write_ints(c, join(b, sizeof b, g, "spacedim"), 1, &d);
    if (!e) {
        fclib_view(s.A, &A, s.zp, zi, zx);
        e = write_matrix_group(c, join(b, sizeof b, g, p->kind == FC_GLOBAL ? "M" : "W"), &A);
    }
    if (!e && p->kind == FC_GLOBAL) {
        fclib_view(s.B, &B, s.zp, zi, zx);
        e = write_matrix_group(c, join(b, sizeof b, g, "H"), &B);
    }
    if (!e && p->neq) {
        fclib_view(s.E, &E, s.zp, zi, zx);
        e = write_matrix_group(c, join(b, sizeof b, g, p->kind == FC_GLOBAL ? "G" : "V"), &E);
    }
    if (!e && p->neq && p->kind == FC_LOCAL) {
        fclib_view(s.R, &R, s.zp, zi, zx);
        e = write_matrix_group(c, join(b, sizeof b, g, "R"), &R);
    }
    if (!e) e = write_rolling_rest(c, g, p);
    csr_set_free(&s);
    return e;
}

/* Is everything the writer needs there? */
static int complete(const fc_problem *p)
{
    if (!p->mu || (p->d == 5 && !p->mu_r) || p->neq < 0) return 0;
    if (p->kind == FC_LOCAL) return p->W && p->q && (!p->neq || (p->V && p->s));
    return p->M && p->H && p->f && p->w && (!p->neq || (p->G && p->b));
}

/* Write an FClib HDF5 problem (replacing any existing file). */
fc_err fc_write_hdf5(const char *path, const fc_problem *p, fc_error *err)
{
    fc_error local_err;
    if (!err) err = &local_err;
    if (!p || !complete(p)) return fc_error_set(err, FC_ERR_INVALID, "%s: incomplete problem", path);
    if (p->d != 2 && p->d != 3 && p->d != 5)
        return fc_error_set(err, FC_ERR_INVALID, "%s: dimension %d not writable", path, p->d);
    h5ctx c = {path, -1, err, NULL, NULL};
    quiet_on(&c);
    fc_err e = create_file(&c);
    if (!e && p->d != 5) {
        H5Fclose(c.file);  /* libfclib reopens it */
        c.file = -1;
        e = write_fclib(&c, p);
    } else if (!e) {
        e = write_rolling(&c, p);
    }
    if (c.file >= 0 && H5Fclose(c.file) < 0 && !e)
        e = fc_error_set(err, FC_ERR_IO, "%s: cannot close the HDF5 file", path);
    quiet_off(&c);
    return e;
}

/* ------------------------------------------------------------------ */
/* Initial guesses (/guesses, as libfclib's fclib_write_guesses)        */
/* ------------------------------------------------------------------ */

/* u of a guess: W r + V lambda + q, or H^T v + w (v given or recovered
 * with lambda); lambda NULL means 0. */
static fc_err guess_u(const fc_problem *p, const double *r, const double *v, const double *lambda,
                      double *u, double *vbuf, fc_error *err)
{
    int m = fc_problem_m(p);
    if (p->kind == FC_LOCAL) {
        memcpy(u, p->q, (size_t)m * sizeof *u);
        fc_matrix_gemv(p->W, 1.0, r, 1.0, u);
        if (p->neq && lambda) fc_matrix_gemv(p->V, 1.0, lambda, 1.0, u);
        return FC_OK;
    }
    if (!v) {
        if (fc_problem_recover_v_eq(p, r, lambda, vbuf, err)) return err->code;
        v = vbuf;
    }
    memcpy(u, p->w, (size_t)m * sizeof *u);
    fc_matrix_gemv_t(p->H, 1.0, v, 1.0, u);
    return FC_OK;
}

fc_err fc_write_guess_eq(const char *path, const fc_problem *p, const double *r, const double *v,
                         const double *lambda, fc_error *err)
{
    fc_error local_err;
    if (!err) err = &local_err;
    int m = fc_problem_m(p), n = p->kind == FC_GLOBAL ? p->n : 0, one = 1, neq = p->neq;
    if (!fc_all_finite((size_t)m, r) || (v && n && !fc_all_finite((size_t)n, v)) ||
        (lambda && neq && !fc_all_finite((size_t)neq, lambda)))
        return fc_error_set(err, FC_ERR_INVALID, "%s: the guess has a non-finite value", path);
    double *u = fc_calloc((size_t)m, sizeof *u), *vb = n ? fc_calloc((size_t)n, sizeof *vb) : NULL;
    double *lb = neq ? fc_calloc((size_t)neq, sizeof *lb) : NULL;
    if (!u || (n && !vb) || (neq && !lb)) {
        free(u); free(vb); free(lb);
        return fc_error_set(err, FC_ERR_NOMEM, "%s: out of memory", path);
    }
    if (neq && lambda) memcpy(lb, lambda, (size_t)neq * sizeof *lb);
    fc_err e = guess_u(p, r, v, lb, u, vb, err);
    if (!e && n && v) memcpy(vb, v, (size_t)n * sizeof *vb);
    h5ctx c = {path, -1, err, NULL, NULL};
    quiet_on(&c);
    if (!e) {
        c.file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
        if (c.file < 0) e = fc_error_set(err, FC_ERR_IO, "%s: cannot open the HDF5 file for writing", path);
        else if (h5_exists(c.file, "/guesses"))
            e = fc_error_set(err, FC_ERR_IO, "%s: already holds /guesses", path);
    }
    if (!e) e = h5_group(&c, "/guesses");
    if (!e) e = h5_write_ints(&c, "/guesses/number_of_guesses", 1, &one);
    if (!e) e = h5_group(&c, "/guesses/1");
    if (!e && n) e = h5_write_doubles(&c, "/guesses/1/v", (hsize_t)n, vb);
    if (!e) e = h5_write_doubles(&c, "/guesses/1/u", (hsize_t)m, u);
    if (!e) e = h5_write_doubles(&c, "/guesses/1/r", (hsize_t)m, r);
    if (!e && neq) e = h5_write_doubles(&c, "/guesses/1/l", (hsize_t)neq, lb);
    if (c.file >= 0 && H5Fclose(c.file) < 0 && !e)
        e = fc_error_set(err, FC_ERR_IO, "%s: cannot close the HDF5 file", path);
    quiet_off(&c);
    free(u);
    free(vb);
    free(lb);
    return e;
}

fc_err fc_write_guess(const char *path, const fc_problem *p, const double *r, const double *v,
                      fc_error *err)
{
    return fc_write_guess_eq(path, p, r, v, NULL, err);
}

/* A guess vector of exactly n finite values into dst.  Its size is the
 * problem's, so no bound on its compression (a zero v compresses past the
 * plausibility bound of h5_dataset). */
static fc_err read_guess_vector(h5ctx *c, const char *path, long n, double *dst)
{
    h5_shape sh;
    if (h5_probe(c, path, &sh)) return c->err->code;
    hssize_t np = sh.np;
    if (sh.tc != H5T_FLOAT || sh.rank != 1) return h5_fail(c, FC_ERR_PARSE, path, "not a 1-D floating-point dataset");
    if (np != (hssize_t)n) {
        char msg[96];
        snprintf(msg, sizeof msg, "has %lld elements, expected %ld", (long long)np, n);
        return h5_fail(c, FC_ERR_PARSE, path, msg);
    }
    double *tmp = fc_calloc((size_t)n, sizeof *tmp);
    if (!tmp) return h5_fail(c, FC_ERR_NOMEM, path, "out of memory");
    fc_err e = h5_read(c, path, H5T_NATIVE_DOUBLE, tmp);
    if (!e && !fc_all_finite((size_t)n, tmp)) e = h5_fail(c, FC_ERR_PARSE, path, "has a non-finite value");
    if (!e) memcpy(dst, tmp, (size_t)n * sizeof *dst);
    free(tmp);
    return e;
}

fc_err fc_read_guess_eq(const char *path, const fc_problem *p, int k, double *r, double *v,
                        double *lambda, int *count, fc_error *err)
{
    fc_error local_err;
    if (!err) err = &local_err;
    int nguess = 0;
    if (count) *count = 0;
    h5ctx c = {path, -1, err, NULL, NULL};
    quiet_on(&c);
    fc_err e = FC_OK;
    if (H5Fis_hdf5(path) > 0) c.file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (c.file >= 0 && h5_exists(c.file, "/guesses")) {
        e = h5_int(&c, "/guesses/number_of_guesses", &nguess);
        if (!e && (nguess < 0 || nguess > 1000000))
            e = h5_fail(&c, FC_ERR_PARSE, "/guesses/number_of_guesses", "out of range");
    }
    if (!e && r && nguess > 0) {
        char b[64];
        if (k < 0 || k >= nguess) {
            e = fc_error_set(err, FC_ERR_INVALID, "%s: no guess %d (the file has %d)", path, k + 1, nguess);
        } else {
            snprintf(b, sizeof b, "/guesses/%d/r", k + 1);
            e = read_guess_vector(&c, b, fc_problem_m(p), r);
            snprintf(b, sizeof b, "/guesses/%d/v", k + 1);
            if (!e && v && p->kind == FC_GLOBAL && h5_exists(c.file, b))
                e = read_guess_vector(&c, b, p->n, v);
            snprintf(b, sizeof b, "/guesses/%d/l", k + 1);
            if (!e && lambda && p->neq > 0 && h5_exists(c.file, b))
                e = read_guess_vector(&c, b, p->neq, lambda);
        }
    }
    if (c.file >= 0) H5Fclose(c.file);
    quiet_off(&c);
    if (!e && count) *count = nguess;
    return e;
}

fc_err fc_read_guess(const char *path, const fc_problem *p, int k, double *r, double *v, int *count,
                     fc_error *err)
{
    return fc_read_guess_eq(path, p, k, r, v, NULL, count, err);
}
