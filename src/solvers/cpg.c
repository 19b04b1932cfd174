/* cpg: placeholder, the solver follows in the next commit. */
#include "internal.h"
#include <stdio.h>
fc_status fc_cpg_solve(const fc_problem *p, const fc_options *opt, double *r, double *u, fc_info *info)
{
    (void)p; (void)opt; (void)r; (void)u;
    snprintf(info->message, sizeof info->message, "cpg: not implemented yet");
    return FC_STATUS_ERROR;
}
