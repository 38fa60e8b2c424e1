/* thermostat.c - see thermostat.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <math.h>

#include "apps/md/comm.h"
#include "apps/md/lattice.h"
#include "apps/md/sim.h"
#include "apps/md/thermostat.h"

void thermostat_berendsen (struct md_sim *s)
{
    double vsq = s->ops->vsq (s);
    comm_sum (&vsq, 1);
    double t = vsq / s->dof;
    if (t <= 0)
        return;
    double lambda = sqrt (1.0 + s->p.dt / s->p.tdamp * (s->p.temp / t - 1.0));
    s->ops->to_host (s);
    for (int d = 0; d < 3; d++)
        for (long i = 0; i < s->a->nlocal; i++)
            s->a->v[d][i] *= lambda;
    s->ops->to_device (s);
}

/* LAMMPS's fix langevin: gamma1 = -m / tdamp, gamma2 = sqrt(m) sqrt(24 T
 * / tdamp / dt), per type. */
void thermostat_langevin (struct md_sim *s)
{
    const double g1 = -1.0 / s->p.tdamp;
    const double g2 = sqrt (24.0 * s->p.temp / s->p.tdamp / s->p.dt);
    const double *mass = s->sys.mass;
    struct md_atoms *a = s->a;
    s->ops->to_host (s);
    for (long i = 0; i < a->nlocal; i++)
        for (int d = 0; d < 3; d++) {
            double m = mass[a->type[i]];
            /* stream: step and component; offset past the velocity streams */
            double u = lattice_uniform (s->p.seed, (uint64_t)a->id[i],
                                        3 + 3 * (uint64_t)s->step + d);
            a->f[d][i] += m * g1 * a->v[d][i] + sqrt (m) * g2 * (u - 0.5);
        }
    s->ops->to_device (s);
}
