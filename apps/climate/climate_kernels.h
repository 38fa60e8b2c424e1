/* climate_kernels.h - the arithmetic of one edge flux and one cell update.
 *
 * The dynamical core solves the 2D (x-z) compressible Euler equations for a
 * dry atmosphere in perturbation form about a hydrostatic background
 * rho_bar(z), (rho theta)_bar(z), p_bar(z):
 *
 *   d rho'/dt         + d(rho u)/dx         + d(rho w)/dz         = 0
 *   d (rho u)/dt      + d(rho u u + p')/dx  + d(rho u w)/dz       = 0
 *   d (rho w)/dt      + d(rho w u)/dx       + d(rho w w + p')/dz  = -rho' g
 *   d (rho theta)'/dt + d(rho u theta)/dx   + d(rho w theta)/dz   = 0
 *
 * with p = C0 (rho theta)^gamma and p' = p - p_bar.  Subtracting the balanced
 * background analytically means a state at rest stays exactly at rest.
 *
 * Everything here is a static inline function over plain arrays so the CPU
 * loops (climate_cpu.c) and the CUDA kernels (climate_cuda.cu) run the same
 * arithmetic; CLIMATE_HD marks them __host__ __device__ under nvcc.
 *
 * Layout: a field is NV planes of (nz + 2 HS) rows of (nxl + 2 HS) doubles,
 * halo HS = 2 on every side; fluxes are NV planes of (nz + 1) x (nxl + 1).
 */
#ifndef HPCQ_APPS_CLIMATE_CLIMATE_KERNELS_H
#define HPCQ_APPS_CLIMATE_CLIMATE_KERNELS_H

#include <math.h>

#ifdef __CUDACC__
#define CLIMATE_HD __host__ __device__ static inline
#else
#define CLIMATE_HD static inline
#endif

enum { CL_DENS = 0, CL_UMOM = 1, CL_WMOM = 2, CL_RHOT = 3, CL_NV = 4 };
#define CL_HS 2

/* Everything a kernel needs, by value: sizes, spacings and the constants.
 * Arrays of the background are indexed by local row (cell) or edge. */
struct climate_kparams {
    int nxl, nz; /* local interior cells */
    double dx, dz;
    double gamma, c0, grav;
    double hv_x, hv_z; /* hyperviscosity flux coefficients (m/s) */
    /* injection: rho u is relaxed towards rho_bar jet_u with time scale
     * jet_tau in local columns [0, jet_i1) and rows [jk0, jk1) */
    int jet_i1, jk0, jk1;
    double jet_u, jet_tau;
};

/* Index of cell (k, i) of variable v in a haloed field; k, i may be in the
 * halo (-HS .. n + HS - 1). */
CLIMATE_HD long cl_idx (int v, int k, int i, int nxl, int nz)
{
    return ((long)v * (nz + 2 * CL_HS) + (k + CL_HS)) * (nxl + 2 * CL_HS) + (i + CL_HS);
}

CLIMATE_HD long cl_fidx (int v, int k, int i, int nxl, int nz)
{
    return ((long)v * (nz + 1) + k) * (nxl + 1) + i;
}

/* Fourth-order value at the edge between q1 and q2 from four cell averages:
 * exact for cubic polynomials, which is what "4th order" means here.  A
 * multiplication by the rounded 1/12 rather than a division by 12: within
 * an ulp of it, and a division costs as much as the rest of the line. */
CLIMATE_HD double cl_interp4 (double q0, double q1, double q2, double q3)
{
    return (-q0 + 7.0 * q1 + 7.0 * q2 - q3) * (1.0 / 12.0);
}

/* Third difference across the edge; its flux form gives a 4th-derivative
 * (hyper)diffusion that damps the grid-scale mode the centred scheme leaves
 * undamped, while staying conservative. */
CLIMATE_HD double cl_diff3 (double q0, double q1, double q2, double q3)
{
    return q3 - 3.0 * q2 + 3.0 * q1 - q0;
}

/* The directions of the two sweeps. */
enum { CL_X = 0, CL_Z = 1 };

/* The fourth-order value e and the third difference d3 of every variable
 * at edge (k, i) of direction dir: for CL_X the edge between cells
 * (k, i-1) and (k, i), i in 0..nxl; for CL_Z the edge between cells
 * (k-1, i) and (k, i), k in 0..nz. */
