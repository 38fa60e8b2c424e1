/* db_job.h - jobs, their attempts and their event history in the database.
 *
 * struct db_job is a job's durable record; the scheduler embeds it in its
 * in-memory job and writes it through on every change.  The request itself
 * is stored as the jobspec JSON text.
 */
#ifndef HPCQ_DB_DB_JOB_H
#define HPCQ_DB_DB_JOB_H

#include <stdint.h>

struct db;

#define DB_UUID_LEN 37
#define DB_NAME_LEN 256

/* owner, name and queue are the process's shared copies (common/strpool.h):
 * many jobs repeat them.  Set them with strpool_get or strpool_ref;
 * db_job_release returns them. */
struct db_job {
    int64_t seq;
    char uuid[DB_UUID_LEN];
    const char *owner;
    int64_t uid;
    const char *name;
    const char *queue;
    char state;         /* 'Q' 'H' 'W' 'R' 'E' 'F' */
    char hold_types[8]; /* "n", "u", "o", "s" combinations */
    int priority;
    char *spec;                         /* jobspec JSON text (owned) */
    int64_t ctime, mtime, stime, etime; /* 0 = unset */
    int has_exit;
    int exit_status;
    char *comment;    /* owned, may be NULL */
    int run_count;    /* attempts started so far */
    char *exec_host;  /* "node1/0*2+node2/0*2" (owned, may be NULL) */
    char *exec_vnode; /* "(node1:ncpus=2)+..." (owned, may be NULL) */
    int64_t session_id;
    char *resources_used; /* JSON text (owned, may be NULL) */
    char *alloc; /* JSON: where it runs, to rebuild node usage after a restart */
    int64_t array_parent; /* array subjob: the array's seq; 0 otherwise */
    int array_index;      /* array subjob: its index */
};

/* Free the strings a record owns (and return its pooled ones). */
void db_job_release (struct db_job *j);

/* Insert a new job.  0 or -1 (errno). */
int db_job_insert (struct db *db, const struct db_job *j);

/* Write the mutable fields (state, holds, times, exit, comment, run_count,
 * exec_host/vnode, session, resources_used, priority, queue, and the name
 * and request, which qalter may change).  A NULL spec leaves the stored
 * request as it is: the scheduler keeps the parsed request in memory, not
 * its text. */
int db_job_update (struct db *db, const struct db_job *j);

/* qdel -x: job seq (and, for an array, its subjobs) is no longer loaded
 * (db_job_foreach*); its rows stay.  0 or -1. */
int db_job_purge (struct db *db, int64_t seq);
/* The job of that uuid: its seq, 0 if none (or purged), -1 on error. */
int64_t db_job_seq_by_uuid (struct db *db, const char *uuid);
/* (db_job_update inserts an array subjob's row if it has none yet: a
 * subjob is stored only once it starts or changes, so a large array goes
 * in as one row.) */

/* Call cb for each job in sequence order; the record is the callback's to
 * keep (it must db_job_release it).  A callback returning -1 stops. */
typedef int (*db_job_f) (struct db_job *j, void *arg);
int db_job_foreach (struct db *db, db_job_f cb, void *arg);
/* The same, leaving out jobs that finished (F) before finished_before
 * (seconds; 0: none left out), with the subjobs of arrays so left out:
 * what a scheduler keeps of its history (job_history_duration). */
int db_job_foreach_since (struct db *db, int64_t finished_before, db_job_f cb,
                          void *arg);

/* Attempt records: one row per run of a job. */
int db_attempt_start (struct db *db, int64_t seq, int attempt, const char *node,
                      const char *exec_host, int64_t start);
/* What the attempt used of its GPUs (migration 0011). 0 or -1. */
struct gpu_usage;
int db_attempt_gpu (struct db *db, int64_t seq, int attempt, const struct gpu_usage *u);

int db_attempt_end (struct db *db, int64_t seq, int attempt, int64_t end,
                    int exit_status, const char *reason, int64_t cput, int64_t walltime,
                    int64_t maxrss);

/* Event history.  seq may be 0 for server events. */
int db_event_add (struct db *db, int64_t seq, int64_t time, const char *type,
                  const char *actor, const char *detail);
/* An event that moved a job from old_state to new_state (PBS letters;
 * '\0' for none: old_state at submission). */
int db_event_add_state (struct db *db, int64_t seq, int64_t time, const char *type,
                        const char *actor, const char *detail, char old_state,
                        char new_state);

/* Number of events of a type for a job (tests and accounting). */
int db_event_count (struct db *db, int64_t seq, const char *type);

#endif
