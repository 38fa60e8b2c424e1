/* replica_link.c - see replica_link.h
 *
 * libraft's TCP transport opens a link and sends its own handshake (the
 * connecting replica's id and address); this transport then holds the
 * stream for a challenge and answer of its own before libraft gets it.
 * Each side reads exactly the bytes it waits for, so nothing of what
 * libraft sends later is taken.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "scheduler/replica_link.h"

#define NONCE_LEN 16
#define MAC_LEN SHA256_DIGEST_SIZE
#define KEY_MAX 256

enum side { CONNECTING, ACCEPTING };

/* One link in its opening. */
struct opening {
    struct replica_link *rl;
    enum side side;
    uv_stream_t *stream;
    raft_id id;
    char address[256];
    uint8_t nonce[NONCE_LEN];
    uint8_t mac[MAC_LEN];
    uint8_t in[MAC_LEN]; /* what is read */
    size_t want, got;
    void (*then) (struct opening *o);
    uv_write_t wreq;
    struct raft_uv_connect inner_req;
    struct raft_uv_connect *req; /* libraft's, connecting side */
    raft_uv_connect_cb cb;
    struct opening *next;
};

struct replica_link {
    struct raft_uv_transport outer, inner;
    uint8_t key[KEY_MAX];
    size_t keylen;
    char cluster_id[128];
    raft_id id;
    char address[256];
    raft_uv_accept_cb accept_cb;
    raft_uv_transport_close_cb close_cb;
    struct opening *openings;
};

static void mac_of (struct replica_link *rl, const char *what, const uint8_t *nonce,
                    raft_id id, const char *address, const uint8_t *extra,
                    uint8_t out[MAC_LEN])
{
    struct hmac_sha256_ctx ctx;
    uint8_t idb[8];

    for (int i = 0; i < 8; i++)
        idb[i] = (uint8_t)(id >> (8 * i));
    hmac_sha256_set_key (&ctx, rl->keylen, rl->key);
    hmac_sha256_update (&ctx, strlen (what) + 1, (const uint8_t *)what);
    hmac_sha256_update (&ctx, strlen (rl->cluster_id) + 1,
                        (const uint8_t *)rl->cluster_id);
    hmac_sha256_update (&ctx, NONCE_LEN, nonce);
    hmac_sha256_update (&ctx, sizeof (idb), idb);
    hmac_sha256_update (&ctx, strlen (address) + 1, (const uint8_t *)address);
    if (extra)
        hmac_sha256_update (&ctx, MAC_LEN, extra);
    hmac_sha256_digest (&ctx, MAC_LEN, out);
}

static void opening_unlink (struct opening *o)
{
    for (struct opening **p = &o->rl->openings; *p; p = &(*p)->next)
        if (*p == o) {
            *p = o->next;
            break;
        }
}

static void stream_closed (uv_handle_t *h)
{
    raft_free (h);
}

/* The link failed: closed, and the connecting side's caller told. */
static void opening_fail (struct opening *o, const char *why)
{
    if (o->side == ACCEPTING)
        log_msg (LOG_WARNING, "replica link: refused replica %llu at %s: %s",
                 (unsigned long long)o->id, o->address, why);
    else
        log_msg (LOG_DEBUG, "replica link: to replica %llu at %s: %s",
                 (unsigned long long)o->id, o->address, why);
    opening_unlink (o);
    if (o->stream) {
        uv_read_stop (o->stream);
        uv_close ((uv_handle_t *)o->stream, stream_closed);
    }
    if (o->side == CONNECTING)
        o->cb (o->req, NULL, RAFT_NOCONNECTION);
    free (o);
}

static void on_alloc (uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    struct opening *o = h->data;

    /* Exactly what is still missing: libraft's bytes stay unread. */
    *buf = uv_buf_init ((char *)o->in + o->got, (unsigned)(o->want - o->got));
}

static void on_read (uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct opening *o = s->data;

    if (n == 0)
        return;
    if (n < 0) {
        opening_fail (o, n == UV_EOF ? "closed" : uv_strerror ((int)n));
        return;
    }
    o->got += (size_t)n;
    if (o->got == o->want) {
        uv_read_stop (s);
        o->then (o);
    }
}

