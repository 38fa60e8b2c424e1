/* neigh.h - cell lists and Verlet neighbour lists with a skin.
 *
 * Atoms (local and ghost) are binned into cells about half the list
 * cutoff wide; each local atom's list holds the atoms within cutoff+skin.
 * The list is "half" for pairs of local atoms (each pair once, Newton's
 * third law applied) and lists every local-ghost pair on both ranks that
 * own an end (no reverse communication of ghost forces).  Per atom the
 * local neighbours come first, then the ghosts:
 *
 *     neigh[first[i] .. first[i]+nloc[i])    local j > i
 *     neigh[first[i]+nloc[i] .. first[i+1])  ghosts
 *
 * A full list (every neighbour of i, for one thread per atom on a GPU)
 * is built the same way with full = 1.
 */
#ifndef HPCQ_APPS_MD_NEIGH_H
#define HPCQ_APPS_MD_NEIGH_H

#include "apps/md/atoms.h"
#include "apps/md/domain.h"

struct md_neigh {
    double cutneigh;            /* cutoff + skin */
    int full;
    /* bins */
    int nb[3];
    double blo[3], binsize[3];
    long nbins;
    long *binstart;             /* nbins + 1 */
    int *binatom;               /* atom indices sorted by bin */
    long bincap, bacap;
    /* lists */
    long *first;                /* nlocal + 1 */
    int *nloc;
    int *neigh;
    long firstcap, nloccap, neighcap;
    long npairs;
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
