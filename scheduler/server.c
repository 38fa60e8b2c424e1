/* server.c - see server.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/arrayspec.h"
#include "common/auth.h"
#include "common/authq.h"
#include "common/idcache.h"
#include "common/link.h"
#include "common/jobspec.h"
#include "common/log.h"
#include "common/util.h"
#include "scheduler/clients.h"
#include "scheduler/replica.h"
#include "scheduler/server.h"

/* A message held back until the batch it depends on is committed. */
struct pending {
    struct conn *conn; /* NULL once the connection closed */
    struct wire_msg msg;
    int64_t wait; /* with replicas: the log entry it waits for */
    STAILQ_ENTRY (pending) link;
};

static void server_conn_msg (struct conn *c, struct wire_msg *msg, void *arg);
static void server_conn_close (struct conn *c, void *arg);

void server_user_name (uid_t uid, char *buf, int len)
{
    idcache_user_name (uid, buf, len);
}

/* 1 if uid's user is in the comma-separated list of user names (an entry
 * "user@host" counts by its user part: the Unix socket vouches only for
 * local users). */
static int user_listed (const char *list, uid_t uid)
{
    char name[64];

    server_user_name (uid, name, sizeof (name));
    return util_user_listed (list, name);
}

int server_is_manager (const struct server *srv, uid_t uid)
{
    return uid == 0 || uid == srv->operator_uid
           || user_listed (config_get (srv->cfg, "managers", NULL), uid);
}

int server_is_operator (const struct server *srv, uid_t uid)
{
    return server_is_manager (srv, uid)
           || user_listed (config_get (srv->cfg, "operators", NULL), uid);
}

int server_may_run_as (const struct server *srv, uid_t uid)
{
    return uid != 0 || user_listed (config_get (srv->cfg, "acl_roots", NULL), uid);
}

int server_may_act (const struct server *srv, uid_t uid, int64_t owner_uid)
{
    return (int64_t)uid == owner_uid || server_is_operator (srv, uid);
}

int server_register (struct server *srv, const struct handler *table)
{
    if (srv->ntables == (int)ARRAY_SIZE (srv->tables)) {
        errno = ENOSPC;
        return -1;
    }
    srv->tables[srv->ntables++] = table;
    return 0;
}

void server_reply_error (struct conn *c, const struct wire_msg *req, int errnum,
                         const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    if (conn_reply (c, req, errnum, buf, NULL) < 0)
        log_error ("reply to %s", conn_peer_name (c));
}

void server_send_after_commit (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct pending *p = xzalloc (sizeof (*p));

    p->conn = c;
    p->msg = *msg;
    memset (msg, 0, sizeof (*msg));
    STAILQ_INSERT_TAIL (&srv->pending, p, link);
}

void server_reply_after_commit (struct server *srv, struct conn *c,
                                const struct wire_msg *req, json_t *body)
{
    struct wire_msg m;

    wire_reply_init (&m, req, 0, NULL, body);
    server_send_after_commit (srv, c, &m);
}

/* The batch failed to commit: everything in it is undone in the database,
 * so the scheduler cannot go on with memory that says otherwise. */
static void server_commit_failed (struct server *srv)
{
    log_error ("database commit failed; exiting so a restart reloads "
               "consistent state (nothing unacknowledged was promised)");
    exit (1);
}

static void pending_send (struct pending *p, int send)
{
    if (send && p->conn && conn_send_or_error (p->conn, &p->msg) < 0)
        log_error ("send %s to %s", p->msg.type, conn_peer_name (p->conn));
    wire_msg_release (&p->msg);
    free (p);
}

/* Replicas: the entries up to index are on a majority, so what waited
 * for them goes, in the order it was committed. */
static void server_replicated (void *arg, int64_t index)
{
    struct server *srv = arg;
    struct pending *p;

    while ((p = STAILQ_FIRST (&srv->held)) && p->wait <= index) {
        STAILQ_REMOVE_HEAD (&srv->held, link);
        pending_send (p, 1);
    }
}

/* Replicas: this turn's messages wait for its log entry (or the last one
 * still in flight, which what they say may depend on). */
