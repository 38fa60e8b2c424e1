/* jobs.h - the scheduler's jobs in memory, written through to the database.
 *
 * Every job not yet finished is here, and the finished ones of the history
 * window (job_history_duration, for qstat -x; history.h), indexed by
 * sequence number, with the lists a scheduling pass
 * reads (queued, running).  A job's state is changed only by lifecycle.h,
 * which writes each change through with an event in the job's history.
 */
#ifndef HPCQ_SCHEDULER_JOBS_H
#define HPCQ_SCHEDULER_JOBS_H

#include <stdint.h>

#include "db/db.h"
#include "scheduler/array.h"
#include "scheduler/job.h"
#include "scheduler/policy/place.h"
#include "scheduler/server.h"

struct node;

/* The key of the subjob at pos of an array of n subjobs. */
int64_t job_subkey (int64_t parent_seq, int pos, int n);

/* The PBS id of the job or subjob whose key (its rec.seq) is key, for the
 * log: "42.server", "17[3].server" ("17[#2].server", by position, once
 * the array is gone from memory). */
void jobs_key_text (struct jobs *js, int64_t key, char *buf, size_t len);

struct jobs *jobs_create (struct server *srv);
void jobs_destroy (struct jobs *js);

/* Load every job from the database but those that finished before
 * finished_before (0: every job): the records at once (running jobs get
 * their allocation back on placeholder nodes), their stored requests
 * parsed on other threads meanwhile; cb (rc 0, or -1 if a stored request
 * is unreadable) runs on the loop once they are taken in.  0 or -1. */
typedef void (*jobs_loaded_f) (struct jobs *js, int rc, void *arg);
int jobs_load (struct jobs *js, int64_t finished_before, jobs_loaded_f cb, void *arg);

/* 1 while the requests are being parsed: until then only the records may
 * be read (not job->spec, not subjob views).  jobs_load_wait waits for
 * the parse and takes it in (0, or -1 as cb's rc). */
int jobs_loading (const struct jobs *js);
int jobs_load_wait (struct jobs *js);

/* Free the finished jobs (arrays with their split-out subjobs) that ended
 * before finished_before, but those keep (if not NULL) says are still in
 * use; they stay in the database.  Nothing while the requests are parsed
 * (jobs_loading).  Returns how many went (history.h). */
int jobs_purge (struct jobs *js, int64_t finished_before,
                int (*keep) (const struct job *job, void *arg), void *arg);

/* The next sequence number; durable once the batch commits. */
int64_t jobs_next_seq (struct jobs *js);

/* Give a new job its id and write its row (and the next sequence number)
 * in the open transaction; memory is untouched.  0 or -1. */
int jobs_insert (struct jobs *js, struct job *job);

/* Add a job to the index (takes ownership), queued if its state is Q.
 * 0 or -1 (ENOMEM: the job is still the caller's). */
int jobs_add (struct jobs *js, struct job *job);

/* Give array job (already added) its record of subjobs, one per index of
 * its -J range, all untouched: nothing is stored for them.  0 or -1. */
int jobs_add_subjobs (struct jobs *js, struct job *array);

/* The subjob of array at pos as a job of its own, split out if it was
 * untouched (then queued or held as its array is, or finished if the
 * array was deleted).  transient: split out for one scheduling pass only
 * (jobs_unsplit_transient).  NULL if pos is out of range or no memory. */
struct job *jobs_subjob (struct jobs *js, struct job *array, int pos, int transient);

/* What the subjob at pos looks like, without splitting it out: the split
 * one itself, or *scratch filled in as the untouched subjob (borrowing
 * the array's strings: read it, do not keep or change it).  uuid: also
 * derive its UUID (a hash; qstat's table needs none). */
const struct job *jobs_subjob_view (struct jobs *js, struct job *array, int pos,
                                    struct job *scratch, int uuid);

/* Arrays that have untouched queued subjobs to take, for a pass. */
struct job_array *jobs_pending_arrays_first (struct jobs *js);
struct job_array *jobs_pending_arrays_next (struct job_array *a);

/* Give back to their arrays the transient subjobs that did not start. */
void jobs_unsplit_transient (struct jobs *js);

/* Free the request's JSON text once it is stored: the parsed request
 * (job->spec) is what the scheduler uses, and the text was a third of a
 * queued job's memory.  Later updates leave the stored text alone. */
void job_drop_spec_text (struct job *job);

/* The job numbered seq (a subjob by its key, split out if untouched), or
 * NULL. */
struct job *jobs_lookup (struct jobs *js, int64_t seq);
/* Parse "42", "42.server" or "42.server.domain" into a sequence number.
 * -1 if malformed. */
int64_t jobs_parse_id (const char *s);

/* The job a user's id names: "42", "42.SERVER" or "42.SERVER.domain",
 * "42[]" for an array, "42[7]" for its subjob of index 7 (split out if
 * untouched); NULL if unknown, malformed or naming another server. */
struct job *jobs_find (struct jobs *js, const char *id);
/* The same for a look only: an untouched subjob is not split out but
 * given as its array with *pos its position (-1 for anything else). */
struct job *jobs_find_pos (struct jobs *js, const char *id, int *pos);

/* Every job but subjobs, in sequence order (borrowed). */
struct job **jobs_all (struct jobs *js, int *n);

/* The jobs in state Q, the only ones a scheduling pass considers: kept
 * apart so a pass costs the queue's length, not the history's. */
struct job_queue *jobs_queued (struct jobs *js);
int jobs_queued_count (struct jobs *js);

/* The jobs holding an allocation (running or exiting); a job joins when
 * it gets one and leaves when it releases it. */
struct job_list *jobs_running (struct jobs *js);
void jobs_running_add (struct jobs *js, struct job *job);
void jobs_running_remove (struct jobs *js, struct job *job);
int jobs_count_state (struct jobs *js, char state);

/* The suspended jobs ('S'): they keep their allocation (job->alloc, to
 * resume on) but its resources are released. */
struct job_list *jobs_suspended (struct jobs *js);

/* After job's state changed from old (lifecycle.h): join or leave the
  * queued and suspended lists; a subjob is counted anew by its array, an array joins or
 * leaves the arrays with subjobs to take. */
void jobs_refile (struct jobs *js, struct job *job, char old);

/* The jobs by queue, state and user, kept as they change (job_counts.h;
 * borrowed). */
struct job_counts;
const struct job_counts *jobs_counts (struct jobs *js);
/* The same counts made anew from every job, the slow way, for tests and
 * GET /metrics?recount=1 to check the kept ones against (the caller
 * destroys them: job_counts_destroy). */
struct job_counts *jobs_counts_recount (struct jobs *js);
/* Jobs in memory, split-out subjobs included (untouched ones are none). */
int jobs_in_memory (const struct jobs *js);

/* Write job's record through to the open transaction (its mtime now):
 * for changes that are no state change (the session a worker reports).
 * 0 or -1. */
int jobs_write (struct jobs *js, struct job *job);
/* Ask the job's mother-superior worker to signal it ("TERM" or "KILL";
 * reason "deleted" escalates to SIGKILL after the kill delay).  Not
 * durable: repeated when the node reconnects. */
void job_signal_worker (struct job *job, const char *sig, const char *reason);
/* The same to the worker of every node of the job's allocation (suspend,
 * resume: each stops or continues the job's processes on its host). */
void job_signal_nodes (struct job *job, const char *sig, const char *reason);
void job_set_comment (struct job *job, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

#endif
