/* srun_alloc.c - srun outside a job: as Slurm's srun does, it first makes
 * an allocation (cli/alloc.h: a job asking for the nodes and tasks srun
 * was given) and runs the step in it: the job's script is this same srun.
 * With --pty it is an interactive job instead (cli/interactive.h, as
 * salloc's shell): the command runs as task 0 on a pty on the job's first
 * host, this terminal relayed to it, srun's exit status the command's.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/alloc.h"
#include "cli/interactive.h"
#include "cli/srun.h"
#include "cli/submit.h"
#include "common/jobspec.h"
#include "common/resource.h"
#include "common/sbatch.h"
#include "common/util.h"

/* srun's allocation options as sbatch's, into opts (NULL-terminated; the
 * strings in num and o).  The count. */
static int alloc_opts (const struct srun_opts *o, const char *opts[32], char num[4][32])
{
    int n = 0;
    const struct {
        const char *flag;
        int v;
    } counts[] = { { "--ntasks", o->req.ntasks },
                   { "--nodes", o->req.nnodes },
                   { "--ntasks-per-node", o->req.per_node },
                   { "--cpus-per-task", o->cpus_per_task } };
    const struct {
        const char *flag, *v;
    } strs[] = { { "-J", o->job_name ? o->job_name : o->argv[0] },
                 { "-p", o->partition },
                 { "-t", o->time },
                 { "-A", o->account },
                 { "--mem", o->mem } };

    for (int i = 0; i < 4; i++)
        if (counts[i].v) {
            snprintf (num[i], sizeof (num[i]), "%s=%d", counts[i].flag, counts[i].v);
            opts[n++] = num[i];
        }
    for (int i = 0; i < 5; i++)
        if (strs[i].v) {
            opts[n++] = strs[i].flag;
            opts[n++] = strs[i].v;
        }
    opts[n] = NULL;
    return n;
}

int srun_alloc_run (int argc, char **argv, const struct srun_opts *o)
{
    const char *opts[32];
    char num[4][32], *wrap = NULL;
    size_t wlen = 0;
    int rc;

    alloc_opts (o, opts, num);
    util_sh_quote (&wrap, &wlen, "srun");
    for (int i = 1; i < argc; i++)
        util_sh_quote (&wrap, &wlen, argv[i]);
    rc = alloc_run ("srun", opts, wrap, 0);
    free (wrap);
    return rc;
}

/* Task 0's variables, as a step's first task has them (the command runs
 * under hpcq-pty, not through srun in the job).  0 or -1. */
static int pty_task_env (struct hpcq_jobspec *spec)
{
    static const char *const vars[] = { "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID",
                                        "SLURM_STEP_ID", "SLURM_STEPID" };

    for (size_t i = 0; i < sizeof (vars) / sizeof (vars[0]); i++)
        if (jobspec_setenv (spec, vars[i], "0") < 0)
            return -1;
    return 0;
}

int srun_alloc_pty (const struct srun_opts *o)
{
    const char *opts[33];
    char num[4][32];
    struct sbatch_cli cli = { 0 };
    struct hpcq_jobspec spec;
    struct hpcq_error err;
    int n;

    opts[0] = "srun";
    n = alloc_opts (o, opts + 1, num);
    jobspec_init (&spec);
    if (sbatch_scan_command (n, (char **)opts + 1, &cli, &err) < 0
        || sbatch_parse_command (&spec, "#!/bin/sh\n", n, (char **)opts + 1, &cli, &err)
               < 0
        || resource_finalize (&spec.res, &err) < 0
        || submit_set_origin (&spec, &err) < 0)
        util_die (1, "error: %s", err.text);
    spec.submit_args = submit_join_args (n + 1, (char **)opts);
    if (pty_task_env (&spec) < 0)
        util_die (1, "error: out of memory");
    if (interactive_prepare_command (&spec, o->argv, &err) < 0)
        util_die (1, "error: %s", err.text);
    interactive_srun ();
    return interactive_run (&spec);
}
