/* force.c - see force.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "apps/md/force.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

struct md_force *force_create (double cutoff, const struct md_system *sys)
{
    struct md_force *fc = calloc (1, sizeof (*fc));
    int n = sys->ntypes;
    if (!fc || !(fc->lj = malloc (4 * (size_t)(n + 1) * (n + 1) * sizeof (double)))) {
        free (fc);
        errno = ENOMEM;
        return NULL;
    }
    fc->cutoff = cutoff;
    fc->ntypes = n;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++) {
            double e = *system_eps (sys, i, j), sg = *system_sigma (sys, i, j);
            double *c = fc->lj + 4 * (i * (n + 1) + j);
            c[0] = 48.0 * e * pow (sg, 12.0);
            c[1] = 24.0 * e * pow (sg, 6.0);
            c[2] = 4.0 * e * pow (sg, 12.0);
            c[3] = 4.0 * e * pow (sg, 6.0);
        }
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
    free (fc->lj);
    free (fc);
    errno = saved;
}

/* Atoms [i0, i1) into force arrays f (which may be a thread's private
 * copy), partners local or ghost alike (Newton's third law for every
 * listed pair: the ghosts' forces go back to their owners afterwards).
 * Always inlined with constant eflag and multi, so the energy-free variant
 * that runs most steps carries no energy arithmetic, and a one-type
 * system keeps its coefficients in registers (multi = 0) while several
 * types look them up per pair. */
