/* Time stepping: one impulse-velocity (Moreau-Jean / Anitescu-Tasora)
 * step builds the global problem
 *   M v+ = H r + f,  f = M v + h f_ext,  u = H^T v+ + w,  w_N = stab phi / h,
 * solves it with fc_solve (warm-started from the previous step's impulses,
 * contacts matched by body pair and feature) and moves the bodies with the
 * new velocities. */
#include "mbd/mbd.h"

#include <omp.h>
#include <stdio.h>

/* Degrees of freedom per moving body: 6, or 3 when planar. */
static int body_dofs(const fc_mbd_world *w) { return w->planar ? 3 : 6; }

/* Offsets of the bodies' degrees of freedom (-1 for fixed); returns n. */
static int dof_map(const fc_mbd_world *w, int *dof)
{
    int n = 0;
    for (int i = 0; i < w->nbodies; i++) {
        dof[i] = w->bodies[i].fixed ? -1 : n;
        if (!w->bodies[i].fixed) n += body_dofs(w);
    }
    return n;
}

/* Contacts [lo, hi)'s count per moving body added to cnt; with rank,
 * each side's rank among its body's contacts, from cnt's values on. */
static void count_sides(const fc_mbd_world *w, const int *dof, int lo, int hi, int *cnt, int *rank)
{
    for (int c = lo; c < hi; c++)
        for (int s = 0; s < 2; s++) {
            int b = s ? w->contacts[c].b : w->contacts[c].a;
            if (dof[b] < 0) continue;
            if (rank) rank[2 * c + s] = cnt[b];
            cnt[b]++;
        }
}

/* total[b]: the contacts of moving body b (nb bodies); with rank (2 nc
 * entries), each contact side's rank among its body's contacts in contact
 * order.  Threaded over ranges of contacts (per-thread counts, then each
 * body's offsets per thread, then the ranks): the same values.  -1 when
 * out of memory. */
static int side_counts(const fc_mbd_world *w, const int *dof, int *total, int *rank)
{
    int nb = w->nbodies, nc = w->ncontacts, nt = FC_PAR_ON(nc) ? fc_threads() : 1;
    memset(total, 0, (size_t)nb * sizeof *total);
    if (nt == 1) {
        count_sides(w, dof, 0, nc, total, rank);
        return 0;
    }
    int *cnt = fc_malloc((size_t)nt * (size_t)nb, sizeof *cnt);
    if (!cnt) return -1;
#pragma omp parallel num_threads(nt)
    {
        int me = omp_get_thread_num(), lo = (int)((long)nc * me / nt), hi = (int)((long)nc * (me + 1) / nt);
        int *mine = cnt + (size_t)me * (size_t)nb;
        memset(mine, 0, (size_t)nb * sizeof *mine);
        count_sides(w, dof, lo, hi, mine, NULL);
#pragma omp barrier
#pragma omp for schedule(static)
        for (int b = 0; b < nb; b++) {
            int at = 0;
            for (int t = 0; t < nt; t++) {
                int k = cnt[(size_t)t * (size_t)nb + b];
                cnt[(size_t)t * (size_t)nb + b] = at;
                at += k;
            }
            total[b] = at;
        }
        if (rank) count_sides(w, dof, lo, hi, mine, rank);
    }
    free(cnt);
    return 0;
}

/* H's structure: d entries per contact on each of the rows of each moving
 * body; rowcount (n entries) becomes each row's fill cursor; with rank
 * (2 nc entries), each contact side's rank among its body's contacts
 * (side_counts). */
static fc_err h_structure(const fc_mbd_world *w, const int *dof, fc_problem *p, int *rowcount, int d,
                          int *rank)
{
    int *total = fc_malloc((size_t)w->nbodies, sizeof *total);
    if (!total || side_counts(w, dof, total, rank)) { free(total); return FC_ERR_NOMEM; }
    int n = p->n, rows = body_dofs(w);
    for (int i = 0; i < w->nbodies; i++)
        if (dof[i] >= 0)
            for (int r = 0; r < rows; r++) rowcount[dof[i] + r] = d * total[i];
    free(total);
    long nnz = 0;
    for (int r = 0; r < n; r++) nnz += rowcount[r];
    p->H = fc_matrix_csr_unset(n, d * w->ncontacts, nnz);   /* every entry written by the caller */
    if (!p->H) return FC_ERR_NOMEM;
    p->H->p[0] = 0;
    for (int r = 0; r < n; r++) p->H->p[r + 1] = p->H->p[r] + rowcount[r];
    for (int r = 0; r < n; r++) rowcount[r] = p->H->p[r];
    return FC_OK;
}

