/* test_auth.c - message digests (what a credential is bound to) and, with a
 * munged of the test's own, signing and checking credentials. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/util.h"
#include "common/wire.h"
#include "common/test/tap.h"

static void build_msg (struct wire_msg *m)
{
    /* Keys in no particular order, reals, escapes, non-ASCII, nesting:
     * whatever jansson might write differently after a round trip. */
    json_t *body =
        json_pack ("{s:i s:f s:f s:s s:s s:{s:[i,f,s,n,b] s:I} s:s}", "zeta", 1,
                   "alpha", 0.1, "big", 1e300, "quote", "a\"b\\c\n\t\x01", "utf8",
                   "caf\xc3\xa9 \xe2\x9c\x93", "nested", "list", 1, -2.5, "x", 0, "id",
                   (json_int_t)9007199254740993LL, "mid", "m");

    wire_request_init (m, "node.hello", 42, body);
}

static void digest_of (const struct wire_msg *m, enum auth_dir dir, const char *binding,
                       uint8_t out[AUTH_DIGEST_LEN])
{
    if (auth_digest (m, dir, binding, out) < 0)
        memset (out, 0, AUTH_DIGEST_LEN);
}

/* A message as the receiver sees it: encoded, framed, decoded. */
static int roundtrip (const struct wire_msg *m, struct wire_msg *out)
{
    struct hpcq_error err;
    size_t len;
    char *buf = wire_encode (m, &len);
    int rc = buf ? wire_decode (buf + WIRE_HDR_LEN, len - WIRE_HDR_LEN, out, &err) : -1;

    free (buf);
    return rc;
}

static void test_digest (void)
{
    struct wire_msg m, got;
    uint8_t a[AUTH_DIGEST_LEN], b[AUTH_DIGEST_LEN];

    build_msg (&m);
    digest_of (&m, AUTH_TO_SCHEDULER, "n1:n2", a);
    ok (roundtrip (&m, &got) == 0, "the message survives encode and decode");
    digest_of (&got, AUTH_TO_SCHEDULER, "n1:n2", b);
    ok (memcmp (a, b, sizeof (a)) == 0,
        "sender and receiver compute the same digest (sorted keys, reals, UTF-8)");
    got.cred = json_string ("MUNGE:whatever");
    digest_of (&got, AUTH_TO_SCHEDULER, "n1:n2", b);
    ok (memcmp (a, b, sizeof (a)) == 0, "the credential itself is not digested");

    digest_of (&m, AUTH_TO_WORKER, "n1:n2", b);
    ok (memcmp (a, b, sizeof (a)) != 0, "the direction changes the digest");
    digest_of (&m, AUTH_TO_SCHEDULER, "n1:n3", b);
    ok (memcmp (a, b, sizeof (a)) != 0, "the link's binding changes the digest");
    digest_of (&m, AUTH_TO_SCHEDULER, "", b);
    ok (memcmp (a, b, sizeof (a)) != 0, "no binding is not the same as a binding");

    json_object_set_new (got.body, "zeta", json_integer (2));
    digest_of (&got, AUTH_TO_SCHEDULER, "n1:n2", b);
    ok (memcmp (a, b, sizeof (a)) != 0, "a changed body changes the digest");
    json_object_set_new (got.body, "zeta", json_integer (1));
    snprintf (got.type, sizeof (got.type), "job.finished");
    digest_of (&got, AUTH_TO_SCHEDULER, "n1:n2", b);
    ok (memcmp (a, b, sizeof (a)) != 0, "the type is digested");
    snprintf (got.type, sizeof (got.type), "node.hello");
    got.id = 43;
    digest_of (&got, AUTH_TO_SCHEDULER, "n1:n2", b);
    ok (memcmp (a, b, sizeof (a)) != 0, "the id is digested");
    got.id = 42;
    got.is_reply = 1;
    digest_of (&got, AUTH_TO_SCHEDULER, "n1:n2", b);
    ok (memcmp (a, b, sizeof (a)) != 0, "a reply is not the request");
    got.errnum = EPERM;
    got.errstr = strdup ("no");
    digest_of (&got, AUTH_TO_SCHEDULER, "n1:n2", a);
    free (got.errstr);
    got.errstr = strdup ("yes");
    digest_of (&got, AUTH_TO_SCHEDULER, "n1:n2", b);
    ok (memcmp (a, b, sizeof (a)) != 0, "a reply's error text is digested");
    wire_msg_release (&got);
    wire_msg_release (&m);
}

