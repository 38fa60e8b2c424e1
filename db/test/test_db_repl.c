/* test_db_repl.c - a replica's database: a transaction taken as a
 * changeset on one file (the leader) and applied to another (a
 * follower), the entry's index and term recorded with it; a changeset
 * that does not fit the follower's rows is refused whole. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/db.h"
#include "db/db_repl.h"
#include "common/test/tap.h"

static char tmpdir[256];

static struct db *open_fresh (const char *name)
{
    struct hpcq_error err;
    char path[512];
    struct db *db;

    snprintf (path, sizeof (path), "%s/%s", tmpdir, name);
    if (!(db = db_open (path, &err))) {
        diag ("db_open %s: %s", path, err.text);
        return NULL;
    }
    if (db_repl_normalize (db) < 0) {
        db_close (db);
        return NULL;
    }
    return db;
}

static int exec (struct db *db, const char *sql)
{
    return sqlite3_exec (db_handle (db), sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* Every row of the tables a test writes, as one text. */
static char *rows (struct db *db)
{
    static const char *sql =
        "SELECT group_concat(x, ';') FROM ("
        " SELECT 'q:' || name || ':' || created_at || ':' || max_run AS x"
        "  FROM queues"
        " UNION ALL SELECT 's:' || key || '=' || value FROM server"
        " UNION ALL SELECT 'p:' || id || ':' || job_seq || ':' || reason FROM "
        "preemptions"
        " UNION ALL SELECT 'j:' || seq || ':' || uuid FROM jobs"
        " UNION ALL SELECT 'r:' || applied_index || ':' || applied_term FROM "
        "replica_state"
        " ORDER BY x)";
    sqlite3_stmt *st;
    char *out = NULL;

    if (sqlite3_prepare_v2 (db_handle (db), sql, -1, &st, NULL) != SQLITE_OK)
        return strdup ("(error)");
    if (sqlite3_step (st) == SQLITE_ROW && sqlite3_column_text (st, 0))
        out = strdup ((const char *)sqlite3_column_text (st, 0));
    sqlite3_finalize (st);
    return out ? out : strdup ("");
}

static int same_rows (struct db *a, struct db *b)
{
    char *x = rows (a), *y = rows (b);
    int same = strcmp (x, y) == 0;

    if (!same)
        diag ("leader   %s\nfollower %s", x, y);
    free (x);
    free (y);
    return same;
}

/* One transaction on the leader: sql, then replica_state (index, term),
 * taken as a changeset and committed. */
static int leader_txn (struct db *db, struct db_capture *cap, const char *sql,
                       int64_t index, int64_t term, void **cs, int *len)
{
    if (db_txn_ensure (db) < 0 || exec (db, sql) < 0
        || db_repl_state_set (db, index, term) < 0 || db_capture_take (cap, cs, len) < 0
        || db_commit (db) < 0)
        return -1;
    return 0;
}

static const char *job_sql =
    "INSERT INTO jobs (seq, uuid, owner, uid, name, queue, state, hold_types, priority,"
    " ctime, mtime, spec) VALUES (7, '2f1c0e1e-0000-4000-8000-000000000007', 'alice', "
    "1000,"
    " 'j', 'workq', 'Q', 'n', 0, 1, 1, '{}');";