/* The planar problem: per body rows (x, y, theta_z), per contact (n, t1). */
static fc_err build_planar(const fc_mbd_world *w, const int *dof, fc_problem *p, int *rowcount)
{
    int nc = w->ncontacts, n = p->n;
    long k = 0;
    for (int i = 0; i < w->nbodies; i++) {
        const fc_mbd_body *b = &w->bodies[i];
        int o = dof[i];
        if (o < 0) continue;
        double I[9];
        fc_mbd_world_inertia(b, I);
        for (int r = 0; r < 3; r++) {
            double mass = r < 2 ? b->mass : I[8];
            p->M->p[o + r] = (int)k;
            p->M->j[k] = o + r;
            p->M->x[k++] = mass;
            p->f[o + r] = r < 2 ? b->mass * (b->v[r] + w->h * w->gravity[r]) : I[8] * b->omega[2];
        }
    }
    p->M->p[n] = (int)k;
    if (h_structure(w, dof, p, rowcount, 2, NULL)) return FC_ERR_NOMEM;
    for (int c = 0; c < nc; c++) {
        const fc_mbd_contact *ct = &w->contacts[c];
        const double *dir[2] = {ct->n, ct->t1};
        int bodies[2] = {ct->a, ct->b};
        for (int s = 0; s < 2; s++) {
            int bi = bodies[s], o = dof[bi];
            if (o < 0) continue;
            double sign = s == 0 ? 1.0 : -1.0;
            double ax = ct->p[0] - w->bodies[bi].x[0], ay = ct->p[1] - w->bodies[bi].x[1];
            for (int r = 0; r < 3; r++) {
                int pos = rowcount[o + r];
                for (int e = 0; e < 2; e++) {
                    double val = r < 2 ? dir[e][r] : ax * dir[e][1] - ay * dir[e][0];
                    p->H->j[pos + e] = 2 * c + e;
                    p->H->x[pos + e] = sign * val;
                }
                rowcount[o + r] = pos + 2;
            }
        }
        p->w[2 * c] = w->stab * ct->gap / w->h;
        p->mu[c] = ct->mu;
    }
    return FC_OK;
}

/* The applied impulse h f_ext of a body: gravity and the gyroscopic term. */
static void applied_impulse(const fc_mbd_world *w, const fc_mbd_body *b, const double I[9],
                            double out[6])
{
    double Iw[3], g[3];
    for (int r = 0; r < 3; r++) Iw[r] = I[3 * r] * b->omega[0] + I[3 * r + 1] * b->omega[1] + I[3 * r + 2] * b->omega[2];
    v3_cross(b->omega, Iw, g);
    for (int k = 0; k < 3; k++) {
        out[k] = w->h * b->mass * w->gravity[k];
        out[3 + k] = -w->h * g[k];
    }
}

/* The joints' rows (G, b) into p; p handed out, the work arrays freed. */
static fc_err finish(const fc_mbd_world *w, int *dof, int *rowcount, fc_problem *p,
                     fc_problem **out, fc_error *err)
{
    fc_err e = w->njoints ? fc_mbd_joint_assemble(w, dof, p, err) : FC_OK;
    free(dof);
    free(rowcount);
    if (e) fc_problem_free(p);
    else *out = p;
    return e;
}

