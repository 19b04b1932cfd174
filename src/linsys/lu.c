/* Sparse LU with a fixed pattern (UMFPACK or KLU), reusing the symbolic
 * analysis across factorisations; a dense LAPACK LU for tiny systems. */
#include "internal.h"
#include "linsys/linsys.h"

#include <klu.h>
#include <lapacke.h>
#include <umfpack.h>

/* Below this size a dense LU (n*n doubles) is cheaper than any sparse one. */
#define FC_LU_DENSE_MAX 64
/* KLU is replaced by UMFPACK when its analysis predicts more flops than
 * this per factor entry (see fc_lu_new). */
#define FC_LU_KLU_MAX_FLOPS_PER_ENTRY 100.0
/* A factorisation predicted to hold more than this many times the
 * matrix's entries (plus 1e6) is refused before anything is allocated
 * (fc_lu_new fails, FC_ERR_NOMEM): memory stays a bounded multiple of the
 * problem's (docs/measurements.md, "FC_LU_MAX_FILL"). */
#define FC_LU_MAX_FILL 50.0
/* Above this many flops per factorisation (UMFPACK's estimate with AMD),
 * the analysis is redone with CHOLMOD's ordering (AMD, then METIS's
 * nested dissection when AMD fills) and the cheaper one is kept; below,
 * the second analysis costs more than it saves (docs/measurements.md). */
#define FC_LU_METIS_MIN_FLOPS 1e9

struct fc_lu {
    fc_lu_kind kind;
    int n;
    int *Ap, *Ai;
    double *Ax;             /* copy of the values (UMFPACK solve needs them) */
    /* UMFPACK */
    void *sym, *num;
    double control[UMFPACK_CONTROL];
    /* KLU */
    klu_common kc;
    klu_symbolic *ksym;
    klu_numeric *knum;
    /* dense */
    double *dense;          /* n x n column-major LU factors */
    int *ipiv;
    double *work;           /* n: right-hand side copy for UMFPACK */
    int factored;
    double pred_flops, pred_entries;   /* the analysis' predictions */
};

double fc_lu_predicted_flops(const fc_lu *F) { return F->pred_flops; }

void fc_lu_solver_refines(fc_lu *F) { F->control[UMFPACK_IRSTEP] = 0; }

fc_lu_kind fc_lu_backend(const fc_lu *F) { return F->kind; }

void fc_lu_free(fc_lu *F)
{
    if (!F) return;
    if (F->num) umfpack_di_free_numeric(&F->num);
    if (F->sym) umfpack_di_free_symbolic(&F->sym);
    if (F->knum) klu_free_numeric(&F->knum, &F->kc);
    if (F->ksym) klu_free_symbolic(&F->ksym, &F->kc);
    free(F->Ap);
    free(F->Ai);
    free(F->Ax);
    free(F->dense);
    free(F->ipiv);
    free(F->work);
    free(F);
}

