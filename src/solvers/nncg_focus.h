/* nncg.focus: the contacts whose status (open, sticking, sliding) changed
 * in a sweep, and their bodies' other contacts (docs/granular-piles.md). */
#ifndef FRICON_NNCG_FOCUS_H
#define FRICON_NNCG_FOCUS_H

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
