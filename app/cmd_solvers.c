/* fricon solvers: the registry. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cmd_solvers(int argc, char **argv)
{
    (void)argv;
    if (argc != 0) return cli_fail("usage: fricon solvers");
    for (int i = 0; i < fc_solver_count(); i++) {
        const fc_solver *s = fc_solver_at(i);
        char dims[16] = "";
        int len = 0;
        for (int d = 2; d <= 5; d++)
            if (s->dims & FC_DIM(d)) len += snprintf(dims + len, sizeof dims - (size_t)len, "%s%d", len ? "," : "", d);
        printf("%-12s d=%-6s %s%s\n", s->name, dims, s->description,
               !strcmp(s->name, fc_default_solver()) ? " [default]" : "");
    }
    return EXIT_DONE;
}
