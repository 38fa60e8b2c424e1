/* db_queue.h - the execution queues (created by qmgr in a later issue;
 * the first migration creates the default queue "workq"). */
#ifndef HPCQ_DB_DB_QUEUE_H
#define HPCQ_DB_DB_QUEUE_H

#include "db/db.h"

struct db_queue {
    char name[64];
    int priority;
    int enabled;
    int started;
};

/* 1 if the queue exists (and fills q if not NULL), 0 if not, -1 on error. */
int db_queue_get (struct db *db, const char *name, struct db_queue *q);

/* Call cb for each queue by name. */
int db_queue_foreach (struct db *db, int (*cb) (const struct db_queue *q, void *arg),
                      void *arg);

#endif
