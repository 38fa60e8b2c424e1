/* test_wire.c - the wire format (framing, envelope checks) and a framed
 * connection on the event loop, over a real socketpair. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/conn.h"
#include "common/loop.h"
#include "common/wire.h"
#include "common/test/tap.h"

/* Frame header as a number, independent of wire_frame_len. */
static size_t hdr_value (const char *buf)
{
    const unsigned char *p = (const unsigned char *)buf;
    return ((size_t)p[0] << 24) | ((size_t)p[1] << 16) | ((size_t)p[2] << 8) | p[3];
}

static void test_roundtrip (void)
{
    struct wire_msg req, rep, got;
    struct hpcq_error err = { "" };
    json_t *cred = json_pack ("{s:s s:i}", "munge", "MUNGE:abc", "ttl", 300);
    json_t *body = json_pack ("{s:i s:s s:[i,i]}", "a", 1, "s", "x\"y", "l", 1, 2);
    json_t *expect_body = json_deep_copy (body);
    json_t *o;
    char *buf;
    size_t len = 0, flen = 0;

    wire_request_init (&req, "job.submit", (int64_t)1 << 40, body);
    req.cred = json_incref (cred);
    buf = wire_encode (&req, &len);
    ok (buf != NULL && len > WIRE_HDR_LEN, "wire_encode frames a request");
    ok (hdr_value (buf) == len - WIRE_HDR_LEN, "the header holds the JSON length (%zu)",
        len - WIRE_HDR_LEN);
    ok (wire_frame_len ((const unsigned char *)buf, &flen) == 0
            && flen == len - WIRE_HDR_LEN,
        "wire_frame_len reads it back");
    o = json_loadb (buf + WIRE_HDR_LEN, len - WIRE_HDR_LEN, 0, NULL);
    ok (o && json_integer_value (json_object_get (o, "v")) == WIRE_VERSION
            && json_object_get (o, "reply") == NULL
            && json_object_get (o, "errnum") == NULL,
        "the JSON carries the version and no reply fields");
    json_decref (o);

    ok (wire_decode (buf + WIRE_HDR_LEN, len - WIRE_HDR_LEN, &got, &err) == 0,
        "wire_decode accepts it");
    ok (got.version == WIRE_VERSION, "version preserved");
    is (got.type, req.type, "type preserved");
    ok (got.id == (int64_t)1 << 40, "64-bit id preserved");
    ok (!got.is_reply && got.errnum == 0 && got.errstr == NULL,
        "a request is not a reply");
    ok (got.cred && json_equal (got.cred, cred), "cred object preserved");
    ok (got.body && json_equal (got.body, expect_body), "body preserved");

    wire_reply_init (&rep, &got, ENOENT, "unknown job 42",
                     json_pack ("{s:b}", "done", 1));
    free (buf);
    buf = wire_encode (&rep, &len);
    wire_msg_release (&got);
    ok (buf != NULL, "wire_encode frames a reply");
    ok (wire_decode (buf + WIRE_HDR_LEN, len - WIRE_HDR_LEN, &got, &err) == 0,
        "wire_decode accepts the reply");
    ok (got.is_reply, "is_reply preserved");
    ok (got.errnum == ENOENT, "errnum preserved");
    is (got.errstr, "unknown job 42", "errstr preserved");
    is (got.type, "job.submit", "a reply repeats the type");
    ok (got.id == (int64_t)1 << 40, "a reply repeats the id");
    ok (got.cred == NULL, "a reply carries no cred");
    ok (json_is_true (json_object_get (got.body, "done")), "reply body preserved");
    wire_msg_release (&got);
    wire_msg_release (&rep);
    free (buf);

    /* Success reply without message; request without body or cred. */
    wire_reply_init (&rep, &req, 0, NULL, NULL);
    buf = wire_encode (&rep, &len);
    ok (buf && wire_decode (buf + WIRE_HDR_LEN, len - WIRE_HDR_LEN, &got, &err) == 0
            && got.is_reply && got.errnum == 0 && got.errstr == NULL
            && json_is_object (got.body) && json_object_size (got.body) == 0,
        "a success reply has errnum 0, no errstr and an empty body");
    wire_msg_release (&got);
    wire_msg_release (&rep);
    free (buf);
    wire_msg_release (&req);

    wire_request_init (&req, "node.heartbeat", -3, NULL);
    ok (req.body && json_is_object (req.body), "a NULL body becomes {}");
    buf = wire_encode (&req, &len);
    ok (buf && wire_decode (buf + WIRE_HDR_LEN, len - WIRE_HDR_LEN, &got, &err) == 0
            && got.cred == NULL && got.id == -3 && json_object_size (got.body) == 0,
        "no cred and a negative id survive the round trip");
    wire_msg_release (&got);
    wire_msg_release (&req);
    ok (req.body == NULL && req.errstr == NULL, "wire_msg_release clears the struct");
    wire_msg_release (NULL);
    free (buf);

    json_decref (cred);
    json_decref (expect_body);
}

