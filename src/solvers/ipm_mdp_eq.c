/* ipm-mdp's equality rows (SPEC section 1): the multipliers y are a free
 * unknown of the interior point, their rows part of its Newton matrix.
 * Local problem, u = W r + V y + q and V'r + R y + s = 0: with du = h - D
 * dr per contact (ipm_mdp.c) the step solves the bordered system
 *     [W + D  V] [dr]   [h + R1]        R1 = u - W r - V y - q
 *     [V'     R] [dy] = [ -R3  ],       R3 = V'r + R y + s,
 * by sparse LU on J's pattern (W's blocks) bordered by V, V' and R, the
 * multipliers' diagonal always present.  Global problem (ipm_mdp_global.c):
 * K = M + H D^-1 H' bordered by [-G; -G', 0] (G'dv = -R3, R3 = G'v + b).
 * Redundant rows (a joint written twice, R singular) leave the bordered
 * matrix singular: the multipliers' diagonal carries a static
 * regularisation 1e-12 of their scale (R's diagonal, or ||V_j||^2 over W's
 * or M's), with the sign of the Schur complement on them (+ with R: R -
 * V'A^-1 V is semi-definite when R = G'M^-1 G; - without), and each solve is
 * refined against the exact matrix. */
#include "solvers/ipm_mdp.h"

/* The static regularisation relative to the multipliers' scale. */
#define MDP_EQ_REG 1e-12

void fc_mdp_eq_free(mdp *w)
{
    free(w->y); free(w->dy); free(w->dya); free(w->best_y); free(w->R3); free(w->ey);
    free(w->Bp); free(w->Bi); free(w->Bx); free(w->bx); free(w->bres); free(w->bmap);
    free(w->bdiag); free(w->rdiag); free(w->gpos);
    fc_matrix_free(w->Gr);
    fc_lu_free(w->Blu);
}

double fc_mdp_eq_rows(const mdp *w, const double *r, const double *y, const double *v,
                      double *out)
{
    const fc_problem *p = w->p;
    const double *c = w->global ? p->b : p->s;
    memcpy(out, c, (size_t)w->neq * sizeof *out);
    if (w->global) {
        fc_matrix_gemv_t(p->G, 1.0, v, 1.0, out);
    } else {
        fc_matrix_gemv_t(p->V, 1.0, r, 1.0, out);
        if (p->R) fc_matrix_gemv(p->R, 1.0, y, 1.0, out);
    }
    return fc_norm2(w->neq, out) / fmax(1.0, fc_norm2(w->neq, c));
}

/* The multipliers' scale: R's largest diagonal entry, or the largest
 * ||E_j||^2 / scale (E: V or G, scale: W's or M's diagonal). */
static double eq_scale(const mdp *w, const fc_matrix *Ec, double scale)
{
    double s = 0;
    for (int j = 0; j < w->neq; j++) {
        double nj = 0;
        for (int q = Ec->p[j]; q < Ec->p[j + 1]; q++) nj += Ec->x[q] * Ec->x[q];
        s = fmax(s, nj / scale);
        if (!w->global && w->p->R) s = fmax(s, fabs(fc_matrix_get(w->p->R, j, j)));
    }
    return s > 0 ? s : 1.0;
}

/* The bordered pattern: J's columns, each followed by V's row (rows m +
 * j); then per multiplier j, V's column j and R's column j with its
 * diagonal.  V and R's values are set here once. */
static int eq_pattern(mdp *w, const fc_matrix *Vr, const fc_matrix *Vt, const fc_matrix *Rr)
{
    int m = w->m, N = w->N;
    const fc_bjac *J = &w->J;
    long nz = J->Ap[m] + 2L * Vr->nnz + (Rr ? Rr->nnz : 0) + w->neq;
    w->Bp = fc_calloc((size_t)N + 1, sizeof *w->Bp);
    w->Bi = fc_calloc((size_t)nz, sizeof *w->Bi);
    w->Bx = fc_calloc((size_t)nz, sizeof *w->Bx);
    w->bmap = fc_calloc((size_t)J->Ap[m] + 1, sizeof *w->bmap);
    w->bdiag = fc_calloc((size_t)w->neq, sizeof *w->bdiag);
    w->rdiag = fc_calloc((size_t)w->neq, sizeof *w->rdiag);
    if (!w->Bp || !w->Bi || !w->Bx || !w->bmap || !w->bdiag || !w->rdiag) return 0;
    long k = 0;
    for (int c = 0; c < m; c++) {
        w->Bp[c] = (int)k;
        for (int q = J->Ap[c]; q < J->Ap[c + 1]; q++) { w->bmap[q] = k; w->Bi[k++] = J->Ai[q]; }
        for (int q = Vr->p[c]; q < Vr->p[c + 1]; q++) { w->Bi[k] = m + Vr->j[q]; w->Bx[k++] = Vr->x[q]; }
    }
    for (int j = 0; j < w->neq; j++) {
        w->Bp[m + j] = (int)k;
        for (int q = Vt->p[j]; q < Vt->p[j + 1]; q++) { w->Bi[k] = Vt->j[q]; w->Bx[k++] = Vt->x[q]; }
        /* R's column j (R symmetric: its row j), the diagonal always in
         * (its value set at each factorisation) */
        int placed = 0;
        for (int q = Rr ? Rr->p[j] : 0; Rr && q < Rr->p[j + 1]; q++) {
            int i = Rr->j[q];
            if (!placed && i >= j) {
                w->bdiag[j] = k;
                w->Bi[k++] = m + j;
                placed = 1;
                if (i == j) { w->rdiag[j] = Rr->x[q]; continue; }
            }
            w->Bi[k] = m + i;
            w->Bx[k++] = Rr->x[q];
        }
        if (!placed) { w->bdiag[j] = k; w->Bi[k++] = m + j; }
    }
    w->Bp[N] = (int)k;
    return 1;
}

