/* climate_cases.c - the five test cases of hpcq-climate.
 *
 * Bubbles are cos^2 shaped (smooth to first derivative) and added to the
 * potential temperature at constant pressure, so they start as pure density
 * anomalies without an acoustic pulse.  gravity_waves uses a Gaussian times
 * sin(pi z / H) so it is smooth enough for the grid-convergence test.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "apps/climate/climate_cases.h"

/* cos^2 bubble of amplitude amp, centre (xc, zc), radii (rx, rz). */
static double bubble (double x, double z, double amp, double xc, double zc, double rx,
                      double rz)
{
    double dx = (x - xc) / rx, dz = (z - zc) / rz;
    double d = sqrt (dx * dx + dz * dz);

    if (d >= 1.0)
        return 0.0;
    double c = cos (M_PI * d / 2.0);
    return amp * c * c;
}

static double thermal_theta (double x, double z)
{
    return bubble (x, z, 3.0, CLIMATE_XLEN / 2, 2000.0, 2000.0, 2000.0);
}

static double collision_theta (double x, double z)
{
    return bubble (x, z, 20.0, CLIMATE_XLEN / 2, 2000.0, 2000.0, 2000.0)
           + bubble (x, z, -20.0, CLIMATE_XLEN / 2, 8000.0, 2000.0, 2000.0);
}

static double gravity_theta (double x, double z)
{
    double a = (x - CLIMATE_XLEN / 2) / 2000.0;

    return 0.01 * sin (M_PI * z / CLIMATE_ZLEN) * exp (-a * a);
}

static double density_current_theta (double x, double z)
{
    return bubble (x, z, -15.0, CLIMATE_XLEN / 2, 3000.0, 4000.0, 2000.0);
}

static double zero_theta (double x, double z)
{
    return 0.0;
}

static const struct climate_case cases[] = {
    { "thermal", "neutral (theta 300 K); +3 K bubble, centre (10, 2) km, radius 2 km",
      0.0, 0.0, 0, thermal_theta },
    { "collision",
      "neutral; +20 K bubble at (10, 2) km and -20 K bubble at (10, 8) km, radius 2 km",
      0.0, 0.0, 0, collision_theta },
    { "gravity_waves",
      "stable, N = 0.01 s-1, wind 20 m/s; 0.01 K sin(pi z/10 km) exp(-((x-10 km)/2 "
      "km)^2)",
      0.01, 20.0, 0, gravity_theta },
    { "density_current",
      "neutral; -15 K bubble, centre (10, 3) km, radii 4 km (x) by 2 km (z)", 0.0, 0.0,
      0, density_current_theta },
    { "injection",
      "neutral, at rest; a 50 m/s jet is driven in x < 1 km, 4 km < z < 6 km\n"
      "                   (momentum forcing, time scale 10 s; mass is conserved)",
      0.0, 0.0, 1, zero_theta },
    { NULL, NULL, 0.0, 0.0, 0, NULL },
};

const struct climate_case *climate_case_find (const char *name)
{
    for (const struct climate_case *c = cases; c->name; c++)
        if (strcmp (c->name, name) == 0)
            return c;
    return NULL;
}

const struct climate_case *climate_case_table (void)
{
    return cases;
}
