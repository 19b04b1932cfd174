/* fricon._fricon: the CPython extension over libfricon (C API of NumPy).
 *
 * Thin by design: problems are fc_problem objects owned by a Python
 * object; arrays cross the boundary as copies; options are set by name
 * through fc_options_set (the option structs are never mirrored here);
 * the GIL is released around fc_solve and fc_mbd_step.  The Python layer
 * (fricon/__init__.py) builds the friendly API on top. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <fricon.h>
#include <fricon_mbd.h>

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* errors                                                              */
/* ------------------------------------------------------------------ */

static PyObject *raise_fc(const fc_error *err)
{
    PyObject *type = PyExc_ValueError;
    if (err->code == FC_ERR_IO) type = PyExc_OSError;
    else if (err->code == FC_ERR_NOMEM) type = PyExc_MemoryError;
    PyErr_SetString(type, err->msg[0] ? err->msg : "fricon: unknown error");
    return NULL;
}

/* A new double array (C order) copied from x (may be NULL: zeros). */
static PyObject *array_from(const double *x, npy_intp n)
{
    PyObject *a = PyArray_SimpleNew(1, &n, NPY_DOUBLE);
    if (!a) return NULL;
    if (n > 0) {
        if (x) memcpy(PyArray_DATA((PyArrayObject *)a), x, (size_t)n * sizeof(double));
        else memset(PyArray_DATA((PyArrayObject *)a), 0, (size_t)n * sizeof(double));
    }
    return a;
}

static PyObject *int_array_from(const int *x, npy_intp n)
{
    PyObject *a = PyArray_SimpleNew(1, &n, NPY_INT32);
    if (!a) return NULL;
    if (n > 0) memcpy(PyArray_DATA((PyArrayObject *)a), x, (size_t)n * sizeof(int));
    return a;
}

/* A contiguous double array of exactly n values from obj (new reference),
 * or NULL with ValueError naming what. */
