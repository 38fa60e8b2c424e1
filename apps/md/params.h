/* params.h - the run's settings, from the command line and an input file.
 *
 * Every setting has one name, used both as a long option (--cells 20x20x20,
 * parsed with getopt_long as the commands in cli/ do) and as a key in an
 * input file ("cells 20x20x20", '#' starts a comment); the command line
 * wins.  Parsing validates everything a person can get wrong, so the
 * engine never sees a non-positive size or a silent default.
 */
#ifndef HPCQ_APPS_MD_PARAMS_H
#define HPCQ_APPS_MD_PARAMS_H

#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

enum md_backend { MD_BACKEND_AUTO = 0, MD_BACKEND_CPU, MD_BACKEND_GPU };
enum md_thermostat { MD_THERMO_NVE = 0, MD_THERMO_BERENDSEN, MD_THERMO_LANGEVIN };
enum md_restart { MD_RESTART_NO = 0, MD_RESTART_YES, MD_RESTART_AUTO };

#define MD_PATH_MAX 1024

struct md_params {
    char data[MD_PATH_MAX]; /* LAMMPS data file; empty: the fcc lattice */
    double density;         /* reduced number density of the fcc lattice */
    int cells[3];           /* unit cells along x, y, z */
    double temp;            /* initial (and thermostat) temperature */
    uint64_t seed;
    double cutoff; /* LJ cutoff, sigma units */
    double skin;
    double dt;
    long steps;  /* run until this step number */
    long thermo; /* print every N steps (0: first and last) */
    /* LAMMPS's neigh_modify: consider a rebuild neigh_delay or more steps
     * after the last one, on steps that are multiples of neigh_every since
     * it; with neigh_check only if an atom moved more than skin/2 */
    long neigh_delay;
    long neigh_every;
    int neigh_check;
    int thermo_digits; /* significant digits in thermo columns */
    enum md_thermostat thermostat;
    double tdamp; /* thermostat time constant */
    enum md_backend backend;
    long checkpoint_every;            /* steps; 0: off */
    double checkpoint_interval;       /* seconds; 0: off */
    char checkpoint_dir[MD_PATH_MAX]; /* empty: no checkpoints */
    int checkpoint_keep;              /* generations kept */
    enum md_restart restart;
    char dump[MD_PATH_MAX];     /* LAMMPS text dump, empty: none */
    char dump_xyz[MD_PATH_MAX]; /* extended XYZ trajectory, empty: none */
    long dump_every;
    char write_data[MD_PATH_MAX]; /* LAMMPS data file of the final state */
    char dump_state[MD_PATH_MAX]; /* final exact state (hex floats), tests */
    int quiet;
};

/* Fill p with defaults (the in.lj benchmark), then apply HPCQ_CHECKPOINT_DIR,
 * HPCQ_CHECKPOINT_INTERVAL and HPCQ_CHECKPOINT_KEEP from the environment, an input file if one
 * is named (--input FILE or a lone FILE argument), and the options.
 * Returns 0, 1 if --help was printed, or -1 with err filled.
 */
int params_parse (struct md_params *p, int argc, char **argv, struct hpcq_error *err);

/* Check values that depend on each other.  (The cutoff against the box
 * is checked once the box is known: sim_create.)  Returns 0 or -1 with err
 * filled.
 */
int params_validate (const struct md_params *p, struct hpcq_error *err);

/* The cubic fcc lattice constant for p->density. */
double params_lattice_const (const struct md_params *p);

void params_usage (FILE *f);

#endif
