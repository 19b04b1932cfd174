/* Repeated factorisations of a symmetric matrix of fixed sparsity pattern
 * (the Newton / KKT matrices of the interior-point and ADMM solvers):
 * the pattern is built and analysed once (AMD ordering), then the values
 * change and the matrix is refactorised each iteration with no allocation
 * beyond CHOLMOD's reused workspaces.  Positive definite matrices use a
 * supernodal LL'; quasi-definite ones ([A B; B' -C], A, C positive
 * definite) a simplicial LDL', which exists for every symmetric ordering.
 * A diagonal regularisation can be added to the factorisation only; the
 * solves then refine iteratively against the exact matrix. */
#include "internal.h"
#include "linsys/linsys.h"

#include <cholmod.h>
#include <omp.h>

/* The Schur complement of a quasi-definite [A11 B; B' -C] whose C is
 * block diagonal (fc_kkt_new_schur): S = A11 + B C^-1 B' (n1 x n1,
 * positive definite), a supernodal LL'; C^-1 block by block. */
/* The Schur complement is used only above this flop count of the whole
 * LDL' (CHOLMOD's estimate). */
#define FC_KKT_SCHUR_MIN_FLOPS 1e8

typedef struct kkt_schur {
    int n1, bs, nb;        /* A11's size, C's block size, number of blocks   */
    cholmod_sparse *S;     /* upper triangle of S, values rebuilt per factor  */
    cholmod_factor *L;
    cholmod_dense *b, *x, *Y, *E; /* rhs, solution, solve workspaces (n1)   */
    int na, *apos, *aspos; /* A11's entries: position in A->x and in S->x    */
    int *cpos;             /* nb * bs * bs: block entries (ii <= jj) in A->x, -1 absent */
    int *rp, *rows;        /* block k couples rows rows[rp[k] .. rp[k+1]) of A11 */
    int *bpos;             /* per coupled row, bs positions of B in A->x (-1 absent) */
    long *sp;              /* block k: its S positions start at sp[k]        */
    int *spos;             /* upper pairs (a <= b) of the coupled rows -> S->x */
    double *cinv;          /* nb * bs * bs: C^-1 of the last factorisation   */
    double *t;             /* n1 workspace                                    */
    fc_snsolve *sn;        /* L's threaded solve (NULL: CHOLMOD's)            */
    int sn_tried;
} kkt_schur;

struct fc_kkt {
    cholmod_common c;
    cholmod_sparse *A;   /* upper triangle, CSC, sorted, exact values */
    cholmod_factor *L;
    cholmod_dense *B, *X, *Y, *E, *R, *D; /* rhs, solution, solve workspaces, residual, correction */
    long *diag;          /* position of each diagonal entry in A->x */
    double *best;        /* the refinement's best x so far */
    int n, quasidef, analysed;
    kkt_schur *sc;       /* NULL: A factorised as a whole */
    double pred_flops;   /* one factorisation, as the analysis predicts it */
    double solve_res;    /* the last solve's ||b - A x||_inf / ||b||_inf */
    fc_snsolve *sn;      /* L's threaded solve (NULL: CHOLMOD's) */
    int sn_tried;
    int sm_threads;      /* sym_mult's row split: built for this count (0: none) */
    int *sm_row;         /* sm_threads + 1 row boundaries                         */
    int *sm_lo;          /* sm_threads * n: thread t's first entry of column j    */
};

/* X = A^-1 B with the factor L: on threads (supernodal_solve.c) from 2
 * threads when L is large enough, else CHOLMOD's solve; the plan is made
 * at the first solve.  0: out of memory. */
static int chol_solve(cholmod_factor *L, fc_snsolve **sn, int *tried, cholmod_dense *B,
                      cholmod_dense **X, cholmod_dense **Y, cholmod_dense **E, cholmod_common *c)
{
    if (fc_threads() > 1 && fc_snsolve_applies(L)) {
        if (!*tried) { *sn = fc_snsolve_new(L); *tried = 1; }
        if (*sn && !*X) *X = cholmod_allocate_dense(L->n, 1, L->n, CHOLMOD_REAL, c);
        if (*sn && *X && fc_snsolve_solve(*sn, L, B->x, (*X)->x)) return 1;
    }
    return cholmod_solve2(CHOLMOD_A, L, B, NULL, X, NULL, Y, E, c) != 0;
}

/* The factor may hold at most this many times the matrix's stored entries
 * (plus 1e6): a small multiple of the problem's own size (as linsys/lu.c). */
#define FC_KKT_MAX_FILL 50.0

