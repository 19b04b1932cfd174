/* Scenes: worlds ready to step, by name (also the test cases).
 *   incline  a 1 kg box at rest on a plane inclined at angle_deg, mu 0.5
 *   slide    the same with mu 0.3 < tan(25 deg): slides with g(sin - mu cos)
 *   stack    4 x 20 x 4 touching spheres on a plane: 800 contacts; an
 *            unstable equilibrium (towers of single spheres) that stays
 *            at rest only while the solutions keep its symmetry
 *   pile     count spheres (sizes +-10 %) poured into a box of 5 planes
 *   column   count spheres in a body-centred cubic column on a plane,
 *            released: the edges roll off and the column collapses
 *   tower    count planks (kapla section 1:3), levels crossing at 90 deg
 *            (towers of at most 75 planks, on a grid)
 *   wall     count bricks in running bond on the ground
 *   arch     an arcade of corbelled arches of count boxes
 *   chute    spheres released from a hopper block down a chute inclined
 *            at angle_deg between two side walls (FClib's Chute sets)
 *   disks-wall, hopper   planar (2D) scenes: disks in the plane z = 0
 *            collapsing along a floor against a wall, and discharging
 *            through a funnel of fixed disks onto a floor
 *   pendulum, chain, fourbar, rope   joints (docs/mbd.md#joints) */
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
    {"tower", "planks (default 75, 0.1 x 0.033 m) in levels crossing at 90 degrees, towers of <= 75, at rest"},
    {"wall", "running-bond wall of bricks (default 200, 0.2 x 0.1 x 0.06 m), at rest"},
    {"arch", "arcade of corbelled arches (default 44 boxes: 4 arches), at rest"},
    /* collections (issue 27) */
    {"chute", "spheres (default 1000, r 0.05 m +-10 %) flowing down a chute at --angle (default 25) between walls"},
    {"disks-wall", "2D: disks (default 1000, r 0.05 m +-10 %) collapsing along a floor against a wall"},
    {"hopper", "2D: disks (default 1000, r 0.05 m +-10 %) discharging through a funnel onto a floor"},
    /* joints (issue 31) */
    {"pendulum", "1 m pendulum: a small sphere on a ball joint to the world, released at 1 degree"},
    {"chain", "chain of links (default 20 boxes of 0.1 m) on ball joints, one end fixed at 1 m, "
              "falling and draping on the ground"},
    {"fourbar", "four-bar linkage (crank 0.1, coupler 0.35, rocker 0.3, ground 0.4 m) with hinges, crank "
                "driven at 5 rad/s"},
    {"rope", "rope of spheres (default 40, r 0.02 m) on ball joints falling over a fixed sphere"},
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

/* ---- masonry and stacks of boxes (box-box contacts) ---- */

/* Random perturbation in [-amp, amp]; none with seed 0. */
static double jitter(unsigned long long *s, unsigned seed, double amp)
{
    return seed ? amp * (2 * uniform(s) - 1) : 0.0;
}

static int add_box_yaw(fc_mbd_world *w, double hx, double hy, double hz, double density, double x, double y,
                       double z, double yaw, double mu)
{
    int b = fc_mbd_add_box(w, hx, hy, hz, density, x, y, z);
    if (b < 0) return -1;
    fc_mbd_body *B = fc_mbd_body_at(w, b);
    B->q[0] = cos(yaw / 2); B->q[1] = 0; B->q[2] = 0; B->q[3] = sin(yaw / 2);
    B->mu = mu;
    return b;
}

/* tower: levels of n planks (section 1:3, gaps of 0.1 width between
 * them), each level crossing the one below at 90 degrees, 3 n levels
 * (about as tall as wide); n the largest in 2..5 with 3 n^2 <= count: more
 * planks make a square grid of such towers 0.5 m apart (a plank's contacts stay
 * bounded).  Seed: plank positions +-1 mm and yaw (ends move +-2 mm at
 * most); seed 0: exact. */