static void test_frame_len (void)
{
    struct {
        unsigned char hdr[4];
        int ok;
        size_t len;
    } t[] = {
        { { 0, 0, 0, 0 }, 0, 0 },
        { { 0, 0, 0, 1 }, 1, 1 },
        { { 0, 0, 1, 2 }, 1, 258 },
        { { 0, 0x80, 0, 0 }, 1, WIRE_MAX_MSG },
        { { 0, 0x80, 0, 1 }, 0, 0 },
        { { 1, 0, 0, 0 }, 0, 0 },
        { { 0xff, 0xff, 0xff, 0xff }, 0, 0 },
    };

    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++) {
        size_t len = 12345;
        errno = 0;
        int rc = wire_frame_len (t[i].hdr, &len);
        if (t[i].ok)
            ok (rc == 0 && len == t[i].len, "frame length %zu accepted", t[i].len);
        else
            ok (rc < 0 && errno == EMSGSIZE && len == 12345,
                "header %02x%02x%02x%02x rejected with EMSGSIZE", t[i].hdr[0],
                t[i].hdr[1], t[i].hdr[2], t[i].hdr[3]);
    }
}

static void test_decode_bad (void)
{
    char longtype[WIRE_TYPE_MAX + 64], type63[WIRE_TYPE_MAX + 64];
    char longjson[256], json63[256];
    const char *bad[] = {
        "garbage",
        "{",
        "",
        "[1,2,3]",
        "\"a string\"",
        "42",
        "null",
        "{\"type\":\"x\",\"id\":1}",
        "{\"v\":1,\"id\":1}",
        "{\"v\":1,\"type\":\"x\"}",
        "{\"v\":2,\"type\":\"x\",\"id\":1}",
        "{\"v\":0,\"type\":\"x\",\"id\":1}",
        "{\"v\":\"1\",\"type\":\"x\",\"id\":1}",
        "{\"v\":1,\"type\":\"\",\"id\":1}",
        "{\"v\":1,\"type\":5,\"id\":1}",
        "{\"v\":1,\"type\":null,\"id\":1}",
        "{\"v\":1,\"type\":\"x\",\"id\":\"7\"}",
        "{\"v\":1,\"type\":\"x\",\"id\":1.5}",
        "{\"v\":1,\"type\":\"x\",\"id\":1,\"body\":[1]}",
        "{\"v\":1,\"type\":\"x\",\"id\":1,\"body\":\"str\"}",
        "{\"v\":1,\"type\":\"x\",\"id\":1,\"body\":5}",
        "{\"v\":1,\"type\":\"x\",\"id\":1,\"body\":null}",
        "{\"v\":1,\"type\":\"a\",\"type\":\"b\",\"id\":1}",
        "{\"v\":1,\"type\":\"a\",\"id\":1,\"id\":2}",
        "{\"v\":1,\"type\":\"a\",\"id\":1,\"body\":{\"k\":1,\"k\":2}}",
        "{\"v\":1,\"type\":\"a\",\"id\":1,\"reply\":\"yes\"}",
        "{\"v\":1,\"type\":\"a\",\"id\":1,\"errnum\":\"ENOENT\"}",
        "{\"v\":1,\"type\":\"a\",\"id\":1,\"errnum\":99999999999}",
        "{\"v\":1,\"type\":\"a\",\"id\":1,\"errnum\":-1}",
        "{\"v\":1,\"type\":\"a\",\"id\":1,\"error\":5}",
        "{\"v\":1,\"type\":\"a\",\"id\":1} trailing",
        longjson,
    };
    const char *good = "{\"v\":1,\"type\":\"a\",\"id\":1,\"cred\":null}XYZ";
    struct wire_msg m;
    struct hpcq_error err;

    memset (longtype, 't', WIRE_TYPE_MAX);
    longtype[WIRE_TYPE_MAX] = '\0';
    snprintf (longjson, sizeof (longjson), "{\"v\":1,\"type\":\"%s\",\"id\":1}",
              longtype);
    memset (type63, 't', WIRE_TYPE_MAX - 1);
    type63[WIRE_TYPE_MAX - 1] = '\0';
    snprintf (json63, sizeof (json63), "{\"v\":1,\"type\":\"%s\",\"id\":1}", type63);

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        memset (&m, 0x5a, sizeof (m));
        err.text[0] = '\0';
        errno = 0;
        int rc = wire_decode (bad[i], strlen (bad[i]), &m, &err);
        ok (rc < 0 && errno == EPROTO
                && strncmp (err.text, "malformed message", 17) == 0 && m.body == NULL
                && m.cred == NULL && m.errstr == NULL,
            "rejected with EPROTO: %.70s (%s)", bad[i], err.text);
    }

    ok (wire_decode (json63, strlen (json63), &m, &err) == 0
            && strcmp (m.type, type63) == 0,
        "a %d-character type is accepted", WIRE_TYPE_MAX - 1);
    wire_msg_release (&m);

    ok (wire_decode (good, strlen (good) - 3, &m, &err) == 0 && m.cred == NULL
            && json_is_object (m.body) && m.id == 1,
        "only len bytes are parsed; \"cred\":null and a missing body are accepted");
    wire_msg_release (&m);
    ok (wire_decode (good, 20, &m, &err) < 0 && errno == EPROTO,
        "a message cut short by len is rejected");
    ok (wire_decode (good, strlen (good) - 3, &m, NULL) == 0, "a NULL err is accepted");
    wire_msg_release (&m);
}

