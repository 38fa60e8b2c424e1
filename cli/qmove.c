/* qmove - move queued or held jobs to another queue (PBS Pro conventions). */
#include <config.h>
#include <stdio.h>
#include <string.h>

#include "cli/jobcmd.h"

#define USAGE "Usage: qmove destination job_identifier...\n"

static const struct cliopt cli = {
    .prog = "qmove",
    .usage =
        USAGE "Moves queued or held jobs to the queue destination.  See qmove(1).\n",
    .kind = CLIOPT_PBS,
};

int main (int argc, char **argv)
{
    json_t *extra;
    int rc;

    while (cliopt_next (&cli, argc, argv) != -1)
        ;
    if (argc - optind < 2) {
        fputs ("qmove: " USAGE, stderr);
        return 2;
    }
    extra = json_pack ("{s:[[s s]]}", "options", "q", argv[optind]);
    rc = jobcmd_run ("qmove", "job.alter", argc, argv, optind + 1, extra);
    json_decref (extra);
    return rc;
}
