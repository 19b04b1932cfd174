/* Scenes: worlds ready to step, by name (also the test cases).
 *   incline  a 1 kg box at rest on a plane inclined at angle_deg, mu 0.5
 *   slide    the same with mu 0.3 < tan(25 deg): slides with g(sin - mu cos)
 *   stack    4 x 20 x 4 touching spheres on a plane: 800 contacts; an
 *            unstable equilibrium (towers of single spheres) that stays
 *            at rest only while the solutions keep its symmetry
 *   pile     count spheres (sizes +-10 %) poured into a box of 5 planes
 *   column   count spheres in a body-centred cubic column on a plane,
 *            released: the edges roll off and the column collapses */
#include "mbd/mbd.h"

#include <stdio.h>

static const struct {
    const char *name, *description;
} scenes[] = {
    {"incline", "1 kg box at rest on a plane inclined at --angle degrees (default 25), mu 0.5"},
    {"slide", "1 kg box sliding down a plane at --angle degrees (default 25), mu 0.3"},
    {"stack", "4 x 20 x 4 touching spheres (r 0.1 m) on a plane, 800 contacts, at rest (unstable)"},
    {"pile", "spheres (default 1000, r 0.05 m +-10 %) poured into a box"},
    {"column", "body-centred cubic column of spheres (default 10^4, r 0.05 m) collapsing"},
};

int fc_mbd_scene_count(void) { return (int)(sizeof scenes / sizeof scenes[0]); }
const char *fc_mbd_scene_name(int i) { return i >= 0 && i < fc_mbd_scene_count() ? scenes[i].name : NULL; }
const char *fc_mbd_scene_description(int i)
{
    return i >= 0 && i < fc_mbd_scene_count() ? scenes[i].description : NULL;
}

void fc_mbd_scene_defaults(fc_mbd_scene_params *par)
{
    memset(par, 0, sizeof *par);
    par->angle_deg = 25.0;
    par->mu = -1.0;
    par->count = 0;
    par->seed = 1;
}

/* Uniform number in [0, 1) from a local xorshift state. */
static double uniform(unsigned long long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static fc_err incline(fc_mbd_world *w, double angle_deg, double mu, fc_error *err)
{
    double th = angle_deg * FC_MBD_PI / 180.0, n[3] = {-sin(th), 0, cos(th)};
    double hz = 0.1;
    int pl = fc_mbd_add_plane(w, n[0], n[1], n[2], 0, 0, 0);
    int bx = fc_mbd_add_box(w, 0.2, 0.2, hz, 1000.0, hz * n[0], 0, hz * n[2]);
    if (pl < 0 || bx < 0) return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    fc_mbd_body *B = fc_mbd_body_at(w, bx);
    fc_mbd_set_mass(B, 1.0);
    /* rotation about y by -th takes the body z axis to n */
    B->q[0] = cos(-th / 2); B->q[1] = 0; B->q[2] = sin(-th / 2); B->q[3] = 0;
    B->mu = mu;
    fc_mbd_body_at(w, pl)->mu = mu;
    fc_mbd_set_margin(w, 1e-3);
    return FC_OK;
}

static fc_err stack(fc_mbd_world *w, double mu, fc_error *err)
{
    const double R = 0.1;
    if (fc_mbd_add_plane(w, 0, 0, 1, 0, 0, 0) < 0) return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    for (int k = 0; k < 20; k++)
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 4; i++)
                if (fc_mbd_add_sphere(w, R, 1000.0, (2 * i - 3) * R, (2 * j - 3) * R, R + 2 * k * R) < 0)
                    return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    for (int i = 0; i < fc_mbd_body_count(w); i++) fc_mbd_body_at(w, i)->mu = mu;
    fc_mbd_set_margin(w, 0.01 * R);
    return FC_OK;
}

