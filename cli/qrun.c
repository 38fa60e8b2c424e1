/* qrun - start queued jobs now, ahead of the policy and the queues'
 * limits, on free resources (operators; PBS Pro conventions).  -H names
 * the hosts: one for all chunks, or one per chunk ("h1+h2"). */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/jobcmd.h"

static const char *usage =
    "Usage: qrun [-a] [-H vnode_specification ] job_identifier_list\n";

int main (int argc, char **argv)
{
    const char *hosts = NULL;
    json_t *extra;
    int c, rc;

    if (argc > 1 && strcmp (argv[1], "--help") == 0) {
        printf ("%sStarts each queued job now on free resources (operators).  See "
                "qrun(8).\n",
                usage);
        return 0;
    }
    opterr = 0;
    while ((c = getopt (argc, argv, "aH:")) != -1) {
        if (c == 'H' && !*optarg) {
            fprintf (stderr, "qrun: illegal -H value\n");
            return 1;
        }
        if (c == 'H')
            hosts = optarg;
        else if (c != 'a') {
            fputs (usage, stderr);
            return 1;
        }
    }
    if (optind >= argc) {
        fputs (usage, stderr);
        return 1;
    }
    extra = hosts ? json_pack ("{s:s}", "hosts", hosts) : NULL;
    rc = jobcmd_run ("qrun", "job.run", argc, argv, optind, extra);
    json_decref (extra);
    return rc;
}
