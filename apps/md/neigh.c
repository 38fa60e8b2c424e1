/* neigh.c - see neigh.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "apps/md/neigh.h"

struct md_neigh *neigh_create (double cutneigh, int full)
{
    struct md_neigh *nl = calloc (1, sizeof (*nl));
    if (nl) {
        nl->cutneigh = cutneigh;
        nl->full = full;
    }
    return nl;
}

void neigh_destroy (struct md_neigh *nl)
{
    if (!nl)
        return;
    int saved = errno;
    free (nl->binstart);
    free (nl->binatom);
    free (nl->first);
    free (nl->nloc);
    free (nl->neigh);
    free (nl);
    errno = saved;
}

static int grow (void **p, long *cap, long n, size_t elem)
{
    if (n <= *cap)
        return 0;
    long ncap = n + n / 4 + 16;
    void *q = realloc (*p, ncap * elem);
    if (!q) {
        errno = ENOMEM;
        return -1;
    }
    *p = q;
    *cap = ncap;
    return 0;
}

/* Bins cover my brick plus the ghost shell; about cutneigh/2 wide so the
 * stencil (two bins each way) wastes less volume than one-cutoff bins. */
static void bins_setup (struct md_neigh *nl, const struct md_domain *dom)
{
    nl->nbins = 1;
    for (int d = 0; d < 3; d++) {
        double lo = dom->lo[d] - dom->rghost, ext = dom->hi[d] - dom->lo[d]
            + 2 * dom->rghost;
        int n = (int)floor (ext / (0.5 * nl->cutneigh));
        if (n < 1)
            n = 1;
        nl->nb[d] = n;
        nl->blo[d] = lo;
        nl->binsize[d] = ext / n;
        nl->nbins *= n;
    }
}

static inline int bin_coord (const struct md_neigh *nl, double x, int d)
{
    int c = (int)floor ((x - nl->blo[d]) / nl->binsize[d]);
    return c < 0 ? 0 : c >= nl->nb[d] ? nl->nb[d] - 1 : c;
}

static long bin_of (const struct md_neigh *nl, const struct md_atoms *a,
                    long i)
{
    int c[3];
    for (int d = 0; d < 3; d++)
        c[d] = bin_coord (nl, a->x[d][i], d);
    return ((long)c[2] * nl->nb[1] + c[1]) * nl->nb[0] + c[0];
}

/* Counting sort of all atoms by bin; stable, so the order is a function
 * of the positions alone. */
static int bins_fill (struct md_neigh *nl, const struct md_atoms *a)
{
    long n = a->nlocal + a->nghost;
    if (grow ((void **)&nl->binstart, &nl->bincap, nl->nbins + 1,
              sizeof (long)) < 0
        || grow ((void **)&nl->binatom, &nl->bacap, n, sizeof (int)) < 0)
        return -1;
    long *start = nl->binstart;
    memset (start, 0, (nl->nbins + 1) * sizeof (long));
    long *bin = malloc ((n ? n : 1) * sizeof (long));
    if (!bin)
        return -1;
    for (long i = 0; i < n; i++) {
        bin[i] = bin_of (nl, a, i);
        start[bin[i] + 1]++;
    }
    for (long b = 0; b < nl->nbins; b++)
        start[b + 1] += start[b];
    for (long i = 0; i < n; i++)
        nl->binatom[start[bin[i]]++] = (int)i;
    for (long b = nl->nbins; b > 0; b--)
        start[b] = start[b - 1];
    start[0] = 0;
    free (bin);
    return 0;
}

/* Visit the neighbours of local atom i: pass 0 counts, pass 1 writes at
 * out.  Returns the count; *nloc gets the local part's size. */
static long atom_neigh (const struct md_neigh *nl, const struct md_atoms *a,
                        long i, int *out, int *nloc)
{
    const double cut2 = nl->cutneigh * nl->cutneigh;
    const double xi = a->x[0][i], yi = a->x[1][i], zi = a->x[2][i];
    const double *x = a->x[0], *y = a->x[1], *z = a->x[2];
    long nlocal = a->nlocal, count = 0, nl_local = 0;
    int c[3];
    for (int d = 0; d < 3; d++)
        c[d] = bin_coord (nl, a->x[d][i], d);
    /* Two sweeps: locals, then ghosts, so the kernel needs no branch. */
    for (int ghosts = 0; ghosts < 2; ghosts++) {
        for (int bz = c[2] - 2; bz <= c[2] + 2; bz++) {
            if (bz < 0 || bz >= nl->nb[2])
                continue;
            for (int by = c[1] - 2; by <= c[1] + 2; by++) {
                if (by < 0 || by >= nl->nb[1])
                    continue;
                for (int bx = c[0] - 2; bx <= c[0] + 2; bx++) {
                    if (bx < 0 || bx >= nl->nb[0])
                        continue;
                    long b = ((long)bz * nl->nb[1] + by) * nl->nb[0] + bx;
                    for (long k = nl->binstart[b]; k < nl->binstart[b + 1]; k++) {
                        long j = nl->binatom[k];
                        if (ghosts ? j < nlocal : (j >= nlocal || j == i
                                                   || (!nl->full && j < i)))
                            continue;
                        double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
                        if (dx * dx + dy * dy + dz * dz >= cut2)
                            continue;
                        if (out)
                            out[count] = (int)j;
                        count++;
                    }
                }
            }
        }
        if (!ghosts)
            nl_local = count;
    }
    *nloc = (int)nl_local;
    return count;
}

int neigh_bin (struct md_neigh *nl, const struct md_domain *dom,
               const struct md_atoms *a)
{
    bins_setup (nl, dom);
    return bins_fill (nl, a);
}

int neigh_build (struct md_neigh *nl, const struct md_domain *dom,
                 const struct md_atoms *a)
{
    long n = a->nlocal;
    bins_setup (nl, dom);
    if (bins_fill (nl, a) < 0
        || grow ((void **)&nl->first, &nl->firstcap, n + 1, sizeof (long)) < 0
        || grow ((void **)&nl->nloc, &nl->nloccap, n + 1, sizeof (int)) < 0)
        return -1;
    /* Count, prefix-sum, fill: each atom's slot is known before the
     * parallel fill, so threads never share a cursor. */
    #pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
        nl->first[i + 1] = atom_neigh (nl, a, i, NULL, &nl->nloc[i]);
    nl->first[0] = 0;
    for (long i = 0; i < n; i++)
        nl->first[i + 1] += nl->first[i];
    if (grow ((void **)&nl->neigh, &nl->neighcap, nl->first[n] + 1,
              sizeof (int)) < 0)
        return -1;
    #pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
        atom_neigh (nl, a, i, nl->neigh + nl->first[i], &nl->nloc[i]);
    nl->npairs = nl->first[n];
    return 0;
}
