/* gpu.cu - the CUDA back end of hpcq-md (FP64).
 *
 * The atom arrays live in unified memory (cudaMallocManaged), advised to
 * stay on the GPU and prefetched there after any host-side work, so the
 * per-step kernels never fault; the host touches them only at neighbour
 * rebuilds, checkpoints and output, after to_host prefetches them back.
 * Kernels: integration, ghost refresh (one rank: ghosts are periodic
 * images, so each ghost is its owner plus a shift), neighbour build from
 * the host's cell bins (a full list, one thread per atom, no atomics), LJ
 * forces and the reductions for thermo output.  Under MPI the ghost
 * exchange goes through the host.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

extern "C" {
#include "apps/md/backend.h"
#include "apps/md/comm.h"
#include "apps/md/neigh.h"
#include "apps/md/sim.h"
}

#define BLOCK 128

struct gpu_state {
    int dev;
    int *neigh, *numneigh; /* neigh[k * ncap + i] */
    long ncap;
    int maxneigh;
    long *binstart;
    int *binatom;
    long bscap, bacap;
    int *gsrc;      /* ghost -> owning local atom */
    double *gshift; /* 3 per ghost */
    long gsrccap, gshiftcap;
    double *acc; /* reductions: [0] sum, [1] sum, [2] max bits */
    int *overflow;
};

static struct gpu_state *G (struct md_sim *s)
{
    return (struct gpu_state *)s->gpu;
}

static void check (cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf (stderr, "hpcq-md: CUDA %s: %s\n", what, cudaGetErrorString (e));
        comm_abort (1);
    }
}

/* ---- unified memory ---- */

static void *um_alloc (size_t len)
{
    void *p = NULL;
    int dev = 0;
    if (cudaMallocManaged (&p, len ? len : 8, cudaMemAttachGlobal) != cudaSuccess)
        return NULL;
    cudaGetDevice (&dev);
    cudaMemLocation loc;
    loc.type = cudaMemLocationTypeDevice;
    loc.id = dev;
    /* Pages live on the GPU; the host may still read them (checkpoints)
     * without migrating them for good. */
    cudaMemAdvise (p, len ? len : 8, cudaMemAdviseSetPreferredLocation, loc);
    return p;
}

static void um_free (void *p)
{
    if (p)
        cudaFree (p);
}

static const struct md_alloc_ops um_ops = { um_alloc, um_free };

static void prefetch_atoms (struct md_sim *s, int to_gpu)
{
    struct md_atoms *a = s->a;
    cudaMemLocation loc;
    loc.type = to_gpu ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
    loc.id = to_gpu ? G (s)->dev : 0;
    size_t n = a->cap * sizeof (double);
    for (int d = 0; d < 3; d++) {
        cudaMemPrefetchAsync (a->x[d], n, loc, 0, 0);
        cudaMemPrefetchAsync (a->v[d], n, loc, 0, 0);
        cudaMemPrefetchAsync (a->f[d], n, loc, 0, 0);
        cudaMemPrefetchAsync (a->xb[d], n, loc, 0, 0);
    }
    cudaMemPrefetchAsync (a->id, a->cap * sizeof (int64_t), loc, 0, 0);
}

static void gpu_to_host (struct md_sim *s)
{
    check (cudaDeviceSynchronize (), "kernel");
    prefetch_atoms (s, 0);
    check (cudaDeviceSynchronize (), "prefetch to host");
}

static void gpu_to_device (struct md_sim *s)
{
    prefetch_atoms (s, 1);
}

/* ---- kernels ---- */

__global__ void k_integrate1 (long n, double dt, double *x, double *y, double *z,
                              double *vx, double *vy, double *vz, const double *fx,
                              const double *fy, const double *fz)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double h = 0.5 * dt;
    vx[i] += h * fx[i];
    vy[i] += h * fy[i];
    vz[i] += h * fz[i];
    x[i] += dt * vx[i];
    y[i] += dt * vy[i];
    z[i] += dt * vz[i];
}

__global__ void k_integrate2 (long n, double dt, double *vx, double *vy, double *vz,
                              const double *fx, const double *fy, const double *fz)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double h = 0.5 * dt;
    vx[i] += h * fx[i];
    vy[i] += h * fy[i];
    vz[i] += h * fz[i];
}

__global__ void k_ghosts (long ng, long nlocal, const int *src, const double *shift,
                          double *x, double *y, double *z)
{
    long g = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (g >= ng)
        return;
    int j = src[g];
    x[nlocal + g] = x[j] + shift[3 * g];
    y[nlocal + g] = y[j] + shift[3 * g + 1];
    z[nlocal + g] = z[j] + shift[3 * g + 2];
}

