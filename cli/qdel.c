/* qdel - delete jobs: queued ones are removed, running ones are sent SIGTERM and, after the kill delay, SIGKILL (PBS Pro conventions). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/jobcmd.h"

int main (int argc, char **argv)
{
    int c;

    if (argc > 1 && strcmp (argv[1], "--help") == 0) {
        printf ("Usage: qdel [-W force] [-h u] job_identifier...\n"
                "qdel: delete jobs: queued ones are removed, running ones are sent "
                "SIGTERM and, after the kill delay, SIGKILL.\nSee qdel(1).\n");
        return 0;
    }
    /* Accepted for compatibility: -W force (qdel), -h u (qhold/qrls). */
    while ((c = getopt (argc, argv, "W:h:x")) != -1)
        if (c == '?')
            return 2;
    return jobcmd_run ("qdel", "job.delete", argc, argv, optind, NULL);
}