static PyArrayObject *vector_arg(PyObject *obj, npy_intp n, const char *what)
{
    PyArrayObject *a = (PyArrayObject *)PyArray_FROM_OTF(obj, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
    if (!a) return NULL;
    if (PyArray_NDIM(a) != 1 || (n >= 0 && PyArray_DIM(a, 0) != n)) {
        PyErr_Format(PyExc_ValueError, "%s must be a vector of %zd values, got shape %s%zd%s",
                     what, (Py_ssize_t)n, PyArray_NDIM(a) == 1 ? "(" : "ndim ",
                     PyArray_NDIM(a) == 1 ? (Py_ssize_t)PyArray_DIM(a, 0) : (Py_ssize_t)PyArray_NDIM(a),
                     PyArray_NDIM(a) == 1 ? ",)" : "");
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

/* ------------------------------------------------------------------ */
/* Problem                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    fc_problem *p;
} ProblemObject;

static PyTypeObject ProblemType;

static void problem_dealloc(ProblemObject *self)
{
    fc_problem_free(self->p);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Wraps p (takes ownership; frees it on failure). */
static PyObject *problem_wrap(fc_problem *p)
{
    ProblemObject *o = PyObject_New(ProblemObject, &ProblemType);
    if (!o) { fc_problem_free(p); return NULL; }
    o->p = p;
    return (PyObject *)o;
}

static double *dup_vec(const double *x, size_t n, int *fail)
{
    if (!x) return NULL;
    double *y = malloc((n ? n : 1) * sizeof *y);
    if (!y) { *fail = 1; return NULL; }
    memcpy(y, x, n * sizeof *y);
    return y;
}

/* A deep copy of a problem (the library has no fc_problem_copy). */
static fc_problem *problem_copy(const fc_problem *s)
{
    fc_problem *p = fc_problem_new(s->kind, s->d, s->nc);
    if (!p) return NULL;
    int m = fc_problem_m(s), fail = 0;
    p->n = s->n;
    if (s->W && !(p->W = fc_matrix_copy(s->W))) fail = 1;
    if (s->M && !(p->M = fc_matrix_copy(s->M))) fail = 1;
    if (s->H && !(p->H = fc_matrix_copy(s->H))) fail = 1;
    p->q = dup_vec(s->q, (size_t)m, &fail);
    p->w = dup_vec(s->w, (size_t)m, &fail);
    p->f = dup_vec(s->f, (size_t)s->n, &fail);
    if (s->nc) memcpy(p->mu, s->mu, (size_t)s->nc * sizeof *p->mu);
    if (s->mu_r && p->mu_r && s->nc) memcpy(p->mu_r, s->mu_r, (size_t)s->nc * sizeof *p->mu_r);
    if (s->name && !(p->name = strdup(s->name))) fail = 1;
    if (fail) { fc_problem_free(p); return NULL; }
    return p;
}

static PyObject *problem_get_kind(ProblemObject *self, void *c)
{
    (void)c;
    return PyUnicode_FromString(self->p->kind == FC_LOCAL ? "local" : "global");
}
static PyObject *problem_get_kind_name(ProblemObject *self, void *c)
{
    (void)c;
    return PyUnicode_FromString(fc_problem_kind_name(self->p));
}
static PyObject *problem_get_d(ProblemObject *self, void *c) { (void)c; return PyLong_FromLong(self->p->d); }
static PyObject *problem_get_nc(ProblemObject *self, void *c) { (void)c; return PyLong_FromLong(self->p->nc); }
static PyObject *problem_get_m(ProblemObject *self, void *c) { (void)c; return PyLong_FromLong(fc_problem_m(self->p)); }
static PyObject *problem_get_n(ProblemObject *self, void *c)
{
    (void)c;
    return PyLong_FromLong(self->p->kind == FC_GLOBAL ? self->p->n : 0);
}
static PyObject *problem_get_neq(ProblemObject *self, void *c) { (void)c; return PyLong_FromLong(self->p->neq); }
static PyObject *problem_get_name(ProblemObject *self, void *c)
{
    (void)c;
    if (!self->p->name) Py_RETURN_NONE;
    return PyUnicode_DecodeFSDefault(self->p->name);
}

static PyGetSetDef problem_getset[] = {
    {"kind", (getter)problem_get_kind, NULL, "'local' or 'global'", NULL},
    {"kind_name", (getter)problem_get_kind_name, NULL, "fc3d, gfc3d, rfc3d, fc2d, ...", NULL},
    {"d", (getter)problem_get_d, NULL, "components per contact (2, 3, 5)", NULL},
    {"nc", (getter)problem_get_nc, NULL, "number of contacts", NULL},
    {"m", (getter)problem_get_m, NULL, "d * nc", NULL},
    {"n", (getter)problem_get_n, NULL, "degrees of freedom (global), else 0", NULL},
    {"neq", (getter)problem_get_neq, NULL, "equality constraints (rows of lambda), 0 when none", NULL},
    {"name", (getter)problem_get_name, NULL, "source file or None", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* ('dense', rows, cols, x column-major) | ('csr', rows, cols, p, j, x)
 * | ('bsr', rows, cols, bs, p, j, x blocks column-major); None if absent. */
static PyObject *matrix_tuple(const fc_matrix *A)
{
    if (!A) Py_RETURN_NONE;
    if (A->kind == FC_MAT_DENSE) {
        PyObject *x = array_from(A->x, (npy_intp)A->nnz);
        if (!x) return NULL;
        return Py_BuildValue("(siiN)", "dense", A->rows, A->cols, x);
    }
    int nr = A->kind == FC_MAT_BSR ? A->rows / A->bs : A->rows;
    long len = A->kind == FC_MAT_BSR ? A->nnz / ((long)A->bs * A->bs) : A->nnz;
    PyObject *p = int_array_from(A->p, nr + 1);
    PyObject *j = p ? int_array_from(A->j, (npy_intp)len) : NULL;
    PyObject *x = j ? array_from(A->x, (npy_intp)A->nnz) : NULL;
    if (!x) { Py_XDECREF(p); Py_XDECREF(j); return NULL; }
    if (A->kind == FC_MAT_CSR) return Py_BuildValue("(siiNNN)", "csr", A->rows, A->cols, p, j, x);
    return Py_BuildValue("(siiiNNN)", "bsr", A->rows, A->cols, A->bs, p, j, x);
}

static PyObject *problem_matrix(ProblemObject *self, PyObject *arg)
{
    const char *which = PyUnicode_AsUTF8(arg);
    if (!which) return NULL;
    if (!strcmp(which, "W")) return matrix_tuple(self->p->W);
    if (!strcmp(which, "M")) return matrix_tuple(self->p->M);
    if (!strcmp(which, "H")) return matrix_tuple(self->p->H);
    if (!strcmp(which, "V")) return matrix_tuple(self->p->V);
    if (!strcmp(which, "R")) return matrix_tuple(self->p->R);
    if (!strcmp(which, "G")) return matrix_tuple(self->p->G);
    PyErr_Format(PyExc_KeyError, "no matrix '%s' (W, M, H, V, R, G)", which);
    return NULL;
}

static PyObject *problem_vector(ProblemObject *self, PyObject *arg)
{
    const char *which = PyUnicode_AsUTF8(arg);
    if (!which) return NULL;
    const fc_problem *p = self->p;
    int m = fc_problem_m(p);
    if (!strcmp(which, "q")) return p->q ? array_from(p->q, m) : (Py_INCREF(Py_None), Py_None);
    if (!strcmp(which, "w")) return p->w ? array_from(p->w, m) : (Py_INCREF(Py_None), Py_None);
    if (!strcmp(which, "f")) return p->f ? array_from(p->f, p->n) : (Py_INCREF(Py_None), Py_None);
    if (!strcmp(which, "mu")) return array_from(p->mu, p->nc);
    if (!strcmp(which, "mu_r")) return p->mu_r ? array_from(p->mu_r, p->nc) : (Py_INCREF(Py_None), Py_None);
    if (!strcmp(which, "s")) return p->s ? array_from(p->s, p->neq) : (Py_INCREF(Py_None), Py_None);
    if (!strcmp(which, "b")) return p->b ? array_from(p->b, p->neq) : (Py_INCREF(Py_None), Py_None);
    PyErr_Format(PyExc_KeyError, "no vector '%s' (q, w, f, mu, mu_r, s, b)", which);
    return NULL;
}

static PyObject *problem_write(ProblemObject *self, PyObject *arg)
{
    PyObject *bytes;
    if (!PyUnicode_FSConverter(arg, &bytes)) return NULL;
    fc_error err;
    fc_err rc;
    Py_BEGIN_ALLOW_THREADS
    rc = fc_write(PyBytes_AS_STRING(bytes), self->p, &err);
    Py_END_ALLOW_THREADS
    Py_DECREF(bytes);
    if (rc) return raise_fc(&err);
    Py_RETURN_NONE;
}

static PyObject *problem_reduce(ProblemObject *self, PyObject *noarg)
{
    (void)noarg;
    fc_problem *l = NULL;
    fc_error err;
    fc_err rc;
    Py_BEGIN_ALLOW_THREADS
    rc = fc_problem_reduce(self->p, &l, &err);
    Py_END_ALLOW_THREADS
    if (rc) return raise_fc(&err);
    return problem_wrap(l);
}

static PyObject *problem_copy_py(ProblemObject *self, PyObject *noarg)
{
    (void)noarg;
    fc_problem *c = problem_copy(self->p);
    if (!c) return PyErr_NoMemory();
    return problem_wrap(c);
}

static PyMethodDef problem_methods[] = {
    {"matrix", (PyCFunction)problem_matrix, METH_O, "matrix('W'|'M'|'H') as a tuple"},
    {"vector", (PyCFunction)problem_vector, METH_O, "vector('q'|'w'|'f'|'mu'|'mu_r') as a new array"},
    {"write", (PyCFunction)problem_write, METH_O, "write(path): .dat or .hdf5 by extension"},
    {"reduce", (PyCFunction)problem_reduce, METH_NOARGS, "the local problem W = H' M^-1 H, q = H' M^-1 f + w"},
    {"copy", (PyCFunction)problem_copy_py, METH_NOARGS, "a deep copy"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject ProblemType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "fricon._fricon.Problem",
    .tp_basicsize = sizeof(ProblemObject),
    .tp_dealloc = (destructor)problem_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "a frictional contact problem (libfricon's fc_problem)",
    .tp_methods = problem_methods,
    .tp_getset = problem_getset,
};

static ProblemObject *problem_arg(PyObject *o)
{
    if (!PyObject_TypeCheck(o, &ProblemType)) {
        PyErr_SetString(PyExc_TypeError, "expected a fricon problem");
        return NULL;
    }
    return (ProblemObject *)o;
}

/* ------------------------------------------------------------------ */
/* building problems from arrays                                       */
/* ------------------------------------------------------------------ */

/* An fc_matrix from the tuple form of matrix_tuple (the Python layer
 * converts scipy.sparse / dense inputs to it). */
static fc_matrix *matrix_from_tuple(PyObject *t, const char *name)
{
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) < 4) {
        PyErr_Format(PyExc_TypeError, "matrix %s: bad internal form", name);
        return NULL;
    }
    const char *kind = PyUnicode_AsUTF8(PyTuple_GET_ITEM(t, 0));
    if (!kind) return NULL;
    long rows = PyLong_AsLong(PyTuple_GET_ITEM(t, 1)), cols = PyLong_AsLong(PyTuple_GET_ITEM(t, 2));
    if (PyErr_Occurred()) return NULL;
    if (rows <= 0 || cols <= 0 || rows > INT_MAX || cols > INT_MAX) {
        PyErr_Format(PyExc_ValueError, "matrix %s is %ld x %ld", name, rows, cols);
        return NULL;
    }
    fc_matrix *A = NULL;
    if (!strcmp(kind, "dense")) {
        PyArrayObject *x = (PyArrayObject *)PyArray_FROM_OTF(PyTuple_GET_ITEM(t, 3), NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
        if (!x) return NULL;
        if (PyArray_NDIM(x) != 2 || PyArray_DIM(x, 0) != rows || PyArray_DIM(x, 1) != cols) {
            PyErr_Format(PyExc_ValueError, "matrix %s: dense array of the wrong shape", name);
        } else if (!(A = fc_matrix_dense((int)rows, (int)cols))) {
            PyErr_Format(PyExc_MemoryError, "matrix %s (%ld x %ld) too large", name, rows, cols);
        } else {
            const double *a = PyArray_DATA(x);
            for (long i = 0; i < rows; i++)
                for (long j = 0; j < cols; j++) A->x[i + rows * j] = a[i * cols + j];
        }
        Py_DECREF(x);
        return A;
    }
    int bsr = !strcmp(kind, "bsr");
    if (!bsr && strcmp(kind, "csr")) {
        PyErr_Format(PyExc_ValueError, "matrix %s: unknown storage '%s'", name, kind);
        return NULL;
    }
    int off = bsr ? 4 : 3;
    if (PyTuple_GET_SIZE(t) != off + 3) {
        PyErr_Format(PyExc_TypeError, "matrix %s: bad internal form", name);
        return NULL;
    }
    long bs = 1;
    if (bsr) {
        bs = PyLong_AsLong(PyTuple_GET_ITEM(t, 3));
        if (PyErr_Occurred()) return NULL;
        if (bs <= 0 || bs > 64 || rows % bs || cols % bs) {
            PyErr_Format(PyExc_ValueError, "matrix %s: block size %ld does not divide %ld x %ld",
                         name, bs, rows, cols);
            return NULL;
        }
    }
    PyArrayObject *p = (PyArrayObject *)PyArray_FROM_OTF(PyTuple_GET_ITEM(t, off), NPY_INT32, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    PyArrayObject *j = p ? (PyArrayObject *)PyArray_FROM_OTF(PyTuple_GET_ITEM(t, off + 1), NPY_INT32, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST) : NULL;
    PyArrayObject *x = j ? (PyArrayObject *)PyArray_FROM_OTF(PyTuple_GET_ITEM(t, off + 2), NPY_DOUBLE, NPY_ARRAY_IN_ARRAY) : NULL;
    if (!x) goto done;
    long nr = rows / bs;
    npy_intp np_ = PyArray_SIZE(p), nj = PyArray_SIZE(j), nx = PyArray_SIZE(x);
    if (np_ != nr + 1) {
        PyErr_Format(PyExc_ValueError, "matrix %s: %zd row pointers, expected %ld", name, (Py_ssize_t)np_, nr + 1);
        goto done;
    }
    const int *pp = PyArray_DATA(p);
    if (pp[0] != 0 || pp[nr] != nj || nx != nj * bs * bs) {
        PyErr_Format(PyExc_ValueError, "matrix %s: inconsistent sparse structure", name);
        goto done;
    }
    A = bsr ? fc_matrix_bsr((int)rows, (int)cols, (int)bs, (long)nj) : fc_matrix_csr((int)rows, (int)cols, (long)nj);
    if (!A) {
        PyErr_Format(PyExc_MemoryError, "matrix %s too large", name);
        goto done;
    }
    memcpy(A->p, pp, (size_t)(nr + 1) * sizeof(int));
    if (nj) memcpy(A->j, PyArray_DATA(j), (size_t)nj * sizeof(int));
    if (nx) memcpy(A->x, PyArray_DATA(x), (size_t)nx * sizeof(double));
done:
    Py_XDECREF(p);
    Py_XDECREF(j);
    Py_XDECREF(x);
    return A;
}

/* Copies obj (n values) into a new malloc'd vector at *dst. */
static int fill_vector(PyObject *obj, npy_intp n, const char *what, double **dst)
{
    PyArrayObject *a = vector_arg(obj, n, what);
    if (!a) return -1;
    *dst = malloc((size_t)(n ? n : 1) * sizeof(double));
    if (!*dst) { Py_DECREF(a); PyErr_NoMemory(); return -1; }
    if (n) memcpy(*dst, PyArray_DATA(a), (size_t)n * sizeof(double));
    Py_DECREF(a);
    return 0;
}

static int fill_coefficients(fc_problem *p, PyObject *mu, PyObject *mu_r)
{
    PyArrayObject *a = vector_arg(mu, p->nc, "mu");
    if (!a) return -1;
    memcpy(p->mu, PyArray_DATA(a), (size_t)p->nc * sizeof(double));
    Py_DECREF(a);
    if (p->d == 5) {
        if (mu_r == Py_None) { PyErr_SetString(PyExc_ValueError, "a rolling problem (d = 5) needs mu_r"); return -1; }
        if (!(a = vector_arg(mu_r, p->nc, "mu_r"))) return -1;
        memcpy(p->mu_r, PyArray_DATA(a), (size_t)p->nc * sizeof(double));
        Py_DECREF(a);
    } else if (mu_r != Py_None) {
        PyErr_SetString(PyExc_ValueError, "mu_r is only for rolling problems (d = 5)");
        return -1;
    }
    return 0;
}

static PyObject *validated(fc_problem *p)
{
    fc_error err;
    if (fc_problem_validate(p, &err)) {
        fc_problem_free(p);
        return raise_fc(&err);
    }
    return problem_wrap(p);
}

static int check_d_nc(int d, long m, const char *what, int *nc)
{
    if (d != 2 && d != 3 && d != 5) {
        PyErr_Format(PyExc_ValueError, "d = %d, expected 2, 3 or 5", d);
        return -1;
    }
    if (m <= 0 || m % d) {
        PyErr_Format(PyExc_ValueError, "%s has %ld rows, not a positive multiple of d = %d", what, m, d);
        return -1;
    }
    *nc = (int)(m / d);
    return 0;
}

static PyObject *make_local(PyObject *mod, PyObject *args)
{
    (void)mod;
    int d;
    PyObject *W, *q, *mu, *mu_r;
    if (!PyArg_ParseTuple(args, "iOOOO", &d, &W, &q, &mu, &mu_r)) return NULL;
    fc_matrix *A = matrix_from_tuple(W, "W");
    if (!A) return NULL;
    int nc;
    if (check_d_nc(d, A->rows, "W", &nc)) { fc_matrix_free(A); return NULL; }
    fc_problem *p = fc_problem_new(FC_LOCAL, d, nc);
    if (!p) { fc_matrix_free(A); return PyErr_NoMemory(); }
    p->W = A;
    if (fill_vector(q, fc_problem_m(p), "q", &p->q) || fill_coefficients(p, mu, mu_r)) {
        fc_problem_free(p);
        return NULL;
    }
    return validated(p);
}

static PyObject *make_global(PyObject *mod, PyObject *args)
{
    (void)mod;
    int d;
    PyObject *M, *H, *f, *w, *mu, *mu_r;
    if (!PyArg_ParseTuple(args, "iOOOOOO", &d, &M, &H, &f, &w, &mu, &mu_r)) return NULL;
    fc_matrix *Mm = matrix_from_tuple(M, "M");
    if (!Mm) return NULL;
    fc_matrix *Hm = matrix_from_tuple(H, "H");
    if (!Hm) { fc_matrix_free(Mm); return NULL; }
    int nc;
    if (check_d_nc(d, Hm->cols, "H^T", &nc)) { fc_matrix_free(Mm); fc_matrix_free(Hm); return NULL; }
    fc_problem *p = fc_problem_new(FC_GLOBAL, d, nc);
    if (!p) { fc_matrix_free(Mm); fc_matrix_free(Hm); return PyErr_NoMemory(); }
    p->M = Mm;
    p->H = Hm;
    p->n = Mm->rows;
    if (fill_vector(f, p->n, "f", &p->f) || fill_vector(w, fc_problem_m(p), "w", &p->w) ||
        fill_coefficients(p, mu, mu_r)) {
        fc_problem_free(p);
        return NULL;
    }
    return validated(p);
}

static PyObject *read_problem(PyObject *mod, PyObject *arg)
{
    (void)mod;
    PyObject *bytes;
    if (!PyUnicode_FSConverter(arg, &bytes)) return NULL;
    fc_problem *p = NULL;
    fc_error err;
    fc_err rc;
    Py_BEGIN_ALLOW_THREADS
    rc = fc_read(PyBytes_AS_STRING(bytes), &p, &err);
    Py_END_ALLOW_THREADS
    Py_DECREF(bytes);
    if (rc) return raise_fc(&err);
    return problem_wrap(p);
}


/* read_guess(path, problem): (r, v or None) of the file's first FClib
 * guess, or None when it has none. */
static PyObject *read_guess(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *path, *bytes, *prob;
    if (!PyArg_ParseTuple(args, "OO!", &path, &ProblemType, &prob)) return NULL;
    if (!PyUnicode_FSConverter(path, &bytes)) return NULL;
    const fc_problem *p = ((ProblemObject *)prob)->p;
    int m = fc_problem_m(p), n = p->kind == FC_GLOBAL ? p->n : 0, count = 0;
    double *r = calloc((size_t)m + 1, sizeof *r), *v = calloc((size_t)n + 1, sizeof *v);
    fc_error err;
    fc_err rc = FC_OK;
    if (r && v) {
        Py_BEGIN_ALLOW_THREADS
        rc = fc_read_guess(PyBytes_AS_STRING(bytes), p, 0, NULL, NULL, &count, &err);
        for (int k = 0; k < n; k++) v[k] = NAN; /* a guess without v leaves NaN */
        if (!rc && count > 0) rc = fc_read_guess(PyBytes_AS_STRING(bytes), p, 0, r, n ? v : NULL, NULL, &err);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(bytes);
    PyObject *out = NULL;
    if (!r || !v) out = PyErr_NoMemory();
    else if (rc) out = raise_fc(&err);
    else if (count == 0) out = Py_NewRef(Py_None);
    else {
        int hasv = n > 0 && !isnan(v[0]);
        PyObject *ra = array_from(r, m), *va = hasv ? array_from(v, n) : Py_NewRef(Py_None);
        out = ra && va ? PyTuple_Pack(2, ra, va) : NULL;
        Py_XDECREF(ra);
        Py_XDECREF(va);
    }
    free(r);
    free(v);
    return out;
}

/* ------------------------------------------------------------------ */
/* options by name                                                     */
/* ------------------------------------------------------------------ */

/* Applies [(name, value-as-text), ...] with fc_options_set. */
static int apply_settings(fc_options *opt, PyObject *settings)
{
    if (settings == Py_None) return 0;
    PyObject *seq = PySequence_Fast(settings, "settings must be a sequence of (name, value)");
    if (!seq) return -1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        const char *name, *value;
        if (!PyArg_ParseTuple(item, "ss", &name, &value)) { Py_DECREF(seq); return -1; }
        fc_error err;
        if (fc_options_set(opt, name, value, &err)) { Py_DECREF(seq); raise_fc(&err); return -1; }
    }
    Py_DECREF(seq);
    fc_error err;
    if (fc_options_validate(opt, &err)) { raise_fc(&err); return -1; }
    return 0;
}

static PyObject *options_list(PyObject *mod, PyObject *noarg)
{
    (void)mod; (void)noarg;
    fc_options def;
    fc_default_options(&def);
    PyObject *list = PyList_New(0);
    if (!list) return NULL;
    for (int i = 0; fc_option_at(i); i++) {
        const fc_option_info *o = fc_option_at(i);
        const char *field = (const char *)&def + o->offset;
        char range[128];
        fc_option_range(o, range, sizeof range);
        PyObject *dv;
        const char *type;
        if (o->type == FC_OPTION_DOUBLE) { type = "float"; dv = PyFloat_FromDouble(*(const double *)(const void *)field); }
        else if (o->type == FC_OPTION_INT || o->type == FC_OPTION_ENUM) {
            type = "int";   /* an enum field is int-sized (checked where the table is built) */
            dv = PyLong_FromLong(*(const int *)(const void *)field);
        } else if (o->type == FC_OPTION_UNSIGNED) {
            type = "int";
            dv = PyLong_FromUnsignedLong(*(const unsigned *)(const void *)field);
        } else {
            type = "solver";
            const char *s = *(const char *const *)(const void *)field;
            dv = s ? PyUnicode_FromString(s) : (Py_INCREF(Py_None), Py_None);
        }
        if (!dv) { Py_DECREF(list); return NULL; }
        PyObject *t = Py_BuildValue("(sssNsdd)", o->name, o->help ? o->help : "", type, dv, range,
                                    o->lo, o->hi);
        if (!t || PyList_Append(list, t)) { Py_XDECREF(t); Py_DECREF(list); return NULL; }
        Py_DECREF(t);
    }
    return list;
}

static PyObject *solvers_list(PyObject *mod, PyObject *noarg)
{
    (void)mod; (void)noarg;
    PyObject *list = PyList_New(0);
    if (!list) return NULL;
    const char *def = fc_default_solver();
    for (int i = 0; i < fc_solver_count(); i++) {
        const fc_solver *s = fc_solver_at(i);
        PyObject *dims = PyList_New(0);
        if (!dims) { Py_DECREF(list); return NULL; }
        for (int d = 2; d <= 5; d++)
            if (s->dims & FC_DIM(d)) {
                PyObject *v = PyLong_FromLong(d);
                if (!v || PyList_Append(dims, v)) { Py_XDECREF(v); Py_DECREF(dims); Py_DECREF(list); return NULL; }
                Py_DECREF(v);
            }
        PyObject *t = Py_BuildValue("(ssNOO)", s->name, s->description ? s->description : "", dims,
                                    !strcmp(s->name, def) ? Py_True : Py_False,
                                    s->solve_global ? Py_True : Py_False);
        if (!t || PyList_Append(list, t)) { Py_XDECREF(t); Py_DECREF(list); return NULL; }
        Py_DECREF(t);
    }
    return list;
}

/* ------------------------------------------------------------------ */
/* threads of the BLAS / OpenMP (process-wide)                         */
/* ------------------------------------------------------------------ */

/* The command runs single-threaded BLAS (app/fricon.c); solve(threads=None)
 * does the same during a solve and restores the previous count after the
 * last concurrent solve (counted under the GIL). */
static int active_solves = 0, saved_blas_threads = -1;

static void set_blas_threads(int n)
{
    void *sym = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    if (sym) {
        void (*set)(int);
        memcpy(&set, &sym, sizeof set);
        set(n);
    }
    sym = dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    if (sym) {
        void (*set)(int);
        memcpy(&set, &sym, sizeof set);
        set(n);
    }
}

static int get_blas_threads(void)
{
    void *sym = dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
    if (!sym) return -1;
    int (*get)(void);
    memcpy(&get, &sym, sizeof get);
    return get();
}

static void threads_enter(int n)
{
    if (active_solves++ == 0) saved_blas_threads = get_blas_threads();
    if (n > 0) set_blas_threads(n);
}

static void threads_leave(void)
{
    if (--active_solves == 0 && saved_blas_threads > 0) set_blas_threads(saved_blas_threads);
}

/* ------------------------------------------------------------------ */
/* progress: history and a Python callback                             */
/* ------------------------------------------------------------------ */

typedef struct {
    int record;
    int n, cap;
    int *it;
    double *err;
    PyObject *callback;       /* borrowed; called with the GIL taken   */
    PyObject *exc[3];         /* an exception raised by the callback   */
} progress_rec;

static int progress_fn(void *user, int iteration, double error)
{
    progress_rec *rec = user;
    if (rec->record) {
        if (rec->n == rec->cap) {
            int cap = rec->cap ? 2 * rec->cap : 256;
            int *it = realloc(rec->it, (size_t)cap * sizeof *it);
            if (it) rec->it = it;
            double *er = it ? realloc(rec->err, (size_t)cap * sizeof *er) : NULL;
            if (er) { rec->err = er; rec->cap = cap; }
        }
        if (rec->n < rec->cap) {
            rec->it[rec->n] = iteration;
            rec->err[rec->n] = error;
            rec->n++;
        }
    }
    if (!rec->callback || rec->exc[0]) return rec->exc[0] != NULL;
    int stop = 0;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *res = PyObject_CallFunction(rec->callback, "id", iteration, error);
    if (!res) {
        PyErr_Fetch(&rec->exc[0], &rec->exc[1], &rec->exc[2]);
        if (!rec->exc[0]) { Py_INCREF(PyExc_RuntimeError); rec->exc[0] = PyExc_RuntimeError; }
        stop = 1;
    } else {
        stop = PyObject_IsTrue(res) > 0;
        Py_DECREF(res);
    }
    PyGILState_Release(g);
    return stop;
}

/* ------------------------------------------------------------------ */
/* solve                                                               */
/* ------------------------------------------------------------------ */

static PyObject *info_dict(const fc_info *info)
{
    PyObject *stages = PyList_New(info->nstages);
    if (!stages) return NULL;
    for (int k = 0; k < info->nstages; k++) {
        const fc_stage *s = &info->stages[k];
        PyObject *t = Py_BuildValue("{s:s,s:s,s:i,s:d,s:d}", "solver", s->solver, "status",
                                    fc_status_name(s->status), "iterations", s->iterations,
                                    "residual", s->residual, "seconds", s->seconds);
        if (!t) { Py_DECREF(stages); return NULL; }
        PyList_SET_ITEM(stages, k, t);
    }
    return Py_BuildValue("{s:s,s:i,s:d,s:d,s:d,s:d,s:s,s:N}", "status", fc_status_name(info->status),
                         "iterations", info->iterations, "residual", info->residual,
                         "dyn_residual", info->dyn_residual, "eq_residual", info->eq_residual,
                         "seconds", info->seconds, "message", info->message, "stages", stages);
}

static int dict_put(PyObject *d, const char *key, PyObject *value)
{
    if (!value) return -1;
    int rc = PyDict_SetItemString(d, key, value);
    Py_DECREF(value);
    return rc;
}

/* A finite vector argument of n values (NULL with an exception set). */
static PyArrayObject *finite_vector_arg(PyObject *obj, npy_intp n, const char *name)
{
    PyArrayObject *a = vector_arg(obj, n, name);
    if (!a) return NULL;
    const double *x = PyArray_DATA(a);
    for (npy_intp i = 0; i < n; i++)
        if (!isfinite(x[i])) {
            PyErr_Format(PyExc_ValueError, "%s[%zd] is not finite", name, (Py_ssize_t)i);
            Py_DECREF(a);
            return NULL;
        }
    return a;
}

/* solve(problem, solver, settings, r0, lambda0, threads, history, callback) */
static PyObject *solve(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *pobj, *settings, *r0obj, *lam0obj, *callback;
    const char *solver;
    int threads, history;
    if (!PyArg_ParseTuple(args, "OsOOOipO", &pobj, &solver, &settings, &r0obj, &lam0obj, &threads,
                          &history, &callback))
        return NULL;
    ProblemObject *po = problem_arg(pobj);
    if (!po) return NULL;
    const fc_problem *p = po->p;
    if (!fc_solver_find(solver)) {
        PyErr_Format(PyExc_ValueError, "unknown solver '%s' (see fricon.solvers())", solver);
        return NULL;
    }
    if (callback != Py_None && !PyCallable_Check(callback)) {
        PyErr_SetString(PyExc_TypeError, "callback must be callable");
        return NULL;
    }
    fc_options opt;
    fc_default_options(&opt);
    if (apply_settings(&opt, settings)) return NULL;
    npy_intp m = fc_problem_m(p), n = p->kind == FC_GLOBAL ? p->n : 0, neq = p->neq;
    PyArrayObject *r0 = NULL, *lam0 = NULL;
    if (r0obj != Py_None && !(r0 = finite_vector_arg(r0obj, m, "r0"))) return NULL;
    if (lam0obj != Py_None) {
        if (neq == 0) {
            Py_XDECREF(r0);
            PyErr_SetString(PyExc_ValueError, "lambda0 given for a problem without equality constraints");
            return NULL;
        }
        if (!(lam0 = finite_vector_arg(lam0obj, neq, "lambda0"))) {
            Py_XDECREF(r0);
            return NULL;
        }
    }
    PyObject *r = PyArray_ZEROS(1, &m, NPY_DOUBLE, 0);
    PyObject *u = r ? PyArray_ZEROS(1, &m, NPY_DOUBLE, 0) : NULL;
    PyObject *v = u && n ? PyArray_ZEROS(1, &n, NPY_DOUBLE, 0) : NULL;
    PyObject *lam = u && neq ? PyArray_ZEROS(1, &neq, NPY_DOUBLE, 0) : NULL;
    if (!u || (n && !v) || (neq && !lam)) {
        Py_XDECREF(r0); Py_XDECREF(lam0); Py_XDECREF(r); Py_XDECREF(u); Py_XDECREF(v);
        return NULL;
    }
    if (r0) {
        memcpy(PyArray_DATA((PyArrayObject *)r), PyArray_DATA(r0), (size_t)m * sizeof(double));
        opt.r0 = PyArray_DATA(r0);
    }
    if (lam0) opt.lambda0 = PyArray_DATA(lam0);
    progress_rec rec = {history, 0, 0, NULL, NULL, callback != Py_None ? callback : NULL, {NULL, NULL, NULL}};
    if (history || rec.callback) {
        opt.progress = progress_fn;
        opt.progress_user = &rec;
    }
    fc_info info;
    memset(&info, 0, sizeof info);
    fc_error err;
    fc_err rc;
    threads_enter(threads);
    Py_INCREF(pobj); /* the problem stays alive while the GIL is released */
    Py_BEGIN_ALLOW_THREADS
    rc = fc_solve_eq(p, solver, &opt, PyArray_DATA((PyArrayObject *)r), PyArray_DATA((PyArrayObject *)u),
                     v ? PyArray_DATA((PyArrayObject *)v) : NULL, lam ? PyArray_DATA((PyArrayObject *)lam) : NULL,
                     &info, &err);
    Py_END_ALLOW_THREADS
    Py_DECREF(pobj);
    threads_leave();
    Py_XDECREF(r0);
    Py_XDECREF(lam0);
    PyObject *out = NULL;
    if (rec.exc[0]) {
        PyErr_Restore(rec.exc[0], rec.exc[1], rec.exc[2]);
        goto fail;
    }
    if (rc) { raise_fc(&err); goto fail; }
    if (!(out = info_dict(&info))) goto fail;
    if (dict_put(out, "r", (Py_INCREF(r), r)) || dict_put(out, "u", (Py_INCREF(u), u))) goto fail;
    if (v) { if (dict_put(out, "v", (Py_INCREF(v), v))) goto fail; }
    else if (PyDict_SetItemString(out, "v", Py_None)) goto fail;
    if (lam) { if (dict_put(out, "lambda", (Py_INCREF(lam), lam))) goto fail; }
    else if (PyDict_SetItemString(out, "lambda", Py_None)) goto fail;
    if (history) {
        if (dict_put(out, "history_iterations", int_array_from(rec.it, rec.n)) ||
            dict_put(out, "history_errors", array_from(rec.err, rec.n)))
            goto fail;
    }
    free(rec.it);
    free(rec.err);
    Py_DECREF(r); Py_DECREF(u); Py_XDECREF(v); Py_XDECREF(lam);
    return out;
fail:
    free(rec.it);
    free(rec.err);
    Py_XDECREF(out);
    Py_DECREF(r); Py_DECREF(u); Py_XDECREF(v); Py_XDECREF(lam);
    return NULL;
}

/* residual(problem, r, u, v) -> (error, dyn or None) */
static PyObject *residual(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *pobj, *robj, *uobj, *vobj;
    if (!PyArg_ParseTuple(args, "OOOO", &pobj, &robj, &uobj, &vobj)) return NULL;
    ProblemObject *po = problem_arg(pobj);
    if (!po) return NULL;
    const fc_problem *p = po->p;
    npy_intp m = fc_problem_m(p);
    PyArrayObject *r = vector_arg(robj, m, "r"), *u = NULL, *v = NULL;
    if (!r) return NULL;
    if (uobj != Py_None && !(u = vector_arg(uobj, m, "u"))) { Py_DECREF(r); return NULL; }
    if (vobj != Py_None) {
        if (p->kind != FC_GLOBAL) {
            PyErr_SetString(PyExc_ValueError, "v is only for global problems");
            Py_DECREF(r); Py_XDECREF(u); return NULL;
        }
        if (!(v = vector_arg(vobj, p->n, "v"))) { Py_DECREF(r); Py_XDECREF(u); return NULL; }
    }
    double e, dyn = NAN;
    int has_dyn = p->kind == FC_GLOBAL;
    Py_BEGIN_ALLOW_THREADS
    if (u) {
        e = fc_error_local(p, PyArray_DATA(r), PyArray_DATA(u));
        if (has_dyn) {
            /* dynamics with the given v, or with v recomputed from r */
            dyn = NAN;
            double *vv = v ? NULL : calloc((size_t)p->n, sizeof *vv);
            fc_error err;
            const double *vp = v ? (const double *)PyArray_DATA(v) : NULL;
            if (!v && vv && fc_problem_recover_v(p, PyArray_DATA(r), vv, &err) == FC_OK) vp = vv;
            if (vp) {
                /* fc_residual's dynamics part with this v */
                double *t = calloc((size_t)p->n, sizeof *t);
                if (t) {
                    fc_matrix_gemv(p->M, 1.0, vp, 0.0, t);
                    fc_matrix_gemv(p->H, -1.0, PyArray_DATA(r), 1.0, t);
                    double s2 = 0, f2 = 0;
                    for (int i = 0; i < p->n; i++) {
                        t[i] -= p->f[i];
                        s2 += t[i] * t[i];
                        f2 += p->f[i] * p->f[i];
                    }
                    dyn = sqrt(s2) / fmax(1.0, sqrt(f2));
                    free(t);
                }
            }
            free(vv);
        }
    } else {
        e = fc_residual(p, PyArray_DATA(r), v ? PyArray_DATA(v) : NULL, has_dyn ? &dyn : NULL);
    }
    Py_END_ALLOW_THREADS
    Py_DECREF(r); Py_XDECREF(u); Py_XDECREF(v);
    if (has_dyn) return Py_BuildValue("(dd)", e, dyn);
    return Py_BuildValue("(dO)", e, Py_None);
}

/* diagnose(problem, r, u) -> (laws int8[nc], errors[nc]) */
static PyObject *diagnose(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *pobj, *robj, *uobj;
    if (!PyArg_ParseTuple(args, "OOO", &pobj, &robj, &uobj)) return NULL;
    ProblemObject *po = problem_arg(pobj);
    if (!po) return NULL;
    const fc_problem *p = po->p;
    npy_intp m = fc_problem_m(p), nc = p->nc;
    PyArrayObject *r = vector_arg(robj, m, "r"), *u = r ? vector_arg(uobj, m, "u") : NULL;
    if (!u) { Py_XDECREF(r); return NULL; }
    fc_contact_diag *dg = calloc((size_t)(nc ? nc : 1), sizeof *dg);
    PyObject *laws = dg ? PyArray_SimpleNew(1, &nc, NPY_INT8) : NULL;
    PyObject *errs = laws ? PyArray_SimpleNew(1, &nc, NPY_DOUBLE) : NULL;
    if (!errs) {
        free(dg); Py_XDECREF(laws); Py_DECREF(r); Py_DECREF(u);
        return dg ? NULL : PyErr_NoMemory();
    }
    fc_diagnose(p, PyArray_DATA(r), PyArray_DATA(u), dg);
    signed char *L = PyArray_DATA((PyArrayObject *)laws);
    double *E = PyArray_DATA((PyArrayObject *)errs);
    for (npy_intp a = 0; a < nc; a++) { L[a] = (signed char)dg[a].law; E[a] = dg[a].error; }
    free(dg);
    Py_DECREF(r); Py_DECREF(u);
    return Py_BuildValue("(NN)", laws, errs);
}

/* ------------------------------------------------------------------ */
/* the simulator: World                                                */
/* ------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    fc_mbd_world *w;
    int busy;     /* a step is running (the GIL released): refuse changes */
} WorldObject;

static void world_dealloc(WorldObject *self)
{
    fc_mbd_world_free(self->w);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int world_check(WorldObject *self)
{
    if (!self->w) { PyErr_SetString(PyExc_ValueError, "empty world"); return -1; }
    if (self->busy) { PyErr_SetString(PyExc_RuntimeError, "the world is stepping in another thread"); return -1; }
    return 0;
}

static PyObject *world_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"scene", "count", "mu", "angle", "seed", NULL};
    const char *scene = NULL;
    int count = 0;
    double mu = -1, angle = NAN;
    long seed = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|ziddl:World", kwlist, &scene, &count, &mu, &angle, &seed))
        return NULL;
    WorldObject *self = (WorldObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    if (scene) {
        fc_mbd_scene_params par;
        fc_mbd_scene_defaults(&par);
        if (count > 0) par.count = count;
        if (mu >= 0) par.mu = mu;
        if (!isnan(angle)) par.angle_deg = angle;
        if (seed >= 0) par.seed = (unsigned)seed;
        fc_error err;
        if (fc_mbd_scene(scene, &par, &self->w, &err)) { Py_DECREF(self); return raise_fc(&err); }
    } else if (!(self->w = fc_mbd_world_new())) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject *)self;
}

static PyObject *world_add_sphere(WorldObject *self, PyObject *args)
{
    double r, rho, x, y, z;
    if (world_check(self) || !PyArg_ParseTuple(args, "ddddd", &r, &rho, &x, &y, &z)) return NULL;
    if (!(r > 0) || !(rho > 0) || !isfinite(x + y + z)) {
        PyErr_SetString(PyExc_ValueError, "add_sphere: radius and density must be > 0, the position finite");
        return NULL;
    }
    int i = fc_mbd_add_sphere(self->w, r, rho, x, y, z);
    if (i < 0) { PyErr_SetString(PyExc_ValueError, "add_sphere failed"); return NULL; }
    return PyLong_FromLong(i);
}

static PyObject *world_add_box(WorldObject *self, PyObject *args)
{
    double hx, hy, hz, rho, x, y, z;
    if (world_check(self) || !PyArg_ParseTuple(args, "ddddddd", &hx, &hy, &hz, &rho, &x, &y, &z)) return NULL;
    if (!(hx > 0 && hy > 0 && hz > 0) || !(rho > 0) || !isfinite(x + y + z)) {
        PyErr_SetString(PyExc_ValueError, "add_box: half extents and density must be > 0, the position finite");
        return NULL;
    }
    int i = fc_mbd_add_box(self->w, hx, hy, hz, rho, x, y, z);
    if (i < 0) { PyErr_SetString(PyExc_ValueError, "add_box failed"); return NULL; }
    return PyLong_FromLong(i);
}

static PyObject *world_add_plane(WorldObject *self, PyObject *args)
{
    double nx, ny, nz, px, py, pz;
    if (world_check(self) || !PyArg_ParseTuple(args, "dddddd", &nx, &ny, &nz, &px, &py, &pz)) return NULL;
    if (!(nx * nx + ny * ny + nz * nz > 0) || !isfinite(nx + ny + nz + px + py + pz)) {
        PyErr_SetString(PyExc_ValueError, "add_plane: the normal must be nonzero and finite");
        return NULL;
    }
    int i = fc_mbd_add_plane(self->w, nx, ny, nz, px, py, pz);
    if (i < 0) { PyErr_SetString(PyExc_ValueError, "add_plane failed"); return NULL; }
    return PyLong_FromLong(i);
}

/* bodies() -> dict of arrays: shape (int8), x (nb,3), q (nb,4), v, omega,
 * mass, mu, fixed, radius, half (nb,3) */
static PyObject *world_bodies(WorldObject *self, PyObject *noarg)
{
    (void)noarg;
    if (world_check(self)) return NULL;
    npy_intp nb = fc_mbd_body_count(self->w);
    npy_intp d3[2] = {nb, 3}, d4[2] = {nb, 4};
    PyArrayObject *shape = (PyArrayObject *)PyArray_SimpleNew(1, &nb, NPY_INT8);
    PyArrayObject *x = (PyArrayObject *)PyArray_SimpleNew(2, d3, NPY_DOUBLE);
    PyArrayObject *q = (PyArrayObject *)PyArray_SimpleNew(2, d4, NPY_DOUBLE);
    PyArrayObject *v = (PyArrayObject *)PyArray_SimpleNew(2, d3, NPY_DOUBLE);
    PyArrayObject *om = (PyArrayObject *)PyArray_SimpleNew(2, d3, NPY_DOUBLE);
    PyArrayObject *half = (PyArrayObject *)PyArray_SimpleNew(2, d3, NPY_DOUBLE);
    PyArrayObject *mass = (PyArrayObject *)PyArray_SimpleNew(1, &nb, NPY_DOUBLE);
    PyArrayObject *mu = (PyArrayObject *)PyArray_SimpleNew(1, &nb, NPY_DOUBLE);
    PyArrayObject *rad = (PyArrayObject *)PyArray_SimpleNew(1, &nb, NPY_DOUBLE);
    PyArrayObject *fixed = (PyArrayObject *)PyArray_SimpleNew(1, &nb, NPY_BOOL);
    if (!shape || !x || !q || !v || !om || !half || !mass || !mu || !rad || !fixed) {
        Py_XDECREF(shape); Py_XDECREF(x); Py_XDECREF(q); Py_XDECREF(v); Py_XDECREF(om);
        Py_XDECREF(half); Py_XDECREF(mass); Py_XDECREF(mu); Py_XDECREF(rad); Py_XDECREF(fixed);
        return NULL;
    }
    for (npy_intp i = 0; i < nb; i++) {
        const fc_mbd_body *b = fc_mbd_body_at(self->w, (int)i);
        ((signed char *)PyArray_DATA(shape))[i] = (signed char)b->shape;
        for (int k = 0; k < 3; k++) {
            ((double *)PyArray_DATA(x))[3 * i + k] = b->x[k];
            ((double *)PyArray_DATA(v))[3 * i + k] = b->v[k];
            ((double *)PyArray_DATA(om))[3 * i + k] = b->omega[k];
            ((double *)PyArray_DATA(half))[3 * i + k] = b->half[k];
        }
        for (int k = 0; k < 4; k++) ((double *)PyArray_DATA(q))[4 * i + k] = b->q[k];
        ((double *)PyArray_DATA(mass))[i] = b->mass;
        ((double *)PyArray_DATA(mu))[i] = b->mu;
        ((double *)PyArray_DATA(rad))[i] = b->radius;
        ((npy_bool *)PyArray_DATA(fixed))[i] = b->fixed != 0;
    }
    return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N}", "shape", shape, "x", x, "q", q,
                         "v", v, "omega", om, "half", half, "mass", mass, "mu", mu, "radius", rad,
                         "fixed", fixed);
}

/* set_body(i, field, values): field x, q, v, omega (3 or 4 values), mu,
 * mass (a number) */
static PyObject *world_set_body(WorldObject *self, PyObject *args)
{
    int i;
    const char *field;
    PyObject *val;
    if (world_check(self) || !PyArg_ParseTuple(args, "isO", &i, &field, &val)) return NULL;
    fc_mbd_body *b = fc_mbd_body_at(self->w, i);
    if (!b) { PyErr_Format(PyExc_IndexError, "no body %d", i); return NULL; }
    if (!strcmp(field, "mu") || !strcmp(field, "mass")) {
        double x = PyFloat_AsDouble(val);
        if (PyErr_Occurred()) return NULL;
        if (!(x >= 0) || !isfinite(x) || (!strcmp(field, "mass") && !(x > 0))) {
            PyErr_Format(PyExc_ValueError, "%s = %g out of range", field, x);
            return NULL;
        }
        if (!strcmp(field, "mu")) b->mu = x;
        else if (b->shape == FC_MBD_PLANE || b->fixed) { PyErr_SetString(PyExc_ValueError, "a fixed body has no mass"); return NULL; }
        else fc_mbd_set_mass(b, x);
        Py_RETURN_NONE;
    }
    double *dst;
    int n = 3;
    if (!strcmp(field, "x")) dst = b->x;
    else if (!strcmp(field, "v")) dst = b->v;
    else if (!strcmp(field, "omega")) dst = b->omega;
    else if (!strcmp(field, "q")) { dst = b->q; n = 4; }
    else { PyErr_Format(PyExc_KeyError, "no body field '%s' (x, q, v, omega, mu, mass)", field); return NULL; }
    PyArrayObject *a = vector_arg(val, n, field);
    if (!a) return NULL;
    const double *s = PyArray_DATA(a);
    double nrm = 0;
    for (int k = 0; k < n; k++) {
        if (!isfinite(s[k])) { Py_DECREF(a); PyErr_Format(PyExc_ValueError, "%s has a non-finite value", field); return NULL; }
        nrm += s[k] * s[k];
    }
    if (n == 4 && !(nrm > 0)) { Py_DECREF(a); PyErr_SetString(PyExc_ValueError, "q must be a nonzero quaternion"); return NULL; }
    for (int k = 0; k < n; k++) dst[k] = n == 4 ? s[k] / sqrt(nrm) : s[k];
    Py_DECREF(a);
    Py_RETURN_NONE;
}

static PyObject *world_contacts(WorldObject *self, PyObject *noarg)
{
    (void)noarg;
    if (world_check(self)) return NULL;
    npy_intp nc = fc_mbd_contact_count(self->w);
    npy_intp d2[2] = {nc, 2}, d3[2] = {nc, 3};
    PyArrayObject *bodies = (PyArrayObject *)PyArray_SimpleNew(2, d2, NPY_INT32);
    PyArrayObject *p = (PyArrayObject *)PyArray_SimpleNew(2, d3, NPY_DOUBLE);
    PyArrayObject *n = (PyArrayObject *)PyArray_SimpleNew(2, d3, NPY_DOUBLE);
    PyArrayObject *r = (PyArrayObject *)PyArray_SimpleNew(2, d3, NPY_DOUBLE);
    PyArrayObject *gap = (PyArrayObject *)PyArray_SimpleNew(1, &nc, NPY_DOUBLE);
    PyArrayObject *mu = (PyArrayObject *)PyArray_SimpleNew(1, &nc, NPY_DOUBLE);
    if (!bodies || !p || !n || !r || !gap || !mu) {
        Py_XDECREF(bodies); Py_XDECREF(p); Py_XDECREF(n); Py_XDECREF(r); Py_XDECREF(gap); Py_XDECREF(mu);
        return NULL;
    }
    for (npy_intp a = 0; a < nc; a++) {
        const fc_mbd_contact *c = fc_mbd_contact_at(self->w, (int)a);
        ((int *)PyArray_DATA(bodies))[2 * a] = c->a;
        ((int *)PyArray_DATA(bodies))[2 * a + 1] = c->b;
        for (int k = 0; k < 3; k++) {
            ((double *)PyArray_DATA(p))[3 * a + k] = c->p[k];
            ((double *)PyArray_DATA(n))[3 * a + k] = c->n[k];
            ((double *)PyArray_DATA(r))[3 * a + k] = c->r[k];
        }
        ((double *)PyArray_DATA(gap))[a] = c->gap;
        ((double *)PyArray_DATA(mu))[a] = c->mu;
    }
    return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N}", "bodies", bodies, "point", p, "normal", n,
                         "impulse", r, "gap", gap, "mu", mu);
}

