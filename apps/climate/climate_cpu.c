/* climate_cpu.c - the OpenMP back end: loops over the slab calling the
 * shared kernels of climate_kernels.h.
 *
 * Each loop gives every thread whole rows; the arithmetic per cell does not
 * depend on the thread count, so results are bitwise independent of
 * OMP_NUM_THREADS.
 */
#include <stdlib.h>
#include <string.h>

#include "apps/climate/climate_model.h"
#include "apps/climate/climate_pow.h"

static void *cpu_alloc (size_t bytes)
{
    return malloc (bytes ? bytes : 1);
}

static void cpu_release (void *p)
{
    free (p);
}

/* The fluxes through row k of the edges of direction dir (x: the nxl + 1
 * edges of cell row k; z: the nxl edges at height k).  Edges are taken in
 * runs of RUN: their values first, then the pressures of the whole run
 * (the pow is most of the arithmetic, and a run lets it use vector code),
 * then the fluxes: the arithmetic of cl_flux, edge by edge.  Inlined
 * into each caller with a constant dir, so each direction gets its own
 * specialised loop. */
#define RUN 64

static inline __attribute__ ((always_inline)) void
flux_row (struct climate_model *m, const double *in, int dir, int k)
{
    const struct climate_kparams *kp = &m->kp;
    double e[RUN][CL_NV], d3[RUN][CL_NV], rt[RUN];
    int nedge = dir == CL_X ? m->nxl + 1 : m->nxl;
    double rb = dir == CL_X ? m->rb_cell[k] : m->rb_edge[k];
    double rtb = dir == CL_X ? m->rtb_cell[k] : m->rtb_edge[k];
    double pb = dir == CL_X ? m->pb_cell[k] : m->pb_edge[k];

    for (int i0 = 0; i0 < nedge; i0 += RUN) {
        int n = nedge - i0 < RUN ? nedge - i0 : RUN;
        for (int j = 0; j < n; j++) {
            cl_edge (in, dir, k, i0 + j, kp, e[j], d3[j]);
            rt[j] = cl_edge_rhot (e[j], rtb);
        }
        climate_pow_n (rt, n, kp->gamma);
        for (int j = 0; j < n; j++)
            cl_flux_store (m->flux, dir, k, i0 + j, kp, e[j], d3[j], rb, rtb,
                           cl_pressure (rt[j], kp, pb));
    }
}

static void cpu_flux_x (struct climate_model *m, const double *in)
{
#pragma omp parallel for schedule(static)
    for (int k = 0; k < m->nz; k++)
        flux_row (m, in, CL_X, k);
}

static void cpu_update_x (struct climate_model *m, const double *in, double *out,
                          double dts)
{
    const struct climate_kparams *kp = &m->kp;
    int nz = m->nz, nxl = m->nxl;

#pragma omp parallel for schedule(static)
    for (int k = 0; k < nz; k++)
        for (int i = 0; i < nxl; i++)
            cl_update_x (m->state, in, out, m->flux, k, i, kp, dts, m->rb_cell[k]);
}

static void cpu_flux_z (struct climate_model *m, double *in)
{
    const struct climate_kparams *kp = &m->kp;
    int nxl = m->nxl;

#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (int i = 0; i < nxl; i++)
            cl_wall_ghosts (in, i, kp);
#pragma omp for schedule(static)
        for (int k = 0; k <= m->nz; k++)
            flux_row (m, in, CL_Z, k);
    }
}

static void cpu_update_z (struct climate_model *m, const double *in, double *out,
                          double dts)
{
    const struct climate_kparams *kp = &m->kp;
    int nz = m->nz, nxl = m->nxl;

#pragma omp parallel for schedule(static)
    for (int k = 0; k < nz; k++)
        for (int i = 0; i < nxl; i++)
            cl_update_z (m->state, in, out, m->flux, k, i, kp, dts);
}

static void cpu_pack_x (struct climate_model *m, const double *q, double *lo,
                        double *hi)
{
    int nz = m->nz, nxl = m->nxl;

    for (int v = 0; v < CL_NV; v++)
        for (int k = 0; k < nz; k++) {
            size_t o = ((size_t)v * nz + k) * CL_HS;
            memcpy (lo + o, q + cl_idx (v, k, 0, nxl, nz), CL_HS * sizeof (double));
            memcpy (hi + o, q + cl_idx (v, k, nxl - CL_HS, nxl, nz),
                    CL_HS * sizeof (double));
        }
}

static void cpu_unpack_x (struct climate_model *m, double *q, const double *lo,
                          const double *hi)
{
    int nz = m->nz, nxl = m->nxl;

    for (int v = 0; v < CL_NV; v++)
        for (int k = 0; k < nz; k++) {
            size_t o = ((size_t)v * nz + k) * CL_HS;
            memcpy (q + cl_idx (v, k, -CL_HS, nxl, nz), lo + o,
                    CL_HS * sizeof (double));
            memcpy (q + cl_idx (v, k, nxl, nxl, nz), hi + o, CL_HS * sizeof (double));
        }
}

static void cpu_sync (void)
{
}

const struct climate_backend climate_cpu_backend = {
    .name = "cpu",
    .alloc = cpu_alloc,
    .release = cpu_release,
    .flux_x = cpu_flux_x,
    .update_x = cpu_update_x,
    .flux_z = cpu_flux_z,
    .update_z = cpu_update_z,
    .pack_x = cpu_pack_x,
    .unpack_x = cpu_unpack_x,
    .sync = cpu_sync,
};
