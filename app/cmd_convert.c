/* fricon convert IN OUT: between Siconos .dat and FClib .hdf5. */
#include "cli.h"

int cmd_convert(int argc, char **argv)
{
    if (argc != 2) return cli_fail("usage: fricon convert IN OUT");
    if (cli_same_file(argv[0], argv[1]))
        return cli_fail("%s: the output is the input file (it would be overwritten)", argv[1]);
    fc_problem *p;
    fc_error err;
    if (fc_read(argv[0], &p, &err)) return cli_fail("%s", err.msg);
    fc_err e = fc_write(argv[1], p, &err);
    fc_problem_free(p);
    return e ? cli_fail("%s", err.msg) : EXIT_DONE;
}
