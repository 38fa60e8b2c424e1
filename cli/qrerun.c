/* qrerun - requeue running jobs: each is killed and waits for its next
 * attempt (PBS Pro conventions; rerunnable jobs only). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/jobcmd.h"

#define USAGE "usage: qrerun [-W force] job_identifier...\n"

static const struct cliopt cli = {
    .prog = "qrerun",
    .shortopts = "W:",
    .usage = USAGE
    "Queues each running job again (a new attempt of the same job).  A job\n"
    "that checkpoints (qsub -c) is asked for a checkpoint first and requeued\n"
    "once it is reported, to go on from there; -W force kills it at once.\n"
    "Jobs submitted with -r n are refused.  See qrerun(1).\n",
    .kind = CLIOPT_PBS,
};

int main (int argc, char **argv)
{
    json_t *extra = NULL;
    int c, rc;

    while ((c = cliopt_next (&cli, argc, argv)) != -1) {
        if (strcmp (optarg, "force") != 0) {
            fputs (USAGE, stderr);
            return 2;
        }
        if (!extra)
            extra = json_pack ("{s:b}", "force", 1);
    }
    if (optind >= argc) {
        fputs (USAGE, stderr);
        return 2;
    }
    rc = jobcmd_run ("qrerun", "job.rerun", argc, argv, optind, extra);
    json_decref (extra);
    return rc;
}
