/* qrls - release holds on jobs (PBS Pro conventions).
 *
 * -h names the hold types to lift (default u); others stay, and the job
 * queues once none is left.
 */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/jobcmd.h"

static const char usage_text[] =
    "Usage: qrls [-h u|o|s|uos] job_identifier...\n"
    "qrls: release holds on jobs (default: the user hold).\nSee qrls(1).\n";

static const struct cliopt cli = {
    .prog = "qrls", .shortopts = "W:h:x", .usage = usage_text, .kind = CLIOPT_PBS
};

int main (int argc, char **argv)
{
    const char *types = "u";
    json_t *extra;
    int c, rc;

    if ((c = jobcmd_hold_options (&cli, argc, argv, &types)) != 0)
        return c;
    extra = json_pack ("{s:s}", "hold_types", types);
    rc = jobcmd_run ("qrls", "job.release", argc, argv, optind, extra);
    json_decref (extra);
    return rc;
}
