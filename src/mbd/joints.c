/* Joints: equality constraints between two bodies or a body and the world.
 * Each joint has position errors C (rows) whose exact time derivatives are
 * G^T v (the rows' Jacobian, 6 coefficients per body: v then omega); a
 * step asks G^T v+ + b = 0 with b = stab C / h, so that C shrinks by
 * (1 - stab) per step, as w_N = stab phi / h does for the contacts' gaps.
 *   point rows     C = x_a + R_a p_a - x_b - R_b p_b          (ball, hinge, fixed)
 *   axis rows      C_i = (R_b t_i) . (R_a axis_a)              (hinge, 2 rows)
 *   slide rows     C_i = (R_b t_i) . (point difference)        (prismatic, 2 rows)
 *   rotation rows  C = 2 vec(q_a conj(q_ref) conj(q_b))        (fixed, prismatic)
 * The world (b = -1) is a body at the origin with the identity pose. */
#include "mbd/mbd.h"

/* Quaternion product a b (w, x, y, z). */
static void qmul(const double a[4], const double b[4], double c[4])
{
    double r[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                   a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                   a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                   a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
    memcpy(c, r, sizeof r);
}

static void qconj(const double q[4], double c[4])
{
    c[0] = q[0]; c[1] = -q[1]; c[2] = -q[2]; c[3] = -q[3];
}

/* Pose of body i, the world's identity pose for i < 0. */
static void pose(const fc_mbd_world *w, int i, double x[3], double q[4])
{
    static const double zero[3] = {0, 0, 0}, one[4] = {1, 0, 0, 0};
    memcpy(x, i >= 0 ? w->bodies[i].x : zero, 3 * sizeof *x);
    memcpy(q, i >= 0 ? w->bodies[i].q : one, 4 * sizeof *q);
}

/* Body-frame vector of world vector wv for the pose q: R^T wv. */
static void unrotate(const double q[4], const double wv[3], double out[3])
{
    double c[4];
    qconj(q, c);
    fc_mbd_rotate(c, wv, out);
}

int fc_mbd_joint_rows(fc_mbd_joint_type type)
{
    static const int rows[] = {3, 5, 6, 5};
    return type >= FC_MBD_BALL && type <= FC_MBD_PRISMATIC ? rows[type] : 0;
}

int fc_mbd_add_joint(fc_mbd_world *w, fc_mbd_joint_type type, int a, int b,
                     const double anchor[3], const double axis[3])
{
    if (!fc_mbd_joint_rows(type) || a < 0 || a >= w->nbodies || b < -1 || b >= w->nbodies || a == b)
        return -1;
    double ax[3] = {0, 0, 1};
    if (type == FC_MBD_HINGE || type == FC_MBD_PRISMATIC) {
        double l = axis ? v3_norm(axis) : 0;
        if (!(l > 0)) return -1;
        for (int k = 0; k < 3; k++) ax[k] = axis[k] / l;
    }
    if (w->njoints == w->cap_joints) {
        fc_mbd_joint *nj = fc_mbd_grow(w->joints, &w->cap_joints, sizeof *nj, 16);
        if (!nj) return -1;
        w->joints = nj;
    }
    fc_mbd_joint *j = &w->joints[w->njoints];
    memset(j, 0, sizeof *j);
    j->type = type;
    j->a = a;
    j->b = b;
    double xa[3], qa[4], xb[3], qb[4], d[3], t[2][3];
    pose(w, a, xa, qa);
    pose(w, b, xb, qb);
    for (int k = 0; k < 3; k++) d[k] = anchor[k] - xa[k];
    unrotate(qa, d, j->pa);
    for (int k = 0; k < 3; k++) d[k] = anchor[k] - xb[k];
    unrotate(qb, d, j->pb);
    unrotate(qa, ax, j->axis);
    fc_mbd_tangents(ax, t[0], t[1]);
    unrotate(qb, t[0], j->tb[0]);
    unrotate(qb, t[1], j->tb[1]);
    double cb[4];
    qconj(qb, cb);
    qmul(cb, qa, j->qref);
    return w->njoints++;
}

int fc_mbd_joint_count(const fc_mbd_world *w) { return w->njoints; }
const fc_mbd_joint *fc_mbd_joint_at(const fc_mbd_world *w, int i)
{
    return i >= 0 && i < w->njoints ? &w->joints[i] : NULL;
}
void fc_mbd_set_joint_stabilisation(fc_mbd_world *w, double f) { if (f >= 0) w->joint_stab = f; }

/* Row with linear direction e on both sides at the arms ra, rb; the extra
 * angular term eb (may be NULL) on b. */
static void point_row(fc_mbd_jrow *r, const double e[3], const double ra[3], const double rb[3],
                      const double *eb, double c)
{
    double ca[3], cbv[3];
    v3_cross(ra, e, ca);
    v3_cross(rb, e, cbv);
    for (int k = 0; k < 3; k++) {
        r->ja[k] = e[k];
        r->ja[3 + k] = ca[k];
        r->jb[k] = -e[k];
        r->jb[3 + k] = -cbv[k] + (eb ? eb[k] : 0.0);
    }
    r->c = c;
}

/* Angular-only row: coefficients ga on omega_a and gb on omega_b. */
static void angular_row(fc_mbd_jrow *r, const double ga[3], const double gb[3], double c)
{
    for (int k = 0; k < 3; k++) {
        r->ja[k] = r->jb[k] = 0;
        r->ja[3 + k] = ga[k];
        r->jb[3 + k] = gb[k];
    }
    r->c = c;
}

int fc_mbd_joint_jacobian(const fc_mbd_world *w, const fc_mbd_joint *j, fc_mbd_jrow rows[6])
{
    double xa[3], qa[4], xb[3], qb[4], ra[3], rb[3], d[3];
    pose(w, j->a, xa, qa);
    pose(w, j->b, xb, qb);
    fc_mbd_rotate(qa, j->pa, ra);
    fc_mbd_rotate(qb, j->pb, rb);
    for (int k = 0; k < 3; k++) d[k] = xa[k] + ra[k] - xb[k] - rb[k];
    int n = 0;
    if (j->type != FC_MBD_PRISMATIC)
        for (int k = 0; k < 3; k++) {
            double e[3] = {k == 0, k == 1, k == 2};
            point_row(&rows[n++], e, ra, rb, NULL, d[k]);
        }
    if (j->type == FC_MBD_HINGE || j->type == FC_MBD_PRISMATIC) {
        double ua[3];
        fc_mbd_rotate(qa, j->axis, ua);
        for (int i = 0; i < 2; i++) {
            double t[3], g[3], mg[3];
            fc_mbd_rotate(qb, j->tb[i], t);
            if (j->type == FC_MBD_HINGE) {
                v3_cross(ua, t, g);
                for (int k = 0; k < 3; k++) mg[k] = -g[k];
                angular_row(&rows[n++], g, mg, v3_dot(t, ua));
            } else {
                v3_cross(t, d, g);
                point_row(&rows[n++], t, ra, rb, g, v3_dot(t, d));
            }
        }
    }
    if (j->type == FC_MBD_FIXED || j->type == FC_MBD_PRISMATIC) {
        double cr[4], cb[4], e[4];
        qconj(j->qref, cr);
        qconj(qb, cb);
        qmul(qa, cr, e);
        qmul(e, cb, e);
        if (e[0] < 0)
            for (int k = 0; k < 4; k++) e[k] = -e[k];
        for (int k = 0; k < 3; k++) {
            double ek[3] = {k == 0, k == 1, k == 2}, x[3], ga[3], gb[3];
            v3_cross(e + 1, ek, x);
            for (int c = 0; c < 3; c++) {
                ga[c] = e[0] * ek[c] + x[c];
                gb[c] = -(e[0] * ek[c] - x[c]);
            }
            angular_row(&rows[n++], ga, gb, 2 * e[1 + k]);
        }
    }
    return n;
}

int fc_mbd_joint_error(const fc_mbd_world *w, int j, double *C)
{
    if (j < 0 || j >= w->njoints) return 0;
    fc_mbd_jrow rows[6];
    int n = fc_mbd_joint_jacobian(w, &w->joints[j], rows);
    for (int i = 0; i < n; i++) C[i] = rows[i].c;
    return n;
}

double fc_mbd_joint_drift(const fc_mbd_world *w)
{
    double m = 0, C[6];
    for (int j = 0; j < w->njoints; j++) {
        int n = fc_mbd_joint_error(w, j, C);
        for (int i = 0; i < n; i++) m = fmax(m, fabs(C[i]));
    }
    return m;
}

/* Planar worlds keep the rows without out-of-plane coefficients (v_z,
 * omega_x, omega_y): in-plane point rows, the rotation about z. */
static int planar_row(const fc_mbd_jrow *r)
{
    static const int out[3] = {2, 3, 4};
    double big = 1, small = 0;
    for (int k = 0; k < 6; k++) big = fmax(big, fmax(fabs(r->ja[k]), fabs(r->jb[k])));
    for (int k = 0; k < 3; k++) small = fmax(small, fmax(fabs(r->ja[out[k]]), fabs(r->jb[out[k]])));
    return small <= 1e-9 * big;
}

/* Calls emit(dof row, column, value) for every nonzero of G (and sets
 * b[column] when b != NULL, each row's lambda from lambda[column] when
 * lambda != NULL: 0 for skipped rows; last[column] from each row's lambda
 * when last != NULL); returns neq.  Joints between bodies that do not move
 * are skipped. */
static int joint_entries(const fc_mbd_world *w, const int *dof, int *count, int *cursor,
                         fc_matrix *G, double *b, const double *lambda, double *last)
{
    static const int planar_dofs[3] = {0, 1, 5};
    int col = 0, nd = w->planar ? 3 : 6;
    double scale = w->joint_stab / w->h;
    for (int jj = 0; jj < w->njoints; jj++) {
        const fc_mbd_joint *j = &w->joints[jj];
        int da = dof[j->a], db = j->b >= 0 ? dof[j->b] : -1;
        if (da < 0 && db < 0) continue;
        fc_mbd_jrow rows[6];
        int n = fc_mbd_joint_jacobian(w, j, rows);
        for (int i = 0; i < n; i++) {
            if (lambda) w->joints[jj].lambda[i] = 0;
            if (w->planar && !planar_row(&rows[i])) continue;
            if (lambda) w->joints[jj].lambda[i] = lambda[col];
            if (last) last[col] = j->lambda[i];
            const double *coef[2] = {rows[i].ja, rows[i].jb};
            int base[2] = {da, db};
            for (int s = 0; s < 2; s++) {
                if (base[s] < 0) continue;
                for (int k = 0; k < nd; k++) {
                    double v = coef[s][w->planar ? planar_dofs[k] : k];
                    if (v == 0) continue;
                    int row = base[s] + k;
                    if (count) count[row]++;
                    if (G) {
                        G->j[cursor[row]] = col;
                        G->x[cursor[row]++] = v;
                    }
                }
            }
            if (b) b[col] = scale * rows[i].c;
            col++;
        }
    }
    return col;
}

int fc_mbd_joint_row_count(const fc_mbd_world *w, const int *dof)
{
    return joint_entries(w, dof, NULL, NULL, NULL, NULL, NULL, NULL);
}

void fc_mbd_joint_gather(const fc_mbd_world *w, const int *dof, double *lambda)
{
    joint_entries(w, dof, NULL, NULL, NULL, NULL, NULL, lambda);
}

void fc_mbd_joint_scatter(fc_mbd_world *w, const int *dof, const double *lambda)
{
    joint_entries(w, dof, NULL, NULL, NULL, NULL, lambda, NULL);
}

fc_err fc_mbd_joint_assemble(const fc_mbd_world *w, const int *dof, fc_problem *p, fc_error *err)
{
    int n = p->n;
    int *count = fc_calloc((size_t)n + 1, sizeof *count);
    if (!count) return fc_error_set(err, FC_ERR_NOMEM, "out of memory for the joints");
    int neq = joint_entries(w, dof, count, NULL, NULL, NULL, NULL, NULL);
    fc_err e = fc_problem_set_equalities(p, neq, err);
    long nnz = 0;
    for (int r = 0; r < n; r++) nnz += count[r];
    if (!e && !(p->G = fc_matrix_csr(n, neq, nnz)))
        e = fc_error_set(err, FC_ERR_NOMEM, "out of memory for the joints");
    if (!e) {
        p->G->p[0] = 0;
        for (int r = 0; r < n; r++) p->G->p[r + 1] = p->G->p[r] + count[r];
        for (int r = 0; r < n; r++) count[r] = p->G->p[r];
        joint_entries(w, dof, NULL, count, p->G, p->b, NULL, NULL);
    }
    free(count);
    return e;
}

/* The 6 x 6 (planar: 3 x 3) inverse mass block of body i, row-major. */
static void inverse_mass(const fc_mbd_world *w, const fc_mbd_body *b, double *Mi)
{
    int nd = w->planar ? 3 : 6;
    memset(Mi, 0, (size_t)(nd * nd) * sizeof *Mi);
    for (int k = 0; k < (w->planar ? 2 : 3); k++) Mi[nd * k + k] = 1.0 / b->mass;
    double R[9];
    fc_mbd_quat_matrix(b->q, R);
    if (w->planar) {
        double I[9];
        fc_mbd_world_inertia(b, I);
        Mi[8] = 1.0 / I[8];
        return;
    }
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += R[3 * r + k] * R[3 * c + k] / b->inertia[k];
            Mi[6 * (3 + r) + 3 + c] = s;
        }
}