static fc_err tower(fc_mbd_world *w, int count, double mu, unsigned seed, fc_error *err)
{
    const double wd = 0.1, th = wd / 3, gap = 0.1 * wd, pitch = wd + gap;
    unsigned long long s = 0x9E3779B97F4A7C15ULL ^ ((unsigned long long)seed << 1 | 1);
    int n = 2;
    while (n < 5 && 3 * (n + 1) * (n + 1) <= count) n++;
    int per = 3 * n * n, ntow = (count + per - 1) / per, side = (int)ceil(sqrt((double)ntow));
    double len = (n - 1) * pitch + wd, yaw_amp = 0.2 * gap / len, space = len + 0.5;
    int plane = fc_mbd_add_plane(w, 0, 0, 1, 0, 0, 0);
    if (plane < 0) return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    fc_mbd_body_at(w, plane)->mu = mu;
    for (int k = 0; k < count; k++) {
        int t = k / per, l = k % per / n, i = k % n;
        double cx = (t % side) * space, cy = (t / side) * space;
        double off = (i - 0.5 * (n - 1)) * pitch + jitter(&s, seed, 0.1 * gap), z = 0.5 * th + l * th;
        double yaw = jitter(&s, seed, yaw_amp);
        int b = l % 2 ? add_box_yaw(w, 0.5 * wd, 0.5 * len, 0.5 * th, 500.0, cx + off, cy, z, yaw, mu)
                      : add_box_yaw(w, 0.5 * len, 0.5 * wd, 0.5 * th, 500.0, cx, cy + off, z, yaw, mu);
        if (b < 0) return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    }
    fc_mbd_set_margin(w, 1e-3);
    return FC_OK;
}

/* wall: running bond of 0.2 x 0.1 x 0.06 m bricks with 4 mm joints (no
 * contact across them), half bricks at the ends of odd courses, about 4
 * times as long as tall; count bricks (the top course may be partial).
 * Seed: brick positions +-0.4 mm, lengths -0.8 mm at most. */
static fc_err wall_scene(fc_mbd_world *w, int count, double mu, unsigned seed, fc_error *err)
{
    const double L = 0.2, W = 0.1, H = 0.06, gap = 0.004, pitch = L + gap;
    unsigned long long s = 0x9E3779B97F4A7C15ULL ^ ((unsigned long long)seed << 1 | 1);
    int nb = (int)lround(sqrt(1.2 * count)); /* L nb = 4 H courses, nb courses = count */
    if (nb < 2) nb = 2;
    int plane = fc_mbd_add_plane(w, 0, 0, 1, 0, 0, 0);
    if (plane < 0) return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    fc_mbd_body_at(w, plane)->mu = mu;
    double xe = -0.5 * (nb - 1) * pitch - 0.5 * L; /* the wall's left end */
    int placed = 0;
    for (int c = 0; placed < count; c++) {
        double z = 0.5 * H + c * H;
        int odd = c % 2, nc = odd ? nb + 1 : nb;
        for (int i = 0; i < nc && placed < count; i++, placed++) {
            double len = L, x;
            if (!odd) {
                x = xe + 0.5 * L + i * pitch;
            } else if (i == 0 || i == nb) { /* half bricks */
                len = 0.5 * (L - gap);
                x = i == 0 ? xe + 0.5 * len : -xe - 0.5 * len;
            } else {
                x = xe + 0.5 * L + (i - 0.5) * pitch;
            }
            len -= seed ? 0.2 * gap * uniform(&s) : 0.0;
            x += jitter(&s, seed, 0.1 * gap);
            if (add_box_yaw(w, 0.5 * len, 0.5 * W, 0.5 * H, 2000.0, x, 0, z, 0, mu) < 0)
                return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
        }
    }
    fc_mbd_set_margin(w, 1e-3);
    return FC_OK;
}

/* arch: an arcade of corbelled arches (boxes cannot be voussoirs: a ring
 * of rectangular blocks touches along edges only, hinges, a mechanism).
 * Piers of 8 courses (0.1 m) close each 1 m opening by 5 cm a course and
 * side; a capstone bridges the last 0.3 m, bearing 0.1 m on either side.
 * Interior piers are symmetric; the end piers' courses reach back to
 * their outer face, so the load of every course stays over the one
 * below: it stands for any mu > 0 (all forces vertical at rest).  count
 * boxes: (count - 8) / 9 arches, in rows of at most 16 along x.  Seed:
 * block positions +-1 mm, capstone lengths -1 cm at most. */
