/* Options by name: fc_default_options writes the table's defaults, which
 * are inside their ranges and agree with include/fricon_options.h's
 * comments and docs/options.md; fc_options_set parses and checks,
 * fc_options_validate and fc_solve refuse a value out of range with a
 * message naming the option. */
#define _POSIX_C_SOURCE 200809L /* popen */
#include "test.h"
#include "fricon.h"

#include <ctype.h>
#include <float.h>

/* The value of option o in opt, formatted exactly (%.17g for doubles). */
static void format_value(const fc_options *opt, const fc_option_info *o, char *buf, size_t n)
{
    const char *field = (const char *)opt + o->offset;
    if (o->type == FC_OPTION_DOUBLE) snprintf(buf, n, "%.17g", *(const double *)(const void *)field);
    else if (o->type == FC_OPTION_UNSIGNED) snprintf(buf, n, "%u", *(const unsigned *)(const void *)field);
    else if (o->type != FC_OPTION_SOLVER) snprintf(buf, n, "%d", *(const int *)(const void *)field);
    else snprintf(buf, n, "%s", *(const char *const *)(const void *)field);
}

/* ---- the header's "default X" comments (include/fricon_options.h) ---- */

typedef struct { char name[64]; long value; } hdr_enum;
typedef struct { char type[64], field[64], def[160]; } hdr_field; /* def: after "default", or "" */
typedef struct { char name[64]; int first, n; } hdr_struct;
typedef struct { char path[128], def[160]; } hdr_leaf;

static hdr_enum henum[256];
static hdr_field hfield[512];
static hdr_struct hstruct[64];
static hdr_leaf hleaf[512];
static int nhenum, nhfield, nhstruct, nhleaf;

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0, k;
    char *s = malloc(cap);
    while (s && (k = fread(s + n, 1, cap - 1 - n, f)) > 0) {
        n += k;
        if (n + 1 == cap) s = realloc(s, cap *= 2);
    }
    fclose(f);
    if (s) s[n] = 0;
    return s;
}

/* Copy the identifier at p into out (n bytes); the end of it. */
static const char *ident(const char *p, char *out, size_t n)
{
    size_t k = 0;
    while (isalnum((unsigned char)*p) || *p == '_') {
        if (k + 1 < n) out[k++] = *p;
        p++;
    }
    out[k] = 0;
    return p;
}

/* The enumerators of every enum in text (comments blanked first). */
static void parse_enums(char *text)
{
    for (char *c = strstr(text, "/*"); c; c = strstr(c, "/*")) {
        char *e = strstr(c + 2, "*/");
        if (!e) break;
        memset(c, ' ', (size_t)(e + 2 - c));
    }
    for (char *p = strstr(text, "enum"); p; p = strstr(p + 4, "enum")) {
        char *open = strchr(p, '{'), *close = open ? strchr(open, '}') : NULL, *semi = strchr(p, ';');
        if (!close || (semi && semi < open)) continue; /* "enum x" used as a type */
        long next = 0;
        for (char *q = open + 1; q < close;) {
            while (q < close && (isspace((unsigned char)*q) || *q == ',')) q++;
            if (q >= close || nhenum == 256) break;
            hdr_enum *e = &henum[nhenum++];
            q = (char *)ident(q, e->name, sizeof e->name);
            while (isspace((unsigned char)*q)) q++;
            if (*q == '=') next = strtol(q + 1, &q, 0);
            e->value = next++;
            while (q < close && *q != ',') q++;
        }
        p = close;
    }
}

/* Each struct's fields, with the value after "default" in the comment on
 * the line of the field's declaration. */