static void server_hold_pending (struct server *srv)
{
    int64_t wait = replica_wait_index (srv->replica);
    struct pending *p;

    if (wait == 0 && STAILQ_EMPTY (&srv->held))
        return;
    while ((p = STAILQ_FIRST (&srv->pending))) {
        STAILQ_REMOVE_HEAD (&srv->pending, link);
        p->wait = wait;
        STAILQ_INSERT_TAIL (&srv->held, p, link);
    }
}

void server_flush_pending (struct server *srv, int send)
{
    struct pending *p;

    /* With replicas nothing goes that a majority does not hold yet. */
    if (srv->replica)
        send = 0;
    while ((p = STAILQ_FIRST (&srv->held))) {
        STAILQ_REMOVE_HEAD (&srv->held, link);
        pending_send (p, 0);
    }

    /* Taken off one at a time: those not sent yet stay where a closing
     * connection can forget them (server_conn_close).  A reply that
     * cannot go is answered with an error in its place. */
    while ((p = STAILQ_FIRST (&srv->pending))) {
        STAILQ_REMOVE_HEAD (&srv->pending, link);
        pending_send (p, send);
    }
}

/* Once per loop turn: schedule, commit the batch, then tell the world. */
static void server_before_sleep (struct loop *l, void *arg)
{
    struct server *srv = arg;
    struct pending *p;
    int batch;
    int64_t t0;

    srv->hooks->before_commit (srv);
    if ((batch = db_in_txn (srv->db)))
        srv->stat_commits++;
    t0 = util_now_us ();
    if (db_commit (srv->db) < 0)
        server_commit_failed (srv);
    srv->hooks->after_commit (srv, batch, (double)(util_now_us () - t0) / 1e6);
    if (srv->replica)
        server_hold_pending (srv);
    while ((p = STAILQ_FIRST (&srv->pending))) {
        STAILQ_REMOVE_HEAD (&srv->pending, link);
        pending_send (p, 1);
    }
}

static const struct handler *server_find (struct server *srv, const char *type)
{
    for (int t = 0; t < srv->ntables; t++)
        for (const struct handler *h = srv->tables[t]; h->type; h++)
            if (strcmp (h->type, type) == 0)
                return h;
    return NULL;
}

/* Requests that read only job records (qstat's table: job.stat checks
 * its own options), so they run while a restart still parses the stored
 * requests. */
static int server_early (const char *type)
{
    static const char *const early[] = { "server.stat", "queue.stat", "job.stat" };

    for (size_t i = 0; i < ARRAY_SIZE (early); i++)
        if (strcmp (type, early[i]) == 0)
            return 1;
    return 0;
}

/* Root, the scheduler's own user and service_user may speak for a node. */
int server_is_service (const struct server *srv, uid_t uid)
{
    return uid == 0 || uid == srv->operator_uid
           || (srv->auth && auth_is_service (srv->auth, uid));
}

/* A refused message: one error reply (for a request), a log line, and a
 * worker link is dropped, since nothing more on it can be trusted. */
static void server_refuse (struct conn *c, const struct wire_msg *msg, const char *why)
{
    log_msg (LOG_WARNING, "refused %s%s from %s: %s", msg->type,
             msg->is_reply ? " reply" : "", conn_peer_name (c), why);
    if (!msg->is_reply)
        server_reply_error (c, msg, EPERM, "%s", why);
    if (conn_session (c) || conn_aux (c) || strncmp (msg->type, "node.", 5) == 0)
        conn_close_after_flush (c);
}

/* The link's handshake is over (common/link.h): from now on the
 * connection speaks for the uid munged vouched for, under its cap. */
static void server_link_done (struct conn *c, int ok, uid_t uid, const char *why,
                              void *arg)
{
    struct server *srv = arg;
    struct hpcq_error err;

    if (ok < 0) {
        log_msg (LOG_WARNING, "refused link.open from %s: %s", conn_peer_name (c), why);
        conn_close_after_flush (c);
        return;
    }
    conn_set_peer_uid (c, uid);
    if (clients_set_uid (srv->clients, c, uid, &err) < 0) {
        /* Told why (sealed: the link is open), then closed. */
        log_msg (LOG_WARNING, "refused the link from %s: %s", conn_peer_name (c),
                 err.text);
        conn_refuse (c, EUSERS, err.text);
        return;
    }
    log_msg (LOG_DEBUG, "link from %s open (uid %u)", conn_peer_name (c),
             (unsigned)uid);
}

