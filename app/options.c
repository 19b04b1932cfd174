/* Solver options from the command line: --set NAME=VALUE, --tol,
 * --max-iter, --time-limit (the table of names and ranges is the
 * library's, src/solvers/options.c). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cli_set_option(fc_options *opt, const char *assignment)
{
    const char *eq = strchr(assignment, '=');
    if (!eq) return cli_fail("--set expects NAME=VALUE, got '%s'", assignment);
    char name[64];
    size_t len = (size_t)(eq - assignment);
    if (len >= sizeof name) return cli_fail("--set: unknown option '%.*s' (see 'fricon options')", (int)len, assignment);
    memcpy(name, assignment, len);
    name[len] = 0;
    fc_error err;
    if (fc_options_set(opt, name, eq + 1, &err) != FC_OK) return cli_fail("--set %s", err.msg);
    return 0;
}

void cli_list_options(void)
{
    fc_options def;
    fc_default_options(&def);
    for (int i = 0; fc_option_at(i); i++) {
        const fc_option_info *o = fc_option_at(i);
        const char *field = (const char *)&def + o->offset;
        char r[64];
        fc_option_range(o, r, sizeof r);
        if (o->type == FC_OPTION_DOUBLE)
            printf("%-22s %-10g %s (%s)\n", o->name, *(const double *)(const void *)field, o->help, r);
        else if (o->type == FC_OPTION_SOLVER)
            printf("%-22s %-10s %s\n", o->name, *(const char *const *)(const void *)field, o->help);
        else
            printf("%-22s %-10d %s (%s)\n", o->name, *(const int *)(const void *)field, o->help, r);
    }
}

int cli_solver_option(fc_options *opt, const char *name, const char *val)
{
    /* the shorthands, checked against the library's ranges like --set */
    static const char *const flags[][2] = {
        {"--tol", "tolerance"}, {"--max-iter", "max_iter"}, {"--time-limit", "time_limit"}};
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
        if (strcmp(name, flags[k][0])) continue;
        fc_error err;
        if (fc_options_set(opt, flags[k][1], val, &err) != FC_OK) return cli_fail("%s: %s", name, err.msg);
        return 0;
    }
    if (!strcmp(name, "--set")) return cli_set_option(opt, val) ? EXIT_BAD_INPUT : 0;
    return 1;
}
