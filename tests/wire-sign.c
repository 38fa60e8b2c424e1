/* wire-sign - put a MUNGE credential on a wire message, for the tests.
 *
 *   wire-sign [--to scheduler|worker|tm] [--binding B] [--ttl SECONDS] < MESSAGE
 *   wire-sign open [--to scheduler|tm] [--ttl SECONDS]
 *   wire-sign keys --nonce NI --secret HEX [--to scheduler|tm] < ANSWER
 *
 * The first form reads one message (the JSON envelope, without its length
 * header) and prints it with "cred" set the way a one-shot TCP request is
 * signed (common/auth.h).  "open" prints a link.open as a worker sends it
 * (common/link.h): the message on one line, then "secret HEX" (ours).
 * "keys" checks the answer to that link.open (its credential, as munged
 * decodes it for us) and prints the link's session keys
 * (common/session.h) as "send HEX", "recv HEX" and "uid N" (the
 * answerer's).  All as the user running it, from munged at
 * $HPCQ_MUNGE_SOCKET.  The tests use it to play a well-equipped impostor:
 * another user's credential, a replayed one, one made to live too long,
 * one for another connection, frames of a session replayed or forged.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/auth.h"
#include "common/link.h"
#include "common/session.h"
#include "common/util.h"
#include "common/wire.h"

static void hex (const uint8_t *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf (out + 2 * i, "%02x", p[i]);
}

static int unhex (const char *s, uint8_t *p, size_t n)
{
    if (strlen (s) != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (sscanf (s + 2 * i, "%2hhx", &p[i]) != 1)
            return -1;
    return 0;
}

/* wire-sign open: a link.open with its credential, and our secret. */
static int sign_open (struct auth *a, enum auth_dir dir)
{
    char nonce[AUTH_NONCE_HEX + 1], shex[2 * SESSION_SECRET_LEN + 1], *text, *frame;
    uint8_t secret[SESSION_SECRET_LEN], payload[LINK_PAYLOAD_LEN];
    struct hpcq_error err;
    struct wire_msg m;
    size_t flen;

    if (auth_nonce (nonce) < 0 || session_secret (secret) < 0)
        return 1;
    wire_request_init (&m, "link.open", 1, json_pack ("{s:s}", "nonce", nonce));
    if (link_payload (&m, dir, nonce, secret, payload) < 0
        || !(text = auth_encode (a, payload, sizeof (payload), AUTH_ANY_UID, &err))) {
        fprintf (stderr, "wire-sign: %s\n", err.text);
        wire_msg_release (&m);
        return 1;
    }
    m.cred = json_string (text);
    free (text);
    frame = wire_encode (&m, &flen);
    fwrite (frame + WIRE_HDR_LEN, 1, flen - WIRE_HDR_LEN, stdout);
    hex (secret, sizeof (secret), shex);
    printf ("\nsecret %s\n", shex);
    free (frame);
    wire_msg_release (&m);
    return 0;
}

/* wire-sign keys: check the answer, derive the session's keys. */
static int sign_keys (struct auth *a, enum auth_dir dir, const char *ni,
                      const char *shex, const struct wire_msg *ans)
{
    uint8_t ours[SESSION_SECRET_LEN], theirs[SESSION_SECRET_LEN];
    uint8_t send[SESSION_KEY_LEN], recv[SESSION_KEY_LEN];
    char binding[AUTH_BINDING_MAX], out[2 * SESSION_KEY_LEN + 1];
    struct hpcq_error err;
    struct auth_cred who;
    struct session *s;
    const char *text;
    void *payload;
    int len;

    if (!ni || !shex || unhex (shex, ours, sizeof (ours)) < 0) {
        fprintf (stderr, "wire-sign: keys needs --nonce and --secret\n");
        return 2;
    }
    if (auth_link_answer (ans, 1, ni, binding, &err) < 0
        || !(text = auth_cred_text (ans, &err))
        || auth_decode (a, text, &payload, &len, &who, &err) < 0) {
        fprintf (stderr, "wire-sign: %s\n", err.text);
        return 1;
    }
    if (link_payload_check (ans, link_reverse (dir), binding, payload, len, theirs,
                            &err)
        < 0) {
        fprintf (stderr, "wire-sign: %s\n", err.text);
        free (payload);
        return 1;
    }
    free (payload);
    s = session_create (ours, theirs, binding, 1, 0, 0);
    session_keys (s, send, recv);
    session_destroy (s);
    hex (send, sizeof (send), out);
    printf ("send %s\n", out);
    hex (recv, sizeof (recv), out);
    printf ("recv %s\nuid %u\n", out, (unsigned)who.uid);
    return 0;
}

static int usage (void)
{
    fprintf (stderr,
             "usage: wire-sign [--to scheduler|worker|tm] [--binding B] "
             "[--ttl SECONDS] < MESSAGE\n"
             "       wire-sign open [--to scheduler|tm] [--ttl SECONDS]\n"
             "       wire-sign keys --nonce NI --secret HEX [--to scheduler|tm] "
             "< ANSWER\n");
    return 2;
}

int main (int argc, char **argv)
{
    enum auth_dir dir = AUTH_TO_SCHEDULER;
    const char *binding = "", *mode = NULL, *nonce = NULL, *secret = NULL;
    int ttl = 60, rc = 1;
    struct hpcq_error err;
    struct wire_msg m;
    struct auth *a = NULL;
    size_t len, flen;
    char *text, *frame = NULL;

    int first = 1;
    if (argc > 1 && (strcmp (argv[1], "open") == 0 || strcmp (argv[1], "keys") == 0))
        mode = argv[first++];
    for (int i = first; i < argc; i++) {
        if (strcmp (argv[i], "--to") == 0 && i + 1 < argc) {
            const char *to = argv[++i];
            if (strcmp (to, "worker") == 0)
                dir = AUTH_TO_WORKER;
            else if (strcmp (to, "tm") == 0)
                dir = AUTH_TO_TM;
            else if (strcmp (to, "scheduler") != 0)
                return usage ();
        } else if (strcmp (argv[i], "--binding") == 0 && i + 1 < argc)
            binding = argv[++i];
        else if (strcmp (argv[i], "--nonce") == 0 && i + 1 < argc)
            nonce = argv[++i];
        else if (strcmp (argv[i], "--secret") == 0 && i + 1 < argc)
            secret = argv[++i];
        else if (strcmp (argv[i], "--ttl") == 0 && i + 1 < argc)
            ttl = atoi (argv[++i]);
        else
            return usage ();
    }
    if (mode && strcmp (mode, "open") == 0) {
        if (!(a = auth_create (getenv ("HPCQ_MUNGE_SOCKET"), ttl, &err))) {
            fprintf (stderr, "wire-sign: %s\n", err.text);
            return 1;
        }
        rc = sign_open (a, dir);
        auth_destroy (a);
        return rc;
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
    if (mode) { /* keys */
        if (!(a = auth_create (getenv ("HPCQ_MUNGE_SOCKET"), 3600, &err)))
            fprintf (stderr, "wire-sign: %s\n", err.text);
        else
            rc = sign_keys (a, dir, nonce, secret, &m);
        wire_msg_release (&m);
        auth_destroy (a);
        free (text);
        return rc;
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
