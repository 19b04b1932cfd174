/* ipm-mdp: primal-dual interior point on the maximum-dissipation form of
 * Coulomb friction (Dojo's nonlinear friction, shared/seeds/004), d = 2
 * or 3: the local problem FC(W, q, mu), and the global one (M, H, f, w,
 * mu) directly (fc_ipm_mdp_solve_global, at the end) or through W.
 *
 * Per contact a, two complementarity pairs:
 *   normal:   r_N >= 0,  u_N >= 0,  r_N u_N = 0
 *   friction: beta = (mu r_N, r_T) in Q,  eta = (psi, u_T) in Q,
 *             beta o eta = 0   (Jordan product of the second-order cone Q)
 * with u = W r + q.  psi is one more unknown per contact, the bound on the
 * sliding speed ||u_T|| (the multiplier of ||r_T|| <= mu r_N in the
 * maximum-dissipation problem min r_T'u_T).  These are exactly Coulomb's
 * law: sliding (u_T != 0) puts both on the boundary, r_T = -mu r_N
 * u_T / ||u_T||, and u_N = 0 when r_N > 0; sticking gives psi = 0.  The De
 * Saxce shift mu ||u_T|| is never formed: ipm's outer fixed point on it
 * (which 2-cycles on hyperstatic collapsing packings) is not needed.  The
 * price is a non-monotone complementarity problem (psi enters through the
 * product only) with a non-symmetric Newton matrix.
 *
 * Infeasible-start Mehrotra predictor-corrector with Nesterov-Todd scaling
 * of each friction pair (cone/soc.c) and the scalar scaling of the normal
 * pair.  The linearised equations give du = h - D dr per contact, D a
 * d x d block (row N: u_N / r_N; rows T: those of G^-2 E, E = diag(mu, 1,
 * ..)), and with du = W dr - (u - W r - q):
 *     (W + D) dr = h + (u - W r - q)
 * solved by sparse LU on W's block pattern (fc_bjac: KLU, UMFPACK on heavy
 * fill), one factorisation per step, refined against the exact matrix.
 * dpsi follows per contact.  Contacts with mu = 0 have no friction pair:
 * r_T is held at 0.  Equality rows (V, R, s or G, b): their multipliers
 * are a free unknown, the rows border the Newton matrix (ipm_mdp_eq.c).
 *
 * Jams (the iterate stuck against the cones' boundaries on a wrong branch
 * of this non-monotone problem) are broken by solving the blocking
 * contacts alone (mdp_unjam); an unconverged run is polished by NSGS and
 * Newton (mdp_polish).
 *
 * The iterate judged is (r, u of r), by the SPEC measure, every step;
 * the best one is returned.  Every step's factorisation is predicted
 * (flops) and none is started that the time left cannot hold.  Workspace
 * allocated once; the LU's factor is refused beyond 50 times W's entries
 * (linsys/lu.c). */
#include "internal.h"
#include "core/stage.h"
#include "cone/cone.h"
#include "cone/soc.h"
#include "linsys/linsys.h"
#include "measure/measure.h"
#include "problem/reduce.h"
#include "solvers/ipm_mdp.h"

#include <stdio.h>

/* Predicted LU flops per second, for the first step's time (nsn.c's). */
#define MDP_FLOPS_PER_SECOND 1e10
/* A step below this, twice in a row, is a jam (see mdp_unjam); the
 * contacts whose own step is below MDP_UNJAM_FACTOR times it (3 times
 * wider at each further jam without a 10% better error) are reset, at most
 * a share MDP_UNJAM_SHARE of them (docs/auto-measurements.md#unjam). */
#define MDP_JAM_STEP 1e-2
#define MDP_UNJAM_FACTOR 2.0
#define MDP_UNJAM_SHARE 0.05
/* A guess r below this times u's size over W's scale is taken as 0 by
 * the start (mdp_start). */
#define MDP_START_ZERO 1e-12
static void mdp_free(mdp *w)
{
    fc_matrix_free(w->Wown);
    fc_bjac_free(&w->J);
    free(w->r); free(w->u); free(w->psi); free(w->dr); free(w->du); free(w->dpsi);
    free(w->dra); free(w->dua); free(w->dpsia); free(w->R1); free(w->nt); free(w->lam);
    free(w->B); free(w->Dn); free(w->g); free(w->rc); free(w->rhs); free(w->res);
    free(w->tmp); free(w->ue); free(w->best_r); free(w->step);
    fc_matrix_free(w->Hc);
    fc_chol_free(w->Mf);
    fc_lu_free(w->Klu);
    free(w->v); free(w->dv); free(w->dva); free(w->R0); free(w->vr); free(w->tn); free(w->Dinv);
    free(w->HR); free(w->Kp); free(w->Ki); free(w->rofs); free(w->ridx); free(w->kofs);
    free(w->kpos); free(w->mpos); free(w->Kx); free(w->kdiag); free(w->tk);
    fc_matrix_free(w->Mr);
    fc_mdp_eq_free(w);
}

