/* qrerun - requeue running jobs: each is killed and waits for its next
 * attempt (PBS Pro conventions; rerunnable jobs only). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/jobcmd.h"

static const char *usage = "usage: qrerun [-W force] job_identifier...\n";

int main (int argc, char **argv)
{
    int c;

    if (argc > 1 && strcmp (argv[1], "--help") == 0) {
        printf ("%sKills each running job and queues it again (a new attempt of the same\n"
                "job).  Jobs submitted with -r n are refused.  See qrerun(1).\n", usage);
        return 0;
    }
    opterr = 0;
    while ((c = getopt (argc, argv, "W:")) != -1)
        if (c != 'W' || strcmp (optarg, "force") != 0) {
            fputs (usage, stderr);
            return 2;
        }
    if (optind >= argc) {
        fputs (usage, stderr);
        return 2;
    }
    return jobcmd_run ("qrerun", "job.rerun", argc, argv, optind, NULL);
}