/* set(gravity=(gx, gy, gz), dt=h, margin=m, stabilisation=s, general_reduction=b) */
static PyObject *world_set(WorldObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"gravity", "dt", "margin", "stabilisation", "general_reduction", NULL};
    PyObject *g = Py_None;
    double h = NAN, margin = NAN, stab = NAN;
    int gen = -1;
    if (world_check(self) ||
        !PyArg_ParseTupleAndKeywords(args, kw, "|Odddi:set", kwlist, &g, &h, &margin, &stab, &gen))
        return NULL;
    if (g != Py_None) {
        PyArrayObject *a = vector_arg(g, 3, "gravity");
        if (!a) return NULL;
        const double *x = PyArray_DATA(a);
        if (!isfinite(x[0] + x[1] + x[2])) { Py_DECREF(a); PyErr_SetString(PyExc_ValueError, "gravity must be finite"); return NULL; }
        fc_mbd_set_gravity(self->w, x[0], x[1], x[2]);
        Py_DECREF(a);
    }
    if (!isnan(h)) {
        if (!(h > 0) || !isfinite(h)) { PyErr_SetString(PyExc_ValueError, "dt must be > 0"); return NULL; }
        fc_mbd_set_step(self->w, h);
    }
    if (!isnan(margin)) {
        if (!(margin >= 0) || !isfinite(margin)) { PyErr_SetString(PyExc_ValueError, "margin must be >= 0"); return NULL; }
        fc_mbd_set_margin(self->w, margin);
    }
    if (!isnan(stab)) {
        if (!(stab >= 0) || !isfinite(stab)) { PyErr_SetString(PyExc_ValueError, "stabilisation must be >= 0"); return NULL; }
        fc_mbd_set_stabilisation(self->w, stab);
    }
    if (gen >= 0) fc_mbd_set_general_reduction(self->w, gen);
    Py_RETURN_NONE;
}

