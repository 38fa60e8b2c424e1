/* main.c - hpcq-climate: parse the options, run, report.
 *
 * Every rank runs this; only rank 0 prints.  Bad input of any kind is one
 * line on stderr and exit status 2 on every rank.
 */
#include <stdio.h>

#include "apps/climate/climate_comm.h"
#include "apps/climate/climate_opts.h"
#include "apps/climate/climate_run.h"

static void fail (struct climate_comm *c, struct hpcq_error *err, int code)
{
    if (c->rank == 0)
        fprintf (stderr, "hpcq-climate: %s\n", err->text);
    climate_comm_exit (c, code);
}

int main (int argc, char **argv)
{
    struct climate_comm comm;
    struct climate_opts opts;
    struct hpcq_error err = { "" };

    if (climate_comm_init (&comm, &argc, &argv) < 0) {
        fprintf (stderr, "hpcq-climate: cannot initialise MPI\n");
        return 1;
    }
    if (climate_opts_parse (&opts, argc, argv, &err) < 0)
        fail (&comm, &err, 2);
    if (opts.help) {
        if (comm.rank == 0)
            climate_opts_usage (stdout);
        climate_comm_exit (&comm, 0);
    }
    struct climate_run *run = climate_run_create (&opts, &comm, &err);
    if (!run)
        fail (&comm, &err, 2);
    int rc = climate_run_loop (run, &err);
    if (rc == 1)
        fail (&comm, &err, 1);
    if (rc == 0 && climate_run_report (run, &err) < 0)
        fail (&comm, &err, 1);
    climate_run_destroy (run);
    climate_comm_exit (&comm, rc);
}
