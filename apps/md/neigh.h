/* neigh.h - cell lists and Verlet neighbour lists with a skin.
 *
 * Atoms (local and ghost) are binned into cells about half the list
 * cutoff wide; each local atom's list holds the atoms within cutoff+skin.
 * The list is "half" with Newton's third law applied to every pair,
 * ghosts included: each pair of local atoms is listed once (under the
 * atom whose bin comes first in the half stencil, or the lower index in
 * the same bin), and each local-ghost pair is listed on exactly one of
 * the two ranks (or, for a periodic image, one of the two atoms) that
 * hold it, chosen from the two global ids alone (LAMMPS's id-parity
 * rule), so the choice is the same on both sides whatever the rounding
 * of the shifted ghost positions.  Forces on ghosts are then sent back to
 * their owners (domain_reverse).
 *
 *     neigh[first[i] .. first[i+1])   the partners j (local or ghost) of i
 *
 * A full list (every neighbour of i) is built with full = 1; the CUDA
 * back end only uses the bins (neigh_bin) and builds its own full list.
 */
#ifndef HPCQ_APPS_MD_NEIGH_H
#define HPCQ_APPS_MD_NEIGH_H

#include "apps/md/atoms.h"
#include "apps/md/domain.h"

struct md_neigh_buf {
    int *p;
    long n, cap;
};

struct md_neigh {
    double cutneigh; /* cutoff + skin */
    int full;
    /* bins */
    int nb[3];
    double blo[3], binsize[3];
    long nbins;
    long *binstart; /* nbins + 1 */
    int *binatom;   /* atom indices sorted by bin, locals
                                 * first within each bin */
    long *binghost; /* nbins: where each bin's ghosts start */
    double *xs[3];  /* positions in binatom's order */
    long *slot;     /* nlocal: where each local atom is in it */
    long bincap, bacap, bgcap, xscap, slotcap;
    /* lists */
    long *first; /* nlocal + 1 */
    int *neigh;
    long firstcap, neighcap;
    long npairs;
    /* per-thread list pieces (threads 1..), joined after the build */
    struct md_neigh_buf *tbuf;
    int ntbuf;
};

struct md_neigh *neigh_create (double cutneigh, int full);
void neigh_destroy (struct md_neigh *nl);

/* Only bin local and ghost atoms (binstart/binatom), for a back end that
 * builds its own lists.  Returns 0 or -1 (ENOMEM). */
int neigh_bin (struct md_neigh *nl, const struct md_domain *dom,
               const struct md_atoms *a);

/* Bin local and ghost atoms and build the lists.  Returns 0 or -1 (ENOMEM). */
int neigh_build (struct md_neigh *nl, const struct md_domain *dom,
                 const struct md_atoms *a);

#endif
