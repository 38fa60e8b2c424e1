/* db_node.c - see db_node.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdio.h>

#include "db/db_node.h"

static const char *sql_upsert =
    "INSERT INTO nodes (name, ncpus, mem, gpus, labels, state, last_seen)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (name) DO UPDATE SET"
    " ncpus = excluded.ncpus, mem = excluded.mem, gpus = excluded.gpus,"
    " labels = excluded.labels, state = excluded.state,"
    " last_seen = excluded.last_seen";

static const char *sql_all =
    "SELECT name, ncpus, mem, gpus, labels, state, last_seen, offline, comment"
    " FROM nodes ORDER BY name";

static const char *sql_set_state =
    "UPDATE nodes SET state = ?2, last_seen = ?3 WHERE name = ?1";

static const char *sql_set_offline =
    "UPDATE nodes SET offline = ?2, comment = ?3 WHERE name = ?1";

static const char *sql_notice_put =
    "INSERT OR REPLACE INTO reclaim_notices (node, deadline, source, noticed)"
    " VALUES (?1, ?2, ?3, ?4)";

static const char *sql_notice_taken =
    "UPDATE reclaim_notices SET taken = 1 WHERE node = ?1";

static const char *sql_notice_delete = "DELETE FROM reclaim_notices WHERE node = ?1";

static const char *sql_notice_all =
    "SELECT node, deadline, source, taken FROM reclaim_notices ORDER BY node";

int db_node_upsert (struct db *db, const struct db_node *n)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (db) < 0 || !(st = db_stmt (db, sql_upsert)))
        return -1;
    sqlite3_bind_text (st, 1, n->name, -1, SQLITE_STATIC);
    sqlite3_bind_int (st, 2, n->ncpus);
    sqlite3_bind_int64 (st, 3, n->mem);
    sqlite3_bind_text (st, 4, n->gpus ? n->gpus : "[]", -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 5, n->labels ? n->labels : "", -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 6, n->state, -1, SQLITE_STATIC);
    sqlite3_bind_int64 (st, 7, n->last_seen);
    return db_exec_stmt (db, st);
}

int db_node_foreach (struct db *db, int (*cb) (const struct db_node *n, void *arg),
                     void *arg)
{
    sqlite3_stmt *st = db_stmt (db, sql_all);
    int rc;

    if (!st)
        return -1;
    while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
        struct db_node n = { .ncpus = sqlite3_column_int (st, 1),
                             .mem = sqlite3_column_int64 (st, 2),
                             .gpus = (const char *)sqlite3_column_text (st, 3),
                             .labels = (const char *)sqlite3_column_text (st, 4),
                             .state = (const char *)sqlite3_column_text (st, 5),
                             .last_seen = sqlite3_column_int64 (st, 6),
                             .offline = sqlite3_column_int (st, 7),
                             .comment = (const char *)sqlite3_column_text (st, 8) };
        snprintf (n.name, sizeof (n.name), "%s",
                  (const char *)sqlite3_column_text (st, 0));
        if (cb (&n, arg) < 0)
            break;
    }
    sqlite3_reset (st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_fail (db, "read nodes");
}

int db_node_set_state (struct db *db, const char *name, const char *state,
                       int64_t last_seen)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (db) < 0 || !(st = db_stmt (db, sql_set_state)))
        return -1;
    sqlite3_bind_text (st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 2, state, -1, SQLITE_STATIC);
    sqlite3_bind_int64 (st, 3, last_seen);
    return db_exec_stmt (db, st);
}

int db_node_set_offline (struct db *db, const char *name, int offline,
                         const char *comment)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (db) < 0 || !(st = db_stmt (db, sql_set_offline)))
        return -1;
    sqlite3_bind_text (st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_int (st, 2, offline);
    sqlite3_bind_text (st, 3, comment ? comment : "", -1, SQLITE_STATIC);
    return db_exec_stmt (db, st);
}

int db_notice_put (struct db *db, const char *node, int64_t deadline,
                   const char *source, int64_t noticed)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (db) < 0 || !(st = db_stmt (db, sql_notice_put)))
        return -1;
    sqlite3_bind_text (st, 1, node, -1, SQLITE_STATIC);
    sqlite3_bind_int64 (st, 2, deadline);
    sqlite3_bind_text (st, 3, source, -1, SQLITE_STATIC);
    sqlite3_bind_int64 (st, 4, noticed);
    return db_exec_stmt (db, st);
}

static int notice_by_node (struct db *db, const char *sql, const char *node)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (db) < 0 || !(st = db_stmt (db, sql)))
        return -1;
    sqlite3_bind_text (st, 1, node, -1, SQLITE_STATIC);
    return db_exec_stmt (db, st);
}

int db_notice_taken (struct db *db, const char *node)
{
    return notice_by_node (db, sql_notice_taken, node);
}

int db_notice_delete (struct db *db, const char *node)
{
    return notice_by_node (db, sql_notice_delete, node);
}

int db_notice_foreach (struct db *db,
                       int (*cb) (const char *node, int64_t deadline,
                                  const char *source, int taken, void *arg),
                       void *arg)
{
    sqlite3_stmt *st = db_stmt (db, sql_notice_all);
    int rc;

    if (!st)
        return -1;
    while ((rc = sqlite3_step (st)) == SQLITE_ROW)
        if (cb ((const char *)sqlite3_column_text (st, 0), sqlite3_column_int64 (st, 1),
                (const char *)sqlite3_column_text (st, 2), sqlite3_column_int (st, 3),
                arg)
            < 0)
            break;
    sqlite3_reset (st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0
                                                 : db_fail (db, "read reclaim notices");
}
