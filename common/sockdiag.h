/* sockdiag.h - who owns the other end of a local TCP connection.
 *
 * On a connection between two sockets of this host (loopback), the
 * kernel knows which user created the peer's socket; the sock_diag
 * netlink interface (what ss(8) reads) tells anyone who asks, the way
 * identd answered for a port pair.  The scheduler's HTTP server uses it
 * so that a user's browser or curl on the same host is known by its uid
 * without a password, as SO_PEERCRED does for the Unix socket.
 */
#ifndef HPCQ_COMMON_SOCKDIAG_H
#define HPCQ_COMMON_SOCKDIAG_H

#include <sys/socket.h>
#include <sys/types.h>

/* The uid owning the TCP socket whose own address is peer and whose
 * remote address is local (the other end of our connection local<->peer;
 * both IPv4 or both IPv6).  0 with *uid, or -1 with errno (ENOENT: no such
 * socket here, e.g. the peer is on another host). */
int sockdiag_peer_uid (const struct sockaddr *local, const struct sockaddr *peer,
                       uid_t *uid);

/* 1 if addr is a loopback address (127.0.0.0/8, ::1, ::ffff:127.x.x.x). */
int sockdiag_is_loopback (const struct sockaddr *addr);

#endif
