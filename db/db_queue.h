/* db_queue.h - the execution queues, as qmgr creates and changes them
 * (the first migration creates the default queue "workq"). */
#ifndef HPCQ_DB_DB_QUEUE_H
#define HPCQ_DB_DB_QUEUE_H

#include "db/db.h"

struct db_queue {
    char name[64];
    char queue_type[16]; /* "execution" */
    int priority;
    int enabled;
    int started;
    char resources_max[256]; /* PBS resource list, "" = none */
    char resources_default[256];
    int max_run; /* 0 = no cap */
    int max_run_user;
    char node_labels[256];     /* "" = any node */
    char preempt_order[8];     /* "SCR"; "" = the scheduler's */
    char preempt_targets[256]; /* "queue=a,queue=b", "NONE"; "" = any */
    char node_preference[16];  /* "spot", "on_demand"; "" = none */
};

/* 1 if the queue exists (and fills q if not NULL), 0 if not, -1 on error. */
int db_queue_get (struct db *db, const char *name, struct db_queue *q);

/* Call cb for each queue by name; a negative return from cb stops. */
int db_queue_foreach (struct db *db, int (*cb) (const struct db_queue *q, void *arg),
                      void *arg);

/* Insert a new queue (EEXIST if there is one of that name) or write every
 * attribute of an existing one, in the open transaction.  0 or -1. */
int db_queue_insert (struct db *db, const struct db_queue *q);
int db_queue_update (struct db *db, const struct db_queue *q);

/* Remove a queue.  Jobs refer to their queue, so this fails (EBUSY) while
 * any job row, finished ones included, names it.  0 or -1. */
int db_queue_delete (struct db *db, const char *name);

/* Each user's decayed fair-share usage and when it was last decayed. */
struct db_fairshare {
    char user[64];
    double usage;
    int64_t decayed_at;
};

int db_fairshare_set (struct db *db, const struct db_fairshare *f);
int db_fairshare_foreach (struct db *db,
                          int (*cb) (const struct db_fairshare *f, void *arg),
                          void *arg);

#endif
