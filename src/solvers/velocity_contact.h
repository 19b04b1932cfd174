/* The one-contact update of Gauss-Seidel on the velocity form. */
#ifndef FRICON_VELOCITY_CONTACT_H
#define FRICON_VELOCITY_CONTACT_H

#include "internal.h"
#include "cone/cone.h"

/* The contact of loc whose d rows of H^T and of G^T = (M^-1 H)^T start
 * at row: FC(W_aa, H_a^T v + w_a - W_aa r_a, mu_a) solved from r_a (wa,
 * ra: its d entries of w, r), then v += G_a (r_a,new - r_a). */
void fc_velocity_contact(const fc_local *loc, const fc_local_params *par, const fc_matrix *Ht,
                         const fc_matrix *Gt, int row, const double *wa, double *ra, double *v);

/* The same on the data laid out per contact (nncg.sweep_data): contact
 * a's W_aa, mu, mu_r, then per segment (contiguous dofs of v in one block
 * of M^-1; stored: a run of them) one index and d x s values of H^T, and
 * of G^T when stored; else G_a dr = M_b^-1 (H_a^T dr). */
enum { FC_VSWEEP_CSR = 0, FC_VSWEEP_STORED = 1, FC_VSWEEP_IMPLICIT = 2 };

typedef struct fc_vsweep {
    int d, nc, mode;
    int *sptr;          /* nc + 1: contact a's segments sptr[a] .. sptr[a+1]  */
    int *seg;           /* 3 per segment: first dof, dofs s (-s: M^-1 there
                           diagonal), offset of its block in minv            */
    long *voff;         /* nc + 1: contact a's values at val + voff[a]        */
    double *val;
    double *minv;       /* the inverse blocks, s x s column-major, scaled     */
} fc_vsweep;

/* S from the contacts' rows of H^T (row d a + k; columns: v's dofs) and
 * M^-1 by blocks: block b the dofs bptr[b] .. bptr[b+1], its inverse at
 * binv + boff[b] (column-major) times bscale[b] (NULL: 1), split where it
 * is block diagonal.  0; 1 when a segment exceeds 64 dofs; -1 no memory. */
int fc_vsweep_build(fc_vsweep *S, int mode, int d, int nc, const fc_matrix *Ht, int nblk,
                    const int *bptr, const double *binv, const long *boff, const int *bscale);
void fc_vsweep_free(fc_vsweep *S);

/* Contact a's W_aa, mu, mu_r (d = 3: and its factor) copied into S. */
void fc_vsweep_set_local(fc_vsweep *S, int a, const fc_local *loc);

/* fc_velocity_contact on S; next: the next contact (prefetched) or -1.
 * 1 for a sliding contact (neither take-off nor sticking). */
int fc_vsweep_contact(const fc_vsweep *S, int a, int next, const fc_local_params *par,
                       const double *wa, double *ra, double *v);

/* 1 when fc_vsweep_contact would run the one-contact solver at (ra, v):
 * a contact's cost, for balancing parallel parts (nncg). */
int fc_vsweep_probe(const fc_vsweep *S, int a, const fc_local_params *par, const double *wa,
                    const double *ra, const double *v);

#endif
