/* db_ckpt.c - see db_ckpt.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "db/db_ckpt.h"

static const char *sql_ckpt_add =
    "INSERT INTO checkpoints (job_seq, generation, path, size, completed_at, attempt,"
    " node, reason, requested_at, duration)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
    " ON CONFLICT (job_seq, generation) DO NOTHING";
static const char *sql_ckpt_all =
    "SELECT job_seq, attempt, generation, path, node, size, completed_at, reason,"
    " requested_at, duration FROM checkpoints WHERE invalid = 0 ORDER BY job_seq, "
    "rowid";
static const char *sql_ckpt_invalidate =
    "UPDATE checkpoints SET invalid = 1 WHERE job_seq = ?1 AND invalid = 0";
static const char *sql_preempt_add =
    "INSERT INTO preemptions (job_seq, attempt, time, method, preemptor, reason)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
static const char *sql_preempt_all =
    "SELECT job_seq, attempt, method, reason FROM preemptions ORDER BY job_seq, rowid";
static const char *sql_attempt_cost =
    "UPDATE attempts SET cost = ?3, cost_spot = ?4, suspended = ?5, cost_ondemand = ?6"
    " WHERE job_seq = ?1 AND attempt = ?2";
static const char *sql_cost_all =
    "SELECT a.job_seq, j.queue, sum (a.cost), sum (a.cost_spot)"
    " FROM attempts a JOIN jobs j ON j.seq = a.job_seq"
    " WHERE a.cost IS NOT NULL GROUP BY a.job_seq";
static const char *sql_intr_add =
    "INSERT INTO interruptions (time, node, class, kind, detail)"
    " VALUES (?1, ?2, ?3, ?4, ?5)";
static const char *sql_exposure_add =
    "INSERT INTO class_exposure (class, node_seconds) VALUES (?1, ?2)"
    " ON CONFLICT (class) DO UPDATE SET node_seconds = node_seconds + "
    "excluded.node_seconds";
static const char *sql_class_all =
    "SELECT class, sum (s), sum (n) FROM ("
    "  SELECT class, node_seconds AS s, 0 AS n FROM class_exposure"
    "  UNION ALL SELECT class, 0, count (*) FROM interruptions GROUP BY class)"
    " GROUP BY class ORDER BY class";
static const char *sql_dir_add =
    "INSERT INTO checkpoint_dirs (job_seq, path, uid, remove_after) VALUES (?1, ?2, "
    "?3, ?4)"
    " ON CONFLICT (job_seq) DO UPDATE SET path = excluded.path, uid = excluded.uid,"
    " remove_after = excluded.remove_after, removed_at = NULL";
static const char *sql_dir_due =
    "SELECT job_seq, path, uid FROM checkpoint_dirs"
    " WHERE removed_at IS NULL AND remove_after <= ?1 ORDER BY remove_after LIMIT ?2";
/* Folders whose removal a held job waits for (ckpt_corrupt = restart):
 * only those jobs are held with a folder row (the others' come when they
 * finish). */
static const char *sql_dir_held =
    "SELECT d.job_seq, d.path, d.uid FROM checkpoint_dirs d JOIN jobs j ON j.seq = "
    "d.job_seq WHERE d.removed_at IS NULL AND j.state = 'H'";
static const char *sql_dir_removed =
    "UPDATE checkpoint_dirs SET removed_at = ?2 WHERE job_seq = ?1";