/* link.open, a worker's (or a remote client's) first message over TCP:
 * munged checks its credential off the loop, the answer proves who
 * listens, and a session key seals every later frame either way. */
static void server_link_open (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct link_opts o = { .q = srv->authq,
                           .dir = AUTH_TO_SCHEDULER,
                           .lifetime_ms = srv->session_ms,
                           .done = server_link_done,
                           .arg = srv };

    if (!srv->auth) {
        server_reply_error (c, msg, ENOTSUP,
                            "authentication is off on this scheduler "
                            "(auth = none)");
        return;
    }
    if (conn_session (c) || conn_peer_uid (c) != (uid_t)-1) {
        server_refuse (c, msg, "link.open: the link is already open");
        return;
    }
    link_accept (c, msg, json_pack ("{s:s}", "server", srv->name), &o);
}

static void server_dispatch (struct server *srv, struct conn *c, struct wire_msg *msg);

/* A one-shot request over TCP (a user's command) with a credential of
 * its own, checked by munged off the loop while c's input is held. */
struct cred_check {
    struct server *srv;
    struct conn *c;
    struct wire_msg msg; /* ours */
    struct authq_job *job;
};

static void cred_check_free (void *arg)
{
    struct cred_check *cc = arg;

    authq_cancel (cc->job);
    wire_msg_release (&cc->msg);
    free (cc);
}

/* The credential's digest is this message's, and its uid the one the
 * connection already speaks for (the first one sets it).  -1 if refused
 * (answered). */
static int server_cred_ok (struct server *srv, struct conn *c, struct wire_msg *msg,
                           const struct authq_result *r)
{
    struct hpcq_error err;
    char why[128];

    if (r->rc < 0) {
        server_refuse (c, msg, r->error);
        return -1;
    }
    if (auth_check_digest (msg, AUTH_TO_SCHEDULER, "", r->payload,
                           r->len == AUTH_DIGEST_LEN ? r->len : 0, &err)
        < 0) {
        server_refuse (c, msg, err.text);
        return -1;
    }
    if (conn_peer_uid (c) == (uid_t)-1) {
        conn_set_peer_uid (c, r->who.uid);
        /* From now on it is that user's connection, under their cap. */
        if (clients_set_uid (srv->clients, c, r->who.uid, &err) < 0) {
            server_refuse (c, msg, err.text);
            conn_close_after_flush (c);
            return -1;
        }
    } else if (conn_peer_uid (c) != r->who.uid) {
        snprintf (why, sizeof (why), "a credential of uid %u on a connection of uid %u",
                  (unsigned)r->who.uid, (unsigned)conn_peer_uid (c));
        server_refuse (c, msg, why);
        return -1;
    }
    return 0;
}

static void server_cred_checked (struct authq_result *r, void *arg)
{
    struct cred_check *cc = arg;
    struct conn *c = cc->c;

    cc->job = NULL;
    conn_set_pending (c, NULL, NULL);
    conn_hold (c, 0);
    if (server_cred_ok (cc->srv, c, &cc->msg, r) == 0)
        server_dispatch (cc->srv, c, &cc->msg);
    cred_check_free (cc);
}

/* Take msg (zeroed: conn does not release it) and check its credential. */
static void server_check_cred (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct hpcq_error err;
    struct cred_check *cc;
    const char *text;

    if (conn_session (c) == NULL && conn_aux (c) == NULL
        && strncmp (msg->type, "node.", 5) == 0) {
        server_refuse (c, msg, "node messages need link.open first");
        return;
    }
    if (!(text = auth_cred_text (msg, &err))) {
        server_refuse (c, msg, err.text);
        return;
    }
    cc = xzalloc (sizeof (*cc));
    cc->srv = srv;
    cc->c = c;
    cc->msg = *msg;
    memset (msg, 0, sizeof (*msg));
    conn_hold (c, 1);
    conn_set_pending (c, cc, cred_check_free);
    cc->job = authq_decode (srv->authq, json_string_value (cc->msg.cred),
                            server_cred_checked, cc);
}