static fc_err arch(fc_mbd_world *w, int count, double mu, unsigned seed, fc_error *err)
{
    enum { K = 8, ROW = 16 };
    const double hb = 0.1, D = 0.3, st = 0.05, span = 1.0, pier = 0.4, over = 0.1, dens = 2000.0;
    unsigned long long s = 0x9E3779B97F4A7C15ULL ^ ((unsigned long long)seed << 1 | 1);
    int narch = (count - K) / (K + 1);
    if (narch < 1) narch = 1;
    int plane = fc_mbd_add_plane(w, 0, 0, 1, 0, 0, 0);
    if (plane < 0) return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    fc_mbd_body_at(w, plane)->mu = mu;
    for (int r = 0; r * ROW < narch; r++) {
        int na = narch - r * ROW < ROW ? narch - r * ROW : ROW;
        double y = 2 * D * r;
        for (int j = 0; j <= na; j++) { /* pier j at x = j (pier + span) */
            double P = j * (pier + span);
            for (int k = 0; k < K; k++) {
                double lo = P - 0.5 * pier - (j > 0 ? k * st : 0), hi = P + 0.5 * pier + (j < na ? k * st : 0);
                double x = 0.5 * (lo + hi) + jitter(&s, seed, 1e-3);
                if (add_box_yaw(w, 0.5 * (hi - lo), 0.5 * D, 0.5 * hb, dens, x, y, (k + 0.5) * hb, 0, mu) < 0)
                    return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
            }
            if (j == na) continue;
            double len = span - 2 * (K - 1) * st + 2 * over - (seed ? 1e-2 * uniform(&s) : 0.0);
            double x = P + 0.5 * (pier + span) + jitter(&s, seed, 1e-3);
            if (add_box_yaw(w, 0.5 * len, 0.5 * D, 0.5 * hb, dens, x, y, (K + 0.5) * hb, 0, mu) < 0)
                return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
        }
    }
    fc_mbd_set_margin(w, 1e-3);
    return FC_OK;
}

/* ---- collections (issue 27): chute, disks-wall, hopper ---- */

static fc_err set_mu_all(fc_mbd_world *w, int ok, double mu, fc_error *err)
{
    if (!ok) return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    for (int i = 0; i < fc_mbd_body_count(w); i++) fc_mbd_body_at(w, i)->mu = mu;
    return FC_OK;
}

/* The chute's block: up to CHUTE_NARROW_MAX spheres 6 across and 12 along
 * in as many layers as it takes (FClib's Chute sets; the collections'
 * sizes, 30-30000, keep their files); above, CHUTE_WIDE_LAYERS layers on
 * a footprint twice as long as wide, so that 10^5-10^6 spheres make a
 * wide, shallow flow (bench/million.sh) rather than a tower of 10^4
 * layers. */
#define CHUTE_NARROW_MAX 100000
#define CHUTE_WIDE_LAYERS 8

static void chute_block(int count, int *across, int *along)
{
    *across = 6;
    *along = 12;
    if (count <= CHUTE_NARROW_MAX) return;
    *across = (int)ceil(sqrt(count / (2.0 * CHUTE_WIDE_LAYERS)));
    *along = 2 * *across;
}

/* The chute runs along +x with its bottom z = 0; gravity is tilted by the
 * angle instead of the planes.  A back wall at x = 0, side walls at
 * y = +-W/2; the spheres start on a jittered grid (chute_block). */
static fc_err chute(fc_mbd_world *w, int count, double angle_deg, double mu, unsigned seed, fc_error *err)
{
    const double R = 0.05, sp = 2.4 * R, g = 9.81, th = angle_deg * FC_MBD_PI / 180.0;
    int across, along;
    chute_block(count, &across, &along);
    unsigned long long s = 0x9E3779B97F4A7C15ULL ^ ((unsigned long long)seed << 1 | 1);
    double half = 0.5 * across * sp + 0.1 * R;
    fc_mbd_set_gravity(w, g * sin(th), 0, -g * cos(th));
    int ok = fc_mbd_add_plane(w, 0, 0, 1, 0, 0, 0) >= 0 && fc_mbd_add_plane(w, 1, 0, 0, 0, 0, 0) >= 0 &&
             fc_mbd_add_plane(w, 0, -1, 0, 0, half, 0) >= 0 && fc_mbd_add_plane(w, 0, 1, 0, 0, -half, 0) >= 0;
    for (int k = 0; ok && k < count; k++) {
        int j = k % across, i = (k / across) % along, l = k / (across * along);
        double r = R * (0.9 + 0.2 * uniform(&s));
        double x = 0.1 * R + (i + 0.5) * sp + 0.1 * R * (uniform(&s) - 0.5);
        double y = -half + 0.1 * R + (j + 0.5) * sp + 0.1 * R * (uniform(&s) - 0.5);
        ok = fc_mbd_add_sphere(w, r, 2500.0, x, y, 1.2 * R + l * sp) >= 0;
    }
    fc_mbd_set_margin(w, 0.1 * R);
    return set_mu_all(w, ok, mu, err);
}