double fc_kkt_predicted_flops(const fc_kkt *K) { return K->pred_flops; }
double fc_kkt_solve_residual(const fc_kkt *K) { return K->solve_res; }

static fc_kkt *kkt_new(int n, long nz, const int *ti, const int *tj, const double *tx,
                       int quasidef, int analyse, fc_error *err);

fc_kkt *fc_kkt_new(int n, long nz, const int *ti, const int *tj, const double *tx,
                   int quasidef, fc_error *err)
{
    return kkt_new(n, nz, ti, tj, tx, quasidef, 1, err);
}

static fc_kkt *kkt_new(int n, long nz, const int *ti, const int *tj, const double *tx,
                       int quasidef, int analyse, fc_error *err)
{
    fc_kkt *K = calloc(1, sizeof *K);
    if (!K) { fc_error_set(err, FC_ERR_NOMEM, "out of memory building a KKT matrix"); return NULL; }
    cholmod_start(&K->c);
    K->c.print = 0;
    K->c.error_handler = NULL;
    K->n = n;
    K->quasidef = quasidef;
    if (quasidef) {
        K->c.final_ll = 0;
        K->c.supernodal = CHOLMOD_SIMPLICIAL;
    }
    /* triplets of the upper triangle, plus an explicit diagonal */
    cholmod_triplet *T = cholmod_allocate_triplet((size_t)n, (size_t)n, (size_t)(nz + n), 1,
                                                  CHOLMOD_REAL, &K->c);
    if (!T) goto nomem;
    int *Ti = T->i, *Tj = T->j;
    double *Tx = T->x;
    long t = 0;
    for (long k = 0; k < nz; k++) {
        int i = ti[k], j = tj[k];
        if (i > j) { int s = i; i = j; j = s; }
        Ti[t] = i; Tj[t] = j; Tx[t] = tx ? tx[k] : 0.0; t++;
    }
    for (int i = 0; i < n; i++) { Ti[t] = i; Tj[t] = i; Tx[t] = 0.0; t++; }
    T->nnz = (size_t)t;
    K->A = cholmod_triplet_to_sparse(T, (size_t)t, &K->c);
    cholmod_free_triplet(&T, &K->c);
    if (!K->A) goto nomem;
    K->diag = fc_calloc((size_t)n, sizeof *K->diag);
    K->B = cholmod_allocate_dense((size_t)n, 1, (size_t)n, CHOLMOD_REAL, &K->c);
    K->R = cholmod_allocate_dense((size_t)n, 1, (size_t)n, CHOLMOD_REAL, &K->c);
    K->best = fc_calloc((size_t)n, sizeof *K->best);
    if (!K->diag || !K->B || !K->R || !K->best) goto nomem;
    const int *Ap = K->A->p, *Ai = K->A->i;
    for (int j = 0; j < n; j++) {
        K->diag[j] = -1;
        for (int p = Ap[j]; p < Ap[j + 1]; p++)
            if (Ai[p] == j) K->diag[j] = p;
    }
    if (!analyse) return K;
    K->L = cholmod_analyze(K->A, &K->c);
    if (!K->L) goto nomem;
    K->pred_flops = K->c.fl;
    if (K->c.lnz > FC_KKT_MAX_FILL * (double)Ap[n] + 1e6) {
        fc_error_set(err, FC_ERR_NOMEM, "KKT: the factor would hold %.3g entries, %.0fx the "
                     "matrix's %d (%.3g flops): beyond the limit", K->c.lnz,
                     K->c.lnz / (double)(Ap[n] > 0 ? Ap[n] : 1), Ap[n], K->c.fl);
        fc_kkt_free(K);
        return NULL;
    }
    return K;
nomem:
    fc_error_set(err, FC_ERR_NOMEM, "out of memory building a KKT matrix");
    fc_kkt_free(K);
    return NULL;
}

static void schur_free(kkt_schur *S, cholmod_common *c)
{
    if (!S) return;
    fc_snsolve_free(S->sn);
    cholmod_free_factor(&S->L, c);
    cholmod_free_sparse(&S->S, c);
    cholmod_free_dense(&S->b, c);
    cholmod_free_dense(&S->x, c);
    cholmod_free_dense(&S->Y, c);
    cholmod_free_dense(&S->E, c);
    free(S->apos); free(S->aspos); free(S->cpos); free(S->rp); free(S->rows); free(S->bpos);
    free(S->sp); free(S->spos); free(S->cinv); free(S->t);
    free(S);
}

