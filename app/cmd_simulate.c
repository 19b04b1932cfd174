/* fricon simulate SCENE [options]: run a rigid-body scene, one global
 * frictional contact problem per time step; optionally export the
 * problems (FClib HDF5 with /solution, plus the solution as a text file
 * PATH.sol; --local: their reduced local form W, q) and the bodies
 * (legacy VTK) every k-th step (--every K).  Further options: --count N
 * (pile, column), --mu MU, --seed S, --tol, --max-iter, --time-limit
 * (per solve), --set NAME=VALUE, --quiet, --both (export the global and
 * the local form), --export-from S (export from step S on), --mem-limit MB (refuse a scene
 * whose estimated memory is above it; default the physical memory).
 * Scenes with joints default to a solver that handles equalities. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "fricon_mbd.h"

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>   /* mallopt */
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bounds of --count (bodies: 10^7 is some GB of bodies, contacts and
 * problems) and --dt (a step longer than a second is no time step). */
#define SIM_MAX_COUNT 10000000
#define SIM_MAX_DT 1.0

typedef struct {
    const char *scene, *solver, *export_dir, *vtk_dir;
    int steps, every, quiet, local, both, from;
    double dt, mem_mb;
    fc_mbd_scene_params par;
    fc_options opt;
} sim_args;

static int parse_args(int argc, char **argv, sim_args *a)
{
    memset(a, 0, sizeof *a);
    fc_default_options(&a->opt);
    fc_mbd_scene_defaults(&a->par);
    a->solver = NULL; /* the scene's default: fc_mbd_default_solver */
    a->steps = 100;
    a->every = 1;
    int rc;
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = s[0] == '-' && strcmp(s, "--quiet") != 0 && strcmp(s, "--local") != 0 &&
                    strcmp(s, "--both") != 0;
        if (takes && !val) return cli_fail("option %s needs a value", s);
        if (!strcmp(s, "--quiet")) a->quiet = 1;
        else if (!strcmp(s, "--local")) a->local = 1;
        else if (!strcmp(s, "--both")) a->both = 1;
        else if (!strcmp(s, "--export-from")) {
            if (cli_parse_int(val, &a->from) || a->from < 0)
                return cli_fail("--export-from: '%s' is not an integer >= 0", val);
        }
        else if (!strcmp(s, "--solver")) a->solver = val;
        else if (!strcmp(s, "--export")) a->export_dir = val;
        else if (!strcmp(s, "--vtk")) a->vtk_dir = val;
        else if (!strcmp(s, "--steps")) {
            if (cli_parse_int(val, &a->steps) || a->steps < 0)
                return cli_fail("--steps: '%s' is not an integer >= 0", val);
        } else if (!strcmp(s, "--every")) {
            if (cli_parse_int(val, &a->every) || a->every <= 0)
                return cli_fail("--every: '%s' is not a positive integer", val);
        } else if (!strcmp(s, "--count")) {
            if (cli_parse_int(val, &a->par.count) || a->par.count <= 0 || a->par.count > SIM_MAX_COUNT)
                return cli_fail("--count: '%s' is not an integer in [1, %d]", val, SIM_MAX_COUNT);
        } else if (!strcmp(s, "--seed")) {
            int seed;
            if (cli_parse_int(val, &seed) || seed < 0) return cli_fail("--seed: '%s' is not an integer >= 0", val);
            a->par.seed = (unsigned)seed;
        } else if (!strcmp(s, "--dt")) {
            if (cli_parse_double(val, &a->dt) || a->dt <= 0 || a->dt > SIM_MAX_DT)
                return cli_fail("--dt: '%s' is not a number in (0, %g] seconds", val, SIM_MAX_DT);
        } else if (!strcmp(s, "--mem-limit")) {
            if (cli_parse_double(val, &a->mem_mb) || !(a->mem_mb > 0))
                return cli_fail("--mem-limit: '%s' is not a positive number of MB", val);
        } else if (!strcmp(s, "--angle")) {
            if (cli_parse_double(val, &a->par.angle_deg) || fabs(a->par.angle_deg) >= 90)
                return cli_fail("--angle: '%s' is not an angle in (-90, 90) degrees", val);
        } else if (!strcmp(s, "--mu")) {
            if (cli_parse_double(val, &a->par.mu) || a->par.mu < 0)
                return cli_fail("--mu: '%s' is not a number >= 0", val);
        } else if ((rc = cli_solver_option(&a->opt, s, val)) != 1) {
            if (rc) return rc;
        } else if (s[0] == '-' && s[1]) {
            return cli_fail("unknown option '%s'", s);
        } else if (!a->scene) {
            a->scene = s;
            takes = 0;
        } else {
            return cli_fail("unexpected argument '%s'", s);
        }
        i += takes;
    }
    if (!a->scene) return cli_fail("usage: fricon simulate SCENE [--steps N] [--dt H] [--solver S] ...");
    if (a->solver && !fc_solver_find(a->solver)) return cli_fail("unknown solver '%s' (see 'fricon solvers')", a->solver);
    return EXIT_DONE;
}