static PyObject *world_state(WorldObject *self, PyObject *noarg)
{
    (void)noarg;
    if (world_check(self)) return NULL;
    return Py_BuildValue("{s:d,s:d,s:d}", "time", fc_mbd_time(self->w), "dt", fc_mbd_step_size(self->w),
                         "kinetic_energy", fc_mbd_kinetic_energy(self->w));
}

/* step(solver, settings, threads) -> dict */
static PyObject *world_step(WorldObject *self, PyObject *args)
{
    const char *solver;
    PyObject *settings;
    int threads;
    if (world_check(self) || !PyArg_ParseTuple(args, "sOi", &solver, &settings, &threads)) return NULL;
    if (!fc_solver_find(solver)) {
        PyErr_Format(PyExc_ValueError, "unknown solver '%s' (see fricon.solvers())", solver);
        return NULL;
    }
    fc_options opt;
    fc_default_options(&opt);
    if (apply_settings(&opt, settings)) return NULL;
    fc_mbd_step_info si;
    memset(&si, 0, sizeof si);
    fc_error err;
    fc_err rc;
    self->busy = 1;
    Py_INCREF(self);
    threads_enter(threads);
    Py_BEGIN_ALLOW_THREADS
    rc = fc_mbd_step(self->w, solver, &opt, &si, &err);
    Py_END_ALLOW_THREADS
    threads_leave();
    self->busy = 0;
    Py_DECREF(self);
    if (rc) return raise_fc(&err);
    PyObject *solve = info_dict(&si.solve);
    if (!solve) return NULL;
    return Py_BuildValue("{s:i,s:d,s:i,s:i,s:i,s:N,s:d,s:d,s:d,s:d,s:d,s:d,s:d}", "step", si.step,
                         "time", si.time, "ncontacts", si.ncontacts, "npairs", si.npairs, "warm",
                         si.warm, "solve", solve, "global_residual", si.global_residual, "t_detect",
                         si.t_detect, "t_build", si.t_build, "t_solve", si.t_solve, "t_step",
                         si.t_step, "max_speed", si.max_speed, "min_gap", si.min_gap);
}

