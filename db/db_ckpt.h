/* db_ckpt.h - checkpoints, preemptions, node interruptions and cost in the
 * database (migration 0006).
 *
 * The scheduler's checkpoint, preemption and node class modules write
 * through these as things happen and read them back at start; the tables
 * are also what accounting, reports and tracejob read.  Writes join the
 * open transaction.
 */
#ifndef HPCQ_DB_DB_CKPT_H
#define HPCQ_DB_DB_CKPT_H

#include <stdint.h>

#include "db/db.h"

/* One completed checkpoint. */
struct db_ckpt {
    int64_t seq; /* the job */
    int attempt;
    int64_t generation;
    const char *path;     /* its folder */
    const char *node;     /* the node that reported it */
    int64_t size;         /* bytes, -1 unknown */
    int64_t completed_at; /* wall seconds */
    const char *reason;   /* why it was asked for; NULL: unasked */
    double requested_at;  /* wall seconds of the signal, 0: none */
    double duration;      /* seconds, < 0 unknown */
};

/* Record c.  1 if recorded, 0 if that generation of the job was already
 * (a report repeated after a reconnect), -1 on error. */
int db_ckpt_add (struct db *db, const struct db_ckpt *c);

/* cb for every checkpoint, by job then in the order they were recorded
 * (strings valid during the call only).  A negative return from cb stops
 * and is returned. */
int db_ckpt_foreach (struct db *db, int (*cb) (const struct db_ckpt *c, void *arg),
                     void *arg);

/* A preemption: method 'S', 'C', 'R' or 'D'; preemptor 0 if none. */
/* Every checkpoint of job seq is unusable: marked so, and no longer read
 * by db_ckpt_foreach.  0 or -1. */
int db_ckpt_invalidate (struct db *db, int64_t seq);
int db_preempt_add (struct db *db, int64_t seq, int attempt, int64_t time, char method,
                    int64_t preemptor, const char *reason);
/* cb for every preemption by job, oldest first. */
int db_preempt_foreach (struct db *db,
                        int (*cb) (int64_t seq, int attempt, char method,
                                   const char *reason, void *arg),
                        void *arg);

/* What an attempt cost (cost_spot: the part of it on spot nodes), how
 * long it was suspended (seconds), and what it would have cost with its
 * spot nodes at their on-demand price (cost_ondemand). */
int db_attempt_set_cost (struct db *db, int64_t seq, int attempt, double cost,
                         double cost_spot, double suspended, double cost_ondemand);
/* cb for each job's cost over its ended attempts, with its queue. */
int db_cost_foreach (struct db *db,
                     int (*cb) (int64_t seq, const char *queue, double cost,
                                double cost_spot, void *arg),
                     void *arg);

/* A node interruption: kind "failure" or "reclaim". */
int db_interruption_add (struct db *db, int64_t time, const char *node, const char *cls,
                         const char *kind, const char *detail);
/* Add node-seconds of up time to a class. */
int db_class_exposure_add (struct db *db, const char *cls, double node_seconds);
/* cb for each class with its up time and interruptions so far. */
int db_class_foreach (struct db *db,
                      int (*cb) (const char *cls, double node_seconds, int64_t n,
                                 void *arg),
                      void *arg);

/* A job's checkpoint folder to remove as uid after remove_after (wall
 * seconds); replaces an earlier entry for the job. */
int db_ckptdir_add (struct db *db, int64_t seq, const char *path, int64_t uid,
                    int64_t remove_after);
/* cb for up to max folders due at now and not yet removed. */
int db_ckptdir_due (struct db *db, int64_t now, int max,
                    int (*cb) (int64_t seq, const char *path, int64_t uid, void *arg),
                    void *arg);
/* The folders not yet removed of jobs that are held: those that wait for
 * their folder's removal to run again (ckpt_corrupt = restart).  0 or -1. */
int db_ckptdir_held (struct db *db,
                     int (*cb) (int64_t seq, const char *path, int64_t uid, void *arg),
                     void *arg);
int db_ckptdir_removed (struct db *db, int64_t seq, int64_t time);

#endif