/* May this peer send a message of this role?  -1 if not (answered). */
static int server_check_role (struct server *srv, struct conn *c, struct wire_msg *msg,
                              int role)
{
    char why[256];

    if (role == ROLE_ANY && !conn_is_local (c) && !srv->auth) {
        server_reply_error (c, msg, EPERM,
                            "user requests over TCP need "
                            "authentication, which is off on this scheduler "
                            "(auth = none); use the Unix socket");
        return -1;
    }
    if (role != ROLE_NODE || (!conn_is_local (c) && !srv->auth))
        return 0;
    if (!conn_is_local (c) && !conn_session (c)) {
        server_refuse (c, msg, "node messages need link.open first");
        return -1;
    }
    if (!server_is_service (srv, conn_peer_uid (c))) {
        snprintf (why, sizeof (why),
                  "%s: uid %u may not speak for a node (only root "
                  "and the scheduler's user may)",
                  msg->type, (unsigned)conn_peer_uid (c));
        server_refuse (c, msg, why);
        return -1;
    }
    return 0;
}

static void server_conn_msg (struct conn *c, struct wire_msg *msg, void *arg)
{
    struct server *srv = arg;

    if (!conn_is_local (c) && !msg->is_reply && strcmp (msg->type, "link.open") == 0) {
        server_link_open (srv, c, msg);
        return;
    }
    /* Over TCP nothing is believed but a sealed frame of an open link or
     * a request with its own credential (munged checks it off the loop);
     * the Unix socket has the kernel's word (SO_PEERCRED). */
    if (!conn_is_local (c) && srv->auth && !conn_session (c)) {
        server_check_cred (srv, c, msg);
        return;
    }
    server_dispatch (srv, c, msg);
}

static void server_dispatch (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    const struct handler *h;

    if (msg->is_reply) {
        /* Workers acknowledge launches and signals; failures arrive as
         * job.finished, so there is nothing to do but log errors. */
        if (msg->errnum)
            log_msg (LOG_WARNING, "%s from %s failed: %s", msg->type,
                     conn_peer_name (c), msg->errstr ? msg->errstr : "?");
        return;
    }
    if (!(h = server_find (srv, msg->type))) {
        server_reply_error (c, msg, ENOSYS, "unknown request type '%s'", msg->type);
        return;
    }
    if (server_check_role (srv, c, msg, h->role) < 0)
        return;
    /* Right after a restart: what needs the parsed requests waits for
     * them (a second or so at 100,000 jobs). */
    if (!server_early (msg->type) && srv->hooks->wait_loaded (srv) < 0)
        server_load_failed ();
    h->fn (srv, c, msg);
}

static void server_conn_close (struct conn *c, void *arg)
{
    struct server *srv = arg;
    struct pending *p;

    STAILQ_FOREACH (p, &srv->pending, link)
    if (p->conn == c)
        p->conn = NULL;
    STAILQ_FOREACH (p, &srv->held, link)
    if (p->conn == c)
        p->conn = NULL;
    srv->hooks->conn_closed (srv, c);
    clients_forget (srv->clients, c);
}

/* The socket's folder: made 0755 if missing (everyone must reach the
 * socket); one that others cannot enter gets a warning. */
static int socket_dir (const char *path, struct hpcq_error *err)
{
    char dir[4096], *slash;
    struct stat st;

    snprintf (dir, sizeof (dir), "%s", path);
    if (!(slash = strrchr (dir, '/')) || slash == dir)
        return 0;
    *slash = '\0';
    if (stat (dir, &st) == 0) {
        if (!(st.st_mode & 001))
            log_msg (LOG_WARNING,
                     "other users cannot reach the socket: its folder %s "
                     "is mode %03o",
                     dir, (unsigned)(st.st_mode & 0777));
        return 0;
    }
    if (util_mkdir_p (dir) < 0 || chmod (dir, 0755) < 0)
        return errprintf (err, "cannot create the socket's folder %s: %s", dir,
                          strerror (errno));
    return 0;
}