static void test_encode_size (void)
{
    struct wire_msg m;
    size_t len, overhead;
    char *buf, *s;

    /* The JSON of {"body":{"s":""}} with an n-character ASCII string is
     * overhead + n bytes: fill it to exactly WIRE_MAX_MSG, then one more. */
    wire_request_init (&m, "big", 1, json_pack ("{s:s}", "s", ""));
    buf = wire_encode (&m, &len);
    overhead = len - WIRE_HDR_LEN;
    free (buf);
    wire_msg_release (&m);

    s = malloc (WIRE_MAX_MSG + 1);
    memset (s, 'a', WIRE_MAX_MSG);
    s[WIRE_MAX_MSG - overhead] = '\0';
    wire_request_init (&m, "big", 1, json_pack ("{s:s}", "s", s));
    buf = wire_encode (&m, &len);
    ok (buf != NULL && len == WIRE_HDR_LEN + WIRE_MAX_MSG,
        "a message of exactly WIRE_MAX_MSG bytes encodes");
    ok (buf && hdr_value (buf) == WIRE_MAX_MSG, "and its header says %d", WIRE_MAX_MSG);
    free (buf);
    wire_msg_release (&m);

    s[WIRE_MAX_MSG - overhead] = 'a';
    s[WIRE_MAX_MSG - overhead + 1] = '\0';
    wire_request_init (&m, "big", 1, json_pack ("{s:s}", "s", s));
    errno = 0;
    len = 777;
    buf = wire_encode (&m, &len);
    ok (buf == NULL && errno == EMSGSIZE, "one byte more fails with EMSGSIZE");
    ok (len == 777, "and leaves *lenp alone");
    free (buf);
    wire_msg_release (&m);
    free (s);
}

/* --- conn over a socketpair --- */

struct rx {
    struct loop *loop;
    struct conn *conn;
    struct wire_msg msgs[8];
    int n;
    int stop_after;
    int closed;
    int msgs_at_close;
    int close_in_msg;
    struct loop_timer *guard;
    int timed_out;
    /* the peer end, written by a timer in steps */
    int peer;
    const char *chunks[4];
    size_t chunk_len[4];
    int nchunks, next_chunk;
    int seen_before_chunk[4];
    struct loop_timer *writer;
};

static void rx_msg (struct conn *c, struct wire_msg *msg, void *arg)
{
    struct rx *rx = arg;

    if (rx->n < 8) {
        rx->msgs[rx->n++] = *msg;
        memset (msg, 0, sizeof (*msg)); /* keep it */
    }
    if (rx->close_in_msg)
        conn_close (c);
    if (rx->n == rx->stop_after)
        loop_stop (rx->loop);
}

