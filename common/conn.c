/* conn.c - see conn.h
 *
 * A connection may be closed from inside its own on_msg callback; the
 * `busy` depth keeps the struct alive until the read handler unwinds.
 * A close that conn_send decides on (output cap) is finished from a timer
 * instead, because conn_send is also called outside any conn callback
 * (e.g. while the owner walks a list of queued replies).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/conn.h"
#include "common/log.h"
#include "common/session.h"
#include "common/util.h"

#define CONN_READ_CHUNK 65536
/* A peer whose answers pile up unread past this has its next requests
 * wait in its socket: one client cannot make a loop turn produce more
 * than about this much output, whatever it pipelines. */
#define CONN_INPUT_OUTQ_MAX (1024 * 1024)

struct conn {
    struct loop *loop;
    struct loop_watch *watch;
    int fd;
    conn_msg_f on_msg;
    conn_close_f on_close;
    void *arg;
    void *aux;
    int slot;

    unsigned char hdr[WIRE_HDR_LEN];
    size_t hdr_got;
    char *body;
    size_t body_len, body_got, body_cap;
    int64_t partial_since_ms; /* when the message being read began */

    char *out;
    size_t out_len, out_off, out_cap;
    size_t out_max;    /* 0: no cap */
    int64_t active_ms; /* when bytes last moved */

    conn_drain_f on_drain;
    void *drain_arg;
    void (*drain_free) (void *);
    size_t drain_low;
    int paused;
    struct loop_timer *close_timer;

    uid_t peer_uid;
    int local;
    struct session *session; /* sealed frames (session.h), or NULL */
    conn_msg_f intercept;    /* while set, messages go here, not on_msg */
    void *intercept_arg;
    void *pending; /* something in flight for c, freed with it */
    void (*pending_free) (void *);
    int held;
    char peer_name[64];
    int busy;
    int closing;
    int flush_then_close;
};

static void conn_io (struct loop *l, int fd, int revents, void *arg);

static void conn_peer_init (struct conn *c)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof (ss);

    c->peer_uid = (uid_t)-1;
    snprintf (c->peer_name, sizeof (c->peer_name), "fd%d", c->fd);
    if (getsockname (c->fd, (struct sockaddr *)&ss, &sl) < 0)
        return;
    if (ss.ss_family == AF_UNIX) {
        struct ucred cred;
        socklen_t cl = sizeof (cred);
        c->local = 1;
        if (getsockopt (c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0) {
            c->peer_uid = cred.uid;
            snprintf (c->peer_name, sizeof (c->peer_name), "uid %u pid %d",
                      (unsigned)cred.uid, (int)cred.pid);
        }
    } else if (ss.ss_family == AF_INET) {
        struct sockaddr_in sin;
        socklen_t pl = sizeof (sin);
        char addr[INET_ADDRSTRLEN] = "?";
        int one = 1;
        /* Messages are small and each waits for an answer: Nagle's delay
         * (up to 40 ms against a delayed ACK) would be most of a job's
         * submit-to-start time (bench/RESULTS.md). */
        (void)setsockopt (c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof (one));
        if (getpeername (c->fd, (struct sockaddr *)&sin, &pl) == 0)
            inet_ntop (AF_INET, &sin.sin_addr, addr, sizeof (addr));
        snprintf (c->peer_name, sizeof (c->peer_name), "%s:%u", addr,
                  (unsigned)ntohs (sin.sin_port));
    }
}

struct conn *conn_create (struct loop *l, int fd, conn_msg_f on_msg,
                          conn_close_f on_close, void *arg)
{
    struct conn *c = calloc (1, sizeof (*c));
    int flags;

    if (!c)
        goto error;
    c->loop = l;
    c->fd = fd;
    c->on_msg = on_msg;
    c->on_close = on_close;
    c->arg = arg;
    if ((flags = fcntl (fd, F_GETFL)) < 0
        || fcntl (fd, F_SETFL, flags | O_NONBLOCK) < 0)
        goto error;
    (void)fcntl (fd, F_SETFD, FD_CLOEXEC);
    conn_peer_init (c);
    c->active_ms = util_now_ms ();
    if (!(c->watch = loop_fd_add (l, fd, LOOP_READ, conn_io, c)))
        goto error;
    return c;
error:
    close (fd);
    free (c);
    return NULL;
}

static void conn_free (struct conn *c)
{
    loop_fd_remove (c->watch);
    loop_timer_remove (c->close_timer);
    close (c->fd);
    if (c->drain_free)
        c->drain_free (c->drain_arg);
    if (c->pending_free)
        c->pending_free (c->pending);
    session_destroy (c->session);
    free (c->body);
    free (c->out);
    free (c);
}

