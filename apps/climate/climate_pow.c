/* climate_pow.c - see climate_pow.h. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <math.h>

#include "apps/climate/climate_pow.h"

#if defined(HAVE_LIBMVEC) && defined(__x86_64__)
#include <immintrin.h>

/* glibc's AVX2 vector pow (x86_64 vector ABI name of pow, 4 lanes). */
__m256d _ZGVdN4vv_pow (__m256d x, __m256d y);

/* Every value goes through the vector pow, the tail too (padded with
 * its last value), so a value's result never depends on where in a run
 * it falls: runs are cut differently on different rank counts. */
__attribute__ ((target ("avx2"))) static void pow_avx2 (double *x, int n, double y)
{
    __m256d vy = _mm256_set1_pd (y);
    int i = 0;

    for (; i + 4 <= n; i += 4)
        _mm256_storeu_pd (x + i, _ZGVdN4vv_pow (_mm256_loadu_pd (x + i), vy));
    if (i < n) {
        double t[4];
        for (int j = 0; j < 4; j++)
            t[j] = x[i + j < n ? i + j : n - 1];
        _mm256_storeu_pd (t, _ZGVdN4vv_pow (_mm256_loadu_pd (t), vy));
        for (int j = 0; i + j < n; j++)
            x[i + j] = t[j];
    }
}

static int use_avx2 (void)
{
    static int have = -1;

    if (have < 0)
        have = __builtin_cpu_supports ("avx2") ? 1 : 0;
    return have;
}
#else
static void pow_avx2 (double *x, int n, double y)
{
    (void)x;
    (void)n;
    (void)y;
}

static int use_avx2 (void)
{
    return 0;
}
#endif

void climate_pow_n (double *x, int n, double y)
{
    if (use_avx2 ()) {
        pow_avx2 (x, n, y);
        return;
    }
    for (int i = 0; i < n; i++)
        x[i] = pow (x[i], y);
}

const char *climate_pow_path (void)
{
    return use_avx2 () ? "avx2" : "scalar";
}
