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

/* Contacts below which the measure is one chunk (the plain loop). */
#define ERR_CHUNK_MIN 512
/* A norm above every vector's whose plain sum of squares underflows. */
#define ERR_TINY_NORM 1e-140

/* The sums over one chunk of contacts: ||e||^2 with a running scale (no
 * overflow), and the plain sums of squares of the three vectors whose
 * norms make the measure's scale s. */
typedef struct err_part {
    double big, ssq;  /* ||e|| = big sqrt(ssq) */
    double sum[3];    /* scale, r, u */
    int bad;          /* an error not finite */
} err_part;

/* One chunk: contacts a0 .. a1 - 1; diag[a].error gets the unscaled
 * ||e_a|| (divided by s once s is known). */
static void measure_chunk(int d, int a0, int a1, const double *mu, const double *mu_r,
                          const double *scale, const double *r, const double *u,
                          fc_contact_diag *diag, int desaxce, err_part *part)
{
    double b = 0.0, q = 1.0, s0 = 0.0, s1 = 0.0, s2 = 0.0;
    int bad = 0;
    for (int i = d * a0; i < d * a1; i++) {
        s0 += scale[i] * scale[i];
        s1 += r[i] * r[i];
        s2 += u[i] * u[i];
    }
    for (int a = a0; a < a1; a++) {
        double e[5];
        natural_map(d, mu[a], mu_r ? mu_r[a] : 0.0, r + d * a, u + d * a, desaxce, e);
        double ea = fc_norm_small(d, e);
        if (diag) { diag[a].contact = a; diag[a].error = ea; }
        if (ea == 0.0) continue;
        if (!isfinite(ea)) { bad = 1; continue; }
        if (ea > b) { q = 1.0 + q * (b / ea) * (b / ea); b = ea; }
        else q += (ea / b) * (ea / b);
    }
    part->big = b;
    part->ssq = q;
    part->bad = bad;
    part->sum[0] = s0;
    part->sum[1] = s1;
    part->sum[2] = s2;
}

/* The measure of Coulomb's law (desaxce = 1) or of the relaxation: one
 * pass over the contacts, in chunks whose layout depends on nc alone
 * (fc_chunks_of); the chunks' sums are combined in chunk order, so the
 * result is the same for any thread count. */
static double measure(int d, int nc, const double *mu, const double *mu_r, const double *scale,
                      const double *r, const double *u, fc_contact_diag *diag, int desaxce)
{
    int m = d * nc;
    fc_chunks c = fc_chunks_of(nc, ERR_CHUNK_MIN);
    err_part part[FC_CHUNKS_MAX];
    FC_PAR_CHUNKS(nc, c.count,
                  measure_chunk(d, k * c.len, fc_chunk_end(c, k, nc), mu, mu_r, scale, r, u,
                                diag, desaxce, part + k););
    /* s = max(||scale||, ||r||, ||u||): the plain sums when safe; an
     * overflowed sum's careful norm; a sum below the safe range (a zero
     * vector, r at a cold start) bounds its norm far below ERR_TINY_NORM,
     * so it needs the careful norm only when no other vector reaches that */
    double s = 0.0, total = 0.0, sq = 1.0;
    int bad = 0, tiny[3];
    const double *v[3] = {scale, r, u};
    for (int i = 0; i < 3; i++) {
        double sum = 0.0;
        for (int k = 0; k < c.count; k++) sum += part[k].sum[i];
        tiny[i] = sum <= 1e-300;
        if (!tiny[i]) s = fmax(s, fc_plain_square_ok(sum) ? sqrt(sum) : fc_norm2(m, v[i]));
    }
    for (int i = 0; i < 3; i++)
        if (tiny[i] && !(s >= ERR_TINY_NORM)) s = fmax(s, fc_norm2(m, v[i]));
    if (s < 1e-300) s = 1.0;
    for (int k = 0; k < c.count; k++) {
        bad |= part[k].bad;
        if (part[k].big == 0.0) continue;
        if (part[k].big > total) {
            sq = part[k].ssq + sq * (total / part[k].big) * (total / part[k].big);
            total = part[k].big;
        } else {
            sq += part[k].ssq * (part[k].big / total) * (part[k].big / total);
        }
    }
    if (diag)
        for (int a = 0; a < nc; a++) {
            diag[a].error /= s;
            diag[a].law = contact_law(d, mu[a], r + d * a, u + d * a, s);
        }
    if (bad) return NAN;
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