static void test_nonce (void)
{
    char a[AUTH_NONCE_HEX + 1], b[AUTH_NONCE_HEX + 1];

    ok (auth_nonce (a) == 0 && auth_nonce (b) == 0, "auth_nonce works");
    ok (strlen (a) == AUTH_NONCE_HEX
            && strspn (a, "0123456789abcdef") == AUTH_NONCE_HEX,
        "a nonce is %d hex digits", AUTH_NONCE_HEX);
    ok (strcmp (a, b) != 0, "two nonces differ");
}

/* answer_to (ID, TYPE, IS_REPLY, ERRNUM, NONCE): what might come back to a
 * link.open, and what auth_link_answer makes of it. */
static int answer_to (int64_t id, const char *type, int is_reply, int errnum,
                      const char *nonce, char *binding, struct hpcq_error *err)
{
    struct wire_msg m;
    int rc;

    wire_request_init (&m, type, id,
                       nonce ? json_pack ("{s:s}", "nonce", nonce) : NULL);
    m.is_reply = is_reply;
    m.errnum = errnum;
    if (errnum)
        m.errstr = strdup ("authentication is off");
    rc = auth_link_answer (&m, 7, "aa", binding, err);
    wire_msg_release (&m);
    return rc;
}

static void test_link_answer (void)
{
    char binding[AUTH_BINDING_MAX] = "", theirs[AUTH_NONCE_HEX + 1], want[80];
    struct hpcq_error err;

    memset (theirs, 'b', AUTH_NONCE_HEX);
    theirs[AUTH_NONCE_HEX] = '\0';
    snprintf (want, sizeof (want), "aa:%s", theirs);
    ok (answer_to (7, "link.open", 1, 0, theirs, binding, &err) == 0
            && strcmp (binding, want) == 0,
        "link.open's answer binds the link to our nonce and theirs");
    ok (answer_to (8, "link.open", 1, 0, theirs, binding, &err) < 0
            && strstr (err.text, "before the link was open"),
        "an answer to another request does not open the link");
    ok (answer_to (7, "job.launch", 0, 0, theirs, binding, &err) < 0
            && strstr (err.text, "job.launch before the link was open"),
        "a request before the answer does not open the link");
    ok (answer_to (7, "link.open", 1, EPERM, NULL, binding, &err) < 0
            && strstr (err.text, "refused link.open: authentication is off"),
        "a refusal says why");
    ok (answer_to (7, "link.open", 1, 0, "short", binding, &err) < 0
            && strstr (err.text, "no nonce"),
        "an answer with a bad nonce is refused");
    ok (answer_to (7, "link.open", 1, 0, NULL, binding, &err) < 0
            && strstr (err.text, "no nonce"),
        "an answer without a nonce is refused");
}

/* A munged of our own in a temporary folder; its socket path, or NULL. */
static char tmpdir[] = "/tmp/hpcq-test-auth.XXXXXX";

static const char *munged_start (void)
{
    static char sock[200];
    char cmd[1024];

    if (system ("command -v munged >/dev/null && command -v mungekey >/dev/null") != 0
        || !mkdtemp (tmpdir))
        return NULL;
    snprintf (sock, sizeof (sock), "%s/munge.sock", tmpdir);
    snprintf (cmd, sizeof (cmd),
              "mungekey -c -k %1$s/key && munged --force -S %1$s/munge.sock "
              "--key-file=%1$s/key --pid-file=%1$s/pid --log-file=%1$s/log "
              "--seed-file=%1$s/seed",
              tmpdir);
    if (system (cmd) != 0)
        return NULL;
    return sock;
}

static void munged_stop (void)
{
    char cmd[1024];

    snprintf (cmd, sizeof (cmd),
              "munged -S %1$s/munge.sock --stop >/dev/null 2>&1; "
              "rm -rf %1$s",
              tmpdir);
    if (system (cmd) != 0)
        diag ("could not stop the test's munged in %s", tmpdir);
}

