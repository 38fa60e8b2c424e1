/* qalter - change the request of queued or held jobs (PBS Pro conventions).
 *
 * Takes qsub's options for what may change before a job runs (-N -l -p -q
 * -o -e -j -A -m -M -r) and sends them to the scheduler, which applies
 * them exactly as qsub's, checks the result (queue, resources the cluster
 * can hold) and stores it, or leaves the job as it was.
 */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/jobcmd.h"

static const char usage_text[] =
    "Usage: qalter [-N name] [-l resource_list] [-p priority] [-q queue]\n"
    "              [-o path] [-e path] [-j oe|eo|n] [-A account] [-m points]\n"
    "              [-M users] [-r y|n] job_identifier...\n"
    "Changes queued or held jobs; options as for qsub.  See qalter(1).\n";

static const struct cliopt cli = {
    .prog = "qalter",
    .shortopts = "+N:l:p:q:o:e:j:A:m:M:r:",
    .usage = usage_text,
    .kind = CLIOPT_PBS,
};

int main (int argc, char **argv)
{
    json_t *opts = json_array (), *extra;
    int c, rc;

    while ((c = cliopt_next (&cli, argc, argv)) != -1) {
        char letter[2] = { (char)c, '\0' };
        json_array_append_new (opts, json_pack ("[s s]", letter, optarg));
    }
    if (json_array_size (opts) == 0) {
        fprintf (stderr,
                 "qalter: nothing to change (qalter --help lists the options)\n");
        json_decref (opts);
        return 2;
    }
    extra = json_pack ("{s:o}", "options", opts);
    rc = jobcmd_run ("qalter", "job.alter", argc, argv, optind, extra);
    json_decref (extra);
    return rc;
}