/* Position of (i, j), i <= j, in an upper-triangular CSC with sorted columns. */
static int csc_find(const cholmod_sparse *A, int i, int j)
{
    const int *Ap = A->p;
    return fc_find_sorted(A->i, Ap[j], Ap[j + 1], i);
}

/* The Schur complement's pattern and the maps from A; 0 when the
 * trailing part is not block diagonal (or out of memory). */
static int schur_build(fc_kkt *K, int n1, int bs)
{
    cholmod_common *c = &K->c;
    const cholmod_sparse *A = K->A;
    const int *Ap = A->p, *Ai = A->i;
    int n = K->n, nb = (n - n1) / bs;
    if (n1 <= 0 || bs <= 0 || bs > 8 || n1 + nb * bs != n) return 0;
    kkt_schur *S = calloc(1, sizeof *S);
    if (!S) return 0;
    K->sc = S;
    S->n1 = n1; S->bs = bs; S->nb = nb;
    /* trailing columns: rows < n1 are B, rows >= n1 must be in the column's block */
    long nbr = 0;
    for (int j = n1; j < n; j++)
        for (int p = Ap[j]; p < Ap[j + 1]; p++) {
            int i = Ai[p];
            if (i >= n1 && (i - n1) / bs != (j - n1) / bs) return 0;
            if (i < n1) nbr++;
        }
    S->rp = fc_calloc((size_t)nb + 1, sizeof *S->rp);
    S->rows = fc_calloc((size_t)nbr + 1, sizeof *S->rows);
    S->bpos = fc_calloc((size_t)(nbr + 1) * (size_t)bs, sizeof *S->bpos);
    S->cpos = fc_calloc((size_t)nb * (size_t)(bs * bs), sizeof *S->cpos);
    S->sp = fc_calloc((size_t)nb + 1, sizeof *S->sp);
    S->cinv = fc_calloc((size_t)nb * (size_t)(bs * bs), sizeof *S->cinv);
    S->t = fc_calloc((size_t)n1, sizeof *S->t);
    int *mark = fc_calloc((size_t)n1, sizeof *mark);
    if (!S->rp || !S->rows || !S->bpos || !S->cpos || !S->sp || !S->cinv || !S->t || !mark) {
        free(mark);
        return 0;
    }
    /* coupled rows of each block (the union over its bs columns) */
    int nr = 0;
    for (int k = 0; k < nb; k++) {
        S->rp[k] = nr;
        for (int cc = 0; cc < bs; cc++) {
            int j = n1 + k * bs + cc;
            for (int p = Ap[j]; p < Ap[j + 1]; p++) {
                int i = Ai[p];
                if (i >= n1) continue;
                if (mark[i] != k + 1) { mark[i] = k + 1; S->rows[nr++] = i; }
            }
        }
        int r0 = S->rp[k];
        for (int a = r0; a < nr; a++)            /* sort (few rows) */
            for (int b = a + 1; b < nr; b++)
                if (S->rows[b] < S->rows[a]) { int t = S->rows[a]; S->rows[a] = S->rows[b]; S->rows[b] = t; }
        for (int a = r0; a < nr; a++)
            for (int cc = 0; cc < bs; cc++)
                S->bpos[(long)a * bs + cc] = csc_find(A, S->rows[a], n1 + k * bs + cc);
        for (int jj = 0; jj < bs; jj++)
            for (int ii = 0; ii < bs; ii++)
                S->cpos[(long)k * bs * bs + jj * bs + ii] =
                    ii <= jj ? csc_find(A, n1 + k * bs + ii, n1 + k * bs + jj) : -1;
    }
    S->rp[nb] = nr;
    free(mark);
    /* S's pattern: A11's upper triangle and every block's coupled pairs */
    long na = 0, npair = 0;
    for (int j = 0; j < n1; j++) na += Ap[j + 1] - Ap[j];
    for (int k = 0; k < nb; k++) {
        long r = S->rp[k + 1] - S->rp[k];
        S->sp[k] = npair;
        npair += r * (r + 1) / 2;
    }
    S->sp[nb] = npair;
    S->na = (int)na;
    S->apos = fc_calloc((size_t)na + 1, sizeof *S->apos);
    S->aspos = fc_calloc((size_t)na + 1, sizeof *S->aspos);
    S->spos = fc_calloc((size_t)npair + 1, sizeof *S->spos);
    cholmod_triplet *T = cholmod_allocate_triplet((size_t)n1, (size_t)n1, (size_t)(na + npair + 1), 1,
                                                  CHOLMOD_PATTERN, c);
    if (!S->apos || !S->aspos || !S->spos || !T) { cholmod_free_triplet(&T, c); return 0; }
    int *Ti = T->i, *Tj = T->j;
    long t = 0;
    for (int j = 0; j < n1; j++)
        for (int p = Ap[j]; p < Ap[j + 1]; p++) { Ti[t] = Ai[p]; Tj[t] = j; t++; }
    for (int k = 0; k < nb; k++)
        for (int a = S->rp[k]; a < S->rp[k + 1]; a++)
            for (int b = a; b < S->rp[k + 1]; b++) { Ti[t] = S->rows[a]; Tj[t] = S->rows[b]; t++; }
    T->nnz = (size_t)t;
    cholmod_sparse *P = cholmod_triplet_to_sparse(T, (size_t)t, c);
    cholmod_free_triplet(&T, c);
    if (!P) return 0;
    S->S = cholmod_allocate_sparse((size_t)n1, (size_t)n1, cholmod_nnz(P, c), 1, 1, 1, CHOLMOD_REAL, c);
    if (!S->S) { cholmod_free_sparse(&P, c); return 0; }
    memcpy(S->S->p, P->p, ((size_t)n1 + 1) * sizeof(int));
    memcpy(S->S->i, P->i, cholmod_nnz(P, c) * sizeof(int));
    cholmod_free_sparse(&P, c);
    long q = 0;
    for (int j = 0; j < n1; j++)
        for (int p = Ap[j]; p < Ap[j + 1]; p++) { S->apos[q] = p; S->aspos[q] = csc_find(S->S, Ai[p], j); q++; }
    q = 0;
    for (int k = 0; k < nb; k++)
        for (int a = S->rp[k]; a < S->rp[k + 1]; a++)
            for (int b = a; b < S->rp[k + 1]; b++) S->spos[q++] = csc_find(S->S, S->rows[a], S->rows[b]);
    S->b = cholmod_allocate_dense((size_t)n1, 1, (size_t)n1, CHOLMOD_REAL, c);
    if (!S->b) return 0;
    /* supernodal LL' (the default of the common object) */
    int supernodal = c->supernodal;
    c->supernodal = CHOLMOD_AUTO;
    S->L = cholmod_analyze(S->S, c);
    c->supernodal = supernodal;
    return S->L != NULL;
}