fc_err fc_mbd_build_problem(const fc_mbd_world *w, fc_problem **out, fc_error *err)
{
    *out = NULL;
    int nc = w->ncontacts;
    if (nc == 0 && w->njoints == 0) return FC_OK;
    int *dof = fc_calloc((size_t)w->nbodies, sizeof *dof);
    int *rowcount = NULL, *rank = NULL;
    fc_problem *p = NULL;
    if (!dof) goto nomem;
    int n = dof_map(w, dof);
    if (nc == 0 && fc_mbd_joint_row_count(w, dof) == 0) {
        free(dof);
        return FC_OK;
    }
    if (!(p = fc_problem_new(FC_GLOBAL, w->planar ? 2 : 3, nc))) goto nomem;
    if (n == 0) {
        free(dof);
        fc_problem_free(p);
        return fc_error_set(err, FC_ERR_INVALID, "no moving body");
    }
    int m = p->d * nc;
    p->n = n;
    p->M = fc_matrix_csr(n, n, w->planar ? n : 12L * (n / 6));
    p->f = fc_calloc((size_t)n, sizeof *p->f);
    p->w = fc_calloc((size_t)m, sizeof *p->w);
    rowcount = fc_calloc((size_t)n + 1, sizeof *rowcount);
    if (!p->M || !p->f || !p->w || !rowcount) goto nomem;
    if (w->planar) {
        if (build_planar(w, dof, p, rowcount)) goto nomem;
        return finish(w, dof, rowcount, p, out, err);
    }

    /* M: per body, mass on 3 rows, the 3 x 3 world inertia on 3 rows (12
     * entries from 2 o, o its first row); f.  Threaded: each body and each
     * contact below writes its own entries */
    int nb = w->nbodies;
    FC_PAR_FOR(nb, , for (int i = 0; i < nb; i++) {
        const fc_mbd_body *b = &w->bodies[i];
        if (dof[i] < 0) continue;
        int o = dof[i];
        long k = 2L * o;
        double I[9], fe[6];
        fc_mbd_world_inertia(b, I);
        applied_impulse(w, b, I, fe);
        for (int r = 0; r < 3; r++) {
            p->M->p[o + r] = (int)k;
            p->M->j[k] = o + r;
            p->M->x[k++] = b->mass;
            p->f[o + r] = b->mass * b->v[r] + fe[r];
        }
        for (int r = 0; r < 3; r++) {
            p->M->p[o + 3 + r] = (int)k;
            for (int c = 0; c < 3; c++) {
                p->M->j[k] = o + 3 + c;
                p->M->x[k++] = I[3 * r + c];
            }
            p->f[o + 3 + r] = I[3 * r] * b->omega[0] + I[3 * r + 1] * b->omega[1] +
                              I[3 * r + 2] * b->omega[2] + fe[3 + r];
        }
    });
    p->M->p[n] = 2 * n;

    /* H: 3 entries per contact on each of the 6 rows of each moving body,
     * at 3 (the contact's rank among the body's contacts) into each row */
    rank = fc_malloc(2 * (size_t)nc, sizeof *rank);   /* read for moving bodies' sides only */
    if (!rank || h_structure(w, dof, p, rowcount, 3, rank)) goto nomem;
    FC_PAR_FOR(nc, , for (int c = 0; c < nc; c++) {
        const fc_mbd_contact *ct = &w->contacts[c];
        const double *dir[3] = {ct->n, ct->t1, ct->t2};
        int bodies[2] = {ct->a, ct->b};
        for (int s = 0; s < 2; s++) {
            int bi = bodies[s], o = dof[bi];
            if (o < 0) continue;
            double sign = s == 0 ? 1.0 : -1.0, arm[3], rot[3][3];
            for (int d = 0; d < 3; d++) arm[d] = ct->p[d] - w->bodies[bi].x[d];
            for (int e = 0; e < 3; e++) v3_cross(arm, dir[e], rot[e]);
            for (int r = 0; r < 6; r++) {
                int pos = p->H->p[o + r] + 3 * rank[2 * c + s];
                for (int e = 0; e < 3; e++) {
                    p->H->j[pos + e] = 3 * c + e;
                    p->H->x[pos + e] = sign * (r < 3 ? dir[e][r] : rot[e][r - 3]);
                }
            }
        }
        p->w[3 * c] = w->stab * ct->gap / w->h;
        p->mu[c] = ct->mu;
    });
    free(rank);
    return finish(w, dof, rowcount, p, out, err);
nomem:
    free(dof);
    free(rowcount);
    free(rank);
    fc_problem_free(p);
    return fc_error_set(err, FC_ERR_NOMEM, "out of memory building the step's problem");
}

static int cmp_kept(const void *pa, const void *pb)
{
    const fc_mbd_kept *a = pa, *b = pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    return (a->feature > b->feature) - (a->feature < b->feature);
}

static fc_mbd_kept key_of(const fc_mbd_contact *ct)
{
    fc_mbd_kept k = {ct->a < ct->b ? ct->a : ct->b, ct->a < ct->b ? ct->b : ct->a, ct->feature,
                     {0, 0, 0}, {0, 0, 0}};
    return k;
}

/* Previous impulses of the current contacts (0 for new ones); count
 * found.  Copied component by component, or (w->warm_world) the kept
 * world vector on the new frame, projected on the cone: a frame rebuilt
 * from a turned normal (fc_mbd_tangents) may turn the tangents.
 * Threaded: a binary search per contact in the kept list. */
