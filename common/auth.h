/* auth.h - MUNGE credentials on wire messages: who sent it, and that it
 * was this message.
 *
 * Every message between the daemons, and every user request over TCP,
 * carries in its "cred" field a MUNGE credential (libmunge, a munged on
 * each host, one key per cluster).  munged vouches for the uid and gid of
 * the process that made it, its time to live, and refuses to decode one
 * twice (a replay).  Its payload is a SHA-256 digest (nettle) of
 *   "hpcq-wire-1" NUL direction NUL binding NUL canonical-envelope
 * where direction says which way the message goes ("to-scheduler",
 * "to-worker", "to-tm" or "from-tm"), binding is what the connection
 * agreed on when it opened (the two nonces of link.open; "" for a user's
 * one-shot request), and the
 * canonical envelope is the message without its credential, serialized by
 * jansson with sorted keys.  So a credential lifted off the wire authorizes
 * nothing else: not another body, type or id, not the other direction, not
 * another connection.  docs/security.md says why each part is there.
 *
 * Who may send what (the service uids, roles) is the caller's decision:
 * auth_verify only says who sent a message and that it is intact.
 */
#ifndef HPCQ_COMMON_AUTH_H
#define HPCQ_COMMON_AUTH_H

#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#include "common/config.h"
#include "common/error.h"
#include "common/wire.h"

#define AUTH_DIGEST_LEN 32 /* SHA-256 */
#define AUTH_NONCE_HEX 32  /* link.open nonces: 16 random bytes in hex */
#define AUTH_BINDING_MAX (2 * AUTH_NONCE_HEX + 2)
#define AUTH_ANY_UID ((uid_t)-1) /* auth_encode: anyone may decode it */

enum auth_dir {
    AUTH_TO_SCHEDULER = 0, /* from a worker or a user */
    AUTH_TO_WORKER = 1,    /* from the scheduler */
    AUTH_TO_TM = 2,        /* to a worker's task manager port (common/tm.h):
                                     * from a mother superior's worker or qsub -I */
    AUTH_FROM_TM = 3,      /* its answers and the streams it sends back */
};

/* Who made a credential, as munged says. */
struct auth_cred {
    uid_t uid;
    gid_t gid;
    int ttl;         /* seconds it was made to live */
    int64_t encoded; /* when it was made (wall clock, s) */
    char addr[64];   /* the host that made it (IPv4) */
};

struct auth;

/* A MUNGE context talking to munged at socket (NULL: libmunge's default,
 * /run/munge/munge.socket.2).  Credentials it makes live ttl seconds, and
 * it refuses to accept any made to live longer.  NULL with err. */
struct auth *auth_create (const char *socket, int ttl, struct hpcq_error *err);
void auth_destroy (struct auth *a);

/* A daemon's authentication from its config: 'auth' (munge, the default,
 * or none), 'munge_socket', 'munge_ttl' and 'service_user'.  Trusted
 * service uids are root, the caller's own uid and service_user's.  With
 * auth = munge, munged is asked for a credential once, so a daemon that
 * cannot authenticate fails at start.  With auth = none, *ap is NULL and
 * prog says so loudly (log and standard error).  -1 with err. */
int auth_from_config (const struct config *cfg, const char *prog, struct auth **ap,
                      struct hpcq_error *err);

/* Another context like a, with its own libmunge contexts (for a thread:
 * common/authq.h).  NULL with err. */
struct auth *auth_clone (const struct auth *a, struct hpcq_error *err);

/* The longest a credential may have been made to live (munge_ttl). */
int auth_ttl (const struct auth *a);

/* Trust uid (root, our own) or the user named (a name or a number) as a
 * service uid, as auth_from_config does: for the client commands, which
 * check who answers their link.open.  -1 with err (no such user). */
void auth_trust_uid (struct auth *a, uid_t uid);
int auth_service_user (struct auth *a, const char *name, struct hpcq_error *err);

/* Is uid one of the cluster's service uids (root, the daemons' users)? */
int auth_is_service (const struct auth *a, uid_t uid);

/* The digest a credential for m carries (m's own cred is left out). */
int auth_digest (const struct wire_msg *m, enum auth_dir dir, const char *binding,
                 uint8_t out[AUTH_DIGEST_LEN]);

/* A credential for m ("MUNGE:..." as a JSON string, new reference) or
 * NULL with err (munged unreachable...). */
json_t *auth_sign (struct auth *a, const struct wire_msg *m, enum auth_dir dir,
                   const char *binding, struct hpcq_error *err);

/* Check m's credential: decoded by munged (valid, unexpired, not replayed),
 * made to live no longer than this context allows, and its digest that of
 * m as sent in direction dir on a connection bound to binding.  Fills
 * *cred.  -1 with errno EPERM (and err) if not. */
int auth_verify (struct auth *a, const struct wire_msg *m, enum auth_dir dir,
                 const char *binding, struct auth_cred *cred, struct hpcq_error *err);

/* The calls below that talk to munged block until it answers: a daemon
 * makes them only off its loop (common/authq.h, common/link.h).  The CLI
 * and the tests' tools call them directly. */

/* A credential carrying len bytes of payload, which only restrict_uid's
 * processes may decode (AUTH_ANY_UID: anyone's).  Returns "MUNGE:..."
 * (malloc'ed, the caller's), or NULL with errno and err. */
char *auth_encode (struct auth *a, const void *payload, int len, uid_t restrict_uid,
                   struct hpcq_error *err);

/* Decode a credential: valid, unexpired, not replayed, made to live no
 * longer than munge_ttl.  *payloadp (malloc'ed, the caller's) and *lenp
 * get its payload, *cred who made it.  -1 with errno EPERM and err. */
int auth_decode (struct auth *a, const char *text, void **payloadp, int *lenp,
                 struct auth_cred *cred, struct hpcq_error *err);

/* m's credential text, or NULL with err (none, or not MUNGE's). */
const char *auth_cred_text (const struct wire_msg *m, struct hpcq_error *err);

/* Does payload (len bytes) start with m's digest for dir and binding?
 * -1 with errno EPERM and err if not. */
int auth_check_digest (const struct wire_msg *m, enum auth_dir dir, const char *binding,
                       const void *payload, int len, struct hpcq_error *err);

/* msg is the answer to our link.open (request open_id, our nonce ours):
 * not refused, and carrying the peer's nonce.  binding gets what the link
 * is bound to from then on ("ours:theirs"); checking the answer's own
 * credential against it is the caller's.  -1 with err if not. */
int auth_link_answer (const struct wire_msg *msg, int64_t open_id, const char *ours,
                      char binding[AUTH_BINDING_MAX], struct hpcq_error *err);

/* A fresh random nonce as AUTH_NONCE_HEX hex digits (buf holds one more). */
int auth_nonce (char buf[AUTH_NONCE_HEX + 1]);

#endif
