/* qrun - start queued jobs now, ahead of the policy and the queues'
 * limits, on free resources (operators; PBS Pro conventions).  -H names
 * the hosts: one for all chunks, or one per chunk ("h1+h2"). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/jobcmd.h"

#define USAGE "Usage: qrun [-a] [-H vnode_specification ] job_identifier_list\n"

static const struct cliopt cli = {
    .prog = "qrun",
    .shortopts = "aH:",
    .usage = USAGE "Starts each queued job now on free resources (operators).  See "
                   "qrun(8).\n",
    .kind = CLIOPT_PBS,
};

int main (int argc, char **argv)
{
    const char *hosts = NULL;
    json_t *extra;
    int c, rc;

    while ((c = cliopt_next (&cli, argc, argv)) != -1) {
        if (c == 'H' && !*optarg) {
            fprintf (stderr, "qrun: illegal -H value\n");
            return 1;
        }
        if (c == 'H')
            hosts = optarg;
    }
    if (optind >= argc) {
        fputs (USAGE, stderr);
        return 1;
    }
    extra = hosts ? json_pack ("{s:s}", "hosts", hosts) : NULL;
    rc = jobcmd_run ("qrun", "job.run", argc, argv, optind, extra);
    json_decref (extra);
    return rc;
}
