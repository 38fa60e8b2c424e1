/* qmsg - write a message line into running jobs' error (-E, default)
 * and/or output (-O) files (PBS Pro conventions). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/jobcmd.h"

#define USAGE "usage: qmsg [-O] [-E] msg_string job_identifier...\n"

static const struct cliopt cli = {
    .prog = "qmsg",
    .shortopts = "EO",
    .usage =
        USAGE "Appends the message to each running job's error file (-E, the default)\n"
              "and/or output file (-O).  See qmsg(1).\n",
    .kind = CLIOPT_PBS,
};

int main (int argc, char **argv)
{
    char to[3] = "";
    json_t *extra;
    int c, rc;

    while ((c = cliopt_next (&cli, argc, argv)) != -1) {
        if (!strchr (to, c))
            to[strlen (to)] = (char)c;
    }
    if (optind + 1 >= argc) {
        fputs (USAGE, stderr);
        return 2;
    }
    extra = json_pack ("{s:s s:s}", "text", argv[optind], "to", to[0] ? to : "E");
    rc = jobcmd_run ("qmsg", "job.msg", argc, argv, optind + 1, extra);
    json_decref (extra);
    return rc;
}