static int make_dir(const char *dir)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) return 0;
    return cli_fail("%s: %s", dir, strerror(errno));
}

/* Side of the squares drawn for planes: the bodies' extent, doubled. */
static double plane_size(fc_mbd_world *w)
{
    double ext = 0;
    for (int i = 0; i < fc_mbd_body_count(w); i++) {
        const fc_mbd_body *b = fc_mbd_body_at(w, i);
        if (b->shape == FC_MBD_PLANE) continue;
        for (int k = 0; k < 3; k++) ext = fmax(ext, fabs(b->x[k]));
    }
    return 2 * ext + 1;
}

static int write_frame(const sim_args *a, fc_mbd_world *w, int step, double size)
{
    char path[4096];
    fc_error err;
    snprintf(path, sizeof path, "%s/%s-%06d.vtk", a->vtk_dir, a->scene, step);
    if (fc_mbd_write_vtk(w, path, size, &err)) return cli_fail("%s", err.msg);
    return 0;
}

int cmd_simulate(int argc, char **argv)
{
    sim_args a;
    if (parse_args(argc, argv, &a)) return EXIT_BAD_INPUT;
    fc_mbd_world *w;
    fc_error err;
    double need = fc_mbd_scene_memory(a.scene, &a.par) / 1048576.0, limit = a.mem_mb;
    if (!(limit > 0)) {
        long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        limit = pages > 0 && size > 0 ? (double)pages * (double)size / 1048576.0 : INFINITY;
    }
    if (need > limit)
        return cli_fail("%s: about %.0f MB estimated (bodies, contacts, the step's problem), above the "
                        "memory limit of %.0f MB (--mem-limit MB)", a.scene, need, limit);
    if (fc_mbd_scene(a.scene, &a.par, &w, &err)) return cli_fail("%s", err.msg);
    if (a.dt > 0) fc_mbd_set_step(w, a.dt);
    if ((a.export_dir && make_dir(a.export_dir)) || (a.vtk_dir && make_dir(a.vtk_dir))) {
        fc_mbd_world_free(w);
        return EXIT_BAD_INPUT;
    }
    if (!a.solver) a.solver = fc_mbd_default_solver(w);
    double size = plane_size(w);
    if (a.vtk_dir && write_frame(&a, w, 0, size)) { fc_mbd_world_free(w); return EXIT_BAD_INPUT; }
    int tty = isatty(2), report_every = a.steps >= 20 ? a.steps / 20 : 1, unconverged = 0, rc = EXIT_DONE;
    double t_step = 0, t_solve = 0, t_detect = 0, t_build = 0, max_res = 0;
    long iters = 0, contacts = 0, exported = 0;
    int max_nc = 0, solves = 0;
    fprintf(stderr, "%s: %d bodies, h = %g s, solver %s\n", a.scene, fc_mbd_body_count(w),
            fc_mbd_step_size(w), a.solver);
#ifdef __GLIBC__
    /* Each step frees its problem and builds the next, of about the same
     * size; by default glibc hands that memory back to the system (blocks
     * above a moving mmap threshold, the heap's trimmed top) and the next
     * step faults in fresh zeroed pages, serially in the kernel (most of
     * the assembly's time, docs/mbd.md).  Kept for reuse instead: blocks
     * below 32 MB (the largest threshold glibc takes) from the heap, which
     * is never trimmed. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, -1);
#endif
    for (int s = 1; s <= a.steps; s++) {
        fc_mbd_step_info in;
        if (fc_mbd_step(w, a.solver, &a.opt, &in, &err)) {
            if (tty && !a.quiet) fputc('\n', stderr);
            fc_mbd_world_free(w);
            /* the simulator's messages may name the step already */
            if (!strncmp(err.msg, "step ", 5)) return cli_fail("%s", err.msg);
            return cli_fail("step %d: %s", s, err.msg);
        }
        t_step += in.t_step;
        t_detect += in.t_detect;
        t_build += in.t_build;
        contacts += in.ncontacts;
        if (in.ncontacts > max_nc) max_nc = in.ncontacts;
        if (in.ncontacts) {
            solves++;
            t_solve += in.t_solve;
            iters += in.solve.iterations;
            max_res = fmax(max_res, in.solve.residual);
            if (in.solve.status != FC_CONVERGED) unconverged++;
        }
        if (!a.quiet && (tty || s % report_every == 0 || s == a.steps))
            fprintf(stderr, "%sstep %d/%d t=%.4g nc=%d %s it=%d res=%.1e vmax=%.2e solve %.3fs step %.3fs detect %.4fs%s",
                    tty ? "\r" : "", s, a.steps, in.time, in.ncontacts,
                    in.ncontacts ? fc_status_name(in.solve.status) : "free", in.solve.iterations,
                    in.solve.residual, in.max_speed, in.t_solve, in.t_step, in.t_detect, tty ? "   " : "\n");
        if (s % a.every == 0) {
            for (int form = 0; form < 2 && a.export_dir && s >= a.from && in.ncontacts; form++) {
                int local = a.both ? form : a.local;
                if (form == 1 && !a.both) break;
                char path[4096], sol[4200];
                snprintf(path, sizeof path, "%s/%s-%06d%s.hdf5", a.export_dir, a.scene, s,
                         local ? "-local" : "");
                snprintf(sol, sizeof sol, "%s.sol", path);
                if (fc_mbd_export_last(w, path, local, sol, &err)) {
                    fc_mbd_world_free(w);
                    /* the simulator's messages may name the step already */
                    if (!strncmp(err.msg, "step ", 5)) return cli_fail("%s", err.msg);
                    return cli_fail("step %d: %s", s, err.msg);
                }
                exported++;
            }
            if (a.vtk_dir && write_frame(&a, w, s, size)) { fc_mbd_world_free(w); return EXIT_BAD_INPUT; }
        }
    }
    if (tty && !a.quiet) fputc('\n', stderr);
    printf("scene:          %s (%d bodies)\n", a.scene, fc_mbd_body_count(w));
    printf("steps:          %d (h = %g s, t = %g s)\n", a.steps, fc_mbd_step_size(w), fc_mbd_time(w));
    printf("solver:         %s (tol %g)\n", a.solver, a.opt.tolerance);
    printf("contacts:       mean %.1f, max %d\n", a.steps ? (double)contacts / a.steps : 0.0, max_nc);
    printf("per step:       %.6f s\n", a.steps ? t_step / a.steps : 0.0);
    printf("detection:      %.6f s per step (broad and narrow phase), assembly %.6f s\n",
           a.steps ? t_detect / a.steps : 0.0, a.steps ? t_build / a.steps : 0.0);
    printf("per solve:      %.6f s, %.1f iterations (%d solves)\n", solves ? t_solve / solves : 0.0,
           solves ? (double)iters / solves : 0.0, solves);
    printf("not converged:  %d (worst residual %.3e)\n", unconverged, max_res);
    if (a.export_dir) printf("exported:       %ld problems to %s\n", exported, a.export_dir);
    fc_mbd_world_free(w);
    if (unconverged) rc = EXIT_NOT_CONVERGED;
    return rc;
}