static void rx_close (struct conn *c, void *arg)
{
    struct rx *rx = arg;

    rx->closed++;
    rx->msgs_at_close = rx->n;
    rx->conn = NULL;
    loop_stop (rx->loop);
}

static void rx_guard (struct loop *l, void *arg)
{
    struct rx *rx = arg;

    rx->guard = NULL;
    rx->timed_out = 1;
    loop_stop (l);
}

static void rx_writer (struct loop *l, void *arg)
{
    struct rx *rx = arg;
    int i = rx->next_chunk++;

    rx->seen_before_chunk[i] = rx->n;
    if (write (rx->peer, rx->chunks[i], rx->chunk_len[i]) != (ssize_t)rx->chunk_len[i])
        diag ("short write to peer");
    if (rx->next_chunk == rx->nchunks) {
        loop_timer_remove (rx->writer);
        rx->writer = NULL;
    }
}

static int rx_setup (struct rx *rx, struct loop *l, int sv[2])
{
    memset (rx, 0, sizeof (*rx));
    rx->loop = l;
    if (socketpair (AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return -1;
    rx->peer = sv[1];
    if (!(rx->conn = conn_create (l, sv[0], rx_msg, rx_close, rx)))
        return -1;
    return 0;
}

/* Run the loop with a 5 s guard against hanging. */
static void rx_run (struct rx *rx)
{
    rx->timed_out = 0;
    rx->guard = loop_timer_add (rx->loop, 5000, 0, rx_guard, rx);
    if (loop_run (rx->loop) < 0)
        diag ("loop_run failed");
    if (rx->guard)
        loop_timer_remove (rx->guard);
    rx->guard = NULL;
}

static void rx_release (struct rx *rx)
{
    for (int i = 0; i < rx->n; i++)
        wire_msg_release (&rx->msgs[i]);
    rx->n = 0;
}

static char *frame (const char *type, int64_t id, int n, size_t *lenp)
{
    struct wire_msg m;
    char *buf;

    wire_request_init (&m, type, id, json_pack ("{s:i}", "n", n));
    buf = wire_encode (&m, lenp);
    wire_msg_release (&m);
    return buf;
}

/* Read exactly len bytes from fd, waiting up to 5 s.  0 or -1. */
static int read_full (int fd, char *buf, size_t len)
{
    size_t got = 0;

    while (got < len) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll (&p, 1, 5000) <= 0)
            return -1;
        ssize_t n = read (fd, buf + got, len - got);
        if (n <= 0)
            return -1;
        got += n;
    }
    return 0;
}

/* Read one frame from fd and decode it into m. */
static int read_msg (int fd, struct wire_msg *m)
{
    char hdr[WIRE_HDR_LEN], *body;
    size_t len;
    int rc;

    if (read_full (fd, hdr, sizeof (hdr)) < 0
        || wire_frame_len ((const unsigned char *)hdr, &len) < 0
        || !(body = malloc (len)))
        return -1;
    if ((rc = read_full (fd, body, len)) == 0)
        rc = wire_decode (body, len, m, NULL);
    free (body);
    return rc;
}

