/* auth.c - see auth.h
 *
 * Two libmunge contexts: munge_decode() overwrites a context's options
 * with those of the credential it decoded (its TTL among them), so
 * encoding from the same context would inherit whatever a peer chose.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <munge.h>
#include <nettle/memops.h>
#include <nettle/sha2.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/log.h"
#include "common/util.h"

#define AUTH_DOMAIN "hpcq-wire-1"
#define AUTH_MAX_SERVICE 3

struct auth {
    munge_ctx_t enc, dec;
    char *socket; /* NULL: libmunge's default */
    int ttl;
    uid_t service[AUTH_MAX_SERVICE];
    int nservice;
};

static const char *dir_names[] = { "to-scheduler", "to-worker", "to-tm", "from-tm" };

struct auth *auth_create (const char *socket, int ttl, struct hpcq_error *err)
{
    struct auth *a = xzalloc (sizeof (*a));
    munge_err_t e = EMUNGE_SUCCESS;

    a->ttl = ttl;
    a->socket = socket ? xstrdup (socket) : NULL;
    if (!(a->enc = munge_ctx_create ()) || !(a->dec = munge_ctx_create ())) {
        errprintf (err, "cannot create a MUNGE context: out of memory");
        goto error;
    }
    if (socket
        && ((e = munge_ctx_set (a->enc, MUNGE_OPT_SOCKET, socket)) != EMUNGE_SUCCESS
            || (e = munge_ctx_set (a->dec, MUNGE_OPT_SOCKET, socket))
                   != EMUNGE_SUCCESS)) {
        errprintf (err, "munge_socket '%s': %s", socket, munge_strerror (e));
        goto error;
    }
    if ((e = munge_ctx_set (a->enc, MUNGE_OPT_TTL, ttl)) != EMUNGE_SUCCESS) {
        errprintf (err, "munge_ttl %d: %s", ttl, munge_strerror (e));
        goto error;
    }
    return a;
error:
    auth_destroy (a);
    errno = EINVAL;
    return NULL;
}

void auth_destroy (struct auth *a)
{
    if (!a)
        return;
    int saved = errno;
    if (a->enc)
        munge_ctx_destroy (a->enc);
    if (a->dec)
        munge_ctx_destroy (a->dec);
    free (a->socket);
    free (a);
    errno = saved;
}

struct auth *auth_clone (const struct auth *a, struct hpcq_error *err)
{
    struct auth *b = auth_create (a->socket, a->ttl, err);

    if (b) {
        memcpy (b->service, a->service, sizeof (a->service));
        b->nservice = a->nservice;
    }
    return b;
}

int auth_ttl (const struct auth *a)
{
    return a->ttl;
}

static void auth_add_service (struct auth *a, uid_t uid)
{
    if (auth_is_service (a, uid) || a->nservice == AUTH_MAX_SERVICE)
        return;
    a->service[a->nservice++] = uid;
}

int auth_is_service (const struct auth *a, uid_t uid)
{
    for (int i = 0; i < a->nservice; i++)
        if (a->service[i] == uid)
            return 1;
    return 0;
}

void auth_trust_uid (struct auth *a, uid_t uid)
{
    auth_add_service (a, uid);
}

/* service_user: a user name or a numeric uid. */
int auth_service_user (struct auth *a, const char *name, struct hpcq_error *err)
{
    struct passwd pw, *res = NULL;
    char buf[4096], *end;
    unsigned long uid;

    if (getpwnam_r (name, &pw, buf, sizeof (buf), &res) == 0 && res) {
        auth_add_service (a, res->pw_uid);
        return 0;
    }
    errno = 0;
    uid = strtoul (name, &end, 10);
    if (errno || end == name || *end || uid >= (uid_t)-1) {
        errno = EINVAL;
        return errprintf (err, "service_user: no such user '%s'", name);
    }
    auth_add_service (a, (uid_t)uid);
    return 0;
}

/* Make and check one credential, so a daemon that cannot authenticate
 * says so at start rather than at its first message. */
static int auth_probe (struct auth *a, struct hpcq_error *err)
{
    struct wire_msg m;
    struct auth_cred cred;
    json_t *c;
    int rc = -1;

    wire_request_init (&m, "auth.probe", 0, NULL);
    if ((c = auth_sign (a, &m, AUTH_TO_SCHEDULER, "", err))) {
        m.cred = c;
        rc = auth_verify (a, &m, AUTH_TO_SCHEDULER, "", &cred, err);
    }
    wire_msg_release (&m);
    return rc;
}

int auth_from_config (const struct config *cfg, const char *prog, struct auth **ap,
                      struct hpcq_error *err)
{
    const char *mode = config_get (cfg, "auth", "munge");
    const char *user = config_get (cfg, "service_user", NULL);
    int64_t ttl;