/* Y = M^-1 G (row-major n x neq) and v0 = M^-1 f, body by body. */
static fc_err minv_g(const fc_mbd_world *w, const fc_problem *p, double **Yout, double **v0out, fc_error *err)
{
    int n = p->n, neq = p->neq, nd = w->planar ? 3 : 6;
    *Yout = *v0out = NULL;
    if ((double)neq * neq > 2e7 || (double)n * neq > 1e8)
        return fc_error_set(err, FC_ERR_INVALID, "%d joint rows: too many for the step's dense "
                            "elimination of the joints (at most 4472)", neq);
    double *Y = fc_calloc((size_t)n * (size_t)(neq ? neq : 1), sizeof *Y);
    double *v0 = fc_calloc((size_t)n, sizeof *v0), Mi[36];
    if (!Y || !v0) {
        free(Y); free(v0);
        return fc_error_set(err, FC_ERR_NOMEM, "out of memory eliminating the joints");
    }
    for (int i = 0, o = 0; i < w->nbodies; i++) {
        if (w->bodies[i].fixed) continue;
        inverse_mass(w, &w->bodies[i], Mi);
        for (int r = 0; r < nd; r++)
            for (int c = 0; c < nd; c++) {
                double m = Mi[nd * r + c];
                if (m == 0) continue;
                v0[o + r] += m * p->f[o + c];
                for (int k = p->G->p[o + c]; k < p->G->p[o + c + 1]; k++)
                    Y[(size_t)(o + r) * neq + p->G->j[k]] += m * p->G->x[k];
            }
        o += nd;
    }
    *Yout = Y;
    *v0out = v0;
    return FC_OK;
}