/* Sign m with a, then check it with b as the receiver would see it. */
static int sign_check (struct auth *a, struct auth *b, struct wire_msg *m,
                       const char *sign_binding, const char *check_binding,
                       struct auth_cred *cred, struct hpcq_error *err)
{
    struct wire_msg got;
    int rc;

    json_decref (m->cred);
    if (!(m->cred = auth_sign (a, m, AUTH_TO_WORKER, sign_binding, err)))
        return -2;
    if (roundtrip (m, &got) < 0)
        return -3;
    rc = auth_verify (b, &got, AUTH_TO_WORKER, check_binding, cred, err);
    wire_msg_release (&got);
    return rc;
}

static void test_munge (void)
{
    const char *sock = munged_start ();
    struct auth *a, *shortlived;
    struct hpcq_error err = { "" };
    struct auth_cred cred;
    struct wire_msg m, got;
    json_t *saved;

    if (!sock) {
        printf ("ok %d - signing and checking credentials # SKIP no munged here "
                "(install munge)\n",
                ++tap_count);
        return;
    }
    a = auth_create (sock, 120, &err);
    shortlived = auth_create (sock, 60, &err);
    ok (a && shortlived, "auth_create with the test's munged");
    if (!a || !shortlived) {
        auth_destroy (a);
        auth_destroy (shortlived);
        munged_stop ();
        return;
    }
    build_msg (&m);
    ok (sign_check (a, a, &m, "b1", "b1", &cred, &err) == 0, "a signed message checks");
    ok (cred.uid == getuid () && cred.gid == getgid () && cred.ttl == 120,
        "munged vouches for our uid, gid and the TTL asked for");

    ok (roundtrip (&m, &got) == 0, "decode the same frame again");
    ok (auth_verify (a, &got, AUTH_TO_WORKER, "b1", &cred, &err) < 0 && errno == EPERM
            && strstr (err.text, "Replayed"),
        "the same credential twice is a replay: %s", err.text);
    wire_msg_release (&got);

    ok (sign_check (a, a, &m, "b1", "b2", &cred, &err) == -1
            && strstr (err.text, "not made for"),
        "a credential for another link is refused: %s", err.text);

    json_decref (m.cred);
    m.cred = auth_sign (a, &m, AUTH_TO_WORKER, "b1", &err);
    ok (roundtrip (&m, &got) == 0, "sign a message and decode it");
    json_object_set_new (got.body, "zeta", json_integer (7));
    ok (auth_verify (a, &got, AUTH_TO_WORKER, "b1", &cred, &err) < 0
            && strstr (err.text, "not made for"),
        "its credential on a changed body is refused: %s", err.text);
    wire_msg_release (&got);

    ok (sign_check (a, shortlived, &m, "b1", "b1", &cred, &err) == -1
            && strstr (err.text, "munge_ttl"),
        "a credential made to live longer than allowed is refused: %s", err.text);

    saved = m.cred;
    m.cred = NULL;
    ok (auth_verify (a, &m, AUTH_TO_WORKER, "b1", &cred, &err) < 0
            && strstr (err.text, "no credential"),
        "no credential is refused: %s", err.text);
    m.cred = json_string ("MUNGE:AwQFAAB1dW5rbm93bg==:");
    ok (auth_verify (a, &m, AUTH_TO_WORKER, "b1", &cred, &err) < 0,
        "a forged credential is refused: %s", err.text);
    json_decref (m.cred);
    m.cred = json_pack ("{s:s}", "munge", "x");
    ok (auth_verify (a, &m, AUTH_TO_WORKER, "b1", &cred, &err) < 0
            && strstr (err.text, "no MUNGE credential"),
        "a credential that is not a MUNGE string is refused: %s", err.text);
    json_decref (saved);
    wire_msg_release (&m);
    auth_destroy (a);
    auth_destroy (shortlived);
    munged_stop ();
}

int main (void)
{
    plan (NO_PLAN);
    test_digest ();
    test_nonce ();
    test_link_answer ();
    test_munge ();
    return done_testing ();
}
