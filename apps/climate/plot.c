/* plot.c - hpcq-climate-plot: render one field of a snapshot file to PNG.
 *
 *   hpcq-climate-plot FILE.nc VARIABLE OUT.png [RECORD]
 *
 * RECORD defaults to the last one; negative counts from the end.  Fields
 * with a sign (u, w, *_prime) use a blue-white-red scale symmetric about
 * zero, others blue to red from min to max.  Written with libpng.
 */
#include <config.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include <png.h>
#include <setjmp.h>

static void colour (double t, int diverging, unsigned char *rgb)
{
    double r, g, b;

    if (diverging) { /* t in [-1, 1]: blue, white, red */
        r = t < 0 ? 1 + t : 1;
        b = t > 0 ? 1 - t : 1;
        g = 1 - fabs (t);
    } else { /* t in [0, 1]: blue to red through green */
        r = t;
        g = 1 - fabs (2 * t - 1);
        b = 1 - t;
    }
    rgb[0] = (unsigned char)lrint (255 * r);
    rgb[1] = (unsigned char)lrint (255 * g);
    rgb[2] = (unsigned char)lrint (255 * b);
}

/* Rows of 8-bit RGB, top row first (z grows upwards in the model). */
static unsigned char *render (const double *v, int nx, int nz, int diverging,
                              double *lo, double *hi)
{
    unsigned char *rgb = malloc ((size_t)3 * nx * nz);
    double amax;

    *lo = *hi = v[0];
    for (size_t i = 0; i < (size_t)nx * nz; i++) {
        *lo = fmin (*lo, v[i]);
        *hi = fmax (*hi, v[i]);
    }
    amax = fmax (fabs (*lo), fabs (*hi));
    for (int k = 0; rgb && k < nz; k++) {
        const double *src = v + (size_t)(nz - 1 - k) * nx;
        for (int i = 0; i < nx; i++) {
            double t = diverging ? (amax > 0 ? src[i] / amax : 0)
                                 : (*hi > *lo ? (src[i] - *lo) / (*hi - *lo) : 0.5);
            colour (t, diverging, rgb + 3 * ((size_t)k * nx + i));
        }
    }
    return rgb;
}

/* libpng reports errors by longjmp back here: nothing this function
 * changes after setjmp lives in a register the jump could clobber. */
static int png_emit (FILE *f, const unsigned char *rgb, int nx, int nz)
{
    png_structp png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct (png) : NULL;
    volatile int rc = -1;

    if (info && setjmp (png_jmpbuf (png)) == 0) {
        png_init_io (png, f);
        png_set_IHDR (png, info, (png_uint_32)nx, (png_uint_32)nz, 8,
                      PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                      PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_write_info (png, info);
        for (int k = 0; k < nz; k++)
            png_write_row (png, rgb + (size_t)3 * nx * k);
        png_write_end (png, NULL);
        rc = 0;
    }
    if (png)
        png_destroy_write_struct (&png, info ? &info : NULL);
    return rc;
}

static int write_png (const char *path, const double *v, int nx, int nz, int diverging)
{
    double lo, hi;
    unsigned char *rgb = render (v, nx, nz, diverging, &lo, &hi);
    FILE *f = rgb ? fopen (path, "wb") : NULL;
    int rc = f ? png_emit (f, rgb, nx, nz) : -1;

    if (f && fclose (f) != 0)
        rc = -1;
    free (rgb);
    if (rc == 0)
        printf ("%s: %d x %d, range %.6g .. %.6g\n", path, nx, nz, lo, hi);
    return rc;
}

int main (int argc, char **argv)
{
    int id, var, dims[3], nd, st;
    size_t nt, nz, nx;

    if (argc < 4 || argc > 5) {
        fprintf (stderr,
                 "usage: hpcq-climate-plot FILE.nc VARIABLE OUT.png [RECORD]\n");
        return 2;
    }
    if ((st = nc_open (argv[1], NC_NOWRITE, &id))
        || (st = nc_inq_varid (id, argv[2], &var))
        || (st = nc_inq_varndims (id, var, &nd)) || nd != 3
        || (st = nc_inq_vardimid (id, var, dims))
        || (st = nc_inq_dimlen (id, dims[0], &nt))
        || (st = nc_inq_dimlen (id, dims[1], &nz))
        || (st = nc_inq_dimlen (id, dims[2], &nx))) {
        fprintf (stderr, "hpcq-climate-plot: cannot read '%s' from '%s': %s\n", argv[2],
                 argv[1], st ? nc_strerror (st) : "not a (time, z, x) field");
        return 2;
    }
    long rec = argc == 5 ? atol (argv[4]) : -1;
    if (rec < 0)
        rec += (long)nt;
    if (rec < 0 || (size_t)rec >= nt) {
        fprintf (stderr, "hpcq-climate-plot: no record %s in '%s' (%zu records)\n",
                 argc == 5 ? argv[4] : "-1", argv[1], nt);
        return 2;
    }
    size_t start[3] = { (size_t)rec, 0, 0 }, count[3] = { 1, nz, nx };
    double *v = malloc (nx * nz * sizeof (double));
    if (!v || (st = nc_get_vara_double (id, var, start, count, v))) {
        fprintf (stderr, "hpcq-climate-plot: cannot read '%s': %s\n", argv[1],
                 v ? nc_strerror (st) : "out of memory");
        return 1;
    }
    nc_close (id);
    int diverging = strcmp (argv[2], "u") == 0 || strcmp (argv[2], "w") == 0
                    || strstr (argv[2], "_prime") != NULL;
    int rc = write_png (argv[3], v, (int)nx, (int)nz, diverging);
    free (v);
    if (rc < 0) {
        fprintf (stderr, "hpcq-climate-plot: cannot write '%s'\n", argv[3]);
        return 1;
    }
    return 0;
}
