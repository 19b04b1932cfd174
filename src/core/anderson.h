/* Anderson acceleration (type II) of a fixed-point iteration x <- G(x),
 * for the Gauss-Seidel family: from the last mem differences of the
 * residuals f = G(x) - x and of the images G(x), the next point is
 *   x+ = G(x) - dG gamma,  gamma = argmin || f - dF gamma ||_2.
 * The least squares is solved through its normal equations
 * (dF^T dF + lambda I) gamma = dF^T f with a tiny ridge lambda: the Gram
 * matrix dF^T dF is kept up to date, one new column of inner products
 * per step (2 m mem flops in all, against a QR of m x mem each step:
 * measured, the QR took 2/3 of an accelerated NSGS sweep on an 89-contact
 * problem), and the mem x mem system by a Cholesky factorisation.
 * Workspace allocated once. */
#ifndef FRICON_ANDERSON_H
#define FRICON_ANDERSON_H

typedef struct fc_anderson {
    int m, mem;             /* vector length, memory                  */
    int count, head;        /* stored differences, next slot          */
    int have_prev;
    double *dF, *dG;        /* m x mem column-major rings             */
    double *fprev, *gprev;  /* m: last residual and image             */
    double *gram;           /* mem x mem: dF_i . dF_j by ring slots   */
    double *A, *b;          /* mem x mem, mem: the normal equations   */
} fc_anderson;

/* 0 on success, -1 when out of memory. */
int fc_anderson_init(fc_anderson *a, int m, int mem);
void fc_anderson_free(fc_anderson *a);
/* Forget the history (after a rejected step). */
void fc_anderson_reset(fc_anderson *a);
/* g = G(x) on entry; on return the accelerated point (g unchanged when
 * there is no history yet or the least squares fails).  Returns 1 when
 * g was extrapolated. */
int fc_anderson_step(fc_anderson *a, const double *x, double *g);

#endif
