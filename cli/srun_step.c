/* srun_step.c - a job step's record: its number from the scheduler
 * (job.step.begin: the next of its job's attempt), its end
 * (job.step.end) with srun's exit code; squeue -s and sacct list them
 * (scheduler/rpc/job_step.h).  A scheduler that cannot be asked does not
 * stop the step: it runs as step 0, unrecorded, and says so.
 */
#include <config.h>
#include <stdio.h>
#include <string.h>

#include "cli/srun.h"
#include "common/client.h"

int srun_step_begin (const char *pbsid, const struct srun_layout *l,
                     const char *nodelist, const char *name)
{
    struct hpcq_error err;
    struct client *c = client_connect (NULL, &err);
    json_t *reply = NULL;
    const char *slash = strrchr (name, '/');
    int step = -1;

    if (c)
        (void)client_rpc (c, "job.step.begin",
                          json_pack ("{s:s s:s s:i s:i s:s}", "id", pbsid, "name",
                                     slash ? slash + 1 : name, "ntasks", l->ntasks,
                                     "nnodes", l->nnodes, "nodelist", nodelist),
                          &reply, &err);
    if (!reply || json_unpack (reply, "{s:i}", "step", &step) < 0 || step < 0) {
        fprintf (stderr, "srun: warning: the step is not recorded: %s\n", err.text);
        step = 0;
    }
    json_decref (reply);
    client_destroy (c);
    return step;
}

void srun_step_end (const char *pbsid, int step, int rc)
{
    struct hpcq_error err;
    struct client *c = client_connect (NULL, &err);
    json_t *reply = NULL;

    if (c)
        (void)client_rpc (c, "job.step.end",
                          json_pack ("{s:s s:i s:i}", "id", pbsid, "step", step, "exit",
                                     rc),
                          &reply, &err);
    json_decref (reply);
    client_destroy (c);
}
