/* db_settings.c - see db_settings.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>

#include "db/db_settings.h"

static const char *sql_set =
    "INSERT INTO settings (scope, name, value) VALUES (?1, ?2, ?3)"
    " ON CONFLICT (scope, name) DO UPDATE SET value = excluded.value";
static const char *sql_delete_one =
    "DELETE FROM settings WHERE scope = ?1 AND name = ?2";
static const char *sql_delete_scope = "DELETE FROM settings WHERE scope = ?1";
static const char *sql_all =
    "SELECT scope, name, value FROM settings ORDER BY scope, name";

int db_setting_set (struct db *db, const char *scope, const char *name,
                    const char *value)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (db) < 0 || !(st = db_stmt (db, sql_set)))
        return -1;
    sqlite3_bind_text (st, 1, scope, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 2, name, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 3, value, -1, SQLITE_STATIC);
    return db_exec_stmt (db, st);
}

int db_setting_delete (struct db *db, const char *scope, const char *name)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (db) < 0
        || !(st = db_stmt (db, name ? sql_delete_one : sql_delete_scope)))
        return -1;
    sqlite3_bind_text (st, 1, scope, -1, SQLITE_STATIC);
    if (name)
        sqlite3_bind_text (st, 2, name, -1, SQLITE_STATIC);
    return db_exec_stmt (db, st);
}

int db_setting_foreach (struct db *db,
                        int (*cb) (const char *scope, const char *name,
                                   const char *value, void *arg),
                        void *arg)
{
    sqlite3_stmt *st = db_stmt (db, sql_all);
    int rc, out = 0;

    if (!st)
        return -1;
    while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
        if ((out = cb ((const char *)sqlite3_column_text (st, 0),
                       (const char *)sqlite3_column_text (st, 1),
                       (const char *)sqlite3_column_text (st, 2), arg))
            < 0)
            break;
    }
    sqlite3_reset (st);
    if (out < 0)
        return out;
    return rc == SQLITE_DONE ? 0 : db_fail (db, "read settings");
}
