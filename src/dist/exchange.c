/* The interface coupling of dist-nsgs (NSCD domain decomposition, as in
 * LMGC90): after a sweep, the ranks sharing an interface body send each
 * other their change of its velocity, point to point (one message each
 * way per neighbour), and every copy becomes the velocity at the last
 * exchange plus the sum of the changes, so the copies agree again.
 * Summed in rank order, the copies are equal to the last bit. */
#include "internal.h"
#include "dist/dist.h"

int fc_dist_exchange_init(const fc_dist_layout *L, fc_dist_exchange *X, const double *v)
{
    size_t nv = (size_t)L->loff[L->nloc], nbuf = (size_t)L->nbuf[L->nnb];
    X->send = fc_calloc(nbuf + 1, sizeof *X->send);
    X->recv = fc_calloc(nbuf + 1, sizeof *X->recv);
    X->sum = fc_calloc(nv + 1, sizeof *X->sum);
    X->vstart = fc_calloc(nv + 1, sizeof *X->vstart);
    X->req = fc_calloc((size_t)2 * L->nnb + 1, sizeof *X->req);
    if (!X->send || !X->recv || !X->sum || !X->vstart || !X->req) return 1;
    memcpy(X->vstart, v, nv * sizeof *v);
    return 0;
}

void fc_dist_exchange_free(fc_dist_exchange *X)
{
    free(X->send); free(X->recv); free(X->sum); free(X->vstart); free(X->req);
    memset(X, 0, sizeof *X);
}

/* This rank's change of local body i's velocity, per unit of its mass. */
static double change(const fc_dist_layout *L, const fc_dist_exchange *X, const double *v, int i, int k)
{
    return (v[k] - X->vstart[k]) / L->nsplit[i];
}

void fc_dist_exchange_run(const fc_dist_layout *L, fc_dist_exchange *X, double *v)
{
    const int tag = 32;
    for (int k = 0; k < L->nnb; k++) {
        double *buf = X->send + L->nbuf[k];
        for (int s = L->nptr[k]; s < L->nptr[k + 1]; s++) {
            int i = L->nlist[s];
            for (int t = L->loff[i]; t < L->loff[i + 1]; t++) *buf++ = change(L, X, v, i, t);
        }
        int cnt = L->nbuf[k + 1] - L->nbuf[k];
        MPI_Irecv(X->recv + L->nbuf[k], cnt, MPI_DOUBLE, L->nbr[k], tag, L->comm, &X->req[2 * k]);
        MPI_Isend(X->send + L->nbuf[k], cnt, MPI_DOUBLE, L->nbr[k], tag, L->comm, &X->req[2 * k + 1]);
    }
    for (int s = 0; s < L->nif; s++) {
        int i = L->ifb[s];
        for (int t = L->loff[i]; t < L->loff[i + 1]; t++) X->sum[t] = 0.0;
    }
    MPI_Waitall(2 * L->nnb, X->req, MPI_STATUSES_IGNORE);
    /* in rank order: the neighbours below this rank, this rank, the ones above */
    for (int k = 0, self = 0; k <= L->nnb; k++) {
        if (!self && (k == L->nnb || L->nbr[k] > L->rank)) {
            for (int s = 0; s < L->nif; s++) {
                int i = L->ifb[s];
                for (int t = L->loff[i]; t < L->loff[i + 1]; t++) X->sum[t] += change(L, X, v, i, t);
            }
            self = 1;
        }
        if (k == L->nnb) break;
        const double *buf = X->recv + L->nbuf[k];
        for (int s = L->nptr[k]; s < L->nptr[k + 1]; s++) {
            int i = L->nlist[s];
            for (int t = L->loff[i]; t < L->loff[i + 1]; t++) X->sum[t] += *buf++;
        }
    }
    for (int s = 0; s < L->nif; s++) {
        int i = L->ifb[s];
        for (int t = L->loff[i]; t < L->loff[i + 1]; t++) v[t] = X->vstart[t] = X->vstart[t] + X->sum[t];
    }
}