static int warm_start(const fc_mbd_world *w, double *r)
{
    int found = 0, d = w->planar ? 2 : 3, nc = w->ncontacts, world = w->warm_world;
    FC_PAR_FOR(nc, reduction(+ : found), for (int c = 0; c < nc; c++) {
        const fc_mbd_contact *ct = &w->contacts[c];
        fc_mbd_kept key = key_of(ct);
        const fc_mbd_kept *old =
            w->nprev ? bsearch(&key, w->prev, (size_t)w->nprev, sizeof *w->prev, cmp_kept) : NULL;
        const double *dir[3] = {ct->n, ct->t1, ct->t2};
        double sign = ct->a == key.lo ? 1.0 : -1.0;
        for (int e = 0; e < d; e++)
            r[d * c + e] = !old ? 0.0 : world ? sign * v3_dot(old->f, dir[e]) : old->r[e];
        if (old && world) fc_project_cone(d, ct->mu, 0.0, r + d * c);
        found += old != NULL;
    });
    return found;
}

/* The step's impulses r (d per contact) into its contacts, and kept with
 * their keys for the next warm start: in the detection's order, already
 * sorted by key but where a pair's features come out of order (then
 * sorted).  Threaded; -1 when out of memory. */
static int remember(fc_mbd_world *w, const double *r, int d)
{
    int nc = w->ncontacts, unsorted = 0;
    if (nc > w->cap_prev) {
        fc_mbd_kept *np = realloc(w->prev, (size_t)nc * sizeof *np);
        if (!np) return -1;
        w->prev = np;
        w->cap_prev = nc;
    }
    fc_mbd_kept *kept = w->prev;
    fc_mbd_contact *ct = w->contacts;
    FC_PAR_FOR(nc, reduction(| : unsorted), for (int c = 0; c < nc; c++) {
        fc_mbd_kept k = key_of(&ct[c]);
        const double *dir[3] = {ct[c].n, ct[c].t1, ct[c].t2};
        double sign = ct[c].a == k.lo ? 1.0 : -1.0;
        for (int e = 0; e < 3; e++) k.r[e] = ct[c].r[e] = e < d ? r[d * c + e] : 0.0;
        for (int x = 0; x < 3; x++) {
            k.f[x] = 0.0;
            for (int e = 0; e < d; e++) k.f[x] += sign * r[d * c + e] * dir[e][x];
        }
        kept[c] = k;
        if (c > 0) {
            fc_mbd_kept before = key_of(&ct[c - 1]);
            unsorted |= cmp_kept(&before, &k) >= 0;
        }
    });
    w->nprev = nc;
    if (unsorted) qsort(w->prev, (size_t)nc, sizeof *w->prev, cmp_kept);
    return 0;
}

/* Velocities without contact: v+ = v + M^-1 h f_ext. */
static void free_flight(const fc_mbd_world *w, fc_mbd_body *b)
{
    double I[9], fe[6];
    fc_mbd_world_inertia(b, I);
    applied_impulse(w, b, I, fe);
    for (int k = 0; k < 3; k++) b->v[k] += fe[k] / b->mass;
    /* omega += I^-1 fe[3..5], I = R diag R^T */
    double R[9], l[3];
    fc_mbd_quat_matrix(b->q, R);
    for (int k = 0; k < 3; k++)
        l[k] = (R[k] * fe[3] + R[3 + k] * fe[4] + R[6 + k] * fe[5]) / b->inertia[k];
    for (int k = 0; k < 3; k++) b->omega[k] += R[3 * k] * l[0] + R[3 * k + 1] * l[1] + R[3 * k + 2] * l[2];
    if (w->planar) b->v[2] = b->omega[0] = b->omega[1] = 0;
}

/* ||G^T v + b|| / max(1, ||b||), SPEC's equality residual. */
static double joint_residual(const fc_problem *p, const double *v)
{
    double *e = fc_dup(p->b, (size_t)p->neq), s = 0, nb = 0;
    if (!e) return NAN;
    fc_matrix_gemv_t(p->G, 1.0, v, 1.0, e);
    for (int k = 0; k < p->neq; k++) {
        s += e[k] * e[k];
        nb += p->b[k] * p->b[k];
    }
    free(e);
    return sqrt(s) / fmax(1.0, sqrt(nb));
}

/* The joints' lambda and the step's columns: handed to the joints (per
 * row) from in, or the joints' last ones (0 for a new row) into out;
 * 0 when out of memory. */
