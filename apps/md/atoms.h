/* atoms.h - per-atom arrays, structure of arrays.
 *
 * Local atoms come first (0..nlocal-1), ghost copies after them
 * (nlocal..nlocal+nghost-1).  Positions, ids and types exist for both;
 * velocities, forces, positions at the last neighbour build and image
 * flags only for local atoms.
 * The arrays come from a pluggable allocator so that the CUDA back end can
 * put them in unified memory without a second copy of the data.
 */
#ifndef HPCQ_APPS_MD_ATOMS_H
#define HPCQ_APPS_MD_ATOMS_H

#include <stddef.h>
#include <stdint.h>

struct md_alloc_ops {
    void *(*alloc) (size_t len); /* NULL on failure */
    void (*release) (void *p);
};

struct md_atoms {
    long nlocal, nghost;
    long cap;     /* room for local + ghost */
    double *x[3]; /* positions, local and ghost */
    double *v[3];
    double *f[3];
    double *xb[3]; /* positions at the last neighbour build */
    int64_t *id;   /* global ids, local and ghost */
    int32_t *type; /* atom types 1..ntypes, local and ghost */
    int32_t *img;  /* image flags: img[3 i + d] times the box
                                 * length was taken off along d (LAMMPS's) */
    const struct md_alloc_ops *mem;
};

/* Create empty storage using mem (NULL: malloc).  Destroy frees it. */
struct md_atoms *atoms_create (const struct md_alloc_ops *mem);
void atoms_destroy (struct md_atoms *a);

/* Make room for n atoms in all, keeping the contents.  Returns 0 or -1
 * (out of memory, errno ENOMEM).
 */
int atoms_reserve (struct md_atoms *a, long n);

/* Move storage to a new allocator (host -> unified memory), keeping data. */
int atoms_set_alloc (struct md_atoms *a, const struct md_alloc_ops *mem);

/* Copy atom src to slot dst (all of a local atom's data). */
void atoms_copy (struct md_atoms *a, long dst, long src);

#endif
