/* fricon convert IN OUT: between Siconos .dat and FClib .hdf5. */
#include "cli.h"

int cmd_convert(int argc, char **argv)
{
    if (argc != 2) return cli_fail("usage: fricon convert IN OUT");
    fc_problem *p;
    fc_error err;
    if (fc_read(argv[0], &p, &err)) return cli_fail("%s", err.msg);
    fc_err e = fc_write(argv[1], p, &err);
    fc_problem_free(p);
    return e ? cli_fail("%s", err.msg) : EXIT_DONE;
}
