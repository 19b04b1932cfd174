/* Options by name: the defaults are inside their ranges, fc_options_set
 * parses and checks, fc_options_validate and fc_solve refuse a value out
 * of range with a message naming the option. */
#include "test.h"
#include "fricon.h"

#include <float.h>

/* The value of option o in opt, formatted exactly (%.17g for doubles). */
static void format_value(const fc_options *opt, const fc_option_info *o, char *buf, size_t n)
{
    const char *field = (const char *)opt + o->offset;
    if (o->type == FC_OPTION_DOUBLE) snprintf(buf, n, "%.17g", *(const double *)(const void *)field);
    else if (o->type == FC_OPTION_INT) snprintf(buf, n, "%d", *(const int *)(const void *)field);
    else snprintf(buf, n, "%s", *(const char *const *)(const void *)field);
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
        {"tolerance", "0"},        {"tolerance", "nan"},   {"max_iter", "0"},
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
    test_ranges();
    test_solve_refuses();
    TEST_DONE();
}
