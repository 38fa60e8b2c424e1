/* db_queue.c - see db_queue.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdio.h>

#include "db/db_queue.h"

static const char *sql_get =
    "SELECT name, priority, enabled, started FROM queues WHERE name = ?1";
static const char *sql_all =
    "SELECT name, priority, enabled, started FROM queues ORDER BY name";

static void queue_read (sqlite3_stmt *st, struct db_queue *q)
{
    snprintf (q->name, sizeof (q->name), "%s", (const char *)sqlite3_column_text (st, 0));
    q->priority = sqlite3_column_int (st, 1);
    q->enabled = sqlite3_column_int (st, 2);
    q->started = sqlite3_column_int (st, 3);
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
