/* lattice.c - see lattice.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <math.h>

#include "apps/md/comm.h"
#include "apps/md/lattice.h"

static const double fcc_basis[4][3] = {
    { 0.0, 0.0, 0.0 },
    { 0.5, 0.5, 0.0 },
    { 0.5, 0.0, 0.5 },
    { 0.0, 0.5, 0.5 },
};

int lattice_create (const struct md_params *p, const struct md_domain *dom,
                    struct md_atoms *a)
{
    double lc = params_lattice_const (p);
    int64_t id = 0;
    a->nlocal = a->nghost = 0;
    for (int k = 0; k < p->cells[2]; k++)
        for (int j = 0; j < p->cells[1]; j++)
            for (int i = 0; i < p->cells[0]; i++)
                for (int m = 0; m < 4; m++) {
                    double x[3] = { (i + fcc_basis[m][0]) * lc,
                                    (j + fcc_basis[m][1]) * lc,
                                    (k + fcc_basis[m][2]) * lc };
                    id++;
                    if (!domain_owns (dom, x))
                        continue;
                    if (atoms_reserve (a, a->nlocal + 1) < 0)
                        return -1;
                    for (int d = 0; d < 3; d++) {
                        a->x[d][a->nlocal] = x[d];
                        a->xb[d][a->nlocal] = x[d];
                        a->v[d][a->nlocal] = 0;
                        a->f[d][a->nlocal] = 0;
                        a->img[3 * a->nlocal + d] = 0;
                    }
                    a->type[a->nlocal] = 1;
                    a->id[a->nlocal++] = id;
                }
    return 0;
}

/* splitmix64's finaliser: a good 64-bit mix, cheap enough per atom. */
static uint64_t mix64 (uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double lattice_uniform (uint64_t seed, uint64_t id, uint64_t stream)
{
    uint64_t h = mix64 (seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL);
    h = mix64 (h ^ (id * 0xd1b54a32d192ed03ULL));
    h = mix64 (h ^ (stream * 0x8cb92ba72f3d8dd7ULL + 1));
    return (h >> 11) * 0x1.0p-53;
}

void lattice_velocities (const struct md_params *p, struct md_atoms *a, long natoms)
{
    double mom[3] = { 0, 0, 0 }, ke = 0;
    for (long i = 0; i < a->nlocal; i++)
        for (int d = 0; d < 3; d++) {
            a->v[d][i] = lattice_uniform (p->seed, (uint64_t)a->id[i], d) - 0.5;
            mom[d] += a->v[d][i];
        }
    comm_sum (mom, 3);
    for (long i = 0; i < a->nlocal; i++)
        for (int d = 0; d < 3; d++) {
            a->v[d][i] -= mom[d] / natoms;
            ke += a->v[d][i] * a->v[d][i];
        }
    comm_sum (&ke, 1);
    double t = ke / (3.0 * natoms - 3.0);
    double scale = sqrt (p->temp / t);
    for (int d = 0; d < 3; d++)
        for (long i = 0; i < a->nlocal; i++)
            a->v[d][i] *= scale;
}
