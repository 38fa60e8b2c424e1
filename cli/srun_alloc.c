/* srun_alloc.c - srun outside a job: as Slurm's srun does, it first makes
 * an allocation (cli/alloc.h: a job asking for the nodes and tasks srun
 * was given) and runs the step in it: the job's script is this same srun.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/alloc.h"
#include "cli/srun.h"

int srun_alloc_run (int argc, char **argv, const struct srun_opts *o)
{
    const char *opts[32];
    char num[4][32], *wrap = NULL;
    size_t wlen = 0;
    int n = 0, rc;
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
    alloc_quote (&wrap, &wlen, "srun");
    for (int i = 1; i < argc; i++)
        alloc_quote (&wrap, &wlen, argv[i]);
    rc = alloc_run ("srun", opts, wrap, 0);
    free (wrap);
    return rc;
}
