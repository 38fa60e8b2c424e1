/* test_session.c - a link's session key: derivation (RFC 5869 HKDF over
 * both secrets and the nonces), sealing, and what a receiver refuses:
 * replayed, reordered, truncated, forged and reflected frames.  Also the
 * handshake's credential payload (common/link.h). */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <nettle/hmac.h>
#include <stdio.h>
#include <string.h>

#include "common/link.h"
#include "common/session.h"
#include "common/wire.h"
#include "common/test/tap.h"

static uint8_t si[SESSION_SECRET_LEN], sr[SESSION_SECRET_LEN];
static const char *binding =
    "0123456789abcdef0123456789abcdef:fedcba9876543210fedcba9876543210";

/* A sealed frame body: json then its trailer. */
static size_t seal (struct session *s, const char *json, char *out)
{
    size_t n = strlen (json);

    memcpy (out, json, n);
    session_seal (s, json, n, (unsigned char *)out + n);
    return n + SESSION_TRAILER_LEN;
}

/* RFC 5869 written out with HMAC alone: what session_create must agree
 * with (one block of output: T(1) = HMAC (PRK, info || 0x01)). */
static void hkdf_by_hand (const char *dir, uint8_t out[SESSION_KEY_LEN])
{
    struct hmac_sha256_ctx h;
    uint8_t prk[SHA256_DIGEST_SIZE], one = 1;
    char info[64];

    snprintf (info, sizeof (info), "hpcq-session-1 %s", dir);
    hmac_sha256_set_key (&h, strlen (binding), (const uint8_t *)binding);
    hmac_sha256_update (&h, sizeof (si), si);
    hmac_sha256_update (&h, sizeof (sr), sr);
    hmac_sha256_digest (&h, sizeof (prk), prk);
    hmac_sha256_set_key (&h, sizeof (prk), prk);
    hmac_sha256_update (&h, strlen (info), (const uint8_t *)info);
    hmac_sha256_update (&h, 1, &one);
    hmac_sha256_digest (&h, SESSION_KEY_LEN, out);
}

static void test_keys (void)
{
    struct session *i = session_create (si, sr, binding, 1, 0, 0);
    struct session *r = session_create (sr, si, binding, 0, 0, 0);
    uint8_t is[SESSION_KEY_LEN], ir[SESSION_KEY_LEN], rs[SESSION_KEY_LEN],
        rr[SESSION_KEY_LEN], want[SESSION_KEY_LEN];

    session_keys (i, is, ir);
    session_keys (r, rs, rr);
    ok (memcmp (is, rr, sizeof (is)) == 0 && memcmp (ir, rs, sizeof (ir)) == 0,
        "both ends derive the same key for each direction");
    ok (memcmp (is, ir, sizeof (is)) != 0, "the two directions have different keys");
    hkdf_by_hand ("i2r", want);
    ok (memcmp (is, want, sizeof (want)) == 0,
        "the initiator's key is HKDF-SHA256 (salt the nonces, IKM both secrets)");
    hkdf_by_hand ("r2i", want);
    ok (memcmp (rs, want, sizeof (want)) == 0, "and so is the responder's");
    session_destroy (i);
    session_destroy (r);
}