CLIMATE_HD void cl_edge (const double *q, int dir, int k, int i,
                         const struct climate_kparams *kp, double e[CL_NV],
                         double d3[CL_NV])
{
    int nxl = kp->nxl, nz = kp->nz;
    long stride = dir == CL_X ? 1 : nxl + 2 * CL_HS;
    long plane = cl_idx (1, 0, 0, nxl, nz) - cl_idx (0, 0, 0, nxl, nz);
    const double *c =
        q
        + (dir == CL_X ? cl_idx (0, k, i - 2, nxl, nz) : cl_idx (0, k - 2, i, nxl, nz));

    for (int v = 0; v < CL_NV; v++) {
        const double *p = c + v * plane;
        double q0 = p[0], q1 = p[stride], q2 = p[2 * stride], q3 = p[3 * stride];
        e[v] = cl_interp4 (q0, q1, q2, q3);
        d3[v] = cl_diff3 (q0, q1, q2, q3);
    }
}

/* rho theta at an edge, the pressure's argument; rtb: the background's. */
CLIMATE_HD double cl_edge_rhot (const double e[CL_NV], double rtb)
{
    return e[CL_RHOT] + rtb;
}

/* The pressure perturbation p' = C0 (r t)^gamma - p_bar from (r t)^gamma. */
CLIMATE_HD double cl_pressure (double rt_gamma, const struct climate_kparams *kp,
                               double pb)
{
    return kp->c0 * rt_gamma - pb;
}

/* Write the fluxes through edge (k, i) of direction dir from its edge
 * values, the background density and rho theta there (rb, rtb) and the
 * pressure perturbation p: advection by the normal velocity, p on the
 * normal momentum, hyperviscosity.  The z-edges 0 and nz are the walls:
 * the normal velocity is zero there exactly, so mass, momentum and heat
 * do not cross and only the pressure acts. */
CLIMATE_HD void cl_flux_store (double *f, int dir, int k, int i,
                               const struct climate_kparams *kp, const double e[CL_NV],
                               const double d3[CL_NV], double rb, double rtb, double p)
{
    int nxl = kp->nxl, nz = kp->nz;
    int wall = dir == CL_Z && (k == 0 || k == nz);
    double r = e[CL_DENS] + rb, rinv = 1.0 / r;
    double u = e[CL_UMOM] * rinv, w = e[CL_WMOM] * rinv;
    double t = (e[CL_RHOT] + rtb) * rinv;
    double vn = wall ? 0.0 : dir == CL_X ? u : w; /* normal velocity */
    double h = wall ? 0.0 : dir == CL_X ? kp->hv_x : kp->hv_z;
    double pu = dir == CL_X ? p : 0.0, pw = dir == CL_X ? 0.0 : p;

    f[cl_fidx (CL_DENS, k, i, nxl, nz)] = r * vn + h * d3[CL_DENS];
    f[cl_fidx (CL_UMOM, k, i, nxl, nz)] = r * vn * u + pu + h * d3[CL_UMOM];
    f[cl_fidx (CL_WMOM, k, i, nxl, nz)] = r * vn * w + pw + h * d3[CL_WMOM];
    f[cl_fidx (CL_RHOT, k, i, nxl, nz)] = r * vn * t + h * d3[CL_RHOT];
}

/* Flux through edge (k, i) of direction dir, edge by edge (the GPU's way;
 * the CPU takes the pressures of a run of edges at once).  rb, rtb, pb:
 * the background density, rho theta and pressure there (the row's for
 * CL_X, the edge height's for CL_Z). */
CLIMATE_HD void cl_flux (const double *q, double *f, int dir, int k, int i,
                         const struct climate_kparams *kp, double rb, double rtb,
                         double pb)
{
    double e[CL_NV], d3[CL_NV];

    cl_edge (q, dir, k, i, kp, e, d3);
    double p = cl_pressure (pow (cl_edge_rhot (e, rtb), kp->gamma), kp, pb);
    cl_flux_store (f, dir, k, i, kp, e, d3, rb, rtb, p);
}

CLIMATE_HD void cl_flux_x (const double *q, double *f, int k, int i,
                           const struct climate_kparams *kp, double rb, double rtb,
                           double pb)
{
    cl_flux (q, f, CL_X, k, i, kp, rb, rtb, pb);
}