static fc_err pile(fc_mbd_world *w, int count, double mu, unsigned seed, fc_error *err)
{
    const double R = 0.05, sp = 2.4 * R;
    unsigned long long s = 0x9E3779B97F4A7C15ULL ^ ((unsigned long long)seed << 1 | 1);
    int side = (int)ceil(cbrt((double)count / 2.0));
    if (side < 2) side = 2;
    double L = 0.5 * side * sp + 0.1 * R;
    int ok = fc_mbd_add_plane(w, 0, 0, 1, 0, 0, 0) >= 0 &&
             fc_mbd_add_plane(w, -1, 0, 0, L, 0, 0) >= 0 && fc_mbd_add_plane(w, 1, 0, 0, -L, 0, 0) >= 0 &&
             fc_mbd_add_plane(w, 0, -1, 0, 0, L, 0) >= 0 && fc_mbd_add_plane(w, 0, 1, 0, 0, -L, 0) >= 0;
    for (int k = 0; ok && k < count; k++) {
        int i = k % side, j = (k / side) % side, l = k / (side * side);
        double r = R * (0.9 + 0.2 * uniform(&s));
        double x = -L + 0.1 * R + (i + 0.5) * sp + 0.1 * R * (uniform(&s) - 0.5);
        double y = -L + 0.1 * R + (j + 0.5) * sp + 0.1 * R * (uniform(&s) - 0.5);
        double z = 1.2 * R + l * sp;
        int b = fc_mbd_add_sphere(w, r, 2500.0, x, y, z);
        if (b < 0) ok = 0;
        else fc_mbd_body_at(w, b)->v[2] = -1.0;
    }
    if (!ok) return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    for (int i = 0; i < fc_mbd_body_count(w); i++) fc_mbd_body_at(w, i)->mu = mu;
    fc_mbd_set_margin(w, 0.1 * R);
    return FC_OK;
}

static fc_err column(fc_mbd_world *w, int count, double mu, fc_error *err)
{
    const double R = 0.05, a = 4 * R / sqrt(3.0);
    int side = (int)lround(cbrt(count / 4.0));
    if (side < 2) side = 2;
    if (fc_mbd_add_plane(w, 0, 0, 1, 0, 0, 0) < 0) return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    int placed = 0;
    for (int k = 0; placed < count; k++) {
        int odd = k & 1, ns = odd ? side - 1 : side;
        for (int j = 0; j < ns && placed < count; j++)
            for (int i = 0; i < ns && placed < count; i++, placed++)
                if (fc_mbd_add_sphere(w, R, 2500.0, (i + 0.5 * odd) * a, (j + 0.5 * odd) * a,
                                      R + k * 0.5 * a) < 0)
                    return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < fc_mbd_body_count(w); i++) fc_mbd_body_at(w, i)->mu = mu;
    fc_mbd_set_margin(w, 0.05 * R);
    return FC_OK;
}

fc_err fc_mbd_scene(const char *name, const fc_mbd_scene_params *par, fc_mbd_world **out,
                    fc_error *err)
{
    fc_mbd_scene_params def;
    if (!par) { fc_mbd_scene_defaults(&def); par = &def; }
    *out = NULL;
    fc_mbd_world *w = fc_mbd_world_new();
    if (!w) return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    fc_err e;
    double mu = par->mu;
    if (!strcmp(name, "incline")) e = incline(w, par->angle_deg, mu >= 0 ? mu : 0.5, err);
    else if (!strcmp(name, "slide")) e = incline(w, par->angle_deg, mu >= 0 ? mu : 0.3, err);
    else if (!strcmp(name, "stack")) e = stack(w, mu >= 0 ? mu : 0.5, err);
    else if (!strcmp(name, "pile"))
        e = pile(w, par->count > 0 ? par->count : 1000, mu >= 0 ? mu : 0.5, par->seed, err);
    else if (!strcmp(name, "column"))
        e = column(w, par->count > 0 ? par->count : 10000, mu >= 0 ? mu : 0.5, err);
    else e = fc_error_set(err, FC_ERR_INVALID, "unknown scene '%s' (incline, slide, stack, pile, column)", name);
    if (e) { fc_mbd_world_free(w); return e; }
    *out = w;
    return FC_OK;
}
