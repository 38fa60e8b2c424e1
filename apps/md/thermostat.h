/* thermostat.h - optional temperature control (default NVE: none).
 *
 * Berendsen rescales velocities after each step toward p.temp with time
 * constant p.tdamp.  Langevin adds friction and a random force as LAMMPS's
 * fix langevin does; its random numbers are keyed by (seed, step, atom id),
 * so they do not depend on the rank count and need no state in checkpoints.
 * Both run on the host (the CUDA back end copies back for them).
 */
#ifndef HPCQ_APPS_MD_THERMOSTAT_H
#define HPCQ_APPS_MD_THERMOSTAT_H

struct md_sim;

void thermostat_berendsen (struct md_sim *s);
void thermostat_langevin (struct md_sim *s);

#endif
