/* system.c - see system.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "apps/md/system.h"

int system_alloc (struct md_system *sys, int ntypes)
{
    size_t n = (size_t)(ntypes + 1) * (ntypes + 1);
    memset (sys, 0, sizeof (*sys));
    sys->ntypes = ntypes;
    sys->mass = malloc ((ntypes + 1) * sizeof (double));
    sys->eps = malloc (n * sizeof (double));
    sys->sigma = malloc (n * sizeof (double));
    if (!sys->mass || !sys->eps || !sys->sigma) {
        system_release (sys);
        errno = ENOMEM;
        return -1;
    }
    for (int t = 0; t <= ntypes; t++)
        sys->mass[t] = NAN;
    for (size_t k = 0; k < n; k++)
        sys->eps[k] = sys->sigma[k] = NAN;
    return 0;
}

void system_release (struct md_system *sys)
{
    int saved = errno;
    free (sys->mass);
    free (sys->eps);
    free (sys->sigma);
    sys->mass = sys->eps = sys->sigma = NULL;
    errno = saved;
}

int system_lattice (struct md_system *sys, const struct md_params *p)
{
    double a = params_lattice_const (p);
    if (system_alloc (sys, 1) < 0)
        return -1;
    for (int d = 0; d < 3; d++) {
        sys->lo[d] = 0;
        sys->hi[d] = a * p->cells[d];
    }
    sys->natoms = 4L * p->cells[0] * p->cells[1] * p->cells[2];
    sys->mass[1] = 1.0;
    *system_eps (sys, 1, 1) = *system_sigma (sys, 1, 1) = 1.0;
    return 0;
}

int system_complete (struct md_system *sys, struct hpcq_error *err)
{
    int n = sys->ntypes;
    for (int i = 1; i <= n; i++)
        if (isnan (sys->mass[i]))
            return errprintf (err, "no mass for atom type %d", i);
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++) {
            int lo = i < j ? i : j, hi = i < j ? j : i;
            double *e = system_eps (sys, i, j), *s = system_sigma (sys, i, j);
            if (!sys->pair_ij && i != j) {
                *e = sqrt (*system_eps (sys, i, i) * *system_eps (sys, j, j));
                *s = sqrt (*system_sigma (sys, i, i) * *system_sigma (sys, j, j));
            } else if (i != lo) {
                *e = *system_eps (sys, lo, hi);
                *s = *system_sigma (sys, lo, hi);
            }
            if (isnan (*e) || isnan (*s))
                return errprintf (err,
                                  "no pair coefficients for atom types %d "
                                  "and %d",
                                  lo, hi);
        }
    return 0;
}

int system_is_reduced_lj (const struct md_system *sys)
{
    return sys->ntypes == 1 && sys->mass[1] == 1.0 && *system_eps (sys, 1, 1) == 1.0
           && *system_sigma (sys, 1, 1) == 1.0;
}

double system_volume (const struct md_system *sys)
{
    double v = 1;
    for (int d = 0; d < 3; d++)
        v *= sys->hi[d] - sys->lo[d];
    return v;
}
