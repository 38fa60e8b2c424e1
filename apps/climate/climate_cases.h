/* climate_cases.h - the named test cases: background, initial state, forcing.
 *
 * A case is a row of a table: its name, the background atmosphere and a
 * function giving the point-wise potential temperature perturbation.  The
 * model (climate_model.c) turns that into cell averages.
 */
#ifndef HPCQ_APPS_CLIMATE_CLIMATE_CASES_H
#define HPCQ_APPS_CLIMATE_CLIMATE_CASES_H

/* Domain and constants shared by every case (SI units). */
#define CLIMATE_XLEN 20000.0   /* m, periodic */
#define CLIMATE_ZLEN 10000.0   /* m, walls at 0 and ZLEN */
#define CLIMATE_GRAV 9.81      /* m s-2 */
#define CLIMATE_CP 1004.0      /* J kg-1 K-1 */
#define CLIMATE_CV 717.0       /* J kg-1 K-1 */
#define CLIMATE_RD 287.0       /* J kg-1 K-1 */
#define CLIMATE_P0 1.0e5       /* Pa, reference pressure of theta */
#define CLIMATE_THETA0 300.0   /* K, surface potential temperature */
#define CLIMATE_CFL 1.0        /* times min(dx, dz) / CLIMATE_MAXSPEED */
#define CLIMATE_MAXSPEED 450.0 /* m s-1, sound plus the fastest wind */
#define CLIMATE_HV_BETA 0.05   /* grid-scale damping per step */

struct climate_case {
    const char *name;
    const char *help; /* one line for --help */
    double bv_freq;   /* Brunt-Vaisala frequency N (s-1); 0: neutral */
    double wind;      /* uniform initial u (m s-1) */
    int injection;    /* a jet enters at x = 0 */
    double (*theta_prime) (double x, double z);
};

/* The case called name, or NULL. */
const struct climate_case *climate_case_find (const char *name);

/* The table, terminated by a row with name NULL (for --help). */
const struct climate_case *climate_case_table (void);

/* The injection jet: in x < JET_X1, JET_Z0 < z < JET_Z1, rho u is relaxed
 * towards rho_bar JET_U with time scale JET_TAU (a momentum source, so the
 * mass stays conserved); the jet then runs across the periodic domain. */
#define CLIMATE_JET_X1 1000.0
#define CLIMATE_JET_Z0 4000.0
#define CLIMATE_JET_Z1 6000.0
#define CLIMATE_JET_U 50.0
#define CLIMATE_JET_TAU 10.0

#endif