static int joint_lambda(fc_mbd_world *w, const double *in, double *out)
{
    int *dof = fc_calloc((size_t)w->nbodies, sizeof *dof);
    if (!dof) return 0;
    dof_map(w, dof);
    if (in) fc_mbd_joint_scatter(w, dof, in);
    if (out) fc_mbd_joint_gather(w, dof, out);
    free(dof);
    return 1;
}

/* Bodies [lo, hi): the velocities from v (when v; o the first moving one's
 * place in v), then the positions; the largest speed into *vmax. */
static void advance_range(fc_mbd_world *w, const double *v, int lo, int hi, int o, double *vmax)
{
    for (int i = lo; i < hi; i++) {
        fc_mbd_body *b = &w->bodies[i];
        if (b->fixed) continue;
        if (v && w->planar) {
            b->v[0] = v[o];
            b->v[1] = v[o + 1];
            b->v[2] = b->omega[0] = b->omega[1] = 0;
            b->omega[2] = v[o + 2];
            o += 3;
        } else if (v) {
            for (int k = 0; k < 3; k++) {
                b->v[k] = v[o + k];
                b->omega[k] = v[o + 3 + k];
            }
            o += 6;
        }
        for (int k = 0; k < 3; k++) b->x[k] += w->h * b->v[k];
        fc_mbd_quat_integrate(b->q, b->omega, w->h);
        double s = v3_norm(b->v);
        if (s > *vmax) *vmax = s;
    }
}

/* The velocities from the solve's v (when v) and the positions from them;
 * the largest speed.  Each thread its own range of bodies, the ranges of
 * the detection's grid (fc_mbd_body_range): the lines a thread writes here
 * are the ones it reads there first. */
static double advance(fc_mbd_world *w, const double *v)
{
    int nb = w->nbodies, nt = FC_PAR_ON(nb) ? fc_threads() : 1, per = w->planar ? 3 : 6;
    double vmax = 0;
    int *moving = nt > 1 ? fc_calloc((size_t)nt + 1, sizeof *moving) : NULL;   /* per range */
    if (!moving) {
        advance_range(w, v, 0, nb, 0, &vmax);
        return vmax;
    }
#pragma omp parallel num_threads(nt) reduction(max : vmax)
    {
        int me = omp_get_thread_num(), lo, hi, o = 0, mine = 0;
        fc_mbd_body_range(nb, nt, me, &lo, &hi);
        for (int i = lo; i < hi; i++) mine += !w->bodies[i].fixed;
        moving[me + 1] = mine;
#pragma omp barrier
        for (int t = 0; t < me; t++) o += per * moving[t + 1];
        advance_range(w, v, lo, hi, o, &vmax);
    }
    free(moving);
    return vmax;
}