static void test_conn_order (struct loop *l)
{
    struct rx rx;
    struct wire_msg m;
    int sv[2], in_order = 1;
    size_t len[4], both_len;
    char *f[4], *both;

    if (rx_setup (&rx, l, sv) < 0) {
        ok (0, "socketpair and conn_create");
        return;
    }
    ok (conn_is_local (rx.conn), "a socketpair conn is local");
    ok (conn_peer_uid (rx.conn) == getuid (), "its peer uid is ours (SO_PEERCRED)");
    for (int i = 0; i < 4; i++)
        f[i] = frame ("test.msg", i + 1, 100 + i, &len[i]);

    /* Frames 1 and 2 in one write; frame 3 split inside its header and
     * frame 4 inside its body, the pieces written on later loop turns. */
    both_len = len[0] + len[1];
    both = malloc (both_len);
    memcpy (both, f[0], len[0]);
    memcpy (both + len[0], f[1], len[1]);
    ok (write (sv[1], both, both_len) == (ssize_t)both_len,
        "wrote two frames in one write");
    rx.chunks[0] = f[2];
    rx.chunk_len[0] = 2;
    rx.chunks[1] = f[2] + 2;
    rx.chunk_len[1] = len[2] - 2;
    rx.chunks[2] = f[3];
    rx.chunk_len[2] = len[3] / 2;
    rx.chunks[3] = f[3] + len[3] / 2;
    rx.chunk_len[3] = len[3] - len[3] / 2;
    rx.nchunks = 4;
    rx.writer = loop_timer_add (l, 20, 20, rx_writer, &rx);
    rx.stop_after = 4;
    rx_run (&rx);

    ok (!rx.timed_out && rx.n == 4, "all four messages arrived (%d)", rx.n);
    for (int i = 0; i < rx.n; i++)
        if (rx.msgs[i].id != i + 1
            || json_integer_value (json_object_get (rx.msgs[i].body, "n")) != 100 + i
            || strcmp (rx.msgs[i].type, "test.msg") != 0)
            in_order = 0;
    ok (in_order, "in order, with their bodies");
    ok (rx.seen_before_chunk[0] == 2,
        "the two frames of one write were both delivered");
    ok (rx.seen_before_chunk[1] == 2, "half a header delivers nothing (%d)",
        rx.seen_before_chunk[1]);
    ok (rx.seen_before_chunk[3] == 3, "half a body delivers nothing (%d)",
        rx.seen_before_chunk[3]);
    ok (rx.closed == 0, "the connection is still open");

    /* conn_send and conn_reply reach the peer decodable. */
    wire_request_init (&m, "job.status", 99, json_pack ("{s:s}", "who", "alice"));
    ok (conn_send (rx.conn, &m) == 0, "conn_send queues a message");
    ok (conn_outq_len (rx.conn) == 0, "a small message is written at once");
    wire_msg_release (&m);
    ok (read_msg (sv[1], &m) == 0 && m.id == 99 && strcmp (m.type, "job.status") == 0
            && !m.is_reply
            && strcmp (json_string_value (json_object_get (m.body, "who")), "alice")
                   == 0,
        "the peer decodes what conn_send sent");
    wire_msg_release (&m);
    ok (conn_reply (rx.conn, &rx.msgs[1], EPERM, "not yours", NULL) == 0,
        "conn_reply queues a reply");
    ok (read_msg (sv[1], &m) == 0 && m.is_reply && m.id == 2 && m.errnum == EPERM
            && m.errstr && strcmp (m.errstr, "not yours") == 0,
        "the peer decodes the reply");
    wire_msg_release (&m);

    /* The peer hanging up closes the connection. */
    close (sv[1]);
    rx.stop_after = -1;
    rx_run (&rx);
    ok (!rx.timed_out && rx.closed == 1, "peer EOF runs on_close once");
    rx_release (&rx);
    for (int i = 0; i < 4; i++)
        free (f[i]);
    free (both);
}

/* Write data to a fresh conn's peer and run until it closes. */
static void expect_drop (struct loop *l, const char *data, size_t len, int want_msgs,
                         int hangup, const char *what)
{
    struct rx rx;
    int sv[2];
    char c;

    if (rx_setup (&rx, l, sv) < 0) {
        ok (0, "socketpair and conn_create");
        return;
    }
    if (write (sv[1], data, len) != (ssize_t)len)
        diag ("short write");
    if (hangup)
        (void)shutdown (sv[1], SHUT_WR);
    rx.stop_after = -1;
    rx_run (&rx);
    ok (!rx.timed_out && rx.closed == 1 && rx.msgs_at_close == want_msgs,
        "%s: connection dropped after %d message(s) (closed %d, got %d)", what,
        want_msgs, rx.closed, rx.msgs_at_close);
    /* EOF, or ECONNRESET where the peer left unread bytes behind. */
    errno = 0;
    ssize_t n = read (sv[1], &c, 1);
    ok (n == 0 || (n < 0 && errno == ECONNRESET),
        "%s: the peer sees the close (%zd, %s)", what, n,
        n < 0 ? strerror (errno) : "EOF");
    close (sv[1]);
    rx_release (&rx);
}

