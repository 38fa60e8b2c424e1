/* jobs.h - the scheduler's jobs in memory, written through to the database.
 *
 * Every job since the database was created is here (finished ones too, for
 * qstat -x), indexed by sequence number.  State changes go through the
 * job_set_* functions, which update the durable record in the open
 * transaction and record an event in the job's history.
 */
#ifndef HPCQ_SCHEDULER_JOBS_H
#define HPCQ_SCHEDULER_JOBS_H

#include <stdint.h>

#include "common/jobspec.h"
#include "db/db_job.h"
#include "scheduler/place.h"
#include "scheduler/priority.h"
#include "scheduler/server.h"

struct node;

/* PBS exit codes for jobs that did not end on their own (PBS Pro values). */
#define JOB_EXEC_FAIL1 (-1)         /* could not start: no retry */
#define JOB_EXEC_RERUN (-3)         /* node failed: requeued */
#define JOB_EXEC_KILL_WALLTIME (-29)
#define JOB_EXEC_NODE_LOST (-11)    /* node failed, job not rerunnable */

struct job {
    struct db_job rec;
    struct hpcq_jobspec spec;
    char id[128];               /* "42.server" */
    struct alloc *alloc;        /* while R or E */
    int launch_pending;         /* launch sent, no job.started yet */
    int kill_sent;
    struct job *q_prev, *q_next;    /* in the list of queued jobs while 'Q' */
    struct job *r_prev, *r_next;    /* in the list of jobs holding an allocation */
    int64_t est_start;              /* backfill's reservation for it, 0 if none */
    struct resv *resv;              /* conservative backfill's kept reservation
                                     * (one block, freed with free()), or NULL */
    const char *node_labels;        /* its queue's node_labels (borrowed), NULL = any */
    /* Effective priority while queued, computed each pass from its
     * factors (scheduler/priority.h); policy_sort_priority orders by it. */
    double prio;
    struct priority_factors prio_f;

    /* Job arrays.  The array itself is a job that never runs; its subjobs
     * run, each a job of its own that shares the array's request (spec
     * is a shallow copy: the array owns it). */
    int is_array;
    struct job **sub;               /* array: subjobs in index order */
    int nsub;
    int array_limit;                /* array: at most this many running, 0 = any */
    int array_running;              /* array: subjobs holding an allocation */
    struct job *parent;             /* subjob: its array */
    int array_index;                /* subjob: its index */
};

/* Subjob keys: the database and the workers know a subjob by this number,
 * far above any job number, made of its array's number and its position. */
#define JOB_SUBKEY_BASE (INT64_C (1) << 62)
#define JOB_SUBKEY_BITS 17
#define JOB_SUBKEY(parent_seq, pos) \
    (JOB_SUBKEY_BASE + ((int64_t)(parent_seq) << JOB_SUBKEY_BITS) + (pos))

struct jobs *jobs_create (struct server *srv);
void jobs_destroy (struct jobs *js);

/* Load every job from the database; running jobs get their allocation back
 * on placeholder nodes.  0 or -1. */
int jobs_load (struct jobs *js);

/* The next sequence number; durable once the batch commits. */
int64_t jobs_next_seq (struct jobs *js);

/* Add a new job (takes ownership) and insert it.  0 or -1. */
int jobs_add (struct jobs *js, struct job *job);

/* Expand array job (already added) into its subjobs, one per index of its
 * -J range, and insert them.  0 or -1. */
int jobs_add_subjobs (struct jobs *js, struct job *array);

/* The array's state from its subjobs: finished when all are. */
void job_array_update (struct server *srv, struct job *array);

/* 'B' for an array some of whose subjobs have begun, else the state. */
char job_display_state (const struct job *job);

/* Free the request's JSON text once it is stored: the parsed request
 * (job->spec) is what the scheduler uses, and the text was a third of a
 * queued job's memory.  Later updates leave the stored text alone. */
void job_drop_spec_text (struct job *job);

struct job *jobs_lookup (struct jobs *js, int64_t seq);
/* Parse "42", "42.server" or "42.server.domain" into a sequence number.
 * -1 if malformed. */
int64_t jobs_parse_id (const char *s);

/* Iterate in sequence order. */
/* The job a user's id names: "42", "42.SERVER" or "42.SERVER.domain";
 * NULL if unknown, malformed or naming another server. */
struct job *jobs_find (struct jobs *js, const char *id);

struct job **jobs_all (struct jobs *js, int *n);

/* The jobs in state Q, the only ones a scheduling pass considers: kept
 * apart so a pass costs the queue's length, not the history's. */
struct job *jobs_queued_first (struct jobs *js);
int jobs_queued_count (struct jobs *js);

/* The jobs holding an allocation (running or exiting). */
struct job *jobs_running_first (struct jobs *js);
int jobs_count_state (struct jobs *js, char state);

/* State changes, each written through with an event (actor: who did it). */
int job_set_state (struct server *srv, struct job *job, char state,
                   const char *event, const char *actor, const char *detail);
int job_start (struct server *srv, struct job *job, struct alloc *alloc);
/* The attempt ended: record exit and usage, release the allocation. */
int job_end (struct server *srv, struct job *job, int exit_status,
             const char *reason, int64_t cput, int64_t walltime,
             int64_t maxrss, const char *actor);
/* The node under a running job failed: requeue it or fail it. */
int job_node_lost (struct server *srv, struct job *job, const char *why);
/* End a running job's attempt without a result (its copy is being
 * killed, or is gone) and queue it again; actor caused it. */
int job_requeue (struct server *srv, struct job *job, const char *why, const char *actor);
/* Ask the job's mother-superior worker to signal it ("TERM" or "KILL";
 * reason "deleted" escalates to SIGKILL after the kill delay).  Not
 * durable: repeated when the node reconnects. */
void job_signal_worker (struct job *job, const char *sig, const char *reason);
void job_set_comment (struct job *job, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Add (sign 1) or remove (-1) job seq's use of a on the real nodes. */
void alloc_apply (struct alloc *a, int64_t seq, int sign);
json_t *alloc_to_json (const struct alloc *a);
struct alloc *alloc_from_json (struct nodes *ns, const char *text);
void alloc_format_exec (const struct alloc *a, char **exec_host,
                        char **exec_vnode);

#endif
