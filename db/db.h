/* db.h - the scheduler's durable state: one SQLite file in WAL mode.
 *
 * Opening applies the numbered migrations (the db/migrations files, compiled
 * in) that the file has not seen yet.  Writes are grouped: callers make
 * their changes inside the open transaction (db_txn_ensure) and the
 * scheduler commits once per event-loop turn, so a burst of submissions
 * pays one fsync.  Statements are prepared once and cached by their SQL
 * text's address (the SQL strings are static in the db_*.c files).
 */
#ifndef HPCQ_DB_DB_H
#define HPCQ_DB_DB_H

#include <sqlite3.h>
#include <stdint.h>

#include "common/error.h"

struct db;

/* Open or create path.  -1/NULL with err. */
struct db *db_open (const char *path, struct hpcq_error *err);
/* Rolls back an uncommitted transaction; safe on NULL. */
void db_close (struct db *db);

/* Begin a transaction if none is open.  0 or -1 with errno. */
int db_txn_ensure (struct db *db);
/* Commit the open transaction (no-op if none).  0 or -1 with errno: on
 * failure the transaction is rolled back and nothing of it is durable. */
int db_commit (struct db *db);
void db_rollback (struct db *db);
int db_in_txn (const struct db *db);

/* Replicas (scheduler/replica.c): before runs inside db_commit, in the
 * open transaction, just before COMMIT; it may still write, and a -1
 * (errno) from it rolls the transaction back and fails the commit.
 * rolled_back hears of every rollback.  hook is static; NULL removes it. */
struct db_commit_hook {
    int (*before) (struct db *db, void *arg);
    void (*rolled_back) (struct db *db, void *arg);
};
void db_set_commit_hook (struct db *db, const struct db_commit_hook *hook, void *arg);

/* A prepared statement for static sql, reset and with bindings cleared.
 * Owned by db.  NULL with errno. */
sqlite3_stmt *db_stmt (struct db *db, const char *sql);

/* Step a statement that returns no rows and reset it.  0 or -1 (errno). */
int db_exec_stmt (struct db *db, sqlite3_stmt *st);

/* Map an SQLite result code to errno and log it with context.  Returns -1. */
int db_fail (struct db *db, const char *what);

/* Server key/value settings (next job number, server name). */
int db_server_get (struct db *db, const char *key, char *buf, int len);
int db_server_set (struct db *db, const char *key, const char *value);

/* Number of migrations applied to the open file. */
int db_schema_version (struct db *db);

/* Move WAL contents into the main file (periodic housekeeping). */
int db_wal_checkpoint (struct db *db);

sqlite3 *db_handle (struct db *db);

#endif
