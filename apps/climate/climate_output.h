/* climate_output.h - snapshots to a CF-convention NetCDF file.
 *
 * Dimensions (time, z, x); coordinates x, z (m, cell centres) and time (s);
 * variables rho, u, w, theta, theta_prime, p_prime with units and
 * long_name, so ncdump, ncview, xarray and ParaView read them directly.
 * Only rank 0 writes, from the gathered global fields.  Built without
 * NetCDF, open fails with a message saying so.
 */
#ifndef HPCQ_APPS_CLIMATE_CLIMATE_OUTPUT_H
#define HPCQ_APPS_CLIMATE_CLIMATE_OUTPUT_H

#include "common/error.h"

struct climate_model;
struct climate_output;

/* Create path (or, when append, reopen it and continue after the last record
 * before time t, so a restarted run extends the file its first attempt
 * wrote).  Returns NULL with err filled. */
struct climate_output *climate_output_open (const char *path,
                                            const struct climate_model *m, int append,
                                            double t, struct hpcq_error *err);

/* Append one record: global fields [v][k][i] at time t. */
int climate_output_write (struct climate_output *o, const struct climate_model *m,
                          double t, const double *global, struct hpcq_error *err);

/* Close; returns 0 or -1 (err filled) if the final flush failed. */
int climate_output_close (struct climate_output *o, struct hpcq_error *err);

#endif