/* out += A^T Y for the CSR A (n x k) and Y (n x neq, row-major): entry
 * (a, c) of the k x neq product at out[a * sa + c * sc]. */
static void at_y(const fc_matrix *A, const double *Y, int neq, double *out, size_t sa, size_t sc)
{
    for (int r = 0; r < A->rows; r++)
        for (int k = A->p[r]; k < A->p[r + 1]; k++) {
            double g = A->x[k];
            const double *y = Y + (size_t)r * neq;
            for (int c = 0; c < neq; c++) out[(size_t)A->j[k] * sa + (size_t)c * sc] += g * y[c];
        }
}

fc_err fc_mbd_joint_solve(const fc_mbd_world *w, const fc_problem *p, double *v, double *lambda,
                          fc_error *err)
{
    int n = p->n, neq = p->neq;
    double *Y, *v0;
    fc_err e = minv_g(w, p, &Y, &v0, err);
    if (e) return e;
    double *A = fc_calloc((size_t)neq * (size_t)(neq ? neq : 1), sizeof *A);
    if (!A) {
        free(Y); free(v0);
        return fc_error_set(err, FC_ERR_NOMEM, "out of memory in the joints' solve");
    }
    /* A = G^T Y, rhs lambda = -(G^T v0 + b) */
    at_y(p->G, Y, neq, A, (size_t)neq, 1);
    for (int a = 0; a < neq; a++) lambda[a] = -p->b[a];
    fc_matrix_gemv_t(p->G, -1.0, v0, 1.0, lambda);
    /* Cholesky with dependent rows (pivots below 1e-10 of the largest
     * diagonal: redundant joints, e.g. a spatial four-bar) dropped */
    double dmax = 0;
    for (int a = 0; a < neq; a++) dmax = fmax(dmax, A[(size_t)a * neq + a]);
    for (int k = 0; k < neq; k++) {
        double *Rk = A + (size_t)k * neq;
        double dk = Rk[k];
        for (int i = 0; i < k; i++) dk -= A[(size_t)i * neq + k] * A[(size_t)i * neq + k];
        if (!(dk > 1e-10 * dmax)) {
            for (int c = k; c < neq; c++) Rk[c] = 0;
            continue;
        }
        double l = sqrt(dk);
        Rk[k] = l;
        for (int c = k + 1; c < neq; c++) {
            double s = Rk[c];
            for (int i = 0; i < k; i++) s -= A[(size_t)i * neq + k] * A[(size_t)i * neq + c];
            Rk[c] = s / l;
        }
    }
    /* A holds U (upper) with U^T U = G^T M^-1 G on the kept rows */
    for (int k = 0; k < neq; k++) {
        double u = A[(size_t)k * neq + k], s = lambda[k];
        for (int i = 0; i < k; i++) s -= A[(size_t)i * neq + k] * lambda[i];
        lambda[k] = u > 0 ? s / u : 0;
    }
    for (int k = neq - 1; k >= 0; k--) {
        double u = A[(size_t)k * neq + k], s = lambda[k];
        for (int c = k + 1; c < neq; c++) s -= A[(size_t)k * neq + c] * lambda[c];
        lambda[k] = u > 0 ? s / u : 0;
    }
    memcpy(v, v0, (size_t)n * sizeof *v);
    fc_mbd_joint_recover(n, neq, Y, lambda, v);
    free(Y); free(v0); free(A);
    return FC_OK;
}