void conn_destroy (struct conn *c)
{
    if (!c)
        return;
    int saved = errno;
    if (c->busy) {
        c->on_close = NULL;
        c->closing = 1;
    } else
        conn_free (c);
    errno = saved;
}

/* Runs on_close and frees, unless a callback further up still uses c. */
static void conn_finish (struct conn *c)
{
    if (c->busy)
        return;
    if (c->on_close) {
        conn_close_f cb = c->on_close;
        c->on_close = NULL;
        c->busy++;
        cb (c, c->arg);
        c->busy--;
    }
    conn_free (c);
}

void conn_close (struct conn *c)
{
    c->closing = 1;
    conn_finish (c);
}

void conn_close_after_flush (struct conn *c)
{
    if (c->out_len == c->out_off)
        conn_close (c);
    else
        c->flush_then_close = 1;
}

/* Does c read requests now: not paused, and its answers not piling up. */
static int conn_reading (const struct conn *c)
{
    return !c->paused && !c->held && conn_outq_len (c) < CONN_INPUT_OUTQ_MAX;
}

/* What the loop should watch for: input while reading, output while some
 * is queued or a producer waits for room. */
static int conn_watch_events (const struct conn *c)
{
    return (conn_reading (c) ? LOOP_READ : 0)
           | (c->out_len > c->out_off || c->on_drain ? LOOP_WRITE : 0);
}

static int conn_flush (struct conn *c)
{
    while (c->out_off < c->out_len) {
        ssize_t n = write (c->fd, c->out + c->out_off, c->out_len - c->out_off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n < 0)
            return -1;
        c->out_off += n;
        c->active_ms = util_now_ms ();
    }
    if (c->out_off == c->out_len)
        c->out_off = c->out_len = 0;
    return loop_fd_modify (c->watch, conn_watch_events (c));
}

static void conn_close_timer (struct loop *l, void *arg)
{
    struct conn *c = arg;

    c->close_timer = NULL; /* one-shot: the loop frees it */
    conn_finish (c);
}

/* Close from the loop, soon: callers up the stack may still use c. */
static void conn_close_soon (struct conn *c)
{
    c->closing = 1;
    c->out_len = c->out_off = 0;
    if (c->close_timer || c->busy)
        return; /* already due, or the callback's end finishes it */
    if (!(c->close_timer = loop_timer_add (c->loop, 0, 0, conn_close_timer, c)))
        (void)loop_fd_modify (c->watch, LOOP_READ); /* EOF or error ends it */
}

/* Room for len more bytes: the written part goes first, then the buffer
 * grows (doubling).  -1 on allocation failure. */
static int conn_reserve (struct conn *c, size_t len)
{
    size_t cap;
    char *nout;

    if (c->out_off > 0 && c->out_len + len > c->out_cap) {
        memmove (c->out, c->out + c->out_off, c->out_len - c->out_off);
        c->out_len -= c->out_off;
        c->out_off = 0;
    }
    if (c->out_len + len <= c->out_cap)
        return 0;
    cap = c->out_cap ? c->out_cap : 4096;
    while (cap < c->out_len + len)
        cap *= 2;
    if (!(nout = realloc (c->out, cap)))
        return -1;
    c->out = nout;
    c->out_cap = cap;
    return 0;
}

/* The session's time is up: the link closes (its owner opens a fresh one). */
static int conn_session_over (struct conn *c)
{
    if (!c->session || !session_expired (c->session, util_now_ms ()))
        return 0;
    if (!c->closing)
        log_msg (LOG_INFO,
                 "link with %s: its session key has lived session_lifetime; "
                 "closing it for a fresh one",
                 c->peer_name);
    return 1;
}

/* Frame m, sealed when the link has a session.  NULL with errno. */
static char *conn_encode (struct conn *c, const struct wire_msg *m, size_t *lenp)
{
    char *buf = wire_encode (m, lenp);

    return buf && c->session ? session_seal_frame (c->session, buf, lenp) : buf;
}