static void parse_structs(const char *text)
{
    for (const char *p = strstr(text, "typedef struct "); p && nhstruct < 64;
         p = strstr(p + 1, "typedef struct ")) {
        hdr_struct *st = &hstruct[nhstruct];
        const char *q = ident(p + 15, st->name, sizeof st->name);
        const char *end = strstr(q, "\n}"); /* (a '}' in a comment is indented) */
        if (*q != ' ' || q[1] != '{' || !end) continue;
        st->first = nhfield;
        for (q += 2; q < end && nhfield < 512;) {
            while (isspace((unsigned char)*q)) q++;
            if (!strncmp(q, "/*", 2)) { /* a comment on its own line */
                q = strstr(q, "*/") + 2;
                continue;
            }
            const char *semi = strchr(q, ';');
            if (!semi || semi > end) break;
            hdr_field *f = &hfield[nhfield++];
            char tok[2][64] = {"", ""};
            while (q < semi) { /* the last two identifiers: type and field */
                if (isalnum((unsigned char)*q) || *q == '_') {
                    memcpy(tok[0], tok[1], sizeof tok[0]);
                    q = ident(q, tok[1], sizeof tok[1]);
                } else q++;
            }
            snprintf(f->type, sizeof f->type, "%s", tok[0]);
            snprintf(f->field, sizeof f->field, "%s", tok[1]);
            f->def[0] = 0;
            q = semi + 1;
            while (*q == ' ' || *q == '\t') q++;
            if (strncmp(q, "/*", 2)) continue;
            const char *ce = strstr(q, "*/");
            const char *d = strstr(q, "default");
            q = ce + 2;
            if (!d || d > ce) continue;
            for (d += 7; isspace((unsigned char)*d); d++) {}
            size_t k = 0;
            if (*d == '{') { /* a nested struct's defaults, in its fields' order */
                while (d < ce && *d != '}' && k + 2 < sizeof f->def) f->def[k++] = *d++;
                f->def[k++] = '}';
            } else
                while (d < ce && !isspace((unsigned char)*d) && !strchr(",;)", *d) && k + 1 < sizeof f->def)
                    f->def[k++] = *d++;
            f->def[k] = 0;
        }
        st->n = nhfield - st->first;
        nhstruct++;
    }
}

static const hdr_struct *find_struct(const char *name)
{
    for (int i = 0; i < nhstruct; i++)
        if (!strcmp(hstruct[i].name, name)) return &hstruct[i];
    return NULL;
}

/* The k-th item of "{a, b, c}" into out ("" past the last). */
static void brace_item(const char *list, int k, char *out, size_t n)
{
    const char *p = list + 1;
    for (int i = 0; i < k && p; i++) p = strchr(p, ','), p = p ? p + 1 : NULL;
    size_t m = 0;
    while (p && isspace((unsigned char)*p)) p++;
    while (p && *p && *p != ',' && *p != '}' && m + 1 < n) out[m++] = *p++;
    while (m && isspace((unsigned char)out[m - 1])) m--;
    out[m] = 0;
}

/* Every leaf field under struct st as "prefix.field" with its default; a
 * nested struct's "default {...}" gives its fields' defaults in order. */
static void expand(const hdr_struct *st, const char *prefix, const char *braces)
{
    for (int i = 0; i < st->n && nhleaf < 512; i++) {
        const hdr_field *f = &hfield[st->first + i];
        char path[128], def[160];
        snprintf(path, sizeof path, "%s%s", prefix, f->field);
        snprintf(def, sizeof def, "%s", f->def);
        if (braces) brace_item(braces, i, def, sizeof def);
        const hdr_struct *sub = find_struct(f->type);
        if (sub) {
            char pre[130];
            snprintf(pre, sizeof pre, "%s.", path);
            expand(sub, pre, def[0] == '{' ? def : NULL);
            continue;
        }
        snprintf(hleaf[nhleaf].path, sizeof hleaf[nhleaf].path, "%s", path);
        snprintf(hleaf[nhleaf].def, sizeof hleaf[nhleaf].def, "%s", def);
        nhleaf++;
    }
}

/* The number a default's text stands for: an enumerator, a/b or a number;
 * 0 (and *ok = 0) when it is none of those. */
static double header_value(const char *text, int *ok)
{
    *ok = 1;
    for (int i = 0; i < nhenum; i++)
        if (!strcmp(henum[i].name, text)) return (double)henum[i].value;
    if (!strcmp(text, "NULL")) return 0;
    char *end;
    double x = strtod(text, &end);
    if (*end == '/') {
        double y = strtod(end + 1, &end);
        x /= y;
    }
    if (end == text || *end) *ok = 0;
    return x;
}

