/* climate_step.h - one time step: dimensionally split, 3-stage RK per sweep. */
#ifndef HPCQ_APPS_CLIMATE_CLIMATE_STEP_H
#define HPCQ_APPS_CLIMATE_CLIMATE_STEP_H

struct climate_model;
struct climate_comm;

/* Advance m->state by dt (m->step selects the sweep order).  Does not
 * touch m->step or m->time. */
void climate_step (struct climate_model *m, struct climate_comm *c, double dt);

#endif