fc_err fc_mbd_joint_reduce(const fc_mbd_world *w, const fc_problem *g, fc_problem *loc, double **Y,
                           fc_error *err)
{
    int neq = g->neq, m = fc_problem_m(g);
    double *v0;
    fc_err e = minv_g(w, g, Y, &v0, err);
    if (!e) e = fc_problem_set_equalities(loc, neq, err);
    if (!e && (!(loc->V = fc_matrix_dense(m, neq)) || !(loc->R = fc_matrix_dense(neq, neq))))
        e = fc_error_set(err, FC_ERR_NOMEM, "out of memory eliminating the joints");
    if (!e) {
        /* dense column-major: (a, c) at a + c * rows */
        at_y(g->H, *Y, neq, loc->V->x, 1, (size_t)m);
        at_y(g->G, *Y, neq, loc->R->x, 1, (size_t)neq);
        memcpy(loc->s, g->b, (size_t)neq * sizeof *loc->s);
        fc_matrix_gemv_t(g->G, 1.0, v0, 1.0, loc->s);
    }
    free(v0);
    if (e) {
        free(*Y);
        *Y = NULL;
    }
    return e;
}

void fc_mbd_joint_recover(int n, int neq, const double *Y, const double *lambda, double *v)
{
    for (int r = 0; r < n; r++) {
        double s = 0;
        for (int c = 0; c < neq; c++) s += Y[(size_t)r * neq + c] * lambda[c];
        v[r] += s;
    }
}

