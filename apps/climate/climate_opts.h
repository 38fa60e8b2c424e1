/* climate_opts.h - the command line of hpcq-climate. */
#ifndef HPCQ_APPS_CLIMATE_CLIMATE_OPTS_H
#define HPCQ_APPS_CLIMATE_CLIMATE_OPTS_H

#include <stdio.h>

#include "common/error.h"

enum climate_device { CLIMATE_DEV_AUTO, CLIMATE_DEV_CPU, CLIMATE_DEV_GPU };

struct climate_opts {
    const char *case_name;
    int nx, nz;
    double sim_time;
    double out_every;           /* 0: only first and last snapshot */
    const char *output;         /* NetCDF file or NULL */
    long checkpoint_every;      /* steps; 0: off */
    double checkpoint_interval; /* seconds (HPCQ_CHECKPOINT_INTERVAL); 0: off */
    const char *checkpoint_dir;
    int checkpoint_keep; /* generations kept */
    int restart;
    enum climate_device device;
    const char *dump; /* raw final fields, for tests */
    long stop_after;  /* checkpoint and exit after N steps (tests) */
    int quiet;
    int help;
};

/* Parse argv (and the HPCQ_CHECKPOINT_* environment).  Returns 0, or -1
 * with err filled: the caller prints it as one line and exits 2. */
int climate_opts_parse (struct climate_opts *o, int argc, char **argv,
                        struct hpcq_error *err);

void climate_opts_usage (FILE *f);

#endif