static fc_err step(fc_mbd_world *w, const char *solver, const fc_options *opt,
                   fc_mbd_step_info *info, fc_error *err)
{
    fc_mbd_step_info tmp;
    fc_error etmp;
    if (!info) info = &tmp;
    if (!err) err = &etmp;
    memset(info, 0, sizeof *info);
    double t0 = fc_now();
    if (fc_mbd_detect(w) < 0) return fc_error_set(err, FC_ERR_NOMEM, "out of memory in contact detection");
    info->npairs = w->npairs;
    info->ncontacts = w->ncontacts;
    double t1 = fc_now();
    info->t_detect = t1 - t0;
#ifdef FC_DTRACE
    {
        char tag[64];
        snprintf(tag, sizeof tag, "sim step %d threads %d wall %.1f", w->step + 1, fc_threads(),
                 1e6 * (t1 - t0));
        fc_mbd_dtrace_dump(stderr, tag);
    }
#endif
    fc_problem_free(w->last);
    w->last = NULL;
    fc_problem_free(w->last_local);
    w->last_local = NULL;
    free(w->last_r);
    free(w->last_v);
    free(w->last_r0);
    free(w->last_lambda);
    w->last_r = w->last_v = w->last_r0 = w->last_lambda = NULL;
    fc_problem *p = NULL;
    if (fc_mbd_build_problem(w, &p, err)) return err->code;
    double t2 = fc_now();
    info->t_build = t2 - t1;
    info->min_gap = INFINITY;
    for (int c = 0; c < w->ncontacts; c++) info->min_gap = fmin(info->min_gap, w->contacts[c].gap);

    if (!p) {
        for (int i = 0; i < w->nbodies; i++)
            if (!w->bodies[i].fixed) free_flight(w, &w->bodies[i]);
    } else {
        int m = p->d * p->nc;
        double *r = fc_calloc((size_t)m, sizeof *r), *u = fc_calloc((size_t)m, sizeof *u);
        double *r0 = fc_calloc((size_t)m, sizeof *r0), *v = fc_calloc((size_t)p->n, sizeof *v);
        double *lambda = fc_calloc((size_t)p->neq, sizeof *lambda);
        if (!r || !u || !r0 || !v || !lambda) {
            free(r); free(u); free(r0); free(v); free(lambda);
            fc_problem_free(p);
            return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
        }
        info->neq = p->neq;
        info->warm = warm_start(w, r0);
        fc_options o;
        if (opt) o = *opt;
        else fc_default_options(&o);
        o.r0 = r0;
        double *lambda0 = p->neq > 0 ? fc_calloc((size_t)p->neq, sizeof *lambda0) : NULL;
        if (lambda0 && joint_lambda(w, NULL, lambda0)) o.lambda0 = lambda0;
        const fc_solver *sv = fc_solver_find(solver ? solver : fc_mbd_default_solver(w));
        fc_err e = FC_OK;
        /* the step reduces for solvers without the global entry point */
        int reduce_here = sv && !w->planar && !w->general_reduction &&
                          (p->neq ? !sv->solve_global_eq && sv->solve_local_eq != NULL : !sv->solve_global);
        if (!sv) {
            e = fc_error_set(err, FC_ERR_UNKNOWN_SOLVER, "unknown solver '%s'", solver);
        } else if (p->nc == 0) {
            /* joints only: a linear problem, solved here */
            e = fc_mbd_joint_solve(w, p, v, lambda, err);
            info->solve.status = FC_CONVERGED;
            info->solve.eq_residual = joint_residual(p, v);
        } else if (!reduce_here) {
            /* the solver takes the global problem (or fc_solve reduces
             * it); one without equalities refuses: FC_ERR_UNSUPPORTED */
            e = fc_solve_eq(p, sv->name, &o, r, u, v, lambda, &info->solve, err);
            info->global_residual = info->solve.residual;
        } else {
            /* reduced here with the block-diagonal M^-1 (and the joints'
             * V, R, s), then solved */
            fc_mbd_reduced red;
            double *Y = NULL;
            e = fc_mbd_reduce(w, p, &red, err);
            if (!e && p->neq) e = fc_mbd_joint_reduce(w, p, red.local, &Y, err);
            if (!e) e = fc_solve_eq(red.local, sv->name, &o, r, u, NULL, lambda, &info->solve, err);
            if (!e) {
                fc_mbd_recover_v(w, p, &red, r, v);
                if (Y) fc_mbd_joint_recover(p->n, p->neq, Y, lambda, v);
                memcpy(u, p->w, (size_t)m * sizeof *u);
                fc_matrix_gemv_t(p->H, 1.0, v, 1.0, u);
                info->global_residual = fc_error_local(p, r, u);
                fc_problem_free(w->last_local);
                w->last_local = red.local;
                red.local = NULL;
            }
            free(Y);
            fc_mbd_reduced_free(&red);
        }
        info->t_solve = fc_now() - t2;
        free(lambda0);
        if (e == FC_OK && !fc_all_finite((size_t)p->n, v))
            e = fc_error_set(err, FC_ERR_NUMERIC, "step %d: the solver returned non-finite velocities",
                             w->step + 1);
        if (e) {
            free(r); free(u); free(r0); free(v); free(lambda);
            fc_problem_free(p);
            return e;
        }
        joint_lambda(w, lambda, NULL);   /* kept: the joints' and the export's */
        w->last_lambda = lambda;
        free(u);
        w->last_r0 = r0;
        w->last = p;
        w->last_r = r;
        w->last_v = v;
        if (remember(w, r, p->d)) return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    }
    double vmax = advance(w, p ? w->last_v : NULL);
    if (!p) w->nprev = 0;   /* no contact (remember's otherwise) */
    w->step++;
    w->time += w->h;
    info->step = w->step;
    info->time = w->time;
    info->max_speed = vmax;
    info->t_step = fc_now() - t0;
    return FC_OK;
}

/* The step on the solve's threads: the detection, the assembly and the
 * reduction too. */
fc_err fc_mbd_step(fc_mbd_world *w, const char *solver, const fc_options *opt,
                   fc_mbd_step_info *info, fc_error *err)
{
    int before = fc_threads_set(fc_threads_resolve(opt ? opt->threads : 1));
    fc_err e = step(w, solver, opt, info, err);
    fc_threads_set(before);
    return e;
}
