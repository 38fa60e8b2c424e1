/* qdel - delete jobs: queued ones are removed, running ones are sent SIGTERM and, after the kill delay, SIGKILL (PBS Pro conventions). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/jobcmd.h"

static const struct cliopt cli = {
    .prog = "qdel",
    .shortopts = "W:h:x",
    .usage = "Usage: qdel [-W force] [-h u] job_identifier...\n"
             "qdel: delete jobs: queued ones are removed, running ones are sent "
             "SIGTERM and, after the kill delay, SIGKILL.\nSee qdel(1).\n",
    .kind = CLIOPT_PBS,
};

int main (int argc, char **argv)
{
    /* Accepted for compatibility: -W force (qdel), -h u (qhold/qrls). */
    while (cliopt_next (&cli, argc, argv) != -1)
        ;
    return jobcmd_run ("qdel", "job.delete", argc, argv, optind, NULL);
}
