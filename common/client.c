/* client.c - see client.h
 *
 * Over TCP the connection opens as a worker's link does (common/link.h):
 * link.open with a MUNGE credential of the caller, and the answer's
 * credential must be of root, our own uid or service_user, so a request
 * (a job's script, its environment) goes to the real scheduler only.
 * Then every frame either way is sealed with the link's session key
 * (common/session.h).  A blocking command may wait on munged; a daemon's
 * loop never does.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/client.h"
#include "common/config.h"
#include "common/link.h"
#include "common/session.h"
#include "common/util.h"
#include "common/wire.h"

#define CLIENT_TIMEOUT_MS 60000
#define CLIENT_CRED_TTL 60

struct client {
    int fd;
    int64_t next_id;
    struct auth *auth;       /* over TCP: the link opens with MUNGE */
    struct session *session; /* then seals every frame */
    /* Replicas: the list of addresses, tried in turn until one answers
     * (followers listen on none), NULL for one address. */
    char *list;
    int at;         /* the list's address connected last */
    int broken;     /* the connection failed under a request */
    int timeout_ms; /* for a reply */
};

static int client_recv (struct client *c, struct wire_msg *m, struct hpcq_error *err);
static int send_all (int fd, const char *buf, size_t len);

/* Credentials for requests over TCP, from munged at $HPCQ_MUNGE_SOCKET,
 * else the config file's munge_socket, else libmunge's default. */
static struct auth *client_auth (const char *server, struct hpcq_error *err)
{
    const char *sock = getenv ("HPCQ_MUNGE_SOCKET");
    char *fromcfg = NULL;
    struct hpcq_error why;
    struct auth *a;

    if (!sock || !*sock)
        sock = fromcfg = config_client_get ("munge_socket");
    if (!(a = auth_create (sock, CLIENT_CRED_TTL, &why)))
        errprintf (err, "cannot authenticate to %s: %s", server, why.text);
    free (fromcfg);
    if (a) {
        char *user = config_client_get ("service_user");
        auth_trust_uid (a, 0);
        auth_trust_uid (a, getuid ());
        if (user && auth_service_user (a, user, &why) < 0) {
            errprintf (err, "%s", why.text);
            auth_destroy (a);
            a = NULL;
        }
        free (user);
    }
    return a;
}

/* The scheduler's answer to our link.open: refused, or its credential
 * (of a service uid, made for this answer on this link) and its secret. */
static int client_link_answer (struct client *c, const char *server, const char *ni,
                               const uint8_t ours[SESSION_SECRET_LEN],
                               struct hpcq_error *err)
{
    uint8_t theirs[SESSION_SECRET_LEN];
    char binding[AUTH_BINDING_MAX];
    struct auth_cred who;
    struct wire_msg ans;
    const char *text;
    void *payload = NULL;
    int len = 0, rc = -1;

    if (client_recv (c, &ans, err) < 0)
        return -1;
    if (ans.is_reply && ans.id == 0 && ans.errnum) {
        /* Refused before the link opened (too many connections). */
        errno = ans.errnum;
        errprintf (err, "%s", ans.errstr ? ans.errstr : strerror (ans.errnum));
    } else if (auth_link_answer (&ans, 1, ni, binding, err) == 0
               && (text = auth_cred_text (&ans, err))
               && auth_decode (c->auth, text, &payload, &len, &who, err) == 0) {
        if (!auth_is_service (c->auth, who.uid))
            errprintf (err,
                       "refusing %s: it answers as uid %u, not root or the "
                       "cluster's service user",
                       server, (unsigned)who.uid);
        else if (link_payload_check (&ans, AUTH_TO_WORKER, binding, payload, len,
                                     theirs, err)
                 == 0) {
            c->session = session_create (ours, theirs, binding, 1, 0, 0);
            rc = 0;
        }
    }
    if (rc < 0 && !errno)
        errno = EPERM;
    free (payload);
    wire_msg_release (&ans);
    explicit_bzero (theirs, sizeof (theirs));
    return rc;
}