static void test_header_defaults(void)
{
    const char *path = FRICON_SOURCE_DIR "/include/fricon_options.h";
    char *text = read_text(path), *copy = read_text(path);
    CHECK(text && copy, "cannot read %s", path);
    if (!text || !copy) return;
    parse_structs(text);
    parse_enums(copy);
    const hdr_struct *top = find_struct("fc_options");
    CHECK(top != NULL, "no fc_options in %s", path);
    if (top) expand(top, "", NULL);
    CHECK(nhleaf >= 100 && nhenum >= 30, "%d fields, %d enumerators parsed from %s", nhleaf, nhenum, path);
    for (int i = 0; fc_option_at(i); i++) {
        const fc_option_info *o = fc_option_at(i);
        const hdr_leaf *l = NULL;
        for (int k = 0; k < nhleaf && !l; k++)
            if (!strcmp(hleaf[k].path, o->name)) l = &hleaf[k];
        CHECK(l != NULL, "%s: not a field of fc_options in %s", o->name, path);
        if (!l) continue;
        CHECK(l->def[0], "%s: its comment in %s states no 'default'", o->name, path);
        if (!l->def[0]) continue;
        if (o->type == FC_OPTION_SOLVER) {
            char quoted[80];
            snprintf(quoted, sizeof quoted, "\"%s\"", o->def_solver ? o->def_solver : "");
            CHECK(!strcmp(l->def, quoted), "%s: header default %s, table %s", o->name, l->def, quoted);
            continue;
        }
        int ok;
        double x = header_value(l->def, &ok);
        CHECK(ok && x == o->def, "%s: header default %s, table %.17g", o->name, l->def, o->def);
    }
    /* a field not settable by name defaults to zero (NULL) */
    for (int k = 0; k < nhleaf; k++) {
        int named = 0;
        for (int i = 0; fc_option_at(i) && !named; i++) named = !strcmp(fc_option_at(i)->name, hleaf[k].path);
        int ok;
        CHECK(named || !hleaf[k].def[0] || (header_value(hleaf[k].def, &ok) == 0 && ok),
              "%s: header default %s but not in the table (fc_default_options writes 0)", hleaf[k].path,
              hleaf[k].def);
    }
    free(text);
    free(copy);
}

/* docs/options.md is what `fricon options --markdown` generates from the
 * table (regenerate: fricon options --markdown > docs/options.md). */
static void test_docs(void)
{
    const char *path = FRICON_SOURCE_DIR "/docs/options.md";
    char *doc = read_text(path);
    CHECK(doc != NULL, "cannot read %s", path);
    FILE *f = popen("'" FRICON_BIN "' options --markdown", "r");
    CHECK(f != NULL, "cannot run %s", FRICON_BIN);
    if (!doc || !f) {
        free(doc);
        if (f) pclose(f);
        return;
    }
    size_t cap = 1 << 16, n = 0, k;
    char *gen = malloc(cap);
    while (gen && (k = fread(gen + n, 1, cap - 1 - n, f)) > 0) {
        n += k;
        if (n + 1 == cap) gen = realloc(gen, cap *= 2);
    }
    CHECK(pclose(f) == 0 && gen, "%s options --markdown failed", FRICON_BIN);
    if (gen) {
        gen[n] = 0;
        size_t at = 0; /* the first difference, for the message */
        while (doc[at] && doc[at] == gen[at]) at++;
        int line = 1;
        for (size_t i = 0; i < at; i++) line += doc[i] == '\n';
        CHECK(!strcmp(doc, gen), "%s differs from `fricon options --markdown` at line %d; regenerate it", path,
              line);
    }
    free(gen);
    free(doc);
}

static void test_defaults(void)
{
    fc_options def, o;
    fc_default_options(&def);
    fc_error err;
    CHECK(fc_options_validate(&def, &err) == FC_OK, "defaults refused: %s", err.msg);
    int n = 0;
    for (int i = 0; fc_option_at(i); i++, n++) {
        const fc_option_info *info = fc_option_at(i);
        char v[64];
        format_value(&def, info, v, sizeof v);
        char t[64];
        if (info->type == FC_OPTION_SOLVER) snprintf(t, sizeof t, "%s", info->def_solver);
        else if (info->type == FC_OPTION_DOUBLE) snprintf(t, sizeof t, "%.17g", info->def);
        else snprintf(t, sizeof t, "%.0f", info->def);
        CHECK(!strcmp(v, t), "%s: fc_default_options wrote %s, the table says %s", info->name, v, t);
        fc_default_options(&o);
        CHECK(fc_options_set(&o, info->name, v, &err) == FC_OK, "%s=%s (its default): %s", info->name,
              v, err.msg);
        CHECK(!memcmp(&o, &def, sizeof o), "%s=%s changed the options", info->name, v);
    }
    CHECK(n >= 90, "%d options in the table", n);
}

