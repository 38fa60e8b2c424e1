/* climate_output.c - see climate_output.h */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_NETCDF
#include <netcdf.h>
#endif

#include "apps/climate/climate_model.h"
#include "apps/climate/climate_output.h"

#ifdef HAVE_NETCDF

enum { OV_RHO, OV_U, OV_W, OV_THETA, OV_THETAP, OV_PP, OV_N };

static const struct {
    const char *name, *units, *long_name, *standard_name;
} out_vars[OV_N] = {
    { "rho", "kg m-3", "air density", "air_density" },
    { "u", "m s-1", "horizontal (x) wind", "eastward_wind" },
    { "w", "m s-1", "vertical wind", "upward_air_velocity" },
    { "theta", "K", "potential temperature", "air_potential_temperature" },
    { "theta_prime", "K", "potential temperature minus the background", NULL },
    { "p_prime", "Pa", "pressure minus the hydrostatic background", NULL },
};

struct climate_output {
    int ncid;
    int time_var, var[OV_N];
    size_t rec;  /* next record index */
    double *buf; /* one field, nz * nx */
};

static int nc_fail (struct hpcq_error *err, const char *path, const char *what,
                    int status)
{
    errno = EIO;
    return errprintf (err, "%s '%s': %s", what, path, nc_strerror (status));
}

static int put_text (int ncid, int var, const char *name, const char *val)
{
    return nc_put_att_text (ncid, var, name, strlen (val), val);
}

/* Define dimensions, coordinates and variables, then write x and z. */
static int define (struct climate_output *o, const struct climate_model *m)
{
    int id = o->ncid, dt, dz, dx, vx, vz, rc;
    int dims[3];

    if ((rc = nc_def_dim (id, "time", NC_UNLIMITED, &dt))
        || (rc = nc_def_dim (id, "z", (size_t)m->nz, &dz))
        || (rc = nc_def_dim (id, "x", (size_t)m->nx, &dx)))
        return rc;
    if ((rc = nc_def_var (id, "time", NC_DOUBLE, 1, &dt, &o->time_var))
        || (rc = put_text (id, o->time_var, "units", "s"))
        || (rc = put_text (id, o->time_var, "long_name", "time since the start"))
        || (rc = put_text (id, o->time_var, "axis", "T"))
        || (rc = nc_def_var (id, "x", NC_DOUBLE, 1, &dx, &vx))
        || (rc = put_text (id, vx, "units", "m"))
        || (rc = put_text (id, vx, "long_name", "horizontal position (cell centre)"))
        || (rc = put_text (id, vx, "axis", "X"))
        || (rc = nc_def_var (id, "z", NC_DOUBLE, 1, &dz, &vz))
        || (rc = put_text (id, vz, "units", "m"))
        || (rc = put_text (id, vz, "long_name", "height (cell centre)"))
        || (rc = put_text (id, vz, "positive", "up"))
        || (rc = put_text (id, vz, "axis", "Z")))
        return rc;
    dims[0] = dt;
    dims[1] = dz;
    dims[2] = dx;
    for (int v = 0; v < OV_N; v++) {
        if ((rc = nc_def_var (id, out_vars[v].name, NC_DOUBLE, 3, dims, &o->var[v]))
            || (rc = put_text (id, o->var[v], "units", out_vars[v].units))
            || (rc = put_text (id, o->var[v], "long_name", out_vars[v].long_name)))
            return rc;
        if (out_vars[v].standard_name
            && (rc = put_text (id, o->var[v], "standard_name",
                               out_vars[v].standard_name)))
            return rc;
    }
    if ((rc = put_text (id, NC_GLOBAL, "Conventions", "CF-1.8"))
        || (rc = put_text (id, NC_GLOBAL, "title", m->cas->name))
        || (rc = put_text (id, NC_GLOBAL, "source",
                           "hpcq-climate: 2D compressible Euler, finite volume"))
        || (rc = nc_enddef (id)))
        return rc;
    double *c = malloc ((size_t)(m->nx > m->nz ? m->nx : m->nz) * sizeof (double));
    if (!c)
        return NC_ENOMEM;
    for (int i = 0; i < m->nx; i++)
        c[i] = (i + 0.5) * m->dx;
    rc = nc_put_var_double (id, vx, c);
    for (int k = 0; rc == 0 && k < m->nz; k++)
        c[k] = (k + 0.5) * m->dz;
    if (rc == 0)
        rc = nc_put_var_double (id, vz, c);
    free (c);
    return rc;
}

/* Reopen an existing file: find the variables and the first record at or
 * after time t (those are overwritten by the continued run). */
