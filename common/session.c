/* session.c - see session.h
 *
 * Each direction keeps a keyed HMAC context: nettle's hmac_sha256_digest
 * leaves it ready for the next message, so a frame costs two SHA-256
 * passes over its bytes and no key set-up.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <nettle/hkdf.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/types.h>

#include "common/session.h"
#include "common/util.h"
#include "common/wire.h"

#define SESSION_INFO "hpcq-session-1 "

struct session {
    struct hmac_sha256_ctx send, recv;
    uint8_t send_key[SESSION_KEY_LEN], recv_key[SESSION_KEY_LEN];
    uint64_t send_seq, recv_seq;
    int64_t expires_ms; /* 0: never */
};

static void session_expand (const uint8_t prk[SHA256_DIGEST_SIZE], const char *dir,
                            uint8_t key[SESSION_KEY_LEN])
{
    struct hmac_sha256_ctx ctx;
    char info[32];
    size_t n = strlen (SESSION_INFO);

    memcpy (info, SESSION_INFO, n);
    memcpy (info + n, dir, 3);
    hmac_sha256_set_key (&ctx, SHA256_DIGEST_SIZE, prk);
    hkdf_expand (&ctx, (nettle_hash_update_func *)hmac_sha256_update,
                 (nettle_hash_digest_func *)hmac_sha256_digest, SHA256_DIGEST_SIZE,
                 n + 3, (const uint8_t *)info, SESSION_KEY_LEN, key);
}

struct session *session_create (const uint8_t ours[SESSION_SECRET_LEN],
                                const uint8_t theirs[SESSION_SECRET_LEN],
                                const char *binding, int initiator, int64_t now_ms,
                                int64_t lifetime_ms)
{
    struct session *s = xzalloc (sizeof (*s));
    uint8_t ikm[2 * SESSION_SECRET_LEN], prk[SHA256_DIGEST_SIZE];
    struct hmac_sha256_ctx ctx;

    /* IKM is always the initiator's secret first, so both ends agree. */
    memcpy (ikm, initiator ? ours : theirs, SESSION_SECRET_LEN);
    memcpy (ikm + SESSION_SECRET_LEN, initiator ? theirs : ours, SESSION_SECRET_LEN);
    hmac_sha256_set_key (&ctx, strlen (binding), (const uint8_t *)binding);
    hkdf_extract (&ctx, (nettle_hash_update_func *)hmac_sha256_update,
                  (nettle_hash_digest_func *)hmac_sha256_digest, SHA256_DIGEST_SIZE,
                  sizeof (ikm), ikm, prk);
    session_expand (prk, initiator ? "i2r" : "r2i", s->send_key);
    session_expand (prk, initiator ? "r2i" : "i2r", s->recv_key);
    hmac_sha256_set_key (&s->send, SESSION_KEY_LEN, s->send_key);
    hmac_sha256_set_key (&s->recv, SESSION_KEY_LEN, s->recv_key);
    s->expires_ms = lifetime_ms > 0 ? now_ms + lifetime_ms : 0;
    memset (ikm, 0, sizeof (ikm));
    memset (prk, 0, sizeof (prk));
    return s;
}

void session_destroy (struct session *s)
{
    if (!s)
        return;
    int saved = errno;
    explicit_bzero (s, sizeof (*s));
    free (s);
    errno = saved;
}

static void put_be64 (unsigned char *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)v;
}

static uint64_t get_be64 (const unsigned char *p)
{
    uint64_t v = 0;

    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static void session_mac (struct hmac_sha256_ctx *ctx, const unsigned char seq[8],
                         const char *json, size_t len, uint8_t out[SESSION_MAC_LEN])
{
    hmac_sha256_update (ctx, 8, seq);
    hmac_sha256_update (ctx, len, (const uint8_t *)json);
    hmac_sha256_digest (ctx, SESSION_MAC_LEN, out);
}

void session_seal (struct session *s, const char *json, size_t len,
                   unsigned char trailer[SESSION_TRAILER_LEN])
{
    put_be64 (trailer, s->send_seq++);
    session_mac (&s->send, trailer, json, len, trailer + 8);
}

char *session_seal_frame (struct session *s, char *buf, size_t *lenp)
{
    size_t len = *lenp, body = len - WIRE_HDR_LEN + SESSION_TRAILER_LEN;
    char *nbuf;

    if (body > WIRE_MAX_MSG) {
        free (buf);
        errno = EMSGSIZE;
        return NULL;
    }
    if (!(nbuf = realloc (buf, len + SESSION_TRAILER_LEN))) {
        free (buf);
        errno = ENOMEM;
        return NULL;
    }
    for (int i = 0; i < WIRE_HDR_LEN; i++)
        nbuf[i] = (char)(body >> (8 * (WIRE_HDR_LEN - 1 - i)));
    session_seal (s, nbuf + WIRE_HDR_LEN, len - WIRE_HDR_LEN,
                  (unsigned char *)nbuf + len);
    *lenp = len + SESSION_TRAILER_LEN;
    return nbuf;
}

ssize_t session_open (struct session *s, const char *body, size_t len,
                      struct hpcq_error *err)
{
    const unsigned char *trailer;
    uint8_t mac[SESSION_MAC_LEN];
    uint64_t seq;
    size_t jlen;

    errno = EPERM;
    if (len <= SESSION_TRAILER_LEN)
        return errprintf (err, "a frame too short to be sealed (%zu bytes)", len);
    jlen = len - SESSION_TRAILER_LEN;
    trailer = (const unsigned char *)body + jlen;
    session_mac (&s->recv, trailer, body, jlen, mac);
    if (!nettle_memeql_sec (mac, trailer + 8, SESSION_MAC_LEN))
        return errprintf (err, "a forged or damaged frame (its HMAC is wrong)");
    seq = get_be64 (trailer);
    if (seq != s->recv_seq) {
        errno = EPERM;
        return errprintf (err, "a %s frame (sequence %llu, expected %llu)",
                          seq < s->recv_seq ? "replayed" : "reordered or dropped",
                          (unsigned long long)seq, (unsigned long long)s->recv_seq);
    }
    s->recv_seq++;
    return (ssize_t)jlen;
}

int session_expired (const struct session *s, int64_t now_ms)
{
    return s->expires_ms && now_ms >= s->expires_ms;
}

uint64_t session_sent (const struct session *s)
{
    return s->send_seq;
}

uint64_t session_received (const struct session *s)
{
    return s->recv_seq;
}

int session_secret (uint8_t out[SESSION_SECRET_LEN])
{
    size_t got = 0;

    while (got < SESSION_SECRET_LEN) {
        ssize_t n = getrandom (out + got, SESSION_SECRET_LEN - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        got += n;
    }
    return 0;
}

void session_keys (const struct session *s, uint8_t send[SESSION_KEY_LEN],
                   uint8_t recv[SESSION_KEY_LEN])
{
    memcpy (send, s->send_key, SESSION_KEY_LEN);
    memcpy (recv, s->recv_key, SESSION_KEY_LEN);
}
