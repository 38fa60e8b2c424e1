/* qhold - put holds on queued jobs (PBS Pro conventions).
 *
 * -h takes the hold types: u (user, the default), o (operator: operators
 * and managers only), s (system: managers only), or a combination.
 */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/jobcmd.h"

static const char usage_text[] =
    "Usage: qhold [-h u|o|s|uos] job_identifier...\n"
    "qhold: put holds on queued jobs (default: a user hold).\nSee qhold(1).\n";

static const struct cliopt cli = {
    .prog = "qhold", .shortopts = "W:h:x", .usage = usage_text, .kind = CLIOPT_PBS
};

int main (int argc, char **argv)
{
    const char *types = "u";
    json_t *extra;
    int c, rc;

    if ((c = jobcmd_hold_options (&cli, argc, argv, &types)) != 0)
        return c;
    extra = json_pack ("{s:s}", "hold_types", types);
    rc = jobcmd_run ("qhold", "job.hold", argc, argv, optind, extra);
    json_decref (extra);
    return rc;
}
