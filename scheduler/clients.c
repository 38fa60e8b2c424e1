/* clients.c - see clients.h
 *
 * The table holds every connection with what the limits need: its uid if
 * it counts against one, whether it came over TCP, when it arrived.  A
 * connection knows its row (conn_slot), so closing one costs no search.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "common/wire.h"
#include "scheduler/clients.h"
#include "scheduler/server.h"

#define CLIENTS_MAX_LISTEN 4
#define PARTIAL_TIMEOUT_MS 10000 /* stuck mid-message */
#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 2000

struct client {
    struct conn *c;
    uid_t uid;
    int counted; /* 1: counts against uid's cap */
    int tcp;
    int persistent;
    int64_t since_ms;
};

struct user_count {
    uid_t uid;
    int n;
};

struct clients {
    struct server *srv;
    conn_msg_f on_msg;
    conn_close_f on_close;

    struct client *v;
    int n, cap;
    struct user_count *users; /* uids with connections counted */
    int nusers, users_cap;

    int64_t max_per_user;
    int64_t max_unidentified;
    int64_t idle_ms;
    int64_t output_max;

    struct loop_watch *watch[CLIENTS_MAX_LISTEN];
    int nlisten;
    struct loop_timer *sweep;
    struct loop_timer *resume; /* accept paused until it fires */
    int64_t backoff_ms;
    int64_t refused; /* connections turned away since start */
};

static struct user_count *user_count (struct clients *cl, uid_t uid, int add)
{
    for (int i = 0; i < cl->nusers; i++)
        if (cl->users[i].uid == uid)
            return &cl->users[i];
    if (!add)
        return NULL;
    if (cl->nusers == cl->users_cap) {
        int cap = cl->users_cap ? cl->users_cap * 2 : 16;
        struct user_count *v = realloc (cl->users, cap * sizeof (*v));
        if (!v)
            return NULL;
        cl->users = v;
        cl->users_cap = cap;
    }
    cl->users[cl->nusers] = (struct user_count){ uid, 0 };
    return &cl->users[cl->nusers++];
}

static void user_uncount (struct clients *cl, uid_t uid)
{
    struct user_count *u = user_count (cl, uid, 0);

    if (u && --u->n <= 0)
        *u = cl->users[--cl->nusers];
}

/* Root and the scheduler's own user (workers on the Unix socket) are the
 * system, not users to cap. */
static int uid_capped (const struct clients *cl, uid_t uid)
{
    return uid != (uid_t)-1 && !server_is_service (cl->srv, uid);
}

static struct client *client_of (struct clients *cl, struct conn *c)
{
    int i = conn_slot (c);

    return i >= 0 && i < cl->n && cl->v[i].c == c ? &cl->v[i] : NULL;
}

void clients_forget (struct clients *cl, struct conn *c)
{
    struct client *e = client_of (cl, c);

    if (!e)
        return;
    if (e->counted)
        user_uncount (cl, e->uid);
    *e = cl->v[--cl->n];
    if (e != &cl->v[cl->n])
        conn_set_slot (e->c, (int)(e - cl->v));
}

/* The refusal a user past max_user_connections gets, into text. */
static void over_cap_text (struct clients *cl, uid_t uid, int n, char *text, size_t len)
{
    char name[64];

    server_user_name (uid, name, sizeof (name));
    snprintf (text, len,
              "too many connections: user %s has %d open "
              "(max_user_connections is %lld); close some and retry",
              name, n, (long long)cl->max_per_user);
}

int clients_set_uid (struct clients *cl, struct conn *c, uid_t uid,
                     struct hpcq_error *err)
{
    struct client *e = client_of (cl, c);
    struct user_count *u;
    char text[256];

    if (!e || e->counted || !uid_capped (cl, uid) || !(u = user_count (cl, uid, 1)))
        return 0;
    if (u->n >= cl->max_per_user) {
        over_cap_text (cl, uid, u->n, text, sizeof (text));
        if (u->n == 0)
            user_uncount (cl, uid);
        errno = EUSERS;
        return errprintf (err, "%s", text);
    }
    e->uid = uid;
    e->counted = 1;
    u->n++;
    return 0;
}

void clients_set_persistent (struct clients *cl, struct conn *c)
{
    struct client *e = client_of (cl, c);

    if (e)
        e->persistent = 1;
}