double fc_mbd_potential_energy(const fc_mbd_world *w)
{
    double e = 0;
    for (int i = 0; i < w->nbodies; i++)
        if (!w->bodies[i].fixed) e -= w->bodies[i].mass * v3_dot(w->gravity, w->bodies[i].x);
    return e;
}

int *fc_mbd_joint_pairs(const fc_mbd_world *w)
{
    int *jp = fc_calloc(2 * (size_t)w->njoints + 2, sizeof *jp);
    if (!jp) return NULL;
    for (int k = 0; k < w->njoints; k++) {
        int a = w->joints[k].a, b = w->joints[k].b;
        jp[2 * k] = a < b ? a : b;
        jp[2 * k + 1] = a < b ? b : a;
    }
    qsort(jp, (size_t)w->njoints, 2 * sizeof *jp, fc_mbd_cmp_pair);
    return jp;
}

int fc_mbd_joint_filter(const int *jp, int njoints, int *pairs, int npairs)
{
    if (njoints == 0) return npairs;
    int kept = 0;
    for (int k = 0; k < npairs; k++) {
        int key[2] = {pairs[2 * k], pairs[2 * k + 1]};
        if (key[0] > key[1]) { int t = key[0]; key[0] = key[1]; key[1] = t; }
        if (bsearch(key, jp, (size_t)njoints, 2 * sizeof *jp, fc_mbd_cmp_pair)) continue;
        pairs[2 * kept] = pairs[2 * k];
        pairs[2 * kept + 1] = pairs[2 * k + 1];
        kept++;
    }
    return kept;
}

const char *fc_mbd_default_solver(const fc_mbd_world *w)
{
    /* nsn-ac before nsgs: on the box chain nsgs stalls then diverges
     * (docs/mbd.md#joints) */
    static const char *order[] = {NULL, "nsn-ac", "nsgs"};
    if (!w || w->njoints == 0) return fc_default_solver();
    order[0] = fc_default_solver();
    for (int k = 0; k < 3; k++) {
        const fc_solver *s = fc_solver_find(order[k]);
        if (s && (s->solve_global_eq || s->solve_local_eq)) return s->name;
    }
    return fc_default_solver();
}
