/* Solver options from the command line: --set NAME=VALUE, --tol,
 * --max-iter, --time-limit (the table of names and ranges is the
 * library's, src/core/options.c). */
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

int cli_solver_option(fc_options *opt, const char *name, const char *val)
{
    /* the shorthands, checked against the library's ranges like --set */
    static const char *const flags[][2] = {
        {"--tol", "tolerance"}, {"--max-iter", "max_iter"}, {"--time-limit", "time_limit"},
        {"--threads", "threads"}};
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
        if (strcmp(name, flags[k][0])) continue;
        fc_error err;
        if (fc_options_set(opt, flags[k][1], val, &err) != FC_OK) return cli_fail("%s: %s", name, err.msg);
        return 0;
    }
    if (!strcmp(name, "--set")) return cli_set_option(opt, val) ? EXIT_BAD_INPUT : 0;
    return 1;
}
