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
    free (nl->binghost);
    for (int d = 0; d < 3; d++)
        free (nl->xs[d]);
    free (nl->slot);
    free (nl->first);
    free (nl->neigh);
    for (int t = 0; t < nl->ntbuf; t++)
        free (nl->tbuf[t].p);
    free (nl->tbuf);
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
        double lo = dom->lo[d] - dom->rghost,
               ext = dom->hi[d] - dom->lo[d] + 2 * dom->rghost;
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

static long bin_of (const struct md_neigh *nl, const struct md_atoms *a, long i)
{
    int c[3];
    for (int d = 0; d < 3; d++)
        c[d] = bin_coord (nl, a->x[d][i], d);
    return ((long)c[2] * nl->nb[1] + c[1]) * nl->nb[0] + c[0];
}

/* Counting sort of all atoms by bin; stable, so the order is a function
 * of the positions alone, and within a bin the locals (indices below
 * nlocal) come before the ghosts; binghost[b] is where they start. */
static int bins_fill (struct md_neigh *nl, const struct md_atoms *a)
{
    long n = a->nlocal + a->nghost;
    if (grow ((void **)&nl->binstart, &nl->bincap, nl->nbins + 1, sizeof (long)) < 0
        || grow ((void **)&nl->binghost, &nl->bgcap, nl->nbins, sizeof (long)) < 0
        || grow ((void **)&nl->binatom, &nl->bacap, n, sizeof (int)) < 0
        || grow ((void **)&nl->slot, &nl->slotcap, a->nlocal, sizeof (long)) < 0)
        return -1;
    for (int d = 0; d < 3; d++) {
        long cap = nl->xscap;
        if (grow ((void **)&nl->xs[d], &cap, n, sizeof (double)) < 0)
            return -1;
        if (d == 2)
            nl->xscap = cap;
    }
    long *start = nl->binstart, *ghost = nl->binghost;
    memset (start, 0, (nl->nbins + 1) * sizeof (long));
    memset (ghost, 0, nl->nbins * sizeof (long));
    long *bin = malloc ((n ? n : 1) * sizeof (long));
    if (!bin)
        return -1;
    for (long i = 0; i < n; i++) {
        bin[i] = bin_of (nl, a, i);
        start[bin[i] + 1]++;
        if (i < a->nlocal)
            ghost[bin[i]]++;
    }
    for (long b = 0; b < nl->nbins; b++)
        start[b + 1] += start[b];
    for (long i = 0; i < n; i++) {
        long k = start[bin[i]]++;
        nl->binatom[k] = (int)i;
        for (int d = 0; d < 3; d++)
            nl->xs[d][k] = a->x[d][i];
        if (i < a->nlocal)
            nl->slot[i] = k;
    }
    for (long b = nl->nbins; b > 0; b--)
        start[b] = start[b - 1];
    start[0] = 0;
    for (long b = 0; b < nl->nbins; b++)
        ghost[b] += start[b];
    free (bin);
    return 0;
}

/* Is the pair of local atom itag and ghost jtag listed on this side?
 * Exactly one of (itag, jtag) and (jtag, itag) says yes (LAMMPS's
 * half/newton rule by id parity, which also balances the work). */
static inline int ghost_pair_mine (int64_t itag, int64_t jtag)
{
    if (itag > jtag)
        return (itag + jtag) & 1;
    return itag < jtag && !((itag + jtag) & 1);
}

/* Candidates k0..k1 of the bin-sorted arrays within reach of (xi, yi,
 * zi), appended to out from *cnt on.  Every candidate is stored and only
 * those in reach are kept (no hard-to-predict branch on the distance). */
static inline __attribute__ ((always_inline)) void
scan_locals (const struct md_neigh *nl, double xi, double yi, double zi, double cut2,
             long k0, long k1, int *restrict out, long *cnt)
{
    const double *restrict xs = nl->xs[0], *restrict ys = nl->xs[1],
                           *restrict zs = nl->xs[2];
    const int *restrict binatom = nl->binatom;
    long c = *cnt;
    for (long k = k0; k < k1; k++) {
        double dx = xi - xs[k], dy = yi - ys[k], dz = zi - zs[k];
        out[c] = binatom[k];
        c += dx * dx + dy * dy + dz * dz < cut2;
    }
    *cnt = c;
}

/* The same for ghosts, keeping only the pairs the id rule gives me. */
static inline __attribute__ ((always_inline)) void
scan_ghosts (const struct md_neigh *nl, const int64_t *id, int64_t idi, double xi,
             double yi, double zi, double cut2, long k0, long k1, int *restrict out,
             long *cnt)
{
    const double *restrict xs = nl->xs[0], *restrict ys = nl->xs[1],
                           *restrict zs = nl->xs[2];
    const int *restrict binatom = nl->binatom;
    long c = *cnt;
    for (long k = k0; k < k1; k++) {
        const int j = binatom[k];
        double dx = xi - xs[k], dy = yi - ys[k], dz = zi - zs[k];
        out[c] = j;
        c += (dx * dx + dy * dy + dz * dz < cut2) & ghost_pair_mine (idi, id[j]);
    }
    *cnt = c;
}

/* Append the partners of local atom i to b.  One sweep of the 5x5x5 bin
 * stencil: the bin itself (locals after i in it), the upper half of the
 * stencil (every local), and the ghosts of every bin, for which the id
 * rule, not the geometry, decides which side lists the pair.  With
 * nl->full, every atom in reach but i.  Returns 0 or -1 (ENOMEM). */
