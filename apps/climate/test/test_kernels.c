/* test_kernels.c - unit tests of hpcq-climate's kernels (climate_kernels.h)
 * and the pieces that call them: the 4th-order interpolation and the
 * third difference on polynomials, which cells an edge reads, the fluxes
 * of a state at rest and at the walls, conservation of the flux-form
 * update, the wall ghosts, the run pow, and a state at rest staying
 * exactly at rest through whole time steps.  TAP output.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "apps/climate/climate_cases.h"
#include "apps/climate/climate_comm.h"
#include "apps/climate/climate_kernels.h"
#include "apps/climate/climate_model.h"
#include "apps/climate/climate_pow.h"
#include "apps/climate/climate_step.h"
#include "common/test/tap.h"

/* Cell average over [j, j + 1] of a + b x + c x^2 + d x^3. */
static double cubic_avg (const double p[4], int j)
{
    double lo = j, hi = j + 1, s = 0;
    for (int n = 0; n < 4; n++)
        s += p[n] * (pow (hi, n + 1) - pow (lo, n + 1)) / (n + 1);
    return s;
}

static void test_interp (void)
{
    const double p[4] = { 0.3, -1.7, 2.2, 0.45 }, q[4] = { 5.0, 1.5, -0.25, 0 };
    double a[4], b[4];
    for (int j = 0; j < 4; j++) {
        a[j] = cubic_avg (p, j);
        b[j] = cubic_avg (q, j);
    }
    /* the edge between cells 1 and 2 is x = 2 */
    double exact = p[0] + 2 * p[1] + 4 * p[2] + 8 * p[3];
    ok (fabs (cl_interp4 (a[0], a[1], a[2], a[3]) - exact) < 1e-13 * fabs (exact),
        "cl_interp4 is exact for a cubic (%.17g vs %.17g)",
        cl_interp4 (a[0], a[1], a[2], a[3]), exact);
    ok (fabs (cl_diff3 (b[0], b[1], b[2], b[3])) < 1e-13,
        "cl_diff3 of a quadratic is 0");
    ok (fabs (cl_diff3 (a[0], a[1], a[2], a[3]) - 6 * p[3]) < 1e-12,
        "cl_diff3 of a cubic is 6 d h^3");
}

static struct climate_kparams small_kp (int nxl, int nz)
{
    struct climate_kparams kp;
    memset (&kp, 0, sizeof (kp));
    kp.nxl = nxl;
    kp.nz = nz;
    kp.dx = kp.dz = 100;
    kp.gamma = 1.4;
    kp.c0 = 27.5;
    kp.grav = 9.81;
    kp.hv_x = kp.hv_z = 3.0;
    return kp;
}

static void test_edges (void)
{
    int nxl = 9, nz = 7;
    struct climate_kparams kp = small_kp (nxl, nz);
    double *q = calloc (CL_NV * (nz + 2 * CL_HS) * (nxl + 2 * CL_HS), sizeof (double));
    double e[CL_NV], d3[CL_NV];
    int good = 1;

    for (int v = 0; v < CL_NV; v++)
        for (int k = -CL_HS; k < nz + CL_HS; k++)
            for (int i = -CL_HS; i < nxl + CL_HS; i++)
                q[cl_idx (v, k, i, nxl, nz)] = 1000.0 * v + 10.0 * k + i;
    /* linear data: the edge value is the midpoint, the third difference 0 */
    cl_edge (q, CL_X, 3, 5, &kp, e, d3);
    for (int v = 0; v < CL_NV; v++)
        good &= fabs (e[v] - (1000.0 * v + 30 + 4.5)) < 1e-12 && fabs (d3[v]) < 1e-12;
    ok (good, "an x-edge reads cells i-2..i+1 of its row, each variable");
    good = 1;
    cl_edge (q, CL_Z, 3, 5, &kp, e, d3);
    for (int v = 0; v < CL_NV; v++)
        good &= fabs (e[v] - (1000.0 * v + 25 + 5)) < 1e-12 && fabs (d3[v]) < 1e-12;
    ok (good, "a z-edge reads cells k-2..k+1 of its column");
    free (q);
}