static void test_conn_drop (struct loop *l)
{
    char buf[256];
    size_t len, flen;
    char *f = frame ("test.msg", 1, 1, &flen);

    memcpy (buf, "\xff\xff\xff\xff{}", 6);
    expect_drop (l, buf, 6, 0, 0, "length 0xFFFFFFFF");
    memcpy (buf, "\0\0\0\0", 4);
    expect_drop (l, buf, 4, 0, 0, "length 0");

    memcpy (buf, "\0\0\0\x05hello", 9);
    expect_drop (l, buf, 9, 0, 0, "garbage JSON in a valid frame");

    len = strlen ("{\"v\":9,\"type\":\"x\",\"id\":1}");
    buf[0] = buf[1] = buf[2] = 0;
    buf[3] = (char)len;
    memcpy (buf + 4, "{\"v\":9,\"type\":\"x\",\"id\":1}", len);
    expect_drop (l, buf, 4 + len, 0, 0, "wrong version");

    /* A good frame, then garbage, in one write: the first is delivered. */
    memcpy (buf, f, flen);
    memcpy (buf + flen, "\0\0\0\x03[1]", 7);
    expect_drop (l, buf, flen + 7, 1, 0, "good frame then a JSON array");

    /* Truncated: the peer closes mid-message. */
    expect_drop (l, f, flen - 3, 0, 1, "EOF mid-message");
    expect_drop (l, f, 2, 0, 1, "EOF mid-header");
    free (f);
}

static void test_conn_close_in_msg (struct loop *l)
{
    struct rx rx;
    int sv[2];
    size_t l1, l2;
    char *f1 = frame ("a", 1, 1, &l1), *f2 = frame ("b", 2, 2, &l2);
    char buf[512];

    if (rx_setup (&rx, l, sv) < 0) {
        ok (0, "socketpair and conn_create");
        return;
    }
    memcpy (buf, f1, l1);
    memcpy (buf + l1, f2, l2);
    if (write (sv[1], buf, l1 + l2) != (ssize_t)(l1 + l2))
        diag ("short write");
    rx.close_in_msg = 1;
    rx.stop_after = -1;
    rx_run (&rx);
    ok (!rx.timed_out && rx.closed == 1 && rx.n == 1,
        "conn_close inside on_msg: on_close once, no further messages (got %d)", rx.n);
    close (sv[1]);
    rx_release (&rx);
    free (f1);
    free (f2);
}

/* The peer end of a big transfer, read through the loop. */
struct sink {
    struct loop *loop;
    char *buf;
    size_t len, cap;
    int eof;
    size_t want; /* stop when this many bytes arrived (0: at EOF) */
};

static void sink_read (struct loop *l, int fd, int revents, void *arg)
{
    struct sink *s = arg;

    for (;;) {
        if (s->len == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 65536;
            s->buf = realloc (s->buf, s->cap);
        }
        ssize_t n = read (fd, s->buf + s->len, s->cap - s->len);
        if (n == 0) {
            s->eof = 1;
            loop_stop (l);
            return;
        }
        if (n < 0)
            break;
        s->len += n;
    }
    if (s->want && s->len >= s->want)
        loop_stop (l);
}

static void test_conn_big (struct loop *l, int close_after_flush)
{
    struct rx rx;
    struct sink sink = { .loop = l };
    struct loop_watch *w;
    struct wire_msg m, got;
    int sv[2], small = 4096;
    char *s = malloc (1 << 20);
    size_t flen;
    char *f;

    memset (s, 'q', (1 << 20) - 1);
    s[(1 << 20) - 1] = '\0';
    if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) < 0) {
        ok (0, "socketpair");
        free (s);
        return;
    }
    (void)setsockopt (sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof (small));
    memset (&rx, 0, sizeof (rx));
    rx.loop = l;
    rx.conn = conn_create (l, sv[0], rx_msg, rx_close, &rx);
    w = loop_fd_add (l, sv[1], LOOP_READ, sink_read, &sink);

    wire_request_init (&m, "big.send", 5, json_pack ("{s:s}", "s", s));
    f = wire_encode (&m, &flen);
    sink.want = close_after_flush ? 0 : flen;
    ok (rx.conn && w && conn_send (rx.conn, &m) == 0,
        "conn_send queues a 1 MiB message");
    ok (conn_outq_len (rx.conn) > 0,
        "it does not all fit in the socket at once (%zu queued)",
        conn_outq_len (rx.conn));
    if (close_after_flush) {
        conn_close_after_flush (rx.conn);
        ok (rx.closed == 0, "conn_close_after_flush waits for the output");
    }
    rx_run (&rx);
    /* on_close stops the loop, maybe before the sink read the rest. */
    for (int i = 0; close_after_flush && !sink.eof && i < 100; i++) {
        struct pollfd p = { .fd = sv[1], .events = POLLIN };
        if (poll (&p, 1, 100) > 0)
            sink_read (l, sv[1], LOOP_READ, &sink);
    }
    if (close_after_flush) {
        ok (!rx.timed_out && sink.eof && rx.closed == 1,
            "after the flush the connection closes (eof %d closed %d)", sink.eof,
            rx.closed);
    } else {
        ok (!rx.timed_out && conn_outq_len (rx.conn) == 0, "the loop drains the queue");
        ok (rx.closed == 0, "the connection stays open");
    }
    ok (sink.len == flen && f && memcmp (sink.buf, f, flen) == 0,
        "the peer received the whole frame byte for byte (%zu of %zu)", sink.len, flen);
    ok (sink.len > WIRE_HDR_LEN
            && wire_decode (sink.buf + WIRE_HDR_LEN, sink.len - WIRE_HDR_LEN, &got,
                            NULL)
                   == 0
            && strlen (json_string_value (json_object_get (got.body, "s")))
                   == (1 << 20) - 1,
        "and it decodes");
    wire_msg_release (&got);
    wire_msg_release (&m);
    loop_fd_remove (w);
    if (rx.conn)
        conn_destroy (rx.conn);
    close (sv[1]);
    free (sink.buf);
    free (f);
    free (s);
}