struct binning {
    int nb[3];
    double blo[3], bs[3];
};

__device__ int bin_c (double x, double lo, double bs, int nb)
{
    int c = (int)floor ((x - lo) / bs);
    return c < 0 ? 0 : c >= nb ? nb - 1 : c;
}

__global__ void k_neigh (long n, long ncap, const double *x, const double *y,
                         const double *z, struct binning b, const long *binstart,
                         const int *binatom, double cut2, int *neigh, int *numneigh,
                         int maxneigh, int *overflow)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double xi = x[i], yi = y[i], zi = z[i];
    int cx = bin_c (xi, b.blo[0], b.bs[0], b.nb[0]);
    int cy = bin_c (yi, b.blo[1], b.bs[1], b.nb[1]);
    int cz = bin_c (zi, b.blo[2], b.bs[2], b.nb[2]);
    int cnt = 0;
    for (int bz = max (cz - 2, 0); bz <= min (cz + 2, b.nb[2] - 1); bz++)
        for (int by = max (cy - 2, 0); by <= min (cy + 2, b.nb[1] - 1); by++)
            for (int bx = max (cx - 2, 0); bx <= min (cx + 2, b.nb[0] - 1); bx++) {
                long bin = ((long)bz * b.nb[1] + by) * b.nb[0] + bx;
                for (long k = binstart[bin]; k < binstart[bin + 1]; k++) {
                    int j = binatom[k];
                    if (j == i)
                        continue;
                    double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
                    if (dx * dx + dy * dy + dz * dz < cut2) {
                        if (cnt < maxneigh)
                            neigh[(long)cnt * ncap + i] = j;
                        cnt++;
                    }
                }
            }
    numneigh[i] = cnt;
    if (cnt > maxneigh)
        atomicMax (overflow, cnt);
}

/* Sum v over the block and add it to *out (one atomic per block). */
__device__ void block_sum (double v, double *out)
{
    __shared__ double sh[BLOCK];
    sh[threadIdx.x] = v;
    __syncthreads ();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads ();
    }
    if (threadIdx.x == 0)
        atomicAdd (out, sh[0]);
}

template <int EFLAG>
__global__ void k_force (long n, long ncap, const double *x, const double *y,
                         const double *z, double *fx, double *fy, double *fz,
                         const int *neigh, const int *numneigh, double cut2,
                         double *acc)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    double e = 0, w = 0;
    if (i < n) {
        double xi = x[i], yi = y[i], zi = z[i];
        double fxi = 0, fyi = 0, fzi = 0;
        int nn = numneigh[i];
        for (int k = 0; k < nn; k++) {
            int j = neigh[(long)k * ncap + i];
            double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
            double rsq = dx * dx + dy * dy + dz * dz;
            if (rsq < cut2) {
                double r2inv = 1.0 / rsq;
                double r6inv = r2inv * r2inv * r2inv;
                double fpair = r6inv * (48.0 * r6inv - 24.0) * r2inv;
                fxi += dx * fpair;
                fyi += dy * fpair;
                fzi += dz * fpair;
                if (EFLAG) {
                    e += 2.0 * r6inv * (r6inv - 1.0); /* half: full list */
                    w += 0.5 * rsq * fpair;
                }
            }
        }
        fx[i] = fxi;
        fy[i] = fyi;
        fz[i] = fzi;
    }
    if (EFLAG) {
        block_sum (e, &acc[0]);
        block_sum (w, &acc[1]);
    }
}

__global__ void k_vsq (long n, const double *vx, const double *vy, const double *vz,
                       double *acc)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    double v = i < n ? vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i] : 0;
    block_sum (v, &acc[0]);
}

__global__ void k_maxdisp (long n, const double *x, const double *y, const double *z,
                           const double *xb, const double *yb, const double *zb,
                           unsigned long long *out)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double dx = x[i] - xb[i], dy = y[i] - yb[i], dz = z[i] - zb[i];
    double r2 = dx * dx + dy * dy + dz * dz;
    /* non-negative doubles order like their bit patterns */
    atomicMax (out, (unsigned long long)__double_as_longlong (r2));
}

static unsigned grid (long n)
{
    return (unsigned)((n + BLOCK - 1) / BLOCK);
}

/* ---- ops ---- */

