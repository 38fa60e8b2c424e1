/* qdel - delete jobs: queued ones are removed, running ones are sent
 * SIGTERM and, after the kill delay, SIGKILL; with -x a finished job's
 * history is purged (PBS Pro conventions). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/jobcmd.h"

static const struct cliopt cli = {
    .prog = "qdel",
    .shortopts = "W:h:x",
    .usage = "Usage: qdel [-x] [-W force] job_identifier...\n"
             "qdel: delete jobs: queued ones are removed, running ones are sent "
             "SIGTERM and, after the kill delay, SIGKILL.\n-x: also finished ones, "
             "whose history goes (qstat -x no longer shows them).\nSee qdel(1).\n",
    .kind = CLIOPT_PBS,
};

int main (int argc, char **argv)
{
    json_t *extra = NULL;
    int c, rc;

    /* Accepted for compatibility: -W force (qdel), -h u (qhold/qrls). */
    while ((c = cliopt_next (&cli, argc, argv)) != -1)
        if (c == 'x' && !extra)
            extra = json_pack ("{s:b}", "history", 1);
    rc = jobcmd_run ("qdel", "job.delete", argc, argv, optind, extra);
    json_decref (extra);
    return rc;
}
