/* jobwait.c - see jobwait.h */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/jobwait.h"
#include "common/client.h"

#define RECONNECT_TRIES 60

/* One attempt: 0 answered, 1 the connection failed (try again), 2 no
 * answer within the client's timeout (the job still runs), -1 refused. */
static int wait_once (const char *prog, const char *jobid, json_t **reply)
{
    struct hpcq_error err;
    struct client *c = client_connect (NULL, &err);
    int rc = 0;

    if (!c)
        return 1;
    if (client_rpc (c, "job.wait", json_pack ("{s:s}", "id", jobid), reply, &err) < 0) {
        /* A refusal carries the server's reason; a lost link does not. */
        int e = errno;
        rc = e == ETIMEDOUT ? 2 : (e == ENOENT || e == EPERM || e == EAGAIN) ? -1 : 1;
        if (rc < 0)
            fprintf (stderr, "%s: %s\n", prog, err.text);
    }
    client_destroy (c);
    return rc;
}

int jobwait (const char *prog, const char *jobid, int *has_exit, int *exit_status,
             char *comment, int len)
{
    json_t *reply = NULL, *st;
    const char *text = "";
    int rc = 1;

    for (int tries = 0; (rc == 1 || rc == 2) && tries < RECONNECT_TRIES; tries++) {
        if (rc == 1 && tries > 0)
            sleep (1);
        rc = wait_once (prog, jobid, &reply);
        if (rc == 2)
            tries = 0; /* the server is there; the job takes long */
    }
    if (rc == 1) {
        fprintf (stderr, "%s: wait for job %s: lost the server\n", prog, jobid);
        return -1;
    }
    if (rc < 0)
        return -1;
    st = json_object_get (reply, "exit_status");
    *has_exit = json_is_integer (st);
    *exit_status = *has_exit ? (int)json_integer_value (st) : 0;
    (void)json_unpack (reply, "{s?s}", "comment", &text);
    snprintf (comment, len, "%s", text);
    json_decref (reply);
    return 0;
}