/* y0: the multipliers' start (p->neq values), NULL without equality rows. */
static int mdp_init(mdp *w, const fc_problem *p, const fc_options *opt, int global,
                    const double *y0)
{
    memset(w, 0, sizeof *w);
    w->neq = y0 ? p->neq : 0;
    w->p = p;
    w->opt = opt;
    w->d = p->d;
    w->nc = p->nc;
    w->m = p->d * p->nc;
    w->global = global;
    if (global) {
        /* W never formed */
    } else if (p->W->kind == FC_MAT_BSR && p->W->bs == p->d) {
        w->W = p->W;
    } else {
        w->Wown = fc_matrix_to_bsr(p->W, p->d);
        if (!w->Wown) { fc_error_set(&w->err, FC_ERR_NOMEM, "out of memory"); return 0; }
        w->W = w->Wown;
    }
    size_t m = (size_t)w->m, nc = (size_t)w->nc, d = (size_t)w->d;
    w->r = fc_calloc(m, sizeof(double)); w->u = fc_calloc(m, sizeof(double));
    w->psi = fc_calloc(nc, sizeof(double)); w->dr = fc_calloc(m, sizeof(double));
    w->du = fc_calloc(m, sizeof(double)); w->dpsi = fc_calloc(nc, sizeof(double));
    w->dra = fc_calloc(m, sizeof(double)); w->dua = fc_calloc(m, sizeof(double));
    w->dpsia = fc_calloc(nc, sizeof(double)); w->R1 = fc_calloc(m, sizeof(double));
    w->nt = fc_calloc(nc * (d + 1), sizeof(double)); w->lam = fc_calloc(m, sizeof(double));
    w->B = fc_calloc(nc * d * d, sizeof(double)); w->Dn = fc_calloc(nc, sizeof(double));
    w->g = fc_calloc(m, sizeof(double)); w->rc = fc_calloc(nc * (d + 1), sizeof(double));
    w->rhs = fc_calloc(m, sizeof(double)); w->res = fc_calloc(m, sizeof(double));
    w->tmp = fc_calloc(m, sizeof(double)); w->ue = fc_calloc(m, sizeof(double));
    w->best_r = fc_calloc(m, sizeof(double));
    w->step = fc_calloc(nc, sizeof(double));
    if (!w->r || !w->u || !w->psi || !w->dr || !w->du || !w->dpsi || !w->dra || !w->dua ||
        !w->dpsia || !w->R1 || !w->nt || !w->lam || !w->B || !w->Dn || !w->g || !w->rc ||
        !w->rhs || !w->res || !w->tmp || !w->ue || !w->best_r || !w->step) {
        fc_error_set(&w->err, FC_ERR_NOMEM, "out of memory");
        return 0;
    }
    if (global) return (!w->neq || fc_mdp_eq_init(w, y0)) && fc_mdp_global_init(w);
    if (fc_bjac_init(&w->J, w->W, w->d, FC_LU_KLU, "ipm-mdp", &w->err) != FC_OK) return 0;
    fc_lu_solver_refines(w->J.lu);   /* mdp_direction refines against W + D */
    double blk[9];
    for (int a = 0; a < w->nc; a++) {
        fc_matrix_diag_block(w->W, a, w->d, blk);
        for (int i = 0; i < w->d; i++) w->wscale = fmax(w->wscale, fabs(blk[i + i * w->d]));
    }
    if (!(w->wscale > 0)) w->wscale = 1.0;
    return !w->neq || fc_mdp_eq_init(w, y0);
}

/* beta = (mu r_N, r_T) and eta = (psi, u_T) of contact a (from r, u, psi
 * or the steps dr, du, dpsi). */
static void pair_vectors(const mdp *w, int a, const double *r, const double *u,
                         const double *psi, double *beta, double *eta)
{
    int d = w->d;
    beta[0] = w->p->mu[a] * r[d * a];
    eta[0] = psi[a];
    for (int k = 1; k < d; k++) { beta[k] = r[d * a + k]; eta[k] = u[d * a + k]; }
}

/* R1 = u - W r - V y - q (and R3 = V'r + R y + s); returns the scaled
 * norm. */
static double mdp_linear_residual(mdp *w)
{
    int m = w->m;
    double e3 = w->neq ? fc_mdp_eq_rows(w, w->r, w->y, w->v, w->R3) : 0.0;
    if (w->global) {
        /* R0 = M v - H r - G y - f, R1 = u - H' v - w, R3 = G'v + b */
        const fc_problem *p = w->p;
        int n = w->n;
        fc_matrix_gemv(p->M, 1.0, w->v, 0.0, w->R0);
        double s0 = fmax(fc_norm2(n, w->R0), fc_norm2(n, p->f));
        fc_matrix_gemv(p->H, -1.0, w->r, 1.0, w->R0);
        if (w->neq) fc_matrix_gemv(p->G, -1.0, w->y, 1.0, w->R0);
        for (int i = 0; i < n; i++) w->R0[i] -= p->f[i];
        memcpy(w->R1, w->u, (size_t)m * sizeof *w->R1);
        fc_matrix_gemv_t(p->H, -1.0, w->v, 1.0, w->R1);
        for (int i = 0; i < m; i++) w->R1[i] -= p->w[i];
        double s1 = fmax(fc_norm2(m, p->w), fc_norm2(m, w->u));
        return fmax(fmax(fc_norm2(n, w->R0) / fmax(s0, 1e-300), fc_norm2(m, w->R1) / fmax(s1, 1e-300)),
                    e3);
    }
    const double *q = w->p->q;
    fc_matrix_gemv(w->W, 1.0, w->r, 0.0, w->ue);
    if (w->neq) fc_matrix_gemv(w->p->V, 1.0, w->y, 1.0, w->ue);
    for (int i = 0; i < m; i++) { w->ue[i] += q[i]; w->R1[i] = w->u[i] - w->ue[i]; }
    return fmax(fc_norm2(m, w->R1) / fmax(fmax(fc_norm2(m, q), fc_norm2(m, w->u)), 1e-300), e3);
}