CLIMATE_HD void cl_flux_z (const double *q, double *f, int k, int i,
                           const struct climate_kparams *kp, double rb, double rtb,
                           double pb)
{
    cl_flux (q, f, CL_Z, k, i, kp, rb, rtb, pb);
}

/* One Runge-Kutta stage for cell (k, i): out = q0 + dts * L(in), with L the
 * x-direction flux divergence plus the injection jet's forcing.  out may be
 * in: every value read from in at this cell is read before anything is
 * written.  rb: the row's background density. */
CLIMATE_HD void cl_update_x (const double *q0, const double *in, double *out,
                             const double *f, int k, int i,
                             const struct climate_kparams *kp, double dts, double rb)
{
    int nxl = kp->nxl, nz = kp->nz;
    double c = dts / kp->dx;
    double src = 0.0;

    /* The jet is a momentum source only, so it cannot change the mass. */
    if (i < kp->jet_i1 && k >= kp->jk0 && k < kp->jk1)
        src = (rb * kp->jet_u - in[cl_idx (CL_UMOM, k, i, nxl, nz)]) / kp->jet_tau;
    for (int v = 0; v < CL_NV; v++) {
        double div = f[cl_fidx (v, k, i + 1, nxl, nz)] - f[cl_fidx (v, k, i, nxl, nz)];
        long n = cl_idx (v, k, i, nxl, nz);
        double s = (v == CL_UMOM) ? dts * src : 0.0;
        out[n] = q0[n] - c * div + s;
    }
}

/* As cl_update_x for z, with the buoyancy source -rho' g on rho w. */
CLIMATE_HD void cl_update_z (const double *q0, const double *in, double *out,
                             const double *f, int k, int i,
                             const struct climate_kparams *kp, double dts)
{
    int nxl = kp->nxl, nz = kp->nz;
    double c = dts / kp->dz;
    double src = -in[cl_idx (CL_DENS, k, i, nxl, nz)] * kp->grav;
    double res[CL_NV];

    for (int v = 0; v < CL_NV; v++) {
        double div = f[cl_fidx (v, k + 1, i, nxl, nz)] - f[cl_fidx (v, k, i, nxl, nz)];
        res[v] = q0[cl_idx (v, k, i, nxl, nz)] - c * div;
    }
    res[CL_WMOM] += dts * src;
    for (int v = 0; v < CL_NV; v++)
        out[cl_idx (v, k, i, nxl, nz)] = res[v];
}

/* Ghost rows below the floor and above the lid for column i.  rho w is
 * mirrored with its sign flipped (the wall reflects it); the other fields
 * are extrapolated with the parabola through the three nearest cell averages,
 * so the 4th-order edge interpolation stays accurate next to the walls (a
 * plain mirror would make the near-wall fluxes only first-order). */
CLIMATE_HD void cl_wall_ghosts (double *q, int i, const struct climate_kparams *kp)
{
    int nxl = kp->nxl, nz = kp->nz;

    for (int v = 0; v < CL_NV; v++) {
        if (v == CL_WMOM) {
            for (int g = 1; g <= CL_HS; g++) {
                q[cl_idx (v, -g, i, nxl, nz)] = -q[cl_idx (v, g - 1, i, nxl, nz)];
                q[cl_idx (v, nz - 1 + g, i, nxl, nz)] =
                    -q[cl_idx (v, nz - g, i, nxl, nz)];
            }
            continue;
        }
        for (int g = 1; g <= CL_HS; g++) {
            int b = -g, t = nz - 1 + g; /* ghost row below, above */
            q[cl_idx (v, b, i, nxl, nz)] = 3.0 * q[cl_idx (v, b + 1, i, nxl, nz)]
                                           - 3.0 * q[cl_idx (v, b + 2, i, nxl, nz)]
                                           + q[cl_idx (v, b + 3, i, nxl, nz)];
            q[cl_idx (v, t, i, nxl, nz)] = 3.0 * q[cl_idx (v, t - 1, i, nxl, nz)]
                                           - 3.0 * q[cl_idx (v, t - 2, i, nxl, nz)]
                                           + q[cl_idx (v, t - 3, i, nxl, nz)];
        }
    }
}

#endif
