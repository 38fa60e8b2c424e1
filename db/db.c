/* db.c - see db.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/log.h"
#include "db/db.h"

extern const char *const db_migrations[];
extern const int db_migration_version[];

#define DB_MAX_STMTS 64

struct db {
    sqlite3 *h;
    int in_txn;
    struct {
        const char *sql;
        sqlite3_stmt *st;
    } stmts[DB_MAX_STMTS];
    int nstmts;
    /* Replicas only (db_set_commit_hook); NULL with one replica, so the
     * single-file path pays one test per commit. */
    const struct db_commit_hook *hook;
    void *hook_arg;
};

static int db_errno_of (int rc)
{
    switch (rc & 0xff) {
    case SQLITE_OK: return 0;
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return EBUSY;
    case SQLITE_NOMEM: return ENOMEM;
    case SQLITE_READONLY:
    case SQLITE_PERM: return EPERM;
    case SQLITE_FULL: return ENOSPC;
    case SQLITE_CONSTRAINT:
        /* A duplicate key is "exists"; a broken CHECK, NOT NULL or
         * foreign key is a bad value. */
        return rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE
                   ? EEXIST
                   : EINVAL;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return EILSEQ;
    default: return EIO;
    }
}

int db_fail (struct db *db, const char *what)
{
    int rc = sqlite3_extended_errcode (db->h);
    log_msg (LOG_ERR, "database: %s: %s", what, sqlite3_errmsg (db->h));
    errno = db_errno_of (rc);
    return -1;
}

static int db_exec (struct db *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec (db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
        log_msg (LOG_ERR, "database: %s", msg ? msg : "error");
        sqlite3_free (msg);
        errno = db_errno_of (sqlite3_extended_errcode (db->h));
        return -1;
    }
    return 0;
}

