/* Problems: allocation, names and validation. */
#include "internal.h"
#include "linsys/linsys.h"

#include <stdio.h>

/* A problem of the given kind with mu (and mu_r when d == 5) allocated. */
fc_problem *fc_problem_new(fc_kind kind, int d, int nc)
{
    if (nc < 0 || (d != 2 && d != 3 && d != 5)) return NULL;
    fc_problem *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->kind = kind;
    p->d = d;
    p->nc = nc;
    p->mu = fc_calloc((size_t)nc, sizeof *p->mu);
    if (d == 5) p->mu_r = fc_calloc((size_t)nc, sizeof *p->mu_r);
    if (!p->mu || (d == 5 && !p->mu_r)) { fc_problem_free(p); return NULL; }
    return p;
}

void fc_problem_free(fc_problem *p)
{
    if (!p) return;
    fc_matrix_free(p->W);
    fc_matrix_free(p->M);
    fc_matrix_free(p->H);
    free(p->q);
    free(p->f);
    free(p->w);
    free(p->mu);
    free(p->mu_r);
    fc_matrix_free(p->V);
    fc_matrix_free(p->R);
    fc_matrix_free(p->G);
    free(p->s);
    free(p->b);
    free(p->name);
    free(p);
}

fc_err fc_problem_set_equalities(fc_problem *p, int neq, fc_error *err)
{
    if (neq < 0 || p->neq != 0)
        return fc_error_set(err, FC_ERR_INVALID, "equality constraints: %s",
                            neq < 0 ? "negative count" : "already set");
    if (neq == 0) return FC_OK;
    double **x = p->kind == FC_LOCAL ? &p->s : &p->b;
    if (!(*x = fc_calloc((size_t)neq, sizeof **x)))
        return fc_error_set(err, FC_ERR_NOMEM, "out of memory for %d equality constraints", neq);
    p->neq = neq;
    return FC_OK;
}

const char *fc_problem_kind_name(const fc_problem *p)
{
    static const char *names[2][3] = {{"fc2d", "fc3d", "rfc3d"},
                                      {"gfc2d", "gfc3d", "grfc3d"}};
    int i = p->d == 2 ? 0 : p->d == 3 ? 1 : 2;
    return names[p->kind == FC_GLOBAL][i];
}

/* Structure of a CSR/BSR matrix: monotone pointers, indices in range,
 * sorted and distinct within a row. */
static int structure_ok(const fc_matrix *A)
{
    if (A->kind == FC_MAT_DENSE) return A->x != NULL && A->nnz == (long)A->rows * A->cols;
    int nr = A->kind == FC_MAT_BSR ? A->rows / A->bs : A->rows;
    int nc = A->kind == FC_MAT_BSR ? A->cols / A->bs : A->cols;
    long len = A->kind == FC_MAT_BSR ? A->nnz / ((long)A->bs * A->bs) : A->nnz;
    if (!A->p || A->p[0] != 0 || A->p[nr] != len) return 0;
    for (int i = 0; i < nr; i++)   /* all pointers first: a row may not reach past len */
        if (A->p[i + 1] < A->p[i]) return 0;
    for (int i = 0; i < nr; i++) {
        for (int k = A->p[i]; k < A->p[i + 1]; k++)
            if (A->j[k] < 0 || A->j[k] >= nc || (k > A->p[i] && A->j[k] <= A->j[k - 1]))
                return 0;
    }
    return 1;
}

/* A matrix's shape, structure and values; name is used in the message. */
static fc_err check_matrix(const fc_matrix *A, const char *name, int rows,
                           int cols, fc_error *err)
{
    if (!A) return fc_error_set(err, FC_ERR_INVALID, "matrix %s is missing", name);
    if (A->rows != rows || A->cols != cols)
        return fc_error_set(err, FC_ERR_INVALID, "matrix %s is %d x %d, expected %d x %d",
                            name, A->rows, A->cols, rows, cols);
    if (!structure_ok(A))
        return fc_error_set(err, FC_ERR_INVALID, "matrix %s has an invalid sparse structure", name);
    if (!fc_all_finite((size_t)A->nnz, A->x))
        return fc_error_set(err, FC_ERR_INVALID, "matrix %s has a NaN or infinite entry", name);
    return FC_OK;
}

static fc_err check_vector(const double *x, int n, const char *name, fc_error *err)
{
    if (!x && n > 0) return fc_error_set(err, FC_ERR_INVALID, "vector %s is missing", name);
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return fc_error_set(err, FC_ERR_INVALID, "%s[%d] is %s", name, i,
                                isnan(x[i]) ? "NaN" : "infinite");
    return FC_OK;
}

/* Relative asymmetry above which a matrix is refused as non-symmetric.  Real
 * problem files are assembled in single steps of a simulation and written
 * with limited digits: the shared Capsules and Chute problems carry relative
 * asymmetries up to 2e-3.  A matrix beyond 1e-2 is not a Delassus matrix. */
#define FC_SYMMETRY_TOL 1e-2