static inline __attribute__ ((always_inline)) void
lj_range (const struct md_force *fc, const struct md_neigh *nl,
          const struct md_atoms *a, double cut2, long i0, long i1, double *restrict fx,
          double *restrict fy, double *restrict fz, int eflag, int multi, double *pe,
          double *vir)
{
    const double *restrict x = a->x[0], *restrict y = a->x[1], *restrict z = a->x[2];
    const int32_t *restrict type = a->type;
    const long *first = nl->first;
    const int *restrict neigh = nl->neigh;
    const int nt1 = fc->ntypes + 1;
    double e = 0, w = 0;
    for (long i = i0; i < i1; i++) {
        const double xi = x[i], yi = y[i], zi = z[i];
        double fxi = 0, fyi = 0, fzi = 0;
        const int *restrict jl = neigh + first[i];
        const long nj = first[i + 1] - first[i];
        /* pair (type i, type j)'s lj1..lj4 at row[4 type j + k] */
        const double *restrict row = fc->lj + 4 * (multi ? type[i] * nt1 : nt1);
        const double c1 = row[4], c2 = row[5], c3 = row[6], c4 = row[7];
        long k = 0;
#ifdef __SSE2__
        /* Two partners at a time in SSE2 (every x86-64 has it): the same
         * operations in the same order per lane as the scalar loop
         * below, and the sums taken lane 0 then lane 1, so the result is
         * bitwise that of the scalar loop, with half the divisions. */
        const __m128d vxi = _mm_set1_pd (xi), vyi = _mm_set1_pd (yi),
                      vzi = _mm_set1_pd (zi), vcut2 = _mm_set1_pd (cut2),
                      one = _mm_set1_pd (1.0);
        __m128d l1 = _mm_set1_pd (c1), l2 = _mm_set1_pd (c2), l3 = _mm_set1_pd (c3),
                l4 = _mm_set1_pd (c4);
        for (; k + 1 < nj; k += 2) {
            const int j0 = jl[k], j1 = jl[k + 1];
            if (multi) {
                const double *r0 = row + 4 * type[j0], *r1 = row + 4 * type[j1];
                l1 = _mm_set_pd (r1[0], r0[0]);
                l2 = _mm_set_pd (r1[1], r0[1]);
                l3 = _mm_set_pd (r1[2], r0[2]);
                l4 = _mm_set_pd (r1[3], r0[3]);
            }
            __m128d dx = _mm_sub_pd (vxi, _mm_loadh_pd (_mm_load_sd (&x[j0]), &x[j1]));
            __m128d dy = _mm_sub_pd (vyi, _mm_loadh_pd (_mm_load_sd (&y[j0]), &y[j1]));
            __m128d dz = _mm_sub_pd (vzi, _mm_loadh_pd (_mm_load_sd (&z[j0]), &z[j1]));
            __m128d rsq =
                _mm_add_pd (_mm_add_pd (_mm_mul_pd (dx, dx), _mm_mul_pd (dy, dy)),
                            _mm_mul_pd (dz, dz));
            __m128d in = _mm_and_pd (_mm_cmplt_pd (rsq, vcut2), one);
            __m128d r2inv = _mm_div_pd (one, rsq);
            __m128d r6inv = _mm_mul_pd (_mm_mul_pd (r2inv, r2inv), r2inv);
            __m128d fpair =
                _mm_mul_pd (_mm_mul_pd (_mm_mul_pd (in, r6inv),
                                        _mm_sub_pd (_mm_mul_pd (l1, r6inv), l2)),
                            r2inv);
            double ax[2], ay[2], az[2];
            _mm_storeu_pd (ax, _mm_mul_pd (dx, fpair));
            _mm_storeu_pd (ay, _mm_mul_pd (dy, fpair));
            _mm_storeu_pd (az, _mm_mul_pd (dz, fpair));
            fxi += ax[0];
            fyi += ay[0];
            fzi += az[0];
            fx[j0] -= ax[0];
            fy[j0] -= ay[0];
            fz[j0] -= az[0];
            fxi += ax[1];
            fyi += ay[1];
            fzi += az[1];
            fx[j1] -= ax[1];
            fy[j1] -= ay[1];
            fz[j1] -= az[1];
            if (eflag) {
                double ev[2], wv[2];
                _mm_storeu_pd (ev,
                               _mm_mul_pd (_mm_mul_pd (in, r6inv),
                                           _mm_sub_pd (_mm_mul_pd (l3, r6inv), l4)));
                _mm_storeu_pd (wv, _mm_mul_pd (rsq, fpair));
                e += ev[0];
                w += wv[0];
                e += ev[1];
                w += wv[1];
            }
        }
#endif
        for (; k < nj; k++) {
            const int j = jl[k];
            const double *r = multi ? row + 4 * type[j] : row + 4;
            double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
            double rsq = dx * dx + dy * dy + dz * dz;
            /* every listed pair is computed and those beyond the cutoff
             * weighted by 0: no hard-to-predict branch (rsq > 0 always) */
            const double in = rsq < cut2 ? 1.0 : 0.0;
            double r2inv = 1.0 / rsq;
            double r6inv = r2inv * r2inv * r2inv;
            double fpair = in * r6inv * (r[0] * r6inv - r[1]) * r2inv;
            fxi += dx * fpair;
            fyi += dy * fpair;
            fzi += dz * fpair;
            fx[j] -= dx * fpair;
            fy[j] -= dy * fpair;
            fz[j] -= dz * fpair;
            if (eflag) {
                e += in * r6inv * (r[2] * r6inv - r[3]);
                w += rsq * fpair;
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

/* lj_range with its constant arguments spelled out, one variant each. */
static void lj_block (const struct md_force *fc, const struct md_neigh *nl,
                      const struct md_atoms *a, long i0, long i1, double *fx,
                      double *fy, double *fz, int eflag, double *pe, double *vir)
{
    double cut2 = fc->cutoff * fc->cutoff;
    int multi = fc->ntypes > 1;
    if (eflag && multi)
        lj_range (fc, nl, a, cut2, i0, i1, fx, fy, fz, 1, 1, pe, vir);
    else if (eflag)
        lj_range (fc, nl, a, cut2, i0, i1, fx, fy, fz, 1, 0, pe, vir);
    else if (multi)
        lj_range (fc, nl, a, cut2, i0, i1, fx, fy, fz, 0, 1, pe, vir);
    else
        lj_range (fc, nl, a, cut2, i0, i1, fx, fy, fz, 0, 0, pe, vir);
}

static void lj_serial (struct md_force *fc, const struct md_neigh *nl,
                       struct md_atoms *a, int eflag, double *pe, double *vir)
{
    long n = a->nlocal, nall = a->nlocal + a->nghost;
    for (int d = 0; d < 3; d++)
        memset (a->f[d], 0, nall * sizeof (double));
    lj_block (fc, nl, a, 0, n, a->f[0], a->f[1], a->f[2], eflag, pe, vir);
}

/* Each thread takes a fixed block of atoms and its own force arrays
 * (local and ghost atoms); partial sums are combined in thread order
 * (deterministic). */
static int lj_threaded (struct md_force *fc, const struct md_neigh *nl,
                        struct md_atoms *a, int eflag, double *pe, double *vir)
{
    long n = a->nlocal, nall = a->nlocal + a->nghost;
    int nt = fc->nthreads;
    double part[2 * 256];
    if (nt > 256)
        nt = 256;
    if (nall > fc->bufcap) {
        free (fc->buf);
        fc->bufcap = nall + nall / 4 + 64;
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
        memset (fx, 0, nall * sizeof (double));
        memset (fy, 0, nall * sizeof (double));
        memset (fz, 0, nall * sizeof (double));
        part[2 * t] = part[2 * t + 1] = 0;
        lj_block (fc, nl, a, i0, i1, fx, fy, fz, eflag, &part[2 * t], &part[2 * t + 1]);
#pragma omp barrier
        /* Sum the copies over a block of atoms (ghosts too), threads in
         * order. */
        long s0 = nall * t / nth, s1 = nall * (t + 1) / nth;
        for (int d = 0; d < 3; d++) {
            double *out = a->f[d];
            for (long i = s0; i < s1; i++) {
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

int force_compute (struct md_force *fc, const struct md_neigh *nl, struct md_atoms *a,
                   int eflag, double *pe, double *vir)
{
    *pe = *vir = 0;
    if (fc->nthreads <= 1) {
        lj_serial (fc, nl, a, eflag, pe, vir);
        return 0;
    }
    return lj_threaded (fc, nl, a, eflag, pe, vir);
}