static void expect (struct opening *o, size_t n, void (*then) (struct opening *))
{
    int rc;

    o->want = n;
    o->got = 0;
    o->then = then;
    o->stream->data = o;
    if ((rc = uv_read_start (o->stream, on_alloc, on_read)) != 0)
        opening_fail (o, uv_strerror (rc));
}

static void on_written (uv_write_t *w, int status);

static void send_bytes (struct opening *o, const uint8_t *p, size_t n,
                        void (*then) (struct opening *))
{
    uv_buf_t b = uv_buf_init ((char *)p, (unsigned)n);
    int rc;

    o->then = then;
    o->wreq.data = o;
    if ((rc = uv_write (&o->wreq, o->stream, &b, 1, on_written)) != 0)
        opening_fail (o, uv_strerror (rc));
}

static void on_written (uv_write_t *w, int status)
{
    struct opening *o = w->data;

    if (status != 0) {
        opening_fail (o, uv_strerror (status));
        return;
    }
    o->then (o);
}

/* --- the connecting side --- */

static void connect_done (struct opening *o)
{
    uint8_t want[MAC_LEN];

    mac_of (o->rl, "hpcq-replica-link-ack", o->nonce, o->rl->id, o->rl->address, o->mac,
            want);
    if (!nettle_memeql_sec (want, o->in, MAC_LEN)) {
        opening_fail (o, "the other end does not have the cluster's key");
        return;
    }
    opening_unlink (o);
    o->cb (o->req, o->stream, 0);
    free (o);
}

static void connect_answered (struct opening *o)
{
    expect (o, MAC_LEN, connect_done);
}

static void connect_challenged (struct opening *o)
{
    memcpy (o->nonce, o->in, NONCE_LEN);
    mac_of (o->rl, "hpcq-replica-link", o->nonce, o->rl->id, o->rl->address, NULL,
            o->mac);
    send_bytes (o, o->mac, MAC_LEN, connect_answered);
}

static void inner_connected (struct raft_uv_connect *req, uv_stream_t *stream,
                             int status)
{
    struct opening *o = req->data;

    if (status != 0) {
        opening_unlink (o);
        o->cb (o->req, NULL, status);
        free (o);
        return;
    }
    o->stream = stream;
    expect (o, NONCE_LEN, connect_challenged);
}

static int outer_connect (struct raft_uv_transport *t, struct raft_uv_connect *req,
                          raft_id id, const char *address, raft_uv_connect_cb cb)
{
    struct replica_link *rl = t->impl;
    struct opening *o = xzalloc (sizeof (*o));
    int rc;

    o->rl = rl;
    o->side = CONNECTING;
    o->id = id;
    snprintf (o->address, sizeof (o->address), "%s", address);
    o->req = req;
    o->cb = cb;
    o->inner_req.data = o;
    if ((rc = rl->inner.connect (&rl->inner, &o->inner_req, id, address,
                                 inner_connected))
        != 0) {
        free (o);
        return rc;
    }
    o->next = rl->openings;
    rl->openings = o;
    return 0;
}

/* --- the accepting side --- */

static void accept_done (struct opening *o)
{
    struct replica_link *rl = o->rl;

    opening_unlink (o);
    log_msg (LOG_DEBUG, "replica link: replica %llu at %s authenticated",
             (unsigned long long)o->id, o->address);
    rl->accept_cb (&rl->outer, o->id, o->address, o->stream);
    free (o);
}

static void accept_answered (struct opening *o)
{
    uint8_t want[MAC_LEN];

    mac_of (o->rl, "hpcq-replica-link", o->nonce, o->id, o->address, NULL, want);
    if (!nettle_memeql_sec (want, o->in, MAC_LEN)) {
        opening_fail (o, "it does not have the cluster's key (replica_key_file)");
        return;
    }
    mac_of (o->rl, "hpcq-replica-link-ack", o->nonce, o->id, o->address, o->in, o->mac);
    send_bytes (o, o->mac, MAC_LEN, accept_done);
}

static void accept_challenged (struct opening *o)
{
    expect (o, MAC_LEN, accept_answered);
}