/* A message of about size bytes. */
static void msg_of_size (struct wire_msg *m, const char *type, int64_t id, size_t size)
{
    char *s = malloc (size + 1);

    memset (s, 'z', size);
    s[size] = '\0';
    wire_request_init (m, type, id, json_pack ("{s:s}", "s", s));
    free (s);
}

/* A peer that never reads: once what is queued would pass the cap,
 * conn_send fails with ENOBUFS and the connection closes from the loop,
 * not inside conn_send. */
static void test_conn_outq_cap (struct loop *l)
{
    struct rx rx;
    struct wire_msg m;
    int sv[2], small = 4096, sent = 0, rc = 0, err = 0;

    if (rx_setup (&rx, l, sv) < 0) {
        ok (0, "socketpair and conn_create");
        return;
    }
    (void)setsockopt (sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof (small));
    conn_set_outq_max (rx.conn, 64 * 1024);
    msg_of_size (&m, "cap.test", 1, 16 * 1024);
    while (sent < 100 && (rc = conn_send (rx.conn, &m)) == 0)
        sent++;
    err = errno;
    wire_msg_release (&m);
    ok (rc < 0 && err == ENOBUFS,
        "conn_send fails with ENOBUFS past the cap (errno %d)", err);
    ok (sent >= 4 && sent < 20,
        "after about the cap's worth of messages (%d of 16 KiB)", sent);
    ok (rx.closed == 0 && rx.conn, "the close is not done inside conn_send");
    rx_run (&rx);
    ok (!rx.timed_out && rx.closed == 1, "the loop closes it right after");
    close (sv[1]);
}

/* A streamed answer: the drain callback adds one part each time the
 * socket has room; input waits while the stream is on. */
struct stream {
    struct rx *rx;
    int parts, sent, calls;
    int input_seen_while_streaming;
};

static void stream_drain (struct conn *c, void *arg)
{
    struct stream *st = arg;
    struct wire_msg m;

    st->calls++;
    st->input_seen_while_streaming |= st->rx->n > 0;
    msg_of_size (&m, "part", ++st->sent, 32 * 1024);
    if (conn_send (c, &m) < 0)
        diag ("conn_send part %d failed", st->sent);
    wire_msg_release (&m);
    if (st->sent == st->parts) {
        conn_set_drain (c, NULL, NULL, 0, NULL);
        conn_pause_input (c, 0);
    }
}