static void test_ranges(void)
{
    fc_options o;
    fc_error err;
    static const struct { const char *name, *value; } bad[] = {
        {"tolerance", "0"},        {"tolerance", "nan"},   {"max_iter", "-1"},
        {"time_limit", "-1"},      {"nsgs.omega", "2"},    {"nsgs.omega", "0"},
        {"nsgs.anderson", "101"},  {"nsn.line_search", "4"}, {"ipm.step_fraction", "1"},
        {"ipm.margin", "-0.5"},    {"fp.rho", "inf"},      {"nsgs.local", "1.5"},
        {"prox.inner_solver", "nope"}, {"no.such", "1"},   {"stick.shift", "abc"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        fc_default_options(&o);
        fc_options before = o;
        err.msg[0] = 0;
        CHECK(fc_options_set(&o, bad[k].name, bad[k].value, &err) == FC_ERR_INVALID, "%s=%s accepted",
              bad[k].name, bad[k].value);
        CHECK(strstr(err.msg, bad[k].name) != NULL, "%s=%s: message '%s' does not name it", bad[k].name,
              bad[k].value, err.msg);
        CHECK(!memcmp(&o, &before, sizeof o), "%s=%s changed the options", bad[k].name, bad[k].value);
    }
    /* the ends of a range */
    fc_default_options(&o);
    CHECK(fc_options_set(&o, "nsgs.omega", "1.99", &err) == FC_OK && o.nsgs.omega == 1.99, "omega 1.99");
    CHECK(fc_options_set(&o, "nsn.line_search", "3", &err) == FC_OK && o.nsn.line_search == 3, "ls 3");
    CHECK(fc_options_set(&o, "time_limit", "0", &err) == FC_OK && o.time_limit == 0, "time limit 0");
    CHECK(fc_options_set(&o, "fp.rho", "-2", &err) == FC_OK && o.fp.rho == -2, "fp.rho -2");
    CHECK(fc_options_set(&o, "prox.inner_solver", "nsn-ac", &err) == FC_OK &&
          !strcmp(o.prox.inner_solver, "nsn-ac"), "prox.inner_solver nsn-ac");
}

/* fc_solve checks the whole struct first. */
static void test_solve_refuses(void)
{
    fc_problem *p;
    fc_error err;
    CHECK(fc_read(FRICON_EXAMPLES "/FC3D_Example1.dat", &p, &err) == FC_OK, "%s", err.msg);
    if (!p) return;
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m, sizeof *r), *u = calloc((size_t)m, sizeof *u);
    fc_options o;
    fc_info info;
    fc_default_options(&o);
    o.tolerance = NAN;
    CHECK(fc_solve(p, "nsgs", &o, r, u, NULL, &info, &err) == FC_ERR_INVALID, "NaN tolerance accepted");
    CHECK(strstr(err.msg, "tolerance") != NULL, "message '%s'", err.msg);
    CHECK(info.status == FC_STATUS_ERROR, "status %s", fc_status_name(info.status));
    fc_default_options(&o);
    o.nsgs.anderson = 1000000000;   /* would allocate 10^9 vectors */
    CHECK(fc_solve(p, "nsgs", &o, r, u, NULL, &info, &err) == FC_ERR_INVALID, "huge Anderson memory accepted");
    fc_default_options(&o);
    CHECK(fc_solve(p, "nsgs", &o, r, u, NULL, &info, &err) == FC_OK && info.status == FC_CONVERGED,
          "defaults: %s", fc_status_name(info.status));
    free(r);
    free(u);
    fc_problem_free(p);
}

int main(void)
{
    test_defaults();
    test_header_defaults();
    test_docs();
    test_ranges();
    test_solve_refuses();
    TEST_DONE();
}