/* Open the link: MUNGE once each way, then a session key. */
static int client_link (struct client *c, const char *server, struct hpcq_error *err)
{
    uint8_t ours[SESSION_SECRET_LEN], payload[LINK_PAYLOAD_LEN];
    char ni[AUTH_NONCE_HEX + 1], *text = NULL, *buf = NULL;
    struct wire_msg req;
    size_t len;
    int rc = -1;

    if (auth_nonce (ni) < 0 || session_secret (ours) < 0)
        return errprintf (err, "no random numbers: %s", strerror (errno));
    wire_request_init (&req, "link.open", 1, json_pack ("{s:s}", "nonce", ni));
    if (link_payload (&req, AUTH_TO_SCHEDULER, ni, ours, payload) < 0)
        errprintf (err, "link.open: %s", strerror (errno));
    else if ((text =
                  auth_encode (c->auth, payload, sizeof (payload), AUTH_ANY_UID, err))
             && (req.cred = json_string (text)) && (buf = wire_encode (&req, &len))) {
        if (send_all (c->fd, buf, len) < 0)
            errprintf (err, "cannot send to server: %s", strerror (errno));
        else
            rc = client_link_answer (c, server, ni, ours, err);
    }
    free (buf);
    free (text);
    wire_msg_release (&req);
    explicit_bzero (ours, sizeof (ours));
    explicit_bzero (payload, sizeof (payload));
    return rc;
}

