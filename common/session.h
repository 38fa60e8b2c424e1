/* session.h - a link's session key: every frame after the handshake is
 * sealed with HMAC-SHA256 and a sequence number, one key per direction.
 *
 * A TCP link (worker <-> scheduler, worker <-> worker, a remote client)
 * proves both ends once, with MUNGE credentials (common/link.h); each of
 * those credentials carries, encrypted by munged, a random secret of its
 * maker.  From the two secrets and the two nonces both ends derive, with
 * HKDF-SHA256 (RFC 5869, nettle), a key for each direction:
 *   PRK = HKDF-Extract (salt = binding "Ni:Nr", IKM = Si || Sr)
 *   key = HKDF-Expand (PRK, "hpcq-session-1 " ("i2r" | "r2i"), 32)
 * A sealed frame is the usual 4-byte length and JSON, followed by a
 * trailer of 40 bytes that the length counts:
 *   seq (8 bytes, big-endian) | HMAC-SHA256 (key, seq || JSON)
 * The receiver wants exactly the next seq of its direction, so a replayed,
 * reordered, dropped, truncated or forged frame is refused; the link is
 * then closed (nothing after it can be trusted).  A session lives a
 * configured time (session_lifetime); after it the link is closed and
 * opened again with fresh credentials.  docs/security.md says why.
 *
 * Pure code: no I/O, no munged.  conn.c seals and opens frames with it.
 */
#ifndef HPCQ_COMMON_SESSION_H
#define HPCQ_COMMON_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define SESSION_SECRET_LEN 32
#define SESSION_KEY_LEN 32
#define SESSION_MAC_LEN 32
#define SESSION_TRAILER_LEN (8 + SESSION_MAC_LEN)

struct session;

/* The session of one end of a link: initiator 1 for the end that sent
 * link.open.  ours/theirs are the two ends' secrets, binding the link's
 * "Ni:Nr".  It ends lifetime_ms after now_ms (0: never).  Never NULL
 * (allocation failure aborts, as xzalloc). */
struct session *session_create (const uint8_t ours[SESSION_SECRET_LEN],
                                const uint8_t theirs[SESSION_SECRET_LEN],
                                const char *binding, int initiator, int64_t now_ms,
                                int64_t lifetime_ms);
void session_destroy (struct session *s);

/* Seal the next frame we send: its trailer (seq and HMAC over json). */
void session_seal (struct session *s, const char *json, size_t len,
                   unsigned char trailer[SESSION_TRAILER_LEN]);

/* Seal a whole frame as wire_encode made it (header and JSON, *lenp
 * bytes, malloc'ed): the trailer is appended and the header's length
 * grows by it.  Returns the frame (buf, reallocated; *lenp updated), or
 * NULL with errno (EMSGSIZE: the sealed frame would pass WIRE_MAX_MSG;
 * ENOMEM), buf freed either way it fails. */
char *session_seal_frame (struct session *s, char *buf, size_t *lenp);

/* Open a received frame body (JSON then trailer, len bytes in all): the
 * next seq and a good HMAC.  Returns the JSON's length, or -1 with errno
 * EPERM and err (too short, forged, replayed or reordered).  A refusal
 * leaves the expected seq unchanged. */
ssize_t session_open (struct session *s, const char *body, size_t len,
                      struct hpcq_error *err);

/* Has its lifetime passed? */
int session_expired (const struct session *s, int64_t now_ms);

/* Frames sealed and opened so far. */
uint64_t session_sent (const struct session *s);
uint64_t session_received (const struct session *s);

/* A fresh random secret (getrandom).  -1 with errno. */
int session_secret (uint8_t out[SESSION_SECRET_LEN]);

/* The two keys, for tests and the test tools that play a peer: the key
 * of frames we send, then of those we receive. */
void session_keys (const struct session *s, uint8_t send[SESSION_KEY_LEN],
                   uint8_t recv[SESSION_KEY_LEN]);

#endif