int db_schema_version (struct db *db)
{
    sqlite3_stmt *st;
    int v = -1;
    if (sqlite3_prepare_v2 (db->h, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step (st) == SQLITE_ROW)
        v = sqlite3_column_int (st, 0);
    sqlite3_finalize (st);
    return v;
}

/* Apply the migrations numbered past user_version, in order, each in its
 * own transaction; user_version becomes the number of the last one
 * applied.  Numbers may have gaps (they are reserved per branch). */
static int db_migrate (struct db *db, struct hpcq_error *err)
{
    int have = db_schema_version (db), n = 0;

    while (db_migrations[n])
        n++;
    if (have < 0)
        return errprintf (err, "cannot read schema version: %s",
                          sqlite3_errmsg (db->h));
    if (n > 0 && have > db_migration_version[n - 1]) {
        errno = EPROTO;
        return errprintf (err,
                          "database schema version %d is newer than this "
                          "program (%d)",
                          have, db_migration_version[n - 1]);
    }
    for (int i = 0; i < n; i++) {
        int v = db_migration_version[i];
        char pragma[64];

        if (v <= have)
            continue;
        snprintf (pragma, sizeof (pragma), "PRAGMA user_version = %d", v);
        if (db_exec (db, "BEGIN IMMEDIATE") < 0 || db_exec (db, db_migrations[i]) < 0
            || db_exec (db, pragma) < 0 || db_exec (db, "COMMIT") < 0) {
            /* Take the cause before ROLLBACK replaces it with "not an error". */
            errprintf (err, "migration %d failed: %s", v, sqlite3_errmsg (db->h));
            (void)db_exec (db, "ROLLBACK");
            return -1;
        }
        log_msg (LOG_INFO, "database: applied migration %d", v);
    }
    return 0;
}

/* The database and its -wal and -shm files are private: a file made
 * before the daemons set umask 077 (older versions made them 0644, so
 * anyone could read every script) is made 0600 again. */
static int db_private (const char *path, struct hpcq_error *err)
{
    static const char *suffix[] = { "", "-wal", "-shm" };
    char p[4200];
    struct stat st;

    for (int i = 0; i < 3; i++) {
        snprintf (p, sizeof (p), "%s%s", path, suffix[i]);
        if (stat (p, &st) < 0 || !(st.st_mode & 077))
            continue;
        if (chmod (p, st.st_mode & 0700) < 0)
            return errprintf (err, "cannot make '%s' private (mode %03o): %s", p,
                              (unsigned)(st.st_mode & 0777), strerror (errno));
        log_msg (LOG_WARNING, "database: %s was mode %03o, now %03o", p,
                 (unsigned)(st.st_mode & 0777), (unsigned)(st.st_mode & 0700));
    }
    return 0;
}

struct db *db_open (const char *path, struct hpcq_error *err)
{
    struct db *db = calloc (1, sizeof (*db));

    if (!db) {
        errprintf (err, "out of memory");
        return NULL;
    }
    if (sqlite3_open_v2 (path, &db->h,
                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                             | SQLITE_OPEN_NOMUTEX,
                         NULL)
        != SQLITE_OK) {
        errprintf (err, "cannot open database '%s': %s", path,
                   db->h ? sqlite3_errmsg (db->h) : "out of memory");
        goto error;
    }
    sqlite3_extended_result_codes (db->h, 1);
    sqlite3_busy_timeout (db->h, 5000);
    /* WAL + synchronous=FULL: a commit is durable once COMMIT returns, which
     * is what lets the scheduler acknowledge a job after its batch commits. */
    if (db_exec (db, "PRAGMA journal_mode = WAL") < 0
        || db_exec (db, "PRAGMA synchronous = FULL") < 0
        || db_exec (db, "PRAGMA foreign_keys = ON") < 0) {
        errprintf (err, "cannot set up database '%s': %s", path,
                   sqlite3_errmsg (db->h));
        goto error;
    }
    if (db_migrate (db, err) < 0 || db_private (path, err) < 0)
        goto error;
    return db;
error:
    db_close (db);
    return NULL;
}

void db_close (struct db *db)
{
    if (!db)
        return;
    int saved = errno;
    if (db->in_txn)
        db_rollback (db);
    for (int i = 0; i < db->nstmts; i++)
        sqlite3_finalize (db->stmts[i].st);
    sqlite3_close (db->h);
    free (db);
    errno = saved;
}

int db_txn_ensure (struct db *db)
{
    if (db->in_txn)
        return 0;
    if (db_exec (db, "BEGIN IMMEDIATE") < 0)
        return -1;
    db->in_txn = 1;
    return 0;
}

void db_set_commit_hook (struct db *db, const struct db_commit_hook *hook, void *arg)
{
    db->hook = hook;
    db->hook_arg = arg;
}

int db_commit (struct db *db)
{
    if (!db->in_txn)
        return 0;
    if (db->hook && db->hook->before (db, db->hook_arg) < 0) {
        int saved = errno;
        db_rollback (db);
        errno = saved;
        return -1;
    }
    if (db_exec (db, "COMMIT") < 0) {
        int saved = errno;
        db_rollback (db);
        errno = saved;
        return -1;
    }
    db->in_txn = 0;
    return 0;
}

void db_rollback (struct db *db)
{
    if (!db->in_txn)
        return;
    (void)db_exec (db, "ROLLBACK");
    db->in_txn = 0;
    if (db->hook)
        db->hook->rolled_back (db, db->hook_arg);
}

int db_in_txn (const struct db *db)
{
    return db->in_txn;
}

sqlite3_stmt *db_stmt (struct db *db, const char *sql)
{
    sqlite3_stmt *st;

    /* Replicas: no write may autocommit past the hook that proposes it. */
    if (db->hook && !db->in_txn && db_txn_ensure (db) < 0)
        return NULL;

    for (int i = 0; i < db->nstmts; i++) {
        if (db->stmts[i].sql == sql) {
            sqlite3_reset (db->stmts[i].st);
            sqlite3_clear_bindings (db->stmts[i].st);
            return db->stmts[i].st;
        }
    }
    if (db->nstmts == DB_MAX_STMTS) {
        errno = ENOSPC;
        return NULL;
    }
    if (sqlite3_prepare_v3 (db->h, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL)
        != SQLITE_OK) {
        db_fail (db, "prepare");
        return NULL;
    }
    db->stmts[db->nstmts].sql = sql;
    db->stmts[db->nstmts].st = st;
    db->nstmts++;
    return st;
}

int db_exec_stmt (struct db *db, sqlite3_stmt *st)
{
    int rc = sqlite3_step (st);
    sqlite3_reset (st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return db_fail (db, "write");
    return 0;
}

static const char *sql_server_get = "SELECT value FROM server WHERE key = ?1";
static const char *sql_server_set =
    "INSERT INTO server (key, value) VALUES (?1, ?2) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value";

int db_server_get (struct db *db, const char *key, char *buf, int len)
{
    sqlite3_stmt *st = db_stmt (db, sql_server_get);
    int rc;

    if (!st)
        return -1;
    sqlite3_bind_text (st, 1, key, -1, SQLITE_STATIC);
    rc = sqlite3_step (st);
    if (rc == SQLITE_ROW) {
        snprintf (buf, len, "%s", (const char *)sqlite3_column_text (st, 0));
        sqlite3_reset (st);
        return 0;
    }
    sqlite3_reset (st);
    if (rc == SQLITE_DONE) {
        errno = ENOENT;
        return -1;
    }
    return db_fail (db, "read server setting");
}

int db_server_set (struct db *db, const char *key, const char *value)
{
    sqlite3_stmt *st = db_stmt (db, sql_server_set);

    if (!st)
        return -1;
    sqlite3_bind_text (st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 2, value, -1, SQLITE_STATIC);
    return db_exec_stmt (db, st);
}

int db_wal_checkpoint (struct db *db)
{
    if (db->in_txn)
        return 0;
    if (sqlite3_wal_checkpoint_v2 (db->h, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL)
        != SQLITE_OK)
        return db_fail (db, "wal checkpoint");
    return 0;
}

sqlite3 *db_handle (struct db *db)
{
    return db->h;
}
