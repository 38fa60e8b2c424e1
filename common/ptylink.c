/* ptylink.c - see ptylink.h */
#include <config.h>
#include <errno.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/ptylink.h"
#include "common/util.h"

#define MAGIC "HPCQPTY1"
#define NONCE_LEN 16
#define MAC_LEN SHA256_DIGEST_SIZE

int ptylink_cookie_new (uint8_t k[PTYLINK_COOKIE_LEN])
{
    size_t got = 0;

    while (got < PTYLINK_COOKIE_LEN) {
        ssize_t n = getrandom (k + got, PTYLINK_COOKIE_LEN - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

void ptylink_cookie_hex (const uint8_t k[PTYLINK_COOKIE_LEN], char *buf)
{
    for (int i = 0; i < PTYLINK_COOKIE_LEN; i++)
        sprintf (buf + 2 * i, "%02x", k[i]);
}

static int hexval (int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int ptylink_cookie_parse (const char *hex, uint8_t k[PTYLINK_COOKIE_LEN])
{
    if (!hex || strlen (hex) != 2 * PTYLINK_COOKIE_LEN) {
        errno = EINVAL;
        return -1;
    }
    for (int i = 0; i < PTYLINK_COOKIE_LEN; i++) {
        int hi = hexval (hex[2 * i]), lo = hexval (hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            errno = EINVAL;
            return -1;
        }
        k[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

/* HMAC-SHA256(k, label NUL nq nh): each side's proof has its own label, so
 * one side's proof is never the other's. */
static void proof (const uint8_t *k, const char *label, const uint8_t *nq,
                   const uint8_t *nh, uint8_t out[MAC_LEN])
{
    struct hmac_sha256_ctx ctx;

    hmac_sha256_set_key (&ctx, PTYLINK_COOKIE_LEN, k);
    hmac_sha256_update (&ctx, strlen (label) + 1, (const uint8_t *)label);
    hmac_sha256_update (&ctx, NONCE_LEN, nq);
    hmac_sha256_update (&ctx, NONCE_LEN, nh);
    hmac_sha256_digest (&ctx, MAC_LEN, out);
}

/* All of len bytes, in or out, by the deadline (monotonic ms). */
static int io_full (int fd, void *buf, size_t len, int out, int64_t deadline)
{
    size_t done = 0;

    while (done < len) {
        struct pollfd p = { .fd = fd, .events = out ? POLLOUT : POLLIN };
        int64_t left = deadline - util_now_us () / 1000;
        ssize_t n;

        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        if (poll (&p, 1, (int)left) < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (!p.revents)
            continue;
        n = out ? write (fd, (uint8_t *)buf + done, len - done)
                : read (fd, (uint8_t *)buf + done, len - done);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EPROTO;
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

static int nonce (uint8_t n[NONCE_LEN])
{
    uint8_t k[PTYLINK_COOKIE_LEN];

    if (ptylink_cookie_new (k) < 0)
        return -1;
    memcpy (n, k, NONCE_LEN);
    return 0;
}

int ptylink_server_start (struct ptylink_hs *hs, int fd)
{
    uint8_t hello[sizeof (MAGIC) - 1 + NONCE_LEN];

    memset (hs, 0, sizeof (*hs));
    hs->fd = fd;
    hs->deadline_ms = util_now_us () / 1000 + PTYLINK_HANDSHAKE_MS;
    if (nonce (hs->nq) < 0)
        return -1;
    memcpy (hello, MAGIC, sizeof (MAGIC) - 1);
    memcpy (hello + sizeof (MAGIC) - 1, hs->nq, NONCE_LEN);
    /* 24 bytes on a new connection: its send buffer takes them. */
    return io_full (fd, hello, sizeof (hello), 1, hs->deadline_ms);
}

int ptylink_server_step (struct ptylink_hs *hs, const uint8_t k[PTYLINK_COOKIE_LEN])
{
    uint8_t want[MAC_LEN];
    ssize_t n = read (hs->fd, hs->in + hs->got, sizeof (hs->in) - hs->got);

    if (n < 0)
        return errno == EAGAIN || errno == EINTR ? 0 : -1;
    if (n == 0) {
        errno = EPROTO;
        return -1;
    }
    if ((hs->got += (size_t)n) < sizeof (hs->in))
        return 0;
    proof (k, "hpcq-pty client", hs->nq, hs->in, want);
    if (!nettle_memeql_sec (want, hs->in + NONCE_LEN, MAC_LEN)) {
        errno = EACCES;
        return -1;
    }
    proof (k, "hpcq-pty server", hs->nq, hs->in, want);
    return io_full (hs->fd, want, sizeof (want), 1, hs->deadline_ms) < 0 ? -1 : 1;
}

int ptylink_server_handshake (int fd, const uint8_t k[PTYLINK_COOKIE_LEN])
{
    struct ptylink_hs hs;
    int rc = 0;

    if (ptylink_server_start (&hs, fd) < 0)
        return -1;
    while (rc == 0) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int64_t left = hs.deadline_ms - util_now_us () / 1000;
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        if (poll (&p, 1, (int)left) < 0 && errno != EINTR)
            return -1;
        if (p.revents)
            rc = ptylink_server_step (&hs, k);
    }
    return rc < 0 ? -1 : 0;
}

int ptylink_client_handshake (int fd, const uint8_t k[PTYLINK_COOKIE_LEN])
{
    int64_t deadline = util_now_us () / 1000 + PTYLINK_HANDSHAKE_MS;
    uint8_t hello[sizeof (MAGIC) - 1 + NONCE_LEN], out[NONCE_LEN + MAC_LEN];
    uint8_t want[MAC_LEN], got[MAC_LEN];
    const uint8_t *nq = hello + sizeof (MAGIC) - 1;

    if (io_full (fd, hello, sizeof (hello), 0, deadline) < 0)
        return -1;
    if (memcmp (hello, MAGIC, sizeof (MAGIC) - 1) != 0) {
        errno = EPROTO;
        return -1;
    }
    if (nonce (out) < 0)
        return -1;
    proof (k, "hpcq-pty client", nq, out, out + NONCE_LEN);
    if (io_full (fd, out, sizeof (out), 1, deadline) < 0
        || io_full (fd, got, sizeof (got), 0, deadline) < 0)
        return -1;
    proof (k, "hpcq-pty server", nq, out, want);
    if (!nettle_memeql_sec (want, got, MAC_LEN)) {
        errno = EACCES;
        return -1;
    }
    return 0;
}

/* ---- the relay ---- */

void ptylink_relay_init (struct ptylink_relay *r, int sock, int in_fd, int out_fd,
                         int sig_fd)
{
    memset (r, 0, sizeof (*r));
    r->sock = sock;
    r->in_fd = in_fd;
    r->out_fd = out_fd;
    r->sig_fd = sig_fd;
}

static size_t room (const struct ptylink_buf *b)
{
    return sizeof (b->data) - b->len;
}

int ptylink_send (struct ptylink_relay *r, int type, const void *p, size_t len)
{
    struct ptylink_buf *b = &r->to_sock;

    if (len > PTYLINK_FRAME_MAX || room (b) < len + 3) {
        errno = ENOBUFS;
        return -1;
    }
    b->data[b->len++] = (uint8_t)type;
    b->data[b->len++] = (uint8_t)(len >> 8);
    b->data[b->len++] = (uint8_t)len;
    if (len)
        memcpy (b->data + b->len, p, len);
    b->len += len;
    return 0;
}

/* Write what b holds to fd, as much as fd takes now.  -1 on an error. */
static int drain (int fd, struct ptylink_buf *b)
{
    ssize_t n = write (fd, b->data, b->len);

    if (n < 0)
        return errno == EAGAIN || errno == EINTR ? 0 : -1;
    memmove (b->data, b->data + n, b->len - (size_t)n);
    b->len -= (size_t)n;
    return 0;
}

/* The frames in r->rx: data to the local side, the rest to on_frame. */
static int frames (struct ptylink_relay *r)
{
    while (r->rx_len >= 3) {
        size_t len = (size_t)r->rx[1] << 8 | r->rx[2];
        int type = r->rx[0], stop = 0;

        if (len > PTYLINK_FRAME_MAX) {
            r->sock_eof = 1; /* not from our peer: end the link */
            return 1;
        }
        if (r->rx_len < 3 + len)
            break;
        if (type == 'D')
            memcpy (r->to_local.data + r->to_local.len, r->rx + 3, len),
                r->to_local.len += len;
        else if (r->on_frame)
            stop = r->on_frame (r, type, r->rx + 3, len);
        memmove (r->rx, r->rx + 3 + len, r->rx_len - 3 - len);
        r->rx_len -= 3 + len;
        if (stop)
            return 1;
    }
    return 0;
}

/* The link has something: read at most what the local side has room for
 * (one frame at a time), so a slow terminal slows the link, not memory. */
static int sock_in (struct ptylink_relay *r)
{
    size_t want = sizeof (r->rx) - r->rx_len;
    ssize_t n = read (r->sock, r->rx + r->rx_len, want);

    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n <= 0) {
        r->sock_eof = 1;
        return 0;
    }
    r->rx_len += (size_t)n;
    return frames (r);
}

static void local_in (struct ptylink_relay *r)
{
    uint8_t buf[PTYLINK_FRAME_MAX];
    ssize_t n = read (r->in_fd, buf, sizeof (buf));

    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        r->in_eof = 1; /* a pty master whose shell is gone reads EIO */
        if (r->on_in_eof)
            r->on_in_eof (r);
        return;
    }
    (void)ptylink_send (r, 'D', buf, (size_t)n); /* room was checked */
}

int ptylink_relay_run (struct ptylink_relay *r)
{
    while (!r->sock_eof) {
        struct pollfd p[4];
        int n = 0, is = -1, il = -1, ol = -1, sg = -1;

        p[is = n++] = (struct pollfd){ .fd = r->sock };
        /* A whole frame must fit where its bytes go. */
        if (room (&r->to_local) >= PTYLINK_FRAME_MAX)
            p[is].events |= POLLIN;
        if (r->to_sock.len)
            p[is].events |= POLLOUT;
        if (!r->in_eof && room (&r->to_sock) >= PTYLINK_FRAME_MAX + 3)
            p[il = n++] = (struct pollfd){ .fd = r->in_fd, .events = POLLIN };
        if (r->to_local.len)
            p[ol = n++] = (struct pollfd){ .fd = r->out_fd, .events = POLLOUT };
        if (r->sig_fd >= 0)
            p[sg = n++] = (struct pollfd){ .fd = r->sig_fd, .events = POLLIN };
        if (poll (p, (nfds_t)n, -1) < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (sg >= 0 && p[sg].revents && r->on_signal && r->on_signal (r))
            return 0;
        if (p[is].revents & POLLOUT && drain (r->sock, &r->to_sock) < 0)
            r->sock_eof = 1;
        if (p[is].revents & (POLLIN | POLLHUP | POLLERR) && sock_in (r))
            return 0;
        if (ol >= 0 && p[ol].revents && drain (r->out_fd, &r->to_local) < 0)
            r->to_local.len = 0; /* the terminal is gone: drop its output */
        if (il >= 0 && p[il].revents)
            local_in (r);
        if (!(p[is].events & POLLIN) && p[is].revents & (POLLHUP | POLLERR))
            r->sock_eof = 1;
    }
    return 0;
}

static void flush_one (int fd, struct ptylink_buf *b, int64_t deadline)
{
    while (b->len > 0) {
        struct pollfd p = { .fd = fd, .events = POLLOUT };
        int64_t left = deadline - util_now_us () / 1000;
        if (left <= 0 || poll (&p, 1, (int)left) <= 0 || drain (fd, b) < 0)
            break;
    }
}

void ptylink_relay_flush (struct ptylink_relay *r, int ms)
{
    int64_t deadline = util_now_us () / 1000 + ms;

    if (!r->sock_eof)
        flush_one (r->sock, &r->to_sock, deadline);
    flush_one (r->out_fd, &r->to_local, deadline);
}
