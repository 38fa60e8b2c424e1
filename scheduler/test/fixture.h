/* fixture.h - a real scheduler in a test process, for the scheduler's
 * unit tests.
 *
 * fixture_start() makes a temporary state directory and creates the
 * daemon's own server in it (server_create: a SQLite file, the Unix socket,
 * TCP on an ephemeral loopback port), on a loop the test turns by hand.
 * Peers are real connections to that socket, each a struct conn on the
 * same loop: a user (the test's own uid, as SO_PEERCRED reports it) or a
 * worker that has said node.hello.  Requests go through the server's real
 * dispatch, handlers and group commit; what the server sends a worker
 * (job.launch, job.signal) is kept for the test to read.  The database is
 * read through a second SQLite connection, as an administrator would.
 *
 * Tests write these calls, so anything that would leave a test unable to
 * go on (no temporary directory, a server that will not start) aborts
 * with a message.
 */
#ifndef HPCQ_SCHEDULER_TEST_FIXTURE_H
#define HPCQ_SCHEDULER_TEST_FIXTURE_H

#include <jansson.h>
#include <stdint.h>

#include "common/wire.h"
#include "scheduler/server.h"

struct fx_peer;

struct fixture {
    char dir[128];
    char log[160]; /* the scheduler's log file */
    struct loop *loop;
    struct config *cfg;
    struct server *srv;
    struct fx_peer *peers; /* every peer made, freed at stop */
};

/* Start a server in a new temporary directory.  settings: config keys and
 * values in pairs, NULL-terminated (NULL itself for none). */
void fixture_start (struct fixture *f, const char *const *settings);

/* Destroy the server and create it again on the same state directory (a
 * scheduler restart); peers are disconnected. */
void fixture_restart (struct fixture *f);

/* Destroy the server and remove the directory. */
void fixture_stop (struct fixture *f);

/* Turn the loop once: the before-sleep hook (scheduling pass, commit,
 * queued replies), then whatever I/O is ready within a few milliseconds. */
void fixture_turn (struct fixture *f);

/* A new user connection. */
struct fx_peer *fixture_user (struct fixture *f);

/* A worker named name with ncpus cores, mem bytes and no GPUs, registered
 * by node.hello (the reply awaited). */
struct fx_peer *fixture_worker (struct fixture *f, const char *name, int ncpus,
                                int64_t mem);

/* Send a request (body stolen, NULL = {}) and turn the loop until its
 * reply arrives.  Returns the reply's errnum (0: success); *reply gets its
 * body (new reference) if reply is not NULL; errstr (if not NULL, len
 * bytes) its error line. */
int fixture_rpc (struct fixture *f, struct fx_peer *p, const char *type, json_t *body,
                 json_t **reply, char *errstr, size_t len);

/* The oldest request of type the server sent to p (a worker's job.launch
 * or job.signal), waiting up to a second for one; NULL if none came.  The
 * caller releases and frees it (fixture_msg_free). */
struct wire_msg *fixture_next (struct fixture *f, struct fx_peer *p, const char *type);
/* The same, waiting up to ms milliseconds. */
struct wire_msg *fixture_next_ms (struct fixture *f, struct fx_peer *p,
                                  const char *type, int ms);
void fixture_msg_free (struct wire_msg *m);

/* Turn the loop for ms milliseconds (timers: heartbeat checks, passes). */
void fixture_turns (struct fixture *f, int ms);

/* 1 while p's connection is open (the server may close it). */
int fixture_connected (struct fx_peer *p);

/* Close p's connection, as a worker that dies does (turn the loop for the
 * server to see it: a node's name is free again once its link is gone). */
void fixture_disconnect (struct fx_peer *p);

/* Submit a job as p's user with qsub-style options ("-h", "-l",
 * "select=1:ncpus=2", ..., NULL) and script "sleep 1".  Returns its
 * sequence number, or -1 with errno the server's errnum. */
int64_t fixture_submit (struct fixture *f, struct fx_peer *p, const char *const *opts);

/* The first column of the first row of a query on the database (committed
 * state), as an integer, or as text into buf (NULL result: ""). */
int64_t fixture_db_int (struct fixture *f, const char *sql);
const char *fixture_db_text (struct fixture *f, const char *sql, char *buf, size_t len);

/* 1 if the scheduler's log has a line containing text. */
int fixture_log_has (struct fixture *f, const char *text);

#endif
