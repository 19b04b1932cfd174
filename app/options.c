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
    if (!strcmp(name, "--tol")) {
        if (cli_parse_double(val, &opt->tolerance) || opt->tolerance <= 0)
            return cli_fail("--tol: '%s' is not a positive number", val);
    } else if (!strcmp(name, "--max-iter")) {
        if (cli_parse_int(val, &opt->max_iter) || opt->max_iter <= 0)
            return cli_fail("--max-iter: '%s' is not a positive integer", val);
    } else if (!strcmp(name, "--time-limit")) {
        if (cli_parse_double(val, &opt->time_limit) || opt->time_limit < 0)
            return cli_fail("--time-limit: '%s' is not a number of seconds >= 0", val);
    } else if (!strcmp(name, "--set")) {
        if (cli_set_option(opt, val)) return EXIT_BAD_INPUT;
    } else {
        return 1;
    }
    return 0;
}