/* Planar disks on a jittered grid of `across` columns from (x0, y0). */
static int disk_block(fc_mbd_world *w, int count, int across, double x0, double y0, double R,
                      unsigned long long *s)
{
    const double sp = 2.4 * R;
    for (int k = 0; k < count; k++) {
        int i = k % across, l = k / across;
        double r = R * (0.9 + 0.2 * uniform(s));
        double x = x0 + (i + 0.5) * sp + 0.1 * R * (uniform(s) - 0.5);
        if (fc_mbd_add_sphere(w, r, 2500.0, x, y0 + l * sp, 0) < 0) return 0;
    }
    return 1;
}

/* A block of disks (about twice as high as wide) against a wall at x = 0
 * on a floor y = 0, gravity -y: it collapses and flows along the floor. */
static fc_err disks_wall(fc_mbd_world *w, int count, double mu, unsigned seed, fc_error *err)
{
    const double R = 0.05;
    unsigned long long s = 0x9E3779B97F4A7C15ULL ^ ((unsigned long long)seed << 1 | 1);
    int across = (int)ceil(sqrt(count / 2.0));
    fc_mbd_set_gravity(w, 0, -9.81, 0);
    fc_mbd_set_planar(w, 1);
    int ok = fc_mbd_add_plane(w, 0, 1, 0, 0, 0, 0) >= 0 && fc_mbd_add_plane(w, 1, 0, 0, 0, 0, 0) >= 0 &&
             disk_block(w, count, across > 1 ? across : 2, 0.1 * R, 1.2 * R, R, &s);
    fc_mbd_set_margin(w, 0.1 * R);
    return set_mu_all(w, ok, mu, err);
}

/* A funnel of two rows of fixed disks (walls at 60 degrees from the
 * horizontal, an opening of 6 radii at y = 0; infinite planes would close
 * it) above a floor at y = -H; the disks start above the funnel. */
static fc_err hopper(fc_mbd_world *w, int count, double mu, unsigned seed, fc_error *err)
{
    const double R = 0.05, a = 3 * R, al = 60 * FC_MBD_PI / 180.0;
    unsigned long long s = 0x9E3779B97F4A7C15ULL ^ ((unsigned long long)seed << 1 | 1);
    int across = (int)ceil(sqrt((double)count));
    if (across < 2) across = 2;
    double top = 1.2 * across * 2.4 * R, len = top / sin(al), H = 0.5 * top + 4 * R;
    fc_mbd_set_gravity(w, 0, -9.81, 0);
    fc_mbd_set_planar(w, 1);
    int ok = fc_mbd_add_plane(w, 0, 1, 0, 0, -H, 0) >= 0;
    int nwall = (int)ceil(len / (2 * R));
    for (int side = -1; ok && side <= 1; side += 2)
        for (int k = 0; ok && k <= nwall; k++) {
            double t = k * 2 * R, x = side * (a + R + t * cos(al)), y = t * sin(al);
            int b = fc_mbd_add_sphere(w, R, 2500.0, x, y, 0);
            ok = b >= 0;
            if (ok) fc_mbd_body_at(w, b)->fixed = 1;
        }
    /* the block fits inside the funnel's top: half its width there */
    double width = 2 * (a + 0.5 * top / tan(al)), x0 = -0.5 * width + 2 * R;
    int cols = (int)floor((width - 4 * R) / (2.4 * R));
    if (ok) ok = disk_block(w, count, cols > 1 ? cols : 2, x0, 0.5 * top, R, &s);
    fc_mbd_set_margin(w, 0.1 * R);
    return set_mu_all(w, ok, mu, err);
}

/* The pendulum: a sphere of radius 1 cm (point-mass-like: its inertia
 * lengthens the period by 2e-5) hanging 1 m below a ball joint to the
 * world at (0, 0, 2), released at rest at 1 degree (the finite-amplitude
 * term lengthens the period by 2e-5). */