/* last_problem(local=False) -> Problem copy or None */
static PyObject *world_last_problem(WorldObject *self, PyObject *args)
{
    int local = 0;
    if (world_check(self) || !PyArg_ParseTuple(args, "|p", &local)) return NULL;
    const fc_problem *p = local ? fc_mbd_last_local_problem(self->w) : fc_mbd_last_problem(self->w);
    if (!p) Py_RETURN_NONE;
    fc_problem *c = problem_copy(p);
    if (!c) return PyErr_NoMemory();
    return problem_wrap(c);
}

static PyObject *world_detect(WorldObject *self, PyObject *noarg)
{
    (void)noarg;
    if (world_check(self)) return NULL;
    int n = fc_mbd_detect(self->w);
    if (n < 0) return PyErr_NoMemory();
    return PyLong_FromLong(n);
}

static PyObject *world_build_problem(WorldObject *self, PyObject *noarg)
{
    (void)noarg;
    if (world_check(self)) return NULL;
    fc_problem *p = NULL;
    fc_error err;
    if (fc_mbd_build_problem(self->w, &p, &err)) return raise_fc(&err);
    if (!p) Py_RETURN_NONE;
    return problem_wrap(p);
}

static PyObject *world_write_vtk(WorldObject *self, PyObject *args)
{
    PyObject *bytes;
    double size = 10;
    if (world_check(self) || !PyArg_ParseTuple(args, "O&|d", PyUnicode_FSConverter, &bytes, &size)) return NULL;
    fc_error err;
    fc_err rc = fc_mbd_write_vtk(self->w, PyBytes_AS_STRING(bytes), size, &err);
    Py_DECREF(bytes);
    if (rc) return raise_fc(&err);
    Py_RETURN_NONE;
}

