/* accounting.h - the accounting log in PBS Pro's format.
 *
 * Every job state change (lifecycle.h) that PBS Pro accounts for becomes a
 * record (acct_record.h): Q submitted, S started, E ended, D deleted, R
 * requeued for a new attempt, A aborted because its node was lost.  Each
 * record is written to STATE_DIR/accounting/YYYYMMDD (its day, local time)
 * once and only after the change is durable:
 *
 *  1. in the change's own transaction the record goes into the outbox
 *     table (acct_outbox) and into a list in memory;
 *  2. after the loop turn's commit (server_before_sleep) the list is
 *     appended to the day's file;
 *  3. once a second the file is flushed to disk (fdatasync) and the rows
 *     it now holds are deleted from the outbox in the next transaction.
 *
 * A crash before 1's commit loses the change and its record together.
 * After it, the rows left in the outbox are exactly the records that may
 * be missing from the file or already in it: at start each file's end is
 * compared with them (a torn last line is cut off first) and only the
 * records not there are appended.  So nothing is lost and nothing written
 * twice, and the file never holds a record of a change that did not
 * happen.
 */
#ifndef HPCQ_SCHEDULER_ACCOUNTING_H
#define HPCQ_SCHEDULER_ACCOUNTING_H

#include "common/error.h"
#include "scheduler/policy/job_state.h"
#include "scheduler/server.h"

struct job;
struct accounting;

/* Open STATE_DIR/accounting and write what the outbox holds (in the open
 * transaction, which the caller commits).  NULL with err. */
struct accounting *accounting_create (struct server *srv, struct hpcq_error *err);

/* Flush what was appended, empty the outbox of it (and commit that); drop
 * what was not appended.  Before the database closes. */
void accounting_destroy (struct accounting *a);

/* job moved from state old because of ev (lifecycle.h's hook), caused by
 * actor: store its record(s) in the open transaction.  -1 with errno if the
 * outbox cannot be written (the change's transaction must not commit
 * without its record). */
int accounting_job_event (struct accounting *a, struct job *job, char old,
                          enum job_event ev, const char *actor);

/* After a commit: append the records it made durable to their files. */
void accounting_after_commit (struct accounting *a);

/* The folder the files are in (for tracejob's sake, logged at start). */
const char *accounting_dir (const struct accounting *a);

#endif
