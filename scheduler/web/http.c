/* http.c - see http.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/admit.h"
#include "common/log.h"
#include "common/sockdiag.h"
#include "common/util.h"
#include "scheduler/web/http.h"
#include "scheduler/server_attr.h"
#include "scheduler/web/metrics_count.h"

#define HTTP_MAX_ROUTES 16
#define HTTP_TOKEN_MAX 512
/* Connections (issue 22, finding 3: 140 slow ones from two addresses held
 * every slot).  A peer (a uid on this host, else an address) holds at most
 * HTTP_PER_PEER; the last HTTP_RESERVE slots are for root and the service
 * users only; and each request must be whole within HTTP_REQUEST_MS.
 * (MHD's per-address limit is not used: on loopback every local user
 * shares 127.0.0.1, root's curl too; the uid behind it is the peer.) */
#define HTTP_MAX_CONNS 128
#define HTTP_PER_PEER 16
#define HTTP_RESERVE 32
#define HTTP_REQUEST_MS 10000

/* A connection, from MHD's notice of it to its close. */
struct http_peer {
    int fd;
    uint64_t key;
    int counted;  /* 1: counts against key's HTTP_PER_PEER */
    int answered; /* its request is answered (or it is being closed) */
    int64_t since_ms;
    char name[64];
    LIST_ENTRY (http_peer) link;
};

struct route {
    char path[64];
    int prefix;
    http_handler_f fn;
    void *arg;
};

struct http {
    struct server *srv;
    struct MHD_Daemon *d;
    int listen_fd;
    struct loop_watch *watch;
    struct loop_timer *tick;
    struct loop_timer *soon; /* MHD has work now: the next turn */
    char address[96];
    char token[HTTP_TOKEN_MAX]; /* "" if no http_token_file */
    struct route routes[HTTP_MAX_ROUTES];
    int nroutes;
    LIST_HEAD (, http_peer) peers;
    int npeers;
    struct admit_counts *per_peer;
    struct admit_ratelog refuse_log, mhd_log;
};

const char *http_address (const struct http *h)
{
    return h->address;
}

int http_route (struct http *h, const char *path, int prefix, http_handler_f fn,
                void *arg)
{
    struct route *r;

    if (h->nroutes == HTTP_MAX_ROUTES || strlen (path) >= sizeof (r->path)) {
        errno = ENOSPC;
        return -1;
    }
    r = &h->routes[h->nroutes++];
    snprintf (r->path, sizeof (r->path), "%s", path);
    r->prefix = prefix;
    r->fn = fn;
    r->arg = arg;
    return 0;
}

const char *http_arg (struct http_req *r, const char *key)
{
    return MHD_lookup_connection_value (r->conn, MHD_GET_ARGUMENT_KIND, key);
}

enum http_view http_job_view (const struct http_req *r, int64_t owner_uid)
{
    /* The same rule as qstat's (job_stat.c): a view the API hid while
     * qstat -f showed it would protect nothing. */
    if (r->who.manager || r->who.operator|| server_attr_query_other_jobs (r->srv)
        || (r->who.known && (int64_t)r->who.uid == owner_uid))
        return HTTP_VIEW_FULL;
    return HTTP_VIEW_TABLE;
}

int http_may_see (const struct http_req *r, int64_t owner_uid)
{
    return http_job_view (r, owner_uid) != HTTP_VIEW_TABLE;
}

/* ---- answers ------------------------------------------------------------ */

