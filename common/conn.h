/* conn.h - a non-blocking, framed message connection on the event loop.
 *
 * Reads whole wire messages and hands each to on_msg; queues outgoing
 * messages and writes them as the socket allows.  Framing errors (garbage,
 * truncated or oversized messages) close the connection: the peer is not
 * trusted to resynchronise.  Used by the scheduler for clients and
 * workers, and by the worker for its scheduler link.
 */
#ifndef HPCQ_COMMON_CONN_H
#define HPCQ_COMMON_CONN_H

#include <sys/types.h>

#include "common/loop.h"
#include "common/wire.h"

struct conn;

/* msg is the callee's to release only if it keeps it: conn releases it
 * after on_msg returns unless on_msg zeroes it (takes ownership). */
typedef void (*conn_msg_f) (struct conn *c, struct wire_msg *msg, void *arg);
/* The connection is gone; it is freed right after this returns. */
typedef void (*conn_close_f) (struct conn *c, void *arg);

/* Takes ownership of fd (made non-blocking).  NULL on failure (fd closed). */
struct conn *conn_create (struct loop *l, int fd, conn_msg_f on_msg,
                          conn_close_f on_close, void *arg);

/* Queue m for sending.  -1 with errno if it cannot be encoded. */
int conn_send (struct conn *c, const struct wire_msg *m);

/* Convenience: send a reply to req (conn_send_or_error). */
int conn_reply (struct conn *c, const struct wire_msg *req, int errnum,
                const char *errstr, json_t *body);

/* Close now (on_close runs, possibly deferred until the current callback
 * returns).  Pending output is dropped. */
void conn_close (struct conn *c);

/* Close after pending output has been written. */
void conn_close_after_flush (struct conn *c);

/* Free without calling on_close (owner shutdown). */
void conn_destroy (struct conn *c);

/* Peer identity: uid from SO_PEERCRED on Unix sockets, -1 on TCP. */
uid_t conn_peer_uid (const struct conn *c);
int conn_is_local (const struct conn *c);
const char *conn_peer_name (const struct conn *c);

/* A link's session (common/session.h), taken: from now on every frame
 * sent is sealed and every frame received must open, or the connection
 * closes (one log line).  When its lifetime is over the connection
 * closes too, and its owner opens a fresh link.  NULL: none. */
struct session;
void conn_set_session (struct conn *c, struct session *s);
const struct session *conn_session (const struct conn *c);

/* While fn is set, received messages go to fn(c, msg, arg) instead of
 * on_msg (the link handshake, common/link.h).  NULL: on_msg again. */
void conn_set_intercept (struct conn *c, conn_msg_f fn, void *arg);

/* Something in flight for c (a credential with munged, common/authq.h):
 * free_fn(arg) runs if c is freed first.  NULL: nothing (not freed). */
void conn_set_pending (struct conn *c, void *arg, void (*free_fn) (void *));

/* Hold (1) or release (0) c's input while something it said waits (its
 * credential with munged): the next messages wait in the socket. */
void conn_hold (struct conn *c, int hold);

/* The uid a credential proved for a TCP peer (conn_peer_uid then says
 * it).  Unix sockets keep the kernel's word. */
void conn_set_peer_uid (struct conn *c, uid_t uid);

/* A pointer for the owner (e.g. the node record behind a worker link). */
void conn_set_aux (struct conn *c, void *aux);
void *conn_aux (const struct conn *c);

/* A number for the owner (e.g. c's position in its table of connections,
 * so that removing it costs no search); 0 until set. */
void conn_set_slot (struct conn *c, int slot);
int conn_slot (const struct conn *c);

/* How long the message being received has been incomplete (0 if none),
 * so a server can drop peers that stall mid-message. */
int64_t conn_partial_ms (const struct conn *c, int64_t now_ms);

/* Bytes queued for writing (for back-pressure decisions). */
size_t conn_outq_len (const struct conn *c);

/* Output cap: a peer that does not read its answers cannot make the
 * process hold unbounded memory.  Once what is queued would pass max
 * bytes (0: no cap, the default), conn_send fails with ENOBUFS, the
 * output is dropped and the connection closed (on_close runs from the
 * loop, never from inside conn_send), with one log line. */
void conn_set_outq_max (struct conn *c, size_t max);

/* Streaming a big answer as the peer reads it: while a drain callback is
 * set, cb(c, arg) runs from the loop each time the socket is writable
 * and at most low bytes are queued (once per loop turn at most), so the
 * producer adds the next part and other peers are served between parts.
 * cb NULL stops.  If the connection goes first, free_arg(arg) runs (if
 * given) when it is freed; stopping does not free arg. */
typedef void (*conn_drain_f) (struct conn *c, void *arg);
void conn_set_drain (struct conn *c, conn_drain_f cb, void *arg, size_t low,
                     void (*free_arg) (void *));

/* Stop (1) or resume (0) reading messages: a peer's next request waits
 * in the socket while its previous answer is still being streamed. */
void conn_pause_input (struct conn *c, int pause);

/* Milliseconds since bytes last moved either way (read or written), or
 * since the connection was made. */
int64_t conn_idle_ms (const struct conn *c, int64_t now_ms);

/* conn_send, and if m is a reply that cannot be encoded (EMSGSIZE: too
 * large), log it and send an error reply in its place, so that the peer
 * is never left waiting.  Returns conn_send's result for m. */
int conn_send_or_error (struct conn *c, const struct wire_msg *m);

/* An error reply to no request (id 0): the peer is told why before the
 * connection is closed (e.g. too many connections).  Closes after flush. */
void conn_refuse (struct conn *c, int errnum, const char *errstr);

#endif