fc_lu *fc_lu_new(int n, const int *Ap, const int *Ai, fc_lu_kind kind, fc_error *err)
{
    fc_lu *F = calloc(1, sizeof *F);
    if (!F || n <= 0) {
        free(F);
        fc_error_set(err, n <= 0 ? FC_ERR_INVALID : FC_ERR_NOMEM, "LU: bad size or out of memory");
        return NULL;
    }
    long nnz = Ap[n];
    F->n = n;
    F->kind = n <= FC_LU_DENSE_MAX ? FC_LU_DENSE : kind;
    F->Ap = fc_calloc((size_t)n + 1, sizeof *F->Ap);
    F->Ai = fc_calloc((size_t)nnz, sizeof *F->Ai);
    F->Ax = fc_calloc((size_t)nnz, sizeof *F->Ax);
    F->work = fc_calloc((size_t)n, sizeof *F->work);
    if (!F->Ap || !F->Ai || !F->Ax || !F->work) goto nomem;
    memcpy(F->Ap, Ap, ((size_t)n + 1) * sizeof *Ap);
    memcpy(F->Ai, Ai, (size_t)nnz * sizeof *Ai);
    if (F->kind == FC_LU_DENSE) {
        F->pred_flops = 2.0 / 3.0 * n * (double)n * n;
        F->dense = fc_calloc((size_t)n * (size_t)n, sizeof *F->dense);
        F->ipiv = fc_calloc((size_t)n, sizeof *F->ipiv);
        if (!F->dense || !F->ipiv) goto nomem;
        return F;
    }
    if (F->kind == FC_LU_KLU) {
        klu_defaults(&F->kc);
        F->ksym = klu_analyze(n, F->Ap, F->Ai, &F->kc);
        if (!F->ksym) goto fail;
        /* KLU (left-looking, no BLAS) refactorises faster while the
         * factors stay sparse; with heavy fill (many flops per factor
         * entry) UMFPACK's BLAS-3 fronts win (docs/measurements.md) */
        if (F->ksym->est_flops > FC_LU_KLU_MAX_FLOPS_PER_ENTRY * (F->ksym->lnz + F->ksym->unz) &&
            F->ksym->est_flops > 1e7) {
            klu_free_symbolic(&F->ksym, &F->kc);
            F->kind = FC_LU_UMFPACK;
        } else {
            F->pred_flops = F->ksym->est_flops;
            F->pred_entries = F->ksym->lnz + F->ksym->unz;
            if (F->pred_entries > FC_LU_MAX_FILL * (double)nnz + 1e6) goto too_big;
            return F;
        }
    }
    umfpack_di_defaults(F->control);
    F->control[UMFPACK_PRL] = 0;
    double sym_entries = -1, sym_flops = 0;
    if (kind == FC_LU_UMFPACK_SYMMETRIC) {
        /* a symmetric pattern: AMD on it, diagonal pivots preferred.
         * UMFPACK's own estimates are loose upper bounds there: KLU's AMD
         * analysis, exact without pivoting, gives the prediction */
        F->control[UMFPACK_STRATEGY] = UMFPACK_STRATEGY_SYMMETRIC;
        F->kind = FC_LU_UMFPACK;
        klu_defaults(&F->kc);
        klu_symbolic *ks = klu_analyze(n, F->Ap, F->Ai, &F->kc);
        if (ks) {
            sym_entries = ks->lnz + ks->unz;
            sym_flops = ks->est_flops;
            klu_free_symbolic(&ks, &F->kc);
        }
    }
    double info[UMFPACK_INFO];
    /* symbolic analysis of the pattern only (values not needed) */
    int st = umfpack_di_symbolic(n, n, F->Ap, F->Ai, NULL, &F->sym, F->control, info);
    if (st == UMFPACK_OK) {
        double scale = 1.0;   /* the kept ordering's flops over AMD's (estimates) */
        if (info[UMFPACK_FLOPS_ESTIMATE] > FC_LU_METIS_MIN_FLOPS) {
            double info2[UMFPACK_INFO];
            void *sym2 = NULL;
            double amd = F->control[UMFPACK_ORDERING];
            F->control[UMFPACK_ORDERING] = UMFPACK_ORDERING_CHOLMOD;
            if (umfpack_di_symbolic(n, n, F->Ap, F->Ai, NULL, &sym2, F->control, info2) == UMFPACK_OK &&
                info2[UMFPACK_FLOPS_ESTIMATE] < info[UMFPACK_FLOPS_ESTIMATE]) {
                scale = info2[UMFPACK_FLOPS_ESTIMATE] / info[UMFPACK_FLOPS_ESTIMATE];
                umfpack_di_free_symbolic(&F->sym);
                F->sym = sym2;
                memcpy(info, info2, sizeof info);
            } else {
                if (sym2) umfpack_di_free_symbolic(&sym2);
                F->control[UMFPACK_ORDERING] = amd;
            }
        }
        F->pred_flops = sym_entries >= 0 ? scale * sym_flops : info[UMFPACK_FLOPS_ESTIMATE];
        F->pred_entries = sym_entries >= 0 ? fmin(sym_entries, info[UMFPACK_LNZ_ESTIMATE] + info[UMFPACK_UNZ_ESTIMATE])
                                           : info[UMFPACK_LNZ_ESTIMATE] + info[UMFPACK_UNZ_ESTIMATE];
        if (F->pred_entries > FC_LU_MAX_FILL * (double)nnz + 1e6) goto too_big;
        return F;
    }
    if (st == UMFPACK_ERROR_out_of_memory) goto nomem;
too_big:
    fc_error_set(err, FC_ERR_NOMEM, "LU: the factors would hold %.3g entries, %.0fx the "
                 "matrix's %ld (%.3g flops): beyond the limit", F->pred_entries,
                 F->pred_entries / (double)(nnz > 0 ? nnz : 1), nnz, F->pred_flops);
    fc_lu_free(F);
    return NULL;
fail:
    fc_error_set(err, FC_ERR_NUMERIC, "LU: symbolic analysis failed (n = %d, nnz = %ld)", n, nnz);
    fc_lu_free(F);
    return NULL;
nomem:
    fc_error_set(err, FC_ERR_NOMEM, "LU: out of memory (n = %d, nnz = %ld)", n, nnz);
    fc_lu_free(F);
    return NULL;
}

