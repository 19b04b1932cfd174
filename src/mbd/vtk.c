/* Legacy VTK polydata of the bodies, one file per frame (ParaView reads
 * them as a series): spheres as vertices carrying a "radius" scalar (use
 * a Glyph filter scaled by it), boxes as 6 quads, planes as squares. */
#include "mbd/mbd.h"

#include <errno.h>
#include <stdio.h>

static void plane_corners(const fc_mbd_body *b, double size, double c[4][3])
{
    static const double s[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int k = 0; k < 4; k++) {
        double l[3] = {0.5 * size * s[k][0], 0.5 * size * s[k][1], 0}, g[3];
        fc_mbd_rotate(b->q, l, g);
        for (int d = 0; d < 3; d++) c[k][d] = b->x[d] + g[d];
    }
}

fc_err fc_mbd_write_vtk(const fc_mbd_world *w, const char *path, double plane_size, fc_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return fc_error_set(err, FC_ERR_IO, "%s: %s", path, strerror(errno));
    long npts = 0, nverts = 0, npolys = 0;
    for (int i = 0; i < w->nbodies; i++) {
        switch (w->bodies[i].shape) {
        case FC_MBD_SPHERE: npts += 1; nverts += 1; break;
        case FC_MBD_BOX: npts += 8; npolys += 6; break;
        default: npts += 4; npolys += 1; break;
        }
    }
    fprintf(f, "# vtk DataFile Version 3.0\nfricon mbd t=%.9g\nASCII\nDATASET POLYDATA\n", w->time);
    fprintf(f, "POINTS %ld double\n", npts);
    for (int i = 0; i < w->nbodies; i++) {
        const fc_mbd_body *b = &w->bodies[i];
        if (b->shape == FC_MBD_SPHERE) {
            fprintf(f, "%.9g %.9g %.9g\n", b->x[0], b->x[1], b->x[2]);
        } else if (b->shape == FC_MBD_BOX) {
            for (int k = 0; k < 8; k++) {
                double l[3], g[3];
                for (int d = 0; d < 3; d++) l[d] = (k >> d & 1) ? b->half[d] : -b->half[d];
                fc_mbd_rotate(b->q, l, g);
                fprintf(f, "%.9g %.9g %.9g\n", b->x[0] + g[0], b->x[1] + g[1], b->x[2] + g[2]);
            }
        } else {
            double c[4][3];
            plane_corners(b, plane_size, c);
            for (int k = 0; k < 4; k++) fprintf(f, "%.9g %.9g %.9g\n", c[k][0], c[k][1], c[k][2]);
        }
    }
    if (nverts) {
        fprintf(f, "VERTICES %ld %ld\n", nverts, 2 * nverts);
        long pt = 0;
        for (int i = 0; i < w->nbodies; i++) {
            fc_mbd_shape s = w->bodies[i].shape;
            if (s == FC_MBD_SPHERE) fprintf(f, "1 %ld\n", pt);
            pt += s == FC_MBD_SPHERE ? 1 : s == FC_MBD_BOX ? 8 : 4;
        }
    }
    if (npolys) {
        /* box faces by corner bits: -x, +x, -y, +y, -z, +z */
        static const int face[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                       {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
        fprintf(f, "POLYGONS %ld %ld\n", npolys, 5 * npolys);
        long pt = 0;
        for (int i = 0; i < w->nbodies; i++) {
            fc_mbd_shape s = w->bodies[i].shape;
            if (s == FC_MBD_BOX)
                for (int k = 0; k < 6; k++)
                    fprintf(f, "4 %ld %ld %ld %ld\n", pt + face[k][0], pt + face[k][1], pt + face[k][2],
                            pt + face[k][3]);
            else if (s == FC_MBD_PLANE)
                fprintf(f, "4 %ld %ld %ld %ld\n", pt, pt + 1, pt + 2, pt + 3);
            pt += s == FC_MBD_SPHERE ? 1 : s == FC_MBD_BOX ? 8 : 4;
        }
    }
    fprintf(f, "POINT_DATA %ld\nSCALARS radius double 1\nLOOKUP_TABLE default\n", npts);
    for (int i = 0; i < w->nbodies; i++) {
        const fc_mbd_body *b = &w->bodies[i];
        int np = b->shape == FC_MBD_SPHERE ? 1 : b->shape == FC_MBD_BOX ? 8 : 4;
        for (int k = 0; k < np; k++) fprintf(f, "%.9g\n", b->shape == FC_MBD_SPHERE ? b->radius : 0.0);
    }
    fprintf(f, "VECTORS velocity double\n");
    for (int i = 0; i < w->nbodies; i++) {
        const fc_mbd_body *b = &w->bodies[i];
        int np = b->shape == FC_MBD_SPHERE ? 1 : b->shape == FC_MBD_BOX ? 8 : 4;
        for (int k = 0; k < np; k++) fprintf(f, "%.9g %.9g %.9g\n", b->v[0], b->v[1], b->v[2]);
    }
    if (fclose(f) != 0) return fc_error_set(err, FC_ERR_IO, "%s: write failed", path);
    return FC_OK;
}
