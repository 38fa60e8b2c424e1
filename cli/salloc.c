/* salloc - an interactive allocation, as Slurm's salloc (salloc(1)):
 *   salloc [sbatch's options]            a shell in the allocation
 *   salloc [sbatch's options] COMMAND... COMMAND in the allocation
 * The options are sbatch's (common/sbatch.h), the job is in Slurm's
 * dialect (SLURM_* set, srun runs the allocation's tasks).  Without a
 * command the shell is qsub -I's (cli/interactive.h): on the job's first
 * host, on a pty, with qsub -I's messages.  Unlike Slurm's, where the
 * command runs on the submit host and its srun reaches the nodes, the
 * command here runs on the job's first host and its output comes back
 * when it ends (as srun's outside a job, cli/srun_alloc.c); the exit
 * status is the command's.  Errors: "salloc: error: ...", exit 1.
 */
#include <config.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/alloc.h"
#include "cli/interactive.h"
#include "cli/submit.h"
#include "common/jobspec.h"
#include "common/resource.h"
#include "common/sbatch.h"
#include "common/util.h"

static const char *usage_text =
    "Usage: salloc [OPTIONS] [COMMAND [ARGS...]]\n"
    "Makes an allocation (a job) with sbatch's options and runs COMMAND in it, or\n"
    "a shell on its first host.  See salloc(1) and docs/compat.md.\n";

/* The command as the allocation's script, with salloc's options. */
static int run_command (int argc, char **argv, int first)
{
    const char **opts = xzalloc ((first + 2) * sizeof (char *));
    char *wrap = NULL;
    size_t wlen = 0;
    int rc;

    for (int i = 1; i < first; i++)
        opts[i - 1] = argv[i];
    for (int i = first; i < argc; i++)
        util_sh_quote (&wrap, &wlen, argv[i]);
    rc = alloc_run ("salloc", opts, wrap, 1);
    free (wrap);
    free (opts);
    return rc;
}

int main (int argc, char **argv)
{
    struct sbatch_cli cli = { 0 };
    struct hpcq_jobspec spec;
    struct hpcq_error err;

    if (argc > 1 && (!strcmp (argv[1], "--help") || !strcmp (argv[1], "--usage"))) {
        fputs (usage_text, stdout);
        return 0;
    }
    if (getenv ("SLURM_JOB_ID") && getenv ("PBS_JOBID"))
        fprintf (stderr, "salloc: warning: a nested allocation, inside job %s\n",
                 getenv ("SLURM_JOB_ID"));
    if (sbatch_scan_command (argc - 1, argv + 1, &cli, &err) < 0)
        util_die (1, "error: %s", err.text);
    if (cli.wrap || cli.parsable || cli.wait)
        util_die (1, "error: %s is sbatch's, not salloc's",
                  cli.wrap       ? "--wrap"
                  : cli.parsable ? "--parsable"
                                 : "--wait");
    if (1 + cli.first_arg < argc)
        return run_command (argc, argv, 1 + cli.first_arg);
    jobspec_init (&spec);
    spec.submit_args = submit_join_args (argc, argv);
    if (sbatch_parse_command (&spec, "#!/bin/sh\n", argc - 1, argv + 1, &cli, &err) < 0)
        util_die (1, "error: %s", err.text);
    if (!spec.name)
        spec.name = xstrdup ("interactive");
    if (resource_finalize (&spec.res, &err) < 0 || submit_set_origin (&spec, &err) < 0
        || interactive_prepare (&spec, NULL, &err) < 0)
        util_die (1, "error: %s", err.text);
    interactive_salloc ();
    return interactive_run (&spec);
}