fc_kkt *fc_kkt_new_schur(int n, long nz, const int *ti, const int *tj, const double *tx,
                         int n1, int bs, fc_error *err)
{
    fc_kkt *K = kkt_new(n, nz, ti, tj, tx, 1, 0, err);
    if (!K) return NULL;
    int final_ll = K->c.final_ll;
    K->c.final_ll = 1;
    int ok = schur_build(K, n1, bs);
    if (ok) {
        /* the whole quasi-definite matrix needs CHOLMOD's simplicial
         * LDL' (no BLAS); the Schur complement gets the supernodal LL'
         * (BLAS-3), many times faster for similar flops.  Used only when
         * the whole LDL' would be costly (CHOLMOD's flop estimate): the
         * whole factorisation is the more accurate (docs/measurements.md) */
        double fl_schur = K->c.fl;
        K->c.final_ll = final_ll;
        K->L = cholmod_analyze(K->A, &K->c);
        if (!K->L) ok = 0;
        else if (!(K->c.fl > FC_KKT_SCHUR_MIN_FLOPS && fl_schur < 2.0 * K->c.fl)) ok = 0;
        if (ok) {
            cholmod_free_factor(&K->L, &K->c);
            K->pred_flops = fl_schur;
        } else {
            K->pred_flops = K->c.fl;
            schur_free(K->sc, &K->c);
            K->sc = NULL;
            return K;
        }
        K->c.final_ll = 1;
    }
    if (!ok) {
        /* not block diagonal after all (or out of memory): the whole
         * quasi-definite matrix, as fc_kkt_new does */
        schur_free(K->sc, &K->c);
        K->sc = NULL;
        K->c.final_ll = final_ll;
        K->L = cholmod_analyze(K->A, &K->c);
        if (!K->L) {
            fc_error_set(err, FC_ERR_NOMEM, "out of memory building a KKT matrix");
            fc_kkt_free(K);
            return NULL;
        }
        K->pred_flops = K->c.fl;
    }
    return K;
}

