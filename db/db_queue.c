/* db_queue.c - see db_queue.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>

#include "db/db_queue.h"

#define QUEUE_COLS                                                            \
    "name, queue_type, priority, enabled, started, resources_max,"            \
    " resources_default, max_run, max_run_user, node_labels, preempt_order, " \
    "preempt_targets, node_preference"

static const char *sql_get = "SELECT " QUEUE_COLS " FROM queues WHERE name = ?1";
static const char *sql_all = "SELECT " QUEUE_COLS " FROM queues ORDER BY name";
static const char *sql_insert = "INSERT INTO queues (" QUEUE_COLS ", created_at)"
                                " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
                                "?11, ?12, ?13, strftime('%s', 'now'))";
static const char *sql_update =
    "UPDATE queues SET queue_type = ?2, priority = ?3, enabled = ?4, started = ?5,"
    " resources_max = ?6, resources_default = ?7, max_run = ?8, max_run_user = ?9,"
    " node_labels = ?10, preempt_order = ?11, preempt_targets = ?12,"
    " node_preference = ?13 WHERE name = ?1";
static const char *sql_jobs = "SELECT count(*) FROM jobs WHERE queue = ?1";
static const char *sql_delete = "DELETE FROM queues WHERE name = ?1";
static const char *sql_fs_set =
    "INSERT INTO fairshare (user, usage, decayed_at) VALUES (?1, ?2, ?3)"
    " ON CONFLICT (user) DO UPDATE SET usage = ?2, decayed_at = ?3";
static const char *sql_fs_all =
    "SELECT user, usage, decayed_at FROM fairshare ORDER BY user";

static void text_col (sqlite3_stmt *st, int i, char *buf, size_t len)
{
    const unsigned char *s = sqlite3_column_text (st, i);
    snprintf (buf, len, "%s", s ? (const char *)s : "");
}

static void queue_read (sqlite3_stmt *st, struct db_queue *q)
{
    text_col (st, 0, q->name, sizeof (q->name));
    text_col (st, 1, q->queue_type, sizeof (q->queue_type));
    q->priority = sqlite3_column_int (st, 2);
    q->enabled = sqlite3_column_int (st, 3);
    q->started = sqlite3_column_int (st, 4);
    text_col (st, 5, q->resources_max, sizeof (q->resources_max));
    text_col (st, 6, q->resources_default, sizeof (q->resources_default));
    q->max_run = sqlite3_column_int (st, 7);
    q->max_run_user = sqlite3_column_int (st, 8);
    text_col (st, 9, q->node_labels, sizeof (q->node_labels));
    text_col (st, 10, q->preempt_order, sizeof (q->preempt_order));
    text_col (st, 11, q->preempt_targets, sizeof (q->preempt_targets));
    text_col (st, 12, q->node_preference, sizeof (q->node_preference));
}

static void queue_bind (sqlite3_stmt *st, const struct db_queue *q)
{
    sqlite3_bind_text (st, 1, q->name, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 2, q->queue_type, -1, SQLITE_STATIC);
    sqlite3_bind_int (st, 3, q->priority);
    sqlite3_bind_int (st, 4, q->enabled);
    sqlite3_bind_int (st, 5, q->started);
    sqlite3_bind_text (st, 6, q->resources_max, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 7, q->resources_default, -1, SQLITE_STATIC);
    sqlite3_bind_int (st, 8, q->max_run);
    sqlite3_bind_int (st, 9, q->max_run_user);
    sqlite3_bind_text (st, 10, q->node_labels, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 11, q->preempt_order, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 12, q->preempt_targets, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 13, q->node_preference, -1, SQLITE_STATIC);
}

int db_queue_get (struct db *db, const char *name, struct db_queue *q)
{
    sqlite3_stmt *st = db_stmt (db, sql_get);
    int rc;

    if (!st)
        return -1;
    sqlite3_bind_text (st, 1, name, -1, SQLITE_STATIC);
    rc = sqlite3_step (st);
    if (rc == SQLITE_ROW && q)
        queue_read (st, q);
    sqlite3_reset (st);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    return db_fail (db, "read queue");
}

int db_queue_foreach (struct db *db, int (*cb) (const struct db_queue *q, void *arg),
                      void *arg)
{
    sqlite3_stmt *st = db_stmt (db, sql_all);
    int rc;

    if (!st)
        return -1;
    while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
        struct db_queue q;
        queue_read (st, &q);
        if (cb (&q, arg) < 0)
            break;
    }
    sqlite3_reset (st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_fail (db, "read queues");
}

static int queue_write (struct db *db, const char *sql, const struct db_queue *q)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (db) < 0 || !(st = db_stmt (db, sql)))
        return -1;
    queue_bind (st, q);
    return db_exec_stmt (db, st);
}

int db_queue_insert (struct db *db, const struct db_queue *q)
{
    int rc = db_queue_get (db, q->name, NULL);

    if (rc != 0) {
        if (rc > 0)
            errno = EEXIST;
        return -1;
    }
    return queue_write (db, sql_insert, q);
}

int db_queue_update (struct db *db, const struct db_queue *q)
{
    int rc = db_queue_get (db, q->name, NULL);

    if (rc != 1) {
        if (rc == 0)
            errno = ENOENT;
        return -1;
    }
    return queue_write (db, sql_update, q);
}

int db_queue_delete (struct db *db, const char *name)
{
    sqlite3_stmt *st;
    int rc, njobs;

    if (db_txn_ensure (db) < 0 || !(st = db_stmt (db, sql_jobs)))
        return -1;
    sqlite3_bind_text (st, 1, name, -1, SQLITE_STATIC);
    rc = sqlite3_step (st);
    njobs = rc == SQLITE_ROW ? sqlite3_column_int (st, 0) : -1;
    sqlite3_reset (st);
    if (njobs < 0)
        return db_fail (db, "count jobs of queue");
    if (njobs > 0) {
        errno = EBUSY;
        return -1;
    }
    if (!(st = db_stmt (db, sql_delete)))
        return -1;
    sqlite3_bind_text (st, 1, name, -1, SQLITE_STATIC);
    if (db_exec_stmt (db, st) < 0)
        return -1;
    if (sqlite3_changes (db_handle (db)) == 0) {
        errno = ENOENT;
        return -1;
    }
    return 0;
}

int db_fairshare_set (struct db *db, const struct db_fairshare *f)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (db) < 0 || !(st = db_stmt (db, sql_fs_set)))
        return -1;
    sqlite3_bind_text (st, 1, f->user, -1, SQLITE_STATIC);
    sqlite3_bind_double (st, 2, f->usage);
    sqlite3_bind_int64 (st, 3, f->decayed_at);
    return db_exec_stmt (db, st);
}

int db_fairshare_foreach (struct db *db,
                          int (*cb) (const struct db_fairshare *f, void *arg),
                          void *arg)
{
    sqlite3_stmt *st = db_stmt (db, sql_fs_all);
    int rc;

    if (!st)
        return -1;
    while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
        struct db_fairshare f;
        text_col (st, 0, f.user, sizeof (f.user));
        f.usage = sqlite3_column_double (st, 1);
        f.decayed_at = sqlite3_column_int64 (st, 2);
        if (cb (&f, arg) < 0)
            break;
    }
    sqlite3_reset (st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_fail (db, "read fairshare");
}
