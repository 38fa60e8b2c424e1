/* link.c - see link.h
 *
 * One handshake in flight per connection, in a struct link_hs that the
 * connection frees if it goes first (conn_set_pending), which cancels
 * its munged job.  Each step that waits on munged holds c's input, so
 * nothing the peer sends meanwhile is read before the session is in place.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <nettle/memops.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/link.h"
#include "common/log.h"
#include "common/util.h"

#define LINK_OPEN_ID 1
/* The responder's session outlives the initiator's by this much, so that
 * the end that opened the link (and opens the next) is the one to close
 * it, between its own messages. */
#define LINK_GRACE_MS 30000

struct link_hs {
    struct conn *c;
    struct link_opts o;
    int initiator;
    char ni[AUTH_NONCE_HEX + 1], nr[AUTH_NONCE_HEX + 1];
    char binding[AUTH_BINDING_MAX];
    uint8_t ours[SESSION_SECRET_LEN], theirs[SESSION_SECRET_LEN];
    uint8_t want[AUTH_DIGEST_LEN]; /* the digest the peer's credential must carry */
    struct wire_msg msg;           /* ours: link.open, or the answer */
    int64_t open_id;               /* responder: the request answered */
    char open_type[WIRE_TYPE_MAX];
    uid_t peer_uid;
    struct authq_job *job;
};

enum auth_dir link_reverse (enum auth_dir dir)
{
    switch (dir) {
    case AUTH_TO_SCHEDULER: return AUTH_TO_WORKER;
    case AUTH_TO_WORKER: return AUTH_TO_SCHEDULER;
    case AUTH_TO_TM: return AUTH_FROM_TM;
    case AUTH_FROM_TM: return AUTH_TO_TM;
    }
    return AUTH_TO_WORKER;
}

int link_lifetime_from_config (const struct config *cfg, int64_t *ms,
                               struct hpcq_error *err)
{
    int64_t s;

    if (config_get_int (cfg, "session_lifetime", 3600, 2, 7 * 86400, &s, err) < 0)
        return -1;
    *ms = s * 1000;
    return 0;
}

int link_nonce_ok (const char *s)
{
    return s && strlen (s) == AUTH_NONCE_HEX
           && strspn (s, "0123456789abcdef") == AUTH_NONCE_HEX;
}

int link_payload (const struct wire_msg *m, enum auth_dir dir, const char *binding,
                  const uint8_t *secret, uint8_t out[LINK_PAYLOAD_LEN])
{
    if (auth_digest (m, dir, binding, out) < 0)
        return -1;
    memcpy (out + AUTH_DIGEST_LEN, secret, SESSION_SECRET_LEN);
    return 0;
}

/* payload is want's digest and a secret (copied to secret). */
static int link_check (const uint8_t want[AUTH_DIGEST_LEN], const char *type,
                       const void *payload, int len, uint8_t *secret,
                       struct hpcq_error *err)
{
    if (len != LINK_PAYLOAD_LEN
        || !nettle_memeql_sec (payload, want, AUTH_DIGEST_LEN)) {
        errno = EPERM;
        return errprintf (err,
                          "credential refused: it was not made for this %s on "
                          "this connection",
                          type);
    }
    memcpy (secret, (const uint8_t *)payload + AUTH_DIGEST_LEN, SESSION_SECRET_LEN);
    return 0;
}

int link_payload_check (const struct wire_msg *m, enum auth_dir dir,
                        const char *binding, const void *payload, int len,
                        uint8_t *secret, struct hpcq_error *err)
{
    uint8_t want[AUTH_DIGEST_LEN];

    if (auth_digest (m, dir, binding, want) < 0)
        return errprintf (err, "%s: cannot digest it: %s", m->type, strerror (errno));
    return link_check (want, m->type, payload, len, secret, err);
}

static void hs_free (void *arg)
{
    struct link_hs *hs = arg;

    authq_cancel (hs->job);
    wire_msg_release (&hs->msg);
    explicit_bzero (hs, sizeof (*hs));
    free (hs);
}

/* Messages after a refusal, until the callee's close: dropped. */
static void hs_drop (struct conn *c, struct wire_msg *msg, void *arg)
{
}

/* The handshake failed: the initiator is told why (an error answer to
 * its link.open), c stays held, and done decides (it closes c). */