static int gpu_init (struct md_sim *s)
{
    struct gpu_state *g = (struct gpu_state *)calloc (1, sizeof (*g));
    if (!g)
        return -1;
    cudaGetDevice (&g->dev);
    g->maxneigh = 96;
    check (cudaMallocManaged (&g->acc, 4 * sizeof (double)), "alloc");
    check (cudaMallocManaged (&g->overflow, sizeof (int)), "alloc");
    s->gpu = g;
    /* The atoms were made on the host; move them to unified memory. */
    if (atoms_set_alloc (s->a, &um_ops) < 0)
        return -1;
    gpu_to_device (s);
    return 0;
}

static void gpu_fini (struct md_sim *s)
{
    struct gpu_state *g = G (s);
    if (!g)
        return;
    cudaDeviceSynchronize ();
    cudaFree (g->neigh);
    cudaFree (g->numneigh);
    cudaFree (g->binstart);
    cudaFree (g->binatom);
    cudaFree (g->gsrc);
    cudaFree (g->gshift);
    cudaFree (g->acc);
    cudaFree (g->overflow);
    free (g);
    s->gpu = NULL;
}

static void gpu_integrate1 (struct md_sim *s)
{
    struct md_atoms *a = s->a;
    k_integrate1<<<grid (a->nlocal), BLOCK>>> (a->nlocal, s->p.dt, a->x[0], a->x[1],
                                               a->x[2], a->v[0], a->v[1], a->v[2],
                                               a->f[0], a->f[1], a->f[2]);
}

static void gpu_integrate2 (struct md_sim *s)
{
    struct md_atoms *a = s->a;
    k_integrate2<<<grid (a->nlocal), BLOCK>>> (a->nlocal, s->p.dt, a->v[0], a->v[1],
                                               a->v[2], a->f[0], a->f[1], a->f[2]);
}

/* Device copy of a host array, growing the buffer as needed. */
template <typename T> static void dev_copy (T **dst, long *cap, const T *src, long n)
{
    if (n > *cap) {
        cudaFree (*dst);
        *cap = n + n / 4 + 64;
        check (cudaMalloc ((void **)dst, *cap * sizeof (T)), "alloc");
    }
    check (cudaMemcpy (*dst, src, n * sizeof (T), cudaMemcpyHostToDevice), "copy");
}

/* One rank: flatten the six self-swaps into ghost -> owner + shift. */
static void ghost_map (struct md_sim *s)
{
    struct gpu_state *g = G (s);
    struct md_atoms *a = s->a;
    long ng = a->nghost, nl = a->nlocal;
    int *src = (int *)malloc ((ng + 1) * sizeof (int));
    double *sh = (double *)malloc ((3 * ng + 1) * sizeof (double));
    if (!src || !sh) {
        fprintf (stderr, "hpcq-md: out of memory\n");
        comm_abort (1);
    }
    for (int w = 0; w < 6; w++) {
        struct md_swap *sw = &s->dom->swap[w];
        for (long k = 0; k < sw->n; k++) {
            long gi = sw->first + k - nl, j = sw->list[k];
            int root = j < nl ? (int)j : src[j - nl];
            for (int d = 0; d < 3; d++)
                sh[3 * gi + d] = sw->shift[d] + (j < nl ? 0 : sh[3 * (j - nl) + d]);
            src[gi] = root;
        }
    }
    dev_copy (&g->gsrc, &g->gsrccap, src, ng);
    dev_copy (&g->gshift, &g->gshiftcap, sh, 3 * ng);
    free (src);
    free (sh);
}

static int gpu_neighbor (struct md_sim *s)
{
    struct gpu_state *g = G (s);
    struct md_atoms *a = s->a;
    struct md_neigh *nl = s->nl;
    struct binning b;
    long n = a->nlocal;
    if (neigh_bin (nl, s->dom, a) < 0)
        return -1;
    if (s->dom->nranks == 1)
        ghost_map (s);
    gpu_to_device (s);
    dev_copy (&g->binstart, &g->bscap, nl->binstart, nl->nbins + 1);
    dev_copy (&g->binatom, &g->bacap, nl->binatom, a->nlocal + a->nghost);
    for (int d = 0; d < 3; d++) {
        b.nb[d] = nl->nb[d];
        b.blo[d] = nl->blo[d];
        b.bs[d] = nl->binsize[d];
    }
    for (;;) {
        if (n > g->ncap || !g->neigh) {
            cudaFree (g->neigh);
            cudaFree (g->numneigh);
            g->ncap = n + n / 8 + 64;
            check (cudaMalloc (&g->neigh, (size_t)g->ncap * g->maxneigh * sizeof (int)),
                   "alloc");
            check (cudaMalloc (&g->numneigh, g->ncap * sizeof (int)), "alloc");
        }
        *g->overflow = 0;
        k_neigh<<<grid (n), BLOCK>>> (n, g->ncap, a->x[0], a->x[1], a->x[2], b,
                                      g->binstart, g->binatom,
                                      nl->cutneigh * nl->cutneigh, g->neigh,
                                      g->numneigh, g->maxneigh, g->overflow);
        check (cudaDeviceSynchronize (), "neighbour kernel");
        if (*g->overflow == 0)
            return 0;
        g->maxneigh = *g->overflow + 16; /* too many neighbours: regrow */
        cudaFree (g->neigh);
        g->neigh = NULL;
    }
}