static fc_err pendulum(fc_mbd_world *w, fc_error *err)
{
    const double L = 1.0, th = FC_MBD_PI / 180.0, pivot[3] = {0, 0, 2};
    int b = fc_mbd_add_sphere(w, 0.01, 1000.0, L * sin(th), 0, 2 - L * cos(th));
    if (b < 0 || fc_mbd_add_joint(w, FC_MBD_BALL, b, -1, pivot, NULL) < 0)
        return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    return FC_OK;
}

/* A box from p to q (a link of the mechanisms): half length |q - p| / 2
 * along its x axis, half thickness t, in the x-z plane. */
static int link_box(fc_mbd_world *w, const double p[3], const double q[3], double t, double density)
{
    double dx = q[0] - p[0], dz = q[2] - p[2], phi = -atan2(dz, dx);
    int b = fc_mbd_add_box(w, 0.5 * hypot(dx, dz), t, t, density, 0.5 * (p[0] + q[0]), 0.5 * (p[1] + q[1]),
                           0.5 * (p[2] + q[2]));
    if (b >= 0) {
        fc_mbd_body *B = fc_mbd_body_at(w, b);
        B->q[0] = cos(0.5 * phi); B->q[1] = 0; B->q[2] = sin(0.5 * phi); B->q[3] = 0;
    }
    return b;
}

/* count links (boxes or spheres) of length len in a row along x from
 * (0, 0, z), joined by ball joints at their touching ends; anchored: the
 * first to the world at its start. */
static int joined_row(fc_mbd_world *w, int count, double len, double z, int spheres, int anchored)
{
    int prev = -1;
    for (int k = 0; k < count; k++) {
        double p[3] = {k * len, 0, z}, q[3] = {(k + 1) * len, 0, z};
        int b = spheres ? fc_mbd_add_sphere(w, 0.5 * len, 1000.0, p[0] + 0.5 * len, 0, z)
                        : link_box(w, p, q, 0.1 * len, 1000.0);
        if (b < 0 || ((k > 0 || anchored) && fc_mbd_add_joint(w, FC_MBD_BALL, b, prev, p, NULL) < 0))
            return 0;
        prev = b;
    }
    return 1;
}

static fc_err chain(fc_mbd_world *w, int count, double mu, fc_error *err)
{
    int ok = fc_mbd_add_plane(w, 0, 0, 1, 0, 0, 0) >= 0 && joined_row(w, count, 0.1, 1.0, 0, 1);
    fc_mbd_set_margin(w, 1e-3);
    return set_mu_all(w, ok, mu, err);
}

static fc_err rope(fc_mbd_world *w, int count, double mu, fc_error *err)
{
    const double r = 0.02;
    int ok = fc_mbd_add_plane(w, 0, 0, 1, 0, 0, 0) >= 0 && joined_row(w, count, 2 * r, 0.6, 1, 0);
    /* a free rope dropped over a fixed sphere under its middle */
    int s = ok ? fc_mbd_add_sphere(w, 0.2, 1000.0, count * r, 0.05, 0.35) : -1;
    if (s >= 0) fc_mbd_body_at(w, s)->fixed = 1;
    fc_mbd_set_margin(w, 0.05 * r);
    return set_mu_all(w, ok && s >= 0, mu, err);
}

/* Crank O1-A, coupler A-B, rocker B-O2 with O1, O2 on the world, hinges
 * about y at the four points; the crank starts upright at 5 rad/s. */
static fc_err fourbar(fc_mbd_world *w, fc_error *err)
{
    const double a = 0.1, b = 0.35, c = 0.3, d = 0.4, y[3] = {0, 1, 0};
    double O1[3] = {0, 0, 1}, O2[3] = {d, 0, 1}, A[3] = {0, 0, 1 + a}, B[3];
    /* B: |B - A| = b, |B - O2| = c, the upper intersection */
    double ex = O2[0] - A[0], ez = O2[2] - A[2], D = hypot(ex, ez);
    double along = (b * b - c * c + D * D) / (2 * D), h = sqrt(b * b - along * along);
    B[0] = A[0] + (along * ex - h * ez) / D;
    B[1] = 0;
    B[2] = A[2] + (along * ez + h * ex) / D;
    int cr = link_box(w, O1, A, 0.01, 1000.0), cp = link_box(w, A, B, 0.01, 1000.0);
    int rk = link_box(w, O2, B, 0.01, 1000.0);
    int ok = cr >= 0 && cp >= 0 && rk >= 0 && fc_mbd_add_joint(w, FC_MBD_HINGE, cr, -1, O1, y) >= 0 &&
             fc_mbd_add_joint(w, FC_MBD_HINGE, cp, cr, A, y) >= 0 &&
             fc_mbd_add_joint(w, FC_MBD_HINGE, rk, cp, B, y) >= 0 &&
             fc_mbd_add_joint(w, FC_MBD_HINGE, rk, -1, O2, y) >= 0;
    if (!ok) return fc_error_set(err, FC_ERR_NOMEM, "out of memory");
    /* crank at 5 rad/s about O1 (about y: A moves towards -x); the coupler
     * and rocker follow with the velocities of the linkage, left to the
     * first step's projection */
    fc_mbd_body *C = fc_mbd_body_at(w, cr);
    C->omega[1] = 5.0;
    double arm[3] = {C->x[0] - O1[0], 0, C->x[2] - O1[2]};
    v3_cross(C->omega, arm, C->v);
    return FC_OK;
}