fc_kkt *fc_kkt_new_problem(const fc_problem *p, int global, const double *ta, double sign,
                           const double *hs, int cblocks, fc_error *err)
{
    int n = global ? p->n : 0, d = p->d, N = n + fc_problem_m(p);
    fc_matrix *A = fc_matrix_to_csr(global ? p->M : p->W);
    fc_matrix *H = global ? fc_matrix_to_csr(p->H) : NULL;
    int *ti = NULL, *tj = NULL;
    double *tx = NULL;
    if (A && (!global || H)) {
        size_t nz = (size_t)A->nnz + (H ? (size_t)H->nnz : 0) +
                    (cblocks ? (size_t)p->nc * d * d : 0) + 1;
        ti = fc_calloc(nz, sizeof *ti);
        tj = fc_calloc(nz, sizeof *tj);
        tx = fc_calloc(nz, sizeof *tx);
    }
    fc_kkt *K = NULL;
    if (ti && tj && tx) {
        long k = 0;
        for (int i = 0; i < A->rows; i++)
            for (int q = A->p[i]; q < A->p[i + 1]; q++) {
                int j = A->j[q];
                double v = A->x[q] * (i == j ? 1.0 : 0.5);
                if (ta) v *= ta[i] * ta[j];
                ti[k] = i; tj[k] = j; tx[k] = v; k++;
            }
        if (H)
            for (int i = 0; i < H->rows; i++)
                for (int q = H->p[i]; q < H->p[i + 1]; q++) {
                    int j = H->j[q];
                    ti[k] = i; tj[k] = n + j; tx[k] = sign * H->x[q] * (hs ? hs[j] : 1.0); k++;
                }
        if (cblocks)
            for (int a = 0; a < p->nc; a++)
                for (int jj = 0; jj < d; jj++)
                    for (int ii = 0; ii <= jj; ii++) {
                        ti[k] = n + d * a + ii; tj[k] = n + d * a + jj; tx[k] = 0; k++;
                    }
        K = global ? fc_kkt_new_schur(N, k, ti, tj, tx, n, d, err)
                   : fc_kkt_new(N, k, ti, tj, tx, 0, err);
    } else {
        fc_error_set(err, FC_ERR_NOMEM, "out of memory building a KKT matrix");
    }
    free(ti); free(tj); free(tx);
    fc_matrix_free(A);
    fc_matrix_free(H);
    return K;
}

/* Invert the symmetric positive definite bs x bs block C (column-major,
 * full) in place by Gauss-Jordan without pivoting (stable on a definite
 * matrix); a pivot lost to rounding (the interior point's late scaling
 * blocks have condition numbers near 1/eps) is floored at 1e-15 of the
 * trace, the solves' refinement absorbs it.  0 when C is not finite or
 * not definite. */
static int spd_inverse(int bs, double *C)
{
    double tr = 0;
    for (int k = 0; k < bs; k++) tr += C[k + k * bs];
    if (!(tr > 0) || !isfinite(tr)) return 0;
    for (int k = 0; k < bs; k++) {
        double piv = C[k + k * bs];
        if (!(piv >= -1e-8 * tr)) return 0;
        piv = fmax(piv, 1e-15 * tr);
        double ip = 1.0 / piv;
        C[k + k * bs] = 1.0;
        for (int j = 0; j < bs; j++) C[k + j * bs] *= ip;
        for (int i = 0; i < bs; i++) {
            if (i == k) continue;
            double f = C[i + k * bs];
            C[i + k * bs] = 0.0;
            for (int j = 0; j < bs; j++) C[i + j * bs] -= f * C[k + j * bs];
        }
    }
    return 1;
}