static fc_err check_symmetric(const fc_matrix *A, const char *name, fc_error *err)
{
    double asym = fc_matrix_asymmetry(A);
    if (asym > FC_SYMMETRY_TOL)
        return fc_error_set(err, FC_ERR_INVALID,
                            "matrix %s is not symmetric (relative asymmetry %.3g)", name, asym);
    return FC_OK;
}

static fc_err check_coefficients(const double *c, int nc, const char *name, fc_error *err)
{
    if (check_vector(c, nc, name, err)) return FC_ERR_INVALID;
    for (int a = 0; a < nc; a++)
        if (c[a] < 0)
            return fc_error_set(err, FC_ERR_INVALID, "%s[%d] = %g is negative", name, a, c[a]);
    return FC_OK;
}

/* Each contact's normal diagonal entry of W must be positive. */
static fc_err check_diagonal(const fc_problem *p, fc_error *err)
{
    for (int a = 0; a < p->nc; a++) {
        double wnn = fc_matrix_get(p->W, a * p->d, a * p->d);
        if (!(wnn > 0))
            return fc_error_set(err, FC_ERR_INVALID,
                                "W is singular: contact %d has normal diagonal entry %g <= 0",
                                a, wnn);
    }
    return FC_OK;
}

/* A global problem's M must be positive definite (rigid bodies' masses and
 * inertias; a singular or indefinite M has no velocity v = M^-1 (H r + f)):
 * its Cholesky (of the upper triangle, as the reduction reads it). */
static fc_err check_definite(const fc_matrix *M, fc_error *err)
{
    fc_error e = {FC_OK, ""};
    if (fc_chol_check_definite(M, "M", &e) == FC_OK) return FC_OK;
    if (e.code == FC_ERR_NOMEM) return fc_error_set(err, FC_ERR_NOMEM, "%s", e.msg);
    return fc_error_set(err, FC_ERR_INVALID, "matrix %s", e.msg);
}

/* Equality constraints: V (m x neq), R (neq x neq, symmetric; NULL:
 * zero) and s, or G (n x neq) and b; nothing of them when neq == 0. */
static fc_err check_equalities(const fc_problem *p, fc_error *err)
{
    int local = p->kind == FC_LOCAL, neq = p->neq;
    if (neq < 0) return fc_error_set(err, FC_ERR_INVALID, "number of equality constraints %d, expected >= 0", neq);
    const fc_matrix *E = local ? p->V : p->G, *other = local ? p->G : p->V;
    const double *x = local ? p->s : p->b, *y = local ? p->b : p->s;
    if (other || y || (!local && p->R))
        return fc_error_set(err, FC_ERR_INVALID, "a %s problem with %s", local ? "local" : "global",
                            local ? "G or b (global equality data)" : "V, R or s (local equality data)");
    if (!neq) {
        if (E || x || p->R)
            return fc_error_set(err, FC_ERR_INVALID, "equality data (%s) with neq = 0", local ? "V, R or s" : "G or b");
        return FC_OK;
    }
    if (check_matrix(E, local ? "V" : "G", local ? fc_problem_m(p) : p->n, neq, err) ||
        check_vector(x, neq, local ? "s" : "b", err))
        return FC_ERR_INVALID;
    if (local && p->R && (check_matrix(p->R, "R", neq, neq, err) || check_symmetric(p->R, "R", err)))
        return FC_ERR_INVALID;
    return FC_OK;
}

fc_err fc_problem_validate(const fc_problem *p, fc_error *err)
{
    fc_err e = fc_problem_validate_shape(p, err);
    if (e || p->kind == FC_LOCAL) return e;
    return check_definite(p->M, err);
}

fc_err fc_problem_validate_shape(const fc_problem *p, fc_error *err)
{
    if (!p) return fc_error_set(err, FC_ERR_INVALID, "no problem");
    if (p->d != 2 && p->d != 3 && p->d != 5)
        return fc_error_set(err, FC_ERR_INVALID, "dimension d = %d, expected 2, 3 or 5", p->d);
    if (p->nc <= 0)
        return fc_error_set(err, FC_ERR_INVALID, "number of contacts %d, expected > 0", p->nc);
    int m = fc_problem_m(p);
    if (check_coefficients(p->mu, p->nc, "mu", err)) return FC_ERR_INVALID;
    if (p->d == 5 && check_coefficients(p->mu_r, p->nc, "mu_r", err)) return FC_ERR_INVALID;
    if (p->kind == FC_LOCAL) {
        if (check_matrix(p->W, "W", m, m, err) || check_vector(p->q, m, "q", err) ||
            check_symmetric(p->W, "W", err) || check_diagonal(p, err) || check_equalities(p, err))
            return FC_ERR_INVALID;
        return FC_OK;
    }
    if (p->n <= 0)
        return fc_error_set(err, FC_ERR_INVALID, "number of degrees of freedom %d, expected > 0", p->n);
    if (check_matrix(p->M, "M", p->n, p->n, err) || check_matrix(p->H, "H", p->n, m, err) ||
        check_vector(p->f, p->n, "f", err) || check_vector(p->w, m, "w", err) ||
        check_symmetric(p->M, "M", err) || check_equalities(p, err))
        return FC_ERR_INVALID;
    return FC_OK;
}