static int atom_neigh (const struct md_neigh *nl, const struct md_atoms *a, long i,
                       struct md_neigh_buf *b)
{
    const double cut2 = nl->cutneigh * nl->cutneigh;
    const double xi = a->x[0][i], yi = a->x[1][i], zi = a->x[2][i];
    const int64_t *id = a->id, idi = a->id[i];
    const long *binstart = nl->binstart, *binghost = nl->binghost;
    const long me = nl->slot[i];
    const int full = nl->full;
    int c[3], lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
        c[d] = bin_coord (nl, a->x[d][i], d);
        lo[d] = c[d] - 2 < 0 ? 0 : c[d] - 2;
        hi[d] = c[d] + 2 >= nl->nb[d] ? nl->nb[d] - 1 : c[d] + 2;
    }
    for (int bz = lo[2]; bz <= hi[2]; bz++) {
        for (int by = lo[1]; by <= hi[1]; by++) {
            long row = ((long)bz * nl->nb[1] + by) * nl->nb[0];
            long need = binstart[row + hi[0] + 1] - binstart[row + lo[0]];
            if (b->n + need > b->cap
                && grow ((void **)&b->p, &b->cap, b->n + need, sizeof (int)) < 0)
                return -1;
            int *restrict out = b->p;
            long cnt = b->n;
            for (int bx = lo[0]; bx <= hi[0]; bx++) {
                long bb = row + bx;
                long k0 = binstart[bb], kg = binghost[bb], k1 = binstart[bb + 1];
                if (full) { /* everything but i itself */
                    if (me >= k0 && me < k1) {
                        scan_locals (nl, xi, yi, zi, cut2, k0, me, out, &cnt);
                        k0 = me + 1;
                    }
                    scan_locals (nl, xi, yi, zi, cut2, k0, k1, out, &cnt);
                    continue;
                }
                /* where this bin lies from mine: above (z first, then y,
                 * then x), below, or mine */
                int rel = bz != c[2]   ? (bz > c[2] ? 1 : -1)
                          : by != c[1] ? (by > c[1] ? 1 : -1)
                          : bx != c[0] ? (bx > c[0] ? 1 : -1)
                                       : 0;
                if (rel > 0)
                    scan_locals (nl, xi, yi, zi, cut2, k0, kg, out, &cnt);
                else if (rel == 0)
                    scan_locals (nl, xi, yi, zi, cut2, me + 1, kg, out, &cnt);
                if (kg < k1)
                    scan_ghosts (nl, id, idi, xi, yi, zi, cut2, kg, k1, out, &cnt);
            }
            b->n = cnt;
        }
    }
    return 0;
}

int neigh_bin (struct md_neigh *nl, const struct md_domain *dom,
               const struct md_atoms *a)
{
    bins_setup (nl, dom);
    return bins_fill (nl, a);
}

#define NEIGH_MAXT 256

int neigh_build (struct md_neigh *nl, const struct md_domain *dom,
                 const struct md_atoms *a)
{
    long n = a->nlocal, base[NEIGH_MAXT + 1];
    int nt = 1, fail = 0;
#ifdef _OPENMP
    nt = omp_get_max_threads ();
#endif
    if (nt > NEIGH_MAXT)
        nt = NEIGH_MAXT;
    if (n < 1024)
        nt = 1;
    bins_setup (nl, dom);
    if (bins_fill (nl, a) < 0
        || grow ((void **)&nl->first, &nl->firstcap, n + 1, sizeof (long)) < 0)
        return -1;
    if (nt > nl->ntbuf) {
        struct md_neigh_buf *t = realloc (nl->tbuf, nt * sizeof (*t));
        if (!t) {
            errno = ENOMEM;
            return -1;
        }
        memset (t + nl->ntbuf, 0, (nt - nl->ntbuf) * sizeof (*t));
        nl->tbuf = t;
        nl->ntbuf = nt;
    }
    /* One pass: each thread appends its block of atoms to its own buffer
     * (thread 0 straight into the list), then the pieces are joined in
     * thread order, so the list does not depend on the thread timing. */
    struct md_neigh_buf own = { nl->neigh, 0, nl->neighcap };
    base[0] = 0;
#pragma omp parallel num_threads(nt)
    {
#ifdef _OPENMP
        int t = omp_get_thread_num (), nth = omp_get_num_threads ();
#else
        int t = 0, nth = 1;
#endif
        struct md_neigh_buf *b = t == 0 ? &own : &nl->tbuf[t];
        long i0 = n * t / nth, i1 = n * (t + 1) / nth;
        b->n = 0;
        for (long i = i0; i < i1; i++) {
            if (atom_neigh (nl, a, i, b) < 0) {
#pragma omp atomic write
                fail = 1;
                break;
            }
            nl->first[i + 1] = b->n;
        }
#pragma omp single
        nt = nth;
    }
    nl->neigh = own.p;
    nl->neighcap = own.cap;
    if (fail) {
        errno = ENOMEM;
        return -1;
    }
    for (int t = 0; t < nt; t++)
        base[t + 1] = base[t] + (t == 0 ? own.n : nl->tbuf[t].n);
    if (grow ((void **)&nl->neigh, &nl->neighcap, base[nt] + 1, sizeof (int)) < 0)
        return -1;
    for (int t = 1; t < nt; t++) {
        long i0 = n * t / nt, i1 = n * (t + 1) / nt;
        memcpy (nl->neigh + base[t], nl->tbuf[t].p, nl->tbuf[t].n * sizeof (int));
        for (long i = i0; i < i1; i++)
            nl->first[i + 1] += base[t];
    }
    nl->first[0] = 0;
    nl->npairs = base[nt];
    return 0;
}
