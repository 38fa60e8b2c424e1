/* wire-sign - put a MUNGE credential on a wire message, for the tests.
 *
 *   wire-sign [--to scheduler|worker] [--binding B] [--ttl SECONDS] < MESSAGE
 *
 * Reads one message (the JSON envelope, without its length header) and
 * prints it with "cred" set the way hpcq's daemons sign (common/auth.h),
 * as the user running it, from munged at $HPCQ_MUNGE_SOCKET.  The tests
 * use it to play a well-equipped impostor: another user's credential, a
 * replayed one, one made to live too long, one for another connection.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/auth.h"
#include "common/util.h"
#include "common/wire.h"

static int usage (void)
{
    fprintf (stderr, "usage: wire-sign [--to scheduler|worker] [--binding B] "
                     "[--ttl SECONDS] < MESSAGE\n");
    return 2;
}

int main (int argc, char **argv)
{
    enum auth_dir dir = AUTH_TO_SCHEDULER;
    const char *binding = "";
    int ttl = 60, rc = 1;
    struct hpcq_error err;
    struct wire_msg m;
    struct auth *a = NULL;
    size_t len, flen;
    char *text, *frame = NULL;

    for (int i = 1; i < argc; i++) {
        if (strcmp (argv[i], "--to") == 0 && i + 1 < argc) {
            const char *to = argv[++i];
            if (strcmp (to, "worker") == 0)
                dir = AUTH_TO_WORKER;
            else if (strcmp (to, "scheduler") != 0)
                return usage ();
        } else if (strcmp (argv[i], "--binding") == 0 && i + 1 < argc)
            binding = argv[++i];
        else if (strcmp (argv[i], "--ttl") == 0 && i + 1 < argc)
            ttl = atoi (argv[++i]);
        else
            return usage ();
    }
    if (!(text = util_read_fd (0, WIRE_MAX_MSG, &len))) {
        perror ("wire-sign: stdin");
        return 1;
    }
    if (wire_decode (text, len, &m, &err) < 0) {
        fprintf (stderr, "wire-sign: %s\n", err.text);
        free (text);
        return 1;
    }
    json_decref (m.cred); /* a credential it came with is replaced */
    m.cred = NULL;
    if (!(a = auth_create (getenv ("HPCQ_MUNGE_SOCKET"), ttl, &err))
        || !(m.cred = auth_sign (a, &m, dir, binding, &err)))
        fprintf (stderr, "wire-sign: %s\n", err.text);
    else if (!(frame = wire_encode (&m, &flen)))
        perror ("wire-sign: encode");
    else {
        fwrite (frame + WIRE_HDR_LEN, 1, flen - WIRE_HDR_LEN, stdout);
        putchar ('\n');
        rc = 0;
    }
    free (frame);
    wire_msg_release (&m);
    auth_destroy (a);
    free (text);
    return rc;
}
