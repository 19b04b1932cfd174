/* Gauss-Seidel blocks for equality rows (eqblock.h). */
#include "solvers/eqblock.h"
#include "matrix/bsr.h"

#include <stdio.h>

/* Relative size below which a pivot of R_JJ counts as zero (dependent row). */
#define FC_EQB_DROP 1e-10

static int same_pattern(const fc_matrix *R, int i, int k)
{
    int li = R->p[i + 1] - R->p[i];
    if (li != R->p[k + 1] - R->p[k]) return 0;
    return memcmp(R->j + R->p[i], R->j + R->p[k], (size_t)li * sizeof *R->j) == 0;
}

/* Dense Cholesky of the symmetric block A (n x n, column-major) in place,
 * lower part; pivots below FC_EQB_DROP times the diagonal entry dropped. */
void fc_eqb_chol(int n, double *A)
{
    for (int j = 0; j < n; j++) {
        double dj = A[j + (size_t)n * j], d = dj;
        for (int k = 0; k < j; k++) d -= A[j + (size_t)n * k] * A[j + (size_t)n * k];
        int keep = d > FC_EQB_DROP * dj;
        A[j + (size_t)n * j] = keep ? sqrt(d) : 0.0;
        for (int i = j + 1; i < n; i++) {
            double v = A[i + (size_t)n * j];
            for (int k = 0; k < j; k++) v -= A[i + (size_t)n * k] * A[j + (size_t)n * k];
            A[i + (size_t)n * j] = keep ? v / A[j + (size_t)n * j] : 0.0;
        }
    }
}

/* x = -(L L^T)^+ b in place (dropped rows: 0). */
void fc_eqb_chol_solve_neg(int n, const double *L, double *x)
{
    for (int j = 0; j < n; j++) {
        double v = x[j];
        for (int k = 0; k < j; k++) v -= L[j + (size_t)n * k] * x[k];
        x[j] = L[j + (size_t)n * j] > 0 ? v / L[j + (size_t)n * j] : 0.0;
    }
    for (int j = n - 1; j >= 0; j--) {
        double v = x[j];
        for (int i = j + 1; i < n; i++) v -= L[i + (size_t)n * j] * x[i];
        x[j] = L[j + (size_t)n * j] > 0 ? v / L[j + (size_t)n * j] : 0.0;
    }
    for (int j = 0; j < n; j++) x[j] = -x[j];
}

int fc_eqb_init(fc_eqb *E, const fc_problem *p, char *msg, size_t len)
{
    memset(E, 0, sizeof *E);
    int neq = p->neq;
    E->neq = neq;
    E->m = fc_problem_m(p);
    if (!p->R) {
        snprintf(msg, len, "R = 0: the equality rows form a saddle point, which Gauss-Seidel "
                           "cannot sweep (R = G'M^-1 G of a global problem's reduction is definite)");
        return 1;
    }
    fc_matrix *Vc = fc_matrix_to_csr(p->V);
    E->Vt = Vc ? fc_csr_transpose(Vc) : NULL;
    fc_matrix_free(Vc);
    E->Rc = fc_matrix_to_csr(p->R);
    E->start = fc_calloc((size_t)neq + 1, sizeof *E->start);
    E->off = fc_calloc((size_t)neq + 1, sizeof *E->off);
    E->res = fc_calloc(FC_EQB_DENSE > FC_EQB_MAX ? FC_EQB_DENSE : FC_EQB_MAX, sizeof *E->res);
    if (!E->Vt || !E->Rc || !E->start || !E->off || !E->res) return -1;
    double dmax = 0.0;
    for (int i = 0; i < neq; i++) dmax = fmax(dmax, fc_matrix_get(p->R, i, i));
    for (int i = 0; i < neq; i++) {
        double di = fc_matrix_get(p->R, i, i);
        if (!(di > 1e-14 * dmax)) {
            snprintf(msg, len, "R's diagonal entry %d is %g (of at most %g): that row is a "
                               "saddle point Gauss-Seidel cannot sweep",
                     i, di, dmax);
            return 1;
        }
    }
    /* the blocks */
    long tot = 0;
    for (int i = 0; i < neq;) {
        int e = i + 1;
        if (neq <= FC_EQB_DENSE) e = neq;
        else
            while (e < neq && e - i < FC_EQB_MAX && same_pattern(E->Rc, e, i)) e++;
        E->start[E->nb] = i;
        E->off[E->nb++] = tot;
        tot += (long)(e - i) * (e - i);
        i = e;
    }
    E->start[E->nb] = neq;
    E->L = fc_calloc((size_t)tot, sizeof *E->L);
    if (!E->L) return -1;
    for (int k = 0; k < E->nb; k++) {
        int a = E->start[k], n = E->start[k + 1] - a;
        double *L = E->L + E->off[k];
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) L[i + (size_t)n * j] = fc_matrix_get(p->R, a + i, a + j);
        fc_eqb_chol(n, L);
    }
    return 0;
}

void fc_eqb_sweep(const fc_eqb *E, const double *s, const double *r, double *lambda)
{
    for (int k = 0; k < E->nb; k++) {
        int a = E->start[k], n = E->start[k + 1] - a;
        for (int i = 0; i < n; i++)
            E->res[i] = csr_row_dot(E->Vt, a + i, r) + csr_row_dot(E->Rc, a + i, lambda) + s[a + i];
        fc_eqb_chol_solve_neg(n, E->L + E->off[k], E->res);
        for (int i = 0; i < n; i++) lambda[a + i] += E->res[i];
    }
}

void fc_eqb_shift(const fc_eqb *E, const double *q, const double *lambda, double *qe)
{
    memcpy(qe, q, (size_t)E->m * sizeof *qe);
    for (int i = 0; i < E->neq; i++)
        for (int k = E->Vt->p[i]; k < E->Vt->p[i + 1]; k++)
            qe[E->Vt->j[k]] += E->Vt->x[k] * lambda[i];
}

double fc_eqb_residual(const fc_eqb *E, const double *s, const double *r, const double *lambda)
{
    double num = 0.0;
    for (int i = 0; i < E->neq; i++) {
        double e = csr_row_dot(E->Vt, i, r) + csr_row_dot(E->Rc, i, lambda) + s[i];
        num += e * e;
    }
    return sqrt(num) / fmax(1.0, fc_norm2(E->neq, s));
}

void fc_eqb_free(fc_eqb *E)
{
    fc_matrix_free(E->Vt);
    fc_matrix_free(E->Rc);
    free(E->start);
    free(E->off);
    free(E->L);
    free(E->res);
    memset(E, 0, sizeof *E);
}
