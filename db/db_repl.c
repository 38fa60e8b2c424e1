/* db_repl.c - see db_repl.h */
/* The session extension's declarations in sqlite3.h need these, before
 * anything includes it; Debian's libsqlite3 exports the functions. */
#define SQLITE_ENABLE_SESSION 1
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "db/db_repl.h"

struct db_capture {
    struct db *db;
    sqlite3_session *s;
};

static const char *sql_state_get =
    "SELECT applied_index, applied_term FROM replica_state WHERE k = 0";
static const char *sql_state_set =
    "UPDATE replica_state SET applied_index = ?1, applied_term = ?2 WHERE k = 0";

static int capture_open (struct db_capture *cap)
{
    int rc = sqlite3session_create (db_handle (cap->db), "main", &cap->s);

    if (rc == SQLITE_OK && (rc = sqlite3session_attach (cap->s, NULL)) != SQLITE_OK) {
        sqlite3session_delete (cap->s);
        cap->s = NULL;
    }
    if (rc != SQLITE_OK) {
        log_msg (LOG_ERR, "database: cannot record changes: %s", sqlite3_errstr (rc));
        errno = rc == SQLITE_NOMEM ? ENOMEM : EIO;
        return -1;
    }
    return 0;
}

struct db_capture *db_capture_create (struct db *db)
{
    struct db_capture *cap = calloc (1, sizeof (*cap));

    if (!cap)
        return NULL;
    cap->db = db;
    if (capture_open (cap) < 0) {
        free (cap);
        return NULL;
    }
    return cap;
}

void db_capture_destroy (struct db_capture *cap)
{
    if (!cap)
        return;
    int saved = errno;
    if (cap->s)
        sqlite3session_delete (cap->s);
    free (cap);
    errno = saved;
}

int db_capture_empty (struct db_capture *cap)
{
    return !cap->s || sqlite3session_isempty (cap->s);
}

int db_capture_reset (struct db_capture *cap)
{
    if (cap->s)
        sqlite3session_delete (cap->s);
    cap->s = NULL;
    return capture_open (cap);
}

int db_capture_take (struct db_capture *cap, void **buf, int *len)
{
    int rc;

    *buf = NULL;
    *len = 0;
    if ((rc = sqlite3session_changeset (cap->s, len, buf)) != SQLITE_OK) {
        log_msg (LOG_ERR, "database: cannot take the changes: %s", sqlite3_errstr (rc));
        errno = rc == SQLITE_NOMEM ? ENOMEM : EIO;
        return -1;
    }
    /* A session has no reset: the next transaction gets a new one. */
    return db_capture_reset (cap);
}

int db_repl_state (struct db *db, int64_t *index, int64_t *term)
{
    sqlite3_stmt *st = db_stmt (db, sql_state_get);
    int rc;

    if (!st)
        return -1;
    if ((rc = sqlite3_step (st)) != SQLITE_ROW) {
        sqlite3_reset (st);
        if (rc == SQLITE_DONE) {
            errno = ENOENT;
            return -1;
        }
        return db_fail (db, "read replica state");
    }
    *index = sqlite3_column_int64 (st, 0);
    *term = sqlite3_column_int64 (st, 1);
    sqlite3_reset (st);
    return 0;
}

int db_repl_state_set (struct db *db, int64_t index, int64_t term)
{
    sqlite3_stmt *st = db_stmt (db, sql_state_set);

    if (!st)
        return -1;
    sqlite3_bind_int64 (st, 1, index);
    sqlite3_bind_int64 (st, 2, term);
    return db_exec_stmt (db, st);
}

struct apply_ctx {
    char why[256];
};

/* Never resolve a conflict: a row that is not what the leader changed
 * means this file is not the leader's, and skipping would hide it. */
