/* climate_cuda.cu - the CUDA back end: one kernel per loop of climate_cpu.c,
 * calling the same inline functions of climate_kernels.h.
 *
 * The arrays are unified memory (cudaMallocManaged) so the host code that
 * initialises, gathers and checkpoints them is unchanged; climate_gpu_prefetch
 * moves them to the device once, and in the time loop only the small halo
 * buffers (between ranks) travel to the host.
 */
#include <stdio.h>

#include <cuda_runtime.h>

extern "C" {
#include "apps/climate/climate_gpu.h"
#include "apps/climate/climate_model.h"
}

#define BLOCK_X 128

static dim3 grid2 (int nx, int ny)
{
    return dim3 ((nx + BLOCK_X - 1) / BLOCK_X, ny);
}

__global__ static void k_flux_x (const double *in, double *f, struct climate_kparams kp,
                                 const double *rb, const double *rtb, const double *pb)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, k = blockIdx.y;
    if (i <= kp.nxl)
        cl_flux_x (in, f, k, i, &kp, rb[k], rtb[k], pb[k]);
}

__global__ static void k_update_x (const double *q0, const double *in, double *out,
                                   const double *f, struct climate_kparams kp,
                                   double dts, const double *rb)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, k = blockIdx.y;
    if (i < kp.nxl)
        cl_update_x (q0, in, out, f, k, i, &kp, dts, rb[k]);
}

__global__ static void k_ghosts (double *q, struct climate_kparams kp)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < kp.nxl)
        cl_wall_ghosts (q, i, &kp);
}

__global__ static void k_flux_z (const double *in, double *f, struct climate_kparams kp,
                                 const double *rb, const double *rtb, const double *pb)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, k = blockIdx.y;
    if (i < kp.nxl)
        cl_flux_z (in, f, k, i, &kp, rb[k], rtb[k], pb[k]);
}

__global__ static void k_update_z (const double *q0, const double *in, double *out,
                                   const double *f, struct climate_kparams kp,
                                   double dts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, k = blockIdx.y;
    if (i < kp.nxl)
        cl_update_z (q0, in, out, f, k, i, &kp, dts);
}

/* dir > 0: columns to buffers (pack); dir < 0: buffers to halo (unpack). */
__global__ static void k_halo (double *q, double *lo, double *hi,
                               struct climate_kparams kp, int dir)
{
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    int total = CL_NV * kp.nz * CL_HS;
    if (n >= total)
        return;
    int g = n % CL_HS, k = (n / CL_HS) % kp.nz, v = n / (CL_HS * kp.nz);
    if (dir > 0) {
        lo[n] = q[cl_idx (v, k, g, kp.nxl, kp.nz)];
        hi[n] = q[cl_idx (v, k, kp.nxl - CL_HS + g, kp.nxl, kp.nz)];
    } else {
        q[cl_idx (v, k, -CL_HS + g, kp.nxl, kp.nz)] = lo[n];
        q[cl_idx (v, k, kp.nxl + g, kp.nxl, kp.nz)] = hi[n];
    }
}

static void *gpu_alloc (size_t bytes)
{
    void *p = NULL;
    if (cudaMallocManaged (&p, bytes ? bytes : 1, cudaMemAttachGlobal) != cudaSuccess)
        return NULL;
    return p;
}

static void gpu_release (void *p)
{
    if (p)
        cudaFree (p);
}

static void gpu_flux_x (struct climate_model *m, const double *in)
{
    k_flux_x<<<grid2 (m->nxl + 1, m->nz), BLOCK_X>>> (in, m->flux, m->kp, m->rb_cell,
                                                      m->rtb_cell, m->pb_cell);
}

static void gpu_update_x (struct climate_model *m, const double *in, double *out,
                          double dts)
{
    k_update_x<<<grid2 (m->nxl, m->nz), BLOCK_X>>> (m->state, in, out, m->flux, m->kp,
                                                    dts, m->rb_cell);
}

static void gpu_flux_z (struct climate_model *m, double *in)
{
    k_ghosts<<<(m->nxl + BLOCK_X - 1) / BLOCK_X, BLOCK_X>>> (in, m->kp);
    k_flux_z<<<grid2 (m->nxl, m->nz + 1), BLOCK_X>>> (in, m->flux, m->kp, m->rb_edge,
                                                      m->rtb_edge, m->pb_edge);
}

static void gpu_update_z (struct climate_model *m, const double *in, double *out,
                          double dts)
{
    k_update_z<<<grid2 (m->nxl, m->nz), BLOCK_X>>> (m->state, in, out, m->flux, m->kp,
                                                    dts);
}

static void gpu_pack_x (struct climate_model *m, const double *q, double *lo,
                        double *hi)
{
    int n = CL_NV * m->nz * CL_HS;
    k_halo<<<(n + BLOCK_X - 1) / BLOCK_X, BLOCK_X>>> ((double *)q, lo, hi, m->kp, 1);
}

static void gpu_unpack_x (struct climate_model *m, double *q, const double *lo,
                          const double *hi)
{
    int n = CL_NV * m->nz * CL_HS;
    k_halo<<<(n + BLOCK_X - 1) / BLOCK_X, BLOCK_X>>> (q, (double *)lo, (double *)hi,
                                                      m->kp, -1);
}

static void gpu_sync (void)
{
    cudaDeviceSynchronize ();
}

static const struct climate_backend gpu_backend = {
    "gpu",      gpu_alloc,    gpu_release, gpu_flux_x,   gpu_update_x,
    gpu_flux_z, gpu_update_z, gpu_pack_x,  gpu_unpack_x, gpu_sync,
};

extern "C" const struct climate_backend *climate_gpu_backend (int local_rank, char *why,
                                                              int n)
{
    int count = 0, managed = 0, dev;
    cudaError_t e = cudaGetDeviceCount (&count);

    if (e != cudaSuccess || count == 0) {
        snprintf (why, (size_t)n, "%s",
                  e != cudaSuccess ? cudaGetErrorString (e) : "no CUDA device");
        return NULL;
    }
    dev = local_rank % count;
    if ((e = cudaSetDevice (dev)) != cudaSuccess
        || (e = cudaDeviceGetAttribute (&managed, cudaDevAttrManagedMemory, dev))
               != cudaSuccess) {
        snprintf (why, (size_t)n, "%s", cudaGetErrorString (e));
        return NULL;
    }
    if (!managed) {
        snprintf (why, (size_t)n, "device %d has no managed memory", dev);
        return NULL;
    }
    return &gpu_backend;
}

static void prefetch (void *p, size_t bytes, int dev)
{
#if CUDART_VERSION >= 13000
    struct cudaMemLocation loc;
    loc.type = cudaMemLocationTypeDevice;
    loc.id = dev;
    cudaMemPrefetchAsync (p, bytes, loc, 0, 0);
#else
    cudaMemPrefetchAsync (p, bytes, dev, 0);
#endif
}

extern "C" void climate_gpu_prefetch (struct climate_model *m)
{
    int dev = 0;

    cudaGetDevice (&dev);
    prefetch (m->state, m->nfield * sizeof (double), dev);
    prefetch (m->stage, m->nfield * sizeof (double), dev);
    prefetch (m->flux, m->nflux * sizeof (double), dev);
    prefetch (m->halo_buf, 4 * m->nhalo * sizeof (double), dev);
    prefetch (m->rb_cell, 3 * m->nz * sizeof (double), dev);
    prefetch (m->rb_edge, 3 * (m->nz + 1) * sizeof (double), dev);
    cudaDeviceSynchronize ();
}
