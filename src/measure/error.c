/* The error measure of SPEC section 2 and per-contact diagnostics:
 *   e_a = r_a - P_Ka(r_a - u_hat_a),  u_hat_a = u_a + (mu_a ||u_T,a||
 *   [+ mu_r,a ||u_R,a||]) e_N,  error = ||e|| / max(||q||, ||r||, ||u||). */
#include "internal.h"
#include "measure/measure.h"

/* The natural-map residual of one contact, e = r - P_K(r - u_hat), or
 * with u in place of u_hat (desaxce = 0: the convex relaxation's). */
static void natural_map(int d, double mu, double mu_r, const double *r, const double *u,
                        int desaxce, double *e)
{
    double x[5];
    double uhat_n = u[0];
    if (desaxce) {
        uhat_n += mu * fc_hypot(u[1], d > 2 ? u[2] : 0.0);
        if (d == 5) uhat_n += mu_r * fc_hypot(u[3], u[4]);
    }
    x[0] = r[0] - uhat_n;
    for (int k = 1; k < d; k++) x[k] = r[k] - u[k];
    fc_project_cone(d, mu, mu_r, x);
    for (int k = 0; k < d; k++) e[k] = r[k] - x[k];
}

void fc_contact_residual(int d, double mu, double mu_r, const double *r,
                         const double *u, double *e)
{
    natural_map(d, mu, mu_r, r, u, 1, e);
}

/* The law a contact is in, judged with a tolerance relative to s. */
static fc_law contact_law(int d, double mu, const double *r, const double *u, double s)
{
    double rt = fc_hypot(r[1], d > 2 ? r[2] : 0.0);
    double ut = fc_hypot(u[1], d > 2 ? u[2] : 0.0);
    if (r[0] <= 1e-12 * s) return FC_LAW_SEPARATED;
    if (ut <= 1e-9 * s || rt < mu * r[0] * (1 - 1e-9)) return FC_LAW_STICKING;
    return FC_LAW_SLIDING;
}

/* At most this many chunks of contacts, each at least ERR_CHUNK_MIN. */
#define ERR_CHUNKS 256
#define ERR_CHUNK_MIN 512

/* The measure of Coulomb's law (desaxce = 1) or of the relaxation. */
/* One chunk of contacts of the measure: its running scale *big and sum
 * of squares *ssq, the diagnostics; 1 when an error is not finite. */
static int measure_chunk(int d, int nc, int chunk, int k, const double *mu, const double *mu_r,
                         const double *r, const double *u, double s, fc_contact_diag *diag,
                         int desaxce, double *big, double *ssq)
{
    double b = 0.0, q = 1.0;
    int bad = 0, end = (k + 1) * chunk < nc ? (k + 1) * chunk : nc;
    for (int a = k * chunk; a < end; a++) {
        double e[5];
        natural_map(d, mu[a], mu_r ? mu_r[a] : 0.0, r + d * a, u + d * a, desaxce, e);
        double ea = fc_norm_small(d, e);
        if (diag) {
            diag[a].contact = a;
            diag[a].error = ea / s;
            diag[a].law = contact_law(d, mu[a], r + d * a, u + d * a, s);
        }
        if (ea == 0.0) continue;
        if (!isfinite(ea)) { bad = 1; continue; }
        if (ea > b) { q = 1.0 + q * (b / ea) * (b / ea); b = ea; }
        else q += (ea / b) * (ea / b);
    }
    *big = b;
    *ssq = q;
    return bad;
}

static double measure(int d, int nc, const double *mu, const double *mu_r, const double *scale,
                      const double *r, const double *u, fc_contact_diag *diag, int desaxce)
{
    int m = d * nc;
    double s = fc_norm2_max3(m, scale, r, u);
    if (s < 1e-300) s = 1.0;
    /* ||e||^2 accumulated with a running scale (no overflow), in chunks of
     * contacts whose size depends on nc alone: the threads' partial sums
     * are combined in chunk order, so the result is the same for any
     * thread count */
    double big[ERR_CHUNKS], ssq[ERR_CHUNKS];
    int chunk = nc / ERR_CHUNKS + 1 > ERR_CHUNK_MIN ? nc / ERR_CHUNKS + 1 : ERR_CHUNK_MIN;
    int nchunks = (nc + chunk - 1) / chunk, bad = 0;
    FC_PAR_FOR(nc, reduction(| : bad), for (int k = 0; k < nchunks; k++) {
        bad |= measure_chunk(d, nc, chunk, k, mu, mu_r, r, u, s, diag, desaxce, big + k, ssq + k);
    });
    if (bad) return NAN;
    double total = 0.0, sq = 1.0;
    for (int k = 0; k < nchunks; k++) {
        if (big[k] == 0.0) continue;
        if (big[k] > total) { sq = ssq[k] + sq * (total / big[k]) * (total / big[k]); total = big[k]; }
        else sq += ssq[k] * (big[k] / total) * (big[k] / total);
    }
    double err = total * sqrt(sq) / s;
    return isfinite(s) ? err : NAN;
}

double fc_error_measure(int d, int nc, const double *mu, const double *mu_r,
                        const double *scale, const double *r, const double *u,
                        fc_contact_diag *diag)
{
    return measure(d, nc, mu, mu_r, scale, r, u, diag, 1);
}

/* The vector whose norm scales the measure: w for a global problem and
 * for a local one reduced from it (which keeps w: its q is W-shifted, and
 * SPEC scales by the global problem's ||w||), else q. */
static const double *measure_scale(const fc_problem *p)
{
    return p->w ? p->w : p->q;
}

double fc_error_local(const fc_problem *p, const double *r, const double *u)
{
    const double *scale = measure_scale(p);
    return fc_error_measure(p->d, p->nc, p->mu, p->mu_r, scale, r, u, NULL);
}

double fc_error_relaxation(const fc_problem *p, const double *r, const double *u)
{
    return measure(p->d, p->nc, p->mu, p->mu_r, measure_scale(p), r, u, NULL, 0);
}

double fc_diagnose(const fc_problem *p, const double *r, const double *u,
                   fc_contact_diag *diag)
{
    return fc_error_measure(p->d, p->nc, p->mu, p->mu_r, measure_scale(p), r, u, diag);
}

const char *fc_law_name(fc_law law)
{
    return law == FC_LAW_SEPARATED ? "separated" : law == FC_LAW_STICKING ? "sticking" : "sliding";
}
