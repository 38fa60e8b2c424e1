/* backend.h - what a compute back end (CPU or CUDA) provides.
 *
 * The engine (sim.c) owns the atoms, the domain and the step loop; a back
 * end does the per-step arithmetic on the same arrays.  Host-side work
 * (migration, ghost lists, checkpoints, thermostats) calls to_host first;
 * the CUDA back end then waits for the GPU and moves the pages back.
 */
#ifndef HPCQ_APPS_MD_BACKEND_H
#define HPCQ_APPS_MD_BACKEND_H

#include <stddef.h>

#include "apps/md/atoms.h"

struct md_sim;

struct md_backend_ops {
    const char *name;
    /* Allocator for the atom arrays (NULL: the heap). */
    const struct md_alloc_ops *mem;
    int (*init) (struct md_sim *s);
    void (*fini) (struct md_sim *s);
    /* v += dt/2 f / m; x += dt v */
    void (*integrate1) (struct md_sim *s);
    /* v += dt/2 f / m */
    void (*integrate2) (struct md_sim *s);
    /* Lists from the ghosts domain_borders just made.  0 or -1. */
    int (*neighbor) (struct md_sim *s);
    /* Ghost positions from their owners. */
    void (*forward) (struct md_sim *s);
    /* Forces; with eflag also this rank's energy and virial.  0 or -1. */
    int (*force) (struct md_sim *s, int eflag, double *pe, double *vir);
    /* sum of m v^2 over local atoms, and the largest squared move since
     * the last build. */
    double (*vsq) (struct md_sim *s);
    double (*maxdisp2) (struct md_sim *s);
    void (*to_host) (struct md_sim *s);
    void (*to_device) (struct md_sim *s);
};

extern const struct md_backend_ops md_backend_cpu;

/* The CUDA back end, or NULL with why filled when it cannot run here
 * (built without CUDA, no device, driver too old).
 */
const struct md_backend_ops *md_backend_gpu (char *why, size_t len);

#endif