static int reopen (struct climate_output *o, const char *path, double t)
{
    int rc, dim;
    size_t n;

    if ((rc = nc_open (path, NC_WRITE, &o->ncid)))
        return rc;
    if ((rc = nc_inq_varid (o->ncid, "time", &o->time_var))
        || (rc = nc_inq_dimid (o->ncid, "time", &dim))
        || (rc = nc_inq_dimlen (o->ncid, dim, &n)))
        return rc;
    for (int v = 0; v < OV_N; v++)
        if ((rc = nc_inq_varid (o->ncid, out_vars[v].name, &o->var[v])))
            return rc;
    o->rec = 0;
    while (o->rec < n) {
        double tv;
        if ((rc = nc_get_var1_double (o->ncid, o->time_var, &o->rec, &tv)))
            return rc;
        if (tv > t)
            break;
        o->rec++;
    }
    return 0;
}

struct climate_output *climate_output_open (const char *path,
                                            const struct climate_model *m, int append,
                                            double t, struct hpcq_error *err)
{
    struct climate_output *o = calloc (1, sizeof (*o));
    int rc;

    if (!o || !(o->buf = malloc ((size_t)m->nx * m->nz * sizeof (double)))) {
        errprintf (err, "out of memory");
        goto fail;
    }
    o->ncid = -1;
    if (append && access (path, F_OK) == 0) {
        if ((rc = reopen (o, path, t))) {
            nc_fail (err, path, "cannot append to", rc);
            goto fail;
        }
        return o;
    }
    if ((rc = nc_create (path, NC_NETCDF4 | NC_CLOBBER, &o->ncid))) {
        nc_fail (err, path, "cannot create", rc);
        goto fail;
    }
    if ((rc = define (o, m))) {
        nc_fail (err, path, "cannot define", rc);
        goto fail;
    }
    return o;
fail:
    if (o && o->ncid >= 0)
        nc_close (o->ncid);
    if (o)
        free (o->buf);
    free (o);
    return NULL;
}

/* One output field from the prognostic perturbation fields. */
static void derive (const struct climate_model *m, const double *g, int v, double *out)
{
    size_t plane = (size_t)m->nz * m->nx;
    const struct climate_kparams *kp = &m->kp;

    for (int k = 0; k < m->nz; k++)
        for (int i = 0; i < m->nx; i++) {
            size_t n = (size_t)k * m->nx + i;
            double rp = g[CL_DENS * plane + n];
            double r = m->rb_cell[k] + rp;
            double rt = m->rtb_cell[k] + g[CL_RHOT * plane + n];
            double x = 0;
            switch (v) {
            case OV_RHO: x = r; break;
            case OV_U: x = g[CL_UMOM * plane + n] / r; break;
            case OV_W: x = g[CL_WMOM * plane + n] / r; break;
            case OV_THETA: x = rt / r; break;
            case OV_THETAP: x = rt / r - m->rtb_cell[k] / m->rb_cell[k]; break;
            case OV_PP: x = kp->c0 * pow (rt, kp->gamma) - m->pb_cell[k]; break;
            }
            out[n] = x;
        }
}

int climate_output_write (struct climate_output *o, const struct climate_model *m,
                          double t, const double *global, struct hpcq_error *err)
{
    size_t start[3] = { o->rec, 0, 0 };
    size_t count[3] = { 1, (size_t)m->nz, (size_t)m->nx };
    int rc;

    if ((rc = nc_put_var1_double (o->ncid, o->time_var, &o->rec, &t)))
        return nc_fail (err, "output", "cannot write time to", rc);
    for (int v = 0; v < OV_N; v++) {
        derive (m, global, v, o->buf);
        if ((rc = nc_put_vara_double (o->ncid, o->var[v], start, count, o->buf)))
            return nc_fail (err, out_vars[v].name, "cannot write", rc);
    }
    o->rec++;
    if ((rc = nc_sync (o->ncid)))
        return nc_fail (err, "output", "cannot sync", rc);
    return 0;
}

int climate_output_close (struct climate_output *o, struct hpcq_error *err)
{
    int rc = 0;

    if (!o)
        return 0;
    int st = nc_close (o->ncid);
    if (st)
        rc = nc_fail (err, "output", "cannot close", st);
    free (o->buf);
    free (o);
    return rc;
}

#else /* !HAVE_NETCDF */

struct climate_output *climate_output_open (const char *path,
                                            const struct climate_model *m, int append,
                                            double t, struct hpcq_error *err)
{
    errno = ENOTSUP;
    errprintf (err, "cannot write '%s': built without NetCDF", path);
    return NULL;
}

int climate_output_write (struct climate_output *o, const struct climate_model *m,
                          double t, const double *global, struct hpcq_error *err)
{
    return errprintf (err, "built without NetCDF");
}

int climate_output_close (struct climate_output *o, struct hpcq_error *err)
{
    return 0;
}

#endif
