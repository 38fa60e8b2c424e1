/* qorder - exchange the places of two queued jobs (PBS Pro conventions). */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/cliopt.h"
#include "common/client.h"

#define USAGE "usage: qorder job_identifier job_identifier\n"

static const struct cliopt cli = {
    .prog = "qorder",
    .usage =
        USAGE "Exchanges the places of two queued jobs of one queue.  See qorder(1).\n",
    .kind = CLIOPT_PBS,
};

int main (int argc, char **argv)
{
    struct hpcq_error err;
    struct client *c;
    int rc = 0;

    while (cliopt_next (&cli, argc, argv) != -1)
        ;
    if (argc - optind != 2) {
        fputs (USAGE, stderr);
        return 2;
    }
    if (!(c = client_connect (NULL, &err))) {
        fprintf (stderr, "qorder: %s\n", err.text);
        return 1;
    }
    if (client_rpc (c, "job.order",
                    json_pack ("{s:s s:s}", "id", argv[optind], "id2",
                               argv[optind + 1]),
                    NULL, &err)
        < 0) {
        fprintf (stderr, "qorder: %s\n", err.text);
        rc = errno == ENOENT                     ? 153
             : errno == EPERM                    ? 159
             : errno == EBUSY || errno == EINVAL ? 168
                                                 : 1;
    }
    client_destroy (c);
    return rc;
}
