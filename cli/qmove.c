/* qmove - move queued or held jobs to another queue (PBS Pro conventions). */
#include <config.h>
#include <stdio.h>
#include <string.h>

#include "cli/jobcmd.h"

int main (int argc, char **argv)
{
    json_t *extra;
    int rc;

    if (argc > 1 && strcmp (argv[1], "--help") == 0) {
        printf ("Usage: qmove destination job_identifier...\n"
                "Moves queued or held jobs to the queue destination.  See qmove(1).\n");
        return 0;
    }
    if (argc < 3) {
        fprintf (stderr, "qmove: usage: qmove destination job_identifier...\n");
        return 2;
    }
    extra = json_pack ("{s:[[s s]]}", "options", "q", argv[1]);
    rc = jobcmd_run ("qmove", "job.alter", argc, argv, 2, extra);
    json_decref (extra);
    return rc;
}
