/* domain.h - the periodic box, its split over MPI ranks, ghost atoms.
 *
 * Each rank owns a brick [lo, hi) of a 3-d grid of ranks (chosen to keep
 * bricks close to cubes).  Atoms within rghost (cutoff + skin) of a brick
 * face are copied to the neighbouring rank as ghosts, in six swaps
 * (x down, x up, y down, ...), each swap also forwarding ghosts received
 * in earlier dimensions so edges and corners arrive without diagonal
 * messages: the scheme LAMMPS uses.  A rank that is alone along a
 * dimension swaps with itself, which makes the periodic images; one rank
 * and many ranks run the same code.
 *
 * The swap lists are made at each neighbour-list rebuild (domain_borders)
 * and replayed every step to refresh ghost positions (domain_forward),
 * and backwards to return the ghosts' forces (domain_reverse).
 */
#ifndef HPCQ_APPS_MD_DOMAIN_H
#define HPCQ_APPS_MD_DOMAIN_H

#include "apps/md/atoms.h"
#include "common/error.h"

struct md_swap {
    long *list; /* indices of atoms sent */
    long n, cap;
    double shift[3]; /* added to positions sent (periodic wrap) */
    int sendto, recvfrom;
    long first, nrecv; /* where the received ghosts go */
};

struct md_domain {
    double blo[3], bhi[3]; /* the global box [blo, bhi) */
    double L[3];           /* its lengths, bhi - blo */
    double lo[3], hi[3];   /* my brick */
    int p[3], me[3];       /* rank grid and my place in it */
    int nbr[3][2];         /* ranks below and above me */
    int rank, nranks;
    double rghost;
    struct md_swap swap[6];
    char *sbuf, *rbuf;
    size_t scap, rcap;
};

/* Split the box [blo, bhi) over the ranks with ghost reach rghost.
 * Returns NULL with err filled if no grid gives every brick at least
 * rghost per side.
 */
struct md_domain *domain_create (const double blo[3], const double bhi[3],
                                 double rghost, struct hpcq_error *err);
void domain_destroy (struct md_domain *dom);

/* Put every local position back in the box, counting the crossings in
 * the image flags, as LAMMPS's Domain::pbc does (and bitwise the same). */
void domain_wrap (struct md_domain *dom, struct md_atoms *a);

/* Bring one position from anywhere into the box (any number of box
 * lengths), adjusting its image flags: LAMMPS's Domain::remap, for atoms
 * read from a data file. */
void domain_remap (const struct md_domain *dom, double x[3], int32_t img[3]);

/* Send local atoms that left my brick to the rank that owns them now.
 * Returns 0, or -1 if an atom went further than the neighbouring brick.
 */
int domain_migrate (struct md_domain *dom, struct md_atoms *a);

/* Rebuild ghosts and swap lists from the current positions. */
int domain_borders (struct md_domain *dom, struct md_atoms *a);

/* Refresh ghost positions from their owners (every step). */
void domain_forward (struct md_domain *dom, struct md_atoms *a);

/* Add the forces on ghosts to their owners (the swaps run backwards:
 * LAMMPS's reverse communication), after a force computation that
 * applied Newton's third law to local-ghost pairs. */
void domain_reverse (struct md_domain *dom, struct md_atoms *a);

/* Is position x inside my brick? */
int domain_owns (const struct md_domain *dom, const double x[3]);

#endif