    *ap = NULL;
    if (strcmp (mode, "none") == 0) {
        const char *warn = "authentication is OFF (auth = none): any user who can "
                           "reach the TCP port can pose as a worker or as the "
                           "scheduler; for development only";
        log_msg (LOG_WARNING, "%s", warn);
        fprintf (stderr, "%s: WARNING: %s\n", prog, warn);
        return 0;
    }
    if (strcmp (mode, "munge") != 0) {
        errno = EINVAL;
        return errprintf (err, "auth: invalid value '%s' (want munge or none)", mode);
    }
    if (config_get_int (cfg, "munge_ttl", 60, 1, 3600, &ttl, err) < 0)
        return -1;
    if (!(*ap = auth_create (config_get (cfg, "munge_socket", NULL), (int)ttl, err)))
        return -1;
    auth_add_service (*ap, 0);
    auth_add_service (*ap, getuid ());
    if ((user && auth_service_user (*ap, user, err) < 0) || auth_probe (*ap, err) < 0) {
        auth_destroy (*ap);
        *ap = NULL;
        return -1;
    }
    return 0;
}

/* libmunge's detail about the last error on ctx, else the code's text. */
static const char *auth_munge_error (munge_ctx_t ctx, munge_err_t e)
{
    const char *s = munge_ctx_strerror (ctx);

    return s ? s : munge_strerror (e);
}

static int digest_feed (const char *buf, size_t len, void *arg)
{
    sha256_update (arg, len, (const uint8_t *)buf);
    return 0;
}

