/* qsig - send a signal to running jobs (PBS Pro conventions). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/jobcmd.h"

int main (int argc, char **argv)
{
    const char *sig = "SIGTERM";
    json_t *extra;
    int c, rc;

    if (argc > 1 && strcmp (argv[1], "--help") == 0) {
        printf ("usage: qsig [-s signal] job_identifier...\n"
                "Sends the signal (a name such as SIGUSR1 or USR1, or a number; "
                "SIGTERM by\n"
                "default) to the processes of each running job.  See qsig(1).\n");
        return 0;
    }
    opterr = 0;
    while ((c = getopt (argc, argv, "s:")) != -1) {
        if (c != 's' || !*optarg) {
            fprintf (stderr, "usage: qsig [-s signal] job_identifier...\n");
            return 2;
        }
        sig = optarg;
    }
    if (optind >= argc) {
        fprintf (stderr, "usage: qsig [-s signal] job_identifier...\n");
        return 2;
    }
    extra = json_pack ("{s:s}", "signal", sig);
    rc = jobcmd_run ("qsig", "job.sig", argc, argv, optind, extra);
    json_decref (extra);
    return rc;
}