static void test_frames (void)
{
    struct session *i = session_create (si, sr, binding, 1, 0, 0);
    struct session *r = session_create (sr, si, binding, 0, 0, 0);
    struct session *other = session_create (si, sr, "another:link", 0, 0, 0);
    struct hpcq_error err;
    char f0[256], f1[256], f2[256], bad[256];
    size_t n0, n1, n2;

    n0 = seal (i, "{\"a\":0}", f0);
    n1 = seal (i, "{\"a\":1}", f1);
    n2 = seal (i, "{\"a\":2}", f2);
    ok (session_open (r, f0, n0, &err) == (ssize_t)strlen ("{\"a\":0}"),
        "a sealed frame opens at the other end, giving its JSON's length");
    ok (session_open (r, f0, n0, &err) < 0 && errno == EPERM
            && strstr (err.text, "replayed frame (sequence 0, expected 1)"),
        "the same frame again is refused: %s", err.text);
    ok (session_open (r, f2, n2, &err) < 0
            && strstr (err.text, "reordered or dropped frame (sequence 2, expected 1)"),
        "a frame that skips one is refused: %s", err.text);
    memcpy (bad, f1, n1);
    ok (session_open (r, bad, n1 - 1, &err) < 0
            && strstr (err.text, "forged or damaged"),
        "a truncated frame is refused: %s", err.text);
    bad[3] ^= 1;
    ok (session_open (r, bad, n1, &err) < 0 && strstr (err.text, "forged or damaged"),
        "a frame with one bit changed is refused: %s", err.text);
    memcpy (bad, f1, n1);
    bad[n1 - SESSION_MAC_LEN - 1] ^= 1; /* its sequence number */
    ok (session_open (r, bad, n1, &err) < 0 && strstr (err.text, "forged or damaged"),
        "a changed sequence number is refused (the HMAC covers it)");
    ok (session_open (r, f1, SESSION_TRAILER_LEN, &err) < 0
            && strstr (err.text, "too short"),
        "a frame no longer than a trailer is refused: %s", err.text);
    ok (session_open (r, f1, n1, &err) > 0 && session_open (r, f2, n2, &err) > 0,
        "refusals change nothing: the next frames still open in order");
    ok (session_open (i, f0, n0, &err) < 0 && strstr (err.text, "forged"),
        "a frame sent back to its sender is refused (a key per direction)");
    n0 = seal (i, "{\"a\":3}", f0);
    ok (session_open (other, f0, n0, &err) < 0,
        "a frame of another link (other nonces) is refused");
    ok (session_sent (i) == 4 && session_received (r) == 3, "the counts are kept");
    session_destroy (i);
    session_destroy (r);
    session_destroy (other);
}

static void test_lifetime (void)
{
    struct session *s = session_create (si, sr, binding, 1, 1000, 500);
    struct session *forever = session_create (si, sr, binding, 1, 1000, 0);

    ok (!session_expired (s, 1499) && session_expired (s, 1500),
        "a session ends when its lifetime is over");
    ok (!session_expired (forever, INT64_C (1) << 60),
        "with no lifetime it never does");
    session_destroy (s);
    session_destroy (forever);
}

static void test_payload (void)
{
    uint8_t payload[LINK_PAYLOAD_LEN], got[SESSION_SECRET_LEN];
    struct hpcq_error err;
    struct wire_msg m;

    wire_request_init (&m, "link.open", 1,
                       json_pack ("{s:s}", "nonce",
                                  "0123456789abcdef0123456789abcdef"));
    ok (link_payload (&m, AUTH_TO_SCHEDULER, "n1", si, payload) == 0
            && link_payload_check (&m, AUTH_TO_SCHEDULER, "n1", payload,
                                   sizeof (payload), got, &err)
                   == 0
            && memcmp (got, si, sizeof (si)) == 0,
        "a link.open credential's payload carries its digest and our secret");
    ok (link_payload_check (&m, AUTH_TO_WORKER, "n1", payload, sizeof (payload), got,
                            &err)
            < 0,
        "it is refused in the other direction");
    ok (link_payload_check (&m, AUTH_TO_SCHEDULER, "n2", payload, sizeof (payload), got,
                            &err)
                < 0
            && strstr (err.text, "not made for this link.open"),
        "or on another link: %s", err.text);
    ok (link_payload_check (&m, AUTH_TO_SCHEDULER, "n1", payload, AUTH_DIGEST_LEN, got,
                            &err)
            < 0,
        "a digest with no secret (a one-shot request's credential) opens no link");
    ok (link_reverse (AUTH_TO_SCHEDULER) == AUTH_TO_WORKER
            && link_reverse (AUTH_TO_TM) == AUTH_FROM_TM,
        "answers go the other way");
    ok (link_nonce_ok ("0123456789abcdef0123456789abcdef") && !link_nonce_ok ("0123")
            && !link_nonce_ok ("0123456789ABCDEF0123456789ABCDEF"),
        "nonces are 32 lowercase hex digits");
    wire_msg_release (&m);
}

int main (void)
{
    plan (NO_PLAN);
    ok (session_secret (si) == 0 && session_secret (sr) == 0
            && memcmp (si, sr, sizeof (si)) != 0,
        "secrets are random");
    test_keys ();
    test_frames ();
    test_lifetime ();
    test_payload ();
    return done_testing ();
}