int clients_count (const struct clients *cl)
{
    return cl->n;
}

/* A TCP peer that has not said who it is: no node behind it, no uid. */
static int unidentified (const struct client *e)
{
    return e->tcp && !e->counted && !conn_aux (e->c);
}

/* Room for one more unidentified TCP peer: past the cap, the oldest goes. */
static void make_room_tcp (struct clients *cl)
{
    struct client *oldest = NULL;
    int k = 0;

    for (int i = 0; i < cl->n; i++) {
        if (!unidentified (&cl->v[i]))
            continue;
        k++;
        if (!oldest || cl->v[i].since_ms < oldest->since_ms)
            oldest = &cl->v[i];
    }
    if (k < cl->max_unidentified || !oldest)
        return;
    log_msg (LOG_WARNING,
             "dropping %s: %d TCP connections have not identified "
             "themselves (tcp_unidentified_max); the oldest makes room",
             conn_peer_name (oldest->c), k);
    conn_close (oldest->c);
}

/* Admit c to the table, or refuse it (over its user's cap).  0 if kept. */
static int clients_admit (struct clients *cl, struct conn *c)
{
    uid_t uid = conn_peer_uid (c);
    struct user_count *u = NULL;
    struct client *e;
    char text[256];

    if (conn_is_local (c) && uid_capped (cl, uid)) {
        u = user_count (cl, uid, 1);
        if (u && u->n >= cl->max_per_user) {
            over_cap_text (cl, uid, u->n, text, sizeof (text));
            if (cl->refused++ % 100 == 0) /* one line per 100: a storm stays small */
                log_msg (LOG_WARNING, "refusing %s: %s", conn_peer_name (c), text);
            conn_refuse (c, EUSERS, text);
            return -1;
        }
    } else if (!conn_is_local (c))
        make_room_tcp (cl);
    e = &cl->v[cl->n];
    *e = (struct client){
        .c = c, .uid = uid, .tcp = !conn_is_local (c), .since_ms = util_now_ms ()
    };
    if (u) {
        e->counted = 1;
        u->n++;
    }
    conn_set_slot (c, cl->n++);
    conn_set_outq_max (c, (size_t)cl->output_max);
    return 0;
}

static void accept_pause (struct clients *cl, int err);

static void accept_resume (struct loop *l, void *arg)
{
    struct clients *cl = arg;

    cl->resume = NULL;
    for (int i = 0; i < cl->nlisten; i++)
        (void)loop_fd_modify (cl->watch[i], LOOP_READ);
}

/* Out of descriptors (or memory): the pending connections wait in the
 * backlog while idle ones time out, instead of accept failing in a loop. */
static void accept_pause (struct clients *cl, int err)
{
    if (cl->resume)
        return; /* already paused (both listeners failed in one turn) */
    cl->backoff_ms = cl->backoff_ms ? cl->backoff_ms * 2 : BACKOFF_MIN_MS;
    if (cl->backoff_ms > BACKOFF_MAX_MS)
        cl->backoff_ms = BACKOFF_MAX_MS;
    log_msg (LOG_WARNING,
             "accept: %s with %d connections open; not accepting for "
             "%lld ms",
             strerror (err), cl->n, (long long)cl->backoff_ms);
    for (int i = 0; i < cl->nlisten; i++)
        (void)loop_fd_modify (cl->watch[i], 0);
    if (!(cl->resume =
              loop_timer_add (cl->srv->loop, cl->backoff_ms, 0, accept_resume, cl)))
        accept_resume (cl->srv->loop, cl);
}

static int grow (struct clients *cl)
{
    int cap;
    struct client *v;

    if (cl->n < cl->cap)
        return 0;
    cap = cl->cap ? cl->cap * 2 : 64;
    if (!(v = realloc (cl->v, cap * sizeof (*v))))
        return -1;
    cl->v = v;
    cl->cap = cap;
    return 0;
}