static fc_err schur_factor(fc_kkt *K, const double *reg, fc_error *err)
{
    kkt_schur *S = K->sc;
    int n1 = S->n1, bs = S->bs;
    const double *x = K->A->x;
    double *sx = S->S->x;
    memset(sx, 0, cholmod_nnz(S->S, &K->c) * sizeof *sx);
    for (int q = 0; q < S->na; q++) sx[S->aspos[q]] += x[S->apos[q]];
    if (reg) for (int i = 0; i < n1; i++) sx[csc_find(S->S, i, i)] += reg[i];
    double Bk[8 * 96], CB[8 * 96];
    for (int k = 0; k < S->nb; k++) {
        double *C = S->cinv + (long)k * bs * bs;
        for (int jj = 0; jj < bs; jj++)
            for (int ii = 0; ii <= jj; ii++) {
                int p = S->cpos[(long)k * bs * bs + jj * bs + ii];
                double v = p >= 0 ? -x[p] : 0.0;
                if (ii == jj && reg) v -= reg[n1 + k * bs + ii];
                C[ii + jj * bs] = C[jj + ii * bs] = v;
            }
        if (!spd_inverse(bs, C))
            return fc_error_set(err, FC_ERR_NUMERIC, "KKT factorisation failed at block %d", k);
        /* S += B_k C^-1 B_k' over the coupled rows, in chunks of 96 rows */
        int r0 = S->rp[k], nr = S->rp[k + 1] - r0;
        if (nr > 96) return fc_error_set(err, FC_ERR_NUMERIC, "KKT: block %d couples %d rows", k, nr);
        for (int a = 0; a < nr; a++)
            for (int cc = 0; cc < bs; cc++) {
                int p = S->bpos[(long)(r0 + a) * bs + cc];
                Bk[a * bs + cc] = p >= 0 ? x[p] : 0.0;
            }
        for (int a = 0; a < nr; a++)            /* CB = B_k C^-1 (row a) */
            for (int cc = 0; cc < bs; cc++) {
                double v = 0;
                for (int l = 0; l < bs; l++) v += Bk[a * bs + l] * C[l + cc * bs];
                CB[a * bs + cc] = v;
            }
        const int *sp = S->spos + S->sp[k];
        for (int a = 0; a < nr; a++)
            for (int b = a; b < nr; b++) {
                double v = 0;
                for (int l = 0; l < bs; l++) v += CB[a * bs + l] * Bk[b * bs + l];
                sx[*sp++] += v;
            }
    }
    int ok = cholmod_factorize(S->S, S->L, &K->c);
    if (!ok || K->c.status == CHOLMOD_OUT_OF_MEMORY)
        return fc_error_set(err, FC_ERR_NOMEM, "out of memory factorising a KKT matrix");
    if (K->c.status != CHOLMOD_OK || S->L->minor < (size_t)n1)
        return fc_error_set(err, FC_ERR_NUMERIC, "KKT factorisation failed at column %ld",
                            (long)S->L->minor);
    return FC_OK;
}

/* x = K^-1 b through the Schur complement (with the factorised values). */
static int schur_solve(fc_kkt *K, const double *b, double *x)
{
    kkt_schur *S = K->sc;
    int n1 = S->n1, bs = S->bs;
    const double *ax = K->A->x;
    double *t = S->b->x, z[8];
    memcpy(t, b, (size_t)n1 * sizeof *t);
    for (int k = 0; k < S->nb; k++) {       /* t = f + B C^-1 g */
        const double *C = S->cinv + (long)k * bs * bs, *g = b + n1 + k * bs;
        for (int i = 0; i < bs; i++) {
            z[i] = 0;
            for (int l = 0; l < bs; l++) z[i] += C[i + l * bs] * g[l];
        }
        for (int a = S->rp[k]; a < S->rp[k + 1]; a++) {
            double v = 0;
            for (int cc = 0; cc < bs; cc++) {
                int p = S->bpos[(long)a * bs + cc];
                if (p >= 0) v += ax[p] * z[cc];
            }
            t[S->rows[a]] += v;
        }
    }
    if (!chol_solve(S->L, &S->sn, &S->sn_tried, S->b, &S->x, &S->Y, &S->E, &K->c)) return 0;
    const double *xv = S->x->x;
    memcpy(x, xv, (size_t)n1 * sizeof *x);
    for (int k = 0; k < S->nb; k++) {       /* y = C^-1 (B' x - g) */
        const double *C = S->cinv + (long)k * bs * bs, *g = b + n1 + k * bs;
        double w[8];
        for (int cc = 0; cc < bs; cc++) w[cc] = -g[cc];
        for (int a = S->rp[k]; a < S->rp[k + 1]; a++)
            for (int cc = 0; cc < bs; cc++) {
                int p = S->bpos[(long)a * bs + cc];
                if (p >= 0) w[cc] += ax[p] * xv[S->rows[a]];
            }
        for (int i = 0; i < bs; i++) {
            double v = 0;
            for (int l = 0; l < bs; l++) v += C[i + l * bs] * w[l];
            x[n1 + k * bs + i] = v;
        }
    }
    return 1;
}

long fc_kkt_find(const fc_kkt *K, int i, int j)
{
    if (i > j) { int s = i; i = j; j = s; }
    const int *Ap = K->A->p;
    return fc_find_sorted(K->A->i, Ap[j], Ap[j + 1], i);   /* columns are sorted */
}

double *fc_kkt_values(fc_kkt *K) { return K->A->x; }

long fc_kkt_diag(const fc_kkt *K, int i) { return K->diag[i]; }

