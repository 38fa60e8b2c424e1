/* queue.h - the execution queues in memory, administered with qmgr.
 *
 * Loaded from the database at start and written through on every change.
 * A queue decides what may enter it (enabled, resources_max, filling in
 * resources_default) and what of it may run (started, max_run,
 * max_run_user, node_labels).  Only managers change queues (root, the
 * scheduler's own user and the config key 'managers'): requests
 * queue.manage (create, set, unset, delete), whose attributes are
 * queue_attr.h's; queue.stat is in rpc/queue_rpc.c.
 */
#ifndef HPCQ_SCHEDULER_QUEUE_H
#define HPCQ_SCHEDULER_QUEUE_H

#include <jansson.h>
#include <stdint.h>

#include "common/error.h"
#include "common/resource.h"
#include "db/db_queue.h"
#include "scheduler/queue_limits.h"
#include "scheduler/server.h"

struct job;
struct job_list;

struct queue_count {
    int64_t uid;
    int n;
};

struct queue {
    struct db_queue rec;
    struct queue_limits max, dflt;
    /* Jobs holding an allocation, per queue and per user; counted afresh
     * at each pass (queue_pass_begin) and bumped by each start. */
    int nrun;
    struct queue_count *users;
    int nusers, users_cap;
};

/* Load every queue from the database.  NULL with err. */
struct queues *queue_create_all (struct server *srv, struct hpcq_error *err);
void queue_destroy_all (struct queues *qs);

/* The queue called name, or NULL. */
struct queue *queue_lookup (struct queues *qs, const char *name);
/* All queues by name (borrowed, valid until a queue is created or deleted). */
struct queue **queue_all (struct queues *qs, int *n);

/* May a job with request res enter queue name?  Fills the queue's
 * resources_default into res where the job did not ask, then checks
 * resources_max.  0, or -1 with errno and a PBS-like message in err
 * (unknown queue, not enabled, exceeds the queue's limits). */
int queue_admit (struct queues *qs, const char *name, struct hpcq_resources *res,
                 struct hpcq_error *err);

/* The scheduling pass: count what runs, then ask per job whether its queue
 * lets it start now (started, max_run, max_run_user; it also sets
 * job->node_labels) and tell it about each start. */
void queue_pass_begin (struct queues *qs, struct job_list *running);
int queue_may_start (struct queues *qs, struct job *job);
void queue_note_start (struct queues *qs, const struct job *job);

/* A queue made (q, taken: qmgr's create) or dropped (freed: delete) in
 * the registry; queue_attr.c's, once the database has it so. */
void queue_add (struct queues *qs, struct queue *q);
void queue_remove (struct queues *qs, struct queue *q);

#endif