static void inner_accepted (struct raft_uv_transport *t, raft_id id,
                            const char *address, uv_stream_t *stream)
{
    struct replica_link *rl = t->data;
    struct opening *o = xzalloc (sizeof (*o));

    o->rl = rl;
    o->side = ACCEPTING;
    o->id = id;
    snprintf (o->address, sizeof (o->address), "%s", address);
    o->stream = stream;
    o->next = rl->openings;
    rl->openings = o;
    if (getrandom (o->nonce, NONCE_LEN, 0) != NONCE_LEN) {
        opening_fail (o, "no random numbers");
        return;
    }
    send_bytes (o, o->nonce, NONCE_LEN, accept_challenged);
}

static int outer_listen (struct raft_uv_transport *t, raft_uv_accept_cb cb)
{
    struct replica_link *rl = t->impl;

    rl->accept_cb = cb;
    return rl->inner.listen (&rl->inner, inner_accepted);
}

static int outer_init (struct raft_uv_transport *t, raft_id id, const char *address)
{
    struct replica_link *rl = t->impl;

    rl->id = id;
    snprintf (rl->address, sizeof (rl->address), "%s", address);
    return rl->inner.init (&rl->inner, id, address);
}

static void inner_closed (struct raft_uv_transport *t)
{
    struct replica_link *rl = t->data;

    if (rl->close_cb)
        rl->close_cb (&rl->outer);
}

static void outer_close (struct raft_uv_transport *t, raft_uv_transport_close_cb cb)
{
    struct replica_link *rl = t->impl;

    rl->close_cb = cb;
    while (rl->openings) {
        struct opening *o = rl->openings;
        if (o->side == CONNECTING && !o->stream) {
            /* libraft's TCP transport cancels it (inner_connected). */
            rl->openings = o->next;
            o->next = NULL;
            continue;
        }
        opening_fail (o, "closing");
    }
    rl->inner.close (&rl->inner, inner_closed);
}

struct replica_link *replica_link_create (uv_loop_t *uv, const char *bind_address,
                                          const uint8_t *key, size_t keylen,
                                          const char *cluster_id,
                                          struct hpcq_error *err)
{
    struct replica_link *rl = xzalloc (sizeof (*rl));
    int rc;

    if (keylen < REPLICA_KEY_MIN || keylen > KEY_MAX) {
        free (rl);
        return errprintf (err, "replica key: %zu bytes (%d to %d)", keylen,
                          REPLICA_KEY_MIN, KEY_MAX),
               NULL;
    }
    memcpy (rl->key, key, keylen);
    rl->keylen = keylen;
    snprintf (rl->cluster_id, sizeof (rl->cluster_id), "%s", cluster_id);
    if ((rc = raft_uv_tcp_init (&rl->inner, uv)) != 0
        || (rc = raft_uv_tcp_set_bind_address (&rl->inner, bind_address)) != 0) {
        errprintf (err, "raft transport on %s: %s", bind_address, raft_strerror (rc));
        free (rl);
        return NULL;
    }
    rl->inner.data = rl;
    rl->outer.impl = rl;
    rl->outer.init = outer_init;
    rl->outer.listen = outer_listen;
    rl->outer.connect = outer_connect;
    rl->outer.close = outer_close;
    return rl;
}

struct raft_uv_transport *replica_link_transport (struct replica_link *rl)
{
    return &rl->outer;
}

void replica_link_destroy (struct replica_link *rl)
{
    if (!rl)
        return;
    raft_uv_tcp_close (&rl->inner);
    explicit_bzero (rl->key, sizeof (rl->key));
    free (rl);
}

int replica_link_read_key (const char *path, uint8_t *key, size_t size, size_t *len,
                           struct hpcq_error *err)
{
    struct stat st;
    ssize_t n;
    int fd;

    if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0)
        return errprintf (err, "cannot read replica_key_file '%s': %s", path,
                          strerror (errno));
    if (fstat (fd, &st) < 0 || (st.st_mode & 077) || st.st_uid != geteuid ()) {
        close (fd);
        return errprintf (err,
                          "replica_key_file '%s' must be a file of this user that "
                          "others cannot read (chmod 600)",
                          path);
    }
    n = read (fd, key, size);
    close (fd);
    if (n < REPLICA_KEY_MIN)
        return errprintf (err, "replica_key_file '%s' holds %zd bytes, fewer than %d",
                          path, n < 0 ? 0 : n, REPLICA_KEY_MIN);
    *len = (size_t)n;
    return 0;
}