static int apply_conflict (void *arg, int kind, sqlite3_changeset_iter *it)
{
    struct apply_ctx *ctx = arg;
    const char *table = "?", *what;
    int ncol, op, indirect;

    (void)sqlite3changeset_op (it, &table, &ncol, &op, &indirect);
    switch (kind) {
    case SQLITE_CHANGESET_DATA: what = "the row differs"; break;
    case SQLITE_CHANGESET_NOTFOUND: what = "no such row"; break;
    case SQLITE_CHANGESET_CONFLICT: what = "the row exists"; break;
    case SQLITE_CHANGESET_CONSTRAINT: what = "a constraint fails"; break;
    case SQLITE_CHANGESET_FOREIGN_KEY: what = "a foreign key fails"; break;
    default: what = "conflict"; break;
    }
    if (!ctx->why[0])
        snprintf (ctx->why, sizeof (ctx->why), "%s of a row of %s: %s",
                  op == SQLITE_INSERT   ? "insert"
                  : op == SQLITE_DELETE ? "delete"
                                        : "update",
                  table, what);
    return SQLITE_CHANGESET_ABORT;
}

int db_repl_apply (struct db *db, const void *buf, int len, int64_t index, int64_t term,
                   struct hpcq_error *err)
{
    struct apply_ctx ctx = { "" };
    int64_t i = -1, t = -1;
    int rc;

    if (db_in_txn (db)) {
        errno = EBUSY;
        return errprintf (err, "entry %lld: a transaction is open", (long long)index);
    }
    if (db_txn_ensure (db) < 0)
        return errprintf (err, "entry %lld: cannot begin: %s", (long long)index,
                          strerror (errno));
    rc = sqlite3changeset_apply (db_handle (db), len, (void *)buf, NULL, apply_conflict,
                                 &ctx);
    if (rc != SQLITE_OK) {
        errprintf (err, "entry %lld (term %lld) does not apply: %s", (long long)index,
                   (long long)term, ctx.why[0] ? ctx.why : sqlite3_errstr (rc));
        goto fail;
    }
    if (db_repl_state (db, &i, &t) < 0 || i != index || t != term) {
        errprintf (err,
                   "entry %lld (term %lld) left the file at entry %lld (term %lld)",
                   (long long)index, (long long)term, (long long)i, (long long)t);
        goto fail;
    }
    if (db_commit (db) < 0)
        return errprintf (err, "entry %lld: commit: %s", (long long)index,
                          strerror (errno));
    return 0;
fail:
    db_rollback (db);
    errno = EILSEQ;
    return -1;
}

int db_repl_normalize (struct db *db)
{
    char *msg = NULL;

    if (sqlite3_exec (db_handle (db),
                      "UPDATE queues SET created_at = 0 WHERE name = 'workq'", NULL,
                      NULL, &msg)
        != SQLITE_OK) {
        log_msg (LOG_ERR, "database: %s", msg ? msg : "error");
        sqlite3_free (msg);
        errno = EIO;
        return -1;
    }
    return 0;
}

int db_repl_reset (struct db *db, struct hpcq_error *err)
{
    struct db *fresh;
    sqlite3_backup *b;
    int rc;

    /* A fresh database made in memory, copied over the file page by page
     * under SQLite's own locks: no file is removed under a reader (whose
     * closing would delete a new -wal by its name). */
    if (!(fresh = db_open (":memory:", err)))
        return -1;
    if (db_repl_normalize (fresh) < 0) {
        db_close (fresh);
        return errprintf (err, "cannot make a fresh database");
    }
    if (!(b = sqlite3_backup_init (db_handle (db), "main", db_handle (fresh),
                                   "main"))) {
        errprintf (err, "cannot reset the database: %s",
                   sqlite3_errmsg (db_handle (db)));
        db_close (fresh);
        return -1;
    }
    rc = sqlite3_backup_step (b, -1);
    sqlite3_backup_finish (b);
    db_close (fresh);
    if (rc != SQLITE_DONE)
        return errprintf (err, "cannot reset the database: %s", sqlite3_errstr (rc));
    return 0;
}