static void bind_text_or_null (sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text (st, i, s, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null (st, i);
}

static const char *col_text (sqlite3_stmt *st, int i)
{
    return (const char *)sqlite3_column_text (st, i);
}

/* A write statement: open the transaction, prepare.  NULL with errno. */
static sqlite3_stmt *write_stmt (struct db *db, const char *sql)
{
    if (db_txn_ensure (db) < 0)
        return NULL;
    return db_stmt (db, sql);
}

/* Step a read statement to its end, calling row for each row; a negative
 * return from row stops and is returned. */
static int read_rows (struct db *db, sqlite3_stmt *st,
                      int (*row) (sqlite3_stmt *st, void *arg), void *arg)
{
    int rc, ret = 0;

    while ((rc = sqlite3_step (st)) == SQLITE_ROW)
        if ((ret = row (st, arg)) < 0)
            break;
    sqlite3_reset (st);
    if (ret < 0)
        return ret;
    return rc == SQLITE_DONE ? 0 : db_fail (db, "read");
}

int db_ckpt_add (struct db *db, const struct db_ckpt *c)
{
    sqlite3_stmt *st = write_stmt (db, sql_ckpt_add);

    if (!st)
        return -1;
    sqlite3_bind_int64 (st, 1, c->seq);
    sqlite3_bind_int64 (st, 2, c->generation);
    sqlite3_bind_text (st, 3, c->path ? c->path : "", -1, SQLITE_STATIC);
    if (c->size >= 0)
        sqlite3_bind_int64 (st, 4, c->size);
    sqlite3_bind_int64 (st, 5, c->completed_at);
    sqlite3_bind_int (st, 6, c->attempt);
    bind_text_or_null (st, 7, c->node);
    bind_text_or_null (st, 8, c->reason);
    if (c->requested_at > 0)
        sqlite3_bind_double (st, 9, c->requested_at);
    if (c->duration >= 0)
        sqlite3_bind_double (st, 10, c->duration);
    if (db_exec_stmt (db, st) < 0)
        return -1;
    return sqlite3_changes (db_handle (db)) > 0;
}

struct ckpt_cb {
    int (*cb) (const struct db_ckpt *c, void *arg);
    void *arg;
};

static int ckpt_row (sqlite3_stmt *st, void *arg)
{
    struct ckpt_cb *k = arg;
    struct db_ckpt c = {
        .seq = sqlite3_column_int64 (st, 0),
        .attempt = sqlite3_column_int (st, 1),
        .generation = sqlite3_column_int64 (st, 2),
        .path = col_text (st, 3),
        .node = col_text (st, 4),
        .size = sqlite3_column_type (st, 5) == SQLITE_NULL
                    ? -1
                    : sqlite3_column_int64 (st, 5),
        .completed_at = sqlite3_column_int64 (st, 6),
        .reason = col_text (st, 7),
        .requested_at = sqlite3_column_double (st, 8),
        .duration = sqlite3_column_type (st, 9) == SQLITE_NULL
                        ? -1
                        : sqlite3_column_double (st, 9),
    };
    return k->cb (&c, k->arg);
}

int db_ckpt_foreach (struct db *db, int (*cb) (const struct db_ckpt *c, void *arg),
                     void *arg)
{
    sqlite3_stmt *st = db_stmt (db, sql_ckpt_all);
    struct ckpt_cb k = { cb, arg };

    return st ? read_rows (db, st, ckpt_row, &k) : -1;
}

int db_preempt_add (struct db *db, int64_t seq, int attempt, int64_t time, char method,
                    int64_t preemptor, const char *reason)
{
    sqlite3_stmt *st = write_stmt (db, sql_preempt_add);
    char m[2] = { method, '\0' };

    if (!st)
        return -1;
    sqlite3_bind_int64 (st, 1, seq);
    sqlite3_bind_int (st, 2, attempt);
    sqlite3_bind_int64 (st, 3, time);
    sqlite3_bind_text (st, 4, m, -1, SQLITE_TRANSIENT);
    if (preemptor)
        sqlite3_bind_int64 (st, 5, preemptor);
    sqlite3_bind_text (st, 6, reason, -1, SQLITE_STATIC);
    return db_exec_stmt (db, st);
}

struct preempt_cb {
    int (*cb) (int64_t seq, int attempt, char method, const char *reason, void *arg);
    void *arg;
};

static int preempt_row (sqlite3_stmt *st, void *arg)
{
    struct preempt_cb *k = arg;
    const char *m = col_text (st, 2);

    return k->cb (sqlite3_column_int64 (st, 0), sqlite3_column_int (st, 1),
                  m ? m[0] : '?', col_text (st, 3), k->arg);
}

int db_preempt_foreach (struct db *db,
                        int (*cb) (int64_t seq, int attempt, char method,
                                   const char *reason, void *arg),
                        void *arg)
{
    sqlite3_stmt *st = db_stmt (db, sql_preempt_all);
    struct preempt_cb k = { cb, arg };

    return st ? read_rows (db, st, preempt_row, &k) : -1;
}

int db_attempt_set_cost (struct db *db, int64_t seq, int attempt, double cost,
                         double cost_spot, double suspended, double cost_ondemand)
{
    sqlite3_stmt *st = write_stmt (db, sql_attempt_cost);

    if (!st)
        return -1;
    sqlite3_bind_int64 (st, 1, seq);
    sqlite3_bind_int (st, 2, attempt);
    sqlite3_bind_double (st, 3, cost);
    sqlite3_bind_double (st, 4, cost_spot);
    sqlite3_bind_double (st, 5, suspended);
    sqlite3_bind_double (st, 6, cost_ondemand);
    return db_exec_stmt (db, st);
}

struct cost_cb {
    int (*cb) (int64_t seq, const char *queue, double cost, double cost_spot,
               void *arg);
    void *arg;
};

static int cost_row (sqlite3_stmt *st, void *arg)
{
    struct cost_cb *k = arg;
    const char *q = col_text (st, 1);

    return k->cb (sqlite3_column_int64 (st, 0), q ? q : "",
                  sqlite3_column_double (st, 2), sqlite3_column_double (st, 3), k->arg);
}

int db_cost_foreach (struct db *db,
                     int (*cb) (int64_t seq, const char *queue, double cost,
                                double cost_spot, void *arg),
                     void *arg)
{
    sqlite3_stmt *st = db_stmt (db, sql_cost_all);
    struct cost_cb k = { cb, arg };

    return st ? read_rows (db, st, cost_row, &k) : -1;
}

int db_interruption_add (struct db *db, int64_t time, const char *node, const char *cls,
                         const char *kind, const char *detail)
{
    sqlite3_stmt *st = write_stmt (db, sql_intr_add);

    if (!st)
        return -1;
    sqlite3_bind_int64 (st, 1, time);
    sqlite3_bind_text (st, 2, node, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 3, cls, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 4, kind, -1, SQLITE_STATIC);
    bind_text_or_null (st, 5, detail);
    return db_exec_stmt (db, st);
}

int db_class_exposure_add (struct db *db, const char *cls, double node_seconds)
{
    sqlite3_stmt *st = write_stmt (db, sql_exposure_add);

    if (!st)
        return -1;
    sqlite3_bind_text (st, 1, cls, -1, SQLITE_STATIC);
    sqlite3_bind_double (st, 2, node_seconds);
    return db_exec_stmt (db, st);
}

struct class_cb {
    int (*cb) (const char *cls, double node_seconds, int64_t n, void *arg);
    void *arg;
};

static int class_row (sqlite3_stmt *st, void *arg)
{
    struct class_cb *k = arg;
    const char *c = col_text (st, 0);

    return k->cb (c ? c : "", sqlite3_column_double (st, 1),
                  sqlite3_column_int64 (st, 2), k->arg);
}

int db_class_foreach (struct db *db,
                      int (*cb) (const char *cls, double node_seconds, int64_t n,
                                 void *arg),
                      void *arg)
{
    sqlite3_stmt *st = db_stmt (db, sql_class_all);
    struct class_cb k = { cb, arg };

    return st ? read_rows (db, st, class_row, &k) : -1;
}

int db_ckptdir_add (struct db *db, int64_t seq, const char *path, int64_t uid,
                    int64_t remove_after)
{
    sqlite3_stmt *st = write_stmt (db, sql_dir_add);

    if (!st)
        return -1;
    sqlite3_bind_int64 (st, 1, seq);
    sqlite3_bind_text (st, 2, path, -1, SQLITE_STATIC);
    sqlite3_bind_int64 (st, 3, uid);
    sqlite3_bind_int64 (st, 4, remove_after);
    return db_exec_stmt (db, st);
}

struct dir_cb {
    int (*cb) (int64_t seq, const char *path, int64_t uid, void *arg);
    void *arg;
};

static int dir_row (sqlite3_stmt *st, void *arg)
{
    struct dir_cb *k = arg;
    const char *p = col_text (st, 1);

    return k->cb (sqlite3_column_int64 (st, 0), p ? p : "",
                  sqlite3_column_int64 (st, 2), k->arg);
}

int db_ckptdir_due (struct db *db, int64_t now, int max,
                    int (*cb) (int64_t seq, const char *path, int64_t uid, void *arg),
                    void *arg)
{
    sqlite3_stmt *st = db_stmt (db, sql_dir_due);
    struct dir_cb k = { cb, arg };

    if (!st)
        return -1;
    sqlite3_bind_int64 (st, 1, now);
    sqlite3_bind_int (st, 2, max);
    return read_rows (db, st, dir_row, &k);
}

int db_ckptdir_held (struct db *db,
                     int (*cb) (int64_t seq, const char *path, int64_t uid, void *arg),
                     void *arg)
{
    sqlite3_stmt *st = db_stmt (db, sql_dir_held);
    struct dir_cb k = { cb, arg };

    if (!st)
        return -1;
    return read_rows (db, st, dir_row, &k);
}

int db_ckptdir_removed (struct db *db, int64_t seq, int64_t time)
{
    sqlite3_stmt *st = write_stmt (db, sql_dir_removed);

    if (!st)
        return -1;
    sqlite3_bind_int64 (st, 1, seq);
    sqlite3_bind_int64 (st, 2, time);
    return db_exec_stmt (db, st);
}

int db_ckpt_invalidate (struct db *db, int64_t seq)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (db) < 0 || !(st = db_stmt (db, sql_ckpt_invalidate)))
        return -1;
    sqlite3_bind_int64 (st, 1, seq);
    return db_exec_stmt (db, st);
}
