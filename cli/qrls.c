/* qrls - release held jobs (PBS Pro conventions). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/jobcmd.h"

int main (int argc, char **argv)
{
    int c;

    if (argc > 1 && strcmp (argv[1], "--help") == 0) {
        printf ("Usage: qrls [-W force] [-h u] job_identifier...\n"
                "qrls: release held jobs.\nSee qrls(1).\n");
        return 0;
    }
    /* Accepted for compatibility: -W force (qdel), -h u (qhold/qrls). */
    while ((c = getopt (argc, argv, "W:h:x")) != -1)
        if (c == '?')
            return 2;
    return jobcmd_run ("qrls", "job.release", argc, argv, optind, NULL);
}
