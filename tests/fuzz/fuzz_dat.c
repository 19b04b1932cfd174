/* libFuzzer target: the Siconos .dat reader (every storage, local, global,
 * rolling) on arbitrary bytes.  It must return an error or a valid
 * problem, never crash, hang or leak.  Built three times: fuzz_dat (any
 * kind), fuzz_dat_global and fuzz_dat_rolling (FUZZ_KIND 1, 2: seeded with
 * global or rolling files; an accepted problem of that kind is also
 * solved for a few iterations, through the reduction for a global one). */
#include "fricon.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef FUZZ_KIND
#define FUZZ_KIND 0
#endif

static void solve_briefly(const fc_problem *p)
{
    int m = fc_problem_m(p);
    double *r = calloc((size_t)m + 1, sizeof *r), *u = calloc((size_t)m + 1, sizeof *u);
    fc_options o;
    fc_default_options(&o);
    o.max_iter = 3;
    o.time_limit = 0.2;
    fc_info info;
    fc_error err;
    if (r && u && fc_solve(p, NULL, &o, r, u, NULL, &info, &err) == FC_OK &&
        info.status == FC_STATUS_ERROR && !info.message[0])
        abort(); /* an error status says why */
    free(r);
    free(u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) snprintf(path, sizeof path, "/tmp/fricon-fuzz-dat%d-%d.dat", FUZZ_KIND, (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    fc_problem *p = NULL;
    fc_error err;
    if (fc_read_dat(path, &p, &err) == FC_OK) {
        if (fc_problem_validate(p, &err) != FC_OK) abort(); /* a read problem is valid */
        if ((FUZZ_KIND == 1 && p->kind == FC_GLOBAL) || (FUZZ_KIND == 2 && p->d == 5)) solve_briefly(p);
        fc_problem_free(p);
    }
    return 0;
}