static void hs_fail (struct link_hs *hs, const char *why)
{
    struct conn *c = hs->c;
    struct link_opts o = hs->o;
    uid_t uid = hs->peer_uid;
    char text[300];

    snprintf (text, sizeof (text), "%s", why);
    if (!hs->initiator) {
        struct wire_msg req = { .id = hs->open_id };
        snprintf (req.type, sizeof (req.type), "%s", hs->open_type);
        (void)conn_reply (c, &req, EPERM, text, NULL);
    }
    conn_hold (c, 1);
    conn_set_intercept (c, hs_drop, NULL);
    conn_set_pending (c, NULL, NULL);
    hs_free (hs);
    o.done (c, -1, uid, text, o.arg);
}

/* Both secrets are known: the session goes in and c is the owner's again. */
static void hs_done (struct link_hs *hs)
{
    struct conn *c = hs->c;
    struct link_opts o = hs->o;
    uid_t uid = hs->peer_uid;
    int64_t life = hs->o.lifetime_ms;

    if (life > 0 && !hs->initiator)
        life += LINK_GRACE_MS;
    conn_set_session (c, session_create (hs->ours, hs->theirs, hs->binding,
                                         hs->initiator, util_now_ms (), life));
    conn_set_intercept (c, NULL, NULL);
    conn_set_pending (c, NULL, NULL);
    hs_free (hs);
    conn_hold (c, 0);
    o.done (c, 0, uid, NULL, o.arg);
}

/* Who made the peer's credential may speak on this link. */
static int hs_who (struct link_hs *hs, const struct authq_result *r, char *why,
                   size_t size)
{
    hs->peer_uid = r->who.uid;
    if (hs->o.service_only && !auth_is_service (authq_auth (hs->o.q), r->who.uid)) {
        snprintf (why, size,
                  "its credential is of uid %u, not root or the cluster's "
                  "service user",
                  (unsigned)r->who.uid);
        return -1;
    }
    return 0;
}

/* munged's answer on a credential of the peer: decoded, and from someone
 * the link takes.  0, or -1 with the handshake failed. */
static int hs_credential_ok (struct link_hs *hs, const struct authq_result *r)
{
    char why[160];

    hs->job = NULL;
    if (r->rc < 0) {
        hs_fail (hs, r->error);
        return -1;
    }
    if (hs_who (hs, r, why, sizeof (why)) < 0) {
        hs_fail (hs, why);
        return -1;
    }
    return 0;
}

/* ---- initiator ---- */

static void hs_answer_checked (struct authq_result *r, void *arg)
{
    struct link_hs *hs = arg;
    struct hpcq_error err;

    if (hs_credential_ok (hs, r) < 0)
        return;
    if (link_check (hs->want, "link.open answer", r->payload, r->len, hs->theirs, &err)
        < 0) {
        hs_fail (hs, err.text);
        return;
    }
    hs_done (hs);
}

/* The responder's answer: refused, or its nonce and credential, which
 * munged checks while c is held. */
static void hs_answer (struct conn *c, struct wire_msg *msg, void *arg)
{
    struct link_hs *hs = arg;
    struct hpcq_error err;
    const char *text;

    if (!hs->msg.type[0] || hs->job) {
        hs_fail (hs, "it spoke before our link.open");
        return;
    }
    if (auth_link_answer (msg, hs->open_id, hs->ni, hs->binding, &err) < 0
        || !(text = auth_cred_text (msg, &err))) {
        hs_fail (hs, err.text);
        return;
    }
    if (auth_digest (msg, link_reverse (hs->o.dir), hs->binding, hs->want) < 0) {
        hs_fail (hs, "cannot digest its answer");
        return;
    }
    conn_hold (c, 1);
    hs->job = authq_decode (hs->o.q, text, hs_answer_checked, hs);
}

/* munged signed our half of the handshake: send it with its credential.
 * 0, or -1 once the handshake has failed (hs_fail said why). */
static int hs_send_signed (struct link_hs *hs, struct authq_result *r)
{
    hs->job = NULL;
    if (r->rc < 0) {
        hs_fail (hs, r->error);
        return -1;
    }
    hs->msg.cred = json_string (r->cred);
    if (conn_send (hs->c, &hs->msg) < 0) {
        hs_fail (hs, strerror (errno));
        return -1;
    }
    return 0;
}