/* The complementarity gap and the number of pairs. */
static double mdp_gap(const mdp *w, const double *r, const double *u, const double *psi,
                      int *npairs)
{
    int d = w->d, n = 0;
    double gap = 0, be[3], et[3];
    for (int a = 0; a < w->nc; a++) {
        gap += r[d * a] * u[d * a];
        n++;
        if (!fc_mdp_frictional(w, a)) continue;
        pair_vectors(w, a, r, u, psi, be, et);
        gap += fc_dot(d, be, et);
        n++;
    }
    if (npairs) *npairs = n;
    return gap;
}

/* Scalings of every pair at the current iterate: u_N / r_N for the
 * normal pair, NT scaling, lambda and G^-2 for the friction pair. */
static void mdp_scalings(mdp *w)
{
    int d = w->d, dd = d * d;
    double be[3], et[3];
    for (int a = 0; a < w->nc; a++) {
        w->Dn[a] = w->u[d * a] / w->r[d * a];
        if (!fc_mdp_frictional(w, a)) continue;
        pair_vectors(w, a, w->r, w->u, w->psi, be, et);
        double *nt = w->nt + (size_t)a * (d + 1);
        fc_soc_nt(d, be, et, nt, w->lam + d * a);
        fc_soc_nt_inv2(d, nt, w->B + (size_t)a * dd);
    }
}

/* D_a (d x d, column-major), from the scalings: du_a = h_a - D_a dr_a;
 * row N (u_N / r_N, 0, ..), rows T those of G^-2 diag(mu, 1, ..). */
void fc_mdp_dblock(const mdp *w, int a, double *D)
{
    int d = w->d;
    const double *Bk = w->B + (size_t)a * d * d;
    double mu = w->p->mu[a];
    for (int jj = 0; jj < d; jj++)
        for (int ii = 0; ii < d; ii++)
            D[ii + jj * d] = ii == 0 ? (jj == 0 ? w->Dn[a] : 0.0) : (jj == 0 ? mu : 1.0) * Bk[ii + jj * d];
}

/* The values of W + D (delta added to the diagonal); frictionless
 * contacts' tangential rows are the identity (dr_T = -r_T). */
static void mdp_assemble(mdp *w, double delta)
{
    int d = w->d, dd = d * d;
    double D[9];
    for (int a = 0; a < w->nc; a++) {
        int fr = fc_mdp_frictional(w, a);
        fc_mdp_dblock(w, a, D);
        for (int t = w->J.bp[a]; t < w->J.bp[a + 1]; t++) {
            const double *Wb = w->J.bw[t] >= 0 ? w->W->x + w->J.bw[t] * dd : NULL;
            const long *ps = w->J.pos + (long)t * dd;
            int diag = w->J.bj[t] == a;
            for (int jj = 0; jj < d; jj++)
                for (int ii = 0; ii < d; ii++) {
                    double v = Wb ? Wb[ii + jj * d] : 0.0;
                    if (ii > 0 && !fr) v = diag && ii == jj ? 1.0 : 0.0;
                    else if (diag) {
                        v += D[ii + jj * d];
                        if (ii == jj) v += delta;
                    }
                    w->J.Ax[ps[ii + jj * d]] = v;
                }
        }
    }
}

/* out = (W + D) x, exactly (no delta), tangential rows of frictionless
 * contacts: x_T. */
static void mdp_apply(mdp *w, const double *x, double *out)
{
    int d = w->d;
    double D[9];
    fc_matrix_gemv(w->W, 1.0, x, 0.0, out);
    for (int a = 0; a < w->nc; a++) {
        const double *xa = x + d * a;
        double *oa = out + d * a;
        if (!fc_mdp_frictional(w, a)) {
            oa[0] += w->Dn[a] * xa[0];
            for (int k = 1; k < d; k++) oa[k] = xa[k];
            continue;
        }
        fc_mdp_dblock(w, a, D);
        for (int ii = 0; ii < d; ii++) {
            double s = 0.0;
            for (int jj = 0; jj < d; jj++) s += D[ii + jj * d] * xa[jj];
            oa[ii] += s;
        }
    }
}

/* The step (dv, dr, du, dpsi, dy) for the complementarity right-hand
 * sides rc. */
static int mdp_direction(mdp *w, double *dv, double *dr, double *du, double *dpsi, double *dy)
{
    int d = w->d, dd = d * d, m = w->m;
    double tt[3];
    for (int a = 0; a < w->nc; a++) {
        const double *rc = w->rc + (size_t)a * (d + 1);
        double *h = w->rhs + d * a;
        h[0] = rc[0] / w->r[d * a];
        if (!fc_mdp_frictional(w, a)) {
            for (int k = 1; k < d; k++) h[k] = -w->r[d * a + k] - w->R1[d * a + k];
            continue;
        }
        const double *nt = w->nt + (size_t)a * (d + 1);
        fc_soc_div(d, w->lam + d * a, rc + 1, tt);
        fc_soc_nt_apply(d, nt, 1, tt, w->g + d * a);
        for (int k = 1; k < d; k++) h[k] = w->g[d * a + k];
    }
    if (w->global) {
        if (!fc_mdp_global_solve(w, dv, dr, du, dy)) return 0;
        goto psi;
    }
    for (int i = 0; i < m; i++) w->rhs[i] += w->R1[i];
    if (w->neq) {   /* the bordered system (ipm_mdp_eq.c) */
        if (!fc_mdp_eq_solve(w, mdp_apply, dr, dy)) return 0;
        fc_matrix_gemv(w->W, 1.0, dr, 0.0, du);
        fc_matrix_gemv(w->p->V, 1.0, dy, 1.0, du);
        for (int i = 0; i < m; i++) du[i] -= w->R1[i];
        goto psi;
    }
    fc_error e;
    if (fc_lu_solve(w->J.lu, w->rhs, dr, &e) != FC_OK) return 0;
    /* refinement against the exact W + D */
    for (int it = 0; it < 2; it++) {
        mdp_apply(w, dr, w->res);
        for (int i = 0; i < m; i++) w->res[i] = w->rhs[i] - w->res[i];
        if (fc_norm2(m, w->res) <= 1e-14 * fc_norm2(m, w->rhs)) break;
        if (fc_lu_solve(w->J.lu, w->res, w->res, &e) != FC_OK) return 0;
        for (int i = 0; i < m; i++) dr[i] += w->res[i];
    }
    /* du = W dr - R1 (the linear equations exact after a full step) */
    fc_matrix_gemv(w->W, 1.0, dr, 0.0, du);
    for (int i = 0; i < m; i++) du[i] -= w->R1[i];
psi:
    for (int a = 0; a < w->nc; a++) {
        if (!fc_mdp_frictional(w, a)) { dpsi[a] = 0; continue; }
        const double *Bk = w->B + (size_t)a * dd;
        const double *x = dr + d * a;
        double s = w->p->mu[a] * Bk[0] * x[0];
        for (int jj = 1; jj < d; jj++) s += Bk[jj * d] * x[jj];
        dpsi[a] = w->g[d * a] - s;
    }
    return 1;
}

