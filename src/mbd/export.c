/* Export of a step's problem with its solution: FClib HDF5 (the problem
 * by fc_write_hdf5, then /solution appended with libfclib), so that the
 * files of a simulation form a benchmark collection with reference
 * solutions that fricon, fccheck.py and FClib/Siconos readers all read;
 * /guesses holds the warm start the simulator handed the solver. */
#include "mbd/mbd.h"

#include <fclib.h>
#include <stdlib.h>
#include <string.h>

fc_err fc_mbd_export_last(const fc_mbd_world *w, const char *path, int local,
                          const char *sol_path, fc_error *err)
{
    fc_error etmp;
    if (!err) err = &etmp;
    const fc_problem *g = w->last;
    if (!g || g->nc == 0 || !w->last_r || !w->last_v)
        return fc_error_set(err, FC_ERR_INVALID, "%s: the last step had no contact", path);
    fc_problem *red = NULL;
    const fc_problem *p = g;
    if (local) {
        p = w->last_local;
        if (!p) {
            fc_err e = fc_problem_reduce(g, &red, err);
            if (e) return e;
            p = red;
        }
    }
    int m = fc_problem_m(g);
    double *u = fc_calloc((size_t)m, sizeof *u);
    if (!u) {
        fc_problem_free(red);
        return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    }
    /* u = H^T v+ + w, which equals W r + q of the local form */
    memcpy(u, g->w, (size_t)m * sizeof *u);
    fc_matrix_gemv_t(g->H, 1.0, w->last_v, 1.0, u);
    fc_err e = fc_write_hdf5(path, p, err);
    if (!e) {
        struct fclib_solution sol;
        memset(&sol, 0, sizeof sol);
        sol.r = w->last_r;
        sol.u = u;
        sol.v = local ? NULL : w->last_v;
        sol.l = g->neq > 0 ? w->last_lambda : NULL;
        if (!fclib_write_solution(&sol, path))
            e = fc_error_set(err, FC_ERR_IO, "%s: cannot write /solution", path);
    }
    if (!e && w->last_r0) e = fc_write_guess(path, p, w->last_r0, NULL, err);
    if (!e && sol_path)
        e = fc_write_solution(sol_path, p, w->last_r, u, local ? NULL : w->last_v,
                              g->neq > 0 ? w->last_lambda : NULL, err);
    free(u);
    fc_problem_free(red);
    return e;
}
