/* link.h - opening a TCP link: MUNGE once each way, then a session key.
 *
 *   initiator                                   responder
 *   link.open {nonce Ni}, cred  ------------->  munged checks it (off the loop)
 *     cred = MUNGE (digest (it, dir, "Ni") || Si)
 *                               <-------------  reply {nonce Nr, ...}, cred
 *     cred = MUNGE (digest (it, reverse dir, "Ni:Nr") || Sr),
 *            decodable only by the initiator's uid
 *   munged checks it (off the loop)
 *   both: session key from Si, Sr and "Ni:Nr" (common/session.h);
 *   every later frame either way is sealed with it.
 *
 * Each credential is bound by its digest to the message, its direction
 * and the nonces, so neither can be replayed on another link; each
 * carries a fresh random secret that munged shows only to whoever may
 * decode it; and munged vouches for the uid of each end.  All talk with
 * munged goes through an authq (common/authq.h): the loop never waits.
 *
 * Both calls take over c's messages (conn_set_intercept) and its cleanup
 * (conn_set_pending) until done runs; then on_msg gets the sealed ones.
 */
#ifndef HPCQ_COMMON_LINK_H
#define HPCQ_COMMON_LINK_H

#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#include "common/auth.h"
#include "common/authq.h"
#include "common/config.h"
#include "common/conn.h"
#include "common/session.h"

/* The handshake of c is over.  ok 0: the session is in place, uid is the
 * peer's (munged's word).  ok -1: refused for why (the peer was told, if
 * it was the initiator); the callee closes c (conn_close_after_flush). */
typedef void (*link_done_f) (struct conn *c, int ok, uid_t uid, const char *why,
                             void *arg);

struct link_opts {
    struct authq *q;
    enum auth_dir dir;   /* the initiator's direction (AUTH_TO_SCHEDULER, AUTH_TO_TM) */
    int64_t lifetime_ms; /* the session's (session_lifetime), 0: forever */
    int service_only;    /* the peer must be root or a service uid */
    link_done_f done;
    void *arg;
};

/* Open the link on c (just connected): link.open goes once munged has
 * made its credential.  -1 with errno (no random numbers). */
int link_open (struct conn *c, const struct link_opts *o);

/* Answer open, a link.open received on c; extra (stolen, may be NULL)
 * is added to the answer's body (the scheduler's name).  done always
 * runs, now or later. */
void link_accept (struct conn *c, const struct wire_msg *open, json_t *extra,
                  const struct link_opts *o);

/* The other direction of a link (TO_SCHEDULER <-> TO_WORKER, TO_TM <->
 * FROM_TM). */
enum auth_dir link_reverse (enum auth_dir dir);

/* The pieces, for the CLI (which may wait on munged) and the tests' tool:
 * the credential payload "digest || secret" for m, and its check (made
 * for m, dir and binding; *secret gets the secret).  -1 with err. */
#define LINK_PAYLOAD_LEN (AUTH_DIGEST_LEN + SESSION_SECRET_LEN)
int link_payload (const struct wire_msg *m, enum auth_dir dir, const char *binding,
                  const uint8_t *secret, uint8_t out[LINK_PAYLOAD_LEN]);
int link_payload_check (const struct wire_msg *m, enum auth_dir dir,
                        const char *binding, const void *payload, int len,
                        uint8_t *secret, struct hpcq_error *err);

/* session_lifetime from a daemon's config: seconds a link's session key
 * lives before the link is closed and opened afresh (default 3600, from
 * 2 s to a week), in *ms.  -1 with err. */
int link_lifetime_from_config (const struct config *cfg, int64_t *ms,
                               struct hpcq_error *err);

/* Is s AUTH_NONCE_HEX lowercase hex digits? */
int link_nonce_ok (const char *s);

#endif
