/* libFuzzer target: the Siconos .dat reader (every storage, local, global,
 * rolling) on arbitrary bytes.  It must return an error or a valid
 * problem, never crash, hang or leak. */
#include "fricon.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) snprintf(path, sizeof path, "/tmp/fricon-fuzz-dat-%d.dat", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    fc_problem *p = NULL;
    fc_error err;
    if (fc_read_dat(path, &p, &err) == FC_OK) {
        if (fc_problem_validate(p, &err) != FC_OK) abort(); /* a read problem is valid */
        fc_problem_free(p);
    }
    return 0;
}