static void test_fluxes (void)
{
    int nxl = 4, nz = 4;
    struct climate_kparams kp = small_kp (nxl, nz);
    double *f = calloc (CL_NV * (nz + 1) * (nxl + 1), sizeof (double));
    double zero[CL_NV] = { 0, 0, 0, 0 }, d3[CL_NV] = { 0.1, 0.2, 0.3, 0.4 };
    double rb = 1.1, rtb = 330.0, pb;

    /* at rest p' must vanish exactly: the background through the same pow */
    pb = rtb;
    climate_pow_n (&pb, 1, kp.gamma);
    pb = cl_pressure (pb, &kp, 0.0);
    double rt = cl_edge_rhot (zero, rtb);
    climate_pow_n (&rt, 1, kp.gamma);
    ok (cl_pressure (rt, &kp, pb) == 0.0, "p' at rest is exactly 0");

    cl_flux_store (f, CL_X, 1, 2, &kp, zero, zero, rb, rtb, 7.0);
    ok (f[cl_fidx (CL_DENS, 1, 2, nxl, nz)] == 0
            && f[cl_fidx (CL_UMOM, 1, 2, nxl, nz)] == 7.0
            && f[cl_fidx (CL_WMOM, 1, 2, nxl, nz)] == 0
            && f[cl_fidx (CL_RHOT, 1, 2, nxl, nz)] == 0,
        "x flux at rest: only the pressure, on rho u");

    double e[CL_NV] = { 0.01, 2.0, 3.0, 0.5 };
    cl_flux_store (f, CL_Z, 0, 2, &kp, e, d3, rb, rtb, 5.0);
    ok (f[cl_fidx (CL_DENS, 0, 2, nxl, nz)] == 0
            && f[cl_fidx (CL_UMOM, 0, 2, nxl, nz)] == 0
            && f[cl_fidx (CL_RHOT, 0, 2, nxl, nz)] == 0
            && f[cl_fidx (CL_WMOM, 0, 2, nxl, nz)] == 5.0,
        "the floor: nothing crosses, only the pressure acts (hyperviscosity too is 0)");
    cl_flux_store (f, CL_Z, nz, 2, &kp, e, d3, rb, rtb, 5.0);
    ok (f[cl_fidx (CL_DENS, nz, 2, nxl, nz)] == 0
            && f[cl_fidx (CL_WMOM, nz, 2, nxl, nz)] == 5.0,
        "the lid likewise");
    cl_flux_store (f, CL_Z, 2, 2, &kp, e, d3, rb, rtb, 5.0);
    double r = e[CL_DENS] + rb, w = e[CL_WMOM] / r;
    ok (fabs (f[cl_fidx (CL_DENS, 2, 2, nxl, nz)] - (r * w + kp.hv_z * d3[CL_DENS]))
            < 1e-14,
        "inside, mass is carried by w and diffused");
    free (f);
}

static void test_update_conserves (void)
{
    int nxl = 16, nz = 3;
    struct climate_kparams kp = small_kp (nxl, nz);
    size_t nq = CL_NV * (nz + 2 * CL_HS) * (nxl + 2 * CL_HS);
    double *q0 = calloc (nq, sizeof (double)), *out = calloc (nq, sizeof (double));
    double *f = calloc (CL_NV * (nz + 1) * (nxl + 1), sizeof (double));
    double before = 0, after = 0;

    srand (7);
    for (size_t n = 0; n < nq; n++)
        q0[n] = rand () / (double)RAND_MAX - 0.5;
    for (int v = 0; v < CL_NV; v++)
        for (int i = 0; i < nxl; i++)
            f[cl_fidx (v, 1, i, nxl, nz)] = rand () / (double)RAND_MAX;
    for (int v = 0; v < CL_NV; v++) /* periodic: the last edge is the first */
        f[cl_fidx (v, 1, nxl, nxl, nz)] = f[cl_fidx (v, 1, 0, nxl, nz)];
    kp.jet_i1 = 4;
    kp.jk0 = 0;
    kp.jk1 = nz;
    kp.jet_u = 50;
    kp.jet_tau = 10;
    for (int i = 0; i < nxl; i++) {
        cl_update_x (q0, q0, out, f, 1, i, &kp, 0.7, 1.2);
        before += q0[cl_idx (CL_DENS, 1, i, nxl, nz)];
        after += out[cl_idx (CL_DENS, 1, i, nxl, nz)];
    }
    ok (fabs (after - before) < 1e-14,
        "a periodic row's mass is unchanged by an "
        "x update, jet included (%.3g)",
        after - before);
    free (q0);
    free (out);
    free (f);
}