fc_err fc_kkt_factor(fc_kkt *K, const double *reg, fc_error *err)
{
    if (K->sc) return schur_factor(K, reg, err);
    double *x = K->A->x;
    if (reg) for (int i = 0; i < K->n; i++) x[K->diag[i]] += reg[i];
    int ok = cholmod_factorize(K->A, K->L, &K->c);
    if (reg) for (int i = 0; i < K->n; i++) x[K->diag[i]] -= reg[i];
    if (!ok || K->c.status == CHOLMOD_OUT_OF_MEMORY)
        return fc_error_set(err, FC_ERR_NOMEM, "out of memory factorising a KKT matrix");
    if (K->c.status != CHOLMOD_OK || K->L->minor < (size_t)K->n)
        return fc_error_set(err, FC_ERR_NUMERIC, "KKT factorisation failed at column %ld",
                            (long)K->L->minor);
    return FC_OK;
}

/* y = A x with A symmetric, upper triangle stored. */
static void sym_mult(const cholmod_sparse *A, const double *x, double *y)
{
    const int *Ap = A->p, *Ai = A->i;
    const double *Ax = A->x;
    int n = (int)A->ncol;
    memset(y, 0, (size_t)n * sizeof *y);
    for (int j = 0; j < n; j++)
        for (int p = Ap[j]; p < Ap[j + 1]; p++) {
            int i = Ai[p];
            y[i] += Ax[p] * x[j];
            if (i != j) y[j] += Ax[p] * x[i];
        }
}

/* sym_mult's row split for nt threads: rows cut where the entries a row
 * receives (its column, its row of the upper triangle) are shared evenly,
 * and for each thread and column the first entry at or below its first
 * row.  0: out of memory (sym_mult then runs alone). */
static int sym_split(fc_kkt *K, int nt)
{
    const cholmod_sparse *A = K->A;
    const int *Ap = A->p, *Ai = A->i;
    int n = K->n;
    free(K->sm_row); free(K->sm_lo);
    K->sm_threads = 0;
    K->sm_row = fc_calloc((size_t)nt + 1, sizeof *K->sm_row);
    K->sm_lo = fc_calloc((size_t)nt * (size_t)n, sizeof *K->sm_lo);
    long *work = fc_calloc((size_t)n + 1, sizeof *work);
    if (!K->sm_row || !K->sm_lo || !work) { free(work); return 0; }
    for (int j = 0; j < n; j++)
        for (int p = Ap[j]; p < Ap[j + 1]; p++) {
            work[j]++;
            if (Ai[p] != j) work[Ai[p]]++;
        }
    long total = 0, acc = 0;
    for (int j = 0; j < n; j++) total += work[j];
    int t = 1;
    for (int j = 0; j < n && t < nt; j++) {
        acc += work[j];
        while (t < nt && acc * nt >= total * t) K->sm_row[t++] = j + 1;
    }
    while (t < nt) K->sm_row[t++] = n;
    K->sm_row[nt] = n;
    for (t = 0; t < nt; t++) {
        int r0 = K->sm_row[t], *lo = K->sm_lo + (size_t)t * n;
        for (int j = 0; j < n; j++) {
            int a = Ap[j], b = Ap[j + 1];   /* columns are sorted */
            while (a < b) {
                int m = a + (b - a) / 2;
                if (Ai[m] < r0) a = m + 1; else b = m;
            }
            lo[j] = a;
        }
    }
    free(work);
    K->sm_threads = nt;
    return 1;
}

/* sym_mult on threads, each owning a range of rows [r0, r1) of y and
 * summing its terms in sym_mult's order: a row's own column first (when
 * the column is reached), then the terms of the later columns in
 * increasing column order; the same bits as sym_mult for any count. */
static void sym_mult_par(fc_kkt *K, const double *x, double *y)
{
    const cholmod_sparse *A = K->A;
    const int *Ap = A->p, *Ai = A->i;
    const double *Ax = A->x;
    int n = K->n, nt = K->sm_threads;
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num();
        if (t < nt) {
            int r0 = K->sm_row[t], r1 = K->sm_row[t + 1];
            const int *lo = K->sm_lo + (size_t)t * n;
            for (int j = r0; j < n; j++) {
                if (j < r1) {
                    double s = 0.0;
                    for (int p = Ap[j]; p < Ap[j + 1]; p++) s += Ax[p] * x[Ai[p]];
                    y[j] = s;
                }
                double xj = x[j];
                for (int p = lo[j]; p < Ap[j + 1]; p++) {
                    int i = Ai[p];
                    if (i >= r1 || i == j) break;
                    y[i] += Ax[p] * xj;
                }
            }
        }
    }
}

/* y = A x: on threads from FC_PAR_MIN rows (the split made at the first
 * such product), the same bits either way. */
