/* nncg.focus's status tracking (nncg_focus.h).  A contact is open when
 * r_N <= 0, sliding when ||r_T|| >= (1 - FC_FOCUS_EDGE) mu r_N, else
 * sticking (fc_focus_status): the split of docs/granular-piles.md's diagnosis. */
#include "internal.h"
#include "matrix/colour.h"
#include "solvers/nncg_focus.h"

int fc_focus_init(fc_focus *f, int d, int nc, const int *body, int nbodies)
{
    memset(f, 0, sizeof *f);
    f->d = d;
    f->nc = nc;
    f->status = fc_calloc((size_t)nc + 1, 1);
    f->mark = fc_calloc((size_t)nc + 1, 1);
    f->list = fc_calloc((size_t)nc + 1, sizeof *f->list);
    if (!f->status || !f->mark || !f->list) return 1;
    if (!body) return 0;
    f->body = body;
    f->bptr = fc_calloc((size_t)nbodies + 2, sizeof *f->bptr);
    f->bcon = fc_calloc((size_t)2 * nc + 1, sizeof *f->bcon);
    if (!f->bptr || !f->bcon) return 1;
    fc_body_contacts(nc, nbodies, body, f->bptr, f->bcon);
    return 0;
}

void fc_focus_free(fc_focus *f)
{
    free(f->status); free(f->mark); free(f->list);
    free(f->bptr); free(f->bcon);
    memset(f, 0, sizeof *f);
}

int fc_focus_list(fc_focus *f, const double *mu, const double *r, int first)
{
    const int *body = f->body;
    int changed = 0;
    for (int a = 0; a < f->nc; a++) {
        unsigned char s = fc_focus_status(f->d, mu[a], r + (size_t)f->d * a);
        if (!first && s != f->status[a]) {
            f->mark[a] = 1;
            changed++;
            for (int e = 0; f->bptr && e < 2; e++) {
                int b = body[2 * a + e];
                if (b >= 0)
                    for (int t = f->bptr[b]; t < f->bptr[b + 1]; t++) f->mark[f->bcon[t]] = 1;
            }
        }
        f->status[a] = s;
    }
    if (!changed) return 0;
    int k = 0;
    for (int a = 0; a < f->nc; a++)
        if (f->mark[a]) {
            f->list[k++] = a;
            f->mark[a] = 0;
        }
    return k;
}