/* Largest step in [0, 1] keeping contact a's pairs in their cones. */
static double mdp_contact_step(const mdp *w, int a, const double *dr, const double *du,
                               const double *dpsi)
{
    int d = w->d;
    double al = 1.0, be[3], et[3], dbe[3], det[3];
    if (dr[d * a] < 0) al = fmin(al, -w->r[d * a] / dr[d * a]);
    if (du[d * a] < 0) al = fmin(al, -w->u[d * a] / du[d * a]);
    if (!fc_mdp_frictional(w, a)) return al;
    pair_vectors(w, a, w->r, w->u, w->psi, be, et);
    pair_vectors(w, a, dr, du, dpsi, dbe, det);
    al = fc_soc_max_step(d, be, dbe, al);
    return fc_soc_max_step(d, et, det, al);
}

/* Largest step in [0, 1] keeping every pair in its cone. */
static double mdp_max_step(const mdp *w, const double *dr, const double *du,
                           const double *dpsi)
{
    double al = 1.0;
    for (int a = 0; a < w->nc; a++) al = fmin(al, mdp_contact_step(w, a, dr, du, dpsi));
    return al;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* A jam broken: each contact whose own step is below limit is solved on
 * its own, the others' reactions fixed (the one-contact solver of NSGS),
 * and put back a little inside its cones (products about mu_c): the
 * iterate leaves the wrong branch it was stuck on; the linear residual
 * takes the change.  Returns the number of contacts reset. */
static int mdp_unjam(mdp *w, double limit, double mu_c)
{
    int d = w->d, n = 0, below = 0;
    /* each contact's own step; at most MDP_UNJAM_SHARE of the contacts
     * (the most blocking) are reset at once: resetting more undoes the
     * iterate (docs/auto-measurements.md#unjam) */
    for (int a = 0; a < w->nc; a++) {
        w->step[a] = mdp_contact_step(w, a, w->dr, w->du, w->dpsi);
        below += w->step[a] < limit;
    }
    int cap = (int)(MDP_UNJAM_SHARE * w->nc) + 1;
    if (below > cap) {
        memcpy(w->tmp, w->step, (size_t)w->nc * sizeof *w->tmp);
        qsort(w->tmp, (size_t)w->nc, sizeof *w->tmp, cmp_double);
        limit = w->tmp[cap - 1];
    }
    double sr = fmax(fc_norm2(w->m, w->r), 1e-300), su = fmax(fc_norm2(w->m, w->u), 1e-300);
    double tr = sqrt(mu_c * sr / su), tu = sqrt(mu_c * su / sr);
    fc_local_params par = {FC_LOCAL_HYBRID, 1e-14, 50};
    for (int a = 0; a < w->nc; a++) {
        if (!(w->step[a] <= limit) || (below > cap && n >= cap)) continue;
        double blk[9], qa[3], ra[3], ua[3];
        if (w->global) {
            if (!fc_mdp_global_wblock(w, a, blk)) continue;
        } else {
            fc_matrix_diag_block(w->W, a, d, blk);
        }
        for (int i = 0; i < d; i++) {
            double s = w->ue[d * a + i];
            for (int j = 0; j < d; j++) s -= blk[i + j * d] * w->r[d * a + j];
            qa[i] = s;
            ra[i] = w->r[d * a + i];
        }
        fc_local c;
        fc_local_setup(&c, d, blk, w->p->mu[a], 0.0);
        fc_local_solve(&c, qa, &par, ra);
        fc_local_velocity(&c, qa, ra, ua);
        double mu = w->p->mu[a];
        double rt = fc_norm_small(d - 1, ra + 1);
        w->r[d * a] = (fc_mdp_frictional(w, a) ? fmax(ra[0], rt / mu) : fmax(ra[0], 0.0)) + tr;
        for (int k = 1; k < d; k++) w->r[d * a + k] = fc_mdp_frictional(w, a) ? ra[k] : 0.0;
        w->u[d * a] = fmax(ua[0], 0.0) + tu;
        for (int k = 1; k < d; k++) w->u[d * a + k] = ua[k];
        w->psi[a] = fc_norm_small(d - 1, ua + 1) + tu;
        n++;
    }
    return n;
}

/* u of r and the multipliers y (W r + V y + q, or H' M^-1 (H r + G y + f)
 * + w) into u; the SPEC error, with the equality rows' (a NaN kept). */
static double mdp_eval(mdp *w, const double *r, const double *y, double *u)
{
    const fc_problem *p = w->p;
    double e;
    if (w->global) {
        fc_mdp_global_u(w, r, y, u);
        e = fc_error_measure(w->d, w->nc, p->mu, p->mu_r, p->w, r, u, NULL);
    } else {
        fc_affine(w->W, r, p->q, u);
        if (w->neq) fc_matrix_gemv(p->V, 1.0, y, 1.0, u);
        e = fc_error_local(p, r, u);
    }
    if (w->neq) {
        double e3 = fc_mdp_eq_rows(w, r, y, w->vr, w->ey);
        if (e3 > e || e3 != e3) e = e3;
    }
    return e;
}

/* The starting point: r from the guess, u = W r + q, both moved inside
 * by a common shift (Mehrotra's heuristic) plus a margin of their own
 * size (a well-centred start: margins of 1% and 10% took 1.8 and 1.2
 * times longer on the 844-contact column, and jammed sooner); psi that
 * margin above ||u_T||. */
static void mdp_start(mdp *w, const double *r0)
{
    int d = w->d, m = w->m;
    memcpy(w->r, r0, (size_t)m * sizeof *w->r);
    mdp_eval(w, w->r, w->y, w->u);
    if (w->global) memcpy(w->v, w->vr, (size_t)w->n * sizeof *w->v);
    double sr = 0, su = 0, ar = 0, au = 0;
    for (int i = 0; i < m; i++) { sr = fmax(sr, fabs(w->r[i])); su = fmax(su, fabs(w->u[i])); }
    /* r and u in their own units: u's size over W's scale when r is 0,
     * or as good as 0 (a joint scene's previous step left r ~ 1e-31, a
     * margin of that size started at mu 1e-29: MDP_START_ZERO) */
    if (!(su > 0)) su = 1.0;
    if (!(sr > MDP_START_ZERO * su / w->wscale)) sr = su / w->wscale;
    for (int a = 0; a < w->nc; a++) {
        const double *ra = w->r + d * a;
        double need = -ra[0];
        if (fc_mdp_frictional(w, a)) need = fmax(need, fc_norm_small(d - 1, ra + 1) / w->p->mu[a] - ra[0]);
        else for (int k = 1; k < d; k++) w->r[d * a + k] = 0;
        ar = fmax(ar, need);
        au = fmax(au, -w->u[d * a]);
    }
    double mg = fc_ipm_mdp_margin(w->opt);
    for (int a = 0; a < w->nc; a++) {
        w->r[d * a] += ar + mg * sr;
        w->u[d * a] += au + mg * su;
        w->psi[a] = fc_norm_small(d - 1, w->u + d * a + 1) + mg * su;
    }
}

/* Factorise W + D; on a singular matrix retry with a diagonal shift
 * growing from 1e-12 to 1e-4 of W's scale. */
static int mdp_factor(mdp *w)
{
    mdp_scalings(w);
    if (w->global) return fc_mdp_global_factor(w);
    double delta = 0;
    for (int k = 0; k < 5; k++) {
        mdp_assemble(w, delta);
        double rcond = 0;
        fc_error e;
        int ok = w->neq ? fc_mdp_eq_factor(w, delta, &rcond)
                        : fc_lu_factor(w->J.lu, w->J.Ax, &rcond, &e) == FC_OK;
        if (ok && rcond > (w->neq ? MDP_EQ_RCOND : 1e-15)) return 1;
        delta = delta == 0 ? 1e-12 * w->wscale : delta * 100;
    }
    fc_error_set(&w->err, FC_ERR_NUMERIC, "W + D numerically singular");
    return 0;
}

/* The interior point from r (and w->y); returns the best iterate's r, u,
 * y (into y when there are equality rows) and error.  *ended: 1 when a
 * limit (iterations, time, the progress callback) stopped it, 0 when it
 * converged, stalled or broke down. */
static fc_status mdp_run(mdp *w, double *r, double *u, double *y, double *err_out, int *ended,
                         fc_info *info)
{
    const fc_options *opt = w->opt;
    int d = w->d, m = w->m, nc = w->nc;
    double frac = opt->ipm.step_fraction > 0 && opt->ipm.step_fraction < 1 ? opt->ipm.step_fraction
                                                                          : 0.99;
    int stall_max = opt->ipm.stall > 0 ? opt->ipm.stall : 60;
    /* the guess may already be a solution */
    double best = mdp_eval(w, r, w->y, w->ue), mark = best;
    memcpy(w->best_r, r, (size_t)m * sizeof *r);
    fc_status st = FC_MAX_ITER;
    const char *why = "iteration limit";
    int iter = 0, tiny = 0, since = 0, jammed = 0, breaks = 0, path_end = 0;
    double unjam_best = INFINITY;
    double mu_first = 0;
    *ended = 1;
    const fc_lu *lu = w->global ? w->Klu : w->neq ? w->Blu : w->J.lu;
    double t_step = fc_lu_predicted_flops(lu) / MDP_FLOPS_PER_SECOND;
    fc_log(opt, 1, "ipm-mdp: %s LU of %d rows, predicted %.3g flops a factorisation",
           fc_lu_backend(lu) == FC_LU_KLU ? "KLU" : fc_lu_backend(lu) == FC_LU_DENSE ? "dense" : "UMFPACK",
           w->global ? w->n : w->neq ? w->N : w->m, fc_lu_predicted_flops(lu));
    if (!(best <= opt->tolerance)) mdp_start(w, r);
    while (!(best <= opt->tolerance)) {
        if (iter >= opt->max_iter) break;
        /* a step (a sparse LU) takes seconds at 10^4 contacts: none is
         * started that the time left cannot hold (the last one's time) */
        if (fc_clock_expired(&w->clock) ||
            (w->clock.limit > 0 && fc_clock_elapsed(&w->clock) + t_step > w->clock.limit)) {
            st = FC_TIME_LIMIT;
            why = "time limit";
            break;
        }
        double t0 = fc_now();
        int npairs;
        double pres = mdp_linear_residual(w);
        double gap = mdp_gap(w, w->r, w->u, w->psi, &npairs), mu_c = gap / npairs;
        if (iter == 0) mu_first = mu_c;
        /* a singular W + D comes at the end, when pairs reach their
         * boundaries (D's entries u_N / r_N and G^-2 without bound) */
        if (!mdp_factor(w)) { *ended = 0; why = "W + D numerically singular"; break; }
        iter++;
        /* predictor: rc = -x o y */
        double be[3], et[3], t1[3], t2[3], t3[3];
        for (int a = 0; a < nc; a++) {
            double *rc = w->rc + (size_t)a * (d + 1);
            rc[0] = -w->r[d * a] * w->u[d * a];
            if (!fc_mdp_frictional(w, a)) continue;
            fc_soc_prod(d, w->lam + d * a, w->lam + d * a, rc + 1);
            for (int k = 1; k <= d; k++) rc[k] = -rc[k];
        }
        if (!mdp_direction(w, w->dva, w->dra, w->dua, w->dpsia, w->dya)) { *ended = 0; why = "LU solve failed"; break; }
        double aa = mdp_max_step(w, w->dra, w->dua, w->dpsia);
        for (int i = 0; i < m; i++) { w->dr[i] = w->r[i] + aa * w->dra[i]; w->du[i] = w->u[i] + aa * w->dua[i]; }
        for (int a = 0; a < nc; a++) w->dpsi[a] = w->psi[a] + aa * w->dpsia[a];
        double gap_a = mdp_gap(w, w->dr, w->du, w->dpsi, NULL);
        double sigma = fmin(1.0, pow(fmax(0.0, gap_a) / fmax(gap, 1e-300), 3));
        /* corrector: rc = -x o y - (G^-1 dxa) o (G dya) + sigma mu e */
        for (int a = 0; a < nc; a++) {
            double *rc = w->rc + (size_t)a * (d + 1);
            rc[0] -= w->dra[d * a] * w->dua[d * a];
            rc[0] += sigma * mu_c;
            if (!fc_mdp_frictional(w, a)) continue;
            const double *nt = w->nt + (size_t)a * (d + 1);
            pair_vectors(w, a, w->dra, w->dua, w->dpsia, be, et);
            fc_soc_nt_apply(d, nt, 1, be, t1);
            fc_soc_nt_apply(d, nt, 0, et, t2);
            fc_soc_prod(d, t1, t2, t3);
            for (int k = 0; k < d; k++) rc[1 + k] -= t3[k];
            rc[1] += sigma * mu_c;
        }
        if (!mdp_direction(w, w->dv, w->dr, w->du, w->dpsi, w->dy)) { *ended = 0; why = "LU solve failed"; break; }
        /* at the end of the path a pair on its boundary can make the
         * direction infinite (mu 5e-14 on a column step): stop before
         * stepping into it */
        if (!fc_all_finite((size_t)m, w->dr) || !fc_all_finite((size_t)m, w->du) ||
            !fc_all_finite((size_t)nc, w->dpsi)) {
            *ended = 0;
            why = "non-finite Newton direction";
            break;
        }
        double al = fmin(1.0, frac * mdp_max_step(w, w->dr, w->du, w->dpsi));
        /* jammed: two steps in a row below MDP_JAM_STEP */
        jammed = al < MDP_JAM_STEP ? jammed + 1 : 0;
        /* (not at the end of the path, where short steps are the
         * degenerate contacts' and the polish's business) */
        if (opt->ipm.unjam && jammed >= 2 && mu_c > 1e-10 * mu_first) {
            /* the first break resets the contacts that block the step
             * (own step within twice it); each further one without a
             * better error since widens the net threefold */
            int nr = mdp_unjam(w, MDP_UNJAM_FACTOR * pow(3.0, breaks) * al / frac, mu_c);
            breaks++;
            unjam_best = best;
            fc_log(opt, 1, "ipm-mdp: jammed (step %.2e), %d contacts solved alone and reset", al, nr);
            jammed = 0;
            if (nr > 0) {
                mdp_eval(w, w->r, w->y, w->ue);   /* u of the new r, for the next break */
                continue;
            }
        }
        for (int i = 0; i < m; i++) { w->r[i] += al * w->dr[i]; w->u[i] += al * w->du[i]; }
        for (int a = 0; a < nc; a++) w->psi[a] += al * w->dpsi[a];
        if (w->global)
            for (int i = 0; i < w->n; i++) w->v[i] += al * w->dv[i];
        for (int j = 0; j < w->neq; j++) w->y[j] += al * w->dy[j];
        /* judged at (r, u of r) */
        double e = mdp_eval(w, w->r, w->y, w->ue);
        fc_log(opt, 1, "ipm-mdp %d: linear res %.3e, mu %.3e, sigma %.2e, step %.3e, spec %.3e",
               iter, pres, mu_c, sigma, al, e);
        if (!isfinite(e) || !fc_all_finite((size_t)m, w->r) || !fc_all_finite((size_t)nc, w->psi)) {
            *ended = 0;
            why = "NaN or infinite iterate";
            break;
        }
        if (e < best) {
            best = e;
            memcpy(w->best_r, w->r, (size_t)m * sizeof *r);
            if (w->neq) memcpy(w->best_y, w->y, (size_t)w->neq * sizeof *y);
        }
        if (opt->progress && opt->progress(opt->progress_user, iter, e)) { why = "stopped"; break; }
        /* stalled: the error not halved in stall_max steps, or steps
         * vanishing (the iterate jammed against the cones' boundaries) */
        if (best <= 0.5 * mark) { mark = best; since = 0; } else since++;
        if (best < 0.9 * unjam_best) breaks = 0;
        /* the end of the central path: mu 1e-12 of its first value, the
         * linear equations exact, the error no longer halving; what is
         * left (degenerate contacts at sqrt(mu)) is the polish's.  Once
         * there, the steps' rounding can raise the linear residual again
         * (frictionless 1515-contact column: from 1e-14 to 1e-6 while mu
         * fell from 1e-15 to 1e-24, 60 more steps): the end stays reached */
        if (mu_c <= 1e-12 * mu_first && pres <= 1e-12) path_end = 1;
        if (path_end && since >= 3) {
            *ended = 0;
            why = "the central path followed to its end";
            break;
        }
        tiny = al < 1e-8 ? tiny + 1 : 0;
        if (since >= stall_max || tiny >= 5) {
            *ended = 0;
            why = "the interior point stalled";
            break;
        }
        t_step = fc_now() - t0;
    }
    if (best <= opt->tolerance) { st = FC_CONVERGED; *ended = 0; }
    memcpy(r, w->best_r, (size_t)m * sizeof *r);
    if (w->neq) memcpy(y, w->best_y, (size_t)w->neq * sizeof *y);
    mdp_eval(w, r, y, u);
    info->iterations = iter;
    *err_out = best;
    if (st != FC_CONVERGED)
        snprintf(info->message, sizeof info->message, "%.80s after %d steps, error %.3e", why,
                 iter, best);
    return st;
}

/* The polish's Fischer-Burmeister bound, in tolerances (mdp_polish). */
#define MDP_POLISH_FB_NEAR 10.0

/* A polish stage's error, on the solver's own u. */
static double polish_measure(void *p, const double *r, double *u)
{
    const fc_problem *pb = p;
    return fc_all_finite((size_t)fc_problem_m(pb), u) ? fc_error_local(pb, r, u) : INFINITY;
}

/* The polish of an unconverged run (recorded as a stage, status run):
 * three stages under the limits left, NSGS sweeps from its best iterate
 * (they settle the contacts the central path leaves degenerate),
 * Alart-Curnier Newton (quadratic from there), and near the tolerance
 * (MDP_POLISH_FB_NEAR) Fischer-Burmeister Newton from the interior
 * point's own iterate; the best result is kept, the run's message
 * completed (docs/auto-measurements.md#polish).  With equality rows (y:
 * their multipliers, else NULL) the stages are the solvers' _eq entries
 * on (r, y), judged with the rows' residual. */
static fc_status mdp_polish(const fc_problem *p, const fc_options *opt, const fc_clock *clock,
                            fc_status run, double *r, double *u, double *y, double *best,
                            fc_info *info)
{
    int m = p->d * p->nc, neq = y ? p->neq : 0;
    fc_info_add_stage(info, "ipm-mdp", run, info->iterations, *best, fc_clock_elapsed(clock));
    char msg[sizeof info->message];
    memcpy(msg, info->message, sizeof msg);
    double *rs = fc_dup(r, (size_t)m), *us = fc_calloc((size_t)m, sizeof *us);
    double *r_ipm = fc_dup(r, (size_t)m);
    double *ys = neq ? fc_dup(y, (size_t)neq) : NULL, *y_ipm = neq ? fc_dup(y, (size_t)neq) : NULL;
    fc_status st = FC_MAX_ITER;
    if (!rs || !us || !r_ipm || (neq && (!ys || !y_ipm))) {
        free(rs); free(us); free(r_ipm); free(ys); free(y_ipm);
        return st;
    }
    static const char *names[] = {"nsgs", "nsn-ac", "nsn-fb"};
    fc_stages polish;
    fc_stages_init(&polish, p, opt, clock, info, NULL);
    if (neq) {
        polish.lambda = ys;
    } else {
        polish.measure = polish_measure;
        polish.measure_user = (void *)p;
    }
    for (int stage = 0; stage < 3 && st != FC_CONVERGED; stage++) {
        int max_iter = opt->max_iter - info->iterations;
        if (stage == 0 && max_iter > opt->ipm.polish_sweeps) max_iter = opt->ipm.polish_sweeps;
        fc_options o = fc_stage_options(&polish, max_iter);
        /* nsn-fb from the interior point's own iterate, and only near
         * the tolerance (docs/auto-measurements.md#polish) */
        if (stage == 2 && !(*best <= MDP_POLISH_FB_NEAR * opt->tolerance)) break;
        memcpy(rs, stage == 2 ? r_ipm : r, (size_t)m * sizeof *rs);
        if (neq) memcpy(ys, stage == 2 ? y_ipm : y, (size_t)neq * sizeof *ys);
        if (!fc_stage_run(&polish, fc_solver_find(names[stage]), NULL, FC_START_GIVEN, &o, rs, us))
            break;
        info->iterations += polish.stage_iterations;
        if (polish.err < *best) {
            *best = polish.err;
            memcpy(r, rs, (size_t)m * sizeof *r);
            memcpy(u, us, (size_t)m * sizeof *u);
            if (neq) memcpy(y, ys, (size_t)neq * sizeof *y);
        }
        if (*best <= opt->tolerance) st = FC_CONVERGED;
    }
    free(rs);
    free(us);
    free(r_ipm);
    free(ys);
    free(y_ipm);
    if (st != FC_CONVERGED && fc_clock_expired(clock)) st = FC_TIME_LIMIT;
    if (st == FC_CONVERGED) info->message[0] = 0;
    else snprintf(info->message, sizeof info->message, "%.160s; polished to %.3e", msg, *best);
    return st;
}

/* The local problem (y: the multipliers, NULL without equality rows). */
fc_status fc_ipm_mdp_solve_eq(const fc_problem *p, const fc_options *opt, double *r, double *u,
                              double *y, fc_info *info)
{
    if (p->d != 2 && p->d != 3) {
        snprintf(info->message, sizeof info->message, "ipm-mdp handles d = 2 and 3 only");
        return FC_STATUS_ERROR;
    }
    mdp w;
    if (!mdp_init(&w, p, opt, 0, y)) {
        snprintf(info->message, sizeof info->message, "ipm-mdp: %.200s", w.err.msg);
        mdp_free(&w);
        return FC_STATUS_ERROR;
    }
    fc_clock_start(&w.clock, opt);
    double best;
    int ended;
    fc_status st = mdp_run(&w, r, u, y, &best, &ended, info);
    fc_clock clock = w.clock;
    mdp_free(&w);
    if (st != FC_CONVERGED && !ended && opt->ipm.polish)
        st = mdp_polish(p, opt, &clock, st, r, u, y, &best, info);
    return st;
}

fc_status fc_ipm_mdp_solve(const fc_problem *p, const fc_options *opt, double *r, double *u,
                           fc_info *info)
{
    return fc_ipm_mdp_solve_eq(p, opt, r, u, NULL, info);
}

/* On the reduced problem: the whole solve, or the direct run's polish
 * (from its r and multipliers). */
typedef struct mdp_reduced {
    int direct;
    const fc_clock *clock;
    double *best;
    fc_status run;   /* the direct run's status */
} mdp_reduced;

static fc_status mdp_local(const fc_problem *loc, const fc_options *opt, double *r, double *u,
                           double *lambda, fc_info *info, void *user)
{
    mdp_reduced *c = user;
    if (!c->direct) return fc_ipm_mdp_solve_eq(loc, opt, r, u, lambda, info);
    fc_problem_u_eq(loc, r, lambda, u);
    *c->best = fc_error_local(loc, r, u);
    double eq = loc->neq ? fc_equality_residual(loc, r, NULL, lambda) : 0.0;
    if (eq > *c->best) *c->best = eq;
    return mdp_polish(loc, opt, c->clock, c->run, r, u, lambda, c->best, info);
}

/* The global problem: directly on (M, H) (and G), the Newton matrix at
 * the bodies' level (K = M + H D^-1 H', sparse LU: the unknowns dr = D^-1
 * (h + R1 - H' dv) eliminated contact by contact; bordered by G), when
 * ipm.formulation is 2 (primal), or 0 (auto) with at least
 * FC_IPM_MDP_DIRECT_CONTACTS contacts; otherwise, or when M is not
 * symmetric, through the reduction to W (and V, R).  The polish (NSGS and
 * Newton) runs on the reduced problem.  y: the multipliers (NULL without
 * equality rows). */
fc_status fc_ipm_mdp_solve_global_eq(const fc_problem *p, const fc_options *opt, double *r,
                                     double *u, double *v, double *y, fc_info *info)
{
    if (p->d != 2 && p->d != 3) {
        snprintf(info->message, sizeof info->message, "ipm-mdp handles d = 2 and 3 only");
        return FC_STATUS_ERROR;
    }
    int direct = opt->ipm.formulation == FC_IPM_PRIMAL ||
                 (opt->ipm.formulation == FC_IPM_AUTO && p->nc >= FC_IPM_MDP_DIRECT_CONTACTS);
    if (direct && fc_matrix_asymmetry(p->M) > FC_IPM_M_SYMMETRIC) direct = 0;
    fc_clock clock;
    fc_clock_start(&clock, opt);
    fc_status st = FC_MAX_ITER;
    double best = INFINITY;
    int ended = 1;
    if (direct) {
        mdp w;
        if (!mdp_init(&w, p, opt, 1, y)) {
            snprintf(info->message, sizeof info->message, "ipm-mdp: %.200s", w.err.msg);
            mdp_free(&w);
            return FC_STATUS_ERROR;
        }
        w.clock = clock;
        st = mdp_run(&w, r, u, y, &best, &ended, info);
        memcpy(v, w.vr, (size_t)p->n * sizeof *v);   /* v of the returned r (and y) */
        mdp_free(&w);
        if (st == FC_CONVERGED || ended || !opt->ipm.polish) return st;
    }
    /* the reduced problem: the whole solve, or the polish */
    mdp_reduced ctx = {direct, &clock, &best, st};
    fc_error err;
    fc_status rst;
    if (fc_solve_reduced_eq(p, opt, &clock, FC_V_M_FACTOR, mdp_local, &ctx, r, u, v, y, info, &rst,
                            &err) != FC_OK) {
        snprintf(info->message, sizeof info->message, "%.200s", err.msg);
        return direct ? st : FC_STATUS_ERROR;
    }
    return rst;
}

fc_status fc_ipm_mdp_solve_global(const fc_problem *p, const fc_options *opt, double *r,
                                  double *u, double *v, fc_info *info)
{
    return fc_ipm_mdp_solve_global_eq(p, opt, r, u, v, NULL, info);
}
