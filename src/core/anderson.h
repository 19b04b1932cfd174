/* Anderson acceleration (type II) of a fixed point x <- G(x): from the
 * last mem differences of f = G(x) - x and of G(x),
 *   x+ = G(x) - dG gamma,  gamma = argmin || f - dF gamma ||_2,
 * by the normal equations with a tiny ridge, the Gram matrix updated one
 * column a step (cheaper than a QR each step: docs/measurements.md). */
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
    double *part;           /* per-chunk partial sums of a step       */
} fc_anderson;

/* 0 on success, -1 when out of memory. */
int fc_anderson_init(fc_anderson *a, int m, int mem);
void fc_anderson_free(fc_anderson *a);
/* Forget the history (after a rejected step). */
void fc_anderson_reset(fc_anderson *a);
/* g = G(x) in, the accelerated point out (unchanged without history or
 * when the least squares fails); 1 when g was extrapolated. */
int fc_anderson_step(fc_anderson *a, const double *x, double *g);

#endif
