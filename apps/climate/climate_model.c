/* climate_model.c - grid, hydrostatic background, initial state, sums.
 *
 * Cell averages are taken with 3 x 3 point Gauss-Legendre quadrature so the
 * initial state is as accurate as the 4th-order interpolation that uses it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "apps/climate/climate_model.h"
#include "apps/climate/climate_pow.h"

static const double gl_x[3] = { -0.774596669241483377, 0.0, 0.774596669241483377 };
static const double gl_w[3] = { 5.0 / 18.0, 8.0 / 18.0, 5.0 / 18.0 };

/* The balanced background at height z: density, rho theta and theta.
 * Neutral (N = 0): constant theta; stable: theta = theta0 exp(N^2 z / g).
 * The Exner function follows from hydrostatic balance d pi/dz = -g/(cp theta). */
static void background (double z, double bv, double *rho, double *rhot, double *theta)
{
    const double g = CLIMATE_GRAV, cp = CLIMATE_CP, rd = CLIMATE_RD;
    const double t0 = CLIMATE_THETA0;
    double th, exner;

    if (bv == 0.0) {
        th = t0;
        exner = 1.0 - g * z / (cp * t0);
    } else {
        double n2 = bv * bv;
        th = t0 * exp (n2 * z / g);
        exner = 1.0 + g * g / (cp * t0 * n2) * (exp (-n2 * z / g) - 1.0);
    }
    double p = CLIMATE_P0 * pow (exner, cp / rd);
    *rho = p / (rd * th * exner);
    *rhot = *rho * th;
    *theta = th;
}

static void set_params (struct climate_model *m)
{
    struct climate_kparams *kp = &m->kp;
    const double gamma = CLIMATE_CP / CLIMATE_CV;

    m->dx = CLIMATE_XLEN / m->nx;
    m->dz = CLIMATE_ZLEN / m->nz;
    m->dt = CLIMATE_CFL * fmin (m->dx, m->dz) / CLIMATE_MAXSPEED;
    memset (kp, 0, sizeof (*kp));
    kp->nxl = m->nxl;
    kp->nz = m->nz;
    kp->dx = m->dx;
    kp->dz = m->dz;
    kp->gamma = gamma;
    /* p = p0 (Rd rho theta / p0)^gamma = C0 (rho theta)^gamma */
    kp->c0 = pow (CLIMATE_RD, gamma) * pow (CLIMATE_P0, 1.0 - gamma);
    kp->grav = CLIMATE_GRAV;
    kp->hv_x = CLIMATE_HV_BETA * m->dx / (16.0 * m->dt);
    kp->hv_z = CLIMATE_HV_BETA * m->dz / (16.0 * m->dt);
    if (m->cas->injection) {
        /* columns with centres in [0, JET_X1): at least one */
        int ncol = (int)ceil (CLIMATE_JET_X1 / m->dx - 0.5);
        if (ncol < 1)
            ncol = 1;
        kp->jet_i1 = ncol - m->i0;
        if (kp->jet_i1 > m->nxl)
            kp->jet_i1 = m->nxl;
        kp->jk0 = (int)floor (CLIMATE_JET_Z0 / m->dz + 0.5);
        kp->jk1 = (int)floor (CLIMATE_JET_Z1 / m->dz + 0.5);
        if (kp->jk1 <= kp->jk0) /* coarse grids: at least one row */
            kp->jk1 = kp->jk0 + 1;
        kp->jet_u = CLIMATE_JET_U;
        kp->jet_tau = CLIMATE_JET_TAU;
    }
}

static void set_background (struct climate_model *m)
{
    double bv = m->cas->bv_freq, th;

    for (int k = 0; k < m->nz; k++) {
        double r = 0, rt = 0, rq, rtq;
        for (int q = 0; q < 3; q++) {
            double z = (k + 0.5 + 0.5 * gl_x[q]) * m->dz;
            background (z, bv, &rq, &rtq, &th);
            r += gl_w[q] * rq;
            rt += gl_w[q] * rtq;
        }
        m->rb_cell[k] = r;
        m->rtb_cell[k] = rt;
    }
    for (int k = 0; k <= m->nz; k++)
        background (k * m->dz, bv, &m->rb_edge[k], &m->rtb_edge[k], &th);
    /* p_bar = C0 (rho theta)_bar^gamma through the pow the fluxes use, so
     * that p' = C0 (rho theta)^gamma - p_bar is exactly 0 at rest */
    memcpy (m->pb_cell, m->rtb_cell, m->nz * sizeof (double));
    memcpy (m->pb_edge, m->rtb_edge, (m->nz + 1) * sizeof (double));
    climate_pow_n (m->pb_cell, m->nz, m->kp.gamma);
    climate_pow_n (m->pb_edge, m->nz + 1, m->kp.gamma);
    for (int k = 0; k < m->nz; k++)
        m->pb_cell[k] = cl_pressure (m->pb_cell[k], &m->kp, 0.0);
    for (int k = 0; k <= m->nz; k++)
        m->pb_edge[k] = cl_pressure (m->pb_edge[k], &m->kp, 0.0);
}

/* The perturbation is added to theta at constant rho theta (so constant
 * pressure): rho' = rhot_bar / (theta_bar + theta') - rho_bar, written so
 * that it does not cancel. */
