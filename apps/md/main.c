/* main.c - hpcq-md: Lennard-Jones molecular dynamics for hpcq's users.
 *
 * Parse options, create the engine, run it, destroy it.  Every error is
 * one line on stderr (from rank 0) and an exit status: 2 for bad input,
 * 1 for failures at run time.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "apps/md/comm.h"
#include "apps/md/params.h"
#include "apps/md/sim.h"
#include "common/util.h"

/* Every rank leaves MPI; rank 0 alone says why, before it leaves: once
 * any rank has exited non-zero, mpirun kills the others, rank 0 too. */
static void die (int status, const struct hpcq_error *err)
{
    if (comm_rank () == 0)
        fprintf (stderr, "%s: %s\n", program_invocation_short_name, err->text);
    comm_finalize ();
    exit (status);
}

int main (int argc, char **argv)
{
    struct md_params p;
    struct hpcq_error err = { "" };
    struct md_sim *s;
    int rc, status;

    /* First of all: the scheduler may signal a job at any moment, and
     * before this a SIGTERM or SIGUSR1 would simply kill it. */
    sim_signals_install ();
    comm_init (&argc, &argv);
    rc = params_parse (&p, argc, argv, &err);
    if (rc == 1) {
        comm_finalize ();
        return 0;
    }
    if (rc < 0 || params_validate (&p, &err) < 0)
        die (MD_EXIT_USAGE, &err);
    if (!(s = sim_create (&p, &status, &err)))
        die (status, &err);
    rc = sim_run (s, &err);
    sim_destroy (s);
    if (rc < 0)
        die (MD_EXIT_FAIL, &err);
    comm_finalize ();
    return rc;
}