/* Memory of a scene: per body its record, its rows of M, f, v and the
 * broad phase; contacts bounded per body (a column holds 3.7 per sphere)
 * and per contact two records (current, previous), its columns of H, its
 * vectors (r, u, w, guess), the step's reduction (G, J, W blocks).  The
 * constants bound the peak RSS of columns of 2 10^4 and 8 10^4 spheres
 * under nsgs (docs/mbd.md, "Memory"). */
#define SCENE_MEM_PER_BODY 600.0
#define SCENE_CONTACTS_PER_BODY 6.0
/* boxes touch on faces, up to 4 points each: towers hold 19 a plank */
#define SCENE_CONTACTS_PER_BOX 24.0
#define SCENE_MEM_PER_CONTACT 2500.0

double fc_mbd_scene_memory(const char *name, const fc_mbd_scene_params *par)
{
    fc_mbd_scene_params def;
    if (!par) { fc_mbd_scene_defaults(&def); par = &def; }
    double bodies = par->count > 0 ? par->count : !strcmp(name, "column") ? 10000 : 1000;
    if (!strcmp(name, "stack")) bodies = 320;
    if (!strcmp(name, "incline") || !strcmp(name, "slide")) bodies = 1;
    if (!strcmp(name, "hopper")) bodies += 4 * sqrt(bodies) + 8; /* the funnel's disks */
    int boxes = !strcmp(name, "tower") || !strcmp(name, "wall") || !strcmp(name, "arch");
    double per_body = boxes ? SCENE_CONTACTS_PER_BOX : SCENE_CONTACTS_PER_BODY;
    return bodies * (SCENE_MEM_PER_BODY + per_body * SCENE_MEM_PER_CONTACT) + 16e6;
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
    else if (!strcmp(name, "tower"))
        e = tower(w, par->count > 0 ? par->count : 75, mu >= 0 ? mu : 0.5, par->seed, err);
    else if (!strcmp(name, "wall"))
        e = wall_scene(w, par->count > 0 ? par->count : 200, mu >= 0 ? mu : 0.7, par->seed, err);
    else if (!strcmp(name, "arch"))
        e = arch(w, par->count > 0 ? par->count : 44, mu >= 0 ? mu : 0.6, par->seed, err);
    else if (!strcmp(name, "chute"))
        e = chute(w, par->count > 0 ? par->count : 1000, par->angle_deg, mu >= 0 ? mu : 0.5, par->seed, err);
    else if (!strcmp(name, "disks-wall"))
        e = disks_wall(w, par->count > 0 ? par->count : 1000, mu >= 0 ? mu : 0.5, par->seed, err);
    else if (!strcmp(name, "hopper"))
        e = hopper(w, par->count > 0 ? par->count : 1000, mu >= 0 ? mu : 0.5, par->seed, err);
    else if (!strcmp(name, "pendulum")) e = pendulum(w, err);
    else if (!strcmp(name, "chain")) e = chain(w, par->count > 0 ? par->count : 20, mu >= 0 ? mu : 0.5, err);
    else if (!strcmp(name, "rope")) e = rope(w, par->count > 0 ? par->count : 40, mu >= 0 ? mu : 0.5, err);
    else if (!strcmp(name, "fourbar")) e = fourbar(w, err);
    else e = fc_error_set(err, FC_ERR_INVALID, "unknown scene '%s' (see 'fricon simulate --help')", name);
    if (e) { fc_mbd_world_free(w); return e; }
    *out = w;
    return FC_OK;
}