static void hs_open_signed (struct authq_result *r, void *arg)
{
    struct link_hs *hs = arg;

    if (hs_send_signed (hs, r) < 0)
        return;
    hs->open_id = hs->msg.id;
}

int link_open (struct conn *c, const struct link_opts *o)
{
    struct link_hs *hs = xzalloc (sizeof (*hs));
    uint8_t payload[LINK_PAYLOAD_LEN];

    hs->c = c;
    hs->o = *o;
    hs->initiator = 1;
    if (auth_nonce (hs->ni) < 0 || session_secret (hs->ours) < 0) {
        hs_free (hs);
        return -1;
    }
    wire_request_init (&hs->msg, "link.open", LINK_OPEN_ID,
                       json_pack ("{s:s}", "nonce", hs->ni));
    if (link_payload (&hs->msg, o->dir, hs->ni, hs->ours, payload) < 0) {
        hs_free (hs);
        return -1;
    }
    hs->open_id = -1; /* nothing is an answer before link.open goes */
    conn_set_intercept (c, hs_answer, hs);
    conn_set_pending (c, hs, hs_free);
    hs->job = authq_encode (o->q, payload, sizeof (payload), AUTH_ANY_UID,
                            hs_open_signed, hs);
    explicit_bzero (payload, sizeof (payload));
    return 0;
}

/* ---- responder ---- */

static void hs_answer_signed (struct authq_result *r, void *arg)
{
    struct link_hs *hs = arg;

    if (hs_send_signed (hs, r) < 0)
        return;
    hs_done (hs);
}

static void hs_open_checked (struct authq_result *r, void *arg)
{
    struct link_hs *hs = arg;
    struct hpcq_error err;
    uint8_t payload[LINK_PAYLOAD_LEN];

    if (hs_credential_ok (hs, r) < 0)
        return;
    if (link_check (hs->want, "link.open", r->payload, r->len, hs->theirs, &err) < 0) {
        hs_fail (hs, err.text);
        return;
    }
    /* The answer's credential only the initiator's uid may decode: its
     * secret is for that end alone. */
    if (link_payload (&hs->msg, link_reverse (hs->o.dir), hs->binding, hs->ours,
                      payload)
        < 0) {
        hs_fail (hs, "cannot digest the answer");
        return;
    }
    hs->job = authq_encode (hs->o.q, payload, sizeof (payload), hs->peer_uid,
                            hs_answer_signed, hs);
    explicit_bzero (payload, sizeof (payload));
}

void link_accept (struct conn *c, const struct wire_msg *open, json_t *extra,
                  const struct link_opts *o)
{
    struct link_hs *hs = xzalloc (sizeof (*hs));
    struct hpcq_error err;
    const char *theirs = NULL, *text;
    json_t *body;

    hs->c = c;
    hs->o = *o;
    hs->peer_uid = (uid_t)-1;
    hs->open_id = open->id;
    snprintf (hs->open_type, sizeof (hs->open_type), "%s", open->type);
    conn_hold (c, 1);
    conn_set_intercept (c, hs_drop, NULL);
    conn_set_pending (c, hs, hs_free);
    if (json_unpack (open->body, "{s:s}", "nonce", &theirs) < 0
        || !link_nonce_ok (theirs)) {
        json_decref (extra);
        hs_fail (hs, "link.open: missing or bad nonce");
        return;
    }
    snprintf (hs->ni, sizeof (hs->ni), "%s", theirs);
    if (!(text = auth_cred_text (open, &err))) {
        json_decref (extra);
        hs_fail (hs, err.text);
        return;
    }
    if (auth_nonce (hs->nr) < 0 || session_secret (hs->ours) < 0
        || auth_digest (open, o->dir, hs->ni, hs->want) < 0) {
        json_decref (extra);
        hs_fail (hs, "link.open: no random numbers");
        return;
    }
    snprintf (hs->binding, sizeof (hs->binding), "%s:%s", hs->ni, hs->nr);
    body = extra ? extra : json_object ();
    json_object_set_new (body, "nonce", json_string (hs->nr));
    wire_reply_init (&hs->msg, open, 0, NULL, body);
    hs->job = authq_decode (o->q, text, hs_open_checked, hs);
}
