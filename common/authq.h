/* authq.h - munged, off the event loop.
 *
 * A daemon's loop never waits on munged (a flooded or stopped munged
 * would stall heartbeats, qstat and everyone else with it).  Credentials
 * are made and checked by one thread of the daemon's own, with libmunge
 * contexts of its own (auth_clone); each result comes back to the loop
 * through an eventfd it watches, and the callback runs there.  A munged
 * that hangs delays only what waits on it: the links being opened and the
 * one-shot TCP requests of that moment.
 */
#ifndef HPCQ_COMMON_AUTHQ_H
#define HPCQ_COMMON_AUTHQ_H

#include <sys/types.h>

#include "common/auth.h"
#include "common/error.h"
#include "common/loop.h"

struct authq;
struct authq_job;

/* What the thread got.  cred and payload are the callback's to take (set
 * them NULL); what is left is freed after it returns. */
struct authq_result {
    int rc; /* 0, or -1 with errnum and error */
    int errnum;
    char error[256];
    char *cred;    /* encode: "MUNGE:..." */
    void *payload; /* decode: its payload, len bytes */
    int len;
    struct auth_cred who; /* decode: its maker */
};

typedef void (*authq_done_f) (struct authq_result *r, void *arg);

/* A queue on loop l for credentials as a makes and checks them (a is
 * cloned: the thread has contexts of its own; it stays the caller's).
 * NULL with err. */
struct authq *authq_create (struct loop *l, struct auth *a, struct hpcq_error *err);
/* Stops the thread (one stuck in munged is cancelled); pending jobs are
 * dropped without their callbacks. */
void authq_destroy (struct authq *q);

/* The context it was made from (borrowed), for auth_is_service and
 * auth_ttl. */
struct auth *authq_auth (const struct authq *q);

/* Make a credential for payload (copied), decodable by restrict_uid only
 * (AUTH_ANY_UID: anyone); cb runs on the loop with the result.  The job,
 * until cb runs (or authq_cancel). */
struct authq_job *authq_encode (struct authq *q, const void *payload, int len,
                                uid_t restrict_uid, authq_done_f cb, void *arg);

/* Check a credential (text copied); cb gets its payload and maker. */
struct authq_job *authq_decode (struct authq *q, const char *text, authq_done_f cb,
                                void *arg);

/* Its callback will not run (the one waiting went away).  NULL is fine. */
void authq_cancel (struct authq_job *j);

/* Jobs waiting or in the thread. */
int authq_pending (const struct authq *q);

#endif