int conn_send (struct conn *c, const struct wire_msg *m)
{
    size_t len;
    char *buf;

    if (c->closing) {
        errno = EPIPE;
        return -1;
    }
    if (conn_session_over (c)) {
        conn_close_soon (c);
        errno = EPIPE;
        return -1;
    }
    if (!(buf = conn_encode (c, m, &len)))
        return -1;
    if (c->out_max && conn_outq_len (c) + len > c->out_max) {
        log_msg (LOG_WARNING,
                 "dropping %s: it does not read its answers (%zu bytes "
                 "queued, %zu more would pass the cap of %zu)",
                 c->peer_name, conn_outq_len (c), len, c->out_max);
        free (buf);
        conn_close_soon (c);
        errno = ENOBUFS;
        return -1;
    }
    if (conn_reserve (c, len) < 0) {
        free (buf);
        return -1;
    }
    memcpy (c->out + c->out_len, buf, len);
    c->out_len += len;
    free (buf);
    if (conn_flush (c) < 0) {
        /* The peer is gone; reading will see it and close. */
        c->out_len = c->out_off = 0;
    }
    return 0;
}

int conn_send_or_error (struct conn *c, const struct wire_msg *m)
{
    struct wire_msg req = { .id = m->id }, err;
    char text[160];
    int rc = conn_send (c, m);

    if (rc == 0 || errno != EMSGSIZE || !m->is_reply)
        return rc;
    log_msg (LOG_ERR,
             "reply %s to %s is larger than a message may be (%d bytes): "
             "sending an error instead",
             m->type, c->peer_name, WIRE_MAX_MSG);
    snprintf (text, sizeof (text),
              "the answer is larger than a message may be "
              "(%d bytes); ask for less",
              WIRE_MAX_MSG);
    snprintf (req.type, sizeof (req.type), "%s", m->type);
    wire_reply_init (&err, &req, EMSGSIZE, text, NULL);
    if (conn_send (c, &err) < 0)
        log_error ("error reply to %s", c->peer_name);
    wire_msg_release (&err);
    errno = EMSGSIZE;
    return -1;
}

int conn_reply (struct conn *c, const struct wire_msg *req, int errnum,
                const char *errstr, json_t *body)
{
    struct wire_msg m;
    int rc;

    wire_reply_init (&m, req, errnum, errstr, body);
    rc = conn_send_or_error (c, &m);
    wire_msg_release (&m);
    return rc;
}

/* Deliver the message in c->body.  Returns -1 if the connection must go. */
static int conn_deliver (struct conn *c)
{
    struct wire_msg msg;
    struct hpcq_error err;
    size_t len = c->body_len;

    if (c->session) {
        ssize_t n = session_open (c->session, c->body, c->body_len, &err);
        if (n < 0) {
            log_msg (LOG_WARNING, "dropping the link with %s: %s", c->peer_name,
                     err.text);
            return -1;
        }
        if (conn_session_over (c))
            return -1;
        len = (size_t)n;
    }
    if (wire_decode (c->body, len, &msg, &err) < 0) {
        log_msg (LOG_WARNING, "dropping connection from %s: %s", c->peer_name,
                 err.text);
        return -1;
    }
    free (c->body);
    c->body = NULL;
    c->hdr_got = c->body_got = c->body_cap = 0;
    c->partial_since_ms = 0;
    if (c->intercept)
        c->intercept (c, &msg, c->intercept_arg);
    else
        c->on_msg (c, &msg, c->arg);
    wire_msg_release (&msg);
    /* A request that took long to handle is work, not idleness. */
    c->active_ms = util_now_ms ();
    return 0;
}