int auth_digest (const struct wire_msg *m, enum auth_dir dir, const char *binding,
                 uint8_t out[AUTH_DIGEST_LEN])
{
    struct sha256_ctx ctx;
    json_t *env;
    int rc;

    /* Every envelope field but cred, as the receiver will decode it. */
    env = json_pack ("{s:i s:s s:I s:b s:i s:s? s:O}", "v", m->version, "type", m->type,
                     "id", (json_int_t)m->id, "reply", m->is_reply, "errnum", m->errnum,
                     "error", m->errstr, "body", m->body);
    if (!env) {
        errno = ENOMEM;
        return -1;
    }
    sha256_init (&ctx);
    sha256_update (&ctx, sizeof (AUTH_DOMAIN), (const uint8_t *)AUTH_DOMAIN);
    sha256_update (&ctx, strlen (dir_names[dir]) + 1, (const uint8_t *)dir_names[dir]);
    sha256_update (&ctx, strlen (binding) + 1, (const uint8_t *)binding);
    rc = json_dump_callback (env, digest_feed, &ctx, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref (env);
    if (rc < 0) {
        errno = ENOMEM;
        return -1;
    }
    sha256_digest (&ctx, AUTH_DIGEST_LEN, out);
    return 0;
}

char *auth_encode (struct auth *a, const void *payload, int len, uid_t restrict_uid,
                   struct hpcq_error *err)
{
    char *text = NULL;
    munge_err_t e;

    e = munge_ctx_set (a->enc, MUNGE_OPT_UID_RESTRICTION, restrict_uid);
    if (e == EMUNGE_SUCCESS)
        e = munge_encode (&text, a->enc, payload, len);
    if (e != EMUNGE_SUCCESS) {
        errprintf (err, "cannot get a MUNGE credential: %s",
                   auth_munge_error (a->enc, e));
        free (text);
        errno = EPERM;
        return NULL;
    }
    return text;
}

json_t *auth_sign (struct auth *a, const struct wire_msg *m, enum auth_dir dir,
                   const char *binding, struct hpcq_error *err)
{
    uint8_t digest[AUTH_DIGEST_LEN];
    char *text;
    json_t *cred;

    if (auth_digest (m, dir, binding, digest) < 0) {
        errprintf (err, "cannot sign %s: %s", m->type, strerror (errno));
        return NULL;
    }
    if (!(text = auth_encode (a, digest, sizeof (digest), AUTH_ANY_UID, err)))
        return NULL;
    cred = json_string (text);
    free (text);
    if (!cred) {
        errno = ENOMEM;
        errprintf (err, "cannot sign %s: out of memory", m->type);
    }
    return cred;
}

static int auth_refuse (struct hpcq_error *err, const char *fmt, const char *what)
{
    errno = EPERM;
    return errprintf (err, fmt, what);
}

/* The rest of what munged knows about a credential it decoded. */
static void auth_cred_info (struct auth *a, struct auth_cred *cred)
{
    struct in_addr addr = { 0 };
    time_t t = 0;

    cred->ttl = 0;
    (void)munge_ctx_get (a->dec, MUNGE_OPT_TTL, &cred->ttl);
    (void)munge_ctx_get (a->dec, MUNGE_OPT_ENCODE_TIME, &t);
    (void)munge_ctx_get (a->dec, MUNGE_OPT_ADDR4, &addr);
    cred->encoded = t;
    if (!inet_ntop (AF_INET, &addr, cred->addr, sizeof (cred->addr)))
        snprintf (cred->addr, sizeof (cred->addr), "?");
}

const char *auth_cred_text (const struct wire_msg *m, struct hpcq_error *err)
{
    const char *text = json_string_value (m->cred);

    if (!m->cred) {
        auth_refuse (err, "%s carries no credential", m->type);
        return NULL;
    }
    if (!text || strncmp (text, "MUNGE:", 6) != 0) {
        auth_refuse (err, "%s carries no MUNGE credential", m->type);
        return NULL;
    }
    return text;
}

int auth_decode (struct auth *a, const char *text, void **payloadp, int *lenp,
                 struct auth_cred *cred, struct hpcq_error *err)
{
    void *payload = NULL;
    int len = 0;
    munge_err_t e;

    memset (cred, 0, sizeof (*cred));
    *payloadp = NULL;
    *lenp = 0;
    e = munge_decode (text, a->dec, &payload, &len, &cred->uid, &cred->gid);
    auth_cred_info (a, cred);
    if (e != EMUNGE_SUCCESS) {
        free (payload);
        /* Replayed, expired and rewound credentials are intact: their
         * maker is known and worth a log line. */
        if (e == EMUNGE_CRED_REPLAYED || e == EMUNGE_CRED_EXPIRED
            || e == EMUNGE_CRED_REWOUND) {
            errno = EPERM;
            return errprintf (err, "credential refused: %s (made by uid %u on %s)",
                              munge_strerror (e), (unsigned)cred->uid, cred->addr);
        }
        return auth_refuse (err, "credential refused: %s",
                            auth_munge_error (a->dec, e));
    }
    if (cred->ttl > a->ttl) {
        free (payload);
        errno = EPERM;
        return errprintf (err,
                          "credential refused: made to live %d s, more than "
                          "munge_ttl (%d s)",
                          cred->ttl, a->ttl);
    }
    *payloadp = payload;
    *lenp = len;
    return 0;
}

int auth_check_digest (const struct wire_msg *m, enum auth_dir dir, const char *binding,
                       const void *payload, int len, struct hpcq_error *err)
{
    uint8_t digest[AUTH_DIGEST_LEN];

    if (len >= AUTH_DIGEST_LEN && auth_digest (m, dir, binding, digest) == 0
        && nettle_memeql_sec (payload, digest, AUTH_DIGEST_LEN))
        return 0;
    return auth_refuse (err,
                        "credential refused: it was not made for this %s "
                        "on this connection",
                        m->type);
}

int auth_verify (struct auth *a, const struct wire_msg *m, enum auth_dir dir,
                 const char *binding, struct auth_cred *cred, struct hpcq_error *err)
{
    const char *text;
    void *payload;
    int len, rc;

    memset (cred, 0, sizeof (*cred));
    if (!(text = auth_cred_text (m, err))
        || auth_decode (a, text, &payload, &len, cred, err) < 0)
        return -1;
    rc = len == AUTH_DIGEST_LEN ? auth_check_digest (m, dir, binding, payload, len, err)
                                : auth_check_digest (m, dir, binding, payload, 0, err);
    free (payload);
    return rc;
}

int auth_link_answer (const struct wire_msg *msg, int64_t open_id, const char *ours,
                      char binding[AUTH_BINDING_MAX], struct hpcq_error *err)
{
    const char *theirs;

    if (!msg->is_reply || msg->id != open_id || strcmp (msg->type, "link.open") != 0)
        return errprintf (err, "%s%s before the link was open", msg->type,
                          msg->is_reply ? " reply" : "");
    if (msg->errnum)
        return errprintf (err, "it refused link.open: %s",
                          msg->errstr ? msg->errstr : strerror (msg->errnum));
    if (json_unpack (msg->body, "{s:s}", "nonce", &theirs) < 0
        || strlen (theirs) != AUTH_NONCE_HEX)
        return errprintf (err, "link.open: its answer has no nonce");
    snprintf (binding, AUTH_BINDING_MAX, "%s:%s", ours, theirs);
    return 0;
}

int auth_nonce (char buf[AUTH_NONCE_HEX + 1])
{
    unsigned char raw[AUTH_NONCE_HEX / 2];
    size_t got = 0;

    while (got < sizeof (raw)) {
        ssize_t n = getrandom (raw + got, sizeof (raw) - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        got += n;
    }
    for (size_t i = 0; i < sizeof (raw); i++)
        snprintf (buf + 2 * i, 3, "%02x", raw[i]);
    return 0;
}