static void gpu_forward (struct md_sim *s)
{
    struct md_atoms *a = s->a;
    if (s->dom->nranks > 1) {
        gpu_to_host (s);
        domain_forward (s->dom, a);
        gpu_to_device (s);
        return;
    }
    k_ghosts<<<grid (a->nghost), BLOCK>>> (a->nghost, a->nlocal, G (s)->gsrc,
                                           G (s)->gshift, a->x[0], a->x[1], a->x[2]);
}

static int gpu_force (struct md_sim *s, int eflag, double *pe, double *vir)
{
    struct gpu_state *g = G (s);
    struct md_atoms *a = s->a;
    double cut2 = s->p.cutoff * s->p.cutoff;
    *pe = *vir = 0;
    if (eflag) {
        g->acc[0] = g->acc[1] = 0;
        k_force<1><<<grid (a->nlocal), BLOCK>>> (a->nlocal, g->ncap, a->x[0], a->x[1],
                                                 a->x[2], a->f[0], a->f[1], a->f[2],
                                                 g->neigh, g->numneigh, cut2, g->acc);
        check (cudaDeviceSynchronize (), "force kernel");
        *pe = g->acc[0];
        *vir = g->acc[1];
    } else {
        k_force<0><<<grid (a->nlocal), BLOCK>>> (a->nlocal, g->ncap, a->x[0], a->x[1],
                                                 a->x[2], a->f[0], a->f[1], a->f[2],
                                                 g->neigh, g->numneigh, cut2, g->acc);
    }
    return 0;
}

static double gpu_vsq (struct md_sim *s)
{
    struct gpu_state *g = G (s);
    struct md_atoms *a = s->a;
    check (cudaDeviceSynchronize (), "kernel");
    g->acc[0] = 0;
    k_vsq<<<grid (a->nlocal), BLOCK>>> (a->nlocal, a->v[0], a->v[1], a->v[2], g->acc);
    check (cudaDeviceSynchronize (), "reduction");
    return g->acc[0];
}

static double gpu_maxdisp2 (struct md_sim *s)
{
    struct gpu_state *g = G (s);
    struct md_atoms *a = s->a;
    unsigned long long *m = (unsigned long long *)&g->acc[2];
    check (cudaDeviceSynchronize (), "kernel");
    *m = 0;
    k_maxdisp<<<grid (a->nlocal), BLOCK>>> (a->nlocal, a->x[0], a->x[1], a->x[2],
                                            a->xb[0], a->xb[1], a->xb[2], m);
    check (cudaDeviceSynchronize (), "reduction");
    return g->acc[2];
}

static struct md_backend_ops gpu_ops;

extern "C" const struct md_backend_ops *md_backend_gpu (char *why, size_t len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount (&n);
    if (e != cudaSuccess || n == 0) {
        snprintf (why, len, "%s",
                  e != cudaSuccess ? cudaGetErrorString (e) : "no CUDA device");
        return NULL;
    }
    /* one GPU per rank: ranks on a node take devices round robin */
    const char *lr = getenv ("OMPI_COMM_WORLD_LOCAL_RANK");
    if (cudaSetDevice (lr ? atoi (lr) % n : 0) != cudaSuccess) {
        snprintf (why, len, "cannot select a CUDA device");
        return NULL;
    }
    gpu_ops.name = "cuda";
    gpu_ops.mem = NULL; /* atoms move to unified memory in init */
    gpu_ops.init = gpu_init;
    gpu_ops.fini = gpu_fini;
    gpu_ops.integrate1 = gpu_integrate1;
    gpu_ops.integrate2 = gpu_integrate2;
    gpu_ops.neighbor = gpu_neighbor;
    gpu_ops.forward = gpu_forward;
    gpu_ops.force = gpu_force;
    gpu_ops.vsq = gpu_vsq;
    gpu_ops.maxdisp2 = gpu_maxdisp2;
    gpu_ops.to_host = gpu_to_host;
    gpu_ops.to_device = gpu_to_device;
    return &gpu_ops;
}
