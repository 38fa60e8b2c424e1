/* cadence.c - see cadence.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <math.h>
#include <stdlib.h>

#include "scheduler/policy/cadence.h"

double cadence_young (double cost, double mtbi)
{
    if (cost <= 0 || mtbi <= 0)
        return 0;
    return sqrt (2 * cost * mtbi);
}

double cadence_young_daly (double cost, double mtbi)
{
    double x;

    if (cost <= 0 || mtbi <= 0)
        return 0;
    if (cost >= 2 * mtbi)
        return mtbi;
    x = cost / (2 * mtbi);
    return sqrt (2 * cost * mtbi) * (1 + sqrt (x) / 3 + x / 9) - cost;
}

double cadence_mtbi (double prior, double exposure, long interruptions)
{
    if (prior < 0)
        prior = 0;
    if (exposure < 0)
        exposure = 0;
    if (interruptions < 0)
        interruptions = 0;
    return (prior + exposure) / (1.0 + (double)interruptions);
}

double cadence_mtbi_combined (const double *m, int n)
{
    double rate = 0;

    for (int i = 0; i < n; i++) {
        if (m[i] <= 0)
            return 0;
        rate += 1 / m[i];
    }
    return rate > 0 ? 1 / rate : 0;
}

double cadence_bound (double t, double lo, double hi)
{
    if (hi > 0 && t > hi)
        t = hi;
    if (t < lo)
        t = lo;
    return t;
}

static int cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double cadence_median (double *v, int n)
{
    if (n <= 0)
        return 0;
    qsort (v, n, sizeof (*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
