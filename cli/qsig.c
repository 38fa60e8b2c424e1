/* qsig - send a signal to running jobs (PBS Pro conventions). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/jobcmd.h"

#define USAGE "usage: qsig [-s signal] job_identifier...\n"

static const struct cliopt cli = {
    .prog = "qsig",
    .shortopts = "s:",
    .usage = USAGE "Sends the signal (a name such as SIGUSR1 or USR1, or a number; "
                   "SIGTERM by\n"
                   "default) to the processes of each running job.  See qsig(1).\n",
    .kind = CLIOPT_PBS,
};

int main (int argc, char **argv)
{
    const char *sig = "SIGTERM";
    json_t *extra;
    int c, rc;

    while ((c = cliopt_next (&cli, argc, argv)) != -1) {
        if (!*optarg) {
            fputs (USAGE, stderr);
            return 2;
        }
        sig = optarg;
    }
    if (optind >= argc) {
        fputs (USAGE, stderr);
        return 2;
    }
    extra = json_pack ("{s:s}", "signal", sig);
    rc = jobcmd_run ("qsig", "job.sig", argc, argv, optind, extra);
    json_decref (extra);
    return rc;
}
