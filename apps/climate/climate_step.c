/* climate_step.c - dimensional splitting and the Runge-Kutta stages.
 *
 * Each step is an x sweep and a z sweep, each integrated over the full dt
 * with the 3-stage low-storage scheme
 *     q1 = q + dt/3 L(q);  q2 = q + dt/2 L(q1);  q <- q + dt L(q2)
 * which needs only the state and one stage array.  The sweep order
 * alternates every step (x then z, then z then x), which cancels the
 * leading splitting error over a pair of steps.
 */
#include "apps/climate/climate_comm.h"
#include "apps/climate/climate_model.h"
#include "apps/climate/climate_step.h"

static void stage_x (struct climate_model *m, struct climate_comm *c, double *in,
                     double *out, double dts)
{
    climate_comm_halo_x (c, m, in);
    m->be->flux_x (m, in);
    m->be->update_x (m, in, out, dts);
}

static void stage_z (struct climate_model *m, double *in, double *out, double dts)
{
    m->be->flux_z (m, in);
    m->be->update_z (m, in, out, dts);
}

static void sweep (struct climate_model *m, struct climate_comm *c, int dir, double dt)
{
    double *q = m->state, *s = m->stage;

    if (dir == 0) {
        stage_x (m, c, q, s, dt / 3.0);
        stage_x (m, c, s, s, dt / 2.0);
        stage_x (m, c, s, q, dt);
    } else {
        stage_z (m, q, s, dt / 3.0);
        stage_z (m, s, s, dt / 2.0);
        stage_z (m, s, q, dt);
    }
}

void climate_step (struct climate_model *m, struct climate_comm *c, double dt)
{
    int first = (int)(m->step % 2);

    sweep (m, c, first, dt);
    sweep (m, c, 1 - first, dt);
}
