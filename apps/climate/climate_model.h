/* climate_model.h - the state of one rank's slab and what acts on it.
 *
 * A model owns the background profiles, two copies of the prognostic
 * fields (the RK scheme needs the start-of-sweep state and a stage state),
 * the fluxes, and the clock.  Arrays come from the back end's allocator
 * (malloc on the CPU, cudaMallocManaged on the GPU) so either back end can
 * work on them in place.
 */
#ifndef HPCQ_APPS_CLIMATE_CLIMATE_MODEL_H
#define HPCQ_APPS_CLIMATE_CLIMATE_MODEL_H

#include <stddef.h>

#include "apps/climate/climate_cases.h"
#include "apps/climate/climate_kernels.h"

struct climate_model;

/* A back end: allocation and the five loops of a sweep.  Every loop covers
 * the local slab; halos in x are filled by climate_comm before flux_x. */
struct climate_backend {
    const char *name;
    void *(*alloc) (size_t bytes);
    void (*release) (void *p);
    void (*flux_x) (struct climate_model *m, const double *in);
    void (*update_x) (struct climate_model *m, const double *in, double *out,
                      double dts);
    void (*flux_z) (struct climate_model *m, double *in); /* fills wall ghosts */
    void (*update_z) (struct climate_model *m, const double *in, double *out,
                      double dts);
    /* x halos: copy columns into/out of contiguous buffers of
     * CL_NV * nz * CL_HS doubles each (left columns, right columns) */
    void (*pack_x) (struct climate_model *m, const double *q, double *lo, double *hi);
    void (*unpack_x) (struct climate_model *m, double *q, const double *lo,
                      const double *hi);
    void (*sync) (void); /* wait until host may read the arrays */
};

struct climate_model {
    const struct climate_case *cas;
    const struct climate_backend *be;
    struct climate_kparams kp;
    int nx, nz;  /* global grid */
    int nxl, i0; /* this slab: nxl columns from global i0 */
    double dx, dz, dt;
    /* background: cell averages per row, point values per z-edge */
    double *rb_cell, *rtb_cell, *pb_cell;
    double *rb_edge, *rtb_edge, *pb_edge;
    double *state, *stage, *flux;
    double *halo_buf; /* 4 buffers: send lo, send hi, recv lo, recv hi */
    size_t nfield, nflux, nhalo;
    long step;
    double time;
};

/* Create the slab [i0, i0 + nxl) of an nx by nz grid for case c and set
 * the initial state.  Returns NULL with errno set (ENOMEM).  Destroy with
 * climate_model_destroy. */
struct climate_model *climate_model_create (const struct climate_case *c,
                                            const struct climate_backend *be, int nx,
                                            int nz, int i0, int nxl);
void climate_model_destroy (struct climate_model *m);

/* Fields as globally indexed doubles without halos, [v][k][i local]:
 * copy out of / into the haloed state (for output and checkpoints). */
void climate_model_pack (struct climate_model *m, double *out);
void climate_model_unpack (struct climate_model *m, const double *in);

/* Sums over this slab (kg/m and J/m per metre in y): the perturbation mass
 * sum_i rho' dx dz, the background mass, and the total energy. */
void climate_model_sums (struct climate_model *m, double *mass_prime, double *mass_bg,
                         double *energy);

/* The CPU back end (OpenMP). */
extern const struct climate_backend climate_cpu_backend;

#endif
