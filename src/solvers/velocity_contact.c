/* The one-contact update of Gauss-Seidel on the velocity form. */
#include "solvers/velocity_contact.h"

static double row_dot(const fc_matrix *A, int i, const double *x)
{
    double s = 0.0;
    for (int k = A->p[i]; k < A->p[i + 1]; k++) s += A->x[k] * x[A->j[k]];
    return s;
}

void fc_velocity_contact(const fc_local *loc, const fc_local_params *par, const fc_matrix *Ht,
                         const fc_matrix *Gt, int row, const double *wa, double *ra, double *v)
{
    int d = loc->d;
    double qa[5] = {0}, rn[5] = {0};
    for (int k = 0; k < d; k++) {
        qa[k] = row_dot(Ht, row + k, v) + wa[k];
        for (int l = 0; l < d; l++) qa[k] -= loc->W[k + l * d] * ra[l];
        rn[k] = ra[k];
    }
    fc_local_solve(loc, qa, par, rn);
    for (int k = 0; k < d; k++) {
        double dr = rn[k] - ra[k];
        if (dr == 0.0) continue;
        int j = row + k;
        for (int t = Gt->p[j]; t < Gt->p[j + 1]; t++) v[Gt->j[t]] += dr * Gt->x[t];
        ra[k] = rn[k];
    }
}