static PyMethodDef world_methods[] = {
    {"add_sphere", (PyCFunction)world_add_sphere, METH_VARARGS, "add_sphere(radius, density, x, y, z) -> index"},
    {"add_box", (PyCFunction)world_add_box, METH_VARARGS, "add_box(hx, hy, hz, density, x, y, z) -> index"},
    {"add_plane", (PyCFunction)world_add_plane, METH_VARARGS, "add_plane(nx, ny, nz, px, py, pz) -> index"},
    {"bodies", (PyCFunction)world_bodies, METH_NOARGS, "the bodies' state as a dict of arrays"},
    {"set_body", (PyCFunction)world_set_body, METH_VARARGS, "set_body(i, field, value)"},
    {"contacts", (PyCFunction)world_contacts, METH_NOARGS, "the current contacts as a dict of arrays"},
    {"set", (PyCFunction)(void (*)(void))world_set, METH_VARARGS | METH_KEYWORDS, "settings"},
    {"state", (PyCFunction)world_state, METH_NOARGS, "time, dt, kinetic energy"},
    {"step", (PyCFunction)world_step, METH_VARARGS, "step(solver, settings, threads) -> dict"},
    {"last_problem", (PyCFunction)world_last_problem, METH_VARARGS, "the last step's problem (a copy)"},
    {"detect", (PyCFunction)world_detect, METH_NOARGS, "detect contacts, return their number"},
    {"build_problem", (PyCFunction)world_build_problem, METH_NOARGS, "the global problem at the current state"},
    {"write_vtk", (PyCFunction)world_write_vtk, METH_VARARGS, "write_vtk(path, plane_size=10)"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject WorldType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "fricon._fricon.World",
    .tp_basicsize = sizeof(WorldObject),
    .tp_dealloc = (destructor)world_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "World(scene=None, count=0, mu=-1, angle=nan, seed=-1): an fc_mbd_world",
    .tp_methods = world_methods,
    .tp_new = world_new,
};

static PyObject *scenes_list(PyObject *mod, PyObject *noarg)
{
    (void)mod; (void)noarg;
    PyObject *list = PyList_New(0);
    if (!list) return NULL;
    for (int i = 0; i < fc_mbd_scene_count(); i++) {
        PyObject *t = Py_BuildValue("(ss)", fc_mbd_scene_name(i), fc_mbd_scene_description(i));
        if (!t || PyList_Append(list, t)) { Py_XDECREF(t); Py_DECREF(list); return NULL; }
        Py_DECREF(t);
    }
    return list;
}

/* ------------------------------------------------------------------ */
/* module                                                              */
/* ------------------------------------------------------------------ */

static PyMethodDef module_methods[] = {
    {"read", read_problem, METH_O, "read(path) -> Problem"},
    {"read_guess", read_guess, METH_VARARGS, "read_guess(path, problem) -> (r, v) or None"},
    {"make_local", make_local, METH_VARARGS, "make_local(d, W, q, mu, mu_r)"},
    {"make_global", make_global, METH_VARARGS, "make_global(d, M, H, f, w, mu, mu_r)"},
    {"solve", solve, METH_VARARGS, "solve(problem, solver, settings, r0, lambda0, threads, history, callback)"},
    {"residual", residual, METH_VARARGS, "residual(problem, r, u, v) -> (error, dyn)"},
    {"diagnose", diagnose, METH_VARARGS, "diagnose(problem, r, u) -> (laws, errors)"},
    {"options", options_list, METH_NOARGS, "[(name, help, type, default, range, lo, hi)]"},
    {"solvers", solvers_list, METH_NOARGS, "[(name, description, dims, is_default, has_global)]"},
    {"scenes", scenes_list, METH_NOARGS, "[(name, description)]"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "fricon._fricon",
                                       "libfricon from Python (see the fricon package)", -1,
                                       module_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fricon(void)
{
    import_array();
    if (PyType_Ready(&ProblemType) < 0 || PyType_Ready(&WorldType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    Py_INCREF(&ProblemType);
    Py_INCREF(&WorldType);
    if (PyModule_AddObject(m, "Problem", (PyObject *)&ProblemType) < 0 ||
        PyModule_AddObject(m, "World", (PyObject *)&WorldType) < 0 ||
        PyModule_AddStringConstant(m, "VERSION", FRICON_VERSION) < 0 ||
        PyModule_AddStringConstant(m, "DEFAULT_SOLVER", fc_default_solver()) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
