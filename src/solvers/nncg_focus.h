/* nncg.focus: the contacts whose status (open, sticking, sliding) changed
 * in a sweep, and their bodies' other contacts (docs/granular-piles.md). */
#ifndef FRICON_NNCG_FOCUS_H
#define FRICON_NNCG_FOCUS_H

#include <math.h>

/* A contact's status at ra: open when r_N <= 0, sliding when r_T is within
 * FC_FOCUS_EDGE of the cone's edge, else sticking (nncg.focus, nncg.cluster). */
#define FC_FOCUS_EDGE 1e-3
enum { FC_FOCUS_OPEN = 0, FC_FOCUS_STICK = 1, FC_FOCUS_SLIDE = 2 };
static inline unsigned char fc_focus_status(int d, double mu, const double *ra)
{
    if (!(ra[0] > 0.0)) return FC_FOCUS_OPEN;
    double t = d == 3 ? hypot(ra[1], ra[2]) : fabs(ra[1]);
    return t >= (1.0 - FC_FOCUS_EDGE) * mu * ra[0] ? FC_FOCUS_SLIDE : FC_FOCUS_STICK;
}

typedef struct fc_focus {
    int d, nc;
    unsigned char *status, *mark;   /* nc each */
    int *list;                      /* nc: the last fc_focus_list's contacts */
    const int *body;                /* 2 nc: the contacts' bodies, or NULL */
    int *bptr, *bcon;               /* each body's contacts */
} fc_focus;

/* Once per solve; body: 2 nc ids < nbodies (-1: none) or NULL; 1: no memory. */
int fc_focus_init(fc_focus *f, int d, int nc, const int *body, int nbodies);
void fc_focus_free(fc_focus *f);
/* The statuses at r into f->status; the contacts changed since the last
 * call and their neighbours, increasing, into f->list; their count. */
int fc_focus_list(fc_focus *f, const double *mu, const double *r, int first);

#endif