static void test_wall_ghosts (void)
{
    int nxl = 2, nz = 8;
    struct climate_kparams kp = small_kp (nxl, nz);
    double *q = calloc (CL_NV * (nz + 2 * CL_HS) * (nxl + 2 * CL_HS), sizeof (double));
    int good = 1;

    for (int v = 0; v < CL_NV; v++)
        for (int k = 0; k < nz; k++)
            q[cl_idx (v, k, 1, nxl, nz)] = 2.0 + 0.5 * k - 0.25 * k * k;
    cl_wall_ghosts (q, 1, &kp);
    for (int g = 1; g <= CL_HS; g++) {
        double kb = -g, kt = nz - 1 + g;
        good &= fabs (q[cl_idx (CL_DENS, -g, 1, nxl, nz)]
                      - (2.0 + 0.5 * kb - 0.25 * kb * kb))
                < 1e-12;
        good &= fabs (q[cl_idx (CL_RHOT, nz - 1 + g, 1, nxl, nz)]
                      - (2.0 + 0.5 * kt - 0.25 * kt * kt))
                < 1e-12;
        good &= q[cl_idx (CL_WMOM, -g, 1, nxl, nz)]
                == -q[cl_idx (CL_WMOM, g - 1, 1, nxl, nz)];
    }
    ok (good, "wall ghosts: quadratics extrapolated exactly, rho w mirrored");
    free (q);
}

static void test_pow (void)
{
    double x[64], alone, worst = 0;
    int same = 1;
    for (int i = 0; i < 64; i++)
        x[i] = 100.0 + 7.31 * i;
    climate_pow_n (x, 64, 1004.0 / 717.0);
    for (int i = 0; i < 64; i++) {
        double exact = pow (100.0 + 7.31 * i, 1004.0 / 717.0);
        double ulps = fabs (x[i] - exact) / (nextafter (exact, INFINITY) - exact);
        if (ulps > worst)
            worst = ulps;
        alone = 100.0 + 7.31 * i;
        climate_pow_n (&alone, 1, 1004.0 / 717.0);
        same &= alone == x[i];
    }
    ok (worst <= 4, "climate_pow_n (%s) within 4 ulp of pow (%g)", climate_pow_path (),
        worst);
    ok (same, "a value's pow does not depend on the run it is in");
}

static void test_rest (void)
{
    struct climate_comm c = { 0, 1, 0 };
    const struct climate_case *cas = climate_case_find ("thermal");
    struct climate_model *m =
        climate_model_create (cas, &climate_cpu_backend, 32, 16, 0, 32);
    int still = 1;

    ok (m != NULL, "a 32 x 16 thermal model");
    if (!m)
        return;
    memset (m->state, 0, m->nfield * sizeof (double));
    memset (m->stage, 0, m->nfield * sizeof (double));
    for (int s = 0; s < 6; s++) {
        climate_step (m, &c, m->dt);
        m->step++;
    }
    for (int v = 0; v < CL_NV; v++)
        for (int k = 0; k < m->nz; k++)
            for (int i = 0; i < m->nxl; i++)
                still &= m->state[cl_idx (v, k, i, m->nxl, m->nz)] == 0.0;
    ok (still, "air at rest stays exactly at rest through 6 steps");
    climate_model_destroy (m);
}

int main (void)
{
    plan (NO_PLAN);
    test_interp ();
    test_edges ();
    test_fluxes ();
    test_update_conserves ();
    test_wall_ghosts ();
    test_pow ();
    test_rest ();
    done_testing ();
}