static int http_queue (struct http_req *r, int status, struct MHD_Response *resp,
                       const char *type)
{
    int rc;

    if (!resp)
        return MHD_NO;
    MHD_add_response_header (resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header (resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header (resp, "X-Content-Type-Options", "nosniff");
    /* The status page's own script and style, and requests to this server
     * only: nothing else runs or is fetched. */
    if (strncmp (type, "text/html", 9) == 0)
        MHD_add_response_header (resp, "Content-Security-Policy",
                                 "default-src 'none'; script-src 'unsafe-inline'; "
                                 "style-src 'unsafe-inline'; connect-src 'self'; "
                                 "img-src 'self'");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header (resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    rc = MHD_queue_response (r->conn, status, resp);
    MHD_destroy_response (resp);
    r->answered = 1;
    {
        const union MHD_ConnectionInfo *sc =
            MHD_get_connection_info (r->conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        struct http_peer *p = sc ? sc->socket_context : NULL;
        if (p)
            p->answered = 1;
    }
    metrics_http_answered (r->srv->metrics, status);
    return rc;
}

int http_reply (struct http_req *r, int status, const char *type, char *body,
                size_t len)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer (len, body ? body : (char *)"",
                                         body ? MHD_RESPMEM_MUST_FREE
                                              : MHD_RESPMEM_PERSISTENT);
    if (!resp)
        free (body);
    return http_queue (r, status, resp, type);
}

int http_reply_static (struct http_req *r, int status, const char *type,
                       const char *body, size_t len)
{
    return http_queue (r, status,
                       MHD_create_response_from_buffer (len, (void *)body,
                                                        MHD_RESPMEM_PERSISTENT),
                       type);
}

int http_reply_json (struct http_req *r, int status, json_t *o)
{
    char *text = o ? json_dumps (o, JSON_COMPACT) : NULL;

    json_decref (o);
    if (!text)
        return http_reply_error (r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    return http_reply (r, status, "application/json", text, strlen (text));
}

int http_reply_error (struct http_req *r, int status, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    json_t *o;
    char *text;

    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    o = json_pack ("{s:{s:{s:s s:s}} s:[{s:s s:i s:s}] s:[]}", "meta", "plugin", "type",
                   "api/v1", "name", "hpcq", "errors", "description", msg,
                   "error_number", status, "error",
                   MHD_get_reason_phrase_for ((unsigned)status), "warnings");
    text = o ? json_dumps (o, JSON_COMPACT) : NULL;
    json_decref (o);
    if (!text)
        return http_reply (r, status, "text/plain", NULL, 0);
    return http_reply (r, status, "application/json", text, strlen (text));
}

struct stream {
    ssize_t (*fill) (void *arg, char *buf, size_t max);
    void (*done) (void *arg);
    void *arg;
};

static ssize_t stream_read (void *cls, uint64_t pos, char *buf, size_t max)
{
    struct stream *s = cls;
    ssize_t n = s->fill (s->arg, buf, max);

    return n < 0 ? MHD_CONTENT_READER_END_OF_STREAM : n;
}

static void stream_free (void *cls)
{
    struct stream *s = cls;

    s->done (s->arg);
    free (s);
}

int http_reply_stream (struct http_req *r, const char *type,
                       ssize_t (*fill) (void *arg, char *buf, size_t max), void *arg,
                       void (*done) (void *arg))
{
    struct stream *s = calloc (1, sizeof (*s));
    struct MHD_Response *resp;

    if (!s) {
        done (arg);
        return http_reply_error (r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    }
    s->fill = fill;
    s->done = done;
    s->arg = arg;
    if (!(resp = MHD_create_response_from_callback (MHD_SIZE_UNKNOWN, 64 * 1024,
                                                    stream_read, s, stream_free))) {
        stream_free (s);
        return http_reply_error (r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    }
    return http_queue (r, MHD_HTTP_OK, resp, type);
}

/* ---- who asks ----------------------------------------------------------- */

/* Compare without leaking where the first difference is. */
static int token_equal (const char *a, const char *b)
{
    size_t la = strlen (a), lb = strlen (b);
    unsigned char d = la != lb;

    for (size_t i = 0; i < la && i < lb; i++)
        d |= (unsigned char)(a[i] ^ b[i]);
    return d == 0;
}

/* Fill r->who, or -1 after answering 403. */
static int http_identify (struct http *h, struct http_req *r)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info (r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const union MHD_ConnectionInfo *fi =
        MHD_get_connection_info (r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    const char *auth = MHD_lookup_connection_value (r->conn, MHD_HEADER_KIND,
                                                    MHD_HTTP_HEADER_AUTHORIZATION);
    struct sockaddr_storage local;
    socklen_t len = sizeof (local);
    const struct sockaddr *peer = ci ? ci->client_addr : NULL;

    memset (&r->who, 0, sizeof (r->who));
    if (!peer)
        return http_reply_error (r, MHD_HTTP_FORBIDDEN, "unknown client"), -1;
    if (peer->sa_family == AF_INET)
        inet_ntop (AF_INET, &((const struct sockaddr_in *)peer)->sin_addr, r->who.addr,
                   sizeof (r->who.addr));
    else if (peer->sa_family == AF_INET6)
        inet_ntop (AF_INET6, &((const struct sockaddr_in6 *)peer)->sin6_addr,
                   r->who.addr, sizeof (r->who.addr));
    /* A token is root's secret (http_token_file): a manager's, from
     * wherever it comes. */
    if (auth && h->token[0] && strncasecmp (auth, "Bearer ", 7) == 0
        && token_equal (auth + 7, h->token)) {
        r->who.manager = r->who.operator= 1;
        return 0;
    }
    if (!sockdiag_is_loopback (peer)) {
        http_reply_error (r, MHD_HTTP_FORBIDDEN,
                          h->token[0]
                              ? "requests from %s need the token of http_token_file"
                              : "requests from %s are refused: only loopback is served "
                                "(set http_token_file to allow others with its token)",
                          r->who.addr);
        return -1;
    }
    if (fi && getsockname (fi->connect_fd, (struct sockaddr *)&local, &len) == 0
        && sockdiag_peer_uid ((struct sockaddr *)&local, peer, &r->who.uid) == 0) {
        r->who.known = 1;
        server_user_name (r->who.uid, r->who.user, sizeof (r->who.user));
        r->who.manager = server_is_manager (h->srv, r->who.uid);
        r->who.operator= server_is_operator (h->srv, r->who.uid);
    }
    return 0;
}

/* ---- dispatch ----------------------------------------------------------- */

static const struct route *http_find (struct http *h, const char *path,
                                      const char **rest)
{
    for (int i = 0; i < h->nroutes; i++) {
        const struct route *rt = &h->routes[i];
        size_t len = strlen (rt->path);
        if (!rt->prefix && strcmp (path, rt->path) == 0) {
            *rest = path + len;
            return rt;
        }
        if (rt->prefix && strncmp (path, rt->path, len) == 0) {
            *rest = path + len;
            return rt;
        }
    }
    return NULL;
}

static enum MHD_Result http_request (void *cls, struct MHD_Connection *conn,
                                     const char *url, const char *method,
                                     const char *version, const char *upload_data,
                                     size_t *upload_data_size, void **con_cls)
{
    static int seen;
    struct http *h = cls;
    struct http_req r = { .http = h, .srv = h->srv, .conn = conn, .path = url };
    const struct route *rt;

    if (*con_cls == NULL) {
        *con_cls = &seen; /* headers are in; answer on the next call */
        return MHD_YES;
    }
    if (*upload_data_size) {
        *upload_data_size = 0; /* a body is never wanted: drop it */
        return MHD_YES;
    }
    if (strcmp (method, MHD_HTTP_METHOD_GET) != 0
        && strcmp (method, MHD_HTTP_METHOD_HEAD) != 0)
        return http_reply_error (&r, MHD_HTTP_METHOD_NOT_ALLOWED,
                                 "method %.32s is not allowed: this API is read-only",
                                 method);
    if (http_identify (h, &r) < 0)
        return MHD_YES;
    if (!(rt = http_find (h, url, &r.rest)))
        return http_reply_error (&r, MHD_HTTP_NOT_FOUND, "no such path: %.200s", url);
    {
        int rc = rt->fn (&r, rt->arg);
        if (!r.answered)
            return http_reply_error (&r, MHD_HTTP_INTERNAL_SERVER_ERROR, "no answer");
        return rc;
    }
}

/* ---- connections -------------------------------------------------------- */

/* Who p is, for its cap: the uid behind a loopback peer (sockdiag), else
 * its address.  1 if root or a service user (never capped). */
static int peer_identify (struct http *h, struct MHD_Connection *conn,
                          struct http_peer *p)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info (conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *peer = ci ? ci->client_addr : NULL;
    struct sockaddr_storage local;
    socklen_t len = sizeof (local);
    uid_t uid;

    if (!peer)
        return 0;
    if (sockdiag_is_loopback (peer)
        && getsockname (p->fd, (struct sockaddr *)&local, &len) == 0
        && sockdiag_peer_uid ((struct sockaddr *)&local, peer, &uid) == 0) {
        snprintf (p->name, sizeof (p->name), "uid %u", (unsigned)uid);
        p->key = uid;
        return uid == 0 || server_is_service (h->srv, uid);
    }
    p->key = admit_addr_key (peer);
    if (peer->sa_family == AF_INET)
        inet_ntop (AF_INET, &((const struct sockaddr_in *)peer)->sin_addr, p->name,
                   sizeof (p->name));
    else if (peer->sa_family == AF_INET6)
        inet_ntop (AF_INET6, &((const struct sockaddr_in6 *)peer)->sin6_addr, p->name,
                   sizeof (p->name));
    return 0;
}

/* Closing MHD's socket under it: MHD reads the end and closes it. */
static void peer_close (struct http_peer *p)
{
    p->answered = 1;
    (void)shutdown (p->fd, SHUT_RDWR);
}

static void peer_admit (struct http *h, struct MHD_Connection *conn,
                        struct http_peer *p)
{
    if (peer_identify (h, conn, p))
        return;
    if (h->npeers > HTTP_MAX_CONNS - HTTP_RESERVE) {
        admit_ratelog (&h->refuse_log, LOG_WARNING,
                       "http: refusing %s: %d connections open, the rest are kept for "
                       "root",
                       p->name, h->npeers - 1);
        peer_close (p);
    } else if (admit_counts_take (h->per_peer, p->key, HTTP_PER_PEER) < 0) {
        admit_ratelog (&h->refuse_log, LOG_WARNING,
                       "http: refusing %s: it holds %d connections already", p->name,
                       HTTP_PER_PEER);
        peer_close (p);
    } else
        p->counted = 1;
}

static void http_notify (void *cls, struct MHD_Connection *conn, void **ctx,
                         enum MHD_ConnectionNotificationCode toe)
{
    struct http *h = cls;
    struct http_peer *p = *ctx;
    const union MHD_ConnectionInfo *fi;

    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        fi = MHD_get_connection_info (conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        p = xzalloc (sizeof (*p));
        p->fd = fi ? fi->connect_fd : -1;
        p->since_ms = util_now_ms ();
        LIST_INSERT_HEAD (&h->peers, p, link);
        h->npeers++;
        *ctx = p;
        peer_admit (h, conn, p);
    } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED && p) {
        LIST_REMOVE (p, link);
        h->npeers--;
        if (p->counted)
            admit_counts_give (h->per_peer, p->key);
        free (p);
        *ctx = NULL;
    }
}

/* A request is over: the next on the connection has its own deadline. */
static void http_completed (void *cls, struct MHD_Connection *conn, void **con_cls,
                            enum MHD_RequestTerminationCode toe)
{
    const union MHD_ConnectionInfo *sc =
        MHD_get_connection_info (conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct http_peer *p = sc ? sc->socket_context : NULL;

    (void)cls;
    (void)con_cls;
    if (p && toe == MHD_REQUEST_TERMINATED_COMPLETED_OK) {
        p->answered = 0;
        p->since_ms = util_now_ms ();
    }
}

/* Requests not whole in time: MHD's idle timeout restarts with each byte,
 * so a header line every few seconds would hold a slot for ever. */
static void http_sweep (struct http *h)
{
    int64_t now = util_now_ms ();
    struct http_peer *p;

    LIST_FOREACH (p, &h->peers, link)
    if (!p->answered && now - p->since_ms > HTTP_REQUEST_MS) {
        admit_ratelog (&h->refuse_log, LOG_WARNING,
                       "http: closing %s: no whole request in %d s", p->name,
                       HTTP_REQUEST_MS / 1000);
        peer_close (p);
    }
}

/* ---- the loop ----------------------------------------------------------- */

static void http_soon (struct loop *l, void *arg);

/* One round of MHD's work.  MHD may have more to do at once (a connection
 * whose answer it could go on writing, made a block at a time): it says so
 * with a timeout of 0, and the next round comes in the next loop turn, so
 * a big answer goes out a block per turn, between everyone else's work. */
static void http_run (struct http *h)
{
    MHD_UNSIGNED_LONG_LONG ms;

    if (MHD_run (h->d) != MHD_YES)
        log_msg (LOG_WARNING, "http: processing connections failed");
    if (!h->soon && MHD_get_timeout (h->d, &ms) == MHD_YES && ms == 0)
        h->soon = loop_timer_add (h->srv->loop, 0, 0, http_soon, h);
}

static void http_soon (struct loop *l, void *arg)
{
    struct http *h = arg;

    h->soon = NULL; /* a one-shot timer is gone once it fired */
    http_run (h);
}

static void http_ready (struct loop *l, int fd, int revents, void *arg)
{
    http_run (arg);
}

/* Timeouts of idle connections are MHD's to enforce: let it look often. */
static void http_tick (struct loop *l, void *arg)
{
    http_sweep (arg);
    http_run (arg);
}

/* MHD's own lines (one per refused connection, past its limits): a
 * storm of them is a few lines. */
static void http_log (void *cls, const char *fmt, va_list ap)
{
    struct http *h = cls;
    char buf[512];

    vsnprintf (buf, sizeof (buf), fmt, ap);
    buf[strcspn (buf, "\n")] = '\0';
    admit_ratelog (&h->mhd_log, LOG_WARNING, "http: %s", buf);
}

/* "127.0.0.1:9100" or "[::1]:9100" into ss.  -1 with err. */
static int http_parse_listen (const char *s, struct sockaddr_storage *ss,
                              socklen_t *len, struct hpcq_error *err)
{
    char host[64];
    const char *colon = strrchr (s, ':'), *h = s;
    size_t hl;
    char *end;
    long port;

    memset (ss, 0, sizeof (*ss));
    if (!colon || colon == s)
        goto bad;
    hl = colon - s;
    if (*s == '[') {
        if (hl < 3 || s[hl - 1] != ']')
            goto bad;
        h = s + 1;
        hl -= 2;
    }
    if (hl >= sizeof (host))
        goto bad;
    memcpy (host, h, hl);
    host[hl] = '\0';
    errno = 0;
    port = strtol (colon + 1, &end, 10);
    if (errno || end == colon + 1 || *end || port < 0 || port > 65535)
        goto bad;
    if (*s != '[') {
        struct sockaddr_in *sin = (struct sockaddr_in *)ss;
        sin->sin_family = AF_INET;
        sin->sin_port = htons ((uint16_t)port);
        if (inet_pton (AF_INET, host, &sin->sin_addr) != 1)
            goto bad;
        *len = sizeof (*sin);
    } else {
        struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
        sin6->sin6_family = AF_INET6;
        sin6->sin6_port = htons ((uint16_t)port);
        if (inet_pton (AF_INET6, host, &sin6->sin6_addr) != 1)
            goto bad;
        *len = sizeof (*sin6);
    }
    return 0;
bad:
    errno = EINVAL;
    return errprintf (err,
                      "invalid metrics_listen '%s' (want ADDRESS:PORT, e.g. "
                      "127.0.0.1:9100 or [::1]:9100)",
                      s);
}

static int http_listen (struct http *h, const char *spec, struct hpcq_error *err)
{
    struct sockaddr_storage ss;
    socklen_t len;
    int one = 1;
    char host[64] = "";

    if (http_parse_listen (spec, &ss, &len, err) < 0)
        return -1;
    if ((h->listen_fd =
             socket (ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0))
        < 0)
        return errprintf (err, "metrics_listen %s: %s", spec, strerror (errno));
    setsockopt (h->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof (one));
    if (ss.ss_family == AF_INET6)
        setsockopt (h->listen_fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof (one));
    if (bind (h->listen_fd, (struct sockaddr *)&ss, len) < 0
        || listen (h->listen_fd, 64) < 0
        || getsockname (h->listen_fd, (struct sockaddr *)&ss, &len) < 0)
        return errprintf (err, "cannot listen on metrics_listen %s: %s", spec,
                          strerror (errno));
    if (ss.ss_family == AF_INET) {
        struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
        inet_ntop (AF_INET, &sin->sin_addr, host, sizeof (host));
        snprintf (h->address, sizeof (h->address), "%s:%d", host,
                  ntohs (sin->sin_port));
    } else {
        struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
        inet_ntop (AF_INET6, &sin6->sin6_addr, host, sizeof (host));
        snprintf (h->address, sizeof (h->address), "[%s]:%d", host,
                  ntohs (sin6->sin6_port));
    }
    return 0;
}

/* The token a non-loopback client must show: a file its owner alone can
 * read, owned by root or by the scheduler's own user. */
static int http_load_token (struct http *h, const char *path, struct hpcq_error *err)
{
    struct stat sb;
    char *text;
    size_t len;
    int fd;

    if ((fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
        return errprintf (err, "http_token_file %s: %s", path, strerror (errno));
    if (fstat (fd, &sb) < 0 || !S_ISREG (sb.st_mode)) {
        close (fd);
        return errprintf (err, "http_token_file %s is not a regular file", path);
    }
    if ((sb.st_mode & 077) || (sb.st_uid != 0 && sb.st_uid != geteuid ())) {
        close (fd);
        errno = EPERM;
        return errprintf (err,
                          "http_token_file %s must be readable by its owner only "
                          "(mode 600 or 400) and owned by root or the scheduler's user",
                          path);
    }
    text = util_read_fd (fd, HTTP_TOKEN_MAX, &len);
    close (fd);
    if (!text)
        return errprintf (err, "http_token_file %s: %s", path, strerror (errno));
    text[strcspn (text, "\r\n")] = '\0';
    if (strlen (text) < 16) {
        free (text);
        errno = EINVAL;
        return errprintf (err,
                          "http_token_file %s: the token must be at least 16 "
                          "characters",
                          path);
    }
    snprintf (h->token, sizeof (h->token), "%s", text);
    free (text);
    return 0;
}

int http_create (struct server *srv, struct http **hp, struct hpcq_error *err)
{
    const char *spec = config_get (srv->cfg, "metrics_listen", NULL);
    const char *token = config_get (srv->cfg, "http_token_file", NULL);
    const union MHD_DaemonInfo *info;
    struct http *h;

    *hp = NULL;
    if (!spec || !*spec)
        return 0;
    h = xzalloc (sizeof (*h));
    h->srv = srv;
    h->listen_fd = -1;
    LIST_INIT (&h->peers);
    h->per_peer = admit_counts_create ();
    if ((token && http_load_token (h, token, err) < 0)
        || http_listen (h, spec, err) < 0)
        goto error;
    h->d = MHD_start_daemon (MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0, NULL, NULL,
                             &http_request, h, MHD_OPTION_EXTERNAL_LOGGER, http_log, h,
                             MHD_OPTION_LISTEN_SOCKET, h->listen_fd,
                             MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_CONNS,
                             MHD_OPTION_NOTIFY_CONNECTION, http_notify, h,
                             MHD_OPTION_NOTIFY_COMPLETED, http_completed, h,
                             MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,
                             MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
                             MHD_OPTION_END);
    if (!h->d) {
        errprintf (err, "cannot start the HTTP server on %s", spec);
        goto error;
    }
    h->listen_fd = -1; /* MHD's now */
    if (!(info = MHD_get_daemon_info (h->d, MHD_DAEMON_INFO_EPOLL_FD))
        || !(h->watch =
                 loop_fd_add (srv->loop, info->epoll_fd, LOOP_READ, http_ready, h))
        || !(h->tick = loop_timer_add (srv->loop, 1000, 1000, http_tick, h))) {
        errprintf (err, "http: event loop: %s", strerror (errno));
        goto error;
    }
    log_msg (LOG_INFO, "http: serving /metrics, /api/v1 and the status page on %s%s",
             h->address,
             h->token[0] ? " (other hosts with the token)" : " (loopback only)");
    *hp = h;
    return 0;
error:
    http_destroy (h);
    return -1;
}

void http_destroy (struct http *h)
{
    if (!h)
        return;
    int saved = errno;
    loop_fd_remove (h->watch);
    loop_timer_remove (h->tick);
    loop_timer_remove (h->soon);
    if (h->d)
        MHD_stop_daemon (h->d); /* its connections' notices free the peers */
    while (!LIST_EMPTY (&h->peers)) {
        struct http_peer *p = LIST_FIRST (&h->peers);
        LIST_REMOVE (p, link);
        free (p);
    }
    admit_counts_destroy (h->per_peer);
    if (h->listen_fd >= 0)
        close (h->listen_fd);
    memset (h->token, 0, sizeof (h->token));
    free (h);
    errno = saved;
}
