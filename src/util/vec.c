/* Dense vector kernels: dot products, norms, copies.  Threaded from
 * FC_PAR_MIN entries; sums go by fc_chunks (chunks fixed by the length,
 * partial sums added in chunk order), so a result does not depend on the
 * thread count, and below FC_CHUNK_MIN entries it is the plain loop's. */
#include "internal.h"

static double dot_chunk(fc_chunks c, int k, int n, const double *x, const double *y)
{
    double s = 0.0;
    for (int i = k * c.len, e = fc_chunk_end(c, k, n); i < e; i++) s += x[i] * y[i];
    return s;
}

double fc_dot(int n, const double *x, const double *y)
{
    fc_chunks c = fc_chunks_of(n, FC_CHUNK_MIN);
    double part[FC_CHUNKS_MAX];
    FC_PAR_FOR(n, , for (int k = 0; k < c.count; k++) { part[k] = dot_chunk(c, k, n, x, y); });
    return fc_chunks_sum(c, part);
}

/* The norm from a plain sum of squares when that is safe, else the
 * scaled loop (LAPACK's dnrm2 way, sequential: overflow and underflow
 * are rare). */
static double norm_from_sum(int n, const double *x, double sum)
{
    if (fc_plain_square_ok(sum)) return sqrt(sum);
    double scale = 0.0, ssq = 1.0;
    for (int i = 0; i < n; i++) {
        double a = fabs(x[i]);
        if (a == 0.0) continue;
        if (scale < a) {
            ssq = 1.0 + ssq * (scale / a) * (scale / a);
            scale = a;
        } else {
            ssq += (a / scale) * (a / scale);
        }
    }
    return scale * sqrt(ssq);
}

double fc_norm2(int n, const double *x) { return norm_from_sum(n, x, fc_dot(n, x, x)); }

/* The largest of the norms of x, y and z in one pass (one parallel
 * region, where three fc_norm2 calls open three): each sum of squares by
 * the same chunks as fc_dot, so the same bits as fmax of the three. */
double fc_norm2_max3(int n, const double *x, const double *y, const double *z)
{
    fc_chunks c = fc_chunks_of(n, FC_CHUNK_MIN);
    double part[3][FC_CHUNKS_MAX];
    FC_PAR_FOR(n, , for (int k = 0; k < c.count; k++) {
        part[0][k] = dot_chunk(c, k, n, x, x);
        part[1][k] = dot_chunk(c, k, n, y, y);
        part[2][k] = dot_chunk(c, k, n, z, z);
    });
    double nx = norm_from_sum(n, x, fc_chunks_sum(c, part[0]));
    double ny = norm_from_sum(n, y, fc_chunks_sum(c, part[1]));
    double nz = norm_from_sum(n, z, fc_chunks_sum(c, part[2]));
    return fmax(nx, fmax(ny, nz));
}

static double dist2_chunk(fc_chunks c, int k, int n, const double *x, const double *y)
{
    double s = 0.0;
    for (int i = k * c.len, e = fc_chunk_end(c, k, n); i < e; i++) s += (x[i] - y[i]) * (x[i] - y[i]);
    return s;
}

double fc_dist2(int n, const double *x, const double *y)
{
    fc_chunks c = fc_chunks_of(n, FC_CHUNK_MIN);
    double part[FC_CHUNKS_MAX];
    FC_PAR_FOR(n, , for (int k = 0; k < c.count; k++) { part[k] = dist2_chunk(c, k, n, x, y); });
    return sqrt(fc_chunks_sum(c, part));
}

void fc_copy(int n, const double *x, double *y)
{
    if (!FC_PAR_ON(n)) {
        if (n > 0) memcpy(y, x, (size_t)n * sizeof *y);
        return;
    }
    fc_chunks c = fc_chunks_of(n, FC_CHUNK_MIN);
#pragma omp parallel for schedule(static) num_threads(fc_threads())
    for (int k = 0; k < c.count; k++) {
        int lo = k * c.len;
        memcpy(y + lo, x + lo, (size_t)(fc_chunk_end(c, k, n) - lo) * sizeof *y);
    }
}

/* ||x - y||^2 and ||x||^2 in one parallel region (a sweep's change and
 * its size), each chunk's sums as fc_dist2's and fc_dot's: the same bits
 * for any thread count. */
void fc_sq_dist_norm(int n, const double *x, const double *y, double *dist2, double *norm2)
{
    fc_chunks c = fc_chunks_of(n, FC_CHUNK_MIN);
    double part[2][FC_CHUNKS_MAX];
    FC_PAR_FOR(n, , for (int k = 0; k < c.count; k++) {
        part[0][k] = dist2_chunk(c, k, n, x, y);
        part[1][k] = dot_chunk(c, k, n, x, x);
    });
    *dist2 = fc_chunks_sum(c, part[0]);
    *norm2 = fc_chunks_sum(c, part[1]);
}