int fc_mdp_eq_init(mdp *w, const double *y0)
{
    const fc_problem *p = w->p;
    size_t neq = (size_t)w->neq;
    w->y = fc_dup(y0, neq);
    w->dy = fc_calloc(neq, sizeof(double)); w->dya = fc_calloc(neq, sizeof(double));
    w->best_y = fc_dup(y0, neq);
    w->R3 = fc_calloc(neq, sizeof(double)); w->ey = fc_calloc(neq, sizeof(double));
    if (!w->y || !w->dy || !w->dya || !w->best_y || !w->R3 || !w->ey)
        return !fc_error_set(&w->err, FC_ERR_NOMEM, "out of memory (equality rows)");
    if (w->global) return 1;   /* K's bordering: fc_mdp_global_init */
    w->N = w->m + w->neq;
    w->bx = fc_calloc((size_t)w->N * 3, sizeof(double));
    w->bres = fc_calloc((size_t)w->N, sizeof(double));
    fc_matrix *Vr = fc_matrix_to_csr(p->V), *Vt = Vr ? fc_csr_transpose(Vr) : NULL;
    fc_matrix *Rr = p->R ? fc_matrix_to_csr(p->R) : NULL;
    int ok = w->bx && w->bres && Vr && Vt && (!p->R || Rr) && eq_pattern(w, Vr, Vt, Rr);
    if (ok) w->ereg = (p->R ? 1.0 : -1.0) * MDP_EQ_REG * eq_scale(w, Vt, w->wscale);
    fc_matrix_free(Vr); fc_matrix_free(Vt); fc_matrix_free(Rr);
    if (!ok) return !fc_error_set(&w->err, FC_ERR_NOMEM, "out of memory (equality rows)");
    /* the bordered matrix replaces J's own LU */
    fc_lu_free(w->J.lu);
    w->J.lu = NULL;
    w->Blu = fc_lu_new(w->N, w->Bp, w->Bi, FC_LU_KLU, &w->err);
    if (!w->Blu) return 0;
    fc_lu_solver_refines(w->Blu);
    return 1;
}

/* The global bordering's regularisation (K's pattern: ipm_mdp_global.c). */
double fc_mdp_eq_global_reg(const mdp *w, const fc_matrix *Gt, double mscale)
{
    return -MDP_EQ_REG * eq_scale(w, Gt, mscale);
}

int fc_mdp_eq_factor(mdp *w, double delta, double *rcond)
{
    const fc_bjac *J = &w->J;
    for (int q = 0; q < J->Ap[w->m]; q++) w->Bx[w->bmap[q]] = J->Ax[q];
    double sg = w->ereg < 0 ? -1.0 : 1.0;
    for (int j = 0; j < w->neq; j++) w->Bx[w->bdiag[j]] = w->rdiag[j] + w->ereg + sg * delta;
    fc_error e;
    return fc_lu_factor(w->Blu, w->Bx, rcond, &e) == FC_OK;
}

/* out = [A V; V' R] x exactly, A x by exact(). */
static void eq_apply(mdp *w, void (*exact)(mdp *, const double *, double *), const double *x,
                     double *out)
{
    const fc_problem *p = w->p;
    int m = w->m;
    exact(w, x, out);
    fc_matrix_gemv(p->V, 1.0, x + m, 1.0, out);
    memset(out + m, 0, (size_t)w->neq * sizeof *out);
    fc_matrix_gemv_t(p->V, 1.0, x, 1.0, out + m);
    if (p->R) fc_matrix_gemv(p->R, 1.0, x + m, 1.0, out + m);
}

int fc_mdp_eq_solve(mdp *w, void (*exact)(mdp *, const double *, double *), double *dr,
                    double *dy)
{
    int m = w->m, N = w->N;
    double *b = w->bx, *x = w->bx + N, *res = w->bx + 2 * (size_t)N;
    memcpy(b, w->rhs, (size_t)m * sizeof *b);
    for (int j = 0; j < w->neq; j++) b[m + j] = -w->R3[j];
    fc_error e;
    if (fc_lu_solve(w->Blu, b, x, &e) != FC_OK) return 0;
    double nb = fc_norm2(N, b), rn;
    for (int it = 0;; it++) {
        eq_apply(w, exact, x, w->bres);
        for (int i = 0; i < N; i++) res[i] = b[i] - w->bres[i];
        rn = fc_norm2(N, res);
        if (rn <= 1e-14 * nb || it == MDP_EQ_REFINE) break;
        if (fc_lu_solve(w->Blu, res, res, &e) != FC_OK) return 0;
        for (int i = 0; i < N; i++) x[i] += res[i];
    }
    if (!(rn <= MDP_EQ_SOLVED * nb)) return 0;
    memcpy(dr, x, (size_t)m * sizeof *dr);
    memcpy(dy, x + m, (size_t)w->neq * sizeof *dy);
    return 1;
}