static void clients_accept (struct loop *l, int fd, int revents, void *arg)
{
    struct clients *cl = arg;
    struct conn *c;
    int cfd;

    if (grow (cl) < 0) {
        accept_pause (cl, ENOMEM);
        return;
    }
    if ((cfd = accept4 (fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) < 0) {
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
            accept_pause (cl, errno);
        else if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
            log_error ("accept");
        return;
    }
    cl->backoff_ms = 0;
    if (!(c = conn_create (l, cfd, cl->on_msg, cl->on_close, cl->srv))) {
        log_error ("new connection");
        return;
    }
    (void)clients_admit (cl, c);
}

/* Once a second: close what is idle or stuck mid-message. */
static void clients_sweep (struct loop *l, void *arg)
{
    struct clients *cl = arg;
    int64_t now = util_now_ms ();

    for (int i = cl->n - 1; i >= 0; i--) {
        struct client *e = &cl->v[i];
        if (i >= cl->n)
            continue; /* closing one closed others */
        if (conn_partial_ms (e->c, now) > PARTIAL_TIMEOUT_MS) {
            log_msg (LOG_WARNING, "dropping %s: message incomplete for %d s",
                     conn_peer_name (e->c), PARTIAL_TIMEOUT_MS / 1000);
            conn_close (e->c);
        } else if (cl->idle_ms > 0 && !e->persistent && !conn_aux (e->c)
                   && conn_idle_ms (e->c, now) > cl->idle_ms) {
            log_msg (LOG_INFO, "closing %s: idle for %lld s (client_idle_timeout)",
                     conn_peer_name (e->c), (long long)(cl->idle_ms / 1000));
            conn_close (e->c);
        }
    }
}

int clients_listen (struct clients *cl, int fd, struct hpcq_error *err)
{
    if (cl->nlisten == CLIENTS_MAX_LISTEN) {
        errno = ENOSPC;
        return errprintf (err, "too many listening sockets");
    }
    if (!(cl->watch[cl->nlisten] =
              loop_fd_add (cl->srv->loop, fd, LOOP_READ, clients_accept, cl)))
        return errprintf (err, "event loop: %s", strerror (errno));
    cl->nlisten++;
    return 0;
}

/* Many connections need many descriptors: take what the hard limit
 * allows (systemd's default soft limit is 1024). */
static void raise_nofile (void)
{
    struct rlimit rl;
    rlim_t was;

    if (getrlimit (RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= rl.rlim_max)
        return;
    was = rl.rlim_cur;
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit (RLIMIT_NOFILE, &rl) == 0)
        log_msg (LOG_INFO, "open files: limit raised from %llu to %llu",
                 (unsigned long long)was, (unsigned long long)rl.rlim_max);
}

static int clients_settings (struct clients *cl, struct hpcq_error *err)
{
    const struct config *cfg = cl->srv->cfg;
    int64_t idle;

    if (config_get_int (cfg, "max_user_connections", 128, 1, 1000000, &cl->max_per_user,
                        err)
            < 0
        || config_get_int (cfg, "tcp_unidentified_max", 256, 1, 1000000,
                           &cl->max_unidentified, err)
               < 0
        || config_get_int (cfg, "client_idle_timeout", 300, 0, 86400 * 365, &idle, err)
               < 0
        || config_get_int (cfg, "client_output_max", 64 << 20,
                           2 * (int64_t)WIRE_MAX_MSG, INT64_C (1) << 40,
                           &cl->output_max, err)
               < 0)
        return -1;
    cl->idle_ms = idle * 1000;
    return 0;
}

struct clients *clients_create (struct server *srv, conn_msg_f on_msg,
                                conn_close_f on_close, struct hpcq_error *err)
{
    struct clients *cl = xzalloc (sizeof (*cl));

    cl->srv = srv;
    cl->on_msg = on_msg;
    cl->on_close = on_close;
    if (clients_settings (cl, err) < 0) {
        free (cl);
        return NULL;
    }
    if (!(cl->sweep = loop_timer_add (srv->loop, 1000, 1000, clients_sweep, cl))) {
        errprintf (err, "event loop: %s", strerror (errno));
        free (cl);
        return NULL;
    }
    raise_nofile ();
    return cl;
}

void clients_destroy (struct clients *cl)
{
    if (!cl)
        return;
    int saved = errno;
    for (int i = 0; i < cl->n; i++)
        conn_destroy (cl->v[i].c);
    for (int i = 0; i < cl->nlisten; i++)
        loop_fd_remove (cl->watch[i]);
    loop_timer_remove (cl->sweep);
    loop_timer_remove (cl->resume);
    free (cl->v);
    free (cl->users);
    free (cl);
    errno = saved;
}
