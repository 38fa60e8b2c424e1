/* db_node.h - the nodes the scheduler has seen, as last reported.
 *
 * Live node state is the scheduler's (heartbeats); the table keeps what an
 * administrator and a restarted scheduler want to know: each node's
 * resources and when it was last heard from.
 */
#ifndef HPCQ_DB_DB_NODE_H
#define HPCQ_DB_DB_NODE_H

#include <stdint.h>

#include "db/db.h"

struct db_node {
    char name[64];
    int ncpus;
    int64_t mem;
    const char *gpus;   /* JSON array text */
    const char *labels; /* comma separated */
    const char *state;  /* "free", "down", ... */
    int64_t last_seen;
    int offline;         /* taken out of service by an administrator */
    const char *comment; /* why (read only by db_node_foreach) */
};

int db_node_upsert (struct db *db, const struct db_node *n);

/* Call cb for every node recorded (strings valid during the call only). */
int db_node_foreach (struct db *db, int (*cb) (const struct db_node *n, void *arg),
                     void *arg);
int db_node_set_state (struct db *db, const char *name, const char *state,
                       int64_t last_seen);
/* Take a node out of service (offline=1, with comment) or put it back.
 * The worker's own reports (db_node_upsert) leave both alone. */
int db_node_set_offline (struct db *db, const char *name, int offline,
                         const char *comment);

/* Reclaim notices still in force (scheduler/reclaim.h), by node: put
 * replaces the node's notice; foreach calls cb with each (strings valid
 * during the call only; cb returns -1 to stop). */
int db_notice_put (struct db *db, const char *node, int64_t deadline,
                   const char *source, int64_t noticed);
int db_notice_taken (struct db *db, const char *node);
int db_notice_delete (struct db *db, const char *node);
int db_notice_foreach (struct db *db,
                       int (*cb) (const char *node, int64_t deadline,
                                  const char *source, int taken, void *arg),
                       void *arg);

#endif