static int dial_unix (const char *path, struct hpcq_error *err)
{
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    int fd;

    if (strlen (path) >= sizeof (sun.sun_path)) {
        errno = ENAMETOOLONG;
        return errprintf (err, "socket path too long: %s", path);
    }
    strcpy (sun.sun_path, path);
    if ((fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
        return errprintf (err, "socket: %s", strerror (errno));
    if (connect (fd, (struct sockaddr *)&sun, sizeof (sun)) < 0) {
        int saved = errno;
        close (fd);
        errno = saved;
        return errprintf (err, "cannot connect to server at %s: %s", path,
                          strerror (saved));
    }
    return fd;
}

static int dial_tcp (const char *addr, struct hpcq_error *err)
{
    char host[256];
    const char *colon = strrchr (addr, ':');
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
    struct addrinfo *res, *ai;
    int fd = -1, rc, saved = ECONNREFUSED;

    if (!colon || colon == addr || (size_t)(colon - addr) >= sizeof (host)) {
        errno = EINVAL;
        return errprintf (err, "invalid server address '%s'", addr);
    }
    memcpy (host, addr, colon - addr);
    host[colon - addr] = '\0';
    if ((rc = getaddrinfo (host, colon + 1, &hints, &res)) != 0) {
        errno = EHOSTUNREACH;
        return errprintf (err, "cannot resolve '%s': %s", addr, gai_strerror (rc));
    }
    for (ai = res; ai; ai = ai->ai_next) {
        if ((fd = socket (ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0)) < 0)
            continue;
        if (connect (fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            int one = 1;
            /* Small request/reply messages: no Nagle delay. */
            (void)setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof (one));
            break;
        }
        saved = errno;
        close (fd);
        fd = -1;
    }
    freeaddrinfo (res);
    if (fd < 0) {
        errno = saved;
        return errprintf (err, "cannot connect to server at %s: %s", addr,
                          strerror (saved));
    }
    return fd;
}

static int client_is_tcp (const char *addr)
{
    return strncmp (addr, "unix:", 5) != 0 && addr[0] != '/';
}

int client_dial (const char *addr, struct hpcq_error *err)
{
    if (strncmp (addr, "unix:", 5) == 0)
        return dial_unix (addr + 5, err);
    if (addr[0] == '/')
        return dial_unix (addr, err);
    return dial_tcp (addr, err);
}

static void client_close (struct client *c)
{
    if (c->fd >= 0)
        close (c->fd);
    c->fd = -1;
    session_destroy (c->session);
    c->session = NULL;
    auth_destroy (c->auth);
    c->auth = NULL;
    c->broken = 0;
}

/* Connect to one address.  0, or -1 with err and c closed. */
static int client_open (struct client *c, const char *server, struct hpcq_error *err)
{
    if ((client_is_tcp (server) && !(c->auth = client_auth (server, err)))
        || (c->fd = client_dial (server, err)) < 0
        || (c->auth && client_link (c, server, err) < 0)) {
        client_close (c);
        return -1;
    }
    return 0;
}

/* How long a client of replicas looks for a leader: an election takes a
 * few seconds (hpcq-scheduler(8)). */
static int64_t client_failover_ms (void)
{
    const char *s = getenv ("HPCQ_FAILOVER_TIMEOUT");
    double v = s ? atof (s) : 0;

    return (int64_t)((v > 0 ? v : 15) * 1000);
}

int client_each_address (const char *list, int (*fn) (const char *addr, void *arg),
                         void *arg)
{
    char addr[4200];
    const char *p = list;

    while (*p) {
        size_t len = strcspn (p, ",");
        if (len > 0 && len < sizeof (addr)) {
            memcpy (addr, p, len);
            addr[len] = '\0';
            if (fn (addr, arg) == 0)
                return 0;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return -1;
}

struct open_try {
    struct client *c;
    struct hpcq_error *err;
    int i, from, n;
};

/* The addresses from t->from on, then those before it. */
static int open_one (const char *addr, void *arg)
{
    struct open_try *t = arg;
    int i = t->i++;

    if (i < t->from || i >= t->n)
        return -1;
    if (client_open (t->c, addr, t->err) < 0)
        return -1;
    t->c->at = i;
    return 0;
}

static int open_round (struct client *c, int from, struct hpcq_error *err)
{
    struct open_try t = { c, err, 0, from, INT32_MAX };

    if (client_each_address (c->list, open_one, &t) == 0)
        return 0;
    t.n = from;
    t.from = t.i = 0;
    return client_each_address (c->list, open_one, &t);
}

/* The leader among the replicas: each address in turn (a follower
 * listens on none), starting after the one that failed last (a leader
 * that hangs still takes connections), again until the failover time is
 * up. */
static int client_open_list (struct client *c, int after, struct hpcq_error *err)
{
    int64_t deadline = util_now_ms () + client_failover_ms ();

    while (open_round (c, after + 1, err) < 0) {
        if (util_now_ms () >= deadline)
            return errprintf (err, "no scheduler answers at %s: %s", c->list,
                              err->text);
        (void)poll (NULL, 0, 100);
    }
    return 0;
}

struct client *client_connect (const char *server, struct hpcq_error *err)
{
    char *fromcfg = NULL;
    struct client *c;
    int rc;

    if (!server)
        server = getenv ("HPCQ_SERVER");
    if (!server || !*server) {
        if (!(server = fromcfg = config_client_server (err))) {
            errprintf (err, "no server: set HPCQ_SERVER (hpcq-local start prints it) "
                            "or 'server' in the config file");
            return NULL;
        }
    }
    c = xzalloc (sizeof (*c));
    c->next_id = 1;
    c->fd = -1;
    c->timeout_ms = CLIENT_TIMEOUT_MS;
    if (strchr (server, ',')) {
        c->list = xstrdup (server);
        /* A leader that does not answer within the failover time is
         * replaced by then, or hangs: the next one is asked. */
        c->timeout_ms = (int)client_failover_ms ();
        rc = client_open_list (c, -1, err);
    } else
        rc = client_open (c, server, err);
    free (fromcfg);
    if (rc < 0) {
        client_destroy (c);
        return NULL;
    }
    return c;
}

void client_destroy (struct client *c)
{
    if (!c)
        return;
    client_close (c);
    free (c->list);
    free (c);
}

static int read_full (int fd, void *buf, size_t len, int timeout_ms)
{
    char *p = buf;
    while (len > 0) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int rc = poll (&pfd, 1, timeout_ms);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        ssize_t n = read (fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = ECONNRESET;
            return -1;
        }
        p += n;
        len -= n;
    }
    return 0;
}

static int client_recv (struct client *c, struct wire_msg *m, struct hpcq_error *err)
{
    unsigned char hdr[WIRE_HDR_LEN];
    size_t len;
    char *buf;
    int rc;

    if (read_full (c->fd, hdr, sizeof (hdr), c->timeout_ms) < 0) {
        c->broken = 1;
        return errprintf (err, "no reply from server: %s", strerror (errno));
    }
    if (wire_frame_len (hdr, &len) < 0)
        return errprintf (err, "bad reply from server");
    buf = xzalloc (len);
    if (read_full (c->fd, buf, len, c->timeout_ms) < 0) {
        c->broken = 1;
        free (buf);
        return errprintf (err, "reply from server cut short: %s", strerror (errno));
    }
    if (c->session) {
        ssize_t n = session_open (c->session, buf, len, err);
        if (n < 0) {
            free (buf);
            return -1;
        }
        len = (size_t)n;
    }
    rc = wire_decode (buf, len, m, err);
    free (buf);
    return rc;
}

/* Write all of buf to the socket; a closed peer is EPIPE, not SIGPIPE. */
static int send_all (int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send (fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        buf += n;
        len -= n;
    }
    return 0;
}

/* Frame m, sealed once the link is open.  NULL with errno. */
static char *client_encode (struct client *c, const struct wire_msg *m, size_t *lenp)
{
    char *buf = wire_encode (m, lenp);

    return buf && c->session ? session_seal_frame (c->session, buf, lenp) : buf;
}

static int client_send (struct client *c, const char *type, json_t *body, int64_t id,
                        struct hpcq_error *err)
{
    struct wire_msg req;
    size_t len;
    char *buf;

    wire_request_init (&req, type, id, body);
    buf = client_encode (c, &req, &len);
    wire_msg_release (&req);
    if (!buf)
        return errprintf (err, "request too large: %s", strerror (errno));
    if (send_all (c->fd, buf, len) < 0) {
        int saved = errno;
        struct wire_msg rep;
        free (buf);
        /* A server that refused the connection (conn_refuse) said why
         * before closing it: that is the error to show. */
        if ((saved == EPIPE || saved == ECONNRESET)
            && client_recv (c, &rep, err) == 0) {
            if (rep.is_reply && rep.errnum && rep.errstr) {
                errno = rep.errnum;
                errprintf (err, "%s", rep.errstr);
                wire_msg_release (&rep);
                return -1;
            }
            wire_msg_release (&rep);
        }
        c->broken = 1;
        errno = saved;
        return errprintf (err, "cannot send to server: %s", strerror (saved));
    }
    free (buf);
    return 0;
}

/* The next reply to request id; its body (new reference) in *bodyp. */
static int client_reply (struct client *c, int64_t id, json_t **bodyp,
                         struct hpcq_error *err)
{
    struct wire_msg rep;

    if (client_recv (c, &rep, err) < 0)
        return -1;
    /* An error to no request: the server refused the connection itself
     * (conn_refuse: too many connections) and says why. */
    if (rep.is_reply && rep.id == 0 && rep.errnum != 0 && id != 0)
        rep.id = id;
    if (!rep.is_reply || rep.id != id) {
        wire_msg_release (&rep);
        errno = EPROTO;
        return errprintf (err, "unexpected reply from server");
    }
    if (rep.errnum != 0) {
        int e = rep.errnum;
        errprintf (err, "%s", rep.errstr ? rep.errstr : strerror (e));
        wire_msg_release (&rep);
        errno = e;
        return -1;
    }
    *bodyp = json_incref (rep.body);
    wire_msg_release (&rep);
    return 0;
}

int client_rpc (struct client *c, const char *type, json_t *body, json_t **replyp,
                struct hpcq_error *err)
{
    int64_t id = c->next_id++;
    json_t *reply;

    /* Replicas: a leader that died under the request is replaced within
     * the failover time; the request goes again to the new one (a
     * submission carries its uuid, so it never makes a second job),
     * for three failover times at most. */
    int64_t deadline = util_now_ms () + 3 * client_failover_ms ();
    while (c->list) {
        json_incref (body);
        if (client_send (c, type, body, id, err) == 0
            && client_reply (c, id, &reply, err) == 0) {
            json_decref (body);
            goto done;
        }
        if (!c->broken || util_now_ms () >= deadline) {
            json_decref (body);
            return -1;
        }
        client_close (c);
        if (client_open_list (c, c->at, err) < 0) {
            json_decref (body);
            return -1;
        }
        id = c->next_id++;
    }
    if (client_send (c, type, body, id, err) < 0
        || client_reply (c, id, &reply, err) < 0)
        return -1;
done:
    if (replyp)
        *replyp = reply;
    else
        json_decref (reply);
    return 0;
}

int client_rpc_stream (struct client *c, const char *type, json_t *body,
                       void (*cb) (json_t *reply, void *arg), void *arg,
                       struct hpcq_error *err)
{
    int64_t id = c->next_id++;
    int more = 1;

    if (client_send (c, type, body, id, err) < 0)
        return -1;
    while (more) {
        json_t *reply;
        if (client_reply (c, id, &reply, err) < 0)
            return -1;
        more = json_is_true (json_object_get (reply, "more"));
        cb (reply, arg);
        json_decref (reply);
    }
    return 0;
}
