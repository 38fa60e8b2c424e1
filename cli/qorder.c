/* qorder - exchange the places of two queued jobs (PBS Pro conventions). */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/client.h"

int main (int argc, char **argv)
{
    struct hpcq_error err;
    struct client *c;
    int rc = 0;

    if (argc > 1 && strcmp (argv[1], "--help") == 0) {
        printf (
            "usage: qorder job_identifier job_identifier\n"
            "Exchanges the places of two queued jobs of one queue.  See qorder(1).\n");
        return 0;
    }
    if (argc != 3) {
        fprintf (stderr, "usage: qorder job_identifier job_identifier\n");
        return 2;
    }
    if (!(c = client_connect (NULL, &err))) {
        fprintf (stderr, "qorder: %s\n", err.text);
        return 1;
    }
    if (client_rpc (c, "job.order",
                    json_pack ("{s:s s:s}", "id", argv[1], "id2", argv[2]), NULL, &err)
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