static void test_apply (void)
{
    struct db *l = open_fresh ("leader.sqlite"), *f = open_fresh ("follower.sqlite");
    struct db_capture *cap = l ? db_capture_create (l) : NULL;
    struct hpcq_error err;
    int64_t index = -1, term = -1;
    void *cs = NULL, *cs2 = NULL, *cs3 = NULL;
    int len = 0, len2 = 0, len3 = 0;
    char sql[1024];

    ok (l && f && cap, "two fresh files, changes on the first recorded");
    if (!l || !f || !cap)
        goto out;
    ok (same_rows (l, f), "fresh files made the same (0001's workq created_at made 0)");
    ok (db_capture_empty (cap), "nothing recorded before a write");
    snprintf (sql, sizeof (sql),
              "%s INSERT INTO queues (name, created_at) VALUES ('gpu', 1700000000);"
              " INSERT INTO server (key, value) VALUES ('next_seq', '8');"
              " INSERT INTO preemptions (job_seq, attempt, time, method, reason)"
              "  VALUES (7, 1, 5, 'R', 'why');",
              job_sql);
    ok (leader_txn (l, cap, sql, 1, 1, &cs, &len) == 0 && len > 0,
        "a transaction becomes a changeset");
    ok (db_capture_empty (cap), "taken: the next transaction starts empty");
    ok (db_repl_apply (f, cs, len, 1, 1, &err) == 0, "the follower applies it");
    ok (same_rows (l, f),
        "the follower's rows are the leader's (preemptions included)");
    ok (db_repl_state (f, &index, &term) == 0 && index == 1 && term == 1,
        "the follower's file says it holds entry 1 of term 1");

    ok (db_repl_apply (f, cs, len, 1, 1, &err) < 0
            && strstr (err.text, "does not apply"),
        "the same entry again is refused: %s", err.text);
    ok (same_rows (l, f), "and nothing of it is applied");

    ok (leader_txn (l, cap,
                    "UPDATE queues SET max_run = 5 WHERE name = 'gpu';"
                    " DELETE FROM server WHERE key = 'next_seq';",
                    2, 1, &cs2, &len2)
            == 0,
        "an update and a delete on the leader");
    ok (db_repl_apply (f, cs2, len2, 3, 1, &err) < 0
            && strstr (err.text, "left the file"),
        "applied as another index it is refused: %s", err.text);
    ok (db_repl_apply (f, cs2, len2, 2, 1, &err) == 0 && same_rows (l, f),
        "applied as its own index the follower follows");

    /* A follower whose row differs from the leader's (it diverged). */
    ok (exec (f, "UPDATE queues SET max_run = 6 WHERE name = 'gpu'") == 0,
        "the follower's row is changed behind the log's back");
    ok (leader_txn (l, cap, "UPDATE queues SET max_run = 9 WHERE name = 'gpu'", 3, 2,
                    &cs3, &len3)
            == 0,
        "the leader changes that row");
    ok (db_repl_apply (f, cs3, len3, 3, 2, &err) < 0 && strstr (err.text, "differs"),
        "a conflict fails the entry loudly: %s", err.text);
    ok (db_repl_state (f, &index, &term) == 0 && index == 2 && term == 1,
        "and the follower still says entry 2: nothing was skipped");

    ok (db_txn_ensure (l) == 0 && exec (l, "DELETE FROM queues WHERE name = 'gpu'") == 0
            && !db_capture_empty (cap),
        "a write is recorded");
    db_rollback (l);
    ok (db_capture_reset (cap) == 0 && db_capture_empty (cap),
        "a rolled-back transaction is forgotten");
    ok (db_repl_reset (f, &err) == 0 && db_repl_state (f, &index, &term) == 0
            && index == 0 && term == 0,
        "a follower's file reset in place holds no entry");
    {
        struct db *fresh = open_fresh ("fresh.sqlite");
        ok (fresh && same_rows (fresh, f), "and is what a fresh file is");
        db_close (fresh);
    }
    ok (db_repl_apply (f, cs, len, 1, 1, &err) == 0,
        "the log applies to it again from the first entry");
out:
    sqlite3_free (cs);
    sqlite3_free (cs2);
    sqlite3_free (cs3);
    db_capture_destroy (cap);
    db_close (l);
    db_close (f);
}

int main (void)
{
    char cmd[300];

    plan (NO_PLAN);
    snprintf (tmpdir, sizeof (tmpdir), "/tmp/test_db_repl.XXXXXX");
    if (!mkdtemp (tmpdir)) {
        perror ("mkdtemp");
        return 1;
    }
    test_apply ();
    snprintf (cmd, sizeof (cmd), "rm -rf %s", tmpdir);
    if (system (cmd) != 0)
        diag ("cannot remove %s", tmpdir);
    done_testing ();
}
