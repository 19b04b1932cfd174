/* Siconos text format (.dat): local `d nc W q mu [mu_r]` and global
 * `d nc M H f w mu [mu_r]`, matrices dense (0), sparse-block (1) or
 * CSparse cs_print dumps (2).  SPEC section 3. */
#define _POSIX_C_SOURCE 200809L
#include "io/io.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ */
/* Lexer: whitespace-separated tokens of an in-memory file              */
/* ------------------------------------------------------------------ */

typedef struct lexer {
    const char *path;
    const char *s;   /* the whole file */
    size_t len, pos;
    int line;        /* line of the last token returned */
    int next_line;   /* line at pos */
    fc_error *err;
} lexer;

typedef struct lex_state { size_t pos; int line, next_line; } lex_state;

static lex_state lx_save(const lexer *L) { return (lex_state){L->pos, L->line, L->next_line}; }
static void lx_restore(lexer *L, lex_state s) { L->pos = s.pos; L->line = s.line; L->next_line = s.next_line; }

/* Record "PATH: line N: message" and return code. */
static fc_err lx_fail(lexer *L, fc_err code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static fc_err lx_fail(lexer *L, fc_err code, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fc_error_set(L->err, code, "%s: line %d: %s", L->path, L->line, msg);
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* Next token (start, length); 0 at end of file. */
static int lx_next(lexer *L, const char **tok, size_t *n)
{
    while (L->pos < L->len && is_space(L->s[L->pos]))
        if (L->s[L->pos++] == '\n') L->next_line++;
    L->line = L->next_line;
    if (L->pos >= L->len) return 0;
    size_t b = L->pos;
    while (L->pos < L->len && !is_space(L->s[L->pos])) L->pos++;
    *tok = L->s + b;
    *n = L->pos - b;
    return 1;
}

/* Skip the rest of the current line. */
static void lx_skip_line(lexer *L)
{
    while (L->pos < L->len && L->s[L->pos] != '\n') L->pos++;
    if (L->pos < L->len) { L->pos++; L->next_line++; }
}

/* Copy a token into buf (NUL-terminated, shortened with "..." if long). */
static const char *tok_str(const char *tok, size_t n, char *buf, size_t size)
{
    if (n < size) { memcpy(buf, tok, n); buf[n] = 0; return buf; }
    memcpy(buf, tok, size - 4);
    strcpy(buf + size - 4, "...");
    return buf;
}

/* Parse a token as an int; 1 on success. */
static int parse_int(const char *tok, size_t n, int *v)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf) return 0;
    memcpy(buf, tok, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    long x = strtol(buf, &end, 10);
    if (*end || errno || x < INT_MIN || x > INT_MAX) return 0;
    *v = (int)x;
    return 1;
}

/* Read an integer token (what names it in messages). */
static fc_err lx_int(lexer *L, int *v, const char *what)
{
    const char *t;
    size_t n;
    char buf[40];
    if (!lx_next(L, &t, &n))
        return lx_fail(L, FC_ERR_PARSE, "unexpected end of file, expected %s", what);
    if (!parse_int(t, n, v))
        return lx_fail(L, FC_ERR_PARSE, "expected %s (an integer), found '%s'", what,
                       tok_str(t, n, buf, sizeof buf));
    return FC_OK;
}

/* Read a finite double token. */
static fc_err lx_double(lexer *L, double *v, const char *what)
{
    const char *t;
    size_t n;
    char buf[80], shown[40];
    if (!lx_next(L, &t, &n))
        return lx_fail(L, FC_ERR_PARSE, "unexpected end of file, expected %s", what);
    if (n >= sizeof buf)
        return lx_fail(L, FC_ERR_PARSE, "expected %s (a number), found '%s'", what,
                       tok_str(t, n, shown, sizeof shown));
    memcpy(buf, t, n);
    buf[n] = 0;
    char *end;
    double x = strtod(buf, &end);
    if (*end || end == buf)
        return lx_fail(L, FC_ERR_PARSE, "expected %s (a number), found '%s'", what,
                       tok_str(t, n, shown, sizeof shown));
    if (!isfinite(x))
        return lx_fail(L, FC_ERR_INVALID, "%s is '%s', not a finite number", what,
                       tok_str(t, n, shown, sizeof shown));
    *v = x;
    return FC_OK;
}

/* Read a token that must equal word. */
static fc_err lx_expect(lexer *L, const char *word)
{
    const char *t;
    size_t n;
    char buf[40];
    if (!lx_next(L, &t, &n))
        return lx_fail(L, FC_ERR_PARSE, "unexpected end of file, expected '%s'", word);
    if (n != strlen(word) || memcmp(t, word, n))
        return lx_fail(L, FC_ERR_PARSE, "expected '%s', found '%s'", word,
                       tok_str(t, n, buf, sizeof buf));
    return FC_OK;
}

/* Does the next token equal word?  (Nothing consumed.) */
static int lx_peek_is(lexer *L, const char *word)
{
    lex_state s = lx_save(L);
    const char *t;
    size_t n;
    int ok = lx_next(L, &t, &n) && n == strlen(word) && !memcmp(t, word, n);
    lx_restore(L, s);
    return ok;
}

/* Largest count of numbers a file of this size can hold (each number
 * takes at least one character and one separator). */
static long lx_capacity(const lexer *L) { return (long)(L->len / 2) + 1; }

/* Check a declared count against the file size. */
static fc_err check_count(lexer *L, long count, const char *what)
{
    if (count < 0)
        return lx_fail(L, FC_ERR_PARSE, "%s = %ld is negative", what, count);
    if (count > lx_capacity(L))
        return lx_fail(L, FC_ERR_PARSE, "%s = %ld: declared size exceeds what a file of %zu bytes can hold",
                       what, count, L->len);
    return FC_OK;
}

/* ------------------------------------------------------------------ */
/* Matrices                                                             */
/* ------------------------------------------------------------------ */

/* Dense block: `rows cols` again, then rows*cols values column-major. */
static fc_err read_dense(lexer *L, int rows, int cols, fc_matrix **A)
{
    int r2, c2;
    if (lx_int(L, &r2, "dense row count") || lx_int(L, &c2, "dense column count"))
        return L->err->code;
    if (r2 != rows || c2 != cols)
        return lx_fail(L, FC_ERR_PARSE, "dense size %d x %d differs from the header %d x %d",
                       r2, c2, rows, cols);
    if (check_count(L, (long)rows * cols, "rows*cols")) return L->err->code;
    fc_matrix *D = fc_matrix_dense(rows, cols);
    if (!D) return lx_fail(L, FC_ERR_NOMEM, "out of memory for a %d x %d matrix", rows, cols);
    for (long k = 0; k < D->nnz; k++)
        if (lx_double(L, &D->x[k], "a matrix entry")) { fc_matrix_free(D); return L->err->code; }
    *A = D;
    return FC_OK;
}

/* Sparse-block layout read before the blocks. */
typedef struct sbm {
    int nblocks, bn0, bn1, filled1, filled2;
    int *rsz, *csz;   /* cumulative row / column block sizes */
    int *idx1, *idx2; /* block-row pointers, block-column indices */
} sbm;

static void sbm_free(sbm *S)
{
    free(S->rsz);
    free(S->csz);
    free(S->idx1);
    free(S->idx2);
}

/* n integers into a new array (count checked against the file size). */
static fc_err read_ints(lexer *L, int n, int **out, const char *what)
{
    if (check_count(L, n, what)) return L->err->code;
    int *v = fc_calloc((size_t)n, sizeof *v);
    if (!v) return lx_fail(L, FC_ERR_NOMEM, "out of memory reading %s", what);
    for (int k = 0; k < n; k++)
        if (lx_int(L, &v[k], what)) { free(v); return L->err->code; }
    *out = v;
    return FC_OK;
}

/* Cumulative block sizes: positive, increasing, ending at total. */
static fc_err check_cumulative(lexer *L, const int *c, int n, int total, const char *what)
{
    for (int k = 0; k < n; k++)
        if (c[k] <= (k ? c[k - 1] : 0))
            return lx_fail(L, FC_ERR_PARSE, "%s are not increasing (entry %d = %d)", what, k, c[k]);
    if (n > 0 && c[n - 1] != total)
        return lx_fail(L, FC_ERR_PARSE, "%s end at %d, expected %d", what, c[n - 1], total);
    return FC_OK;
}

/* Block-row pointers and block-column indices. */
static fc_err check_sbm_index(lexer *L, const sbm *S)
{
    if (S->idx1[0] != 0)
        return lx_fail(L, FC_ERR_PARSE, "block row pointers start at %d, expected 0", S->idx1[0]);
    for (int k = 0; k + 1 < S->filled1; k++)
        if (S->idx1[k + 1] < S->idx1[k])
            return lx_fail(L, FC_ERR_PARSE, "block row pointers decrease at %d", k + 1);
    if (S->idx1[S->filled1 - 1] != S->filled2)
        return lx_fail(L, FC_ERR_PARSE, "block row pointers end at %d, expected %d",
                       S->idx1[S->filled1 - 1], S->filled2);
    for (int k = 0; k < S->filled2; k++)
        if (S->idx2[k] < 0 || S->idx2[k] >= S->bn1)
            return lx_fail(L, FC_ERR_PARSE, "block column index %d out of range [0, %d)",
                           S->idx2[k], S->bn1);
    return FC_OK;
}

/* Everything of a sparse-block matrix before its blocks. */
static fc_err read_sbm_header(lexer *L, int rows, int cols, sbm *S)
{
    if (lx_int(L, &S->nblocks, "number of blocks") || lx_int(L, &S->bn0, "number of block rows") ||
        lx_int(L, &S->bn1, "number of block columns"))
        return L->err->code;
    if (S->bn0 <= 0 || S->bn0 > rows || S->bn1 <= 0 || S->bn1 > cols)
        return lx_fail(L, FC_ERR_PARSE, "%d x %d blocks for a %d x %d matrix", S->bn0, S->bn1,
                       rows, cols);
    if (check_count(L, S->nblocks, "number of blocks") ||
        read_ints(L, S->bn0, &S->rsz, "row block sizes") ||
        check_cumulative(L, S->rsz, S->bn0, rows, "row block sizes") ||
        read_ints(L, S->bn1, &S->csz, "column block sizes") ||
        check_cumulative(L, S->csz, S->bn1, cols, "column block sizes") ||
        lx_int(L, &S->filled1, "filled1") || lx_int(L, &S->filled2, "filled2"))
        return L->err->code;
    if (S->filled1 < 1 || S->filled1 > S->bn0 + 1)
        return lx_fail(L, FC_ERR_PARSE, "filled1 = %d, expected 1..%d", S->filled1, S->bn0 + 1);
    if (S->filled2 != S->nblocks)
        return lx_fail(L, FC_ERR_PARSE, "filled2 = %d differs from the number of blocks %d",
                       S->filled2, S->nblocks);
    if (read_ints(L, S->filled1, &S->idx1, "block row pointers") ||
        read_ints(L, S->filled2, &S->idx2, "block column indices"))
        return L->err->code;
    return check_sbm_index(L, S);
}

/* The blocks, each `number` then its values column-major, as triplets. */
static fc_err read_sbm_blocks(lexer *L, const sbm *S, fc_triplets *T)
{
    for (int br = 0; br + 1 < S->filled1; br++) {
        int r0 = br ? S->rsz[br - 1] : 0, nr = S->rsz[br] - r0;
        for (int b = S->idx1[br]; b < S->idx1[br + 1]; b++) {
            int bc = S->idx2[b], num;
            int c0 = bc ? S->csz[bc - 1] : 0, ncol = S->csz[bc] - c0;
            if (lx_int(L, &num, "a block number")) return L->err->code;
            if (num != b) return lx_fail(L, FC_ERR_PARSE, "block number %d, expected %d", num, b);
            for (int c = 0; c < ncol; c++)
                for (int r = 0; r < nr; r++) {
                    double x;
                    if (lx_double(L, &x, "a block entry")) return L->err->code;
                    if (fc_triplets_push(T, r0 + r, c0 + c, x))
                        return lx_fail(L, FC_ERR_NOMEM, "out of memory");
                }
        }
    }
    return FC_OK;
}

/* Are all blocks bs x bs? */
static int sbm_uniform(const sbm *S, int bs)
{
    for (int k = 0; k < S->bn0; k++)
        if (S->rsz[k] != (k + 1) * bs) return 0;
    for (int k = 0; k < S->bn1; k++)
        if (S->csz[k] != (k + 1) * bs) return 0;
    return 1;
}

/* CSR of triplets, or BSR with bs when asked for and possible. */
static fc_err triplets_matrix(lexer *L, const fc_triplets *T, int rows, int cols, int bs,
                              fc_matrix **A)
{
    fc_matrix *C = fc_triplets_to_csr(T, rows, cols);
    if (!C) return lx_fail(L, FC_ERR_NOMEM, "out of memory for a %d x %d matrix", rows, cols);
    if (bs > 1) {
        fc_matrix *B = fc_matrix_to_bsr(C, bs);
        fc_matrix_free(C);
        if (!B) return lx_fail(L, FC_ERR_NOMEM, "out of memory for a %d x %d matrix", rows, cols);
        C = B;
    }
    *A = C;
    return FC_OK;
}

/* Sparse-block matrix; BSR when its blocks are uniformly bs x bs. */
static fc_err read_sbm(lexer *L, int rows, int cols, int bs, fc_matrix **A)
{
    sbm S = {0};
    fc_triplets T = {0};
    fc_err e = read_sbm_header(L, rows, cols, &S);
    if (!e) e = read_sbm_blocks(L, &S, &T);
    if (!e) e = triplets_matrix(L, &T, rows, cols, bs > 1 && sbm_uniform(&S, bs) ? bs : 1, A);
    sbm_free(&S);
    fc_triplets_free(&T);
    return e;
}

/* An entry index in [0, n). */
static fc_err lx_index(lexer *L, int *v, int n, const char *what)
{
    if (lx_int(L, v, what)) return L->err->code;
    if (*v < 0 || *v >= n) return lx_fail(L, FC_ERR_PARSE, "%s %d out of range [0, %d)", what, *v, n);
    return FC_OK;
}

/* cs_print compressed-column body: `col j : locations a to b` then
 * b-a+1 lines `i : x`.  Every column once, in order; a row at most once
 * per column (row order within a column is free: Siconos writes
 * unsorted columns, e.g. fc2d_granularflowonwall_00667_00000.dat). */
static fc_err read_cs_columns(lexer *L, int rows, int cols, fc_triplets *T)
{
    int *seen = fc_calloc((size_t)rows, sizeof *seen); /* seen[i] = 1 + last column holding row i */
    if (!seen) return lx_fail(L, FC_ERR_NOMEM, "out of memory");
    fc_err e = FC_OK;
    for (int next = 0; !e && lx_peek_is(L, "col"); next++) {
        int j, a, b;
        if (lx_expect(L, "col") || lx_index(L, &j, cols, "column") || lx_expect(L, ":") ||
            lx_expect(L, "locations") || lx_int(L, &a, "a location") || lx_expect(L, "to") ||
            lx_int(L, &b, "a location")) {
            e = L->err->code;
            break;
        }
        if (j != next) {
            e = lx_fail(L, FC_ERR_PARSE, "column %d where column %d was expected (a column listed twice or out of order)",
                        j, next);
            break;
        }
        if (a != T->n || b < a - 1 || check_count(L, (long)b - a + 1, "column length")) {
            e = lx_fail(L, FC_ERR_PARSE, "column %d: locations %d to %d, expected to start at %ld",
                        j, a, b, T->n);
            break;
        }
        for (int k = a; !e && k <= b; k++) {
            int i;
            double x;
            if (lx_index(L, &i, rows, "row") || lx_expect(L, ":") || lx_double(L, &x, "an entry"))
                e = L->err->code;
            else if (seen[i] == j + 1)
                e = lx_fail(L, FC_ERR_PARSE, "column %d: row %d listed twice", j, i);
            else if (fc_triplets_push(T, i, j, x))
                e = lx_fail(L, FC_ERR_NOMEM, "out of memory");
            else
                seen[i] = j + 1;
        }
    }
    free(seen);
    return e;
}

/* Does a triplet line `i j : x` follow? */
static int triplet_follows(lexer *L)
{
    lex_state s = lx_save(L);
    int i, j, ok = 0;
    const char *t;
    size_t n;
    if (lx_next(L, &t, &n) && parse_int(t, n, &i) && lx_next(L, &t, &n) && parse_int(t, n, &j) &&
        lx_next(L, &t, &n) && n == 1 && *t == ':')
        ok = 1;
    lx_restore(L, s);
    return ok;
}

/* cs_print triplet body: lines `i j : x`. */
static fc_err read_cs_triplets(lexer *L, int rows, int cols, fc_triplets *T)
{
    while (triplet_follows(L)) {
        int i, j;
        double x;
        if (lx_index(L, &i, rows, "row") || lx_index(L, &j, cols, "column") || lx_expect(L, ":") ||
            lx_double(L, &x, "an entry"))
            return L->err->code;
        if (fc_triplets_push(T, i, j, x)) return lx_fail(L, FC_ERR_NOMEM, "out of memory");
    }
    return FC_OK;
}

/* The cs_print header line `[triplet:] R-by-C, nzmax: Z nnz: N[, ...]`:
 * checks R, C; *nnz = N (or -1 if not an integer). */
static fc_err read_cs_header(lexer *L, int rows, int cols, int *triplet, long *nnz)
{
    const char *t;
    size_t n;
    char buf[64];
    int r, c;
    *triplet = lx_peek_is(L, "triplet:");
    if (*triplet) lx_next(L, &t, &n);
    if (!lx_next(L, &t, &n)) return lx_fail(L, FC_ERR_PARSE, "unexpected end of file in a CSparse header");
    tok_str(t, n, buf, sizeof buf);
    if (sscanf(buf, "%d-by-%d", &r, &c) != 2)
        return lx_fail(L, FC_ERR_PARSE, "expected 'ROWS-by-COLS', found '%s'", buf);
    if (r != rows || c != cols)
        return lx_fail(L, FC_ERR_PARSE, "CSparse size %d x %d differs from the header %d x %d",
                       r, c, rows, cols);
    int v;
    *nnz = -1;
    if (lx_expect(L, "nzmax:")) return L->err->code;
    lx_next(L, &t, &n); /* nzmax itself is not needed */
    if (lx_expect(L, "nnz:")) return L->err->code;
    if (lx_next(L, &t, &n) && n > 0 && parse_int(t, t[n - 1] == ',' ? n - 1 : n, &v)) *nnz = v;
    lx_skip_line(L);
    return FC_OK;
}

/* CSparse cs_print dump: origin line, banner line, header, entries;
 * kept as CSR. */
static fc_err read_cs(lexer *L, int rows, int cols, fc_matrix **A)
{
    int origin, triplet;
    long nnz;
    fc_triplets T = {0};
    if (lx_int(L, &origin, "the sparse origin")) return L->err->code;
    lx_skip_line(L);
    if (!lx_peek_is(L, "CSparse")) {
        const char *t;
        size_t n;
        char buf[40];
        if (!lx_next(L, &t, &n)) return lx_fail(L, FC_ERR_PARSE, "unexpected end of file, expected a CSparse banner");
        return lx_fail(L, FC_ERR_PARSE, "expected a 'CSparse Version' banner, found '%s'",
                       tok_str(t, n, buf, sizeof buf));
    }
    lx_skip_line(L);
    fc_err e = read_cs_header(L, rows, cols, &triplet, &nnz);
    if (!e) e = triplet ? read_cs_triplets(L, rows, cols, &T) : read_cs_columns(L, rows, cols, &T);
    if (!e && nnz >= 0 && T.n != nnz)
        e = lx_fail(L, FC_ERR_PARSE, "%ld entries where the CSparse header says %ld", T.n, nnz);
    if (!e) e = triplets_matrix(L, &T, rows, cols, 1, A);
    fc_triplets_free(&T);
    return e;
}

/* A matrix of any storage; bs > 1 asks for block storage when possible. */
static fc_err read_matrix(lexer *L, int bs, const char *name, fc_matrix **A)
{
    int storage, rows, cols;
    char what[64];
    snprintf(what, sizeof what, "the storage code of %s", name);
    if (lx_int(L, &storage, what) || lx_int(L, &rows, "a row count") ||
        lx_int(L, &cols, "a column count"))
        return L->err->code;
    if (rows <= 0 || cols <= 0)
        return lx_fail(L, FC_ERR_PARSE, "matrix %s has size %d x %d", name, rows, cols);
    if (rows > lx_capacity(L) || cols > lx_capacity(L))
        return lx_fail(L, FC_ERR_PARSE, "matrix %s: declared size %d x %d exceeds what a file of %zu bytes can hold",
                       name, rows, cols, L->len);
    switch (storage) {
    case 0: return read_dense(L, rows, cols, A);
    case 1: return read_sbm(L, rows, cols, bs, A);
    case 2: return read_cs(L, rows, cols, A);
    default:
        return lx_fail(L, FC_ERR_PARSE, "matrix %s: unknown storage code %d (expected 0, 1 or 2)",
                       name, storage);
    }
}

/* ------------------------------------------------------------------ */
/* Problems                                                             */
/* ------------------------------------------------------------------ */

/* n doubles into a new array. */
static fc_err read_vector(lexer *L, int n, double **out, const char *what)
{
    if (check_count(L, n, what)) return L->err->code;
    double *v = fc_calloc((size_t)n, sizeof *v);
    if (!v) return lx_fail(L, FC_ERR_NOMEM, "out of memory reading %s", what);
    for (int k = 0; k < n; k++)
        if (lx_double(L, &v[k], what)) { free(v); return L->err->code; }
    *out = v;
    return FC_OK;
}

/* n doubles into an existing array. */
static fc_err read_into(lexer *L, int n, double *v, const char *what)
{
    for (int k = 0; k < n; k++)
        if (lx_double(L, &v[k], what)) return L->err->code;
    return FC_OK;
}

/* After the first matrix (n x n): does a second matrix header `S n m`
 * follow (a global problem) rather than the m numbers of q? */
static int global_follows(lexer *L, int n, int m)
{
    lex_state s = lx_save(L);
    int v[5], k = 0;
    const char *t;
    size_t len;
    while (k < 5 && lx_next(L, &t, &len) && parse_int(t, len, &v[k])) k++;
    lx_restore(L, s);
    if (k < 4 || v[0] < 0 || v[0] > 2 || v[1] != n || v[2] != m) return 0;
    return v[0] != 0 || (k == 5 && v[3] == n && v[4] == m);
}

/* Check a matrix's size right after reading it. */
static fc_err check_size(lexer *L, const fc_matrix *A, const char *name, int rows, int cols)
{
    if (A->rows != rows || A->cols != cols)
        return lx_fail(L, FC_ERR_INVALID, "matrix %s is %d x %d, expected %d x %d", name,
                       A->rows, A->cols, rows, cols);
    return FC_OK;
}

/* The coefficients mu (and mu_r) at the end of either kind. */
static fc_err read_coefficients(lexer *L, fc_problem *p)
{
    if (read_into(L, p->nc, p->mu, "mu")) return L->err->code;
    if (p->d == 5 && read_into(L, p->nc, p->mu_r, "mu_r")) return L->err->code;
    return FC_OK;
}

/* The last token read is a bare 0 or 1 alone on its line, after a line
 * break: Siconos's isComplete flag, read as the last coefficient when a
 * vector before it is one number short. */
static int read_flag_last(const lexer *L)
{
    size_t e = L->pos, b = e;
    while (b > 0 && !is_space(L->s[b - 1])) b--;
    if (e - b != 1 || (L->s[b] != '0' && L->s[b] != '1')) return 0;
    while (b > 0 && L->s[b - 1] != '\n') {
        if (!is_space(L->s[b - 1])) return 0;
        b--;
    }
    return b > 0;
}

/* The coefficients, refused when the last one may be the isComplete
 * flag (the count of numbers then matches only by taking the flag). */
static fc_err read_last_coefficients(lexer *L, fc_problem *p, const char *vector)
{
    if (read_coefficients(L, p)) return L->err->code;
    if (read_flag_last(L))
        return lx_fail(L, FC_ERR_PARSE,
                       "the last %s is a lone '%c' on its own line: %s or a coefficient is one number "
                       "short and the isComplete flag was read as %s (write the coefficient %c as %c.0)",
                       p->d == 5 ? "mu_r" : "mu", L->s[L->pos - 1], vector, p->d == 5 ? "mu_r" : "mu",
                       L->s[L->pos - 1], L->s[L->pos - 1]);
    return FC_OK;
}

/* Global problem after M: H, f, w, mu. */
static fc_err read_global_rest(lexer *L, fc_problem *p)
{
    int m = fc_problem_m(p);
    p->n = p->M->rows;
    if (check_size(L, p->M, "M", p->n, p->n)) return L->err->code;
    if (read_matrix(L, 1, "H", &p->H) || check_size(L, p->H, "H", p->n, m) ||
        read_vector(L, p->n, &p->f, "f") || read_vector(L, m, &p->w, "w"))
        return L->err->code;
    return read_last_coefficients(L, p, "w");
}

/* After a complete problem only whitespace may follow, or the one
 * legitimate trailer: the `isComplete` flag (0 or 1) that Siconos's
 * frictionContact_printInFile writes alone on the line after mu. */
static fc_err check_end(lexer *L, const char *kind)
{
    const char *t;
    size_t n;
    char buf[40];
    int last = L->line;
    if (!lx_next(L, &t, &n)) return FC_OK;
    if (L->line > last && n == 1 && (*t == '0' || *t == '1') && !lx_next(L, &t, &n)) return FC_OK;
    return lx_fail(L, FC_ERR_PARSE, "unexpected data after the end of a %s problem: '%s'", kind,
                   tok_str(t, n, buf, sizeof buf));
}

/* The whole problem from the lexer. */
static fc_err parse_problem(lexer *L, fc_problem **out)
{
    int d, nc;
    if (lx_int(L, &d, "the dimension d")) return L->err->code;
    if (d != 2 && d != 3 && d != 5)
        return lx_fail(L, FC_ERR_INVALID, "dimension d = %d, expected 2, 3 or 5", d);
    if (lx_int(L, &nc, "the number of contacts nc")) return L->err->code;
    if (nc <= 0) return lx_fail(L, FC_ERR_INVALID, "number of contacts nc = %d, expected > 0", nc);
    if (check_count(L, (long)nc * d, "d*nc")) return L->err->code;
    int m = d * nc;
    fc_matrix *A = NULL;
    if (read_matrix(L, d, "W or M", &A)) return L->err->code;
    int global = global_follows(L, A->rows, m);
    fc_problem *p = fc_problem_new(global ? FC_GLOBAL : FC_LOCAL, d, nc);
    if (!p) { fc_matrix_free(A); return lx_fail(L, FC_ERR_NOMEM, "out of memory"); }
    fc_err e;
    if (global) {
        if (A->kind == FC_MAT_BSR) {  /* M is kept as CSR */
            p->M = fc_matrix_to_csr(A);
            fc_matrix_free(A);
        } else {
            p->M = A;
        }
        e = p->M ? read_global_rest(L, p) : lx_fail(L, FC_ERR_NOMEM, "out of memory");
    } else {
        p->W = A;
        e = check_size(L, A, "W", m, m);
        if (!e) e = read_vector(L, m, &p->q, "q");
        if (!e) e = read_last_coefficients(L, p, "q");
    }
    if (!e) e = check_end(L, global ? "global" : "local");
    if (e) { fc_problem_free(p); return e; }
    *out = p;
    return FC_OK;
}

/* The file's bytes (NUL-terminated) in a new buffer. */
static fc_err slurp(const char *path, char **buf, size_t *len, fc_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return fc_error_set(err, FC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return fc_error_set(err, FC_ERR_IO, "%s: not a regular file", path);
    FILE *f = fopen(path, "rb");
    if (!f) return fc_error_set(err, FC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t size = (size_t)st.st_size;
    char *b = fc_calloc(size + 1, 1);
    if (!b) { fclose(f); return fc_error_set(err, FC_ERR_NOMEM, "%s: file too large", path); }
    size_t got = fread(b, 1, size, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || got != size) {
        free(b);
        return fc_error_set(err, FC_ERR_IO, "%s: read error", path);
    }
    *buf = b;
    *len = got;
    return FC_OK;
}

/* Read a Siconos .dat problem and validate it. */
fc_err fc_read_dat(const char *path, fc_problem **p, fc_error *err)
{
    fc_error local_err;
    if (!err) err = &local_err;
    *p = NULL;
    char *buf = NULL;
    size_t len = 0;
    if (slurp(path, &buf, &len, err)) return err->code;
    lexer L = {path, buf, len, 0, 1, 1, err};
    if (len == 0) {
        free(buf);
        return fc_error_set(err, FC_ERR_PARSE, "%s: line 1: empty file", path);
    }
    if (memchr(buf, 0, len)) {
        free(buf);
        return fc_error_set(err, FC_ERR_PARSE, "%s: binary data in a text file", path);
    }
    fc_problem *q = NULL;
    fc_err e = parse_problem(&L, &q);
    free(buf);
    if (e) return e;
    return fc_io_finish(path, q, p, err);
}

/* ------------------------------------------------------------------ */
/* Writer                                                               */
/* ------------------------------------------------------------------ */

/* n doubles on one line. */
static void write_values(FILE *f, const double *x, long n)
{
    for (long k = 0; k < n; k++) fprintf(f, k ? " %.17g" : "%.17g", x[k]);
    fputc('\n', f);
}

/* Dense: storage 0, sizes twice, one column per line. */
static void write_dense(FILE *f, const fc_matrix *A)
{
    fprintf(f, "0\n%d\n%d\n%d %d\n", A->rows, A->cols, A->rows, A->cols);
    for (int j = 0; j < A->cols; j++) write_values(f, A->x + (size_t)j * A->rows, A->rows);
}

/* Block-CSR: storage 1 (Siconos sparse-block matrix). */
static void write_sbm(FILE *f, const fc_matrix *A)
{
    int bs = A->bs, nbr = A->rows / bs, nbc = A->cols / bs;
    long nb = A->nnz / ((long)bs * bs);
    fprintf(f, "1\n%d\n%d\n%ld\n%d\n%d\n", A->rows, A->cols, nb, nbr, nbc);
    for (int k = 1; k <= nbr; k++) fprintf(f, k > 1 ? " %d" : "%d", k * bs);
    fputc('\n', f);
    for (int k = 1; k <= nbc; k++) fprintf(f, k > 1 ? " %d" : "%d", k * bs);
    fprintf(f, "\n%d\n%ld\n", nbr + 1, nb);
    for (int k = 0; k <= nbr; k++) fprintf(f, k ? " %d" : "%d", A->p[k]);
    fputc('\n', f);
    for (long k = 0; k < nb; k++) fprintf(f, k ? " %d" : "%d", A->j[k]);
    fputc('\n', f);
    for (long k = 0; k < nb; k++) {
        fprintf(f, "%ld\n", k);
        write_values(f, A->x + (size_t)k * bs * bs, (long)bs * bs);
    }
}

/* CSR: storage 2 as a cs_print triplet dump with exact values. */
static void write_cs(FILE *f, const fc_matrix *A)
{
    fprintf(f, "2\n%d\n%d\n1\nCSparse Version 3.1.9, fricon exact dump\n", A->rows, A->cols);
    fprintf(f, "triplet: %d-by-%d, nzmax: %ld nnz: %ld\n", A->rows, A->cols, A->nnz, A->nnz);
    for (int i = 0; i < A->rows; i++)
        for (int k = A->p[i]; k < A->p[i + 1]; k++)
            fprintf(f, "    %d %d : %.17g\n", i, A->j[k], A->x[k]);
}

static void write_matrix(FILE *f, const fc_matrix *A)
{
    if (A->kind == FC_MAT_DENSE) write_dense(f, A);
    else if (A->kind == FC_MAT_BSR) write_sbm(f, A);
    else write_cs(f, A);
}

/* Write a problem in the Siconos text format, every value in %.17g. */
fc_err fc_write_dat(const char *path, const fc_problem *p, fc_error *err)
{
    int m = fc_problem_m(p);
    if ((p->kind == FC_LOCAL && (!p->W || !p->q)) ||
        (p->kind == FC_GLOBAL && (!p->M || !p->H || !p->f || !p->w)) || !p->mu ||
        (p->d == 5 && !p->mu_r))
        return fc_error_set(err, FC_ERR_INVALID, "%s: incomplete problem", path);
    if (p->neq)   /* the format has no place for them: refused, not dropped */
        return fc_error_set(err, FC_ERR_INVALID,
                            "%s: the Siconos .dat format cannot hold equality constraints (%d rows); use .hdf5",
                            path, p->neq);
    FILE *f = fopen(path, "w");
    if (!f) return fc_error_set(err, FC_ERR_IO, "%s: cannot open for writing: %s", path, strerror(errno));
    fprintf(f, "%d\n%d\n", p->d, p->nc);
    if (p->kind == FC_LOCAL) {
        write_matrix(f, p->W);
        write_values(f, p->q, m);
    } else {
        write_matrix(f, p->M);
        write_matrix(f, p->H);
        write_values(f, p->f, p->n);
        write_values(f, p->w, m);
    }
    write_values(f, p->mu, p->nc);
    if (p->d == 5) write_values(f, p->mu_r, p->nc);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return fc_error_set(err, FC_ERR_IO, "%s: write error: %s", path, strerror(errno));
    return FC_OK;
}