static void set_initial (struct climate_model *m)
{
    const struct climate_case *c = m->cas;
    int nxl = m->nxl, nz = m->nz;

    memset (m->state, 0, m->nfield * sizeof (double));
    for (int k = 0; k < nz; k++)
        for (int i = 0; i < nxl; i++) {
            double dr = 0, ru = 0;
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) {
                    double x = (m->i0 + i + 0.5 + 0.5 * gl_x[a]) * m->dx;
                    double z = (k + 0.5 + 0.5 * gl_x[b]) * m->dz;
                    double rb, rtb, thb;
                    background (z, c->bv_freq, &rb, &rtb, &thb);
                    double tp = c->theta_prime (x, z);
                    double rp = -rtb * tp / (thb * (thb + tp));
                    double w = gl_w[a] * gl_w[b];
                    dr += w * rp;
                    ru += w * (rb + rp) * c->wind;
                }
            m->state[cl_idx (CL_DENS, k, i, nxl, nz)] = dr;
            m->state[cl_idx (CL_UMOM, k, i, nxl, nz)] = ru;
        }
}

struct climate_model *climate_model_create (const struct climate_case *c,
                                            const struct climate_backend *be, int nx,
                                            int nz, int i0, int nxl)
{
    struct climate_model *m = calloc (1, sizeof (*m));

    if (!m)
        return NULL;
    m->cas = c;
    m->be = be;
    m->nx = nx;
    m->nz = nz;
    m->i0 = i0;
    m->nxl = nxl;
    set_params (m);
    m->nfield = (size_t)CL_NV * (nz + 2 * CL_HS) * (nxl + 2 * CL_HS);
    m->nflux = (size_t)CL_NV * (nz + 1) * (nxl + 1);
    m->nhalo = (size_t)CL_NV * nz * CL_HS;
    m->rb_cell = be->alloc (3 * nz * sizeof (double));
    m->rb_edge = be->alloc (3 * (nz + 1) * sizeof (double));
    m->state = be->alloc (m->nfield * sizeof (double));
    m->stage = be->alloc (m->nfield * sizeof (double));
    m->flux = be->alloc (m->nflux * sizeof (double));
    m->halo_buf = be->alloc (4 * m->nhalo * sizeof (double));
    if (!m->rb_cell || !m->rb_edge || !m->state || !m->stage || !m->flux
        || !m->halo_buf) {
        climate_model_destroy (m);
        errno = ENOMEM;
        return NULL;
    }
    m->rtb_cell = m->rb_cell + nz;
    m->pb_cell = m->rb_cell + 2 * nz;
    m->rtb_edge = m->rb_edge + (nz + 1);
    m->pb_edge = m->rb_edge + 2 * (nz + 1);
    memset (m->flux, 0, m->nflux * sizeof (double));
    set_background (m);
    set_initial (m);
    memcpy (m->stage, m->state, m->nfield * sizeof (double));
    return m;
}

void climate_model_destroy (struct climate_model *m)
{
    if (!m)
        return;
    int saved = errno;
    m->be->release (m->rb_cell);
    m->be->release (m->rb_edge);
    m->be->release (m->state);
    m->be->release (m->stage);
    m->be->release (m->flux);
    m->be->release (m->halo_buf);
    free (m);
    errno = saved;
}

void climate_model_pack (struct climate_model *m, double *out)
{
    int nxl = m->nxl, nz = m->nz;

    m->be->sync ();
    for (int v = 0; v < CL_NV; v++)
        for (int k = 0; k < nz; k++)
            memcpy (out + ((size_t)v * nz + k) * nxl,
                    m->state + cl_idx (v, k, 0, nxl, nz), nxl * sizeof (double));
}

void climate_model_unpack (struct climate_model *m, const double *in)
{
    int nxl = m->nxl, nz = m->nz;

    m->be->sync ();
    for (int v = 0; v < CL_NV; v++)
        for (int k = 0; k < nz; k++)
            memcpy (m->state + cl_idx (v, k, 0, nxl, nz),
                    in + ((size_t)v * nz + k) * nxl, nxl * sizeof (double));
}

/* Compensated (Kahan) sum: totals over a million cells keep round-off near
 * one ulp, which the 1e-13 mass check relies on. */
struct ksum {
    double s, c;
};

static void ksum_add (struct ksum *k, double x)
{
    double y = x - k->c;
    double t = k->s + y;
    k->c = (t - k->s) - y;
    k->s = t;
}

void climate_model_sums (struct climate_model *m, double *mass_prime, double *mass_bg,
                         double *energy)
{
    const struct climate_kparams *kp = &m->kp;
    int nxl = m->nxl, nz = m->nz;
    struct ksum mp = { 0, 0 }, mb = { 0, 0 }, en = { 0, 0 };
    double area = m->dx * m->dz;

    m->be->sync ();
    for (int k = 0; k < nz; k++) {
        double z = (k + 0.5) * m->dz;
        for (int i = 0; i < nxl; i++) {
            const double *q = m->state;
            double rp = q[cl_idx (CL_DENS, k, i, nxl, nz)];
            double r = m->rb_cell[k] + rp;
            double ru = q[cl_idx (CL_UMOM, k, i, nxl, nz)];
            double rw = q[cl_idx (CL_WMOM, k, i, nxl, nz)];
            double rt = m->rtb_cell[k] + q[cl_idx (CL_RHOT, k, i, nxl, nz)];
            double p = kp->c0 * pow (rt, kp->gamma);
            ksum_add (&mp, rp * area);
            ksum_add (&mb, m->rb_cell[k] * area);
            ksum_add (&en, ((ru * ru + rw * rw) / (2.0 * r) + p / (kp->gamma - 1.0)
                            + r * kp->grav * z)
                               * area);
        }
    }
    *mass_prime = mp.s;
    *mass_bg = mb.s;
    *energy = en.s;
}
