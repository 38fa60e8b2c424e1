/* force.c - see force.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "apps/md/force.h"

struct md_force *force_create (double cutoff)
{
    struct md_force *fc = calloc (1, sizeof (*fc));
    if (!fc)
        return NULL;
    fc->cutoff = cutoff;
#ifdef _OPENMP
    fc->nthreads = omp_get_max_threads ();
#else
    fc->nthreads = 1;
#endif
    return fc;
}

void force_destroy (struct md_force *fc)
{
    if (!fc)
        return;
    int saved = errno;
    free (fc->buf);
    free (fc);
    errno = saved;
}

/* Atoms [i0, i1) into force arrays f (which may be a thread's private
 * copy).  Always inlined with constant eflag, so the energy-free variant
 * that runs most steps carries no energy arithmetic. */
static inline __attribute__ ((always_inline))
void lj_range (const struct md_neigh *nl, const struct md_atoms *a,
               double cut2, long i0, long i1, double *restrict fx,
               double *restrict fy, double *restrict fz, int eflag,
               double *pe, double *vir)
{
    const double *restrict x = a->x[0], *restrict y = a->x[1],
        *restrict z = a->x[2];
    double e = 0, w = 0;
    for (long i = i0; i < i1; i++) {
        const double xi = x[i], yi = y[i], zi = z[i];
        double fxi = 0, fyi = 0, fzi = 0;
        const int *jl = nl->neigh + nl->first[i];
        const int nloc = nl->nloc[i];
        const int nall = (int)(nl->first[i + 1] - nl->first[i]);
        for (int k = 0; k < nloc; k++) {
            const int j = jl[k];
            double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
            double rsq = dx * dx + dy * dy + dz * dz;
            if (rsq < cut2) {
                double r2inv = 1.0 / rsq;
                double r6inv = r2inv * r2inv * r2inv;
                double fpair = r6inv * (48.0 * r6inv - 24.0) * r2inv;
                fxi += dx * fpair;
                fyi += dy * fpair;
                fzi += dz * fpair;
                fx[j] -= dx * fpair;
                fy[j] -= dy * fpair;
                fz[j] -= dz * fpair;
                if (eflag) {
                    e += 4.0 * r6inv * (r6inv - 1.0);
                    w += rsq * fpair;
                }
            }
        }
        /* Ghost partners: the other rank (or image) counts the pair too,
         * so half the energy and virial here and no force on j. */
        for (int k = nloc; k < nall; k++) {
            const int j = jl[k];
            double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
            double rsq = dx * dx + dy * dy + dz * dz;
            if (rsq < cut2) {
                double r2inv = 1.0 / rsq;
                double r6inv = r2inv * r2inv * r2inv;
                double fpair = r6inv * (48.0 * r6inv - 24.0) * r2inv;
                fxi += dx * fpair;
                fyi += dy * fpair;
                fzi += dz * fpair;
                if (eflag) {
                    e += 2.0 * r6inv * (r6inv - 1.0);
                    w += 0.5 * rsq * fpair;
                }
            }
        }
        fx[i] += fxi;
        fy[i] += fyi;
        fz[i] += fzi;
    }
    if (eflag) {
        *pe += e;
        *vir += w;
    }
}

static void lj_serial (struct md_force *fc, const struct md_neigh *nl,
                       struct md_atoms *a, int eflag, double *pe, double *vir)
{
    long n = a->nlocal;
    double cut2 = fc->cutoff * fc->cutoff;
    for (int d = 0; d < 3; d++)
        memset (a->f[d], 0, n * sizeof (double));
    if (eflag)
        lj_range (nl, a, cut2, 0, n, a->f[0], a->f[1], a->f[2], 1, pe, vir);
    else
        lj_range (nl, a, cut2, 0, n, a->f[0], a->f[1], a->f[2], 0, pe, vir);
}

/* Each thread takes a fixed block of atoms and its own force arrays;
 * partial sums are combined in thread order (deterministic). */
static int lj_threaded (struct md_force *fc, const struct md_neigh *nl,
                        struct md_atoms *a, int eflag, double *pe,
                        double *vir)
{
    long n = a->nlocal;
    int nt = fc->nthreads;
    double cut2 = fc->cutoff * fc->cutoff;
    double part[2 * 256];
    if (nt > 256)
        nt = 256;
    if (n > fc->bufcap) {
        free (fc->buf);
        fc->bufcap = n + n / 4 + 64;
        if (!(fc->buf = malloc (3 * nt * fc->bufcap * sizeof (double)))) {
            fc->bufcap = 0;
            errno = ENOMEM;
            return -1;
        }
    }
    #pragma omp parallel num_threads(nt)
    {
#ifdef _OPENMP
        int t = omp_get_thread_num (), nth = omp_get_num_threads ();
#else
        int t = 0, nth = 1;
#endif
        double *f = fc->buf + 3 * t * fc->bufcap;
        double *fx = f, *fy = f + fc->bufcap, *fz = f + 2 * fc->bufcap;
        long i0 = n * t / nth, i1 = n * (t + 1) / nth;
        memset (fx, 0, n * sizeof (double));
        memset (fy, 0, n * sizeof (double));
        memset (fz, 0, n * sizeof (double));
        part[2 * t] = part[2 * t + 1] = 0;
        if (eflag)
            lj_range (nl, a, cut2, i0, i1, fx, fy, fz, 1, &part[2 * t],
                      &part[2 * t + 1]);
        else
            lj_range (nl, a, cut2, i0, i1, fx, fy, fz, 0, NULL, NULL);
        #pragma omp barrier
        /* Sum the copies over atoms this thread owns, threads in order. */
        for (int d = 0; d < 3; d++) {
            double *out = a->f[d];
            for (long i = i0; i < i1; i++) {
                double s = 0;
                for (int u = 0; u < nth; u++)
                    s += fc->buf[(3 * u + d) * fc->bufcap + i];
                out[i] = s;
            }
        }
        #pragma omp single
        nt = nth;
    }
    if (eflag)
        for (int t = 0; t < nt; t++) {
            *pe += part[2 * t];
            *vir += part[2 * t + 1];
        }
    return 0;
}

int force_compute (struct md_force *fc, const struct md_neigh *nl,
                   struct md_atoms *a, int eflag, double *pe, double *vir)
{
    *pe = *vir = 0;
    if (fc->nthreads <= 1) {
        lj_serial (fc, nl, a, eflag, pe, vir);
        return 0;
    }
    return lj_threaded (fc, nl, a, eflag, pe, vir);
}