fc_err fc_lu_factor(fc_lu *F, const double *Ax, double *rcond, fc_error *err)
{
    int n = F->n;
    long nnz = F->Ap[n];
    F->factored = 0;
    if (rcond) *rcond = 0.0;
    memcpy(F->Ax, Ax, (size_t)nnz * sizeof *Ax);
    if (F->kind == FC_LU_DENSE) {
        double *A = F->dense, anorm = 0.0;
        memset(A, 0, (size_t)n * (size_t)n * sizeof *A);
        for (int j = 0; j < n; j++) {
            double col = 0.0;
            for (int k = F->Ap[j]; k < F->Ap[j + 1]; k++) {
                A[F->Ai[k] + (size_t)j * (size_t)n] += Ax[k];
                col += fabs(Ax[k]);
            }
            if (col > anorm) anorm = col;
        }
        lapack_int info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, A, n, F->ipiv);
        if (info != 0)
            return fc_error_set(err, FC_ERR_NUMERIC, "LU: singular matrix (pivot %d)", (int)info);
        double rc = 0.0;
        LAPACKE_dgecon(LAPACK_COL_MAJOR, '1', n, A, n, anorm, &rc);
        if (rcond) *rcond = rc;
        F->factored = 1;
        return FC_OK;
    }
    if (F->kind == FC_LU_KLU) {
        int ok;
        if (F->knum) ok = klu_refactor(F->Ap, F->Ai, F->Ax, F->ksym, F->knum, &F->kc);
        else ok = (F->knum = klu_factor(F->Ap, F->Ai, F->Ax, F->ksym, &F->kc)) != NULL;
        if (!ok || F->kc.status != KLU_OK) {
            /* a pivot can become zero in refactor: start again from scratch once */
            if (F->knum) klu_free_numeric(&F->knum, &F->kc);
            F->knum = klu_factor(F->Ap, F->Ai, F->Ax, F->ksym, &F->kc);
            if (!F->knum || F->kc.status != KLU_OK)
                return fc_error_set(err, F->kc.status == KLU_OUT_OF_MEMORY ? FC_ERR_NOMEM : FC_ERR_NUMERIC,
                                    "LU (KLU): factorisation failed (status %d)", F->kc.status);
        }
        klu_rcond(F->ksym, F->knum, &F->kc);
        if (rcond) *rcond = F->kc.rcond;
        F->factored = 1;
        return FC_OK;
    }
    if (F->num) umfpack_di_free_numeric(&F->num);
    double info[UMFPACK_INFO];
    int st = umfpack_di_numeric(F->Ap, F->Ai, F->Ax, F->sym, &F->num, F->control, info);
    if (rcond) *rcond = info[UMFPACK_RCOND];
    if (st == UMFPACK_ERROR_out_of_memory)
        return fc_error_set(err, FC_ERR_NOMEM, "LU (UMFPACK): out of memory");
    if (st != UMFPACK_OK)  /* includes UMFPACK_WARNING_singular_matrix */
        return fc_error_set(err, FC_ERR_NUMERIC, "LU (UMFPACK): singular matrix (status %d)", st);
    F->factored = 1;
    return FC_OK;
}

fc_err fc_lu_solve(fc_lu *F, const double *b, double *x, fc_error *err)
{
    int n = F->n;
    if (!F->factored) return fc_error_set(err, FC_ERR_NUMERIC, "LU: no factorisation to solve with");
    if (x != b) memcpy(x, b, (size_t)n * sizeof *x);
    if (F->kind == FC_LU_DENSE) {
        lapack_int info = LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', n, 1, F->dense, n, F->ipiv, x, n);
        return info == 0 ? FC_OK : fc_error_set(err, FC_ERR_NUMERIC, "LU: solve failed");
    }
    if (F->kind == FC_LU_KLU) {
        if (!klu_solve(F->ksym, F->knum, n, 1, x, &F->kc))
            return fc_error_set(err, FC_ERR_NUMERIC, "LU (KLU): solve failed");
        return FC_OK;
    }
    /* UMFPACK cannot solve in place: solve from a copy of b */
    memcpy(F->work, x, (size_t)n * sizeof *x);
    double info[UMFPACK_INFO];
    int st = umfpack_di_solve(UMFPACK_A, F->Ap, F->Ai, F->Ax, x, F->work, F->num, F->control, info);
    return st == UMFPACK_OK ? FC_OK : fc_error_set(err, FC_ERR_NUMERIC, "LU (UMFPACK): solve failed (status %d)", st);
}