static void kkt_mult(fc_kkt *K, const double *x, double *y)
{
    int nt = fc_threads();
    if (FC_PAR_ON(K->n) && K->A->sorted && (K->sm_threads == nt || sym_split(K, nt)))
        sym_mult_par(K, x, y);
    else
        sym_mult(K->A, x, y);
}

fc_err fc_kkt_solve(fc_kkt *K, const double *b, double *x, int refine, fc_error *err)
{
    int n = K->n;
    double *Bx = K->B->x, *Rx = K->R->x;
    memcpy(Bx, b, (size_t)n * sizeof *b);
    if (K->sc) {
        if (!schur_solve(K, b, x)) return fc_error_set(err, FC_ERR_NOMEM, "out of memory in a KKT solve");
    } else {
        if (!chol_solve(K->L, &K->sn, &K->sn_tried, K->B, &K->X, &K->Y, &K->E, &K->c))
            return fc_error_set(err, FC_ERR_NOMEM, "out of memory in a KKT solve");
        memcpy(x, K->X->x, (size_t)n * sizeof *x);
    }
    double bn = 0;   /* a maximum: the same for any thread count */
    FC_PAR_FOR(n, reduction(max : bn), for (int i = 0; i < n; i++) bn = fmax(bn, fabs(b[i])););
    /* through the Schur complement (normal equations: its condition is
     * about the square of the whole matrix's) each refinement step is
     * cheap and more are needed */
    if (K->sc && refine < 10) refine = 10;
    /* the residual is computed after the last correction too: it is what
     * fc_kkt_solve_residual reports.  Refinement on an ill-conditioned
     * matrix can diverge (1e115 after 100 steps): a correction that
     * grows the best residual so far 1000-fold ends it, the best x
     * restored (round-off wobbles below that go on, as they always did:
     * at 2-fold or 10-fold they stop, and ipm's golden runs move). */
    double rn = 0, best_rn = INFINITY;
    for (int it = 0; ; it++) {
        kkt_mult(K, x, Rx);
        rn = 0;   /* a maximum: the same for any thread count */
        if (FC_PAR_ON(n)) {
#pragma omp parallel for schedule(static) reduction(max : rn) num_threads(fc_threads())
            for (int i = 0; i < n; i++) { Bx[i] = b[i] - Rx[i]; rn = fmax(rn, fabs(Bx[i])); }
        } else {
            for (int i = 0; i < n; i++) { Bx[i] = b[i] - Rx[i]; rn = fmax(rn, fabs(Bx[i])); }
        }
        if (it > 0 && !(rn <= 1e3 * best_rn)) {
            memcpy(x, K->best, (size_t)n * sizeof *x);
            rn = best_rn;
            break;
        }
        if (rn < best_rn || it == 0) {
            best_rn = rn;
            memcpy(K->best, x, (size_t)n * sizeof *x);
        }
        if (rn <= 1e-15 * bn || it == refine) break;
        if (K->sc) {
            /* the correction through the Schur complement, into R */
            if (!schur_solve(K, Bx, Rx)) return fc_error_set(err, FC_ERR_NOMEM, "out of memory in a KKT solve");
            for (int i = 0; i < n; i++) x[i] += Rx[i];
            continue;
        }
        if (!chol_solve(K->L, &K->sn, &K->sn_tried, K->B, &K->D, &K->Y, &K->E, &K->c))
            return fc_error_set(err, FC_ERR_NOMEM, "out of memory in a KKT solve");
        const double *dx = K->D->x;
        FC_PAR_FOR(n, , for (int i = 0; i < n; i++) x[i] += dx[i];);
    }
    K->solve_res = fc_all_finite((size_t)n, x) ? rn / fmax(bn, 1e-300) : INFINITY;
    return FC_OK;
}

void fc_kkt_free(fc_kkt *K)
{
    if (!K) return;
    fc_snsolve_free(K->sn);
    free(K->sm_row);
    free(K->sm_lo);
    schur_free(K->sc, &K->c);
    cholmod_free_factor(&K->L, &K->c);
    cholmod_free_sparse(&K->A, &K->c);
    cholmod_free_dense(&K->B, &K->c);
    cholmod_free_dense(&K->X, &K->c);
    cholmod_free_dense(&K->Y, &K->c);
    cholmod_free_dense(&K->E, &K->c);
    cholmod_free_dense(&K->R, &K->c);
    cholmod_free_dense(&K->D, &K->c);
    free(K->diag);
    free(K->best);
    cholmod_finish(&K->c);
    free(K);
}
