/* clients.h - the scheduler's connections: accepting them, and the limits
 * that keep any one peer from holding the daemon's descriptors, memory or
 * loop (docs/security.md, "Private data and limits").
 *
 *  - Per user: a uid (SO_PEERCRED on the Unix socket, or a credential on
 *    TCP once the connection has one) holds at most max_user_connections
 *    at once; root, the scheduler's own user and service_user are not
 *    capped.  One more
 *    is told why (conn_refuse) and closed.
 *  - TCP peers that have not yet said who they are (a worker's node.hello,
 *    a credential): at most tcp_unidentified_max; a newcomer past that
 *    displaces the oldest of them.  A flood can then delay a worker by the
 *    milliseconds between its connect and its hello, never lock it out,
 *    and it is not counted against any user.
 *  - Idle: a connection where no byte moved either way for
 *    client_idle_timeout seconds is closed (worker links are judged by
 *    node_timeout instead); so is one stuck mid-message for 10 s.
 *  - Output: at most client_output_max bytes queued per connection
 *    (conn_set_outq_max): a peer that does not read is dropped.
 *  - Descriptors: when accept fails for want of descriptors, the listening
 *    sockets are paused (100 ms, doubling up to 2 s) instead of retried
 *    at once, with one log line per pause; the soft RLIMIT_NOFILE is
 *    raised to the hard one at start.
 */
#ifndef HPCQ_SCHEDULER_CLIENTS_H
#define HPCQ_SCHEDULER_CLIENTS_H

#include <sys/types.h>

#include "common/conn.h"
#include "common/error.h"

struct server;
struct clients;

/* Reads the limits above from the server's config.  NULL with err. */
struct clients *clients_create (struct server *srv, conn_msg_f on_msg,
                                conn_close_f on_close, struct hpcq_error *err);
/* Frees every connection still open (their on_close does not run). */
void clients_destroy (struct clients *cl);

/* Accept connections on the listening socket fd (the caller's to close,
 * after clients_destroy).  0, or -1 with err. */
int clients_listen (struct clients *cl, int fd, struct hpcq_error *err);

/* c is closing (call from the on_close callback): drop it from the table. */
void clients_forget (struct clients *cl, struct conn *c);

/* A TCP connection proved it speaks for uid (its first MUNGE credential):
 * from now on it counts as that user's, not as an unidentified peer.
 * -1 (EUSERS, err says why) if that user already holds
 * max_user_connections: the caller refuses and closes it. */
int clients_set_uid (struct clients *cl, struct conn *c, uid_t uid,
                     struct hpcq_error *err);

/* c may stay idle (a request that answers much later): no idle timeout. */
void clients_set_persistent (struct clients *cl, struct conn *c);

/* Connections open now. */
int clients_count (const struct clients *cl);

#endif