/* Read what is available.  Returns 1 to go on, 0 on would-block, -1 to close. */
static int conn_read_some (struct conn *c)
{
    ssize_t n;

    if (c->hdr_got < WIRE_HDR_LEN) {
        n = read (c->fd, c->hdr + c->hdr_got, WIRE_HDR_LEN - c->hdr_got);
        if (n == 0)
            return -1;
        if (n < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -1;
        if (c->hdr_got == 0)
            c->partial_since_ms = util_now_ms ();
        c->active_ms = util_now_ms ();
        c->hdr_got += n;
        if (c->hdr_got < WIRE_HDR_LEN)
            return 1;
        if (wire_frame_len (c->hdr, &c->body_len) < 0) {
            log_msg (LOG_WARNING, "dropping connection from %s: bad frame length",
                     c->peer_name);
            return -1;
        }
        c->body_got = c->body_cap = 0;
    }
    /* Grow the buffer as bytes arrive: a header alone does not get to
     * reserve WIRE_MAX_MSG bytes. */
    if (c->body_got == c->body_cap) {
        size_t cap = c->body_cap ? c->body_cap * 2 : CONN_READ_CHUNK;
        char *nb;
        if (cap > c->body_len)
            cap = c->body_len;
        if (!(nb = realloc (c->body, cap)))
            return -1;
        c->body = nb;
        c->body_cap = cap;
    }
    n = read (c->fd, c->body + c->body_got, c->body_cap - c->body_got);
    if (n == 0) {
        log_msg (LOG_DEBUG, "connection from %s closed mid-message", c->peer_name);
        return -1;
    }
    if (n < 0)
        return errno == EAGAIN || errno == EINTR ? 0 : -1;
    c->active_ms = util_now_ms ();
    c->body_got += n;
    if (c->body_got == c->body_len && conn_deliver (c) < 0)
        return -1;
    return 1;
}

static void conn_io (struct loop *l, int fd, int revents, void *arg)
{
    struct conn *c = arg;
    int rc = 1;

    c->busy++;
    /* Not reading, and the peer hung up (or the socket failed): the loop
     * would tell again every turn. */
    if (!conn_reading (c) && (revents & LOOP_HUP))
        rc = -1;
    if (rc > 0 && (revents & LOOP_WRITE) && conn_flush (c) < 0)
        rc = -1;
    if (rc > 0 && (revents & LOOP_WRITE) && c->on_drain && !c->closing
        && conn_outq_len (c) <= c->drain_low)
        c->on_drain (c, c->drain_arg);
    /* Bound the work per wakeup so one busy peer cannot starve others. */
    for (int i = 0;
         rc > 0 && i < 64 && !c->closing && conn_reading (c) && (revents & LOOP_READ);
         i++)
        rc = conn_read_some (c);
    if (rc > 0 && !c->closing)
        (void)loop_fd_modify (c->watch, conn_watch_events (c));
    c->busy--;
    if (rc < 0)
        c->closing = 1;
    if (c->flush_then_close && c->out_len == 0)
        c->closing = 1;
    if (c->closing)
        conn_finish (c);
}

uid_t conn_peer_uid (const struct conn *c)
{
    return c->peer_uid;
}

int conn_is_local (const struct conn *c)
{
    return c->local;
}

const char *conn_peer_name (const struct conn *c)
{
    return c->peer_name;
}

void conn_set_session (struct conn *c, struct session *s)
{
    session_destroy (c->session);
    c->session = s;
}

const struct session *conn_session (const struct conn *c)
{
    return c->session;
}

void conn_set_intercept (struct conn *c, conn_msg_f fn, void *arg)
{
    c->intercept = fn;
    c->intercept_arg = arg;
}

void conn_set_pending (struct conn *c, void *arg, void (*free_fn) (void *))
{
    c->pending = arg;
    c->pending_free = arg ? free_fn : NULL;
}

void conn_hold (struct conn *c, int hold)
{
    c->held = hold;
    if (!c->closing)
        (void)loop_fd_modify (c->watch, conn_watch_events (c));
}

void conn_set_peer_uid (struct conn *c, uid_t uid)
{
    if (!c->local)
        c->peer_uid = uid;
}

void conn_set_aux (struct conn *c, void *aux)
{
    c->aux = aux;
}

void *conn_aux (const struct conn *c)
{
    return c->aux;
}

void conn_set_slot (struct conn *c, int slot)
{
    c->slot = slot;
}

int conn_slot (const struct conn *c)
{
    return c->slot;
}

int64_t conn_partial_ms (const struct conn *c, int64_t now_ms)
{
    return c->hdr_got > 0 ? now_ms - c->partial_since_ms : 0;
}

size_t conn_outq_len (const struct conn *c)
{
    return c->out_len - c->out_off;
}

void conn_set_outq_max (struct conn *c, size_t max)
{
    c->out_max = max;
}

void conn_set_drain (struct conn *c, conn_drain_f cb, void *arg, size_t low,
                     void (*free_arg) (void *))
{
    c->on_drain = cb;
    c->drain_arg = cb ? arg : NULL;
    c->drain_free = cb ? free_arg : NULL;
    c->drain_low = low;
    if (!c->closing)
        (void)loop_fd_modify (c->watch, conn_watch_events (c));
}

void conn_pause_input (struct conn *c, int pause)
{
    c->paused = pause;
    if (!c->closing)
        (void)loop_fd_modify (c->watch, conn_watch_events (c));
}

int64_t conn_idle_ms (const struct conn *c, int64_t now_ms)
{
    return now_ms - c->active_ms;
}

void conn_refuse (struct conn *c, int errnum, const char *errstr)
{
    struct wire_msg m;

    wire_reply_init (&m, &(struct wire_msg){ .type = "connect" }, errnum, errstr, NULL);
    (void)conn_send (c, &m);
    wire_msg_release (&m);
    conn_close_after_flush (c);
}
