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
#include <sys/socket.h>
#include <unistd.h>

#include "common/admit.h"
#include "common/log.h"
#include "common/util.h"
#include "common/wire.h"
#include "scheduler/clients.h"
#include "scheduler/server.h"

#define PARTIAL_TIMEOUT_MS 10000 /* stuck mid-message */

struct client {
    struct conn *c;
    uid_t uid;
    int counted; /* 1: counts against uid's cap */
    int tcp;
    int persistent;
    int64_t since_ms;
};

struct clients {
    struct server *srv;
    conn_msg_f on_msg;
    conn_close_f on_close;

    struct client *v;
    int n, cap;
    struct admit_counts *users; /* connections per uid counted */

    int64_t max_per_user;
    int64_t max_unidentified;
    int64_t idle_ms;
    int64_t output_max;

    struct admit *admit;
    struct loop_timer *sweep;
    struct admit_ratelog refusals;
};

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
        admit_counts_give (cl->users, e->uid);
    *e = cl->v[--cl->n];
    if (e != &cl->v[cl->n])
        conn_set_slot (e->c, (int)(e - cl->v));
}

/* The refusal a user past max_user_connections gets, into text. */
static void over_cap_text (struct clients *cl, uid_t uid, char *text, size_t len)
{
    char name[64];

    server_user_name (uid, name, sizeof (name));
    snprintf (text, len,
              "too many connections: user %s has %d open "
              "(max_user_connections is %lld); close some and retry",
              name, (int)admit_counts_get (cl->users, uid),
              (long long)cl->max_per_user);
}

int clients_set_uid (struct clients *cl, struct conn *c, uid_t uid,
                     struct hpcq_error *err)
{
    struct client *e = client_of (cl, c);
    char text[256];

    if (!e || e->counted || !uid_capped (cl, uid))
        return 0;
    if (admit_counts_take (cl->users, uid, cl->max_per_user) < 0) {
        over_cap_text (cl, uid, text, sizeof (text));
        errno = EUSERS;
        return errprintf (err, "%s", text);
    }
    e->uid = uid;
    e->counted = 1;
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
    int counted = 0;
    struct client *e;
    char text[256];

    if (conn_is_local (c) && uid_capped (cl, uid)) {
        if (admit_counts_take (cl->users, uid, cl->max_per_user) < 0) {
            over_cap_text (cl, uid, text, sizeof (text));
            admit_ratelog (&cl->refusals, LOG_WARNING, "refusing %s: %s",
                           conn_peer_name (c), text);
            conn_refuse (c, EUSERS, text);
            return -1;
        }
        counted = 1;
    } else if (!conn_is_local (c))
        make_room_tcp (cl);
    e = &cl->v[cl->n];
    *e = (struct client){
        .c = c, .uid = uid, .tcp = !conn_is_local (c), .since_ms = util_now_ms ()
    };
    e->counted = counted;
    conn_set_slot (c, cl->n++);
    conn_set_outq_max (c, (size_t)cl->output_max);
    return 0;
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

static void clients_accepted (int fd, const struct admit_peer *peer, void *arg)
{
    struct clients *cl = arg;
    struct conn *c;

    (void)peer;
    if (grow (cl) < 0) {
        log_error ("new connection");
        close (fd);
        return;
    }
    if (!(c = conn_create (cl->srv->loop, fd, cl->on_msg, cl->on_close, cl->srv))) {
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
    if (admit_listen (cl->admit, fd) < 0)
        return errprintf (err, "listening socket: %s", strerror (errno));
    return 0;
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
    cl->users = admit_counts_create ();
    cl->admit = admit_create (srv->loop, "clients", clients_accepted, cl);
    admit_raise_nofile ();
    return cl;
}

void clients_destroy (struct clients *cl)
{
    if (!cl)
        return;
    int saved = errno;
    for (int i = 0; i < cl->n; i++)
        conn_destroy (cl->v[i].c);
    admit_destroy (cl->admit);
    loop_timer_remove (cl->sweep);
    free (cl->v);
    admit_counts_destroy (cl->users);
    free (cl);
    errno = saved;
}
