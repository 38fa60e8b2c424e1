/* backend_cpu.c - the CPU back end: OpenMP loops over the SoA arrays. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdint.h>

#include "apps/md/backend.h"
#include "apps/md/force.h"
#include "apps/md/sim.h"

static int cpu_init (struct md_sim *s)
{
    return 0;
}

static void cpu_fini (struct md_sim *s)
{
}

/* LAMMPS's fix nve: v += dtf/m f; x += dt v, with dtf/m per type
 * (s->dtfm) as LAMMPS computes it. */
static void cpu_integrate1 (struct md_sim *s)
{
    struct md_atoms *a = s->a;
    const double dt = s->p.dt, *dtfm = s->dtfm;
    const int32_t *restrict type = a->type;
    const long n = a->nlocal;
    for (int d = 0; d < 3; d++) {
        double *restrict x = a->x[d], *restrict v = a->v[d];
        const double *restrict f = a->f[d];
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) {
            v[i] += dtfm[type[i]] * f[i];
            x[i] += dt * v[i];
        }
    }
}

static void cpu_integrate2 (struct md_sim *s)
{
    struct md_atoms *a = s->a;
    const double *dtfm = s->dtfm;
    const int32_t *restrict type = a->type;
    const long n = a->nlocal;
    for (int d = 0; d < 3; d++) {
        double *restrict v = a->v[d];
        const double *restrict f = a->f[d];
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            v[i] += dtfm[type[i]] * f[i];
    }
}

static int cpu_neighbor (struct md_sim *s)
{
    return neigh_build (s->nl, s->dom, s->a);
}

static void cpu_forward (struct md_sim *s)
{
    domain_forward (s->dom, s->a);
}

static int cpu_force (struct md_sim *s, int eflag, double *pe, double *vir)
{
    if (force_compute (s->fc, s->nl, s->a, eflag, pe, vir) < 0)
        return -1;
    domain_reverse (s->dom, s->a);
    return 0;
}

/* sum of m v^2, per component in a fixed order: thermo output must be
 * bitwise repeatable across a restart. */
static double cpu_vsq (struct md_sim *s)
{
    const double *mass = s->sys.mass;
    const int32_t *type = s->a->type;
    double sum = 0;
    for (int d = 0; d < 3; d++) {
        const double *v = s->a->v[d];
        for (long i = 0; i < s->a->nlocal; i++)
            sum += mass[type[i]] * v[i] * v[i];
    }
    return sum;
}

static double cpu_maxdisp2 (struct md_sim *s)
{
    double m = 0;
    const struct md_atoms *a = s->a;
    for (long i = 0; i < a->nlocal; i++) {
        double dx = a->x[0][i] - a->xb[0][i], dy = a->x[1][i] - a->xb[1][i],
               dz = a->x[2][i] - a->xb[2][i];
        double r2 = dx * dx + dy * dy + dz * dz;
        if (r2 > m)
            m = r2;
    }
    return m;
}

static void cpu_nothing (struct md_sim *s)
{
}

const struct md_backend_ops md_backend_cpu = {
    .name = "cpu",
    .mem = NULL,
    .init = cpu_init,
    .fini = cpu_fini,
    .integrate1 = cpu_integrate1,
    .integrate2 = cpu_integrate2,
    .neighbor = cpu_neighbor,
    .forward = cpu_forward,
    .force = cpu_force,
    .vsq = cpu_vsq,
    .maxdisp2 = cpu_maxdisp2,
    .to_host = cpu_nothing,
    .to_device = cpu_nothing,
};