static void test_conn_drain (struct loop *l)
{
    struct rx rx;
    struct sink sink = { .loop = l };
    struct stream st = { .rx = &rx, .parts = 40 };
    struct loop_watch *w;
    struct wire_msg one;
    int sv[2], small = 8192, in_order = 1;
    size_t flen, off = 0, k = 0, total = 0;
    char *f;

    for (int i = 1; i <= st.parts; i++) {
        msg_of_size (&one, "part", i, 32 * 1024);
        free (wire_encode (&one, &flen));
        total += flen;
        wire_msg_release (&one);
    }
    if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) < 0) {
        ok (0, "socketpair");
        return;
    }
    (void)setsockopt (sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof (small));
    memset (&rx, 0, sizeof (rx));
    rx.loop = l;
    rx.conn = conn_create (l, sv[0], rx_msg, rx_close, &rx);
    conn_set_drain (rx.conn, stream_drain, &st, 16 * 1024, NULL);
    conn_pause_input (rx.conn, 1);
    /* A request arrives while the answer streams: it must wait. */
    f = frame ("next.request", 9, 1, &flen);
    ok (f && write (sv[1], f, flen) == (ssize_t)flen,
        "the peer sends its next request");
    free (f);
    sink.want = total;
    w = loop_fd_add (l, sv[1], LOOP_READ, sink_read, &sink);
    rx_run (&rx);
    ok (!rx.timed_out && st.sent == st.parts && sink.len == total,
        "every part went out (%d of %d, %zu of %zu bytes)", st.sent, st.parts, sink.len,
        total);
    if (rx.n == 0) {
        rx.stop_after = 1;
        rx_run (&rx);
    }
    ok (st.calls == st.parts && !st.input_seen_while_streaming,
        "one part per call, and no input was read while streaming");
    ok (rx.n == 1 && !strcmp (rx.msgs[0].type, "next.request"),
        "the waiting request is read once the stream ends");
    while (off + WIRE_HDR_LEN <= sink.len) {
        size_t len;
        if (wire_frame_len ((unsigned char *)sink.buf + off, &len) < 0
            || off + WIRE_HDR_LEN + len > sink.len
            || wire_decode (sink.buf + off + WIRE_HDR_LEN, len, &one, NULL) < 0)
            break;
        in_order &= one.id == (int64_t)++k;
        wire_msg_release (&one);
        off += WIRE_HDR_LEN + len;
    }
    ok (k == (size_t)st.parts && in_order, "the peer got the %zu parts in order", k);
    rx_release (&rx);
    loop_fd_remove (w);
    free (sink.buf);
    conn_destroy (rx.conn);
    close (sv[1]);
}

/* A reply too large for a message is answered with an error reply. */
static void test_conn_reply_too_big (struct loop *l)
{
    struct rx rx;
    struct wire_msg req, rep, got;
    int sv[2], rc, err;

    if (rx_setup (&rx, l, sv) < 0) {
        ok (0, "socketpair and conn_create");
        return;
    }
    msg_of_size (&req, "big.query", 77, 8);
    msg_of_size (&rep, "big.query", 77, WIRE_MAX_MSG + 1);
    rep.is_reply = 1;
    rc = conn_send_or_error (rx.conn, &rep);
    err = errno;
    ok (rc < 0 && err == EMSGSIZE, "conn_send_or_error reports EMSGSIZE");
    /* Read before ok (): its arguments are evaluated in no set order, and
     * the message's text is one of them. */
    memset (&got, 0, sizeof (got));
    rc = read_msg (sv[1], &got);
    ok (rc == 0 && got.is_reply && got.id == 77 && got.errnum == EMSGSIZE && got.errstr
            && strstr (got.errstr, "larger than"),
        "the peer gets an error reply to its request instead: %s",
        got.errstr ? got.errstr : "(none)");
    wire_msg_release (&got);
    wire_msg_release (&req);
    wire_msg_release (&rep);
    conn_destroy (rx.conn);
    close (sv[1]);
}

/* conn_refuse: an error to no request, then the connection closes. */
static void test_conn_refuse (struct loop *l)
{
    struct rx rx;
    struct wire_msg got;
    int sv[2];
    char c;

    if (rx_setup (&rx, l, sv) < 0) {
        ok (0, "socketpair and conn_create");
        return;
    }
    conn_refuse (rx.conn, EUSERS, "too many connections");
    ok (rx.closed == 1, "conn_refuse closes once its reply is out");
    ok (read_msg (sv[1], &got) == 0 && got.is_reply && got.id == 0
            && got.errnum == EUSERS && !strcmp (got.errstr, "too many connections"),
        "the peer reads why: an error reply with id 0");
    ok (read (sv[1], &c, 1) == 0, "then end of file");
    wire_msg_release (&got);
    close (sv[1]);
}

int main (void)
{
    struct loop *l;

    test_roundtrip ();
    test_frame_len ();
    test_decode_bad ();
    test_encode_size ();

    if (!(l = loop_create ())) {
        ok (0, "loop_create");
        return done_testing ();
    }
    test_conn_order (l);
    test_conn_drop (l);
    test_conn_close_in_msg (l);
    test_conn_big (l, 0);
    test_conn_big (l, 1);
    test_conn_outq_cap (l);
    test_conn_drain (l);
    test_conn_reply_too_big (l);
    test_conn_refuse (l);
    loop_destroy (l);
    return done_testing ();
}