static int listen_unix (struct server *srv, const char *path, struct hpcq_error *err)
{
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    int fd;

    if (strlen (path) >= sizeof (sun.sun_path))
        return errprintf (err, "socket path too long: %s", path);
    if (socket_dir (path, err) < 0)
        return -1;
    strcpy (sun.sun_path, path);
    if ((fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
        return errprintf (err, "socket: %s", strerror (errno));
    /* A socket file left by a dead scheduler is stale if nobody answers. */
    if (connect (fd, (struct sockaddr *)&sun, sizeof (sun)) == 0) {
        close (fd);
        errno = EADDRINUSE;
        return errprintf (err, "another scheduler is serving %s", path);
    }
    (void)unlink (path);
    /* World-connectable: any local user may submit; SO_PEERCRED says who. */
    if (bind (fd, (struct sockaddr *)&sun, sizeof (sun)) < 0 || chmod (path, 0777) < 0
        || listen (fd, 512) < 0) {
        int saved = errno;
        close (fd);
        errno = saved;
        return errprintf (err, "cannot listen on %s: %s", path, strerror (saved));
    }
    snprintf (srv->socket_path, sizeof (srv->socket_path), "%s", path);
    return fd;
}

static int listen_tcp (struct server *srv, const char *addr, struct hpcq_error *err)
{
    struct sockaddr_in sin = { .sin_family = AF_INET };
    socklen_t sl = sizeof (sin);
    char host[64];
    const char *colon = strrchr (addr, ':');
    int fd, one = 1;

    if (!colon || (size_t)(colon - addr) >= sizeof (host))
        return errprintf (err, "invalid listen address '%s' (want HOST:PORT)", addr);
    memcpy (host, addr, colon - addr);
    host[colon - addr] = '\0';
    if (inet_pton (AF_INET, host, &sin.sin_addr) != 1)
        return errprintf (err, "invalid listen address '%s'", addr);
    sin.sin_port = htons ((uint16_t)atoi (colon + 1));
    if ((fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
        return errprintf (err, "socket: %s", strerror (errno));
    setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof (one));
    if (bind (fd, (struct sockaddr *)&sin, sizeof (sin)) < 0 || listen (fd, 512) < 0
        || getsockname (fd, (struct sockaddr *)&sin, &sl) < 0) {
        int saved = errno;
        close (fd);
        errno = saved;
        return errprintf (err, "cannot listen on %s: %s", addr, strerror (saved));
    }
    srv->tcp_port = ntohs (sin.sin_port);
    snprintf (srv->tcp_host, sizeof (srv->tcp_host), "%s", host);
    return fd;
}

/* Tell hpcq-local (and people) where we listen, once we do: written last,
 * atomically, so its existence means the scheduler is ready. */
static int server_write_address (struct server *srv, const char *state_dir,
                                 struct hpcq_error *err)
{
    const char *http = srv->hooks->http_address (srv);
    char path[4096], tmp[4200], text[256];
    FILE *f;

    snprintf (path, sizeof (path), "%s/scheduler.address", state_dir);
    snprintf (tmp, sizeof (tmp), "%s.tmp", path);
    snprintf (text, sizeof (text), "tcp=%s:%d\nsocket=%s\npid=%d\n%s%s%s",
              srv->tcp_host, srv->tcp_port, srv->socket_path, (int)getpid (),
              http ? "http=" : "", http ? http : "", http ? "\n" : "");
    if (!(f = fopen (tmp, "w")) || fputs (text, f) < 0 || fclose (f) != 0
        || rename (tmp, path) < 0)
        return errprintf (err, "cannot write %s: %s", path, strerror (errno));
    snprintf (srv->address_path, sizeof (srv->address_path), "%s", path);
    return 0;
}

/* fence_time: seconds (default three quarters of node_timeout).  It must
 * be below node_timeout, or a lost node's jobs could be started elsewhere
 * before they are killed there (docs/design.md, "Fencing"). */
static int server_fence_time (struct server *srv, struct hpcq_error *err)
{
    int64_t fence;

    if (!config_get (srv->cfg, "fence_time", NULL)) {
        srv->fence_ms = srv->node_timeout_ms * 3 / 4;
        return 0;
    }
    if (config_get_int (srv->cfg, "fence_time", 0, 1, 86400, &fence, err) < 0)
        return -1;
    if (fence * 1000 >= srv->node_timeout_ms)
        return errprintf (
            err,
            "fence_time (%lld s) must be less than node_timeout (%lld s): "
            "a lost node's jobs would be started elsewhere before they "
            "are killed there",
            (long long)fence, (long long)srv->node_timeout_ms / 1000);
    srv->fence_ms = fence * 1000;
    return 0;
}

static int server_settings (struct server *srv, struct hpcq_error *err)
{
    int64_t timeout;
    char hostname[256];

    util_short_hostname (hostname, sizeof (hostname));
    snprintf (srv->host, sizeof (srv->host), "%s", hostname);
    snprintf (srv->name, sizeof (srv->name), "%s",
              config_get (srv->cfg, "server_name", hostname));
    snprintf (srv->default_queue, sizeof (srv->default_queue), "%s",
              config_get (srv->cfg, "default_queue", "workq"));
    if (config_get_int (srv->cfg, "node_timeout", 30, 1, 86400, &timeout, err) < 0)
        return -1;
    srv->node_timeout_ms = timeout * 1000;
    if (server_fence_time (srv, err) < 0)
        return -1;
    if (config_get_int (srv->cfg, "sched_interval_ms", 2000, 10, 600000,
                        &srv->sched_interval_ms, err)
        < 0)
        return -1;
    if (config_get_int (srv->cfg, "max_array_size", 10000, 1, ARRAYSPEC_MAX,
                        &srv->max_array_size, err)
        < 0)
        return -1;
    if (config_get_int (srv->cfg, "max_spec_size", JOBSPEC_TEXT_MAX, 4096,
                        JOBSPEC_TEXT_MAX, &srv->max_spec_size, err)
        < 0)
        return -1;
    srv->operator_uid = getuid ();
    return 0;
}

/* Is path in the folder dir (at any depth)? */
static int path_inside (const char *path, const char *dir)
{
    size_t n = strlen (dir);

    while (n > 1 && dir[n - 1] == '/')
        n--;
    return strncmp (path, dir, n) == 0 && path[n] == '/';
}

/* The state folder holds every job's script and environment, so it is
 * private: 0700, or 0711 when the socket is inside it (others may then
 * reach the socket by its name and list nothing).  One made by someone
 * else is left as it is, with a warning if others may read it. */
static int server_state_dir (struct server *srv, const char *state_dir,
                             struct hpcq_error *err)
{
    const char *sock = config_get (srv->cfg, "socket", NULL);
    int sock_inside = !sock || path_inside (sock, state_dir);
    mode_t want = sock_inside ? 0711 : 0700;
    struct stat st;

    if (stat (state_dir, &st) < 0) {
        if (errno != ENOENT || util_mkdir_p (state_dir) < 0
            || chmod (state_dir, want) < 0)
            return errprintf (err, "cannot create state_dir '%s': %s", state_dir,
                              strerror (errno));
        return 0;
    }
    if (!S_ISDIR (st.st_mode)) {
        errno = ENOTDIR;
        return errprintf (err, "state_dir '%s' is not a folder", state_dir);
    }
    if (st.st_mode & 066)
        log_msg (LOG_WARNING,
                 "state_dir %s is mode %03o: other users may list it; "
                 "chmod %03o it (its files are private either way)",
                 state_dir, (unsigned)(st.st_mode & 0777), (unsigned)want);
    if (sock_inside && !(st.st_mode & 001))
        log_msg (LOG_WARNING,
                 "the socket is in state_dir %s, which other users cannot "
                 "enter (mode %03o): only its owner can connect; chmod 711 it or set "
                 "'socket' elsewhere",
                 state_dir, (unsigned)(st.st_mode & 0777));
    return 0;
}

static int server_open_db (struct server *srv, const char *state_dir,
                           struct hpcq_error *err)
{
    char path[4096];

    if (server_state_dir (srv, state_dir, err) < 0)
        return -1;
    snprintf (path, sizeof (path), "%s/hpcq.sqlite", state_dir);
    if (!(srv->db = db_open (path, err)))
        return -1;
    if (srv->replica
        && replica_attach (srv->replica, srv->db, server_replicated, srv) < 0)
        return errprintf (err, "cannot replicate '%s': %s", path, strerror (errno));
    return 0;
}

static int server_listen (struct server *srv, const char *state_dir,
                          struct hpcq_error *err)
{
    char sockpath[4096];

    snprintf (sockpath, sizeof (sockpath), "%s/hpcq.sock", state_dir);
    if ((srv->unix_fd =
             listen_unix (srv, config_get (srv->cfg, "socket", sockpath), err))
        < 0)
        return -1;
    if ((srv->tcp_fd =
             listen_tcp (srv, config_get (srv->cfg, "listen", "127.0.0.1:15001"), err))
        < 0)
        return -1;
    if (!(srv->clients = clients_create (srv, server_conn_msg, server_conn_close, err))
        || clients_listen (srv->clients, srv->unix_fd, err) < 0
        || clients_listen (srv->clients, srv->tcp_fd, err) < 0)
        return -1;
    return server_write_address (srv, state_dir, err);
}

/* A stored request could not be read: the jobs in memory are not what
 * the database holds, so go, as a failed commit does (a restart after
 * the database is mended loads them all). */
void server_load_failed (void)
{
    log_msg (LOG_ERR, "cannot load jobs from the database; exiting");
    exit (1);
}

struct server *server_new (struct loop *loop, struct config *cfg,
                           const struct server_hooks *hooks, struct hpcq_error *err)
{
    struct server *srv = xzalloc (sizeof (*srv));

    srv->loop = loop;
    srv->cfg = cfg;
    srv->hooks = hooks;
    srv->unix_fd = srv->tcp_fd = -1;
    STAILQ_INIT (&srv->pending);
    STAILQ_INIT (&srv->held);
    srv->started_ms = util_now_ms ();
    if (!config_get (cfg, "state_dir", NULL)) {
        errprintf (err, "state_dir is not set (config file or --state-dir)");
        goto error;
    }
    if (server_settings (srv, err) < 0)
        goto error;
    return srv;
error:
    server_free (srv);
    return NULL;
}

int server_open (struct server *srv, struct hpcq_error *err)
{
    return server_open_db (srv, config_get (srv->cfg, "state_dir", NULL), err);
}

int server_hook_loop (struct server *srv)
{
    return loop_before_sleep (srv->loop, server_before_sleep, srv);
}

int server_start (struct server *srv, struct hpcq_error *err)
{
    if (auth_from_config (srv->cfg, "hpcq-scheduler", &srv->auth, err) < 0
        || (srv->auth && !(srv->authq = authq_create (srv->loop, srv->auth, err)))
        || link_lifetime_from_config (srv->cfg, &srv->session_ms, err) < 0
        || server_listen (srv, config_get (srv->cfg, "state_dir", NULL), err) < 0)
        return -1;
    log_msg (LOG_INFO, "server %s ready: socket %s, tcp port %d, authentication %s",
             srv->name, srv->socket_path, srv->tcp_port, srv->auth ? "munge" : "OFF");
    return 0;
}

int server_commit_now (struct server *srv)
{
    return srv->db && db_commit (srv->db) == 0;
}

void server_stop_clients (struct server *srv)
{
    loop_before_sleep_remove (srv->loop, server_before_sleep, srv);
    clients_destroy (srv->clients);
    srv->clients = NULL;
}

void server_close_sockets (struct server *srv)
{
    if (srv->unix_fd >= 0) {
        close (srv->unix_fd);
        (void)unlink (srv->socket_path);
    }
    if (srv->tcp_fd >= 0)
        close (srv->tcp_fd);
    if (srv->address_path[0])
        (void)unlink (srv->address_path);
}

void server_free (struct server *srv)
{
    if (!srv)
        return;
    if (srv->db && db_commit (srv->db) == 0)
        (void)db_wal_checkpoint (srv->db);
    replica_detach (srv->replica);
    db_close (srv->db);
    authq_destroy (srv->authq);
    auth_destroy (srv->auth);
    free (srv);
}
